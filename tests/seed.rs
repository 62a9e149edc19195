//! The maze seed (seed 000): part I (`specs/maze/construction.idp`) checks cleanly; part II's
//! vocabularies and theories, copied verbatim into `tests/fixtures/seed000_part2.idp`, give
//! located errors at their real mistakes and nothing else goes wrong.

mod support;

use std::path::Path;
use std::process::{Output, Stdio};

/// Runs `idp --check FILE` with stderr piped (so not a terminal: plain rendering).
fn check(rel: &str) -> Output {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    support::idp_command()
        .arg("--check")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the idp binary runs")
}

/// A diagnostic line of the plain rendering:
/// `Error: <message> At <file>:<line>:<col> [<code>]`.
#[derive(Debug, PartialEq)]
struct Line {
    error: bool,
    code: String,
    line: u32,
    col: u32,
    message: String,
}

fn parse_plain(stderr: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for l in stderr.lines() {
        let error = l.starts_with("Error: ");
        if !error && !l.starts_with("Warning: ") {
            continue;
        }
        let Some(open) = l.rfind(" [") else { continue };
        let code = l[open + 2..].trim_end_matches(']').to_string();
        let head = &l[..open];
        let (message, line, col) = match head.rfind(" At ") {
            Some(at) => {
                let mut pos = head[at + 4..].rsplitn(3, ':');
                let col = pos.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                let line = pos.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                (head[..at].to_string(), line, col)
            }
            None => (head.to_string(), 0, 0),
        };
        let message = message
            .trim_start_matches("Error: ")
            .trim_start_matches("Warning: ")
            .to_string();
        out.push(Line {
            error,
            code,
            line,
            col,
            message,
        });
    }
    out
}

fn assert_no_crash(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(101), "idp panicked:\n{err}");
    assert!(
        o.status.code().is_some(),
        "idp was killed by a signal:\n{err}"
    );
    assert!(!err.contains("panicked"), "idp panicked:\n{err}");
}

#[test]
fn part1_construction_checks_cleanly() {
    let o = check("specs/maze/construction.idp");
    assert_no_crash(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines = parse_plain(&err);
    assert!(lines.iter().all(|l| !l.error), "errors:\n{err}");
    // No warning at all: IDP3's notice that the structure S is closed is shown only with
    // --verbose (it says nothing about the specification).
    assert_eq!(err, "", "{err}");
    let verbose = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--check", "--verbose", "specs/maze/construction.idp"])
        .output()
        .expect("the idp binary runs");
    assert_eq!(verbose.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&verbose.stderr),
        "Warning: Verifying and/or autocompleting structure S At specs/maze/construction.idp:161:11 [autocomplete]\n"
    );
    let quiet = support::idp_command()
        .args(["--check", "--nowarnings"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/maze/construction.idp"))
        .output()
        .expect("the idp binary runs");
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
}

#[test]
fn part2_verbatim_reports_its_real_mistakes() {
    let o = check("tests/fixtures/seed000_part2.idp");
    assert_no_crash(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains('\u{1b}'), "plain rendering expected:\n{err}");
    let lines = parse_plain(&err);
    // Every diagnostic is located in the fixture.
    assert!(
        err.lines()
            .filter(|l| l.starts_with("Error") || l.starts_with("Warning"))
            .all(|l| l.contains("seed000_part2.idp:")),
        "{err}"
    );
    let errors: Vec<(&str, u32, u32)> = lines
        .iter()
        .filter(|l| l.error)
        .map(|l| (l.code.as_str(), l.line, l.col))
        .collect();
    let expected = [
        // Vbase, `partial Next(Time) isa nat`: the value type of a function follows ':'.
        ("syntax-error", 4, 24),
        // Vbase, `type Direction constructed from (U , D, L , R)`: braces, not parentheses.
        ("syntax-error", 9, 37),
        // Vbase, `Player Orientation (Time) : Direction`: a name cannot contain a space.
        ("syntax-error", 22, 12),
        // Vbase is never closed: the next block starts at line 30.
        ("syntax-error", 30, 1),
        // Since Next is declared Time -> nat, no LTC vocabulary has a proper Next.
        ("ltc-vocabulary", 30, 15),
        ("ltc-vocabulary", 50, 15),
        ("ltc-vocabulary", 61, 15),
        // V_state redeclares the symbols it already gets from Vbase (through Vtypes).
        ("duplicate-name", 65, 5),
        ("duplicate-name", 66, 5),
        ("duplicate-name", 67, 5),
        ("duplicate-name", 68, 5),
        ("duplicate-name", 71, 5),
        ("duplicate-name", 73, 5),
        ("duplicate-name", 76, 5),
        ("ltc-vocabulary", 79, 15),
        ("ltc-vocabulary", 107, 15),
        // T_maze, `Completed(Next(t) <-`: the '(' of Completed is never closed.
        ("syntax-error", 198, 41),
    ];
    assert_eq!(errors, expected, "\n{err}");

    // The two mistakes named in the issue, with what the messages say.
    let at = |line, col| {
        lines
            .iter()
            .find(|l| l.error && l.line == line && l.col == col)
            .unwrap_or_else(|| panic!("no error at {line}:{col}:\n{err}"))
    };
    let unclosed = at(198, 41);
    assert!(unclosed.message.contains("never closed"), "{err}");
    let space = at(22, 12);
    assert!(space.message.contains("'Orientation'"), "{err}");
    assert!(
        err.contains("hint: a symbol name cannot contain a space"),
        "{err}"
    );
    assert!(err.contains("hint: add a ')'"), "{err}");

    // Errors and warnings in the order of their positions: a warning comes before a later
    // error, never after it.
    let positions: Vec<(u32, u32)> = lines.iter().map(|l| (l.line, l.col)).collect();
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted, "\n{err}");
    let warnings: Vec<(&str, u32, u32)> = lines
        .iter()
        .filter(|l| !l.error)
        .map(|l| (l.code.as_str(), l.line, l.col))
        .collect();
    assert_eq!(
        warnings,
        [
            ("unused-variable", 196, 19),
            ("unused-variable", 257, 10),
            ("unused-variable", 257, 15),
            ("unused-variable", 278, 27),
            ("unused-variable", 292, 10),
            ("unused-variable", 292, 15),
        ],
        "\n{err}"
    );
    let before_last_error = lines.iter().position(|l| l.line == 198 && l.error).unwrap();
    assert_eq!(lines[before_last_error - 1].line, 196, "\n{err}");
    // No parser-internal token names.
    for word in ["Tok::", "Ident", "LParen", "RBrace", "LArrow", "Eof"] {
        assert!(!err.contains(word), "internal name {word} in:\n{err}");
    }
}

#[test]
fn part2_fixture_is_verbatim() {
    // The fixture is the seed's part II code blocks (all but the procedure), joined by newlines.
    let seed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds/000_8e16bf54b2a4ee11.txt");
    let Ok(seed) = std::fs::read_to_string(&seed) else {
        eprintln!("skipping: seed not found");
        return;
    };
    let part2 = &seed[seed.find("## II. Solving A Maze").expect("part II")..];
    let mut blocks = Vec::new();
    let mut rest = part2;
    while let Some(i) = rest.find("```prolog\n") {
        let body = &rest[i + "```prolog\n".len()..];
        let end = body.find("```").expect("closed code block");
        blocks.push(&body[..end]);
        rest = &body[end + 3..];
    }
    let chosen: Vec<&str> = blocks
        .into_iter()
        .filter(|b| !b.trim_start().starts_with("procedure"))
        .collect();
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/seed000_part2.idp"),
    )
    .expect("fixture");
    assert_eq!(fixture, chosen.join("\n"));
}
