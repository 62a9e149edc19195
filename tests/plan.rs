//! `shortestplan(T, S)`: shortest plans of an LTC theory without a horizon (Time grown one step at a
//! time on one live solver), checked against a breadth-first search written here from the
//! puzzle's rules, on random instances; the step limits; the errors for theories it cannot
//! plan with, each exactly.
//!
//! The puzzle: lamps, and buttons that each toggle some lamps; one button (or none) is pressed
//! per step; the goal is every lamp on.

mod support;

use std::collections::{HashMap, VecDeque};

const LAMPS: &str = r#"
LTCvocabulary V {
    type Time isa nat
    Start : Time
    partial Next(Time) : Time
    type Lamp isa int
    type Button isa int
    Toggles(Button, Lamp)
    InitOn(Lamp)
    On(Time, Lamp)
    Press(Time, Button)
}

theory T : V {
    {
        ! l[Lamp]: On(Start, l) <- InitOn(l).
        ! t[Time] l[Lamp]: On(Next(t), l) <- On(t, l) & ~(? b[Button]: Press(t, b) & Toggles(b, l)).
        ! t[Time] l[Lamp]: On(Next(t), l) <- ~On(t, l) & ? b[Button]: Press(t, b) & Toggles(b, l).
    }
    ! t[Time]: #{ b[Button]: Press(t, b) } =< 1.
    ? t[Time]: ! l[Lamp]: On(t, l).
}
"#;

/// The steps a structure's Time allows: 32 steps cover every state of 5 lamps, so a goal not
/// reached by then is unreachable.
const MAX_STEPS: usize = 32;

/// A tiny deterministic generator (the instances are the same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// An instance: the lamps each button toggles (bit masks) and the lamps on at the start.
struct Lamps {
    lamps: u32,
    buttons: Vec<u32>,
    on: u32,
}

impl Lamps {
    fn random(g: &mut Lcg) -> Lamps {
        let lamps = 1 + g.below(5) as u32;
        let all = (1u64 << lamps) - 1;
        let buttons = (0..1 + g.below(4))
            .map(|_| g.below(all + 1) as u32)
            .collect();
        Lamps {
            lamps,
            buttons,
            on: g.below(all + 1) as u32,
        }
    }

    /// The fewest presses that turn every lamp on, by breadth-first search over the lamps'
    /// states; `None` when no sequence does.
    fn shortest(&self) -> Option<usize> {
        let all = (1u32 << self.lamps) - 1;
        let mut dist = HashMap::from([(self.on, 0usize)]);
        let mut queue = VecDeque::from([self.on]);
        while let Some(s) = queue.pop_front() {
            if s == all {
                return Some(dist[&s]);
            }
            for b in &self.buttons {
                let n = s ^ b;
                if !dist.contains_key(&n) {
                    dist.insert(n, dist[&s] + 1);
                    queue.push_back(n);
                }
            }
        }
        None
    }

    /// The instance as a structure. Its Time only caps the steps (at [`MAX_STEPS`]): a structure
    /// without Time is rejected when it is closed, since the constant Start : Time could have
    /// no value (IDP3's `Structure::functionCheck`).
    fn structure(&self, name: &str) -> String {
        let toggles: Vec<String> = self
            .buttons
            .iter()
            .enumerate()
            .flat_map(|(b, mask)| {
                (0..self.lamps)
                    .filter(move |l| mask & (1 << l) != 0)
                    .map(move |l| format!("{b},{l}"))
            })
            .collect();
        let on: Vec<String> = (0..self.lamps)
            .filter(|l| self.on & (1 << l) != 0)
            .map(|l| l.to_string())
            .collect();
        format!(
            "structure {name} : V {{\n    Time = {{ 0..{MAX_STEPS} }}\n    Lamp = {{ 0..{} }}\n    \
             Button = {{ 0..{} }}\n    Toggles = {{ {} }}\n    InitOn = {{ {} }}\n}}\n",
            self.lamps - 1,
            self.buttons.len() - 1,
            toggles.join("; "),
            on.join("; ")
        )
    }
}

/// Runs `chunk` on the lamps theory with the given structures; stdout, stderr and exit code.
fn run(structures: &str, chunk: &str) -> (String, String, i32) {
    let spec = format!("{LAMPS}{structures}");
    let out = support::idp(&["-e", chunk], &spec);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// The number of steps of a plan model (the largest time point), or `none`.
const LENGTH: &str = "local function length(M) \
    if not M then return 'none' end \
    local n = 0 \
    for t in tuples(M[V::On].ct) do if t[1] > n then n = t[1] end end \
    for t in tuples(M[V::Press].ct) do if t[1] > n then n = t[1] end end \
    return n end ";

#[test]
fn plans_are_as_short_as_breadth_first_search_finds() {
    let mut g = Lcg(15);
    let instances: Vec<Lamps> = (0..40).map(|_| Lamps::random(&mut g)).collect();
    let structures: String = instances
        .iter()
        .enumerate()
        .map(|(k, i)| i.structure(&format!("S{k}")))
        .collect();
    // 32 steps cover every state of 5 lamps: a goal not reached by then is unreachable.
    let names: Vec<String> = (0..instances.len()).map(|k| format!("S{k}")).collect();
    let chunk = format!(
        "{LENGTH} for _, S in ipairs({{{}}}) do print(length(shortestplan(T, S, 32))) end",
        names.join(", ")
    );
    let (out, err, code) = run(&structures, &chunk);
    assert_eq!(code, 0, "{err}");
    let got: Vec<&str> = out.lines().collect();
    let want: Vec<String> = instances
        .iter()
        .map(|i| i.shortest().map_or("none".to_string(), |n| n.to_string()))
        .collect();
    assert_eq!(got, want);
    assert!(
        want.iter().any(|w| w == "none")
            && want
                .iter()
                .any(|w| w.parse::<usize>().is_ok_and(|n| n >= 3))
    );
}

#[test]
fn the_plan_is_a_model_of_the_theory_over_its_steps() {
    let lamps = Lamps {
        lamps: 3,
        buttons: vec![0b001, 0b110, 0b011],
        on: 0b000,
    };
    assert_eq!(lamps.shortest(), Some(2));
    let (out, err, code) = run(
        &lamps.structure("S"),
        "local M = shortestplan(T, S) print(M[V::Press]) print(M[V::Time])",
    );
    assert_eq!(code, 0, "{err}");
    // Replaying the presses in time order turns every lamp on, one press per step.
    let mut presses = pairs(out.lines().next().unwrap());
    presses.sort();
    let times: Vec<i64> = presses.iter().map(|p| p.0).collect();
    assert_eq!(times, vec![0, 1], "{out}");
    let state = presses
        .iter()
        .fold(lamps.on, |s, (_, b)| s ^ lamps.buttons[*b as usize]);
    assert_eq!(state, 0b111, "{out}");
    assert_eq!(out.lines().nth(1), Some("{ 0..2 }"), "{out}");
}

/// `t,b` pairs of a printed table `{ 0,1; 2,0 }`.
fn pairs(line: &str) -> Vec<(i64, i64)> {
    line.trim_matches(|c| c == '{' || c == '}' || c == ' ')
        .split(';')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (a, b) = p.trim().split_once(',').unwrap();
            (a.trim().parse().unwrap(), b.trim().parse().unwrap())
        })
        .collect()
}

#[test]
fn the_step_limit_comes_from_the_argument_or_the_time_domain() {
    let lamps = Lamps {
        lamps: 3,
        buttons: vec![0b001, 0b010, 0b100],
        on: 0,
    };
    assert_eq!(lamps.shortest(), Some(3));
    let s = lamps.structure("S");
    let short = s
        .replace("structure S : V {", "structure S2 : V {")
        .replace(&format!("Time = {{ 0..{MAX_STEPS} }}"), "Time = { 0..2 }");
    // A structure made by `newstructure` need not list Time: then the limit is 1000 steps.
    let (out, err, code) = run(
        &format!("{s}{short}"),
        &format!(
            "{LENGTH} print(length(shortestplan(T, S, 2))) print(length(shortestplan(T, S, 3))) \
             print(length(shortestplan(T, S2))) print(length(shortestplan(T, S))) \
             print(length(shortestplan(T, S2, 3))) \
             local B = newstructure(V, \"B\") B[V::Lamp] = {{0, 1, 2}} B[V::Button] = {{0, 1, 2}} \
             B[V::Toggles] = S[V::Toggles] B[V::InitOn] = S[V::InitOn] \
             print(length(shortestplan(T, B)))"
        ),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "none\n3\nnone\n3\n3\n3\n");
}

/// A Time the vocabulary fixes limits the steps of a structure that does not list it (one
/// made by `newstructure`) as it does those of a structure that does: no plan within it.
#[test]
fn a_time_the_vocabulary_fixes_limits_the_steps() {
    let lamps = Lamps {
        lamps: 3,
        buttons: vec![0b001, 0b010, 0b100],
        on: 0,
    };
    assert_eq!(lamps.shortest(), Some(3));
    let spec = format!(
        "{}{}",
        LAMPS.replace("type Time isa nat", "type Time = { 0..2 } isa nat"),
        // The vocabulary gives Time, so the structure does not.
        lamps
            .structure("S")
            .replace(&format!("    Time = {{ 0..{MAX_STEPS} }}\n"), "")
    );
    let chunk = format!(
        "{LENGTH} print(length(shortestplan(T, S))) \
         local B = newstructure(V, \"B\") B[V::Lamp] = {{0, 1, 2}} B[V::Button] = {{0, 1, 2}} \
         B[V::Toggles] = S[V::Toggles] B[V::InitOn] = S[V::InitOn] \
         print(length(shortestplan(T, B)))"
    );
    let out = support::idp(&["-e", &chunk], &spec);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "none\nnone\n");
}

#[test]
fn theories_without_one_goal_are_refused_with_the_reason() {
    let lamps = Lamps {
        lamps: 1,
        buttons: vec![1],
        on: 0,
    };
    let s = lamps.structure("S");
    let cases = [
        (
            "    ? t[Time]: ! l[Lamp]: On(t, l).\n",
            "",
            "theory T has no goal to plan for: planning needs one sentence `? t[Time]: φ(t)` (φ about the state at t, e.g. `? t[Time]: Done(t).`)",
        ),
        (
            "    ? t[Time]: ! l[Lamp]: On(t, l).\n",
            "    ? t[Time]: ! l[Lamp]: On(t, l).\n    ? t[Time]: ~On(t, 0).\n",
            "theory T has 2 goals (`? t[Time]: ...` sentences); planning needs exactly one: join them into one `? t[Time]: φ(t)` when they must hold at the same time",
        ),
        (
            "    ? t[Time]: ! l[Lamp]: On(t, l).\n",
            "    ? t[Time]: ! l[Lamp]: On(Next(t), l).\n",
            "the goal `? t[Time]: φ(t)` must be about one state: φ cannot mention Next",
        ),
    ];
    for (from, to, message) in cases {
        let spec = format!("{}{s}", LAMPS.replace(from, to));
        let out = support::idp(&["-e", "shortestplan(T, S)"], &spec);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(message), "{err}");
    }
}

/// A definition recursive inside one state (reachability at a time point) gets its ranking
/// translation in the template: a loop cannot make its atoms true (nodes 1 and 2 reach each
/// other, but nothing is lit at step 0), so the shortest plan lights node 1 first.
#[test]
fn recursion_inside_a_state_is_encoded_without_unfounded_loops() {
    let spec = r#"
LTCvocabulary V {
    type Time isa nat
    Start : Time
    partial Next(Time) : Time
    type N isa int
    Edge(N, N)
    Lit(Time, N)
    Reach(Time, N)
    Flip(Time, N)
}
theory T : V {
    {
        ! n[N]: Lit(Start, n) <- false.
        ! t[Time] n[N]: Lit(Next(t), n) <- Lit(t, n) | Flip(t, n).
    }
    {
        ! t[Time] n[N]: Reach(t, n) <- Lit(t, n).
        ! t[Time] n[N]: Reach(t, n) <- ? m[N]: Reach(t, m) & Edge(m, n).
    }
    ! t[Time]: #{ n[N]: Flip(t, n) } =< 1.
    ~Flip(Start, 2). ~Flip(Start, 3).
    ? t[Time]: Reach(t, 3).
}
structure S : V {
    Time = { 0..5 }
    N = { 1..4 }
    Edge = { 1,2; 2,1; 2,3; 4,4 }
}
"#;
    let chunk =
        "local M = shortestplan(T, S) print(M[V::Flip]) print(M[V::Reach]) print(M[V::Time])";
    let out = support::idp(&["-e", chunk], spec);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text, "{ 0,1 }\n{ 1,1; 1,2; 1,3 }\n{ 0..1 }\n");
}

/// Recursion through negation inside a state (over an open symbol, so that it is not evaluated
/// before the search) needs a totality check during the search, which a template cannot
/// carry: refused with what to do instead.
#[test]
fn recursion_through_negation_inside_a_state_is_refused_with_what_to_do() {
    let spec = r#"
LTCvocabulary V {
    type Time isa nat
    Start : Time
    partial Next(Time) : Time
    type N isa int
    P(Time, N)
    Q(Time, N)
    A(Time, N)
    Done(Time)
}
theory T : V {
    {
        ! t[Time] n[N]: P(t, n) <- ~Q(t, n) & A(t, n).
        ! t[Time] n[N]: Q(t, n) <- ~P(t, n).
    }
    {
        Done(Start) <- false.
        ! t[Time]: Done(Next(t)) <- true.
    }
    ? t[Time]: Done(t).
}
structure S : V {
    Time = { 0..5 }
    N = { 1..2 }
}
"#;
    let out = support::idp(&["-e", "shortestplan(T, S)"], spec);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        "(Reading from stdin)\nError: planning needs the initial theory to have no recursion \
         through negation within a state (its definitions must be total for every choice, which \
         is checked during a search); use modelexpand or minimize over a Time domain instead\n"
    );
}
