//! Which atoms of the defined time-dependent symbols can be true at each step: an
//! over-approximation, as a planning graph gives, that the planner adds to its solver as unit
//! clauses (the atoms that cannot be true at a step are false there).
//!
//! The atoms possible at step 0 are those the initial theory can make true. From the atoms
//! possible at step `i`, those possible at step `i+1` are found on one copy of the bistate
//! theory in a solver of its own, in which every current-state atom that is not possible at
//! `i` is false: a next-state atom is possible when some model makes it true (one model shows
//! many at once), impossible when none does. Pairs of atoms are not tracked (a state is not
//! required to be reachable as a whole), so the sets only grow too large, never too small,
//! and every plan survives them. Once the set of one step equals that of the step before, it
//! stays the same at every later step; if the goal cannot hold in a state made of those atoms,
//! no plan of any length exists.
//!
//! On a maze this is the breadth-first cone of the player's position, walls included (which
//! unit propagation alone does not find: a move into a wall is ruled out by a precondition,
//! not by the definition of the position), and a gate's far side only after its key can be
//! reached.

use crate::limits::Until;
use rustc_hash::FxHashSet as HashSet;

use crate::error::{Error, IdpResult, Limit};
use crate::ids::Symbol;
use crate::solve::{Cadical, Lit, SatResult, SatSolver};
use crate::structure::Tuple;

/// An atom of a time-dependent symbol of the LTC vocabulary, without its time.
pub type StateAtom = (Symbol, Tuple);

/// A template's clauses with the local variables of the atoms that matter here.
pub struct Transition<'t> {
    pub clauses: &'t [Vec<Lit>],
    pub vars: usize,
    /// Current-state atoms of defined symbols (false unless possible now).
    pub now: Vec<(Lit, StateAtom)>,
    /// Atoms whose possibility is asked (next-state atoms of defined symbols).
    pub asked: Vec<(Lit, StateAtom)>,
    /// Asked atoms that are true whatever the current state.
    pub known: Vec<StateAtom>,
}

/// A solver holding `t.clauses` with every atom of `t.now` outside `possible_now` false.
fn restricted(
    t: &Transition,
    possible_now: &HashSet<StateAtom>,
    until: &Until,
    config: Option<&str>,
) -> Cadical {
    let mut solver = Cadical::configured(until.clone(), config);
    for _ in 0..t.vars {
        solver.new_var();
    }
    for c in t.clauses {
        solver.add_clause(c);
    }
    for (v, atom) in &t.now {
        if !possible_now.contains(atom) {
            solver.add_clause(&[-v]);
        }
    }
    solver
}

fn stopped(until: &Until) -> Error {
    match until.check("planning") {
        Err(e) => e,
        Ok(()) => Error::limit(Limit::Search, "the SAT search was stopped"),
    }
}

/// Whether `t.clauses` have a model when every atom of `t.now` outside `possible_now` is
/// false (whether a goal can hold in a state made of possible atoms). `config`: CaDiCaL's
/// configuration, if one is chosen.
pub fn satisfiable(
    t: &Transition,
    possible_now: &HashSet<StateAtom>,
    until: &Until,
    config: Option<&str>,
) -> IdpResult<bool> {
    match restricted(t, possible_now, until, config).solve(&[]) {
        SatResult::Sat => Ok(true),
        SatResult::Unsat => Ok(false),
        SatResult::Interrupted => Err(stopped(until)),
    }
}

/// The atoms of `t.asked` that some model of `t.clauses` makes true when every atom of
/// `t.now` outside `possible_now` is false.
pub fn possible_next(
    t: &Transition,
    possible_now: &HashSet<StateAtom>,
    until: &Until,
    config: Option<&str>,
) -> IdpResult<HashSet<StateAtom>> {
    let mut solver = restricted(t, possible_now, until, config);
    let mut possible: HashSet<StateAtom> = t.known.iter().cloned().collect();
    let mut undecided: Vec<&(Lit, StateAtom)> = t.asked.iter().collect();
    while let Some(&(v, _)) = undecided.last() {
        match solver.solve(&[*v]) {
            SatResult::Sat => undecided.retain(|(w, atom)| {
                let shown = solver.value(*w);
                if shown {
                    possible.insert(atom.clone());
                }
                !shown
            }),
            SatResult::Unsat => {
                undecided.pop();
            }
            SatResult::Interrupted => return Err(stopped(until)),
        }
    }
    Ok(possible)
}
