//! Domain elements as fixed-width codes: the rows of the Datalog engine are arrays of `u32`.
//!
//! A non-negative integer below 2^31 is its own code, so that arithmetic on the integers that
//! most specifications use (coordinates, time points, counters) needs no table lookup; every
//! other element (negative or large integers, floats, strings, compounds) is numbered in the
//! order it is first met, from 2^31 up. The coding is canonical: two codes are equal exactly when
//! the elements are, so rows compare and hash as plain integers.

use rustc_hash::FxHashMap as HashMap;

use crate::structure::Value;

/// The code of a domain element.
pub type Code = u32;

/// The first code of an element that is not a small non-negative integer.
const INTERNED: u32 = 1 << 31;

/// The value of `max` over an empty set (−∞): never the code of an element, only a value
/// that a term can take while a body is evaluated.
pub const NEG_INF: Code = u32::MAX;

/// The value of `min` over an empty set (+∞).
pub const POS_INF: Code = u32::MAX - 1;

/// The numbering of the elements met so far.
#[derive(Default)]
pub struct Codes {
    values: Vec<Value>,
    numbers: HashMap<Value, Code>,
}

impl Codes {
    /// The code of `v`, numbering it when it is new.
    pub fn encode(&mut self, v: Value) -> Code {
        if let Some(c) = direct(v) {
            return c;
        }
        if let Some(&c) = self.numbers.get(&v) {
            return c;
        }
        let c = INTERNED + self.values.len() as u32;
        assert!(c < POS_INF, "too many distinct domain elements");
        self.values.push(v);
        self.numbers.insert(v, c);
        c
    }

    /// The element of a code.
    pub fn decode(&self, c: Code) -> Value {
        if c < INTERNED {
            Value::Int(i64::from(c))
        } else {
            self.values[(c - INTERNED) as usize]
        }
    }

    /// The integer of a code, if it codes an integer.
    pub fn int(&self, c: Code) -> Option<i64> {
        if c < INTERNED {
            Some(i64::from(c))
        } else {
            self.values[(c - INTERNED) as usize].as_int()
        }
    }

    /// The code of an integer.
    pub fn encode_int(&mut self, i: i64) -> Code {
        self.encode(Value::Int(i))
    }
}

/// The code of a small non-negative integer, which is the integer itself.
fn direct(v: Value) -> Option<Code> {
    match v {
        Value::Int(i) if (0..i64::from(INTERNED)).contains(&i) => Some(i as Code),
        _ => None,
    }
}

/// Whether a code stands for itself (a small non-negative integer).
pub fn is_direct(c: Code) -> bool {
    c < INTERNED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_canonical() {
        let mut codes = Codes::default();
        let s = Value::str("a");
        for v in [
            Value::Int(0),
            Value::Int(7),
            Value::Int(-3),
            Value::Int(1 << 40),
            s,
        ] {
            let c = codes.encode(v);
            assert_eq!(codes.decode(c), v);
            assert_eq!(codes.encode(v), c);
        }
        assert_eq!(codes.encode(Value::Int(7)), 7);
        assert!(is_direct(7) && !is_direct(codes.encode(s)));
        let (minus, text) = (codes.encode(Value::Int(-3)), codes.encode(s));
        assert_eq!(codes.int(minus), Some(-3));
        assert_eq!(codes.int(text), None);
    }
}
