//! `visualize` (issue 8): golden ASCII pictures of the seed puzzles and SVG read back.
//!
//! The binary's stdout is a pipe here, so `visualize` draws plain ASCII. The pictures of seed
//! 000 part I's `main` (copied verbatim into `tests/fixtures/seed000_part1.idp`), of a Theseus
//! escape and of a colour-maze path are pinned exactly. SVG output is checked to be well-formed
//! XML by a small parser below and to hold the expected cells (`<rect class="cell">` with
//! `data-row`, `data-col` and `data-layers`).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// Runs `idp ARGS` in the crate root, without warnings.
fn idp(args: &[&str]) -> Output {
    support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("--nowarnings")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the idp binary runs")
}

/// Stdout of a run that must succeed (exit code 0, or 10 for `--models` with a model).
fn stdout_of(args: &[&str]) -> String {
    let out = idp(args);
    let ok = matches!(out.status.code(), Some(0) | Some(10));
    assert!(
        ok,
        "idp {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A fresh file name in the target directory's temporary folder.
fn temp_file(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("visual");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

const SEED_MAZE: &str = "\
5 x 5 grid of Pos; 1st coordinate across, 2nd up
4 ######X ##
3 ##. . . ##
2 ##. ##. ##
1 ##. ##. ##
0 ##E ######
  0 1 2 3 4
#: Wall  E: Entrance  X: Exit
";

#[test]
fn seed_000_part_1_main_draws_the_maze() {
    let out = stdout_of(&["tests/fixtures/seed000_part1.idp"]);
    assert!(out.contains("Entrance = P(1,0)"), "{out}");
    assert!(out.ends_with(SEED_MAZE), "the picture differs:\n{out}");
}

#[test]
fn maze_spec_main_is_the_seed_main() {
    let out = stdout_of(&["specs/maze/construction.idp"]);
    assert!(out.ends_with(SEED_MAZE), "{out}");
}

#[test]
fn theseus_escape_one_frame_per_step() {
    let out = stdout_of(&["specs/theseus/theseus.idp", "-e", "picture(Example)"]);
    let expected = "\
3 x 3 grid of X x Y; 1st coordinate across, 2nd up
time 0:
3 . M .
    --
2 . .|G
    --
1 . T .
  1 2 3
time 1:
3 . . .
    --
2 M .|G
    --
1 T . .
  1 2 3
time 2:
3 . . .
    --
2 . M|G
    --
1 . T .
  1 2 3
time 3:
3 . . .
    --
2 . M|G
    --
1 . . T
  1 2 3
time 4:
3 . . .
    --
2 . M|T
    --
1 . . .
  1 2 3
| --: Wall  G: GoalAt  M: Mino  T: at
";
    assert_eq!(out, expected);
}

#[test]
fn colour_maze_path_with_arrows() {
    let out = stdout_of(&[
        "specs/colourmaze/colourmaze.idp",
        "-e",
        "picture(\"specs/colourmaze/instances/seed3-5x5c3.txt\")",
    ]);
    let expected = "\
5 x 5 grid of Row x Col; 1st coordinate down (rows), 2nd across
0 0 2 3 3 0
1 1 2 3 3 2^
2 2 2 2 2 3^
3 3 2 2 3 2^
4 0>0>1>3>1^
  0 1 2 3 4
value: Paint  arrows: Go
";
    assert_eq!(out, expected);
}

#[test]
fn overflow_water_and_links() {
    let out = stdout_of(&[
        "specs/overflow/overflow.idp",
        "-e",
        "picture(\"specs/overflow/levels/small4x5.txt\")",
    ]);
    // The wet tiles of the optimal solution (score 8) are the row 1 and the last column.
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(
        rows[0], "4 x 5 grid of Row x Col; 1st coordinate down (rows), 2nd across",
        "{out}"
    );
    assert!(rows[2].starts_with("1 ~"), "{out}");
    assert_eq!(rows[2].matches('~').count(), 5, "{out}");
    assert!(out.contains("~: Wet"), "{out}");
}

const WALK: &str = r#"vocabulary V {
    type Time isa int
    type X isa int
    type Y isa int
    type Pos constructed from { P(X, Y) }
    Rock(Pos)
    At(Time) : Pos
}
structure S : V {
    Time = { 0..3 }
    X = { 0..2 }
    Y = { 0..1 }
    Rock = { P(1,1) }
    At = { 0->P(0,0); 1->P(1,0); 2->P(2,0); 3->P(2,1) }
}
procedure main() {
    visualize(S)
    visualize(S, { path = true, glyphs = { At = "@" }, hide = { "Rock" } })
}
"#;

#[test]
fn function_from_time_to_position_frames_and_path() {
    let file = temp_file("walk.idp");
    std::fs::write(&file, WALK).unwrap();
    let out = stdout_of(&[file.to_str().unwrap()]);
    let expected = "\
structure S: 3 x 2 grid of Pos; 1st coordinate across, 2nd up
time 0:
1 . ##.
0 A . .
  0 1 2
time 1:
1 . ##.
0 . A .
  0 1 2
time 2:
1 . ##.
0 . . A
  0 1 2
time 3:
1 . ##A
0 . . .
  0 1 2
#: Rock  A: At
structure S: 3 x 2 grid of Pos; 1st coordinate across, 2nd up
1 . . @
0 @>@>@^
  0 1 2
@: At
";
    assert_eq!(out, expected);
}

#[test]
fn long_values_widen_the_cells() {
    let file = temp_file("num.idp");
    std::fs::write(
        &file,
        r#"vocabulary V {
 type R isa int
 type C isa int
 type N isa int
 Num(R, C) : N
}
structure S : V {
 R = { 0..1 }
 C = { 0..2 }
 N = { 0..20 }
 Num = { 0,0->5; 0,1->12; 0,2->7; 1,0->20; 1,1->3; 1,2->0 }
}
procedure main() {
 visualize(S)
}
"#,
    )
    .unwrap();
    let out = stdout_of(&[file.to_str().unwrap()]);
    let expected = "\
structure S: 2 x 3 grid of R x C; 1st coordinate down (rows), 2nd across
0 5  12 7
1 20 3  0
  0  1  2
value: Num
";
    assert_eq!(out, expected);
}

#[test]
fn predicate_with_a_value_argument_writes_it() {
    let file = temp_file("keys.idp");
    std::fs::write(
        &file,
        r#"vocabulary V {
    type Time isa int
    type X isa int
    type Y isa int
    type Key constructed from { red, blue }
    type Pos constructed from { P(X, Y) }
    Wall(Pos)
    KeyAt(Time, Pos, Key)
    PlayerAt(Time) : Pos
}
structure S : V {
    Time = { 0..1 }
    X = { 0..2 }
    Y = { 0..0 }
    Wall = { P(2,0) }
    KeyAt = { 0,P(1,0),blue; 1,P(0,0),red }
    PlayerAt = { 0->P(0,0); 1->P(1,0) }
}
procedure main() {
    visualize(S)
}
"#,
    )
    .unwrap();
    let out = stdout_of(&[file.to_str().unwrap()]);
    let expected = "\
structure S: 3 x 1 grid of Pos; 1st coordinate across, 2nd up
time 0:
0 P    blue #####
  0    1    2
time 1:
0 red  P    #####
  0    1    2
#: Wall  P: PlayerAt  value: KeyAt
";
    assert_eq!(out, expected);
}

#[test]
fn unicode_blocks_and_colours_on_request() {
    let out = stdout_of(&[
        "specs/maze/construction.idp",
        "-e",
        "visualize(onemodel(Tmaze, S), { unicode = true })",
    ]);
    assert!(out.contains("██"), "{out}");
    assert!(out.contains("\x1b["), "{out}");
}

#[test]
fn command_line_flag_draws_every_model() {
    // Each model is drawn after it is printed; their number comes last.
    let out = stdout_of(&["-n", "1", "--visualize", "specs/maze/construction.idp"]);
    assert!(
        out.ends_with(&format!("{SEED_MAZE}Number of models: 1\n")),
        "{out}"
    );
}

#[test]
fn no_grid_is_a_clear_error() {
    let file = temp_file("nogrid.idp");
    std::fs::write(
        &file,
        "vocabulary V {\n type A isa int\n P(A)\n}\nstructure S : V {\n A = { 1..3 }\n P = { 1 }\n}\n\
         procedure main() {\n visualize(S)\n}\n",
    )
    .unwrap();
    let out = idp(&[file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("structure S has no grid"), "{err}");
    let out = idp(&[
        "specs/maze/construction.idp",
        "-e",
        "visualize(S, { colour = 1 })",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown option colour"), "{err}");
    let big = temp_file("big.idp");
    std::fs::write(
        &big,
        "vocabulary V {\n type X isa int\n type Y isa int\n F(X, Y)\n}\n\
         structure S : V {\n X = { 0..100000 }\n Y = { 0..100000 }\n}\n\
         procedure main() {\n visualize(S)\n}\n",
    )
    .unwrap();
    let out = idp(&[big.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than the 40000"), "{err}");
}

/// The grid's types are fixed in the vocabulary and the structure does not list them: its
/// vocabulary is a smaller one (`--visualize`), or it was made by `newstructure`. The grid
/// comes from the types' domains all the same.
#[test]
fn a_grid_of_types_the_structure_does_not_list() {
    let voc = "vocabulary V {\n extern vocabulary V0\n type X = { 0..2 } isa int\n \
               type Y = { 0..1 } isa int\n type Pos constructed from { P(X, Y) }\n Wall(Pos)\n}\n\
               theory T : V {\n Wall(P(0, 0)).\n ! x : x ~= 0 => ~Wall(P(x, 0)).\n \
               ! x : ~Wall(P(x, 1)).\n}\n";
    let file = temp_file("smaller_vocabulary.idp");
    std::fs::write(
        &file,
        format!(
            "vocabulary V0 {{\n type Dummy isa int\n}}\n{voc}\
             structure S : V0 {{\n Dummy = {{ 1 }}\n}}\n"
        ),
    )
    .unwrap();
    let grid = "\
3 x 2 grid of Pos; 1st coordinate across, 2nd up
1 . . .
0 ##. .
  0 1 2
#: Wall
";
    let out = stdout_of(&["-n", "1", "--visualize", file.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!("{grid}Number of models: 1\n")),
        "{out}"
    );
    let out = stdout_of(&[
        file.to_str().unwrap(),
        "-e",
        "visualize(modelexpand(T, newstructure(V, \"N\"))[1])",
    ]);
    assert_eq!(out, grid);
}

// ----------------------------------------------------------------------------------------
// A small XML reader: enough to check well-formedness and to list the elements.

/// An element's name and attributes.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
}

/// Every element of a well-formed document, in document order, or the first problem.
fn parse_xml(doc: &str) -> Result<Vec<Element>, String> {
    let mut out = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut rest = doc.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unterminated declaration")? + 2..];
    }
    let mut roots = 0;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            check_text(rest)?;
            if !rest.trim().is_empty() {
                return Err("text after the root element".into());
            }
            break;
        };
        check_text(&rest[..lt])?;
        if open.is_empty() && !rest[..lt].trim().is_empty() {
            return Err("text outside the root element".into());
        }
        rest = &rest[lt..];
        let gt = rest.find('>').ok_or("unterminated tag")?;
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let element = parse_tag(tag)?;
        if open.is_empty() {
            roots += 1;
        }
        if !self_closing {
            open.push(element.name.clone());
        }
        out.push(element);
    }
    if !open.is_empty() {
        return Err(format!("unclosed elements {open:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(out)
}

/// A start tag's name and attributes (`name a="v" b='w'`).
fn parse_tag(tag: &str) -> Result<Element, String> {
    let name_end = tag.find(|c: char| c.is_whitespace()).unwrap_or(tag.len());
    let name = tag[..name_end].to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_:.".contains(c))
    {
        return Err(format!("bad element name in <{tag}>"));
    }
    let mut attrs = BTreeMap::new();
    let mut rest = tag[name_end..].trim_start();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or(format!("attribute without value in <{tag}>"))?;
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next().ok_or("missing attribute value")?;
        if quote != '"' && quote != '\'' {
            return Err(format!("unquoted attribute {key} in <{tag}>"));
        }
        let close = after[1..]
            .find(quote)
            .ok_or("unterminated attribute value")?;
        let value = &after[1..1 + close];
        if value.contains('<') {
            return Err(format!("'<' in attribute {key}"));
        }
        check_text(value)?;
        if attrs.insert(key.clone(), value.to_string()).is_some() {
            return Err(format!("duplicate attribute {key}"));
        }
        rest = after[close + 2..].trim_start();
    }
    Ok(Element { name, attrs })
}

/// Text may only use the predefined entities (and numeric references).
fn check_text(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let semi = rest[amp..].find(';').ok_or("unterminated entity")?;
        let entity = &rest[amp + 1..amp + semi];
        let known =
            ["amp", "lt", "gt", "quot", "apos"].contains(&entity) || entity.starts_with('#');
        if !known {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &rest[amp + semi + 1..];
    }
    Ok(())
}

#[test]
fn the_xml_reader_rejects_broken_documents() {
    assert!(parse_xml("<a><b/></a>").is_ok());
    assert!(parse_xml("<a><b></a>").is_err());
    assert!(parse_xml("<a x=1/>").is_err());
    assert!(parse_xml("<a>&nope;</a>").is_err());
    assert!(parse_xml("<a/><b/>").is_err());
    assert!(parse_xml("<a x=\"1\" x=\"2\"/>").is_err());
}

/// The cells of an SVG picture: (row, col) -> the layers drawn there.
fn svg_cells(doc: &str) -> BTreeMap<(i64, i64), BTreeSet<String>> {
    let elements = parse_xml(doc).unwrap_or_else(|e| panic!("malformed SVG ({e}):\n{doc}"));
    assert_eq!(elements[0].name, "svg");
    let mut cells = BTreeMap::new();
    for e in elements.iter().filter(|e| e.name == "rect") {
        if e.attrs.get("class").map(String::as_str) != Some("cell") {
            continue;
        }
        let num = |k: &str| e.attrs[k].parse::<i64>().expect("numeric coordinate");
        let layers = e.attrs["data-layers"]
            .split_whitespace()
            .map(str::to_string)
            .collect();
        cells.insert((num("data-row"), num("data-col")), layers);
    }
    cells
}

#[test]
fn maze_svg_is_well_formed_with_the_seed_cells() {
    let file = temp_file("maze.svg");
    let chunk = format!(
        "visualize(onemodel(Tmaze, S), {{ svg = [[{}]], quiet = true }})",
        file.display()
    );
    let out = stdout_of(&["specs/maze/construction.idp", "-e", &chunk]);
    assert_eq!(out, "", "quiet draws nothing in the terminal");
    let cells = svg_cells(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(cells.len(), 25);
    let walls: BTreeSet<(i64, i64)> = cells
        .iter()
        .filter(|(_, l)| l.contains("Wall"))
        .map(|(&(y, x), _)| (x, y))
        .collect();
    let seed: BTreeSet<(i64, i64)> = [
        (0, 0),
        (4, 4),
        (4, 0),
        (0, 4),
        (2, 0),
        (3, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (4, 1),
        (4, 2),
        (4, 3),
        (1, 4),
        (2, 4),
        (2, 1),
        (2, 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(walls, seed);
    assert!(cells[&(0, 1)].contains("Entrance"));
    assert!(cells[&(4, 3)].contains("Exit"));
}

#[test]
fn theseus_svg_has_a_frame_per_step() {
    let file = temp_file("theseus.svg");
    let chunk = format!("picture(Example, [[{}]])", file.display());
    stdout_of(&["specs/theseus/theseus.idp", "-e", &chunk]);
    let doc = std::fs::read_to_string(&file).unwrap();
    let elements = parse_xml(&doc).unwrap();
    let frames = elements
        .iter()
        .filter(|e| e.attrs.get("class").map(String::as_str) == Some("frame"))
        .count();
    assert_eq!(frames, 5);
    let cells = elements
        .iter()
        .filter(|e| e.attrs.get("class").map(String::as_str) == Some("cell"));
    let goal_with_theseus = cells
        .filter(|e| e.attrs["data-layers"].split(' ').any(|l| l == "at"))
        .filter(|e| e.attrs["data-layers"].contains("GoalAt"))
        .count();
    assert_eq!(goal_with_theseus, 1, "Theseus reaches the goal once");
    assert!(elements
        .iter()
        .any(|e| e.attrs.get("class").map(String::as_str) == Some("edge")));
}

#[test]
fn colour_maze_and_overflow_svg_are_well_formed() {
    let cm = temp_file("colourmaze.svg");
    let chunk = format!(
        "picture(\"specs/colourmaze/instances/seed3-5x5c3.txt\", [[{}]])",
        cm.display()
    );
    stdout_of(&["specs/colourmaze/colourmaze.idp", "-e", &chunk]);
    let cells = svg_cells(&std::fs::read_to_string(&cm).unwrap());
    assert_eq!(cells.len(), 25);
    assert!(cells[&(4, 0)].contains("Go") && cells[&(4, 0)].contains("Paint"));
    let of = temp_file("overflow.svg");
    let chunk = format!(
        "picture(\"specs/overflow/levels/small4x5.txt\", [[{}]])",
        of.display()
    );
    stdout_of(&["specs/overflow/overflow.idp", "-e", &chunk]);
    let cells = svg_cells(&std::fs::read_to_string(&of).unwrap());
    assert_eq!(cells.len(), 20);
    assert_eq!(cells.values().filter(|l| l.contains("Wet")).count(), 8);
}

#[test]
fn command_line_svg_files_per_model() {
    let file = temp_file("models.svg");
    let flag = format!("--visualize=svg:{}", file.display());
    stdout_of(&["-n", "1", &flag, "specs/maze/construction.idp"]);
    let cells = svg_cells(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(cells.len(), 25);
}

/// `--visualize` draws a function from one coordinate to the other: N-queens' `Queen(Index) :
/// Index` marks the cell (row, Queen(row)) of every row.
#[test]
fn function_grid_of_n_queens() {
    let out = stdout_of(&["-n", "1", "--visualize", "examples/nqueens.idp"]);
    let expected = "\
6 x 6 grid of Index x Index; 1st coordinate across, 2nd up
6 . . . . Q .
5 . . Q . . .
4 Q . . . . .
3 . . . . . Q
2 . . . Q . .
1 . Q . . . .
  1 2 3 4 5 6
Q: Queen
";
    assert!(
        out.contains("Queen = { 1->4; 2->1; 3->5; 4->2; 5->6; 6->3 }"),
        "{out}"
    );
    assert!(
        out.ends_with(&format!("{expected}Number of models: 1\n")),
        "{out}"
    );
}

/// With a sort named `Row`, the argument is the row (counted from the top) and the value the
/// column; the SVG has a label in exactly the cells of the function's graph.
#[test]
fn function_grid_row_to_column_in_svg() {
    let file = temp_file("queens.idp");
    std::fs::write(
        &file,
        "vocabulary V {\n type Row isa int\n type Col isa int\n Queen(Row) : Col\n}\n\
         structure S : V {\n Row = { 0..3 }\n Col = { 0..3 }\n Queen = { 0->1; 1->3; 2->0; 3->2 }\n}\n\
         procedure main() {\n visualize(S, { svg = arg_svg })\n}\n",
    )
    .unwrap();
    let svg = temp_file("queens.svg");
    let chunk = format!("arg_svg = [[{}]] main()", svg.display());
    let out = stdout_of(&[file.to_str().unwrap(), "-e", &chunk]);
    let expected = "\
structure S: 4 x 4 grid of Row x Col; 1st coordinate down (rows), 2nd across
0 . Q . .
1 . . . Q
2 Q . . .
3 . . Q .
  0 1 2 3
Q: Queen
";
    assert_eq!(out, expected);
    let cells = svg_cells(&std::fs::read_to_string(&svg).unwrap());
    let queens: BTreeSet<(i64, i64)> = cells
        .iter()
        .filter(|(_, l)| l.contains("Queen"))
        .map(|(&at, _)| at)
        .collect();
    assert_eq!(queens, BTreeSet::from([(0, 1), (1, 3), (2, 0), (3, 2)]));
}

/// Two symbols whose values are the same numbers (gates and keys by number) are told apart:
/// each value is written after its symbol's glyph and coloured by the symbol.
#[test]
fn values_of_two_symbols_are_tagged() {
    let file = temp_file("tags.idp");
    std::fs::write(
        &file,
        r#"vocabulary V {
    type X isa int
    type Y isa int
    type Key isa int
    type Pos constructed from { P(X, Y) }
    Wall(Pos)
    GateAt(Pos, Key)
    KeyAt(Pos, Key)
}
structure S : V {
    X = { 0..3 }
    Y = { 0..0 }
    Key = { 1..2 }
    Wall = { P(3,0) }
    GateAt = { P(0,0),1; P(2,0),2 }
    KeyAt = { P(1,0),1 }
}
procedure main() {
    visualize(S)
    visualize(S, { show = { "KeyAt" }, glyphs = { KeyAt = "k" }, colours = { KeyAt = "orange" },
                   unicode = true })
}
"#,
    )
    .unwrap();
    let out = stdout_of(&[file.to_str().unwrap()]);
    let second = out.rfind("structure S").unwrap();
    let expected = "\
structure S: 4 x 1 grid of Pos; 1st coordinate across, 2nd up
0 G1 K1 G2 ###
  0  1  2  3
#: Wall  G<n>: GateAt  K<n>: KeyAt
";
    assert_eq!(&out[..expected.len()], expected, "{out}");
    let second = &out[second..];
    assert!(
        second.contains("\x1b[33mk1"),
        "an orange key in the terminal: {second:?}"
    );
    assert!(second.contains("k<n>: KeyAt"), "{second:?}");
}

/// Overflow's SVG draws every tile's pipes in its rotation (grey) and the water in them (blue):
/// read back from the lines of the SVG, every tile has the pipes of its kind, the water runs
/// inside the pipes of the wet tiles (all of them, except a bridge's dry crossing pipe) and
/// continues into the neighbour on every side it leaves, and dry tiles carry none.
#[test]
fn overflow_svg_draws_pipes_in_their_rotation() {
    for (level, wet_tiles) in [("small4x5", 8), ("twooceans", 9)] {
        let path = format!("specs/overflow/levels/{level}.txt");
        let svg = temp_file(&format!("{level}.svg"));
        let chunk = format!("picture({path:?}, [[{}]])", svg.display());
        stdout_of(&["specs/overflow/overflow.idp", "-e", &chunk]);
        let doc = std::fs::read_to_string(&svg).unwrap();
        let rows: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("//"))
            .map(str::to_string)
            .collect();
        let pipes = pipe_masks(&doc, "dimgray");
        let water = pipe_masks(&doc, "blue");
        let cells = svg_cells(&doc);
        let wet: BTreeSet<(i64, i64)> = cells
            .iter()
            .filter(|(_, l)| l.contains("Wet") || l.contains("Ocean") && l.contains("Link"))
            .map(|(&at, _)| at)
            .collect();
        let mut counted = 0;
        for (&(r, c), layers) in &cells {
            let tile = rows
                .get(r as usize)
                .and_then(|row| row.chars().nth(c as usize))
                .unwrap_or(' ');
            let pipe = pipes.get(&(r, c)).copied().unwrap_or(0);
            let flow = water.get(&(r, c)).copied().unwrap_or(0);
            let ok = match tile {
                '-' => pipe == N | S || pipe == E | W,
                'L' => [N | E, E | S, S | W, W | N].contains(&pipe),
                '+' => pipe == N | E | S | W,
                'U' => pipe.count_ones() == 1,
                '#' => pipe.count_ones() <= 1,
                _ => pipe == 0,
            };
            assert!(
                ok,
                "{level}: tile {tile:?} at {:?} has pipes {pipe:04b}",
                (r, c)
            );
            assert_eq!(
                flow & !pipe,
                0,
                "{level}: water outside the pipes at {:?}",
                (r, c)
            );
            if flow != 0 {
                counted += 1;
                assert!(layers.contains("Link"), "{:?}: {layers:?}", (r, c));
                if tile != '+' {
                    assert_eq!(flow, pipe, "{level}: a wet tile is full at {:?}", (r, c));
                }
                for (bit, back, (dr, dc)) in [
                    (N, S, (-1, 0)),
                    (E, W, (0, 1)),
                    (S, N, (1, 0)),
                    (W, E, (0, -1)),
                ] {
                    if flow & bit != 0 {
                        let next = water.get(&(r + dr, c + dc)).copied().unwrap_or(0);
                        assert!(
                            next & back != 0,
                            "{level}: water leaves {:?} into a dry side",
                            (r, c)
                        );
                    }
                }
            } else {
                assert!(
                    !wet.contains(&(r, c)) || tile == '#',
                    "{level}: wet tile without water at {:?}",
                    (r, c)
                );
            }
        }
        assert_eq!(counted, wet_tiles, "{level}: tiles with water");
    }
}

const N: u8 = 1;
const E: u8 = 2;
const S: u8 = 4;
const W: u8 = 8;

/// The direction lines of one colour, as a mask of sides per (row, col) cell: a line starts at
/// the centre of its cell (located through the `rect class="cell"` elements) and goes to a side.
fn pipe_masks(doc: &str, colour: &str) -> BTreeMap<(i64, i64), u8> {
    let elements = parse_xml(doc).unwrap();
    let num = |e: &Element, k: &str| e.attrs[k].parse::<f64>().unwrap();
    let mut centres = BTreeMap::new();
    for e in elements
        .iter()
        .filter(|e| e.attrs.get("class").map(String::as_str) == Some("cell"))
    {
        let at = (num(e, "data-row") as i64, num(e, "data-col") as i64);
        let centre = (
            num(e, "x") + num(e, "width") / 2.0,
            num(e, "y") + num(e, "height") / 2.0,
        );
        centres.insert(format!("{},{}", centre.0, centre.1), at);
    }
    let mut masks = BTreeMap::new();
    for e in elements
        .iter()
        .filter(|e| e.attrs.get("class").map(String::as_str) == Some("dir"))
    {
        if e.attrs["stroke"] != colour {
            continue;
        }
        let key = format!("{},{}", num(e, "x1"), num(e, "y1"));
        let at = *centres
            .get(&key)
            .unwrap_or_else(|| panic!("a line not from a centre: {key}"));
        let (dx, dy) = (num(e, "x2") - num(e, "x1"), num(e, "y2") - num(e, "y1"));
        let sign = |v: f64| (v > 0.0) as i64 - (v < 0.0) as i64;
        let bit = match (sign(dx), sign(dy)) {
            (0, -1) => N,
            (1, 0) => E,
            (0, 1) => S,
            (-1, 0) => W,
            other => panic!("a slanted line {other:?}"),
        };
        *masks.entry(at).or_insert(0) |= bit;
    }
    masks
}

/// `Cell(Num, Num)` meant as (row, column): the caption says which coordinate runs which way,
/// and the option `rows` (`--grid=rows` on the command line) turns the picture into a matrix.
#[test]
fn the_caption_says_which_coordinate_runs_where_and_rows_turns_it() {
    let path = temp_file("cell.idp");
    let text = "vocabulary V {\n  type Num isa int\n  Cell(Num, Num)\n}\ntheory T : V { }\n\
                structure S : V {\n  Num = { 1..3 }\n  Cell = { 1,2; 1,3; 3,1 }\n}\n\
                procedure main() {\n  visualize(S)\n  visualize(S, { rows = true })\n}\n";
    std::fs::write(&path, text).unwrap();
    let as_xy = "\
structure S: 3 x 3 grid of Num x Num; 1st coordinate across, 2nd up
3 C . .
2 C . .
1 . . C
  1 2 3
C: Cell
";
    let as_rows = "\
structure S: 3 x 3 grid of Num x Num; 1st coordinate down (rows), 2nd across
1 . C C
2 . . .
3 C . .
  1 2 3
C: Cell
";
    let p = path.to_str().unwrap();
    assert_eq!(stdout_of(&[p]), format!("{as_xy}{as_rows}"));
    let drawn = stdout_of(&["-n", "1", "--visualize", "--grid=rows", p]);
    assert!(
        drawn.ends_with(&format!(
            "{}Number of models: 1\n",
            as_rows.replace("structure S: ", "")
        )),
        "{drawn}"
    );
    let out = idp(&["-n", "1", "--visualize", "--grid=diagonal", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'diagonal'"));
}
