//! A ground theory being solved: the Tseitin [`Encoder`], the SAT solver it fills, the values
//! of the last model, and (for `--dump ground`) the ground formulas asserted so far. Every
//! clause of a session goes through here, so the order in which they reach the solver is the
//! order of the calls.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::encode::totalizer::{self, Counter};
use crate::encode::Encoder;
use crate::ground::{AtomId, Gf, Store};
use crate::solve::{
    DefinitionGraph, Implied, Lit, LpOptimum, Rational, SatResult, SatSolver, SearchStats,
};

pub struct Sat {
    encoder: Encoder,
    /// The solver; in a cell so that reading the last model's values, which asks it, does
    /// not need `&mut self`.
    solver: RefCell<Box<dyn SatSolver>>,
    /// The values of the SAT variables in the last model (index = variable; 1 true, -1 false,
    /// 0 not read yet), kept so that clauses can be added while the model is still being
    /// inspected. They are read from the solver when first asked (most of an enumeration's
    /// models are only blocked, on a few of their variables), and all of them before the
    /// solver changes (a clause, a variable, a search).
    model: RefCell<Vec<i8>>,
    /// Whether some values of `model` are still to be read from the solver.
    unread: Cell<bool>,
    /// How many integer variables the solver keeps, and their values in the last model.
    int_vars: usize,
    numbers: Vec<i64>,
    /// How many real variables the solver keeps, and their values in the last model.
    real_vars: usize,
    reals: Vec<Rational>,
    /// The asserted ground formulas, each with where it comes from, when they are kept for a
    /// dump.
    asserted: Option<Vec<(Gf, Rc<str>)>>,
    /// Where the formulas asserted next come from (for the dump).
    origin: Rc<str>,
    /// Whether the atoms of non-recursive definitions may stand for their bodies' literals
    /// ([`Sat::alias`]); off unless [`Sat::share_literals`] turned it on.
    aliases: bool,
    /// The sums bounds are asked of ([`Sat::add_sum`]).
    sums: Vec<SumBounds>,
}

/// How the bounds of one sum are made: a count by clauses, a weighted sum by the solver's
/// propagator.
enum SumBounds {
    Count(Counter),
    Native(usize),
}

/// A model kept aside while the search goes on: the values of the SAT variables and of the
/// integer variables.
#[derive(Clone, Debug, Default)]
pub struct SavedModel {
    lits: Vec<bool>,
    numbers: Vec<i64>,
    reals: Vec<Rational>,
}

impl Sat {
    /// An empty encoding into `solver`; `keep_asserted` keeps the asserted formulas for
    /// [`Sat::take_asserted`].
    pub fn new(solver: Box<dyn SatSolver>, keep_asserted: bool) -> Sat {
        Sat {
            encoder: Encoder::new(),
            solver: RefCell::new(solver),
            model: RefCell::new(Vec::new()),
            int_vars: 0,
            numbers: Vec::new(),
            real_vars: 0,
            reals: Vec::new(),
            unread: Cell::new(false),
            asserted: keep_asserted.then(Vec::new),
            origin: Rc::from(""),
            aliases: false,
            sums: Vec::new(),
        }
    }

    /// Names where the formulas asserted from now on come from (`sentence at f.idp:3:1: ...`);
    /// `origin` is called only when the asserted formulas are kept.
    pub fn set_origin(&mut self, origin: impl FnOnce() -> String) {
        if self.asserted.is_some() {
            self.origin = Rc::from(origin());
        }
    }

    /// Adds `g` as a constraint.
    pub fn assert(&mut self, store: &Store, g: Gf) {
        if let Some(asserted) = &mut self.asserted {
            asserted.push((g, self.origin.clone()));
        }
        self.read_model();
        self.encoder
            .assert(store, self.solver.get_mut().as_mut(), g);
    }

    /// Adds `g` as a constraint that holds when `guard` is true (a selector of an explanation).
    pub fn assert_under(&mut self, store: &Store, g: Gf, guard: Option<Lit>) {
        if guard.is_none() {
            return self.assert(store, g);
        }
        self.read_model();
        self.encoder
            .assert_guarded(store, self.solver.get_mut().as_mut(), g, guard);
    }

    /// Adds the disjunction of `lits` as one clause (under `guard`), as asserting their
    /// disjunction would, without a node for it.
    pub fn assert_clause(&mut self, store: &Store, lits: &[Gf], guard: Option<Lit>) {
        self.read_model();
        self.encoder
            .assert_clause(store, self.solver.get_mut().as_mut(), lits, guard);
    }

    /// Lets [`Sat::alias`] give an atom its body's literal: for sessions whose users read
    /// each atom's literal only to evaluate or constrain it (not the planner's templates,
    /// which need one variable per atom, nor a traced search, which names variables by
    /// atoms). A dump keeps one variable per atom, so its completions stay as shown.
    pub fn share_literals(&mut self) {
        self.aliases = self.asserted.is_none();
    }

    /// Makes atom `head` stand for `body`'s literal, when [`Sat::share_literals`] allows it
    /// and `head` has no literal yet: the completion `head <=> body` of a non-recursive
    /// definition, without a variable or a clause. False when the caller must assert it.
    pub fn alias(&mut self, store: &Store, head: Gf, body: Gf) -> bool {
        if !self.aliases {
            return false;
        }
        self.encoder.alias(store, head, body)
    }

    /// Gives the aliased atoms that have no literal yet one (see [`Encoder::encode_aliases`]).
    pub fn encode_aliases(&mut self, store: &Store) {
        self.read_model();
        self.encoder
            .encode_aliases(store, self.solver.get_mut().as_mut());
    }

    /// The conjuncts that `g` stands for, see [`Encoder::conjuncts`].
    pub fn conjuncts(&self, store: &Store, g: Gf) -> Vec<Gf> {
        let mut out = Vec::new();
        self.encoder.conjuncts(store, g, &mut out);
        out
    }

    /// Whether the asserted formulas are kept (for a dump).
    pub fn keeps_asserted(&self) -> bool {
        self.asserted.is_some()
    }

    /// A fresh variable that no formula stands for (a selector).
    pub fn new_var(&mut self) -> Lit {
        self.read_model();
        self.solver.get_mut().new_var()
    }

    /// After a call that found no model: whether assumption `lit` was needed for that.
    pub fn failed(&self, lit: Lit) -> bool {
        self.solver.borrow().failed(lit)
    }

    /// The asserted formulas kept so far, each with its origin (`None` unless kept), in
    /// order.
    pub fn take_asserted(&mut self) -> Option<Vec<(Gf, Rc<str>)>> {
        self.asserted.take()
    }

    /// The literal of `g`, encoding it if needed.
    pub fn lit(&mut self, store: &Store, g: Gf) -> Lit {
        self.read_model();
        self.encoder.lit(store, self.solver.get_mut().as_mut(), g)
    }

    /// The literal of `g` if it is encoded already.
    pub fn existing_lit(&self, g: Gf) -> Option<Lit> {
        self.encoder.existing_lit(g)
    }

    pub fn add_clause(&mut self, clause: &[Lit]) {
        self.read_model();
        self.solver.get_mut().add_clause(clause);
    }

    /// Makes the weighted sum of `terms` ready for bounds ([`Sat::sum_at_least`]): a count
    /// (every weight 1) by a totalizer's clauses, which the solver learns over better than
    /// over a propagator's long reasons; another sum inside the solver's search, if it can
    /// (see [`SatSolver::add_sum`]).
    pub fn add_sum(&mut self, terms: &[(Lit, u64)]) -> Option<usize> {
        self.read_model();
        let bounds = if terms.iter().all(|&(_, w)| w == 1) {
            let inputs = terms.iter().map(|&(l, _)| l).collect();
            SumBounds::Count(Counter::with_exclusions(
                inputs,
                self.encoder.binary_clauses(),
            ))
        } else {
            SumBounds::Native(self.solver.get_mut().add_sum(terms)?)
        };
        self.sums.push(bounds);
        Some(self.sums.len() - 1)
    }

    /// A fresh literal that makes sum `sum` at least `threshold` (see
    /// [`SatSolver::sum_at_least`]).
    pub fn sum_at_least(&mut self, sum: usize, threshold: u64) -> Lit {
        self.read_model();
        let solver = self.solver.get_mut();
        match &mut self.sums[sum] {
            SumBounds::Count(counter) => counter.at_least(threshold, &mut **solver),
            SumBounds::Native(native) => solver.sum_at_least(*native, threshold),
        }
    }

    /// Literals that "at least `j + 1` of `inputs` hold" implies, for each `j`
    /// ([`totalizer::implied_by_count`]).
    pub fn implied_by_count(&mut self, inputs: &[Lit]) -> Vec<Lit> {
        self.read_model();
        totalizer::implied_by_count(inputs, &mut **self.solver.get_mut())
    }

    /// Adds `clause` and forgets the current model (its values not read yet are not read:
    /// an enumeration's blocking clause, after which the model is not looked at again).
    pub fn add_clause_forgetting_model(&mut self, clause: &[Lit]) {
        self.model.get_mut().clear();
        self.unread.set(false);
        self.solver.get_mut().add_clause(clause);
    }

    /// The solver's recorded search steps, if it records them (see [`SatSolver::take_trace`]).
    pub fn take_trace(&mut self) -> Option<Vec<crate::solve::TraceEvent>> {
        self.read_model();
        self.solver.get_mut().take_trace()
    }

    /// The solver's search counters so far, if it keeps them (for `--stats`).
    pub fn counters(&self) -> Option<crate::solve::SearchCounters> {
        self.solver.borrow().counters()
    }

    pub fn num_vars(&self) -> usize {
        self.solver.borrow().num_vars()
    }

    /// Hands a definition to the solver to keep during its search (see
    /// [`SatSolver::propagate_definition`]); false if it cannot.
    pub fn propagate_definition(&mut self, graph: &DefinitionGraph) -> bool {
        self.read_model();
        self.solver.get_mut().propagate_definition(graph)
    }

    /// Makes the solver count up to `limit` models distinct on `lits` inside its search, if it
    /// can (see [`SatSolver::count_inside`]).
    pub fn count_inside(&mut self, lits: &[Lit], limit: usize) -> bool {
        self.read_model();
        self.solver.get_mut().count_inside(lits, limit)
    }

    /// The models the solver counted inside its search since the last call.
    pub fn counted_inside(&mut self) -> usize {
        self.solver.get_mut().counted_inside()
    }

    /// [`Sat::count_inside`], each model also kept for [`Sat::recorded_inside`]; false when
    /// the solver cannot, or when models have numbers (the solver keeps those apart).
    pub fn record_inside(&mut self, lits: &[Lit], limit: usize) -> bool {
        if self.int_vars > 0 || self.real_vars > 0 {
            return false;
        }
        self.read_model();
        self.solver.get_mut().record_inside(lits, limit)
    }

    /// The models the solver counted and kept since the last call, in the order found, to
    /// be made current one by one with [`Sat::restore_model`].
    pub fn recorded_inside(&mut self) -> Vec<SavedModel> {
        let kept = self.solver.get_mut().recorded_inside();
        kept.into_iter()
            .map(|lits| SavedModel {
                lits,
                numbers: Vec::new(),
                reals: Vec::new(),
            })
            .collect()
    }

    /// What the solver's propagation of definitions did so far, if it does it.
    pub fn search_stats(&self) -> Option<SearchStats> {
        self.solver.borrow().search_stats()
    }

    /// At most one of `gs` holds: pairwise for few, a sequential counter for many.
    pub fn at_most_one(&mut self, store: &Store, gs: &[Gf]) {
        let gs: Vec<Gf> = gs.iter().copied().filter(|g| *g != Gf::FALSE).collect();
        if gs.len() <= 1 {
            return;
        }
        let lits: Vec<Lit> = gs.iter().map(|&g| self.lit(store, g)).collect();
        let solver = self.solver.get_mut();
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    solver.add_clause(&[-lits[i], -lits[j]]);
                }
            }
            return;
        }
        // Sequential counter: s_i means "some of lits[0..=i] holds".
        let mut prev = lits[0];
        for &l in &lits[1..] {
            let s = solver.new_var();
            solver.add_clause(&[-prev, s]);
            solver.add_clause(&[-l, s]);
            solver.add_clause(&[-prev, -l]);
            prev = s;
        }
    }

    /// What propagation derives under `assumptions` without a decision ([`SatSolver::implied`]).
    pub fn implied(&mut self, assumptions: &[Lit]) -> Implied {
        // The current model stays the current one: its values are read before the solver
        // leaves it.
        self.read_model();
        self.solver.get_mut().implied(assumptions)
    }

    /// Hints the search to try `lit` first ([`SatSolver::prefer`]); `forget` drops the hint.
    pub fn prefer(&mut self, lit: Lit, forget: bool) {
        self.solver.get_mut().prefer(lit, forget);
    }

    /// The searches that follow stop (`Interrupted`) once `at` has passed (`None`: only the
    /// run's limits stop them).
    pub fn set_call_deadline(&mut self, at: Option<std::time::Instant>) {
        self.solver.get_mut().set_call_deadline(at);
    }

    /// One SAT call under `assumptions`; a model found becomes the current one. With a
    /// conflict limit, a solver that counts conflicts stops there (`Interrupted`).
    pub fn solve(&mut self, assumptions: &[Lit], conflicts: Option<u32>) -> SatResult {
        let solver = self.solver.get_mut();
        let result = match conflicts {
            Some(limit) => solver.solve_limited(assumptions, limit),
            None => solver.solve(assumptions),
        };
        let model = self.model.get_mut();
        model.clear();
        self.unread.set(false);
        self.numbers.clear();
        self.reals.clear();
        if result == SatResult::Sat {
            self.numbers = (0..self.int_vars).map(|v| solver.int_value(v)).collect();
            self.reals = (0..self.real_vars).map(|v| solver.real_value(v)).collect();
            // Variable 0 is no variable (false); the others are read when asked.
            model.push(-1);
            model.resize(solver.num_vars() + 1, 0);
            self.unread.set(true);
        }
        result
    }

    /// Reads the values of the current model not read yet (before the solver changes).
    fn read_model(&self) {
        if !self.unread.get() {
            return;
        }
        let mut model = self.model.borrow_mut();
        let mut solver = self.solver.borrow_mut();
        for (v, value) in model.iter_mut().enumerate().skip(1) {
            if *value == 0 {
                *value = if solver.value(v as Lit) { 1 } else { -1 };
            }
        }
        self.unread.set(false);
    }

    /// A copy of the current model, to bring back with [`Sat::restore_model`] after later
    /// calls.
    pub fn saved_model(&self) -> SavedModel {
        self.read_model();
        SavedModel {
            lits: self.model.borrow().iter().map(|&v| v > 0).collect(),
            numbers: self.numbers.clone(),
            reals: self.reals.clone(),
        }
    }

    /// Makes a model saved with [`Sat::saved_model`] the current one again.
    pub fn restore_model(&mut self, model: SavedModel) {
        self.unread.set(false);
        *self.model.get_mut() = model
            .lits
            .into_iter()
            .map(|v| if v { 1 } else { -1 })
            .collect();
        self.numbers = model.numbers;
        self.reals = model.reals;
    }

    /// A variable over the integers `[low, high]` kept by the solver (see
    /// [`SatSolver::add_int_var`]); `None` when the solver cannot.
    pub fn add_int_var(&mut self, low: i64, high: i64) -> Option<usize> {
        self.read_model();
        let v = self.solver.get_mut().add_int_var(low, high)?;
        self.int_vars = self.int_vars.max(v + 1);
        Some(v)
    }

    /// Makes `lit` say `Σ terms ≥ bound` over integer variables.
    pub fn add_int_constraint(&mut self, lit: Lit, terms: &[(usize, i64)], bound: i64) {
        self.read_model();
        self.solver.get_mut().add_int_constraint(lit, terms, bound);
    }

    /// The value of integer variable `v` in the current model.
    pub fn int_value(&self, v: usize) -> i64 {
        self.numbers.get(v).copied().unwrap_or(0)
    }

    /// A variable over the reals within `[low, high]` kept by the solver (see
    /// [`SatSolver::add_real_var`]); `None` when the solver cannot.
    pub fn add_real_var(&mut self, low: Option<Rational>, high: Option<Rational>) -> Option<usize> {
        self.read_model();
        let v = self.solver.get_mut().add_real_var(low, high)?;
        self.real_vars = self.real_vars.max(v + 1);
        Some(v)
    }

    /// Makes `lit` say `Σ terms ≥ bound` over real variables.
    pub fn add_real_constraint(&mut self, lit: Lit, terms: &[(usize, Rational)], bound: Rational) {
        self.read_model();
        self.solver.get_mut().add_real_constraint(lit, terms, bound);
    }

    /// See [`SatSolver::set_real_objective`].
    pub fn set_real_objective(&mut self, terms: &[(usize, Rational)]) -> bool {
        self.read_model();
        self.solver.get_mut().set_real_objective(terms)
    }

    /// See [`SatSolver::real_optimum`] (of the last search's model).
    pub fn real_optimum(&self) -> Option<LpOptimum> {
        self.solver.borrow().real_optimum()
    }

    /// The value of real variable `v` in the current model.
    pub fn real_value(&self, v: usize) -> Rational {
        self.reals.get(v).cloned().unwrap_or_default()
    }

    /// See [`SatSolver::integers_undecided`].
    pub fn integers_undecided(&mut self) -> bool {
        self.solver.get_mut().integers_undecided()
    }

    /// The value of a literal in the current model.
    pub fn lit_value(&self, l: Lit) -> bool {
        let var = l.unsigned_abs() as usize;
        let mut model = self.model.borrow_mut();
        let v = match model.get_mut(var) {
            None => false,
            Some(value) => {
                if *value == 0 {
                    *value = if self.solver.borrow_mut().value(var as Lit) {
                        1
                    } else {
                        -1
                    };
                }
                *value > 0
            }
        };
        if l < 0 {
            !v
        } else {
            v
        }
    }

    /// The value of a ground formula in the current model (false when it was never encoded);
    /// an aliased atom without a literal, or with one made after the model, has its body's
    /// value.
    pub fn value(&self, store: &Store, g: Gf) -> bool {
        if g == Gf::TRUE {
            return true;
        }
        if g == Gf::FALSE {
            return false;
        }
        self.encoder
            .value(store, g, &|l| self.known_lit_value(l))
            .unwrap_or(false)
    }

    /// The value of a literal in the current model; `None` for a variable made after it (an
    /// aliased atom's literal asked for since).
    fn known_lit_value(&self, l: Lit) -> Option<bool> {
        let known = self.model.borrow().len() > l.unsigned_abs() as usize;
        known.then(|| self.lit_value(l))
    }

    /// The value of an atom in the current model.
    pub fn atom_value(&self, store: &Store, a: AtomId) -> bool {
        self.value(store, store.atom_gf(a))
    }

    /// Whether `g` is an atom that stands for its body and has no literal yet: its value is
    /// read from the body's ([`Sat::value`]), so it needs none to be in a model.
    pub fn is_pending_alias(&self, g: Gf) -> bool {
        self.encoder.is_pending_alias(g)
    }
}
