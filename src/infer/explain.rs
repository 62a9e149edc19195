//! Why a theory has no model, and why every model gives a literal its value: a subset-minimal
//! set of sentences (or their instances), definitions and structure facts that has no model
//! on its own — an unsatisfiable core.
//!
//! The method is IDP3's (`src/inferences/debugging/`): every part holds under a selector
//! literal ([`Session::explaining`]); one search under all selectors finds no model, and the
//! solver's failed assumptions give a first core; then each member in turn is left out, and
//! kept only when the others then have a model (deletion, with the solver kept warm; a search
//! that still finds none shrinks the core to its own failed assumptions). Two rounds: first
//! whole sentences and definitions with the structure as given, then, inside that core, the
//! instances of its sentences and the facts of the structure about the symbols it mentions.
//! Definitions stay whole. When the second round stops (its time budget, a grounding it
//! cannot do), nothing is left out: the core keeps its sentences or the structure whole and
//! says so ([`Whole`]). When the theory without the first round's sentences still has no
//! model, the same search in that rest finds another conflict, and the one with fewer
//! sentences and definitions is explained (the core says another remains). A core also names
//! the functions whose totality it needs and the types whose size it needs (with the type
//! larger, [`enlarged`], its sentences have a model).

use rustc_hash::FxHashSet as HashSet;

use crate::error::IdpResult;
use crate::ids::{FuncId, SortId, Symbol};
use crate::infer::definitions::{evaluate_definitions, Evaluated};
use crate::infer::session::{Piece, Session, Setup};
use crate::infer::{Inferred, Options};
use crate::print::{definition_to_string, readable_formula, readable_value};
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind};
use crate::sema::walk::{substitute, symbols, Rewriter};
use crate::sema::{sort_domain, Program, Theory};
use crate::solve::Lit;
use crate::source::one_line;
use crate::structure::{Structure, Value};
use crate::syntax::ast::ArithOp;

/// A subset-minimal unsatisfiable set of pieces, in a fixed order: facts, sentences (whole or
/// instances, in the theory's order), definitions.
#[derive(Clone, Debug, PartialEq)]
pub struct Core {
    pub pieces: Vec<Piece>,
    /// The symbols whose facts could be part of the core (the others were taken as given).
    pub relaxed: Vec<Symbol>,
    /// What stayed whole because narrowing the core down stopped; `None` when it did not.
    pub whole: Option<Whole>,
    /// The functions whose totality (exactly one value for each argument) the core needs: with
    /// any one of them partial, the core has a model.
    pub totality: Vec<FuncId>,
    /// The types whose number of elements the core needs: with any one of them larger (more
    /// elements, the structure's tables as given), the core has a model.
    pub types: Vec<SortId>,
    /// The types of the core for which that was not decided within the budget.
    pub types_undecided: Vec<SortId>,
    /// The theory without the core's sentences still has no model: another conflict remains
    /// once this one is fixed.
    pub another: bool,
}

/// What a core keeps whole when narrowing it down to instances and facts stopped (on its time
/// budget, or a grounding it cannot do): never a part left out, only parts left larger.
#[derive(Clone, Debug, PartialEq)]
pub struct Whole {
    /// The sentences are whole, not narrowed to the instances that clash.
    pub sentences: bool,
    /// Every fact of the structure is kept, not only those the core needs.
    pub structure: bool,
    /// Why narrowing stopped: `took longer than its budget`, `failed: ...`.
    pub reason: String,
}

impl Core {
    /// The core as a theory named `unsat_core`: each instance a sentence, definitions whole.
    pub fn theory(&self, theory: &Theory) -> Theory {
        let mut out = Theory {
            name: "unsat_core".into(),
            sentences: Vec::new(),
            definitions: Vec::new(),
            span: None,
            ..theory.clone()
        };
        for piece in &self.pieces {
            match piece {
                Piece::Sentence(k) => out.sentences.push(theory.sentences[*k].clone()),
                Piece::Instance { sentence, binding } => {
                    let values: Vec<(u32, _)> = binding.iter().map(|(v, x)| (v.id, *x)).collect();
                    let body = outer_body(&theory.sentences[*sentence]);
                    out.sentences.push(substitute(body, &values));
                }
                Piece::Definition(k) => out.definitions.push(theory.definitions[*k].clone()),
                Piece::Fact { .. } => {}
            }
        }
        out
    }

    /// `structure` with the tables of the relaxed symbols cut down to the core's facts.
    pub fn structure(&self, structure: &Structure) -> Structure {
        reduced_structure(structure, &self.relaxed, &self.pieces)
    }
}

/// What a core may contain besides the theory's parts.
#[derive(Clone, Debug, PartialEq)]
pub enum Facts {
    /// The structure is taken as given (IDP3's `printunsatcore`).
    Given,
    /// Facts of these symbols may be left out; the others are as given.
    Of(Vec<Symbol>),
    /// Facts of the symbols the theory's core mentions (the command line's `--explain`).
    Involved,
}

/// A core of `theory` with `structure`: its sentence instances and definitions, and facts as
/// `facts` says; `None` when there is a model after all. Sentences in `hard` always hold and
/// are not part of the core (the negated literal of [`why_forced`]).
///
/// The first round leaves out one sentence or definition at a time and runs model expansion
/// on the rest as the user's run would (with the grounder's simplifications, which selectors
/// would forbid): a part whose absence still gives no model is dropped. The second round
/// narrows the sentences down to instances and adds the facts, under selectors; when it takes
/// longer than 15% of the first round (or half a second), the core stays at whole sentences.
pub fn unsat_core(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    facts: &Facts,
    hard: &[&Formula],
    options: &Options,
) -> IdpResult<Inferred<Option<Core>>> {
    core_after(program, theory, structure, facts, hard, options, false)
}

/// [`unsat_core`] after model expansion of the whole theory found no model (the command
/// line's `--explain`): that search is not repeated.
pub fn unsat_core_after_search(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    facts: &Facts,
    options: &Options,
) -> IdpResult<Inferred<Option<Core>>> {
    core_after(program, theory, structure, facts, &[], options, true)
}

fn core_after(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    facts: &Facts,
    hard: &[&Formula],
    options: &Options,
    searched: bool,
) -> IdpResult<Inferred<Option<Core>>> {
    let started = std::time::Instant::now();
    refuse_delayed(program, theory, structure, options)?;
    let mut warnings = Vec::new();
    let all: Vec<Piece> = (0..theory.sentences.len())
        .map(Piece::Sentence)
        .chain((0..theory.definitions.len()).map(Piece::Definition))
        .collect();
    if !searched && has_model(program, theory, &all, structure, hard, options)? {
        return Ok(Inferred::new(None, warnings));
    }
    let mut parts = minimal_parts(program, theory, structure, all, hard, options)?;
    // Another conflict without the core's sentences: the smaller of the two is shown first.
    let another = match hard.is_empty() {
        true => another_conflict(program, theory, structure, &parts, options)?,
        false => None,
    };
    if let Some(other) = &another {
        if other.len() < parts.len() {
            parts = other.clone();
        }
    }
    let relaxed: Vec<Symbol> = match facts {
        Facts::Given => Vec::new(),
        Facts::Of(symbols) => symbols.clone(),
        Facts::Involved => involved_symbols(program, theory, &parts, hard),
    }
    .into_iter()
    .filter(|s| structure.table(*s).is_some())
    .collect();
    let budget = Options {
        timeout: narrowing_budget(options, started.elapsed().as_secs_f64()),
        ..options.clone()
    };
    let attempt = |relaxed: &[Symbol], warnings: &mut Vec<String>| {
        refine(
            program, theory, structure, &parts, relaxed, hard, &budget, warnings,
        )
    };
    // Whatever stops narrowing, nothing the core needs is left out: the structure is then
    // kept whole (its facts were part of the search that found no model), and when even the
    // instances cannot be found, the sentences too.
    let facts_wanted = !relaxed.is_empty();
    let (pieces, kept, whole) = match attempt(&relaxed, &mut warnings) {
        Ok(pieces) => (pieces, relaxed, None),
        Err(e) if facts_wanted && !stopped_by_the_run(&e, &options.run) => {
            match attempt(&[], &mut warnings) {
                Ok(pieces) => (pieces, Vec::new(), Some(whole(false, true, &e))),
                Err(e) if !stopped_by_the_run(&e, &options.run) => {
                    (parts.clone(), Vec::new(), Some(whole(true, true, &e)))
                }
                Err(e) => return Err(e),
            }
        }
        Err(e) if !stopped_by_the_run(&e, &options.run) => {
            (parts.clone(), Vec::new(), Some(whole(true, false, &e)))
        }
        Err(e) => return Err(e),
    };
    let mut core = Core {
        pieces,
        relaxed: kept,
        whole,
        totality: Vec::new(),
        types: Vec::new(),
        types_undecided: Vec::new(),
        another: another.is_some(),
    };
    core.totality = needed_totality(program, theory, structure, &core, hard, &budget)?;
    (core.types, core.types_undecided) =
        needed_types(program, theory, structure, &core, hard, &budget)?;
    Ok(Inferred::new(Some(core), warnings))
}

/// The functions of the core's sentences whose totality the core needs: not partial, not a
/// constructor, not given whole by the structure nor defined, and such that the core has a
/// model once the function may be partial. When that cannot be decided (a limit, a grounding
/// it cannot do), the function is named: it is part of what the core is about.
fn needed_totality(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    core: &Core,
    hard: &[&Formula],
    options: &Options,
) -> IdpResult<Vec<FuncId>> {
    let mut used = HashSet::default();
    for piece in &core.pieces {
        match piece {
            Piece::Sentence(k) | Piece::Instance { sentence: k, .. } => {
                symbols(&theory.sentences[*k], &mut used)
            }
            Piece::Definition(k) => {
                for r in &theory.definitions[*k].rules {
                    symbols(&r.body, &mut used);
                    for a in &r.head_args {
                        symbols(a, &mut used);
                    }
                }
            }
            Piece::Fact { .. } => {}
        }
    }
    for f in hard {
        symbols(*f, &mut used);
    }
    // A core of nothing but the structure's types: any function may need a value.
    let nothing = hard.is_empty() && core.pieces.iter().all(|p| matches!(p, Piece::Fact { .. }));
    // The structure as the core has it: a function given whole is given by the core's facts.
    let core_structure = core.structure(structure);
    let defined: HashSet<Symbol> = theory
        .definitions
        .iter()
        .flat_map(|d| d.defined())
        .collect();
    let candidates: Vec<FuncId> = program
        .voc(theory.vocabulary)
        .funcs
        .iter()
        .copied()
        .filter(|f| {
            let func = program.func(*f);
            let symbol = Symbol::Func(*f);
            (nothing || used.contains(&symbol))
                && !defined.contains(&symbol)
                && !func.partial
                && func.constructor_of.is_none()
                && !matches!(
                    core_structure.table(symbol),
                    Some(crate::structure::Table::TwoValued(_))
                )
        })
        .collect();
    let mut core_theory = core.theory(theory);
    core_theory
        .sentences
        .extend(hard.iter().map(|f| (*f).clone()));
    let options = Options {
        nbmodels: 1,
        ..options.clone()
    };
    let mut needed = Vec::new();
    for f in candidates {
        let mut partial = program.clone();
        partial.funcs[f.index()].partial = true;
        let model =
            crate::infer::modelexpand(&partial, &core_theory, &core_structure, None, &options)
                .map(|found| !found.value.is_empty());
        match model {
            Ok(true) => needed.push(f),
            Ok(false) => {}
            Err(e) if stopped_by_the_run(&e, &options.run) => return Err(e),
            Err(_) => needed.push(f),
        }
    }
    Ok(needed)
}

/// The types of the core's sentences and definitions (and of `hard`) whose size the core
/// needs: with the type given more elements, the core's sentences (whole, not only the
/// instances the core names, which a larger type does not add to), definitions and facts have
/// a model; and those for which that was not decided within the budget (with a type that does
/// not matter, the search has no model to find and may take long). A larger type that cannot
/// be ground is neither. None when the core keeps the structure whole: it says the structure,
/// types and all, is as given.
fn needed_types(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    core: &Core,
    hard: &[&Formula],
    options: &Options,
) -> IdpResult<(Vec<SortId>, Vec<SortId>)> {
    if core.whole.as_ref().is_some_and(|w| w.structure) {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut whole = core.clone();
    whole.pieces.clear();
    for piece in &core.pieces {
        let piece = match piece {
            Piece::Instance { sentence, .. } => Piece::Sentence(*sentence),
            other => other.clone(),
        };
        if !whole.pieces.contains(&piece) {
            whole.pieces.push(piece);
        }
    }
    let mut core_theory = whole.theory(theory);
    core_theory
        .sentences
        .extend(hard.iter().map(|f| (*f).clone()));
    let core_structure = core.structure(structure);
    let options = Options {
        nbmodels: 1,
        ..options.clone()
    };
    // A core of nothing but the structure's types: any of them.
    let candidates = match core_theory.sentences.is_empty() && core_theory.definitions.is_empty() {
        true => program
            .voc(theory.vocabulary)
            .sorts
            .iter()
            .copied()
            .filter(|s| program.sort(*s).builtin.is_none())
            .collect(),
        false => used_sorts(program, &core_theory),
    };
    let (mut needed, mut undecided) = (Vec::new(), Vec::new());
    for sort in candidates {
        let Some(larger) = enlarged(program, &core_structure, sort) else {
            continue;
        };
        let model = crate::infer::modelexpand(program, &core_theory, &larger, None, &options)
            .map(|found| !found.value.is_empty());
        match model {
            Ok(true) => needed.push(sort),
            Ok(false) => {}
            Err(e) if stopped_by_the_run(&e, &options.run) => return Err(e),
            Err(e) if e.is_limit() => undecided.push(sort),
            // A larger type that cannot be ground: nothing is claimed.
            Err(_) => {}
        }
    }
    Ok((needed, undecided))
}

/// The types that the sentences and definitions of `theory` quantify over or apply symbols
/// to, but the built-in ones, in the order of their ids.
fn used_sorts(program: &Program, theory: &Theory) -> Vec<SortId> {
    use crate::sema::walk::Node;
    let mut sorts: Vec<SortId> = Vec::new();
    for d in &theory.definitions {
        for r in &d.rules {
            sorts.extend(r.vars.iter().map(|v| v.sort));
            sorts.extend(program.symbol_sorts(r.head));
        }
    }
    let mut visit = |node: Node| {
        sorts.extend(node.binds().iter().map(|v| v.sort));
        if let Node::Term(t) = node {
            sorts.push(t.sort);
        }
        if let Some(symbol) = node.symbol() {
            sorts.extend(program.symbol_sorts(symbol));
        }
        true
    };
    for f in &theory.sentences {
        Node::from(f).walk(&mut visit);
    }
    for r in theory.definitions.iter().flat_map(|d| &d.rules) {
        Node::from(&r.body).walk(&mut visit);
    }
    sorts.sort_unstable();
    sorts.dedup();
    sorts.retain(|s| program.sort(*s).builtin.is_none());
    sorts
}

/// `structure` with as many new elements in type `sort` (and its supertypes) as it has, at
/// least one: numbers above its greatest for a type of numbers, new names otherwise. The
/// tables stay as given: a predicate is false of the new elements where its table is
/// two-valued, a function's value for them unknown. `None` for a type that cannot grow: a
/// constructed type, one the vocabulary interprets, one too large to list, or one of other
/// values.
pub fn enlarged(program: &Program, structure: &Structure, sort: SortId) -> Option<Structure> {
    use crate::structure::Table;
    let grown: Vec<SortId> = program
        .ancestors(sort)
        .into_iter()
        .filter(|s| program.sort(*s).builtin.is_none())
        .collect();
    for &s in &grown {
        let t = program.sort(s);
        if t.constructed || t.fixed.is_some() || structure.huge_ranges.contains_key(&s) {
            return None;
        }
        sort_domain(program, structure, s)?;
    }
    let values = sort_domain(program, structure, sort)?;
    let taken: HashSet<Value> = grown
        .iter()
        .flat_map(|s| sort_domain(program, structure, *s).unwrap_or_default())
        .collect();
    let count = values.len().max(1);
    let numbers = match values.as_slice() {
        [] => program.is_numeric(sort),
        _ if values.iter().all(|v| matches!(v, Value::Int(_))) => true,
        _ if values.iter().all(|v| matches!(v, Value::Str(_))) => false,
        _ => return None,
    };
    let fresh: Vec<Value> = if numbers {
        let top = taken.iter().filter_map(|v| v.as_int()).max().unwrap_or(-1);
        (1..=count as i64).map(|k| Value::Int(top + k)).collect()
    } else {
        (1..)
            .map(|k| Value::str(&format!("new{k}")))
            .filter(|v| !taken.contains(v))
            .take(count)
            .collect()
    };
    let mut out = structure.clone();
    for &s in &grown {
        let mut domain = sort_domain(program, structure, s).unwrap_or_default();
        domain.extend(fresh.iter().copied());
        out.set_domain(s, domain);
    }
    for (symbol, table) in out.symbols.iter_mut() {
        let Symbol::Func(f) = symbol else { continue };
        let over_grown = program.func(*f).args.iter().any(|a| grown.contains(a));
        if let (true, Table::TwoValued(graph)) = (over_grown, &*table) {
            *table = Table::ThreeValued {
                ct: graph.clone(),
                cf: Default::default(),
            };
        }
    }
    Some(out)
}

/// When the theory has no model without the sentences of the core's `parts` (its definitions
/// kept), a subset-minimal part of the rest that has none: fixing this conflict leaves that
/// one. A theory that cannot be ground without them counts as having a model (nothing is
/// claimed).
fn another_conflict(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    parts: &[Piece],
    options: &Options,
) -> IdpResult<Option<Vec<Piece>>> {
    if !parts.iter().any(|p| matches!(p, Piece::Sentence(_))) {
        return Ok(None);
    }
    let rest: Vec<Piece> = (0..theory.sentences.len())
        .map(Piece::Sentence)
        .filter(|p| !parts.contains(p))
        .chain((0..theory.definitions.len()).map(Piece::Definition))
        .collect();
    match has_model(program, theory, &rest, structure, &[], options) {
        Ok(true) => Ok(None),
        Ok(false) => minimal_parts(program, theory, structure, rest, &[], options).map(Some),
        Err(e) if stopped_by_the_run(&e, &options.run) => Err(e),
        Err(_) => Ok(None),
    }
}

/// Seconds that narrowing a core down may take: `Tuning::explain_budget` when set, else 15%
/// of the time the whole parts took, at least half a second. Never 0 (no limit).
fn narrowing_budget(options: &Options, first_round: f64) -> f64 {
    options
        .tuning
        .explain_budget
        .unwrap_or((0.15 * first_round).max(0.5))
        .max(1e-6)
}

/// What stays whole, and why, when narrowing stopped with `e`.
fn whole(sentences: bool, structure: bool, e: &crate::error::Error) -> Whole {
    let reason = match e.kind() {
        _ if e.is_limit() => "took longer than its budget".to_string(),
        crate::error::ErrorKind::InfiniteDomain { .. } => {
            "would need an infinite grounding".to_string()
        }
        _ => format!("failed: {}", e.message()),
    };
    Whole {
        sentences,
        structure,
        reason,
    }
}

/// The core of instances and facts inside the core of whole `parts`, each of its definitions
/// in it (those evaluated from the input too).
#[allow(clippy::too_many_arguments)]
fn refine(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    parts: &[Piece],
    relaxed: &[Symbol],
    hard: &[&Formula],
    budget: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<Vec<Piece>> {
    let core_definitions: Vec<usize> = parts
        .iter()
        .filter_map(|p| match p {
            Piece::Definition(k) => Some(*k),
            _ => None,
        })
        .collect();
    let (given, pending) = evaluated(
        program,
        theory,
        &core_definitions,
        structure,
        relaxed,
        budget,
        warnings,
    )?;
    let refined = Setup {
        sentences: parts
            .iter()
            .filter_map(|p| match p {
                Piece::Sentence(k) => Some((*k, true)),
                _ => None,
            })
            .collect(),
        definitions: pending,
        relaxed: relaxed.to_vec(),
        hard: hard.to_vec(),
    };
    // The instances and facts say what the whole parts say; should the two encodings ever
    // disagree, the core stays at whole parts rather than claim something wrong.
    let Some(mut pieces) = minimal_core(program, theory, &given, &refined, budget)? else {
        return Err(crate::error::Error::internal(
            "the instances of the core's sentences have a model although the sentences have none",
        ));
    };
    for k in core_definitions {
        if !pieces.contains(&Piece::Definition(k)) {
            pieces.push(Piece::Definition(k));
        }
    }
    Ok(pieces)
}

/// Stops at once, naming the predicate, when `theory` has an open predicate that only lazy
/// grounding can handle ([`crate::ground::delayed`]): explaining grounds the theory without
/// each part in turn, and without the sentences that single out a part of the predicate's
/// tuples it would have to ground them all (billions, in a translated game).
fn refuse_delayed(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &Options,
) -> IdpResult<()> {
    let definitions: Vec<&crate::sema::ir::Definition> = theory.definitions.iter().collect();
    let delayable =
        super::lazy::delayable(program, structure, &definitions, &theory.sentences, options);
    let Some(d) = delayable.first() else {
        return Ok(());
    };
    let name = program.symbol_name(d.symbol);
    let count = d
        .total
        .map_or_else(|| "too many".to_string(), |n| n.to_string());
    Err(crate::error::Error::limit(
        crate::error::Limit::GroundSize,
        format!(
            "idp cannot explain this theory: {name} has {count} tuples, which only lazy \
             grounding handles, over the tuples that its sentences single out; an explanation \
             grounds the theory again without each sentence in turn, and without those \
             sentences it would have to ground every tuple. Give {name} in the structure, or \
             explain a version of the theory over smaller types.",
        ),
    ))
}

/// Whether `e` is the run's own limit (Ctrl-C, `--timeout`, memory), which ends the run,
/// rather than the explanation's time budget or a grounding it cannot do.
fn stopped_by_the_run(e: &crate::error::Error, run: &crate::limits::Run) -> bool {
    e.is_limit() && run.check(None, "explaining").is_err()
}

/// A subset-minimal part of the sentences and definitions `parts` of `theory` (with `hard`)
/// that has no model with `structure` (as `parts` has none), found by leaving out one part at
/// a time.
fn minimal_parts(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    mut parts: Vec<Piece>,
    hard: &[&Formula],
    options: &Options,
) -> IdpResult<Vec<Piece>> {
    let mut next = 0;
    while next < parts.len() {
        let mut without = parts.clone();
        without.remove(next);
        let started = std::time::Instant::now();
        // A theory that cannot be ground without the part (a function over `int` that only
        // the left-out definition made known) keeps it.
        let model = match has_model(program, theory, &without, structure, hard, options) {
            Ok(model) => model,
            Err(e) if stopped_by_the_run(&e, &options.run) => return Err(e),
            Err(_) => true,
        };
        options.observer.stat(|| {
            format!(
                "explanation: without part {} of {}: {} in {:.3}s",
                next + 1,
                parts.len(),
                if model { "a model" } else { "no model" },
                started.elapsed().as_secs_f64()
            )
        });
        if model {
            next += 1;
        } else {
            parts = without;
        }
    }
    Ok(parts)
}

/// Whether the `parts` of `theory` and the sentences of `hard` have a model with `structure`
/// (model expansion as the command line runs it).
fn has_model(
    program: &Program,
    theory: &Theory,
    parts: &[Piece],
    structure: &Structure,
    hard: &[&Formula],
    options: &Options,
) -> IdpResult<bool> {
    let mut sub = Theory {
        sentences: hard.iter().map(|f| (*f).clone()).collect(),
        definitions: Vec::new(),
        ..theory.clone()
    };
    for p in parts {
        match p {
            Piece::Sentence(k) => sub.sentences.push(theory.sentences[*k].clone()),
            Piece::Definition(k) => sub.definitions.push(theory.definitions[*k].clone()),
            Piece::Instance { .. } | Piece::Fact { .. } => {}
        }
    }
    let options = Options {
        nbmodels: 1,
        ..options.clone()
    };
    let found = crate::infer::modelexpand(program, &sub, structure, None, &options)?;
    Ok(!found.value.is_empty())
}

/// `structure` extended with those of the `definitions` of `theory` that the input
/// determines, and the indices of the others. A definition that (through others) uses a symbol of `relaxed` is
/// not evaluated: those facts are being explained. When evaluating shows the definitions
/// contradict the structure, none is evaluated (the core will say which).
fn evaluated(
    program: &Program,
    theory: &Theory,
    definitions: &[usize],
    structure: &Structure,
    relaxed: &[Symbol],
    options: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<(Structure, Vec<usize>)> {
    let all = definitions.to_vec();
    let dependent: Vec<usize> = depending_on(theory, relaxed)
        .into_iter()
        .filter(|k| all.contains(k))
        .collect();
    let independent: Vec<usize> = all
        .iter()
        .copied()
        .filter(|k| !dependent.contains(k))
        .collect();
    let sub = Theory {
        definitions: independent
            .iter()
            .map(|&k| theory.definitions[k].clone())
            .collect(),
        sentences: Vec::new(),
        ..theory.clone()
    };
    match evaluate_definitions(program, &sub, structure, options, warnings)? {
        Evaluated::Done(given, left) => {
            let mut pending = dependent;
            for (position, d) in sub.definitions.iter().enumerate() {
                if left.iter().any(|l| std::ptr::eq(*l, d)) {
                    pending.push(independent[position]);
                }
            }
            pending.sort_unstable();
            Ok((*given, pending))
        }
        Evaluated::Inconsistent => Ok((structure.clone(), all)),
    }
}

/// The definitions that use a symbol of `symbols`, directly or through other definitions.
fn depending_on(theory: &Theory, relaxed: &[Symbol]) -> Vec<usize> {
    let mut reached: HashSet<Symbol> = relaxed.iter().copied().collect();
    let mut out: Vec<usize> = Vec::new();
    loop {
        let before = out.len();
        for (k, d) in theory.definitions.iter().enumerate() {
            if out.contains(&k) {
                continue;
            }
            let mut used = HashSet::default();
            for r in &d.rules {
                symbols(&r.body, &mut used);
            }
            if !used.is_disjoint(&reached) {
                out.push(k);
                reached.extend(d.defined());
            }
        }
        if out.len() == before {
            out.sort_unstable();
            return out;
        }
    }
}

/// A structure less precise than `structure` on `symbols` (the others as given) with which
/// `theory` as a whole still has no model, and minimal so (IDP3's `unsatstructure`); `None`
/// when there is a model.
pub fn unsat_structure(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    symbols: &[Symbol],
    options: &Options,
) -> IdpResult<Option<Structure>> {
    let setup = Setup {
        sentences: (0..theory.sentences.len()).map(|k| (k, false)).collect(),
        definitions: (0..theory.definitions.len()).collect(),
        relaxed: symbols
            .iter()
            .copied()
            .filter(|s| structure.table(*s).is_some())
            .collect(),
        hard: Vec::new(),
    };
    let (mut session, pieces) = Session::explaining(program, theory, structure, options, &setup)?;
    let theory_part = |p: &Piece| !matches!(p, Piece::Fact { .. });
    let Some(core) = shrink(&mut session, &pieces, theory_part)? else {
        return Ok(None);
    };
    Ok(Some(reduced_structure(structure, &setup.relaxed, &core)))
}

/// `structure` with the tables of `relaxed` cut down to the facts in `core`.
pub fn reduced_structure(structure: &Structure, relaxed: &[Symbol], core: &[Piece]) -> Structure {
    use crate::structure::{Table, TupleSet};
    let mut out = structure.clone();
    out.name = format!("{}_reduced", structure.name);
    for &s in relaxed.iter().filter(|s| structure.table(**s).is_some()) {
        let mut ct = TupleSet::default();
        let mut cf = TupleSet::default();
        for p in core {
            if let Piece::Fact {
                symbol,
                tuple,
                truth,
            } = p
            {
                if *symbol == s {
                    if *truth { &mut ct } else { &mut cf }.insert(tuple.clone());
                }
            }
        }
        out.symbols.insert(s, Table::ThreeValued { ct, cf });
    }
    out
}

/// The pieces of a minimal core among those `setup` selects; `None` when they have a model.
fn minimal_core(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    setup: &Setup,
    options: &Options,
) -> IdpResult<Option<Vec<Piece>>> {
    let (mut session, pieces) = Session::explaining(program, theory, structure, options, setup)?;
    shrink(&mut session, &pieces, |_| false)
}

/// Shrinks the pieces to a subset-minimal set without a model, by deletion; pieces for which
/// `fixed` holds are always assumed and never part of the answer. `None` when all of them
/// together have a model.
fn shrink(
    session: &mut Session,
    pieces: &[(Piece, Lit)],
    fixed: impl Fn(&Piece) -> bool,
) -> IdpResult<Option<Vec<Piece>>> {
    let always: Vec<Lit> = pieces
        .iter()
        .filter(|(p, _)| fixed(p))
        .map(|(_, l)| *l)
        .collect();
    let candidates: Vec<usize> = (0..pieces.len())
        .filter(|&i| !fixed(&pieces[i].0))
        .collect();
    let mut core = match unsat_under(session, pieces, &always, &candidates)? {
        Some(failed) => failed,
        None => return Ok(None),
    };
    session.stat(|| {
        format!(
            "explanation: {} candidate pieces, {} in the first core",
            candidates.len(),
            core.len()
        )
    });
    let mut next = 0;
    while next < core.len() {
        let mut without = core.clone();
        without.remove(next);
        let started = std::time::Instant::now();
        let answer = unsat_under(session, pieces, &always, &without)?;
        session.stat(|| {
            format!(
                "explanation: without piece {} of {}: {} in {:.3}s",
                next + 1,
                core.len(),
                if answer.is_some() {
                    "no model"
                } else {
                    "a model"
                },
                started.elapsed().as_secs_f64()
            )
        });
        match answer {
            // Still no model: the piece was not needed; keep only what this search used.
            Some(failed) => core = failed,
            None => next += 1,
        }
    }
    Ok(Some(
        core.into_iter().map(|i| pieces[i].0.clone()).collect(),
    ))
}

/// Searches under the literals of `always` and of the pieces `chosen`; when there is no
/// model, the chosen pieces whose literals the search needed (in their order).
fn unsat_under(
    session: &mut Session,
    pieces: &[(Piece, Lit)],
    always: &[Lit],
    chosen: &[usize],
) -> IdpResult<Option<Vec<usize>>> {
    let mut assumptions = always.to_vec();
    assumptions.extend(chosen.iter().map(|&i| pieces[i].1));
    if session.solve(&assumptions)? {
        return Ok(None);
    }
    Ok(Some(
        chosen
            .iter()
            .copied()
            .filter(|&i| session.failed(pieces[i].1))
            .collect(),
    ))
}

/// The symbols that the core's sentences and definitions mention, and those that the
/// definitions of these use (all the way down), in the vocabulary's order.
fn involved_symbols(
    program: &Program,
    theory: &Theory,
    parts: &[Piece],
    hard: &[&Formula],
) -> Vec<Symbol> {
    let mut used = HashSet::default();
    for f in hard {
        symbols(*f, &mut used);
    }
    for p in parts {
        match p {
            Piece::Sentence(k) => symbols(&theory.sentences[*k], &mut used),
            Piece::Definition(k) => used.extend(theory.definitions[*k].defined()),
            Piece::Instance { .. } | Piece::Fact { .. } => {}
        }
    }
    loop {
        let before = used.len();
        for d in &theory.definitions {
            if d.defined().iter().any(|s| used.contains(s)) {
                for r in &d.rules {
                    symbols(&r.body, &mut used);
                }
            }
        }
        if used.len() == before {
            break;
        }
    }
    crate::infer::session::interpreted_symbols(program, theory.vocabulary)
        .into_iter()
        .filter(|s| used.contains(s))
        .collect()
}

/// Why every model of `theory` with `structure` satisfies `literal`: a core of the theory
/// and the structure together with its negation. `Forced::Not` when some model does not
/// satisfy it; `Forced::NoModel` when the theory has no model at all.
pub fn why_forced(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    literal: &Formula,
    options: &Options,
) -> IdpResult<Inferred<Forced>> {
    let without = unsat_core(program, theory, structure, &Facts::Given, &[], options)?;
    if without.value.is_some() {
        return Ok(without.map(|_| Forced::NoModel));
    }
    let negated = Formula::new(FormulaKind::Not(Box::new(literal.clone())), literal.span);
    let core = unsat_core(
        program,
        theory,
        structure,
        &Facts::Involved,
        &[&negated],
        options,
    )?;
    Ok(core.map(|c| match c {
        Some(core) => Forced::By(core),
        None => Forced::Not,
    }))
}

/// The answer of [`why_forced`].
#[derive(Clone, Debug, PartialEq)]
pub enum Forced {
    /// Every model satisfies the literal, because of this core.
    By(Core),
    /// Some model does not satisfy it.
    Not,
    /// The theory has no model with the structure.
    NoModel,
}

/// The sentence with its outer universal quantifiers taken off (what an instance binds).
pub fn outer_body(f: &Formula) -> &Formula {
    let mut body = f;
    while let FormulaKind::Forall(_, inner) = body.kind() {
        body = inner;
    }
    body
}

/// How a core reads: its lines for a person, each part with where it is in the source.
pub struct Reading<'p> {
    pub program: &'p Program,
    pub theory: &'p Theory,
    pub structure: &'p Structure,
}

/// One sentence of a core and the instances of it that the core uses.
struct SentenceLines {
    sentence: usize,
    instances: Vec<String>,
}

impl Reading<'_> {
    /// The elements of a type in the structure, derived ones too (a type the vocabulary fixes
    /// or constructs, which a structure over a smaller vocabulary does not list).
    fn domain(&self, sort: SortId) -> Option<Vec<Value>> {
        sort_domain(self.program, self.structure, sort)
    }

    pub fn at(&self, span: crate::source::Span) -> String {
        self.program.position(span).unwrap_or_else(|| "?".into())
    }

    /// `Col(a) ~= Col(b)` for an instance, the sentence's text for a whole one.
    pub fn instance_text(&self, piece: &Piece) -> Option<(usize, String, String)> {
        match piece {
            Piece::Sentence(k) => {
                let f = &self.theory.sentences[*k];
                Some((*k, readable_formula(self.program, f), String::new()))
            }
            Piece::Instance { sentence, binding } => {
                let f = &self.theory.sentences[*sentence];
                let values: Vec<(u32, _)> = binding.iter().map(|(v, x)| (v.id, *x)).collect();
                let instance = decided(&substitute(outer_body(f), &values));
                let text = readable_formula(self.program, &instance);
                let with = binding
                    .iter()
                    .map(|(v, x)| format!("{}={}", v.name, readable_value(*x)))
                    .collect::<Vec<_>>()
                    .join(", ");
                Some((*sentence, text, with))
            }
            _ => None,
        }
    }

    /// A fact as a literal: `Edge(a,b)`, `~Edge(a,c)`, `Col(a) = red`, `Col(a) ~= blue`.
    pub fn fact_text(&self, symbol: Symbol, tuple: &[Value], truth: bool) -> String {
        match symbol {
            Symbol::Func(_) => {
                let (args, value) = tuple.split_at(tuple.len() - 1);
                let op = if truth { "=" } else { "~=" };
                let applied = self.application_text(symbol, args);
                format!("{applied} {op} {}", readable_value(value[0]))
            }
            Symbol::Pred(_) => {
                let sign = if truth { "" } else { "~" };
                format!("{sign}{}", self.application_text(symbol, tuple))
            }
        }
    }

    /// `s(args)` as IDP writes it (`s` alone without arguments).
    pub fn application_text(&self, symbol: Symbol, args: &[Value]) -> String {
        let name = self.program.symbol_name(symbol);
        if args.is_empty() {
            return name.to_string();
        }
        let shown: Vec<String> = args.iter().map(|v| readable_value(*v)).collect();
        format!("{name}({})", shown.join(","))
    }

    /// The core as IDP3's `printunsatcore` prints it: one line per instance and definition.
    pub fn idp3_lines(&self, core: &Core) -> Vec<String> {
        let mut lines = vec!["The following is an unsatisfiable subset, given that functions can map to at most one element (and exactly one if not partial):".to_string()];
        for piece in &core.pieces {
            if let Some((k, text, with)) = self.instance_text(piece) {
                let at = self.at(self.theory.sentences[k].span);
                let with = if with.is_empty() {
                    String::new()
                } else {
                    format!(" with {with}")
                };
                lines.push(format!("\t{text} instantiated from {at}{with}."));
            }
            if let Piece::Definition(k) = piece {
                let d = &self.theory.definitions[*k];
                lines.push(format!(
                    "\t{} from {}.",
                    self.definition_text(d),
                    self.at(d.span)
                ));
            }
        }
        lines
    }

    /// The core as the command line's `--explain` shows it: each sentence and definition
    /// with its position, a few of the instances that clash, and the facts of the structure.
    pub fn lines(&self, core: &Core) -> Vec<String> {
        if core.pieces.is_empty() {
            return vec![format!("Why: {}.", self.types_only(core))];
        }
        let given = self.given(core);
        let header = if self.count(core) == (1, 0) {
            format!("Why: 1 part of the theory has no model on its own{given}.")
        } else {
            format!(
                "Why: {} have no model together{given}; without any one of them there is one.",
                self.amount(core)
            )
        };
        let mut lines = vec![header];
        lines.extend(self.body_lines(core));
        lines
    }

    /// What the core takes from the structure besides facts, one line each without the
    /// `given:` label: functions whose totality it needs, types whose size it needs, and
    /// what it keeps whole when narrowing it down stopped (and why).
    pub fn given_lines(&self, core: &Core) -> Vec<String> {
        let whole = core.whole.as_ref().map(|w| self.whole_line(w));
        self.function_lines(core)
            .into_iter()
            .chain(self.type_lines(core))
            .chain(whole)
            .map(|l| {
                let l = l.trim_start();
                l.strip_prefix("given: ").unwrap_or(l).to_string()
            })
            .collect()
    }

    /// The functions that the core's sentences use and the structure does not give whole:
    /// that each has exactly one value for each argument, in its result type, is as much a
    /// reason as the sentences (`In is a function: each Pigeon has exactly one Hole of {h1;
    /// h2}`).
    fn function_lines(&self, core: &Core) -> Vec<String> {
        core.totality
            .iter()
            .map(|f| format!("  given: {}", self.function_text(*f)))
            .collect()
    }

    /// The types whose number of elements the core needs (`given: type Person has 2 elements:
    /// {ann; bob}`), but those a function's line already shows as its values.
    /// Last, the types for which that was not decided.
    fn type_lines(&self, core: &Core) -> Vec<String> {
        let mut lines: Vec<String> = core
            .types
            .iter()
            .filter(|s| {
                !core
                    .totality
                    .iter()
                    .any(|f| self.program.func(*f).result == **s)
            })
            .map(|s| format!("  given: {}", self.size_text(*s)))
            .collect();
        if !core.types_undecided.is_empty() {
            let names: Vec<&str> = core
                .types_undecided
                .iter()
                .map(|s| self.program.sort(*s).name.as_str())
                .collect();
            let which = match names.as_slice() {
                [one] => format!("type {one}"),
                [first @ .., last] => format!("type {} or {last}", first.join(", ")),
                [] => unreachable!("not empty"),
            };
            lines.push(format!(
                "  (whether more elements in {which} would give a model was not decided within \
                 the budget)"
            ));
        }
        lines
    }

    /// `type Person has 2 elements: {ann; bob}`, `type Time has 100 elements`, `type Item has
    /// no elements in structure S`.
    fn size_text(&self, sort: SortId) -> String {
        let name = &self.program.sort(sort).name;
        const SHOWN: usize = 8;
        match self.domain(sort).unwrap_or_default().as_slice() {
            [] => format!(
                "type {name} has no elements in structure {}",
                self.structure.name
            ),
            [one] => format!("type {name} has 1 element: {{{}}}", readable_value(*one)),
            values if values.len() <= SHOWN => {
                let shown: Vec<String> = values.iter().map(|v| readable_value(*v)).collect();
                format!(
                    "type {name} has {} elements: {{{}}}",
                    values.len(),
                    shown.join("; ")
                )
            }
            values => format!("type {name} has {} elements", values.len()),
        }
    }

    /// `In is a function: each Pigeon has exactly one Hole of {h1; h2}`.
    /// A type's name as the theory's language writes it (`Real`, not `float`, in FO(·)).
    fn sort_name(&self, sort: SortId) -> String {
        if self.theory.span.is_some_and(|at| self.program.in_fodot(at)) {
            return crate::print::fodot_sort_name(self.program, sort);
        }
        self.program.sort(sort).name.clone()
    }

    fn function_text(&self, f: FuncId) -> String {
        let func = self.program.func(f);
        let result = self.domain_text(func.result);
        if func.args.is_empty() {
            return format!(
                "{} is a constant: it has exactly one value of {result}",
                func.name
            );
        }
        let args: Vec<&str> = func
            .args
            .iter()
            .map(|s| self.program.sort(*s).name.as_str())
            .collect();
        let each = if args.len() == 1 {
            args[0].to_string()
        } else {
            format!("({})", args.join(", "))
        };
        format!(
            "{} is a function: each {each} has exactly one value of {result}",
            func.name
        )
    }

    /// A type with its elements in the structure: `Hole = {h1; h2}`, `Node (empty in
    /// structure S)`, `Time (100 elements)`.
    fn domain_text(&self, sort: SortId) -> String {
        let name = &self.program.sort(sort).name;
        const SHOWN: usize = 8;
        if self.program.sort(sort).builtin.is_some() {
            return self.sort_name(sort);
        }
        match self.domain(sort).as_deref() {
            None | Some([]) => format!("{name} (empty in structure {})", self.structure.name),
            Some(values) if values.len() <= SHOWN => {
                let shown: Vec<String> = values.iter().map(|v| readable_value(*v)).collect();
                format!("{name} = {{{}}}", shown.join("; "))
            }
            Some(values) => format!("{name} ({} elements)", values.len()),
        }
    }

    /// Why there is no model when no sentence, definition or fact is needed: a function that
    /// needs a value in a type that the structure leaves empty, or else the types too small.
    fn types_only(&self, core: &Core) -> String {
        let voc = self.program.voc(self.theory.vocabulary);
        let empty = |s: &SortId| self.domain(*s).is_none_or(|d| d.is_empty());
        let needy = voc.funcs.iter().copied().find(|f| {
            let func = self.program.func(*f);
            !func.partial
                && func.constructor_of.is_none()
                && empty(&func.result)
                && !func.args.iter().any(empty)
        });
        match needy {
            Some(f) => {
                let func = self.program.func(f);
                let sort = func.result;
                let how = match self.domain(sort) {
                    None => "is not interpreted in",
                    Some(_) => "is empty in",
                };
                let name = |s: &SortId| self.program.sort(*s).name.clone();
                let needs = if func.args.is_empty() {
                    format!("the constant {} : {}", func.name, name(&sort))
                } else {
                    let args: Vec<String> = func.args.iter().map(name).collect();
                    format!(
                        "the function {}({}) : {}",
                        func.name,
                        args.join(", "),
                        name(&sort)
                    )
                };
                format!(
                    "type {} {how} structure {} (it has no elements), but {needs} needs a \
                     value in it",
                    name(&sort),
                    self.structure.name
                )
            }
            None if !core.types.is_empty() => {
                let sizes: Vec<String> = core.types.iter().map(|s| self.size_text(*s)).collect();
                format!(
                    "the structure's types have no model: {} (with more elements there is one)",
                    sizes.join(", ")
                )
            }
            None => "nothing but the structure's types have no model".to_string(),
        }
    }

    /// ` with structure S as given` when the core keeps the structure whole.
    fn given(&self, core: &Core) -> String {
        match &core.whole {
            Some(w) if w.structure => format!(" with structure {} as given", self.structure.name),
            _ => String::new(),
        }
    }

    /// What a core that was not narrowed down all the way keeps whole, and why.
    fn whole_line(&self, whole: &Whole) -> String {
        let structure = format!("every fact of structure {} is kept", self.structure.name);
        let kept = match (whole.sentences, whole.structure) {
            (true, true) => format!("its sentences are whole and {structure}"),
            (true, false) => "its sentences are whole".to_string(),
            (false, _) => structure,
        };
        format!(
            "  (narrowing this down to instances and facts {}: {kept})",
            whole.reason
        )
    }

    /// What `--explain-atom` and `explain(T, S, literal)` print for `literal`.
    pub fn forced_lines(&self, literal: &str, forced: &Forced) -> Vec<String> {
        match forced {
            Forced::By(core) => {
                let given = self.type_lines(core).len() + self.function_lines(core).len();
                let amount = match self.count(core) {
                    (0, 0) if given > 0 => "the types and functions below".to_string(),
                    _ => self.amount(core),
                };
                let mut lines = vec![format!(
                    "{literal} holds in every model, because of {amount}{} (without any one of them it need not):",
                    self.given(core)
                )];
                lines.extend(self.body_lines(core));
                lines
            }
            Forced::Not => vec![format!("{literal} does not hold in every model.")],
            Forced::NoModel => vec![format!(
                "The theory has no model, so {literal} holds in none."
            )],
        }
    }

    /// How much a core holds: `2 parts of the theory and 3 facts of the structure`.
    pub fn amount(&self, core: &Core) -> String {
        let (parts, facts) = self.count(core);
        let parts = (parts > 0).then(|| plural(parts, "part of the theory", "parts of the theory"));
        let facts =
            (facts > 0).then(|| plural(facts, "fact of the structure", "facts of the structure"));
        match (parts, facts) {
            (Some(p), Some(f)) => format!("{p} and {f}"),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => "nothing but the structure's types".to_string(),
        }
    }

    /// The parts of a core, one line each (instances indented under their sentence), in the
    /// order of the source: the theory's sentences and definitions, then the structure's
    /// facts; last, what stayed whole when narrowing stopped.
    pub fn body_lines(&self, core: &Core) -> Vec<String> {
        let mut parts: Vec<(crate::source::Span, Vec<String>)> = Vec::new();
        for group in self.sentence_groups(core) {
            let f = &self.theory.sentences[group.sentence];
            let mut lines = vec![format!("  {}: {}", self.at(f.span), self.written(f))];
            const SHOWN: usize = 8;
            for text in group.instances.iter().take(SHOWN) {
                lines.push(format!("      {text}"));
            }
            if group.instances.len() > SHOWN {
                lines.push(format!(
                    "      ... and {} more instances",
                    group.instances.len() - SHOWN
                ));
            }
            parts.push((f.span, lines));
        }
        for piece in &core.pieces {
            if let Piece::Definition(k) = piece {
                let d = &self.theory.definitions[*k];
                let text = self.definition_text(d);
                let mut lines = vec![format!("  {}: the definition {text}", self.at(d.span))];
                lines.extend(self.definition_failure_lines(d));
                parts.push((d.span, lines));
            }
        }
        // Stable: pieces without a source position keep the core's order.
        parts.sort_by_key(|(span, _)| (span.file, span.start));
        let mut lines: Vec<String> = parts.into_iter().flat_map(|(_, l)| l).collect();
        lines.extend(self.fact_lines(core));
        lines.extend(self.function_lines(core));
        lines.extend(self.type_lines(core));
        if let Some(whole) = &core.whole {
            lines.push(self.whole_line(whole));
        }
        if core.another {
            lines.push(
                "Another conflict remains: without these sentences the theory still has no \
                 model (--explain again once this one is fixed)."
                    .to_string(),
            );
        }
        lines
    }

    /// The instance that breaks a definition whose opens the structure gives (`Block(2) gets
    /// no value`), and, when a function it defines gets no value through a rule that divides,
    /// what `/` means: exact division, so that a value that is not whole is no integer.
    fn definition_failure_lines(&self, d: &crate::sema::ir::Definition) -> Vec<String> {
        let options = Options::default();
        let Some(reason) = crate::infer::definitions::why_definition_fails(
            self.program,
            d,
            self.structure,
            &options,
        ) else {
            return Vec::new();
        };
        let mut lines = vec![format!("      {reason}")];
        let divides = d.rules.iter().any(|r| {
            let division = &mut |t: &Term| matches!(t.kind(), TermKind::Arith(ArithOp::Div, ..));
            matches!(r.head, Symbol::Func(_))
                && (r
                    .head_args
                    .iter()
                    .any(|t| crate::sema::walk::any_term(t, division))
                    || crate::sema::walk::any_term(&r.body, division))
        });
        if divides && reason.ends_with("gets no value") {
            lines.push(
                "      (`/` is exact division: 9 / 2 is 4.5, which is no integer, so a rule \
                 whose value divides gives no value where the division is not whole; for \
                 the whole part of a / b write (a - a % b) / b)"
                    .to_string(),
            );
        }
        lines
    }

    /// A sentence as its source writes it (on one line, with its full stop), or printed when
    /// the source is not known (a theory made by a procedure).
    pub fn written(&self, f: &Formula) -> String {
        match self.program.source_text(f.span) {
            Some(text) if !text.trim().is_empty() => {
                let text = one_line(text);
                if text.ends_with('.') {
                    text
                } else {
                    format!("{text}.")
                }
            }
            _ => format!("{}.", one_line(&readable_formula(self.program, f))),
        }
    }

    /// A definition as its source writes it, on one line (printed when the source is not
    /// known).
    pub fn definition_text(&self, d: &crate::sema::ir::Definition) -> String {
        match self.program.source_text(d.span) {
            Some(text) if !text.trim().is_empty() => one_line(text),
            _ => one_line(&definition_to_string(self.program, d)),
        }
    }

    fn count(&self, core: &Core) -> (usize, usize) {
        let mut sentences = HashSet::default();
        let mut definitions = 0;
        let mut facts = 0;
        for p in &core.pieces {
            match p {
                Piece::Sentence(k) | Piece::Instance { sentence: k, .. } => {
                    sentences.insert(*k);
                }
                Piece::Definition(_) => definitions += 1,
                Piece::Fact { .. } => facts += 1,
            }
        }
        (sentences.len() + definitions, facts)
    }

    fn sentence_groups(&self, core: &Core) -> Vec<SentenceLines> {
        let mut groups: Vec<SentenceLines> = Vec::new();
        for piece in &core.pieces {
            let Some((k, text, with)) = self.instance_text(piece) else {
                continue;
            };
            let line = if with.is_empty() {
                None
            } else {
                Some(format!("{text}   ({with})"))
            };
            match groups.iter_mut().find(|g| g.sentence == k) {
                Some(g) => g.instances.extend(line),
                None => groups.push(SentenceLines {
                    sentence: k,
                    instances: line.into_iter().collect(),
                }),
            }
        }
        groups.sort_by_key(|g| g.sentence);
        groups
    }

    /// One line per symbol whose facts the core uses: where the structure gives it, and the
    /// facts.
    fn fact_lines(&self, core: &Core) -> Vec<String> {
        let mut by_symbol: Vec<(Symbol, Vec<String>)> = Vec::new();
        for p in &core.pieces {
            let Piece::Fact {
                symbol,
                tuple,
                truth,
            } = p
            else {
                continue;
            };
            let text = self.fact_text(*symbol, tuple, *truth);
            match by_symbol.iter_mut().find(|(s, _)| s == symbol) {
                Some((_, facts)) => facts.push(text),
                None => by_symbol.push((*symbol, vec![text])),
            }
        }
        let position = |s: &Symbol| {
            self.structure
                .spans
                .get(s)
                .map_or((u32::MAX, u32::MAX), |span| (span.file, span.start))
        };
        by_symbol.sort_by_key(|(s, _)| position(s));
        by_symbol
            .into_iter()
            .map(|(s, facts)| {
                let at = self
                    .structure
                    .spans
                    .get(&s)
                    .map(|span| self.at(*span))
                    .unwrap_or_else(|| "?".into());
                format!(
                    "  {at}: structure {} gives {}",
                    self.structure.name,
                    facts.join(", ")
                )
            })
            .collect()
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A literal written as text (`Col(a) = red`, `~Edge(a,b)`, `Done`, `Turn ~= 3`) over the
/// symbols of `vocabulary` and the elements of `structure`, as a formula.
/// The number `token` as an element of `sort`, a type too large to list (`int`, `nat`,
/// `float`, or a huge range), if it is one.
fn number_in(program: &Program, structure: &Structure, sort: SortId, token: &str) -> Option<Value> {
    let value = match token.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::float(token.parse::<f64>().ok().filter(|f| f.is_finite())?),
    };
    let contained = match (program.sort(sort).builtin, structure.huge_ranges.get(&sort)) {
        (_, Some(range)) => range.contains(value),
        (Some(builtin), None) => crate::sema::builtin_contains(builtin, value),
        (None, None) => false,
    };
    contained.then_some(value)
}

pub fn parse_literal(
    program: &Program,
    vocabulary: crate::ids::VocId,
    structure: &Structure,
    text: &str,
) -> Result<Formula, String> {
    use crate::sema::ir::{Term, TermKind};
    use crate::syntax::ast::CmpOp;
    let span = crate::source::Span::default();
    let trimmed = text.trim();
    let (negated, rest) = match trimmed.strip_prefix('~') {
        Some(rest) if !rest.starts_with('=') => (true, rest.trim()),
        _ => (false, trimmed),
    };
    let (atom, compared) = match rest.find("~=").or_else(|| rest.find('=')) {
        Some(at) => {
            let op = if rest[at..].starts_with("~=") {
                CmpOp::Ne
            } else {
                CmpOp::Eq
            };
            let width = if op == CmpOp::Ne { 2 } else { 1 };
            (rest[..at].trim(), Some((op, rest[at + width..].trim())))
        }
        None => (rest, None),
    };
    let (name, args) = match atom.find('(') {
        Some(open) if atom.ends_with(')') => {
            let inner = &atom[open + 1..atom.len() - 1];
            let args: Vec<&str> = if inner.trim().is_empty() {
                Vec::new()
            } else {
                top_level_parts(inner)
            };
            (atom[..open].trim(), args)
        }
        _ => (atom, Vec::new()),
    };
    let voc = program.voc(vocabulary);
    // FO(·) names its types `Int` and `Real`, and a structure may have no name there.
    let fodot = voc.span.is_some_and(|at| program.in_fodot(at));
    let element = |sort: SortId, token: &str| -> Result<Term, String> {
        let bare: String = token.chars().filter(|c| !c.is_whitespace()).collect();
        let found = match sort_domain(program, structure, sort) {
            Some(domain) => domain
                .into_iter()
                .find(|v| readable_value(*v) == bare || v.to_string() == bare),
            None => number_in(program, structure, sort, &bare),
        };
        match found {
            Some(v) => Ok(Term::new(TermKind::Value(v), sort, span)),
            None if fodot => Err(format!(
                "'{token}' is not an element of type {}",
                crate::print::fodot_sort_name(program, sort)
            )),
            None => Err(format!(
                "'{token}' is not an element of type {} in structure {}",
                program.sort(sort).name,
                structure.name
            )),
        }
    };
    let arity_error = |expected: usize| {
        format!(
            "{name} takes {expected} argument{}, the literal gives {}",
            if expected == 1 { "" } else { "s" },
            args.len()
        )
    };
    let pred = voc
        .preds
        .iter()
        .copied()
        .find(|p| program.pred(*p).name == name && program.pred(*p).args.len() == args.len());
    let func = voc
        .funcs
        .iter()
        .copied()
        .find(|f| program.func(*f).name == name && program.func(*f).args.len() == args.len());
    let formula = match (pred, func, compared) {
        (Some(p), _, None) => {
            let sorts = program.pred(p).args.clone();
            let terms = sorts
                .iter()
                .zip(&args)
                .map(|(s, a)| element(*s, a))
                .collect::<Result<Vec<_>, _>>()?;
            Formula::new(FormulaKind::Pred(p, terms), span)
        }
        (_, Some(f), Some((op, value))) => {
            let func = program.func(f);
            let terms = func
                .args
                .iter()
                .zip(&args)
                .map(|(s, a)| element(*s, a))
                .collect::<Result<Vec<_>, _>>()?;
            let applied = Term::new(TermKind::Func(f, terms), func.result, span);
            let value = element(func.result, value)?;
            Formula::new(FormulaKind::Cmp(op, applied, value), span)
        }
        (None, Some(_), None) => {
            return Err(format!(
                "{name} is a function: write its value, as in {name}{} = ...",
                if args.is_empty() {
                    String::new()
                } else {
                    format!("({})", args.join(","))
                }
            ))
        }
        (Some(_), None, Some(_)) => {
            return Err(format!(
                "{name} is a predicate: write the atom without '= ...'"
            ))
        }
        (None, None, _) => {
            let other = voc
                .preds
                .iter()
                .map(|p| (program.pred(*p).name.as_str(), program.pred(*p).args.len()))
                .chain(
                    voc.funcs
                        .iter()
                        .map(|f| (program.func(*f).name.as_str(), program.func(*f).args.len())),
                )
                .find(|(n, _)| *n == name);
            return Err(match other {
                Some((_, arity)) => arity_error(arity),
                None => format!("the vocabulary {} has no symbol {name}", voc.name),
            });
        }
    };
    Ok(if negated {
        Formula::new(FormulaKind::Not(Box::new(formula)), span)
    } else {
        formula
    })
}

/// The comma-separated parts of `text` outside parentheses (`P(1,2), a` is `P(1,2)` and `a`),
/// trimmed.
fn top_level_parts(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

/// `f` with what its values alone decide worked out: arithmetic on values (`2 - 1` is `1`),
/// comparisons of values (`1 ~= 3` is true, compared as the grounder compares them), and the
/// connectives over the truth values that gives (`true => P(1)` is `P(1)`). Symbols, also
/// those the structure interprets, stay: the core names their facts.
fn decided(f: &Formula) -> Formula {
    Decided.formula(f)
}

struct Decided;

impl Rewriter for Decided {
    fn term(&mut self, t: &Term) -> Term {
        let t = t.rebuild(self);
        let value = |x: &Term| match x.kind() {
            TermKind::Value(v) => Some(*v),
            _ => None,
        };
        let folded = match t.kind() {
            TermKind::Arith(op, a, b) => value(a)
                .zip(value(b))
                .and_then(|(x, y)| crate::ground::arith(*op, x, y)),
            TermKind::Neg(a) => {
                value(a).and_then(|x| crate::ground::arith(ArithOp::Sub, Value::Int(0), x))
            }
            TermKind::Abs(a) => value(a).and_then(|x| match x {
                Value::Int(i) => i.checked_abs().map(Value::Int),
                Value::Float(r) => Some(Value::float(r.abs())),
                _ => None,
            }),
            _ => None,
        };
        match folded {
            Some(v) => Term::new(TermKind::Value(v), t.sort, t.span),
            None => t,
        }
    }

    fn formula(&mut self, f: &Formula) -> Formula {
        let f = f.rebuild(self);
        let truth = |g: &Formula| match g.kind() {
            FormulaKind::Bool(b) => Some(*b),
            _ => None,
        };
        let kind = match f.kind() {
            FormulaKind::Cmp(op, a, b) => match (a.kind(), b.kind()) {
                (TermKind::Value(x), TermKind::Value(y)) => FormulaKind::Bool(op.holds(*x, *y)),
                _ => return f,
            },
            FormulaKind::Not(g) => match truth(g) {
                Some(b) => FormulaKind::Bool(!b),
                None => return f,
            },
            FormulaKind::And(fs) => return connective(fs, false, f.span),
            FormulaKind::Or(fs) => return connective(fs, true, f.span),
            FormulaKind::Implies(a, b) => match (truth(a), truth(b)) {
                (Some(false), _) | (_, Some(true)) => FormulaKind::Bool(true),
                (Some(true), _) => return (**b).clone(),
                (_, Some(false)) => FormulaKind::Not(a.clone()),
                _ => return f,
            },
            _ => return f,
        };
        Formula::new(kind, f.span)
    }
}

/// A conjunction (`absorbing` false) or disjunction (`absorbing` true) without its parts of
/// the neutral truth value; the absorbing value when a part has it.
fn connective(parts: &[Formula], absorbing: bool, span: crate::source::Span) -> Formula {
    let mut kept = Vec::with_capacity(parts.len());
    for g in parts {
        match g.kind() {
            FormulaKind::Bool(b) if *b == absorbing => {
                return Formula::new(FormulaKind::Bool(absorbing), span)
            }
            FormulaKind::Bool(_) => {}
            _ => kept.push(g.clone()),
        }
    }
    match kept.len() {
        0 => Formula::new(FormulaKind::Bool(!absorbing), span),
        1 => kept.pop().expect("one part"),
        _ if absorbing => Formula::new(FormulaKind::Or(kept), span),
        _ => Formula::new(FormulaKind::And(kept), span),
    }
}
