//! Relations of the Datalog engine: rows of codes stored back to back in one vector, a hash
//! set of the rows (for deduplication, without an allocation per row), and hash indexes on
//! column sets, built once per relation and column set and extended as rows are appended.
//!
//! Rows are only appended, never removed, so "the rows derived before round k" is a prefix of
//! the relation: semi-naive evaluation selects old, new and all rows by row number. An index
//! chains the rows that share a key from the newest to the oldest, so a range of row numbers
//! is a contiguous stretch of every chain.

use super::codes::Code;

/// A row number.
pub type RowId = u32;

/// No row (the end of a chain, an empty slot).
pub const NONE: RowId = u32::MAX;

/// The hash of some codes (FxHash's mixing step; the table takes the high bits of a final
/// multiplication, which depend on every input bit).
pub fn hash_codes(codes: impl Iterator<Item = Code>) -> u64 {
    let mut h: u64 = 0;
    for c in codes {
        h = (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h
}

/// An open-addressing table of row numbers (linear probing; a power of two in size, at most
/// half full).
#[derive(Clone, Debug)]
struct Slots {
    slots: Vec<RowId>,
    shift: u32,
    used: usize,
}

impl Slots {
    fn new() -> Slots {
        Slots {
            slots: vec![NONE; 16],
            shift: 64 - 4,
            used: 0,
        }
    }

    fn start(&self, hash: u64) -> usize {
        (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Whether one more entry would make the table more than half full.
    fn full(&self) -> bool {
        (self.used + 1) * 2 > self.slots.len()
    }

    /// An empty table twice as large.
    fn doubled(&self) -> Slots {
        Slots {
            slots: vec![NONE; self.slots.len() * 2],
            shift: self.shift - 1,
            used: 0,
        }
    }
}

/// A hash index: the rows by the values of some columns.
#[derive(Clone, Debug)]
pub struct Index {
    cols: Box<[usize]>,
    /// The newest row of each key.
    heads: Slots,
    /// For each row, the next older row with the same key.
    next: Vec<RowId>,
}

/// A relation: rows of `arity` codes.
#[derive(Clone, Debug)]
pub struct Relation {
    arity: usize,
    len: u32,
    data: Vec<Code>,
    hashes: Vec<u32>,
    set: Slots,
    indexes: Vec<Index>,
}

impl Relation {
    pub fn new(arity: usize) -> Relation {
        Relation {
            arity,
            len: 0,
            data: Vec::new(),
            hashes: Vec::new(),
            set: Slots::new(),
            indexes: Vec::new(),
        }
    }

    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The number of rows.
    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `r`.
    pub fn row(&self, r: RowId) -> &[Code] {
        let start = r as usize * self.arity;
        &self.data[start..start + self.arity]
    }

    /// Whether the relation has `row`.
    pub fn contains(&self, row: &[Code]) -> bool {
        self.find(row, hash_codes(row.iter().copied())).is_some()
    }

    /// The number of `row`, if the relation has it.
    pub fn position(&self, row: &[Code]) -> Option<RowId> {
        self.find(row, hash_codes(row.iter().copied()))
    }

    /// Removes every row (and the indexes' entries), keeping the allocations.
    pub fn clear(&mut self) {
        self.len = 0;
        self.data.clear();
        self.hashes.clear();
        self.set.slots.fill(NONE);
        self.set.used = 0;
        for index in &mut self.indexes {
            index.heads.slots.fill(NONE);
            index.heads.used = 0;
            index.next.clear();
        }
    }

    /// All rows, back to back.
    pub fn rows(&self) -> impl Iterator<Item = &[Code]> {
        // A nullary relation has one empty row when it is non-empty.
        (0..self.len).map(move |r| self.row(r))
    }

    fn find(&self, row: &[Code], hash: u64) -> Option<RowId> {
        let mask = self.set.mask();
        let mut i = self.set.start(hash);
        loop {
            let r = self.set.slots[i];
            if r == NONE {
                return None;
            }
            if self.hashes[r as usize] == hash as u32 && self.row(r) == row {
                return Some(r);
            }
            i = (i + 1) & mask;
        }
    }

    /// Appends `row` unless the relation has it; whether it was new.
    pub fn insert(&mut self, row: &[Code]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        let hash = hash_codes(row.iter().copied());
        if self.find(row, hash).is_some() {
            return false;
        }
        if self.set.full() {
            self.grow_set();
        }
        let r = self.len;
        self.data.extend_from_slice(row);
        self.hashes.push(hash as u32);
        self.len += 1;
        self.place(r, hash);
        true
    }

    fn place(&mut self, r: RowId, hash: u64) {
        let mask = self.set.mask();
        let mut i = self.set.start(hash);
        while self.set.slots[i] != NONE {
            i = (i + 1) & mask;
        }
        self.set.slots[i] = r;
        self.set.used += 1;
    }

    fn grow_set(&mut self) {
        self.set = self.set.doubled();
        for r in 0..self.len {
            let hash = hash_codes(self.row(r).iter().copied());
            self.place(r, hash);
        }
    }

    /// The number of the index on `cols`, made (empty) when there is none yet.
    pub fn index_on(&mut self, cols: &[usize]) -> usize {
        if let Some(k) = self.indexes.iter().position(|ix| &*ix.cols == cols) {
            return k;
        }
        self.indexes.push(Index {
            cols: cols.into(),
            heads: Slots::new(),
            next: Vec::new(),
        });
        self.indexes.len() - 1
    }

    /// Brings every index up to date with the rows appended since.
    pub fn extend_indexes(&mut self) {
        for k in 0..self.indexes.len() {
            self.extend_index(k);
        }
    }

    /// Brings index `k` up to date with the rows appended since it was last extended.
    pub fn extend_index(&mut self, k: usize) {
        let mut index = std::mem::replace(&mut self.indexes[k], Index::placeholder());
        for r in index.next.len() as RowId..self.len {
            index.add(self, r);
        }
        self.indexes[k] = index;
    }

    /// The newest row whose columns of index `k` have the values `key` (follow
    /// [`Relation::older`] for the others), or [`NONE`].
    pub fn newest(&self, k: usize, key: &[Code]) -> RowId {
        let index = &self.indexes[k];
        let hash = hash_codes(key.iter().copied());
        let mask = index.heads.mask();
        let mut i = index.heads.start(hash);
        loop {
            let r = index.heads.slots[i];
            if r == NONE {
                return NONE;
            }
            if index.cols.iter().zip(key).all(|(&c, &v)| self.row(r)[c] == v) {
                return r;
            }
            i = (i + 1) & mask;
        }
    }

    /// The next older row with the same key as row `r` in index `k`, or [`NONE`].
    pub fn older(&self, k: usize, r: RowId) -> RowId {
        self.indexes[k].next[r as usize]
    }
}

impl Index {
    fn placeholder() -> Index {
        Index {
            cols: Box::new([]),
            heads: Slots::new(),
            next: Vec::new(),
        }
    }

    fn key_hash(&self, rel: &Relation, r: RowId) -> u64 {
        let row = rel.row(r);
        hash_codes(self.cols.iter().map(|&c| row[c]))
    }

    /// Chains row `r` (the next row in order) in front of the rows with its key.
    fn add(&mut self, rel: &Relation, r: RowId) {
        let hash = self.key_hash(rel, r);
        let mask = self.heads.mask();
        let mut i = self.heads.start(hash);
        loop {
            let head = self.heads.slots[i];
            if head == NONE {
                break;
            }
            let (a, b) = (rel.row(head), rel.row(r));
            if self.cols.iter().all(|&c| a[c] == b[c]) {
                self.next.push(head);
                self.heads.slots[i] = r;
                return;
            }
            i = (i + 1) & mask;
        }
        self.next.push(NONE);
        if self.heads.full() {
            self.grow(rel);
        }
        self.place(hash, r);
    }

    fn place(&mut self, hash: u64, r: RowId) {
        let mask = self.heads.mask();
        let mut i = self.heads.start(hash);
        while self.heads.slots[i] != NONE {
            i = (i + 1) & mask;
        }
        self.heads.slots[i] = r;
        self.heads.used += 1;
    }

    fn grow(&mut self, rel: &Relation) {
        let old = std::mem::replace(&mut self.heads, Slots::new());
        self.heads = old.doubled();
        for &head in old.slots.iter().filter(|&&h| h != NONE) {
            let hash = self.key_hash(rel, head);
            self.place(hash, head);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_kept_once_and_indexed_newest_first() {
        let mut rel = Relation::new(2);
        for i in 0..1000u32 {
            assert!(rel.insert(&[i % 10, i]));
            assert!(!rel.insert(&[i % 10, i]));
        }
        assert_eq!(rel.len(), 1000);
        assert!(rel.contains(&[3, 13]) && !rel.contains(&[3, 14]));
        let k = rel.index_on(&[0]);
        rel.extend_index(k);
        let mut r = rel.newest(k, &[7]);
        let mut seen = Vec::new();
        while r != NONE {
            seen.push(rel.row(r)[1]);
            r = rel.older(k, r);
        }
        let expected: Vec<u32> = (0..100).rev().map(|j| j * 10 + 7).collect();
        assert_eq!(seen, expected);
        assert_eq!(rel.newest(k, &[11]), NONE);
        rel.insert(&[7, 5000]);
        rel.extend_index(k);
        assert_eq!(rel.row(rel.newest(k, &[7]))[1], 5000);
    }

    #[test]
    fn nullary_relations_hold_one_row() {
        let mut rel = Relation::new(0);
        assert!(!rel.contains(&[]));
        assert!(rel.insert(&[]));
        assert!(!rel.insert(&[]));
        assert_eq!(rel.len(), 1);
        assert!(rel.contains(&[]));
    }
}
