//! Grounding never grows (issue 28): every specification in `examples/`, `specs/` and the test
//! folders is run as a user runs it (its own `main`, in its folder) with `--stats`, and the
//! nodes of its ground theories, summed over its inferences, must not exceed the count
//! recorded in `tests/ground_sizes.txt`. A change that grounds less is recorded with
//! `IDP_BLESS=1 cargo test --release --test ground_sizes`; one that grounds more fails here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const RECORD: &str = "tests/ground_sizes.txt";

/// The folders whose `.idp` files are measured (relative to the crate), with their subfolders
/// for `specs`.
const FOLDERS: &[&str] = &[
    "examples",
    "specs",
    "tests/snapshots",
    "tests/corpus/ok",
    "tests/explain",
    "tests/idp_z3",
    "tests/fixtures",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn idp_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            idp_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "idp") {
            out.push(path);
        }
    }
}

/// The nodes of every ground theory that running `file` in its folder reports.
fn ground_nodes(file: &Path) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_idp"))
        .current_dir(file.parent().expect("a folder"))
        .args(["--stats", "--nowarnings", "--timeout", "60"])
        .arg(file.file_name().expect("a file name"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the idp binary runs");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("[stats] grounded and encoded in"))
        .filter_map(|l| {
            let before = l.rsplit_once("): ")?.1.split(" nodes").next()?;
            before.parse::<u64>().ok()
        })
        .sum()
}

fn measured() -> BTreeMap<String, u64> {
    let mut files = Vec::new();
    for folder in FOLDERS {
        idp_files(&root().join(folder), &mut files);
    }
    files
        .iter()
        .map(|f| {
            let name = f.strip_prefix(root()).expect("inside the crate");
            (name.display().to_string(), ground_nodes(f))
        })
        .collect()
}

fn recorded() -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(root().join(RECORD)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (name, nodes) = l.rsplit_once(' ')?;
            Some((name.to_string(), nodes.parse().ok()?))
        })
        .collect()
}

#[test]
fn no_specification_grounds_to_more_nodes_than_recorded() {
    let now = measured();
    if std::env::var_os("IDP_BLESS").is_some() {
        let mut text = String::from(
            "# Ground nodes per specification (tests/ground_sizes.rs): a ceiling, never raised.\n",
        );
        for (name, nodes) in &now {
            text.push_str(&format!("{name} {nodes}\n"));
        }
        std::fs::write(root().join(RECORD), text).expect("the record is written");
        return;
    }
    let before = recorded();
    let mut problems = Vec::new();
    for (name, &nodes) in &now {
        match before.get(name) {
            None => problems.push(format!("{name}: {nodes} nodes, not recorded")),
            Some(&ceiling) if nodes > ceiling => {
                problems.push(format!("{name}: {nodes} nodes, {ceiling} recorded"))
            }
            Some(_) => {}
        }
    }
    assert!(
        problems.is_empty(),
        "{} specifications ground to more nodes than recorded (record new ones or smaller \
         sizes with IDP_BLESS=1):\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        now.values().filter(|&&n| n > 0).count() >= 90,
        "too few specifications ground"
    );
}
