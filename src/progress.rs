//! A progress line on stderr for long runs: after a second of grounding or solving, and only
//! when the run asked for it (stderr a terminal, or `--message-format json`), one line
//! (rewritten in place four times a second) says what the current inference is doing — the
//! phase, the size of the ground theory, the SAT calls so far (loop-formula rounds and
//! enumerated models count) and the elapsed time. The line is erased when the inference ends,
//! so printed models never mix with it.
//!
//! Each run has its own [`Meter`]: the inference only stores numbers in its atomics; a helper
//! thread, started on the meter's first inference when it has a [`Display`], does the
//! printing and ends with the meter. A meter without a display (the default: a library
//! caller, a test, a second problem in the same process) counts and prints nothing.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// What an inference is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Grounding = 1,
    Solving = 2,
}

/// Where a meter shows its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// One line on a terminal, rewritten in place and erased at the end.
    Terminal,
    /// `{"$idp":"progress","text":...}` lines (see `message_format`), never erased.
    Machine,
}

/// How long an inference runs before the line appears.
const QUIET_FOR: Duration = Duration::from_millis(1000);

/// How often the line is rewritten.
const REDRAW_EVERY: Duration = Duration::from_millis(250);

/// The progress of one run: shared by its inferences and its printer (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Meter(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    phase: AtomicU8,
    nodes: AtomicUsize,
    sat_calls: AtomicUsize,
    /// Milliseconds since `epoch` at which the current inference started (0: none running).
    started_ms: AtomicU64,
    /// Whether a terminal line is on the screen (to be erased).
    shown: AtomicBool,
    epoch: OnceLock<Instant>,
    display: OnceLock<Display>,
    printer: OnceLock<()>,
}

impl Meter {
    /// A meter that shows its line as `display` says (`None`: counts only).
    pub fn new(display: Option<Display>) -> Meter {
        let meter = Meter::default();
        if let Some(display) = display {
            let _ = meter.0.display.set(display);
        }
        meter
    }

    /// Shows the line as `display` says from the next inference on (a meter made without a
    /// display; a display once chosen stays).
    pub fn show(&self, display: Display) {
        let _ = self.0.display.set(display);
    }

    /// Marks an inference as running until the returned guard is dropped.
    pub fn begin(&self) -> Running {
        let c = &self.0;
        let epoch = *c.epoch.get_or_init(Instant::now);
        c.phase.store(Phase::Grounding as u8, Ordering::Relaxed);
        c.nodes.store(0, Ordering::Relaxed);
        c.sat_calls.store(0, Ordering::Relaxed);
        let now = epoch.elapsed().as_millis() as u64 + 1;
        c.started_ms.store(now, Ordering::Relaxed);
        if c.display.get().is_some() {
            c.printer.get_or_init(|| {
                let weak = Arc::downgrade(&self.0);
                // Without the thread the run goes on without a line.
                let _ = std::thread::Builder::new()
                    .name("idp-progress".into())
                    .spawn(move || print_loop(weak));
            });
        }
        Running(self.clone())
    }

    pub fn set_phase(&self, phase: Phase) {
        self.0.phase.store(phase as u8, Ordering::Relaxed);
    }

    pub fn set_nodes(&self, nodes: usize) {
        self.0.nodes.store(nodes, Ordering::Relaxed);
    }

    pub fn sat_call(&self) {
        self.0.sat_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// The SAT calls of the current inference so far.
    pub fn sat_calls(&self) -> usize {
        self.0.sat_calls.load(Ordering::Relaxed)
    }
}

/// The running inference; dropping it erases the progress line.
pub struct Running(Meter);

impl Drop for Running {
    fn drop(&mut self) {
        let c = &(self.0).0;
        c.started_ms.store(0, Ordering::Relaxed);
        if c.shown.swap(false, Ordering::Relaxed) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

/// The printer of one meter: ends when the meter is gone.
fn print_loop(meter: Weak<Counters>) {
    loop {
        std::thread::sleep(REDRAW_EVERY);
        let Some(c) = meter.upgrade() else { return };
        let started = c.started_ms.load(Ordering::Relaxed);
        let (Some(epoch), Some(display)) = (c.epoch.get(), c.display.get()) else {
            continue;
        };
        if started == 0 {
            continue;
        }
        let elapsed = Duration::from_millis((epoch.elapsed().as_millis() as u64 + 1) - started);
        if elapsed < QUIET_FOR {
            continue;
        }
        let line = status_line(&c, elapsed);
        match display {
            Display::Machine => eprintln!(
                "{}",
                serde_json::json!({ "$idp": "progress", "text": line })
            ),
            Display::Terminal => {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[K{line}");
                let _ = err.flush();
                c.shown.store(true, Ordering::Relaxed);
            }
        }
    }
}

fn status_line(c: &Counters, elapsed: Duration) -> String {
    let phase = match c.phase.load(Ordering::Relaxed) {
        x if x == Phase::Solving as u8 => "solving",
        _ => "grounding",
    };
    format!(
        "[idp] {phase}: {} ground nodes, {} SAT calls, {:.1} s",
        c.nodes.load(Ordering::Relaxed),
        c.sat_calls.load(Ordering::Relaxed),
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meters_count_apart() {
        let (a, b) = (Meter::default(), Meter::default());
        let _ra = a.begin();
        let _rb = b.begin();
        a.sat_call();
        a.sat_call();
        b.sat_call();
        assert_eq!((a.sat_calls(), b.sat_calls()), (2, 1));
        a.set_nodes(7);
        assert!(status_line(&a.0, Duration::from_secs(2)).contains("7 ground nodes, 2 SAT calls"));
    }
}
