//! IDP3's theory transformations, as source-level rewrites of the resolved IR: `pushnegations`,
//! `flatten`, `completion`, `removenesting` and `removecardinalities` (IDP3's
//! `src/theory/transformations/`). Each rewrites a [`Theory`] in place, as IDP3's procedures
//! modify their argument, and keeps it an equivalent theory (`completion` as IDP3's: equivalent
//! for definitions without recursion; a recursive definition's completion may have more
//! models). New nodes get fresh ids; new variables get ids and names that the theory does not
//! use (see [`Fresh`]).

mod cardinalities;
mod closure;
mod completion;
mod equations;
mod nesting;
mod shape;

pub use cardinalities::remove_cardinalities;
pub use closure::linear_closures;
pub use completion::completion;
pub use equations::{sums_through_equations, SumsThroughEquations};
pub use nesting::remove_nesting;
pub use shape::{flatten, flatten_formula, push_negations, push_negations_formula};

use rustc_hash::FxHashSet as HashSet;

use crate::ids::SortId;
use crate::sema::ir::{Definition, Formula, Rule, Term, TermKind, Var};
use crate::sema::program::Theory;
use crate::sema::walk::{Node, Rewriter};
use crate::source::Span;

/// Applies `rewrite` to every sentence and every rule body of `theory`.
fn rewrite_theory(theory: &mut Theory, rewrite: &mut impl FnMut(&Formula) -> Formula) {
    for f in &mut theory.sentences {
        *f = rewrite(f);
    }
    for d in &mut theory.definitions {
        for r in &mut d.rules {
            r.body = rewrite(&r.body);
        }
    }
}

/// Makes variables that no formula of a theory uses yet: ids above every id in use, names
/// that no variable of the theory has (so that printed text stays unambiguous).
#[derive(Default)]
pub struct Fresh {
    next_id: u32,
    names: HashSet<String>,
    /// The last number [`Fresh::numbered`] gave.
    counter: u32,
}

impl Fresh {
    /// Fresh variables for `theory`.
    pub fn for_theory(theory: &Theory) -> Fresh {
        let mut fresh = Fresh::default();
        for f in &theory.sentences {
            fresh.note_formula(f);
        }
        for d in &theory.definitions {
            fresh.note_definition(d);
        }
        fresh
    }

    /// Fresh variables for the rules of `d` alone.
    pub fn for_definition(d: &Definition) -> Fresh {
        let mut fresh = Fresh::default();
        fresh.note_definition(d);
        fresh
    }

    fn note_definition(&mut self, d: &Definition) {
        for r in &d.rules {
            self.note_rule(r);
        }
    }

    fn note_rule(&mut self, r: &Rule) {
        for v in &r.vars {
            self.note_var(v);
        }
        for t in &r.head_args {
            Node::Term(t).walk(&mut |n| self.note_node(n));
        }
        self.note_formula(&r.body);
    }

    fn note_formula(&mut self, f: &Formula) {
        Node::Formula(f).walk(&mut |n| self.note_node(n));
    }

    /// Notes the variables of `t`, so that none of the new ones has their id or name.
    pub fn note_term(&mut self, t: &Term) {
        Node::Term(t).walk(&mut |n| self.note_node(n));
    }

    fn note_node(&mut self, n: Node<'_>) -> bool {
        for v in n.binds() {
            self.note_var(v);
        }
        if let Some(v) = n.var() {
            self.note_var(v);
        }
        true
    }

    fn note_var(&mut self, v: &Var) {
        self.next_id = self.next_id.max(v.id + 1);
        self.names.insert(v.name.to_string());
    }

    /// A new variable of sort `sort`, named `base` if no variable has that name yet, else
    /// `base` with the smallest number that makes it new.
    pub fn var(&mut self, base: &str, sort: SortId) -> Var {
        let name = numbered(base, |n| self.names.contains(n));
        self.named(name, sort)
    }

    /// A new variable named `prefix` and the next number (`var1`, `var2`, ...) that no
    /// variable has, as IDP3 names the variables its transformations make (`var<N>`, `N` from
    /// its global counter).
    pub fn numbered(&mut self, prefix: &str, sort: SortId) -> Var {
        loop {
            self.counter += 1;
            let name = format!("{prefix}{}", self.counter);
            if !self.names.contains(&name) {
                return self.named(name, sort);
            }
        }
    }

    fn named(&mut self, name: String, sort: SortId) -> Var {
        self.names.insert(name.clone());
        let id = self.next_id;
        self.next_id += 1;
        Var {
            id,
            name: name.into(),
            sort,
        }
    }
}

/// `base`, or `base1`, `base2`, ...: the first that is not `taken`.
fn numbered(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    let mut k = 1;
    while taken(&name) {
        name = format!("{base}{k}");
        k += 1;
    }
    name
}

/// A copy of `f` made of new nodes (fresh ids), for a formula that is used a second time.
fn copy(f: &Formula) -> Formula {
    struct Copy;
    impl Rewriter for Copy {}
    Copy.formula(f)
}

/// The term that is variable `v`.
fn var_term(v: &Var, span: Span) -> Term {
    Term::new(TermKind::Var(v.clone()), v.sort, span)
}

/// `f` with each variable of `map` (by id) replaced by the given term.
fn replace_vars(f: &Formula, map: &[(u32, Term)]) -> Formula {
    crate::sema::walk::SubstituteTerms(map).formula(f)
}
