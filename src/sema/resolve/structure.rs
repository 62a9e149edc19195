//! Structures: every interpretation form of IDP3 §7 (types, predicates, functions, `<ct>`,
//! `<cf>`, `<u>`), then the checks and completions IDP3 runs when a structure closes: sorts
//! autocompleted from the elements at their positions (and from subsorts), membership in
//! given sorts, the three-valued combinations, and the function checks.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::{Entry, Resolver};
use crate::ids::{FuncId, PredId, SortId, StructId, Symbol, VocId};
use crate::sema::index;
use crate::sema::program::Component;
use crate::source::Span;
use crate::structure::{Structure, Tuple, TupleSet, Value};
use crate::syntax::ast;
use crate::syntax::ast::{InterValue, TableEntry, Truth};

/// The interpretation parts given for one symbol.
#[derive(Default)]
pub(super) struct Parts {
    pub two: Option<TupleSet>,
    pub ct: Option<TupleSet>,
    pub cf: Option<TupleSet>,
    pub u: Option<TupleSet>,
    pub span: Option<Span>,
}

/// A structure under construction.
pub(super) struct Builder {
    pub name: String,
    pub voc: VocId,
    /// Sorts interpreted in the structure, sorted and without duplicates.
    pub given_sorts: IndexMap<SortId, Vec<Value>>,
    pub parts: IndexMap<Symbol, Parts>,
    pub span: Span,
    /// The structure's name: where notes about the whole structure point.
    pub name_span: Span,
    /// Sorts given by a range too large to enumerate: left uninterpreted, the range kept.
    pub huge_sorts: IndexMap<SortId, (i64, i64)>,
    /// Symbols interpreted by a procedure (`P = procedure Name`), with its qualified name.
    pub procedures: Vec<(Symbol, Vec<String>)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Sort(SortId),
    Pred(PredId),
    Func(FuncId),
}

impl Resolver<'_> {
    pub(super) fn structure(&mut self, s: &ast::Structure) {
        let Some(voc) = self.lookup_vocabulary(&s.vocabulary) else {
            return;
        };
        let mut b = Builder::new(&s.name, voc, s.span);
        self.in_block(|r| {
            for u in &s.usings {
                r.using(u);
            }
            for i in &s.interpretations {
                r.interpretation(&mut b, i);
            }
        });
        let st = self.finish_structure(b, false);
        self.push_structure(&s.name, st);
    }

    pub(super) fn push_structure(&mut self, name: &ast::Ident, st: Structure) {
        let id = StructId(self.prog.structures.len() as u32);
        self.prog.structures.push(st);
        self.declare(name, Component::Structure(id));
    }

    fn interpretation(&mut self, b: &mut Builder, i: &ast::Interpretation) {
        if let InterValue::Procedure(name) = &i.value {
            if let Some(target) = self.resolve_target(b, &i.symbol, &i.value) {
                let symbol = match target {
                    Target::Pred(p) => Symbol::Pred(p),
                    Target::Func(f) => Symbol::Func(f),
                    Target::Sort(_) => return,
                };
                let parts = name.parts.iter().map(|p| p.name.clone()).collect();
                b.procedures.push((symbol, parts));
            }
            return;
        }
        if matches!(i.value, InterValue::Generate) {
            return;
        }
        let Some(target) = self.resolve_target(b, &i.symbol, &i.value) else {
            return;
        };
        match target {
            Target::Sort(s) => self.sort_interpretation(b, s, i),
            Target::Pred(p) => {
                let arity = self.prog.pred(p).args.len();
                if let Some(tuples) = self.value_tuples(b, &i.value, arity, false, i.span) {
                    self.add_part(b, Symbol::Pred(p), i.truth, tuples, i.span);
                }
            }
            Target::Func(f) => {
                let arity = self.prog.func(f).args.len();
                if let Some(tuples) = self.value_tuples(b, &i.value, arity + 1, true, i.span) {
                    self.add_part(b, Symbol::Func(f), i.truth, tuples, i.span);
                }
            }
        }
    }

    fn sort_interpretation(&mut self, b: &mut Builder, s: SortId, i: &ast::Interpretation) {
        let sort = self.prog.sort(s);
        let name = sort.name.clone();
        if i.truth != Truth::TwoValued {
            return self.error(
                "invalid-interpretation",
                "Not allowed to assign a three-valued interpretation to a sort.",
                i.span,
            );
        }
        if sort.fixed.is_some() || sort.constructed || sort.builtin.is_some() {
            let msg = format!("Sort {name} is a type with a fixed interpretation.");
            return self.error("invalid-interpretation", msg, i.symbol.span);
        }
        if let Some(range) = huge_range(&i.value) {
            b.huge_sorts.insert(s, range);
        }
        let Some(mut values) = self.sort_values(b, &i.value, i.span) else {
            return;
        };
        values.sort();
        values.dedup();
        if b.given_sorts.insert(s, values).is_some() {
            let msg = format!("Sort {name} was already interpreted in this structure.");
            self.error("duplicate-interpretation", msg, i.symbol.span);
        }
    }

    fn add_part(
        &mut self,
        b: &mut Builder,
        sym: Symbol,
        truth: Truth,
        tuples: TupleSet,
        span: Span,
    ) {
        let tuples = self.disambiguate_constructors(sym, tuples);
        let kind = if matches!(sym, Symbol::Func(_)) {
            "Function"
        } else {
            "Predicate"
        };
        let name = self.prog.symbol_name(sym).to_string();
        let parts = b.parts.entry(sym).or_default();
        let utf = match truth {
            Truth::TwoValued => "tv",
            Truth::Ct => "ct",
            Truth::Cf => "cf",
            Truth::U => "u",
        };
        let slot = match truth {
            Truth::TwoValued => &parts.two,
            Truth::Ct => &parts.ct,
            Truth::Cf => &parts.cf,
            Truth::U => &parts.u,
        };
        let given = [&parts.two, &parts.ct, &parts.cf, &parts.u]
            .iter()
            .filter(|p| p.is_some())
            .count();
        if slot.is_some() {
            let msg = format!("{kind} {name} was already interpreted for the truth value {utf}.");
            return self.error("duplicate-interpretation", msg, span);
        }
        if given > 0 && (truth == Truth::TwoValued || parts.two.is_some() || given >= 2) {
            let how = if truth == Truth::TwoValued {
                "partially"
            } else {
                "fully"
            };
            let msg = format!("{kind} {name} was already {how} interpreted earlier by other truth values than {utf}.");
            let hint = format!("interpret {name} either with one table ({name} = ...) or with at most two of {name}<ct>, {name}<cf> and {name}<u>");
            return self.error_hint("invalid-interpretation", msg, span, Some(hint));
        }
        parts.span.get_or_insert(span);
        let slot = match truth {
            Truth::TwoValued => &mut parts.two,
            Truth::Ct => &mut parts.ct,
            Truth::Cf => &mut parts.cf,
            Truth::U => &mut parts.u,
        };
        *slot = Some(tuples);
    }

    /// A constant constructor whose name two constructed types share (IDP3 overloads them:
    /// `Insert::createfunction` in `src/insert.cpp` refuses only an identical function) is
    /// read as an element of the first type by its name; in a tuple of `sym` it is the one of
    /// the argument's type.
    fn disambiguate_constructors(&self, sym: Symbol, tuples: TupleSet) -> TupleSet {
        let sorts = self.prog.symbol_sorts(sym);
        let fits = |v: Value, s: SortId| match v.compound_parts() {
            Some(c) => {
                let f = self.prog.func(c.constructor);
                !(c.args.is_empty()
                    && f.constructor_of.is_some()
                    && !self.prog.is_subsort(f.result, s))
            }
            None => true,
        };
        let misplaced = tuples
            .iter()
            .any(|t| t.iter().zip(&sorts).any(|(&v, &s)| !fits(v, s)));
        if !misplaced {
            return tuples;
        }
        let other = |v: Value, s: SortId| -> Value {
            if fits(v, s) {
                return v;
            }
            let Some(c) = v.compound_parts() else {
                return v;
            };
            let name = &self.prog.func(c.constructor).name;
            self.prog
                .sort(s)
                .constructors
                .iter()
                .copied()
                .chain(self.prog.funcs.iter().enumerate().filter_map(|(k, g)| {
                    (g.constructor_of.is_some() && self.prog.is_subsort(g.result, s))
                        .then_some(FuncId(k as u32))
                }))
                .find(|&g| {
                    let g = self.prog.func(g);
                    g.args.is_empty() && &g.name == name
                })
                .map_or(v, |g| Value::compound(g, Vec::new()))
        };
        tuples
            .into_iter()
            .map(|t| t.iter().zip(&sorts).map(|(&v, &s)| other(v, s)).collect())
            .collect()
    }

    // -- which symbol an interpretation is for -------------------------------------------------

    /// The symbol that an interpretation `sym = value` is for, recorded in the index.
    fn resolve_target(
        &mut self,
        b: &Builder,
        sym: &ast::SymbolRef,
        value: &InterValue,
    ) -> Option<Target> {
        let target = self.pick_target(b, sym, value)?;
        let named = match target {
            Target::Sort(s) => index::Target::Sort(s),
            Target::Pred(p) => index::Target::Symbol(Symbol::Pred(p)),
            Target::Func(f) => index::Target::Symbol(Symbol::Func(f)),
        };
        let at = sym.name.parts.last().map_or(sym.span, |part| part.span);
        self.note(at, named, false);
        Some(target)
    }

    fn pick_target(
        &mut self,
        b: &Builder,
        sym: &ast::SymbolRef,
        value: &InterValue,
    ) -> Option<Target> {
        let all = self.lookup_entries(b.voc, &sym.name);
        let mut cands: Vec<Target> = all
            .iter()
            .filter(|&&e| self.in_vocabulary(b.voc, e))
            .filter_map(|&e| match e {
                Entry::Sort(s) => Some(Target::Sort(s)),
                Entry::Pred(p) => Some(Target::Pred(p)),
                Entry::Func(f) if self.prog.func(f).constructor_of.is_none() => {
                    Some(Target::Func(f))
                }
                Entry::Func(_) => None,
            })
            .collect();
        if cands.is_empty() {
            return self.no_target(b, sym, &all);
        }
        if let Some(ann) = &sym.sorts {
            let args: Vec<Option<SortId>> = ann
                .args
                .iter()
                .map(|p| self.lookup_sort(b.voc, p))
                .collect();
            let result = ann.result.as_ref().map(|p| self.lookup_sort(b.voc, p));
            if args.iter().any(Option::is_none) || matches!(result, Some(None)) {
                return None;
            }
            let args: Vec<SortId> = args.into_iter().flatten().collect();
            let result = result.flatten();
            cands.retain(|&t| match t {
                Target::Sort(s) => result.is_none() && args == [s],
                Target::Pred(p) => result.is_none() && self.prog.pred(p).args == args,
                Target::Func(f) => {
                    result == Some(self.prog.func(f).result) && self.prog.func(f).args == args
                }
            });
        }
        let shaped: Vec<Target> = cands
            .iter()
            .copied()
            .filter(|&t| self.fits_shape(t, value))
            .collect();
        let shaped = if shaped.is_empty() {
            cands.clone()
        } else {
            shaped
        };
        let sorts: Vec<Target> = shaped
            .iter()
            .copied()
            .filter(|t| matches!(t, Target::Sort(_)))
            .collect();
        match (shaped.as_slice(), sorts.as_slice()) {
            ([one], _) => Some(*one),
            (_, [one]) => Some(*one),
            ([], _) => {
                let msg = format!(
                    "Symbol {} is not declared in this scope.",
                    sym.name.to_path()
                );
                self.error("unknown-symbol", msg, sym.span);
                None
            }
            _ => {
                let msg = format!(
                    "Symbol {} is overloaded; its interpretation is ambiguous.",
                    sym.name.to_path()
                );
                let hint = format!(
                    "disambiguate with its sorts, as in {}[T1,T2] or {}[T1:T2]",
                    sym.name.name(),
                    sym.name.name()
                );
                self.error_hint("ambiguous-symbol", msg, sym.span, Some(hint));
                None
            }
        }
    }

    fn no_target(&mut self, b: &Builder, sym: &ast::SymbolRef, all: &[Entry]) -> Option<Target> {
        if all.iter().any(|&e| self.in_vocabulary(b.voc, e)) {
            let msg = format!(
                "{} is a constructor function: its interpretation is fixed and cannot change.",
                sym.name.to_path()
            );
            self.error("invalid-interpretation", msg, sym.span);
        } else if !all.is_empty() {
            let msg = format!(
                "Symbol {} is not in the vocabulary of Structure {}.",
                sym.name.to_path(),
                b.name
            );
            self.error("unknown-symbol", msg, sym.span);
        } else {
            let msg = format!(
                "Symbol {} is not declared in this scope.",
                sym.name.to_path()
            );
            let hint = self.near_miss(b.voc, sym.name.name(), |_| true);
            self.error_hint("unknown-symbol", msg, sym.span, hint);
        }
        None
    }

    /// Whether the written value has the shape of an interpretation of `t`.
    fn fits_shape(&self, t: Target, value: &InterValue) -> bool {
        let (width, mapping) = match value {
            InterValue::Bool(_) => {
                return matches!(t, Target::Pred(p) if self.prog.pred(p).args.is_empty())
            }
            InterValue::Element(_) => {
                return matches!(t, Target::Func(f) if self.prog.func(f).args.is_empty())
            }
            InterValue::Generate | InterValue::Procedure(_) => {
                return !matches!(t, Target::Sort(_))
            }
            InterValue::Table(entries) => match entries.first() {
                None => return true,
                Some(TableEntry::Element(_)) => (1, None),
                Some(TableEntry::Tuple(v, _)) => (v.len(), None),
                Some(TableEntry::Mapping { args, .. }) => (args.len() + 1, Some(args.len())),
            },
        };
        match t {
            Target::Sort(_) => width == 1 && mapping.is_none(),
            Target::Pred(p) => mapping.is_none() && self.prog.pred(p).args.len() == width,
            Target::Func(f) => self.prog.func(f).args.len() + 1 == width,
        }
    }

    // -- values to tuples ----------------------------------------------------------------------

    /// The tuples of an interpretation value, of width `width` (graph width for functions).
    fn value_tuples(
        &mut self,
        b: &Builder,
        value: &InterValue,
        width: usize,
        func: bool,
        span: Span,
    ) -> Option<TupleSet> {
        let mut out = TupleSet::default();
        match value {
            InterValue::Bool(v) => {
                if width != 0 {
                    let msg = format!("The arity of the symbol ({width}) is different from the arity of the table (0) assigned to it.");
                    self.error("arity-mismatch", msg, span);
                    return None;
                }
                if *v {
                    out.insert(Vec::new());
                }
            }
            InterValue::Element(e) => {
                if width != 1 {
                    let msg = format!("The arity of the symbol ({}) is different from the arity of the table (0) assigned to it.", width - usize::from(func));
                    self.error("arity-mismatch", msg, span);
                    return None;
                }
                out.extend(
                    self.element_values(b.voc, e, None)
                        .into_iter()
                        .map(|v| vec![v]),
                );
            }
            InterValue::Table(entries) => {
                for entry in entries {
                    let (elems, entry_span): (Vec<&ast::Element>, Span) = match entry {
                        TableEntry::Element(e) => (vec![e], e.span),
                        TableEntry::Tuple(v, s) => (v.iter().collect(), *s),
                        TableEntry::Mapping { args, value, span } => {
                            (args.iter().chain(std::iter::once(value)).collect(), *span)
                        }
                    };
                    if elems.len() != width {
                        let shown = if func { width - 1 } else { width };
                        let table = if func {
                            elems.len().saturating_sub(1)
                        } else {
                            elems.len()
                        };
                        let msg = format!("The arity of the symbol ({shown}) is different from the arity of the table ({table}) assigned to it.");
                        self.error("arity-mismatch", msg, entry_span);
                        return None;
                    }
                    for t in self.expand_tuple(b.voc, &elems) {
                        out.insert(t);
                    }
                }
            }
            InterValue::Generate | InterValue::Procedure(_) => return None,
        }
        Some(out)
    }

    /// The elements of a sort interpretation (kept flat: sorts can be large ranges).
    fn sort_values(&mut self, b: &Builder, value: &InterValue, span: Span) -> Option<Vec<Value>> {
        let InterValue::Table(entries) = value else {
            self.error(
                "arity-mismatch",
                "A sort must be interpreted by a set of elements `{ ... }`.",
                span,
            );
            return None;
        };
        let mut out = Vec::new();
        for entry in entries {
            match entry {
                TableEntry::Element(ast::Element {
                    kind: ast::ElementKind::IntRange(lo, hi),
                    ..
                }) if hi - lo >= super::elements::MAX_RANGE => {}
                TableEntry::Element(e) => out.extend(self.element_values(b.voc, e, None)),
                TableEntry::Tuple(v, _) if v.len() == 1 => {
                    out.extend(self.element_values(b.voc, &v[0], None))
                }
                TableEntry::Tuple(_, s) | TableEntry::Mapping { span: s, .. } => {
                    self.error(
                        "arity-mismatch",
                        "A sort must be interpreted by single elements, not tuples.",
                        *s,
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// All tuples a written tuple stands for (ranges expand to several).
    pub(super) fn expand_tuple(&mut self, voc: VocId, elems: &[&ast::Element]) -> Vec<Tuple> {
        let mut out: Vec<Tuple> = vec![Vec::new()];
        for e in elems {
            let vals = self.element_values(voc, e, None);
            if vals.is_empty() {
                return Vec::new();
            }
            out = out
                .into_iter()
                .flat_map(|t| vals.iter().map(move |v| [t.clone(), vec![*v]].concat()))
                .collect();
        }
        out
    }
}

impl Builder {
    pub(super) fn new(name: &ast::Ident, voc: VocId, span: Span) -> Builder {
        Builder {
            name: name.name.clone(),
            name_span: name.span,
            voc,
            given_sorts: IndexMap::new(),
            parts: IndexMap::new(),
            span,
            huge_sorts: IndexMap::new(),
            procedures: Vec::new(),
        }
    }
}

/// The largest range of a sort interpretation that is too large to enumerate, if any.
fn huge_range(v: &InterValue) -> Option<(i64, i64)> {
    let InterValue::Table(entries) = v else {
        return None;
    };
    entries
        .iter()
        .filter_map(|e| match e {
            TableEntry::Element(ast::Element {
                kind: ast::ElementKind::IntRange(a, b),
                ..
            }) if b - a >= super::elements::MAX_RANGE => Some((*a, *b)),
            _ => None,
        })
        .max_by_key(|(a, b)| b - a)
}

pub(super) type Domains = HashMap<SortId, SortDom>;

/// A sort's domain while a structure closes: the (sorted) given elements plus added ones.
#[derive(Clone, Debug, Default)]
pub(super) struct SortDom {
    pub given: Vec<Value>,
    /// Autocompleted elements, unordered (hashing is much faster than ordering names; the
    /// order is made in `values`).
    pub added: rustc_hash::FxHashSet<Value>,
    /// `Some((lo, hi))` when `given` is exactly the integers `lo..=hi` (computed once).
    pub int_range: std::cell::OnceCell<Option<(i64, i64)>>,
}

impl SortDom {
    pub fn contains(&self, v: &Value) -> bool {
        self.in_given(v) || self.added_contains(v)
    }
    /// Binary search with the integer comparison inlined (domains of millions of integers).
    fn in_given(&self, v: &Value) -> bool {
        let range = self.int_range.get_or_init(|| {
            let ints: Option<Vec<i64>> = self.given.iter().map(|g| g.as_int()).collect();
            let ints = ints?;
            let (&lo, &hi) = (ints.first()?, ints.last()?);
            let contiguous = ints.windows(2).all(|w| w[1] == w[0] + 1);
            contiguous.then_some((lo, hi))
        });
        if let (Some((lo, hi)), Value::Int(i)) = (range, v) {
            return (*lo..=*hi).contains(i);
        }
        self.given
            .binary_search_by(|g| match (g, v) {
                (Value::Int(a), Value::Int(b)) => a.cmp(b),
                _ => g.cmp(v),
            })
            .is_ok()
    }
    /// Values compare equal across `Int` and `Float` (1 = 1.0) but hash differently.
    fn added_contains(&self, v: &Value) -> bool {
        self.added.contains(v)
            || match *v {
                Value::Int(i) => self.added.contains(&Value::Float(i as f64)),
                Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    self.added.contains(&Value::Int(f as i64))
                }
                _ => false,
            }
    }
    pub fn insert(&mut self, v: Value) {
        if !self.in_given(&v) && !self.added_contains(&v) {
            self.added.insert(v);
        }
    }
    /// All elements, sorted.
    pub fn values(&self) -> Vec<Value> {
        let mut out: Vec<Value> = self
            .given
            .iter()
            .chain(self.added.iter())
            .copied()
            .collect();
        if !self.added.is_empty() {
            out.sort();
        }
        out
    }
}
