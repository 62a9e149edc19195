//! Domain elements as written in vocabularies, structures and factlists: numbers, strings,
//! identifiers (strings, or nullary constructors), compounds `F(1,"a")` and ranges.

use super::{Entry, Resolver};
use crate::ids::{FuncId, VocId};
use crate::structure::Value;
use crate::syntax::ast::{Element, ElementKind, Pointer};

/// IDP3 integers are C `int`s.
const INT_LIMIT: i64 = i32::MAX as i64;

/// Ranges with more elements are not enumerated (IDP3 keeps them symbolic; `Structure` cannot).
pub(super) const MAX_RANGE: i64 = 10_000_000;

impl Resolver<'_> {
    /// The values an element stands for (a range stands for several). Errors are reported and
    /// yield no values. `expect` is the sort-context hint used to pick between overloaded
    /// constructors (unused for now).
    pub(super) fn element_values(
        &mut self,
        voc: VocId,
        e: &Element,
        _expect: Option<()>,
    ) -> Vec<Value> {
        match &e.kind {
            ElementKind::IntRange(a, b) => {
                if a > b {
                    self.error(
                        "invalid-range",
                        format!("{a}..{b} is an invalid range."),
                        e.span,
                    );
                    return Vec::new();
                }
                if !self.check_int(*a, e) || !self.check_int(*b, e) {
                    return Vec::new();
                }
                if b - a >= MAX_RANGE {
                    let msg = format!("The range {a}..{b} is too large to enumerate; the interpretation is ignored.");
                    self.warning("domain-too-large", msg, e.span);
                    return Vec::new();
                }
                (*a..=*b).map(Value::Int).collect()
            }
            ElementKind::CharRange(a, b) => {
                if a > b {
                    self.error(
                        "invalid-range",
                        format!("'{a}..{b}' is an invalid range."),
                        e.span,
                    );
                    return Vec::new();
                }
                (*a..=*b).map(|c| Value::str(&c.to_string())).collect()
            }
            _ => self.element_value(voc, e).into_iter().collect(),
        }
    }

    fn check_int(&mut self, i: i64, e: &Element) -> bool {
        if !(-INT_LIMIT - 1..=INT_LIMIT).contains(&i) {
            self.number_out_of_range(i, e.span);
            return false;
        }
        true
    }

    /// A single (non-range) element.
    pub(super) fn element_value(&mut self, voc: VocId, e: &Element) -> Option<Value> {
        match &e.kind {
            ElementKind::Int(i) => self.check_int(*i, e).then_some(Value::Int(*i)),
            ElementKind::Float(f) => {
                if !f.is_finite() {
                    self.error(
                        "number-out-of-range",
                        "Numeric value is out of floating point bounds.",
                        e.span,
                    );
                    return None;
                }
                Some(Value::float(*f))
            }
            ElementKind::Char(c) => Some(Value::str(&c.to_string())),
            ElementKind::Str { value, .. } => {
                // Quoted or not, the name of a constant constructor is that constructor: IDP3's
                // parser reads both as a `strelement` (`src/parser/parser.yy`) and
                // `Insert::element(const std::string&)` (`src/insert.cpp`) maps a name with a
                // constructor function of arity 0 in scope to its compound.
                if let Some(f) = self.nullary_constructor(voc, value) {
                    return Some(Value::compound(f, Vec::new()));
                }
                Some(Value::str(value))
            }
            ElementKind::Compound { constructor, args } => {
                self.compound_value(voc, constructor, args)
            }
            ElementKind::IntRange(..) | ElementKind::CharRange(..) => {
                self.error("invalid-element", "A range is not allowed here.", e.span);
                None
            }
        }
    }

    fn nullary_constructor(&self, voc: VocId, name: &str) -> Option<FuncId> {
        self.own_entries(voc, name)
            .into_iter()
            .find_map(|e| match e {
                Entry::Func(f)
                    if self.prog.func(f).args.is_empty()
                        && self.prog.func(f).constructor_of.is_some() =>
                {
                    Some(f)
                }
                _ => None,
            })
    }

    fn compound_value(&mut self, voc: VocId, c: &Pointer, args: &[Element]) -> Option<Value> {
        let vals: Vec<Option<Value>> = args.iter().map(|a| self.element_value(voc, a)).collect();
        if vals.iter().any(Option::is_none) {
            return None;
        }
        let vals: Vec<Value> = vals.into_iter().flatten().collect();
        let cands: Vec<FuncId> = self
            .lookup_entries(voc, c)
            .into_iter()
            .filter_map(|e| match e {
                Entry::Func(f) if self.prog.func(f).args.len() == vals.len() => Some(f),
                _ => None,
            })
            .collect();
        let Some(&f) = cands.first() else {
            let msg = format!(
                "Function {}/{} is not declared in this scope.",
                c.to_path(),
                vals.len()
            );
            let hint = self.near_miss(voc, c.name(), |e| matches!(e, Entry::Func(_)));
            self.error_hint("unknown-symbol", msg, c.span, hint);
            return None;
        };
        let cons: Vec<FuncId> = cands
            .iter()
            .copied()
            .filter(|&f| self.prog.func(f).constructor_of.is_some())
            .collect();
        match cons.first() {
            Some(&f) => Some(Value::compound(f, vals)),
            None => {
                let msg = format!(
                    "Function {} is not a constructor, so {}(..) is not a domain element.",
                    self.prog.func(f).name,
                    c.to_path()
                );
                self.error("not-a-constructor", msg, c.span);
                None
            }
        }
    }
}
