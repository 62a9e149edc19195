//! Bounds of an integer constant from the sentences that compare it with numbers.
//!
//! IDP-Z3 leaves a constant onto `Int` to Z3; grounding needs its values. The handyman of
//! IDP-Z3's tutorial says `weight() > 0.` and, for every method, `method() = Nail =>
//! weight() =< 25.`: every model gives `weight` a value from 1 to the largest of those bounds.
//! A bound holds when a top-level sentence states it, or when, for a constant of a finite type,
//! a sentence `g() = v => ...` states one for every value `v` of `g` (the largest of them
//! then bounds from above, the least from below). Grounding the constant over the values
//! between its bounds keeps every model.

use std::collections::HashMap;

use crate::ground::{GVal, Grounder};
use crate::ids::FuncId;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind};
use crate::structure::Value;
use crate::syntax::ast::CmpOp;

/// Most values a constant is grounded over by its bounds.
const MAX_VALUES: i64 = 100_000;

/// The least and greatest value a comparison allows (`None`: unbounded on that side).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Interval {
    low: Option<i64>,
    high: Option<i64>,
}

impl Interval {
    /// What `c op k` allows for `c`.
    fn of(op: CmpOp, k: i64) -> Interval {
        match op {
            CmpOp::Gt => Interval::from(k.checked_add(1), None),
            CmpOp::Ge => Interval::from(Some(k), None),
            CmpOp::Lt => Interval::from(None, k.checked_sub(1)),
            CmpOp::Le => Interval::from(None, Some(k)),
            CmpOp::Eq => Interval::from(Some(k), Some(k)),
            CmpOp::Ne => Interval::default(),
        }
    }

    fn from(low: Option<i64>, high: Option<i64>) -> Interval {
        Interval { low, high }
    }

    /// What both allow.
    fn meet(self, other: Interval) -> Interval {
        let pick = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| match (a, b) {
            (Some(x), Some(y)) => Some(f(x, y)),
            (x, None) => x,
            (None, y) => y,
        };
        Interval::from(
            pick(self.low, other.low, i64::max),
            pick(self.high, other.high, i64::min),
        )
    }

    /// What either allows (unbounded on a side where one is).
    fn join(self, other: Interval) -> Interval {
        let both = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| Some(f(a?, b?));
        Interval::from(
            both(self.low, other.low, i64::min),
            both(self.high, other.high, i64::max),
        )
    }
}

/// A comparison of an unbounded integer constant with a number, under an optional case
/// `g() = v` of a constant of a finite type.
struct Bound {
    constant: FuncId,
    case: Option<(FuncId, Value)>,
    allows: Interval,
}

impl Grounder<'_> {
    /// Gives each integer constant that the sentences bound on both sides the values between
    /// its bounds (see the module documentation).
    pub fn bound_constants_by_comparisons(&mut self, sentences: &[Formula]) {
        let mut conjuncts = Vec::new();
        top_level_conjuncts(sentences, &mut conjuncts);
        let bounds: Vec<Bound> = conjuncts.iter().filter_map(|f| self.bound_of(f)).collect();
        let mut constants: Vec<FuncId> = bounds.iter().map(|b| b.constant).collect();
        constants.sort();
        constants.dedup();
        for c in constants {
            let mine: Vec<&Bound> = bounds.iter().filter(|b| b.constant == c).collect();
            let allows = self.interval_of(&mine);
            if let (Some(low), Some(high)) = (allows.low, allows.high) {
                if low <= high && high - low < MAX_VALUES {
                    let values: Vec<Value> = (low..=high).map(Value::Int).collect();
                    self.constants.insert(c, values.into());
                }
            }
        }
    }

    /// What the bounds of one constant allow: the unconditional ones, met with what the cases
    /// of each finite constant allow together when they cover all its values.
    fn interval_of(&mut self, bounds: &[&Bound]) -> Interval {
        let mut allows = Interval::default();
        for b in bounds.iter().filter(|b| b.case.is_none()) {
            allows = allows.meet(b.allows);
        }
        let mut cases: HashMap<FuncId, HashMap<Value, Interval>> = HashMap::new();
        for b in bounds {
            if let Some((g, v)) = b.case {
                let of_value = cases.entry(g).or_default().entry(v).or_default();
                *of_value = of_value.meet(b.allows);
            }
        }
        for (g, by_value) in cases {
            let Ok(values) = self.result_domain(g) else {
                continue;
            };
            let each = values
                .iter()
                .map(|v| by_value.get(v).copied().unwrap_or_default().meet(allows));
            if let Some(together) = each.reduce(Interval::join) {
                allows = allows.meet(together);
            }
        }
        allows
    }

    /// The bound a sentence states: `c op k`, or `g() = v => c op k`.
    fn bound_of(&mut self, f: &Formula) -> Option<Bound> {
        match f.kind() {
            FormulaKind::Cmp(op, a, b) => self.comparison(*op, a, b),
            FormulaKind::Implies(guard, then) => {
                let FormulaKind::Cmp(op, a, b) = then.kind() else {
                    return None;
                };
                let case = self.case_of(guard)?;
                let bound = self.comparison(*op, a, b)?;
                Some(Bound {
                    case: Some(case),
                    ..bound
                })
            }
            _ => None,
        }
    }

    /// `c op k` or `k op c` with `c` an unbounded integer constant and `k` a number.
    fn comparison(&self, op: CmpOp, a: &Term, b: &Term) -> Option<Bound> {
        let (c, k, op) = match (self.unbounded_constant(a), number(b)) {
            (Some(c), Some(k)) => (c, k, op),
            _ => (self.unbounded_constant(b)?, number(a)?, op.mirrored()),
        };
        Some(Bound {
            constant: c,
            case: None,
            allows: Interval::of(op, k),
        })
    }

    /// `g() = v` with `g` a constant of a finite type and `v` a value or a constructor.
    fn case_of(&mut self, guard: &Formula) -> Option<(FuncId, Value)> {
        let FormulaKind::Cmp(CmpOp::Eq, a, b) = guard.kind() else {
            return None;
        };
        let (g, v) = match (finite_constant(self, a), self.fixed_value(b)) {
            (Some(g), Some(v)) => (g, v),
            _ => (finite_constant(self, b)?, self.fixed_value(a)?),
        };
        Some((g, v))
    }

    /// The function of `t` when it is a constant onto an infinite integer type that no
    /// structure or earlier bound fixes.
    fn unbounded_constant(&self, t: &Term) -> Option<FuncId> {
        let TermKind::Func(c, args) = t.kind() else {
            return None;
        };
        let result = self.program.func(*c).result;
        let unbounded = args.is_empty()
            && !self.constants.contains_key(c)
            && self.domains.get(result).is_none()
            && self.program.sort(result).name == "int";
        unbounded.then_some(*c)
    }

    /// The value of a number or of a constructor without arguments.
    fn fixed_value(&mut self, t: &Term) -> Option<Value> {
        match t.kind() {
            TermKind::Value(v) => Some(*v),
            TermKind::Func(f, args) if args.is_empty() => {
                self.program.func(*f).constructor_of?;
                match self.ground_term(t).ok()?.0.as_slice() {
                    [(_, GVal::V(v))] => Some(*v),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The function of `t` when it is a constant onto a finite type.
fn finite_constant(grounder: &Grounder<'_>, t: &Term) -> Option<FuncId> {
    let TermKind::Func(g, args) = t.kind() else {
        return None;
    };
    let func = grounder.program.func(*g);
    let finite = args.is_empty()
        && func.constructor_of.is_none()
        && grounder.domains.get(func.result).is_some();
    finite.then_some(*g)
}

/// The integer `t` is, when it is a number (or a negated one).
fn number(t: &Term) -> Option<i64> {
    match t.kind() {
        TermKind::Value(v) => v.as_int(),
        TermKind::Neg(inner) => number(inner)?.checked_neg(),
        _ => None,
    }
}

/// The sentences, with their conjunctions split.
fn top_level_conjuncts<'f>(sentences: &'f [Formula], out: &mut Vec<&'f Formula>) {
    for f in sentences {
        match f.kind() {
            FormulaKind::And(parts) => top_level_conjuncts(parts, out),
            _ => out.push(f),
        }
    }
}
