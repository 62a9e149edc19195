//! A naive model checker: evaluates a theory's sentences and definitions in a two-valued
//! structure directly on the formulas, without grounding or SAT. Tests use it to re-check
//! every model the solver returns. It is independent of the grounder's and the solver's
//! algorithms, not of everything they read: it shares the resolved program, the sort domains
//! and membership of `sema::Domains` (as every stage does: one owner of domains) and the
//! arithmetic of IDP3's built-in functions (`ground::arith`). A mistake there would show in
//! both; the corpus and the conformance tests check those against IDP3.

use std::collections::{HashMap, HashSet};

use crate::ground::arith;
use crate::ids::{SortId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, NodeId, Term, TermKind};
use crate::sema::walk::Node;
use crate::sema::{cartesian, Domains, Program, Theory};
use crate::structure::{Answer, Structure, TruthValue, Tuple, TupleSet, Value};
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// A term's value: undefined (partial function), ±∞ (empty `max`/`min`), or an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Val {
    NegInf,
    V(Value),
    PosInf,
}

/// Interpretations of defined symbols while a definition is being checked: positive
/// occurrences read `pos`, negative ones `neg`.
struct Override<'o> {
    pos: &'o HashMap<Symbol, TupleSet>,
    neg: &'o HashMap<Symbol, TupleSet>,
    bound: Bound,
    /// `pos` and `neg` are one two-valued completion (inside [`Checker::supervaluate`]).
    exact: bool,
}

/// Which bound of the well-founded model a fixpoint computes: the certainly true atoms
/// (`pos` grows below the upper bound `neg`) or the possibly true ones (`pos` grows above the
/// lower bound `neg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Lower,
    Upper,
}

/// Past this many unknown defined atoms an aggregate's completions are not enumerated.
const MAX_UNKNOWN_AGGREGATE_ATOMS: usize = 16;

pub struct Checker<'a> {
    program: &'a Program,
    structure: &'a Structure,
    domains: Domains<'a>,
    env: HashMap<u32, Value>,
    /// Values chosen for applications of defined functions while a definition is evaluated
    /// (see [`Checker::unnest`]).
    pinned: HashMap<NodeId, Value>,
}

/// Why a structure is not a model.
pub fn check_model(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
) -> Result<(), String> {
    let mut c = Checker {
        program,
        structure,
        domains: Domains::new(program, structure),
        env: HashMap::new(),
        pinned: HashMap::new(),
    };
    c.values_in_their_types()?;
    for (k, s) in theory.sentences.iter().enumerate() {
        if !c.formula(s, true, None) {
            return Err(format!(
                "sentence {} of theory {} is false",
                k + 1,
                theory.name
            ));
        }
    }
    for (k, d) in theory.definitions.iter().enumerate() {
        c.definition(d)
            .map_err(|e| format!("definition {} of theory {}: {e}", k + 1, theory.name))?;
    }
    Ok(())
}

impl<'a> Checker<'a> {
    /// Every function's value, and its arguments, belong to their types (an `int` never
    /// takes 3.5, a `nat` never −1).
    fn values_in_their_types(&self) -> Result<(), String> {
        let funcs = &self.program.voc(self.structure.vocabulary).funcs;
        for &f in funcs {
            let symbol = Symbol::Func(f);
            let Some(table) = self.structure.table(symbol) else {
                continue;
            };
            if let Some(tuple) = table.ct().iter().find(|t| !self.in_sorts(symbol, t)) {
                let (args, value) = tuple.split_at(tuple.len() - 1);
                let args: Vec<String> = args.iter().map(Value::to_string).collect();
                return Err(format!(
                    "{}({}) = {} is outside its type",
                    self.program.symbol_name(symbol),
                    args.join(", "),
                    value[0]
                ));
            }
        }
        Ok(())
    }

    /// The elements of a sort (none when it has no finite domain).
    fn domain(&self, s: SortId) -> Vec<Value> {
        self.domains.get(s).map(|d| d.to_vec()).unwrap_or_default()
    }

    fn in_sort(&self, s: SortId, v: Value) -> bool {
        self.domains.contains(s, v)
    }

    fn in_sorts(&self, s: Symbol, tuple: &[Value]) -> bool {
        let sorts = self.program.symbol_sorts(s);
        sorts.iter().zip(tuple).all(|(s, v)| self.in_sort(*s, *v))
    }

    fn holds(&self, s: Symbol, t: &[Value], positive: bool, ov: Option<&Override>) -> bool {
        if let Some(ov) = ov {
            let table = if positive { ov.pos } else { ov.neg };
            if let Some(set) = table.get(&s) {
                return set.contains(t);
            }
        }
        if let Some(procedure) = self.structure.lazy.get(&s) {
            return matches!(procedure.answer(t), Ok(Answer::Holds(true)));
        }
        self.structure
            .table(s)
            .is_some_and(|tb| tb.ct().contains(t))
    }

    fn formula(&mut self, f: &Formula, positive: bool, ov: Option<&Override>) -> bool {
        match f.kind() {
            FormulaKind::Bool(b) => *b,
            FormulaKind::Pred(_, args) if self.unpinned_application(args.iter(), ov).is_some() => {
                let ov = ov.expect("an application of a defined function");
                let terms: Vec<&Term> = args.iter().collect();
                self.unnest(&terms, positive, ov, &mut |c| {
                    c.formula(f, positive, Some(ov))
                })
            }
            FormulaKind::Pred(p, args) => {
                let Some(vals) = self.args(args, ov) else {
                    return false;
                };
                let pred = self.program.pred(*p);
                if let Some(s) = pred.type_of {
                    return self.in_sort(s, vals[0]);
                }
                let sorts = pred.args.clone();
                sorts.iter().zip(&vals).all(|(s, v)| self.in_sort(*s, *v))
                    && self.holds(Symbol::Pred(*p), &vals, positive, ov)
            }
            FormulaKind::Cmp(op, a, b) if ov.is_some_and(|o| self.aggregates_defined(f, o)) => {
                let ov = ov.expect("checked");
                match self.bounded_comparison(*op, a, b, positive, ov) {
                    Some(holds) => holds,
                    None => self.supervaluate(f, positive, ov),
                }
            }
            FormulaKind::Cmp(op, a, b) if self.unpinned_application([a, b], ov).is_some() => {
                // `F(t) ~= u` is the negated graph atom `~F(t, u)`, as IDP3 splits comparisons.
                let ov = ov.expect("an application of a defined function");
                let (base, negate) = op.positive_form();
                let holds = self.unnest(&[a, b], positive != negate, ov, &mut |c| {
                    c.compare(base, a, b, Some(ov))
                });
                holds != negate
            }
            FormulaKind::Cmp(op, a, b) => self.compare(*op, a, b, ov),
            FormulaKind::Not(g) => !self.formula(g, !positive, ov),
            FormulaKind::And(fs) => fs.iter().all(|g| self.formula(g, positive, ov)),
            FormulaKind::Or(fs) => fs.iter().any(|g| self.formula(g, positive, ov)),
            FormulaKind::Implies(a, b) => {
                !self.formula(a, !positive, ov) || self.formula(b, positive, ov)
            }
            FormulaKind::Equiv(a, b) => {
                let l = !self.formula(a, !positive, ov) || self.formula(b, positive, ov);
                let r = !self.formula(b, !positive, ov) || self.formula(a, positive, ov);
                l && r
            }
            FormulaKind::Forall(vars, body) => self.quantify(vars, body, positive, ov, true),
            FormulaKind::Exists(vars, body) => self.quantify(vars, body, positive, ov, false),
        }
    }

    /// `a op b` with every term evaluated (false when one is undefined).
    fn compare(&mut self, op: CmpOp, a: &Term, b: &Term, ov: Option<&Override>) -> bool {
        let (x, y) = (self.term(a, ov), self.term(b, ov));
        let (base, negate) = op.positive_form();
        let r = match (x, y) {
            (Some(x), Some(y)) => match base {
                CmpOp::Eq => x == y,
                CmpOp::Lt => x < y,
                _ => x > y,
            },
            _ => false,
        };
        r != negate
    }

    /// The innermost application of a function being defined in `terms`, outside aggregates,
    /// that has no value pinned yet (only while a definition is evaluated).
    fn unpinned_application<'t>(
        &self,
        terms: impl IntoIterator<Item = &'t Term>,
        ov: Option<&Override>,
    ) -> Option<&'t Term> {
        let ov = ov?;
        terms
            .into_iter()
            .find_map(|t| self.innermost_application(t, ov))
    }

    fn innermost_application<'t>(&self, t: &'t Term, ov: &Override) -> Option<&'t Term> {
        match t.kind() {
            TermKind::Aggregate(..) => None,
            TermKind::Func(f, args) => args
                .iter()
                .find_map(|a| self.innermost_application(a, ov))
                .or_else(|| {
                    let defined = ov.pos.contains_key(&Symbol::Func(*f));
                    (defined && !self.pinned.contains_key(&t.id())).then_some(t)
                }),
            TermKind::Arith(_, a, b) => self
                .innermost_application(a, ov)
                .or_else(|| self.innermost_application(b, ov)),
            TermKind::Neg(a) | TermKind::Abs(a) | TermKind::Succ(_, a) | TermKind::Pred(_, a) => {
                self.innermost_application(a, ov)
            }
            _ => None,
        }
    }

    /// Reads the applications `F(t)` of functions being defined in `terms` through their graph,
    /// as IDP3 unnests them: `φ[F(t)]` is `? v : F(t, v) & φ[v]`, the graph atom read with the
    /// polarity of the occurrence (so that a non-functional bound of the well-founded
    /// computation is read atom by atom, as the grounder's graph atoms are). Each value `v`
    /// whose graph atom holds is pinned to the application while `eval` runs.
    fn unnest(
        &mut self,
        terms: &[&Term],
        positive: bool,
        ov: &Override,
        eval: &mut dyn FnMut(&mut Self) -> bool,
    ) -> bool {
        let Some(app) = self.unpinned_application(terms.iter().copied(), Some(ov)) else {
            return eval(self);
        };
        let TermKind::Func(f, args) = app.kind() else {
            unreachable!("an application is a function term")
        };
        let Some(mut graph) = self.args(args, Some(ov)) else {
            return false;
        };
        let symbol = Symbol::Func(*f);
        for v in self.domain(self.program.func(*f).result) {
            graph.push(v);
            let found = self.holds(symbol, &graph, positive, Some(ov)) && {
                self.pinned.insert(app.id(), v);
                let holds = self.unnest(terms, positive, ov, eval);
                self.pinned.remove(&app.id());
                holds
            };
            graph.pop();
            if found {
                return true;
            }
        }
        false
    }

    fn quantify(
        &mut self,
        vars: &[crate::sema::ir::Var],
        body: &Formula,
        positive: bool,
        ov: Option<&Override>,
        all: bool,
    ) -> bool {
        let domains: Vec<Vec<Value>> = vars.iter().map(|v| self.domain(v.sort)).collect();
        for t in cartesian(&domains) {
            for (v, x) in vars.iter().zip(&t) {
                self.env.insert(v.id, *x);
            }
            if self.formula(body, positive, ov) != all {
                return !all;
            }
        }
        all
    }

    fn args(&mut self, args: &[Term], ov: Option<&Override>) -> Option<Vec<Value>> {
        args.iter()
            .map(|a| match self.term(a, ov) {
                Some(Val::V(v)) => Some(v),
                _ => None,
            })
            .collect()
    }

    fn term(&mut self, t: &Term, ov: Option<&Override>) -> Option<Val> {
        if let Some(v) = self.pinned.get(&t.id()) {
            return Some(Val::V(*v));
        }
        let v = match t.kind() {
            TermKind::Var(v) => *self.env.get(&v.id)?,
            TermKind::Value(v) => *v,
            TermKind::Func(f, args) => {
                let vals = self.args(args, ov)?;
                let func = self.program.func(*f);
                if !func
                    .args
                    .iter()
                    .zip(&vals)
                    .all(|(s, v)| self.in_sort(*s, *v))
                {
                    return None;
                }
                if func.constructor_of.is_some() {
                    Value::compound(*f, vals)
                } else {
                    self.function_value(Symbol::Func(*f), &vals, ov)?
                }
            }
            TermKind::Arith(op, a, b) => match (self.term(a, ov)?, self.term(b, ov)?) {
                (Val::V(x), Val::V(y)) => arith(*op, x, y)?,
                _ => return None,
            },
            TermKind::Neg(a) => match self.term(a, ov)? {
                Val::V(x) => arith(ArithOp::Sub, Value::Int(0), x)?,
                _ => return None,
            },
            TermKind::Abs(a) => match self.term(a, ov)? {
                Val::V(Value::Int(i)) => Value::Int(i.checked_abs()?),
                Val::V(Value::Float(f)) => Value::Float(f.abs()),
                Val::V(v @ Value::Ratio(_)) => {
                    Value::rational(&num_traits::Signed::abs(&v.exact()?))
                }
                _ => return None,
            },
            TermKind::SortMin(s) => *self.domain(*s).first()?,
            TermKind::SortMax(s) => *self.domain(*s).last()?,
            TermKind::Succ(s, a) | TermKind::Pred(s, a) => {
                let Val::V(x) = self.term(a, ov)? else {
                    return None;
                };
                let dom = self.domain(*s);
                let k = dom.iter().position(|d| *d == x)? as isize;
                let k = if matches!(t.kind(), TermKind::Succ(..)) {
                    k + 1
                } else {
                    k - 1
                };
                *dom.get(usize::try_from(k).ok()?)?
            }
            TermKind::Aggregate(kind, sets) => return self.aggregate(*kind, sets, ov),
        };
        Some(Val::V(v))
    }

    fn function_value(&self, s: Symbol, args: &[Value], ov: Option<&Override>) -> Option<Value> {
        let find = |set: &TupleSet| {
            set.iter()
                .find(|t| &t[..t.len() - 1] == args)
                .map(|t| t[t.len() - 1])
        };
        if let Some(ov) = ov {
            if let Some(set) = ov.pos.get(&s) {
                return find(set);
            }
        }
        if let Some(procedure) = self.structure.lazy.get(&s) {
            return match procedure.answer(args) {
                Ok(Answer::Value(v)) => Some(v),
                _ => None,
            };
        }
        find(self.structure.table(s)?.ct())
    }

    fn aggregate(
        &mut self,
        kind: AggKind,
        sets: &[crate::sema::ir::SetExpr],
        ov: Option<&Override>,
    ) -> Option<Val> {
        let mut values = Vec::new();
        for set in sets {
            let domains: Vec<Vec<Value>> = set.vars.iter().map(|v| self.domain(v.sort)).collect();
            for t in cartesian(&domains) {
                for (v, x) in set.vars.iter().zip(&t) {
                    self.env.insert(v.id, *x);
                }
                if self.formula(&set.cond, true, ov) {
                    match kind {
                        AggKind::Card => values.push(Value::Int(1)),
                        _ => {
                            if let Some(Val::V(v)) = self.term(&set.term, ov) {
                                values.push(v);
                            }
                        }
                    }
                }
            }
        }
        Some(match kind {
            AggKind::Card | AggKind::Sum => Val::V(
                values
                    .into_iter()
                    .try_fold(Value::Int(0), |a, b| arith(ArithOp::Add, a, b))?,
            ),
            AggKind::Prod => Val::V(
                values
                    .into_iter()
                    .try_fold(Value::Int(1), |a, b| arith(ArithOp::Mul, a, b))?,
            ),
            AggKind::Max => values.into_iter().max().map(Val::V).unwrap_or(Val::NegInf),
            AggKind::Min => values.into_iter().min().map(Val::V).unwrap_or(Val::PosInf),
        })
    }

    /// Whether a comparison aggregates over a symbol of the definition being checked: then it
    /// is not monotone in either direction and is evaluated by [`Checker::supervaluate`].
    fn aggregates_defined(&self, f: &Formula, ov: &Override) -> bool {
        let FormulaKind::Cmp(_, a, b) = f.kind() else {
            return false;
        };
        if ov.exact {
            return false;
        }
        let mut symbols = HashSet::new();
        aggregate_symbols(a, &mut symbols);
        aggregate_symbols(b, &mut symbols);
        symbols.iter().any(|s| ov.pos.contains_key(s))
    }

    /// `agg op t` with an aggregate over defined symbols (not `prod`) and a term `t` that reads
    /// none, in the bounds approximation of the well-founded semantics: each set element is
    /// certainly or possibly in by its condition's value between the two bounds, the aggregate
    /// ranges over the interval those memberships allow, and the comparison is certainly true
    /// when it holds for every value of the interval, possibly true when for some. `None` for
    /// other shapes (they are supervaluated).
    fn bounded_comparison(
        &mut self,
        op: CmpOp,
        a: &Term,
        b: &Term,
        positive: bool,
        ov: &Override,
    ) -> Option<bool> {
        let reads_defined = |t: &Term| {
            let mut symbols = rustc_hash::FxHashSet::default();
            crate::sema::walk::symbols(t, &mut symbols);
            symbols.iter().any(|s| ov.pos.contains_key(s))
        };
        let (agg, other, agg_left) = match (a.kind(), b.kind()) {
            (TermKind::Aggregate(..), _) if !reads_defined(b) => (a, b, true),
            (_, TermKind::Aggregate(..)) if !reads_defined(a) => (b, a, false),
            _ => return None,
        };
        let TermKind::Aggregate(kind, sets) = agg.kind() else {
            return None;
        };
        if *kind == AggKind::Prod || sets.iter().any(|set| reads_defined(&set.term)) {
            return None;
        }
        let (low, high) = self.aggregate_interval(*kind, sets, ov)?;
        let value = self.term(other, Some(ov));
        let (relation, negated) = op.positive_form();
        let relation = match (relation, agg_left) {
            (CmpOp::Lt, false) => CmpOp::Gt,
            (CmpOp::Gt, false) => CmpOp::Lt,
            (r, _) => r,
        };
        let want_certain = (ov.bound == Bound::Lower) == positive;
        // Certainly `~R` is not possibly `R`, and possibly `~R` is not certainly `R`.
        let certain = want_certain != negated;
        let holds = value.is_some_and(|y| match (relation, certain) {
            (CmpOp::Eq, true) => low == y && high == y,
            (CmpOp::Eq, false) => low <= y && y <= high,
            (CmpOp::Lt, true) => high < y,
            (CmpOp::Lt, false) => low < y,
            (_, true) => low > y,
            (_, false) => high > y,
        });
        Some(holds != negated)
    }

    /// The least and greatest value of an aggregate over the sets between the certain and the
    /// possible members (`None` when a total leaves the integers).
    fn aggregate_interval(
        &mut self,
        kind: AggKind,
        sets: &[crate::sema::ir::SetExpr],
        ov: &Override,
    ) -> Option<(Val, Val)> {
        let (lower, upper) = match ov.bound {
            Bound::Lower => (ov.pos, ov.neg),
            Bound::Upper => (ov.neg, ov.pos),
        };
        let certainly = Override {
            pos: lower,
            neg: upper,
            bound: Bound::Lower,
            exact: false,
        };
        let possibly = Override {
            pos: upper,
            neg: lower,
            bound: Bound::Upper,
            exact: false,
        };
        // (value, certainly in); elements that are not possibly in are left out.
        let mut members: Vec<(Value, bool)> = Vec::new();
        for set in sets {
            let domains: Vec<Vec<Value>> = set.vars.iter().map(|v| self.domain(v.sort)).collect();
            for t in cartesian(&domains) {
                for (v, x) in set.vars.iter().zip(&t) {
                    self.env.insert(v.id, *x);
                }
                if !self.formula(&set.cond, true, Some(&possibly)) {
                    continue;
                }
                let value = match kind {
                    AggKind::Card => Value::Int(1),
                    _ => match self.term(&set.term, Some(&possibly)) {
                        Some(Val::V(v)) => v,
                        _ => continue,
                    },
                };
                let certain = self.formula(&set.cond, true, Some(&certainly));
                members.push((value, certain));
            }
        }
        let certain = || members.iter().filter(|m| m.1).map(|m| m.0);
        let possible = || members.iter().map(|m| m.0);
        Some(match kind {
            AggKind::Max => (
                certain().max().map_or(Val::NegInf, Val::V),
                possible().max().map_or(Val::NegInf, Val::V),
            ),
            AggKind::Min => (
                possible().min().map_or(Val::PosInf, Val::V),
                certain().min().map_or(Val::PosInf, Val::V),
            ),
            _ => {
                let zero = Value::Int(0);
                let sum = |take: &dyn Fn(Value, bool) -> bool| {
                    members
                        .iter()
                        .filter(|(v, c)| take(*v, *c))
                        .try_fold(zero, |total, (v, _)| arith(ArithOp::Add, total, *v))
                };
                // The least total takes every possible negative and only the certain positives.
                let low = sum(&|v, c| c && v > zero || v < zero)?;
                let high = sum(&|v, c| c && v < zero || v > zero)?;
                (Val::V(low), Val::V(high))
            }
        })
    }

    /// A comparison with an aggregate over defined symbols, in the three-valued interpretation
    /// between the two bounds (Kleene's strong semantics extended to aggregates, as in IDP3's
    /// well-founded semantics): certainly true if true in every completion of the unknown
    /// defined atoms, possibly true if true in some. Which one is asked follows from the bound
    /// being computed and the polarity of the occurrence.
    fn supervaluate(&mut self, f: &Formula, positive: bool, ov: &Override) -> bool {
        let (lower, upper) = match ov.bound {
            Bound::Lower => (ov.pos, ov.neg),
            Bound::Upper => (ov.neg, ov.pos),
        };
        let unknown: Vec<(Symbol, Tuple)> = upper
            .iter()
            .flat_map(|(s, ts)| {
                ts.iter()
                    .filter(|t| !lower.get(s).is_some_and(|l| l.contains(*t)))
                    .map(|t| (*s, t.clone()))
            })
            .take(MAX_UNKNOWN_AGGREGATE_ATOMS + 1)
            .collect();
        assert!(
            unknown.len() <= MAX_UNKNOWN_AGGREGATE_ATOMS,
            "too many unknown atoms under an aggregate for the naive checker"
        );
        let certain = (ov.bound == Bound::Lower) == positive;
        let mut completion = lower.clone();
        for mask in 0u32..1 << unknown.len() {
            completion.clone_from(lower);
            for (k, (s, t)) in unknown.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    completion.entry(*s).or_default().insert(t.clone());
                }
            }
            let exact = Override {
                pos: &completion,
                neg: &completion,
                bound: ov.bound,
                exact: true,
            };
            let holds = self.formula(f, true, Some(&exact));
            if holds != certain {
                return holds;
            }
        }
        certain
    }

    /// The structure must equal the (two-valued) well-founded model of the definition.
    fn definition(&mut self, d: &Definition) -> Result<(), String> {
        let defined = d.defined();
        let all: HashMap<Symbol, TupleSet> =
            defined.iter().map(|s| (*s, self.all_tuples(*s))).collect();
        let mut truth = self.gamma(d, &all, Bound::Lower);
        let possible = loop {
            let possible = self.gamma(d, &truth, Bound::Upper);
            let next = self.gamma(d, &possible, Bound::Lower);
            if next == truth {
                break possible;
            }
            truth = next;
        };
        if truth != possible {
            return Err("the well-founded model is not two-valued".into());
        }
        for s in defined {
            let actual: TupleSet = self
                .structure
                .table(s)
                .map(|t| t.ct().clone())
                .unwrap_or_default();
            if actual != truth[&s] {
                return Err(format!(
                    "{} differs from its well-founded model",
                    self.program.symbol_name(s)
                ));
            }
        }
        Ok(())
    }

    fn all_tuples(&self, s: Symbol) -> TupleSet {
        let domains: Vec<Vec<Value>> = self
            .program
            .symbol_sorts(s)
            .iter()
            .map(|x| self.domain(*x))
            .collect();
        cartesian(&domains).into_iter().collect()
    }

    /// The least fixpoint of the rules when negative occurrences read `neg`. The upper bound
    /// starts from the lower bound `neg` (it contains it), so that aggregates see a
    /// well-formed three-valued interpretation.
    fn gamma(
        &mut self,
        d: &Definition,
        neg: &HashMap<Symbol, TupleSet>,
        bound: Bound,
    ) -> HashMap<Symbol, TupleSet> {
        let mut pos: HashMap<Symbol, TupleSet> = match bound {
            Bound::Lower => neg.keys().map(|s| (*s, TupleSet::default())).collect(),
            Bound::Upper => neg.clone(),
        };
        loop {
            let mut changed = false;
            for rule in &d.rules {
                let domains: Vec<Vec<Value>> =
                    rule.vars.iter().map(|v| self.domain(v.sort)).collect();
                for t in cartesian(&domains) {
                    for (v, x) in rule.vars.iter().zip(&t) {
                        self.env.insert(v.id, *x);
                    }
                    let ov = Override {
                        pos: &pos,
                        neg,
                        bound,
                        exact: false,
                    };
                    // A head `F(x) = F(c)` reads the value of `F(c)` in the body.
                    let mut derived = Vec::new();
                    let head_terms: Vec<&Term> = rule.head_args.iter().collect();
                    self.unnest(&head_terms, true, &ov, &mut |c| {
                        if let Some(head) = c.args(&rule.head_args, Some(&ov)) {
                            if !pos[&rule.head].contains(&head)
                                && c.in_sorts(rule.head, &head)
                                && c.formula(&rule.body, true, Some(&ov))
                            {
                                derived.push(head);
                            }
                        }
                        false
                    });
                    let table = pos.get_mut(&rule.head).expect("defined");
                    for head in derived {
                        changed |= table.insert(head);
                    }
                }
            }
            if !changed {
                return pos;
            }
        }
    }
}

/// The symbols that occur inside the aggregates of a term.
fn aggregate_symbols(t: &Term, out: &mut HashSet<Symbol>) {
    let mut found = rustc_hash::FxHashSet::default();
    Node::Term(t).walk(&mut |n| match n {
        Node::Term(a) if matches!(a.kind(), TermKind::Aggregate(..)) => {
            crate::sema::walk::symbols(a, &mut found);
            false
        }
        _ => true,
    });
    out.extend(found);
}

/// Counts the models of `theory` extending `structure` by trying every two-valued completion
/// of the symbols the structure leaves open (for tiny vocabularies only: `None` past `limit`
/// candidates). The oracle against which tests compare model counts.
pub fn brute_force_count(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    limit: u64,
) -> Option<u64> {
    let mut count = 0;
    brute_force(program, theory, structure, limit, &mut |_| count += 1)?;
    Some(count)
}

/// The models that [`brute_force_count`] counts, each two-valued on the open symbols.
pub fn brute_force_models(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    limit: u64,
) -> Option<Vec<Structure>> {
    let mut models = Vec::new();
    brute_force(program, theory, structure, limit, &mut |m| models.push(m))?;
    Some(models)
}

/// Hands every model found by trying each completion to `found`; `None` past `limit`
/// candidates (then nothing is tried).
fn brute_force(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    limit: u64,
    found: &mut dyn FnMut(Structure),
) -> Option<()> {
    let choices = open_choices(program, theory, structure)?;
    let total: u64 = choices
        .iter()
        .try_fold(1u64, |acc, (_, _, opts)| acc.checked_mul(opts.len() as u64))?;
    if total > limit {
        return None;
    }
    let mut index = vec![0usize; choices.len()];
    loop {
        let candidate = build_candidate(structure, &choices, &index);
        if check_model(program, theory, &candidate).is_ok() {
            found(candidate);
        }
        if !advance(&mut index, &choices) {
            return Some(());
        }
    }
}

/// One open decision: a symbol, the argument tuple, and the tuples to add for each option
/// (a predicate: nothing or the tuple; a function: one graph tuple per value, or none if partial).
type Choice = (Symbol, Tuple, Vec<Option<Tuple>>);

fn open_choices(program: &Program, theory: &Theory, structure: &Structure) -> Option<Vec<Choice>> {
    let c = Checker {
        program,
        structure,
        domains: Domains::new(program, structure),
        env: HashMap::new(),
        pinned: HashMap::new(),
    };
    let mut out = Vec::new();
    for s in crate::infer::session::interpreted_symbols(program, theory.vocabulary) {
        let known = structure.table(s);
        if known.is_some_and(|t| t.is_two_valued()) {
            continue;
        }
        let sorts = program.symbol_sorts(s);
        match s {
            Symbol::Pred(_) => {
                let domains: Vec<Vec<Value>> = sorts.iter().map(|x| c.domain(*x)).collect();
                for t in cartesian(&domains) {
                    let opts = match structure.truth(s, &t) {
                        TruthValue::True => vec![Some(t.clone())],
                        TruthValue::False => vec![None],
                        TruthValue::Unknown => vec![None, Some(t.clone())],
                    };
                    out.push((s, t, opts));
                }
            }
            Symbol::Func(f) => {
                let (args, result) = sorts.split_at(sorts.len() - 1);
                let domains: Vec<Vec<Value>> = args.iter().map(|x| c.domain(*x)).collect();
                for a in cartesian(&domains) {
                    let mut opts: Vec<Option<Tuple>> = c
                        .domain(result[0])
                        .into_iter()
                        .map(|v| {
                            let mut t = a.clone();
                            t.push(v);
                            Some(t)
                        })
                        .collect();
                    opts.retain(|o| {
                        o.as_ref()
                            .is_none_or(|t| structure.truth(s, t) != TruthValue::False)
                    });
                    if let Some(fixed) = opts.iter().find(|o| {
                        o.as_ref()
                            .is_some_and(|t| structure.truth(s, t) == TruthValue::True)
                    }) {
                        opts = vec![fixed.clone()];
                    } else if program.func(f).partial {
                        opts.push(None);
                    }
                    if opts.is_empty() {
                        // An infinite codomain cannot be enumerated (and an empty one leaves
                        // nothing to count).
                        return None;
                    }
                    out.push((s, a, opts));
                }
            }
        }
    }
    Some(out)
}

fn build_candidate(structure: &Structure, choices: &[Choice], index: &[usize]) -> Structure {
    let mut out = structure.clone();
    let mut tables: HashMap<Symbol, TupleSet> = HashMap::new();
    for ((s, _, opts), &k) in choices.iter().zip(index) {
        let set = tables.entry(*s).or_default();
        if let Some(t) = &opts[k] {
            set.insert(t.clone());
        }
    }
    for (s, set) in tables {
        out.symbols
            .insert(s, crate::structure::Table::TwoValued(set));
    }
    out
}

fn advance(index: &mut [usize], choices: &[Choice]) -> bool {
    for (k, i) in index.iter_mut().enumerate() {
        *i += 1;
        if *i < choices[k].2.len() {
            return true;
        }
        *i = 0;
    }
    false
}
