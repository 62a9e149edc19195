//! The `main` block of an FO(·) file: a few Python calls (`model_expand(T, S, max=2)`,
//! `pretty_print(...)`, `x = minimize(T, S, term="cost()")`), read into a [`Script`] that
//! `crate::fodot` runs. The blocks each call names are found here, where the file is known:
//! several theories or structures given to one call are combined into one new block, a call
//! without a structure gets an empty one, and a `term="..."` text becomes a term block.

use pest::iterators::Pair;
use pest::Parser;

use super::{FodotGrammar, Reader, Rule};
use crate::source::Span;
use crate::syntax::ast;
use crate::syntax::ast::{Ident, Item, Pointer, TermBlock, TermKind};

/// The statements of `main`, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub statements: Vec<Statement>,
    pub span: Span,
    /// The types listed with dates, and the functions whose value is a `Date`: their values
    /// print as dates.
    pub dates: (Vec<String>, Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `x = value`
    Assign { name: Ident, value: Arg },
    /// A call whose value is dropped (`pretty_print(...)`).
    Expr(Arg),
}

/// A value written in `main`.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Str(String, Span),
    Int(i64, Span),
    Float(f64, Span),
    List(Vec<Arg>, Span),
    /// A name without parentheses: a block (`T`, `S`) or a variable of `main`.
    Name(Ident),
    Call(Call),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Str(_, s) | Arg::Int(_, s) | Arg::Float(_, s) | Arg::List(_, s) => *s,
            Arg::Name(i) => i.span,
            Arg::Call(c) => c.span,
        }
    }
}

/// `name(args, key=value)`, with the blocks it works on, or `name` alone when a method is
/// called on it (`theory.propagate()`); `.method(...)` chained on it in `method`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub name: Ident,
    pub args: Vec<Arg>,
    pub kwargs: Vec<(Ident, Arg)>,
    pub span: Span,
    /// Whether `name` is called (`name(...)`) rather than named.
    pub parens: bool,
    /// The method called on this call's value (`.propagate()`), or the attribute read
    /// (`.assignments`: without parentheses).
    pub method: Option<Box<Call>>,
    /// The theory the call's arguments name (combined into one when they name several).
    pub theory: Option<String>,
    /// The structure (combined, or an empty one of the theory's vocabulary).
    pub structure: Option<String>,
    /// The term block made from `term="..."`.
    pub term: Option<String>,
}

impl Call {
    /// The value of keyword argument `key`.
    pub fn kwarg(&self, key: &str) -> Option<&Arg> {
        self.kwargs
            .iter()
            .find(|(k, _)| k.name == key)
            .map(|(_, v)| v)
    }
}

/// The calls that take theories and structures.
const INFERENCES: &[&str] = &[
    "model_expand",
    "model_propagate",
    "model_check",
    "minimize",
    "maximize",
    "explain",
    "determine_relevance",
    "decision_table",
    "Theory",
];

impl Reader {
    /// The `main` block; blocks that its calls need are added to `file`.
    pub(super) fn script(&mut self, block: Pair<Rule>, file: &mut ast::File) -> Script {
        let span = self.span(&block);
        let statements = block
            .into_inner()
            .filter(|p| p.as_rule() == Rule::statement)
            .map(|s| {
                let inner = s.into_inner().next().expect("a statement");
                match inner.as_rule() {
                    Rule::assignment => {
                        let mut it = inner.into_inner();
                        let name = self.ident(it.next().expect("a name"));
                        let value = self.py_expr(it.next().expect("a value"), file);
                        Statement::Assign { name, value }
                    }
                    _ => Statement::Expr(self.call(inner, file)),
                }
            })
            .collect();
        Script {
            statements,
            span,
            dates: self.names.dates(),
        }
    }

    fn py_expr(&mut self, pair: Pair<Rule>, file: &mut ast::File) -> Arg {
        let span = self.span(&pair);
        let inner = match pair.as_rule() {
            Rule::py_expr | Rule::py_arg => pair.into_inner().next().expect("a value"),
            _ => pair,
        };
        match inner.as_rule() {
            Rule::string => Arg::Str(unquote(inner.as_str()), span),
            Rule::number => match super::number::number(inner.as_str()) {
                super::number::Number::Int(i) => Arg::Int(i, span),
                super::number::Number::Float(f) => Arg::Float(f, span),
                super::number::Number::Bad => Arg::Float(0.0, span),
            },
            Rule::py_list => Arg::List(
                inner.into_inner().map(|p| self.py_expr(p, file)).collect(),
                span,
            ),
            _ => self.call(inner, file),
        }
    }

    fn call(&mut self, pair: Pair<Rule>, file: &mut ast::File) -> Arg {
        let call = self.call_chain(pair, file, false);
        if !call.parens && call.method.is_none() {
            return Arg::Name(call.name);
        }
        Arg::Call(call)
    }

    /// A call and the methods chained on it (a method works on its receiver's blocks, found
    /// when it runs).
    fn call_chain(&mut self, pair: Pair<Rule>, file: &mut ast::File, is_method: bool) -> Call {
        let span = self.span(&pair);
        let text = pair.as_str();
        let mut it = pair.into_inner().peekable();
        let name = self.ident(it.next().expect("a name"));
        let mut args = Vec::new();
        let mut kwargs = Vec::new();
        let mut method = None;
        for p in it {
            match p.as_rule() {
                Rule::py_arg => {
                    let inner = p.into_inner().next().expect("an argument");
                    if inner.as_rule() == Rule::kwarg {
                        let mut kv = inner.into_inner();
                        let key = self.ident(kv.next().expect("a key"));
                        let value = self.py_expr(kv.next().expect("a value"), file);
                        kwargs.push((key, value));
                    } else {
                        args.push(self.py_expr(inner, file));
                    }
                }
                Rule::call => method = Some(Box::new(self.call_chain(p, file, true))),
                _ => {}
            }
        }
        let parens = text[name.name.len()..].trim_start().starts_with('(');
        let mut call = Call {
            name,
            args,
            kwargs,
            span,
            parens,
            method,
            theory: None,
            structure: None,
            term: None,
        };
        if parens && !is_method && INFERENCES.contains(&call.name.name.as_str()) {
            self.blocks_of(&mut call, file);
        }
        call
    }

    /// The theory, structure and term block of an inference call, made when needed.
    fn blocks_of(&mut self, call: &mut Call, file: &mut ast::File) {
        // `determine_relevance(Theory(T, S))`: the blocks of the `Theory` given.
        if let Some(Arg::Call(inner)) = call.args.first() {
            if inner.name.name == "Theory" && inner.method.is_none() {
                (call.theory, call.structure) = (inner.theory.clone(), inner.structure.clone());
                return;
            }
        }
        let named: Vec<&Ident> = call
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Name(n) => Some(n),
                _ => None,
            })
            .collect();
        let theories: Vec<ast::Theory> = named
            .iter()
            .filter_map(|n| find_theory(file, &n.name).cloned())
            .collect();
        let structures: Vec<ast::Structure> = named
            .iter()
            .filter_map(|n| find_structure(file, &n.name).cloned())
            .collect();
        let Some(vocabulary) = widest_vocabulary(file, &theories, &structures) else {
            self.error(
                "fodot-main-no-theory",
                format!("`{}` needs a theory among its arguments", call.name.name),
                call.span,
            );
            return;
        };
        let theory = match theories.as_slice() {
            [one] => one.name.name.clone(),
            [] => empty_theory(file, &vocabulary, call.span),
            _ => combined_theory(file, &theories, &vocabulary),
        };
        let given: Vec<ast::Interpretation> = theories
            .iter()
            .filter_map(|t| self.theory_interpretations.get(&t.name.name))
            .flat_map(|(_, i)| i.iter().cloned())
            .collect();
        let structure = match structures.as_slice() {
            [one] if given.is_empty() => one.name.name.clone(),
            _ => {
                let name = if structures.is_empty() && given.is_empty() {
                    format!(
                        "empty_structure_of_{}",
                        super::names::written_name(&vocabulary.to_path())
                    )
                } else {
                    combined_name(structure_names(&structures, &theories, given.is_empty()))
                };
                if find_structure(file, &name).is_none() {
                    file.items.push(Item::Structure(ast::Structure {
                        name: Ident {
                            name: name.clone(),
                            span: call.span,
                        },
                        vocabulary: vocabulary.clone(),
                        interpretations: structures
                            .iter()
                            .flat_map(|s| s.interpretations.clone())
                            .chain(given)
                            .collect(),
                        usings: Vec::new(),
                        span: call.span,
                    }));
                }
                name
            }
        };
        call.theory = Some(theory);
        call.structure = Some(structure);
        if let Some(Arg::Str(text, span)) = call.kwarg("term").cloned() {
            let negate = call.name.name == "maximize";
            call.term = self.term_block(&text, span, &vocabulary, negate, file);
        }
    }

    /// A term block for the text of `term="..."` (negated for `maximize`).
    fn term_block(
        &mut self,
        text: &str,
        span: Span,
        vocabulary: &Pointer,
        negate: bool,
        file: &mut ast::File,
    ) -> Option<String> {
        let parsed = match FodotGrammar::parse(Rule::term_text, text) {
            Ok(mut p) => p.next().expect("a term"),
            Err(_) => {
                self.error(
                    "fodot-term",
                    format!("\"{text}\" is not a term of FO(\u{b7})"),
                    span,
                );
                return None;
            }
        };
        // The term's own positions are inside the string: every part of it points there.
        let expr = parsed.into_inner().next().expect("a term");
        let fixed = self.fixed_span.replace(span);
        let e = self.expr(expr);
        let mut term = self.term(&e);
        self.fixed_span = fixed;
        if negate {
            term = ast::Term {
                kind: TermKind::Neg(Box::new(term)),
                span,
            };
        }
        self.terms += 1;
        let name = format!("term_{}", self.terms);
        file.items.push(Item::Term(TermBlock {
            name: Ident {
                name: name.clone(),
                span,
            },
            vocabulary: vocabulary.clone(),
            term,
            span,
        }));
        Some(name)
    }
}

/// The theory of a call on several theories: their sentences and definitions (each once: theories
/// over one vocabulary share its testers' definitions), over `vocabulary`.
fn combined_theory(file: &mut ast::File, theories: &[ast::Theory], vocabulary: &Pointer) -> String {
    let name = combined_name(theories.iter().map(|t| t.name.name.as_str()));
    if find_theory(file, &name).is_some() {
        return name;
    }
    let mut combined = theories[0].clone();
    combined.name.name = name.clone();
    combined.vocabulary = vocabulary.clone();
    combined.components = Vec::new();
    for c in theories.iter().flat_map(|t| t.components.clone()) {
        if !combined.components.contains(&c) {
            combined.components.push(c);
        }
    }
    file.items.push(Item::Theory(combined));
    name
}

/// The theory of a call given structures only (IDP-Z3 then expands them with no sentence).
fn empty_theory(file: &mut ast::File, vocabulary: &Pointer, span: Span) -> String {
    let name = format!("empty_theory_of_{}", vocabulary.to_path());
    if find_theory(file, &name).is_none() {
        file.items.push(Item::Theory(ast::Theory {
            name: Ident {
                name: name.clone(),
                span,
            },
            vocabulary: vocabulary.clone(),
            components: Vec::new(),
            span,
        }));
    }
    name
}

/// The vocabulary of a call's blocks: the one of theirs that imports all the others (IDP-Z3's
/// `decision` that imports `environment`), else the first theory's (or structure's).
fn widest_vocabulary(
    file: &ast::File,
    theories: &[ast::Theory],
    structures: &[ast::Structure],
) -> Option<Pointer> {
    let candidates: Vec<&Pointer> = theories
        .iter()
        .map(|t| &t.vocabulary)
        .chain(structures.iter().map(|s| &s.vocabulary))
        .collect();
    let covers_all = |v: &Pointer| {
        let reached = imported_closure(file, v.name());
        candidates
            .iter()
            .all(|c| reached.iter().any(|r| r == c.name()))
    };
    let widest = candidates.iter().find(|v| covers_all(v));
    widest.or(candidates.first()).map(|v| (*v).clone())
}

/// The names of vocabulary `name` and of every vocabulary it imports, directly or not.
fn imported_closure(file: &ast::File, name: &str) -> Vec<String> {
    let mut reached = vec![name.to_string()];
    let mut k = 0;
    while k < reached.len() {
        for item in &file.items {
            let Item::Vocabulary(v) = item else { continue };
            if v.name.name != reached[k] {
                continue;
            }
            for d in &v.decls {
                if let ast::Decl::ExternVocabulary(p) = d {
                    if !reached.iter().any(|r| r == p.name()) {
                        reached.push(p.name().to_string());
                    }
                }
            }
        }
        k += 1;
    }
    reached
}

fn find_theory<'f>(file: &'f ast::File, name: &str) -> Option<&'f ast::Theory> {
    file.items.iter().find_map(|i| match i {
        Item::Theory(t) if t.name.name == name => Some(t),
        _ => None,
    })
}

fn find_structure<'f>(file: &'f ast::File, name: &str) -> Option<&'f ast::Structure> {
    file.items.iter().find_map(|i| match i {
        Item::Structure(s) if s.name.name == name => Some(s),
        _ => None,
    })
}

/// The names making up the structure of a call: its structures', then (when the theories
/// interpret symbols themselves) `interpretations_of_T` for each theory.
fn structure_names<'a>(
    structures: &'a [ast::Structure],
    theories: &'a [ast::Theory],
    no_given: bool,
) -> impl Iterator<Item = String> + 'a {
    let own = theories
        .iter()
        .filter(move |_| !no_given)
        .map(|t| format!("{}{}", super::OWN_STRUCTURE, t.name.name));
    structures.iter().map(|s| s.name.name.clone()).chain(own)
}

/// The name of blocks combined for one call: `T_and_T2`.
fn combined_name<S: AsRef<str>>(names: impl Iterator<Item = S>) -> String {
    let names: Vec<S> = names.collect();
    let texts: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
    texts.join("_and_")
}

/// A Python string literal's text (`\"` and `\\` unescaped).
fn unquote(s: &str) -> String {
    let s = s.strip_prefix('f').unwrap_or(s);
    let body = &s[1..s.len() - 1];
    body.replace("\\\"", "\"")
        .replace("\\n", "\n")
        .replace("\\\\", "\\")
}
