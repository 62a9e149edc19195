//! Limits stop runaway specifications with a `Stopped:` message and exit code 3, never a kill:
//! the grounding size, the wall time (`--timeout`, `stdoptions.timeout`), the memory
//! (`--max-memory`) and Ctrl-C, for an exponential grounding, an endless Lua loop and a
//! never-ending search. Also: the same input gives byte-identical output, run after run.

use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{pigeonhole, write_file};

/// The exit code of a run that a limit stopped.
const EXIT_LIMIT: i32 = 3;

fn spawn(text: &str, args: &[&str]) -> Child {
    let path = write_file("spec.idp", text);
    support::idp_command()
        .arg(&path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idp binary runs")
}

/// Runs the spec and returns its output and how long it took.
fn run(text: &str, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = spawn(text, args).wait_with_output().unwrap();
    (out, started.elapsed())
}

/// Runs the spec, sends Ctrl-C (SIGINT) after `after`, and returns its output.
fn run_interrupted(text: &str, args: &[&str], after: Duration) -> Output {
    let child = spawn(text, args);
    std::thread::sleep(after);
    // SAFETY: kill with a valid pid and signal has no memory-safety preconditions.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0, "could not send SIGINT");
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that the run was stopped by a limit with a message containing `message`.
fn assert_stopped(o: &Output, message: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(EXIT_LIMIT), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("Stopped: "))
        .unwrap_or_else(|| panic!("no `Stopped:` line in {err}"));
    assert!(err.contains(message), "{message:?} not in {line}");
}

/// A theory whose grounding has 200^4 instances.
const EXPONENTIAL: &str = "vocabulary V {\n  type D isa int\n  P(D, D, D, D)\n}\n\
    theory T : V {\n  ! a b c d: P(a, b, c, d) | P(d, c, b, a).\n}\n\
    structure S : V {\n  D = { 1..200 }\n}\n";

/// 2^40 models: an enumeration that never ends.
const MANY_MODELS: &str = "vocabulary V {\n  type D isa int\n  P(D)\n}\n\
    theory T : V {\n}\nstructure S : V {\n  D = { 1..24 }\n}\n";

const ENDLESS_LOOP: &str = "procedure main() {\n  while true do end\n}\n";

#[test]
fn grounding_size_limit_stops_an_exponential_grounding() {
    let (o, took) = run(EXPONENTIAL, &["-n", "1", "--max-ground-size", "100000"]);
    assert_stopped(&o, "The grounding grew past 100000 nodes");
    assert!(stderr(&o).contains("raise the limit with --max-ground-size"));
    assert!(took < Duration::from_secs(30), "stopped late: {took:?}");
}

#[test]
fn timeout_stops_an_exponential_grounding() {
    let (o, took) = run(EXPONENTIAL, &["-n", "1", "--timeout", "1"]);
    assert_stopped(
        &o,
        "timeout: the time limit of 1 s (--timeout) was reached while grounding; raise it with \
         --timeout SECONDS",
    );
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
}

#[test]
fn memory_limit_stops_an_exponential_grounding() {
    let (o, took) = run(EXPONENTIAL, &["-n", "1", "--max-memory", "100"]);
    assert_stopped(&o, "more than the memory limit of 100 MB while grounding");
    assert!(stderr(&o).contains("raise it with --max-memory MB"));
    assert!(took < Duration::from_secs(60), "stopped late: {took:?}");
}

/// A structure with three million pairs (45 MB), which takes seconds to read and check, and a
/// `main` that returns at once: nothing after the reading would notice a limit.
fn huge_input() -> String {
    let pairs = 3_000_000;
    let mut text = format!(
        "vocabulary V {{\n  type T isa int\n  P(T, T)\n}}\nstructure S : V {{\n  T = {{ 0..{pairs} }}\n  P = {{ "
    );
    for i in 0..pairs {
        text.push_str(&format!("{},{}; ", i, i + 1));
    }
    text.push_str("}\n}\nprocedure main() {\n  print(1)\n}\n");
    text
}

/// Reading the input makes no limit checks of its own; the watchdog stops it (or, when it is
/// quick, the check right after it).
#[test]
fn limits_stop_the_reading_of_a_huge_input() {
    let path = write_file("huge.idp", &huge_input());
    let run_huge = |args: &[&str]| {
        support::idp_command()
            .arg(&path)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("the idp binary runs")
    };
    let o = run_huge(&["--timeout", "0.3"]);
    assert_stopped(
        &o,
        "the time limit of 0.3 s (--timeout) was reached while reading the input",
    );
    assert!(!stdout(&o).contains('1'), "main ran: {}", stdout(&o));
    let o = run_huge(&["--max-memory", "150"]);
    assert_stopped(
        &o,
        "more than the memory limit of 150 MB while reading the input",
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn memory_limit_stops_a_procedure_that_keeps_allocating() {
    let spec =
        "procedure main() {\n  local t = {}\n  while true do t[#t + 1] = { 1, 2, 3 } end\n}\n";
    let (o, took) = run(spec, &["--max-memory", "100"]);
    assert_stopped(
        &o,
        "more than the memory limit of 100 MB while running a procedure",
    );
    assert!(took < Duration::from_secs(30), "stopped late: {took:?}");
}

#[test]
fn timeout_stops_an_endless_lua_loop() {
    let (o, took) = run(ENDLESS_LOOP, &["--timeout", "1"]);
    assert_stopped(
        &o,
        "timeout: the time limit of 1 s (--timeout) was reached while running a procedure",
    );
    assert!(took < Duration::from_secs(10), "stopped late: {took:?}");
}

/// Lua code that catches the limit error and goes on is ended a second later.
#[test]
fn timeout_stops_a_loop_that_catches_the_error() {
    let spec =
        "procedure main() {\n  while true do pcall(function() while true do end end) end\n}\n";
    let (o, took) = run(spec, &["--timeout", "1"]);
    assert_stopped(&o, "(--timeout) was reached while running a procedure");
    assert!(took < Duration::from_secs(10), "stopped late: {took:?}");
}

#[test]
fn timeout_stops_a_never_ending_search() {
    let (o, took) = run(
        &pigeonhole(13, 12),
        &["-n", "1", "--timeout", "2", "--nowarnings"],
    );
    assert_stopped(
        &o,
        "timeout: the time limit of 2 s (--timeout) was reached while searching",
    );
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
}

#[test]
fn stdoptions_timeout_stops_a_search_with_the_limit_code() {
    let chunk = "stdoptions.timeout = 1; print(modelexpand(T, S))";
    let (o, took) = run(&pigeonhole(13, 12), &["--nowarnings", "-e", chunk]);
    assert_stopped(
        &o,
        "timeout: the time limit (stdoptions.timeout) was reached while searching; raise \
         stdoptions.timeout",
    );
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
}

/// IDP3's `mxtimeout` bounds the search of an inference as `timeout` does (the smaller wins).
#[test]
fn stdoptions_mxtimeout_stops_a_search_with_the_limit_code() {
    let chunk = "stdoptions.mxtimeout = 1; print(modelexpand(T, S))";
    let (o, took) = run(&pigeonhole(13, 12), &["--nowarnings", "-e", chunk]);
    assert_stopped(&o, "was reached while searching");
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
}

/// IDP3's `memoryout` (and `mxmemoryout`) is the memory limit in MB, as `--max-memory`.
#[test]
fn stdoptions_memoryout_stops_a_grounding_with_the_limit_code() {
    for option in ["memoryout", "mxmemoryout"] {
        let chunk = format!("stdoptions.{option} = 100; print(modelexpand(T, S))");
        let (o, took) = run(EXPONENTIAL, &["--nowarnings", "-e", &chunk]);
        assert_stopped(&o, "more than the memory limit of 100 MB while grounding");
        assert!(
            took < Duration::from_secs(60),
            "{option} stopped late: {took:?}"
        );
    }
}

/// The models printed by `idp -n 0` after an interrupted enumeration: every model complete, as
/// found, then their number.
fn check_printed_models(out: &str, n: usize) {
    let tail = &out[out.len().saturating_sub(200)..];
    assert!(
        out.ends_with(&format!("}}\n\nNumber of models: {n}\n")),
        "the last model is cut, or the count differs: {tail}"
    );
    assert_eq!(out.matches("Model ").count(), n, "{tail}");
    assert!(out.contains(&format!("\nModel {n}\n")), "{tail}");
    assert_eq!(out.matches("structure ").count(), n, "{tail}");
    assert_eq!(out.matches("\n}\n").count(), n, "{tail}");
}

/// The models printed by `printmodels` after an interrupted enumeration: the count announced,
/// then every model complete.
fn check_printmodels(out: &str, n: usize) {
    let tail = &out[out.len().saturating_sub(200)..];
    assert!(
        out.starts_with(&format!("Number of models: {n}\n")),
        "{}",
        &out[..out.len().min(200)]
    );
    assert_eq!(out.matches("\nModel ").count(), n, "{tail}");
    assert!(out.contains(&format!("\nModel {n}\n")), "{tail}");
    assert_eq!(out.matches("structure ").count(), n, "{tail}");
    assert!(out.ends_with("}\n\n"), "the last model is cut: {tail}");
}

/// The number in `after N model(s)` of the `Stopped:` line.
fn models_after(err: &str) -> usize {
    let rest = err.split("after ").nth(1).expect("`after N models`");
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn ctrl_c_stops_an_enumeration_and_keeps_the_models_found() {
    let o = run_interrupted(
        MANY_MODELS,
        &["-n", "0", "--nowarnings"],
        Duration::from_millis(1500),
    );
    assert_stopped(&o, "interrupted (Ctrl-C) after ");
    let n = models_after(&stderr(&o));
    assert!(n > 0);
    assert!(stderr(&o).contains("(the models found so far were kept)"));
    check_printed_models(&stdout(&o), n);
}

#[test]
fn timeout_stops_an_enumeration_and_keeps_the_models_found() {
    let (o, _) = run(MANY_MODELS, &["-n", "0", "--nowarnings", "--timeout", "1"]);
    assert_stopped(
        &o,
        "timeout: the time limit of 1 s (--timeout) was reached after ",
    );
    check_printed_models(&stdout(&o), models_after(&stderr(&o)));
}

/// A minimisation whose optimum (13 holes for 13 pigeons) is a pigeonhole problem to prove:
/// the first model is found at once, the proof never ends.
const HARD_OPTIMUM: &str = "vocabulary V {\n  type Pigeon isa int\n  type Hole isa int\n  \
    In(Pigeon) : Hole\n}\n\
    theory T : V {\n  ! p1 p2: p1 ~= p2 => In(p1) ~= In(p2).\n}\n\
    term Used : V {\n  #{ h : ? p: In(p) = h }\n}\n\
    structure S : V {\n  Pigeon = { 1..13 }\n  Hole = { 1..14 }\n}\n";

#[test]
fn timeout_stops_a_minimisation_and_keeps_the_best_model() {
    let args = [
        "-n",
        "1",
        "--minimize",
        "Used",
        "--timeout",
        "2",
        "--nowarnings",
    ];
    let (o, took) = run(HARD_OPTIMUM, &args);
    assert_stopped(
        &o,
        "(--timeout) was reached before optimality was proven (the best model found so far, \
         with value 13, was kept)",
    );
    assert!(
        stdout(&o).ends_with("}\n\nNumber of models: 1\nBest value found: 13\n"),
        "{}",
        stdout(&o)
    );
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
    let chunk = "stdoptions.timeout = 1; local ms, proven, value = minimize(T, S, Used); \
                 print(#ms, proven, value)";
    let (o, _) = run(HARD_OPTIMUM, &["--nowarnings", "-e", chunk]);
    assert_eq!(stdout(&o), "1\tfalse\t13\n");
    assert_stopped(&o, "stdoptions.timeout");
}

#[test]
fn ctrl_c_stops_an_endless_lua_loop() {
    let o = run_interrupted(ENDLESS_LOOP, &[], Duration::from_millis(1000));
    assert_stopped(&o, "interrupted (Ctrl-C) while running a procedure");
}

#[test]
fn ctrl_c_stops_a_never_ending_search() {
    let o = run_interrupted(
        &pigeonhole(13, 12),
        &["-n", "1", "--nowarnings"],
        Duration::from_millis(1000),
    );
    assert_stopped(&o, "interrupted (Ctrl-C) while ");
}

/// splr has no callback to stop a search: its own time limit (whole seconds, rounded up)
/// ends it, and the watchdog ends it on Ctrl-C.
#[test]
fn limits_stop_a_never_ending_search_of_the_splr_backend() {
    let (o, took) = run(
        &pigeonhole(13, 12),
        &[
            "-n",
            "1",
            "--sat",
            "splr",
            "--timeout",
            "1.5",
            "--nowarnings",
        ],
    );
    assert_stopped(
        &o,
        "timeout: the time limit of 1.5 s (--timeout) was reached while searching",
    );
    assert!(took < Duration::from_secs(15), "stopped late: {took:?}");
    let o = run_interrupted(
        &pigeonhole(13, 12),
        &["-n", "1", "--sat", "splr", "--nowarnings"],
        Duration::from_millis(1000),
    );
    assert_stopped(&o, "interrupted (Ctrl-C) while running a procedure");
}

#[test]
fn help_documents_the_exit_codes_and_limit_flags() {
    let o = support::idp_command().arg("--help").output().unwrap();
    let out = stdout(&o);
    for expected in [
        "--timeout",
        "--max-memory",
        "--sandbox",
        "3 when a limit stopped",
    ] {
        assert!(out.contains(expected), "{expected} not in --help");
    }
}

#[test]
fn timeout_must_be_a_positive_number() {
    let (o, _) = run(ENDLESS_LOOP, &["--timeout", "inf"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a positive number of seconds"));
}

/// Runs `idp` with `args` in the repository three times; stdout and stderr must be identical.
fn assert_deterministic(args: &[&str]) {
    let root = env!("CARGO_MANIFEST_DIR");
    let runs: Vec<(Vec<u8>, Vec<u8>, Option<i32>)> = (0..3)
        .map(|_| {
            let o = support::idp_command()
                .args(args)
                .current_dir(root)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            (o.stdout, o.stderr, o.status.code())
        })
        .collect();
    assert!(!runs[0].0.is_empty(), "{args:?} printed nothing");
    for other in &runs[1..] {
        assert!(other == &runs[0], "{args:?} gave different outputs");
    }
}

#[test]
fn the_same_input_gives_the_same_output() {
    assert_deterministic(&["examples/nqueens.idp"]);
    assert_deterministic(&["-n", "0", "examples/graph-colouring.idp"]);
    assert_deterministic(&["examples/minimisation.idp"]);
    assert_deterministic(&["examples/einstein.idp"]);
    assert_deterministic(&["specs/colourmaze/colourmaze.idp"]);
    assert_deterministic(&["specs/theseus/theseus.idp"]);
    assert_deterministic(&["specs/maze/construction.idp"]);
}

#[test]
fn an_enumeration_of_many_models_is_deterministic() {
    let path = write_file(
        "spec.idp",
        "vocabulary V {\n  type Node isa int\n  type Colour\n  Edge(Node, Node)\n  \
         C(Node) : Colour\n}\n\
         theory T : V {\n  ! x y: Edge(x, y) => C(x) ~= C(y).\n}\n\
         structure S : V {\n  Node = { 1..6 }\n  Colour = { r; g; b }\n  \
         Edge = { 1,2; 2,3; 3,4; 4,5; 5,6; 6,1 }\n}\n",
    );
    let path = path.to_str().unwrap();
    assert_deterministic(&["-n", "0", path]);
    let chunk = "stdoptions.nbmodels = 0; local ms = allmodels(T, S); for _, m in ipairs(ms) do \
                 print(m) end; print(#ms)";
    assert_deterministic(&[path, "-e", chunk]);
}

/// 2^20 models, each printed in a line: far more than found in the time the tests below allow.
const MANY_SHORT_MODELS: &str = "vocabulary V {\n  type D isa int\n  P(D)\n}\n\
    theory T : V {\n}\nstructure S : V {\n  D = { 1..20 }\n}\n";

/// 2^24 models: for the runs stopped after seconds, within which a quiet machine enumerated
/// all 2^20 of [`MANY_SHORT_MODELS`] (in under 5 s; a stop that then comes while the models are
/// printed is a stop of the procedure, not of the search).
const MORE_SHORT_MODELS: &str = "vocabulary V {\n  type D isa int\n  P(D)\n}\n\
    theory T : V {\n}\nstructure S : V {\n  D = { 1..24 }\n}\n";

/// `main` of MORE_SHORT_MODELS: all models, printed by `printmodels`.
const PRINT_ALL: &str = "procedure main() {\n  stdoptions.nbmodels = 0\n  \
    printmodels(modelexpand(T, S))\n}\n";

/// At least this many models are kept by the runs below, so that printing them takes longer
/// than every grace period of the limits.
const MANY_KEPT: usize = 100_000;

/// Runs `stop_after(seconds)` with `seconds`, then twice and four times as long until the run
/// it gives was stopped (with `message`) after at least [`MANY_KEPT`] models: a loaded machine
/// finds fewer models in the same time. The run and its model count.
fn many_kept(seconds: u64, message: &str, stop_after: impl Fn(u64) -> Output) -> (Output, usize) {
    let mut found = Vec::new();
    for secs in [seconds, 2 * seconds, 4 * seconds] {
        let o = stop_after(secs);
        assert_stopped(&o, message);
        let n = models_after(&stderr(&o));
        if n >= MANY_KEPT {
            return (o, n);
        }
        found.push(format!("{n} models in {secs} s"));
    }
    panic!("too few models kept: {}", found.join(", "));
}

#[test]
fn a_timeout_keeps_and_prints_every_model_found() {
    let message = "(--timeout) was reached after ";
    let (o, n) = many_kept(8, message, |secs| {
        let timeout = secs.to_string();
        let args = ["-n", "0", "--nowarnings", "--timeout", &timeout];
        run(MORE_SHORT_MODELS, &args).0
    });
    check_printed_models(&stdout(&o), n);
    // In a procedure, `printmodels` prints them all after the stop.
    let spec = format!("{MORE_SHORT_MODELS}{PRINT_ALL}");
    let (o, n) = many_kept(4, message, |secs| {
        run(&spec, &["--nowarnings", "--timeout", &secs.to_string()]).0
    });
    check_printmodels(&stdout(&o), n);
}

#[test]
fn ctrl_c_keeps_and_prints_every_model_found() {
    use std::io::{BufRead, BufReader};
    // `idp -n 0` prints the models as it finds them: Ctrl-C once 100 000 are printed.
    let mut child = spawn(MANY_SHORT_MODELS, &["-n", "0", "--nowarnings"]);
    let pid = child.id() as libc::pid_t;
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let (mut out, mut line, mut seen) = (String::new(), String::new(), 0);
    while reader.read_line(&mut line).unwrap() > 0 {
        if line.starts_with("Model ") {
            seen += 1;
            if seen == MANY_KEPT {
                // SAFETY: kill with a valid pid and signal has no memory-safety preconditions.
                assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
            }
        }
        out.push_str(&line);
        line.clear();
    }
    let o = child.wait_with_output().unwrap();
    assert_stopped(&o, "interrupted (Ctrl-C) after ");
    let n = models_after(&stderr(&o));
    assert!(n >= MANY_KEPT, "{n}");
    check_printed_models(&out, n);
    // In a procedure, `printmodels` prints them all after the stop.
    let spec = format!("{MORE_SHORT_MODELS}{PRINT_ALL}");
    let (o, n) = many_kept(5, "interrupted (Ctrl-C) after ", |secs| {
        run_interrupted(&spec, &["--nowarnings"], Duration::from_secs(secs))
    });
    check_printmodels(&stdout(&o), n);
}

#[test]
fn a_procedure_can_tell_that_a_result_is_partial() {
    let chunk = "stdoptions.nbmodels = 0; local ms, stopped = modelexpand(T, S); \
                 print(#ms > 0, stopped)";
    let (o, _) = run(
        MANY_SHORT_MODELS,
        &["--nowarnings", "--timeout", "1", "-e", chunk],
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("true\ttimeout: the time limit of 1 s (--timeout) was reached after "),
        "{out}"
    );
    assert!(
        out.ends_with(
            " models (the models found so far were kept); raise it with --timeout SECONDS\n"
        ),
        "{out}"
    );
    assert_stopped(&o, "(--timeout) was reached after ");
    // With `stdoptions.trace`, the slot holds the trace, as IDP3's `executeMXCommand` returns
    // it whatever stopped the search.
    let chunk = "stdoptions.nbmodels = 0; stdoptions.trace = true; \
                 local ms, t = modelexpand(T, S); print(#ms > 0, type(t), #t > 0)";
    let (o, _) = run(
        MANY_SHORT_MODELS,
        &["--nowarnings", "--timeout", "1", "-e", chunk],
    );
    assert_eq!(stdout(&o), "true\ttable\ttrue\n");
    assert_stopped(&o, "(--timeout) was reached after ");
    // A complete answer has nil there.
    let chunk = "stdoptions.nbmodels = 3; print(select(2, modelexpand(T, S)))";
    let (o, _) = run(MANY_SHORT_MODELS, &["--nowarnings", "-e", chunk]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "nil\n"));
    // The bundled examples say when a count is only a lower bound.
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/graph-colouring.idp"),
    )
    .unwrap();
    let big = example.replace("Vertex = { 1..4 }", "Vertex = { 1..40 }");
    assert_ne!(big, example);
    let (o, _) = run(&big, &["--nowarnings", "--timeout", "1"]);
    let out = stdout(&o);
    assert!(out.starts_with("colourings: "), "{out}");
    assert!(out.ends_with(" (at least: stopped early)\n"), "{out}");
}

/// A limit hit inside a rule names the rule and how far its grounding got, then the definition
/// around it (a rule with 216 000 instances under a limit of 20 000 nodes).
#[test]
fn a_limit_inside_a_rule_names_the_rule_and_how_far_it_got() {
    let spec = "vocabulary V {\n  type T isa nat\n  P(T, T)\n  Q(T, T, T)\n}\ntheory T : V {\n  \
                { ! x y z : Q(x, y, z) <- P(x, y) & P(y, z). }\n}\nstructure S : V {\n  \
                T = { 1..60 }\n}\n";
    let (o, _) = run(spec, &["-n", "1", "--max-ground-size", "20000"]);
    assert_eq!(o.status.code(), Some(EXIT_LIMIT));
    // The spec's file is a temporary one: its folder is left out.
    let err = stderr(&o);
    let folder = err
        .split_whitespace()
        .find_map(|w| w.find("spec.idp").map(|i| w[..i].to_string()))
        .expect("the spec's file named");
    assert_eq!(
        err.replace(&folder, ""),
        "Stopped: The grounding grew past 20000 nodes (the grounding size \
         limit); make the domains smaller, bound the quantifiers, or raise the limit with \
         --max-ground-size.\n  while grounding the rule at spec.idp:7:5: 12081 ground rules, \
         27752 new nodes (12288 bindings tried) so far\n  while grounding the definition at \
         spec.idp:7:3: { ...\n"
    );
}

/// `--count` counts inside one SAT search (each model blocked as the solver finds it); a model
/// limit stops it at the limit, and the count is exact either way.
#[test]
fn counting_inside_one_search_keeps_counts_and_model_limits() {
    let spec = "vocabulary V {\n  type D isa int\n  P(D)\n}\ntheory T : V {\n}\n\
                structure S : V {\n  D = { 1..10 }\n}\n";
    for (limit, expected) in [("0", 1024), ("1", 1), ("5", 5), ("2000", 1024)] {
        let (o, _) = run(spec, &["--count", "--stats", "-n", limit]);
        let out = stdout(&o);
        assert!(
            out.contains(&format!("Number of models: {expected}")),
            "-n {limit}: {out}"
        );
        assert!(stderr(&o).contains("search: 1 SAT calls"), "{}", stderr(&o));
    }
}

/// `! x : D(x) ~= x.` over 10 000 nodes: each instance makes an atom per value of `D(x)`,
/// 10^8 in all. The first instances tell, and the grounding stops with the size limit before
/// its nodes fill the memory (it took 7 to 13 s and 1.6 GB to reach the limit by counting).
const FUNCTION_OVER_10000: &str = "vocabulary V {\n  type Node isa int\n  D(Node) : Node\n}\n\
    theory T : V {\n  ! x : D(x) ~= x.\n}\n\
    structure S : V {\n  Node = { 1..10000 }\n}\n";

#[test]
fn a_quantifier_past_the_size_limit_stops_before_it_is_made() {
    // Every inference that grounds the theory; under the memory limit of 200 MB the size
    // limit (not the memory) stops each.
    let inferences: [&[&str]; 8] = [
        &["-n", "1"],
        &["--count"],
        &["-e", "printmodels(modelexpand(T, S))"],
        &["-e", "print(propagate(T, S))"],
        &["-e", "print(groundpropagate(T, S))"],
        &["-e", "print(ground(T, S))"],
        &["-e", "printunsatcore(T, S)"],
        &["-e", "print(minimize(T, S, t)[1])"],
    ];
    let spec = FUNCTION_OVER_10000.replace("}\ntheory", "}\nterm t : V { D(1) }\ntheory");
    for inference in inferences {
        let mut args = inference.to_vec();
        args.extend(["--max-memory", "200"]);
        let (o, took) = run(&spec, &args);
        assert_stopped(
            &o,
            "The grounding would grow past 10000000 nodes (the grounding size limit): a \
             quantifier has 10000 instances, each making about 10000 nodes (about 100 million \
             in all).",
        );
        assert!(
            stderr(&o).contains("while grounding the sentence at"),
            "{inference:?}"
        );
        assert!(
            took < Duration::from_secs(20),
            "{inference:?} stopped late: {took:?}"
        );
    }
}

#[test]
fn a_quantifier_that_fits_is_ground_whole() {
    // 90 000 instances of about one node each, under a limit of 200 000 nodes: the first
    // instances (which also make the atoms of Q) do not make it look larger than it is.
    let spec = "vocabulary V {\n  type D isa int\n  P(D)\n  Q(D)\n}\n\
        theory T : V {\n  ! x y : P(x) | Q(y).\n  ? x : ~P(x).\n}\n\
        structure S : V {\n  D = { 1..300 }\n}\n";
    let (o, _) = run(spec, &["-n", "1", "--max-ground-size", "200000"]);
    // -n exits with 10 when it found a model.
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(stdout(&o).contains("Q = { 1; 2; 3;"), "{}", stdout(&o));
}
