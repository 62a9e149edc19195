//! Starting a child `idp` for the server: the buffer on stdin, the specification's folder as
//! the working directory, `--sandbox --message-format json` and the time and memory limits on
//! the command line, and hard operating-system limits behind them (address space and CPU
//! time), so that a child that ignores its limits is killed by the kernel, never the server.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::ServeError;

/// The limits of one child.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// `--timeout`, seconds.
    pub timeout: f64,
    /// `--max-memory`, MB.
    pub max_memory_mb: u64,
}

impl Limits {
    /// The command-line flags that state the limits.
    pub fn flags(&self) -> Vec<String> {
        vec![
            "--timeout".into(),
            format!("{}", self.timeout),
            "--max-memory".into(),
            self.max_memory_mb.to_string(),
        ]
    }

    /// How long after its start a child is killed outright if it has not ended (its own
    /// limits stop it well before).
    pub fn kill_after(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.timeout + 10.0)
    }

    /// The kernel's address-space limit: generous (the 512 MB main stack and thread stacks
    /// count), only a backstop for `--max-memory`.
    fn address_space_bytes(&self) -> u64 {
        (self.max_memory_mb.saturating_mul(2) + 2048).saturating_mul(1 << 20)
    }

    /// The kernel's CPU-time limit, seconds.
    fn cpu_seconds(&self) -> u64 {
        (self.timeout.ceil() as u64).saturating_mul(2) + 10
    }
}

/// Starts `exe ARGS` with `--sandbox --message-format json` and the limits, in `folder`, with
/// `text` written to its stdin by a helper thread.
pub fn spawn(
    exe: &Path,
    folder: &Path,
    args: &[String],
    limits: Limits,
    text: String,
) -> Result<Child, ServeError> {
    let mut words: Vec<String> = vec!["--sandbox".into(), "--message-format".into(), "json".into()];
    words.extend(limits.flags());
    words.extend(args.iter().cloned());
    let mut child = start(exe, folder, &words, limits)?;
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            // A child that exits early closes the pipe; that is not an error of the server.
            let _ = stdin.write_all(text.as_bytes());
        });
    }
    Ok(child)
}

/// Starts `exe WORDS` in `folder` in a process group of its own, with pipes for stdin, stdout
/// and stderr and the kernel's limits behind `limits` (the words state the limits themselves).
pub fn start(
    exe: &Path,
    folder: &Path,
    words: &[String],
    limits: Limits,
) -> Result<Child, ServeError> {
    let mut cmd = Command::new(exe);
    cmd.args(words)
        .current_dir(folder)
        .env_remove("IDP_NO_PROGRESS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let (space, cpu) = (limits.address_space_bytes(), limits.cpu_seconds());
    // SAFETY: the closure runs in the forked child before exec and only calls setrlimit,
    // which is async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || {
            set_limit(libc::RLIMIT_AS, space, space);
            set_limit(libc::RLIMIT_CPU, cpu, cpu + 5);
            Ok(())
        });
    }
    cmd.spawn()
        .map_err(|e| ServeError::Internal(format!("could not start {}: {e}", exe.display())))
}

fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) {
    let lim = libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: a plain system call on a valid struct.
    unsafe {
        libc::setrlimit(resource, &lim);
    }
}

/// Sends `signal` to the process group of a child that has not been reaped yet.
pub fn signal(pid: u32, signal: i32) {
    // SAFETY: a plain system call; the caller guarantees the child is not reaped, so the
    // group id still names it.
    unsafe {
        libc::kill(-(pid as i32), signal);
    }
}

/// The `idp` binary to start: this one.
pub fn current_exe() -> Result<PathBuf, ServeError> {
    std::env::current_exe()
        .map_err(|e| ServeError::Internal(format!("cannot find the idp binary: {e}")))
}

/// Words for how a child ended: its exit code (`idp`'s meanings) or the signal that killed it.
pub fn describe_exit(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(0), _) => "finished".into(),
        (Some(1), _) => "finished with an error (exit code 1)".into(),
        (Some(3), _) => "stopped (exit code 3)".into(),
        (Some(10), _) => "models found (exit code 10)".into(),
        (Some(20), _) => "no model (exit code 20)".into(),
        (Some(130), _) => "ended at once by a second Stop (exit code 130)".into(),
        (Some(c), _) => format!("finished (exit code {c})"),
        (None, Some(libc::SIGKILL)) => {
            "killed (SIGKILL: it outlived its limits, or something outside ended it)".into()
        }
        (None, Some(libc::SIGXCPU)) => "killed: CPU time limit".into(),
        (None, Some(libc::SIGABRT)) => "crashed (aborted; out of memory?)".into(),
        (None, Some(libc::SIGSEGV)) => "crashed (segmentation fault)".into(),
        (None, Some(s)) => format!("killed by signal {s}"),
        (None, None) => "ended".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_become_flags_and_backstops() {
        let l = Limits {
            timeout: 2.5,
            max_memory_mb: 100,
        };
        assert_eq!(l.flags(), ["--timeout", "2.5", "--max-memory", "100"]);
        assert_eq!(l.cpu_seconds(), 16);
        assert_eq!(l.address_space_bytes(), 2248 << 20);
        assert_eq!(l.kill_after().as_secs_f64(), 12.5);
    }

    #[test]
    fn exits_are_described() {
        assert_eq!(describe_exit(Some(20), None), "no model (exit code 20)");
        assert_eq!(
            describe_exit(None, Some(libc::SIGKILL)),
            "killed (SIGKILL: it outlived its limits, or something outside ended it)"
        );
    }
}
