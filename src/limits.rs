//! Limits that stop a run cleanly, with a message and [`EXIT_LIMIT`], instead of a kill: the
//! wall time of the whole run (`--timeout`), the memory of the process (`--max-memory`) and
//! Ctrl-C. (The grounding size limit lives in the grounder; `stdoptions.timeout` limits one
//! inference.)
//!
//! A [`Run`] holds one run's limits and stop state (and its progress [`Meter`]); nothing here
//! is process-wide, so two runs in one process (two problems on two threads, a server's
//! requests) stop and time out apart. The grounder, the SAT solver's terminate callback and a
//! Lua instruction hook all poll their run ([`Run::check`], [`Until`]), which fails with an
//! [`Error`] of kind [`ErrorKind::Limit`] (so the command line tells a stop from any other
//! error by its kind); a watchdog thread ([`Run::start_watchdog`]) ends the process when a
//! step that makes no checks (reading a huge input) goes on past a limit. An inference that
//! stops after it found some models returns them and notes a partial result
//! ([`Run::partial`]) instead; the interactive shell forgets a stop after the command it
//! ended ([`Run::forget_stop`]). The Ctrl-C handler, which must reach a run from a signal, is
//! the command line's.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use crate::error::{Error, Limit};
use crate::progress::Meter;

/// The exit code of a run that a limit stopped (errors exit with 1; `--models` uses 10 and 20).
pub const EXIT_LIMIT: i32 = 3;

/// The exit code after a second Ctrl-C, which ends the process at once (128 + SIGINT).
pub const EXIT_KILLED: i32 = 130;

/// How long Lua code may go on after an inference returned a partial result (so that it can
/// print it) before the instruction hook stops it too.
const GRACE_AFTER_PARTIAL: Duration = Duration::from_secs(5);

/// How long Lua code that catches the limit error (`pcall`) may go on before the hook ends the
/// process.
const GRACE_AFTER_STOP: Duration = Duration::from_secs(1);

/// The process's memory is read at most this often.
const MEMORY_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// How long work may go on after a limit was reached before the watchdog ends the process
/// itself. Work that polls the limits (grounding, search, Lua) stops well within it; reading
/// and resolving a huge input, or a call into a SAT back end that cannot be interrupted, may
/// not.
const WATCHDOG_GRACE: Duration = Duration::from_secs(2);

/// A limit that has been reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// Ctrl-C was pressed.
    Interrupted,
    /// The wall time of the run (`--timeout`) is over.
    RunTimeout(f64),
    /// The time of one inference (`stdoptions.timeout`) is over.
    InferenceTimeout,
    /// The process uses more memory than allowed: (used, limit) in MB.
    Memory(u64, u64),
}

impl Stop {
    /// The kind of limit, for the error's kind.
    pub fn limit(&self) -> Limit {
        match self {
            Stop::Interrupted => Limit::Interrupted,
            Stop::RunTimeout(_) => Limit::RunTimeout,
            Stop::InferenceTimeout => Limit::InferenceTimeout,
            Stop::Memory(..) => Limit::Memory,
        }
    }

    /// The error for this stop, saying what was being done.
    pub fn error(&self, during: &str) -> Error {
        Error::limit(self.limit(), self.message(during))
    }

    /// What was reached, with how to raise it: `timeout: ...`, `memory: ...`, `interrupted ...`.
    pub fn reason(&self) -> String {
        match self {
            Stop::Interrupted => "interrupted (Ctrl-C)".into(),
            Stop::RunTimeout(secs) => format!(
                "timeout: the time limit of {secs} s (--timeout) was reached; raise it with \
                 --timeout SECONDS"
            ),
            Stop::InferenceTimeout => {
                "timeout: the time limit (stdoptions.timeout) was reached; raise \
                 stdoptions.timeout"
                    .into()
            }
            Stop::Memory(used, max) => format!(
                "memory: the process uses {used} MB, more than the memory limit of {max} MB; \
                 raise it with --max-memory MB"
            ),
        }
    }

    /// The message of an error for this stop, saying what was being done (`"grounding"`,
    /// `"searching"`, `"running a procedure"`).
    pub fn message(&self, during: &str) -> String {
        self.with_context(&format!("while {during}"))
    }

    /// The reason with `context` (such as `after 3 models`) inserted before the hint on how to
    /// raise the limit.
    pub fn with_context(&self, context: &str) -> String {
        let reason = self.reason();
        match reason.split_once("; ") {
            Some((what, how)) => format!("{what} {context}; {how}"),
            None => format!("{reason} {context}"),
        }
    }
}

/// The earlier of two optional deadlines.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The default memory limit: three quarters of the physical memory (from `/proc/meminfo`), so
/// that a runaway grounding stops with a message before the system kills it.
pub fn default_max_memory_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024 * 3 / 4)
}

/// The resident memory of the process in bytes (from `/proc/self/statm`), if known.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as u64
    } else {
        4096
    }
}

/// One run: its limits, whether it was asked to stop, what it kept at a stop, and its
/// progress [`Meter`]. Everything that grounds, searches or runs a procedure for the run holds
/// a clone (they share one state), so two runs in one process stop, time out and count apart.
#[derive(Clone, Debug, Default)]
pub struct Run(Arc<RunState>);

#[derive(Debug, Default)]
struct RunState {
    /// The wall-time limit of the whole run: when it ends and how many seconds it was.
    deadline: Mutex<Option<(Instant, f64)>>,
    /// What the run is doing, for the watchdog's message (`while reading the input`).
    phase: Mutex<&'static str>,
    /// The memory limit in bytes (0: none).
    max_memory: AtomicU64,
    /// The resident memory seen at the last check, and when that check was (in milliseconds
    /// since `created`).
    last_rss: AtomicU64,
    last_rss_at: AtomicU64,
    /// When the run's state was made.
    created: OnceLock<Instant>,
    /// Whether the memory limit was exceeded (it stays exceeded: the run is being stopped).
    memory_exceeded: AtomicBool,
    /// Whether the run was asked to stop (Ctrl-C, a client's Stop).
    interrupted: AtomicBool,
    /// Whether some work has seen a limit and is stopping.
    stop_seen: AtomicBool,
    /// The note of an inference that a limit stopped after it found a partial result, and
    /// when.
    partial: Mutex<Option<(String, Instant)>>,
    /// How many hand-overs of results are going on (a list of models made into Lua values,
    /// `printmodels` printing them): neither the Lua hook nor the watchdog stops them, so that
    /// every model kept at a stop reaches the user, whole.
    delivering: AtomicUsize,
    /// When the Lua hook first raised a limit error.
    lua_stopped_at: Mutex<Option<Instant>>,
    /// What the run's inferences are doing, for a progress line.
    meter: Meter,
}

/// A lock that a panic elsewhere does not poison for the limits.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Run {
    /// A run without limits whose progress is shown as `meter` says.
    pub fn new(meter: Meter) -> Run {
        Run(Arc::new(RunState {
            meter,
            ..RunState::default()
        }))
    }

    /// The run's progress meter.
    pub fn meter(&self) -> &Meter {
        &self.0.meter
    }

    /// Sets the wall-time limit of the whole run, counted from now.
    pub fn set_timeout(&self, seconds: f64) {
        let until = Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
        *lock(&self.0.deadline) = Some((until, seconds));
    }

    /// When the run must stop (`--timeout`), if it has a limit.
    pub fn deadline(&self) -> Option<Instant> {
        lock(&self.0.deadline).map(|(until, _)| until)
    }

    /// Sets the memory limit in MB (0: none).
    pub fn set_max_memory_mb(&self, mb: u64) {
        self.0
            .max_memory
            .store(mb.saturating_mul(1 << 20), Ordering::Relaxed);
    }

    /// Milliseconds since the run's state was made (never 0).
    fn elapsed_ms(&self) -> u64 {
        let created = *self.0.created.get_or_init(Instant::now);
        created.elapsed().as_millis() as u64 + 1
    }

    /// Whether the process exceeds the run's memory limit; reads the memory at most every
    /// 100 ms, so this is cheap enough to call often.
    pub fn memory_exceeded(&self) -> Option<Stop> {
        let s = &self.0;
        let max = s.max_memory.load(Ordering::Relaxed);
        if max == 0 {
            return None;
        }
        let now = self.elapsed_ms();
        let last = s.last_rss_at.load(Ordering::Relaxed);
        if !s.memory_exceeded.load(Ordering::Relaxed)
            && now.saturating_sub(last) >= MEMORY_CHECK_INTERVAL.as_millis() as u64
        {
            s.last_rss_at.store(now, Ordering::Relaxed);
            if let Some(rss) = resident_bytes() {
                s.last_rss.store(rss, Ordering::Relaxed);
                if rss > max {
                    s.memory_exceeded.store(true, Ordering::Relaxed);
                }
            }
        }
        s.memory_exceeded
            .load(Ordering::Relaxed)
            .then(|| Stop::Memory(s.last_rss.load(Ordering::Relaxed) >> 20, max >> 20))
    }

    /// The limit that has been reached, if any: the memory limit once exceeded (it stays the
    /// reason: a Ctrl-C or Stop pressed while the run is stopping for memory does not hide
    /// it), Ctrl-C, the run's wall time, the inference's deadline `local` (from
    /// `stdoptions.timeout`), or the memory limit.
    pub fn reached(&self, local: Option<Instant>) -> Option<Stop> {
        if self.0.memory_exceeded.load(Ordering::Relaxed) {
            return self.memory_exceeded();
        }
        if self.interrupted() {
            return Some(Stop::Interrupted);
        }
        let now = Instant::now();
        if let Some((until, secs)) = *lock(&self.0.deadline) {
            if now >= until {
                return Some(Stop::RunTimeout(secs));
            }
        }
        if local.is_some_and(|d| now >= d) {
            return Some(Stop::InferenceTimeout);
        }
        self.memory_exceeded()
    }

    /// A limit error when a limit has been reached, saying what was being done; notes that
    /// work is stopping.
    pub fn check(&self, local: Option<Instant>, during: &str) -> Result<(), Error> {
        match self.reached(local) {
            None => Ok(()),
            Some(stop) => Err(self.stop_error(&stop, during)),
        }
    }

    /// The error for `stop`, saying what was being done; notes that work is stopping.
    fn stop_error(&self, stop: &Stop, during: &str) -> Error {
        self.0.stop_seen.store(true, Ordering::Relaxed);
        stop.error(during)
    }

    /// The run's limits with an inference's own deadline, for work that polls them.
    pub fn until(&self, local: Option<Instant>) -> Until {
        Until {
            run: self.clone(),
            local,
        }
    }

    /// Asks the run's work to stop (Ctrl-C, a client's Stop).
    pub fn interrupt(&self) {
        self.0.interrupted.store(true, Ordering::SeqCst);
    }

    /// Whether the run was asked to stop (and that was not yet forgotten by
    /// [`Run::forget_stop`]).
    pub fn interrupted(&self) -> bool {
        self.0.interrupted.load(Ordering::SeqCst)
    }

    /// Notes that an inference stopped by a limit returned what it had found so far.
    pub fn note_partial(&self, note: String) {
        *lock(&self.0.partial) = Some((note, Instant::now()));
    }

    /// The note of the last inference that returned a partial result, if any.
    pub fn partial(&self) -> Option<String> {
        lock(&self.0.partial).as_ref().map(|(note, _)| note.clone())
    }

    /// Says that results are being handed over (`on`: made into Lua values, printed), or that
    /// one such hand-over is over. While one is going on, no limit stops the run (a second
    /// Ctrl-C still ends it at once); when the last is over, the grace after a partial result
    /// starts again. Work proportional to the results found, which a stop must not cut off.
    pub fn set_delivering(&self, on: bool) {
        if on {
            self.0.delivering.fetch_add(1, Ordering::SeqCst);
            return;
        }
        let before = self
            .0
            .delivering
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(1))
            });
        if before == Ok(1) {
            if let Some((_, at)) = lock(&self.0.partial).as_mut() {
                *at = Instant::now();
            }
        }
    }

    /// Hands results over until the guard is dropped (see [`Run::set_delivering`]).
    pub fn delivering(&self) -> Delivering {
        self.set_delivering(true);
        Delivering(self.clone())
    }

    fn is_delivering(&self) -> bool {
        self.0.delivering.load(Ordering::SeqCst) > 0
    }

    /// The check of the Lua instruction hook: an error when a limit has been reached (after a
    /// grace period when an inference just returned a partial result, so that it can be
    /// printed). Lua code that catches the error and goes on is ended after a second with the
    /// same message and [`EXIT_LIMIT`].
    pub fn lua_check(&self) -> Result<(), Error> {
        if self.is_delivering() {
            return Ok(());
        }
        let Some(stop) = self.reached(None) else {
            return Ok(());
        };
        let partial_at = lock(&self.0.partial).as_ref().map(|(_, at)| *at);
        if partial_at.is_some_and(|at| at.elapsed() < GRACE_AFTER_PARTIAL) {
            return Ok(());
        }
        let error = self.stop_error(&stop, "running a procedure");
        let mut first = lock(&self.0.lua_stopped_at);
        match *first {
            Some(at) if at.elapsed() >= GRACE_AFTER_STOP => exit_now(error.message()),
            Some(_) => {}
            None => *first = Some(Instant::now()),
        }
        Err(error)
    }

    /// Forgets a limit that stopped one command of the interactive shell (Ctrl-C), so that
    /// the next command starts afresh. The wall-time and memory limits stay: they hold for
    /// the run.
    pub fn forget_stop(&self) {
        self.0.interrupted.store(false, Ordering::SeqCst);
        self.0.stop_seen.store(false, Ordering::Relaxed);
        *lock(&self.0.partial) = None;
        *lock(&self.0.lua_stopped_at) = None;
    }

    /// Says what the run is doing from now on (`"reading the input"`, `"running a
    /// procedure"`).
    pub fn set_phase(&self, phase: &'static str) {
        *lock(&self.0.phase) = phase;
    }

    /// Starts the run's watchdog: a thread that checks the limits ten times a second and,
    /// when one has been reached and the work has not stopped within [`WATCHDOG_GRACE`]
    /// (longer when the work is already stopping: printing a partial result, a procedure
    /// handling the stop), ends the process with the limit's message and [`EXIT_LIMIT`]; it
    /// also ends the process quietly when `watch_stdout` and stdout's reader is gone. It backs
    /// up the checks in the work itself, for the steps that make none. The thread ends with
    /// the run. For a process that is one run (the command line).
    pub fn start_watchdog(&self, watch_stdout: bool) {
        let run = Arc::downgrade(&self.0);
        let spawned = std::thread::Builder::new()
            .name("idp-watchdog".into())
            .spawn(move || watch(run, watch_stdout));
        // Without the thread the limits are still checked by the work itself.
        drop(spawned);
    }

    /// Whether the work has seen a limit and is stopping (a limit error was made or a partial
    /// result noted).
    fn stopping(&self) -> bool {
        self.0.stop_seen.load(Ordering::Relaxed) || lock(&self.0.partial).is_some()
    }
}

/// A hand-over of results that no limit stops, until dropped ([`Run::delivering`]).
#[must_use = "the hand-over ends when the guard is dropped"]
pub struct Delivering(Run);

impl Drop for Delivering {
    fn drop(&mut self) {
        self.0.set_delivering(false);
    }
}

/// A run's limits together with one inference's own deadline: what the grounder and the SAT
/// solvers poll.
#[derive(Clone, Debug, Default)]
pub struct Until {
    run: Run,
    local: Option<Instant>,
}

impl Until {
    /// A limit error when a limit has been reached, saying what was being done.
    pub fn check(&self, during: &str) -> Result<(), Error> {
        self.run.check(self.local, during)
    }

    /// Whether work should stop now (for a solver's terminate callback).
    pub fn reached(&self) -> bool {
        self.run.reached(self.local).is_some()
    }

    /// The earlier of the inference's deadline and the run's.
    pub fn deadline(&self) -> Option<Instant> {
        earliest(self.local, self.run.deadline())
    }

    /// The same run with the inference's deadline `local` instead.
    pub fn with_local(&self, local: Option<Instant>) -> Until {
        self.run.until(local)
    }

    /// The run.
    pub fn run(&self) -> &Run {
        &self.run
    }
}

fn watch(run: Weak<RunState>, watch_stdout: bool) {
    let mut reached_at: Option<Instant> = None;
    loop {
        std::thread::sleep(MEMORY_CHECK_INTERVAL);
        if watch_stdout && stdout_reader_gone() {
            end_by_sigpipe();
        }
        let Some(run) = run.upgrade().map(Run) else {
            return;
        };
        let Some(stop) = run.reached(None) else {
            reached_at = None;
            continue;
        };
        if run.is_delivering() {
            // The grace starts again when the kept results have been printed.
            reached_at = None;
            continue;
        }
        let since = *reached_at.get_or_insert_with(Instant::now);
        let grace = if run.stopping() {
            WATCHDOG_GRACE + GRACE_AFTER_PARTIAL + GRACE_AFTER_STOP
        } else {
            WATCHDOG_GRACE
        };
        if since.elapsed() >= grace {
            let phase = *lock(&run.0.phase);
            exit_now(&stop.message(if phase.is_empty() { "running" } else { phase }));
        }
    }
}

/// Ends the process with [`EXIT_LIMIT`] after printing `Stopped: message` (flushing what Lua
/// printed first).
fn exit_now(message: &str) -> ! {
    // SAFETY: fflush(NULL) flushes every C stream (Lua's io.stdout included).
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
    eprintln!("Stopped: {message}");
    std::process::exit(EXIT_LIMIT);
}

/// Makes a write to a closed pipe end the process quietly, as it ends any Unix tool (`idp ...
/// | head`): Rust ignores SIGPIPE, so that such a write would fail and `println!` panic.
pub fn end_on_closed_pipe() {
    // SAFETY: restoring a signal's default disposition has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Whether stdout is a pipe (or socket) whose reader has closed it: a long search that prints
/// nothing for a while must not go on for a reader that is gone.
fn stdout_reader_gone() -> bool {
    // SAFETY: fstat and poll only write into the structures given, which are valid.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) != 0 {
            return false;
        }
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
            return false;
        }
        let mut fd = libc::pollfd {
            fd: 1,
            events: 0,
            revents: 0,
        };
        libc::poll(&mut fd, 1, 0) > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
    }
}

/// Ends the process as a write to the closed pipe would: by SIGPIPE, with no message.
fn end_by_sigpipe() -> ! {
    // SAFETY: signal and raise have no preconditions; _exit is the fallback.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
        libc::_exit(128 + libc::SIGPIPE)
    }
}

/// CPU seconds the calling thread has used so far (0 where the clock is unavailable): what a
/// step costs on a loaded machine, where its wall time says little.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_limit_and_how_to_raise_it() {
        let m = Stop::RunTimeout(2.0).message("grounding");
        assert_eq!(
            m,
            "timeout: the time limit of 2 s (--timeout) was reached while grounding; raise it \
             with --timeout SECONDS"
        );
        assert_eq!(
            Stop::Interrupted.message("searching"),
            "interrupted (Ctrl-C) while searching"
        );
        assert!(Stop::Memory(900, 800)
            .message("grounding")
            .ends_with("while grounding; raise it with --max-memory MB"));
    }

    #[test]
    fn a_stop_is_an_error_of_its_limit_kind() {
        let e = Stop::Memory(900, 800).error("grounding");
        assert_eq!(e.limit_kind(), Some(Limit::Memory));
        assert_eq!(e.message(), Stop::Memory(900, 800).message("grounding"));
    }

    #[test]
    fn earliest_deadline() {
        let now = Instant::now();
        let later = now + Duration::from_secs(1);
        assert_eq!(earliest(Some(later), Some(now)), Some(now));
        assert_eq!(earliest(None, Some(now)), Some(now));
        assert_eq!(earliest(None, None), None);
    }
}
