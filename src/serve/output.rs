//! What a run printed, cut into parts for the page: plain text, models (IDP3's printed
//! structures, read back into one table per symbol) and pictures (the SVG documents that
//! `visualize` prints under `--message-format json`, with their number of frames).

use serde::Serialize;

/// Ranges such as `1..4` are listed element by element up to this many elements.
const MAX_RANGE: i64 = 10_000;

/// Models turned into tables at most; the others are counted in a closing note (their text,
/// blank lines included, is dropped).
pub const MAX_MODELS: usize = 300;

/// One part of the output.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Segment {
    Text { text: String },
    Model(Model),
    Picture { svg: String, frames: usize },
}

/// A printed structure.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Model {
    /// `Model 3` when printed by `printmodels`, else the structure's own name or "".
    pub title: String,
    pub vocabulary: String,
    pub symbols: Vec<Symbol>,
}

/// One symbol's interpretation: its rows (tuples; a function's value is the last column), or
/// the single value of a constant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// `<ct>`, `<cf>` or `<u>` in a three-valued structure, else "".
    pub part: String,
    /// Whether rows were printed as `args->value` (a function).
    pub function: bool,
    pub rows: Vec<Vec<String>>,
    /// The value of a constant (`Entrance = P(1,0)`), when not a table.
    pub value: Option<String>,
}

/// Cuts `stdout` into segments.
pub fn segments(stdout: &str) -> Vec<Segment> {
    let lines: Vec<&str> = stdout.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut text = String::new();
    let (mut models, mut i) = (0, 0);
    while i < lines.len() {
        let line = lines[i].trim_end_matches(['\n', '\r']);
        if let Some(vocabulary) = structure_header(line) {
            if let Some(end) = block_end(&lines, i + 1, "}") {
                let title = take_title(&mut text);
                let header = i;
                models += 1;
                i = end + 1;
                if models > MAX_MODELS {
                    if text.trim().is_empty() {
                        text.clear();
                    }
                    continue;
                }
                flush_text(&mut text, &mut out);
                out.push(Segment::Model(Model {
                    title,
                    vocabulary,
                    symbols: lines[header + 1..end]
                        .iter()
                        .filter_map(|l| symbol(l.trim()))
                        .collect(),
                }));
                continue;
            }
        }
        if line.starts_with("<svg ") {
            if let Some(end) = block_end(&lines, i, "</svg>") {
                flush_text(&mut text, &mut out);
                let svg: String = lines[i..=end].concat();
                let frames = svg.matches("<g class=\"frame\"").count().max(1);
                out.push(Segment::Picture { svg, frames });
                i = end + 1;
                continue;
            }
        }
        text.push_str(lines[i]);
        i += 1;
    }
    if text.trim().is_empty() {
        text.clear();
    }
    let total = models.max(stated_count(stdout).unwrap_or(0));
    if total > MAX_MODELS.min(models) {
        let shown = MAX_MODELS.min(models);
        text.push_str(&format!(
            "({} more models are not shown as tables; {shown} are)\n",
            total - shown
        ));
    }
    flush_text(&mut text, &mut out);
    out
}

/// The K of the last line `Number of models: K`, if any.
fn stated_count(stdout: &str) -> Option<usize> {
    stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Number of models: "))
        .and_then(|k| k.trim().parse().ok())
}

/// The vocabulary of a line `structure NAME : VOC {` (the name may be empty).
fn structure_header(line: &str) -> Option<String> {
    let rest = line.strip_prefix("structure ")?;
    let rest = rest.strip_suffix('{')?.trim_end();
    let (_, voc) = rest.split_once(':')?;
    let voc = voc.trim();
    (!voc.is_empty() && !voc.contains(' ')).then(|| voc.to_string())
}

/// The index of the first line from `from` that is exactly `end` (after trimming).
fn block_end(lines: &[&str], from: usize, end: &str) -> Option<usize> {
    (from..lines.len()).find(|&j| lines[j].trim_end() == end)
}

/// Removes a trailing `Model N` / `=======` heading from `text` and returns `Model N`.
fn take_title(text: &mut String) -> String {
    let trimmed = text.trim_end_matches('\n');
    let mut rest = trimmed.rsplitn(3, '\n');
    let (Some(rule), Some(title)) = (rest.next(), rest.next()) else {
        return String::new();
    };
    if !rule.is_empty() && rule.chars().all(|c| c == '=') && title.starts_with("Model ") {
        let title = title.to_string();
        let keep = rest.next().map(|s| s.len() + 1).unwrap_or(0);
        text.truncate(keep);
        return title;
    }
    String::new()
}

fn flush_text(text: &mut String, out: &mut Vec<Segment>) {
    if !text.trim().is_empty() {
        out.push(Segment::Text {
            text: std::mem::take(text),
        });
    }
    text.clear();
}

/// One line `Name = { ... }`, `Name<ct> = { ... }` or `Name = value`.
fn symbol(line: &str) -> Option<Symbol> {
    let (head, value) = line.split_once(" = ")?;
    let (name, part) = match head.find('<') {
        Some(k) if head.ends_with('>') => (&head[..k], &head[k..]),
        _ => (head, ""),
    };
    if name.is_empty() || name.contains(' ') {
        return None;
    }
    let value = value.trim();
    let mut s = Symbol {
        name: name.to_string(),
        part: part.to_string(),
        function: false,
        rows: Vec::new(),
        value: None,
    };
    match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
        Some(body) => {
            for tuple in split_top(body, ';') {
                let tuple = tuple.trim();
                if tuple.is_empty() {
                    continue;
                }
                if let Some(range) = expand_range(tuple) {
                    s.rows.extend(range.into_iter().map(|x| vec![x]));
                    continue;
                }
                let (args, result) = match split_arrow(tuple) {
                    Some((a, r)) => (a, Some(r)),
                    None => (tuple, None),
                };
                let mut row: Vec<String> = split_top(args, ',')
                    .into_iter()
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect();
                if let Some(r) = result {
                    s.function = true;
                    row.push(r.trim().to_string());
                }
                s.rows.push(row);
            }
        }
        None => s.value = Some(value.to_string()),
    }
    Some(s)
}

/// `lo..hi` of integers, listed, when small enough.
fn expand_range(tuple: &str) -> Option<Vec<String>> {
    let (lo, hi) = tuple.split_once("..")?;
    let (lo, hi): (i64, i64) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    if hi < lo || hi - lo >= MAX_RANGE {
        return None;
    }
    Some((lo..=hi).map(|x| x.to_string()).collect())
}

/// Splits at `sep` outside parentheses and string quotes.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0);
    for (k, c) in text.char_indices() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&text[start..k]);
                start = k + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// `args->value` split at the last top-level `->`.
fn split_arrow(tuple: &str) -> Option<(&str, &str)> {
    let (mut depth, mut quoted) = (0i32, false);
    let bytes = tuple.as_bytes();
    let mut found = None;
    for k in 0..bytes.len() {
        match bytes[k] {
            b'"' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => depth -= 1,
            b'-' if !quoted && depth == 0 && bytes.get(k + 1) == Some(&b'>') => found = Some(k),
            _ => {}
        }
    }
    found.map(|k| (&tuple[..k], &tuple[k + 2..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_MODELS: &str = "Number of models: 2\nModel 1\n=======\nstructure  : V {\n  Colour = { \"blue\"; \"green\" }\n  Vertex = { 1..3 }\n  Edge = { 1,2; 1,3 }\n  Colouring = { 1->\"blue\"; 2->\"green\"; 3->\"green\" }\n  Start = P(1,0)\n}\n\nModel 2\n=======\nstructure  : V {\n  Edge<ct> = { P(1,0),P(1,1) }\n}\n";

    #[test]
    fn printed_models_become_tables() {
        let segs = segments(TWO_MODELS);
        assert_eq!(segs.len(), 3);
        assert_eq!(
            segs[0],
            Segment::Text {
                text: "Number of models: 2\n".into()
            }
        );
        let Segment::Model(m) = &segs[1] else {
            panic!("{segs:?}")
        };
        assert_eq!((m.title.as_str(), m.vocabulary.as_str()), ("Model 1", "V"));
        let names: Vec<&str> = m.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Colour", "Vertex", "Edge", "Colouring", "Start"]);
        assert_eq!(m.symbols[1].rows, [["1"], ["2"], ["3"]]);
        assert_eq!(m.symbols[2].rows, [["1", "2"], ["1", "3"]]);
        assert!(m.symbols[3].function);
        assert_eq!(m.symbols[3].rows[0], ["1", "\"blue\""]);
        assert_eq!(m.symbols[4].value.as_deref(), Some("P(1,0)"));
        let Segment::Model(m2) = &segs[2] else {
            panic!("{segs:?}")
        };
        assert_eq!(m2.title, "Model 2");
        assert_eq!(m2.symbols[0].part, "<ct>");
        assert_eq!(m2.symbols[0].rows, [["P(1,0)", "P(1,1)"]]);
    }

    #[test]
    fn svg_documents_become_pictures() {
        let out = "before\n<svg xmlns=\"x\">\n<g class=\"frame\" a>\n</g>\n<g class=\"frame\" b>\n</g>\n</svg>\nafter\n";
        let segs = segments(out);
        assert_eq!(segs.len(), 3);
        let Segment::Picture { svg, frames } = &segs[1] else {
            panic!("{segs:?}")
        };
        assert_eq!(*frames, 2);
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert_eq!(
            segs[2],
            Segment::Text {
                text: "after\n".into()
            }
        );
    }

    #[test]
    fn models_past_the_limit_are_counted() {
        let one = "structure  : V {\n  P = { 1 }\n}\n";
        let segs = segments(&format!("{}\n", one.repeat(MAX_MODELS + 3)));
        assert_eq!(segs.len(), MAX_MODELS + 1);
        assert_eq!(
            segs[MAX_MODELS],
            Segment::Text {
                text: "(3 more models are not shown as tables; 300 are)\n".into()
            }
        );
        // The count printed counts the models whose text was not kept.
        let printed = format!("{}\nNumber of models: 1000\n", one.repeat(MAX_MODELS + 3));
        let segs = segments(&printed);
        assert_eq!(
            segs[MAX_MODELS],
            Segment::Text {
                text:
                    "\nNumber of models: 1000\n(700 more models are not shown as tables; 300 are)\n"
                        .into()
            }
        );
    }

    #[test]
    fn unfinished_blocks_stay_text() {
        let out = "structure  : V {\n  P = { 1 }\n";
        assert_eq!(segments(out), [Segment::Text { text: out.into() }]);
    }

    #[test]
    fn quotes_and_parentheses_protect_separators() {
        assert_eq!(
            split_top("\"a;b\"; P(1;2); c", ';'),
            ["\"a;b\"", " P(1;2)", " c"]
        );
        assert_eq!(
            split_arrow("P(1,0)->\"x->y\""),
            Some(("P(1,0)", "\"x->y\""))
        );
    }
}
