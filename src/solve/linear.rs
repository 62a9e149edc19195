//! Linear bounds inside the search: `a → w₁·x₁ + … + wₙ·xₙ ≥ k` with positive weights,
//! propagated by the solver's external propagator instead of being encoded as clauses, the way
//! clasp treats its minimize statement. An optimisation tightens the bound on its objective
//! after every model; each bound is one fresh activation literal `a` over the same sum, so a
//! bound costs no clauses and no variables beyond it.
//!
//! While some activated bound asks for `k`, the sum of the weights of the terms that are not
//! false (`possible`) must stay at least `k`: a term whose weight exceeds the slack
//! `possible − k` is made true, with the reason `¬a ∨ xⱼ ∨ (false terms)`, and a slack below
//! zero is a conflict, given as the clause `¬a ∨ (false terms)`. The false terms of a reason
//! are the first ones on the trail that suffice, so reasons stay short. That is all the
//! propagation one linear inequality allows (generalised arc consistency).

use rustc_hash::FxHashMap as HashMap;

use super::{ClauseQueue, Lit, ReasonOut};

/// One sum and the bounds asked of it.
struct Sum {
    /// The terms, heaviest first (one per literal; a literal given twice has its weights
    /// added).
    terms: Vec<(Lit, u64)>,
    /// What all the terms weigh together.
    total: u64,
    /// What the terms that are not false weigh.
    possible: u64,
    /// The terms that are false, in the order they became so.
    falsified: Vec<u32>,
    /// Each bound: its activation literal and threshold.
    bounds: Vec<(Lit, u64)>,
    /// The activated bounds, in the order of activation (`(bound, strongest threshold so
    /// far)`, so the last entry tells what is asked now).
    active: Vec<(u32, u64)>,
    /// Whether something changed since the terms were last looked at.
    dirty: bool,
}

impl Sum {
    /// The threshold of the strongest activated bound, with its activation literal.
    fn required(&self) -> Option<(Lit, u64)> {
        let &(_, strongest) = self.active.last()?;
        let bound = self
            .active
            .iter()
            .rev()
            .map(|&(b, _)| self.bounds[b as usize])
            .find(|&(_, k)| k == strongest)?;
        Some(bound)
    }

    /// The literals of the shortest prefix of the first `len` false terms that weighs more
    /// than `excess`; none when `excess` is `None` (nothing needs taking away).
    fn false_prefix(&self, len: usize, excess: Option<u64>) -> Vec<Lit> {
        let mut out = Vec::new();
        let Some(excess) = excess else {
            return out;
        };
        let mut weight = 0u64;
        for &t in &self.falsified[..len] {
            if weight > excess {
                break;
            }
            let (lit, w) = self.terms[t as usize];
            out.push(lit);
            weight = weight.saturating_add(w);
        }
        out
    }
}

/// Where a variable occurs: as a term of a sum, or as a bound's activation literal.
#[derive(Clone, Copy)]
enum Occurrence {
    Term { sum: u32, term: u32 },
    Activation { sum: u32, bound: u32 },
}

/// The propagated literal's reason, kept until the solver asks: the bound that forced it and
/// how many of the sum's false terms were false then.
#[derive(Clone, Copy)]
struct Forced {
    sum: u32,
    activation: Lit,
    threshold: u64,
    weight: u64,
    falsified: usize,
}

/// The linear sums of one solver and the state of their propagation.
#[derive(Default)]
pub struct LinearSums {
    sums: Vec<Sum>,
    /// Variable -> where it occurs.
    occurs: Vec<Vec<Occurrence>>,
    /// Variable -> +1 true, -1 false, 0 unassigned (or not observed).
    values: Vec<i8>,
    /// The assigned literals of observed variables, in order, and where each decision level
    /// starts.
    trail: Vec<Lit>,
    levels: Vec<usize>,
    /// Literals to make true, each with its reason.
    pending: Vec<(Lit, Forced)>,
    /// The reasons of the literals made true and still assigned.
    reasons: HashMap<Lit, Forced>,
    /// The reason clause being handed to the solver, and how far.
    reason_out: ReasonOut,
    /// A conflict clause waiting, and the one being handed over with how far.
    conflicts: ClauseQueue,
}

impl LinearSums {
    /// Adds the sum of `terms` (weights must be positive; zero weights are left out); returns
    /// its index and the variables the solver must now observe.
    pub fn add(&mut self, terms: &[(Lit, u64)]) -> (usize, Vec<Lit>) {
        let mut merged: HashMap<Lit, u64> = HashMap::default();
        for &(lit, w) in terms.iter().filter(|&&(_, w)| w > 0) {
            let slot = merged.entry(lit).or_insert(0);
            *slot = slot.saturating_add(w);
        }
        let mut terms: Vec<(Lit, u64)> = merged.into_iter().collect();
        terms.sort_unstable_by_key(|&(lit, w)| (std::cmp::Reverse(w), lit));
        let total = terms.iter().fold(0u64, |s, &(_, w)| s.saturating_add(w));
        let sum = self.sums.len() as u32;
        let mut observe = Vec::new();
        for (i, &(lit, _)) in terms.iter().enumerate() {
            let occurrence = Occurrence::Term {
                sum,
                term: i as u32,
            };
            self.occur(lit, occurrence, &mut observe);
        }
        self.sums.push(Sum {
            terms,
            total,
            possible: total,
            falsified: Vec::new(),
            bounds: Vec::new(),
            active: Vec::new(),
            dirty: false,
        });
        // Terms false already (at level 0) count from the start.
        let assigned: Vec<Lit> = self.trail.clone();
        for lit in assigned {
            self.apply(lit, Some(sum));
        }
        (sum as usize, observe)
    }

    /// Adds the bound "sum `sum` is at least `threshold` when `activation` is true" (a fresh
    /// literal); returns the variables the solver must now observe.
    pub fn add_bound(&mut self, sum: usize, activation: Lit, threshold: u64) -> Vec<Lit> {
        let bounds = &mut self.sums[sum].bounds;
        let bound = bounds.len() as u32;
        bounds.push((activation, threshold));
        let mut observe = Vec::new();
        let occurrence = Occurrence::Activation {
            sum: sum as u32,
            bound,
        };
        self.occur(activation, occurrence, &mut observe);
        observe
    }

    fn occur(&mut self, lit: Lit, occurrence: Occurrence, observe: &mut Vec<Lit>) {
        let var = lit.unsigned_abs() as usize;
        if self.occurs.len() <= var {
            self.occurs.resize_with(var + 1, Vec::new);
            self.values.resize(var + 1, 0);
        }
        if self.occurs[var].is_empty() {
            observe.push(var as Lit);
        }
        self.occurs[var].push(occurrence);
    }

    fn value(&self, lit: Lit) -> i8 {
        let v = self
            .values
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(0);
        if lit < 0 {
            -v
        } else {
            v
        }
    }

    /// The solver assigned `lits` (observed variables only; others are ignored).
    pub fn assigned(&mut self, lits: &[Lit]) {
        if self.sums.is_empty() {
            return;
        }
        for &lit in lits {
            let var = lit.unsigned_abs() as usize;
            if self.occurs.get(var).is_none_or(Vec::is_empty) || self.value(lit) > 0 {
                continue;
            }
            self.values[var] = if lit > 0 { 1 } else { -1 };
            self.trail.push(lit);
            self.apply(lit, None);
        }
    }

    /// What `lit` becoming true does to the sums (only to `only` when given).
    fn apply(&mut self, lit: Lit, only: Option<u32>) {
        let var = lit.unsigned_abs() as usize;
        for k in 0..self.occurs[var].len() {
            match self.occurs[var][k] {
                Occurrence::Term { sum, term } if only.is_none_or(|s| s == sum) => {
                    let s = &mut self.sums[sum as usize];
                    let (t, w) = s.terms[term as usize];
                    if t == -lit {
                        s.possible -= w;
                        s.falsified.push(term);
                        s.dirty = true;
                    }
                }
                Occurrence::Activation { sum, bound } if only.is_none_or(|s| s == sum) => {
                    let s = &mut self.sums[sum as usize];
                    let (a, k) = s.bounds[bound as usize];
                    if a == lit {
                        let strongest = s.active.last().map_or(k, |&(_, m)| m.max(k));
                        s.active.push((bound, strongest));
                        s.dirty = true;
                    }
                }
                _ => {}
            }
        }
    }

    pub fn new_level(&mut self) {
        if !self.sums.is_empty() {
            self.levels.push(self.trail.len());
        }
    }

    /// The solver went back to decision level `level`: every assignment above it is undone.
    pub fn backtrack(&mut self, level: usize) {
        if self.sums.is_empty() {
            return;
        }
        self.pending.clear();
        self.conflicts.clear();
        if level >= self.levels.len() {
            return;
        }
        let start = self.levels[level];
        self.levels.truncate(level);
        while self.trail.len() > start {
            let lit = self.trail.pop().expect("trail entry");
            let var = lit.unsigned_abs() as usize;
            self.values[var] = 0;
            self.reasons.remove(&lit);
            self.unapply(lit);
        }
    }

    /// Undoes [`LinearSums::apply`] of the last literal assigned.
    fn unapply(&mut self, lit: Lit) {
        let var = lit.unsigned_abs() as usize;
        for k in 0..self.occurs[var].len() {
            match self.occurs[var][k] {
                Occurrence::Term { sum, term } => {
                    let s = &mut self.sums[sum as usize];
                    let (t, w) = s.terms[term as usize];
                    if t == -lit {
                        debug_assert_eq!(s.falsified.last(), Some(&term));
                        s.falsified.pop();
                        s.possible += w;
                        s.dirty = true;
                    }
                }
                Occurrence::Activation { sum, bound } => {
                    let s = &mut self.sums[sum as usize];
                    if s.bounds[bound as usize].0 == lit {
                        debug_assert_eq!(s.active.last().map(|&(b, _)| b), Some(bound));
                        s.active.pop();
                        s.dirty = true;
                    }
                }
            }
        }
    }

    /// The next literal to make true, or 0. A bound that cannot hold any more becomes a
    /// conflict clause instead (see [`LinearSums::has_clause`]).
    pub fn propagate(&mut self) -> Lit {
        loop {
            while let Some((lit, forced)) = self.pending.pop() {
                if self.value(lit) == 0 {
                    self.reasons.insert(lit, forced);
                    return lit;
                }
            }
            if !self.conflicts.is_empty() || !self.scan() {
                return 0;
            }
        }
    }

    /// Looks at the sums that changed: fills `pending` or `conflicts`; false when nothing
    /// was found.
    fn scan(&mut self) -> bool {
        for s in 0..self.sums.len() {
            if !self.sums[s].dirty {
                continue;
            }
            self.sums[s].dirty = false;
            let sum = &self.sums[s];
            let Some((activation, k)) = sum.required() else {
                continue;
            };
            if sum.possible < k {
                let mut clause = vec![-activation];
                // The false terms take away more than the total exceeds the threshold by.
                clause.extend(sum.false_prefix(sum.falsified.len(), sum.total.checked_sub(k)));
                self.conflicts.push(clause);
                return true;
            }
            let slack = sum.possible - k;
            for &(lit, w) in sum.terms.iter().take_while(|&&(_, w)| w > slack) {
                if self.value(lit) == 0 {
                    let forced = Forced {
                        sum: s as u32,
                        activation,
                        threshold: k,
                        weight: w,
                        falsified: sum.falsified.len(),
                    };
                    self.pending.push((lit, forced));
                }
            }
            if !self.pending.is_empty() {
                return true;
            }
        }
        false
    }

    /// Whether this propagator made `lit` true (and so gives its reason).
    pub fn explains(&self, lit: Lit) -> bool {
        self.reasons.contains_key(&lit) || self.reason_out.is_for(lit)
    }

    /// The reason clause of `propagated`, one literal per call (the literal itself first),
    /// then 0.
    pub fn next_reason_lit(&mut self, propagated: Lit) -> Lit {
        let (reasons, sums) = (&self.reasons, &self.sums);
        self.reason_out
            .next(propagated, || match reasons.get(&propagated) {
                Some(f) => {
                    let sum = &sums[f.sum as usize];
                    // Without this term, the others' total exceeds the threshold by less than
                    // the false terms take away.
                    let excess = (sum.total - f.weight).checked_sub(f.threshold);
                    let mut clause = vec![-f.activation];
                    clause.extend(sum.false_prefix(f.falsified, excess));
                    clause
                }
                None => Vec::new(),
            })
    }

    /// Whether a clause is waiting to be added; it becomes the one handed over.
    pub fn has_clause(&mut self) -> bool {
        self.conflicts.has_clause()
    }

    /// The next literal of the clause being handed over, then 0.
    pub fn next_clause_lit(&mut self) -> Lit {
        self.conflicts.next_lit()
    }

    /// Whether the complete assignment `model` (the observed variables' literals) keeps every
    /// activated bound; if not, the violated bound's clause waits to be added.
    pub fn check_model(&mut self, model: &[Lit]) -> bool {
        if self.sums.iter().all(|s| s.bounds.is_empty()) {
            return true;
        }
        let mut truth = vec![0i8; self.values.len()];
        for &l in model {
            if let Some(t) = truth.get_mut(l.unsigned_abs() as usize) {
                *t = if l > 0 { 1 } else { -1 };
            }
        }
        let holds = |l: Lit| {
            let v = truth.get(l.unsigned_abs() as usize).copied().unwrap_or(0);
            if l > 0 {
                v > 0
            } else {
                v < 0
            }
        };
        for sum in &self.sums {
            for &(activation, k) in &sum.bounds {
                if !holds(activation) {
                    continue;
                }
                let reached = sum
                    .terms
                    .iter()
                    .filter(|&&(l, _)| holds(l))
                    .fold(0u64, |s, &(_, w)| s.saturating_add(w));
                if reached < k {
                    let mut clause = vec![-activation];
                    clause.extend(sum.terms.iter().map(|&(l, _)| l).filter(|&l| !holds(l)));
                    self.conflicts.push(clause);
                    return false;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
