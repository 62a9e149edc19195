//! Structure printing in IDP3's exact format (reference §11.1).

use std::collections::HashMap;

use crate::ids::{FuncId, PredId, SortId, Symbol, VocId};
use crate::print::{is_consistent, is_two_valued};
use crate::sema::Program;
use crate::structure::{Structure, Table, Tuple, TupleSet, Value};

/// `structure NAME : VOC {` ... `}` followed by a newline (Lua's `print` adds the blank line),
/// or `INCONSISTENT STRUCTURE` (no newline).
pub fn structure_to_string(program: &Program, s: &Structure) -> String {
    let mut out = String::new();
    write_structure(program, s, &mut ValueTexts::default(), &mut out);
    out
}

/// [`structure_to_string`] appended to `out`, with the texts and order of values that
/// `texts` has kept from earlier structures of the same program.
pub fn write_structure(program: &Program, s: &Structure, texts: &mut ValueTexts, out: &mut String) {
    if !is_consistent(program, s) {
        out.push_str("INCONSISTENT STRUCTURE");
        return;
    }
    let voc = program.voc(s.vocabulary);
    let voc_name = crate::syntax::fodot::written_name(&voc.name);
    out.push_str(&format!("structure {} : {voc_name} {{\n", s.name));
    write_body(program, s, texts, out, "  ");
    out.push_str("}\n");
}

/// The printable sorts of a vocabulary: not builtin, not fixed, not constructed; sorted by name.
pub fn printable_sorts(program: &Program, sorts: impl IntoIterator<Item = SortId>) -> Vec<SortId> {
    let mut v: Vec<SortId> = sorts
        .into_iter()
        .filter(|&so| {
            let x = program.sort(so);
            x.builtin.is_none() && x.fixed.is_none() && !x.constructed && is_identifier(&x.name)
        })
        .collect();
    v.sort_by(|a, b| {
        program
            .sort(*a)
            .name
            .as_bytes()
            .cmp(program.sort(*b).name.as_bytes())
            .then(a.cmp(b))
    });
    v.dedup();
    v
}

/// The printable predicates: no type predicates and no std symbols; sorted by `name/arity`.
pub fn printable_preds(program: &Program, preds: impl IntoIterator<Item = PredId>) -> Vec<PredId> {
    let mut v: Vec<PredId> = preds
        .into_iter()
        .filter(|&p| {
            let x = program.pred(p);
            x.type_of.is_none() && is_identifier(&x.name)
        })
        .collect();
    v.sort_by_cached_key(|&p| {
        let x = program.pred(p);
        (format!("{}/{}", x.name, x.args.len()).into_bytes(), p)
    });
    v.dedup();
    v
}

/// The printable functions: no constructors and no std symbols; sorted by `name/arity`.
pub fn printable_funcs(program: &Program, funcs: impl IntoIterator<Item = FuncId>) -> Vec<FuncId> {
    let mut v: Vec<FuncId> = funcs
        .into_iter()
        .filter(|&f| {
            let x = program.func(f);
            x.constructor_of.is_none() && is_identifier(&x.name)
        })
        .collect();
    v.sort_by_cached_key(|&f| {
        let x = program.func(f);
        (format!("{}/{}", x.name, x.args.len()).into_bytes(), f)
    });
    v.dedup();
    v
}

pub(crate) fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .map(|c| c.is_alphabetic() || c == '_')
        .unwrap_or(false)
}

/// One line of a structure's body: `indent`, `name` and what `rest` writes, a newline.
fn write_line(out: &mut String, indent: &str, name: &str, rest: impl FnOnce(&mut String)) {
    out.push_str(indent);
    out.push_str(name);
    rest(out);
    out.push('\n');
}

/// The body of a printed structure, each line after `indent`: the printable sorts, then the
/// predicates and functions, as IDP3 prints them.
fn write_body(
    program: &Program,
    s: &Structure,
    texts: &mut ValueTexts,
    out: &mut String,
    indent: &str,
) {
    let layout = texts.layout(program, s);
    for &so in &layout.sorts {
        let name = &program.sort(so).name;
        write_line(out, indent, name, |out| {
            out.push_str(" = ");
            match (s.domain(so), s.huge_ranges.get(&so)) {
                (Some(d), _) => texts.push_sort_table(out, d),
                (None, Some(range)) => {
                    let mut parts = vec![format!("{}..{}", range.lo, range.hi)];
                    parts.extend(range.extra.iter().map(|v| v.to_string()));
                    out.push_str(&format!("{{ {} }}", parts.join("; ")));
                }
                (None, None) => out.push_str("{  }"),
            }
        });
    }
    for (p, name) in &layout.preds {
        let (p, name) = (*p, name.as_str());
        let x = program.pred(p);
        let sym = Symbol::Pred(p);
        let arity = x.args.len();
        if let Some(procedure) = s.lazy.get(&sym) {
            write_line(out, indent, name, |out| {
                out.push_str(" = procedure ");
                out.push_str(&procedure.name);
            });
            continue;
        }
        match s.table(sym) {
            Some(t) if is_two_valued(program, s, sym) => write_line(out, indent, name, |out| {
                out.push_str(" = ");
                texts.push_unless_unchanged(out, sym, t.ct(), |texts, out| {
                    texts.push_tuples(out, t.ct().iter(), arity)
                });
            }),
            t => {
                let (ct, cf) = explicit_ct_cf(t);
                for (part, tuples) in [("<ct> = ", ct), ("<cf> = ", cf)] {
                    write_line(out, indent, name, |out| {
                        out.push_str(part);
                        texts.push_tuples(out, tuples.iter(), arity);
                    });
                }
            }
        }
    }
    for (f, name) in &layout.funcs {
        let (f, name) = (*f, name.as_str());
        let x = program.func(f);
        let sym = Symbol::Func(f);
        let n = x.args.len();
        if let Some(procedure) = s.lazy.get(&sym) {
            write_line(out, indent, name, |out| {
                out.push_str(" = procedure ");
                out.push_str(&procedure.name);
            });
            continue;
        }
        match s.table(sym) {
            Some(t) if is_two_valued(program, s, sym) => write_line(out, indent, name, |out| {
                out.push_str(" = ");
                texts.push_unless_unchanged(out, sym, t.ct(), |texts, out| {
                    let graph: Vec<&Tuple> = t.ct().iter().filter(|t| t.len() == n + 1).collect();
                    match (n, graph.first()) {
                        (0, Some(t)) => texts.push(out, t[0]),
                        (0, None) => out.push_str("{ }"),
                        _ => texts.push_mappings(out, graph, n),
                    }
                });
            }),
            t => {
                let (ct, cf) = explicit_ct_cf(t);
                for (part, tuples) in [("<ct> = ", ct), ("<cf> = ", cf)] {
                    write_line(out, indent, name, |out| {
                        out.push_str(part);
                        texts.push_mappings(out, tuples.iter().collect(), n);
                    });
                }
            }
        }
    }
}

/// A vocabulary, how many sorts, predicates and functions it has, and the symbols a structure
/// has beyond it.
type LayoutKey = (VocId, [usize; 3], Vec<Symbol>);

/// What a structure of a vocabulary prints, in order: its printable sorts, and its
/// printable predicates and functions each with the name it is printed under (`name[types]`
/// when overloaded).
struct Layout {
    sorts: Vec<SortId>,
    preds: Vec<(PredId, String)>,
    funcs: Vec<(FuncId, String)>,
}

impl Layout {
    fn of(program: &Program, s: &Structure) -> Layout {
        let voc = program.voc(s.vocabulary);
        let beyond = &s.beyond_vocabulary;
        let beyond_sorts = beyond.iter().flat_map(|&b| match b {
            Symbol::Pred(p) => program.pred(p).args.clone(),
            Symbol::Func(f) => {
                let func = program.func(f);
                func.args.iter().copied().chain([func.result]).collect()
            }
        });
        let sorts: Vec<SortId> = voc.sorts.iter().copied().chain(beyond_sorts).collect();
        let beyond_preds = beyond.iter().filter_map(|&b| match b {
            Symbol::Pred(p) if !voc.preds.contains(&p) => Some(p),
            _ => None,
        });
        let beyond_funcs = beyond.iter().filter_map(|&b| match b {
            Symbol::Func(f) if !voc.funcs.contains(&f) => Some(f),
            _ => None,
        });
        let preds = printable_preds(program, voc.preds.iter().copied().chain(beyond_preds));
        let funcs = printable_funcs(program, voc.funcs.iter().copied().chain(beyond_funcs));
        let mut pred_count: HashMap<(&str, usize), usize> = HashMap::new();
        for &p in &preds {
            let x = program.pred(p);
            *pred_count.entry((&x.name, x.args.len())).or_default() += 1;
        }
        let mut func_count: HashMap<(&str, usize), usize> = HashMap::new();
        for &f in &funcs {
            let x = program.func(f);
            *func_count.entry((&x.name, x.args.len())).or_default() += 1;
        }
        let preds = preds
            .iter()
            .map(|&p| {
                let x = program.pred(p);
                let name = if pred_count[&(x.name.as_str(), x.args.len())] > 1 {
                    pred_long_name(program, p)
                } else {
                    x.name.clone()
                };
                (p, name)
            })
            .collect();
        let funcs = funcs
            .iter()
            .map(|&f| {
                let x = program.func(f);
                let name = if func_count[&(x.name.as_str(), x.args.len())] > 1 {
                    func_long_name(program, f)
                } else {
                    x.name.clone()
                };
                (f, name)
            })
            .collect();
        Layout {
            sorts: printable_sorts(program, sorts),
            preds,
            funcs,
        }
    }
}

fn explicit_ct_cf(t: Option<&Table>) -> (Vec<Tuple>, Vec<Tuple>) {
    match t {
        None => (Vec::new(), Vec::new()),
        Some(Table::TwoValued(s)) => (s.iter().cloned().collect(), Vec::new()),
        Some(Table::ThreeValued { ct, cf }) => {
            (ct.iter().cloned().collect(), cf.iter().cloned().collect())
        }
    }
}

/// `P[T1,T2]`
pub fn pred_long_name(program: &Program, p: PredId) -> String {
    let x = program.pred(p);
    let sorts: Vec<&str> = x
        .args
        .iter()
        .map(|&s| program.sort(s).name.as_str())
        .collect();
    format!("{}[{}]", x.name, sorts.join(","))
}

/// `F[T1,T2 : T]`
pub fn func_long_name(program: &Program, f: FuncId) -> String {
    let x = program.func(f);
    let sorts: Vec<&str> = x
        .args
        .iter()
        .map(|&s| program.sort(s).name.as_str())
        .collect();
    format!(
        "{}[{} : {}]",
        x.name,
        sorts.join(","),
        program.sort(x.result).name
    )
}

/// A map from values that finds strings and compounds by their interned ids, as indexes, and
/// hashes only the other values (a printed model looks up every value it writes).
struct ValueMap<T> {
    strings: Vec<Option<T>>,
    compounds: Vec<Option<T>>,
    others: rustc_hash::FxHashMap<Value, T>,
}

impl<T> Default for ValueMap<T> {
    fn default() -> Self {
        ValueMap {
            strings: Vec::new(),
            compounds: Vec::new(),
            others: rustc_hash::FxHashMap::default(),
        }
    }
}

impl<T> ValueMap<T> {
    fn get(&self, v: Value) -> Option<&T> {
        match v {
            Value::Str(id) => self.strings.get(id.0 as usize)?.as_ref(),
            Value::Compound(id) => self.compounds.get(id.0 as usize)?.as_ref(),
            _ => self.others.get(&v),
        }
    }

    fn insert(&mut self, v: Value, x: T) {
        let (slots, k) = match v {
            Value::Str(id) => (&mut self.strings, id.0 as usize),
            Value::Compound(id) => (&mut self.compounds, id.0 as usize),
            _ => {
                self.others.insert(v, x);
                return;
            }
        };
        if slots.len() <= k {
            slots.resize_with(k + 1, || None);
        }
        slots[k] = Some(x);
    }
}

/// Writes values as IDP3 prints them into one buffer: integers directly, every other value's
/// text made once per printer (a model repeats `P(3,4)` in many tables).
/// One printer kept across models (`idp -n 0`) makes each text and each value's place in the
/// order once for the whole run.
#[derive(Default)]
pub struct ValueTexts {
    texts: ValueMap<Box<str>>,
    /// Every value met in a sorted table so far, in order, and each one's place in it: tables
    /// are sorted by these places (integer keys) rather than by comparing values, which for
    /// compound values means looking into the interner.
    order: Vec<Value>,
    place: ValueMap<u32>,
    /// The last table printed for each symbol and its text, while the symbol's table has been
    /// the same in every structure printed (the structure's given symbols, in an enumeration
    /// of models); a symbol whose table changed once is written anew from then on.
    unchanged: rustc_hash::FxHashMap<Symbol, Option<(TupleSet, String)>>,
    /// The layout of the last structure printed, with its vocabulary and the symbols it
    /// has beyond it.
    layout: Option<(LayoutKey, std::rc::Rc<Layout>)>,
}

impl ValueTexts {
    /// The layout of `s`, made once for the structures of one vocabulary.
    fn layout(&mut self, program: &Program, s: &Structure) -> std::rc::Rc<Layout> {
        let voc = program.voc(s.vocabulary);
        let sizes = [voc.sorts.len(), voc.preds.len(), voc.funcs.len()];
        if let Some(((id, counts, beyond), layout)) = &self.layout {
            if *id == s.vocabulary && *counts == sizes && *beyond == s.beyond_vocabulary {
                return layout.clone();
            }
        }
        let layout = std::rc::Rc::new(Layout::of(program, s));
        let key = (s.vocabulary, sizes, s.beyond_vocabulary.clone());
        self.layout = Some((key, layout.clone()));
        layout
    }

    /// Writes a two-valued table with `write`, or copies the text written for the same
    /// symbol's table in the last structure when the table is the same.
    fn push_unless_unchanged(
        &mut self,
        out: &mut String,
        sym: Symbol,
        table: &TupleSet,
        write: impl FnOnce(&mut ValueTexts, &mut String),
    ) {
        if let Some(Some((last, text))) = self.unchanged.get(&sym) {
            if last == table {
                out.push_str(text);
                return;
            }
        }
        let start = out.len();
        write(self, out);
        let memo = match self.unchanged.get(&sym) {
            None => Some((table.clone(), out[start..].to_string())),
            Some(_) => None,
        };
        self.unchanged.insert(sym, memo);
    }

    /// Sorts and deduplicates equally long tuples by their values' places: the tuples packed
    /// into one integer key when they have at most four values.
    fn sort_tuples(&mut self, tuples: &mut Vec<&Tuple>) {
        let width = tuples.first().map_or(0, |t| t.len());
        if tuples.len() < 2 || width > 4 || tuples.iter().any(|t| t.len() != width) {
            tuples.sort_unstable();
            tuples.dedup();
            return;
        }
        self.place_values(tuples);
        let key = |t: &Tuple| {
            t.iter().fold(0u128, |k, &v| {
                (k << 32) | u128::from(self.place.get(v).copied().unwrap_or(0))
            })
        };
        let mut keyed: Vec<(u128, &Tuple)> = tuples.iter().map(|&t| (key(t), t)).collect();
        keyed.sort_unstable_by_key(|&(k, _)| k);
        keyed.dedup_by_key(|&mut (k, _)| k);
        tuples.clear();
        tuples.extend(keyed.into_iter().map(|(_, t)| t));
    }

    /// Gives every value of `tuples` its place in the order of all values met.
    fn place_values(&mut self, tuples: &[&Tuple]) {
        let before = self.order.len();
        for &v in tuples.iter().flat_map(|t| t.iter()) {
            if self.place.get(v).is_none() {
                self.place.insert(v, u32::MAX);
                self.order.push(v);
            }
        }
        if self.order.len() > before {
            self.order.sort_unstable();
            for (k, &v) in self.order.iter().enumerate() {
                self.place.insert(v, k as u32);
            }
        }
    }

    fn push(&mut self, out: &mut String, v: Value) {
        match v {
            Value::Int(i) => out.push_str(itoa::Buffer::new().format(i)),
            _ => {
                if self.texts.get(v).is_none() {
                    self.texts.insert(v, v.to_string().into_boxed_str());
                }
                out.push_str(self.texts.get(v).map_or("", |t| t));
            }
        }
    }

    /// `a,b,c`
    fn push_tuple(&mut self, out: &mut String, t: &[Value]) {
        for (k, &v) in t.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            self.push(out, v);
        }
    }

    /// A sort's table: `{ 1..4 }` for a contiguous integer range, `{ a; b }` otherwise,
    /// `{  }` empty.
    fn push_sort_table(&mut self, out: &mut String, values: &[Value]) {
        let mut sorted = values.to_vec();
        if !sorted.is_sorted() {
            sorted.sort_unstable();
        }
        sorted.dedup();
        if let (Some(Value::Int(lo)), Some(Value::Int(hi))) = (sorted.first(), sorted.last()) {
            let all_ints = sorted.iter().all(|v| matches!(v, Value::Int(_)));
            if all_ints && (hi - lo) as u128 + 1 == sorted.len() as u128 {
                out.push_str("{ ");
                self.push(out, Value::Int(*lo));
                out.push_str("..");
                self.push(out, Value::Int(*hi));
                out.push_str(" }");
                return;
            }
        }
        self.push_list(out, &sorted, |texts, out, v| texts.push(out, *v));
    }

    /// A predicate table: `{ 1,2; 3,4 }`, empty `{  }`; arity 0 prints `true`/`false`.
    fn push_tuples<'a>(
        &mut self,
        out: &mut String,
        tuples: impl IntoIterator<Item = &'a Tuple>,
        arity: usize,
    ) {
        let mut v: Vec<&Tuple> = tuples.into_iter().collect();
        if arity == 0 {
            out.push_str(if v.is_empty() { "false" } else { "true" });
            return;
        }
        self.sort_tuples(&mut v);
        self.push_list(out, &v, |texts, out, t| texts.push_tuple(out, t));
    }

    /// A function table: `{ 1->2; 2->3 }`, n-ary `{ 1,2->3 }`, constants `{ ->5 }`, empty
    /// `{  }`.
    fn push_mappings(&mut self, out: &mut String, mut graph: Vec<&Tuple>, n: usize) {
        graph.retain(|t| t.len() == n + 1);
        self.sort_tuples(&mut graph);
        self.push_list(out, &graph, |texts, out, t| {
            texts.push_tuple(out, &t[..n]);
            out.push_str("->");
            texts.push(out, t[n]);
        });
    }

    /// `{ x; y }` with each item written by `item`, or `{  }`.
    fn push_list<T>(
        &mut self,
        out: &mut String,
        items: &[T],
        mut item: impl FnMut(&mut ValueTexts, &mut String, &T),
    ) {
        if items.is_empty() {
            out.push_str("{  }");
            return;
        }
        out.push_str("{ ");
        for (k, x) in items.iter().enumerate() {
            if k > 0 {
                out.push_str("; ");
            }
            item(self, out, x);
        }
        out.push_str(" }");
    }
}

/// A sort's table: `{ 1..4 }` for a contiguous integer range, `{ a; b }` otherwise, `{  }` empty.
pub fn sort_table_to_string(values: &[Value]) -> String {
    let mut out = String::new();
    ValueTexts::default().push_sort_table(&mut out, values);
    out
}

/// A predicate table: `{ 1,2; 3,4 }`, empty `{  }`; arity 0 prints `true`/`false`.
pub fn tuples_to_string<'a>(tuples: impl IntoIterator<Item = &'a Tuple>, arity: usize) -> String {
    let mut out = String::new();
    ValueTexts::default().push_tuples(&mut out, tuples, arity);
    out
}

/// `a,b,c`
pub fn tuple_to_string(t: &[Value]) -> String {
    let mut out = String::new();
    ValueTexts::default().push_tuple(&mut out, t);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VocId;
    use crate::sema::{Function, Predicate, Sort, Vocabulary};
    use crate::structure::TupleSet;

    fn sort(p: &mut Program, name: &str) -> SortId {
        let id = SortId(p.sorts.len() as u32);
        let pred = PredId(p.preds.len() as u32);
        p.preds.push(Predicate {
            name: name.into(),
            args: vec![id],
            type_of: Some(id),
            span: None,
        });
        p.sorts.push(Sort {
            name: name.into(),
            parents: vec![],
            builtin: None,
            fixed: None,
            constructors: vec![],
            constructed: false,
            pred,
            span: None,
        });
        id
    }

    fn pred(p: &mut Program, name: &str, args: Vec<SortId>) -> PredId {
        let id = PredId(p.preds.len() as u32);
        p.preds.push(Predicate {
            name: name.into(),
            args,
            type_of: None,
            span: None,
        });
        id
    }

    fn func(
        p: &mut Program,
        name: &str,
        args: Vec<SortId>,
        result: SortId,
        partial: bool,
    ) -> FuncId {
        let id = FuncId(p.funcs.len() as u32);
        p.funcs.push(Function {
            name: name.into(),
            args,
            result,
            partial,
            constructor_of: None,
            span: None,
        });
        id
    }

    fn set(ts: Vec<Vec<Value>>) -> TupleSet {
        ts.into_iter().collect()
    }

    fn colouring() -> (Program, Structure) {
        let mut p = Program::default();
        let vtx = sort(&mut p, "Vtx");
        let colour = sort(&mut p, "Colour");
        let edge = pred(&mut p, "Edge", vec![vtx, vtx]);
        let col = func(&mut p, "Colouring", vec![vtx], colour, false);
        let mut voc = Vocabulary {
            name: "V".into(),
            ..Default::default()
        };
        voc.sorts.insert(vtx);
        voc.sorts.insert(colour);
        voc.preds.insert(p.sorts[0].pred);
        voc.preds.insert(p.sorts[1].pred);
        voc.preds.insert(edge);
        voc.funcs.insert(col);
        p.vocabularies.push(voc);
        let mut s = Structure::new("", VocId(0));
        s.set_domain(vtx, (1..=4).map(Value::Int).collect());
        s.set_domain(
            colour,
            vec![Value::str("red"), Value::str("blue"), Value::str("yellow")],
        );
        let i = Value::Int;
        s.symbols.insert(
            Symbol::Pred(edge),
            Table::TwoValued(set(vec![
                vec![i(1), i(2)],
                vec![i(2), i(4)],
                vec![i(1), i(3)],
            ])),
        );
        let (b, r) = (Value::str("blue"), Value::str("red"));
        s.symbols.insert(
            Symbol::Func(col),
            Table::TwoValued(set(vec![
                vec![i(1), b],
                vec![i(2), r],
                vec![i(3), r],
                vec![i(4), b],
            ])),
        );
        (p, s)
    }

    #[test]
    fn prints_graph_colouring_model() {
        let (p, s) = colouring();
        let expected = "structure  : V {\n  Colour = { \"blue\"; \"red\"; \"yellow\" }\n  Vtx = { 1..4 }\n  Edge = { 1,2; 1,3; 2,4 }\n  Colouring = { 1->\"blue\"; 2->\"red\"; 3->\"red\"; 4->\"blue\" }\n}\n";
        assert_eq!(structure_to_string(&p, &s), expected);
    }

    #[test]
    fn prints_three_valued_and_unknown_symbols() {
        let (mut p, mut s) = colouring();
        let vtx = SortId(0);
        let q = pred(&mut p, "Q", vec![vtx]);
        let r = pred(&mut p, "R", vec![]);
        let c = func(&mut p, "C", vec![], vtx, false);
        p.vocabularies[0].preds.insert(q);
        p.vocabularies[0].preds.insert(r);
        p.vocabularies[0].funcs.insert(c);
        s.symbols.insert(
            Symbol::Pred(q),
            Table::ThreeValued {
                ct: set(vec![vec![Value::Int(2)]]),
                cf: set(vec![vec![Value::Int(1)]]),
            },
        );
        s.symbols.insert(
            Symbol::Func(c),
            Table::ThreeValued {
                ct: set(vec![vec![Value::Int(3)]]),
                cf: TupleSet::default(),
            },
        );
        s.name = "S".into();
        let out = structure_to_string(&p, &s);
        let expected = "structure S : V {\n  Colour = { \"blue\"; \"red\"; \"yellow\" }\n  Vtx = { 1..4 }\n  Edge = { 1,2; 1,3; 2,4 }\n  Q<ct> = { 2 }\n  Q<cf> = { 1 }\n  R<ct> = false\n  R<cf> = false\n  C = 3\n  Colouring = { 1->\"blue\"; 2->\"red\"; 3->\"red\"; 4->\"blue\" }\n}\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn sort_tables() {
        assert_eq!(sort_table_to_string(&[]), "{  }");
        assert_eq!(sort_table_to_string(&[Value::Int(5)]), "{ 5..5 }");
        assert_eq!(
            sort_table_to_string(&[Value::Int(1), Value::Int(3)]),
            "{ 1; 3 }"
        );
        assert_eq!(
            sort_table_to_string(&[Value::str("b"), Value::str("a")]),
            "{ \"a\"; \"b\" }"
        );
        assert_eq!(
            sort_table_to_string(&[Value::Float(1.5), Value::Int(2)]),
            "{ 1.5; 2 }"
        );
    }

    #[test]
    fn predicate_tables() {
        let i = Value::Int;
        let ts = [vec![i(2), i(2)], vec![i(1), i(1)]];
        assert_eq!(tuples_to_string(ts.iter(), 2), "{ 1,1; 2,2 }");
        assert_eq!(tuples_to_string(Vec::<Tuple>::new().iter(), 1), "{  }");
        assert_eq!(tuples_to_string([vec![]].iter(), 0), "true");
    }

    #[test]
    fn inconsistent_structure() {
        let (mut p, mut s) = colouring();
        let q = pred(&mut p, "Q", vec![SortId(0)]);
        p.vocabularies[0].preds.insert(q);
        s.symbols.insert(
            Symbol::Pred(q),
            Table::ThreeValued {
                ct: set(vec![vec![Value::Int(2)]]),
                cf: set(vec![vec![Value::Int(2)]]),
            },
        );
        assert_eq!(structure_to_string(&p, &s), "INCONSISTENT STRUCTURE");
    }

    #[test]
    fn partial_constant_without_value() {
        let (mut p, mut s) = colouring();
        let c = func(&mut p, "D", vec![], SortId(0), true);
        p.vocabularies[0].funcs.insert(c);
        s.symbols
            .insert(Symbol::Func(c), Table::TwoValued(TupleSet::default()));
        assert!(structure_to_string(&p, &s).contains("\n  D = { }\n"));
    }
}
