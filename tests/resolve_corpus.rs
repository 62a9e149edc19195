//! Resolves every `.idp` file of the IDP3 conformance tests: all must resolve without errors
//! except `parser/invalidinput` (each of which should fail in the parser or in sema) and
//! `progression/exception` (which fail when their procedures run). The invalid inputs that
//! get no error at all are listed.

use std::path::{Path, PathBuf};

use idp::diagnostics::{render_plain, Diagnostics};
use idp::source::SourceMap;

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

fn std_lib(name: &str) -> Option<String> {
    ["mx", "table_utils", "LTC"]
        .contains(&name)
        .then(String::new)
}

/// Parses and resolves one file; returns its rendered errors.
fn errors(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).expect("readable test file");
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let name = path.to_string_lossy().into_owned();
    let loaded = idp::syntax::load(vec![(name, bytes)], &std_lib, &mut sources, &mut diags);
    idp::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    diags
        .sorted()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| render_plain(d, &sources))
        .collect()
}

fn in_dir(p: &Path, a: &str, b: &str) -> bool {
    let parts: Vec<_> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.windows(2).any(|w| w[0] == a && w[1] == b)
}

#[test]
fn conformance_files_resolve() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/tests");
    if !tests.is_dir() {
        eprintln!("skipping: {} not found", tests.display());
        return;
    }
    let mut files = Vec::new();
    collect(&tests, &mut files);
    files.sort();
    let mut failures = Vec::new();
    let mut accepted = Vec::new();
    let mut valid = 0;
    for path in &files {
        let start = std::time::Instant::now();
        let errs = errors(path);
        if start.elapsed().as_secs_f64() > 2.0 {
            println!(
                "  slow ({:.1}s): {}",
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
        if in_dir(path, "parser", "invalidinput") {
            if errs.is_empty() {
                accepted.push(
                    path.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                );
            } else {
                println!(
                    "  invalid {}: {}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    errs[0].lines().next().unwrap_or("")
                );
            }
            continue;
        }
        if in_dir(path, "progression", "exception") {
            continue;
        }
        valid += 1;
        if !errs.is_empty() {
            failures.push(format!("{}:\n{}", path.display(), errs.concat()));
        }
    }
    println!(
        "{} of {} conformance files resolve without errors",
        valid - failures.len(),
        valid
    );
    println!("parser/invalidinput files accepted without any error: {accepted:?}");
    assert!(
        failures.is_empty(),
        "{} files have errors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
