//! Theseus and the Minotaur (seeds 001 and 002, `specs/theseus/theseus.idp`), checked from outside.
//!
//! The test has its own breadth-first search over (Theseus, Minotaur) states and its own move
//! validator, written from the rules in the spec's header (not from the spec's theories). For
//! every instance it compares what the binary prints with the search: escapable within maxsteps
//! or not, and the length of the shortest escape; every printed escape is replayed move by move
//! (legal moves, never eaten, ends on the goal after exactly the printed number of steps).
//!
//! Instances: seed 002's example, the bundled levels in `specs/theseus/levels` (seed 002's
//! example and the peers' twenty boards, whose header optima this test's search confirms),
//! and generated ones: seed 001's setting (6x6, 15 to 40 hedges, random positions and move limits
//! 0 to 15) and larger boards up to 16x16 (random hedges or a random spanning-tree maze with
//! extra openings). The generator is deterministic (a seeded xorshift generator).
//!
//! Timings (release build, 2 cores shared with other jobs): the default tests take 20-55 s in all
//! (about 25 s of CPU), most of it the 70 boards solved with the time formulation; the 341
//! instances with the default formulation take a few seconds of CPU.
//! `cargo test --release --test theseus -- --ignored` runs the larger sweeps (1000 more boards of
//! seed 001's setting, 30 boards with escapes of 30 to 90 moves, and three boards with escapes of
//! 101 to 149 moves that must each be solved within 30 s (1.2-2.9 s measured); about 35 s).
//! `THESEUS_OUT=dir cargo test --release --test theseus -- --ignored write_instances` writes
//! generated instances (with their BFS optimum in a header comment) for `bench/theseus.sh`.

mod support;

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const SPEC: &str = "specs/theseus/theseus.idp";
const LEVELS: &str = "specs/theseus/levels";

/// Numbers the temporary directories of the runs.
static RUNS: AtomicUsize = AtomicUsize::new(0);

type Field = (i64, i64);

/// One instance in seed 002's terms.
#[derive(Clone, Debug)]
struct Board {
    name: String,
    fields: BTreeSet<Field>,
    /// Each wall once, as (smaller field, larger field).
    walls: BTreeSet<(Field, Field)>,
    start: Field,
    goal: Field,
    mino: Field,
    maxsteps: i64,
}

impl Board {
    fn blocked(&self, a: Field, b: Field) -> bool {
        !self.fields.contains(&b) || self.walls.contains(&(a.min(b), a.max(b)))
    }

    /// Theseus's moves from `p`: waiting, or to a neighbouring field without a wall.
    fn moves(&self, p: Field) -> Vec<Field> {
        let mut out = vec![p];
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let q = (p.0 + dx, p.1 + dy);
            if !self.blocked(p, q) {
                out.push(q);
            }
        }
        out
    }

    /// One half-move of the Minotaur on `m` towards Theseus on `p`.
    fn half(&self, m: Field, p: Field) -> Field {
        let sx = (p.0 - m.0).signum();
        let sy = (p.1 - m.1).signum();
        if sx != 0 && !self.blocked(m, (m.0 + sx, m.1)) {
            return (m.0 + sx, m.1);
        }
        if sy != 0 && !self.blocked(m, (m.0, m.1 + sy)) {
            return (m.0, m.1 + sy);
        }
        m
    }

    fn reply(&self, m: Field, p: Field) -> Field {
        self.half(self.half(m, p), p)
    }

    /// The length of a shortest escape within maxsteps, by breadth-first search.
    fn shortest(&self) -> Option<i64> {
        if self.start == self.goal {
            return Some(0);
        }
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        seen.insert((self.start, self.mino));
        queue.push_back((self.start, self.mino, 0));
        while let Some((p, m, d)) = queue.pop_front() {
            if d >= self.maxsteps {
                continue;
            }
            for q in self.moves(p) {
                let n = self.reply(m, q);
                if n == q {
                    continue;
                }
                if q == self.goal {
                    return Some(d + 1);
                }
                if seen.insert((q, n)) {
                    queue.push_back((q, n, d + 1));
                }
            }
        }
        None
    }

    /// Replays an escape given as Theseus's fields after steps 0, 1, ...
    fn validate(&self, path: &[Field]) -> Result<(), String> {
        if path.first() != Some(&self.start) {
            return Err(format!(
                "does not start on the start field {:?}",
                self.start
            ));
        }
        let mut m = self.mino;
        for (s, w) in path.windows(2).enumerate() {
            let (p, q) = (w[0], w[1]);
            if !self.moves(p).contains(&q) {
                return Err(format!("step {}: {p:?} -> {q:?} is not a move", s + 1));
            }
            if p == self.goal {
                return Err(format!("step {}: continues after reaching the goal", s + 1));
            }
            m = self.reply(m, q);
            if m == q {
                return Err(format!("step {}: eaten on {q:?}", s + 1));
            }
        }
        if path.last() != Some(&self.goal) {
            return Err("does not end on the goal".into());
        }
        if path.len() as i64 - 1 > self.maxsteps {
            return Err("longer than maxsteps".into());
        }
        Ok(())
    }

    /// The instance in seed 002's facts format.
    fn facts(&self) -> String {
        let mut out = String::new();
        for &(x, y) in &self.fields {
            out.push_str(&format!("field({x},{y}).\n"));
        }
        let (s, g, m) = (self.start, self.goal, self.mino);
        out.push_str(&format!(
            "start({},{}).\ngoal({},{}).\n",
            s.0, s.1, g.0, g.1
        ));
        out.push_str(&format!(
            "mino({},{}).\nmaxsteps({}).\n",
            m.0, m.1, self.maxsteps
        ));
        for ((a, b), (c, d)) in &self.walls {
            out.push_str(&format!("wall({a},{b},{c},{d}).\n"));
        }
        out
    }
}

/// Reads seed 002's facts (with ranges and `%` comments).
fn parse_facts(name: &str, text: &str) -> Board {
    let mut facts: HashMap<String, Vec<Vec<i64>>> = HashMap::new();
    for line in text.lines() {
        let line = line.split('%').next().unwrap();
        for fact in line.split(").").filter(|f| f.contains('(')) {
            let (pred, args) = fact.trim().split_once('(').unwrap();
            let mut tuples: Vec<Vec<i64>> = vec![vec![]];
            for arg in args.split(',') {
                let values: Vec<i64> = match arg.trim().split_once("..") {
                    Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect(),
                    None => vec![arg.trim().parse().unwrap()],
                };
                tuples = tuples
                    .iter()
                    .flat_map(|t| values.iter().map(move |v| [t.clone(), vec![*v]].concat()))
                    .collect();
            }
            facts
                .entry(pred.trim().to_string())
                .or_default()
                .extend(tuples);
        }
    }
    let one = |p: &str| {
        let t = &facts[p][0];
        (t[0], t[1])
    };
    Board {
        name: name.to_string(),
        fields: facts["field"].iter().map(|t| (t[0], t[1])).collect(),
        walls: facts
            .get("wall")
            .map(|ws| {
                ws.iter()
                    .map(|t| {
                        let (a, b) = ((t[0], t[1]), (t[2], t[3]));
                        (a.min(b), a.max(b))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        start: one("start"),
        goal: one("goal"),
        mino: one("mino"),
        maxsteps: facts["maxsteps"][0][0],
    }
}

/// A small deterministic random number generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n as u64) as i64
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below(hi - lo + 1)
    }
}

/// Every pair of neighbouring fields of a w x h board, once.
fn edges(w: i64, h: i64) -> Vec<(Field, Field)> {
    let mut out = Vec::new();
    for x in 1..=w {
        for y in 1..=h {
            if x < w {
                out.push(((x, y), (x + 1, y)));
            }
            if y < h {
                out.push(((x, y), (x, y + 1)));
            }
        }
    }
    out
}

/// `count` distinct random walls.
fn random_walls(rng: &mut Rng, w: i64, h: i64, count: usize) -> BTreeSet<(Field, Field)> {
    let mut all = edges(w, h);
    let mut out = BTreeSet::new();
    while out.len() < count.min(all.len()) {
        let k = rng.below(all.len() as i64) as usize;
        out.insert(all.swap_remove(k));
    }
    out
}

/// The walls of a random spanning-tree maze, with a share of them opened again.
fn maze_walls(rng: &mut Rng, w: i64, h: i64, open_percent: i64) -> BTreeSet<(Field, Field)> {
    let mut tree = HashSet::new();
    let mut seen = HashSet::from([(1, 1)]);
    let mut stack = vec![(1, 1)];
    while let Some(&(x, y)) = stack.last() {
        let next: Vec<Field> = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .map(|(dx, dy)| (x + dx, y + dy))
            .filter(|&(a, b)| a >= 1 && a <= w && b >= 1 && b <= h && !seen.contains(&(a, b)))
            .collect();
        if next.is_empty() {
            stack.pop();
            continue;
        }
        let q = next[rng.below(next.len() as i64) as usize];
        tree.insert(((x, y).min(q), (x, y).max(q)));
        seen.insert(q);
        stack.push(q);
    }
    edges(w, h)
        .into_iter()
        .filter(|e| !tree.contains(e) && rng.below(100) >= open_percent)
        .collect()
}

/// Three distinct random fields: start, goal, Minotaur.
fn positions(rng: &mut Rng, w: i64, h: i64) -> (Field, Field, Field) {
    loop {
        let mut pick = || (rng.range(1, w), rng.range(1, h));
        let (s, g, m) = (pick(), pick(), pick());
        if s != g && s != m && g != m {
            return (s, g, m);
        }
    }
}

fn grid(w: i64, h: i64) -> BTreeSet<Field> {
    (1..=w).flat_map(|x| (1..=h).map(move |y| (x, y))).collect()
}

/// Seed 001's setting: 6x6, 15 to 40 hedges, random positions, 0 to 15 moves.
fn seed001_instance(k: u64) -> Board {
    let mut rng = Rng::new(1000 + k);
    let hedges = rng.range(15, 40) as usize;
    let walls = random_walls(&mut rng, 6, 6, hedges);
    let (start, goal, mino) = positions(&mut rng, 6, 6);
    Board {
        name: format!("seed001_{k}"),
        fields: grid(6, 6),
        walls,
        start,
        goal,
        mino,
        maxsteps: rng.range(0, 15),
    }
}

/// Seed 001's setting on a labyrinth with holes (some fields missing) and shifted coordinates
/// (from `origin` instead of 1): the spec must not assume a full rectangle starting at 1.
fn irregular_instance(k: u64) -> Board {
    let mut board = seed001_instance(5000 + k);
    let mut rng = Rng::new(9000 + k);
    let keep = [board.start, board.goal, board.mino];
    for _ in 0..rng.range(1, 6) {
        let f = (rng.range(1, 6), rng.range(1, 6));
        if !keep.contains(&f) {
            board.fields.remove(&f);
        }
    }
    let fields = board.fields.clone();
    board
        .walls
        .retain(|(a, b)| fields.contains(a) && fields.contains(b));
    let origin = rng.range(-2, 3);
    let shift = |f: Field| (f.0 + origin - 1, f.1 + origin - 1);
    board.fields = board.fields.iter().map(|&f| shift(f)).collect();
    board.walls = board
        .walls
        .iter()
        .map(|&(a, b)| (shift(a), shift(b)))
        .collect();
    board.start = shift(board.start);
    board.goal = shift(board.goal);
    board.mino = shift(board.mino);
    board.name = format!("irregular_{k}");
    board
}

/// A larger board (7x7 to 16x16) whose shortest escape, if any, is at least `min_opt` long;
/// maxsteps = ceil(1.25 * optimum) + 2 as in the peers' instances (or 40 when there is none).
fn large_instance(k: u64, min_opt: i64) -> Board {
    let mut rng = Rng::new(50_000 + k);
    loop {
        let n = rng.range(7, 16);
        let walls = if rng.below(2) == 0 {
            let share = rng.range(25, 45);
            let count = (edges(n, n).len() as i64 * share / 100) as usize;
            random_walls(&mut rng, n, n, count)
        } else {
            let open = rng.range(15, 40);
            maze_walls(&mut rng, n, n, open)
        };
        let (start, goal, mino) = positions(&mut rng, n, n);
        let mut board = Board {
            name: format!("large_{k}_{n}x{n}"),
            fields: grid(n, n),
            walls,
            start,
            goal,
            mino,
            maxsteps: 1000,
        };
        match board.shortest() {
            Some(opt) if opt >= min_opt => {
                board.maxsteps = (opt * 5 + 3) / 4 + 2;
                return board;
            }
            None if min_opt == 0 => {
                board.maxsteps = 40;
                return board;
            }
            _ => {}
        }
    }
}

fn level_boards() -> Vec<Board> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(LEVELS);
    let entries = std::fs::read_dir(&dir).expect("the bundled levels");
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lp"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let mut board = parse_facts(&f.file_name().unwrap().to_string_lossy(), &text);
            // The header's BFS optimum must agree with this test's search.
            let header: i64 = text
                .lines()
                .find_map(|l| l.strip_prefix("% optimal: "))
                .expect("an optimum in the header")
                .trim()
                .parse()
                .unwrap();
            assert_eq!(
                board.shortest(),
                Some(header),
                "{}: header optimum",
                board.name
            );
            board.name = f.display().to_string();
            board
        })
        .collect()
}

/// Runs `procedure(file)` of the spec on every board in one process; returns the printed lines
/// (one per board).
fn run_spec(procedure: &str, boards: &[Board]) -> Vec<String> {
    // A directory of its own: tests run in parallel within one process.
    let run = RUNS.fetch_add(1, Ordering::SeqCst);
    let dir = support::test_dir(&format!("run-{run}"));
    let mut files = Vec::new();
    for (k, b) in boards.iter().enumerate() {
        let f = dir.join(format!("{k}.lp"));
        std::fs::write(&f, b.facts()).unwrap();
        files.push(format!("{:?}", f.display().to_string()));
    }
    let chunk = format!(
        "for _, f in ipairs({{{}}}) do {procedure}(f) end",
        files.join(",")
    );
    let out = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([SPEC, "--nowarnings", "-e", &chunk])
        .output()
        .expect("idp runs");
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "idp failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = stdout.lines().map(str::to_string).collect();
    assert_eq!(
        lines.len(),
        boards.len(),
        "one line per instance:\n{stdout}"
    );
    lines
}

/// The fields of the `at(X,Y,S)` atoms of a line, by step; `None` for "No escape".
fn parse_escape(line: &str) -> Option<Vec<Field>> {
    if line.contains("No escape") {
        return None;
    }
    let mut steps: Vec<(i64, Field)> = Vec::new();
    for atom in line.split("at(").skip(1) {
        let inner = atom.split(')').next().unwrap();
        let v: Vec<i64> = inner
            .split(',')
            .map(|a| a.trim().parse().unwrap())
            .collect();
        steps.push((v[2], (v[0], v[1])));
    }
    steps.sort();
    for (k, (s, _)) in steps.iter().enumerate() {
        assert_eq!(*s, k as i64, "steps without gaps in {line}");
    }
    Some(steps.into_iter().map(|(_, f)| f).collect())
}

/// Checks the spec's answers on `boards` against the search; returns (escapable, not) counts.
fn check_all(procedure: &str, boards: &[Board]) -> (usize, usize) {
    let lines = run_spec(procedure, boards);
    let mut counts = (0, 0);
    for (board, line) in boards.iter().zip(&lines) {
        let line = line.strip_prefix("yes: ").unwrap_or(line);
        let expected = board.shortest();
        match parse_escape(line) {
            None => {
                assert_eq!(
                    expected,
                    None,
                    "{}: spec finds no escape\n{}",
                    board.name,
                    board.facts()
                );
                counts.1 += 1;
            }
            Some(path) => {
                if let Err(e) = board.validate(&path) {
                    panic!(
                        "{}: invalid escape {line}: {e}\n{}",
                        board.name,
                        board.facts()
                    );
                }
                // can_escape only answers "within maxsteps", not the shortest.
                if procedure != "can_escape" {
                    assert_eq!(
                        Some(path.len() as i64 - 1),
                        expected,
                        "{}: not the shortest escape\n{}",
                        board.name,
                        board.facts()
                    );
                }
                counts.0 += 1;
            }
        }
    }
    counts
}

#[test]
fn seed_002_example_prints_exactly_the_stated_escape() {
    let out = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([SPEC])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "at(2,1,0) at(1,1,1) at(2,1,2) at(3,1,3) at(3,2,4)\n"
    );
}

#[test]
fn search_agrees_with_seed_002() {
    let board = parse_facts(
        "example",
        "field(1..3,1..3). start(2,1). goal(3,2). mino(2,3).\n\
         wall(2,1,2,2). wall(2,2,3,2). wall(2,2,2,3). maxsteps(10).",
    );
    assert_eq!(board.shortest(), Some(4));
    let plan = [(2, 1), (1, 1), (2, 1), (3, 1), (3, 2)];
    assert_eq!(board.validate(&plan), Ok(()));
    // The validator rejects broken plans.
    assert!(board.validate(&[(2, 1), (3, 1), (3, 2)]).is_err(), "eaten");
    assert!(board.validate(&[(2, 1), (2, 2)]).is_err(), "through a wall");
    assert!(
        board.validate(&[(2, 1), (1, 1), (2, 1)]).is_err(),
        "not on the goal"
    );
    assert!(board.validate(&[(1, 1)]).is_err(), "not from the start");
}

/// 21 peer instances, 250 of seed 001's setting, 40 larger, 30 with holes and shifted
/// coordinates: 341 instances.
#[test]
fn shortest_escapes_agree_with_breadth_first_search() {
    let mut boards = level_boards();
    boards.extend((0..250).map(seed001_instance));
    boards.extend((0..40).map(|k| large_instance(k, if k % 4 == 0 { 0 } else { 8 })));
    boards.extend((0..30).map(irregular_instance));
    let (yes, no) = check_all("solve", &boards);
    eprintln!("{} instances: {yes} escapable, {no} not", boards.len());
    assert!(boards.len() >= 300);
    assert!(yes >= 100 && no >= 50, "a mix of answers: {yes} / {no}");
}

/// The time-indexed formulation on seed 001's setting: the same answers.
#[test]
fn time_formulation_agrees_on_small_boards() {
    let mut boards: Vec<Board> = (0..60).map(seed001_instance).collect();
    boards.extend((0..10).map(irregular_instance));
    check_all("solve_time", &boards);
    check_all("can_escape", &boards);
}

#[test]
fn minimize_in_the_time_formulation_agrees() {
    let boards: Vec<Board> = (0..15).map(seed001_instance).collect();
    let lines = run_spec("(function(f) solve_time(f, 'minimize') end)", &boards);
    for (board, line) in boards.iter().zip(&lines) {
        let got = parse_escape(line).map(|p| p.len() as i64 - 1);
        assert_eq!(got, board.shortest(), "{}: {line}", board.name);
    }
}

/// Runs the spec's `solve` on a facts text and returns (success, stdout, stderr).
fn solve_text(text: &str) -> (bool, String, String) {
    let dir = support::test_dir("errors");
    let f = dir.join(format!(
        "{:x}.lp",
        text.len() * 31 + text.bytes().map(usize::from).sum::<usize>()
    ));
    std::fs::write(&f, text).unwrap();
    let out = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            SPEC,
            "--nowarnings",
            "-e",
            &format!("solve({:?})", f.display().to_string()),
        ])
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn malformed_facts_are_reported_with_their_line() {
    let base = "field(1..3,1..3).\nstart(2,1).\ngoal(3,2).\nmino(2,3).\nmaxsteps(10).\n";
    let cases = [
        (
            format!("{base}wall(1,1,2,2).\n"),
            ":6: wall(1,1,2,2): the fields (1,1) and (2,2) are not neighbours",
        ),
        (
            base.replace("start(2,1)", "start(7,1)"),
            ":2: start(7,1) is outside the labyrinth",
        ),
        (
            format!("{base}wall(3,3,4,3).\n"),
            ":6: wall(3,3,4,3): (4,3) is not a field",
        ),
        (format!("{base}wal(1,1,1,2).\n"), ":6: unknown fact wal"),
        (
            format!("{base}wall(1,1,1).\n"),
            ":6: wall takes 4 arguments, not 3",
        ),
        (format!("{base}field(a,1).\n"), ":6: 'a' is not an integer"),
        (format!("{base}goal(1,1)\n"), ":6: cannot read 'goal(1,1)'"),
        (format!("{base}goal(1,1).\n"), ":6: a second goal/2 fact"),
        (base.replace("maxsteps(10).\n", ""), "no maxsteps/1 fact"),
        (
            base.replace("mino(2,3)", "mino(2,1)"),
            ":4: the Minotaur starts on Theseus's start field",
        ),
    ];
    for (text, expected) in cases {
        let (ok, _, stderr) = solve_text(&text);
        assert!(!ok, "accepted:\n{text}");
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in {stderr:?}"
        );
        assert!(stderr.starts_with("Error: "), "{stderr}");
    }
    let (ok, stdout, _) = solve_text(base);
    assert!(ok);
    assert_eq!(stdout, "No escape within 10 steps.\n");
}

#[test]
fn draw_prints_the_board_after_each_step() {
    let out = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([SPEC, "--nowarnings", "-e", "draw(Example)"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("at(2,1,0) at(1,1,1) at(2,1,2) at(3,1,3) at(3,2,4)\n"));
    assert!(
        text.contains("step 2: Theseus (2,1), Minotaur (2,2)"),
        "{text}"
    );
    assert!(text.contains(". M|T"), "{text}");
}

/// Long escapes on boards up to 16x16 (`cargo test --release --test theseus -- --ignored`).
#[test]
#[ignore = "larger sweep: cargo test --release --test theseus -- --ignored"]
fn long_escapes_on_large_boards() {
    let boards: Vec<Board> = (100..130).map(|k| large_instance(k, 30)).collect();
    let (yes, _) = check_all("solve", &boards);
    assert_eq!(yes, boards.len());
}

/// More of seed 001's setting.
#[test]
#[ignore = "larger sweep: cargo test --release --test theseus -- --ignored"]
fn many_seed_001_boards() {
    let boards: Vec<Board> = (1000..2000).map(seed001_instance).collect();
    check_all("solve", &boards);
}

/// Writes generated instances with long escapes to $THESEUS_OUT (for bench/theseus.sh):
/// `THESEUS_OUT=dir cargo test --release --test theseus -- --ignored write_instances`.
#[test]
#[ignore = "writes files: THESEUS_OUT=dir cargo test --release --test theseus -- --ignored write_instances"]
fn write_instances() {
    let Ok(out) = std::env::var("THESEUS_OUT") else {
        return;
    };
    std::fs::create_dir_all(&out).unwrap();
    let min_opts: Vec<i64> = std::env::var("THESEUS_MIN_OPTS")
        .unwrap_or_else(|_| "40,60,80".into())
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    for (k, &min_opt) in min_opts.iter().enumerate() {
        let board = large_instance(9000 + k as u64 * 7919, min_opt);
        let opt = board.shortest().unwrap();
        let n = board.fields.iter().map(|f| f.0).max().unwrap();
        let name = format!("gen{k:02}_{n}x{n}_opt{opt}.lp");
        let text = format!(
            "% generated by tests/theseus.rs (large_instance)\n% optimal: {opt}\n{}",
            board.facts()
        );
        std::fs::write(Path::new(&out).join(&name), text).unwrap();
        eprintln!("{name}");
    }
}

/// A factlist with a malformed fact is reported as well (without a line: the factlist parser has
/// read it already).
#[test]
fn malformed_factlist_is_reported() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join(SPEC);
    let dir = support::test_dir("factlist");
    let file = dir.join("bad.idp");
    let text = format!(
        "include {:?}\nfactlist Bad : Facts {{\n    field(1..3,1..3).\n    start(4,1). goal(3,2). \
         mino(2,3).\n    maxsteps(10).\n}}\n",
        spec.display().to_string()
    );
    std::fs::write(&file, text).unwrap();
    let out = support::idp_command()
        .args([file.to_str().unwrap(), "--nowarnings", "-e", "solve(Bad)"])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Error: factlist: start(4,1) is outside the labyrinth"),
        "{stderr}"
    );
}

/// Escapes of 100 moves or more on boards up to 16x16, each solved optimally in seconds (the
/// limit leaves room for a loaded machine; unloaded each takes 1-5 s).
#[test]
#[ignore = "larger sweep: cargo test --release --test theseus -- --ignored"]
fn hundred_move_escapes_in_seconds() {
    for k in 0..3 {
        let board = large_instance(7000 + k, 100);
        let started = std::time::Instant::now();
        let (yes, _) = check_all("solve", std::slice::from_ref(&board));
        let elapsed = started.elapsed();
        eprintln!(
            "{}: {} moves in {elapsed:?}",
            board.name,
            board.shortest().unwrap()
        );
        assert_eq!(yes, 1);
        assert!(elapsed.as_secs() < 30, "{}: {elapsed:?}", board.name);
    }
}

/// The README's commands on the bundled levels run as written (from the repository root) and
/// print what the levels' headers state.
#[test]
fn bundled_levels_run_as_in_the_readme() {
    let run = |chunk: &str| -> String {
        let out = support::idp_command()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([SPEC, "--nowarnings", "-e", chunk])
            .output()
            .expect("idp runs");
        assert!(
            out.status.success(),
            "{chunk}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let levels = level_boards();
    assert_eq!(levels.len(), 21, "example.lp and th01..th20");
    let plan = |name: &str| -> String {
        let text = std::fs::read_to_string(Path::new(LEVELS).join(name)).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("% bfs_plan: "))
            .expect("a plan in the header")
            .to_string()
    };
    // th04's shortest escape (14 moves) is printed as in its header.
    let solved = run(r#"solve("specs/theseus/levels/th04_6x6_maze.lp")"#);
    assert_eq!(solved.trim_end(), plan("th04_6x6_maze.lp"));
    let timed = run(r#"solve_time("specs/theseus/levels/th01_4x4_rand.lp")"#);
    assert_eq!(parse_escape(timed.trim_end()).map(|p| p.len()), Some(10));
    let yes = run(r#"can_escape("specs/theseus/levels/th02_5x5_rand.lp")"#);
    assert!(yes.starts_with("yes: at("), "{yes}");
    let drawn = run(r#"draw("specs/theseus/levels/example.lp")"#);
    assert!(
        drawn.starts_with(&format!(
            "{}\n\nstep 0: Theseus (2,1), Minotaur (2,3)\n",
            plan("example.lp")
        )),
        "{drawn}"
    );
    assert_eq!(run("solve()"), format!("{}\n", plan("example.lp")));
}
