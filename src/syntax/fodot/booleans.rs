//! `Bool` (`𝔹`) as a type of arguments and variables (`p: 𝔹 → 𝔹`, `var x in Bool`,
//! `!b in 𝔹: ...`): IDP3 has no such sort, so a vocabulary that uses it gets a constructed type
//! `Bool := {true, false}` (in IDP-Z3's order), declared by the reader (an empty span: not
//! printed). A Boolean variable standing as a formula is `x = true`; a formula standing as an
//! argument (`p(f(x))` with `f` a predicate) is `if f(x) then true else false`, which the
//! lowering lifts out of the atom as any if-then-else.

use super::expr::{Expr, Spanned};
use super::Reader;
use crate::source::Span;
use crate::syntax::ast::{Constructor, Decl, Ident, TypeBody, TypeDecl};

/// IDP3's name of the Booleans as a type.
pub(super) const BOOL: &str = "Bool";

impl Reader {
    /// The declaration of `Bool := {true, false}` for vocabulary `voc`, when it uses the
    /// Booleans as a type and imports no vocabulary that already declares them.
    pub(super) fn bool_decl(&self, voc: &str, span: Span) -> Option<Decl> {
        if !self.names.bool_vocabularies.iter().any(|v| v == voc) {
            return None;
        }
        let at = Span::new(span.file, span.start as usize..span.start as usize);
        let ident = |name: &str| Ident {
            name: name.to_string(),
            span: at,
        };
        let constructors = ["true", "false"]
            .iter()
            .map(|c| Constructor {
                name: ident(c),
                args: Vec::new(),
                span: at,
            })
            .collect();
        Some(Decl::Type(TypeDecl {
            name: ident(BOOL),
            isa: Vec::new(),
            contains: Vec::new(),
            body: TypeBody::Constructed(constructors),
            span: at,
        }))
    }

    /// Notes that vocabulary `voc` uses the Booleans as a type (unless it imports one that
    /// does).
    pub(super) fn note_bool_vocabulary(&mut self, voc: &str, imports: &[String]) {
        let names = &mut self.names;
        let inherited = imports.iter().any(|i| names.bool_vocabularies.contains(i));
        if !inherited && !names.bool_vocabularies.iter().any(|v| v == voc) {
            names.bool_vocabularies.push(voc.to_string());
        }
    }

    /// Whether `name` is a variable over the Booleans (`var x in Bool`, `!x in 𝔹`).
    pub(super) fn is_bool_variable(&self, name: &str) -> bool {
        self.names.bool_vars.contains(name) && !self.names.is_predicate(name)
    }

    /// `e` with each formula standing as an argument of an application made
    /// `if φ then true else false` (its arguments' own arguments first).
    pub(super) fn boolean_arguments(&self, e: &Spanned) -> Spanned {
        let expr = match &e.expr {
            Expr::App {
                name,
                args: Some(args),
            } => Expr::App {
                name: name.clone(),
                args: Some(args.iter().map(|a| self.as_value(a)).collect()),
            },
            Expr::Compare { terms, ops } => Expr::Compare {
                terms: terms.iter().map(|t| self.boolean_arguments(t)).collect(),
                ops: ops.clone(),
            },
            other => other.clone(),
        };
        Spanned { expr, span: e.span }
    }

    /// An argument: a formula becomes `if φ then true else false`.
    fn as_value(&self, a: &Spanned) -> Spanned {
        let a = self.boolean_arguments(a);
        let literal = matches!(&a.expr, Expr::App { name, args: None }
            if name.name == "true" || name.name == "false" || self.is_bool_variable(&name.name));
        if literal || !self.is_boolean(&a) {
            return a;
        }
        let constant = |value: &str| {
            Box::new(Spanned {
                expr: Expr::App {
                    name: Ident {
                        name: value.to_string(),
                        span: a.span,
                    },
                    args: None,
                },
                span: a.span,
            })
        };
        Spanned {
            expr: Expr::Ite {
                cond: Box::new(a.clone()),
                then: constant("true"),
                other: constant("false"),
            },
            span: a.span,
        }
    }
}
