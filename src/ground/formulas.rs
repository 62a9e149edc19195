//! Grounding formulas: connectives short-circuit on constants, quantifiers iterate over the
//! finite domains of their variables, atoms over known symbols evaluate to `true`/`false`.

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;
use std::cell::Cell;
use std::rc::Rc;

use crate::error::{Error, IdpResult, Limit};
use crate::ground::store::{Gf, SliceKey, Store};
use crate::ground::{position_bit, Cases, GTerm, GVal, Grounder};
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Var};
use crate::sema::walk::var_ids;
use crate::structure::{Table, Value};
use crate::syntax::ast::CmpOp;

/// How many bindings a reordering must be able to skip before [`Grounder::binding_order`]
/// changes the order of a quantifier's variables.
const REORDER_FROM: f64 = 1000.0;

/// The values a quantified variable ranges over.
pub type Domain = Rc<[Value]>;

/// How far past the grounding size limit a quantifier's forecast must be to stop it: hash
/// consing makes later instances share what the first ones made (`! x y : P(x) | Q(y)` makes
/// the atoms of `Q` with the first `x` only), so a forecast may be a few times too large.
const FORECAST_MARGIN: f64 = 4.0;

/// Instances of a quantifier before its size is forecast, and between two forecasts.
const FORECAST_EVERY: usize = 32;

/// The growth of a quantifier whose instances are every binding of its variables: the nodes
/// that each window of [`FORECAST_EVERY`] instances made tell what the instances left will
/// make. Only when two windows in a row say the limit will be passed by far does it stop: a
/// window can pay once for what all instances share (an inlined definition, a function's
/// graph), which the next one does not pay again.
struct Forecast {
    /// The store's size at the start of the current window.
    window_start: usize,
    /// The instances so far.
    done: usize,
    /// The instances in all.
    total: usize,
    /// Whether the previous window forecast a grounding past the limit.
    warned: bool,
}

impl Forecast {
    /// A forecast over the product of `domains` (`None` when one is infinite, or when the
    /// product is too small to be worth one).
    fn new(start: usize, domains: &[Option<Domain>]) -> Option<Forecast> {
        let total = domains
            .iter()
            .try_fold(1usize, |n, d| n.checked_mul(d.as_ref()?.len()))?;
        (total > FORECAST_EVERY * 8).then_some(Forecast {
            window_start: start,
            done: 0,
            total,
            warned: false,
        })
    }

    /// Counts an instance; an error when two windows in a row forecast far past the limit.
    fn instance(&mut self, g: &Grounder<'_>) -> IdpResult<()> {
        self.done += 1;
        if !self.done.is_multiple_of(FORECAST_EVERY) {
            return Ok(());
        }
        let made = g.store.len().saturating_sub(self.window_start);
        self.window_start = g.store.len();
        let left = self.total - self.done;
        match g.forecast_error(made, FORECAST_EVERY, left, self.total) {
            Some(e) if self.warned => Err(e),
            Some(_) => {
                self.warned = true;
                Ok(())
            }
            None => {
                self.warned = false;
                Ok(())
            }
        }
    }
}

/// What bounds variables over infinite sorts: the formula and the truth value it must be able
/// to take for a binding to matter.
#[derive(Clone, Copy)]
pub struct Bound<'f> {
    pub formula: &'f Formula,
    pub want: bool,
}

/// A part of a quantifier's body that decides the whole instance when it grounds to the
/// constant `skip_if` (a false antecedent of a universal implication, a false conjunct of an
/// existential); checked as soon as its variables are bound, so whole sub-products of the
/// domains are skipped.
pub struct Guard<'f> {
    pub formula: &'f Formula,
    pub skip_if: Gf,
    /// Index (in the binding order) of the last variable it needs.
    pub depth: usize,
    /// Its ground form under the current binding, once its variables are bound: the body is
    /// rebuilt from these instead of being grounded a second time ([`BodyShape`]).
    pub value: Cell<Gf>,
}

/// A check of a partial binding ([`Grounder::for_each_admitted_candidate`]): the ids of the
/// variables it reads, and whether the binding can be extended.
pub struct Admit<'c, 'a> {
    pub reads: &'c [u32],
    pub check: &'c mut BindingCheck<'c, 'a>,
}

/// Whether a partial binding can be extended.
pub type BindingCheck<'c, 'a> = dyn FnMut(&mut Grounder<'a>) -> IdpResult<bool> + 'c;

/// One enumeration of bindings: the variables in binding order with their domains, what bounds
/// those over infinite sorts, the guards, and a check made at the depth it names.
struct Search<'s, 'c, 'a> {
    vars: &'s [Var],
    domains: &'s [Option<Domain>],
    bound: Option<Bound<'s>>,
    guards: &'s [Guard<'s>],
    /// The depth at which the check is made, and the check.
    admit: Option<(usize, &'c mut BindingCheck<'c, 'a>)>,
}

/// The guards of `body` under the quantifier over `vars` (in binding order): for a universal
/// (`forall`), antecedent conjuncts and consequent disjuncts; otherwise conjuncts.
fn guards<'f>(g: &mut Grounder, vars: &[Var], body: &'f Formula, forall: bool) -> Vec<Guard<'f>> {
    let mut parts: Vec<(&'f Formula, Gf)> = Vec::new();
    if forall {
        match body.kind() {
            FormulaKind::Implies(a, b) => {
                conjuncts(a, &mut |f| parts.push((f, Gf::FALSE)));
                disjuncts(b, &mut |f| parts.push((f, Gf::TRUE)));
            }
            FormulaKind::Or(_) => disjuncts(body, &mut |f| parts.push((f, Gf::TRUE))),
            _ => {}
        }
    } else {
        conjuncts(body, &mut |f| parts.push((f, Gf::FALSE)));
    }
    guards_of(g, vars, parts)
}

/// The guards `parts` (each with the constant that decides the instance) under the variables
/// `vars` (in binding order): those that read one of them.
fn guards_of<'f>(
    g: &mut Grounder,
    vars: &[Var],
    parts: impl IntoIterator<Item = (&'f Formula, Gf)>,
) -> Vec<Guard<'f>> {
    let mut out = Vec::new();
    for (f, skip_if) in parts {
        let ids = g.node_vars(f.id(), |out| var_ids(f, out));
        if let Some(depth) = vars.iter().rposition(|v| ids.binary_search(&v.id).is_ok()) {
            out.push(Guard {
                formula: f,
                skip_if,
                depth,
                value: Cell::new(Gf::TRUE),
            });
        }
    }
    out
}

/// A quantifier `! X Y : A => B` (or `? X Y : A & B`) whose variables Y occur in B only and
/// are bound after X: it is ground as `! X : A => (! Y : B)`, instance by instance in the
/// same order, so that an instance where B is false for some Y (true, for `?`) ends the
/// enumeration of Y for that X (`! or oc : do(..) => middle(.., or, oc, ..)` over 47 x 47
/// values of or and oc stops at the first pair where the known `middle` is false).
struct Split<'f> {
    /// How many of the variables (in binding order) are outer.
    outer: usize,
    /// A (the antecedent, or the one conjunct without an inner variable).
    outer_formula: &'f Formula,
    /// B (the consequent, or the conjunct with the inner variables).
    inner_formula: &'f Formula,
}

impl<'f> Split<'f> {
    fn of(g: &mut Grounder, vars: &[Var], body: &'f Formula, forall: bool) -> Option<Split<'f>> {
        let (a, b) = match (body.kind(), forall) {
            (FormulaKind::Implies(a, b), true) => (&**a, &**b),
            (FormulaKind::And(fs), false) if fs.len() == 2 => (&fs[0], &fs[1]),
            _ => return None,
        };
        let in_a = g.node_vars(a.id(), |out| var_ids(a, out));
        let outer = vars
            .iter()
            .take_while(|v| in_a.binary_search(&v.id).is_ok())
            .count();
        let inner = &vars[outer..];
        let worth: f64 = inner
            .iter()
            .map(|v| g.domains.get(v.sort).map_or(f64::MAX, |d| d.len() as f64))
            .product();
        let split = outer < vars.len()
            && inner.iter().all(|v| in_a.binary_search(&v.id).is_err())
            && worth >= SPLIT_FROM;
        split.then_some(Split {
            outer,
            outer_formula: a,
            inner_formula: b,
        })
    }

    fn outer_parts(&self) -> Vec<&'f Formula> {
        let mut parts = Vec::new();
        conjuncts(self.outer_formula, &mut |f| parts.push(f));
        parts
    }

    fn inner_parts(&self, forall: bool) -> Vec<&'f Formula> {
        let mut parts = Vec::new();
        if forall {
            disjuncts(self.inner_formula, &mut |f| parts.push(f));
        } else {
            conjuncts(self.inner_formula, &mut |f| parts.push(f));
        }
        parts
    }
}

/// Whether the new binding `order` (the first `joined` of it bound by atoms or an antecedent)
/// lets a [`Split`] end the enumeration of the variables after them, which the kept order,
/// with one of those ahead of a joined variable, does not, and they have at least
/// [`SPLIT_FROM`] bindings together.
fn unblocks_split(order: &[usize], joined: usize, domains: &[Option<Domain>]) -> bool {
    let (ahead, rest) = order.split_at(joined);
    let last_joined = ahead.iter().copied().max().unwrap_or(0);
    let blocking = rest.iter().any(|&k| k < last_joined);
    let inner: f64 = rest
        .iter()
        .map(|&k| domains[k].as_ref().map_or(f64::MAX, |d| d.len() as f64))
        .product();
    blocking && !rest.is_empty() && inner >= SPLIT_FROM
}

/// How many bindings the inner variables of a [`Split`] must have before it is used.
const SPLIT_FROM: f64 = 16.0;

/// How a quantifier's body (or a rule body) is built from the values its guards took under
/// the current binding, when every part of it is a guard: grounding the body again would give
/// the same connectives over the same ground parts (the store shares every node), so only the
/// connective's own node is built.
#[derive(Clone, Copy)]
enum BodyShape {
    /// The conjunction of the guards (a single guard is its own conjunction).
    And,
    /// The disjunction of the guards.
    Or,
    /// The first `n` guards (conjoined) imply the rest (disjoined).
    Implies(usize),
}

impl BodyShape {
    /// The shape of `body` under a universal (`forall`) or existential quantifier with these
    /// guards; `None` when some part of the body is no guard.
    fn of(body: &Formula, guards: &[Guard], forall: bool) -> Option<BodyShape> {
        let mut next = guards.iter();
        // Whether `f` is a junction (`and`: conjunction) of the next guards, or the next one.
        // A junction nested in one of its kind was flattened into the guards: its children
        // then do not match.
        let mut junction = |f: &Formula, and: bool| -> Option<usize> {
            let mut take =
                |part: &Formula| next.next().is_some_and(|g| std::ptr::eq(g.formula, part));
            match (f.kind(), and) {
                (FormulaKind::And(fs), true) | (FormulaKind::Or(fs), false) => {
                    fs.iter().all(&mut take).then_some(fs.len())
                }
                _ => take(f).then_some(1),
            }
        };
        let shape = match (body.kind(), forall) {
            (FormulaKind::Implies(a, b), true) => {
                let n = junction(a, true)?;
                junction(b, false)?;
                BodyShape::Implies(n)
            }
            (FormulaKind::Or(_), true) => {
                junction(body, false)?;
                BodyShape::Or
            }
            (_, true) => return None,
            (_, false) => {
                junction(body, true)?;
                BodyShape::And
            }
        };
        // Every guard must be a part of the body.
        next.next().is_none().then_some(shape)
    }

    fn rebuild(self, store: &mut Store, guards: &[Guard]) -> Gf {
        fn values<'g>(gs: &'g [Guard]) -> impl Iterator<Item = Gf> + 'g {
            gs.iter().map(|g| g.value.get())
        }
        match self {
            BodyShape::And => store.and(values(guards)),
            BodyShape::Or => store.or(values(guards)),
            BodyShape::Implies(n) => {
                let (a, b) = guards.split_at(n);
                let ga = store.and(values(a));
                let gb = store.or(values(b));
                store.implies(ga, gb)
            }
        }
    }
}

pub(super) fn conjuncts<'f>(f: &'f Formula, visit: &mut dyn FnMut(&'f Formula)) {
    match f.kind() {
        FormulaKind::And(fs) => fs.iter().for_each(|g| conjuncts(g, visit)),
        _ => visit(f),
    }
}

fn disjuncts<'f>(f: &'f Formula, visit: &mut dyn FnMut(&'f Formula)) {
    match f.kind() {
        FormulaKind::Or(fs) => fs.iter().for_each(|g| disjuncts(g, visit)),
        _ => visit(f),
    }
}

/// One instance of a sentence's outer universal quantifiers: the values of their variables
/// (in the order the sentence binds them) and the ground body.
#[derive(Clone, Debug)]
pub struct Instance {
    pub binding: Vec<(Var, Value)>,
    pub ground: Gf,
}

impl<'a> Grounder<'a> {
    pub fn ground_formula(&mut self, f: &Formula) -> IdpResult<Gf> {
        match f.kind() {
            FormulaKind::Bool(b) => Ok(Gf::from_bool(*b)),
            FormulaKind::Pred(p, args) => self.ground_pred(*p, args),
            FormulaKind::Cmp(op, a, b) => {
                if self.mentions_integer_variable(a) || self.mentions_integer_variable(b) {
                    return self.ground_integer_comparison(*op, a, b);
                }
                let agg_left = self.aggregates_over_defining(a);
                if !agg_left && !self.aggregates_over_defining(b) {
                    return self.ground_comparison(*op, a, b);
                }
                let (agg, other) = if agg_left { (a, b) } else { (b, a) };
                self.memoised(f, |g| {
                    match g.ground_bounded_comparison(*op, agg, other, agg_left)? {
                        Some(bounded) => Ok(bounded),
                        None => g.ground_comparison(*op, a, b),
                    }
                })
            }
            FormulaKind::Not(g) => Ok(-self.ground_flipped(g)?),
            FormulaKind::And(fs) => self.ground_junction(fs, true),
            FormulaKind::Or(fs) => self.ground_junction(fs, false),
            FormulaKind::Implies(a, b) => {
                let ga = self.ground_flipped(a)?;
                if ga == Gf::FALSE {
                    return Ok(Gf::TRUE);
                }
                let gb = self.ground_formula(b)?;
                Ok(self.store.implies(ga, gb))
            }
            FormulaKind::Equiv(a, b) => {
                let polarity = self.polarity.take();
                let grounded = self
                    .ground_formula(a)
                    .and_then(|ga| Ok((ga, self.ground_formula(b)?)));
                self.polarity = polarity;
                let (ga, gb) = grounded?;
                Ok(self.store.equiv(ga, gb))
            }
            FormulaKind::Forall(vars, body) => {
                self.memoised(f, |g| g.ground_quantifier(vars, body, true))
            }
            FormulaKind::Exists(vars, body) => {
                self.memoised(f, |g| g.ground_quantifier(vars, body, false))
            }
        }
    }

    /// `f` ground in the opposite polarity (under a negation, as an implication's antecedent).
    fn ground_flipped(&mut self, f: &Formula) -> IdpResult<Gf> {
        let polarity = self.polarity;
        self.polarity = polarity.map(|p| !p);
        let grounded = self.ground_formula(f);
        self.polarity = polarity;
        grounded
    }

    /// The instances of `f`'s outer universal quantifiers (`! x y : body` gives one per
    /// binding of x and y under which the body is not simply true); a sentence without them is
    /// one instance. Each instance stands alone: no units are learnt (for explanations, where
    /// any instance may be left out).
    pub fn ground_instances(&mut self, f: &Formula) -> IdpResult<Vec<Instance>> {
        let mut order = Vec::new();
        let mut body = f;
        while let FormulaKind::Forall(vs, inner) = body.kind() {
            order.extend(vs.iter().cloned());
            body = inner;
        }
        if order.is_empty() {
            let ground = self.ground_formula(f)?;
            return Ok(vec![Instance {
                binding: Vec::new(),
                ground,
            }]);
        }
        let (vars, domains) = self.binding_order(&order, body, true)?;
        let bound = Bound {
            formula: body,
            want: false,
        };
        let guards = guards(self, &vars, body, true);
        let mut out = Vec::new();
        self.for_each_guarded(&vars, &domains, Some(bound), &guards, &mut |g| {
            let ground = g.ground_formula(body)?;
            if ground != Gf::TRUE {
                let binding = order
                    .iter()
                    .filter_map(|v| Some((v.clone(), g.lookup(v)?)))
                    .collect();
                out.push(Instance { binding, ground });
            }
            Ok(false)
        })?;
        for v in &vars {
            self.unbind(v);
        }
        self.check_growth()?;
        Ok(out)
    }

    /// Grounds a quantified subformula once per binding of its free variables: a quantifier
    /// nested in another one that does not depend on the outer variable is grounded once.
    fn memoised(
        &mut self,
        f: &Formula,
        ground: impl FnOnce(&mut Self) -> IdpResult<Gf>,
    ) -> IdpResult<Gf> {
        let ids = self.node_vars(f.id(), |out| var_ids(f, out));
        let mut values = std::mem::take(&mut self.memo_values);
        values.clear();
        values.extend(self.values_of(&ids));
        if let Some(&g) = self.memo.formulas.get(&SliceKey(f.id(), &values)) {
            self.memo_values = values;
            return Ok(g);
        }
        // Grounding may memoise nested nodes: the buffer becomes the key.
        let g = ground(self)?;
        self.memo.formulas.insert((f.id(), values), g);
        Ok(g)
    }

    /// `a op b`. Its ground form splits on the cases of the terms' values (for an aggregate:
    /// of its set's elements), which are exhaustive, so `c | ~c` among them is folded even in
    /// a rule body: the comparison of an aggregate over defined atoms is true when it holds in
    /// every completion of them, not only when Kleene's logic says so.
    fn ground_comparison(
        &mut self,
        op: CmpOp,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Gf> {
        let saved = std::mem::replace(&mut self.store.keep_complements, false);
        let ground = self.ground_comparison_cases(op, a, b);
        self.store.keep_complements = saved;
        ground
    }

    /// `a op b`; a cardinality (or a sum, when its values are not negative, also divided by a
    /// positive number: `sum{{..}}/2 >= k()`) compared with a term of finitely many integer
    /// values is counted only up to the first total beyond them all: every larger total
    /// compares the same.
    fn ground_comparison_cases(
        &mut self,
        op: CmpOp,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Gf> {
        use crate::sema::ir::TermKind;
        use crate::syntax::ast::ArithOp;
        let capped = capped_aggregate;
        if let (Some((agg, d)), None) | (None, Some((agg, d))) = (capped(a), capped(b)) {
            let other = if capped(a).is_some() { b } else { a };
            let go = self.ground_term(other)?;
            let ints: Option<Vec<i64>> =
                go.0.iter()
                    .map(|(_, v)| match v {
                        GVal::V(Value::Int(c)) => Some(*c),
                        _ => None,
                    })
                    .collect();
            if let Some(c) = ints.and_then(|cs| cs.into_iter().max()) {
                let TermKind::Aggregate(kind, sets) = agg.kind() else {
                    unreachable!()
                };
                if let (1, Some(GVal::V(Value::Int(c)))) = (d, go.as_known()) {
                    let op = if capped(a).is_some() {
                        op
                    } else {
                        op.mirrored()
                    };
                    if let Some(g) = self.aggregate_threshold(agg, *kind, sets, op, c)? {
                        return Ok(g);
                    }
                }
                let cap = Some(c.saturating_mul(d).saturating_add(1).max(0));
                let mut gagg = self.ground_aggregate(agg.id(), *kind, sets, cap)?;
                if d != 1 {
                    let divisor = GTerm::known(Value::Int(d));
                    gagg = self.combine(&gagg, &divisor, |x, y| {
                        crate::ground::terms::arith(ArithOp::Div, x, y)
                    });
                }
                return Ok(if capped(a).is_some() {
                    self.compare(op, &gagg, &go)
                } else {
                    self.compare(op, &go, &gagg)
                });
            }
        }
        if let Some(g) = self.application_equals(op, a, b)? {
            return Ok(g);
        }
        if let Some(g) = self.aggregates_equal(op, a, b)? {
            return Ok(g);
        }
        let (ga, gb) = (self.ground_term(a)?, self.ground_term(b)?);
        Ok(self.compare(op, &ga, &gb))
    }

    /// `aggregate op c` for an order comparison with a known `c`, as the threshold
    /// `aggregate >= k` or its negation (see `ground_at_least`); `None` for `=` and `~=`, or
    /// when the aggregate has a value that is negative or not an integer.
    fn aggregate_threshold(
        &mut self,
        agg: &crate::sema::ir::Term,
        kind: crate::syntax::ast::AggKind,
        sets: &[crate::sema::ir::SetExpr],
        op: CmpOp,
        c: i64,
    ) -> IdpResult<Option<Gf>> {
        let (k, negated) = match op {
            CmpOp::Ge => (c, false),
            CmpOp::Gt => (c.saturating_add(1), false),
            CmpOp::Lt => (c, true),
            CmpOp::Le => (c.saturating_add(1), true),
            CmpOp::Eq | CmpOp::Ne => return self.exactly_one(agg, kind, sets, op, c),
        };
        let g = self.ground_at_least(agg.id(), kind, sets, k)?;
        Ok(g.map(|g| if negated { -g } else { g }))
    }

    /// `a = b` (or `a ~= b`) for two counts or sums of non-negative integers, as "each
    /// reaches every threshold exactly when the other does" (see `equal_totals`). `None`
    /// for other comparisons.
    fn aggregates_equal(
        &mut self,
        op: CmpOp,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Option<Gf>> {
        use crate::sema::ir::TermKind;
        use crate::syntax::ast::AggKind;
        let (base, negated) = op.positive_form();
        let (
            TermKind::Aggregate(ka @ (AggKind::Card | AggKind::Sum), sa),
            TermKind::Aggregate(kb @ (AggKind::Card | AggKind::Sum), sb),
        ) = (a.kind(), b.kind())
        else {
            return Ok(None);
        };
        if base != CmpOp::Eq {
            return Ok(None);
        }
        let equal = self.equal_totals(*ka, sa, *kb, sb)?;
        Ok(equal.map(|g| if negated { -g } else { g }))
    }

    /// `aggregate = 1` (or `~= 1`) for a count of a few elements, as "at least one and no
    /// two" when the pairs are how "at least two" is built (see `some_pair`): clauses over
    /// the elements' guards instead of a diagram of exact counts. `None` otherwise.
    fn exactly_one(
        &mut self,
        agg: &crate::sema::ir::Term,
        kind: crate::syntax::ast::AggKind,
        sets: &[crate::sema::ir::SetExpr],
        op: CmpOp,
        c: i64,
    ) -> IdpResult<Option<Gf>> {
        if c != 1 || kind != crate::syntax::ast::AggKind::Card {
            return Ok(None);
        }
        let Some(two) = self.ground_at_least(agg.id(), kind, sets, 2)? else {
            return Ok(None);
        };
        if !self.is_pairwise(two) {
            return Ok(None);
        }
        let Some(one) = self.ground_at_least(agg.id(), kind, sets, 1)? else {
            return Ok(None);
        };
        let exactly = self.store.and2(one, -two);
        Ok(Some(if op == CmpOp::Ne { -exactly } else { exactly }))
    }

    /// `f(args) = v` or `f(args) ~= v` (either way round) with `v` known: the guard of the
    /// application's case for `v`, found in its memoised cases instead of comparing every case
    /// of `f(args)` with `v` (`At(t) = p` for every p would cost the range of `At` squared).
    /// `None` when the comparison has another form.
    fn application_equals(
        &mut self,
        op: CmpOp,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Option<Gf>> {
        let (base, negated) = op.positive_form();
        if base != CmpOp::Eq {
            return Ok(None);
        }
        // One application on both sides (`f(x) ~= f(y)` where `x` and `y` are bound to one
        // value): a total function equals itself.
        if self.is_total_application(a) && self.is_total_application(b) {
            if let (Some(ca), Some(cb)) = (self.shared_application(a)?, self.shared_application(b)?)
            {
                if !ca.is_empty() && *ca == *cb {
                    return Ok(Some(Gf::from_bool(!negated)));
                }
            }
        }
        for (app, other) in [(a, b), (b, a)] {
            let Some(cases) = self.shared_application(app)? else {
                continue;
            };
            let Some(GVal::V(v)) = self.ground_term(other)?.as_known() else {
                return Ok(None);
            };
            let g = cases.guard_of(v).unwrap_or(Gf::FALSE);
            return Ok(Some(if negated { -g } else { g }));
        }
        Ok(None)
    }

    fn ground_pred(
        &mut self,
        p: crate::ids::PredId,
        args: &[crate::sema::ir::Term],
    ) -> IdpResult<Gf> {
        // Most atoms have bound variables and domain elements for arguments: their tuple is
        // read straight into a reused buffer, without the case analysis below.
        let mut tuple = std::mem::take(&mut self.tuple);
        let simple = self.simple_args(args, &mut tuple);
        let atom = simple.then(|| self.pred_atom(p, &tuple));
        self.tuple = tuple;
        if let Some(atom) = atom {
            return atom;
        }
        let type_of = self.program.pred(p).type_of;
        let symbol = Symbol::Pred(p);
        // An atom of a symbol whose true tuples are all known (a two-valued table, or a defined
        // symbol with its possibly true tuples) with one argument an unknown function's
        // application (`Adj(At(t), d, p)`, `KeyAt(t, At(t), k)`): the symbol's index gives the
        // values of that argument that can make the atom true, and only their cases are kept.
        // Splitting the atom into one case per value of `At(t)` costs the function's range for
        // every atom, so a quantifier over p would cost |range|^2.
        let table_atom = type_of.is_none()
            && !self.is_inlined(symbol)
            && self.lazy_procedure(symbol).is_none()
            && self.indexable(symbol);
        let mut grounded = Vec::with_capacity(args.len());
        let mut shared: Option<(usize, Cases)> = None;
        for (k, a) in args.iter().enumerate() {
            if table_atom && shared.is_none() {
                if let Some(cases) = self.shared_application(a)? {
                    if cases.len() > 1 {
                        shared = Some((k, cases));
                        grounded.push(GTerm::undefined());
                        continue;
                    }
                    grounded.push(match &cases[..] {
                        [(Gf::TRUE, v)] => GTerm::known(*v),
                        options => GTerm(options.iter().map(|(g, v)| (*g, GVal::V(*v))).collect()),
                    });
                    continue;
                }
            }
            grounded.push(self.ground_term(a)?);
        }
        if table_atom && shared.is_none() {
            shared = single_open_argument(&grounded);
        }
        if let Some((k, cases)) = shared {
            if self.polarity == Some(true) && self.is_total_application(&args[k]) {
                if let Some(g) = self.asserted_atom(p, k, &cases, &grounded)? {
                    return Ok(g);
                }
            }
            if let Some(key) = known_except(&grounded, k) {
                return self.indexed_atom(p, k, key, &cases);
            }
            grounded[k] = GTerm(cases.iter().map(|(g, v)| (*g, GVal::V(*v))).collect());
        }
        let cases = self.argument_cases(grounded);
        let mut out = Vec::with_capacity(cases.len());
        for (guard, tuple) in cases {
            let atom = self.pred_atom(p, &tuple)?;
            out.push(self.store.and2(guard, atom));
        }
        Ok(self.store.or(out))
    }

    /// The asserted atom `p(args)` of an indexable symbol whose argument `k` is an application
    /// of a total function with `cases`, when another argument is also open
    /// (`Next(Player(t), d, Player(u))`): the conjunction, over the cases, of "not this case, or
    /// the atom with this value". A total function takes exactly one of its cases' values, so
    /// this is the disjunction of "this case and the atom" that the atom is otherwise, but an
    /// asserted conjunction of disjunctions is clauses (`Player(t) = 3 => Player(u) = 4`),
    /// where the disjunction of conjunctions needs a variable for each pair of values. `None`
    /// when no other argument is open.
    fn asserted_atom(
        &mut self,
        p: crate::ids::PredId,
        k: usize,
        cases: &Cases,
        grounded: &[GTerm],
    ) -> IdpResult<Option<Gf>> {
        let mut rest = grounded.to_vec();
        rest[k] = GTerm::known(Value::Int(0));
        let Some((j, other)) = single_open_argument(&rest) else {
            return Ok(None);
        };
        let Some(mut key) = known_except(&rest, j) else {
            return Ok(None);
        };
        // `key` lists the arguments other than j in order; k's place in it:
        let at = if k < j { k } else { k - 1 };
        let mut out = Vec::with_capacity(cases.len());
        let mut possible = false;
        for &(guard, v) in cases.iter() {
            key[at] = v;
            let atom = self.indexed_atom(p, j, key.clone(), &other)?;
            possible |= atom != Gf::FALSE;
            out.push(self.store.or2(-guard, atom));
        }
        // No value of argument k makes the atom possible: it is false (as the disjunction
        // would say at once; the conjunction would need the function's constraint to say it).
        if !possible {
            return Ok(Some(Gf::FALSE));
        }
        Ok(Some(self.store.and(out)))
    }

    /// Whether `t` applies a function that is not partial (its cases cover every model).
    fn is_total_application(&self, t: &crate::sema::ir::Term) -> bool {
        matches!(t.kind(), crate::sema::ir::TermKind::Func(f, _) if !self.program.func(*f).partial)
    }

    /// The atom `p(args)` of an indexable symbol whose argument `k` takes the values of
    /// `cases` and whose other arguments are `known`: the disjunction, over the values that
    /// the symbol's index pairs with the known ones, of the value's case and the atom.
    fn indexed_atom(
        &mut self,
        p: crate::ids::PredId,
        k: usize,
        known: Vec<Value>,
        cases: &Cases,
    ) -> IdpResult<Gf> {
        let symbol = Symbol::Pred(p);
        let all = position_bit(known.len() + 1) - 1;
        let index = self.table_index_at(symbol, k, all & !position_bit(k));
        let Some(values) = index.get(&known) else {
            return Ok(Gf::FALSE);
        };
        let two_valued = matches!(self.structure.table(symbol), Some(Table::TwoValued(_)))
            && !self.status.forced_unknown.contains(&symbol);
        let mut out = Vec::new();
        let mut tuple = known;
        tuple.insert(k, Value::Int(0));
        for &v in values.iter() {
            let Some(guard) = cases.guard_of(v) else {
                continue;
            };
            if two_valued {
                // Every tuple of a two-valued table's index is true.
                out.push(guard);
                continue;
            }
            tuple[k] = v;
            let atom = self.pred_atom(p, &tuple)?;
            out.push(self.store.and2(guard, atom));
        }
        Ok(self.store.or(out))
    }

    /// The ground formula of the atom `p(tuple)`: a sort's membership, an inlined definition's
    /// expansion, or the atom (a constant when the structure knows it).
    fn pred_atom(&mut self, p: crate::ids::PredId, tuple: &[Value]) -> IdpResult<Gf> {
        let pred = self.program.pred(p);
        let symbol = Symbol::Pred(p);
        Ok(match pred.type_of {
            Some(s) => Gf::from_bool(self.domains.contains(s, tuple[0])),
            None if self.is_inlined(symbol) => {
                if self.well_sorted(&pred.args, tuple) {
                    self.inlined_atom(symbol, tuple.to_vec())?
                } else {
                    Gf::FALSE
                }
            }
            None => self.atom(symbol, tuple),
        })
    }

    /// A conjunction (`and = true`) or disjunction, stopping at the first absorbing constant.
    fn ground_junction(&mut self, fs: &[Formula], and: bool) -> IdpResult<Gf> {
        let absorbing = Gf::from_bool(!and);
        let mut parts = Vec::with_capacity(fs.len());
        for f in fs {
            let g = self.ground_formula(f)?;
            if g == absorbing {
                return Ok(absorbing);
            }
            parts.push(g);
        }
        Ok(if and {
            self.store.and(parts)
        } else {
            self.store.or(parts)
        })
    }

    /// `!vars: body` (`forall`) or `?vars: body`, over the cartesian product of the domains.
    pub(crate) fn ground_quantifier(
        &mut self,
        vars: &[Var],
        body: &Formula,
        forall: bool,
    ) -> IdpResult<Gf> {
        let (vars, domains) = self.binding_order(vars, body, forall)?;
        if let Some(split) = Split::of(self, &vars, body, forall) {
            return self.ground_split(&vars, &domains, &split, forall);
        }
        let absorbing = Gf::from_bool(!forall);
        let mut parts = Vec::new();
        let bound = Bound {
            formula: body,
            want: !forall,
        };
        let guards = guards(self, &vars, body, forall);
        let shape = BodyShape::of(body, &guards, forall);
        // Without guards every binding is an instance: how many is known, and the first ones
        // tell how large the quantifier will grow.
        let mut forecast = guards
            .is_empty()
            .then(|| Forecast::new(self.store.len(), &domains))
            .flatten();
        let stopped = self.for_each_guarded(
            &vars,
            &domains,
            Some(bound),
            &guards,
            &mut |g: &mut Grounder<'a>| {
                if let Some(forecast) = forecast.as_mut() {
                    forecast.instance(g)?;
                }
                let b = match shape {
                    Some(shape) => shape.rebuild(&mut g.store, &guards),
                    None => g.ground_formula(body)?,
                };
                if b == absorbing {
                    return Ok(true);
                }
                if b != -absorbing {
                    parts.push(if forall { b } else { -b });
                }
                Ok(false)
            },
        )?;
        self.finish_quantifier(&vars, stopped, parts, forall)
    }

    /// The error for a quantifier of `total` instances whose last `window` instances made
    /// `made` nodes, when `left` more like them would take the store past the grounding size
    /// limit by far (`None` when it may fit): so that a runaway quantifier stops before its
    /// nodes fill the memory.
    fn forecast_error(
        &self,
        made: usize,
        window: usize,
        left: usize,
        total: usize,
    ) -> Option<Error> {
        let per_instance = made as f64 / window as f64;
        let expected = self.store.len() as f64 + per_instance * left as f64;
        let max = self.growth.max_size;
        if expected < FORECAST_MARGIN * max as f64 {
            return None;
        }
        Some(Error::limit(
            Limit::GroundSize,
            format!(
                "The grounding would grow past {max} nodes (the grounding size limit): a \
                 quantifier has {total} instances, each making about {per_instance:.0} \
                 nodes (about {:.0} million in all). Make the domains smaller, bound the \
                 quantifiers, or raise the limit with --max-ground-size.",
                expected / 1e6
            ),
        ))
    }

    /// [`Self::ground_quantifier`] for a [`Split`] body: per binding of the outer variables,
    /// the inner ones are enumerated until an instance reduces to the outer part alone, which
    /// absorbs the instances that follow (`~A & (~A | B) = ~A`). The instances kept are those
    /// of the flat enumeration, in its order, without the absorbed ones.
    fn ground_split(
        &mut self,
        vars: &[Var],
        domains: &[Option<Domain>],
        split: &Split,
        forall: bool,
    ) -> IdpResult<Gf> {
        let absorbing = Gf::from_bool(!forall);
        let (outer, inner) = vars.split_at(split.outer);
        let (outer_domains, inner_domains) = domains.split_at(split.outer);
        let outer_parts = split.outer_parts();
        let every_part_guards = outer_parts.len();
        let outer_guards = guards_of(self, outer, outer_parts.into_iter().map(|f| (f, Gf::FALSE)));
        let every_part_guards = outer_guards.len() == every_part_guards;
        let inner_parts = split.inner_parts(forall).into_iter();
        let inner_guards = guards_of(self, inner, inner_parts.map(|f| (f, -absorbing)));
        let outer_bound = Bound {
            formula: split.outer_formula,
            want: true,
        };
        let inner_bound = Bound {
            formula: split.inner_formula,
            want: !forall,
        };
        let mut parts = Vec::new();
        let stopped = self.for_each_guarded(
            outer,
            outer_domains,
            Some(outer_bound),
            &outer_guards,
            &mut |g: &mut Grounder<'a>| {
                let a = if every_part_guards {
                    g.store
                        .and(outer_guards.iter().map(|guard| guard.value.get()))
                } else {
                    g.ground_formula(split.outer_formula)?
                };
                let mut absorbed = false;
                let stopped = g.for_each_guarded(
                    inner,
                    inner_domains,
                    Some(inner_bound),
                    &inner_guards,
                    &mut |g: &mut Grounder<'a>| {
                        let b = g.ground_formula(split.inner_formula)?;
                        // The instance `a => b` (universal) or `a & b` (existential).
                        let instance = if forall {
                            g.store.implies(a, b)
                        } else {
                            g.store.and2(a, b)
                        };
                        if instance == absorbing {
                            return Ok(true);
                        }
                        if instance != -absorbing {
                            parts.push(if forall { instance } else { -instance });
                            // The outer part alone absorbs what follows.
                            absorbed = b == absorbing;
                        }
                        Ok(absorbed)
                    },
                )?;
                for v in inner {
                    g.unbind(v);
                }
                Ok(stopped && !absorbed)
            },
        )?;
        self.finish_quantifier(vars, stopped, parts, forall)
    }

    /// The ground quantifier from the instances it kept (`parts`, negated for `?`): the
    /// absorbing constant when the enumeration `stopped` on one; its variables unbound.
    fn finish_quantifier(
        &mut self,
        vars: &[Var],
        stopped: bool,
        parts: Vec<Gf>,
        forall: bool,
    ) -> IdpResult<Gf> {
        for v in vars {
            self.unbind(v);
        }
        if stopped {
            return Ok(Gf::from_bool(!forall));
        }
        self.check_growth()?;
        let conj = self.store.and(parts);
        Ok(if forall { conj } else { -conj })
    }

    /// The variables with finite domains first (with their domains), then those over infinite
    /// sorts (`None`), whose values are bounded by the formula when they are reached.
    pub fn prepare_vars(&mut self, vars: &[Var]) -> IdpResult<(Vec<Var>, Vec<Option<Domain>>)> {
        let mut finite = Vec::new();
        let mut infinite = Vec::new();
        for v in vars {
            match self.domains.get(v.sort) {
                Some(d) => finite.push((v.clone(), Some(d))),
                None if self.sort_is_infinite(v.sort) => infinite.push((v.clone(), None)),
                None => return self.domain(v.sort).map(|_| (Vec::new(), Vec::new())),
            }
        }
        finite.extend(infinite);
        Ok(finite.into_iter().unzip())
    }

    /// [`Self::prepare_vars`], with the finite variables that an atom which must hold binds
    /// by a join (see [`Self::table_candidates`]) moved first, the atoms with the fewest
    /// tuples first, then the other variables of an antecedent: `! sr sc or oc dr :
    /// do(jump(sr, sc, dr)) => .. middle(sr, sc, or, oc)` binds sr, sc and dr from `do`'s few
    /// possible tuples before it enumerates or and oc.
    /// The order is kept when the variables passed over have fewer than [`REORDER_FROM`]
    /// bindings together and the kept order splits the quantifier as well (little to gain
    /// there): `! count1 x count2 : do(x) => count_val(x, count1) & ..` is reordered, so that
    /// count1 and count2 come last and a false consequent ends their enumeration.
    fn binding_order(
        &mut self,
        vars: &[Var],
        body: &Formula,
        forall: bool,
    ) -> IdpResult<(Vec<Var>, Vec<Option<Domain>>)> {
        let (vars, domains) = self.prepare_vars(vars)?;
        let finite = domains.iter().take_while(|d| d.is_some()).count();
        if finite < 2 {
            return Ok((vars, domains));
        }
        let mut atoms: Vec<(usize, &Formula)> = Vec::new();
        let mut collect = |f| atoms.push((0, f));
        let mut antecedent = None;
        match (body.kind(), forall) {
            (FormulaKind::Implies(a, _), true) => {
                conjuncts(a, &mut collect);
                antecedent = Some(&**a);
            }
            (_, true) => {}
            (_, false) => conjuncts(body, &mut collect),
        }
        atoms.retain_mut(|(size, f)| match f.kind() {
            FormulaKind::Pred(p, _) => match self.bound_size(Symbol::Pred(*p)) {
                Some(n) if self.program.pred(*p).type_of.is_none() => {
                    *size = n;
                    true
                }
                _ => false,
            },
            _ => false,
        });
        atoms.sort_by_key(|(size, _)| *size);
        let mut order: Vec<usize> = Vec::with_capacity(finite);
        for (_, atom) in &atoms {
            let mut ids = rustc_hash::FxHashSet::default();
            var_ids(*atom, &mut ids);
            for (k, v) in vars[..finite].iter().enumerate() {
                if ids.contains(&v.id) && !order.contains(&k) {
                    order.push(k);
                }
            }
        }
        // Then the antecedent's other variables: those of the consequent alone come last,
        // where a false consequent ends their enumeration (see [`Split`]).
        if let Some(a) = antecedent {
            let ids = self.node_vars(a.id(), |out| var_ids(a, out));
            for (k, v) in vars[..finite].iter().enumerate() {
                if ids.binary_search(&v.id).is_ok() && !order.contains(&k) {
                    order.push(k);
                }
            }
        }
        let joined = order.len();
        let rest: Vec<usize> = (0..finite).filter(|k| !order.contains(k)).collect();
        order.extend(rest);
        // The bindings of the variables that the new order moves a joined one ahead of.
        let passed_over: f64 = order[..joined]
            .iter()
            .map(|&k| {
                (0..k)
                    .filter(|j| !order[..joined].contains(j))
                    .map(|j| domains[j].as_ref().map_or(1, |d| d.len()) as f64)
                    .product::<f64>()
            })
            .fold(1.0, f64::max);
        if passed_over < REORDER_FROM && !unblocks_split(&order, joined, &domains) {
            return Ok((vars, domains));
        }
        order.extend(finite..vars.len());
        Ok(order
            .into_iter()
            .map(|k| (vars[k].clone(), domains[k].clone()))
            .unzip())
    }

    /// How many tuples of `s` can be true, when an index of them can give candidates.
    pub(super) fn bound_size(&self, s: Symbol) -> Option<usize> {
        if let Some(possible) = self.status.possible.get(&s) {
            return Some(possible.len());
        }
        match self.structure.table(s) {
            Some(Table::TwoValued(set)) if self.indexable(s) => Some(set.len()),
            _ => None,
        }
    }

    fn sort_is_infinite(&self, s: crate::ids::SortId) -> bool {
        let sort = self.program.sort(s);
        sort.builtin.is_some() || sort.constructed
    }

    /// Calls `visit` for every binding of `vars` under which `cond` may be true: variables over
    /// infinite sorts are bounded by `cond`, and conjuncts of `cond` prune partial bindings.
    /// `visit` gets the ground form of `cond` when its conjuncts give it (see
    /// [`Self::condition`]). The variables are unbound afterwards.
    pub fn for_each_candidate(
        &mut self,
        vars: &[Var],
        cond: &Formula,
        visit: &mut dyn FnMut(&mut Grounder<'a>, Option<Gf>) -> IdpResult<bool>,
    ) -> IdpResult<bool> {
        self.for_each_admitted_candidate(vars, cond, None, visit)
    }

    /// [`Self::for_each_candidate`], where `admit` (when given) rejects a partial binding as
    /// soon as the variables it reads (by id) are bound: a rule head that cannot be true is
    /// rejected before the body is grounded.
    pub fn for_each_admitted_candidate(
        &mut self,
        vars: &[Var],
        cond: &Formula,
        admit: Option<Admit<'_, 'a>>,
        visit: &mut dyn FnMut(&mut Grounder<'a>, Option<Gf>) -> IdpResult<bool>,
    ) -> IdpResult<bool> {
        let (vars, domains) = self.binding_order(vars, cond, false)?;
        let bound = Bound {
            formula: cond,
            want: true,
        };
        let guards = guards(self, &vars, cond, false);
        let admit = match admit {
            // No variable to bind: the check comes first.
            Some(a) if vars.is_empty() => {
                if !(a.check)(self)? {
                    return Ok(false);
                }
                None
            }
            Some(a) => {
                let depth = vars.iter().rposition(|v| a.reads.contains(&v.id));
                Some((depth.unwrap_or(0), a.check))
            }
            None => None,
        };
        let mut search = Search {
            vars: &vars,
            domains: &domains,
            bound: Some(bound),
            guards: &guards,
            admit,
        };
        let shape = BodyShape::of(cond, &guards, false);
        let stopped = self.bind_from(0, &mut search, &mut |g| {
            let known = shape.map(|shape| shape.rebuild(&mut g.store, &guards));
            visit(g, known)
        })?;
        for v in &vars {
            self.unbind(v);
        }
        Ok(stopped)
    }

    /// The ground form of a condition that [`Self::for_each_candidate`] passed on (`known`), or
    /// grounded now.
    pub fn condition(&mut self, known: Option<Gf>, cond: &Formula) -> IdpResult<Gf> {
        match known {
            Some(g) => Ok(g),
            None => {
                // A set's condition is neither asserted nor denied.
                let polarity = self.polarity.take();
                let grounded = self.ground_formula(cond);
                self.polarity = polarity;
                grounded
            }
        }
    }

    /// Calls `visit` for every binding of `vars`, skipping every extension of a partial binding
    /// under which a guard grounds to its deciding constant; stops early (returning `true`)
    /// when `visit` returns `true`. A variable without a domain takes the candidate values that
    /// `bound` allows under the bindings made so far.
    pub fn for_each_guarded(
        &mut self,
        vars: &[Var],
        domains: &[Option<Rc<[Value]>>],
        bound: Option<Bound>,
        guards: &[Guard],
        visit: &mut dyn FnMut(&mut Grounder<'a>) -> IdpResult<bool>,
    ) -> IdpResult<bool> {
        let mut search = Search {
            vars,
            domains,
            bound,
            guards,
            admit: None,
        };
        self.bind_from(0, &mut search, visit)
    }

    fn bind_from(
        &mut self,
        depth: usize,
        search: &mut Search<'_, '_, 'a>,
        visit: &mut dyn FnMut(&mut Grounder<'a>) -> IdpResult<bool>,
    ) -> IdpResult<bool> {
        let Some(var) = search.vars.get(depth) else {
            return visit(self);
        };
        if let Some((width, rows)) = self.scan_rows(search.vars, depth, search.guards) {
            let vars = search.vars;
            return self.bind_rows(&vars[depth..depth + width], &rows, |g| {
                for d in depth..depth + width {
                    if !g.passes_checks(d, search)? {
                        return Ok(false);
                    }
                }
                g.bind_from(depth + width, search, visit)
            });
        }
        let domain = &search.domains[depth];
        let scan = domain.as_ref().map(|d| d.len());
        let dom = match (
            self.table_candidates(var, depth, search.guards, scan)?,
            domain,
        ) {
            (Some(c), _) => c,
            (None, Some(d)) => d.clone(),
            (None, None) => self.bounded_domain(var, search.bound)?,
        };
        for &v in dom.iter() {
            self.step()?;
            self.bind(var, v);
            if !self.passes_checks(depth, search)? {
                continue;
            }
            if self.bind_from(depth + 1, search, visit)? {
                self.unbind(var);
                return Ok(true);
            }
        }
        // Later variables must not look bound to a value left from this loop.
        self.unbind(var);
        Ok(false)
    }

    /// The check of a partial binding made at `depth` and the guards of that depth: whether
    /// the binding can be extended (each guard's value is kept for [`BodyShape`]).
    fn passes_checks(&mut self, depth: usize, search: &mut Search<'_, '_, 'a>) -> IdpResult<bool> {
        if let Some((at, check)) = &mut search.admit {
            if *at == depth && !check(self)? {
                return Ok(false);
            }
        }
        for guard in search.guards.iter().filter(|g| g.depth == depth) {
            let value = self.ground_formula(guard.formula)?;
            guard.value.set(value);
            if value == guard.skip_if {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// When a guard that must hold is an atom of a two-valued predicate with `var` as an
    /// argument, only the values in the predicate's table (matching the arguments bound so
    /// far) can satisfy it: a join instead of a scan of the whole domain (of `scan` values,
    /// when it is finite).
    fn table_candidates(
        &mut self,
        var: &Var,
        depth: usize,
        guards: &[Guard],
        scan: Option<usize>,
    ) -> IdpResult<Option<Rc<[Value]>>> {
        let mut best: Option<Rc<[Value]>> = None;
        for guard in guards
            .iter()
            .filter(|g| g.skip_if == Gf::FALSE && g.depth >= depth)
        {
            let found = match guard.formula.kind() {
                FormulaKind::Pred(p, args) => self.atom_candidates(var, *p, args, scan)?,
                FormulaKind::Cmp(CmpOp::Eq, a, b) => match self.equal_candidates(var, a, b)? {
                    Some(value) => Some(value),
                    None => self.inverse_candidates(var, a, b)?,
                },
                _ => None,
            };
            if let Some(found) = found {
                if best.as_ref().is_none_or(|b| found.len() < b.len()) {
                    best = Some(found);
                }
            }
        }
        Ok(best.map(|values| {
            let kept: Vec<Value> = values
                .iter()
                .copied()
                .filter(|v| self.domains.contains(var.sort, *v))
                .collect();
            Rc::from(kept)
        }))
    }

    /// Values of `var` for which the atom `p(args)` can be true: from the predicate's
    /// two-valued table, or from the rule heads of a completely grounded definition. One
    /// argument may be an application with several cases (`At(t)` in `Adj(At(t), d, p)`): the
    /// candidates are then joined through each of its values, when there are fewer of those
    /// than the `scan` of the variable's domain that the join replaces.
    fn atom_candidates(
        &mut self,
        var: &Var,
        p: crate::ids::PredId,
        args: &[crate::sema::ir::Term],
        scan: Option<usize>,
    ) -> IdpResult<Option<Rc<[Value]>>> {
        let symbol = Symbol::Pred(p);
        let bounded = self.indexable(symbol) || self.status.possible.contains_key(&symbol);
        if self.program.pred(p).type_of.is_some() || !bounded {
            return Ok(None);
        }
        let Some((position, inside)) = var_position(var, args) else {
            return Ok(None);
        };
        let mut fixed_positions = Vec::new();
        let mut fixed_values = Vec::new();
        let mut open: Option<(usize, Cases)> = None;
        for (k, a) in args.iter().enumerate() {
            if k == position || !self.is_closed(a) {
                continue;
            }
            let value = match self.shared_application(a)? {
                Some(cases) if cases.len() > 1 => {
                    if open.is_some() || scan.is_some_and(|n| cases.len() > n) {
                        return Ok(None);
                    }
                    open = Some((fixed_values.len(), cases));
                    Value::Int(0) // a placeholder, set to each case's value below
                }
                Some(cases) => match cases.single() {
                    Some(v) => v,
                    None => return Ok(None),
                },
                None => match self.grounded_value(a)? {
                    Some(v) => v,
                    None => return Ok(None),
                },
            };
            fixed_positions.push(k);
            fixed_values.push(value);
        }
        let index = self.table_index(symbol, position, &fixed_positions);
        if let Some((f, at, parts)) = inside {
            if open.is_some() || self.program.func(f).constructor_of.is_none() {
                return Ok(None);
            }
            let Some(found) = index.get(&fixed_values) else {
                return Ok(Some(Rc::from(Vec::new())));
            };
            return self.argument_candidates(found, (f, at, parts)).map(Some);
        }
        let Some((slot, cases)) = open else {
            return Ok(Some(
                index
                    .get(&fixed_values)
                    .cloned()
                    .unwrap_or_else(|| Rc::from(Vec::new())),
            ));
        };
        // In the order first met (the cases are sorted): deterministic without comparing values.
        let mut values: IndexSet<Value, FxBuildHasher> = IndexSet::default();
        for &(_, v) in cases.iter() {
            fixed_values[slot] = v;
            if let Some(found) = index.get(&fixed_values) {
                values.extend(found.iter().copied());
            }
        }
        Ok(Some(values.into_iter().collect()))
    }

    /// The values of argument `at` of the applications of `constructor` among `found` that
    /// match `parts`, the application's arguments, where they are closed (`jump(x, y)` with y bound
    /// reads the x of each `jump(_, y)`), in the order first met.
    fn argument_candidates(
        &mut self,
        found: &[Value],
        (constructor, at, parts): Inside,
    ) -> IdpResult<Rc<[Value]>> {
        let mut fixed = Vec::new();
        for (j, part) in parts.iter().enumerate() {
            if j != at && self.is_closed(part) {
                match self.grounded_value(part)? {
                    Some(v) => fixed.push((j, v)),
                    None => return Ok(Rc::from(Vec::new())),
                }
            }
        }
        let mut values: IndexSet<Value, FxBuildHasher> = IndexSet::default();
        for compound in found.iter().filter_map(|v| v.compound_parts()) {
            if compound.constructor == constructor
                && fixed.iter().all(|&(j, v)| compound.args[j] == v)
            {
                values.insert(compound.args[at]);
            }
        }
        Ok(values.into_iter().collect())
    }

    /// The values of `var` for which `var = t` (or `t = var`) can hold when `t` is closed under
    /// the variables bound so far: its value when it is known (`p = P(x, y)` once x and y are
    /// bound), else the values of its cases.
    fn equal_candidates(
        &mut self,
        var: &Var,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Option<Rc<[Value]>>> {
        use crate::sema::ir::TermKind;
        let is_var =
            |t: &crate::sema::ir::Term| matches!(t.kind(), TermKind::Var(v) if v.id == var.id);
        let other = match (is_var(a), is_var(b)) {
            (true, false) => b,
            (false, true) => a,
            _ => return Ok(None),
        };
        if !self.is_closed(other) {
            return Ok(None);
        }
        if let Some(value) = self.known_value(other)? {
            return Ok(Some(Rc::from(vec![value])));
        }
        // An application with several cases (`_v = Next(t)` where the definition of `Next`
        // decides where time ends): `var` takes one of their values.
        Ok(self
            .shared_application(other)?
            .map(|cases| Rc::from(cases.iter().map(|&(_, v)| v).collect::<Vec<_>>())))
    }

    /// Values of `var` for which `a = b` can hold when one side is known and the other is
    /// `f(var)` for a function with a two-valued table: the inverse image of the known value.
    fn inverse_candidates(
        &mut self,
        var: &Var,
        a: &crate::sema::ir::Term,
        b: &crate::sema::ir::Term,
    ) -> IdpResult<Option<Rc<[Value]>>> {
        use crate::sema::ir::TermKind;
        let applies = |t: &crate::sema::ir::Term| match t.kind() {
            TermKind::Func(f, args)
                if args.len() == 1
                    && matches!(args[0].kind(), TermKind::Var(v) if v.id == var.id) =>
            {
                Some(*f)
            }
            _ => None,
        };
        let (f, other) = match (applies(a), applies(b)) {
            (Some(f), None) if self.is_closed(b) => (f, b),
            (None, Some(f)) if self.is_closed(a) => (f, a),
            _ => return Ok(None),
        };
        let symbol = Symbol::Func(f);
        let bounded = !self.is_forced_whole(symbol) && self.bounded.contains_key(&f);
        if self.program.func(f).constructor_of.is_some() || !(self.indexable(symbol) || bounded) {
            return Ok(None);
        }
        let Some(value) = self.known_value(other)? else {
            return Ok(None);
        };
        if !self.indexable(symbol) {
            return Ok(self.preimage(f, value));
        }
        let index = self.table_index(symbol, 0, &[1]);
        Ok(Some(
            index
                .get(&vec![value])
                .cloned()
                .unwrap_or_else(|| Rc::from(Vec::new())),
        ))
    }

    pub(super) fn bounded_domain(
        &mut self,
        var: &Var,
        bound: Option<Bound>,
    ) -> IdpResult<Rc<[Value]>> {
        let candidates = match bound {
            Some(b) => self.candidates(var, b.formula, b.want)?,
            None => None,
        };
        let Some(candidates) = candidates else {
            let kind = super::infinite_domain(self.program.sort(var.sort));
            return Err(Error::new(
                kind,
                format!(
                "Infinite grounding: the variable '{}' ranges over the infinite type '{}' and the \
                 formula gives no finite bound for it. Give it a finite type, or bound it in the \
                 formula (e.g. `P(x) & ...` with P over a finite type, or `0 =< x & x =< 10`).",
                var.name,
                self.program.sort(var.sort).name
            ),
            ));
        };
        let values: Vec<Value> = candidates
            .into_iter()
            .filter(|v| self.domains.contains(var.sort, *v))
            .collect();
        Ok(Rc::from(values))
    }

    /// `a op b` over ground terms. `~=`, `=<` and `>=` are negations of `=`, `>` and `<`
    /// (as in IDP3), so a comparison with an undefined term makes `=`, `<`, `>` false and the
    /// negated forms true.
    pub fn compare(&mut self, op: CmpOp, a: &GTerm, b: &GTerm) -> Gf {
        let (base, negated) = op.positive_form();
        let g = match base {
            CmpOp::Lt => self.compare_positive(a, b, |x, y| x < y),
            CmpOp::Gt => self.compare_positive(a, b, |x, y| x > y),
            _ => self.compare_positive(a, b, |x, y| x == y),
        };
        if negated {
            -g
        } else {
            g
        }
    }

    fn compare_positive(
        &mut self,
        a: &GTerm,
        b: &GTerm,
        holds: impl Fn(&GVal, &GVal) -> bool,
    ) -> Gf {
        let mut out = Vec::new();
        for (ga, va) in &a.0 {
            for (gb, vb) in &b.0 {
                if holds(va, vb) {
                    let g = self.store.and2(*ga, *gb);
                    if g == Gf::TRUE {
                        return Gf::TRUE;
                    }
                    out.push(g);
                }
            }
        }
        self.store.or(out)
    }
}

/// The values of the ground terms other than the one at `skip`, when each has a single one.
fn known_except(grounded: &[GTerm], skip: usize) -> Option<Vec<Value>> {
    grounded
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .map(|(_, g)| match g.as_known() {
            Some(GVal::V(v)) => Some(v),
            _ => None,
        })
        .collect()
}

/// The one argument of `grounded` with several values (all domain elements), sorted by value,
/// when every other argument is known: an atom of a known table then keeps only the values its
/// index pairs with the others (as for shared applications; this covers closed terms such as
/// a 0-ary state function `At`).
fn single_open_argument(grounded: &[GTerm]) -> Option<(usize, Cases)> {
    let mut open = grounded
        .iter()
        .enumerate()
        .filter(|(_, g)| g.as_known().is_none());
    let (k, term) = open.next()?;
    if open.next().is_some() || term.0.len() < 2 {
        return None;
    }
    let cases: Vec<(Gf, Value)> = term
        .0
        .iter()
        .map(|(g, v)| match v {
            GVal::V(v) => Some((*g, *v)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    Some((k, Cases::new(cases)))
}

/// A variable's place inside a function application: the function, the position, and the
/// application's arguments.
type Inside<'t> = (crate::ids::FuncId, usize, &'t [crate::sema::ir::Term]);

/// Where `var` is an argument of the atom with arguments `args`: its position, and when it is
/// an argument of a constructor application there (`do(t, jump(x, y))`), its place in that
/// application and the application's arguments.
fn var_position<'t>(
    var: &Var,
    args: &'t [crate::sema::ir::Term],
) -> Option<(usize, Option<Inside<'t>>)> {
    use crate::sema::ir::TermKind;
    let is_var = |t: &crate::sema::ir::Term| matches!(t.kind(), TermKind::Var(v) if v.id == var.id);
    if let Some(k) = args.iter().position(is_var) {
        return Some((k, None));
    }
    args.iter().enumerate().find_map(|(k, a)| match a.kind() {
        TermKind::Func(f, parts) => parts
            .iter()
            .position(is_var)
            .map(|j| (k, Some((*f, j, &parts[..])))),
        _ => None,
    })
}

/// The aggregate of `t` (`#` or `sum`) and the positive number it is divided by (1 when it is
/// not): the terms whose totals can be capped when compared with a bounded term.
fn capped_aggregate(t: &crate::sema::ir::Term) -> Option<(&crate::sema::ir::Term, i64)> {
    use crate::sema::ir::TermKind;
    use crate::syntax::ast::{AggKind, ArithOp};
    match t.kind() {
        TermKind::Aggregate(AggKind::Card | AggKind::Sum, _) => Some((t, 1)),
        TermKind::Arith(ArithOp::Div, x, d) => match (x.kind(), d.kind()) {
            (
                TermKind::Aggregate(AggKind::Card | AggKind::Sum, _),
                TermKind::Value(Value::Int(d)),
            ) if *d > 0 => Some((x, *d)),
            _ => None,
        },
        _ => None,
    }
}
