//! Every command in the README runs as written (issue 17): the commands of its `sh` code blocks
//! and the `$ ` lines of its other code blocks, run from the repository root with `idp` (and
//! `cargo run --release --`) replaced by the built binary, each with its exit code and one line
//! of its output checked. A command added to the README fails this test until it has an entry
//! below; only the commands in [`SKIPPED`] are not run. The README's first specification is
//! `examples/first.idp`, word for word.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The README's commands that are not run, and why.
const SKIPPED: &[(&str, &str)] = &[
    ("cargo install --path .", "installs into ~/.cargo/bin"),
    ("cargo test --release", "runs this test"),
    ("idp -i examples/first.idp", "interactive shell"),
    (
        "idp serve specs/maze/construction.idp",
        "a server that runs until stopped",
    ),
    (
        "idp specs/maze/game.idp -e 'play(\"specs/maze/game/onekey.txt\")'",
        "interactive game (tests/game.rs plays it)",
    ),
    (
        "idp specs/maze/game.idp -e 'play()'",
        "interactive game (tests/game.rs plays it)",
    ),
];

/// Each command that runs: its exit code, and a line of its output (stdout or stderr) that
/// must be there, whole, or begin with the text before a final `...`.
const EXPECTED: &[(&str, i32, &str)] = &[
    ("idp examples/first.idp", 0, "  Seat = { Ann->1; Bob->3; Cy->2 }"),
    (
        "cargo run --release -- specs/maze/construction.idp",
        0,
        "#: Wall  E: Entrance  X: Exit",
    ),
    ("idp examples/graph-colouring.idp", 0, "colourings: 18"),
    (
        r#"printf '%s\n' '{"op":"assume","literal":"Seat(Ann) = 1"}' '{"op":"forced"}' | idp consult examples/first.idp"#,
        0,
        r#"{"complete":true,"false":["Seat(Ann) = 2","Seat(Ann) = 3","Seat(Bob) = 1","Seat(Bob) = 2","Seat(Cy) = 1","Seat(Cy) = 3"],"ms":..."#,
    ),
    ("idp examples/lamps.idp", 0, "{ 0,b2; 1,b3; 2,b1 }"),
    (
        "idp -n 1 --visualize examples/nqueens.idp",
        10,
        "6 x 6 grid of Index x Index; 1st coordinate across, 2nd up",
    ),
    (
        "idp examples/reachability.idp",
        0,
        "  Reach = { \"a\",\"b\"; \"a\",\"c\"; \"b\",\"b\"; \"b\",\"c\"; \"c\",\"b\"; \"c\",\"c\" }",
    ),
    (
        "idp specs/maze/construction.idp -e 'generate(21, 7)'",
        0,
        "21 x 21 grid of Pos; 1st coordinate across, 2nd up",
    ),
    ("idp specs/maze/game.idp -e 'plan()'", 0, "Shortest plan: 24 steps"),
    (
        "idp specs/theseus/theseus.idp -e 'solve()'",
        0,
        "at(2,1,0) at(1,1,1) at(2,1,2) at(3,1,3) at(3,2,4)",
    ),
    ("idp examples/nqueens.idp", 0, "solutions for 6 queens: 4"),
    (
        "idp examples/graph-colouring.idp -e 'printmodels(modelexpand(T, S))'",
        0,
        "Number of models: 1",
    ),
    ("idp -n 0 examples/first.idp", 10, "Number of models: 2"),
    (
        "idp -n 1 --minimize TotalCost examples/minimisation.idp",
        10,
        "Optimal value: 8",
    ),
    (
        "idp -n 1 --explain tests/explain/unreachable_node.idp",
        20,
        "Why: 2 parts of the theory and 4 facts of the structure have no model together; without any one of them there is one.",
    ),
    (
        "idp -n 1 --explain-atom 'Seat(Cy) = 2' examples/first.idp",
        10,
        "Seat(Cy) = 2 holds in every model, because of 2 parts of the theory (without any one of them it need not):",
    ),
    ("idp --check examples/einstein.idp", 0, ""),
    ("idp fmt --check examples/first.idp", 0, ""),
    (
        "idp --check --message-format json examples/first.idp",
        0,
        r#"{"$idp":"summary","procedures":["main"],"structures":["S"],"terms":[],"theories":["T"],"vocabularies":["V"]}"#,
    ),
    ("idp --dump program examples/first.idp", 0, "vocabulary V {"),
    (
        "idp --dump ground -n 1 examples/first.idp",
        10,
        "// ground theory (16 formulas)",
    ),
    (
        "idp --stats examples/einstein.idp",
        0,
        "[stats] definition at examples/einstein.idp:32:5 evaluated in ...",
    ),
    (
        "idp --max-ground-size 1000000 examples/einstein.idp",
        0,
        "Number of solutions: 1",
    ),
    (
        "idp --timeout 60 --max-memory 4000 examples/einstein.idp",
        0,
        "Number of solutions: 1",
    ),
    (
        "idp --sandbox examples/einstein.idp",
        0,
        "  pet = { dog->4; fox->1; horse->2; snails->3; zebra->5 }",
    ),
    (
        "idp --sat splr -n 1 examples/first.idp",
        10,
        "  Seat = { Ann->1; Bob->3; Cy->2 }",
    ),
    ("idp --count examples/first.idp", 10, "Number of models: 2"),
    (
        "idp --threads 2 examples/einstein.idp",
        0,
        "  pet = { dog->4; fox->1; horse->2; snails->3; zebra->5 }",
    ),
    (
        "idp --sandbox --timeout 30 --max-memory 2000 examples/einstein.idp",
        0,
        "Number of solutions: 1",
    ),
    (
        "idp specs/maze/construction.idp",
        0,
        "#: Wall  E: Entrance  X: Exit",
    ),
    (
        "idp specs/maze/construction.idp -e 'print_maze(11, 3)'",
        0,
        "structure  : Vvariety {",
    ),
    (
        "idp specs/maze/construction.idp -e 'search(11)'",
        0,
        "structure  : Vmaze {",
    ),
    (
        "idp specs/maze/game.idp -e 'plan(\"specs/maze/game/wrongkey.txt\")'",
        0,
        "Shortest plan: 24 steps",
    ),
    (
        "idp specs/maze/game.idp -e 'plan(\"specs/maze/game/wrongkey.txt\", true)'",
        0,
        "-- time 24, keys held: {}",
    ),
    (
        "idp specs/maze/game.idp -e 'plan_ltc(\"specs/maze/game/wrongkey.txt\")'",
        0,
        "Shortest plan: 24 steps",
    ),
    (
        "idp specs/maze/game.idp -e 'picture(\"specs/maze/game/wrongkey.txt\")'",
        0,
        "time 24:",
    ),
    (
        "idp specs/theseus/theseus.idp",
        0,
        "at(2,1,0) at(1,1,1) at(2,1,2) at(3,1,3) at(3,2,4)",
    ),
    (
        "idp specs/theseus/theseus.idp -e 'solve(\"specs/theseus/levels/th04_6x6_maze.lp\")'",
        0,
        "at(6,3,0) at(6,2,1) at(6,1,2) ...",
    ),
    (
        "idp specs/theseus/theseus.idp -e 'can_escape(\"specs/theseus/levels/th02_5x5_rand.lp\")'",
        0,
        "yes: at(3,4,0) ...",
    ),
    (
        "idp specs/theseus/theseus.idp -e 'draw(\"specs/theseus/levels/example.lp\")'",
        0,
        "step 4: Theseus (3,2), Minotaur (2,2)",
    ),
    (
        "idp specs/theseus/theseus.idp -e 'solve_time(\"specs/theseus/levels/th01_4x4_rand.lp\")'",
        0,
        "at(3,1,0) at(2,1,1) ...",
    ),
    (
        "idp specs/theseus/theseus.idp -e 'picture()'",
        0,
        "3 x 3 grid of X x Y; 1st coordinate across, 2nd up",
    ),
    ("idp specs/colourmaze/colourmaze.idp", 0, "Unique: yes"),
    (
        "idp specs/colourmaze/colourmaze.idp -e 'solvefile(\"specs/colourmaze/instances/seed4-5x5c4.txt\")'",
        0,
        "Path: (4,0) (3,0) (3,1) (4,1) (4,2) (4,3) (3,3) (2,3) (1,3) (0,3) (0,4)",
    ),
    (
        "idp specs/colourmaze/colourmaze.idp -e 'countfile(\"specs/colourmaze/instances/seed7-6x6c4.txt\")'",
        0,
        "Solutions: 1",
    ),
    (
        "idp specs/colourmaze/colourmaze.idp -e 'generate(5, 2, 1, 3)'",
        0,
        "Puzzle 3 (5x5, 2 colours, unique, ...",
    ),
    (
        "idp specs/colourmaze/colourmaze.idp -e 'solve({ \"0120\", \"1201\", \"2010\", \"0210\" }, 2)'",
        0,
        "Puzzle (4x4, 2 colours):",
    ),
    ("idp specs/overflow/overflow.idp", 0, "Score: 8 (optimal)"),
    (
        "idp specs/overflow/overflow.idp -e 'solvefile(\"specs/overflow/levels/twooceans.txt\")'",
        0,
        "Score: 9 (optimal)",
    ),
    (
        "idp specs/overflow/overflow.idp -e 'solvelevel({ \"U-L\", \" L#\" })'",
        0,
        "Score: 4 (optimal)",
    ),
    (
        "idp specs/overflow/overflow.idp -e 'solvelevel(randomlevel(16, 16, 4))'",
        0,
        "Score: ...",
    ),
    (
        "idp specs/overflow/overflow.idp -e 'allsolutions({ \"U-L\", \" L#\" })'",
        0,
        "Solution: 4 0,0,E 0,1,E 0,1,W 0,2,S 0,2,W 1,2,N",
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README and the guide's reference pages (moved out of the README, issue 51): their
/// commands run as written too.
fn readme() -> String {
    let mut text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let reference = root().join("docs/src/reference");
    let mut pages: Vec<_> = std::fs::read_dir(&reference)
        .expect("docs/src/reference")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(page).expect("a readable page"));
    }
    text
}

/// The code blocks of a Markdown text: (info string, lines).
fn code_blocks(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (fence, open.take()) {
            (Some(_), Some(block)) => blocks.push(block),
            (Some(info), None) => open = Some((info.trim().to_string(), Vec::new())),
            (None, Some(mut block)) => {
                block.1.push(line);
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    blocks
}

/// A command line without its trailing comment (a `#` after a blank, outside quotes).
fn without_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return line[..i].trim_end(),
            None => {}
        }
        previous = c;
    }
    line.trim_end()
}

/// The README's commands, in order, each once.
fn readme_commands() -> Vec<String> {
    let text = readme();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (info, lines) in code_blocks(&text) {
        for line in lines {
            let command = if info == "sh" {
                line
            } else if let Some(rest) = line.strip_prefix("$ ") {
                rest
            } else {
                continue;
            };
            let command = without_comment(command.trim());
            if command.is_empty() || command.starts_with('#') {
                continue;
            }
            if seen.insert(command.to_string()) {
                out.push(command.to_string());
            }
        }
    }
    out
}

/// `command` with `idp` and `cargo run --release --` replaced by the built binary.
fn with_binary(command: &str) -> String {
    let bin = support::IDP;
    if let Some(rest) = command.strip_prefix("cargo run --release --") {
        return format!("{bin}{rest}");
    }
    // `idp` at the start, or after a pipe.
    let piped = command.replace("| idp ", &format!("| {bin} "));
    match piped.strip_prefix("idp ") {
        Some(rest) => format!("{bin} {rest}"),
        None => piped,
    }
}

fn run(command: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(with_binary(command))
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// Whether `output` has `line` as a whole line (or a line starting with `line` less a final
/// `...`); the empty line stands for "no output at all".
fn has_line(output: &str, line: &str) -> bool {
    if line.is_empty() {
        return output.is_empty();
    }
    match line.strip_suffix("...") {
        Some(prefix) => output.lines().any(|l| l.starts_with(prefix)),
        None => output.lines().any(|l| l == line),
    }
}

/// What is wrong with one command's run, if anything.
fn check(command: &str, code: i32, line: &str) -> Option<String> {
    let o = run(command);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let both = if line.is_empty() {
        format!("{stdout}{stderr}")
    } else {
        format!("{stdout}\n{stderr}")
    };
    if o.status.code() == Some(code) && has_line(&both, line) {
        return None;
    }
    let cut = |s: &str| s.chars().take(2000).collect::<String>();
    Some(format!(
        "{command}\n  exit {:?} (expected {code}), expected the line {line:?}\n  stdout: {}\n  stderr: {}",
        o.status.code(),
        cut(&stdout),
        cut(&stderr)
    ))
}

#[test]
fn every_readme_command_is_listed_here() {
    let commands = readme_commands();
    let known: BTreeSet<&str> = EXPECTED
        .iter()
        .map(|(c, _, _)| *c)
        .chain(SKIPPED.iter().map(|(c, _)| *c))
        .collect();
    let unknown: Vec<&String> = commands
        .iter()
        .filter(|c| !known.contains(c.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "README commands without an entry in tests/readme.rs: {unknown:#?}"
    );
    let stale: Vec<&&str> = known
        .iter()
        .filter(|k| !commands.iter().any(|c| c == *k))
        .collect();
    assert!(
        stale.is_empty(),
        "entries of tests/readme.rs no longer in the README: {stale:#?}"
    );
}

#[test]
fn every_readme_command_runs_as_written() {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = EXPECTED
            .chunks(EXPECTED.len().div_ceil(3))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|(command, code, line)| check(command, *code, line))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_first_specification_is_the_bundled_file() {
    let text = readme();
    let spec = code_blocks(&text)
        .into_iter()
        .find(|(info, _)| info == "idp")
        .map(|(_, lines)| lines.join("\n") + "\n")
        .expect("an idp code block in the README");
    let file = std::fs::read_to_string(root().join("examples/first.idp")).expect("first.idp");
    assert_eq!(spec, file);
}

#[test]
fn comments_are_cut_outside_quotes_only() {
    assert_eq!(
        without_comment("idp a.idp -e 'f({ \" L#\" })'   # every solution"),
        "idp a.idp -e 'f({ \" L#\" })'"
    );
    assert_eq!(without_comment("idp a.idp"), "idp a.idp");
}
