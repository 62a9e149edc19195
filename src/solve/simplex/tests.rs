//! The simplex against Fourier–Motzkin elimination on small random systems: every conflict
//! clause names constraints that have no common solution, every model keeps every
//! constraint in force, and no system with a solution is refuted (with backtracking between
//! assignments, as the SAT solver does it).

use super::*;

fn q(n: i64) -> Q {
    Q::from(n)
}

/// `Σ a·x ≥ b` (or `>` when strict) over rationals.
#[derive(Clone, Debug)]
struct Ineq {
    a: Vec<Q>,
    b: Q,
    strict: bool,
}

/// Whether the inequalities have a common solution, by eliminating one variable at a time.
fn feasible(mut system: Vec<Ineq>, vars: usize) -> bool {
    for x in 0..vars {
        let (mut pos, mut neg, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for i in system {
            if i.a[x].is_positive() {
                pos.push(i);
            } else if i.a[x].is_negative() {
                neg.push(i);
            } else {
                rest.push(i);
            }
        }
        for p in &pos {
            for n in &neg {
                // p.a·x ≥ p.b scaled by −n.a[x] plus n scaled by p.a[x]: x cancels.
                let (s, t) = (-n.a[x].clone(), p.a[x].clone());
                let a = (0..vars).map(|v| &p.a[v] * &s + &n.a[v] * &t).collect();
                rest.push(Ineq {
                    a,
                    b: &p.b * &s + &n.b * &t,
                    strict: p.strict || n.strict,
                });
            }
        }
        system = rest;
    }
    system.iter().all(|i| {
        if i.strict {
            Q::zero() > i.b
        } else {
            Q::zero() >= i.b
        }
    })
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn coefficient(&mut self) -> i64 {
        self.next(7) as i64 - 3
    }
}

/// Constraint `k` as asserted under `holds`.
fn asserted(terms: &[(usize, i64)], bound: i64, holds: bool, vars: usize) -> Ineq {
    let mut a = vec![Q::zero(); vars];
    for &(v, c) in terms {
        a[v] += q(c);
    }
    if holds {
        Ineq {
            a,
            b: q(bound),
            strict: false,
        }
    } else {
        Ineq {
            a: a.into_iter().map(|c| -c).collect(),
            b: q(-bound),
            strict: true,
        }
    }
}

#[test]
fn strict_and_weak_bounds() {
    let mut t = RealTheory::default();
    let x = t.add_var(None, None);
    let y = t.add_var(None, None);
    t.add_constraint(1, &[(x, q(1)), (y, q(1))], q(6));
    t.add_constraint(2, &[(x, q(1))], q(3));
    t.add_constraint(3, &[(y, q(1))], q(3));
    t.new_level();
    t.assigned(&[-2, -3]);
    assert_eq!(t.propagate(), 0);
    assert!(!t.has_clause());
    t.new_level();
    t.assigned(&[1]);
    t.propagate();
    assert!(t.has_clause());
    let mut clause = Vec::new();
    loop {
        let l = t.next_clause_lit();
        if l == 0 {
            break;
        }
        clause.push(l);
    }
    clause.sort_unstable();
    assert_eq!(clause, vec![-1, 2, 3]);
    t.backtrack(1);
    t.assigned(&[-1]);
    assert!(t.check_model());
    let (vx, vy) = (t.value(x).clone(), t.value(y).clone());
    assert!(vx < q(3) && vy < q(3) && &vx + &vy < q(6), "{vx} {vy}");
}

#[test]
fn a_third() {
    let mut t = RealTheory::default();
    let r = t.add_var(None, None);
    t.add_constraint(1, &[(r, q(3))], q(1));
    t.add_constraint(2, &[(r, q(-3))], q(-1));
    t.assigned(&[1, 2]);
    assert!(t.check_model());
    assert_eq!(t.value(r), &Q::from_parts(1.into(), 3u8.into()));
}

#[test]
fn random_systems_agree_with_elimination() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut refuted = 0;
    let mut solved = 0;
    for case in 0..3000 {
        let vars = 1 + rng.next(3) as usize;
        let count = 1 + rng.next(6) as usize;
        let mut t = RealTheory::default();
        let bounded = rng.next(2) == 0;
        for _ in 0..vars {
            if bounded {
                t.add_var(Some(q(-5)), Some(q(5)));
            } else {
                t.add_var(None, None);
            }
        }
        let mut constraints = Vec::new();
        for k in 0..count {
            let size = 1 + rng.next(vars as u64) as usize;
            let terms: Vec<(usize, i64)> = (0..size)
                .map(|_| (rng.next(vars as u64) as usize, rng.coefficient()))
                .collect();
            let bound = rng.next(11) as i64 - 5;
            let qterms: Vec<(usize, Q)> = terms.iter().map(|&(v, c)| (v, q(c))).collect();
            t.add_constraint(k as Lit + 1, &qterms, q(bound));
            constraints.push((terms, bound));
        }
        let declared = |vars: usize| -> Vec<Ineq> {
            if !bounded {
                return Vec::new();
            }
            (0..vars)
                .flat_map(|v| {
                    let unit = |s: i64| {
                        let mut a = vec![Q::zero(); vars];
                        a[v] = q(s);
                        Ineq {
                            a,
                            b: q(-5),
                            strict: false,
                        }
                    };
                    [unit(1), unit(-1)]
                })
                .collect()
        };
        // Three rounds of assignments, backtracking to a random level in between.
        let mut assignment: Vec<(Lit, usize)> = Vec::new();
        for _round in 0..3 {
            let mut conflict = None;
            for k in 1..=count as Lit {
                if assignment.iter().any(|(l, _)| l.abs() == k) {
                    continue;
                }
                let lit = if rng.next(2) == 0 { k } else { -k };
                t.new_level();
                let level = t.levels.len();
                assignment.push((lit, level));
                t.assigned(&[lit]);
                t.propagate();
                if t.has_clause() {
                    conflict = Some(clause_of(&mut t));
                    break;
                }
            }
            let in_force = |assignment: &[(Lit, usize)]| -> Vec<Ineq> {
                let mut system = declared(vars);
                for &(lit, _) in assignment {
                    let (terms, bound) = &constraints[lit.unsigned_abs() as usize - 1];
                    system.push(asserted(terms, *bound, lit > 0, vars));
                }
                system
            };
            let conflict = conflict.or_else(|| {
                (!t.check_model()).then(|| {
                    assert!(t.has_clause(), "case {case}: a refusal without a clause");
                    clause_of(&mut t)
                })
            });
            let refused = conflict.is_some();
            match conflict {
                Some(clause) => {
                    refuted += 1;
                    // Every literal of the clause is false now, and the constraints it
                    // names have no common solution.
                    let named: Vec<(Lit, usize)> = clause
                        .iter()
                        .map(|&l| {
                            assert!(
                                assignment.iter().any(|&(a, _)| a == -l),
                                "case {case}: {l} of {clause:?} is not false"
                            );
                            (-l, 0)
                        })
                        .collect();
                    assert!(
                        !feasible(in_force(&named), vars),
                        "case {case}: {clause:?} names a feasible set"
                    );
                }
                None => {
                    solved += 1;
                    assert!(
                        feasible(in_force(&assignment), vars),
                        "case {case}: a model of an infeasible system"
                    );
                    let value: Vec<Q> = (0..vars).map(|v| t.value(v).clone()).collect();
                    for i in in_force(&assignment) {
                        let total: Q = (0..vars).fold(Q::ZERO, |t, v| t + &i.a[v] * &value[v]);
                        let holds = if i.strict { total > i.b } else { total >= i.b };
                        assert!(holds, "case {case}: {i:?} fails at {value:?}");
                    }
                }
            }
            // After a conflict the solver goes below the level where it showed.
            let levels = t.levels.len() as u64 + u64::from(!refused);
            let keep = rng.next(levels) as usize;
            t.backtrack(keep);
            assignment.retain(|&(_, level)| level <= keep);
        }
    }
    assert!(
        refuted > 500 && solved > 500,
        "{refuted} refuted, {solved} solved"
    );
}

fn clause_of(t: &mut RealTheory) -> Vec<Lit> {
    let mut clause = Vec::new();
    loop {
        let l = t.next_clause_lit();
        if l == 0 {
            return clause;
        }
        clause.push(l);
    }
}

/// The least value of an objective under a model's bounds: reached at a weak bound, only
/// approached at a strict one, missing without one; the model moved there.
#[test]
fn objectives_are_minimised_under_the_bounds() {
    let third = |n: i64| Q::from_parts(n.into(), 3u8.into());
    // minimise 2x + y with x + y ≥ 3 (lit 1), x ≥ 0 (lit 2), 3y ≥ 1 (lit 3, strict when false).
    let mut t = RealTheory::default();
    let x = t.add_var(None, None);
    let y = t.add_var(None, None);
    t.add_constraint(1, &[(x, q(1)), (y, q(1))], q(3));
    t.add_constraint(2, &[(x, q(1))], q(0));
    t.add_constraint(3, &[(y, q(-3))], q(-1));
    t.set_objective(&[(x, q(2)), (y, q(1))]);
    t.assigned(&[1, 2, 3]);
    assert!(t.check_model());
    // y ≤ 1/3 forces x ≥ 8/3: 2x + y ≥ 16/3 + 1/3.
    assert_eq!(t.optimum(), Some(LpOptimum::Least(third(17), true)));
    assert_eq!((t.value(x), t.value(y)), (&third(8), &third(1)));
    t.backtrack(0);
    let mut t2 = RealTheory::default();
    let x = t2.add_var(None, None);
    t2.add_constraint(1, &[(x, q(1))], q(2));
    t2.set_objective(&[(x, q(1))]);
    t2.new_level();
    t2.assigned(&[-1]);
    assert!(t2.check_model());
    assert_eq!(t2.optimum(), Some(LpOptimum::Unbounded));
    let mut t3 = RealTheory::default();
    let x = t3.add_var(None, None);
    t3.add_constraint(1, &[(x, q(-1))], q(-2));
    t3.set_objective(&[(x, q(1))]);
    // ¬(−x ≥ −2): x > 2, approached only.
    t3.assigned(&[-1]);
    assert!(t3.check_model());
    assert_eq!(t3.optimum(), Some(LpOptimum::Least(q(2), false)));
    assert!(t3.value(x) > &q(2));
}
