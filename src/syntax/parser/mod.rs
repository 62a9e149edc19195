//! The recursive-descent parser: token helpers, error reporting and recovery, and the file level
//! (namespaces, `using`, dispatch to the block parsers in the submodules). It reads
//! the language of `grammar/idp.pest` (IDP3's `lex.ll` and `parser.yy`); `tests/grammar.rs`
//! checks that both agree. Keywords depend on the block being read, as in IDP3's lexer
//! ([`State`]).

mod factlist;
mod formula;
mod procedure;
mod structure;
mod theory;
mod vocabulary;

use std::sync::Arc;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Includer, LexCtx, LexMode, Tok, Token, TokenStream};

/// Nesting deeper than this (parentheses, quantifiers, compound elements) is refused.
pub const MAX_DEPTH: u32 = 500;

/// A parse failure that has already been reported; the caller recovers.
#[derive(Debug)]
pub struct Fail;

pub type PResult<T> = Result<T, Fail>;

/// Parses one file (with its includes spliced in) into items.
pub fn parse_file(
    file: FileId,
    text: Arc<str>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
    includer: &mut dyn Includer,
) -> File {
    let mut p = Parser::new(
        TokenStream::new(file, text),
        LexCtx {
            sources,
            diags,
            includer,
        },
    );
    let items = p.items(false);
    File { items }
}

/// The lexer state of IDP3 that decides which words are keywords (and so no names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// Between blocks: the block keywords.
    Initial,
    /// `type partial isa contains extern`.
    Vocabulary,
    /// Theories, queries, terms, fobdds: aggregates, `true false define LFD GFD`.
    Theory,
    /// `true false procedure generate`.
    Structure,
    /// No keywords: constructor lists, factlists, procedures, namespace names.
    Plain,
}

impl State {
    /// Is `word` a keyword (so no identifier) in this state? `include` and `using` are
    /// keywords everywhere.
    fn reserves(self, word: &str) -> bool {
        let words: &[&str] = match self {
            State::Initial => BLOCK_KEYWORDS,
            State::Vocabulary => &["type", "partial", "isa", "contains", "extern"],
            State::Theory => &[
                "card", "sum", "prod", "min", "max", "LFD", "GFD", "true", "false", "define",
                "Define",
            ],
            State::Structure => &["true", "false", "procedure", "generate"],
            State::Plain => &[],
        };
        word == "using" || word == "include" || words.contains(&word)
    }
}

/// Is `s` an identifier of IDP3's lexer: `_*[A-Za-z][A-Za-z0-9_']*`?
fn is_identifier(s: &str) -> bool {
    let rest = s.trim_start_matches('_');
    rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'')
}

/// A block being parsed, to explain an unexpected end of file.
struct OpenBlock {
    kind: &'static str,
    name: String,
    span: Span,
}

pub struct Parser<'a> {
    ts: TokenStream,
    cx: LexCtx<'a>,
    depth: u32,
    too_deep_reported: bool,
    blocks: Vec<OpenBlock>,
    /// The last consumed token.
    last: Token,
    /// A reused buffer for the elements of a tuple.
    scratch: Vec<Element>,
    /// Which words are keywords here.
    state: State,
}

/// Block keywords of the file level (IDP3's INITIAL lexer state).
const BLOCK_KEYWORDS: &[&str] = &[
    "vocabulary",
    "Vocabulary",
    "LTCvocabulary",
    "theory",
    "Theory",
    "structure",
    "Structure",
    "factlist",
    "Aspstructure",
    "namespace",
    "Namespace",
    "procedure",
    "Procedure",
    "query",
    "Query",
    "term",
    "Term",
    "fobdd",
    "using",
];

impl<'a> Parser<'a> {
    fn new(ts: TokenStream, cx: LexCtx<'a>) -> Parser<'a> {
        let last = Token {
            kind: Tok::Eof,
            span: Span::default(),
            src: 0,
            nl_before: true,
        };
        Parser {
            ts,
            cx,
            depth: 0,
            too_deep_reported: false,
            blocks: Vec::new(),
            last,
            scratch: Vec::new(),
            state: State::Initial,
        }
    }

    // ---------------------------------------------------------------------------------------
    // Token helpers
    // ---------------------------------------------------------------------------------------

    fn peek(&mut self) -> Token {
        self.ts.peek(0, &mut self.cx)
    }

    fn peek_at(&mut self, k: usize) -> Token {
        self.ts.peek(k, &mut self.cx)
    }

    fn bump(&mut self) -> Token {
        let t = self.ts.next(&mut self.cx);
        if t.kind != Tok::Eof {
            self.last = t;
        }
        t
    }

    fn at(&mut self, kind: Tok) -> bool {
        self.peek().kind == kind
    }

    fn eat(&mut self, kind: Tok) -> Option<Token> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn text(&self, t: &Token) -> &str {
        self.ts.text(t)
    }

    /// The text of `t`'s file from `t` on.
    fn source_at(&self, t: &Token) -> &str {
        self.ts
            .source_of(t)
            .get(t.span.start as usize..)
            .unwrap_or("")
    }

    /// Is `t` the identifier `word`?
    fn is_word(&self, t: &Token, word: &str) -> bool {
        t.kind == Tok::Ident && self.ts.text(t) == word
    }

    /// Is the next token the identifier `word`?
    fn at_word(&mut self, word: &str) -> bool {
        let t = self.peek();
        self.is_word(&t, word)
    }

    fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => Err(self.unexpected(what)),
        }
    }

    /// An identifier (not a keyword of the current [`State`]).
    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.peek();
        if t.kind == Tok::Ident && self.is_keyword(&t) {
            let word = self.text(&t).to_string();
            let d = self
                .unexpected_diag(&t, what)
                .with_hint(keyword_hint(self.state, &word));
            self.report(d);
            return Err(Fail);
        }
        let t = self.expect(Tok::Ident, what)?;
        Ok(Ident {
            name: self.text(&t).to_string(),
            span: t.span,
        })
    }

    /// Is the identifier token `t` a keyword here? Besides the words of [`State::reserves`],
    /// a theory has the keywords `EXISTS:`, `TRUE BRANCH:` and `FALSE BRANCH:` (of `fobdd`
    /// blocks), spelt exactly so.
    fn is_keyword(&mut self, t: &Token) -> bool {
        let word = self.text(t);
        if self.state.reserves(word) {
            return true;
        }
        if self.state != State::Theory {
            return false;
        }
        match word {
            "EXISTS" => {
                let colon = self.peek_at(1);
                colon.kind == Tok::Colon && adjacent(t, &colon, 0)
            }
            "TRUE" | "FALSE" => self.branch_keyword_follows(t),
            _ => false,
        }
    }

    /// After `TRUE` or `FALSE` (the token `t`, the next one): ` BRANCH:`.
    fn branch_keyword_follows(&mut self, t: &Token) -> bool {
        let (branch, colon) = (self.peek_at(1), self.peek_at(2));
        branch.kind == Tok::Ident
            && self.text(&branch) == "BRANCH"
            && adjacent(t, &branch, 1)
            && self.ts.source_of(t).as_bytes().get(t.span.end as usize) == Some(&b' ')
            && colon.kind == Tok::Colon
            && adjacent(&branch, &colon, 0)
    }

    /// Runs `f` in lexer state `state`.
    fn in_state<T>(&mut self, state: State, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.state, state);
        let r = f(self);
        self.state = outer;
        r
    }

    /// Switches the lexer's mode after the last consumed token.
    fn lex_mode(&mut self, mode: LexMode) {
        let last = self.last;
        self.ts.set_mode(mode, &last);
    }

    /// When the next token is the word that starts with `keyword`, one space after `prev`,
    /// as IDP3's lexer reads its two-word keywords (`using vocabulary`, `extern vocabulary`,
    /// `constructed from`): consumes it and returns the rest of the word, a name of its own
    /// (`using vocabularyV` is `using vocabulary V` to IDP3), if any.
    fn second_keyword(&mut self, prev: &Token, keyword: &str) -> Option<Option<Ident>> {
        let t = self.peek();
        let text = self.text(&t);
        if t.kind != Tok::Ident
            || !adjacent(prev, &t, 1)
            || self
                .ts
                .source_of(prev)
                .as_bytes()
                .get(prev.span.end as usize)
                != Some(&b' ')
            || !text.starts_with(keyword)
        {
            return None;
        }
        let rest = &text[keyword.len()..];
        if !rest.is_empty() && !is_identifier(rest) {
            return None;
        }
        let name = (!rest.is_empty()).then(|| Ident {
            name: rest.to_string(),
            span: Span {
                file: t.span.file,
                start: t.span.start + keyword.len() as u32,
                end: t.span.end,
            },
        });
        self.bump();
        Some(name)
    }

    /// A pointer whose first part `first` was glued to a keyword (`using vocabularyV`): like any
    /// name, it must not be a keyword itself.
    fn glued_pointer(&mut self, first: Ident) -> PResult<Pointer> {
        if self.state.reserves(&first.name) {
            let msg = format!("unexpected '{}', expected a name", first.name);
            let d = Diagnostic::error("syntax-error", msg, Some(first.span))
                .with_hint(keyword_hint(self.state, &first.name));
            self.report(d);
            return Err(Fail);
        }
        self.pointer_from(first)
    }

    /// `A::B::c`
    fn pointer(&mut self, what: &str) -> PResult<Pointer> {
        let first = self.ident(what)?;
        self.pointer_from(first)
    }

    /// The rest of a pointer whose first part is `first`.
    fn pointer_from(&mut self, first: Ident) -> PResult<Pointer> {
        let mut span = first.span;
        let mut parts = vec![first];
        while self.at(Tok::ColonColon) && self.peek_at(1).kind == Tok::Ident {
            self.bump();
            let id = self.ident("a name")?;
            span = span.to(id.span);
            parts.push(id);
        }
        Ok(Pointer { parts, span })
    }

    /// From `start` up to the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        if self.last.span.file == start.file && self.last.span.end >= start.start {
            start.to(self.last.span)
        } else {
            start
        }
    }

    fn line_of(&self, span: Span) -> u32 {
        self.cx.sources.line_col(span.file, span.start).0
    }

    // ---------------------------------------------------------------------------------------
    // Errors
    // ---------------------------------------------------------------------------------------

    /// How a token is shown to the user.
    fn describe(&self, t: &Token) -> String {
        // A message stays on one line and short: long tokens are cut.
        let full = self.text(t);
        let line = full.lines().next().unwrap_or("");
        let text = match line.char_indices().nth(40) {
            Some((i, _)) => format!("{}...", &line[..i]),
            None if line.len() < full.len() => format!("{line}..."),
            None => line.to_string(),
        };
        match t.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Newline => "end of line".to_string(),
            Tok::Str => format!("string {text}"),
            Tok::Int | Tok::Float => format!("number {text}"),
            Tok::Char => format!("character {text}"),
            Tok::Unknown => format!("character '{}'", text.escape_debug()),
            _ => format!("'{text}'"),
        }
    }

    fn report(&mut self, d: Diagnostic) {
        self.cx.diags.push(d);
    }

    fn error_at(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::error("syntax-error", message, Some(span)));
    }

    /// Reports the next token as unexpected (`expected` says what would have been right).
    fn unexpected(&mut self, expected: &str) -> Fail {
        let t = self.peek();
        let d = self.unexpected_diag(&t, expected);
        self.report(d);
        Fail
    }

    fn unexpected_diag(&self, t: &Token, expected: &str) -> Diagnostic {
        if t.kind == Tok::Eof {
            if let Some(b) = self.blocks.last() {
                let line = self.line_of(b.span);
                let msg = format!(
                    "unexpected end of file: the {} '{}' opened at line {} is never closed",
                    b.kind, b.name, line
                );
                return Diagnostic::error("syntax-error", msg, Some(t.span))
                    .with_label(format!("expected {expected}"))
                    .with_hint(format!("add a '}}' to close the {} '{}'", b.kind, b.name));
            }
        }
        let msg = format!("unexpected {}, expected {}", self.describe(t), expected);
        let mut d = Diagnostic::error("syntax-error", msg, Some(t.span));
        if t.kind == Tok::Unknown {
            d = d.with_hint("this character is not part of the IDP language");
        }
        if let Some(hint) = self.other_language_hint(t) {
            d = d.with_hint(hint);
        }
        d
    }

    /// A hint for an operator that students bring from other languages into a formula:
    /// `!=` (IDP writes `~=`) and `->` (IDP writes `=>`).
    fn other_language_hint(&self, t: &Token) -> Option<&'static str> {
        if self.state != State::Theory {
            return None;
        }
        let rest = self.ts.source_of(t).get(t.span.end as usize..)?;
        match t.kind {
            Tok::Bang if rest.starts_with('=') => Some(
                "'!=' is not IDP: write '~=' for \"is not equal to\" ('~' is IDP's negation, '!' is \"for all\")",
            ),
            Tok::RArrow => Some(
                "'->' is not a connective in IDP: write '=>' for \"implies\" ('<=>' for \"if and only if\")",
            ),
            _ => None,
        }
    }

    /// Enters one nesting level; refuses beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                let t = self.peek();
                self.report(Diagnostic::error(
                    "nesting-too-deep",
                    format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
                    Some(t.span),
                ));
            }
            return Err(Fail);
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    // ---------------------------------------------------------------------------------------
    // Recovery
    // ---------------------------------------------------------------------------------------

    /// Skips a balanced `{ ... }` group whose `{` is the next token.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to just after the next `.` of the current block, or to (not past) the `}` that
    /// closes it.
    fn recover_sentence(&mut self) {
        let mut depth = 0usize;
        loop {
            let t = self.peek();
            if depth == 0 && t.nl_before && self.at_next_block() {
                return;
            }
            match t.kind {
                Tok::Eof => return,
                Tok::Dot if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to (not past) the `}` that closes the current block.
    fn recover_to_block_end(&mut self) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof | Tok::RBrace => return,
                Tok::LBrace => self.skip_group(),
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Does a new block (`theory T : V {`, `procedure p(`, ...) start on the next line? Then the
    /// current block lacks its `}`.
    fn at_next_block(&mut self) -> bool {
        let t = self.peek();
        if t.kind != Tok::Ident
            || !t.nl_before
            || !BLOCK_KEYWORDS.contains(&self.text(&t))
            || self.is_word(&t, "using")
        {
            return false;
        }
        let (name, after) = (self.peek_at(1), self.peek_at(2));
        name.kind == Tok::Ident
            && !name.nl_before
            && matches!(after.kind, Tok::Colon | Tok::LBrace | Tok::LParen)
    }

    /// Closes a block: expects its `}`; returns the span from `start`.
    fn close_block(&mut self, start: Span) -> Span {
        if self.eat(Tok::RBrace).is_none() {
            if self.at_next_block() {
                self.missing_close_brace();
            } else {
                let _ = self.unexpected("'}'");
            }
        }
        self.blocks.pop();
        self.span_from(start)
    }

    /// Reports that the innermost open block is not closed before the next block starts.
    fn missing_close_brace(&mut self) {
        let t = self.peek();
        let (kind, name, line) = match self.blocks.last() {
            Some(b) => (b.kind, b.name.clone(), self.line_of(b.span)),
            None => ("block", String::new(), 0),
        };
        let what = if name.is_empty() {
            kind.to_string()
        } else {
            format!("{kind} '{name}'")
        };
        let msg = format!("missing '}}': the {what} opened at line {line} is never closed");
        let d = Diagnostic::error("syntax-error", msg, Some(t.span))
            .with_label(format!("a new block starts here, inside the {what}"))
            .with_hint(format!("add a '}}' before this line to close the {what}"));
        self.report(d);
    }

    fn open_block(&mut self, kind: &'static str, name: &Ident) {
        self.blocks.push(OpenBlock {
            kind,
            name: name.name.clone(),
            span: name.span,
        });
    }

    /// At file level: skips to the next block keyword (braced groups are skipped whole).
    fn recover_file_level(&mut self, in_namespace: bool) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::RBrace if in_namespace => return,
                Tok::LBrace => self.skip_group(),
                Tok::Ident if BLOCK_KEYWORDS.contains(&self.text(&t)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // File level
    // ---------------------------------------------------------------------------------------

    /// Items up to the end of the file (or the `}` closing a namespace).
    fn items(&mut self, in_namespace: bool) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => break,
                Tok::RBrace if in_namespace => break,
                _ => {}
            }
            match self.item(&t) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Fail) => self.recover_file_level(in_namespace),
            }
        }
        items
    }

    fn item(&mut self, t: &Token) -> PResult<Option<Item>> {
        let word = if t.kind == Tok::Ident {
            self.text(t).to_string()
        } else {
            String::new()
        };
        let item = match word.as_str() {
            "vocabulary" | "Vocabulary" => Item::Vocabulary(self.vocabulary(false)?),
            "LTCvocabulary" => Item::Vocabulary(self.vocabulary(true)?),
            "theory" | "Theory" => Item::Theory(self.in_state(State::Theory, Self::theory)?),
            "structure" | "Structure" => {
                Item::Structure(self.in_state(State::Structure, Self::structure)?)
            }
            "factlist" | "Aspstructure" => Item::Factlist(self.factlist()?),
            "namespace" | "Namespace" => Item::Namespace(self.namespace()?),
            "procedure" | "Procedure" => {
                Item::Procedure(self.in_state(State::Plain, Self::procedure)?)
            }
            "query" | "Query" => Item::Query(self.in_state(State::Theory, Self::query)?),
            "term" | "Term" => Item::Term(self.in_state(State::Theory, Self::term_block)?),
            "fobdd" => {
                self.in_state(State::Theory, Self::fobdd)?;
                return Ok(None);
            }
            "using" => Item::Using(self.using()?),
            _ => {
                let mut d = self.unexpected_diag(
                    t,
                    "a block such as 'vocabulary', 'theory', 'structure' or 'procedure'",
                );
                if t.kind == Tok::Hash && self.source_at(t).starts_with("#include") {
                    d = d.with_hint(
                        "'#include' is the include of IDP 3.1 and before: IDP3 3.2 and later \
                         (and idp) write 'include \"file.idp\"' or 'include <library>', without \
                         '#'",
                    );
                }
                self.report(d);
                return Err(Fail);
            }
        };
        Ok(Some(item))
    }

    fn namespace(&mut self) -> PResult<Namespace> {
        let start = self.bump().span;
        let name = self.in_state(State::Plain, |p| p.ident("the name of the namespace"))?;
        self.expect(Tok::LBrace, "'{'")?;
        self.open_block("namespace", &name);
        let items = self.items(true);
        let span = self.close_block(start);
        Ok(Namespace { name, items, span })
    }

    /// `using vocabulary V` / `using namespace N` (the `using` is the next token), with one
    /// space after `using`, as IDP3's lexer spells these keywords.
    fn using(&mut self) -> PResult<Using> {
        let start = self.bump();
        let (kind, rest) = if let Some(rest) = self.second_keyword(&start, "vocabulary") {
            (UsingKind::Vocabulary, rest)
        } else if let Some(rest) = self.second_keyword(&start, "namespace") {
            (UsingKind::Namespace, rest)
        } else {
            let next = self.peek();
            let d = self
                .unexpected_diag(&next, "'vocabulary' or 'namespace' after 'using'")
                .with_hint("write 'using vocabulary V' or 'using namespace N', with one space after 'using'; to load a library file, write include <name>");
            self.report(d);
            return Err(Fail);
        };
        let target = match rest {
            Some(first) => self.glued_pointer(first)?,
            None => self.pointer("a name")?,
        };
        let span = start.span.to(target.span);
        Ok(Using { kind, target, span })
    }

    /// `NAME ':' VOCABULARY '{'` after a block keyword; returns the name and vocabulary and
    /// registers the block as open.
    fn block_header(&mut self, kind: &'static str) -> PResult<(Ident, Pointer)> {
        let name = self.ident(&format!("the name of the {kind}"))?;
        self.expect(Tok::Colon, &format!("':' and the vocabulary of the {kind}"))?;
        let voc = self.pointer("the name of a vocabulary")?;
        self.expect(Tok::LBrace, "'{'")?;
        self.open_block(kind, &name);
        Ok((name, voc))
    }

    /// A sort annotation `[A,B]`, `[A,B:C]`, `[:C]` (the `[` is the next token).
    fn sort_annotation(&mut self) -> PResult<SortAnnotation> {
        let open = self.bump();
        let mut args = Vec::new();
        let mut result = None;
        if !self.at(Tok::RBracket) && !self.at(Tok::Colon) {
            args.push(self.pointer("a type name")?);
            while self.eat(Tok::Comma).is_some() {
                args.push(self.pointer("a type name")?);
            }
        }
        if self.eat(Tok::Colon).is_some() {
            result = Some(self.pointer("a type name")?);
        }
        if !self.at(Tok::RBracket) && self.peek().kind == Tok::Ident {
            return Err(self.unexpected("',' or ']'"));
        }
        self.close_delim(&open, Tok::RBracket)?;
        Ok(SortAnnotation { args, result })
    }

    /// `P`, `P[T1,T2]`, `F[T1:T2]`, `A::P`.
    fn symbol_ref(&mut self, what: &str) -> PResult<SymbolRef> {
        let name = self.pointer(what)?;
        let sorts = if self.at(Tok::LBracket) {
            Some(self.sort_annotation()?)
        } else {
            None
        };
        let span = self.span_from(name.span);
        Ok(SymbolRef { name, sorts, span })
    }

    /// Expects the closing delimiter of `open`; when the next token cannot continue the
    /// bracketed text (end of sentence, end of line, end of file), the error points at `open`.
    fn close_delim(&mut self, open: &Token, close: Tok) -> PResult<Token> {
        if let Some(t) = self.eat(close) {
            return Ok(t);
        }
        let (o, c) = match close {
            Tok::RParen => ("(", ")"),
            Tok::RBracket => ("[", "]"),
            _ => ("{", "}"),
        };
        let t = self.peek();
        let may_continue = matches!(
            t.kind,
            Tok::Ident | Tok::Int | Tok::Float | Tok::Str | Tok::Char | Tok::LParen
        );
        let slip = self.other_language_hint(&t).is_some();
        if (!may_continue || t.nl_before) && !slip {
            let msg = format!(
                "unexpected {}: the '{o}' here is never closed",
                self.describe(&t)
            );
            let d = Diagnostic::error("syntax-error", msg, Some(open.span))
                .with_label(format!("this '{o}' has no matching '{c}'"))
                .with_hint(format!("add a '{c}'"));
            self.report(d);
            return Err(Fail);
        }
        Err(self.unexpected(&format!("'{c}'")))
    }

    /// An integer literal token as a value; IDP3 integers are 32-bit.
    fn int_value(&mut self, t: &Token, negative: bool) -> i64 {
        let v = self
            .text(t)
            .parse::<i64>()
            .ok()
            .filter(|v| *v <= i32::MAX as i64);
        match v {
            Some(v) => {
                if negative {
                    -v
                } else {
                    v
                }
            }
            None => {
                self.report(
                    Diagnostic::error(
                        "number-out-of-range",
                        "numeric value out of integer bounds",
                        Some(t.span),
                    )
                    .with_hint(format!(
                        "integers must lie between {} and {}",
                        i32::MIN,
                        i32::MAX
                    )),
                );
                if negative {
                    i32::MIN as i64
                } else {
                    i32::MAX as i64
                }
            }
        }
    }

    /// A float literal token as a value. Out of range, as IDP3's lexer finds with `strtod`, are
    /// values too large for a double and non-zero values that round to zero or to a subnormal
    /// double (underflow).
    fn float_value(&mut self, t: &Token, negative: bool) -> f64 {
        let text = self.text(t);
        let v: f64 = text.parse().unwrap_or(0.0);
        let nonzero = text.bytes().any(|b| (b'1'..=b'9').contains(&b));
        if !v.is_finite() || (nonzero && (v == 0.0 || v.is_subnormal())) {
            self.report(Diagnostic::error(
                "number-out-of-range",
                "numeric value out of double bounds",
                Some(t.span),
            ));
        }
        if negative {
            -v
        } else {
            v
        }
    }
}

/// Are `a` and `b` (in this order) `gap` bytes apart in one file?
fn adjacent(a: &Token, b: &Token, gap: u32) -> bool {
    a.src == b.src && a.span.end + gap == b.span.start
}

/// Why a keyword is not a name here.
fn keyword_hint(state: State, word: &str) -> String {
    let block = match state {
        State::Initial => "between blocks",
        State::Vocabulary => "in a vocabulary",
        State::Theory => "in theories, queries and terms",
        State::Structure => "in a structure",
        State::Plain => "",
    };
    match word {
        "using" => {
            "'using' is a keyword: write 'using vocabulary V' or 'using namespace N'".to_string()
        }
        "include" => {
            "'include' is a keyword: write include \"file.idp\" between blocks".to_string()
        }
        _ => format!("'{word}' is a keyword {block} and cannot be used as a name there"),
    }
}

/// The contents of a string token (an unclosed string has no closing quote).
fn unquote(s: &str) -> &str {
    let s = s.strip_prefix('"').unwrap_or(s);
    s.strip_suffix('"').unwrap_or(s)
}

#[cfg(test)]
pub(crate) mod test_util {
    use crate::diagnostics::Diagnostics;
    use crate::source::SourceMap;
    use crate::syntax::ast::File;

    /// Parses `text`; returns the file, the diagnostics and the source map.
    pub fn parse(text: &str) -> (File, Diagnostics, SourceMap) {
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let file = crate::syntax::parse_text("test.idp", text, &mut sources, &mut diags);
        (file, diags, sources)
    }

    /// Parses `text` and asserts there are no errors.
    pub fn parse_ok(text: &str) -> File {
        let (file, diags, _) = parse(text);
        let errors: Vec<_> = diags.items.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
        file
    }

    /// The errors of `text` as (code, message, line, column).
    pub fn errors(text: &str) -> Vec<(String, String, u32, u32)> {
        let (_, diags, sources) = parse(text);
        diags
            .items
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                let span = d.span.unwrap_or_default();
                let (l, c) = sources.line_col(span.file, span.start);
                (d.code.to_string(), d.message.clone(), l, c)
            })
            .collect()
    }
}
