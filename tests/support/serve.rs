//! Helpers for the tests of `idp serve` (`tests/serve.rs`, `tests/serve_browser.rs`): a
//! server started in a folder on a free port (killed when dropped), a small HTTP/1.0 client
//! over `std::net` that sends the launch's token and a page's name, and runs started and
//! polled to their end.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A fresh, empty folder of this test binary's own (see [`super::test_dir`]).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = super::test_dir(&format!("serve-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A running `idp serve`.
pub struct Server {
    child: Child,
    /// The address printed, with the token.
    pub url: String,
    pub port: u16,
    pub token: String,
    /// The page the server's own requests come from.
    client: Page,
}

/// Requests as one page: the token and the page's name in their headers.
#[derive(Clone)]
pub struct Page {
    pub port: u16,
    pub token: String,
    pub name: String,
}

impl Server {
    /// Starts `idp serve --port 0 ARGS` in `dir` and reads its address from the first line.
    pub fn start(dir: &Path, args: &[&str]) -> Server {
        let mut child = super::idp_command()
            .arg("serve")
            .args(["--port", "0"])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("idp serve starts");
        let mut first = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("idp serve prints its address");
        let url = first
            .split_whitespace()
            .nth(2)
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let (address, token) = url
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("no token in {url}"));
        let port = address
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {url}"));
        let token = token.to_string();
        let client = Page {
            port,
            token: token.clone(),
            name: "test-page-0".into(),
        };
        Server {
            child,
            url,
            port,
            token,
            client,
        }
    }

    /// Requests as the page named `name`.
    pub fn page(&self, name: &str) -> Page {
        Page {
            name: name.to_string(),
            ..self.client.clone()
        }
    }

    /// Whether the server process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        self.client.get(path)
    }

    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.client.post(path, body)
    }

    /// Starts a run and returns its id (panics if the server refuses).
    pub fn start_run(&self, body: &Value) -> String {
        self.client.start_run(body)
    }

    /// Polls run `id` until it has ended (at most `limit`); returns its last status.
    pub fn wait_run(&self, id: &str, limit: Duration) -> Value {
        self.client.wait_run(id, limit)
    }

    /// Starts a run and waits for its end.
    pub fn run(&self, body: &Value) -> Value {
        self.client.run(body)
    }
}

impl Page {
    /// The token and page headers, then `extra`.
    fn headers<'a>(&'a self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut all = vec![
            ("X-Idp-Token", self.token.as_str()),
            ("X-Idp-Page", self.name.as_str()),
        ];
        all.extend_from_slice(extra);
        all
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        request(self.port, "GET", path, None, &self.headers(&[]))
    }

    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        request(self.port, "POST", path, Some(body), &self.headers(&[]))
    }

    /// A request with more headers (they replace the defaults of the same name).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<String>,
        extra: &[(&str, &str)],
    ) -> (u16, String) {
        request_text(self.port, method, path, body, &self.headers(extra))
    }

    /// Starts a run and returns its id (panics if the server refuses).
    pub fn start_run(&self, body: &Value) -> String {
        let (status, v) = self.post("/api/run", body);
        assert_eq!(status, 200, "run refused: {v}");
        v["id"].as_str().expect("a run id").to_string()
    }

    /// Polls run `id` until it has ended (at most `limit`); returns its last status.
    pub fn wait_run(&self, id: &str, limit: Duration) -> Value {
        let start = Instant::now();
        loop {
            let (status, v) = self.get(&format!("/api/runs/{id}"));
            assert_eq!(status, 200, "poll failed: {v}");
            if v["running"] == false {
                return v;
            }
            assert!(
                start.elapsed() < limit,
                "run {id} still going after {limit:?}: {v}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts a run and waits for its end.
    pub fn run(&self, body: &Value) -> Value {
        let id = self.start_run(body);
        self.wait_run(&id, Duration::from_secs(180))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A run request for `path` (relative to the server's folder) with the file's text.
pub fn run_body(dir: &Path, path: &str, extra: Value) -> Value {
    let text = std::fs::read_to_string(dir.join(path)).expect("the spec exists");
    let mut body = json!({ "path": path, "text": text });
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    body
}

/// One HTTP/1.0 request to 127.0.0.1:`port`; the status and the JSON body (Null if the body
/// is not JSON). `headers` are sent; they may replace Host or Content-Type (an empty value
/// leaves the header out).
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let (status, text) = request_text(port, method, path, body.map(|b| b.to_string()), headers);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// [`request`] with the body as text.
pub fn request_text(
    port: u16,
    method: &str,
    path: &str,
    body: Option<String>,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    let body = body.unwrap_or_default();
    // HTTP/1.0: the answer comes whole, never in chunks.
    let mut head = format!("{method} {path} HTTP/1.0\r\nConnection: close\r\n");
    let mut named = |name: &str, default: String| {
        let value = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.to_string())
            .unwrap_or(default);
        if !value.is_empty() {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    };
    named("Host", format!("127.0.0.1:{port}"));
    if method == "POST" {
        named("Content-Type", "application/json".into());
    }
    for (name, value) in headers {
        let known = ["Host", "Content-Type"]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(name));
        if !known {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).expect("request written");
    stream.write_all(body.as_bytes()).expect("body written");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("a response");
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {response:?}"));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, body.to_string())
}

/// The segments of a finished run of kind `kind` ("model", "picture", "text").
pub fn segments<'a>(status: &'a Value, kind: &str) -> Vec<&'a Value> {
    status["segments"]
        .as_array()
        .map(|a| a.iter().filter(|s| s["kind"] == kind).collect())
        .unwrap_or_default()
}

/// The rows of symbol `name` in a model segment.
pub fn rows(model: &Value, name: &str) -> Vec<Vec<String>> {
    let symbol = model["symbols"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no symbol {name} in {model}"));
    symbol["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    r.as_array()
                        .map(|c| {
                            c.iter()
                                .map(|x| x.as_str().unwrap_or("").to_string())
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the idp binary on a file with `args` in `dir`: (exit code, stdout, stderr).
pub fn idp(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = super::idp_command()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("idp runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
