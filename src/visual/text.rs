//! The terminal renderer: two characters per cell, the top row first, row coordinates on the
//! left, column coordinates below and a legend.
//!
//! In plain mode (stdout is not a terminal, or `unicode = false`) only ASCII is written: walls
//! are `##`, labels and fills their letter, directions `^ > v <` (one) or `| - +` (more), empty
//! cells `.`; a wall between two cells is `|` after the left one or a line of `--` between two
//! rows. In Unicode mode walls are `██`, directions arrows or box-drawing lines, empty cells
//! `·`, and layers are coloured with ANSI escapes.

use crate::visual::{Cell, Frame, Kind, Picture, EAST, NORTH, SOUTH, WEST};

/// The picture as text (ending with a newline).
pub fn render(p: &Picture, unicode: bool) -> String {
    let mut out = format!("{}\n", p.caption);
    let width = p
        .row_labels
        .iter()
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(1);
    // Cells are two characters wide, wider when values are longer (at most 6).
    let longest = p
        .values
        .iter()
        .map(|v| v.chars().count())
        .max()
        .unwrap_or(1);
    let cell_w = longest.clamp(1, 5) + 1;
    for frame in &p.frames {
        render_frame(&mut out, p, frame, (width, cell_w), unicode);
    }
    out.push_str(&legend(p, unicode));
    out
}

/// One frame; `widths` are those of the row labels and of a cell.
fn render_frame(
    out: &mut String,
    p: &Picture,
    frame: &Frame,
    widths: (usize, usize),
    unicode: bool,
) {
    let (width, cell_w) = widths;
    if let Some(t) = &frame.title {
        out.push_str(&format!("{t}:\n"));
    }
    let rows = &frame.cells;
    for (r, (row, label)) in rows.iter().zip(&p.row_labels).enumerate() {
        wall_line(out, rows, r, widths, unicode);
        let mut line = format!("{label:>width$} ");
        for (c, cell) in row.iter().enumerate() {
            let east = has_edge(Some(cell), EAST) || has_edge(row.get(c + 1), WEST);
            line.push_str(&cell_text(p, cell, (east, cell_w), unicode));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    wall_line(out, rows, rows.len(), widths, unicode);
    out.push_str(&column_labels(&p.col_labels, width, cell_w));
}

/// The line of column coordinates under a frame. Every column is labelled when its label is
/// shorter than a cell (so a space separates it from the next); otherwise every k-th column,
/// k cells being wide enough for the longest label and a space (`0   2   4 ... 10  12`).
fn column_labels(labels: &[i64], width: usize, cell_w: usize) -> String {
    let texts: Vec<String> = labels.iter().map(i64::to_string).collect();
    let longest = texts.iter().map(String::len).max().unwrap_or(0);
    let step = if longest < cell_w {
        1
    } else {
        (longest + 1).div_ceil(cell_w)
    };
    let span = step * cell_w;
    let mut line = " ".repeat(width + 1);
    for t in texts.iter().step_by(step) {
        line.push_str(&format!("{t:<span$}"));
    }
    format!("{}\n", line.trim_end())
}

/// Whether a cell has an edge wall on the given side.
fn has_edge(cell: Option<&Cell>, side: u8) -> bool {
    cell.and_then(|c| c.edges)
        .is_some_and(|(_, mask)| mask & side != 0)
}

/// The line of edge walls above row `r` (below the last row when `r` is the number of rows):
/// `--` under every cell with a wall on that side; nothing when there is no such wall.
fn wall_line(
    out: &mut String,
    rows: &[Vec<Cell>],
    r: usize,
    widths: (usize, usize),
    unicode: bool,
) {
    let (width, cell_w) = widths;
    let cols = rows.first().map_or(0, Vec::len);
    let walls: Vec<bool> = (0..cols)
        .map(|c| {
            let above = r
                .checked_sub(1)
                .and_then(|a| rows.get(a))
                .and_then(|row| row.get(c));
            let below = rows.get(r).and_then(|row| row.get(c));
            has_edge(above, SOUTH) || has_edge(below, NORTH)
        })
        .collect();
    if !walls.contains(&true) {
        return;
    }
    let dash = if unicode { "─" } else { "-" }.repeat(cell_w);
    let blank = " ".repeat(cell_w);
    let mut line = " ".repeat(width + 1);
    for w in walls {
        line.push_str(if w { &dash } else { &blank });
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The `cell_w` characters of one cell (with ANSI colour in Unicode mode): the glyph or value,
/// padded, then one character for directions or a wall on its right side (`east`).
fn cell_text(p: &Picture, cell: &Cell, (east, cell_w): (bool, usize), unicode: bool) -> String {
    let first = cell
        .labels
        .first()
        .or(cell.fills.first())
        .map(|&l| &p.layers[l]);
    let (primary, colour, block) = match (first, &cell.value) {
        (Some(l), _) => (
            l.glyph,
            l.colour.as_str(),
            l.block && cell.labels.is_empty(),
        ),
        (None, Some((l, v))) => {
            let colour = if p.layers[*l].tagged {
                p.layers[*l].colour.as_str()
            } else {
                value_colour(p, v)
            };
            (v.chars().next().unwrap_or('?'), colour, false)
        }
        (None, None) => (if unicode { '·' } else { '.' }, "default", false),
    };
    let secondary = match cell.top_dirs() {
        Some((_, mask)) => direction_glyph(mask, unicode),
        None if east => {
            if unicode {
                '│'
            } else {
                '|'
            }
        }
        None if block => primary,
        None => ' ',
    };
    // The glyph repeated (blocks) or padded, or the value padded, to all but the last column.
    let lead = cell_w - 1;
    let body: String = match (&cell.value, first) {
        (Some((_, v)), None) => format!("{:<lead$}", v.chars().take(lead).collect::<String>()),
        _ if block => primary.to_string().repeat(lead),
        _ => format!("{primary:<lead$}"),
    };
    if !unicode {
        return format!("{body}{secondary}");
    }
    let primary = if block && primary == '#' {
        "█".repeat(lead)
    } else {
        body
    };
    let secondary = if block && secondary == '#' {
        '█'
    } else {
        secondary
    };
    let bold = !cell.labels.is_empty();
    format!(
        "{}{primary}{}{}",
        ansi(colour, bold),
        if !cell.dirs.is_empty() {
            ansi(dir_colour(p, cell), false)
        } else {
            String::new()
        },
        reset_after(secondary, colour, cell)
    )
}

/// The second character followed by a reset when any colour was switched on.
fn reset_after(secondary: char, colour: &str, cell: &Cell) -> String {
    if colour == "default" && cell.labels.is_empty() && cell.dirs.is_empty() {
        secondary.to_string()
    } else {
        format!("{secondary}\x1b[0m")
    }
}

fn dir_colour<'a>(p: &'a Picture, cell: &Cell) -> &'a str {
    cell.top_dirs()
        .map(|(l, _)| p.layers[l].colour.as_str())
        .unwrap_or("default")
}

/// The colour of a value: its index in the picture's sorted values picks a palette entry.
fn value_colour<'a>(p: &Picture, v: &str) -> &'a str {
    const VALUES: [&str; 6] = ["red", "green", "yellow", "blue", "magenta", "cyan"];
    let i = p.values.iter().position(|x| x == v).unwrap_or(0);
    VALUES[i % VALUES.len()]
}

/// One arrow for one direction, a line segment for more.
pub fn direction_glyph(mask: u8, unicode: bool) -> char {
    let ascii = match mask {
        NORTH => '^',
        EAST => '>',
        SOUTH => 'v',
        WEST => '<',
        m if m == NORTH | SOUTH => '|',
        m if m == EAST | WEST => '-',
        _ => '+',
    };
    if !unicode {
        return ascii;
    }
    const BOX: [char; 16] = [
        ' ', '↑', '→', '└', '↓', '│', '┌', '├', '←', '┘', '─', '┴', '┐', '┤', '┬', '┼',
    ];
    BOX[usize::from(mask & 15)]
}

/// The ANSI escape switching on a colour (nothing for `default` unless bold).
fn ansi(colour: &str, bold: bool) -> String {
    let code = match colour {
        "black" => Some(30),
        "red" | "darkred" | "crimson" => Some(31),
        "green" | "darkgreen" | "lime" => Some(32),
        "yellow" | "orange" | "gold" | "tan" | "wheat" | "brown" => Some(33),
        "blue" | "navy" | "darkblue" => Some(34),
        "lightblue" | "skyblue" | "lightcyan" => Some(36),
        "magenta" | "purple" | "pink" => Some(35),
        "cyan" | "teal" => Some(36),
        "white" | "silver" | "lightgray" | "lightgrey" => Some(37),
        "grey" | "gray" | "darkgray" | "darkgrey" | "dimgray" | "dimgrey" => Some(90),
        _ => None,
    };
    match (code, bold) {
        (Some(c), true) => format!("\x1b[1;{c}m"),
        (Some(c), false) => format!("\x1b[{c}m"),
        (None, true) => "\x1b[1m".to_string(),
        (None, false) => String::new(),
    }
}

/// `#: Wall  E: Entrance  X: Exit` (walls drawn as blocks in Unicode mode).
fn legend(p: &Picture, unicode: bool) -> String {
    let dir_layers = p.layers.iter().filter(|l| l.kind == Kind::Dirs).count();
    let items: Vec<String> = p
        .layers
        .iter()
        .map(|l| {
            let glyph = match l.kind {
                Kind::Dirs if dir_layers > 1 => "lines".to_string(),
                Kind::Dirs => "arrows".to_string(),
                Kind::Edge => "| --".to_string(),
                Kind::Value if l.tagged => format!("{}<n>", l.glyph),
                Kind::Value => "value".to_string(),
                _ if l.block && unicode => "█".to_string(),
                _ => l.glyph.to_string(),
            };
            format!("{glyph}: {}", l.name)
        })
        .collect();
    if items.is_empty() {
        return "(nothing to draw)\n".to_string();
    }
    format!("{}\n", items.join("  "))
}

#[cfg(test)]
mod tests {
    use super::column_labels;

    #[test]
    fn column_labels_that_fit_and_that_do_not() {
        assert_eq!(column_labels(&[0, 1, 2], 1, 2), "  0 1 2\n");
        let wide: Vec<i64> = (0..12).collect();
        assert_eq!(column_labels(&wide, 2, 2), "   0   2   4   6   8   10\n");
        assert_eq!(column_labels(&[-5, 0, 5], 1, 2), "  -5  5\n");
    }
}
