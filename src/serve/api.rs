//! What the page asks for, independent of HTTP: check a buffer, start a run (the arguments of
//! the child for `main` or an expression (`-e`), and for model expansion or minimisation the
//! command line's own `-n` inference, as `idp -n K --explain` runs it), save a file.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::child::{self, Limits};
use super::files::Root;
use super::jobs::Spec;
use super::ServeError;

/// Models drawn at most per run (each picture is an SVG document in the output).
const MAX_PICTURES: usize = 20;
/// Models asked for at most (0 = all is allowed too).
const MAX_MODELS: u32 = 100_000;
/// The longest expression run with `-e`.
const MAX_EXPRESSION: usize = 10_000;
/// A check's limits: parsing and type-checking only.
const CHECK_LIMITS: Limits = Limits {
    timeout: 10.0,
    max_memory_mb: 1000,
};

/// A buffer and the file it belongs to (relative to the root; "" for an unsaved buffer).
#[derive(Deserialize)]
pub struct Buffer {
    #[serde(default)]
    pub path: String,
    pub text: String,
}

/// A buffer to save: to its file, or to a `new` file (Save as, New), which must not exist.
#[derive(Deserialize)]
pub struct SaveRequest {
    #[serde(flatten)]
    pub buffer: Buffer,
    #[serde(default)]
    pub new: bool,
}

/// What to run.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The procedure `main`.
    #[default]
    Main,
    /// Model expansion of a theory and a structure.
    Expand,
    /// Minimisation of a term.
    Minimize,
}

/// A run request.
#[derive(Deserialize)]
pub struct RunRequest {
    #[serde(flatten)]
    pub buffer: Buffer,
    #[serde(default)]
    pub mode: Mode,
    pub theory: Option<String>,
    pub structure: Option<String>,
    pub term: Option<String>,
    /// With `main`: a Lua expression or statement to run instead (`-e`).
    pub expression: Option<String>,
    /// Models to find (0: all).
    #[serde(default = "one")]
    pub models: u32,
    /// Seconds; at most the server's limit.
    pub timeout: Option<f64>,
    /// MB; at most the server's limit.
    pub max_memory: Option<u64>,
    /// How pictures place a position's coordinates: `rows` or `xy` (`--grid`).
    pub grid: Option<String>,
}

fn one() -> u32 {
    1
}

/// The answer to a check.
#[derive(Serialize, Debug)]
pub struct CheckResult {
    /// Diagnostics located in the buffer.
    pub diagnostics: Vec<Value>,
    /// Diagnostics in other files (includes), and any other text the check printed.
    pub other: String,
    /// The names declared (`{"theories": [...], ...}`), if the check got that far.
    pub summary: Value,
    pub exit_code: Option<i32>,
}

/// The folder a buffer runs in: its file's folder, or the root for an unsaved buffer.
pub fn folder(root: &Root, buffer: &Buffer) -> Result<PathBuf, ServeError> {
    if buffer.path.is_empty() {
        Ok(root.dir().to_path_buf())
    } else {
        root.folder_of(&buffer.path)
    }
}

/// Runs `idp --check` on the buffer and sorts what it reported.
pub fn check(
    exe: &std::path::Path,
    root: &Root,
    buffer: Buffer,
) -> Result<CheckResult, ServeError> {
    let folder = folder(root, &buffer)?;
    let args = vec!["--check".to_string()];
    let mut child = child::spawn(exe, &folder, &args, CHECK_LIMITS, buffer.text)?;
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut e) = stderr {
            let _ = e.read_to_string(&mut text);
        }
        text
    });
    let deadline = Instant::now() + CHECK_LIMITS.kill_after();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(ServeError::Internal(format!("the check failed: {e}"))),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    Ok(sort_check_output(&stderr, status.and_then(|s| s.code())))
}

/// Splits a check's stderr into the buffer's diagnostics, the rest, and the summary.
fn sort_check_output(stderr: &str, exit_code: Option<i32>) -> CheckResult {
    let mut result = CheckResult {
        diagnostics: Vec::new(),
        other: String::new(),
        summary: Value::Null,
        exit_code,
    };
    for line in stderr.lines() {
        if line == "(Reading from stdin)" {
            continue;
        }
        let parsed = line
            .starts_with("{\"$idp\"")
            .then(|| serde_json::from_str::<Value>(line).ok())
            .flatten();
        match parsed {
            Some(v) if v["$idp"] == "summary" => result.summary = v,
            // Located in the buffer, or about it as a whole (no position).
            Some(v)
                if v["$idp"] == "diagnostic" && (v["file"] == "stdin" || v["file"].is_null()) =>
            {
                result.diagnostics.push(v)
            }
            Some(v) if v["$idp"] == "diagnostic" => {
                result.other.push_str(v["text"].as_str().unwrap_or(""));
                result.other.push('\n');
            }
            _ => {
                result.other.push_str(line);
                result.other.push('\n');
            }
        }
    }
    result
}

/// The child's arguments and limits for a run request, within the server's `max` limits.
/// Procedures may read the files of the folder served (`--sandbox-read`).
pub fn run_spec(root: &Root, req: RunRequest, max: Limits) -> Result<Spec, ServeError> {
    let folder = folder(root, &req.buffer)?;
    let limits = Limits {
        timeout: req
            .timeout
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(max.timeout, |t| t.min(max.timeout)),
        max_memory_mb: req
            .max_memory
            .filter(|m| *m > 0)
            .map_or(max.max_memory_mb, |m| m.min(max.max_memory_mb)),
    };
    let mut args = vec![
        "--sandbox-read".to_string(),
        root.dir().display().to_string(),
    ];
    args.extend(match req.mode {
        Mode::Main => expression_args(req.expression.as_deref())?,
        Mode::Expand | Mode::Minimize => inference_args(&req)?,
    });
    Ok(Spec {
        folder,
        args,
        text: req.buffer.text,
        limits,
    })
}

/// `--execute=EXPRESSION` (`-e`) when an expression is given (else `main` runs).
fn expression_args(expression: Option<&str>) -> Result<Vec<String>, ServeError> {
    let Some(e) = expression.map(str::trim).filter(|e| !e.is_empty()) else {
        return Ok(Vec::new());
    };
    if e.len() > MAX_EXPRESSION {
        return Err(ServeError::BadRequest(format!(
            "the expression is longer than {MAX_EXPRESSION} characters"
        )));
    }
    Ok(vec![format!("--execute={e}")])
}

/// The command line's model expansion or minimisation: `-n K` of the theory and structure
/// chosen (the only ones when none is), the models printed as found, the pictures of the first
/// ones (when the structure has a grid), and, when there is no model, why (`--explain`; the
/// page marks the lines it names). The exit code is 10 or 20 as for `idp -n`.
fn inference_args(req: &RunRequest) -> Result<Vec<String>, ServeError> {
    if req.models > MAX_MODELS {
        return Err(ServeError::BadRequest(format!(
            "at most {MAX_MODELS} models can be asked for (0 asks for all)"
        )));
    }
    let mut args: Vec<String> = vec![
        "-n".into(),
        req.models.to_string(),
        "--explain".into(),
        "--draw-first".into(),
        MAX_PICTURES.to_string(),
    ];
    for (flag, given, what) in [
        ("--theory", &req.theory, "theory"),
        ("--structure", &req.structure, "structure"),
    ] {
        if given.as_deref().is_some_and(|g| !g.is_empty()) {
            args.extend([flag.to_string(), name(given.as_deref(), what)?.to_string()]);
        }
    }
    match req.grid.as_deref() {
        None | Some("") => {}
        Some(grid @ ("rows" | "xy")) => args.push(format!("--grid={grid}")),
        Some(other) => {
            return Err(ServeError::BadRequest(format!(
                "grid '{other}' is neither rows nor xy"
            )))
        }
    }
    if req.mode == Mode::Minimize {
        let term = name(req.term.as_deref(), "term")?;
        args.extend(["--minimize".to_string(), term.to_string()]);
    }
    Ok(args)
}

/// A component name (`T`, `ns::T`), required and checked so that it cannot change the chunk.
fn name<'a>(given: Option<&'a str>, what: &str) -> Result<&'a str, ServeError> {
    let given = given
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ServeError::BadRequest(format!("choose a {what}")))?;
    let ok = given.split("::").all(|part| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if ok {
        Ok(given)
    } else {
        Err(ServeError::BadRequest(format!(
            "'{given}' is not the name of a {what}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: Mode) -> RunRequest {
        RunRequest {
            buffer: Buffer {
                path: String::new(),
                text: String::new(),
            },
            mode,
            theory: Some("T".into()),
            structure: Some("S".into()),
            term: Some("Cost".into()),
            expression: None,
            models: 3,
            timeout: None,
            max_memory: None,
            grid: None,
        }
    }

    #[test]
    fn inferences_are_the_command_lines() {
        let args = inference_args(&request(Mode::Expand)).unwrap();
        assert_eq!(
            args,
            [
                "-n",
                "3",
                "--explain",
                "--draw-first",
                "20",
                "--theory",
                "T",
                "--structure",
                "S"
            ]
        );
        let args = inference_args(&request(Mode::Minimize)).unwrap();
        assert_eq!(args[9..], ["--minimize", "Cost"]);
        let mut none = request(Mode::Expand);
        none.theory = None;
        none.structure = Some(String::new());
        assert_eq!(inference_args(&none).unwrap().len(), 5);
        let mut turned = request(Mode::Expand);
        turned.grid = Some("rows".into());
        assert_eq!(inference_args(&turned).unwrap()[9], "--grid=rows");
        turned.grid = Some("diagonal".into());
        assert!(matches!(
            inference_args(&turned),
            Err(ServeError::BadRequest(m)) if m == "grid 'diagonal' is neither rows nor xy"
        ));
    }

    #[test]
    fn bad_names_are_refused() {
        let mut r = request(Mode::Expand);
        r.theory = Some("T) os.exit(".into());
        assert!(matches!(
            inference_args(&r),
            Err(ServeError::BadRequest(m)) if m == "'T) os.exit(' is not the name of a theory"
        ));
        let mut r = request(Mode::Minimize);
        r.term = None;
        assert!(
            matches!(inference_args(&r), Err(ServeError::BadRequest(m)) if m == "choose a term")
        );
    }

    #[test]
    fn expressions_become_e_chunks() {
        assert!(expression_args(Some("  ")).unwrap().is_empty());
        assert_eq!(
            expression_args(Some(" solve(\"a.lp\") ")).unwrap(),
            ["--execute=solve(\"a.lp\")"]
        );
        let long = "x".repeat(MAX_EXPRESSION + 1);
        assert!(matches!(
            expression_args(Some(&long)),
            Err(ServeError::BadRequest(_))
        ));
    }

    #[test]
    fn check_output_is_sorted_by_file() {
        let err = "(Reading from stdin)\n{\"$idp\":\"diagnostic\",\"file\":\"stdin\",\"code\":\"a\"}\n{\"$idp\":\"diagnostic\",\"file\":\"inc.idp\",\"text\":\"Error: x At inc.idp:1:1 [b]\"}\nplain\n{\"$idp\":\"summary\",\"theories\":[\"T\"]}\n";
        let r = sort_check_output(err, Some(1));
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0]["code"], "a");
        assert_eq!(r.other, "Error: x At inc.idp:1:1 [b]\nplain\n");
        assert_eq!(r.summary["theories"][0], "T");
    }
}
