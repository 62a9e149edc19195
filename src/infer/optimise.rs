//! Minimisation on one live SAT solver. The objective is ground once into its cases (one
//! condition per value, mutually exclusive); every bound is asked under assumptions, so the
//! solver keeps its clauses and what it learnt from one bound to the next. Except when
//! descending (which asks exactly what it always asked, so that the models it shows stay the
//! same), what a call proves is then added for good: after a model with value v, no case above
//! v can hold; after a bound b is refuted, no case up to b can hold.
//!
//! Bounds are chosen by [`Strategy`]: `Descend` asks for anything better than the last model
//! (many cheap satisfiable calls near the models found); `Bisect` halves the interval between
//! the best lower bound and the best model (fewer calls when the first model is far from the
//! optimum); `Ascend` asks for the least value not yet refuted from the first call on, so its
//! first model is optimal; `Gallop` probes from below with doubling steps until a model is
//! found and then bisects; `Auto` ascends when the objective has few values (a plan's length:
//! the cheap refutations of short plans come first, as when a horizon is grown, and the learnt
//! clauses carry over) and gallops otherwise (a sum over a wide range). The default stays
//! `Descend`: only it has a best model at every moment, which a minimisation stopped by a
//! limit returns (the others may have none when a refutation is hard, as for pigeonholes).
//! `IDP_MINIMIZE=descend|bisect|ascend|gallop|auto|cores` selects one (`cores`: a count or a
//! sum by unsatisfiable cores, [`super::cores`]).

use crate::encode::SavedModel;
use crate::error::{Error, IdpResult};
use crate::ground::{GTerm, GVal, Gf, LinTerm, LinearObjective};
use crate::infer::session::Session;
use crate::sema::ir::Term;
use crate::solve::Lit;
use crate::structure::Value;

/// How the next bound is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Strictly better than the best model so far.
    #[default]
    Descend,
    /// The middle of the values between the lower bound and the best model.
    Bisect,
    /// The least value not refuted yet, from the first call on: the first model is optimal
    /// (for a plan's length, shortest plans are found as by growing the horizon).
    Ascend,
    /// From below with growing steps (the lower bound plus 0, 1, 3, 7, ... values) until a
    /// model is found, then bisection between the lower bound and that model.
    Gallop,
    /// `Ascend` for an objective with at most [`ASCEND_AT_MOST`] values, else `Gallop`.
    Auto,
    /// For a count or a sum: unsatisfiable cores ([`super::cores`]); otherwise `Descend`.
    Cores,
}

/// The most values of an objective for which `Auto` ascends one value at a time.
pub const ASCEND_AT_MOST: usize = 128;

/// Improvements that `Descend` makes one model at a time before it bisects what is left
/// (when more than [`ASCEND_AT_MOST`] values are left).
const DESCENTS_BEFORE_BISECTION: usize = 32;

impl Strategy {
    /// The strategy named `name` (`descend`, `bisect`, `ascend`, `gallop` or `auto`).
    pub fn named(name: &str) -> Option<Strategy> {
        match name {
            "descend" => Some(Strategy::Descend),
            "bisect" => Some(Strategy::Bisect),
            "ascend" => Some(Strategy::Ascend),
            "gallop" => Some(Strategy::Gallop),
            "auto" => Some(Strategy::Auto),
            "cores" => Some(Strategy::Cores),
            _ => None,
        }
    }

    /// The strategy for an objective with `values` values (`Auto` made concrete).
    fn resolve(self, values: usize) -> Strategy {
        match self {
            Strategy::Auto if values <= ASCEND_AT_MOST => Strategy::Ascend,
            Strategy::Auto => Strategy::Gallop,
            Strategy::Cores => Strategy::Descend,
            s => s,
        }
    }
}

/// The outcome of the search for the least value.
pub enum Search {
    /// No model at all.
    NoModel,
    /// The least value, proven; the session's current model has it.
    Optimal(GVal),
    /// A limit stopped the search: the best value found, its SAT model, and the limit's error.
    Stopped(GVal, SavedModel, Error),
}

/// The objective's cases by value, in increasing order, with what was proven about them.
struct Bounds {
    /// `(value, condition)`, sorted by value, distinct values.
    cases: Vec<(GVal, Gf)>,
    /// Every case below this index is refuted.
    lo: usize,
    /// The index of the best model's value (`None` before the first model).
    hi: Option<usize>,
    /// How far above the lower bound the next probe from below lies (`Gallop`).
    step: usize,
}

impl Bounds {
    fn new(objective: &GTerm) -> Bounds {
        let mut cases: Vec<(GVal, Gf)> = objective.0.iter().map(|(g, v)| (*v, *g)).collect();
        cases.sort_by_key(|(v, _)| *v);
        Bounds {
            cases,
            lo: 0,
            hi: None,
            step: 1,
        }
    }

    /// Records that no value up to `cases[i]` is possible.
    fn refuted(&mut self, i: usize) {
        self.lo = i + 1;
        self.step = self.step.saturating_mul(2);
    }

    /// The index of the largest value the next call asks for (`value ≤ cases[i]`), or `None`
    /// when the best model is proven optimal.
    fn next_probe(&self, strategy: Strategy) -> Option<usize> {
        let Some(hi) = self.hi else {
            // Before the first model only the searches from below ask for a bound.
            let last = self.cases.len().checked_sub(1)?;
            return match strategy {
                _ if self.lo > last => None,
                Strategy::Ascend => Some(self.lo),
                Strategy::Gallop => Some(last.min(self.lo + self.step - 1)),
                Strategy::Descend | Strategy::Bisect | Strategy::Auto | Strategy::Cores => None,
            };
        };
        if hi <= self.lo {
            return None;
        }
        Some(match strategy {
            Strategy::Descend | Strategy::Cores => hi - 1,
            Strategy::Bisect | Strategy::Gallop | Strategy::Auto => {
                self.lo + (hi - 1 - self.lo) / 2
            }
            Strategy::Ascend => self.lo,
        })
    }
}

/// Searches for the least value of `objective` in the session's models.
pub fn least_value(
    session: &mut Session,
    objective: &GTerm,
    strategy: Strategy,
) -> IdpResult<Search> {
    let mut bounds = Bounds::new(objective);
    let mut strategy = strategy.resolve(bounds.cases.len());
    let mut improvements = 0;
    for (_, g) in &bounds.cases {
        session.lit(*g);
    }
    let mut best_model = SavedModel::default();
    let mut probe: Option<usize> = bounds.next_probe(strategy);
    loop {
        let assumptions = match probe {
            Some(i) => at_most(session, &bounds, i, strategy != Strategy::Descend),
            None => Vec::new(),
        };
        match session.solve(&assumptions) {
            Ok(true) => {
                let Some(found) = bounds.cases.iter().position(|(_, g)| session.value(*g)) else {
                    // A model where the objective has no value (a partial function): the
                    // search ends with the best value so far, as before any bound.
                    break;
                };
                bounds.hi = Some(found);
                best_model = session.saved_model();
                improvements += 1;
                // Descending one value at a time over thousands of values (a function's
                // value as the objective) would take a SAT call per value: past a few
                // improvements, the rest is bisected.
                if strategy == Strategy::Descend
                    && improvements >= DESCENTS_BEFORE_BISECTION
                    && found > ASCEND_AT_MOST
                {
                    strategy = Strategy::Bisect;
                }
                if strategy != Strategy::Descend {
                    refute(session, &bounds.cases[found + 1..]);
                }
            }
            Ok(false) => match probe {
                Some(i) => {
                    bounds.refuted(i);
                    if strategy != Strategy::Descend {
                        refute(session, &bounds.cases[..=i]);
                    }
                }
                None => return Ok(Search::NoModel),
            },
            Err(e) if e.is_limit() => {
                return Ok(match bounds.hi {
                    Some(h) => Search::Stopped(bounds.cases[h].0, best_model, e),
                    None => return Err(e),
                });
            }
            Err(e) => return Err(e),
        }
        probe = bounds.next_probe(strategy);
        if probe.is_none() {
            break;
        }
    }
    match bounds.hi {
        Some(h) => {
            session.restore_model(best_model);
            Ok(Search::Optimal(bounds.cases[h].0))
        }
        None => Ok(Search::NoModel),
    }
}

/// How bounds on the total of a linear objective reach the solver: as bounds on a weighted
/// sum that the solver propagates inside its search (one fresh literal per bound, no clauses),
/// or, for a solver that cannot, as threshold diagrams over the elements' guards.
pub struct TotalBounds<'o> {
    objective: &'o LinearObjective,
    /// The sum the solver keeps, with the weight of all its terms: the guards with their
    /// values when the total is maximised (bounds from below), their negations when it is
    /// minimised (a total at most `k` is then a sum at least `weight - k`).
    native: Option<(usize, u64)>,
}

impl<'o> TotalBounds<'o> {
    /// Encodes the elements' guards and hands their sum to the solver if it takes it; called
    /// before the session's first search.
    pub fn new(session: &mut Session, objective: &'o LinearObjective) -> TotalBounds<'o> {
        let mut terms = Vec::new();
        for cases in &objective.elements {
            for &(g, v) in cases {
                let l = session.lit(g);
                terms.push((if objective.negated { l } else { -l }, v.unsigned_abs()));
            }
        }
        let weight = terms
            .iter()
            .try_fold(0u64, |s, &(_, w)| s.checked_add(w))
            .filter(|&w| w <= i64::MAX as u64);
        let native = weight.and_then(|w| Some((session.add_sum(&terms)?, w)));
        TotalBounds { objective, native }
    }

    /// "The total is better than `total`".
    fn better_than(&self, session: &mut Session, total: i64) -> IdpResult<Lit> {
        if self.objective.negated {
            self.at_least(session, total.saturating_add(1))
        } else {
            self.at_most(session, total.saturating_sub(1))
        }
    }

    /// "The total is at least as good as `total`".
    fn as_good_as(&self, session: &mut Session, total: i64) -> IdpResult<Lit> {
        if self.objective.negated {
            self.at_least(session, total)
        } else {
            self.at_most(session, total)
        }
    }

    /// "The total is at least `k`" (asked when it is maximised).
    fn at_least(&self, session: &mut Session, k: i64) -> IdpResult<Lit> {
        Ok(match self.native {
            Some((sum, _)) => session.sum_at_least(sum, k.max(0) as u64),
            None => {
                let g = session.objective_at_least(self.objective, k)?;
                session.lit(g)
            }
        })
    }

    /// "The total is at most `k`" (asked when it is minimised).
    fn at_most(&self, session: &mut Session, k: i64) -> IdpResult<Lit> {
        Ok(match self.native {
            Some((sum, weight)) => {
                let threshold = (weight as i128 - k as i128).clamp(0, u64::MAX as i128);
                session.sum_at_least(sum, threshold as u64)
            }
            None => {
                let g = session.objective_at_least(self.objective, k.saturating_add(1))?;
                -session.lit(g)
            }
        })
    }
}

/// Searches for the least value of an objective that totals non-negative integers (or its
/// negation), model after better model on one live solver: the total of each model is read
/// from its elements' guards, and the next call assumes one literal, that the total is better
/// (an output of a totalizer over a count, a bound on a weighted sum the solver propagates,
/// or, for a solver that keeps no sums, a threshold diagram built only for the
/// thresholds asked: a few, against one condition per value of the total for
/// [`least_value`], which for a count over n elements takes about n²/2 nodes).
pub fn least_total(session: &mut Session, bounds: &TotalBounds) -> IdpResult<Search> {
    let objective = bounds.objective;
    let mut best: Option<(i64, SavedModel)> = None;
    loop {
        let assumptions = match &best {
            Some((total, _)) => vec![bounds.better_than(session, *total)?],
            None => Vec::new(),
        };
        match session.solve(&assumptions) {
            Ok(true) => {
                let total = objective.total(&mut |g| session.value(g));
                if best
                    .as_ref()
                    .is_some_and(|&(b, _)| !better(objective, total, b))
                {
                    // A bound that did not hold would make this loop endless.
                    return Err(Error::internal(format!(
                        "the search found a model of value {total} under the bound better \
                         than {}",
                        best.map_or(0, |(b, _)| b)
                    )));
                }
                best = Some((total, session.saved_model()));
            }
            Ok(false) => break,
            Err(e) if e.is_limit() => {
                return match best {
                    Some((total, model)) => {
                        Ok(Search::Stopped(objective_value(objective, total), model, e))
                    }
                    None => Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(match best {
        Some((total, model)) => {
            session.restore_model(model);
            Search::Optimal(objective_value(objective, total))
        }
        None => Search::NoModel,
    })
}

/// Whether a model whose total is `total` is better than one of total `than`: larger when the
/// objective is the total's negation (a maximisation), smaller otherwise.
fn better(objective: &LinearObjective, total: i64, than: i64) -> bool {
    if objective.negated {
        total > than
    } else {
        total < than
    }
}

/// How far apart the best value found and the least value the bounds allow may be before
/// [`least_number`] halves the distance instead of asking for any better value.
const LINEAR_DESCENT: i128 = 64;

/// Searches for the least value of a linear term over numbers the search chooses, model
/// after better model on one live solver: each call assumes one comparison, that the term is
/// below the best value found, or, while that value is far from the least the variables'
/// bounds allow (their ranges span billions), at most halfway there, a refusal moving that
/// bound up. About as many calls as the range has bits, then a descent.
pub fn least_number(session: &mut Session, lin: &LinTerm, at: &Term) -> IdpResult<Search> {
    let mut best: Option<(i128, SavedModel)> = None;
    let mut reach = session.linear_range(lin).0;
    loop {
        let bound = match &best {
            None => None,
            Some((value, _)) if *value <= reach => break,
            Some((value, _)) if value - reach > LINEAR_DESCENT => Some(reach + (value - reach) / 2),
            Some((value, _)) => Some(value - 1),
        };
        let assumptions = match bound {
            Some(k) => {
                let below = session.linear_at_most(lin, k, at)?;
                vec![session.lit(below)]
            }
            None => Vec::new(),
        };
        match session.solve(&assumptions) {
            Ok(true) => {
                let value = session.linear_value(lin);
                best = Some((value, session.saved_model()));
            }
            Ok(false) => match bound {
                Some(k) => reach = k + 1,
                None => break,
            },
            Err(e) if e.is_limit() => {
                return match best {
                    Some((value, model)) => {
                        Ok(Search::Stopped(number(value, at, session)?, model, e))
                    }
                    None => Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(match best {
        Some((value, model)) => {
            session.restore_model(model);
            Search::Optimal(number(value, at, session)?)
        }
        None => Search::NoModel,
    })
}

/// A value of the objective as an IDP integer.
fn number(value: i128, at: &Term, session: &Session) -> IdpResult<GVal> {
    match i64::try_from(value) {
        Ok(v) => Ok(GVal::V(Value::Int(v))),
        Err(_) => Err(session.not_linear(at, "grows too large")),
    }
}

/// The objective's value for a total.
pub(super) fn objective_value(objective: &LinearObjective, total: i64) -> GVal {
    GVal::V(Value::Int(if objective.negated { -total } else { total }))
}

/// "The objective has the value `best`", which [`least_total`] proved optimal: nothing
/// better exists, so only the other side of the bound is said (`None`: nothing to say).
pub fn total_is(
    session: &mut Session,
    bounds: &TotalBounds,
    best: &GVal,
) -> IdpResult<Option<Lit>> {
    let GVal::V(Value::Int(best)) = *best else {
        return Ok(None);
    };
    let total = if bounds.objective.negated {
        -best
    } else {
        best
    };
    bounds.as_good_as(session, total).map(Some)
}

/// Assumptions for `value ≤ cases[i]`: the disjunction of the cases up to i (one literal), and
/// with `negated` the negation of every case above it (implied by the first, since the cases
/// exclude each other, but they propagate at once).
fn at_most(session: &mut Session, bounds: &Bounds, i: usize, negated: bool) -> Vec<Lit> {
    let below: Vec<Gf> = bounds.cases[..=i].iter().map(|(_, g)| *g).collect();
    let any = session.store_mut().or(below);
    let mut out = vec![session.lit(any)];
    if negated {
        for (_, g) in &bounds.cases[i + 1..] {
            out.push(session.lit(-*g));
        }
    }
    out
}

/// Adds for good that none of these cases holds.
fn refute(session: &mut Session, cases: &[(GVal, Gf)]) {
    for (_, g) in cases {
        session.assert(-*g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::Value;

    fn bounds(n: usize, lo: usize, hi: Option<usize>) -> Bounds {
        Bounds {
            cases: (0..n)
                .map(|i| (GVal::V(Value::Int(i as i64)), Gf(i as i32 + 2)))
                .collect(),
            lo,
            hi,
            step: 1,
        }
    }

    #[test]
    fn probes_stay_between_the_bounds_and_stop_when_they_meet() {
        assert_eq!(bounds(10, 0, None).next_probe(Strategy::Bisect), None);
        assert_eq!(bounds(10, 3, None).next_probe(Strategy::Ascend), Some(3));
        assert_eq!(bounds(10, 10, None).next_probe(Strategy::Ascend), None);
        assert_eq!(bounds(10, 3, Some(7)).next_probe(Strategy::Ascend), Some(3));
        // Galloping from below: 0, then 1, 3, 7, ... above each refuted bound, within range.
        let mut b = bounds(40, 0, None);
        let mut probes = Vec::new();
        while let Some(p) = b.next_probe(Strategy::Gallop) {
            probes.push(p);
            b.refuted(p);
        }
        assert_eq!(probes, vec![0, 2, 6, 14, 30, 39]);
        assert_eq!(
            bounds(10, 0, Some(9)).next_probe(Strategy::Descend),
            Some(8)
        );
        assert_eq!(bounds(10, 0, Some(9)).next_probe(Strategy::Bisect), Some(4));
        assert_eq!(bounds(10, 5, Some(6)).next_probe(Strategy::Bisect), Some(5));
        assert_eq!(bounds(10, 6, Some(6)).next_probe(Strategy::Bisect), None);
        assert_eq!(bounds(10, 0, Some(0)).next_probe(Strategy::Descend), None);
        // Every probe is below the best model and at or above the lower bound.
        for lo in 0..10 {
            for hi in lo..10 {
                for s in [
                    Strategy::Descend,
                    Strategy::Bisect,
                    Strategy::Ascend,
                    Strategy::Gallop,
                ] {
                    if let Some(p) = bounds(10, lo, Some(hi)).next_probe(s) {
                        assert!(lo <= p && p < hi, "{s:?} {lo} {hi} {p}");
                    }
                }
            }
        }
    }
}
