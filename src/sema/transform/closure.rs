//! Transitive closures made linear before model expansion grounds them.
//!
//! Users write reachability the symmetric, non-linear way:
//!
//! ```text
//! R(x, y) <- Chosen(x, y) | Chosen(y, x).
//! R(x, y) <- ? z : R(x, z) & R(z, y).
//! ```
//!
//! Grounded, the second rule has a body per triple of elements (13 824 for 24 cities), all on
//! one cycle of positive dependencies, and the search must keep every one of them founded. When
//! the rules of a binary predicate `R` are only *base* rules (their bodies read nothing that
//! depends on `R`), at most one symmetry rule `R(x, y) <- R(y, x)` and transitivity rules
//! `R(x, y) <- ? z : R(x, z) & R(z, y)`, `R` is the transitive closure of `S`, the union of the
//! base bodies (and of their mirror images with the symmetry rule). That closure is also the
//! least fixpoint of the linear rules
//!
//! ```text
//! R(x, y) <- B(x, y).               (each base rule, kept)
//! R(x, y) <- B(y, x).               (with symmetry: each base rule mirrored, instead of it)
//! R(x, y) <- ? z : S(x, z) & R(z, y).
//! ```
//!
//! whose recursive bodies are as many as the pairs `S` can hold times the elements. The base
//! bodies read nothing that depends on `R`, so `R` lies in a stratum below everything that reads
//! it and its well-founded value is that closure under either set of rules, for every
//! interpretation of what the bases read: the models are the same. Only the rules handed to
//! the grounder change; the theory, its printing and its explanations keep the user's rules.

use rustc_hash::FxHashSet as HashSet;

use super::{var_term, Fresh};
use crate::ids::{PredId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, SetExpr, Term, TermKind, Var};
use crate::sema::walk::{symbols, Rewriter};

/// `def` with every transitive closure of the shape above made linear; `None` when it has
/// none.
pub fn linear_closures(def: &Definition) -> Option<Definition> {
    let mut fresh = Fresh::for_definition(def);
    let mut rules = def.rules.clone();
    let mut changed = false;
    for symbol in def.defined() {
        let Symbol::Pred(p) = symbol else { continue };
        let Some(linear) = linear_rules(def, p, &mut fresh) else {
            continue;
        };
        let first = rules
            .iter()
            .position(|r| r.head == symbol)
            .expect("a rule of a defined symbol");
        rules.retain(|r| r.head != symbol);
        rules.splice(first..first, linear);
        changed = true;
    }
    changed.then_some(Definition {
        rules,
        span: def.span,
    })
}

/// What a rule of `R` is.
enum Shape<'r> {
    /// Reads nothing that depends on `R`: its head variables and its body.
    Base([&'r Var; 2], &'r Rule),
    /// `R(x, y) <- R(y, x)`.
    Symmetric,
    /// `R(x, y) <- ? z : R(x, z) & R(z, y)`.
    Transitive,
}

/// The linear rules of `p`, if its rules are a transitive closure of base rules.
fn linear_rules(def: &Definition, p: PredId, fresh: &mut Fresh) -> Option<Vec<Rule>> {
    let symbol = Symbol::Pred(p);
    let depends = depending_on(def, symbol);
    let mut bases = Vec::new();
    let mut symmetric = false;
    let mut transitive = None;
    for rule in def.rules.iter().filter(|r| r.head == symbol) {
        match shape(rule, p, &depends)? {
            Shape::Base(vars, rule) => bases.push((vars, rule)),
            Shape::Symmetric => symmetric = true,
            Shape::Transitive => transitive = Some(rule),
        }
    }
    let transitive = transitive?;
    let sort = head_vars(transitive)?[0].sort;
    if bases.is_empty()
        || bases
            .iter()
            .any(|(vars, _)| vars.iter().any(|v| v.sort != sort))
    {
        return None;
    }
    let mut out: Vec<Rule> = bases.iter().map(|(_, rule)| (*rule).clone()).collect();
    if symmetric {
        for (vars, rule) in &bases {
            out.push(mirrored(rule, *vars, fresh));
        }
    }
    out.push(linear_step(transitive, &bases, symmetric, sort, fresh));
    Some(out)
}

/// The defined symbols of `def` whose rules read `symbol`, directly or through others, and
/// `symbol` itself.
fn depending_on(def: &Definition, symbol: Symbol) -> HashSet<Symbol> {
    let mut depends: HashSet<Symbol> = [symbol].into_iter().collect();
    loop {
        let before = depends.len();
        for rule in &def.rules {
            if !depends.contains(&rule.head) && reads_any(rule, &depends) {
                depends.insert(rule.head);
            }
        }
        if depends.len() == before {
            return depends;
        }
    }
}

/// Whether the body or the head arguments of `rule` read a symbol of `set`.
fn reads_any(rule: &Rule, set: &HashSet<Symbol>) -> bool {
    let mut read = HashSet::default();
    symbols(&rule.body, &mut read);
    for t in &rule.head_args {
        symbols(t, &mut read);
    }
    !read.is_disjoint(set)
}

/// The shape of `rule` (a rule of `p`), or `None` when it is none of the three.
fn shape<'r>(rule: &'r Rule, p: PredId, depends: &HashSet<Symbol>) -> Option<Shape<'r>> {
    let [x, y] = head_vars(rule)?;
    if !reads_any(rule, depends) {
        return Some(Shape::Base([x, y], rule));
    }
    // The variables other than the head's, all existential in the body.
    let mut inner: Vec<&Var> = rule
        .vars
        .iter()
        .filter(|v| v.id != x.id && v.id != y.id)
        .collect();
    let mut body = &rule.body;
    while let FormulaKind::Exists(vars, g) = body.kind() {
        inner.extend(vars);
        body = g;
    }
    match (body.kind(), inner.as_slice()) {
        (FormulaKind::Pred(q, args), []) if *q == p && pair(args)? == (y.id, x.id) => {
            Some(Shape::Symmetric)
        }
        (FormulaKind::And(parts), [z]) if parts.len() == 2 && z.sort == x.sort => {
            let mut atoms = parts.iter().map(|f| match f.kind() {
                FormulaKind::Pred(q, args) if *q == p => pair(args),
                _ => None,
            });
            let (a, b) = (atoms.next()??, atoms.next()??);
            let wanted = [(x.id, z.id), (z.id, y.id)];
            (x.sort == y.sort && (wanted == [a, b] || wanted == [b, a]))
                .then_some(Shape::Transitive)
        }
        _ => None,
    }
}

/// The two head variables of a rule of a binary predicate (distinct variables).
fn head_vars(rule: &Rule) -> Option<[&Var; 2]> {
    match rule.head_args.as_slice() {
        [a, b] => match (a.kind(), b.kind()) {
            (TermKind::Var(x), TermKind::Var(y)) if x.id != y.id => Some([x, y]),
            _ => None,
        },
        _ => None,
    }
}

/// The variable ids of a pair of variable arguments.
fn pair(args: &[Term]) -> Option<(u32, u32)> {
    match args {
        [a, b] => match (a.kind(), b.kind()) {
            (TermKind::Var(x), TermKind::Var(y)) => Some((x.id, y.id)),
            _ => None,
        },
        _ => None,
    }
}

/// The base body of `rule` over the variables `(x, y)` for its head's: the rule's other
/// universal variables existential, every bound variable new.
fn base_body(rule: &Rule, head: [&Var; 2], x: &Var, y: &Var, fresh: &mut Fresh) -> Formula {
    let others: Vec<Var> = rule
        .vars
        .iter()
        .filter(|v| v.id != head[0].id && v.id != head[1].id)
        .cloned()
        .collect();
    let body = if others.is_empty() {
        rule.body.clone()
    } else {
        Formula::new(
            FormulaKind::Exists(others, Box::new(rule.body.clone())),
            rule.body.span,
        )
    };
    let mut renaming = Renaming {
        map: vec![(head[0].id, x.clone()), (head[1].id, y.clone())],
        fresh,
    };
    renaming.formula(&body)
}

/// `R(x, y) <- B(y, x)` for the base rule `rule`.
fn mirrored(rule: &Rule, head: [&Var; 2], fresh: &mut Fresh) -> Rule {
    let x = fresh.var(&head[0].name, head[0].sort);
    let y = fresh.var(&head[1].name, head[1].sort);
    let body = base_body(rule, head, &y, &x, fresh);
    Rule {
        head_args: vec![var_term(&x, rule.span), var_term(&y, rule.span)],
        vars: vec![x, y],
        head: rule.head,
        body,
        span: rule.span,
    }
}

/// `R(x, y) <- ? z : S(x, z) & R(z, y)` for the transitivity rule `rule`, `S` the
/// disjunction of the base bodies (and of their mirror images when `symmetric`).
fn linear_step(
    rule: &Rule,
    bases: &[([&Var; 2], &Rule)],
    symmetric: bool,
    sort: crate::ids::SortId,
    fresh: &mut Fresh,
) -> Rule {
    let span = rule.span;
    let [x0, y0] = head_vars(rule).expect("a transitivity rule has two head variables");
    let x = fresh.var(&x0.name, sort);
    let y = fresh.var(&y0.name, sort);
    let z = fresh.var("z", sort);
    let mut steps = Vec::new();
    for (head, base) in bases {
        steps.push(base_body(base, *head, &x, &z, fresh));
        if symmetric {
            steps.push(base_body(base, *head, &z, &x, fresh));
        }
    }
    let step = match <[Formula; 1]>::try_from(steps) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::Or(many), span),
    };
    let Symbol::Pred(p) = rule.head else {
        unreachable!("a transitivity rule defines a predicate")
    };
    let rest = Formula::new(
        FormulaKind::Pred(p, vec![var_term(&z, span), var_term(&y, span)]),
        span,
    );
    let conjunction = Formula::new(FormulaKind::And(vec![step, rest]), rule.body.span);
    Rule {
        head_args: vec![var_term(&x, span), var_term(&y, span)],
        vars: vec![x, y],
        head: rule.head,
        body: Formula::new(FormulaKind::Exists(vec![z], Box::new(conjunction)), span),
        span,
    }
}

/// Replaces the free variables of `map` and gives every bound variable a new one, so that a
/// body copied into another rule (or twice into one) shares no variable with its new place.
struct Renaming<'f> {
    /// Variable id -> its replacement; the innermost binding last.
    map: Vec<(u32, Var)>,
    fresh: &'f mut Fresh,
}

impl Renaming<'_> {
    /// New variables for `vars`, in scope until [`Renaming::close`].
    fn open(&mut self, vars: &[Var]) -> Vec<Var> {
        vars.iter()
            .map(|v| {
                let new = self.fresh.var(&v.name, v.sort);
                self.map.push((v.id, new.clone()));
                new
            })
            .collect()
    }

    fn close(&mut self, count: usize) {
        self.map.truncate(self.map.len() - count);
    }
}

impl Rewriter for Renaming<'_> {
    fn formula(&mut self, f: &Formula) -> Formula {
        let (vars, g, exists) = match f.kind() {
            FormulaKind::Forall(vars, g) => (vars, g, false),
            FormulaKind::Exists(vars, g) => (vars, g, true),
            _ => return f.rebuild(self),
        };
        let renamed = self.open(vars);
        let inner = Box::new(self.formula(g));
        self.close(vars.len());
        let kind = if exists {
            FormulaKind::Exists(renamed, inner)
        } else {
            FormulaKind::Forall(renamed, inner)
        };
        Formula::new(kind, f.span)
    }

    fn term(&mut self, t: &Term) -> Term {
        match t.kind() {
            TermKind::Var(v) => match self.map.iter().rev().find(|(id, _)| *id == v.id) {
                Some((_, to)) => var_term(to, t.span),
                None => t.rebuild(self),
            },
            TermKind::Aggregate(kind, sets) => {
                let sets = sets
                    .iter()
                    .map(|set| {
                        let vars = self.open(&set.vars);
                        let renamed = SetExpr {
                            vars,
                            cond: self.formula(&set.cond),
                            term: self.term(&set.term),
                        };
                        self.close(set.vars.len());
                        renamed
                    })
                    .collect();
                Term::new(TermKind::Aggregate(*kind, sets), t.sort, t.span)
            }
            _ => t.rebuild(self),
        }
    }
}
