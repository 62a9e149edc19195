//! Grounding aggregates (`#`, `sum`, `prod`, `min`, `max`) into ground terms.
//!
//! The set is instantiated first: one element per binding of the set's variables, each with a
//! condition and a ground value. `#`, `sum` and `prod` are then built by a dynamic programme over
//! the elements (a decision diagram on the running total: each state is a partial value with the
//! condition of reaching it), which shares structure through the hash-consed store. `min` and
//! `max` take a value when an element with that value is in the set and none beyond it is.
//!
//! A sum of non-negative values (or a count) compared with a known number is grounded as the
//! threshold `total >= k` instead: a decision diagram whose nodes say "the elements from `i` on
//! total at least `r`". Unit propagation on its clauses is complete for the comparison (an
//! element that would pass the bound is made false as soon as the elements already in do),
//! which the running-total diagram, whose states say "the elements before `i` total exactly
//! `s`", is not.

use std::collections::BTreeMap;

use crate::error::{Error, IdpResult, Limit};
use crate::ground::store::Gf;
use crate::ground::terms::arith;
use crate::ground::thresholds;
use crate::ground::{GTerm, GVal, Grounder};
use crate::sema::ir::{NodeId, SetExpr, Term, TermKind};
use crate::sema::walk::Node;
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp};

/// Largest number of distinct partial totals tracked before grounding gives up.
pub(crate) const MAX_AGGREGATE_STATES: usize = 200_000;

/// Up to which total two counts or sums are compared for equality threshold by threshold
/// (see `equal_totals`); beyond, by their values.
const EQUAL_BY_THRESHOLDS_AT_MOST: i64 = 256;

/// What the elements can total at most, when every value is a non-negative integer.
fn reach(elements: &[Element]) -> Option<i64> {
    let mut total = 0i64;
    for element in elements {
        let mut top = 0i64;
        for (_, v) in element {
            match v {
                Value::Int(i) if *i >= 0 => top = top.max(*i),
                _ => return None,
            }
        }
        total = total.saturating_add(top);
    }
    Some(total)
}

/// The guards of the cases with a positive value (`total >= 1` is their disjunction, one
/// clause instead of a chain of nodes); `None` when a value is negative or not an integer.
fn some_positive(elements: &[Element]) -> Option<Vec<Gf>> {
    let mut guards = Vec::new();
    for &(g, ref v) in elements.iter().flatten() {
        match v {
            Value::Int(i) if *i > 0 => guards.push(g),
            Value::Int(0) => {}
            _ => return None,
        }
    }
    Some(guards)
}

/// Up to how many elements "at least two" of a count is the disjunction of their pairs (15
/// at most) rather than a diagram of its running total (about twice as many nodes as
/// elements, each a variable).
const PAIRWISE_AT_MOST: usize = 6;

/// One element of an aggregate's set: its value cases, each guarded by the element's condition.
pub(crate) type Element = Vec<(Gf, Value)>;

/// An objective that totals non-negative integers: the cases `(guard, value)` of each element
/// of its set (at most one holds per element), and whether the objective is their total's
/// negation (as `maximize` minimises it).
pub struct LinearObjective {
    pub elements: Vec<Vec<(Gf, i64)>>,
    pub negated: bool,
}

impl LinearObjective {
    /// The total of a model in which `holds` tells which guards are true.
    pub fn total(&self, holds: &mut dyn FnMut(Gf) -> bool) -> i64 {
        self.elements
            .iter()
            .filter_map(|cases| cases.iter().find(|(g, _)| holds(*g)))
            .fold(0i64, |sum, &(_, v)| sum.saturating_add(v))
    }
}

impl<'a> Grounder<'a> {
    /// Grounds the aggregate term `id`; `cap` (for `#` only) merges all counts above it.
    pub fn ground_aggregate(
        &mut self,
        id: NodeId,
        kind: AggKind,
        sets: &[SetExpr],
        cap: Option<i64>,
    ) -> IdpResult<GTerm> {
        // An aggregate inside a quantifier that it does not depend on is grounded only once.
        let key = self.memo_key(id, |out| {
            for set in sets {
                crate::sema::walk::var_ids(Node::Set(set), out);
            }
        });
        if let Some(t) = self.memo.aggregates.get(&(key.clone(), cap)) {
            return Ok(t.clone());
        }
        let t = self.ground_aggregate_uncached(kind, sets, cap)?;
        self.memo.aggregates.insert((key, cap), t.clone());
        Ok(t)
    }

    /// `aggregate >= threshold` for a count or a sum (`kind`) whose values are all
    /// non-negative integers; `None` when some value is not.
    pub fn ground_at_least(
        &mut self,
        id: NodeId,
        kind: AggKind,
        sets: &[SetExpr],
        threshold: i64,
    ) -> IdpResult<Option<Gf>> {
        let key = self.memo_key(id, |out| {
            for set in sets {
                crate::sema::walk::var_ids(Node::Set(set), out);
            }
        });
        if let Some(&g) = self.memo.thresholds.get(&(key.clone(), threshold)) {
            return Ok(g);
        }
        let elements = self.ground_set_elements(kind, sets)?;
        let whole = self.whole_thresholds_allowed;
        let g = self.at_least(&elements, threshold, whole)?;
        self.memo.thresholds.insert((key, threshold), g);
        Ok(g)
    }

    /// A count or sum `term` (or the negation of one, `maximize`'s objective) whose values are
    /// all non-negative integers, as its elements, each with its cases `(guard, value)`, and
    /// whether it is negated; `None` for any other term.
    pub fn linear_objective(&mut self, term: &Term) -> IdpResult<Option<LinearObjective>> {
        let (inner, negated) = match term.kind() {
            TermKind::Neg(inner) => (inner.as_ref(), true),
            _ => (term, false),
        };
        let TermKind::Aggregate(kind @ (AggKind::Card | AggKind::Sum), sets) = inner.kind() else {
            return Ok(None);
        };
        let mut elements = Vec::new();
        for element in self.ground_set_elements(*kind, sets)? {
            let mut cases = Vec::with_capacity(element.len());
            for (guard, value) in element {
                let Value::Int(v @ 0..) = value else {
                    return Ok(None);
                };
                cases.push((guard, v));
            }
            elements.push(cases);
        }
        Ok(Some(LinearObjective { elements, negated }))
    }

    /// Whether the objective's elements total at least `threshold` (a decision diagram
    /// whose nodes the diagrams of other thresholds share).
    pub fn objective_at_least(
        &mut self,
        objective: &LinearObjective,
        threshold: i64,
    ) -> IdpResult<Gf> {
        let elements: Vec<Element> = objective
            .elements
            .iter()
            .map(|e| e.iter().map(|&(g, v)| (g, Value::Int(v))).collect())
            .collect();
        Ok(self
            .at_least(&elements, threshold, false)?
            .unwrap_or(Gf::FALSE))
    }

    /// Whether the elements total at least `threshold`, as a decision diagram over them:
    /// node `(i, r)` is "the elements from `i` on total at least `r`", true once `r <= 0`,
    /// false once `r` passes what they can total, else node `(i + 1, r)` or one of element
    /// `i`'s cases with node `(i + 1, r - value)`. The values must not be negative (then
    /// `(i + 1, r)` implies every `(i + 1, r - value)`, and the cases need no "none of
    /// them" guard); `None` when one is, or is not an integer. With `whole`, a diagram of
    /// more than [`thresholds::WHOLE_ABOVE`] nodes is one atom instead ([`super::thresholds`]).
    pub(super) fn at_least(
        &mut self,
        elements: &[Element],
        threshold: i64,
        whole: bool,
    ) -> IdpResult<Option<Gf>> {
        if threshold == 1 {
            return Ok(some_positive(elements).map(|guards| self.store.or(guards)));
        }
        if let Some(pairs) = self.some_pair(elements, threshold) {
            return Ok(Some(pairs));
        }
        let mut values: Vec<Vec<(Gf, i64)>> = Vec::with_capacity(elements.len());
        for element in elements {
            let mut cases = Vec::with_capacity(element.len());
            for &(g, v) in element {
                match v {
                    Value::Int(i) if i >= 0 => cases.push((g, i)),
                    _ => return Ok(None),
                }
            }
            values.push(cases);
        }
        // What the elements from `i` on can total at most.
        let mut reach = vec![0i64; values.len() + 1];
        for i in (0..values.len()).rev() {
            let top = values[i].iter().map(|&(_, v)| v).max().unwrap_or(0);
            reach[i] = reach[i + 1].saturating_add(top);
        }
        // The thresholds each level needs, from the top down (those decided are left out).
        let open = |i: usize, r: i64| r > 0 && r <= reach[i];
        let mut needed: Vec<Vec<i64>> = vec![Vec::new(); values.len() + 1];
        if open(0, threshold) {
            needed[0].push(threshold);
        }
        for i in 0..values.len() {
            let mut next: Vec<i64> = Vec::new();
            for &r in &needed[i] {
                next.push(r);
                next.extend(values[i].iter().map(|&(_, v)| r - v));
            }
            next.retain(|&r| open(i + 1, r));
            next.sort_unstable();
            next.dedup();
            if next.len() > MAX_AGGREGATE_STATES {
                return Err(Error::limit(Limit::AggregateSize, format!(
                    "an aggregate has more than {MAX_AGGREGATE_STATES} possible values; it is too large to ground"
                )));
            }
            needed[i + 1] = next;
        }
        let nodes: usize = needed.iter().map(Vec::len).sum();
        if whole && threshold > 0 && nodes > thresholds::WHOLE_ABOVE {
            let terms = values
                .iter()
                .flatten()
                .filter(|&&(_, v)| v > 0)
                .map(|&(g, v)| (g, v as u64))
                .collect();
            return Ok(Some(self.whole_threshold(terms, threshold as u64)));
        }
        // From the bottom up: the nodes of level `i + 1` by threshold.
        let mut below: BTreeMap<i64, Gf> = BTreeMap::new();
        for i in (0..values.len()).rev() {
            let node = |below: &BTreeMap<i64, Gf>, r: i64| {
                if r <= 0 {
                    Gf::TRUE
                } else {
                    below.get(&r).copied().unwrap_or(Gf::FALSE)
                }
            };
            let mut level = BTreeMap::new();
            for &r in &needed[i] {
                let mut options = vec![node(&below, r)];
                for &(guard, v) in &values[i] {
                    let rest = node(&below, r - v);
                    options.push(self.store.and2(guard, rest));
                }
                level.insert(r, self.store.or(options));
            }
            below = level;
            self.check_growth()?;
        }
        Ok(Some(if threshold <= 0 {
            Gf::TRUE
        } else {
            below.get(&threshold).copied().unwrap_or(Gf::FALSE)
        }))
    }

    /// Whether two counts or sums (`kind_a` over `sets_a`, `kind_b` over `sets_b`) are equal,
    /// as `a >= t <=> b >= t` for every threshold `t` up to what the larger can reach: the
    /// diagrams of one side share their nodes across thresholds, and the equivalences tie
    /// the two sides' running totals together without a node per common value. `None` when
    /// a value is negative or not an integer, or the totals reach past
    /// [`EQUAL_BY_THRESHOLDS_AT_MOST`].
    pub(crate) fn equal_totals(
        &mut self,
        kind_a: AggKind,
        sets_a: &[SetExpr],
        kind_b: AggKind,
        sets_b: &[SetExpr],
    ) -> IdpResult<Option<Gf>> {
        let a = self.ground_set_elements(kind_a, sets_a)?;
        let b = self.ground_set_elements(kind_b, sets_b)?;
        let (Some(reach_a), Some(reach_b)) = (reach(&a), reach(&b)) else {
            return Ok(None);
        };
        let top = reach_a.max(reach_b);
        if top > EQUAL_BY_THRESHOLDS_AT_MOST {
            return Ok(None);
        }
        let mut equivalences = Vec::with_capacity(top as usize);
        for t in 1..=top {
            let (Some(ga), Some(gb)) = (self.at_least(&a, t, false)?, self.at_least(&b, t, false)?)
            else {
                return Ok(None);
            };
            equivalences.push(self.store.equiv(ga, gb));
        }
        Ok(Some(self.store.and(equivalences)))
    }

    /// `count >= 2` over at most [`PAIRWISE_AT_MOST`] elements that each count 1 under one
    /// guard, as "some two of them hold": negated (at most one, as in `?1` and `#{..} =< 1`)
    /// it is one binary clause per pair, with no variable for the count's states.
    fn some_pair(&mut self, elements: &[Element], threshold: i64) -> Option<Gf> {
        if threshold != 2 || elements.len() > PAIRWISE_AT_MOST {
            return None;
        }
        let mut guards = Vec::with_capacity(elements.len());
        for element in elements {
            match element.as_slice() {
                [(g, Value::Int(1))] => guards.push(*g),
                _ => return None,
            }
        }
        let mut pairs = Vec::new();
        for (i, &a) in guards.iter().enumerate() {
            for &b in &guards[i + 1..] {
                pairs.push(self.store.and2(a, b));
            }
        }
        let some = self.store.or(pairs);
        self.memo.pairwise.insert(some);
        Some(some)
    }

    /// Whether `g` is a threshold that [`Grounder::some_pair`] built.
    pub(crate) fn is_pairwise(&self, g: Gf) -> bool {
        self.memo.pairwise.contains(&g)
    }

    fn ground_aggregate_uncached(
        &mut self,
        kind: AggKind,
        sets: &[SetExpr],
        cap: Option<i64>,
    ) -> IdpResult<GTerm> {
        let elements = self.ground_set_elements(kind, sets)?;
        match kind {
            AggKind::Card | AggKind::Sum => self.fold(elements, Value::Int(0), ArithOp::Add, cap),
            AggKind::Prod => self.fold(elements, Value::Int(1), ArithOp::Mul, None),
            AggKind::Min => Ok(self.extremum(elements, false)),
            AggKind::Max => Ok(self.extremum(elements, true)),
        }
    }

    pub(crate) fn ground_set_elements(
        &mut self,
        kind: AggKind,
        sets: &[SetExpr],
    ) -> IdpResult<Vec<Element>> {
        let mut out = Vec::new();
        for set in sets {
            self.for_each_candidate(&set.vars, &set.cond, &mut |g: &mut Grounder<'a>, known| {
                let cond = g.condition(known, &set.cond)?;
                if cond == Gf::FALSE {
                    return Ok(false);
                }
                let value = if kind == AggKind::Card {
                    GTerm::known(Value::Int(1))
                } else {
                    g.ground_term(&set.term)?
                };
                let mut element = Vec::with_capacity(value.0.len());
                for (guard, v) in value.0 {
                    let GVal::V(v) = v else { continue };
                    let both = g.store.and2(cond, guard);
                    if both != Gf::FALSE {
                        element.push((both, v));
                    }
                }
                if !element.is_empty() {
                    out.push(element);
                }
                Ok(false)
            })?;
        }
        Ok(out)
    }

    /// The running total over the elements: for each element, either one of its cases holds
    /// (the total moves by that value) or none does (the total stays).
    fn fold(
        &mut self,
        elements: Vec<Element>,
        unit: Value,
        op: ArithOp,
        cap: Option<i64>,
    ) -> IdpResult<GTerm> {
        // A cap merges the totals beyond it, right only while the totals never go down.
        let cap = cap.filter(|_| {
            op == ArithOp::Add
                && elements
                    .iter()
                    .flatten()
                    .all(|(_, v)| matches!(v, Value::Int(i) if *i >= 0))
        });
        let mut states: BTreeMap<Value, Gf> = BTreeMap::from([(unit, Gf::TRUE)]);
        for element in elements {
            let none = {
                let any = self.store.or(element.iter().map(|(g, _)| *g));
                -any
            };
            let mut next: BTreeMap<Value, Vec<Gf>> = BTreeMap::new();
            for (&total, &reach) in &states {
                if none != Gf::FALSE {
                    let g = self.store.and2(reach, none);
                    next.entry(total).or_default().push(g);
                }
                for &(guard, v) in &element {
                    // A total that overflows the integers has no value: that branch is dropped.
                    let Some(mut t) = arith(op, total, v) else {
                        continue;
                    };
                    if let (Some(c), Value::Int(i)) = (cap, t) {
                        t = Value::Int(i.min(c));
                    }
                    let g = self.store.and2(reach, guard);
                    next.entry(t).or_default().push(g);
                }
            }
            states = BTreeMap::new();
            for (v, gs) in next {
                let g = self.store.or(gs);
                if g != Gf::FALSE {
                    states.insert(v, g);
                }
            }
            if states.len() > MAX_AGGREGATE_STATES {
                return Err(Error::limit(Limit::AggregateSize, format!(
                    "an aggregate has more than {MAX_AGGREGATE_STATES} possible values; it is too large to ground"
                )));
            }
            self.check_growth()?;
        }
        Ok(GTerm(
            states.into_iter().map(|(v, g)| (g, GVal::V(v))).collect(),
        ))
    }

    /// `max` (or `min` when `largest` is false): value `v` when some element with value `v` is
    /// in the set and no element beyond `v` is; −∞ (+∞) when the set is empty.
    fn extremum(&mut self, elements: Vec<Element>, largest: bool) -> GTerm {
        let mut by_value: BTreeMap<Value, Vec<Gf>> = BTreeMap::new();
        for element in &elements {
            for &(g, v) in element {
                by_value.entry(v).or_default().push(g);
            }
        }
        let mut ordered: Vec<(Value, Gf)> = Vec::new();
        for (v, gs) in by_value {
            let g = self.store.or(gs);
            ordered.push((v, g));
        }
        if largest {
            ordered.reverse();
        }
        let mut out = Vec::new();
        let mut none_beyond = Gf::TRUE;
        for (v, present) in ordered {
            let g = self.store.and2(present, none_beyond);
            if g != Gf::FALSE {
                out.push((g, GVal::V(v)));
            }
            none_beyond = self.store.and2(none_beyond, -present);
        }
        if none_beyond != Gf::FALSE {
            out.push((
                none_beyond,
                if largest { GVal::NegInf } else { GVal::PosInf },
            ));
        }
        out.sort_by_key(|(_, v)| *v);
        GTerm(out)
    }
}
