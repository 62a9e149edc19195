//! What the test binaries share: `mod support;` at the top of a test file. Running the `idp`
//! binary ([`idp_command`] and the runs built on it), small specifications as programs of the
//! library ([`program`], and the naive checker's and brute force's oracle,
//! [`assert_models`]), scratch files, and the drivers of `idp serve` ([`serve`]) and of a
//! terminal ([`terminal`]). CONTRIBUTING.md says which test file a new test goes in.
#![allow(dead_code)] // Each test binary uses part of it.

pub mod lsp;
pub mod serve;
pub mod terminal;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use idp::diagnostics::Diagnostics;
use idp::infer::{self, brute_force_count, check_model, Options};
use idp::sema::{Component, Program};
use idp::source::SourceMap;
use idp::structure::Structure;

// ---------------------------------------------------------------------------------------------
// The binary
// ---------------------------------------------------------------------------------------------

/// The `idp` binary of this build.
pub const IDP: &str = env!("CARGO_BIN_EXE_idp");

/// The crate's folder.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command that runs the `idp` binary in the crate's folder: every run of the binary starts
/// here.
pub fn idp_command() -> Command {
    let mut command = Command::new(IDP);
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// What one run printed and returned.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

/// Runs `idp args...` in the crate's folder, writes `stdin` to it and waits for it.
pub fn idp(args: &[&str], stdin: &str) -> Output {
    let mut child = idp_command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idp binary runs");
    let mut input = child.stdin.take().expect("piped stdin");
    // idp may end without reading its stdin (a chunk that reads nothing): a closed pipe then.
    match input.write_all(stdin.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.expect("idp reads its stdin"),
    }
    drop(input);
    child.wait_with_output().expect("idp finishes")
}

/// `idp ARGS --count` on `spec` (given on stdin): the number of models, checked against the
/// exit code (10 with a model, 20 without, as SAT solvers say).
pub fn model_count(args: &[&str], spec: &str) -> u64 {
    let out = idp(&[args, &["--count"]].concat(), spec);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let found: u64 = stdout
        .trim()
        .strip_prefix("Number of models: ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("idp {args:?}: a count, not {stdout:?}\n{spec}"));
    let code = if found > 0 { 10 } else { 20 };
    assert_eq!(
        out.status.code(),
        Some(code),
        "idp {args:?}: {stdout}\n{spec}"
    );
    found
}

/// Runs `idp --nowarnings` on `spec` (given on stdin) with a chunk that prints every model of
/// theory `T` in structure `S`.
pub fn all_models(spec: &str) -> Output {
    idp(
        &[
            "--nowarnings",
            "-e",
            "stdoptions.nbmodels = 0 printmodels(modelexpand(T, S))",
        ],
        spec,
    )
}

/// Runs `spec` (a path relative to the crate) with `-e expr`, or its `main` when `expr` is
/// None, and returns stdout. Panics when idp fails.
pub fn run_spec(spec: &str, expr: Option<&str>) -> String {
    let mut cmd = idp_command();
    cmd.arg(spec);
    if let Some(e) = expr {
        cmd.arg("-e").arg(e);
    }
    let out = cmd.output().expect("the idp binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "idp {spec} {expr:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Runs `spec` (written to `spec.idp` in a scratch folder of test `test`, where it runs) with
/// `-e chunk` (or `main` when the chunk is empty) and `extra` arguments.
pub fn run_with(test: &str, spec: &str, chunk: &str, extra: &[&str]) -> Run {
    let dir = scratch(test);
    std::fs::write(dir.join("spec.idp"), spec).expect("the spec is written");
    let mut cmd = idp_command();
    cmd.current_dir(&dir).args(extra).arg("spec.idp");
    if !chunk.is_empty() {
        cmd.arg("-e").arg(chunk);
    }
    cmd.output().expect("the idp binary runs").into()
}

/// [`run_with`] warnings off.
pub fn run(test: &str, spec: &str, chunk: &str) -> Run {
    run_with(test, spec, chunk, &["--nowarnings"])
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/// A scratch folder of its own for test `test` (under target/, removed by cargo clean).
pub fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("scratch")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);
static CLEARED: std::sync::Once = std::sync::Once::new();

/// A folder `name` of this test binary's own under target/ (Cargo's `CARGO_TARGET_TMPDIR`, which
/// `cargo clean` removes), created if missing. The binary's folder is emptied the first time a
/// process asks, so test runs leave one folder per test binary behind, not one per run.
pub fn test_dir(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(env!("CARGO_CRATE_NAME"));
    CLEARED.call_once(|| {
        let _ = std::fs::remove_dir_all(&root);
    });
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Writes `text` to `name` in a fresh folder of this test binary (see [`test_dir`]); its path.
pub fn write_file(name: &str, text: &str) -> PathBuf {
    let dir = test_dir(&format!("file-{}", COUNTER.fetch_add(1, Ordering::SeqCst)));
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the file is written");
    path
}

/// Runs `idp ARGS NAME` in the folder of a fresh file `name` holding `text`, so that messages
/// name the file without a folder.
pub fn idp_on(name: &str, text: &str, args: &[&str]) -> Output {
    let path = write_file(name, text);
    idp_command()
        .current_dir(path.parent().unwrap())
        .args(args)
        .arg(name)
        .output()
        .expect("the idp binary runs")
}

/// A run's standard error, as text.
pub fn stderr_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run's standard output, as text.
pub fn stdout_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `.idp` files below a folder, at any depth, sorted.
pub fn idp_files_below(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "idp") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The `.txt` files of a directory of the crate (e.g. `specs/overflow/levels`), sorted.
pub fn txt_files(dir: &str) -> Vec<PathBuf> {
    let dir = crate_dir().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a folder of the crate")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

/// A file of the crate as the path relative to the crate's directory, as the specs read it.
pub fn relative(path: &Path) -> String {
    let rel = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path);
    rel.display()
        .to_string()
        .trim_start_matches('/')
        .to_string()
}

/// Rows of text as a Lua table of strings, `{ "row", "row" }`.
pub fn lua_rows<S: AsRef<str>>(rows: &[S]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| format!("\"{}\"", r.as_ref())).collect();
    format!("{{ {} }}", rows.join(", "))
}

/// A small deterministic random generator (xorshift), so the tests need no crate.
pub struct Rng(pub u64);

impl Rng {
    /// A number in 0..m.
    pub fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

// ---------------------------------------------------------------------------------------------
// Programs of the library
// ---------------------------------------------------------------------------------------------

/// The program of `text` (named `name` in messages), which must have no errors.
pub fn program_named(name: &str, text: &str) -> Program {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let file = idp::syntax::parse_text(name, text, &mut sources, &mut diags);
    let program = idp::sema::resolve(&file, &mut diags);
    let errors: Vec<_> = diags.items.iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "unexpected errors in {name}: {errors:#?}\n{text}"
    );
    program
}

/// The program of `text`, which must have no errors.
pub fn program(text: &str) -> Program {
    program_named("test.idp", text)
}

/// The program of the file `path`, which must have no errors.
pub fn program_file(path: &Path) -> Program {
    let text = std::fs::read_to_string(path).expect("a readable spec");
    program_named(path.to_str().expect("a UTF-8 path"), &text)
}

/// Theory `T` and structure `S` of `p`, which must have both.
pub fn theory_t_and_structure_s(p: &Program) -> (&idp::sema::Theory, &Structure) {
    let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
        (p.lookup(&["T"]), p.lookup(&["S"]))
    else {
        panic!("no theory T or structure S");
    };
    (&p.theories[t.index()], &p.structures[s.index()])
}

/// The `pipeline` fuzz target's oracle: model expansion finds `expected` models of theory `T`
/// in structure `S`, each passes the naive checker, and brute force counts the same. Returns
/// the models, each printed as IDP3 prints it.
pub fn assert_models(text: &str, expected: u64) -> Vec<String> {
    let (p, models) = checked_models(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    assert_eq!(models.len() as u64, expected, "model expansion count");
    let brute = brute_force_count(&p, theory, structure, 1 << 12).expect("small enough");
    assert_eq!(brute, expected, "brute-force count");
    models
        .iter()
        .map(|m| idp::print::structure_to_string(&p, m))
        .collect()
}

/// Every model of theory `T` in structure `S`, each checked by the naive checker.
pub fn checked_models(text: &str) -> (Program, Vec<Structure>) {
    checked_models_with(text, Options::default())
}

/// [`checked_models`] with `options` (all models, whatever their `nbmodels`).
pub fn checked_models_with(text: &str, options: Options) -> (Program, Vec<Structure>) {
    let p = program(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let options = Options {
        nbmodels: 0,
        ..options
    };
    let models = infer::modelexpand(&p, theory, structure, None, &options)
        .expect("expands")
        .value;
    for m in &models {
        if let Err(why) = check_model(&p, theory, m) {
            panic!("a returned model is wrong: {why}\n{text}");
        }
    }
    (p, models)
}

/// `pigeons` pigeons in `holes` holes (vocabulary V, theory T, structure S): no model when
/// there are more pigeons, and a refutation that takes a CDCL solver very long from about 12.
pub fn pigeonhole(pigeons: usize, holes: usize) -> String {
    format!(
        "vocabulary V {{\n  type Pigeon isa int\n  type Hole isa int\n  In(Pigeon, Hole)\n}}\n\
         theory T : V {{\n  ! p: ? h: In(p, h).\n  ! h p1 p2: In(p1, h) & In(p2, h) => p1 = p2.\n}}\n\
         structure S : V {{\n  Pigeon = {{ 1..{pigeons} }}\n  Hole = {{ 1..{holes} }}\n}}\n"
    )
}
