//! Parses every `.idp` file of the IDP3 conformance tests: all must parse without syntax errors,
//! except `parser/invalidinput` (some of which hold syntax errors; the others are found later,
//! by semantic analysis), for which the files with syntax errors are listed.

use std::path::{Path, PathBuf};

use idp::diagnostics::{render_plain, Diagnostics};
use idp::source::SourceMap;

/// Diagnostic codes the parser reports for malformed input.
const SYNTAX_CODES: &[&str] = &[
    "syntax-error",
    "nesting-too-deep",
    "number-out-of-range",
    "include-not-found",
    "invalid-utf8",
];

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "idp") {
            out.push(path);
        }
    }
}

/// The standard library as far as parsing is concerned: the known names, empty.
fn std_lib(name: &str) -> Option<String> {
    ["mx", "table_utils", "LTC"]
        .contains(&name)
        .then(String::new)
}

/// Parses one file; returns the rendered syntax errors.
fn syntax_errors(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).expect("readable test file");
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let name = path.to_string_lossy().into_owned();
    idp::syntax::load(vec![(name, bytes)], &std_lib, &mut sources, &mut diags);
    diags
        .items
        .iter()
        .filter(|d| d.is_error() && SYNTAX_CODES.contains(&d.code))
        .map(|d| render_plain(d, &sources))
        .collect()
}

#[test]
fn conformance_files_parse() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    let tests = root.join("tests");
    if !tests.is_dir() {
        eprintln!("skipping: {} not found", tests.display());
        return;
    }
    let mut files = Vec::new();
    collect(&tests, &mut files);
    collect(&root.join("harness"), &mut files);
    files.sort();
    let (invalid, valid): (Vec<_>, Vec<_>) = files
        .iter()
        .partition(|p| p.components().any(|c| c.as_os_str() == "invalidinput"));

    let mut failures = Vec::new();
    for path in &valid {
        let errors = syntax_errors(path);
        if !errors.is_empty() {
            failures.push(format!("{}:\n{}", path.display(), errors.concat()));
        }
    }
    println!(
        "{} of {} conformance files parse without syntax errors",
        valid.len() - failures.len(),
        valid.len()
    );

    println!("parser/invalidinput files with syntax errors:");
    for path in &invalid {
        let errors = syntax_errors(path);
        if !errors.is_empty() {
            println!(
                "  {}: {}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                errors[0].trim_end()
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} files have syntax errors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
