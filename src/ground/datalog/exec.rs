//! Running join plans: nested loops over index chains, with every variable a code in one slot
//! array, keys and head rows built on the stack, and derived rows appended to one flat buffer.
//!
//! Terms keep the grounder's meaning: a term can be undefined (a partial function without a
//! value, division by zero, an overflow, an argument outside its sort), which makes an atom or
//! the positive form of a comparison (`=`, `<`, `>`) false; `min`/`max` of an empty set are the
//! infinities ([`NEG_INF`], [`POS_INF`]), which only comparisons tell apart from undefined.

use crate::limits::Until;
use std::cmp::Ordering;

use super::codes::{is_direct, Code, Codes, NEG_INF, POS_INF};
use super::compile::{
    member_contains, AggSet, Expr, Lit, Member, Part, Plan, Range, RowReads, Step, Unpack,
    MAX_ARITY,
};
use super::relation::{Relation, RowId, NONE};
use crate::error::IdpResult;
use crate::ground::terms::arith;
use crate::sema::Domains;
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// What is done with each binding that satisfies a plan.
pub enum Sink<'p> {
    /// Derive the head row into `out`.
    Head {
        args: &'p [Expr],
        members: &'p [usize],
    },
    /// Stop at the first binding (a sub-query's answer).
    Found,
    /// An element of an aggregate's set (once per distinct binding of the set's variables).
    Element {
        set: &'p AggSet,
        seen: Relation,
        acc: Acc,
    },
}

/// The running value of an aggregate.
pub struct Acc {
    kind: AggKind,
    /// `#`, `sum`, `prod`: the total so far (`None` once it overflowed); `min`, `max`: the
    /// extremum so far (`None` while there is no element).
    value: Option<Value>,
    /// A float was added to a sum or product.
    inexact: bool,
}

impl Acc {
    fn new(kind: AggKind) -> Acc {
        let value = match kind {
            AggKind::Card | AggKind::Sum => Some(Value::Int(0)),
            AggKind::Prod => Some(Value::Int(1)),
            AggKind::Min | AggKind::Max => None,
        };
        Acc {
            kind,
            value,
            inexact: false,
        }
    }

    fn add(&mut self, v: Value) {
        if matches!(v, Value::Float(_)) && matches!(self.kind, AggKind::Sum | AggKind::Prod) {
            // A float total depends on the order of the elements, which is not the
            // grounder's: such a definition is left to the general path.
            self.inexact = true;
        }
        self.value = match self.kind {
            AggKind::Card | AggKind::Sum => self.value.and_then(|t| arith(ArithOp::Add, t, v)),
            AggKind::Prod => self.value.and_then(|t| arith(ArithOp::Mul, t, v)),
            AggKind::Min => Some(self.value.map_or(v, |t| t.min(v))),
            AggKind::Max => Some(self.value.map_or(v, |t| t.max(v))),
        };
    }
}

/// The state of one run over the relations.
pub struct Exec<'a> {
    pub relations: &'a [Relation],
    pub members: &'a [Member],
    pub domains: &'a Domains<'a>,
    pub codes: &'a mut Codes,
    /// Per relation, the rows before the previous round (`lo`) and before this one (`hi`).
    pub bounds: &'a [(RowId, RowId)],
    pub env: &'a mut [Code],
    /// Derived head rows, back to back.
    pub out: &'a mut Vec<Code>,
    /// Bindings tried, for the limit checks.
    pub steps: &'a mut u64,
    /// The run's limits.
    pub until: &'a Until,
    /// Set when the evaluation met something it cannot do as the grounder does (a float sum):
    /// the caller then falls back to the general path.
    pub unsupported: &'a mut bool,
}

impl<'a> Exec<'a> {
    fn rows(&self, rel: usize, range: Range) -> (RowId, RowId) {
        let (lo, hi) = self.bounds[rel];
        match range {
            Range::All => (0, hi),
            Range::Old => (0, lo),
            Range::Delta => (lo, hi),
        }
    }

    fn member(&self, m: usize, c: Code) -> bool {
        member_contains(self.members, self.codes, self.domains, m, c)
    }

    fn tick(&mut self) -> IdpResult<()> {
        *self.steps += 1;
        if *self.steps & 0xFFFF == 0 {
            self.until.check("evaluating a definition")?;
        }
        Ok(())
    }

    /// Runs `plan` from step `i`; `true` when the sink asked to stop.
    pub fn run<'p>(&mut self, plan: &'p Plan, i: usize, sink: &mut Sink<'p>) -> IdpResult<bool> {
        let Some(step) = plan.steps.get(i) else {
            return self.emit(sink);
        };
        match step {
            Step::Scan {
                rel,
                index,
                key,
                range,
                reads,
            } => {
                let rels = self.relations;
                let relation = &rels[*rel];
                let (lo, hi) = self.rows(*rel, *range);
                if lo >= hi {
                    return Ok(false);
                }
                match index {
                    Some(k) => {
                        let mut buf = [0 as Code; MAX_ARITY];
                        for (j, e) in key.iter().enumerate() {
                            match self.eval(e)? {
                                Some(c) if c < POS_INF => buf[j] = c,
                                _ => return Ok(false),
                            }
                        }
                        let mut r = relation.newest(*k, &buf[..key.len()]);
                        while r != NONE {
                            if r < lo {
                                break;
                            }
                            if r < hi && self.visit(plan, i, sink, relation.row(r), reads)? {
                                return Ok(true);
                            }
                            r = relation.older(*k, r);
                        }
                    }
                    None => {
                        for r in lo..hi {
                            if self.visit(plan, i, sink, relation.row(r), reads)? {
                                return Ok(true);
                            }
                        }
                    }
                }
                Ok(false)
            }
            Step::Check { lit, range } => {
                if self.holds(lit, *range)? {
                    self.run(plan, i + 1, sink)
                } else {
                    Ok(false)
                }
            }
            Step::Assign { slot, expr, member } => match self.eval(expr)? {
                Some(c) if c < POS_INF && member.is_none_or(|m| self.member(m, c)) => {
                    self.env[*slot] = c;
                    self.run(plan, i + 1, sink)
                }
                _ => Ok(false),
            },
            Step::Enumerate { slot, values } => {
                for &c in values.iter() {
                    self.tick()?;
                    self.env[*slot] = c;
                    if self.run(plan, i + 1, sink)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }

    #[inline]
    fn visit<'p>(
        &mut self,
        plan: &'p Plan,
        i: usize,
        sink: &mut Sink<'p>,
        row: &[Code],
        reads: &RowReads,
    ) -> IdpResult<bool> {
        self.tick()?;
        let RowReads {
            binds,
            same,
            unpack,
        } = reads;
        if same.iter().any(|&(a, b)| row[a] != row[b]) {
            return Ok(false);
        }
        for &(col, slot, member) in binds.iter() {
            let c = row[col];
            if let Some(m) = member {
                if !self.member(m, c) {
                    return Ok(false);
                }
            }
            self.env[slot] = c;
        }
        for u in unpack {
            if !self.unpack(u, row[u.col])? {
                return Ok(false);
            }
        }
        self.run(plan, i + 1, sink)
    }

    /// Binds the arguments of the constructor application coded `c` as `u` says; `false` when
    /// `c` is not an application of `u.func` or an argument differs from a bound one.
    fn unpack(&mut self, u: &Unpack, c: Code) -> IdpResult<bool> {
        let Some(compound) = self.codes.decode(c).compound_parts() else {
            return Ok(false);
        };
        if compound.constructor != u.func {
            return Ok(false);
        }
        for (part, &v) in u.parts.iter().zip(&compound.args) {
            let code = self.codes.encode(v);
            match part {
                Part::Bind { slot, member } => {
                    if !self.member(*member, code) {
                        return Ok(false);
                    }
                    self.env[*slot] = code;
                }
                Part::Same(slot) => {
                    if self.env[*slot] != code {
                        return Ok(false);
                    }
                }
                Part::Bound(e) => {
                    if self.eval(e)? != Some(code) {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    fn emit(&mut self, sink: &mut Sink) -> IdpResult<bool> {
        match sink {
            Sink::Found => Ok(true),
            Sink::Head { args, members } => {
                let mut buf = [0 as Code; MAX_ARITY];
                for (j, e) in args.iter().enumerate() {
                    match self.eval(e)? {
                        Some(c) if self.member(members[j], c) => buf[j] = c,
                        // An undefined head argument or one outside the head's sorts: no atom.
                        _ => return Ok(false),
                    }
                }
                // Rows the relation has already are dropped when the buffer is added to it
                // (one hash probe per derivation instead of two per new row).
                if args.is_empty() {
                    self.out.push(0);
                } else {
                    self.out.extend_from_slice(&buf[..args.len()]);
                }
                Ok(false)
            }
            Sink::Element { set, seen, acc } => {
                let mut buf = [0 as Code; MAX_ARITY];
                for (j, &s) in set.vars.iter().enumerate() {
                    buf[j] = self.env[s];
                }
                if seen.insert(&buf[..set.vars.len()]) {
                    if let Some(c) = self.eval(&set.term)? {
                        if c < POS_INF {
                            acc.add(self.codes.decode(c));
                        }
                    }
                }
                Ok(false)
            }
        }
    }

    /// Whether a literal whose variables are bound holds.
    pub fn holds(&mut self, lit: &Lit, range: Range) -> IdpResult<bool> {
        Ok(match lit {
            Lit::Atom {
                rel,
                args,
                positive,
            } => {
                let mut buf = [0 as Code; MAX_ARITY];
                let mut defined = true;
                for (j, e) in args.iter().enumerate() {
                    match self.eval(e)? {
                        Some(c) if c < POS_INF => buf[j] = c,
                        _ => {
                            defined = false;
                            break;
                        }
                    }
                }
                let found = defined && {
                    let (lo, hi) = self.rows(*rel, range);
                    match self.relations[*rel].position(&buf[..args.len()]) {
                        Some(r) => lo <= r && r < hi,
                        None => false,
                    }
                };
                found == *positive
            }
            Lit::Member {
                member,
                arg,
                positive,
            } => {
                let found = match self.eval(arg)? {
                    Some(c) => self.member(*member, c),
                    None => false,
                };
                found == *positive
            }
            Lit::Cmp { op, negated, a, b } => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                let base = match (x, y) {
                    (Some(x), Some(y)) => {
                        let ord = self.compare(x, y);
                        match op {
                            CmpOp::Lt => ord == Ordering::Less,
                            CmpOp::Gt => ord == Ordering::Greater,
                            _ => ord == Ordering::Equal,
                        }
                    }
                    _ => false,
                };
                base != *negated
            }
            Lit::NotExists(q) => {
                for plan in &q.plans {
                    if self.run(plan, 0, &mut Sink::Found)? {
                        return Ok(false);
                    }
                }
                true
            }
        })
    }

    /// The order of two values (or infinities).
    fn compare(&self, x: Code, y: Code) -> Ordering {
        if x == y {
            return Ordering::Equal;
        }
        if is_direct(x) && is_direct(y) {
            return x.cmp(&y);
        }
        match (x, y) {
            (NEG_INF, _) | (_, POS_INF) => Ordering::Less,
            (POS_INF, _) | (_, NEG_INF) => Ordering::Greater,
            _ => self.codes.decode(x).cmp(&self.codes.decode(y)),
        }
    }

    /// The value of an expression; `None` when it is undefined.
    pub fn eval(&mut self, e: &Expr) -> IdpResult<Option<Code>> {
        Ok(match e {
            Expr::Var(s) => Some(self.env[*s]),
            Expr::Const(c) => Some(*c),
            Expr::Undef => None,
            Expr::Arith(op, a, b) => {
                let (Some(x), Some(y)) = (self.eval(a)?, self.eval(b)?) else {
                    return Ok(None);
                };
                if x >= POS_INF || y >= POS_INF {
                    return Ok(None);
                }
                if is_direct(x) && is_direct(y) {
                    let (i, j) = (i64::from(x), i64::from(y));
                    let fast = match op {
                        ArithOp::Add => Some(i + j),
                        ArithOp::Sub => Some(i - j),
                        ArithOp::Mul => Some(i * j),
                        _ => None,
                    };
                    if let Some(r) = fast {
                        return Ok(Some(self.codes.encode_int(r)));
                    }
                }
                let (vx, vy) = (self.codes.decode(x), self.codes.decode(y));
                arith(*op, vx, vy).map(|v| self.codes.encode(v))
            }
            Expr::Neg(a) => match self.eval(a)? {
                Some(x) if x < POS_INF => arith(ArithOp::Sub, Value::Int(0), self.codes.decode(x))
                    .map(|v| self.codes.encode(v)),
                _ => None,
            },
            Expr::Abs(a) => match self.eval(a)? {
                Some(x) if x < POS_INF => {
                    let v = match self.codes.decode(x) {
                        Value::Int(i) => i.checked_abs().map(Value::Int),
                        Value::Float(f) => Some(Value::Float(f.abs())),
                        _ => None,
                    };
                    v.map(|v| self.codes.encode(v))
                }
                _ => None,
            },
            Expr::Apply { rel, index, args } => {
                let mut buf = [0 as Code; MAX_ARITY];
                for (j, a) in args.iter().enumerate() {
                    match self.eval(a)? {
                        Some(c) if c < POS_INF => buf[j] = c,
                        _ => return Ok(None),
                    }
                }
                let relation = &self.relations[*rel];
                let r = relation.newest(*index, &buf[..args.len()]);
                (r != NONE).then(|| relation.row(r)[args.len()])
            }
            Expr::Cons {
                func,
                args,
                members,
            } => {
                let mut values = Vec::with_capacity(args.len());
                for (a, &m) in args.iter().zip(members) {
                    match self.eval(a)? {
                        Some(c) if self.member(m, c) => values.push(self.codes.decode(c)),
                        _ => return Ok(None),
                    }
                }
                Some(self.codes.encode(Value::compound(*func, values)))
            }
            Expr::Step { domain, up, arg } => match self.eval(arg)? {
                Some(x) if x < POS_INF => {
                    let v = self.codes.decode(x);
                    domain
                        .binary_search(&v)
                        .ok()
                        .and_then(|k| {
                            if *up {
                                k.checked_add(1)
                            } else {
                                k.checked_sub(1)
                            }
                        })
                        .and_then(|k| domain.get(k).copied())
                        .map(|v| self.codes.encode(v))
                }
                _ => None,
            },
            Expr::Agg(agg) => {
                let mut acc = Acc::new(agg.kind);
                for set in &agg.sets {
                    let mut sink = Sink::Element {
                        set,
                        seen: Relation::new(set.vars.len()),
                        acc,
                    };
                    for plan in &set.query.plans {
                        self.run(plan, 0, &mut sink)?;
                    }
                    let Sink::Element { acc: back, .. } = sink else {
                        unreachable!("the sink of an aggregate")
                    };
                    acc = back;
                }
                if acc.inexact {
                    *self.unsupported = true;
                }
                match (acc.kind, acc.value) {
                    (AggKind::Min, None) => Some(POS_INF),
                    (AggKind::Max, None) => Some(NEG_INF),
                    (_, v) => v.map(|v| self.codes.encode(v)),
                }
            }
        })
    }
}
