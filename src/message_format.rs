//! `--message-format json`: output for programs that drive `idp`, such as `idp serve`.
//!
//! Every machine-readable line is one JSON object on stderr with a `"$idp"` field naming its
//! kind, so a reader tells them apart from text that procedures write:
//!
//! * `{"$idp":"diagnostic", "severity", "code", "message", "label", "hint", "file", "line",
//!   "col", "end_line", "end_col", "from", "to", "text"}` — one per diagnostic, with the same
//!   code, message and hint as the plain form (`text`); `from`/`to` count UTF-16 code units
//!   from the start of the file (what browser editors count), lines and columns start at 1;
//! * `{"$idp":"summary", "vocabularies", "theories", "structures", "terms", "procedures"}` —
//!   the names of the global namespace, after the diagnostics;
//! * `{"$idp":"progress", "text"}` — the progress line of a long inference, four times a
//!   second (see [`crate::progress`]).
//!
//! The mode also makes `visualize` print its pictures as SVG documents on stdout instead of
//! text pictures ([`crate::visual::Options::svg_on_stdout`], from [`enabled`]); no file is written, so this works
//! under `--sandbox`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};

use crate::diagnostics::{self, Diagnostic, Severity};
use crate::sema::{Component, Program};
use crate::source::SourceMap;

/// Whether the process writes machine output (set once by the command line).
static MACHINE_OUTPUT: AtomicBool = AtomicBool::new(false);

/// Switches the process to machine output: SVG pictures on stdout (the command line shows
/// its run's progress as machine lines).
pub fn enable() {
    MACHINE_OUTPUT.store(true, Ordering::Relaxed);
}

/// Whether the process writes machine output (`--message-format json`).
pub fn enabled() -> bool {
    MACHINE_OUTPUT.load(Ordering::Relaxed)
}

/// One diagnostic as a JSON line (ends with a newline).
pub fn diagnostic_line(d: &Diagnostic, sources: &SourceMap) -> String {
    let mut obj = json!({
        "$idp": "diagnostic",
        "severity": match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "code": d.code,
        "message": d.message,
        "label": d.label,
        "hint": d.hint,
        "text": diagnostics::render_plain(d, sources).trim_end(),
    });
    if let Some(span) = d.span {
        let (line, col) = sources.line_col(span.file, span.start);
        let (end_line, end_col) = sources.line_col(span.file, span.end.max(span.start));
        let text = sources.text(span.file).unwrap_or("");
        let from = utf16_offset(text, span.start as usize);
        let to = utf16_offset(text, span.end as usize).max(from);
        let fields = [
            ("file", json!(sources.name(span.file))),
            ("line", json!(line)),
            ("col", json!(col)),
            ("end_line", json!(end_line)),
            ("end_col", json!(end_col)),
            ("from", json!(from)),
            ("to", json!(to)),
        ];
        if let Value::Object(map) = &mut obj {
            for (k, v) in fields {
                map.insert(k.to_string(), v);
            }
        }
    }
    format!("{obj}\n")
}

/// The number of UTF-16 code units before byte `offset` of `text` (clamped to the text, and
/// to a character boundary).
fn utf16_offset(text: &str, offset: usize) -> usize {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].encode_utf16().count()
}

/// The names of the global namespace's components, by kind, as a JSON line.
pub fn summary_line(program: &Program) -> String {
    let mut kinds: [(&str, Vec<&str>); 5] = [
        ("vocabularies", vec![]),
        ("theories", vec![]),
        ("structures", vec![]),
        ("terms", vec![]),
        ("procedures", vec![]),
    ];
    if let Some(global) = program.namespaces.first() {
        for (name, component) in &global.members {
            let slot = match component {
                Component::Vocabulary(_) => 0,
                Component::Theory(_) => 1,
                Component::Structure(_) => 2,
                Component::Term(_) => 3,
                Component::Procedure(_) => 4,
                Component::Query(_) | Component::Namespace(_) => continue,
            };
            kinds[slot].1.push(name);
        }
    }
    let mut obj = serde_json::Map::new();
    obj.insert("$idp".into(), json!("summary"));
    for (kind, names) in kinds {
        obj.insert(kind.into(), json!(names));
    }
    format!("{}\n", Value::Object(obj))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_offsets_count_code_units() {
        assert_eq!(utf16_offset("abc", 2), 2);
        // 'é' is two bytes and one code unit; '𝔸' four bytes and two code units.
        assert_eq!(utf16_offset("é𝔸x", 6), 3);
        assert_eq!(utf16_offset("é", 1), 0);
        assert_eq!(utf16_offset("ab", 99), 2);
    }

    #[test]
    fn a_diagnostic_line_has_position_code_and_hint() {
        let mut sources = SourceMap::default();
        let file = sources.add("t.idp", "theory T : V {\n  P(x).\n}\n");
        let d = Diagnostic::error(
            "unknown-symbol",
            "unknown predicate P",
            Some(crate::source::Span::new(file, 17..18)),
        )
        .with_hint("declare P in V");
        let line = diagnostic_line(&d, &sources);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["$idp"], "diagnostic");
        assert_eq!(v["code"], "unknown-symbol");
        assert_eq!(v["line"], 2);
        assert_eq!(v["col"], 3);
        assert_eq!(v["from"], 17);
        assert_eq!(v["to"], 18);
        assert_eq!(v["hint"], "declare P in V");
        assert_eq!(
            v["text"],
            "Error: unknown predicate P At t.idp:2:3 [unknown-symbol]\n  hint: declare P in V"
        );
    }
}
