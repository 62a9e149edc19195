//! `completion(T)`: IDP3's replacement of each definition by its Clark completion
//! (`ReplaceDefinitionsWithCompletion`). Each rule is first brought to the form
//! `! x : H(x) <- B` with distinct variables in the head: a head argument that is not a variable
//! (an element, a constructor, a term), or a variable seen at an earlier position, becomes a new
//! variable `v` with `v = t` in front of the body (IDP3's `unnestNonVarHeadTerms`; IDP3 keeps a
//! repeated variable, which loses the equality, so here it is unnested too). Then, per
//! definition, one sentence per rule, `! y : ~B[x/y] | H(y)`, and one per defined symbol,
//! `! z : ~H(z) | B1[x/z] | ... | Bn[x/z]`. The definitions are removed.
//!
//! Variables are named as IDP3 names the variables it makes, `var<N>`: first the head variables
//! `z` of each defined symbol, then per rule its unnested head terms and the variables `y` of
//! its sentence. IDP3's `N` comes from a global counter, so its numbers are larger and depend on
//! what ran before; here they count from 1 within the call, skipping names the theory uses.
//! Variables bound inside a body keep their names. For a definition without recursion the
//! result has the same models; for a recursive one it may have more (the completion does not
//! exclude unfounded loops), as IDP3's.

use crate::ids::{PredId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::program::{Program, Theory};
use crate::sema::transform::{copy, replace_vars, var_term, Fresh};
use crate::source::Span;
use crate::structure::Value;
use crate::syntax::ast::CmpOp;

/// The prefix of the variables IDP3's transformations make.
const PREFIX: &str = "var";

/// IDP3's `completion(T)`: the definitions of `theory` become sentences.
pub fn completion(program: &Program, theory: &mut Theory) {
    let mut fresh = Fresh::for_theory(theory);
    let definitions = std::mem::take(&mut theory.definitions);
    for d in &definitions {
        let sentences = definition_completion(program, d, &mut fresh);
        theory.sentences.extend(sentences);
    }
}

/// A rule `! vars : head(args) <- body` whose head arguments are distinct variables.
struct Plain {
    head: Symbol,
    /// The head's variables, one per argument.
    args: Vec<Var>,
    /// The body with the equalities of the unnested head terms in front.
    body: Formula,
    span: Span,
}

/// The completion of one definition: one sentence per rule, then one per defined symbol.
fn definition_completion(program: &Program, d: &Definition, fresh: &mut Fresh) -> Vec<Formula> {
    let symbols = d.defined();
    let head_vars: Vec<Vec<Var>> = symbols
        .iter()
        .map(|&s| {
            program
                .symbol_sorts(s)
                .into_iter()
                .map(|sort| fresh.numbered(PREFIX, sort))
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(d.rules.len() + symbols.len());
    let mut bodies: Vec<Vec<Formula>> = vec![Vec::new(); symbols.len()];
    for r in &d.rules {
        let plain = unnest_head(program, r, fresh);
        out.push(body_implies_head(program, &plain, fresh));
        if let Some(k) = symbols.iter().position(|&s| s == plain.head) {
            bodies[k].push(renamed(&plain.body, &plain.args, &head_vars[k]));
        }
    }
    for ((symbol, z), bodies) in symbols.into_iter().zip(head_vars).zip(bodies) {
        out.push(head_implies_bodies(program, symbol, z, bodies, d.span));
    }
    out
}

/// `r` with distinct head variables: the resolver's head variables (`_v0`, made for a term in
/// the head, its equality after the body) and every other argument that is not a variable
/// seen for the first time become new variables of the head's sort, their equalities in front
/// of the body, in the order of the head. The body loses its `true` conjuncts and the
/// resolver's checks that a head element is in the head's sort (`N(1)`: the new variable's
/// sort says it).
fn unnest_head(program: &Program, r: &Rule, fresh: &mut Fresh) -> Plain {
    let made: Vec<&Var> = r.vars.iter().filter(|v| v.name.starts_with('_')).collect();
    let sorts = program.symbol_sorts(r.head);
    let mut conjuncts: Vec<Formula> = match r.body.kind() {
        FormulaKind::And(parts) => parts.iter().map(copy).collect(),
        _ => vec![copy(&r.body)],
    };
    conjuncts.retain(|f| !matches!(f.kind(), FormulaKind::Bool(true)));
    let mut renaming: Vec<(u32, Term)> = Vec::new();
    let mut args: Vec<Var> = Vec::with_capacity(r.head_args.len());
    let mut front: Vec<Formula> = Vec::new();
    for (k, t) in r.head_args.iter().enumerate() {
        let sort = sorts.get(k).copied().unwrap_or(t.sort);
        match t.kind() {
            TermKind::Var(v) if made.iter().any(|m| m.id == v.id) => {
                let nv = fresh.numbered(PREFIX, sort);
                renaming.push((v.id, var_term(&nv, t.span)));
                if let Some(j) = conjuncts
                    .iter()
                    .position(|f| made_equality(f) == Some(v.id))
                {
                    front.push(conjuncts.remove(j));
                }
                args.push(nv);
            }
            TermKind::Var(v) if !args.iter().any(|a| a.id == v.id) => args.push(v.clone()),
            kind => {
                if let TermKind::Value(value) = kind {
                    let check = program.sort(sort).pred;
                    conjuncts.retain(|f| !is_check(f, check, *value));
                }
                let nv = fresh.numbered(PREFIX, sort);
                let eq = FormulaKind::Cmp(CmpOp::Eq, var_term(&nv, t.span), t.clone());
                front.push(Formula::new(eq, t.span));
                args.push(nv);
            }
        }
    }
    front.extend(conjuncts);
    let body = conjunction(front, r.body.span);
    Plain {
        head: r.head,
        args,
        body: replace_vars(&body, &renaming),
        span: r.span,
    }
}

/// The id of `v` if `f` is `v = t` for a variable `v`.
fn made_equality(f: &Formula) -> Option<u32> {
    match f.kind() {
        FormulaKind::Cmp(CmpOp::Eq, a, _) => match a.kind() {
            TermKind::Var(v) => Some(v.id),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `f` is the sort check `S(value)` with `S`'s predicate `check`.
fn is_check(f: &Formula, check: PredId, value: Value) -> bool {
    match f.kind() {
        FormulaKind::Pred(p, args) if *p == check => {
            matches!(args.as_slice(), [a] if matches!(a.kind(), TermKind::Value(v) if *v == value))
        }
        _ => false,
    }
}

/// `f1 & ... & fn`; the one part itself; `true` for none.
fn conjunction(mut parts: Vec<Formula>, span: Span) -> Formula {
    match parts.len() {
        0 => Formula::new(FormulaKind::Bool(true), span),
        1 => parts.remove(0),
        _ => Formula::new(FormulaKind::And(parts), span),
    }
}

/// `! y : ~B[x/y] | H(y)` with new variables `y` for the rule's head variables `x`.
fn body_implies_head(program: &Program, r: &Plain, fresh: &mut Fresh) -> Formula {
    let ys: Vec<Var> = r
        .args
        .iter()
        .map(|x| fresh.numbered(PREFIX, x.sort))
        .collect();
    let body = renamed(&r.body, &r.args, &ys);
    let head = head_formula(program, r.head, terms(&ys, r.span), r.span);
    let not_body = Formula::new(FormulaKind::Not(Box::new(body)), r.body.span);
    let sentence = Formula::new(FormulaKind::Or(vec![not_body, head]), r.span);
    forall(ys, sentence, r.span)
}

/// `! z : ~H(z) | B1' | ... | Bn'` for the bodies (over `z`) of one symbol's rules.
fn head_implies_bodies(
    program: &Program,
    symbol: Symbol,
    z: Vec<Var>,
    bodies: Vec<Formula>,
    span: Span,
) -> Formula {
    let disjunction = match <[Formula; 1]>::try_from(bodies) {
        Ok([one]) => one,
        Err(many) => Formula::new(FormulaKind::Or(many), span),
    };
    let head = head_formula(program, symbol, terms(&z, span), span);
    let not_head = Formula::new(FormulaKind::Not(Box::new(head)), span);
    let sentence = Formula::new(FormulaKind::Or(vec![not_head, disjunction]), span);
    forall(z, sentence, span)
}

/// A copy of `body` with each variable of `from` replaced by the one at its position in `to`.
fn renamed(body: &Formula, from: &[Var], to: &[Var]) -> Formula {
    let map: Vec<(u32, Term)> = from
        .iter()
        .zip(to)
        .map(|(x, y)| (x.id, var_term(y, body.span)))
        .collect();
    replace_vars(body, &map)
}

fn terms(vars: &[Var], span: Span) -> Vec<Term> {
    vars.iter().map(|v| var_term(v, span)).collect()
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
