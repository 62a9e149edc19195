//! Structure blocks: interpretations (`P = {..}`, `C = 5`, `P<ct> = {..}`, `F = generate`,
//! `P = procedure Name`), tables of elements, tuples and mappings, and domain elements
//! (also used by vocabulary enumerations and factlists). As in IDP3's grammar a table holds
//! single elements and ranges, or tuples, or mappings, never a mix; ranges stand alone.

use super::{unquote, Fail, PResult, Parser};
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Tok, Token};

impl Parser<'_> {
    /// `structure S : V { interpretations }`.
    pub(super) fn structure(&mut self) -> PResult<Structure> {
        let start = self.bump().span;
        let (name, vocabulary) = self.block_header("structure")?;
        let mut interpretations = Vec::new();
        let mut usings = Vec::new();
        loop {
            let t = self.peek();
            if self.at_next_block() {
                break;
            }
            match t.kind {
                Tok::RBrace | Tok::Eof => break,
                Tok::Ident if self.is_word(&t, "using") => match self.using() {
                    Ok(u) => usings.push(u),
                    Err(Fail) => self.recover_interpretation(),
                },
                _ => match self.interpretation() {
                    Ok(i) => interpretations.push(i),
                    Err(Fail) => self.recover_interpretation(),
                },
            }
        }
        let span = self.close_block(start);
        Ok(Structure {
            name,
            vocabulary,
            interpretations,
            usings,
            span,
        })
    }

    /// Skips at least one token, then up to the next line that starts with a name, or the `}`
    /// closing the structure.
    fn recover_interpretation(&mut self) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::RBrace => return,
                Tok::LBrace => self.skip_group(),
                _ => {
                    self.bump();
                }
            }
            let t = self.peek();
            if t.kind == Tok::Ident && t.nl_before {
                return;
            }
        }
    }

    /// `P = ..`, `P<ct> = ..`, `F[A:B] = ..`.
    fn interpretation(&mut self) -> PResult<Interpretation> {
        let symbol = self.symbol_ref("the name of a symbol")?;
        let truth = self.truth_annotation()?;
        let at = self.peek();
        let value = self.inter_value()?;
        if truth != Truth::TwoValued
            && matches!(value, InterValue::Generate | InterValue::Procedure(_))
        {
            let d = self
                .unexpected_diag(&at, "a table, 'true', 'false' or a value")
                .with_hint("'generate' and 'procedure' give a whole interpretation, not its <ct>, <cf> or <u> part");
            self.report(d);
            return Err(Fail);
        }
        let span = self.span_from(symbol.span);
        Ok(Interpretation {
            symbol,
            truth,
            value,
            span,
        })
    }

    /// Optional `<ct>`, `<cf>`, `<u>`, then the `=` (which the lexer may have glued to `>`).
    fn truth_annotation(&mut self) -> PResult<Truth> {
        if self.eat(Tok::Lt).is_none() {
            self.expect(Tok::Eq, "'='")?;
            return Ok(Truth::TwoValued);
        }
        let id = self.ident("'ct', 'cf' or 'u'")?;
        let truth = match id.name.as_str() {
            "ct" => Truth::Ct,
            "cf" => Truth::Cf,
            "u" => Truth::U,
            other => {
                let msg = format!("unknown truth value '<{other}>', expected <ct>, <cf> or <u>");
                self.error_at(id.span, msg);
                return Err(Fail);
            }
        };
        if self.eat(Tok::Ge).is_none() {
            self.expect(Tok::Gt, "'>'")?;
            self.expect(Tok::Eq, "'='")?;
        }
        Ok(truth)
    }

    /// What follows `=`: a table, `true`/`false`, `generate`, `procedure P` or an element.
    fn inter_value(&mut self) -> PResult<InterValue> {
        let t = self.peek();
        if let Some(open) = self.eat(Tok::LBrace) {
            return Ok(InterValue::Table(self.table_body(&open)?));
        }
        if t.kind == Tok::Ident {
            match self.text(&t) {
                "true" | "false" => {
                    self.bump();
                    return Ok(InterValue::Bool(self.is_word(&t, "true")));
                }
                "generate" => {
                    self.bump();
                    return Ok(InterValue::Generate);
                }
                "procedure" => {
                    self.bump();
                    return Ok(InterValue::Procedure(
                        self.pointer("the name of a procedure")?,
                    ));
                }
                _ => {}
            }
        }
        Ok(InterValue::Element(
            self.element("'{', 'true', 'false' or a value")?,
        ))
    }

    /// The entries of a `{ ... }` table up to and including the closing `}`. A bad entry is
    /// reported and skipped (to the next `;` or the closing `}`).
    pub(super) fn table_body(&mut self, open: &Token) -> PResult<Vec<TableEntry>> {
        let mut entries = Vec::new();
        let mut first_kind = None;
        loop {
            if self.at(Tok::RBrace) {
                break;
            }
            match self.table_entry() {
                Ok((e, kind)) => {
                    let first = *first_kind.get_or_insert(kind);
                    if first == kind {
                        entries.push(e);
                    } else {
                        self.mixed_table(&e, first, kind);
                    }
                }
                Err(Fail) => {
                    self.recover_entry()?;
                    continue;
                }
            }
            if self.eat(Tok::Semi).is_some() {
                continue;
            }
            if self.at(Tok::RBrace) {
                break;
            }
            let t = self.peek();
            if t.kind == Tok::Eof || (t.nl_before && self.peek_at(1).kind == Tok::Eq) {
                return self.close_delim(open, Tok::RBrace).map(|_| entries);
            }
            let _ = self.unexpected("';' or '}'");
            self.recover_entry()?;
        }
        self.close_delim(open, Tok::RBrace)?;
        Ok(entries)
    }

    /// Skips to just after the next `;`, or to the closing `}` of a table.
    fn recover_entry(&mut self) -> PResult<()> {
        loop {
            match self.peek().kind {
                Tok::Eof => return Err(Fail),
                Tok::RBrace => return Ok(()),
                Tok::Semi => {
                    self.bump();
                    return Ok(());
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Reports an entry whose kind differs from the table's first entry.
    fn mixed_table(&mut self, e: &TableEntry, first: EntryKind, kind: EntryKind) {
        let span = match e {
            TableEntry::Element(el) => el.span,
            TableEntry::Tuple(_, span) | TableEntry::Mapping { span, .. } => *span,
        };
        let msg = format!(
            "{} in a table of {}: a table holds single elements, tuples or mappings 'a -> b', not a mix",
            kind.one(),
            first.many()
        );
        self.report(
            crate::diagnostics::Diagnostic::error("syntax-error", msg, Some(span)).with_hint(
                "a unary predicate or a type takes single elements; a predicate of arity 2 or more, tuples; a function, mappings",
            ),
        );
    }

    /// One entry: `e`, `1..5`, `(e)`, `a,b`, `(a,b)`, `()`, `a,b -> c`, `-> c`, `() -> c`
    /// (but not `(a,b) -> c`).
    fn table_entry(&mut self) -> PResult<(TableEntry, EntryKind)> {
        let start = self.peek().span;
        let (args, parenthesised) = if self.at(Tok::RArrow) {
            (Vec::new(), true)
        } else if let Some(open) = self.eat(Tok::LParen) {
            let mut args = Vec::new();
            if !self.at(Tok::RParen) {
                args = self.element_list()?;
            }
            self.close_delim(&open, Tok::RParen)?;
            (args, true)
        } else {
            let first = self.single_element()?;
            if !self.at(Tok::Comma) && !self.at(Tok::RArrow) {
                return Ok((TableEntry::Element(first), EntryKind::Single));
            }
            self.no_range(&first)?;
            let mut args = vec![first];
            while self.eat(Tok::Comma).is_some() {
                args.push(self.element("a value")?);
            }
            (args, false)
        };
        if let Some(arrow) = self.eat(Tok::RArrow) {
            if parenthesised && !args.is_empty() {
                let msg = "the arguments of a mapping are not put in parentheses: write a, b -> c";
                self.error_at(arrow.span, msg);
                return Err(Fail);
            }
            let value = self.element("a value")?;
            let span = self.span_from(start);
            return Ok((
                TableEntry::Mapping { args, value, span },
                EntryKind::Mapping,
            ));
        }
        let span = self.span_from(start);
        if args.len() == 1 {
            let el = args.into_iter().next().expect("one element");
            return Ok((TableEntry::Element(el), EntryKind::Single));
        }
        Ok((TableEntry::Tuple(args, span), EntryKind::Tuple))
    }

    /// A range in a tuple or mapping: reported.
    fn no_range(&mut self, e: &Element) -> PResult<()> {
        if matches!(
            e.kind,
            ElementKind::IntRange(..) | ElementKind::CharRange(..)
        ) {
            self.error_at(
                e.span,
                "a range stands alone in a table: it cannot be part of a tuple or mapping",
            );
            return Err(Fail);
        }
        Ok(())
    }

    /// A single element of a unary table or type: an element, `(element)`, or a range.
    pub(super) fn unary_entry(&mut self) -> PResult<Element> {
        let Some(open) = self.eat(Tok::LParen) else {
            return self.single_element();
        };
        let mut e = self.element("a value")?;
        self.close_delim(&open, Tok::RParen)?;
        e.span = self.span_from(open.span);
        Ok(e)
    }

    /// An element or a range: `1..5`, `-3..-1`, `a..z`, `'a'..'z'`.
    pub(super) fn single_element(&mut self) -> PResult<Element> {
        let t = self.peek();
        let next = self.peek_at(1);
        let letter = t.kind == Tok::Ident && self.text(&t).len() == 1;
        match t.kind {
            Tok::Int | Tok::Minus => {
                let lo = self.bare_element("a value")?;
                let ElementKind::Int(v) = lo.kind else {
                    return Ok(lo);
                };
                self.int_or_range(lo.span, v)
            }
            Tok::Char => {
                self.bump();
                let c = self.char_value(&t);
                self.char_or_range(t.span, c, Tok::Char)
            }
            _ if letter && next.kind == Tok::DotDot => {
                self.bump();
                let c = self.text(&t).chars().next().unwrap_or('a');
                self.char_or_range(t.span, c, Tok::Ident)
            }
            _ => self.element("a value"),
        }
    }

    /// `e1, e2, ...` (at least one). Collected in a reused buffer so that each tuple gets one
    /// allocation of the exact size (tables can hold millions of tuples).
    fn element_list(&mut self) -> PResult<Vec<Element>> {
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        let result = self.element_list_into(&mut buf);
        let mut out = Vec::with_capacity(buf.len());
        out.append(&mut buf);
        self.scratch = buf;
        result.map(|()| out)
    }

    fn element_list_into(&mut self, buf: &mut Vec<Element>) -> PResult<()> {
        buf.push(self.element("a value")?);
        while self.eat(Tok::Comma).is_some() {
            buf.push(self.element("a value")?);
        }
        Ok(())
    }

    /// A domain element: `5`, `-3`, `1.5`, `"s"`, `'c'`, `red`, `f(1,a)`, `A()`; no range.
    pub(super) fn element(&mut self, what: &str) -> PResult<Element> {
        let e = self.bare_element(what)?;
        if self.at(Tok::DotDot) {
            let dots = self.peek();
            let d = self.unexpected_diag(&dots, "',', ';' or '}'").with_hint(
                "a range stands alone in a table: it cannot be part of a tuple, mapping or compound element",
            );
            self.report(d);
            return Err(Fail);
        }
        Ok(e)
    }

    fn bare_element(&mut self, what: &str) -> PResult<Element> {
        let t = self.peek();
        match t.kind {
            Tok::Int => {
                self.bump();
                let v = self.int_value(&t, false);
                Ok(Element {
                    kind: ElementKind::Int(v),
                    span: t.span,
                })
            }
            Tok::Minus => self.negative_element(what),
            Tok::Float => {
                self.bump();
                Ok(Element {
                    kind: ElementKind::Float(self.float_value(&t, false)),
                    span: t.span,
                })
            }
            Tok::Str => {
                self.bump();
                let s = self.text(&t);
                let value = unquote(s).to_string();
                Ok(Element {
                    kind: ElementKind::Str {
                        value,
                        quoted: true,
                    },
                    span: t.span,
                })
            }
            Tok::Char => {
                self.bump();
                Ok(Element {
                    kind: ElementKind::Char(self.char_value(&t)),
                    span: t.span,
                })
            }
            Tok::Ident => self.name_element(),
            _ => Err(self.unexpected(what)),
        }
    }

    fn char_value(&self, t: &Token) -> char {
        self.text(t).chars().nth(1).unwrap_or(' ')
    }

    fn negative_element(&mut self, what: &str) -> PResult<Element> {
        let minus = self.bump();
        let t = self.peek();
        match t.kind {
            Tok::Int => {
                self.bump();
                let v = self.int_value(&t, true);
                Ok(Element {
                    kind: ElementKind::Int(v),
                    span: minus.span.to(t.span),
                })
            }
            Tok::Float => {
                self.bump();
                let v = self.float_value(&t, true);
                Ok(Element {
                    kind: ElementKind::Float(v),
                    span: minus.span.to(t.span),
                })
            }
            _ => Err(self.unexpected(&format!("a number after '-' ({what})"))),
        }
    }

    fn int_or_range(&mut self, span: Span, v: i64) -> PResult<Element> {
        if self.eat(Tok::DotDot).is_none() {
            return Ok(Element {
                kind: ElementKind::Int(v),
                span,
            });
        }
        let neg = self.eat(Tok::Minus).is_some();
        let hi = self.expect(Tok::Int, "an integer (the end of the range)")?;
        let w = self.int_value(&hi, neg);
        Ok(Element {
            kind: ElementKind::IntRange(v, w),
            span: span.to(hi.span),
        })
    }

    /// After a character `'c'` or a letter `c` (of token kind `kind`): a range to another of
    /// the same kind, or the character itself.
    fn char_or_range(&mut self, span: Span, c: char, kind: Tok) -> PResult<Element> {
        if self.eat(Tok::DotDot).is_none() {
            return Ok(Element {
                kind: ElementKind::Char(c),
                span,
            });
        }
        let t = self.peek();
        let hi = match t.kind {
            Tok::Char if kind == Tok::Char => self.char_value(&t),
            Tok::Ident if kind == Tok::Ident && self.text(&t).len() == 1 => {
                self.text(&t).chars().next().unwrap_or(c)
            }
            _ if kind == Tok::Char => {
                return Err(self.unexpected("a character 'c' (the end of the range)"))
            }
            _ => return Err(self.unexpected("a letter (the end of the range)")),
        };
        self.bump();
        Ok(Element {
            kind: ElementKind::CharRange(c, hi),
            span: span.to(t.span),
        })
    }

    /// `red`, `f(1,a)`, `A()`, `N::f(1)`, `f[A:B](1)` (the sort annotation only tells
    /// overloaded constructors apart; it is not kept).
    fn name_element(&mut self) -> PResult<Element> {
        let name = self.pointer("a value")?;
        if self.at(Tok::LBracket) {
            self.sort_annotation()?;
            if !self.at(Tok::LParen) {
                return Err(self.unexpected("'(' and the arguments of the constructor"));
            }
        }
        if !self.at(Tok::LParen) {
            if !name.is_simple() {
                return Err(self.unexpected("'(' after a qualified constructor name"));
            }
            let value = name.name().to_string();
            return Ok(Element {
                kind: ElementKind::Str {
                    value,
                    quoted: false,
                },
                span: name.span,
            });
        }
        let open = self.bump();
        let args = self.nested(|p| {
            if p.at(Tok::RParen) {
                return Ok(Vec::new());
            }
            p.compound_args()
        })?;
        self.close_delim(&open, Tok::RParen)?;
        let span = self.span_from(name.span);
        Ok(Element {
            kind: ElementKind::Compound {
                constructor: name,
                args,
            },
            span,
        })
    }

    fn compound_args(&mut self) -> PResult<Vec<Element>> {
        let mut out = vec![self.element("a value")?];
        while self.eat(Tok::Comma).is_some() {
            out.push(self.element("a value")?);
        }
        Ok(out)
    }
}

/// The three kinds of table entries of IDP3's grammar (elements, ptuples, ftuples).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EntryKind {
    Single,
    Tuple,
    Mapping,
}

impl EntryKind {
    fn one(self) -> &'static str {
        match self {
            EntryKind::Single => "a single element",
            EntryKind::Tuple => "a tuple",
            EntryKind::Mapping => "a mapping",
        }
    }

    fn many(self) -> &'static str {
        match self {
            EntryKind::Single => "single elements",
            EntryKind::Tuple => "tuples",
            EntryKind::Mapping => "mappings",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    fn inters(text: &str) -> Vec<Interpretation> {
        let f = parse_ok(text);
        match &f.items[0] {
            Item::Structure(s) => s.interpretations.clone(),
            other => panic!("not a structure: {other:?}"),
        }
    }

    #[test]
    fn every_form() {
        let i = inters(
            "structure S : V {\n T = {1..5; 7; -3}\n U = {a..z; 'a'..'c'; red; \"Blue\"; 1.5}\n \
             P = {1,2; (3,4); 5,6;}\n Q = {}\n R = true\n Z = false\n F = {1->2; 2,3->4; ->5; ()->6}\n \
             C = 5\n D = red\n E = f(1,\"a\", g())\n G = generate\n H = procedure Lib::h\n \
             P<ct> = {1,2}\n P<cf>={3,4}\n P<u> = {}\n K[A,B:C] = {(1)}\n M = {()}\n using vocabulary W\n}\n",
        );
        assert_eq!(i.len(), 17);
        let InterValue::Table(t) = &i[0].value else {
            panic!()
        };
        assert!(matches!(
            t[0],
            TableEntry::Element(Element {
                kind: ElementKind::IntRange(1, 5),
                ..
            })
        ));
        assert!(matches!(
            t[2],
            TableEntry::Element(Element {
                kind: ElementKind::Int(-3),
                ..
            })
        ));
        let InterValue::Table(t) = &i[1].value else {
            panic!()
        };
        assert!(matches!(
            t[0],
            TableEntry::Element(Element {
                kind: ElementKind::CharRange('a', 'z'),
                ..
            })
        ));
        assert!(matches!(
            t[1],
            TableEntry::Element(Element {
                kind: ElementKind::CharRange('a', 'c'),
                ..
            })
        ));
        let InterValue::Table(t) = &i[2].value else {
            panic!()
        };
        assert_eq!(t.len(), 3);
        assert!(t
            .iter()
            .all(|e| matches!(e, TableEntry::Tuple(v, _) if v.len() == 2)));
        assert!(matches!(&i[4].value, InterValue::Bool(true)));
        let InterValue::Table(t) = &i[6].value else {
            panic!()
        };
        assert!(matches!(&t[1], TableEntry::Mapping { args, .. } if args.len() == 2));
        assert!(matches!(&t[2], TableEntry::Mapping { args, .. } if args.is_empty()));
        assert!(matches!(&t[3], TableEntry::Mapping { args, .. } if args.is_empty()));
        assert!(matches!(
            &i[8].value,
            InterValue::Element(Element {
                kind: ElementKind::Str { quoted: false, .. },
                ..
            })
        ));
        assert!(
            matches!(&i[9].value, InterValue::Element(Element { kind: ElementKind::Compound { args, .. }, .. }) if args.len() == 3)
        );
        assert!(matches!(&i[10].value, InterValue::Generate));
        assert!(matches!(&i[11].value, InterValue::Procedure(p) if p.to_path() == "Lib::h"));
        assert_eq!(i[12].truth, Truth::Ct);
        assert_eq!(i[13].truth, Truth::Cf);
        assert_eq!(i[14].truth, Truth::U);
        assert!(i[15]
            .symbol
            .sorts
            .as_ref()
            .is_some_and(|s| s.result.is_some()));
        assert!(
            matches!(&i[15].value, InterValue::Table(t) if matches!(t[0], TableEntry::Element(_)))
        );
        let InterValue::Table(t) = &i[16].value else {
            panic!()
        };
        assert!(matches!(&t[0], TableEntry::Tuple(v, _) if v.is_empty()));
    }

    #[test]
    fn integer_bounds() {
        let e = errors("structure S:V{\n X = { 100000000000; }\n}\n");
        assert_eq!(e[0].0, "number-out-of-range");
        assert_eq!(e[0].1, "numeric value out of integer bounds");
        assert_eq!((e[0].2, e[0].3), (2, 8));
        assert!(errors("structure S:V{\n X = { -2147483647; 2147483647 }\n}\n").is_empty());
        let e = errors("structure S:V{\n X = { 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0 }\n}\n");
        assert_eq!(e[0].1, "numeric value out of double bounds");
    }

    #[test]
    fn missing_separator() {
        let e = errors("structure S:V{\n P = {1,2 3,4}\n Q = {1}\n}\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].2, e[0].3), (2, 11));
    }
}
