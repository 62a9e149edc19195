//! Grounding: instantiates formulas, terms and rules over the finite domains of a structure,
//! evaluating everything the structure already determines. Symbols that the structure leaves
//! unknown (and the symbols of definitions being encoded) become atoms in a hash-consed
//! [`store::Store`]; the result is a ground formula per sentence and ground rules per definition.
//! Atoms of non-recursive definitions over infinite types are instead expanded into their rule
//! bodies where grounding meets them ([`inlined`]).

mod aggregates;
mod bottom_up;
mod bounds;
mod cases;
mod constant_bounds;
pub mod datalog;
mod definitions;
pub mod delayed;
mod dump;
mod formulas;
mod inlined;
mod integers;
mod join;
mod joint;
mod lift;
mod recursive_aggregates;
mod scan;
mod store;
mod terms;
mod thresholds;
mod traverse;
mod tuple_set;
mod value_bounds;
pub mod wellfounded;

pub use aggregates::LinearObjective;
pub use bottom_up::least_fixpoint;
pub use dump::{atom_text, ground_theory_text};
pub use inlined::inlinable;
pub use integers::{IntVar, Integers, LinTerm, LinearAtom, RealAtom, INT_WINDOW};
pub use lift::{value_terms, Lift};
pub use store::{AtomId, Gf, Node, Store, AUX};
pub use terms::arith;
pub use thresholds::WholeThreshold;
pub use traverse::{atoms_in_polarity, evaluate, replace_positive, without_positive};

use crate::limits::Until;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use crate::error::{Error, ErrorKind, IdpResult, Limit};
use crate::ids::{FuncId, SortId, Symbol};
use crate::sema::ir::{self, NodeId};
use crate::sema::BuiltinSort;
use crate::sema::Program;
use crate::structure::{Answer, LazyProcedure, Structure, Table, TruthValue, Tuple, Value};

use crate::sema::Domains;
use tuple_set::TupleSet;

/// A value of a ground term: a domain element, or the infinities that `min`/`max` of an empty
/// set take (IDP3's convention: `max{}` is −∞, `min{}` is +∞).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GVal {
    NegInf,
    V(Value),
    PosInf,
}

pub use cases::Cases;

/// A ground term: the values it may take, each with the (mutually exclusive) condition under
/// which it takes it. When no condition holds the term is undefined (a partial function).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GTerm(pub Vec<(Gf, GVal)>);

impl GTerm {
    pub fn known(v: Value) -> GTerm {
        GTerm(vec![(Gf::TRUE, GVal::V(v))])
    }
    pub fn undefined() -> GTerm {
        GTerm(Vec::new())
    }
    /// The single value of a term that the structure determines.
    pub fn as_known(&self) -> Option<GVal> {
        match self.0.as_slice() {
            [(g, v)] if *g == Gf::TRUE => Some(*v),
            _ => None,
        }
    }
}

/// An index on a table: the values of some argument positions to the values at another.
pub type TableIndex = HashMap<Vec<Value>, Rc<[Value]>>;

/// Table indexes by (symbol, position, positions of the known arguments as a bit set).
pub type TableIndexes = HashMap<(Symbol, usize, u64), Rc<TableIndex>>;

/// The bit of argument position `k` in a set of positions.
pub fn position_bit(k: usize) -> u64 {
    assert!(k < 64, "an index on fewer than 64 argument positions");
    1 << k
}

/// The error kind for grounding over `sort`, which has no finite interpretation.
fn infinite_domain(sort: &crate::sema::Sort) -> ErrorKind {
    use crate::sema::BuiltinSort;
    ErrorKind::InfiniteDomain {
        sort: sort.name.clone(),
        numbers: matches!(sort.builtin, Some(BuiltinSort::Int | BuiltinSort::Float)),
    }
}

/// A map keyed by `(head, values)`, looked up with a borrowed [`store::SliceKey`].
pub type SliceMap<H, T, V> = hashbrown::HashMap<(H, Vec<T>), V, rustc_hash::FxBuildHasher>;

/// A memo key: a node's id and the current values of its variables.
pub type MemoKey = (NodeId, Vec<Option<Value>>);

/// One ground rule body per defined atom, for one definition.
#[derive(Clone, Debug, Default)]
pub struct GroundDefinition {
    /// Defined atom (as a positive `Gf`) to the disjunction of its bodies.
    pub rules: indexmap::IndexMap<Gf, Vec<Gf>>,
    /// The symbols this definition defines.
    pub defined: Vec<Symbol>,
    /// What grounding each rule cost (for `--stats`).
    pub costs: Vec<RuleCost>,
}

/// What grounding one rule cost.
#[derive(Clone, Debug)]
pub struct RuleCost {
    pub span: crate::source::Span,
    pub seconds: f64,
    /// Ground rules made (instances whose body is not false).
    pub instances: usize,
    /// Nodes the store grew by.
    pub nodes: usize,
    /// Bindings of the rule's variables tried.
    pub bindings: u64,
}

/// The grounder: instantiates formulas, terms and rules over one structure into its [`Store`].
/// Its state is private; callers use its methods.
pub struct Grounder<'a> {
    program: &'a Program,
    structure: &'a Structure,
    store: Store,
    domains: Domains<'a>,
    /// Which symbols are left to the solver, and what grounding learnt about their atoms.
    status: SymbolStatus,
    /// What has been grounded already, by node id and the values of its variables.
    memo: Memos,
    /// Lookups of the structure's tables.
    known: KnownTables,
    /// Variable bindings by variable id.
    env: Vec<Option<Value>>,
    /// The symbols of the definition whose rules are being grounded (empty outside rules).
    defining: Vec<Symbol>,
    /// An atom's tuple while it is read (reused, so that most atoms allocate nothing).
    tuple: Vec<Value>,
    /// The arguments of an application while its memoised cases are looked up (reused).
    arguments: Vec<Value>,
    /// The values of a node's variables while its memo is looked up (reused).
    memo_values: Vec<Option<Value>>,
    /// The sorted possible heads that rules were last ground at, with the atom of each head
    /// made so far (`Gf::TRUE` for none yet): the rules of one head symbol (eight flips of a
    /// state) look each head up once, not once per rule.
    head_atoms: Option<(Rc<[Value]>, Vec<Gf>)>,
    /// The size, time and procedure limits of grounding.
    growth: Growth,
    /// The definitions evaluated on demand (see [`inlined`]).
    inlining: Inlining,
    /// The values a constant with an infinite value type can take, when a sentence fixes it
    /// (`N = MAX[:Player].`, see [`Grounder::bound_constants`]).
    constants: HashMap<FuncId, Rc<[Value]>>,
    /// The values one application `f(args)` of such a function can take, when a sentence
    /// `! x y : f(x, y) = t` fixes each (see [`Grounder::bound_constants`]): those of `t` for
    /// these arguments, often fewer than the union in `constants`.
    applications: HashMap<(FuncId, Vec<Value>), Rc<[Value]>>,
    /// The functions every application of which a sentence bounds (see
    /// [`Grounder::bound_applications_by_atoms`]): their possible graphs and preimages.
    bounded: HashMap<FuncId, value_bounds::Bounded>,
    /// The values tried for a function onto `int` or `float` that nothing bounds (FO(·)
    /// `model_expand`, see [`Grounder::set_value_window`]); `None`: such a function stops
    /// grounding with a message that names it.
    window: Option<Rc<[Value]>>,
    /// The functions that took their values from `window`, in the order grounding met them.
    windowed: Vec<FuncId>,
    /// The functions searched as numbers, their applications and the comparisons over them
    /// (see [`integers`]).
    integers: Integers,
    /// The thresholds of sums kept whole (see [`thresholds`]).
    thresholds: Vec<WholeThreshold>,
    /// Whether a large threshold may be kept whole: set while a sentence is grounded.
    pub whole_thresholds_allowed: bool,
    /// Whether the formula being ground holds (`Some(true)`) or fails (`Some(false)`) in every
    /// model, as far as the connectives above it tell: a sentence is asserted, a negation
    /// flips, an equivalence or an aggregate's condition tells nothing (`None`). It chooses
    /// between equivalent forms of an atom over several functions' applications (see
    /// [`Grounder::asserted_atom`]).
    pub polarity: Option<bool>,
}

/// Which symbols are left to the solver, and what grounding learnt about their atoms.
#[derive(Default)]
struct SymbolStatus {
    /// Symbols that are treated as unknown even if the structure interprets them (the symbols
    /// of definitions that are encoded; their structure values are added as constraints).
    forced_unknown: HashSet<Symbol>,
    /// Defined symbols whose definition has been encoded: their atoms without a rule are false.
    complete: HashSet<Symbol>,
    /// Atoms that head at least one ground rule of an encoded definition.
    heads: AtomSet,
    /// For the symbols of a definition being grounded: the tuples that can be true (see
    /// [`datalog::possibly_true`]); the others are false. Replaced by `heads` once encoded.
    possible: HashMap<Symbol, TupleSet>,
    /// How many tuples the joint pass ([`joint`]) allowed each symbol it bounded: a
    /// definition's own pass reads the same when its inputs still have these counts, and is
    /// then skipped.
    joint_sizes: HashMap<Symbol, usize>,
    /// Open predicates whose tuples outside `possible` are assumed false rather than ground
    /// ([`delayed`]).
    delayed: HashSet<Symbol>,
    /// Atoms whose value a grounded sentence already forces (top-level unit literals); later
    /// grounding treats them as known.
    derived: AtomValues,
}

/// A set of atoms: membership by position, and the members in the order they came.
#[derive(Default)]
struct AtomSet {
    members: Vec<AtomId>,
    member: Vec<bool>,
}

impl AtomSet {
    fn insert(&mut self, a: AtomId) {
        let k = a as usize;
        if self.member.len() <= k {
            self.member.resize(k + 1, false);
        }
        if !self.member[k] {
            self.member[k] = true;
            self.members.push(a);
        }
    }

    fn contains(&self, a: AtomId) -> bool {
        self.member.get(a as usize).copied().unwrap_or(false)
    }

    fn iter(&self) -> impl Iterator<Item = &AtomId> {
        self.members.iter()
    }
}

/// A truth value for some atoms, by position.
#[derive(Default)]
struct AtomValues {
    /// 0: none, 1: false, 2: true.
    values: Vec<u8>,
}

impl AtomValues {
    fn insert(&mut self, a: AtomId, b: bool) {
        let k = a as usize;
        if self.values.len() <= k {
            self.values.resize(k + 1, 0);
        }
        self.values[k] = 1 + u8::from(b);
    }

    fn get(&self, a: AtomId) -> Option<bool> {
        match self.values.get(a as usize) {
            Some(1) => Some(false),
            Some(2) => Some(true),
            _ => None,
        }
    }
}

/// What has been grounded already.
#[derive(Default)]
struct Memos {
    /// Ground results of quantified subformulas, by (formula id, values of its variables).
    formulas: SliceMap<NodeId, Option<Value>, Gf>,
    /// Ground function applications without variables, by term id (`None` for an application
    /// that has variables).
    closed_terms: HashMap<NodeId, Option<GTerm>>,
    /// Whether an aggregate (by term id) reads a symbol of `defining`.
    reads_defining: HashMap<NodeId, bool>,
    /// Ground aggregates, by memo key and cap.
    aggregates: HashMap<(MemoKey, Option<i64>), GTerm>,
    /// `aggregate >= threshold` of non-negative sums and counts, by memo key and threshold
    /// (`None`: a value was negative or not an integer).
    thresholds: HashMap<(MemoKey, i64), Option<Gf>>,
    /// The thresholds `count >= 2` of a few elements built as the disjunction of their pairs
    /// (see `at_least`).
    pairwise: rustc_hash::FxHashSet<Gf>,
    /// The cases of a function applied to known arguments, inside atoms of two-valued tables
    /// (see `ground_pred`); emptied whenever what grounding knows about atoms changes.
    applications: SliceMap<FuncId, Value, Cases>,
    /// Variables of each memoised node (by id).
    vars: HashMap<NodeId, Rc<[u32]>>,
}

/// Lookups of the structure's tables, built on first use.
#[derive(Default)]
struct KnownTables {
    /// Known function values (from two-valued tables and `ct` graph tuples).
    funcs: HashMap<FuncId, Rc<HashMap<Tuple, Value>>>,
    /// Indexes of two-valued predicate tables: (predicate, position, positions of the known
    /// arguments) to (known argument values -> values at the position).
    indexes: TableIndexes,
}

/// The limits of grounding.
struct Growth {
    /// The most nodes the store may have.
    max_size: usize,
    /// The run's limits, with the inference's own deadline (`stdoptions.timeout`).
    until: Until,
    /// Bindings made so far; the limits are checked every few thousand.
    steps: u64,
    /// The first error of a procedure that interprets a symbol lazily (reported by
    /// [`Grounder::check_growth`], since the lookups that call it cannot fail).
    procedure_error: std::cell::RefCell<Option<Error>>,
}

/// The definitions evaluated on demand.
#[derive(Default)]
struct Inlining {
    /// By defined symbol.
    defs: HashMap<Symbol, Rc<ir::Definition>>,
    /// The ground formula of each inlined atom expanded so far.
    memo: HashMap<(Symbol, Tuple), Gf>,
    /// The inlined symbols whose atoms are being expanded (innermost last).
    expanding: Vec<Symbol>,
    /// The values of each application of an inlined function expanded so far, with their
    /// conditions.
    applied: HashMap<(FuncId, Tuple), Vec<(Gf, Value)>>,
    /// Formulas the theory owes for what was expanded: each expanded application of an
    /// inlined function takes exactly one of its values (taken by the session, which asserts
    /// them).
    obligations: Vec<Gf>,
}

impl<'a> Grounder<'a> {
    /// A grounder of `program` over `structure` that stops at `max_size` nodes or when the
    /// run's limits `until` say so.
    pub fn new(
        program: &'a Program,
        structure: &'a Structure,
        max_size: usize,
        until: Until,
    ) -> Grounder<'a> {
        Grounder {
            program,
            structure,
            store: Store::new(),
            domains: Domains::new(program, structure),
            status: SymbolStatus::default(),
            memo: Memos::default(),
            known: KnownTables::default(),
            env: Vec::new(),
            defining: Vec::new(),
            tuple: Vec::new(),
            arguments: Vec::new(),
            memo_values: Vec::new(),
            head_atoms: None,
            growth: Growth {
                max_size,
                until,
                steps: 0,
                procedure_error: std::cell::RefCell::new(None),
            },
            inlining: Inlining::default(),
            constants: HashMap::default(),
            applications: HashMap::default(),
            bounded: HashMap::default(),
            window: None,
            windowed: Vec::new(),
            integers: Integers::default(),
            thresholds: Vec::new(),
            whole_thresholds_allowed: false,
            polarity: None,
        }
    }

    /// Lets every function onto `int` or `float` that neither the structure nor the sentences
    /// bound take its values among `values`. Every model found is then a model, but those
    /// that need other values are not searched: for IDP-Z3's `model_expand`, which leaves such
    /// values to Z3 and lists some models, never for an inference that must see them all.
    pub fn set_value_window(&mut self, values: &[i64]) {
        self.window = Some(values.iter().map(|&v| Value::Int(v)).collect());
    }

    /// The functions that took their values from the window of [`Grounder::set_value_window`]
    /// since the last call (taken: the caller names them).
    pub fn take_windowed(&mut self) -> Vec<FuncId> {
        std::mem::take(&mut self.windowed)
    }

    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// The structure grounding reads.
    pub fn structure(&self) -> &'a Structure {
        self.structure
    }

    /// The ground formulas made so far.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store, to build formulas in (loop formulas, objectives, blocking clauses).
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    pub fn domains(&self) -> &Domains<'a> {
        &self.domains
    }

    /// Lowers the most nodes the store may have (a relaxation that is given up beyond it);
    /// the bounds already computed were computed under the limit before.
    pub fn limit_ground_size(&mut self, nodes: usize) {
        self.growth.max_size = self.growth.max_size.min(nodes);
    }

    /// The run's limits, with the inference's own deadline (`stdoptions.timeout`).
    pub fn until(&self) -> &Until {
        &self.growth.until
    }

    /// Whether the solver decides `s` although the structure may interpret it (a symbol of an
    /// encoded definition).
    pub fn forces(&self, s: Symbol) -> bool {
        self.status.forced_unknown.contains(&s)
    }

    /// Records that the completion of `gd` is part of the theory: its heads are the only atoms
    /// of its symbols that can be true, and later grounding may rely on that.
    pub fn mark_encoded(&mut self, gd: &GroundDefinition) {
        for head in gd.rules.keys() {
            if let Some(a) = self.store.as_atom(*head) {
                self.status.heads.insert(a);
            }
        }
        self.status.complete.extend(gd.defined.iter().copied());
        // Also clears the memoised applications, whose cases may read these symbols.
        self.forget_possible(&gd.defined);
    }

    /// Drops what the possibly-true pass found for `symbols`, and what was built from it.
    fn forget_possible(&mut self, symbols: &[Symbol]) {
        self.memo.applications.clear();
        self.status.possible.retain(|s, _| !symbols.contains(s));
        self.known.indexes.retain(|(s, ..), _| !symbols.contains(s));
    }

    /// Whether atom `a` heads a rule of an encoded definition.
    pub fn is_head(&self, a: AtomId) -> bool {
        self.status.heads.contains(a)
    }

    /// Whether `s` is defined by a definition that is encoded (its heads are all its atoms
    /// that can be true).
    pub fn is_complete(&self, s: Symbol) -> bool {
        self.status.complete.contains(&s)
    }

    /// The tuples of `s` that head rules of encoded definitions, in the order they were grounded.
    pub fn head_tuples(&self, s: Symbol) -> Vec<Tuple> {
        self.status
            .heads
            .iter()
            .map(|&a| self.store.atom_key(a))
            .filter(|(x, _)| *x == s)
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// How many atoms of `s` head a rule of an encoded definition.
    pub(super) fn head_count(&self, s: Symbol) -> usize {
        self.status
            .heads
            .iter()
            .filter(|&&a| self.store.atom_key(a).0 == s)
            .count()
    }

    /// The finite domain of a sort, or an error that names it.
    pub fn domain(&mut self, s: SortId) -> IdpResult<Rc<[Value]>> {
        match self.domains.get(s) {
            Some(d) => Ok(d),
            None => Err(self.infinite_sort_error(s)),
        }
    }

    /// The finite range of function `f`'s result type, or an error that names `f` when the
    /// type is infinite.
    pub fn result_domain(&mut self, f: FuncId) -> IdpResult<Rc<[Value]>> {
        if self.is_integer_variable(f) {
            return Err(Error::internal(format!(
                "internal: the values of {}, a function searched as a number, were listed",
                self.program.func(f).name
            )));
        }
        if let Some(values) = self.constants.get(&f) {
            return Ok(values.clone());
        }
        let result = self.program.func(f).result;
        match self.domains.get(result) {
            Some(d) => Ok(d),
            None => match (&self.window, self.program.sort(result).builtin) {
                (Some(window), Some(BuiltinSort::Int | BuiltinSort::Float)) => {
                    let window = window.clone();
                    if !self.windowed.contains(&f) {
                        self.windowed.push(f);
                    }
                    Ok(window)
                }
                _ => Err(self.infinite_result_error(f)),
            },
        }
    }

    /// An infinite result type of function `f`: names the function and how to bound it.
    fn infinite_result_error(&self, f: FuncId) -> Error {
        let func = self.program.func(f);
        let sort = self.program.sort(func.result);
        if !(sort.builtin.is_some() || sort.constructed) {
            return self.infinite_sort_error(func.result);
        }
        let args: Vec<&str> = func
            .args
            .iter()
            .map(|&a| self.program.sort(a).name.as_str())
            .collect();
        let decl = match args.as_slice() {
            [] => format!("{} : {}", func.name, sort.name),
            _ => format!("{}({}) : {}", func.name, args.join(","), sort.name),
        };
        let kind = infinite_domain(sort);
        Error::new(
            kind,
            format!(
                "Infinite grounding: the function {decl} has the infinite result type '{}', so \
                 its possible values cannot be grounded. Give it a finite result type (e.g. \
                 `type Val isa {}` with `Val = {{0..10}}` in the structure, and {} : Val), or \
                 give its values in the structure.",
                sort.name,
                sort.name,
                decl.rsplit_once(" : ")
                    .map_or(decl.as_str(), |(head, _)| head)
            ),
        )
    }

    fn infinite_sort_error(&self, s: SortId) -> Error {
        let sort = self.program.sort(s);
        if let Some(range) = self.structure.huge_ranges.get(&s) {
            let kind = ErrorKind::HugeRange {
                sort: sort.name.clone(),
            };
            return Error::new(
                kind,
                format!(
                "The type '{}' is interpreted by {}..{} in structure '{}': {} elements, too many \
                 to ground. idp replaces such a range by a few stand-in elements only when an \
                 output vocabulary without symbols over '{}' is given and the theory uses it only \
                 through unary predicates, constants and `=`; otherwise give it a smaller range.",
                sort.name,
                range.lo,
                range.hi,
                self.structure.name,
                range.range_len(),
                sort.name
            ),
            );
        }
        if sort.builtin.is_some() || sort.constructed {
            let kind = infinite_domain(sort);
            Error::new(kind, format!(
                "Infinite grounding: the type '{}' has infinitely many elements, so a quantifier or \
                 symbol over it cannot be grounded. Quantify over a finite subtype instead \
                 (e.g. `type T isa int` with `T = {{0..10}}` in the structure).",
                sort.name
            ))
        } else {
            let kind = ErrorKind::Uninterpreted {
                name: sort.name.clone(),
            };
            Error::new(
                kind,
                format!(
                    "The type '{}' has no interpretation in structure '{}'; give it one, \
                 e.g. `{} = {{ ... }}`.",
                    sort.name, self.structure.name, sort.name
                ),
            )
        }
    }

    pub fn bind(&mut self, var: &ir::Var, v: Value) {
        let k = var.id as usize;
        if self.env.len() <= k {
            self.env.resize(k + 1, None);
        }
        self.env[k] = Some(v);
    }

    pub fn unbind(&mut self, var: &ir::Var) {
        if let Some(slot) = self.env.get_mut(var.id as usize) {
            *slot = None;
        }
    }

    pub fn lookup(&self, var: &ir::Var) -> Option<Value> {
        self.env.get(var.id as usize).copied().flatten()
    }

    /// The memo key of node `id` under the current bindings; `vars` lists its variables
    /// (computed once per node).
    pub fn memo_key(&mut self, id: NodeId, vars: impl FnOnce(&mut HashSet<u32>)) -> MemoKey {
        let ids = self.node_vars(id, vars);
        (id, self.values_of(&ids).collect())
    }

    /// The current values of the variables with these ids (`None` for one that is unbound).
    pub fn values_of<'i>(&'i self, ids: &'i [u32]) -> impl Iterator<Item = Option<Value>> + 'i {
        ids.iter()
            .map(|&id| self.env.get(id as usize).copied().flatten())
    }

    /// The ids of the variables of node `id`, sorted; `vars` lists them (called once per node).
    pub fn node_vars(&mut self, id: NodeId, vars: impl FnOnce(&mut HashSet<u32>)) -> Rc<[u32]> {
        self.memo
            .vars
            .entry(id)
            .or_insert_with(|| {
                let mut set = HashSet::default();
                vars(&mut set);
                let mut v: Vec<u32> = set.into_iter().collect();
                v.sort_unstable();
                Rc::from(v)
            })
            .clone()
    }

    /// Whether the true tuples of `s` are all known: a two-valued table, or a defined symbol
    /// whose definition is grounded (its true tuples are among the rule heads).
    pub fn indexable(&self, s: Symbol) -> bool {
        if self.status.forced_unknown.contains(&s) {
            return self.status.complete.contains(&s) || self.status.possible.contains_key(&s);
        }
        matches!(self.structure.table(s), Some(Table::TwoValued(_)))
    }

    /// The index of the possibly true tuples of `s` from the `fixed` positions (ascending) to
    /// `position`: its keys list the values at those positions in that order.
    pub fn table_index(&mut self, s: Symbol, position: usize, fixed: &[usize]) -> Rc<TableIndex> {
        debug_assert!(fixed.windows(2).all(|w| w[0] < w[1]), "ascending positions");
        let positions = fixed.iter().fold(0u64, |set, &k| set | position_bit(k));
        self.table_index_at(s, position, positions)
    }

    /// [`Self::table_index`] with the fixed positions as a bit set (bit k for position k).
    pub fn table_index_at(&mut self, s: Symbol, position: usize, positions: u64) -> Rc<TableIndex> {
        let key = (s, position, positions);
        if let Some(ix) = self.known.indexes.get(&key) {
            return ix.clone();
        }
        let fixed: Vec<usize> = (0..64).filter(|&k| positions & 1 << k != 0).collect();
        let mut groups: HashMap<Vec<Value>, Vec<Value>> = HashMap::default();
        let mut group_key: Vec<Value> = Vec::with_capacity(fixed.len());
        let mut add = |t: &[Value]| {
            group_key.clear();
            group_key.extend(fixed.iter().map(|&i| t[i]));
            match groups.get_mut(group_key.as_slice()) {
                Some(group) => group.push(t[position]),
                None => {
                    groups.insert(group_key.clone(), vec![t[position]]);
                }
            }
        };
        if let Some(possible) = self.status.possible.get(&s) {
            possible.iter().for_each(&mut add);
        } else if self.status.forced_unknown.contains(&s) {
            for &a in self.status.heads.iter() {
                let (x, t) = self.store.atom_key(a);
                if *x == s {
                    add(t);
                }
            }
        } else if let Some(table) = self.structure.table(s) {
            table.ct().iter().for_each(|t| add(t));
        }
        let index: TableIndex = groups
            .into_iter()
            .map(|(k, mut v)| {
                v.sort();
                v.dedup();
                (k, Rc::from(v))
            })
            .collect();
        let index = Rc::new(index);
        self.known.indexes.insert(key, index.clone());
        index
    }

    /// The cached table indexes, to hand to a later grounder over a structure that differs
    /// only in some symbols (see [`Self::adopt_indexes`]).
    pub fn take_indexes(&mut self) -> TableIndexes {
        std::mem::take(&mut self.known.indexes)
    }

    /// Reuses the table indexes of an earlier grounder, except those of `changed` symbols.
    pub fn adopt_indexes(&mut self, mut indexes: TableIndexes, changed: &[Symbol]) {
        indexes.retain(|(s, _, _), _| !changed.contains(s));
        self.known.indexes = indexes;
    }

    /// Counts one variable binding and, every 4096 of them, checks the size, time and memory
    /// limits (and Ctrl-C), so that a runaway quantifier stops while it grows.
    /// How many bindings of quantified variables grounding has tried so far (for `--stats`).
    pub fn bindings_tried(&self) -> u64 {
        self.growth.steps
    }

    pub fn step(&mut self) -> IdpResult<()> {
        self.growth.steps += 1;
        if !self.growth.steps.is_multiple_of(4096) {
            return Ok(());
        }
        self.check_growth()?;
        self.growth.until.run().meter().set_nodes(self.store.len());
        self.growth.until.check("grounding")
    }

    /// The grounding size limit, and the first failure of a procedure that interprets a
    /// symbol lazily (both can arise deep inside grounding, where they are only noted).
    pub fn check_growth(&self) -> IdpResult<()> {
        if let Some(error) = self.growth.procedure_error.borrow_mut().take() {
            return Err(error);
        }
        if self.store.len() > self.growth.max_size {
            return Err(Error::limit(
                Limit::GroundSize,
                format!(
                "The grounding grew past {} nodes (the grounding size limit); make the domains \
                 smaller, bound the quantifiers, or raise the limit with --max-ground-size.",
                self.growth.max_size
            ),
            ));
        }
        Ok(())
    }

    /// The error for `count` more atoms of `symbol` when they would not fit under the
    /// grounding size limit (`None` when they fit): checked before their tuples are made.
    pub fn too_many_tuples(&self, symbol: &str, count: Option<usize>) -> Option<Error> {
        let room = self.growth.max_size.saturating_sub(self.store.len());
        if count.is_some_and(|n| n <= room) {
            return None;
        }
        let count = count.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
        Some(Error::limit(
            Limit::GroundSize,
            format!(
                "Every model gives every atom of {symbol} a value, and it has {count} of them: \
                 past the grounding size limit of {} nodes. Give {symbol} in the structure, \
                 constrain it in the theory, leave it out of the output vocabulary, ask for \
                 one model, or raise the limit with --max-ground-size.",
                self.growth.max_size
            ),
        ))
    }

    /// Whether a possibly-true pass bounds `s` (some of its atoms are false without a rule or
    /// a sentence saying so).
    pub fn is_bounded(&self, s: Symbol) -> bool {
        self.status.possible.contains_key(&s)
    }

    /// What grounding decided about `s(t)` on its own, that the search does not: `false`
    /// where a bound rules it out or a grounded definition has no rule for it, its value where
    /// a unit sentence forced it or the structure knows it. `None` when the search decides it
    /// (or nothing does), and for a symbol whose other tuples lazy grounding only assumes
    /// false.
    pub fn decided(&self, s: Symbol, t: &[Value]) -> Option<bool> {
        if self.status.delayed.contains(&s) {
            return None;
        }
        let complete = self.status.complete.contains(&s);
        if let Some(a) = (self.store.find_atom(s, t)).and_then(|g| self.store.as_atom(g)) {
            if complete && !self.status.heads.contains(a) {
                return Some(false);
            }
            return self.status.derived.get(a);
        }
        match self.truth(s, t) {
            TruthValue::Unknown => complete.then_some(false),
            known => Some(known == TruthValue::True),
        }
    }

    /// The tuples of `s` that can be true, when a possibly-true pass bounds it.
    pub fn possible_tuples(&self, s: Symbol) -> Option<Vec<Tuple>> {
        let possible = self.status.possible.get(&s)?;
        Some(possible.iter().map(<[Value]>::to_vec).collect())
    }

    /// Whether `s(t)` can be true as far as the possibly-true passes know: that of the
    /// definitions being grounded, and the bounds that sentences give open predicates
    /// (always, for other symbols).
    pub fn is_possible(&self, s: Symbol, t: &[Value]) -> bool {
        // Most of the time there is no such pass: the map is not even hashed into then.
        self.status.possible.is_empty()
            || self.status.possible.get(&s).is_none_or(|p| p.contains(t))
    }

    pub fn is_forced(&self, s: Symbol, t: &[Value]) -> bool {
        let _ = t;
        self.is_forced_whole(s)
    }

    /// Whether every tuple of `s` is decided anew whatever the structure says (`forced_unknown`).
    pub fn is_forced_whole(&self, s: Symbol) -> bool {
        self.status.forced_unknown.contains(&s)
    }

    /// What the structure says about a symbol's tuple, honouring `forced_unknown`.
    pub fn truth(&self, s: Symbol, t: &[Value]) -> TruthValue {
        if self.is_forced(s, t) {
            if !self.is_possible(s, t) {
                return TruthValue::False;
            }
            return TruthValue::Unknown;
        }
        // Most structures have no lazy procedure: the map is not even hashed into then.
        if let Some(procedure) = self.lazy_procedure(s) {
            return match self.ask(procedure, t) {
                Some(Answer::Holds(true)) => TruthValue::True,
                _ => TruthValue::False,
            };
        }
        match self.structure.truth(s, t) {
            // An open atom that a sentence rules out (see `joint::bound_definitions_jointly`).
            TruthValue::Unknown if !self.is_possible(s, t) => TruthValue::False,
            known => known,
        }
    }

    /// The procedure that interprets `s` lazily, if any.
    fn lazy_procedure(&self, s: Symbol) -> Option<&'a LazyProcedure> {
        let lazy = &self.structure.lazy;
        if lazy.is_empty() {
            None
        } else {
            lazy.get(&s)
        }
    }

    /// A lazily interpreted symbol's answer for `t`; an error is kept for
    /// [`Grounder::check_growth`] (the first one).
    fn ask(&self, procedure: &LazyProcedure, t: &[Value]) -> Option<Answer> {
        match procedure.answer(t) {
            Ok(a) => Some(a),
            Err(error) => {
                self.growth
                    .procedure_error
                    .borrow_mut()
                    .get_or_insert(error);
                None
            }
        }
    }

    /// Whether every element of `t` lies in the corresponding sort of `sorts`.
    pub fn well_sorted(&mut self, sorts: &[SortId], t: &[Value]) -> bool {
        sorts
            .iter()
            .zip(t)
            .all(|(s, v)| self.domains.contains(*s, *v))
    }

    /// The ground formula for an atom `s(t)`: a constant when the structure knows it, `false`
    /// when an element lies outside the symbol's sorts.
    pub fn atom(&mut self, s: Symbol, t: &[Value]) -> Gf {
        let program = self.program;
        let sorts = match s {
            Symbol::Pred(p) => &program.pred(p).args,
            Symbol::Func(f) => &program.func(f).args,
        };
        if !self.well_sorted(sorts, t) {
            return Gf::FALSE;
        }
        match self.truth(s, t) {
            TruthValue::True => Gf::TRUE,
            TruthValue::False => Gf::FALSE,
            TruthValue::Unknown => self.unknown_atom(s, t),
        }
    }

    /// The atom `s(t)` of a well-sorted tuple that the structure leaves unknown: false when
    /// `s`'s definition is grounded and has no rule for it, a constant when a unit sentence
    /// decided it.
    pub fn unknown_atom(&mut self, s: Symbol, t: &[Value]) -> Gf {
        if self.status.complete.contains(&s) {
            let head = self.store.find_atom(s, t).filter(|&g| {
                self.store
                    .as_atom(g)
                    .is_some_and(|a| self.status.heads.contains(a))
            });
            return head.unwrap_or(Gf::FALSE);
        }
        let g = self.store.atom(s, t);
        match self
            .store
            .as_atom(g)
            .and_then(|a| self.status.derived.get(a))
        {
            Some(b) => Gf::from_bool(b),
            None => g,
        }
    }

    /// Records the unit literals of a grounded sentence (which will be asserted) so that later
    /// grounding can simplify with them. Atoms of defined symbols are never recorded: their
    /// rule bodies must keep them for the well-foundedness checks.
    pub fn learn_units(&mut self, g: Gf) {
        let literals: Vec<Gf> = match self.store.node(g) {
            Node::And(children) if !g.is_negated() => children.to_vec(),
            _ => vec![g],
        };
        for l in literals {
            let Some(a) = self.store.as_atom(if l.is_negated() { -l } else { l }) else {
                continue;
            };
            if !self
                .status
                .forced_unknown
                .contains(&self.store.atom_key(a).0)
            {
                self.status.derived.insert(a, !l.is_negated());
                // The memoised cases of applications may read the atom.
                self.memo.applications.clear();
            }
        }
    }

    /// The known value of `f(args)`, if the structure determines it.
    pub fn known_func_value(&mut self, f: FuncId, args: &[Value]) -> Option<Value> {
        if self.is_forced(Symbol::Func(f), args) {
            return None;
        }
        if let Some(procedure) = self.lazy_procedure(Symbol::Func(f)) {
            return match self.ask(procedure, args) {
                Some(Answer::Value(v)) => Some(v),
                _ => None,
            };
        }
        let table = match self.known.funcs.get(&f) {
            Some(t) => t.clone(),
            None => {
                let t = Rc::new(self.build_known_func(f));
                self.known.funcs.insert(f, t.clone());
                t
            }
        };
        table.get(args).copied()
    }

    fn build_known_func(&self, f: FuncId) -> HashMap<Tuple, Value> {
        let mut m = HashMap::default();
        if let Some(table) = self.structure.table(Symbol::Func(f)) {
            for t in table.ct() {
                if let Some((v, args)) = t.split_last() {
                    m.insert(args.to_vec(), *v);
                }
            }
        }
        m
    }

    /// Whether the structure fixes the function completely (a two-valued table).
    pub fn func_two_valued(&self, f: FuncId) -> bool {
        !self.status.forced_unknown.contains(&Symbol::Func(f))
            && (matches!(
                self.structure.table(Symbol::Func(f)),
                Some(Table::TwoValued(_))
            ) || self.structure.lazy.contains_key(&Symbol::Func(f)))
    }
}
