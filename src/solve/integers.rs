//! Integer variables inside the search: each has a domain `[lo, hi]` that bounds reasoning
//! narrows, and each linear constraint `Σ cᵢ·xᵢ ≥ k` is reified by a literal the SAT solver
//! decides (false: `Σ cᵢ·xᵢ ≤ k − 1`). Without any literal per value, as SMT solvers and
//! lazy clause generation do it:
//! - a constraint whose literal is assigned narrows the bounds of its variables (bounds
//!   propagation), each new bound remembering the constraint and the bounds it used;
//! - a constraint whose literal is unassigned is decided when the bounds entail it or its
//!   negation;
//! - a domain that becomes empty is a conflict, explained by the literals of the constraints
//!   behind the bounds involved (walking back through their reasons): short clauses over the
//!   comparisons of the theory.
//!
//! Bounds propagation alone is not complete (`x + y ≥ 1 ∧ x + y ≤ 0` narrows nothing over
//! unbounded domains), so a full assignment of the literals is checked by a search for values
//! ([`IntTheory::check_model`]): bounds propagation with domain splitting, starting from the
//! value nearest 0. It finds values (the model's numbers), or proves the constraints in force
//! inconsistent and hands back the clause that rules them out. Where propagation converges
//! too slowly (its budget spent, or the splitting's), the check decides the constraints in
//! force by linear programming with branch and bound ([`super::branch_and_bound`]); only
//! when that too runs out of budget does it give up, which stops the search with that
//! reason instead of guessing.

use rustc_hash::FxHashMap as HashMap;

use super::branch_and_bound::{integer_values, Outcome, Row};
use super::{ClauseQueue, Lit, ReasonOut, WatchedLits};

/// How many bound changes one propagation may make before it stops (a cycle of constraints
/// can raise bounds by one at a time across a range of billions).
const PROPAGATION_BUDGET: usize = 20_000;

/// How many bound changes the search for values of one model may make in all.
const CHECK_BUDGET: usize = 100_000;

/// How many nodes branch and bound may visit for one model.
const BRANCH_BUDGET: usize = 10_000;

/// How many nodes it may visit when propagation stalls (see [`IntTheory::stall`]).
const STALL_BRANCH_BUDGET: usize = 100;

/// How propagation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Propagated {
    /// Nothing left to narrow.
    Fixpoint,
    /// A domain became empty (the conflict is pushed).
    Conflict,
    /// The budget of bound changes ran out first.
    Budget,
}

/// One variable's domain and where its bounds came from.
#[derive(Clone)]
struct Var {
    lo: i64,
    hi: i64,
    /// The domain it was declared with.
    declared: (i64, i64),
    /// The trail entries of the current bounds (`None`: the declared bound).
    lo_entry: Option<u32>,
    hi_entry: Option<u32>,
    /// The constraints over this variable.
    watches: Vec<Watch>,
}

/// A constraint over a variable, as the variable's bound changes look at it.
#[derive(Clone, Copy)]
struct Watch {
    constraint: u32,
    /// The constraint's literal.
    lit: Lit,
    /// Whether the variable's coefficient in it is positive.
    positive: bool,
}

impl Watch {
    /// Whether a change of the upper (`upper`) or lower bound of the variable can narrow
    /// anything through the constraint, whose literal has `value`: when it is in force only
    /// the bound its row takes the greatest value at counts (the upper one for a positive
    /// coefficient as written); an undecided constraint may be decided by either.
    fn looks_at(&self, upper: bool, value: i8) -> bool {
        match value {
            0 => true,
            v => (v > 0) == self.positive && upper || (v > 0) != self.positive && !upper,
        }
    }
}

/// `lit → Σ terms ≥ bound`, `¬lit → Σ terms ≤ bound − 1`.
struct Constraint {
    lit: Lit,
    terms: Vec<(u32, i64)>,
    bound: i64,
}

/// A bound change: variable, which side, the value before, and the reason.
struct Entry {
    var: u32,
    upper: bool,
    old: i64,
    old_entry: Option<u32>,
    /// The literal of the constraint that forced it (true on the trail), 0 for a choice of
    /// the search for values.
    lit: Lit,
    /// The entries of the other bounds that the constraint used.
    used: Vec<u32>,
}

/// A choice of the search for values: variable `.0` within `[.1, .2]`.
type Choice = (u32, i64, i64);

/// How a check of a full assignment ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Values were found (see [`IntTheory::value`]).
    Values,
    /// The constraints in force have no integer solution; the conflict clause is pending.
    Inconsistent,
    /// The budget ran out before either was shown.
    Undecided,
}

/// The integer theory as the external propagator holds it.
#[derive(Default)]
pub struct IntTheory {
    vars: Vec<Var>,
    constraints: Vec<Constraint>,
    /// The constraints' literals and their values.
    lits: WatchedLits,
    trail: Vec<Entry>,
    /// Per decision level: the lengths of `lits` and `trail` when it began.
    levels: Vec<(usize, usize)>,
    queue: Vec<u32>,
    queued: Vec<bool>,
    /// Literals decided by bounds, with the literals that imply them.
    pending: Vec<(Lit, Vec<Lit>)>,
    reasons: HashMap<Lit, Vec<Lit>>,
    reason_out: ReasonOut,
    conflicts: ClauseQueue,
    /// The values found by the last successful check.
    model: Vec<i64>,
    /// Whether a check gave up (the search must stop: its answer would be a guess).
    undecided: bool,
    /// The decision level at which propagation spent its budget and rests (see
    /// [`IntTheory::stall`]).
    stalled: Option<usize>,
    /// Per trail entry, the mark of the last walk of [`IntTheory::explain`] that saw it.
    seen: Vec<u32>,
    /// The mark of the current walk.
    walk: u32,
}

impl IntTheory {
    /// A new variable with domain `[low, high]`; its index.
    /// How many integer variables there are.
    pub fn var_count(&self) -> usize {
        self.vars.len()
    }

    pub fn add_var(&mut self, low: i64, high: i64) -> usize {
        self.vars.push(Var {
            lo: low,
            hi: high,
            declared: (low, high),
            lo_entry: None,
            hi_entry: None,
            watches: Vec::new(),
        });
        self.model.push(0i64.clamp(low, high));
        self.vars.len() - 1
    }

    /// Adds `lit → Σ terms ≥ bound` and `¬lit → Σ terms < bound`; the SAT variable to
    /// observe. Added between searches (or before the first).
    pub fn add_constraint(&mut self, lit: Lit, terms: &[(usize, i64)], bound: i64) -> Lit {
        let c = self.constraints.len() as u32;
        let terms: Vec<(u32, i64)> = terms
            .iter()
            .filter(|&&(_, k)| k != 0)
            .map(|&(v, k)| (v as u32, k))
            .collect();
        for &(v, k) in &terms {
            self.vars[v as usize].watches.push(Watch {
                constraint: c,
                lit,
                positive: k > 0,
            });
        }
        self.constraints.push(Constraint { lit, terms, bound });
        self.queued.push(false);
        self.lits.watch(lit, c);
        lit.abs()
    }

    /// The value of variable `v` in the last model.
    pub fn value(&self, v: usize) -> i64 {
        self.model[v]
    }

    /// Whether a check gave up since the last call (and forgets it).
    pub fn take_undecided(&mut self) -> bool {
        std::mem::take(&mut self.undecided)
    }

    /// The solver assigned `lits`.
    pub fn assigned(&mut self, lits: &[Lit]) {
        for &lit in lits {
            let Some(cs) = self.lits.assign(lit) else {
                continue;
            };
            for &c in cs {
                enqueue(&mut self.queue, &mut self.queued, c);
            }
        }
    }

    fn enqueue(&mut self, c: u32) {
        enqueue(&mut self.queue, &mut self.queued, c);
    }

    pub fn new_level(&mut self) {
        self.levels.push((self.lits.len(), self.trail.len()));
    }

    pub fn backtrack(&mut self, level: usize) {
        if self.stalled.is_some_and(|at| level < at) {
            self.stalled = None;
        }
        self.pending.clear();
        self.conflicts.clear();
        self.clear_queue();
        if level >= self.levels.len() {
            return;
        }
        let (lits, entries) = self.levels[level];
        self.levels.truncate(level);
        for lit in self.lits.undo_to(lits) {
            self.reasons.remove(&lit);
        }
        self.undo_to(entries);
    }

    /// Restores the bounds as they were when the trail had `len` entries.
    fn undo_to(&mut self, len: usize) {
        while self.trail.len() > len {
            let e = self.trail.pop().expect("trail entry");
            let var = &mut self.vars[e.var as usize];
            if e.upper {
                var.hi = e.old;
                var.hi_entry = e.old_entry;
            } else {
                var.lo = e.old;
                var.lo_entry = e.old_entry;
            }
        }
    }

    /// The next literal the bounds decide, or 0 (a conflict, if any, is then pending as a
    /// clause).
    pub fn propagate(&mut self) -> Lit {
        if self.conflicts.is_empty()
            && self.pending.is_empty()
            && self.stalled.is_none()
            && self.run_queue(PROPAGATION_BUDGET) == Propagated::Budget
        {
            self.stall();
        }
        while let Some((lit, reason)) = self.pending.pop() {
            if self.lits.value(lit) == 0 {
                self.reasons.insert(lit, reason);
                return lit;
            }
        }
        0
    }

    /// Propagation spent its budget: bounds creep towards a fixpoint a few units a round.
    /// The constraints in force are decided by linear programming instead (a conflict if
    /// they have no solution), and propagation rests until the search backtracks below
    /// this level (the check of a full assignment still decides everything).
    fn stall(&mut self) {
        self.stalled = Some(self.levels.len());
        if self.linear_program(STALL_BRANCH_BUDGET) != Checked::Inconsistent {
            self.conflicts.clear();
        }
    }

    /// Propagates the queued constraints until nothing changes, a conflict (pushed to
    /// `conflicts`), or `budget` bound changes. Past the budget, the constraints in force are
    /// searched for a cycle of differences that cannot hold (what keeps raising the bounds,
    /// usually), and without one propagation stops there.
    fn run_queue(&mut self, budget: usize) -> Propagated {
        let start = self.trail.len();
        while let Some(c) = self.queue.pop() {
            self.queued[c as usize] = false;
            if !self.examine(c) {
                self.clear_queue();
                return Propagated::Conflict;
            }
            if self.trail.len() - start > budget {
                self.clear_queue();
                if let Some(cycle) = self.difference_cycle() {
                    self.conflicts.push(cycle.iter().map(|&l| -l).collect());
                    return Propagated::Conflict;
                }
                return Propagated::Budget;
            }
        }
        Propagated::Fixpoint
    }

    fn clear_queue(&mut self) {
        for c in self.queue.drain(..) {
            self.queued[c as usize] = false;
        }
    }

    /// The literals of constraints in force of the form `a·(x − y) ≥ b` that together
    /// cannot hold (a negative cycle, found by Bellman-Ford), if there is such a cycle.
    fn difference_cycle(&self) -> Option<Vec<Lit>> {
        // Edge (x, y, w, lit): y ≤ x + w.
        let mut edges: Vec<(usize, usize, i128, Lit)> = Vec::new();
        for c in 0..self.constraints.len() as u32 {
            let Some(sign) = self.in_force(c) else {
                continue;
            };
            let (row, b) = self.row(c, sign);
            if let [(x, a), (y, a2)] = row[..] {
                if a == -a2 {
                    let lit = self.constraints[c as usize].lit * sign as Lit;
                    // a·(x − y) ≥ b: with a > 0, y ≤ x − ⌈b/a⌉; with a < 0, x ≤ y − ⌈b/−a⌉.
                    let (from, to, a) = if a > 0 { (x, y, a) } else { (y, x, -a) };
                    edges.push((from as usize, to as usize, -div_ceil(b, a), lit));
                }
            }
        }
        let n = self.vars.len();
        let mut dist = vec![0i128; n];
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut relaxed = None;
        for _ in 0..=n {
            relaxed = None;
            for (i, &(x, y, w, _)) in edges.iter().enumerate() {
                if dist[x] + w < dist[y] {
                    dist[y] = dist[x] + w;
                    parent[y] = Some(i);
                    relaxed = Some(y);
                }
            }
            relaxed?;
        }
        // A node relaxed in round n + 1 leads back into a cycle within n parent steps.
        let mut v = relaxed?;
        for _ in 0..n {
            v = edges[parent[v]?].0;
        }
        let start = v;
        let mut lits = Vec::new();
        loop {
            let e = parent[v]?;
            lits.push(edges[e].3);
            v = edges[e].0;
            if v == start {
                break;
            }
        }
        lits.sort_unstable();
        lits.dedup();
        Some(lits)
    }

    /// The constraint `c` in force (`Some(sign)`: +1 as written, −1 negated) or not.
    fn in_force(&self, c: u32) -> Option<i8> {
        match self.lits.value(self.constraints[c as usize].lit) {
            0 => None,
            s => Some(s),
        }
    }

    /// The row `Σ aᵢ·xᵢ ≥ b` that constraint `c` states with `sign`.
    fn row(&self, c: u32, sign: i8) -> (Vec<(u32, i128)>, i128) {
        let con = &self.constraints[c as usize];
        if sign > 0 {
            let terms = con.terms.iter().map(|&(v, k)| (v, k as i128)).collect();
            (terms, con.bound as i128)
        } else {
            let terms = con.terms.iter().map(|&(v, k)| (v, -(k as i128))).collect();
            (terms, 1 - con.bound as i128)
        }
    }

    /// The greatest value of the left side of [`IntTheory::row`]`(c, sign)`, and its bound.
    fn row_most(&self, c: u32, sign: i8) -> (i128, i128) {
        let con = &self.constraints[c as usize];
        let s = i128::from(sign);
        let most = (con.terms.iter())
            .map(|&(v, k)| self.max_term(v, s * k as i128).0)
            .sum();
        let b = if sign > 0 {
            con.bound as i128
        } else {
            1 - con.bound as i128
        };
        (most, b)
    }

    /// The greatest value of `a·x` and the entry of the bound it comes from.
    fn max_term(&self, v: u32, a: i128) -> (i128, Option<u32>) {
        let var = &self.vars[v as usize];
        if a > 0 {
            (a * var.hi as i128, var.hi_entry)
        } else {
            (a * var.lo as i128, var.lo_entry)
        }
    }

    /// Looks at constraint `c`: narrows bounds if it is in force, decides its literal if the
    /// bounds do; false on a conflict.
    fn examine(&mut self, c: u32) -> bool {
        let lit = self.constraints[c as usize].lit;
        match self.in_force(c) {
            Some(sign) => {
                let active = if sign > 0 { lit } else { -lit };
                self.narrow(c, sign, active)
            }
            None => {
                for sign in [1i8, -1] {
                    // Most constraints looked at decide nothing: their rows are summed
                    // without a copy, and copied only to explain a decision.
                    let (most, b) = self.row_most(c, -sign);
                    if most < b {
                        // The negation cannot hold: the constraint holds with `sign`.
                        let decided = if sign > 0 { lit } else { -lit };
                        let (row, _) = self.row(c, -sign);
                        let (_, entries) = self.most(&row);
                        let reason = self.explain(&entries, &[]);
                        self.pending.push((decided, reason));
                        break;
                    }
                }
                true
            }
        }
    }

    /// The greatest value of a row's left side and the entries of the bounds it used.
    fn most(&self, row: &[(u32, i128)]) -> (i128, Vec<u32>) {
        let mut most = 0i128;
        let mut entries = Vec::new();
        for &(v, a) in row {
            let (m, e) = self.max_term(v, a);
            most += m;
            entries.extend(e);
        }
        (most, entries)
    }

    /// Bounds propagation of the row of `c` in force (`active` its true literal).
    fn narrow(&mut self, c: u32, sign: i8, active: Lit) -> bool {
        let (most, b) = self.row_most(c, sign);
        if most < b {
            let (row, _) = self.row(c, sign);
            let (_, entries) = self.most(&row);
            let clause = self.explain(&entries, &[active]);
            self.conflicts.push(clause.iter().map(|&l| -l).collect());
            return false;
        }
        let s = i128::from(sign);
        for i in 0..self.constraints[c as usize].terms.len() {
            let (v, k) = self.constraints[c as usize].terms[i];
            let a = s * i128::from(k);
            let (own, _) = self.max_term(v, a);
            // a·x ≥ b − (most − own)
            let need = b - (most - own);
            let var = &self.vars[v as usize];
            let narrowed = if a > 0 {
                let lo = div_ceil(need, a);
                (lo > i128::from(var.lo)).then_some((false, lo))
            } else {
                let hi = div_floor(need, a);
                (hi < i128::from(var.hi)).then_some((true, hi))
            };
            let Some((upper, value)) = narrowed else {
                continue;
            };
            let used = self.bounds_used(c, s, i);
            if !self.set_bound(v, upper, value, active, used) {
                return false;
            }
        }
        true
    }

    /// The entries of the bounds that the terms of constraint `c` (times `s`) other than
    /// term `skip` take their greatest values at.
    fn bounds_used(&self, c: u32, s: i128, skip: usize) -> Vec<u32> {
        let terms = &self.constraints[c as usize].terms;
        (terms.iter().enumerate())
            .filter(|&(j, _)| j != skip)
            .filter_map(|(_, &(w, k))| self.max_term(w, s * i128::from(k)).1)
            .collect()
    }

    /// Narrows a bound of `v` to `value`; false (with the conflict pushed) when the domain
    /// becomes empty.
    fn set_bound(&mut self, v: u32, upper: bool, value: i128, lit: Lit, used: Vec<u32>) -> bool {
        let entry = self.trail.len() as u32;
        let var = &mut self.vars[v as usize];
        let clamped = value.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        let (old, old_entry) = if upper {
            (var.hi, var.hi_entry)
        } else {
            (var.lo, var.lo_entry)
        };
        if upper {
            var.hi = clamped;
            var.hi_entry = Some(entry);
        } else {
            var.lo = clamped;
            var.lo_entry = Some(entry);
        }
        let empty = value > var.hi as i128 || value < var.lo as i128 || var.lo > var.hi;
        let other = if upper { var.lo_entry } else { var.hi_entry };
        self.trail.push(Entry {
            var: v,
            upper,
            old,
            old_entry,
            lit,
            used,
        });
        if empty {
            let mut entries = vec![entry];
            entries.extend(other);
            let clause = self.explain(&entries, &[]);
            self.conflicts.push(clause.iter().map(|&l| -l).collect());
            return false;
        }
        for w in &self.vars[v as usize].watches {
            if w.looks_at(upper, self.lits.value(w.lit)) {
                enqueue(&mut self.queue, &mut self.queued, w.constraint);
            }
        }
        true
    }

    /// The true literals behind `entries` (and `extra`), walking back through the reasons;
    /// `None` when some bound was a choice of the search for values.
    fn explain(&mut self, entries: &[u32], extra: &[Lit]) -> Vec<Lit> {
        // Entries seen in this walk carry its mark (a new one per walk: no clearing).
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            self.seen.fill(0);
            self.walk = 1;
        }
        self.seen.resize(self.trail.len(), 0);
        let mut lits: Vec<Lit> = extra.to_vec();
        let mut stack: Vec<u32> = entries.to_vec();
        while let Some(e) = stack.pop() {
            if std::mem::replace(&mut self.seen[e as usize], self.walk) == self.walk {
                continue;
            }
            let entry = &self.trail[e as usize];
            if entry.lit != 0 {
                lits.push(entry.lit);
            }
            stack.extend(entry.used.iter().copied());
        }
        lits.sort_unstable();
        lits.dedup();
        lits
    }

    /// Whether `propagated` is a literal this theory decided.
    pub fn explains(&self, propagated: Lit) -> bool {
        self.reasons.contains_key(&propagated) || self.reason_out.is_for(propagated)
    }

    /// The reason clause of `propagated`, one literal per call: first `propagated`, then the
    /// negations of the literals that imply it, then 0.
    pub fn next_reason_lit(&mut self, propagated: Lit) -> Lit {
        let reasons = &self.reasons;
        self.reason_out.next(propagated, || {
            reasons
                .get(&propagated)
                .map(|r| r.iter().map(|&l| -l).collect())
                .unwrap_or_default()
        })
    }

    /// Whether a conflict clause is waiting to be handed over.
    pub fn has_clause(&mut self) -> bool {
        self.conflicts.has_clause()
    }

    /// The waiting clause, one literal per call, then 0.
    pub fn next_clause_lit(&mut self) -> Lit {
        self.conflicts.next_lit()
    }

    /// Checks a full assignment: finds values for the variables that keep every constraint
    /// in force (true), or leaves a conflict clause (false). A check that gives up accepts
    /// the model and marks the theory undecided.
    pub fn check_model(&mut self) -> bool {
        if self.vars.is_empty() {
            return true;
        }
        let r = self.search_values();

        match r {
            Checked::Values => true,
            Checked::Inconsistent => false,
            Checked::Undecided => {
                self.undecided = true;
                true
            }
        }
    }

    /// Bounds propagation with domain splitting over all variables, from the current state;
    /// the trail is restored afterwards.
    fn search_values(&mut self) -> Checked {
        let base = self.trail.len();
        for c in 0..self.constraints.len() as u32 {
            if self.in_force(c).is_some() {
                self.enqueue(c);
            }
        }
        let result = match self.run_queue(PROPAGATION_BUDGET) {
            Propagated::Conflict => Checked::Inconsistent,
            Propagated::Fixpoint => self.split(base),
            Propagated::Budget => Checked::Undecided,
        };
        self.undo_to(base);
        let result = match result {
            Checked::Undecided => self.linear_program(BRANCH_BUDGET),
            decided => decided,
        };
        match result {
            Checked::Inconsistent if self.conflicts.is_empty() => {
                // Refuted by splitting: every constraint in force takes part.
                let clause = self
                    .constraints
                    .iter()
                    .map(|c| c.lit)
                    .filter_map(|l| match self.lits.value(l) {
                        1 => Some(-l),
                        -1 => Some(l),
                        _ => None,
                    })
                    .collect();
                self.conflicts.push(clause);
            }
            Checked::Inconsistent => {}
            _ => self.conflicts.clear(),
        }
        result
    }

    /// Depth-first search over domain splits: the first variable with more than one value
    /// is tried at the value nearest 0, then above it, then below it. Propagation may have
    /// stopped at its budget, so values are checked against every constraint in force.
    fn split(&mut self, base: usize) -> Checked {
        let mut spent = 0usize;
        // Each frame: the trail length before its choices, and the choices left.
        let mut stack: Vec<(usize, Vec<Choice>)> = Vec::new();
        let mut consistent = true;
        loop {
            if consistent {
                match self.open_var() {
                    Some(v) => stack.push((self.trail.len(), self.choices(v))),
                    None if self.values_hold() => {
                        self.model = self.vars.iter().map(|var| var.lo).collect();
                        return Checked::Values;
                    }
                    None => {}
                }
            }
            let Some((mark, choices)) = stack.last_mut() else {
                // The conflicts of choices are not consequences of the constraints alone.
                self.conflicts.clear();
                return Checked::Inconsistent;
            };
            let mark = *mark;
            let Some((var, lo, hi)) = choices.pop() else {
                stack.pop();
                consistent = false;
                continue;
            };
            self.undo_to(mark);
            self.conflicts.clear();
            let before = self.trail.len();
            consistent = self.choose(var, lo, hi);
            if consistent {
                match self.run_queue(PROPAGATION_BUDGET) {
                    Propagated::Fixpoint => {}
                    Propagated::Conflict => consistent = false,
                    // Creeping bounds: linear programming decides faster.
                    Propagated::Budget => {
                        self.undo_to(base);
                        return Checked::Undecided;
                    }
                }
            }
            if !consistent {
                self.clear_queue();
            }
            spent += self.trail.len() - before + 1;
            if spent > CHECK_BUDGET {
                self.undo_to(base);
                return Checked::Undecided;
            }
        }
    }

    /// The constraints in force decided by branch and bound over their linear relaxation,
    /// within the declared domains: values, or the clause of the constraints that refute it.
    fn linear_program(&mut self, budget: usize) -> Checked {
        self.conflicts.clear();
        let mut lits = Vec::new();
        let mut rows: Vec<Row> = Vec::new();
        for c in 0..self.constraints.len() as u32 {
            if let Some(sign) = self.in_force(c) {
                lits.push(self.constraints[c as usize].lit * sign as Lit);
                rows.push(self.row(c, sign));
            }
        }
        let bounds: Vec<(i64, i64)> = self.vars.iter().map(|v| v.declared).collect();
        match integer_values(&bounds, &rows, budget) {
            Outcome::Values(values) => {
                self.model = values;
                Checked::Values
            }
            Outcome::Infeasible(used) => {
                self.conflicts
                    .push(used.into_iter().map(|k| -lits[k]).collect());
                Checked::Inconsistent
            }
            Outcome::Undecided => Checked::Undecided,
        }
    }

    /// The first variable with more than one value left.
    fn open_var(&self) -> Option<usize> {
        (0..self.vars.len()).find(|&v| self.vars[v].lo < self.vars[v].hi)
    }

    /// The ways to split the domain of `v`, the last tried first: the value nearest 0, then
    /// the values below it, then above it.
    fn choices(&self, v: usize) -> Vec<Choice> {
        let (lo, hi) = (self.vars[v].lo, self.vars[v].hi);
        let at = 0i64.clamp(lo, hi);
        let mut choices = Vec::new();
        if at < hi {
            choices.push((v as u32, at + 1, hi));
        }
        if at > lo {
            choices.push((v as u32, lo, at - 1));
        }
        choices.push((v as u32, at, at));
        choices
    }

    /// Whether the variables' lower bounds keep every constraint in force.
    fn values_hold(&self) -> bool {
        (0..self.constraints.len() as u32).all(|c| match self.in_force(c) {
            None => true,
            Some(sign) => {
                let (row, b) = self.row(c, sign);
                let total: i128 = row
                    .iter()
                    .map(|&(v, a)| a * self.vars[v as usize].lo as i128)
                    .sum();
                total >= b
            }
        })
    }

    /// Narrows `v` to `[lo, hi]` as a choice.
    fn choose(&mut self, v: u32, lo: i64, hi: i64) -> bool {
        let var = &self.vars[v as usize];
        let (cur_lo, cur_hi) = (var.lo, var.hi);
        (lo <= cur_lo || self.set_bound(v, false, lo as i128, 0, Vec::new()))
            && (hi >= cur_hi || self.set_bound(v, true, hi as i128, 0, Vec::new()))
    }
}

/// Puts constraint `c` on the queue unless it is there.
fn enqueue(queue: &mut Vec<u32>, queued: &mut [bool], c: u32) {
    if !queued[c as usize] {
        queued[c as usize] = true;
        queue.push(c);
    }
}

/// ⌈n / d⌉ for d ≠ 0.
fn div_ceil(n: i128, d: i128) -> i128 {
    -div_floor(-n, d)
}

/// ⌊n / d⌋ for d ≠ 0.
fn div_floor(n: i128, d: i128) -> i128 {
    // Most bounds fit in 64 bits, whose division is many times faster.
    if let (Ok(n), Ok(d)) = (i64::try_from(n), i64::try_from(d)) {
        if let Some(q) = n.checked_div(d) {
            let r = n % d;
            return i128::from(if r != 0 && ((n < 0) != (d < 0)) {
                q - 1
            } else {
                q
            });
        }
    }
    let q = n / d;
    if (n % d != 0) && ((n < 0) != (d < 0)) {
        q - 1
    } else {
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_the_right_way() {
        assert_eq!(div_floor(7, 2), 3);
        assert_eq!(div_floor(-7, 2), -4);
        assert_eq!(div_floor(7, -2), -4);
        assert_eq!(div_ceil(7, 2), 4);
        assert_eq!(div_ceil(-7, 2), -3);
        assert_eq!(div_ceil(-7, -2), 4);
    }

    #[test]
    fn wide_divisions_round_the_same_way() {
        let big = i128::from(i64::MAX) * 4 + 1;
        assert_eq!(div_floor(big, 4), i128::from(i64::MAX));
        assert_eq!(div_floor(-big, 4), -i128::from(i64::MAX) - 1);
        assert_eq!(div_floor(i128::from(i64::MIN), -1), -i128::from(i64::MIN));
        assert_eq!(div_ceil(i128::from(i64::MIN), 3), i128::from(i64::MIN) / 3);
    }

    /// Which bound changes a constraint is looked at again for.
    #[test]
    fn a_bound_change_wakes_the_constraints_it_can_narrow_through() {
        let positive = Watch {
            constraint: 0,
            lit: 1,
            positive: true,
        };
        let negative = Watch {
            positive: false,
            ..positive
        };
        // Undecided: either bound may decide it.
        for w in [positive, negative] {
            assert!(w.looks_at(true, 0) && w.looks_at(false, 0));
        }
        // x in Σ ≥ b as written: its upper bound; negated (Σ ≤ b − 1): its lower bound.
        assert!(positive.looks_at(true, 1) && !positive.looks_at(false, 1));
        assert!(!positive.looks_at(true, -1) && positive.looks_at(false, -1));
        assert!(!negative.looks_at(true, 1) && negative.looks_at(false, 1));
        assert!(negative.looks_at(true, -1) && !negative.looks_at(false, -1));
    }

    /// y ≥ 3 and x − y ≥ 0 in force raise x to 3, then z − x ≥ 1 raises z to 4; the
    /// undecided z ≥ 4 is then decided by the bounds, its reason the three constraints.
    #[test]
    fn bounds_travel_along_a_chain_of_constraints() {
        let mut t = IntTheory::default();
        let x = t.add_var(0, 100);
        let y = t.add_var(0, 100);
        let z = t.add_var(0, 100);
        t.add_constraint(1, &[(y, 1)], 3);
        t.add_constraint(2, &[(x, 1), (y, -1)], 0);
        t.add_constraint(3, &[(z, 1), (x, -1)], 1);
        t.add_constraint(4, &[(z, 1)], 4);
        // Looked at last first: z − x ≥ 1 before x has risen.
        t.assigned(&[1, 2, 3]);
        assert_eq!(t.propagate(), 4);
        assert_eq!(t.reasons[&4], vec![1, 2, 3]);
        assert_eq!((t.vars[x].lo, t.vars[z].lo), (3, 4));
    }

    /// x + y ≥ 5 with x ≤ 2 (literal 1 false of x ≥ 3) leaves y ≥ 3.
    #[test]
    fn bounds_follow_from_constraints_in_force() {
        let mut t = IntTheory::default();
        let x = t.add_var(0, 10);
        let y = t.add_var(0, 10);
        t.add_constraint(1, &[(x, 1), (y, 1)], 5);
        t.add_constraint(2, &[(x, 1)], 3);
        t.add_constraint(3, &[(y, 1)], 3);
        t.assigned(&[1, -2]);
        assert_eq!(t.propagate(), 3);
        assert_eq!(t.reasons[&3], vec![-2, 1]);
        assert!(t.check_model());
        assert!(t.value(y) >= 3 && t.value(x) <= 2 && t.value(x) + t.value(y) >= 5);
    }

    /// x ≥ y + 1 and y ≥ x + 1 over unbounded domains: propagation stops at its budget, and
    /// the check refutes it with both literals.
    #[test]
    fn a_cycle_is_refuted() {
        let mut t = IntTheory::default();
        let x = t.add_var(i32::MIN as i64, i32::MAX as i64);
        let y = t.add_var(i32::MIN as i64, i32::MAX as i64);
        t.add_constraint(1, &[(x, 1), (y, -1)], 1);
        t.add_constraint(2, &[(y, 1), (x, -1)], 1);
        t.assigned(&[1, 2]);
        t.propagate();
        assert!(!t.check_model() || t.has_clause());
    }
}
