//! `removecardinalities(T, n)`: IDP3's replacement of a comparison of a cardinality with an
//! integer (`#{ x : p(x) } >= 2`) by an equivalent first-order formula: "at least k" is `k`
//! copies of the set's variables that satisfy its condition and differ pairwise
//! (`? var1 var2 : p(var1) & p(var2) & var2 ~= var1`, the new variables named as IDP3 names
//! them); `=<`, `<`, `=` and `~=` are negations and conjunctions of those. As IDP3's
//! `CardConstrToFO`, a comparison is replaced when the threshold `n` is zero or at least the
//! bound times the number of the set's variables: the threshold is the only bound on the size
//! IDP3 has, and the only one here. A threshold of zero with a large bound (`#{..} >= 100000`
//! has 5 * 10^9 parts) would exhaust memory, in IDP3 as here; here the unfolding stops with the
//! grounding size limit's error instead, and the theory is left as it was.

use crate::error::{Error, IdpResult, Limit};
use crate::sema::ir::{Formula, FormulaKind, SetExpr, Term, TermKind, Var};
use crate::sema::program::Theory;
use crate::sema::transform::{replace_vars, rewrite_theory, var_term, Fresh};
use crate::sema::walk::Rewriter;
use crate::source::Span;
use crate::syntax::ast::{AggKind, CmpOp};

/// IDP3's `removecardinalities(T, threshold)`; `budget` is the grounding size limit, the most
/// formula parts the unfolded comparisons may make in all.
pub fn remove_cardinalities(theory: &mut Theory, threshold: i64, budget: usize) -> IdpResult<()> {
    let mut fresh = Fresh::for_theory(theory);
    let mut unfold = Unfold {
        fresh: &mut fresh,
        threshold,
        budget,
        over: false,
    };
    let mut rewritten = theory.clone();
    rewrite_theory(&mut rewritten, &mut |f| unfold.formula(f));
    if unfold.over {
        return Err(Error::limit(
            Limit::GroundSize,
            "removecardinalities: unfolding the cardinalities would pass the grounding size \
             limit; give a threshold (the second argument) or raise the limit with \
             --max-ground-size.",
        ));
    }
    *theory = rewritten;
    Ok(())
}

struct Unfold<'f> {
    fresh: &'f mut Fresh,
    threshold: i64,
    /// The formula parts that may still be made.
    budget: usize,
    /// Whether an unfolding would have passed the budget.
    over: bool,
}

impl Rewriter for Unfold<'_> {
    fn formula(&mut self, f: &Formula) -> Formula {
        let g = f.rebuild(self);
        match self.unfolded(&g) {
            Some(h) => h,
            None => g,
        }
    }
}

impl Unfold<'_> {
    /// The first-order form of `f` if it compares one cardinality with an integer.
    fn unfolded(&mut self, f: &Formula) -> Option<Formula> {
        let FormulaKind::Cmp(op, a, b) = f.kind() else {
            return None;
        };
        let (op, set, bound) = match (single_card(a), single_card(b)) {
            (Some(set), None) => (*op, set, b.kind()),
            (None, Some(set)) => (op.mirrored(), set, a.kind()),
            _ => return None,
        };
        let TermKind::Value(v) = bound else {
            return None;
        };
        let n = v.as_int()?;
        let size = n.saturating_mul(set.vars.len() as i64);
        if self.threshold != 0 && size > self.threshold {
            return None;
        }
        if !self.spend(n, set.vars.len()) {
            return None;
        }
        Some(self.compare(op, set, n, f.span))
    }

    /// Takes from the budget the parts of the unfolding of a bound `n` over `vars`
    /// variables (at most two "at least" formulas of `n + 1` copies and their pairwise
    /// differences); false, and `over` set, if there are not so many left.
    fn spend(&mut self, n: i64, vars: usize) -> bool {
        let k = u128::try_from(n.max(0)).unwrap_or(0) + 1;
        let parts = 2 * (k * (k + 1) / 2) * (vars.max(1) as u128 + 1);
        match usize::try_from(parts) {
            Ok(p) if p <= self.budget && !self.over => {
                self.budget -= p;
                true
            }
            _ => {
                self.over = true;
                false
            }
        }
    }

    /// `#set op n` as first-order formulas over "at least k".
    fn compare(&mut self, op: CmpOp, set: &SetExpr, n: i64, span: Span) -> Formula {
        let mut at_least = |k: i64| self.at_least(k, set, span);
        match op {
            CmpOp::Ge => at_least(n),
            CmpOp::Gt => at_least(n + 1),
            CmpOp::Le => not(at_least(n + 1), span),
            CmpOp::Lt => not(at_least(n), span),
            CmpOp::Eq => {
                let (low, high) = (at_least(n), not(at_least(n + 1), span));
                Formula::new(FormulaKind::And(vec![low, high]), span)
            }
            CmpOp::Ne => {
                let (below, above) = (not(at_least(n), span), at_least(n + 1));
                Formula::new(FormulaKind::Or(vec![below, above]), span)
            }
        }
    }

    /// `? x1 .. xk : cond(x1) & .. & cond(xk) & (pairwise different)`: `k` distinct members.
    fn at_least(&mut self, k: i64, set: &SetExpr, span: Span) -> Formula {
        if k <= 0 {
            return Formula::new(FormulaKind::Bool(true), span);
        }
        let copies: Vec<Vec<Var>> = (0..k)
            .map(|_| {
                set.vars
                    .iter()
                    .map(|v| self.fresh.numbered("var", v.sort))
                    .collect()
            })
            .collect();
        let mut parts: Vec<Formula> = copies
            .iter()
            .map(|vars| {
                let map: Vec<(u32, Term)> = set
                    .vars
                    .iter()
                    .zip(vars)
                    .map(|(v, w)| (v.id, var_term(w, span)))
                    .collect();
                replace_vars(&set.cond, &map)
            })
            .collect();
        for (j, later) in copies.iter().enumerate() {
            for earlier in &copies[..j] {
                parts.push(different(later, earlier, span));
            }
        }
        let body = match <[Formula; 1]>::try_from(parts) {
            Ok([one]) => one,
            Err(many) => Formula::new(FormulaKind::And(many), span),
        };
        let all: Vec<Var> = copies.into_iter().flatten().collect();
        if all.is_empty() {
            return body;
        }
        Formula::new(FormulaKind::Exists(all, Box::new(body)), span)
    }
}

/// `x1 ~= y1 | x2 ~= y2 | ...`: the tuples differ (`false` for empty tuples).
fn different(xs: &[Var], ys: &[Var], span: Span) -> Formula {
    let parts = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| {
            let cmp = FormulaKind::Cmp(CmpOp::Ne, var_term(x, span), var_term(y, span));
            Formula::new(cmp, span)
        })
        .collect::<Vec<_>>();
    match <[Formula; 1]>::try_from(parts) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::Or(many), span),
    }
}

fn not(f: Formula, span: Span) -> Formula {
    Formula::new(FormulaKind::Not(Box::new(f)), span)
}

/// The set of `t` if `t` is a cardinality of one set.
fn single_card(t: &Term) -> Option<&SetExpr> {
    match t.kind() {
        TermKind::Aggregate(AggKind::Card, sets) if sets.len() == 1 => sets.first(),
        _ => None,
    }
}
