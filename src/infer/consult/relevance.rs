//! Which open atoms still matter in a consultation, read from the ground theory as it was
//! encoded (IDP-Z3's relevance, on `idp`'s grounding): with what every model with the
//! choices shares as known values, each sentence is simplified; an atom is relevant when it
//! occurs in a part of a sentence that those values do not decide, in the rules of a
//! defined atom whose value is known while its bodies do not decide it, or in the rule of a
//! relevant defined atom. A theory without sentences makes every atom of its rules relevant.
//! With goal symbols, only the constraints linked to a goal atom count: a constraint (a
//! conjunct of a ground sentence) is linked when it shares an undecided atom with the goal
//! or with a linked constraint, or through the rules of the defined atoms it reads.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::{AtomId, Gf, Node, Store};
use crate::ids::Symbol;
use crate::infer::session::KeptGround;

/// Three-valued values of the store's nodes under a partial assignment of its atoms.
struct Values<'s> {
    store: &'s Store,
    atom: &'s dyn Fn(AtomId) -> Option<bool>,
    memo: HashMap<usize, Option<bool>>,
}

impl Values<'_> {
    fn of(&mut self, g: Gf) -> Option<bool> {
        let v = self.positive(positive(g));
        if g.is_negated() {
            v.map(|b| !b)
        } else {
            v
        }
    }

    /// The value of a positive reference.
    fn positive(&mut self, g: Gf) -> Option<bool> {
        let node = g.node();
        if let Some(&v) = self.memo.get(&node) {
            return v;
        }
        let v = match self.store.node(g) {
            Node::True => Some(true),
            Node::Atom(a) => (self.atom)(a),
            Node::And(children) => {
                let mut all = Some(true);
                for &c in children {
                    match self.of(c) {
                        Some(false) => {
                            all = Some(false);
                            break;
                        }
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
        };
        self.memo.insert(node, v);
        v
    }

    /// The atoms of `g` under its parts that the values do not decide (none when `g` is
    /// decided).
    fn undecided_atoms(&mut self, g: Gf, seen: &mut HashSet<usize>, out: &mut Vec<AtomId>) {
        if self.of(g).is_some() || !seen.insert(g.node()) {
            return;
        }
        match self.store.node(positive(g)) {
            Node::True => {}
            Node::Atom(a) => out.push(a),
            Node::And(children) => {
                for &c in children {
                    self.undecided_atoms(c, seen, out);
                }
            }
        }
    }
}

/// Whether the disjunction of `bodies` is undecided: none holds, and some may.
fn any_undecided(values: &mut Values<'_>, bodies: &[Gf]) -> bool {
    let mut undecided = false;
    for &b in bodies {
        match values.of(b) {
            Some(true) => return false,
            None => undecided = true,
            Some(false) => {}
        }
    }
    undecided
}

/// `g` without its negation.
fn positive(g: Gf) -> Gf {
    if g.is_negated() {
        -g
    } else {
        g
    }
}

/// The conjuncts of a ground sentence: a positive conjunction is split into its parts.
fn constraints(store: &Store, g: Gf, out: &mut Vec<Gf>) {
    match store.node(g) {
        Node::And(children) if !g.is_negated() => {
            for &c in children {
                constraints(store, c, out);
            }
        }
        _ => out.push(g),
    }
}

/// The undecided atoms that matter, under the values `atom` gives (`None`: unknown); with
/// `goals`, only those linked to an atom of a goal symbol.
pub(super) fn relevant_atoms(
    store: &Store,
    kept: &KeptGround,
    atom: &dyn Fn(AtomId) -> Option<bool>,
    goals: Option<&[Symbol]>,
) -> HashSet<AtomId> {
    let mut values = Values {
        store,
        atom,
        memo: HashMap::default(),
    };
    let mut parts = Vec::new();
    for &s in &kept.sentences {
        constraints(store, s, &mut parts);
    }
    // The undecided atoms of each constraint, and of each defined atom's rules.
    let atoms_of = |values: &mut Values<'_>, gs: &[Gf]| {
        let (mut seen, mut out) = (HashSet::default(), Vec::new());
        for &g in gs {
            values.undecided_atoms(g, &mut seen, &mut out);
        }
        out
    };
    let mut constraint_atoms: Vec<Vec<AtomId>> = parts
        .iter()
        .map(|&p| atoms_of(&mut values, &[p]))
        .filter(|atoms| !atoms.is_empty())
        .collect();
    let mut rule_atoms: HashMap<AtomId, Vec<AtomId>> = HashMap::default();
    for (head, bodies) in &kept.rules {
        let Node::Atom(a) = store.node(*head) else {
            continue;
        };
        if values.of(*head).is_none() {
            rule_atoms
                .entry(a)
                .or_default()
                .extend(atoms_of(&mut values, bodies));
        } else if any_undecided(&mut values, bodies) {
            // A defined atom whose value is known (chosen, or the same in every model) is a
            // constraint on its bodies: some must hold, or none may.
            constraint_atoms.push(atoms_of(&mut values, bodies));
        }
    }
    let mut relevant: HashSet<AtomId> = HashSet::default();
    let mut queue: Vec<AtomId> = Vec::new();
    let add = |a: AtomId, relevant: &mut HashSet<AtomId>, queue: &mut Vec<AtomId>| {
        if relevant.insert(a) {
            queue.push(a);
        }
    };
    match goals {
        None if kept.sentences.is_empty() => {
            for (&head, body) in &rule_atoms {
                add(head, &mut relevant, &mut queue);
                for &a in body {
                    add(a, &mut relevant, &mut queue);
                }
            }
        }
        None => {
            for atoms in &constraint_atoms {
                for &a in atoms {
                    add(a, &mut relevant, &mut queue);
                }
            }
        }
        Some(goals) => {
            let mentioned = constraint_atoms
                .iter()
                .flatten()
                .chain(rule_atoms.keys())
                .chain(rule_atoms.values().flatten());
            for &a in mentioned {
                if goals.contains(&store.atom_key(a).0) && values.of(store.atom_gf(a)).is_none() {
                    add(a, &mut relevant, &mut queue);
                }
            }
        }
    }
    // Linked constraints and rules, to a fixpoint.
    let mut by_atom: HashMap<AtomId, Vec<usize>> = HashMap::default();
    if goals.is_some() {
        for (k, atoms) in constraint_atoms.iter().enumerate() {
            for &a in atoms {
                by_atom.entry(a).or_default().push(k);
            }
        }
    }
    let mut linked = vec![false; constraint_atoms.len()];
    while let Some(a) = queue.pop() {
        if let Some(body) = rule_atoms.get(&a) {
            for &b in body {
                add(b, &mut relevant, &mut queue);
            }
        }
        for &k in by_atom.get(&a).map(Vec::as_slice).unwrap_or(&[]) {
            if !std::mem::replace(&mut linked[k], true) {
                for &b in &constraint_atoms[k] {
                    add(b, &mut relevant, &mut queue);
                }
            }
        }
    }
    relevant
}
