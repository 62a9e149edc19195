//! IDP-Z3's `determine_relevance(Theory(T, S))`: the questions (ground atoms and function
//! applications) that matter in the state `S` of theory `T`, each printed as IDP-Z3 prints an
//! assignment (`p()`, `Not p()`, `f(a) -> 1`, or `? q()` when unknown).
//!
//! After propagation, a question is relevant when it is known (but not a consequence of the
//! theory alone), when it occurs in a sentence that the known values do not decide, or when it
//! occurs in the ground rule of a relevant defined question; a theory without sentences makes
//! every question of its definitions relevant. This is IDP-Z3's rule, computed on `idp`'s
//! grounding instead of on IDP-Z3's symbolic simplification.

use rustc_hash::FxHashSet as HashSet;

use super::{failure, print, Failure, Run};
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind};
use crate::sema::walk::Node;
use crate::sema::Program;
use crate::structure::{Structure, Table, TruthValue, Value};

/// A question: a predicate's atom, or a function's application (its arguments only).
type Question = (Symbol, Vec<Value>);

/// The lines `determine_relevance` yields for theory `t` with structure `s`.
pub(super) fn relevant(run: &mut Run, t: usize, s: usize) -> Result<Vec<String>, Failure> {
    let program = run.program;
    let (theory, given) = (&program.theories[t], &program.structures[s]);
    let Some(known) = run.propagated(t, s)? else {
        return Ok(vec!["Not satisfiable.".to_string()]);
    };
    let universal = run
        .propagate_on(theory, &without_symbols(program, given))?
        .unwrap_or_else(|| given.clone());
    let ground =
        crate::infer::ground(program, theory, &known, &run.options, false).map_err(failure)?;
    run.warnings.extend(ground.warnings);
    let ground = ground.value;
    let mut found: Vec<Question> = known_questions(program, &known);
    for f in &ground.sentences {
        questions(program, f, &mut found);
    }
    if theory.sentences.is_empty() {
        for r in ground.definitions.iter().flat_map(|d| &d.rules) {
            found.push(head_question(r));
            questions(program, &r.body, &mut found);
        }
    }
    let relevant = with_definitions(program, &ground, found);
    let mut kept: Vec<Question> = relevant
        .into_iter()
        .filter(|q| value_of(program, &universal, q).is_none())
        .collect();
    sort_questions(program, theory.vocabulary, &mut kept);
    Ok(kept.iter().map(|q| reading(program, &known, q)).collect())
}

/// The structure with the types only: what the theory alone knows is propagated from it.
fn without_symbols(program: &Program, given: &Structure) -> Structure {
    let mut out = given.clone();
    out.symbols.retain(|s, _| builtin_part(program, *s));
    out
}

/// Whether a symbol is a type's predicate or a constructor (not a question).
fn builtin_part(program: &Program, s: Symbol) -> bool {
    match s {
        Symbol::Pred(p) => program.pred(p).type_of.is_some(),
        Symbol::Func(f) => program.func(f).constructor_of.is_some(),
    }
}

/// Every question the structure answers.
fn known_questions(program: &Program, known: &Structure) -> Vec<Question> {
    let mut out = Vec::new();
    for (&s, table) in &known.symbols {
        if builtin_part(program, s) {
            continue;
        }
        let func = matches!(s, Symbol::Func(_));
        let tuples: Vec<Vec<Value>> = match table {
            Table::TwoValued(set) if func => set.iter().cloned().collect(),
            Table::TwoValued(_) => print::all_tuples(program, known, &program.symbol_sorts(s)),
            Table::ThreeValued { ct, cf } if func => ct.iter().cloned().collect(),
            Table::ThreeValued { ct, cf } => ct.iter().chain(cf.iter()).cloned().collect(),
        };
        for mut t in tuples {
            if func {
                t.pop();
            }
            out.push((s, t));
        }
    }
    out
}

/// The ground atoms and applications in a ground formula, added to `out`.
fn questions(program: &Program, f: &Formula, out: &mut Vec<Question>) {
    Node::Formula(f).walk(&mut |n| {
        let found = match n {
            Node::Formula(g) => match g.kind() {
                FormulaKind::Pred(p, args) => Some((Symbol::Pred(*p), args)),
                _ => None,
            },
            Node::Term(t) => match t.kind() {
                TermKind::Func(g, args) => Some((Symbol::Func(*g), args)),
                _ => None,
            },
            Node::Set(_) => None,
        };
        if let Some((s, args)) = found {
            if let (false, Some(values)) = (builtin_part(program, s), values_of(args)) {
                out.push((s, values));
            }
        }
        true
    });
}

fn values_of(args: &[Term]) -> Option<Vec<Value>> {
    args.iter()
        .map(|a| match a.kind() {
            TermKind::Value(v) => Some(*v),
            _ => None,
        })
        .collect()
}

/// The question a ground rule defines (a function's value left out).
fn head_question(r: &crate::sema::ir::Rule) -> Question {
    let mut args = values_of(&r.head_args).unwrap_or_default();
    if matches!(r.head, Symbol::Func(_)) {
        args.pop();
    }
    (r.head, args)
}

/// `found` and, for each defined question in it, the questions of its ground rules, until
/// nothing is added; without repeats, in the order found.
fn with_definitions(
    program: &Program,
    ground: &crate::sema::Theory,
    found: Vec<Question>,
) -> Vec<Question> {
    let rules: Vec<(Question, &Formula)> = ground
        .definitions
        .iter()
        .flat_map(|d| &d.rules)
        .map(|r| (head_question(r), &r.body))
        .collect();
    let mut seen: HashSet<Question> = HashSet::default();
    let mut out = Vec::new();
    let mut to_do = found;
    while let Some(q) = to_do.pop() {
        if !seen.insert(q.clone()) {
            continue;
        }
        for (_, body) in rules.iter().filter(|(h, _)| *h == q) {
            questions(program, body, &mut to_do);
        }
        out.push(q);
    }
    out
}

/// Questions in IDP-Z3's order: by symbol as the vocabulary declares them, then by argument.
fn sort_questions(program: &Program, voc: crate::ids::VocId, qs: &mut [Question]) {
    let order = print::symbols_in_order(program, voc);
    let rank = |s: &Symbol| order.iter().position(|o| o == s).unwrap_or(usize::MAX);
    qs.sort_by(|a, b| {
        rank(&a.0)
            .cmp(&rank(&b.0))
            .then_with(|| print::cmp_tuples(&a.1, &b.1))
    });
}

/// What the structure says of a question: a truth value or a function's value.
fn value_of(program: &Program, s: &Structure, q: &Question) -> Option<String> {
    match q.0 {
        Symbol::Pred(_) => match s.truth(q.0, &q.1) {
            TruthValue::True => Some(String::new()),
            TruthValue::False => Some("Not ".to_string()),
            TruthValue::Unknown => None,
        },
        Symbol::Func(_) => {
            let graph: Vec<&Vec<Value>> = match s.table(q.0)? {
                Table::TwoValued(set) => set.iter().collect(),
                Table::ThreeValued { ct, .. } => ct.iter().collect(),
            };
            graph
                .into_iter()
                .find(|t| t.len() == q.1.len() + 1 && t.starts_with(&q.1))
                .map(|t| format!(" -> {}", print::texts(program, q.0, t)[q.1.len()]))
        }
    }
}

/// IDP-Z3's line for a question: `p(a)`, `Not p(a)`, `f(a) -> 1` or `? p(a)`.
fn reading(program: &Program, known: &Structure, q: &Question) -> String {
    let args = print::texts(program, q.0, &q.1);
    let call = format!("{}({})", program.symbol_name(q.0), args.join(", "));
    match (value_of(program, known, q), q.0) {
        (None, _) => format!("? {call}"),
        (Some(v), Symbol::Func(_)) => format!("{call}{v}"),
        (Some(v), Symbol::Pred(_)) => format!("{v}{call}"),
    }
}
