//! Limits that stop a run cleanly, with a message and [`EXIT_LIMIT`], instead of a kill: the
//! wall time of the whole run (`--timeout`), the memory of the process (`--max-memory`) and
//! Ctrl-C. (The grounding size limit lives in the grounder; `stdoptions.timeout` limits one
//! inference.)
//!
//! The grounder, the SAT solver's terminate callback and a Lua instruction hook all call
//! [`check`], which fails with an [`Error`] of kind [`ErrorKind::Limit`] (so the command line
//! tells a stop from any other error by its kind); a watchdog thread ([`start_watchdog`]) ends
//! the process when a step that makes no checks (reading a huge input) goes on past a limit.
//! An inference that stops after it found some models returns them and notes a [`partial`]
//! result instead; the interactive shell forgets a stop after the command it ended
//! ([`forget_stop`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Limit};

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

/// The wall-time limit of the whole run: when it ends and how many seconds it was.
static RUN_DEADLINE: Mutex<Option<(Instant, f64)>> = Mutex::new(None);

/// How long work may go on after a limit was reached before the watchdog ends the process
/// itself. Work that polls the limits (grounding, search, Lua) stops well within it; reading
/// and resolving a huge input, or a call into a SAT back end that cannot be interrupted, may
/// not.
const WATCHDOG_GRACE: Duration = Duration::from_secs(2);

/// What the run is doing, for the watchdog's message (`while reading the input`).
static PHASE: Mutex<&str> = Mutex::new("running");

/// The memory limit in bytes (0: none).
static MAX_MEMORY: AtomicU64 = AtomicU64::new(0);

/// The resident memory seen at the last check, and when that check was (in milliseconds since
/// [`epoch`]).
static LAST_RSS: AtomicU64 = AtomicU64::new(0);
static LAST_RSS_AT: AtomicU64 = AtomicU64::new(0);

/// Whether the memory limit was exceeded (it stays exceeded: the run is being stopped).
static MEMORY_EXCEEDED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed (set by the signal handler; running searches poll it).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether some work has seen a limit and is stopping.
static STOP_SEEN: AtomicBool = AtomicBool::new(false);

/// The note of an inference that a limit stopped after it found a partial result, and when.
static PARTIAL: Mutex<Option<(String, Instant)>> = Mutex::new(None);

/// Whether results kept at a stop are being printed (`printmodels`): neither the Lua hook nor
/// the watchdog stops that, so that every kept model is printed, whole.
static DELIVERING: AtomicBool = AtomicBool::new(false);

/// When the Lua hook first raised a limit error.
static LUA_STOPPED_AT: Mutex<Option<Instant>> = Mutex::new(None);

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

    /// The error for this stop, saying what was being done; notes that work is stopping.
    pub fn error(&self, during: &str) -> Error {
        STOP_SEEN.store(true, Ordering::Relaxed);
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

/// Sets the wall-time limit of the whole run, counted from now.
pub fn set_timeout(seconds: f64) {
    let until = Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
    *RUN_DEADLINE.lock().unwrap_or_else(|e| e.into_inner()) = Some((until, seconds));
}

/// When the run must stop (`--timeout`), if it has a limit.
pub fn run_deadline() -> Option<Instant> {
    RUN_DEADLINE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .map(|(until, _)| until)
}

/// The earlier of two optional deadlines.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Sets the memory limit in MB (0: none).
pub fn set_max_memory_mb(mb: u64) {
    MAX_MEMORY.store(mb.saturating_mul(1 << 20), Ordering::Relaxed);
}

/// The default memory limit: three quarters of the physical memory (from `/proc/meminfo`), so
/// that a runaway grounding stops with a message before the system kills it.
pub fn default_max_memory_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024 * 3 / 4)
}

/// Milliseconds since the first call (a monotonic clock that fits in an atomic).
fn epoch_ms() -> u64 {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let start = *EPOCH.get_or_init(Instant::now);
    start.elapsed().as_millis() as u64 + 1
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

/// Whether the process exceeds the memory limit; reads the memory at most every 100 ms, so
/// this is cheap enough to call often.
pub fn memory_exceeded() -> Option<Stop> {
    let max = MAX_MEMORY.load(Ordering::Relaxed);
    if max == 0 {
        return None;
    }
    let now = epoch_ms();
    let last = LAST_RSS_AT.load(Ordering::Relaxed);
    if !MEMORY_EXCEEDED.load(Ordering::Relaxed)
        && now.saturating_sub(last) >= MEMORY_CHECK_INTERVAL.as_millis() as u64
    {
        LAST_RSS_AT.store(now, Ordering::Relaxed);
        if let Some(rss) = resident_bytes() {
            LAST_RSS.store(rss, Ordering::Relaxed);
            if rss > max {
                MEMORY_EXCEEDED.store(true, Ordering::Relaxed);
            }
        }
    }
    MEMORY_EXCEEDED
        .load(Ordering::Relaxed)
        .then(|| Stop::Memory(LAST_RSS.load(Ordering::Relaxed) >> 20, max >> 20))
}

/// The limit that has been reached, if any: the memory limit once exceeded (it stays the
/// reason: a Ctrl-C or Stop pressed while the run is stopping for memory does not hide it),
/// Ctrl-C, the run's wall time, the inference's deadline `local` (from `stdoptions.timeout`),
/// or the memory limit.
pub fn reached(local: Option<Instant>) -> Option<Stop> {
    if MEMORY_EXCEEDED.load(Ordering::Relaxed) {
        return memory_exceeded();
    }
    if interrupted() {
        return Some(Stop::Interrupted);
    }
    let now = Instant::now();
    if let Some((until, secs)) = *RUN_DEADLINE.lock().unwrap_or_else(|e| e.into_inner()) {
        if now >= until {
            return Some(Stop::RunTimeout(secs));
        }
    }
    if local.is_some_and(|d| now >= d) {
        return Some(Stop::InferenceTimeout);
    }
    memory_exceeded()
}

/// A limit error when a limit has been reached, saying what was being done.
pub fn check(local: Option<Instant>, during: &str) -> Result<(), Error> {
    match reached(local) {
        None => Ok(()),
        Some(stop) => Err(stop.error(during)),
    }
}

/// Asks running work to stop (from the Ctrl-C handler).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed (and not yet forgotten by [`forget_stop`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Notes that an inference stopped by a limit returned what it had found so far.
pub fn note_partial(note: String) {
    *PARTIAL.lock().unwrap_or_else(|e| e.into_inner()) = Some((note, Instant::now()));
}

/// The note of the last inference that returned a partial result, if any.
pub fn partial() -> Option<String> {
    PARTIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|(note, _)| note.clone())
}

/// Says that results kept at a stop are being printed (`on`), or that this is over: while
/// they are, no limit stops the run (a second Ctrl-C still ends it at once).
pub fn set_delivering(on: bool) {
    DELIVERING.store(on, Ordering::SeqCst);
}

fn delivering() -> bool {
    DELIVERING.load(Ordering::SeqCst)
}

/// The check of the Lua instruction hook: an error when a limit has been reached (after a
/// grace period when an inference just returned a partial result, so that it can be printed).
/// Lua code that catches the error and goes on is ended after a second with the same message
/// and [`EXIT_LIMIT`].
pub fn lua_check() -> Result<(), Error> {
    if delivering() {
        return Ok(());
    }
    let Some(stop) = reached(None) else {
        return Ok(());
    };
    let partial_at = PARTIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|(_, at)| *at);
    if partial_at.is_some_and(|at| at.elapsed() < GRACE_AFTER_PARTIAL) {
        return Ok(());
    }
    let error = stop.error("running a procedure");
    let mut first = LUA_STOPPED_AT.lock().unwrap_or_else(|e| e.into_inner());
    match *first {
        Some(at) if at.elapsed() >= GRACE_AFTER_STOP => exit_now(error.message()),
        Some(_) => {}
        None => *first = Some(Instant::now()),
    }
    Err(error)
}

/// Forgets a limit that stopped one command of the interactive shell (Ctrl-C), so that the
/// next command starts afresh. The wall-time and memory limits stay: they hold for the run.
pub fn forget_stop() {
    INTERRUPTED.store(false, Ordering::SeqCst);
    STOP_SEEN.store(false, Ordering::Relaxed);
    *PARTIAL.lock().unwrap_or_else(|e| e.into_inner()) = None;
    *LUA_STOPPED_AT.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Says what the run is doing from now on (`"reading the input"`, `"running a procedure"`).
pub fn set_phase(phase: &'static str) {
    *PHASE.lock().unwrap_or_else(|e| e.into_inner()) = phase;
}

/// Starts the watchdog: a thread that checks the limits ten times a second and, when one has
/// been reached and the work has not stopped within [`WATCHDOG_GRACE`] (longer when the work
/// is already stopping: printing a partial result, a procedure handling the stop), ends the
/// process with the limit's message and [`EXIT_LIMIT`]. It backs up the checks in the work
/// itself, for the steps that make none.
pub fn start_watchdog() {
    let spawned = std::thread::Builder::new()
        .name("idp-watchdog".into())
        .spawn(watch);
    // Without the thread the limits are still checked by the work itself.
    drop(spawned);
}

fn watch() {
    let mut reached_at: Option<Instant> = None;
    loop {
        std::thread::sleep(MEMORY_CHECK_INTERVAL);
        if stdout_reader_gone() {
            end_by_sigpipe();
        }
        let Some(stop) = reached(None) else {
            reached_at = None;
            continue;
        };
        if delivering() {
            // The grace starts again when the kept results have been printed.
            reached_at = None;
            continue;
        }
        let since = *reached_at.get_or_insert_with(Instant::now);
        let grace = if stopping() {
            WATCHDOG_GRACE + GRACE_AFTER_PARTIAL + GRACE_AFTER_STOP
        } else {
            WATCHDOG_GRACE
        };
        if since.elapsed() >= grace {
            let phase = *PHASE.lock().unwrap_or_else(|e| e.into_inner());
            exit_now(&stop.message(phase));
        }
    }
}

/// Whether the work has seen a limit and is stopping (a limit error was made or a partial
/// result noted).
fn stopping() -> bool {
    STOP_SEEN.load(Ordering::Relaxed) || PARTIAL.lock().unwrap_or_else(|e| e.into_inner()).is_some()
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

/// Installs the Ctrl-C (SIGINT) handler: the first Ctrl-C asks the running work to stop
/// ([`interrupt`]); a second one ends the process at once with [`EXIT_KILLED`].
pub fn install_interrupt_handler() {
    extern "C" fn on_sigint(_: libc::c_int) {
        if interrupted() {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(EXIT_KILLED) }
        }
        interrupt();
    }
    let handler: extern "C" fn(libc::c_int) = on_sigint;
    // SAFETY: the handler only touches an atomic and calls _exit, both async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
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
