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

use rustc_hash::FxHashMap as HashMap;

use crate::solve::{Lit, SatSolver};

/// The bounds of one count asked so far: the trees over its literals (to ask that many hold)
/// and over their negations (to ask that few fail), each built when first needed and again,
/// larger, when a bound passes its cut-off.
pub struct Counter {
    inputs: Vec<Lit>,
    /// The inputs in groups of which at most one holds (by the theory's two-literal
    /// clauses), as indices into `inputs`; each group is one input of the tree that counts
    /// what holds ([`Counter::group_literals`]).
    groups: Vec<Vec<usize>>,
    /// The literal of each group, "some input of the group holds", made when first needed.
    group_lits: Option<Vec<Lit>>,
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
    /// A count of `inputs` (a literal given twice counts twice) whose literals `clauses` (two-literal clauses that hold in every
    /// model) keep from holding together: the tree that counts what holds then counts groups
    /// of which at most one input holds, as the maximum clique's non-edges make the colour
    /// classes of a colouring; it has fewer inputs, and "at least `t`" fails as soon as fewer
    /// than `t` groups can still hold (the colouring bound of clique search; MaxSAT solvers
    /// find such groups among soft literals likewise, as RC2's at-most-one detection does).
    pub fn with_exclusions(inputs: Vec<Lit>, clauses: &[(Lit, Lit)]) -> Counter {
        let groups = exclusive_groups(&inputs, clauses);
        Counter {
            inputs,
            groups,
            group_lits: None,
            holding: None,
            failing: None,
        }
    }

    /// One literal per group: the input itself for a group of one, else a fresh literal that
    /// implies some input of the group.
    fn group_literals(&mut self, solver: &mut dyn SatSolver) -> &[Lit] {
        let (inputs, groups) = (&self.inputs, &self.groups);
        self.group_lits.get_or_insert_with(|| {
            groups
                .iter()
                .map(|group| match group[..] {
                    [single] => inputs[single],
                    _ => {
                        let some = solver.new_var();
                        let mut clause = vec![-some];
                        clause.extend(group.iter().map(|&i| inputs[i]));
                        solver.add_clause(&clause);
                        some
                    }
                })
                .collect()
        })
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
            if t > self.groups.len() {
                // At most one input of each group holds.
                let l = solver.new_var();
                solver.add_clause(&[-l]);
                return l;
            }
            self.group_literals(solver);
            let counted = self.group_lits.as_deref().expect("just made");
            let tree = grown(
                &mut self.holding,
                counted,
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

/// The most pairs of inputs that exclude each other looked at for [`exclusive_groups`].
const EXCLUSIONS_AT_MOST: usize = 1 << 22;

/// Inputs times exclusions up to which groups are grown carefully ([`most_excluding`]: each
/// step looks at every candidate's exclusions); above, in the order of the inputs' degrees.
const CAREFUL_GROUPING_AT_MOST: usize = 1 << 27;

/// `inputs` (by index) in groups of which at most one can hold: two inputs exclude each other
/// when a clause says that one of their negations holds. Greedily, most excluding input
/// first: a group starts from an input not in one yet and takes every such input that
/// excludes all of the group so far (a clique cover of the exclusion graph). Without
/// exclusions, every input is a group of its own.
fn exclusive_groups(inputs: &[Lit], clauses: &[(Lit, Lit)]) -> Vec<Vec<usize>> {
    let mut positions: HashMap<Lit, Vec<usize>> = HashMap::default();
    for (i, &l) in inputs.iter().enumerate() {
        positions.entry(l).or_default().push(i);
    }
    let mut excludes: Vec<Vec<usize>> = vec![Vec::new(); inputs.len()];
    let mut pairs = 0usize;
    for &(a, b) in clauses {
        let (Some(left), Some(right)) = (positions.get(&-a), positions.get(&-b)) else {
            continue;
        };
        for &i in left {
            for &j in right {
                if i != j && pairs < EXCLUSIONS_AT_MOST {
                    excludes[i].push(j);
                    excludes[j].push(i);
                    pairs += 1;
                }
            }
        }
    }
    for list in &mut excludes {
        list.sort_unstable();
        list.dedup();
    }
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(excludes[i].len()));
    let careful = inputs.len().saturating_mul(pairs) <= CAREFUL_GROUPING_AT_MOST;
    let mut grouped = vec![false; inputs.len()];
    let mut candidate = vec![false; inputs.len()];
    let mut groups = Vec::new();
    for &first in &order {
        if grouped[first] {
            continue;
        }
        let mut group = vec![first];
        let mut candidates: Vec<usize> = excludes[first]
            .iter()
            .copied()
            .filter(|&c| !grouped[c])
            .collect();
        while !candidates.is_empty() {
            let chosen = if careful {
                most_excluding(&candidates, &excludes, &mut candidate)
            } else {
                candidates[0]
            };
            group.push(chosen);
            candidates.retain(|&c| c != chosen && excludes[chosen].binary_search(&c).is_ok());
        }
        for &i in &group {
            grouped[i] = true;
        }
        groups.push(group);
    }
    groups
}

/// The candidate that excludes the most other candidates (the first of those), so that a
/// group can still grow the most after it (as the Recursive Largest First colouring chooses);
/// `marks` is all false and left so.
fn most_excluding(candidates: &[usize], excludes: &[Vec<usize>], marks: &mut [bool]) -> usize {
    for &c in candidates {
        marks[c] = true;
    }
    let chosen = candidates
        .iter()
        .copied()
        .max_by_key(|&c| {
            let kept = excludes[c].iter().filter(|&&x| marks[x]).count();
            (kept, std::cmp::Reverse(c))
        })
        .expect("some candidate");
    for &c in candidates {
        marks[c] = false;
    }
    chosen
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
