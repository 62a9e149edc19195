//! Reading IDP3 source text: the source map, the lexer, the parser and the include loader.
//! [`load`] is the entry point for files given to the CLI; [`parse_text`] parses one text.

pub mod ast;
pub mod fodot;
pub mod format;
pub mod grammar;
mod lexer;
mod loader;
pub mod lua_text;
mod parser;

pub use loader::Stack;

/// The keywords, built-in names, operators and punctuation of IDP3 text, for code that makes
/// near-valid inputs out of them (the loader's random-input test, the fuzzing mutator).
pub const IDP_WORDS: &[&str] = &[
    "vocabulary",
    "theory",
    "structure",
    "factlist",
    "procedure",
    "namespace",
    "term",
    "query",
    "fobdd",
    "include",
    "using",
    "type",
    "isa",
    "contains",
    "constructed",
    "from",
    "partial",
    "extern",
    "int",
    "nat",
    "float",
    "string",
    "char",
    "true",
    "false",
    "sum",
    "prod",
    "min",
    "max",
    "card",
    "abs",
    "MIN",
    "MAX",
    "SUCC",
    "PRED",
    "LTCvocabulary",
    "Start",
    "Time",
    "Next",
    "define",
    "LFD",
    "<ct>",
    "<cf>",
    "<u>",
    "<mx>",
    "::",
    ":",
    "..",
    ".",
    ",",
    ";",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "!",
    "?",
    "?=1",
    "?<2",
    "?>1",
    "#",
    "&",
    "|",
    "~",
    "=",
    "~=",
    "<",
    ">",
    "=<",
    ">=",
    "<-",
    "->",
    "=>",
    "<=",
    "<=>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "/*",
    "*/",
    "//",
    "--",
];

use crate::diagnostics::Diagnostics;

/// The result of loading the inputs: all items of all inputs in order, includes spliced in place.
pub struct Loaded {
    pub file: ast::File,
    /// The `main` blocks of IDP-Z3 (FO(·)) files, in order.
    pub scripts: Vec<fodot::Script>,
    /// Whether an input was read as IDP-Z3's FO(·) (`--dump program` then writes FO(·)).
    pub fodot: bool,
}

/// Parses the top-level inputs `(name, bytes)` in order. `include <name>` is looked up with
/// `std_lib`; `include "path"` relative to the including file, then to the working directory.
pub fn load(
    inputs: Vec<(String, Vec<u8>)>,
    std_lib: &dyn Fn(&str) -> Option<String>,
    sources: &mut crate::source::SourceMap,
    diags: &mut Diagnostics,
) -> Loaded {
    load_with(inputs, std_lib, false, None, Stack::Own, sources, diags)
}

/// [`load`]; with `sandbox` (`--sandbox`), `include "path"` of a file outside the folders of
/// the inputs is refused; `include stdin` reads with `stdin` ([`load`] and a `None` include
/// nothing there); the parser runs where `stack` says ([`load`]: on a thread of its own).
pub fn load_with(
    inputs: Vec<(String, Vec<u8>)>,
    std_lib: &dyn Fn(&str) -> Option<String>,
    sandbox: bool,
    stdin: Option<loader::StdinReader>,
    stack: Stack,
    sources: &mut crate::source::SourceMap,
    diags: &mut Diagnostics,
) -> Loaded {
    loader::load_dialects(inputs, std_lib, sandbox, stdin, stack, sources, diags)
}

/// Parses one text. `include "path"` is resolved relative to the working directory; standard
/// library includes (`include <mx>`) are accepted and include nothing.
pub fn parse_text(
    name: &str,
    text: &str,
    sources: &mut crate::source::SourceMap,
    diags: &mut Diagnostics,
) -> ast::File {
    let no_std = |_: &str| Some(String::new());
    loader::with_parser_stack(&no_std, Stack::Own, move |lookup| {
        let mut includer = loader::FsIncluder::new(lookup);
        let fid = sources.add(name, text);
        let text = sources.shared_text(fid).expect("the file just added");
        parser::parse_file(fid, text, sources, diags, &mut includer)
    })
}
