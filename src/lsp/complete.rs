//! Completion: what may be written at the cursor, from where the cursor is. The text before
//! the cursor is scanned for the blocks it is in (a theory over V, a structure, a procedure's
//! Lua code, ...), so completion works however broken the rest of the file is; nothing is
//! offered inside a comment or a string. The names come from the latest analysis that knows
//! the block's vocabulary.

use lsp_types::{CompletionItem, CompletionItemKind, InsertTextFormat};

use crate::ids::{SortId, Symbol, VocId};
use crate::sema::Program;

use super::analysis::Analysis;

/// A block that the cursor is in: its header's words (`theory T : V`) and where its `{` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub words: Vec<String>,
    pub open: usize,
}

impl Block {
    /// `theory`, `structure`, `vocabulary`, `procedure`, ... (lower case), or empty for a
    /// `{` inside a block (a definition, a set).
    pub fn keyword(&self) -> &str {
        self.words.first().map_or("", String::as_str)
    }

    /// The vocabulary named in the header (`theory T : V`, `structure S:V`), or the block's
    /// own name for a vocabulary.
    pub fn vocabulary(&self) -> Option<&str> {
        if self.keyword().eq_ignore_ascii_case("vocabulary") || self.keyword() == "LTCvocabulary" {
            return self.words.get(1).map(String::as_str);
        }
        let colon = self.words.iter().position(|w| w == ":")?;
        self.words.get(colon + 1).map(String::as_str)
    }
}

/// Where the cursor is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// In a comment or a string: nothing to complete.
    pub quiet: bool,
    /// The blocks around the cursor, outermost first.
    pub blocks: Vec<Block>,
    /// Where the statement at the cursor starts (after the last `.`, `{` or `}`).
    pub statement: usize,
}

impl Context {
    /// The innermost block with a header keyword (a definition's `{` belongs to its theory).
    pub fn block(&self) -> Option<&Block> {
        self.blocks.iter().rev().find(|b| !b.keyword().is_empty())
    }
}

/// Scans `text` up to `offset`.
pub fn context(text: &str, offset: usize) -> Context {
    let text = &text[..floor_boundary(text, offset)];
    let bytes = text.as_bytes();
    let mut blocks: Vec<Block> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut statement = 0;
    let mut k = 0;
    while k < bytes.len() {
        let in_code = blocks
            .iter()
            .any(|b| b.keyword() == "procedure" || b.keyword() == "display");
        let rest = &text[k..];
        let comment_end = if rest.starts_with("//") || (in_code && rest.starts_with("--")) {
            Some(rest.find('\n').map(|e| k + e))
        } else if rest.starts_with("/*") && !in_code {
            Some(rest[2..].find("*/").map(|e| k + 2 + e + 2))
        } else if in_code && rest.starts_with("--[") {
            Some(rest.find("]]").map(|e| k + e + 2))
        } else {
            None
        };
        if let Some(end) = comment_end {
            match end {
                Some(end) => k = end,
                None => return quiet(blocks, statement),
            }
            continue;
        }
        let c = bytes[k];
        if c == b'"' || (in_code && c == b'\'') {
            let mut j = k + 1;
            while j < bytes.len() && bytes[j] != c && bytes[j] != b'\n' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            if j >= bytes.len() {
                return quiet(blocks, statement);
            }
            k = j + 1;
            continue;
        }
        match c {
            b'{' => {
                blocks.push(Block {
                    words: std::mem::take(&mut words),
                    open: k,
                });
                statement = k + 1;
            }
            b'}' => {
                blocks.pop();
                words.clear();
                statement = k + 1;
            }
            b'.' if !in_code && bytes.get(k + 1) == Some(&b'.') => k += 1,
            b'.' | b';' if !in_code => {
                words.clear();
                statement = k + 1;
            }
            b':' => words.push(":".into()),
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = k;
                while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                    k += 1;
                }
                words.push(text[start..k].to_string());
                words.truncate(8);
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    Context {
        quiet: false,
        blocks,
        statement,
    }
}

fn quiet(blocks: Vec<Block>, statement: usize) -> Context {
    Context {
        quiet: true,
        blocks,
        statement,
    }
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The completions at byte `offset` of the current analysis's text; names from `a`, or from
/// `fallback` (the last analysis without a syntax error) when `a` does not know the block's
/// vocabulary; `lua_api` the built-in procedures and tables of IDP3's Lua.
pub fn completions(
    a: &Analysis,
    fallback: Option<&Analysis>,
    offset: usize,
    lua_api: &[String],
) -> Vec<CompletionItem> {
    let cx = context(a.text(), offset);
    if cx.quiet {
        return Vec::new();
    }
    let Some(block) = cx.block() else {
        return top_level(a.fodot);
    };
    let keyword = block.keyword().to_ascii_lowercase();
    if keyword == "procedure" || keyword == "display" {
        return procedure_items(a, lua_api);
    }
    let known = |an: &Analysis| {
        block
            .vocabulary()
            .and_then(|v| find_vocabulary(&an.program, v))
    };
    let (source, voc) = match (known(a), fallback.and_then(|f| known(f).map(|v| (f, v)))) {
        (Some(v), _) => (a, v),
        (None, Some((f, v))) => (f, v),
        (None, None) => return keywords_for(&keyword, a.fodot),
    };
    let mut out = vocabulary_items(&source.program, voc, &keyword);
    if matches!(keyword.as_str(), "theory" | "query" | "term") {
        out.extend(variables_in_scope(a, cx.statement, offset));
    }
    out.extend(keywords_for(&keyword, a.fodot));
    out
}

fn find_vocabulary(p: &Program, name: &str) -> Option<VocId> {
    p.vocabularies
        .iter()
        .position(|v| v.name == name)
        .map(|k| VocId(k as u32))
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..Default::default()
    }
}

fn snippet(label: &str, body: &str, detail: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(CompletionItemKind::SNIPPET),
        detail: Some(detail.to_string()),
        insert_text: Some(body.to_string()),
        insert_text_format: Some(InsertTextFormat::SNIPPET),
        ..Default::default()
    }
}

/// The blocks a file is made of.
fn top_level(fodot: bool) -> Vec<CompletionItem> {
    if fodot {
        return vec![
            snippet(
                "vocabulary",
                "vocabulary ${1:V} {\n\t$0\n}",
                "a vocabulary block",
            ),
            snippet(
                "theory",
                "theory ${1:T}:${2:V} {\n\t$0\n}",
                "a theory block",
            ),
            snippet(
                "structure",
                "structure ${1:S}:${2:V} {\n\t$0\n}",
                "a structure block",
            ),
            snippet(
                "display",
                "display {\n\t$0\n}",
                "the consultant's display block",
            ),
            snippet(
                "main",
                "procedure main() {\n\t${0:pretty_print(model_expand(T, S))}\n}",
                "the main block",
            ),
        ];
    }
    vec![
        snippet("vocabulary", "vocabulary ${1:V} {\n\t$0\n}", "a vocabulary block"),
        snippet("theory", "theory ${1:T} : ${2:V} {\n\t$0\n}", "a theory block"),
        snippet("structure", "structure ${1:S} : ${2:V} {\n\t$0\n}", "a structure block"),
        snippet("procedure main", "procedure main() {\n\t${0:printmodels(modelexpand(T, S))}\n}", "the procedure run by `idp FILE`"),
        snippet("query", "query ${1:Q} : ${2:V} {\n\t{ ${3:x} : $0 }\n}", "a query block"),
        snippet("term", "term ${1:t} : ${2:V} {\n\t$0\n}", "a term block"),
        snippet("factlist", "factlist ${1:F} : ${2:V} {\n\t$0\n}", "a factlist block"),
        snippet("namespace", "namespace ${1:N} {\n\t$0\n}", "a namespace"),
        snippet("include", "include <${1:mx}>", "include a file or a library"),
        snippet("LTCvocabulary", "LTCvocabulary ${1:V} {\n\ttype Time isa nat\n\tStart : Time\n\tpartial Next(Time) : Time\n\t$0\n}", "an LTC vocabulary"),
    ]
}

/// The types and symbols of vocabulary `voc` (built-in types too in a vocabulary).
fn vocabulary_items(p: &Program, voc: VocId, keyword: &str) -> Vec<CompletionItem> {
    let v = p.voc(voc);
    let mut out = Vec::new();
    let mut sorts: Vec<SortId> = v.sorts.iter().copied().collect();
    if keyword == "vocabulary" {
        sorts.extend(p.voc(p.std_vocabulary).sorts.iter().copied());
    }
    for s in sorts {
        let sort = p.sort(s);
        out.push(item(
            &sort.name,
            CompletionItemKind::CLASS,
            Some(format!("type {}", sort.name)),
        ));
    }
    if keyword == "vocabulary" {
        return out;
    }
    for &q in &v.preds {
        let pred = p.pred(q);
        if pred.type_of.is_some() {
            continue;
        }
        out.push(item(
            &pred.name,
            CompletionItemKind::FUNCTION,
            Some(super::navigate::declaration_text(p, Symbol::Pred(q))),
        ));
    }
    for &f in &v.funcs {
        let func = p.func(f);
        let kind = if func.constructor_of.is_some() {
            CompletionItemKind::ENUM_MEMBER
        } else if func.args.is_empty() {
            CompletionItemKind::CONSTANT
        } else {
            CompletionItemKind::METHOD
        };
        out.push(item(
            &func.name,
            kind,
            Some(super::navigate::declaration_text(p, Symbol::Func(f))),
        ));
    }
    out
}

/// The variables declared in the statement (from `start`) before the cursor.
fn variables_in_scope(a: &Analysis, start: usize, offset: usize) -> Vec<CompletionItem> {
    let mut out: Vec<CompletionItem> = Vec::new();
    for var in &a.index.vars {
        let at = var.declared.start as usize;
        if var.declared.file != a.file || at < start || at >= offset || var.name.starts_with('_') {
            continue;
        }
        if out.iter().any(|i| i.label == var.name) {
            continue;
        }
        let sort = var.sort.map(|s| a.program.sort(s).name.clone());
        out.push(item(
            &var.name,
            CompletionItemKind::VARIABLE,
            sort.map(|s| format!("{} [{s}]", var.name)),
        ));
    }
    out
}

/// Keywords and built-ins of a block.
fn keywords_for(keyword: &str, fodot: bool) -> Vec<CompletionItem> {
    let words: &[&str] = match (keyword, fodot) {
        ("vocabulary" | "ltcvocabulary", false) => &[
            "type",
            "partial",
            "isa",
            "contains",
            "constructed from",
            "extern",
            "int",
            "nat",
            "float",
            "string",
            "char",
        ],
        ("vocabulary", true) => &["type", "Bool", "Date", "Concept", "var"],
        ("theory" | "query" | "term", false) => &[
            "sum", "prod", "card", "min", "max", "abs", "MIN", "MAX", "SUCC", "PRED", "true",
            "false",
        ],
        ("theory", true) => &[
            "sum", "min", "max", "abs", "in", "true", "false", "if", "then", "else",
        ],
        ("structure" | "factlist", _) => &["true", "false"],
        _ => &[],
    };
    words
        .iter()
        .map(|w| item(w, CompletionItemKind::KEYWORD, None))
        .collect()
}

/// In a procedure: IDP3's Lua built-ins, the file's components, Lua's keywords.
fn procedure_items(a: &Analysis, lua_api: &[String]) -> Vec<CompletionItem> {
    let mut out: Vec<CompletionItem> = Vec::new();
    for (name, c) in &a.program.namespaces[0].members {
        let what = match c {
            crate::sema::Component::Vocabulary(_) => "vocabulary",
            crate::sema::Component::Theory(_) => "theory",
            crate::sema::Component::Structure(_) => "structure",
            crate::sema::Component::Term(_) => "term",
            crate::sema::Component::Query(_) => "query",
            crate::sema::Component::Procedure(_) => "procedure",
            crate::sema::Component::Namespace(_) => "namespace",
        };
        out.push(item(name, CompletionItemKind::MODULE, Some(what.into())));
    }
    for name in lua_api {
        out.push(item(
            name,
            CompletionItemKind::FUNCTION,
            Some("IDP3 built-in".into()),
        ));
    }
    for word in LUA_KEYWORDS {
        out.push(item(word, CompletionItemKind::KEYWORD, None));
    }
    out
}

const LUA_KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
    "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_knows_blocks_comments_and_strings() {
        let text = "vocabulary V { type T }\ntheory T : V {\n  // a { comment\n  { P(x) <- ";
        let cx = context(text, text.len());
        assert!(!cx.quiet);
        assert_eq!(cx.block().unwrap().keyword(), "theory");
        assert_eq!(cx.block().unwrap().vocabulary(), Some("V"));
        assert_eq!(cx.blocks.len(), 2);
        let in_comment = text.find("a {").unwrap();
        assert!(context(text, in_comment).quiet);
        let lua = "procedure main() {\n  print(\"modelexp";
        assert!(context(lua, lua.len()).quiet);
        let lua = "procedure main() {\n  -- T.\n  local t = { 1 }\n  print(";
        let cx = context(lua, lua.len());
        assert_eq!(cx.block().unwrap().keyword(), "procedure");
        assert!(!cx.quiet);
    }
}
