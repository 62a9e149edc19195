//! The one owner of sort domains and membership: what elements a sort has in a structure, and
//! whether a value belongs to a sort. The resolver (closing a structure), the grounder, the
//! printers, the naive checker and the Lua runtime all ask here, so they cannot disagree.
//!
//! A sort's domain is, in this order: the elements the structure lists for it; its
//! interpretation fixed in the vocabulary; for a constructed type, its constructors applied to
//! the elements of their argument types (when those are finite, the type is not recursive and
//! there are at most [`MAX_LISTED`] of them); for a user type without elements of its own, the
//! union of its interpreted subtypes. Builtin types (`int`, `string`, ...) have no finite
//! domain, except `char`, which has 256 elements as in IDP3 ([`all_chars`]); membership in them
//! follows IDP3 (`string` holds every non-compound element, `char` the one-character strings
//! of a byte and the digits 0–9, `float` every number).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;
use std::rc::Rc;

use crate::ids::{SortId, Symbol};
use crate::sema::program::{BuiltinSort, Program};
use crate::structure::{Structure, Table, Tuple, TupleSet, Value};

pub use crate::structure::MAX_LISTED;

/// The most tuples that helpers enumerate (complements, `pt`/`pf` tables, products).
pub const MAX_ENUMERATION: usize = 2_000_000;

/// The domain of `s` given what is listed for each sort (`listed`: a structure's domains, or
/// those of a structure being closed); `None` when it has no finite domain.
pub fn list_domain(
    program: &Program,
    s: SortId,
    listed: &dyn Fn(SortId) -> Option<Vec<Value>>,
) -> Option<Vec<Value>> {
    list(program, s, listed, &mut Vec::new())
}

fn list(
    program: &Program,
    s: SortId,
    listed: &dyn Fn(SortId) -> Option<Vec<Value>>,
    visiting: &mut Vec<SortId>,
) -> Option<Vec<Value>> {
    if let Some(d) = listed(s) {
        return Some(d);
    }
    let sort = program.sort(s);
    if let Some(fixed) = &sort.fixed {
        return Some(fixed.clone());
    }
    if sort.builtin == Some(BuiltinSort::Char) {
        return Some(all_chars());
    }
    if sort.builtin.is_some() {
        return None;
    }
    if visiting.contains(&s) {
        // A recursive constructed type: infinite, unless no element can ever be built.
        return (sort.constructed && !inhabited(program, s, listed)).then(Vec::new);
    }
    visiting.push(s);
    let out = if sort.constructed {
        constructed(program, s, listed, visiting)
    } else {
        union_of_subtypes(program, s, listed, visiting)
    };
    visiting.pop();
    out
}

/// The constructors of `s` applied to every tuple of their argument types' elements.
fn constructed(
    program: &Program,
    s: SortId,
    listed: &dyn Fn(SortId) -> Option<Vec<Value>>,
    visiting: &mut Vec<SortId>,
) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for &c in &program.sort(s).constructors {
        let mut arg_domains = Vec::new();
        for &a in &program.func(c).args {
            arg_domains.push(list(program, a, listed, visiting)?);
        }
        for tuple in product(&arg_domains, MAX_LISTED.saturating_sub(out.len()))? {
            out.push(Value::compound(c, tuple));
        }
    }
    // The product of sorted domains comes sorted for one constructor (the common case).
    if !out.is_sorted() {
        out.sort();
    }
    out.dedup();
    Some(out)
}

/// Whether constructed type `s` has an element: a constructor whose argument types all have
/// one, computed as a least fixpoint over the constructed types `s` reaches, so that a type
/// whose every constructor needs an element of the type itself (`constructed from {EX(T)}`,
/// IDP3's `ConstructedInternalSortTable::empty`) has none. A type that is not constructed
/// has an element unless it is listed or fixed empty.
fn inhabited(program: &Program, s: SortId, listed: &dyn Fn(SortId) -> Option<Vec<Value>>) -> bool {
    let mut reached = vec![s];
    let mut k = 0;
    while let Some(&t) = reached.get(k) {
        k += 1;
        for &c in &program.sort(t).constructors {
            for &a in &program.func(c).args {
                if program.sort(a).constructed && !reached.contains(&a) {
                    reached.push(a);
                }
            }
        }
    }
    let base_inhabited = |a: SortId| {
        let sort = program.sort(a);
        match listed(a).or_else(|| sort.fixed.clone()) {
            Some(d) => !d.is_empty(),
            None => true,
        }
    };
    let mut has_element: HashSet<SortId> = HashSet::default();
    loop {
        let before = has_element.len();
        for &t in &reached {
            let builds = program.sort(t).constructors.iter().any(|&c| {
                program.func(c).args.iter().all(|&a| {
                    if program.sort(a).constructed {
                        has_element.contains(&a)
                    } else {
                        base_inhabited(a)
                    }
                })
            });
            if builds {
                has_element.insert(t);
            }
        }
        if has_element.len() == before {
            return has_element.contains(&s);
        }
    }
}

/// The union of the interpreted subtypes of `s`, if it has any.
fn union_of_subtypes(
    program: &Program,
    s: SortId,
    listed: &dyn Fn(SortId) -> Option<Vec<Value>>,
    visiting: &mut Vec<SortId>,
) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut any = false;
    for (k, sub) in program.sorts.iter().enumerate() {
        if sub.parents.contains(&s) {
            if let Some(d) = list(program, SortId(k as u32), listed, visiting) {
                out.extend(d);
                any = true;
            }
        }
    }
    out.sort();
    out.dedup();
    any.then_some(out)
}

/// The 256 elements of `char`, as IDP3's `AllChars` table lists them
/// (`src/structure/StructureComponents.cpp`, `AllChars::add` and `AllChars::size`): one per
/// byte, the digits `'0'`..`'9'` as the integers 0..9 and every other byte as a one-character
/// string. The bytes 128..255 are read as Latin-1 (U+0080..U+00FF), so each is one character.
pub fn all_chars() -> Vec<Value> {
    let mut out: Vec<Value> = (0u8..=255)
        .map(|b| match b {
            b'0'..=b'9' => Value::Int(i64::from(b - b'0')),
            _ => Value::str(&char::from(b).to_string()),
        })
        .collect();
    out.sort();
    out
}

/// Whether a builtin sort holds a value (IDP3's `AllStrings`, `AllChars`, ... tables).
pub fn builtin_contains(b: BuiltinSort, v: Value) -> bool {
    match b {
        BuiltinSort::Nat => matches!(v, Value::Int(i) if i >= 0),
        BuiltinSort::Int => matches!(v, Value::Int(_)),
        BuiltinSort::Float => v.is_number(),
        BuiltinSort::String => !matches!(v, Value::Compound(_)),
        BuiltinSort::Char => match v {
            Value::Int(i) => (0..10).contains(&i),
            _ => v.string_text().is_some_and(|s| {
                let mut chars = s.chars();
                chars.next().is_some_and(|c| u32::from(c) < 256) && chars.next().is_none()
            }),
        },
    }
}

/// The domains and member sets of the sorts of one structure, computed once each.
pub struct Domains<'a> {
    program: &'a Program,
    structure: &'a Structure,
    listed: RefCell<HashMap<SortId, Option<Rc<[Value]>>>>,
    /// The members of each sort (by id), once asked for.
    members: RefCell<Vec<Option<Members>>>,
}

/// How membership in a sort is decided.
#[derive(Clone)]
enum Members {
    /// The sort has no finite domain (see `contains_without_listing`).
    Unlisted,
    /// The integers from the first to the second (a domain such as `0..99`).
    Range(i64, i64),
    Set(Rc<HashSet<Value>>),
}

impl Members {
    fn of(domain: Option<&[Value]>) -> Members {
        let Some(d) = domain else {
            return Members::Unlisted;
        };
        let consecutive = d.windows(2).all(|w| match (w[0], w[1]) {
            (Value::Int(a), Value::Int(b)) => a.checked_add(1) == Some(b),
            _ => false,
        });
        if let (true, Some(Value::Int(lo)), Some(Value::Int(hi))) =
            (consecutive, d.first(), d.last())
        {
            return Members::Range(*lo, *hi);
        }
        Members::Set(Rc::new(d.iter().copied().collect()))
    }

    /// Whether `v` is a member (`None`: the sort is not listed).
    fn contain(&self, v: Value) -> Option<bool> {
        match self {
            Members::Unlisted => None,
            Members::Range(lo, hi) => Some(matches!(v, Value::Int(i) if *lo <= i && i <= *hi)),
            Members::Set(set) => Some(set.contains(&v)),
        }
    }
}

impl<'a> Domains<'a> {
    pub fn new(program: &'a Program, structure: &'a Structure) -> Domains<'a> {
        Domains {
            program,
            structure,
            listed: RefCell::default(),
            members: RefCell::new(vec![None; program.sorts.len()]),
        }
    }

    /// The finite domain of `s`, or `None` when it is infinite, too large or not interpreted.
    pub fn get(&self, s: SortId) -> Option<Rc<[Value]>> {
        if let Some(d) = self.listed.borrow().get(&s) {
            return d.clone();
        }
        let structure = self.structure;
        let d = list_domain(self.program, s, &|x| {
            structure.domain(x).map(<[Value]>::to_vec)
        })
        .map(Rc::from);
        self.listed.borrow_mut().insert(s, d.clone());
        d
    }

    /// Whether `v` belongs to sort `s`.
    pub fn contains(&self, s: SortId, v: Value) -> bool {
        if let Some(b) = self.program.sort(s).builtin {
            return builtin_contains(b, v);
        }
        if self.structure.is_constructed_lazily(s) {
            return self.contains_without_listing(s, v);
        }
        // The borrow ends before any recursion (a constructed type's arguments).
        let listed = self.members.borrow()[s.0 as usize]
            .as_ref()
            .map(|m| m.contain(v));
        match listed {
            Some(Some(found)) => found,
            Some(None) => self.contains_without_listing(s, v),
            None => {
                let members = Members::of(self.get(s).as_deref());
                self.members.borrow_mut()[s.0 as usize] = Some(members);
                self.contains(s, v)
            }
        }
    }

    /// Membership of a sort whose elements cannot be listed: a range too large to list, or a
    /// constructed type with infinitely (or too) many elements, whose members are the values
    /// of its constructors on members of their argument types.
    fn contains_without_listing(&self, s: SortId, v: Value) -> bool {
        if let Some(range) = self.structure.huge_ranges.get(&s) {
            return range.contains(v);
        }
        if !self.program.sort(s).constructed {
            return false;
        }
        let Some(parts) = v.compound_parts() else {
            return false;
        };
        let constructor = self.program.func(parts.constructor);
        constructor.constructor_of == Some(s)
            && constructor
                .args
                .iter()
                .zip(&parts.args)
                .all(|(sort, arg)| self.contains(*sort, *arg))
    }
}

/// The domain of a sort in a structure (see the module documentation), uncached.
pub fn sort_domain(program: &Program, structure: &Structure, s: SortId) -> Option<Vec<Value>> {
    list_domain(program, s, &|x| structure.domain(x).map(<[Value]>::to_vec))
}

/// All tuples of the cartesian product of `domains`, in lexicographic order.
pub fn cartesian(domains: &[Vec<Value>]) -> Vec<Tuple> {
    let mut out: Vec<Tuple> = vec![Vec::new()];
    for d in domains {
        let mut next = Vec::with_capacity(out.len() * d.len());
        for prefix in &out {
            for v in d {
                let mut t = prefix.clone();
                t.push(*v);
                next.push(t);
            }
        }
        out = next;
    }
    out
}

/// The cartesian product of `domains`, or `None` when it has more than `limit` tuples.
pub fn product(domains: &[Vec<Value>], limit: usize) -> Option<Vec<Tuple>> {
    let mut size: usize = 1;
    for d in domains {
        size = size.checked_mul(d.len())?;
        if size > limit {
            return None;
        }
    }
    Some(cartesian(domains))
}

/// The domains of a symbol's columns (a function's graph: arguments then result).
pub fn symbol_domains(program: &Program, s: &Structure, sym: Symbol) -> Option<Vec<Vec<Value>>> {
    program
        .symbol_sorts(sym)
        .into_iter()
        .map(|so| sort_domain(program, s, so))
        .collect()
}

/// All tuples a symbol (a function's graph) ranges over, or `None` if some domain is missing or
/// the product is too large.
pub fn all_tuples(program: &Program, s: &Structure, sym: Symbol) -> Option<Vec<Tuple>> {
    product(&symbol_domains(program, s, sym)?, MAX_ENUMERATION)
}

/// The certainly-true and certainly-false tuples of a symbol. For two-valued tables the false
/// tuples are the complement (needs finite domains; `None` otherwise).
pub fn ct_cf(program: &Program, s: &Structure, sym: Symbol) -> (TupleSet, Option<TupleSet>) {
    match s.table(sym) {
        None => (Default::default(), Some(Default::default())),
        Some(Table::ThreeValued { ct, cf }) => (ct.clone(), Some(cf.clone())),
        Some(Table::TwoValued(set)) => {
            let cf = all_tuples(program, s, sym)
                .map(|all| all.into_iter().filter(|t| !set.contains(t)).collect());
            (set.clone(), cf)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_membership_follows_idp3() {
        assert!(builtin_contains(BuiltinSort::String, Value::Int(3)));
        assert!(builtin_contains(BuiltinSort::Char, Value::Int(7)));
        assert!(!builtin_contains(BuiltinSort::Char, Value::Int(10)));
        assert!(!builtin_contains(BuiltinSort::Nat, Value::Int(-1)));
        assert!(builtin_contains(BuiltinSort::Float, Value::Int(-1)));
    }

    #[test]
    fn consecutive_integers_are_a_range_and_others_a_set() {
        let ints = |v: &[i64]| v.iter().map(|&i| Value::Int(i)).collect::<Vec<_>>();
        let range = Members::of(Some(&ints(&[3, 4, 5, 6])));
        assert!(matches!(range, Members::Range(3, 6)));
        let holes = Members::of(Some(&ints(&[0, 5, 2])));
        assert!(matches!(holes, Members::Set(_)));
        for (members, member, other) in [(range, 4, 7), (holes, 5, 1)] {
            assert_eq!(members.contain(Value::Int(member)), Some(true));
            assert_eq!(members.contain(Value::Int(other)), Some(false));
            assert_eq!(members.contain(Value::str("4")), Some(false));
        }
        assert_eq!(Members::of(None).contain(Value::Int(1)), None);
    }

    #[test]
    fn products_are_capped() {
        let d = vec![Value::Int(1), Value::Int(2)];
        assert_eq!(
            product(&[d.clone(), d.clone()], 4).map(|p| p.len()),
            Some(4)
        );
        assert_eq!(product(&[d.clone(), d], 3), None);
        assert_eq!(cartesian(&[]), vec![Vec::<Value>::new()]);
    }
}
