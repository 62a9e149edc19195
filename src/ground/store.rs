//! The ground formula store: a hash-consed DAG of conjunctions over atoms, with negation on
//! the edges. A [`Gf`] is a signed node reference: `Gf::TRUE`/`Gf::FALSE` are constants,
//! `-g` is the negation of `g`. Disjunction is negated conjunction of negations. Building a node
//! simplifies it (constants, duplicates, complementary children), so identical subformulas are
//! shared and trivial ones vanish while grounding.

use hashbrown::HashTable;
use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

use crate::sema::program::Symbol;
use crate::structure::value::{Tuple, Value};

/// A key `(head, values)` borrowed, to look up a map keyed by `(head, Vec)` without copying
/// the values: it hashes and compares as the stored key does (an atom's symbol and tuple, a
/// memoised node and the values of its variables).
#[derive(Hash)]
pub struct SliceKey<'a, H, T>(pub H, pub &'a [T]);

impl<H: PartialEq, T: PartialEq> indexmap::Equivalent<(H, Vec<T>)> for SliceKey<'_, H, T> {
    fn equivalent(&self, key: &(H, Vec<T>)) -> bool {
        self.0 == key.0 && self.1 == key.1.as_slice()
    }
}

/// A signed reference to a ground formula node. Node 0 is `true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gf(pub i32);

impl Gf {
    pub const TRUE: Gf = Gf(1);
    pub const FALSE: Gf = Gf(-1);

    pub fn node(self) -> usize {
        (self.0.unsigned_abs() - 1) as usize
    }
    pub fn is_negated(self) -> bool {
        self.0 < 0
    }
    pub fn is_const(self) -> bool {
        self.node() == 0
    }
    pub fn from_bool(b: bool) -> Gf {
        if b {
            Gf::TRUE
        } else {
            Gf::FALSE
        }
    }
}

impl std::ops::Neg for Gf {
    type Output = Gf;
    fn neg(self) -> Gf {
        Gf(-self.0)
    }
}

/// An atom: a predicate tuple, or a function graph tuple (arguments then value).
pub type AtomId = u32;

/// The reserved symbol under which auxiliary propositions (such as the rank bits of the
/// ranking translation) are stored as atoms; no vocabulary symbol has this id.
pub const AUX: Symbol = Symbol::Pred(crate::sema::program::PredId(u32::MAX));

/// A node as callers see it: a borrowed view into the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node<'s> {
    True,
    Atom(AtomId),
    /// Conjunction of (sorted, distinct) children.
    And(&'s [Gf]),
}

/// A node as stored: a conjunction's children live in the store's one arena (12 bytes, so
/// that more nodes share a cache line).
#[derive(Clone, Copy, Debug)]
enum Entry {
    True,
    Atom(AtomId),
    And { start: u32, len: u32 },
}

/// The hash of a node's content (the same for a stored node and a node being built), folded
/// to the 32 bits that the hash-consing table keeps.
fn node_hash(n: Node<'_>) -> u32 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = FxBuildHasher.build_hasher();
    match n {
        Node::True => 0u8.hash(&mut h),
        Node::Atom(a) => {
            1u8.hash(&mut h);
            a.hash(&mut h);
        }
        Node::And(children) => {
            2u8.hash(&mut h);
            children.hash(&mut h);
        }
    }
    let full = h.finish();
    (full ^ (full >> 32)) as u32
}

/// The table hash of a kept 32-bit node hash: spread over 64 bits by an odd multiplier (a
/// bijection), so that both the bucket (low bits) and the tag (top bits) depend on all of it.
fn spread(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A 32-bit arena position or length (a store of 2^32 children would need 16 GB).
fn arena_index(k: usize) -> u32 {
    u32::try_from(k).expect("the ground store holds fewer than 2^32 children")
}

#[derive(Clone, Default)]
pub struct Store {
    /// The nodes: a node's position is its id.
    entries: Vec<Entry>,
    /// The children of all conjunctions, each a contiguous run.
    children: Vec<Gf>,
    /// Hash-consing: node ids with the (32-bit) hash of their content, kept so that growing
    /// the table does not hash the nodes again; 8 bytes an entry.
    index: HashTable<(u32, u32)>,
    /// A conjunction's children while it is built (reused, so building allocates nothing).
    scratch: Vec<Gf>,
    atoms: IndexSet<(Symbol, Tuple), FxBuildHasher>,
    /// Node of each atom.
    atom_nodes: Vec<Gf>,
    /// Keep complementary children (`p & ~p`, `p | ~p`, `p <=> p`) instead of folding them
    /// to a constant: set while grounding rule bodies, where the well-founded semantics is
    /// three-valued and `D | ~D` is unknown, not true, while `D` is.
    pub keep_complements: bool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("nodes", &self.entries.len())
            .field("atoms", &self.atoms.len())
            .finish()
    }
}

impl Store {
    pub fn new() -> Store {
        let mut s = Store::default();
        s.intern(Node::True);
        s
    }

    /// The view of a stored entry.
    fn view(&self, e: Entry) -> Node<'_> {
        match e {
            Entry::True => Node::True,
            Entry::Atom(a) => Node::Atom(a),
            Entry::And { start, len } => {
                let start = start as usize;
                Node::And(&self.children[start..start + len as usize])
            }
        }
    }

    /// The node for `n`, stored on first use.
    fn intern(&mut self, n: Node<'_>) -> Gf {
        let hash = node_hash(n);
        let same = |&(h, id): &(u32, u32)| h == hash && self.view(self.entries[id as usize]) == n;
        if let Some(&(_, id)) = self.index.find(spread(hash), same) {
            return Gf(id as i32 + 1);
        }
        let id = self.entries.len();
        let entry = match n {
            Node::True => Entry::True,
            Node::Atom(a) => Entry::Atom(a),
            Node::And(c) => {
                let start = arena_index(self.children.len());
                self.children.extend_from_slice(c);
                Entry::And {
                    start,
                    len: arena_index(c.len()),
                }
            }
        };
        self.entries.push(entry);
        self.index
            .insert_unique(spread(hash), (hash, id as u32), |&(h, _)| spread(h));
        Gf(id as i32 + 1)
    }

    pub fn node(&self, g: Gf) -> Node<'_> {
        self.view(self.entries[g.node()])
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }

    /// The atom for `(symbol, tuple)`, created on first use (the tuple is copied only then).
    pub fn atom(&mut self, symbol: Symbol, tuple: &[Value]) -> Gf {
        if let Some(g) = self.find_atom(symbol, tuple) {
            return g;
        }
        let (id, _) = self.atoms.insert_full((symbol, tuple.to_vec()));
        let g = self.intern(Node::Atom(id as AtomId));
        self.atom_nodes.push(g);
        g
    }

    /// The atom if it exists already.
    pub fn find_atom(&self, symbol: Symbol, tuple: &[Value]) -> Option<Gf> {
        self.atoms
            .get_index_of(&SliceKey(symbol, tuple))
            .map(|i| self.atom_nodes[i])
    }

    pub fn atom_count(&self) -> usize {
        self.atoms.len()
    }

    pub fn atom_key(&self, id: AtomId) -> &(Symbol, Tuple) {
        self.atoms.get_index(id as usize).expect("atom id in range")
    }

    pub fn atom_gf(&self, id: AtomId) -> Gf {
        self.atom_nodes[id as usize]
    }

    /// The atom id of a positive atom reference.
    pub fn as_atom(&self, g: Gf) -> Option<AtomId> {
        match self.node(g) {
            Node::Atom(a) if !g.is_negated() => Some(a),
            _ => None,
        }
    }

    pub fn and(&mut self, children: impl IntoIterator<Item = Gf>) -> Gf {
        let mut v = std::mem::take(&mut self.scratch);
        v.clear();
        let mut absorbed = false;
        for c in children {
            if c == Gf::FALSE {
                absorbed = true;
                break;
            }
            if c != Gf::TRUE {
                v.push(c);
            }
        }
        let g = if absorbed {
            Gf::FALSE
        } else {
            self.and_of(&mut v)
        };
        self.scratch = v;
        g
    }

    pub fn or(&mut self, children: impl IntoIterator<Item = Gf>) -> Gf {
        -self.and(children.into_iter().map(|c| -c))
    }

    /// The conjunction of `v` (no constants in it): sorted and deduplicated in place, folded
    /// when it has a complementary pair (unless complements are kept), then interned.
    fn and_of(&mut self, v: &mut Vec<Gf>) -> Gf {
        // Sorted by node, a literal and its complement are adjacent.
        v.sort_unstable_by_key(|g| (g.0.unsigned_abs(), g.0));
        v.dedup();
        if !self.keep_complements && v.windows(2).any(|w| w[0] == -w[1]) {
            return Gf::FALSE;
        }
        match v.len() {
            0 => Gf::TRUE,
            1 => v[0],
            _ => self.intern(Node::And(v)),
        }
    }

    pub fn and2(&mut self, a: Gf, b: Gf) -> Gf {
        self.and([a, b])
    }

    pub fn or2(&mut self, a: Gf, b: Gf) -> Gf {
        self.or([a, b])
    }

    pub fn implies(&mut self, a: Gf, b: Gf) -> Gf {
        self.or([-a, b])
    }

    pub fn equiv(&mut self, a: Gf, b: Gf) -> Gf {
        if a == b && !self.keep_complements {
            return Gf::TRUE;
        }
        if a == -b && !self.keep_complements {
            return Gf::FALSE;
        }
        if a.is_const() {
            return if a == Gf::TRUE { b } else { -b };
        }
        if b.is_const() {
            return if b == Gf::TRUE { a } else { -a };
        }
        let l = self.implies(a, b);
        let r = self.implies(b, a);
        self.and2(l, r)
    }

    /// How many constraints a ground sentence is: the children of a conjunction, none for
    /// `true`, one for anything else.
    pub fn instances(&self, g: Gf) -> usize {
        match self.node(g) {
            Node::And(c) => c.len(),
            _ if g == Gf::TRUE => 0,
            _ => 1,
        }
    }

    /// The children of a conjunction node (empty for atoms and constants).
    pub fn children(&self, g: Gf) -> &[Gf] {
        match self.node(g) {
            Node::And(c) => c,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::program::PredId;

    #[test]
    fn simplifies_and_shares() {
        let mut s = Store::new();
        let p = s.atom(Symbol::Pred(PredId(0)), &[]);
        let q = s.atom(Symbol::Pred(PredId(1)), &[]);
        assert_eq!(s.and([p, Gf::TRUE]), p);
        assert_eq!(s.and([p, -p]), Gf::FALSE);
        assert_eq!(s.or([p, -p]), Gf::TRUE);
        let a = s.and([p, q]);
        assert_eq!(s.and([q, p, q]), a);
        assert_eq!(s.or([Gf::FALSE, q]), q);
        assert_eq!(s.atom(Symbol::Pred(PredId(0)), &[]), p);
    }

    #[test]
    fn keeps_complements_when_asked() {
        let mut s = Store::new();
        let p = s.atom(Symbol::Pred(PredId(0)), &[]);
        s.keep_complements = true;
        assert!(!s.or([p, -p]).is_const());
        assert!(!s.and([p, -p]).is_const());
        assert!(!s.equiv(p, p).is_const());
    }

    #[test]
    fn shares_nodes_across_growth() {
        let mut s = Store::new();
        let atoms: Vec<Gf> = (0..200)
            .map(|k| s.atom(Symbol::Pred(PredId(k)), &[]))
            .collect();
        let pairs: Vec<Gf> = atoms
            .windows(3)
            .map(|w| s.and([w[2], -w[0], w[1]]))
            .collect();
        let len = s.len();
        for (w, &g) in atoms.windows(3).zip(&pairs) {
            assert_eq!(s.and([w[1], w[2], -w[0]]), g);
            assert_eq!(s.children(g).len(), 3);
            assert_eq!(s.or([-w[1], w[0], -w[2]]), -g);
        }
        assert_eq!(s.len(), len);
        assert_eq!(s.node(Gf::TRUE), Node::True);
        assert!(matches!(s.node(atoms[7]), Node::Atom(7)));
    }
}
