//! A set of tuples of one arity, stored flat: the tuples' values one after the other in one
//! vector and a hash table of row numbers. A lookup touches the table and one row, where a set
//! of `Vec`s would also follow each candidate's pointer to its own allocation; grounding looks
//! up the possibly true tuples of a definition's symbols once for every rule instance.

use std::cell::RefCell;
use std::hash::BuildHasher;
use std::rc::Rc;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::structure::Value;

/// Rows sorted by some columns: the columns, and the rows' values at them, flat.
type SortedRows = (Vec<usize>, Rc<[Value]>);

#[derive(Clone, Debug)]
pub struct TupleSet {
    arity: usize,
    /// The rows, `arity` values each.
    values: Vec<Value>,
    /// Row numbers, hashed by their values.
    rows: HashTable<u32>,
    /// The number of rows (kept apart: rows of arity 0 take no values).
    len: usize,
    /// The rows in ascending order, flat, by the column orders asked for (see
    /// [`TupleSet::sorted_columns`]); dropped when a row is added.
    sorted: RefCell<Vec<SortedRows>>,
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
            sorted: RefCell::new(Vec::new()),
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
        self.sorted.get_mut().clear();
        true
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The tuples in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &[Value]> + '_ {
        (0..self.len as u32).map(|k| self.row(k))
    }

    /// The rows in ascending order (lexicographic, by [`Value`]'s order), flat: `arity` values
    /// a row. Computed once and shared: the rules of a definition with one head symbol (a
    /// state fluent's eight flips) are ground at the same sorted heads.
    pub fn sorted(&self) -> Rc<[Value]> {
        let columns: Vec<usize> = (0..self.arity).collect();
        self.sorted_columns(&columns)
    }

    /// The rows with their values at `columns` (distinct positions) in that order, sorted
    /// ascending, flat; computed once for each order of columns.
    pub fn sorted_columns(&self, columns: &[usize]) -> Rc<[Value]> {
        if let Some((_, rows)) = self.sorted.borrow().iter().find(|(c, _)| c == columns) {
            return rows.clone();
        }
        let rows = self.sort_rows(columns);
        self.sorted
            .borrow_mut()
            .push((columns.to_vec(), rows.clone()));
        rows
    }

    /// The rows at `columns`, sorted by the ranks of their values: the few distinct values
    /// are compared (through the interner, for names) once each, the rows as integers.
    fn sort_rows(&self, columns: &[usize]) -> Rc<[Value]> {
        let ranks = value_ranks(&self.values);
        let width = columns.len();
        let mut ranked: Vec<u32> = Vec::with_capacity(self.len * width);
        for k in 0..self.len as u32 {
            let row = self.row(k);
            ranked.extend(columns.iter().map(|&c| ranks[&row[c]]));
        }
        let key = |k: u32| &ranked[k as usize * width..(k as usize + 1) * width];
        let mut order: Vec<u32> = (0..self.len as u32).collect();
        order.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
        let mut flat = Vec::with_capacity(self.len * width);
        for k in order {
            let row = self.row(k);
            flat.extend(columns.iter().map(|&c| row[c]));
        }
        Rc::from(flat)
    }
}

/// The rank of each distinct value among `values` in [`Value`]'s order.
fn value_ranks(values: &[Value]) -> FxHashMap<Value, u32> {
    let distinct: FxHashSet<Value> = values.iter().copied().collect();
    let mut distinct: Vec<Value> = distinct.into_iter().collect();
    distinct.sort_unstable();
    distinct.into_iter().zip(0u32..).collect()
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
    fn sorts_its_rows_as_tuples_of_values_sort() {
        let mut set = TupleSet::new(2);
        let mut tuples: Vec<Vec<Value>> = Vec::new();
        for a in 0..50i64 {
            let t = vec![Value::Int((a * 7) % 5), Value::Int((a * 13) % 11 - 5)];
            if set.insert(&t) {
                tuples.push(t);
            }
        }
        tuples.sort();
        let flat: Vec<Value> = tuples.concat();
        assert_eq!(&set.sorted()[..], &flat[..]);
        assert!(set.insert(&[Value::Int(-9), Value::Int(0)]));
        assert_eq!(set.sorted()[..2], [Value::Int(-9), Value::Int(0)]);
        let mut swapped: Vec<Vec<Value>> = set.iter().map(|t| vec![t[1], t[0]]).collect();
        swapped.sort();
        assert_eq!(&set.sorted_columns(&[1, 0])[..], &swapped.concat()[..]);
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
