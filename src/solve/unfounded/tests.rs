//! Random positive programs solved by CaDiCaL with unfounded-set propagation, their models
//! counted and compared with the least models computed directly.

use super::*;
use crate::solve::{Cadical, SatResult, SatSolver};

/// A tiny deterministic generator (xorshift), so the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A body literal: a defined atom (positive) or an open atom with a sign.
#[derive(Clone, Copy, Debug)]
enum BodyLit {
    Defined(usize),
    Open(usize, bool),
}

struct Program {
    defined: usize,
    opens: usize,
    /// (head, body) rules.
    rules: Vec<(usize, Vec<BodyLit>)>,
    /// Clauses over defined atoms (signed, 1-based as `d + 1`).
    constraints: Vec<Vec<i64>>,
}

fn random_program(rng: &mut Rng) -> Program {
    let defined = 1 + rng.below(8);
    let opens = rng.below(7);
    let mut rules = Vec::new();
    for _ in 0..rng.below(3 * defined + 1) {
        let head = rng.below(defined);
        let mut body = Vec::new();
        for _ in 0..1 + rng.below(3) {
            if opens == 0 || rng.below(3) > 0 {
                body.push(BodyLit::Defined(rng.below(defined)));
            } else {
                body.push(BodyLit::Open(rng.below(opens), rng.below(2) == 0));
            }
        }
        rules.push((head, body));
    }
    let mut constraints = Vec::new();
    for _ in 0..rng.below(4) {
        let clause = (0..1 + rng.below(3))
            .map(|_| {
                let d = rng.below(defined) as i64 + 1;
                if rng.below(2) == 0 {
                    d
                } else {
                    -d
                }
            })
            .collect();
        constraints.push(clause);
    }
    Program {
        defined,
        opens,
        rules,
        constraints,
    }
}

/// The number of models: for every choice of the opens, the least model of the rules, if
/// it satisfies the constraints.
fn brute_force_count(p: &Program) -> usize {
    let mut count = 0;
    for bits in 0..1u32 << p.opens {
        let open = |o: usize| bits >> o & 1 == 1;
        let mut truth = vec![false; p.defined];
        loop {
            let mut changed = false;
            for (head, body) in &p.rules {
                let holds = body.iter().all(|&l| match l {
                    BodyLit::Defined(d) => truth[d],
                    BodyLit::Open(o, positive) => open(o) == positive,
                });
                if holds && !truth[*head] {
                    truth[*head] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let ok = p.constraints.iter().all(|c| {
            c.iter()
                .any(|&l| truth[l.unsigned_abs() as usize - 1] == (l > 0))
        });
        count += ok as usize;
    }
    count
}

/// The number of models found by CaDiCaL with the completion, the graph and blocking
/// clauses over the opens.
fn solver_count(p: &Program) -> (usize, SearchStats) {
    let mut s = Cadical::new(Default::default());
    let defined: Vec<Lit> = (0..p.defined).map(|_| s.new_var()).collect();
    let opens: Vec<Lit> = (0..p.opens).map(|_| s.new_var()).collect();
    let lit_of = |l: BodyLit| match l {
        BodyLit::Defined(d) => defined[d],
        BodyLit::Open(o, true) => opens[o],
        BodyLit::Open(o, false) => -opens[o],
    };
    let mut graph = DefinitionGraph::default();
    for &d in &defined {
        graph.nodes.push(GraphNode {
            lit: d,
            conjunctive: false,
            children: Vec::new(),
        });
    }
    let mut bodies_of: Vec<Vec<Lit>> = vec![Vec::new(); p.defined];
    for (head, body) in &p.rules {
        if let [single] = body.as_slice() {
            // A body of one literal is the atom's child itself (an OR node reading an open
            // literal directly, with either sign).
            let child = match *single {
                BodyLit::Defined(d) => GraphChild::Node(d),
                other => GraphChild::Lit(lit_of(other)),
            };
            bodies_of[*head].push(lit_of(*single));
            graph.nodes[*head].children.push(child);
            continue;
        }
        let b = s.new_var();
        let mut all = vec![b];
        for &l in body {
            s.add_clause(&[-b, lit_of(l)]);
            all.push(-lit_of(l));
        }
        s.add_clause(&all);
        bodies_of[*head].push(b);
        let children = body
            .iter()
            .map(|&l| match l {
                BodyLit::Defined(d) => GraphChild::Node(d),
                other => GraphChild::Lit(lit_of(other)),
            })
            .collect();
        let node = graph.nodes.len();
        graph.nodes.push(GraphNode {
            lit: b,
            conjunctive: true,
            children,
        });
        graph.nodes[*head].children.push(GraphChild::Node(node));
    }
    for (d, bodies) in bodies_of.iter().enumerate() {
        let mut clause = vec![-defined[d]];
        clause.extend(bodies);
        s.add_clause(&clause);
        for &b in bodies {
            s.add_clause(&[defined[d], -b]);
        }
    }
    for c in &p.constraints {
        let clause: Vec<Lit> = c
            .iter()
            .map(|&l| {
                let d = defined[l.unsigned_abs() as usize - 1];
                if l > 0 {
                    d
                } else {
                    -d
                }
            })
            .collect();
        s.add_clause(&clause);
    }
    assert!(s.propagate_definition(&graph));
    let mut count = 0;
    while s.solve(&[]) == SatResult::Sat {
        count += 1;
        assert!(
            count <= 1 << p.opens,
            "more models than choices of the opens"
        );
        let mut block: Vec<Lit> = opens
            .iter()
            .map(|&o| if s.value(o) { -o } else { o })
            .collect();
        if block.is_empty() {
            break;
        }
        block.sort_unstable();
        s.add_clause(&block);
    }
    let stats = s.search_stats().expect("propagator connected");
    (count, stats)
}

#[test]
fn random_positive_programs_have_their_least_models() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut propagated = 0;
    for case in 0..3000 {
        let p = random_program(&mut rng);
        let (count, stats) = solver_count(&p);
        assert_eq!(
            count,
            brute_force_count(&p),
            "case {case}: rules {:?}, constraints {:?}",
            p.rules,
            p.constraints
        );
        assert_eq!(
            stats.late_sets, 0,
            "case {case}: a complete assignment showed a set"
        );
        propagated += stats.propagated;
    }
    assert!(propagated > 1000, "propagation did little: {propagated}");
}

#[test]
fn a_two_atom_loop_is_false_without_outside_support() {
    // p <- q. q <- p. p <- o. Without o, p and q are unfounded.
    let mut s = Cadical::new(Default::default());
    let (p, q, o) = (s.new_var(), s.new_var(), s.new_var());
    s.add_clause(&[-p, q, o]);
    s.add_clause(&[p, -q]);
    s.add_clause(&[p, -o]);
    s.add_clause(&[-q, p]);
    s.add_clause(&[q, -p]);
    let graph = DefinitionGraph {
        nodes: vec![
            GraphNode {
                lit: p,
                conjunctive: false,
                children: vec![GraphChild::Node(1), GraphChild::Lit(o)],
            },
            GraphNode {
                lit: q,
                conjunctive: false,
                children: vec![GraphChild::Node(0)],
            },
        ],
    };
    assert!(s.propagate_definition(&graph));
    assert_eq!(s.solve(&[-o, p]), SatResult::Unsat);
    assert_eq!(s.solve(&[o, p]), SatResult::Sat);
    let stats = s.search_stats().unwrap();
    assert_eq!(stats.nodes, 2);
    assert!(stats.unfounded_sets >= 1);
}

#[test]
fn nodes_off_every_cycle_do_not_take_part() {
    let graph = DefinitionGraph {
        nodes: vec![
            GraphNode {
                lit: 1,
                conjunctive: false,
                children: vec![GraphChild::Node(1)],
            },
            GraphNode {
                lit: 2,
                conjunctive: false,
                children: vec![GraphChild::Lit(3)],
            },
            GraphNode {
                lit: 4,
                conjunctive: false,
                children: vec![GraphChild::Node(4), GraphChild::Node(0)],
            },
            GraphNode {
                lit: 5,
                conjunctive: true,
                children: vec![GraphChild::Node(4)],
            },
            GraphNode {
                lit: 6,
                conjunctive: false,
                children: vec![GraphChild::Node(3)],
            },
        ],
    };
    assert_eq!(cyclic_nodes(&graph), vec![false, false, false, true, true]);
}
