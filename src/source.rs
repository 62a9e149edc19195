//! Positions in the loaded sources: file ids, byte spans, and the table of loaded files (names,
//! texts, and byte offset to line/column mapping). A leaf module: everything that points into
//! the input (the AST, the IR, diagnostics, errors) uses these types.

use std::ops::Range;
use std::sync::Arc;

/// Identifies a loaded source file (an index into the loader's file table).
pub type FileId = u32;

/// A byte range inside one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }
    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
struct SourceFile {
    name: String,
    /// Shared with the parser that reads it (one copy of each text).
    text: Arc<str>,
    /// Byte offsets at which each line starts.
    line_starts: Vec<u32>,
    /// Offsets (sorted) of the characters that stand for a byte that was not UTF-8 in the file
    /// read (each read as its Latin-1 character, see [`SourceMap::add_bytes`]).
    foreign: Vec<u32>,
    /// Whether it was read as IDP-Z3's FO(·) (messages then show FO(·)'s syntax).
    fodot: bool,
}

impl SourceMap {
    /// Adds a file and its text; [`SourceMap::shared_text`] gives the text to read it.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let text = text.into();
        let mut line_starts = vec![0u32];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
            foreign: Vec::new(),
            fodot: false,
        });
        (self.files.len() - 1) as FileId
    }

    /// Adds a file read as bytes: UTF-8 where it is, and each byte that is not part of a
    /// UTF-8 character as its Latin-1 character (U+0080..U+00FF), as IDP3's lexer takes any
    /// byte in a comment or string. Returns the file and its text; [`SourceMap::foreign_at`]
    /// tells the characters that stand for such bytes.
    pub fn add_bytes(&mut self, name: impl Into<String>, bytes: &[u8]) -> (FileId, Arc<str>) {
        let mut text = String::with_capacity(bytes.len() + 16);
        let mut foreign = Vec::new();
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            for &b in chunk.invalid() {
                foreign.push(text.len() as u32);
                text.push(char::from(b));
            }
        }
        let fid = self.add(name, text);
        self.files[fid as usize].foreign = foreign;
        (fid, self.files[fid as usize].text.clone())
    }

    /// Marks `file` as read in IDP-Z3's FO(·).
    pub fn mark_fodot(&mut self, file: FileId) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.fodot = true;
        }
    }

    /// Whether `file` was read in IDP-Z3's FO(·).
    pub fn is_fodot(&self, file: FileId) -> bool {
        self.files.get(file as usize).is_some_and(|f| f.fodot)
    }

    /// Whether the character at `offset` of `file` stands for a byte that was not UTF-8.
    pub fn foreign_at(&self, file: FileId, offset: u32) -> bool {
        self.files
            .get(file as usize)
            .is_some_and(|f| f.foreign.binary_search(&offset).is_ok())
    }

    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file as usize)
            .map(|f| f.name.as_str())
            .unwrap_or("<unknown>")
    }

    pub fn text(&self, file: FileId) -> Option<&str> {
        self.files.get(file as usize).map(|f| &*f.text)
    }

    /// The text a span covers, when its file is known.
    pub fn span_text(&self, span: Span) -> Option<&str> {
        self.text(span.file)?
            .get(span.start as usize..span.end as usize)
    }

    /// The text of `file`, shared (not copied).
    pub fn shared_text(&self, file: FileId) -> Option<Arc<str>> {
        self.files.get(file as usize).map(|f| f.text.clone())
    }

    /// 1-based line and column (columns count characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (u32, u32) {
        let Some(f) = self.files.get(file as usize) else {
            return (0, 0);
        };
        let line = f.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = f.line_starts[line - 1] as usize;
        let end = (offset as usize).min(f.text.len());
        let col = f
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start)
            + 1;
        (line as u32, col as u32)
    }

    /// The text of 1-based line `line` without its leading and trailing blanks (an empty span
    /// at the line's start when it is blank); `None` past the end of the file.
    pub fn line_span(&self, file: FileId, line: u32) -> Option<Span> {
        let f = self.files.get(file as usize)?;
        let start = *f.line_starts.get((line as usize).checked_sub(1)?)? as usize;
        let end = f
            .line_starts
            .get(line as usize)
            .map_or(f.text.len(), |&s| s as usize);
        let text = &f.text[start..end];
        let lead = text.len() - text.trim_start().len();
        let trimmed = text.trim();
        let from = if trimmed.is_empty() {
            start
        } else {
            start + lead
        };
        Some(Span::new(file, from..from + trimmed.len()))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Text on one line, without its comments: runs of white space become one space.
pub fn one_line(text: &str) -> String {
    without_comments(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Source text without its comments (`// ...` to the end of the line, `/* ... */`), each
/// replaced by a space; quoted strings are kept as they are.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, chars.peek(), quoted) {
            ('"', _, _) => {
                quoted = !quoted;
                out.push(c);
            }
            ('/', Some('/'), false) => {
                while chars.next_if(|&n| n != '\n').is_some() {}
                out.push(' ');
            }
            ('/', Some('*'), false) => {
                chars.next();
                let mut previous = ' ';
                for n in chars.by_ref() {
                    if previous == '*' && n == '/' {
                        break;
                    }
                    previous = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}
