//! `idp fmt`: the layout of a `.idp` file made regular, without touching what it says.
//!
//! Only whitespace at the start and end of lines changes, and blank lines: each line is
//! indented four spaces per block it is in (a sentence continued on the next line of a theory
//! one more), trailing blanks go, runs of blank lines become one, and the file ends with one
//! newline. Tokens are never joined, split or moved to another line, so the file parses to the
//! same program. Comments keep their text. The code of a procedure (Lua in IDP3, Python in
//! IDP-Z3's `main`) keeps its own indentation relative to its first level, which moves to the
//! procedure's depth; long strings and long comments stay exactly as written. Formatting a
//! formatted file changes nothing.

/// The blanks that layout changes: spaces and tabs (a form feed or another Unicode space is
/// a character IDP3's lexer reads, and stays).
const BLANK: &[char] = &[' ', '\t'];

/// The indentation of one level.
const UNIT: &str = "    ";

/// What a block is, from the words before its `{`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A theory, or a definition or display block: statements that end with `.`.
    Sentences,
    /// A procedure's code (Lua, or Python for FO(·)).
    Code,
    /// A namespace: it holds blocks.
    Blocks,
    /// Anything else: a vocabulary, structure, set, ...
    Plain,
}

#[derive(Clone, Debug)]
struct Frame {
    kind: Kind,
    /// Inside a [`Kind::Sentences`] block: a statement has begun and not ended.
    open: bool,
    /// Inside [`Kind::Code`]: braces of the code itself (Python's dicts) not yet closed.
    inner: usize,
    /// Inside IDP3's [`Kind::Code`]: the offset of the `}` that ends the procedure, as IDP3's
    /// Lua capture finds it.
    end: Option<usize>,
}

/// How one line of the input is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// At `depth` levels (plus one for a continued statement).
    Indent(usize),
    /// A line of a procedure's code: at `depth` levels plus its own indentation beyond the
    /// code's common one (the body of procedure number `body`).
    Code { depth: usize, body: usize },
    /// Inside a long string or a block comment: kept as written (blanks at the end of a
    /// comment line removed).
    Verbatim { trim: bool },
}

/// Scans the text once and says how to lay out each line.
struct Scanner<'t> {
    text: &'t str,
    fodot: bool,
    /// The offset in `text` of the line being read.
    line_start: usize,
    frames: Vec<Frame>,
    words: Vec<String>,
    /// The closing delimiter of a multi-line token being read: `*/`, `]]`, `"""`, ...
    pending: Option<(String, bool)>,
}

impl Scanner<'_> {
    fn code_mode(&self) -> bool {
        self.frames.iter().any(|f| f.kind == Kind::Code)
    }

    /// The layout of the line `line` (without its newline), then reads it.
    fn line(&mut self, line: &str, bodies: &mut usize) -> Layout {
        let layout = if let Some((_, comment)) = &self.pending {
            Layout::Verbatim { trim: *comment }
        } else if self.code_mode() {
            let lead = line.len() - line.trim_start_matches(BLANK).len();
            let closing = self.frames.last().is_some_and(|f| {
                f.kind == Kind::Code
                    && match f.end {
                        Some(end) => end == self.line_start + lead,
                        None => f.inner == 0 && line[lead..].starts_with('}'),
                    }
            });
            if closing {
                Layout::Indent(self.frames.len() - 1)
            } else if !self.fodot && capture_quirk(&line[lead..]) {
                Layout::Verbatim { trim: false }
            } else {
                let depth = self
                    .frames
                    .iter()
                    .position(|f| f.kind == Kind::Code)
                    .map_or(0, |k| k + 1);
                Layout::Code {
                    depth,
                    body: *bodies,
                }
            }
        } else {
            let trimmed = line.trim_start_matches(BLANK);
            let closing = trimmed.chars().take_while(|&c| c == '}').count();
            let depth = self.frames.len().saturating_sub(closing);
            let continued = closing == 0
                && self
                    .frames
                    .last()
                    .is_some_and(|f| f.kind == Kind::Sentences && f.open)
                && !trimmed.starts_with('{');
            Layout::Indent(depth + usize::from(continued))
        };
        let was_code = self.code_mode();
        self.read(line);
        if was_code && !self.code_mode() {
            *bodies += 1;
        }
        layout
    }

    /// Reads a line's tokens: blocks opened and closed, statements begun and ended,
    /// multi-line tokens begun.
    fn read(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut k = 0;
        while k < bytes.len() {
            if let Some((close, _)) = &self.pending {
                match line[k..].find(close.as_str()) {
                    Some(e) => {
                        k += e + close.len();
                        self.pending = None;
                        continue;
                    }
                    None => return,
                }
            }
            let rest = &line[k..];
            let code = self.code_mode();
            let python = code && self.fodot;
            let lua = code && !self.fodot;
            if rest.starts_with("//") && !python
                || (lua && rest.starts_with("--"))
                || (python && rest.starts_with('#'))
            {
                if lua && rest.starts_with("--[") {
                    if let Some(level) = super::lua_text::long_bracket_level(&rest.as_bytes()[2..])
                    {
                        self.pending = Some((format!("]{}]", "=".repeat(level)), true));
                        k += 2 + level + 2;
                        continue;
                    }
                }
                return;
            }
            if rest.starts_with("/*") && !python {
                self.pending = Some(("*/".into(), true));
                k += 2;
                continue;
            }
            if lua {
                if let Some(level) = super::lua_text::long_bracket_level(rest.as_bytes()) {
                    self.pending = Some((format!("]{}]", "=".repeat(level)), false));
                    k += level + 2;
                    continue;
                }
            }
            if python && (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
                self.pending = Some((rest[..3].to_string(), false));
                k += 3;
                continue;
            }
            if let Some(end) = self.frames.last().and_then(|f| f.end) {
                if self.line_start + k == end {
                    self.end_block();
                    k += 1;
                    continue;
                }
            }
            let c = bytes[k];
            if c == b'"' || (code && c == b'\'') {
                k = super::lua_text::end_of_short_string(bytes, k);
                self.statement_goes_on();
                continue;
            }
            if c.is_ascii_alphabetic() || c == b'_' {
                let start = k;
                while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                    k += 1;
                }
                if !code {
                    self.words.push(line[start..k].to_string());
                    if self.words.len() > 8 {
                        self.words.remove(0);
                    }
                }
                self.statement_goes_on();
                continue;
            }
            match c {
                b'{' => self.open(self.line_start + k),
                b'}' => self.close(),
                b'.' if !code => {
                    let digit_after = bytes.get(k + 1).is_some_and(u8::is_ascii_digit);
                    let range = bytes.get(k + 1) == Some(&b'.');
                    if range {
                        k += 2;
                        continue;
                    }
                    if digit_after && k > 0 && bytes[k - 1].is_ascii_digit() {
                        k += 1;
                        continue;
                    }
                    if let Some(f) = self.frames.last_mut() {
                        f.open = false;
                    }
                    self.words.clear();
                }
                _ if c.is_ascii_whitespace() => {}
                _ => self.statement_goes_on(),
            }
            k += line[k..].chars().next().map_or(1, char::len_utf8);
        }
    }

    fn statement_goes_on(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            if f.kind == Kind::Sentences {
                f.open = true;
            }
        }
    }

    /// A `{` at offset `at` of the text.
    fn open(&mut self, at: usize) {
        if let Some(f) = self.frames.last_mut().filter(|f| f.kind == Kind::Code) {
            if f.end.is_none() {
                f.inner += 1;
            }
            return;
        }
        let kind = match self.frames.last().map(|f| (f.kind, f.open)) {
            None | Some((Kind::Blocks, _)) => self.header_kind(),
            Some((Kind::Sentences, false)) => Kind::Sentences,
            Some(_) => Kind::Plain,
        };
        self.statement_goes_on();
        let end = (kind == Kind::Code && !self.fodot).then(|| {
            let capture = super::lexer::capture_lua(self.text, at + 1);
            capture.end - usize::from(capture.closed)
        });
        self.frames.push(Frame {
            kind,
            open: false,
            inner: 0,
            end,
        });
        self.words.clear();
    }

    /// The kind of a block from the last block keyword before its `{`.
    fn header_kind(&self) -> Kind {
        let keyword = self.words.iter().rev().find(|w| {
            matches!(
                w.as_str(),
                "vocabulary"
                    | "LTCvocabulary"
                    | "theory"
                    | "structure"
                    | "factlist"
                    | "procedure"
                    | "namespace"
                    | "query"
                    | "term"
                    | "display"
            )
        });
        match keyword.map(String::as_str) {
            Some("theory" | "display") => Kind::Sentences,
            Some("procedure") => Kind::Code,
            Some("namespace") => Kind::Blocks,
            _ => Kind::Plain,
        }
    }

    fn close(&mut self) {
        if let Some(f) = self.frames.last_mut().filter(|f| f.kind == Kind::Code) {
            if f.end.is_some() {
                return;
            }
            if f.inner > 0 {
                f.inner -= 1;
                return;
            }
        }
        self.end_block();
    }

    /// Pops the innermost block.
    fn end_block(&mut self) {
        let closed = self.frames.pop();
        self.words.clear();
        if let Some(parent) = self.frames.last_mut() {
            // A definition is a whole statement; a set or an aggregate is part of one.
            if closed.is_some_and(|c| c.kind == Kind::Sentences) && parent.kind == Kind::Sentences {
                parent.open = false;
            }
        }
    }
}

/// Whether a line of Lua code (without its indentation) starts with what IDP3's Lua capture
/// reads differently once blanks come before it: `--` directly before a newline or a byte
/// that ends its run of text (IDP3's own comment), or the word `include` (its include).
fn capture_quirk(code: &str) -> bool {
    let after = |word: &str| code.strip_prefix(word).map(|rest| rest.bytes().next());
    let comment = after("--").is_some_and(|next| next.is_none_or(|b| b"/{}:\n\"'*\r".contains(&b)));
    let include = after("include")
        .is_some_and(|next| next.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_')));
    comment || include
}

/// The formatted text of an IDP3 file (`fodot`: an IDP-Z3 FO(·) file).
pub fn format(text: &str, fodot: bool) -> String {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut scanner = Scanner {
        text,
        fodot,
        line_start: 0,
        frames: Vec::new(),
        words: Vec::new(),
        pending: None,
    };
    let mut bodies = 0;
    let mut layouts: Vec<Layout> = Vec::with_capacity(lines.len());
    for line in text.split('\n') {
        let content = line.strip_suffix('\r').unwrap_or(line);
        layouts.push(scanner.line(content, &mut bodies));
        scanner.line_start += line.len() + 1;
    }
    let common = common_code_indents(&lines, &layouts, bodies + 1);
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for (line, layout) in lines.iter().zip(&layouts) {
        let laid = match *layout {
            Layout::Verbatim { trim: false } => line.to_string(),
            Layout::Verbatim { trim: true } => line.trim_end_matches(BLANK).to_string(),
            _ if line.trim_matches(BLANK).is_empty() => String::new(),
            Layout::Indent(depth) => format!("{}{}", UNIT.repeat(depth), line.trim_matches(BLANK)),
            Layout::Code { depth, body } => {
                let own = line
                    .get(common[body].len()..)
                    .unwrap_or(line.trim_start_matches(BLANK));
                format!("{}{}", UNIT.repeat(depth), own.trim_end_matches(BLANK))
            }
        };
        // Blank lines of code stay (Lua's line numbers in messages stay right).
        let kept = matches!(
            layout,
            Layout::Verbatim { trim: false } | Layout::Code { .. }
        );
        if laid.is_empty() && !kept {
            blank_run += 1;
            continue;
        }
        if blank_run > 0 && !out.is_empty() {
            out.push_str(newline);
        }
        blank_run = 0;
        out.push_str(&laid);
        out.push_str(newline);
    }
    out
}

/// For each procedure body, the leading whitespace its code lines share.
fn common_code_indents(lines: &[&str], layouts: &[Layout], bodies: usize) -> Vec<String> {
    let mut common: Vec<Option<String>> = vec![None; bodies];
    for (line, layout) in lines.iter().zip(layouts) {
        let Layout::Code { body, .. } = *layout else {
            continue;
        };
        if line.trim_matches(BLANK).is_empty() {
            continue;
        }
        let lead = &line[..line.len() - line.trim_start_matches(BLANK).len()];
        common[body] = Some(match common[body].take() {
            None => lead.to_string(),
            Some(c) => c
                .chars()
                .zip(lead.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_indented_and_sentences_continued() {
        let text = "vocabulary V {\ntype T\n  P(T)\n}\ntheory T : V {\n! x : P(x) =>\nP(x).\n  {\n P(x) <- x = x.\n}\n}\n\n\n\nstructure S : V {\n\tT = { 1 ; 2 }   \n}";
        let want = "vocabulary V {\n    type T\n    P(T)\n}\ntheory T : V {\n    ! x : P(x) =>\n        P(x).\n    {\n        P(x) <- x = x.\n    }\n}\n\nstructure S : V {\n    T = { 1 ; 2 }\n}\n";
        assert_eq!(format(text, false), want);
        assert_eq!(format(want, false), want);
    }

    #[test]
    fn code_keeps_its_own_indentation_and_long_strings_stay() {
        let text = "procedure main() {\n\t\tlocal t = {\n\t\t  1 }\n\t\tif x then\n\t\t\tprint([[\n  kept   \n]])\n\t\tend\n}\n";
        let want = "procedure main() {\n    local t = {\n      1 }\n    if x then\n    \tprint([[\n  kept   \n]])\n    end\n}\n";
        assert_eq!(format(text, false), want);
        assert_eq!(format(want, false), want);
    }

    #[test]
    fn comments_keep_their_text_and_numbers_do_not_end_sentences() {
        let text = "theory T : V {\n/* a\n     b  */\n  x = 1.5 &\n y = 2. // done\n}\n";
        let want =
            "theory T : V {\n    /* a\n     b  */\n    x = 1.5 &\n        y = 2. // done\n}\n";
        assert_eq!(format(text, false), want);
    }
}
