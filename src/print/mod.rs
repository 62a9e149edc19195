//! IDP3's printers: structures (reference §11.1), vocabularies and theories (§11.2), predicate
//! tables (`{ 1,1; 2,2 }`). All printers are pure functions of the program and the printed value.
//!
//! The helpers here (consistency, two-valuedness) are shared with the Lua runtime; sort domains
//! are [`crate::sema::Domains`]'.

mod format;
mod ground;
mod program;
mod structure;
mod theory;
mod vocabulary;

pub use format::formatted;
pub use ground::{ground_theory_to_string, Layout};
pub use program::program_to_string;
pub use structure::{
    func_long_name, pred_long_name, printable_funcs, printable_preds, printable_sorts,
    sort_table_to_string, structure_to_string, tuple_to_string, tuples_to_string, write_structure,
    ValueTexts,
};
pub use theory::{
    definition_to_string, fodot_sort_name, fodot_sort_text, formula_to_fodot, formula_to_string,
    readable_formula, readable_value, rule_to_fodot, term_to_string,
};
pub use vocabulary::vocabulary_to_string;
pub(crate) use vocabulary::{constructor_texts, declared_sorts};

use std::collections::HashSet;

use crate::ids::Symbol;
use crate::sema::{product, sort_domain, symbol_domains, Program, MAX_ENUMERATION};
use crate::structure::{Structure, Table, Tuple, Value};

/// `t` as IDP text; a ground theory (made by `ground`) as IDP3 prints a ground theory.
pub fn theory_to_string(program: &Program, t: &crate::sema::Theory) -> String {
    match t.form {
        crate::sema::TheoryForm::Ground { model_equivalent } => {
            ground_theory_to_string(program, t, model_equivalent, Layout::Stored)
        }
        crate::sema::TheoryForm::Source => theory::source_theory_to_string(program, t),
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
            let mut seen: rustc_hash::FxHashMap<&[Value], usize> = rustc_hash::FxHashMap::default();
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
                        let mut cf_count: rustc_hash::FxHashMap<&[Value], usize> =
                            rustc_hash::FxHashMap::default();
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
            let mut cf_count: rustc_hash::FxHashMap<&[Value], usize> =
                rustc_hash::FxHashMap::default();
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
