//! `--dump program` for an IDP-Z3 (FO(·)) file: the program as idp resolved it, written in the
//! file's own dialect — `type T := {a, b}`, `p: T * T -> Bool`, `!x in T: ...`, `p := {..}.` —
//! so that it reads back with the same reader. Blocks that the reader made for `main`'s calls
//! (a combined theory, an empty structure, a `term="..."`) are printed too, the terms as
//! comments.

use crate::ids::{FuncId, SortId, Symbol, VocId};
use crate::print::{
    constructor_texts, declared_sorts, fodot_sort_name, formula_to_fodot, rule_to_fodot,
    term_to_string,
};
use crate::sema::ir::{FormulaKind, TermKind};
use crate::sema::walk::Node;
use crate::sema::{Component, Program, Theory};
use crate::structure::{Structure, Table};
use crate::syntax::ast::CmpOp;
use crate::syntax::fodot::written_name;

/// The whole program in FO(·).
pub fn program_to_fodot(program: &Program) -> String {
    let mut out = String::from(
        "// The program as idp resolved it, in IDP-Z3's FO(\u{b7}): variables with their types,\n\
         // sentences in full parentheses.\n",
    );
    for component in program.namespaces[0].members.values() {
        let text = match *component {
            Component::Vocabulary(id) => vocabulary(program, id),
            Component::Theory(id) => theory(program, program.theory(id)),
            // A theory's own interpretations are written back inside it (`theory`).
            Component::Structure(id)
                if program.structures[id.index()]
                    .name
                    .contains(crate::syntax::fodot::OWN_STRUCTURE) =>
            {
                continue
            }
            Component::Structure(id) => structure(program, &program.structures[id.index()]),
            Component::Term(id) => {
                let t = &program.terms[id.index()];
                format!("// term {}: {}\n", t.name, term_to_string(program, &t.term))
            }
            _ => continue,
        };
        out.push('\n');
        out.push_str(&text);
    }
    out
}

fn vocabulary(program: &Program, id: VocId) -> String {
    let voc = program.voc(id);
    let mut out = format!("vocabulary {} {{\n", written_name(&voc.name));
    let imported = imported_vocabularies(program, id);
    let (mut given_sorts, mut given_symbols) = (Vec::new(), Vec::new());
    for &w in &imported {
        out.push_str(&format!(
            "    import {}\n",
            written_name(&program.voc(w).name)
        ));
        given_sorts.extend(own_sorts(program, w));
        given_symbols.extend(super::print::symbols_in_order(program, w));
    }
    for s in own_sorts(program, id).filter(|s| !given_sorts.contains(s)) {
        out.push_str(&format!("    {}\n", type_line(program, s)));
    }
    for symbol in super::print::symbols_in_order(program, id) {
        if given_symbols.contains(&symbol) {
            continue;
        }
        out.push_str(&format!("    {}\n", symbol_declaration(program, symbol)));
    }
    out.push_str("}\n");
    out
}

/// The types a vocabulary declares itself (an empty span: a type the reader declares again,
/// the Booleans or a concept type).
fn own_sorts(program: &Program, id: VocId) -> impl Iterator<Item = SortId> + '_ {
    declared_sorts(program, program.voc(id), false)
        .into_iter()
        .filter(|&s| program.sort(s).span.is_none_or(|sp| sp.end > sp.start))
}

/// The vocabularies declared before `id` whose types and symbols `id` all has (IDP-Z3's
/// `import environment`): written as imports, so that the file reads back with one symbol
/// for both.
fn imported_vocabularies(program: &Program, id: VocId) -> Vec<VocId> {
    let sorts: Vec<SortId> = own_sorts(program, id).collect();
    let symbols = super::print::symbols_in_order(program, id);
    (0..id.index())
        .map(|k| VocId(k as u32))
        .filter(|&w| {
            let their_symbols = super::print::symbols_in_order(program, w);
            let mut their_sorts = own_sorts(program, w).peekable();
            let something = their_sorts.peek().is_some() || !their_symbols.is_empty();
            something
                && their_sorts.all(|s| sorts.contains(&s))
                && their_symbols.iter().all(|s| symbols.contains(s))
        })
        .collect()
}

/// `type T := {a, b}`, `type T := constructed from {c(U)}`, `type T := {1, 2, 3}` or `type T`.
fn type_line(program: &Program, s: SortId) -> String {
    let so = program.sort(s);
    let mut line = format!("type {}", so.name);
    if so.constructed {
        let cons = constructor_texts(program, s, ", ", |c, k, a| {
            match accessor_names(program, c).swap_remove(k) {
                Some(n) => format!("{n}: {}", fodot_sort_name(program, a)),
                None => fodot_sort_name(program, a),
            }
        });
        let nullary = so
            .constructors
            .iter()
            .all(|&c| program.func(c).args.is_empty());
        let from = if nullary { "" } else { "constructed from " };
        line.push_str(&format!(" := {from}{{{}}}", cons.join(", ")));
    } else if let Some(fixed) = &so.fixed {
        let values: Vec<String> = fixed.iter().map(|v| v.to_string()).collect();
        line.push_str(&format!(" := {{{}}}", values.join(", ")));
    }
    line
}

/// The accessor of each argument of constructor `c`, found in the definitions the reader
/// added (`R(rgb(x1, x2)) = x1`, which the reader's lowering may have split into equalities).
fn accessor_names(program: &Program, c: FuncId) -> Vec<Option<String>> {
    let mut names = vec![None; program.func(c).args.len()];
    let rules = program
        .theories
        .iter()
        .flat_map(|t| &t.definitions)
        .filter(|d| d.span.end == d.span.start)
        .flat_map(|d| &d.rules);
    for r in rules {
        let (Symbol::Func(acc), Some(value)) = (r.head, r.head_args.last()) else {
            continue;
        };
        let mut args: Vec<u32> = Vec::new();
        let mut same: Vec<(u32, u32)> = Vec::new();
        let nodes = r
            .head_args
            .iter()
            .map(Node::Term)
            .chain([Node::Formula(&r.body)]);
        for n in nodes {
            n.walk(&mut |m| {
                collect_constructor_args(m, c, &mut args, &mut same);
                true
            });
        }
        let Some(v) = var_id(value) else { continue };
        let equal = |w: u32| w == v || same.contains(&(v, w)) || same.contains(&(w, v));
        if let Some(k) = args.iter().position(|&w| equal(w)) {
            names[k] = Some(program.func(acc).name.clone());
        }
    }
    names
}

/// The variables `c` is applied to (into `args`), and equalities of two variables (`same`).
fn collect_constructor_args(n: Node, c: FuncId, args: &mut Vec<u32>, same: &mut Vec<(u32, u32)>) {
    match n {
        Node::Term(t) => {
            if let TermKind::Func(g, xs) = t.kind() {
                if *g == c && args.is_empty() {
                    args.extend(xs.iter().map(|x| var_id(x).unwrap_or(u32::MAX)));
                }
            }
        }
        Node::Formula(f) => {
            if let FormulaKind::Cmp(CmpOp::Eq, a, b) = f.kind() {
                if let (Some(x), Some(y)) = (var_id(a), var_id(b)) {
                    same.push((x, y));
                }
            }
        }
        Node::Set(_) => {}
    }
}

fn var_id(t: &crate::sema::ir::Term) -> Option<u32> {
    match t.kind() {
        TermKind::Var(v) => Some(v.id),
        _ => None,
    }
}

/// A predicate or function as an FO(·) vocabulary declares it: `p: T * T -> Bool`.
pub fn symbol_declaration(program: &Program, symbol: Symbol) -> String {
    let sorts = program.symbol_sorts(symbol);
    let name = program.symbol_name(symbol);
    match symbol {
        Symbol::Pred(_) => signature(program, name, &sorts, "Bool", false),
        Symbol::Func(f) => {
            let (result, args) = sorts.split_last().expect("a function's result");
            let result = fodot_sort_name(program, *result);
            signature(program, name, args, &result, program.func(f).partial)
        }
    }
}

/// `name: T * U -> R` (`name: () -> R` without arguments).
fn signature(
    program: &Program,
    name: &str,
    args: &[SortId],
    result: &str,
    partial: bool,
) -> String {
    let domain: Vec<String> = args.iter().map(|&a| fodot_sort_name(program, a)).collect();
    let domain = match domain.as_slice() {
        [] => "()".to_string(),
        _ => domain.join(" * "),
    };
    let partial = if partial { "partial " } else { "" };
    format!("{name}: {partial}{domain} -> {result}")
}

fn theory(program: &Program, t: &Theory) -> String {
    let voc = written_name(&program.voc(t.vocabulary).name);
    let mut out = format!("theory {}:{voc} {{\n", written_name(&t.name));
    for f in &t.sentences {
        out.push_str(&format!("    {}.\n", formula_to_fodot(program, f)));
    }
    // An empty span: the definitions of testers and accessors, which the reader adds again.
    for d in t.definitions.iter().filter(|d| d.span.end > d.span.start) {
        out.push_str("    {\n");
        for r in &d.rules {
            out.push_str(&format!("        {}\n", rule_to_fodot(program, r)));
        }
        out.push_str("    }\n");
    }
    let own = format!("{}{}", crate::syntax::fodot::OWN_STRUCTURE, t.name);
    if let Some(s) = program.structures.iter().find(|s| s.name == own) {
        for line in structure(program, s)
            .lines()
            .filter(|l| l.starts_with("    "))
        {
            out.push_str(&format!("{line}\n"));
        }
    }
    out.push_str("}\n");
    out
}

/// A structure as IDP-Z3 writes one: each interpreted symbol `p := {..}.` (what a partial
/// table makes certain only).
fn structure(program: &Program, s: &Structure) -> String {
    let voc = written_name(&program.voc(s.vocabulary).name);
    let mut nothing_given = s.clone();
    nothing_given.symbols.clear();
    let body = super::print::model_text_as(
        program,
        s.vocabulary,
        &nothing_given,
        s,
        None,
        super::print::Quotes::Kept,
    );
    let partial: Vec<String> = s
        .symbols
        .iter()
        .filter(|(_, t)| matches!(t, Table::ThreeValued { .. }))
        .map(|(&sym, _)| format!("{} := ", program.symbol_name(sym)))
        .collect();
    let mut out = format!("structure {}:{voc} {{\n", s.name);
    for line in body.lines().filter(|l| !l.starts_with("//")) {
        // What a partial table makes certain: `f ⊇ {..}.`
        let line = match partial.iter().find(|p| line.starts_with(p.as_str())) {
            Some(p) => format!("{} \u{2287} {}", &p[..p.len() - 4], &line[p.len()..]),
            None => line.to_string(),
        };
        out.push_str(&format!("    {line}\n"));
    }
    out.push_str("}\n");
    out
}

/// A vocabulary as IDP-Z3's `print(V)` writes it: `vocabulary {`, its types and symbols one a
/// line (`type Color := {red, green}`, `p: (Color) → 𝔹`, `c: () → ℤ`), then `}` (IDP-Z3 writes
/// no name). Types and symbols the reader made (the Booleans' type, testers, accessors) are
/// left out, as are `var` declarations, which idp does not keep.
pub(super) fn vocabulary_as_printed(program: &Program, id: VocId) -> String {
    let voc = program.voc(id);
    let mut lines: Vec<String> = declared_sorts(program, voc, false)
        .into_iter()
        .filter(|&s| program.sort(s).span.is_some_and(|sp| sp.end > sp.start))
        .map(|s| printed_type_line(program, s))
        .collect();
    for symbol in super::print::symbols_in_order(program, id) {
        let sorts = program.symbol_sorts(symbol);
        let (args, result) = match symbol {
            Symbol::Pred(_) => (&sorts[..], "𝔹".to_string()),
            Symbol::Func(_) => {
                let (result, args) = sorts.split_last().expect("a function's result");
                (args, printed_sort(program, *result))
            }
        };
        let args: Vec<String> = args.iter().map(|&s| printed_sort(program, s)).collect();
        let name = program.symbol_name(symbol);
        lines.push(format!("{name}: ({}) → {result}", args.join("⨯")));
    }
    format!("vocabulary {{\n    {}\n}}\n", lines.join("\n    ")).replace("    \n", "")
}

/// A type's name as IDP-Z3 prints it (`ℤ`, `ℝ`, `𝔹` for the built-in ones).
fn printed_sort(program: &Program, s: SortId) -> String {
    match fodot_sort_name(program, s).as_str() {
        "Int" => "ℤ".to_string(),
        "Real" => "ℝ".to_string(),
        "Bool" => "𝔹".to_string(),
        other => other.to_string(),
    }
}

/// `type T := {a, b}` (a type of names), `type T := T ≜ {1, 2, 3}` (of numbers: IDP-Z3 writes
/// the type's interpretation there) or `type T ` (IDP-Z3 keeps the space).
fn printed_type_line(program: &Program, s: SortId) -> String {
    let so = program.sort(s);
    let values: Vec<String> = if so.constructed {
        constructor_texts(program, s, ", ", |_, _, a| printed_sort(program, a))
    } else {
        so.fixed.iter().flatten().map(|v| v.to_string()).collect()
    };
    let nullary = so
        .constructors
        .iter()
        .all(|&c| program.func(c).args.is_empty());
    let from = if nullary { "" } else { "constructed from " };
    match values.as_slice() {
        [] => format!("type {} ", so.name),
        _ if !so.constructed => {
            format!("type {0} := {0} ≜ {{{1}}}", so.name, values.join(", "))
        }
        _ => format!("type {} := {from}{{{}}}", so.name, values.join(", ")),
    }
}
