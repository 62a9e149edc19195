//! Large thresholds of sums kept whole: `Σ wᵢ·[gᵢ] ≥ k`, where a decision diagram would need
//! too many nodes, becomes one auxiliary atom that the solver's linear-sum propagator decides
//! (`solve::linear`), the way clasp keeps a weight constraint whole.
//!
//! A sentence that bounds a sum of many known weights (IDP-Z3's
//! `sum{{distance(x, y) | x, y in chosen: x ~= y}} >= 2 * k()`, 2450 pairs with weights up to
//! 39) grounds to a diagram of one node per pair and partial total: 144 549 nodes there, which
//! unit propagation walks again after every decision (40 000 propagations per conflict). The
//! atom instead stands for the comparison in both directions: the session gives the solver
//! the sum and ties the atom to a bound on it and its negation to a bound on the sum of the
//! negated guards (`Σ wᵢ·[¬gᵢ] ≥ W − k + 1`, W the total weight). A solver without sums gets
//! the diagram after all ([`Grounder::threshold_diagram`]).
//!
//! Only sentences get such atoms: a rule body keeps its diagram, whose nodes the definition's
//! dependency graph reads (an atom would hide the defined atoms under it).

use crate::error::IdpResult;
use crate::ground::store::AUX;
use crate::ground::{Gf, Grounder};
use crate::structure::Value;

/// The tag of the auxiliary atoms that stand for thresholds.
const THRESHOLD_TAG: i64 = -13;

/// From how many diagram nodes a threshold is kept whole.
pub(crate) const WHOLE_ABOVE: usize = 20_000;

/// `atom ↔ Σ weight·[guard] ≥ threshold` over guards of which the solver decides the truth.
#[derive(Clone, Debug)]
pub struct WholeThreshold {
    pub atom: Gf,
    /// The guards with their (positive) weights.
    pub terms: Vec<(Gf, u64)>,
    pub threshold: u64,
}

impl WholeThreshold {
    /// What all the terms weigh together.
    pub fn total_weight(&self) -> u64 {
        self.terms
            .iter()
            .fold(0u64, |s, &(_, w)| s.saturating_add(w))
    }
}

impl Grounder<'_> {
    /// The atom of `Σ weight·[guard] ≥ threshold` (weights positive, threshold positive),
    /// registered for the session to encode.
    pub(crate) fn whole_threshold(&mut self, terms: Vec<(Gf, u64)>, threshold: u64) -> Gf {
        let n = self.thresholds.len() as i64;
        let atom = self
            .store
            .atom(AUX, &[Value::Int(THRESHOLD_TAG), Value::Int(n)]);
        self.thresholds.push(WholeThreshold {
            atom,
            terms,
            threshold,
        });
        atom
    }

    /// The thresholds kept whole so far, in the order they were made.
    pub fn whole_thresholds(&self) -> &[WholeThreshold] {
        &self.thresholds
    }

    /// `t`'s comparison as a decision diagram, for a solver that keeps no sums.
    pub fn threshold_diagram(&mut self, t: &WholeThreshold) -> IdpResult<Gf> {
        let elements: Vec<Vec<(Gf, Value)>> = t
            .terms
            .iter()
            .map(|&(g, w)| vec![(g, Value::Int(w as i64))])
            .collect();
        let diagram = self.at_least(&elements, t.threshold as i64, false)?;
        Ok(diagram.unwrap_or(Gf::FALSE))
    }
}
