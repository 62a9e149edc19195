//! Ground formulas of the [`Store`] back in the IR, as variable-free formulas over the
//! vocabulary, for IDP3's `ground(T, S)`: a theory that prints as IDP text with readable atoms
//! (`Col(1) ~= "blue"`) and that every inference accepts. Negations are pushed to the atoms
//! (a negated conjunction reads as a disjunction, a negated function atom as `f(x) ~= v`), and
//! shared subformulas are written out at each use, within a size budget.

use crate::error::{Error, IdpResult, Limit};
use crate::ground::store::{Gf, Node, Store, AUX};
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind};
use crate::sema::Program;
use crate::source::Span;
use crate::structure::Value;
use crate::syntax::ast::CmpOp;

/// Writes ground formulas of one store as IR formulas, counting the nodes made.
pub struct Lift<'a> {
    program: &'a Program,
    store: &'a Store,
    /// Nodes that may still be made.
    budget: usize,
}

impl<'a> Lift<'a> {
    /// A writer that makes at most `budget` formula nodes in all.
    pub fn new(program: &'a Program, store: &'a Store, budget: usize) -> Lift<'a> {
        Lift {
            program,
            store,
            budget,
        }
    }

    pub fn program(&self) -> &'a Program {
        self.program
    }

    pub fn store(&self) -> &'a Store {
        self.store
    }

    /// The top-level conjuncts of `g` (one ground sentence each), `true` left out.
    pub fn conjuncts(&self, g: Gf) -> Vec<Gf> {
        let mut out = Vec::new();
        let mut stack = vec![g];
        while let Some(g) = stack.pop() {
            match self.store.node(g) {
                Node::True if !g.is_negated() => {}
                Node::And(children) if !g.is_negated() => {
                    stack.extend(children.iter().rev().copied());
                }
                _ => out.push(g),
            }
        }
        out
    }

    /// `g` as a formula, its parts given `span`.
    pub fn formula(&mut self, g: Gf, span: Span) -> IdpResult<Formula> {
        self.spend()?;
        let kind = match self.store.node(g) {
            Node::True => FormulaKind::Bool(!g.is_negated()),
            Node::Atom(a) => return self.atom(a, g.is_negated(), span),
            Node::And(children) => {
                let parts = children
                    .iter()
                    .map(|&c| self.formula(if g.is_negated() { -c } else { c }, span))
                    .collect::<IdpResult<Vec<_>>>()?;
                if g.is_negated() {
                    FormulaKind::Or(parts)
                } else {
                    FormulaKind::And(parts)
                }
            }
        };
        Ok(Formula::new(kind, span))
    }

    /// Atom `a` (negated when `negated`): `P(1,2)`, `~P(1,2)`, `F(1) = 2` or `F(1) ~= 2`.
    pub fn atom(&mut self, a: u32, negated: bool, span: Span) -> IdpResult<Formula> {
        let (symbol, tuple) = self.store.atom_key(a);
        if *symbol == AUX {
            return Err(Error::internal(
                "an auxiliary proposition cannot be written as a formula",
            ));
        }
        let mut args = value_terms(self.program, *symbol, tuple, span);
        let kind = match *symbol {
            Symbol::Pred(p) => {
                let atom = Formula::new(FormulaKind::Pred(p, args), span);
                if !negated {
                    return Ok(atom);
                }
                FormulaKind::Not(Box::new(atom))
            }
            Symbol::Func(f) => {
                let value = args
                    .pop()
                    .ok_or_else(|| Error::internal("a function atom without its value"))?;
                let result = self.program.func(f).result;
                let application = Term::new(TermKind::Func(f, args), result, span);
                let op = if negated { CmpOp::Ne } else { CmpOp::Eq };
                FormulaKind::Cmp(op, application, value)
            }
        };
        Ok(Formula::new(kind, span))
    }

    fn spend(&mut self) -> IdpResult<()> {
        if self.budget == 0 {
            return Err(Error::limit(
                Limit::GroundSize,
                "The ground theory written out grew past the grounding size limit; make the \
                 domains smaller or raise the limit with --max-ground-size.",
            ));
        }
        self.budget -= 1;
        Ok(())
    }
}

/// The terms of a ground tuple of `symbol`, each with its argument's sort.
pub fn value_terms(program: &Program, symbol: Symbol, tuple: &[Value], span: Span) -> Vec<Term> {
    tuple
        .iter()
        .zip(program.symbol_sorts(symbol))
        .map(|(v, s)| Term::new(TermKind::Value(*v), s, span))
        .collect()
}
