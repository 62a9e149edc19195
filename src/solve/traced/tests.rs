//! The traced solver against brute force on small random formulas: satisfiability, models,
//! enumeration, failed assumptions, and the consistency of the recorded trace.

use super::*;

/// A small deterministic generator (xorshift), so the instances are the same on every run.
struct Gen(u64);

impl Gen {
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

fn random_cnf(g: &mut Gen, vars: usize, clauses: usize) -> Vec<Vec<Lit>> {
    (0..clauses)
        .map(|_| {
            let len = 1 + g.below(3) as usize;
            (0..len)
                .map(|_| {
                    let v = 1 + g.below(vars as u64) as Lit;
                    if g.below(2) == 0 {
                        v
                    } else {
                        -v
                    }
                })
                .collect()
        })
        .collect()
}

fn satisfies(assignment: &[bool], clause: &[Lit]) -> bool {
    clause
        .iter()
        .any(|&l| assignment[l.unsigned_abs() as usize] == (l > 0))
}

/// Every assignment of `vars` variables (index 0 unused) that satisfies `cnf` and `units`.
fn brute_models(vars: usize, cnf: &[Vec<Lit>], units: &[Lit]) -> Vec<Vec<bool>> {
    (0..1u32 << vars)
        .map(|bits| {
            let mut a = vec![false];
            a.extend((0..vars).map(|i| bits >> i & 1 == 1));
            a
        })
        .filter(|a| cnf.iter().all(|c| satisfies(a, c)))
        .filter(|a| units.iter().all(|&u| satisfies(a, &[u])))
        .collect()
}

fn solver_with(vars: usize, cnf: &[Vec<Lit>]) -> Traced {
    let mut s = Traced::new(Default::default());
    for _ in 0..vars {
        s.new_var();
    }
    for c in cnf {
        s.add_clause(c);
    }
    s
}

fn model_of(s: &mut Traced, vars: usize) -> Vec<bool> {
    let mut m = vec![false];
    m.extend((1..=vars as Lit).map(|v| s.value(v)));
    m
}

/// Replays a trace: the assignments that hold at its end, by variable, with their levels.
/// Panics when a backtrack does not go to a lower level or an assignment is made below the
/// current level.
fn replay(trace: &[TraceEvent], vars: usize) -> Vec<Option<(bool, u32)>> {
    let mut state: Vec<Option<(bool, u32)>> = vec![None; vars + 1];
    let mut level = 0u32;
    for e in trace {
        match *e {
            TraceEvent::Assign { lit, level: l } => {
                assert!(l >= level, "assignment at level {l} below level {level}");
                let v = lit.unsigned_abs() as usize;
                assert!(state[v].is_none(), "variable {v} assigned twice");
                state[v] = Some((lit > 0, l));
                level = l;
            }
            TraceEvent::Backtrack { level: l } => {
                assert!(l < level, "backtrack to {l} from level {level}");
                for s in state.iter_mut() {
                    if s.is_some_and(|(_, at)| at > l) {
                        *s = None;
                    }
                }
                level = l;
            }
        }
    }
    state
}

#[test]
fn agrees_with_brute_force_and_traces_the_model() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    for round in 0..300 {
        let vars = 3 + g.below(8) as usize;
        let n = 2 + g.below(4 * vars as u64) as usize;
        let cnf = random_cnf(&mut g, vars, n);
        let expected = brute_models(vars, &cnf, &[]);
        let mut s = solver_with(vars, &cnf);
        let result = s.solve(&[]);
        assert_eq!(
            result == SatResult::Sat,
            !expected.is_empty(),
            "round {round}"
        );
        let trace = s.take_events();
        let end = replay(&trace, vars);
        if result == SatResult::Sat {
            let m = model_of(&mut s, vars);
            assert!(cnf.iter().all(|c| satisfies(&m, c)), "round {round}");
            for v in 1..=vars {
                assert_eq!(end[v].map(|(b, _)| b), Some(m[v]), "round {round}, var {v}");
            }
        }
    }
}

#[test]
fn enumerates_every_model_with_blocking_clauses() {
    let mut g = Gen(12345);
    for round in 0..100 {
        let vars = 2 + g.below(6) as usize;
        let n = g.below(2 * vars as u64) as usize;
        let cnf = random_cnf(&mut g, vars, n);
        let expected = brute_models(vars, &cnf, &[]);
        let mut s = solver_with(vars, &cnf);
        let mut found = Vec::new();
        let mut trace = Vec::new();
        while s.solve(&[]) == SatResult::Sat {
            let m = model_of(&mut s, vars);
            let events = s.take_events();
            let end = replay(&[trace.clone(), events.clone()].concat(), vars);
            for v in 1..=vars {
                assert_eq!(end[v].map(|(b, _)| b), Some(m[v]));
            }
            trace.extend(events);
            let block: Vec<Lit> = (1..=vars as Lit)
                .map(|v| if m[v as usize] { -v } else { v })
                .collect();
            found.push(m);
            s.add_clause(&block);
        }
        trace.extend(s.take_events());
        replay(&trace, vars);
        found.sort();
        let mut expected = expected;
        expected.sort();
        assert_eq!(found, expected, "round {round}");
    }
}

#[test]
fn failed_assumptions_explain_unsatisfiability() {
    let mut g = Gen(777);
    for round in 0..300 {
        let vars = 3 + g.below(6) as usize;
        let n = g.below(3 * vars as u64) as usize;
        let cnf = random_cnf(&mut g, vars, n);
        let assumptions: Vec<Lit> = (0..1 + g.below(4))
            .map(|_| {
                let v = 1 + g.below(vars as u64) as Lit;
                if g.below(2) == 0 {
                    v
                } else {
                    -v
                }
            })
            .collect();
        let expected = brute_models(vars, &cnf, &assumptions);
        let mut s = solver_with(vars, &cnf);
        let result = s.solve(&assumptions);
        assert_eq!(
            result == SatResult::Sat,
            !expected.is_empty(),
            "round {round}"
        );
        match result {
            SatResult::Sat => {
                let m = model_of(&mut s, vars);
                assert!(assumptions.iter().all(|&a| satisfies(&m, &[a])));
            }
            _ => {
                let core: Vec<Lit> = assumptions
                    .iter()
                    .copied()
                    .filter(|&a| s.failed(a))
                    .collect();
                assert!(brute_models(vars, &cnf, &core).is_empty(), "round {round}");
            }
        }
        replay(&s.take_events(), vars);
        // The solver stays usable: without assumptions it answers as brute force does.
        let free = brute_models(vars, &cnf, &[]);
        assert_eq!(s.solve(&[]) == SatResult::Sat, !free.is_empty());
    }
}

#[test]
fn a_pigeonhole_formula_is_unsatisfiable_after_backtracking() {
    // 4 pigeons in 3 holes: p(i, h) is variable 3 * i + h + 1.
    let p = |i: i32, h: i32| 3 * i + h + 1;
    let mut cnf: Vec<Vec<Lit>> = (0..4).map(|i| (0..3).map(|h| p(i, h)).collect()).collect();
    for h in 0..3 {
        for i in 0..4 {
            for j in i + 1..4 {
                cnf.push(vec![-p(i, h), -p(j, h)]);
            }
        }
    }
    let mut s = solver_with(12, &cnf);
    assert_eq!(s.solve(&[]), SatResult::Unsat);
    let trace = s.take_events();
    replay(&trace, 12);
    assert!(trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Backtrack { .. })));
    assert!(trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Assign { level: 1, .. })));
}

#[test]
fn an_empty_clause_makes_every_call_unsatisfiable() {
    let mut s = solver_with(2, &[vec![1, 2]]);
    s.add_clause(&[]);
    assert_eq!(s.solve(&[]), SatResult::Unsat);
    assert_eq!(s.solve(&[1]), SatResult::Unsat);
}

#[test]
fn luby_sequence() {
    let first: Vec<u64> = (0..15).map(luby).collect();
    assert_eq!(first, vec![1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
}
