//! Theory blocks (sentences, definitions and their rules, `LFD`/`GFD` fixpoint definitions,
//! `using`), and the other blocks made of formulas and terms: `query`, `term` and `fobdd`.

use super::{Fail, PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;

impl Parser<'_> {
    /// `theory T : V { components }`.
    pub(super) fn theory(&mut self) -> PResult<Theory> {
        let start = self.bump().span;
        let (name, vocabulary) = self.block_header("theory")?;
        let mut components = Vec::new();
        loop {
            let t = self.peek();
            if matches!(t.kind, Tok::RBrace | Tok::Eof) || self.at_next_block() {
                break;
            }
            match self.theory_component() {
                Ok(Some(c)) => components.push(c),
                Ok(None) => {}
                Err(Fail) => self.recover_sentence(),
            }
        }
        let span = self.close_block(start);
        Ok(Theory {
            name,
            vocabulary,
            components,
            span,
        })
    }

    fn theory_component(&mut self) -> PResult<Option<TheoryComponent>> {
        let t = self.peek();
        if t.kind == Tok::LBrace {
            return Ok(self.definition()?.map(TheoryComponent::Definition));
        }
        if t.kind == Tok::Ident {
            let next = self.peek_at(1);
            match self.text(&t) {
                "define" | "Define" if next.kind == Tok::LBrace => {
                    self.bump();
                    return Ok(self.definition()?.map(TheoryComponent::Definition));
                }
                "using" => return Ok(Some(TheoryComponent::Using(self.using()?))),
                "LFD" | "GFD" if next.kind == Tok::LBracket => {
                    return Ok(Some(TheoryComponent::FixpointDefinition(
                        self.fixpoint_definition()?,
                    )));
                }
                _ => {}
            }
        }
        let f = self.formula()?;
        self.end_of_sentence("sentence")?;
        Ok(Some(TheoryComponent::Sentence(f)))
    }

    /// The `.` ending a sentence or rule. When it is missing and the next token starts a new
    /// line, the error points at the end of the sentence and parsing goes on.
    fn end_of_sentence(&mut self, what: &str) -> PResult<()> {
        if self.eat(Tok::Dot).is_some() {
            return Ok(());
        }
        let t = self.peek();
        if t.nl_before || t.kind == Tok::RBrace {
            let span = self.last.span;
            self.report(
                Diagnostic::error(
                    "syntax-error",
                    format!("missing '.' after this {what}"),
                    Some(span),
                )
                .with_label(format!("missing '.' after this {what}"))
                .with_hint(format!("every {what} ends with a '.'")),
            );
            return Ok(());
        }
        let mut d = self.unexpected_diag(&t, &format!("'.' at the end of the {what}"));
        if t.kind == Tok::LArrow {
            d = d.with_hint(
                "'<-' is the rule arrow and only appears in definitions { ... }; for x < -1 write a space between '<' and '-'",
            );
        } else if what == "rule" && t.kind == Tok::ImpliedBy {
            d = d.with_hint(
                "the arrow of a rule is '<-'; '<=' means \"is implied by\" and '=<' is less-or-equal",
            );
        } else if what == "rule"
            && matches!(
                t.kind,
                Tok::Amp | Tok::Pipe | Tok::Implies | Tok::ImpliedBy | Tok::Equiv
            )
        {
            d = d.with_hint(
                "the head of a rule is a single atom P(..) or F(..) = t; the body follows '<-'",
            );
        } else if matches!(t.kind, Tok::Ident | Tok::Int | Tok::LParen) {
            d = d.with_hint("two formulas must be joined by a connective such as '&', '|' or '=>'");
        }
        self.report(d);
        Err(Fail)
    }

    /// `{ rules }` (the `{` is next). Returns `None` for an empty definition.
    fn definition(&mut self) -> PResult<Option<Definition>> {
        let open = self.bump();
        self.blocks.push(super::OpenBlock {
            kind: "definition",
            name: String::new(),
            span: open.span,
        });
        let mut rules = Vec::new();
        loop {
            let t = self.peek();
            if matches!(t.kind, Tok::RBrace | Tok::Eof) || self.at_next_block() {
                break;
            }
            match self.rule() {
                Ok(r) => rules.push(r),
                Err(Fail) => self.recover_sentence(),
            }
        }
        if self.at(Tok::Eof) || self.at_next_block() {
            self.blocks.pop();
            let d = Diagnostic::error(
                "syntax-error",
                "this definition is never closed",
                Some(open.span),
            )
            .with_label("this '{' has no matching '}'")
            .with_hint("a definition { ... } ends with a '}' after its last rule");
            self.report(d);
            return Ok(None);
        }
        self.bump();
        self.blocks.pop();
        let span = self.span_from(open.span);
        Ok(Some(Definition { rules, span }))
    }

    /// `! x y : head <- body.`, `head.`, `F(x) = y <- body.`
    fn rule(&mut self) -> PResult<Rule> {
        let start = self.peek().span;
        let mut vars = Vec::new();
        while self.eat(Tok::Bang).is_some() {
            vars.extend(self.variables()?);
            self.expect(Tok::Colon, "':'")?;
        }
        let head = self.rule_head()?;
        if self.at(Tok::RArrow) {
            let t = self.peek();
            let d = self
                .unexpected_diag(&t, "'<-' or '.' after the head of the rule")
                .with_hint(
                    "the arrow of a rule points to its head: write '<-', as in P(x) <- Q(x).",
                );
            self.report(d);
            return Err(Fail);
        }
        let body = if self.eat(Tok::LArrow).is_some() {
            if self.at(Tok::Dot) {
                None
            } else {
                Some(self.formula()?)
            }
        } else {
            None
        };
        self.end_of_sentence("rule")?;
        let span = self.span_from(start);
        Ok(Rule {
            vars,
            head,
            body,
            span,
        })
    }

    /// `P(t..)` or `F(t..) = t`.
    fn rule_head(&mut self) -> PResult<RuleHead> {
        if self.at(Tok::Tilde) {
            let t = self.peek();
            let d = Diagnostic::error(
                "syntax-error",
                "a rule cannot have a negated head: a definition says when atoms are true",
                Some(t.span),
            )
            .with_hint(
                "every atom that no rule derives is false, so leave the rule out; to state that \
                 an atom is false, write it as a sentence after the definition's '}'",
            );
            self.report(d);
            return Err(Fail);
        }
        let e = self.comparison()?;
        match e {
            super::formula::Expr::T(Term {
                kind: TermKind::App { symbol, args },
                ..
            }) => Ok(RuleHead::Predicate {
                symbol,
                args: args.unwrap_or_default(),
            }),
            super::formula::Expr::F(Formula {
                kind: FormulaKind::Compare { mut terms, ops },
                span,
            }) if ops == [CmpOp::Eq] && matches!(terms[0].kind, TermKind::App { .. }) => {
                let value = terms.pop().expect("two terms");
                let Some(Term {
                    kind: TermKind::App { symbol, args },
                    ..
                }) = terms.pop()
                else {
                    unreachable!("checked above")
                };
                let _ = span;
                Ok(RuleHead::Function {
                    symbol,
                    args: args.unwrap_or_default(),
                    value,
                })
            }
            other => {
                let span = other.span();
                let d = Diagnostic::error(
                    "syntax-error",
                    "expected a rule head: an atom P(..) or a function value F(..) = t",
                    Some(span),
                )
                .with_hint(
                    "a rule has the form  head <- body.  where the head is an atom or F(x) = y",
                );
                self.report(d);
                Err(Fail)
            }
        }
    }

    /// `LFD [ ... ]` / `GFD [ ... ]`: rules, each followed by a second `.` as IDP3's grammar
    /// has it (`p <- q. .`), and nested fixpoint definitions; at least one. Read, not kept.
    fn fixpoint_definition(&mut self) -> PResult<Span> {
        let start = self.bump().span;
        let open = self.bump();
        loop {
            let t = self.peek();
            let nested = matches!(self.text(&t), "LFD" | "GFD")
                && t.kind == Tok::Ident
                && self.peek_at(1).kind == Tok::LBracket;
            if nested {
                self.fixpoint_definition()?;
            } else {
                self.rule()?;
                self.expect(
                    Tok::Dot,
                    "a second '.' after a rule of a fixpoint definition",
                )?;
            }
            if self.at(Tok::RBracket) {
                break;
            }
        }
        self.close_delim(&open, Tok::RBracket)?;
        Ok(self.span_from(start))
    }

    /// `query Q : V { {x y : formula} }`.
    pub(super) fn query(&mut self) -> PResult<Query> {
        let start = self.bump().span;
        let (name, vocabulary) = self.block_header("query")?;
        let inner = self.query_body();
        let (vars, formula) = match inner {
            Ok(x) => x,
            Err(Fail) => {
                self.recover_to_block_end();
                self.close_block(start);
                return Err(Fail);
            }
        };
        let span = self.close_block(start);
        Ok(Query {
            name,
            vocabulary,
            vars,
            formula,
            span,
        })
    }

    fn query_body(&mut self) -> PResult<(Vec<VarDecl>, Formula)> {
        let open = self.expect(Tok::LBrace, "'{' and the query, as in { x y : P(x,y) }")?;
        let mut vars = Vec::new();
        while self.at(Tok::Ident) {
            vars.push(self.variable()?);
        }
        if self.at(Tok::Comma) {
            let t = self.peek();
            let d = self
                .unexpected_diag(&t, "':'")
                .with_hint("the variables of a query are separated by spaces: { x y : P(x,y) }");
            self.report(d);
            return Err(Fail);
        }
        self.expect(Tok::Colon, "':'")?;
        let formula = self.formula()?;
        self.close_delim(&open, Tok::RBrace)?;
        Ok((vars, formula))
    }

    /// `term t : V { term }`.
    pub(super) fn term_block(&mut self) -> PResult<TermBlock> {
        let start = self.bump().span;
        let (name, vocabulary) = self.block_header("term")?;
        let term = match self.term() {
            Ok(t) => t,
            Err(Fail) => {
                self.recover_to_block_end();
                self.close_block(start);
                return Err(Fail);
            }
        };
        let span = self.close_block(start);
        Ok(TermBlock {
            name,
            vocabulary,
            term,
            span,
        })
    }

    /// `fobdd F : V { bdd }` (IDP3's printed decision diagrams): read, not kept.
    pub(super) fn fobdd(&mut self) -> PResult<()> {
        let start = self.bump().span;
        self.block_header("fobdd")?;
        if let Err(Fail) = self.bdd() {
            self.recover_to_block_end();
        }
        self.close_block(start);
        Ok(())
    }

    /// `kernel FALSE BRANCH: bdd TRUE BRANCH: bdd`, `true` or `false`; a kernel is an atom, a
    /// comparison, or `EXISTS: x { bdd }`.
    fn bdd(&mut self) -> PResult<()> {
        if self.at_word("true") || self.at_word("false") {
            self.bump();
            return Ok(());
        }
        self.kernel()?;
        self.branch("FALSE")?;
        self.bdd()?;
        self.branch("TRUE")?;
        self.bdd()
    }

    fn kernel(&mut self) -> PResult<()> {
        let t = self.peek();
        if self.is_word(&t, "EXISTS") && self.is_keyword(&t) {
            self.bump();
            self.bump();
            self.variable()?;
            let open = self.expect(Tok::LBrace, "'{'")?;
            self.bdd()?;
            self.close_delim(&open, Tok::RBrace)?;
            return Ok(());
        }
        match self.comparison()? {
            super::formula::Expr::T(Term {
                kind: TermKind::App { .. },
                ..
            })
            | super::formula::Expr::F(Formula {
                kind: FormulaKind::Compare { .. },
                ..
            }) => Ok(()),
            other => {
                self.error_at(other.span(), "expected an atom or a comparison");
                Err(Fail)
            }
        }
    }

    /// `FALSE BRANCH:` or `TRUE BRANCH:` (`word` is the first word), spelt exactly so.
    fn branch(&mut self, word: &str) -> PResult<()> {
        let t = self.peek();
        if !(self.is_word(&t, word) && self.branch_keyword_follows(&t)) {
            return Err(self.unexpected(&format!("'{word} BRANCH:'")));
        }
        for _ in 0..3 {
            self.bump();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    fn components(text: &str) -> Vec<TheoryComponent> {
        let f = parse_ok(text);
        match &f.items[0] {
            Item::Theory(t) => t.components.clone(),
            other => panic!("not a theory: {other:?}"),
        }
    }

    #[test]
    fn definitions_and_rules() {
        let c = components(
            "theory T : V {\n { !x: P(x) <- Q(x). P(a). F(x) = y <- R(x,y). C = 3. !x : !y : S(x,y) <- . }\n \
             define { p <- ~q. }\n {}\n LFD [ p <- q. . GFD [ q <- p. . ] ]\n using vocabulary W\n}\n",
        );
        assert_eq!(c.len(), 5);
        let TheoryComponent::Definition(d) = &c[0] else {
            panic!()
        };
        assert_eq!(d.rules.len(), 5);
        assert_eq!(d.rules[0].vars.len(), 1);
        assert!(matches!(d.rules[1].head, RuleHead::Predicate { .. }));
        assert!(d.rules[1].body.is_none());
        assert!(matches!(d.rules[2].head, RuleHead::Function { .. }));
        assert!(matches!(&d.rules[3].head, RuleHead::Function { args, .. } if args.is_empty()));
        assert_eq!(d.rules[4].vars.len(), 2);
        assert!(matches!(c[3], TheoryComponent::FixpointDefinition(_)));
    }

    #[test]
    fn query_term_fobdd() {
        let f = parse_ok(
            "query Q : V { {x y[T] : P(x,y)} }\nquery R : V { { : P(a) } }\nterm t : V { sum{x : P(x) : x} }\n\
             fobdd F : V { R(x[t])\nFALSE BRANCH:\n EXISTS: a[t]{ S(a) FALSE BRANCH: false TRUE BRANCH: true }\n FALSE BRANCH: false TRUE BRANCH: true\nTRUE BRANCH: true\n}\nvocabulary W {\n}\n",
        );
        assert_eq!(f.items.len(), 4);
        let Item::Query(q) = &f.items[0] else {
            panic!()
        };
        assert_eq!(q.vars.len(), 2);
        let Item::Query(q) = &f.items[1] else {
            panic!()
        };
        assert!(q.vars.is_empty());
        assert!(matches!(
            &f.items[2],
            Item::Term(TermBlock {
                term: Term {
                    kind: TermKind::Aggregate {
                        kind: AggKind::Sum,
                        ..
                    },
                    ..
                },
                ..
            })
        ));
    }

    #[test]
    fn missing_dot_points_at_previous_line() {
        let e = errors("theory T : V {\n  P(x) & Q(x)\n  R(x).\n}\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].1, "missing '.' after this sentence");
        assert_eq!((e[0].2, e[0].3), (2, 13));
    }

    #[test]
    fn unclosed_parenthesis() {
        let e = errors("theory T : V {\n  ! t: Completed(Next(t) => Done(t).\n  Q.\n}\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].1.contains("never closed"), "{e:?}");
        assert_eq!((e[0].2, e[0].3), (2, 17));
    }

    #[test]
    fn unclosed_theory() {
        let e = errors("vocabulary V {\n}\ntheory T : V {\n  P.\n");
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].1,
            "unexpected end of file: the theory 'T' opened at line 3 is never closed"
        );
    }

    #[test]
    fn missing_brace_before_next_block() {
        let e =
            errors("vocabulary V {\n  P\ntheory T : V {\n  P.\n}\nstructure S : V {\n  P = true\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(
            e[0].1,
            "missing '}': the vocabulary 'V' opened at line 1 is never closed"
        );
        assert_eq!((e[0].2, e[0].3), (3, 1));
        assert!(
            e[1].1
                .starts_with("unexpected end of file: the structure 'S'"),
            "{e:?}"
        );
    }

    #[test]
    fn rule_arrow_in_sentence() {
        let (_, diags, _) = parse("theory T : V {\n  x<-1.\n}\n");
        assert_eq!(diags.items.len(), 1);
        assert!(diags.items[0]
            .hint
            .as_deref()
            .unwrap_or("")
            .contains("rule arrow"));
    }

    #[test]
    fn empty_query_formula() {
        let e = errors("query Q:V {\n\t{x[x] : }\n}\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].2, e[0].3), (2, 10));
    }
}
