//! A set of tuples of one arity, stored flat: the tuples' values one after the other in one
//! vector and a hash table of row numbers. A lookup touches the table and one row, where a set
//! of `Vec`s would also follow each candidate's pointer to its own allocation; grounding looks
//! up the possibly true tuples of a definition's symbols once for every rule instance.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::structure::Value;

#[derive(Clone, Debug)]
pub struct TupleSet {
    arity: usize,
    /// The rows, `arity` values each.
    values: Vec<Value>,
    /// Row numbers, hashed by their values.
    rows: HashTable<u32>,
    /// The number of rows (kept apart: rows of arity 0 take no values).
    len: usize,
}

fn hash(tuple: &[Value]) -> u64 {
    FxBuildHasher.hash_one(tuple)
}

impl TupleSet {
    pub fn new(arity: usize) -> TupleSet {
        TupleSet {
            arity,
            values: Vec::new(),
            rows: HashTable::new(),
            len: 0,
        }
    }

    /// The set of `tuples`, each of `arity` values.
    pub fn of<'t>(arity: usize, tuples: impl IntoIterator<Item = &'t [Value]>) -> TupleSet {
        let mut set = TupleSet::new(arity);
        for t in tuples {
            set.insert(t);
        }
        set
    }

    fn row(&self, k: u32) -> &[Value] {
        let start = k as usize * self.arity;
        &self.values[start..start + self.arity]
    }

    pub fn contains(&self, tuple: &[Value]) -> bool {
        tuple.len() == self.arity
            && self
                .rows
                .find(hash(tuple), |&k| self.row(k) == tuple)
                .is_some()
    }

    /// Adds `tuple` (of the set's arity); whether it was new.
    pub fn insert(&mut self, tuple: &[Value]) -> bool {
        assert_eq!(tuple.len(), self.arity, "a tuple of the set's arity");
        if self.contains(tuple) {
            return false;
        }
        let k = u32::try_from(self.len).expect("fewer than 2^32 tuples");
        let (arity, values) = (self.arity, &self.values);
        self.rows.insert_unique(hash(tuple), k, |&j| {
            let start = j as usize * arity;
            hash(&values[start..start + arity])
        });
        self.values.extend_from_slice(tuple);
        self.len += 1;
        true
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The tuples in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &[Value]> + '_ {
        (0..self.len as u32).map(|k| self.row(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_inserted_and_nothing_else() {
        let mut set = TupleSet::new(2);
        for a in 0..100 {
            assert!(set.insert(&[Value::Int(a), Value::Int(a * a)]));
        }
        assert!(!set.insert(&[Value::Int(3), Value::Int(9)]));
        assert_eq!(set.len(), 100);
        for a in 0..100 {
            assert!(set.contains(&[Value::Int(a), Value::Int(a * a)]));
            assert!(!set.contains(&[Value::Int(a), Value::Int(a * a + 1)]));
        }
        assert!(!set.contains(&[Value::Int(1)]));
        let rows: Vec<&[Value]> = set.iter().take(2).collect();
        assert_eq!(rows[1], &[Value::Int(1), Value::Int(1)][..]);
    }

    #[test]
    fn arity_zero_holds_the_empty_tuple_once() {
        let mut set = TupleSet::new(0);
        assert!(!set.contains(&[]));
        assert!(set.insert(&[]));
        assert!(!set.insert(&[]));
        assert!(set.contains(&[]));
        assert_eq!(set.iter().count(), 1);
    }
}
