//! `--sandbox`: procedures cannot run programs, read files or load modules, only write to
//! stdout and stderr; `include` cannot leave the specification's folder. Without `--sandbox`
//! everything works as before.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder `outer/spec` for a specification, with `outer/outside.idp` beside it (outside
/// the specification's folder) and `spec/sub/inner.idp` below it.
fn layout() -> PathBuf {
    let outer = support::test_dir(&format!(
        "layout-{}",
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let spec = outer.join("spec");
    std::fs::create_dir_all(spec.join("sub")).unwrap();
    std::fs::write(outer.join("outside.idp"), "vocabulary Outside {\n  Q\n}\n").unwrap();
    std::fs::write(spec.join("sub/inner.idp"), "vocabulary Inner {\n  R\n}\n").unwrap();
    std::fs::write(spec.join("beside.idp"), "vocabulary Beside {\n  B\n}\n").unwrap();
    spec
}

/// Writes `main.idp` with `text` into the folder and runs it with `args`.
fn run_in(dir: &Path, text: &str, args: &[&str]) -> Output {
    let main = dir.join("main.idp");
    std::fs::write(&main, text).unwrap();
    support::idp_command()
        .arg(&main)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the idp binary runs")
}

fn run(text: &str, args: &[&str]) -> Output {
    run_in(&layout(), text, args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn procedure(body: &str) -> String {
    format!("procedure main() {{\n{body}\n}}\n")
}

#[test]
fn os_execute_is_blocked() {
    let marker = support::test_dir("marker").join("touched");
    let spec = procedure(&format!(
        "  os.execute(\"touch {}\")\n  print(\"after\")",
        marker.display()
    ));
    let o = run(&spec, &["--sandbox"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("main.idp:2: os.execute is not allowed in --sandbox mode"),
        "{}",
        stderr(&o)
    );
    assert!(!marker.exists(), "os.execute ran");
    assert!(!stdout(&o).contains("after"));
}

/// Each blocked function raises an error naming it (caught here with pcall).
#[test]
fn files_processes_and_modules_are_blocked() {
    let calls = [
        ("io.open", "io.open(\"/etc/passwd\")"),
        ("io.read", "io.read()"),
        ("io.lines", "io.lines(\"/etc/passwd\")"),
        ("io.popen", "io.popen(\"ls\")"),
        ("io.output", "io.output(\"x.txt\")"),
        ("os.remove", "os.remove(\"x\")"),
        ("os.getenv", "os.getenv(\"HOME\")"),
        ("os.exit", "os.exit(0)"),
        ("require", "require(\"os\")"),
        ("dofile", "dofile(\"/etc/passwd\")"),
        ("loadfile", "loadfile(\"/etc/passwd\")"),
        (
            "package.loadlib",
            "package.loadlib(\"libc.so.6\", \"system\")",
        ),
        ("string.dump", "string.dump(print)"),
    ];
    let body: String = calls
        .iter()
        .map(|(_, call)| format!("  print(pcall(function() return {call} end))\n"))
        .collect();
    let o = run(&procedure(&body), &["--sandbox"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for (name, _) in calls {
        assert!(
            out.contains(&format!("{name} is not allowed in --sandbox mode")),
            "{name} was not blocked:\n{out}"
        );
    }
    assert!(!out.contains("root:"), "a file was read:\n{out}");
}

/// Nothing leads back to the real libraries, and binary chunks are refused.
#[test]
fn no_way_back_to_the_real_libraries() {
    let body = "  print(io.stdin, package.loaded.io, package.loaded.os)\n  \
        print(loadstring(string.char(27) .. \"Lua\"))\n  \
        local sent = false\n  \
        print(load(function() if sent then return nil end sent = true \
        return string.char(27) .. \"Lua\" end))\n  \
        print(loadstring(\"return 1 + 1\")())";
    let o = run(&procedure(body), &["--sandbox"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let refused = "nil\tbinary chunks are not allowed in --sandbox mode";
    assert_eq!(
        stdout(&o),
        format!("nil\tnil\tnil\n{refused}\n{refused}\n2\n")
    );
}

/// Writing to stdout and stderr, clocks and the pure libraries still work.
#[test]
fn printing_and_pure_libraries_still_work() {
    let body = "  print(\"p\")\n  io.write(\"w\\n\")\n  io.stdout:write(\"o\\n\")\n  \
        io.stderr:write(\"e\\n\")\n  print(os.time() > 0, os.clock() >= 0, type(os.date()))\n  \
        print(string.format(\"%d\", math.max(1, 2)), table.concat({\"a\", \"b\"}))";
    let o = run(&procedure(body), &["--sandbox"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "p\nw\no\ntrue\ttrue\tstring\n2\tab\n");
    assert_eq!(stderr(&o), "e\n");
}

#[test]
fn inferences_still_work_in_the_sandbox() {
    let spec = "vocabulary V {\n  type D isa int\n  P(D)\n}\ntheory T : V {\n  ? x: P(x).\n}\n\
        structure S : V {\n  D = { 1..2 }\n}\n\
        procedure main() {\n  stdoptions.nbmodels = 0\n  printmodels(modelexpand(T, S))\n}\n";
    let o = run(spec, &["--sandbox", "--nowarnings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Number of models: 3"), "{}", stdout(&o));
}

#[test]
fn include_of_a_parent_folder_is_refused() {
    let o = run("include \"../outside.idp\"\n", &["--sandbox"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "--sandbox: the included file \"../outside.idp\" is outside the folder of the \
             specification"
        ),
        "{err}"
    );
    assert!(
        err.contains("main.idp:1:1 [include-outside-folder]"),
        "{err}"
    );
}

#[test]
fn include_of_an_absolute_path_is_refused() {
    let dir = layout();
    let outside = dir.parent().unwrap().join("outside.idp");
    let o = run_in(
        &dir,
        &format!("include \"{}\"\n", outside.display()),
        &["--sandbox"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("[include-outside-folder]"),
        "{}",
        stderr(&o)
    );
    let o = run_in(&dir, "include \"/etc/passwd\"\n", &["--sandbox"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("[include-outside-folder]"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("root:"), "{}", stderr(&o));
}

/// `sub/../../outside.idp` and a symbolic link that points outside are refused too.
#[test]
fn include_through_dot_dot_or_a_symlink_is_refused() {
    let dir = layout();
    let o = run_in(&dir, "include \"sub/../../outside.idp\"\n", &["--sandbox"]);
    assert!(
        stderr(&o).contains("[include-outside-folder]"),
        "{}",
        stderr(&o)
    );
    std::os::unix::fs::symlink(
        dir.parent().unwrap().join("outside.idp"),
        dir.join("link.idp"),
    )
    .unwrap();
    let o = run_in(&dir, "include \"link.idp\"\n", &["--sandbox"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("[include-outside-folder]"),
        "{}",
        stderr(&o)
    );
}

/// Includes from the same folder, a subfolder and the standard library still work.
#[test]
fn include_inside_the_folder_works() {
    let spec = "include \"beside.idp\"\ninclude \"sub/inner.idp\"\ninclude <mx>\n\
        include <LTC>\nprocedure main() {\n  print(Beside, Inner)\n}\n";
    let o = run(spec, &["--sandbox"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "vocabulary Beside {\n  B\n}\n\tvocabulary Inner {\n  R\n}\n\n"
    );
}

/// Without --sandbox, procedures keep Lua's full library and includes may leave the folder.
#[test]
fn without_sandbox_everything_works_as_before() {
    let dir = layout();
    let marker = dir.join("marker");
    let spec = format!(
        "include \"../outside.idp\"\nprocedure main() {{\n  os.execute(\"touch {}\")\n  \
         local f = io.open(\"{}\")\n  print(f ~= nil, Outside ~= nil)\n}}\n",
        marker.display(),
        dir.join("beside.idp").display()
    );
    let o = run_in(&dir, &spec, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "true\ttrue\n");
    assert!(marker.exists(), "os.execute did not run");
}

/// `visualize` does not write SVG files in the sandbox.
#[test]
fn visualize_writes_no_svg_in_the_sandbox() {
    let dir = layout();
    let spec = "vocabulary V {\n  type X isa int\n  type Y isa int\n  Wall(X, Y)\n}\n\
        structure S : V {\n  X = { 0..1 }\n  Y = { 0..1 }\n  Wall = { 0,0 }\n}\n\
        procedure main() {\n  visualize(S, { svg = \"out.svg\" })\n}\n";
    let o = run_in(&dir, spec, &["--sandbox", "--nowarnings"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("writing SVG files is not allowed in --sandbox mode"),
        "{}",
        stderr(&o)
    );
}

/// `--sandbox-read DIR`: procedures read (only read) the files inside DIR; a relative path is
/// looked up in the current folder, then in DIR.
#[test]
fn sandbox_read_opens_files_inside_its_folder_only() {
    let dir = layout();
    let read = dir.display().to_string();
    let body = "local f = assert(io.open(\"beside.idp\"))\nprint(f:read(\"*l\"))\nf:close()\n\
                for line in io.lines(\"sub/inner.idp\") do print(line) break end\n\
                print(io.open(\"../outside.idp\"))\n\
                print(pcall(io.open, \"beside.idp\", \"w\"))\n\
                print(pcall(io.lines))";
    let o = run_in(
        &dir,
        &procedure(body),
        &["--sandbox", "--sandbox-read", &read],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let real = dir.canonicalize().unwrap().display().to_string();
    assert_eq!(
        stdout(&o),
        format!(
            "vocabulary Beside {{\nvocabulary Inner {{\n\
             nil\t../outside.idp: only the files inside {real} may be read in --sandbox mode\n\
             false\tio.open: only reading (mode \"r\") is allowed in --sandbox mode, not mode \"w\"\n\
             false\tio.lines without a file (standard input) is not allowed in --sandbox mode\n"
        )
    );
    let o = run_in(&dir, &procedure("print(1)"), &["--sandbox-read", &read]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: --sandbox-read DIR only widens --sandbox; give both\n"
    );
}
