//! Semantic analysis entry point: turns a parsed [`ast::File`] into a typed [`Program`].
//!
//! Resolution runs item by item in source order (IDP3 requires names to be declared before
//! use). Each concern lives in its own file: `builtins` (the std vocabulary), `namespaces`
//! (components, `using`, qualified names), `vocabulary` and `ltc` (declarations and the LTC
//! projections), `theory` (formulas, terms, variables and rules into a pre-typed form),
//! `sorts` (sort derivation, overload resolution and sort checking), `lower` (the pre-typed
//! form into `ir`), `blocks` (term, query and procedure blocks), `elements`, `structure` and
//! `factlist` (structures). Errors never stop resolution: every error is reported and what
//! could be built is returned.

mod blocks;
mod builtins;
mod complete;
mod coverage;
mod display;
mod elements;
mod factlist;
mod lower;
mod ltc;
mod namespaces;
mod pre;
mod sorts;
mod structure;
mod theory;
mod vocabulary;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;

use indexmap::IndexMap;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::ids::{FuncId, NamespaceId, PredId, SortId, Symbol, VocId};
use crate::sema::index::{Index, Target, VarNote};
use crate::sema::program::Program;
use crate::source::{SourceMap, Span};
use crate::syntax::ast;

/// Resolves a whole file. Never panics; every error goes to `diags`.
pub fn resolve(file: &ast::File, diags: &mut Diagnostics) -> Program {
    resolve_with_sources(file, None, diags)
}

/// Like [`resolve`], but with the source map so that messages can quote earlier positions
/// (`... is already declared in this scope, namely at f:l:c.`) and procedures know their file.
pub fn resolve_with_sources(
    file: &ast::File,
    sources: Option<&SourceMap>,
    diags: &mut Diagnostics,
) -> Program {
    let mut r = Resolver::new(diags, sources);
    r.items(&file.items);
    r.warn_element_variables();
    r.warn_defined_and_given();
    r.warn_partly_defined_functions();
    r.prog.sources = sources.map(|s| crate::sema::program::Sources(std::rc::Rc::new(s.clone())));
    r.prog
}

/// [`resolve_with_sources`], and where each name occurs ([`Index`]: what the language server
/// reads).
pub fn resolve_indexed(
    file: &ast::File,
    sources: Option<&SourceMap>,
    diags: &mut Diagnostics,
) -> (Program, Index) {
    let mut r = Resolver::new(diags, sources);
    r.index = Some(RefCell::new(Index::default()));
    r.items(&file.items);
    r.warn_element_variables();
    r.warn_defined_and_given();
    r.warn_partly_defined_functions();
    r.prog.sources = sources.map(|s| crate::sema::program::Sources(std::rc::Rc::new(s.clone())));
    let index = r.index.take().map(RefCell::into_inner).unwrap_or_default();
    (r.prog, index)
}

/// Resolves `file` on top of a program resolved before (IDP3's `parse` while procedures run):
/// its blocks are added to `prog`, their names resolve against what `prog` declares, and a
/// component declared again is an error as in one file. `sources` must hold the files of both.
pub fn resolve_more(
    prog: Program,
    file: &ast::File,
    sources: Option<&SourceMap>,
    diags: &mut Diagnostics,
) -> Program {
    let mut r = Resolver::continuing(prog, diags, sources);
    r.items(&file.items);
    r.prog.sources = sources.map(|s| crate::sema::program::Sources(std::rc::Rc::new(s.clone())));
    r.prog
}

/// A name in a vocabulary's symbol table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Entry {
    Sort(SortId),
    Pred(PredId),
    Func(FuncId),
}

/// One level of name scope: a namespace plus the `using` declarations made inside it.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub ns: NamespaceId,
    pub using_ns: Vec<NamespaceId>,
    pub using_voc: Vec<VocId>,
}

pub(crate) struct Resolver<'a> {
    pub prog: Program,
    pub diags: &'a mut Diagnostics,
    pub sources: Option<&'a SourceMap>,
    pub scopes: Vec<Scope>,
    /// Per vocabulary: name -> sorts, predicates and functions with that name.
    pub voc_names: Vec<IndexMap<String, Vec<Entry>>>,
    /// Declaration position of each component: (namespace, kind word, name) -> span (none for
    /// components of a program resolved before whose position is not kept).
    pub decl_spans: HashMap<(NamespaceId, &'static str, String), Option<Span>>,
    /// Variables that a sentence or rule uses without quantifying them (name, derived sort,
    /// where): checked against the structures' elements once all are known.
    pub implicit_vars: Vec<(std::rc::Rc<str>, SortId, Span)>,
    /// The span of each `free-variable` warning and the spans of its variables: a warning
    /// whose variables all name elements of a structure gives way to `element-variable`'s.
    pub free_variable_warnings: Vec<(Span, Vec<Span>)>,
    /// Where names occur, when asked for ([`resolve_indexed`]); lowering records into it
    /// through a shared reference.
    pub index: Option<RefCell<Index>>,
}

impl<'a> Resolver<'a> {
    fn new(diags: &'a mut Diagnostics, sources: Option<&'a SourceMap>) -> Resolver<'a> {
        let mut r = Resolver {
            prog: Program::default(),
            diags,
            sources,
            scopes: Vec::new(),
            voc_names: Vec::new(),
            decl_spans: HashMap::new(),
            implicit_vars: Vec::new(),
            free_variable_warnings: Vec::new(),
            index: None,
        };
        r.init_global_namespace();
        r.init_builtins();
        r
    }

    /// A resolver that goes on where the resolution of `prog` ended: the symbol tables of its
    /// vocabularies and the names of its components are rebuilt from it.
    fn continuing(
        prog: Program,
        diags: &'a mut Diagnostics,
        sources: Option<&'a SourceMap>,
    ) -> Resolver<'a> {
        let mut voc_names = Vec::with_capacity(prog.vocabularies.len());
        for voc in &prog.vocabularies {
            let mut names: IndexMap<String, Vec<Entry>> = IndexMap::new();
            let sorts = voc
                .sorts
                .iter()
                .map(|&s| (&prog.sort(s).name, Entry::Sort(s)));
            let preds = voc
                .preds
                .iter()
                .map(|&p| (&prog.pred(p).name, Entry::Pred(p)));
            let funcs = voc
                .funcs
                .iter()
                .map(|&f| (&prog.func(f).name, Entry::Func(f)));
            for (name, e) in sorts.chain(preds).chain(funcs) {
                let list = names.entry(name.clone()).or_default();
                if !list.contains(&e) {
                    list.push(e);
                }
            }
            voc_names.push(names);
        }
        let mut decl_spans = HashMap::new();
        for (k, ns) in prog.namespaces.iter().enumerate() {
            for (name, &c) in &ns.members {
                let key = (
                    NamespaceId(k as u32),
                    namespaces::component_word(c),
                    name.clone(),
                );
                decl_spans.insert(key, namespaces::component_span(&prog, c));
            }
        }
        Resolver {
            prog,
            diags,
            sources,
            scopes: vec![Scope {
                ns: NamespaceId(0),
                using_ns: Vec::new(),
                using_voc: Vec::new(),
            }],
            voc_names,
            decl_spans,
            implicit_vars: Vec::new(),
            free_variable_warnings: Vec::new(),
            index: None,
        }
    }

    fn items(&mut self, items: &[ast::Item]) {
        for item in items {
            self.item(item);
        }
    }

    fn item(&mut self, item: &ast::Item) {
        match item {
            ast::Item::Namespace(n) => self.namespace(n),
            ast::Item::Vocabulary(v) => self.vocabulary(v),
            ast::Item::Theory(t) => self.theory(t),
            ast::Item::Structure(s) => self.structure(s),
            ast::Item::Factlist(f) => self.factlist(f),
            ast::Item::Procedure(p) => self.procedure(p),
            ast::Item::Query(q) => self.query(q),
            ast::Item::Term(t) => self.term_block(t),
            ast::Item::Using(u) => self.using(u),
            ast::Item::Display(d) => self.display(d),
        }
    }

    fn namespace(&mut self, n: &ast::Namespace) {
        let id = self.open_namespace(&n.name);
        self.scopes.push(Scope {
            ns: id,
            using_ns: Vec::new(),
            using_voc: Vec::new(),
        });
        self.items(&n.items);
        self.scopes.pop();
    }

    /// A variable that nobody quantified, spelled like an element of one of the structures
    /// (`Col(a) = red.`): a student meant the element, and the sentence now speaks of every
    /// value. Says so, and how to name an element in a theory.
    fn warn_element_variables(&mut self) {
        let mut warned = std::collections::HashSet::new();
        for (name, sort, span) in std::mem::take(&mut self.implicit_vars) {
            let holder = self.prog.structures.iter().find(|st| {
                !st.is_constructed_lazily(sort)
                    && st.domain(sort).is_some_and(|d| {
                        d.iter()
                            .any(|v| v.string_text().is_some_and(|t| *t == *name))
                    })
            });
            let Some(st) = holder else { continue };
            if !warned.insert((name.clone(), span)) {
                continue;
            }
            let sort_name = self.prog.sort(sort).name.clone();
            let message = format!(
                "{name} is a variable here (it stands for every {sort_name}), but structure {} \
                 has an element {name} of {sort_name}.",
                st.name
            );
            let hint = format!(
                "to mean the element, declare a constant ({} : {sort_name} in the vocabulary, \
                 {} = {name} in the structure) or make {sort_name} a constructed type (type \
                 {sort_name} constructed from {{{name}, ...}}); to mean every value, quantify it: \
                 ! {name}[{sort_name}] : ...",
                capitalised(&name),
                capitalised(&name)
            );
            self.diags
                .push(Diagnostic::warning("element-variable", message, Some(span)).with_hint(hint));
        }
        // A sentence whose free variables are all such elements needs no second warning.
        let covered: Vec<Span> = warned.iter().map(|(_, span)| *span).collect();
        let superseded: Vec<Span> = std::mem::take(&mut self.free_variable_warnings)
            .into_iter()
            .filter(|(_, vars)| vars.iter().all(|v| covered.contains(v)))
            .map(|(at, _)| at)
            .collect();
        self.diags.items.retain(|d| {
            d.code != "free-variable"
                || d.is_error()
                || !d.span.is_some_and(|s| superseded.contains(&s))
        });
    }

    /// A symbol that a definition defines and a structure over the same vocabulary also
    /// interprets: the definition decides its value, and any difference means no model.
    fn warn_defined_and_given(&mut self) {
        let mut found = Vec::new();
        for theory in &self.prog.theories {
            for d in &theory.definitions {
                for s in d.defined() {
                    for st in &self.prog.structures {
                        if st.vocabulary != theory.vocabulary {
                            continue;
                        }
                        if let Some(&at) = st.spans.get(&s) {
                            found.push((s, st.name.clone(), at, d.span));
                        }
                    }
                }
            }
        }
        for (s, structure, at, definition) in found {
            let name = self.prog.symbol_name(s).to_string();
            let message = format!(
                "{name} is defined by the definition at {}, and structure {structure} gives its \
                 value too: the definition decides it, so where the two differ there is no model.",
                self.position(definition)
            );
            let hint = format!(
                "leave {name} out of the structure (models show its defined value), or keep it \
                 only to check the definition against it"
            );
            self.diags
                .push(Diagnostic::warning("defined-and-given", message, Some(at)).with_hint(hint));
        }
    }

    // -- the index of names (only when asked for) ---------------------------------------------

    /// Records that the name at `span` denotes `target` (a type's predicate as the type).
    pub fn note(&self, span: Span, target: Target, declaration: bool) {
        let Some(index) = &self.index else { return };
        let target = match target {
            Target::Symbol(Symbol::Pred(p)) => match self.prog.pred(p).type_of {
                Some(sort) => Target::Sort(sort),
                None => target,
            },
            other => other,
        };
        index.borrow_mut().note(span, target, declaration);
    }

    /// Records a variable's declaration and the type it was given.
    pub fn note_var(&self, var: VarNote) {
        if let Some(index) = &self.index {
            index.borrow_mut().note_var(var);
        }
    }

    // -- diagnostics helpers ------------------------------------------------------------------

    pub fn error(&mut self, code: &'static str, msg: impl Into<String>, span: Span) {
        self.diags.error(code, msg, span);
    }

    pub fn error_hint(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Span,
        hint: Option<String>,
    ) {
        let mut d = Diagnostic::error(code, msg, Some(span));
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        self.diags.push(d);
    }

    /// Whether `span` is in an FO(·) (IDP-Z3) file.
    pub(super) fn in_fodot(&self, span: Span) -> bool {
        self.sources.is_some_and(|s| s.is_fodot(span.file))
    }

    /// An integer beyond 32 bits: IDP3's bound, said with a hint in an FO(·) file (IDP-Z3's
    /// integers are unbounded).
    pub fn number_out_of_range(&mut self, i: i64, span: Span) {
        let hint = self.in_fodot(span).then(|| {
            "idp's integers have 32 bits, as IDP3's do (IDP-Z3's have no bound): scale the \
             numbers down (thousands instead of units), or write them as reals (`5000000000.0` \
             in a `Real` function)"
                .to_string()
        });
        self.error_hint(
            "number-out-of-range",
            format!("Numeric value {i} is out of integer bounds."),
            span,
            hint,
        );
    }

    pub fn warning(&mut self, code: &'static str, msg: impl Into<String>, span: Span) {
        self.diags.warning(code, msg, span);
    }

    /// A warning with a hint.
    pub fn warning_hint(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Span,
        hint: String,
    ) {
        self.diags
            .push(Diagnostic::warning(code, msg, Some(span)).with_hint(hint));
    }

    /// `file:line:col` of a span when the source map is known, else a byte offset.
    pub fn position(&self, span: Span) -> String {
        match self.sources {
            Some(s) => {
                let (l, c) = s.line_col(span.file, span.start);
                format!("{}:{}:{}", s.name(span.file), l, c)
            }
            None => format!("offset {}", span.start),
        }
    }

    pub fn file_name(&self, span: Span) -> String {
        self.sources
            .map(|s| s.name(span.file).to_string())
            .unwrap_or_default()
    }
}

/// The candidate among `names` nearest to `name` by edit distance, if close enough to be a
/// plausible typo.
pub(crate) fn nearest_name<'n>(
    name: &str,
    names: impl IntoIterator<Item = &'n str>,
) -> Option<String> {
    let len = name.chars().count();
    // Typos are looked for in names of a reasonable length only: the distance is quadratic.
    if len > 64 {
        return None;
    }
    let limit = (len / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for cand in names {
        if cand == name || cand.chars().count().abs_diff(len) > limit {
            continue;
        }
        let d = edit_distance(name, cand);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// Edit distance counting a swap of two adjacent characters as one edit (`Egde` → `Edge`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let same = |x: char, y: char| x.eq_ignore_ascii_case(&y);
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(!same(ca, cb));
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && same(ca, b[j - 1]) && same(a[i - 1], cb) {
                cur[j + 1] = cur[j + 1].min(before[j - 1] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// `a` as `A`: a name for a constant that stands for element `a`.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
