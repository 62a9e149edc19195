//! Evaluating definitions whose open symbols the structure already fixes: the well-founded
//! model is computed on the ground rules and, when it is two-valued, stored in the structure as
//! tables, so that the defined symbols are data (not SAT variables) for the rest of the run.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::error::IdpResult;
use crate::ground::wellfounded::Evaluator;
use crate::ground::{AtomId, Grounder};
use crate::ids::Symbol;
use crate::infer::Options;
use crate::print::readable_value;
use crate::sema::ir::Definition;
use crate::sema::{Program, Theory};
use crate::structure::{Structure, Table, Tuple, Value};

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
                One::Inconsistent(_) => return Ok(None),
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
    /// The first instance that breaks the definition when one is known (`Block(2) gets no
    /// value`).
    Inconsistent(Option<String>),
}

/// Why `def` has no model on `structure`, whose opens it all knows: the first instance that
/// breaks it, said as `Block(2) gets no value`, `F(a) gets two values: 1 and 2` or `P(a) is
/// derived, but structure S says it is false`. `None` when it evaluates, reads an unknown
/// symbol, or no one instance is to blame (its well-founded model is not two-valued).
pub fn why_definition_fails(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    options: &Options,
) -> Option<String> {
    let mut warnings = Vec::new();
    match evaluate_one(program, def, structure, options, &mut warnings) {
        Ok(One::Inconsistent(reason)) => reason,
        _ => None,
    }
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
        let mut grounder = Grounder::new(
            program,
            structure,
            options.max_ground_size,
            options.run.until(None),
        );
        for (s, set) in &tables {
            let reason = match disagreement(program, structure, *s, set) {
                Some(reason) => Some(reason),
                None => not_a_function(program, &mut grounder, *s, set)?,
            };
            if reason.is_some() {
                return Ok(One::Inconsistent(reason));
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
        return Ok(One::Inconsistent(None));
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
        let reason = match disagreement(program, structure, *s, set) {
            Some(reason) => Some(reason),
            None => not_a_function(program, &mut grounder, *s, set)?,
        };
        if reason.is_some() {
            return Ok(One::Inconsistent(reason));
        }
    }
    Ok(One::Evaluated(
        tables
            .into_iter()
            .map(|(s, set)| (s, Table::TwoValued(set.into_iter().collect())))
            .collect(),
    ))
}

/// Where the computed extension of `s` and what the structure already says about it differ:
/// the first such atom, `None` when they agree.
fn disagreement(
    program: &Program,
    structure: &Structure,
    s: Symbol,
    computed: &HashSet<Tuple>,
) -> Option<String> {
    let table = structure.table(s)?;
    let (must, must_not): (Vec<&Tuple>, Vec<&Tuple>) = match table {
        Table::TwoValued(set) => {
            let derived_false = computed.iter().find(|t| !set.contains(*t));
            if let Some(t) = derived_false {
                return Some(derived_text(program, structure, s, t));
            }
            (set.iter().collect(), Vec::new())
        }
        Table::ThreeValued { ct, cf } => (ct.iter().collect(), cf.iter().collect()),
    };
    if let Some(t) = must.into_iter().find(|t| !computed.contains(*t)) {
        let atom = atom_text(program, s, t);
        return Some(format!(
            "{atom} is not derived, but structure {} says it is true",
            structure.name
        ));
    }
    let t = must_not.into_iter().find(|t| computed.contains(*t))?;
    Some(derived_text(program, structure, s, t))
}

/// `P(b) is derived, but structure S says it is false`.
fn derived_text(program: &Program, structure: &Structure, s: Symbol, t: &Tuple) -> String {
    let atom = atom_text(program, s, t);
    format!(
        "{atom} is derived, but structure {} says it is false",
        structure.name
    )
}

/// `P(a,b)`, or `F(a) = v` for a function's tuple.
fn atom_text(program: &Program, s: Symbol, t: &[Value]) -> String {
    match s {
        Symbol::Func(_) => {
            let (args, value) = t.split_at(t.len() - 1);
            format!(
                "{} = {}",
                applied_text(program, s, args),
                values_text(value)
            )
        }
        Symbol::Pred(_) => applied_text(program, s, t),
    }
}

/// `F(a,b)`, or `F` alone without arguments.
fn applied_text(program: &Program, s: Symbol, args: &[Value]) -> String {
    let name = program.symbol_name(s);
    match args {
        [] => name.to_string(),
        args => format!("{name}({})", values_text(args)),
    }
}

fn values_text(values: &[Value]) -> String {
    let texts: Vec<String> = values.iter().map(|v| readable_value(*v)).collect();
    texts.join(",")
}

/// For a function: the first argument tuple with two values, or (when it is total) with
/// none; `None` when the extension is a function's graph.
fn not_a_function(
    program: &Program,
    grounder: &mut Grounder,
    s: Symbol,
    set: &HashSet<Tuple>,
) -> IdpResult<Option<String>> {
    let Symbol::Func(f) = s else { return Ok(None) };
    let func = program.func(f);
    let mut seen: HashMap<&[Value], &Value> = HashMap::default();
    let mut tuples: Vec<&Tuple> = set.iter().collect();
    tuples.sort();
    for t in tuples {
        let (args, value) = t.split_at(t.len() - 1);
        if let Some(other) = seen.insert(args, &value[0]) {
            let (a, b) = (readable_value(*other), readable_value(value[0]));
            let applied = applied_text(program, s, args);
            return Ok(Some(format!("{applied} gets two values: {a} and {b}")));
        }
    }
    if func.partial {
        return Ok(None);
    }
    let mut count = 1usize;
    for a in &func.args {
        count = count.saturating_mul(grounder.domain(*a)?.len());
    }
    if seen.len() == count {
        return Ok(None);
    }
    let mut domains = Vec::new();
    for a in &func.args {
        domains.push(grounder.domain(*a)?.to_vec());
    }
    let missing = first_missing(&domains, |args| seen.contains_key(args));
    Ok(Some(match missing {
        Some(args) => format!("{} gets no value", applied_text(program, s, &args)),
        None => format!("{} does not get a value for every argument", func.name),
    }))
}

/// The first tuple of the product of `domains` (in order) that `has` does not have.
fn first_missing(domains: &[Vec<Value>], has: impl Fn(&[Value]) -> bool) -> Option<Vec<Value>> {
    if domains.iter().any(|d| d.is_empty()) {
        return None;
    }
    let mut index = vec![0usize; domains.len()];
    loop {
        let tuple: Vec<Value> = index.iter().zip(domains).map(|(&i, d)| d[i]).collect();
        if !has(&tuple) {
            return Some(tuple);
        }
        let mut k = domains.len();
        loop {
            if k == 0 {
                return None;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < domains[k].len() {
                break;
            }
            index[k] = 0;
        }
    }
}
