//! Lowering of typed pre-formulas into `ir`: variables get their derived sorts and ids,
//! candidates are the single resolved symbol, rule heads are normalised (non-variable,
//! non-element head arguments become a fresh variable plus an equality in the body; elements
//! outside the head's sort get a sort check in the body).

use super::pre::{PHead, PRule, PfKind, PtKind, VarIx, PF, PT};
use super::theory::Ctx;
use super::Resolver;
use crate::ids::{SortId, Symbol};
use crate::sema::index::{Target, VarNote};
use crate::sema::ir;
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp, CmpOp, Quantifier};

impl Resolver<'_> {
    pub(super) fn lower_var(&self, cx: &Ctx, v: VarIx) -> ir::Var {
        let info = &cx.vars[v];
        self.note_var(VarNote {
            declared: info.span,
            name: info.name.to_string(),
            sort: info.sort,
            typed: info.typed,
        });
        ir::Var {
            id: cx.id_base + v as u32,
            name: info.name.clone(),
            sort: info.sort.unwrap_or_else(|| self.sort_int()),
        }
    }

    pub(super) fn lower_formula(&self, cx: &Ctx, f: &PF) -> ir::Formula {
        let kind = match &f.kind {
            PfKind::Bool(b) => ir::FormulaKind::Bool(*b),
            PfKind::Error => ir::FormulaKind::Bool(false),
            PfKind::Atom {
                cands, args, at, ..
            } => {
                let Some(&p) = cands.first() else {
                    return ir::Formula::new(ir::FormulaKind::Bool(false), f.span);
                };
                if let Some(at) = at {
                    self.note(*at, Target::Symbol(Symbol::Pred(p)), false);
                }
                ir::FormulaKind::Pred(p, args.iter().map(|a| self.lower_term(cx, a)).collect())
            }
            PfKind::Cmp(op, a, b) => match self.compared_quotient(cx, *op, a, b, f.span) {
                Some(kind) => kind,
                None => ir::FormulaKind::Cmp(*op, self.lower_term(cx, a), self.lower_term(cx, b)),
            },
            PfKind::Not(g) => ir::FormulaKind::Not(Box::new(self.lower_formula(cx, g))),
            PfKind::And(fs) => {
                ir::FormulaKind::And(fs.iter().map(|g| self.lower_formula(cx, g)).collect())
            }
            PfKind::Or(fs) => {
                ir::FormulaKind::Or(fs.iter().map(|g| self.lower_formula(cx, g)).collect())
            }
            PfKind::Implies(a, b) => ir::FormulaKind::Implies(
                Box::new(self.lower_formula(cx, a)),
                Box::new(self.lower_formula(cx, b)),
            ),
            PfKind::Equiv(a, b) => ir::FormulaKind::Equiv(
                Box::new(self.lower_formula(cx, a)),
                Box::new(self.lower_formula(cx, b)),
            ),
            PfKind::Quant(q, vs, g) => {
                let vars: Vec<ir::Var> = vs.iter().map(|&v| self.lower_var(cx, v)).collect();
                let body = Box::new(self.lower_formula(cx, g));
                match q {
                    Quantifier::Forall => ir::FormulaKind::Forall(vars, body),
                    Quantifier::Exists => ir::FormulaKind::Exists(vars, body),
                }
            }
        };
        ir::Formula::new(kind, f.span)
    }

    /// An FO(·) comparison of an integer quotient `x / d` by a positive literal `d` with `t`
    /// (either side), said of `x` without the division: `x / d < t` is `x < d·t`, `x / d > t`
    /// is `x > d·t + d − 1`, `x / d = t` is both `x > d·t − 1` and `x < d·t + d`, and `≥`,
    /// `≤`, `≠` their negations (as the comparisons themselves are, for undefined terms).
    /// `sum{{…}}/2 >= k()` then grounds as one sum, not one and its remainder.
    fn compared_quotient(
        &self,
        cx: &Ctx,
        op: CmpOp,
        a: &PT,
        b: &PT,
        span: crate::source::Span,
    ) -> Option<ir::FormulaKind> {
        // Decided on the unlowered terms: each is lowered once (lowering notes references).
        let intlike = |t: &PT| self.term_sort(cx, t).is_some_and(|s| self.is_intlike(s));
        let (x, d, t, op) = match (
            self.quotient_by_literal(cx, a),
            self.quotient_by_literal(cx, b),
        ) {
            (Some((x, d)), _) if intlike(b) => (x, d, b, op),
            (_, Some((x, d))) if intlike(a) => (x, d, a, flipped(op)),
            _ => return None,
        };
        let (x, t) = (self.lower_term(cx, x), self.lower_term(cx, t));
        let number =
            |k: i64| ir::Term::new(ir::TermKind::Value(Value::Int(k)), self.sort_int(), span);
        // d·t + k
        let times = |k: i64| {
            let dt = self.int_arith(ArithOp::Mul, number(d), t.clone(), span);
            if k == 0 {
                dt
            } else {
                self.int_arith(ArithOp::Add, dt, number(k), span)
            }
        };
        let cmp = |op, r: ir::Term| ir::FormulaKind::Cmp(op, x.clone(), r);
        let formula = |kind| ir::Formula::new(kind, span);
        let not = |kind| ir::FormulaKind::Not(Box::new(formula(kind)));
        let below = || cmp(CmpOp::Lt, times(0));
        let above = || cmp(CmpOp::Gt, times(d - 1));
        let equal = || {
            let from = formula(cmp(CmpOp::Gt, times(-1)));
            ir::FormulaKind::And(vec![from, formula(cmp(CmpOp::Lt, times(d)))])
        };
        Some(match op {
            CmpOp::Lt => below(),
            CmpOp::Gt => above(),
            CmpOp::Eq => equal(),
            CmpOp::Ge => not(below()),
            CmpOp::Le => not(above()),
            CmpOp::Ne => not(equal()),
        })
    }

    /// `x / d` of an FO(·) file with `x` an integer and `d` a positive integer literal: `x`
    /// (not lowered yet), and `d`.
    fn quotient_by_literal<'t>(&self, cx: &Ctx, t: &'t PT) -> Option<(&'t PT, i64)> {
        let PtKind::Arith(ArithOp::Div, x, d) = &t.kind else {
            return None;
        };
        if !self.in_fodot(t.span) {
            return None;
        }
        let PtKind::Value(Value::Int(d), _) = d.kind else {
            return None;
        };
        let x_int = self.term_sort(cx, x).is_some_and(|s| self.is_intlike(s));
        (d > 0 && x_int).then_some((x.as_ref(), d))
    }

    /// IDP-Z3's `/` of two integers (FO(·) files): Z3's integer division, the `q` of
    /// `a = b·q + r` with `0 ≤ r < |b|`, written `(a − a % b) / b` (`%` leaves that
    /// remainder, and the division is then exact); undefined for `b = 0`.
    fn integer_division(&self, a: ir::Term, b: ir::Term, span: crate::source::Span) -> ir::Term {
        let remainder = self.int_arith(ArithOp::Mod, a.clone(), b.clone(), span);
        let dividend = self.int_arith(ArithOp::Sub, a, remainder, span);
        self.int_arith(ArithOp::Div, dividend, b, span)
    }

    /// `l op r` of integer sort (for terms the lowering writes itself).
    fn int_arith(
        &self,
        op: ArithOp,
        l: ir::Term,
        r: ir::Term,
        span: crate::source::Span,
    ) -> ir::Term {
        let kind = ir::TermKind::Arith(op, Box::new(l), Box::new(r));
        ir::Term::new(kind, self.sort_int(), span)
    }

    pub(super) fn lower_term(&self, cx: &Ctx, t: &PT) -> ir::Term {
        // Arithmetic takes its sort from its lowered operands, so a long chain `1 + 1 + ...`
        // is sorted in one pass instead of re-deriving every sub-chain at every node.
        if let PtKind::Arith(op, a, b) = &t.kind {
            let (la, lb) = (self.lower_term(cx, a), self.lower_term(cx, b));
            let integers = self.is_intlike(la.sort) && self.is_intlike(lb.sort);
            if *op == ArithOp::Div && integers && self.in_fodot(t.span) {
                return self.integer_division(la, lb, t.span);
            }
            let sort = match op {
                ArithOp::Div | ArithOp::Pow => self.sort_float(),
                ArithOp::Mod => self.sort_int(),
                _ if self.is_intlike(la.sort) && self.is_intlike(lb.sort) => self.sort_int(),
                _ => self.sort_float(),
            };
            let kind = ir::TermKind::Arith(*op, Box::new(la), Box::new(lb));
            return ir::Term::new(kind, sort, t.span);
        }
        let sort = self.term_sort(cx, t).unwrap_or_else(|| self.sort_int());
        let kind = match &t.kind {
            PtKind::Var(v) => {
                let declared = cx.vars[*v].span;
                if declared != t.span {
                    self.note(t.span, Target::Var { declared }, false);
                }
                ir::TermKind::Var(self.lower_var(cx, *v))
            }
            PtKind::Value(v, _) => ir::TermKind::Value(*v),
            PtKind::Func {
                cands, args, at, ..
            } => match cands.first() {
                Some(&f) => {
                    if let Some(at) = at {
                        self.note(*at, Target::Symbol(Symbol::Func(f)), false);
                    }
                    ir::TermKind::Func(f, args.iter().map(|a| self.lower_term(cx, a)).collect())
                }
                None => ir::TermKind::Value(Value::Int(0)),
            },
            PtKind::Arith(..) => unreachable!("handled above"),
            PtKind::Neg(a) => ir::TermKind::Neg(Box::new(self.lower_term(cx, a))),
            PtKind::Abs(a) => ir::TermKind::Abs(Box::new(self.lower_term(cx, a))),
            PtKind::SortMin(s) => ir::TermKind::SortMin(*s),
            PtKind::SortMax(s) => ir::TermKind::SortMax(*s),
            PtKind::Succ(_, a) => ir::TermKind::Succ(sort, Box::new(self.lower_term(cx, a))),
            PtKind::Pred(_, a) => ir::TermKind::Pred(sort, Box::new(self.lower_term(cx, a))),
            PtKind::Agg(kind, sets) => ir::TermKind::Aggregate(
                *kind,
                sets.iter().map(|s| self.lower_set(cx, *kind, s)).collect(),
            ),
            PtKind::Error => ir::TermKind::Value(Value::Int(0)),
        };
        ir::Term::new(kind, sort, t.span)
    }

    fn lower_set(&self, cx: &Ctx, kind: AggKind, s: &super::pre::PSet) -> ir::SetExpr {
        let term = match (&s.term, kind) {
            (Some(t), _) => self.lower_term(cx, t),
            (None, _) => ir::Term::new(ir::TermKind::Value(Value::Int(1)), self.sort_nat(), s.span),
        };
        ir::SetExpr {
            vars: s.vars.iter().map(|&v| self.lower_var(cx, v)).collect(),
            cond: self.lower_formula(cx, &s.cond),
            term,
        }
    }

    /// Replaces head arguments that are neither variables nor elements of the head's sort.
    pub(super) fn normalize_head(&mut self, cx: &mut Ctx, r: &mut PRule) {
        let sorts: Vec<SortId> = match &r.head {
            PHead::Pred(c) => self.prog.pred(c[0]).args.clone(),
            PHead::Func(c) => self.prog.symbol_sorts(Symbol::Func(c[0])),
            PHead::Error => return,
        };
        let mut extra: Vec<PF> = Vec::new();
        for (k, s) in sorts.into_iter().enumerate() {
            let Some(arg) = r.head_args.get_mut(k) else {
                break;
            };
            let span = arg.span;
            match &arg.kind {
                PtKind::Var(_) => {}
                PtKind::Value(v, lit) => {
                    if !self.prog.is_subsort(*lit, s) {
                        let check = PT::new(PtKind::Value(*v, *lit), span);
                        let pred = self.prog.sort(s).pred;
                        extra.push(PF::new(
                            PfKind::Atom {
                                name: self.prog.sort(s).name.clone(),
                                at: None,
                                cands: vec![pred],
                                args: vec![check],
                            },
                            span,
                        ));
                    }
                }
                _ => {
                    let name = format!("_v{}", cx.vars.len());
                    let nv = cx.new_var(&name, Some(s), span);
                    let old = std::mem::replace(arg, PT::new(PtKind::Var(nv), span));
                    extra.push(PF::new(
                        PfKind::Cmp(CmpOp::Eq, PT::new(PtKind::Var(nv), span), old),
                        span,
                    ));
                    r.head_vars.push(nv);
                }
            }
        }
        if !extra.is_empty() {
            let span = r.body.span;
            let body = std::mem::replace(&mut r.body, PF::new(PfKind::Bool(true), span));
            let mut parts = vec![body];
            parts.extend(extra);
            r.body = PF::new(PfKind::And(parts), span);
        }
    }

    pub(super) fn lower_rule(&self, cx: &Ctx, r: &PRule) -> Option<ir::Rule> {
        let head = match &r.head {
            PHead::Pred(c) => Symbol::Pred(*c.first()?),
            PHead::Func(c) => Symbol::Func(*c.first()?),
            PHead::Error => return None,
        };
        if let Some(at) = r.head_at {
            self.note(at, Target::Symbol(head), false);
        }
        let mut body = self.lower_formula(cx, &r.body);
        if !r.body_vars.is_empty() {
            let vars = r.body_vars.iter().map(|&v| self.lower_var(cx, v)).collect();
            let span = body.span;
            body = ir::Formula::new(ir::FormulaKind::Exists(vars, Box::new(body)), span);
        }
        Some(ir::Rule {
            vars: r.head_vars.iter().map(|&v| self.lower_var(cx, v)).collect(),
            head,
            head_args: r.head_args.iter().map(|a| self.lower_term(cx, a)).collect(),
            body,
            span: r.span,
        })
    }
}

/// The comparison with its sides swapped: `a < b` is `b > a`.
fn flipped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Le,
        eq_or_ne => eq_or_ne,
    }
}
