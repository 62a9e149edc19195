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

#[test]
fn every_bound_holds_exactly_when_enough_literals_hold() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let vars = 1 + rng.below(6) as usize;
        let len = 1 + rng.below(9) as usize;
        let inputs: Vec<Lit> = (0..len)
            .map(|_| {
                let v = 1 + rng.below(vars as u64) as Lit;
                if rng.below(3) == 0 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let mut solver = Cadical::new(Default::default());
        for _ in 0..vars {
            solver.new_var();
        }
        let mut counter = Counter::new(inputs.clone());
        let mut bounds = Vec::new();
        for _ in 0..4 {
            let threshold = rng.below(len as u64 + 2);
            bounds.push((threshold, counter.at_least(threshold, &mut solver)));
        }
        for assignment in 0..1u32 << vars {
            let holds = |l: Lit| (assignment >> (l.unsigned_abs() - 1) & 1 == 1) == (l > 0);
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
                    "{inputs:?} at least {threshold}, count {count}"
                );
            }
        }
    }
}
