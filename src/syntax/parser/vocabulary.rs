//! Vocabulary blocks: newline-terminated declarations of types, predicates and functions,
//! `extern` imports, `using`, and LTC vocabulary headers. As in IDP3's lexer, the vocabulary
//! keyword switches the lexer to newline tokens up to the block's closing brace (except inside a
//! `constructed from { ... }` list), so a declaration may not span lines, and each ends with one.

use super::{PResult, Parser, State};
use crate::diagnostics::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{LexMode, Tok, Token};

impl Parser<'_> {
    /// `vocabulary V { ... }` / `LTCvocabulary V [(Time, Start, Next)] { ... }`.
    pub(super) fn vocabulary(&mut self, ltc: bool) -> PResult<Vocabulary> {
        self.bump();
        let start = self.last.span;
        self.lex_mode(LexMode::Newlines);
        let r = self.in_state(State::Vocabulary, |p| p.vocabulary_rest(start, ltc));
        self.lex_mode(LexMode::Plain);
        r
    }

    fn vocabulary_rest(&mut self, start: Span, ltc: bool) -> PResult<Vocabulary> {
        let name = self.ident("the name of the vocabulary")?;
        let ltc = if ltc { Some(self.ltc_names()?) } else { None };
        if self.at(Tok::Newline) {
            return Err(self.end_of_line_error("'{' on the line of the vocabulary's name"));
        }
        self.expect(Tok::LBrace, "'{'")?;
        self.open_block("vocabulary", &name);
        let mut decls = Vec::new();
        loop {
            while self.eat(Tok::Newline).is_some() {}
            if matches!(self.peek().kind, Tok::RBrace | Tok::Eof) || self.at_next_block() {
                break;
            }
            let before = self.last.span;
            match self.declaration() {
                Ok(d) => {
                    let is_type = matches!(d, Decl::Type(_));
                    decls.push(d);
                    self.end_of_declaration(is_type);
                }
                Err(_) => {
                    if self.last.span == before
                        && !matches!(self.peek().kind, Tok::RBrace | Tok::Eof | Tok::Newline)
                    {
                        self.bump();
                    }
                    self.recover_line();
                }
            }
        }
        let span = self.close_block(start);
        Ok(Vocabulary {
            name,
            ltc,
            decls,
            span,
        })
    }

    /// The optional `(Time, Start, Next)` of an LTC vocabulary (with sort annotations if need
    /// be, which only tell overloaded symbols apart).
    fn ltc_names(&mut self) -> PResult<Option<[Pointer; 3]>> {
        let Some(open) = self.eat(Tok::LParen) else {
            return Ok(None);
        };
        let time = self.symbol_ref("the name of the time type")?.name;
        self.expect(Tok::Comma, "','")?;
        let start = self.symbol_ref("the name of the start constant")?.name;
        self.expect(Tok::Comma, "','")?;
        let next = self.symbol_ref("the name of the next-time function")?.name;
        self.close_delim(&open, Tok::RParen)?;
        Ok(Some([time, start, next]))
    }

    /// Is the next token the end of the line (or of the input)?
    fn at_eol(&mut self) -> bool {
        matches!(self.peek().kind, Tok::Newline | Tok::Eof)
    }

    /// Like `expect`, but the token must be on the current line.
    fn expect_on_line(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.at_eol() {
            return Err(self.end_of_line_error(what));
        }
        self.expect(kind, what)
    }

    fn end_of_line_error(&mut self, what: &str) -> super::Fail {
        let at = self.last.span;
        let span = Span {
            file: at.file,
            start: at.end,
            end: at.end,
        };
        self.report(Diagnostic::error(
            "syntax-error",
            format!("unexpected end of line, expected {what}"),
            Some(span),
        ));
        super::Fail
    }

    fn pointer_on_line(&mut self, what: &str) -> PResult<Pointer> {
        if self.at_eol() {
            return Err(self.end_of_line_error(what));
        }
        self.pointer(what)
    }

    /// After a declaration (a type declaration if `is_type`), the line must end.
    fn end_of_declaration(&mut self, is_type: bool) {
        let t = self.peek();
        if matches!(t.kind, Tok::Newline | Tok::Eof) {
            return;
        }
        let mut d = self.unexpected_diag(&t, "the end of the line");
        if t.kind == Tok::RBrace {
            d = d.with_hint(
                "every declaration must end with a newline: put the closing '}' on its own line",
            );
            self.report(d);
            return;
        }
        let after = self.peek_at(1);
        let last_is_name = self.last.kind == Tok::Ident;
        if t.kind == Tok::Ident && last_is_name && matches!(after.kind, Tok::LParen | Tok::Colon) {
            d = d.with_hint("a symbol name cannot contain a space");
        } else if let Some(hint) = is_type.then(|| self.type_order_hint(&t)).flatten() {
            d = d.with_hint(hint);
        } else {
            d = d.with_hint("each declaration must be on its own line");
        }
        self.report(d);
        self.recover_line();
    }

    /// Why a word cannot come where it stands after a type declaration.
    fn type_order_hint(&self, t: &Token) -> Option<&'static str> {
        match (t.kind, self.text(t)) {
            (Tok::Eq, _) => Some("the elements '= { ... }' of a type come right after its name, before 'isa' and 'contains'"),
            (_, "isa") | (_, "contains") => Some("a type declaration has at most one 'isa' list and one 'contains' list (after its elements), and none after 'constructed from'"),
            (_, "constructed") => Some("'constructed from { ... }' comes right after the type's name, with nothing else"),
            _ => None,
        }
    }

    /// Skips the rest of the current line (stopping at a `}` that is not opened on it).
    fn recover_line(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.peek().kind {
                Tok::Newline | Tok::Eof => return,
                Tok::RBrace if depth == 0 => return,
                Tok::RBrace => depth -= 1,
                Tok::LBrace => depth += 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// After a declaration broken across lines inside parentheses: skips to the closing one
    /// (so that its second line is not read as a declaration of its own).
    fn skip_past_paren(&mut self) {
        if !self.at(Tok::Newline) {
            return;
        }
        loop {
            match self.peek().kind {
                Tok::Eof | Tok::RBrace => return,
                Tok::RParen => {
                    self.bump();
                    return;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn declaration(&mut self) -> PResult<Decl> {
        let t = self.peek();
        if t.kind != Tok::Ident {
            return Err(self.unexpected("a declaration"));
        }
        match self.text(&t) {
            "type" => Ok(Decl::Type(self.type_decl()?)),
            "extern" => self.extern_decl(),
            "using" => Ok(Decl::Using(self.using()?)),
            "partial" => {
                let start = self.bump().span;
                self.symbol_decl(Some(start))
            }
            _ => self.symbol_decl(None),
        }
    }

    /// `type T [= {..}] [isa A,B] [contains C]` (`isa` and `contains` in either order, each at
    /// most once) or `type T constructed from {..}`.
    fn type_decl(&mut self) -> PResult<TypeDecl> {
        let start = self.bump().span;
        let name = self.pointer_on_line("the name of the type")?;
        let name = self.simple_name(name)?;
        let (mut isa, mut contains, mut body) = (Vec::new(), Vec::new(), TypeBody::Open);
        if self.two_word_keyword("constructed", "from") {
            body = TypeBody::Constructed(self.constructors()?);
        } else {
            if !self.at_eol() && self.at(Tok::Eq) {
                self.bump();
                body = TypeBody::Enumerated(self.enumeration()?);
            }
            for _ in 0..2 {
                if self.at_eol() {
                    break;
                }
                if self.at_word("isa") && isa.is_empty() {
                    self.bump();
                    isa = self.sort_list()?;
                } else if self.at_word("contains") && contains.is_empty() {
                    self.bump();
                    contains = self.sort_list()?;
                }
            }
        }
        let span = self.span_from(start);
        Ok(TypeDecl {
            name,
            isa,
            contains,
            body,
            span,
        })
    }

    /// Are the next two tokens `first second`, one space apart, as IDP3's two-word keywords are
    /// spelt? Consumes them if so.
    fn two_word_keyword(&mut self, first: &str, second: &str) -> bool {
        let t = self.peek();
        if !self.is_word(&t, first) || self.at_eol() {
            return false;
        }
        let next = self.peek_at(1);
        let spaced = |p: &Self, a: &Token, b: &Token| {
            a.src == b.src
                && a.span.end + 1 == b.span.start
                && p.ts.source_of(a).as_bytes().get(a.span.end as usize) == Some(&b' ')
        };
        if next.kind == Tok::Ident && self.text(&next) == second && spaced(self, &t, &next) {
            self.bump();
            self.bump();
            return true;
        }
        false
    }

    /// A declared name must not be qualified.
    fn simple_name(&mut self, p: Pointer) -> PResult<Ident> {
        if p.is_simple() {
            return Ok(p.parts.into_iter().next().expect("a pointer has a part"));
        }
        self.error_at(
            p.span,
            format!("a declared name cannot be qualified: '{}'", p.to_path()),
        );
        Err(super::Fail)
    }

    /// `A, B, C` on the current line.
    fn sort_list(&mut self) -> PResult<Vec<Pointer>> {
        let mut out = vec![self.pointer_on_line("a type name")?];
        while !self.at_eol() && self.eat(Tok::Comma).is_some() {
            out.push(self.pointer_on_line("a type name")?);
        }
        Ok(out)
    }

    /// `{ A, B(T1,T2) }` after `constructed from`: may span lines (IDP3's `constructed` lexer
    /// state); the list may start with an empty entry (`{ , A }`) but not end with one.
    fn constructors(&mut self) -> PResult<Vec<Constructor>> {
        self.lex_mode(LexMode::Plain);
        let r = self.in_state(State::Plain, Self::constructor_list);
        if r.is_err() {
            // Skip the rest of the list, so that its '}' does not close the vocabulary.
            while !matches!(self.peek().kind, Tok::RBrace | Tok::Eof) {
                self.bump();
            }
            self.eat(Tok::RBrace);
        }
        self.lex_mode(LexMode::Newlines);
        r
    }

    fn constructor_list(&mut self) -> PResult<Vec<Constructor>> {
        // `constructed from ( A, B )`: reported, then read as if written with braces.
        let close = if self.at(Tok::LParen) {
            let t = self.peek();
            self.report(
                Diagnostic::error(
                    "syntax-error",
                    "unexpected '(', expected '{': the constructors are listed between braces",
                    Some(t.span),
                )
                .with_hint("write  constructed from { A, B, C }"),
            );
            Tok::RParen
        } else {
            Tok::RBrace
        };
        let open = match close {
            Tok::RParen => self.bump(),
            _ => self.expect(Tok::LBrace, "'{'")?,
        };
        let mut out = Vec::new();
        if !self.at(close) {
            self.eat(Tok::Comma);
            loop {
                out.push(self.constructor()?);
                if !matches!(self.peek().kind, Tok::Comma | Tok::Eof) && !self.at(close) {
                    // A malformed entry (`p_?role`, a GDL variable left in a name): reported,
                    // then left out, so that the type and the rest of its constructors are
                    // declared and what uses them is not reported as undeclared.
                    let t = self.peek();
                    let expected = if close == Tok::RBrace {
                        "',' or '}'"
                    } else {
                        "',' or ')'"
                    };
                    let d = self.unexpected_diag(&t, expected);
                    self.report(d);
                    out.pop();
                    self.skip_constructor_entry(close);
                }
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
            if !self.at(close) {
                return Err(self.unexpected(if close == Tok::RBrace {
                    "',' or '}'"
                } else {
                    "',' or ')'"
                }));
            }
        }
        self.close_delim(&open, close)?;
        Ok(out)
    }

    /// Skips the rest of a malformed constructor entry: up to the next ',' or `close` outside
    /// parentheses.
    fn skip_constructor_entry(&mut self, close: Tok) {
        let mut depth = 0usize;
        loop {
            let kind = self.peek().kind;
            match kind {
                Tok::Eof | Tok::RBrace => return,
                Tok::Comma if depth == 0 => return,
                _ if kind == close && depth == 0 => return,
                Tok::LParen => depth += 1,
                Tok::RParen => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    fn constructor(&mut self) -> PResult<Constructor> {
        let name = self.ident("a constructor name")?;
        let mut args = Vec::new();
        if let Some(paren) = self.eat(Tok::LParen) {
            args = self.sort_tuple(Tok::RParen)?;
            self.close_delim(&paren, Tok::RParen)?;
        }
        let span = self.span_from(name.span);
        Ok(Constructor { name, args, span })
    }

    /// `{ 1..5 }` / `{ a; b; c }`: single elements or ranges, at least one, on one line.
    fn enumeration(&mut self) -> PResult<Vec<Element>> {
        let open = self.expect_on_line(Tok::LBrace, "'{'")?;
        if self.at(Tok::RBrace) {
            let t = self.peek();
            let d = self.unexpected_diag(&t, "an element").with_hint(
                "the braces hold at least one element; for a type that structures interpret, leave out '= {}'",
            );
            self.report(d);
            self.bump();
            return Err(super::Fail);
        }
        let r = self.enumeration_entries(&open);
        if r.is_err() {
            // Skip the rest of the braces on this line.
            while !matches!(self.peek().kind, Tok::RBrace | Tok::Newline | Tok::Eof) {
                self.bump();
            }
            self.eat(Tok::RBrace);
        }
        r
    }

    fn enumeration_entries(&mut self, open: &Token) -> PResult<Vec<Element>> {
        let open = *open;
        let mut out = Vec::new();
        loop {
            if self.at(Tok::Newline) {
                self.error_at(
                    open.span,
                    "the elements of a type declared in a vocabulary must be written on one line",
                );
                return Err(super::Fail);
            }
            if self.at(Tok::RBrace) && !out.is_empty() {
                break;
            }
            out.push(self.unary_entry()?);
            if self.eat(Tok::Semi).is_none() {
                break;
            }
        }
        if self.at(Tok::Newline) {
            self.error_at(
                open.span,
                "the elements of a type declared in a vocabulary must be written on one line",
            );
            return Err(super::Fail);
        }
        self.close_delim(&open, Tok::RBrace)?;
        Ok(out)
    }

    /// Sorts separated by commas up to (not including) `close`; may be empty.
    fn sort_tuple(&mut self, close: Tok) -> PResult<Vec<Pointer>> {
        let mut out = Vec::new();
        if self.at(close) {
            return Ok(out);
        }
        loop {
            out.push(self.pointer("a type name")?);
            if self.eat(Tok::Comma).is_none() {
                return Ok(out);
            }
        }
    }

    /// `P`, `P(A,B)`, `F(A):B`, `C:A` (with `partial` already consumed when `partial` is set).
    fn symbol_decl(&mut self, partial: Option<Span>) -> PResult<Decl> {
        let name = self.ident("a declaration")?;
        if AGGREGATE_WORDS.contains(&name.name.as_str()) {
            self.report(aggregate_name(&name));
        }
        let start = partial.unwrap_or(name.span);
        let mut args = Vec::new();
        let mut has_parens = false;
        if !self.at_eol() {
            if let Some(paren) = self.eat(Tok::LParen) {
                has_parens = true;
                args = self
                    .sort_tuple(Tok::RParen)
                    .inspect_err(|_| self.skip_past_paren())?;
                self.close_delim(&paren, Tok::RParen)?;
            }
        }
        let isa = (has_parens || partial.is_some()) && !self.at_eol() && self.at_word("isa") && {
            let t = self.peek_at(1);
            t.kind == Tok::Ident && !t.nl_before
        };
        if isa {
            // `F(A) isa B`: reported, then read as `F(A) : B`.
            let t = self.peek();
            let ty = self.peek_at(1);
            let decl = self
                .ts
                .source_of(&t)
                .get(start.start as usize..self.last.span.end as usize)
                .filter(|_| start.file == t.span.file)
                .unwrap_or(&name.name)
                .to_string();
            let shown = format!("{decl} : {}", self.text(&ty));
            self.report(
                Diagnostic::error(
                    "syntax-error",
                    "unexpected 'isa', expected ':' and the type of the function's value",
                    Some(t.span),
                )
                .with_hint(format!("'isa' declares subtypes; the value type of a function follows ':', as in  {shown}")),
            );
        }
        if !self.at_eol() && (isa || self.at(Tok::Colon)) {
            self.bump();
            let result = self.pointer_on_line("the type of the function's value")?;
            let span = self.span_from(start);
            return Ok(Decl::Function(FuncDecl {
                name,
                partial: partial.is_some(),
                args,
                result,
                span,
            }));
        }
        if partial.is_some() {
            let t = self.peek();
            let d = if matches!(t.kind, Tok::Newline | Tok::Eof) {
                Diagnostic::error(
                    "syntax-error",
                    "only functions can be partial: expected ':' and the type of the value",
                    Some(name.span),
                )
            } else {
                self.unexpected_diag(&t, "':' and the type of the function's value")
            };
            self.report(d.with_hint("a partial function is declared as  partial F(A):B"));
            return Err(super::Fail);
        }
        let span = self.span_from(start);
        Ok(Decl::Predicate(PredDecl { name, args, span }))
    }

    /// `extern vocabulary W`, `extern type T`, `extern V::P[A,B]`, `extern V::P/2`,
    /// `extern V::F[A:B]`, `extern V::F/2:1`.
    fn extern_decl(&mut self) -> PResult<Decl> {
        let keyword = self.bump();
        let start = keyword.span;
        if let Some(rest) = self.second_keyword(&keyword, "vocabulary") {
            return Ok(Decl::ExternVocabulary(match rest {
                Some(first) => self.glued_pointer(first)?,
                None => self.pointer_on_line("the name of a vocabulary")?,
            }));
        }
        if self.at_word("type") && !self.at_eol() {
            self.bump();
            return Ok(Decl::ExternSymbol(ExternSymbol::Type(
                self.pointer_on_line("a type name")?,
            )));
        }
        let name = self.pointer_on_line("the name of a symbol")?;
        if !self.at_eol() && self.at(Tok::LBracket) {
            let sorts = self.sort_annotation()?;
            let span = self.span_from(start);
            return Ok(Decl::ExternSymbol(ExternSymbol::Sorted {
                name,
                sorts,
                span,
            }));
        }
        self.expect_on_line(Tok::Slash, "'/' and the arity, or the types in '[ ]'")?;
        let arity_tok = self.expect_on_line(Tok::Int, "the arity")?;
        let arity = self.int_value(&arity_tok, false) as u32;
        let mut function = false;
        if !self.at_eol() && self.eat(Tok::Colon).is_some() {
            self.expect_on_line(Tok::Int, "'1'")?;
            function = true;
        }
        let span = self.span_from(start);
        Ok(Decl::ExternSymbol(ExternSymbol::Arity {
            name,
            arity,
            function,
            span,
        }))
    }
}

/// The aggregate keywords of a theory: IDP3's lexer (`src/parser/lex.ll`, state `<theory>`)
/// reads them as aggregates, so a symbol with one of these names cannot be used in a theory.
const AGGREGATE_WORDS: [&str; 5] = ["sum", "prod", "min", "max", "card"];

/// The error for a symbol declared with the name of an aggregate (IDP3 read `max(x, y)` in a
/// theory as the aggregate without a word; its developers asked for this error instead).
fn aggregate_name(name: &Ident) -> Diagnostic {
    let n = &name.name;
    Diagnostic::error(
        "aggregate-name",
        format!(
            "'{n}' is the name of an aggregate: in a theory, {n}(...) and {n}{{...}} are read as the aggregate {n}, never as this symbol"
        ),
        Some(name.span),
    )
    .with_hint(format!("give the symbol another name, for example {n}Of or my{}", capitalised(n)))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    fn decls(text: &str) -> Vec<Decl> {
        let f = parse_ok(text);
        match &f.items[0] {
            Item::Vocabulary(v) => v.decls.clone(),
            other => panic!("not a vocabulary: {other:?}"),
        }
    }

    #[test]
    fn all_declaration_forms() {
        let d = decls(
            "vocabulary V {\n type T\n type U isa T, int\n type W contains T\n type N = {1..5} isa int\n \
             type L constructed from {\n , nil,\n cons(T, L)\n }\n P(T,U)\n Q\n F(T):U\n C:T\n partial G(T):T\n \
             extern vocabulary W\n extern type X::T\n extern V::P[A,B]\n extern V::P/2\n extern V::F/2:1\n \
             extern V::F[A:B]\n using vocabulary Z\n}\n",
        );
        assert_eq!(d.len(), 17);
        match &d[4] {
            Decl::Type(t) => match &t.body {
                TypeBody::Constructed(c) => assert_eq!(c.len(), 2),
                b => panic!("{b:?}"),
            },
            x => panic!("{x:?}"),
        }
        assert!(
            matches!(&d[3], Decl::Type(TypeDecl { body: TypeBody::Enumerated(e), isa, .. }) if e.len() == 1 && isa.len() == 1)
        );
        assert!(matches!(
            &d[9],
            Decl::Function(FuncDecl { partial: true, .. })
        ));
        assert!(matches!(
            &d[14],
            Decl::ExternSymbol(ExternSymbol::Arity {
                arity: 2,
                function: true,
                ..
            })
        ));
        assert!(matches!(
            &d[15],
            Decl::ExternSymbol(ExternSymbol::Sorted {
                sorts: SortAnnotation {
                    result: Some(_),
                    ..
                },
                ..
            })
        ));
    }

    #[test]
    fn ltc_header() {
        let f = parse_ok("LTCvocabulary V (T, S, N) {\n type T\n}\nLTCvocabulary W {\n}\n");
        assert!(matches!(
            &f.items[0],
            Item::Vocabulary(Vocabulary {
                ltc: Some(Some(_)),
                ..
            })
        ));
        assert!(matches!(
            &f.items[1],
            Item::Vocabulary(Vocabulary {
                ltc: Some(None),
                ..
            })
        ));
    }

    #[test]
    fn two_declarations_on_one_line() {
        let (_, diags, sources) = parse("vocabulary V{\n\tP Q\n}\n");
        let d = &diags.items[0];
        assert_eq!(
            d.hint.as_deref(),
            Some("each declaration must be on its own line")
        );
        assert_eq!(sources.line_col(0, d.span.unwrap().start), (2, 4));
    }

    #[test]
    fn space_in_symbol_name() {
        let (_, diags, _) = parse("vocabulary V{\n type Time\n Player Orientation (Time)\n Q\n}\n");
        assert_eq!(diags.items.len(), 1);
        assert_eq!(
            diags.items[0].hint.as_deref(),
            Some("a symbol name cannot contain a space")
        );
    }

    #[test]
    fn missing_type_after_isa() {
        let e = errors("vocabulary V{\n\ttype Struct isa\n}\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].1.contains("end of line"), "{e:?}");
    }
}
