//! `minimize` against brute force: minimum (weighted) vertex covers of small pseudo-random
//! graphs, with every bound strategy (descending, bisection, ascending, galloping). The optimum and the number of
//! optimal models must be those of an enumeration of all subsets.

mod support;

use idp::infer::Strategy;
use idp::infer::{self, Options};
use idp::sema::Component;
use idp::structure::Value;
use support::program;

/// A graph on `n` vertices with edges drawn from `seed`, and weights 1..=3.
fn graph(n: usize, seed: u64) -> (Vec<(usize, usize)>, Vec<i64>) {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let mut edges = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if next() % 3 == 0 {
                edges.push((a, b));
            }
        }
    }
    let weights = (0..n).map(|_| 1 + (next() % 3) as i64).collect();
    (edges, weights)
}

/// The least cost of a vertex cover and how many covers have it (brute force).
fn brute_force(n: usize, edges: &[(usize, usize)], cost: impl Fn(usize) -> i64) -> (i64, usize) {
    let mut best = (i64::MAX, 0);
    for set in 0usize..1 << n {
        if edges
            .iter()
            .all(|&(a, b)| set >> a & 1 == 1 || set >> b & 1 == 1)
        {
            let c = cost(set);
            if c < best.0 {
                best = (c, 1);
            } else if c == best.0 {
                best.1 += 1;
            }
        }
    }
    best
}

fn minimize(text: &str, strategy: Strategy) -> (Option<Value>, usize) {
    optimum(text, Some(strategy), 0)
}

/// The optimum of term O over theory T in structure S with `strategy` (`None`: the default
/// search), and the optimal models found (`nbmodels` of them; 0: all).
fn optimum(text: &str, strategy: Option<Strategy>, nbmodels: usize) -> (Option<Value>, usize) {
    let p = program(text);
    let (Some(Component::Theory(t)), Some(Component::Structure(s)), Some(Component::Term(o))) =
        (p.lookup(&["T"]), p.lookup(&["S"]), p.lookup(&["O"]))
    else {
        panic!("T, S and O expected")
    };
    let options = Options {
        nbmodels,
        tuning: infer::Tuning {
            minimize: strategy,
            ..Default::default()
        },
        ..Options::default()
    };
    let term = &p.terms[o.index()];
    let found = infer::minimize(
        &p,
        &p.theories[t.index()],
        &p.structures[s.index()],
        &term.term,
        None,
        &options,
    )
    .expect("minimize succeeds")
    .value;
    assert!(found.proven);
    (found.value, found.models.len())
}

#[test]
fn minimum_vertex_covers_agree_with_brute_force() {
    for seed in 0..12u64 {
        let n = 4 + (seed % 4) as usize;
        let (edges, weights) = graph(n, seed);
        let edge_text: Vec<String> = edges.iter().map(|(a, b)| format!("{a},{b}")).collect();
        let weight_text: Vec<String> = weights
            .iter()
            .enumerate()
            .map(|(v, w)| format!("{v}->{w}"))
            .collect();
        for weighted in [false, true] {
            let objective = if weighted {
                "sum{ x[Vtx]: In(x): W(x) }"
            } else {
                "#{ x[Vtx]: In(x) }"
            };
            let text = format!(
                "vocabulary V {{\n type Vtx isa int\n Edge(Vtx, Vtx)\n In(Vtx)\n W(Vtx) : int\n}}\n\
                 theory T : V {{ ! x y: Edge(x, y) => In(x) | In(y). }}\n\
                 structure S : V {{\n Vtx = {{ 0..{} }}\n Edge = {{ {} }}\n W = {{ {} }}\n}}\n\
                 term O : V {{ {objective} }}\n",
                n - 1,
                edge_text.join("; "),
                weight_text.join("; "),
            );
            let cost = |set: usize| -> i64 {
                (0..n)
                    .filter(|v| set >> v & 1 == 1)
                    .map(|v| if weighted { weights[v] } else { 1 })
                    .sum()
            };
            let (best, count) = brute_force(n, &edges, cost);
            for strategy in [
                Strategy::Descend,
                Strategy::Bisect,
                Strategy::Ascend,
                Strategy::Gallop,
                Strategy::Auto,
            ] {
                let (value, models) = minimize(&text, strategy);
                let what = format!("seed {seed}, weighted {weighted}, {strategy:?}");
                assert_eq!(value, Some(Value::Int(best)), "{what}");
                assert_eq!(models, count, "{what}");
            }
        }
    }
}

/// Maximum cliques, the count of their nodes maximised: the non-edges exclude pairs of nodes,
/// so the bounds count groups of nodes no two of which are adjacent (colour classes) instead
/// of nodes. The optimum and the number of maximum cliques are those of brute force.
#[test]
fn maximum_cliques_agree_with_brute_force() {
    for seed in 0..16u64 {
        let n = 5 + (seed % 6) as usize;
        // The sparse graphs of `graph` complemented: about two thirds of the pairs adjacent.
        let (sparse, _) = graph(n, seed);
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|e| !sparse.contains(e))
            .collect();
        let edge_text: Vec<String> = edges.iter().map(|(a, b)| format!("{a},{b}")).collect();
        let text = format!(
            "vocabulary V {{\n type Vtx isa int\n Edge(Vtx, Vtx)\n In(Vtx)\n}}\n\
             theory T : V {{ ! x y: In(x) & In(y) & x < y => Edge(x, y). }}\n\
             structure S : V {{\n Vtx = {{ 0..{} }}\n Edge = {{ {} }}\n}}\n\
             term O : V {{ -#{{ x[Vtx]: In(x) }} }}\n",
            n - 1,
            edge_text.join("; "),
        );
        let mut best = (0usize, 0usize);
        for set in 0usize..1 << n {
            let clique = (0..n).all(|a| {
                (a + 1..n)
                    .all(|b| set >> a & 1 == 0 || set >> b & 1 == 0 || edges.contains(&(a, b)))
            });
            let size = set.count_ones() as usize;
            if clique && size > best.0 {
                best = (size, 1);
            } else if clique && size == best.0 {
                best.1 += 1;
            }
        }
        for strategy in [None, Some(Strategy::Ascend), Some(Strategy::Bisect)] {
            let (value, models) = optimum(&text, strategy, 0);
            let what = format!("seed {seed}, {n} nodes, {strategy:?}");
            assert_eq!(value, Some(Value::Int(-(best.0 as i64))), "{what}");
            assert_eq!(models, best.1, "{what}");
        }
    }
}

/// An objective with hundreds of values: past a few improvements the search bisects what is
/// left instead of a SAT call per value (minimising a function's value over 1000 nodes took
/// 156 s that way). The optimum is the one a scan of the values gives.
#[test]
fn an_objective_with_many_values_is_bisected() {
    let spec = "vocabulary V {\n  type Node isa int\n  D(Node) : Node\n}\ntheory T : V {\n  ! x : D(x) ~= x.\n  D(7) ~= 1.\n}\nterm t : V { D(7) + D(9) }\nstructure S : V {\n  Node = { 1..300 }\n  D<cf> = { 7->300; 9->299; 9->300 }\n}\n";
    let o = support::idp(
        &["-e", "local _, o1, v1 = minimize(T, S, t) local _, o2, v2 = maximize(T, S, t) print(o1, v1, o2, v2)"],
        spec,
    );
    // Least: D(7) = 2, D(9) = 1; largest: D(7) = 299, D(9) = 298.
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "true\t3\ttrue\t-597\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Core-guided minimisation (`IDP_MINIMIZE=cores`, `src/infer/cores.rs`) on 1200 small random
/// weighted problems: clauses over `In`, a weighted sum minimised or maximised (weights 0 to
/// 5, so cores of several weights, stratified), against brute force over every subset, and
/// against the default model-improving search. Every third problem counts (`#{ x : In(x) }`),
/// whose bounds the default search asks of a totalizer.
#[test]
fn core_guided_optima_agree_with_brute_force() {
    let mut rng = support::Rng(0xc0de_5eed);
    let mut unsatisfiable = 0;
    for round in 0..1200 {
        let n = 3 + round % 6;
        let counts = round % 3 == 2;
        let weights: Vec<i64> = (0..n)
            .map(|_| if counts { 1 } else { rng.below(6) as i64 })
            .collect();
        let mut clauses: Vec<Vec<(usize, bool)>> = Vec::new();
        for _ in 0..rng.below(2 * n as u64) {
            let len = 1 + rng.below(3) as usize;
            clauses.push(
                (0..len)
                    .map(|_| (rng.below(n as u64) as usize, rng.below(2) == 0))
                    .collect(),
            );
        }
        let maximise = round % 2 == 1;
        let sentence = |c: &Vec<(usize, bool)>| {
            let lits: Vec<String> = c
                .iter()
                .map(|&(x, positive)| format!("{}In({x})", if positive { "" } else { "~" }))
                .collect();
            format!("  {}.\n", lits.join(" | "))
        };
        let theory: String = clauses.iter().map(sentence).collect();
        let weight_text: Vec<String> = weights
            .iter()
            .enumerate()
            .map(|(v, w)| format!("{v}->{w}"))
            .collect();
        let sign = if maximise { "-" } else { "" };
        let objective = if counts {
            "#{ x[Vtx]: In(x) }"
        } else {
            "sum{ x[Vtx]: In(x): W(x) }"
        };
        let text = format!(
            "vocabulary V {{\n type Vtx isa int\n In(Vtx)\n W(Vtx) : int\n}}\n\
             theory T : V {{\n{theory} true.\n}}\n\
             structure S : V {{\n Vtx = {{ 0..{} }}\n W = {{ {} }}\n}}\n\
             term O : V {{ {sign}{objective} }}\n",
            n - 1,
            weight_text.join("; "),
        );
        let mut best: Option<i64> = None;
        for set in 0usize..1 << n {
            let holds = |&(x, positive): &(usize, bool)| (set >> x & 1 == 1) == positive;
            if clauses.iter().all(|c| c.iter().any(holds)) {
                let total: i64 = (0..n)
                    .filter(|x| set >> x & 1 == 1)
                    .map(|x| weights[x])
                    .sum();
                let value = if maximise { -total } else { total };
                best = Some(best.map_or(value, |b| b.min(value)));
            }
        }
        unsatisfiable += usize::from(best.is_none());
        let (cores, _) = optimum(&text, Some(Strategy::Cores), 1);
        let (descend, _) = optimum(&text, None, 1);
        let expected = best.map(Value::Int);
        assert_eq!(cores, expected, "round {round}, cores:\n{text}");
        assert_eq!(descend, expected, "round {round}, default:\n{text}");
    }
    assert!(
        (10..600).contains(&unsatisfiable),
        "{unsatisfiable} without a model"
    );
}
