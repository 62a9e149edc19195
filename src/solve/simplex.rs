//! Linear real arithmetic inside the search: the general simplex of Dutertre and de Moura
//! ("A Fast Linear-Arithmetic Solver for DPLL(T)", CAV 2006), exact over rationals.
//!
//! Each constraint `lit → Σ aᵢ·xᵢ ≥ k` (and `¬lit → Σ aᵢ·xᵢ < k`) is a bound on one
//! variable: on `x` itself when the sum has one term, otherwise on a slack variable
//! `s = Σ aᵢ·xᵢ` that a row of the tableau defines (one slack per distinct sum). The SAT
//! solver's assignments assert bounds; a strict bound `s < k` is `s ≤ k − δ` over
//! δ-rationals (`c + k·δ`, δ a positive infinitesimal), so every bound is non-strict.
//! [`RealTheory::propagate`] repairs the assignment of the basic variables by pivoting
//! (Bland's rule: the least variable first, which cannot cycle) and, when a basic variable
//! cannot be brought within its bounds, explains the conflict by the row that shows it: the
//! literals of the bound violated and of the bounds that block every variable of its row.
//! Backtracking restores bounds only: any assignment that keeps the rows stays a valid start.
//!
//! A full assignment is checked without a budget ([`RealTheory::check_model`]); the values of
//! a model are the δ-rationals with δ replaced by a rational small enough to keep every bound.
//! With an objective ([`RealTheory::set_objective`]), each accepted assignment is first moved
//! to the least value of the objective under its bounds (the primal simplex over bounded
//! variables, Bland's rule again): a minimisation that asks each next model to be strictly
//! better then ends after finitely many Boolean assignments, and knows whether its optimum
//! is reached or only approached (a strict bound) or missing (no lower bound).

use num_traits::{One, Signed, Zero};
use rustc_hash::FxHashMap as HashMap;

use super::{ClauseQueue, Lit, Rational as Q, WatchedLits};

/// How many pivots one propagation may make before it leaves the rest to a later one (the
/// check of a full assignment has no such limit).
const PIVOT_BUDGET: usize = 200;

/// How many pivots in a row may leave the objective unchanged before the minimisation
/// falls back to Bland's rule.
const DEGENERATE_STEPS: usize = 20;

/// `c + k·δ`: a number with an infinitesimal part, ordered lexicographically.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
struct Dq {
    c: Q,
    k: Q,
}

impl Dq {
    fn real(c: Q) -> Dq {
        Dq { c, k: Q::zero() }
    }

    fn plus(&self, other: &Dq) -> Dq {
        Dq {
            c: &self.c + &other.c,
            k: &self.k + &other.k,
        }
    }

    fn minus(&self, other: &Dq) -> Dq {
        Dq {
            c: &self.c - &other.c,
            k: &self.k - &other.k,
        }
    }

    fn times(&self, a: &Q) -> Dq {
        Dq {
            c: &self.c * a,
            k: &self.k * a,
        }
    }

    fn at(&self, delta: &Q) -> Q {
        &self.c + &self.k * delta
    }
}

/// A bound and the literal that asserted it (0: declared with the variable).
#[derive(Clone, Debug)]
struct Bound {
    value: Dq,
    lit: Lit,
}

#[derive(Clone, Debug, Default)]
struct Var {
    lower: Option<Bound>,
    upper: Option<Bound>,
    value: Dq,
    /// The row that defines it while it is basic.
    row: Option<usize>,
}

/// `basic = Σ coefficient·nonbasic`.
#[derive(Clone, Debug)]
struct Row {
    basic: usize,
    terms: Vec<(usize, Q)>,
}

/// `lit ↔ var ≥ bound` (`var ≤ bound` when `upper`), the negation strict.
#[derive(Clone, Debug)]
struct Constraint {
    lit: Lit,
    var: usize,
    bound: Q,
    upper: bool,
}

/// The least value of the objective under the bounds of the last model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LpOptimum {
    /// The least value, and whether a model reaches it (false: models only come
    /// arbitrarily close, past a strict bound).
    Least(Q, bool),
    /// The objective has no lower bound.
    Unbounded,
}

/// A bound replaced: variable, which side, and the bound before.
struct Change {
    var: usize,
    upper: bool,
    old: Option<Bound>,
}

/// The simplex as the external propagator holds it.
#[derive(Default)]
pub struct RealTheory {
    vars: Vec<Var>,
    /// The variables made by [`RealTheory::add_var`] (the others are slacks), in order.
    user: Vec<usize>,
    rows: Vec<Row>,
    slacks: HashMap<Vec<(usize, Q)>, usize>,
    /// A variable fixed at 0, for comparisons without variables.
    zero: Option<usize>,
    constraints: Vec<Constraint>,
    /// The constraints' literals and their values.
    lits: WatchedLits,
    trail: Vec<Change>,
    /// Per decision level: the lengths of `lits` and `trail` when it began.
    levels: Vec<(usize, usize)>,
    /// Whether bounds changed since the last check.
    dirty: bool,
    conflicts: ClauseQueue,
    /// The values of the user's variables in the last model.
    model: Vec<Q>,
    /// The free variable that the objective's row defines, if one is set.
    objective: Option<usize>,
    /// The objective's least value under the last model's bounds.
    optimum: Option<LpOptimum>,
}

impl RealTheory {
    /// How many variables were added.
    pub fn var_count(&self) -> usize {
        self.user.len()
    }

    /// A new variable within `[low, high]` (`None`: unbounded on that side); its index.
    pub fn add_var(&mut self, low: Option<Q>, high: Option<Q>) -> usize {
        let start = match (&low, &high) {
            (Some(l), _) if l.is_positive() => l.clone(),
            (_, Some(h)) if h.is_negative() => h.clone(),
            _ => Q::zero(),
        };
        let v = self.new_var(Dq::real(start));
        let var = &mut self.vars[v];
        var.lower = low.map(|c| Bound {
            value: Dq::real(c),
            lit: 0,
        });
        var.upper = high.map(|c| Bound {
            value: Dq::real(c),
            lit: 0,
        });
        self.user.push(v);
        self.model.push(Q::zero());
        self.user.len() - 1
    }

    fn new_var(&mut self, value: Dq) -> usize {
        self.vars.push(Var {
            value,
            ..Var::default()
        });
        self.vars.len() - 1
    }

    /// Adds `lit → Σ terms ≥ bound` and `¬lit → Σ terms < bound` over the user's variables;
    /// the SAT variable to observe. Added between searches (or before the first).
    pub fn add_constraint(&mut self, lit: Lit, terms: &[(usize, Q)], bound: Q) -> Lit {
        let mut terms: Vec<(usize, Q)> = terms
            .iter()
            .filter(|(_, a)| !a.is_zero())
            .map(|(v, a)| (self.user[*v], a.clone()))
            .collect();
        terms.sort_by_key(|(v, _)| *v);
        let (var, bound, upper) = match terms.as_slice() {
            [] => (self.fixed_zero(), bound, false),
            [(v, a)] => (*v, bound / a, a.is_negative()),
            [(_, first), ..] => {
                // Scaled so that the first coefficient is 1: `x − y ≥ k` and `y − x ≥ −k`
                // (an equality's two sides) bound one slack from both sides.
                let scale = first.clone();
                let terms = terms.iter().map(|(v, a)| (*v, a / &scale)).collect();
                (self.slack(terms), bound / &scale, scale.is_negative())
            }
        };
        let c = self.constraints.len() as u32;
        self.constraints.push(Constraint {
            lit,
            var,
            bound,
            upper,
        });
        self.lits.watch(lit, c);
        lit.abs()
    }

    /// The variable fixed at 0.
    fn fixed_zero(&mut self) -> usize {
        if let Some(z) = self.zero {
            return z;
        }
        let z = self.new_var(Dq::default());
        let fixed = Some(Bound {
            value: Dq::default(),
            lit: 0,
        });
        self.vars[z].lower = fixed.clone();
        self.vars[z].upper = fixed;
        self.zero = Some(z);
        z
    }

    /// The slack variable `s = Σ terms`, a basic variable of a new row (made once per sum).
    fn slack(&mut self, terms: Vec<(usize, Q)>) -> usize {
        if let Some(&s) = self.slacks.get(&terms) {
            return s;
        }
        let (row, value) = self.over_nonbasic(&terms);
        let s = self.new_var(value);
        self.vars[s].row = Some(self.rows.len());
        self.rows.push(Row {
            basic: s,
            terms: row,
        });
        self.slacks.insert(terms, s);
        s
    }

    /// Makes every accepted model minimise `Σ terms` under its bounds (see the module
    /// documentation). Set between searches.
    pub fn set_objective(&mut self, terms: &[(usize, Q)]) {
        let terms: Vec<(usize, Q)> = terms
            .iter()
            .filter(|(_, a)| !a.is_zero())
            .map(|(v, a)| (self.user[*v], a.clone()))
            .collect();
        let (row, value) = self.over_nonbasic(&terms);
        let z = self.new_var(value);
        self.vars[z].row = Some(self.rows.len());
        self.rows.push(Row {
            basic: z,
            terms: row,
        });
        self.objective = Some(z);
    }

    /// The objective's least value under the last model's bounds.
    pub fn optimum(&self) -> Option<LpOptimum> {
        self.optimum.clone()
    }

    /// `Σ terms` over the nonbasic variables (a basic variable replaced by its row), and its
    /// value now.
    fn over_nonbasic(&self, terms: &[(usize, Q)]) -> (Vec<(usize, Q)>, Dq) {
        let mut row: HashMap<usize, Q> = HashMap::default();
        let mut value = Dq::default();
        for (v, a) in terms {
            value = value.plus(&self.vars[*v].value.times(a));
            match self.vars[*v].row {
                None => *row.entry(*v).or_insert_with(Q::zero) += a,
                Some(r) => {
                    for (w, b) in &self.rows[r].terms {
                        *row.entry(*w).or_insert_with(Q::zero) += a * b;
                    }
                }
            }
        }
        let mut row: Vec<(usize, Q)> = row.into_iter().filter(|(_, a)| !a.is_zero()).collect();
        row.sort_by_key(|(v, _)| *v);
        (row, value)
    }

    /// The value of user variable `v` in the last model.
    pub fn value(&self, v: usize) -> &Q {
        &self.model[v]
    }

    /// The solver assigned `lits`: each asserts the bounds of its constraints.
    pub fn assigned(&mut self, lits: &[Lit]) {
        for &lit in lits {
            let Some(cs) = self.lits.assign(lit).map(<[u32]>::to_vec) else {
                continue;
            };
            for c in cs {
                if self.conflicts.is_empty() {
                    self.assert_constraint(c);
                }
            }
        }
    }

    /// Asserts the bound that constraint `c` gives under its literal's value.
    fn assert_constraint(&mut self, c: u32) {
        let con = &self.constraints[c as usize];
        let holds = self.lits.value(con.lit) > 0;
        let reason = if holds { con.lit } else { -con.lit };
        let (var, upper) = (con.var, con.upper == holds);
        // Held: var ≥ b (≤ b when upper); not held: var < b, i.e. var ≤ b − δ (> b: b + δ).
        let infinitesimal = match (holds, con.upper) {
            (true, _) => Q::zero(),
            (false, false) => -Q::one(),
            (false, true) => Q::one(),
        };
        let value = Dq {
            c: con.bound.clone(),
            k: infinitesimal,
        };
        self.assert_bound(var, upper, Bound { value, lit: reason });
    }

    /// Narrows a bound of `x`; a bound that crosses the other side is a conflict.
    fn assert_bound(&mut self, x: usize, upper: bool, bound: Bound) {
        let var = &self.vars[x];
        let (same, other) = if upper {
            (&var.upper, &var.lower)
        } else {
            (&var.lower, &var.upper)
        };
        let weaker = same.as_ref().is_some_and(|b| {
            if upper {
                bound.value >= b.value
            } else {
                bound.value <= b.value
            }
        });
        if weaker {
            return;
        }
        if let Some(o) = other {
            let crossed = if upper {
                bound.value < o.value
            } else {
                bound.value > o.value
            };
            if crossed {
                let clause = [bound.lit, o.lit]
                    .into_iter()
                    .filter(|&l| l != 0)
                    .map(|l| -l)
                    .collect();
                self.conflicts.push(clause);
                return;
            }
        }
        let var = &mut self.vars[x];
        let slot = if upper {
            &mut var.upper
        } else {
            &mut var.lower
        };
        let old = slot.replace(bound.clone());
        self.trail.push(Change { var: x, upper, old });
        self.dirty = true;
        let outside = if upper {
            var.value > bound.value
        } else {
            var.value < bound.value
        };
        if var.row.is_none() && outside {
            self.update(x, bound.value);
        }
    }

    /// Sets nonbasic `x` to `value`, moving the basic variables of the rows it is in.
    fn update(&mut self, x: usize, value: Dq) {
        let change = value.minus(&self.vars[x].value);
        for r in 0..self.rows.len() {
            if let Some(a) = coefficient(&self.rows[r], x) {
                let b = self.rows[r].basic;
                self.vars[b].value = self.vars[b].value.plus(&change.times(&a));
            }
        }
        self.vars[x].value = value;
    }

    pub fn new_level(&mut self) {
        self.levels.push((self.lits.len(), self.trail.len()));
    }

    pub fn backtrack(&mut self, level: usize) {
        self.conflicts.clear();
        if level >= self.levels.len() {
            return;
        }
        let (lits, changes) = self.levels[level];
        self.levels.truncate(level);
        self.lits.undo_to(lits);
        while self.trail.len() > changes {
            let change = self.trail.pop().expect("a change");
            let var = &mut self.vars[change.var];
            if change.upper {
                var.upper = change.old;
            } else {
                var.lower = change.old;
            }
        }
    }

    /// Checks the bounds asserted so far within a budget of pivots; a conflict, if any, is
    /// then pending as a clause. The simplex decides no literal: 0.
    pub fn propagate(&mut self) -> Lit {
        if self.conflicts.is_empty() && self.dirty {
            if let Some(clean) = self.check(Some(PIVOT_BUDGET)) {
                self.dirty = !clean;
            }
        }
        0
    }

    /// Whether a conflict clause is waiting to be handed over.
    pub fn has_clause(&mut self) -> bool {
        self.conflicts.has_clause()
    }

    /// The waiting clause, one literal per call, then 0.
    pub fn next_clause_lit(&mut self) -> Lit {
        self.conflicts.next_lit()
    }

    /// Checks a full assignment: values that keep every bound (true, kept for
    /// [`RealTheory::value`]) or a conflict clause (false).
    pub fn check_model(&mut self) -> bool {
        if !self.conflicts.is_empty() {
            return false;
        }
        if self.check(None).is_none() {
            return false;
        }
        self.dirty = false;
        if let Some(z) = self.objective {
            self.optimum = Some(self.minimise(z));
        }
        self.fix_model();
        true
    }

    /// Moves the assignment, within every bound, to the least value of free variable `z`.
    /// The entering variable is the one whose coefficient is largest (Dantzig's rule, far
    /// fewer pivots); after [`DEGENERATE_STEPS`] pivots in a row that leave `z` where it was,
    /// the least one (Bland's rule, which cannot cycle) until `z` moves again.
    fn minimise(&mut self, z: usize) -> LpOptimum {
        let mut stalled = 0usize;
        loop {
            let r = match self.vars[z].row {
                Some(r) => r,
                None => {
                    // Nonbasic: made basic again in a row it occurs in (values unchanged).
                    let Some((r, a)) = (0..self.rows.len())
                        .find_map(|r| coefficient(&self.rows[r], z).map(|a| (r, a)))
                    else {
                        return LpOptimum::Unbounded;
                    };
                    self.pivot(r, z, a);
                    r
                }
            };
            // A variable whose move lowers z: down where its coefficient is positive.
            let mut movable = self.rows[r].terms.iter().filter(|(v, a)| {
                let var = &self.vars[*v];
                if a.is_positive() {
                    var.lower.as_ref().is_none_or(|l| var.value > l.value)
                } else {
                    var.upper.as_ref().is_none_or(|u| var.value < u.value)
                }
            });
            let entering = if stalled < DEGENERATE_STEPS {
                movable.max_by(|(v, a), (w, b)| a.abs().cmp(&b.abs()).then(w.cmp(v)))
            } else {
                movable.next()
            };
            let Some((x, down)) = entering.map(|(v, a)| (*v, a.is_positive())) else {
                let least = self.vars[z].value.clone();
                return LpOptimum::Least(least.c, least.k.is_zero());
            };
            let before = self.vars[z].value.clone();
            match self.ratio_test(r, x, down) {
                None => return LpOptimum::Unbounded,
                Some((None, target)) => self.update(x, target),
                Some((Some(k), target)) => self.pivot_and_update(k, x, target),
            }
            stalled = if self.vars[z].value == before {
                stalled + 1
            } else {
                0
            };
        }
    }

    /// How far nonbasic `x` can move (down or up) before a bound stops it: its own bound
    /// (`None` and the value `x` takes) or the row of a basic variable that reaches its bound
    /// first (the row and that bound); `None` when nothing stops it. Rows other than the
    /// objective's `skip` only.
    fn ratio_test(&self, skip: usize, x: usize, down: bool) -> Option<(Option<usize>, Dq)> {
        let var = &self.vars[x];
        let sign = if down { -Q::one() } else { Q::one() };
        // The step t ≥ 0 that each bound allows, with what it stops.
        let own = if down { &var.lower } else { &var.upper };
        let mut best: Option<(Dq, usize, Option<usize>, Dq)> = own.as_ref().map(|b| {
            let step = b.value.minus(&var.value).times(&sign);
            (step, x, None, b.value.clone())
        });
        for (k, row) in self.rows.iter().enumerate() {
            if k == skip {
                continue;
            }
            let Some(b) = coefficient(row, x) else {
                continue;
            };
            let rate = &b * &sign;
            let basic = &self.vars[row.basic];
            let bound = if rate.is_positive() {
                &basic.upper
            } else {
                &basic.lower
            };
            let Some(bound) = bound else { continue };
            let step = bound.value.minus(&basic.value).times(&recip(&rate));
            let better = best
                .as_ref()
                .is_none_or(|(s, v, _, _)| step < *s || (step == *s && row.basic < *v));
            if better {
                best = Some((step, row.basic, Some(k), bound.value.clone()));
            }
        }
        best.map(|(_, _, row, target)| (row, target))
    }

    /// Pivots until every basic variable is within its bounds: `Some(true)` then,
    /// `Some(false)` when the budget ran out first, `None` on a conflict (pushed).
    fn check(&mut self, budget: Option<usize>) -> Option<bool> {
        let mut pivots = 0usize;
        loop {
            let Some((r, raise)) = self.violated_row() else {
                return Some(true);
            };
            if budget.is_some_and(|b| pivots >= b) {
                return Some(false);
            }
            let x = self.rows[r].basic;
            let Some(entering) = self.entering(r, raise) else {
                self.explain_row(r, raise);
                return None;
            };
            let target = if raise {
                self.vars[x].lower.as_ref().expect("violated").value.clone()
            } else {
                self.vars[x].upper.as_ref().expect("violated").value.clone()
            };
            self.pivot_and_update(r, entering, target);
            pivots += 1;
        }
    }

    /// The row of the least basic variable outside its bounds, and whether it must rise.
    fn violated_row(&self) -> Option<(usize, bool)> {
        let mut best: Option<(usize, usize, bool)> = None;
        for (r, row) in self.rows.iter().enumerate() {
            let var = &self.vars[row.basic];
            let raise = var.lower.as_ref().is_some_and(|l| var.value < l.value);
            let lower = var.upper.as_ref().is_some_and(|u| var.value > u.value);
            if (raise || lower) && best.is_none_or(|(b, _, _)| row.basic < b) {
                best = Some((row.basic, r, raise));
            }
        }
        best.map(|(_, r, raise)| (r, raise))
    }

    /// The least nonbasic variable of row `r` that can move the basic one the way it must go.
    fn entering(&self, r: usize, raise: bool) -> Option<usize> {
        self.rows[r]
            .terms
            .iter()
            .filter(|(v, a)| {
                let var = &self.vars[*v];
                let can_rise = var.upper.as_ref().is_none_or(|u| var.value < u.value);
                let can_fall = var.lower.as_ref().is_none_or(|l| var.value > l.value);
                if a.is_positive() == raise {
                    can_rise
                } else {
                    can_fall
                }
            })
            .map(|(v, _)| *v)
            .min()
    }

    /// The conflict row `r` shows: its basic variable's violated bound and the bounds that
    /// hold each of its nonbasic variables where it is.
    fn explain_row(&mut self, r: usize, raise: bool) {
        let row = &self.rows[r];
        let basic = &self.vars[row.basic];
        let mut lits = vec![if raise {
            basic.lower.as_ref().expect("violated").lit
        } else {
            basic.upper.as_ref().expect("violated").lit
        }];
        for (v, a) in &row.terms {
            let var = &self.vars[*v];
            let blocking = if a.is_positive() == raise {
                &var.upper
            } else {
                &var.lower
            };
            lits.push(blocking.as_ref().expect("a blocking bound").lit);
        }
        let mut clause: Vec<Lit> = lits.into_iter().filter(|&l| l != 0).map(|l| -l).collect();
        clause.sort_unstable();
        clause.dedup();
        self.conflicts.push(clause);
    }

    /// Moves basic variable of row `r` to `target` by changing nonbasic `x`, then swaps
    /// them: `x` becomes basic in row `r`.
    fn pivot_and_update(&mut self, r: usize, x: usize, target: Dq) {
        let basic = self.rows[r].basic;
        let a = coefficient(&self.rows[r], x).expect("x in the row");
        let theta = target.minus(&self.vars[basic].value).times(&recip(&a));
        self.vars[basic].value = target;
        let moved = self.vars[x].value.plus(&theta);
        self.vars[x].value = moved;
        for k in 0..self.rows.len() {
            if k == r {
                continue;
            }
            if let Some(b) = coefficient(&self.rows[k], x) {
                let other = self.rows[k].basic;
                self.vars[other].value = self.vars[other].value.plus(&theta.times(&b));
            }
        }
        self.pivot(r, x, a);
    }

    /// Row `r` (`basic = a·x + rest`) solved for `x` and substituted into the other rows.
    fn pivot(&mut self, r: usize, x: usize, a: Q) {
        let basic = self.rows[r].basic;
        let inverse = recip(&a);
        let mut terms: Vec<(usize, Q)> = self.rows[r]
            .terms
            .iter()
            .filter(|(v, _)| *v != x)
            .map(|(v, b)| (*v, -(b * &inverse)))
            .collect();
        terms.push((basic, inverse));
        terms.sort_by_key(|(v, _)| *v);
        self.rows[r] = Row { basic: x, terms };
        self.vars[basic].row = None;
        self.vars[x].row = Some(r);
        for k in 0..self.rows.len() {
            if k == r {
                continue;
            }
            let Some(b) = coefficient(&self.rows[k], x) else {
                continue;
            };
            let mut merged: HashMap<usize, Q> = self.rows[k]
                .terms
                .iter()
                .filter(|(v, _)| *v != x)
                .cloned()
                .collect();
            for (v, c) in &self.rows[r].terms {
                *merged.entry(*v).or_insert_with(Q::zero) += &b * c;
            }
            let mut terms: Vec<(usize, Q)> =
                merged.into_iter().filter(|(_, c)| !c.is_zero()).collect();
            terms.sort_by_key(|(v, _)| *v);
            self.rows[k].terms = terms;
        }
    }

    /// The user's variables' values with δ replaced by a rational small enough that every
    /// bound still holds.
    fn fix_model(&mut self) {
        let mut delta = Q::one();
        for var in &self.vars {
            let below = var.lower.iter().map(|l| (&l.value, &var.value));
            let above = var.upper.iter().map(|u| (&var.value, &u.value));
            // small ≤ large must hold at δ: (small.c − large.c) ≤ (large.k − small.k)·δ.
            for (small, large) in below.chain(above) {
                let room = &large.c - &small.c;
                let cost = &small.k - &large.k;
                if room.is_positive() && cost.is_positive() {
                    let most = room / cost;
                    if most < delta {
                        delta = most;
                    }
                }
            }
        }
        for (k, &v) in self.user.iter().enumerate() {
            self.model[k] = self.vars[v].value.at(&delta);
        }
    }
}

/// `1 / a`.
fn recip(a: &Q) -> Q {
    Q::ONE / a
}

/// The coefficient of `x` in `row`, if it occurs.
fn coefficient(row: &Row, x: usize) -> Option<Q> {
    row.terms
        .binary_search_by_key(&x, |(v, _)| *v)
        .ok()
        .map(|k| row.terms[k].1.clone())
}

#[cfg(test)]
mod tests;
