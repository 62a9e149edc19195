//! Positions in a document as the Language Server Protocol counts them: lines from 0 and
//! columns in UTF-16 code units, converted to and from the byte offsets that spans use; and
//! the edits an editor sends, applied to the text.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// The line starts of one text, to convert between byte offsets and positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(k, _)| k + 1));
        LineIndex { starts }
    }

    /// The position of byte `offset` (clamped to the text and to a character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = text[self.starts[line]..offset].encode_utf16().count();
        Position::new(line as u32, column as u32)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }

    /// The byte offset of `position` (a column past the line's end is its end; a line past
    /// the text's end is the text's end).
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let mut units = 0u32;
        for (k, c) in text[start..end].char_indices() {
            if units >= position.character {
                return start + k;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

/// Applies the changes an editor sent (whole texts or ranges) in order.
pub fn apply_changes(text: &mut String, changes: Vec<TextDocumentContentChangeEvent>) {
    for change in changes {
        match change.range {
            None => *text = change.text,
            Some(range) => {
                let index = LineIndex::new(text);
                let start = index.offset(text, range.start);
                let end = index.offset(text, range.end).max(start);
                text.replace_range(start..end, &change.text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_offsets_come_back() {
        let text = "ab\n∀x𝔸: P\n";
        let index = LineIndex::new(text);
        let colon = text.find(':').unwrap();
        assert_eq!(index.position(text, colon), Position::new(1, 4));
        assert_eq!(index.offset(text, Position::new(1, 4)), colon);
        assert_eq!(index.offset(text, Position::new(1, 99)), text.len() - 1);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len());
        assert_eq!(index.position(text, text.len()), Position::new(2, 0));
    }

    #[test]
    fn ranged_changes_edit_the_text_in_order() {
        let mut text = String::from("theory T : V {\n  P.\n}\n");
        let change = |l1, c1, l2, c2, t: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: t.to_string(),
        };
        apply_changes(
            &mut text,
            vec![change(1, 2, 1, 3, "Q"), change(1, 3, 1, 3, "(x)")],
        );
        assert_eq!(text, "theory T : V {\n  Q(x).\n}\n");
    }
}
