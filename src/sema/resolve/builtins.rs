//! The std vocabulary: the builtin sorts `nat ⊂ int ⊂ float` and `char ⊂ string`, each with
//! its type predicate. Builtin functions (+, -, abs, MIN, ...) are not symbols; `theory`
//! lowers them to dedicated `ir` term kinds.

use indexmap::IndexMap;

use super::{Entry, Resolver};
use crate::ids::{PredId, SortId, VocId};
use crate::sema::program::{BuiltinSort, Predicate, Sort, Vocabulary};

impl Resolver<'_> {
    pub(super) fn init_builtins(&mut self) {
        let voc = VocId(self.prog.vocabularies.len() as u32);
        self.prog.vocabularies.push(Vocabulary {
            name: "std".into(),
            ..Default::default()
        });
        self.voc_names.push(IndexMap::new());
        self.prog.std_vocabulary = voc;
        let float = self.builtin_sort("float", BuiltinSort::Float, None);
        let int = self.builtin_sort("int", BuiltinSort::Int, Some(float));
        self.builtin_sort("nat", BuiltinSort::Nat, Some(int));
        let string = self.builtin_sort("string", BuiltinSort::String, None);
        self.builtin_sort("char", BuiltinSort::Char, Some(string));
    }

    fn builtin_sort(
        &mut self,
        name: &'static str,
        b: BuiltinSort,
        parent: Option<SortId>,
    ) -> SortId {
        let id = SortId(self.prog.sorts.len() as u32);
        let pred = PredId(self.prog.preds.len() as u32);
        self.prog.preds.push(Predicate {
            name: name.into(),
            args: vec![id],
            type_of: Some(id),
            span: None,
        });
        self.prog.sorts.push(Sort {
            name: name.into(),
            parents: parent.into_iter().collect(),
            builtin: Some(b),
            fixed: None,
            constructors: Vec::new(),
            constructed: false,
            pred,
            span: None,
        });
        self.prog.builtin_sorts.insert(name, id);
        let std = self.prog.std_vocabulary;
        self.prog.vocabularies[std.index()].sorts.insert(id);
        self.voc_names[std.index()]
            .entry(name.to_string())
            .or_default()
            .push(Entry::Sort(id));
        id
    }

    pub(super) fn sort_int(&self) -> SortId {
        self.prog.builtin("int")
    }
    pub(super) fn sort_nat(&self) -> SortId {
        self.prog.builtin("nat")
    }
    pub(super) fn sort_float(&self) -> SortId {
        self.prog.builtin("float")
    }
    pub(super) fn sort_string(&self) -> SortId {
        self.prog.builtin("string")
    }
    pub(super) fn sort_char(&self) -> SortId {
        self.prog.builtin("char")
    }

    /// Whether `s` is a subsort of `int` (arithmetic on it stays integral).
    pub(super) fn is_intlike(&self, s: SortId) -> bool {
        self.prog.is_subsort(s, self.sort_int())
    }

    /// The unique nearest common ancestor of two sorts (IDP3's `SortUtils::resolve`).
    pub(super) fn lca(&self, a: SortId, b: SortId) -> Option<SortId> {
        if a == b {
            return Some(a);
        }
        let aa = self.prog.ancestors(a);
        let bb = self.prog.ancestors(b);
        let common: Vec<SortId> = aa.iter().copied().filter(|s| bb.contains(s)).collect();
        let lowest: Vec<SortId> = common
            .iter()
            .copied()
            .filter(|&s| !common.iter().any(|&t| t != s && self.prog.is_subsort(t, s)))
            .collect();
        match lowest.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Whether `s` is numeric (a subsort of float).
    pub(super) fn is_numeric(&self, s: SortId) -> bool {
        self.prog.is_subsort(s, self.sort_float())
    }
}
