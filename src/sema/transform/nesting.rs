//! `removenesting(T)`: IDP3's unnesting of terms. A term that is neither a variable nor an
//! element, as an argument of a predicate, of a function or of arithmetic, or as a side of a
//! comparison, is replaced by a new variable `v` bound by `? v : v = t & ...` right around
//! the atom (`P(f(x))` becomes `? v : v = f(x) & P(v)`); constants of constructed types are
//! elements and stay. As in IDP3 an equality keeps one
//! side in place (`f(x) = y` stays; `f(x) = g(y)` moves `g(y)`), and a comparison with an
//! aggregate keeps the aggregate. The new variables are named as IDP3 names them, `var1`,
//! `var2`, ... A negated comparison (`~=`, `=<`, `>=`) with a term that may
//! be undefined (a partial function, `/`, `%`, `SUCC`, `min`, ...) is unnested as the negation
//! of its positive form, so that it keeps its meaning when the term has no value. An
//! aggregate's set terms are moved into the set (a new variable of the set and its equality in
//! the condition), as IDP3 does, and the sets' conditions are unnested.

use crate::sema::ir::{Formula, FormulaKind, SetExpr, Term, TermKind, Var};
use crate::sema::program::{Program, Theory};
use crate::sema::transform::{rewrite_theory, var_term, Fresh};
use crate::sema::walk::{any_term, Rewriter};
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// IDP3's `removenesting(T)`.
pub fn remove_nesting(program: &Program, theory: &mut Theory) {
    let mut fresh = Fresh::for_theory(theory);
    let mut unnest = Unnest {
        program,
        fresh: &mut fresh,
        pending: Vec::new(),
    };
    rewrite_theory(theory, &mut |f| unnest.formula(f));
}

struct Unnest<'a> {
    program: &'a Program,
    fresh: &'a mut Fresh,
    /// The variables and equalities moved out of the atom being rewritten.
    pending: Vec<(Var, Formula)>,
}

impl Rewriter for Unnest<'_> {
    fn formula(&mut self, f: &Formula) -> Formula {
        match f.kind() {
            FormulaKind::Pred(p, args) => {
                let saved = std::mem::take(&mut self.pending);
                let args = args.iter().map(|a| self.moved(a)).collect();
                let atom = Formula::new(FormulaKind::Pred(*p, args), f.span);
                self.wrapped(atom, saved)
            }
            FormulaKind::Cmp(op, a, b) => self.comparison(f, *op, a, b),
            _ => f.rebuild(self),
        }
    }

    fn term(&mut self, t: &Term) -> Term {
        self.inner(t)
    }
}

impl Unnest<'_> {
    /// `a op b` with its sides unnested as IDP3 does.
    fn comparison(&mut self, f: &Formula, op: CmpOp, a: &Term, b: &Term) -> Formula {
        let undefined = self.may_be_undefined(a) || self.may_be_undefined(b);
        let (op, negated) = if undefined {
            op.positive_form()
        } else {
            (op, false)
        };
        let (a_agg, b_agg) = (is_aggregate(a), is_aggregate(b));
        let (move_a, move_b) = if a_agg && b_agg {
            (true, false)
        } else if a_agg || b_agg {
            (b_agg, a_agg)
        } else if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            let has_var = is_var(a) || is_var(b);
            (false, !has_var)
        } else {
            (true, true)
        };
        let saved = std::mem::take(&mut self.pending);
        let a = if move_a { self.moved(a) } else { self.inner(a) };
        let b = if move_b { self.moved(b) } else { self.inner(b) };
        let atom = Formula::new(FormulaKind::Cmp(op, a, b), f.span);
        let wrapped = self.wrapped(atom, saved);
        if negated {
            Formula::new(FormulaKind::Not(Box::new(wrapped)), f.span)
        } else {
            wrapped
        }
    }

    /// `atom` inside `? vs : eqs & atom` for the terms moved out of it; `saved` is the pending
    /// list of the enclosing atom, restored.
    fn wrapped(&mut self, atom: Formula, saved: Vec<(Var, Formula)>) -> Formula {
        let mine = std::mem::replace(&mut self.pending, saved);
        if mine.is_empty() {
            return atom;
        }
        let span = atom.span;
        let (vars, mut parts): (Vec<Var>, Vec<Formula>) = mine.into_iter().unzip();
        parts.push(atom);
        let body = Formula::new(FormulaKind::And(parts), span);
        Formula::new(FormulaKind::Exists(vars, Box::new(body)), span)
    }

    /// A variable standing for `t` (with `v = t` pending), or `t` itself if it is a variable
    /// or an element.
    fn moved(&mut self, t: &Term) -> Term {
        if self.is_element(t) {
            return t.clone();
        }
        let inner = self.inner(t);
        let v = self.fresh.numbered("var", t.sort);
        let eq = FormulaKind::Cmp(CmpOp::Eq, var_term(&v, t.span), inner);
        self.pending.push((v.clone(), Formula::new(eq, t.span)));
        var_term(&v, t.span)
    }

    /// `t` with its arguments moved out (an aggregate with its sets' conditions unnested).
    fn inner(&mut self, t: &Term) -> Term {
        let kind = match t.kind() {
            TermKind::Func(f, args) => {
                TermKind::Func(*f, args.iter().map(|a| self.moved(a)).collect())
            }
            TermKind::Arith(op, a, b) => {
                TermKind::Arith(*op, Box::new(self.moved(a)), Box::new(self.moved(b)))
            }
            TermKind::Neg(a) => TermKind::Neg(Box::new(self.moved(a))),
            TermKind::Abs(a) => TermKind::Abs(Box::new(self.moved(a))),
            TermKind::Succ(s, a) => TermKind::Succ(*s, Box::new(self.moved(a))),
            TermKind::Pred(s, a) => TermKind::Pred(*s, Box::new(self.moved(a))),
            TermKind::Aggregate(k, sets) => {
                TermKind::Aggregate(*k, sets.iter().map(|s| self.set(s)).collect())
            }
            TermKind::Var(_) | TermKind::Value(_) | TermKind::SortMin(_) | TermKind::SortMax(_) => {
                return t.clone()
            }
        };
        Term::new(kind, t.sort, t.span)
    }

    /// A set with its term unnested as IDP3's `UnnestTerms` does for a `QuantSetExpr`: a term
    /// that is not a variable or an element becomes a new variable of the set, its equality
    /// (and those of the term's own arguments, innermost first) in front of the condition
    /// (`sum{ x : P(x) : F(x) + 1 }` becomes `sum{ x v1 : v1 = F(x) + 1 & P(x) : v1 }`); then
    /// the condition is unnested.
    fn set(&mut self, s: &SetExpr) -> SetExpr {
        let saved = std::mem::take(&mut self.pending);
        let term = self.moved(&s.term);
        let moved = std::mem::take(&mut self.pending);
        let mut vars = s.vars.clone();
        let cond = if moved.is_empty() {
            s.cond.clone()
        } else {
            let (new_vars, mut parts): (Vec<Var>, Vec<Formula>) = moved.into_iter().unzip();
            vars.extend(new_vars);
            parts.push(s.cond.clone());
            Formula::new(FormulaKind::And(parts), s.cond.span)
        };
        let cond = self.formula(&cond);
        self.pending = saved;
        SetExpr { vars, cond, term }
    }

    /// Whether `t` is a variable, an element or a constant of a constructed type (an element
    /// by another name): such terms stay in place.
    fn is_element(&self, t: &Term) -> bool {
        match t.kind() {
            TermKind::Var(_) | TermKind::Value(_) => true,
            TermKind::Func(f, args) => {
                args.is_empty() && self.program.func(*f).constructor_of.is_some()
            }
            _ => false,
        }
    }

    /// Whether `t` may have no value: it applies a partial function, divides, takes a
    /// remainder, a successor or predecessor, or the minimum or maximum of a set.
    fn may_be_undefined(&self, t: &Term) -> bool {
        any_term(t, &mut |u| match u.kind() {
            TermKind::Func(f, _) => self.program.func(*f).partial,
            TermKind::Arith(op, ..) => matches!(op, ArithOp::Div | ArithOp::Mod),
            TermKind::Succ(..) | TermKind::Pred(..) => true,
            TermKind::Aggregate(k, _) => matches!(k, AggKind::Min | AggKind::Max),
            _ => false,
        })
    }
}

fn is_aggregate(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Aggregate(..))
}

fn is_var(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Var(_))
}
