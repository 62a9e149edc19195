//! A function's values bounded by the sentences that put its applications in a known atom
//! (issue 50, `src/ground/value_bounds.rs`): a Hamiltonian cycle written with a successor
//! function, `! x : Edge(x, Next(x)).`, is ground over the edges, not over every pair of
//! nodes; every phrasing of that bound keeps exactly the models brute force finds.

mod support;

use support::Rng;

/// The phrasings of "every node's successor is along an edge" that the bound reads, and two
/// it must not read as one (an open or a defined predicate).
const PHRASINGS: &[&str] = &[
    "! x : Edge(x, Next(x)).",
    "! x y : Next(x) = y => Edge(x, y).",
    "! x y : y = Next(x) => Edge(x, y).",
    "! x : ! y : Next(x) ~= y | Edge(x, y).",
    "! x : Edge(x, Next(x)) & Next(x) ~= x.",
    "! x : Arc(x, Next(x)). ! x y : Arc(x, y) <=> Edge(x, y).",
    "{ ! x y : Arc(x, y) <- Edge(x, y). } ! x : Arc(x, Next(x)).",
];

/// Hamiltonian cycles over nodes `0..n` whose successor function is bounded by `phrasing`.
fn spec(n: usize, edges: &[(usize, usize)], phrasing: &str) -> String {
    let edges: Vec<String> = edges.iter().map(|(a, b)| format!("{a},{b}")).collect();
    let arc = if phrasing.contains("Arc") {
        "Arc(Node, Node)"
    } else {
        ""
    };
    format!(
        "vocabulary V {{
  type Node isa int
  Edge(Node, Node)
  {arc}
  Next(Node) : Node
  Reach(Node)
}}
theory T : V {{
  {phrasing}
  ! y : ?1 x : Next(x) = y.
  {{ Reach(0). ! y : Reach(y) <- ? x : Reach(x) & Next(x) = y. }}
  ! x : Reach(x).
}}
structure S : V {{
  Node = {{ 0..{} }}
  Edge = {{ {} }}
}}
",
        n - 1,
        edges.join("; ")
    )
}

/// The Hamiltonian cycles of the graph, by trying every successor function.
fn cycles(n: usize, edges: &[(usize, usize)]) -> u64 {
    let mut count = 0;
    let mut next = vec![0usize; n];
    'functions: loop {
        let along_edges = (0..n).all(|x| edges.contains(&(x, next[x])));
        if along_edges {
            let (mut at, mut seen) = (0, vec![false; n]);
            for _ in 0..n {
                seen[at] = true;
                at = next[at];
            }
            if at == 0 && seen.iter().all(|&s| s) {
                count += 1;
            }
        }
        for successor in next.iter_mut() {
            *successor += 1;
            if *successor < n {
                continue 'functions;
            }
            *successor = 0;
        }
        return count;
    }
}

fn random_graph(n: usize, rng: &mut Rng) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b && rng.below(100) < 55 {
                edges.push((a, b));
            }
        }
    }
    edges
}

#[test]
fn every_phrasing_keeps_the_models_of_brute_force() {
    let mut rng = Rng(0x5eed_2026);
    let mut nonzero = 0;
    for round in 0..12 {
        let n = 4 + round % 3;
        let edges = random_graph(n, &mut rng);
        let expected = cycles(n, &edges);
        nonzero += usize::from(expected > 0);
        for phrasing in PHRASINGS {
            assert_eq!(
                support::model_count(&["--nowarnings"], &spec(n, &edges, phrasing)),
                expected,
                "{phrasing} on {n} nodes, edges {edges:?}"
            );
        }
    }
    assert!(nonzero >= 6, "the graphs have cycles to count");
}

#[test]
fn small_graphs_agree_with_the_naive_checker_and_brute_force() {
    // The library's oracle: every model checked against the theory, brute force over all
    // interpretations counting the same.
    let edges = [(0, 1), (1, 2), (2, 0), (1, 0), (0, 2), (2, 1)];
    let models = support::assert_models(&spec(3, &edges, PHRASINGS[0]), 2);
    assert!(models
        .iter()
        .any(|m| m.contains("Next = { 0->1; 1->2; 2->0 }")));
}

/// A graph of `n` nodes around a hidden cycle `0 -> 1 -> .. -> 0`, plus two edges per node.
fn large_graph(n: usize) -> Vec<(usize, usize)> {
    let mut rng = Rng(0x4a11);
    let mut edges: Vec<(usize, usize)> = (0..n).map(|a| (a, (a + 1) % n)).collect();
    for a in 0..n {
        for _ in 0..2 {
            let b = rng.below(n as u64) as usize;
            if b != a && !edges.contains(&(a, b)) {
                edges.push((a, b));
            }
        }
    }
    edges
}

#[test]
fn a_successor_function_is_ground_over_the_edges_only() {
    // 2000 nodes: over the whole range, `Next` alone has four million atoms, and the
    // grounding stopped at its size limit; over the edges, about three per node. The
    // phrasings through an open or a defined predicate are not read as a bound.
    let edges = large_graph(2000);
    for phrasing in &PHRASINGS[..5] {
        let spec = spec(2000, &edges, phrasing);
        let out = support::idp(&["--nowarnings", "--stats", "-n", "1"], &spec);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(10), "{phrasing}: {stdout}{stderr}");
        assert!(stdout.contains("Next = {"), "{stdout}");
        let atoms: u64 = stderr
            .lines()
            .find(|l| l.contains("grounded and encoded"))
            .and_then(|l| l.split(" atoms").next())
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a stats line with the atoms: {stderr}"));
        assert!(atoms <= 4 * 2000, "{phrasing}: {atoms} atoms");
    }
}
