//! Factlist blocks (`factlist S : V { P(a,b). Q(1..3). R. }`, header also `Aspstructure`):
//! ASP-style facts with ranges, `%` line comments (IDP3's `aspstructure` lexer state, from the
//! keyword to the closing brace).

use super::{Fail, PResult, Parser, State};
use crate::diagnostics::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{LexMode, Tok};

impl Parser<'_> {
    /// `factlist S : V { facts }`; `%` starts a comment inside.
    pub(super) fn factlist(&mut self) -> PResult<Factlist> {
        let start = self.bump().span;
        self.lex_mode(LexMode::Factlist);
        let result = self.in_state(State::Plain, |p| p.factlist_rest(start));
        self.lex_mode(LexMode::Plain);
        result
    }

    fn factlist_rest(&mut self, start: Span) -> PResult<Factlist> {
        let (name, vocabulary) = self.block_header("factlist")?;
        let mut facts = Vec::new();
        loop {
            let t = self.peek();
            if self.at_next_block() {
                break;
            }
            match t.kind {
                Tok::RBrace | Tok::Eof => break,
                Tok::Ident if self.is_word(&t, "using") => {
                    if self.using().is_err() {
                        self.recover_sentence();
                    }
                }
                _ => match self.fact() {
                    Ok(Some(f)) => facts.push(f),
                    Ok(None) => {}
                    Err(Fail) => self.recover_sentence(),
                },
            }
        }
        let span = self.close_block(start);
        Ok(Factlist {
            name,
            vocabulary,
            facts,
            span,
        })
    }

    /// `P(a, 1..3).`, `P().`, `P.`; `P(a)?` (IDP3's query, with no '.') is read as a fact with
    /// a warning. Negated and function facts, which IDP3 does not accept either, are reported.
    fn fact(&mut self) -> PResult<Option<Fact>> {
        let start = self.peek().span;
        let negated = self.eat(Tok::Minus).is_some();
        let symbol = self.symbol_ref("a fact such as P(a,b).")?.name;
        let mut args = Vec::new();
        if let Some(open) = self.eat(Tok::LParen) {
            if !self.at(Tok::RParen) {
                args = self.element_list_in_fact()?;
            }
            self.close_delim(&open, Tok::RParen)?;
        }
        let function = self.eat(Tok::Eq).is_some();
        if function {
            self.element("a value")?;
        }
        if let Some(q) = self.eat(Tok::Question) {
            self.report(Diagnostic::warning(
                "unknown-fact",
                "'?' after a fact is not supported: the fact is read as true",
                Some(q.span),
            ));
        } else {
            self.end_of_fact()?;
        }
        let span = self.span_from(start);
        if negated || function {
            let what = if negated {
                "negated facts"
            } else {
                "function values"
            };
            self.report(
                Diagnostic::error("syntax-error", format!("{what} are not allowed in a factlist"), Some(span))
                    .with_hint("a factlist lists the true atoms P(a,b). of predicates only; use a structure for functions"),
            );
            return Ok(None);
        }
        Ok(Some(Fact { symbol, args, span }))
    }

    fn element_list_in_fact(&mut self) -> PResult<Vec<Element>> {
        let mut out = vec![self.single_element()?];
        while self.eat(Tok::Comma).is_some() {
            out.push(self.single_element()?);
        }
        Ok(out)
    }

    /// The `.` ending a fact; a missing one before a new line is reported at the fact.
    fn end_of_fact(&mut self) -> PResult<()> {
        if self.eat(Tok::Dot).is_some() {
            return Ok(());
        }
        let t = self.peek();
        if t.nl_before || t.kind == Tok::RBrace {
            let span = self.last.span;
            self.report(
                Diagnostic::error("syntax-error", "missing '.' after this fact", Some(span))
                    .with_hint("every fact ends with a '.'"),
            );
            return Ok(());
        }
        Err(self.unexpected("'.'"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    #[test]
    fn facts_with_ranges_and_comments() {
        let f = parse_ok("factlist S : V {\n P(a,b). % a comment with 'quotes\" and {braces\n Q(1..3). R. T().\n}\nvocabulary W {\n}\n");
        let Item::Factlist(fl) = &f.items[0] else {
            panic!()
        };
        assert_eq!(fl.facts.len(), 4);
        assert!(matches!(
            fl.facts[1].args[0].kind,
            ElementKind::IntRange(1, 3)
        ));
        assert!(fl.facts[2].args.is_empty());
        assert!(matches!(f.items[1], Item::Vocabulary(_)));
    }

    #[test]
    fn missing_dot() {
        let e = errors("factlist S : V {\n P(a)\n Q(b).\n}\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].1, "missing '.' after this fact");
        assert_eq!((e[0].2, e[0].3), (2, 5));
    }
}
