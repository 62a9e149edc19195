//! Reading IDP-Z3's FO(·) dialect into the same AST as IDP3 files.
//!
//! The file is parsed with the pest grammar `grammar/fodot.pest`; the parse tree is then walked
//! into [`crate::syntax::ast`] blocks (vocabularies, theories, structures, term blocks), so that
//! resolution, grounding and solving are the same for both dialects. What IDP3's AST cannot say
//! is rewritten on the way (see [`expr`]); what is not IDP3 at all — the `main` block's Python
//! calls — becomes a [`Script`] that `crate::fodot` runs. A `display` block is read and
//! skipped with a warning.
//!
//! The map from IDP-Z3's words to IDP3's: `type T := {a, b}` is a constructed type (its names
//! can be used in theories); `type T := {1..n}` an enumerated subtype of `int`; `p: T * T -> Bool`
//! a predicate, `f: T -> U` a function, `c: () -> U` a constant; `Int` and `Real` are `int` and
//! `float`; a type given only in a structure is given in the vocabulary instead (so that its
//! elements are names in theories too, unless structures list it differently: then each keeps
//! its own), and `f := {..} else v.` lists every argument. `𝔹` as an argument type is a
//! constructed type `{true, false}` ([`booleans`]); `Concept[T -> U]` the constructed type of
//! the symbols with that signature ([`concepts`]). An interpretation inside a theory joins the
//! structure of each `main` call on that theory. Blocks that share a name (IDP-Z3 keeps
//! vocabularies, theories and structures apart) are renamed apart ([`names`]).

mod accessors;
mod blocks;
mod booleans;
mod concepts;
mod expr;
mod names;
mod number;
mod script;

use indexmap::IndexMap;
use pest::iterators::Pair;
use pest::Parser;
use std::collections::HashMap;

pub use blocks::OWN_STRUCTURE;
pub use names::written_name;
pub use number::date_text;
pub use script::{Arg, Call, Script, Statement};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::source::{FileId, Span};
use crate::syntax::ast;
use crate::syntax::ast::Ident;

/// The pest parser generated from `grammar/fodot.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "../grammar/fodot.pest"]
pub struct FodotGrammar;

/// An FO(·) file read: its blocks as IDP3 AST items, and its `main` block.
#[derive(Clone, Debug, Default)]
pub struct Read {
    pub file: ast::File,
    pub script: Option<Script>,
}

/// Reads the FO(·) text of file `fid`. Syntax errors are reported in `diags` (located at the
/// first token the grammar could not read, with what it expected there, in words).
pub fn read(fid: FileId, text: &str, diags: &mut Diagnostics) -> Read {
    let parsed = match FodotGrammar::parse(Rule::file, text) {
        Ok(mut pairs) => pairs.next().expect("a file"),
        Err(e) => {
            diags.push(syntax_error(fid, text, &e));
            return Read::default();
        }
    };
    let mut reader = Reader {
        fid,
        diags: Vec::new(),
        names: Names::default(),
        terms: 0,
        fixed_span: None,
        theory_interpretations: HashMap::new(),
        theory_display: Vec::new(),
    };
    let blocks: Vec<Pair<Rule>> = parsed
        .into_inner()
        .filter(|p| !matches!(p.as_rule(), Rule::EOI | Rule::shebang))
        .collect();
    reader.collect_names(&blocks);
    for block in &blocks {
        reader.collect_concepts(block);
    }
    let read = reader.blocks(blocks);
    diags.items.extend(reader.diags);
    read
}

/// Whether `text` is in FO(·)'s grammar (for choosing the dialect of a file that IDP3's parser
/// rejects).
pub fn accepts(text: &str) -> bool {
    FodotGrammar::parse(Rule::file, text).is_ok()
}

/// Where an FO(·) file could not be read, in the words of the language.
fn syntax_error(fid: FileId, text: &str, e: &pest::error::Error<Rule>) -> Diagnostic {
    let at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let end = text[at..]
        .char_indices()
        .find(|&(k, c)| k > 0 && (c.is_whitespace() || !c.is_alphanumeric()))
        .map_or(text.len(), |(k, _)| at + k);
    let found = match text[at..end].trim() {
        "" if at >= text.len() => "the end of the file".to_string(),
        "" => "this".to_string(),
        word => format!("'{word}'"),
    };
    if let Some(d) = misspelt_comparison(fid, text, at, &text[at..end]) {
        return d;
    }
    let expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => expected_words(positives),
        pest::error::ErrorVariant::CustomError { .. } => String::new(),
    };
    let message = if expected.is_empty() {
        format!("unexpected {found} (IDP-Z3's FO(\u{b7}) syntax)")
    } else {
        format!("unexpected {found}, expected {expected} (IDP-Z3's FO(\u{b7}) syntax)")
    };
    Diagnostic::error(
        "fodot-syntax-error",
        message,
        Some(Span::new(fid, at..end.max(at))),
    )
}

/// A comparison in words with a misspelt middle word (`age() is les than 30`): the parser reads
/// `is` as `=` and the word as a name, and stops at `than`. The error then names the word and
/// IDP-Z3's comparisons; `None` for any other stop.
fn misspelt_comparison(fid: FileId, text: &str, at: usize, found: &str) -> Option<Diagnostic> {
    if found != "than" {
        return None;
    }
    let before = text[..at].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |k| k + 1);
    let word = &before[start..];
    let lead = before[..start].trim_end();
    let after_is = lead.ends_with(" is") || lead.ends_with(" not") || lead.ends_with(" strictly");
    if word.is_empty() || !after_is {
        return None;
    }
    Some(
        Diagnostic::error(
            "fodot-syntax-error",
            format!("unknown comparison '{word} than' (IDP-Z3's FO(\u{b7}) syntax)"),
            Some(Span::new(fid, start..start + word.len())),
        )
        .with_hint(
            "IDP-Z3 compares in words with `is less than` (=<), `is greater than` (>=), \
             `is strictly less than` (<), `is strictly greater than` (>), `is not` (~=) and \
             `is` (=)",
        ),
    )
}

/// What the grammar expected, said without rule names.
fn expected_words(rules: &[Rule]) -> String {
    let mut words: Vec<&str> = rules
        .iter()
        .map(|r| match r {
            Rule::ident | Rule::symbol | Rule::any_name => "a name",
            Rule::expr | Rule::base | Rule::unary | Rule::comparison | Rule::sum => {
                "a formula or term"
            }
            Rule::number | Rule::int | Rule::float => "a number",
            Rule::cmp_op => "a comparison",
            Rule::and_op | Rule::or_op | Rule::impl_op | Rule::equiv_op | Rule::rimpl_op => {
                "a connective"
            }
            Rule::add_op | Rule::mul_op => "an operator",
            Rule::quantees | Rule::quantee => "a variable",
            Rule::vocabulary | Rule::theory | Rule::structure | Rule::display | Rule::procedure => {
                "a block (vocabulary, theory, structure, display, procedure main)"
            }
            Rule::EOI => "the end of the file",
            Rule::interpretation => "an interpretation `name := ...`",
            Rule::element => "a value",
            Rule::rule => "a rule",
            Rule::statement => "a call",
            Rule::type_decl | Rule::var_decl | Rule::symbol_decl | Rule::import => {
                "a declaration (`type T := {..}`, `p: T -> Bool`, `f: T -> U`)"
            }
            _ => "",
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.sort();
    words.dedup();
    match words.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// What a vocabulary declares, gathered before the blocks are lowered (a structure's `else`
/// needs the argument types' elements, a quantee `x in p` whether `p` is a predicate).
#[derive(Default, Debug)]
pub(crate) struct Names {
    /// Each type and its elements when they are listed (in the vocabulary or a structure).
    types: IndexMap<String, Option<Vec<ast::Element>>>,
    /// A type's listing given in a structure, moved to the vocabulary.
    moved_types: HashMap<String, ()>,
    /// Predicates and their argument types.
    preds: HashMap<String, Vec<String>>,
    /// Functions: argument types and value type.
    funcs: HashMap<String, (Vec<String>, String)>,
    /// `var x in T`.
    vars: HashMap<String, Ident>,
    /// Theory name to vocabulary name.
    theories: HashMap<String, String>,
    /// The constructors that get a tester and accessors.
    built: Vec<accessors::Built>,
    /// The types listed with dates (`{#2021-01-01..#2021-01-31}`).
    date_types: Vec<String>,
    /// The vocabularies that use the Booleans as a type (they get a type `Bool`).
    bool_vocabularies: Vec<String>,
    /// The variables over the Booleans.
    bool_vars: std::collections::HashSet<String>,
    /// The concept types written in the file (`Concept[node->Bool]`), made canonical.
    concepts: Vec<String>,
    /// Each predicate and function with its concept type, in the order of the declarations.
    signatures: Vec<(String, String)>,
    /// The variables over a concept type, with it.
    concept_vars: HashMap<String, String>,
    /// The first vocabulary, which declares the concept types.
    first_vocabulary: Option<String>,
}

impl Names {
    /// The types listed with dates, and the functions whose value is a `Date`.
    pub(crate) fn dates(&self) -> (Vec<String>, Vec<String>) {
        let mut funcs: Vec<String> = self
            .funcs
            .iter()
            .filter(|(_, (_, result))| result == "Date" || self.date_types.contains(result))
            .map(|(name, _)| name.clone())
            .collect();
        funcs.sort();
        (self.date_types.clone(), funcs)
    }

    pub(crate) fn is_predicate(&self, name: &str) -> bool {
        self.preds.contains_key(name)
    }

    /// The declared type of a variable without `in T` (`var x in T`).
    fn var_sort(&self, name: &str) -> Option<Ident> {
        self.vars.get(name).cloned()
    }

    /// The type of variable `v` of quantee `(x, y) in p`: `p`'s argument type at its place.
    fn tuple_sort(&self, q: &expr::Quantee, v: &Ident) -> Option<Ident> {
        let pred = q.sort.as_ref()?;
        let k = q.vars.iter().position(|x| x.name == v.name)?;
        let name = self.preds.get(&pred.name)?.get(k)?;
        Some(Ident {
            name: name.clone(),
            span: v.span,
        })
    }

    /// IDP3's name of an IDP-Z3 type.
    fn sort_name(&self, sort: &Ident) -> Ident {
        Ident {
            name: idp3_sort(&sort.name).to_string(),
            span: sort.span,
        }
    }

    /// The elements of a type, when the file lists them.
    fn elements(&self, sort: &str) -> Option<&[ast::Element]> {
        self.types.get(sort)?.as_deref()
    }
}

/// Whether an IDP-Z3 type name is the Booleans.
fn is_bool(sort: &str) -> bool {
    matches!(sort, "Bool" | "𝔹")
}

/// `body` guarded by the quantees' `x in $(c)` conditions: `guard => body` under `!`,
/// `guard & body` under `?`.
fn guarded(q: ast::Quantifier, quantees: &[expr::Quantee], body: expr::Spanned) -> expr::Spanned {
    quantees
        .iter()
        .rev()
        .filter_map(|quantee| quantee.guard.clone())
        .fold(body, |acc, guard| {
            let op = match q {
                ast::Quantifier::Forall => ast::BinConn::Implies,
                _ => ast::BinConn::And,
            };
            let span = acc.span;
            expr::Spanned {
                expr: expr::Expr::Conn {
                    op,
                    left: Box::new(*guard),
                    right: Box::new(acc),
                },
                span,
            }
        })
}

/// IDP3's name for IDP-Z3's built-in types (others unchanged).
fn idp3_sort(name: &str) -> &str {
    match name {
        "Int" | "ℤ" => "int",
        "Real" | "ℝ" => "float",
        // A date is its day number (`number::date_text` prints it back).
        "Date" => "int",
        "𝔹" => booleans::BOOL,
        other => other,
    }
}

/// The walk from the parse tree to the AST, with the diagnostics met on the way.
pub(crate) struct Reader {
    fid: FileId,
    diags: Vec<Diagnostic>,
    names: Names,
    /// Term blocks made for `minimize(..., term="...")`, for fresh names.
    terms: usize,
    /// Set while reading a text given inside a string (`term="..."`): every node is placed
    /// at the string.
    fixed_span: Option<Span>,
    /// The interpretations written inside each theory (`p := {..}.`), by theory name.
    theory_interpretations: HashMap<String, (Ident, Vec<ast::Interpretation>)>,
    /// The display settings written in the theory being read (`goal_symbol := {`p}.`).
    theory_display: Vec<ast::DisplaySetting>,
}

impl Reader {
    fn span(&self, pair: &Pair<Rule>) -> Span {
        if let Some(fixed) = self.fixed_span {
            return fixed;
        }
        let s = pair.as_span();
        Span::new(self.fid, s.start()..s.end())
    }

    /// A name; a concept type written as a type is named canonically (`Concept[A*B->Bool]`),
    /// and `` `p `` keeps its backquote when `p` is a symbol (the concept of `p`; a variable
    /// written `` `x `` is `x`).
    fn ident(&self, pair: Pair<Rule>) -> Ident {
        let text = pair.as_str();
        let name = match text.strip_prefix('`') {
            _ if pair.as_rule() == Rule::concept => concepts::canonical(text),
            Some(bare) if self.names.signatures.iter().any(|(s, _)| s == bare) => text.to_string(),
            Some(bare) => bare.to_string(),
            None => text.to_string(),
        };
        Ident {
            name,
            span: self.span(&pair),
        }
    }

    fn int(&mut self, pair: &Pair<Rule>) -> i64 {
        pair.as_str().parse().unwrap_or_else(|_| {
            let span = self.span(pair);
            self.error(
                "fodot-number",
                format!("{} is too large", pair.as_str()),
                span,
            );
            0
        })
    }

    fn error(&mut self, code: &'static str, message: impl Into<String>, span: Span) {
        self.diags
            .push(Diagnostic::error(code, message, Some(span)));
    }

    fn warning(&mut self, code: &'static str, message: impl Into<String>, span: Span) {
        self.diags
            .push(Diagnostic::warning(code, message, Some(span)));
    }

    /// Adds a hint to the last diagnostic.
    fn hint_last(&mut self, hint: impl Into<String>) {
        if let Some(d) = self.diags.pop() {
            self.diags.push(d.with_hint(hint));
        }
    }
}
