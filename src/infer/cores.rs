//! Core-guided minimisation of a total (OLL, as clasp's `--opt-strategy=usc,oll` and RC2 do
//! it), beside the model-improving search of [`super::optimise::least_total`].
//!
//! Every case of the objective that costs something is a soft literal, wanted true, whose
//! weight is paid when it is false: for a minimised total, "this case does not hold"; for a
//! maximised one, "this case holds" (what is missed of the largest possible total). The search
//! assumes the soft literals; a refutation names a core (the assumptions it needed), which
//! raises the lower bound by the core's least weight w, takes w off each of its literals, and
//! relaxes it: "at most one of them is violated" becomes a new soft literal of weight w, over
//! a totalizer of the core's violations; when that one is in a core in turn, "at most two"
//! replaces it, and so on. Soft literals are assumed heaviest first (stratification): only
//! those of at least the current level, which goes down to the next weight each time the
//! assumptions hold. A model with every soft literal assumed costs exactly the lower bound,
//! which proves it optimal; a model whose cost meets the lower bound earlier ends the search
//! too. `IDP_MINIMIZE=cores` chooses it.

use crate::encode::SavedModel;
use crate::error::IdpResult;
use crate::ground::LinearObjective;
use crate::infer::optimise::{objective_value, Search};
use crate::infer::session::Session;
use crate::solve::Lit;

/// A literal the search wants true, and what its being false costs.
struct Soft {
    lit: Lit,
    weight: u64,
    /// For "fewer than k of a totalizer's inputs are violated": the totalizer and k.
    bound: Option<(usize, usize)>,
}

/// The soft literals of `objective` and what the minimised cost adds to the total: a
/// minimised total is its cost; a maximised one is `offset - cost`.
fn softs(session: &mut Session, objective: &LinearObjective) -> (Vec<Soft>, i64) {
    let mut softs = Vec::new();
    let mut offset = 0i64;
    for cases in &objective.elements {
        for &(g, v) in cases {
            if v == 0 {
                continue;
            }
            let l = session.lit(g);
            offset = offset.saturating_add(v);
            softs.push(Soft {
                lit: if objective.negated { l } else { -l },
                weight: v.unsigned_abs(),
                bound: None,
            });
        }
    }
    (softs, if objective.negated { offset } else { 0 })
}

/// The least total of `objective` by unsatisfiable cores (see the module's doc).
pub fn least_total_by_cores(
    session: &mut Session,
    objective: &LinearObjective,
) -> IdpResult<Search> {
    let (mut softs, offset) = softs(session, objective);
    let cost_of = |total: i64| -> u64 {
        if objective.negated {
            offset.saturating_sub(total).max(0) as u64
        } else {
            total.max(0) as u64
        }
    };
    let mut totalizers: Vec<Vec<Lit>> = Vec::new();
    let mut lower: u64 = 0;
    let mut best: Option<(u64, i64, SavedModel)> = None;
    let mut level = softs.iter().map(|s| s.weight).max().unwrap_or(0);
    loop {
        let assumed: Vec<usize> = (0..softs.len())
            .filter(|&i| softs[i].weight >= level)
            .collect();
        let assumptions: Vec<Lit> = assumed.iter().map(|&i| softs[i].lit).collect();
        match session.solve(&assumptions) {
            Ok(true) => {
                let total = objective.total(&mut |g| session.value(g));
                let cost = cost_of(total);
                if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                    best = Some((cost, total, session.saved_model()));
                }
                let below = softs.iter().map(|s| s.weight).filter(|&w| w < level).max();
                match below {
                    Some(next) if cost > lower => level = next,
                    _ => break,
                }
            }
            Ok(false) => {
                let core: Vec<usize> = assumed
                    .into_iter()
                    .filter(|&i| session.failed(softs[i].lit))
                    .collect();
                if core.is_empty() {
                    // Nothing assumed was needed: there is no model at all.
                    return Ok(Search::NoModel);
                }
                let w = core.iter().map(|&i| softs[i].weight).min().unwrap_or(0);
                lower += w;
                relax(session, &mut softs, &mut totalizers, &core, w);
                softs.retain(|s| s.weight > 0);
                if best.as_ref().is_some_and(|(c, _, _)| *c <= lower) {
                    break;
                }
            }
            Err(e) if e.is_limit() => {
                return match best {
                    Some((_, total, model)) => {
                        Ok(Search::Stopped(objective_value(objective, total), model, e))
                    }
                    None => Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(match best {
        Some((_, total, model)) => {
            session.restore_model(model);
            Search::Optimal(objective_value(objective, total))
        }
        None => Search::NoModel,
    })
}

/// Takes `w` off every soft literal of `core` and adds what OLL adds for it: for a bound of a
/// totalizer, the next bound of that totalizer; for the core as a whole (two literals or
/// more), "at most one of them violated" over a new totalizer.
fn relax(
    session: &mut Session,
    softs: &mut Vec<Soft>,
    totalizers: &mut Vec<Vec<Lit>>,
    core: &[usize],
    w: u64,
) {
    let mut added = Vec::new();
    for &i in core {
        softs[i].weight -= w;
        if let Some((t, k)) = softs[i].bound {
            if let Some(&at_least) = totalizers[t].get(k) {
                // "at least k + 1 violated" false: fewer than k + 1.
                added.push(Soft {
                    lit: -at_least,
                    weight: w,
                    bound: Some((t, k + 1)),
                });
            }
        }
    }
    if core.len() > 1 {
        let violations: Vec<Lit> = core.iter().map(|&i| -softs[i].lit).collect();
        let outputs = session.implied_by_count(&violations);
        // outputs[j] holds when at least j + 1 are violated; the new soft: fewer than 2.
        added.push(Soft {
            lit: -outputs[1],
            weight: w,
            bound: Some((totalizers.len(), 2)),
        });
        totalizers.push(outputs);
    }
    softs.extend(added);
}
