//! End-to-end checks of the engine on small theories: the number of models found by model
//! expansion must equal the number found by brute-force enumeration with the naive checker
//! (independent of the grounder and the solver; it shares the program and its domains), and
//! every model returned must pass that checker.

mod support;

use idp::infer::{self, Options};
use idp::infer::{brute_force_count, check_model};
use idp::sema::{Component, Program};
use support::program;

fn theory_and_structure(p: &Program) -> (idp::ids::TheoryId, idp::ids::StructId) {
    let Some(Component::Theory(t)) = p.lookup(&["T"]) else {
        panic!("no theory T")
    };
    let Some(Component::Structure(s)) = p.lookup(&["S"]) else {
        panic!("no structure S")
    };
    (t, s)
}

/// Model expansion finds `expected` models, each passes the checker, and brute force agrees.
fn assert_models(text: &str, expected: usize) {
    let p = program(text);
    let (t, s) = theory_and_structure(&p);
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let options = Options {
        nbmodels: 0,
        ..Options::default()
    };
    let models = infer::modelexpand(&p, theory, structure, None, &options)
        .expect("model expansion succeeds")
        .value;
    for m in &models {
        if let Err(why) = check_model(&p, theory, m) {
            panic!("a returned model is wrong: {why}\n{m:?}");
        }
    }
    assert_eq!(models.len(), expected, "model count");
    if let Some(n) = brute_force_count(&p, theory, structure, 1 << 16) {
        assert_eq!(n as usize, expected, "brute force count");
    }
}

/// Model expansion finds as many models as brute force finds, at least one.
fn assert_models_of_brute_force(text: &str) {
    let p = program(text);
    let (t, s) = theory_and_structure(&p);
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let expected = brute_force_count(&p, theory, structure, 1 << 16).expect("brute force");
    assert!(expected > 0);
    assert_models(text, expected as usize);
}

#[test]
fn propositional_choice() {
    assert_models(
        "vocabulary V {\n P\n Q\n R\n}\ntheory T : V { P | Q | R. }\nstructure S : V { }",
        7,
    );
}

#[test]
fn graph_colouring_counts_24() {
    let text = r#"
vocabulary V {
    type Vtx
    type Colour
    Edge(Vtx, Vtx)
    Colouring(Vtx) : Colour
}
theory T : V { ! x y : Edge(x, y) => Colouring(x) ~= Colouring(y). }
structure S : V {
    Vtx = { 1..4 }
    Colour = { red; green; blue }
    Edge = { 1,2; 1,3; 2,4 }
}
"#;
    assert_models(text, 24);
}

#[test]
fn definitions_are_well_founded() {
    // Under the well-founded semantics a positive loop makes both false: one model.
    assert_models(
        "vocabulary V {\n P\n Q\n}\ntheory T : V { { P <- Q. Q <- P. } }\nstructure S : V { }",
        1,
    );
    // A loop through negation is not total: no model.
    assert_models(
        "vocabulary V {\n P\n Q\n}\ntheory T : V { { P <- ~Q. Q <- ~P. } }\nstructure S : V { }",
        0,
    );
    // An open symbol decides the defined one.
    assert_models(
        "vocabulary V {\n O\n P\n}\ntheory T : V { { P <- O. } }\nstructure S : V { }",
        2,
    );
}

#[test]
fn reachability_with_open_edges() {
    let text = r#"
vocabulary V {
    type N isa int
    E(N, N)
    R(N)
}
theory T : V {
    { R(1). ! x : R(x) <- ? y : R(y) & E(y, x). }
    R(3).
}
structure S : V { N = { 1..3 } }
"#;
    // Edges chosen freely (2^9 candidates); node 3 must be reachable from node 1.
    let p = program(text);
    let (t, s) = theory_and_structure(&p);
    let n = brute_force_count(
        &p,
        &p.theories[t.index()],
        &p.structures[s.index()],
        1 << 16,
    )
    .unwrap();
    assert!(n > 0);
    assert_models(text, n as usize);
}

#[test]
fn partial_functions_and_aggregates() {
    let text = r#"
vocabulary V {
    type T
    partial f(T) : T
}
theory T : V { }
structure S : V { T = { 1..2 } }
"#;
    // Each of the 2 inputs is undefined or one of 2 values: 3^2.
    assert_models(text, 9);
    let text = r#"
vocabulary V {
    type D isa int
    P(D)
}
theory T : V { sum{ x : P(x) : x } = 5. }
structure S : V { D = { 1..5 } }
"#;
    // Subsets of {1..5} summing to 5: {5}, {1,4}, {2,3}.
    assert_models(text, 3);
    let text = r#"
vocabulary V {
    type D isa int
    P(D)
}
theory T : V { max{ x : P(x) : x } =< 2. }
structure S : V { D = { 1..4 } }
"#;
    // The empty set has maximum -infinity: {}, {1}, {2}, {1,2}.
    assert_models(text, 4);
}

#[test]
fn counting_quantifiers() {
    let text = "vocabulary V {\n type D\n P(D)\n}\ntheory T : V { ?2 x : P(x). }\nstructure S : V { D = { 1..4 } }";
    assert_models(text, 6);
}

/// A rule variable takes its sort from the head (`T`), not from the comparison with an integer
/// literal in the body; otherwise it would range over `int` and could not be grounded.
#[test]
fn rule_variables_take_the_head_sort() {
    assert_models(
        "vocabulary V {\n type T isa int\n N(T)\n Q(T)\n}\n\
         theory T : V {\n { N(0). N(x) <- N(x-1) & x =< 3. }\n ! x: Q(x) => N(x).\n}\n\
         structure S : V { T = {0..5} }",
        16,
    );
}

/// A positive recursive definition over known data is evaluated bottom up (semi-naively, with
/// the direct join): layered reachability whose head has arithmetic, a rule that reads the
/// definition twice (transitive closure), and an open symbol that depends on the result.
#[test]
fn positive_definitions_over_known_data_are_evaluated_bottom_up() {
    assert_models(
        r#"
vocabulary V {
    type N isa int
    type Time isa int
    Edge(N, N)
    Start(N)
    Reach(Time, N)
    Path(N, N)
    Q(N)
    R(N)
}
theory T : V {
    {
        ! n[N]: Reach(0, n) <- Start(n).
        ! t[Time] n[N] m[N]: Reach(t + 1, m) <- Reach(t, n) & Edge(n, m) & ~Start(m).
    }
    {
        ! n[N] m[N]: Path(n, m) <- Edge(n, m).
        ! n[N] m[N] k[N]: Path(n, k) <- Path(n, m) & Path(m, k).
    }
    ! n[N]: Q(n) <=> ? t[Time]: Reach(t, n) & t > 1.
    ! n[N]: R(n) <=> Path(n, n).
}
structure S : V {
    N = { 1..5 }
    Time = { 0..3 }
    Edge = { 1,2; 2,3; 3,4; 4,2; 5,5 }
    Start = { 1 }
}
"#,
        1,
    );
}

/// A head variable compared with a number (`k ~= 1`) keeps the head's finite sort: a
/// comparison never widens a sort derived from a symbol (found writing `specs/colourmaze`).
#[test]
fn head_variable_compared_with_a_number_keeps_the_head_sort() {
    let text = "vocabulary V {\n type C isa int\n W(C) : int\n P(C)\n}\n\
                theory T : V {\n\
                  { ! k: W(k) = 1 <- k ~= 1. ! k: W(k) = 0 <- k = 1. }\n\
                  { ! k: P(k) <- k > 1. }\n\
                }\n\
                structure S : V { C = { 1..3 } }";
    assert_models(text, 1);
}

/// A positive recursive rule with an existential body (`? n: R(s, n) & Edge(n, m)`) is evaluated
/// bottom up with joins, like the same rule with n as a rule variable: on a chain of 2000 steps
/// both take well under a second (the existential took about 15 s when it was grounded for
/// every (s, m)). Compared with each other, not with the clock, so a loaded machine does not
/// matter.
#[test]
fn existential_bodies_are_joined_in_bottom_up_evaluation() {
    let existential = "! s[N] m[N]: R(s + 1, m) <- ? n[N]: R(s, n) & Edge(n, m).";
    let rule_variable = "! s[N] m[N] n[N]: R(s + 1, m) <- R(s, n) & Edge(n, m).";
    let with_existential = time_chain_definition(existential);
    let with_rule_variable = time_chain_definition(rule_variable);
    assert!(
        with_existential < with_rule_variable * 4 + std::time::Duration::from_millis(500),
        "{with_existential:?} against {with_rule_variable:?}"
    );
}

/// The time to expand a chain of 2000 edges under the definition `{ R(0, 0). rule }`.
fn time_chain_definition(rule: &str) -> std::time::Duration {
    let edges: Vec<String> = (0..1999).map(|i| format!("{i},{}", i + 1)).collect();
    let text = format!(
        r#"
vocabulary V {{
    type N isa int
    Edge(N, N)
    R(N, N)
}}
theory T : V {{
    {{ R(0, 0). {rule} }}
}}
structure S : V {{
    N = {{ 0..1999 }}
    Edge = {{ {} }}
}}
"#,
        edges.join("; ")
    );
    let p = program(&text);
    let (t, s) = theory_and_structure(&p);
    let start = std::time::Instant::now();
    let models = infer::modelexpand(
        &p,
        &p.theories[t.index()],
        &p.structures[s.index()],
        None,
        &Options::default(),
    )
    .expect("model expansion succeeds")
    .value;
    assert_eq!(models.len(), 1);
    start.elapsed()
}

/// An atom of a known table with an open function applied in it (`Adj(At(t), p)`, as in a
/// literal LTC theory) is grounded through the table's index: only the values of `At(t)` that
/// make the atom true get a case; `At(t) = p` and `At(t) ~= p` take the one case of At(t) for p.
/// The models must be those of brute force, under a positive and a negative occurrence, with
/// another argument known or quantified, with the application on either side of `=`.
#[test]
fn open_function_inside_a_known_atom() {
    let text = r#"
vocabulary V {
    type Time isa int
    type Pos isa int
    Adj(Pos, Pos)
    Goal(Pos)
    At(Time) : Pos
}
theory T : V {
    ! t[Time]: t < MAX[:Time] => Adj(At(t), At(t + 1)).
    ! t[Time]: ? p[Pos]: Adj(At(t), p) & ~Goal(p).
    ~Adj(At(0), 3).
    ! t[Time]: At(t) ~= 4 | t = MAX[:Time].
    ? t[Time]: 2 = At(t).
    ! t[Time] p[Pos]: At(t) = p => p ~= 1 | t = 0.
}
structure S : V {
    Time = { 0..2 }
    Pos = { 1..4 }
    Adj = { 1,2; 2,1; 2,3; 3,2; 3,4; 4,3; 1,1 }
    Goal = { 4 }
}
"#;
    assert_models_of_brute_force(text);
}

/// An atom of a known symbol over two open functions' applications (`R(F(x), G(x))`, as
/// Sokoban's `Next(Player(t), d, Player(u))`): asserted, it is ground as one clause per value
/// of the first application ("F(x) = v implies G(x) is one of R's successors of v"); denied,
/// under an equivalence or inside a count, as the disjunction over pairs of values. The models
/// must be those of brute force in every such place, and with the first application's
/// function partial.
#[test]
fn two_open_functions_inside_a_known_atom() {
    let theory = |partial: &str| {
        format!(
            r#"
vocabulary V {{
    type N isa int
    R(N, N)
    Q(N)
    {partial}F(N) : N
    G(N) : N
}}
theory T : V {{
    ! x : Q(x) => R(F(x), G(x)).
    ! x : ~R(G(x), F(x)) | Q(x).
    ! x : ~(~Q(x) & R(F(x), F(x))).
    ? x : R(G(x), F(x)) <=> Q(x).
    #{{ x : R(F(x), G(x)) }} >= 1.
}}
structure S : V {{
    N = {{ 1..3 }}
    R = {{ 1,2; 2,3; 3,1; 1,1 }}
}}
"#
        )
    };
    assert_models_of_brute_force(&theory(""));
    assert_models_of_brute_force(&theory("partial "));
}

/// A small deterministic generator (xorshift), so that the random theories below are the same
/// on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// Each item with probability `percent`, joined by `sep`.
    fn subset(&mut self, items: &[&str], percent: usize, sep: &str) -> String {
        let kept: Vec<&str> = items
            .iter()
            .copied()
            .filter(|_| self.chance(percent))
            .collect();
        kept.join(sep)
    }
}

/// One random LTC-like theory: a defined function fluent `Pos(Time) : Cell` read inside atoms
/// (`Adj(Pos(t), c)`), a defined predicate `Mark` with recursion through time and within a
/// time point, negation of defined and open symbols, open actions, partly known input
/// (`Block`, `Init`) and sometimes a claim on a defined symbol in the structure. The
/// possibly-true pass of the grounder (atoms no derivation can reach are false, and their
/// rules are not grounded) must not change the models.
fn random_ltc_theory(rng: &mut Rng) -> String {
    let pos_rules = [
        "Pos(0) = a.",
        "! c[Cell]: Pos(0) = c <- Init(c) & ~Block(c).",
        "! t[Time] c[Cell]: Pos(t + 1) = c <- Move(t) & Adj(Pos(t), c).",
        "! t[Time] c[Cell]: Pos(t + 1) = c <- ~Move(t) & Pos(t) = c.",
        "! t[Time]: Pos(t + 1) = b <- Move(t) & Mark(t, Pos(t)).",
    ];
    let mark_rules = [
        "! c[Cell]: Mark(0, c) <- Init(c).",
        "! t[Time] c[Cell]: Mark(t + 1, c) <- Mark(t, c) & Pos(t) ~= c.",
        "! t[Time] c[Cell]: Mark(t + 1, c) <- Mark(t, c) & ~Block(c).",
        "! t[Time] c[Cell]: Mark(t + 1, c) <- Adj(Pos(t), c) & Move(t).",
        "! t[Time] c[Cell] d[Cell]: Mark(t, c) <- Mark(t, d) & Adj(d, c) & Block(d).",
        "! t[Time] c[Cell]: Mark(t + 1, c) <- ~Mark(t, c) & ~(? d[Cell]: Adj(d, c) & Pos(t) = d).",
        "! t[Time]: Mark(t, Pos(t)) <- Block(Pos(t)).",
    ];
    let sentences = [
        "? t[Time]: Mark(t, b).",
        "! t[Time]: Move(t) => ~Block(Pos(t)).",
        "! t[Time] c[Cell]: Mark(t, c) => Pos(t) ~= c | Move(t).",
        "~(? t[Time]: Pos(t) = b & Mark(t, a)).",
    ];
    // Pos must get a value at 0 (else no model is possible at all: a dull case).
    let mut pos = vec![pos_rules[rng.below(2)].to_string()];
    pos.push(rng.subset(&pos_rules[2..], 70, "\n        "));
    let mark = rng.subset(&mark_rules, 45, "\n        ");
    let theory = rng.subset(&sentences, 30, "\n    ");
    let adj = rng.subset(&["a,b", "b,a", "a,a", "b,b"], 60, "; ");
    // Each cell certainly true, certainly false or unknown.
    let partial = |rng: &mut Rng, name: &str| {
        let (mut ct, mut cf) = (Vec::new(), Vec::new());
        for cell in ["a", "b"] {
            match rng.below(3) {
                0 => ct.push(cell),
                1 => cf.push(cell),
                _ => {}
            }
        }
        format!(
            "{name}<ct> = {{ {} }}\n    {name}<cf> = {{ {} }}",
            ct.join("; "),
            cf.join("; ")
        )
    };
    let (init, block) = (partial(rng, "Init"), partial(rng, "Block"));
    let claim = if rng.chance(20) {
        "Mark<ct> = { 1,b }"
    } else {
        ""
    };
    format!(
        "vocabulary V {{
    type Time isa int
    type Cell constructed from {{ a, b }}
    Adj(Cell, Cell)
    Init(Cell)
    Block(Cell)
    Move(Time)
    Pos(Time) : Cell
    Mark(Time, Cell)
}}
theory T : V {{
    {{
        {}
    }}
    {{
        {mark}
    }}
    {theory}
}}
structure S : V {{
    Time = {{ 0..2 }}
    Adj = {{ {adj} }}
    {init}
    {block}
    {claim}
}}
",
        pos.join("\n        ")
    )
}

/// The number of models that model expansion finds with `options` (for all of them), each
/// checked by the naive checker; `text` is the theory's source, for the messages.
fn checked_models(
    p: &Program,
    theory: &idp::sema::Theory,
    structure: &idp::structure::Structure,
    options: Options,
    text: &str,
) -> u64 {
    let options = Options {
        nbmodels: 0,
        ..options
    };
    let models = infer::modelexpand(p, theory, structure, None, &options)
        .unwrap_or_else(|e| panic!("{e:?} on\n{text}"))
        .value;
    for m in &models {
        if let Err(why) = check_model(p, theory, m) {
            panic!(
                "a returned model is wrong ({:?}): {why}\n{text}",
                options.sat_backend
            );
        }
    }
    models.len() as u64
}

/// Model expansion finds `expected` models (each checked) with the search's unfounded-set
/// propagation and with the refinement loop; `case` and `text` name the theory in messages.
fn assert_count_with_both_backends(
    p: &Program,
    theory: &idp::sema::Theory,
    structure: &idp::structure::Structure,
    expected: u64,
    case: usize,
    text: &str,
) {
    for backend in [infer::SatBackend::Cadical, infer::SatBackend::CadicalLoops] {
        let options = Options {
            sat_backend: backend,
            ..Options::default()
        };
        let found = checked_models(p, theory, structure, options, text);
        assert_eq!(
            found, expected,
            "case {case} ({backend:?}): model count of\n{text}"
        );
    }
}

/// Random LTC-like definitions (above) have the models of brute force, each passing the
/// naive checker.
#[test]
fn random_ltc_definitions_agree_with_brute_force() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut with_models, mut without) = (0, 0);
    for _ in 0..50 {
        let text = random_ltc_theory(&mut rng);
        let p = program(&text);
        let (t, s) = theory_and_structure(&p);
        let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
        let expected = brute_force_count(&p, theory, structure, 1 << 16).expect("brute force");
        let found = checked_models(&p, theory, structure, Options::default(), &text);
        assert_eq!(found, expected, "model count of\n{text}");
        if expected > 0 {
            with_models += 1;
        } else {
            without += 1;
        }
    }
    // Both kinds occur, so the comparison says something about each.
    assert!(with_models > 15 && without > 10, "{with_models} {without}");
}

/// The possibly-true pass reads what it cannot follow as possible: an aggregate over an open
/// symbol in a rule body, a partly known function inside an atom (`Link(Dest(c), d)`), a
/// universally quantified body and an equivalence. The models are those of brute force.
#[test]
fn possibly_true_pass_keeps_aggregates_partial_functions_and_quantifiers() {
    let text = r#"
vocabulary V {
    type Time isa int
    type Cell constructed from { a, b, c }
    Link(Cell, Cell)
    Pick(Time, Cell)
    Dest(Cell) : Cell
    Seen(Time, Cell)
}
theory T : V {
    {
        Seen(0, a).
        ! t[Time] c[Cell]: Seen(t + 1, c) <- Seen(t, c) & #{ d[Cell]: Pick(t, d) } < 2.
        ! t[Time] c[Cell] d[Cell]: Seen(t + 1, d) <- Seen(t, c) & Link(Dest(c), d) & Pick(t, d).
        ! t[Time] c[Cell]: Seen(t + 1, c) <- Seen(t, c) & (! d[Cell]: Pick(t, d) => d = c) & (Pick(t, c) <=> Seen(t, c)).
    }
    ? t[Time]: Seen(t, c).
}
structure S : V {
    Time = { 0..1 }
    Link = { a,b; b,c; c,c }
    Dest<ct> = { b->b }
    Dest<cf> = { a->c }
}
"#;
    assert_models_of_brute_force(text);
}

/// One random theory with recursive definitions over open symbols: `R` and `Q` defined in one
/// definition from the open `E`, `O` and the open function `F`, with linear and non-linear
/// recursion, recursion through a function (`Q(F(x))`, `R(x, F(x))` in a head), through an
/// aggregate (`#{y: R(x, y) & Q(y)} >= 2`) and through a universal quantifier, and sentences
/// that constrain the defined symbols.
fn random_recursive_theory(rng: &mut Rng, elements: &str) -> String {
    let r_rules = [
        "! x y: R(x, y) <- E(x, y).",
        "! x y: R(x, y) <- ? z: R(x, z) & R(z, y).",
        "! x y: R(x, y) <- ? z: E(x, z) & R(z, y).",
        "! x y: R(x, y) <- R(y, x) & O(x).",
        "! x: R(x, F(x)) <- Q(x).",
        "! x y: R(x, y) <- ~O(x) & R(F(x), y).",
    ];
    let q_rules = [
        "! x: Q(x) <- O(x).",
        "! x: Q(x) <- ? y: R(x, y) & Q(y).",
        "! x: Q(x) <- #{y: R(x, y) & Q(y)} >= 2.",
        "! x: Q(x) <- (! y: E(x, y) => Q(y)) & (? y: E(x, y)).",
        "! x: Q(x) <- Q(F(x)) | R(x, x).",
        "! x: Q(x) <- sum{y: R(y, x): 1} >= 2.",
    ];
    let sentences = [
        "? x: Q(x).",
        "~R(a, a).",
        "! x: O(x) => ~Q(x) | R(x, a).",
        "#{x y: R(x, y)} =< 3.",
        "Q(a) | ~E(a, b).",
        "! x: ~Q(x) => R(x, b).",
    ];
    let mut rules = vec![r_rules[rng.below(2) * 2].to_string()];
    rules.push(rng.subset(&r_rules[1..], 45, "\n        "));
    rules.push(rng.subset(&q_rules, 45, "\n        "));
    let theory = rng.subset(&sentences, 30, "\n    ");
    // Brute force tries every interpretation of the defined symbols too, so it can afford
    // few open atoms: with three elements `E`, `O` and `F` are given; with two, `F` is
    // open in a third of the cases.
    let given = if elements.len() > 4 {
        let edges = rng.subset(&["a,b", "b,c", "c,a", "b,a", "a,a", "c,b"], 50, "; ");
        let o = rng.subset(&["a", "b", "c"], 50, "; ");
        let f = ["a", "b", "c"].map(|_| ["a", "b", "c"][rng.below(3)]);
        format!(
            "E = {{ {edges} }}\n    O = {{ {o} }}\n    F = {{ a->{}; b->{}; c->{} }}",
            f[0], f[1], f[2]
        )
    } else if rng.chance(67) {
        format!(
            "F = {{ a->{}; b->{} }}",
            ["a", "b"][rng.below(2)],
            ["a", "b"][rng.below(2)]
        )
    } else {
        String::new()
    };
    format!(
        "vocabulary V {{
    type D constructed from {{ {elements} }}
    E(D, D)
    O(D)
    F(D) : D
    R(D, D)
    Q(D)
}}
theory T : V {{
    {{
        {}
    }}
    {theory}
}}
structure S : V {{
    {given}
}}
",
        rules.join("\n        ")
    )
}

/// Recursive definitions over open symbols, as the solver keeps them inside its search
/// (unfounded-set propagation): model counts equal brute force's, every model passes the
/// naive checker, and the solver that checks definitions only on candidate models agrees.
/// `IDP_RECURSION_CASES` sets the number of cases (a longer run, in BENCHMARKS.md).
#[test]
fn random_recursive_definitions_agree_with_brute_force() {
    let cases: usize = std::env::var("IDP_RECURSION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut with_models, mut without, mut total_models) = (0, 0, 0);
    for case in 0..cases {
        let elements = if case % 4 == 3 { "a, b, c" } else { "a, b" };
        let text = random_recursive_theory(&mut rng, elements);
        let p = program(&text);
        let (t, s) = theory_and_structure(&p);
        let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
        let expected = brute_force_count(&p, theory, structure, 1 << 20).expect("brute force");
        assert_count_with_both_backends(&p, theory, structure, expected, case, &text);
        total_models += expected;
        if expected > 0 {
            with_models += 1;
        } else {
            without += 1;
        }
    }
    assert!(
        with_models > cases / 2 && without > cases / 50,
        "{with_models} with models, {without} without"
    );
    assert!(
        total_models > 10 * cases as u64,
        "{total_models} models in all"
    );
}

/// One random transitive closure written the way users write reachability: base rules (from
/// the open `E`, `O` and `C`), sometimes a symmetry rule, a transitivity rule in one of its
/// spellings, and sometimes rules that keep it from being one (a base that reads what
/// depends on `R`, a conditional symmetry), with `Q` reading `R` (positively, negatively) and
/// sentences on both. The grounder gets such a closure as linear rules
/// ([`idp::sema::transform::linear_closures`]); the models must not change. `C` is known but
/// for one pair, and three elements leave `Q` out and `E` partly known, so that brute force
/// tries a few thousand interpretations.
fn random_closure_theory(rng: &mut Rng, elements: &str) -> String {
    let small = elements.len() <= 4;
    let bases = [
        "! x y: R(x, y) <- E(x, y).",
        "! x y: R(x, y) <- ? z: E(x, z) & O(z) & E(z, y).",
        "! x y: R(x, y) <- O(x) & ~O(y).",
        "! x y: R(y, x) <- C(x, y).",
        "! x y: R(x, y) <- #{z: E(z, x) & E(z, y)} >= 2 & x ~= y.",
    ];
    let steps = [
        "! x y: R(x, y) <- ? z: R(x, z) & R(z, y).",
        "! x y: R(x, y) <- ? w: R(w, y) & R(x, w).",
        "! x y z: R(x, y) <- R(x, z) & R(z, y).",
    ];
    let mut rules = Vec::new();
    let first = rng.below(if small { 4 } else { 3 });
    rules.push(bases[first].to_string());
    rules.push(rng.subset(&bases[if small { 1.. } else { 4.. }], 25, "\n        "));
    if rng.chance(50) {
        rules.push("! x y: R(x, y) <- R(y, x).".to_string());
    }
    rules.push(steps[rng.below(3)].to_string());
    if rng.chance(10) {
        rules.push("! x y: R(x, y) <- R(y, x) & O(x).".to_string());
    }
    if small {
        rules.push(rng.subset(
            &[
                "! x: Q(x) <- ? y: R(x, y) & Q(y).",
                "! x: Q(x) <- O(x) & ~R(x, x).",
                "! x: Q(x) <- E(x, x).",
            ],
            50,
            "\n        ",
        ));
        if rng.chance(10) {
            rules.push("! x y: R(x, y) <- Q(x) & E(y, x).".to_string());
        }
    }
    let sentences = rng.subset(
        &[
            "~R(a, a).",
            "? x y: R(x, y) & x ~= y.",
            "#{x y: R(x, y)} =< 3.",
            "! x: O(x) => R(x, a).",
            "~E(a, b) | R(b, a).",
        ],
        30,
        "\n    ",
    );
    let given = if small {
        "C<ct> = { a,b }\n    C<cf> = { a,a; b,b }".to_string()
    } else {
        // About four of the nine pairs of `E` left unknown.
        let (mut ct, mut cf) = (Vec::new(), Vec::new());
        for pair in [
            "a,a", "a,b", "a,c", "b,a", "b,b", "b,c", "c,a", "c,b", "c,c",
        ] {
            match rng.below(9) {
                0..=1 => ct.push(pair),
                2..=4 => cf.push(pair),
                _ => {}
            }
        }
        let o = rng.subset(&["a", "b", "c"], 50, "; ");
        format!(
            "E<ct> = {{ {} }}\n    E<cf> = {{ {} }}\n    O = {{ {o} }}\n    C = {{ }}\n    Q = {{ }}",
            ct.join("; "),
            cf.join("; ")
        )
    };
    format!(
        "vocabulary V {{
    type D constructed from {{ {elements} }}
    E(D, D)
    O(D)
    C(D, D)
    R(D, D)
    Q(D)
}}
theory T : V {{
    {{
        {}
    }}
    {sentences}
}}
structure S : V {{
    {given}
}}
",
        rules.join("\n        ")
    )
}

/// Transitive closures over open symbols, as the grounder gets them (linear rules, when their
/// shape allows): model counts equal brute force's on the user's rules, every model passes
/// the naive checker, with the search's unfounded-set propagation and with the refinement
/// loop. Most cases are closures that the rewrite takes; some are not.
#[test]
fn random_transitive_closures_agree_with_brute_force() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let (mut linear, mut kept, mut total_models, mut without) = (0, 0, 0, 0);
    let cases = 200;
    for case in 0..cases {
        let elements = if case % 5 == 4 { "a, b, c" } else { "a, b" };
        let text = random_closure_theory(&mut rng, elements);
        let p = program(&text);
        let (t, s) = theory_and_structure(&p);
        let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
        match idp::sema::transform::linear_closures(&theory.definitions[0]) {
            Some(_) => linear += 1,
            None => kept += 1,
        }
        let expected = brute_force_count(&p, theory, structure, 1 << 16).expect("brute force");
        assert_count_with_both_backends(&p, theory, structure, expected, case, &text);
        total_models += expected;
        if expected == 0 {
            without += 1;
        }
    }
    assert!(
        linear > cases * 3 / 4 && kept > cases / 20,
        "{linear} made linear, {kept} kept"
    );
    assert!(
        without > 0 && total_models > 20 * cases as u64,
        "{total_models} models, {without} cases without"
    );
}

/// A closure with a parameter besides its two places (`C(t, x, y)` or `K(x, y, t)`, one
/// closure per `t`) is made linear too when every atom carries the same parameter, and not
/// when they differ; the models equal brute force's either way.
#[test]
fn parameterised_closures_agree_with_brute_force() {
    let theory = |rules: &str, symbol: &str| {
        let sentence = if symbol == "C" {
            "! t: C(t, a, a) | ~C(t, b, b)."
        } else {
            "! t: K(a, a, t) | ~K(b, b, t)."
        };
        let unused = if symbol == "C" { "K" } else { "C" };
        format!(
            "vocabulary V {{
    type T constructed from {{ t0, t1 }}
    type D constructed from {{ a, b }}
    E(T, D, D)
    C(T, D, D)
    K(D, D, T)
}}
theory T : V {{
    {{
        {rules}
    }}
    {sentence}
}}
structure S : V {{
    {unused} = {{ }}
    E<ct> = {{ t0,a,b }}
    E<cf> = {{ t1,b,b; t1,a,a }}
}}
"
        )
    };
    let linear = [
        "! t x y: C(t, x, y) <- E(t, x, y).
        ! t x y: C(t, x, y) <- ? z: C(t, x, z) & C(t, z, y).",
        "! t x y: C(t, y, x) <- E(t, x, y) & x ~= y.
        ! t x y: C(t, x, y) <- C(t, y, x).
        ! t x y z: C(t, x, y) <- C(t, z, y) & C(t, x, z).",
        "! t x y: C(t, x, y) <- E(t, y, x) & ~E(t, x, x).
        ! t x y: C(t, y, x) <- ? z: C(t, y, z) & C(t, z, x).",
    ];
    let kept = [
        "! t x y: C(t, x, y) <- E(t, x, y).
        ! t u x y: C(t, x, y) <- ? z: C(t, x, z) & C(u, z, y).",
        "! t x y: C(t, x, y) <- E(t, x, y).
        ! t x y: C(t, x, y) <- C(t, y, x) & E(t, y, y).
        ! t x y: C(t, x, y) <- ? z: C(t, x, z) & C(t, z, y).",
    ];
    // The same closures with the parameter last.
    let last = |rules: &str| -> String {
        let mut out = rules.to_string();
        for (from, to) in [
            ("C(t, x, y)", "K(x, y, t)"),
            ("C(t, y, x)", "K(y, x, t)"),
            ("C(t, x, z)", "K(x, z, t)"),
            ("C(t, z, y)", "K(z, y, t)"),
            ("C(t, y, z)", "K(y, z, t)"),
            ("C(t, z, x)", "K(z, x, t)"),
            ("C(u, z, y)", "K(z, y, u)"),
        ] {
            out = out.replace(from, to);
        }
        out
    };
    let cases = linear
        .iter()
        .map(|r| (r.to_string(), "C", true))
        .chain(kept.iter().map(|r| (r.to_string(), "C", false)))
        .chain(linear.iter().map(|r| (last(r), "K", true)))
        .chain(kept.iter().map(|r| (last(r), "K", false)));
    for (rules, symbol, made_linear) in cases {
        assert!(!rules.contains(if symbol == "C" { "K(" } else { "C(" }));
        let text = theory(&rules, symbol);
        let p = program(&text);
        let (t, _) = theory_and_structure(&p);
        let definition = &p.theories[t.index()].definitions[0];
        assert_eq!(
            idp::sema::transform::linear_closures(definition).is_some(),
            made_linear,
            "{rules}"
        );
        assert_models_of_brute_force(&text);
    }
}

/// The distinct restrictions of `models` to the symbols of `like` (a model projected on an
/// output vocabulary), each as text with its tuples sorted.
fn projections(
    models: &[idp::structure::Structure],
    like: &idp::structure::Structure,
) -> std::collections::BTreeSet<String> {
    models
        .iter()
        .map(|m| {
            let mut key = String::new();
            for s in like.symbols.keys() {
                let mut tuples: Vec<_> = m.symbols[s].ct().iter().cloned().collect();
                tuples.sort();
                key.push_str(&format!("{s:?}: {tuples:?}; "));
            }
            key
        })
        .collect()
}

/// Enumeration blocks each model on its open atoms only when the defined atoms are fixed by
/// them (well-founded semantics, every open symbol blocked): counts, with and without
/// projection on output vocabularies that leave an open symbol out or keep only open
/// symbols, equal those of brute force and of the distinct projections of all models, on
/// every backend; counting without decoding (`count_models`) agrees. Under the stable
/// semantics a definition has several models for one value of its open atoms, which must
/// all be counted.
#[test]
fn enumeration_counts_with_blocking_on_open_atoms() {
    let text = "vocabulary V {\n  type N isa int\n  E(N, N)\n  F(N)\n  R(N, N)\n  G(N)\n}\n\
                vocabulary Vdefined { extern V::E/2\n  extern V::R/2\n}\n\
                vocabulary Vopen { extern V::E/2\n  extern V::F/1\n}\n\
                vocabulary Vsome { extern V::R/2\n  extern V::G/1\n}\n\
                theory T : V {\n\
                  { ! x y: R(x, y) <- E(x, y) & F(x).\n\
                    ! x y: R(x, y) <- ? z: R(x, z) & R(z, y). }\n\
                  { ! x: G(x) <- ~F(x) & ? y: R(y, x). }\n\
                  ? x: F(x) | E(x, x).\n\
                }\n\
                structure S : V { N = { 1..2 } }\n";
    let p = program(text);
    let (t, s) = theory_and_structure(&p);
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let expected = brute_force_count(&p, theory, structure, 1 << 16).expect("brute force");
    let voc = |name: &str| match p.lookup(&[name]) {
        Some(Component::Vocabulary(v)) => v,
        _ => panic!("no vocabulary {name}"),
    };
    for backend in [
        infer::SatBackend::Cadical,
        infer::SatBackend::CadicalLoops,
        infer::SatBackend::Splr,
    ] {
        let options = Options {
            sat_backend: backend,
            ..Options::default()
        };
        let all = checked_models(&p, theory, structure, options.clone(), text);
        assert_eq!(all, expected, "{backend:?}: all models");
        let all_options = Options {
            nbmodels: 0,
            ..options.clone()
        };
        let models = infer::modelexpand(&p, theory, structure, None, &all_options)
            .expect("model expansion")
            .value;
        let counted = infer::count_models(&p, theory, structure, None, &all_options)
            .expect("counting")
            .value;
        assert_eq!(counted as u64, expected, "{backend:?}: count_models");
        for name in ["Vdefined", "Vopen", "Vsome"] {
            let out = Some(voc(name));
            let projected = infer::modelexpand(&p, theory, structure, out, &all_options)
                .expect("projected model expansion")
                .value;
            let distinct = projections(&models, &projected[0]);
            assert_eq!(projected.len(), distinct.len(), "{backend:?}: on {name}");
            assert_eq!(projections(&projected, &projected[0]), distinct, "{name}");
            let counted = infer::count_models(&p, theory, structure, out, &all_options)
                .expect("projected counting")
                .value;
            assert_eq!(
                counted,
                distinct.len(),
                "{backend:?}: count_models on {name}"
            );
        }
    }
    // Leaving F out keeps R's atoms in the blocking clause: fewer projections than models.
    let all = Options {
        nbmodels: 0,
        ..Options::default()
    };
    let models = infer::modelexpand(&p, theory, structure, None, &all)
        .unwrap()
        .value;
    let on_defined = infer::modelexpand(&p, theory, structure, Some(voc("Vdefined")), &all)
        .unwrap()
        .value;
    assert!(on_defined.len() < models.len() && on_defined.len() > 1);

    // Stable semantics: with A, {P} and {Q} are both stable; without, {Q} only.
    let stable = "vocabulary V { A\n  P\n  Q\n}\n\
                  theory T : V { { P <- ~Q & A.\n  Q <- ~P. } }\n\
                  structure S : V { }\n";
    let p = program(stable);
    let (t, s) = theory_and_structure(&p);
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let options = Options {
        nbmodels: 0,
        stablesemantics: true,
        ..Options::default()
    };
    let n = infer::count_models(&p, theory, structure, None, &options)
        .expect("counting stable models")
        .value;
    assert_eq!(n, 3, "stable models");

    // Two definitions that read each other's symbol fix neither: p and q both true, or both
    // false (IDP3's conformance test mx/simplemx/multidef.idp).
    assert_models(
        "vocabulary V { p\n  q\n}\n\
         theory T : V { { p <- q. } { q <- p. } }\n\
         structure S : V { }\n",
        2,
    );
}

/// A sum of non-negative values or a count compared with a known number is grounded as a
/// threshold (`total >= k`, or its negation); every operator, the number on either side,
/// zero weights, a partial function's values as elements, and bounds below zero and beyond
/// every total agree with brute force.
#[test]
fn aggregate_thresholds_agree_with_brute_force() {
    let aggregates = [
        "sum{ x : P(x) : x }",
        "#{ x : P(x) }",
        "sum{ x d : f(x) = d : d }",
        "sum{ x : P(x) & f(x) = 2 : x }",
    ];
    for aggregate in aggregates {
        for op in ["=<", "<", ">=", ">"] {
            for bound in [-1, 0, 2, 3, 7] {
                for (left, right) in [
                    (aggregate.to_string(), bound.to_string()),
                    (bound.to_string(), aggregate.to_string()),
                ] {
                    // As a sentence, and in a rule body (`Q` defined from it, then asserted).
                    for sentence in [
                        format!("{left} {op} {right}."),
                        format!("{{ Q <- {left} {op} {right}. }} Q."),
                    ] {
                        let text = format!(
                            "vocabulary V {{\n type D isa int\n P(D)\n partial f(D) : D\n Q\n}}\n\
                         theory T : V {{ {sentence} }}\n\
                         structure S : V {{ D = {{ 0..2 }} }}"
                        );
                        let p = program(&text);
                        let (t, s) = theory_and_structure(&p);
                        let n = brute_force_count(
                            &p,
                            &p.theories[t.index()],
                            &p.structures[s.index()],
                            1 << 16,
                        )
                        .expect("brute force");
                        assert_models(&text, n as usize);
                    }
                }
            }
        }
    }
}

/// One random theory of comparisons between counts and sums over open predicates, in the
/// shapes the grounder writes without a diagram of running totals: `?1` and `#{..} =< 1` over
/// a few elements (pairs of guards), two aggregates compared for equality (threshold by
/// threshold), each asserted, negated, under an implication or inside an equivalence, over
/// three to five elements, some of them known.
fn random_aggregate_theory(rng: &mut Rng) -> String {
    let sentences = [
        "#{x: A(x)} = #{x: B(x)}.",
        "#{x: A(x)} ~= #{x: B(x)}.",
        "P => #{x: A(x)} = #{x: B(x) & Q(x)}.",
        "P <=> sum{x: A(x): x} = sum{x: B(x): x}.",
        "~(#{x: A(x) | Q(x)} = #{x: B(x)}) | P.",
        "?1 x: A(x).",
        "P => ?1 x: B(x).",
        "~(?1 x: Q(x)).",
        "(?1 x: A(x) & B(x)) <=> P.",
        "#{x: A(x)} =< 1.",
        "#{x: B(x)} >= 2 | P.",
        "#{x: A(x) | B(x)} = 1 <=> ~P.",
        "! y: Q(y) => #{x: A(x) & x ~= y} = 1.",
        "! y: Q(y) => #{x: B(x) & x > y} < 2.",
        "sum{x: A(x): x} = #{x: B(x)} + 0.",
        "#{x: A(x)} >= 2.",
        "P.",
        "~P.",
    ];
    let mut chosen = Vec::new();
    for _ in 0..2 + rng.below(3) {
        chosen.push(sentences[rng.below(sentences.len())]);
    }
    // Five elements (sixteen open atoms for brute force) in a fifth of the cases.
    let n = 3 + rng.below(2) + usize::from(rng.chance(20));
    let known = match rng.below(4) {
        0 => "    A<ct> = { 1 }\n",
        1 => "    B<cf> = { 2 }\n",
        _ => "",
    };
    format!(
        "vocabulary V {{\n    type D isa int\n    P\n    A(D)\n    B(D)\n    Q(D)\n}}\n\
         theory T : V {{\n    {}\n}}\n\
         structure S : V {{\n    D = {{ 1..{n} }}\n{known}}}\n",
        chosen.join("\n    ")
    )
}

/// The number of models of theory `T` in structure `S` of `text`, the same by model
/// expansion (each model passing the naive checker) as by brute force; `case` names it.
fn agrees_with_brute_force(text: &str, case: usize) -> u64 {
    let p = program(text);
    let (t, s) = theory_and_structure(&p);
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let expected = brute_force_count(&p, theory, structure, 1 << 16).expect("brute force");
    let found = checked_models(&p, theory, structure, Options::default(), text);
    assert_eq!(found, expected, "case {case}: model count of\n{text}");
    expected
}

/// Random comparisons of counts and sums (above) have the models of brute force, each
/// passing the naive checker.
#[test]
fn random_aggregate_comparisons_agree_with_brute_force() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let (mut with_models, mut without) = (0, 0);
    for case in 0..300 {
        let text = random_aggregate_theory(&mut rng);
        if agrees_with_brute_force(&text, case) > 0 {
            with_models += 1;
        } else {
            without += 1;
        }
    }
    assert!(
        with_models > 150 && without > 15,
        "{with_models} with models, {without} without"
    );
}

/// Sentences and definitions that bound what can be true (`A(x) => B(x)`, `A(x) <=> ...`,
/// `~C(x) | ...`, rules over known and open symbols), with counts and known facts, over two
/// to four elements: the theories whose consequences grounding decides on its own.
fn random_bounding_theory(rng: &mut Rng) -> String {
    let sentences = [
        "! x: A(x) => B(x).",
        "! x: A(x) <=> B(x) & K(x).",
        "! x: B(x) <=> K(x).",
        "! x: ~C(x) | A(x).",
        "! x: C(x) => ~K(x) & B(x).",
        "! x y: E(x, y) => A(x) & K(y).",
        "! x: ? y: E(x, y) | ~B(x).",
        "#{x: A(x)} >= 1.",
        "#{x: C(x)} =< 1.",
        "P => ? x: C(x).",
        "{ ! x: R(x) <- A(x) & K(x). ! x: R(x) <- ? y: E(y, x) & R(y). }",
        "{ ! x: R(x) <- B(x) & ~C(x). }",
        "P <=> ? x: R(x).",
        "A(1) | C(2).",
    ];
    let mut chosen: Vec<&str> = Vec::new();
    for _ in 0..2 + rng.below(4) {
        let s = sentences[rng.below(sentences.len())];
        let second_definition = s.starts_with('{') && chosen.iter().any(|c| c.starts_with('{'));
        if !chosen.contains(&s) && !second_definition {
            chosen.push(s);
        }
    }
    let n = 2 + rng.below(2);
    let known = ["    K = { 1 }\n", "    K = { 1; 2 }\n", "    K = { }\n"][rng.below(3)];
    format!(
        "vocabulary V {{\n    type D isa int\n    P\n    A(D)\n    B(D)\n    C(D)\n    K(D)\n    \
         R(D)\n    E(D, D)\n}}\ntheory T : V {{\n    {}\n}}\n\
         structure S : V {{\n    D = {{ 1..{n} }}\n{known}}}\n",
        chosen.join("\n    ")
    )
}

/// The most models [`shared_by_all_models`] compares.
const MOST_MODELS: usize = 4096;

/// What every model of `text` makes true or false, by symbol and tuple (from model
/// expansion's models, each checked by the naive checker); `Some(None)` without models,
/// `None` with more than [`MOST_MODELS`].
#[allow(clippy::type_complexity)]
fn shared_by_all_models(
    p: &Program,
    theory: &idp::sema::Theory,
    structure: &idp::structure::Structure,
    text: &str,
) -> Option<Option<Vec<(idp::ids::Symbol, Vec<idp::structure::Value>, Option<bool>)>>> {
    use idp::structure::TruthValue;
    let options = Options {
        nbmodels: MOST_MODELS + 1,
        ..Options::default()
    };
    let models = infer::modelexpand(p, theory, structure, None, &options)
        .unwrap_or_else(|e| panic!("{e:?} on\n{text}"))
        .value;
    if models.is_empty() {
        return Some(None);
    }
    if models.len() > MOST_MODELS {
        return None;
    }
    for m in &models {
        if let Err(why) = check_model(p, theory, m) {
            panic!("a returned model is wrong: {why}\n{text}");
        }
    }
    let voc = p.voc(theory.vocabulary);
    let symbols = (voc.preds.iter())
        .filter(|&&q| p.pred(q).type_of.is_none())
        .map(|&q| idp::ids::Symbol::Pred(q));
    let mut out = Vec::new();
    for s in symbols {
        let domains: Vec<Vec<idp::structure::Value>> = (p.symbol_sorts(s).iter())
            .map(|&sort| idp::sema::sort_domain(p, structure, sort).expect("a finite sort"))
            .collect();
        for tuple in idp::sema::cartesian(&domains) {
            let truths: Vec<bool> = models
                .iter()
                .map(|m| m.truth(s, &tuple) == TruthValue::True)
                .collect();
            let shared = truths.iter().all(|&t| t == truths[0]).then_some(truths[0]);
            out.push((s, tuple, shared));
        }
    }
    Some(Some(out))
}

/// Random theories whose consequences grounding partly decides (bounds from sentences,
/// definitions with no rule for a tuple): `optimalpropagate` gives exactly what every model
/// shares, and `propagate` part of it, never more. Either says so of an atom that grounding
/// never gave the search, as of any other.
#[test]
fn propagation_is_what_all_models_share() {
    use idp::structure::TruthValue;
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    let (mut with_models, mut decided_false) = (0, 0);
    for case in 0..300 {
        let text = random_bounding_theory(&mut rng);
        let p = program(&text);
        let (t, s) = theory_and_structure(&p);
        let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
        let Some(shared) = shared_by_all_models(&p, theory, structure, &text) else {
            continue;
        };
        for strength in [infer::Propagation::Optimal, infer::Propagation::Ground] {
            let propagated = infer::propagate(&p, theory, structure, strength, &Options::default())
                .unwrap_or_else(|e| panic!("{e:?} on\n{text}"))
                .value;
            let (Some(shared), Some(propagated)) = (&shared, &propagated) else {
                // Optimal propagation finds no model exactly when there is none; unit
                // propagation may not see it.
                assert!(
                    shared.is_none()
                        && (propagated.is_none() || strength == infer::Propagation::Ground),
                    "case {case} ({strength:?}): models {} but propagation {}\n{text}",
                    shared.is_some(),
                    propagated.is_some()
                );
                continue;
            };
            for (symbol, tuple, truth) in shared {
                let said = match propagated.truth(*symbol, tuple) {
                    TruthValue::True => Some(true),
                    TruthValue::False => Some(false),
                    TruthValue::Unknown => None,
                };
                let name = p.symbol_name(*symbol);
                match strength {
                    infer::Propagation::Optimal => assert_eq!(
                        said, *truth,
                        "case {case}: {name}{tuple:?} in optimal propagation\n{text}"
                    ),
                    infer::Propagation::Ground => assert!(
                        said.is_none() || said == *truth,
                        "case {case}: {name}{tuple:?} is {said:?} in propagation, {truth:?} \
                         in every model\n{text}"
                    ),
                }
                if *truth == Some(false) && structure.truth(*symbol, tuple) == TruthValue::Unknown {
                    decided_false += 1;
                }
            }
        }
        with_models += usize::from(shared.is_some());
    }
    assert!(
        with_models > 100 && decided_false > 500,
        "{with_models} {decided_false}"
    );
}

/// A sentence that compares a sum of many weights with a bound, whose decision diagram would
/// take tens of thousands of nodes, is ground to one atom that the solver's sum propagator
/// decides in both directions (`src/ground/thresholds.rs`): every model passes the naive
/// checker, the counts are brute force's (subsets of at most two of 80 weighted items whose
/// weights reach 1700, and those that do not; the diagram would have 28 398 nodes), and the
/// ground theory stays small.
#[test]
fn large_sum_thresholds_agree_with_brute_force() {
    let weights: Vec<i64> = (0..80).map(|i| 100 + (i * 7919) % 900).collect();
    let bound = 1700;
    let n = weights.len();
    // The weight of every subset of at most two items.
    let mut sums = vec![0i64];
    for i in 0..n {
        sums.push(weights[i]);
        for j in i + 1..n {
            sums.push(weights[i] + weights[j]);
        }
    }
    let subsets = sums.len() as u64;
    let reaching = sums.iter().filter(|&&s| s >= bound).count() as u64;
    assert_eq!(subsets, 1 + 80 + 3160, "subsets of at most two");
    let table: Vec<String> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| format!("{i}->{w}"))
        .collect();
    for (flag, expected) in [("Reach.", reaching), ("~Reach.", subsets - reaching)] {
        let text = format!(
            "vocabulary V {{\n  type Item isa int\n  W(Item) : int\n  In(Item)\n  Reach\n}}\n\
             theory T : V {{\n  #{{ i : In(i) }} =< 2.\n  \
             Reach <=> sum{{ i : In(i) : W(i) }} >= {bound}.\n  {flag}\n}}\n\
             structure S : V {{\n  Item = {{ 0..{} }}\n  W = {{ {} }}\n}}\n",
            n - 1,
            table.join("; ")
        );
        let (_, models) = support::checked_models(&text);
        assert_eq!(models.len() as u64, expected, "{flag}");
        let out = support::idp(&["--stats", "--count", "-I"], &text);
        let stats = String::from_utf8_lossy(&out.stderr);
        let nodes: usize = stats
            .lines()
            .find_map(|l| l.split("): ").nth(1)?.split(" nodes").next()?.parse().ok())
            .unwrap_or_else(|| panic!("a node count in {stats}"));
        assert!(nodes < 2000, "{nodes} ground nodes for {flag}");
    }
}

/// One random theory whose function `f` an equation gives as a count or a sum
/// (`! x: f(x) = #{ y : .. }`), summed by other sentences (`sum{ x : Q(x) : f(x) } >= 2`):
/// model expansion sums through the equation.
fn random_equation_theory(rng: &mut Rng) -> String {
    let equations = [
        "! x: f(x) = #{ y: P(x, y) }.",
        "! x: #{ y: C(x) ~= C(y) } = f(x).",
        "! x: f(x) = sum{ y: P(y, x) & y ~= x : y }.",
        "! x: f(x) = #{ y: P(x, y) & Q(y) }.",
    ];
    let sums = [
        "sum{ x: Q(x) : f(x) } >= 2.",
        "sum{ x: true : f(x) } =< 1.",
        "R <=> sum{ x: Q(x) : f(x) } = sum{ x: P(x, x) : 1 }.",
        "~(sum{ x: true : f(x) } > 2) | R.",
        "! z: Q(z) => sum{ x: x ~= z : f(x) } >= 1.",
        "sum{ x: Q(x) : f(x) } + #{ x: P(x, x) } = 2.",
        "R => sum{ x, y: P(x, y) : f(y) } < 3.",
        "f(1) = 1 | R.",
        "sum{ x: true : f(x) } >= 4.",
        "~R & sum{ x: Q(x) : f(x) } > 2.",
    ];
    let mut chosen = vec![equations[rng.below(equations.len())]];
    for _ in 0..1 + rng.below(2) {
        chosen.push(sums[rng.below(sums.len())]);
    }
    let known = match rng.below(4) {
        0 => "    Q<ct> = { 1 }\n",
        1 => "    P<cf> = { (1, 2) }\n",
        _ => "",
    };
    format!(
        "vocabulary V {{\n    type D isa int\n    type N isa int\n    type E\n    R\n    \
         P(D, D)\n    Q(D)\n    C(D) : E\n    f(D) : N\n}}\n\
         theory T : V {{\n    {}\n}}\n\
         structure S : V {{\n    D = {{ 1..2 }}\n    N = {{ 0..4 }}\n    E = {{ a; b }}\n{known}}}\n",
        chosen.join("\n    ")
    )
}

/// Sums summed through the equations that give their functions (above) keep the models of
/// brute force, each passing the naive checker on the theory as written.
#[test]
fn sums_through_equations_agree_with_brute_force() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    let (mut with_models, mut without, mut rewritten) = (0, 0, 0);
    for case in 0..150 {
        let text = random_equation_theory(&mut rng);
        let p = program(&text);
        let (t, _) = theory_and_structure(&p);
        let theory = &p.theories[t.index()];
        if idp::sema::transform::sums_through_equations(&p, theory, |_| false).is_some() {
            rewritten += 1;
        }
        if agrees_with_brute_force(&text, case) > 0 {
            with_models += 1;
        } else {
            without += 1;
        }
    }
    assert!(
        with_models > 100 && without > 10 && rewritten > 120,
        "{with_models} with models, {without} without, {rewritten} rewritten"
    );
}

/// Three colourings of three countries with two colours, and their distances by a count
/// equation: the vocabulary and the theory up to its equation (line 10).
const COLOURINGS: &str = "vocabulary V {
    type Solution = { s1; s2; s3 }
    type Country = { be; nl; lu }
    type Colour = { red; blue }
    type Count isa int
    ColourOf(Solution, Country) : Colour
    Distance(Solution, Solution) : Count
}
theory T : V {
    ! x y : Distance(x, y) = #{ c : ColourOf(x, c) ~= ColourOf(y, c) }.
";

/// The structure of [`COLOURINGS`].
const COLOURINGS_STRUCTURE: &str = "structure S : V {\n    Count = { 0..3 }\n}\n";

/// A diversity constraint over a function that an equation gives as a count is ground as one
/// count over the pairs and their countries (the ground theory's sentence shows it), and
/// keeps its models: three countries, each split between the three solutions.
#[test]
fn a_sum_of_counted_distances_is_one_count() {
    let spec = format!(
        "{COLOURINGS}    sum{{ x y : x ~= y : Distance(x, y) }} >= 10.\n}}\n{COLOURINGS_STRUCTURE}"
    );
    let spec = spec.as_str();
    let out = support::idp(&["--dump", "ground", "-n", "1"], spec);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let sentences: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("// sentence"))
        .collect();
    assert_eq!(
        sentences,
        [
            "// sentence at stdin:11:5: sum{ x[Solution] y[Solution] c1[Country] : ((x ~= y) & \
             (ColourOf(x,c1) ~= ColourOf(y,c1))) : 1 } >= 10",
            "// sentence at stdin:10:5: ! x y : Distance(x,y) = card{ c[Country] : \
             (ColourOf(x,c) ~= ColourOf(y,c)) }",
        ]
    );
    assert_eq!(support::model_count(&[], spec), 216);
}

/// A term to minimise that sums an equation's function (the diversity of three colourings,
/// negated) is summed through the equation too, and its optimum is the largest diversity:
/// every country split between the solutions, 4 ordered pairs each.
#[test]
fn a_term_to_minimise_is_summed_through_equations() {
    let spec = format!(
        "{COLOURINGS}}}\nterm Diversity : V {{\n    -sum{{ x y : x ~= y : Distance(x, y) }}\n}}\n\
         {COLOURINGS_STRUCTURE}"
    );
    let spec = spec.as_str();
    let p = program(spec);
    let (t, _) = theory_and_structure(&p);
    let Some(Component::Term(term)) = p.lookup(&["Diversity"]) else {
        panic!("no term Diversity")
    };
    let theory = &p.theories[t.index()];
    let mut through = idp::sema::transform::SumsThroughEquations::new(&p, theory, |_| false)
        .expect("an equation");
    let summed = through.term(&p.terms[term.index()].term).expect("summed");
    assert_eq!(
        idp::print::term_to_string(&p, &summed),
        "-sum{ x[Solution] y[Solution] c1[Country] : ((x ~= y) & (ColourOf(x,c1) ~= \
         ColourOf(y,c1))) : 1 }"
    );
    let out = support::idp(
        &[
            "-e",
            "print(value(Diversity, minimize(T, S, Diversity)[1]))",
        ],
        spec,
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "-12\n");
}
