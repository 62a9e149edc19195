//! Relations of the Datalog engine: rows of codes stored back to back in one vector, a hash
//! set of the rows (for deduplication, without an allocation per row), and hash indexes on
//! column sets, built once per relation and column set and extended as rows are appended.
//!
//! Rows are only appended, never removed, so "the rows derived before round k" is a prefix of
//! the relation: semi-naive evaluation selects old, new and all rows by row number. An index
//! chains the rows that share a key from the newest to the oldest, so a range of row numbers
//! is a contiguous stretch of every chain.
//!
//! The hash tables keep a 32-bit fingerprint of each key next to its row number, so a probe
//! reads the row itself only when the fingerprints match (a probe for a new row costs one
//! cache miss, not three), and growing a table never hashes a row again.

use super::codes::Code;

/// A row number.
pub type RowId = u32;

/// No row (the end of a chain).
pub const NONE: RowId = u32::MAX;

/// An empty slot.
const EMPTY: u64 = u64::MAX;

/// The fingerprint of some codes: FxHash's mixing step, then the high half of a final
/// multiplication, which depends on every input bit.
pub fn hash_codes(codes: impl Iterator<Item = Code>) -> u32 {
    let mut h: u64 = 0;
    for c in codes {
        h = (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

/// An open-addressing table of (fingerprint, row) entries (linear probing; a power of two in
/// size, at most half full).
#[derive(Clone, Debug)]
struct Slots {
    slots: Vec<u64>,
    mask: usize,
    used: usize,
}

fn entry(fp: u32, r: RowId) -> u64 {
    (u64::from(fp) << 32) | u64::from(r)
}

fn fingerprint(e: u64) -> u32 {
    (e >> 32) as u32
}

fn row_of(e: u64) -> RowId {
    e as u32
}

impl Slots {
    fn new() -> Slots {
        Slots {
            slots: vec![EMPTY; 16],
            mask: 15,
            used: 0,
        }
    }

    /// The first slot to probe for fingerprint `fp` (its low bits are well mixed).
    fn start(&self, fp: u32) -> usize {
        (fp.rotate_left(16) as usize) & self.mask
    }

    /// Whether one more entry would make the table more than half full.
    fn full(&self) -> bool {
        (self.used + 1) * 2 > self.slots.len()
    }

    /// Puts an entry in the first empty slot of its probe sequence.
    fn place(&mut self, e: u64) {
        let mut i = self.start(fingerprint(e));
        while self.slots[i] != EMPTY {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = e;
        self.used += 1;
    }

    /// The table twice as large, with the same entries.
    fn grow(&mut self) {
        let old = std::mem::replace(
            self,
            Slots {
                slots: vec![EMPTY; self.slots.len() * 2],
                mask: self.slots.len() * 2 - 1,
                used: 0,
            },
        );
        for e in old.slots.into_iter().filter(|&e| e != EMPTY) {
            self.place(e);
        }
    }

    #[cfg(test)]
    fn clear(&mut self) {
        self.slots.fill(EMPTY);
        self.used = 0;
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
    set: Slots,
    indexes: Vec<Index>,
}

impl Relation {
    pub fn new(arity: usize) -> Relation {
        Relation {
            arity,
            len: 0,
            data: Vec::new(),
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

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `r`.
    #[inline]
    pub fn row(&self, r: RowId) -> &[Code] {
        let start = r as usize * self.arity;
        &self.data[start..start + self.arity]
    }

    /// Whether the relation has `row`.
    #[cfg(test)]
    pub fn contains(&self, row: &[Code]) -> bool {
        self.find(row, hash_codes(row.iter().copied())).is_some()
    }

    /// The number of `row`, if the relation has it.
    pub fn position(&self, row: &[Code]) -> Option<RowId> {
        self.find(row, hash_codes(row.iter().copied()))
    }

    #[inline]
    fn find(&self, row: &[Code], fp: u32) -> Option<RowId> {
        let mut i = self.set.start(fp);
        loop {
            let e = self.set.slots[i];
            if e == EMPTY {
                return None;
            }
            if fingerprint(e) == fp && self.row(row_of(e)) == row {
                return Some(row_of(e));
            }
            i = (i + 1) & self.set.mask;
        }
    }

    /// Appends `row` unless the relation has it; whether it was new.
    pub fn insert(&mut self, row: &[Code]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        let fp = hash_codes(row.iter().copied());
        if self.find(row, fp).is_some() {
            return false;
        }
        if self.set.full() {
            self.set.grow();
        }
        let r = self.len;
        assert!(r < NONE, "too many rows in a relation");
        self.data.extend_from_slice(row);
        self.len += 1;
        self.set.place(entry(fp, r));
        true
    }

    /// Removes every row (and the indexes' entries), keeping the allocations.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.len = 0;
        self.data.clear();
        self.set.clear();
        for index in &mut self.indexes {
            index.heads.clear();
            index.next.clear();
        }
    }

    /// All rows, in the order they were added.
    pub fn rows(&self) -> impl Iterator<Item = &[Code]> {
        (0..self.len).map(move |r| self.row(r))
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
    #[inline]
    pub fn newest(&self, k: usize, key: &[Code]) -> RowId {
        let index = &self.indexes[k];
        let fp = hash_codes(key.iter().copied());
        let mut i = index.heads.start(fp);
        loop {
            let e = index.heads.slots[i];
            if e == EMPTY {
                return NONE;
            }
            if fingerprint(e) == fp {
                let row = self.row(row_of(e));
                if index.cols.iter().zip(key).all(|(&c, &v)| row[c] == v) {
                    return row_of(e);
                }
            }
            i = (i + 1) & index.heads.mask;
        }
    }

    /// The next older row with the same key as row `r` in index `k`, or [`NONE`].
    #[inline]
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

    /// Chains row `r` (the next row in order) in front of the rows with its key.
    fn add(&mut self, rel: &Relation, r: RowId) {
        let row = rel.row(r);
        let fp = hash_codes(self.cols.iter().map(|&c| row[c]));
        let mut i = self.heads.start(fp);
        loop {
            let e = self.heads.slots[i];
            if e == EMPTY {
                break;
            }
            if fingerprint(e) == fp {
                let head = rel.row(row_of(e));
                if self.cols.iter().all(|&c| head[c] == row[c]) {
                    self.next.push(row_of(e));
                    self.heads.slots[i] = entry(fp, r);
                    return;
                }
            }
            i = (i + 1) & self.heads.mask;
        }
        self.next.push(NONE);
        if self.heads.full() {
            self.heads.grow();
        }
        self.heads.place(entry(fp, r));
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
        assert_eq!(rel.position(&[3, 13]), Some(13));
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
        rel.clear();
        assert!(rel.is_empty() && !rel.contains(&[7, 5000]));
        assert!(rel.insert(&[7, 5000]));
        rel.extend_index(k);
        assert_eq!(rel.newest(k, &[7]), 0);
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
