//! `completion(T)`: IDP3's replacement of each definition by its Clark completion. For every
//! rule `! x : H(x) <- B` the sentence `! x : ~B | H(x)`, then for every defined symbol the
//! sentence `! z : ~H(z) | B1' | ... | Bn'`, where `Bi'` is the body of the symbol's `i`-th
//! rule with the head's variables renamed to the shared `z` (and `z = t` for a head argument
//! that is an element or a repeated variable). The definitions are removed. For a definition
//! without recursion the result has the same models; for a recursive one it may have more
//! (the completion does not exclude unfounded loops), as IDP3's.

use rustc_hash::FxHashSet as HashSet;

use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::program::{Program, Symbol, Theory};
use crate::sema::transform::{bound_names, copy, replace_vars, var_term, Fresh};
use crate::source::Span;
use crate::syntax::ast::CmpOp;

/// IDP3's `completion(T)`: the definitions of `theory` become sentences.
pub fn completion(program: &Program, theory: &mut Theory) {
    let mut fresh = Fresh::for_theory(theory);
    let definitions = std::mem::take(&mut theory.definitions);
    for d in &definitions {
        let sentences = definition_completion(program, d, &mut fresh);
        theory.sentences.extend(sentences);
    }
}

/// The completion of one definition: one sentence per rule, then one per defined symbol.
fn definition_completion(program: &Program, d: &Definition, fresh: &mut Fresh) -> Vec<Formula> {
    let mut out: Vec<Formula> = d
        .rules
        .iter()
        .map(|r| body_implies_head(program, r))
        .collect();
    for symbol in d.defined() {
        let rules: Vec<&Rule> = d.rules.iter().filter(|r| r.head == symbol).collect();
        out.push(head_implies_bodies(program, symbol, &rules, fresh));
    }
    out
}

/// `! x : ~B | H(x)` for the rule `! x : H(x) <- B` (just the head when the body is `true`).
fn body_implies_head(program: &Program, r: &Rule) -> Formula {
    let head_args: Vec<Term> = r.head_args.to_vec();
    let head = head_formula(program, r.head, head_args, r.span);
    let sentence = match r.body.kind() {
        FormulaKind::Bool(true) => head,
        _ => {
            let not_body = Formula::new(FormulaKind::Not(Box::new(copy(&r.body))), r.body.span);
            Formula::new(FormulaKind::Or(vec![not_body, head]), r.span)
        }
    };
    forall(r.vars.clone(), sentence, r.span)
}

/// `! z : ~H(z) | B1' | ... | Bn'` for the rules of one symbol.
fn head_implies_bodies(
    program: &Program,
    symbol: Symbol,
    rules: &[&Rule],
    fresh: &mut Fresh,
) -> Formula {
    let span = rules.first().map_or(Span::default(), |r| r.span);
    let z = head_variables(program, symbol, rules, fresh);
    let z_terms: Vec<Term> = z.iter().map(|v| var_term(v, span)).collect();
    let bodies: Vec<Formula> = rules.iter().map(|r| renamed_body(r, &z_terms)).collect();
    let disjunction = match <[Formula; 1]>::try_from(bodies) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::Or(many), span),
    };
    let head = head_formula(program, symbol, z_terms, span);
    let not_head = Formula::new(FormulaKind::Not(Box::new(head)), span);
    let sentence = Formula::new(FormulaKind::Or(vec![not_head, disjunction]), span);
    forall(z, sentence, span)
}

/// One new variable per argument of `symbol`, named as a rule's variable at that position (one
/// the user wrote, if any; `x` where no rule has one), differing from the names bound inside
/// the bodies.
fn head_variables(
    program: &Program,
    symbol: Symbol,
    rules: &[&Rule],
    fresh: &mut Fresh,
) -> Vec<Var> {
    let mut taken = HashSet::default();
    for r in rules {
        bound_names(&r.body, &mut taken);
    }
    let sorts = program.symbol_sorts(symbol);
    let mut out = Vec::with_capacity(sorts.len());
    for (k, sort) in sorts.into_iter().enumerate() {
        let names: Vec<&str> = rules
            .iter()
            .filter_map(|r| match r.head_args.get(k).map(Term::kind) {
                Some(TermKind::Var(v)) => Some(&*v.name),
                _ => None,
            })
            .collect();
        // A name the user wrote rather than one the resolver made (`_v0`).
        let base = names
            .iter()
            .find(|n| !n.starts_with('_'))
            .or(names.first())
            .map_or("x", |n| n);
        let v = fresh.var_avoiding(base, sort, &taken);
        taken.insert(v.name.to_string());
        out.push(v);
    }
    out
}

/// The body of `r` over the shared head variables `z`: each head variable renamed to the `z`
/// at its (first) position, `z = t` for the other head arguments.
fn renamed_body(r: &Rule, z: &[Term]) -> Formula {
    let mut map: Vec<(u32, Term)> = Vec::new();
    let mut equalities: Vec<Formula> = Vec::new();
    for (arg, zk) in r.head_args.iter().zip(z) {
        match arg.kind() {
            TermKind::Var(v) if !map.iter().any(|(id, _)| *id == v.id) => {
                map.push((v.id, zk.clone()));
            }
            _ => {
                let value = replace_in_term(arg, &map);
                let eq = FormulaKind::Cmp(CmpOp::Eq, zk.clone(), value);
                equalities.push(Formula::new(eq, arg.span));
            }
        }
    }
    let body = replace_vars(&r.body, &map);
    let unmapped: Vec<Var> = r
        .vars
        .iter()
        .filter(|v| !map.iter().any(|(id, _)| *id == v.id))
        .cloned()
        .collect();
    let body = if unmapped.is_empty() {
        body
    } else {
        Formula::new(FormulaKind::Exists(unmapped, Box::new(body)), r.body.span)
    };
    if equalities.is_empty() {
        return body;
    }
    if !matches!(body.kind(), FormulaKind::Bool(true)) {
        equalities.push(body);
    }
    match <[Formula; 1]>::try_from(equalities) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::And(many), r.body.span),
    }
}

/// A head argument with the renaming applied (a variable seen at an earlier position).
fn replace_in_term(t: &Term, map: &[(u32, Term)]) -> Term {
    match t.kind() {
        TermKind::Var(v) => match map.iter().find(|(id, _)| *id == v.id) {
            Some((_, to)) => Term::new(to.kind().clone(), to.sort, t.span),
            None => t.clone(),
        },
        _ => t.clone(),
    }
}

/// The atom `P(args)`, or `F(args') = v` for a function (its value the last argument).
pub(super) fn head_formula(
    program: &Program,
    symbol: Symbol,
    mut args: Vec<Term>,
    span: Span,
) -> Formula {
    match symbol {
        Symbol::Pred(p) => Formula::new(FormulaKind::Pred(p, args), span),
        Symbol::Func(f) => {
            let value = args.pop();
            let result = program.func(f).result;
            let application = Term::new(TermKind::Func(f, args), result, span);
            match value {
                Some(value) => Formula::new(FormulaKind::Cmp(CmpOp::Eq, application, value), span),
                None => Formula::new(FormulaKind::Bool(false), span),
            }
        }
    }
}

/// `! vars : f`, or `f` without variables.
fn forall(vars: Vec<Var>, f: Formula, span: Span) -> Formula {
    if vars.is_empty() {
        f
    } else {
        Formula::new(FormulaKind::Forall(vars, Box::new(f)), span)
    }
}
