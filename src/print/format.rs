//! The formatter with its proof: a file laid out by [`crate::syntax::format`] is read again and
//! must give the same program (printed the same, with the same messages) as before, or the
//! layout is refused. `idp fmt` and the language server's formatting both go through here.

use crate::diagnostics::Diagnostics;
use crate::syntax::Stack;

/// What a text reads as: its dialect, its program printed, and its messages (without
/// positions, which a new layout moves).
fn reading(name: &str, text: &str, stack: Stack) -> (bool, String, Vec<String>) {
    let mut sources = crate::source::SourceMap::default();
    let mut diags = Diagnostics::default();
    let no_std = |_: &str| Some(String::new());
    let loaded = crate::syntax::load_with(
        vec![(name.to_string(), text.as_bytes().to_vec())],
        &no_std,
        false,
        None,
        stack,
        &mut sources,
        &mut diags,
    );
    let program = crate::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    // Procedure code moves with its block and loses blanks at line ends: only those blanks
    // may differ.
    let printed = if diags.has_errors() {
        String::new()
    } else {
        super::program_to_string(&program)
            .lines()
            .map(|l| l.trim_matches([' ', '\t']))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let messages = diags
        .sorted()
        .iter()
        .map(|d| format!("{} {}", d.code, without_positions(&d.message)))
        .collect();
    (loaded.fodot, printed, messages)
}

/// A message without the `line:col` positions it quotes (`... at f.idp:7:3`).
fn without_positions(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == ':')
            {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The formatted text of file `name`, or why it is not given: the layout would change what
/// the file says (a defect of the formatter, never to be written out).
pub fn formatted(name: &str, text: &str, stack: Stack) -> Result<String, String> {
    let before = reading(name, text, stack);
    let out = crate::syntax::format::format(text, before.0);
    if out == text {
        return Ok(out);
    }
    let after = reading(name, &out, stack);
    if after != before {
        return Err(format!(
            "{name}: not formatted: the new layout would read differently (a defect of idp fmt; \
             please report it with the file)"
        ));
    }
    Ok(out)
}
