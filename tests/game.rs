//! The maze game with keys and gates (seed 000 part II, `specs/maze/game.idp`), checked from
//! outside.
//!
//! The test has its own breadth-first search over (position, status of every key: on the
//! board, held or used), which also fixes which gates are open, and its own plan validator,
//! both written from the rules in the spec's header (not from its theories). For every instance
//! in `specs/maze/game` (the peers' keys instances, four generated 11x11 to 15x15 instances
//! with three keys and three gates, and hand-made pictures) the shortest plan printed by the
//! spec must have the length the search finds, and must be legal move by move and end on the
//! exit. The LTC planner (`plan_ltc`) must agree on the small instances, and a scripted game
//! played by progression must show the expected messages, also when typed into a tmux pane
//! (skipped when tmux is missing).
//!
//! Timings (release build, 2 cores shared): about 40 s wall and 40 s of CPU in all, most of it
//! the LTC planner on the hand-made instances and the 17x17 instance.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::Write;
use std::process::{Command, Stdio};

const IDP: &str = env!("CARGO_BIN_EXE_idp");
const SPEC: &str = "specs/maze/game.idp";
const DIR: &str = "specs/maze/game";

type Cell = (i64, i64);

/// One instance.
#[derive(Clone, Debug, Default)]
struct Game {
    w: i64,
    h: i64,
    walls: HashSet<Cell>,
    entrance: Cell,
    exit: Cell,
    gates: BTreeMap<usize, Cell>,
    keys: BTreeMap<usize, Cell>,
    nkeys: usize,
}

/// A state: the player's cell and the status of keys 1..nkeys (0 board, 1 held, 2 used).
type State = (Cell, Vec<u8>);

/// An action of a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Action {
    Move(i64, i64),
    Open(usize),
    Wait,
}

impl Game {
    fn free(&self, c: Cell) -> bool {
        c.0 >= 0 && c.1 >= 0 && c.0 < self.w && c.1 < self.h && !self.walls.contains(&c)
    }

    fn closed_gate(&self, status: &[u8], c: Cell) -> bool {
        self.gates
            .iter()
            .any(|(&k, &g)| g == c && status[k - 1] < 2)
    }

    fn adjacent(a: Cell, b: Cell) -> bool {
        (a.0 - b.0).abs() + (a.1 - b.1).abs() == 1
    }

    /// Rule 6: the key on the player's cell goes into the inventory (at most three held).
    fn pick_up(&self, state: &State) -> Vec<u8> {
        let mut status = state.1.clone();
        let held = status.iter().filter(|&&s| s == 1).count();
        for (&k, &c) in &self.keys {
            if c == state.0 && status[k - 1] == 0 && held < 3 {
                status[k - 1] = 1;
            }
        }
        status
    }

    /// One step (rules 3 and 6), or an error when the action is not allowed.
    fn step(&self, state: &State, action: Action) -> Result<State, String> {
        if state.0 == self.exit {
            return Err("an action after reaching the exit".into());
        }
        let mut status = self.pick_up(state);
        let mut pos = state.0;
        match action {
            Action::Move(dx, dy) => {
                let q = (pos.0 + dx, pos.1 + dy);
                if !self.free(q) || self.closed_gate(&state.1, q) {
                    return Err(format!("cannot move from {pos:?} to {q:?}"));
                }
                pos = q;
            }
            Action::Open(k) => {
                if k == 0 || k > self.nkeys || state.1[k - 1] != 1 {
                    return Err(format!("key {k} is not held"));
                }
                if let Some(&g) = self.gates.get(&k) {
                    if Game::adjacent(pos, g) {
                        status[k - 1] = 2;
                    }
                }
            }
            Action::Wait => {}
        }
        Ok((pos, status))
    }

    fn actions(&self) -> Vec<Action> {
        let mut out = vec![
            Action::Move(1, 0),
            Action::Move(-1, 0),
            Action::Move(0, 1),
            Action::Move(0, -1),
            Action::Wait,
        ];
        out.extend((1..=self.nkeys).map(Action::Open));
        out
    }

    fn start(&self) -> State {
        (self.entrance, vec![0; self.nkeys])
    }

    /// The length of a shortest plan, by breadth-first search.
    fn shortest(&self) -> Option<usize> {
        let mut dist: HashMap<State, usize> = HashMap::new();
        let mut queue = VecDeque::new();
        dist.insert(self.start(), 0);
        queue.push_back(self.start());
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            if s.0 == self.exit {
                return Some(d);
            }
            for a in self.actions() {
                if let Ok(next) = self.step(&s, a) {
                    if !dist.contains_key(&next) {
                        dist.insert(next.clone(), d + 1);
                        queue.push_back(next);
                    }
                }
            }
        }
        None
    }

    /// Replays a plan: every action allowed, on the exit exactly after the last one.
    fn validate(&self, plan: &[Action]) -> Result<(), String> {
        let mut s = self.start();
        for (t, &a) in plan.iter().enumerate() {
            s = self.step(&s, a).map_err(|e| format!("step {t}: {e}"))?;
        }
        if s.0 != self.exit {
            return Err(format!("the plan ends on {:?}, not on the exit", s.0));
        }
        Ok(())
    }
}

fn numbers(args: &str) -> Vec<i64> {
    args.split(',').map(|a| a.trim().parse().unwrap()).collect()
}

/// Reads the peers' ASP facts.
fn parse_lp(text: &str) -> Game {
    let mut g = Game::default();
    for line in text.lines() {
        let line = line.split('%').next().unwrap();
        for fact in line.split(").").filter(|f| f.contains('(')) {
            let (name, args) = fact.trim().split_once('(').unwrap();
            let v = numbers(args);
            match name {
                "dim" => (g.w, g.h) = (v[0], v[1]),
                "wall" => {
                    g.walls.insert((v[0], v[1]));
                }
                "entrance" => g.entrance = (v[0], v[1]),
                "exit" => g.exit = (v[0], v[1]),
                "gate" => {
                    g.gates.insert(v[0] as usize, (v[1], v[2]));
                }
                "key" => {
                    g.keys.insert(v[0] as usize, (v[1], v[2]));
                }
                _ => {}
            }
        }
    }
    g
}

/// Reads a picture (the top line is the highest row).
fn parse_picture(text: &str) -> Game {
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("# ") && !l.trim().is_empty())
        .collect();
    let mut g = Game {
        h: rows.len() as i64,
        ..Game::default()
    };
    for (i, row) in rows.iter().enumerate() {
        let y = g.h - 1 - i as i64;
        g.w = g.w.max(row.len() as i64);
        for (x, ch) in row.chars().enumerate() {
            let c = (x as i64, y);
            match ch {
                '#' => {
                    g.walls.insert(c);
                }
                'S' => g.entrance = c,
                'E' => g.exit = c,
                'A'..='I' => {
                    g.gates.insert(ch as usize - 'A' as usize + 1, c);
                }
                'a'..='i' => {
                    g.keys.insert(ch as usize - 'a' as usize + 1, c);
                }
                _ => {}
            }
        }
    }
    g
}

fn load(path: &str) -> Game {
    let text = std::fs::read_to_string(path).unwrap();
    let mut g = if path.ends_with(".lp") {
        parse_lp(&text)
    } else {
        parse_picture(&text)
    };
    let most = g.gates.keys().chain(g.keys.keys()).copied().max();
    g.nkeys = most.unwrap_or(1);
    g
}

fn instances(ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(ext))
        .collect();
    out.sort();
    out
}

fn run(command: &str, stdin: &str) -> String {
    let mut child = Command::new(IDP)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([SPEC, "-e", command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{command}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The plan printed by `plan`/`plan_ltc`: None for "No plan".
fn parse_plan(out: &str) -> Option<Vec<Action>> {
    if out.starts_with("No plan") {
        return None;
    }
    let mut plan = vec![];
    for line in out.lines().filter(|l| !l.starts_with("Shortest")) {
        let Some((name, args)) = line.split_once('(') else {
            continue;
        };
        let (t, arg) = args
            .trim_end_matches(')')
            .split_once(',')
            .unwrap_or((args, ""));
        let t: usize = t.trim_end_matches(')').parse().unwrap();
        assert_eq!(t, plan.len(), "actions in time order: {line}");
        plan.push(match (name, arg) {
            ("Move", "U") => Action::Move(0, 1),
            ("Move", "D") => Action::Move(0, -1),
            ("Move", "L") => Action::Move(-1, 0),
            ("Move", "R") => Action::Move(1, 0),
            ("Open", k) => Action::Open(k.parse().unwrap()),
            ("Wait", _) => Action::Wait,
            _ => panic!("unexpected line {line}"),
        });
    }
    let header = out.lines().next().unwrap();
    assert_eq!(header, format!("Shortest plan: {} steps", plan.len()));
    Some(plan)
}

/// Runs `procedure` on every path (two at a time) and checks the plans against the search.
fn check_plans(procedure: &str, paths: &[String]) {
    let results: Vec<(String, String)> = std::thread::scope(|scope| {
        let chunks: Vec<_> = paths.chunks(paths.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|p| (p.clone(), run(&format!("{procedure}('{p}')"), "")))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (path, out) in results {
        let game = load(&path);
        let plan = parse_plan(&out);
        assert_eq!(
            plan.as_ref().map(|p| p.len()),
            game.shortest(),
            "{procedure} on {path}"
        );
        if let Some(plan) = plan {
            game.validate(&plan)
                .unwrap_or_else(|e| panic!("{procedure} on {path}: {e}"));
        }
    }
}

#[test]
fn the_search_agrees_with_the_optima_in_the_instance_headers() {
    let mut checked = 0;
    for path in instances(".lp") {
        let text = std::fs::read_to_string(&path).unwrap();
        let stated = text
            .lines()
            .find_map(|l| l.strip_prefix("% optimal: "))
            .map(|v| v.trim().parse::<usize>().unwrap());
        assert_eq!(load(&path).shortest(), stated, "{path}");
        checked += 1;
    }
    assert!(checked >= 12);
}

#[test]
fn shortest_plans_agree_with_breadth_first_search() {
    let mut paths = instances(".lp");
    paths.extend(instances(".txt"));
    let big = paths
        .iter()
        .filter(|p| {
            let g = load(p);
            g.w >= 15 && g.gates.len() == 3 && g.keys.len() == 3
        })
        .count();
    assert!(paths.len() >= 16 && big >= 2);
    check_plans("plan", &paths);
}

#[test]
fn the_ltc_planner_agrees_on_small_instances() {
    let mut paths = instances(".txt");
    paths.push(format!("{DIR}/kg01_9x9_g1.lp"));
    check_plans("plan_ltc", &paths);
}

#[test]
fn the_carry_limit_and_missing_keys_change_the_answer() {
    // Without the limit of three keys, fullhands takes 11 steps.
    let full = load(&format!("{DIR}/fullhands.txt"));
    assert_eq!(full.shortest(), Some(13));
    assert_eq!(load(&format!("{DIR}/nokey.txt")).shortest(), None);
    let out = run(&format!("plan('{DIR}/nokey.txt')"), "");
    assert_eq!(out.trim(), "No plan: the exit cannot be reached.");
}

#[test]
fn plan_draws_the_board_after_each_step() {
    let out = run(&format!("plan('{DIR}/onekey.txt', true)"), "");
    let boards = out.lines().filter(|l| l.starts_with("-- time ")).count();
    assert_eq!(boards, 12, "{out}");
    assert!(out.contains("-- time 8, keys held: {}"), "{out}");
    assert!(out.contains("-- time 7, keys held: {1}"), "{out}");
}

/// The wrong key tried first (seed 000 part II, third video), played by progression.
#[test]
fn a_scripted_game_is_played_by_progression() {
    let script = "l\nu\nu\nu\nu\nu\nr\nr\nd\nopen 2\nopen 1\nu\nl\nl\nd\nd\nd\nd\nr\nr\nr\nr\n\
                  l\nl\nl\nl\nu\nu\nu\nu\nr\nr\nd\nopen 1\nd\nd\nr\nr\nu\nopen 2\nu\nu\n";
    let out = run(&format!("play('{DIR}/wrongkey.txt', true)"), script);
    for expected in [
        "You cannot move left: the way is blocked.",
        "Key 2 does not fit: nothing happens.",
        "You cannot use key 1: you do not have it.",
        "Key 1 opens gate A.",
        "You cannot move down: the way is blocked.",
        "Key 2 opens gate B.",
        "You reached the exit in 39 steps.",
    ] {
        assert!(out.contains(expected), "missing '{expected}' in\n{out}");
    }
    // At the start only the entrance's neighbourhood is discovered.
    let first: Vec<&str> = out.lines().skip(2).take(7).collect();
    assert_eq!(first[0], ": : : : : : : ");
    assert_eq!(first[6], "# ^ # : : : : ");
    assert!(out.contains("step 5   keys: {2}") || out.contains("step 6   keys: {2}"));
}

fn tmux(args: &[&str]) -> Option<String> {
    let out = Command::new("tmux").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Waits up to 20 s until the pane's history contains `text`; returns the history.
fn wait_for(session: &str, text: &str) -> String {
    let mut pane = String::new();
    for _ in 0..200 {
        pane = tmux(&["capture-pane", "-p", "-t", session, "-S", "-500"]).unwrap_or_default();
        if pane.contains(text) {
            return pane;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("'{text}' did not appear in the terminal:\n{pane}");
}

/// The game in a real terminal: keys typed into a tmux pane (skipped without tmux).
#[test]
fn the_game_is_played_in_a_terminal() {
    if tmux(&["-V"]).is_none() {
        eprintln!("tmux not found: skipped");
        return;
    }
    let session = format!("idp-game-test-{}", std::process::id());
    let command = format!("{IDP} {SPEC} -e 'play(\"{DIR}/onekey.txt\")'; sleep 20");
    let dir = env!("CARGO_MANIFEST_DIR");
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "80",
        "-y",
        "30",
        "-c",
        dir,
        &command,
    ])
    .expect("tmux new-session");
    wait_for(&session, "step 0");
    for keys in ["l", "u", "u", "u", "r", "r", "u", "u", "r"] {
        tmux(&["send-keys", "-t", &session, keys, "Enter"]);
    }
    wait_for(&session, "You cannot move right: the way is blocked.");
    tmux(&["send-keys", "-t", &session, "open 1", "Enter"]);
    wait_for(&session, "Key 1 opens gate A.");
    for keys in ["r", "r", "u"] {
        tmux(&["send-keys", "-t", &session, keys, "Enter"]);
    }
    let pane = wait_for(&session, "You reached the exit in 11 steps.");
    tmux(&["kill-session", "-t", &session]);
    assert!(
        pane.contains("You cannot move left: the way is blocked."),
        "{pane}"
    );
    assert!(pane.contains("step 7   keys: {1}"), "{pane}");
}

/// `picture` draws the optimal plan with `visualize`, one board per time point: the first board
/// shows the walls, keys and gates by number, the exit and the player at the entrance; the last
/// one the player on the exit with every key picked up and every gate opened.
#[test]
fn picture_draws_a_board_per_step() {
    let out = run("picture('specs/maze/game/wrongkey.txt')", "");
    let first: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "time 0:")
        .skip(1)
        .take(8)
        .collect();
    assert_eq!(
        first,
        [
            "6 ##########E ##",
            "5 ##. . . ##2 ##",
            "4 ##2 ##. ##. ##",
            "3 ##. ##1 . . ##",
            "2 ##. ##########",
            "1 ##. . . . 1 ##",
            "0 ##P ##########",
            "  0 1 2 3 4 5 6",
        ],
        "{out}"
    );
    let lines: Vec<&str> = out.lines().collect();
    let last = &lines[lines.len() - 9..lines.len() - 2];
    assert_eq!(last[0], "6 ##########P ##", "{out}");
    assert!(
        last.iter().all(|l| !l[2..].contains(['1', '2'])),
        "keys and gates left on the board: {out}"
    );
}
