//! The well-founded model of a ground definition, by the alternating fixpoint: `Γ(J)` is the
//! least set of defined atoms derivable when negative occurrences of defined atoms are read in
//! `J`; the true atoms are the least fixpoint of `Γ∘Γ`, and the possibly-true ones are `Γ` of
//! those. A definition is total in a structure when the two coincide.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::store::{AtomId, Gf, Node, Store};
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

struct Ctx<'c> {
    store: &'c Store,
    defined: &'c HashSet<AtomId>,
    pos: &'c HashSet<AtomId>,
    neg: &'c HashSet<AtomId>,
    open: &'c dyn Fn(AtomId) -> bool,
}

impl Ctx<'_> {
    /// The value of a signed reference `g` read in polarity `positive`: positive occurrences of
    /// defined atoms read `pos`, negative ones read `neg`; a negation flips the polarity.
    fn value(&self, g: Gf, positive: bool, memo: &mut HashMap<(usize, bool), bool>) -> bool {
        if g.is_negated() {
            !self.node_value(g.node(), !positive, memo)
        } else {
            self.node_value(g.node(), positive, memo)
        }
    }

    fn node_value(
        &self,
        node: usize,
        positive: bool,
        memo: &mut HashMap<(usize, bool), bool>,
    ) -> bool {
        let g = Gf(node as i32 + 1);
        match self.store.node(g) {
            Node::True => true,
            Node::Atom(a) if self.defined.contains(&a) => {
                if positive {
                    self.pos.contains(&a)
                } else {
                    self.neg.contains(&a)
                }
            }
            Node::Atom(a) => (self.open)(a),
            Node::And(children) => {
                if let Some(&v) = memo.get(&(node, positive)) {
                    return v;
                }
                let v = children.iter().all(|&c| self.value(c, positive, memo));
                memo.insert((node, positive), v);
                v
            }
        }
    }
}

/// The value of `g` when every atom reads `value`.
pub fn evaluate(store: &Store, g: Gf, value: &dyn Fn(AtomId) -> bool) -> bool {
    let none = HashSet::default();
    let ctx = Ctx {
        store,
        defined: &none,
        pos: &none,
        neg: &none,
        open: value,
    };
    ctx.value(g, true, &mut HashMap::default())
}

fn collect_atoms(store: &Store, g: Gf, seen: &mut HashSet<AtomId>) {
    walk_atoms(store, g, &mut |a, _| {
        seen.insert(a);
        false
    });
}

/// The atoms occurring in `g` under an even (`positive`) or odd number of negations, in the
/// order they are first met.
pub fn atoms_in_polarity(store: &Store, g: Gf, positive: bool) -> HashSet<AtomId> {
    let mut out = HashSet::default();
    walk_atoms(store, g, &mut |a, polarity| {
        if polarity == positive {
            out.insert(a);
        }
        false
    });
    out
}

/// Calls `visit` with the atom occurrences of `g`, each with its polarity (`true` under an
/// even number of negations), depth first, until it returns `true` (then so does this). A
/// conjunction met again in the same polarity is skipped, except one of literals only: its
/// atoms are visited again, which costs less than recording it.
fn walk_atoms(store: &Store, g: Gf, visit: &mut dyn FnMut(AtomId, bool) -> bool) -> bool {
    let mut stack = vec![(g, true)];
    let mut visited: HashSet<(usize, bool)> = HashSet::default();
    while let Some((g, outer)) = stack.pop() {
        let polarity = if g.is_negated() { !outer } else { outer };
        match store.node(g) {
            Node::Atom(a) => {
                if visit(a, polarity) {
                    return true;
                }
            }
            Node::And(children) => {
                let nested = children
                    .iter()
                    .any(|&c| matches!(store.node(c), Node::And(_)));
                if nested && !visited.insert((g.node(), polarity)) {
                    continue;
                }
                stack.extend(children.iter().map(|&c| (c, polarity)));
            }
            Node::True => {}
        }
    }
    false
}

/// `g` with every occurrence in positive polarity of an atom of `set` replaced by `false`
/// (the external support of an unfounded set).
pub fn without_positive(store: &mut Store, g: Gf, set: &HashSet<AtomId>) -> Gf {
    let mut memo = HashMap::default();
    replace_positive(
        store,
        g,
        true,
        &|_, a| set.contains(&a).then_some(Gf::FALSE),
        &mut memo,
    )
}

/// `g` (read in polarity `positive`) with every positive occurrence of an atom `a` for which
/// `replace` gives a formula replaced by that formula.
pub fn replace_positive(
    store: &mut Store,
    g: Gf,
    positive: bool,
    replace: &dyn Fn(&mut Store, AtomId) -> Option<Gf>,
    memo: &mut HashMap<(usize, bool), Gf>,
) -> Gf {
    let polarity = if g.is_negated() { !positive } else { positive };
    let result = if let Some(&r) = memo.get(&(g.node(), polarity)) {
        r
    } else {
        let node_ref = Gf(g.node() as i32 + 1);
        let children = match store.node(node_ref) {
            Node::And(children) => Some(children.to_vec()),
            _ => None,
        };
        let r = match (store.node(node_ref), children) {
            (_, Some(children)) => {
                let new: Vec<Gf> = children
                    .iter()
                    .map(|&c| replace_positive(store, c, polarity, replace, memo))
                    .collect();
                store.and(new)
            }
            (Node::Atom(a), None) if polarity => replace(store, a).unwrap_or(node_ref),
            (Node::True, None) => Gf::TRUE,
            (_, None) => node_ref,
        };
        memo.insert((g.node(), polarity), r);
        r
    };
    if g.is_negated() {
        -result
    } else {
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{PredId, Symbol};

    fn sorted(set: HashSet<AtomId>) -> Vec<AtomId> {
        let mut v: Vec<AtomId> = set.into_iter().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn atoms_by_polarity_through_shared_conjunctions() {
        let mut s = Store::new();
        let [p, q, r] = [0, 1, 2].map(|k| s.atom(Symbol::Pred(PredId(k)), &[]));
        // `p & ~q` (of literals only) is met twice, once under a negation.
        let pq = s.and([p, -q]);
        let outer = s.and([pq, r]);
        let g = s.and([outer, -pq]);
        assert_eq!(sorted(atoms_in_polarity(&s, g, true)), vec![0, 1, 2]);
        assert_eq!(sorted(atoms_in_polarity(&s, g, false)), vec![0, 1]);
        assert_eq!(sorted(atoms_in_polarity(&s, outer, false)), vec![1]);
        let mut seen = HashSet::default();
        collect_atoms(&s, -g, &mut seen);
        assert_eq!(sorted(seen), vec![0, 1, 2]);
    }
}
