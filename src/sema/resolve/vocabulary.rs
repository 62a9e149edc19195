//! Vocabularies: type declarations (isa/contains, enumerated, constructed), predicates,
//! functions (partial, overloaded), `extern vocabulary`, `extern` single symbols, and the
//! per-vocabulary name tables that theories and structures resolve names against.

use indexmap::IndexMap;

use super::{nearest_name, Entry, Resolver};
use crate::ids::{FuncId, PredId, SortId, Symbol, VocId};
use crate::sema::index::Target;
use crate::sema::program::{Component, Function, Predicate, Sort, Vocabulary};
use crate::source::Span;
use crate::structure::{register_constructor_name, Value};
use crate::syntax::ast;
use crate::syntax::ast::Pointer;

impl Resolver<'_> {
    pub(super) fn vocabulary(&mut self, v: &ast::Vocabulary) {
        let id = self.new_vocabulary(&v.name.name, Some(v.span));
        self.declare(&v.name, Component::Vocabulary(id));
        self.in_block(|r| {
            for d in &v.decls {
                r.decl(id, d);
            }
        });
        self.ltc_vocabulary(id, v);
    }

    pub(super) fn new_vocabulary(&mut self, name: &str, span: Option<Span>) -> VocId {
        let id = VocId(self.prog.vocabularies.len() as u32);
        let namespace = self.ns_path();
        self.prog.vocabularies.push(Vocabulary {
            name: name.to_string(),
            namespace,
            span,
            ..Default::default()
        });
        self.voc_names.push(IndexMap::new());
        id
    }

    fn decl(&mut self, voc: VocId, d: &ast::Decl) {
        match d {
            ast::Decl::Type(t) => self.type_decl(voc, t),
            ast::Decl::Predicate(p) => self.pred_decl(voc, p),
            ast::Decl::Function(f) => self.func_decl(voc, f),
            ast::Decl::ExternVocabulary(p) => {
                if let Some(w) = self.lookup_vocabulary(p) {
                    self.extern_vocabulary(voc, w);
                }
            }
            ast::Decl::ExternSymbol(e) => self.extern_symbol(voc, e),
            ast::Decl::Using(u) => self.using(u),
        }
    }

    pub(super) fn extern_vocabulary(&mut self, voc: VocId, w: VocId) {
        let src = self.prog.vocabularies[w.index()].clone();
        for s in src.sorts {
            self.add_sort(voc, s);
        }
        for p in src.preds {
            self.add_pred(voc, p);
        }
        for f in src.funcs {
            self.add_func(voc, f);
        }
    }

    // -- adding symbols to a vocabulary ------------------------------------------------------

    fn add_entry(&mut self, voc: VocId, name: &str, e: Entry) {
        let list = self.voc_names[voc.index()]
            .entry(name.to_string())
            .or_default();
        if !list.contains(&e) {
            list.push(e);
        }
    }

    /// Adds a sort (and its non-builtin ancestors) to a vocabulary.
    pub(super) fn add_sort(&mut self, voc: VocId, s: SortId) {
        for a in self.prog.ancestors(s) {
            if self.prog.sort(a).builtin.is_some()
                || self.prog.vocabularies[voc.index()].sorts.contains(&a)
            {
                continue;
            }
            self.prog.vocabularies[voc.index()].sorts.insert(a);
            let name = self.prog.sort(a).name.clone();
            self.add_entry(voc, &name, Entry::Sort(a));
            for f in self.prog.sort(a).constructors.clone() {
                self.add_func(voc, f);
            }
        }
    }

    pub(super) fn add_pred(&mut self, voc: VocId, p: PredId) {
        if let Some(s) = self.prog.pred(p).type_of {
            return self.add_sort(voc, s);
        }
        for s in self.prog.pred(p).args.clone() {
            self.add_sort(voc, s);
        }
        if self.prog.vocabularies[voc.index()].preds.insert(p) {
            let name = self.prog.pred(p).name.clone();
            self.add_entry(voc, &name, Entry::Pred(p));
        }
    }

    pub(super) fn add_func(&mut self, voc: VocId, f: FuncId) {
        if self.prog.vocabularies[voc.index()].funcs.contains(&f) {
            return;
        }
        self.prog.vocabularies[voc.index()].funcs.insert(f);
        let name = self.prog.func(f).name.clone();
        self.add_entry(voc, &name, Entry::Func(f));
        for s in self.prog.symbol_sorts(Symbol::Func(f)) {
            self.add_sort(voc, s);
        }
    }

    pub(super) fn new_pred(&mut self, name: &str, args: Vec<SortId>, span: Option<Span>) -> PredId {
        let id = PredId(self.prog.preds.len() as u32);
        self.prog.preds.push(Predicate {
            name: name.to_string(),
            args,
            type_of: None,
            span,
        });
        id
    }

    pub(super) fn new_func(
        &mut self,
        name: &str,
        args: Vec<SortId>,
        result: SortId,
        partial: bool,
        span: Option<Span>,
    ) -> FuncId {
        let id = FuncId(self.prog.funcs.len() as u32);
        self.prog.funcs.push(Function {
            name: name.to_string(),
            args,
            result,
            partial,
            constructor_of: None,
            span,
        });
        id
    }

    fn new_sort(&mut self, name: &str, span: Span) -> SortId {
        let id = SortId(self.prog.sorts.len() as u32);
        let pred = PredId(self.prog.preds.len() as u32);
        self.prog.preds.push(Predicate {
            name: name.to_string(),
            args: vec![id],
            type_of: Some(id),
            span: Some(span),
        });
        self.prog.sorts.push(Sort {
            name: name.to_string(),
            parents: Vec::new(),
            builtin: None,
            fixed: None,
            constructors: Vec::new(),
            constructed: false,
            pred,
            span: Some(span),
        });
        id
    }

    // -- declarations ------------------------------------------------------------------------

    fn type_decl(&mut self, voc: VocId, t: &ast::TypeDecl) {
        if let Some(prev) = self
            .own_entries(voc, &t.name.name)
            .into_iter()
            .find_map(|e| match e {
                Entry::Sort(s) => Some(s),
                _ => None,
            })
        {
            let at = self
                .prog
                .sort(prev)
                .span
                .map(|s| self.position(s))
                .unwrap_or_default();
            let msg = format!(
                "Sort {} is already declared in this scope, namely at {at}.",
                t.name.name
            );
            return self.error("duplicate-name", msg, t.name.span);
        }
        let id = self.new_sort(&t.name.name, t.name.span);
        self.note(t.name.span, Target::Sort(id), true);
        self.prog.vocabularies[voc.index()].sorts.insert(id);
        self.add_entry(voc, &t.name.name, Entry::Sort(id));
        for p in &t.isa {
            if let Some(parent) = self.lookup_sort(voc, p) {
                self.add_parent(id, parent, p.span);
            }
        }
        for c in &t.contains {
            if let Some(child) = self.lookup_sort(voc, c) {
                self.add_parent(child, id, c.span);
            }
        }
        match &t.body {
            ast::TypeBody::Open => {}
            ast::TypeBody::Enumerated(elems) => {
                let mut values: Vec<Value> = elems
                    .iter()
                    .flat_map(|e| self.element_values(voc, e, None))
                    .collect();
                values.sort();
                values.dedup();
                self.prog.sorts[id.index()].fixed = Some(values);
            }
            ast::TypeBody::Constructed(cons) => self.constructed_type(voc, id, cons),
        }
    }

    /// Makes `parent` a direct supertype of `child`, refusing cycles.
    fn add_parent(&mut self, child: SortId, parent: SortId, span: Span) {
        if self.prog.is_subsort(parent, child) {
            let msg = format!(
                "Cycle introduced between sort {} and sort {}.",
                self.prog.sort(child).name,
                self.prog.sort(parent).name
            );
            return self.error("sort-cycle", msg, span);
        }
        if !self.prog.sorts[child.index()].parents.contains(&parent) {
            self.prog.sorts[child.index()].parents.push(parent);
        }
    }

    fn constructed_type(&mut self, voc: VocId, id: SortId, cons: &[ast::Constructor]) {
        self.prog.sorts[id.index()].constructed = true;
        for c in cons {
            let args: Vec<SortId> = c
                .args
                .iter()
                .filter_map(|a| self.lookup_sort(voc, a))
                .collect();
            if args.len() != c.args.len() {
                continue;
            }
            if self
                .own_entries(voc, &c.name.name)
                .iter()
                .any(|e| matches!(e, Entry::Func(f) if self.prog.func(*f).args == args && self.prog.func(*f).result == id))
            {
                let msg = format!(
                    "Function {} is already declared in this scope.",
                    c.name.name
                );
                self.error("duplicate-name", msg, c.name.span);
                continue;
            }
            let f = self.new_func(&c.name.name, args, id, false, Some(c.span));
            self.note(c.name.span, Target::Symbol(Symbol::Func(f)), true);
            self.prog.funcs[f.index()].constructor_of = Some(id);
            register_constructor_name(f, &c.name.name);
            self.prog.sorts[id.index()].constructors.push(f);
            self.add_func(voc, f);
        }
        let all_nullary = self
            .prog
            .sort(id)
            .constructors
            .iter()
            .all(|&f| self.prog.func(f).args.is_empty());
        if all_nullary {
            let mut values: Vec<Value> = self
                .prog
                .sort(id)
                .constructors
                .iter()
                .map(|&f| Value::compound(f, Vec::new()))
                .collect();
            values.sort();
            self.prog.sorts[id.index()].fixed = Some(values);
        }
    }

    fn pred_decl(&mut self, voc: VocId, p: &ast::PredDecl) {
        let args: Vec<SortId> = p
            .args
            .iter()
            .filter_map(|a| self.lookup_sort(voc, a))
            .collect();
        if args.len() != p.args.len() {
            return;
        }
        let dup = self
            .own_entries(voc, &p.name.name)
            .into_iter()
            .find_map(|e| match e {
                Entry::Pred(q) if self.prog.pred(q).args == args => self.prog.pred(q).span,
                _ => None,
            });
        if let Some(prev) = dup {
            let msg = format!(
                "Predicate {} is already declared in this scope, namely at {}.",
                p.name.name,
                self.position(prev)
            );
            return self.error("duplicate-name", msg, p.name.span);
        }
        let id = self.new_pred(&p.name.name, args, Some(p.name.span));
        self.note(p.name.span, Target::Symbol(Symbol::Pred(id)), true);
        self.add_pred(voc, id);
    }

    fn func_decl(&mut self, voc: VocId, f: &ast::FuncDecl) {
        let args: Vec<SortId> = f
            .args
            .iter()
            .filter_map(|a| self.lookup_sort(voc, a))
            .collect();
        let result = self.lookup_sort(voc, &f.result);
        let (Some(result), true) = (result, args.len() == f.args.len()) else {
            return;
        };
        let dup = self
            .own_entries(voc, &f.name.name)
            .into_iter()
            .find_map(|e| match e {
                Entry::Func(g)
                    if self.prog.func(g).args == args && self.prog.func(g).result == result =>
                {
                    self.prog.func(g).span
                }
                _ => None,
            });
        if let Some(prev) = dup {
            let msg = format!(
                "Function {} is already declared in this scope, namely at {}.",
                f.name.name,
                self.position(prev)
            );
            return self.error("duplicate-name", msg, f.name.span);
        }
        let id = self.new_func(&f.name.name, args, result, f.partial, Some(f.name.span));
        self.note(f.name.span, Target::Symbol(Symbol::Func(id)), true);
        self.add_func(voc, id);
    }

    fn extern_symbol(&mut self, voc: VocId, e: &ast::ExternSymbol) {
        match e {
            ast::ExternSymbol::Type(p) => {
                if let Some(s) = self.lookup_sort(voc, p) {
                    self.add_sort(voc, s);
                }
            }
            ast::ExternSymbol::Sorted { name, sorts, .. } => {
                let args: Vec<Option<SortId>> = sorts
                    .args
                    .iter()
                    .map(|a| self.lookup_sort(voc, a))
                    .collect();
                let result = sorts.result.as_ref().map(|r| self.lookup_sort(voc, r));
                if args.iter().any(Option::is_none) || matches!(result, Some(None)) {
                    return;
                }
                let args: Vec<SortId> = args.into_iter().flatten().collect();
                let result = result.flatten();
                let found =
                    self.lookup_entries(voc, name)
                        .into_iter()
                        .find(|e| match (*e, result) {
                            (Entry::Pred(p), None) => self.prog.pred(p).args == args,
                            (Entry::Sort(s), None) => args == [s],
                            (Entry::Func(f), Some(r)) => {
                                self.prog.func(f).args == args && self.prog.func(f).result == r
                            }
                            _ => false,
                        });
                self.add_extern_found(voc, found, name);
            }
            ast::ExternSymbol::Arity {
                name,
                arity,
                function,
                ..
            } => {
                let n = *arity as usize;
                let found =
                    self.lookup_entries(voc, name)
                        .into_iter()
                        .find(|e| match (*e, function) {
                            (Entry::Pred(p), false) => self.prog.pred(p).args.len() == n,
                            (Entry::Sort(_), false) => n == 1,
                            (Entry::Func(f), true) => self.prog.func(f).args.len() == n,
                            _ => false,
                        });
                self.add_extern_found(voc, found, name);
            }
        }
    }

    fn add_extern_found(&mut self, voc: VocId, found: Option<Entry>, name: &Pointer) {
        match found {
            Some(Entry::Sort(s)) => self.add_sort(voc, s),
            Some(Entry::Pred(p)) => self.add_pred(voc, p),
            Some(Entry::Func(f)) => self.add_func(voc, f),
            None => {
                let msg = format!("Symbol {} is not declared in this scope.", name.to_path());
                self.error("unknown-symbol", msg, name.span);
            }
        }
    }

    // -- lookups -----------------------------------------------------------------------------

    /// Entries declared (or imported) in the vocabulary itself under `name`.
    pub(super) fn own_entries(&self, voc: VocId, name: &str) -> Vec<Entry> {
        self.voc_names
            .get(voc.index())
            .and_then(|t| t.get(name))
            .cloned()
            .unwrap_or_default()
    }

    /// All entries a pointer can denote from inside `voc`: a qualified `V::x` looks in `V`, a
    /// simple name in `voc`, then in `using vocabulary` ones, then in the std vocabulary.
    pub(super) fn lookup_entries(&self, voc: VocId, p: &Pointer) -> Vec<Entry> {
        if !p.is_simple() {
            let prefix = Pointer {
                parts: p.parts[..p.parts.len() - 1].to_vec(),
                span: p.span,
            };
            return match self.find_vocabulary(&prefix) {
                Some(v) => self.own_entries(v, p.name()),
                None => Vec::new(),
            };
        }
        let own = self.own_entries(voc, p.name());
        if !own.is_empty() {
            return own;
        }
        for u in self.using_vocabularies() {
            let e = self.own_entries(u, p.name());
            if !e.is_empty() {
                return e;
            }
        }
        self.own_entries(self.prog.std_vocabulary, p.name())
    }

    /// Resolves a sort pointer, reporting `unknown-sort` (with a near-miss hint).
    pub(super) fn lookup_sort(&mut self, voc: VocId, p: &Pointer) -> Option<SortId> {
        let found = self
            .lookup_entries(voc, p)
            .into_iter()
            .find_map(|e| match e {
                Entry::Sort(s) => Some(s),
                _ => None,
            });
        if let Some(s) = found {
            let at = p.parts.last().map_or(p.span, |part| part.span);
            self.note(at, Target::Sort(s), false);
        }
        if found.is_none() {
            let msg = format!("Sort {} is not declared in this scope.", p.to_path());
            let hint = self.near_miss(voc, p.name(), |e| matches!(e, Entry::Sort(_)));
            self.error_hint("unknown-sort", msg, p.span, hint);
        }
        found
    }

    /// A `did you mean` hint among the names of `voc` (and std) with entries matching `want`.
    pub(super) fn near_miss(
        &self,
        voc: VocId,
        name: &str,
        want: impl Fn(&Entry) -> bool,
    ) -> Option<String> {
        let mut names: Vec<&str> = Vec::new();
        for v in [voc, self.prog.std_vocabulary] {
            if let Some(t) = self.voc_names.get(v.index()) {
                names.extend(
                    t.iter()
                        .filter(|(_, es)| es.iter().any(&want))
                        .map(|(n, _)| n.as_str()),
                );
            }
        }
        nearest_name(name, names).map(|n| format!("did you mean `{n}`?"))
    }

    /// Whether an entry belongs to `voc` (or to the std vocabulary).
    pub(super) fn in_vocabulary(&self, voc: VocId, e: Entry) -> bool {
        let v = &self.prog.vocabularies[voc.index()];
        match e {
            Entry::Sort(s) => v.sorts.contains(&s) || self.prog.sort(s).builtin.is_some(),
            Entry::Pred(p) => v.preds.contains(&p),
            Entry::Func(f) => v.funcs.contains(&f),
        }
    }
}
