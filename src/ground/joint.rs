//! Possibly-true bounds for all the definitions of a theory at once.
//!
//! Each definition is grounded with the possibly-true tuples of its defined symbols (the least
//! fixpoint of its relaxation, [`crate::ground::datalog::possibly_true`]), but a definition
//! that reads a symbol of another definition not yet grounded knows nothing of it. In an LTC
//! theory that is the rule: the state fluent `cell(Next(t), ..) <- C_cell(t, ..)` reads the
//! causation `C_cell`, defined in another definition that reads `cell`, so `cell` is bounded by
//! nothing and every rule over it is ground over whole types. Here the definitions'
//! relaxations are joined into one program whose least fixpoint bounds every defined symbol
//! before any definition is grounded.
//!
//! That fixpoint is sound only when no loop of positive dependencies between two definitions
//! can close on itself: each definition is a constraint of its own, so `{P <- Q.} {Q <- P.}`
//! has the model where both are true, which a joint least fixpoint would rule out. A loop across
//! definitions is harmless when time runs forward along it: every positive dependency in it
//! goes from an atom at time `t` to a head at `t` or strictly later (`Next(t)`, `t + 1`), and at
//! least one strictly later, so no ground loop exists. [`loops_across_definitions_are_timed`]
//! checks that on the symbols' dependency graph, read with the LTC vocabulary's time
//! arguments, or in a theory written without LTC with each symbol's first integer argument
//! (`Peg(t, h) <- Move(t, a, b, h)` and `Move(t, a, b, c) => Peg(t - 1, a)`: a plan written
//! the plain way); when it does not hold, the definitions are bounded one by one as before.

use std::collections::HashSet;

use indexmap::IndexMap;
use rustc_hash::FxHashSet;

use crate::ground::{datalog, Grounder};
use crate::ids::{FuncId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::walk::Rewriter;
use crate::sema::{LtcInfo, Program};
use crate::structure::{Table, Value};
use crate::syntax::ast::ArithOp;

/// How the time of a rule's head relates to that of a positive body atom it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The same time variable.
    Same,
    /// The head is at `Next(t)` for the body's `t`.
    NextOf,
    /// The head is at `t + k`, k > 0, for the body's `t`.
    Later,
    /// Anything else (no time argument, another variable, a term).
    Unknown,
}

/// A positive dependency: an atom of `from` in a rule body of `to`.
struct Edge {
    from: usize,
    to: usize,
    step: Step,
}

/// What the dependency analysis found: whether the joint fixpoint is sound, and whether that
/// relies on `Next` going forward in time.
#[derive(Debug, PartialEq, Eq)]
pub enum Timing {
    Unsafe,
    Timed { relies_on_next: bool },
}

impl<'a> Grounder<'a> {
    /// Bounds the symbols of `definitions` by the least fixpoint of their joint relaxation,
    /// when that is sound ([`loops_across_definitions_are_timed`]); otherwise leaves them to
    /// the definition-by-definition bounds of [`Grounder::ground_definition`].
    pub fn bound_definitions_jointly(
        &mut self,
        definitions: &[&Definition],
        sentences: &[Formula],
        ltc: Option<&LtcInfo>,
    ) {
        if let Some(possible) = self.joint_possible(definitions, sentences, ltc, Vec::new()) {
            self.status.joint_sizes = possible.iter().map(|(s, t)| (*s, t.len())).collect();
            self.record_possible(possible);
        }
    }

    /// The positions in `definitions` of those that define only predicates and whose symbols
    /// the joint bounds allow more than `above` tuples in all (the ground rules of such a
    /// definition are at least as many).
    pub fn large_definitions(&self, definitions: &[&Definition], above: usize) -> Vec<usize> {
        let joint = &self.status.joint_sizes;
        let large = |d: &Definition| {
            let defined = d.defined();
            let bounded = defined
                .iter()
                .all(|s| matches!(s, Symbol::Pred(_)) && joint.contains_key(s));
            bounded && defined.iter().map(|s| joint[s]).sum::<usize>() > above
        };
        (0..definitions.len())
            .filter(|&k| large(definitions[k]))
            .collect()
    }

    /// The least fixpoint of the joint relaxation of `definitions`, the bounds that
    /// `sentences` give open predicates and the `extra` bounding rules (see
    /// [`crate::ground::delayed`]), when it is sound; `None` otherwise.
    pub(super) fn joint_possible(
        &self,
        definitions: &[&Definition],
        sentences: &[Formula],
        ltc: Option<&LtcInfo>,
        extra: Vec<Definition>,
    ) -> Option<datalog::Extensions> {
        let bounds = self.bounds(definitions, sentences);
        // A predicate over an infinite type needs its bound even alone: without it, no
        // quantifier over its atoms can be ground.
        let infinite = bounds.keys().any(|&s| self.has_infinite_argument(s));
        let mut bounding = bounding_rules(&bounds, self.program);
        bounding.extend(extra);
        let groups: Vec<&Definition> = definitions.iter().copied().chain(&bounding).collect();
        if groups.len() < 2 && !infinite {
            return None;
        }
        let timeline = Timeline::of(self.program, ltc, &groups);
        let timing = loops_across_definitions_are_timed(&groups, &timeline);
        let Timing::Timed { relies_on_next } = timing else {
            return None;
        };
        let mut inliner = Inliner {
            bounds: &bounds,
            copies: 0,
        };
        let joint = Definition {
            rules: definitions
                .iter()
                .flat_map(|d| &d.rules)
                .map(|r| inliner.rule(r))
                .chain(bounding.iter().flat_map(|d| d.rules.iter().cloned()))
                .collect(),
            span: groups[0].span,
        };
        let approx = |s: Symbol| self.approx(s);
        let Ok(Some(possible)) = datalog::possibly_true(
            self.program,
            &joint,
            self.structure,
            &approx,
            self.growth.max_size,
            &self.growth.until,
        ) else {
            return None;
        };
        if relies_on_next {
            let next = Symbol::Func(ltc.expect("timed by Next").next);
            let defined = possible.iter().find(|(s, _)| *s == next);
            let graph: Vec<Vec<Value>> = match defined {
                Some((_, tuples)) => tuples.iter().cloned().collect(),
                None => match self.structure.table(next) {
                    Some(Table::TwoValued(set)) => set.iter().map(|t| t.to_vec()).collect(),
                    _ => return None,
                },
            };
            if !graph.iter().all(|t| goes_forward(t)) {
                return None;
            }
        }
        Some(possible)
    }
}

/// A sentence `! x : P(t) => phi` over an open predicate P: in every model, P holds only
/// where phi does.
pub(super) struct Bound {
    pub(super) vars: Vec<Var>,
    pub(super) args: Vec<Term>,
    pub(super) phi: Formula,
    pub(super) span: crate::source::Span,
    /// Whether phi applies a function that the structure does not fix (`At(t)`): only then
    /// does joining phi into a rule body say more than the bound of P itself (see
    /// [`Inliner`]); otherwise it only makes the body's join larger.
    pub(super) applies_open_function: bool,
    /// `None` when `P(t)` covers every tuple of P; `Some((k, C))` when it covers those whose
    /// argument k is an application of the constructor C (`do(t, p, s(x, y))`, when actions
    /// are also made by other constructors).
    pub(super) case: Option<(usize, FuncId)>,
}

impl<'a> Grounder<'a> {
    /// The sentences `! x : P(t) => phi` over an open predicate P (neither defined nor known),
    /// by predicate, when `P(t)` covers every tuple of P and phi does not read P.
    pub(super) fn bounds(
        &self,
        definitions: &[&Definition],
        sentences: &[Formula],
    ) -> IndexMap<Symbol, Vec<Bound>> {
        let defined: HashSet<Symbol> = definitions.iter().flat_map(|d| d.defined()).collect();
        let mut by_symbol: IndexMap<Symbol, Vec<Bound>> = IndexMap::new();
        for sentence in sentences {
            let Some((vars, atom, phi)) = bounded_by(sentence) else {
                continue;
            };
            let FormulaKind::Pred(p, args) = atom.kind() else {
                continue;
            };
            let phi = &phi;
            let symbol = Symbol::Pred(*p);
            let pred = self.program.pred(*p);
            let known = matches!(self.structure.table(symbol), Some(Table::TwoValued(_)));
            // `P(x) => P(y) | Q(x)` bounds P by itself: a least fixpoint would leave it empty
            // where the sentence allows it (no rule makes a loop through P unfounded here).
            let mut read = FxHashSet::default();
            crate::sema::walk::symbols(phi, &mut read);
            if pred.type_of.is_some()
                || defined.contains(&symbol)
                || known
                || self.structure.lazy.contains_key(&symbol)
                || read.contains(&symbol)
                || self.status.delayed.contains(&symbol)
            {
                continue;
            }
            let Some(case) = self.cover(&pred.args, args) else {
                continue;
            };
            let applies_open_function = read.iter().any(|s| match s {
                Symbol::Func(f) => {
                    self.program.func(*f).constructor_of.is_none()
                        && !matches!(self.structure.table(*s), Some(Table::TwoValued(_)))
                }
                Symbol::Pred(_) => false,
            });
            by_symbol.entry(symbol).or_default().push(Bound {
                vars,
                args: args.clone(),
                phi: phi.clone(),
                span: sentence.span,
                applies_open_function: applies_open_function && case.is_none(),
                case,
            });
        }
        by_symbol
    }
}

/// The bounds of each predicate as one relaxation rule, `P(v) <- (? x : phi & v = t) & ...`
/// with a conjunct per sentence: the joint fixpoint bounds P by what they allow together
/// (`do(t, p, kill(x, y)) => cell(t, x, y, o)`: only occupied cells can be acted on).
fn bounding_rules(bounds: &IndexMap<Symbol, Vec<Bound>>, program: &Program) -> Vec<Definition> {
    let mut fresh = FRESH_VARIABLES;
    bounds
        .iter()
        .map(|(&symbol, bounds)| {
            let sorts = program.symbol_sorts(symbol);
            let mut rule = empty_rule(symbol, &sorts, bounds[0].span, &mut fresh);
            let head: Vec<Term> = rule
                .vars
                .iter()
                .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, rule.span))
                .collect();
            // Each sentence numbers its variables from 0: they are moved apart so that the
            // conjuncts of one rule do not share them.
            let instance =
                |k: usize, b: &Bound| b.instance(&head, Shift((k as u32 + 1) * SENTENCE_VARIABLES));
            let mut conjuncts: Vec<Formula> = bounds
                .iter()
                .enumerate()
                .filter(|(_, b)| b.case.is_none())
                .map(|(k, b)| instance(k, b))
                .collect();
            // The bounds of one argument's constructors: a tuple is possible when its
            // constructor's bounds allow it, or its constructor has none.
            if let Some(position) = bounds.iter().find_map(|b| b.case.map(|(k, _)| k)) {
                let sort = sorts[position];
                let cases = program
                    .sort(sort)
                    .constructors
                    .iter()
                    .map(|&c| {
                        let bounded: Vec<Formula> = bounds
                            .iter()
                            .enumerate()
                            .filter(|(_, b)| b.case == Some((position, c)))
                            .map(|(k, b)| instance(k, b))
                            .collect();
                        if bounded.is_empty() {
                            any_application(&head[position], c, program, &mut fresh, rule.span)
                        } else {
                            Formula::new(FormulaKind::And(bounded), rule.span)
                        }
                    })
                    .collect();
                conjuncts.push(Formula::new(FormulaKind::Or(cases), rule.span));
            }
            rule.body = Formula::new(FormulaKind::And(conjuncts), rule.span);
            Definition {
                span: rule.span,
                rules: vec![rule],
            }
        })
        .collect()
}

impl Bound {
    /// `? x : phi & a = t` for the atom's arguments `a`, the sentence's variables moved by
    /// `shift` (away from those of the formula it goes into). A variable of `x` that is an
    /// argument of `t` is replaced by the matching `a` instead of equated to it, so that the
    /// relaxation reads `At(t)` in the rule's body and in the bound as one application.
    pub(super) fn instance(&self, a: &[Term], mut shift: Shift) -> Formula {
        let args: Vec<Term> = self.args.iter().map(|t| shift.term(t)).collect();
        let (mut vars, mut phi) = (shift.vars(&self.vars), shift.formula(&self.phi));
        let mut binding: Vec<(u32, Term)> = Vec::new();
        let (mut lhs, mut rhs) = (Vec::new(), Vec::new());
        for (a, arg) in a.iter().zip(args) {
            let replaced = match arg.kind() {
                TermKind::Var(x) if vars.iter().any(|v| v.id == x.id) => {
                    binding.push((x.id, a.clone()));
                    vars.retain(|v| v.id != x.id);
                    true
                }
                _ => false,
            };
            if !replaced {
                lhs.push(a.clone());
                rhs.push(arg);
            }
        }
        if !binding.is_empty() {
            let mut substitute = crate::sema::walk::SubstituteTerms(&binding);
            phi = substitute.formula(&phi);
            rhs = rhs.iter().map(|t| substitute.term(t)).collect();
        }
        bounding_conjunct(&lhs, &rhs, vars, &phi, self.span)
    }
}

/// Where the variables of the bounds copied into rule bodies are numbered from: copy k moves
/// them by `INLINED + k * SENTENCE_VARIABLES` (the resolver's, the sentences' and the fresh
/// head variables stay below).
const INLINED: u32 = 1 << 31;

/// At most this many copies of bounds go into rule bodies (the variable numbering's room).
const MAX_INLINED: u32 = (u32::MAX - INLINED) / SENTENCE_VARIABLES - 1;

/// Rewrites rule bodies: a positive atom `P(a)` of a bounded predicate becomes `P(a) & (? x :
/// phi & a = t)` for each bound of P. In every model the two are equivalent, but the
/// relaxation reads the conjunction more precisely: `Move(t, d) & Adj(At(t), d, p)` with the
/// precondition `Move(t, d) => ? q: Adj(At(t), d, q) & ~Wall(q)` joined in reads one value of
/// `At(t)` for both, so no wall becomes a possible position, where `Move(t, d)` alone only
/// says that some move in direction d is possible from some possible position.
struct Inliner<'b> {
    bounds: &'b IndexMap<Symbol, Vec<Bound>>,
    copies: u32,
}

impl Inliner<'_> {
    fn rule(&mut self, rule: &Rule) -> Rule {
        Rule {
            body: self.formula(&rule.body),
            ..rule.clone()
        }
    }

    /// `f` with the bounds joined to its atoms that occur positively.
    fn formula(&mut self, f: &Formula) -> Formula {
        let kind = match f.kind() {
            FormulaKind::Pred(p, args) => {
                let Some(bounds) = self.bounds.get(&Symbol::Pred(*p)) else {
                    return f.clone();
                };
                let mut conjuncts = vec![f.clone()];
                for bound in bounds.iter().filter(|b| b.applies_open_function) {
                    if self.copies >= MAX_INLINED {
                        break;
                    }
                    self.copies += 1;
                    let shift = Shift(INLINED + self.copies * SENTENCE_VARIABLES);
                    conjuncts.push(bound.instance(args, shift));
                }
                FormulaKind::And(conjuncts)
            }
            FormulaKind::And(fs) => FormulaKind::And(fs.iter().map(|g| self.formula(g)).collect()),
            FormulaKind::Or(fs) => FormulaKind::Or(fs.iter().map(|g| self.formula(g)).collect()),
            FormulaKind::Exists(vs, g) => {
                FormulaKind::Exists(vs.clone(), Box::new(self.formula(g)))
            }
            _ => return f.clone(),
        };
        Formula::new(kind, f.span)
    }
}

impl<'a> Grounder<'a> {
    /// Which tuples of the predicate the atom's arguments `args` (over `sorts`) match: every
    /// one (`Some(None)`, see [`Self::covers_every_tuple`]), those whose argument k is an
    /// application of the constructor C (`Some(Some((k, C)))`: that argument is `C(x, y)`
    /// or the constant `C`, the others as for every tuple), or others (`None`).
    pub(super) fn cover(
        &self,
        sorts: &[crate::ids::SortId],
        args: &[Term],
    ) -> Option<Option<(usize, FuncId)>> {
        if self.covers_every_tuple(sorts, args) {
            return Some(None);
        }
        args.iter().enumerate().find_map(|(k, a)| {
            let (c, parts) = match a.kind() {
                TermKind::Func(c, parts) => (*c, &parts[..]),
                TermKind::Value(v) => (v.compound_parts()?.constructor, &[][..]),
                _ => return None,
            };
            let func = self.program.func(c);
            if func.constructor_of.is_none()
                || func.args.len() != parts.len()
                || !self.program.sort(sorts[k]).constructors.contains(&c)
            {
                return None;
            }
            let mut seen = Vec::new();
            let rest_covers = sorts
                .iter()
                .zip(args)
                .enumerate()
                .all(|(j, (&sort, arg))| j == k || self.covers_sort(sort, arg, &mut seen));
            let parts_cover = func
                .args
                .iter()
                .zip(parts)
                .all(|(&sort, arg)| self.covers_sort(sort, arg, &mut seen));
            (rest_covers && parts_cover).then_some(Some((k, c)))
        })
    }

    /// Whether an argument type of `s` is infinite (`int`, `string`, a recursive
    /// constructed type).
    pub(super) fn has_infinite_argument(&self, s: Symbol) -> bool {
        (self.program.symbol_sorts(s).iter()).any(|&sort| self.domains.get(sort).is_none())
    }

    /// Whether the atom's arguments `args` (over `sorts`) match every tuple of the predicate:
    /// distinct variables over the whole argument sort, the one element of a sort that has
    /// one, or the one constructor of a constructed sort applied to such arguments
    /// (`do(t, p_robot, kill(x, y))` with one player and one kind of action). A sentence over
    /// fewer atoms (`do(t, p, s(x, y)) => ...` when there are also `u(x, y)` actions) bounds
    /// only those, and joining it with the others would rule out the rest.
    pub(super) fn covers_every_tuple(&self, sorts: &[crate::ids::SortId], args: &[Term]) -> bool {
        let mut seen = Vec::new();
        sorts
            .iter()
            .zip(args)
            .all(|(&sort, arg)| self.covers_sort(sort, arg, &mut seen))
    }

    fn covers_sort(&self, sort: crate::ids::SortId, arg: &Term, seen: &mut Vec<u32>) -> bool {
        match arg.kind() {
            TermKind::Var(v) => {
                let fresh = !seen.contains(&v.id);
                seen.push(v.id);
                fresh && self.program.is_subsort(sort, v.sort)
            }
            TermKind::Func(f, args) => {
                let func = self.program.func(*f);
                let only = self.program.sort(sort).constructors == [*f];
                only && func.constructor_of.is_some() && self.covers_every_tuple(&func.args, args)
            }
            TermKind::Value(v) => self
                .domains
                .get(sort)
                .is_some_and(|d| d.len() == 1 && d[0] == *v),
            _ => false,
        }
    }
}

/// `? z : v = C(z)`: `v` is some application of the constructor C.
fn any_application(
    v: &Term,
    c: FuncId,
    program: &Program,
    fresh: &mut u32,
    span: crate::source::Span,
) -> Formula {
    let vars = fresh_vars(&program.func(c).args, fresh);
    let args = vars
        .iter()
        .map(|x| Term::new(TermKind::Var(x.clone()), x.sort, span))
        .collect();
    let application = Term::new(TermKind::Func(c, args), v.sort, span);
    bounding_conjunct(
        std::slice::from_ref(v),
        &[application],
        vars,
        &Formula::new(FormulaKind::And(Vec::new()), span),
        span,
    )
}

/// How far apart the variables of the sentences joined in one rule are moved.
pub(super) const SENTENCE_VARIABLES: u32 = 1 << 20;

/// Adds a constant to the id of every variable (bound or free) of a formula.
pub(super) struct Shift(pub(super) u32);

impl Shift {
    fn var(&self, v: &Var) -> Var {
        Var {
            id: v.id + self.0,
            ..v.clone()
        }
    }

    fn vars(&self, vs: &[Var]) -> Vec<Var> {
        vs.iter().map(|v| self.var(v)).collect()
    }
}

impl Rewriter for Shift {
    fn formula(&mut self, f: &Formula) -> Formula {
        let kind = match f.kind() {
            FormulaKind::Forall(vs, g) => {
                FormulaKind::Forall(self.vars(vs), Box::new(self.formula(g)))
            }
            FormulaKind::Exists(vs, g) => {
                FormulaKind::Exists(self.vars(vs), Box::new(self.formula(g)))
            }
            _ => return f.rebuild(self),
        };
        Formula::new(kind, f.span)
    }

    fn term(&mut self, t: &Term) -> Term {
        let kind = match t.kind() {
            TermKind::Var(v) => TermKind::Var(self.var(v)),
            TermKind::Aggregate(k, sets) => TermKind::Aggregate(
                *k,
                sets.iter()
                    .map(|set| crate::sema::ir::SetExpr {
                        vars: self.vars(&set.vars),
                        cond: self.formula(&set.cond),
                        term: self.term(&set.term),
                    })
                    .collect(),
            ),
            _ => return t.rebuild(self),
        };
        Term::new(kind, t.sort, t.span)
    }
}

/// Where the variables of the relaxation rules made from sentences are numbered from (far
/// above the resolver's).
pub(super) const FRESH_VARIABLES: u32 = 1 << 30;

/// `! x : A => phi` (nested universal quantifiers flattened): its variables, A and phi.
pub(super) fn guarded_by_atom(f: &Formula) -> Option<(Vec<Var>, &Formula, &Formula)> {
    let mut vars = Vec::new();
    let mut f = f;
    while let FormulaKind::Forall(vs, body) = f.kind() {
        vars.extend(vs.iter().cloned());
        f = body;
    }
    match f.kind() {
        FormulaKind::Implies(a, phi) if matches!(a.kind(), FormulaKind::Pred(..)) => {
            Some((vars, a, phi))
        }
        _ => None,
    }
}

/// `! x : P(t) => phi`, `! x : P(t) <=> phi` (or `phi <=> P(t)`) and `! x : ~P(t) | phi`:
/// its variables, the atom, and phi, which holds wherever the atom does. Unlike
/// [`guarded_by_atom`], the sentence may also make the atom true.
fn bounded_by(f: &Formula) -> Option<(Vec<Var>, &Formula, Formula)> {
    let mut vars = Vec::new();
    let mut f = f;
    while let FormulaKind::Forall(vs, body) = f.kind() {
        vars.extend(vs.iter().cloned());
        f = body;
    }
    let is_atom = |g: &Formula| matches!(g.kind(), FormulaKind::Pred(..));
    match f.kind() {
        FormulaKind::Implies(a, phi) if is_atom(a) => Some((vars, a, (**phi).clone())),
        FormulaKind::Equiv(a, phi) if is_atom(a) => Some((vars, a, (**phi).clone())),
        FormulaKind::Equiv(phi, a) if is_atom(a) => Some((vars, a, (**phi).clone())),
        FormulaKind::Or(fs) => {
            let k = fs
                .iter()
                .position(|g| matches!(g.kind(), FormulaKind::Not(a) if is_atom(a)))?;
            let FormulaKind::Not(a) = fs[k].kind() else {
                return None;
            };
            let rest: Vec<Formula> = (fs.iter().enumerate())
                .filter(|&(j, _)| j != k)
                .map(|(_, g)| g.clone())
                .collect();
            Some((vars, a, Formula::new(FormulaKind::Or(rest), f.span)))
        }
        _ => None,
    }
}

/// New variables over `sorts`, numbered on from `fresh`.
pub(super) fn fresh_vars(sorts: &[crate::ids::SortId], fresh: &mut u32) -> Vec<Var> {
    sorts
        .iter()
        .map(|&sort| {
            *fresh += 1;
            Var {
                id: *fresh,
                name: std::rc::Rc::from(format!("_b{}", *fresh - FRESH_VARIABLES)),
                sort,
            }
        })
        .collect()
}

/// `P(v) <- true-and-nothing-yet`: new head variables over `sorts`, an empty conjunction.
pub(super) fn empty_rule(
    symbol: Symbol,
    sorts: &[crate::ids::SortId],
    span: crate::source::Span,
    fresh: &mut u32,
) -> Rule {
    let vars = fresh_vars(sorts, fresh);
    Rule {
        head_args: vars
            .iter()
            .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, span))
            .collect(),
        vars,
        head: symbol,
        body: Formula::new(FormulaKind::And(Vec::new()), span),
        span,
    }
}

/// `? x : phi & a = t` for the sentence `! x : P(t) => phi` and the terms `a` (a rule's head
/// variables, or the arguments of an atom of P).
fn bounding_conjunct(
    a: &[Term],
    args: &[Term],
    vars: Vec<Var>,
    phi: &Formula,
    span: crate::source::Span,
) -> Formula {
    let mut conjuncts = vec![phi.clone()];
    for (a, arg) in a.iter().zip(args) {
        conjuncts.push(Formula::new(
            FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a.clone(), arg.clone()),
            span,
        ));
    }
    let body = Formula::new(FormulaKind::And(conjuncts), span);
    if vars.is_empty() {
        body
    } else {
        Formula::new(FormulaKind::Exists(vars, Box::new(body)), span)
    }
}

/// Whether a tuple `(t, v)` of `Next`'s graph goes forward: `v > t` as integers.
fn goes_forward(tuple: &[Value]) -> bool {
    match tuple {
        [t, v] => matches!((t.as_int(), v.as_int()), (Some(t), Some(v)) if v > t),
        _ => false,
    }
}

/// Whether every loop of positive dependencies that passes from one definition to another
/// has time going forward along it: inside each strongly connected component of the defined
/// symbols' dependency graph that holds an edge between two definitions, every edge keeps or
/// advances the time argument, and the edges that keep it close no loop through such an edge.
pub fn loops_across_definitions_are_timed(
    definitions: &[&Definition],
    timeline: &Timeline,
) -> Timing {
    let mut owner: IndexMap<Symbol, usize> = IndexMap::new();
    for (k, d) in definitions.iter().enumerate() {
        for s in d.defined() {
            owner.insert(s, k);
        }
    }
    let mut edges = Vec::new();
    for d in definitions {
        for rule in &d.rules {
            rule_edges(rule, &owner, timeline, &mut edges);
        }
    }
    let crosses = |e: &Edge| owner[e.from] != owner[e.to];
    let mut succ = vec![Vec::new(); owner.len()];
    for e in &edges {
        succ[e.from].push(e.to);
    }
    let mut relies_on_next = false;
    for component in crate::graph::strongly_connected_components(&succ) {
        let inside: HashSet<usize> = component.iter().copied().collect();
        let within: Vec<&Edge> = edges
            .iter()
            .filter(|e| inside.contains(&e.from) && inside.contains(&e.to))
            .collect();
        if !within.iter().any(|e| crosses(e)) {
            continue;
        }
        if within.iter().any(|e| e.step == Step::Unknown) {
            return Timing::Unsafe;
        }
        relies_on_next |= within.iter().any(|e| e.step == Step::NextOf);
        let mut same = vec![Vec::new(); owner.len()];
        for e in within.iter().filter(|e| e.step == Step::Same) {
            same[e.from].push(e.to);
        }
        for loop_ in crate::graph::strongly_connected_components(&same) {
            let in_loop: HashSet<usize> = loop_.iter().copied().collect();
            let closes = within.iter().any(|e| {
                e.step == Step::Same
                    && crosses(e)
                    && in_loop.contains(&e.from)
                    && in_loop.contains(&e.to)
            });
            if closes {
                return Timing::Unsafe;
            }
        }
    }
    Timing::Timed { relies_on_next }
}

/// The positive dependencies of `rule` on the defined symbols (`owner`'s keys).
fn rule_edges(
    rule: &Rule,
    owner: &IndexMap<Symbol, usize>,
    timeline: &Timeline,
    edges: &mut Vec<Edge>,
) {
    let Some(to) = owner.get_index_of(&rule.head) else {
        return;
    };
    let head_time = timeline
        .time_term(rule.head, &rule.head_args)
        .map(|h| defining_term(h, &rule.body));
    let mut atoms = Vec::new();
    let mut untimed = FxHashSet::default();
    let mut reads = Reads {
        timeline,
        atoms: &mut atoms,
        untimed: &mut untimed,
    };
    reads.formula(&rule.body, true);
    for arg in &rule.head_args {
        reads.term(arg);
    }
    for (symbol, args) in atoms {
        let Some(from) = owner.get_index_of(&symbol) else {
            continue;
        };
        let body_time = timeline
            .time_term(symbol, args)
            .map(|b| defining_term(b, &rule.body));
        let step = match (head_time, body_time) {
            (Some(h), Some(b)) => timeline.step(h, b),
            _ => Step::Unknown,
        };
        edges.push(Edge { from, to, step });
    }
    for symbol in untimed {
        if let Some(from) = owner.get_index_of(&symbol) {
            edges.push(Edge {
                from,
                to,
                step: Step::Unknown,
            });
        }
    }
}

/// The term a variable stands for: the resolver writes `cell(Next(t), ..) <- body` as
/// `cell(v, ..) <- body & v = Next(t)`, and a body may read `Peg(s, h)` with `s = t - 1`
/// among its conjuncts; `t` itself for any other term.
fn defining_term<'t>(t: &'t Term, body: &'t Formula) -> &'t Term {
    let TermKind::Var(v) = t.kind() else {
        return t;
    };
    let is_v = |x: &Term| matches!(x.kind(), TermKind::Var(w) if w.id == v.id);
    let mut conjuncts = vec![body];
    while let Some(f) = conjuncts.pop() {
        match f.kind() {
            FormulaKind::And(fs) => conjuncts.extend(fs),
            FormulaKind::Exists(_, g) => conjuncts.push(g),
            FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a, b) if is_v(a) && !is_v(b) => {
                return b
            }
            FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a, b) if is_v(b) && !is_v(a) => {
                return a
            }
            _ => {}
        }
    }
    t
}

/// Where each symbol keeps its time: LTC's time argument, or in any other vocabulary each
/// symbol's first integer argument (`Peg(Time, Hole)`, `Move(Time, Hole, Hole, Hole)`). Any
/// choice is sound: a loop is only called timed when every step along it keeps or advances
/// the chosen arguments and one advances them, which no ground loop can do.
pub struct Timeline {
    /// The position of each symbol's time argument.
    time_arg: IndexMap<Symbol, usize>,
    /// LTC's `Next`, when time is LTC's.
    next: Option<FuncId>,
}

impl Timeline {
    /// LTC's timeline when `ltc` is given; otherwise the first integer argument of each
    /// symbol that `definitions` define.
    pub fn of(program: &Program, ltc: Option<&LtcInfo>, definitions: &[&Definition]) -> Timeline {
        if let Some(ltc) = ltc {
            return Timeline {
                time_arg: ltc.time_arg.clone(),
                next: Some(ltc.next),
            };
        }
        let int = program.builtin("int");
        let time_arg = definitions
            .iter()
            .flat_map(|d| d.defined())
            .filter_map(|s| {
                let args = match s {
                    Symbol::Pred(p) => &program.pred(p).args,
                    Symbol::Func(f) => &program.func(f).args,
                };
                let k = args.iter().position(|&a| program.is_subsort(a, int))?;
                Some((s, k))
            })
            .collect();
        Timeline {
            time_arg,
            next: None,
        }
    }

    /// The argument of an atom at the symbol's time position, if it has one.
    fn time_term<'t>(&self, symbol: Symbol, args: &'t [Term]) -> Option<&'t Term> {
        args.get(*self.time_arg.get(&symbol)?)
    }

    /// Whether `symbol` has a time argument.
    fn is_timed(&self, symbol: Symbol) -> bool {
        self.time_arg.contains_key(&symbol)
    }

    /// How head time `h` relates to body time `b`.
    fn step(&self, h: &Term, b: &Term) -> Step {
        if let (TermKind::Func(f, args), TermKind::Var(t)) = (h.kind(), b.kind()) {
            let next = self.next.is_some_and(|n| n == *f);
            if next
                && matches!(args.as_slice(), [x] if matches!(x.kind(), TermKind::Var(v) if v.id == t.id))
            {
                return Step::NextOf;
            }
        }
        match (offset(h), offset(b)) {
            (Some((v, k)), Some((w, j))) if v == w && k == j => Step::Same,
            (Some((v, k)), Some((w, j))) if v == w && k > j => Step::Later,
            _ => Step::Unknown,
        }
    }
}

/// A time term as a variable plus a constant: `t` is `(t, 0)`, `t + 2` is `(t, 2)`, `t - 1` is
/// `(t, -1)`.
fn offset(t: &Term) -> Option<(u32, i64)> {
    let var = |x: &Term| match x.kind() {
        TermKind::Var(v) => Some(v.id),
        _ => None,
    };
    let int = |x: &Term| match x.kind() {
        TermKind::Value(v) => v.as_int(),
        _ => None,
    };
    match t.kind() {
        TermKind::Var(v) => Some((v.id, 0)),
        TermKind::Arith(ArithOp::Add, x, k) | TermKind::Arith(ArithOp::Add, k, x)
            if var(x).is_some() && int(k).is_some() =>
        {
            Some((var(x)?, int(k)?))
        }
        TermKind::Arith(ArithOp::Sub, x, k) if var(x).is_some() && int(k).is_some() => {
            Some((var(x)?, int(k)?.checked_neg()?))
        }
        _ => None,
    }
}

/// What a rule body reads of the defined symbols: the atoms that occur positively (with
/// their arguments), the applications of functions with a time argument (`At(t)` in
/// `Adj(At(t), d, p)` or `At(t) = p`, whatever the polarity: their time is told by that
/// argument), and in `untimed` every other symbol read where its time cannot be told: inside
/// a term (an untimed function's application, an aggregate) or a comparison.
struct Reads<'r, 'f> {
    timeline: &'r Timeline,
    atoms: &'r mut Vec<(Symbol, &'f [Term])>,
    untimed: &'r mut FxHashSet<Symbol>,
}

impl<'r, 'f> Reads<'r, 'f> {
    fn formula(&mut self, f: &'f Formula, positive: bool) {
        match f.kind() {
            FormulaKind::Bool(_) => {}
            FormulaKind::Pred(p, args) => {
                if positive {
                    self.atoms.push((Symbol::Pred(*p), args));
                }
                args.iter().for_each(|a| self.term(a));
            }
            FormulaKind::Cmp(_, a, b) => {
                self.term(a);
                self.term(b);
            }
            FormulaKind::Not(g) => self.formula(g, !positive),
            FormulaKind::And(fs) | FormulaKind::Or(fs) => {
                fs.iter().for_each(|g| self.formula(g, positive));
            }
            FormulaKind::Implies(a, b) => {
                self.formula(a, !positive);
                self.formula(b, positive);
            }
            FormulaKind::Equiv(a, b) => {
                for g in [a, b] {
                    self.formula(g, true);
                    self.formula(g, false);
                }
            }
            FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => self.formula(g, positive),
        }
    }

    fn term(&mut self, t: &'f Term) {
        match t.kind() {
            TermKind::Func(f, args) => {
                let symbol = Symbol::Func(*f);
                if self.timeline.is_timed(symbol) {
                    self.atoms.push((symbol, args));
                } else {
                    self.untimed.insert(symbol);
                }
                args.iter().for_each(|a| self.term(a));
            }
            TermKind::Arith(_, a, b) => {
                self.term(a);
                self.term(b);
            }
            TermKind::Neg(a) | TermKind::Abs(a) | TermKind::Succ(_, a) | TermKind::Pred(_, a) => {
                self.term(a)
            }
            _ => crate::sema::walk::symbols(t, self.untimed),
        }
    }
}
