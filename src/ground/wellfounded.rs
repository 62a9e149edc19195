//! The well-founded model of a ground definition, by the alternating fixpoint: `Γ(J)` is the
//! least set of defined atoms derivable when negative occurrences of defined atoms are read in
//! `J`; the true atoms are the least fixpoint of `Γ∘Γ`, and the possibly-true ones are `Γ` of
//! those. A definition is total in a structure when the two coincide.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::store::{AtomId, Gf, Store};
use crate::ground::traverse::{collect_atoms, walk_atoms, Ctx};
use crate::ground::GroundDefinition;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WellFounded {
    /// Defined atoms that are true in the well-founded model.
    pub true_atoms: HashSet<AtomId>,
    /// Defined atoms that are neither true nor false (empty when the definition is total).
    pub unknown_atoms: HashSet<AtomId>,
}

/// A prepared ground definition: the heads, their bodies, and which heads read which atoms.
pub struct Evaluator {
    heads: Vec<AtomId>,
    bodies: Vec<Vec<Gf>>,
    /// Defined atom -> indexes of heads whose bodies mention it.
    readers: HashMap<AtomId, Vec<usize>>,
    /// Defined atom -> its index in `heads`.
    index: HashMap<AtomId, usize>,
    /// The defined atoms (the heads).
    defined: HashSet<AtomId>,
}

impl Evaluator {
    pub fn new(store: &Store, def: &GroundDefinition) -> Evaluator {
        let mut heads = Vec::new();
        let mut bodies = Vec::new();
        for (head, bs) in &def.rules {
            heads.push(store.as_atom(*head).expect("a rule head is an atom"));
            bodies.push(bs.clone());
        }
        let defined: HashSet<AtomId> = heads.iter().copied().collect();
        // Each head's index is pushed once for every defined atom its bodies read, so
        // `readers` does not depend on the order in which the atoms are found.
        let mut readers: HashMap<AtomId, Vec<usize>> = HashMap::default();
        for (k, bs) in bodies.iter().enumerate() {
            let mut seen = HashSet::default();
            for &b in bs {
                collect_atoms(store, b, &mut seen);
            }
            for a in seen.into_iter().filter(|a| defined.contains(a)) {
                readers.entry(a).or_default().push(k);
            }
        }
        let index = heads.iter().enumerate().map(|(k, &h)| (h, k)).collect();
        Evaluator {
            heads,
            bodies,
            readers,
            index,
            defined,
        }
    }

    /// The open atoms that the well-founded values of `start` depend on: those read by the
    /// bodies of `start` and of every defined atom those bodies read, transitively. Sorted.
    pub fn opens_below(
        &self,
        store: &Store,
        start: impl IntoIterator<Item = AtomId>,
    ) -> Vec<AtomId> {
        let mut seen: HashSet<AtomId> = HashSet::default();
        let mut opens: HashSet<AtomId> = HashSet::default();
        let mut stack: Vec<AtomId> = start.into_iter().collect();
        while let Some(a) = stack.pop() {
            if !seen.insert(a) {
                continue;
            }
            let Some(&k) = self.index.get(&a) else {
                continue;
            };
            let mut read = HashSet::default();
            for &b in &self.bodies[k] {
                collect_atoms(store, b, &mut read);
            }
            for r in read {
                if self.index.contains_key(&r) {
                    stack.push(r);
                } else {
                    opens.insert(r);
                }
            }
        }
        let mut out: Vec<AtomId> = opens.into_iter().collect();
        out.sort_unstable();
        out
    }

    pub fn defined(&self) -> &HashSet<AtomId> {
        &self.defined
    }

    /// The well-founded model given the values of open atoms.
    pub fn well_founded(&self, store: &Store, open: &dyn Fn(AtomId) -> bool) -> WellFounded {
        let mut truth = self.gamma(store, &self.defined, open);
        loop {
            let possible = self.gamma(store, &truth, open);
            let next = self.gamma(store, &possible, open);
            if next == truth {
                let unknown_atoms = possible.difference(&truth).copied().collect();
                return WellFounded {
                    true_atoms: truth,
                    unknown_atoms,
                };
            }
            truth = next;
        }
    }

    /// The least fixpoint with negative occurrences of defined atoms read in `j`.
    pub fn gamma(
        &self,
        store: &Store,
        j: &HashSet<AtomId>,
        open: &dyn Fn(AtomId) -> bool,
    ) -> HashSet<AtomId> {
        let defined = &self.defined;
        let mut derived: HashSet<AtomId> = HashSet::default();
        let mut queue: VecDeque<usize> = (0..self.heads.len()).collect();
        let mut queued: Vec<bool> = vec![true; self.heads.len()];
        while let Some(k) = queue.pop_front() {
            queued[k] = false;
            if derived.contains(&self.heads[k]) {
                continue;
            }
            let ctx = Ctx {
                store,
                defined,
                pos: &derived,
                neg: j,
                open,
            };
            let mut memo = HashMap::default();
            if self.bodies[k]
                .iter()
                .any(|&b| ctx.value(b, true, &mut memo))
            {
                derived.insert(self.heads[k]);
                for &r in self
                    .readers
                    .get(&self.heads[k])
                    .map(|v| v.as_slice())
                    .unwrap_or(&[])
                {
                    if !queued[r] {
                        queued[r] = true;
                        queue.push_back(r);
                    }
                }
            }
        }
        derived
    }

    /// Founded atoms given a full assignment: the least fixpoint where negative occurrences
    /// and opens are read in the assignment `model` (true defined atoms listed in `model_true`).
    pub fn founded(
        &self,
        store: &Store,
        model_true: &HashSet<AtomId>,
        open: &dyn Fn(AtomId) -> bool,
    ) -> HashSet<AtomId> {
        self.gamma(store, model_true, open)
    }

    pub fn heads(&self) -> &[AtomId] {
        &self.heads
    }

    pub fn bodies(&self, k: usize) -> &[Gf] {
        &self.bodies[k]
    }

    /// Whether some body reads a defined atom negatively (then the well-founded model may be
    /// three-valued and totality must be checked).
    pub fn has_negative_recursion(&self, store: &Store) -> bool {
        self.bodies.iter().flatten().any(|&b| {
            walk_atoms(store, b, &mut |a, positive| {
                !positive && self.defined.contains(&a)
            })
        })
    }
}
