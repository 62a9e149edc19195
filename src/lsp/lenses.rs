//! Code lenses that run the document: above each theory, Run, Count and Explain with each
//! structure over its vocabulary; above each procedure, Run. A run is a child `idp` process
//! on the editor's text (so unsaved edits count), in the document's folder; the editor can
//! cancel it (`$/cancelRequest` ends the child), sees its progress (`$/progress`, from the
//! child's progress lines), and gets back: the answer to its command, the lens's title with
//! the outcome, the output as the hover of the block's name, and, when there is no model,
//! diagnostics at the sentences and structure facts of the explanation.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command as Process, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{ErrorCode, Message, RequestId, Response};
use lsp_types::{
    CodeLens, Command as LspCommand, Diagnostic, DiagnosticSeverity, ExecuteCommandParams, Hover,
    HoverContents, MarkupContent, MarkupKind, NumberOrString, Position, ProgressParams,
    ProgressParamsValue, Range, Url, WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd,
    WorkDoneProgressReport,
};
use serde_json::{json, Value};

use crate::sema::Component;
use crate::syntax::ast;

use super::analysis::Analysis;
use super::outline::Lines;

/// The command the lenses run.
pub const COMMANDS: [&str; 1] = ["idp.run"];

/// What a lens asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One model (`idp -n 1`).
    Run,
    /// The number of models (`idp --count`).
    Count,
    /// One model, or why there is none (`idp -n 1 --explain`).
    Explain,
    /// A procedure (`main` as `idp FILE` runs it, another with `-e`).
    Procedure(String),
}

/// One run asked for: the document, the theory and structure (or the procedure), the mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub uri: Url,
    pub theory: String,
    pub structure: String,
    pub mode: Mode,
}

impl Command {
    /// Reads the arguments of `idp.run`: `{uri, theory, structure, mode}` (mode `run`,
    /// `count`, `explain`) or `{uri, procedure}`.
    pub fn parse(p: &ExecuteCommandParams) -> Result<Command, String> {
        if p.command != COMMANDS[0] {
            return Err(format!("idp lsp has no command {}", p.command));
        }
        let arg = p.arguments.first().ok_or(
            "idp.run needs one argument: {uri, theory, structure, mode} or {uri, procedure}",
        )?;
        let text = |key: &str| arg.get(key).and_then(Value::as_str).map(str::to_string);
        let uri = text("uri")
            .and_then(|u| Url::parse(&u).ok())
            .ok_or("idp.run: `uri` is missing or not an address")?;
        if let Some(name) = text("procedure") {
            return Ok(Command {
                uri,
                theory: String::new(),
                structure: String::new(),
                mode: Mode::Procedure(name),
            });
        }
        let mode = match text("mode").as_deref() {
            Some("run") | None => Mode::Run,
            Some("count") => Mode::Count,
            Some("explain") => Mode::Explain,
            Some(other) => {
                return Err(format!(
                    "idp.run: unknown mode `{other}` (run, count or explain)"
                ))
            }
        };
        Ok(Command {
            uri,
            theory: text("theory").ok_or("idp.run: `theory` is missing")?,
            structure: text("structure").ok_or("idp.run: `structure` is missing")?,
            mode,
        })
    }

    /// The key of the lens that asked (its outcome is shown on it).
    fn key(&self) -> String {
        match &self.mode {
            Mode::Procedure(name) => format!("procedure {name}"),
            mode => format!("{:?} {} {}", mode, self.theory, self.structure),
        }
    }

    fn title(&self) -> String {
        match &self.mode {
            Mode::Run => format!("▶ Run {} with {}", self.theory, self.structure),
            Mode::Count => "Count".to_string(),
            Mode::Explain => "Explain".to_string(),
            Mode::Procedure(name) => format!("▶ Run {name}()"),
        }
    }

    /// The command line of the child (the specification comes on its stdin).
    fn arguments(&self) -> Vec<String> {
        let mut args: Vec<String> = vec!["--color".into(), "never".into()];
        let pair = ["--theory", &self.theory, "--structure", &self.structure];
        match &self.mode {
            Mode::Run => args.extend(["-n", "1"].iter().chain(&pair).map(|s| s.to_string())),
            Mode::Count => args.extend(["--count"].iter().chain(&pair).map(|s| s.to_string())),
            Mode::Explain => args.extend(
                ["-n", "1", "--explain"]
                    .iter()
                    .chain(&pair)
                    .map(|s| s.to_string()),
            ),
            Mode::Procedure(name) if name == "main" => {}
            Mode::Procedure(name) => {
                args.extend(["-e".to_string(), format!("return {name}()")]);
            }
        }
        args.extend(["--message-format".into(), "json".into()]);
        args
    }
}

/// A run that ended.
pub struct Finished {
    pub id: RequestId,
    pub uri: Url,
    pub command: Command,
    pub code: Option<i32>,
    pub stdout: String,
    /// What the child said on stderr, but its progress lines.
    pub stderr: String,
    pub elapsed: Duration,
    pub cancelled: bool,
    pub token: NumberOrString,
}

impl Finished {
    /// The outcome in a few words (a lens's title).
    fn outcome(&self) -> String {
        if self.cancelled {
            return "cancelled".into();
        }
        let time = format!("{:.1} s", self.elapsed.as_secs_f64());
        if let Some(line) = self
            .stdout
            .lines()
            .find(|l| l.starts_with("Number of models:"))
        {
            let n = line.trim_start_matches("Number of models:").trim();
            if matches!(self.command.mode, Mode::Count) || n == "0" {
                return format!("{n} models, {time}");
            }
        }
        match self.code {
            Some(10) => format!("a model, {time}"),
            Some(20) => format!("no model, {time}"),
            Some(0) => format!("done, {time}"),
            Some(3) => "stopped by a limit".into(),
            _ => "error".into(),
        }
    }

    /// The output shown as the hover: stdout, then the messages.
    fn output(&self) -> String {
        let mut out = String::new();
        let messages: Vec<String> = self
            .stderr
            .lines()
            .filter_map(|l| {
                let v: Value = serde_json::from_str(l).ok()?;
                (v["$idp"] == "diagnostic").then(|| v["text"].as_str().unwrap_or("").to_string())
            })
            .collect();
        out.push_str(&self.stdout);
        for m in messages {
            out.push_str(&m);
            out.push('\n');
        }
        let lines: Vec<&str> = out.lines().collect();
        if lines.len() > 80 {
            format!(
                "{}\n… ({} lines in all)",
                lines[..80].join("\n"),
                lines.len()
            )
        } else {
            out
        }
    }
}

/// Something that woke the server.
pub enum Wake {
    Message(Message),
    Progress(NumberOrString, String),
    Finished(Box<Finished>),
    Closed,
}

enum Event {
    Progress(NumberOrString, String),
    Done(Box<Finished>),
}

struct Running {
    /// Shared with the thread that waits for it: the child is reaped only under the lock, so
    /// a cancel never signals a process that is not ours.
    child: Arc<Mutex<Child>>,
    command: Command,
    cancelled: bool,
}

/// The runs going on and the outcomes of the last ones.
pub struct Runs {
    events: (Sender<Event>, Receiver<Event>),
    running: HashMap<RequestId, Running>,
    /// Per document and lens: the last outcome and output.
    outcomes: HashMap<(Url, String), (String, String)>,
}

impl Default for Runs {
    fn default() -> Runs {
        Runs {
            events: crossbeam_channel::unbounded(),
            running: HashMap::new(),
            outcomes: HashMap::new(),
        }
    }
}

impl Runs {
    /// Waits for the editor's next message or the next event of a run.
    pub fn wait(&self, editor: &Receiver<Message>) -> Wake {
        select! {
            recv(editor) -> m => match m {
                Ok(m) => Wake::Message(m),
                Err(_) => Wake::Closed,
            },
            recv(self.events.1) -> e => match e {
                Ok(Event::Progress(token, text)) => Wake::Progress(token, text),
                Ok(Event::Done(done)) => Wake::Finished(done),
                Err(_) => Wake::Closed,
            },
        }
    }

    pub fn is_running(&self, id: &RequestId) -> bool {
        self.running.contains_key(id)
    }

    /// Starts a child `idp` on `text`; its end comes back through [`Runs::wait`].
    pub fn start(
        &mut self,
        idp: &std::path::Path,
        id: RequestId,
        command: Command,
        text: String,
        token: NumberOrString,
    ) -> Result<(), String> {
        let folder = command
            .uri
            .to_file_path()
            .ok()
            .and_then(|p| p.parent().map(|d| d.to_path_buf()))
            .unwrap_or_else(std::env::temp_dir);
        let mut child = Process::new(idp)
            .args(command.arguments())
            .current_dir(folder)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start idp: {e}"))?;
        let mut stdin = child.stdin.take().ok_or("no stdin for the child")?;
        let stdout = child.stdout.take().ok_or("no stdout for the child")?;
        let stderr = child.stderr.take().ok_or("no stderr for the child")?;
        std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
        let child = Arc::new(Mutex::new(child));
        let waited = child.clone();
        let events = self.events.0.clone();
        let (run_id, run_command, run_token) = (id.clone(), command.clone(), token.clone());
        std::thread::spawn(move || {
            let started = Instant::now();
            let out_reader = std::thread::spawn(move || {
                let mut out = String::new();
                let _ = BufReader::new(stdout).read_to_string(&mut out);
                out
            });
            let mut messages = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let progress = serde_json::from_str::<Value>(&line)
                    .ok()
                    .filter(|v| v["$idp"] == "progress")
                    .and_then(|v| v["text"].as_str().map(str::to_string));
                match progress {
                    Some(text) => {
                        let _ = events.send(Event::Progress(run_token.clone(), text));
                    }
                    None => {
                        messages.push_str(&line);
                        messages.push('\n');
                    }
                }
            }
            let stdout = out_reader.join().unwrap_or_default();
            let status = wait_for(&waited);
            let _ = events.send(Event::Done(Box::new(Finished {
                id: run_id,
                uri: run_command.uri.clone(),
                command: run_command,
                code: status.and_then(|s| s.code()),
                stdout,
                stderr: messages,
                elapsed: started.elapsed(),
                cancelled: false,
                token: run_token,
            })));
        });
        self.running.insert(
            id,
            Running {
                child,
                command,
                cancelled: false,
            },
        );
        Ok(())
    }

    /// Ends the run that request `id` started (its answer comes when the child has ended).
    pub fn cancel(&mut self, id: &RequestId) {
        let Some(run) = self.running.get_mut(id) else {
            return;
        };
        run.cancelled = true;
        if let Ok(mut child) = run.child.lock() {
            let _ = child.kill();
        }
    }

    /// Ends every run (the editor shut the server down).
    pub fn cancel_all(&mut self) {
        let ids: Vec<RequestId> = self.running.keys().cloned().collect();
        for id in ids {
            self.cancel(&id);
        }
    }

    /// Records a run's outcome; the answer to its command.
    pub fn finish(&mut self, mut done: Finished) -> Response {
        let cancelled = self.running.remove(&done.id).is_some_and(|r| r.cancelled);
        done.cancelled = cancelled;
        let outcome = done.outcome();
        self.outcomes.insert(
            (done.uri.clone(), done.command.key()),
            (outcome.clone(), done.output()),
        );
        if cancelled {
            return Response::new_err(
                done.id,
                ErrorCode::RequestCanceled as i32,
                "the run was cancelled".into(),
            );
        }
        Response::new_ok(
            done.id.clone(),
            json!({ "outcome": outcome, "exitCode": done.code, "output": done.output() }),
        )
    }

    /// The lenses of a document, with the outcome of their last run in their titles.
    pub fn lenses(&self, a: &Analysis, uri: &Url) -> Vec<CodeLens> {
        let lines = Lines::of(a);
        let mut out = Vec::new();
        for (theory, span) in theories(&a.ast.items) {
            let Some(range) = lines.range(span) else {
                continue;
            };
            let at = Range::new(range.start, range.start);
            for structure in structures_for(a, &theory) {
                for mode in [Mode::Run, Mode::Count, Mode::Explain] {
                    let command = Command {
                        uri: uri.clone(),
                        theory: theory.clone(),
                        structure: structure.clone(),
                        mode,
                    };
                    out.push(self.lens(at, command));
                }
            }
        }
        for p in &a.program.procedures {
            let Some(range) = lines.range(p.span) else {
                continue;
            };
            let command = Command {
                uri: uri.clone(),
                theory: String::new(),
                structure: String::new(),
                mode: Mode::Procedure(p.name.clone()),
            };
            out.push(self.lens(Range::new(range.start, range.start), command));
        }
        out
    }

    fn lens(&self, range: Range, command: Command) -> CodeLens {
        let mut title = command.title();
        let running = self
            .running
            .values()
            .any(|r| r.command.uri == command.uri && r.command.key() == command.key());
        if running {
            title.push_str(" (running…)");
        } else if let Some((outcome, _)) = self.outcomes.get(&(command.uri.clone(), command.key()))
        {
            title.push_str(&format!(" — {outcome}"));
        }
        let argument = match &command.mode {
            Mode::Procedure(name) => json!({ "uri": command.uri, "procedure": name }),
            mode => json!({
                "uri": command.uri,
                "theory": command.theory,
                "structure": command.structure,
                "mode": format!("{mode:?}").to_lowercase(),
            }),
        };
        CodeLens {
            range,
            command: Some(LspCommand {
                title,
                command: COMMANDS[0].into(),
                arguments: Some(vec![argument]),
            }),
            data: None,
        }
    }

    /// The output of the last runs of the block whose first line holds `position`.
    pub fn hover(&self, uri: &Url, position: Position, a: &Analysis) -> Option<Hover> {
        let mut texts = Vec::new();
        for lens in self.lenses(a, uri) {
            if lens.range.start.line != position.line {
                continue;
            }
            let Some(argument) = lens
                .command
                .as_ref()
                .and_then(|c| c.arguments.as_ref()?.first().cloned())
            else {
                continue;
            };
            let params = ExecuteCommandParams {
                command: COMMANDS[0].into(),
                arguments: vec![argument],
                work_done_progress_params: Default::default(),
            };
            let Ok(command) = Command::parse(&params) else {
                continue;
            };
            if let Some((outcome, output)) = self.outcomes.get(&(uri.clone(), command.key())) {
                texts.push(format!(
                    "**{}** — {outcome}\n\n```\n{}\n```",
                    command.title(),
                    output.trim_end()
                ));
            }
        }
        (!texts.is_empty()).then(|| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: texts.join("\n\n"),
            }),
            range: None,
        })
    }
}

/// Waits for a child whose output has ended, taking the lock only to look (a cancel may kill
/// it meanwhile).
fn wait_for(child: &Mutex<Child>) -> Option<std::process::ExitStatus> {
    loop {
        match child.lock().ok()?.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return None,
        }
    }
}

/// The theories of the document (name, span).
fn theories(items: &[ast::Item]) -> Vec<(String, crate::source::Span)> {
    items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Theory(t) => Some((t.name.name.clone(), t.span)),
            _ => None,
        })
        .collect()
}

/// The structures over the vocabulary of theory `theory`.
fn structures_for(a: &Analysis, theory: &str) -> Vec<String> {
    let p = &a.program;
    let Some(Component::Theory(t)) = p.namespaces[0].members.get(theory) else {
        return Vec::new();
    };
    let voc = p.theory(*t).vocabulary;
    p.namespaces[0]
        .members
        .iter()
        .filter_map(|(name, c)| match c {
            Component::Structure(s) if p.structures[s.index()].vocabulary == voc => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

/// `$/progress` when a run starts.
pub fn progress_begin(token: &NumberOrString, command: &Command) -> ProgressParams {
    ProgressParams {
        token: token.clone(),
        value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: format!("idp: {}", command.title().trim_start_matches("▶ ")),
            cancellable: Some(true),
            message: None,
            percentage: None,
        })),
    }
}

/// `$/progress` with a progress line of the child.
pub fn progress_report(token: &NumberOrString, text: &str) -> ProgressParams {
    ProgressParams {
        token: token.clone(),
        value: ProgressParamsValue::WorkDone(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(true),
            message: Some(text.to_string()),
            percentage: None,
        })),
    }
}

/// `$/progress` when a run ends.
pub fn progress_end(done: &Finished) -> ProgressParams {
    ProgressParams {
        token: done.token.clone(),
        value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(done.outcome()),
        })),
    }
}

/// The explanation of a run without a model as diagnostics: each `stdin:L:C: ...` line of
/// `Why:` at the sentence, definition or structure line it names, with the instances under it.
pub fn core_diagnostics(a: &Analysis, done: &Finished) -> Vec<Diagnostic> {
    let Some(why) = done.stdout.find("Why:") else {
        return Vec::new();
    };
    let lines = Lines::of(a);
    let text = &done.stdout[why..];
    let mut out: Vec<Diagnostic> = Vec::new();
    for line in text.lines().skip(1) {
        let trimmed = line.trim_start();
        if let Some((line_no, col, what)) = located(trimmed) {
            let offset = line_start(lines.text, line_no) + col.saturating_sub(1);
            let end = lines.text[offset.min(lines.text.len())..]
                .find('\n')
                .map_or(lines.text.len(), |e| offset + e);
            out.push(Diagnostic {
                range: lines.index.range(lines.text, offset, end),
                severity: Some(DiagnosticSeverity::INFORMATION),
                code: Some(NumberOrString::String("no-model".into())),
                source: Some("idp explain".into()),
                message: format!(
                    "part of why {} has no model with {}: {what}",
                    done.command.theory, done.command.structure
                ),
                ..Default::default()
            });
        } else if line.starts_with("      ") {
            if let Some(last) = out.last_mut() {
                last.message.push('\n');
                last.message.push_str(trimmed);
            }
        }
    }
    out
}

/// `stdin:8:3: rest` → (8, 3, rest).
fn located(line: &str) -> Option<(usize, usize, &str)> {
    let rest = line.strip_prefix("stdin:")?;
    let (l, rest) = rest.split_once(':')?;
    let (c, rest) = rest.split_once(':')?;
    Some((l.parse().ok()?, c.parse().ok()?, rest.trim()))
}

/// The byte offset where 1-based line `n` starts.
fn line_start(text: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(n - 2)
        .map_or(text.len(), |(k, _)| k + 1)
}
