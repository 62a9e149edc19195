//! Structures: (partial) interpretations of a vocabulary's sorts, predicates and functions.
//!
//! A predicate or function is interpreted by a [`Table`] of tuples: for a function the tuples are
//! its graph (arguments followed by the value). A table is two-valued (everything not listed is
//! false) or three-valued (certainly true `ct`, certainly false `cf`, the rest unknown).

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::error::Error;
use crate::ids::{FuncId, SortId, Symbol, VocId};
use crate::source::Span;
use crate::structure::value::{Tuple, Value};

/// A set of tuples (hashed with FxHash: tables are probed in the grounder's inner loops).
pub type TupleSet = rustc_hash::FxHashSet<Tuple>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Table {
    /// Exactly these tuples are true.
    TwoValued(TupleSet),
    /// `ct` are certainly true, `cf` certainly false, all other tuples unknown.
    ThreeValued { ct: TupleSet, cf: TupleSet },
}

impl Default for Table {
    fn default() -> Table {
        Table::ThreeValued {
            ct: TupleSet::default(),
            cf: TupleSet::default(),
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
    pub fn ct(&self) -> &TupleSet {
        match self {
            Table::TwoValued(s) => s,
            Table::ThreeValued { ct, .. } => ct,
        }
    }

    /// The explicitly certainly-false tuples (empty for two-valued tables, where every other
    /// tuple is false).
    pub fn cf_explicit(&self) -> Option<&TupleSet> {
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
    /// The listed domains.
    sorts: IndexMap<SortId, Vec<Value>>,
    /// Constructed types whose elements are listed from their constructors when first asked
    /// for (a type such as `press(All, All, All)` has hundreds of thousands of elements that
    /// checking a file never needs).
    constructed: IndexMap<SortId, ConstructedDomain>,
    pub symbols: IndexMap<Symbol, Table, rustc_hash::FxBuildHasher>,
    /// Sorts interpreted by an integer range too large to enumerate (IDP3 keeps such ranges
    /// symbolic); they have no entry in `sorts` until an inference can use a small stand-in.
    pub huge_ranges: IndexMap<SortId, HugeRange>,
    /// Symbols interpreted by a Lua procedure (`P = procedure Name`, its qualified name): the
    /// runtime calls it for every argument tuple and fills in the table.
    pub procedures: Vec<(Symbol, Vec<String>)>,
    /// Procedure-interpreted symbols over argument types too large to tabulate: asked per
    /// tuple, when grounding meets one.
    pub lazy: IndexMap<Symbol, LazyProcedure>,
    /// Where the source interprets each symbol (its first table), for explanations that name
    /// the facts they use.
    pub spans: IndexMap<Symbol, Span>,
    /// Symbols outside the vocabulary that belong to the structure and are printed with it:
    /// the symbols of the term of `minimize(T, S, t, Vout)`, which IDP3 adds to Vout.
    pub beyond_vocabulary: Vec<Symbol>,
}

/// What a procedure answered for one argument tuple.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// A predicate's truth.
    Holds(bool),
    /// A function's value.
    Value(Value),
}

/// The call of a procedure on one argument tuple.
pub type ProcedureCall = Rc<dyn Fn(&[Value]) -> Result<Answer, Error>>;

/// A symbol interpreted by a Lua procedure whose argument types are too large to tabulate
/// (IDP3 calls such procedures lazily): it is called for the tuples that are met, and each
/// answer is kept (clones of the structure share them).
#[derive(Clone)]
pub struct LazyProcedure {
    /// The procedure's name as written in the structure (`checkSquare`).
    pub name: String,
    call: ProcedureCall,
    answers: Rc<RefCell<HashMap<Tuple, Answer>>>,
}

impl LazyProcedure {
    pub fn new(name: String, call: ProcedureCall) -> LazyProcedure {
        LazyProcedure {
            name,
            call,
            answers: Rc::default(),
        }
    }

    /// The procedure's answer for `args` (called once per tuple).
    pub fn answer(&self, args: &[Value]) -> Result<Answer, Error> {
        if let Some(&a) = self.answers.borrow().get(args) {
            return Ok(a);
        }
        let a = (self.call)(args)?;
        self.answers.borrow_mut().insert(args.to_vec(), a);
        Ok(a)
    }
}

impl fmt::Debug for LazyProcedure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "procedure {}", self.name)
    }
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

/// The most elements a constructed type is listed with.
pub const MAX_LISTED: usize = 2_000_000;

/// A constructed type's domain: its constructors applied to every tuple of their argument
/// types' domains, listed once when first asked for. The argument types are interpreted by
/// the same structure and none leads back to the type (it is not recursive).
#[derive(Clone, Debug)]
struct ConstructedDomain {
    /// Each constructor with its argument types.
    constructors: Vec<(FuncId, Vec<SortId>)>,
    /// The elements, sorted; `None` when an argument type has no finite domain or there are
    /// more than [`MAX_LISTED`].
    listed: OnceCell<Option<Vec<Value>>>,
}

impl PartialEq for ConstructedDomain {
    fn eq(&self, other: &ConstructedDomain) -> bool {
        self.constructors == other.constructors
    }
}

impl Structure {
    /// Whether `other` interprets the same vocabulary, sorts and symbols in the same way (its
    /// name aside).
    pub fn same_interpretation(&self, other: &Structure) -> bool {
        self.vocabulary == other.vocabulary
            && self.sorts == other.sorts
            && self.constructed == other.constructed
            && self.symbols == other.symbols
            && self.huge_ranges == other.huge_ranges
    }

    pub fn new(name: impl Into<String>, vocabulary: VocId) -> Structure {
        Structure {
            name: name.into(),
            vocabulary,
            sorts: IndexMap::new(),
            constructed: IndexMap::new(),
            symbols: IndexMap::default(),
            huge_ranges: IndexMap::new(),
            procedures: Vec::new(),
            lazy: IndexMap::new(),
            spans: IndexMap::new(),
            beyond_vocabulary: Vec::new(),
        }
    }

    /// The domain of sort `s`: listed, or for a constructed type listed now from its
    /// constructors ([`Structure::construct_lazily`]); `None` when the structure does not
    /// interpret it finitely.
    pub fn domain(&self, s: SortId) -> Option<&[Value]> {
        if let Some(v) = self.sorts.get(&s) {
            return Some(v.as_slice());
        }
        let c = self.constructed.get(&s)?;
        c.listed
            .get_or_init(|| self.list_constructed(&c.constructors))
            .as_deref()
    }

    fn list_constructed(&self, constructors: &[(FuncId, Vec<SortId>)]) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        for (c, args) in constructors {
            let domains: Vec<&[Value]> = args
                .iter()
                .map(|&a| self.domain(a))
                .collect::<Option<_>>()?;
            let mut size = 1usize;
            for d in &domains {
                size = size.checked_mul(d.len())?;
            }
            if out.len().checked_add(size)? > MAX_LISTED {
                return None;
            }
            let mut tuple = vec![0usize; domains.len()];
            for _ in 0..size {
                let args = tuple.iter().zip(&domains).map(|(&k, d)| d[k]).collect();
                out.push(Value::compound(*c, args));
                for (k, d) in tuple.iter_mut().zip(&domains).rev() {
                    *k += 1;
                    if *k < d.len() {
                        break;
                    }
                    *k = 0;
                }
            }
        }
        // The product of sorted domains comes sorted for one constructor (the common case).
        if !out.is_sorted() {
            out.sort();
        }
        out.dedup();
        Some(out)
    }

    /// Interprets constructed type `s` by its constructors (each with its argument types,
    /// which this structure interprets and none of which leads back to `s`): its elements are
    /// listed when first asked for.
    pub fn construct_lazily(&mut self, s: SortId, constructors: Vec<(FuncId, Vec<SortId>)>) {
        self.sorts.shift_remove(&s);
        let listed = OnceCell::new();
        self.constructed.insert(
            s,
            ConstructedDomain {
                constructors,
                listed,
            },
        );
    }

    /// Whether `s` is a constructed type whose elements are listed only when asked for; its
    /// members are its constructors' values on members of their argument types.
    pub fn is_constructed_lazily(&self, s: SortId) -> bool {
        self.constructed.contains_key(&s)
    }

    /// The sorts this structure interprets (listed or constructed lazily).
    pub fn interpreted_sorts(&self) -> impl Iterator<Item = SortId> + '_ {
        self.sorts.keys().chain(self.constructed.keys()).copied()
    }

    /// Gives sort `s` the interpretation it has in `from` (none if it has none there).
    pub fn copy_domain(&mut self, from: &Structure, s: SortId) {
        self.remove_domain(s);
        if let Some(d) = from.sorts.get(&s) {
            self.sorts.insert(s, d.clone());
        } else if let Some(c) = from.constructed.get(&s) {
            self.constructed.insert(s, c.clone());
        }
    }

    /// Gives every sort the interpretation it has in `from`.
    pub fn copy_domains(&mut self, from: &Structure) {
        self.sorts = from.sorts.clone();
        self.constructed = from.constructed.clone();
    }

    /// Leaves sort `s` uninterpreted.
    pub fn remove_domain(&mut self, s: SortId) {
        self.sorts.shift_remove(&s);
        self.constructed.shift_remove(&s);
    }

    pub fn table(&self, s: Symbol) -> Option<&Table> {
        self.symbols.get(&s)
    }

    /// Sets a sort's domain (sorted and deduplicated).
    pub fn set_domain(&mut self, s: SortId, mut values: Vec<Value>) {
        // Listed domains come sorted: checking costs one comparison per value, sorting many.
        if !values.is_sorted() {
            values.sort();
        }
        values.dedup();
        self.constructed.shift_remove(&s);
        self.sorts.insert(s, values);
    }

    pub fn truth(&self, s: Symbol, t: &[Value]) -> TruthValue {
        self.symbols
            .get(&s)
            .map(|tb| tb.truth(t))
            .unwrap_or(TruthValue::Unknown)
    }
}
