//! The splr backend (the design card's solver), for comparison with CaDiCaL. splr 0.17.2 has
//! no assumptions and its incremental mode can panic when grown from an empty solver (splr
//! issue #298), so every call builds a fresh solver from all clauses so far, with the
//! assumptions as unit clauses. That is correct but pays the whole search again on each call,
//! which is why CaDiCaL is the default (BENCHMARKS.md has the figures).

use std::time::Instant;

use crate::solve::{Lit, SatResult, SatSolver};

pub struct Splr {
    clauses: Vec<Vec<i32>>,
    vars: i32,
    model: Vec<bool>,
    deadline: Option<Instant>,
    /// A clause was empty: no call can succeed.
    empty: bool,
}

impl Splr {
    /// A solver that stops at `until`'s deadline (Ctrl-C and the memory limit cannot reach
    /// into a splr call).
    pub fn new(until: &crate::limits::Until) -> Splr {
        Splr {
            clauses: Vec::new(),
            vars: 0,
            model: Vec::new(),
            deadline: until.deadline(),
            empty: false,
        }
    }

    fn config(&self) -> splr::Config {
        let mut config = splr::Config {
            quiet_mode: true,
            ..splr::Config::default()
        };
        // splr counts its time limit in whole seconds (it truncates): round up, so that it
        // stops at most a second after the deadline rather than before it. Ctrl-C and the
        // memory limit cannot reach into a splr call; the watchdog of `limits` ends those.
        if let Some(d) = self.deadline {
            let left = d.saturating_duration_since(Instant::now()).as_secs_f64();
            config.c_timeout = left.ceil().max(1.0);
        }
        config
    }
}

impl SatSolver for Splr {
    fn new_var(&mut self) -> Lit {
        self.vars += 1;
        self.vars
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        if clause.is_empty() {
            self.empty = true;
        }
        self.clauses.push(clause.to_vec());
    }

    fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        if self.empty {
            return SatResult::Unsat;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return SatResult::Interrupted;
        }
        let mut cnf = self.clauses.clone();
        cnf.extend(assumptions.iter().map(|&a| vec![a]));
        // Every variable appears in some clause, so the solver knows all of them.
        cnf.push((1..=self.vars).flat_map(|v| [v, -v]).collect());
        let result = match splr::Solver::try_from((self.config(), cnf.as_slice())) {
            Ok(mut solver) => {
                use splr::SolveIF;
                solver.solve()
            }
            Err(result) => result,
        };
        match result {
            Ok(splr::Certificate::SAT(values)) => {
                self.model = vec![false; self.vars as usize + 1];
                for v in values {
                    if v > 0 && v <= self.vars {
                        self.model[v as usize] = true;
                    }
                }
                SatResult::Sat
            }
            Ok(splr::Certificate::UNSAT) => SatResult::Unsat,
            Err(
                splr::SolverError::EmptyClause
                | splr::SolverError::Inconsistent
                | splr::SolverError::RootLevelConflict(_),
            ) => SatResult::Unsat,
            // A time-out, or a failure inside splr: no answer.
            Err(_) => SatResult::Interrupted,
        }
    }

    fn value(&mut self, lit: Lit) -> bool {
        let v = self
            .model
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(false);
        if lit < 0 {
            !v
        } else {
            v
        }
    }

    fn failed(&self, _lit: Lit) -> bool {
        // splr does not report failed assumptions: every assumption counts as needed.
        true
    }

    fn num_vars(&self) -> usize {
        self.vars as usize
    }
}
