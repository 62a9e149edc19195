//! Tokens of IDP3 files: a single logos token set (keywords are recognised by the parser, by
//! context), a token stream that splices `include`d files in place, and the verbatim capture of
//! Lua procedure bodies (IDP3's `<lua>` lexer state).

use std::collections::VecDeque;
use std::rc::Rc;

use logos::Logos;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::source::SourceMap;
use crate::syntax::ast::{FileId, Span};

/// What an `include` directive names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncludeSpec {
    /// `include "path/file.idp"`
    File(String),
    /// `include <name>`
    Std(String),
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
    ) -> Option<(FileId, Rc<str>)>;
}

/// The raw token kinds. Identifiers include every keyword: IDP3's keywords depend on the lexer
/// state, so the parser decides.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\f]+")]
pub enum Tok {
    #[regex(r"_*[A-Za-z][A-Za-z0-9_']*")]
    Ident,
    #[regex(r"[0-9]+")]
    Int,
    #[regex(r"[0-9]*\.[0-9]+")]
    Float,
    #[regex(r#""[^"]*""#)]
    Str,
    #[regex(r"'[^\n]'")]
    Char,
    #[token("\n")]
    Newline,
    #[regex(r"//[^\n]*")]
    #[regex(r"--[^\n]*")]
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

fn block_comment(lex: &mut logos::Lexer<Tok>) -> bool {
    match lex.remainder().find("*/") {
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

/// A stream of tokens over a stack of files (included files are spliced in place), with
/// arbitrary lookahead.
pub struct TokenStream {
    texts: Vec<Rc<str>>,
    files: Vec<FileId>,
    stack: Vec<Cursor>,
    buf: VecDeque<Token>,
    /// In a factlist, `%` starts a line comment.
    pub factlist_mode: bool,
    eof: Option<Token>,
    pending_nl: bool,
}

impl TokenStream {
    pub fn new(file: FileId, text: Rc<str>) -> TokenStream {
        TokenStream {
            texts: vec![text],
            files: vec![file],
            stack: vec![Cursor { src: 0, pos: 0 }],
            buf: VecDeque::new(),
            factlist_mode: false,
            eof: None,
            pending_nl: true,
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

    /// Drops all lookahead and continues lexing right after `tok` (which must come from the
    /// innermost file still open).
    fn reset_after(&mut self, tok: &Token) {
        self.buf.clear();
        while self.stack.len() > 1 && self.stack.last().map(|c| c.src) != Some(tok.src) {
            self.stack.pop();
        }
        if let Some(c) = self.stack.last_mut() {
            c.src = tok.src;
            c.pos = tok.span.end as usize;
        }
        self.eof = None;
    }

    /// Captures a Lua procedure body starting right after the `{` token `open`. Returns the body
    /// the offset after it, and whether the closing `}` was found; lexing resumes after it.
    pub fn capture_lua(&mut self, open: &Token) -> (String, usize, bool) {
        self.reset_after(open);
        let text = self.texts[open.src as usize].clone();
        let start = open.span.end as usize;
        let (body, end, closed) = capture_lua(&text, start);
        if let Some(c) = self.stack.last_mut() {
            c.pos = end;
        }
        (body, end, closed)
    }

    /// Skips tokens up to the `}` matching an already consumed `{` (used for `fobdd` blocks);
    /// returns the closing token if found.
    pub fn skip_braced(&mut self, cx: &mut LexCtx) -> Option<Token> {
        let mut depth = 1usize;
        loop {
            let t = self.next(cx);
            match t.kind {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(t);
                    }
                }
                Tok::Eof => return None,
                _ => {}
            }
        }
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
            let src = cur.src;
            let pos = cur.pos;
            let text = self.texts[src as usize].clone();
            let mut lx = Tok::lexer(&text[pos..]);
            let Some(res) = lx.next() else {
                if self.stack.len() == 1 {
                    let len = text.len();
                    let t = Token {
                        kind: Tok::Eof,
                        span: Span::new(self.files[0], len..len),
                        src: 0,
                        nl_before: true,
                    };
                    self.eof = Some(t);
                    return t;
                }
                self.stack.pop();
                continue;
            };
            let range = lx.span();
            let (start, mut end) = (pos + range.start, pos + range.end);
            let file = self.files[src as usize];
            let unclosed_string = res.is_err() && text[start..].starts_with('"');
            if unclosed_string {
                // A string runs to its closing quote; without one, it is taken to end before
                // the first newline or closing bracket or separator, so that the rest of the
                // file is still read.
                end = text[start..]
                    .find(['\n', '}', ')', ']', ';', ','])
                    .map(|i| start + i)
                    .unwrap_or(text.len());
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
                Ok(Tok::Newline) => {
                    self.pending_nl = true;
                    continue;
                }
                Ok(Tok::LineComment) => continue,
                Ok(Tok::BlockComment(closed)) => {
                    if !closed {
                        cx.diags.push(
                            Diagnostic::warning(
                                "unclosed-comment",
                                "this comment is never closed: '/*' without a matching '*/'",
                                Some(Span::new(file, start..start + 2)),
                            )
                            .with_hint(
                                "everything after '/*' up to the end of the file is ignored",
                            ),
                        );
                    }
                    continue;
                }
                Ok(Tok::Percent) if self.factlist_mode => {
                    let nl = text[end..]
                        .find('\n')
                        .map(|i| end + i)
                        .unwrap_or(text.len());
                    self.stack.last_mut().expect("a cursor is open").pos = nl;
                    continue;
                }
                Ok(Tok::Ident) if &text[start..end] == "include" => {
                    self.include(cx, src, start, end);
                    continue;
                }
                Ok(k) => k,
                Err(()) if unclosed_string => Tok::Str,
                Err(()) => Tok::Unknown,
            };
            let nl_before = std::mem::take(&mut self.pending_nl);
            return Token {
                kind,
                span: Span::new(file, start..end),
                src,
                nl_before,
            };
        }
    }

    /// Handles `include "file"` / `include <name>` found at `start..end` of source `src`.
    fn include(&mut self, cx: &mut LexCtx, src: u32, start: usize, end: usize) {
        let text = self.texts[src as usize].clone();
        let file = self.files[src as usize];
        let bytes = text.as_bytes();
        let mut i = end;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        let (spec, stop) = match bytes.get(i) {
            // The file name ends on the same line.
            Some(b'"') => match text[i + 1..]
                .find(['"', '\n'])
                .filter(|&j| bytes[i + 1 + j] == b'"')
            {
                Some(j) => (
                    Some(IncludeSpec::File(text[i + 1..i + 1 + j].to_string())),
                    i + j + 2,
                ),
                None => (None, i),
            },
            Some(b'<') => {
                let mut j = i + 1;
                while j < bytes.len()
                    && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b'/')
                {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'>') {
                    (Some(IncludeSpec::Std(text[i + 1..j].to_string())), j + 1)
                } else {
                    (None, i)
                }
            }
            _ => (None, i),
        };
        let Some(spec) = spec else {
            cx.diags.push(
                Diagnostic::error(
                    "syntax-error",
                    "expected a file name after 'include'",
                    Some(Span::new(file, start..end)),
                )
                .with_hint("write include \"path/to/file.idp\" or include <name> for a standard library file"),
            );
            return;
        };
        self.stack.last_mut().expect("a cursor is open").pos = stop;
        let span = Span::new(file, start..stop);
        if let Some((fid, text)) = cx.includer.include(&spec, file, span, cx.sources, cx.diags) {
            self.texts.push(text);
            self.files.push(fid);
            self.stack.push(Cursor {
                src: (self.texts.len() - 1) as u32,
                pos: 0,
            });
        }
    }
}

/// IDP3's Lua capture: copies `text[start..]` up to the `}` that balances the procedure's `{`,
/// rewriting `::` to `.` and removing `//` and `/* */` comments (newlines kept). Double-quoted
/// strings and one-character `'x'` literals are protected. Returns the body, the offset after the
/// closing brace (or the end of the text) and whether the brace was found.
pub fn capture_lua(text: &str, start: usize) -> (String, usize, bool) {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(256);
    let mut depth = 1usize;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => match text[i + 1..].find('"') {
                Some(j) => {
                    out.extend_from_slice(&bytes[i..i + j + 2]);
                    i += j + 2;
                }
                None => {
                    out.push(b);
                    i += 1;
                }
            },
            b'\'' if char_literal_len(&text[i..]).is_some() => {
                let n = char_literal_len(&text[i..]).unwrap_or(1);
                out.extend_from_slice(&bytes[i..i + n]);
                i += n;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = text[i + 2..]
                    .find("*/")
                    .map(|j| i + 2 + j + 2)
                    .unwrap_or(bytes.len());
                out.extend(bytes[i..close].iter().filter(|&&c| c == b'\n'));
                i = close;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => {
                out.push(b'.');
                i += 2;
            }
            b'{' => {
                depth += 1;
                out.push(b);
                i += 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return (String::from_utf8_lossy(&out).into_owned(), i + 1, true);
                }
                out.push(b);
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        bytes.len(),
        false,
    )
}

/// Length in bytes of a `'x'` literal at the start of `s` (one character, not a newline).
fn char_literal_len(s: &str) -> Option<usize> {
    let mut it = s.char_indices();
    it.next()?;
    let (_, c) = it.next()?;
    if c == '\n' {
        return None;
    }
    let (k, q) = it.next()?;
    (q == '\'').then_some(k + 1)
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
    }

    #[test]
    fn lua_capture_quirks() {
        let src = "{ a = V::P // gone {\n b = \"}\" .. '}' /* x\n y */ c = {1} }rest";
        let (body, end, closed) = capture_lua(src, 1);
        assert!(closed);
        assert_eq!(&src[end..], "rest");
        assert_eq!(body, " a = V.P \n b = \"}\" .. '}' \n c = {1} ");
    }

    #[test]
    fn lua_capture_unclosed() {
        let (_, end, closed) = capture_lua("{ if x then { end", 1);
        assert!(!closed);
        assert_eq!(end, 17);
    }
}
