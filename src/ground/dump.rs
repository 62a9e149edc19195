//! The ground theory in readable syntax (`idp --dump ground`): what the grounder produced and
//! the encoder received, for looking inside a run. Shared subformulas are printed once, under
//! a name (`#12`), and referred to by that name afterwards, so the text stays linear in the
//! size of the ground theory however much sharing there is. Each group of formulas is headed by
//! where it comes from (the sentence or definition with its `FILE:LINE:COL`, or the function
//! whose values it constrains), and the header counts the formulas printed.

use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use crate::ground::store::{Gf, Node, Store, AUX};
use crate::ids::Symbol;
use crate::sema::Program;

/// The text of `roots` (the asserted ground formulas, in order, each with where it comes
/// from): a header that counts the formulas printed, then per origin a comment line naming it
/// (`// sentence at f.idp:3:1: ...`) and its formulas, one line per named shared subformula
/// before its first use and `assert <formula>.` per ground formula.
pub fn ground_theory_text(program: &Program, store: &Store, roots: &[(Gf, Rc<str>)]) -> String {
    let plain: Vec<Gf> = roots.iter().map(|(g, _)| *g).collect();
    let uses = count_uses(store, &plain);
    let mut named: HashMap<usize, String> = HashMap::default();
    let mut body = String::new();
    let mut asserts = 0;
    let mut last_origin: Option<&str> = None;
    for (root, origin) in roots {
        for g in top_level_conjuncts(store, &[*root]) {
            if last_origin != Some(&**origin) {
                if !origin.is_empty() {
                    body.push_str(&format!("// {origin}\n"));
                }
                last_origin = Some(&**origin);
            }
            let text = formula_text(program, store, g, &uses, &mut named, &mut body);
            body.push_str(&format!("assert {text}.\n"));
            asserts += 1;
        }
    }
    let formulas = if asserts == 1 { "formula" } else { "formulas" };
    let shared = match named.len() {
        0 => String::new(),
        1 => ", 1 shared subformula".to_string(),
        n => format!(", {n} shared subformulas"),
    };
    format!("// ground theory ({asserts} {formulas}{shared})\n{body}// end of ground theory\n")
}

/// The roots with top-level conjunctions split into their conjuncts and `true` left out: one
/// `assert` per ground sentence instance.
fn top_level_conjuncts(store: &Store, roots: &[Gf]) -> Vec<Gf> {
    let mut out = Vec::new();
    let mut stack: Vec<Gf> = roots.iter().rev().copied().collect();
    while let Some(g) = stack.pop() {
        match store.node(g) {
            Node::True if !g.is_negated() => {}
            Node::And(children) if !g.is_negated() => {
                stack.extend(children.iter().rev().copied());
            }
            _ => out.push(g),
        }
    }
    out
}

/// How many parents each conjunction node has (over all roots).
fn count_uses(store: &Store, roots: &[Gf]) -> HashMap<usize, usize> {
    let mut uses: HashMap<usize, usize> = HashMap::default();
    let mut stack: Vec<Gf> = roots.to_vec();
    while let Some(g) = stack.pop() {
        if let Node::And(children) = store.node(g) {
            let seen = uses.entry(g.node()).or_insert(0);
            *seen += 1;
            if *seen == 1 {
                stack.extend(children.iter().copied());
            }
        }
    }
    uses
}

/// The text of `g`; a conjunction used more than once is defined on its own line in `out`
/// (the first time) and referred to by its name. A negated conjunction of negations reads as a
/// disjunction, and a negated function atom as `f(x) ~= v`.
fn formula_text(
    program: &Program,
    store: &Store,
    g: Gf,
    uses: &HashMap<usize, usize>,
    named: &mut HashMap<usize, String>,
    out: &mut String,
) -> String {
    let negated = g.is_negated();
    match store.node(g) {
        Node::True => if negated { "false" } else { "true" }.to_string(),
        Node::Atom(a) => atom_text(program, store, a, negated),
        Node::And(children) => {
            let shared = uses.get(&g.node()).copied().unwrap_or(0) > 1;
            let children = children.to_vec();
            if negated && !shared && children.iter().all(|c| c.is_negated()) {
                let parts: Vec<String> = children
                    .iter()
                    .map(|&c| formula_text(program, store, -c, uses, named, out))
                    .collect();
                return format!("({})", parts.join(" | "));
            }
            let sign = if negated { "~" } else { "" };
            if let Some(name) = named.get(&g.node()) {
                return format!("{sign}{name}");
            }
            let parts: Vec<String> = children
                .iter()
                .map(|&c| formula_text(program, store, c, uses, named, out))
                .collect();
            let text = format!("({})", parts.join(" & "));
            if !shared {
                return format!("{sign}{text}");
            }
            let name = format!("#{}", g.node());
            out.push_str(&format!("{name} := {text}\n"));
            named.insert(g.node(), name.clone());
            format!("{sign}{name}")
        }
    }
}

/// An atom as text: `P(1,2)`, or `F(1) = 2` for a function's graph atom.
pub fn atom_text(program: &Program, store: &Store, a: u32, negated: bool) -> String {
    let (symbol, tuple) = store.atom_key(a);
    let args: Vec<String> = tuple.iter().map(|v| v.to_string()).collect();
    let sign = if negated { "~" } else { "" };
    match *symbol {
        s if s == AUX => format!("{sign}aux[{}]", args.join(",")),
        Symbol::Pred(p) => format!("{sign}{}", application(&program.pred(p).name, &args)),
        Symbol::Func(f) => {
            let (value, inputs) = args.split_last().map_or(("", &args[..]), |(v, i)| (v, i));
            let op = if negated { "~=" } else { "=" };
            format!(
                "{} {op} {value}",
                application(&program.func(f).name, inputs)
            )
        }
    }
}

/// `name(a,b)`, or just `name` without arguments (as constants are written).
fn application(name: &str, args: &[String]) -> String {
    if args.is_empty() {
        name.to_string()
    } else {
        format!("{name}({})", args.join(","))
    }
}
