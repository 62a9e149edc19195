//! Runs: each is a child `idp` (see [`super::child`]) watched by a supervisor thread that
//! gathers its output, reads the JSON lines on its stderr (progress, diagnostics), kills it if
//! it outlives its limits, and reaps it. At most `max_running` children run at once; later runs
//! wait in line, first come first served. Stop sends SIGINT (as Ctrl-C: the child prints what
//! it found and ends); a second Stop ends it at once, as a second Ctrl-C does. A run belongs
//! to the page that started it (ids are random; another page's requests find no such run), and
//! ends when that page closes or stops asking about it for [`ORPHAN_AFTER`].

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::Child;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::access::random_hex;
use super::child::{self, Limits};
use super::output::{self, Segment};
use super::wording::{for_page, stop_outcome};
use super::ServeError;

/// Output kept from the start of a run's stdout; past this only its last [`KEEP_END`] bytes.
const MAX_STDOUT: usize = 8 << 20;
const KEEP_END: usize = 64 << 10;
const MAX_STDERR: usize = 1 << 20;
/// How much of stdout a poll returns (the whole output comes cut into segments at the end).
const TAIL: usize = 4000;
/// Finished runs remembered for polling.
const KEEP_FINISHED: usize = 200;
/// Runs waiting for a free slot, at most.
const MAX_WAITING: usize = 200;
/// A run whose page has not asked about it for this long is ended (the page is gone; a
/// hidden page's timers may be slowed to one a minute).
pub const ORPHAN_AFTER: Duration = Duration::from_secs(75);

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
    slots: Arc<Slots>,
    jobs: Mutex<BTreeMap<String, Arc<Job>>>,
}

/// The slots for children, and the runs waiting for one (in order).
struct Slots {
    max_running: usize,
    state: Mutex<SlotState>,
    freed: Condvar,
}

#[derive(Default)]
struct SlotState {
    running: usize,
    /// The most children that ever ran at once.
    most_running: usize,
    waiting: VecDeque<String>,
}

/// One run.
pub struct Job {
    id: String,
    owner: String,
    created: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Whether the run holds a slot (from then on it is starting or running, not waiting).
    has_slot: bool,
    /// The child's process id, once started.
    pid: Option<u32>,
    started: Option<Instant>,
    last_seen: Option<Instant>,
    stdout: String,
    /// The last bytes of stdout past [`MAX_STDOUT`].
    stdout_end: String,
    stdout_truncated: bool,
    stderr: String,
    diagnostics: Vec<Value>,
    progress: String,
    stops: u32,
    /// Why the run was ended by the server (its page closed or went quiet, Stop before it
    /// started), if it was.
    cancelled: Option<String>,
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
    pub id: String,
    /// The child's process id (it leads its own process group); 0 while waiting.
    pub pid: u32,
    pub running: bool,
    /// Waiting for a free slot (a run that holds one and has no process id yet is starting).
    pub queued: bool,
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
            slots: Arc::new(Slots {
                max_running: max_running.max(1),
                state: Mutex::new(SlotState::default()),
                freed: Condvar::new(),
            }),
            jobs: Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts a run for page `owner` (now, or when a slot is free); its id is what the page
    /// polls.
    pub fn start(&self, spec: Spec, owner: &str) -> Result<String, ServeError> {
        let id = random_hex(8)?;
        // A free slot is taken at once: a run is never shown waiting while one is free (its
        // thread may start late on a busy machine).
        let has_slot = {
            let mut slots = lock(&self.slots.state);
            if slots.waiting.is_empty() && slots.running < self.slots.max_running {
                slots.running += 1;
                slots.most_running = slots.most_running.max(slots.running);
                true
            } else if slots.waiting.len() >= MAX_WAITING {
                return Err(ServeError::TooMany(format!(
                    "{} runs are waiting already; try again later",
                    slots.waiting.len()
                )));
            } else {
                slots.waiting.push_back(id.clone());
                false
            }
        };
        let job = Arc::new(Job {
            id: id.clone(),
            owner: owner.to_string(),
            created: Instant::now(),
            state: Mutex::new(State {
                has_slot,
                last_seen: Some(Instant::now()),
                ..State::default()
            }),
        });
        let mut jobs = lock(&self.jobs);
        jobs.insert(id.clone(), Arc::clone(&job));
        prune(&mut jobs);
        let (exe, slots) = (self.exe.clone(), Arc::clone(&self.slots));
        let spawned = std::thread::Builder::new().spawn(move || run(&job, spec, &exe, &slots));
        if let Err(e) = spawned {
            // Nothing will run it: out of the line (or its slot given back) and forgotten.
            jobs.remove(&id);
            let mut slots = lock(&self.slots.state);
            if has_slot {
                slots.running -= 1;
                self.slots.freed.notify_all();
            }
            slots.waiting.retain(|w| *w != id);
            return Err(ServeError::Internal(format!(
                "could not start the run: {e}"
            )));
        }
        Ok(id)
    }

    /// Run `id` of page `owner`; another page's run is not found either.
    pub fn get(&self, id: &str, owner: &str) -> Result<Arc<Job>, ServeError> {
        lock(&self.jobs)
            .get(id)
            .filter(|j| j.owner == owner)
            .cloned()
            .ok_or_else(|| ServeError::NotFound(format!("there is no run {id}")))
    }

    /// Ends every run of page `owner` (its page was closed); returns how many were going on.
    pub fn close_page(&self, owner: &str) -> usize {
        let jobs: Vec<Arc<Job>> = lock(&self.jobs)
            .values()
            .filter(|j| j.owner == owner)
            .cloned()
            .collect();
        jobs.iter()
            .filter(|j| j.cancel("cancelled: its page was closed"))
            .count()
    }

    /// (running or waiting, remembered) runs.
    pub fn counts(&self) -> (usize, usize) {
        let jobs = lock(&self.jobs);
        (jobs.values().filter(|j| j.is_running()).count(), jobs.len())
    }

    /// The slots taken now (children running).
    pub fn slots_taken(&self) -> usize {
        lock(&self.slots.state).running
    }

    /// The most children that ran at once since the server started.
    pub fn most_running(&self) -> usize {
        lock(&self.slots.state).most_running
    }
}

impl Job {
    pub fn is_running(&self) -> bool {
        lock(&self.state).exit.is_none()
    }

    /// As Ctrl-C: SIGINT to the child (a second one ends it at once); a run still waiting for
    /// a slot is dropped. False when it has already ended.
    pub fn stop(&self) -> bool {
        let mut st = lock(&self.state);
        if st.reaped || st.exit.is_some() {
            return false;
        }
        st.stops += 1;
        match st.pid {
            Some(pid) => child::signal(pid, libc::SIGINT),
            None => st.cancelled = Some("stopped before it started".into()),
        }
        true
    }

    /// Ends the run at once (SIGKILL), saying why; false when it has already ended.
    fn cancel(&self, why: &str) -> bool {
        let mut st = lock(&self.state);
        if st.reaped || st.exit.is_some() {
            return false;
        }
        st.cancelled.get_or_insert_with(|| why.to_string());
        if let Some(pid) = st.pid {
            child::signal(pid, libc::SIGKILL);
        }
        true
    }

    /// Whether the page has not asked about the run for [`ORPHAN_AFTER`].
    fn orphaned(&self) -> bool {
        page_gone(&lock(&self.state))
    }

    /// The run's state; notes that its page is still there.
    pub fn status(&self) -> Status {
        let mut st = lock(&self.state);
        st.last_seen = Some(Instant::now());
        let running = st.exit.is_none();
        let elapsed = match (&st.exit, st.started) {
            (Some(e), _) => e.seconds,
            (None, Some(t)) => t.elapsed().as_secs_f64(),
            (None, None) => 0.0,
        };
        Status {
            id: self.id.clone(),
            pid: st.pid.unwrap_or(0),
            running,
            queued: running && !st.has_slot,
            elapsed,
            progress: st.progress.clone(),
            stdout: tail(latest(&st), TAIL).to_string(),
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

    /// Records how the run ended (the output has been read to its end).
    fn finish(&self, code: Option<i32>, signal: Option<i32>) {
        let mut st = lock(&self.state);
        let whole = whole_stdout(&st);
        st.segments = output::segments(&whole);
        // The segments hold what the page shows; a poll returns only the end of the text.
        st.stdout = tail(&whole, TAIL).to_string();
        st.stdout_end = String::new();
        let description = match (&st.cancelled, code) {
            (Some(why), _) => why.clone(),
            (None, Some(3)) => stop_outcome(&st.stderr)
                .map_or_else(|| child::describe_exit(code, signal), str::to_string),
            (None, _) => child::describe_exit(code, signal),
        };
        let seconds = st.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        st.exit = Some(Exit {
            code,
            signal,
            description,
            seconds,
        });
    }
}

/// Waits for a slot, runs the child, and frees the slot as soon as the child has ended (before
/// its output is gathered, so that a page that sees the run over never finds its slot taken).
fn run(job: &Arc<Job>, spec: Spec, exe: &std::path::Path, slots: &Slots) {
    let has_slot = lock(&job.state).has_slot;
    if !has_slot && !wait_for_slot(job, slots) {
        job.finish(None, None);
        return;
    }
    let slot = Slot(slots);
    lock(&job.state).has_slot = true;
    // Stopped while its thread was starting: the slot is given back at once.
    if lock(&job.state).cancelled.is_some() {
        drop(slot);
        job.finish(None, None);
        return;
    }
    match child::spawn(exe, &spec.folder, &spec.args, spec.limits, spec.text) {
        Ok(mut child) => {
            {
                let mut st = lock(&job.state);
                st.pid = Some(child.id());
                st.started = Some(Instant::now());
            }
            let readers = start_readers(job, &mut child);
            let (code, signal) = reap(job, child, spec.limits.kill_after());
            drop(slot);
            for r in readers {
                let _ = r.join();
            }
            job.finish(code, signal);
        }
        Err(e) => {
            {
                let mut st = lock(&job.state);
                push_stderr(&mut st, &format!("Error: {e}\n"));
                st.cancelled = Some("not started: the server could not start idp".into());
            }
            drop(slot);
            job.finish(None, None);
        }
    }
}

/// A slot taken by a run: freed when dropped.
struct Slot<'s>(&'s Slots);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).running -= 1;
        self.0.freed.notify_all();
    }
}

/// Waits until the run is first in line and a slot is free (true), or until it is stopped
/// or its page is gone (false).
fn wait_for_slot(job: &Job, slots: &Slots) -> bool {
    let mut state = lock(&slots.state);
    loop {
        if job.orphaned() {
            job.cancel("cancelled: its page was closed");
        }
        if lock(&job.state).cancelled.is_some() {
            state.waiting.retain(|id| *id != job.id);
            drop(state);
            slots.freed.notify_all();
            return false;
        }
        if state.waiting.front() == Some(&job.id) && state.running < slots.max_running {
            state.waiting.pop_front();
            state.running += 1;
            state.most_running = state.most_running.max(state.running);
            return true;
        }
        state = slots
            .freed
            .wait_timeout(state, Duration::from_millis(100))
            .map(|(s, _)| s)
            .unwrap_or_else(|e| e.into_inner().0);
    }
}

/// The output printed last: past [`MAX_STDOUT`], the kept end.
fn latest(st: &State) -> &str {
    if st.stdout_end.is_empty() {
        &st.stdout
    } else {
        &st.stdout_end
    }
}

/// Whether the run's page has not asked about it for [`ORPHAN_AFTER`].
fn page_gone(st: &State) -> bool {
    st.last_seen.is_some_and(|t| t.elapsed() > ORPHAN_AFTER)
}

/// The stdout kept: its start, and its end when the middle was dropped.
fn whole_stdout(st: &State) -> String {
    if st.stdout_end.is_empty() {
        return st.stdout.clone();
    }
    // Both are cut at blank lines (between models), so that no part of a model is read as
    // text or joined to another; output without blank lines is cut at line ends.
    let head = &st.stdout;
    let head = head
        .rfind("\n\n")
        .map(|k| k + 2)
        .or_else(|| head.rfind('\n').map(|k| k + 1))
        .map_or("", |k| &head[..k]);
    let end = &st.stdout_end;
    let end = end
        .find("\n\n")
        .map(|k| k + 2)
        .or_else(|| end.find('\n').map(|k| k + 1))
        .map_or("", |k| &end[k..]);
    format!("{head}{end}")
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
fn prune(jobs: &mut BTreeMap<String, Arc<Job>>) {
    let mut finished: Vec<(Instant, String)> = jobs
        .values()
        .filter(|j| !j.is_running())
        .map(|j| (j.created, j.id.clone()))
        .collect();
    finished.sort();
    for (_, id) in finished
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
    if !st.stdout_truncated && st.stdout.len() + text.len() <= MAX_STDOUT {
        st.stdout.push_str(text);
        return;
    }
    st.stdout_truncated = true;
    st.stdout_end.push_str(text);
    if st.stdout_end.len() > 2 * KEEP_END {
        let keep = tail(&st.stdout_end, KEEP_END).to_string();
        st.stdout_end = keep;
    }
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
                    let text = format!("{}\n", for_page(v["text"].as_str().unwrap_or("")));
                    push_stderr(&mut st, &text);
                    st.diagnostics.push(v);
                    return;
                }
                _ => {}
            }
        }
    }
    push_stderr(&mut st, &for_page(line));
}

fn push_stderr(st: &mut State, text: &str) {
    if st.stderr.len() + text.len() <= MAX_STDERR {
        st.stderr.push_str(text);
    }
}

/// Waits for the child (killing it once `kill_after` has passed, or when its page is gone)
/// and reaps it; returns its exit code and signal.
fn reap(job: &Job, mut child: Child, kill_after: Duration) -> (Option<i32>, Option<i32>) {
    let started = Instant::now();
    let mut killed = false;
    loop {
        {
            let mut st = lock(&job.state);
            match child.try_wait() {
                Ok(Some(status)) => {
                    use std::os::unix::process::ExitStatusExt;
                    st.reaped = true;
                    return (status.code(), status.signal());
                }
                Ok(None) => {}
                Err(_) => {
                    // Cannot happen for our own child; end it rather than leave it behind.
                    let _ = child.kill();
                    let _ = child.wait();
                    st.reaped = true;
                    return (None, None);
                }
            }
            if page_gone(&st) {
                st.cancelled
                    .get_or_insert_with(|| "cancelled: its page was closed".into());
            }
            // Cancelled while it was being started, or since.
            if !killed && (started.elapsed() > kill_after || st.cancelled.is_some()) {
                child::signal(child.id(), libc::SIGKILL);
                killed = true;
            }
        }
        std::thread::sleep(Duration::from_millis(40));
    }
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
    fn a_cut_output_keeps_whole_models_and_lines() {
        let st = State {
            stdout: "Model 1\n{\n}\n\nModel 2\n{\n".into(),
            stdout_end: "}\n\nModel 9\n{\n}\n".into(),
            ..State::default()
        };
        assert_eq!(whole_stdout(&st), "Model 1\n{\n}\n\nModel 9\n{\n}\n");
        let st = State {
            stdout: "line 1\nline 2\nli".into(),
            stdout_end: "ne 8\nline 9\n".into(),
            ..State::default()
        };
        assert_eq!(whole_stdout(&st), "line 1\nline 2\nline 9\n");
    }

    #[test]
    fn tails_stay_on_character_boundaries() {
        assert_eq!(tail("héllo", 4), "llo");
        assert_eq!(tail("ab", 10), "ab");
    }
}
