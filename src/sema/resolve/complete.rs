//! Closing a structure (IDP3's `closestructure`): autocompleting sorts from the elements at
//! their positions and from subsorts, checking membership in sorts the user gave, building
//! the (two- or three-valued) tables, and checking that functions are functions and total.

use std::collections::{HashMap, HashSet};

use super::structure::{Builder, Domains, Parts, SortDom};
use super::Resolver;
use crate::diagnostics::Diagnostic;
use crate::ids::{FuncId, SortId, Symbol};
use crate::sema::domains::{builtin_contains, list_domain, product, sort_domain, MAX_ENUMERATION};
use crate::structure::{Structure, Table, Tuple, TupleSet, Value};

impl Resolver<'_> {
    pub(super) fn finish_structure(&mut self, mut b: Builder, closed_world: bool) -> Structure {
        self.diags.push(Diagnostic::warning(
            "autocomplete",
            format!("Verifying and/or autocompleting structure {}", b.name),
            Some(b.name_span),
        ));
        let mut st = Structure::new(b.name.clone(), b.voc);
        let huge = b.huge_sorts.clone();
        let sorts: Vec<SortId> = self
            .prog
            .voc(b.voc)
            .sorts
            .iter()
            .copied()
            .filter(|&s| self.prog.sort(s).builtin.is_none() && !huge.contains_key(&s))
            .collect();
        let (mut dom, user) = self.initial_domains(&b, &sorts);
        self.autocomplete_from_symbols(&b, &mut dom, &user);
        self.propagate_subsorts(&b.name, &sorts, &mut dom, &user);
        let lazy = self.lazily_constructed(&b, &sorts);
        for &s in &sorts {
            if let Some(constructors) = lazy.get(&s) {
                st.construct_lazily(s, constructors.clone());
            } else if let Some(d) = self.sort_domain(s, &dom) {
                if d.is_empty() && !self.prog.sort(s).constructed {
                    let msg = format!(
                        "Sort {} in structure {} has an empty interpretation.",
                        self.prog.sort(s).name,
                        b.name
                    );
                    self.diags
                        .push(Diagnostic::warning("empty-sort", msg, Some(b.name_span)));
                }
                st.set_domain(s, d);
            }
        }
        let parts = std::mem::take(&mut b.parts);
        let given: HashSet<Symbol> = parts.keys().copied().collect();
        for (sym, p) in parts {
            let at = p.span;
            if let Some(span) = at {
                st.spans.insert(sym, span);
            }
            if let Some(table) = self.make_table(&st, &b.name, sym, p, closed_world) {
                self.function_check(&st, &b.name, sym, &table, at);
                st.symbols.insert(sym, table);
            }
        }
        st.procedures = std::mem::take(&mut b.procedures);
        self.functions_without_values(&st, &b, &given);
        for (&s, &(lo, hi)) in &huge {
            let extra = b.given_sorts.get(&s).cloned().unwrap_or_default();
            st.huge_ranges
                .insert(s, crate::structure::HugeRange { lo, hi, extra });
        }
        if closed_world {
            for &p in &self.prog.voc(b.voc).preds {
                st.symbols
                    .entry(Symbol::Pred(p))
                    .or_insert_with(|| Table::TwoValued(TupleSet::default()));
            }
        }
        st
    }

    /// The constructed types whose elements the structure lists only when asked for, with
    /// their constructors' argument types: those the structure does not list itself, with a
    /// constructor that takes arguments, whose argument types are all user types and that do
    /// not contain themselves.
    fn lazily_constructed(
        &self,
        b: &Builder,
        sorts: &[SortId],
    ) -> HashMap<SortId, Vec<(FuncId, Vec<SortId>)>> {
        let mut lazy = HashMap::new();
        for &s in sorts {
            let sort = self.prog.sort(s);
            if !sort.constructed || sort.fixed.is_some() || b.given_sorts.contains_key(&s) {
                continue;
            }
            let constructors: Vec<(FuncId, Vec<SortId>)> = sort
                .constructors
                .iter()
                .map(|&c| (c, self.prog.func(c).args.clone()))
                .collect();
            let args = || constructors.iter().flat_map(|(_, a)| a.iter().copied());
            let user_args = args().all(|a| self.prog.sort(a).builtin.is_none());
            if user_args && args().next().is_some() {
                lazy.insert(s, constructors);
            }
        }
        let recursive: Vec<SortId> = lazy
            .keys()
            .copied()
            .filter(|&s| reaches_itself(s, &lazy))
            .collect();
        for s in recursive {
            lazy.remove(&s);
        }
        lazy
    }

    /// Given and vocabulary-fixed sorts, and the set of sorts that may not be extended.
    fn initial_domains(&self, b: &Builder, sorts: &[SortId]) -> (Domains, HashSet<SortId>) {
        let mut dom: Domains = HashMap::new();
        let mut user = HashSet::new();
        for &s in sorts {
            let sort = self.prog.sort(s);
            if let Some(g) = b.given_sorts.get(&s) {
                dom.insert(
                    s,
                    SortDom {
                        given: g.clone(),
                        ..Default::default()
                    },
                );
                user.insert(s);
            } else if let Some(f) = &sort.fixed {
                dom.insert(
                    s,
                    SortDom {
                        given: f.clone(),
                        ..Default::default()
                    },
                );
                user.insert(s);
            } else {
                dom.insert(s, SortDom::default());
                if sort.constructed {
                    user.insert(s);
                }
            }
        }
        (dom, user)
    }

    fn autocomplete_from_symbols(
        &mut self,
        b: &Builder,
        dom: &mut Domains,
        user: &HashSet<SortId>,
    ) {
        for (&sym, parts) in &b.parts {
            let sorts = self.prog.symbol_sorts(sym);
            let mut reported: HashSet<(usize, Value)> = HashSet::new();
            for tuples in [&parts.two, &parts.ct, &parts.cf, &parts.u]
                .into_iter()
                .flatten()
            {
                for t in tuples {
                    for (k, (&v, &s)) in t.iter().zip(&sorts).enumerate() {
                        if !self.add_element(dom, user, s, v) && reported.insert((k, v)) {
                            self.element_not_in_sort(b, sym, v, s, parts.span);
                        }
                    }
                }
            }
        }
    }

    fn element_not_in_sort(
        &mut self,
        b: &Builder,
        sym: Symbol,
        v: Value,
        s: SortId,
        span: Option<Span>,
    ) {
        let kind = if matches!(sym, Symbol::Func(_)) {
            "function"
        } else {
            "predicate"
        };
        let msg = format!(
            "In structure {}, element {} occurs in the interpretation of {kind} {} but does not belong to the interpretation of sort {}.",
            b.name,
            v,
            self.prog.symbol_name(sym),
            self.prog.sort(s).name
        );
        self.diags.push(Diagnostic::error(
            "element-not-in-sort",
            msg,
            span.or(Some(b.span)),
        ));
    }

    /// Adds `v` to sort `s` unless `s` is fixed or given, in which case `v` must belong to it.
    fn add_element(&self, dom: &mut Domains, user: &HashSet<SortId>, s: SortId, v: Value) -> bool {
        if let Some(c) = v.compound_parts() {
            let args = self.prog.func(c.constructor).args.clone();
            if !args
                .iter()
                .zip(&c.args)
                .all(|(&a, &x)| self.add_element(dom, user, a, x))
            {
                return false;
            }
        }
        let sort = self.prog.sort(s);
        if let Some(b) = sort.builtin {
            return builtin_contains(b, v);
        }
        if !dom.contains_key(&s) {
            return true;
        }
        if sort.constructed {
            return self.in_constructed(s, v);
        }
        if user.contains(&s) {
            return dom.get(&s).is_some_and(|d| d.contains(&v));
        }
        dom.entry(s).or_default().insert(v);
        true
    }

    fn in_constructed(&self, s: SortId, v: Value) -> bool {
        v.compound_parts()
            .is_some_and(|c| self.prog.sort(s).constructors.contains(&c.constructor))
    }

    /// Adds the elements of subsorts to supersorts (deepest sorts first); a supersort that is
    /// given or fixed must already contain them.
    fn propagate_subsorts(
        &mut self,
        name: &str,
        sorts: &[SortId],
        dom: &mut Domains,
        user: &HashSet<SortId>,
    ) {
        let mut order: Vec<(usize, SortId)> = sorts.iter().map(|&s| (self.depth(s), s)).collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, s) in order {
            let elems: Vec<Value> = dom.get(&s).map(|d| d.values()).unwrap_or_default();
            for p in self.prog.sort(s).parents.clone() {
                let parent = self.prog.sort(p);
                let check = parent.builtin.is_some() || user.contains(&p);
                if !check {
                    let d = dom.entry(p).or_default();
                    elems.iter().for_each(|&v| d.insert(v));
                    continue;
                }
                let bad = elems.iter().find(|&&v| match parent.builtin {
                    Some(b) => !builtin_contains(b, v),
                    None if parent.constructed => !self.in_constructed(p, v),
                    None => !dom.get(&p).is_some_and(|d| d.contains(&v)),
                });
                if let Some(v) = bad {
                    let msg = format!(
                        "In structure {name}, element {v} occurs in the domain of sort {} but does not belong to the interpretation of sort {}.",
                        self.prog.sort(s).name,
                        self.prog.sort(p).name
                    );
                    self.diags.push(Diagnostic::error(
                        "element-not-in-sort",
                        msg,
                        self.prog.sort(s).span,
                    ));
                }
            }
        }
    }

    fn depth(&self, s: SortId) -> usize {
        let mut d = 0;
        let mut layer = vec![s];
        while !layer.is_empty() && d < 64 {
            layer = layer
                .iter()
                .flat_map(|&x| self.prog.sort(x).parents.clone())
                .collect();
            d += 1;
        }
        d
    }

    /// The finite domain a structure being closed gives a sort: its own elements, or for a
    /// constructed sort the constructor images ([`crate::sema::domains::list_domain`]).
    fn sort_domain(&self, s: SortId, dom: &Domains) -> Option<Vec<Value>> {
        let listed = |x: SortId| {
            let sort = self.prog.sort(x);
            if sort.constructed && sort.fixed.is_none() {
                None
            } else {
                dom.get(&x).map(|d| d.values())
            }
        };
        list_domain(&self.prog, s, &listed)
    }

    // -- tables --------------------------------------------------------------------------------

    fn make_table(
        &mut self,
        st: &Structure,
        name: &str,
        sym: Symbol,
        p: Parts,
        closed_world: bool,
    ) -> Option<Table> {
        let sname = self.prog.symbol_name(sym).to_string();
        let span = p.span;
        let table = match (p.two, p.ct, p.cf, p.u) {
            (Some(two), ..) => Table::TwoValued(two),
            (None, Some(ct), Some(cf), _) => Table::ThreeValued { ct, cf },
            (None, Some(ct), None, Some(u)) => {
                let cf = self.complement(st, name, sym, span, &[&ct, &u])?;
                Table::ThreeValued { ct, cf }
            }
            (None, None, Some(cf), Some(u)) => {
                let ct = self.complement(st, name, sym, span, &[&cf, &u])?;
                Table::ThreeValued { ct, cf }
            }
            (None, Some(ct), None, None) => Table::ThreeValued {
                ct,
                cf: TupleSet::default(),
            },
            (None, None, Some(cf), None) => Table::ThreeValued {
                ct: TupleSet::default(),
                cf,
            },
            (None, None, None, Some(_)) => {
                let msg = format!("Only specified unknown truthvalue for symbol {sname}.");
                self.diags
                    .push(Diagnostic::error("invalid-interpretation", msg, span));
                return None;
            }
            (None, None, None, None) => return None,
        };
        Some(match table {
            Table::ThreeValued { ct, .. } if closed_world => Table::TwoValued(ct),
            t => t,
        })
    }

    /// All tuples of the symbol's universe not in any of `sets`.
    fn complement(
        &mut self,
        st: &Structure,
        name: &str,
        sym: Symbol,
        at: Option<Span>,
        sets: &[&TupleSet],
    ) -> Option<TupleSet> {
        let Some(universe) = self.universe(st, &self.prog.symbol_sorts(sym)) else {
            let msg = format!(
                "In structure {name}, the <u> part of {} cannot be completed over an infinite or very large domain; it is ignored.",
                self.prog.symbol_name(sym)
            );
            self.diags
                .push(Diagnostic::warning("infinite-domain", msg, at));
            return Some(TupleSet::default());
        };
        Some(
            universe
                .into_iter()
                .filter(|t| !sets.iter().any(|s| s.contains(t)))
                .collect(),
        )
    }

    /// The product of the domains of some sorts, if all are finite and it is not too large.
    pub(super) fn universe(&self, st: &Structure, sorts: &[SortId]) -> Option<Vec<Tuple>> {
        let domains = sorts
            .iter()
            .map(|&s| sort_domain(&self.prog, st, s))
            .collect::<Option<Vec<_>>>()?;
        product(&domains, MAX_ENUMERATION)
    }

    /// IDP3's `functionCheck`: one image per argument tuple, and total unless `partial`.
    /// Reported at the interpretation `at` when there is one, else at the declaration.
    fn function_check(
        &mut self,
        st: &Structure,
        name: &str,
        sym: Symbol,
        table: &Table,
        at: Option<Span>,
    ) {
        let Symbol::Func(f) = sym else { return };
        let mut func = self.prog.func(f).clone();
        func.span = at.or(func.span);
        let n = func.args.len();
        let mut images: HashMap<&[Value], usize> = HashMap::new();
        for t in table.ct() {
            *images.entry(&t[..n]).or_default() += 1;
        }
        let mut multi: Vec<&&[Value]> = images
            .iter()
            .filter(|(_, &c)| c > 1)
            .map(|(k, _)| k)
            .collect();
        multi.sort();
        if let Some(args) = multi.first() {
            let shown: Vec<String> = args.iter().map(|v| v.to_string()).collect();
            let msg = format!(
                "Tuple ({}) has more than one image in the interpretation of function {} in structure {name}.",
                shown.join(","),
                func.name
            );
            self.diags
                .push(Diagnostic::error("not-a-function", msg, func.span));
            return;
        }
        if func.partial {
            return;
        }
        let Some(inputs) = self.universe(st, &func.args) else {
            return;
        };
        let (missing, three_valued) = match table {
            Table::TwoValued(_) => (
                inputs
                    .iter()
                    .filter(|i| !images.contains_key(i.as_slice()))
                    .collect(),
                false,
            ),
            Table::ThreeValued { cf, .. } => (
                self.inputs_without_image(st, &inputs, cf, func.result),
                true,
            ),
        };
        if !missing.is_empty() {
            let msg = format!(
                "The interpretation of function {} in structure {name} is non-total.",
                func.name
            );
            let no_values = st.domain(func.result).is_some_and(|d| d.is_empty());
            let hint = if no_values {
                self.empty_result_hint(&func, name)
            } else {
                self.non_total_hint(&func, &missing, three_valued)
            };
            self.diags
                .push(Diagnostic::error("function-not-total", msg, func.span).with_hint(hint));
        }
    }

    /// Total functions the structure leaves open whose result type has no elements while
    /// their arguments have some: they can have no value, and IDP3 rejects the structure
    /// (`Structure::functionCheck`, run on every function when a structure is closed).
    fn functions_without_values(&mut self, st: &Structure, b: &Builder, given: &HashSet<Symbol>) {
        let by_procedure: HashSet<Symbol> = st.procedures.iter().map(|(s, _)| *s).collect();
        for &f in &self.prog.voc(b.voc).funcs {
            let sym = Symbol::Func(f);
            let func = self.prog.func(f);
            if func.partial
                || func.constructor_of.is_some()
                || given.contains(&sym)
                || by_procedure.contains(&sym)
                || st.domain(func.result).is_none_or(|d| !d.is_empty())
                || !func
                    .args
                    .iter()
                    .all(|&a| st.domain(a).is_some_and(|d| !d.is_empty()))
            {
                continue;
            }
            let msg = format!(
                "The interpretation of function {} in structure {} is non-total.",
                func.name, b.name
            );
            let hint = self.empty_result_hint(func, &b.name);
            self.diags.push(
                Diagnostic::error("function-not-total", msg, Some(b.name_span)).with_hint(hint),
            );
        }
    }

    /// Why a total function into a type without elements can have no value, and the ways out.
    fn empty_result_hint(&self, func: &crate::sema::program::Function, structure: &str) -> String {
        let (f, result) = (&func.name, &self.prog.sort(func.result).name);
        format!(
            "type {result} has no elements in structure {structure}, so {f} can have no value; give {result} elements, or declare `{}` in the vocabulary",
            self.partial_declaration(func)
        )
    }

    /// The declaration that makes `func` partial: `partial c : T`, `partial f(A,B) : T`.
    fn partial_declaration(&self, func: &crate::sema::program::Function) -> String {
        let (f, result) = (&func.name, &self.prog.sort(func.result).name);
        let args: Vec<&str> = func
            .args
            .iter()
            .map(|&a| self.prog.sort(a).name.as_str())
            .collect();
        match args.as_slice() {
            [] => format!("partial {f} : {result}"),
            _ => format!("partial {f}({}) : {result}", args.join(",")),
        }
    }

    /// Which arguments a function table misses, and the ways to leave them open: a `<ct>`
    /// table (model expansion finds the rest) or a `partial` declaration.
    fn non_total_hint(
        &self,
        func: &crate::sema::program::Function,
        missing: &[&Tuple],
        three_valued: bool,
    ) -> String {
        const SHOWN: usize = 4;
        let shown: Vec<String> = missing.iter().take(SHOWN).map(|t| show_args(t)).collect();
        let mut which = shown.join(", ");
        if missing.len() > SHOWN {
            which = format!("{which} and {} more", missing.len() - SHOWN);
        }
        let f = &func.name;
        let decl = self.partial_declaration(func);
        if three_valued {
            return format!(
                "{f} can have no value for {which}: its <cf> part rules out every value; take one out of <cf>, or declare `{decl}` in the vocabulary"
            );
        }
        let give = if missing.len() == 1 {
            "give it one"
        } else {
            "give each one"
        };
        format!(
            "{f} has no value for {which}; {give}, write `{f}<ct> = {{ ... }}` to let model expansion find the missing values, or declare `{decl}` in the vocabulary if {f} may have none"
        )
    }

    /// The arguments for which the `<cf>` part of a function's table rules out every value.
    fn inputs_without_image<'t>(
        &self,
        st: &Structure,
        inputs: &'t [Tuple],
        cf: &TupleSet,
        result: SortId,
    ) -> Vec<&'t Tuple> {
        let Some(values) = st
            .domain(result)
            .map(|d| d.to_vec())
            .or_else(|| self.prog.sort(result).fixed.clone())
        else {
            return Vec::new();
        };
        let mut impossible: HashMap<&[Value], usize> = HashMap::new();
        for t in cf {
            if let Some((_, args)) = t.split_last() {
                *impossible.entry(args).or_default() += 1;
            }
        }
        inputs
            .iter()
            .filter(|i| impossible.get(i.as_slice()).copied().unwrap_or(0) >= values.len())
            .collect()
    }
}

/// Arguments as a student writes them: `3`, `(1,2)`.
fn show_args(t: &Tuple) -> String {
    let shown: Vec<String> = t.iter().map(|v| v.to_string()).collect();
    match shown.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", shown.join(",")),
    }
}

use crate::source::Span;

/// Whether constructed type `s` is among the argument types of its constructors, directly or
/// through other types of `lazy`.
fn reaches_itself(s: SortId, lazy: &HashMap<SortId, Vec<(FuncId, Vec<SortId>)>>) -> bool {
    let mut stack = vec![s];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        for &a in lazy
            .get(&x)
            .into_iter()
            .flatten()
            .flat_map(|(_, args)| args)
        {
            if a == s {
                return true;
            }
            if seen.insert(a) {
                stack.push(a);
            }
        }
    }
    false
}
