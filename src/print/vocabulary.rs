//! Vocabulary printing (reference §11.2): `vocabulary V {`, types, predicates, functions, `}`.

use crate::ids::{FuncId, SortId};
use crate::print::structure::{
    is_identifier, printable_funcs, printable_preds, sort_table_to_string,
};
use crate::sema::{Program, Vocabulary};

/// IDP3's text of a vocabulary: types sorted by name, then predicates and functions.
pub fn vocabulary_to_string(program: &Program, voc: &Vocabulary) -> String {
    vocabulary_text(program, voc, true)
}

/// A vocabulary as it can be read back: types in the order they were declared (a type is
/// declared before a constructed type or subtype that uses it).
pub fn vocabulary_to_source(program: &Program, voc: &Vocabulary) -> String {
    vocabulary_text(program, voc, false)
}

/// The types a vocabulary declares (not the built-in ones), by name or in declaration order.
pub(crate) fn declared_sorts(program: &Program, voc: &Vocabulary, by_name: bool) -> Vec<SortId> {
    let mut sorts: Vec<SortId> = voc
        .sorts
        .iter()
        .copied()
        .filter(|&s| program.sort(s).builtin.is_none() && is_identifier(&program.sort(s).name))
        .collect();
    if by_name {
        sorts.sort_by(|a, b| program.sort(*a).name.cmp(&program.sort(*b).name));
    } else {
        sorts.sort_by_key(|s| s.index());
    }
    sorts
}

/// Each constructor of constructed type `s` as `c` or `c(A<sep>B)`, argument `k` of
/// constructor `c` (of type `A`) written by `arg(c, k, A)`.
pub(crate) fn constructor_texts(
    program: &Program,
    s: SortId,
    sep: &str,
    arg: impl Fn(FuncId, usize, SortId) -> String,
) -> Vec<String> {
    let constructors = &program.sort(s).constructors;
    constructors
        .iter()
        .map(|&c| {
            let f = program.func(c);
            let args: Vec<String> = f
                .args
                .iter()
                .enumerate()
                .map(|(k, &a)| arg(c, k, a))
                .collect();
            applied(&f.name, &args, sep)
        })
        .collect()
}

/// `name` alone, or `name(a<sep>b)`.
pub(crate) fn applied(name: &str, args: &[String], sep: &str) -> String {
    match args {
        [] => name.to_string(),
        _ => format!("{name}({})", args.join(sep)),
    }
}

fn vocabulary_text(program: &Program, voc: &Vocabulary, by_name: bool) -> String {
    let mut out = format!("vocabulary {} {{\n", voc.name);
    for s in declared_sorts(program, voc, by_name) {
        let so = program.sort(s);
        let mut line = format!("  type {}", so.name);
        if so.constructed {
            let cons = constructor_texts(program, s, ",", |_, _, a| program.sort(a).name.clone());
            line.push_str(&format!(" constructed from {{{}}}", cons.join(", ")));
        } else if let Some(fixed) = &so.fixed {
            line.push_str(&format!(" = {}", sort_table_to_string(fixed)));
        }
        if !so.parents.is_empty() {
            let parents: Vec<&str> = so
                .parents
                .iter()
                .map(|&p| program.sort(p).name.as_str())
                .collect();
            line.push_str(&format!(" isa {}", parents.join(",")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for p in printable_preds(program, voc.preds.iter().copied()) {
        let x = program.pred(p);
        if x.args.is_empty() {
            out.push_str(&format!("  {}\n", x.name));
        } else {
            let args: Vec<&str> = x
                .args
                .iter()
                .map(|&a| program.sort(a).name.as_str())
                .collect();
            out.push_str(&format!("  {}({})\n", x.name, args.join(",")));
        }
    }
    for f in printable_funcs(program, voc.funcs.iter().copied()) {
        let x = program.func(f);
        let partial = if x.partial { "partial " } else { "" };
        let result = &program.sort(x.result).name;
        if x.args.is_empty() {
            out.push_str(&format!("  {}{} : {}\n", partial, x.name, result));
        } else {
            let args: Vec<&str> = x
                .args
                .iter()
                .map(|&a| program.sort(a).name.as_str())
                .collect();
            out.push_str(&format!(
                "  {}{}({}) : {}\n",
                partial,
                x.name,
                args.join(","),
                result
            ));
        }
    }
    out.push_str("}\n");
    out
}
