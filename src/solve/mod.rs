//! SAT solving behind a small trait, so the encoder and the inferences do not depend on one
//! solver. The default backend is CaDiCaL (incremental, with assumptions); see the README for
//! why it is preferred over splr here.

use std::time::Instant;

mod record;
mod splr;
mod traced;
pub use self::record::{Recorded, Recorder};
pub use self::splr::Splr;
pub use self::traced::{TraceEvent, Traced};

/// A literal in DIMACS convention: a non-zero integer, negative for negation.
pub type Lit = i32;

/// The answer of a SAT call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatResult {
    Sat,
    Unsat,
    /// The call was stopped (time limit or interrupt).
    Interrupted,
}

pub trait SatSolver {
    /// A fresh variable.
    fn new_var(&mut self) -> Lit;
    fn add_clause(&mut self, clause: &[Lit]);
    /// Solves under the given assumptions (which hold only for this call).
    fn solve(&mut self, assumptions: &[Lit]) -> SatResult;
    /// The value of a literal in the last model.
    fn value(&self, lit: Lit) -> bool;
    /// After a call that found no model: whether assumption `lit` was needed for that (the
    /// failed assumptions form an unsatisfiable core). A solver that cannot tell says true.
    fn failed(&self, lit: Lit) -> bool;
    /// Number of variables created so far.
    fn num_vars(&self) -> usize;
    /// The search steps recorded since the last time they were taken (assignments with their
    /// decision levels, backtracks), for a solver that records them ([`Traced`]); `None` for
    /// one that does not.
    fn take_trace(&mut self) -> Option<Vec<TraceEvent>> {
        None
    }
}

/// Stops a CaDiCaL search when the deadline passes, on Ctrl-C, or when the process exceeds the
/// memory limit.
pub struct Deadline {
    until: Option<Instant>,
}

impl cadical::Callbacks for Deadline {
    fn terminate(&mut self) -> bool {
        self.until.is_some_and(|t| Instant::now() >= t)
            || crate::limits::interrupted()
            || crate::limits::memory_exceeded().is_some()
    }
}

pub struct Cadical {
    solver: cadical::Solver<Deadline>,
    vars: i32,
}

impl Cadical {
    pub fn new(deadline: Option<Instant>) -> Cadical {
        // `IDP_CADICAL_CONFIG` (`sat`, `unsat`, `plain`) selects a CaDiCaL configuration for
        // experiments; an unknown name falls back to the default.
        let mut solver: cadical::Solver<Deadline> = std::env::var("IDP_CADICAL_CONFIG")
            .ok()
            .and_then(|c| cadical::Solver::with_config(&c).ok())
            .unwrap_or_default();
        solver.set_callbacks(Some(Deadline { until: deadline }));
        Cadical { solver, vars: 0 }
    }
}

impl SatSolver for Cadical {
    fn new_var(&mut self) -> Lit {
        self.vars += 1;
        self.vars
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.solver.add_clause(clause.iter().copied());
    }

    fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        match self.solver.solve_with(assumptions.iter().copied()) {
            Some(true) => SatResult::Sat,
            Some(false) => SatResult::Unsat,
            None => SatResult::Interrupted,
        }
    }

    fn value(&self, lit: Lit) -> bool {
        self.solver.value(lit).unwrap_or(false)
    }

    fn failed(&self, lit: Lit) -> bool {
        self.solver.failed(lit)
    }

    fn num_vars(&self) -> usize {
        self.vars as usize
    }
}
