//! The shape of a document for the editor: its outline (blocks and what a vocabulary
//! declares), folding ranges, semantic tokens (what each name denotes, from the index) and
//! inlay hints (the types the resolver derived for variables written without one).

use lsp_types::{
    DocumentSymbol, FoldingRange, FoldingRangeKind, InlayHint, InlayHintKind, InlayHintLabel,
    Range, SemanticToken, SemanticTokenModifier, SemanticTokenType, SymbolKind,
};

use crate::ids::Symbol;
use crate::sema::index::Target;
use crate::sema::Component;
use crate::source::Span;
use crate::syntax::ast;

use super::analysis::Analysis;
use super::text::LineIndex;

/// The token types of [`semantic_tokens`], in the order of their numbers.
pub const TOKEN_TYPES: [SemanticTokenType; 6] = [
    SemanticTokenType::TYPE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::NAMESPACE,
];

/// The token modifiers of [`semantic_tokens`], as bits in that order.
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 1] = [SemanticTokenModifier::DECLARATION];

/// A document's text with its line index, to turn spans into ranges.
pub struct Lines<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub file: u32,
}

impl<'a> Lines<'a> {
    pub fn of(a: &'a Analysis) -> Lines<'a> {
        Lines {
            text: a.text(),
            index: &a.line_index,
            file: a.file,
        }
    }

    /// The range of a span of the document (`None` for another file's).
    pub fn range(&self, span: Span) -> Option<Range> {
        (span.file == self.file).then(|| {
            self.index
                .range(self.text, span.start as usize, span.end as usize)
        })
    }
}

/// The outline: each block, and the types and symbols of each vocabulary.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be given a value.
pub fn document_symbols(a: &Analysis) -> Vec<DocumentSymbol> {
    let lines = Lines::of(a);
    items_symbols(&lines, &a.ast.items)
}

#[allow(deprecated)]
fn symbol(
    lines: &Lines,
    name: &ast::Ident,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    children: Vec<DocumentSymbol>,
) -> Option<DocumentSymbol> {
    let range = lines.range(span)?;
    let selection = lines.range(name.span).unwrap_or(range);
    Some(DocumentSymbol {
        name: name.name.clone(),
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children: (!children.is_empty()).then_some(children),
    })
}

fn items_symbols(lines: &Lines, items: &[ast::Item]) -> Vec<DocumentSymbol> {
    let of = |v: &ast::Pointer| Some(format!(": {}", v.to_path()));
    items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Namespace(n) => symbol(
                lines,
                &n.name,
                None,
                SymbolKind::NAMESPACE,
                n.span,
                items_symbols(lines, &n.items),
            ),
            ast::Item::Vocabulary(v) => symbol(
                lines,
                &v.name,
                Some("vocabulary".into()),
                SymbolKind::MODULE,
                v.span,
                v.decls
                    .iter()
                    .filter_map(|d| declaration(lines, d))
                    .collect(),
            ),
            ast::Item::Theory(t) => symbol(
                lines,
                &t.name,
                of(&t.vocabulary),
                SymbolKind::CLASS,
                t.span,
                vec![],
            ),
            ast::Item::Structure(s) => symbol(
                lines,
                &s.name,
                of(&s.vocabulary),
                SymbolKind::STRUCT,
                s.span,
                vec![],
            ),
            ast::Item::Factlist(f) => symbol(
                lines,
                &f.name,
                of(&f.vocabulary),
                SymbolKind::STRUCT,
                f.span,
                vec![],
            ),
            ast::Item::Procedure(p) => symbol(
                lines,
                &p.name,
                Some(format!(
                    "({})",
                    p.params
                        .iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                SymbolKind::FUNCTION,
                p.span,
                vec![],
            ),
            ast::Item::Query(q) => symbol(
                lines,
                &q.name,
                of(&q.vocabulary),
                SymbolKind::OBJECT,
                q.span,
                vec![],
            ),
            ast::Item::Term(t) => symbol(
                lines,
                &t.name,
                of(&t.vocabulary),
                SymbolKind::OBJECT,
                t.span,
                vec![],
            ),
            ast::Item::Display(d) => symbol(
                lines,
                &ast::Ident {
                    name: "display".into(),
                    span: d.span,
                },
                None,
                SymbolKind::OBJECT,
                d.span,
                vec![],
            ),
            ast::Item::Using(_) => None,
        })
        .collect()
}

fn declaration(lines: &Lines, d: &ast::Decl) -> Option<DocumentSymbol> {
    let text = |span: Span| lines.text.get(span.start as usize..span.end as usize);
    match d {
        ast::Decl::Type(t) => symbol(
            lines,
            &t.name,
            None,
            SymbolKind::TYPE_PARAMETER,
            t.span,
            vec![],
        ),
        ast::Decl::Predicate(p) => symbol(
            lines,
            &p.name,
            text(p.span).map(str::to_string),
            SymbolKind::BOOLEAN,
            p.span,
            vec![],
        ),
        ast::Decl::Function(f) => {
            let kind = if f.args.is_empty() {
                SymbolKind::CONSTANT
            } else {
                SymbolKind::FUNCTION
            };
            symbol(
                lines,
                &f.name,
                text(f.span).map(str::to_string),
                kind,
                f.span,
                vec![],
            )
        }
        _ => None,
    }
}

/// Blocks, definitions and comments that span lines.
pub fn folding_ranges(a: &Analysis) -> Vec<FoldingRange> {
    let lines = Lines::of(a);
    let mut spans = Vec::new();
    item_spans(&a.ast.items, &mut spans);
    let mut out: Vec<FoldingRange> = spans
        .into_iter()
        .filter_map(|span| fold(&lines, span, None))
        .collect();
    for span in block_comments(lines.text, a.file) {
        out.extend(fold(&lines, span, Some(FoldingRangeKind::Comment)));
    }
    out.sort_by_key(|r| (r.start_line, r.end_line));
    out
}

fn fold(lines: &Lines, span: Span, kind: Option<FoldingRangeKind>) -> Option<FoldingRange> {
    let range = lines.range(span)?;
    (range.end.line > range.start.line).then_some(FoldingRange {
        start_line: range.start.line,
        start_character: None,
        end_line: range.end.line,
        end_character: None,
        kind,
        collapsed_text: None,
    })
}

fn item_spans(items: &[ast::Item], out: &mut Vec<Span>) {
    for item in items {
        match item {
            ast::Item::Namespace(n) => {
                out.push(n.span);
                item_spans(&n.items, out);
            }
            ast::Item::Vocabulary(v) => out.push(v.span),
            ast::Item::Theory(t) => {
                out.push(t.span);
                for c in &t.components {
                    if let ast::TheoryComponent::Definition(d) = c {
                        out.push(d.span);
                    }
                }
            }
            ast::Item::Structure(s) => out.push(s.span),
            ast::Item::Factlist(f) => out.push(f.span),
            ast::Item::Procedure(p) => out.push(p.span),
            ast::Item::Query(q) => out.push(q.span),
            ast::Item::Term(t) => out.push(t.span),
            ast::Item::Display(d) => out.push(d.span),
            ast::Item::Using(_) => {}
        }
    }
}

/// The `/* ... */` comments of an IDP text (outside strings).
fn block_comments(text: &str, file: u32) -> Vec<Span> {
    let mut out = Vec::new();
    let mut k = 0;
    let bytes = text.as_bytes();
    while k < bytes.len() {
        if text[k..].starts_with("//") {
            k = text[k..].find('\n').map_or(text.len(), |e| k + e);
        } else if text[k..].starts_with("/*") {
            let end = text[k + 2..]
                .find("*/")
                .map_or(text.len(), |e| k + 2 + e + 2);
            out.push(Span::new(file, k..end));
            k = end;
        } else if bytes[k] == b'"' {
            k += 1;
            while k < bytes.len() && bytes[k] != b'"' && bytes[k] != b'\n' {
                k += 1;
            }
            k += 1;
        } else {
            k += 1;
        }
    }
    out
}

/// The semantic tokens of the document, encoded as the protocol wants (relative positions).
pub fn semantic_tokens(a: &Analysis) -> Vec<SemanticToken> {
    let lines = Lines::of(a);
    let mut found: Vec<(Span, u32, u32)> = super::navigate::all_occurrences(a)
        .iter()
        .filter(|o| o.span.file == a.file && o.span.end > o.span.start)
        .map(|o| (o.span, token_type(a, o.target), u32::from(o.declaration)))
        .collect();
    found.sort_by_key(|(span, _, _)| span.start);
    found.dedup_by_key(|(span, _, _)| span.start);
    let mut out = Vec::with_capacity(found.len());
    let (mut line, mut column) = (0u32, 0u32);
    for (span, kind, modifiers) in found {
        let Some(range) = lines.range(span) else {
            continue;
        };
        if range.end.line != range.start.line {
            continue;
        }
        let delta_line = range.start.line - line;
        let delta_start = if delta_line == 0 {
            range.start.character - column
        } else {
            range.start.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: range.end.character - range.start.character,
            token_type: kind,
            token_modifiers_bitset: modifiers,
        });
        (line, column) = (range.start.line, range.start.character);
    }
    out
}

/// The number of a target's token type in [`TOKEN_TYPES`].
fn token_type(a: &Analysis, target: Target) -> u32 {
    match target {
        Target::Sort(_) => 0,
        Target::Symbol(Symbol::Pred(_)) => 1,
        Target::Symbol(Symbol::Func(f)) if a.program.func(f).constructor_of.is_some() => 3,
        Target::Symbol(Symbol::Func(_)) => 2,
        Target::Var { .. } => 4,
        Target::Component(Component::Procedure(_)) => 1,
        Target::Component(_) => 5,
    }
}

/// `[T]` after each variable whose type `T` was derived, within `range`.
pub fn inlay_hints(a: &Analysis, range: Range) -> Vec<InlayHint> {
    let lines = Lines::of(a);
    let mut out = Vec::new();
    for var in &a.index.vars {
        if var.typed || var.declared.file != a.file || var.name.starts_with('_') {
            continue;
        }
        let (Some(sort), Some(at)) = (var.sort, lines.range(var.declared)) else {
            continue;
        };
        if at.end < range.start || at.end > range.end {
            continue;
        }
        out.push(InlayHint {
            position: at.end,
            label: InlayHintLabel::String(format!("[{}]", a.program.sort(sort).name)),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: None,
            padding_left: None,
            padding_right: None,
            data: None,
        });
    }
    out.sort_by_key(|h| (h.position.line, h.position.character));
    out
}
