//! Overflow (seed 004, `specs/overflow/overflow.idp`), checked from outside.
//!
//! The spec's answers are checked by code of this test that shares nothing with the spec:
//!
//! * a rule checker for a printed answer ("Links:" and "Score:"): links are shared by both
//!   neighbours, every tile links what its kind allows (straight: two opposite sides; curved:
//!   two adjacent sides; bridge: two opposite sides or all four; ocean: one side; moat: at most
//!   one; blank: none), and simulating the water from each ocean along the links wets every link
//!   and ends in a moat of its own; the score is the number of tiles with links;
//! * a brute force that pours the water: from each ocean in turn it follows the flow tile by
//!   tile, trying every way a tile can turn the water (a curved tile two, the others one), and
//!   records every way in which all oceans reach a moat, with its score;
//! * random small levels: the set of all solutions the spec prints (`allsolutions`) must equal
//!   the brute force's, and so must the optimum (`solvelevel`, i.e. `maximize`);
//! * every level file: the answer is checked, and its score against the brute force's optimum.
//!
//! The default run takes a few seconds in release. A larger sweep (more and bigger random
//! levels) is ignored by default: `cargo test --release --test overflow -- --ignored`.

mod support;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use support::{lua_rows, relative, run_spec, txt_files, Rng};

const SPEC: &str = "specs/overflow/overflow.idp";

/// Directions N, E, S, W as 0..4; `(d + 2) % 4` is the opposite one.
const DIRS: [char; 4] = ['N', 'E', 'S', 'W'];
const STEP: [(isize, isize); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

fn opposite(d: usize) -> usize {
    (d + 2) % 4
}

/// A link: the tile at (row, column) links its side d.
type Link = (usize, usize, usize);

/// A level: rows of the seed's symbols, padded with blanks to a rectangle.
#[derive(Debug, Clone)]
struct Level {
    rows: Vec<Vec<u8>>,
}

impl Level {
    fn new(rows: &[&str]) -> Level {
        let w = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let rows = rows
            .iter()
            .map(|r| {
                let mut v = r.as_bytes().to_vec();
                v.resize(w, b' ');
                v
            })
            .collect();
        Level { rows }
    }

    fn h(&self) -> usize {
        self.rows.len()
    }

    fn w(&self) -> usize {
        self.rows[0].len()
    }

    fn at(&self, r: usize, c: usize) -> u8 {
        self.rows[r][c]
    }

    fn step(&self, r: usize, c: usize, d: usize) -> Option<(usize, usize)> {
        let r2 = r.checked_add_signed(STEP[d].0)?;
        let c2 = c.checked_add_signed(STEP[d].1)?;
        (r2 < self.h() && c2 < self.w()).then_some((r2, c2))
    }

    fn oceans(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for r in 0..self.h() {
            for c in 0..self.w() {
                if self.at(r, c) == b'U' {
                    v.push((r, c));
                }
            }
        }
        v
    }

    /// The level as a Lua table of strings.
    fn lua(&self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect();
        lua_rows(&rows)
    }
}

/// The tile kinds and the channels they can offer.
mod brute {
    use super::*;

    /// Every solution: the set of links of the wet tiles, with its score.
    pub fn solutions(level: &Level, cap: usize) -> Option<Vec<(BTreeSet<Link>, usize)>> {
        let mut state = Pour {
            level,
            // used[r][c][d]: the side d of the tile carries water.
            used: vec![vec![[false; 4]; level.w()]; level.h()],
            found: Vec::new(),
            cap,
        };
        let oceans = level.oceans();
        if oceans.is_empty() {
            return Some(vec![]);
        }
        state.next_ocean(&oceans, 0).then_some(state.found)
    }

    struct Pour<'a> {
        level: &'a Level,
        used: Vec<Vec<[bool; 4]>>,
        found: Vec<(BTreeSet<Link>, usize)>,
        cap: usize,
    }

    impl Pour<'_> {
        /// Starts the flow of ocean `i` in each direction; false when the cap was hit.
        fn next_ocean(&mut self, oceans: &[(usize, usize)], i: usize) -> bool {
            if i == oceans.len() {
                self.record();
                return self.found.len() <= self.cap;
            }
            let (r, c) = oceans[i];
            for d in 0..4 {
                self.used[r][c][d] = true;
                let ok = self.flow(oceans, i, r, c, d);
                self.used[r][c][d] = false;
                if !ok {
                    return false;
                }
            }
            true
        }

        /// Water leaves (r,c) through side d; follows it into the next tile.
        fn flow(
            &mut self,
            oceans: &[(usize, usize)],
            i: usize,
            r: usize,
            c: usize,
            d: usize,
        ) -> bool {
            let Some((r2, c2)) = self.level.step(r, c, d) else {
                return true; // Off the level: this way fails.
            };
            let entry = opposite(d);
            let sides = self.used[r2][c2];
            let busy = sides.iter().any(|&b| b);
            let exits: Vec<usize> = match self.level.at(r2, c2) {
                b'#' if !busy => vec![],
                b'-' if !busy => vec![d],
                b'L' if !busy => vec![(d + 1) % 4, (d + 3) % 4],
                // A bridge: the channel of this axis must be free.
                b'+' if !sides[entry] && !sides[d] => vec![d],
                _ => return true, // Blank, ocean, or a used tile or channel: this way fails.
            };
            self.used[r2][c2][entry] = true;
            let mut ok = true;
            if self.level.at(r2, c2) == b'#' {
                ok = self.next_ocean(oceans, i + 1);
            } else {
                for e in exits {
                    self.used[r2][c2][e] = true;
                    ok = self.flow(oceans, i, r2, c2, e);
                    self.used[r2][c2][e] = false;
                    if !ok {
                        break;
                    }
                }
            }
            self.used[r2][c2][entry] = false;
            ok
        }

        fn record(&mut self) {
            let mut links = BTreeSet::new();
            let mut score = 0;
            for (r, row) in self.used.iter().enumerate() {
                for (c, sides) in row.iter().enumerate() {
                    score += usize::from(sides.iter().any(|&b| b));
                    for (d, &b) in sides.iter().enumerate() {
                        if b {
                            links.insert((r, c, d));
                        }
                    }
                }
            }
            self.found.push((links, score));
        }
    }
}

/// Checks an answer (its links and score) against the rules; the error names the broken rule.
fn check_answer(level: &Level, links: &BTreeSet<Link>, score: usize) -> Result<(), String> {
    let mut sides = vec![vec![[false; 4]; level.w()]; level.h()];
    for &(r, c, d) in links {
        if r >= level.h() || c >= level.w() {
            return Err(format!("link ({r},{c}) outside the level"));
        }
        sides[r][c][d] = true;
    }
    for &(r, c, d) in links {
        match level.step(r, c, d) {
            Some((r2, c2)) if links.contains(&(r2, c2, opposite(d))) => {}
            _ => return Err(format!("link ({r},{c},{}) is not shared", DIRS[d])),
        }
    }
    let mut wet_tiles = 0;
    for (r, row) in sides.iter().enumerate() {
        for (c, &s) in row.iter().enumerate() {
            let n = s.iter().filter(|&&b| b).count();
            wet_tiles += usize::from(n > 0);
            let opposite_pair = n == 2 && (s[0] && s[2] || s[1] && s[3]);
            let ok = match level.at(r, c) {
                b'-' => n == 0 || opposite_pair,
                b'L' => n == 0 || (n == 2 && !opposite_pair),
                b'+' => n == 0 || opposite_pair || n == 4,
                b'U' => n == 1,
                b'#' => n <= 1,
                _ => n == 0,
            };
            if !ok {
                return Err(format!(
                    "tile ({r},{c}) '{}' links {s:?}",
                    level.at(r, c) as char
                ));
            }
        }
    }
    // Pour the water along the links: from each ocean to a moat, wetting every link once.
    let mut poured: HashSet<Link> = HashSet::new();
    let mut moats = HashSet::new();
    for (r0, c0) in level.oceans() {
        let mut d = (0..4).find(|&d| sides[r0][c0][d]).unwrap();
        let (mut r, mut c) = (r0, c0);
        poured.insert((r, c, d));
        loop {
            let (r2, c2) = level.step(r, c, d).unwrap();
            let entry = opposite(d);
            if !poured.insert((r2, c2, entry)) {
                return Err(format!("the water of ocean ({r0},{c0}) meets other water"));
            }
            match level.at(r2, c2) {
                b'#' => {
                    moats.insert((r2, c2));
                    break;
                }
                b'U' => return Err(format!("ocean ({r0},{c0}) flows into an ocean")),
                b'+' => {} // Straight across: d stays.
                _ => d = (0..4).find(|&e| e != entry && sides[r2][c2][e]).unwrap(),
            }
            poured.insert((r2, c2, d));
            (r, c) = (r2, c2);
        }
    }
    if poured.len() != links.len() {
        return Err(format!(
            "{} links carry no water",
            links.len() - poured.len()
        ));
    }
    if moats.len() != level.oceans().len() {
        return Err("two oceans share a moat".into());
    }
    if score != wet_tiles {
        return Err(format!("score {score}, but {wet_tiles} tiles are wet"));
    }
    Ok(())
}

/// Draws a solved level as the spec does, from the level and the links alone: 3x3 characters
/// per tile, '~' from the centre of a wet tile to each side it links, 'U' and '#' at the centre
/// of oceans and moats, '~' at the centre of other wet tiles, a dry tile's symbol at its centre,
/// in a frame.
fn draw(level: &Level, links: &BTreeSet<Link>) -> Vec<String> {
    let edge = format!("+{}+", "-".repeat(3 * level.w()));
    let mut out = vec![edge.clone()];
    for r in 0..level.h() {
        let mut lines = [String::new(), String::new(), String::new()];
        for c in 0..level.w() {
            let l = |d: usize| if links.contains(&(r, c, d)) { '~' } else { ' ' };
            let wet = (0..4).any(|d| links.contains(&(r, c, d)));
            let ch = level.at(r, c) as char;
            let centre = if wet && ch != 'U' && ch != '#' {
                '~'
            } else {
                ch
            };
            lines[0].extend([' ', l(0), ' ']);
            lines[1].extend([l(3), centre, l(1)]);
            lines[2].extend([' ', l(2), ' ']);
        }
        out.extend(lines.into_iter().map(|x| format!("|{x}|")));
    }
    out.push(edge);
    out
}

/// The drawing printed after "Solved level:".
fn printed_drawing(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| *l != "Solved level:")
        .skip(1)
        .take_while(|l| l.starts_with('|') || l.starts_with('+'))
        .map(str::to_string)
        .collect()
}

/// Runs the spec with `-e expr` (or its main when `expr` is None) and returns stdout.
fn run(expr: Option<&str>) -> String {
    run_spec(SPEC, expr)
}

/// Parses "r,c,D r,c,D ..." into links.
fn parse_links(text: &str) -> BTreeSet<Link> {
    text.split_whitespace()
        .map(|t| {
            let mut parts = t.split(',');
            let r = parts.next().unwrap().parse().unwrap();
            let c = parts.next().unwrap().parse().unwrap();
            let d = parts.next().unwrap().chars().next().unwrap();
            (r, c, DIRS.iter().position(|&x| x == d).unwrap())
        })
        .collect()
}

/// The answers of `solvelevel` calls: `None` for "No solution.", else the score and links.
fn parse_solved(out: &str) -> Vec<Option<(usize, BTreeSet<Link>)>> {
    let mut answers = Vec::new();
    let mut score = None;
    for line in out.lines() {
        if line == "No solution." {
            answers.push(None);
        } else if let Some(s) = line.strip_prefix("Score: ") {
            score = Some(s.split_whitespace().next().unwrap().parse().unwrap());
            assert!(s.ends_with("(optimal)"), "not proven optimal: {line}");
        } else if let Some(l) = line.strip_prefix("Links: ") {
            answers.push(Some((score.take().unwrap(), parse_links(l))));
        }
    }
    answers
}

/// The answers of `allsolutions` calls: per level, the set of (links, score).
fn parse_all(out: &str) -> Vec<BTreeSet<(BTreeSet<Link>, usize)>> {
    let mut all = Vec::new();
    let mut current = BTreeSet::new();
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("Solution: ") {
            let (score, links) = rest.split_once(' ').unwrap_or((rest, ""));
            current.insert((parse_links(links), score.parse().unwrap()));
        } else if let Some(n) = line.strip_prefix("Solutions: ") {
            assert_eq!(n.parse::<usize>().unwrap(), current.len(), "count line");
            all.push(std::mem::take(&mut current));
        }
    }
    all
}

/// A random h x w level with the given numbers of oceans and moats at random places.
fn random_level(rng: &mut Rng, h: usize, w: usize, oceans: usize, moats: usize) -> Level {
    let pick = b"---LLL+ ";
    let mut rows: Vec<Vec<u8>> = (0..h)
        .map(|_| (0..w).map(|_| pick[rng.below(8) as usize]).collect())
        .collect();
    let mut place = |ch: u8, count: usize, rows: &mut Vec<Vec<u8>>| {
        let mut placed = 0;
        while placed < count {
            let (r, c) = (rng.below(h as u64) as usize, rng.below(w as u64) as usize);
            if rows[r][c] != b'U' && rows[r][c] != b'#' {
                rows[r][c] = ch;
                placed += 1;
            }
        }
    };
    place(b'U', oceans, &mut rows);
    place(b'#', moats, &mut rows);
    let strs: Vec<String> = rows
        .iter()
        .map(|r| String::from_utf8_lossy(r).into())
        .collect();
    let refs: Vec<&str> = strs.iter().map(String::as_str).collect();
    Level::new(&refs)
}

fn random_levels(seed: u64, shapes: &[(usize, usize, usize, usize, usize)]) -> Vec<Level> {
    let mut rng = Rng(seed);
    let mut levels = Vec::new();
    for &(h, w, oceans, moats, count) in shapes {
        for _ in 0..count {
            levels.push(random_level(&mut rng, h, w, oceans, moats));
        }
    }
    levels
}

/// All solutions and the optimum of each level: spec against brute force.
fn compare_with_brute_force(levels: &[Level]) {
    let all_expr: Vec<String> = levels
        .iter()
        .map(|l| format!("allsolutions({})", l.lua()))
        .collect();
    let all = parse_all(&run(Some(&all_expr.join("; "))));
    let best_expr: Vec<String> = levels
        .iter()
        .map(|l| format!("solvelevel({})", l.lua()))
        .collect();
    let best = parse_solved(&run(Some(&best_expr.join("; "))));
    assert_eq!(all.len(), levels.len());
    assert_eq!(best.len(), levels.len());
    let mut solvable = 0;
    for ((level, spec_all), spec_best) in levels.iter().zip(&all).zip(&best) {
        let brute: BTreeSet<(BTreeSet<Link>, usize)> = brute::solutions(level, 1_000_000)
            .expect("small level")
            .into_iter()
            .collect();
        assert_eq!(spec_all, &brute, "all solutions of {:?}", level.lua());
        let optimum = brute.iter().map(|(_, s)| *s).max();
        match (spec_best, optimum) {
            (None, None) => {}
            (Some((score, links)), Some(opt)) => {
                assert_eq!(*score, opt, "optimum of {}", level.lua());
                check_answer(level, links, *score)
                    .unwrap_or_else(|e| panic!("{}: {e}", level.lua()));
                solvable += 1;
            }
            other => panic!("{}: spec and brute force disagree: {other:?}", level.lua()),
        }
    }
    assert!(
        solvable >= levels.len() / 5,
        "only {solvable} solvable levels"
    );
}

#[test]
fn checker_and_brute_force_on_hand_made_levels() {
    // The seed's self-loop: the loop of four curved tiles is fed by no ocean.
    let level = Level::new(&["U-#", "LL ", "LL "]);
    let sols = brute::solutions(&level, 100).unwrap();
    assert_eq!(sols.len(), 1);
    assert_eq!(sols[0].1, 3);
    let path: BTreeSet<Link> = [(0, 0, 1), (0, 1, 3), (0, 1, 1), (0, 2, 3)]
        .into_iter()
        .collect();
    assert_eq!(check_answer(&level, &path, 3), Ok(()));
    let mut with_loop = path.clone();
    with_loop.extend([
        (1, 0, 1),
        (1, 0, 2),
        (1, 1, 3),
        (1, 1, 2),
        (2, 0, 0),
        (2, 0, 1),
        (2, 1, 3),
        (2, 1, 0),
    ]);
    assert!(check_answer(&level, &with_loop, 7)
        .unwrap_err()
        .contains("no water"));
    assert!(check_answer(&level, &path, 4)
        .unwrap_err()
        .contains("score"));
    let unshared: BTreeSet<Link> = [(0, 0, 1), (0, 1, 3), (0, 1, 1)].into_iter().collect();
    assert!(check_answer(&level, &unshared, 2)
        .unwrap_err()
        .contains("not shared"));
    // Two oceans whose flows cross on a bridge: score 9, and the only solution.
    let cross = Level::new(&["  U  ", "  -  ", "U-+-#", "  -  ", "  #  "]);
    let sols = brute::solutions(&cross, 100).unwrap();
    assert_eq!(sols.len(), 1);
    assert_eq!(sols[0].1, 9);
    // Two oceans joined to each other is no solution.
    assert!(brute::solutions(&Level::new(&["U-U"]), 100)
        .unwrap()
        .is_empty());
}

#[test]
fn random_small_levels_match_brute_force() {
    let levels = random_levels(
        0x2545_F491_4F6C_DD1D,
        &[
            (2, 3, 1, 1, 12),
            (3, 3, 1, 1, 20),
            (3, 4, 1, 2, 12),
            (3, 4, 2, 2, 12),
            (4, 4, 2, 2, 8),
        ],
    );
    compare_with_brute_force(&levels);
}

fn level_files() -> Vec<PathBuf> {
    txt_files("specs/overflow/levels")
}

fn read_level(path: &Path) -> Level {
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows: Vec<&str> = text.lines().filter(|l| !l.starts_with("//")).collect();
    while rows.last().is_some_and(|l| l.trim().is_empty()) {
        rows.pop();
    }
    Level::new(&rows)
}

#[test]
fn every_level_file_is_solved_optimally() {
    let files = level_files();
    assert!(files.len() >= 8, "levels: {files:?}");
    for f in files {
        let level = read_level(&f);
        let rel = relative(&f);
        let out = run(Some(&format!("solvefile(\"{rel}\")")));
        let answers = parse_solved(&out);
        assert_eq!(answers.len(), 1, "{out}");
        let brute = brute::solutions(&level, 2_000_000);
        let optimum = brute.as_ref().map(|s| s.iter().map(|(_, x)| *x).max());
        match &answers[0] {
            None => assert!(
                matches!(optimum, Some(None)),
                "{rel}: no solution, brute force: {optimum:?}"
            ),
            Some((score, links)) => {
                check_answer(&level, links, *score).unwrap_or_else(|e| panic!("{rel}: {e}"));
                assert_eq!(printed_drawing(&out), draw(&level, links), "{rel}: drawing");
                if let Some(opt) = optimum {
                    assert_eq!(Some(*score), opt, "{rel}: optimum");
                }
            }
        }
        eprintln!(
            "{rel}: {:?}, brute force {}",
            answers[0].as_ref().map(|a| a.0),
            match optimum {
                Some(o) => format!("{o:?}"),
                None => "capped".into(),
            }
        );
    }
}

#[test]
fn main_level_scores_eight() {
    let out = run(None);
    let answers = parse_solved(&out);
    let level = Level::new(&["U-L-L", "L+-+L", "-L+L-", "L-L #"]);
    let (score, links) = answers[0].clone().expect("solved");
    assert_eq!(score, 8);
    check_answer(&level, &links, score).unwrap();
    assert_eq!(printed_drawing(&out), draw(&level, &links));
}

/// `cargo test --release --test overflow -- --ignored` (about 5 s).
#[test]
#[ignore]
fn random_levels_sweep() {
    let levels = random_levels(
        0xDEAD_BEEF_CAFE_F00D,
        &[
            (3, 3, 1, 1, 60),
            (4, 5, 1, 1, 60),
            (5, 5, 2, 2, 40),
            (6, 6, 1, 1, 30),
            (6, 6, 2, 3, 30),
        ],
    );
    compare_with_brute_force(&levels);
}
