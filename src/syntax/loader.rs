//! Loading input files: decoding (UTF-8 check), and resolving `include "file"` (relative to the
//! including file's directory, then the working directory) and `include <name>` (the standard
//! library) so that the token stream can splice included files in place. Each file is included at
//! most once, so include cycles terminate.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::lexer::{IncludeSpec, Includer};
use crate::syntax::{ast, fodot, parser};

/// Reads standard input for `include stdin`. The driver supplies it: the core reads no
/// terminal (ARCHITECTURE.md).
pub type StdinReader = fn() -> std::io::Result<Vec<u8>>;

/// Includes from the file system and a standard-library lookup function.
pub struct FsIncluder<'a> {
    std_lib: &'a mut dyn FnMut(&str) -> Option<String>,
    seen: HashSet<String>,
    dirs: HashMap<FileId, PathBuf>,
    /// The file loaded from each path, and the file that included each included file (to
    /// tell an include cycle from a repeated include).
    files: HashMap<String, FileId>,
    includer_of: HashMap<FileId, FileId>,
    /// With `--sandbox`: the (canonical) folders of the top-level inputs; an included file must
    /// lie in one of them or below.
    sandbox_roots: Option<Vec<PathBuf>>,
    /// What `include stdin` reads; without it, `include stdin` includes nothing.
    stdin: Option<StdinReader>,
}

impl<'a> FsIncluder<'a> {
    pub fn new(std_lib: &'a mut dyn FnMut(&str) -> Option<String>) -> FsIncluder<'a> {
        FsIncluder {
            std_lib,
            seen: HashSet::new(),
            dirs: HashMap::new(),
            files: HashMap::new(),
            includer_of: HashMap::new(),
            sandbox_roots: None,
            stdin: None,
        }
    }

    /// Refuses includes outside the folders of the top-level inputs (`--sandbox`).
    pub fn sandboxed(mut self) -> Self {
        self.sandbox_roots = Some(Vec::new());
        self
    }

    /// `include stdin` reads standard input with `reader`.
    pub fn reading_stdin(mut self, reader: StdinReader) -> Self {
        self.stdin = Some(reader);
        self
    }

    /// Records a top-level input so that including it again is ignored and relative includes
    /// in it resolve against its directory.
    pub fn register_input(&mut self, file: FileId, name: &str) {
        let path = Path::new(name);
        if path.is_file() {
            self.seen.insert(key_of(path));
            self.files.insert(key_of(path), file);
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(roots) = &mut self.sandbox_roots {
            // Standard input counts as a file in the working directory.
            let folder = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.clone()
            };
            if let Ok(root) = std::fs::canonicalize(folder) {
                roots.push(root);
            }
        }
        self.dirs.insert(file, dir);
    }

    /// With `--sandbox`, an error when `path` (after resolving `..` and symbolic links) lies
    /// outside the folders of the top-level inputs.
    fn check_sandbox(&self, path: &Path, rel: &str, span: Span) -> Result<(), Diagnostic> {
        let Some(roots) = &self.sandbox_roots else {
            return Ok(());
        };
        let inside = std::fs::canonicalize(path)
            .is_ok_and(|real| roots.iter().any(|root| real.starts_with(root)));
        if inside {
            return Ok(());
        }
        Err(Diagnostic::error(
            "include-outside-folder",
            format!(
                "--sandbox: the included file \"{rel}\" is outside the folder of the specification"
            ),
            Some(span),
        )
        .with_hint(
            "in --sandbox mode, include only files in the specification's folder or its subfolders",
        ))
    }

    fn candidates(&self, from: FileId, rel: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(dir) = self.dirs.get(&from) {
            out.push(dir.join(rel));
        }
        out.push(PathBuf::from(rel));
        out
    }

    fn include_file(
        &mut self,
        rel: &str,
        from: FileId,
        span: Span,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)> {
        let Some(path) = self.candidates(from, rel).into_iter().find(|p| p.is_file()) else {
            diags.push(
                Diagnostic::error("include-not-found", format!("the included file \"{rel}\" does not exist"), Some(span))
                    .with_hint("include paths are relative to the directory of the including file, then to the working directory"),
            );
            return None;
        };
        if let Err(d) = self.check_sandbox(&path, rel, span) {
            diags.push(d);
            return None;
        }
        let key = key_of(&path);
        if !self.seen.insert(key.clone()) {
            // Including a file again is harmless, unless it is still being read: a cycle.
            if let Some(&target) = self.files.get(&key) {
                let mut at = Some(from);
                while let Some(f) = at {
                    if f == target {
                        diags.push(
                            Diagnostic::error(
                                "include-cycle",
                                format!("the files include each other: \"{rel}\" is already being read, so this include would start a cycle"),
                                Some(span),
                            )
                            .with_hint("remove this include (or the one that leads back here)"),
                        );
                        break;
                    }
                    at = self.includer_of.get(&f).copied();
                }
            }
            return None;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "include-not-found",
                    format!("the included file \"{rel}\" cannot be read: {e}"),
                    Some(span),
                ));
                return None;
            }
        };
        let name = path.to_string_lossy().into_owned();
        let (fid, text) = decode(&name, bytes, sources, diags)?;
        self.files.insert(key, fid);
        self.includer_of.insert(fid, from);
        self.dirs.insert(
            fid,
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
        );
        Some((fid, text))
    }

    fn include_std(
        &mut self,
        name: &str,
        span: Span,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)> {
        if !self.seen.insert(format!("<{name}>")) {
            return None;
        }
        let Some(text) = (self.std_lib)(name) else {
            diags.push(
                Diagnostic::error(
                    "include-not-found",
                    format!("there is no standard library file <{name}>"),
                    Some(span),
                )
                .with_hint("the standard library provides <mx>, <table_utils> and <LTC>"),
            );
            return None;
        };
        let fid = sources.add(format!("<{name}>"), text);
        Some((fid, sources.shared_text(fid)?))
    }
}

impl FsIncluder<'_> {
    /// `include stdin`: standard input, read once (IDP3 refuses a second `include stdin`); not
    /// under `--sandbox`; nothing when the driver gave no reader.
    fn include_stdin(
        &mut self,
        span: Span,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)> {
        let refusal = if self.sandbox_roots.is_some() {
            Some("--sandbox: include stdin reads standard input, which is not allowed")
        } else if !self.seen.insert("<stdin>".to_string()) {
            Some("standard input can be included only once")
        } else {
            None
        };
        if let Some(message) = refusal {
            diags.push(Diagnostic::error("include-not-found", message, Some(span)));
            return None;
        }
        let bytes = match (self.stdin?)() {
            Ok(bytes) => bytes,
            Err(e) => {
                let message = format!("standard input cannot be read: {e}");
                diags.push(Diagnostic::error("include-not-found", message, Some(span)));
                return None;
            }
        };
        decode("<stdin>", bytes, sources, diags)
    }
}

impl Includer for FsIncluder<'_> {
    fn include(
        &mut self,
        spec: &IncludeSpec,
        from: FileId,
        span: Span,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)> {
        match spec {
            IncludeSpec::File(rel) => self.include_file(rel, from, span, sources, diags),
            IncludeSpec::Std(name) => self.include_std(name, span, sources, diags),
            IncludeSpec::Stdin => self.include_stdin(span, sources, diags),
        }
    }
}

fn key_of(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// Adds a file to the source map. A byte that is not UTF-8 is read as its Latin-1 character:
/// IDP3's lexer (`src/parser/lex.ll`) takes any byte inside a comment or a string, so such a
/// file is fine as long as those bytes stay there; one outside is reported by the lexer
/// (`invalid-utf8`, see [`crate::syntax::lexer`]).
pub fn decode(
    name: &str,
    bytes: Vec<u8>,
    sources: &mut SourceMap,
    _diags: &mut Diagnostics,
) -> Option<(FileId, Arc<str>)> {
    match String::from_utf8(bytes) {
        Ok(text) => {
            let fid = sources.add(name, text);
            Some((fid, sources.shared_text(fid)?))
        }
        Err(e) => Some(sources.add_bytes(name, e.as_bytes())),
    }
}

/// Where a file shows that it is written in IDP-Z3's FO(·) dialect, and the text there:
/// `type T := {...}`, a declaration with `->` (`f: T -> T`), `main {` without `procedure`, or
/// a block without a name (`vocabulary {`, `theory {`, `structure {`, `display {`: IDP3 names
/// every block and has no display block). Only asked when the file does not parse as IDP3.
pub fn idp_z3_marker(text: &str) -> Option<(usize, String)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim_start();
        let at = offset + code.len() - trimmed.len();
        offset += line.len();
        let marker = type_marker(trimmed)
            .or_else(|| main_marker(trimmed))
            .or_else(|| unnamed_block_marker(trimmed))
            .or_else(|| arrow_declaration_marker(trimmed));
        if let Some(m) = marker {
            return Some((at, m));
        }
    }
    None
}

/// The length of the identifier `s` starts with.
fn ident_len(s: &str) -> usize {
    s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len())
}

/// `type T := ...` (IDP3 writes `type T = ...`).
fn type_marker(line: &str) -> Option<String> {
    let rest = line.strip_prefix("type ")?.trim_start();
    let after = rest[ident_len(rest)..].trim_start();
    if !after.starts_with(":=") {
        return None;
    }
    line.find(":=").map(|i| line[..i + 2].to_string())
}

/// `main {` (IDP3 writes `procedure main() {`).
fn main_marker(line: &str) -> Option<String> {
    let rest = line.strip_prefix("main")?;
    if !rest.trim_start().starts_with('{') {
        return None;
    }
    line.find('{').map(|i| line[..=i].to_string())
}

/// `vocabulary {`, `theory {`, `structure {` or `display {`: a block without a name.
fn unnamed_block_marker(line: &str) -> Option<String> {
    let n = ident_len(line);
    let keyword = matches!(
        &line[..n],
        "vocabulary" | "theory" | "structure" | "display"
    );
    if !keyword || !line[n..].trim_start().starts_with('{') {
        return None;
    }
    line.find('{').map(|i| line[..=i].to_string())
}

/// A declaration with an arrow: `f: T -> T` (IDP3 writes `f(T) : T`).
fn arrow_declaration_marker(line: &str) -> Option<String> {
    let n = ident_len(line);
    let after = line[n..].trim_start();
    (n > 0 && after.starts_with(':') && !after.starts_with(":=") && after.contains("->"))
        .then(|| line.trim_end().to_string())
}

/// Whether a text that IDP3's parser rejects is FO(·): in FO(·)'s grammar and with one of its
/// signs (`:=`, `->`, `→`, `≜`). A grammar alone would not do: an IDP3 file with a misplaced
/// newline (`vocabulary V` then `{` on the next line) can be valid FO(·), which is blind to
/// newlines, and it must keep IDP3's error.
fn fodot_signs(text: &str) -> bool {
    [":=", "->", "→", "≜"].iter().any(|s| text.contains(s)) && fodot::accepts(text)
}

/// Parses every input in order, splicing includes in place, each in its own dialect: IDP3, or IDP-Z3's FO(·) when
/// it does not parse as IDP3 and either shows FO(·)'s signs ([`idp_z3_marker`]) or is in
/// FO(·)'s grammar with one of its operators ([`fodot_signs`]). FO(·) files give the
/// same AST items, and their `main` blocks as scripts. With `sandbox`, includes outside the
/// inputs' folders are refused; `include stdin` reads with `stdin` (nothing without it).
pub fn load_dialects(
    inputs: Vec<(String, Vec<u8>)>,
    std_lib: &dyn Fn(&str) -> Option<String>,
    sandbox: bool,
    stdin: Option<StdinReader>,
    stack: Stack,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> super::Loaded {
    with_parser_stack(std_lib, stack, move |lookup| {
        let mut includer = FsIncluder::new(lookup);
        if sandbox {
            includer = includer.sandboxed();
        }
        if let Some(reader) = stdin {
            includer = includer.reading_stdin(reader);
        }
        let mut file = ast::File::default();
        let mut scripts = Vec::new();
        let mut fodot = false;
        for (name, bytes) in inputs {
            let Some((fid, text)) = decode(&name, bytes, sources, diags) else {
                continue;
            };
            includer.register_input(fid, &name);
            let before = diags.items.len();
            let parsed = parser::parse_file(fid, text.clone(), sources, diags, &mut includer);
            let failed = diags.items[before..].iter().any(|d| d.is_error());
            let (items, script) =
                if failed && (idp_z3_marker(&text).is_some() || fodot_signs(&text)) {
                    // Another dialect: its own reader, instead of the cascade of syntax errors
                    // that IDP3's parser gives on it.
                    diags.items.truncate(before);
                    let read = fodot::read(fid, &text, diags);
                    sources.mark_fodot(fid);
                    fodot = true;
                    (read.file.items, read.script)
                } else {
                    (parsed.items, None)
                };
            let silent = !diags.items[before..].iter().any(|d| d.is_error());
            if items.is_empty() && script.is_none() && silent {
                if let Some(at) = first_block_word(&text) {
                    diags.push(nothing_read(fid, &name, &text, at));
                }
            }
            file.items.extend(items);
            scripts.extend(script);
        }
        super::Loaded {
            file,
            scripts,
            fodot,
        }
    })
}

/// Where the first word that opens a block (`vocabulary`, `theory`, `structure`, ...) stands
/// outside comments, if one does: a text with one must give blocks.
fn first_block_word(text: &str) -> Option<usize> {
    const WORDS: [&str; 11] = [
        "vocabulary",
        "theory",
        "structure",
        "procedure",
        "namespace",
        "query",
        "term",
        "factlist",
        "LTCvocabulary",
        "main",
        "display",
    ];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if bytes[i].is_ascii_alphabetic() && (i == 0 || !is_word_byte(bytes[i - 1])) {
            let n = ident_len(rest);
            if WORDS.contains(&&rest[..n]) {
                return Some(i);
            }
            i += n.max(1);
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The error for a file that has blocks but of which nothing was read, without any other
/// error: it must never vanish silently.
fn nothing_read(fid: FileId, name: &str, text: &str, at: usize) -> Diagnostic {
    let word = &text[at..at + ident_len(&text[at..])];
    Diagnostic::error(
        "nothing-read",
        format!(
            "nothing was read from {name}, though it has a '{word}' block: neither IDP3's nor \
             IDP-Z3's grammar found a block in it"
        ),
        Some(Span::new(fid, at..at + word.len())),
    )
    .with_hint(
        "this is a defect of idp: please report the file; meanwhile, check what comes before \
         this line",
    )
}

/// Stack size of the parsing thread: the parser recurses on nested brackets (up to
/// `parser::MAX_DEPTH` levels), and unoptimised builds use tens of kilobytes per level.
const PARSER_STACK: usize = 256 << 20;

/// Where the parser runs: it recurses on nested brackets and needs a large stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    /// A thread of its own with a 256 MiB stack, for callers on an ordinary stack (the
    /// library's users, tests).
    Own,
    /// The caller's thread, whose stack is at least as large (the command line runs on a
    /// 512 MiB one).
    Callers,
}

/// Runs `f` on a thread with a large stack (with [`Stack::Own`]; the current thread if no
/// thread can be started, or with [`Stack::Callers`]). `f` gets a standard-library lookup that
/// forwards to `std_lib` on the calling thread, so `std_lib` need not be thread-safe.
pub fn with_parser_stack<R: Send>(
    std_lib: &dyn Fn(&str) -> Option<String>,
    stack: Stack,
    f: impl FnOnce(&mut dyn FnMut(&str) -> Option<String>) -> R + Send,
) -> R {
    if stack == Stack::Callers {
        let mut lookup = |name: &str| std_lib(name);
        return f(&mut lookup);
    }
    use std::sync::mpsc;
    let (req_tx, req_rx) = mpsc::channel::<String>();
    let (resp_tx, resp_rx) = mpsc::channel::<Option<String>>();
    let f = std::sync::Mutex::new(Some(f));
    let outcome = std::thread::scope(|scope| {
        let f = &f;
        let spawned = std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, move || {
                let mut lookup = |name: &str| {
                    req_tx.send(name.to_string()).ok()?;
                    resp_rx.recv().ok().flatten()
                };
                let f = f.lock().ok().and_then(|mut g| g.take());
                f.map(|f| f(&mut lookup))
            });
        let Ok(handle) = spawned else { return None };
        for name in req_rx.iter() {
            let _ = resp_tx.send(std_lib(&name));
        }
        match handle.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    if let Some(r) = outcome {
        return r;
    }
    // No thread: run here.
    let f = f
        .into_inner()
        .ok()
        .flatten()
        .expect("the parse has not run yet");
    let mut lookup = |name: &str| std_lib(name);
    f(&mut lookup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_block_word_is_found_outside_comments_only() {
        assert_eq!(
            first_block_word("// vocabulary\n/* theory */ x theory T"),
            Some(29)
        );
        assert_eq!(first_block_word("subtheory vocabularyX // structure"), None);
        assert_eq!(first_block_word("#! IDP-Z3\nvocabulary V {}"), Some(10));
        let d = nothing_read(0, "f.idp", "  theory T", 2);
        assert_eq!(d.code, "nothing-read");
        assert!(d
            .message
            .starts_with("nothing was read from f.idp, though it has a 'theory' block"));
    }

    fn scratch_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("idp-loader-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
        dir
    }

    fn load_file(path: &Path) -> (ast::File, Diagnostics, SourceMap) {
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let std_lib = |name: &str| (name == "mx").then(|| "vocabulary StdV {\n}\n".to_string());
        let bytes = std::fs::read(path).expect("input");
        let loaded = crate::syntax::load(
            vec![(path.to_string_lossy().into_owned(), bytes)],
            &std_lib,
            &mut sources,
            &mut diags,
        );
        (loaded.file, diags, sources)
    }

    #[test]
    fn a_block_without_a_name_marks_idp_z3s_dialect() {
        let text = "// the skeleton\nvocabulary {\n}\ntheory {\n}\n";
        assert_eq!(idp_z3_marker(text), Some((16, "vocabulary {".to_string())));
        assert_eq!(
            idp_z3_marker("display{\n}\n"),
            Some((0, "display{".to_string()))
        );
        // A named block, or a name that only starts like a keyword, is no sign.
        assert_eq!(idp_z3_marker("vocabulary V {\n}\nvocabularyX {\n}\n"), None);
    }

    #[test]
    fn includes_are_spliced_once_and_cycles_stop() {
        let dir = scratch_dir("splice");
        std::fs::write(dir.join("main.idp"), "include \"sub/a.idp\"\ninclude <mx>\ninclude<mx>\nvocabulary M {\n}\ninclude \"sub/a.idp\"\n").unwrap();
        std::fs::write(
            dir.join("sub/a.idp"),
            "vocabulary A {\n}\ninclude \"b.idp\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("sub/b.idp"),
            "include \"a.idp\"\ninclude \"../main.idp\"\nvocabulary B {\n}\n",
        )
        .unwrap();
        let (file, diags, sources) = load_file(&dir.join("main.idp"));
        // b.idp includes a.idp and main.idp, which are still being read: two cycles. The
        // second include of a.idp by main.idp is a harmless repetition.
        let got: Vec<_> = diags
            .items
            .iter()
            .map(|d| {
                let s = d.span.expect("located");
                (
                    d.code,
                    sources.name(s.file).ends_with("b.idp"),
                    sources.line_col(s.file, s.start),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("include-cycle", true, (1, 1)),
                ("include-cycle", true, (2, 1))
            ]
        );
        let names: Vec<_> = file
            .items
            .iter()
            .map(|i| match i {
                ast::Item::Vocabulary(v) => v.name.name.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(names, ["A", "B", "StdV", "M"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn include_inside_a_block() {
        let dir = scratch_dir("inner");
        std::fs::write(
            dir.join("main.idp"),
            "vocabulary V {\n type T\n include \"decls.idp\"\n}\n",
        )
        .unwrap();
        std::fs::write(dir.join("decls.idp"), "P(T)\nQ(T)\n").unwrap();
        let (file, diags, _) = load_file(&dir.join("main.idp"));
        assert!(diags.items.is_empty(), "{:?}", diags.items);
        let ast::Item::Vocabulary(v) = &file.items[0] else {
            panic!()
        };
        assert_eq!(v.decls.len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_include_and_bad_utf8() {
        let dir = scratch_dir("missing");
        std::fs::write(
            dir.join("main.idp"),
            "vocabulary V {\n}\ninclude \"nope.idp\"\ninclude <nothing>\ninclude \"bad.idp\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("bad.idp"), b"vocabulary W {\n \xff\xfe }\n").unwrap();
        let (file, diags, sources) = load_file(&dir.join("main.idp"));
        // bad.idp is read all the same (its two bytes that are not UTF-8 one error).
        assert_eq!(file.items.len(), 2);
        let got: Vec<_> = diags
            .items
            .iter()
            .map(|d| {
                let s = d.span.expect("located");
                (d.code, sources.line_col(s.file, s.start))
            })
            .collect();
        assert_eq!(
            got,
            [
                ("include-not-found", (3, 1)),
                ("include-not-found", (4, 1)),
                ("invalid-utf8", (2, 2))
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
