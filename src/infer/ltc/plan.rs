//! Planning with an LTC theory without a horizon: the shortest plan is found by growing Time
//! one step at a time on one live SAT solver, as clingo's incremental mode and telingo do.
//!
//! The theory is split ([`super::split`]) into its initial theory (over `V_ss`) and its bistate
//! theory (over `V_bs`). Each is grounded and encoded once, over the structure's static part,
//! into a clause template ([`Template`]): its clauses over local variables, and which of those
//! variables are atoms of which symbols. The unrolling then copies the initial template at
//! step 0 and the bistate template once per step `i → i+1`, mapping every state atom to the
//! solver variable of its step (the bistate theory's current-state atoms to step `i`, its
//! next-state atoms to step `i+1`), every static atom to one shared variable and every other
//! variable to a fresh one. A defined time-dependent atom that the template producing its step
//! did not mention has no rule there, so it is false.
//!
//! The goal is the theory's `? t[Time]: φ(t)` sentence, `φ` about one state. After step `L` is
//! added, the goal's template is copied at step `L` under a fresh selector and the solver is
//! asked under that selector; a refuted step's selector is then fixed false for good, so what
//! the solver learnt stays. The first step with a model is the length of a shortest plan:
//! shortest, because every model of the theory over `Time = 0..L` satisfies the initial
//! theory at 0 and the bistate theory at every step before `L`.
//!
//! The answer is then made a model of the theory as written: the plan's open time-dependent
//! symbols (the actions) and open static symbols are fixed in a structure with
//! `Time = {0..L}`, `Start = 0` and `Next(t) = t + 1`, and model expansion derives the rest
//! and checks every sentence and definition, the goal and the theory's own definitions of
//! `Start` and `Next` among them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Instant;

use indexmap::IndexMap;

use super::reach::{possible_next, satisfiable, StateAtom, Transition};
use crate::error::{Error, ErrorKind, IdpResult, Limit};
use crate::ids::Symbol;
use crate::infer::definitions::{evaluate_definitions, Evaluated};
use crate::infer::session::Session;
use crate::infer::{self, Inferred};
use crate::sema::ir::{Formula, FormulaKind};
use crate::sema::walk::Node;
use crate::sema::{sort_domain, LtcInfo, Program, Theory};
use crate::solve::{Cadical, Lit, Recorder, SatResult, SatSolver};
use crate::structure::{Structure, Table, Tuple, TupleSet, Value};

/// The step count at which a search without a Time domain in the structure gives up.
pub const DEFAULT_MAX_STEPS: usize = 1000;

/// The clauses of one theory encoded over one structure, over local variables `1..=vars`.
struct Template {
    clauses: Vec<Vec<Lit>>,
    vars: usize,
    /// The local variables that are atoms, with their symbol (of the template's vocabulary).
    atoms: Vec<(Lit, Symbol, Tuple)>,
    /// Atoms that the structure (after evaluating definitions) makes true.
    known_true: Vec<(Symbol, Tuple)>,
}

/// Where a template's atom lives in the unrolled theory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slot {
    Static,
    Step(usize),
}

/// What a template's symbol stands for: a static symbol, or a time-dependent symbol of the LTC
/// vocabulary at the template's current step or the step after.
#[derive(Clone, Copy)]
enum Role {
    Static,
    Now(Symbol),
    Next(Symbol),
}

/// The time-dependent symbols of the LTC vocabulary by their state and next-state symbols.
struct Roles {
    now: HashMap<Symbol, Symbol>,
    next: HashMap<Symbol, Symbol>,
}

impl Roles {
    fn of(&self, s: Symbol) -> Role {
        if let Some(&ltc) = self.now.get(&s) {
            Role::Now(ltc)
        } else if let Some(&ltc) = self.next.get(&s) {
            Role::Next(ltc)
        } else {
            Role::Static
        }
    }
}

/// The unrolled theory in one live solver.
struct Unrolling {
    solver: Cadical,
    vars: HashMap<(Slot, Symbol, Tuple), Lit>,
    /// Time-dependent symbols of the LTC vocabulary that the theory defines.
    defined: HashSet<Symbol>,
}

impl Unrolling {
    fn var(&mut self, key: (Slot, Symbol, Tuple)) -> Lit {
        let solver = &mut self.solver;
        *self.vars.entry(key).or_insert_with(|| solver.new_var())
    }

    /// The variable of an atom that its step's producing template did not define: false when
    /// its symbol is defined (no rule made it true), free otherwise (an action).
    fn read(&mut self, key: (Slot, Symbol, Tuple)) -> Lit {
        if let Some(&v) = self.vars.get(&key) {
            return v;
        }
        let defined = self.defined.contains(&key.1);
        let v = self.var(key);
        if defined {
            self.solver.add_clause(&[-v]);
        }
        v
    }

    /// Makes false at `step` every atom of `atoms` that is not `possible` there.
    fn rule_out(&mut self, atoms: &[(Lit, StateAtom)], possible: &HashSet<StateAtom>, step: usize) {
        for (_, (sym, tuple)) in atoms {
            if possible.contains(&(*sym, tuple.clone())) {
                continue;
            }
            if let Some(&v) = self.vars.get(&(Slot::Step(step), *sym, tuple.clone())) {
                self.solver.add_clause(&[-v]);
            }
        }
    }

    /// The solver variable of a template symbol's atom when the template is copied at `step`.
    fn place(
        &mut self,
        roles: &Roles,
        s: Symbol,
        tuple: &Tuple,
        step: usize,
        produces: bool,
    ) -> Lit {
        match roles.of(s) {
            Role::Static => self.var((Slot::Static, s, tuple.clone())),
            Role::Now(ltc) if produces => self.var((Slot::Step(step), ltc, tuple.clone())),
            Role::Now(ltc) => self.read((Slot::Step(step), ltc, tuple.clone())),
            Role::Next(ltc) => self.var((Slot::Step(step + 1), ltc, tuple.clone())),
        }
    }

    /// Copies `t` at `step`: its current-state atoms are produced here when `produces` (the
    /// initial theory), else read; every clause also holds only under `guard` if given.
    fn copy(
        &mut self,
        t: &Template,
        roles: &Roles,
        step: usize,
        produces: bool,
        guard: Option<Lit>,
    ) {
        let mut local = vec![0 as Lit; t.vars + 1];
        for (v, s, tuple) in &t.atoms {
            local[*v as usize] = self.place(roles, *s, tuple, step, produces);
        }
        for (s, tuple) in &t.known_true {
            let v = self.place(roles, *s, tuple, step, produces);
            self.solver.add_clause(&[v]);
        }
        for slot in local.iter_mut().skip(1) {
            if *slot == 0 {
                *slot = self.solver.new_var();
            }
        }
        let mut clause = Vec::new();
        for c in &t.clauses {
            clause.clear();
            clause.extend(
                c.iter()
                    .map(|&l| local[l.unsigned_abs() as usize] * l.signum()),
            );
            clause.extend(guard.map(|g| -g));
            self.solver.add_clause(&clause);
        }
    }
}

impl Template {
    /// The template as a transition for [`reach`]: `now` and `asked` the atoms of defined
    /// time-dependent symbols in the roles given.
    fn transition(
        &self,
        roles: &Roles,
        defined: &HashSet<Symbol>,
        asked_next: bool,
    ) -> Transition<'_> {
        let of = |want_next: bool| {
            let defined_in = move |s: Symbol| match roles.of(s) {
                Role::Now(ltc) if !want_next && defined.contains(&ltc) => Some(ltc),
                Role::Next(ltc) if want_next && defined.contains(&ltc) => Some(ltc),
                _ => None,
            };
            let atoms: Vec<(Lit, StateAtom)> = self
                .atoms
                .iter()
                .filter_map(|(v, s, t)| Some((*v, (defined_in(*s)?, t.clone()))))
                .collect();
            let known: Vec<StateAtom> = self
                .known_true
                .iter()
                .filter_map(|(s, t)| Some((defined_in(*s)?, t.clone())))
                .collect();
            (atoms, known)
        };
        let (asked, known) = of(asked_next);
        let now = if asked_next { of(false).0 } else { Vec::new() };
        Transition {
            clauses: &self.clauses,
            vars: self.vars,
            now,
            asked,
            known,
        }
    }
}

impl Template {
    /// The goal's template as a transition whose current-state atoms are restricted.
    fn goal_transition(&self, roles: &Roles, defined: &HashSet<Symbol>) -> Transition<'_> {
        let mut t = self.transition(roles, defined, false);
        t.now = std::mem::take(&mut t.asked);
        t.known.clear();
        t
    }
}

/// Encodes `theory` over `structure` into a template; `None` when evaluating its definitions
/// already shows it has no model.
fn template(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    roles: &Roles,
    options: &infer::Options,
    what: &str,
) -> IdpResult<Option<Template>> {
    let mut warnings = Vec::new();
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options, &mut warnings)?
    else {
        return Ok(None);
    };
    let (recorder, recorded) = Recorder::new();
    let mut session = Session::with_solver(program, theory, &pending, &evaluated, options, |_| {
        Box::new(recorder)
    })?;
    // Positive recursion inside a state (reachability within a time point) gets its ranking
    // translation up front; recursion through negation cannot be encoded ahead of the search.
    session.rank_recursive_definitions();
    if !session.completion_suffices() {
        return Err(Error::input(format!(
            "planning needs the {what} to have no recursion through negation within a state \
             (its definitions must be total for every choice, which is checked during a \
             search); use modelexpand or minimize over a Time domain instead"
        )));
    }
    let atoms = session.atom_vars();
    let known_true = known_true(session.structure(), roles);
    drop(session);
    let clauses = recorded.take();
    let vars = clauses
        .iter()
        .flatten()
        .chain(atoms.iter().map(|(v, _, _)| v))
        .map(|l| l.unsigned_abs() as usize)
        .max()
        .unwrap_or(0);
    Ok(Some(Template {
        clauses,
        vars,
        atoms,
        known_true,
    }))
}

/// The true atoms of the time-dependent symbols that `s` interprets.
fn known_true(s: &Structure, roles: &Roles) -> Vec<(Symbol, Tuple)> {
    let mut out = Vec::new();
    for (&sym, table) in &s.symbols {
        if matches!(roles.of(sym), Role::Static) {
            continue;
        }
        out.extend(table.ct().iter().map(|t| (sym, t.clone())));
    }
    out
}

/// The theory without its goal (`? t[Time]: φ`) and without definitions of only Start and
/// Next (the planner interprets those itself; the final check holds the theory's to them).
struct Parts {
    rest: Theory,
    goal: Formula,
}

fn parts(info: &LtcInfo, theory: &Theory) -> IdpResult<Parts> {
    let mut rest = theory.clone();
    let mut goals = Vec::new();
    rest.sentences.retain(|f| match goal_body(info, f) {
        Some(_) => {
            goals.push(f.clone());
            false
        }
        None => true,
    });
    let clock = [Symbol::Func(info.start), Symbol::Func(info.next)];
    rest.definitions
        .retain(|d| !d.defined().iter().all(|s| clock.contains(s)));
    match goals.len() {
        1 => Ok(Parts {
            rest,
            goal: goals.remove(0),
        }),
        0 => Err(Error::input(format!(
            "theory {} has no goal to plan for: planning needs one sentence `? t[Time]: φ(t)` \
             (φ about the state at t, e.g. `? t[Time]: Done(t).`)",
            theory.name
        ))),
        n => Err(Error::input(format!(
            "theory {} has {n} goals (`? t[Time]: ...` sentences); planning needs exactly one: \
             join them into one `? t[Time]: φ(t)` when they must hold at the same time",
            theory.name
        ))),
    }
}

/// `φ` when `f` is `? t[Time]: φ` with `t` the only variable bound.
fn goal_body<'f>(info: &LtcInfo, f: &'f Formula) -> Option<&'f Formula> {
    match f.kind() {
        FormulaKind::Exists(vars, body) if vars.len() == 1 && vars[0].sort == info.time => {
            Some(body)
        }
        _ => None,
    }
}

/// The goal as a single-state sentence over `V_ss`: `! t[Time]: φ(t)` split, its instance at
/// the initial state.
fn goal_sentence(
    program: &Program,
    info: &LtcInfo,
    theory: &Theory,
    goal: &Formula,
) -> IdpResult<Theory> {
    let FormulaKind::Exists(vars, body) = goal.kind() else {
        return Err(Error::internal("a goal that is not an existential"));
    };
    let mentions_next = Node::Formula(body).any(&mut |n| match n {
        Node::Term(t) => {
            matches!(t.kind(), crate::sema::ir::TermKind::Func(g, _) if *g == info.next)
        }
        _ => false,
    });
    if mentions_next {
        return Err(Error::input(
            "the goal `? t[Time]: φ(t)` must be about one state: φ cannot mention Next",
        ));
    }
    let always = Formula::new(FormulaKind::Forall(vars.clone(), body.clone()), goal.span);
    let mut t = theory.clone();
    t.sentences = vec![always];
    t.definitions.clear();
    let split = super::split::split_theory(program, info, &t)?;
    Ok(split.initial)
}

/// The step limit: Time's domain in the structure when it has one (its size less one; a Time
/// the vocabulary fixes counts though the structure does not list it), else
/// [`DEFAULT_MAX_STEPS`].
fn step_limit(program: &Program, info: &LtcInfo, s: &Structure, asked: Option<usize>) -> usize {
    asked.unwrap_or_else(|| match sort_domain(program, s, info.time) {
        Some(d) if !d.is_empty() => d.len() - 1,
        _ => DEFAULT_MAX_STEPS,
    })
}

/// A shortest plan: the least `L` for which the theory has a model over `Time = {0..L}` whose
/// last state satisfies the goal, and such a model; `None` when there is none within the step
/// limit (`max_steps`, else the structure's Time domain, else [`DEFAULT_MAX_STEPS`]).
pub fn plan(
    program: &Program,
    theory: &Theory,
    s: &Structure,
    max_steps: Option<usize>,
    opts: &infer::Options,
) -> IdpResult<Inferred<Option<Structure>>> {
    if theory.vocabulary != s.vocabulary {
        return Err(Error::new(
            ErrorKind::Aborted,
            "LTC operations require that structure and theory range over the same vocabulary.",
        ));
    }
    let info = super::vocab::info(program, theory.vocabulary)?;
    let Parts { rest, goal } = parts(info, theory)?;
    let split = super::split::split_theory(program, info, &rest)?;
    let goal_theory = goal_sentence(program, info, &rest, &goal)?;
    let symbols = super::vocab::state_symbols(program, info)?;
    let roles = Roles {
        now: symbols.iter().map(|(&ltc, &(now, _))| (now, ltc)).collect(),
        next: symbols
            .iter()
            .map(|(&ltc, &(_, next))| (next, ltc))
            .collect(),
    };
    let (_, bs) = super::vocab::state_vocabularies(info)?;
    let (statics, _) = super::project::project(program, info, &without_time(info, s), false)?;
    let mut options = opts.clone();
    options.nbmodels = 1;
    options.leave_unmentioned_false = true;
    let no_plan = || Ok(Inferred::new(None, Vec::new()));
    let Some(initial) = template(
        program,
        &split.initial,
        &statics,
        &roles,
        &options,
        "initial theory",
    )?
    else {
        return no_plan();
    };
    let bistate_structure = super::project::to_bistate(&statics, bs);
    let Some(step) = template(
        program,
        &split.bistate,
        &bistate_structure,
        &roles,
        &options,
        "bistate theory",
    )?
    else {
        return no_plan();
    };
    let Some(goal_t) = template(program, &goal_theory, &statics, &roles, &options, "goal")? else {
        return no_plan();
    };
    let until = opts.run.until(
        (opts.timeout > 0.0)
            .then(|| Instant::now() + std::time::Duration::from_secs_f64(opts.timeout)),
    );
    let defined: HashSet<Symbol> = theory
        .definitions
        .iter()
        .flat_map(|d| d.defined())
        .filter(|s| symbols.contains_key(s))
        .collect();
    let config = opts.tuning.cadical_config.as_deref();
    let mut u = Unrolling {
        solver: Cadical::configured(until.clone(), config),
        vars: HashMap::default(),
        defined,
    };
    u.copy(&initial, &roles, 0, true, None);
    let first = initial.transition(&roles, &u.defined, false);
    let mut possible = possible_next(&first, &HashSet::default(), &until, config)?;
    let transition = step.transition(&roles, &u.defined, true);
    let goal_transition = goal_t.goal_transition(&roles, &u.defined);
    let mut stable = false;
    let limit = step_limit(program, info, s, max_steps);
    for length in 0..=limit {
        if length > 0 {
            u.copy(&step, &roles, length - 1, false, None);
            if !stable {
                let next = possible_next(&transition, &possible, &until, config)?;
                stable = next == possible;
                possible = next;
                if stable && !satisfiable(&goal_transition, &possible, &until, config)? {
                    opts.observer.stat(|| {
                        format!("plan: the goal cannot hold in any state from step {length} on")
                    });
                    return no_plan();
                }
                let (n, total) = (possible.len(), transition.asked.len());
                opts.observer
                    .stat(|| format!("plan: {n} of {total} state atoms possible at step {length}"));
            }
            u.rule_out(&transition.asked, &possible, length);
        }
        let selector = u.solver.new_var();
        u.copy(&goal_t, &roles, length, false, Some(selector));
        let started = Instant::now();
        opts.run.meter().sat_call();
        let result = u.solver.solve(&[selector]);
        opts.observer.stat(|| {
            format!(
                "plan: {length} steps: {result:?} in {:.3}s",
                started.elapsed().as_secs_f64()
            )
        });
        match result {
            SatResult::Unsat => u.solver.add_clause(&[-selector]),
            SatResult::Interrupted => {
                until.check("planning")?;
                return Err(Error::limit(Limit::Search, "the SAT search was stopped"));
            }
            SatResult::Sat => {
                // The actions of the last state do nothing; none is shown when none is needed.
                let mut model = None;
                for quiet_last in [true, false] {
                    let fixed = fixed_plan(info, s, &mut u, &symbols, length, quiet_last);
                    let found = infer::modelexpand(program, theory, &fixed, None, &options)?;
                    if let Some(m) = found.value.into_iter().next() {
                        model = Some((m, found.warnings));
                        break;
                    }
                }
                let Some((model, warnings)) = model else {
                    return Err(Error::internal(format!(
                        "the plan of {length} steps found by unrolling is not a model of theory {}",
                        theory.name
                    )));
                };
                return Ok(Inferred::new(Some(model), warnings));
            }
        }
    }
    no_plan()
}

/// `s` without Time, Start and Next (the planner's own), so that projecting it keeps only the
/// static part.
fn without_time(info: &LtcInfo, s: &Structure) -> Structure {
    let mut s = s.clone();
    s.remove_domain(info.time);
    s.symbols.shift_remove(&Symbol::Func(info.start));
    s.symbols.shift_remove(&Symbol::Func(info.next));
    s
}

/// The structure of a plan of `length` steps: `Time = {0..length}`, `Start = 0`,
/// `Next(t) = t + 1`, the open time-dependent symbols (the actions) at every step from the
/// solver's model (at the last step none when `quiet_last`), the rest as in `s` (model
/// expansion derives the defined symbols).
fn fixed_plan(
    info: &LtcInfo,
    s: &Structure,
    u: &mut Unrolling,
    symbols: &IndexMap<Symbol, (Symbol, Symbol)>,
    length: usize,
    quiet_last: bool,
) -> Structure {
    let mut out = without_time(info, s);
    let times: Vec<Value> = (0..=length as i64).map(Value::Int).collect();
    out.set_domain(info.time, times.clone());
    let start: TupleSet = std::iter::once(vec![Value::Int(0)]).collect();
    out.symbols
        .insert(Symbol::Func(info.start), Table::TwoValued(start));
    let next: TupleSet = times.windows(2).map(|w| vec![w[0], w[1]]).collect();
    out.symbols
        .insert(Symbol::Func(info.next), Table::TwoValued(next));
    let mut tables: IndexMap<Symbol, TupleSet> = symbols
        .keys()
        .filter(|sym| !u.defined.contains(sym))
        .map(|&sym| (sym, TupleSet::default()))
        .collect();
    for (key, &var) in &u.vars {
        let (Slot::Step(k), sym, tuple) = key else {
            continue;
        };
        let Some(table) = tables.get_mut(sym) else {
            continue;
        };
        let shown = *k < length || (*k == length && !quiet_last);
        if shown && u.solver.value(var) {
            let mut full = tuple.clone();
            full.insert(info.time_arg[sym], Value::Int(*k as i64));
            table.insert(full);
        }
    }
    for (sym, ct) in tables {
        // An action function's value at a step the encoding never mentioned is left open.
        let table = match sym {
            Symbol::Pred(_) => Table::TwoValued(ct),
            Symbol::Func(_) => Table::ThreeValued {
                ct,
                cf: TupleSet::default(),
            },
        };
        out.symbols.insert(sym, table);
    }
    out
}
