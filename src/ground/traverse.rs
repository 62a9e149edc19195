//! General traversals of the ground store: a formula's value when its atoms read given sets
//! (two-valued, or by polarity as the well-founded evaluation reads defined atoms), its atoms
//! by polarity, and a formula with the positive occurrences of some atoms replaced. The
//! well-founded evaluation (`wellfounded`), the encoding's loop formulas and ranking, and the
//! session use them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::store::{AtomId, Gf, Node, Store};

/// What the atoms of a ground formula read: a defined atom in a positive occurrence reads
/// `pos`, in a negative one `neg`; any other atom reads `open`.
pub(super) struct Ctx<'c> {
    pub store: &'c Store,
    pub defined: &'c HashSet<AtomId>,
    pub pos: &'c HashSet<AtomId>,
    pub neg: &'c HashSet<AtomId>,
    pub open: &'c dyn Fn(AtomId) -> bool,
}

impl Ctx<'_> {
    /// The value of a signed reference `g` read in polarity `positive`: positive occurrences of
    /// defined atoms read `pos`, negative ones read `neg`; a negation flips the polarity.
    pub fn value(&self, g: Gf, positive: bool, memo: &mut HashMap<(usize, bool), bool>) -> bool {
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

pub(super) fn collect_atoms(store: &Store, g: Gf, seen: &mut HashSet<AtomId>) {
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
pub(super) fn walk_atoms(
    store: &Store,
    g: Gf,
    visit: &mut dyn FnMut(AtomId, bool) -> bool,
) -> bool {
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
