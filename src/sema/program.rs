//! The resolved program: arenas of sorts, predicates, functions, vocabularies, theories,
//! structures, terms, queries and procedures, addressed by typed ids. Built once by
//! `sema::resolve` from the AST; inferences read it and produce new structures.

use indexmap::{IndexMap, IndexSet};

use crate::sema::ir;
use crate::source::Span;
use crate::structure::{Structure, Value};

use crate::ids::{
    FuncId, NamespaceId, PredId, ProcId, QueryId, SortId, StructId, Symbol, TermId, TheoryId, VocId,
};

/// The built-in sorts of the std vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinSort {
    Nat,
    Int,
    Float,
    Char,
    String,
}

#[derive(Clone, Debug)]
pub struct Sort {
    pub name: String,
    /// Direct supertypes (`isa`).
    pub parents: Vec<SortId>,
    pub builtin: Option<BuiltinSort>,
    /// The interpretation fixed in the vocabulary (`type T = {1..5}`), sorted.
    pub fixed: Option<Vec<Value>>,
    /// Constructor functions of a constructed type (empty otherwise).
    pub constructors: Vec<FuncId>,
    pub constructed: bool,
    /// The predicate `T(x)` that every type also is.
    pub pred: PredId,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Predicate {
    pub name: String,
    pub args: Vec<SortId>,
    /// `Some(T)` for the type predicate `T(x)`.
    pub type_of: Option<SortId>,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub args: Vec<SortId>,
    pub result: SortId,
    pub partial: bool,
    /// `Some(T)` for a constructor of the constructed type `T`.
    pub constructor_of: Option<SortId>,
    pub span: Option<Span>,
}

/// LTC information of a vocabulary: the Time sort, Start constant and Next function.
#[derive(Clone, Debug)]
pub struct LtcInfo {
    pub time: SortId,
    pub start: FuncId,
    pub next: FuncId,
    /// The generated single-state and bistate vocabularies.
    pub single_state: Option<VocId>,
    pub bistate: Option<VocId>,
    /// Each time-dependent symbol of the LTC vocabulary mapped to its single-state projection
    /// (the same symbol without its Time argument) in `single_state`/`bistate`.
    pub projection: IndexMap<Symbol, Symbol>,
    /// For each time-dependent symbol, the position of its Time argument.
    pub time_arg: IndexMap<Symbol, usize>,
}

#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    pub name: String,
    /// The namespace path in which it was declared (empty for the global namespace).
    pub namespace: Vec<String>,
    pub sorts: IndexSet<SortId>,
    pub preds: IndexSet<PredId>,
    pub funcs: IndexSet<FuncId>,
    pub ltc: Option<LtcInfo>,
    /// For a bistate vocabulary: maps each `P_next` symbol to the original `P`.
    pub next_of: IndexMap<Symbol, Symbol>,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Theory {
    pub name: String,
    pub vocabulary: VocId,
    pub sentences: Vec<ir::Formula>,
    pub definitions: Vec<ir::Definition>,
    pub span: Option<Span>,
    /// How `print` shows the theory: as source text, or as IDP3 prints a ground theory.
    pub form: TheoryForm,
}

/// How a theory prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TheoryForm {
    /// As IDP source text (`theory T : V { ... }`).
    #[default]
    Source,
    /// Made by `ground(T, S)`: as IDP3 prints a ground theory (clauses over numbered Tseitin
    /// atoms, ground rules); `model_equivalent` as the procedure's flag (a Tseitin is
    /// equivalent to its subformula, else implies it).
    Ground { model_equivalent: bool },
}

#[derive(Clone, Debug)]
pub struct TermBlock {
    pub name: String,
    pub vocabulary: VocId,
    pub term: ir::Term,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Query {
    pub name: String,
    pub vocabulary: VocId,
    pub vars: Vec<ir::Var>,
    pub formula: ir::Formula,
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Procedure {
    pub name: String,
    pub params: Vec<String>,
    pub body: String,
    pub file: String,
    pub body_line: u32,
    pub namespace: Vec<String>,
    /// From `procedure` to the closing `}`.
    pub span: Span,
}

/// Anything with a name in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    Vocabulary(VocId),
    Theory(TheoryId),
    Structure(StructId),
    Term(TermId),
    Query(QueryId),
    Procedure(ProcId),
    Namespace(NamespaceId),
}

#[derive(Clone, Debug, Default)]
pub struct Namespace {
    pub name: String,
    pub parent: Option<NamespaceId>,
    /// Components by name, in declaration order.
    pub members: IndexMap<String, Component>,
}

/// The whole resolved program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub sorts: Vec<Sort>,
    pub preds: Vec<Predicate>,
    pub funcs: Vec<Function>,
    pub vocabularies: Vec<Vocabulary>,
    pub theories: Vec<Theory>,
    pub structures: Vec<Structure>,
    pub terms: Vec<TermBlock>,
    pub queries: Vec<Query>,
    pub procedures: Vec<Procedure>,
    /// `namespaces[0]` is the global namespace `idpglobal`.
    pub namespaces: Vec<Namespace>,
    /// The std vocabulary (built-in sorts).
    pub std_vocabulary: VocId,
    pub builtin_sorts: IndexMap<BuiltinSortKey, SortId>,
    /// The loaded source files, to give positions in messages after resolution.
    pub sources: Option<Sources>,
    /// IDP-Z3's `display` block: how a consultant shows the vocabulary.
    pub display: Display,
}

/// IDP-Z3's `display` block, its concepts resolved: what a consultant asks about first and
/// how it shows each symbol. Empty without a display block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Display {
    /// `goal_symbol := {..}.`: the symbols relevance is measured against.
    pub goals: Vec<Symbol>,
    /// `expand := {..}.`: shown with every value at once.
    pub expanded: Vec<Symbol>,
    /// `hide(..).`: not shown.
    pub hidden: Vec<Symbol>,
    /// `counter := {..}.`: shown with a counter of their models' values.
    pub counters: Vec<Symbol>,
    /// `noOptimization(..).`: offered for no minimisation.
    pub not_optimised: Vec<Symbol>,
    /// `unit('m', `length).`: the unit shown beside a symbol's values.
    pub units: Vec<(Symbol, String)>,
    /// `heading('Shape', `type).`: headings, each over its symbols, in the order written.
    pub headings: Vec<(String, Vec<Symbol>)>,
    /// `introduction('..').`
    pub introduction: Option<String>,
    /// `view() = expanded.`: every symbol not hidden is expanded.
    pub view_expanded: bool,
    /// The flags set, as written: `moveSymbols`, `optionalPropagation`, `manualPropagation`,
    /// `optionalRelevance`, `manualRelevance`.
    pub flags: Vec<String>,
}

impl Display {
    /// Whether no setting is made (no display block, or an empty one).
    pub fn is_empty(&self) -> bool {
        *self == Display::default()
    }
}

/// The loaded source files, shared (shown as their number in debug output).
#[derive(Clone, Default)]
pub struct Sources(pub std::rc::Rc<crate::source::SourceMap>);

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sources({} files)", self.0.len())
    }
}

/// Key type for the builtin sort table (kept separate so `BuiltinSort` stays plain).
pub type BuiltinSortKey = &'static str;

impl Program {
    /// `file:line:col` of a span, when the sources are known.
    pub fn position(&self, span: Span) -> Option<String> {
        let sources = &self.sources.as_ref()?.0;
        if span.file as usize >= sources.len() {
            return None;
        }
        let (line, col) = sources.line_col(span.file, span.start);
        Some(format!("{}:{line}:{col}", sources.name(span.file)))
    }

    /// Whether `span` stands in a file read in IDP-Z3's FO(·).
    pub fn in_fodot(&self, span: Span) -> bool {
        self.sources
            .as_ref()
            .is_some_and(|s| s.0.is_fodot(span.file))
    }

    /// The source text that `span` covers, when the sources are known.
    pub fn source_text(&self, span: Span) -> Option<&str> {
        self.sources.as_ref()?.0.span_text(span)
    }

    pub fn sort(&self, id: SortId) -> &Sort {
        &self.sorts[id.index()]
    }
    pub fn pred(&self, id: PredId) -> &Predicate {
        &self.preds[id.index()]
    }
    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.index()]
    }
    pub fn voc(&self, id: VocId) -> &Vocabulary {
        &self.vocabularies[id.index()]
    }
    pub fn theory(&self, id: TheoryId) -> &Theory {
        &self.theories[id.index()]
    }

    /// The builtin sort with the given name (`int`, `nat`, `float`, `char`, `string`).
    pub fn builtin(&self, name: &str) -> SortId {
        self.builtin_sorts[name]
    }

    /// Whether `sub` equals `sup` or is a (transitive) subtype of it.
    pub fn is_subsort(&self, sub: SortId, sup: SortId) -> bool {
        if sub == sup {
            return true;
        }
        self.sort(sub)
            .parents
            .iter()
            .any(|&p| self.is_subsort(p, sup))
    }

    /// All supertypes of `s`, including `s` itself.
    pub fn ancestors(&self, s: SortId) -> Vec<SortId> {
        let mut out = vec![s];
        let mut k = 0;
        while k < out.len() {
            for &p in &self.sort(out[k]).parents {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
            k += 1;
        }
        out
    }

    /// Whether values of `s` are numbers (the sort is a subtype of `float`).
    pub fn is_numeric(&self, s: SortId) -> bool {
        self.is_subsort(s, self.builtin("float"))
    }

    /// The argument sorts of a symbol, with a function's result sort last.
    pub fn symbol_sorts(&self, s: Symbol) -> Vec<SortId> {
        match s {
            Symbol::Pred(p) => self.pred(p).args.clone(),
            Symbol::Func(f) => {
                let mut v = self.func(f).args.clone();
                v.push(self.func(f).result);
                v
            }
        }
    }

    pub fn symbol_name(&self, s: Symbol) -> &str {
        match s {
            Symbol::Pred(p) => &self.pred(p).name,
            Symbol::Func(f) => &self.func(f).name,
        }
    }

    /// Looks up a component by `::`-separated path from the global namespace.
    pub fn lookup(&self, path: &[&str]) -> Option<Component> {
        let mut ns = NamespaceId(0);
        for (k, part) in path.iter().enumerate() {
            let c = *self.namespaces[ns.index()].members.get(*part)?;
            if k + 1 == path.len() {
                return Some(c);
            }
            match c {
                Component::Namespace(n) => ns = n,
                _ => return None,
            }
        }
        None
    }
}
