//! Comparisons of aggregates over the defined symbols of the definition being grounded.
//!
//! Under the well-founded semantics a rule body is read in three-valued logic, and an
//! aggregate over atoms that are still unknown takes the bounds approximation (Pelov,
//! Denecker, Bruynooghe, 2007): each set element is certainly in, possibly in or out by
//! Kleene's logic on its condition, the aggregate lies between the least and the greatest
//! value those memberships allow, and `agg op c` is true when it holds for every value of that
//! interval, false when for none. The value cases that [`Grounder::ground_aggregate`] builds
//! mention each membership both ways (`m & rest | ~m & rest`), so Kleene's logic on them is
//! weaker than these bounds: `max{x : D & x < 2} < 2` would stay unknown while `D` is.
//!
//! Here such comparisons are built from monotone pieces instead, whose Kleene value is
//! exactly the bounds approximation: `max ≥ c` is the disjunction of the memberships of the
//! elements of value `c` or more, `sum ≥ c` a decision diagram on the running total in which
//! each membership occurs once and positively (an element of negative weight through its
//! complement), and `=`, `<`, `>` combine two of them. `prod` keeps the value cases.

use std::collections::BTreeMap;

use crate::error::{Error, IdpResult, Limit};
use crate::ground::aggregates::MAX_AGGREGATE_STATES;
use crate::ground::store::Gf;
use crate::ground::terms::arith;
use crate::ground::{GVal, Grounder};
use crate::sema::ir::{Term, TermKind};
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// The three comparisons the others negate ([`CmpOp::positive_form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    Eq,
    Lt,
    Gt,
}

impl Relation {
    /// The relation and whether the comparison negates it.
    fn of(op: CmpOp) -> (Relation, bool) {
        let (base, negated) = op.positive_form();
        let relation = match base {
            CmpOp::Lt => Relation::Lt,
            CmpOp::Gt => Relation::Gt,
            _ => Relation::Eq,
        };
        (relation, negated)
    }

    /// `b R a` written as `a R' b`.
    fn flipped(self) -> Relation {
        match self {
            Relation::Eq => Relation::Eq,
            Relation::Lt => Relation::Gt,
            Relation::Gt => Relation::Lt,
        }
    }
}

/// Every value case of every set element, as (membership, value). The cases of one element
/// exclude each other, so a sum over the cases is the sum over the elements.
type Cases = Vec<(Gf, Value)>;

impl<'a> Grounder<'a> {
    /// Whether `t` is an aggregate (other than `prod`) whose set reads a symbol of the
    /// definition whose rules are being grounded.
    pub fn aggregates_over_defining(&mut self, t: &Term) -> bool {
        let TermKind::Aggregate(kind, _) = t.kind() else {
            return false;
        };
        if self.defining.is_empty() || *kind == AggKind::Prod {
            return false;
        }
        if let Some(&reads) = self.memo.reads_defining.get(&t.id()) {
            return reads;
        }
        let mut symbols = rustc_hash::FxHashSet::default();
        crate::sema::walk::symbols(t, &mut symbols);
        let reads = self.defining.iter().any(|s| symbols.contains(s));
        self.memo.reads_defining.insert(t.id(), reads);
        reads
    }

    /// `agg op other` (`agg_left`) or `other op agg`, with the aggregate's bounds semantics in
    /// Kleene's logic; `None` when the other side takes an infinite value or a total overflows
    /// (then the value cases are used).
    pub fn ground_bounded_comparison(
        &mut self,
        op: CmpOp,
        agg: &Term,
        other: &Term,
        agg_left: bool,
    ) -> IdpResult<Option<Gf>> {
        let TermKind::Aggregate(kind, sets) = agg.kind() else {
            return Ok(None);
        };
        let other = self.ground_term(other)?;
        let cases: Cases = self
            .ground_set_elements(*kind, sets)?
            .into_iter()
            .flatten()
            .collect();
        let (relation, negated) = Relation::of(op);
        let relation = if agg_left {
            relation
        } else {
            relation.flipped()
        };
        let mut out = Vec::with_capacity(other.0.len());
        for &(guard, value) in &other.0 {
            let GVal::V(c) = value else {
                return Ok(None);
            };
            let Some(holds) = self.aggregate_relation(*kind, &cases, relation, c)? else {
                return Ok(None);
            };
            out.push(self.store.and2(guard, holds));
        }
        let g = self.store.or(out);
        Ok(Some(if negated { -g } else { g }))
    }

    /// `agg R c` for the aggregate of `kind` over `cases`.
    fn aggregate_relation(
        &mut self,
        kind: AggKind,
        cases: &Cases,
        relation: Relation,
        c: Value,
    ) -> IdpResult<Option<Gf>> {
        Ok(Some(match kind {
            AggKind::Max => {
                let above = self.some_case(cases, |v| v > c);
                let at_least = self.some_case(cases, |v| v >= c);
                match relation {
                    Relation::Gt => above,
                    Relation::Lt => -at_least,
                    Relation::Eq => self.store.and2(at_least, -above),
                }
            }
            AggKind::Min => {
                let below = self.some_case(cases, |v| v < c);
                let at_most = self.some_case(cases, |v| v <= c);
                match relation {
                    Relation::Lt => below,
                    Relation::Gt => -at_most,
                    Relation::Eq => self.store.and2(at_most, -below),
                }
            }
            AggKind::Card | AggKind::Sum => {
                // Only the diagrams the relation needs: `>` is `sum > c`, `<` is `~(sum >= c)`.
                let at_least = match relation {
                    Relation::Gt => None,
                    _ => match self.sum_at_least(cases, c, false)? {
                        Some(g) => Some(g),
                        None => return Ok(None),
                    },
                };
                let above = match relation {
                    Relation::Lt => None,
                    _ => match self.sum_at_least(cases, c, true)? {
                        Some(g) => Some(g),
                        None => return Ok(None),
                    },
                };
                match (at_least, above) {
                    (Some(at_least), Some(above)) => self.store.and2(at_least, -above),
                    (Some(at_least), None) => -at_least,
                    (None, Some(above)) => above,
                    (None, None) => unreachable!("every relation needs a diagram"),
                }
            }
            AggKind::Prod => return Ok(None),
        }))
    }

    /// Whether some element with a value satisfying `test` is in the set.
    fn some_case(&mut self, cases: &Cases, test: impl Fn(Value) -> bool) -> Gf {
        let members: Vec<Gf> = cases
            .iter()
            .filter(|(_, v)| test(*v))
            .map(|(g, _)| *g)
            .collect();
        self.store.or(members)
    }

    /// `sum ≥ c` (`sum > c` when `strict`). An element of negative weight `v` counts `-v`
    /// when it is out of the set, against a threshold raised by `-v`, so that every weight is
    /// positive and the diagram is monotone in its literals.
    fn sum_at_least(&mut self, cases: &Cases, c: Value, strict: bool) -> IdpResult<Option<Gf>> {
        let mut weighted: Vec<(Gf, Value)> = Vec::with_capacity(cases.len());
        let mut need = c;
        for &(g, v) in cases {
            if v > Value::Int(0) {
                weighted.push((g, v));
            } else if v < Value::Int(0) {
                let (Some(w), Some(n)) = (
                    arith(ArithOp::Sub, Value::Int(0), v),
                    arith(ArithOp::Sub, need, v),
                ) else {
                    return Ok(None);
                };
                weighted.push((-g, w));
                need = n;
            }
        }
        // Heavy elements first: thresholds are decided sooner.
        weighted.sort_by_key(|&(_, w)| std::cmp::Reverse(w));
        self.weights_reach(&weighted, need, strict)
    }

    /// The decision diagram of `Σ w·[lit] ≥ need` (`>` when `strict`) over positive weights,
    /// built layer by layer: the thresholds still open before each literal, then their
    /// formulas from the last literal back.
    fn weights_reach(
        &mut self,
        weighted: &[(Gf, Value)],
        need: Value,
        strict: bool,
    ) -> IdpResult<Option<Gf>> {
        // What the literals from position i on can add at most (`None`: past the integers).
        let mut reachable: Vec<Option<Value>> = vec![Some(Value::Int(0)); weighted.len() + 1];
        for i in (0..weighted.len()).rev() {
            reachable[i] = reachable[i + 1].and_then(|r| arith(ArithOp::Add, r, weighted[i].1));
        }
        let met = |n: Value| {
            if strict {
                n < Value::Int(0)
            } else {
                n <= Value::Int(0)
            }
        };
        let hopeless = |i: usize, n: Value| match reachable[i] {
            Some(r) if strict => r <= n,
            Some(r) => r < n,
            None => false,
        };
        let decided = |i: usize, n: Value| -> Option<Gf> {
            if met(n) {
                Some(Gf::TRUE)
            } else if hopeless(i, n) {
                Some(Gf::FALSE)
            } else {
                None
            }
        };
        if let Some(g) = decided(0, need) {
            return Ok(Some(g));
        }
        let mut layers: Vec<Vec<Value>> = vec![vec![need]];
        for (i, &(_, w)) in weighted.iter().enumerate() {
            let mut next = std::collections::BTreeSet::new();
            for &n in &layers[i] {
                let Some(rest) = arith(ArithOp::Sub, n, w) else {
                    return Ok(None);
                };
                for candidate in [n, rest] {
                    if decided(i + 1, candidate).is_none() {
                        next.insert(candidate);
                    }
                }
            }
            if next.len() > MAX_AGGREGATE_STATES {
                return Err(Error::limit(Limit::AggregateSize, format!(
                    "an aggregate has more than {MAX_AGGREGATE_STATES} possible partial totals; it is too large to ground"
                )));
            }
            layers.push(next.into_iter().collect());
        }
        let mut below: BTreeMap<Value, Gf> = BTreeMap::new();
        for i in (0..weighted.len()).rev() {
            let (lit, w) = weighted[i];
            let mut here = BTreeMap::new();
            for &n in &layers[i] {
                let rest = arith(ArithOp::Sub, n, w).expect("computed going down");
                let value_at = |m: Value| decided(i + 1, m).unwrap_or_else(|| below[&m]);
                let (without, with) = (value_at(n), value_at(rest));
                let taken = self.store.and2(lit, with);
                here.insert(n, self.store.or2(without, taken));
            }
            self.check_growth()?;
            below = here;
        }
        Ok(Some(below[&need]))
    }
}
