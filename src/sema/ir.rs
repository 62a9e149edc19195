//! The resolved, typed formula and term language that theories, definitions, term blocks and
//! queries are lowered to. Names are resolved to ids, every variable has a sort, comparison
//! chains are split into conjunctions, and counting quantifiers become aggregate comparisons.
//!
//! Every formula and term has a [`NodeId`], given when it is made and never reused, and its
//! kind cannot be changed afterwards: a transformation builds new nodes. Memos and per-node
//! facts (the grounder's, the checker's) are keyed by these ids, so a node made later can never
//! be mistaken for one that was dropped (as a key by memory address could be).

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::{FuncId, PredId, SortId, Symbol};
use crate::source::Span;
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// A variable, unique within its theory component (ids are not reused inside one sentence).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    pub id: u32,
    pub name: Rc<str>,
    pub sort: SortId,
}

/// The id of a formula or term: unique among all nodes made in this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u64);

impl NodeId {
    /// A new id, never given before.
    fn fresh() -> NodeId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        NodeId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A formula. Equality is structural (kind and span), not by id.
#[derive(Clone, Debug)]
pub struct Formula {
    id: NodeId,
    kind: FormulaKind,
    pub span: Span,
}

impl PartialEq for Formula {
    fn eq(&self, other: &Formula) -> bool {
        self.kind == other.kind && self.span == other.span
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormulaKind {
    Bool(bool),
    /// `P(t1..tn)`; also type predicates `T(x)`.
    Pred(PredId, Vec<Term>),
    /// `t1 op t2` on the domain order (numbers numerically). `~=` is kept as `Ne`.
    Cmp(CmpOp, Term, Term),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Equiv(Box<Formula>, Box<Formula>),
    Forall(Vec<Var>, Box<Formula>),
    Exists(Vec<Var>, Box<Formula>),
}

/// A term. Equality is structural (kind, sort and span), not by id.
#[derive(Clone, Debug)]
pub struct Term {
    id: NodeId,
    kind: TermKind,
    /// The sort of the term's value (for arithmetic: `int` or `float`, or a numeric user sort).
    pub sort: SortId,
    pub span: Span,
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        self.kind == other.kind && self.sort == other.sort && self.span == other.span
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    Var(Var),
    Value(Value),
    /// Application of a declared (non-builtin) function, including constants and constructors.
    Func(FuncId, Vec<Term>),
    Arith(ArithOp, Box<Term>, Box<Term>),
    Neg(Box<Term>),
    Abs(Box<Term>),
    /// `MIN[:T]` / `MAX[:T]`: the least / greatest element of a sort.
    SortMin(SortId),
    SortMax(SortId),
    /// `SUCC(x)` / `PRED(x)` in the order of a sort (partial).
    Succ(SortId, Box<Term>),
    Pred(SortId, Box<Term>),
    Aggregate(AggKind, Vec<SetExpr>),
}

/// `{ vars : cond : term }`; for `#` the term is the constant 1.
#[derive(Clone, Debug, PartialEq)]
pub struct SetExpr {
    pub vars: Vec<Var>,
    pub cond: Formula,
    pub term: Term,
}

/// The head of a rule: `P(args)` or `F(args) = value`, as the defined symbol's graph tuple.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Universally quantified head variables.
    pub vars: Vec<Var>,
    pub head: Symbol,
    /// Argument terms of the head; for a function, the value is the last element.
    pub head_args: Vec<Term>,
    /// The body; variables that occur only here are existentially quantified in it.
    pub body: Formula,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    pub rules: Vec<Rule>,
    pub span: Span,
}

impl Rule {
    /// `! x1 .. xn : S(x1, .., xn) <- false.`: symbol `symbol`, its argument sorts `sorts` (a
    /// function's value last), defined with no true atom; `next_id` gives the variables' ids.
    pub fn nothing_true(
        symbol: Symbol,
        sorts: Vec<SortId>,
        span: Span,
        mut next_id: impl FnMut() -> u32,
    ) -> Rule {
        let vars: Vec<Var> = sorts
            .into_iter()
            .enumerate()
            .map(|(k, sort)| Var {
                id: next_id(),
                name: Rc::from(format!("x{}", k + 1)),
                sort,
            })
            .collect();
        let head_args = vars
            .iter()
            .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, span))
            .collect();
        Rule {
            vars,
            head: symbol,
            head_args,
            body: Formula::new(FormulaKind::Bool(false), span),
            span,
        }
    }
}

impl Definition {
    /// The symbols defined by this definition (heads), in first-occurrence order.
    pub fn defined(&self) -> Vec<Symbol> {
        let mut out: Vec<Symbol> = Vec::new();
        for r in &self.rules {
            if !out.contains(&r.head) {
                out.push(r.head);
            }
        }
        out
    }
}

impl Formula {
    /// A new formula node, with a fresh id.
    pub fn new(kind: FormulaKind, span: Span) -> Formula {
        Formula {
            id: NodeId::fresh(),
            kind,
            span,
        }
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn kind(&self) -> &FormulaKind {
        &self.kind
    }

    /// The kind, taking the node apart (to build a new node from its parts).
    pub fn into_kind(self) -> FormulaKind {
        self.kind
    }
}

impl Term {
    /// A new term node, with a fresh id.
    pub fn new(kind: TermKind, sort: SortId, span: Span) -> Term {
        Term {
            id: NodeId::fresh(),
            kind,
            sort,
            span,
        }
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn kind(&self) -> &TermKind {
        &self.kind
    }

    /// The kind, taking the node apart (to build a new node from its parts).
    pub fn into_kind(self) -> TermKind {
        self.kind
    }
}

#[cfg(test)]
mod nothing_true_tests {
    use super::*;
    use crate::ids::PredId;

    /// One builder for the LTC split's and the grounding's "no true atom" rules:
    /// `! x1 x2 : S(x1, x2) <- false.` with the ids the caller gives.
    #[test]
    fn a_rule_with_no_true_atom() {
        let sorts = vec![SortId(3), SortId(4)];
        let mut next = 10;
        let r = Rule::nothing_true(Symbol::Pred(PredId(7)), sorts, Span::default(), || {
            next += 1;
            next
        });
        let vars: Vec<(u32, &str, SortId)> =
            r.vars.iter().map(|v| (v.id, &*v.name, v.sort)).collect();
        assert_eq!(vars, [(11, "x1", SortId(3)), (12, "x2", SortId(4))]);
        assert_eq!(r.head, Symbol::Pred(PredId(7)));
        let args: Vec<u32> = r
            .head_args
            .iter()
            .filter_map(|t| match t.kind() {
                TermKind::Var(v) => Some(v.id),
                _ => None,
            })
            .collect();
        assert_eq!(args, [11, 12]);
        assert!(matches!(r.body.kind(), FormulaKind::Bool(false)));
    }
}
