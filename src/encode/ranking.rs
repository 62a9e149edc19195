//! The ranking translation of recursive definitions: every true atom in a strongly connected
//! component of the positive dependency graph must be derivable from atoms of that component
//! with a strictly smaller rank (a binary number per atom). Together with the completion this
//! admits exactly the well-supported models, so no loop formulas are needed. Used for the
//! components on which lazily added loop formulas keep finding new loops.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ground::store::{AtomId, Gf, Store, AUX};
use crate::ground::wellfounded::{atoms_in_polarity, replace_positive};
use crate::structure::value::Value;

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
    for comp in tarjan(&succ) {
        let recursive = comp.len() > 1 || succ[comp[0]].contains(&comp[0]);
        if recursive {
            out.push(comp.into_iter().map(|k| heads[k]).collect());
        }
    }
    out
}

/// Tarjan's algorithm without recursion.
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut comps, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
    comps
}

/// The constraints of the ranking translation for one component: for each head, `head`
/// implies one of its bodies in which every positive occurrence of a component atom `a` is
/// replaced by `a ∧ rank(a) < rank(head)`.
pub fn ranking_constraints(
    store: &mut Store,
    component: &[AtomId],
    bodies: &HashMap<AtomId, Vec<Gf>>,
) -> Vec<Gf> {
    let bits = (usize::BITS - component.len().leading_zeros()) as usize;
    let ranks: HashMap<AtomId, Vec<Gf>> = component
        .iter()
        .map(|&a| {
            (
                a,
                (0..bits)
                    .map(|b| store.atom(AUX, vec![Value::Int(a as i64), Value::Int(b as i64)]))
                    .collect(),
            )
        })
        .collect();
    let members: HashSet<AtomId> = component.iter().copied().collect();
    let mut out = Vec::new();
    for &h in component {
        let mut supports = Vec::new();
        for &b in bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]) {
            let mut memo = HashMap::default();
            let replace = |store: &mut Store, a: AtomId| -> Option<Gf> {
                if !members.contains(&a) {
                    return None;
                }
                let lt = less_than(store, &ranks[&a], &ranks[&h]);
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
