//! One traversal API over the IR, so that no pass needs its own recursion over every kind of
//! formula and term (and none can silently skip a kind added later: the matches over kinds
//! here are the only generic ones, and they are exhaustive).
//!
//! A [`Node`] is a formula, a term or an aggregate's set expression. [`Node::for_each_child`]
//! gives its direct children in order and [`Node::binds`] the variables it binds for them;
//! [`Node::walk`], [`Node::any`] and [`Node::fold`] visit a whole subtree; [`free_vars`]
//! respects binders. [`Rewriter`] rebuilds a formula or term with some of its parts replaced
//! (the new nodes get fresh ids, see [`crate::sema::ir::NodeId`]).

use rustc_hash::FxHashSet as HashSet;

use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, SetExpr, Term, TermKind, Var};
use crate::structure::Value;

/// A node of the IR.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Formula(&'a Formula),
    Term(&'a Term),
    /// One set `{ vars : cond : term }` of an aggregate.
    Set(&'a SetExpr),
}

impl<'a> From<&'a Formula> for Node<'a> {
    fn from(f: &'a Formula) -> Node<'a> {
        Node::Formula(f)
    }
}

impl<'a> From<&'a Term> for Node<'a> {
    fn from(t: &'a Term) -> Node<'a> {
        Node::Term(t)
    }
}

impl<'a> Node<'a> {
    /// Calls `visit` on each direct child, in source order: a quantifier's body, a
    /// connective's operands, an atom's or application's arguments, an aggregate's sets, a
    /// set's condition and then its term.
    pub fn for_each_child(self, mut visit: impl FnMut(Node<'a>)) {
        match self {
            Node::Formula(f) => match f.kind() {
                FormulaKind::Bool(_) => {}
                FormulaKind::Pred(_, args) => args.iter().for_each(|a| visit(Node::Term(a))),
                FormulaKind::Cmp(_, a, b) => {
                    visit(Node::Term(a));
                    visit(Node::Term(b));
                }
                FormulaKind::Not(g) | FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => {
                    visit(Node::Formula(g))
                }
                FormulaKind::And(fs) | FormulaKind::Or(fs) => {
                    fs.iter().for_each(|g| visit(Node::Formula(g)))
                }
                FormulaKind::Implies(a, b) | FormulaKind::Equiv(a, b) => {
                    visit(Node::Formula(a));
                    visit(Node::Formula(b));
                }
            },
            Node::Term(t) => match t.kind() {
                TermKind::Var(_)
                | TermKind::Value(_)
                | TermKind::SortMin(_)
                | TermKind::SortMax(_) => {}
                TermKind::Func(_, args) => args.iter().for_each(|a| visit(Node::Term(a))),
                TermKind::Arith(_, a, b) => {
                    visit(Node::Term(a));
                    visit(Node::Term(b));
                }
                TermKind::Neg(a)
                | TermKind::Abs(a)
                | TermKind::Succ(_, a)
                | TermKind::Pred(_, a) => visit(Node::Term(a)),
                TermKind::Aggregate(_, sets) => sets.iter().for_each(|s| visit(Node::Set(s))),
            },
            Node::Set(s) => {
                visit(Node::Formula(&s.cond));
                visit(Node::Term(&s.term));
            }
        }
    }

    /// The variables this node binds in its children (a quantifier's, a set's).
    pub fn binds(self) -> &'a [Var] {
        match self {
            Node::Formula(f) => match f.kind() {
                FormulaKind::Forall(vars, _) | FormulaKind::Exists(vars, _) => vars,
                FormulaKind::Bool(_)
                | FormulaKind::Pred(..)
                | FormulaKind::Cmp(..)
                | FormulaKind::Not(_)
                | FormulaKind::And(_)
                | FormulaKind::Or(_)
                | FormulaKind::Implies(..)
                | FormulaKind::Equiv(..) => &[],
            },
            Node::Set(s) => &s.vars,
            Node::Term(_) => &[],
        }
    }

    /// Visits this node and its descendants in pre-order; when `visit` returns `false` the
    /// node's children are skipped.
    pub fn walk(self, visit: &mut impl FnMut(Node<'a>) -> bool) {
        if visit(self) {
            self.for_each_child(|c| c.walk(visit));
        }
    }

    /// Whether `holds` is true of this node or of a descendant (stops at the first).
    pub fn any(self, holds: &mut impl FnMut(Node<'a>) -> bool) -> bool {
        let mut found = false;
        self.walk(&mut |n| {
            found = found || holds(n);
            !found
        });
        found
    }

    /// Folds `step` over this node and its descendants in pre-order.
    pub fn fold<T>(self, init: T, step: &mut impl FnMut(T, Node<'a>) -> T) -> T {
        let mut acc = Some(init);
        self.walk(&mut |n| {
            acc = acc.take().map(|a| step(a, n));
            true
        });
        acc.expect("the accumulator is put back after every step")
    }

    /// The symbol this node applies, if it is an atom of a declared predicate or an
    /// application of a declared function.
    pub fn symbol(self) -> Option<Symbol> {
        match self {
            Node::Formula(f) => match f.kind() {
                FormulaKind::Pred(p, _) => Some(Symbol::Pred(*p)),
                _ => None,
            },
            Node::Term(t) => match t.kind() {
                TermKind::Func(g, _) => Some(Symbol::Func(*g)),
                _ => None,
            },
            Node::Set(_) => None,
        }
    }

    /// The variable this node is, if it is a variable term.
    pub fn var(self) -> Option<&'a Var> {
        match self {
            Node::Term(t) => match t.kind() {
                TermKind::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Every predicate and function symbol occurring in `node`, added to `out`.
pub fn symbols<'a>(node: impl Into<Node<'a>>, out: &mut HashSet<Symbol>) {
    node.into().walk(&mut |n| {
        out.extend(n.symbol());
        true
    });
}

/// The id of every variable that occurs as a term in `node` (free or bound), added to `out`.
pub fn var_ids<'a>(node: impl Into<Node<'a>>, out: &mut HashSet<u32>) {
    node.into().walk(&mut |n| {
        out.extend(n.var().map(|v| v.id));
        true
    });
}

/// Calls `found` on every variable occurrence of `node` that no binder inside `node` binds.
pub fn free_vars<'a>(node: impl Into<Node<'a>>, found: &mut impl FnMut(&'a Var)) {
    fn go<'a>(n: Node<'a>, bound: &mut Vec<u32>, found: &mut impl FnMut(&'a Var)) {
        if let Some(v) = n.var() {
            if !bound.contains(&v.id) {
                found(v);
            }
        }
        let mark = bound.len();
        bound.extend(n.binds().iter().map(|v| v.id));
        n.for_each_child(|c| go(c, bound, found));
        bound.truncate(mark);
    }
    go(node.into(), &mut Vec::new(), found);
}

/// Whether some term of `node` (including `node` itself) satisfies `holds`.
pub fn any_term<'a>(node: impl Into<Node<'a>>, holds: &mut impl FnMut(&'a Term) -> bool) -> bool {
    node.into().any(&mut |n| match n {
        Node::Term(t) => holds(t),
        _ => false,
    })
}

/// Rebuilds formulas and terms with some parts replaced. Each method returns the replacement
/// of its node; the defaults rebuild the node from its rewritten children (so an implementation
/// overrides only the nodes it changes and calls [`Formula::rebuild`]/[`Term::rebuild`] for the
/// others). Every rebuilt node is new, with a fresh id.
pub trait Rewriter {
    fn formula(&mut self, f: &Formula) -> Formula {
        f.rebuild(self)
    }

    fn term(&mut self, t: &Term) -> Term {
        t.rebuild(self)
    }
}

/// `f` with each variable of `binding` (by id) replaced by its value.
pub fn substitute(f: &Formula, binding: &[(u32, Value)]) -> Formula {
    struct Substitute<'b>(&'b [(u32, Value)]);
    impl Rewriter for Substitute<'_> {
        fn term(&mut self, t: &Term) -> Term {
            let value = match t.kind() {
                TermKind::Var(v) => self.0.iter().find(|(id, _)| *id == v.id).map(|(_, x)| *x),
                _ => None,
            };
            match value {
                Some(x) => Term::new(TermKind::Value(x), t.sort, t.span),
                None => t.rebuild(self),
            }
        }
    }
    Substitute(binding).formula(f)
}

/// Replaces each variable of its binding (by id) by its term, at the variable's position. The
/// terms' variables must not be bound inside what is rewritten (no capture is avoided).
pub struct SubstituteTerms<'b>(pub &'b [(u32, Term)]);

impl Rewriter for SubstituteTerms<'_> {
    fn term(&mut self, t: &Term) -> Term {
        let replacement = match t.kind() {
            TermKind::Var(v) => self.0.iter().find(|(id, _)| *id == v.id),
            _ => None,
        };
        match replacement {
            Some((_, to)) => Term::new(to.kind().clone(), to.sort, t.span),
            None => t.rebuild(self),
        }
    }
}

impl Formula {
    /// A new formula of the same kind whose children are `rewriter`'s replacements of this
    /// one's.
    pub fn rebuild(&self, rewriter: &mut (impl Rewriter + ?Sized)) -> Formula {
        let mut f = |g: &Formula| Box::new(rewriter.formula(g));
        let kind = match self.kind() {
            FormulaKind::Bool(b) => FormulaKind::Bool(*b),
            FormulaKind::Pred(p, args) => {
                FormulaKind::Pred(*p, args.iter().map(|a| rewriter.term(a)).collect())
            }
            FormulaKind::Cmp(op, a, b) => FormulaKind::Cmp(*op, rewriter.term(a), rewriter.term(b)),
            FormulaKind::Not(g) => FormulaKind::Not(f(g)),
            FormulaKind::And(fs) => FormulaKind::And(fs.iter().map(|g| *f(g)).collect()),
            FormulaKind::Or(fs) => FormulaKind::Or(fs.iter().map(|g| *f(g)).collect()),
            FormulaKind::Implies(a, b) => FormulaKind::Implies(f(a), f(b)),
            FormulaKind::Equiv(a, b) => FormulaKind::Equiv(f(a), f(b)),
            FormulaKind::Forall(vs, g) => FormulaKind::Forall(vs.clone(), f(g)),
            FormulaKind::Exists(vs, g) => FormulaKind::Exists(vs.clone(), f(g)),
        };
        Formula::new(kind, self.span)
    }
}

impl Term {
    /// A new term of the same kind whose children are `rewriter`'s replacements of this one's.
    pub fn rebuild(&self, rewriter: &mut (impl Rewriter + ?Sized)) -> Term {
        let mut t = |a: &Term| Box::new(rewriter.term(a));
        let kind = match self.kind() {
            TermKind::Var(v) => TermKind::Var(v.clone()),
            TermKind::Value(v) => TermKind::Value(*v),
            TermKind::SortMin(s) => TermKind::SortMin(*s),
            TermKind::SortMax(s) => TermKind::SortMax(*s),
            TermKind::Func(g, args) => TermKind::Func(*g, args.iter().map(|a| *t(a)).collect()),
            TermKind::Arith(op, a, b) => TermKind::Arith(*op, t(a), t(b)),
            TermKind::Neg(a) => TermKind::Neg(t(a)),
            TermKind::Abs(a) => TermKind::Abs(t(a)),
            TermKind::Succ(s, a) => TermKind::Succ(*s, t(a)),
            TermKind::Pred(s, a) => TermKind::Pred(*s, t(a)),
            TermKind::Aggregate(k, sets) => TermKind::Aggregate(
                *k,
                sets.iter()
                    .map(|s| SetExpr {
                        vars: s.vars.clone(),
                        cond: rewriter.formula(&s.cond),
                        term: rewriter.term(&s.term),
                    })
                    .collect(),
            ),
        };
        Term::new(kind, self.sort, self.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{PredId, SortId};
    use crate::sema::ir::TermKind;
    use crate::source::Span;
    use crate::structure::Value;
    use crate::syntax::ast::{AggKind, CmpOp};

    fn var(id: u32) -> Var {
        Var {
            id,
            name: format!("v{id}").into(),
            sort: SortId(0),
        }
    }

    fn var_term(id: u32) -> Term {
        Term::new(TermKind::Var(var(id)), SortId(0), Span::default())
    }

    /// `! v1 : P(v1, v2) & #{ v3 : P(v3, v1) : 1 } = v2`
    fn sample() -> Formula {
        let atom = |a, b| {
            Formula::new(
                FormulaKind::Pred(PredId(0), vec![var_term(a), var_term(b)]),
                Span::default(),
            )
        };
        let count = Term::new(
            TermKind::Aggregate(
                AggKind::Card,
                vec![SetExpr {
                    vars: vec![var(3)],
                    cond: atom(3, 1),
                    term: Term::new(TermKind::Value(Value::Int(1)), SortId(0), Span::default()),
                }],
            ),
            SortId(0),
            Span::default(),
        );
        let cmp = Formula::new(
            FormulaKind::Cmp(CmpOp::Eq, count, var_term(2)),
            Span::default(),
        );
        let body = Formula::new(FormulaKind::And(vec![atom(1, 2), cmp]), Span::default());
        Formula::new(
            FormulaKind::Forall(vec![var(1)], Box::new(body)),
            Span::default(),
        )
    }

    #[test]
    fn walks_reach_inside_aggregates() {
        let f = sample();
        let mut ids = HashSet::default();
        var_ids(&f, &mut ids);
        assert_eq!(ids.len(), 3);
        assert!(
            ids.contains(&3),
            "the set's variable occurs in its condition"
        );
        let mut free = Vec::new();
        free_vars(&f, &mut |v| free.push(v.id));
        assert_eq!(
            free,
            vec![2, 2],
            "only v2 (twice) is free; v1 and v3 are bound"
        );
        let atoms = Node::from(&f).fold(0, &mut |n, node| {
            n + usize::from(
                matches!(node, Node::Formula(g) if matches!(g.kind(), FormulaKind::Pred(..))),
            )
        });
        assert_eq!(atoms, 2, "the atom in the aggregate's set is counted");
        let mut symbols_found = HashSet::default();
        symbols(&f, &mut symbols_found);
        assert_eq!(symbols_found.len(), 1);
    }

    #[test]
    fn rewriting_replaces_terms_and_makes_new_nodes() {
        struct Rename;
        impl Rewriter for Rename {
            fn term(&mut self, t: &Term) -> Term {
                match t.kind() {
                    TermKind::Var(v) if v.id == 2 => var_term(9),
                    _ => t.rebuild(self),
                }
            }
        }
        let f = sample();
        let g = Rename.formula(&f);
        assert_ne!(f.id(), g.id());
        let mut free = Vec::new();
        free_vars(&g, &mut |v| free.push(v.id));
        assert_eq!(free, vec![9, 9]);
        assert!(any_term(&g, &mut |t| matches!(
            t.kind(),
            TermKind::Aggregate(..)
        )));
    }
}
