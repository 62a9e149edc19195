//! Formulas and terms of theories, queries and term blocks, with IDP3's precedences:
//! quantifier bodies extend as far right as possible; `<=>` < `=>` < `<=` < `|` < `&` < `~`
//! (all right-associative); comparison chains; `+ -` < `* /` < `%` < `^` (right) < unary minus.
//! Binary operators are parsed with an operator stack, so only brackets and prefix operators
//! nest the Rust stack (guarded by `Parser::nested`).
//!
//! As in IDP3's grammar, float, string and character literals are whole terms only (no
//! arithmetic on them, no minus, no parentheses), and a parenthesised term is an arithmetic
//! one: `(x)` is a formula (the atom `x`), `(x + 1)` and `(3)` are terms.

use super::{unquote, Fail, PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Tok, Token};

/// A parsed expression before it is known to be a formula or a term (`P(x)` is either).
#[derive(Debug)]
pub(super) enum Expr {
    F(Formula),
    T(Term),
}

impl Expr {
    pub(super) fn span(&self) -> Span {
        match self {
            Expr::F(f) => f.span,
            Expr::T(t) => t.span,
        }
    }
}

fn conn_of(kind: Tok) -> Option<BinConn> {
    Some(match kind {
        Tok::Equiv => BinConn::Equiv,
        Tok::Implies => BinConn::Implies,
        Tok::ImpliedBy => BinConn::ImpliedBy,
        Tok::Pipe => BinConn::Or,
        Tok::Amp => BinConn::And,
        _ => return None,
    })
}

fn conn_prec(op: BinConn) -> u8 {
    match op {
        BinConn::Equiv => 1,
        BinConn::Implies => 2,
        BinConn::ImpliedBy => 3,
        BinConn::Or => 4,
        BinConn::And => 5,
    }
}

fn cmp_of(kind: Tok) -> Option<CmpOp> {
    Some(match kind {
        Tok::Eq => CmpOp::Eq,
        Tok::Neq => CmpOp::Ne,
        Tok::Lt => CmpOp::Lt,
        Tok::Gt => CmpOp::Gt,
        Tok::Le => CmpOp::Le,
        Tok::Ge => CmpOp::Ge,
        _ => return None,
    })
}

fn arith_of(kind: Tok) -> Option<ArithOp> {
    Some(match kind {
        Tok::Plus => ArithOp::Add,
        Tok::Minus => ArithOp::Sub,
        Tok::Star => ArithOp::Mul,
        Tok::Slash => ArithOp::Div,
        Tok::Percent => ArithOp::Mod,
        Tok::Caret => ArithOp::Pow,
        _ => return None,
    })
}

fn arith_prec(op: ArithOp) -> u8 {
    match op {
        ArithOp::Add | ArithOp::Sub => 1,
        ArithOp::Mul | ArithOp::Div => 2,
        ArithOp::Mod => 3,
        ArithOp::Pow => 4,
    }
}

impl Parser<'_> {
    /// A formula (quantifiers, connectives, comparisons, atoms).
    pub(super) fn formula(&mut self) -> PResult<Formula> {
        let e = self.expr()?;
        self.formula_of(e, None)
    }

    /// A term (arithmetic, applications, literals, aggregates).
    pub(super) fn term(&mut self) -> PResult<Term> {
        let e = self.nested(|p| p.arith())?;
        self.term_of(e)
    }

    /// The widest expression: a formula or a term.
    fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.connectives())
    }

    pub(super) fn formula_of(&mut self, e: Expr, hint: Option<&str>) -> PResult<Formula> {
        match e {
            Expr::F(f) => Ok(f),
            Expr::T(Term {
                kind: TermKind::App { symbol, args },
                span,
            }) => Ok(Formula {
                kind: FormulaKind::Atom {
                    symbol,
                    args: args.unwrap_or_default(),
                },
                span,
            }),
            Expr::T(t) => {
                let mut d = Diagnostic::error(
                    "syntax-error",
                    "expected a formula, but this is a term",
                    Some(t.span),
                )
                .with_label("a term, not a formula");
                d =
                    d.with_hint(hint.unwrap_or(
                        "compare the term with something, for example  t = 3  or  t > 0",
                    ));
                self.report(d);
                Err(Fail)
            }
        }
    }

    pub(super) fn term_of(&mut self, e: Expr) -> PResult<Term> {
        match e {
            Expr::T(t) => Ok(t),
            Expr::F(f) => {
                let mut d = Diagnostic::error(
                    "syntax-error",
                    "expected a term, but this is a formula",
                    Some(f.span),
                )
                .with_label("a formula, not a term");
                let src = self.cx.sources.text(f.span.file);
                let paren =
                    src.and_then(|s| s.as_bytes().get(f.span.start as usize)) == Some(&b'(');
                if paren && matches!(f.kind, FormulaKind::Atom { .. }) {
                    d = d.with_hint("IDP3 reads a name in parentheses, (x), as a formula; write it without them");
                }
                self.report(d);
                Err(Fail)
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Connectives
    // ---------------------------------------------------------------------------------------

    fn connectives(&mut self) -> PResult<Expr> {
        let mut lhs = self.negation()?;
        let mut stack: Vec<(Expr, BinConn, Token)> = Vec::new();
        while let Some(op) = conn_of(self.peek().kind) {
            let tok = self.bump();
            while stack
                .last()
                .is_some_and(|top| conn_prec(top.1) > conn_prec(op))
            {
                let (l, o, t) = stack.pop().expect("checked");
                lhs = Expr::F(self.combine_conn(l, o, &t, lhs)?);
            }
            stack.push((lhs, op, tok));
            lhs = self.negation()?;
        }
        while let Some((l, o, t)) = stack.pop() {
            lhs = Expr::F(self.combine_conn(l, o, &t, lhs)?);
        }
        Ok(lhs)
    }

    fn combine_conn(&mut self, l: Expr, op: BinConn, tok: &Token, r: Expr) -> PResult<Formula> {
        let hint = match op {
            BinConn::ImpliedBy => Some(
                "'<=' in a theory means \"is implied by\"; if you meant less-or-equal, write '=<'",
            ),
            BinConn::Implies => {
                Some("'=>' means \"implies\"; if you meant greater-or-equal, write '>='")
            }
            _ => None,
        };
        let _ = tok;
        let left = self.formula_of(l, hint)?;
        let right = self.formula_of(r, hint)?;
        let span = left.span.to(right.span);
        Ok(Formula {
            kind: FormulaKind::Binary {
                op,
                left: Box::new(left),
                right: Box::new(right),
            },
            span,
        })
    }

    /// `~ f`, quantifiers, or a comparison level expression.
    fn negation(&mut self) -> PResult<Expr> {
        match self.peek().kind {
            Tok::Tilde => {
                let t = self.bump();
                let e = self.nested(|p| p.negation())?;
                let f = self.formula_of(e, None)?;
                let span = t.span.to(f.span);
                Ok(Expr::F(Formula {
                    kind: FormulaKind::Not(Box::new(f)),
                    span,
                }))
            }
            Tok::Bang | Tok::Question => self.quantified(),
            _ => self.comparison(),
        }
    }

    /// `! x y : f`, `? x : f`, `?2 x : f`, `?<2 x : f`, `! (x,y) in P : f`, `? (x,y) sat g : f`.
    fn quantified(&mut self) -> PResult<Expr> {
        let qt = self.bump();
        let q = if qt.kind == Tok::Bang {
            Quantifier::Forall
        } else {
            Quantifier::Exists
        };
        let count = if q == Quantifier::Exists {
            self.count_bound()?
        } else {
            None
        };
        if count.is_none() && self.at(Tok::LParen) {
            return self.quantified_tuple(q, qt.span);
        }
        let vars = self.variables()?;
        if !self.at(Tok::Colon) {
            let t = self.peek();
            let mut d = self.unexpected_diag(&t, "':' after the quantified variables");
            if t.kind != Tok::Eof {
                d = d.with_hint("a quantified formula is written  ! x[T] y[T] : formula");
            }
            self.report(d);
            return Err(Fail);
        }
        self.bump();
        let body = self.expr()?;
        let body = Box::new(self.formula_of(body, None)?);
        let span = qt.span.to(body.span);
        let kind = match count {
            Some((op, bound)) => FormulaKind::Count {
                op,
                bound,
                vars,
                body,
            },
            None => FormulaKind::Quant { q, vars, body },
        };
        Ok(Expr::F(Formula { kind, span }))
    }

    /// The bound of a counting quantifier: `?2`, `?=2`, `?<2`, `?>2`, `?=<2`, `?>=2`.
    fn count_bound(&mut self) -> PResult<Option<(CmpOp, i64)>> {
        let t = self.peek();
        if t.kind == Tok::Int {
            self.bump();
            return Ok(Some((CmpOp::Eq, self.int_value(&t, false))));
        }
        let Some(op) = cmp_of(t.kind).filter(|op| *op != CmpOp::Ne) else {
            if t.kind == Tok::ImpliedBy && self.peek_at(1).kind == Tok::Int {
                let d = Diagnostic::error(
                    "syntax-error",
                    "unexpected '<=', expected '=<' in a counting quantifier",
                    Some(t.span),
                )
                .with_hint("'<=' means \"is implied by\"; for at most n, write ?=<n");
                self.report(d);
                return Err(Fail);
            }
            return Ok(None);
        };
        self.bump();
        let n = self.expect(Tok::Int, "a number (the bound of the counting quantifier)")?;
        Ok(Some((op, self.int_value(&n, false))))
    }

    /// `(x, y) in P : f` or `(x, y) sat g : f` after the quantifier.
    fn quantified_tuple(&mut self, q: Quantifier, start: Span) -> PResult<Expr> {
        let open = self.bump();
        let vars = self.variables()?;
        self.close_delim(&open, Tok::RParen)?;
        let t = self.peek();
        let kind = if self.is_word(&t, "in") {
            self.bump();
            let symbol = self.symbol_ref("the name of a predicate")?;
            self.expect(Tok::Colon, "':'")?;
            let body = self.expr()?;
            let body = Box::new(self.formula_of(body, None)?);
            FormulaKind::QuantIn {
                q,
                vars,
                symbol,
                body,
            }
        } else if self.is_word(&t, "sat") {
            self.bump();
            let cond = self.expr()?;
            let cond = Box::new(self.formula_of(cond, None)?);
            self.expect(Tok::Colon, "':'")?;
            let body = self.expr()?;
            let body = Box::new(self.formula_of(body, None)?);
            FormulaKind::QuantSat {
                q,
                vars,
                cond,
                body,
            }
        } else {
            return Err(self.unexpected("'in' or 'sat'"));
        };
        let span = self.span_from(start);
        Ok(Expr::F(Formula { kind, span }))
    }

    /// `x y[T], z` — separated by spaces or commas, at least one.
    pub(super) fn variables(&mut self) -> PResult<Vec<VarDecl>> {
        let mut out = vec![self.variable()?];
        loop {
            if self.eat(Tok::Comma).is_none() && !self.at(Tok::Ident) {
                return Ok(out);
            }
            out.push(self.variable()?);
        }
    }

    /// `x` or `x[T]`.
    pub(super) fn variable(&mut self) -> PResult<VarDecl> {
        let name = self.ident("a variable name")?;
        let mut sort = None;
        if let Some(open) = self.eat(Tok::LBracket) {
            sort = Some(self.pointer("a type name")?);
            self.close_delim(&open, Tok::RBracket)?;
        }
        let span = self.span_from(name.span);
        Ok(VarDecl { name, sort, span })
    }

    // ---------------------------------------------------------------------------------------
    // Comparisons and arithmetic
    // ---------------------------------------------------------------------------------------

    /// A term, or a chain of comparisons `t1 op t2 op t3 ...`.
    pub(super) fn comparison(&mut self) -> PResult<Expr> {
        let first = self.arith()?;
        if cmp_of(self.peek().kind).is_none() {
            return Ok(first);
        }
        let mut terms = vec![self.term_of(first)?];
        let mut ops = Vec::new();
        while let Some(op) = cmp_of(self.peek().kind) {
            let op_token = self.bump();
            ops.push(op);
            if matches!(self.peek().kind, Tok::Tilde | Tok::Bang | Tok::Question) {
                return Err(self.formula_compared(&op_token, &terms[0]));
            }
            let t = self.arith()?;
            terms.push(self.term_of(t)?);
        }
        let span = terms[0].span.to(terms[terms.len() - 1].span);
        Ok(Expr::F(Formula {
            kind: FormulaKind::Compare { terms, ops },
            span,
        }))
    }

    /// `Red(x) = ~Blue(x)`: a comparison compares values, and what follows the operator is a
    /// formula (a negation or a quantifier); `<=>` says that two formulas agree.
    fn formula_compared(&mut self, op: &Token, left: &Term) -> Fail {
        let t = self.peek();
        let op_text = self.text(op).to_string();
        let source = |p: &Self, span: Span| {
            p.cx.sources
                .text(span.file)
                .and_then(|s| s.get(span.start as usize..span.end as usize))
                .map(str::to_string)
        };
        let left_text = source(self, left.span).unwrap_or_else(|| "...".into());
        // The formula after the operator, for the hint (quietly: its own mistakes come later).
        let errors = self.cx.diags.items.len();
        let right_text = match self.nested(|p| p.negation()) {
            Ok(Expr::F(f)) => source(self, f.span),
            _ => None,
        }
        .unwrap_or_else(|| "...".into());
        self.cx.diags.items.truncate(errors);
        let msg = format!(
            "unexpected {} after '{op_text}': '{op_text}' compares two values, and a formula \
             follows it",
            self.describe(&t)
        );
        let hint = if op_text == "~=" {
            format!(
                "to say that exactly one of two formulas holds, write ~({left_text} <=> \
                 {right_text})"
            )
        } else {
            format!(
                "to say that two formulas are both true or both false, write '<=>': \
                 {left_text} <=> {right_text}"
            )
        };
        let d = Diagnostic::error("syntax-error", msg, Some(t.span)).with_hint(hint);
        self.report(d);
        Fail
    }

    fn arith(&mut self) -> PResult<Expr> {
        let mut lhs = self.unary_minus()?;
        let mut stack: Vec<(Expr, ArithOp)> = Vec::new();
        while let Some(op) = arith_of(self.peek().kind) {
            self.bump();
            while stack.last().is_some_and(|top| {
                arith_prec(top.1) > arith_prec(op)
                    || (arith_prec(top.1) == arith_prec(op) && op != ArithOp::Pow)
            }) {
                let (l, o) = stack.pop().expect("checked");
                lhs = Expr::T(self.combine_arith(l, o, lhs)?);
            }
            stack.push((lhs, op));
            lhs = self.unary_minus()?;
        }
        while let Some((l, o)) = stack.pop() {
            lhs = Expr::T(self.combine_arith(l, o, lhs)?);
        }
        Ok(lhs)
    }

    fn combine_arith(&mut self, l: Expr, op: ArithOp, r: Expr) -> PResult<Term> {
        let left = self.term_of(l)?;
        let right = self.term_of(r)?;
        self.arithmetic_operand(&left)?;
        self.arithmetic_operand(&right)?;
        let span = left.span.to(right.span);
        Ok(Term {
            kind: TermKind::Arith {
                op,
                left: Box::new(left),
                right: Box::new(right),
            },
            span,
        })
    }

    /// A float, string or character literal is a whole term only (IDP3's `domterm`): it cannot
    /// be an operand of arithmetic, negated or parenthesised.
    fn arithmetic_operand(&mut self, t: &Term) -> PResult<()> {
        let what = match t.kind {
            TermKind::Float(_) => "a float",
            TermKind::Str(_) => "a string",
            TermKind::Char(_) => "a character",
            _ => return Ok(()),
        };
        let d = Diagnostic::error(
            "syntax-error",
            format!("{what} literal is a whole term in a theory: it cannot take part in arithmetic, a minus or parentheses"),
            Some(t.span),
        )
        .with_hint("compare it as it is (x = 1.5); for a computed or negative value, give it a name in the structure (c = -1.5)");
        self.report(d);
        Err(Fail)
    }

    /// `-t` (tightest), `-3` (a negative literal), and the prefix forms `-(a,b)`, `+(a,b)`, ...
    fn unary_minus(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let next = self.peek_at(1);
        if let (Some(op), Tok::LParen) = (arith_of(t.kind), next.kind) {
            if t.kind != Tok::Minus {
                self.bump();
                return self.prefix_form(op, t.span);
            }
        }
        if t.kind != Tok::Minus {
            return self.primary();
        }
        self.bump();
        match next.kind {
            Tok::Int => {
                self.bump();
                let v = self.int_value(&next, true);
                Ok(Expr::T(Term {
                    kind: TermKind::Int(v),
                    span: t.span.to(next.span),
                }))
            }
            Tok::LParen => self.prefix_form(ArithOp::Sub, t.span),
            _ => {
                let e = self.nested(|p| p.unary_minus())?;
                let operand = self.term_of(e)?;
                self.arithmetic_operand(&operand)?;
                let span = t.span.to(operand.span);
                Ok(Expr::T(Term {
                    kind: TermKind::Neg(Box::new(operand)),
                    span,
                }))
            }
        }
    }

    /// `op(a, b)`; for `-`, `-(a)` is a negation (of an arithmetic term that is not a bare
    /// name: `-(x)` is no term in IDP3).
    fn prefix_form(&mut self, op: ArithOp, start: Span) -> PResult<Expr> {
        let open = self.bump();
        let mut args = vec![self.term()?];
        while self.eat(Tok::Comma).is_some() {
            args.push(self.term()?);
        }
        self.close_delim(&open, Tok::RParen)?;
        for a in &args {
            self.arithmetic_operand(a)?;
        }
        let span = self.span_from(start);
        match (args.len(), op) {
            (1, ArithOp::Sub) if matches!(args[0].kind, TermKind::App { .. }) => {
                self.error_at(
                    span,
                    "-(x) is not a term: IDP3 reads (x) as a formula; write -x",
                );
                Err(Fail)
            }
            (1, ArithOp::Sub) => {
                let a = args.pop().expect("one");
                Ok(Expr::T(Term {
                    kind: TermKind::Neg(Box::new(a)),
                    span,
                }))
            }
            (2, _) => {
                let right = Box::new(args.pop().expect("two"));
                let left = Box::new(args.pop().expect("two"));
                Ok(Expr::T(Term {
                    kind: TermKind::Arith { op, left, right },
                    span,
                }))
            }
            _ => {
                self.error_at(
                    span,
                    "an arithmetic operator in prefix form takes two arguments, as in -(a, b)",
                );
                Err(Fail)
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Primaries
    // ---------------------------------------------------------------------------------------

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let lit = |kind| Ok(Expr::T(Term { kind, span: t.span }));
        match t.kind {
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.close_delim(&t, Tok::RParen)?;
                self.parenthesised(e, t.span)
            }
            Tok::Int => {
                self.bump();
                let v = self.int_value(&t, false);
                lit(TermKind::Int(v))
            }
            Tok::Float => {
                self.bump();
                let v = self.float_value(&t, false);
                lit(TermKind::Float(v))
            }
            Tok::Str => {
                self.bump();
                let s = self.text(&t);
                lit(TermKind::Str(unquote(s).to_string()))
            }
            Tok::Char => {
                self.bump();
                lit(TermKind::Char(self.text(&t).chars().nth(1).unwrap_or(' ')))
            }
            Tok::Hash => self.aggregate(AggKind::Card),
            Tok::Ident => self.word(&t),
            _ => Err(self.unexpected("a formula or a term")),
        }
    }

    /// What `( e )` is: a formula stays one; a bare name or application becomes a formula (the
    /// atom), as in IDP3's grammar; a float, string or character literal is refused; any
    /// other term stays a term. The result spans the parentheses.
    fn parenthesised(&mut self, e: Expr, open: Span) -> PResult<Expr> {
        let span = self.span_from(open);
        match e {
            Expr::T(Term {
                kind: TermKind::App { symbol, args },
                ..
            }) => Ok(Expr::F(Formula {
                kind: FormulaKind::Atom {
                    symbol,
                    args: args.unwrap_or_default(),
                },
                span,
            })),
            Expr::T(t) => {
                self.arithmetic_operand(&t)?;
                Ok(Expr::T(Term { span, ..t }))
            }
            // With its parentheses, so that a sentence ending in one is its whole text.
            Expr::F(f) => Ok(Expr::F(Formula { span, ..f })),
        }
    }

    /// Keywords usable in formulas and terms, or an application `F(t..)` / name.
    fn word(&mut self, t: &Token) -> PResult<Expr> {
        let kind = match self.text(t) {
            "true" => FormulaKind::True,
            "false" => FormulaKind::False,
            "card" => return self.aggregate(AggKind::Card),
            "sum" => return self.aggregate(AggKind::Sum),
            "prod" => return self.aggregate(AggKind::Prod),
            "min" => return self.aggregate(AggKind::Min),
            "max" => return self.aggregate(AggKind::Max),
            "define" | "Define" | "LFD" | "GFD" => {
                let d = self
                    .unexpected_diag(t, "a formula or a term")
                    .with_hint(format!(
                        "'{}' is a keyword in theories and cannot be used as a name",
                        self.text(t)
                    ));
                self.report(d);
                return Err(Fail);
            }
            _ => return self.application(),
        };
        self.bump();
        Ok(Expr::F(Formula { kind, span: t.span }))
    }

    /// `x`, `c`, `F(t1, t2)`, `P[T]`, `MAX[:T]`, `N::f(x)`.
    fn application(&mut self) -> PResult<Expr> {
        let symbol = self.symbol_ref("a name")?;
        let args = match self.eat(Tok::LParen) {
            Some(open) => Some(self.arguments(&open)?),
            None => None,
        };
        let span = self.span_from(symbol.span);
        Ok(Expr::T(Term {
            kind: TermKind::App { symbol, args },
            span,
        }))
    }

    /// `t1, t2 )` after an opening parenthesis.
    fn arguments(&mut self, open: &Token) -> PResult<Vec<Term>> {
        let mut args = Vec::new();
        if self.eat(Tok::RParen).is_some() {
            return Ok(args);
        }
        loop {
            if matches!(self.peek().kind, Tok::RParen | Tok::Comma) {
                return Err(self.unexpected("a term"));
            }
            args.push(self.term()?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.close_delim(open, Tok::RParen)?;
        Ok(args)
    }

    /// `#{..}`, `card{..}`, `sum{x : f : t}`, `#(f1, f2)`, `sum(t1, t2)`.
    fn aggregate(&mut self, kind: AggKind) -> PResult<Expr> {
        let kw = self.bump();
        let next = self.peek();
        let sets = match next.kind {
            Tok::LBrace => vec![self.set_expr(kind)?],
            Tok::LParen => self.listed_sets(kind)?,
            _ => {
                let what = format!(
                    "'{{' after '{}', as in {}",
                    self.text(&kw),
                    agg_example(kind)
                );
                return Err(self.unexpected(&what));
            }
        };
        let span = self.span_from(kw.span);
        Ok(Expr::T(Term {
            kind: TermKind::Aggregate { kind, sets },
            span,
        }))
    }

    /// `{ vars : formula }` (cardinality) or `{ vars : formula : term }`.
    fn set_expr(&mut self, kind: AggKind) -> PResult<SetExpr> {
        let open = self.bump();
        let r = self.set_expr_rest(kind, open);
        if r.is_err() {
            // Skip the rest of the set, so that its '}' does not close the enclosing block.
            let mut depth = 0usize;
            loop {
                match self.peek().kind {
                    Tok::Eof => break,
                    Tok::Dot if depth == 0 => break,
                    Tok::LBrace => depth += 1,
                    Tok::RBrace if depth == 0 => {
                        self.bump();
                        break;
                    }
                    Tok::RBrace => depth -= 1,
                    _ => {}
                }
                self.bump();
            }
        }
        r
    }

    fn set_expr_rest(&mut self, kind: AggKind, open: Token) -> PResult<SetExpr> {
        let mut vars = Vec::new();
        if !self.at(Tok::Colon) {
            vars = self.variables()?;
        }
        self.expect(Tok::Colon, "':' after the variables of the set")?;
        let cond = self.formula()?;
        let term = if kind == AggKind::Card {
            None
        } else {
            self.expect(
                Tok::Colon,
                &format!("':' and the term to aggregate, as in {}", agg_example(kind)),
            )?;
            Some(self.term()?)
        };
        self.close_delim(&open, Tok::RBrace)?;
        let span = self.span_from(open.span);
        Ok(SetExpr {
            vars,
            cond,
            term,
            span,
        })
    }

    /// `(f1, f2)` for `#`, `(t1, t2)` for the others: one set per element.
    fn listed_sets(&mut self, kind: AggKind) -> PResult<Vec<SetExpr>> {
        let open = self.bump();
        let mut sets = Vec::new();
        loop {
            sets.push(self.listed_set(kind)?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.close_delim(&open, Tok::RParen)?;
        Ok(sets)
    }

    fn listed_set(&mut self, kind: AggKind) -> PResult<SetExpr> {
        if kind == AggKind::Card {
            let cond = self.formula()?;
            let span = cond.span;
            return Ok(SetExpr {
                vars: Vec::new(),
                cond,
                term: None,
                span,
            });
        }
        let term = self.term()?;
        let span = term.span;
        let cond = Formula {
            kind: FormulaKind::True,
            span,
        };
        Ok(SetExpr {
            vars: Vec::new(),
            cond,
            term: Some(term),
            span,
        })
    }
}

fn agg_example(kind: AggKind) -> &'static str {
    match kind {
        AggKind::Card => "#{x : P(x)}",
        AggKind::Sum => "sum{x : P(x) : x}",
        AggKind::Prod => "prod{x : P(x) : x}",
        AggKind::Min => "min{x : P(x) : x}",
        AggKind::Max => "max{x : P(x) : x}",
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::syntax::ast::*;

    /// The sentences of `theory T : V { <text> }`.
    fn sentences(text: &str) -> Vec<Formula> {
        let f = parse_ok(&format!("theory T : V {{\n{text}\n}}\n"));
        let Item::Theory(t) = &f.items[0] else {
            panic!()
        };
        t.components
            .iter()
            .map(|c| match c {
                TheoryComponent::Sentence(f) => f.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn one(text: &str) -> Formula {
        sentences(text).remove(0)
    }

    /// A compact rendering of a formula's shape.
    fn show(f: &Formula) -> String {
        match &f.kind {
            FormulaKind::True => "true".into(),
            FormulaKind::False => "false".into(),
            FormulaKind::Atom { symbol, .. } => symbol.name.to_path(),
            FormulaKind::Compare { terms, ops } => {
                let mut s = show_t(&terms[0]);
                for (op, t) in ops.iter().zip(&terms[1..]) {
                    s.push_str(&format!(" {op:?} {}", show_t(t)));
                }
                format!("[{s}]")
            }
            FormulaKind::Not(g) => format!("~{}", show(g)),
            FormulaKind::Binary { op, left, right } => {
                format!("({} {op:?} {})", show(left), show(right))
            }
            FormulaKind::Quant { q, vars, body } => format!("{q:?}{}:{}", vars.len(), show(body)),
            FormulaKind::Count {
                op,
                bound,
                vars,
                body,
            } => format!("Count{op:?}{bound}/{}:{}", vars.len(), show(body)),
            FormulaKind::QuantIn {
                q,
                vars,
                symbol,
                body,
            } => {
                format!(
                    "{q:?}{}in{}:{}",
                    vars.len(),
                    symbol.name.to_path(),
                    show(body)
                )
            }
            FormulaKind::QuantSat {
                q,
                vars,
                cond,
                body,
            } => format!("{q:?}{}sat{}:{}", vars.len(), show(cond), show(body)),
        }
    }

    fn show_t(t: &Term) -> String {
        match &t.kind {
            TermKind::App { symbol, args: None } => symbol.name.to_path(),
            TermKind::App {
                symbol,
                args: Some(a),
            } => {
                format!(
                    "{}({})",
                    symbol.name.to_path(),
                    a.iter().map(show_t).collect::<Vec<_>>().join(",")
                )
            }
            TermKind::Int(i) => i.to_string(),
            TermKind::Float(x) => x.to_string(),
            TermKind::Str(s) => format!("{s:?}"),
            TermKind::Char(c) => format!("'{c}'"),
            TermKind::Arith { op, left, right } => {
                format!("({} {op:?} {})", show_t(left), show_t(right))
            }
            TermKind::Neg(a) => format!("-{}", show_t(a)),
            TermKind::Aggregate { kind, sets } => format!("{kind:?}{}", sets.len()),
        }
    }

    #[test]
    fn connective_precedence() {
        assert_eq!(
            show(&one("! x: P(x) & ~Q(x) => R(x).")),
            "Forall1:((P And ~Q) Implies R)"
        );
        assert_eq!(show(&one("A <= B => C.")), "((A ImpliedBy B) Implies C)");
        assert_eq!(show(&one("P => Q => R.")), "(P Implies (Q Implies R))");
        assert_eq!(show(&one("~ ! x : P(x) & Q.")), "~Forall1:(P And Q)");
        assert_eq!(show(&one("P & ! y: Q(y) | R.")), "(P And Forall1:(Q Or R))");
        assert_eq!(show(&one("A | B & C <=> D.")), "((A Or (B And C)) Equiv D)");
        assert_eq!(show(&one("A & B & C.")), "(A And (B And C))");
        assert_eq!(show(&one("~x = y.")), "~[x Eq y]");
        assert_eq!(show(&one("(P | Q) & true.")), "((P Or Q) And true)");
    }

    #[test]
    fn arithmetic_precedence() {
        assert_eq!(
            show(&one("6 = 3+(10-2)%5.")),
            "[6 Eq (3 Add ((10 Sub 2) Mod 5))]"
        );
        assert_eq!(show(&one("a = b*c%d.")), "[a Eq (b Mul (c Mod d))]");
        assert_eq!(show(&one("a = -x^2.")), "[a Eq (-x Pow 2)]");
        assert_eq!(show(&one("a = x^y^z.")), "[a Eq (x Pow (y Pow z))]");
        assert_eq!(show(&one("a = x-y-z.")), "[a Eq ((x Sub y) Sub z)]");
        assert_eq!(
            show(&one("a = -(b,c) + -3 + -(d*2).")),
            "[a Eq (((b Sub c) Add -3) Add -(d Mul 2))]"
        );
        assert_eq!(
            show(&one("a = f(x, g(1.5), \"s\", 'c', .5).")),
            "[a Eq f(x,g(1.5),\"s\",'c',0.5)]"
        );
    }

    #[test]
    fn chains_and_counting() {
        assert_eq!(show(&one("1 =< x < y =< 5.")), "[1 Le x Lt y Le 5]");
        assert_eq!(show(&one("x ~= y & x >= 2.")), "([x Ne y] And [x Ge 2])");
        assert_eq!(show(&one("?2 x: P(x).")), "CountEq2/1:P");
        assert_eq!(show(&one("?<2 x y: P(x).")), "CountLt2/2:P");
        assert_eq!(show(&one("?=<2 x: P(x).")), "CountLe2/1:P");
        assert_eq!(show(&one("?>=2 x: P(x).")), "CountGe2/1:P");
        assert_eq!(show(&one("?=2 x: P(x).")), "CountEq2/1:P");
        assert_eq!(show(&one("?>2 x: P(x).")), "CountGt2/1:P");
        assert_eq!(show(&one("! (x,y) in P : Q(x).")), "Forall2inP:Q");
        assert_eq!(show(&one("? (x,y) sat R(x,y) : Q(x).")), "Exists2satR:Q");
    }

    #[test]
    fn variables_and_annotations() {
        let f = one("! x, y[T] z[N::U]: P[T,T](x,y) & F[T:U](x) = MAX[:U] & z = z.");
        let FormulaKind::Quant { vars, .. } = &f.kind else {
            panic!()
        };
        assert_eq!(vars.len(), 3);
        assert_eq!(
            vars[2].sort.as_ref().map(|s| s.to_path()),
            Some("N::U".into())
        );
    }

    #[test]
    fn aggregates() {
        let f = one("#{x y : P(x,y)} + card{: Q} + sum{x : P(x) : x} + min{x : P(x) : x} = max(1,2) + #(P, Q, R) + prod(2, 3) + #(P, Q).");
        let FormulaKind::Compare { terms, .. } = &f.kind else {
            panic!()
        };
        assert_eq!(show_t(&terms[0]), "(((Card1 Add Card1) Add Sum1) Add Min1)");
        assert_eq!(
            show_t(&terms[1]),
            "(((Max2 Add Card3) Add Prod2) Add Card2)"
        );
    }

    #[test]
    fn implied_by_hint() {
        let (_, diags, _) = parse("theory T : V {\n x <= 3.\n}\n");
        assert_eq!(diags.items.len(), 1);
        assert!(diags.items[0]
            .hint
            .as_deref()
            .unwrap_or("")
            .contains("write '=<'"));
    }

    #[test]
    fn unexpected_token_message() {
        let e = errors("theory T : V {\n P(x,).\n}\n");
        assert_eq!(e[0].1, "unexpected ')', expected a term");
        assert_eq!((e[0].2, e[0].3), (2, 6));
    }

    #[test]
    fn deep_nesting() {
        let n = 10_000;
        let text = format!(
            "theory T : V {{\n P({}x{}).\n Q.\n}}\n",
            "(".repeat(n),
            ")".repeat(n)
        );
        let (file, diags, _) = parse(&text);
        let codes: Vec<_> = diags.items.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["nesting-too-deep"]);
        let Item::Theory(t) = &file.items[0] else {
            panic!()
        };
        assert_eq!(t.components.len(), 1);
    }

    #[test]
    fn deep_negation() {
        let n = 10_000;
        let text = format!("theory T : V {{\n {}P.\n}}\n", "~".repeat(n));
        let (_, diags, _) = parse(&text);
        assert_eq!(diags.items.len(), 1);
    }

    #[test]
    fn long_conjunction() {
        let n = 10_000;
        let text = format!("theory T : V {{\n {}.\n}}\n", vec!["P"; n].join(" & "));
        parse_ok(&text);
    }
}
