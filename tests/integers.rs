//! Numbers the search chooses: functions onto `int` without a finite type, reasoned about by
//! the solver's integer theory. Random linear theories against brute force (satisfiability,
//! the number of models, every model checked by the naive evaluator), optima against brute
//! force, exact answers on a scheduling exercise, and the messages for what is not linear.

mod support;

use idp::infer::{self, Options};
use idp::sema::Component;
use idp::structure::Value;
use support::checked_models;

/// Runs `idp -e chunk` on `text` (given on stdin) and returns its output; it must succeed.
fn run_text(text: &str, chunk: &str) -> String {
    let out = support::idp(&["-e", chunk], text);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A small deterministic generator (a linear congruence), so that failures replay.
struct Draw(u64);

impl Draw {
    fn next(&mut self, n: u64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n) as i64
    }

    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.next((hi - lo + 1) as u64)
    }
}

/// A comparison `Σ coefficient·X(i) op constant`, also with a guarded sum over open `Q`, or
/// of the absolute value of such a sum.
#[derive(Clone, Debug)]
struct Comparison {
    coefficients: Vec<i64>,
    /// Adds `sum{ i : Q(i) : X(i) }` times this.
    guarded: i64,
    /// Compares `abs(Σ ...)` instead.
    absolute: bool,
    op: &'static str,
    constant: i64,
}

impl Comparison {
    fn random(draw: &mut Draw, n: usize) -> Comparison {
        let ops = ["=<", "<", ">=", ">", "=", "~="];
        let mut coefficients: Vec<i64> = (0..n).map(|_| draw.between(-3, 3)).collect();
        if coefficients.iter().all(|&c| c == 0) {
            coefficients[draw.next(n as u64) as usize] = 1;
        }
        Comparison {
            coefficients,
            guarded: if draw.next(4) == 0 {
                draw.between(-2, 2)
            } else {
                0
            },
            absolute: draw.next(5) == 0,
            op: ops[draw.next(6) as usize],
            constant: draw.between(-6, 6),
        }
    }

    fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .coefficients
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .map(|(i, c)| format!("{c} * X({})", i + 1))
            .collect();
        if self.guarded != 0 {
            parts.push(format!("{} * sum{{ i : Q(i) : X(i) }}", self.guarded));
        }
        let left = parts.join(" + ");
        let left = if self.absolute {
            format!("abs({left})")
        } else {
            left
        };
        format!("{left} {} {}", self.op, self.constant)
    }

    fn holds(&self, x: &[i64], q: &[bool]) -> bool {
        let guarded: i64 = x.iter().zip(q).filter(|(_, &b)| b).map(|(v, _)| v).sum();
        let left: i64 = self
            .coefficients
            .iter()
            .zip(x)
            .map(|(c, v)| c * v)
            .sum::<i64>()
            + self.guarded * guarded;
        let left = if self.absolute { left.abs() } else { left };
        let k = self.constant;
        match self.op {
            "=<" => left <= k,
            "<" => left < k,
            ">=" => left >= k,
            ">" => left > k,
            "=" => left == k,
            _ => left != k,
        }
    }
}

/// A random theory: each sentence a comparison or a disjunction of two; the numbers kept
/// within `0..=4` by sentences (the function's type is `int`), so brute force can list them.
struct Theory {
    n: usize,
    sentences: Vec<Vec<Comparison>>,
}

impl Theory {
    fn random(seed: u64) -> Theory {
        let mut draw = Draw(seed);
        let n = 1 + draw.next(3) as usize;
        let sentences = (0..1 + draw.next(3))
            .map(|_| {
                (0..1 + draw.next(2))
                    .map(|_| Comparison::random(&mut draw, n))
                    .collect()
            })
            .collect();
        Theory { n, sentences }
    }

    fn text(&self) -> String {
        let sentences: Vec<String> = self
            .sentences
            .iter()
            .map(|or| {
                let parts: Vec<String> = or.iter().map(Comparison::text).collect();
                format!("  {}.\n", parts.join(" | "))
            })
            .collect();
        format!(
            "vocabulary V {{\n  type Idx isa int\n  X(Idx) : int\n  Q(Idx)\n}}\n\
             theory T : V {{\n  ! i : 0 =< X(i) & X(i) =< 4.\n{}}}\n\
             structure S : V {{\n  Idx = {{ 1..{} }}\n}}\n",
            sentences.concat(),
            self.n
        )
    }

    /// The models by brute force: every value of X in 0..=4 and every Q.
    fn brute_force(&self) -> usize {
        let mut count = 0;
        let n = self.n as u32;
        for xs in 0..5usize.pow(n) {
            let x: Vec<i64> = (0..n).map(|i| (xs / 5usize.pow(i) % 5) as i64).collect();
            for qs in 0..1usize << n {
                let q: Vec<bool> = (0..n).map(|i| qs >> i & 1 == 1).collect();
                if self
                    .sentences
                    .iter()
                    .all(|or| or.iter().any(|c| c.holds(&x, &q)))
                {
                    count += 1;
                }
            }
        }
        count
    }
}

#[test]
fn random_linear_theories_agree_with_brute_force() {
    let mut satisfiable = 0;
    for seed in 0..300u64 {
        let theory = Theory::random(seed);
        let text = theory.text();
        let (_, models) = checked_models(&text);
        assert_eq!(models.len(), theory.brute_force(), "seed {seed}:\n{text}");
        satisfiable += usize::from(!models.is_empty());
    }
    // The draw makes both kinds.
    assert!(
        (50..250).contains(&satisfiable),
        "{satisfiable} satisfiable"
    );
}

/// The least value of `O` in the models of `T` in `S`, and how many models have it.
fn minimum(text: &str) -> (Option<Value>, usize) {
    let p = support::program(text);
    let (Some(Component::Theory(t)), Some(Component::Structure(s)), Some(Component::Term(o))) =
        (p.lookup(&["T"]), p.lookup(&["S"]), p.lookup(&["O"]))
    else {
        panic!("T, S and O expected")
    };
    let options = Options {
        nbmodels: 0,
        ..Options::default()
    };
    let found = infer::minimize(
        &p,
        &p.theories[t.index()],
        &p.structures[s.index()],
        &p.terms[o.index()].term,
        None,
        &options,
    )
    .expect("minimize succeeds")
    .value;
    assert!(found.proven);
    for m in &found.models {
        infer::check_model(&p, &p.theories[t.index()], m).expect("an optimal model is a model");
    }
    (found.value, found.models.len())
}

#[test]
fn optima_agree_with_brute_force() {
    for seed in 0..120u64 {
        let theory = Theory::random(seed + 1000);
        let mut draw = Draw(seed);
        let weights: Vec<i64> = (0..theory.n).map(|_| draw.between(-3, 3)).collect();
        let objective: Vec<String> = weights
            .iter()
            .enumerate()
            .map(|(i, w)| format!("{w} * X({})", i + 1))
            .collect();
        let text = format!(
            "{}term O : V {{ {} }}\n",
            theory.text(),
            objective.join(" + ")
        );
        // Brute force: the least value and the models (X and Q) that have it.
        let n = theory.n as u32;
        let mut best: Option<(i64, usize)> = None;
        for xs in 0..5usize.pow(n) {
            let x: Vec<i64> = (0..n).map(|i| (xs / 5usize.pow(i) % 5) as i64).collect();
            for qs in 0..1usize << n {
                let q: Vec<bool> = (0..n).map(|i| qs >> i & 1 == 1).collect();
                if !theory
                    .sentences
                    .iter()
                    .all(|or| or.iter().any(|c| c.holds(&x, &q)))
                {
                    continue;
                }
                let value: i64 = weights.iter().zip(&x).map(|(w, v)| w * v).sum();
                best = match best {
                    Some((b, k)) if b == value => Some((b, k + 1)),
                    Some((b, _)) if b < value => best,
                    _ => Some((value, 1)),
                };
            }
        }
        let (value, count) = minimum(&text);
        match best {
            None => assert_eq!((value, count), (None, 0), "seed {seed}:\n{text}"),
            Some((b, k)) => assert_eq!(
                (value, count),
                (Some(Value::Int(b)), k),
                "seed {seed}:\n{text}"
            ),
        }
    }
}

const SCHEDULE: &str = "vocabulary V {
  type Job
  Dur(Job) : int
  Start(Job) : int
  Before(Job, Job)
  End : int
}
theory T : V {
  ! j : Start(j) >= 0.
  ! a b : Before(a, b) => Start(a) + Dur(a) =< Start(b).
  ! j : Start(j) + Dur(j) =< End.
  ! a b : a ~= b => Start(a) + Dur(a) =< Start(b) | Start(b) + Dur(b) =< Start(a).
}
term Makespan : V { End }
term Weighted : V { sum{ j : true : 2 * Start(j) - Dur(j) } }
structure S : V {
  Job = { a; b; c; d }
  Dur = { a -> 3; b -> 2; c -> 4; d -> 1 }
  Before = { (a, b); (c, d) }
}
";

/// The course exercise that `idp` refused before (`Start(Job) : int`): a schedule without
/// overlaps, the least makespan (10, the total duration) and the least weighted start (24,
/// by enumerating the orders).
#[test]
fn a_schedule_over_unbounded_start_times() {
    let out = run_text(
        SCHEDULE,
        "local m, _, v = minimize(T, S, Makespan) print(v) \
         m, _, v = minimize(T, S, Weighted) print(v)",
    );
    assert_eq!(out, "10\n24\n");
}

/// A deadline below the total duration leaves no model; constraints that no integers satisfy
/// (a cycle `X < Y < X`, or `X + Y = 7 ∧ X − Y = 2`) are refuted, not searched forever.
#[test]
fn inconsistent_numbers_have_no_model() {
    let tight = SCHEDULE.replace("Start(j) + Dur(j) =< End.", "Start(j) + Dur(j) =< 9.");
    assert_eq!(run_text(&tight, "print(modelexpand(T, S)[1])"), "nil\n");
    let text = "vocabulary V {\n  X : int\n  Y : int\n  P\n}\n\
                theory T : V {\n  P => X < Y & Y < X.\n  ~P => X + Y = 7 & X - Y = 2.\n}\n\
                structure S : V {\n}\n";
    assert_eq!(run_text(text, "print(modelexpand(T, S)[1])"), "nil\n");
}

/// An integer never equals a fraction: `X = 7/2` (IDP3's division is exact, 3.5) has no
/// model over `int`, and over `nat` a negative value none; `X = 8/4` has one.
#[test]
fn an_integer_never_takes_a_fraction() {
    let text = |range: &str, value: &str| {
        format!(
            "vocabulary V {{\n  X : {range}\n}}\ntheory T : V {{\n  X = {value}.\n}}\n\
             structure S : V {{\n}}\n"
        )
    };
    let first = "print(modelexpand(T, S)[1])";
    assert_eq!(run_text(&text("int", "7/2"), first), "nil\n");
    assert_eq!(run_text(&text("nat", "0 - 3"), first), "nil\n");
    let count = "stdoptions.nbmodels = 0 print(#modelexpand(T, S))";
    assert_eq!(run_text(&text("int", "8/4"), count), "1\n");
    assert_eq!(run_text(&text("nat", "9/3"), count), "1\n");
}

/// The naive checker that re-checks every model rejects a function value outside its type,
/// whatever the sentences say (`X = 7/2` is true of 3.5).
#[test]
fn the_checker_rejects_a_value_outside_its_type() {
    let text = "vocabulary V {\n  X : int\n}\ntheory T : V {\n  X = 7/2.\n}\n\
                structure S : V {\n}\n";
    let p = support::program(text);
    let (theory, structure) = support::theory_t_and_structure_s(&p);
    let x = idp::ids::Symbol::Func(p.voc(structure.vocabulary).funcs[0]);
    let with = |value: Value| {
        let mut s = structure.clone();
        let ct = std::iter::once(vec![value]).collect();
        s.symbols.insert(x, idp::structure::Table::TwoValued(ct));
        s
    };
    let fraction = Value::float(3.5);
    assert_eq!(
        infer::check_model(&p, theory, &with(fraction)),
        Err("X() = 3.5 is outside its type".to_string())
    );
    assert_eq!(
        infer::check_model(&p, theory, &with(Value::Int(3))),
        Err("sentence 1 of theory T is false".to_string())
    );
}

/// Models that differ only in a number are told apart: `0 =< X < 5` with the type `int`
/// has five.
#[test]
fn models_differ_in_their_numbers() {
    let text = "vocabulary V {\n  X : int\n}\ntheory T : V {\n  0 =< X & X < 5.\n}\nstructure S : V {\n}\n";
    let (_, models) = checked_models(text);
    let mut values: Vec<String> = models
        .iter()
        .map(|m| idp::print::structure_to_string(&support::program(text), m))
        .filter_map(|s| s.lines().find(|l| l.contains("X =")).map(str::to_string))
        .collect();
    values.sort();
    assert_eq!(
        values,
        ["  X = 0", "  X = 1", "  X = 2", "  X = 3", "  X = 4"]
    );
}

/// `abs` of a number is searched too: `|X − 3| =< 1` with `X` in `int` has three models, and
/// `|X| + |Y| = 2` has eight.
#[test]
fn absolute_values_are_searched() {
    let count = |theory: &str| {
        let text = format!(
            "vocabulary V {{\n  X : int\n  Y : int\n}}\ntheory T : V {{\n  {theory}\n  -5 =< Y & Y =< 5.\n}}\nstructure S : V {{\n}}\n"
        );
        checked_models(&text).1.len()
    };
    assert_eq!(count("abs(X - 3) =< 1 & Y = 0."), 3);
    assert_eq!(count("abs(X) + abs(Y) = 2."), 8);
}

/// A product of two numbers the search chooses is refused with the term's position.
#[test]
fn a_product_of_two_numbers_is_located() {
    let text = "vocabulary V {\n  X : int\n  Y : int\n}\ntheory T : V {\n  X * Y = 12.\n}\nstructure S : V {\n}\n";
    let out = support::idp(&["-e", "print(modelexpand(T, S)[1])"], text);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "The term at stdin:6:3 multiplies two numbers that the search chooses (X, Y)"
        ),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Siblings' ages over `0..limit` (bounds that push each other a few units a round, which
/// bounds propagation alone needed a round per unit for): the eldest's least age, against
/// enumeration of every age tuple for a small limit, and against the closed form
/// `⌈(2·limit + 27) / 5⌉` (the eldest `a`, the others at most `a − 2`, …, `a − 8`) where
/// the limit is a million.
#[test]
fn ages_over_a_million_values() {
    let ages = |limit: i64| {
        format!(
            "vocabulary V {{\n  type Person isa int\n  Age(Person) : int\n  Total : int\n  Limit : int\n}}\n\
             theory T : V {{\n  ! p : 0 =< Age(p) =< Limit.\n  sum{{ p : Person(p) : Age(p) }} = Total.\n  \
             ! p q : Person(p) & Person(q) & q = p + 1 => Age(p) >= Age(q) + 2.\n  \
             Age(1) =< 3 * Age(5).\n}}\nterm Eldest : V {{ Age(1) }}\n\
             structure S : V {{\n  Person = {{ 1..5 }}\n  Limit = {limit}\n  Total = {}\n}}\n",
            2 * limit + 7
        )
    };
    let least = |limit: i64| -> i64 {
        let out = run_text(
            &ages(limit),
            "local _, _, v = minimize(T, S, Eldest) print(v)",
        );
        out.trim().parse().expect("a number")
    };
    // Enumerated: descending ages a > b > c > d > e, two years apart at least.
    let limit = 20i64;
    let mut best = None;
    for a in 0..=limit {
        for b in 0..=a - 2 {
            for c in 0..=b - 2 {
                for d in 0..=c - 2 {
                    let e = 2 * limit + 7 - a - b - c - d;
                    if (0..=d - 2).contains(&e) && a <= 3 * e {
                        best = Some(best.map_or(a, |m: i64| m.min(a)));
                    }
                }
            }
        }
    }
    assert_eq!(Some(least(limit)), best);
    let million = 1_000_000i64;
    assert_eq!(least(million), (2 * million + 27 + 4) / 5);
}

/// An objective that mixes a number listed by value (`x`, 13 values) with one searched as a
/// number (`y`, 101 values) is minimised (it was refused as "may have no value").
#[test]
fn an_objective_over_listed_and_searched_numbers() {
    let text = "vocabulary V {
    x, y : () -> Int
}
theory T : V {
    -10 =< x() =< 2.
    0 =< y() =< 100.
    x() + y() ~= 0.
}
structure S : V {}
procedure main() {
    pretty_print(minimize(T, S, term=\"x() - y()\"))
}
";
    let out = support::idp(&["--nowarnings"], text);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "x := -10.\ny := 100.\n\n\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A minimum that only the 32-bit window gives (`y` unbounded above, minimising `-y`) is
/// printed as found, with a warning that names the number at the window's end.
#[test]
fn a_minimum_at_the_end_of_the_32_bit_integers_is_said() {
    let text = "vocabulary V {
    x, y : () -> Int
}
theory T : V {
    -2*y() =< 2.
    -10 =< x() =< 2.
}
structure S : V {}
procedure main() {
    pretty_print(minimize(T, S, term=\"2*x() - 2*y()\"))
}
";
    let out = support::idp(&[], text);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "x := -10.\ny := 2147483647.\n\n\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "(Reading from stdin)\nWarning: the optimum of the term at stdin:10:38 has y() = \
         2147483647, at an end of the 32-bit integers idp searches: the term may have no \
         optimum (bound the numbers it reads)\n"
    );
}
