//! Finite domains of sorts in a structure, and membership tests for type predicates.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use crate::sema::program::{BuiltinSort, Program, SortId};
use crate::structure::structure::Structure;
use crate::structure::value::Value;

/// Largest domain built by enumerating a constructed type.
const MAX_CONSTRUCTED: usize = 1_000_000;

/// Caches the domain of each sort for one structure.
pub struct Domains<'a> {
    program: &'a Program,
    structure: &'a Structure,
    cache: HashMap<SortId, Option<Rc<[Value]>>>,
    /// Hash sets of the finite domains, for membership tests.
    members: HashMap<SortId, Option<Rc<HashSet<Value>>>>,
}

impl<'a> Domains<'a> {
    pub fn new(program: &'a Program, structure: &'a Structure) -> Domains<'a> {
        Domains {
            program,
            structure,
            cache: HashMap::default(),
            members: HashMap::default(),
        }
    }

    /// The finite domain of `s`, or `None` when it is infinite or not interpreted.
    pub fn get(&mut self, s: SortId) -> Option<Rc<[Value]>> {
        if let Some(d) = self.cache.get(&s) {
            return d.clone();
        }
        let d = self.compute(s, 0).map(|v| Rc::from(v.into_boxed_slice()));
        self.cache.insert(s, d.clone());
        d
    }

    fn compute(&mut self, s: SortId, depth: usize) -> Option<Vec<Value>> {
        if let Some(d) = self.structure.domain(s) {
            return Some(d.to_vec());
        }
        let sort = self.program.sort(s);
        if let Some(fixed) = &sort.fixed {
            return Some(fixed.clone());
        }
        if sort.constructed && depth < 8 {
            return self.constructed(s, depth);
        }
        None
    }

    fn constructed(&mut self, s: SortId, depth: usize) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        for &c in &self.program.sort(s).constructors.clone() {
            let arg_sorts = self.program.func(c).args.clone();
            if arg_sorts.contains(&s) {
                return None;
            }
            let mut arg_domains = Vec::new();
            for a in arg_sorts {
                arg_domains.push(self.compute(a, depth + 1)?);
            }
            for tuple in cartesian(&arg_domains) {
                out.push(Value::compound(c, tuple));
                if out.len() > MAX_CONSTRUCTED {
                    return None;
                }
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// Whether `v` belongs to sort `s` (for type predicates and sort checks).
    pub fn contains(&mut self, s: SortId, v: Value) -> bool {
        if let Some(b) = self.program.sort(s).builtin {
            return builtin_contains(b, v);
        }
        match self.members.get(&s) {
            Some(Some(set)) => return set.contains(&v),
            Some(None) => return self.contains_without_listing(s, v),
            None => {}
        }
        let set = self
            .get(s)
            .map(|d| Rc::new(d.iter().copied().collect::<HashSet<Value>>()));
        let found = match &set {
            Some(m) => m.contains(&v),
            None => self.contains_without_listing(s, v),
        };
        self.members.insert(s, set);
        found
    }

    /// Membership of a sort whose elements cannot be listed: a range too large to list, or a
    /// constructed type with infinitely (or too) many elements, whose members are the values
    /// of its constructors on members of their argument types.
    fn contains_without_listing(&mut self, s: SortId, v: Value) -> bool {
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
        if constructor.constructor_of != Some(s) {
            return false;
        }
        let arg_sorts = constructor.args.clone();
        arg_sorts
            .iter()
            .zip(&parts.args)
            .all(|(sort, arg)| self.contains(*sort, *arg))
    }
}

pub fn builtin_contains(b: BuiltinSort, v: Value) -> bool {
    match b {
        BuiltinSort::Float => v.is_number(),
        BuiltinSort::Int => matches!(v, Value::Int(_)),
        BuiltinSort::Nat => matches!(v, Value::Int(i) if i >= 0),
        BuiltinSort::String => matches!(v, Value::Str(_)),
        BuiltinSort::Char => v.string_text().is_some_and(|s| s.chars().count() == 1),
    }
}

/// All tuples of the cartesian product of `domains`, in lexicographic order.
pub fn cartesian(domains: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
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
