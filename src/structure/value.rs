//! Domain elements: integers, floats, exact rationals, strings and compound terms
//! (constructor applications).
//!
//! `Value` is `Copy`: strings and compounds are interned in a thread-local table, so tuples of
//! values are cheap to hash, compare and copy during grounding. The order on values is IDP3's
//! (reference §12.1): numbers (compared numerically) < strings (byte order) < compounds.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::fmt;

use dashu_ratio::RBig as Q;

/// An exact rational: the value of a real, and the numbers of the simplex.
pub type Rational = Q;
use num_traits::ToPrimitive;

use crate::ids::FuncId;

/// The decimal that `f` prints as (Rust's shortest form that reads back as `f`), exactly.
pub fn decimal_of(f: f64) -> Option<Q> {
    if !f.is_finite() {
        return None;
    }
    let text = format!("{f}");
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let numerator: dashu_int::IBig = format!("{whole}{fraction}").parse().ok()?;
    let denominator = dashu_int::UBig::from(10u8).pow(fraction.len());
    Some(Q::from_parts(numerator * sign, denominator))
}

/// An interned string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrId(pub u32);

/// An interned rational that is neither an integer nor a float's decimal (see
/// [`Value::rational`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RatioId(pub u32);

/// An interned compound term `f(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CompoundId(pub u32);

#[derive(Clone, Copy, Debug)]
pub enum Value {
    Int(i64),
    /// A non-integral float (integral floats are normalised to `Int`, as IDP3 does).
    Float(f64),
    /// An exact rational such as 1/3 (a real the search chose): never integral, never the
    /// decimal of a float, so values equal exactly when their variants and ids are.
    Ratio(RatioId),
    Str(StrId),
    Compound(CompoundId),
}

/// The constructor and arguments of an interned compound.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compound {
    pub constructor: FuncId,
    pub args: Vec<Value>,
}

#[derive(Default)]
struct Interner {
    strings: Vec<String>,
    string_ids: FxHashMap<String, StrId>,
    compounds: Vec<Compound>,
    /// Hashed with Fx: a constructed type's elements are interned by the hundred thousand
    /// when a structure lists them.
    compound_ids: FxHashMap<Compound, CompoundId>,
    ratios: Vec<Q>,
    ratio_ids: FxHashMap<Q, RatioId>,
    /// Display names of constructors, registered by sema (FuncId -> name).
    constructor_names: HashMap<FuncId, String>,
}

thread_local! {
    static INTERNER: RefCell<Interner> = RefCell::new(Interner::default());
}

impl Value {
    /// A float, normalised to `Int` when it is integral and fits.
    pub fn float(f: f64) -> Value {
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            Value::Int(f as i64)
        } else {
            Value::Float(f)
        }
    }

    pub fn str(s: &str) -> Value {
        INTERNER.with(|i| {
            let mut i = i.borrow_mut();
            if let Some(id) = i.string_ids.get(s) {
                return Value::Str(*id);
            }
            let id = StrId(i.strings.len() as u32);
            i.strings.push(s.to_string());
            i.string_ids.insert(s.to_string(), id);
            Value::Str(id)
        })
    }

    pub fn compound(constructor: FuncId, args: Vec<Value>) -> Value {
        let c = Compound { constructor, args };
        INTERNER.with(|i| {
            let i = &mut *i.borrow_mut();
            let next = CompoundId(i.compounds.len() as u32);
            match i.compound_ids.entry(c) {
                std::collections::hash_map::Entry::Occupied(found) => Value::Compound(*found.get()),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    i.compounds.push(slot.key().clone());
                    slot.insert(next);
                    Value::Compound(next)
                }
            }
        })
    }

    /// The value of an exact rational: an integer when integral (and within `i64`), a float
    /// when `q` is the decimal a float prints as, an interned rational otherwise.
    pub fn rational(q: &Q) -> Value {
        if q.is_int() {
            if let Some(i) = q.to_i64() {
                return Value::Int(i);
            }
        }
        if let Some(f) = ToPrimitive::to_f64(q) {
            if f.is_finite() && f.fract() != 0.0 && decimal_of(f).as_ref() == Some(q) {
                return Value::Float(f);
            }
        }
        INTERNER.with(|i| {
            let i = &mut *i.borrow_mut();
            if let Some(id) = i.ratio_ids.get(q) {
                return Value::Ratio(*id);
            }
            let id = RatioId(i.ratios.len() as u32);
            i.ratios.push(q.clone());
            i.ratio_ids.insert(q.clone(), id);
            Value::Ratio(id)
        })
    }

    /// The exact number a value stands for: a float stands for the decimal it prints as
    /// (`0.1` is 1/10, as IDP-Z3 reads it).
    pub fn exact(self) -> Option<Q> {
        match self {
            Value::Int(i) => Some(Q::from(i)),
            Value::Float(f) => decimal_of(f),
            Value::Ratio(id) => Some(INTERNER.with(|i| i.borrow().ratios[id.0 as usize].clone())),
            _ => None,
        }
    }

    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            Value::Ratio(_) => ToPrimitive::to_f64(&self.exact()?),
            _ => None,
        }
    }

    pub fn is_number(self) -> bool {
        matches!(self, Value::Int(_) | Value::Float(_) | Value::Ratio(_))
    }

    /// The text of a string value.
    pub fn string_text(self) -> Option<String> {
        match self {
            Value::Str(id) => Some(str_text(id)),
            _ => None,
        }
    }

    /// The constructor and arguments of a compound value.
    pub fn compound_parts(self) -> Option<Compound> {
        match self {
            Value::Compound(id) => {
                Some(INTERNER.with(|i| i.borrow().compounds[id.0 as usize].clone()))
            }
            _ => None,
        }
    }

    fn kind_rank(self) -> u8 {
        match self {
            Value::Int(_) | Value::Float(_) | Value::Ratio(_) => 0,
            Value::Str(_) => 1,
            Value::Compound(_) => 2,
        }
    }
}

/// Compounds compare by constructor name, then constructor, then arguments; compared in place
/// in the interner (no copies), since domains of compounds are sorted and searched often.
fn compare_compounds(a: CompoundId, b: CompoundId) -> Ordering {
    INTERNER
        .with(|i| {
            let i = i.borrow();
            let (ca, cb) = (&i.compounds[a.0 as usize], &i.compounds[b.0 as usize]);
            // The same constructor has the same name: no lookup (this is the common case).
            let by_name = if ca.constructor == cb.constructor {
                Ordering::Equal
            } else {
                match (
                    i.constructor_names.get(&ca.constructor),
                    i.constructor_names.get(&cb.constructor),
                ) {
                    (Some(x), Some(y)) => x.cmp(y),
                    _ => Ordering::Equal,
                }
            };
            by_name
                .then(ca.constructor.cmp(&cb.constructor))
                .then_with(|| {
                    for (x, y) in ca.args.iter().zip(&cb.args) {
                        let o = match (x, y) {
                            (Value::Int(p), Value::Int(q)) => p.cmp(q),
                            _ => Ordering::Equal,
                        };
                        if o != Ordering::Equal {
                            return o;
                        }
                        if !matches!((x, y), (Value::Int(_), Value::Int(_))) {
                            // Nested strings or compounds: compare outside this borrow.
                            return Ordering::Equal;
                        }
                    }
                    ca.args.len().cmp(&cb.args.len())
                })
        })
        .then_with(|| {
            // Only reached when a nested non-integer argument decides (rare): full comparison.
            let (ca, cb) = (
                Value::Compound(a).compound_parts().unwrap(),
                Value::Compound(b).compound_parts().unwrap(),
            );
            ca.args.cmp(&cb.args)
        })
}

pub fn str_text(id: StrId) -> String {
    INTERNER.with(|i| i.borrow().strings[id.0 as usize].clone())
}

/// Registers the printed name of a constructor function.
pub fn register_constructor_name(f: FuncId, name: &str) {
    INTERNER.with(|i| {
        i.borrow_mut().constructor_names.insert(f, name.to_string());
    });
}

fn constructor_name(f: FuncId) -> String {
    INTERNER.with(|i| {
        i.borrow()
            .constructor_names
            .get(&f)
            .cloned()
            .unwrap_or_else(|| format!("c{}", f.0))
    })
}

/// Equality without the interner: interned strings and compounds are equal exactly when their
/// ids are (so comparing keys inside the interner's own maps never re-enters it).
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (*self, *other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(a), Value::Float(b)) | (Value::Float(b), Value::Int(a)) => a as f64 == b,
            (Value::Ratio(a), Value::Ratio(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Compound(a), Value::Compound(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match *self {
            Value::Int(i) => {
                0u8.hash(state);
                i.hash(state)
            }
            Value::Float(f) => {
                1u8.hash(state);
                f.to_bits().hash(state)
            }
            Value::Str(s) => {
                2u8.hash(state);
                s.hash(state)
            }
            Value::Compound(c) => {
                3u8.hash(state);
                c.hash(state)
            }
            Value::Ratio(r) => {
                4u8.hash(state);
                r.hash(state)
            }
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        match (*self, *other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(&b),
            (Value::Str(a), Value::Str(b)) if a == b => Ordering::Equal,
            (Value::Str(a), Value::Str(b)) => INTERNER.with(|i| {
                // Compared in place: sorting millions of names must not copy them.
                let i = i.borrow();
                i.strings[a.0 as usize].cmp(&i.strings[b.0 as usize])
            }),
            (Value::Compound(a), Value::Compound(b)) if a == b => Ordering::Equal,
            (Value::Compound(a), Value::Compound(b)) => compare_compounds(a, b),
            (a @ Value::Ratio(_), b) | (a, b @ Value::Ratio(_))
                if a.is_number() && b.is_number() =>
            {
                a.exact().cmp(&b.exact())
            }
            (a, b) if a.is_number() && b.is_number() => a
                .as_f64()
                .unwrap()
                .partial_cmp(&b.as_f64().unwrap())
                .unwrap_or(Ordering::Equal),
            (a, b) => a.kind_rank().cmp(&b.kind_rank()),
        }
    }
}

/// IDP3's printed form: ints in decimal, floats with up to 15 significant digits, strings in
/// double quotes, compounds as `f(a,b)` and nullary constructors as their bare name.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{}", format_float(x)),
            Value::Ratio(_) => write!(f, "{}", format_float(self.as_f64().unwrap_or(f64::NAN))),
            Value::Str(s) => write!(f, "\"{}\"", str_text(s)),
            Value::Compound(_) => {
                let c = self.compound_parts().unwrap();
                write!(f, "{}", constructor_name(c.constructor))?;
                if c.args.is_empty() {
                    return Ok(());
                }
                write!(f, "(")?;
                for (k, a) in c.args.iter().enumerate() {
                    if k > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// C++ stream output with precision 15 (`%.15g`).
pub fn format_float(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..15).contains(&exp) {
        let s = format!("{:.14e}", x);
        return trim_exponent_form(&s);
    }
    let decimals = (14 - exp).max(0) as usize;
    let s = format!("{:.*}", decimals, x);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn trim_exponent_form(s: &str) -> String {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    let e: i32 = exp.parse().unwrap_or(0);
    format!(
        "{}e{}{:02}",
        mantissa,
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

/// A tuple of domain elements.
pub type Tuple = Vec<Value>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_numbers_then_strings_then_compounds() {
        let c = Value::compound(FuncId(0), vec![]);
        let mut vs = vec![
            c,
            Value::str("b"),
            Value::Int(3),
            Value::str("a"),
            Value::Float(2.5),
        ];
        vs.sort();
        assert_eq!(
            vs,
            vec![
                Value::Float(2.5),
                Value::Int(3),
                Value::str("a"),
                Value::str("b"),
                c
            ]
        );
    }

    #[test]
    fn floats_print_like_cpp() {
        assert_eq!(format_float(4.5), "4.5");
        assert_eq!(format_float(0.1 + 0.2), "0.3");
        assert_eq!(Value::float(2.0), Value::Int(2));
    }
}
