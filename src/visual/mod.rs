//! Pictures of models: `visualize` draws a structure over a two-dimensional grid.
//!
//! **Grid detection.** A structure has a grid when its vocabulary has either a constructed type
//! with a constructor over two integer types (`type Pos constructed from {P(X, Y)}`), or
//! symbols over two consecutive integer coordinates (`Field(X, Y)`, `Paint(Row, Col) : Colour`).
//! The constructed type wins; otherwise the pair of integer sorts used by most symbols. The
//! first coordinate is the column and the second the row with the origin bottom-left (Y grows
//! up), unless the first sort's name starts with `row` or is `r`: then the first coordinate is
//! the row, counted from the top, as in a matrix.
//!
//! **Layers.** Every symbol that mentions a grid position becomes a layer:
//! - a predicate over a position is a *fill* (walls and other cell markings);
//! - a constant of the position type is a *label* (entrance, exit, player);
//! - a predicate or function with one extra argument before the position (`at(Time, X, Y)`,
//!   `Pos(Time) : Pos`) is a time-indexed fill or label: one frame per time point, or a path
//!   when the option `frames` is false;
//! - a predicate over a position and a direction (a constructed type whose constructors are
//!   named `N`, `E`, `S`, `W`) draws arrows or line segments in the cell;
//! - a function from a position to a value, or a predicate over a position and one more
//!   argument (`KeyAt(Time, Pos, Key)`), writes (and, in SVG, colours) the value. When a
//!   picture has several such symbols (`GateAt` and `KeyAt`, both by key number), or the
//!   options give one a glyph or a colour, each value is *tagged*: written after the symbol's
//!   glyph (`G1`, `K1`) in the symbol's colour;
//! - a function from one coordinate to the other (`Queen(Row) : Col`) marks the cell of each
//!   argument and its value, like a label; it makes a grid on its own when nothing else does.
//!
//! By default symbols defined by a definition of some theory are not drawn (they are derived),
//! nor fills that hold on every cell. The options table chooses otherwise ([`Options`]).
//!
//! **Renderers.** [`text`] draws for the terminal (Unicode blocks and ANSI colours, or plain
//! ASCII for stable output when stdout is not a terminal) and [`svg`] writes an SVG document.

mod svg;
mod text;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::ids::{FuncId, SortId, Symbol};
use crate::sema::{Domains, Program};
use crate::structure::{Structure, Value};

/// The user's choices, from the Lua options table of `visualize`.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Draw exactly these symbols (by name) instead of the default selection.
    pub show: Option<Vec<String>>,
    /// Symbols never to draw.
    pub hide: Vec<String>,
    /// The character of a symbol (the first character of the given string).
    pub glyphs: HashMap<String, char>,
    /// The colour of a symbol: a name (`red`) or, for SVG only, `#rrggbb`.
    pub colours: HashMap<String, String>,
    /// Unicode and ANSI colours (`Some(true)`), plain ASCII (`Some(false)`), or decide by
    /// whether stdout is a terminal (`None`).
    pub unicode: Option<bool>,
    /// Time-indexed symbols as one frame per time point (default) or as one picture.
    pub path: bool,
    /// Also write an SVG document to this file.
    pub svg: Option<String>,
    /// Only write the SVG file; print nothing.
    pub quiet: bool,
    /// Return the SVG document instead of the text picture (`--message-format json`).
    pub svg_on_stdout: bool,
    /// The first coordinate counts rows from the top, as in a matrix (`Some(true)`), or runs
    /// across with the second going up (`Some(false)`); `None`: rows when the first
    /// coordinate's type is named so (`Row`, `r`).
    pub rows: Option<bool>,
}

/// How a layer is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The cell is filled (a block for walls, the glyph otherwise).
    Fill,
    /// The cell carries the layer's letter.
    Label,
    /// The cell shows a value.
    Value,
    /// The cell shows directions (arrows or line segments).
    Dirs,
    /// A predicate over two neighbouring positions: a wall on the side between them.
    Edge,
}

/// One drawn symbol.
#[derive(Clone, Debug)]
pub struct Layer {
    pub name: String,
    pub kind: Kind,
    pub glyph: char,
    /// Whether the glyph is a solid block (walls).
    pub block: bool,
    pub colour: String,
    /// A value layer whose values are written after its glyph and coloured by the layer
    /// (`G1` for gate 1, `k1` for key 1), so that two symbols with the same values differ.
    pub tagged: bool,
}

/// Directions as bits of a mask.
pub const NORTH: u8 = 1;
pub const EAST: u8 = 2;
pub const SOUTH: u8 = 4;
pub const WEST: u8 = 8;

/// What one cell of one frame shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// The fill layers holding here, in layer order.
    pub fills: Vec<usize>,
    /// The label layers here, in layer order.
    pub labels: Vec<usize>,
    /// The value written here and its layer.
    pub value: Option<(usize, String)>,
    /// The direction masks and their layers, in layer order (the first is drawn on top).
    pub dirs: Vec<(usize, u8)>,
    /// The sides with an edge wall (a direction mask) and its layer.
    pub edges: Option<(usize, u8)>,
}

impl Cell {
    /// The directions of the first direction layer drawn here (the one on top).
    pub fn top_dirs(&self) -> Option<(usize, u8)> {
        self.dirs.first().copied()
    }

    /// Adds directions of a layer (merged with the layer's earlier ones).
    fn add_dirs(&mut self, layer: usize, mask: u8) {
        match self.dirs.iter_mut().find(|d| d.0 == layer) {
            Some(d) => d.1 |= mask,
            None => {
                self.dirs.push((layer, mask));
                self.dirs.sort_unstable();
            }
        }
    }

    /// Whether nothing is drawn in the cell.
    pub fn is_empty(&self) -> bool {
        self.fills.is_empty()
            && self.labels.is_empty()
            && self.value.is_none()
            && self.dirs.is_empty()
            && self.edges.is_none()
    }
}

/// One picture: the cells in display order (top row first), under a title.
#[derive(Clone, Debug)]
pub struct Frame {
    pub title: Option<String>,
    pub cells: Vec<Vec<Cell>>,
}

/// Everything a renderer needs.
#[derive(Clone, Debug)]
pub struct Picture {
    /// A one-line description (`structure S: 5 x 5 grid of Pos`).
    pub caption: String,
    /// Coordinates of the displayed rows (top first) and columns (left first).
    pub row_labels: Vec<i64>,
    pub col_labels: Vec<i64>,
    pub layers: Vec<Layer>,
    pub frames: Vec<Frame>,
    /// The distinct values of value layers, sorted (their index picks a colour).
    pub values: Vec<String>,
}

/// How positions are written in the vocabulary.
#[derive(Clone, Copy, Debug)]
enum Axes {
    /// A constructed type `sort` with the constructor `ctor(A, B)`.
    Constructed { sort: SortId, ctor: FuncId },
    /// Two consecutive arguments of sorts `a` and `b`.
    Pair { a: SortId, b: SortId },
}

impl Axes {
    /// The number of arguments a position takes.
    fn width(self) -> usize {
        match self {
            Axes::Constructed { .. } => 1,
            Axes::Pair { .. } => 2,
        }
    }

    /// Whether the argument sorts at the start of `args` are a position.
    fn matches(self, program: &Program, args: &[SortId]) -> bool {
        match self {
            Axes::Constructed { sort, .. } => args.first() == Some(&sort),
            Axes::Pair { a, b } => {
                args.len() >= 2 && program.is_subsort(args[0], a) && program.is_subsort(args[1], b)
            }
        }
    }

    /// The (first, second) coordinates of the position at the start of `vals`.
    fn coords(self, vals: &[Value]) -> Option<(i64, i64)> {
        match self {
            Axes::Constructed { ctor, .. } => {
                let c = vals.first()?.compound_parts()?;
                if c.constructor != ctor || c.args.len() != 2 {
                    return None;
                }
                Some((c.args[0].as_int()?, c.args[1].as_int()?))
            }
            Axes::Pair { .. } => Some((vals.first()?.as_int()?, vals.get(1)?.as_int()?)),
        }
    }
}

/// Whether every value of the sort's domain is an integer (and there is a domain).
fn is_int_sort(d: &Domains, sort: SortId) -> bool {
    match d.get(sort) {
        Some(d) => !d.is_empty() && d.iter().all(|v| v.as_int().is_some()),
        None => false,
    }
}

/// The position type: a constructed type over two integer sorts, or the most used pair.
fn find_axes(program: &Program, s: &Structure, d: &Domains) -> Option<Axes> {
    let voc = program.voc(s.vocabulary);
    for &so in &voc.sorts {
        let sort = program.sort(so);
        if !sort.constructed || sort.constructors.len() != 1 {
            continue;
        }
        let ctor = sort.constructors[0];
        let f = program.func(ctor);
        if f.args.len() == 2 && f.args.iter().all(|&a| is_int_sort(d, a)) {
            return Some(Axes::Constructed { sort: so, ctor });
        }
    }
    let mut counts: BTreeMap<(SortId, SortId), usize> = BTreeMap::new();
    let mut bump = |args: &[SortId]| {
        for w in args.windows(2) {
            if is_int_sort(d, w[0]) && is_int_sort(d, w[1]) {
                *counts.entry((w[0], w[1])).or_default() += 1;
            }
        }
    };
    for &p in &voc.preds {
        if program.pred(p).type_of.is_none() {
            bump(&program.pred(p).args);
        }
    }
    for &f in &voc.funcs {
        bump(&program.func(f).args);
    }
    if counts.is_empty() {
        // No symbol over two coordinates: a function from one integer type to another
        // (`Queen(Row) : Col`) spans the grid of its arguments and values.
        for &f in &voc.funcs {
            let fu = program.func(f);
            if fu.args.len() == 1 && fu.constructor_of.is_none() {
                let (a, b) = (fu.args[0], fu.result);
                if is_int_sort(d, a) && is_int_sort(d, b) {
                    *counts.entry((a, b)).or_default() += 1;
                }
            }
        }
    }
    // Prefer two different sorts (X and Y) over one sort used twice, then the most used pair.
    let best = counts
        .into_iter()
        .max_by_key(|&((a, b), n)| (a != b, n, std::cmp::Reverse((a, b))))?;
    let (a, b) = best.0;
    Some(Axes::Pair { a, b })
}

/// The largest grid drawn (a 200 x 200 board); larger ones are refused before they are built.
pub const MAX_CELLS: usize = 40_000;

/// The number of cells of the grid, when it is a product of two domains.
fn grid_size(program: &Program, d: &Domains, axes: Axes) -> Option<usize> {
    let (a, b) = match axes {
        Axes::Constructed { ctor, .. } => {
            let f = program.func(ctor);
            (f.args[0], f.args[1])
        }
        Axes::Pair { a, b } => (a, b),
    };
    let len = |so| d.get(so).map_or(0, |d| d.len());
    Some(len(a).saturating_mul(len(b)))
}

/// The coordinates of the grid: every position's (first, second) pair.
fn grid_cells(program: &Program, d: &Domains, axes: Axes) -> Vec<(i64, i64)> {
    match axes {
        Axes::Constructed { sort, ctor } => {
            let from_domain: Vec<(i64, i64)> = d
                .get(sort)
                .unwrap_or_default()
                .iter()
                .filter_map(|v| axes.coords(std::slice::from_ref(v)))
                .collect();
            if !from_domain.is_empty() {
                return from_domain;
            }
            let f = program.func(ctor);
            product(d, f.args[0], f.args[1])
        }
        Axes::Pair { a, b } => product(d, a, b),
    }
}

fn product(d: &Domains, a: SortId, b: SortId) -> Vec<(i64, i64)> {
    let ints = |so| -> Vec<i64> {
        d.get(so)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_int())
            .collect()
    };
    let (xa, xb) = (ints(a), ints(b));
    xa.iter()
        .flat_map(|&p| xb.iter().map(move |&q| (p, q)))
        .collect()
}

/// Whether the first coordinate counts rows from the top (`Row`, `r`).
fn is_row_major(program: &Program, axes: Axes) -> bool {
    let first = match axes {
        Axes::Constructed { ctor, .. } => program.func(ctor).args[0],
        Axes::Pair { a, .. } => a,
    };
    let name = program.sort(first).name.to_ascii_lowercase();
    name.starts_with("row") || name == "r"
}

/// The direction bit of a constructor named `N`, `E`, `S` or `W` (or spelled out).
fn direction_bit(name: &str) -> Option<u8> {
    match name.to_ascii_lowercase().as_str() {
        "n" | "north" | "up" | "u" => Some(NORTH),
        "e" | "east" | "right" | "r" => Some(EAST),
        "s" | "south" | "down" | "d" => Some(SOUTH),
        "w" | "west" | "left" | "l" => Some(WEST),
        _ => None,
    }
}

/// Whether a sort is a constructed type of directions.
fn is_direction_sort(program: &Program, so: SortId) -> bool {
    let sort = program.sort(so);
    sort.constructed
        && !sort.constructors.is_empty()
        && sort.constructors.iter().all(|&c| {
            program.func(c).args.is_empty() && direction_bit(&program.func(c).name).is_some()
        })
}

/// The direction bit of a value of a direction sort.
fn value_direction(program: &Program, v: Value) -> Option<u8> {
    let c = v.compound_parts()?;
    direction_bit(&program.func(c.constructor).name)
}

/// How one symbol is drawn: its kind, whether it has a time argument first, and where the
/// position starts.
#[derive(Clone, Copy, Debug)]
struct Shape {
    kind: Kind,
    timed: bool,
}

/// The shape of a symbol over the grid, if it has one.
fn shape_of(program: &Program, axes: Axes, sym: Symbol) -> Option<Shape> {
    let w = axes.width();
    match sym {
        Symbol::Pred(p) => {
            let pr = program.pred(p);
            if pr.type_of.is_some() {
                return None;
            }
            let args = &pr.args;
            let timed =
                args.len() > w && axes.matches(program, &args[1..]) && !axes.matches(program, args);
            let start = usize::from(timed);
            let rest = &args[start..];
            if !axes.matches(program, rest) {
                return None;
            }
            if rest.len() == w {
                Some(Shape {
                    kind: Kind::Fill,
                    timed,
                })
            } else if rest.len() == 2 * w && !timed && axes.matches(program, &rest[w..]) {
                Some(Shape {
                    kind: Kind::Edge,
                    timed,
                })
            } else if rest.len() == w + 1 && is_direction_sort(program, rest[w]) {
                Some(Shape {
                    kind: Kind::Dirs,
                    timed,
                })
            } else if rest.len() == w + 1 {
                // `KeyAt(Time, Pos, Key)`: the last argument is written in the cell.
                Some(Shape {
                    kind: Kind::Value,
                    timed,
                })
            } else {
                None
            }
        }
        Symbol::Func(f) => {
            let fu = program.func(f);
            if fu.constructor_of.is_some() {
                return None;
            }
            let result_is_pos = matches!(axes, Axes::Constructed { sort, .. } if program.is_subsort(fu.result, sort));
            if result_is_pos && fu.args.len() <= 1 {
                return Some(Shape {
                    kind: Kind::Label,
                    timed: fu.args.len() == 1,
                });
            }
            if fu.args.len() == w && axes.matches(program, &fu.args) {
                return Some(Shape {
                    kind: Kind::Value,
                    timed: false,
                });
            }
            let graph = [fu.args.as_slice(), &[fu.result]].concat();
            if matches!(axes, Axes::Pair { .. })
                && fu.args.len() == 1
                && axes.matches(program, &graph)
            {
                return Some(Shape {
                    kind: Kind::Label,
                    timed: false,
                });
            }
            None
        }
    }
}

fn symbol_name(program: &Program, sym: Symbol) -> String {
    match sym {
        Symbol::Pred(p) => program.pred(p).name.clone(),
        Symbol::Func(f) => program.func(f).name.clone(),
    }
}

/// The symbols defined by some definition of some theory.
fn defined_symbols(program: &Program) -> HashSet<Symbol> {
    program
        .theories
        .iter()
        .flat_map(|t| t.definitions.iter())
        .flat_map(|d| d.defined())
        .collect()
}

/// Whether a name reads as a barrier that can be passed in some way (a tagged value of such a
/// symbol is drawn as a square in SVG, other tagged values as a disc).
pub fn is_barrier_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["gate", "door", "lock", "barrier", "fence", "wall", "block"]
        .iter()
        .any(|w| n.contains(w))
}

/// Whether a name reads as a wall (drawn as a solid block).
fn is_wall_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["wall", "block", "obstacle", "rock", "blocked"]
        .iter()
        .any(|w| n.contains(w))
}

const PALETTE: [&str; 8] = [
    "red", "blue", "green", "magenta", "cyan", "yellow", "orange", "purple",
];

/// A mark of one layer on one cell, possibly at one time point.
struct Mark {
    layer: usize,
    time: Option<Value>,
    cell: (i64, i64),
    value: Option<String>,
    dir: u8,
    label: bool,
    /// For an edge: the other cell.
    other: Option<(i64, i64)>,
}

/// Builds the picture of `s`, or says why there is none.
pub fn picture(program: &Program, s: &Structure, opts: &Options) -> Result<Picture, String> {
    // A sort's elements come from the one home of domains: the structure may leave out a type
    // the vocabulary fixes or constructs (a structure over a smaller vocabulary, `newstructure`).
    let domains = Domains::new(program, s);
    let axes = find_axes(program, s, &domains).ok_or_else(|| {
        format!(
            "structure {} has no grid: visualize needs a constructed type over two integer types \
             (like P(X, Y)) or symbols over two integer coordinates",
            s.name
        )
    })?;
    if let Some(n) = grid_size(program, &domains, axes).filter(|&n| n > MAX_CELLS) {
        return Err(format!(
            "the grid of structure {} has {n} cells, more than the {MAX_CELLS} that visualize draws",
            s.name
        ));
    }
    let cells = grid_cells(program, &domains, axes);
    if cells.is_empty() {
        return Err(format!("structure {} has an empty grid", s.name));
    }
    let row_major = opts.rows.unwrap_or_else(|| is_row_major(program, axes));
    let (layers, marks) = collect_layers(program, s, axes, opts, &cells)?;
    let caption = caption(program, s, axes, &cells, row_major);
    Ok(assemble(caption, row_major, &cells, layers, marks, opts))
}

/// `structure S: 5 x 4 grid of Pos; 1st coordinate across, 2nd up`: the grid, and which
/// coordinate runs which way (the option `rows` turns it).
fn caption(
    program: &Program,
    s: &Structure,
    axes: Axes,
    cells: &[(i64, i64)],
    row_major: bool,
) -> String {
    let firsts: BTreeSet<i64> = cells.iter().map(|c| c.0).collect();
    let seconds: BTreeSet<i64> = cells.iter().map(|c| c.1).collect();
    let what = match axes {
        Axes::Constructed { sort, .. } => program.sort(sort).name.clone(),
        Axes::Pair { a, b } => format!("{} x {}", program.sort(a).name, program.sort(b).name),
    };
    let directions = if row_major {
        "1st coordinate down (rows), 2nd across"
    } else {
        "1st coordinate across, 2nd up"
    };
    let grid = format!(
        "{} x {} grid of {what}; {directions}",
        firsts.len(),
        seconds.len()
    );
    if s.name.is_empty() {
        grid
    } else {
        format!("structure {}: {grid}", s.name)
    }
}

/// The layers to draw, in drawing order, and their marks.
fn collect_layers(
    program: &Program,
    s: &Structure,
    axes: Axes,
    opts: &Options,
    cells: &[(i64, i64)],
) -> Result<(Vec<Layer>, Vec<Mark>), String> {
    let defined = defined_symbols(program);
    let voc = program.voc(s.vocabulary);
    let mut candidates: Vec<(Symbol, Shape, String)> = Vec::new();
    let symbols = voc
        .preds
        .iter()
        .map(|&p| Symbol::Pred(p))
        .chain(voc.funcs.iter().map(|&f| Symbol::Func(f)));
    for sym in symbols {
        let Some(shape) = shape_of(program, axes, sym) else {
            continue;
        };
        let name = symbol_name(program, sym);
        let wanted = match &opts.show {
            Some(list) => list.contains(&name),
            None => !defined.contains(&sym),
        };
        if wanted && !opts.hide.contains(&name) && s.table(sym).is_some() {
            candidates.push((sym, shape, name));
        }
    }
    if let Some(list) = &opts.show {
        for n in list {
            if !candidates.iter().any(|c| &c.2 == n) {
                return Err(format!(
                    "{n} is not a symbol over the grid of structure {}",
                    s.name
                ));
            }
        }
    }
    // In the order of `show`, or walls first, then labels, then the rest by name.
    match &opts.show {
        Some(list) => candidates.sort_by_key(|(_, _, name)| list.iter().position(|n| n == name)),
        None => candidates.sort_by_key(|(_, sh, name)| {
            (!is_wall_name(name), sh.kind != Kind::Label, name.clone())
        }),
    }
    let grid: HashSet<(i64, i64)> = cells.iter().copied().collect();
    let mut layers = Vec::new();
    let mut marks = Vec::new();
    let mut used: HashSet<char> = HashSet::new();
    let value_layers = candidates
        .iter()
        .filter(|c| c.1.kind == Kind::Value)
        .count();
    for (sym, shape, name) in candidates {
        let layer = layers.len();
        let mut new = layer_marks(program, s, axes, sym, shape, layer, &grid);
        let full = shape.kind == Kind::Fill && !shape.timed && new.len() == grid.len();
        if full && opts.show.is_none() {
            continue;
        }
        let mut made = make_layer(&name, shape.kind, opts, &mut used, layer);
        made.tagged = shape.kind == Kind::Value
            && (value_layers > 1
                || opts.glyphs.contains_key(&name)
                || opts.colours.contains_key(&name));
        if made.tagged {
            for v in new.iter_mut().filter_map(|m| m.value.as_mut()) {
                *v = format!("{}{v}", made.glyph);
            }
        }
        layers.push(made);
        marks.extend(new);
    }
    Ok((layers, marks))
}

/// A layer's glyph and colour: the options' choice, or a block for walls, or the first unused
/// letter of its name.
fn make_layer(
    name: &str,
    kind: Kind,
    opts: &Options,
    used: &mut HashSet<char>,
    index: usize,
) -> Layer {
    let wall = matches!(kind, Kind::Fill | Kind::Edge) && is_wall_name(name);
    let glyph = opts.glyphs.get(name).copied().unwrap_or_else(|| {
        if wall {
            '#'
        } else {
            name.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_uppercase())
                .find(|c| !used.contains(c))
                .unwrap_or('*')
        }
    });
    used.insert(glyph);
    let colour = opts.colours.get(name).cloned().unwrap_or_else(|| {
        if wall {
            "default".to_string()
        } else {
            PALETTE[index % PALETTE.len()].to_string()
        }
    });
    Layer {
        name: name.to_string(),
        kind,
        glyph,
        block: glyph == '#' || glyph == '█',
        colour,
        tagged: false,
    }
}

/// The marks of one symbol (certainly true tuples only).
fn layer_marks(
    program: &Program,
    s: &Structure,
    axes: Axes,
    sym: Symbol,
    shape: Shape,
    layer: usize,
    grid: &HashSet<(i64, i64)>,
) -> Vec<Mark> {
    let Some(table) = s.table(sym) else {
        return Vec::new();
    };
    let start = usize::from(shape.timed);
    let mut out = Vec::new();
    for t in table.ct() {
        let time = if shape.timed {
            t.first().copied()
        } else {
            None
        };
        let (pos_at, value) = match shape.kind {
            Kind::Label => (t.len().saturating_sub(axes.width()), None),
            Kind::Value => (start, t.last().map(display_value)),
            _ => (start, None),
        };
        let Some(cell) = axes.coords(&t[pos_at..]) else {
            continue;
        };
        if !grid.contains(&cell) {
            continue;
        }
        let dir = if shape.kind == Kind::Dirs {
            match t.last().and_then(|&v| value_direction(program, v)) {
                Some(d) => d,
                None => continue,
            }
        } else {
            0
        };
        let other = if shape.kind == Kind::Edge {
            match axes.coords(&t[pos_at + axes.width()..]) {
                Some(o) => Some(o),
                None => continue,
            }
        } else {
            None
        };
        out.push(Mark {
            layer,
            time,
            cell,
            value,
            dir,
            // Things that move (time-indexed fills) are drawn over the static fills.
            label: shape.kind == Kind::Label || (shape.kind == Kind::Fill && shape.timed),
            other,
        });
    }
    out
}

fn display_value(v: &Value) -> String {
    match v.string_text() {
        Some(t) => t,
        None => format!("{v}"),
    }
}

/// Places the marks in frames: one per time point unless `opts.path` (or nothing is timed).
fn assemble(
    caption: String,
    row_major: bool,
    cells: &[(i64, i64)],
    layers: Vec<Layer>,
    marks: Vec<Mark>,
    opts: &Options,
) -> Picture {
    let firsts: Vec<i64> = cells
        .iter()
        .map(|c| c.0)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let seconds: Vec<i64> = cells
        .iter()
        .map(|c| c.1)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Display rows (top first) and columns, as (first, second) coordinate lookups.
    let (row_labels, col_labels) = if row_major {
        (firsts.clone(), seconds.clone())
    } else {
        (seconds.iter().rev().copied().collect(), firsts.clone())
    };
    let times: Vec<Value> = if opts.path {
        Vec::new()
    } else {
        marks
            .iter()
            .filter_map(|m| m.time)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let values: Vec<String> = marks
        .iter()
        .filter_map(|m| m.value.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // The display (row, column) of a cell given as (first, second) coordinates.
    let display_at = |cell: (i64, i64)| -> Option<(usize, usize)> {
        let (row, col) = if row_major { cell } else { (cell.1, cell.0) };
        let r = row_labels.iter().position(|&x| x == row)?;
        let c = col_labels.iter().position(|&x| x == col)?;
        Some((r, c))
    };
    let frame_of = |time: Option<Value>| -> Frame {
        let mut grid = vec![vec![Cell::default(); col_labels.len()]; row_labels.len()];
        for m in &marks {
            if m.time.is_some() && time.is_some() && m.time != time {
                continue;
            }
            let Some((r, c)) = display_at(m.cell) else {
                continue;
            };
            match m.other.and_then(display_at) {
                Some(o) => place_edge(&mut grid[r][c], m.layer, (r, c), o),
                None if m.other.is_none() => place(&mut grid[r][c], m),
                None => {}
            }
        }
        Frame {
            title: time.map(|t| format!("time {t}")),
            cells: grid,
        }
    };
    let frames = if times.is_empty() {
        let mut frame = frame_of(None);
        if opts.path {
            add_steps(&mut frame, &marks, &display_at);
        }
        vec![frame]
    } else {
        times.iter().map(|&t| frame_of(Some(t))).collect()
    };
    Picture {
        caption,
        row_labels,
        col_labels,
        layers,
        frames,
        values,
    }
}

/// A time point and the display (row, column) of a position at it.
type Step = (Value, (usize, usize));

/// In a path picture, joins the consecutive positions of each time-indexed label or fill:
/// the cell at time t gets the direction towards the (neighbouring) cell at the next time.
fn add_steps(
    frame: &mut Frame,
    marks: &[Mark],
    display_at: &dyn Fn((i64, i64)) -> Option<(usize, usize)>,
) {
    let mut by_layer: BTreeMap<usize, Vec<Step>> = BTreeMap::new();
    for m in marks.iter().filter(|m| m.label && m.other.is_none()) {
        if let (Some(t), Some(at)) = (m.time, display_at(m.cell)) {
            by_layer.entry(m.layer).or_default().push((t, at));
        }
    }
    for (layer, mut steps) in by_layer {
        steps.sort_by_key(|step| step.0);
        for w in steps.windows(2) {
            let ((r, c), next) = (w[0].1, w[1].1);
            let dir = match (next.0 as i64 - r as i64, next.1 as i64 - c as i64) {
                (-1, 0) => NORTH,
                (1, 0) => SOUTH,
                (0, 1) => EAST,
                (0, -1) => WEST,
                _ => continue,
            };
            frame.cells[r][c].add_dirs(layer, dir);
        }
    }
}

/// Adds the side of `at` facing its neighbour `other` to the cell's edge walls (nothing when
/// the two cells are not neighbours).
fn place_edge(cell: &mut Cell, layer: usize, at: (usize, usize), other: (usize, usize)) {
    let side = match (other.0 as i64 - at.0 as i64, other.1 as i64 - at.1 as i64) {
        (-1, 0) => NORTH,
        (1, 0) => SOUTH,
        (0, 1) => EAST,
        (0, -1) => WEST,
        _ => return,
    };
    let old = cell.edges.map(|e| e.1).unwrap_or(0);
    cell.edges = Some((layer, old | side));
}

/// Adds a mark to a cell.
fn place(cell: &mut Cell, m: &Mark) {
    match (&m.value, m.dir) {
        (Some(v), _) => cell.value = Some((m.layer, v.clone())),
        (None, d) if d != 0 => cell.add_dirs(m.layer, d),
        _ => {}
    }
    if m.value.is_none() && m.dir == 0 {
        // Labels are kept apart from fills so that they are drawn over them.
        let list = if m.label {
            &mut cell.labels
        } else {
            &mut cell.fills
        };
        if !list.contains(&m.layer) {
            list.push(m.layer);
            list.sort_unstable();
        }
    }
}

/// Draws `s`: writes the SVG file if asked and returns the terminal text ("" when quiet). An
/// error says why, without saying by whom (callers put `visualize: ` before it).
/// `terminal` says whether stdout is a terminal (Unicode and colours unless the options say).
pub fn visualize(
    program: &Program,
    s: &Structure,
    opts: &Options,
    terminal: bool,
) -> Result<String, String> {
    let pic = picture(program, s, opts)?;
    if let Some(path) = &opts.svg {
        std::fs::write(path, svg::render(&pic))
            .map_err(|e| format!("could not write {path}: {e}"))?;
    }
    if opts.quiet {
        return Ok(String::new());
    }
    if opts.svg_on_stdout {
        return Ok(svg::render(&pic));
    }
    Ok(text::render(&pic, opts.unicode.unwrap_or(terminal)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_names() {
        assert_eq!(direction_bit("N"), Some(NORTH));
        assert_eq!(direction_bit("west"), Some(WEST));
        assert_eq!(direction_bit("Up"), Some(NORTH));
        assert_eq!(direction_bit("NE"), None);
    }

    #[test]
    fn wall_names() {
        assert!(is_wall_name("Wall"));
        assert!(is_wall_name("innerwall"));
        assert!(is_wall_name("Obstacle"));
        assert!(!is_wall_name("Entrance"));
    }

    #[test]
    fn glyphs_are_unused_letters_of_the_name() {
        let opts = Options::default();
        let mut used = HashSet::new();
        let e = make_layer("Entrance", Kind::Label, &opts, &mut used, 0);
        let x = make_layer("Exit", Kind::Label, &opts, &mut used, 1);
        let w = make_layer("Wall", Kind::Fill, &opts, &mut used, 2);
        assert_eq!((e.glyph, x.glyph, w.glyph), ('E', 'X', '#'));
        assert!(w.block && !e.block);
    }

    #[test]
    fn direction_glyphs() {
        assert_eq!(text::direction_glyph(EAST, false), '>');
        assert_eq!(text::direction_glyph(NORTH | SOUTH, false), '|');
        assert_eq!(text::direction_glyph(NORTH | EAST, false), '+');
        assert_eq!(text::direction_glyph(NORTH | EAST, true), '└');
        assert_eq!(text::direction_glyph(SOUTH | WEST, true), '┐');
    }
}
