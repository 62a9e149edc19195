//! `stdoptions.language = "asp"`: structures printed as ASP facts, as IDP3's `aspprinter.hpp`
//! prints them: one line per type (`T(1).T(2).`), per predicate and per function (its graph),
//! only the certainly true facts (with a warning for three-valued structures).

use crate::ids::Symbol;
use crate::print::{printable_funcs, printable_preds, printable_sorts};
use crate::sema::Program;
use crate::structure::{Structure, Value};

/// The facts of a structure, and whether it was three-valued (IDP3 warns then).
pub fn structure_facts(program: &Program, s: &Structure) -> (String, bool) {
    if !crate::print::is_consistent(program, s) {
        return ("INCONSISTENT STRUCTURE".into(), false);
    }
    let voc = program.voc(s.vocabulary);
    let mut out = String::new();
    for so in printable_sorts(program, voc.sorts.iter().copied()) {
        let name = &program.sort(so).name;
        let domain = crate::sema::sort_domain(program, s, so).unwrap_or_default();
        for v in &domain {
            out.push_str(&format!("{name}({v})."));
        }
        out.push('\n');
    }
    let mut three_valued = false;
    let symbols = printable_preds(program, voc.preds.iter().copied())
        .into_iter()
        .map(Symbol::Pred)
        .chain(
            printable_funcs(program, voc.funcs.iter().copied())
                .into_iter()
                .map(Symbol::Func),
        );
    for sym in symbols {
        three_valued |= !crate::print::is_two_valued(program, s, sym);
        let mut tuples: Vec<&Vec<Value>> = s
            .table(sym)
            .map(|t| t.ct().iter().collect())
            .unwrap_or_default();
        tuples.sort();
        out.push_str(&facts(program.symbol_name(sym), &tuples));
        out.push('\n');
    }
    (out, three_valued)
}

fn facts(name: &str, tuples: &[&Vec<Value>]) -> String {
    tuples
        .iter()
        .map(|t| {
            if t.is_empty() {
                format!("{name}.")
            } else {
                let args: Vec<String> = t.iter().map(|v| v.to_string()).collect();
                format!("{name}({}).", args.join(","))
            }
        })
        .collect()
}
