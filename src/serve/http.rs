//! The HTTP side: binding, one thread per request (at most [`MAX_IN_FLIGHT`] at once), the
//! routes, and the guards: on a loopback address only requests whose `Host` is a loopback
//! name are answered (no DNS rebinding), every API request carries the launch's token and
//! runs are asked about by the page that started them ([`super::access`]), and requests that
//! change anything must be JSON (`Content-Type: application/json`, which a page of another
//! site cannot send without the browser asking first).

use std::io::Read;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tiny_http::{Header, Method, Request, Response};

use super::access::{self, check_token, page_of};
use super::api::{self, Buffer, RunRequest, SaveRequest};
use super::child::Limits;
use super::consults::{self, ConsultRequest, Consultations};
use super::files::{Root, MAX_FILE_BYTES};
use super::jobs::Jobs;
use super::{assets, ServeError};

/// Requests handled at once; more are answered 503 at once.
const MAX_IN_FLIGHT: usize = 64;

/// What the server needs to know.
pub struct Config {
    pub root: Root,
    /// The files given on the command line, relative to the root.
    pub opened: Vec<String>,
    /// The `idp` binary that children run.
    pub exe: std::path::PathBuf,
    /// The limits of one run (requests may ask for less).
    pub limits: Limits,
    pub max_runs: usize,
    /// The launch's token (see [`super::access`]).
    pub token: String,
    /// The folder the page's own files are read from, if not the built-in ones
    /// (`IDP_SERVE_WEB`, see [`super::assets`]).
    pub web: Option<std::path::PathBuf>,
}

struct App {
    config: Config,
    jobs: Jobs,
    consults: Consultations,
    in_flight: AtomicUsize,
    port: u16,
    loopback: bool,
}

/// A bound server.
pub struct Server {
    http: tiny_http::Server,
    app: Arc<App>,
    addr: SocketAddr,
}

/// A successful answer.
enum Reply {
    Json(Value),
    File(&'static str, Vec<u8>),
}

impl Server {
    /// Binds `host:port` (port 0: any free port).
    pub fn bind(host: &str, port: u16, config: Config) -> Result<Server, ServeError> {
        let addr = (host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| ServeError::BadRequest(format!("cannot listen on {host}")))?;
        let http = tiny_http::Server::http(addr).map_err(|e| {
            ServeError::BadRequest(format!(
                "cannot listen on {addr}: {e} (choose another port with --port N, or --port 0)"
            ))
        })?;
        let addr = http.server_addr().to_ip().unwrap_or(addr);
        let jobs = Jobs::new(config.exe.clone(), config.max_runs);
        let consults = Consultations::new(consults::Settings {
            exe: config.exe.clone(),
            root: config.root.dir().to_path_buf(),
            max_memory_mb: config.limits.max_memory_mb,
            question_timeout: std::time::Duration::from_secs_f64(config.limits.timeout),
            max_open: config.max_runs * 2,
        });
        let app = Arc::new(App {
            config,
            jobs,
            consults,
            in_flight: AtomicUsize::new(0),
            port: addr.port(),
            loopback: addr.ip().is_loopback(),
        });
        Ok(Server { http, app, addr })
    }

    /// The page's address, with the token.
    pub fn url(&self) -> String {
        let token = &self.app.config.token;
        match self.addr.ip() {
            IpAddr::V6(ip) => format!("http://[{ip}]:{}/?token={token}", self.addr.port()),
            IpAddr::V4(ip) => format!("http://{ip}:{}/?token={token}", self.addr.port()),
        }
    }

    pub fn is_loopback(&self) -> bool {
        self.app.loopback
    }

    /// Answers requests until the process ends.
    pub fn serve(self) {
        for request in self.http.incoming_requests() {
            let app = Arc::clone(&self.app);
            if app.in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
                app.in_flight.fetch_sub(1, Ordering::SeqCst);
                let busy = ServeError::TooMany("the server is busy; try again".into());
                let _ = request.respond(error_response(&busy, 503));
                continue;
            }
            let spawned = std::thread::Builder::new().spawn(move || {
                handle(&app, request);
                app.in_flight.fetch_sub(1, Ordering::SeqCst);
            });
            if spawned.is_err() {
                self.app.in_flight.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

fn handle(app: &App, mut request: Request) {
    let response = match route(app, &mut request) {
        Ok(Reply::Json(v)) => json_response(&v, 200),
        Ok(Reply::File(content_type, body)) => with_header(
            with_header(Response::from_data(body), "Content-Type", content_type),
            "X-Content-Type-Options",
            "nosniff",
        ),
        Err(e) => error_response(&e, e.status()),
    };
    // The page may have gone away; nothing to do then.
    let _ = request.respond(response);
}

fn route(app: &App, request: &mut Request) -> Result<Reply, ServeError> {
    if !host_allowed(app, request) {
        return Err(ServeError::Forbidden(
            "this server answers only requests addressed to localhost".into(),
        ));
    }
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let method = request.method().clone();
    if !path.starts_with("/api/") {
        return page_file(&method, path, app.config.web.as_deref());
    }
    check_token(request, &app.config.token)?;
    if method == Method::Post {
        require_json(request)?;
    }
    let cfg = &app.config;
    match (&method, path) {
        (Method::Get, "/api/health") => {
            let (running, remembered) = app.jobs.counts();
            let most_running = app.jobs.most_running();
            Ok(Reply::Json(json!({
                "ok": true,
                "running": running,
                "runs": remembered,
                "most_running": most_running,
                "slots_taken": app.jobs.slots_taken(),
                "consultations": app.consults.count(),
            })))
        }
        (Method::Get, "/api/files") => Ok(Reply::Json(json!({
            "folder": cfg.root.dir().file_name().map(|n| n.to_string_lossy().into_owned()),
            "opened": cfg.opened,
            "gallery": cfg.root.gallery(),
            "limits": {
                "timeout": cfg.limits.timeout,
                "max_memory": cfg.limits.max_memory_mb,
                "max_runs": cfg.max_runs,
            },
        }))),
        (Method::Get, "/api/file") => {
            let rel = query_param(query, "path").unwrap_or_default();
            let text = cfg.root.read(&rel)?;
            Ok(Reply::Json(json!({ "path": rel, "text": text })))
        }
        (Method::Post, "/api/save") => {
            let r: SaveRequest = body(request)?;
            let b = &r.buffer;
            let saved = cfg.root.save(&b.path, &b.text, r.new)?;
            Ok(Reply::Json(
                json!({ "saved": saved, "bytes": b.text.len() }),
            ))
        }
        (Method::Post, "/api/check") => {
            let b: Buffer = body(request)?;
            let result = api::check(&cfg.exe, &cfg.root, b)?;
            Ok(Reply::Json(
                serde_json::to_value(result).unwrap_or(Value::Null),
            ))
        }
        _ => route_runs(app, request, &method, path),
    }
}

/// `POST /api/run`, `GET /api/runs/ID`, `POST /api/runs/ID/stop`, the consultations
/// (`POST /api/consult`, `/api/consult/ID`, `/api/consult/ID/close`) and `POST /api/close` (the
/// page is going away): all about the runs and consultations of the page that asks.
fn route_runs(
    app: &App,
    request: &mut Request,
    method: &Method,
    path: &str,
) -> Result<Reply, ServeError> {
    let page = page_of(request)?;
    match (method, path) {
        (Method::Post, "/api/run") => {
            let r: RunRequest = body(request)?;
            let spec = api::run_spec(&app.config.root, r, app.config.limits)?;
            let id = app.jobs.start(spec, &page)?;
            return Ok(Reply::Json(json!({ "id": id })));
        }
        (Method::Post, "/api/close") => {
            return Ok(Reply::Json(json!({
                "cancelled": app.jobs.close_page(&page),
                "consultations_closed": app.consults.close_page(&page),
            })));
        }
        (Method::Post, "/api/consult") => {
            let r: ConsultRequest = body(request)?;
            let folder = api::folder(&app.config.root, &r.buffer)?;
            let (id, opened) = app.consults.open(r, folder, &page)?;
            return Ok(Reply::Json(json!({ "id": id, "open": opened })));
        }
        _ => {}
    }
    if let Some(rest) = path.strip_prefix("/api/consult/") {
        return route_consultation(app, request, &page, rest);
    }
    let Some(rest) = path.strip_prefix("/api/runs/") else {
        return Err(ServeError::NotFound(format!("no such request: {path}")));
    };
    let (id, action) = rest.split_once('/').unwrap_or((rest, ""));
    let job = app.jobs.get(id, &page)?;
    match (method, action) {
        (Method::Get, "") => Ok(Reply::Json(
            serde_json::to_value(job.status()).unwrap_or(Value::Null),
        )),
        (Method::Post, "stop") => Ok(Reply::Json(json!({ "stopping": job.stop() }))),
        _ => Err(ServeError::NotFound(format!("no such request: {path}"))),
    }
}

/// `POST /api/consult/ID` (a question: the JSON request of `idp consult`, answered with its
/// reply) and `POST /api/consult/ID/close`.
fn route_consultation(
    app: &App,
    request: &mut Request,
    page: &str,
    rest: &str,
) -> Result<Reply, ServeError> {
    match rest.split_once('/') {
        None => {
            let question: Value = body(request)?;
            if !question.is_object() {
                return Err(ServeError::BadRequest(
                    "a question is a JSON object with \"op\"".into(),
                ));
            }
            Ok(Reply::Json(app.consults.ask(rest, page, &question)?))
        }
        Some((id, "close")) => Ok(Reply::Json(
            json!({ "closed": app.consults.close(id, page) }),
        )),
        Some(_) => Err(ServeError::NotFound(format!(
            "no such request: /api/consult/{rest}"
        ))),
    }
}

/// The page's own files (no token: they hold nothing of the folder).
fn page_file(
    method: &Method,
    path: &str,
    web: Option<&std::path::Path>,
) -> Result<Reply, ServeError> {
    let found = assets::book_file(path).or_else(|| assets::find(path, web));
    match (method, found) {
        (Method::Get, Some((content_type, body))) => Ok(Reply::File(content_type, body)),
        _ => Err(ServeError::NotFound(format!("no such request: {path}"))),
    }
}

/// On a loopback address, the `Host` header must name a loopback host.
fn host_allowed(app: &App, request: &Request) -> bool {
    if !app.loopback {
        return true;
    }
    let Some(host) = access::header(request, "Host").map(str::to_ascii_lowercase) else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !name.ends_with(':') && port.parse() == Ok(app.port) => name,
        Some((name, _)) if name.starts_with('[') && host.ends_with(']') => host.as_str(),
        Some(_) => return false,
        None => host.as_str(),
    };
    matches!(name, "localhost" | "127.0.0.1" | "[::1]")
}

fn require_json(request: &Request) -> Result<(), ServeError> {
    let json = access::header(request, "Content-Type")
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
    if json {
        Ok(())
    } else {
        Err(ServeError::BadRequest(
            "requests that change anything must be JSON (Content-Type: application/json)".into(),
        ))
    }
}

/// The request's JSON body as `T`.
fn body<T: DeserializeOwned>(request: &mut Request) -> Result<T, ServeError> {
    let limit = (2 * MAX_FILE_BYTES + 4096) as u64;
    let mut text = String::new();
    request
        .as_reader()
        .take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|_| ServeError::BadRequest("the request body is not UTF-8 text".into()))?;
    if text.len() as u64 > limit {
        return Err(ServeError::BadRequest("the request is too large".into()));
    }
    serde_json::from_str(&text)
        .map_err(|e| ServeError::BadRequest(format!("the request is not what was expected: {e}")))
}

/// The value of `key` in a query string, percent-decoded.
fn query_param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| percent_decode(v))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

type Body = Response<std::io::Cursor<Vec<u8>>>;

/// `response` with the header `name: value` (names and values are ASCII constants here).
fn with_header(response: Body, name: &str, value: &str) -> Body {
    match Header::from_bytes(name.as_bytes(), value.as_bytes()) {
        Ok(h) => response.with_header(h),
        Err(()) => response,
    }
}

fn json_response(v: &Value, status: u16) -> Body {
    let response = Response::from_data(v.to_string().into_bytes()).with_status_code(status);
    let response = with_header(response, "Content-Type", "application/json");
    with_header(response, "Cache-Control", "no-store")
}

fn error_response(e: &ServeError, status: u16) -> Body {
    json_response(&json!({ "error": e.message() }), status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_are_decoded() {
        assert_eq!(
            query_param("a=1&path=specs%2Fmaze%2Fx+y.idp", "path").as_deref(),
            Some("specs/maze/x y.idp")
        );
        assert_eq!(query_param("a=1", "path"), None);
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }
}
