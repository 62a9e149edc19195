//! Bounds on a count of literals as clauses: a totalizer (Bailleux and Boufkhad, 2003) over
//! the literals, cut off at the largest bound asked so far. An optimisation whose objective
//! counts (a maximum clique, a shortest plan) asks "at least `t` of these hold" again and
//! again; each bound is then one output literal of the same tree, and the solver propagates
//! and learns over the tree's small clauses instead of over the long reasons a propagator of
//! the whole sum gives (every false term, about a hundred literals for a clique of ten among
//! 150 nodes: CaDiCaL spent four fifths of such a search in propagating them).
//!
//! A tree node over `p` literals has outputs `o₁ … o_min(p, cap)`, `oₖ` standing for "at least
//! `k` of them hold". Only the direction a bound needs is encoded: "`oₖ` implies at least `k`"
//! when few literals must hold (the bound is the output), "at least `k` implies `oₖ`" when
//! few may fail (the bound is a negated output over the negated literals).

use crate::solve::{Lit, SatSolver};

/// The bounds of one count asked so far: the trees over its literals (to ask that many hold)
/// and over their negations (to ask that few fail), each built when first needed and again,
/// larger, when a bound passes its cut-off.
pub struct Counter {
    inputs: Vec<Lit>,
    holding: Option<Tree>,
    failing: Option<Tree>,
}

/// One totalizer: its outputs, `outputs[k - 1]` for "at least `k`".
struct Tree {
    outputs: Vec<Lit>,
}

/// Which implication a tree's clauses encode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// `oₖ` implies that at least `k` inputs hold.
    OutputImpliesCount,
    /// At least `k` inputs holding implies `oₖ`.
    CountImpliesOutput,
}

impl Counter {
    /// A count of `inputs` (a literal given twice counts twice).
    pub fn new(inputs: Vec<Lit>) -> Counter {
        Counter {
            inputs,
            holding: None,
            failing: None,
        }
    }

    /// A literal that, when true, makes at least `threshold` of the inputs hold.
    pub fn at_least(&mut self, threshold: u64, solver: &mut dyn SatSolver) -> Lit {
        let n = self.inputs.len();
        if threshold == 0 || threshold > n as u64 {
            let l = solver.new_var();
            solver.add_clause(&[if threshold == 0 { l } else { -l }]);
            return l;
        }
        let t = threshold as usize;
        let failures = n - t + 1;
        if t <= failures {
            let tree = grown(
                &mut self.holding,
                &self.inputs,
                t,
                Direction::OutputImpliesCount,
                solver,
            );
            tree.outputs[t - 1]
        } else {
            // At most `failures - 1` inputs may be false.
            let tree = grown(
                &mut self.failing,
                &self.inputs,
                failures,
                Direction::CountImpliesOutput,
                solver,
            );
            -tree.outputs[failures - 1]
        }
    }
}

/// Outputs `o[j]` that "at least `j + 1` of `inputs` hold" implies, one per input (a
/// totalizer in the direction an upper bound needs: `¬o[k]` allows at most `k` of them).
pub fn implied_by_count(inputs: &[Lit], solver: &mut dyn SatSolver) -> Vec<Lit> {
    build(inputs, inputs.len(), Direction::CountImpliesOutput, solver)
}

/// `slot`'s tree, rebuilt when it has fewer than `needed` outputs, cut off at twice that (so
/// that a descent of bounds rebuilds it only a few times): over `inputs` as they are for
/// [`Direction::OutputImpliesCount`] (it counts the literals that hold), over their negations
/// for [`Direction::CountImpliesOutput`] (it counts those that fail).
fn grown<'t>(
    slot: &'t mut Option<Tree>,
    inputs: &[Lit],
    needed: usize,
    direction: Direction,
    solver: &mut dyn SatSolver,
) -> &'t Tree {
    if slot.as_ref().is_none_or(|t| t.outputs.len() < needed) {
        let cap = (2 * needed).min(inputs.len());
        let counted: Vec<Lit> = match direction {
            Direction::OutputImpliesCount => inputs.to_vec(),
            Direction::CountImpliesOutput => inputs.iter().map(|&l| -l).collect(),
        };
        let outputs = build(&counted, cap, direction, solver);
        *slot = Some(Tree { outputs });
    }
    slot.as_ref().expect("just built")
}

/// The outputs of a totalizer over `inputs` cut off at `cap`, its clauses added to `solver`.
fn build(inputs: &[Lit], cap: usize, direction: Direction, solver: &mut dyn SatSolver) -> Vec<Lit> {
    if inputs.len() == 1 {
        return inputs.to_vec();
    }
    let (left, right) = inputs.split_at(inputs.len() / 2);
    let a = build(left, cap, direction, solver);
    let b = build(right, cap, direction, solver);
    let c: Vec<Lit> = (0..(a.len() + b.len()).min(cap))
        .map(|_| solver.new_var())
        .collect();
    // `x[k]` for k >= 1 is output k of a child; k = 0 is "true", k past its outputs "false"
    // (a cut-off child never reaches those: the clauses below stay under `cap`).
    let at = |x: &[Lit], k: usize| -> Option<Lit> { (k >= 1 && k <= x.len()).then(|| x[k - 1]) };
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            match direction {
                Direction::CountImpliesOutput => {
                    // a ≥ i and b ≥ j imply c ≥ min(i + j, cap).
                    let k = (i + j).min(c.len());
                    if k == 0 {
                        continue;
                    }
                    let mut clause: Vec<Lit> = [at(&a, i), at(&b, j)]
                        .into_iter()
                        .flatten()
                        .map(|l| -l)
                        .collect();
                    clause.push(c[k - 1]);
                    solver.add_clause(&clause);
                }
                Direction::OutputImpliesCount => {
                    // c ≥ i + j + 1 implies a ≥ i + 1 or b ≥ j + 1.
                    let k = i + j + 1;
                    if k > c.len() {
                        continue;
                    }
                    let mut clause = vec![-c[k - 1]];
                    clause.extend([at(&a, i + 1), at(&b, j + 1)].into_iter().flatten());
                    solver.add_clause(&clause);
                }
            }
        }
    }
    c
}

#[cfg(test)]
mod tests;
