//! The values a function application can take, from the sentences that put it in a known
//! atom.
//!
//! A Hamiltonian cycle written the plain way says `! x : Edge(x, Next(x)).` over a structure
//! that gives `Edge`: every model gives `Next(x)` one of the few successors of `x`, yet
//! grounding `Next` over its whole range makes an atom `Next(x) = v` for every node `v` (nine
//! million at 3000 nodes). Here such sentences bound each application before anything is
//! ground: for every tuple `x̄` of `f`'s arguments, the values `v` that leave the atom possibly
//! true. The forms read, with `vars` universally quantified over whole types at the top of a
//! sentence (conjunctions descended into):
//!
//! * `P(.., f(x̄), ..)`, the other arguments variables among `x̄` or values;
//! * `f(x̄) = y => P(.., y, ..)` (or `f(x̄) ~= y | P(..)`), `y` quantified and not among `x̄`,
//!   a conjunction of such atoms on the right.
//!
//! `P` must be known two-valued (a table of the structure, not a defined or open symbol). Every
//! model satisfies the sentence, so grounding `f(x̄)` over these values keeps every model; the
//! sentence itself is still ground (its atoms are then true). IDP3 reaches the same bounds by
//! lifted unit propagation before grounding (`stdoptions.liftedunitpropagation`). Explanations
//! ground from scratch without this step, so a sentence used here is still found in a reason.

use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::{position_bit, Grounder, TableIndex};
use crate::ids::{FuncId, PredId, SortId, Symbol};
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind, Var};
use crate::structure::Value;
use crate::syntax::ast::CmpOp;

/// Most argument tuples of one function bounded this way.
const MAX_TUPLES: usize = 1_000_000;

/// An argument of the bounding atom.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Arg {
    /// Where the application stands (`f(x̄)`, or `y` of `f(x̄) = y`).
    Hole,
    /// The application's argument at this index.
    Of(usize),
    /// A value.
    Value(Value),
}

/// What the bounds of a function's applications give the rest of grounding.
#[derive(Debug)]
pub(super) struct Bounded {
    /// The possible tuples of its graph (arguments, then value), sorted.
    graph: Vec<Vec<Value>>,
    /// For a unary function, the arguments that can map to each value, sorted.
    preimages: Option<Rc<TableIndex>>,
}

/// A sentence's statement that `f(x̄)` lies in the true tuples of `pred` at the hole.
#[derive(Debug)]
struct Bound {
    func: FuncId,
    /// The sorts of the variables `x̄` (the function's argument types when they cover it).
    over: Vec<SortId>,
    pred: PredId,
    args: Vec<Arg>,
}

impl<'a> Grounder<'a> {
    /// Bounds the applications of functions that `sentences` put in an atom of a known
    /// predicate (see the module's doc); `defined` are the symbols of the definitions still to
    /// ground, never read as known.
    pub fn bound_applications_by_atoms(
        &mut self,
        sentences: &[Formula],
        defined: &HashSet<Symbol>,
    ) {
        let mut bounds = Vec::new();
        for s in sentences {
            collect(s, &mut Vec::new(), &mut bounds);
        }
        bounds.retain(|b| {
            b.over == self.program.func(b.func).args
                && !defined.contains(&Symbol::Func(b.func))
                && !defined.contains(&Symbol::Pred(b.pred))
                && !self.is_forced_whole(Symbol::Func(b.func))
                && !self.func_two_valued(b.func)
                && self.program.func(b.func).constructor_of.is_none()
                && self.indexable(Symbol::Pred(b.pred))
        });
        for bound in &bounds {
            self.apply_bound(bound);
        }
    }

    /// Narrows every application of `bound.func` to the values its atom allows.
    fn apply_bound(&mut self, bound: &Bound) {
        let func = self.program.func(bound.func);
        let (arg_sorts, result) = (func.args.clone(), func.result);
        let Some(range) = self.domains.get(result) else {
            return;
        };
        let range: HashSet<Value> = range.iter().copied().collect();
        let mut domains = Vec::new();
        let mut count: usize = 1;
        for &s in &arg_sorts {
            let Some(d) = self.domains.get(s) else { return };
            let Some(c) = count.checked_mul(d.len()) else {
                return;
            };
            count = c;
            domains.push(d.to_vec());
        }
        if count > MAX_TUPLES {
            return;
        }
        let hole = bound
            .args
            .iter()
            .position(|a| *a == Arg::Hole)
            .expect("a bound has its hole");
        let fixed = (0..bound.args.len())
            .filter(|&k| k != hole)
            .fold(0u64, |set, k| set | position_bit(k));
        let index = self.table_index_at(Symbol::Pred(bound.pred), hole, fixed);
        let mut narrowed: HashMap<(FuncId, Vec<Value>), Rc<[Value]>> = HashMap::default();
        let mut key = Vec::with_capacity(bound.args.len());
        for tuple in crate::sema::cartesian(&domains) {
            key.clear();
            key.extend(bound.args.iter().filter_map(|a| match a {
                Arg::Hole => None,
                Arg::Of(i) => Some(tuple[*i]),
                Arg::Value(v) => Some(*v),
            }));
            let allowed: Vec<Value> = match index.get(key.as_slice()) {
                Some(values) => values
                    .iter()
                    .copied()
                    .filter(|v| range.contains(v))
                    .collect(),
                None => Vec::new(),
            };
            let allowed = match self.applications.get(&(bound.func, tuple.clone())) {
                Some(before) => allowed.into_iter().filter(|v| before.contains(v)).collect(),
                None => allowed,
            };
            narrowed.insert((bound.func, tuple), allowed.into());
        }
        let mut graph: Vec<Vec<Value>> = Vec::new();
        for ((_, args), values) in &narrowed {
            for &v in values.iter() {
                let mut tuple = args.clone();
                tuple.push(v);
                graph.push(tuple);
            }
        }
        graph.sort();
        let preimages = (arg_sorts.len() == 1).then(|| {
            let mut inverse: HashMap<Vec<Value>, Vec<Value>> = HashMap::default();
            for tuple in &graph {
                inverse.entry(vec![tuple[1]]).or_default().push(tuple[0]);
            }
            // The graph is sorted, so each preimage is too.
            Rc::new(
                inverse
                    .into_iter()
                    .map(|(v, xs)| (v, Rc::from(xs)))
                    .collect(),
            )
        });
        self.bounded
            .insert(bound.func, Bounded { graph, preimages });
        self.applications.extend(narrowed);
        self.memo.applications.clear();
    }

    /// The possible tuples of `f`'s graph (arguments, then value), when a sentence bounds
    /// every application of `f`: what a possibly-true pass may read of it.
    pub(super) fn symbol_bounded_graph(&self, s: Symbol) -> Option<Vec<Vec<Value>>> {
        let Symbol::Func(f) = s else { return None };
        Some(self.bounded.get(&f)?.graph.clone())
    }

    /// The arguments for which the unary function `f` can take `value`, when a sentence
    /// bounds every application of `f` (see [`Grounder::bound_applications_by_atoms`]).
    pub(super) fn preimage(&self, f: FuncId, value: Value) -> Option<Rc<[Value]>> {
        let inverse = self.bounded.get(&f)?.preimages.as_ref()?;
        Some(
            inverse
                .get(&vec![value])
                .cloned()
                .unwrap_or_else(|| Rc::from(Vec::new())),
        )
    }
}

/// The bounds that `f` states, with `vars` quantified over it.
fn collect<'f>(f: &'f Formula, vars: &mut Vec<&'f Var>, out: &mut Vec<Bound>) {
    match f.kind() {
        FormulaKind::And(fs) => fs.iter().for_each(|g| collect(g, vars, out)),
        FormulaKind::Forall(vs, body) => {
            let depth = vars.len();
            vars.extend(vs);
            collect(body, vars, out);
            vars.truncate(depth);
        }
        FormulaKind::Pred(p, args) => {
            for (k, a) in args.iter().enumerate() {
                if let Some(bound) = atom_bound(*p, args, k, a, vars) {
                    out.push(bound);
                }
            }
        }
        FormulaKind::Implies(guard, then) => {
            if let FormulaKind::Cmp(CmpOp::Eq, a, b) = guard.kind() {
                guarded((a, b), then, vars, out);
            }
        }
        FormulaKind::Or(fs) if fs.len() == 2 => {
            for (guard, then) in [(&fs[0], &fs[1]), (&fs[1], &fs[0])] {
                if let FormulaKind::Cmp(CmpOp::Ne, a, b) = guard.kind() {
                    guarded((a, b), then, vars, out);
                }
            }
        }
        _ => {}
    }
}

/// The bound of `p(args)` on the application at position `k`, when it is one.
fn atom_bound(p: PredId, args: &[Term], k: usize, at: &Term, vars: &[&Var]) -> Option<Bound> {
    let TermKind::Func(func, fargs) = at.kind() else {
        return None;
    };
    let (of, over) = application_vars(fargs, vars)?;
    let args = args
        .iter()
        .enumerate()
        .map(|(j, a)| if j == k { Some(Arg::Hole) } else { arg(a, &of) })
        .collect::<Option<Vec<Arg>>>()?;
    Some(Bound {
        func: *func,
        over,
        pred: p,
        args,
    })
}

/// The bounds of `a = b => then` where one of `a`, `b` is `f(x̄)` and the other `y`.
fn guarded(equal: (&Term, &Term), then: &Formula, vars: &[&Var], out: &mut Vec<Bound>) {
    let (a, b) = equal;
    for (app, y) in [(a, b), (b, a)] {
        let (TermKind::Func(func, fargs), TermKind::Var(y)) = (app.kind(), y.kind()) else {
            continue;
        };
        let Some((of, over)) = application_vars(fargs, vars) else {
            continue;
        };
        if of.contains(&y.id) || !vars.iter().any(|v| v.id == y.id) {
            continue;
        }
        let atoms: Vec<&Formula> = match then.kind() {
            FormulaKind::And(fs) => fs.iter().collect(),
            _ => vec![then],
        };
        for atom in atoms {
            let FormulaKind::Pred(p, args) = atom.kind() else {
                continue;
            };
            let holes = args
                .iter()
                .filter(|t| matches!(t.kind(), TermKind::Var(v) if v.id == y.id))
                .count();
            if holes != 1 {
                continue;
            }
            let args = args
                .iter()
                .map(|t| match t.kind() {
                    TermKind::Var(v) if v.id == y.id => Some(Arg::Hole),
                    _ => arg(t, &of),
                })
                .collect::<Option<Vec<Arg>>>();
            if let Some(args) = args {
                out.push(Bound {
                    func: *func,
                    over: over.clone(),
                    pred: *p,
                    args,
                });
            }
        }
    }
}

/// The variables of an application `f(x̄)` and their sorts, when its arguments are distinct
/// variables among `vars`.
fn application_vars(fargs: &[Term], vars: &[&Var]) -> Option<(Vec<u32>, Vec<SortId>)> {
    let (mut of, mut over) = (Vec::new(), Vec::new());
    for a in fargs {
        let TermKind::Var(v) = a.kind() else {
            return None;
        };
        if of.contains(&v.id) || !vars.iter().any(|w| w.id == v.id) {
            return None;
        }
        of.push(v.id);
        over.push(v.sort);
    }
    Some((of, over))
}

/// An argument other than the hole: a variable of the application or a value.
fn arg(t: &Term, of: &[u32]) -> Option<Arg> {
    match t.kind() {
        TermKind::Var(v) => of.iter().position(|w| *w == v.id).map(Arg::Of),
        TermKind::Value(v) => Some(Arg::Value(*v)),
        _ => None,
    }
}
