//! The rules of ARCHITECTURE.md, checked on the sources: every `crate::` path in `src/` names
//! a module of a lower layer than the module it is written in; the core (the front end and the
//! engine) prints nothing; no memo is keyed by a memory address.

use std::path::{Path, PathBuf};

/// The layers, lowest first, as in ARCHITECTURE.md.
const LAYERS: &[&[&str]] = &[
    &["ids", "source", "graph"],
    &["error"],
    &["limits", "progress", "diagnostics"],
    &["syntax", "structure", "stdlib"],
    &["sema"],
    &["print", "visual", "ground", "solve", "meta"],
    &["encode"],
    &["infer"],
    &["message_format"],
    &["lua", "fodot"],
    &["repl", "serve"],
    &["cli"],
];

/// Modules that must not write to stdout or stderr.
const CORE: &[&str] = &[
    "ids",
    "graph",
    "source",
    "error",
    "diagnostics",
    "syntax",
    "structure",
    "sema",
    "print",
    "visual",
    "ground",
    "solve",
    "meta",
    "encode",
    "infer",
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `.rs` file under `src/`, with its top-level module (`src/ground/store.rs`: `ground`).
fn sources() -> Vec<(String, PathBuf)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&src).expect("under src");
                let first = rel.components().next().expect("a component");
                let module = first
                    .as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string();
                out.push((module, path));
            }
        }
    }
    out.sort();
    out
}

/// The code of a file without comments (line comments and doc comments), line by line.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).expect("a source file is readable");
    text.lines()
        .enumerate()
        .map(|(k, line)| {
            let code = match line.find("//") {
                Some(p) if !line[..p].contains('"') => &line[..p],
                _ => line,
            };
            (k + 1, code.to_string())
        })
        .collect()
}

/// The top-level modules named by `crate::NAME` paths in a line.
fn crate_paths(line: &str) -> Vec<String> {
    line.match_indices("crate::")
        .map(|(p, _)| {
            line[p + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn every_module_is_in_a_layer() {
    for (module, path) in sources() {
        if module == "lib" || module == "main" {
            continue;
        }
        assert!(
            layer(&module).is_some(),
            "{} belongs to module '{module}', which ARCHITECTURE.md and LAYERS do not place",
            path.display()
        );
    }
}

#[test]
fn imports_go_down_the_layers() {
    let mut wrong = Vec::new();
    for (module, path) in sources() {
        let Some(own) = layer(&module) else { continue };
        for (line_no, code) in code_lines(&path) {
            for used in crate_paths(&code) {
                if used == module {
                    continue;
                }
                match layer(&used) {
                    Some(l) if l < own => {}
                    _ => wrong.push(format!(
                        "{}:{line_no}: '{module}' uses '{used}'",
                        path.display()
                    )),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layer order of ARCHITECTURE.md:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_core_does_no_io() {
    const PRINTING: &[&str] = &[
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "std::io::stdout",
        "std::io::stderr",
        "std::io::stdin",
    ];
    let mut found = Vec::new();
    for (module, path) in sources() {
        if !CORE.contains(&module.as_str()) {
            continue;
        }
        for (line_no, code) in code_lines(&path) {
            if let Some(p) = PRINTING.iter().find(|p| code.contains(*p)) {
                found.push(format!("{}:{line_no}: {p}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "IO in the core:\n{}", found.join("\n"));
}

/// Whether a line of code uses a memory address as a value (a map key, a number): ids are
/// the identities of the program's parts, never where they happen to be.
fn uses_an_address(code: &str) -> bool {
    ["<*const", "<*mut", "(*const", "(*mut"]
        .iter()
        .any(|p| code.contains(p))
        || code.contains("as usize") && code.contains("as *")
}

#[test]
fn no_memo_is_keyed_by_an_address() {
    let mut found = Vec::new();
    for (_, path) in sources() {
        for (line_no, code) in code_lines(&path) {
            if uses_an_address(&code) {
                found.push(format!("{}:{line_no}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "addresses used as keys:\n{}",
        found.join("\n")
    );
}

/// Error texts that code once decided on, where a typed answer exists: mlua's
/// `SyntaxError::incomplete_input`, an error of `visual` that its callers prefix, a Lua chunk
/// of the command line's own whose position was cut off its errors.
const ERROR_TEXTS: &[&str] = &["_with(\"'<eof>'\")", "_with(\"visualize:", "(\"main:1:"];

/// Whether a line of code decides on one of [`ERROR_TEXTS`].
fn matches_error_text(code: &str) -> bool {
    ERROR_TEXTS.iter().any(|t| code.contains(t))
}

#[test]
fn no_error_text_is_matched() {
    let mut found = Vec::new();
    for (_, path) in sources() {
        for (line_no, code) in code_lines(&path) {
            if matches_error_text(&code) {
                found.push(format!("{}:{line_no}: {}", path.display(), code.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "error text matched (match the error's kind instead):\n{}",
        found.join("\n")
    );
}

/// Whether a line of code reads the process's environment (`std::env::var`, `var_os`, `vars`).
fn reads_environment(code: &str) -> bool {
    code.contains("env::var")
}

/// The environment is read once, by the command line (`cli::Settings`), and handed down.
#[test]
fn only_the_command_line_reads_the_environment() {
    let mut found = Vec::new();
    for (module, path) in sources() {
        if module == "cli" || module == "main" {
            continue;
        }
        for (line_no, code) in code_lines(&path) {
            if reads_environment(&code) {
                found.push(format!("{}:{line_no}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the environment read below the command line (put it in cli::Settings):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_see_real_violations() {
    assert!(reads_environment(r#"let x = std::env::var("IDP_X").ok();"#));
    assert!(reads_environment("if env::var_os(NAME).is_some() {"));
    assert!(!reads_environment("let v = env!(\"CARGO_PKG_VERSION\");"));
    assert!(uses_an_address(
        "let mut grounded: HashMap<*const Definition, GroundDefinition> = HashMap::default();"
    ));
    assert!(uses_an_address(
        "memo.insert(f as *const Formula as usize, g);"
    ));
    assert!(!uses_an_address("let k = id.0 as usize;"));
    assert!(!uses_an_address(
        "libc::read(fd, (&mut b as *mut u8).cast(), 1)"
    ));
    assert!(matches_error_text(
        r#"Err(e) => !error_message(&e).ends_with("'<eof>'"),"#
    ));
    assert!(matches_error_text(r#"if m.starts_with("visualize:") {"#));
    assert!(matches_error_text(r#"message.strip_prefix("main:1: ")"#));
    assert!(!matches_error_text(r#"rt_err(format!("visualize: {m}"))"#));
    assert_eq!(
        crate_paths("use crate::lua::Runtime; crate::cli::run()"),
        ["lua", "cli"]
    );
    assert!(layer("ground") > layer("sema") && layer("cli") > layer("lua"));
    assert_eq!(layer("nonexistent"), None);
}
