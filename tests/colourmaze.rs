//! The colour maze (seed 003, `specs/colourmaze/colourmaze.idp`), checked from outside.
//!
//! The spec's answers are checked by code of this test that shares nothing with the spec:
//!
//! * a rule checker for a printed path (starts bottom-left, ends top-right, 4-neighbouring
//!   steps, no cell twice, as many cells of every non-white colour);
//! * a counter of solutions by depth-first enumeration of all simple paths from the start to
//!   the finish (feasible up to 6 x 6: 1 262 816 corner-to-corner paths);
//! * random small grids: the number of solutions the spec finds (`countsolutions`) must equal
//!   the enumeration's;
//! * every instance file: its printed path is checked, and up to 6 x 6 its "Unique: yes/no"
//!   against the enumeration; so is the uniqueness check `unique` on random grids;
//! * generated puzzles (`generate`): the seed's generator rules (white start and finish, fewer
//!   than n + 2 white cells, every colour present), the printed solution, and uniqueness by the
//!   enumeration.
//!
//! The default run takes about 10-20 s in release. A bigger sweep of the generator (ten
//! puzzles each of 4x4/2, 4x4/3, 4x4/4, 5x5/2, 5x5/3, 6x6/4) is ignored by default:
//! `cargo test --release --test colourmaze -- --ignored`.

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;
use support::{lua_rows, relative, run_spec, txt_files, Rng};

const SPEC: &str = "specs/colourmaze/colourmaze.idp";

type Cell = (usize, usize);

/// A puzzle: `grid[r][c]` is the colour of row r (0 = top), column c; colours are 0..=k.
#[derive(Debug, Clone, PartialEq)]
struct Puzzle {
    grid: Vec<Vec<u8>>,
    k: u8,
}

impl Puzzle {
    fn from_rows(rows: &[&str], k: u8) -> Puzzle {
        let grid = rows
            .iter()
            .map(|r| r.bytes().map(|b| b - b'0').collect())
            .collect();
        Puzzle { grid, k }
    }

    fn n(&self) -> usize {
        self.grid.len()
    }

    fn rows(&self) -> Vec<String> {
        self.grid
            .iter()
            .map(|r| r.iter().map(|v| char::from(b'0' + v)).collect())
            .collect()
    }

    /// The puzzle as a Lua table of strings.
    fn lua(&self) -> String {
        lua_rows(&self.rows())
    }

    fn start(&self) -> Cell {
        (self.n() - 1, 0)
    }

    fn finish(&self) -> Cell {
        (0, self.n() - 1)
    }
}

/// The 4-neighbours of a cell inside an n x n grid.
fn neighbours(n: usize, (r, c): Cell) -> impl Iterator<Item = Cell> {
    let steps: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
    steps.into_iter().filter_map(move |(dr, dc)| {
        let r2 = r.checked_add_signed(dr)?;
        let c2 = c.checked_add_signed(dc)?;
        (r2 < n && c2 < n).then_some((r2, c2))
    })
}

/// True when the colour counts `counts[1..=k]` are all equal.
fn balanced(counts: &[usize]) -> bool {
    counts[1..].iter().all(|&x| x == counts[1])
}

/// Checks a path against the rules; the error names the broken rule.
fn check_path(p: &Puzzle, path: &[Cell]) -> Result<(), String> {
    let n = p.n();
    if path.first() != Some(&p.start()) {
        return Err(format!("does not start at {:?}", p.start()));
    }
    if path.last() != Some(&p.finish()) {
        return Err(format!("does not end at {:?}", p.finish()));
    }
    let mut seen = vec![vec![false; n]; n];
    let mut counts = vec![0usize; p.k as usize + 1];
    for (i, &(r, c)) in path.iter().enumerate() {
        if r >= n || c >= n {
            return Err(format!("({r},{c}) is outside the grid"));
        }
        if seen[r][c] {
            return Err(format!("({r},{c}) is visited twice"));
        }
        seen[r][c] = true;
        counts[p.grid[r][c] as usize] += 1;
        if i > 0 && !neighbours(n, path[i - 1]).any(|q| q == (r, c)) {
            return Err(format!("{:?} -> ({r},{c}) is not a step", path[i - 1]));
        }
    }
    if !balanced(&counts) {
        return Err(format!("unequal colour counts {:?}", &counts[1..]));
    }
    Ok(())
}

/// The number of solutions, by enumerating every simple path from the start to the finish.
fn count_by_enumeration(p: &Puzzle) -> usize {
    fn dfs(p: &Puzzle, at: Cell, seen: &mut [Vec<bool>], counts: &mut [usize]) -> usize {
        if at == p.finish() {
            return usize::from(balanced(counts));
        }
        let mut total = 0;
        for q in neighbours(p.n(), at) {
            if !seen[q.0][q.1] {
                seen[q.0][q.1] = true;
                counts[p.grid[q.0][q.1] as usize] += 1;
                total += dfs(p, q, seen, counts);
                counts[p.grid[q.0][q.1] as usize] -= 1;
                seen[q.0][q.1] = false;
            }
        }
        total
    }
    let n = p.n();
    let mut seen = vec![vec![false; n]; n];
    let mut counts = vec![0usize; p.k as usize + 1];
    let s = p.start();
    seen[s.0][s.1] = true;
    counts[p.grid[s.0][s.1] as usize] += 1;
    dfs(p, s, &mut seen, &mut counts)
}

/// Runs the spec with `-e expr` (or its main when `expr` is None) and returns stdout.
fn run(expr: Option<&str>) -> String {
    run_spec(SPEC, expr)
}

/// Parses "Path: (r,c) (r,c) ..." lines.
fn parse_path(line: &str) -> Vec<Cell> {
    line.trim_start_matches("Path:")
        .split_whitespace()
        .map(|t| {
            let (a, b) = t
                .trim_matches(|ch| ch == '(' || ch == ')')
                .split_once(',')
                .expect("(r,c)");
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

/// One answer of `solve` or `generate`: the puzzle grid printed, its path and uniqueness.
#[derive(Debug)]
struct Answer {
    rows: Vec<String>,
    path: Option<Vec<Cell>>,
    unique: Option<bool>,
    drawing: Vec<String>,
}

/// Splits the output of `solve`/`generate` into answers (each starts with a "Puzzle" line).
fn parse_answers(out: &str) -> Vec<Answer> {
    let mut answers = Vec::new();
    let mut lines = out.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with("Puzzle") {
            continue;
        }
        let mut a = Answer {
            rows: vec![],
            path: None,
            unique: None,
            drawing: vec![],
        };
        while let Some(l) =
            lines.next_if(|l| l.bytes().all(|b| b.is_ascii_digit()) && !l.is_empty())
        {
            a.rows.push(l.to_string());
        }
        while let Some(l) = lines.next_if(|l| !l.starts_with("Puzzle")) {
            if let Some(rest) = l.strip_prefix("Unique: ") {
                a.unique = Some(rest == "yes");
            } else if l.starts_with("Path:") {
                a.path = Some(parse_path(l));
            } else if l != "Solution:" && l != "No solution." && !l.is_empty() {
                a.drawing.push(l.to_string());
            }
        }
        answers.push(a);
    }
    answers
}

/// Draws a path as the spec does (cells on the path show their colour, others a dot, steps
/// joined by '-' and '|'), from the path alone, to check the printed drawing.
fn draw(p: &Puzzle, path: &[Cell]) -> Vec<String> {
    let n = p.n();
    let mut canvas = vec![vec![' '; 2 * n - 1]; 2 * n - 1];
    for r in 0..n {
        for c in 0..n {
            canvas[2 * r][2 * c] = '.';
        }
    }
    for &(r, c) in path {
        canvas[2 * r][2 * c] = char::from(b'0' + p.grid[r][c]);
    }
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (r, c) = (a.0 + b.0, a.1 + b.1);
        canvas[r][c] = if a.0 == b.0 { '-' } else { '|' };
    }
    canvas
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// A random n x n grid with colours 0..=k and white start and finish.
fn random_puzzle(rng: &mut Rng, n: usize, k: u8) -> Puzzle {
    let mut grid: Vec<Vec<u8>> = (0..n)
        .map(|_| (0..n).map(|_| rng.below(k as u64 + 1) as u8).collect())
        .collect();
    grid[n - 1][0] = 0;
    grid[0][n - 1] = 0;
    Puzzle { grid, k }
}

#[test]
fn checker_and_counter_agree_on_hand_made_cases() {
    let p = Puzzle::from_rows(&["0120", "1201", "2010", "0210"], 2);
    let good = [(3, 0), (3, 1), (3, 2), (2, 2), (1, 2), (0, 2), (0, 3)];
    assert_eq!(check_path(&p, &good), Ok(()));
    let unbalanced = [
        (3, 0),
        (2, 0),
        (1, 0),
        (0, 0),
        (0, 1),
        (1, 1),
        (1, 2),
        (0, 2),
        (0, 3),
    ];
    assert!(check_path(&p, &unbalanced).unwrap_err().contains("unequal"));
    let jump = [(3, 0), (3, 2), (2, 2), (1, 2), (0, 2), (0, 3)];
    assert!(check_path(&p, &jump).unwrap_err().contains("not a step"));
    let twice = [
        (3, 0),
        (3, 1),
        (2, 1),
        (3, 1),
        (3, 2),
        (2, 2),
        (1, 2),
        (0, 2),
        (0, 3),
    ];
    assert!(check_path(&p, &twice).unwrap_err().contains("twice"));
    // All-white 3 x 3: every one of the 12 corner-to-corner paths is a solution.
    let white = Puzzle::from_rows(&["000", "000", "000"], 2);
    assert_eq!(count_by_enumeration(&white), 12);
    // 6 x 6 all white: 1 262 816 simple corner-to-corner paths (OEIS A007764).
    let white6 = Puzzle::from_rows(&["000000"; 6], 1);
    assert_eq!(count_by_enumeration(&white6), 1_262_816);
    assert_eq!(
        draw(&p, &good),
        vec![". . 2-0", "    |", ". . 0 .", "    |", ". . 1 .", "    |", "0-2-1 ."]
    );
}

/// The number of solutions of random 3x3 and 4x4 grids: spec against enumeration.
#[test]
fn solution_counts_match_enumeration_on_random_grids() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut puzzles = Vec::new();
    for (n, k, count) in [(3, 1, 6), (3, 2, 10), (4, 2, 14), (4, 3, 14), (5, 3, 6)] {
        for _ in 0..count {
            puzzles.push(random_puzzle(&mut rng, n, k));
        }
    }
    let expr: Vec<String> = puzzles
        .iter()
        .map(|p| format!("countsolutions({}, {})", p.lua(), p.k))
        .collect();
    let out = run(Some(&expr.join("; ")));
    let counts: Vec<usize> = out
        .lines()
        .filter_map(|l| l.strip_prefix("Solutions: "))
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(counts.len(), puzzles.len(), "one count per puzzle:\n{out}");
    let mut nonzero = 0;
    for (p, &got) in puzzles.iter().zip(&counts) {
        let want = count_by_enumeration(p);
        assert_eq!(got, want, "solutions of {:?}", p.rows());
        nonzero += usize::from(want > 0);
    }
    // The sample must exercise both solvable and unsolvable grids.
    assert!(nonzero > 5 && nonzero < puzzles.len(), "{nonzero} solvable");
}

/// Reads an instance file the way the spec does: digit rows, "# colours: k" or the largest digit.
fn read_instance(path: &Path) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap();
    let mut k = 0u8;
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(given) = line.strip_prefix("# colours:") {
            k = k.max(given.trim().parse().unwrap());
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            rows.push(line.trim().to_string());
        }
    }
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut p = Puzzle::from_rows(&refs, 0);
    p.k = k.max(p.grid.iter().flatten().copied().max().unwrap_or(0));
    p
}

fn instance_files() -> Vec<PathBuf> {
    txt_files("specs/colourmaze/instances")
}

/// Checks one printed answer against the puzzle: the grid, the path's rules, the drawing and
/// (up to 6 x 6) the uniqueness claim and the existence of a solution by enumeration.
fn check_answer(p: &Puzzle, a: &Answer, what: &str) {
    assert_eq!(a.rows, p.rows(), "{what}: printed grid");
    let exact = (p.n() <= 6).then(|| count_by_enumeration(p));
    match &a.path {
        None => assert!(exact.is_none_or(|c| c == 0), "{what}: no solution printed"),
        Some(path) => {
            check_path(p, path).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(a.drawing, draw(p, path), "{what}: drawing");
            if let (Some(count), Some(unique)) = (exact, a.unique) {
                assert_eq!(unique, count == 1, "{what}: {count} solutions");
            }
        }
    }
}

#[test]
fn every_instance_file_is_solved_correctly() {
    let files = instance_files();
    assert!(files.len() >= 8, "instances: {files:?}");
    for f in files {
        let p = read_instance(&f);
        let rel = relative(&f);
        let t = Instant::now();
        let out = run(Some(&format!("solvefile(\"{rel}\")")));
        let answers = parse_answers(&out);
        assert_eq!(answers.len(), 1, "{out}");
        check_answer(&p, &answers[0], &rel);
        eprintln!("{rel}: {:.2} s", t.elapsed().as_secs_f64());
    }
}

#[test]
fn main_solves_the_six_by_six_four_colour_maze_uniquely() {
    let out = run(None);
    let a = &parse_answers(&out)[0];
    let p = Puzzle::from_rows(
        &["411210", "231231", "334231", "301134", "222323", "014021"],
        4,
    );
    check_answer(&p, a, "main");
    assert_eq!(a.unique, Some(true));
    assert_eq!(count_by_enumeration(&p), 1);
}

/// The uniqueness check `unique(rows, k)` against the enumeration.
#[test]
fn uniqueness_check_matches_enumeration() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut puzzles: Vec<Puzzle> = (0..20).map(|_| random_puzzle(&mut rng, 4, 3)).collect();
    // The instance files up to 6 x 6 add puzzles with exactly one solution.
    puzzles.extend(
        instance_files()
            .iter()
            .map(|f| read_instance(f))
            .filter(|p| p.n() <= 6),
    );
    let expr: Vec<String> = puzzles
        .iter()
        .map(|p| format!("print(unique({}, {}))", p.lua(), p.k))
        .collect();
    let out = run(Some(&expr.join("; ")));
    let got: Vec<bool> = out.lines().map(|l| l == "true").collect();
    assert_eq!(got.len(), puzzles.len(), "{out}");
    for (p, &unique) in puzzles.iter().zip(&got) {
        assert_eq!(unique, count_by_enumeration(p) == 1, "{:?}", p.rows());
    }
    // The sample must hold unique and non-unique puzzles.
    let yes = got.iter().filter(|&&u| u).count();
    assert!(yes > 0 && yes < got.len(), "{yes} of {} unique", got.len());
}

/// Generates `count` puzzles of each (n, k) and checks each: generator rules, solution, and
/// exactly one solution by enumeration.
fn generate_and_check(cases: &[(usize, u8)], count: usize, seed: u32) {
    for &(n, k) in cases {
        let t = Instant::now();
        let out = run(Some(&format!("generate({n}, {k}, {seed}, {count})")));
        let answers = parse_answers(&out);
        assert_eq!(answers.len(), count, "{out}");
        for (i, a) in answers.iter().enumerate() {
            let rows: Vec<&str> = a.rows.iter().map(String::as_str).collect();
            let p = Puzzle::from_rows(&rows, k);
            let what = format!("generate({n}, {k}, {seed}) puzzle {}", i + 1);
            assert_eq!(p.n(), n, "{what}: size");
            assert!(p.grid.iter().all(|r| r.len() == n), "{what}: square");
            assert_eq!(p.grid[n - 1][0], 0, "{what}: white start");
            assert_eq!(p.grid[0][n - 1], 0, "{what}: white finish");
            let whites = p.grid.iter().flatten().filter(|&&v| v == 0).count();
            assert!(whites < n + 2, "{what}: {whites} white cells");
            for colour in 1..=k {
                assert!(
                    p.grid.iter().flatten().any(|&v| v == colour),
                    "{what}: colour {colour}"
                );
            }
            assert!(p.grid.iter().flatten().all(|&v| v <= k), "{what}: colours");
            let path = a.path.as_ref().unwrap_or_else(|| panic!("{what}: no path"));
            check_path(&p, path).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(a.drawing, draw(&p, path), "{what}: drawing");
            assert_eq!(count_by_enumeration(&p), 1, "{what}: not unique");
        }
        eprintln!(
            "generate({n}, {k}, {seed}, {count}): {:.2} s",
            t.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn generated_puzzles_have_exactly_one_solution() {
    generate_and_check(&[(4, 2), (4, 3), (5, 2), (6, 4)], 2, 5);
}

/// `cargo test --release --test colourmaze -- --ignored` (about a minute).
#[test]
#[ignore]
fn generator_sweep() {
    generate_and_check(&[(4, 2), (4, 3), (4, 4), (5, 2), (5, 3), (6, 4)], 10, 17);
}
