//! SAT solving behind a small trait, so the encoder and the inferences do not depend on one
//! solver. The default backend is CaDiCaL (incremental, with assumptions); see the README for
//! why it is preferred over splr here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::limits::Until;

mod branch_and_bound;
mod inside_count;
mod integers;
mod linear;
mod portfolio;
mod record;
mod simplex;
mod splr;
mod traced;
mod unfounded;
use self::inside_count::InsideCount;
use self::integers::IntTheory;
use self::linear::LinearSums;
pub use self::portfolio::{portfolio_configs, Portfolio};
pub use self::record::{Recorded, Recorder};
pub use self::simplex::LpOptimum;
use self::simplex::RealTheory;
pub use self::splr::Splr;
pub use self::traced::{TraceEvent, Traced};
use self::unfounded::UnfoundedSets;
pub use self::unfounded::{DefinitionGraph, GraphChild, GraphNode, SearchStats};

/// A literal in DIMACS convention: a non-zero integer, negative for negation.
pub type Lit = i32;

/// A clause handed to CaDiCaL, which asks for it one literal per callback.
struct Handover {
    lits: Vec<Lit>,
    pos: usize,
}

impl Handover {
    fn new(lits: Vec<Lit>) -> Handover {
        Handover { lits, pos: 0 }
    }

    /// The next literal; `None` once all were given.
    fn next(&mut self) -> Option<Lit> {
        let l = self.lits.get(self.pos).copied();
        self.pos += 1;
        l
    }
}

/// The conflict clauses a theory propagator found, handed to CaDiCaL one at a time, a
/// literal per callback.
#[derive(Default)]
struct ClauseQueue {
    pending: Vec<Vec<Lit>>,
    out: Option<Handover>,
}

impl ClauseQueue {
    fn push(&mut self, clause: Vec<Lit>) {
        self.pending.push(clause);
    }

    fn clear(&mut self) {
        self.pending.clear();
    }

    /// Whether no clause waits (one being handed over does not count).
    fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Whether a clause waits; it is handed over literal by literal from now on.
    fn has_clause(&mut self) -> bool {
        self.out = self.pending.pop().map(Handover::new);
        self.out.is_some()
    }

    /// The next literal of the clause being handed over, then 0.
    fn next_lit(&mut self) -> Lit {
        hand_over(&mut self.out)
    }
}

/// The reason clause a propagator is handing over, and for which literal.
#[derive(Default)]
struct ReasonOut(Option<(Lit, Handover)>);

impl ReasonOut {
    /// Whether the reason of `lit` is being handed over.
    fn is_for(&self, lit: Lit) -> bool {
        self.0.as_ref().is_some_and(|(l, _)| *l == lit)
    }

    /// The next literal of the reason clause of `propagated`: `propagated` itself first (the
    /// clause, made by `clause`, is taken then), its other literals, then 0.
    fn next(&mut self, propagated: Lit, clause: impl FnOnce() -> Vec<Lit>) -> Lit {
        match &mut self.0 {
            Some((l, out)) if *l == propagated => match out.next() {
                Some(lit) => lit,
                None => {
                    self.0 = None;
                    0
                }
            },
            _ => {
                self.0 = Some((propagated, Handover::new(clause())));
                propagated
            }
        }
    }
}

/// The next literal of the clause in `out`, or 0 (and `out` emptied) after its last.
fn hand_over(out: &mut Option<Handover>) -> Lit {
    match out.as_mut().and_then(Handover::next) {
        Some(l) => l,
        None => {
            *out = None;
            0
        }
    }
}

/// The literals a theory propagator watches: the constraints each SAT variable's literal
/// asserts, and the values the solver gave them, in the order it gave them.
#[derive(Default)]
struct WatchedLits {
    constraints: rustc_hash::FxHashMap<u32, Vec<u32>>,
    /// Per SAT variable: 1 true, −1 false, 0 unassigned or not watched (read at every look
    /// at a constraint, so a vector rather than a map).
    values: Vec<i8>,
    trail: Vec<Lit>,
}

impl WatchedLits {
    /// Makes `lit`'s variable assert constraint `c`.
    fn watch(&mut self, lit: Lit, c: u32) {
        let var = lit.unsigned_abs();
        self.constraints.entry(var).or_default().push(c);
        if self.values.len() <= var as usize {
            self.values.resize(var as usize + 1, 0);
        }
    }

    /// 1 when `lit` is true, −1 when false, 0 when unassigned (or not watched).
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

    /// Records that `lit` is true: the constraints it asserts, when it is watched and was
    /// unassigned.
    fn assign(&mut self, lit: Lit) -> Option<&[u32]> {
        let var = lit.unsigned_abs();
        let cs = self.constraints.get(&var)?;
        let value = &mut self.values[var as usize];
        if *value != 0 {
            return None;
        }
        *value = if lit > 0 { 1 } else { -1 };
        self.trail.push(lit);
        Some(cs)
    }

    /// How many literals were given so far.
    fn len(&self) -> usize {
        self.trail.len()
    }

    /// Forgets the literals given after the first `len`; those literals.
    fn undo_to(&mut self, len: usize) -> Vec<Lit> {
        let undone: Vec<Lit> = self.trail.drain(len.min(self.trail.len())..).collect();
        for lit in &undone {
            self.values[lit.unsigned_abs() as usize] = 0;
        }
        undone
    }
}

/// What propagation without a decision gives ([`SatSolver::implied`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Implied {
    /// The literals it derives.
    Lits(Vec<Lit>),
    /// It meets a conflict: no model has the assumptions.
    Conflict,
    /// The solver cannot propagate without a search.
    Unsupported,
}

/// The answer of a SAT call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatResult {
    Sat,
    Unsat,
    /// The call was stopped (time limit or interrupt).
    Interrupted,
}

pub trait SatSolver {
    /// A fresh variable.
    fn new_var(&mut self) -> Lit;
    fn add_clause(&mut self, clause: &[Lit]);
    /// Solves under the given assumptions (which hold only for this call).
    fn solve(&mut self, assumptions: &[Lit]) -> SatResult;
    /// [`SatSolver::solve`], stopped (`Interrupted`) after `conflicts` conflicts by a solver
    /// that can count them.
    fn solve_limited(&mut self, assumptions: &[Lit], conflicts: u32) -> SatResult {
        let _ = conflicts;
        self.solve(assumptions)
    }
    /// What unit propagation (and the propagators inside the search: unfounded sets, sums,
    /// numbers) derives under `assumptions`, without a decision.
    fn implied(&mut self, assumptions: &[Lit]) -> Implied {
        let _ = assumptions;
        Implied::Unsupported
    }
    /// Stops the searches that follow (`Interrupted`) once `at` has passed, besides the run's
    /// own limits; `None` takes that back. A solver without a clock ignores it.
    fn set_call_deadline(&mut self, at: Option<Instant>) {
        let _ = at;
    }
    /// The value of a literal in the last model.
    fn value(&mut self, lit: Lit) -> bool;
    /// The search's counters so far (all calls together), for `--stats`; `None` from a
    /// solver that keeps none.
    fn counters(&self) -> Option<SearchCounters> {
        None
    }
    /// Asks the search to try `lit` first whenever it decides on its variable (a hint that
    /// changes no answer; backends without one ignore it). `forget` drops the hint again.
    fn prefer(&mut self, _lit: Lit, _forget: bool) {}
    /// After a call that found no model: whether assumption `lit` was needed for that (the
    /// failed assumptions form an unsatisfiable core). A solver that cannot tell says true.
    fn failed(&self, lit: Lit) -> bool;
    /// Number of variables created so far.
    fn num_vars(&self) -> usize;
    /// The search steps recorded since the last time they were taken (assignments with their
    /// decision levels, backtracks), for a solver that records them ([`Traced`]); `None` for
    /// one that does not.
    fn take_trace(&mut self) -> Option<Vec<TraceEvent>> {
        None
    }
    /// Makes the solver keep the definition behind `graph` during its search: every set of
    /// the graph's nodes that has lost all support from outside itself (an unfounded set) is
    /// made false as soon as the partial assignment shows it, with its loop nogood as reason.
    /// False when this solver cannot (the caller then checks each model itself); a solver
    /// takes definitions only before its first search.
    fn propagate_definition(&mut self, _graph: &DefinitionGraph) -> bool {
        false
    }
    /// What the propagation of definitions did so far, for a solver that does it.
    fn search_stats(&self) -> Option<SearchStats> {
        None
    }
    /// Makes the next searches count up to `limit` models distinct on `lits` inside the search
    /// ([`SatSolver::counted_inside`]), each excluded by its blocking clause as it is found;
    /// the model after the limit is returned as usual. False when this solver cannot (the
    /// caller then blocks each model itself); a solver counts so only before its first search.
    fn count_inside(&mut self, _lits: &[Lit], _limit: usize) -> bool {
        false
    }
    /// The models counted inside the search (and blocked there) since the last call.
    fn counted_inside(&mut self) -> usize {
        0
    }
    /// [`SatSolver::count_inside`], each counted model also kept whole for
    /// [`SatSolver::recorded_inside`] (to be decoded and printed); false when this solver
    /// cannot.
    fn record_inside(&mut self, _lits: &[Lit], _limit: usize) -> bool {
        false
    }
    /// The models counted and kept since the last call, in the order found: each the value
    /// of every variable (index: variable; index 0 is no variable).
    fn recorded_inside(&mut self) -> Vec<Vec<bool>> {
        Vec::new()
    }
    /// Makes the solver keep the weighted sum of `terms` (positive weights) for bounds given
    /// by [`SatSolver::sum_at_least`], propagated inside its search; its index, or `None` when
    /// this solver cannot (the caller then encodes each bound as clauses). A solver takes sums
    /// only before its first search.
    fn add_sum(&mut self, _terms: &[(Lit, u64)]) -> Option<usize> {
        None
    }
    /// A fresh literal that, when true, makes sum `sum` (of [`SatSolver::add_sum`]) at least
    /// `threshold`.
    fn sum_at_least(&mut self, _sum: usize, _threshold: u64) -> Lit {
        unreachable!("sum_at_least on a solver without sums")
    }
    /// A variable over the integers `[low, high]` that the solver reasons about by bounds
    /// inside its search (see [`IntTheory`]); its index, or `None` when this solver cannot.
    fn add_int_var(&mut self, _low: i64, _high: i64) -> Option<usize> {
        None
    }
    /// Makes `lit` say `Σ terms ≥ bound` over integer variables (and its negation
    /// `Σ terms < bound`).
    fn add_int_constraint(&mut self, _lit: Lit, _terms: &[(usize, i64)], _bound: i64) {
        unreachable!("integer constraints on a solver without integers")
    }
    /// The value of integer variable `v` in the last model.
    fn int_value(&self, _v: usize) -> i64 {
        0
    }
    /// Whether the last model's numbers were accepted without their values being shown to
    /// exist (the search for them ran out of budget): the caller must not trust it.
    fn integers_undecided(&mut self) -> bool {
        false
    }
    /// A variable over the reals within `[low, high]` (`None`: unbounded on that side) that
    /// the solver decides inside its search by the simplex (see [`RealTheory`]); its index,
    /// or `None` when this solver cannot.
    fn add_real_var(&mut self, _low: Option<Rational>, _high: Option<Rational>) -> Option<usize> {
        None
    }
    /// Makes `lit` say `Σ terms ≥ bound` over real variables (and its negation
    /// `Σ terms < bound`).
    fn add_real_constraint(&mut self, _lit: Lit, _terms: &[(usize, Rational)], _bound: Rational) {
        unreachable!("real constraints on a solver without reals")
    }
    /// The value of real variable `v` in the last model.
    fn real_value(&self, _v: usize) -> Rational {
        Rational::default()
    }
    /// Makes each model the solver accepts minimise `Σ terms` over real variables under its
    /// bounds (see [`RealTheory::set_objective`]); false when this solver cannot.
    fn set_real_objective(&mut self, _terms: &[(usize, Rational)]) -> bool {
        false
    }
    /// The least value of the real objective under the last model's bounds.
    fn real_optimum(&self) -> Option<LpOptimum> {
        None
    }
}

pub use crate::structure::Rational;

/// Stops a CaDiCaL search when the run's deadline passes, on Ctrl-C, when the process exceeds
/// the memory limit, when the deadline of the call (shared with the [`Cadical`] that sets
/// it) passes, or, for a solver of a [`Portfolio`], when another one has answered.
pub struct Deadline {
    until: Until,
    call: Rc<Cell<Option<Instant>>>,
    race: Option<Arc<RaceStop>>,
}

/// A solver's part in the races of a [`Portfolio`]: which race it is searching (0: none),
/// and up to which race it has been stopped. A stop that comes late, after its search has
/// ended, stops nothing that follows.
#[derive(Debug, Default)]
pub struct RaceStop {
    running: AtomicU64,
    stopped: AtomicU64,
}

impl RaceStop {
    /// The solver starts searching for race `race` (0: it has stopped searching).
    pub fn run(&self, race: u64) {
        self.running.store(race, Ordering::Relaxed);
    }

    /// Stops the solver's search if it is of race `race` or an earlier one.
    pub fn stop(&self, race: u64) {
        self.stopped.fetch_max(race, Ordering::Relaxed);
    }

    /// Whether the search going on is to stop.
    pub fn is_stopped(&self) -> bool {
        let running = self.running.load(Ordering::Relaxed);
        running != 0 && self.stopped.load(Ordering::Relaxed) >= running
    }
}

impl cadical_sys::Terminator for Deadline {
    fn terminated(&mut self) -> bool {
        self.race.as_ref().is_some_and(|r| r.is_stopped())
            || self.call.get().is_some_and(|at| Instant::now() >= at)
            || self.until.reached()
    }
}

/// What a search has done: conflicts, decisions and propagated literals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounters {
    pub conflicts: i64,
    pub decisions: i64,
    pub propagations: i64,
}

impl std::ops::Sub for SearchCounters {
    type Output = SearchCounters;
    fn sub(self, earlier: SearchCounters) -> SearchCounters {
        SearchCounters {
            conflicts: self.conflicts - earlier.conflicts,
            decisions: self.decisions - earlier.decisions,
            propagations: self.propagations - earlier.propagations,
        }
    }
}

/// CaDiCaL (version 3, through `cadical-sys`), with the definitions it is given propagated
/// inside its search by an [`UnfoundedSets`] propagator.
pub struct Cadical {
    solver: cadical_sys::CaDiCal,
    vars: i32,
    /// The propagator, shared with the solver that calls it; `None` until a definition is
    /// given.
    unfounded: Option<Rc<RefCell<UnfoundedSets>>>,
    /// Whether a search has run: variables may have been eliminated since, and CaDiCaL
    /// cannot observe those, so definitions given later are left to the caller.
    searched: bool,
    /// Whether definitions are taken into the search at all.
    propagates: bool,
    /// The assumptions that the last search, if it found no model, needed for that.
    failed: Vec<Lit>,
    /// The models being counted inside the search, shared with the propagator; `None`
    /// unless [`SatSolver::count_inside`] started that.
    counting: Rc<RefCell<Option<InsideCount>>>,
    /// The linear sums and their bounds, shared with the propagator.
    sums: Rc<RefCell<LinearSums>>,
    /// The integer variables and constraints over them, shared with the propagator.
    ints: Rc<RefCell<IntTheory>>,
    /// The real variables and constraints over them, shared with the propagator.
    reals: Rc<RefCell<RealTheory>>,
    /// The deadline of the calls, shared with the terminator.
    call_deadline: Rc<Cell<Option<Instant>>>,
}

impl Cadical {
    /// A solver in CaDiCaL's default configuration.
    pub fn new(until: Until) -> Cadical {
        Cadical::configured(until, None)
    }

    /// A solver in CaDiCaL's configuration `config` (`sat`, `unsat`, `plain`, and options
    /// `name=value`, comma-separated: `sat,shrink=0`; from `IDP_CADICAL_CONFIG`, for
    /// experiments such as shuffled seeds); an unknown name or option is left out.
    pub fn configured(until: Until, config: Option<&str>) -> Cadical {
        Cadical::racing(until, config, None)
    }

    /// [`Cadical::configured`], its searches also stopped by `race` (by the [`Portfolio`] it
    /// runs in, when another solver has answered).
    pub fn racing(until: Until, config: Option<&str>, race: Option<Arc<RaceStop>>) -> Cadical {
        let mut solver = cadical_sys::CaDiCal::new();
        for part in config.into_iter().flat_map(|c| c.split(',')) {
            match part.split_once('=') {
                Some((name, value)) => {
                    if let Ok(value) = value.trim().parse() {
                        solver.set(name.trim(), value);
                    }
                }
                None if cadical_sys::CaDiCal::is_valid_configuration(part) => {
                    solver.configure(part);
                }
                None => {}
            }
        }
        // CaDiCaL tries its "lucky" assignments (all false, all true, in order...) at the
        // start of every call made without a propagator connected, and looks at no terminator
        // meanwhile: in a portfolio (whose solvers often have no propagator) that was most of
        // each call, and the race's loser went on long after the winner answered (50 models of
        // a 70 000-variable map colouring with a distance sum: 80 ms a call against 10 ms
        // alone); alone, PlayID's `incredible`, whose definitions need no propagator, spent
        // 13 s of its first call there against 0.1 s without.
        solver.set("lucky", 0);
        let call_deadline = Rc::new(Cell::new(None));
        solver.connect_terminator(Deadline {
            until,
            call: call_deadline.clone(),
            race,
        });
        Cadical {
            solver,
            vars: 0,
            unfounded: None,
            searched: false,
            propagates: true,
            failed: Vec::new(),
            counting: Rc::default(),
            sums: Rc::default(),
            ints: Rc::default(),
            reals: Rc::default(),
            call_deadline,
        }
    }

    /// The propagator connected to the solver (connected now if it was not).
    fn propagator(&mut self) -> Rc<RefCell<UnfoundedSets>> {
        if let Some(u) = &self.unfounded {
            return u.clone();
        }
        let u = Rc::new(RefCell::new(UnfoundedSets::default()));
        self.solver.connect_external_propagator(Shared {
            unfounded: u.clone(),
            counting: self.counting.clone(),
            sums: self.sums.clone(),
            ints: self.ints.clone(),
            reals: self.reals.clone(),
            handing: Handing::LoopNogood,
        });
        self.unfounded = Some(u.clone());
        u
    }

    /// How many integer variables the solver has.
    pub fn int_vars(&self) -> usize {
        self.ints.borrow().var_count()
    }

    /// How many real variables the solver has.
    pub fn real_vars(&self) -> usize {
        self.reals.borrow().var_count()
    }

    /// A solver that leaves every definition to its caller (who checks each model).
    pub fn without_propagation(until: Until, config: Option<&str>) -> Cadical {
        Cadical {
            propagates: false,
            ..Cadical::configured(until, config)
        }
    }
}

impl SatSolver for Cadical {
    fn new_var(&mut self) -> Lit {
        self.vars = self.solver.declare_one_more_variable();
        if let Some(counting) = self.counting.borrow_mut().as_mut() {
            if counting.is_recording() {
                self.solver.add_observed_var(self.vars);
                counting.note_new_var(self.vars as usize);
            }
        }
        self.vars
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.solver.clause6(clause);
    }

    fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        self.searched = true;
        for &a in assumptions {
            self.solver.assume(a);
        }
        self.failed.clear();
        match self.solver.solve() {
            cadical_sys::Status::SATISFIABLE => SatResult::Sat,
            cadical_sys::Status::UNSATISFIABLE => {
                for &a in assumptions {
                    if self.solver.failed(a) {
                        self.failed.push(a);
                    }
                }
                SatResult::Unsat
            }
            cadical_sys::Status::UNKNOWN => SatResult::Interrupted,
        }
    }

    fn counters(&self) -> Option<SearchCounters> {
        let count = |name: &str| self.solver.get_statistic_value(name);
        Some(SearchCounters {
            conflicts: count("conflicts"),
            decisions: count("decisions"),
            propagations: count("propagations"),
        })
    }

    fn solve_limited(&mut self, assumptions: &[Lit], conflicts: u32) -> SatResult {
        self.solver
            .limit("conflicts", conflicts.min(i32::MAX as u32) as i32);
        self.solve(assumptions)
    }

    fn set_call_deadline(&mut self, at: Option<Instant>) {
        self.call_deadline.set(at);
    }

    fn implied(&mut self, assumptions: &[Lit]) -> Implied {
        self.searched = true;
        for &a in assumptions {
            self.solver.assume(a);
        }
        match self.solver.propagate() {
            cadical_sys::Status::UNSATISFIABLE => Implied::Conflict,
            _ => Implied::Lits(self.solver.implied()),
        }
    }

    fn value(&mut self, lit: Lit) -> bool {
        self.solver.val(lit) > 0
    }

    fn prefer(&mut self, lit: Lit, forget: bool) {
        if forget {
            self.solver.unphase(lit);
        } else {
            self.solver.phase(lit);
        }
    }

    fn failed(&self, lit: Lit) -> bool {
        self.failed.contains(&lit)
    }

    fn num_vars(&self) -> usize {
        self.vars as usize
    }

    fn propagate_definition(&mut self, graph: &DefinitionGraph) -> bool {
        if self.searched || !self.propagates {
            return false;
        }
        let observed = self.propagator().borrow_mut().add(graph);
        for var in observed {
            self.solver.add_observed_var(var);
        }
        true
    }

    fn search_stats(&self) -> Option<SearchStats> {
        let stats = self.unfounded.as_ref()?.borrow().stats();
        let count = |name: &str| self.solver.get_statistic_value(name).max(0) as u64;
        Some(SearchStats {
            conflicts: count("conflicts"),
            decisions: count("decisions"),
            ..stats
        })
    }

    fn count_inside(&mut self, lits: &[Lit], limit: usize) -> bool {
        if self.searched {
            return false;
        }
        let Some(counting) = InsideCount::new(lits, limit) else {
            return false;
        };
        self.propagator();
        for var in counting.vars() {
            self.solver.add_observed_var(var);
        }
        *self.counting.borrow_mut() = Some(counting);
        true
    }

    fn counted_inside(&mut self) -> usize {
        self.counting
            .borrow_mut()
            .as_mut()
            .map_or(0, InsideCount::take_counted)
    }

    fn record_inside(&mut self, lits: &[Lit], limit: usize) -> bool {
        if self.searched {
            return false;
        }
        let vars = self.vars.max(0) as usize;
        let Some(counting) = InsideCount::recording(lits, limit, vars) else {
            return false;
        };
        self.propagator();
        for var in 1..=self.vars {
            self.solver.add_observed_var(var);
        }
        *self.counting.borrow_mut() = Some(counting);
        true
    }

    fn recorded_inside(&mut self) -> Vec<Vec<bool>> {
        self.counting
            .borrow_mut()
            .as_mut()
            .map_or_else(Vec::new, InsideCount::take_recorded)
    }

    fn add_sum(&mut self, terms: &[(Lit, u64)]) -> Option<usize> {
        if self.searched {
            return None;
        }
        self.propagator();
        let (sum, observed) = self.sums.borrow_mut().add(terms);
        for var in observed {
            self.solver.add_observed_var(var);
        }
        Some(sum)
    }

    fn add_int_var(&mut self, low: i64, high: i64) -> Option<usize> {
        self.propagator();
        Some(self.ints.borrow_mut().add_var(low, high))
    }

    fn add_int_constraint(&mut self, lit: Lit, terms: &[(usize, i64)], bound: i64) {
        let var = self.ints.borrow_mut().add_constraint(lit, terms, bound);
        self.solver.add_observed_var(var);
    }

    fn int_value(&self, v: usize) -> i64 {
        self.ints.borrow().value(v)
    }

    fn integers_undecided(&mut self) -> bool {
        self.ints.borrow_mut().take_undecided()
    }

    fn add_real_var(&mut self, low: Option<Rational>, high: Option<Rational>) -> Option<usize> {
        self.propagator();
        Some(self.reals.borrow_mut().add_var(low, high))
    }

    fn add_real_constraint(&mut self, lit: Lit, terms: &[(usize, Rational)], bound: Rational) {
        let var = self.reals.borrow_mut().add_constraint(lit, terms, bound);
        self.solver.add_observed_var(var);
    }

    fn real_value(&self, v: usize) -> Rational {
        self.reals.borrow().value(v).clone()
    }

    fn set_real_objective(&mut self, terms: &[(usize, Rational)]) -> bool {
        self.propagator();
        self.reals.borrow_mut().set_objective(terms);
        true
    }

    fn real_optimum(&self) -> Option<LpOptimum> {
        self.reals.borrow().optimum()
    }

    fn sum_at_least(&mut self, sum: usize, threshold: u64) -> Lit {
        let activation = self.new_var();
        let observed = self.sums.borrow_mut().add_bound(sum, activation, threshold);
        for var in observed {
            self.solver.add_observed_var(var);
        }
        activation
    }
}

/// Which clause the propagator is handing over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handing {
    LoopNogood,
    SumConflict,
    IntConflict,
    RealConflict,
    Blocking,
}

/// The propagator as CaDiCaL holds it: the unfounded sets, the linear sums and the models
/// counted inside the search, shared with [`Cadical`], which gives it definitions and sums
/// between searches.
struct Shared {
    unfounded: Rc<RefCell<UnfoundedSets>>,
    counting: Rc<RefCell<Option<InsideCount>>>,
    sums: Rc<RefCell<LinearSums>>,
    ints: Rc<RefCell<IntTheory>>,
    reals: Rc<RefCell<RealTheory>>,
    /// Whose clause is being handed over.
    handing: Handing,
}

impl cadical_sys::ExternalPropagator for Shared {
    /// Loop nogoods that served as reasons are learnt clauses: the solver may delete them
    /// (the propagator finds them again when needed); kept, they pile up by the hundred
    /// thousand and slow every propagation.
    fn are_reasons_forgettable(&mut self) -> bool {
        true
    }

    fn notify_assignment(&mut self, lits: &[i32]) {
        self.unfounded.borrow_mut().assigned(lits);
        self.sums.borrow_mut().assigned(lits);
        self.ints.borrow_mut().assigned(lits);
        self.reals.borrow_mut().assigned(lits);
    }

    fn notify_new_decision_level(&mut self) {
        self.unfounded.borrow_mut().new_level();
        self.sums.borrow_mut().new_level();
        self.ints.borrow_mut().new_level();
        self.reals.borrow_mut().new_level();
    }

    fn notify_backtrack(&mut self, new_level: usize) {
        self.unfounded.borrow_mut().backtrack(new_level);
        self.sums.borrow_mut().backtrack(new_level);
        self.ints.borrow_mut().backtrack(new_level);
        self.reals.borrow_mut().backtrack(new_level);
    }

    /// A model must be founded and keep the bounds on sums; one that does and is being
    /// counted is refuted by its blocking clause, so the search goes on.
    fn cb_check_found_model(&mut self, model: &[i32]) -> bool {
        if !self.unfounded.borrow_mut().check_model(model) {
            return false;
        }
        if !self.sums.borrow_mut().check_model(model) {
            return false;
        }
        if !self.ints.borrow_mut().check_model() {
            return false;
        }
        if !self.reals.borrow_mut().check_model() {
            return false;
        }
        let mut counting = self.counting.borrow_mut();
        !counting.as_mut().is_some_and(|c| c.take_model(model))
    }

    fn cb_propagate(&mut self) -> i32 {
        match self.unfounded.borrow_mut().propagate() {
            0 => match self.sums.borrow_mut().propagate() {
                0 => match self.ints.borrow_mut().propagate() {
                    0 => self.reals.borrow_mut().propagate(),
                    lit => lit,
                },
                lit => lit,
            },
            lit => lit,
        }
    }

    fn cb_add_reason_clause_lit(&mut self, propagated_lit: i32) -> i32 {
        let mut sums = self.sums.borrow_mut();
        if sums.explains(propagated_lit) {
            return sums.next_reason_lit(propagated_lit);
        }
        let mut ints = self.ints.borrow_mut();
        if ints.explains(propagated_lit) {
            return ints.next_reason_lit(propagated_lit);
        }
        self.unfounded.borrow_mut().next_reason_lit(propagated_lit)
    }

    /// Loop nogoods and conflicts of sums first (forgettable: implied by what the propagator
    /// keeps), then a blocking clause (kept: forgotten, it would let its model be counted
    /// again).
    fn cb_has_external_clause(&mut self, is_forgettable: &mut bool) -> bool {
        *is_forgettable = true;
        self.handing = Handing::LoopNogood;
        if self.unfounded.borrow_mut().has_clause() {
            return true;
        }
        self.handing = Handing::SumConflict;
        if self.sums.borrow_mut().has_clause() {
            return true;
        }
        self.handing = Handing::IntConflict;
        if self.ints.borrow_mut().has_clause() {
            return true;
        }
        self.handing = Handing::RealConflict;
        if self.reals.borrow_mut().has_clause() {
            return true;
        }
        *is_forgettable = false;
        self.handing = Handing::Blocking;
        let mut counting = self.counting.borrow_mut();
        counting.as_mut().is_some_and(InsideCount::has_clause)
    }

    fn cb_add_external_clause_lit(&mut self) -> i32 {
        match self.handing {
            Handing::LoopNogood => self.unfounded.borrow_mut().next_clause_lit(),
            Handing::SumConflict => self.sums.borrow_mut().next_clause_lit(),
            Handing::IntConflict => self.ints.borrow_mut().next_clause_lit(),
            Handing::RealConflict => self.reals.borrow_mut().next_clause_lit(),
            Handing::Blocking => {
                let mut counting = self.counting.borrow_mut();
                counting.as_mut().map_or(0, InsideCount::next_clause_lit)
            }
        }
    }
}
