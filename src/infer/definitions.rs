//! Evaluating definitions whose open symbols the structure already fixes: the well-founded
//! model is computed on the ground rules and, when it is two-valued, stored in the structure as
//! tables, so that the defined symbols are data (not SAT variables) for the rest of the run.

use rustc_hash::FxHashSet as HashSet;

use crate::error::IdpResult;
use crate::ground::wellfounded::Evaluator;
use crate::ground::{AtomId, Grounder};
use crate::ids::Symbol;
use crate::infer::Options;
use crate::sema::ir::Definition;
use crate::sema::{Program, Theory};
use crate::structure::{Structure, Table, Tuple};

/// The outcome of evaluating the definitions of a theory.
pub enum Evaluated<'t> {
    /// The structure extended with the evaluated definitions, and the definitions that could
    /// not be evaluated (their opens are not all known).
    Done(Box<Structure>, Vec<&'t Definition>),
    /// A definition is not total, or contradicts what the structure says about its symbols.
    Inconsistent,
}

/// Evaluates, repeatedly, every definition whose opens are known, until none is left.
pub fn evaluate_definitions<'t>(
    program: &Program,
    theory: &'t Theory,
    structure: &Structure,
    options: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<Evaluated<'t>> {
    Ok(
        match evaluate_definitions_at(program, theory, structure, options, warnings)? {
            Some((evaluated, pending)) => Evaluated::Done(
                evaluated,
                pending.iter().map(|&k| &theory.definitions[k]).collect(),
            ),
            None => Evaluated::Inconsistent,
        },
    )
}

/// [`evaluate_definitions`], the definitions not evaluated given by their index in
/// `theory.definitions` (in order); `None` when a definition is inconsistent.
pub fn evaluate_definitions_at(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<Option<(Box<Structure>, Vec<usize>)>> {
    let mut current = structure.clone();
    let mut pending: Vec<usize> = (0..theory.definitions.len()).collect();
    loop {
        let mut progressed = false;
        let mut still = Vec::new();
        for k in pending {
            let def = &theory.definitions[k];
            let started = std::time::Instant::now();
            match evaluate_one(program, def, &current, options, warnings)? {
                One::Evaluated(tables) => {
                    options.observer.stat(|| {
                        let atoms: usize = tables.iter().map(|(_, t)| t.ct().len()).sum();
                        format!(
                            "definition at {} evaluated in {:.3}s: {} true atoms",
                            program.position(def.span).unwrap_or_default(),
                            started.elapsed().as_secs_f64(),
                            atoms
                        )
                    });
                    for (s, t) in tables {
                        current.symbols.insert(s, t);
                    }
                    progressed = true;
                }
                One::OpensUnknown => still.push(k),
                One::Inconsistent => return Ok(None),
            }
        }
        pending = still;
        if !progressed || pending.is_empty() {
            return Ok(Some((Box::new(current), pending)));
        }
    }
}

enum One {
    Evaluated(Vec<(Symbol, Table)>),
    OpensUnknown,
    Inconsistent,
}

/// Whether every symbol the rule bodies read, other than the defined ones, is two-valued.
fn opens_known(program: &Program, def: &Definition, structure: &Structure) -> bool {
    let defined = def.defined();
    let mut used = HashSet::default();
    for rule in &def.rules {
        crate::sema::walk::symbols(&rule.body, &mut used);
    }
    used.iter().all(|s| {
        defined.contains(s)
            || match s {
                Symbol::Pred(p) => program.pred(*p).type_of.is_some(),
                Symbol::Func(f) => program.func(*f).constructor_of.is_some(),
            }
            || matches!(structure.table(*s), Some(Table::TwoValued(_)))
    })
}

/// Evaluates `def` when its opens are known. A definition that cannot be grounded because it
/// ranges over an infinite type, and that can be evaluated on demand instead, is left to the
/// session (see [`crate::ground::inlined`]).
fn evaluate_one(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    options: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<One> {
    match evaluate_known(program, def, structure, options, warnings) {
        Err(e)
            if e.is_unbounded_grounding() && crate::ground::inlinable(program, def, structure) =>
        {
            Ok(One::OpensUnknown)
        }
        result => result,
    }
}

fn evaluate_known(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    options: &Options,
    warnings: &mut Vec<String>,
) -> IdpResult<One> {
    if !opens_known(program, def, structure) {
        return Ok(One::OpensUnknown);
    }
    // The Datalog engine first; a definition outside its fragment (it says which) falls back
    // to the bottom-up joins through the grounder, and those to grounding the definition and
    // computing its well-founded model.
    let mut least = None;
    // Where a limit stopped the evaluation (a definition with infinitely many true atoms).
    let located = |e: crate::error::Error| {
        let at = program
            .position(def.span)
            .map(|p| format!(" at {p}"))
            .unwrap_or_default();
        e.with_context(
            format!("while evaluating the definition{at}"),
            Some(def.span),
        )
    };
    let until = options.run.until(None);
    if options.tuning.datalog {
        let evaluated = crate::ground::datalog::evaluate(
            program,
            def,
            structure,
            options.max_ground_size,
            &until,
        )
        .map_err(located)?;
        if let Some(done) = evaluated {
            for (rule, cost) in def.rules.iter().zip(&done.rules) {
                options.observer.stat(|| {
                    format!(
                        "rule at {} evaluated in {:.3}s: {} rows derived, {} new",
                        program.position(rule.span).unwrap_or_default(),
                        cost.seconds,
                        cost.derived,
                        cost.added
                    )
                });
            }
            least = Some(done.extensions);
        }
    }
    if least.is_none() {
        least =
            crate::ground::least_fixpoint(program, def, structure, options.max_ground_size, &until)
                .map_err(located)?;
    }
    if let Some(tables) = least {
        if tables.iter().any(|(s, set)| !agrees(structure, *s, set)) {
            return Ok(One::Inconsistent);
        }
        let mut grounder = Grounder::new(
            program,
            structure,
            options.max_ground_size,
            options.run.until(None),
        );
        for (s, set) in &tables {
            if !is_function_graph(&mut grounder, *s, set)? {
                return Ok(One::Inconsistent);
            }
        }
        return Ok(One::Evaluated(
            tables
                .into_iter()
                .map(|(s, set)| (s, Table::TwoValued(set)))
                .collect(),
        ));
    }
    let defined = def.defined();
    let mut grounder = Grounder::new(
        program,
        structure,
        options.max_ground_size,
        options.run.until(None),
    );
    grounder.force_unknown(&defined);
    let gd = grounder.ground_definition(def)?;
    let store = &grounder.store();
    let reads_unknown_open =
        (0..store.atom_count() as AtomId).any(|a| !defined.contains(&store.atom_key(a).0));
    if reads_unknown_open {
        return Ok(One::OpensUnknown);
    }
    let evaluator = Evaluator::new(store, &gd);
    let wf = evaluator.well_founded(store, &|_| false);
    if !wf.unknown_atoms.is_empty() {
        if options.stablesemantics {
            return Ok(One::OpensUnknown);
        }
        let mut unknown: Vec<AtomId> = wf.unknown_atoms.iter().copied().collect();
        unknown.sort_unstable();
        let example = crate::infer::session::unknown_atoms_text(program, store, &unknown);
        let at = program.position(def.span).unwrap_or_default();
        warnings.push(format!(
            "The definition at {at} is not total in structure '{}': its well-founded model \
             leaves {example} unknown, so there is no model (IDP3's semantics accepts only \
             total definitions).",
            structure.name
        ));
        return Ok(One::Inconsistent);
    }
    let mut tables: Vec<(Symbol, HashSet<Tuple>)> =
        defined.iter().map(|s| (*s, HashSet::default())).collect();
    for &a in &wf.true_atoms {
        let (s, t) = store.atom_key(a);
        if let Some((_, set)) = tables.iter_mut().find(|(x, _)| x == s) {
            set.insert(t.clone());
        }
    }
    for (s, set) in &tables {
        if !agrees(structure, *s, set) || !is_function_graph(&mut grounder, *s, set)? {
            return Ok(One::Inconsistent);
        }
    }
    Ok(One::Evaluated(
        tables
            .into_iter()
            .map(|(s, set)| (s, Table::TwoValued(set.into_iter().collect())))
            .collect(),
    ))
}

/// Whether the computed extension agrees with what the structure already says.
fn agrees(structure: &Structure, s: Symbol, computed: &HashSet<Tuple>) -> bool {
    let Some(table) = structure.table(s) else {
        return true;
    };
    match table {
        Table::TwoValued(set) => {
            set.len() == computed.len() && computed.iter().all(|t| set.contains(t))
        }
        Table::ThreeValued { ct, cf } => {
            ct.iter().all(|t| computed.contains(t)) && cf.iter().all(|t| !computed.contains(t))
        }
    }
}

/// For a function: at most one value per argument tuple, and exactly one when it is total.
fn is_function_graph(grounder: &mut Grounder, s: Symbol, set: &HashSet<Tuple>) -> IdpResult<bool> {
    let Symbol::Func(f) = s else { return Ok(true) };
    let func = grounder.program().func(f).clone();
    let mut seen: HashSet<&[crate::structure::Value]> = HashSet::default();
    for t in set {
        if !seen.insert(&t[..t.len() - 1]) {
            return Ok(false);
        }
    }
    if func.partial {
        return Ok(true);
    }
    let mut count = 1usize;
    for a in &func.args {
        count = count.saturating_mul(grounder.domain(*a)?.len());
    }
    Ok(seen.len() == count)
}
