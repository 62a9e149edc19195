//! A solver that only records: the clauses added to it and how many variables were made. A
//! theory encoded into it becomes a clause template (the LTC planner copies the bistate
//! theory's clauses once per time step into one live solver). It cannot solve.

use std::cell::RefCell;
use std::rc::Rc;

use crate::solve::{Lit, SatResult, SatSolver};

/// The clauses recorded so far, shared with whoever reads them after the encoding.
pub type Recorded = Rc<RefCell<Vec<Vec<Lit>>>>;

#[derive(Default)]
pub struct Recorder {
    clauses: Recorded,
    vars: i32,
}

impl Recorder {
    /// A recorder and the handle to read its clauses from.
    pub fn new() -> (Recorder, Recorded) {
        let clauses = Recorded::default();
        let recorder = Recorder {
            clauses: clauses.clone(),
            vars: 0,
        };
        (recorder, clauses)
    }
}

impl SatSolver for Recorder {
    fn new_var(&mut self) -> Lit {
        self.vars += 1;
        self.vars
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.clauses.borrow_mut().push(clause.to_vec());
    }

    /// A recorder never searches: every call is reported as stopped.
    fn solve(&mut self, _assumptions: &[Lit]) -> SatResult {
        SatResult::Interrupted
    }

    fn value(&mut self, _lit: Lit) -> bool {
        false
    }

    fn failed(&self, _lit: Lit) -> bool {
        true
    }

    fn num_vars(&self) -> usize {
        self.vars as usize
    }
}
