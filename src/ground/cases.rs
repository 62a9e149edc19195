//! The cases of a function application with known arguments (`At(t)` for a bound `t`): each
//! value the application may take with the ground condition under which it takes it, sorted
//! by value and shared between the atoms that apply it.
//!
//! Atoms such as `Adj(At(t), d, p)` look up one value in the cases of `At(t)` for every `d` and
//! `p`. Values of constructed types compare through the interner, so after a few lookups the
//! cases build a hash index of their values and answer each further lookup with one probe.

use std::cell::{Cell, OnceCell};
use std::ops::Deref;
use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use crate::ground::store::Gf;
use crate::structure::Value;

/// Lookups answered by binary search before a hash index is built: a list looked up once or
/// twice (most of them) does not pay for an index.
const LOOKUPS_BEFORE_INDEX: u32 = 8;

/// Cases sorted by value, cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct Cases(Rc<CaseList>);

#[derive(Debug)]
struct CaseList {
    sorted: Box<[(Gf, Value)]>,
    lookups: Cell<u32>,
    by_value: OnceCell<HashMap<Value, Gf>>,
}

impl Cases {
    /// The cases in any order (sorted here).
    pub fn new(mut cases: Vec<(Gf, Value)>) -> Cases {
        cases.sort_by_key(|c| c.1);
        Cases(Rc::new(CaseList {
            sorted: cases.into_boxed_slice(),
            lookups: Cell::new(0),
            by_value: OnceCell::new(),
        }))
    }

    /// The one value the application takes whatever holds, if it has one.
    pub fn single(&self) -> Option<Value> {
        match &self.0.sorted[..] {
            [(Gf::TRUE, v)] => Some(*v),
            _ => None,
        }
    }

    /// The condition under which the application takes `v` (`None` when it cannot).
    pub fn guard_of(&self, v: Value) -> Option<Gf> {
        let list = &self.0;
        if let Some(index) = list.by_value.get() {
            return index.get(&v).copied();
        }
        let lookups = list.lookups.get() + 1;
        list.lookups.set(lookups);
        if lookups > LOOKUPS_BEFORE_INDEX && list.sorted.len() > LOOKUPS_BEFORE_INDEX as usize {
            let index = list
                .by_value
                .get_or_init(|| list.sorted.iter().map(|&(g, value)| (value, g)).collect());
            return index.get(&v).copied();
        }
        list.sorted
            .binary_search_by(|(_, c)| c.cmp(&v))
            .ok()
            .map(|i| list.sorted[i].0)
    }
}

impl Deref for Cases {
    type Target = [(Gf, Value)];

    fn deref(&self) -> &[(Gf, Value)] {
        &self.0.sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree_before_and_after_the_index() {
        // The value 2k has the guard k + 2 (any node reference will do).
        let guard = |k: i64| Gf(k as i32 + 2);
        let cases = Cases::new(
            (0..50)
                .rev()
                .map(|k| (guard(k), Value::Int(2 * k)))
                .collect(),
        );
        assert_eq!(cases[0], (guard(0), Value::Int(0)));
        for round in 0..3 {
            for v in 0..100 {
                let expected = (v % 2 == 0).then(|| guard(v / 2));
                assert_eq!(
                    cases.guard_of(Value::Int(v)),
                    expected,
                    "round {round}, {v}"
                );
            }
        }
        assert!(cases.0.by_value.get().is_some());
    }
}
