//! End-to-end tests of the `idp` binary: command line, exit codes, diagnostics, the Lua runtime
//! and printing.

use std::process::{Command, Output, Stdio};
use support::IDP;

mod support;

use support::idp as run;
use support::write_file;

fn run_file(text: &str, extra: &[&str]) -> Output {
    let path = write_file("test.idp", text);
    let mut args = vec![path.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args, "")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const COLOURING: &str = "vocabulary V {
  type Vtx isa int
  type Colour
  Edge(Vtx, Vtx)
  Colouring(Vtx) : Colour
}
structure S : V {
  Vtx = { 1..4 }
  Colour = { red; blue; yellow }
  Edge = { 1,2; 1,3; 2,4 }
  Colouring = { 1->blue; 2->red; 3->red; 4->blue }
}
";

#[test]
fn version() {
    let o = run(&["--version"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("idp "), "{}", stdout(&o));
    let o = run(&["-v"], "");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn help_has_examples() {
    let o = run(&["--help"], "");
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("--execute"), "{out}");
    assert!(out.contains("Examples:"), "{out}");
}

#[test]
fn unknown_option_is_an_error_not_a_crash() {
    let o = run(&["-x"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("Error: '-x' is an unknown option."),
        "{}",
        stderr(&o)
    );
}

#[test]
fn missing_file() {
    let o = run(&["/nonexistent/dir/missing.idp"], "");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("Error:"), "{err}");
    assert!(err.contains("missing.idp"), "{err}");
}

#[test]
fn syntax_error_is_located() {
    let path = write_file(
        "bad.idp",
        "vocabulary V {\n  type T\n}\ntheory T : V {\n  ! x : .\n}\n",
    );
    let o = run(&[path.to_str().unwrap(), "--color", "never"], "");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("Error:"), "{err}");
    assert!(err.contains("bad.idp:5:"), "{err}");
}

#[test]
fn execute_chunk() {
    let o = run(&["-e", "print(1+1)"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "2\n");
}

#[test]
fn execute_rewrites_double_colons() {
    let o = run_file(COLOURING, &["-e", "print(S[V::Edge].ct)"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{ 1,2; 1,3; 2,4 }\n");
}

#[test]
fn main_return_value_is_the_exit_code() {
    let o = run_file("procedure main() {\n  print(\"hi\")\n  return 3\n}\n", &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(stdout(&o), "hi\n");
}

#[test]
fn procedures_call_each_other_in_any_order() {
    let o = run_file(
        "procedure main() {\n  return helper(2)\n}\nprocedure helper(x) {\n  return x * 5\n}\n",
        &[],
    );
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
}

#[test]
fn lua_runtime_error_maps_to_file_line() {
    let o = run_file(
        "procedure main() {\n  local x = nil\n  x.y = 1\n  return 0\n}\n",
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("Error: "), "{err}");
    assert!(err.contains("test.idp:3:"), "{err}");
    assert!(!err.contains("stack traceback"), "{err}");
}

#[test]
fn missing_main() {
    let o = run_file("vocabulary V {\n  type T\n}\n", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("Error: "), "{}", stderr(&o));
}

/// `include stdin` splices standard input in where it stands (IDP3's lexer: `include stdin`),
/// once; the driver reads it, not the loader.
#[test]
fn include_stdin_reads_standard_input_once() {
    let path = write_file(
        "include_stdin.idp",
        "include stdin\ntheory T : V {\n P.\n}\nprocedure main() {\n print(onemodel(T, S))\n}\n",
    );
    let o = run(
        &[path.to_str().unwrap()],
        "vocabulary V {\n P\n Q\n}\nstructure S : V {\n Q = false\n}\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("P = true"), "{}", stdout(&o));
    let twice = write_file("include_stdin_twice.idp", "include stdin\ninclude stdin\n");
    let o = run(&[twice.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("standard input can be included only once"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn reads_stdin_without_files() {
    let o = run(&[], "procedure main() {\n  print(\"from stdin\")\n}\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "from stdin\n");
    assert!(stderr(&o).contains("(Reading from stdin)"));
}

/// As in IDP3, setting an option that does not exist is an error.
#[test]
fn unknown_option_field_is_an_error() {
    let o = run(
        &[
            "-e",
            "stdoptions.nosuchoption = 3 print(stdoptions.nbmodels)",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("There is no option named nosuchoption."),
        "{}",
        stderr(&o)
    );
}

#[test]
fn nowarnings_suppresses_warnings() {
    let spec = "vocabulary V {\n  type T\n}\nstructure S : V {\n  T = { a }\n}\n";
    let o = run(&["--nowarnings", "-e", "print(1)"], spec);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("Warning"), "{}", stderr(&o));
}

#[test]
fn check_mode() {
    let o = run_file(COLOURING, &["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn prints_structures_exactly() {
    let o = run_file(COLOURING, &["-e", "print(S)"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = "structure S : V {\n  Colour = { \"blue\"; \"red\"; \"yellow\" }\n  Vtx = { 1..4 }\n  Edge = { 1,2; 1,3; 2,4 }\n  Colouring = { 1->\"blue\"; 2->\"red\"; 3->\"red\"; 4->\"blue\" }\n}\n\n";
    assert_eq!(stdout(&o), expected);
}

#[test]
fn structure_api() {
    let chunk = "local c = clone(S)
print(c[V::Colouring](1))
print(type(S), type(V), type(S[V::Edge]), type(S[V::Edge].ct))
makefalse(c[V::Edge], {1,2})
print(c[V::Edge].ct)
print(equal(S, c), equal(S, clone(S)), isconsistent(c))
for t in tuples(S[V::Edge].ct) do io.write(t[1], '-', t[2], ' ') end print()
c[V::Vtx.type] = range(1, 5)
print(c[V::Vtx.type])
print(#totable(S[V::Edge].ct))";
    let text = format!("{COLOURING}include <table_utils>\n");
    let o = run_file(&text, &["-e", chunk]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "blue\nstructure\tvocabulary\tpredicate_interpretation\tpredicate_table\n{ 1,3; 2,4 }\nfalse\ttrue\ttrue\n1-2 1-3 2-4 \n{ 1..5 }\n3\n"
    );
}

#[test]
fn printmodels_of_nothing() {
    let o = run(&["-e", "printmodels({})"], "");
    assert_eq!(stdout(&o), "Unsatisfiable\nNumber of models: 0\n");
    let o = run(&["-e", "printmodels(nil)"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("Error: printmodels was called with nil"));
}

#[test]
fn namespaces_are_tables_and_see_their_members() {
    let text = "namespace N {\n  procedure f() {\n    return g() + 1\n  }\n  procedure g() {\n    return 41\n  }\n}\nprocedure main() {\n  return N::f()\n}\n";
    let o = run_file(text, &[]);
    assert_eq!(o.status.code(), Some(42), "{}", stderr(&o));
}

#[test]
fn ltc_initialise_and_progress() {
    let text = "LTCvocabulary V {
  type Time
  Start : Time
  Next(Time) : Time
  P(Time)
}
theory T : V {
  P(Start).
  ! t : P(Next(t)) <=> ~P(t).
}
structure S : V {
  Time = { 0..1 }
}
procedure main() {
  local states = initialise(T, S)
  print(#states, type(states[1]))
  print(states[1][V_ss::P].ct)
  local next = progress(T, states[1])
  print(#next)
  print(next[1][V_ss::P].ct)
}
";
    let o = run_file(text, &["--nowarnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1\tstructure\ntrue\n1\nfalse\n");
}

#[test]
fn model_expansion_and_printmodels() {
    let text = "vocabulary V {
  type T isa int
  P(T)
}
theory Th : V {
  ? x : P(x).
  ! x : P(x) => x = 2.
}
structure S : V {
  T = { 1..3 }
}
procedure main() {
  stdoptions.nbmodels = 0
  printmodels(modelexpand(Th, S))
}
";
    let o = run_file(text, &["--nowarnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = { 1..3 }\n  P = { 2 }\n}\n\n");
}

/// `--models N` runs model expansion without a procedure; the exit code tells scripts whether
/// models were found (10) or not (20).
#[test]
fn models_flag_expands_without_a_procedure() {
    let dir = support::test_dir("models-flag");
    let sat = dir.join("sat.idp");
    std::fs::write(
        &sat,
        "vocabulary V {\n P\n Q\n}\ntheory T : V { P | Q. }\nstructure S : V { }\n",
    )
    .unwrap();
    let unsat = dir.join("unsat.idp");
    std::fs::write(
        &unsat,
        "vocabulary V {\n P\n}\ntheory T : V { P & ~P. }\nstructure S : V { }\n",
    )
    .unwrap();
    let run = |args: &[&str]| support::idp_command().args(args).output().expect("run idp");
    let out = run(&["--nowarnings", "-n", "0", sat.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(10));
    // The models as they are found, then their number.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Model 1\n=======\n"), "{text}");
    assert!(text.ends_with("\nNumber of models: 3\n"), "{text}");
    assert_eq!(text.matches("\nModel ").count() + 1, 3, "{text}");
    let out = run(&["--nowarnings", "-n", "1", unsat.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(20));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Unsatisfiable\nNumber of models: 0\n"
    );
    let out = run(&[
        "--nowarnings",
        "-n",
        "1",
        "--theory",
        "Nope",
        sat.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no theory named 'Nope'"));
}

/// `-e` with `-n` or `--count`: the chunk runs first (here it makes the structure searched),
/// then the search; a chunk's error stops before the search; a name that neither the files
/// nor the chunk define is named.
#[test]
fn a_chunk_prepares_the_search_of_models_flag() {
    let spec = "vocabulary V {\n type D isa int\n P(D)\n}\ntheory T : V { ?1 x : P(x). }\n";
    let make = "G = newstructure(V, \"G\"); G[V::D.type] = range(1, 3)";
    let search = |flags: &[&str], structure: &str, chunk: &str| {
        let mut args = flags.to_vec();
        args.extend(["--theory", "T", "--structure", structure, "-e", chunk]);
        run_file(spec, &args)
    };
    let o = search(&["--nowarnings", "--count"], "G", make);
    assert_eq!(stdout(&o), "Number of models: 3\n", "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(10));
    let o = search(&["--nowarnings", "-n", "1"], "G", make);
    let out = stdout(&o);
    assert!(out.starts_with("Model 1\n=======\n"), "{out}");
    assert!(out.ends_with("Number of models: 1\n"), "{out}");
    let o = search(&["-n", "1"], "H", make);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: there is no structure H (a procedure or the -e chunk may have replaced it)\n"
    );
    let o = search(&["-n", "1"], "G", "error('no structure today')");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("no structure today"), "{}", stderr(&o));
}

/// `-n` and `--count` on FO(·) files: without a structure, over an empty one; with IDP-Z3's
/// environment and decision theories and no `--theory`, over both together (models as the
/// decision vocabulary writes them, under its written name).
#[test]
fn models_flag_reads_fodot_files_as_idp_z3_runs_them() {
    let spec = "vocabulary environment {\n    raining : () -> Bool\n    cold : () -> Bool\n}\n\
                vocabulary decision {\n    import environment\n    type Gear := {coat, shorts}\n    \
                wear : () -> Gear\n}\ntheory environment:environment {\n    raining() => cold().\n}\n\
                theory decision:decision {\n    cold() => wear() = coat.\n    raining().\n}\n";
    let o = run_file(spec, &["-n", "0"]);
    assert_eq!(
        stdout(&o),
        "Model 1\n=======\nstructure  : decision {\n  cold = true\n  raining = true\n  wear = coat\n}\n\n\
         Number of models: 1\n",
        "{}",
        stderr(&o)
    );
    assert_eq!(o.status.code(), Some(10));
    // The decision theory alone: raining no longer makes it cold (cold with a coat, or not
    // cold with either).
    let o = run_file(spec, &["--count", "--theory", "decision"]);
    assert_eq!(stdout(&o), "Number of models: 3\n", "{}", stderr(&o));
}

/// The number of subsets of the arcs of the complete digraph on `n` vertices under which every
/// vertex is reachable from vertex 0 (brute force).
fn spanning_arc_sets(n: usize) -> usize {
    let arcs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
        .collect();
    (0u32..1 << arcs.len())
        .filter(|mask| {
            let mut reached = vec![false; n];
            reached[0] = true;
            let mut changed = true;
            while changed {
                changed = false;
                for (k, &(a, b)) in arcs.iter().enumerate() {
                    if mask & (1 << k) != 0 && reached[a] && !reached[b] {
                        reached[b] = true;
                        changed = true;
                    }
                }
            }
            reached.iter().all(|&r| r)
        })
        .count()
}

/// Counting every model of a recursive reachability definition gives the brute-force count
/// with lazy loop formulas and with the ranking translation from the first loop on.
#[test]
fn loop_formulas_and_ranking_count_the_same_models() {
    let spec = "vocabulary V {\n type Node isa int\n Arc(Node, Node)\n Reach(Node)\n}\n\
        theory T : V {\n { Reach(1). Reach(y) <- Reach(x) & Arc(x, y). }\n\
        ! x: Reach(x).\n ! x: ~Arc(x, x).\n}\n\
        structure S : V { Node = {1..4} }\n";
    let path = write_file("ranking.idp", spec);
    let expected = spanning_arc_sets(4).to_string();
    for ranking_after in ["1000", "1"] {
        let out = support::idp_command()
            .arg(&path)
            .args(["-e", "stdoptions.nbmodels = 0; print(#modelexpand(T, S))"])
            .env("IDP_RANKING_AFTER", ranking_after)
            .output()
            .expect("idp runs");
        assert_eq!(
            stdout(&out).trim(),
            expected,
            "ranking after {ranking_after}"
        );
    }
}

/// `merge(T1, T2)` of a theory over A with one over B (which includes A) is over B, whichever
/// comes first: the model of the merged theory interprets B's symbols too.
#[test]
fn merge_takes_the_including_vocabulary() {
    let text = "vocabulary A {\n  P\n}\nvocabulary B {\n  extern vocabulary A\n  Q\n}\n\
                theory TA : A { P. }\ntheory TB : B { Q <=> P. }\nstructure S : B { }\n\
                procedure main() {\n  print(onemodel(merge(TA, TB), S))\n}\n";
    let o = run_file(text, &["--nowarnings"]);
    assert!(stdout(&o).contains("Q = true"), "{}", stdout(&o));
}

/// A theory whose grounding has 200^4 instances.
const EXPONENTIAL: &str = "vocabulary V {\n  type D isa int\n  P(D, D, D, D)\n}\n\
    theory T : V {\n  ! a b c d: P(a, b, c, d) | P(d, c, b, a).\n}\n\
    structure S : V {\n  D = { 1..200 }\n}\n";

/// The size limit stops a runaway grounding with exit code 3 (a limit) and names the sentence
/// and where it is.
#[test]
fn grounding_size_limit_names_the_sentence() {
    let started = std::time::Instant::now();
    let o = run_file(EXPONENTIAL, &["--max-ground-size", "100000", "-n", "1"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("The grounding grew past 100000 nodes"),
        "{err}"
    );
    assert!(err.contains("while grounding the sentence at "), "{err}");
    assert!(
        err.contains("test.idp:6:3: (! a[D] b[D] c[D] d[D] : (P(a,b,c,d) | P(d,c,b,a)))"),
        "{err}"
    );
    assert!(
        started.elapsed().as_secs() < 30,
        "the limit stopped it late"
    );
}

/// `stdoptions.timeout` also stops grounding, not only search.
#[test]
fn timeout_stops_grounding() {
    let started = std::time::Instant::now();
    let o = run_file(
        EXPONENTIAL,
        &["-e", "stdoptions.timeout = 1; print(modelexpand(T, S))"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("timeout"), "{}", stderr(&o));
    assert!(
        started.elapsed().as_secs() < 20,
        "the timeout stopped it late"
    );
}

/// `--dump ground` prints the ground theory before solving, one instance per line (the
/// function's exactly-one constraint included), each group under the sentence or function it
/// comes from, after a header that counts the lines; the run then goes on.
#[test]
fn dump_ground_prints_the_ground_theory() {
    let spec = "vocabulary V {\n  type C\n  P(C)\n  f : C\n}\n\
        theory T : V {\n  ! x: P(x) => f = x.\n  ? x: P(x).\n}\n\
        structure S : V {\n  C = { 1..2 }\n}\n";
    let o = run_file(spec, &["--dump", "ground", "-n", "0", "--nowarnings"]);
    let out = stdout(&o);
    // The sentence each group comes from is named with its position (the file's folder left
    // out here).
    let dump: Vec<String> = out
        .lines()
        .skip_while(|l| !l.starts_with("// ground theory"))
        .take_while(|l| !l.starts_with("// end of ground theory"))
        .map(
            |l| match (l.strip_prefix("// sentence at "), l.find("test.idp")) {
                (Some(_), Some(k)) => format!("// sentence at {}", &l[k..]),
                _ => l.to_string(),
            },
        )
        .collect();
    assert_eq!(
        dump,
        [
            "// ground theory (4 formulas)",
            "// sentence at test.idp:8:3: ? x : P(x)",
            "assert (P(1) | P(2)).",
            "// sentence at test.idp:7:3: ! x : P(x) => f = x",
            "assert ~(P(1) & f ~= 1).",
            "assert ~(P(2) & f ~= 2).",
            "// function f: exactly one value for each argument",
            "assert (f = 1 | f = 2).",
        ],
        "{out}"
    );
    assert!(out.contains("Number of models: 2"), "{out}");
    assert_eq!(o.status.code(), Some(10));
}

/// `--stats` reports the sizes of the grounding on stderr.
#[test]
fn stats_report_grounding_sizes() {
    let o = run_file(
        "vocabulary V {\n  P\n  Q\n}\ntheory T : V {\n  P | Q.\n}\nstructure S : V {\n}\n",
        &["--stats", "-n", "1"],
    );
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.starts_with("[stats] grounded and encoded in"))
        .unwrap_or_else(|| panic!("no stats line in {err}"));
    // The grounding and encoding stages are told apart, and the sizes are exact.
    assert!(line.contains("; grounding "), "{line}");
    assert!(line.contains("; encoding "), "{line}");
    assert!(
        line.ends_with(": 4 nodes, 2 atoms, 2 SAT variables"),
        "{line}"
    );
}

/// On a terminal a run longer than a second shows a progress line on stderr (erased at the
/// end); with stderr piped there is none. The terminal comes from util-linux's `script`.
#[test]
fn progress_line_only_on_a_terminal() {
    let path = write_file("progress.idp", EXPONENTIAL);
    let chunk = "stdoptions.timeout = 2; print(modelexpand(T, S))";
    let piped = run(&[path.to_str().unwrap(), "-e", chunk], "");
    assert!(!stderr(&piped).contains("[idp]"), "{}", stderr(&piped));
    let typescript = write_file("progress.typescript", "");
    let command = format!("{IDP} {} -e '{chunk}'", path.display());
    let status = Command::new("script")
        .args(["-qec", &command, typescript.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("util-linux `script` runs");
    assert_eq!(status.code(), Some(3), "a limit stop exits with 3");
    let seen = std::fs::read_to_string(&typescript).unwrap();
    assert!(seen.contains("\r\x1b[K[idp] grounding: "), "{seen:?}");
    assert!(seen.contains("timeout"), "{seen:?}");
}

/// The splr backend finds the same models as CaDiCaL: every model of a recursive definition
/// (with loop formulas, so several SAT calls) and no model of an unsatisfiable theory.
#[test]
fn splr_backend_agrees_with_brute_force() {
    let spec = "vocabulary V {\n type Node isa int\n Arc(Node, Node)\n Reach(Node)\n}\n\
        theory T : V {\n { Reach(1). Reach(y) <- Reach(x) & Arc(x, y). }\n\
        ! x: Reach(x).\n ! x: ~Arc(x, x).\n}\n\
        structure S : V { Node = {1..3} }\n";
    let path = write_file("splr.idp", spec);
    let chunk = "stdoptions.nbmodels = 0; print(#modelexpand(T, S))";
    let out = run(&["--sat", "splr", path.to_str().unwrap(), "-e", chunk], "");
    assert_eq!(stdout(&out).trim(), spanning_arc_sets(3).to_string());
    let unsat = run_file(
        "vocabulary V {\n  P\n}\ntheory T : V {\n  P & ~P.\n}\nstructure S : V {\n}\n",
        &["--sat", "splr", "-n", "1"],
    );
    assert_eq!(unsat.status.code(), Some(20), "{}", stderr(&unsat));
}

/// `include <LTC>` gives `simulate_random`, which progresses an LTC theory state by state.
/// (The structure gives Time, as IDP3's own progression tests do: a structure where the
/// constant Start can have no value is rejected when it is closed.)
#[test]
fn ltc_simulate_random_progresses_the_state() {
    let spec = "include <LTC>\nvocabulary V {\n  type Time isa nat\n  Start : Time\n\
        partial Next(Time) : Time\n  type N isa int\n  C(Time) : N\n}\n\
        theory T : V {\n  { C(Start) = 0.\n    ! t: C(Next(t)) = C(t) + 1 <- C(t) < 3.\n\
        ! t: C(Next(t)) = 0 <- C(t) >= 3. }\n}\n\
        structure S : V {\n  Time = { 0..5 }\n  N = { 0..5 }\n}\n\
        procedure main() {\n  simulate_random(T, S, 5)\n}\n";
    let o = run_file(spec, &["--nowarnings"]);
    let counters: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.trim_start().starts_with("C = "))
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(
        counters,
        ["C = 0", "C = 1", "C = 2", "C = 3"],
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains(">> Starting simulation"));
}

/// IDP3's `<LTC>` helpers in namespace `intern`: `printstates`, `pickstate` (a state picker that
/// reads numbers) and `simplyFalse` (a stop test), for simulations of one's own.
#[test]
fn ltc_intern_helpers_drive_a_simulation() {
    let spec = "include <LTC>\nvocabulary V {\n  type Time isa nat\n  Start : Time\n\
        partial Next(Time) : Time\n  type N isa int\n  C(Time) : N\n}\n\
        theory T : V {\n  { C(Start) = 0.\n    ! t: C(Next(t)) = C(t) + 1 <- C(t) < 3.\n\
        ! t: C(Next(t)) = 0 <- C(t) >= 3. }\n}\n\
        structure S : V {\n  Time = { 0..5 }\n  N = { 0..5 }\n}\n\
        procedure main() {\n  print(intern.simplyFalse())\n  intern.printstates({ 7 }, print)\n\
        local states = simulate(T, S, false, 0, nil, intern.simplyFalse, intern.pickstate)\n\
        print(#states)\n}\n";
    let path = write_file("intern.idp", spec);
    let o = run(&["--nowarnings", path.to_str().unwrap()], "1\n1\n0\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("false\n1\tState 1\n=====================\n7\n=====================\n"),
        "{out}"
    );
    assert!(
        out.contains(">> Please choose between the following states"),
        "{out}"
    );
    assert!(
        out.ends_with("2\n"),
        "two states chosen, then 0 stops: {out}"
    );
}

/// A definition that is not total has no model, and a warning says which one and why.
#[test]
fn a_definition_that_is_not_total_is_named_in_a_warning() {
    let text = "vocabulary V {\n  p\n}\ntheory T : V {\n  { p <- ~p. }\n}\nstructure S : V { }\n\
                procedure main() {\n  printmodels(modelexpand(T, S))\n}\n";
    let o = run_file(text, &[]);
    assert_eq!(stdout(&o), "Unsatisfiable\nNumber of models: 0\n");
    let err = stderr(&o);
    assert!(
        err.contains(
            "test.idp:5:3 is not total in structure 'S': its well-founded model leaves p \
             unknown, so there is no model"
        ),
        "{err}"
    );
}

/// A definition that is total only in some candidate models: the others are cut, and the
/// warning is given only when no model is left.
#[test]
fn candidates_where_a_definition_is_not_total_are_cut() {
    let text = "vocabulary V {\n  p\n  q\n  r\n}\ntheory T : V {\n  { p <- ~p & q. }\n  r.\n}\n\
                structure S : V { }\nprocedure main() {\n  stdoptions.nbmodels = 0\n  \
                printmodels(modelexpand(T, S))\n}\n";
    let o = run_file(text, &["--nowarnings"]);
    let out = stdout(&o);
    assert!(out.starts_with("Number of models: 1\n"), "{out}");
    assert!(out.contains("q = false"), "{out}");
    let even_loop = "vocabulary V {\n  p\n  q\n  r\n}\ntheory T : V {\n  \
                     { p <- ~q & r. q <- ~p & r. }\n  r.\n}\nstructure S : V { }\n\
                     procedure main() {\n  printmodels(modelexpand(T, S))\n}\n";
    let o = run_file(even_loop, &[]);
    assert_eq!(stdout(&o), "Unsatisfiable\nNumber of models: 0\n");
    let err = stderr(&o);
    assert!(
        err.contains(
            "test.idp:7:3 is not total in the candidate structures tried (its well-founded \
             model leaves p, q unknown)"
        ),
        "{err}"
    );
}

/// An error raised by a built-in called from a procedure names the procedure's line.
#[test]
fn builtin_errors_name_the_calling_line() {
    let text =
        "vocabulary V {\n  P\n}\nprocedure main() {\n  local x = 1\n  range(x, 100000000)\n}\n";
    let o = run_file(text, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("test.idp:6: range: the range is too large"),
        "{err}"
    );
}

/// `merge(T1, T2)` is named `T1T2` and takes the larger vocabulary; theories over unrelated
/// vocabularies are refused with a way out.
#[test]
fn merge_names_the_theory_and_refuses_unrelated_vocabularies() {
    let related = "vocabulary A {\n  P\n}\nvocabulary B {\n  extern vocabulary A\n  Q\n}\n\
                   theory TA : A { P. }\ntheory TB : B { Q. }\n\
                   procedure main() {\n  print(merge(TA, TB))\n}\n";
    let o = run_file(related, &[]);
    assert_eq!(stdout(&o), "theory TBTA : B {\n  Q.\n  P.\n}\n\n");
    let unrelated = related.replace("  extern vocabulary A\n", "");
    let o = run_file(&unrelated, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "test.idp:10: merge: the vocabularies A and B of the theories do not include one \
             another"
        ),
        "{}",
        stderr(&o)
    );
}

/// `P = procedure Name` in a structure: the procedure is called for every argument tuple and
/// its answers are the table (predicates: truthy or not; functions: the value).
#[test]
fn symbols_interpreted_by_procedures() {
    let text = "vocabulary V {\n  type N isa int\n  Square(N, N)\n  Half(N) : N\n  Q(N)\n}\n\
                procedure isSquare(x, y) {\n  return x * x == y\n}\n\
                procedure half(x) {\n  return math.floor(x / 2)\n}\n\
                theory T : V {\n  ! x: Q(x) <=> ?y: Square(y, x) & Half(x) = 2.\n}\n\
                structure S : V {\n  N = {0..9}\n  Square = procedure isSquare\n  \
                Half = procedure half\n}\n\
                procedure main() {\n  print(onemodel(T, S))\n}\n";
    let o = run_file(text, &["--nowarnings"]);
    assert_eq!(
        stdout(&o),
        "structure  : V {\n  N = { 0..9 }\n  Q = { 4 }\n  Square = { 0,0; 1,1; 2,4; 3,9 }\n  \
         Half = { 0->0; 1->0; 2->1; 3->1; 4->2; 5->2; 6->3; 7->3; 8->4; 9->4 }\n}\n\n"
    );
    let missing = text.replace("Half = procedure half", "Half = procedure halve");
    let o = run_file(&missing, &["--nowarnings"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "Half in structure S is interpreted by procedure halve, which does not exist"
        ),
        "{}",
        stderr(&o)
    );
    // Over an infinite type the procedure is called lazily, for the tuples met.
    let infinite = text
        .replace("type N isa int", "type N isa int\n  R(int) : int")
        .replace(
            "Half = procedure half",
            "Half = procedure half\n  R = procedure half",
        )
        .replace("Half(x) = 2.", "Half(x) = 2 & R(x + 10) = 7.");
    let o = run_file(&infinite, &["--nowarnings"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("  Q = { 4 }\n"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("  R = procedure half\n"),
        "{}",
        stdout(&o)
    );
}

/// A predicate the theory never mentions gets no SAT variables when one model is asked for
/// (8 million atoms here would take seconds and gigabytes); it comes out empty. Asked for all
/// models, its values are enumerated as before.
#[test]
fn unmentioned_predicates_are_left_false_for_one_model() {
    let text = "vocabulary V {\n  type D isa int\n  Unused(D, D, D)\n  Q(D)\n}\n\
                theory T : V { ?1 x: Q(x). }\nstructure S : V { D = {1..200} }\n\
                procedure main() {\n  print(onemodel(T, S))\n}\n";
    let o = run_file(text, &["--nowarnings", "--max-ground-size", "100000"]);
    assert_eq!(
        stdout(&o),
        "structure  : V {\n  D = { 1..200 }\n  Q = { 200 }\n  Unused = {  }\n}\n\n",
        "{}",
        stderr(&o)
    );
    let small = "vocabulary V {\n  type D isa int\n  Unused(D)\n  Q(D)\n}\n\
                 theory T : V { ?1 x: Q(x). }\nstructure S : V { D = {1..2} }\n\
                 procedure main() {\n  stdoptions.nbmodels = 0\n  print(#modelexpand(T, S))\n}\n";
    let o = run_file(small, &["--nowarnings"]);
    assert_eq!(stdout(&o), "8\n", "{}", stderr(&o));
}

/// Atoms of a definition that no derivation can reach get no rule: the frame axiom of a key
/// that lies on one cell of ten is grounded for that cell only (9 rules, not 90; `--stats`
/// counts the bindings of t and p it tried, 29, not the 100 of the whole types), and the
/// models are those of the full grounding (`Take` is free at each of the 10 time points).
#[test]
fn a_rule_without_variables_whose_head_cannot_be_true_gets_no_rule() {
    // `P <- P & O` derives nothing (the least fixpoint of its relaxation is empty): the
    // possibly-true pass rules P out before the rule, which binds no variable, is grounded.
    let text = "vocabulary V {
  P
  Q
  O
}
theory T : V {
  {
    P <- P & O.
    Q <- ~P & O.
  }
}
structure S : V {
}
";
    let o = run_file(text, &["--stats", "-n", "0"]);
    let err = stderr(&o);
    let rule = |line: &str| {
        err.lines()
            .find(|l| l.contains(&format!("test.idp:{line} grounded in")))
            .unwrap_or_else(|| panic!("no stats of the rule at {line} in {err}"))
            .to_string()
    };
    assert!(
        rule("8:5").ends_with("s: 0 ground rules, 0 new nodes (0 bindings tried)"),
        "{}",
        rule("8:5")
    );
    assert!(
        rule("9:5").ends_with("s: 1 ground rules, 2 new nodes (0 bindings tried)"),
        "{}",
        rule("9:5")
    );
    assert_eq!(stdout(&o).matches("=======\n").count(), 2);
}

#[test]
fn unreachable_defined_atoms_get_no_rules() {
    let text = "vocabulary V {
  type Time isa int
  type Pos isa int
  KeyAt(Time, Pos)
  I_Key(Pos)
  Take(Time)
}
theory T : V {
  {
    ! p[Pos]: KeyAt(0, p) <- I_Key(p).
    ! t[Time] p[Pos]: KeyAt(t + 1, p) <- KeyAt(t, p) & ~Take(t).
  }
}
structure S : V {
  Time = { 0..9 }
  Pos = { 0..9 }
  I_Key = { 3 }
}
";
    let o = run_file(text, &["--stats", "-n", "0"]);
    let err = stderr(&o);
    let frame = err
        .lines()
        .find(|l| l.contains("test.idp:11:5 grounded in"))
        .unwrap_or_else(|| panic!("no stats of the frame axiom in {err}"));
    assert!(
        frame.ends_with("s: 9 ground rules, 28 new nodes (29 bindings tried)"),
        "{frame}"
    );
    assert_eq!(stdout(&o).matches("=======\n").count(), 1024);
}

/// `--count` counts the models by the search of model expansion without printing them (exit
/// 10 with models, 20 without), `-n N` caps the count, and `modelcount(T, S)` is the same in a
/// procedure. The theory has a recursive definition over an open symbol, so every model is
/// one the solver kept well-founded inside its search: 2 of the 4 choices of edges reach 3.
#[test]
fn count_counts_models_without_printing_them() {
    let text = "vocabulary V {
  type N isa int
  Edge(N, N)
  Reach(N)
}
theory T : V {
  { Reach(1). ! y: Reach(y) <- ? x: Reach(x) & Edge(x, y). }
  Reach(3).
}
structure S : V {
  N = { 1..3 }
  Edge<cf> = { 1,1; 2,1; 2,2; 3,1; 3,2; 3,3; 1,2 }
}
";
    let o = run_file(text, &["--count"]);
    assert_eq!(stdout(&o), "Number of models: 2\n", "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(10));
    let o = run_file(text, &["--count", "-n", "1"]);
    assert_eq!(stdout(&o), "Number of models: 1\n", "{}", stderr(&o));
    let o = run_file(text, &["-e", "print(modelcount(T, S))"]);
    assert_eq!(stdout(&o), "2\n", "{}", stderr(&o));
    let one = text.replace("Reach(3).", "Reach(3). ~Edge(2, 3).");
    let o = run_file(&one, &["--count"]);
    assert_eq!(stdout(&o), "Number of models: 1\n", "{}", stderr(&o));
    // Only the edge 1 -> 3 reaches 3 (nothing reaches 2).
    let none = text.replace("Reach(3).", "Reach(3). ~Edge(1, 3).");
    let o = run_file(&none, &["--count"]);
    assert_eq!(stdout(&o), "Number of models: 0\n", "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(20));
}

/// `--stats` says, per sentence and per rule, how many bindings grounding tried and how many
/// instances it kept: `! x y : P(x) => Q(x, y)` over 3 elements tries x (3) and then y for
/// each x (9) and keeps the 9 implications; the rule `P(x) <- Q(x, x)` keeps one per x.
#[test]
fn stats_count_bindings_tried_and_instances_kept() {
    let text = "vocabulary V {\n  type T isa nat\n  P(T)\n  Q(T, T)\n}\ntheory T : V {\n  \
                ! x y : P(x) => Q(x, y).\n  { ! x : P(x) <- Q(x, x). }\n}\n\
                structure S : V {\n  T = { 1..3 }\n}\n";
    let o = run_file(text, &["--stats", "-n", "1"]);
    let err = stderr(&o);
    let line = |what: &str| {
        err.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what} in {err}"))
            .to_string()
    };
    let sentence = line("sentence at");
    assert!(
        // 16 nodes: the rule's completion asserts head <=> body as two clauses and shares no
        // node with the sentence (23 nodes in all, 29 when the completion made three per head).
        sentence.ends_with("s: 9 instances kept, 16 new nodes (12 bindings tried)"),
        "{sentence}"
    );
    let rule = line("rule at");
    assert!(
        rule.ends_with("s: 3 ground rules, 6 new nodes (3 bindings tried)"),
        "{rule}"
    );
}
