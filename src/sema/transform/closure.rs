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
//! the rules of a predicate `R` are only *base* rules (their bodies read nothing that
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
//! whose recursive bodies are as many as the pairs `S` can hold times the elements. `R` may
//! have parameters besides its two places (`C(t, x, y)`, `C(x, y, t)`: a closure per `t`)
//! when every atom of the symmetry and transitivity rules carries the head's parameters
//! unchanged. The base bodies read nothing that depends on `R`, so `R` lies in a stratum below
//! everything that reads it and its well-founded value is that closure under either set of
//! rules, for every interpretation of what the bases read: the models are the same. Only the
//! rules handed to the grounder change; the theory, its printing and its explanations keep
//! the user's rules.

use rustc_hash::FxHashSet as HashSet;

use super::{var_term, Fresh};
use crate::ids::{PredId, SortId, Symbol};
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

/// What a rule of `R` is. Two of `R`'s places are the closure's, `x` at `from` and `y` at
/// `to`; the others are parameters, the same variables in every atom of the rule.
enum Shape<'r> {
    /// Reads nothing that depends on `R`: its head variables and the rule.
    Base(Vec<&'r Var>, &'r Rule),
    /// `R(.., x, .., y, ..) <- R(.., y, .., x, ..)`: the two places swapped (in either order).
    Symmetric(Places),
    /// `R(.., x, .., y, ..) <- ? z : R(.., x, .., z, ..) & R(.., z, .., y, ..)`.
    Transitive(Places),
}

/// The closure's places: `x` at `from`, `y` at `to`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Places {
    from: usize,
    to: usize,
}

impl Places {
    /// The same two places, whichever is first.
    fn same_pair(self, other: Places) -> bool {
        (self.from, self.to) == (other.from, other.to)
            || (self.from, self.to) == (other.to, other.from)
    }
}

/// The linear rules of `p`, if its rules are a transitive closure of base rules.
fn linear_rules(def: &Definition, p: PredId, fresh: &mut Fresh) -> Option<Vec<Rule>> {
    let symbol = Symbol::Pred(p);
    let depends = depending_on(def, symbol);
    let mut bases = Vec::new();
    let mut symmetric = Vec::new();
    let mut transitive = None;
    for rule in def.rules.iter().filter(|r| r.head == symbol) {
        match shape(rule, p, &depends)? {
            Shape::Base(vars, rule) => bases.push((vars, rule)),
            Shape::Symmetric(places) => symmetric.push(places),
            Shape::Transitive(places) => match transitive {
                Some((_, seen)) if !places.same_pair(seen) => return None,
                Some(_) => {}
                None => transitive = Some((rule, places)),
            },
        }
    }
    let (transitive, places) = transitive?;
    if !symmetric.iter().all(|s| s.same_pair(places)) {
        return None;
    }
    let symmetric = !symmetric.is_empty();
    let sorts: Vec<SortId> = head_vars(transitive)?.iter().map(|v| v.sort).collect();
    let same_sorts = |vars: &[&Var]| vars.iter().map(|v| v.sort).eq(sorts.iter().copied());
    if bases.is_empty() || !bases.iter().all(|(vars, _)| same_sorts(vars)) {
        return None;
    }
    let mut out: Vec<Rule> = bases.iter().map(|(_, rule)| (*rule).clone()).collect();
    if symmetric {
        for (vars, rule) in &bases {
            out.push(mirrored(rule, vars, places, fresh));
        }
    }
    out.push(linear_step(transitive, places, &bases, symmetric, fresh));
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
    let head = head_vars(rule)?;
    if !reads_any(rule, depends) {
        return Some(Shape::Base(head, rule));
    }
    let ids: Vec<u32> = head.iter().map(|v| v.id).collect();
    // The variables other than the head's, all existential in the body.
    let mut inner: Vec<&Var> = rule.vars.iter().filter(|v| !ids.contains(&v.id)).collect();
    let mut body = &rule.body;
    while let FormulaKind::Exists(vars, g) = body.kind() {
        inner.extend(vars);
        body = g;
    }
    // The places where an atom of `p` differs from the head.
    let differences = |f: &Formula| match f.kind() {
        FormulaKind::Pred(q, args) if *q == p => {
            let args = var_ids(args)?;
            Some(
                (0..ids.len())
                    .filter(|&k| args[k] != ids[k])
                    .collect::<Vec<_>>(),
            )
            .map(|d| (args, d))
        }
        _ => None,
    };
    match (body.kind(), inner.as_slice()) {
        (FormulaKind::Pred(..), []) => {
            let (args, diff) = differences(body)?;
            let [from, to] = diff[..] else { return None };
            let swapped = args[from] == ids[to] && args[to] == ids[from];
            swapped.then_some(Shape::Symmetric(Places { from, to }))
        }
        (FormulaKind::And(parts), [z]) if parts.len() == 2 => {
            // One atom has `z` for `y` (at `to`), the other `z` for `x` (at `from`).
            let single = |f: &Formula| match differences(f)? {
                (args, diff) if diff.len() == 1 && args[diff[0]] == z.id => Some(diff[0]),
                _ => None,
            };
            let (a, b) = (single(&parts[0])?, single(&parts[1])?);
            if a == b {
                return None;
            }
            // Read as `R(x, z) & R(z, y)` (`x` at `b`, `y` at `a`); read the other way round it
            // is the same rule, the transitivity of the converse, whose closure is the
            // converse of this one.
            let places = Places { from: b, to: a };
            let sorted = [places.from, places.to]
                .iter()
                .all(|&k| head[k].sort == z.sort);
            sorted.then_some(Shape::Transitive(places))
        }
        _ => None,
    }
}

/// The head variables of a rule whose head arguments are distinct variables, at least two.
fn head_vars(rule: &Rule) -> Option<Vec<&Var>> {
    let mut vars: Vec<&Var> = Vec::with_capacity(rule.head_args.len());
    for t in &rule.head_args {
        match t.kind() {
            TermKind::Var(v) if vars.iter().all(|w| w.id != v.id) => vars.push(v),
            _ => return None,
        }
    }
    (vars.len() >= 2).then_some(vars)
}

/// The variable ids of arguments that are all variables.
fn var_ids(args: &[Term]) -> Option<Vec<u32>> {
    args.iter()
        .map(|a| match a.kind() {
            TermKind::Var(v) => Some(v.id),
            _ => None,
        })
        .collect()
}

/// The base body of `rule` with `targets` for its head variables `head` (position by
/// position): the rule's other universal variables existential, every bound variable new.
fn base_body(rule: &Rule, head: &[&Var], targets: &[Var], fresh: &mut Fresh) -> Formula {
    let others: Vec<Var> = rule
        .vars
        .iter()
        .filter(|v| head.iter().all(|h| h.id != v.id))
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
        map: head
            .iter()
            .map(|h| h.id)
            .zip(targets.iter().cloned())
            .collect(),
        fresh,
    };
    renaming.formula(&body)
}

/// New variables like `vars` (names and sorts).
fn fresh_like(vars: &[&Var], fresh: &mut Fresh) -> Vec<Var> {
    vars.iter().map(|v| fresh.var(&v.name, v.sort)).collect()
}

/// `terms` of `vars`.
fn var_terms(vars: &[Var], span: crate::source::Span) -> Vec<Term> {
    vars.iter().map(|v| var_term(v, span)).collect()
}

/// `vars` with the closure's two places swapped.
fn swapped(vars: &[Var], places: Places) -> Vec<Var> {
    let mut out = vars.to_vec();
    out.swap(places.from, places.to);
    out
}

/// `vars` with `z` at place `k`.
fn with_at(vars: &[Var], k: usize, z: &Var) -> Vec<Var> {
    let mut out = vars.to_vec();
    out[k] = z.clone();
    out
}

/// `R(.., x, .., y, ..) <- B(.., y, .., x, ..)` for the base rule `rule`.
fn mirrored(rule: &Rule, head: &[&Var], places: Places, fresh: &mut Fresh) -> Rule {
    let vars = fresh_like(head, fresh);
    let body = base_body(rule, head, &swapped(&vars, places), fresh);
    Rule {
        head_args: var_terms(&vars, rule.span),
        vars,
        head: rule.head,
        body,
        span: rule.span,
    }
}

/// `R(x, y) <- ? z : S(x, z) & R(z, y)` (at the closure's places) for the transitivity rule
/// `rule`, `S` the disjunction of the base bodies (and of their mirror images when
/// `symmetric`).
fn linear_step(
    rule: &Rule,
    places: Places,
    bases: &[(Vec<&Var>, &Rule)],
    symmetric: bool,
    fresh: &mut Fresh,
) -> Rule {
    let span = rule.span;
    let head = head_vars(rule).expect("a transitivity rule's head is its variables");
    let vars = fresh_like(&head, fresh);
    let z = fresh.var("z", vars[places.to].sort);
    let to_z = with_at(&vars, places.to, &z);
    let from_z = with_at(&vars, places.from, &z);
    let mut steps = Vec::new();
    for (base_head, base) in bases {
        steps.push(base_body(base, base_head, &to_z, fresh));
        if symmetric {
            steps.push(base_body(base, base_head, &swapped(&to_z, places), fresh));
        }
    }
    let step = match <[Formula; 1]>::try_from(steps) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::Or(many), span),
    };
    let Symbol::Pred(p) = rule.head else {
        unreachable!("a transitivity rule defines a predicate")
    };
    let rest = Formula::new(FormulaKind::Pred(p, var_terms(&from_z, span)), span);
    let conjunction = Formula::new(FormulaKind::And(vec![step, rest]), rule.body.span);
    Rule {
        head_args: var_terms(&vars, span),
        vars,
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
