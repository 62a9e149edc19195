//! Grounding terms into [`GTerm`]s: guarded value sets. Known parts evaluate to a single value;
//! unknown function applications split into one case per possible value; arithmetic combines
//! the cases of its operands.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet as HashSet;

use crate::error::{Error, IdpResult};
use crate::ground::store::{Gf, SliceKey};
use crate::ground::{position_bit, Cases, GTerm, GVal, Grounder};
use crate::ids::{FuncId, Symbol};
use crate::sema::ir::{Term, TermKind};
use crate::structure::{TruthValue, Value};
use crate::syntax::ast::ArithOp;

impl<'a> Grounder<'a> {
    pub fn ground_term(&mut self, t: &Term) -> IdpResult<GTerm> {
        match t.kind() {
            TermKind::Var(v) => match self.lookup(v) {
                Some(x) => Ok(GTerm::known(x)),
                None => Err(Error::internal(format!(
                    "internal: unbound variable {}",
                    v.name
                ))),
            },
            TermKind::Value(v) => Ok(GTerm::known(*v)),
            TermKind::Func(f, args) => {
                // A function application without variables (`getX(Entrance)`) is grounded once.
                match self.memo.closed_terms.get(&t.id()) {
                    Some(Some(cached)) => return Ok(cached.clone()),
                    Some(None) => return self.ground_application(*f, args),
                    None => {}
                }
                let result = self.ground_application(*f, args)?;
                let mut vars = HashSet::default();
                crate::sema::walk::var_ids(t, &mut vars);
                self.memo
                    .closed_terms
                    .insert(t.id(), vars.is_empty().then(|| result.clone()));
                Ok(result)
            }
            TermKind::Arith(op, a, b) => {
                let (ga, gb) = (self.ground_term(a)?, self.ground_term(b)?);
                Ok(self.combine(&ga, &gb, |x, y| arith(*op, x, y)))
            }
            TermKind::Neg(a) => {
                let ga = self.ground_term(a)?;
                Ok(self.map_values(&ga, |x| arith(ArithOp::Sub, Value::Int(0), x)))
            }
            TermKind::Abs(a) => {
                let ga = self.ground_term(a)?;
                Ok(self.map_values(&ga, abs))
            }
            TermKind::SortMin(s) => Ok(match builtin_extreme(self.program, *s, false) {
                Some(v) => GTerm::known(v),
                None => self
                    .domain(*s)?
                    .first()
                    .map(|v| GTerm::known(*v))
                    .unwrap_or_default(),
            }),
            TermKind::SortMax(s) => Ok(match builtin_extreme(self.program, *s, true) {
                Some(v) => GTerm::known(v),
                None => self
                    .domain(*s)?
                    .last()
                    .map(|v| GTerm::known(*v))
                    .unwrap_or_default(),
            }),
            TermKind::Succ(s, a) | TermKind::Pred(s, a) => {
                let step: isize = if matches!(t.kind(), TermKind::Succ(..)) {
                    1
                } else {
                    -1
                };
                let dom = self.domain(*s)?;
                let ga = self.ground_term(a)?;
                Ok(self.map_values(&ga, |x| {
                    let k = dom.binary_search(&x).ok()? as isize + step;
                    (k >= 0).then(|| dom.get(k as usize).copied()).flatten()
                }))
            }
            TermKind::Aggregate(kind, sets) => self.ground_aggregate(t.id(), *kind, sets, None),
        }
    }

    /// The value of `t` when it is a bound variable or a domain element (read without
    /// grounding it); `None` for any other term.
    pub fn simple_value(&self, t: &Term) -> Option<Value> {
        match t.kind() {
            TermKind::Var(v) => self.lookup(v),
            TermKind::Value(v) => Some(*v),
            _ => None,
        }
    }

    /// The values of `args` in `out` when each is a bound variable or a domain element;
    /// `false` (with `out` unspecified) when one is any other term.
    pub fn simple_args(&self, args: &[Term], out: &mut Vec<Value>) -> bool {
        out.clear();
        for a in args {
            let Some(value) = self.simple_value(a) else {
                return false;
            };
            out.push(value);
        }
        true
    }

    /// Grounds a list of argument terms into the guarded tuples of values they may take.
    pub fn ground_args(&mut self, args: &[Term]) -> IdpResult<Vec<(Gf, Vec<Value>)>> {
        let mut tuple = Vec::with_capacity(args.len());
        if self.simple_args(args, &mut tuple) {
            return Ok(vec![(Gf::TRUE, tuple)]);
        }
        let mut grounded = Vec::with_capacity(args.len());
        for a in args {
            grounded.push(self.ground_term(a)?);
        }
        Ok(self.argument_cases(grounded))
    }

    /// The guarded tuples of values that arguments with these ground terms may take.
    pub fn argument_cases(&mut self, grounded: Vec<GTerm>) -> Vec<(Gf, Vec<Value>)> {
        let mut out: Vec<(Gf, Vec<Value>)> = vec![(Gf::TRUE, Vec::with_capacity(grounded.len()))];
        for ga in grounded {
            let mut next = Vec::with_capacity(out.len() * ga.0.len());
            for (g, prefix) in &out {
                for (h, v) in &ga.0 {
                    let GVal::V(v) = v else { continue };
                    let guard = self.store.and2(*g, *h);
                    if guard == Gf::FALSE {
                        continue;
                    }
                    let mut t = prefix.clone();
                    t.push(*v);
                    next.push((guard, t));
                }
            }
            out = next;
        }
        out
    }

    /// The single value that grounding determines for a term whose variables are bound
    /// (`None` when it has several cases or none). An application of an unknown function is
    /// looked up in its shared cases, without building a ground term of all of them.
    pub fn known_value(&mut self, t: &Term) -> IdpResult<Option<Value>> {
        match self.shared_application(t)? {
            Some(cases) => Ok(cases.single()),
            None => self.grounded_value(t),
        }
    }

    /// The single value of `t`'s ground term (`None` when it has several cases or none).
    pub fn grounded_value(&mut self, t: &Term) -> IdpResult<Option<Value>> {
        Ok(match self.ground_term(t)?.as_known() {
            Some(GVal::V(v)) => Some(v),
            _ => None,
        })
    }

    /// The cases of `t` when it is an application of a function that is not a constructor,
    /// with variables, to arguments that grounding determines: shared with the other atoms
    /// that apply it to the same arguments (memoised), sorted by value; `None` for any other
    /// term.
    pub fn shared_application(&mut self, t: &Term) -> IdpResult<Option<Cases>> {
        let TermKind::Func(f, args) = t.kind() else {
            return Ok(None);
        };
        // Only terms with variables (closed ones have a memo of their own), and only once
        // `ground_term` has seen them.
        if !matches!(self.memo.closed_terms.get(&t.id()), Some(None))
            || self.program.func(*f).constructor_of.is_some()
        {
            return Ok(None);
        }
        // The arguments' values, in a buffer that is reused (most lookups hit the memo).
        let mut tuple = std::mem::take(&mut self.arguments);
        tuple.clear();
        for a in args {
            let value = match self.simple_value(a) {
                Some(v) => v,
                None => match self.ground_term(a)?.as_known() {
                    Some(GVal::V(v)) => v,
                    _ => {
                        self.arguments = tuple;
                        return Ok(None);
                    }
                },
            };
            tuple.push(value);
        }
        let cases = self.application_cases(*f, &tuple);
        self.arguments = tuple;
        cases.map(Some)
    }

    /// The cases of `f(args)` for known arguments, sorted by value, memoised until what
    /// grounding knows about atoms changes.
    fn application_cases(&mut self, f: FuncId, args: &[Value]) -> IdpResult<Cases> {
        if let Some(cases) = self.memo.applications.get(&SliceKey(f, args)) {
            return Ok(cases.clone());
        }
        let cases = Cases::new(self.apply_function(f, args.to_vec())?);
        self.memo
            .applications
            .insert((f, args.to_vec()), cases.clone());
        Ok(cases)
    }

    fn ground_application(&mut self, f: FuncId, args: &[Term]) -> IdpResult<GTerm> {
        let cases = self.ground_args(args)?;
        if let [(Gf::TRUE, _)] = cases.as_slice() {
            // Known arguments: no case analysis needed.
            let (_, tuple) = cases.into_iter().next().expect("one case");
            let cases: Cases = if self.program.func(f).constructor_of.is_some() {
                Cases::new(self.apply_function(f, tuple)?)
            } else {
                self.application_cases(f, &tuple)?
            };
            return Ok(match &cases[..] {
                [(Gf::TRUE, v)] => GTerm::known(*v),
                options => GTerm(options.iter().map(|(g, v)| (*g, GVal::V(*v))).collect()),
            });
        }
        let mut acc: BTreeMap<GVal, Vec<Gf>> = BTreeMap::new();
        for (guard, tuple) in cases {
            for (g, v) in self.apply_function(f, tuple)? {
                let both = self.store.and2(guard, g);
                if both != Gf::FALSE {
                    acc.entry(GVal::V(v)).or_default().push(both);
                }
            }
        }
        Ok(self.collect(acc))
    }

    /// The possible values of `f(args)` for known arguments, with their conditions.
    pub fn apply_function(&mut self, f: FuncId, args: Vec<Value>) -> IdpResult<Vec<(Gf, Value)>> {
        let program = self.program;
        let func = program.func(f);
        if !self.well_sorted(&func.args, &args) {
            return Ok(Vec::new());
        }
        if func.constructor_of.is_some() {
            return Ok(vec![(Gf::TRUE, Value::compound(f, args))]);
        }
        if let Some(v) = self.known_func_value(f, &args) {
            return Ok(vec![(Gf::TRUE, v)]);
        }
        if self.is_inlined(Symbol::Func(f)) {
            return self.inlined_application(f, args);
        }
        if self.func_two_valued(f) {
            return Ok(Vec::new());
        }
        let symbol = Symbol::Func(f);
        let range = if self.status.forced_unknown.contains(&symbol) && self.indexable(symbol) {
            // A defined function whose possible values are known (its possibly-true pass, or
            // the heads of its grounded definition): only those, not its whole range.
            let arity = args.len();
            let index = self.table_index_at(symbol, arity, position_bit(arity) - 1);
            match index.get(&args) {
                Some(values) => values.clone(),
                None => return Ok(Vec::new()),
            }
        } else if let Some(values) = self.applications.get(&(f, args.clone())) {
            values.clone()
        } else {
            self.result_domain(f)?
        };
        let mut out = Vec::new();
        let mut tuple = args;
        for &v in range.iter() {
            tuple.push(v);
            match self.truth(Symbol::Func(f), &tuple) {
                TruthValue::False => {}
                TruthValue::True => out.push((Gf::TRUE, v)),
                TruthValue::Unknown => {
                    let g = self.unknown_atom(symbol, &tuple);
                    if g != Gf::FALSE {
                        out.push((g, v));
                    }
                }
            }
            tuple.pop();
        }
        // An application can make a whole range of atoms: the limit is checked before the
        // next one, not only when the sentence is done.
        self.check_growth()?;
        Ok(out)
    }

    /// Merges guards per value (disjunction) into a ground term.
    pub fn collect(&mut self, acc: BTreeMap<GVal, Vec<Gf>>) -> GTerm {
        let mut out = Vec::with_capacity(acc.len());
        for (v, gs) in acc {
            let g = self.store.or(gs);
            if g != Gf::FALSE {
                out.push((g, v));
            }
        }
        GTerm(out)
    }

    /// Applies a binary operation on the values of two ground terms (cross product of cases).
    pub fn combine(
        &mut self,
        a: &GTerm,
        b: &GTerm,
        op: impl Fn(Value, Value) -> Option<Value>,
    ) -> GTerm {
        let mut acc: BTreeMap<GVal, Vec<Gf>> = BTreeMap::new();
        for (ga, va) in &a.0 {
            for (gb, vb) in &b.0 {
                let (GVal::V(x), GVal::V(y)) = (va, vb) else {
                    continue;
                };
                let Some(r) = op(*x, *y) else { continue };
                let g = self.store.and2(*ga, *gb);
                if g != Gf::FALSE {
                    acc.entry(GVal::V(r)).or_default().push(g);
                }
            }
        }
        self.collect(acc)
    }

    pub fn map_values(&mut self, a: &GTerm, op: impl Fn(Value) -> Option<Value>) -> GTerm {
        let mut acc: BTreeMap<GVal, Vec<Gf>> = BTreeMap::new();
        for (g, v) in &a.0 {
            let GVal::V(x) = v else { continue };
            if let Some(r) = op(*x) {
                acc.entry(GVal::V(r)).or_default().push(*g);
            }
        }
        self.collect(acc)
    }
}

/// IDP3's arithmetic: checked integer operations, real division (partial: `x/0` is undefined),
/// `%` undefined for 0, `^` as a float power that is normalised back to an integer if integral.
/// Sums, differences, products and quotients with a non-integer are exact (a float stands for
/// its decimal, as IDP-Z3 reads it): `0.1 + 0.2` is `0.3`, and a third stays a third.
pub fn arith(op: ArithOp, x: Value, y: Value) -> Option<Value> {
    if let (Value::Int(a), Value::Int(b)) = (x, y) {
        return int_arith(op, a, b);
    }
    if matches!(
        op,
        ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Div
    ) {
        if let (Some(a), Some(b)) = (x.exact(), y.exact()) {
            let r = match op {
                ArithOp::Add => a + b,
                ArithOp::Sub => a - b,
                ArithOp::Mul => a * b,
                _ if num_traits::Zero::is_zero(&b) => return None,
                _ => a / b,
            };
            return Some(Value::rational(&r));
        }
    }
    let (a, b) = (x.as_f64()?, y.as_f64()?);
    let r = match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        ArithOp::Div if b == 0.0 => return None,
        ArithOp::Div => a / b,
        ArithOp::Mod if b == 0.0 => return None,
        ArithOp::Mod => a % b,
        ArithOp::Pow => a.powf(b),
    };
    r.is_finite().then(|| Value::float(r))
}

fn int_arith(op: ArithOp, a: i64, b: i64) -> Option<Value> {
    let r = match op {
        ArithOp::Add => a.checked_add(b)?,
        ArithOp::Sub => a.checked_sub(b)?,
        ArithOp::Mul => a.checked_mul(b)?,
        ArithOp::Div => {
            if b == 0 {
                return None;
            }
            if a % b == 0 {
                a / b
            } else {
                return Some(Value::float(a as f64 / b as f64));
            }
        }
        ArithOp::Mod => {
            if b == 0 {
                return None;
            }
            let r = a % b;
            if r < 0 {
                r + b.abs()
            } else {
                r
            }
        }
        ArithOp::Pow => {
            if (0..=62).contains(&b) {
                a.checked_pow(b as u32)?
            } else {
                return Some(Value::float((a as f64).powf(b as f64)));
            }
        }
    };
    Some(Value::Int(r))
}

fn abs(x: Value) -> Option<Value> {
    match x {
        Value::Int(i) => i.checked_abs().map(Value::Int),
        Value::Float(f) => Some(Value::Float(f.abs())),
        Value::Ratio(_) => Some(Value::rational(&num_traits::Signed::abs(&x.exact()?))),
        _ => None,
    }
}

/// `MIN[:T]`/`MAX[:T]` of the built-in numeric sorts: IDP3's integers are 32-bit.
pub fn builtin_extreme(
    program: &crate::sema::Program,
    s: crate::ids::SortId,
    max: bool,
) -> Option<Value> {
    use crate::sema::BuiltinSort;
    let v = match (program.sort(s).builtin?, max) {
        (BuiltinSort::Int, false) => Value::Int(i32::MIN as i64),
        (BuiltinSort::Nat, false) => Value::Int(0),
        (BuiltinSort::Int | BuiltinSort::Nat, true) => Value::Int(i32::MAX as i64),
        (BuiltinSort::Float, false) => Value::Float(f64::MIN),
        (BuiltinSort::Float, true) => Value::Float(f64::MAX),
        _ => return None,
    };
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idp3_arithmetic() {
        assert_eq!(
            arith(ArithOp::Div, Value::Int(9), Value::Int(2)),
            Some(Value::Float(4.5))
        );
        assert_eq!(
            arith(ArithOp::Div, Value::Int(8), Value::Int(2)),
            Some(Value::Int(4))
        );
        assert_eq!(arith(ArithOp::Div, Value::Int(8), Value::Int(0)), None);
        assert_eq!(
            arith(ArithOp::Mod, Value::Int(-7), Value::Int(3)),
            Some(Value::Int(2))
        );
        assert_eq!(
            arith(ArithOp::Mod, Value::Int(10 - 2), Value::Int(5)),
            Some(Value::Int(3))
        );
        assert_eq!(
            arith(ArithOp::Add, Value::Int(i64::MAX), Value::Int(1)),
            None
        );
    }
}
