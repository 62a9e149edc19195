//! The Datalog engine (`ground::datalog`) against the general path on random small programs:
//! definitions over known input with recursion, negation and aggregates over lower strata,
//! several rules per symbol, constants, equality, arithmetic and function terms in bodies and
//! heads. Both evaluations must give the same tables (or both find no model), every result
//! must pass the naive checker, and the engine must take most programs itself (a fallback is
//! allowed, but a test that never reaches the engine would prove nothing).

mod support;

use idp::infer::{evaluate_definitions, Evaluated, Options};
use idp::sema::{Component, Program, Theory};
use idp::structure::Structure;
use support::program;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// The defined symbols: name, arity, level (negation and aggregates only read lower levels).
const DEFINED: [(&str, usize, usize); 4] = [("P", 1, 0), ("Q", 2, 0), ("R", 2, 1), ("S2", 1, 2)];

struct Gen<'r> {
    rng: &'r mut Rng,
    k: usize,
    fresh: usize,
    /// Allow negation of symbols of the same level (not stratified: the engine must decline).
    unstratified: bool,
}

impl Gen<'_> {
    fn term(&mut self, vars: &[&str]) -> String {
        match self.rng.below(10) {
            0 => format!("{}", self.rng.below(self.k + 1)),
            1 => format!("g({})", self.rng.pick(vars)),
            2 => format!("{} + 1", self.rng.pick(vars)),
            _ => self.rng.pick(vars).to_string(),
        }
    }

    fn var_or_const(&mut self, vars: &[&str]) -> String {
        if self.rng.chance(15) {
            format!("{}", self.rng.below(self.k + 1))
        } else {
            self.rng.pick(vars).to_string()
        }
    }

    fn atom(&mut self, name: &str, arity: usize, vars: &[&str]) -> String {
        let args: Vec<String> = (0..arity)
            .map(|_| {
                if self.rng.chance(15) {
                    self.term(vars)
                } else {
                    self.var_or_const(vars)
                }
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }

    /// A defined atom of level at most `level` (strictly below when `strict`).
    fn defined_atom(&mut self, level: usize, strict: bool, vars: &[&str]) -> Option<String> {
        let options: Vec<(&str, usize, usize)> = DEFINED
            .iter()
            .copied()
            .filter(|&(_, _, l)| if strict { l < level } else { l <= level })
            .collect();
        if options.is_empty() {
            return None;
        }
        let (name, arity, _) = options[self.rng.below(options.len())];
        Some(self.atom(name, arity, vars))
    }

    fn literal(&mut self, level: usize, vars: &[&str], depth: usize) -> String {
        let strict = !self.unstratified;
        match self.rng.below(if depth > 1 { 8 } else { 15 }) {
            0 | 1 => self.atom("E", 2, vars),
            2 => self.atom("F", 1, vars),
            3 => format!("~{}", self.atom("E", 2, vars)),
            4 | 5 => self
                .defined_atom(level, false, vars)
                .unwrap_or_else(|| self.atom("F", 1, vars)),
            6 => match self.defined_atom(level, strict, vars) {
                Some(a) => format!("~{a}"),
                None => format!("~{}", self.atom("F", 1, vars)),
            },
            7 => {
                let (a, b) = (self.rng.pick(vars), self.term(vars));
                let op = self.rng.pick(&["=", "~=", "<", "=<", ">"]);
                format!("{a} {op} {b}")
            }
            8 => {
                let w = self.fresh_var();
                let inner = self.literal(level, &[vars, &[w.as_str()]].concat(), depth + 1);
                format!("~(? {w}[D]: E({}, {w}) & {inner})", self.rng.pick(vars))
            }
            9 => {
                let w = self.fresh_var();
                let a = self.rng.pick(vars);
                let body = match self.defined_atom(level, strict, &[w.as_str()]) {
                    Some(d) if self.rng.chance(50) => d,
                    _ => format!("E({a}, {w})"),
                };
                let n = self.rng.below(3);
                let op = self.rng.pick(&[">=", "<", "="]);
                format!("#{{ {w}[D]: {body} }} {op} {n}")
            }
            10 => {
                let l1 = self.literal(level, vars, depth + 1);
                let l2 = self.literal(level, vars, depth + 1);
                format!("({l1} | {l2})")
            }
            11 => {
                let w = self.fresh_var();
                let a = self.rng.pick(vars);
                let then = match self.defined_atom(level, strict, &[w.as_str()]) {
                    Some(d) => d,
                    None => format!("F({w})"),
                };
                format!("(! {w}[D]: E({a}, {w}) => {then})")
            }
            12 => {
                let w = self.fresh_var();
                let a = self.rng.pick(vars);
                format!("(? {w}[D]: E({a}, {w}) & g({w}) = {a})")
            }
            13 => {
                let (a, b) = (self.rng.pick(vars), self.rng.pick(vars));
                let op = self.rng.pick(&["=", "~=", "="]);
                format!("g({a}) {op} g({b})")
            }
            _ => {
                let w = self.fresh_var();
                let a = self.rng.pick(vars);
                let op = self.rng.pick(&["sum", "max", "min"]);
                let n = self.rng.below(2 * self.k + 1);
                format!("{op}{{ {w}[D]: E({a}, {w}) : {w} }} =< {n}")
            }
        }
    }

    fn fresh_var(&mut self) -> String {
        self.fresh += 1;
        format!("w{}", self.fresh)
    }

    fn rule(&mut self, name: &str, arity: usize, level: usize) -> String {
        let head_vars = ["x", "y"];
        let vars: Vec<&str> = if self.rng.chance(40) {
            vec!["x", "y", "z"]
        } else {
            vec!["x", "y"]
        };
        let head_args: Vec<String> = (0..arity)
            .map(|i| {
                if self.rng.chance(10) {
                    format!("{}", self.rng.below(self.k + 1))
                } else if self.rng.chance(8) {
                    format!("g({})", head_vars[i])
                } else {
                    head_vars[i].to_string()
                }
            })
            .collect();
        let n = 1 + self.rng.below(3);
        let lits: Vec<String> = (0..n).map(|_| self.literal(level, &vars, 0)).collect();
        let mut body = lits.join(" & ");
        if vars.len() == 3 {
            body = format!("? z[D]: {body}");
        }
        // Both head variables are declared; one the head does not mention ranges over D.
        format!(
            "        ! x[D] y[D] : {name}({}) <- {body}.\n",
            head_args.join(", ")
        )
    }
}

/// A random program and whether its definitions are one block.
fn random_program(seed: u64) -> (String, bool) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let k = 2 + rng.below(3);
    let unstratified = rng.chance(10);
    let mut edges = Vec::new();
    for a in 0..=k {
        for b in 0..=k {
            if rng.chance(30) {
                edges.push(format!("{a},{b}"));
            }
        }
    }
    let singles: Vec<String> = (0..=k)
        .filter(|_| rng.chance(50))
        .map(|a| a.to_string())
        .collect();
    let g: Vec<String> = (0..=k)
        .map(|a| format!("{a}->{}", rng.below(k + 1)))
        .collect();
    let one_block = rng.chance(60);
    let mut gen = Gen {
        rng: &mut rng,
        k,
        fresh: 0,
        unstratified,
    };
    let mut blocks: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_level = 0;
    for (name, arity, level) in DEFINED {
        if !one_block && level != current_level && !current.is_empty() {
            // One block per level: the symbols of a level may read each other positively.
            blocks.push(std::mem::take(&mut current));
        }
        current_level = level;
        for _ in 0..1 + gen.rng.below(3) {
            let rule = gen.rule(name, arity, level);
            current.push_str(&rule);
        }
    }
    blocks.push(current);
    let theory: String = blocks
        .iter()
        .map(|b| format!("    {{\n{b}    }}\n"))
        .collect();
    let text = format!(
        "vocabulary V {{\n    type D isa int\n    E(D, D)\n    F(D)\n    g(D) : D\n    \
         P(D)\n    Q(D, D)\n    R(D, D)\n    S2(D)\n}}\ntheory T : V {{\n{theory}}}\n\
         structure S : V {{\n    D = {{ 0..{k} }}\n    E = {{ {} }}\n    F = {{ {} }}\n    \
         g = {{ {} }}\n}}\n",
        edges.join("; "),
        singles.join("; "),
        g.join("; ")
    );
    (text, one_block)
}

fn parts(p: &Program) -> (&Theory, &Structure) {
    let Some(Component::Theory(t)) = p.lookup(&["T"]) else {
        panic!("no theory T")
    };
    let Some(Component::Structure(s)) = p.lookup(&["S"]) else {
        panic!("no structure S")
    };
    (&p.theories[t.index()], &p.structures[s.index()])
}

/// The structure with the definitions evaluated, or `None` when there is no model.
fn evaluate(p: &Program, datalog: bool) -> Option<Structure> {
    let (theory, structure) = parts(p);
    let options = Options {
        tuning: idp::infer::Tuning {
            datalog,
            ..Default::default()
        },
        ..Options::default()
    };
    let mut warnings = Vec::new();
    match evaluate_definitions(p, theory, structure, &options, &mut warnings)
        .expect("evaluation succeeds")
    {
        Evaluated::Done(s, pending) => {
            assert!(pending.is_empty(), "a definition was left unevaluated");
            Some(*s)
        }
        Evaluated::Inconsistent => None,
    }
}

/// The tables of the defined symbols, as sorted text.
fn tables(p: &Program, s: &Structure) -> Vec<(String, Vec<Vec<String>>)> {
    let (theory, _) = parts(p);
    let mut out = Vec::new();
    for def in &theory.definitions {
        for sym in def.defined() {
            let table = s.table(sym).expect("a table for a defined symbol");
            let mut rows: Vec<Vec<String>> = table
                .ct()
                .iter()
                .map(|t| t.iter().map(|v| format!("{v}")).collect())
                .collect();
            rows.sort();
            out.push((p.symbol_name(sym).to_string(), rows));
        }
    }
    out.sort();
    out
}

fn evaluated(p: &Program, datalog: bool) -> Option<Vec<(String, Vec<Vec<String>>)>> {
    evaluate(p, datalog).map(|s| tables(p, &s))
}

#[test]
fn engine_agrees_with_the_general_path_on_random_programs() {
    let (mut handled, mut single) = (0, 0);
    let seeds: u64 = std::env::var("DATALOG_SEEDS").map_or(1000, |v| v.parse().unwrap());
    for seed in 0..seeds {
        let (text, one_block) = random_program(seed);
        let p = program(&text);
        let new = evaluate(&p, true);
        let old = evaluated(&p, false);
        assert_eq!(
            new.as_ref().map(|s| tables(&p, s)),
            old,
            "seed {seed}:\n{text}"
        );
        let (theory, structure) = parts(&p);
        if let Some(model) = &new {
            // The evaluated structure satisfies the definitions (the naive checker).
            if let Err(why) = idp::infer::check_model(&p, theory, model) {
                panic!("seed {seed}: not a model: {why}\n{text}");
            }
        }
        if one_block {
            single += 1;
            let def = &theory.definitions[0];
            if idp::ground::datalog::evaluate(&p, def, structure, usize::MAX, &Default::default())
                .expect("no error")
                .is_some()
            {
                handled += 1;
            } else if std::env::var_os("SHOW_DECLINED").is_some() {
                eprintln!("declined, seed {seed}:\n{text}");
            }
        }
    }
    eprintln!("the engine took {handled} of {single} single-block programs");
    assert!(
        handled * 10 >= single * 7,
        "the engine took only {handled} of {single} single-block programs"
    );
}

#[test]
fn symbols_of_a_stratum_read_each_other() {
    let text = "vocabulary V {\n type D isa int\n E(D, D)\n A(D)\n B(D)\n C(D)\n}\n\
        theory T : V {\n {\n  A(0).\n  ! x: A(x) <- ? y: B(y) & E(y, x).\n  \
        ! x: B(x) <- A(x) & x < 4.\n  ! x: C(x) <- ~A(x) & ~(? y: E(x, y) & A(y)).\n }\n}\n\
        structure S : V {\n D = { 0..5 }\n E = { 0,1; 1,2; 2,3; 3,4; 4,5; 5,0 }\n}\n";
    let p = program(text);
    let (theory, structure) = parts(&p);
    let ext = idp::ground::datalog::evaluate(
        &p,
        &theory.definitions[0],
        structure,
        usize::MAX,
        &Default::default(),
    )
    .unwrap()
    .expect("the engine takes it")
    .extensions;
    let count = |name: &str| {
        ext.iter()
            .find(|(s, _)| p.symbol_name(*s) == name)
            .map(|(_, set)| set.len())
            .expect("defined")
    };
    assert_eq!(count("A"), 5, "A = 0..4");
    assert_eq!(count("B"), 4, "B = 0..3");
    assert_eq!(count("C"), 0);
    assert_eq!(evaluated(&p, true), evaluated(&p, false));
}

#[test]
fn recursion_through_negation_is_left_to_the_general_path() {
    let text = "vocabulary V {\n type D isa int\n A(D)\n B(D)\n}\n\
        theory T : V {\n {\n  ! x: A(x) <- ~B(x).\n  ! x: B(x) <- ~A(x) & x > 5.\n }\n}\n\
        structure S : V {\n D = { 0..3 }\n}\n";
    let p = program(text);
    let (theory, structure) = parts(&p);
    assert!(idp::ground::datalog::evaluate(
        &p,
        &theory.definitions[0],
        structure,
        usize::MAX,
        &Default::default()
    )
    .unwrap()
    .is_none());
    assert_eq!(evaluated(&p, true), evaluated(&p, false));
}

/// Constructor terms in heads (`getX(P(x, y)) = x` becomes `getX(v) = x <- v = P(x, y)`) and
/// equalities of two function terms (`getX(p) = getX(q)`) are joins, not enumerations of pairs:
/// the maze spec's definitions, checked against the general path.
#[test]
fn constructed_types_and_equal_function_terms() {
    let text = "vocabulary V {\n type X isa int\n type Y isa int\n \
        type Pos constructed from { P(X, Y) }\n getX(Pos) : X\n getY(Pos) : Y\n \
        neighbor(Pos, Pos)\n}\ntheory T : V {\n {\n  ! x[X] y[Y]: getX(P(x, y)) = x.\n  \
        ! x[X] y[Y]: getY(P(x, y)) = y.\n }\n {\n  ! p q: neighbor(p, q) <- getX(p) = getX(q) & \
        getY(p) = getY(q) - 1.\n  ! p q: neighbor(p, q) <- getY(p) = getY(q) & \
        getX(p) = getX(q) + 1.\n }\n}\nstructure S : V { X = { 0..4 } Y = { 0..3 } }\n";
    let p = program(text);
    let (theory, _) = parts(&p);
    let new = evaluate(&p, true).expect("a model");
    assert_eq!(Some(tables(&p, &new)), evaluated(&p, false));
    let neighbor = tables(&p, &new)
        .into_iter()
        .find(|(name, _)| name == "neighbor")
        .expect("neighbor")
        .1;
    assert_eq!(neighbor.len(), 5 * 3 + 4 * 4);
    // Both definitions are the engine's.
    let mut s = parts(&p).1.clone();
    for def in &theory.definitions {
        let done = idp::ground::datalog::evaluate(&p, def, &s, usize::MAX, &Default::default())
            .unwrap()
            .expect("the engine takes it");
        for (sym, set) in done.extensions {
            s.symbols.insert(
                sym,
                idp::structure::Table::TwoValued(set.into_iter().collect()),
            );
        }
    }
}
