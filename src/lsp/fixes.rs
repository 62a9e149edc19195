//! Quick fixes and rewrites: a did-you-mean name put in, a missing `.` added, `=` written for
//! `<-` in a rule, the two classic quantifier slips (`? x : p(x) => q(x)` and `! x : p(x) &
//! q(x)`), a variable's derived type written out, and connectives written in ASCII or in
//! Unicode (IDP3 reads only ASCII; IDP-Z3 reads both).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Range, TextEdit, Url,
    WorkspaceEdit,
};

use crate::source::Span;
use crate::syntax::ast;

use super::analysis::Analysis;
use super::outline::Lines;

/// The actions for the range an editor asks about.
pub fn code_actions(a: &Analysis, uri: &Url, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let lines = Lines::of(a);
    let text = a.text();
    let wanted = lines.index.offset(text, p.range.start)..lines.index.offset(text, p.range.end);
    let touches = |span: Span| {
        span.file == a.file
            && span.start as usize <= wanted.end
            && wanted.start <= span.end as usize
    };
    let mut fixes = Fixes {
        lines: &lines,
        uri,
        out: Vec::new(),
    };
    for d in &a.diagnostics {
        let Some(span) = d.span.filter(|&s| touches(s)) else {
            continue;
        };
        if let Some(name) = d.hint.as_deref().and_then(did_you_mean) {
            fixes.edit(&format!("Change to `{name}`"), true, span, name);
        }
        if d.code == "syntax-error" && d.message.starts_with("missing '.'") {
            fixes.edit(
                "Add the missing `.`",
                true,
                Span {
                    start: span.end,
                    ..span
                },
                ".",
            );
        }
        if d.code == "invalid-rule-head" {
            if let Some(eq) = equals_after_head(text, span) {
                fixes.edit("Write `<-` for `=` (a rule)", true, eq, "<-");
            }
        }
        if d.code == "lua-syntax-error" && d.message.ends_with("near '!'") {
            let line = &text[span.start as usize..span.end as usize];
            if let Some(k) = line.find("!=") {
                let at = span.start as usize + k;
                fixes.edit(
                    "Write `~=` for `!=` (Lua)",
                    true,
                    Span::new(a.file, at..at + 2),
                    "~=",
                );
            }
        }
        if d.code == "syntax-error" {
            if let Some((c, ascii)) = unicode_at(text, span) {
                let at = Span::new(
                    a.file,
                    span.start as usize..span.start as usize + c.len_utf8(),
                );
                fixes.edit(
                    &format!("Write `{ascii}` for `{c}` (IDP3 reads ASCII)"),
                    true,
                    at,
                    ascii,
                );
            }
        }
    }
    for sentence in sentences(&a.ast.items) {
        if !touches(sentence.span) {
            continue;
        }
        quantifier_slip(&mut fixes, text, sentence);
        untyped_variables(&mut fixes, a, sentence);
    }
    connectives(&mut fixes, a);
    fixes.out
}

struct Fixes<'a> {
    lines: &'a Lines<'a>,
    uri: &'a Url,
    out: Vec<CodeActionOrCommand>,
}

impl Fixes<'_> {
    fn edit(&mut self, title: &str, quick: bool, span: Span, new_text: &str) {
        let Some(range) = self.lines.range(span) else {
            return;
        };
        self.edits(
            title,
            quick,
            vec![TextEdit::new(range, new_text.to_string())],
        );
    }

    fn edits(&mut self, title: &str, quick: bool, edits: Vec<TextEdit>) {
        if self
            .out
            .iter()
            .any(|a| matches!(a, CodeActionOrCommand::CodeAction(c) if c.title == title))
        {
            return;
        }
        let changes = HashMap::from([(self.uri.clone(), edits)]);
        self.out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: title.to_string(),
            kind: Some(if quick {
                CodeActionKind::QUICKFIX
            } else {
                CodeActionKind::REFACTOR_REWRITE
            }),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..Default::default()
            }),
            is_preferred: quick.then_some(true),
            ..Default::default()
        }));
    }

    fn range(&self, span: Span) -> Option<Range> {
        self.lines.range(span)
    }
}

/// `X` of a hint `did you mean `X`?`.
fn did_you_mean(hint: &str) -> Option<&str> {
    let rest = hint.strip_prefix("did you mean `")?;
    rest.split_once('`').map(|(name, _)| name)
}

/// The `=` after a rule head `P(args)` whose name is at `head`.
fn equals_after_head(text: &str, head: Span) -> Option<Span> {
    let mut k = head.end as usize;
    let bytes = text.as_bytes();
    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
        k += 1;
    }
    if bytes.get(k) == Some(&b'(') {
        let mut depth = 0;
        while k < bytes.len() {
            match bytes[k] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        k += 1;
                        break;
                    }
                }
                b'.' | b'\n' if depth == 0 => return None,
                _ => {}
            }
            k += 1;
        }
    }
    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
        k += 1;
    }
    let is_equals = bytes.get(k) == Some(&b'=') && !matches!(bytes.get(k + 1), Some(b'<' | b'>'));
    is_equals.then(|| Span::new(head.file, k..k + 1))
}

/// The connectives IDP-Z3 writes in Unicode, with IDP3's ASCII.
const CONNECTIVES: [(char, &str); 11] = [
    ('∀', "!"),
    ('∃', "?"),
    ('∧', "&"),
    ('∨', "|"),
    ('¬', "~"),
    ('⇒', "=>"),
    ('⇔', "<=>"),
    ('⇐', "<="),
    ('≤', "=<"),
    ('≥', ">="),
    ('≠', "~="),
];

/// The Unicode connective at the start of `span`, and its ASCII.
fn unicode_at(text: &str, span: Span) -> Option<(char, &'static str)> {
    let c = text.get(span.start as usize..)?.chars().next()?;
    CONNECTIVES.iter().find(|(u, _)| *u == c).copied()
}

/// The sentences of the document's theories.
fn sentences(items: &[ast::Item]) -> Vec<&ast::Formula> {
    let mut out = Vec::new();
    for item in items {
        match item {
            ast::Item::Theory(t) => out.extend(t.components.iter().filter_map(|c| match c {
                ast::TheoryComponent::Sentence(f) => Some(f),
                _ => None,
            })),
            ast::Item::Namespace(n) => out.extend(sentences(&n.items)),
            _ => {}
        }
    }
    out
}

/// The sentences `? x : A => B` of the document, and what to say of each: true as soon as
/// one x makes A false, which is seldom what was meant (an editor's hint, not `--check`'s).
pub fn slips(a: &Analysis) -> Vec<(Span, String)> {
    sentences(&a.ast.items)
        .into_iter()
        .filter(|f| f.span.file == a.file)
        .filter_map(|f| match &f.kind {
            ast::FormulaKind::Quant {
                q: ast::Quantifier::Exists,
                body,
                ..
            } if matches!(
                body.kind,
                ast::FormulaKind::Binary {
                    op: ast::BinConn::Implies,
                    ..
                }
            ) =>
            {
                Some((
                    f.span,
                    "`? x : A => B` holds as soon as one x makes A false; to say that some x has \
                     both, write `? x : A & B`"
                        .to_string(),
                ))
            }
            _ => None,
        })
        .collect()
}

/// `? x : A => B` (true as soon as one x makes A false) to `? x : A & B`, and `! x : A & B`
/// (every x has A) to `! x : A => B`.
fn quantifier_slip(fixes: &mut Fixes, text: &str, f: &ast::Formula) {
    let (q, body) = match &f.kind {
        ast::FormulaKind::Quant { q, body, .. } => (*q, body),
        _ => return,
    };
    let ast::FormulaKind::Binary { op, left, right } = &body.kind else {
        return;
    };
    let (title, new_op) = match (q, op) {
        (ast::Quantifier::Exists, ast::BinConn::Implies) => {
            ("Write `&` for `=>` under `?` (some x with both)", "&")
        }
        (ast::Quantifier::Forall, ast::BinConn::And) => (
            "Write `=>` for `&` under `!` (every x that has the first has the second)",
            "=>",
        ),
        _ => return,
    };
    let operand = |g: &ast::Formula| {
        let s = &text[g.span.start as usize..g.span.end as usize];
        let weaker = matches!(&g.kind, ast::FormulaKind::Binary { op, .. }
            if new_op == "&" && !matches!(op, ast::BinConn::And));
        if weaker {
            format!("({s})")
        } else {
            s.to_string()
        }
    };
    let new_body = format!("{} {new_op} {}", operand(left), operand(right));
    let Some(range) = fixes.range(body.span) else {
        return;
    };
    fixes.edits(title, false, vec![TextEdit::new(range, new_body)]);
}

/// `x[T]` for each variable of the sentence written without its type.
fn untyped_variables(fixes: &mut Fixes, a: &Analysis, f: &ast::Formula) {
    if a.fodot {
        return;
    }
    let mut edits = Vec::new();
    for var in &a.index.vars {
        if var.typed
            || var.name.starts_with('_')
            || !super::navigate::contains(f.span, var.declared)
        {
            continue;
        }
        let Some(sort) = var.sort else { continue };
        if a.span_text(var.declared) != var.name {
            continue;
        }
        let end = Span {
            start: var.declared.end,
            ..var.declared
        };
        if let Some(range) = fixes.range(end) {
            edits.push(TextEdit::new(
                range,
                format!("[{}]", a.program.sort(sort).name),
            ));
        }
    }
    if !edits.is_empty() {
        fixes.edits("Write the types of the variables", false, edits);
    }
}

/// Every connective of the theories in the other notation (FO(·) reads both; in IDP3 only
/// back to ASCII).
fn connectives(fixes: &mut Fixes, a: &Analysis) {
    let text = a.text();
    let spans: Vec<Span> = theory_spans(&a.ast.items);
    let mut to_ascii = Vec::new();
    let mut to_unicode = Vec::new();
    for span in spans.iter().filter(|s| s.file == a.file) {
        for (k, c) in text[span.start as usize..span.end as usize].char_indices() {
            let at = span.start as usize + k;
            if let Some((_, ascii)) = CONNECTIVES.iter().find(|(u, _)| *u == c) {
                to_ascii.push((Span::new(a.file, at..at + c.len_utf8()), ascii.to_string()));
            }
        }
        if a.fodot {
            to_unicode.extend(ascii_connectives(text, *span));
        }
    }
    let edits = |found: Vec<(Span, String)>| -> Vec<TextEdit> {
        found
            .into_iter()
            .filter_map(|(span, new)| Some(TextEdit::new(fixes.range(span)?, new)))
            .collect()
    };
    let ascii = edits(to_ascii);
    let unicode = edits(to_unicode);
    if !ascii.is_empty() {
        fixes.edits(
            "Write the connectives in ASCII (! ? & | ~ =>)",
            false,
            ascii,
        );
    }
    if !unicode.is_empty() {
        fixes.edits(
            "Write the connectives in Unicode (∀ ∃ ∧ ∨ ¬ ⇒)",
            false,
            unicode,
        );
    }
}

fn theory_spans(items: &[ast::Item]) -> Vec<Span> {
    let mut out = Vec::new();
    for item in items {
        match item {
            ast::Item::Theory(t) => out.push(t.span),
            ast::Item::Namespace(n) => out.extend(theory_spans(&n.items)),
            _ => {}
        }
    }
    out
}

/// The ASCII connectives in a theory's text (outside comments), with their Unicode.
fn ascii_connectives(text: &str, span: Span) -> Vec<(Span, String)> {
    let body = &text[span.start as usize..span.end as usize];
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut k = body.find('{').map_or(0, |b| b + 1);
    while k < bytes.len() {
        let rest = &body[k..];
        if rest.starts_with("//") {
            k += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            k += rest.find("*/").map_or(rest.len(), |e| e + 2);
            continue;
        }
        if let Some(string) = rest.strip_prefix('"') {
            k += string.find('"').map_or(rest.len(), |e| e + 2);
            continue;
        }
        let found = CONNECTIVES
            .iter()
            .filter(|(_, ascii)| rest.starts_with(ascii))
            .max_by_key(|(_, ascii)| ascii.len())
            .filter(|(_, ascii)| !(*ascii == "<=" && rest.starts_with("<=>")));
        let at = span.start as usize + k;
        match found {
            Some((u, ascii)) if !(*ascii == "~" && rest.starts_with("~=")) => {
                out.push((Span::new(span.file, at..at + ascii.len()), u.to_string()));
                k += ascii.len();
            }
            _ => k += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_and_heads_give_their_fixes() {
        assert_eq!(did_you_mean("did you mean `Parent`?"), Some("Parent"));
        let text = "{ Anc(x, y) = Par(x, y). }";
        let head = Span::new(0, 2..5);
        assert_eq!(equals_after_head(text, head), Some(Span::new(0, 12..13)));
        assert_eq!(
            equals_after_head("{ F(x) =< 3. }", Span::new(0, 2..3)),
            None
        );
    }

    #[test]
    fn ascii_connectives_are_found_longest_first() {
        let text = "theory T:V { !x: p(x) <=> ~q(x) & x ~= 1. // => not this\n}";
        let found: Vec<String> = ascii_connectives(text, Span::new(0, 0..text.len()))
            .into_iter()
            .map(|(_, u)| u)
            .collect();
        assert_eq!(found, ["∀", "⇔", "¬", "∧", "≠"]);
    }
}
