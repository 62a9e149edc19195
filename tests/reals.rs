//! Reals decided by the simplex (issue 48): random linear theories over `Real` constants,
//! written in FO(·) as a user would, against an independent decision procedure (every truth
//! assignment of the comparisons, each system decided by Fourier–Motzkin elimination, exact
//! over rationals); every model idp prints is evaluated exactly against the theory.

mod support;

use std::process::Command;

use num_bigint::BigInt;
use num_rational::BigRational as Q;
use num_traits::{Signed, Zero};

const VARS: [&str; 3] = ["x", "y", "z"];

fn q(n: i64) -> Q {
    Q::from_integer(BigInt::from(n))
}

/// `Σ a·v ≥ b` (`>` when strict).
#[derive(Clone, Debug)]
struct Ineq {
    a: Vec<Q>,
    b: Q,
    strict: bool,
}

fn feasible(mut system: Vec<Ineq>) -> bool {
    for x in 0..VARS.len() {
        let (mut pos, mut neg, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for i in system {
            match i.a[x].is_positive() {
                true => pos.push(i),
                false if i.a[x].is_negative() => neg.push(i),
                false => rest.push(i),
            }
        }
        for p in &pos {
            for n in &neg {
                let (s, t) = (-n.a[x].clone(), p.a[x].clone());
                rest.push(Ineq {
                    a: (0..VARS.len())
                        .map(|v| &p.a[v] * &s + &n.a[v] * &t)
                        .collect(),
                    b: &p.b * &s + &n.b * &t,
                    strict: p.strict || n.strict,
                });
            }
        }
        system = rest;
    }
    system.iter().all(|i| match i.strict {
        true => Q::zero() > i.b,
        false => Q::zero() >= i.b,
    })
}

/// `Σ a·v op k`.
#[derive(Clone, Debug)]
struct Atom {
    a: Vec<i64>,
    op: &'static str,
    k: Q,
}

impl Atom {
    fn text(&self) -> String {
        let sum: Vec<String> = (0..VARS.len())
            .filter(|&v| self.a[v] != 0)
            .map(|v| format!("{}*{}()", self.a[v], VARS[v]))
            .collect();
        let sum = if sum.is_empty() {
            "0".to_string()
        } else {
            sum.join(" + ")
        };
        format!("{sum} {} {}", self.op, decimal(&self.k))
    }

    fn holds(&self, value: &[Q]) -> bool {
        let s: Q = (0..VARS.len()).map(|v| q(self.a[v]) * &value[v]).sum();
        match self.op {
            "<" => s < self.k,
            "=<" => s <= self.k,
            "=" => s == self.k,
            "~=" => s != self.k,
            ">=" => s >= self.k,
            _ => s > self.k,
        }
    }

    /// The ways it can hold (or fail, `truth` false), each a system of inequalities.
    fn cases(&self, truth: bool) -> Vec<Vec<Ineq>> {
        let up = |strict| Ineq {
            a: self.a.iter().map(|&c| q(c)).collect(),
            b: self.k.clone(),
            strict,
        };
        let down = |strict| Ineq {
            a: self.a.iter().map(|&c| q(-c)).collect(),
            b: -self.k.clone(),
            strict,
        };
        let op = match (self.op, truth) {
            (op, true) => op,
            ("<", false) => ">=",
            ("=<", false) => ">",
            ("=", false) => "~=",
            ("~=", false) => "=",
            (">=", false) => "<",
            (_, false) => "=<",
        };
        match op {
            "<" => vec![vec![down(true)]],
            "=<" => vec![vec![down(false)]],
            "=" => vec![vec![up(false), down(false)]],
            "~=" => vec![vec![up(true)], vec![down(true)]],
            ">=" => vec![vec![up(false)]],
            _ => vec![vec![up(true)]],
        }
    }
}

/// A number as FO(·) writes it: an integer, or a decimal.
fn decimal(k: &Q) -> String {
    if k.is_integer() {
        return k.to_string();
    }
    // Quarters and halves only (the generator's).
    let hundredths = (k * q(100)).to_integer();
    let (sign, n) = if hundredths < BigInt::zero() {
        ("-", -hundredths)
    } else {
        ("", hundredths)
    };
    format!("{sign}{}.{:02}", &n / 100, &n % 100)
}

#[derive(Clone, Debug)]
enum Formula {
    Atom(usize),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    Implies(Box<Formula>, Box<Formula>),
}

impl Formula {
    fn text(&self, atoms: &[Atom]) -> String {
        match self {
            Formula::Atom(k) => format!("({})", atoms[*k].text()),
            Formula::Not(f) => format!("~{}", f.text(atoms)),
            Formula::And(a, b) => format!("({} & {})", a.text(atoms), b.text(atoms)),
            Formula::Or(a, b) => format!("({} | {})", a.text(atoms), b.text(atoms)),
            Formula::Implies(a, b) => format!("({} => {})", a.text(atoms), b.text(atoms)),
        }
    }

    fn eval(&self, truth: &dyn Fn(usize) -> bool) -> bool {
        match self {
            Formula::Atom(k) => truth(*k),
            Formula::Not(f) => !f.eval(truth),
            Formula::And(a, b) => a.eval(truth) && b.eval(truth),
            Formula::Or(a, b) => a.eval(truth) || b.eval(truth),
            Formula::Implies(a, b) => !a.eval(truth) || b.eval(truth),
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn atom(&mut self) -> Atom {
        let ops = ["<", "=<", "=", "~=", ">=", ">"];
        let a = (0..VARS.len()).map(|_| self.next(7) as i64 - 3).collect();
        let k = q(self.next(21) as i64 - 10) + Q::new(BigInt::from(self.next(4)), BigInt::from(4));
        Atom {
            a,
            op: ops[self.next(6) as usize],
            k,
        }
    }

    fn formula(&mut self, atoms: usize, depth: u32) -> Formula {
        if depth == 0 || self.next(3) == 0 {
            return Formula::Atom(self.next(atoms as u64) as usize);
        }
        let kind = self.next(4);
        let a = Box::new(self.formula(atoms, depth - 1));
        if kind == 0 {
            return Formula::Not(a);
        }
        let b = Box::new(self.formula(atoms, depth - 1));
        match kind {
            1 => Formula::And(a, b),
            2 => Formula::Or(a, b),
            _ => Formula::Implies(a, b),
        }
    }
}

/// Whether some assignment of the atoms makes every sentence true and has real values.
fn satisfiable(atoms: &[Atom], sentences: &[Formula]) -> bool {
    satisfiable_with(atoms, sentences, &[])
}

/// [`satisfiable`] with `extra` inequalities holding too.
fn satisfiable_with(atoms: &[Atom], sentences: &[Formula], extra: &[Ineq]) -> bool {
    (0..1u32 << atoms.len()).any(|bits| {
        let truth = |k: usize| bits & (1 << k) != 0;
        if !sentences.iter().all(|f| f.eval(&truth)) {
            return false;
        }
        // Every combination of the atoms' cases.
        let mut systems: Vec<Vec<Ineq>> = vec![extra.to_vec()];
        for (k, atom) in atoms.iter().enumerate() {
            let cases = atom.cases(truth(k));
            systems = systems
                .iter()
                .flat_map(|s| {
                    cases.iter().map(move |c| {
                        let mut s = s.clone();
                        s.extend(c.iter().cloned());
                        s
                    })
                })
                .collect();
        }
        systems.into_iter().any(feasible)
    })
}

/// The values of `x`, `y`, `z` in idp's printed model (0 for a constant nothing mentions).
fn model_values(stdout: &str) -> Vec<Q> {
    VARS.iter()
        .map(|v| {
            let prefix = format!("{v} := ");
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .map_or_else(Q::zero, |text| {
                    text.trim_end_matches('.').parse::<Q>().expect("a number")
                })
        })
        .collect()
}

/// A random theory: its comparisons, its sentences, and its FO(·) text with `main`.
fn random_theory(rng: &mut Rng, main: &str) -> (Vec<Atom>, Vec<Formula>, String) {
    let atoms: Vec<Atom> = (0..1 + rng.next(4) as usize).map(|_| rng.atom()).collect();
    let sentences: Vec<Formula> = (0..1 + rng.next(3))
        .map(|_| rng.formula(atoms.len(), 2))
        .collect();
    let theory: String = sentences
        .iter()
        .map(|f| format!("    {}.\n", f.text(&atoms)))
        .collect();
    let text = format!(
        "vocabulary V {{\n    x, y, z: () -> Real\n}}\ntheory T:V {{\n{theory}}}\n\
         procedure main() {{\n    {main}\n}}\n"
    );
    (atoms, sentences, text)
}

/// Runs `text` as `name`: stdout, stderr and the exit code.
fn run(name: &str, text: &str) -> (String, String, Option<i32>) {
    let file = support::test_dir("reals").join(name);
    std::fs::write(&file, text).expect("write");
    let out = Command::new(support::IDP)
        .arg(&file)
        .output()
        .expect("idp runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn random_linear_theories_agree_with_elimination() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut sat, mut unsat) = (0, 0);
    for case in 0..300 {
        let main = "pretty_print(model_expand(T, max=1))";
        let (atoms, sentences, text) = random_theory(&mut rng, main);
        let (stdout, stderr, code) = run(&format!("case{case}.idp"), &text);
        assert_eq!(code, Some(0), "{text}\n{stdout}{stderr}");
        let expected = satisfiable(&atoms, &sentences);
        if stdout.contains("No models.") {
            assert!(!expected, "case {case}: idp finds no model of\n{text}");
            unsat += 1;
            continue;
        }
        assert!(
            expected,
            "case {case}: idp finds a model of an unsatisfiable\n{text}{stdout}"
        );
        let value = model_values(&stdout);
        let truth = |k: usize| atoms[k].holds(&value);
        for f in &sentences {
            assert!(
                f.eval(&truth),
                "case {case}: {} fails at {value:?}\n{text}{stdout}",
                f.text(&atoms)
            );
        }
        sat += 1;
    }
    assert!(sat > 50 && unsat > 20, "{sat} satisfiable, {unsat} not");
}

/// Minimising `x + 2y − z` over random theories with every variable within [−20, 20]: the
/// model idp prints satisfies the theory, and no model is strictly better (elimination with
/// `x + 2y − z < value` added); where idp says the least value is only approached, models
/// come arbitrarily close (every value above it has one) and none reaches it.
#[test]
fn random_minimisations_agree_with_elimination() {
    let objective = [1, 2, -1];
    let box_bounds: Vec<Ineq> = (0..VARS.len())
        .flat_map(|v| {
            [1, -1].map(|s| {
                let mut a = vec![Q::zero(); VARS.len()];
                a[v] = q(s);
                Ineq {
                    a,
                    b: q(-20),
                    strict: false,
                }
            })
        })
        .collect();
    let below = |value: &Q, strict: bool| Ineq {
        a: objective.iter().map(|&c| q(-c)).collect(),
        b: -value.clone(),
        strict,
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut optimal, mut approached, mut none) = (0, 0, 0);
    for case in 0..200 {
        let main = "pretty_print(minimize(T, term=\"x() + 2*y() - z()\"))";
        let (atoms, sentences, text) = random_theory(&mut rng, main);
        let text = text.replace(
            "theory T:V {\n",
            "theory T:V {\n    -20 =< x() =< 20.\n    -20 =< y() =< 20.\n    -20 =< z() =< 20.\n",
        );
        let (stdout, stderr, code) = run(&format!("min{case}.idp"), &text);
        if !satisfiable_with(&atoms, &sentences, &box_bounds) {
            assert!(
                stdout.contains("No models"),
                "case {case}:\n{text}{stdout}{stderr}"
            );
            none += 1;
            continue;
        }
        if code == Some(1) {
            let value: Q = stderr
                .split("as close to ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_else(|| panic!("case {case}: {stderr}"))
                .parse()
                .expect("a number");
            let mut at_most = box_bounds.clone();
            at_most.push(below(&value, false));
            assert!(
                !satisfiable_with(&atoms, &sentences, &at_most),
                "case {case}: {value} is reached\n{text}"
            );
            let mut near = box_bounds.clone();
            near.push(below(
                &(&value + Q::new(BigInt::from(1), BigInt::from(1000))),
                true,
            ));
            assert!(
                satisfiable_with(&atoms, &sentences, &near),
                "case {case}: nothing near {value}\n{text}"
            );
            approached += 1;
            continue;
        }
        assert_eq!(code, Some(0), "case {case}:\n{text}{stdout}{stderr}");
        let value = model_values(&stdout);
        let truth = |k: usize| atoms[k].holds(&value);
        assert!(
            sentences.iter().all(|f| f.eval(&truth)),
            "case {case}: {stdout}"
        );
        let total: Q = (0..VARS.len()).map(|v| q(objective[v]) * &value[v]).sum();
        let mut better = box_bounds.clone();
        better.push(below(&total, true));
        assert!(
            !satisfiable_with(&atoms, &sentences, &better),
            "case {case}: a model below {total}\n{text}{stdout}"
        );
        optimal += 1;
    }
    assert!(
        optimal > 50 && approached > 10 && none > 10,
        "{optimal} optimal, {approached} approached, {none} without models"
    );
}

/// A diet as a linear program (IDP-Z3's syntax): the cheapest amounts, as idp-engine gives
/// them; a term with no lower bound is said to have none, where it is written.
#[test]
fn a_linear_program_is_solved_and_a_missing_optimum_is_named() {
    let diet = "vocabulary V {\n    type Food := {bread, milk, cheese}\n    \
                cost, protein, amount: Food -> Real\n    total: () -> Real\n}\n\
                theory T:V {\n    !f in Food: amount(f) >= 0.\n    \
                sum{{ (protein(f) * amount(f)) | f in Food }} >= 50.\n    \
                amount(cheese) =< 1.5.\n    \
                total() = sum{{ (cost(f) * amount(f)) | f in Food }}.\n}\n\
                structure S:V {\n    cost := {bread -> 2.5, milk -> 1.2, cheese -> 7}.\n    \
                protein := {bread -> 4, milk -> 3.3, cheese -> 25}.\n}\n\
                procedure main() {\n    pretty_print(minimize(T, S, term=\"total()\"))\n}\n";
    let (stdout, stderr, code) = run("diet.idp", diet);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        "amount := {bread -> 0, milk -> 125/33, cheese -> 3/2}.\ntotal := 331/22.\n\n\n"
    );
    let unbounded = "vocabulary V {\n    x: () -> Real\n}\ntheory T:V {\n    x() < 3.\n}\n\
                     procedure main() {\n    pretty_print(minimize(T, term=\"x()\"))\n}\n";
    let (_, stderr, code) = run("unbounded.idp", unbounded);
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: The term to optimise at ")
            && stderr.contains(
                "unbounded.idp:8:35 has no optimum: over the models of the theory it \
                 decreases without bound."
            ),
        "{stderr}"
    );
}

/// The shapes of the files: known decimals (a price list), a real defined by a
/// division by a known number, a sum over a type, strict bounds; values as IDP-Z3 prints them.
#[test]
fn decimals_sums_and_divisions_are_exact() {
    let text = "vocabulary V {\n    type Item := {a, b, c}\n    price: Item -> Real\n    \
                share: Item -> Real\n    total, half: () -> Real\n}\n\
                theory T:V {\n    total() = sum{{ price(i) | i in Item }}.\n    \
                !i in Item: share(i) = price(i) / 4.\n    half() = total() / 2.\n    \
                half() > 2.3.\n}\n\
                structure S:V {\n    price := {a -> 0.5, b -> 1.25, c -> 3}.\n}\n\
                procedure main() {\n    pretty_print(model_expand(T, S))\n}\n";
    let file = support::test_dir("reals").join("shares.idp");
    std::fs::write(&file, text).expect("write");
    let out = Command::new(support::IDP)
        .arg(&file)
        .output()
        .expect("idp runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "\nModel 1\n==========\nshare := {a -> 1/8, b -> 5/16, c -> 3/4}.\n\
         total := 19/4.\nhalf := 19/8.\n\n\nNo more models.\n\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `maximize` over reals: the greatest value of `2x + y` at a corner of the bounds.
#[test]
fn a_real_term_is_maximised() {
    let text = "vocabulary V {\n    x, y: () -> Real\n}\ntheory T:V {\n    x() + y() =< 10.\n    \
                x() =< 3.5.\n    y() =< 6.25.\n    x() >= 0.\n}\n\
                procedure main() {\n    pretty_print(maximize(T, term=\"2*x() + y()\"))\n}\n";
    let (stdout, stderr, code) = run("max.idp", text);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "x := 7/2.\ny := 25/4.\n\n\n");
}

/// An optimum whose numerator and denominator have more than 64 bits (a corner of two
/// constraints with ten-digit decimals): minimised, printed exactly, and the next model
/// told apart from the first by its exact value.
#[test]
fn an_optimum_with_long_digits_is_exact() {
    // Decimals with five places (IDP-Z3 reads them exactly, as idp does).
    let (a1, b1, c1) = ("99999.99967", "0.00003", "99999.99943");
    let (a2, b2, c2) = ("0.00005", "99999.99929", "99999.99919");
    let exact = |d: &str| {
        let digits: i64 = d.replace('.', "").parse().expect("digits");
        Q::new(BigInt::from(digits), BigInt::from(100_000))
    };
    let theory = format!(
        "vocabulary V {{\n    x, y: () -> Real\n}}\ntheory T:V {{\n    x() >= 0.\n    y() >= 0.\n    \
         {a1} * x() + {b1} * y() >= {c1}.\n    {a2} * x() + {b2} * y() >= {c2}.\n}}\n"
    );
    let [a1, b1, c1, a2, b2, c2] = [a1, b1, c1, a2, b2, c2].map(exact);
    let minimise = format!(
        "{theory}procedure main() {{\n    pretty_print(minimize(T, term=\"x() + y()\"))\n}}\n"
    );
    let (stdout, stderr, code) = run("long.idp", &minimise);
    assert_eq!(code, Some(0), "{stderr}");
    // Both constraints tight (Cramer's rule).
    let det = &a1 * &b2 - &a2 * &b1;
    let x = (&c1 * &b2 - &c2 * &b1) / &det;
    let y = (&a1 * &c2 - &a2 * &c1) / &det;
    assert!(
        x.denom() > &BigInt::from(i64::MAX),
        "the test's numbers are long"
    );
    assert_eq!(stdout, format!("x := {x}.\ny := {y}.\n\n\n"));
    // Two models, each at a corner with long digits, told apart exactly.
    let two = format!(
        "{}    x() + y() =< 3.\n}}\nprocedure main() {{\n    pretty_print(model_expand(T, max=2))\n}}\n",
        theory.trim_end().trim_end_matches('}')
    );
    let (stdout, stderr, code) = run("long_two.idp", &two);
    assert_eq!(code, Some(0), "{two}{stderr}");
    let models: Vec<Vec<Q>> = stdout.split("Model ").skip(1).map(model_values).collect();
    assert_eq!(models.len(), 2, "{stdout}");
    assert_ne!(models[0], models[1]);
    for m in &models {
        let (x, y) = (&m[0], &m[1]);
        assert!(!x.is_negative() && !y.is_negative(), "{stdout}");
        assert!(&a1 * x + &b1 * y >= c1, "{stdout}");
        assert!(&a2 * x + &b2 * y >= c2, "{stdout}");
        assert!(x + y <= q(3), "{stdout}");
    }
}

/// A product of two unknowns is located, and the remedy fits what they are and the file's
/// language: for reals, a known factor; for FO(·) integers, a type written in FO(·).
#[test]
fn a_product_of_two_unknowns_names_the_remedy() {
    let text = |sentence: &str| {
        format!(
            "vocabulary V {{\n    x, y: () -> Real\n    i, j: () -> Int\n}}\n\
             theory T:V {{\n    {sentence}\n}}\nprocedure main() {{\n    pretty_print(model_expand(T))\n}}\n"
        )
    };
    let (_, stderr, code) = run("product_reals.idp", &text("x() * y() = 2."));
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: The term at ")
            && stderr.contains(
                "product_reals.idp:6:5 multiplies two numbers that the search chooses (x, y): \
                 idp searches such numbers only in linear arithmetic (sums, differences, \
                 products with a known number, comparisons). Give one of them its value in the \
                 structure (a product with a known number is linear), or use a whole-number \
                 type with listed values instead of the reals."
            ),
        "{stderr}"
    );
    let (_, stderr, code) = run("product_ints.idp", &text("i() * j() = 6."));
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains(
            "product_ints.idp:6:5 multiplies two numbers that the search chooses (i, j): idp \
             searches such numbers only in linear arithmetic (sums, differences, products with a \
             known number, comparisons). Give the function a finite type (e.g. `type Val := \
             {0..100}` and `f: () -> Val`) so that its values are listed, or give its values in \
             the structure."
        ),
        "{stderr}"
    );
}

/// An FO(·) integer beyond 32 bits (IDP-Z3 reads it) is IDP3's error with a hint that says
/// why and what to write instead.
#[test]
fn a_long_integer_in_fodot_gets_a_hint() {
    let text =
        "vocabulary V {\n    budget: () -> Int\n}\ntheory T:V {\n    budget() >= 5000000000.\n}\n\
                procedure main() {\n    pretty_print(model_expand(T))\n}\n";
    let (_, stderr, code) = run("long_int.idp", text);
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: Numeric value 5000000000 is out of integer bounds. At ")
            && stderr.contains(
                "long_int.idp:5:17 [number-out-of-range]\n  hint: idp's integers have 32 bits, as \
                 IDP3's do (IDP-Z3's have no bound): scale the numbers down (thousands instead \
                 of units), or write them as reals (`5000000000.0` in a `Real` function)"
            ),
        "{stderr}"
    );
}
