//! Runs: each is a child `idp` (see [`super::child`]) watched by a supervisor thread that
//! gathers its output, reads the JSON lines on its stderr (progress, diagnostics), kills it if
//! it outlives its limits, and reaps it. Stop sends SIGINT (as Ctrl-C: the child prints what
//! it found and ends); a second Stop ends it at once, as a second Ctrl-C does.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::child::{self, Limits};
use super::output::{self, Segment};
use super::ServeError;

/// Output kept per run; past this the rest is read and dropped.
const MAX_STDOUT: usize = 8 << 20;
const MAX_STDERR: usize = 1 << 20;
/// How much of stdout a poll of a running job returns.
const TAIL: usize = 4000;
/// Finished runs remembered for polling.
const KEEP_FINISHED: usize = 200;

/// What to run: the arguments after the limits, in the specification's folder.
pub struct Spec {
    pub folder: PathBuf,
    pub args: Vec<String>,
    pub text: String,
    pub limits: Limits,
}

/// All runs of the server.
pub struct Jobs {
    exe: PathBuf,
    max_running: usize,
    next_id: AtomicU64,
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
}

/// One run.
pub struct Job {
    id: u64,
    pid: u32,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    stdout: String,
    stdout_truncated: bool,
    stderr: String,
    diagnostics: Vec<Value>,
    progress: String,
    stops: u32,
    /// Set under this lock as the child is reaped: from then on its process id may name
    /// another process, so no signal is sent.
    reaped: bool,
    /// Set when the output has been read to its end after the child was reaped.
    exit: Option<Exit>,
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, Serialize)]
struct Exit {
    code: Option<i32>,
    signal: Option<i32>,
    description: String,
    seconds: f64,
}

/// What a poll answers.
#[derive(Serialize)]
pub struct Status {
    pub id: u64,
    /// The child's process id (it leads its own process group).
    pub pid: u32,
    pub running: bool,
    pub elapsed: f64,
    pub progress: String,
    pub stdout: String,
    pub stdout_truncated: bool,
    pub stderr: String,
    pub diagnostics: Vec<Value>,
    pub stops: u32,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub outcome: Option<String>,
    pub segments: Vec<Segment>,
}

impl Jobs {
    pub fn new(exe: PathBuf, max_running: usize) -> Jobs {
        Jobs {
            exe,
            max_running,
            next_id: AtomicU64::new(1),
            jobs: Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts a run; its id is what the page polls.
    pub fn start(&self, spec: Spec) -> Result<u64, ServeError> {
        let mut jobs = lock(&self.jobs);
        let running = jobs.values().filter(|j| j.is_running()).count();
        if running >= self.max_running {
            return Err(ServeError::TooMany(format!(
                "{running} runs are going on already (at most {}); stop one or wait",
                self.max_running
            )));
        }
        let mut child = child::spawn(&self.exe, &spec.folder, &spec.args, spec.limits, spec.text)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            id,
            pid: child.id(),
            started: Instant::now(),
            state: Mutex::new(State::default()),
        });
        let readers = start_readers(&job, &mut child);
        let watched = Arc::clone(&job);
        let kill_after = spec.limits.kill_after();
        std::thread::spawn(move || supervise(&watched, child, readers, kill_after));
        jobs.insert(id, job);
        prune(&mut jobs);
        Ok(id)
    }

    pub fn get(&self, id: u64) -> Result<Arc<Job>, ServeError> {
        lock(&self.jobs)
            .get(&id)
            .cloned()
            .ok_or_else(|| ServeError::NotFound(format!("there is no run {id}")))
    }

    /// (running, remembered) runs.
    pub fn counts(&self) -> (usize, usize) {
        let jobs = lock(&self.jobs);
        (jobs.values().filter(|j| j.is_running()).count(), jobs.len())
    }
}

impl Job {
    pub fn is_running(&self) -> bool {
        lock(&self.state).exit.is_none()
    }

    /// As Ctrl-C: SIGINT to the child (a second one ends it at once). False when it has
    /// already ended.
    pub fn stop(&self) -> bool {
        let mut st = lock(&self.state);
        if st.reaped {
            return false;
        }
        st.stops += 1;
        child::signal(self.pid, libc::SIGINT);
        true
    }

    pub fn status(&self) -> Status {
        let st = lock(&self.state);
        let running = st.exit.is_none();
        let stdout = if running {
            tail(&st.stdout, TAIL).to_string()
        } else {
            st.stdout.clone()
        };
        Status {
            id: self.id,
            pid: self.pid,
            running,
            elapsed: st
                .exit
                .as_ref()
                .map(|e| e.seconds)
                .unwrap_or_else(|| self.started.elapsed().as_secs_f64()),
            progress: st.progress.clone(),
            stdout,
            stdout_truncated: st.stdout_truncated,
            stderr: st.stderr.clone(),
            diagnostics: st.diagnostics.clone(),
            stops: st.stops,
            exit_code: st.exit.as_ref().and_then(|e| e.code),
            signal: st.exit.as_ref().and_then(|e| e.signal),
            outcome: st.exit.as_ref().map(|e| e.description.clone()),
            segments: st.segments.clone(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A reader thread that panicked leaves the data usable; never poison the server.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The end of `s`, at most `n` bytes, on a character boundary.
fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Drops the oldest finished runs beyond [`KEEP_FINISHED`].
fn prune(jobs: &mut BTreeMap<u64, Arc<Job>>) {
    let finished: Vec<u64> = jobs
        .iter()
        .filter(|(_, j)| !j.is_running())
        .map(|(id, _)| *id)
        .collect();
    for id in finished
        .iter()
        .take(finished.len().saturating_sub(KEEP_FINISHED))
    {
        jobs.remove(id);
    }
}

type Readers = Vec<std::thread::JoinHandle<()>>;

/// Threads that read the child's stdout and stderr into the job's state.
fn start_readers(job: &Arc<Job>, child: &mut Child) -> Readers {
    let mut handles = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        let job = Arc::clone(job);
        handles.push(std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            let mut pending = Vec::new();
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(&buf[..n]);
                let text = take_utf8(&mut pending);
                append_stdout(&job, &text);
            }
            append_stdout(&job, &String::from_utf8_lossy(&pending));
        }));
    }
    if let Some(err) = child.stderr.take() {
        let job = Arc::clone(job);
        handles.push(std::thread::spawn(move || {
            let mut reader = BufReader::new(err);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                stderr_line(&job, &String::from_utf8_lossy(&line));
                line.clear();
            }
        }));
    }
    handles
}

/// The longest valid UTF-8 prefix of `pending` (removed from it); an incomplete character at
/// the end waits for the next read, invalid bytes become U+FFFD.
fn take_utf8(pending: &mut Vec<u8>) -> String {
    let valid = match std::str::from_utf8(pending) {
        Ok(_) => pending.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => pending.len(),
    };
    let rest = pending.split_off(valid);
    let text = String::from_utf8_lossy(pending).into_owned();
    *pending = rest;
    text
}

fn append_stdout(job: &Job, text: &str) {
    let mut st = lock(&job.state);
    if st.stdout.len() + text.len() > MAX_STDOUT {
        st.stdout_truncated = true;
        return;
    }
    st.stdout.push_str(text);
}

/// One line of stderr: a JSON line of `--message-format json`, or text shown as it is.
fn stderr_line(job: &Job, line: &str) {
    let mut st = lock(&job.state);
    if line.trim_end() == "(Reading from stdin)" {
        return;
    }
    if line.starts_with("{\"$idp\"") {
        if let Ok(v) = serde_json::from_str::<Value>(line) {
            match v["$idp"].as_str() {
                Some("progress") => {
                    st.progress = v["text"].as_str().unwrap_or("").to_string();
                    return;
                }
                Some("summary") => return,
                Some("diagnostic") => {
                    let text = format!("{}\n", v["text"].as_str().unwrap_or(""));
                    push_stderr(&mut st, &text);
                    st.diagnostics.push(v);
                    return;
                }
                _ => {}
            }
        }
    }
    push_stderr(&mut st, line);
}

fn push_stderr(st: &mut State, text: &str) {
    if st.stderr.len() + text.len() <= MAX_STDERR {
        st.stderr.push_str(text);
    }
}

/// Waits for the child (killing it once `kill_after` has passed), then records how it ended
/// and cuts its output into segments.
fn supervise(job: &Job, mut child: Child, readers: Readers, kill_after: Duration) {
    let mut killed = false;
    let (code, signal) = loop {
        {
            let mut st = lock(&job.state);
            match child.try_wait() {
                Ok(Some(status)) => {
                    use std::os::unix::process::ExitStatusExt;
                    st.reaped = true;
                    break (status.code(), status.signal());
                }
                Ok(None) => {}
                Err(_) => {
                    // Cannot happen for our own child; end it rather than leave it behind.
                    let _ = child.kill();
                    let _ = child.wait();
                    st.reaped = true;
                    break (None, None);
                }
            }
            if !killed && job.started.elapsed() > kill_after {
                child::signal(job.pid, libc::SIGKILL);
                killed = true;
            }
        }
        std::thread::sleep(Duration::from_millis(40));
    };
    for r in readers {
        let _ = r.join();
    }
    let mut st = lock(&job.state);
    st.segments = output::segments(&st.stdout);
    st.exit = Some(Exit {
        code,
        signal,
        description: child::describe_exit(code, signal),
        seconds: job.started.elapsed().as_secs_f64(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_reads_is_joined() {
        let bytes = "aé".as_bytes();
        let mut pending = bytes[..2].to_vec();
        assert_eq!(take_utf8(&mut pending), "a");
        assert_eq!(pending, [0xc3]);
        pending.push(bytes[2]);
        assert_eq!(take_utf8(&mut pending), "é");
        assert!(pending.is_empty());
    }

    #[test]
    fn tails_stay_on_character_boundaries() {
        assert_eq!(tail("héllo", 4), "llo");
        assert_eq!(tail("ab", 10), "ab");
    }
}
