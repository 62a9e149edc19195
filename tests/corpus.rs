//! The diagnostics corpus: every `tests/corpus/ok/*.idp` must check without errors, and every
//! `tests/corpus/err/*.idp` must give exactly the errors its comments announce.
//!
//! Expectations are comment lines anywhere in a file:
//!
//! ```text
//! // expect: syntax-error 3:14                 an error in this file at line 3, column 14
//! // expect: syntax-error inc/broken.idp:3:6   an error in another file (relative path)
//! // expect-warning: free-variable 8:5         a warning
//! ```
//!
//! The set of (code, file, line, column) of the errors must equal the expected errors exactly;
//! the same holds for located warnings (the unlocated note that a file has no procedure `main`
//! is ignored). Files in subdirectories (`inc/`) are only included, not checked on
//! their own. Each file is checked with `idp --check` through the binary, with stderr piped, so
//! diagnostics are in the plain one-line form.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// (code, file relative to the corpus file's directory, line, column).
type Key = (String, String, u32, u32);

#[derive(Default, Debug)]
struct Expected {
    errors: BTreeSet<Key>,
    warnings: BTreeSet<Key>,
}

fn corpus_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "idp"))
        .collect();
    out.sort();
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `code L:C` or `code file:L:C`.
fn parse_location(spec: &str, own: &str) -> Option<Key> {
    let (code, loc) = spec.trim().split_once(' ')?;
    let mut parts = loc.trim().rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next().unwrap_or(own).to_string();
    Some((code.to_string(), file, line, col))
}

fn expectations(path: &Path) -> Expected {
    let text =
        String::from_utf8_lossy(&std::fs::read(path).expect("readable corpus file")).into_owned();
    let own = file_name(path);
    let mut exp = Expected::default();
    for line in text.lines() {
        let line = line.trim();
        let (set, spec) = if let Some(s) = line.strip_prefix("// expect-warning:") {
            (&mut exp.warnings, s)
        } else if let Some(s) = line.strip_prefix("// expect:") {
            (&mut exp.errors, s)
        } else {
            continue;
        };
        let key = parse_location(spec, &own)
            .unwrap_or_else(|| panic!("{}: malformed expectation {line:?}", path.display()));
        set.insert(key);
    }
    exp
}

/// One rendered diagnostic.
#[derive(Debug)]
struct Got {
    error: bool,
    key: Option<Key>,
    text: String,
}

/// Parses `Error: <message> At <file>:<line>:<col> [<code>]` lines (hint lines are skipped).
fn parse_stderr(stderr: &str, dir: &Path) -> Vec<Got> {
    let mut out = Vec::new();
    for l in stderr.lines() {
        let error = l.starts_with("Error: ");
        if !error && !l.starts_with("Warning: ") {
            continue;
        }
        let key = (|| {
            let open = l.rfind(" [")?;
            let code = l[open + 2..].strip_suffix(']')?.to_string();
            let head = &l[..open];
            let at = head.rfind(" At ")?;
            let mut pos = head[at + 4..].rsplitn(3, ':');
            let col = pos.next()?.parse().ok()?;
            let line = pos.next()?.parse().ok()?;
            let file = Path::new(pos.next()?);
            let rel = file.strip_prefix(dir).unwrap_or(file);
            Some((code, rel.to_string_lossy().into_owned(), line, col))
        })();
        out.push(Got {
            error,
            key,
            text: l.to_string(),
        });
    }
    out
}

/// Words that would betray the parser's internals in a message.
const INTERNAL: &[&str] = &[
    "Tok::",
    "LParen",
    "RParen",
    "LBrace",
    "RBrace",
    "LBracket",
    "RBracket",
    "LArrow",
    "RArrow",
    "ImpliedBy",
    "ColonColon",
    "DotDot",
    "Newline",
    "Eof",
    "Ident",
    "Fail",
    "Unknown",
    "unwrap",
    "panicked",
];

/// Checks one file; returns a description of every discrepancy.
fn check_file(path: &Path, must_be_clean: bool) -> Vec<String> {
    let dir = path.parent().expect("a corpus file has a directory");
    let out = support::idp_command()
        .arg("--check")
        .arg(path)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the idp binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let name = file_name(path);
    let mut problems = Vec::new();
    let mut complain = |what: String| problems.push(format!("{name}: {what}"));
    match out.status.code() {
        Some(0) | Some(1) => {}
        other => complain(format!("exit status {other:?} (a crash?)\n{stderr}")),
    }
    if stderr.contains("panicked") {
        complain(format!("panicked\n{stderr}"));
    }
    let exp = expectations(path);
    if must_be_clean && !exp.errors.is_empty() {
        complain("an ok file must not expect errors".into());
    }
    let got = parse_stderr(&stderr, dir);
    let mut errors = BTreeSet::new();
    let mut warnings = BTreeSet::new();
    for g in &got {
        for w in INTERNAL {
            if g.text.contains(w) {
                complain(format!("internal word {w:?} in {:?}", g.text));
            }
        }
        match (&g.key, g.error) {
            (Some(k), true) => {
                errors.insert(k.clone());
            }
            (Some(k), false) => {
                warnings.insert(k.clone());
            }
            (None, true) => complain(format!("error without a location: {:?}", g.text)),
            // A file without `main` is not a mistake in a file that is checked (`--check`
            // notes it without a position: it is about the whole file).
            (None, false) if g.text.ends_with("[no-main]") => {}
            (None, false) => complain(format!("warning without a location: {:?}", g.text)),
        }
    }
    let show = |s: &BTreeSet<Key>| {
        s.iter()
            .map(|(c, f, l, col)| format!("{c} {f}:{l}:{col}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if errors != exp.errors {
        complain(format!(
            "errors differ\n  expected: [{}]\n  got:      [{}]\n{stderr}",
            show(&exp.errors),
            show(&errors)
        ));
    }
    if warnings != exp.warnings {
        complain(format!(
            "warnings differ\n  expected: [{}]\n  got:      [{}]\n{stderr}",
            show(&exp.warnings),
            show(&warnings)
        ));
    }
    let expected_code = i32::from(!exp.errors.is_empty());
    if out.status.code() != Some(expected_code) {
        complain(format!(
            "exit code {:?}, expected {expected_code}",
            out.status.code()
        ));
    }
    problems
}

#[test]
fn corpus() {
    let ok = corpus_files("ok");
    let err = corpus_files("err");
    assert!(ok.len() >= 25, "only {} ok files", ok.len());
    assert!(err.len() >= 30, "only {} err files", err.len());
    let mut problems = Vec::new();
    for f in &ok {
        problems.extend(check_file(f, true));
    }
    for f in &err {
        let exp = expectations(f);
        if exp.errors.is_empty() && exp.warnings.is_empty() {
            problems.push(format!(
                "{}: an err file states no expectation",
                file_name(f)
            ));
        }
        problems.extend(check_file(f, false));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn expectation_syntax() {
    assert_eq!(
        parse_location(" syntax-error 3:14", "a.idp"),
        Some(("syntax-error".into(), "a.idp".into(), 3, 14))
    );
    assert_eq!(
        parse_location(" syntax-error inc/b.idp:3:6", "a.idp"),
        Some(("syntax-error".into(), "inc/b.idp".into(), 3, 6))
    );
    assert_eq!(parse_location("syntax-error", "a.idp"), None);
}
