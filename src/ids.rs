//! Typed ids of the resolved program's arenas (sorts, predicates, functions, vocabularies,
//! theories, ...) and [`Symbol`], the unit that structures interpret. A leaf module: the
//! structures, the IR and every later stage refer to the program through these.

macro_rules! id_type {
    ($name:ident) => {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(SortId);
id_type!(PredId);
id_type!(FuncId);
id_type!(VocId);
id_type!(TheoryId);
id_type!(StructId);
id_type!(TermId);
id_type!(QueryId);
id_type!(ProcId);
id_type!(NamespaceId);

/// A predicate or function, the unit that structures interpret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    Pred(PredId),
    Func(FuncId),
}
