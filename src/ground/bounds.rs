//! Finite candidate values for variables over infinite sorts (`int`, `nat`, `string`, ...).
//!
//! A quantifier `? x[int] : P(x) & ...` only needs the values of `x` for which its body can be
//! true; `! x[nat] : P(x) => ...` only those for which its body can be false. This module
//! derives such a finite superset from the formula itself, evaluated under the current
//! bindings: positive atoms over finite sorts or known tables, equalities with known terms, and
//! integer intervals from comparisons. When no bound can be found grounding reports an
//! infinite domain.

use std::collections::BTreeSet;

use crate::error::IdpResult;
use crate::ground::{GVal, Grounder};
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind, Var};
use crate::sema::walk::free_vars;
use crate::structure::{Table, Value};
use crate::syntax::ast::CmpOp;

/// Largest interval enumerated for a variable bounded only by comparisons.
const MAX_INTERVAL: i64 = 1_000_000;

/// A superset of the values a variable needs: `None` is unbounded.
type Candidates = Option<BTreeSet<Value>>;

fn union(a: Candidates, b: Candidates) -> Candidates {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    Some(a)
}

fn smallest(a: Candidates, b: Candidates) -> Candidates {
    match (a, b) {
        (Some(a), Some(b)) => Some(if a.len() <= b.len() {
            a.intersection(&b).copied().collect()
        } else {
            b.intersection(&a).copied().collect()
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Integer bounds collected from comparisons in a conjunction.
struct Interval {
    lo: Option<i64>,
    hi: Option<i64>,
}

impl<'a> Grounder<'a> {
    /// Candidate values of `var` for which `f` can take the truth value `want`, or `None` if
    /// no finite bound is found.
    pub fn candidates(&mut self, var: &Var, f: &Formula, want: bool) -> IdpResult<Candidates> {
        let mut interval = Interval {
            lo: self.sort_floor(var),
            hi: None,
        };
        let c = self.gen(var, f, want, &mut interval)?;
        Ok(smallest(c, interval_values(&interval)))
    }

    fn gen(
        &mut self,
        var: &Var,
        f: &Formula,
        want: bool,
        interval: &mut Interval,
    ) -> IdpResult<Candidates> {
        Ok(match f.kind() {
            FormulaKind::Bool(b) => (*b != want).then(BTreeSet::new),
            FormulaKind::Pred(p, args) if want => self.gen_atom(var, *p, args),
            FormulaKind::Pred(..) => None,
            FormulaKind::Cmp(op, a, b) => self.gen_compare(var, *op, a, b, want, interval)?,
            FormulaKind::Not(g) => self.gen(var, g, !want, interval)?,
            FormulaKind::And(fs) if want => self.gen_all(var, fs, true)?,
            FormulaKind::Or(fs) if !want => self.gen_all(var, fs, false)?,
            FormulaKind::And(fs) | FormulaKind::Or(fs) => {
                let mut acc = Some(BTreeSet::new());
                for g in fs {
                    acc = union(acc, self.candidates(var, g, want)?);
                    if acc.is_none() {
                        break;
                    }
                }
                acc
            }
            FormulaKind::Implies(a, b) if want => union(
                self.candidates(var, a, false)?,
                self.candidates(var, b, true)?,
            ),
            FormulaKind::Implies(a, b) => smallest(
                self.candidates(var, a, true)?,
                self.candidates(var, b, false)?,
            ),
            FormulaKind::Equiv(a, b) => {
                // true: both true or both false; false: exactly one of them true.
                let same = smallest(
                    self.candidates(var, a, true)?,
                    self.candidates(var, b, want)?,
                );
                let other = smallest(
                    self.candidates(var, a, false)?,
                    self.candidates(var, b, !want)?,
                );
                union(same, other)
            }
            FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => {
                self.gen(var, g, want, interval)?
            }
        })
    }

    /// Every member of a conjunction (or, negated, a disjunction) must take `want`: any member
    /// bounds the variable, and comparisons add up to an interval.
    fn gen_all(&mut self, var: &Var, fs: &[Formula], want: bool) -> IdpResult<Candidates> {
        let mut interval = Interval {
            lo: self.sort_floor(var),
            hi: None,
        };
        let mut best: Candidates = None;
        for g in fs {
            let c = self.gen(var, g, want, &mut interval)?;
            best = smallest(best, c);
        }
        Ok(smallest(best, interval_values(&interval)))
    }

    fn gen_atom(&mut self, var: &Var, p: crate::ids::PredId, args: &[Term]) -> Candidates {
        let pred = self.program.pred(p).clone();
        let mut best: Candidates = None;
        for (k, a) in args.iter().enumerate() {
            if !matches!(a.kind(), TermKind::Var(v) if v.id == var.id) {
                continue;
            }
            let sort = pred.type_of.unwrap_or_else(|| pred.args[k]);
            let from_sort = self.domains.get(sort).map(|d| d.iter().copied().collect());
            let symbol = Symbol::Pred(p);
            let from_table = match (pred.type_of, self.structure.table(symbol)) {
                (None, Some(Table::TwoValued(set)))
                    if !self.status.forced_unknown.contains(&symbol) =>
                {
                    Some(set.iter().map(|t| t[k]).collect())
                }
                // An open predicate that sentences bound (`! x : P(x) => Q(x)`).
                (None, _) if !self.status.forced_unknown.contains(&symbol) => self
                    .status
                    .possible
                    .get(&symbol)
                    .map(|possible| possible.iter().map(|t| t[k]).collect()),
                _ => None,
            };
            best = smallest(best, smallest(from_sort, from_table));
        }
        best
    }

    fn gen_compare(
        &mut self,
        var: &Var,
        op: CmpOp,
        a: &Term,
        b: &Term,
        want: bool,
        interval: &mut Interval,
    ) -> IdpResult<Candidates> {
        let is_var = |t: &Term| matches!(t.kind(), TermKind::Var(v) if v.id == var.id);
        let (op, other) = if is_var(a) && self.is_closed(b) {
            (op, b)
        } else if is_var(b) && self.is_closed(a) {
            (mirror(op), a)
        } else {
            return Ok(None);
        };
        // The comparison that must hold.
        let op = if want { op } else { op.negation() };
        let values = self.ground_term(other)?;
        let known: Vec<Value> = values
            .0
            .iter()
            .filter_map(|(_, v)| if let GVal::V(v) = v { Some(*v) } else { None })
            .collect();
        match op {
            CmpOp::Eq => Ok(Some(known.into_iter().collect())),
            CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
                let ints: Option<Vec<i64>> = known.iter().map(|v| v.as_int()).collect();
                if let Some(ints) = ints.filter(|v| !v.is_empty()) {
                    let (min, max) = (*ints.iter().min().unwrap(), *ints.iter().max().unwrap());
                    match op {
                        CmpOp::Lt => {
                            interval.hi = Some(interval.hi.map_or(max - 1, |h| h.min(max - 1)))
                        }
                        CmpOp::Le => interval.hi = Some(interval.hi.map_or(max, |h| h.min(max))),
                        CmpOp::Gt => {
                            interval.lo = Some(interval.lo.map_or(min + 1, |l| l.max(min + 1)))
                        }
                        _ => interval.lo = Some(interval.lo.map_or(min, |l| l.max(min))),
                    }
                }
                Ok(None)
            }
            CmpOp::Ne => Ok(None),
        }
    }

    /// Bounds each open predicate over an infinite type that the joint pass left unbounded
    /// ([`Grounder::bound_definitions_jointly`]: its relaxation cannot follow a comparison),
    /// by the sentences `! x : P(x1, ..., xn) => phi` whose atom's arguments are distinct
    /// variables: to the tuples for which phi can be true ([`Grounder::candidates`], one
    /// argument after another; `p(x) => 0 =< x =< 4`). Several such sentences bound it to
    /// the tuples all of them allow.
    pub fn bound_infinite_predicates(
        &mut self,
        definitions: &[&crate::sema::ir::Definition],
        sentences: &[Formula],
    ) {
        for (symbol, bounds) in self.bounds(definitions, sentences) {
            if self.status.possible.contains_key(&symbol) || !self.has_infinite_argument(symbol) {
                continue;
            }
            let mut allowed: Option<BTreeSet<Vec<Value>>> = None;
            for bound in bounds.iter().filter(|b| b.case.is_none()) {
                let vars: Option<Vec<Var>> = (bound.args.iter())
                    .map(|a| match a.kind() {
                        TermKind::Var(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                let Some(tuples) = vars.and_then(|vars| self.tuples_where(&vars, &bound.phi))
                else {
                    continue;
                };
                allowed = Some(match allowed {
                    Some(earlier) => earlier.intersection(&tuples).cloned().collect(),
                    None => tuples,
                });
            }
            if let Some(tuples) = allowed {
                let arity = self.program.symbol_sorts(symbol).len();
                let set = super::TupleSet::of(arity, tuples.iter().map(Vec::as_slice));
                self.status.possible.insert(symbol, set);
            }
        }
    }

    /// The tuples of values of `vars` for which `phi` can be true: each variable over its
    /// sort when that is finite, else over its candidates with the variables before it bound;
    /// `None` when one has no finite bound or there are too many tuples.
    fn tuples_where(&mut self, vars: &[Var], phi: &Formula) -> Option<BTreeSet<Vec<Value>>> {
        /// Most tuples one sentence may allow.
        const MOST_TUPLES: usize = 1_000_000;
        let mut out = BTreeSet::new();
        let mut prefix = Vec::with_capacity(vars.len());
        let complete = self.extend_tuples(vars, phi, &mut prefix, &mut out, MOST_TUPLES);
        for v in vars {
            self.unbind(v);
        }
        complete.then_some(out)
    }

    /// [`Grounder::tuples_where`] for the variables after `prefix`, which are bound to it;
    /// whether every tuple was found within `room`.
    fn extend_tuples(
        &mut self,
        vars: &[Var],
        phi: &Formula,
        prefix: &mut Vec<Value>,
        out: &mut BTreeSet<Vec<Value>>,
        room: usize,
    ) -> bool {
        let Some(var) = vars.get(prefix.len()) else {
            out.insert(prefix.clone());
            return out.len() <= room;
        };
        let values: Vec<Value> = match self.domains.get(var.sort) {
            Some(domain) => domain.to_vec(),
            None => match self.candidates(var, phi, true) {
                Ok(Some(values)) => values.into_iter().collect(),
                _ => return false,
            },
        };
        for value in values {
            if !self.domains.contains(var.sort, value) {
                continue;
            }
            self.bind(var, value);
            prefix.push(value);
            let complete = self.extend_tuples(vars, phi, prefix, out, room);
            prefix.pop();
            self.unbind(var);
            if !complete {
                return false;
            }
        }
        true
    }

    /// Bounds the functions of an infinite value type that a top-level sentence fixes: a
    /// constant by `N = t` (or `t = N`), a function by `! x y : f(x, y) = t` (IDP-Z3's
    /// `!sx, sy in solution: distance(sx, sy) = #{c in country: ...}`, the quantified
    /// variables ranging over the argument types), to the values `t` can take under each
    /// binding, when `t` does not mention `f` and grounds to finitely many values
    /// (`MAX[:Player]`, an aggregate over finite sets). Every model gives each tuple of `f` one
    /// of them, so grounding `f` over them keeps the models. IDP3 does not ground such a
    /// constant over its type either: with `cpsupport` (on by default) an integer function is
    /// a CP variable bounded by what the theory says of it (`CPSupport::eligibleForCP` in
    /// `src/inferences/grounding/GroundTranslator.cpp` and `GrounderFactory.cpp`). Repeated
    /// while it bounds more: `t` may use a function bounded by another sentence.
    pub fn bound_constants(&mut self, sentences: &[Formula]) {
        while self.bound_constants_once(sentences) {}
    }

    /// One pass of [`Grounder::bound_constants`]; whether it bounded a function.
    fn bound_constants_once(&mut self, sentences: &[Formula]) -> bool {
        let mut progress = false;
        let mut conjuncts: Vec<Conjunct> = sentences
            .iter()
            .map(|f| Conjunct {
                universal: Vec::new(),
                existential: Vec::new(),
                formula: f,
            })
            .collect();
        while let Some(conjunct) = conjuncts.pop() {
            let Conjunct {
                universal,
                existential,
                formula,
            } = conjunct;
            let (a, b) = match formula.kind() {
                FormulaKind::And(fs) => {
                    conjuncts.extend(fs.iter().map(|g| Conjunct {
                        universal: universal.clone(),
                        existential: existential.clone(),
                        formula: g,
                    }));
                    continue;
                }
                FormulaKind::Forall(vs, body) if existential.is_empty() => {
                    let mut inner = universal.clone();
                    inner.extend(vs);
                    conjuncts.push(Conjunct {
                        universal: inner,
                        existential,
                        formula: body,
                    });
                    continue;
                }
                FormulaKind::Exists(vs, body) => {
                    let mut inner = existential.clone();
                    inner.extend(vs);
                    conjuncts.push(Conjunct {
                        universal,
                        existential: inner,
                        formula: body,
                    });
                    continue;
                }
                FormulaKind::Cmp(CmpOp::Eq, a, b) => (a, b),
                _ => continue,
            };
            for (c, t) in [(a, b), (b, a)] {
                let TermKind::Func(g, args) = c.kind() else {
                    continue;
                };
                let g = *g;
                if self.constants.contains_key(&g)
                    || self.domains.get(self.program.func(g).result).is_some()
                    || mentions(t, g)
                    || !self.covers_arguments(g, args, &universal)
                {
                    continue;
                }
                let mut vars = universal.clone();
                vars.extend(&existential);
                let union = !existential.is_empty();
                if let Some((values, per_tuple)) = self.values_over(&vars, args, t, union) {
                    // Only values of the function's type: `x = 7/2` leaves an `int` no value.
                    let result = self.program.func(g).result;
                    let typed = |mut values: Vec<Value>| {
                        values.retain(|&v| self.domains.contains(result, v));
                        values
                    };
                    self.constants.insert(g, typed(values).into());
                    for (tuple, values) in per_tuple {
                        self.applications.insert((g, tuple), typed(values).into());
                    }
                    progress = true;
                }
            }
        }
        progress
    }

    /// Whether `args` are distinct variables among `vars`, each over the whole argument type
    /// of `g`, so that a sentence `! vars : g(args) = t` speaks of every tuple of `g`.
    fn covers_arguments(&self, g: crate::ids::FuncId, args: &[Term], vars: &[&Var]) -> bool {
        let sorts = &self.program.func(g).args;
        let mut seen = Vec::new();
        args.len() == sorts.len()
            && args.iter().zip(sorts).all(|(a, &s)| match a.kind() {
                TermKind::Var(v) if v.sort == s && vars.iter().any(|w| w.id == v.id) => {
                    let fresh = !seen.contains(&v.id);
                    seen.push(v.id);
                    fresh
                }
                _ => false,
            })
    }

    /// The values `t` can take for every binding of `vars` over their (finite) sorts, sorted,
    /// and those for each tuple of values of `args` (variables among `vars`): under an
    /// existential quantifier (`union`), every value some binding of the tuple gives; under
    /// universal ones alone, those of its last binding (each binding must give the value).
    /// `None` when a sort is infinite or empty, there are too many bindings, or `t` does not
    /// ground.
    #[allow(clippy::type_complexity)]
    fn values_over(
        &mut self,
        vars: &[&Var],
        args: &[Term],
        t: &Term,
        union: bool,
    ) -> Option<(Vec<Value>, Vec<(Vec<Value>, Vec<Value>)>)> {
        /// Most bindings tried for one sentence.
        const MAX_BINDINGS: usize = 100_000;
        let mut domains = Vec::new();
        let mut count: usize = 1;
        for v in vars {
            let d = self.domains.get(v.sort)?;
            count = count.checked_mul(d.len())?;
            domains.push(d);
        }
        if count == 0 || count > MAX_BINDINGS {
            return None;
        }
        let mut values = Vec::new();
        let mut per_tuple: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
        let mut ok = true;
        let mut index = vec![0usize; vars.len()];
        'bindings: for _ in 0..count {
            for (k, v) in vars.iter().enumerate() {
                self.bind(v, domains[k][index[k]]);
            }
            if !self.is_closed(t) {
                ok = false;
                break 'bindings;
            }
            match self.ground_term(t) {
                Ok(ground) => {
                    let tuple: Vec<Value> = args
                        .iter()
                        .filter_map(|a| match a.kind() {
                            TermKind::Var(v) => self.lookup(v),
                            _ => None,
                        })
                        .collect();
                    let mut these: Vec<Value> = ground
                        .0
                        .iter()
                        .filter_map(|(_, v)| match v {
                            GVal::V(v) => Some(*v),
                            _ => None,
                        })
                        .collect();
                    these.sort();
                    these.dedup();
                    values.extend(these.iter().copied());
                    per_tuple.push((tuple, these));
                }
                Err(_) => {
                    ok = false;
                    break 'bindings;
                }
            }
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < domains[k].len() {
                    break;
                }
                index[k] = 0;
            }
        }
        for v in vars {
            self.unbind(v);
        }
        if !ok {
            return None;
        }
        values.sort();
        values.dedup();
        if union {
            per_tuple = union_per_tuple(per_tuple);
        }
        Some((values, per_tuple))
    }

    /// Whether every variable of `t` is bound (variables of an aggregate's own sets excepted).
    pub fn is_closed(&self, t: &Term) -> bool {
        let mut closed = true;
        free_vars(t, &mut |v| closed = closed && self.lookup(v).is_some());
        closed
    }

    /// The least value of a variable's sort when it is bounded below (`nat`).
    fn sort_floor(&self, var: &Var) -> Option<i64> {
        let nat = self.program.builtin("nat");
        self.program.is_subsort(var.sort, nat).then_some(0)
    }
}

/// A conjunct of a top-level sentence, under the quantifiers it is nested in: universal ones
/// first, then existential ones (a universal quantifier under an existential one ends the
/// walk).
struct Conjunct<'f> {
    universal: Vec<&'f Var>,
    existential: Vec<&'f Var>,
    formula: &'f Formula,
}

/// The values of each tuple merged over the bindings that give that tuple.
fn union_per_tuple(mut per_tuple: Vec<(Vec<Value>, Vec<Value>)>) -> Vec<(Vec<Value>, Vec<Value>)> {
    per_tuple.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
    for (tuple, values) in per_tuple {
        match merged.last_mut() {
            Some((last, all)) if *last == tuple => {
                all.extend(values);
                all.sort();
                all.dedup();
            }
            _ => merged.push((tuple, values)),
        }
    }
    merged
}

fn interval_values(i: &Interval) -> Candidates {
    let (lo, hi) = (i.lo?, i.hi?);
    if hi < lo {
        return Some(BTreeSet::new());
    }
    (hi - lo <= MAX_INTERVAL).then(|| (lo..=hi).map(Value::Int).collect())
}

fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// Whether `t` applies function `f` anywhere.
fn mentions(t: &Term, f: crate::ids::FuncId) -> bool {
    crate::sema::walk::any_term(
        t,
        &mut |x| matches!(x.kind(), TermKind::Func(g, _) if *g == f),
    )
}
