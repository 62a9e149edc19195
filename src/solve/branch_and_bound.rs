//! Integer values by linear programming, where bounds propagation converges too slowly: the
//! linear relaxation of the integer constraints in force is decided by the simplex
//! ([`RealTheory`]), and a fractional value `v` of a variable `x` splits the problem into
//! `x ≤ ⌊v⌋` and `x ≥ ⌊v⌋ + 1` (branch and bound, depth-first, the side nearer `v` first), as
//! SMT solvers decide linear integer arithmetic.
//!
//! Bounds propagation needs one round per unit when constraints push each other's bounds
//! (`x ≥ y + 2`, `x ≤ 3y` and a sum fixed to a total over ages in `0..10⁶` moved a bound by
//! a few units per round); the simplex reaches the corner in a few pivots whatever the range.
//!
//! A refutation names the rows it used: those of the simplex's conflict at each leaf of the
//! tree, whose union has no integer solution within the variables' declared bounds.

use std::collections::BTreeSet;

use num_traits::ToPrimitive;

use super::simplex::RealTheory;
use super::{Lit, Rational};

/// A row `Σ a·x ≥ b` over the integer variables.
pub type Row = (Vec<(u32, i128)>, i128);

/// How the search for integer values ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Values of the variables that keep every row and bound.
    Values(Vec<i64>),
    /// The rows (indices) that together have no integer solution within the bounds.
    Infeasible(Vec<usize>),
    /// The budget of nodes ran out first.
    Undecided,
}

/// Half-widths of the boxes around 0 searched before the variables' own bounds. Over wide
/// domains the relaxation's vertices lie at the domains' ends, and depth-first branching
/// from there can spend any budget without meeting an integer point, where a box around 0
/// (in which users' numbers mostly lie) has its vertices near integer points. A box only
/// finds values: its refutation is not one of the rows alone.
const BOXES: [i64; 2] = [64, 1 << 20];

/// Integer values for variables within `bounds` (`i64::MIN`, `i64::MAX`: unbounded on that
/// side) that keep every row, within `budget` nodes of the branch-and-bound tree (and a
/// quarter of it in each box of [`BOXES`] that is narrower than the bounds, tried first).
pub fn integer_values(bounds: &[(i64, i64)], rows: &[Row], budget: usize) -> Outcome {
    for half in BOXES {
        let boxed: Vec<(i64, i64)> = (bounds.iter())
            .map(|&(lo, hi)| (lo.max(-half), hi.min(half)))
            .collect();
        if boxed == bounds || boxed.iter().any(|(lo, hi)| lo > hi) {
            continue;
        }
        if let Outcome::Values(values) = values_within(&boxed, rows, budget / 4) {
            return Outcome::Values(values);
        }
    }
    values_within(bounds, rows, budget)
}

/// [`integer_values`] by depth-first branch and bound within `bounds` alone.
fn values_within(bounds: &[(i64, i64)], rows: &[Row], budget: usize) -> Outcome {
    let mut lp = RealTheory::default();
    for &(lo, hi) in bounds {
        let side = |b: i64, unbounded: i64| (b != unbounded).then(|| Rational::from(b));
        lp.add_var(side(lo, i64::MIN), side(hi, i64::MAX));
    }
    // Row k is literal k + 1, always true; branches get the literals after them.
    for (k, (terms, bound)) in rows.iter().enumerate() {
        let terms: Vec<(usize, Rational)> = terms
            .iter()
            .map(|&(v, a)| (v as usize, Rational::from(a)))
            .collect();
        lp.add_constraint(row_lit(k), &terms, Rational::from(*bound));
    }
    let all: Vec<Lit> = (0..rows.len()).map(row_lit).collect();
    lp.assigned(&all);
    let mut next = row_lit(rows.len());
    let mut used: BTreeSet<usize> = BTreeSet::new();
    // Per depth: the branches of that node not tried yet, the last first.
    let mut open: Vec<Vec<Lit>> = Vec::new();
    for _ in 0..budget {
        if lp.check_model() {
            let Some((v, value)) = fractional(&lp, bounds.len()) else {
                let values = (0..bounds.len())
                    .map(|v| lp.value(v).to_i64().expect("an integer within i64"))
                    .collect();
                return Outcome::Values(values);
            };
            let below = value.floor();
            let Some(below) = below.to_i64() else {
                return Outcome::Undecided;
            };
            // x ≥ ⌊v⌋ + 1 and −x ≥ −⌊v⌋.
            let (up, down) = (next, next + 1);
            next += 2;
            lp.add_constraint(
                up,
                &[(v, Rational::ONE)],
                Rational::from(below) + Rational::ONE,
            );
            lp.add_constraint(down, &[(v, -Rational::ONE)], -Rational::from(below));
            let nearer_below =
                (&value - Rational::from(below)) < Rational::from_parts(1.into(), 2u8.into());
            open.push(if nearer_below {
                vec![up, down]
            } else {
                vec![down, up]
            });
        } else {
            while lp.has_clause() {
                loop {
                    let lit = lp.next_clause_lit();
                    if lit == 0 {
                        break;
                    }
                    if let Some(k) = row_of(-lit, rows.len()) {
                        used.insert(k);
                    }
                }
            }
        }
        // The next branch: the last untried one of the deepest node that has one.
        loop {
            let depth = open.len();
            let Some(branches) = open.last_mut() else {
                return Outcome::Infeasible(used.into_iter().collect());
            };
            match branches.pop() {
                Some(lit) => {
                    lp.backtrack(depth - 1);
                    lp.new_level();
                    lp.assigned(&[lit]);
                    break;
                }
                None => {
                    open.pop();
                }
            }
        }
    }
    Outcome::Undecided
}

/// The literal of row `k`.
fn row_lit(k: usize) -> Lit {
    k as Lit + 1
}

/// The row whose literal is `lit`, if it is one.
fn row_of(lit: Lit, rows: usize) -> Option<usize> {
    (1..=rows as Lit).contains(&lit).then(|| (lit - 1) as usize)
}

/// The first of the `n` variables whose value in the relaxation is not an integer.
fn fractional(lp: &RealTheory, n: usize) -> Option<(usize, Rational)> {
    (0..n)
        .map(|v| (v, lp.value(v)))
        .find(|(_, q)| !q.is_int())
        .map(|(v, q)| (v, q.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2x + 2y = 3 has rational solutions and no integer one.
    #[test]
    fn parity_is_refuted_by_branching() {
        let rows = vec![(vec![(0, 2), (1, 2)], 3), (vec![(0, -2), (1, -2)], -3)];
        let outcome = integer_values(&[(-5, 5), (-5, 5)], &rows, 1000);
        assert_eq!(outcome, Outcome::Infeasible(vec![0, 1]));
    }

    /// Two equalities over 32-bit integers with an integer point near 0 (`y - 3z + 3x + 2f =
    /// 4`, `y + x + 2z = 0`, `z ≥ 5`): the relaxation's vertices lie at the domains' ends,
    /// where depth-first branching found no integer point within its budget.
    #[test]
    fn integer_points_near_zero_over_32_bit_domains() {
        let (x, y, z, f) = (0, 1, 2, 3);
        let rows = vec![
            (vec![(y, 1), (z, -3), (x, 3), (f, 2)], 4),
            (vec![(y, -1), (z, 3), (x, -3), (f, -2)], -4),
            (vec![(y, 1), (x, 1), (z, 2)], 0),
            (vec![(y, -1), (x, -1), (z, -2)], 0),
            (vec![(z, 1)], 5),
        ];
        let bounds = [(i32::MIN as i64, i32::MAX as i64); 4];
        let Outcome::Values(v) = integer_values(&bounds, &rows, 10_000) else {
            panic!("values expected");
        };
        for (terms, bound) in &rows {
            let total: i128 = terms.iter().map(|&(x, a)| a * v[x as usize] as i128).sum();
            assert!(total >= *bound, "{v:?}");
        }
    }

    /// The siblings' ages over a range of a million: the corner in a few pivots.
    #[test]
    fn ages_over_a_wide_range() {
        // a ≥ b + 2, b ≥ c + 2, a ≤ 3c, a + b + c = 2 000 007, a ≤ 800 003.
        let rows = vec![
            (vec![(0, 1), (1, -1)], 2),
            (vec![(1, 1), (2, -1)], 2),
            (vec![(0, -1), (2, 3)], 0),
            (vec![(0, 1), (1, 1), (2, 1)], 2_000_007),
            (vec![(0, -1), (1, -1), (2, -1)], -2_000_007),
            (vec![(0, -1)], -800_003),
        ];
        let Outcome::Values(v) = integer_values(&[(0, 1_000_000); 3], &rows, 1000) else {
            panic!("values expected");
        };
        for (terms, bound) in &rows {
            let total: i128 = terms.iter().map(|&(x, a)| a * v[x as usize] as i128).sum();
            assert!(total >= *bound, "{v:?}");
        }
    }

    /// Random small systems against enumeration of every integer point.
    #[test]
    fn random_systems_agree_with_enumeration() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..500 {
            let vars = 1 + next(3) as usize;
            let rows: Vec<Row> = (0..1 + next(4))
                .map(|_| {
                    let terms = (0..vars)
                        .map(|v| (v as u32, next(9) as i128 - 4))
                        .filter(|&(_, a)| a != 0)
                        .collect();
                    (terms, next(13) as i128 - 6)
                })
                .collect();
            let bounds = vec![(-4, 4); vars];
            let holds = |point: &[i64]| {
                rows.iter().all(|(terms, b)| {
                    terms
                        .iter()
                        .map(|&(v, a)| a * point[v as usize] as i128)
                        .sum::<i128>()
                        >= *b
                })
            };
            let mut exists = false;
            let mut point = vec![-4i64; vars];
            'all: loop {
                exists |= holds(&point);
                for x in point.iter_mut() {
                    if *x < 4 {
                        *x += 1;
                        continue 'all;
                    }
                    *x = -4;
                }
                break;
            }
            match integer_values(&bounds, &rows, 10_000) {
                Outcome::Values(v) => assert!(holds(&v), "{rows:?}: {v:?}"),
                Outcome::Infeasible(used) => {
                    assert!(!exists, "{rows:?} refuted");
                    let kept: Vec<Row> = used.iter().map(|&k| rows[k].clone()).collect();
                    assert!(
                        matches!(
                            integer_values(&bounds, &kept, 10_000),
                            Outcome::Infeasible(_)
                        ),
                        "the rows named refute on their own"
                    );
                }
                Outcome::Undecided => panic!("{rows:?} undecided"),
            }
        }
    }
}
