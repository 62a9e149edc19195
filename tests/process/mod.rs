//! Running the `idp` binary from a test: in the crate's directory, with `stdin` piped in.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `idp args...` in the crate's directory, writes `stdin` to it and waits for it.
pub fn idp(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_idp"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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

/// Runs `idp --nowarnings` on `spec` (given on stdin) with a chunk that prints every model of
/// theory `T` in structure `S`.
#[allow(dead_code)] // Not every test crate prints models.
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
