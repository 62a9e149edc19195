//! Snapshot tests: every `tests/snapshots/NAME.idp` is run by the `idp` binary (by default with
//! `--dump ground`, so the ground theory of each inference is shown as well as the models), and
//! its exit code, stdout and stderr must equal `tests/snapshots/NAME.snap` byte for byte.
//!
//! They pin the grounder's output and the printed models while the engine is restructured: a
//! refactoring must leave every snapshot unchanged. A file picks other arguments with a line
//! `// idp-args: ARG...` (the file name is appended). After an intended change, re-bless them
//! with `IDP_BLESS=1 cargo test --release --test snapshots` and review the diff.

mod support;

use std::path::{Path, PathBuf};

const DEFAULT_ARGS: &[&str] = &["--dump", "ground"];

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// The spec files, sorted by name.
fn specs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(snapshot_dir())
        .expect("tests/snapshots exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "idp"))
        .collect();
    files.sort();
    files
}

/// The arguments a spec asks for in its `// idp-args:` line, or the default ones.
fn arguments(text: &str) -> Vec<String> {
    match text
        .lines()
        .find_map(|l| l.trim().strip_prefix("// idp-args:"))
    {
        Some(args) => args.split_whitespace().map(str::to_string).collect(),
        None => DEFAULT_ARGS.iter().map(|a| a.to_string()).collect(),
    }
}

/// Runs `idp ARGS NAME.idp` in the snapshot folder (so messages name the file without a path)
/// and renders what it did as the snapshot text.
fn run(spec: &Path) -> String {
    let text = std::fs::read_to_string(spec).expect("the spec is readable");
    let name = spec.file_name().unwrap().to_string_lossy().into_owned();
    let mut args = arguments(&text);
    args.push(name);
    let out = support::idp_command()
        .current_dir(snapshot_dir())
        .args(&args)
        .output()
        .expect("the idp binary runs");
    format!(
        "$ idp {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The first line where two texts differ, with both versions, for the failure message.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut e, mut a) = (expected.lines(), actual.lines());
    for line in 1.. {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => break,
            (x, y) => {
                return format!(
                    "line {line}:\n  expected: {}\n  actual:   {}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                )
            }
        }
    }
    "only line endings differ".to_string()
}

#[test]
fn every_snapshot_matches() {
    let bless = std::env::var_os("IDP_BLESS").is_some();
    let specs = specs();
    assert!(specs.len() >= 30, "expected at least 30 snapshot specs");
    let mut failures = Vec::new();
    for spec in &specs {
        let actual = run(spec);
        let snap = spec.with_extension("snap");
        if bless {
            std::fs::write(&snap, &actual).expect("the snapshot is writable");
            continue;
        }
        let expected = std::fs::read_to_string(&snap).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}: {}",
                spec.file_name().unwrap().to_string_lossy(),
                first_difference(&expected, &actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} snapshots differ (re-bless with IDP_BLESS=1 after an intended change):\n{}",
        failures.len(),
        specs.len(),
        failures.join("\n")
    );
}

#[test]
fn snapshot_specs_without_a_snapshot_are_reported() {
    for spec in specs() {
        assert!(
            spec.with_extension("snap").exists(),
            "{} has no snapshot; create it with IDP_BLESS=1",
            spec.display()
        );
    }
}
