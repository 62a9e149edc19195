//! A progress line on stderr for long runs: after a second of grounding or solving, and only
//! when stderr is a terminal, one line (rewritten in place four times a second) says what the
//! current inference is doing — the phase, the size of the ground theory, the SAT calls so far
//! (loop-formula rounds and enumerated models count) and the elapsed time. The line is erased
//! when the inference ends, so printed models never mix with it.
//!
//! The inference thread only stores numbers in atomics; a helper thread, started on first
//! use, does the printing.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What an inference is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Grounding = 1,
    Solving = 2,
}

static PHASE: AtomicU8 = AtomicU8::new(0);
static NODES: AtomicUsize = AtomicUsize::new(0);
static SAT_CALLS: AtomicUsize = AtomicUsize::new(0);
/// Milliseconds since `EPOCH` at which the current inference started (0: none running).
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
static SHOWN: AtomicBool = AtomicBool::new(false);
static EPOCH: OnceLock<Instant> = OnceLock::new();
static PRINTER: OnceLock<()> = OnceLock::new();

/// `--message-format json`: the line is a JSON object on a line of its own, never erased.
static MACHINE: AtomicBool = AtomicBool::new(false);

/// Prints progress as `{"$idp":"progress","text":...}` lines (see [`crate::message_format`]).
pub fn set_machine_lines(on: bool) {
    MACHINE.store(on, Ordering::Relaxed);
}

/// `IDP_NO_PROGRESS`: no line on a terminal either (machine lines still come).
static ON_TERMINAL: AtomicBool = AtomicBool::new(true);

/// Whether the line is drawn when stderr is a terminal (the command line turns it off for
/// `IDP_NO_PROGRESS`).
pub fn set_terminal_line(on: bool) {
    ON_TERMINAL.store(on, Ordering::Relaxed);
}

/// How long an inference runs before the line appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Marks an inference as running until the returned guard is dropped.
pub fn begin() -> Running {
    let epoch = *EPOCH.get_or_init(Instant::now);
    PHASE.store(Phase::Grounding as u8, Ordering::Relaxed);
    NODES.store(0, Ordering::Relaxed);
    SAT_CALLS.store(0, Ordering::Relaxed);
    let now = epoch.elapsed().as_millis() as u64 + 1;
    STARTED_MS.store(now, Ordering::Relaxed);
    let machine = MACHINE.load(Ordering::Relaxed);
    if machine || std::io::stderr().is_terminal() && ON_TERMINAL.load(Ordering::Relaxed) {
        PRINTER.get_or_init(|| {
            std::thread::spawn(print_loop);
        });
    }
    Running
}

/// The running inference; dropping it erases the progress line.
pub struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        STARTED_MS.store(0, Ordering::Relaxed);
        erase();
    }
}

pub fn set_phase(phase: Phase) {
    PHASE.store(phase as u8, Ordering::Relaxed);
}

pub fn set_nodes(nodes: usize) {
    NODES.store(nodes, Ordering::Relaxed);
}

pub fn sat_call() {
    SAT_CALLS.fetch_add(1, Ordering::Relaxed);
}

fn print_loop() {
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let started = STARTED_MS.load(Ordering::Relaxed);
        let Some(epoch) = EPOCH.get() else { continue };
        if started == 0 {
            continue;
        }
        let elapsed = Duration::from_millis((epoch.elapsed().as_millis() as u64 + 1) - started);
        if elapsed < QUIET_FOR {
            continue;
        }
        let line = status_line(elapsed);
        if MACHINE.load(Ordering::Relaxed) {
            eprintln!(
                "{}",
                serde_json::json!({ "$idp": "progress", "text": line })
            );
            continue;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K{line}");
        let _ = err.flush();
        SHOWN.store(true, Ordering::Relaxed);
    }
}

fn status_line(elapsed: Duration) -> String {
    let phase = match PHASE.load(Ordering::Relaxed) {
        x if x == Phase::Solving as u8 => "solving",
        _ => "grounding",
    };
    format!(
        "[idp] {phase}: {} ground nodes, {} SAT calls, {:.1} s",
        NODES.load(Ordering::Relaxed),
        SAT_CALLS.load(Ordering::Relaxed),
        elapsed.as_secs_f64()
    )
}

fn erase() {
    if SHOWN.swap(false, Ordering::Relaxed) {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K");
        let _ = err.flush();
    }
}
