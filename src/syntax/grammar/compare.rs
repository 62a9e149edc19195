//! The differential check: the hand-written parser and the grammar must agree on a text.
//!
//! Both read the text as one file, on the parse stage only: an `include` is taken to include
//! nothing (the loader's resolution of includes is not under test). They must give the same
//! verdict (the hand-written parser rejects when it reports an error), and when both accept,
//! the same shape. Inputs nested too deeply for either parser's limits are skipped.

use std::sync::Arc;

use super::{ast, check, Verdict};
use crate::diagnostics::{render_plain, Diagnostics};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::lexer::{IncludeSpec, Includer};
use crate::syntax::parser;

/// How a comparison ended when the parsers agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Both accept the text, with the same shape.
    Accepted,
    /// Both reject it.
    Rejected,
    /// One of the parsers hit a nesting or recursion limit; nothing was compared.
    Skipped,
}

/// The parsers disagree: a description for the test report.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement(pub String);

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Includes nothing, and reports nothing.
struct NoIncludes;

impl Includer for NoIncludes {
    fn include(
        &mut self,
        _: &IncludeSpec,
        _: FileId,
        _: Span,
        _: &mut SourceMap,
        _: &mut Diagnostics,
    ) -> Option<(FileId, Arc<str>)> {
        None
    }
}

/// What the hand-written parser says: the shape, or its first error.
fn hand_written(name: &str, text: &str) -> Result<Result<Vec<String>, String>, ()> {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let fid = sources.add(name, text);
    let text = sources.shared_text(fid).expect("the file just added");
    let file = parser::parse_file(fid, text, &mut sources, &mut diags, &mut NoIncludes);
    if diags.items.iter().any(|d| d.code == "nesting-too-deep") {
        return Err(());
    }
    Ok(match diags.items.iter().find(|d| d.is_error()) {
        Some(d) => Err(render_plain(d, &sources).trim_end().to_string()),
        None => Ok(ast::file_shape(&file)),
    })
}

/// Parses `text` (named `name` in messages) with both parsers and compares.
pub fn compare(name: &str, text: &str) -> Result<Agreement, Disagreement> {
    let Ok(hand) = hand_written(name, text) else {
        return Ok(Agreement::Skipped);
    };
    match (hand, check(text)) {
        (_, Verdict::Limit) => Ok(Agreement::Skipped),
        (Err(_), Verdict::Rejected(_)) => Ok(Agreement::Rejected),
        (Ok(_), Verdict::Rejected(why)) => Err(Disagreement(format!(
            "{name}: the hand-written parser accepts, the grammar rejects:\n{why}"
        ))),
        (Err(why), Verdict::Accepted(_)) => Err(Disagreement(format!(
            "{name}: the grammar accepts, the hand-written parser rejects:\n{why}"
        ))),
        (Ok(mine), Verdict::Accepted(theirs)) => same_shape(name, &mine, &theirs),
    }
}

/// Compares two shapes line by line; the first difference is reported.
fn same_shape(name: &str, hand: &[String], grammar: &[String]) -> Result<Agreement, Disagreement> {
    let at = hand
        .iter()
        .zip(grammar)
        .position(|(a, b)| a != b)
        .or((hand.len() != grammar.len()).then(|| hand.len().min(grammar.len())));
    let Some(i) = at else {
        return Ok(Agreement::Accepted);
    };
    let line = |s: &[String]| s.get(i).cloned().unwrap_or_else(|| "(nothing)".to_string());
    Err(Disagreement(format!(
        "{name}: both accept, with different structure at shape line {}:\n  hand-written: {}\n  grammar:      {}",
        i + 1,
        line(hand),
        line(grammar)
    )))
}
