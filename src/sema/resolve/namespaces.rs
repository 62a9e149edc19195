//! Namespaces and component names: the global namespace `idpglobal`, nested namespaces,
//! `using namespace` / `using vocabulary`, qualified names `N::V`, duplicate detection and
//! lookup of vocabularies and other components by pointer.

use super::{nearest_name, Resolver, Scope};
use crate::ids::{NamespaceId, VocId};
use crate::sema::index::Target;
use crate::sema::program::{Component, Namespace, Program};
use crate::source::Span;
use crate::syntax::ast;
use crate::syntax::ast::{Ident, Pointer};

impl Resolver<'_> {
    pub(super) fn init_global_namespace(&mut self) {
        self.prog.namespaces.push(Namespace {
            name: "idpglobal".into(),
            parent: None,
            ..Default::default()
        });
        self.scopes.push(Scope {
            ns: NamespaceId(0),
            using_ns: Vec::new(),
            using_voc: Vec::new(),
        });
    }

    pub(super) fn cur_ns(&self) -> NamespaceId {
        self.scopes.last().map(|s| s.ns).unwrap_or(NamespaceId(0))
    }

    /// The path of the current namespace below `idpglobal` (empty for the global one).
    pub(super) fn ns_path(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut ns = self.cur_ns();
        while let Some(parent) = self.prog.namespaces[ns.index()].parent {
            out.push(self.prog.namespaces[ns.index()].name.clone());
            ns = parent;
        }
        out.reverse();
        out
    }

    /// Opens `namespace N`; re-opening an existing namespace adds to it.
    pub(super) fn open_namespace(&mut self, name: &Ident) -> NamespaceId {
        let cur = self.cur_ns();
        if let Some(Component::Namespace(id)) =
            self.prog.namespaces[cur.index()].members.get(&name.name)
        {
            return *id;
        }
        let id = NamespaceId(self.prog.namespaces.len() as u32);
        self.prog.namespaces.push(Namespace {
            name: name.name.clone(),
            parent: Some(cur),
            ..Default::default()
        });
        self.declare(name, Component::Namespace(id));
        id
    }

    /// Registers a component in the current namespace, reporting a duplicate of the same kind.
    pub(super) fn declare(&mut self, name: &Ident, c: Component) {
        let ns = self.cur_ns();
        let kind = component_word(c);
        let key = (ns, kind, name.name.clone());
        if let Some(prev) = self.decl_spans.get(&key).copied() {
            let msg = match prev {
                Some(at) => format!(
                    "{kind} {} is already declared in this scope, namely at {}.",
                    name.name,
                    self.position(at)
                ),
                None => format!("{kind} {} is already declared in this scope.", name.name),
            };
            self.error("duplicate-name", msg, name.span);
            return;
        }
        self.decl_spans.insert(key, Some(name.span));
        self.note(name.span, Target::Component(c), true);
        self.prog.namespaces[ns.index()]
            .members
            .insert(name.name.clone(), c);
    }

    /// Registers a generated component (e.g. `V_ss`) without a source position of its own.
    pub(super) fn declare_generated(&mut self, name: &str, c: Component, span: Span) {
        let ns = self.cur_ns();
        let key = (ns, component_word(c), name.to_string());
        if self.decl_spans.contains_key(&key) {
            let msg = format!(
                "{} {name} is already declared in this scope.",
                component_word(c)
            );
            self.error("duplicate-name", msg, span);
            return;
        }
        self.decl_spans.insert(key, Some(span));
        self.prog.namespaces[ns.index()]
            .members
            .insert(name.to_string(), c);
    }

    pub(super) fn using(&mut self, u: &ast::Using) {
        match u.kind {
            ast::UsingKind::Namespace => {
                if let Some(ns) = self.lookup_namespace(&u.target) {
                    if let Some(s) = self.scopes.last_mut() {
                        s.using_ns.push(ns);
                    }
                }
            }
            ast::UsingKind::Vocabulary => {
                if let Some(v) = self.lookup_vocabulary(&u.target) {
                    if let Some(s) = self.scopes.last_mut() {
                        s.using_voc.push(v);
                    }
                }
            }
        }
    }

    /// Finds a component by simple name in the scopes, innermost first.
    fn find_simple(&self, name: &str, want: impl Fn(Component) -> bool) -> Option<Component> {
        for scope in self.scopes.iter().rev() {
            let spaces = std::iter::once(scope.ns).chain(scope.using_ns.iter().copied());
            for ns in spaces {
                if let Some(&c) = self.prog.namespaces[ns.index()].members.get(name) {
                    if want(c) {
                        return Some(c);
                    }
                }
            }
        }
        None
    }

    /// Finds a component by (possibly qualified) path without reporting anything.
    pub(super) fn find_component(
        &self,
        parts: &[Ident],
        want: impl Fn(Component) -> bool,
    ) -> Option<Component> {
        let (last, prefix) = parts.split_last()?;
        if prefix.is_empty() {
            return self.find_simple(&last.name, want);
        }
        let mut ns =
            match self.find_simple(&prefix[0].name, |c| matches!(c, Component::Namespace(_)))? {
                Component::Namespace(n) => n,
                _ => return None,
            };
        for part in &prefix[1..] {
            match self.prog.namespaces[ns.index()].members.get(&part.name)? {
                Component::Namespace(n) => ns = *n,
                _ => return None,
            }
        }
        let c = *self.prog.namespaces[ns.index()].members.get(&last.name)?;
        want(c).then_some(c)
    }

    pub(super) fn lookup_namespace(&mut self, p: &Pointer) -> Option<NamespaceId> {
        match self.find_component(&p.parts, |c| matches!(c, Component::Namespace(_))) {
            Some(Component::Namespace(n)) => Some(n),
            _ => {
                self.report_undeclared("unknown-namespace", "Namespace", p);
                None
            }
        }
    }

    /// Resolves a vocabulary pointer, reporting `unknown-vocabulary` if it does not exist.
    pub(super) fn lookup_vocabulary(&mut self, p: &Pointer) -> Option<VocId> {
        match self.find_vocabulary(p) {
            Some(v) => {
                let at = p.parts.last().map_or(p.span, |part| part.span);
                self.note(at, Target::Component(Component::Vocabulary(v)), false);
                Some(v)
            }
            None => {
                self.report_undeclared("unknown-vocabulary", "Vocabulary", p);
                None
            }
        }
    }

    pub(super) fn find_vocabulary(&self, p: &Pointer) -> Option<VocId> {
        match self.find_component(&p.parts, |c| matches!(c, Component::Vocabulary(_))) {
            Some(Component::Vocabulary(v)) => Some(v),
            _ => None,
        }
    }

    fn report_undeclared(&mut self, code: &'static str, kind: &str, p: &Pointer) {
        let msg = format!("{kind} {} is not declared in this scope.", p.to_path());
        let names: Vec<String> = self.visible_component_names();
        let hint = nearest_name(p.name(), names.iter().map(|s| s.as_str()))
            .map(|n| format!("did you mean `{n}`?"));
        self.error_hint(code, msg, p.span, hint);
    }

    fn visible_component_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for scope in &self.scopes {
            for ns in std::iter::once(scope.ns).chain(scope.using_ns.iter().copied()) {
                out.extend(self.prog.namespaces[ns.index()].members.keys().cloned());
            }
        }
        out
    }

    /// Runs `f` inside a block scope (theory, structure, vocabulary) so its `using`s end with it.
    pub(super) fn in_block<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let ns = self.cur_ns();
        self.scopes.push(Scope {
            ns,
            using_ns: Vec::new(),
            using_voc: Vec::new(),
        });
        let out = f(self);
        self.scopes.pop();
        out
    }

    /// Vocabularies made visible by `using vocabulary` in the active scopes.
    pub(super) fn using_vocabularies(&self) -> Vec<VocId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.using_voc.iter().copied())
            .collect()
    }
}

/// Where a component of a resolved program was declared, when the program keeps it.
pub(super) fn component_span(prog: &Program, c: Component) -> Option<Span> {
    match c {
        Component::Vocabulary(id) => prog.voc(id).span,
        Component::Theory(id) => prog.theory(id).span,
        Component::Term(id) => prog.terms[id.index()].span,
        Component::Query(id) => prog.queries[id.index()].span,
        Component::Structure(_) | Component::Procedure(_) | Component::Namespace(_) => None,
    }
}

pub(super) fn component_word(c: Component) -> &'static str {
    match c {
        Component::Vocabulary(_) => "Vocabulary",
        Component::Theory(_) => "Theory",
        Component::Structure(_) => "Structure",
        Component::Term(_) => "Term",
        Component::Query(_) => "Query",
        Component::Procedure(_) => "Procedure",
        Component::Namespace(_) => "Namespace",
    }
}
