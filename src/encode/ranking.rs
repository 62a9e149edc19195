//! The ranking translation of recursive definitions: every true atom in a strongly connected
//! component of the positive dependency graph must be derivable from atoms of that component
//! with a strictly smaller rank (a binary number per atom). Together with the completion this
//! admits exactly the well-supported models, so no loop formulas are needed. Used for the
//! components on which lazily added loop formulas keep finding new loops.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::{atoms_in_polarity, replace_positive, AtomId, Gf, Store, AUX};
use crate::structure::Value;

/// The atoms occurring in positive polarity in `g`.
pub fn positive_atoms(store: &Store, g: Gf) -> HashSet<AtomId> {
    atoms_in_polarity(store, g, true)
}

/// Strongly connected components (with more than one atom, or a self-loop) of the graph
/// `head -> positive body atom` restricted to the heads.
pub fn recursive_components(
    heads: &[AtomId],
    deps: &HashMap<AtomId, Vec<AtomId>>,
) -> Vec<Vec<AtomId>> {
    let index_of: HashMap<AtomId, usize> = heads.iter().enumerate().map(|(k, a)| (*a, k)).collect();
    let succ: Vec<Vec<usize>> = heads
        .iter()
        .map(|h| {
            deps.get(h)
                .map(|v| v.iter().filter_map(|a| index_of.get(a).copied()).collect())
                .unwrap_or_default()
        })
        .collect();
    let mut out = Vec::new();
    for comp in crate::graph::strongly_connected_components(&succ) {
        let recursive = comp.len() > 1 || succ[comp[0]].contains(&comp[0]);
        if recursive {
            out.push(comp.into_iter().map(|k| heads[k]).collect());
        }
    }
    out
}

/// The parts of a graph over `nodes` that no edge leaves: the strongly connected components
/// without successors outside themselves (`succ` gives each node's successors; those outside
/// `nodes` are ignored).
pub fn terminal_components(
    nodes: &[AtomId],
    succ: &dyn Fn(AtomId) -> Vec<AtomId>,
) -> Vec<Vec<AtomId>> {
    let index_of: HashMap<AtomId, usize> = nodes.iter().enumerate().map(|(k, a)| (*a, k)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|&a| {
            succ(a)
                .iter()
                .filter_map(|b| index_of.get(b).copied())
                .collect()
        })
        .collect();
    let components = crate::graph::strongly_connected_components(&edges);
    let mut component_of = vec![0; nodes.len()];
    for (c, members) in components.iter().enumerate() {
        for &k in members {
            component_of[k] = c;
        }
    }
    components
        .iter()
        .enumerate()
        .filter(|(c, members)| {
            members
                .iter()
                .all(|&k| edges[k].iter().all(|&j| component_of[j] == *c))
        })
        .map(|(_, members)| members.iter().map(|&k| nodes[k]).collect())
        .collect()
}

/// Largest number of rank-propagation clauses (component edges and bodies times ranks) that
/// the unary (order-encoded) rankings of one session may take together; components past it
/// get binary ranks. Per component it was not enough: a labyrinth's reachability over 16 time
/// steps is 16 components of 256 fields, each under the limit, and together 13 million
/// clauses and 6.7 GB.
pub const UNARY_RANKING_LIMIT: usize = 4_000_000;

/// The constraints of the ranking translation for one component: for each head, `head`
/// implies one of its bodies in which every positive occurrence of a component atom `a` is
/// replaced by `a ∧ rank(a) < rank(head)`. Ranks are unary (order-encoded) when the component
/// fits in `unary_left` rank-propagation clauses, which propagates far better (that many
/// fewer are left, then); binary otherwise.
pub fn ranking_constraints(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    unary_left: &mut usize,
) -> Vec<Gf> {
    let members: HashSet<AtomId> = component.iter().copied().collect();
    let edges = component_edges(store, component, bodies, &members);
    let max_rank = component.len().saturating_sub(1);
    let bodies_count: usize = component
        .iter()
        .map(|h| bodies.get(h).map_or(0, Vec::len))
        .sum();
    let unary = (edges + bodies_count).saturating_mul(max_rank);
    if unary <= *unary_left {
        *unary_left -= unary;
        unary_ranking(store, component, bodies, &members, max_rank)
    } else {
        binary_ranking(store, component, bodies, &members)
    }
}

/// The number of (head, positive body atom) pairs inside the component.
fn component_edges(
    store: &Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    members: &HashSet<AtomId>,
) -> usize {
    component
        .iter()
        .map(|h| {
            let mut inside = HashSet::default();
            for &b in bodies.get(h).map(|v| v.as_slice()).unwrap_or(&[]) {
                inside.extend(positive_atoms(store, b).intersection(members).copied());
            }
            inside.len()
        })
        .sum()
}

/// Support constraints `head → ⋁ body'`, where `body'` replaces each positive occurrence of a
/// component atom `a` by `a ∧ lower(a, head)`.
fn support_constraints(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    members: &HashSet<AtomId>,
    lower: &mut dyn FnMut(&mut Store, AtomId, AtomId) -> Gf,
) -> Vec<Gf> {
    let mut out = Vec::new();
    for &h in component {
        let mut below: HashMap<AtomId, Gf> = HashMap::default();
        for &b in bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]) {
            for a in positive_atoms(store, b) {
                if members.contains(&a) && !below.contains_key(&a) {
                    below.insert(a, lower(store, a, h));
                }
            }
        }
        let mut supports = Vec::new();
        for &b in bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]) {
            let mut memo = HashMap::default();
            let replace = |store: &mut Store, a: AtomId| -> Option<Gf> {
                let lt = *below.get(&a)?;
                let atom = store.atom_gf(a);
                Some(store.and2(atom, lt))
            };
            supports.push(replace_positive(store, b, true, &replace, &mut memo));
        }
        let head = store.atom_gf(h);
        let support = store.or(supports);
        out.push(store.implies(head, support));
    }
    out
}

/// Unary ranks: `ge(a, k)` for `k = 1 ..= max_rank` means rank(a) ≥ k. A fresh literal
/// `lt(a, h)` stands for rank(a) < rank(h) and implies `ge(a, k) → ge(h, k + 1)` for every k.
fn unary_ranking(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    members: &HashSet<AtomId>,
    max_rank: usize,
) -> Vec<Gf> {
    const GE: i64 = -1;
    const LT: i64 = -2;
    let ge = |store: &mut Store, a: AtomId, k: usize| -> Gf {
        match k {
            0 => Gf::TRUE,
            k if k > max_rank => Gf::FALSE,
            k => store.atom(
                AUX,
                &[Value::Int(GE), Value::Int(a as i64), Value::Int(k as i64)],
            ),
        }
    };
    let mut out = Vec::new();
    for &a in component {
        for k in 2..=max_rank {
            let (upper, lower) = (ge(store, a, k), ge(store, a, k - 1));
            out.push(store.implies(upper, lower));
        }
    }
    let mut lower = |store: &mut Store, a: AtomId, h: AtomId| -> Gf {
        let lt = store.atom(
            AUX,
            &[Value::Int(LT), Value::Int(a as i64), Value::Int(h as i64)],
        );
        for k in 0..=max_rank {
            let (from, to) = (ge(store, a, k), ge(store, h, k + 1));
            let step = store.implies(from, to);
            out.push(store.implies(lt, step));
        }
        lt
    };
    let supports = support_constraints(store, component, bodies, members, &mut lower);
    out.extend(supports);
    out.extend(least_rank_constraints(
        store, component, bodies, members, max_rank, &ge,
    ));
    out
}

/// Ranks no larger than needed: a false atom has rank 0, and a true body whose component atoms
/// all have rank below k gives its head a rank of at most k. The least stage at which the
/// fixpoint derives each atom satisfies these, so no well-supported model is lost, and ranks
/// become determined, which lets the solver propagate them in both directions.
fn least_rank_constraints(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    members: &HashSet<AtomId>,
    max_rank: usize,
    ge: &dyn Fn(&mut Store, AtomId, usize) -> Gf,
) -> Vec<Gf> {
    let mut out = Vec::new();
    for &h in component {
        let atom = store.atom_gf(h);
        let zero = -ge(store, h, 1);
        out.push(store.or2(atom, zero));
        for &b in bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]) {
            let inside: Vec<AtomId> = positive_atoms(store, b)
                .intersection(members)
                .copied()
                .collect();
            for k in 0..max_rank {
                let mut below = vec![b];
                for &a in &inside {
                    below.push(-ge(store, a, k));
                }
                let premise = store.and(below);
                let capped = -ge(store, h, k + 1);
                out.push(store.implies(premise, capped));
            }
        }
    }
    out
}

/// Binary ranks of ⌈log₂ |component|⌉ bits per atom, compared with ripple comparators.
fn binary_ranking(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
    members: &HashSet<AtomId>,
) -> Vec<Gf> {
    let bits = (usize::BITS - component.len().leading_zeros()) as usize;
    let ranks: HashMap<AtomId, Vec<Gf>> = component
        .iter()
        .map(|&a| {
            (
                a,
                (0..bits)
                    .map(|b| store.atom(AUX, &[Value::Int(a as i64), Value::Int(b as i64)]))
                    .collect(),
            )
        })
        .collect();
    let mut lower = |store: &mut Store, a: AtomId, h: AtomId| -> Gf {
        less_than(store, &ranks[&a], &ranks[&h])
    };
    support_constraints(store, component, bodies, members, &mut lower)
}

/// `x < y` for two binary numbers given most significant bit first.
fn less_than(store: &mut Store, x: &[Gf], y: &[Gf]) -> Gf {
    let mut terms = Vec::new();
    let mut equal_so_far = Gf::TRUE;
    for (&a, &b) in x.iter().zip(y) {
        let here = store.and([equal_so_far, -a, b]);
        terms.push(here);
        let same = store.equiv(a, b);
        equal_so_far = store.and2(equal_so_far, same);
    }
    store.or(terms)
}
