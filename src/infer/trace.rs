//! The trace of a model search (IDP3's `stdoptions.trace`): the steps the traced SAT backend
//! ([`crate::solve::Traced`]) recorded, with each SAT variable told back as the ground atom it
//! stands for (an input atom, `P(1,2)` or a function's graph atom `F(1) = 2`) or as a Tseitin
//! variable of the encoding, as IDP3's trace does.

use rustc_hash::FxHashMap as HashMap;

use crate::ground::{AtomId, Store, AUX};
use crate::ids::Symbol;
use crate::solve::{Lit, TraceEvent};
use crate::structure::Tuple;

/// What a traced assignment assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TracedAtom {
    /// An atom of a vocabulary symbol: a predicate's tuple, or a function's arguments followed
    /// by its value.
    Input(Symbol, Tuple),
    /// A variable of the encoding that stands for no atom (IDP3 prints it `tseitin_N`).
    Tseitin(u32),
}

/// One step of a traced search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceStep {
    /// `atom` got `value` at decision level `level`.
    Assign {
        atom: TracedAtom,
        value: bool,
        level: u32,
    },
    /// The search went back to decision level `level` (its assignments are kept).
    Backtrack { level: u32 },
}

/// The SAT variables of the store's atoms, by variable.
pub struct AtomVars(HashMap<u32, AtomId>);

impl AtomVars {
    /// The variables that `lit_of` gives the store's atoms (the auxiliary atoms excluded).
    pub fn new(store: &Store, lit_of: impl Fn(AtomId) -> Option<Lit>) -> AtomVars {
        let map = (0..store.atom_count() as AtomId)
            .filter(|&a| store.atom_key(a).0 != AUX)
            .filter_map(|a| lit_of(a).filter(|l| *l > 0).map(|l| (l as u32, a)))
            .collect();
        AtomVars(map)
    }

    /// The recorded events with their variables told back as atoms.
    pub fn steps(&self, store: &Store, events: Vec<TraceEvent>) -> Vec<TraceStep> {
        events
            .into_iter()
            .map(|e| match e {
                TraceEvent::Backtrack { level } => TraceStep::Backtrack { level },
                TraceEvent::Assign { lit, level } => TraceStep::Assign {
                    atom: self.atom(store, lit.unsigned_abs()),
                    value: lit > 0,
                    level,
                },
            })
            .collect()
    }

    fn atom(&self, store: &Store, var: u32) -> TracedAtom {
        match self.0.get(&var) {
            Some(&a) => {
                let (symbol, tuple) = store.atom_key(a);
                TracedAtom::Input(*symbol, tuple.clone())
            }
            None => TracedAtom::Tseitin(var),
        }
    }
}
