//! The lexical shapes of Lua that those who read procedure code as text share (the Lua
//! runtime's check of unclosed long brackets, `idp fmt`, the language server): long brackets,
//! short strings, and the names of a chunk outside strings and comments.

/// The level (number of `=`) of the long bracket that `text` starts with (`[[`, `[=[`, ...).
pub fn long_bracket_level(text: &[u8]) -> Option<usize> {
    let rest = text.strip_prefix(b"[")?;
    let level = rest.iter().take_while(|&&b| b == b'=').count();
    (rest.get(level) == Some(&b'[')).then_some(level)
}

/// The index just after the short string that opens at `start` (its quote), or the end of its
/// line when it is not closed.
pub fn end_of_short_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut k = start + 1;
    while k < bytes.len() && bytes[k] != quote && bytes[k] != b'\n' {
        k += if bytes[k] == b'\\' { 2 } else { 1 };
    }
    (k + 1).min(bytes.len())
}

/// The index just after the long bracket of `level` that opens at `start`, or the end.
fn end_of_long_bracket(code: &str, start: usize, level: usize) -> usize {
    let close = format!("]{}]", "=".repeat(level));
    let from = start + level + 2;
    code[from..]
        .find(&close)
        .map_or(code.len(), |e| from + e + close.len())
}

/// The byte ranges of the names in Lua code that are not fields (`a.b`, `a:b`) and not in
/// strings or comments.
pub fn names(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    let mut previous = b' ';
    while k < bytes.len() {
        let c = bytes[k];
        if code[k..].starts_with("--") {
            k = match long_bracket_level(&bytes[k + 2..]) {
                Some(level) => end_of_long_bracket(code, k + 2, level),
                None => code[k..].find('\n').map_or(code.len(), |e| k + e),
            };
            continue;
        }
        if c == b'"' || c == b'\'' {
            k = end_of_short_string(bytes, k);
            previous = b'"';
            continue;
        }
        if let Some(level) = long_bracket_level(&bytes[k..]) {
            k = end_of_long_bracket(code, k, level);
            previous = b']';
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = k;
            while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                k += 1;
            }
            let field = previous == b'.' && !code[..start].ends_with("..") || previous == b':';
            if !field {
                out.push((start, k));
            }
            previous = b'a';
            continue;
        }
        if !c.is_ascii_whitespace() {
            previous = c;
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_leave_out_fields_strings_and_comments() {
        let code = "local m = modelexpand(T, S) -- T again\nprint(\"T\", stdoptions.nbmodels, a..T, [[T]], x:T())";
        let found: Vec<&str> = names(code).iter().map(|&(a, b)| &code[a..b]).collect();
        assert_eq!(
            found,
            [
                "local",
                "m",
                "modelexpand",
                "T",
                "S",
                "print",
                "stdoptions",
                "a",
                "T",
                "x"
            ]
        );
    }
}
