//! Structures: (partial) interpretations of a vocabulary's sorts, predicates and functions.
//!
//! A predicate or function is interpreted by a [`Table`] of tuples: for a function the tuples are
//! its graph (arguments followed by the value). A table is two-valued (everything not listed is
//! false) or three-valued (certainly true `ct`, certainly false `cf`, the rest unknown).

use std::collections::HashSet;

use indexmap::IndexMap;

use crate::sema::program::{SortId, Symbol, VocId};
use crate::structure::value::{Tuple, Value};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Table {
    /// Exactly these tuples are true.
    TwoValued(HashSet<Tuple>),
    /// `ct` are certainly true, `cf` certainly false, all other tuples unknown.
    ThreeValued {
        ct: HashSet<Tuple>,
        cf: HashSet<Tuple>,
    },
}

impl Default for Table {
    fn default() -> Table {
        Table::ThreeValued {
            ct: HashSet::new(),
            cf: HashSet::new(),
        }
    }
}

/// What a table says about one tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruthValue {
    True,
    False,
    Unknown,
}

impl Table {
    pub fn truth(&self, t: &[Value]) -> TruthValue {
        match self {
            Table::TwoValued(set) => {
                if set.contains(t) {
                    TruthValue::True
                } else {
                    TruthValue::False
                }
            }
            Table::ThreeValued { ct, cf } => {
                if ct.contains(t) {
                    TruthValue::True
                } else if cf.contains(t) {
                    TruthValue::False
                } else {
                    TruthValue::Unknown
                }
            }
        }
    }

    pub fn is_two_valued(&self) -> bool {
        matches!(self, Table::TwoValued(_))
    }

    /// The certainly-true tuples.
    pub fn ct(&self) -> &HashSet<Tuple> {
        match self {
            Table::TwoValued(s) => s,
            Table::ThreeValued { ct, .. } => ct,
        }
    }

    /// The explicitly certainly-false tuples (empty for two-valued tables, where every other
    /// tuple is false).
    pub fn cf_explicit(&self) -> Option<&HashSet<Tuple>> {
        match self {
            Table::TwoValued(_) => None,
            Table::ThreeValued { cf, .. } => Some(cf),
        }
    }
}

/// A structure over a vocabulary. Sorts map to their (sorted, duplicate-free) domains; a sort
/// that is absent has no interpretation yet. Symbols that are absent are entirely unknown.
#[derive(Clone, Debug)]
pub struct Structure {
    pub name: String,
    pub vocabulary: VocId,
    pub sorts: IndexMap<SortId, Vec<Value>>,
    pub symbols: IndexMap<Symbol, Table>,
    /// Sorts interpreted by an integer range too large to enumerate (IDP3 keeps such ranges
    /// symbolic); they have no entry in `sorts` until an inference can use a small stand-in.
    pub huge_ranges: IndexMap<SortId, HugeRange>,
    /// Symbols interpreted by a Lua procedure (`P = procedure Name`, its qualified name): the
    /// runtime calls it for every argument tuple and fills in the table.
    pub procedures: Vec<(Symbol, Vec<String>)>,
}

/// A sort interpretation `{lo..hi}` with too many elements to list, plus any elements given
/// next to the range.
#[derive(Clone, Debug, PartialEq)]
pub struct HugeRange {
    pub lo: i64,
    pub hi: i64,
    pub extra: Vec<Value>,
}

impl HugeRange {
    pub fn contains(&self, v: Value) -> bool {
        matches!(v, Value::Int(i) if (self.lo..=self.hi).contains(&i)) || self.extra.contains(&v)
    }

    /// The number of elements of the range.
    pub fn range_len(&self) -> i64 {
        self.hi - self.lo + 1
    }
}

impl Structure {
    pub fn new(name: impl Into<String>, vocabulary: VocId) -> Structure {
        Structure {
            name: name.into(),
            vocabulary,
            sorts: IndexMap::new(),
            symbols: IndexMap::new(),
            huge_ranges: IndexMap::new(),
            procedures: Vec::new(),
        }
    }

    pub fn domain(&self, s: SortId) -> Option<&[Value]> {
        self.sorts.get(&s).map(|v| v.as_slice())
    }

    pub fn table(&self, s: Symbol) -> Option<&Table> {
        self.symbols.get(&s)
    }

    /// Sets a sort's domain (sorted and deduplicated).
    pub fn set_domain(&mut self, s: SortId, mut values: Vec<Value>) {
        values.sort();
        values.dedup();
        self.sorts.insert(s, values);
    }

    pub fn truth(&self, s: Symbol, t: &[Value]) -> TruthValue {
        self.symbols
            .get(&s)
            .map(|tb| tb.truth(t))
            .unwrap_or(TruthValue::Unknown)
    }
}
