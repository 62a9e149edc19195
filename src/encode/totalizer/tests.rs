//! Every bound of a count, checked against every assignment of its literals: under the
//! literals' values, the bound's literal can hold exactly when enough of them hold. The
//! literals repeat and come in both signs, and thresholds are asked in a random order on the
//! same counter, so that its trees are rebuilt larger on the way.

use super::Counter;
use crate::solve::{Cadical, Lit, SatResult, SatSolver};

/// A tiny deterministic generator (xorshift), so the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random literals over `vars` variables, some repeated, some negated.
fn random_literals(rng: &mut Rng, vars: usize, len: usize) -> Vec<Lit> {
    (0..len)
        .map(|_| {
            let v = 1 + rng.below(vars as u64) as Lit;
            if rng.below(3) == 0 {
                -v
            } else {
                v
            }
        })
        .collect()
}

/// Asks four random bounds of a count of `inputs` (whose literals `clauses` also constrain)
/// and checks each against every assignment of the `vars` variables that satisfies the
/// clauses: the bound's literal can hold exactly when enough inputs hold.
fn check_bounds(rng: &mut Rng, vars: usize, inputs: &[Lit], clauses: &[(Lit, Lit)]) {
    let mut solver = Cadical::new(Default::default());
    for _ in 0..vars {
        solver.new_var();
    }
    for &(a, b) in clauses {
        solver.add_clause(&[a, b]);
    }
    let mut counter = Counter::with_exclusions(inputs.to_vec(), clauses);
    let mut bounds = Vec::new();
    for _ in 0..4 {
        let threshold = rng.below(inputs.len() as u64 + 2);
        bounds.push((threshold, counter.at_least(threshold, &mut solver)));
    }
    for assignment in 0..1u32 << vars {
        let holds = |l: Lit| (assignment >> (l.unsigned_abs() - 1) & 1 == 1) == (l > 0);
        if !clauses.iter().all(|&(a, b)| holds(a) || holds(b)) {
            continue;
        }
        let count = inputs.iter().filter(|&&l| holds(l)).count() as u64;
        let fixed: Vec<Lit> = (1..=vars as Lit)
            .map(|v| if holds(v) { v } else { -v })
            .collect();
        for &(threshold, bound) in &bounds {
            let mut assumptions = fixed.clone();
            assumptions.push(bound);
            let expected = if count >= threshold {
                SatResult::Sat
            } else {
                SatResult::Unsat
            };
            assert_eq!(
                solver.solve(&assumptions),
                expected,
                "{inputs:?} with {clauses:?}: at least {threshold}, count {count}"
            );
        }
    }
}

#[test]
fn every_bound_holds_exactly_when_enough_literals_hold() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let vars = 1 + rng.below(6) as usize;
        let len = 1 + rng.below(9) as usize;
        let inputs = random_literals(&mut rng, vars, len);
        check_bounds(&mut rng, vars, &inputs, &[]);
    }
}

/// Clauses that keep inputs from holding together group them (a count of groups); the bounds
/// stay exact, with repeated and complementary inputs and clauses that name literals of no
/// input.
#[test]
fn bounds_stay_exact_when_clauses_group_the_literals() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let vars = 2 + rng.below(6) as usize;
        let len = 1 + rng.below(9) as usize;
        let inputs = random_literals(&mut rng, vars, len);
        let clauses: Vec<(Lit, Lit)> = (0..rng.below(8))
            .map(|_| {
                let pair = random_literals(&mut rng, vars, 2);
                (pair[0], pair[1])
            })
            .collect();
        check_bounds(&mut rng, vars, &inputs, &clauses);
    }
}

/// The exclusions of a maximum clique: non-adjacent nodes cannot both be in it, so a count
/// of the nodes in it is a count over the colour classes of a colouring.
#[test]
fn exclusions_make_fewer_groups_than_inputs() {
    // Nodes 1-3 pairwise non-adjacent, 4-6 likewise; `1 | 4` excludes nothing.
    let inputs: Vec<Lit> = (1..=6).collect();
    let clauses = [
        (-1, -2),
        (-1, -3),
        (-2, -3),
        (-4, -5),
        (-4, -6),
        (-5, -6),
        (1, 4),
    ];
    let groups = super::exclusive_groups(&inputs, &clauses);
    let mut sorted: Vec<Vec<usize>> = groups
        .into_iter()
        .map(|mut g| {
            g.sort_unstable();
            g
        })
        .collect();
    sorted.sort();
    assert_eq!(sorted, vec![vec![0, 1, 2], vec![3, 4, 5]]);
}
