//! Model expansion with lazy grounding ([`crate::ground::delayed`]): ground the singled-out
//! tuples of the huge open predicates, search, and ground more of the others only when fewer
//! models were found than asked for; stop with a limit that names the delayed predicates
//! rather than answer with too few models.
//!
//! Before the first level, a theory with a definition over many possible tuples is tried as a
//! relaxation without such definitions ([`refuted_by_relaxation`]): when that has no model,
//! neither has the theory, and the large definitions are never ground. A theory with huge open
//! predicates is tried instead as the relaxation of [`crate::infer::abstraction`], on which
//! lazy grounding is exact ([`refuted_by_abstraction`]).

use std::time::Instant;

use crate::error::{Error, IdpResult, Limit};
use crate::ground::delayed::{
    next_level_seconds, out_of_time, too_many_delayed, Delay, Delayable, Delayed,
};
use crate::ground::Grounder;
use crate::ids::VocId;
use crate::infer::abstraction::abstract_delayed;
use crate::infer::session::Session;
use crate::infer::{search_models, Found, Inferred, Options};
use crate::sema::ir::Definition;
use crate::sema::{Program, Theory};
use crate::source::Span;
use crate::structure::Structure;

/// What every level grounds: the theory, its definitions still to encode, the structure with
/// the others evaluated, and the output vocabulary.
pub(super) struct Setup<'a> {
    pub program: &'a Program,
    pub theory: &'a Theory,
    pub pending: &'a [&'a Definition],
    pub structure: &'a Structure,
    pub output: Option<VocId>,
}

/// What model expansion answers: the models (when kept) and their number.
type Expanded = Inferred<(Vec<Structure>, usize)>;

/// Model expansion level by level (see the module documentation); without delayed
/// predicates, the one session of plain model expansion.
pub(super) fn expand(
    setup: &Setup,
    options: &Options,
    found: Found,
    warnings: Vec<String>,
) -> IdpResult<Expanded> {
    let started = Instant::now();
    let mut delay = Delay::first(options.tuning.delay_after);
    // A predicate that lazy grounding delays makes the relaxation without large definitions
    // give up (assuming tuples false is no relaxation); the other relaxation is tried then.
    let delayable = delayable(
        setup.program,
        setup.structure,
        setup.pending,
        &setup.theory.sentences,
        options,
    );
    let refuted = match delayable.is_empty() {
        true => refuted_by_relaxation(setup, options, delay, found, &warnings),
        false => refuted_by_abstraction(setup, options, &delayable, delay, found, &warnings),
    };
    if let Some(answer) = refuted {
        return answer;
    }
    let mut before: Vec<Delayed> = Vec::new();
    loop {
        let level_started = Instant::now();
        let level = Options {
            delay: Some(delay),
            timeout: remaining(options.timeout, started),
            ..options.clone()
        };
        let session = Session::new(
            setup.program,
            setup.theory,
            setup.pending,
            setup.structure,
            &level,
        )
        .map_err(|e| while_expanding(setup.program, e, &before))?;
        if session.delayed().is_empty() {
            return search_models(
                session,
                setup.program,
                setup.output,
                &level,
                found,
                warnings,
            );
        }
        let grounding = level_started.elapsed().as_secs_f64();
        let delayed = session.delayed().to_vec();
        // Models found with delayed tuples false are models, but maybe not all of them: they
        // are shown only once enough were found (a next level searches again).
        let quiet = Options {
            observer: options.observer.without_models(),
            ..level.clone()
        };
        let keep = if found == Found::Count && !options.observer.models_on() {
            Found::Count
        } else {
            Found::Keep
        };
        let searched = search_models(
            session,
            setup.program,
            setup.output,
            &quiet,
            keep,
            warnings.clone(),
        )?;
        let count = searched.value.1;
        if (options.nbmodels != 0 && count >= options.nbmodels) || searched.partial.is_some() {
            for m in &searched.value.0 {
                options.observer.model(m);
            }
            return Ok(match found {
                Found::Keep => searched,
                _ => searched.map(|(_, n)| (Vec::new(), n)),
            });
        }
        let Some(next) = delay.next(&delayed) else {
            return Err(too_many_delayed(setup.program, &delayed, count));
        };
        if let Some(limit) = short_of_time(
            options,
            started,
            next_level_seconds(grounding, &delayed, next),
        ) {
            return Err(out_of_time(setup.program, &delayed, count, limit));
        }
        delay = next;
        before = delayed;
    }
}

/// Definitions whose symbols the joint bounds allow more tuples than this are left out of the
/// relaxation that is tried first ([`refuted_by_relaxation`]; `IDP_RELAX_ABOVE`).
pub const DEFAULT_RELAX_ABOVE: usize = 100_000;
/// The relaxation is given up when one SAT call does not refute it within this many conflicts.
const RELAX_CONFLICTS: u32 = 1_000;

/// The answer of model expansion when a relaxation of the theory already has no model: the
/// theory without its large definitions (more than `relax_above` possible tuples), their
/// symbols open within the joint bounds ([`Session::relaxation`]). Every model of the theory
/// is one of the relaxation, so none exists; the answer is that of the relaxation's session
/// (no model), found without grounding the large definitions (`pancakes88`: a goal that
/// the stack cannot reach in time, refuted over the few states the goal reads). `None` when
/// there is no such relaxation, when it has a model or is not refuted within
/// [`RELAX_CONFLICTS`] conflicts, or when it would delay tuples (assuming them false is no
/// relaxation) or grounds to too many nodes: model expansion then goes on as before.
fn refuted_by_relaxation(
    setup: &Setup,
    options: &Options,
    delay: Delay,
    found: Found,
    warnings: &[String],
) -> Option<IdpResult<Expanded>> {
    let above = options.tuning.relax_above;
    if setup.pending.is_empty() || above == 0 {
        return None;
    }
    let relaxed = Options {
        delay: Some(delay),
        ..options.clone()
    };
    let mut session = Session::relaxation(
        setup.program,
        setup.theory,
        setup.pending,
        setup.structure,
        &relaxed,
        above,
    )
    .ok()??;
    if !session.refuted_within(RELAX_CONFLICTS).unwrap_or(false) {
        return None;
    }
    Some(search_models(
        session,
        setup.program,
        setup.output,
        options,
        found,
        warnings.to_vec(),
    ))
}

/// The open predicates of the theory (`pending` and `sentences`) that lazy grounding would delay
/// with the threshold of `options`.
pub(super) fn delayable(
    program: &Program,
    structure: &Structure,
    pending: &[&Definition],
    sentences: &[crate::sema::ir::Formula],
    options: &Options,
) -> Vec<Delayable> {
    Grounder::new(
        program,
        structure,
        options.max_ground_size,
        options.run.until(None),
    )
    .delayable(pending, sentences, options.tuning.delay_after)
}

/// The answer of model expansion when the relaxation of [`crate::infer::abstraction`] has no
/// model: the theory with the uses of its huge open predicates that read tuples no sentence
/// singles out replaced by free predicates, and the sentences that read them otherwise left
/// out. Lazy grounding is exact on it, so its first level decides it; when that level has no
/// model within [`RELAX_CONFLICTS`] conflicts, neither has the theory, whose other tuples are
/// then never ground. `delayable`: the predicates lazy grounding would delay. `None` when a
/// use of one cannot be replaced, or when the relaxation has a model (it may not be one of the
/// theory) or is not refuted within the budget: lazy grounding then goes on level by level.
fn refuted_by_abstraction(
    setup: &Setup,
    options: &Options,
    delayable: &[Delayable],
    delay: Delay,
    found: Found,
    warnings: &[String],
) -> Option<IdpResult<Expanded>> {
    let relaxed = abstract_delayed(setup.program, setup.theory, setup.pending, delayable)?;
    let level = Options {
        delay: Some(delay),
        ..options.clone()
    };
    options.observer.stat(|| {
        let at = |spans: &[Span]| {
            let at: Vec<String> = spans
                .iter()
                .filter_map(|&s| setup.program.position(s))
                .collect();
            at.join(", ")
        };
        format!(
            "relaxation: the atoms of delayed predicates in the rules at [{}] replaced by free \
             predicates, the sentences at [{}] left out",
            at(&relaxed.rewritten),
            at(&relaxed.left_out)
        )
    });
    let pending: Vec<&Definition> = relaxed.definitions.iter().collect();
    let mut session = Session::abstraction(
        &relaxed.program,
        &relaxed.theory,
        &pending,
        setup.structure,
        &level,
    )
    .ok()?;
    if !session.refuted_within(RELAX_CONFLICTS).unwrap_or(false) {
        return None;
    }
    Some(search_models(
        session,
        &relaxed.program,
        setup.output,
        options,
        found,
        warnings.to_vec(),
    ))
}

/// What is left of a time limit of `seconds` (0: none) since `started`: a limit that has
/// passed stays one (the smallest positive time, never 0, which would mean none), and is never
/// made longer (an explanation's budget of 0 s must stay spent).
fn remaining(seconds: f64, started: Instant) -> f64 {
    if seconds > 0.0 {
        (seconds - started.elapsed().as_secs_f64()).max(f64::MIN_POSITIVE)
    } else {
        0.0
    }
}

/// The time limit that would stop grounding that takes `seconds` from now: the inference's
/// own (`stdoptions.timeout`, counted from `started`) or the run's (`--timeout`).
fn short_of_time(options: &Options, started: Instant, seconds: f64) -> Option<Limit> {
    let needed = std::time::Duration::from_secs_f64(seconds);
    let own = (options.timeout > 0.0)
        .then(|| started + std::time::Duration::from_secs_f64(options.timeout));
    let past = |deadline: Option<Instant>| deadline.is_some_and(|d| Instant::now() + needed > d);
    if past(own) {
        Some(Limit::InferenceTimeout)
    } else if past(options.run.deadline()) {
        Some(Limit::RunTimeout)
    } else {
        None
    }
}

/// A limit met while grounding more delayed tuples, with what the level before had ground:
/// the answer with them false was not final.
fn while_expanding(program: &Program, e: Error, delayed: &[Delayed]) -> Error {
    if delayed.is_empty() || !e.is_limit() {
        return e;
    }
    let which: Vec<String> = delayed
        .iter()
        .map(|d| {
            let name = program.symbol_name(d.symbol);
            format!("{name} has {} tuples, {} were ground", d.total, d.ground)
        })
        .collect();
    e.with_context(
        format!(
            "while grounding more of the tuples that lazy grounding delayed, as too few models \
             were found with them false ({})",
            which.join("; ")
        ),
        None,
    )
}
