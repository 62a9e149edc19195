//! The driver of `idp lsp` for the protocol tests: an editor's side of an in-memory
//! connection (the server on a thread of its own, as `idp lsp` runs it), or of the real
//! binary over stdio; transcripts of requests and answers compared with snapshot files.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

/// The folder of the protocol tests' files.
pub fn dir() -> PathBuf {
    super::crate_dir().join("tests/lsp")
}

/// The address of a test file.
pub fn uri(name: &str) -> String {
    lsp_types::Url::from_file_path(dir().join(name))
        .expect("an absolute path")
        .to_string()
}

/// How messages travel: in memory or over the binary's stdio.
enum Wire {
    Memory {
        client: Connection,
        server: Option<std::thread::JoinHandle<Result<(), String>>>,
    },
    Stdio {
        child: Child,
        input: ChildStdin,
        output: BufReader<ChildStdout>,
    },
}

/// An editor talking to one server.
pub struct Editor {
    wire: Wire,
    next: i32,
    /// Messages read while waiting for another.
    backlog: Vec<Message>,
    /// What was asked and answered, for the snapshot.
    pub transcript: String,
}

impl Editor {
    /// A server in this process on an in-memory connection, initialised.
    pub fn in_memory() -> Editor {
        let (server, client) = Connection::memory();
        let handle = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || idp::lsp::serve(&server, Path::new(super::IDP)))
            .expect("the server thread starts");
        Editor::initialised(Wire::Memory {
            client,
            server: Some(handle),
        })
    }

    /// `idp lsp` as a process, initialised.
    pub fn over_stdio() -> Editor {
        let mut child = Command::new(super::IDP)
            .arg("lsp")
            .current_dir(super::crate_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("idp lsp starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Editor::initialised(Wire::Stdio {
            child,
            input,
            output,
        })
    }

    fn initialised(wire: Wire) -> Editor {
        let mut editor = Editor {
            wire,
            next: 0,
            backlog: Vec::new(),
            transcript: String::new(),
        };
        let result = editor.request(
            "initialize",
            json!({ "capabilities": {}, "processId": null }),
        );
        assert_eq!(result["serverInfo"]["name"], "idp", "{result}");
        editor.notify("initialized", json!({}));
        editor.transcript.clear();
        editor
    }

    fn send(&mut self, message: Message) {
        match &mut self.wire {
            Wire::Memory { client, .. } => client.sender.send(message).expect("the server listens"),
            Wire::Stdio { input, .. } => {
                let text = match &message {
                    Message::Request(r) => serde_json::to_string(&json!({"jsonrpc": "2.0", "id": r.id, "method": r.method, "params": r.params})),
                    Message::Notification(n) => serde_json::to_string(&json!({"jsonrpc": "2.0", "method": n.method, "params": n.params})),
                    Message::Response(r) => serde_json::to_string(r),
                }
                .unwrap();
                write!(input, "Content-Length: {}\r\n\r\n{text}", text.len()).unwrap();
                input.flush().unwrap();
            }
        }
    }

    fn receive(&mut self) -> Message {
        match &mut self.wire {
            Wire::Memory { client, .. } => client
                .receiver
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answers within a minute"),
            Wire::Stdio { output, .. } => {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    output.read_line(&mut line).expect("the server writes");
                    assert!(!line.is_empty(), "the server closed its output");
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                output.read_exact(&mut body).unwrap();
                let v: Value = serde_json::from_slice(&body).unwrap();
                if v.get("method").is_some() && v.get("id").is_some() {
                    Message::Request(serde_json::from_value(v).unwrap())
                } else if v.get("method").is_some() {
                    Message::Notification(serde_json::from_value(v).unwrap())
                } else {
                    Message::Response(serde_json::from_value(v).unwrap())
                }
            }
        }
    }

    /// Sends a request and waits for its answer: its result, or `{"error": ...}`.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start(method, params.clone());
        self.answer(id, method, &params)
    }

    /// Sends a request and waits for its answer, recording `view` of it instead of it.
    pub fn request_viewed(
        &mut self,
        method: &str,
        params: Value,
        view: impl Fn(&Value) -> Value,
    ) -> Value {
        let id = self.start(method, params.clone());
        let mark = self.transcript.len();
        let answer = self.answer(id, method, &params);
        self.transcript.truncate(mark);
        self.record(method, &params, &view(&answer));
        answer
    }

    /// Sends a request without waiting; its id.
    pub fn start(&mut self, method: &str, params: Value) -> RequestId {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.send(Message::Request(Request::new(
            id.clone(),
            method.into(),
            params,
        )));
        id
    }

    /// Waits for the answer to request `id`.
    pub fn answer(&mut self, id: RequestId, method: &str, params: &Value) -> Value {
        let answer = loop {
            match self.receive() {
                Message::Response(r) if r.id == id => {
                    break match r.response_result {
                        Err(e) => json!({ "error": { "code": e.code, "message": e.message } }),
                        Ok(result) => result,
                    };
                }
                other => self.backlog.push(other),
            }
        };
        self.record(method, params, &answer);
        answer
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(Message::Notification(Notification::new(
            method.into(),
            params,
        )));
    }

    /// Opens a test file as the editor would.
    pub fn open(&mut self, name: &str) -> String {
        let text = std::fs::read_to_string(dir().join(name)).expect("the test file exists");
        self.open_text(name, &text)
    }

    /// Opens `text` as the test file `name`.
    pub fn open_text(&mut self, name: &str, text: &str) -> String {
        let uri = uri(name);
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "idp", "version": 1, "text": text } }),
        );
        uri
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        let is_it = |m: &Message| {
            matches!(m, Message::Notification(n)
            if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri)
        };
        if let Some(k) = self.backlog.iter().position(is_it) {
            let Message::Notification(n) = self.backlog.remove(k) else {
                unreachable!()
            };
            return self.recorded_diagnostics(n.params);
        }
        loop {
            let m = self.receive();
            if is_it(&m) {
                let Message::Notification(n) = m else {
                    unreachable!()
                };
                return self.recorded_diagnostics(n.params);
            }
            self.backlog.push(m);
        }
    }

    fn recorded_diagnostics(&mut self, params: Value) -> Value {
        self.record(
            "textDocument/publishDiagnostics",
            &json!({ "uri": params["uri"] }),
            &params["diagnostics"],
        );
        params["diagnostics"].clone()
    }

    /// The notifications and requests the server sent (and that nothing waited for).
    pub fn sent_by_server(&mut self, method: &str) -> Vec<Value> {
        let mut out = Vec::new();
        self.backlog.retain(|m| match m {
            Message::Notification(n) if n.method == method => {
                out.push(n.params.clone());
                false
            }
            Message::Request(r) if r.method == method => {
                out.push(r.params.clone());
                false
            }
            _ => true,
        });
        out
    }

    fn record(&mut self, method: &str, params: &Value, answer: &Value) {
        // The crate's folder as it appears in addresses (percent-encoded) and in paths.
        let root_url = lsp_types::Url::from_file_path(super::crate_dir()).unwrap();
        let root_url = root_url.as_str().trim_start_matches("file://");
        let root = super::crate_dir().display().to_string();
        let normal = |text: String| text.replace(root_url, "$ROOT").replace(&root, "$ROOT");
        let params = normal(compact(params).to_string());
        let answer = normal(serde_json::to_string_pretty(&compact(answer)).unwrap());
        self.transcript
            .push_str(&format!("### {method} {params}\n{answer}\n\n"));
    }

    /// `shutdown` and `exit`; the server must end cleanly.
    pub fn close(mut self) {
        let id = self.start("shutdown", Value::Null);
        let answer = self.answer(id, "shutdown", &Value::Null);
        assert_eq!(answer, Value::Null);
        self.notify("exit", Value::Null);
        match &mut self.wire {
            Wire::Memory { server, .. } => {
                let outcome = server
                    .take()
                    .unwrap()
                    .join()
                    .expect("the server did not panic");
                assert_eq!(outcome, Ok(()));
            }
            Wire::Stdio { child, .. } => {
                let started = Instant::now();
                loop {
                    if let Some(status) = child.try_wait().unwrap() {
                        assert!(status.success(), "idp lsp ended with {status}");
                        break;
                    }
                    assert!(
                        started.elapsed() < Duration::from_secs(10),
                        "idp lsp did not exit"
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }
}

/// A value with each range and position written `line:col-line:col` and `line:col` (from 0,
/// as the protocol counts), so that snapshots read at a glance.
pub fn compact(value: &Value) -> Value {
    let position = |v: &Value| -> Option<String> {
        let (line, col) = (v.get("line")?.as_u64()?, v.get("character")?.as_u64()?);
        (v.as_object()?.len() == 2).then(|| format!("{line}:{col}"))
    };
    match value {
        Value::Object(map) => {
            if let (Some(start), Some(end), 2) = (
                map.get("start").and_then(position),
                map.get("end").and_then(position),
                map.len(),
            ) {
                return json!(format!("{start}-{end}"));
            }
            if let Some(p) = position(value) {
                return json!(p);
            }
            Value::Object(map.iter().map(|(k, v)| (k.clone(), compact(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(compact).collect()),
        other => other.clone(),
    }
}

/// A position parameter.
pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

/// Compares a transcript with `tests/lsp/NAME.snap` (`IDP_BLESS=1` writes it).
pub fn assert_snapshot(name: &str, transcript: &str) {
    let path = dir().join(format!("{name}.snap"));
    if std::env::var_os("IDP_BLESS").is_some() {
        std::fs::write(&path, transcript).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: bless it with IDP_BLESS=1", path.display()));
    if expected != transcript {
        let line = expected
            .lines()
            .zip(transcript.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(transcript.lines().count()));
        panic!(
            "{} differs from the answers at line {}:\n  expected: {}\n  actual:   {}\n(re-bless with IDP_BLESS=1 after checking)",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            transcript.lines().nth(line).unwrap_or("<end>")
        );
    }
}
