//! Consultations for the page: each is a child `idp consult -` (the buffer on the first line
//! of its stdin, then one JSON request per line; see [`crate::consult`]) that lives as long as
//! the page asks it questions. A page has at most one consultation open (opening another
//! closes it); one that has not been asked anything for [`IDLE_AFTER`] is ended, and so is one
//! whose question takes longer than the server's run time limit. The child has the server's
//! memory limit and the kernel's limits behind it, as a run has ([`super::child`]).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::access::random_hex;
use super::api::Buffer;
use super::child::{self, Limits};
use super::ServeError;

/// A consultation nobody asked anything for this long is ended.
pub const IDLE_AFTER: Duration = Duration::from_secs(30 * 60);
/// The longest a consultation lives (its child's `--timeout`), seconds.
const LIFETIME_SECONDS: f64 = 4.0 * 3600.0;
/// The milliseconds one `forced` may search unless the page asks otherwise.
const DEFAULT_BUDGET_MS: f64 = 500.0;
/// Most of a child's stderr kept (what it says when it cannot open the buffer).
const MAX_STDERR: usize = 64 << 10;

/// What the page asks to consult: the buffer, the theory and structure (the only ones when not
/// given), a Lua chunk run first (for a structure that a procedure builds), a structure whose
/// facts are the first choices, and the budget of one `forced`.
#[derive(Deserialize)]
pub struct ConsultRequest {
    #[serde(flatten)]
    pub buffer: Buffer,
    pub theory: Option<String>,
    pub structure: Option<String>,
    pub expression: Option<String>,
    pub choices: Option<String>,
    pub budget_ms: Option<f64>,
}

/// How consultations are started: the `idp` binary, the folder served (procedures may read
/// it), the memory limit of a child and how long a question may take.
pub struct Settings {
    pub exe: PathBuf,
    pub root: PathBuf,
    pub max_memory_mb: u64,
    pub question_timeout: Duration,
    /// Consultations open at once, at most.
    pub max_open: usize,
}

/// The open consultations of the server.
pub struct Consultations {
    settings: Settings,
    open: Mutex<BTreeMap<String, Arc<Live>>>,
}

/// One open consultation.
struct Live {
    owner: String,
    last_used: Mutex<Instant>,
    /// One question at a time.
    pipe: Mutex<Pipe>,
    stderr: Arc<Mutex<String>>,
}

/// The child and its pipes: requests go to `stdin`, its reply lines come from `replies`.
struct Pipe {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
}

impl Drop for Pipe {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Consultations {
    pub fn new(settings: Settings) -> Consultations {
        Consultations {
            settings,
            open: Mutex::new(BTreeMap::new()),
        }
    }

    /// The number of consultations open.
    pub fn count(&self) -> usize {
        lock(&self.open).len()
    }

    /// Opens a consultation of `request` in `folder` for the page `owner` (closing the page's
    /// earlier one); returns its id and the child's first line (`"op": "open"`).
    pub fn open(
        &self,
        request: ConsultRequest,
        folder: PathBuf,
        owner: &str,
    ) -> Result<(String, Value), ServeError> {
        self.close_page(owner);
        self.end_idle();
        if self.count() >= self.settings.max_open {
            return Err(ServeError::TooMany(format!(
                "{} consultations are open (the most at once); close one in another page",
                self.settings.max_open
            )));
        }
        let words = self.words(&request);
        let limits = Limits {
            timeout: LIFETIME_SECONDS,
            max_memory_mb: self.settings.max_memory_mb,
        };
        let mut child = child::start(&self.settings.exe, &folder, &words, limits)?;
        let stdin = child.stdin.take();
        let replies = read_lines(child.stdout.take());
        let stderr = Arc::new(Mutex::new(String::new()));
        gather(child.stderr.take(), Arc::clone(&stderr));
        let live = Live {
            owner: owner.to_string(),
            last_used: Mutex::new(Instant::now()),
            pipe: Mutex::new(Pipe {
                child,
                stdin,
                replies,
            }),
            stderr,
        };
        let spec = serde_json::to_string(&request.buffer.text).unwrap_or_default();
        let opened = live.exchange(&spec, self.settings.question_timeout)?;
        let id = random_hex(12)?;
        lock(&self.open).insert(id.clone(), Arc::new(live));
        Ok((id, opened))
    }

    /// The child's words: `consult`, the sandbox, the limits, the names chosen, `-`.
    fn words(&self, request: &ConsultRequest) -> Vec<String> {
        let budget = request
            .budget_ms
            .filter(|b| b.is_finite() && *b > 0.0)
            .unwrap_or(DEFAULT_BUDGET_MS)
            .min(self.settings.question_timeout.as_secs_f64() * 1000.0 / 2.0);
        let mut words: Vec<String> = vec![
            "consult".into(),
            "--sandbox".into(),
            "--sandbox-read".into(),
            self.settings.root.display().to_string(),
            "--timeout".into(),
            LIFETIME_SECONDS.to_string(),
            "--max-memory".into(),
            self.settings.max_memory_mb.to_string(),
            "--budget-ms".into(),
            budget.to_string(),
        ];
        for (flag, given) in [
            ("--theory", &request.theory),
            ("--structure", &request.structure),
            ("--execute", &request.expression),
            ("--choices", &request.choices),
        ] {
            if let Some(g) = given.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
                words.push(format!("{flag}={g}"));
            }
        }
        words.push("-".into());
        words
    }

    /// Asks consultation `id` of page `owner` one question (a JSON request); returns its
    /// reply. A question that outlasts the time limit ends the consultation.
    pub fn ask(&self, id: &str, owner: &str, question: &Value) -> Result<Value, ServeError> {
        let live = self.get(id, owner)?;
        *lock(&live.last_used) = Instant::now();
        let reply = live.exchange(&question.to_string(), self.settings.question_timeout);
        if reply.is_err() {
            lock(&self.open).remove(id);
        }
        reply
    }

    /// Ends consultation `id` of page `owner`; whether it was open.
    pub fn close(&self, id: &str, owner: &str) -> bool {
        let mut open = lock(&self.open);
        match open.get(id) {
            Some(live) if live.owner == owner => open.remove(id).is_some(),
            _ => false,
        }
    }

    /// Ends the consultations of page `owner`; how many there were.
    pub fn close_page(&self, owner: &str) -> usize {
        let mut open = lock(&self.open);
        let before = open.len();
        open.retain(|_, live| live.owner != owner);
        before - open.len()
    }

    /// Ends the consultations nobody asked anything for [`IDLE_AFTER`].
    fn end_idle(&self) {
        lock(&self.open).retain(|_, live| lock(&live.last_used).elapsed() < IDLE_AFTER);
    }

    fn get(&self, id: &str, owner: &str) -> Result<Arc<Live>, ServeError> {
        lock(&self.open)
            .get(id)
            .filter(|live| live.owner == owner)
            .cloned()
            .ok_or_else(|| {
                ServeError::NotFound(
                    "this consultation is over (it was closed, or idle for 30 minutes): start \
                     it again"
                        .into(),
                )
            })
    }
}

impl Live {
    /// Writes `line` to the child and reads its reply within `timeout`. When the child has
    /// ended, what it said on stderr is the error (the buffer's errors, or a limit).
    fn exchange(&self, line: &str, timeout: Duration) -> Result<Value, ServeError> {
        let mut pipe = lock(&self.pipe);
        let written = pipe
            .stdin
            .as_mut()
            .map(|stdin| writeln!(stdin, "{line}").and_then(|()| stdin.flush()));
        if !matches!(written, Some(Ok(()))) {
            return Err(self.ended(&mut pipe));
        }
        match pipe.replies.recv_timeout(timeout) {
            Ok(reply) => serde_json::from_str(&reply).map_err(|e| {
                ServeError::Internal(format!("the consultation answered something else: {e}"))
            }),
            Err(RecvTimeoutError::Timeout) => Err(ServeError::BadRequest(format!(
                "the question took longer than {} s; the consultation was ended (start it \
                 again, or ask for less)",
                timeout.as_secs_f64()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(self.ended(&mut pipe)),
        }
    }

    /// The error for a child that has ended: what it said, or how it ended.
    fn ended(&self, pipe: &mut Pipe) -> ServeError {
        pipe.stdin = None;
        let status = pipe.child.wait().ok();
        // The stderr reader ends with the child; give it a moment to take the last lines.
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut said = lock(&self.stderr).trim().to_string();
        while said.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            said = lock(&self.stderr).trim().to_string();
        }
        use std::os::unix::process::ExitStatusExt;
        let how = child::describe_exit(
            status.and_then(|s| s.code()),
            status.and_then(|s| s.signal()),
        );
        if said.is_empty() {
            ServeError::BadRequest(format!("the consultation ended: {how}"))
        } else {
            ServeError::BadRequest(said)
        }
    }
}

/// The lines of `stdout`, read by a thread of their own into a channel.
fn read_lines(stdout: Option<impl Read + Send + 'static>) -> Receiver<String> {
    let (send, receive) = mpsc::channel();
    if let Some(out) = stdout {
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
    }
    receive
}

/// Keeps the first [`MAX_STDERR`] bytes of `stderr` in `into`, read by a thread of its own.
fn gather(stderr: Option<impl Read + Send + 'static>, into: Arc<Mutex<String>>) {
    let Some(err) = stderr else { return };
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            let mut kept = lock(&into);
            if kept.len() < MAX_STDERR {
                kept.push_str(&line);
                kept.push('\n');
            }
        }
    });
}
