//! Hover, go to definition, find references and rename: what the name under the cursor
//! denotes (from the resolver's index), its declaration, every place it occurs — in theories,
//! structures, vocabularies, queries and terms, in included files, and, for a vocabulary,
//! theory, structure, term, query or procedure, as a name in a procedure's Lua code.

use crate::ids::Symbol;
use crate::sema::index::{Occurrence, Target};
use crate::sema::Component;
use crate::source::Span;
use crate::syntax::ast;

use super::analysis::Analysis;

/// The occurrence at byte `offset` of the document, if a name is there.
pub fn occurrence_at(a: &Analysis, offset: usize) -> Option<Occurrence> {
    if let Some(o) = a.index.at(a.file, offset as u32) {
        return Some(*o);
    }
    lua_occurrences(a)
        .into_iter()
        .find(|o| o.span.start as usize <= offset && offset <= o.span.end as usize)
}

/// Where `target` is declared.
pub fn declaration(a: &Analysis, target: Target) -> Option<Span> {
    a.index.declaration_of(target).or_else(|| match target {
        Target::Sort(s) => a.program.sort(s).span,
        Target::Symbol(Symbol::Pred(p)) => a.program.pred(p).span,
        Target::Symbol(Symbol::Func(f)) => a.program.func(f).span,
        Target::Component(_) => None,
        Target::Var { declared } => Some(declared),
    })
}

/// Every occurrence of `target`: the index's and the names in procedures.
pub fn references(a: &Analysis, target: Target) -> Vec<Occurrence> {
    let mut out = a.index.occurrences_of(target);
    if matches!(target, Target::Component(_)) {
        out.extend(
            lua_occurrences(a)
                .into_iter()
                .filter(|o| o.target == target),
        );
        out.sort_by_key(|o| (o.span.file, o.span.start));
    }
    out
}

/// Why a rename to `new_name` cannot be done, if it cannot.
pub fn rename_refusal(a: &Analysis, target: Target, new_name: &str) -> Option<String> {
    let mut chars = new_name.chars();
    let identifier = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if !identifier {
        return Some(format!(
            "`{new_name}` is not a name: a name starts with a letter or `_` and goes on with \
             letters, digits and `_`"
        ));
    }
    if crate::syntax::IDP_WORDS.contains(&new_name) {
        return Some(format!("`{new_name}` is a keyword"));
    }
    if matches!(target, Target::Sort(s) if a.program.sort(s).builtin.is_some()) {
        return Some("a built-in type cannot be renamed".into());
    }
    let p = &a.program;
    let taken = match target {
        Target::Sort(_) | Target::Symbol(_) => {
            p.sorts.iter().any(|s| s.name == new_name)
                || p.preds.iter().any(|q| q.name == new_name)
                || p.funcs.iter().any(|f| f.name == new_name)
        }
        Target::Component(_) => p.namespaces[0].members.contains_key(new_name),
        Target::Var { .. } => false,
    };
    taken.then(|| format!("`{new_name}` already names something else in this file"))
}

/// The hover text of `target`, in Markdown.
pub fn hover_text(a: &Analysis, target: Target) -> String {
    let p = &a.program;
    let mut out = String::new();
    match target {
        Target::Sort(s) => {
            let sort = p.sort(s);
            let mut line = format!("type {}", sort.name);
            let parents: Vec<&str> = sort
                .parents
                .iter()
                .map(|&q| p.sort(q).name.as_str())
                .collect();
            if !parents.is_empty() {
                line.push_str(&format!(" isa {}", parents.join(", ")));
            }
            if sort.constructed {
                let names: Vec<&str> = sort
                    .constructors
                    .iter()
                    .map(|&f| p.func(f).name.as_str())
                    .collect();
                line.push_str(&format!(" constructed from {{ {} }}", short_list(&names)));
            } else if let Some(values) = &sort.fixed {
                let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                line.push_str(&format!(" = {{ {} }}", short_list(&refs)));
            }
            code_block(&mut out, &line);
            if sort.builtin.is_some() {
                out.push_str("A built-in type.\n\n");
            }
        }
        Target::Symbol(symbol) => {
            let (idp3, fodot) = (
                declaration_text(&a.program, symbol),
                crate::fodot::symbol_declaration(&a.program, symbol),
            );
            if a.fodot {
                code_block(&mut out, &fodot);
                out.push_str(&format!("IDP3 writes it `{idp3}`.\n\n"));
            } else {
                code_block(&mut out, &idp3);
                out.push_str(&format!("IDP-Z3 (FO(·)) writes it `{fodot}`.\n\n"));
            }
            for theory in &p.theories {
                if theory
                    .definitions
                    .iter()
                    .any(|d| d.defined().contains(&symbol))
                {
                    out.push_str(&format!(
                        "Defined by a definition of theory `{}`.\n\n",
                        theory.name
                    ));
                }
            }
            given_by_structures(a, Target::Symbol(symbol), &mut out);
        }
        Target::Var { declared } => {
            let note = a.index.var(declared);
            let name = note.map_or_else(|| a.span_text(declared).to_string(), |v| v.name.clone());
            let sort = note
                .and_then(|v| v.sort)
                .map_or("?".to_string(), |s| p.sort(s).name.clone());
            code_block(&mut out, &format!("{name}[{sort}]"));
            let how = if note.is_some_and(|v| v.typed) {
                "its type is written"
            } else {
                "its type is derived from where it is used"
            };
            out.push_str(&format!(
                "A variable, declared at line {} ({how}).\n\n",
                a.sources.line_col(declared.file, declared.start).0
            ));
        }
        Target::Component(c) => code_block(&mut out, &component_text(a, c)),
    }
    if let Target::Sort(_) = target {
        given_by_structures(a, target, &mut out);
    }
    out.trim_end().to_string()
}

fn code_block(out: &mut String, text: &str) {
    out.push_str("```idp\n");
    out.push_str(text);
    out.push_str("\n```\n\n");
}

/// At most eight items, then how many more.
fn short_list(items: &[&str]) -> String {
    if items.len() <= 8 {
        return items.join(", ");
    }
    format!("{}, … ({} in all)", items[..8].join(", "), items.len())
}

/// A predicate or function as its vocabulary declares it: `P(A, B)`, `partial F(A) : B`.
pub fn declaration_text(p: &crate::sema::Program, symbol: Symbol) -> String {
    let names = |sorts: &[crate::ids::SortId]| {
        sorts
            .iter()
            .map(|&s| p.sort(s).name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match symbol {
        Symbol::Pred(q) => {
            let pred = p.pred(q);
            if pred.args.is_empty() {
                pred.name.clone()
            } else {
                format!("{}({})", pred.name, names(&pred.args))
            }
        }
        Symbol::Func(f) => {
            let func = p.func(f);
            let partial = if func.partial { "partial " } else { "" };
            let args = if func.args.is_empty() {
                String::new()
            } else {
                format!("({})", names(&func.args))
            };
            format!(
                "{partial}{}{args} : {}",
                func.name,
                p.sort(func.result).name
            )
        }
    }
}

/// The lines of the structures that give `target` a value.
fn given_by_structures(a: &Analysis, target: Target, out: &mut String) {
    for o in a.index.occurrences_of(target) {
        if o.declaration {
            continue;
        }
        let Some(name) = enclosing_structure(&a.ast.items, o.span) else {
            continue;
        };
        let line = a
            .sources
            .line_span(o.span.file, a.sources.line_col(o.span.file, o.span.start).0);
        let text = line.map_or("", |l| a.span_text(l));
        let text: String = if text.chars().count() > 160 {
            text.chars().take(160).chain("…".chars()).collect()
        } else {
            text.to_string()
        };
        out.push_str(&format!("Given by structure `{name}`: `{text}`\n\n"));
    }
}

/// The name of the structure or factlist whose block holds `span`.
fn enclosing_structure(items: &[ast::Item], span: Span) -> Option<&str> {
    items.iter().find_map(|item| match item {
        ast::Item::Structure(s) if contains(s.span, span) => Some(s.name.name.as_str()),
        ast::Item::Factlist(f) if contains(f.span, span) => Some(f.name.name.as_str()),
        ast::Item::Namespace(n) if contains(n.span, span) => enclosing_structure(&n.items, span),
        _ => None,
    })
}

/// Whether `outer` covers `inner`.
pub fn contains(outer: Span, inner: Span) -> bool {
    outer.file == inner.file && outer.start <= inner.start && inner.end <= outer.end
}

fn component_text(a: &Analysis, c: Component) -> String {
    let p = &a.program;
    let voc_name = |v: crate::ids::VocId| p.voc(v).name.clone();
    match c {
        Component::Vocabulary(v) => {
            let voc = p.voc(v);
            let types = voc
                .sorts
                .iter()
                .filter(|&&s| p.sort(s).builtin.is_none())
                .count();
            let preds = voc
                .preds
                .iter()
                .filter(|&&q| p.pred(q).type_of.is_none())
                .count();
            format!(
                "vocabulary {} ({}, {}, {})",
                voc.name,
                counted(types, "type"),
                counted(preds, "predicate"),
                counted(voc.funcs.len(), "function")
            )
        }
        Component::Theory(t) => {
            let theory = p.theory(t);
            format!(
                "theory {} : {} ({}, {})",
                theory.name,
                voc_name(theory.vocabulary),
                counted(theory.sentences.len(), "sentence"),
                counted(theory.definitions.len(), "definition")
            )
        }
        Component::Structure(s) => {
            let st = &p.structures[s.index()];
            format!("structure {} : {}", st.name, voc_name(st.vocabulary))
        }
        Component::Term(t) => {
            let term = &p.terms[t.index()];
            format!("term {} : {}", term.name, voc_name(term.vocabulary))
        }
        Component::Query(q) => {
            let query = &p.queries[q.index()];
            format!("query {} : {}", query.name, voc_name(query.vocabulary))
        }
        Component::Procedure(q) => {
            let proc = &p.procedures[q.index()];
            format!("procedure {}({})", proc.name, proc.params.join(", "))
        }
        Component::Namespace(n) => format!("namespace {}", p.namespaces[n.index()].name),
    }
}

/// `1 type`, `2 types`.
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Every occurrence of a name in the document: the index's and those in procedures.
pub fn all_occurrences(a: &Analysis) -> Vec<Occurrence> {
    let mut out = a.index.occurrences.clone();
    out.extend(lua_occurrences(a));
    out
}

/// The names of the global namespace's components as they occur in the document's
/// procedures (Lua code: strings, comments and field names `x.T` left out).
fn lua_occurrences(a: &Analysis) -> Vec<Occurrence> {
    let text = a.text();
    let globals = &a.program.namespaces[0].members;
    let mut out = Vec::new();
    for proc in &a.program.procedures {
        if proc.span.file != a.file {
            continue;
        }
        let (start, end) = (proc.span.start as usize, proc.span.end as usize);
        let Some(open) = text.get(start..end).and_then(|t| t.find('{')) else {
            continue;
        };
        let body_start = start + open + 1;
        for (from, to) in crate::syntax::lua_text::names(&text[body_start..end.min(text.len())]) {
            let name = &text[body_start + from..body_start + to];
            if let Some(&c) = globals.get(name) {
                out.push(Occurrence {
                    span: Span::new(a.file, body_start + from..body_start + to),
                    target: Target::Component(c),
                    declaration: false,
                });
            }
        }
    }
    out
}
