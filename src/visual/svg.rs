//! The SVG renderer: one square per cell, frames stacked vertically, a legend below.
//!
//! Every cell is a `<rect class="cell">` carrying `data-row`, `data-col` (the coordinates shown
//! beside the grid) and `data-layers` (the names of the symbols drawn in it, space-separated),
//! so that tests and scripts can read the picture back. Walls are filled with their colour,
//! values colour the cell, tagged values (`G1`, `k1`) are a square (barriers such as gates) or
//! a disc in their symbol's colour (`class="tag"`), labels are a disc with the letter,
//! directions are lines from the centre to the sides (`class="dir"`): thin ones for a single
//! direction symbol (a path), or pipes for several, each lower symbol wider and drawn first
//! (Overflow's water inside its pipes).

use std::fmt::Write;

use crate::visual::{is_barrier_name, Cell, Frame, Kind, Layer, Picture, EAST, NORTH, SOUTH, WEST};

const CELL: usize = 28;
const MARGIN: usize = 30;
const TITLE: usize = 22;
/// The colour of a cell with nothing in it.
const EMPTY: &str = "#f4f4f4";

/// The picture as a standalone SVG document.
pub fn render(p: &Picture) -> String {
    let cols = p.col_labels.len();
    let rows = p.row_labels.len();
    let frame_h = TITLE + rows * CELL + 20;
    let frame_w = MARGIN + cols * CELL + 16;
    // Frames side by side, wrapping after about 760 pixels.
    let per_row = (760 / frame_w).clamp(1, p.frames.len().max(1));
    let frame_rows = p.frames.len().div_ceil(per_row);
    let legend_h = 20 * p.layers.len().max(1) + 10;
    let width = (per_row * frame_w).max(260);
    let height = TITLE + frame_rows * frame_h + legend_h;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"14\">"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>"
    );
    let _ = writeln!(out, "<text x=\"4\" y=\"16\">{}</text>", escape(&p.caption));
    for (i, frame) in p.frames.iter().enumerate() {
        let (left, top) = ((i % per_row) * frame_w, TITLE + (i / per_row) * frame_h);
        let _ = writeln!(
            out,
            "<g class=\"frame\" transform=\"translate({left},{top})\">"
        );
        frame_svg(&mut out, p, frame);
        out.push_str("</g>\n");
    }
    legend_svg(&mut out, p, TITLE + frame_rows * frame_h);
    out.push_str("</svg>\n");
    out
}

/// One frame at the origin (the caller translates it).
fn frame_svg(out: &mut String, p: &Picture, frame: &Frame) {
    let top = 0;
    if let Some(t) = &frame.title {
        let _ = writeln!(out, "<text x=\"4\" y=\"{}\">{}</text>", top + 16, escape(t));
    }
    let y0 = top + TITLE;
    for (r, (row, rl)) in frame.cells.iter().zip(&p.row_labels).enumerate() {
        let y = y0 + r * CELL;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"gray\">{rl}</text>",
            MARGIN - 6,
            y + CELL / 2 + 5
        );
        for (c, (cell, cl)) in row.iter().zip(&p.col_labels).enumerate() {
            cell_svg(out, p, cell, MARGIN + c * CELL, y, (*rl, *cl));
        }
    }
    // Directions, edge walls and labels after all squares, so that no square covers them;
    // the directions of the last direction layer first, so that the first is drawn on top
    // (water over pipes).
    let ranks = dirs_ranks(p);
    let depth = ranks.iter().flatten().count();
    for rank in (0..depth).rev() {
        for (r, row) in frame.cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                for &(l, mask) in cell.dirs.iter().filter(|d| ranks[d.0] == Some(rank)) {
                    let (cx, cy) = (MARGIN + c * CELL + CELL / 2, y0 + r * CELL + CELL / 2);
                    let colour = css_colour(&p.layers[l].colour, false);
                    dirs_svg(out, &colour, mask, (cx, cy), (rank, depth));
                }
            }
        }
    }
    for (r, row) in frame.cells.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            overlay_svg(out, p, cell, MARGIN + c * CELL, y0 + r * CELL);
        }
    }
    let yl = y0 + p.row_labels.len() * CELL + 14;
    for (c, cl) in p.col_labels.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{yl}\" text-anchor=\"middle\" fill=\"gray\" font-size=\"11\">{cl}</text>",
            MARGIN + c * CELL + CELL / 2
        );
    }
}

/// One cell: the square, then its fill's glyph or its value.
fn cell_svg(out: &mut String, p: &Picture, cell: &Cell, x: usize, y: usize, at: (i64, i64)) {
    let names = layer_names(p, cell);
    let fill = match (cell.fills.first(), &cell.value) {
        (Some(&l), _) => css_colour(&p.layers[l].colour, true),
        (None, Some((l, v))) if !p.layers[*l].tagged => value_fill(p, v),
        _ => EMPTY.to_string(),
    };
    let _ = writeln!(
        out,
        "<rect class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-layers=\"{}\" x=\"{x}\" y=\"{y}\" \
         width=\"{CELL}\" height=\"{CELL}\" fill=\"{}\" stroke=\"#cccccc\"/>",
        at.0,
        at.1,
        escape(&names),
        escape(&fill)
    );
    let (cx, cy) = (x + CELL / 2, y + CELL / 2);
    if let Some(&l) = cell.fills.first() {
        let layer = &p.layers[l];
        // A cell with directions shows them instead (the pipes of a tile, a path).
        if !layer.block && cell.labels.is_empty() && cell.dirs.is_empty() {
            let _ = writeln!(
                out,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" fill=\"white\">{}</text>",
                cy + 5,
                escape(&layer.glyph.to_string())
            );
        }
    } else if let (Some((l, v)), true) = (&cell.value, cell.labels.is_empty()) {
        if p.layers[*l].tagged {
            return;
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"black\">{}</text>",
            x + 3,
            y + 11,
            escape(v)
        );
    }
}

/// What is drawn over the squares and directions: edge walls, a tagged value, the label.
fn overlay_svg(out: &mut String, p: &Picture, cell: &Cell, x: usize, y: usize) {
    let (cx, cy) = (x + CELL / 2, y + CELL / 2);
    if let (Some((l, v)), true) = (&cell.value, cell.fills.is_empty() && cell.labels.is_empty()) {
        if p.layers[*l].tagged {
            tagged_svg(out, &p.layers[*l], v, x, y);
        }
    }
    if let Some((l, mask)) = cell.edges {
        edges_svg(out, &css_colour(&p.layers[l].colour, true), mask, x, y);
    }
    if let Some(&l) = cell.labels.first() {
        let layer = &p.layers[l];
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{}\"/>\n<text x=\"{cx}\" y=\"{}\" \
             text-anchor=\"middle\" fill=\"white\" font-weight=\"bold\">{}</text>",
            CELL / 2 - 3,
            escape(&css_colour(&layer.colour, false)),
            cy + 5,
            escape(&layer.glyph.to_string())
        );
    }
}

/// A tagged value (`G1`, `k2`): a square for barriers (gates, doors), a disc otherwise, in
/// the layer's colour, with the glyph and value in white.
fn tagged_svg(out: &mut String, layer: &Layer, v: &str, x: usize, y: usize) {
    let colour = escape(&css_colour(&layer.colour, false));
    let (cx, cy) = (x + CELL / 2, y + CELL / 2);
    if is_barrier_name(&layer.name) {
        let _ = writeln!(
            out,
            "<rect class=\"tag\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"{colour}\"/>",
            x + 2,
            y + 2,
            CELL - 4,
            CELL - 4
        );
    } else {
        let _ = writeln!(
            out,
            "<circle class=\"tag\" cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{colour}\"/>",
            CELL / 2 - 2
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" fill=\"white\" font-weight=\"bold\" \
         font-size=\"12\">{}</text>",
        cy + 4,
        escape(v)
    );
}

/// For each layer, its rank among the direction layers (0 for the first), or `None`.
fn dirs_ranks(p: &Picture) -> Vec<Option<usize>> {
    let mut next = 0;
    p.layers
        .iter()
        .map(|l| {
            (l.kind == Kind::Dirs).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Lines from the centre of the cell to the middle of each side in the mask. With one
/// direction layer (a path) the lines are thin with round ends, and a single direction reaches
/// the centre of the neighbouring cell. With several (pipes and the water in them) each layer
/// below the first is wider, so that the ones above show inside it; the lines have square ends
/// and a disc at the centre joins them, and those of the lower layers stop a pixel short of the
/// side, so that every tile's own pipes show.
fn dirs_svg(
    out: &mut String,
    colour: &str,
    mask: u8,
    (cx, cy): (usize, usize),
    (rank, depth): (usize, usize),
) {
    let colour = escape(colour);
    let (h, width, cap) = match depth {
        1 if mask.count_ones() == 1 => (CELL, 4, "round"),
        1 => (CELL / 2, 4, "round"),
        _ if rank == 0 => (CELL / 2, 6, "butt"),
        _ => (CELL / 2 - 1, 6 + 6 * rank, "butt"),
    };
    let ends = [
        (NORTH, cx, cy - h),
        (EAST, cx + h, cy),
        (SOUTH, cx, cy + h),
        (WEST, cx - h, cy),
    ];
    for (bit, ex, ey) in ends {
        if mask & bit != 0 {
            let _ = writeln!(
                out,
                "<line class=\"dir\" x1=\"{cx}\" y1=\"{cy}\" x2=\"{ex}\" y2=\"{ey}\" stroke=\"{colour}\" \
                 stroke-width=\"{width}\" stroke-linecap=\"{cap}\"/>"
            );
        }
    }
    if depth > 1 {
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{colour}\"/>",
            width as f64 / 2.0
        );
    }
}

/// Thick lines on the sides of the cell in the mask.
fn edges_svg(out: &mut String, colour: &str, mask: u8, x: usize, y: usize) {
    let sides = [
        (NORTH, x, y, x + CELL, y),
        (EAST, x + CELL, y, x + CELL, y + CELL),
        (SOUTH, x, y + CELL, x + CELL, y + CELL),
        (WEST, x, y, x, y + CELL),
    ];
    for (bit, x1, y1, x2, y2) in sides {
        if mask & bit != 0 {
            let _ = writeln!(
                out,
                "<line class=\"edge\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{}\" \
                 stroke-width=\"5\" stroke-linecap=\"square\"/>",
                escape(colour)
            );
        }
    }
}

fn legend_svg(out: &mut String, p: &Picture, top: usize) {
    for (i, l) in p.layers.iter().enumerate() {
        let y = top + 6 + i * 20;
        // A value layer has one colour per value: its swatch shows the first few.
        let swatches: Vec<String> = if l.kind == Kind::Value && !l.tagged {
            p.values.iter().take(4).map(|v| value_fill(p, v)).collect()
        } else {
            vec![css_colour(&l.colour, l.block)]
        };
        for (k, colour) in swatches.iter().enumerate() {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"14\" fill=\"{}\"/>",
                4 + k * 14 / swatches.len(),
                14 / swatches.len(),
                escape(colour)
            );
        }
        let glyph = match l.kind {
            Kind::Value if l.tagged => format!("{}<n> ", l.glyph),
            Kind::Value => String::new(),
            _ => format!("{} ", l.glyph),
        };
        let _ = writeln!(
            out,
            "<text x=\"24\" y=\"{}\">{}{}</text>",
            y + 12,
            escape(&glyph),
            escape(&l.name)
        );
    }
}

/// The names of the layers drawn in a cell, space-separated.
fn layer_names(p: &Picture, cell: &Cell) -> String {
    let mut names: Vec<&str> = cell
        .labels
        .iter()
        .chain(&cell.fills)
        .map(|&l| p.layers[l].name.as_str())
        .collect();
    for &(l, _) in &cell.dirs {
        names.push(&p.layers[l].name);
    }
    if let Some((l, _)) = &cell.value {
        names.push(&p.layers[*l].name);
    }
    names.join(" ")
}

/// A CSS colour: `default` is near-black for blocks and dark grey otherwise.
fn css_colour(c: &str, block: bool) -> String {
    match c {
        "default" if block => "#333333".to_string(),
        "default" => "#555555".to_string(),
        other => other.to_string(),
    }
}

/// A light background for a value (its index in the sorted values picks it).
fn value_fill(p: &Picture, v: &str) -> String {
    const FILLS: [&str; 6] = [
        "#f8b4b4", "#b4e8b4", "#f8f0a0", "#b4c8f8", "#e8b4e8", "#b4f0f0",
    ];
    let i = p.values.iter().position(|x| x == v).unwrap_or(0);
    FILLS[i % FILLS.len()].to_string()
}

/// Escapes text for XML.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}
