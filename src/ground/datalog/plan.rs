//! Join planning: the order in which a conjunction binds its variables.
//!
//! Greedy, from the variables bound so far: every literal whose variables are all bound is
//! checked at once (a lookup, a comparison, a sub-query), an equality with one unbound variable
//! assigns it, and otherwise the positive atom with the most bound columns is scanned next
//! through a hash index on those columns (ties go to the smaller relation). A variable that no
//! atom binds is enumerated over its sort. In semi-naive evaluation the atom that reads the
//! previous round's new rows is scanned first.

use std::rc::Rc;

use super::codes::Code;
use super::compile::{
    expr_slots, lit_slots, query_slots, Compiled, Conj, Expr, Lit, Member, Query, MAX_ARITY,
};
use super::exec::member_contains;
use crate::sema::domains::Domains;
use crate::sema::program::FuncId;

/// Which rows of a relation a literal reads (see [`super::exec`] for the bounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// Every row derived before the current round.
    All,
    /// The rows derived before the previous round.
    Old,
    /// The rows derived in the previous round.
    Delta,
}

#[derive(Clone, Debug)]
pub enum Step {
    /// The rows of `rel` in `range` whose `key` columns have the key's values (through index
    /// `index`; all rows when there is no key), each read as `reads` says.
    Scan {
        rel: usize,
        index: Option<usize>,
        key: Vec<Expr>,
        range: Range,
        reads: RowReads,
    },
    /// A literal whose variables are bound.
    Check { lit: Lit, range: Range },
    /// `slot = expr`, with the slot's member test.
    Assign {
        slot: usize,
        expr: Expr,
        member: Option<usize>,
    },
    /// Every value of a sort.
    Enumerate { slot: usize, values: Rc<[Code]> },
}

/// How a scanned row binds slots: `binds` (column, slot, member test when the column's sort
/// is not the slot's), columns that must have equal values (`same`), and columns holding a
/// constructor application whose arguments the row binds (`do(t, jump(a, b))` scanned with a
/// and b unbound), read after `binds`.
#[derive(Clone, Debug, Default)]
pub struct RowReads {
    pub binds: Vec<(usize, usize, Option<usize>)>,
    pub same: Vec<(usize, usize)>,
    pub unpack: Vec<Unpack>,
}

/// A column whose value must be `func(parts)`: each part binds, repeats or tests one argument.
#[derive(Clone, Debug)]
pub struct Unpack {
    pub col: usize,
    pub func: FuncId,
    pub parts: Vec<Part>,
}

/// One argument of an unpacked constructor application.
#[derive(Clone, Debug)]
pub enum Part {
    /// Binds the slot (with its member test).
    Bind { slot: usize, member: usize },
    /// Must equal the slot bound earlier in the same row.
    Same(usize),
    /// Must equal the value of an expression bound before the scan.
    Bound(Expr),
}

/// The steps of one conjunction.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
}

/// What the planner reads: relation sizes, column sorts, domains.
pub struct Planner<'c, 'd> {
    pub compiled: &'c mut Compiled,
    pub domains: &'d Domains<'d>,
}

impl Planner<'_, '_> {
    /// Plans `conj` with the slots `bound` already bound; `range` gives the rows each literal
    /// reads, and `first` the literal to scan first.
    pub fn plan(
        &mut self,
        conj: &Conj,
        bound: &[usize],
        range: &dyn Fn(usize) -> Range,
        first: Option<usize>,
    ) -> Option<Plan> {
        let mut bound: Vec<bool> = {
            let mut b = vec![false; self.compiled.slots];
            for &s in bound {
                b[s] = true;
            }
            b
        };
        let lits: Vec<Lit> = conj
            .lits
            .iter()
            .map(|l| self.plan_inner(l.clone()))
            .collect::<Option<_>>()?;
        let lit_vars: Vec<Vec<usize>> = lits
            .iter()
            .map(|l| {
                let mut v = Vec::new();
                lit_slots(l, &mut v);
                v
            })
            .collect();
        // Every slot the conjunction reads must be bound outside it or by it.
        for vars in &lit_vars {
            if vars.iter().any(|&s| !bound[s] && !conj.vars.contains(&s)) {
                return None;
            }
        }
        let mut done = vec![false; lits.len()];
        let mut steps = Vec::new();
        // The atom of the previous round's rows first, when it can be scanned (an argument
        // like `x - 1` with x unbound cannot: it is then looked up once x is bound).
        if let Some(i) = first {
            if self.scan_score(&lits[i], &bound, range(i)).is_some() {
                steps.push(self.scan(&lits[i], range(i), &mut bound)?);
                done[i] = true;
            }
        }
        loop {
            // Checks and assignments, as long as there are any.
            let mut progress = true;
            while progress {
                progress = false;
                for i in 0..lits.len() {
                    if done[i] {
                        continue;
                    }
                    if lit_vars[i].iter().all(|&s| bound[s]) {
                        steps.push(Step::Check {
                            lit: lits[i].clone(),
                            range: range(i),
                        });
                        done[i] = true;
                        progress = true;
                    } else if let Some((slot, expr)) = assignment(&lits[i], &bound) {
                        steps.push(Step::Assign {
                            slot,
                            expr: expr.clone(),
                            member: Some(self.compiled.slot_members[slot]),
                        });
                        bound[slot] = true;
                        done[i] = true;
                        progress = true;
                    }
                }
            }
            if done.iter().all(|d| *d) && conj.vars.iter().all(|&s| bound[s]) {
                break;
            }
            // The cheapest scan.
            let mut best: Option<(usize, (bool, f64))> = None;
            for i in 0..lits.len() {
                if done[i] {
                    continue;
                }
                let Some(score) = self.scan_score(&lits[i], &bound, range(i)) else {
                    continue;
                };
                let better = match &best {
                    None => true,
                    Some((_, (keyed, cost))) => {
                        (score.0 && !keyed) || (score.0 == *keyed && score.1 < *cost)
                    }
                };
                if better {
                    best = Some((i, score));
                }
            }
            if let Some((i, _)) = best {
                steps.push(self.scan(&lits[i], range(i), &mut bound)?);
                done[i] = true;
                continue;
            }
            // No atom binds the next variable: enumerate a sort. Not that of a variable that
            // an equality can assign once the others are bound (`v = P(x, y)`: enumerate x
            // and y, then v is computed), and the smallest sort first.
            let assignable: Vec<usize> = (0..lits.len())
                .filter(|&i| !done[i])
                .filter_map(|i| equality_var(&lits[i]))
                .collect();
            let candidates: Vec<usize> = lit_vars
                .iter()
                .zip(&done)
                .filter(|(_, d)| !**d)
                .flat_map(|(v, _)| v.iter().copied())
                .chain(conj.vars.iter().copied())
                .filter(|&s| !bound[s])
                .collect();
            let size = |s: usize| match &self.compiled.members[self.compiled.slot_members[s]] {
                Member::Range(lo, hi) => (hi - lo + 1).max(0) as usize,
                Member::Codes(set) => set.len(),
                Member::Generic(_) => usize::MAX,
            };
            let slot = candidates
                .iter()
                .copied()
                .filter(|s| !assignable.contains(s))
                .min_by_key(|&s| size(s))
                .or_else(|| candidates.first().copied())?;
            let values = self.sort_values(slot)?;
            steps.push(Step::Enumerate { slot, values });
            bound[slot] = true;
        }
        Some(Plan { steps })
    }

    /// Plans the sub-queries inside a literal (each with its free slots bound).
    fn plan_inner(&mut self, lit: Lit) -> Option<Lit> {
        Some(match lit {
            Lit::NotExists(q) => Lit::NotExists(Box::new(self.plan_query(*q)?)),
            Lit::Atom {
                rel,
                args,
                positive,
            } => Lit::Atom {
                rel,
                args: args
                    .into_iter()
                    .map(|a| self.plan_expr(a))
                    .collect::<Option<_>>()?,
                positive,
            },
            Lit::Member {
                member,
                arg,
                positive,
            } => Lit::Member {
                member,
                arg: self.plan_expr(arg)?,
                positive,
            },
            Lit::Cmp { op, negated, a, b } => Lit::Cmp {
                op,
                negated,
                a: self.plan_expr(a)?,
                b: self.plan_expr(b)?,
            },
        })
    }

    fn plan_expr(&mut self, e: Expr) -> Option<Expr> {
        Some(match e {
            Expr::Agg(mut agg) => {
                for set in &mut agg.sets {
                    let q = std::mem::take(&mut set.query);
                    set.query = self.plan_query(q)?;
                    set.term = self.plan_expr(set.term.clone())?;
                }
                Expr::Agg(agg)
            }
            Expr::Arith(op, a, b) => Expr::Arith(
                op,
                Box::new(self.plan_expr(*a)?),
                Box::new(self.plan_expr(*b)?),
            ),
            Expr::Neg(a) => Expr::Neg(Box::new(self.plan_expr(*a)?)),
            Expr::Abs(a) => Expr::Abs(Box::new(self.plan_expr(*a)?)),
            Expr::Step { domain, up, arg } => Expr::Step {
                domain,
                up,
                arg: Box::new(self.plan_expr(*arg)?),
            },
            Expr::Apply { rel, index, args } => Expr::Apply {
                rel,
                index,
                args: args
                    .into_iter()
                    .map(|a| self.plan_expr(a))
                    .collect::<Option<_>>()?,
            },
            Expr::Cons {
                func,
                args,
                members,
            } => Expr::Cons {
                func,
                args: args
                    .into_iter()
                    .map(|a| self.plan_expr(a))
                    .collect::<Option<_>>()?,
                members,
            },
            e @ (Expr::Var(_) | Expr::Const(_) | Expr::Undef) => e,
        })
    }

    /// Plans every conjunction of a sub-query with its free slots bound.
    pub fn plan_query(&mut self, mut q: Query) -> Option<Query> {
        let mut free = Vec::new();
        query_slots(&q, &mut free);
        let mut plans = Vec::with_capacity(q.conjs.len());
        for conj in &q.conjs {
            plans.push(self.plan(conj, &free, &|_| Range::All, None)?);
        }
        q.plans = plans;
        Some(q)
    }

    fn sort_values(&mut self, slot: usize) -> Option<Rc<[Code]>> {
        let m = self.compiled.slot_members[slot];
        self.member_values(m)
    }

    fn member_values(&mut self, m: usize) -> Option<Rc<[Code]>> {
        match &self.compiled.members[m] {
            Member::Range(lo, hi) => {
                let (lo, hi) = (*lo, *hi);
                let codes = &mut self.compiled.codes;
                Some((lo..=hi).map(|i| codes.encode_int(i)).collect())
            }
            Member::Codes(set) => {
                let mut v: Vec<Code> = set.iter().copied().collect();
                // In the order of the values: deterministic, whatever the hashing.
                let codes = &self.compiled.codes;
                v.sort_by_key(|c| codes.decode(*c));
                Some(v.into())
            }
            Member::Generic(_) => None,
        }
    }

    /// Whether `lit` can be scanned now, and how good a scan it is: (some column is bound,
    /// estimated rows).
    fn scan_score(&self, lit: &Lit, bound: &[bool], range: Range) -> Option<(bool, f64)> {
        match lit {
            Lit::Atom {
                rel,
                args,
                positive: true,
            } => {
                let mut keyed = 0;
                for a in args {
                    match a {
                        Expr::Var(s) if !bound[*s] => {}
                        Expr::Cons { args: parts, .. } if unpackable(parts, bound) => {}
                        _ => {
                            let mut v = Vec::new();
                            expr_slots(a, &mut v);
                            if v.iter().any(|&s| !bound[s]) {
                                return None;
                            }
                            keyed += 1;
                        }
                    }
                }
                let rows = if self.compiled.rels[*rel].defined && range != Range::Delta {
                    // Not known while planning: assume a large relation.
                    1e6
                } else if range == Range::Delta {
                    1e3
                } else {
                    self.compiled.relations[*rel].len() as f64
                };
                let arity = args.len().max(1) as f64;
                let cost = rows.max(1.0).powf((arity - keyed as f64) / arity);
                Some((keyed > 0, cost))
            }
            Lit::Member {
                member,
                arg: Expr::Var(s),
                positive: true,
            } if !bound[*s] => {
                let size = match &self.compiled.members[*member] {
                    Member::Range(lo, hi) => (hi - lo + 1) as f64,
                    Member::Codes(set) => set.len() as f64,
                    Member::Generic(_) => return None,
                };
                Some((false, size))
            }
            _ => None,
        }
    }

    fn scan(&mut self, lit: &Lit, range: Range, bound: &mut [bool]) -> Option<Step> {
        match lit {
            Lit::Atom { rel, args, .. } => {
                let rel = *rel;
                let mut key_cols = Vec::new();
                let mut key = Vec::new();
                let mut binds = Vec::new();
                let mut same = Vec::new();
                let mut first_col: Vec<(usize, usize)> = Vec::new();
                let mut packed = Vec::new();
                for (col, a) in args.iter().enumerate() {
                    match a {
                        Expr::Cons {
                            func, args: parts, ..
                        } if unpackable(parts, bound) => packed.push((col, *func, parts)),
                        Expr::Var(s) if !bound[*s] => {
                            if let Some(&(_, c)) = first_col.iter().find(|(x, _)| x == s) {
                                same.push((c, col));
                            } else {
                                first_col.push((*s, col));
                                let member = self.compiled.slot_members[*s];
                                let col_sort = self.compiled.rels[rel].sorts[col];
                                let slot_sort = self.slot_sort(*s);
                                let check = (Some(col_sort) != slot_sort).then_some(member);
                                binds.push((col, *s, check));
                            }
                        }
                        _ => {
                            key_cols.push(col);
                            key.push(a.clone());
                        }
                    }
                }
                if key.len() > MAX_ARITY {
                    return None;
                }
                for &(s, _) in &first_col {
                    bound[s] = true;
                }
                let unpack = packed
                    .into_iter()
                    .map(|(col, func, parts)| Unpack {
                        col,
                        func,
                        parts: parts.iter().map(|p| self.part(p, bound)).collect(),
                    })
                    .collect();
                let index = (!key_cols.is_empty())
                    .then(|| self.compiled.relations[rel].index_on(&key_cols));
                Some(Step::Scan {
                    rel,
                    index,
                    key,
                    range,
                    reads: RowReads {
                        binds,
                        same,
                        unpack,
                    },
                })
            }
            Lit::Member {
                member,
                arg: Expr::Var(s),
                ..
            } => {
                let s = *s;
                let values = self.member_values(*member)?;
                let step = if self.compiled.slot_members[s] == *member {
                    Step::Enumerate { slot: s, values }
                } else {
                    // Enumerate the type's values and keep those of the variable's sort.
                    return self.enumerate_checked(s, values, bound);
                };
                bound[s] = true;
                Some(step)
            }
            _ => None,
        }
    }

    fn enumerate_checked(
        &mut self,
        slot: usize,
        values: Rc<[Code]>,
        bound: &mut [bool],
    ) -> Option<Step> {
        let member = self.compiled.slot_members[slot];
        let kept: Vec<Code> = values
            .iter()
            .copied()
            .filter(|&c| {
                let compiled = &*self.compiled;
                member_contains(&compiled.members, &compiled.codes, self.domains, member, c)
            })
            .collect();
        bound[slot] = true;
        Some(Step::Enumerate {
            slot,
            values: kept.into(),
        })
    }

    /// How a row's constructor argument meets `arg`: a slot not bound yet is bound (and is
    /// bound from then on), a bound one is compared.
    fn part(&self, arg: &Expr, bound: &mut [bool]) -> Part {
        match arg {
            Expr::Var(s) if !bound[*s] => {
                bound[*s] = true;
                Part::Bind {
                    slot: *s,
                    member: self.compiled.slot_members[*s],
                }
            }
            Expr::Var(s) => Part::Same(*s),
            e => Part::Bound(e.clone()),
        }
    }

    /// The sort of a slot, when its member test is a sort's.
    fn slot_sort(&self, slot: usize) -> Option<crate::sema::program::SortId> {
        self.compiled.slot_sorts.get(slot).copied()
    }
}

/// The variable of `v = t` or `t = v` (an equality that could assign it).
fn equality_var(lit: &Lit) -> Option<usize> {
    let Lit::Cmp {
        op: crate::syntax::ast::CmpOp::Eq,
        negated: false,
        a,
        b,
    } = lit
    else {
        return None;
    };
    match (a, b) {
        (Expr::Var(s), _) | (_, Expr::Var(s)) => Some(*s),
        _ => None,
    }
}

/// `slot = expr` (or `expr = slot`) when the slot is unbound and the expression's slots are.
fn assignment<'l>(lit: &'l Lit, bound: &[bool]) -> Option<(usize, &'l Expr)> {
    let Lit::Cmp {
        op: crate::syntax::ast::CmpOp::Eq,
        negated: false,
        a,
        b,
    } = lit
    else {
        return None;
    };
    for (x, e) in [(a, b), (b, a)] {
        if let Expr::Var(s) = x {
            if !bound[*s] {
                let mut v = Vec::new();
                expr_slots(e, &mut v);
                if v.iter().all(|&t| bound[t]) {
                    return Some((*s, e));
                }
            }
        }
    }
    None
}

/// Whether a constructor application in an atom can be read off the rows of a scan: some
/// argument is a slot not bound yet, and every other argument is bound (a slot or an
/// expression over bound slots; nested applications with unbound slots are not unpacked).
fn unpackable(parts: &[Expr], bound: &[bool]) -> bool {
    let mut unbound = false;
    for p in parts {
        match p {
            Expr::Var(s) if !bound[*s] => unbound = true,
            e => {
                let mut v = Vec::new();
                expr_slots(e, &mut v);
                if v.iter().any(|&s| !bound[s]) {
                    return false;
                }
            }
        }
    }
    unbound
}
