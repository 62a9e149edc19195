//! Models in IDP-Z3's text: each symbol the structure did not give, in the order of the
//! vocabulary, as `p := {(a, b), (b, c)}.`, `f := {a -> 1, b -> 2}.`, `c := 3.` or
//! `q := true.`; tuples in the order of their elements.

use rustc_hash::FxHashSet;

use crate::ids::{Symbol, VocId};
use crate::sema::{cartesian, sort_domain, Program};
use crate::structure::{str_text, Structure, Table, Value};

/// The text IDP-Z3's `pretty_print` gives for `model`, a model expanding `given`. With `used`,
/// the symbols outside it are IDP-Z3's "don't care": a constant or proposition shows as
/// `// c := *.`, others not at all.
pub fn model_text(
    program: &Program,
    voc: VocId,
    given: &Structure,
    model: &Structure,
    used: Option<&FxHashSet<Symbol>>,
) -> String {
    model_text_as(program, voc, given, model, used, Quotes::Dropped)
}

/// Whether a quoted name (`'(No activity)'`) keeps its quotes: IDP-Z3's output drops them, a
/// file that is read back (`--dump program`) needs them.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Quotes {
    Dropped,
    Kept,
}

/// [`model_text`], with quoted names as `quotes` says.
pub(super) fn model_text_as(
    program: &Program,
    voc: VocId,
    given: &Structure,
    model: &Structure,
    used: Option<&FxHashSet<Symbol>>,
    quotes: Quotes,
) -> String {
    let mut out = String::new();
    for symbol in symbols_in_order(program, voc) {
        if given_whole(given, symbol) {
            continue;
        }
        let unknown = match model.table(symbol) {
            None => true,
            Some(Table::ThreeValued { ct, cf }) => ct.is_empty() && cf.is_empty(),
            Some(Table::TwoValued(_)) => false,
        };
        if unknown || used.is_some_and(|u| !u.contains(&symbol)) {
            // A "don't care" or a propagated theory's unknown: `// c := *.` for a constant or
            // proposition, nothing for others.
            if is_nullary(program, symbol) {
                out.push_str(&format!("// {} := *.\n", program.symbol_name(symbol)));
            }
            continue;
        }
        let Some(table) = model.table(symbol) else {
            continue;
        };
        let mut tuples: Vec<&[Value]> = match table {
            Table::TwoValued(set) => set.iter().map(|t| t.as_ref()).collect(),
            Table::ThreeValued { ct, .. } => ct.iter().map(|t| t.as_ref()).collect(),
        };
        if tuples.is_empty() && has_empty_argument(program, model, symbol) {
            // No atom at all: IDP-Z3 has nothing to print.
            continue;
        }

        tuples.sort_by(|a, b| cmp_tuples(a, b));
        let name = program.symbol_name(symbol);
        let line = match symbol {
            Symbol::Pred(p) if program.pred(p).args.is_empty() => {
                format!("{name} := {}.", !tuples.is_empty())
            }
            Symbol::Pred(_) => {
                let items: Vec<String> = tuples
                    .iter()
                    .map(|t| tuple_text(&texts_as(program, symbol, t, quotes)))
                    .collect();
                format!("{name} := {{{}}}.", items.join(", "))
            }
            Symbol::Func(f) if program.func(f).args.is_empty() => match tuples.first() {
                Some(t) => format!(
                    "{name} := {}.",
                    texts_as(program, symbol, t, quotes).join("")
                ),
                None => format!("// {name} := *."),
            },
            Symbol::Func(_) => {
                let items: Vec<String> = tuples
                    .iter()
                    .map(|t| {
                        let mut parts = texts_as(program, symbol, t, quotes);
                        let value = parts.pop().unwrap_or_default();
                        format!("{} -> {value}", tuple_text(&parts))
                    })
                    .collect();
                // Over an infinite type, the applications the theory met: IDP-Z3's partial
                // interpretation.
                let sign = if shown_in_part(program, model, symbol) {
                    ":>"
                } else {
                    ":="
                };
                format!("{name} {sign} {{{}}}.", items.join(", "))
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether `model` gives only some tuples of `symbol`, whose arguments range over an
/// infinite type (a function defined over `Int`, applied where the theory needs it).
fn shown_in_part(program: &Program, model: &Structure, symbol: Symbol) -> bool {
    let args = match symbol {
        Symbol::Func(f) => &program.func(f).args,
        Symbol::Pred(p) => &program.pred(p).args,
    };
    matches!(model.table(symbol), Some(Table::ThreeValued { .. }))
        && (args.iter()).any(|&sort| sort_domain(program, model, sort).is_none())
}

/// Whether a symbol is a proposition or a constant.
fn is_nullary(program: &Program, symbol: Symbol) -> bool {
    program.symbol_sorts(symbol).len() == usize::from(matches!(symbol, Symbol::Func(_)))
}

/// The predicates and functions a vocabulary declares, in the order of their declarations
/// (types' predicates and constructors left out).
pub(crate) fn symbols_in_order(program: &Program, voc: VocId) -> Vec<Symbol> {
    let v = program.voc(voc);
    let mut found: Vec<(u32, Symbol)> = Vec::new();
    // An empty span: a tester or accessor the reader declared (IDP-Z3 does not print them).
    for &p in &v.preds {
        let pred = program.pred(p);
        if let (None, Some(span)) = (pred.type_of, pred.span.filter(|s| s.end > s.start)) {
            found.push((span.start, Symbol::Pred(p)));
        }
    }
    for &f in &v.funcs {
        let func = program.func(f);
        if let (None, Some(span)) = (func.constructor_of, func.span.filter(|s| s.end > s.start)) {
            found.push((span.start, Symbol::Func(f)));
        }
    }
    found.sort_by_key(|&(at, _)| at);
    found.into_iter().map(|(_, s)| s).collect()
}

/// What `model` says of `symbols`: each one's true tuples, sorted (to tell models apart on
/// them).
pub fn projection(model: &Structure, symbols: &[Symbol]) -> Vec<Vec<Vec<Value>>> {
    symbols
        .iter()
        .map(|&s| {
            let mut tuples: Vec<Vec<Value>> = match model.table(s) {
                Some(Table::TwoValued(set)) => set.iter().cloned().collect(),
                Some(Table::ThreeValued { ct, .. }) => ct.iter().cloned().collect(),
                None => Vec::new(),
            };
            tuples.sort();
            tuples
        })
        .collect()
}

/// Whether an argument type of `symbol` has no elements.
fn has_empty_argument(program: &Program, model: &Structure, symbol: Symbol) -> bool {
    let sorts = program.symbol_sorts(symbol);
    let arity = match symbol {
        Symbol::Pred(_) => sorts.len(),
        Symbol::Func(_) => sorts.len() - 1,
    };
    sorts[..arity]
        .iter()
        .any(|&s| sort_domain(program, model, s).is_some_and(|d| d.is_empty()))
}

/// Tuples in IDP-Z3's order: element by element, numbers by value and constructors in the
/// order they are declared (IDP3's order puts names alphabetically).
pub(super) fn cmp_tuples(a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| cmp_values(*x, *y))
        .find(|o| o.is_ne())
        .unwrap_or(a.len().cmp(&b.len()))
}

fn cmp_values(a: Value, b: Value) -> std::cmp::Ordering {
    match (a.compound_parts(), b.compound_parts()) {
        (Some(x), Some(y)) => x
            .constructor
            .cmp(&y.constructor)
            .then_with(|| cmp_tuples(&x.args, &y.args)),
        _ => a.cmp(&b),
    }
}

/// Whether the structure gives the symbol's whole interpretation (IDP-Z3 prints only the rest).
fn given_whole(given: &Structure, symbol: Symbol) -> bool {
    matches!(given.table(symbol), Some(Table::TwoValued(_)))
}

/// `a` for one element, `(a, b)` for more.
fn tuple_text(parts: &[String]) -> String {
    match parts {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
    }
}

thread_local! {
    /// IDP-Z3's dates in the file being run: the types listed with dates, and the functions
    /// whose value is a `Date` (both by name; a date is its day number inside idp).
    static DATES: std::cell::RefCell<(Vec<String>, Vec<String>)> = Default::default();
}

/// Sets the names of the types and functions whose values print as dates.
pub fn set_dates(types: Vec<String>, funcs: Vec<String>) {
    DATES.with(|d| *d.borrow_mut() = (types, funcs));
}

/// The texts of a tuple of `symbol` (its arguments, then a function's value), dates as
/// `#2021-01-31`.
pub(super) fn texts(program: &Program, symbol: Symbol, tuple: &[Value]) -> Vec<String> {
    texts_as(program, symbol, tuple, Quotes::Dropped)
}

/// [`texts`], with quoted names as `quotes` says.
fn texts_as(program: &Program, symbol: Symbol, tuple: &[Value], quotes: Quotes) -> Vec<String> {
    let sorts = program.symbol_sorts(symbol);
    let name = program.symbol_name(symbol);
    DATES.with(|d| {
        let (types, funcs) = &*d.borrow();
        tuple
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                let sort = sorts.get(k).map(|&s| program.sort(s).name.as_str());
                let value_of_func = k + 1 == sorts.len() && matches!(symbol, Symbol::Func(_));
                let date = sort.is_some_and(|s| types.iter().any(|t| t == s))
                    || (value_of_func && funcs.iter().any(|f| f == name));
                match (date, v) {
                    (true, Value::Int(day)) => crate::syntax::fodot::date_text(day),
                    _ if quotes == Quotes::Kept => value_source(v),
                    _ => value_text(v),
                }
            })
            .collect()
    })
}

/// A value as IDP-Z3 writes it: a quoted name (`'(No activity)'`) without its quotes, a real
/// as Z3's fraction (0.5 is 1/2).
pub fn value_text(v: Value) -> String {
    if let (Value::Float(_), Some(q)) = (v, v.exact()) {
        return q.to_string();
    }
    let text = value_source(v);
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) if !inner.is_empty() => inner.to_string(),
        _ => text,
    }
}

/// A value as a file writes it.
fn value_source(v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Ratio(_) => v.exact().map_or_else(|| v.to_string(), |q| q.to_string()),
        Value::Str(s) => str_text(s),
        Value::Compound(_) => v.to_string().replace(',', ", "),
    }
}

/// IDP-Z3's `model_propagate` lines for `known` (what every model has in common), leaving out
/// what `given` already says: `p(a)`, `Not p(b)`, `f(a) -> 1`, in the order of the vocabulary
/// and, per symbol, of the argument tuples. With `complete`, also the values a function cannot
/// take (`Not f(a) = 2`).
pub fn consequences(
    program: &Program,
    voc: VocId,
    given: &Structure,
    known: &Structure,
    complete: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for symbol in symbols_in_order(program, voc) {
        if given_whole(given, symbol) {
            continue;
        }
        let Some(table) = known.table(symbol) else {
            continue;
        };
        let name = program.symbol_name(symbol);
        let sorts = program.symbol_sorts(symbol);
        let is_func = matches!(symbol, Symbol::Func(_));
        let arity = if is_func {
            sorts.len() - 1
        } else {
            sorts.len()
        };
        let (truths, falsities): (Vec<Vec<Value>>, Vec<Vec<Value>>) = match table {
            Table::ThreeValued { ct, cf } => (
                ct.iter().cloned().collect(),
                if is_func && !complete {
                    Vec::new()
                } else {
                    cf.iter().cloned().collect()
                },
            ),
            Table::TwoValued(set) => {
                let all = if is_func {
                    Vec::new()
                } else {
                    all_tuples(program, known, &sorts)
                };
                let falsities = all.into_iter().filter(|t| !set.contains(t)).collect();
                (set.iter().cloned().collect(), falsities)
            }
        };
        let given_truth = |t: &[Value], want: bool| {
            let v = given.truth(symbol, t);
            v == if want {
                crate::structure::TruthValue::True
            } else {
                crate::structure::TruthValue::False
            }
        };
        let mut lines: Vec<(Vec<Value>, String)> = Vec::new();
        for t in truths.into_iter().filter(|t| !given_truth(t, true)) {
            let parts = texts(program, symbol, &t);
            let call = format!("{name}({})", parts[..arity].join(", "));
            let text = match parts.get(arity) {
                Some(v) => format!("{call} -> {v}"),
                None => call,
            };
            lines.push((t.clone(), text));
        }
        for t in falsities.into_iter().filter(|t| !given_truth(t, false)) {
            let parts = texts(program, symbol, &t);
            let call = format!("{name}({})", parts[..arity].join(", "));
            let text = match parts.get(arity) {
                Some(v) => format!("Not {call} = {v}"),
                None => format!("Not {call}"),
            };
            lines.push((t.clone(), text));
        }
        lines.sort_by(|a, b| cmp_tuples(&a.0, &b.0));
        out.extend(lines.into_iter().map(|(_, l)| l));
    }
    out
}

/// Every tuple over the domains of `sorts` in the structure (none for a sort without a finite
/// domain).
pub(super) fn all_tuples(
    program: &Program,
    structure: &Structure,
    sorts: &[crate::ids::SortId],
) -> Vec<Vec<Value>> {
    let domains: Vec<Vec<Value>> = sorts
        .iter()
        .map(|&s| sort_domain(program, structure, s).unwrap_or_default())
        .collect();
    cartesian(&domains)
}
