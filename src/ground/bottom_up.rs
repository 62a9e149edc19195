//! Semi-naive bottom-up evaluation of positive recursive definitions over known data.
//!
//! When every open symbol of a definition is two-valued and the defined predicates occur in the
//! rule bodies only positively, the well-founded model is the least fixpoint of the rules. It is
//! computed here round by round, as a database would: the atoms derived so far are a two-valued
//! table, so the grounder's joins bind rule variables from them instead of enumerating whole
//! domains. A rule that reads the defined symbols once is evaluated against the atoms that are
//! new in the previous round only (semi-naive evaluation), so every derivation is found once.
//! This keeps, e.g., reachability over time-stamped states proportional to the reachable
//! states, where grounding every rule instance first would be proportional to all states.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::error::IdpResult;
use crate::ground::join;
use crate::ground::{GVal, Gf, Grounder, TableIndexes};
use crate::ids::Symbol;
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Var};
use crate::sema::walk::symbols;
use crate::sema::Program;
use crate::structure::{Structure, Table, Tuple};

/// The true tuples of each defined symbol.
pub type Extensions = Vec<(Symbol, HashSet<Tuple>)>;

/// How often a rule body reads the defined symbols.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// Never: the rule only contributes in the first round.
    None,
    /// Exactly once, positively: evaluated against the previous round's new atoms (and in the
    /// first round against none).
    Once,
    /// Several times: evaluated against all atoms derived so far.
    Several,
}

/// The least fixpoint of `def` in `structure`, as one set of true tuples per defined symbol.
/// A defined function's tuples are its graph (arguments, then value); the caller checks that
/// they form a function. `None` when the definition is not eligible (it reads a defined symbol
/// negatively or inside a term, as any recursive function definition does) or when some body
/// turns out not to be decided by the structure; the caller then uses the general
/// well-founded evaluation.
pub fn least_fixpoint(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    max_ground_size: usize,
    until: &crate::limits::Until,
) -> IdpResult<Option<Extensions>> {
    let defined = def.defined();
    let Some(reads) = rule_reads(def, &defined) else {
        return Ok(None);
    };
    let mut full: HashMap<Symbol, HashSet<Tuple>> =
        defined.iter().map(|s| (*s, HashSet::default())).collect();
    let mut delta = full.clone();
    // One working copy of the structure; only the defined symbols' tables change between
    // passes, and the indexes of the other tables are kept.
    let mut work = structure.clone();
    let mut indexes = TableIndexes::default();
    for round in 0.. {
        let mut fresh: HashMap<Symbol, HashSet<Tuple>> = HashMap::default();
        for from_delta in [false, true] {
            let rules: Vec<&Rule> = def
                .rules
                .iter()
                .zip(&reads)
                .filter(|(_, read)| reads_in_pass(**read, round, from_delta))
                .map(|(rule, _)| rule)
                .collect();
            if rules.is_empty() {
                continue;
            }
            let source = if from_delta { &delta } else { &full };
            for s in &defined {
                let table = source[s].iter().cloned().collect();
                work.symbols.insert(*s, Table::TwoValued(table));
            }
            let mut grounder = Grounder::new(program, &work, max_ground_size, until.clone());
            grounder.adopt_indexes(std::mem::take(&mut indexes), &defined);
            for rule in rules {
                let decided = derive(&mut grounder, rule, &mut |s, t| {
                    if !full[&s].contains(&t) {
                        fresh.entry(s).or_default().insert(t);
                    }
                })?;
                if !decided {
                    return Ok(None);
                }
            }
            indexes = grounder.take_indexes();
        }
        if fresh.values().all(|set| set.is_empty()) {
            break;
        }
        for s in &defined {
            let new = fresh.remove(s).unwrap_or_default();
            full.get_mut(s)
                .expect("a defined symbol")
                .extend(new.iter().cloned());
            delta.insert(*s, new);
        }
        if full.values().map(HashSet::len).sum::<usize>() > max_ground_size {
            return Err(crate::ground::datalog::too_many_atoms(max_ground_size));
        }
    }
    Ok(Some(
        defined
            .iter()
            .map(|s| (*s, full.remove(s).unwrap_or_default()))
            .collect(),
    ))
}

/// Whether a rule that reads the defined symbols `read` times is evaluated in `round`, in the
/// pass over the previous round's new atoms (`from_delta`) or over all atoms so far. A rule
/// that reads them once is also evaluated in the first round, over no atoms: its body may hold
/// without them (`D <- D | P.`).
fn reads_in_pass(read: Reads, round: usize, from_delta: bool) -> bool {
    match read {
        Reads::None => round == 0 && !from_delta,
        Reads::Once => (round == 0) != from_delta,
        Reads::Several => !from_delta,
    }
}

/// For every rule, how often its body reads the defined symbols; `None` when some occurrence is
/// negative, inside a term, or in a head argument.
fn rule_reads(def: &Definition, defined: &[Symbol]) -> Option<Vec<Reads>> {
    let defined: HashSet<Symbol> = defined.iter().copied().collect();
    let mut out = Vec::with_capacity(def.rules.len());
    for rule in &def.rules {
        let mut head_symbols = HashSet::default();
        rule.head_args
            .iter()
            .for_each(|t| symbols(t, &mut head_symbols));
        if head_symbols.iter().any(|s| defined.contains(s)) {
            return None;
        }
        let count = positive_reads(&rule.body, true, &defined)?;
        out.push(match count {
            0 => Reads::None,
            1 => Reads::Once,
            _ => Reads::Several,
        });
    }
    Some(out)
}

/// The number of occurrences of defined symbols in `f` read in polarity `positive`; `None` when
/// one occurs negatively, under an equivalence, or inside a term.
fn positive_reads(f: &Formula, positive: bool, defined: &HashSet<Symbol>) -> Option<usize> {
    let in_terms = |terms: &[&crate::sema::ir::Term]| {
        let mut used = HashSet::default();
        terms.iter().for_each(|t| symbols(*t, &mut used));
        used.iter().any(|s| defined.contains(s))
    };
    match f.kind() {
        FormulaKind::Bool(_) => Some(0),
        FormulaKind::Pred(p, args) => {
            if in_terms(&args.iter().collect::<Vec<_>>()) {
                return None;
            }
            match (defined.contains(&Symbol::Pred(*p)), positive) {
                (false, _) => Some(0),
                (true, true) => Some(1),
                (true, false) => None,
            }
        }
        FormulaKind::Cmp(_, a, b) => (!in_terms(&[a, b])).then_some(0),
        FormulaKind::Not(g) => positive_reads(g, !positive, defined),
        // A universal quantifier reads the defined symbols for many values at once: its body
        // needs all atoms derived so far, not only the previous round's new ones.
        FormulaKind::Forall(_, g) if positive => match positive_reads(g, positive, defined)? {
            0 => Some(0),
            _ => Some(2),
        },
        FormulaKind::Exists(_, g) if !positive => match positive_reads(g, positive, defined)? {
            0 => Some(0),
            _ => Some(2),
        },
        FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => {
            positive_reads(g, positive, defined)
        }
        FormulaKind::And(fs) | FormulaKind::Or(fs) => fs
            .iter()
            .map(|g| positive_reads(g, positive, defined))
            .sum(),
        FormulaKind::Implies(a, b) => {
            Some(positive_reads(a, !positive, defined)? + positive_reads(b, positive, defined)?)
        }
        FormulaKind::Equiv(a, b) => {
            let both = positive_reads(a, true, defined)?
                + positive_reads(a, false, defined)?
                + positive_reads(b, true, defined)?
                + positive_reads(b, false, defined)?;
            (both == 0).then_some(0)
        }
    }
}

/// The variables to bind for `rule` and the condition on them: the head variables together with
/// the body's outer existential variables, in the order they were declared, so that the joins
/// follow the order in which the rule is written (the head variables are not bound first).
/// Existential quantifiers directly under the body's outer conjunctions are lifted too (`A & ?
/// y: B` binds y like a rule variable): every variable has its own id, so lifting captures
/// nothing, and the joins can then bind y from B's tables instead of grounding the quantifier
/// for every instance of the other variables. Only the joins use this plan; when they cannot
/// decide a rule, it is grounded instance by instance with `outer_plan`.
fn binding_plan(rule: &Rule) -> (Vec<Var>, Formula) {
    let mut vars = rule.vars.clone();
    let body = lift_exists(&rule.body, &mut vars);
    vars.sort_by_key(|v| v.id);
    (vars, body)
}

/// The variables and condition of `rule` with only the body's outermost existential
/// quantifiers taken as rule variables (for instance-by-instance grounding).
fn outer_plan(rule: &Rule) -> (Vec<Var>, &Formula) {
    let mut vars = rule.vars.clone();
    let mut body = &rule.body;
    while let FormulaKind::Exists(inner_vars, inner) = body.kind() {
        vars.extend(inner_vars.iter().cloned());
        body = inner;
    }
    vars.sort_by_key(|v| v.id);
    (vars, body)
}

/// `f` without its outer existential quantifiers (also those of outer conjuncts), whose
/// variables are added to `vars`.
fn lift_exists(f: &Formula, vars: &mut Vec<Var>) -> Formula {
    match f.kind() {
        FormulaKind::Exists(inner_vars, inner) => {
            vars.extend(inner_vars.iter().cloned());
            lift_exists(inner, vars)
        }
        FormulaKind::And(fs) => {
            let mut parts = Vec::with_capacity(fs.len());
            for g in fs {
                let lifted = lift_exists(g, vars);
                match lifted.kind() {
                    FormulaKind::And(inner) => parts.extend(inner.iter().cloned()),
                    _ => parts.push(lifted),
                }
            }
            Formula::new(FormulaKind::And(parts), f.span)
        }
        _ => f.clone(),
    }
}

/// Calls `found` with the head of every instance of `rule` whose body is true in the
/// grounder's structure. Returns `false` when some body is neither true nor false there.
fn derive(
    grounder: &mut Grounder,
    rule: &Rule,
    found: &mut dyn FnMut(Symbol, Tuple),
) -> IdpResult<bool> {
    let sorts = grounder.program().symbol_sorts(rule.head);
    let (join_vars, join_body) = binding_plan(rule);
    let (vars, body) = outer_plan(rule);
    let head = |g: &mut Grounder| -> IdpResult<Option<Tuple>> {
        let mut tuple = Vec::with_capacity(rule.head_args.len());
        for (k, arg) in rule.head_args.iter().enumerate() {
            match g.ground_term(arg)?.as_known() {
                Some(GVal::V(v)) if g.domains().contains(sorts[k], v) => tuple.push(v),
                // An undefined head argument or one outside the head's sorts: no atom.
                _ => return Ok(None),
            }
        }
        Ok(Some(tuple))
    };
    // A lifted body is a new formula (fresh node ids, so its memo entries never stand for
    // another formula's); an unchanged body is used in place.
    let lifted = join_vars.len() > vars.len();
    let join_body: &Formula = if lifted { &join_body } else { body };
    if let Some(plan) = join::plan(grounder, &join_vars, join_body) {
        let decided = plan.run(grounder, &mut |g| {
            if let Some(tuple) = head(g)? {
                found(rule.head, tuple);
            }
            Ok(())
        });
        if decided? {
            return Ok(true);
        }
    }
    let mut decided = true;
    grounder.for_each_candidate(&vars, body, &mut |g: &mut Grounder, known| {
        let Some(tuple) = head(g)? else {
            return Ok(false);
        };
        let body = g.condition(known, body)?;
        if body == Gf::TRUE {
            found(rule.head, tuple);
        } else if body != Gf::FALSE {
            decided = false;
            return Ok(true);
        }
        Ok(false)
    })?;
    Ok(decided)
}
