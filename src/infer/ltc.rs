//! LTC inferences (reference §13): `initialise`, `progress` and `isinvariant`, built on model
//! expansion over a small time window.
//!
//! The theory is instantiated on the window `Time = {0..n}` with `Start = 0`, `Next = {i->i+1}`
//! and `Next` made partial (so `Next(n)` is undefined). Sentences that mention `Next(t)` are
//! guarded by "`Next(t)` exists" on their time quantifiers, so they only constrain transitions
//! inside the window. States are the projections of the models on one time point (structures
//! over the single-state vocabulary `V_ss`).
//!
//! * `initialise`: window {0}, projected on 0.
//! * `progress`: window {0,1} without the initial-state axioms and rules; the given state is
//!   fixed at 0 (open symbols through the structure, defined symbols through facts added to their
//!   definitions); projected on 1.
//! * `isinvariant`: induction: no initial state violates the invariant, and no transition from a
//!   state satisfying it (defined symbols made open at 0) leads to a state violating it.

use std::collections::HashSet;
use std::rc::Rc;

use crate::error::{Error, IdpResult};
use crate::infer;
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::program::{FuncId, LtcInfo, Predicate, Program, SortId, Symbol, Theory};
use crate::sema::walk::{any_term, substitute, Node, Rewriter};
use crate::structure::structure::{Structure, Table, TupleSet};
use crate::structure::value::{Tuple, Value};
use crate::syntax::ast::{CmpOp, Span};

fn ltc_info<'a>(program: &'a Program, theory: &Theory, what: &str) -> IdpResult<&'a LtcInfo> {
    program.voc(theory.vocabulary).ltc.as_ref().ok_or_else(|| {
        Error::input(format!(
            "{what}: the theory {} is not over an LTC vocabulary (one with a type Time, a constant Start : Time and a function Next(Time) : Time)",
            theory.name
        ))
    })
}

/// A copy of the program in which Next is partial (the window's last point has no successor).
fn window_program(program: &Program, info: &LtcInfo) -> Program {
    let mut p = program.clone();
    p.funcs[info.next.index()].partial = true;
    p
}

/// Sets Time = {0..n}, Start = 0, Next = {i -> i+1} and removes the time-dependent tables.
fn set_window(info: &LtcInfo, s: &mut Structure, n: i64) {
    s.set_domain(info.time, (0..=n).map(Value::Int).collect());
    s.symbols.insert(
        Symbol::Func(info.start),
        Table::TwoValued([vec![Value::Int(0)]].into_iter().collect()),
    );
    s.symbols.insert(
        Symbol::Func(info.next),
        Table::TwoValued(
            (0..n)
                .map(|i| vec![Value::Int(i), Value::Int(i + 1)])
                .collect(),
        ),
    );
    for sym in info.time_arg.keys() {
        s.symbols.shift_remove(sym);
    }
}

// ---------------------------------------------------------------------------------------------
// Formula utilities
// ---------------------------------------------------------------------------------------------

/// Whether some term of `f` applies `symbol`.
fn applies(f: &Formula, symbol: FuncId) -> bool {
    any_term(
        f,
        &mut |t| matches!(t.kind(), TermKind::Func(g, _) if *g == symbol),
    )
}

fn mentions_start(info: &LtcInfo, f: &Formula) -> bool {
    applies(f, info.start)
}

fn rule_mentions_start(info: &LtcInfo, r: &Rule) -> bool {
    let start = info.start;
    mentions_start(info, &r.body)
        || r.head_args.iter().any(|a| {
            any_term(
                a,
                &mut |t| matches!(t.kind(), TermKind::Func(g, _) if *g == start),
            )
        })
}

/// Whether `f` has the term `Next(v)`.
fn next_of_var(next: FuncId, v: &Var, f: &Formula) -> bool {
    any_term(f, &mut |t| match t.kind() {
        TermKind::Func(g, args) if *g == next => {
            matches!(args.as_slice(), [a] if matches!(a.kind(), TermKind::Var(w) if w.id == v.id))
        }
        _ => false,
    })
}

/// `? y : Next(t) = y`: the time point `t` has a successor in the window.
fn has_next(info: &LtcInfo, v: &Var, span: Span, fresh: &mut u32) -> Formula {
    *fresh += 1;
    let y = Var {
        id: *fresh,
        name: Rc::from("__next"),
        sort: info.time,
    };
    let tv = Term::new(TermKind::Var(v.clone()), info.time, span);
    let next_t = Term::new(TermKind::Func(info.next, vec![tv]), info.time, span);
    let yv = Term::new(TermKind::Var(y.clone()), info.time, span);
    Formula::new(
        FormulaKind::Exists(
            vec![y],
            Box::new(Formula::new(FormulaKind::Cmp(CmpOp::Eq, next_t, yv), span)),
        ),
        span,
    )
}

/// Restricts every time quantifier whose variable `t` occurs as `Next(t)` to points with a
/// successor (quantifiers inside terms are left as they are).
struct Guard<'i> {
    info: &'i LtcInfo,
    /// The last variable id given out.
    fresh: u32,
}

impl Rewriter for Guard<'_> {
    fn formula(&mut self, f: &Formula) -> Formula {
        let (vs, g, forall) = match f.kind() {
            FormulaKind::Forall(vs, g) => (vs, g, true),
            FormulaKind::Exists(vs, g) => (vs, g, false),
            _ => return f.rebuild(self),
        };
        let span = f.span;
        let body = self.formula(g);
        let info = self.info;
        let guards: Vec<Formula> = vs
            .iter()
            .filter(|v| v.sort == info.time && next_of_var(info.next, v, g))
            .map(|v| has_next(info, v, span, &mut self.fresh))
            .collect();
        let body = if guards.is_empty() {
            body
        } else if forall {
            let cond = if guards.len() == 1 {
                guards.into_iter().next().expect("one guard")
            } else {
                Formula::new(FormulaKind::And(guards), span)
            };
            Formula::new(FormulaKind::Implies(Box::new(cond), Box::new(body)), span)
        } else {
            let mut all = guards;
            all.push(body);
            Formula::new(FormulaKind::And(all), span)
        };
        let kind = if forall {
            FormulaKind::Forall(vs.clone(), Box::new(body))
        } else {
            FormulaKind::Exists(vs.clone(), Box::new(body))
        };
        Formula::new(kind, span)
    }

    fn term(&mut self, t: &Term) -> Term {
        t.clone()
    }
}

/// The largest variable id used in `node` (bound or occurring).
fn max_var<'a>(node: impl Into<Node<'a>>) -> u32 {
    node.into().fold(0, &mut |m, n| {
        let bound = n.binds().iter().map(|v| v.id).max().unwrap_or(0);
        m.max(bound).max(n.var().map_or(0, |v| v.id))
    })
}

fn subst(f: &Formula, var: &Var, value: Value) -> Formula {
    substitute(f, &[(var.id, value)])
}

/// An invariant sentence `! t ... : phi(t)` instantiated at time point `at`.
fn at_time(info: &LtcInfo, f: &Formula, at: i64) -> Formula {
    if let FormulaKind::Forall(vs, body) = f.kind() {
        if let Some(t) = vs.iter().find(|v| v.sort == info.time) {
            let rest: Vec<Var> = vs.iter().filter(|v| v.id != t.id).cloned().collect();
            let inner = subst(body, t, Value::Int(at));
            return if rest.is_empty() {
                inner
            } else {
                Formula::new(FormulaKind::Forall(rest, Box::new(inner)), f.span)
            };
        }
    }
    f.clone()
}

/// Whether some Time variable is quantified other than universally (by polarity), or inside the
/// scope of another quantifier. `pos`: `Some(true)` positive, `Some(false)` negative, `None` both.
fn bad_time_quantifier(info: &LtcInfo, f: &Formula, pos: Option<bool>, under_quant: bool) -> bool {
    let flip = |p: Option<bool>| p.map(|b| !b);
    match f.kind() {
        FormulaKind::Forall(vs, g) | FormulaKind::Exists(vs, g) => {
            let forall = matches!(f.kind(), FormulaKind::Forall(..));
            if vs.iter().any(|v| v.sort == info.time) {
                let universal = match pos {
                    Some(p) => forall == p,
                    None => false,
                };
                if !universal || under_quant {
                    return true;
                }
                bad_time_quantifier(info, g, pos, false)
            } else {
                bad_time_quantifier(info, g, pos, true)
            }
        }
        FormulaKind::Not(g) => bad_time_quantifier(info, g, flip(pos), under_quant),
        FormulaKind::And(fs) | FormulaKind::Or(fs) => fs
            .iter()
            .any(|g| bad_time_quantifier(info, g, pos, under_quant)),
        FormulaKind::Implies(a, b) => {
            bad_time_quantifier(info, a, flip(pos), under_quant)
                || bad_time_quantifier(info, b, pos, under_quant)
        }
        FormulaKind::Equiv(a, b) => {
            bad_time_quantifier(info, a, None, under_quant)
                || bad_time_quantifier(info, b, None, under_quant)
        }
        FormulaKind::Bool(_) | FormulaKind::Pred(..) | FormulaKind::Cmp(..) => false,
    }
}

fn nested_time_quantifier(info: &LtcInfo, f: &Formula) -> bool {
    bad_time_quantifier(info, f, Some(true), false)
}

/// Whether a rule body quantifies a Time variable.
fn body_time_quantifier(info: &LtcInfo, f: &Formula) -> bool {
    formula_quantifies(f, info.time)
}

/// Whether a quantifier of `f` (outside its terms) binds a variable of sort `time`.
fn formula_quantifies(f: &Formula, time: SortId) -> bool {
    Node::from(f).any(&mut |n| match n {
        Node::Formula(_) => n.binds().iter().any(|v| v.sort == time),
        Node::Term(_) | Node::Set(_) => false,
    })
}

/// IDP3's restrictions on LTC theories: Time variables are universally quantified at the top
/// level of sentences and rules.
fn validate(info: &LtcInfo, theory: &Theory, what: &str) -> IdpResult<()> {
    for f in &theory.sentences {
        if nested_time_quantifier(info, f) {
            return Err(Error::input(format!(
                "{what}: in LTC theories, time variables may only be quantified universally at the top level of a sentence"
            )));
        }
    }
    for d in &theory.definitions {
        for r in &d.rules {
            if body_time_quantifier(info, &r.body) {
                return Err(Error::input(format!(
                    "{what}: in LTC theories, time variables may only be quantified universally at the top level of a rule"
                )));
            }
        }
    }
    Ok(())
}

/// The theory on the window: guarded sentences, optionally without the initial-state parts.
fn window_theory(info: &LtcInfo, theory: &Theory, drop_initial: bool) -> Theory {
    let mut fresh = theory.sentences.iter().map(max_var).max().unwrap_or(0);
    for d in &theory.definitions {
        for r in &d.rules {
            for v in &r.vars {
                fresh = fresh.max(v.id);
            }
            fresh = fresh.max(max_var(&r.body));
        }
    }
    let mut guard = Guard {
        info,
        fresh: fresh + 1000,
    };
    let mut t = theory.clone();
    t.sentences = theory
        .sentences
        .iter()
        .filter(|f| !(drop_initial && mentions_start(info, f)))
        .map(|f| guard.formula(f))
        .collect();
    if drop_initial {
        for d in &mut t.definitions {
            d.rules.retain(|r| !rule_mentions_start(info, r));
        }
    }
    t
}

fn value_term(v: Value, sort: SortId, span: Span) -> Term {
    Term::new(TermKind::Value(v), sort, span)
}

fn defined_symbols(theory: &Theory) -> HashSet<Symbol> {
    theory
        .definitions
        .iter()
        .flat_map(|d| d.defined())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// States
// ---------------------------------------------------------------------------------------------

/// The state at time point `at` of a model over the LTC vocabulary, over `V_ss`.
fn project(program: &Program, info: &LtcInfo, m: &Structure, at: Value) -> Structure {
    let ss = info
        .single_state
        .expect("LTC vocabularies have a single-state vocabulary");
    let mut out = Structure::new("", ss);
    for &so in &program.voc(ss).sorts {
        if let Some(d) = m.domain(so) {
            out.sorts.insert(so, d.to_vec());
        }
    }
    let pick = |set: &TupleSet, k: usize| -> TupleSet {
        set.iter()
            .filter(|t| t.get(k) == Some(&at))
            .map(|t| {
                let mut t = t.clone();
                t.remove(k);
                t
            })
            .collect()
    };
    for (sym, table) in &m.symbols {
        match info.time_arg.get(sym) {
            None => {
                if *sym != Symbol::Func(info.start) && *sym != Symbol::Func(info.next) {
                    out.symbols.insert(*sym, table.clone());
                }
            }
            Some(&k) => {
                let target = info.projection[sym];
                let t = match table {
                    Table::TwoValued(s) => Table::TwoValued(pick(s, k)),
                    Table::ThreeValued { ct, cf } => Table::ThreeValued {
                        ct: pick(ct, k),
                        cf: pick(cf, k),
                    },
                };
                out.symbols.insert(target, t);
            }
        }
    }
    out
}

/// The states without repetitions (compared by their interpretations), in order.
fn dedup_states(states: Vec<Structure>) -> Vec<Structure> {
    let mut kept: Vec<Structure> = Vec::new();
    for s in states {
        if !kept.iter().any(|k| k.same_interpretation(&s)) {
            kept.push(s);
        }
    }
    kept
}

fn run_mx(
    program: &Program,
    theory: &Theory,
    s: &Structure,
    opts: &infer::Options,
) -> IdpResult<Vec<Structure>> {
    infer::modelexpand(program, theory, s, None, opts).map(|found| found.value)
}

pub fn initialise(
    program: &Program,
    theory: &Theory,
    s: &Structure,
    opts: &infer::Options,
) -> IdpResult<Vec<Structure>> {
    let info = ltc_info(program, theory, "initialise")?;
    validate(info, theory, "initialise")?;
    if s.vocabulary != theory.vocabulary {
        return Err(Error::input(
            "initialise: the theory and the structure should range over the same (LTC) vocabulary",
        ));
    }
    let wp = window_program(program, info);
    let mut ws = s.clone();
    set_window(info, &mut ws, 0);
    let wt = window_theory(info, theory, false);
    let models = run_mx(&wp, &wt, &ws, opts)?;
    let states = models
        .iter()
        .map(|m| project(program, info, m, Value::Int(0)))
        .collect();
    Ok(dedup_states(states))
}

pub fn progress(
    program: &Program,
    theory: &Theory,
    state: &Structure,
    opts: &infer::Options,
) -> IdpResult<Vec<Structure>> {
    let info = ltc_info(program, theory, "progress")?;
    validate(info, theory, "progress")?;
    let ss = info
        .single_state
        .expect("LTC vocabularies have a single-state vocabulary");
    if state.vocabulary != ss {
        return Err(Error::input(format!(
            "The structure given to the progression inference should range over vocabulary {} but ranges over {}",
            program.voc(ss).name,
            program.voc(state.vocabulary).name
        )));
    }
    let wp = window_program(program, info);
    let mut ws = Structure::new("", theory.vocabulary);
    for (so, d) in &state.sorts {
        ws.sorts.insert(*so, d.clone());
    }
    set_window(info, &mut ws, 1);
    let mut wt = window_theory(info, theory, true);
    let defined = defined_symbols(theory);
    let zero = Value::Int(0);
    for (&sym, &k) in &info.time_arg {
        let proj = info.projection[&sym];
        let (ct, cf) = crate::sema::domains::ct_cf(program, state, proj);
        let lift = |t: &Tuple| {
            let mut t = t.clone();
            t.insert(k, zero);
            t
        };
        if defined.contains(&sym) {
            // Facts in the symbol's definition fix its value at time 0.
            let sorts = program.symbol_sorts(sym);
            let d = wt
                .definitions
                .iter_mut()
                .find(|d| d.defined().contains(&sym))
                .expect("defined symbol has a definition");
            let span = d.span;
            for t in &ct {
                let lifted = lift(t);
                let head_args = lifted
                    .iter()
                    .zip(&sorts)
                    .map(|(v, so)| value_term(*v, *so, span))
                    .collect();
                d.rules.push(Rule {
                    vars: vec![],
                    head: sym,
                    head_args,
                    body: Formula::new(FormulaKind::Bool(true), span),
                    span,
                });
            }
        } else {
            let cf = cf.ok_or_else(|| {
                Error::input(format!(
                    "progress: the state does not interpret all types of {}",
                    program.symbol_name(proj)
                ))
            })?;
            ws.symbols.insert(
                sym,
                Table::ThreeValued {
                    ct: ct.iter().map(&lift).collect(),
                    cf: cf.iter().map(&lift).collect(),
                },
            );
        }
    }
    for (sym, table) in &state.symbols {
        if !info.projection.values().any(|p| p == sym) {
            ws.symbols.insert(*sym, table.clone());
        }
    }
    let models = run_mx(&wp, &wt, &ws, opts)?;
    let states = models
        .iter()
        .map(|m| project(program, info, m, Value::Int(1)))
        .collect();
    Ok(dedup_states(states))
}

pub fn isinvariant(
    program: &Program,
    theory: &Theory,
    inv: &Theory,
    s: &Structure,
    opts: &infer::Options,
) -> IdpResult<bool> {
    let info = ltc_info(program, theory, "isinvariant")?;
    validate(info, theory, "isinvariant")?;
    // A bistate invariant (one mentioning Next) is about transitions: it needs one more point.
    let w: i64 = if inv.sentences.iter().any(|f| applies(f, info.next)) {
        1
    } else {
        0
    };
    let mut one = opts.clone();
    one.nbmodels = 1;
    let span = Span::default();
    let conj = |fs: Vec<Formula>| Formula::new(FormulaKind::And(fs), span);
    // Base case: no initial state violates the invariant.
    let wp = window_program(program, info);
    let mut ws = s.clone();
    ws.vocabulary = theory.vocabulary;
    set_window(info, &mut ws, w);
    let mut base = window_theory(info, theory, false);
    let inv0: Vec<Formula> = inv.sentences.iter().map(|f| at_time(info, f, 0)).collect();
    base.sentences.push(Formula::new(
        FormulaKind::Not(Box::new(conj(inv0.clone()))),
        span,
    ));
    if !run_mx(&wp, &base, &ws, &one)?.is_empty() {
        return Ok(false);
    }
    // Inductive step, with the defined time-dependent symbols open at time 0.
    let mut wp = window_program(program, info);
    let mut ws = s.clone();
    ws.vocabulary = theory.vocabulary;
    set_window(info, &mut ws, w + 1);
    let mut step = window_theory(info, theory, true);
    let defined = defined_symbols(theory);
    for (&sym, &k) in &info.time_arg {
        if !defined.contains(&sym) {
            continue;
        }
        let sorts = program.symbol_sorts(sym);
        let mut open_sorts = sorts.clone();
        open_sorts.remove(k);
        let open = crate::sema::program::PredId(wp.preds.len() as u32);
        wp.preds.push(Predicate {
            name: format!("__open_{}", program.symbol_name(sym)),
            args: open_sorts.clone(),
            type_of: None,
            span: None,
        });
        wp.vocabularies[theory.vocabulary.index()]
            .preds
            .insert(open);
        let vars: Vec<Var> = open_sorts
            .iter()
            .enumerate()
            .map(|(i, &so)| Var {
                id: 900_000 + i as u32,
                name: Rc::from(format!("__x{i}")),
                sort: so,
            })
            .collect();
        let var_terms: Vec<Term> = vars
            .iter()
            .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, span))
            .collect();
        let mut head_args = var_terms.clone();
        head_args.insert(k, value_term(Value::Int(0), info.time, span));
        let body = Formula::new(FormulaKind::Pred(open, var_terms), span);
        let rule = Rule {
            vars,
            head: sym,
            head_args,
            body,
            span,
        };
        if let Some(d) = step
            .definitions
            .iter_mut()
            .find(|d| d.defined().contains(&sym))
        {
            d.rules.push(rule);
        } else {
            step.definitions.push(Definition {
                rules: vec![rule],
                span,
            });
        }
    }
    let inv1: Vec<Formula> = inv.sentences.iter().map(|f| at_time(info, f, 1)).collect();
    step.sentences.extend(inv0);
    step.sentences
        .push(Formula::new(FormulaKind::Not(Box::new(conj(inv1))), span));
    Ok(run_mx(&wp, &step, &ws, &one)?.is_empty())
}
