//! Driving a program in a real terminal from a test: a detached tmux session whose pane is
//! read back (tests that use it skip themselves when tmux is missing).

use std::process::Command;

/// Runs `tmux args...`; its stdout when it succeeded.
pub fn tmux(args: &[&str]) -> Option<String> {
    let out = Command::new("tmux").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Waits up to 20 s until the pane's history contains `text`; returns the history.
pub fn wait_for(session: &str, text: &str) -> String {
    let mut pane = String::new();
    for _ in 0..200 {
        pane = tmux(&["capture-pane", "-p", "-t", session, "-S", "-500"]).unwrap_or_default();
        if pane.contains(text) {
            return pane;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("'{text}' did not appear in the terminal:\n{pane}");
}

/// Starts `command` (a shell command line) in a detached session of `columns` x `rows`, in the
/// crate's directory.
pub fn start(session: &str, columns: u16, rows: u16, command: &str) {
    tmux(&[
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        &columns.to_string(),
        "-y",
        &rows.to_string(),
        "-c",
        env!("CARGO_MANIFEST_DIR"),
        command,
    ])
    .expect("tmux new-session");
}
