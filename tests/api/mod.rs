//! Running a small specification with the idp binary: the text is written to a scratch file
//! and run with a Lua chunk; stdout, stderr and the exit code come back.

use std::path::PathBuf;
use std::process::Command;

/// What one run printed and returned.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// A scratch folder of its own for each test (under target/, removed by cargo clean).
pub fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("api")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Runs `spec` with `-e chunk` (or `main` when the chunk is empty) and `extra` arguments.
pub fn run_with(test: &str, spec: &str, chunk: &str, extra: &[&str]) -> Run {
    let dir = scratch(test);
    let file = dir.join("spec.idp");
    std::fs::write(&file, spec).expect("the spec is written");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_idp"));
    cmd.current_dir(&dir).args(extra).arg("spec.idp");
    if !chunk.is_empty() {
        cmd.arg("-e").arg(chunk);
    }
    let out = cmd.output().expect("the idp binary runs");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `spec` with `-e chunk` and warnings off.
pub fn run(test: &str, spec: &str, chunk: &str) -> Run {
    run_with(test, spec, chunk, &["--nowarnings"])
}
