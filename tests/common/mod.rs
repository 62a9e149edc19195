//! Helpers shared by the tests of the puzzle specs (`tests/colourmaze.rs`, `tests/overflow.rs`):
//! running a spec with the idp binary, listing its instance files, writing a puzzle as a Lua
//! table and a small random generator.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `spec` (a path relative to the crate) with `-e expr`, or its `main` when `expr` is
/// None, from the crate's directory, and returns stdout. Panics when idp fails.
pub fn run_spec(spec: &str, expr: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_idp"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).arg(spec);
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

/// The `.txt` files of a directory of the crate (e.g. `specs/overflow/levels`), sorted.
pub fn txt_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
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
