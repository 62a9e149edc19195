//! Inferences over a program: model expansion, optimisation, definition evaluation, queries,
//! propagation and progression. Each takes the program, a theory and a structure (never
//! modified) and returns new structures.

pub mod bottom_up;
pub mod check;
pub mod definitions;
pub mod huge;
pub mod join;
pub mod ltc;
pub mod session;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::IdpResult;
use crate::ground::store::Gf;
use crate::ground::{GVal, Grounder};
use crate::sema::ir;
use crate::sema::program::Symbol;
use crate::sema::program::{Program, Query, Theory, VocId};
use crate::structure::structure::{Structure, Table};
use crate::structure::value::{Tuple, Value};
use definitions::{evaluate_definitions, Evaluated};
use session::Session;

thread_local! {
    /// Warnings of the inferences run so far, for the caller to print.
    static WARNINGS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records a warning for the caller of the inference (the Lua layer prints it).
pub fn warn(message: String) {
    WARNINGS.with(|w| w.borrow_mut().push(message));
}

/// The warnings recorded since the last call.
pub fn take_warnings() -> Vec<String> {
    WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

static STATS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

static DUMP_GROUND: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints every ground theory before it is solved (`idp --dump ground`).
pub fn set_dump_ground(on: bool) {
    DUMP_GROUND.store(on, std::sync::atomic::Ordering::Relaxed);
}

pub fn dump_ground_enabled() -> bool {
    DUMP_GROUND.load(std::sync::atomic::Ordering::Relaxed)
}

/// Turns on per-stage statistics on stderr (`idp --stats`).
pub fn set_stats(on: bool) {
    STATS.store(on, std::sync::atomic::Ordering::Relaxed);
}

pub fn stats_enabled() -> bool {
    STATS.load(std::sync::atomic::Ordering::Relaxed) || std::env::var_os("IDP_STATS").is_some()
}

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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatBackend {
    Cadical,
    Splr,
}

/// The SAT backend of new [`Options`]; the command line's `--sat` changes it for the whole run.
static DEFAULT_SPLR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn set_default_sat_backend(backend: SatBackend) {
    DEFAULT_SPLR.store(backend == SatBackend::Splr, Ordering::Relaxed);
}

/// The grounding size limit (nodes of the ground theory) of new [`Options`]; the command line's
/// `--max-ground-size` changes it for the whole run.
static DEFAULT_MAX_GROUND_SIZE: AtomicUsize = AtomicUsize::new(10_000_000);

pub fn set_default_max_ground_size(nodes: usize) {
    DEFAULT_MAX_GROUND_SIZE.store(nodes, Ordering::Relaxed);
}

impl Default for Options {
    fn default() -> Options {
        Options {
            nbmodels: 1,
            timeout: 0.0,
            stablesemantics: false,
            max_ground_size: DEFAULT_MAX_GROUND_SIZE.load(Ordering::Relaxed),
            verbose: false,
            sat_backend: if DEFAULT_SPLR.load(Ordering::Relaxed) {
                SatBackend::Splr
            } else {
                SatBackend::Cadical
            },
            leave_unmentioned_false: false,
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
) -> IdpResult<Vec<Structure>> {
    let stand_in = huge::with_stand_ins(program, theory, structure, output);
    let structure = stand_in.as_ref().unwrap_or(structure);
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options)?
    else {
        return Ok(Vec::new());
    };
    let options = &single_model_economy(options);
    let mut session = Session::new(program, theory, &pending, &evaluated, options)?;
    let blocked_on = session.output_symbols(output);
    let models = enumerate(&mut session, &blocked_on, options.nbmodels)?;
    if models.is_empty() {
        session.not_total_warnings().into_iter().for_each(warn);
    }
    match (stand_in, output) {
        (Some(_), Some(output)) => Ok(models
            .into_iter()
            .map(|m| huge::project(program, m, output))
            .collect()),
        _ => Ok(models),
    }
}

/// Up to `nbmodels` (0: all) models of the session, distinct on `blocked_on`. A limit (Ctrl-C,
/// time, memory) that stops the search after some models were found ends the enumeration with
/// those models, and notes the partial result for the command line.
fn enumerate(
    session: &mut Session,
    blocked_on: &[Symbol],
    nbmodels: usize,
) -> IdpResult<Vec<Structure>> {
    let mut models = Vec::new();
    while nbmodels == 0 || models.len() < nbmodels {
        match session.solve(&[]) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) if e.is_limit() && !models.is_empty() => {
                let n = models.len();
                let plural = if n == 1 { "" } else { "s" };
                let after = format!("after {n} model{plural} (the models found so far were kept)");
                let note = match crate::limits::reached(None) {
                    Some(stop) => stop.with_context(&after),
                    None => format!("{} ({after})", e.message()),
                };
                crate::limits::note_partial(note);
                break;
            }
            Err(e) => return Err(e),
        }
        models.push(session.decode(""));
        session.block(blocked_on);
    }
    Ok(models)
}

/// Models of `theory` extending `structure` that minimise `term`.
pub fn minimize(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    term: &ir::Term,
    output: Option<VocId>,
    options: &Options,
) -> IdpResult<Optimum> {
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options)?
    else {
        return Ok(Optimum {
            models: Vec::new(),
            proven: true,
            value: None,
        });
    };
    let options = &single_model_economy(options);
    let mut session = Session::new(program, theory, &pending, &evaluated, options)?;
    let objective = session.grounder.ground_term(term)?;
    for (g, _) in &objective.0 {
        session.lit(*g);
    }
    let mut best: Option<GVal> = None;
    // The SAT model of the best value so far, kept in case a limit stops the search.
    let mut best_model: Vec<bool> = Vec::new();
    let mut assumption: Vec<i32> = Vec::new();
    loop {
        match session.solve(&assumption) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) if e.is_limit() => match best {
                Some(value) => {
                    session.restore_model(best_model);
                    return Ok(unproven_optimum(&session, value, e.message()));
                }
                None => return Err(e),
            },
            Err(e) => return Err(e),
        }
        let value = objective
            .0
            .iter()
            .find(|(g, _)| session.value(*g))
            .map(|(_, v)| *v);
        let Some(value) = value else { break };
        best = Some(value);
        best_model = session.saved_model();
        // Ask for a strictly better value next, under a fresh activation literal.
        let better: Vec<Gf> = objective
            .0
            .iter()
            .filter(|(_, v)| *v < value)
            .map(|(g, _)| *g)
            .collect();
        let better = session.grounder.store.or(better);
        let l = session.lit(better);
        assumption = vec![l];
    }
    let Some(best) = best else {
        return Ok(Optimum {
            models: Vec::new(),
            proven: true,
            value: None,
        });
    };
    let equal: Vec<Gf> = objective
        .0
        .iter()
        .filter(|(_, v)| *v == best)
        .map(|(g, _)| *g)
        .collect();
    let equal = session.grounder.store.or(equal);
    session.assert(equal);
    let blocked_on = session.output_symbols(output);
    let models = enumerate(&mut session, &blocked_on, options.nbmodels)?;
    let value = match best {
        GVal::V(v) => Some(v),
        _ => None,
    };
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
    let note = match crate::limits::reached(None) {
        Some(stop) => stop.with_context(&context),
        None => format!("{message} ({context})"),
    };
    crate::limits::note_partial(note);
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
) -> IdpResult<Option<Structure>> {
    match evaluate_definitions(program, theory, structure, options)? {
        Evaluated::Done(s, _) => Ok(Some(*s)),
        Evaluated::Inconsistent => Ok(None),
    }
}

/// The tuples that certainly satisfy the query in the structure.
pub fn query(program: &Program, query: &Query, structure: &Structure) -> IdpResult<Vec<Tuple>> {
    let mut grounder = Grounder::new(program, structure, Options::default().max_ground_size);
    let mut out = Vec::new();
    grounder.for_each_candidate(&query.vars, &query.formula, &mut |g: &mut Grounder| {
        if g.ground_formula(&query.formula)? == Gf::TRUE {
            out.push(
                query
                    .vars
                    .iter()
                    .map(|v| g.lookup(v).expect("bound"))
                    .collect(),
            );
        }
        Ok(false)
    })?;
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

/// A more precise structure, or `None` if the theory has no model extending the structure.
/// Both strengths currently compute all consequences (the backbone of the models).
pub fn propagate(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    strength: Propagation,
    options: &Options,
) -> IdpResult<Option<Structure>> {
    let _ = strength;
    let Evaluated::Done(evaluated, pending) =
        evaluate_definitions(program, theory, structure, options)?
    else {
        return Ok(None);
    };
    let mut session = Session::new(program, theory, &pending, &evaluated, options)?;
    if !session.solve(&[])? {
        return Ok(None);
    }
    let store_atoms = session.grounder.store.atom_count() as u32;
    let mut candidates: Vec<(u32, bool)> = (0..store_atoms)
        .map(|a| (a, session.value(session.grounder.store.atom_gf(a))))
        .collect();
    let mut fixed: Vec<(u32, bool)> = Vec::new();
    while let Some((a, v)) = candidates.pop() {
        let g = session.grounder.store.atom_gf(a);
        let l = session.lit(g);
        if session.solve(&[if v { -l } else { l }])? {
            // The other value is possible: drop every candidate this model contradicts.
            candidates.retain(|&(b, w)| session.value(session.grounder.store.atom_gf(b)) == w);
        } else {
            fixed.push((a, v));
        }
    }
    let mut out = evaluated.clone();
    let mut ct: HashMap<Symbol, (HashSet<Tuple>, HashSet<Tuple>)> = Default::default();
    for (a, v) in fixed {
        let (s, t) = session.grounder.store.atom_key(a).clone();
        let e = ct.entry(s).or_default();
        if v {
            e.0.insert(t);
        } else {
            e.1.insert(t);
        }
    }
    for (s, (pos, neg)) in ct {
        let (mut c, mut f) = match out.table(s) {
            Some(Table::ThreeValued { ct, cf })
                if !session.grounder.forced_unknown.contains(&s) =>
            {
                (ct.clone(), cf.clone())
            }
            _ => Default::default(),
        };
        c.extend(pos);
        f.extend(neg);
        out.symbols.insert(s, Table::ThreeValued { ct: c, cf: f });
    }
    Ok(Some(*out))
}

/// The value of a term without free variables in a two-valued structure (`None` if undefined).
pub fn value_of_term(
    program: &Program,
    term: &ir::Term,
    structure: &Structure,
) -> IdpResult<Option<Value>> {
    let mut grounder = Grounder::new(program, structure, Options::default().max_ground_size);
    let value = grounder.ground_term(term)?;
    // A procedure that interprets a symbol lazily may have failed on the way.
    grounder.check_growth()?;
    Ok(match value.as_known() {
        Some(GVal::V(v)) => Some(v),
        _ => None,
    })
}
