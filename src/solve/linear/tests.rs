//! Random weighted sums with bounds, solved by CaDiCaL with the bounds propagated inside the
//! search: every model enumerated is checked, and the models counted are compared with brute
//! force over all assignments.

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
    fn lit(&mut self, vars: usize) -> Lit {
        let v = 1 + self.below(vars as u64) as Lit;
        if self.below(2) == 0 {
            v
        } else {
            -v
        }
    }
}

struct Case {
    vars: usize,
    clauses: Vec<Vec<Lit>>,
    /// The terms of one sum (literals may repeat, with both signs).
    terms: Vec<(Lit, u64)>,
    /// Thresholds of the bounds asked (all of them hold together).
    thresholds: Vec<u64>,
}

fn random_case(rng: &mut Rng) -> Case {
    let vars = 1 + rng.below(9) as usize;
    let clauses = (0..rng.below(6))
        .map(|_| (0..1 + rng.below(3)).map(|_| rng.lit(vars)).collect())
        .collect();
    let terms: Vec<(Lit, u64)> = (0..1 + rng.below(10))
        .map(|_| (rng.lit(vars), rng.below(6)))
        .collect();
    let total: u64 = terms.iter().map(|&(_, w)| w).sum();
    let thresholds = (0..1 + rng.below(3))
        .map(|_| rng.below(total + 2))
        .collect();
    Case {
        vars,
        clauses,
        terms,
        thresholds,
    }
}

fn holds(assignment: u32, lit: Lit) -> bool {
    let on = assignment >> (lit.unsigned_abs() - 1) & 1 == 1;
    on == (lit > 0)
}

fn sum_of(case: &Case, assignment: u32) -> u64 {
    case.terms
        .iter()
        .filter(|&&(l, _)| holds(assignment, l))
        .map(|&(_, w)| w)
        .sum()
}

fn satisfies(case: &Case, assignment: u32, thresholds: &[u64]) -> bool {
    case.clauses
        .iter()
        .all(|c| c.iter().any(|&l| holds(assignment, l)))
        && thresholds.iter().all(|&k| sum_of(case, assignment) >= k)
}

fn brute_force(case: &Case, thresholds: &[u64]) -> usize {
    (0..1u32 << case.vars)
        .filter(|&a| satisfies(case, a, thresholds))
        .count()
}

/// Counts the models with every bound of `activations` assumed, each model checked and then
/// blocked for good (so the solver is left with them all excluded).
fn enumerate(solver: &mut Cadical, case: &Case, activations: &[Lit], asked: &[u64]) -> usize {
    let mut count = 0;
    loop {
        match solver.solve(activations) {
            SatResult::Sat => {}
            SatResult::Unsat => return count,
            SatResult::Interrupted => panic!("interrupted"),
        }
        let assignment = (1..=case.vars as Lit)
            .filter(|&v| solver.value(v))
            .fold(0u32, |a, v| a | 1 << (v - 1));
        assert!(
            satisfies(case, assignment, asked),
            "model {assignment:b} breaks a bound of {asked:?} over {:?}",
            case.terms
        );
        count += 1;
        let blocking: Vec<Lit> = (1..=case.vars as Lit)
            .map(|v| if holds(assignment, v) { -v } else { v })
            .collect();
        solver.add_clause(&blocking);
    }
}

#[test]
fn bounds_on_random_sums_keep_exactly_the_models_brute_force_finds() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case_number in 0..400 {
        let case = random_case(&mut rng);
        let mut solver = Cadical::new(Default::default());
        for _ in 0..case.vars {
            solver.new_var();
        }
        for c in &case.clauses {
            solver.add_clause(c);
        }
        let sum = solver.add_sum(&case.terms).expect("CaDiCaL keeps sums");
        // All bounds but the last asked from the start; the last added after a search, as an
        // optimisation tightens its bound.
        let (last, first) = case.thresholds.split_last().expect("a threshold");
        let activations: Vec<Lit> = first.iter().map(|&k| solver.sum_at_least(sum, k)).collect();
        let counted = enumerate(&mut solver, &case, &activations, first);
        assert_eq!(counted, brute_force(&case, first), "case {case_number}");
        // The blocking clauses now exclude every model of the first bounds: with one more
        // bound there is none left.
        let mut all = activations.clone();
        all.push(solver.sum_at_least(sum, *last));
        assert_eq!(
            enumerate(&mut solver, &case, &all, &case.thresholds),
            0,
            "case {case_number}"
        );
    }
}

#[test]
fn a_tightened_bound_on_a_fresh_solver_counts_as_brute_force() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for case_number in 0..400 {
        let case = random_case(&mut rng);
        let mut solver = Cadical::new(Default::default());
        for _ in 0..case.vars {
            solver.new_var();
        }
        for c in &case.clauses {
            solver.add_clause(c);
        }
        let sum = solver.add_sum(&case.terms).expect("CaDiCaL keeps sums");
        // A first search without bounds, then all the bounds asserted as unit clauses.
        let _ = solver.solve(&[]);
        for &k in &case.thresholds {
            let a = solver.sum_at_least(sum, k);
            solver.add_clause(&[a]);
        }
        let counted = enumerate(&mut solver, &case, &[], &case.thresholds);
        assert_eq!(
            counted,
            brute_force(&case, &case.thresholds),
            "case {case_number}"
        );
    }
}

#[test]
fn a_sum_is_refused_after_the_first_search() {
    let mut solver = Cadical::new(Default::default());
    let x = solver.new_var();
    solver.add_clause(&[x]);
    assert_eq!(solver.solve(&[]), SatResult::Sat);
    assert_eq!(solver.add_sum(&[(x, 1)]), None);
}
