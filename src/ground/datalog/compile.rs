//! From a definition to Datalog rules: every rule body is put in disjunctive normal form over
//! literals (atoms, comparisons, type tests and negated sub-queries), every term becomes an
//! expression over variable slots, and every symbol the rules read becomes a relation of codes.
//!
//! Positive existential quantifiers are lifted into the rule (their variables are bound by the
//! join like the head's); a negated formula that is not a literal becomes a sub-query that is
//! asked once its free variables are bound (`~(? n: H(x, n))`), and a universal quantifier is
//! the negation of an existential one. Whatever has no counterpart here (a symbol the structure
//! does not fix, a sort without finite domain to enumerate, too many disjuncts) makes the
//! compilation give up with `None`, and the caller evaluates the definition the general way.
//!
//! The same compiler also makes a definition's *possibly-true relaxation* (see [`Approx`]):
//! a positive program whose least fixpoint contains every atom that is true in some model.
//! There a literal that cannot be read precisely is read as true, a negated literal of a
//! symbol that is not known (defined here, open, partly known) as true, a positive atom of an
//! open symbol as "not certainly false", and an application of a function that is not known
//! (`Adj(At(t), d, p)`) is unnested into an atom of the function's possible graph
//! (`At(t) = w & Adj(w, d, p)`).

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use std::rc::Rc;

use super::codes::{is_direct, Code, Codes, POS_INF};
use super::relation::Relation;
use crate::ground::terms::builtin_extreme;
use crate::ids::{FuncId, SortId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, SetExpr, Term, TermKind, Var};
use crate::sema::{Domains, Program};
use crate::structure::{Structure, Table, Tuple, Value};
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// The most conjunctions a body (or sub-query) may expand into.
const MAX_DISJUNCTS: usize = 64;

/// The longest tuple the engine handles (head rows and lookups are built on the stack).
pub const MAX_ARITY: usize = 32;

/// A term over variable slots.
#[derive(Clone, Debug)]
pub enum Expr {
    Var(usize),
    Const(Code),
    /// A term without a value (`MIN[:T]` of an empty type).
    Undef,
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Abs(Box<Expr>),
    /// `f(args)` for a function whose graph is relation `rel`, looked up on index `index` (its
    /// argument columns).
    Apply {
        rel: usize,
        index: usize,
        args: Vec<Expr>,
    },
    /// A constructor application; each argument must belong to its sort (member tests).
    Cons {
        func: FuncId,
        args: Vec<Expr>,
        members: Vec<usize>,
    },
    /// `SUCC`/`PRED` in the sorted domain of a sort.
    Step {
        domain: Rc<[Value]>,
        up: bool,
        arg: Box<Expr>,
    },
    Agg(Box<Aggregate>),
}

/// An aggregate: one sub-query per set, whose distinct bindings of the set's variables are the
/// elements.
#[derive(Clone, Debug)]
pub struct Aggregate {
    pub kind: AggKind,
    pub sets: Vec<AggSet>,
}

#[derive(Clone, Debug)]
pub struct AggSet {
    pub query: Query,
    pub vars: Vec<usize>,
    pub term: Expr,
}

/// A literal of a conjunction.
#[derive(Clone, Debug)]
pub enum Lit {
    /// `R(args)` or its negation.
    Atom {
        rel: usize,
        args: Vec<Expr>,
        positive: bool,
    },
    /// A type predicate `T(arg)` or its negation.
    Member {
        member: usize,
        arg: Expr,
        positive: bool,
    },
    /// `a op b` for `op` one of `=`, `<`, `>`, negated when `negated`.
    Cmp {
        op: CmpOp,
        negated: bool,
        a: Expr,
        b: Expr,
    },
    /// True when the sub-query has no answer under the current bindings.
    NotExists(Box<Query>),
}

/// The variables a conjunction binds (beyond those bound outside it) and its literals.
#[derive(Clone, Debug, Default)]
pub struct Conj {
    pub vars: Vec<usize>,
    pub lits: Vec<Lit>,
}

/// A disjunction of conjunctions, with their join plans once planned.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub conjs: Vec<Conj>,
    pub plans: Vec<Plan>,
}

/// Which rows of a relation a literal reads (see [`super::exec`] for the bounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// Every row derived before the current round.
    All,
    /// The rows derived before the previous round.
    Old,
    /// The rows derived in the previous round.
    Delta,
}

#[derive(Clone, Debug)]
pub enum Step {
    /// The rows of `rel` in `range` whose `key` columns have the key's values (through index
    /// `index`; all rows when there is no key), each read as `reads` says.
    Scan {
        rel: usize,
        index: Option<usize>,
        key: Vec<Expr>,
        range: Range,
        reads: RowReads,
    },
    /// A literal whose variables are bound.
    Check { lit: Lit, range: Range },
    /// `slot = expr`, with the slot's member test.
    Assign {
        slot: usize,
        expr: Expr,
        member: Option<usize>,
    },
    /// Every value of a sort.
    Enumerate { slot: usize, values: Rc<[Code]> },
}

/// How a scanned row binds slots: `binds` (column, slot, member test when the column's sort
/// is not the slot's), columns that must have equal values (`same`), and columns holding a
/// constructor application whose arguments the row binds (`do(t, jump(a, b))` scanned with a
/// and b unbound), read after `binds`.
#[derive(Clone, Debug, Default)]
pub struct RowReads {
    pub binds: Vec<(usize, usize, Option<usize>)>,
    pub same: Vec<(usize, usize)>,
    pub unpack: Vec<Unpack>,
}

/// A column whose value must be `func(parts)`: each part binds, repeats or tests one argument.
#[derive(Clone, Debug)]
pub struct Unpack {
    pub col: usize,
    pub func: FuncId,
    pub parts: Vec<Part>,
}

/// One argument of an unpacked constructor application.
#[derive(Clone, Debug)]
pub enum Part {
    /// Binds the slot (with its member test).
    Bind { slot: usize, member: usize },
    /// Must equal the slot bound earlier in the same row.
    Same(usize),
    /// Must equal the value of an expression bound before the scan.
    Bound(Expr),
}

/// The steps of one conjunction.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
}

/// Whether code `c` belongs to member test `m`.
pub fn member_contains(
    members: &[Member],
    codes: &Codes,
    domains: &Domains,
    m: usize,
    c: Code,
) -> bool {
    if c >= POS_INF {
        return false;
    }
    match &members[m] {
        Member::Range(lo, hi) => {
            if is_direct(c) {
                let i = i64::from(c);
                *lo <= i && i <= *hi
            } else {
                matches!(codes.int(c), Some(i) if *lo <= i && i <= *hi)
            }
        }
        Member::Codes(set) => set.contains(&c),
        Member::Generic(sort) => domains.contains(*sort, codes.decode(c)),
    }
}

/// One Datalog rule: a conjunction of a definition rule's body in normal form.
#[derive(Clone, Debug)]
pub struct CRule {
    pub head: usize,
    pub head_args: Vec<Expr>,
    pub body: Conj,
    /// The rule of the definition it comes from.
    pub source: usize,
}

/// What a relation stands for.
#[derive(Clone, Debug)]
pub struct RelInfo {
    pub symbol: Symbol,
    /// The sorts of the columns (a function's result last).
    pub sorts: Vec<SortId>,
    /// Defined by the definition being evaluated (else: data from the structure).
    pub defined: bool,
}

/// Membership of a sort, on codes.
#[derive(Clone, Debug)]
pub enum Member {
    /// The integers lo..=hi.
    Range(i64, i64),
    Codes(HashSet<Code>),
    /// A sort without a listed domain (a built-in or huge one): asked of [`Domains`].
    Generic(SortId),
}

/// What the possibly-true relaxation knows of a symbol the definition does not define.
pub enum Approx {
    /// The structure's two-valued table, read as it is.
    Exact,
    /// Only these tuples can be true (a symbol of a definition grounded before: its heads).
    Possible(Vec<Tuple>),
    /// The certainly true and the certainly false tuples; the others may be either.
    Partial { ct: Vec<Tuple>, cf: Vec<Tuple> },
    /// Any tuple may be true or false (an open symbol).
    Anything,
}

/// How the compiler reads a symbol: its relation, and what a row of it means.
#[derive(Clone, Copy)]
enum View {
    /// The exact relation (a two-valued table, or a defined symbol when compiling exactly).
    Exact(usize),
    /// A symbol of the definition, in the relaxation: positive atoms only.
    Defined(usize),
    /// The only tuples that can be true.
    Possible(usize),
    /// The certainly true and the certainly false tuples.
    Partial { ct: usize, cf: usize },
    /// Nothing is known.
    Anything,
}

/// A definition compiled to Datalog.
pub struct Compiled {
    pub rels: Vec<RelInfo>,
    pub relations: Vec<Relation>,
    pub members: Vec<Member>,
    pub rules: Vec<CRule>,
    pub codes: Codes,
    /// The member test of each variable slot's sort.
    pub slot_members: Vec<usize>,
    /// The sort of each variable slot.
    pub slot_sorts: Vec<SortId>,
    /// The number of variable slots.
    pub slots: usize,
    /// Per defined relation, the member tests of its columns' sorts (a head row outside them
    /// is no atom).
    pub head_members: Vec<Vec<usize>>,
}

struct Compiler<'a> {
    program: &'a Program,
    structure: &'a Structure,
    domains: &'a Domains<'a>,
    codes: Codes,
    rels: Vec<RelInfo>,
    relations: Vec<Relation>,
    rel_of: HashMap<Symbol, usize>,
    members: Vec<Member>,
    member_of: HashMap<SortId, usize>,
    /// Each variable's slot, by id and sort (the rules of definitions compiled together may
    /// reuse an id for variables of different sorts).
    slot_of: HashMap<(u32, SortId), usize>,
    slot_members: Vec<usize>,
    slot_sorts: Vec<SortId>,
    /// `None`: compile exactly. `Some`: the possibly-true relaxation, reading each symbol
    /// the definition does not define as this says.
    approx: Option<&'a dyn Fn(Symbol) -> Approx>,
    /// The relaxation's views of the symbols the callback was asked about.
    approx_views: HashMap<Symbol, View>,
    /// Above zero while the relaxation compiles something that must be exact (a negated
    /// sub-query, an aggregate's set, a head argument): only exact symbols may be read.
    strict: u32,
    /// In the relaxation: the applications unnested while compiling the current literal,
    /// each a new slot with the atom of the function's graph that binds it (none when
    /// nothing is known of the function: the slot ranges over its sort).
    unnested: Vec<(usize, Option<Lit>)>,
    /// In the relaxation: the slot each application `f(args)` of simple arguments was unnested
    /// into in the current rule, so that every occurrence of `At(t)` in a body reads one value
    /// (a total function has one in each model; the atom binding the slot is still added to
    /// each literal that reads it).
    unnested_slots: HashMap<(FuncId, Vec<SimpleArg>), usize>,
}

/// An argument that is a slot or a constant: applications over such arguments are equal
/// exactly when their arguments are.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SimpleArg {
    Slot(usize),
    Const(Code),
}

fn simple_args(args: &[Expr]) -> Option<Vec<SimpleArg>> {
    args.iter()
        .map(|a| match a {
            Expr::Var(k) => Some(SimpleArg::Slot(*k)),
            Expr::Const(c) => Some(SimpleArg::Const(*c)),
            _ => None,
        })
        .collect()
}

/// Compiles `def` over `structure`; `None` when some part has no Datalog counterpart. With
/// `approx`, compiles the definition's possibly-true relaxation instead (module documentation).
pub fn compile<'a>(
    program: &'a Program,
    def: &Definition,
    structure: &'a Structure,
    domains: &'a Domains<'a>,
    approx: Option<&'a dyn Fn(Symbol) -> Approx>,
) -> Option<Compiled> {
    let defined = def.defined();
    let mut c = Compiler {
        program,
        structure,
        domains,
        codes: Codes::default(),
        rels: Vec::new(),
        relations: Vec::new(),
        rel_of: HashMap::default(),
        members: Vec::new(),
        member_of: HashMap::default(),
        slot_of: HashMap::default(),
        slot_members: Vec::new(),
        slot_sorts: Vec::new(),
        approx,
        approx_views: HashMap::default(),
        strict: 0,
        unnested: Vec::new(),
        unnested_slots: HashMap::default(),
    };
    for s in &defined {
        let sorts = program.symbol_sorts(*s);
        if sorts.len() > MAX_ARITY {
            return None;
        }
        c.add_relation(*s, sorts, true);
    }
    let mut rules = Vec::new();
    for (source, rule) in def.rules.iter().enumerate() {
        c.unnested_slots.clear();
        for v in &rule.vars {
            c.declare(v)?;
        }
        let head = c.rel_of[&rule.head];
        let head_args = c.exactly(|c| {
            rule.head_args
                .iter()
                .map(|t| c.term(t))
                .collect::<Option<Vec<_>>>()
        })?;
        let vars: Vec<usize> = rule
            .vars
            .iter()
            .map(|v| c.slot_of[&(v.id, v.sort)])
            .collect();
        for mut body in c.dnf(&rule.body, true)? {
            for &v in vars.iter().rev() {
                if !body.vars.contains(&v) {
                    body.vars.insert(0, v);
                }
            }
            rules.push(CRule {
                head,
                head_args: head_args.clone(),
                body,
                source,
            });
        }
    }
    let slots = c.slot_members.len();
    let head_members = (0..c.rels.len())
        .map(|k| {
            if c.rels[k].defined {
                let sorts = c.rels[k].sorts.clone();
                sorts.into_iter().map(|s| c.member(s)).collect()
            } else {
                Vec::new()
            }
        })
        .collect();
    Some(Compiled {
        head_members,
        rels: c.rels,
        relations: c.relations,
        members: c.members,
        rules,
        codes: c.codes,
        slot_members: c.slot_members,
        slot_sorts: c.slot_sorts,
        slots,
    })
}

impl Compiler<'_> {
    fn add_relation(&mut self, s: Symbol, sorts: Vec<SortId>, defined: bool) -> usize {
        let k = self.new_relation(s, sorts, defined);
        self.rel_of.insert(s, k);
        k
    }

    /// A new relation for `s` (not registered as `s`'s relation).
    fn new_relation(&mut self, s: Symbol, sorts: Vec<SortId>, defined: bool) -> usize {
        let k = self.rels.len();
        self.relations.push(Relation::new(sorts.len()));
        self.rels.push(RelInfo {
            symbol: s,
            sorts,
            defined,
        });
        k
    }

    /// Adds the tuples to relation `k` as rows of codes.
    fn fill<'t>(&mut self, k: usize, tuples: impl IntoIterator<Item = &'t Tuple>) {
        let mut row: Vec<Code> = Vec::with_capacity(self.rels[k].sorts.len());
        for t in tuples {
            row.clear();
            row.extend(t.iter().map(|v| self.codes.encode(*v)));
            self.relations[k].insert(&row);
        }
    }

    /// A relation of the given tuples of `s` (not registered as `s`'s relation); `None` past
    /// the longest tuple the engine handles.
    fn data_relation<'t>(
        &mut self,
        s: Symbol,
        tuples: impl IntoIterator<Item = &'t Tuple>,
    ) -> Option<usize> {
        let sorts = self.program.symbol_sorts(s);
        if sorts.len() > MAX_ARITY {
            return None;
        }
        let k = self.new_relation(s, sorts, false);
        self.fill(k, tuples);
        Some(k)
    }

    /// Whether the relaxation is being compiled, outside anything that must be exact.
    fn relaxing(&self) -> bool {
        self.approx.is_some() && self.strict == 0
    }

    /// How symbol `s` is read; `None` when it cannot be (here).
    fn view(&mut self, s: Symbol) -> Option<View> {
        let Some(approx) = self.approx else {
            return self.relation(s).map(View::Exact);
        };
        if let Some(&k) = self.rel_of.get(&s) {
            if !self.rels[k].defined {
                return Some(View::Exact(k));
            }
            return self.relaxing().then_some(View::Defined(k));
        }
        let view = match self.approx_views.get(&s) {
            Some(view) => *view,
            None => {
                let view = match approx(s) {
                    Approx::Exact => return self.relation(s).map(View::Exact),
                    Approx::Anything => View::Anything,
                    Approx::Possible(tuples) => View::Possible(self.data_relation(s, &tuples)?),
                    Approx::Partial { ct, cf } => View::Partial {
                        ct: self.data_relation(s, &ct)?,
                        cf: self.data_relation(s, &cf)?,
                    },
                };
                self.approx_views.insert(s, view);
                view
            }
        };
        self.relaxing().then_some(view)
    }

    /// Runs `compile` on something that must be exact even in the relaxation.
    fn exactly<T>(&mut self, compile: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        self.strict += 1;
        let out = compile(self);
        self.strict -= 1;
        out
    }

    /// The relation of symbol `s`: a defined one, or the structure's two-valued table.
    fn relation(&mut self, s: Symbol) -> Option<usize> {
        if let Some(&k) = self.rel_of.get(&s) {
            return Some(k);
        }
        if self.structure.lazy.contains_key(&s) {
            return None;
        }
        let Some(Table::TwoValued(set)) = self.structure.table(s) else {
            return None;
        };
        // In the set's order: the result is a set, so the order of the rows does not matter
        // (and the set's order is the same on every run: its hashing has no random state).
        let k = self.data_relation(s, set)?;
        self.rel_of.insert(s, k);
        Some(k)
    }

    /// The member test of sort `s`.
    fn member(&mut self, s: SortId) -> usize {
        if let Some(&k) = self.member_of.get(&s) {
            return k;
        }
        let member = match self.domains.get(s) {
            Some(values) => {
                let ints: Option<Vec<i64>> = values.iter().map(|v| v.as_int()).collect();
                match ints {
                    Some(ints) if !ints.is_empty() && ints.windows(2).all(|w| w[1] == w[0] + 1) => {
                        Member::Range(ints[0], ints[ints.len() - 1])
                    }
                    _ => Member::Codes(values.iter().map(|v| self.codes.encode(*v)).collect()),
                }
            }
            None => Member::Generic(s),
        };
        self.members.push(member);
        self.member_of.insert(s, self.members.len() - 1);
        self.members.len() - 1
    }

    /// Gives variable `v` a slot (the same one each time it is declared).
    fn declare(&mut self, v: &Var) -> Option<usize> {
        if let Some(&k) = self.slot_of.get(&(v.id, v.sort)) {
            return Some(k);
        }
        let m = self.member(v.sort);
        self.slot_members.push(m);
        self.slot_sorts.push(v.sort);
        let k = self.slot_members.len() - 1;
        self.slot_of.insert((v.id, v.sort), k);
        Some(k)
    }

    fn term(&mut self, t: &Term) -> Option<Expr> {
        Some(match t.kind() {
            TermKind::Var(v) => Expr::Var(*self.slot_of.get(&(v.id, v.sort))?),
            TermKind::Value(v) => Expr::Const(self.codes.encode(*v)),
            TermKind::Func(f, args) => {
                let args = args
                    .iter()
                    .map(|a| self.term(a))
                    .collect::<Option<Vec<_>>>()?;
                let func = self.program.func(*f);
                if func.constructor_of.is_some() {
                    let sorts = func.args.clone();
                    let members = sorts.into_iter().map(|s| self.member(s)).collect();
                    Expr::Cons {
                        func: *f,
                        args,
                        members,
                    }
                } else {
                    match self.view(Symbol::Func(*f))? {
                        View::Exact(rel) => {
                            let cols: Vec<usize> = (0..args.len()).collect();
                            let index = self.relations[rel].index_on(&cols);
                            Expr::Apply { rel, index, args }
                        }
                        view => self.unnest(*f, args, view)?,
                    }
                }
            }
            TermKind::Arith(op, a, b) => {
                Expr::Arith(*op, Box::new(self.term(a)?), Box::new(self.term(b)?))
            }
            TermKind::Neg(a) => Expr::Neg(Box::new(self.term(a)?)),
            TermKind::Abs(a) => Expr::Abs(Box::new(self.term(a)?)),
            TermKind::SortMin(s) | TermKind::SortMax(s) => {
                let max = matches!(t.kind(), TermKind::SortMax(_));
                let v = match builtin_extreme(self.program, *s, max) {
                    Some(v) => Some(v),
                    None => {
                        let d = self.domains.get(*s)?;
                        if max {
                            d.last().copied()
                        } else {
                            d.first().copied()
                        }
                    }
                };
                match v {
                    Some(v) => Expr::Const(self.codes.encode(v)),
                    None => Expr::Undef,
                }
            }
            TermKind::Succ(s, a) | TermKind::Pred(s, a) => Expr::Step {
                domain: self.domains.get(*s)?,
                up: matches!(t.kind(), TermKind::Succ(..)),
                arg: Box::new(self.term(a)?),
            },
            TermKind::Aggregate(kind, sets) => {
                let sets = self.exactly(|c| {
                    sets.iter()
                        .map(|set| c.agg_set(*kind, set))
                        .collect::<Option<Vec<_>>>()
                })?;
                Expr::Agg(Box::new(Aggregate { kind: *kind, sets }))
            }
        })
    }

    /// In the relaxation, `f(args)` (f not known) as a new slot bound by an atom of f's
    /// possible graph; `None` for a partial function (it may have no value).
    fn unnest(&mut self, f: FuncId, mut args: Vec<Expr>, view: View) -> Option<Expr> {
        let func = self.program.func(f);
        if func.partial {
            return None;
        }
        let key = simple_args(&args).map(|key| (f, key));
        let w = match key.as_ref().and_then(|k| self.unnested_slots.get(k)) {
            Some(&w) => w,
            None => {
                let w = self.fresh(func.result);
                if let Some(key) = key {
                    self.unnested_slots.insert(key, w);
                }
                w
            }
        };
        args.push(Expr::Var(w));
        let lit = match view {
            View::Exact(rel) | View::Defined(rel) | View::Possible(rel) => Some(Lit::Atom {
                rel,
                args,
                positive: true,
            }),
            View::Partial { cf, .. } => Some(Lit::Atom {
                rel: cf,
                args,
                positive: false,
            }),
            View::Anything => None,
        };
        self.unnested.push((w, lit));
        Some(Expr::Var(w))
    }

    fn agg_set(&mut self, kind: AggKind, set: &SetExpr) -> Option<AggSet> {
        let mut vars = Vec::with_capacity(set.vars.len());
        for v in &set.vars {
            vars.push(self.declare(v)?);
        }
        let mut conjs = self.dnf(&set.cond, true)?;
        for conj in &mut conjs {
            for &v in vars.iter().rev() {
                if !conj.vars.contains(&v) {
                    conj.vars.insert(0, v);
                }
            }
        }
        let term = if kind == AggKind::Card {
            Expr::Const(1)
        } else {
            self.term(&set.term)?
        };
        Some(AggSet {
            query: Query {
                conjs,
                plans: Vec::new(),
            },
            vars,
            term,
        })
    }

    fn literal(lit: Lit) -> Vec<Conj> {
        vec![Conj {
            vars: Vec::new(),
            lits: vec![lit],
        }]
    }

    /// In the relaxation: literal `f` in polarity `positive`, with the applications it
    /// unnested (read as true when it cannot be read precisely: an over-approximation).
    fn relaxed_literal(&mut self, f: &Formula, positive: bool) -> Vec<Conj> {
        let outer = std::mem::take(&mut self.unnested);
        let conjs = self.literal_dnf(f, positive);
        let unnested = std::mem::replace(&mut self.unnested, outer);
        match conjs {
            Some(conjs) if unnested.is_empty() => conjs,
            Some(mut conjs) if positive => {
                for conj in &mut conjs {
                    let lits = unnested.iter().filter_map(|(_, lit)| lit.clone());
                    conj.lits.splice(0..0, lits);
                    for &(w, _) in &unnested {
                        if !conj.vars.contains(&w) {
                            conj.vars.push(w);
                        }
                    }
                }
                conjs
            }
            _ => vec![Conj::default()],
        }
    }

    /// A sub-query that must have no answer (`~(? n: H(x, n))`), its conjunctions compiled
    /// exactly by `conjs`; in the relaxation true when they cannot be.
    fn not_exists(
        &mut self,
        conjs: impl FnOnce(&mut Self) -> Option<Vec<Conj>>,
    ) -> Option<Vec<Conj>> {
        let relaxing = self.relaxing();
        let conjs = match self.exactly(conjs) {
            Some(conjs) => conjs,
            None if relaxing => return Some(vec![Conj::default()]),
            None => return None,
        };
        Some(Self::literal(Lit::NotExists(Box::new(Query {
            conjs,
            plans: Vec::new(),
        }))))
    }

    /// `f` (or its negation, when `positive` is false) as a disjunction of conjunctions.
    fn dnf(&mut self, f: &Formula, positive: bool) -> Option<Vec<Conj>> {
        let out = match f.kind() {
            FormulaKind::Bool(b) => {
                if *b == positive {
                    vec![Conj::default()]
                } else {
                    Vec::new()
                }
            }
            FormulaKind::Pred(..) | FormulaKind::Cmp(..) if self.relaxing() => {
                self.relaxed_literal(f, positive)
            }
            FormulaKind::Pred(..) | FormulaKind::Cmp(..) => self.literal_dnf(f, positive)?,
            FormulaKind::Not(g) => return self.dnf(g, !positive),
            FormulaKind::And(fs) if positive => self.cross(fs, true)?,
            FormulaKind::Or(fs) if !positive => self.cross(fs, false)?,
            FormulaKind::Or(fs) => {
                let mut out = Vec::new();
                for g in fs {
                    out.extend(self.dnf(g, true)?);
                }
                out
            }
            FormulaKind::Exists(vars, g) if positive => self.lifted(vars, g, true)?,
            FormulaKind::Forall(vars, g) if !positive => self.lifted(vars, g, false)?,
            // ! x: g  is  ~(? x: ~g).
            FormulaKind::Forall(vars, g) => self.not_exists(|c| c.lifted(vars, g, false))?,
            FormulaKind::Implies(a, b) if positive => {
                let mut out = self.dnf(a, false)?;
                out.extend(self.dnf(b, true)?);
                out
            }
            FormulaKind::Implies(a, b) => {
                let (x, y) = (self.dnf(a, true)?, self.dnf(b, false)?);
                product(x, y)?
            }
            FormulaKind::Equiv(a, b) if positive => {
                let both = product(self.dnf(a, true)?, self.dnf(b, true)?)?;
                let neither = product(self.dnf(a, false)?, self.dnf(b, false)?)?;
                let mut out = both;
                out.extend(neither);
                out
            }
            // The negation of a conjunction, an existential or an equivalence: a sub-query
            // that must have no answer.
            FormulaKind::And(_) | FormulaKind::Exists(..) | FormulaKind::Equiv(..) => {
                self.not_exists(|c| c.dnf(f, true))?
            }
        };
        (out.len() <= MAX_DISJUNCTS).then_some(out)
    }

    /// An atom or comparison in polarity `positive`.
    fn literal_dnf(&mut self, f: &Formula, positive: bool) -> Option<Vec<Conj>> {
        Some(match f.kind() {
            FormulaKind::Pred(p, args) => {
                let pred = self.program.pred(*p);
                if let Some(sort) = pred.type_of {
                    let [arg] = args.as_slice() else { return None };
                    let arg = self.term(arg)?;
                    let member = self.member(sort);
                    Self::literal(Lit::Member {
                        member,
                        arg,
                        positive,
                    })
                } else {
                    let view = self.view(Symbol::Pred(*p))?;
                    let args = args
                        .iter()
                        .map(|a| self.term(a))
                        .collect::<Option<Vec<_>>>()?;
                    let (rel, positive) = match (view, positive) {
                        (View::Exact(rel), _) => (rel, positive),
                        (View::Defined(rel) | View::Possible(rel), true) => (rel, true),
                        // Possibly true: not certainly false (true).
                        (View::Partial { cf, .. }, true) => (cf, false),
                        (View::Partial { ct, .. }, false) => (ct, false),
                        _ => return None,
                    };
                    Self::literal(Lit::Atom {
                        rel,
                        args,
                        positive,
                    })
                }
            }
            FormulaKind::Cmp(op, a, b) => {
                let (base, negated) = op.positive_form();
                // `f(args) = t`, read positively, is an atom of f's graph: it can bind the
                // arguments from the graph instead of waiting for them.
                if base == CmpOp::Eq && negated != positive {
                    // `f(s) = g(t)`: both graphs joined on a new variable for the value, so
                    // that either side can bind the other's arguments.
                    if let Some(conj) = self.graph_join(a, b) {
                        return Some(vec![conj]);
                    }
                    if let Some(lit) = self.graph_atom(a, b).or_else(|| self.graph_atom(b, a)) {
                        return Some(Self::literal(lit));
                    }
                } else if base == CmpOp::Eq {
                    // `f(s) ~= t` is the negated graph atom `~F(s, t)`, as IDP3 grounds it
                    // (its `GraphFuncsAndAggs` keeps the sign): in a definition's body a
                    // negative occurrence of F, not a positive one of f(s)'s other values.
                    let (app, value) = match (a.kind(), b.kind()) {
                        (TermKind::Func(..), TermKind::Func(..)) => (None, b),
                        (TermKind::Func(..), _) => (Some(a), b),
                        _ => (Some(b), a),
                    };
                    // In the relaxation the negated atom of a function being defined is
                    // possibly true (its graph's relation holds what is possibly true, not
                    // what is certainly true), as a negated atom of a defined predicate is.
                    if self.relaxing() && app.is_some_and(|f| self.is_being_defined(f)) {
                        return Some(vec![Conj::default()]);
                    }
                    let lit = app.and_then(|app| self.negated_graph_atom(app, value));
                    if let Some(lit) = lit {
                        return Some(Self::literal(lit));
                    }
                }
                let (a, b) = (self.term(a)?, self.term(b)?);
                Self::literal(Lit::Cmp {
                    op: base,
                    negated: negated == positive,
                    a,
                    b,
                })
            }
            _ => return None,
        })
    }

    /// `f(args) = t` as the atom `F(args, t)` of f's graph, when f is not a constructor.
    fn graph_atom(&mut self, app: &Term, value: &Term) -> Option<Lit> {
        let TermKind::Func(f, args) = app.kind() else {
            return None;
        };
        if self.program.func(*f).constructor_of.is_some() {
            return None;
        }
        let (rel, positive) = match self.view(Symbol::Func(*f))? {
            View::Exact(rel) | View::Defined(rel) | View::Possible(rel) => (rel, true),
            View::Partial { cf, .. } => (cf, false),
            View::Anything => return None,
        };
        self.graph_literal(rel, args, value, positive)
    }

    /// The literal of relation `rel` (a function's graph) at `args` and `value`.
    fn graph_literal(
        &mut self,
        rel: usize,
        args: &[Term],
        value: &Term,
        positive: bool,
    ) -> Option<Lit> {
        let mut exprs = args
            .iter()
            .map(|a| self.term(a))
            .collect::<Option<Vec<_>>>()?;
        exprs.push(self.term(value)?);
        Some(Lit::Atom {
            rel,
            args: exprs,
            positive,
        })
    }

    /// Whether `app` applies a function that this program defines.
    fn is_being_defined(&mut self, app: &Term) -> bool {
        let TermKind::Func(f, _) = app.kind() else {
            return false;
        };
        matches!(self.view(Symbol::Func(*f)), Some(View::Defined(_)))
    }

    /// `~(f(args) = t)` as the negated graph atom `~F(args, t)`, when f is a function being
    /// defined or an exactly known one that is not a constructor.
    fn negated_graph_atom(&mut self, app: &Term, value: &Term) -> Option<Lit> {
        let TermKind::Func(f, args) = app.kind() else {
            return None;
        };
        if self.program.func(*f).constructor_of.is_some() {
            return None;
        }
        let rel = match self.view(Symbol::Func(*f))? {
            View::Exact(rel) | View::Defined(rel) => rel,
            View::Partial { ct, .. } => ct,
            View::Possible(_) | View::Anything => return None,
        };
        self.graph_literal(rel, args, value, false)
    }

    /// `f(s) = g(t)` for two functions that are not constructors: `F(s, w) & G(t, w)` with a
    /// new variable w over f's result sort (either side undefined makes both false).
    fn graph_join(&mut self, a: &Term, b: &Term) -> Option<Conj> {
        let (TermKind::Func(f, _), TermKind::Func(g, _)) = (a.kind(), b.kind()) else {
            return None;
        };
        let (f, g) = (self.program.func(*f), self.program.func(*g));
        if f.constructor_of.is_some() || g.constructor_of.is_some() {
            return None;
        }
        let w = self.fresh(f.result);
        let value = Term::new(
            TermKind::Var(Var {
                id: u32::MAX - w as u32,
                name: "_w".into(),
                sort: f.result,
            }),
            f.result,
            a.span,
        );
        self.slot_of.insert((u32::MAX - w as u32, f.result), w);
        let first = self.graph_atom(a, &value)?;
        let second = self.graph_atom(b, &value)?;
        Some(Conj {
            vars: vec![w],
            lits: vec![first, second],
        })
    }

    /// A new variable slot of sort `s`.
    fn fresh(&mut self, s: SortId) -> usize {
        let m = self.member(s);
        self.slot_members.push(m);
        self.slot_sorts.push(s);
        self.slot_members.len() - 1
    }

    /// The conjunctions of `g` (in polarity `positive`) with `vars` bound by each of them.
    fn lifted(&mut self, vars: &[Var], g: &Formula, positive: bool) -> Option<Vec<Conj>> {
        let mut slots = Vec::with_capacity(vars.len());
        for v in vars {
            slots.push(self.declare(v)?);
        }
        let mut out = self.dnf(g, positive)?;
        for conj in &mut out {
            for &s in &slots {
                if !conj.vars.contains(&s) {
                    conj.vars.push(s);
                }
            }
        }
        Some(out)
    }

    /// The conjunctions of all `fs` together (each in polarity `positive`).
    fn cross(&mut self, fs: &[Formula], positive: bool) -> Option<Vec<Conj>> {
        let mut acc = vec![Conj::default()];
        for g in fs {
            let next = self.dnf(g, positive)?;
            acc = product(acc, next)?;
        }
        Some(acc)
    }
}

/// Every conjunction of `xs` with every one of `ys`.
fn product(xs: Vec<Conj>, ys: Vec<Conj>) -> Option<Vec<Conj>> {
    if xs.len().saturating_mul(ys.len()) > MAX_DISJUNCTS {
        return None;
    }
    let mut out = Vec::with_capacity(xs.len() * ys.len());
    for x in &xs {
        for y in &ys {
            let mut c = x.clone();
            for &v in &y.vars {
                if !c.vars.contains(&v) {
                    c.vars.push(v);
                }
            }
            c.lits.extend(y.lits.iter().cloned());
            out.push(c);
        }
    }
    Some(out)
}

/// The slots an expression reads.
pub fn expr_slots(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var(s) => {
            if !out.contains(s) {
                out.push(*s)
            }
        }
        Expr::Const(_) | Expr::Undef => {}
        Expr::Arith(_, a, b) => {
            expr_slots(a, out);
            expr_slots(b, out);
        }
        Expr::Neg(a) | Expr::Abs(a) => expr_slots(a, out),
        Expr::Step { arg, .. } => expr_slots(arg, out),
        Expr::Apply { args, .. } | Expr::Cons { args, .. } => {
            args.iter().for_each(|a| expr_slots(a, out))
        }
        Expr::Agg(agg) => {
            for set in &agg.sets {
                let mut inner = Vec::new();
                query_slots(&set.query, &mut inner);
                expr_slots(&set.term, &mut inner);
                for s in inner {
                    if !set.vars.contains(&s) && !out.contains(&s) {
                        out.push(s);
                    }
                }
            }
        }
    }
}

/// The free slots of a literal (those bound outside it).
pub fn lit_slots(l: &Lit, out: &mut Vec<usize>) {
    match l {
        Lit::Atom { args, .. } => args.iter().for_each(|a| expr_slots(a, out)),
        Lit::Member { arg, .. } => expr_slots(arg, out),
        Lit::Cmp { a, b, .. } => {
            expr_slots(a, out);
            expr_slots(b, out);
        }
        Lit::NotExists(q) => query_slots(q, out),
    }
}

/// The free slots of a query.
pub fn query_slots(q: &Query, out: &mut Vec<usize>) {
    for conj in &q.conjs {
        let mut inner = Vec::new();
        conj.lits.iter().for_each(|l| lit_slots(l, &mut inner));
        for s in inner {
            if !conj.vars.contains(&s) && !out.contains(&s) {
                out.push(s);
            }
        }
    }
}

/// Calls `found` with every relation an expression reads.
pub fn expr_relations(e: &Expr, found: &mut impl FnMut(usize)) {
    match e {
        Expr::Var(_) | Expr::Const(_) | Expr::Undef => {}
        Expr::Arith(_, a, b) => {
            expr_relations(a, found);
            expr_relations(b, found);
        }
        Expr::Neg(a) | Expr::Abs(a) => expr_relations(a, found),
        Expr::Step { arg, .. } => expr_relations(arg, found),
        Expr::Apply { rel, args, .. } => {
            found(*rel);
            args.iter().for_each(|a| expr_relations(a, found))
        }
        Expr::Cons { args, .. } => args.iter().for_each(|a| expr_relations(a, found)),
        Expr::Agg(agg) => {
            for set in &agg.sets {
                query_relations(&set.query, found);
                expr_relations(&set.term, found);
            }
        }
    }
}

/// Calls `found` with every relation a literal reads.
pub fn lit_relations(l: &Lit, found: &mut impl FnMut(usize)) {
    match l {
        Lit::Atom { rel, args, .. } => {
            found(*rel);
            args.iter().for_each(|a| expr_relations(a, found))
        }
        Lit::Member { arg, .. } => expr_relations(arg, found),
        Lit::Cmp { a, b, .. } => {
            expr_relations(a, found);
            expr_relations(b, found);
        }
        Lit::NotExists(q) => query_relations(q, found),
    }
}

pub fn query_relations(q: &Query, found: &mut impl FnMut(usize)) {
    for conj in &q.conjs {
        conj.lits.iter().for_each(|l| lit_relations(l, found));
    }
}
