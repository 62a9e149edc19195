//! A portfolio of solvers racing on each search (`--threads`, `stdoptions.threads`, issue 50,
//! `src/solve/portfolio.rs`): counts, optima and sets of distinct models are exactly those of
//! one solver and of brute force, on random knapsack problems.

mod support;

use support::Rng;

/// A knapsack: items `1..=n` with weights and worths, at most `capacity` taken; `Cost` is
/// the worth left behind.
struct Knapsack {
    weights: Vec<i64>,
    worths: Vec<i64>,
    capacity: i64,
}

impl Knapsack {
    fn random(n: usize, rng: &mut Rng) -> Knapsack {
        let weights: Vec<i64> = (0..n).map(|_| 1 + rng.below(9) as i64).collect();
        let worths = (0..n).map(|_| rng.below(12) as i64).collect();
        let capacity = weights.iter().sum::<i64>() / 2;
        Knapsack {
            weights,
            worths,
            capacity,
        }
    }

    fn spec(&self) -> String {
        let table = |values: &[i64]| {
            let pairs: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("{}->{v}", i + 1))
                .collect();
            pairs.join("; ")
        };
        format!(
            "vocabulary V {{
  type Item isa int
  Weight(Item) : int
  Worth(Item) : int
  Take(Item)
}}
theory T : V {{ sum{{ i : Take(i) : Weight(i) }} =< {}. }}
term Cost : V {{ sum{{ i : ~Take(i) : Worth(i) }} }}
structure S : V {{
  Item = {{ 1..{} }}
  Weight = {{ {} }}
  Worth = {{ {} }}
}}
",
            self.capacity,
            self.weights.len(),
            table(&self.weights),
            table(&self.worths)
        )
    }

    /// The feasible sets and the least cost, by trying every set.
    fn brute_force(&self) -> (u64, i64) {
        let n = self.weights.len();
        let (mut count, mut least) = (0, i64::MAX);
        for set in 0u32..1 << n {
            let taken = |i: usize| set & 1 << i != 0;
            let weight: i64 = (0..n).filter(|&i| taken(i)).map(|i| self.weights[i]).sum();
            if weight <= self.capacity {
                count += 1;
                let cost = (0..n).filter(|&i| !taken(i)).map(|i| self.worths[i]).sum();
                least = least.min(cost);
            }
        }
        (count, least)
    }
}

/// `idp ARGS` on `spec` (on stdin): stdout, checked to end with exit code 10 (models found).
fn run(args: &[&str], spec: &str) -> String {
    let out = support::idp(args, spec);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(10),
        "idp {args:?}: {stdout}{}\n{spec}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The number after `prefix` on a line of `text`.
fn number_after(text: &str, prefix: &str) -> i64 {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"))
}

#[test]
fn counts_optima_and_models_are_those_of_one_solver() {
    let mut rng = Rng(0x7e4d_5eed);
    for round in 0..8 {
        let knapsack = Knapsack::random(6 + round % 4, &mut rng);
        let spec = knapsack.spec();
        let (count, least) = knapsack.brute_force();
        for threads in ["1", "3"] {
            let counted = support::model_count(&["--nowarnings", "--threads", threads], &spec);
            assert_eq!(counted, count, "--threads {threads} --count\n{spec}");
            // Every model, each blocked as it is found (no counting inside the search); with
            // `--stats`, every solver is asked for its figures between searches, while the
            // solvers that lost a race may still be stopping.
            let all = run(
                &["--nowarnings", "--stats", "--threads", threads, "-n", "0"],
                &spec,
            );
            let models: std::collections::BTreeSet<&str> = all
                .split("Model ")
                .skip(1)
                .map(|m| m.split_once('\n').map_or(m, |(_, rest)| rest))
                .collect();
            assert_eq!(
                models.len() as u64,
                count,
                "--threads {threads} -n 0\n{spec}"
            );
            let optimum = run(
                &[
                    "--nowarnings",
                    "--threads",
                    threads,
                    "--minimize",
                    "Cost",
                    "-n",
                    "1",
                ],
                &spec,
            );
            assert_eq!(
                number_after(&optimum, "Optimal value: "),
                least,
                "--threads {threads} --minimize\n{spec}"
            );
        }
    }
}

#[test]
fn procedures_set_their_threads() {
    let mut rng = Rng(0x11);
    let knapsack = Knapsack::random(7, &mut rng);
    let (count, least) = knapsack.brute_force();
    let chunk = "stdoptions.threads = 2 stdoptions.nbmodels = 0 \
                 print(#modelexpand(T, S)) \
                 stdoptions.nbmodels = 1 \
                 print(value(Cost, minimize(T, S, Cost)[1]))";
    let out = support::idp(&["--nowarnings", "-e", chunk], &knapsack.spec());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, format!("{count}\n{least}\n"), "{out:?}");
    let out = support::idp(&["-e", "stdoptions.threads = 65"], &knapsack.spec());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"65\" is not a valid value for option threads.\n\tthreads = 0\n\t\t => between 0 and 64."),
        "{stderr}"
    );
}

#[test]
fn the_command_line_says_what_it_takes() {
    let out = support::idp(&["--threads", "0", "--count"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: invalid value '0' for '--threads <N|auto>': expected a number of threads from 1 \
         to 64, or auto (see idp --help)\n"
    );
    let spec = Knapsack::random(5, &mut Rng(3)).spec();
    let expected = Knapsack::random(5, &mut Rng(3)).brute_force().0;
    let counted = support::model_count(&["--nowarnings", "--threads", "auto"], &spec);
    assert_eq!(counted, expected);
}
