//! IDP3's printers: structures (reference §11.1), vocabularies and theories (§11.2), predicate
//! tables (`{ 1,1; 2,2 }`). All printers are pure functions of the program and the printed value.
//!
//! The helpers here (domains of sorts, the tuples a symbol ranges over, consistency) are shared
//! with the Lua runtime.

pub mod structure;
pub mod theory;
pub mod vocabulary;

use std::collections::HashSet;

use crate::sema::program::{Program, SortId, Symbol};
use crate::structure::structure::{Structure, Table};
use crate::structure::value::{Tuple, Value};

pub use structure::{structure_to_string, tuples_to_string};
pub use theory::{formula_to_string, term_to_string, theory_to_string};
pub use vocabulary::vocabulary_to_string;

/// Largest number of tuples that helpers enumerate (complements, `pt`/`pf` tables).
pub const MAX_ENUMERATION: usize = 2_000_000;

/// The domain of a sort in a structure: the vocabulary-fixed interpretation, the structure's
/// table, or (for constructed types with finitely many values) the constructor images.
/// `None` when the sort has no finite interpretation.
pub fn sort_domain(program: &Program, s: &Structure, sort: SortId) -> Option<Vec<Value>> {
    sort_domain_depth(program, s, sort, 0)
}

fn sort_domain_depth(
    program: &Program,
    s: &Structure,
    sort: SortId,
    depth: usize,
) -> Option<Vec<Value>> {
    let so = program.sort(sort);
    if let Some(f) = &so.fixed {
        return Some(f.clone());
    }
    if let Some(d) = s.domain(sort) {
        return Some(d.to_vec());
    }
    if so.constructed {
        if depth > 8 {
            return None;
        }
        let mut out = Vec::new();
        for &c in &so.constructors {
            let f = program.func(c);
            let mut arg_domains = Vec::new();
            for &a in &f.args {
                arg_domains.push(sort_domain_depth(program, s, a, depth + 1)?);
            }
            for args in product(&arg_domains, MAX_ENUMERATION)? {
                out.push(Value::compound(c, args));
            }
        }
        out.sort();
        out.dedup();
        return Some(out);
    }
    // A supertype without a table of its own is the union of its interpreted subtypes.
    if so.builtin.is_none() {
        let mut out = Vec::new();
        let mut any = false;
        for (k, sub) in program.sorts.iter().enumerate() {
            if sub.parents.contains(&sort) {
                if let Some(d) = sort_domain_depth(program, s, SortId(k as u32), depth + 1) {
                    out.extend(d);
                    any = true;
                }
            }
        }
        if any {
            out.sort();
            out.dedup();
            return Some(out);
        }
    }
    None
}

/// The cartesian product of the given domains (in order), or `None` if larger than `limit`.
pub fn product(domains: &[Vec<Value>], limit: usize) -> Option<Vec<Tuple>> {
    let mut size: usize = 1;
    for d in domains {
        size = size.checked_mul(d.len())?;
        if size > limit {
            return None;
        }
    }
    let mut out: Vec<Tuple> = vec![Vec::with_capacity(domains.len())];
    for d in domains {
        let mut next = Vec::with_capacity(out.len() * d.len());
        for t in &out {
            for v in d {
                let mut t2 = t.clone();
                t2.push(*v);
                next.push(t2);
            }
        }
        out = next;
    }
    Some(out)
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
pub fn ct_cf(
    program: &Program,
    s: &Structure,
    sym: Symbol,
) -> (HashSet<Tuple>, Option<HashSet<Tuple>>) {
    match s.table(sym) {
        None => (HashSet::new(), Some(HashSet::new())),
        Some(Table::ThreeValued { ct, cf }) => (ct.clone(), Some(cf.clone())),
        Some(Table::TwoValued(set)) => {
            let cf = all_tuples(program, s, sym)
                .map(|all| all.into_iter().filter(|t| !set.contains(t)).collect());
            (set.clone(), cf)
        }
    }
}

/// Whether a structure is consistent: no tuple both certainly true and certainly false, and no
/// function with two certain values for the same arguments (or no possible value for a total
/// function whose domains are known).
pub fn is_consistent(program: &Program, s: &Structure) -> bool {
    for (sym, table) in &s.symbols {
        if let Table::ThreeValued { ct, cf } = table {
            if ct.iter().any(|t| cf.contains(t)) {
                return false;
            }
        }
        if let Symbol::Func(f) = *sym {
            let func = program.func(f);
            let n = func.args.len();
            let mut seen: std::collections::HashMap<&[Value], usize> =
                std::collections::HashMap::new();
            for t in table.ct() {
                if t.len() != n + 1 {
                    continue;
                }
                let e = seen.entry(&t[..n]).or_insert(0);
                *e += 1;
                if *e > 1 {
                    return false;
                }
            }
            if !func.partial {
                if let Table::ThreeValued { cf, .. } = table {
                    if let Some(res) = sort_domain(program, s, func.result) {
                        let mut cf_count: std::collections::HashMap<&[Value], usize> =
                            std::collections::HashMap::new();
                        for t in cf {
                            if t.len() == n + 1 && res.contains(&t[n]) {
                                *cf_count.entry(&t[..n]).or_insert(0) += 1;
                            }
                        }
                        if cf_count.values().any(|&c| c >= res.len()) {
                            return false;
                        }
                    }
                }
            }
        }
    }
    true
}

/// Whether the table of a symbol determines every tuple (IDP3's `approxTwoValued`).
pub fn is_two_valued(program: &Program, s: &Structure, sym: Symbol) -> bool {
    let table = match s.table(sym) {
        None => return false,
        Some(t) => t,
    };
    let (ct, cf) = match table {
        Table::TwoValued(_) => return true,
        Table::ThreeValued { ct, cf } => (ct, cf),
    };
    let Some(domains) = symbol_domains(program, s, sym) else {
        return false;
    };
    match sym {
        Symbol::Pred(_) => {
            let mut size: usize = 1;
            for d in &domains {
                size = size.saturating_mul(d.len());
            }
            let inside = |t: &Tuple| {
                t.iter()
                    .zip(&domains)
                    .all(|(v, d)| d.binary_search(v).is_ok())
            };
            let n = ct.iter().filter(|t| inside(t)).count()
                + cf.iter().filter(|t| inside(t) && !ct.contains(*t)).count();
            n == size
        }
        Symbol::Func(f) => {
            let partial = program.func(f).partial;
            let n = domains.len() - 1;
            let Some(args) = product(&domains[..n], MAX_ENUMERATION) else {
                return false;
            };
            let res = &domains[n];
            let with_value: HashSet<&[Value]> = ct
                .iter()
                .filter(|t| t.len() == n + 1)
                .map(|t| &t[..n])
                .collect();
            let mut cf_count: std::collections::HashMap<&[Value], usize> =
                std::collections::HashMap::new();
            for t in cf {
                if t.len() == n + 1 && res.binary_search(&t[n]).is_ok() {
                    *cf_count.entry(&t[..n]).or_insert(0) += 1;
                }
            }
            args.iter().all(|a| {
                with_value.contains(a.as_slice())
                    || (cf_count.get(a.as_slice()).copied().unwrap_or(0) >= res.len()
                        && (partial || res.is_empty()))
            })
        }
    }
}
