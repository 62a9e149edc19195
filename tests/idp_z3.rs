//! IDP-Z3 (FO(·)) files run by `idp`, against the output IDP-Z3 itself gave for them.
//!
//! Each `tests/idp_z3/NAME.idp` has `NAME.expected`, recorded from `idp-engine` 0.12.1 by
//! `tests/idp_z3/record.sh` (the command is in the script). IDP-Z3 finds models in another order
//! than idp, so outputs are compared with the models of each `model_expand` as a set, and the
//! consequences of each `model_propagate` as a set; when IDP-Z3 stopped at `max` models ("More
//! models may be available"), only how many it printed counts. The peers' encodings of the seed
//! problems (`../shared/peers`, when present) must give the optimum that breadth-first search
//! found, and a maze.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn idp() -> &'static str {
    support::IDP
}

fn run(file: &Path) -> (String, String, Option<i32>) {
    let out = Command::new(idp()).arg(file).output().expect("idp runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// A piece of output: a line, or a whole model of `model_expand`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
enum Piece {
    Line(String),
    Model(String),
    /// `n` models of a search stopped at `max`.
    Models(usize),
}

/// The output with models and consequences in a canonical order.
fn normal(text: &str) -> Vec<Piece> {
    let lines: Vec<&str> = text.lines().collect();
    let mut pieces = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let is_model = lines[k].starts_with("Model ") && lines.get(k + 1) == Some(&"==========");
        if is_model {
            let mut body = Vec::new();
            k += 2;
            while k < lines.len() && !lines[k].is_empty() {
                body.push(lines[k]);
                k += 1;
            }
            pieces.push(Piece::Model(body.join("\n")));
        } else {
            pieces.push(Piece::Line(lines[k].to_string()));
            k += 1;
        }
    }
    let stopped = text.contains("More models may be available");
    let mut out: Vec<Piece> = Vec::new();
    let mut run: Vec<Piece> = Vec::new();
    let flush = |run: &mut Vec<Piece>, out: &mut Vec<Piece>| {
        if stopped && !run.is_empty() {
            out.push(Piece::Models(run.len()));
            run.clear();
        } else {
            run.sort();
            out.append(run);
        }
    };
    for p in pieces {
        match &p {
            Piece::Model(_) => run.push(p),
            Piece::Line(l) if l.is_empty() && !run.is_empty() => {}
            Piece::Line(l) if l == "No more consequences." => {
                // The consequences since the last empty line, as a set.
                let start = out
                    .iter()
                    .rposition(|q| *q == Piece::Line(String::new()))
                    .map_or(0, |i| i + 1);
                out[start..].sort();
                out.push(p);
            }
            _ => {
                flush(&mut run, &mut out);
                out.push(p);
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// A file `name` with `text` in a scratch folder.
fn scratch_file(tag: &str, name: &str, text: &str) -> PathBuf {
    let file = support::test_dir(tag).join(name);
    std::fs::write(&file, text).expect("write");
    file
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/idp_z3");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/idp_z3")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "idp"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_file_gives_idp_z3s_answers() {
    let files = files();
    assert!(files.len() >= 40, "only {} FO(·) test files", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let expected = std::fs::read_to_string(file.with_extension("expected"))
            .unwrap_or_else(|_| panic!("{} has no .expected file", file.display()));
        let (stdout, stderr, code) = run(file);
        if code != Some(0) || normal(&stdout) != normal(&expected) {
            failures.push(format!(
                "{}: exit {code:?}\n--- idp\n{stdout}{stderr}--- IDP-Z3\n{expected}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_comparison_ignores_model_order_only() {
    let a = "\nModel 1\n==========\np := {a}.\n\n\nModel 2\n==========\np := {b}.\n\n\nNo more models.\n\n";
    let b = "\nModel 1\n==========\np := {b}.\n\n\nModel 2\n==========\np := {a}.\n\n\nNo more models.\n\n";
    let c = "\nModel 1\n==========\np := {c}.\n\n\nModel 2\n==========\np := {a}.\n\n\nNo more models.\n\n";
    assert_eq!(normal(a), normal(b));
    assert_ne!(normal(a), normal(c));
}

/// `../shared/peers`, where the peers' benchmark lives (absent outside the project's machines).
fn peers() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peers/instances");
    dir.is_dir().then_some(dir)
}

#[test]
fn the_peers_theseus_encodings_give_the_optimal_escape() {
    let Some(dir) = peers() else { return };
    let index = std::fs::read_to_string(dir.join("theseus/index.csv")).expect("index.csv");
    for line in index.lines().skip(1).take(5) {
        let cols: Vec<&str> = line.split(',').collect();
        let (name, optimum) = (cols[0], cols[6]);
        let (stdout, stderr, code) = run(&dir.join(format!("idp/theseus/{name}.idp")));
        assert_eq!(code, Some(0), "{name}: {stderr}");
        let found = format!("goalTime := {optimum}.");
        assert!(
            stdout.contains(&found),
            "{name}: expected {found}\n{stdout}"
        );
    }
}

#[test]
fn the_peers_maze_encoding_gives_a_maze() {
    let Some(dir) = peers() else { return };
    for n in [5, 9, 13] {
        let (stdout, stderr, code) = run(&dir.join(format!("idp/maze/maze_{n}.idp")));
        assert_eq!(code, Some(0), "maze {n}: {stderr}");
        let walls = stdout
            .lines()
            .find_map(|l| l.strip_prefix("Wall := {"))
            .expect("a Wall line");
        let cells: Vec<(i64, i64)> = walls
            .trim_end_matches("}.")
            .split("), (")
            .map(|c| {
                let c = c.trim_matches(|ch| ch == '(' || ch == ')');
                let (x, y) = c.split_once(", ").expect("x, y");
                (x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect();
        let wall = |x: i64, y: i64| cells.contains(&(x, y));
        // The entrance and exit are open, every other border cell is a wall, and no 2x2
        // block is all walls or all open.
        assert!(!wall(1, 0) && !wall(n - 2, n - 1), "maze {n}");
        for k in 0..n {
            for (x, y) in [(k, 0), (k, n - 1), (0, k), (n - 1, k)] {
                let door = (x, y) == (1, 0) || (x, y) == (n - 2, n - 1);
                assert!(door || wall(x, y), "maze {n}: border ({x}, {y})");
            }
        }
        for x in 0..n - 1 {
            for y in 0..n - 1 {
                let block = [
                    wall(x, y),
                    wall(x + 1, y),
                    wall(x, y + 1),
                    wall(x + 1, y + 1),
                ];
                assert!(
                    block.iter().any(|w| *w) && block.iter().any(|w| !*w),
                    "maze {n}"
                );
            }
        }
    }
}

/// A quantifier over `Int` that nothing bounds (`p` may hold for every positive number) is
/// refused at its sentence, with the remedy in FO(·)'s words.
#[test]
fn unbounded_int_quantification_is_refused_at_its_sentence() {
    let file = scratch_file(
        "int",
        "int.idp",
        "vocabulary V {\n    p: Int -> Bool\n}\ntheory T:V {\n    !x in Int: p(x) => x > 0.\n}\n\
         procedure main() {\n    pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    for said in [
        "Infinite grounding: the variable 'x' ranges over the infinite type 'int' and the \
         formula gives no finite bound for it.",
        "while grounding the sentence at ",
        "int.idp:5:5: (! x[int] : (p(x) => (x > 0)))",
        "hint (FO(\u{b7})): IDP-Z3 leaves Int unbounded to Z3; idp grounds, so give the values a \
         listed type (`type Val := {0..100}`, then `f: T -> Val` or `x in Val`)",
    ] {
        assert!(stderr.contains(said), "{said} not in {stderr}");
    }
}

/// Functions defined over `Int` and `Real` (helpers as IDP-Z3 users write them) are applied
/// where the theory applies them, and shown as IDP-Z3 shows them, partially (`:>`): what
/// idp-engine 0.12.1 prints for `clip` (in the order it met the applications), for `x`, `y`,
/// `size` and `c`; idp-engine leaves out `double` and `quad`, applied to a term.
#[test]
fn functions_defined_over_int_and_real_are_applied_where_used() {
    let file = scratch_file(
        "helpers",
        "helpers.idp",
        "vocabulary V {\n    clip: Int -> Int\n    double: Real -> Real\n    quad: Real -> Real\n\
         \x20   x: () -> Real\n    y: () -> Real\n    size: () -> Int\n    c: () -> Int\n}\n\
         theory T:V {\n\
         \x20   { !n in Int: clip(n) = (if n < 1 then 1 else (if size() < n then size() else n)). }\n\
         \x20   { !r in Real: double(r) = r + r. }\n\
         \x20   { !r in Real: quad(r) = double(double(r)). }\n\
         \x20   size() = 5.\n    x() = 3.\n    y() = quad(x()).\n\
         \x20   c() = clip(7) + clip(-2) + clip(3).\n}\n\
         procedure main() {\n    pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    assert_eq!(
        stdout,
        "\nModel 1\n==========\nclip :> {-2 -> 1, 3 -> 3, 7 -> 5}.\ndouble :> {3 -> 6, 6 -> 12}.\n\
         quad :> {3 -> 12}.\nx := 3.\ny := 12.\nsize := 5.\nc := 9.\n\n\nNo more models.\n\n"
    );
}

/// A predicate over `Int` bounded by comparisons (`p(x) => 0 =< x =< 4`) takes its tuples
/// from the interval; a variable over `Int` is bounded by its comparisons too.
#[test]
fn a_predicate_over_int_is_bounded_by_comparisons() {
    let file = scratch_file(
        "interval",
        "interval.idp",
        "vocabulary V {\n    p : Int -> Bool\n}\ntheory T:V {\n\
         \x20   !x in Int: 0 =< x =< 3 => p(x).\n    !x in Int: p(x) => 0 =< x =< 4.\n}\n\
         procedure main() {\n    pretty_print(Theory(T).propagate())\n\
         \x20   pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    // The two models come in the order the search finds them.
    let model = |k: usize, p: &str| format!("Model {k}\n==========\np := {{{p}}}.\n\n\n");
    let (small, large) = ("0, 1, 2, 3", "0, 1, 2, 3, 4");
    let either = [(small, large), (large, small)].map(|(first, second)| {
        format!(
            "p := {{{small}}}.\n\n\n{}{}No more models.\n\n",
            model(1, first),
            model(2, second)
        )
    });
    assert!(either.contains(&stdout), "{stdout}");
}

/// Predicates over `Int` that sentences bound (`p(x) <=> q(x)` with `q` given, `r(x) =>
/// q(x) & x > 1`) are ground over their bounds: the quantifiers over `Int` are ground over
/// the tuples that can be true, and a propagation names every consequence, those outside
/// the bounds too.
/// IDP-Z3's minesweeper benchmark bounds its `max: () → ℤ` by `∃c ∈ Range: c = max()`: an
/// equation under existential quantifiers bounds a number to the values its other side takes.
#[test]
fn numbers_over_int_are_bounded_by_existential_equations() {
    let file = scratch_file(
        "existential",
        "existential.idp",
        "vocabulary V {\n    type Range\n    max: () \u{2192} \u{2124}\n    \
         half: Range \u{2192} \u{2124}\n}\n\
         theory T:V {\n    \u{2203}c \u{2208} Range: c = max().\n    \
         \u{2200}c \u{2208} Range: c \u{2264} max().\n    \
         \u{2200}x \u{2208} Range: \u{2203}y \u{2208} Range: half(x) = 2 * y \u{2227} y \u{2264} x.\n}\n\
         structure S:V {\n    Range := {0..3}.\n}\n\
         procedure main() {\n    pretty_print(Theory(T, S).propagate())\n    \
         pretty_print(model_expand(T, S, max=100))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(stderr, "");
    assert!(
        stdout.starts_with("max := 3.\nhalf := {0 -> 0}.\n\n"),
        "{stdout}"
    );
    // Brute force: half(x) is 2y for some y =< x, independently for each x.
    let mut expected = vec![String::new()];
    for x in 0..4 {
        expected = expected
            .iter()
            .flat_map(|prefix| {
                (0..=x).map(move |y| {
                    let sep = if x == 0 { "" } else { ", " };
                    format!("{prefix}{sep}{x} -> {}", 2 * y)
                })
            })
            .collect();
    }
    assert_eq!(
        stdout.matches("\nModel ").count(),
        expected.len(),
        "{stdout}"
    );
    for half in &expected {
        let model = format!("==========\nmax := 3.\nhalf := {{{half}}}.\n");
        assert!(stdout.contains(&model), "{model} not in {stdout}");
    }
}

#[test]
fn predicates_over_int_are_bounded_by_sentences() {
    let file = scratch_file(
        "bounded",
        "bounded.idp",
        "vocabulary V {\n    type Day := {1..3}\n    p : Int -> Bool\n    q : Int -> Bool\n\
         \x20   r : Int -> Bool\n    shift : Day -> Bool\n}\n\
         theory T:V {\n    !x in Int: p(x) <=> q(x).\n    !x in Int: r(x) => q(x) & x > 1.\n\
         \x20   !d in Day: shift(d) => r(2 * d - 1).\n    q := {1, 3, 5}.\n}\n\
         procedure main() {\n    pretty_print(Theory(T).propagate())\n\
         \x20   pretty_print(model_expand(T, max=20, sort=True))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(stderr, "");
    // shift(1) needs r(1), which r's bound rules out; shift(2) and shift(3) need r(3), r(5).
    let propagated = "p := {1, 3, 5}.\nshift := {}.\n\n";
    assert!(stdout.starts_with(propagated), "{stdout}");
    // Brute force over the bounds: r is any subset of {3, 5}, shift(d) needs r(2d - 1).
    let mut expected = Vec::new();
    for r in 0..4u32 {
        let r_set: Vec<i64> = [3, 5]
            .into_iter()
            .enumerate()
            .filter(|(k, _)| r & 1 << k != 0)
            .map(|(_, v)| v)
            .collect();
        for shift in 0..8u32 {
            let shift_set: Vec<i64> = (1..=3).filter(|d| shift & 1 << (d - 1) != 0).collect();
            if shift_set.iter().all(|d| r_set.contains(&(2 * d - 1))) {
                expected.push((r_set.clone(), shift_set));
            }
        }
    }
    let models = stdout.matches("\nModel ").count();
    assert_eq!(models, expected.len(), "{stdout}");
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    for (r, shift) in &expected {
        let model = format!(
            "==========\np := {{1, 3, 5}}.\nr := {{{}}}.\nshift := {{{}}}.\n",
            list(r),
            list(shift)
        );
        assert!(stdout.contains(&model), "{model} not in {stdout}");
    }
}

/// A function onto `Int` that nothing bounds is a number the search chooses (issue 48): the
/// first ten models, as idp-engine prints them, and no warning about values not tried.
#[test]
fn an_unbounded_function_is_searched_as_a_number() {
    let file = scratch_file(
        "window",
        "big.idp",
        "vocabulary V {\n    x: () -> Int\n}\ntheory T:V {\n    x() > 1000000.\n}\n\
         structure S:V {\n}\nprocedure main() {\n    pretty_print(model_expand(T, S))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let models: String = (1..=10)
        .map(|k| format!("\nModel {k}\n==========\nx := {}.\n\n", 1_000_000 + k))
        .collect();
    let mut expected = normal(&format!(
        "{models}\nMore models may be available.  Change the max argument to see them.\n\n"
    ));
    let mut got = normal(&stdout);
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "{stdout}");
    assert!(!stderr.contains("nothing bounds"), "{stderr}");
}

/// A function onto `Real` is a real number the simplex decides (issue 48): `r() * 3 = 1`
/// has the one model IDP-Z3 finds, `r := 1/3`.
#[test]
fn a_real_is_decided_exactly() {
    let file = scratch_file(
        "window",
        "third.idp",
        "vocabulary V {\n    r: () -> Real\n}\ntheory T:V {\n    r() * 3 = 1.\n}\n\
         structure S:V {\n}\nprocedure main() {\n    pretty_print(model_expand(T, S))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "\nModel 1\n==========\nr := 1/3.\n\n\nNo more models.\n\n"
    );
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn a_syntax_error_is_located_and_worded() {
    let text = "vocabulary V {\n    type T := {a, b}\n    p: T -> Bool\n}\n\
                theory T:V {\n    !x in T: p(x) &.\n}\n";
    let file = scratch_file("syntax", "bad.idp", text);
    let (_, stderr, code) = run(&file);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("bad.idp:6:20") && stderr.contains("fodot-syntax-error"),
        "{stderr}"
    );
    assert!(!stderr.contains("Rule::"), "{stderr}");
}

#[test]
fn a_misspelt_comparison_in_words_is_located_at_the_word() {
    let text = "vocabulary V {\n    age: () -> Int\n}\n\
                theory T:V {\n    age() is les than 30.\n}\n\
                structure S:V {\n}\nmain {\n    pretty_print(model_expand(T,S))\n}\n";
    let file = scratch_file("misspelt", "typo.idp", text);
    let (_, stderr, code) = run(&file);
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: unknown comparison 'les than' (IDP-Z3's FO(\u{b7}) syntax) At ")
            && stderr.contains("typo.idp:5:14 [fodot-syntax-error]"),
        "{stderr}"
    );
    assert!(stderr.contains("`is less than` (=<)"), "{stderr}");
}

/// `--dump program` writes an FO(·) file in FO(·): read back with the file's `main`, it gives
/// the same output.
#[test]
fn the_dumped_program_is_fodot_and_reads_back_with_the_same_answers() {
    let dir = support::test_dir("dump");
    let mut failures = Vec::new();
    for file in files() {
        let dumped = Command::new(idp())
            .args(["--dump", "program"])
            .arg(&file)
            .output()
            .expect("idp runs");
        let text = String::from_utf8_lossy(&dumped.stdout).into_owned();
        assert!(
            text.contains("vocabulary") && !text.contains("<ct>"),
            "{text}"
        );
        let source = std::fs::read_to_string(&file).expect("the file");
        let main = source.find("procedure main").map_or("", |k| &source[k..]);
        let copy = dir.join(file.file_name().expect("a name"));
        std::fs::write(&copy, format!("{text}{main}")).expect("write");
        let (again, stderr, code) = run(&copy);
        let (original, _, _) = run(&file);
        if code != Some(0) || again != original {
            failures.push(format!("{}:\n{text}{main}\n{stderr}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `decision_table` and Z3's own methods are refused where they are written, not with a panic.
#[test]
fn an_unsupported_call_in_main_is_located() {
    let file = scratch_file(
        "call",
        "call.idp",
        "vocabulary V {\n    p: () -> Bool\n}\ntheory T:V {\n    p().\n}\n\
         procedure main() {\n    pretty_print(Theory(T).formula())\n    \
         pretty_print(decision_table(T))\n}\n",
    );
    let (_, stderr, code) = run(&file);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("call.idp:8:28") && stderr.contains("`.formula`"),
        "{stderr}"
    );
}

/// What `idp --explain FILE` prints.
fn explained(file: &Path) -> String {
    let out = Command::new(idp())
        .arg("--explain")
        .arg(file)
        .output()
        .expect("idp runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `--explain` on an FO(·) file without a model names the part of the theory that has none, in
/// the file's own words.
#[test]
fn explain_names_the_fodot_sentence_without_a_model() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/idp_z3/check_unsat.idp");
    let stdout = explained(&file);
    assert!(
        stdout.contains("check_unsat.idp:6:5: p() & ~p()."),
        "{stdout}"
    );
}

/// A sentence that starts with a parenthesis is quoted from it, at its column.
#[test]
fn explain_quotes_a_sentence_that_starts_with_a_parenthesis_whole() {
    let file = scratch_file(
        "brackets",
        "brackets.idp",
        "vocabulary V {\n  A, B, C: () -> Bool\n}\ntheory T:V {\n  (A() | B()) & C().\n  \
         ~A().\n  ~B().\n}\n",
    );
    let stdout = explained(&file);
    let at = file.display();
    assert!(
        stdout.contains(&format!("{at}:5:3: (A() | B()) & C().\n")),
        "{stdout}"
    );
}

/// A predicate over a type the vocabulary fixes empty has no atom, so its model prints nothing of
/// it, when the structure is over a smaller vocabulary that does not list the type as when it
/// lists it.
#[test]
fn a_symbol_over_an_empty_type_the_structure_does_not_list_is_not_printed() {
    let file = support::write_file(
        "empty_type_of_the_vocabulary.idp",
        "vocabulary V0 {\n\
             type Item := {a, b}\n\
             holds: Item -> Bool\n\
         }\n\
         vocabulary V {\n\
             import V0\n\
             type E := {}\n\
             p: E -> Bool\n\
             q: Item -> Bool\n\
         }\n\
         theory T:V {\n\
             !x in E: ~p(x).\n\
             !x in Item: q(x) <=> ~holds(x).\n\
         }\n\
         structure S:V0 {\n\
             holds := {a}.\n\
         }\n\
         procedure main() {\n\
             pretty_print(model_expand(T, S, max=0))\n\
         }\n\
         ",
    );
    let (out, err, code) = run(&file);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "\nModel 1\n==========\nq := {b}.\n\n\nNo more models.\n\n"
    );
}

/// A display block's setting in a form IDP-Z3 does not read is left out, each with the form
/// to write and its place; a block whose text is no list of settings is skipped whole with a
/// warning at its head; the run goes on (the display block only sets up a consultant).
#[test]
fn display_settings_in_the_wrong_form_are_named() {
    let file = scratch_file(
        "display",
        "bad.idp",
        "vocabulary V {\n    p: () -> Bool\n}\ntheory T:V {\n    p().\n}\ndisplay {\n    \
         view().\n    goal_symbol(`p).\n    hide := {`p}.\n    view() = wide.\n    \
         unit(`p).\n}\nprocedure main() {\n    pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("p := true."), "{stdout}");
    let at = file.display();
    let form = |line: usize, written: &str| {
        format!(
            "Warning: this display setting is written {written}: it is left out At \
             {at}:{line}:5 [fodot-display-setting]\n"
        )
    };
    let expected = [
        form(8, "`view() = expanded.` or `view() = normal.`"),
        form(9, "`goal_symbol := {`p, `q}.`"),
        form(10, "`hide(`p, `q).`"),
        form(11, "`view() = expanded.` or `view() = normal.`"),
        form(12, "`unit('text', `p, `q).`"),
    ]
    .concat();
    assert_eq!(stderr, expected);

    let junk = scratch_file(
        "display",
        "junk.idp",
        "vocabulary V {\n    p: () -> Bool\n}\ntheory T:V {\n    p().\n}\ndisplay {\n    \
         goal_symbol := {`p}.\n    this is not a setting\n}\nprocedure main() {\n    \
         pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&junk);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(
        stderr,
        format!(
            "Warning: this display block is skipped: its text is not made of the settings \
             IDP-Z3's consultant reads (`goal_symbol := {{`p}}.`, `hide(`p).`, `unit('m', \
             `p).`, `view() = expanded.`, ...) At {}:7:1 [fodot-display-ignored]\n",
            junk.display()
        )
    );
}

/// IDP-Z3's `/` of two integers is Z3's integer division (`a = b·q + r`, `0 ≤ r < |b|`), over
/// known and searched numbers alike; with a real it is exact, and an integer function never
/// takes a fraction (`x() = 7.5` has no model).
#[test]
fn integer_division_is_z3s() {
    let file = scratch_file(
        "division",
        "division.idp",
        "vocabulary V {\n    a: () -> Int\n    d: () -> Int\n    r: () -> Real\n    \
         x: () -> Int\n    y: () -> Int\n    z: () -> Int\n}\n\
         theory T:V {\n    a() = -7/2.\n    d() = 8/4.\n    r() = 7.0/2.\n    x() = 7.\n    \
         y() = x()/(-2).\n    z() = (-x())/(-2).\n}\n\
         procedure main() {\n    pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, stderr, code) = run(&file);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    assert_eq!(
        stdout,
        "\nModel 1\n==========\na := -4.\nd := 2.\nr := 7/2.\nx := 7.\ny := -3.\nz := 4.\n\n\n\
         No more models.\n\n"
    );
    // Searched: x()/2 = 3 holds for 6 and 7 (exact division kept only 6).
    let file = scratch_file(
        "division",
        "searched.idp",
        "vocabulary V {\n    x: () -> Int\n}\ntheory T:V {\n    x()/2 = 3.\n    \
         0 =< x() =< 20.\n}\nprocedure main() {\n    pretty_print(model_expand(T, max=10))\n}\n",
    );
    let (stdout, _, code) = run(&file);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(
        stdout,
        "\nModel 1\n==========\nx := 6.\n\n\nModel 2\n==========\nx := 7.\n\n\nNo more models.\n\n"
    );
    let file = scratch_file(
        "division",
        "fraction.idp",
        "vocabulary V {\n    x: () -> Int\n}\ntheory T:V {\n    x() = 7.5.\n}\n\
         procedure main() {\n    pretty_print(model_expand(T))\n}\n",
    );
    let (stdout, _, code) = run(&file);
    assert_eq!((code, stdout.as_str()), (Some(0), "No models.\n\n"));
}

/// A comparison of an integer quotient by a positive literal is said of the dividend
/// (`sum/2 >= k` grounds as one sum): every comparison, on either side, against brute
/// force with Z3's division (`div_euclid`) over -7..7.
#[test]
fn compared_quotients_agree_with_brute_force() {
    type Holds = fn(i64, i64) -> bool;
    let ops: [(&str, Holds); 6] = [
        ("<", |a, b| a < b),
        (">", |a, b| a > b),
        ("=", |a, b| a == b),
        ("=<", |a, b| a <= b),
        (">=", |a, b| a >= b),
        ("~=", |a, b| a != b),
    ];
    for d in 1..=3i64 {
        for (op, holds) in ops {
            for quotient_left in [true, false] {
                let (sentence, expected): (String, Vec<i64>) = if quotient_left {
                    let e = (-7..=7)
                        .filter(|x: &i64| holds(x.div_euclid(d), 1))
                        .collect();
                    (format!("x()/{d} {op} 1"), e)
                } else {
                    let e = (-7..=7)
                        .filter(|x: &i64| holds(1, x.div_euclid(d)))
                        .collect();
                    (format!("1 {op} x()/{d}"), e)
                };
                let file = scratch_file(
                    "quotients",
                    "q.idp",
                    &format!(
                        "vocabulary V {{\n    x: () -> Int\n}}\ntheory T:V {{\n    \
                         -7 =< x() =< 7.\n    {sentence}.\n}}\nprocedure main() {{\n    \
                         pretty_print(model_expand(T, max=100))\n}}\n"
                    ),
                );
                let (stdout, _, code) = run(&file);
                assert_eq!(code, Some(0), "{sentence}: {stdout}");
                let mut found: Vec<i64> = stdout
                    .lines()
                    .filter_map(|l| l.strip_prefix("x := ")?.strip_suffix('.')?.parse().ok())
                    .collect();
                found.sort_unstable();
                assert_eq!(found, expected, "{sentence}");
            }
        }
    }
}
