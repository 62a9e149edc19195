//! LTC inferences (reference §13) as IDP3 does them (`src/inferences/progression`): the
//! theory is split into an initial theory over the single-state vocabulary `V_ss` and a bistate
//! theory over `V_bs` ([`split`]), so that no inference depends on the size of Time.
//!
//! * `initialise(T, S)`: the models of the initial theory in `S` projected on the state at
//!   Start ([`project`]); also returns both theories and both vocabularies.
//! * `progress(T, state)`: the models of the bistate theory in which `state` is the current
//!   state, each turned into the next state.
//! * `isinvariant(T, Inv, S)`: induction: the invariant holds in every initial state, and every
//!   transition from a state where it holds leads to a state where it holds (or, for a bistate
//!   invariant, every transition satisfies it). A counterexample is described.

mod plan;
mod project;
mod reach;
mod split;
mod vocab;

use crate::error::{Error, ErrorKind, IdpResult};
use crate::ids::VocId;
use crate::infer::{self, Inferred};
use crate::sema::ir::{Formula, FormulaKind};
use crate::sema::{Program, Theory};
use crate::structure::Structure;

pub use plan::plan;
pub use split::{Invariant, Split};

/// What `initialise` returns.
#[derive(Clone, Debug)]
pub struct Initialised {
    /// The initial states (over `V_ss`).
    pub models: Vec<Structure>,
    pub split: Split,
    pub bistate_voc: VocId,
    pub single_state_voc: VocId,
}

/// IDP3's error when the theory and a structure (or invariant) are over other vocabularies.
fn aborted(msg: &str) -> Error {
    Error::new(ErrorKind::Aborted, msg)
}

/// The models of `theory` in `s`; their warnings are added to `warnings`.
fn models(
    program: &Program,
    theory: &Theory,
    s: &Structure,
    opts: &infer::Options,
    warnings: &mut Vec<String>,
) -> IdpResult<Vec<Structure>> {
    let found = infer::modelexpand(program, theory, s, None, opts)?;
    warnings.extend(found.warnings);
    Ok(found.value)
}

pub fn initialise(
    program: &Program,
    theory: &Theory,
    s: &Structure,
    opts: &infer::Options,
) -> IdpResult<Inferred<Initialised>> {
    let info = vocab::info(program, theory.vocabulary)?;
    if theory.vocabulary != s.vocabulary {
        return Err(aborted(
            "LTC operations require that structure and theory range over the same vocabulary.",
        ));
    }
    let (ss, bs) = vocab::state_vocabularies(info)?;
    let split = split::split_theory(program, info, theory)?;
    let (projected, mut warnings) = project::project(program, info, s, true)?;
    let models = models(program, &split.initial, &projected, opts, &mut warnings)?
        .into_iter()
        .map(|mut m| {
            m.name = String::new();
            m
        })
        .collect();
    let init = Initialised {
        models,
        split,
        bistate_voc: bs,
        single_state_voc: ss,
    };
    Ok(Inferred::new(init, warnings))
}

pub fn progress(
    program: &Program,
    theory: &Theory,
    state: &Structure,
    opts: &infer::Options,
) -> IdpResult<Inferred<Vec<Structure>>> {
    let info = vocab::info(program, theory.vocabulary)?;
    let (ss, bs) = vocab::state_vocabularies(info)?;
    let split = split::split_theory(program, info, theory)?;
    if state.vocabulary != ss {
        return Err(aborted(&format!(
            "The structure given to the progression inference should range over vocabulary {} but ranges over {}",
            program.voc(ss).name,
            program.voc(state.vocabulary).name
        )));
    }
    let symbols = vocab::state_symbols(program, info)?;
    let before = project::to_bistate(state, bs);
    let mut warnings = Vec::new();
    let next = models(program, &split.bistate, &before, opts, &mut warnings)?
        .iter()
        .map(|m| project::next_state(m, &symbols, ss))
        .collect();
    Ok(Inferred::new(next, warnings))
}

/// The answer of `isinvariant`: whether the invariant was proven, and else the counterexample
/// IDP3 prints on stderr.
#[derive(Clone, Debug)]
pub struct Invariance {
    pub holds: bool,
    pub counterexample: Option<String>,
}

/// Whether `hypothesis` with `context` has no model where `conclusion` is false; otherwise the
/// counterexample's text (IDP3's `checkImplied`).
fn implied(
    program: &Program,
    hypothesis: &Theory,
    conclusion: &Formula,
    context: &Structure,
    step: &str,
    opts: &infer::Options,
    warnings: &mut Vec<String>,
) -> IdpResult<Option<String>> {
    let mut t = hypothesis.clone();
    let span = conclusion.span;
    t.sentences.push(Formula::new(
        FormulaKind::Not(Box::new(conclusion.clone())),
        span,
    ));
    let mut context = context.clone();
    context.vocabulary = t.vocabulary;
    let mut one = opts.clone();
    one.nbmodels = 1;
    let found = models(program, &t, &context, &one, warnings)?;
    Ok(found.first().map(|m| {
        format!(
            "Found counterexample for invariant in the {step} step:\n{}",
            crate::print::structure_to_string(program, m)
        )
    }))
}

pub fn isinvariant(
    program: &Program,
    theory: &Theory,
    inv: &Theory,
    s: Option<&Structure>,
    opts: &infer::Options,
) -> IdpResult<Inferred<Invariance>> {
    if theory.vocabulary != inv.vocabulary {
        return Err(aborted("Proving invariants requires that your LTC theory and invariant range over the same vocabulary."));
    }
    if s.is_some_and(|s| s.vocabulary != theory.vocabulary) {
        return Err(aborted(
            "LTC operations require that structure and theory range over the same vocabulary.",
        ));
    }
    let info = vocab::info(program, theory.vocabulary)?;
    let split = split::split_theory(program, info, theory)?;
    let invariant = split::split_invariant(program, info, inv)?;
    let Some(s) = s else {
        return Err(Error::input("isinvariant without a structure proves the invariant with a theorem prover (stdoptions.provercommand), which this implementation does not have; give a structure as the third argument"));
    };
    let (initial, _) = project::project(program, info, s, true)?;
    let (transition, _) = project::project(program, info, s, false)?;
    let mut warnings = Vec::new();
    let w = &mut warnings;
    let counterexample = match &invariant {
        Invariant::SingleState { base, step } => {
            let init = &split.initial;
            match implied(program, init, base, &initial, "initial", opts, w)? {
                Some(c) => Some(c),
                None => {
                    let bi = &split.bistate;
                    implied(program, bi, step, &transition, "induction", opts, w)?
                }
            }
        }
        Invariant::Bistate(f) => implied(
            program,
            &split.bistate,
            f,
            &transition,
            "induction",
            opts,
            w,
        )?,
    };
    let answer = Invariance {
        holds: counterexample.is_none(),
        counterexample,
    };
    Ok(Inferred::new(answer, warnings))
}

/// The warning for model expansion of a theory over an LTC vocabulary when the structure gives
/// no value of `Start` or of `Next` although the theory uses it: the search then chooses them
/// like any other function (`Next(3) = 0`, `Start = 3`), which is rarely what was meant.
/// `None` when both are given, defined by the theory, unused, or the vocabulary is not an LTC
/// one.
pub fn open_time_warning(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
) -> Option<String> {
    use crate::ids::Symbol;
    use crate::structure::Table;
    let info = program.voc(theory.vocabulary).ltc.as_ref()?;
    let mut used = rustc_hash::FxHashSet::default();
    for f in &theory.sentences {
        crate::sema::walk::symbols(f, &mut used);
    }
    for d in &theory.definitions {
        for r in &d.rules {
            crate::sema::walk::symbols(&r.body, &mut used);
        }
    }
    // A time function that a definition of the theory defines is not chosen freely (PlayID's
    // theories define `Next` to stop where the game ends).
    let defined: rustc_hash::FxHashSet<Symbol> = theory
        .definitions
        .iter()
        .flat_map(|d| d.rules.iter().map(|r| r.head))
        .collect();
    let open: Vec<&str> = [info.start, info.next]
        .into_iter()
        .map(Symbol::Func)
        .filter(|s| used.contains(s) && !defined.contains(s))
        .filter(|s| match structure.table(*s) {
            None => true,
            Some(Table::ThreeValued { ct, .. }) => ct.is_empty(),
            Some(Table::TwoValued(_)) => false,
        })
        .map(|s| program.symbol_name(s))
        .collect();
    let (start, next) = (program.func(info.start), program.func(info.next));
    let what = match open.as_slice() {
        [] => return None,
        [one] => format!("no value of {one}"),
        _ => format!("no value of {} or {}", start.name, next.name),
    };
    let at = start
        .span
        .and_then(|span| program.position(span))
        .map(|p| format!(" (declared at {p})"))
        .unwrap_or_default();
    let time = &program.sort(info.time).name;
    Some(format!(
        "structure {} gives {what}, the time functions of LTC vocabulary {}{at}: model \
         expansion chooses them like any other function, so time need not start at the first \
         {time} or go one step at a time (a model may have {next}(0) = 0)\n  \
         hint: give them in the structure ({start} = 0  {next} = {{ 0->1; 1->2; ... }}), or \
         let the LTC inferences do it: initialise(T, S) and progress, or shortestplan(T, S)",
        structure.name,
        program.voc(theory.vocabulary).name,
        start = start.name,
        next = next.name,
    ))
}
