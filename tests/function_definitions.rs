//! Definitions of functions against brute force (issue 29): random definitions of a function
//! `F : T -> T` on a two-element domain, whose rule bodies mention other values of `F` itself, open
//! predicates, aggregates and a partial function; model expansion must find exactly the
//! models that trying every interpretation finds (IDP3's semantics of a defined function: the
//! well-founded model of its graph, which must be a function, total unless `F` is partial).

mod support;

use idp::infer::brute_force_count;
use idp::sema::Component;

/// A small deterministic random generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A body literal over the variable `x` (bound to T).
fn literal(r: &mut Rng) -> String {
    let c = r.below(2);
    let d = r.below(2);
    match r.below(10) {
        0 => format!("F({c}) = {d}"),
        1 => format!("F(x) = {d}"),
        2 => "P(x)".to_string(),
        3 => "~P(x)".to_string(),
        4 => format!("F({c}) ~= x"),
        5 => format!(
            "#{{y[T] : F(y) = x}} {} {}",
            r.pick(&["=", "<", ">", "=<"]),
            r.below(3)
        ),
        6 => format!("G({c}) = x"),
        7 => format!("? y[T] : F(y) = x & y ~= {c}"),
        8 => format!("~(F({c}) = {d})"),
        _ => format!("x {} {c}", r.pick(&["=", "<", ">"])),
    }
}

/// A random specification: F defined by two to four rules, G a partial open function.
fn spec(r: &mut Rng) -> String {
    let mut rules = Vec::new();
    for _ in 0..2 + r.below(3) {
        let head = match r.below(3) {
            0 => format!("F({}) = {}", r.below(2), r.below(2)),
            1 => format!("F(x) = {}", r.below(2)),
            _ => format!("F(x) = F({})", r.below(2)),
        };
        let lits: Vec<String> = (0..1 + r.below(2)).map(|_| literal(r)).collect();
        let body = lits.join(if r.below(3) == 0 { " | " } else { " & " });
        if head.contains("(x)") || body.contains('x') {
            rules.push(format!("    ! x[T] : {head} <- {body}."));
        } else {
            rules.push(format!("    {head} <- {body}."));
        }
    }
    let partial = if r.below(3) == 0 { "partial " } else { "" };
    format!(
        "vocabulary V {{\n  type T isa int\n  {partial}F(T) : T\n  partial G(T) : T\n  P(T)\n}}\n\
         theory T : V {{\n  {{\n{}\n  }}\n}}\nstructure S : V {{\n  T = {{ 0..1 }}\n}}\n",
        rules.join("\n")
    )
}

/// Every model found is checked by the naive checker, and the number of models equals the
/// number that trying every interpretation finds (`IDP_FUNCTION_CASES` sets how many cases).
#[test]
fn function_definitions_agree_with_brute_force() {
    let mut r = Rng(0x2900_f00d);
    let cases: usize = std::env::var("IDP_FUNCTION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut failures = Vec::new();
    for _ in 0..cases {
        let text = spec(&mut r);
        let (p, models) = support::checked_models(&text);
        let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
            (p.lookup(&["T"]), p.lookup(&["S"]))
        else {
            panic!("no theory T or structure S");
        };
        let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
        let found = models.len() as u64;
        let brute = brute_force_count(&p, theory, structure, 1 << 20).expect("small enough");
        if found != brute {
            failures.push(format!("{text}-- found {found}, brute force {brute}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} differ; the first:\n{}",
        failures.len(),
        failures[0]
    );
}
