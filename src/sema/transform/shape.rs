//! `pushnegations` and `flatten`: IDP3's rewrites of a formula's shape. Pushing negations moves
//! every `~` inwards until it stands before an atom (De Morgan, `~!` is `?~`, `~(a => b)` is
//! `a & ~b`, `~(a <=> b)` is `a <=> ~b`); a negated comparison becomes the opposite comparison
//! (`~(x = y)` is `x ~= y`, `~(x < y)` is `x >= y`: `~=`, `>=` and `=<` are the negations of
//! `=`, `<` and `>`, also for undefined terms). Flattening merges a conjunction inside a
//! conjunction, a disjunction inside a disjunction and a quantifier inside a quantifier of the
//! same kind (`a & (b & c)` is `a & b & c`, `! x : ! y : p` is `! x y : p`). Both reach into
//! rule bodies and into the conditions of aggregates' sets.

use crate::sema::ir::{Formula, FormulaKind, Term};
use crate::sema::program::Theory;
use crate::sema::transform::rewrite_theory;
use crate::sema::walk::Rewriter;

/// IDP3's `pushnegations(T)`.
pub fn push_negations(theory: &mut Theory) {
    rewrite_theory(theory, &mut push_negations_formula);
}

/// `f` with its negations pushed in front of atoms.
pub fn push_negations_formula(f: &Formula) -> Formula {
    PushNegations.push(f, false)
}

/// IDP3's `flatten(T)`.
pub fn flatten(theory: &mut Theory) {
    rewrite_theory(theory, &mut flatten_formula);
}

/// `f` with nested conjunctions, disjunctions and quantifiers of one kind merged.
pub fn flatten_formula(f: &Formula) -> Formula {
    Flatten.formula(f)
}

struct PushNegations;

impl PushNegations {
    /// `f`, or its negation when `negated`, with negations in front of atoms only.
    fn push(&mut self, f: &Formula, negated: bool) -> Formula {
        let span = f.span;
        let kind = match f.kind() {
            FormulaKind::Bool(b) => FormulaKind::Bool(*b != negated),
            FormulaKind::Pred(..) => {
                let atom = f.rebuild(self);
                if !negated {
                    return atom;
                }
                FormulaKind::Not(Box::new(atom))
            }
            FormulaKind::Cmp(op, a, b) => {
                let op = if negated { op.negation() } else { *op };
                FormulaKind::Cmp(op, self.term(a), self.term(b))
            }
            FormulaKind::Not(g) => return self.push(g, !negated),
            FormulaKind::And(fs) => {
                let parts = fs.iter().map(|g| self.push(g, negated)).collect();
                if negated {
                    FormulaKind::Or(parts)
                } else {
                    FormulaKind::And(parts)
                }
            }
            FormulaKind::Or(fs) => {
                let parts = fs.iter().map(|g| self.push(g, negated)).collect();
                if negated {
                    FormulaKind::And(parts)
                } else {
                    FormulaKind::Or(parts)
                }
            }
            FormulaKind::Implies(a, b) => {
                let (a, b) = (self.push(a, false), self.push(b, negated));
                if negated {
                    FormulaKind::And(vec![a, b])
                } else {
                    FormulaKind::Implies(Box::new(a), Box::new(b))
                }
            }
            FormulaKind::Equiv(a, b) => FormulaKind::Equiv(
                Box::new(self.push(a, false)),
                Box::new(self.push(b, negated)),
            ),
            FormulaKind::Forall(vs, g) => {
                let body = Box::new(self.push(g, negated));
                if negated {
                    FormulaKind::Exists(vs.clone(), body)
                } else {
                    FormulaKind::Forall(vs.clone(), body)
                }
            }
            FormulaKind::Exists(vs, g) => {
                let body = Box::new(self.push(g, negated));
                if negated {
                    FormulaKind::Forall(vs.clone(), body)
                } else {
                    FormulaKind::Exists(vs.clone(), body)
                }
            }
        };
        Formula::new(kind, span)
    }
}

impl Rewriter for PushNegations {
    /// Formulas inside terms (the conditions of aggregates' sets).
    fn formula(&mut self, f: &Formula) -> Formula {
        self.push(f, false)
    }

    fn term(&mut self, t: &Term) -> Term {
        t.rebuild(self)
    }
}

struct Flatten;

impl Rewriter for Flatten {
    fn formula(&mut self, f: &Formula) -> Formula {
        let g = f.rebuild(self);
        let span = g.span;
        let kind = match g.into_kind() {
            FormulaKind::And(fs) => FormulaKind::And(merge(fs, |k| match k {
                FormulaKind::And(inner) => Ok(inner),
                other => Err(other),
            })),
            FormulaKind::Or(fs) => FormulaKind::Or(merge(fs, |k| match k {
                FormulaKind::Or(inner) => Ok(inner),
                other => Err(other),
            })),
            FormulaKind::Forall(vs, body) => {
                let inner_span = body.span;
                match body.into_kind() {
                    FormulaKind::Forall(inner, g) if distinct_names(&vs, &inner) => {
                        FormulaKind::Forall([vs, inner].concat(), g)
                    }
                    other => FormulaKind::Forall(vs, Box::new(Formula::new(other, inner_span))),
                }
            }
            FormulaKind::Exists(vs, body) => {
                let inner_span = body.span;
                match body.into_kind() {
                    FormulaKind::Exists(inner, g) if distinct_names(&vs, &inner) => {
                        FormulaKind::Exists([vs, inner].concat(), g)
                    }
                    other => FormulaKind::Exists(vs, Box::new(Formula::new(other, inner_span))),
                }
            }
            other => other,
        };
        Formula::new(kind, span)
    }
}

/// The operands `fs`, with each operand that `split` takes apart replaced by its operands.
fn merge(
    fs: Vec<Formula>,
    split: impl Fn(FormulaKind) -> Result<Vec<Formula>, FormulaKind>,
) -> Vec<Formula> {
    let mut out = Vec::with_capacity(fs.len());
    for f in fs {
        let span = f.span;
        match split(f.into_kind()) {
            Ok(inner) => out.extend(inner),
            Err(kind) => out.push(Formula::new(kind, span)),
        }
    }
    out
}

/// Whether no variable of `inner` has the name of one of `outer` (merging them must not make
/// `! x x : ...`).
fn distinct_names(outer: &[crate::sema::ir::Var], inner: &[crate::sema::ir::Var]) -> bool {
    inner.iter().all(|v| outer.iter().all(|w| w.name != v.name))
}
