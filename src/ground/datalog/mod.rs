//! A Datalog engine for definitions whose input the structure fixes.
//!
//! The rules of such a definition are compiled ([`compile`]) into conjunctive rules over
//! relations of fixed-width integer rows ([`codes`], [`relation`]), split into strata by their
//! dependencies (a stratum is a strongly connected part of the defined symbols; negation,
//! aggregates, sub-queries and function applications may only read lower strata or the
//! structure), and evaluated stratum by stratum, bottom up. Within a stratum the evaluation is
//! semi-naive: after a first round with the rules that read no symbol of the stratum, each
//! round runs, for every rule and every positive atom of the stratum in its body, the variant
//! in which that atom reads only the previous round's new rows, the atoms before it only older
//! rows and the atoms after it all rows; so every derivation is made once. Joins follow plans
//! ([`plan`]) over hash indexes that are built once per relation and column set and extended
//! with each round's rows ([`exec`]); derived rows go to one flat buffer, so no derived tuple
//! costs an allocation.
//!
//! The result is the least fixpoint, which for a stratified definition is its well-founded
//! model. Anything outside this fragment (a symbol the structure does not fix two-valued,
//! recursion through negation or through a term, a variable over an infinite sort that no atom
//! binds, bodies with too many disjuncts) makes [`evaluate`] answer `None`; the caller then
//! evaluates the definition the general way (`ground::bottom_up`, then grounding and the
//! well-founded evaluation of `ground::wellfounded`).

mod codes;
mod compile;
mod exec;
mod plan;
mod relation;

use crate::limits::Until;
use rustc_hash::FxHashSet as HashSet;

use crate::error::{Error, IdpResult, Limit};
use crate::ids::Symbol;
use crate::sema::ir::Definition;
use crate::sema::{Domains, Program};
use crate::structure::{Structure, Tuple};
pub use compile::Approx;
use compile::{expr_relations, lit_relations, Compiled, Lit, Plan, Range};
use exec::{Exec, Sink};
use plan::Planner;
use relation::RowId;

/// The true tuples of each defined symbol (a function's tuples are its graph).
pub type Extensions = Vec<(Symbol, HashSet<Tuple>)>;

/// What evaluating one rule of the definition cost (for `--stats`).
#[derive(Clone, Debug, Default)]
pub struct RuleCost {
    /// Seconds spent in the rule's joins, all rounds together.
    pub seconds: f64,
    /// Head rows the joins produced (before duplicates are dropped).
    pub derived: usize,
    /// Rows that were new.
    pub added: usize,
}

/// The result of [`evaluate`]: the extensions and, per rule of the definition, its cost.
pub struct Evaluation {
    pub extensions: Extensions,
    pub rules: Vec<RuleCost>,
}

/// The least fixpoint of `def` over `structure`, or `None` when the definition is outside the
/// engine's fragment (see the module documentation) and must be evaluated the general way.
/// The caller checks that defined functions come out as functions and that the result agrees
/// with what the structure says about the defined symbols.
pub fn evaluate(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    max_rows: usize,
    until: &Until,
) -> IdpResult<Option<Evaluation>> {
    evaluate_compiled(program, def, structure, None, max_rows, until)
}

/// The tuples of each defined symbol that are true in some model of `def` (among others): the
/// least fixpoint of its possibly-true relaxation, where `approx` says what is known of each
/// symbol the definition reads but does not define (see [`compile`]). Every atom outside
/// them is false in every model, under the well-founded semantics as under the completion
/// (each of its rule bodies is false). `None` when the relaxation has no Datalog counterpart.
/// A function's tuples are its possible graph (not a function: an argument may have several
/// possible values).
pub fn possibly_true(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    approx: &dyn Fn(Symbol) -> Approx,
    max_rows: usize,
    until: &Until,
) -> IdpResult<Option<Extensions>> {
    let evaluation = evaluate_compiled(program, def, structure, Some(approx), max_rows, until)?;
    Ok(evaluation.map(|e| e.extensions))
}

/// [`evaluate`], or [`possibly_true`] with `approx`. Stops with the grounding size limit
/// once the defined relations hold more than `max_rows` rows together (a definition with
/// infinitely many true atoms, `True(x + 1) <- True(x)` over `nat`, would run on).
fn evaluate_compiled(
    program: &Program,
    def: &Definition,
    structure: &Structure,
    approx: Option<&dyn Fn(Symbol) -> Approx>,
    max_rows: usize,
    until: &Until,
) -> IdpResult<Option<Evaluation>> {
    let domains = Domains::new(program, structure);
    let Some(mut compiled) = compile::compile(program, def, structure, &domains, approx) else {
        return Ok(None);
    };
    let Some(strata) = strata(&compiled) else {
        return Ok(None);
    };
    let mut state = State {
        bounds: compiled
            .relations
            .iter()
            .map(|r| (r.len(), r.len()))
            .collect(),
        env: vec![0; compiled.slots],
        out: Vec::new(),
        steps: 0,
        unsupported: false,
        costs: vec![RuleCost::default(); def.rules.len()],
        added: 0,
        max_rows,
        until: until.clone(),
    };
    let rules = compiled.rules.clone();
    for stratum in &strata {
        let in_stratum = |rel: usize| stratum.contains(&rel);
        let mut once: Vec<(usize, Plan)> = Vec::new();
        let mut rounds: Vec<(usize, Plan)> = Vec::new();
        {
            let mut planner = Planner {
                compiled: &mut compiled,
                domains: &domains,
            };
            for (k, rule) in rules.iter().enumerate() {
                if !in_stratum(rule.head) {
                    continue;
                }
                let recursive: Vec<usize> = rule
                    .body
                    .lits
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| {
                        matches!(l, Lit::Atom { rel, positive: true, .. } if in_stratum(*rel))
                    })
                    .map(|(i, _)| i)
                    .collect();
                if recursive.is_empty() {
                    let Some(plan) = planner.plan(&rule.body, &[], &|_| Range::All, None) else {
                        return Ok(None);
                    };
                    once.push((k, plan));
                    continue;
                }
                for (m, &first) in recursive.iter().enumerate() {
                    let range = |i: usize| match recursive.iter().position(|&j| j == i) {
                        Some(p) if p < m => Range::Old,
                        Some(p) if p == m => Range::Delta,
                        _ => Range::All,
                    };
                    let Some(plan) = planner.plan(&rule.body, &[], &range, Some(first)) else {
                        return Ok(None);
                    };
                    rounds.push((k, plan));
                }
            }
        }
        for r in &mut compiled.relations {
            r.extend_indexes();
        }
        for (rel, b) in state.bounds.iter_mut().enumerate() {
            let len = compiled.relations[rel].len();
            *b = (len, len);
        }
        state.run(&mut compiled, &domains, &rules, &once)?;
        if !rounds.is_empty() {
            for &rel in stratum {
                state.bounds[rel] = (0, compiled.relations[rel].len());
            }
            while stratum
                .iter()
                .any(|&rel| state.bounds[rel].0 < state.bounds[rel].1)
            {
                for &rel in stratum {
                    compiled.relations[rel].extend_indexes();
                }
                state.run(&mut compiled, &domains, &rules, &rounds)?;
                for &rel in stratum {
                    state.bounds[rel] = (state.bounds[rel].1, compiled.relations[rel].len());
                }
            }
        }
    }
    if state.unsupported {
        return Ok(None);
    }
    let codes = &compiled.codes;
    let extensions = def
        .defined()
        .iter()
        .enumerate()
        .map(|(k, s)| {
            debug_assert_eq!(compiled.rels[k].symbol, *s);
            let relation = &compiled.relations[k];
            let mut set =
                HashSet::with_capacity_and_hasher(relation.len() as usize, Default::default());
            set.extend(
                relation
                    .rows()
                    .map(|row| row.iter().map(|&c| codes.decode(c)).collect()),
            );
            (*s, set)
        })
        .collect();
    Ok(Some(Evaluation {
        extensions,
        rules: state.costs,
    }))
}

/// The error for a definition evaluated past `max` true atoms (the grounding size limit).
pub fn too_many_atoms(max: usize) -> Error {
    Error::limit(
        Limit::GroundSize,
        format!(
            "The definition derived more than {max} true atoms (the grounding size limit): it \
             may have infinitely many (a rule such as `True(x + 1) <- True(x)` over nat). Bound \
             its variables by a finite type, or raise the limit with --max-ground-size."
        ),
    )
}

/// What the rounds share: the row bounds, the variable slots, the derived rows.
struct State {
    bounds: Vec<(RowId, RowId)>,
    env: Vec<u32>,
    out: Vec<u32>,
    steps: u64,
    /// Set when a run met something the engine does not do as the general path does.
    unsupported: bool,
    /// Per rule of the definition.
    costs: Vec<RuleCost>,
    /// The rows added to the head relations so far, and how many may be.
    added: usize,
    max_rows: usize,
    /// The run's limits.
    until: Until,
}

impl State {
    /// Runs each plan for its rule and adds the derived rows to the head relation (after the
    /// plan, so that no plan sees rows of its own round).
    fn run(
        &mut self,
        compiled: &mut Compiled,
        domains: &Domains,
        rules: &[compile::CRule],
        plans: &[(usize, Plan)],
    ) -> IdpResult<()> {
        let mut codes = std::mem::take(&mut compiled.codes);
        let result = (|| {
            for (k, plan) in plans {
                let rule = &rules[*k];
                self.out.clear();
                let mut exec = Exec {
                    relations: &compiled.relations,
                    members: &compiled.members,
                    domains,
                    codes: &mut codes,
                    bounds: &self.bounds,
                    env: &mut self.env,
                    out: &mut self.out,
                    steps: &mut self.steps,
                    until: &self.until,
                    unsupported: &mut self.unsupported,
                };
                let mut sink = Sink::Head {
                    args: &rule.head_args,
                    members: &compiled.head_members[rule.head],
                };
                let started = std::time::Instant::now();
                exec.run(plan, 0, &mut sink)?;
                let relation = &mut compiled.relations[rule.head];
                let (arity, before) = (relation.arity(), relation.len());
                let derived = if arity == 0 {
                    if !self.out.is_empty() {
                        relation.insert(&[]);
                    }
                    self.out.len()
                } else {
                    for row in self.out.chunks_exact(arity) {
                        relation.insert(row);
                    }
                    self.out.len() / arity
                };
                let cost = &mut self.costs[rule.source];
                cost.seconds += started.elapsed().as_secs_f64();
                cost.derived += derived;
                let added = (relation.len() - before) as usize;
                cost.added += added;
                self.added += added;
                if self.added > self.max_rows {
                    return Err(too_many_atoms(self.max_rows));
                }
            }
            Ok(())
        })();
        compiled.codes = codes;
        result
    }
}

/// The strata of the defined relations, lowest first: the strongly connected parts of the
/// dependency graph. `None` when a rule reads a relation of its own stratum other than through
/// a positive atom of its body (negation, a sub-query, an aggregate or a term): such a
/// definition is not stratified, or its recursion goes through a function.
fn strata(compiled: &Compiled) -> Option<Vec<Vec<usize>>> {
    let defined: Vec<usize> = (0..compiled.rels.len())
        .filter(|&k| compiled.rels[k].defined)
        .collect();
    let n = compiled.rels.len();
    let mut depends = vec![vec![false; n]; n];
    let mut strict: Vec<(usize, usize)> = Vec::new();
    for rule in &compiled.rules {
        let h = rule.head;
        let mut positive: Vec<usize> = Vec::new();
        let mut other = |rel: usize| {
            if compiled.rels[rel].defined {
                strict.push((h, rel));
            }
        };
        for e in &rule.head_args {
            expr_relations(e, &mut other);
        }
        for lit in &rule.body.lits {
            match lit {
                Lit::Atom {
                    rel,
                    args,
                    positive: true,
                } => {
                    for a in args {
                        expr_relations(a, &mut other);
                    }
                    if compiled.rels[*rel].defined {
                        positive.push(*rel);
                    }
                }
                _ => lit_relations(lit, &mut other),
            }
        }
        for rel in positive {
            depends[h][rel] = true;
        }
    }
    for &(h, rel) in &strict {
        depends[h][rel] = true;
    }
    // Transitive closure (definitions define few symbols).
    for k in 0..n {
        let through = depends[k].clone();
        for row in depends.iter_mut() {
            if row[k] {
                for (reaches, &via) in row.iter_mut().zip(&through) {
                    *reaches |= via;
                }
            }
        }
    }
    let together = |a: usize, b: usize| a == b || depends[a][b] && depends[b][a];
    if strict.iter().any(|&(h, r)| together(h, r)) {
        return None;
    }
    let mut strata: Vec<Vec<usize>> = Vec::new();
    let mut placed = vec![false; n];
    while strata.iter().map(Vec::len).sum::<usize>() < defined.len() {
        // A part whose dependencies outside it are all placed.
        let next = defined.iter().copied().find(|&a| {
            !placed[a]
                && defined
                    .iter()
                    .all(|&b| placed[b] || together(a, b) || !depends[a][b])
        })?;
        let part: Vec<usize> = defined
            .iter()
            .copied()
            .filter(|&b| together(next, b))
            .collect();
        for &b in &part {
            placed[b] = true;
        }
        strata.push(part);
    }
    Some(strata)
}
