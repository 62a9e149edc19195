//! Procedure blocks: `procedure name(a, b, ...) { <Lua> }`, with the body captured verbatim by
//! the lexer's Lua capture.

use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;

impl Parser<'_> {
    /// `procedure NAME ( params ) { body }`.
    pub(super) fn procedure(&mut self) -> PResult<Procedure> {
        let start = self.bump().span;
        let name = self.ident("the name of the procedure")?;
        let open = self.expect(Tok::LParen, "'(' and the parameters of the procedure")?;
        let params = self.parameters()?;
        self.close_delim(&open, Tok::RParen)?;
        let brace = self.expect(Tok::LBrace, "'{' and the body of the procedure")?;
        let body_line = self.line_of(brace.span);
        let (body, end, closed) = self.ts.capture_lua(&brace, &mut self.cx);
        if !closed {
            let text_len = self.ts.source_of(&brace).len();
            let at = Span::new(brace.span.file, text_len..text_len);
            let msg = format!(
                "unexpected end of file: the procedure '{}' opened at line {} is never closed",
                name.name,
                self.line_of(name.span)
            );
            self.report(
                Diagnostic::error("syntax-error", msg, Some(at))
                    .with_hint("add a '}' to close the procedure; braces inside '...' strings of more than one character and inside -- comments are counted"),
            );
        }
        let span = Span {
            file: start.file,
            start: start.start,
            end: end as u32,
        };
        Ok(Procedure {
            name,
            params,
            body,
            body_line,
            span,
        })
    }

    /// `a, b, ...` (possibly empty; `...` is the Lua vararg).
    fn parameters(&mut self) -> PResult<Vec<Ident>> {
        let mut out = Vec::new();
        if self.at(Tok::RParen) {
            return Ok(out);
        }
        loop {
            if let Some(dots) = self.eat(Tok::DotDot) {
                let dot = self.peek();
                if dot.kind != Tok::Dot || dot.span.start != dots.span.end {
                    return Err(self.unexpected("'...' (three dots together)"));
                }
                self.bump();
                out.push(Ident {
                    name: "...".to_string(),
                    span: dots.span.to(dot.span),
                });
            } else {
                out.push(self.ident("a parameter name")?);
            }
            if self.eat(Tok::Comma).is_none() {
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    #[test]
    fn capture_quirks() {
        let f = parse_ok(
            "procedure main(a, ...) {\n  print(V::P) // a comment }\n  local s = \"}{\" /* } */\n  return '}'\n}\nvocabulary V {\n}\n",
        );
        let Item::Procedure(p) = &f.items[0] else {
            panic!()
        };
        assert_eq!(p.params.len(), 2);
        assert_eq!(p.params[1].name, "...");
        assert_eq!(
            p.body,
            "\n  print(V.P) \n  local s = \"}{\" \n  return '}'\n"
        );
        assert_eq!(p.body_line, 1);
        assert!(matches!(f.items[1], Item::Vocabulary(_)));
    }

    #[test]
    fn unclosed_procedure() {
        let e = errors("procedure main() {\n if x then { \n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].1
                .contains("procedure 'main' opened at line 1 is never closed"),
            "{e:?}"
        );
    }
}
