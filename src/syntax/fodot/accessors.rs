//! IDP-Z3's built-in symbols of a type `constructed from {red, rgb(R: Byte, G: Byte)}`: a tester
//! `is_rgb` for each constructor and an accessor `R` for each named argument. They are declared
//! in the vocabulary (the accessor partial: it has no value on other constructors) and defined
//! in each theory over it (`{ !x1 in Byte, x2 in Byte: is_rgb(rgb(x1, x2)). }`,
//! `{ !x1 in Byte, x2 in Byte: R(rgb(x1, x2)) = x1. }`).
//!
//! What the reader adds has an empty span at the constructor: models and `--dump program`
//! leave such symbols and definitions out, as IDP-Z3 does. Only constructors whose arguments
//! are listed types get them (others make the type infinite, which idp does not ground).

use pest::iterators::Pair;
use pest::Parser;

use super::expr::pointer;
use super::{FodotGrammar, Reader, Rule};
use crate::source::Span;
use crate::syntax::ast::{Decl, FuncDecl, Ident, PredDecl, TheoryComponent};

/// One constructor of a constructed type, with its arguments' types and accessors' names.
#[derive(Clone, Debug)]
pub(crate) struct Built {
    vocabulary: String,
    sort: String,
    constructor: String,
    args: Vec<String>,
    accessors: Vec<Option<String>>,
    /// An empty span at the constructor.
    at: Span,
}

impl Reader {
    /// Notes the constructors of `constructed from {..}` in vocabulary `voc`, and their
    /// testers and accessors as predicates and functions.
    pub(super) fn collect_constructors(&mut self, voc: &str, sort: &str, listing: Pair<Rule>) {
        for c in listing
            .into_inner()
            .filter(|p| p.as_rule() == Rule::constructor)
        {
            let start = c.as_span().start();
            let mut it = c.into_inner();
            let constructor = it.next().expect("a constructor").as_str().to_string();
            let (mut args, mut accessors) = (Vec::new(), Vec::new());
            for acc in it {
                let parts: Vec<String> = acc.into_inner().map(|p| p.as_str().to_string()).collect();
                let (name, arg) = match parts.as_slice() {
                    [name, arg] => (Some(name.clone()), arg.clone()),
                    [arg] => (None, arg.clone()),
                    _ => continue,
                };
                accessors.push(name);
                args.push(arg);
            }
            let built = Built {
                vocabulary: voc.to_string(),
                sort: sort.to_string(),
                constructor,
                args,
                accessors,
                at: Span::new(self.fid, start..start),
            };
            let finite = built
                .args
                .iter()
                .all(|a| a != sort && matches!(self.names.types.get(a), Some(Some(_))));
            if !finite {
                let message = format!(
                    "`{sort}` is constructed from `{}` with an argument of an unlisted or \
                     recursive type, so it is infinite: idp grounds over finite types and gives \
                     it no tester `is_{}` and no accessors",
                    built.constructor, built.constructor
                );
                let at = Span::new(self.fid, start..start + built.constructor.len());
                self.diags.push(crate::diagnostics::Diagnostic::warning(
                    "fodot-infinite-type",
                    message,
                    Some(at),
                ));
                continue;
            }
            let tester = format!("is_{}", built.constructor);
            self.names.preds.insert(tester, vec![sort.to_string()]);
            for (name, arg) in built.accessors.iter().zip(&built.args) {
                if let Some(name) = name {
                    let value = (vec![sort.to_string()], arg.clone());
                    self.names.funcs.insert(name.clone(), value);
                }
            }
            self.names.built.push(built);
        }
    }

    /// The testers and accessors of vocabulary `voc`'s constructed types.
    pub(super) fn constructor_decls(&self, voc: &str) -> Vec<Decl> {
        let mut out = Vec::new();
        for b in self.names.built.iter().filter(|b| b.vocabulary == voc) {
            let sort = pointer(&self.sort_ident(self.at(&b.sort, b.at)));
            out.push(Decl::Predicate(PredDecl {
                name: self.at(&format!("is_{}", b.constructor), b.at),
                args: vec![sort.clone()],
                span: b.at,
            }));
            for (name, arg) in b.accessors.iter().zip(&b.args) {
                let Some(name) = name else { continue };
                out.push(Decl::Function(FuncDecl {
                    name: self.at(name, b.at),
                    partial: true,
                    args: vec![sort.clone()],
                    result: pointer(&self.sort_ident(self.at(arg, b.at))),
                    span: b.at,
                }));
            }
        }
        out
    }

    /// The definitions of vocabulary `voc`'s testers and accessors, for a theory over it.
    pub(super) fn constructor_definitions(&mut self, voc: &str) -> Vec<TheoryComponent> {
        let built: Vec<Built> = self.names.built.clone();
        let mut out = Vec::new();
        for b in built.iter().filter(|b| b.vocabulary == voc) {
            let vars: Vec<String> = (1..=b.args.len())
                .map(|k| self.fresh_variable(format!("x{k}")))
                .collect();
            let quantees: Vec<String> = vars
                .iter()
                .zip(&b.args)
                .map(|(v, a)| format!("{v} in {a}"))
                .collect();
            let (quantifier, value) = match quantees.as_slice() {
                [] => (String::new(), b.constructor.clone()),
                _ => (
                    format!("!{}: ", quantees.join(", ")),
                    format!("{}({})", b.constructor, vars.join(", ")),
                ),
            };
            let mut rules = vec![format!("{quantifier}is_{}({value}).", b.constructor)];
            for (name, var) in b.accessors.iter().zip(&vars) {
                if let Some(name) = name {
                    rules.push(format!("{quantifier}{name}({value}) = {var}."));
                }
            }
            for rule in rules {
                let text = format!("{{ {rule} }}");
                let Ok(mut parsed) = FodotGrammar::parse(Rule::definition, &text) else {
                    continue;
                };
                let fixed = self.fixed_span.replace(b.at);
                let d = self.definition(parsed.next().expect("a definition"));
                self.fixed_span = fixed;
                out.push(TheoryComponent::Definition(d));
            }
        }
        out
    }

    /// `name`, or `name_`, `name__`, ... when the vocabulary declares that name (a constant
    /// `x1` would otherwise be read for the definitions' variable).
    fn fresh_variable(&self, mut name: String) -> String {
        let names = &self.names;
        while names.preds.contains_key(&name)
            || names.funcs.contains_key(&name)
            || names.types.contains_key(&name)
        {
            name.push('_');
        }
        name
    }

    fn at(&self, name: &str, span: Span) -> Ident {
        Ident {
            name: name.to_string(),
            span,
        }
    }
}
