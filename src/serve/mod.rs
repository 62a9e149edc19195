//! `idp serve [FILE...] [--port N] [--open]`: the workbench in the browser.
//!
//! A small HTTP server (tiny_http), on 127.0.0.1 unless told otherwise, serves one page (the
//! CodeMirror bundle built from `web/` and embedded in the binary) and a JSON API under
//! `/api/`: the file list (the files given, then the `examples/` and `specs/` gallery), reading
//! and saving files inside the folder it was started in, checking a buffer (a child
//! `idp --check`, for diagnostics as you type), and runs. Every check and run is a child
//! `idp --sandbox` process with time and memory limits ([`child`]), so a runaway
//! specification ends its own process, never the server; procedures may read the folder's
//! files. The API needs the token made at each launch, and runs belong to their page
//! ([`access`]); the number of runs at once and their memory are sized to the machine unless
//! given ([`machine_limits`]). A consultation (`idp consult`, questions answered one by one
//! on a live solver) is a child too, kept for as long as its page asks questions
//! ([`consults`]).

mod access;
mod api;
mod assets;
mod child;
mod consults;
mod files;
mod http;
mod jobs;
mod output;
mod wording;

use std::fmt;

use clap::Parser;

/// What went wrong with a request; each kind has its HTTP status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServeError {
    BadRequest(String),
    Forbidden(String),
    NotFound(String),
    TooMany(String),
    Internal(String),
}

impl ServeError {
    pub fn status(&self) -> u16 {
        match self {
            ServeError::BadRequest(_) => 400,
            ServeError::Forbidden(_) => 403,
            ServeError::NotFound(_) => 404,
            ServeError::TooMany(_) => 429,
            ServeError::Internal(_) => 500,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            ServeError::BadRequest(m)
            | ServeError::Forbidden(m)
            | ServeError::NotFound(m)
            | ServeError::TooMany(m)
            | ServeError::Internal(m) => m,
        }
    }
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ServeError {}

/// The options of `idp serve`.
#[derive(Parser, Debug)]
#[command(
    name = "idp serve",
    about = "The idp workbench in the browser: edit, check, run and draw specifications",
    after_help = "The page opens the FILEs given, and lists the .idp files of examples/ and \
                  specs/. The folder served is the current one, or the first FILE's folder when \
                  that file lies outside it; files are read and saved only inside the folder \
                  served. Open the address printed: it carries the token of this launch, which \
                  every request needs. Every check and run is a child `idp --sandbox` process \
                  with the limits below, whose procedures may read (not write) the folder's \
                  files; a run belongs to the page that started it and ends when it closes."
)]
pub struct ServeArgs {
    /// Specification files to open (inside the folder served)
    pub files: Vec<String>,
    /// The port to listen on (0: any free port)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on; anything but a loopback address lets other machines in
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
    /// The time limit of a run, seconds
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// The memory limit of a run, MB (default: at most 2000, so that the runs going on at
    /// once fit in three quarters of the memory)
    #[arg(long)]
    pub max_memory: Option<u64>,
    /// Runs going on at once, at most; later ones wait in line (default: the number of
    /// processors, from 2 to 16)
    #[arg(long)]
    pub max_runs: Option<usize>,
}

/// The memory limit of one run by default, MB, at most.
const DEFAULT_RUN_MEMORY_MB: u64 = 2000;
/// The memory limit of one run, MB, at least (when the machine is small).
const MIN_RUN_MEMORY_MB: u64 = 256;

/// The runs at once and the memory of each (MB): those given, else sized to the machine.
pub fn machine_limits(runs: Option<usize>, memory_mb: Option<u64>) -> (usize, u64) {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runs = runs.unwrap_or_else(|| cpus.clamp(2, 16)).max(1);
    let budget = crate::limits::default_max_memory_mb().unwrap_or(4 * DEFAULT_RUN_MEMORY_MB);
    let share = (budget / runs as u64).clamp(MIN_RUN_MEMORY_MB, DEFAULT_RUN_MEMORY_MB);
    (runs, memory_mb.unwrap_or(share))
}

/// Runs `idp serve ARGS` (the arguments after `serve`); returns the exit code. `web`: the
/// folder to read the page's own files from instead of the built-in ones (`IDP_SERVE_WEB`).
pub fn run(args: &[String], web: Option<std::path::PathBuf>) -> i32 {
    let argv = std::iter::once("idp serve".to_string()).chain(args.iter().cloned());
    let parsed = match ServeArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 1 } else { 0 };
        }
    };
    match start(parsed, web) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

/// Checks the options, binds the port and serves until the process is stopped.
fn start(args: ServeArgs, web: Option<std::path::PathBuf>) -> Result<(), ServeError> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(ServeError::BadRequest(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| ServeError::Internal(format!("no current folder: {e}")))?;
    let folder = served_folder(&cwd, &args.files);
    let root = files::Root::new(&folder)?;
    let served = root.dir().display().to_string();
    let mut opened = Vec::new();
    for f in &args.files {
        let path = root.existing(f)?;
        opened.push(root.relative(&path).unwrap_or_else(|| f.clone()));
    }
    let (max_runs, max_memory_mb) = machine_limits(args.max_runs, args.max_memory);
    let config = http::Config {
        root,
        opened,
        exe: child::current_exe()?,
        limits: child::Limits {
            timeout: args.timeout,
            max_memory_mb,
        },
        max_runs,
        token: access::random_hex(16)?,
        web,
    };
    let server = http::Server::bind(&args.host, args.port, config)?;
    let url = server.url();
    use std::io::Write;
    // Whoever started the server may have stopped reading its output: no panic for that.
    let _ = writeln!(
        std::io::stdout(),
        "idp serve: {url} (folder {served}; Ctrl-C stops)\n  runs: {max_runs} at once (more \
         wait in line), each at most {} s and {max_memory_mb} MB",
        args.timeout
    );
    if !server.is_loopback() {
        eprintln!(
            "Warning: listening on {}: other machines that have the address (and its token) can read and save files in this folder",
            args.host
        );
    }
    let _ = std::io::stdout().flush();
    if args.open {
        open_browser(&url);
    }
    server.serve();
    Ok(())
}

/// The folder to serve: the current one, unless the first file given lies outside it (`idp
/// serve ~/course/maze.idp` from anywhere); then that file's folder. The files must all lie
/// inside the folder served (checked when they are opened).
fn served_folder(cwd: &std::path::Path, files: &[String]) -> std::path::PathBuf {
    let Some(first) = files.first() else {
        return cwd.to_path_buf();
    };
    let real = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let file = real(&cwd.join(first));
    if file.starts_with(real(cwd)) {
        return cwd.to_path_buf();
    }
    file.parent()
        .map_or_else(|| cwd.to_path_buf(), |p| p.to_path_buf())
}

/// Opens `url` with the desktop's browser (xdg-open, or open on macOS); a failure is a note.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("Note: could not start {opener} ({e}); open {url} yourself");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_given_are_kept_and_defaults_fit_the_machine() {
        assert_eq!(machine_limits(Some(3), Some(700)), (3, 700));
        let (runs, mb) = machine_limits(None, None);
        assert!((2..=16).contains(&runs), "{runs}");
        assert!(
            (MIN_RUN_MEMORY_MB..=DEFAULT_RUN_MEMORY_MB).contains(&mb),
            "{mb}"
        );
        let (_, one) = machine_limits(Some(1), None);
        assert!(one >= mb);
    }
}
