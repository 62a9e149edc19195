//! The rules of ARCHITECTURE.md, checked on the sources: every path of the crate in `src/`
//! names a module of a lower layer than the module it is written in; nothing reaches past a
//! module's door (its root's `pub` items, `pub use` list and `pub mod` namespaces), from inside
//! the library or from the tests, benches, binary and fuzz targets that use it; no two files
//! use each other; the core (the front end and the engine) prints nothing; no memo is keyed
//! by a memory address; no error text is matched; only the command line reads the environment;
//! the engine keeps no state in statics or thread-locals (a run's state is its own).
//! Each check is run on a small made-up crate too, so that it cannot pass by seeing nothing.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, as in ARCHITECTURE.md.
const LAYERS: &[&[&str]] = &[
    &["ids", "source", "graph"],
    &["error", "progress"],
    &["limits", "diagnostics"],
    &["syntax", "structure", "stdlib"],
    &["sema"],
    &["print", "visual", "ground", "solve", "meta"],
    &["encode"],
    &["infer"],
    &["message_format"],
    &["lua", "fodot"],
    &["repl", "serve", "consult", "lsp"],
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

/// The layers that the paths of a unit name, with their lines (`crate::sema::{ir, walk}` and
/// `crate::{sema::ir, ground::Gf}` included).
fn layers_named(unit: &Unit) -> Vec<(usize, String)> {
    named_paths(&unit.code)
        .into_iter()
        .filter(|n| n.path.starts_with("crate::"))
        .filter_map(|n| Some((n.line, absolute(unit, &n.path)?.first()?.clone())))
        .collect()
}

#[test]
fn imports_go_down_the_layers() {
    let mut wrong = Vec::new();
    for unit in units() {
        let Some(module) = unit.module.as_ref().and_then(|m| m.first()).cloned() else {
            continue;
        };
        let Some(own) = layer(&module) else { continue };
        for (line_no, used) in layers_named(&unit) {
            if used == module {
                continue;
            }
            match layer(&used) {
                Some(l) if l < own => {}
                _ => wrong.push(format!("{}:{line_no}: '{module}' uses '{used}'", unit.name)),
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

/// The layers of the engine: everything below the drivers (`message_format` and up), which
/// may keep what is the process's (its Ctrl-C handler, its output mode).
const ENGINE_LAYERS: usize = 8;

/// The statics of the engine that are allowed, each with why: (file under `src/`, the
/// static's name).
const ALLOWED_STATE: &[(&str, &str, &str)] = &[
    (
        "sema/ir.rs",
        "NEXT",
        "a source of node ids unique in the process; no run reads what another did",
    ),
    (
        "structure/value.rs",
        "INTERNER",
        "strings and compound values are interned per thread: a problem lives on its thread \
         (two problems on two threads each have their own table)",
    ),
];

/// The name of a static with state (a `static` whose type can change: atomics, locks, cells,
/// once-cells, `static mut`) or of a thread-local declared on this line.
fn mutable_static(code: &str) -> Option<String> {
    let code = code.trim_start();
    let code = code
        .strip_prefix("pub(crate) ")
        .or_else(|| code.strip_prefix("pub "))
        .unwrap_or(code);
    let rest = code.strip_prefix("static ")?;
    let (name, ty) = rest.split_once(':')?;
    let name = name.trim().trim_start_matches("mut ").to_string();
    let stateful = [
        "Atomic", "Mutex", "RwLock", "OnceLock", "OnceCell", "Cell", "Lazy", "Condvar",
    ];
    (rest.starts_with("mut ") || stateful.iter().any(|s| ty.contains(s))).then_some(name)
}

/// Nothing below the drivers keeps state in a static or a thread-local: limits, progress
/// and stop requests belong to a run (`limits::Run`), handed down with the options, so that
/// two problems in one process (two threads, a server's requests) do not share them.
#[test]
fn the_engine_keeps_no_process_state() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut allowed_seen = 0;
    for (module, path) in sources() {
        if layer(&module).is_none_or(|l| l >= ENGINE_LAYERS) {
            continue;
        }
        let rel = path
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .to_string();
        let lines = code_lines(&path);
        for (k, (line_no, code)) in lines.iter().enumerate() {
            let name = if code.contains("thread_local!") {
                lines.get(k + 1).and_then(|(_, next)| mutable_static(next))
            } else if lines
                .get(k.wrapping_sub(1))
                .is_some_and(|(_, p)| p.contains("thread_local!"))
            {
                continue;
            } else {
                mutable_static(code)
            };
            let Some(name) = name else { continue };
            if ALLOWED_STATE
                .iter()
                .any(|(file, n, _)| *file == rel && *n == name)
            {
                allowed_seen += 1;
                continue;
            }
            found.push(format!("{}:{line_no}: {name}", path.display()));
        }
    }
    assert!(
        found.is_empty(),
        "state kept in a static below the drivers (give it to the run, limits::Run, or to \
         the value that owns it):\n{}",
        found.join("\n")
    );
    assert_eq!(
        allowed_seen,
        ALLOWED_STATE.len(),
        "an allowed static is gone: drop it from the list"
    );
}

#[test]
fn the_checks_see_real_violations() {
    assert_eq!(
        mutable_static("static PHASE: Mutex<&str> = Mutex::new(\"running\");").as_deref(),
        Some("PHASE")
    );
    assert_eq!(
        mutable_static("pub static COUNT: AtomicUsize = AtomicUsize::new(0);").as_deref(),
        Some("COUNT")
    );
    assert_eq!(
        mutable_static("static mut X: u32 = 0;").as_deref(),
        Some("X")
    );
    assert_eq!(
        mutable_static(
            "    static INTERNER: RefCell<Interner> = RefCell::new(Interner::default());"
        )
        .as_deref(),
        Some("INTERNER")
    );
    assert_eq!(mutable_static("static WORDS: &[&str] = &[\"a\"];"), None);
    assert_eq!(
        mutable_static("let x: AtomicBool = AtomicBool::new(false);"),
        None
    );
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
    let unit = Unit::new(
        "src/ground/x.rs",
        Some(&["ground", "x"]),
        "use crate::{lua::Runtime, sema::ir};\nfn f() { crate::cli::run() } // crate::repl\n",
    );
    let named: Vec<String> = layers_named(&unit).into_iter().map(|(_, l)| l).collect();
    assert_eq!(named, ["lua", "sema", "cli"]);
    assert!(layer("ground") > layer("sema") && layer("cli") > layer("lua"));
    assert_eq!(layer("nonexistent"), None);
}

// ---------------------------------------------------------------------------------------------
// Paths: what each file names of the crate, read from its `use` trees and inline paths
// ---------------------------------------------------------------------------------------------

/// `text` with comments and the contents of string and character literals blanked out (line
/// breaks kept, so line numbers stay), so that only code is searched for paths and braces.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..].find(&close).map_or(b.len(), |e| start + e);
                blank(&mut out, start, end);
                i = end + close.len();
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i + 1, j.min(b.len()));
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('{', '\n', '\''), not a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    text[i + 2..].find('\'').map(|e| i + 2 + e)
                } else {
                    let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + c) == Some(&b'\'')).then_some(i + 1 + c)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i + 1, end);
                        i = end + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// `code` without its test modules (`#[cfg(test)] mod NAME { ... }`): tests may use what
/// they test from anywhere in their module.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(p) = out[from..].find("#[cfg(test)]").map(|p| from + p) {
        let rest = out[p + "#[cfg(test)]".len()..].trim_start();
        let at = out.len() - rest.len();
        let is_module = rest.starts_with("mod ") || rest.starts_with("pub mod ");
        match (is_module, out[at..].find(['{', ';'])) {
            (true, Some(o)) if out.as_bytes()[at + o] == b'{' => {
                let open = at + o;
                let mut depth = 0;
                let mut end = out.len();
                for (k, c) in out[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let blanked: String = out[p..end]
                    .chars()
                    .map(|c| if c == '\n' { '\n' } else { ' ' })
                    .collect();
                out.replace_range(p..end, &blanked);
                from = end;
            }
            _ => from = p + 1,
        }
    }
    out
}

/// The leaves of a `use` tree: `a::{b, c::{d as e, self}}` gives `a::b`, `a::c::d` and `a::c`
/// (an alias is dropped: the path is what is named).
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        let path: String = tree
            .split(" as ")
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        return if path.is_empty() {
            Vec::new()
        } else {
            vec![path]
        };
    };
    let prefix: String = tree[..open]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    for part in parts {
        for leaf in expand_use_tree(part) {
            if leaf == "self" {
                out.push(prefix.trim_end_matches("::").to_string());
            } else {
                out.push(format!("{prefix}{leaf}"));
            }
        }
    }
    out
}

/// A path named in a file: its line, its text, and whether it is a re-export (`pub use`).
#[derive(Debug)]
struct Named {
    line: usize,
    path: String,
    reexport: bool,
}

/// Every path a file's code names: the leaves of its `use` trees and the inline paths that
/// start with `crate`, `idp`, `super` or `self` (others are std, a dependency, or local).
fn named_paths(code: &str) -> Vec<Named> {
    let mut out = Vec::new();
    let mut rest_code = code.to_string();
    let bytes = code.as_bytes();
    let mut search = 0;
    while let Some(p) = code[search..].find("use ").map(|p| search + p) {
        search = p + 4;
        let word_start = p == 0 || !(bytes[p - 1].is_ascii_alphanumeric() || bytes[p - 1] == b'_');
        if !word_start {
            continue;
        }
        // A statement starts after `;`, `{` or `}` (or the file's start), maybe with a
        // visibility.
        let before = code[..p].trim_end();
        let (before, reexport) = match before.rfind(|c: char| c.is_whitespace() || c == ';') {
            Some(w) if before[w + 1..].starts_with("pub") => (before[..w + 1].trim_end(), true),
            _ if before.ends_with("pub") => (before[..before.len() - 3].trim_end(), true),
            _ => (before, false),
        };
        if !(before.is_empty() || before.ends_with([';', '{', '}'])) {
            continue;
        }
        let Some(end) = code[p..].find(';').map(|e| p + e) else {
            break;
        };
        let line = code[..p].matches('\n').count() + 1;
        for path in expand_use_tree(&code[p + 4..end]) {
            out.push(Named {
                line,
                path,
                reexport,
            });
        }
        let blanked: String = code[p..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        rest_code.replace_range(p..end, &blanked);
        search = end;
    }
    for (k, line) in rest_code.lines().enumerate() {
        for start in ["crate::", "idp::", "super::", "self::"] {
            for (p, _) in line.match_indices(start) {
                let before = line[..p].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let path: String = line[p..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                out.push(Named {
                    line: k + 1,
                    path: path.trim_end_matches(':').to_string(),
                    reexport: false,
                });
            }
        }
    }
    out
}

/// A source file of the library (`module`: its module path, `["ground", "datalog"]` for
/// `src/ground/datalog/mod.rs`, `[]` for `src/lib.rs`) or one that uses it from outside
/// (`module` is `None`: tests, benches, the binary, the fuzz targets).
struct Unit {
    name: String,
    module: Option<Vec<String>>,
    /// The code, comments and literals blanked out.
    code: String,
}

impl Unit {
    fn new(name: &str, module: Option<&[&str]>, text: &str) -> Unit {
        Unit {
            name: name.to_string(),
            module: module.map(|m| m.iter().map(|s| s.to_string()).collect()),
            code: code_only(text),
        }
    }
}

/// The module path a path names, from the unit it is written in (`None`: not of the crate).
fn absolute(unit: &Unit, path: &str) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (first, rest) = segs.split_first()?;
    let mut out: Vec<String> = match (*first, &unit.module) {
        ("crate", Some(_)) | ("idp", None) => Vec::new(),
        ("self" | "super", Some(m)) => m.clone(),
        _ => return None,
    };
    let mut rest = rest;
    if *first == "super" {
        out.pop();
        while rest.first() == Some(&"super") {
            out.pop();
            rest = &rest[1..];
        }
    }
    out.extend(rest.iter().map(|s| s.to_string()));
    Some(out)
}

/// What the root file of a module offers: the names it declares `pub` (modules only with a
/// plain `pub mod`), and whether it declares `mod NAME` (public or not).
struct Door {
    public_modules: HashSet<String>,
    modules: HashSet<String>,
    /// `pub use` leaves by the name they are offered as, with the path they name.
    reexports: Vec<(String, String)>,
}

fn door(unit: &Unit) -> Door {
    let mut d = Door {
        public_modules: HashSet::new(),
        modules: HashSet::new(),
        reexports: Vec::new(),
    };
    let top = without_test_modules(&unit.code);
    for line in top.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (public, decl) = match words.as_slice() {
            ["pub", "mod", name, ..] => (true, name),
            [vis, "mod", name, ..] if vis.starts_with("pub(") => (false, name),
            ["mod", name, ..] => (false, name),
            _ => continue,
        };
        let name = decl.trim_end_matches([';', '{']).to_string();
        if public {
            d.public_modules.insert(name.clone());
        }
        d.modules.insert(name);
    }
    for n in named_paths(&top).into_iter().filter(|n| n.reexport) {
        let name = n.path.rsplit("::").next().unwrap_or("").to_string();
        d.reexports.push((name, n.path));
    }
    d
}

/// The library's units by module path.
fn modules(units: &[Unit]) -> HashMap<Vec<String>, usize> {
    units
        .iter()
        .enumerate()
        .filter_map(|(k, u)| Some((u.module.clone()?, k)))
        .collect()
}

/// Paths that reach past a door: a unit outside module M names a submodule of M that M's root
/// does not offer (`pub mod`), as `crate::ground::datalog::compile::X` from outside `datalog`.
fn reaches_past_doors(units: &[Unit]) -> Vec<String> {
    let by_module = modules(units);
    let doors: HashMap<&Vec<String>, Door> = by_module
        .iter()
        .map(|(m, &k)| (m, door(&units[k])))
        .collect();
    let mut wrong = Vec::new();
    for unit in units {
        for named in named_paths(&unit.code) {
            let Some(segs) = absolute(unit, &named.path) else {
                continue;
            };
            for k in 0..segs.len() {
                let m = segs[..k].to_vec();
                let Some(d) = doors.get(&m) else { break };
                let inside = unit.module.as_ref().is_some_and(|own| own.starts_with(&m));
                let next = &segs[k];
                // A name that is no module, or the item of that name the door offers (as
                // `sema::resolve`, a function of the private module `resolve`).
                let offered_item =
                    k + 1 == segs.len() && d.reexports.iter().any(|(n, _)| n == next);
                if !d.modules.contains(next) || offered_item {
                    break;
                }
                if !inside && !d.public_modules.contains(next) {
                    wrong.push(format!(
                        "{}:{}: {} reaches past the door of {}",
                        unit.name,
                        named.line,
                        named.path,
                        if m.is_empty() {
                            "the crate".to_string()
                        } else {
                            m.join("::")
                        }
                    ));
                    break;
                }
            }
        }
    }
    wrong
}

/// The unit that defines what `segs` names: the deepest module on the path, through the
/// re-exports of its root.
fn defining_unit(
    units: &[Unit],
    by_module: &HashMap<Vec<String>, usize>,
    doors: &HashMap<usize, Door>,
    segs: &[String],
    depth: usize,
) -> Option<usize> {
    let k = (0..=segs.len())
        .rev()
        .find(|&k| by_module.contains_key(&segs[..k]))?;
    let unit = by_module[&segs[..k]];
    if k < segs.len() && depth < 8 {
        let name = &segs[k];
        if let Some((_, path)) = doors[&unit].reexports.iter().find(|(n, _)| n == name) {
            let target = absolute(&units[unit], path)
                .or_else(|| absolute(&units[unit], &format!("self::{path}")));
            if let Some(mut target) = target {
                target.extend(segs[k + 1..].iter().cloned());
                if let Some(found) = defining_unit(units, by_module, doors, &target, depth + 1) {
                    return Some(found);
                }
            }
        }
    }
    Some(unit)
}

/// The circles between the library's files: file A names an item of file B and B one of A,
/// directly or through others. What a file takes from the root of a module it belongs to
/// (its door, which may hold what its parts share) does not count, nor do re-exports and test
/// modules.
fn file_circles(units: &[Unit]) -> Vec<Vec<String>> {
    let by_module = modules(units);
    let doors: HashMap<usize, Door> = by_module.values().map(|&k| (k, door(&units[k]))).collect();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); units.len()];
    for (k, unit) in units.iter().enumerate() {
        let Some(own) = &unit.module else { continue };
        let code = without_test_modules(&unit.code);
        for named in named_paths(&code).into_iter().filter(|n| !n.reexport) {
            let Some(segs) = absolute(unit, &named.path) else {
                continue;
            };
            let Some(to) = defining_unit(units, &by_module, &doors, &segs, 0) else {
                continue;
            };
            let target = units[to].module.as_ref().expect("a library unit");
            if to != k && !own.starts_with(target) {
                edges[k].insert(to);
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.iter().map(|&k| units[k].name.clone()).collect();
            names.sort();
            names
        })
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The library's files and those that use it from outside: tests, benches, the binary and
/// the fuzz targets.
fn units() -> Vec<Unit> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut out = Vec::new();
    for (_, path) in sources() {
        let rel = path.strip_prefix(&src).expect("under src");
        let mut module: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("a source file is readable");
        let name = format!("src/{}", rel.display());
        let module: Option<Vec<&str>> = match module.as_slice() {
            [m] if m == "main" => None,
            [m] if m == "lib" => Some(Vec::new()),
            _ => Some(module.iter().map(String::as_str).collect()),
        };
        out.push(Unit::new(&name, module.as_deref(), &text));
    }
    for dir in ["tests", "benches", "fuzz/src", "fuzz/fuzz_targets"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("readable");
                    let name = path
                        .strip_prefix(root)
                        .unwrap_or(&path)
                        .display()
                        .to_string();
                    out.push(Unit::new(&name, None, &text));
                }
            }
        }
    }
    out
}

#[test]
fn nothing_reaches_past_a_door() {
    let wrong = reaches_past_doors(&units());
    assert!(
        wrong.is_empty(),
        "paths past a module's door (offer the item in its root with `pub use`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_file_is_in_a_circle() {
    let circles = file_circles(&units());
    assert!(
        circles.is_empty(),
        "files that use each other (move what they share to one of them, or to a file both \
         use):\n{}",
        circles
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_door_and_circle_checks_see_real_violations() {
    let crate_of = |extra: &[(&str, Option<&[&str]>, &str)]| {
        let mut units = vec![
            Unit::new("src/lib.rs", Some(&[]), "pub mod a;\npub mod b;\n"),
            Unit::new(
                "src/a/mod.rs",
                Some(&["a"]),
                "mod inner;\npub mod open;\npub use inner::Offered;\n",
            ),
            Unit::new(
                "src/a/inner.rs",
                Some(&["a", "inner"]),
                "pub struct Offered;\npub struct Hidden;\n",
            ),
            Unit::new("src/a/open.rs", Some(&["a", "open"]), "pub struct Open;\n"),
        ];
        for (name, module, text) in extra {
            units.push(Unit::new(name, *module, text));
        }
        units
    };
    // Through the door, or an offered namespace: fine.
    let fine = crate_of(&[(
        "src/b.rs",
        Some(&["b"]),
        "use crate::a::{open::Open, Offered};\nfn f() -> crate::a::Offered { crate::a::Offered }\n",
    )]);
    assert_eq!(reaches_past_doors(&fine), Vec::<String>::new());
    assert_eq!(file_circles(&fine), Vec::<Vec<String>>::new());
    // Past the door, in a grouped use, inline, and from a test of the library.
    let past = crate_of(&[
        (
            "src/b.rs",
            Some(&["b"]),
            "use crate::a::{inner::Hidden, Offered};\n",
        ),
        (
            "src/c.rs",
            Some(&["c"]),
            "fn f() { crate::a::inner::Hidden; }\n",
        ),
        ("tests/t.rs", None, "use idp::a::inner::Hidden;\n"),
    ]);
    let wrong = reaches_past_doors(&past);
    assert_eq!(wrong.len(), 3, "{wrong:?}");
    assert!(wrong[0].starts_with("src/b.rs:1: crate::a::inner::Hidden reaches past the door of a"));
    // Inside the module, its parts are open; a comment or a string is not code.
    let inside = crate_of(&[(
        "src/a/user.rs",
        Some(&["a", "user"]),
        "use super::inner::Hidden; // crate::b::x::Y\nconst S: &str = \"crate::a::inner::Z\";\n",
    )]);
    assert_eq!(reaches_past_doors(&inside), Vec::<String>::new());
    // Two siblings that use each other, one through the door's re-export: a circle. What
    // the parts share in their door is no part of one.
    let mut circle = crate_of(&[(
        "src/a/x.rs",
        Some(&["a", "x"]),
        "use crate::a::Offered;\nuse super::Shared;\npub struct X;\n",
    )]);
    circle[2] = Unit::new(
        "src/a/inner.rs",
        Some(&["a", "inner"]),
        "use super::x::X;\nuse super::Shared;\npub struct Offered;\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
    );
    assert_eq!(
        file_circles(&circle),
        vec![vec!["src/a/inner.rs".to_string(), "src/a/x.rs".to_string()]]
    );
    assert_eq!(
        expand_use_tree("crate::a::{self, b::{C as D, e}, F}"),
        [
            "crate::a",
            "crate::a::b::C",
            "crate::a::b::e",
            "crate::a::F"
        ]
    );
}
