//! The encoding on small ground theories built by hand: the Tseitin clauses of a formula have
//! exactly its models on its atoms; a definition's completion, with loop formulas added for
//! unfounded sets, leaves exactly its well-founded models; the ranking translation takes over
//! after the rounds of loop formulas it is given; `at_most_one` allows at most one.

use super::*;
use crate::ground::GroundDefinition;
use crate::ids::{PredId, Symbol};
use crate::solve::{Cadical, SatResult};
use crate::source::Span;
use crate::structure::Value;

/// `n` atoms `P(0)`, ..., `P(n-1)`.
fn atoms(store: &mut Store, n: usize) -> Vec<Gf> {
    (0..n)
        .map(|k| store.atom(Symbol::Pred(PredId(0)), &[Value::Int(k as i64)]))
        .collect()
}

/// The value of `g` when atom `k` of `atoms` has value `bits >> k & 1`.
fn eval(store: &Store, atoms: &[Gf], bits: u32, g: Gf) -> bool {
    let value = match store.node(g) {
        Node::True => true,
        Node::Atom(_) => {
            let positive = Gf(g.0.abs());
            let k = atoms.iter().position(|&a| a == positive).expect("an atom");
            bits >> k & 1 == 1
        }
        Node::And(children) => children.iter().all(|&c| eval(store, atoms, bits, c)),
    };
    value != g.is_negated()
}

/// A solver that checks each model (definitions are left to [`Definitions`]).
fn sat() -> Sat {
    Sat::new(
        Box::new(Cadical::without_propagation(Default::default(), None)),
        false,
    )
}

/// The assignments to `atoms` (as bit sets) that `sat`'s clauses allow.
fn models(store: &Store, sat: &mut Sat, atoms: &[Gf]) -> Vec<u32> {
    let lits: Vec<Lit> = atoms.iter().map(|&a| sat.lit(store, a)).collect();
    (0..1u32 << atoms.len())
        .filter(|bits| {
            let assumptions: Vec<Lit> = lits
                .iter()
                .enumerate()
                .map(|(k, &l)| if bits >> k & 1 == 1 { l } else { -l })
                .collect();
            sat.solve(&assumptions, None) == SatResult::Sat
        })
        .collect()
}

/// A small deterministic random generator (xorshift).
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// A random formula over `atoms`, `depth` connectives deep.
fn formula(store: &mut Store, atoms: &[Gf], seed: &mut u64, depth: usize) -> Gf {
    let r = next(seed);
    let g = if depth == 0 || r.is_multiple_of(5) {
        atoms[(r / 5) as usize % atoms.len()]
    } else {
        let n = 2 + (r / 5) as usize % 2;
        let children: Vec<Gf> = (0..n)
            .map(|_| formula(store, atoms, seed, depth - 1))
            .collect();
        match r / 10 % 4 {
            0 | 1 => store.and(children),
            2 => store.or(children),
            _ => store.equiv(children[0], children[1]),
        }
    };
    if next(seed).is_multiple_of(3) {
        -g
    } else {
        g
    }
}

#[test]
fn tseitin_clauses_have_the_formulas_models() {
    let mut seed = 0x2545_F491_4F6C_DD1D;
    for _ in 0..200 {
        let mut store = Store::new();
        let atoms = atoms(&mut store, 4);
        let g = formula(&mut store, &atoms, &mut seed, 3);
        let mut sat = sat();
        sat.assert(&store, g);
        let expected: Vec<u32> = (0..16).filter(|&b| eval(&store, &atoms, b, g)).collect();
        assert_eq!(models(&store, &mut sat, &atoms), expected);
    }
}

#[test]
fn formulas_built_after_a_search_are_encoded_on_demand() {
    let mut store = Store::new();
    let a = atoms(&mut store, 3);
    let mut sat = sat();
    let first = store.or2(a[0], a[1]);
    sat.assert(&store, first);
    assert_eq!(sat.solve(&[], None), SatResult::Sat);
    // A later formula (a loop formula, a bound) over old and new nodes.
    let either = store.or2(a[1], a[2]);
    let later = store.and2(-a[0], either);
    sat.assert(&store, later);
    assert_eq!(models(&store, &mut sat, &a), [0b010, 0b110]);
}

#[test]
fn at_most_one_allows_none_or_one() {
    let mut store = Store::new();
    let a = atoms(&mut store, 3);
    let mut sat = sat();
    sat.at_most_one(&store, &a);
    assert_eq!(models(&store, &mut sat, &a), [0b000, 0b001, 0b010, 0b100]);
}

/// A definition of `P(k)` by `bodies[k]` (disjuncts), over the store's atoms.
fn definition(heads: &[Gf], bodies: Vec<Vec<Gf>>) -> GroundDefinition {
    GroundDefinition {
        rules: heads.iter().copied().zip(bodies).collect(),
        defined: vec![Symbol::Pred(PredId(0))],
        costs: Vec::new(),
    }
}

/// The models of `sat` on `atoms` once `definitions` are checked against each candidate, as
/// a session does: a refuted candidate is searched again.
fn refined_models(
    store: &mut Store,
    sat: &mut Sat,
    definitions: &mut Definitions,
    atoms: &[Gf],
) -> Vec<u32> {
    let lits: Vec<Lit> = atoms.iter().map(|&a| sat.lit(store, a)).collect();
    let mut found = Vec::new();
    while sat.solve(&[], None) == SatResult::Sat {
        if definitions.refine(store, sat).refuted {
            continue;
        }
        let bits = lits
            .iter()
            .enumerate()
            .fold(0, |b, (k, &l)| b | (u32::from(sat.lit_value(l)) << k));
        found.push(bits);
        // Block this model on the atoms.
        let block: Vec<Lit> = lits
            .iter()
            .map(|&l| if sat.lit_value(l) { -l } else { l })
            .collect();
        sat.add_clause(&block);
    }
    found.sort();
    found
}

#[test]
fn completion_and_loop_formulas_leave_the_well_founded_models() {
    // P(0) <- P(1). P(1) <- P(0) | P(2). P(2) open: the loop between P(0) and P(1) is
    // unfounded unless P(2) holds, which completion alone would allow.
    let mut store = Store::new();
    let a = atoms(&mut store, 3);
    let gd = definition(&a[..2], vec![vec![a[1]], vec![a[0], a[2]]]);
    let mut sat = sat();
    assert_completion(&mut store, &mut sat, &gd, None, false);
    assert_eq!(
        models(&store, &mut sat, &a),
        [0b000, 0b011, 0b111],
        "completion allows the unfounded loop"
    );
    let mut definitions = Definitions::new(None);
    definitions.track(&store, &mut sat, &gd, Span::default(), false, None);
    assert!(!definitions.completion_suffices());
    assert_eq!(
        refined_models(&mut store, &mut sat, &mut definitions, &a),
        [0b000, 0b111]
    );
}

#[test]
fn the_ranking_translation_takes_over_after_the_rounds_given() {
    // A cycle P(0) -> P(1) -> P(2) -> P(0), founded only by P(3): each candidate that makes
    // the cycle true without P(3) is refuted; after one round the ranking translation is
    // added, and then completion suffices.
    let mut store = Store::new();
    let a = atoms(&mut store, 4);
    let gd = definition(&a[..3], vec![vec![a[2], a[3]], vec![a[0]], vec![a[1]]]);
    let mut sat = sat();
    assert_completion(&mut store, &mut sat, &gd, None, false);
    let mut definitions = Definitions::new(Some(1));
    definitions.track(&store, &mut sat, &gd, Span::default(), false, None);
    let lits: Vec<Lit> = a.iter().map(|&g| sat.lit(&store, g)).collect();
    // Ask for the unfounded candidate first.
    let unfounded = [lits[0], lits[1], lits[2], -lits[3]];
    assert_eq!(sat.solve(&unfounded, None), SatResult::Sat);
    let refinement = definitions.refine(&mut store, &mut sat);
    assert!(refinement.refuted);
    assert_eq!(refinement.ranked, [1]);
    assert!(definitions.completion_suffices());
    assert_eq!(sat.solve(&unfounded, None), SatResult::Unsat);
    assert_eq!(
        refined_models(&mut store, &mut sat, &mut definitions, &a),
        [0b0000, 0b1111]
    );
}

#[test]
fn atoms_of_non_recursive_definitions_stand_for_their_bodies() {
    // P(3) <- P(0) & P(1).  P(4) <- ~P(2).  Then, in a definition after them,
    // P(5) <- P(3) & P(2): P(3) and P(4) get no variables, P(5)'s body is the conjunction
    // P(0) & P(1) & P(2), and every atom's value in a model is still its definition's.
    let mut store = Store::new();
    let a = atoms(&mut store, 6);
    let and01 = store.and([a[0], a[1]]);
    let and32 = store.and([a[3], a[2]]);
    let first = definition(&a[3..5], vec![vec![and01], vec![-a[2]]]);
    let second = definition(&a[5..6], vec![vec![and32]]);
    let mut sat = sat();
    sat.share_literals();
    let open: Vec<Lit> = a[..3].iter().map(|&g| sat.lit(&store, g)).collect();
    assert_completion(&mut store, &mut sat, &first, None, true);
    assert_completion(&mut store, &mut sat, &second, None, false);
    assert!(sat.is_pending_alias(a[3]) && sat.is_pending_alias(a[4]));
    // P(0), P(1), P(2), P(5), and the conjunction P(5) is equivalent to.
    assert_eq!(sat.num_vars(), 5);
    for bits in 0..8u32 {
        let assumptions: Vec<Lit> = (0..3)
            .map(|k| {
                if bits >> k & 1 == 1 {
                    open[k]
                } else {
                    -open[k]
                }
            })
            .collect();
        assert_eq!(sat.solve(&assumptions, None), SatResult::Sat);
        let p = |k: u32| bits >> k & 1 == 1;
        let expected = [p(0) && p(1), !p(2), p(0) && p(1) && p(2)];
        let values: Vec<bool> = a[3..].iter().map(|&g| sat.value(&store, g)).collect();
        assert_eq!(values, expected, "open atoms {bits:03b}");
    }
    // Asked for, an aliased atom gets its body's literal.
    assert_eq!(sat.lit(&store, a[4]), -open[2]);
    assert!(!sat.is_pending_alias(a[4]));
}

#[test]
fn atoms_keep_their_variables_unless_literals_may_be_shared() {
    // The same first definition in a solver that does not share literals, and one that is
    // told the definition may be recursive: both assert the completion as clauses.
    let mut store = Store::new();
    let a = atoms(&mut store, 4);
    let and01 = store.and([a[0], a[1]]);
    let gd = definition(&a[3..4], vec![vec![and01]]);
    for (share, non_recursive) in [(false, true), (true, false)] {
        let mut sat = sat();
        if share {
            sat.share_literals();
        }
        assert_completion(&mut store, &mut sat, &gd, None, non_recursive);
        assert!(!sat.is_pending_alias(a[3]));
        assert!(sat.existing_lit(a[3]).is_some());
    }
}
