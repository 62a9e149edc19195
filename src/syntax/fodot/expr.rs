//! FO(·) expressions: the parse tree read into [`Expr`] (one kind for formulas and terms, as
//! IDP-Z3 writes them), then lowered to the IDP3 AST's formulas and terms by their place.
//!
//! What IDP3's AST has no node for is rewritten here: `x in {a, b}` becomes `x = a | x = b`; an
//! `if c then t1 else t2` term inside an atom lifts to `(c & A[t1]) | (~c & A[t2])`, inside an
//! aggregate's term splits the set by `c`, and anywhere else (a term to minimise) becomes the
//! sum of two one-element sets; `Int` and `Real` become IDP3's `int` and `float`.

use pest::iterators::Pair;

use super::{Reader, Rule};
use crate::source::Span;
use crate::syntax::ast::{
    AggKind, ArithOp, BinConn, CmpOp, Formula, FormulaKind, Ident, Pointer, Quantifier, SetExpr,
    SymbolRef, Term, TermKind, VarDecl,
};

/// An FO(·) expression before it is known to be a formula or a term.
#[derive(Clone, Debug)]
pub enum Expr {
    Quant {
        q: Quantifier,
        quantees: Vec<Quantee>,
        body: Box<Spanned>,
    },
    Count {
        op: CmpOp,
        bound: i64,
        quantees: Vec<Quantee>,
        body: Box<Spanned>,
    },
    Conn {
        op: BinConn,
        left: Box<Spanned>,
        right: Box<Spanned>,
    },
    Not(Box<Spanned>),
    Compare {
        terms: Vec<Spanned>,
        ops: Vec<CmpOp>,
    },
    Arith {
        op: ArithOp,
        left: Box<Spanned>,
        right: Box<Spanned>,
    },
    Neg(Box<Spanned>),
    /// `p`, `f(t1, ..)`; `args` is `None` without parentheses.
    App {
        name: Ident,
        args: Option<Vec<Spanned>>,
    },
    Int(i64),
    Float(f64),
    InEnum {
        term: Box<Spanned>,
        choices: Vec<Spanned>,
    },
    Ite {
        cond: Box<Spanned>,
        then: Box<Spanned>,
        other: Box<Spanned>,
    },
    Aggregate {
        kind: AggKind,
        term: Option<Box<Spanned>>,
        quantees: Vec<Quantee>,
        cond: Option<Box<Spanned>>,
    },
}

/// An expression and where it is written.
#[derive(Clone, Debug)]
pub struct Spanned {
    pub expr: Expr,
    pub span: Span,
}

/// `x, y in T`, `T x`, `(x, y) in p`, or `x` alone (typed by a `var` declaration or by use).
#[derive(Clone, Debug)]
pub struct Quantee {
    pub vars: Vec<Ident>,
    /// The type or predicate after `in`.
    pub sort: Option<Ident>,
    /// `(x, y) in p`: the variables range over the tuples of `p`.
    pub tuple: bool,
    pub span: Span,
    /// `x in $(c)`: the condition `$(c)(x)` the variable must meet.
    pub guard: Option<Box<Spanned>>,
}

impl Reader {
    /// An expression of the parse tree (any of the precedence levels).
    pub(super) fn expr(&mut self, pair: Pair<Rule>) -> Spanned {
        let span = self.span(&pair);
        let expr = match pair.as_rule() {
            Rule::expr | Rule::agg_term => {
                let inner = pair.into_inner().next().expect("an expression");
                return self.expr(inner);
            }
            // `(e)` is `e`, written from its opening parenthesis to its closing one (a
            // sentence that starts with one is quoted whole).
            Rule::brackets => {
                let inner = pair.into_inner().next().expect("an expression");
                return Spanned {
                    span,
                    ..self.expr(inner)
                };
            }
            Rule::quantified => self.quantified(pair),
            Rule::count_quant => self.count_quant(pair),
            Rule::rimpl | Rule::equiv | Rule::implication | Rule::disj | Rule::conj => {
                return self.connectives(pair)
            }
            Rule::if_comma => {
                let mut it = pair.into_inner().filter(|p| p.as_rule() == Rule::disj);
                let (a, b) = (it.next().expect("if"), it.next().expect("then"));
                Expr::Conn {
                    op: BinConn::Implies,
                    left: Box::new(self.expr(a)),
                    right: Box::new(self.expr(b)),
                }
            }
            Rule::comparison => return self.comparison(pair),
            Rule::sum | Rule::product | Rule::power => return self.arithmetic(pair),
            Rule::unary => return self.unary(pair),
            Rule::ite => {
                let mut it = pair
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::expr)
                    .map(|p| Box::new(self.expr(p)));
                let (cond, then, other) = (
                    it.next().expect("if"),
                    it.next().expect("then"),
                    it.next().expect("else"),
                );
                Expr::Ite { cond, then, other }
            }
            Rule::base => return self.base(pair),
            Rule::aggregate => return self.aggregate(pair),
            Rule::applied => self.applied(pair),
            Rule::deref => self.deref(pair),
            Rule::symbol => Expr::App {
                name: self.ident(pair.into_inner().next().expect("a name")),
                args: None,
            },
            Rule::number => self.number(pair),
            other => unreachable!("no expression at {other:?}"),
        };
        Spanned { expr, span }
    }

    fn quantified(&mut self, pair: Pair<Rule>) -> Expr {
        let mut q = Quantifier::Forall;
        let mut quantees = Vec::new();
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::forall => q = Quantifier::Forall,
                Rule::exists => q = Quantifier::Exists,
                Rule::quantees => quantees = self.quantees(p),
                _ => body = Some(self.expr(p)),
            }
        }
        let body = super::guarded(q, &quantees, body.expect("a body"));
        Expr::Quant {
            q,
            quantees,
            body: Box::new(body),
        }
    }

    fn count_quant(&mut self, pair: Pair<Rule>) -> Expr {
        let (mut op, mut bound, mut quantees, mut body) = (CmpOp::Eq, 0, Vec::new(), None);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::exists => {}
                Rule::cmp_op => op = cmp_op(p.as_str()),
                Rule::int => bound = self.int(&p),
                Rule::quantees => quantees = self.quantees(p),
                _ => body = Some(self.expr(p)),
            }
        }
        let body = super::guarded(Quantifier::Exists, &quantees, body.expect("a body"));
        Expr::Count {
            op,
            bound,
            quantees,
            body: Box::new(body),
        }
    }

    /// A chain of one connective level, left-associated (as IDP-Z3 reads `a => b => c`).
    fn connectives(&mut self, pair: Pair<Rule>) -> Spanned {
        let mut it = pair.into_inner();
        let first = it.next().expect("an operand");
        let mut acc = self.expr(first);
        while let Some(op) = it.next() {
            let right = self.expr(it.next().expect("an operand"));
            let op = match op.as_rule() {
                Rule::rimpl_op => BinConn::ImpliedBy,
                Rule::equiv_op => BinConn::Equiv,
                Rule::impl_op => BinConn::Implies,
                Rule::or_op => BinConn::Or,
                _ => BinConn::And,
            };
            acc = joined(acc, right, |left, right| Expr::Conn { op, left, right });
        }
        acc
    }

    fn comparison(&mut self, pair: Pair<Rule>) -> Spanned {
        let span = self.span(&pair);
        let mut terms = Vec::new();
        let mut ops = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::cmp_op => ops.push(cmp_op(p.as_str())),
                _ => terms.push(self.expr(p)),
            }
        }
        if ops.is_empty() {
            return terms.pop().expect("an operand");
        }
        Spanned {
            expr: Expr::Compare { terms, ops },
            span,
        }
    }

    fn arithmetic(&mut self, pair: Pair<Rule>) -> Spanned {
        let pow = pair.as_rule() == Rule::power;
        let mut it = pair.into_inner();
        let mut acc = self.expr(it.next().expect("an operand"));
        loop {
            let (op, right) = if pow {
                match it.next() {
                    Some(r) => (ArithOp::Pow, r),
                    None => break,
                }
            } else {
                match (it.next(), it.next()) {
                    (Some(o), Some(r)) => (arith_op(o.as_str()), r),
                    _ => break,
                }
            };
            let right = self.expr(right);
            acc = joined(acc, right, |left, right| Expr::Arith { op, left, right });
        }
        acc
    }

    fn unary(&mut self, pair: Pair<Rule>) -> Spanned {
        let span = self.span(&pair);
        let mut ops = Vec::new();
        let mut operand = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::unary_op => ops.push(p.as_str().starts_with('-')),
                _ => operand = Some(self.expr(p)),
            }
        }
        let mut acc = operand.expect("an operand");
        for minus in ops.into_iter().rev() {
            acc = Spanned {
                expr: if minus {
                    Expr::Neg(Box::new(acc))
                } else {
                    Expr::Not(Box::new(acc))
                },
                span,
            };
        }
        acc
    }

    fn base(&mut self, pair: Pair<Rule>) -> Spanned {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let inner = self.expr(it.next().expect("a base"));
        match it.next() {
            None => inner,
            Some(choices) => {
                let choices = choices
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::base)
                    .map(|p| self.expr(p))
                    .collect();
                Spanned {
                    expr: Expr::InEnum {
                        term: Box::new(inner),
                        choices,
                    },
                    span,
                }
            }
        }
    }

    fn applied(&mut self, pair: Pair<Rule>) -> Expr {
        let mut it = pair.into_inner();
        let name = self.ident(it.next().expect("a name"));
        let args = it.map(|p| self.expr(p)).collect();
        Expr::App {
            name,
            args: Some(args),
        }
    }

    fn number(&mut self, pair: Pair<Rule>) -> Expr {
        match super::number::number(pair.as_str()) {
            super::number::Number::Int(i) => Expr::Int(i),
            super::number::Number::Float(f) => Expr::Float(f),
            super::number::Number::Bad => {
                let span = self.span(&pair);
                let text = pair.as_str();
                self.error(
                    "fodot-number",
                    format!("{text} is not a number or date idp reads"),
                    span,
                );
                Expr::Int(0)
            }
        }
    }

    fn aggregate(&mut self, pair: Pair<Rule>) -> Spanned {
        let span = self.span(&pair);
        let inner = pair.into_inner().next().expect("an aggregate");
        let mut kind = AggKind::Card;
        let (mut term, mut quantees, mut cond) = (None, Vec::new(), None);
        for p in inner.into_inner() {
            match p.as_rule() {
                Rule::agg_sum => kind = AggKind::Sum,
                Rule::agg_minmax => {
                    kind = if p.as_str() == "min" {
                        AggKind::Min
                    } else {
                        AggKind::Max
                    }
                }
                Rule::english_kind => {
                    kind = match p.as_str() {
                        "sum" => AggKind::Sum,
                        "minimum" => AggKind::Min,
                        _ => AggKind::Max,
                    }
                }
                Rule::agg_term => term = Some(Box::new(self.expr(p))),
                Rule::lambda_term => {
                    let t = p.into_inner().next().expect("a term");
                    term = Some(Box::new(self.expr(t)));
                }
                Rule::kw_lambda => {
                    let at = self.span(&p);
                    let (name, now) = match kind {
                        AggKind::Min => ("min", "min{ t | x in T }"),
                        AggKind::Max => ("max", "max{ t | x in T }"),
                        _ => ("sum", "sum{{ t | x in T }}"),
                    };
                    self.warning(
                        "old-idp-z3",
                        format!(
                            "`{name}(lambda x in T: t)` is IDP-Z3 0.10's aggregate; IDP-Z3 0.12 \
                             writes `{now}`"
                        ),
                        at,
                    );
                }
                Rule::quantees => quantees = self.quantees(p),
                Rule::expr => cond = Some(Box::new(self.expr(p))),
                _ => {}
            }
        }
        if quantees.iter().any(|q| q.guard.is_some()) {
            let always = Spanned {
                expr: Expr::App {
                    name: Ident {
                        name: "true".to_string(),
                        span,
                    },
                    args: None,
                },
                span,
            };
            let body = cond.map_or(always, |c| *c);
            let guarded = super::guarded(Quantifier::Exists, &quantees, body);
            cond = Some(Box::new(guarded));
        }
        Spanned {
            expr: Expr::Aggregate {
                kind,
                term,
                quantees,
                cond,
            },
            span,
        }
    }

    /// One quantee of the parse tree; `(x, y), (u, v) in p` gives one per tuple, each over `p`
    /// (IDP-Z3 quantifies them one inside the other, so a repeated tuple shadows the first).
    fn quantee(&mut self, q: Pair<Rule>) -> Vec<Quantee> {
        let span = self.span(&q);
        let inner = q.into_inner().next().expect("a quantee");
        let kind = inner.as_rule();
        let mut groups: Vec<Vec<Ident>> = Vec::new();
        let (mut sort, mut in_sort, mut guard) = (None, None, None);
        for p in inner.into_inner() {
            match p.as_rule() {
                Rule::in_sort => in_sort = p.into_inner().find(|p| p.as_rule() != Rule::kw_in),
                Rule::var_tuple => groups.push(p.into_inner().map(|v| self.ident(v)).collect()),
                _ => match groups.first_mut() {
                    Some(vars) => vars.push(self.ident(p)),
                    None => groups.push(vec![self.ident(p)]),
                },
            }
        }
        if kind == Rule::typed_first {
            sort = Some(groups[0].remove(0));
        }
        match in_sort {
            Some(p) if p.as_rule() == Rule::deref_sort => {
                let vars: Vec<Ident> = groups.iter().flatten().cloned().collect();
                let (s, g) = self.deref_quantee(p, &vars);
                (sort, guard) = (s, g.map(Box::new));
            }
            Some(p) => sort = Some(self.ident(p)),
            None => {}
        }
        if sort.as_ref().is_some_and(|s| super::is_bool(&s.name)) {
            let vars = groups.iter().flatten().map(|v| v.name.clone());
            self.names.bool_vars.extend(vars);
        }
        let quantees: Vec<Quantee> = groups
            .into_iter()
            .map(|vars| Quantee {
                vars,
                sort: sort.clone(),
                tuple: kind == Rule::tuple_in,
                span,
                guard: guard.clone(),
            })
            .collect();
        for q in &quantees {
            self.note_concept_variables(q);
        }
        quantees
    }

    pub(super) fn quantees(&mut self, pair: Pair<Rule>) -> Vec<Quantee> {
        let quantees: Vec<Quantee> = pair.into_inner().flat_map(|q| self.quantee(q)).collect();
        // `x, y in p` with `p` unary: each variable ranges over `p` (as `x, y in T` over a
        // type), not the pairs of a binary predicate.
        quantees
            .into_iter()
            .flat_map(|q| {
                let unary = q.sort.as_ref().is_some_and(|s| {
                    self.names
                        .preds
                        .get(&s.name)
                        .is_some_and(|args| args.len() == 1)
                });
                if q.tuple || !unary || q.vars.len() < 2 {
                    return vec![q];
                }
                q.vars
                    .iter()
                    .map(|v| Quantee {
                        vars: vec![v.clone()],
                        ..q.clone()
                    })
                    .collect()
            })
            .collect()
    }
}

/// A comparison, in signs or in IDP-Z3's words (`is less than` is `≤`, as IDP-Z3 reads it).
pub(super) fn cmp_op(text: &str) -> CmpOp {
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match words.as_str() {
        "=" | "is" => CmpOp::Eq,
        "~=" | "≠" | "is not" => CmpOp::Ne,
        "<" | "is strictly less than" => CmpOp::Lt,
        ">" | "is strictly greater than" => CmpOp::Gt,
        "=<" | "≤" | "is less than" => CmpOp::Le,
        _ => CmpOp::Ge,
    }
}

fn arith_op(text: &str) -> ArithOp {
    match text {
        "+" => ArithOp::Add,
        "-" => ArithOp::Sub,
        "*" | "⨯" => ArithOp::Mul,
        "/" => ArithOp::Div,
        _ => ArithOp::Mod,
    }
}

// ---------------------------------------------------------------------------------------------
// Lowering to the IDP3 AST
// ---------------------------------------------------------------------------------------------

impl Reader {
    /// `e` in a formula's place.
    pub(super) fn formula(&mut self, e: &Spanned) -> Formula {
        let span = e.span;
        let kind = match &e.expr {
            Expr::Quant { q, quantees, body } => {
                let body = self.formula(body);
                return self.quantify(*q, quantees, body, span);
            }
            Expr::Count {
                op,
                bound,
                quantees,
                body,
            } => {
                let vars = self.var_decls(quantees);
                FormulaKind::Count {
                    op: *op,
                    bound: *bound,
                    vars,
                    body: Box::new(self.formula(body)),
                }
            }
            Expr::Conn { op, left, right } => FormulaKind::Binary {
                op: *op,
                left: Box::new(self.formula(left)),
                right: Box::new(self.formula(right)),
            },
            Expr::Not(f) => FormulaKind::Not(Box::new(self.formula(f))),
            Expr::Ite { cond, then, other } => {
                let c = self.formula(cond);
                let t = self.formula(then);
                let o = self.formula(other);
                return branches(c, t, o, span);
            }
            Expr::App { name, args: None } if name.name == "true" => FormulaKind::True,
            Expr::App { name, args: None } if name.name == "false" => FormulaKind::False,
            Expr::App { name, args: None } if self.is_bool_variable(&name.name) => {
                // A Boolean variable as a formula: `x = true`.
                let value = |n: &str| Term {
                    kind: TermKind::App {
                        symbol: symbol_ref(&Ident {
                            name: n.to_string(),
                            span,
                        }),
                        args: None,
                    },
                    span,
                };
                FormulaKind::Compare {
                    terms: vec![value(&name.name), value("true")],
                    ops: vec![CmpOp::Eq],
                }
            }
            Expr::Compare { .. } | Expr::App { .. } | Expr::InEnum { .. } => {
                let e = &self.boolean_arguments(e);
                if let Some((cond, then, other)) = lift_ite(e) {
                    let c = self.formula(&cond);
                    let t = self.formula(&then);
                    let o = self.formula(&other);
                    return branches(c, t, o, span);
                }
                return self.atom(e);
            }
            _ => {
                self.error(
                    "fodot-not-a-formula",
                    "a term stands where a formula (true or false) is expected",
                    span,
                );
                FormulaKind::True
            }
        };
        Formula { kind, span }
    }

    /// An atom without if-then-else terms left in it.
    fn atom(&mut self, e: &Spanned) -> Formula {
        let span = e.span;
        if let Some(kind) = self.membership(e) {
            return Formula { kind, span };
        }
        let kind = match &e.expr {
            Expr::Compare { terms, ops }
                if ops.len() == 1
                    && matches!(ops[0], CmpOp::Eq | CmpOp::Ne)
                    && terms.iter().any(|t| self.is_boolean(t)) =>
            {
                // Booleans compared (`p(x) = q(x)`, `p(x) ~= true`): an equivalence.
                let equiv = FormulaKind::Binary {
                    op: BinConn::Equiv,
                    left: Box::new(self.formula(&terms[0])),
                    right: Box::new(self.formula(&terms[1])),
                };
                if ops[0] == CmpOp::Eq {
                    equiv
                } else {
                    FormulaKind::Not(Box::new(Formula { kind: equiv, span }))
                }
            }
            Expr::Compare { terms, ops } => FormulaKind::Compare {
                terms: terms.iter().map(|t| self.term(t)).collect(),
                ops: ops.clone(),
            },
            Expr::App { name, args } => FormulaKind::Atom {
                symbol: symbol_ref(name),
                args: args.iter().flatten().map(|t| self.term(t)).collect(),
            },
            Expr::InEnum { term, choices } => {
                let t = self.term(term);
                let mut alternatives = Vec::new();
                for c in choices {
                    let choice = self.term(c);
                    alternatives.push(Formula {
                        kind: FormulaKind::Compare {
                            terms: vec![t.clone(), choice],
                            ops: vec![CmpOp::Eq],
                        },
                        span: c.span,
                    });
                }
                return alternatives
                    .into_iter()
                    .reduce(|a, b| Formula {
                        kind: FormulaKind::Binary {
                            op: BinConn::Or,
                            left: Box::new(a),
                            right: Box::new(b),
                        },
                        span,
                    })
                    .unwrap_or(Formula {
                        kind: FormulaKind::False,
                        span,
                    });
            }
            _ => unreachable!("atom of a non-atomic expression"),
        };
        Formula { kind, span }
    }

    /// `e` in a term's place.
    pub(super) fn term(&mut self, e: &Spanned) -> Term {
        let span = e.span;
        let kind = match &e.expr {
            Expr::Int(i) => TermKind::Int(*i),
            Expr::Float(f) => TermKind::Float(*f),
            Expr::App { name, args } => TermKind::App {
                symbol: symbol_ref(name),
                args: args
                    .as_ref()
                    .map(|a| a.iter().map(|t| self.term(t)).collect()),
            },
            Expr::Arith { op, left, right } if lift_ite(e).is_none() => TermKind::Arith {
                op: *op,
                left: Box::new(self.term(left)),
                right: Box::new(self.term(right)),
            },
            Expr::Neg(t) if lift_ite(e).is_none() => TermKind::Neg(Box::new(self.term(t))),
            Expr::Arith { .. } | Expr::Neg(_) | Expr::Ite { .. } => {
                // An if-then-else in a term with no atom around it: the sum of two sets
                // without variables, one per branch.
                let (cond, then, other) = lift_ite(e).expect("an if-then-else");
                let c = self.formula(&cond);
                let not_c = Formula {
                    kind: FormulaKind::Not(Box::new(c.clone())),
                    span: c.span,
                };
                let sets = vec![
                    SetExpr {
                        vars: Vec::new(),
                        cond: c,
                        term: Some(self.term(&then)),
                        span,
                    },
                    SetExpr {
                        vars: Vec::new(),
                        cond: not_c,
                        term: Some(self.term(&other)),
                        span,
                    },
                ];
                TermKind::Aggregate {
                    kind: AggKind::Sum,
                    sets,
                }
            }
            Expr::Aggregate {
                kind,
                term,
                quantees,
                cond,
            } => {
                let vars = self.var_decls(quantees);
                let cond = match cond {
                    Some(c) => self.formula(c),
                    None => Formula {
                        kind: FormulaKind::True,
                        span,
                    },
                };
                let cond = self.with_tuple_guards(quantees, cond);
                let sets = match term {
                    None => vec![SetExpr {
                        vars,
                        cond,
                        term: None,
                        span,
                    }],
                    Some(t) => self.split_sets(vars, cond, t, span),
                };
                TermKind::Aggregate { kind: *kind, sets }
            }
            _ => {
                self.error(
                    "fodot-not-a-term",
                    "a formula stands where a term (a value) is expected",
                    span,
                );
                TermKind::Int(0)
            }
        };
        Term { kind, span }
    }

    /// The sets of an aggregate with term `t`: one, or one per branch of each if-then-else in it.
    fn split_sets(
        &mut self,
        vars: Vec<VarDecl>,
        cond: Formula,
        t: &Spanned,
        span: Span,
    ) -> Vec<SetExpr> {
        match lift_ite(t) {
            None => vec![SetExpr {
                vars,
                cond,
                term: Some(self.term(t)),
                span,
            }],
            Some((c, then, other)) => {
                let c = self.formula(&c);
                let and = |extra: Formula| Formula {
                    kind: FormulaKind::Binary {
                        op: BinConn::And,
                        left: Box::new(cond.clone()),
                        right: Box::new(extra),
                    },
                    span,
                };
                let not_c = Formula {
                    kind: FormulaKind::Not(Box::new(c.clone())),
                    span: c.span,
                };
                let mut sets = self.split_sets(vars.clone(), and(c), &then, span);
                sets.extend(self.split_sets(vars, and(not_c), &other, span));
                sets
            }
        }
    }

    /// `body` under the quantees: typed variables in one quantifier, `(x, y) in p` as IDP3's
    /// `! (x, y) in p`, nested in the order written.
    fn quantify(
        &mut self,
        q: Quantifier,
        quantees: &[Quantee],
        body: Formula,
        span: Span,
    ) -> Formula {
        let mut body = body;
        let mut groups: Vec<(bool, Vec<&Quantee>)> = Vec::new();
        for quantee in quantees {
            let tuple = self.is_tuple_quantee(quantee);
            match groups.last_mut() {
                Some((false, g)) if !tuple => g.push(quantee),
                _ => groups.push((tuple, vec![quantee])),
            }
        }
        for (tuple, group) in groups.into_iter().rev() {
            let kind = if tuple {
                let quantee = group[0];
                let vars = quantee
                    .vars
                    .iter()
                    .map(|v| VarDecl {
                        name: v.clone(),
                        sort: None,
                        span: v.span,
                    })
                    .collect();
                FormulaKind::QuantIn {
                    q,
                    vars,
                    symbol: symbol_ref(quantee.sort.as_ref().expect("a predicate")),
                    body: Box::new(body),
                }
            } else {
                let owned: Vec<Quantee> = group.into_iter().cloned().collect();
                FormulaKind::Quant {
                    q,
                    vars: self.var_decls(&owned),
                    body: Box::new(body),
                }
            };
            body = Formula { kind, span };
        }
        body
    }

    /// Whether `e` is true or false rather than a value: a predicate's atom, `true`, `false`.
    pub(super) fn is_boolean(&self, e: &Spanned) -> bool {
        match &e.expr {
            Expr::App { name, .. } => {
                self.names.is_predicate(&name.name)
                    || name.name == "true"
                    || name.name == "false"
                    || self.is_bool_variable(&name.name)
            }
            Expr::Not(_) | Expr::Conn { .. } | Expr::Quant { .. } | Expr::Compare { .. } => true,
            _ => false,
        }
    }

    /// `T(a)` with `T` a listed type and `a` a name listed in some type: true when `a` is one
    /// of `T`'s elements, false otherwise. IDP-Z3 reads a type applied to an element of another
    /// type (`~T(e)`) as this test; idp's types would reject the argument.
    fn membership(&self, e: &Spanned) -> Option<FormulaKind> {
        let Expr::App {
            name,
            args: Some(args),
        } = &e.expr
        else {
            return None;
        };
        let [Spanned {
            expr:
                Expr::App {
                    name: element,
                    args: None,
                },
            ..
        }] = args.as_slice()
        else {
            return None;
        };
        let listed = |elements: &[crate::syntax::ast::Element]| {
            elements.iter().any(|x| {
                matches!(&x.kind, crate::syntax::ast::ElementKind::Str { value, quoted: false }
                    if *value == element.name)
            })
        };
        let of_type = self.names.elements(&name.name)?;
        let known = self.names.types.values().flatten().any(|l| listed(l));
        if !known || self.names.funcs.contains_key(&element.name) {
            return None;
        }
        Some(if listed(of_type) {
            FormulaKind::True
        } else {
            FormulaKind::False
        })
    }

    /// Whether a quantee ranges over a predicate's tuples rather than a type.
    fn is_tuple_quantee(&self, q: &Quantee) -> bool {
        q.tuple
            || q.sort
                .as_ref()
                .is_some_and(|s| self.names.is_predicate(&s.name))
    }

    /// An aggregate's condition with `(x, y) in p` quantees as conjuncts `p(x, y)`.
    fn with_tuple_guards(&mut self, quantees: &[Quantee], cond: Formula) -> Formula {
        quantees
            .iter()
            .filter(|q| self.is_tuple_quantee(q))
            .fold(cond, |acc, q| {
                let guard = Formula {
                    kind: FormulaKind::Atom {
                        symbol: symbol_ref(q.sort.as_ref().expect("a predicate")),
                        args: q
                            .vars
                            .iter()
                            .map(|v| Term {
                                kind: TermKind::App {
                                    symbol: symbol_ref(v),
                                    args: None,
                                },
                                span: v.span,
                            })
                            .collect(),
                    },
                    span: q.span,
                };
                Formula {
                    kind: FormulaKind::Binary {
                        op: BinConn::And,
                        left: Box::new(guard),
                        right: Box::new(acc),
                    },
                    span: q.span,
                }
            })
    }

    /// The variables of quantees, each with its type (IDP-Z3's names mapped to IDP3's).
    pub(super) fn var_decls(&mut self, quantees: &[Quantee]) -> Vec<VarDecl> {
        let mut out = Vec::new();
        for q in quantees {
            let tuple = self.is_tuple_quantee(q);
            for v in &q.vars {
                let sort = if tuple {
                    self.names.tuple_sort(q, v)
                } else {
                    q.sort.clone().or_else(|| self.names.var_sort(&v.name))
                };
                out.push(VarDecl {
                    name: v.clone(),
                    sort: sort.map(|s| pointer(&self.names.sort_name(&s))),
                    span: v.span,
                });
            }
        }
        out
    }
}

/// `(c & t) | (~c & o)`.
fn branches(c: Formula, t: Formula, o: Formula, span: Span) -> Formula {
    let bin = |op, l: Formula, r: Formula| Formula {
        kind: FormulaKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        span,
    };
    let not_c = Formula {
        kind: FormulaKind::Not(Box::new(c.clone())),
        span: c.span,
    };
    bin(
        BinConn::Or,
        bin(BinConn::And, c, t),
        bin(BinConn::And, not_c, o),
    )
}

/// The first if-then-else among the terms of `e` (not inside an aggregate or a quantifier):
/// its condition, and `e` with the if-then-else replaced by each branch.
pub(super) fn lift_ite(e: &Spanned) -> Option<(Spanned, Spanned, Spanned)> {
    let rebuild = |expr: Expr| Spanned { expr, span: e.span };
    match &e.expr {
        Expr::Ite { cond, then, other } => {
            Some(((**cond).clone(), (**then).clone(), (**other).clone()))
        }
        Expr::Compare { terms, ops } => lift_in_list(terms).map(|(c, a, b)| {
            let mk = |terms| {
                rebuild(Expr::Compare {
                    terms,
                    ops: ops.clone(),
                })
            };
            (c, mk(a), mk(b))
        }),
        Expr::App {
            name,
            args: Some(args),
        } => lift_in_list(args).map(|(c, a, b)| {
            let mk = |args| {
                rebuild(Expr::App {
                    name: name.clone(),
                    args: Some(args),
                })
            };
            (c, mk(a), mk(b))
        }),
        Expr::Arith { op, left, right } => {
            let pair = vec![(**left).clone(), (**right).clone()];
            lift_in_list(&pair).map(|(c, a, b)| {
                let mk = |mut v: Vec<Spanned>| {
                    let r = v.pop().expect("right");
                    let l = v.pop().expect("left");
                    rebuild(Expr::Arith {
                        op: *op,
                        left: Box::new(l),
                        right: Box::new(r),
                    })
                };
                (c, mk(a), mk(b))
            })
        }
        Expr::Neg(t) => lift_ite(t).map(|(c, a, b)| {
            (
                c,
                rebuild(Expr::Neg(Box::new(a))),
                rebuild(Expr::Neg(Box::new(b))),
            )
        }),
        Expr::InEnum { term, choices } => {
            let mut all = vec![(**term).clone()];
            all.extend(choices.iter().cloned());
            lift_in_list(&all).map(|(c, a, b)| {
                let mk = |mut v: Vec<Spanned>| {
                    let term = Box::new(v.remove(0));
                    rebuild(Expr::InEnum { term, choices: v })
                };
                (c, mk(a), mk(b))
            })
        }
        _ => None,
    }
}

fn lift_in_list(items: &[Spanned]) -> Option<(Spanned, Vec<Spanned>, Vec<Spanned>)> {
    items.iter().enumerate().find_map(|(k, item)| {
        lift_ite(item).map(|(c, a, b)| {
            let mut with_a = items.to_vec();
            with_a[k] = a;
            let mut with_b = items.to_vec();
            with_b[k] = b;
            (c, with_a, with_b)
        })
    })
}

pub(super) fn pointer(name: &Ident) -> Pointer {
    Pointer {
        parts: vec![name.clone()],
        span: name.span,
    }
}

pub(super) fn symbol_ref(name: &Ident) -> SymbolRef {
    SymbolRef {
        name: pointer(name),
        sorts: None,
        span: name.span,
    }
}

/// `left op right` made by `make`, spanning both operands.
fn joined(
    left: Spanned,
    right: Spanned,
    make: impl FnOnce(Box<Spanned>, Box<Spanned>) -> Expr,
) -> Spanned {
    let span = left.span.to(right.span);
    Spanned {
        expr: make(Box::new(left), Box::new(right)),
        span,
    }
}
