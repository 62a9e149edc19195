//! A direct join for rule bodies over two-valued tables, used by the bottom-up evaluation.
//!
//! A body that is a conjunction of literals is evaluated like a database query: the variables
//! are bound in order, each from the smallest index of a positive atom that contains it (or from
//! its sort), and every literal is checked as soon as its variables are bound, by looking its
//! tuple up in the table. Integer arithmetic in arguments and comparisons is computed directly;
//! any other conjunct is handed to the grounder under the same bindings. This avoids building
//! ground formulas for bodies whose value is known anyway, which is most of the cost of
//! evaluating, e.g., reachability over many states with the general grounder.

use crate::ground::Gf;
use std::rc::Rc;

use crate::error::IdpResult;
use crate::ground::{Grounder, TableIndex};
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind, Var};
use crate::structure::{Table, Value};
use crate::syntax::ast::{ArithOp, CmpOp};

/// One conjunct of a body.
enum Lit<'r> {
    /// `P(args)` or `~P(args)` over a two-valued table, with arguments the join computes.
    Atom {
        symbol: Symbol,
        args: &'r [Term],
        positive: bool,
    },
    /// An integer comparison of computable terms.
    Cmp { op: CmpOp, a: &'r Term, b: &'r Term },
    /// Anything else: evaluated by the grounder.
    Other,
}

/// A positive atom that can propose values for the variable at `position` of its arguments.
struct Producer<'r> {
    symbol: Symbol,
    position: usize,
    args: &'r [Term],
    /// The positions whose arguments are known when the variable is bound.
    fixed: Vec<usize>,
}

/// The variables in binding order, and per depth the literals to check and the producers.
pub struct Plan<'r> {
    vars: Vec<Var>,
    checks: Vec<Vec<(Lit<'r>, &'r Formula)>>,
    producers: Vec<Vec<Producer<'r>>>,
    /// Per depth, terms the variable must equal (`v = t` with `t` known before `v`).
    equalities: Vec<Vec<&'r Term>>,
}

/// Plans the join of `body` over `vars`; `None` when some variable has nothing to join on.
pub fn plan<'r>(grounder: &Grounder, vars: &[Var], body: &'r Formula) -> Option<Plan<'r>> {
    if vars.is_empty() {
        return None;
    }
    let mut conjuncts = Vec::new();
    flatten(body, &mut conjuncts);
    let depth_of = |f: &Formula| {
        let mut ids = rustc_hash::FxHashSet::default();
        crate::sema::walk::var_ids(f, &mut ids);
        vars.iter().rposition(|v| ids.contains(&v.id)).unwrap_or(0)
    };
    let mut checks: Vec<Vec<(Lit<'r>, &'r Formula)>> = vars.iter().map(|_| Vec::new()).collect();
    let mut producers: Vec<Vec<Producer<'r>>> = vars.iter().map(|_| Vec::new()).collect();
    let mut equalities: Vec<Vec<&'r Term>> = vars.iter().map(|_| Vec::new()).collect();
    for f in conjuncts {
        let lit = classify(grounder, f);
        if let Lit::Atom {
            symbol,
            args,
            positive: true,
        } = &lit
        {
            for (position, a) in args.iter().enumerate() {
                if let TermKind::Var(v) = a.kind() {
                    if let Some(d) = vars.iter().position(|w| w.id == v.id) {
                        let fixed = (0..args.len())
                            .filter(|&k| k != position && known_before(vars, d, &args[k]))
                            .collect();
                        producers[d].push(Producer {
                            symbol: *symbol,
                            position,
                            args,
                            fixed,
                        });
                    }
                }
            }
        }
        if let Lit::Cmp {
            op: CmpOp::Eq,
            a,
            b,
        } = &lit
        {
            for (x, t) in [(a, b), (b, a)] {
                if let TermKind::Var(v) = x.kind() {
                    if let Some(d) = vars.iter().position(|w| w.id == v.id) {
                        if known_before(vars, d, t) {
                            equalities[d].push(*t);
                        }
                    }
                }
            }
        }
        checks[depth_of(f)].push((lit, f));
    }
    // A variable that only its sort can bind makes the grounder's general binding loop the
    // better choice (it also inverts function tables, e.g. `f(x) = known`).
    if (0..vars.len()).any(|d| producers[d].is_empty() && equalities[d].is_empty()) {
        return None;
    }
    Some(Plan {
        vars: vars.to_vec(),
        checks,
        producers,
        equalities,
    })
}

/// Whether every variable of `t` is bound before depth `d`.
fn known_before(vars: &[Var], d: usize, t: &Term) -> bool {
    let mut ids = rustc_hash::FxHashSet::default();
    crate::sema::walk::var_ids(t, &mut ids);
    ids.iter().all(|id| vars[..d].iter().any(|v| v.id == *id))
}

fn flatten<'r>(f: &'r Formula, out: &mut Vec<&'r Formula>) {
    match f.kind() {
        FormulaKind::And(fs) => fs.iter().for_each(|g| flatten(g, out)),
        _ => out.push(f),
    }
}

fn classify<'r>(grounder: &Grounder, f: &'r Formula) -> Lit<'r> {
    let (inner, positive) = match f.kind() {
        FormulaKind::Not(g) => (g.as_ref(), false),
        _ => (f, true),
    };
    match inner.kind() {
        FormulaKind::Pred(p, args)
            if args.iter().all(computable)
                && grounder.program().pred(*p).type_of.is_none()
                && matches!(
                    grounder.structure().table(Symbol::Pred(*p)),
                    Some(Table::TwoValued(_))
                ) =>
        {
            Lit::Atom {
                symbol: Symbol::Pred(*p),
                args,
                positive,
            }
        }
        FormulaKind::Cmp(op, a, b) if positive && computable(a) && computable(b) => {
            Lit::Cmp { op: *op, a, b }
        }
        _ => Lit::Other,
    }
}

/// Whether the join computes `t` itself: variables, integers and integer arithmetic.
fn computable(t: &Term) -> bool {
    match t.kind() {
        TermKind::Var(_) | TermKind::Value(Value::Int(_)) => true,
        TermKind::Arith(ArithOp::Add | ArithOp::Sub | ArithOp::Mul, a, b) => {
            computable(a) && computable(b)
        }
        TermKind::Neg(a) => computable(a),
        _ => false,
    }
}

/// The value of a computable term under the grounder's bindings.
fn eval(g: &Grounder, t: &Term) -> Option<i64> {
    match t.kind() {
        TermKind::Var(v) => match g.lookup(v)? {
            Value::Int(i) => Some(i),
            _ => None,
        },
        TermKind::Value(Value::Int(i)) => Some(*i),
        TermKind::Arith(op, a, b) => {
            let (x, y) = (eval(g, a)?, eval(g, b)?);
            match op {
                ArithOp::Add => x.checked_add(y),
                ArithOp::Sub => x.checked_sub(y),
                ArithOp::Mul => x.checked_mul(y),
                _ => None,
            }
        }
        TermKind::Neg(a) => eval(g, a)?.checked_neg(),
        _ => None,
    }
}

/// A computable term's value, also for non-integer variables.
fn value(g: &Grounder, t: &Term) -> Option<Value> {
    match t.kind() {
        TermKind::Var(v) => g.lookup(v),
        _ => eval(g, t).map(Value::Int),
    }
}

/// Whether a literal holds under the current bindings; `None` when it is not decided.
fn holds(g: &mut Grounder, lit: &Lit, f: &Formula) -> IdpResult<Option<bool>> {
    let computed = match lit {
        Lit::Atom {
            symbol,
            args,
            positive,
        } => {
            let tuple: Option<Vec<Value>> = args.iter().map(|a| value(g, a)).collect();
            tuple.map(|t| {
                let found = match g.structure().table(*symbol) {
                    Some(Table::TwoValued(set)) => set.contains(&t),
                    _ => false,
                };
                found == *positive
            })
        }
        Lit::Cmp { op, a, b } => match (eval(g, a), eval(g, b)) {
            (Some(x), Some(y)) => Some(op.holds(x, y)),
            _ => None,
        },
        Lit::Other => None,
    };
    if computed.is_some() {
        return Ok(computed);
    }
    let ground = g.ground_formula(f)?;
    Ok(if ground == Gf::TRUE {
        Some(true)
    } else if ground == Gf::FALSE {
        Some(false)
    } else {
        None
    })
}

impl Plan<'_> {
    /// Calls `visit` for every binding of the variables under which the body is true. Returns
    /// `false` when some literal could not be decided (the caller then falls back).
    pub fn run(
        &self,
        g: &mut Grounder,
        visit: &mut dyn FnMut(&mut Grounder) -> IdpResult<()>,
    ) -> IdpResult<bool> {
        let indexes: Vec<Vec<Rc<TableIndex>>> = self
            .producers
            .iter()
            .map(|ps| {
                ps.iter()
                    .map(|p| g.table_index(p.symbol, p.position, &p.fixed))
                    .collect()
            })
            .collect();
        let decided = self.bind_from(g, &indexes, 0, visit)?;
        for v in &self.vars {
            g.unbind(v);
        }
        Ok(decided)
    }

    fn bind_from(
        &self,
        g: &mut Grounder,
        indexes: &[Vec<Rc<TableIndex>>],
        depth: usize,
        visit: &mut dyn FnMut(&mut Grounder) -> IdpResult<()>,
    ) -> IdpResult<bool> {
        let Some(var) = self.vars.get(depth) else {
            visit(g)?;
            return Ok(true);
        };
        let Some(candidates) = self.candidates(g, &indexes[depth], depth) else {
            return Ok(false);
        };
        'values: for &v in candidates.iter() {
            g.bind(var, v);
            // A join can run long: count the binding so that the limits are checked.
            g.step()?;
            for (lit, f) in &self.checks[depth] {
                match holds(g, lit, f)? {
                    Some(true) => {}
                    Some(false) => continue 'values,
                    None => return Ok(false),
                }
            }
            if !self.bind_from(g, indexes, depth + 1, visit)? {
                return Ok(false);
            }
        }
        g.unbind(var);
        Ok(true)
    }

    /// The values to try for the variable at `depth`: the smallest index entry of a producer,
    /// else the variable's sort. `None` for an infinite sort without a producer.
    fn candidates(
        &self,
        g: &mut Grounder,
        indexes: &[Rc<TableIndex>],
        depth: usize,
    ) -> Option<Rc<[Value]>> {
        let var = &self.vars[depth];
        let mut best: Option<Rc<[Value]>> = None;
        // An equality with a computed term gives one candidate (checked again as a literal).
        if let Some(v) = self.equalities[depth].iter().find_map(|t| eval(g, t)) {
            best = Some(Rc::from(vec![Value::Int(v)]));
        }
        for (p, index) in self.producers[depth].iter().zip(indexes) {
            let key: Option<Vec<Value>> = p.fixed.iter().map(|&k| value(g, &p.args[k])).collect();
            // A key that cannot be computed (not an integer) gives no candidates here.
            let Some(key) = key else { continue };
            let found = index
                .get(&key)
                .cloned()
                .unwrap_or_else(|| Rc::from(Vec::new()));
            if best.as_ref().is_none_or(|b| found.len() < b.len()) {
                best = Some(found);
            }
        }
        match best {
            Some(found) if found.iter().all(|v| g.domains().contains(var.sort, *v)) => Some(found),
            Some(found) => Some(
                found
                    .iter()
                    .copied()
                    .filter(|v| g.domains().contains(var.sort, *v))
                    .collect(),
            ),
            None => g.domains().get(var.sort),
        }
    }
}
