//! Tokens of IDP3 files: a single logos token set (keywords are recognised by the parser, by
//! context), a token stream with IDP3's lexer modes that matter to the tokens themselves (in a
//! vocabulary a newline is a token, in a factlist `%` starts a comment) and that splices
//! `include`d files in place, and the verbatim capture of Lua procedure bodies (IDP3's `<lua>`
//! lexer state). The grammar these follow is `grammar/idp.pest`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use logos::Logos;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};

/// What an `include` directive names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncludeSpec {
    /// `include "path/file.idp"`
    File(String),
    /// `include <name>`
    Std(String),
    /// `include stdin`
    Stdin,
}

/// Resolves include directives for the token stream.
pub trait Includer {
    /// Returns the file to splice in at the directive, or `None` when there is nothing to
    /// include (already included, or an error that has been reported).
    fn include(
        &mut self,
        spec: &IncludeSpec,
        from: FileId,
        span: Span,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)>;
}

/// The raw token kinds. Identifiers include every keyword: IDP3's keywords depend on the lexer
/// state, so the parser decides.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r]+")]
pub enum Tok {
    #[regex(r"_*[A-Za-z][A-Za-z0-9_']*")]
    Ident,
    #[regex(r"[0-9]+")]
    Int,
    #[regex(r"[0-9]*\.[0-9]+")]
    Float,
    #[regex(r#""[^"]*""#)]
    Str,
    /// One byte between quotes, as in IDP3's lexer: an ASCII character other than newline.
    #[regex(r"'[\x00-\x09\x0b-\x7f]'")]
    Char,
    #[token("\n")]
    Newline,
    /// `//` or `--` to the end of the line; an empty one also takes the next line that is not
    /// empty (see [`line_comment`]).
    #[token("//", line_comment)]
    #[token("--", line_comment)]
    LineComment,
    /// `/* ... */`, not nesting; `false` when never closed.
    #[token("/*", block_comment)]
    BlockComment(bool),
    #[token("::")]
    ColonColon,
    #[token(":")]
    Colon,
    #[token("..")]
    DotDot,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("!")]
    Bang,
    #[token("?")]
    Question,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("~")]
    Tilde,
    #[token("=")]
    Eq,
    #[token("~=")]
    Neq,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("=<")]
    Le,
    #[token(">=")]
    Ge,
    #[token("<-")]
    LArrow,
    #[token("->")]
    RArrow,
    #[token("=>")]
    Implies,
    #[token("<=")]
    ImpliedBy,
    #[token("<=>")]
    Equiv,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("^")]
    Caret,
    #[token("#")]
    Hash,
    /// A character no IDP3 token starts with.
    Unknown,
    /// End of all input.
    Eof,
}

/// The rest of a line comment. IDP3's rule for it, `.*`, cannot match nothing, so after an
/// empty `//` or `--` the newline is read inside the comment state and the comment goes on
/// over the next line that is not empty: `//` alone on a line comments out the next one.
fn line_comment(lex: &mut logos::Lexer<Tok>) {
    let n = comment_rest(lex.remainder().as_bytes());
    lex.bump(n);
}

/// The length of the rest of a line comment whose `//` or `--` ends where `rest` starts.
fn comment_rest(rest: &[u8]) -> usize {
    let newlines = rest.iter().take_while(|&&b| b == b'\n').count();
    newlines
        + rest[newlines..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(rest.len() - newlines)
}

/// The end of a comment that starts with `/*`. IDP3 reads `/**` not followed by `*` as the
/// start of a description comment, which ends at the next `*/` after the `/**`: so `/**/` does
/// not close itself.
fn block_comment(lex: &mut logos::Lexer<Tok>) -> bool {
    let rest = lex.remainder();
    let description = rest.starts_with('*') && !rest[1..].starts_with('*');
    let from = usize::from(description);
    match rest[from..].find("*/").map(|i| i + from) {
        Some(i) => {
            lex.bump(i + 2);
            true
        }
        None => {
            lex.bump(lex.remainder().len());
            false
        }
    }
}

/// One token: its kind, where it is, and whether a newline separates it from the previous one
/// (vocabulary declarations are newline-terminated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
    /// Index of the source text in the stream's text table.
    pub src: u32,
    pub nl_before: bool,
}

/// What the token stream needs from its environment: the source map, the diagnostics sink and
/// the include resolver.
pub struct LexCtx<'a> {
    pub sources: &'a mut SourceMap,
    pub diags: &'a mut Diagnostics,
    pub includer: &'a mut dyn Includer,
}

struct Cursor {
    src: u32,
    pos: usize,
}

/// IDP3's lexer states, as far as they change the tokens themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexMode {
    /// Newlines are white space.
    Plain,
    /// A vocabulary: every newline is a [`Tok::Newline`] token.
    Newlines,
    /// A factlist: `%` starts a comment that runs to the end of the line.
    Factlist,
}

/// A stream of tokens over a stack of files (an `include` directive splices the included file
/// in place, wherever it stands, as IDP3's lexer does), with arbitrary lookahead. The stream
/// can be lexed again from any consumed token in another [`LexMode`]: each included text
/// remembers where its directive was, and each directive what it included.
pub struct TokenStream {
    texts: Vec<Arc<str>>,
    files: Vec<FileId>,
    /// For each text: the text and offset to return to at its end (after its directive).
    parents: Vec<Option<(u32, usize)>>,
    /// What the directive at (text, offset) included, so that lexing again repeats it.
    directives: HashMap<(u32, usize), Option<u32>>,
    stack: Vec<Cursor>,
    buf: VecDeque<Token>,
    mode: LexMode,
    eof: Option<Token>,
    pending_nl: bool,
    /// The files whose first byte that is not UTF-8 outside a comment or string is reported
    /// (one error per file: the others are the same cause).
    foreign_reported: Vec<FileId>,
}

impl TokenStream {
    pub fn new(file: FileId, text: Arc<str>) -> TokenStream {
        TokenStream {
            texts: vec![text],
            files: vec![file],
            parents: vec![None],
            directives: HashMap::new(),
            stack: vec![Cursor { src: 0, pos: 0 }],
            buf: VecDeque::new(),
            mode: LexMode::Plain,
            eof: None,
            pending_nl: true,
            foreign_reported: Vec::new(),
        }
    }

    /// The text of a token.
    pub fn text(&self, t: &Token) -> &str {
        self.texts[t.src as usize]
            .get(t.span.start as usize..t.span.end as usize)
            .unwrap_or("")
    }

    /// The whole text of the file a token comes from.
    pub fn source_of(&self, t: &Token) -> &str {
        &self.texts[t.src as usize]
    }

    /// The `k`-th token ahead (0 = next).
    pub fn peek(&mut self, k: usize, cx: &mut LexCtx) -> Token {
        while self.buf.len() <= k {
            let t = self.lex_one(cx);
            self.buf.push_back(t);
        }
        self.buf[k]
    }

    pub fn next(&mut self, cx: &mut LexCtx) -> Token {
        match self.buf.pop_front() {
            Some(t) => t,
            None => self.lex_one(cx),
        }
    }

    /// Switches the lexer mode after `last` (the last consumed token), lexing again what was
    /// looked ahead.
    pub fn set_mode(&mut self, mode: LexMode, last: &Token) {
        if self.mode != mode {
            self.mode = mode;
            self.reset_after(last);
        }
    }

    /// Drops all lookahead and continues lexing right after `tok`, with the stack of open files
    /// as it was then.
    fn reset_after(&mut self, tok: &Token) {
        self.buf.clear();
        self.pending_nl = false;
        self.eof = None;
        if tok.kind == Tok::Eof {
            return;
        }
        let mut stack = vec![Cursor {
            src: tok.src,
            pos: tok.span.end as usize,
        }];
        let mut at = self.parents[tok.src as usize];
        while let Some((src, pos)) = at {
            stack.push(Cursor { src, pos });
            at = self.parents[src as usize];
        }
        stack.reverse();
        self.stack = stack;
    }

    /// Captures a Lua procedure body starting right after the `{` token `open`. Returns the body
    /// the offset after it, and whether the closing `}` was found; lexing resumes after it.
    pub fn capture_lua(&mut self, open: &Token, cx: &mut LexCtx) -> (String, usize, bool) {
        self.reset_after(open);
        let text = self.texts[open.src as usize].clone();
        let start = open.span.end as usize;
        let capture = capture_lua(&text, start);
        if let Some(at) = capture.include_at {
            let span = Span::new(self.files[open.src as usize], at..at + "include".len());
            cx.diags.push(
                Diagnostic::error(
                    "syntax-error",
                    "'include' cannot stand alone in a procedure: IDP3 reads it as its include directive, which ends the procedure",
                    Some(span),
                )
                .with_hint("include files between blocks; in Lua, write the word with something around it, e.g. (include)"),
            );
        }
        if let Some(c) = self.stack.last_mut() {
            c.pos = capture.end;
        }
        (capture.body, capture.end, capture.closed)
    }

    fn eof_token(&mut self) -> Token {
        if let Some(t) = self.eof {
            return t;
        }
        let len = self.texts[0].len();
        let t = Token {
            kind: Tok::Eof,
            span: Span::new(self.files[0], len..len),
            src: 0,
            nl_before: true,
        };
        self.eof = Some(t);
        t
    }

    fn lex_one(&mut self, cx: &mut LexCtx) -> Token {
        loop {
            let Some(cur) = self.stack.last() else {
                return self.eof_token();
            };
            let (src, pos) = (cur.src, cur.pos);
            let text = self.texts[src as usize].clone();
            let mut lx = Tok::lexer(&text[pos..]);
            let Some(res) = lx.next() else {
                if self.stack.len() == 1 {
                    return self.eof_token();
                }
                self.stack.pop();
                continue;
            };
            let range = lx.span();
            let (start, mut end) = (pos + range.start, pos + range.end);
            let file = self.files[src as usize];
            let unclosed_string = res.is_err() && text[start..].starts_with('"');
            if unclosed_string {
                end = unclosed_string_end(&text, start);
                cx.diags.push(
                    Diagnostic::error(
                        "unclosed-string",
                        "this string is never closed: '\"' without a matching '\"'",
                        Some(Span::new(file, start..start + 1)),
                    )
                    .with_hint("close the string with a '\"' on the same line"),
                );
            }
            self.stack.last_mut().expect("a cursor is open").pos = end;
            let kind = match res {
                Ok(Tok::Newline) if self.mode == LexMode::Newlines => Tok::Newline,
                Ok(Tok::Newline) => {
                    self.pending_nl = true;
                    continue;
                }
                Ok(Tok::LineComment) => continue,
                Ok(Tok::BlockComment(closed)) => {
                    if !closed {
                        cx.diags
                            .push(unclosed_comment(Span::new(file, start..start + 2)));
                    }
                    continue;
                }
                Ok(Tok::Percent) if self.mode == LexMode::Factlist => {
                    let nl = text[end..].find('\n').map_or(text.len(), |i| end + i);
                    self.stack.last_mut().expect("a cursor is open").pos = nl;
                    continue;
                }
                Ok(Tok::Ident) if &text[start..end] == "include" => {
                    match include_directive(&text, end) {
                        Some(stop) => self.include(cx, src, start, stop),
                        None => cx
                            .diags
                            .push(include_without_file(Span::new(file, start..end))),
                    }
                    continue;
                }
                Ok(k) => k,
                Err(()) if unclosed_string => Tok::Str,
                Err(()) if cx.sources.foreign_at(file, start as u32) => {
                    // A byte that is not UTF-8 (read as Latin-1) outside a comment or string:
                    // the root cause, reported as such and skipped so that it causes no other
                    // error. IDP3's lexer (`src/parser/lex.ll`) takes any byte in comments and
                    // strings only.
                    if !self.foreign_reported.contains(&file) {
                        self.foreign_reported.push(file);
                        cx.diags
                            .push(not_utf8(Span::new(file, start..end), &text[start..end]));
                    }
                    continue;
                }
                Err(()) => Tok::Unknown,
            };
            let nl_before = std::mem::take(&mut self.pending_nl);
            if kind == Tok::Newline {
                self.pending_nl = true;
            }
            return Token {
                kind,
                span: Span::new(file, start..end),
                src,
                nl_before,
            };
        }
    }

    /// Performs the include directive at `start..stop` of text `src`: the included file's
    /// tokens come next (the same file as the first time when the directive is lexed again).
    fn include(&mut self, cx: &mut LexCtx, src: u32, start: usize, stop: usize) {
        self.stack.last_mut().expect("a cursor is open").pos = stop;
        let child = match self.directives.get(&(src, start)) {
            Some(&child) => child,
            None => {
                let child = self.load_include(cx, src, start, stop);
                self.directives.insert((src, start), child);
                child
            }
        };
        if let Some(child) = child {
            self.stack.push(Cursor { src: child, pos: 0 });
            self.pending_nl = true;
        }
    }

    /// Asks the includer for the file of the directive at `start..stop` of text `src`.
    fn load_include(
        &mut self,
        cx: &mut LexCtx,
        src: u32,
        start: usize,
        stop: usize,
    ) -> Option<u32> {
        let text = self.texts[src as usize].clone();
        let spec = include_spec(&text[start..stop]);
        let file = self.files[src as usize];
        let span = Span::new(file, start..stop);
        let (fid, text) = cx
            .includer
            .include(&spec, file, span, cx.sources, cx.diags)?;
        self.texts.push(text);
        self.files.push(fid);
        self.parents.push(Some((src, stop)));
        Some((self.texts.len() - 1) as u32)
    }
}

/// A string runs to its closing quote; without one, it is taken to end before the first newline
/// or closing bracket or separator, so that the rest of the file is still read.
fn unclosed_string_end(text: &str, start: usize) -> usize {
    text[start..]
        .find(['\n', '}', ')', ']', ';', ','])
        .map_or(text.len(), |i| start + i)
}

/// A byte that is not UTF-8 (shown as its Latin-1 character `shown`) outside a comment or
/// string.
fn not_utf8(span: Span, shown: &str) -> Diagnostic {
    let byte = shown.chars().next().map_or(0, u32::from);
    Diagnostic::error(
        "invalid-utf8",
        format!(
            "the byte 0x{byte:02X} ('{shown}' in Latin-1) is not UTF-8 text, and outside a comment or string no such byte is allowed"
        ),
        Some(span),
    )
    .with_hint("save the file with UTF-8 encoding (e.g. `iconv -f latin1 -t utf-8`), or keep such characters in comments and strings")
}

fn unclosed_comment(span: Span) -> Diagnostic {
    Diagnostic::warning(
        "unclosed-comment",
        "this comment is never closed: '/*' without a matching '*/'",
        Some(span),
    )
    .with_hint("everything after '/*' up to the end of the file is ignored")
}

fn include_without_file(span: Span) -> Diagnostic {
    Diagnostic::error(
        "syntax-error",
        "expected a file name after 'include'",
        Some(span),
    )
    .with_hint("write include \"path/to/file.idp\" or include <name> for a standard library file")
}

/// The length of the white space and comments at the start of `s` (IDP3's `include` state
/// skips them before the file name).
fn trivia_len(s: &str) -> usize {
    let mut lx = Tok::lexer(s);
    let mut len = 0;
    while let Some(Ok(Tok::Newline | Tok::LineComment | Tok::BlockComment(true))) = lx.next() {
        len = lx.span().end;
    }
    len + s[len..].len() - s[len..].trim_start_matches([' ', '\t', '\r']).len()
}

/// The end of an include directive whose word `include` ends at `from`: after `"file"` (which
/// may span lines, as IDP3's strings do), `<name>` or `stdin`; `None` without one of them.
fn include_directive(text: &str, from: usize) -> Option<usize> {
    let i = from + trivia_len(&text[from..]);
    let rest = &text[i..];
    if let Some(body) = rest.strip_prefix('"') {
        return body.find('"').map(|j| i + j + 2);
    }
    if let Some(body) = rest.strip_prefix('<') {
        let n = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '/'))
            .unwrap_or(body.len());
        return body[n..].starts_with('>').then_some(i + n + 2);
    }
    let word_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\''))
        .unwrap_or(rest.len());
    (&rest[..word_end] == "stdin").then_some(i + word_end)
}

/// What the text of an include directive (as [`include_directive`] delimits it) names.
fn include_spec(directive: &str) -> IncludeSpec {
    let target = directive["include".len()..].trim_start();
    let target = &target[trivia_len(target)..];
    if let Some(path) = target.strip_prefix('"') {
        IncludeSpec::File(path.trim_end_matches('"').to_string())
    } else if let Some(name) = target.strip_prefix('<') {
        IncludeSpec::Std(name.trim_end_matches('>').to_string())
    } else {
        IncludeSpec::Stdin
    }
}

/// A captured procedure body.
#[derive(Debug, PartialEq)]
pub struct LuaCapture {
    /// The Lua code: `::` rewritten to `.`, IDP comments removed (their newlines kept).
    pub body: String,
    /// The offset after the closing brace (or the end of the text).
    pub end: usize,
    /// Whether the closing brace was found.
    pub closed: bool,
    /// Where a stand-alone word `include` is, which IDP3 takes for its include directive.
    pub include_at: Option<usize>,
}

/// The bytes that end a run of ordinary text in IDP3's `<lua>` lexer state.
const LUA_SPECIAL: &[u8] = b"/{}:\n\"'*";

/// IDP3's Lua capture: copies `text[start..]` up to the `}` that balances the procedure's `{`,
/// lexeme by lexeme as IDP3's `<lua>` state does. Double-quoted strings (which may span lines)
/// and one-byte `'x'` literals are protected, `::` becomes `.`, `//`, `/* */` and `/** */`
/// comments are removed (their newlines kept, so that Lua's line numbers stay right). Other
/// text goes through in runs up to the next byte of [`LUA_SPECIAL`]; a run that is exactly
/// `--` is a line comment (flex prefers IDP3's comment rule when both match two bytes), so
/// `--}` hides its brace while `-- }` does not.
pub fn capture_lua(text: &str, start: usize) -> LuaCapture {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(256);
    let mut depth = 1usize;
    let mut include_at = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        let step = match b {
            _ if !LUA_SPECIAL.contains(&b) => {
                let n = bytes[i..]
                    .iter()
                    .position(|c| LUA_SPECIAL.contains(c))
                    .unwrap_or(bytes.len() - i);
                match &text[i..i + n] {
                    "--" => line_comment_in_lua(bytes, i + 2, &mut out) - i,
                    run => {
                        if run == "include" {
                            include_at.get_or_insert(i);
                        }
                        out.extend_from_slice(run.as_bytes());
                        n
                    }
                }
            }
            b'"' => match text[i + 1..].find('"') {
                Some(j) => {
                    out.extend_from_slice(&bytes[i..i + j + 2]);
                    j + 2
                }
                None => {
                    out.push(b);
                    1
                }
            },
            b'\'' if next.is_some_and(|c| c != b'\n') && bytes.get(i + 2) == Some(&b'\'') => {
                out.extend_from_slice(&bytes[i..i + 3]);
                3
            }
            b'/' if next == Some(b'/') => line_comment_in_lua(bytes, i + 2, &mut out) - i,
            b'/' if next == Some(b'*') => {
                let close = comment_end(text, i);
                out.extend(bytes[i..close].iter().filter(|&&c| c == b'\n'));
                close - i
            }
            b':' if next == Some(b':') => {
                out.push(b'.');
                2
            }
            b'}' if depth == 1 => {
                return LuaCapture {
                    body: String::from_utf8_lossy(&out).into_owned(),
                    end: i + 1,
                    closed: true,
                    include_at,
                };
            }
            _ => {
                match b {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                out.push(b);
                1
            }
        };
        i += step;
    }
    LuaCapture {
        body: String::from_utf8_lossy(&out).into_owned(),
        end: bytes.len(),
        closed: false,
        include_at,
    }
}

/// The end of a line comment in Lua whose `//` or `--` ends at `from` (see [`comment_rest`]);
/// the newlines it takes in are kept in `out`, so that Lua's line numbers stay right.
fn line_comment_in_lua(bytes: &[u8], from: usize, out: &mut Vec<u8>) -> usize {
    let n = comment_rest(&bytes[from..]);
    out.extend(bytes[from..from + n].iter().filter(|&&c| c == b'\n'));
    from + n
}

/// The offset after the comment that starts with `/*` at `i`: after the first `*/` that
/// follows, or after the `/**` of a description comment (so `/**/` does not close itself).
fn comment_end(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    let description =
        bytes.get(i + 2) == Some(&b'*') && bytes.get(i + 3).is_some_and(|&c| c != b'*');
    let from = i + if description { 3 } else { 2 };
    text[from..].find("*/").map_or(text.len(), |j| from + j + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        Tok::lexer(s)
            .map(|r| r.unwrap_or(Tok::Unknown))
            .filter(|k| !matches!(k, Tok::Newline | Tok::LineComment))
            .collect()
    }

    #[test]
    fn maximal_munch() {
        assert_eq!(kinds("x<-1"), vec![Tok::Ident, Tok::LArrow, Tok::Int]);
        assert_eq!(kinds("a=<b"), vec![Tok::Ident, Tok::Le, Tok::Ident]);
        assert_eq!(kinds("p<=>q"), vec![Tok::Ident, Tok::Equiv, Tok::Ident]);
        assert_eq!(kinds("x--1"), vec![Tok::Ident]);
        assert_eq!(kinds("1..5"), vec![Tok::Int, Tok::DotDot, Tok::Int]);
        assert_eq!(kinds("1.5 .5"), vec![Tok::Float, Tok::Float]);
        assert_eq!(kinds("x' 'a' \"s\""), vec![Tok::Ident, Tok::Char, Tok::Str]);
        assert_eq!(
            kinds("/* a /* b */ c"),
            vec![Tok::BlockComment(true), Tok::Ident]
        );
        // An empty line comment takes in the next line that is not empty.
        assert_eq!(kinds("a //\n\n b c\nd"), vec![Tok::Ident, Tok::Ident]);
        assert_eq!(kinds("a // x\nb"), vec![Tok::Ident, Tok::Ident]);
        assert_eq!(kinds("a --\r\nb"), vec![Tok::Ident, Tok::Ident]);
    }

    #[test]
    fn lua_capture_quirks() {
        let src = "{ a = V::P // gone {\n b = \"}\" .. '}' /* x\n y */ c = {1} }rest";
        let c = capture_lua(src, 1);
        assert!(c.closed);
        assert_eq!(&src[c.end..], "rest");
        assert_eq!(c.body, " a = V.P \n b = \"}\" .. '}' \n c = {1} ");
    }

    #[test]
    fn lua_capture_unclosed() {
        let c = capture_lua("{ if x then { end", 1);
        assert!(!c.closed);
        assert_eq!(c.end, 17);
    }

    #[test]
    fn lua_capture_follows_flex() {
        // `--` alone before a special byte is IDP3's comment; with text after it, Lua's.
        assert_eq!(capture_lua("{\n--}\n}x", 1).end, 7);
        assert_eq!(capture_lua("{\n-- }\n}x", 1).end, 6);
        assert_eq!(capture_lua("{ \"a\"--}\n}x", 1).end, 10);
        // One byte between quotes only: 'é' protects nothing, so the next '}' is one.
        assert_eq!(capture_lua("{ '\u{e9}'}'}x", 1).end, 9);
        assert_eq!(capture_lua("{ '}}' }", 1).end, 4);
        // `/**/` opens a description comment.
        assert!(!capture_lua("{ /**/ }", 1).closed);
        assert_eq!(capture_lua("{\ninclude\"x\" }", 1).include_at, Some(2));
        assert_eq!(capture_lua("{ print(include) }", 1).include_at, None);
    }
}
