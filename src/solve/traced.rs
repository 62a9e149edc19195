//! A small conflict-driven (CDCL) SAT solver that records its search, for IDP3's
//! `stdoptions.trace`: every assignment (decisions and unit propagations) with the decision
//! level it was made at, and every backtrack with the level it goes back to (the assignments
//! at that level are kept), in the order they happen. CaDiCaL reports none of that, so when a
//! trace is asked for the session solves with this backend instead; it is incremental and has
//! assumptions and failed assumptions like the others, so loop formulas, blocking clauses and
//! preferred values work unchanged, and the trace is the trace of the search that produced the
//! models.
//!
//! The search is the classic one: two watched literals, first-UIP learning with
//! non-chronological backjumping, variable activities (VSIDS) with phase saving, Luby
//! restarts, and assumptions decided first, one per level. It keeps every learnt clause, which
//! suits the small theories a trace is read for.

use rustc_hash::FxHashSet as HashSet;

use crate::solve::{Lit, SatResult, SatSolver};

/// One step of a recorded search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// `lit` became true at decision level `level` (a decision or a propagation).
    Assign { lit: Lit, level: u32 },
    /// The search went back to decision level `level`, keeping the assignments made there.
    Backtrack { level: u32 },
}

/// Conflicts between restarts are this unit times the Luby sequence.
const RESTART_UNIT: u64 = 100;
/// Steps of the search between two looks at the deadline and Ctrl-C.
const CHECK_EVERY: u64 = 256;

/// A clause's index in the clause list.
type ClauseRef = u32;

/// The traced solver (see the module documentation).
pub struct Traced {
    /// Every clause of two literals or more; the first two literals are watched.
    clauses: Vec<Vec<Lit>>,
    /// Clauses added since the last call, taken in when the next call starts (so that the
    /// assignment of the last model stays on the trail, and in the trace, until then).
    pending: Vec<Vec<Lit>>,
    /// For each literal code, the clauses that watch that literal.
    watches: Vec<Vec<ClauseRef>>,
    /// Per variable: 1 true, -1 false, 0 unassigned.
    values: Vec<i8>,
    level: Vec<u32>,
    reason: Vec<Option<ClauseRef>>,
    trail: Vec<Lit>,
    /// Where each decision level starts on the trail.
    trail_lim: Vec<usize>,
    /// The trail up to here has been propagated.
    qhead: usize,
    order: VarOrder,
    /// The value a variable had last (phase saving); false at first.
    phase: Vec<bool>,
    seen: Vec<bool>,
    /// A conflict without decisions was found: no call can succeed.
    unsat: bool,
    model: Vec<bool>,
    failed: HashSet<Lit>,
    trace: Vec<TraceEvent>,
    /// When to stop.
    until: crate::limits::Until,
    steps: u64,
}

impl Traced {
    pub fn new(until: crate::limits::Until) -> Traced {
        Traced {
            clauses: Vec::new(),
            pending: Vec::new(),
            watches: vec![Vec::new(), Vec::new()],
            values: vec![0],
            level: vec![0],
            reason: vec![None],
            trail: Vec::new(),
            trail_lim: Vec::new(),
            qhead: 0,
            order: VarOrder::default(),
            phase: vec![false],
            seen: vec![false],
            unsat: false,
            model: Vec::new(),
            failed: HashSet::default(),
            trace: Vec::new(),
            until,
            steps: 0,
        }
    }

    fn vars(&self) -> usize {
        self.values.len() - 1
    }

    fn decision_level(&self) -> u32 {
        self.trail_lim.len() as u32
    }

    /// 1 when `lit` is true, -1 when false, 0 when unassigned.
    fn lit_value(&self, lit: Lit) -> i8 {
        let v = self.values[var(lit)];
        if lit < 0 {
            -v
        } else {
            v
        }
    }

    fn enqueue(&mut self, lit: Lit, reason: Option<ClauseRef>) {
        let v = var(lit);
        self.values[v] = if lit > 0 { 1 } else { -1 };
        self.level[v] = self.decision_level();
        self.reason[v] = reason;
        self.trail.push(lit);
        self.trace.push(TraceEvent::Assign {
            lit,
            level: self.decision_level(),
        });
    }

    fn new_decision_level(&mut self) {
        self.trail_lim.push(self.trail.len());
    }

    /// Undoes the assignments above decision level `level`.
    fn cancel_until(&mut self, level: u32) {
        if self.decision_level() <= level {
            return;
        }
        let start = self.trail_lim[level as usize];
        for i in (start..self.trail.len()).rev() {
            let lit = self.trail[i];
            let v = var(lit);
            self.phase[v] = lit > 0;
            self.values[v] = 0;
            self.reason[v] = None;
            self.order.insert(v);
        }
        self.trail.truncate(start);
        self.trail_lim.truncate(level as usize);
        self.qhead = self.qhead.min(start);
        self.trace.push(TraceEvent::Backtrack { level });
    }

    /// Unit propagation of the trail; a clause that became false, if any.
    fn propagate(&mut self) -> Option<ClauseRef> {
        while self.qhead < self.trail.len() {
            let falsified = -self.trail[self.qhead];
            self.qhead += 1;
            if let Some(conflict) = self.propagate_lit(falsified) {
                return Some(conflict);
            }
        }
        None
    }

    /// Visits the clauses watching `falsified`, which just became false.
    fn propagate_lit(&mut self, falsified: Lit) -> Option<ClauseRef> {
        let watching = std::mem::take(&mut self.watches[code(falsified)]);
        let mut kept = Vec::with_capacity(watching.len());
        let mut conflict = None;
        let mut i = 0;
        while i < watching.len() {
            let c = watching[i];
            i += 1;
            if conflict.is_some() {
                kept.push(c);
                continue;
            }
            match self.visit(c, falsified) {
                Visit::Moved => {}
                Visit::Kept => kept.push(c),
                Visit::Conflict => {
                    kept.push(c);
                    conflict = Some(c);
                }
            }
        }
        self.watches[code(falsified)] = kept;
        conflict
    }

    /// Restores the watch invariant of clause `c` after its watched literal `falsified`
    /// became false: watches another literal, or propagates the other watch, or reports a
    /// conflict.
    fn visit(&mut self, c: ClauseRef, falsified: Lit) -> Visit {
        let clause = &mut self.clauses[c as usize];
        if clause[0] == falsified {
            clause.swap(0, 1);
        }
        let other = clause[0];
        let other_value = {
            let v = self.values[var(other)];
            if other < 0 {
                -v
            } else {
                v
            }
        };
        if other_value == 1 {
            return Visit::Kept;
        }
        let replacement = (2..clause.len()).find(|&k| {
            let l = clause[k];
            let v = self.values[var(l)];
            (if l < 0 { -v } else { v }) != -1
        });
        if let Some(k) = replacement {
            clause.swap(1, k);
            let watched = clause[1];
            self.watches[code(watched)].push(c);
            return Visit::Moved;
        }
        if other_value == -1 {
            return Visit::Conflict;
        }
        self.enqueue(other, Some(c));
        Visit::Kept
    }

    /// First-UIP analysis of a conflict: the learnt clause (its asserting literal first, a
    /// literal of the backjump level second) and the level to go back to.
    fn analyze(&mut self, conflict: ClauseRef) -> (Vec<Lit>, u32) {
        let current = self.decision_level();
        let mut learnt = vec![0];
        let mut open = 0usize;
        let mut clause = Some(conflict);
        let mut implied: Option<Lit> = None;
        let mut index = self.trail.len();
        loop {
            if let Some(c) = clause {
                let skip = usize::from(implied.is_some());
                for k in skip..self.clauses[c as usize].len() {
                    let q = self.clauses[c as usize][k];
                    let v = var(q);
                    if self.seen[v] || self.level[v] == 0 {
                        continue;
                    }
                    self.seen[v] = true;
                    self.order.bump(v);
                    if self.level[v] >= current {
                        open += 1;
                    } else {
                        learnt.push(q);
                    }
                }
            }
            loop {
                index -= 1;
                if self.seen[var(self.trail[index])] {
                    break;
                }
            }
            let p = self.trail[index];
            self.seen[var(p)] = false;
            implied = Some(p);
            clause = self.reason[var(p)];
            open -= 1;
            if open == 0 {
                break;
            }
        }
        learnt[0] = -implied.expect("a conflict has a literal at the current level");
        for &q in &learnt[1..] {
            self.seen[var(q)] = false;
        }
        self.order.decay();
        let back = self.backjump_level(&mut learnt);
        (learnt, back)
    }

    /// The highest level among `learnt[1..]`, whose literal is moved to position 1.
    fn backjump_level(&self, learnt: &mut [Lit]) -> u32 {
        if learnt.len() == 1 {
            return 0;
        }
        let mut best = 1;
        for k in 2..learnt.len() {
            if self.level[var(learnt[k])] > self.level[var(learnt[best])] {
                best = k;
            }
        }
        learnt.swap(1, best);
        self.level[var(learnt[1])]
    }

    /// After assumption `p` was found false: the assumptions that imply its negation, with
    /// `p` itself, become the failed ones.
    fn analyze_final(&mut self, p: Lit) {
        self.failed.insert(p);
        if self.decision_level() == 0 {
            return;
        }
        self.seen[var(p)] = true;
        for i in (self.trail_lim[0]..self.trail.len()).rev() {
            let lit = self.trail[i];
            let v = var(lit);
            if !self.seen[v] {
                continue;
            }
            match self.reason[v] {
                None => {
                    self.failed.insert(lit);
                }
                Some(c) => {
                    for k in 1..self.clauses[c as usize].len() {
                        let q = self.clauses[c as usize][k];
                        if self.level[var(q)] > 0 {
                            self.seen[var(q)] = true;
                        }
                    }
                }
            }
            self.seen[v] = false;
        }
        self.seen[var(p)] = false;
    }

    /// Stores a learnt clause and asserts its first literal.
    fn learn(&mut self, learnt: Vec<Lit>) {
        let first = learnt[0];
        if learnt.len() == 1 {
            self.enqueue(first, None);
            return;
        }
        let c = self.attach(learnt);
        self.enqueue(first, Some(c));
    }

    fn attach(&mut self, clause: Vec<Lit>) -> ClauseRef {
        let c = self.clauses.len() as ClauseRef;
        self.watches[code(clause[0])].push(c);
        self.watches[code(clause[1])].push(c);
        self.clauses.push(clause);
        c
    }

    /// The next literal to decide: the next assumption, or an unassigned variable of highest
    /// activity in its saved phase. `Err` carries a false assumption; `Ok(None)` means every
    /// variable is assigned.
    fn next_decision(&mut self, assumptions: &[Lit]) -> Result<Option<Lit>, Lit> {
        while (self.decision_level() as usize) < assumptions.len() {
            let p = assumptions[self.decision_level() as usize];
            match self.lit_value(p) {
                1 => self.new_decision_level(),
                -1 => return Err(p),
                _ => return Ok(Some(p)),
            }
        }
        while let Some(v) = self.order.pop() {
            if self.values[v] == 0 {
                let lit = v as Lit;
                return Ok(Some(if self.phase[v] { lit } else { -lit }));
            }
        }
        Ok(None)
    }

    /// Whether the search must stop now (deadline, Ctrl-C, memory limit); looked at every
    /// few steps only.
    fn must_stop(&mut self) -> bool {
        self.steps += 1;
        if !self.steps.is_multiple_of(CHECK_EVERY) {
            return false;
        }
        self.until.reached()
    }

    /// The search proper, from decision level 0.
    fn search(&mut self, assumptions: &[Lit]) -> SatResult {
        let mut restarts = 0u32;
        let mut budget = RESTART_UNIT * luby(restarts);
        let mut conflicts = 0u64;
        loop {
            if self.must_stop() {
                return SatResult::Interrupted;
            }
            if let Some(conflict) = self.propagate() {
                if self.decision_level() == 0 {
                    self.unsat = true;
                    return SatResult::Unsat;
                }
                let (learnt, back) = self.analyze(conflict);
                self.cancel_until(back);
                self.learn(learnt);
                conflicts += 1;
                if conflicts >= budget {
                    restarts += 1;
                    conflicts = 0;
                    budget = RESTART_UNIT * luby(restarts);
                    self.cancel_until(0);
                }
                continue;
            }
            match self.next_decision(assumptions) {
                Err(p) => {
                    self.analyze_final(p);
                    return SatResult::Unsat;
                }
                Ok(None) => {
                    self.model = self.values.iter().map(|&v| v == 1).collect();
                    return SatResult::Sat;
                }
                Ok(Some(lit)) => {
                    self.new_decision_level();
                    self.enqueue(lit, None);
                }
            }
        }
    }

    /// The steps recorded since the last call (see [`SatSolver::take_trace`]).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.trace)
    }
}

enum Visit {
    /// The clause now watches another literal.
    Moved,
    /// The clause keeps its watch (satisfied, or it propagated).
    Kept,
    Conflict,
}

fn var(lit: Lit) -> usize {
    lit.unsigned_abs() as usize
}

/// The index of a literal in the watch lists.
fn code(lit: Lit) -> usize {
    2 * var(lit) + usize::from(lit < 0)
}

/// The Luby sequence (1, 1, 2, 1, 1, 2, 4, ...), from index 0.
fn luby(i: u32) -> u64 {
    let mut size = 1u64;
    let mut seq = 0u32;
    let x = u64::from(i);
    while size < x + 1 {
        seq += 1;
        size = 2 * size + 1;
    }
    let mut x = x;
    while size - 1 != x {
        size = (size - 1) >> 1;
        seq -= 1;
        x %= size;
    }
    1u64 << seq
}

impl SatSolver for Traced {
    fn new_var(&mut self) -> Lit {
        self.values.push(0);
        self.level.push(0);
        self.reason.push(None);
        self.phase.push(false);
        self.seen.push(false);
        self.watches.push(Vec::new());
        self.watches.push(Vec::new());
        let v = self.vars();
        self.order.grow(v);
        v as Lit
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.pending.push(clause.to_vec());
    }

    fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        self.failed.clear();
        self.cancel_until(0);
        for clause in std::mem::take(&mut self.pending) {
            self.take_in(&clause);
        }
        if self.unsat {
            return SatResult::Unsat;
        }
        self.search(assumptions)
    }

    fn value(&mut self, lit: Lit) -> bool {
        let v = self.model.get(var(lit)).copied().unwrap_or(false);
        if lit < 0 {
            !v
        } else {
            v
        }
    }

    fn failed(&self, lit: Lit) -> bool {
        self.failed.contains(&lit)
    }

    fn num_vars(&self) -> usize {
        self.vars()
    }

    fn take_trace(&mut self) -> Option<Vec<TraceEvent>> {
        Some(self.take_events())
    }
}

impl Traced {
    /// Adds a clause at decision level 0: without the literals false there, dropped when one
    /// is true there, asserted when one literal is left, and the solver unsatisfiable for
    /// good when none is.
    fn take_in(&mut self, clause: &[Lit]) {
        if self.unsat {
            return;
        }
        let mut lits: Vec<Lit> = clause
            .iter()
            .copied()
            .filter(|&l| l != 0 && var(l) <= self.vars())
            .collect();
        lits.sort_unstable_by_key(|&l| (var(l), l));
        lits.dedup();
        if lits.windows(2).any(|w| w[0] == -w[1]) || lits.iter().any(|&l| self.lit_value(l) == 1) {
            return;
        }
        lits.retain(|&l| self.lit_value(l) == 0);
        match lits.len() {
            0 => self.unsat = true,
            1 => self.enqueue(lits[0], None),
            _ => {
                self.attach(lits);
            }
        }
    }
}

/// The variables by activity, highest first: a binary heap with each variable's position.
#[derive(Default)]
struct VarOrder {
    activity: Vec<f64>,
    heap: Vec<usize>,
    /// Position in `heap`, or `usize::MAX` when the variable is not in it.
    pos: Vec<usize>,
    increment: f64,
}

impl VarOrder {
    fn grow(&mut self, v: usize) {
        if self.activity.is_empty() {
            self.activity.push(0.0);
            self.pos.push(usize::MAX);
            self.increment = 1.0;
        }
        self.activity.push(0.0);
        self.pos.push(usize::MAX);
        debug_assert_eq!(self.activity.len(), v + 1);
        self.insert(v);
    }

    fn insert(&mut self, v: usize) {
        if self.pos[v] != usize::MAX {
            return;
        }
        self.pos[v] = self.heap.len();
        self.heap.push(v);
        self.sift_up(self.heap.len() - 1);
    }

    fn pop(&mut self) -> Option<usize> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("non-empty");
        self.pos[top] = usize::MAX;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last] = 0;
            self.sift_down(0);
        }
        Some(top)
    }

    fn bump(&mut self, v: usize) {
        self.activity[v] += self.increment;
        if self.activity[v] > 1e100 {
            for a in &mut self.activity {
                *a *= 1e-100;
            }
            self.increment *= 1e-100;
        }
        if self.pos[v] != usize::MAX {
            self.sift_up(self.pos[v]);
        }
    }

    fn decay(&mut self) {
        self.increment /= 0.95;
    }

    fn before(&self, a: usize, b: usize) -> bool {
        self.activity[a] > self.activity[b] || (self.activity[a] == self.activity[b] && a < b)
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.before(self.heap[i], self.heap[parent]) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < self.heap.len() && self.before(self.heap[l], self.heap[best]) {
                best = l;
            }
            if r < self.heap.len() && self.before(self.heap[r], self.heap[best]) {
                best = r;
            }
            if best == i {
                break;
            }
            self.swap(i, best);
            i = best;
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i]] = i;
        self.pos[self.heap[j]] = j;
    }
}

#[cfg(test)]
mod tests;
