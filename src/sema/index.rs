//! Where each name of a program occurs: every declaration and every use of a type, predicate,
//! function, component (vocabulary, theory, structure, ...) and variable, with the span of the
//! name as written and what the resolver decided it denotes (an overloaded name after its
//! types picked one). Recorded by the resolver only when asked ([`crate::sema::resolve_indexed`]);
//! the language server answers hover, go to definition, references and rename from it.

use crate::ids::{SortId, Symbol};
use crate::sema::program::Component;
use crate::source::Span;

/// What a name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Sort(SortId),
    /// A predicate or function (a type's own predicate `T(x)` is recorded as the type).
    Symbol(Symbol),
    Component(Component),
    /// A variable, known by the span of its declaration (its quantifier, or its first use for
    /// a variable that nothing quantifies).
    Var {
        declared: Span,
    },
}

/// One occurrence of a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The name itself (for `V::P`, only `P`).
    pub span: Span,
    pub target: Target,
    /// Whether it declares the name (a vocabulary's line, a block's header, a quantifier).
    pub declaration: bool,
}

/// A variable of a sentence, rule, query or term: its name, the type the resolver gave it,
/// and whether the type was written (`x[Node]`, `x in Node`) or derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarNote {
    pub declared: Span,
    pub name: String,
    pub sort: Option<SortId>,
    pub typed: bool,
}

/// All occurrences and variables of a resolved program.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub occurrences: Vec<Occurrence>,
    pub vars: Vec<VarNote>,
}

impl Index {
    /// Records an occurrence, once.
    pub fn note(&mut self, span: Span, target: Target, declaration: bool) {
        let occurrence = Occurrence {
            span,
            target,
            declaration,
        };
        if !self
            .occurrences
            .iter()
            .rev()
            .take(8)
            .any(|o| o.span == span && o.target == target)
        {
            self.occurrences.push(occurrence);
        }
    }

    /// Records a variable's declaration (once per declaration).
    pub fn note_var(&mut self, var: VarNote) {
        if !self
            .vars
            .iter()
            .rev()
            .take(16)
            .any(|v| v.declared == var.declared)
        {
            self.note(
                var.declared,
                Target::Var {
                    declared: var.declared,
                },
                true,
            );
            self.vars.push(var);
        }
    }

    /// The occurrence whose name covers byte `offset` of file `file` (its end included, so a
    /// cursor just after a name finds it).
    pub fn at(&self, file: u32, offset: u32) -> Option<&Occurrence> {
        self.occurrences
            .iter()
            .filter(|o| o.span.file == file && o.span.start <= offset && offset <= o.span.end)
            .min_by_key(|o| o.span.end - o.span.start)
    }

    /// Every occurrence of `target`, in source order.
    pub fn occurrences_of(&self, target: Target) -> Vec<Occurrence> {
        let mut out: Vec<Occurrence> = self
            .occurrences
            .iter()
            .filter(|o| o.target == target)
            .copied()
            .collect();
        out.sort_by_key(|o| (o.span.file, o.span.start));
        out.dedup_by_key(|o| o.span);
        out
    }

    /// Where `target` is declared (the first declaring occurrence).
    pub fn declaration_of(&self, target: Target) -> Option<Span> {
        self.occurrences
            .iter()
            .find(|o| o.target == target && o.declaration)
            .map(|o| o.span)
    }

    /// The variable declared at `declared`.
    pub fn var(&self, declared: Span) -> Option<&VarNote> {
        self.vars.iter().find(|v| v.declared == declared)
    }
}
