//! Inferences over a program: model expansion, optimisation, definition evaluation, queries,
//! propagation and progression. Each takes the program, a theory and a structure (never
//! modified) and returns new structures.

mod abstraction;
mod check;
pub mod consult;
mod cores;
mod definitions;
mod explain;
mod fobdd;
mod grounding;
mod huge;
mod lazy;
pub mod ltc;
mod optimise;
mod report;
mod session;
mod trace;

pub use check::{brute_force_count, brute_force_models, check_model};
pub use definitions::{evaluate_definitions, Evaluated};
pub use explain::{
    enlarged, parse_literal, unsat_core, unsat_core_after_search, unsat_structure, why_forced,
    Core, Facts, Forced, Reading,
};
pub use fobdd::print_theory;
pub use grounding::ground;
pub use lazy::DEFAULT_RELAX_ABOVE;
pub use optimise::Strategy;
pub use report::{Inferred, Observer};
pub use session::{interpreted_symbols, Piece};
pub use trace::{TraceStep, TracedAtom};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::encode::SavedModel;
use crate::error::IdpResult;
use crate::ground::{GTerm, GVal, Gf, Grounder, LinTerm};
use crate::ids::{Symbol, VocId};
use crate::sema::{ir, Program, Query, Theory};
use crate::solve::{Implied, Lit, LpOptimum, Rational};
use crate::structure::{Structure, Table, Tuple, Value};
use session::Session;

/// The options that inferences read (mirrors the fields of IDP3's `stdoptions`).
#[derive(Clone, Debug)]
pub struct Options {
    /// Number of models to find; 0 means all.
    pub nbmodels: usize,
    /// Seconds; 0 means no limit.
    pub timeout: f64,
    pub stablesemantics: bool,
    /// Maximum number of ground formula nodes before grounding stops with an error.
    pub max_ground_size: usize,
    /// Print stage sizes and times to stderr.
    pub verbose: bool,
    /// Which SAT backend to use.
    pub sat_backend: SatBackend,
    /// Predicate atoms that no ground formula mentions get no SAT variables (they come out
    /// false). Right when one model is asked for; an enumeration must tell their values apart.
    pub leave_unmentioned_false: bool,
    /// The search looks for one model, no proof that there is no other or better one (model
    /// expansion of one model): a theory with recursive definitions over open symbols is then
    /// searched in CaDiCaL's `sat` configuration, which finds such models several times
    /// faster than the default one, which proofs favour (unless `IDP_CADICAL_CONFIG` chooses).
    pub seeks_one_model: bool,
    /// IDP-Z3's "don't care" (FO(·) files): the symbols searched, the others are not. Models
    /// are told apart on these only (another value of a symbol outside them is not another
    /// model), and a function over an infinite type (`f: T -> Int`) outside them that the
    /// structure does not interpret is left out (IDP-Z3 neither enumerates nor prints it),
    /// instead of stopping grounding at its infinite type.
    pub dont_care: Option<Vec<Symbol>>,
    /// Where statistics and ground-theory dumps go.
    pub observer: Observer,
    /// IDP3's `randomvaluechoice` with its `seed`: each model search prefers values drawn from
    /// a generator seeded with this for the atoms of the output symbols, so that different
    /// seeds can give different models (the same seed, the same models).
    pub random_values: Option<u64>,
    /// IDP3's `trace`: model searches use the traced SAT backend and return its trace
    /// ([`Inferred::trace`]).
    pub trace: bool,
    /// Knobs for experiments and comparisons (`IDP_*` on the command line).
    pub tuning: Tuning,
    /// Lazy grounding ([`crate::ground::delayed`]): model expansion sets the level it grounds
    /// at; `None` (every other inference) grounds every tuple.
    pub delay: Option<crate::ground::delayed::Delay>,
    /// The whole numbers tried for a function onto `int` or `float` that nothing bounds (an
    /// FO(·) `model_expand`: IDP-Z3 leaves such values to Z3). Every model found is a model,
    /// but models that need other values are not searched, so only a search for some models
    /// may set it; the session warns, naming each function that took them. `None`: such a
    /// function stops grounding with a message that names it.
    pub value_window: Option<Vec<i64>>,
    /// The run the inference belongs to: its wall time, memory limit, stop requests and
    /// progress meter ([`crate::limits::Run`]). The default is a run of its own without
    /// limits; a driver hands down the one it controls, so that a Stop or `--timeout` reaches
    /// this inference and no other.
    pub run: crate::limits::Run,
    /// Keep the ground sentences and rules of a session after encoding them (the
    /// consultant reads relevance from them); off, they live only in the solver.
    pub keeps_ground: bool,
    /// CaDiCaL solvers raced on each search (`--threads`, `stdoptions.threads`; see
    /// [`crate::solve::Portfolio`]); 1: one solver, no thread.
    pub threads: usize,
}

/// The most solvers a portfolio races (`--threads`, `stdoptions.threads`).
pub const MAX_THREADS: usize = 64;

/// Knobs for experiments and comparisons. The command line reads them from the environment
/// once (`IDP_DATALOG`, `IDP_MINIMIZE`, `IDP_EXPLAIN_BUDGET`, `IDP_RANKING_AFTER`,
/// `IDP_CADICAL_CONFIG`: `cli::Settings`) and hands them down; nothing below it reads the
/// environment. The default is what an unset environment gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// Evaluate definitions over known input with the Datalog engine (`ground::datalog`) where
    /// it applies; off (`IDP_DATALOG=0`), every such definition takes the general path
    /// (bottom-up joins through the grounder, or grounding and well-founded evaluation).
    pub datalog: bool,
    /// How `minimize` chooses its bounds (`IDP_MINIMIZE=descend|bisect|ascend|gallop|auto`);
    /// `None`: the caller's default (`descend`; FO(·) `main` blocks ascend, `auto`).
    pub minimize: Option<Strategy>,
    /// Seconds that narrowing an explanation's core down to instances and facts may take
    /// (`IDP_EXPLAIN_BUDGET`); `None`: 15% of the time the whole parts took, at least half a
    /// second. When it runs out the core keeps its parts whole (`explain::Whole`).
    pub explain_budget: Option<f64>,
    /// Rounds of loop formulas after which a definition switches to the ranking translation
    /// (`IDP_RANKING_AFTER=N`, deterministic); `None`: by rounds and time
    /// (`encode::Definitions`).
    pub ranking_after: Option<usize>,
    /// A CaDiCaL configuration and options (`IDP_CADICAL_CONFIG=sat|unsat|plain`, and
    /// `option=value` parts such as `shuffle=1,seed=3`, comma-separated); an unknown name
    /// keeps the default.
    pub cadical_config: Option<String>,
    /// The tuple count above which model expansion may delay an open predicate's tuples
    /// (`IDP_DELAY_AFTER=N`; 0: never; see [`crate::ground::delayed`]).
    pub delay_after: u64,
    /// Definitions whose symbols the joint bounds allow more tuples than this are left out of
    /// the relaxation that model expansion tries first (`IDP_RELAX_ABOVE=N`; 0: no relaxation;
    /// see [`lazy`]).
    pub relax_above: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            datalog: true,
            minimize: None,
            explain_budget: None,
            ranking_after: None,
            cadical_config: None,
            delay_after: crate::ground::delayed::DEFAULT_DELAY_AFTER,
            relax_above: DEFAULT_RELAX_ABOVE,
        }
    }
}

/// The grounding size limit of [`Options::default`] (nodes of the ground theory).
pub const DEFAULT_MAX_GROUND_SIZE: usize = 10_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatBackend {
    /// CaDiCaL with unfounded-set propagation for definitions inside its search.
    Cadical,
    /// CaDiCaL with definitions checked on each candidate model (loop formulas, then the
    /// ranking translation).
    CadicalLoops,
    Splr,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            nbmodels: 1,
            timeout: 0.0,
            stablesemantics: false,
            max_ground_size: DEFAULT_MAX_GROUND_SIZE,
            verbose: false,
            sat_backend: SatBackend::Cadical,
            leave_unmentioned_false: false,
            seeks_one_model: false,
            dont_care: None,
            observer: Observer::default(),
            random_values: None,
            trace: false,
            tuning: Tuning::default(),
            delay: None,
            value_window: None,
            run: crate::limits::Run::default(),
            keeps_ground: false,
            threads: 1,
        }
    }
}

/// The result of `minimize`: optimal models, whether optimality was proven, and the optimum.
#[derive(Clone, Debug)]
pub struct Optimum {
    pub models: Vec<Structure>,
    pub proven: bool,
    pub value: Option<Value>,
}

/// Up to `options.nbmodels` two-valued models of `theory` extending `structure`; projected on
/// `output` and distinct there when it is given.
pub fn modelexpand(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    output: Option<VocId>,
    options: &Options,
) -> IdpResult<Inferred<Vec<Structure>>> {
    expand(program, theory, structure, output, options, Found::Keep)
        .map(|found| found.map(|(m, _)| m))
}

/// What model expansion does with each model found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    /// Decodes it, shows it to the observer and returns it.
    Keep,
    /// Decodes it and shows it to the observer only.
    Show,
    /// Counts it only.
    Count,
}

/// The number of models of `theory` extending `structure` (up to `options.nbmodels`, 0: all),
/// distinct on `output` when it is given: the search of [`modelexpand`] without keeping any
/// model, nor decoding one unless `options.observer` listens for models (then each is shown to
/// it as it is found, and dropped: an enumeration that prints its models needs no memory for
/// them).
pub fn count_models(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    output: Option<VocId>,
    options: &Options,
) -> IdpResult<Inferred<usize>> {
    let found = if options.observer.models_on() {
        Found::Show
    } else {
        Found::Count
    };
    expand(program, theory, structure, output, options, found).map(|found| found.map(|(_, n)| n))
}

/// Model expansion: the models (when kept) and their number.
fn expand(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    output: Option<VocId>,
    options: &Options,
    found: Found,
) -> IdpResult<Inferred<(Vec<Structure>, usize)>> {
    let stand_in = huge::with_stand_ins(program, theory, structure, output);
    let structure = stand_in.as_ref().unwrap_or(structure);
    let mut warnings = Vec::new();
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options, &mut warnings)?
    else {
        return Ok(Inferred::new((Vec::new(), 0), warnings).with_empty_trace(options.trace));
    };
    let options = &Options {
        seeks_one_model: options.nbmodels == 1,
        ..single_model_economy(options)
    };
    let summed =
        equations_to_sum_through(program, theory, &evaluated).and_then(|mut e| e.theory(theory));
    let theory = summed.as_ref().unwrap_or(theory);
    if options.tuning.delay_after > 0 {
        let setup = lazy::Setup {
            program,
            theory,
            pending: &pending,
            structure: &evaluated,
            output,
        };
        return lazy::expand(&setup, options, found, warnings);
    }
    let session = Session::new(program, theory, &pending, &evaluated, options)?;
    search_models(session, program, output, options, found, warnings)
}

/// Enumerates the models of a session set up for model expansion ([`expand`]).
fn search_models(
    mut session: Session,
    program: &Program,
    output: Option<VocId>,
    options: &Options,
    found: Found,
    mut warnings: Vec<String>,
) -> IdpResult<Inferred<(Vec<Structure>, usize)>> {
    let mut blocked_on = session.output_symbols(output);
    if let Some(searched) = &options.dont_care {
        blocked_on.retain(|s| searched.contains(s));
    }
    // Each model is moved to the output vocabulary, as IDP3's `handleSolution`
    // (`src/inferences/modelexpansion/ModelExpansion.cpp`) calls
    // `newsolution->changeVocabulary(outputvoc)`.
    let project = |m: Structure| match output {
        Some(output) => huge::project(program, m, output),
        None => m,
    };
    let (models, count, partial) = enumerate(
        &mut session,
        &blocked_on,
        options.nbmodels,
        options.random_values,
        (found != Found::Count).then_some(&project as &dyn Fn(Structure) -> Structure),
        found == Found::Keep,
        &options.observer,
    )?;
    warnings.extend(session.take_warnings());
    if count == 0 {
        warnings.extend(session.not_total_warnings());
    }
    session.report_search();
    let mut found = Inferred::new((models, count), warnings);
    found.partial = partial;
    found.trace = session.take_trace();
    Ok(found)
}

/// Up to `nbmodels` (0: all) models of the session, distinct on `blocked_on`, each made final by
/// `finish` and shown to the observer as soon as it is found (without `finish`, the models are
/// only counted; without `store`, they are not returned), and their number. A limit (Ctrl-C, time, memory)
/// that stops the search after some models were found ends the enumeration with those models
/// and what stopped it, and notes the partial result for the command line. With a seed for
/// random values, each search prefers random values for the atoms of `blocked_on`.
fn enumerate(
    session: &mut Session,
    blocked_on: &[Symbol],
    nbmodels: usize,
    random_values: Option<u64>,
    finish: Option<&dyn Fn(Structure) -> Structure>,
    store: bool,
    observer: &Observer,
) -> IdpResult<(Vec<Structure>, usize, Option<String>)> {
    let mut models = Vec::new();
    let mut count = 0;
    let mut random = random_values.map(SplitMix::new);
    // The blocking clauses' literals, computed again only when the store gains atoms. The
    // first ones before any search: an atom that stands for its body may get its literal
    // only then, and a literal made after a search has no value in its model.
    let lits = session.blocking_lits(blocked_on);
    let mut blocking: Option<((usize, usize), Vec<Lit>)> = Some((session.blocking_key(), lits));
    // Models are counted inside the search, all but the last one of a limit; those to be
    // decoded are kept there and decoded when the search returns.
    let mut recording = false;
    if random.is_none() && nbmodels != 1 {
        let inside = if nbmodels == 0 {
            usize::MAX
        } else {
            nbmodels - 1
        };
        match finish {
            None => {
                session.count_inside(blocked_on, inside)?;
            }
            Some(_) => recording = session.record_inside(blocked_on, inside)?,
        }
    }
    while nbmodels == 0 || count < nbmodels {
        let found = match random.as_mut() {
            Some(random) => {
                let preferred: Vec<Lit> = session
                    .atom_lits(blocked_on)
                    .into_iter()
                    .map(|l| if random.next() & 1 == 1 { l } else { -l })
                    .collect();
                session.solve_preferring(&preferred)
            }
            None => session.solve(&[]),
        };
        count += session.counted_inside();
        if let (true, Some(finish)) = (recording, finish) {
            let recorded = session.recorded_inside();
            if !recorded.is_empty() {
                let current = matches!(found, Ok(true)).then(|| session.saved_model());
                for saved in recorded {
                    session.restore_model(saved);
                    let model = finish(session.decode(""));
                    observer.model(&model);
                    if store {
                        models.push(model);
                    }
                }
                if let Some(current) = current {
                    session.restore_model(current);
                }
            }
        }
        match found {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) if e.is_limit() && count > 0 => {
                let n = count;
                let plural = if n == 1 { "" } else { "s" };
                let after = format!("after {n} model{plural} (the models found so far were kept)");
                let run = &session.options().run;
                let note = match run.reached(None) {
                    Some(stop) => stop.with_context(&after),
                    None => format!("{} ({after})", e.message()),
                };
                run.note_partial(note.clone());
                return Ok((models, count, Some(note)));
            }
            Err(e) => return Err(e),
        }
        count += 1;
        if let Some(finish) = finish {
            let model = finish(session.decode(""));
            observer.model(&model);
            if store {
                models.push(model);
            }
        }
        let key = session.blocking_key();
        if blocking.as_ref().is_none_or(|(k, _)| *k != key) {
            blocking = Some((key, session.blocking_lits(blocked_on)));
        }
        if let Some((_, lits)) = &blocking {
            session.block(lits);
        }
    }
    Ok((models, count, None))
}

/// Models of `theory` extending `structure` that minimise `term`.
pub fn minimize(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    term: &ir::Term,
    output: Option<VocId>,
    options: &Options,
) -> IdpResult<Inferred<Optimum>> {
    let mut warnings = Vec::new();
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options, &mut warnings)?
    else {
        let none = Optimum {
            models: Vec::new(),
            proven: true,
            value: None,
        };
        return Ok(Inferred::new(none, warnings).with_empty_trace(options.trace));
    };
    let options = &single_model_economy(options);
    let mut through = equations_to_sum_through(program, theory, &evaluated);
    let summed = through.as_mut().and_then(|e| e.theory(theory));
    let summed_term = through.as_mut().and_then(|e| e.term(term));
    let theory = summed.as_ref().unwrap_or(theory);
    let mut session = Session::new(program, theory, &pending, &evaluated, options)?;
    // With an output vocabulary, IDP3 shows it and the symbols of the term.
    let shown = |m: Structure| match output {
        Some(output) => {
            let mut extra = rustc_hash::FxHashSet::default();
            crate::sema::walk::symbols(term, &mut extra);
            huge::project_with(program, m, output, &extra)
        }
        None => m,
    };
    let objective = summed_term.as_ref().unwrap_or(term);
    let optimum = optimise(&mut session, objective, output, &shown, options)?;
    session.report_search();
    warnings.extend(session.take_warnings());
    let mut found = Inferred::new(optimum, warnings);
    found.trace = session.take_trace();
    Ok(found)
}

/// The equations of `theory` to sum through in a search of its models over `structure`
/// ([`crate::sema::transform::SumsThroughEquations`]), if it has any.
fn equations_to_sum_through(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
) -> Option<crate::sema::transform::SumsThroughEquations> {
    crate::sema::transform::SumsThroughEquations::new(program, theory, |s| {
        matches!(structure.table(s), Some(Table::TwoValued(_)))
    })
}

/// The optimum of `term` in the session's models (see [`minimize`]), each optimal model
/// given through `shown`.
fn optimise(
    session: &mut Session,
    term: &ir::Term,
    output: Option<VocId>,
    shown: &dyn Fn(Structure) -> Structure,
    options: &Options,
) -> IdpResult<Optimum> {
    if session.mentions_integer_variable(term) {
        return optimise_number(session, term, output, shown, options);
    }
    // A count or sum is searched on its totals unless a strategy of bounds is asked for.
    let by_cores = options.tuning.minimize == Some(Strategy::Cores);
    let linear = match options.tuning.minimize {
        None | Some(Strategy::Cores) => session.linear_objective(term)?,
        Some(_) => None,
    };
    let objective = match &linear {
        Some(_) => GTerm(Vec::new()),
        None => session.ground_term(term)?,
    };
    let totals = linear
        .as_ref()
        .map(|linear| optimise::TotalBounds::new(session, linear));
    let search = match (&totals, &linear) {
        (Some(_), Some(linear)) if by_cores => cores::least_total_by_cores(session, linear)?,
        (Some(totals), _) => optimise::least_total(session, totals)?,
        (None, _) => optimise::least_value(
            session,
            &objective,
            options.tuning.minimize.unwrap_or_default(),
        )?,
    };
    let best = match optimum_found(session, search) {
        Ok(best) => best,
        Err(settled) => return Ok(settled),
    };
    match &totals {
        Some(totals) => {
            if let Some(optimal) = optimise::total_is(session, totals, &best)? {
                session.assert_lit(optimal);
            }
        }
        None => {
            let equal: Vec<Gf> = objective
                .0
                .iter()
                .filter(|(_, v)| *v == best)
                .map(|(g, _)| *g)
                .collect();
            let equal = session.store_mut().or(equal);
            session.assert(equal);
        }
    }
    optimal_models(session, best, output, shown, options)
}

/// [`optimise`] for a term over numbers the search chooses.
fn optimise_number(
    session: &mut Session,
    term: &ir::Term,
    output: Option<VocId>,
    shown: &dyn Fn(Structure) -> Structure,
    options: &Options,
) -> IdpResult<Optimum> {
    if let Some(lin) = session.real_term(term)? {
        return optimise_real(session, &lin, term, output, shown, options);
    }
    let lin = session.integer_term(term)?;
    let search = optimise::least_number(session, &lin, term)?;
    let best = match optimum_found(session, search) {
        Ok(best) => best,
        Err(settled) => return Ok(settled),
    };
    let GVal::V(Value::Int(k)) = best else {
        unreachable!("a linear term has an integer value")
    };
    let at = session.position_of(term);
    session.note_numbers_at_their_ends(&at);
    let optimal = session.linear_at_most(&lin, i128::from(k), term)?;
    session.assert(optimal);
    optimal_models(session, best, output, shown, options)
}

/// [`optimise`] for a term over real variables: each model the solver accepts is moved to the
/// least value of the term under its bounds (the simplex), and each next model must be
/// strictly better, so the search ends after finitely many Boolean assignments. A term with
/// no lower bound, or whose infimum no model reaches (a strict bound), has no optimum: said
/// where the term is written.
fn optimise_real(
    session: &mut Session,
    lin: &LinTerm,
    term: &ir::Term,
    output: Option<VocId>,
    shown: &dyn Fn(Structure) -> Structure,
    options: &Options,
) -> IdpResult<Optimum> {
    let constant = session.set_real_objective(lin, term)?;
    let mut best: Option<(Rational, bool, SavedModel)> = None;
    loop {
        let assumptions = match &best {
            Some((value, _, _)) => {
                let better = session.real_below(lin, value, true);
                vec![session.lit(better)]
            }
            None => Vec::new(),
        };
        match session.solve(&assumptions) {
            Ok(true) => match session.real_optimum() {
                Some(LpOptimum::Least(value, reached)) => {
                    best = Some((value + &constant, reached, session.saved_model()));
                }
                _ => return Err(no_optimum(session, term, "decreases without bound")),
            },
            Ok(false) => break,
            Err(e) if e.is_limit() => {
                let Some((value, _, model)) = best else {
                    return Err(e);
                };
                session.restore_model(model);
                let value = GVal::V(Value::rational(&value));
                return Ok(unproven_optimum(session, value, e.message()));
            }
            Err(e) => return Err(e),
        }
    }
    let Some((value, reached, model)) = best else {
        return Ok(Optimum {
            models: Vec::new(),
            proven: true,
            value: None,
        });
    };
    if !reached {
        let why =
            format!("comes as close to {value} as one likes without reaching it (a strict bound)");
        return Err(no_optimum(session, term, &why));
    }
    session.restore_model(model);
    let optimal = session.real_below(lin, &value, false);
    session.assert(optimal);
    optimal_models(
        session,
        GVal::V(Value::rational(&value)),
        output,
        shown,
        options,
    )
}

/// The error for a real-valued term to optimise that has no least value.
fn no_optimum(session: &Session, term: &ir::Term, why: &str) -> crate::error::Error {
    let at = session.position_of(term);
    crate::error::Error::input(format!(
        "The term to optimise at {at} has no optimum: over the models of the theory it {why}."
    ))
}

/// The optimum a search proved, or (as `Err`) the answer when it found no model or was
/// stopped (the best model found so far restored).
fn optimum_found(session: &mut Session, search: optimise::Search) -> Result<GVal, Optimum> {
    match search {
        optimise::Search::NoModel => Err(Optimum {
            models: Vec::new(),
            proven: true,
            value: None,
        }),
        optimise::Search::Stopped(value, model, e) => {
            session.restore_model(model);
            Err(unproven_optimum(session, value, e.message()))
        }
        optimise::Search::Optimal(value) => Ok(value),
    }
}

/// The optimal models of a minimisation whose optimum `best` is asserted.
fn optimal_models(
    session: &mut Session,
    best: GVal,
    output: Option<VocId>,
    shown: &dyn Fn(Structure) -> Structure,
    options: &Options,
) -> IdpResult<Optimum> {
    let value = match best {
        GVal::V(v) => Some(v),
        _ => None,
    };
    if options.nbmodels == 1 && !options.trace {
        // The search ended on an optimal model (restored for decoding): asked for one model,
        // no search finds one again (a third of a maximum clique's time went to that). A
        // traced minimisation still returns the trace of the search for its model.
        return Ok(Optimum {
            models: vec![shown(session.decode(""))],
            proven: true,
            value,
        });
    }
    let blocked_on = session.output_symbols(output);
    // The optimal models are shown when the minimisation ends (its caller prints the value
    // first), so the observer does not see them one by one.
    let (models, _, _) = enumerate(
        session,
        &blocked_on,
        options.nbmodels,
        None,
        Some(shown),
        true,
        &Observer::default(),
    )?;
    Ok(Optimum {
        models,
        proven: true,
        value,
    })
}

/// `options`, with predicate atoms that no formula mentions left false when one model is
/// asked for (an enumeration must tell their values apart).
fn single_model_economy(options: &Options) -> Options {
    Options {
        leave_unmentioned_false: options.nbmodels == 1,
        ..options.clone()
    }
}

/// A small pseudo-random generator (SplitMix64): the same seed gives the same sequence on every
/// platform.
struct SplitMix(u64);

impl SplitMix {
    fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The result of a minimisation that a limit stopped: the best model found so far (the
/// session's current model), not proven optimal; the stop is noted for the command line.
fn unproven_optimum(session: &Session, best: GVal, message: &str) -> Optimum {
    let value = match best {
        GVal::V(v) => Some(v),
        _ => None,
    };
    let shown = value.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
    let context = format!(
        "before optimality was proven (the best model found so far, with value {shown}, was kept)"
    );
    let run = &session.options().run;
    let note = match run.reached(None) {
        Some(stop) => stop.with_context(&context),
        None => format!("{message} ({context})"),
    };
    run.note_partial(note);
    Optimum {
        models: vec![session.decode("")],
        proven: false,
        value,
    }
}

/// The structure with every definition whose opens are two-valued evaluated; `None` when a
/// definition contradicts the structure or is not total.
pub fn calculatedefinitions(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &Options,
) -> IdpResult<Inferred<Option<Structure>>> {
    let mut warnings = Vec::new();
    let evaluated = match evaluate_definitions(program, theory, structure, options, &mut warnings)?
    {
        Evaluated::Done(s, _) => Some(*s),
        Evaluated::Inconsistent => None,
    };
    Ok(Inferred::new(evaluated, warnings))
}

/// The tuples that certainly satisfy the query in the structure.
pub fn query(
    program: &Program,
    query: &Query,
    structure: &Structure,
    options: &Options,
) -> IdpResult<Vec<Tuple>> {
    let mut grounder = Grounder::new(
        program,
        structure,
        options.max_ground_size,
        options.run.until(None),
    );
    let mut out = Vec::new();
    grounder.for_each_candidate(
        &query.vars,
        &query.formula,
        &mut |g: &mut Grounder, known| {
            if g.condition(known, &query.formula)? == Gf::TRUE {
                out.push(
                    query
                        .vars
                        .iter()
                        .map(|v| g.lookup(v).expect("bound"))
                        .collect(),
                );
            }
            Ok(false)
        },
    )?;
    // A procedure that interprets a symbol lazily may have failed on the way.
    grounder.check_growth()?;
    out.sort();
    Ok(out)
}

/// How strong a propagation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// Unit propagation on the grounding (`groundpropagate`, `propagate`).
    Ground,
    /// All consequences: the intersection of all models (`optimalpropagate`).
    Optimal,
}

/// A more precise structure, or `None` if the theory has no model extending the structure
/// (for [`Propagation::Ground`]: if propagation meets a contradiction). `Optimal` computes
/// all consequences (the backbone of the models); `Ground` what propagation on the grounding
/// derives without a search, as IDP3's `groundpropagate`: unit propagation over the clauses
/// and the definitions' unfounded sets (all consequences from a solver that cannot
/// propagate alone).
pub fn propagate(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    strength: Propagation,
    options: &Options,
) -> IdpResult<Inferred<Option<Structure>>> {
    let mut warnings = Vec::new();
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options, &mut warnings)?
    else {
        return Ok(Inferred::new(None, warnings));
    };
    let mut session = Session::new(program, theory, &pending, &evaluated, options)?;
    let propagated = match strength {
        Propagation::Ground => unit_consequences(&mut session, &evaluated)?,
        Propagation::Optimal => None,
    };
    let propagated = match propagated {
        Some(found) => found,
        None => backbone(&mut session, &evaluated)?,
    };
    warnings.extend(session.take_warnings());
    Ok(Inferred::new(propagated, warnings))
}

/// `structure` with every atom that propagation on the session's grounding makes certain:
/// `Some(None)` on a contradiction; `None` when the solver cannot propagate without a search.
fn unit_consequences(
    session: &mut Session,
    structure: &Structure,
) -> IdpResult<Option<Option<Structure>>> {
    let implied = match session.implied(&[])? {
        Implied::Unsupported => return Ok(None),
        Implied::Conflict => return Ok(Some(None)),
        Implied::Lits(lits) => lits.into_iter().collect::<HashSet<Lit>>(),
    };
    let store_atoms = session.store().atom_count() as u32;
    let mut fixed = Vec::new();
    for a in 0..store_atoms {
        let l = session.lit(session.store().atom_gf(a));
        if implied.contains(&l) {
            fixed.push((a, true));
        } else if implied.contains(&-l) {
            fixed.push((a, false));
        }
    }
    let decided = session.decided_without_search()?;
    Ok(Some(Some(with_certain(session, structure, fixed, decided))))
}

/// `structure` with every atom that has the same value in all models of the session made
/// certain; `None` when there is no model.
fn backbone(session: &mut Session, structure: &Structure) -> IdpResult<Option<Structure>> {
    if !session.solve(&[])? {
        return Ok(None);
    }
    let store_atoms = session.store().atom_count() as u32;
    let mut candidates: Vec<(u32, bool)> = (0..store_atoms)
        .map(|a| (a, session.value(session.store().atom_gf(a))))
        .collect();
    let numbers = session.fixed_numbers()?;
    let mut fixed: Vec<(u32, bool)> = Vec::new();
    // The search is asked to try the other value of every candidate first, so that each
    // model it finds drops many of them (as CadiBack does).
    let flips: Vec<Lit> = candidates
        .iter()
        .map(|&(a, v)| {
            let l = session.lit(session.store().atom_gf(a));
            if v {
                -l
            } else {
                l
            }
        })
        .collect();
    session.prefer(&flips, false);
    while let Some((a, v)) = candidates.pop() {
        let g = session.store().atom_gf(a);
        let l = session.lit(g);
        if session.solve(&[if v { -l } else { l }])? {
            // The other value is possible: drop every candidate this model contradicts.
            candidates.retain(|&(b, w)| session.value(session.store().atom_gf(b)) == w);
        } else {
            fixed.push((a, v));
        }
    }
    session.prefer(&flips, true);
    let decided = session.decided_without_search()?;
    let mut out = with_certain(session, structure, fixed, decided);
    for (f, tuple) in numbers {
        let s = Symbol::Func(f);
        let (mut ct, cf) = match out.table(s) {
            Some(Table::ThreeValued { ct, cf }) => (ct.clone(), cf.clone()),
            _ => Default::default(),
        };
        ct.insert(tuple);
        out.symbols.insert(s, Table::ThreeValued { ct, cf });
    }
    Ok(Some(out))
}

/// `structure` with the atoms of `fixed` (store atoms and their values) and the tuples of
/// `decided` (those grounding decided, [`Session::decided_without_search`]) made certain.
fn with_certain(
    session: &Session,
    structure: &Structure,
    fixed: Vec<(u32, bool)>,
    decided: Vec<(Symbol, Tuple, bool)>,
) -> Structure {
    let mut out = structure.clone();
    let mut ct: HashMap<Symbol, (HashSet<Tuple>, HashSet<Tuple>)> = Default::default();
    let fixed = fixed.into_iter().map(|(a, v)| {
        let (s, t) = session.store().atom_key(a).clone();
        (s, t, v)
    });
    for (s, t, v) in fixed.chain(decided) {
        let e = ct.entry(s).or_default();
        if v {
            e.0.insert(t);
        } else {
            e.1.insert(t);
        }
    }
    for (s, (pos, neg)) in ct {
        let (mut c, mut f) = match out.table(s) {
            Some(Table::ThreeValued { ct, cf }) if !session.forces(s) => (ct.clone(), cf.clone()),
            _ => Default::default(),
        };
        c.extend(pos);
        f.extend(neg);
        out.symbols.insert(s, Table::ThreeValued { ct: c, cf: f });
    }
    out
}

/// The value of a term without free variables in a two-valued structure (`None` if undefined).
pub fn value_of_term(
    program: &Program,
    term: &ir::Term,
    structure: &Structure,
    options: &Options,
) -> IdpResult<Option<Value>> {
    let mut grounder = Grounder::new(
        program,
        structure,
        options.max_ground_size,
        options.run.until(None),
    );
    let value = grounder.ground_term(term)?;
    // A procedure that interprets a symbol lazily may have failed on the way.
    grounder.check_growth()?;
    Ok(match value.as_known() {
        Some(GVal::V(v)) => Some(v),
        _ => None,
    })
}
