//! IDP-Z3's concepts: `Concept[T1 * T2 -> T]` is the type whose values are the symbols of the
//! vocabulary with that signature, written `` `p ``, and `$(c)(t1, t2)` applies the symbol that
//! concept `c` names.
//!
//! A concept type becomes a constructed type named by its signature (`Concept[node->Bool]`),
//! declared in the first vocabulary, with one constructor `` `p `` per symbol of that signature
//! in the order of their declarations. `$(c)(args)` becomes the case split
//! `if c = `p1 then p1(args) else if ... else pn(args)`, lifted out of its atom as any
//! if-then-else; with `c` written `` `p `` it is `p(args)` itself. A quantee `x in $(c)` ranges
//! over the argument type of `c`'s signature, guarded by `$(c)(x)` (`x in $(`T)` with `T` a
//! type is `x in T`).

use pest::iterators::Pair;

use super::expr::{Expr, Quantee, Spanned};
use super::{Reader, Rule};
use crate::source::Span;
use crate::syntax::ast::{CmpOp, Constructor, Decl, Ident, TypeBody, TypeDecl};

/// A type name as written, made canonical: `Concept[(A ⨯ B) → 𝔹]` is `Concept[A*B->Bool]`.
pub(super) fn canonical(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
        .collect();
    kept.replace('→', "->")
        .replace('⨯', "*")
        .replace('𝔹', "Bool")
        .replace('ℤ', "Int")
        .replace('ℝ', "Real")
}

/// The concept type of a symbol with argument types `args` and value type `result`.
pub(super) fn signature_name(args: &[String], result: &str) -> String {
    let args: Vec<String> = args.iter().map(|a| canonical(a)).collect();
    format!("Concept[{}->{}]", args.join("*"), canonical(result))
}

/// The argument types of concept type `name` (`Concept[A*B->C]` gives `A`, `B`).
fn argument_types(name: &str) -> Option<Vec<String>> {
    let inner = name.strip_prefix("Concept[")?.strip_suffix(']')?;
    let (mut depth, mut parts, mut start) = (0i32, Vec::new(), 0);
    let bytes = inner.as_bytes();
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b'*' if depth == 0 => {
                parts.push(inner[start..k].to_string());
                start = k + 1;
            }
            b'-' if depth == 0 && bytes.get(k + 1) == Some(&b'>') => {
                if k > start {
                    parts.push(inner[start..k].to_string());
                }
                return Some(parts);
            }
            _ => {}
        }
    }
    None
}

impl Reader {
    /// The concept types written anywhere in the file, each once (inner ones too).
    pub(super) fn collect_concepts(&mut self, pair: &Pair<Rule>) {
        if pair.as_rule() == Rule::concept {
            let name = canonical(pair.as_str());
            if !self.names.concepts.contains(&name) {
                self.names.concepts.push(name);
            }
        }
        for inner in pair.clone().into_inner() {
            self.collect_concepts(&inner);
        }
    }

    /// The declarations of the concept types, for the first vocabulary `voc`.
    pub(super) fn concept_decls(&self, voc: &str, span: Span) -> Vec<Decl> {
        if self.names.first_vocabulary.as_deref() != Some(voc) {
            return Vec::new();
        }
        let at = Span::new(span.file, span.start as usize..span.start as usize);
        self.names
            .concepts
            .iter()
            .map(|name| {
                let constructors = self
                    .concept_symbols(name)
                    .into_iter()
                    .map(|s| Constructor {
                        name: Ident {
                            name: format!("`{s}"),
                            span: at,
                        },
                        args: Vec::new(),
                        span: at,
                    })
                    .collect();
                Decl::Type(TypeDecl {
                    name: Ident {
                        name: name.clone(),
                        span: at,
                    },
                    isa: Vec::new(),
                    contains: Vec::new(),
                    body: TypeBody::Constructed(constructors),
                    span: at,
                })
            })
            .collect()
    }

    /// The symbols of concept type `name`, in the order of their declarations.
    fn concept_symbols(&self, name: &str) -> Vec<String> {
        self.names
            .signatures
            .iter()
            .filter(|(_, sig)| sig == name)
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// Notes the concept type of each variable of a quantee (for `$(x)(..)`).
    pub(super) fn note_concept_variables(&mut self, q: &Quantee) {
        for (k, v) in q.vars.iter().enumerate() {
            let sort = match &q.sort {
                Some(s) if self.names.is_predicate(&s.name) => {
                    let args = self.names.preds.get(&s.name);
                    let at = if q.vars.len() == 1 { 0 } else { k };
                    args.and_then(|a| a.get(at)).cloned()
                }
                Some(s) => Some(s.name.clone()),
                None => self.names.var_sort(&v.name).map(|s| s.name),
            };
            if let Some(sort) = sort.filter(|s| s.starts_with("Concept[")) {
                self.names.concept_vars.insert(v.name.clone(), sort);
            }
        }
    }

    /// The concept type of expression `e` (a variable or a constant of a concept type).
    fn concept_of(&self, e: &Spanned) -> Option<String> {
        let Expr::App { name, args } = &e.expr else {
            return None;
        };
        if args.as_ref().is_none_or(|a| a.is_empty()) {
            if let Some(sort) = self.names.concept_vars.get(&name.name) {
                return Some(sort.clone());
            }
            if let Some((a, result)) = self.names.funcs.get(&name.name) {
                return a.is_empty().then(|| result.clone());
            }
        }
        None
    }

    /// `$(c)(args)` of the parse tree.
    pub(super) fn deref(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let target = self.expr(it.next().expect("a concept"));
        let Some(args) = it.next() else {
            self.error(
                "fodot-concept",
                "`$(c)` without arguments names a set, which idp reads only after `in` of a \
                 quantee (`x in $(c)`)",
                span,
            );
            return truth();
        };
        let args: Vec<Spanned> = args.into_inner().map(|a| self.expr(a)).collect();
        self.applied_concept(&target, args, span)
    }

    /// The symbol concept `target` names applied to `args`: a case split over the symbols of
    /// its type.
    fn applied_concept(&mut self, target: &Spanned, args: Vec<Spanned>, span: Span) -> Expr {
        if let Expr::App { name, args: None } = &target.expr {
            if let Some(symbol) = name.name.strip_prefix('`') {
                return application(symbol, args, name.span);
            }
        }
        let Some(kind) = self.concept_of(target) else {
            self.error(
                "fodot-concept",
                "idp cannot tell the Concept type of this `$(..)`: write a variable quantified \
                 over `Concept[..]` (or over a predicate of concepts), a constant of a Concept \
                 type, or `` `p ``",
                target.span,
            );
            return truth();
        };
        let symbols = self.concept_symbols(&kind);
        let Some((last, rest)) = symbols.split_last() else {
            self.error(
                "fodot-concept",
                format!("no symbol of the vocabulary has the signature of {kind}"),
                target.span,
            );
            return truth();
        };
        let mut acc = application(last, args.clone(), span);
        for symbol in rest.iter().rev() {
            let concept = Spanned {
                expr: Expr::App {
                    name: Ident {
                        name: format!("`{symbol}"),
                        span,
                    },
                    args: None,
                },
                span,
            };
            acc = Expr::Ite {
                cond: Box::new(Spanned {
                    expr: Expr::Compare {
                        terms: vec![target.clone(), concept],
                        ops: vec![CmpOp::Eq],
                    },
                    span,
                }),
                then: Box::new(Spanned {
                    expr: application(symbol, args.clone(), span),
                    span,
                }),
                other: Box::new(Spanned { expr: acc, span }),
            };
        }
        acc
    }

    /// A quantee `x in $(c)`: `x`'s type is the argument type of `c`'s signature; the guard
    /// `$(c)(x)` is returned to be added to the body.
    pub(super) fn deref_quantee(
        &mut self,
        pair: Pair<Rule>,
        vars: &[Ident],
    ) -> (Option<Ident>, Option<Spanned>) {
        let span = self.span(&pair);
        let target = self.expr(pair.into_inner().next().expect("a concept"));
        if let Expr::App { name, args: None } = &target.expr {
            // `x in $(`T)` with `T` a type: `x in T`.
            if self.names.types.contains_key(&name.name) {
                return (Some(name.clone()), None);
            }
        }
        let kind = match &target.expr {
            Expr::App { name, args: None } if name.name.starts_with('`') => {
                let symbol = &name.name[1..];
                self.names
                    .signatures
                    .iter()
                    .find(|(s, _)| s == symbol)
                    .map(|(_, sig)| sig.clone())
            }
            _ => self.concept_of(&target),
        };
        let sort = kind
            .as_deref()
            .and_then(argument_types)
            .filter(|a| a.len() == 1);
        let Some(sort) = sort else {
            self.error(
                "fodot-concept",
                "`x in $(c)` needs `c` to name a unary predicate of a Concept type idp can tell",
                span,
            );
            return (None, None);
        };
        let args = vars
            .iter()
            .map(|v| Spanned {
                expr: Expr::App {
                    name: v.clone(),
                    args: None,
                },
                span: v.span,
            })
            .collect();
        let guard = self.applied_concept(&target, args, span);
        let sort = Ident {
            name: sort[0].clone(),
            span,
        };
        (Some(sort), Some(Spanned { expr: guard, span }))
    }
}

/// `symbol(args)`.
fn application(symbol: &str, args: Vec<Spanned>, span: Span) -> Expr {
    Expr::App {
        name: Ident {
            name: symbol.to_string(),
            span,
        },
        args: Some(args),
    }
}

/// `true`, standing for what could not be read (an error says why).
fn truth() -> Expr {
    Expr::App {
        name: Ident {
            name: "true".to_string(),
            span: Span::default(),
        },
        args: None,
    }
}
