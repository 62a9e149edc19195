//! Possibly-true bounds computed for all the definitions of a theory at once (issue 28,
//! `src/ground/joint.rs`): an LTC theory whose fluent, causation and action live in different
//! definitions and sentences is ground only over the states that can be reached, with the same
//! models as brute force; definitions that support each other without time keep the models
//! where they do.

mod support;

/// An LTC walk over time points `0..=steps` on cells `1..=cells`: IDP3's time declarations
/// (`Time`, `Start`, `Next`) and `Cell`, then `symbols` (with `Adj`), theory `T` of
/// `theory`, and structure `S` with the time points, the cells, `Adj` of `adj` and `facts`.
fn ltc_walk(
    symbols: &str,
    theory: &str,
    cells: usize,
    steps: usize,
    adj: &[String],
    facts: &str,
) -> String {
    let next: Vec<String> = (0..steps).map(|t| format!("{t}->{}", t + 1)).collect();
    format!(
        "LTCvocabulary V {{
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type Cell isa nat
{symbols}
}}
theory T : V {{
{theory}
}}
structure S : V {{
  Time = {{ 0..{steps} }}
  Start = 0
  Next = {{ {} }}
  Cell = {{ 1..{cells} }}
  Adj = {{ {} }}
{facts}
}}
",
        next.join("; "),
        adj.join("; ")
    )
}

/// A walk on a line of `cells` cells for `steps` steps, written as IDP3's LTC users write it:
/// the fluent `At` in one definition, its causation `C_At` in another, the action `Move` open
/// and bounded by a sentence (only to a neighbour of where one is), `Visited` in a third.
fn walk(cells: usize, steps: usize) -> String {
    let adj: Vec<String> = (1..cells)
        .map(|i| format!("{i},{}; {},{i}", i + 1, i + 1))
        .collect();
    ltc_walk(
        "  Adj(Cell, Cell)
  At(Time, Cell)
  C_At(Time, Cell)
  Move(Time, Cell)
  Visited(Time, Cell)",
        "  {
    At(Start, 1).
    ! t c : At(Next(t), c) <- C_At(t, c).
    ! t c : At(Next(t), c) <- At(t, c) & ~(? d : Move(t, d)).
  }
  {
    ! t c : C_At(t, c) <- Move(t, c).
  }
  {
    ! t c : Visited(t, c) <- At(t, c).
    ! t c : Visited(Next(t), c) <- Visited(t, c).
  }
  ! t c : Move(t, c) => ? d : At(t, d) & Adj(d, c).
  ! t : #{ c : Move(t, c) } =< 1.",
        cells,
        steps,
        &adj,
        "",
    )
}

/// The number of walks: at each time point stay or move to a neighbour (the last time point's
/// move has no effect but is a choice of `Move` all the same).
fn count_walks(cells: usize, steps: usize) -> u64 {
    let mut at = vec![0u64; cells + 2];
    at[1] = 1;
    let mut total = 0;
    for t in 0..=steps {
        let mut next = vec![0u64; cells + 2];
        for c in 1..=cells {
            let moves: Vec<usize> = [c - 1, c + 1]
                .into_iter()
                .filter(|&d| (1..=cells).contains(&d))
                .collect();
            if t == steps {
                total += at[c] * (1 + moves.len() as u64);
            }
            next[c] += at[c];
            for d in moves {
                next[d] += at[c];
            }
        }
        at = next;
    }
    total
}

/// Model expansion counts the walks that a direct count gives, and every model it returns
/// passes the naive checker.
#[test]
fn a_walk_split_over_definitions_has_every_model() {
    for (cells, steps) in [(3, 2), (4, 3), (5, 4), (2, 5)] {
        let (_, models) = support::checked_models(&walk(cells, steps));
        assert_eq!(
            models.len() as u64,
            count_walks(cells, steps),
            "{cells} cells, {steps} steps"
        );
    }
}

/// Ten steps on sixty cells: only the cells within t steps of cell 1 can hold `At(t, _)`, and
/// only their neighbours `Move(t, _)`, so the ground theory has a few hundred atoms (every
/// atom of every cell at every time would be over 2600).
#[test]
fn a_walk_is_ground_only_over_reachable_states() {
    let out = support::idp(&["--stats", "-n", "1"], &walk(60, 10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let atoms = ground_atoms(&stderr);
    assert!(atoms <= 400, "{atoms} ground atoms:\n{stderr}");
    assert_eq!(out.status.code(), Some(10), "{stderr}");
}

/// `{P <- Q.} {Q <- P.}`: each definition is a constraint of its own, so both false and both
/// true are models (a least fixpoint of the two together would keep only the first).
#[test]
fn definitions_that_support_each_other_keep_both_models() {
    support::assert_models(
        "vocabulary V {
  P
  Q
  R
}
theory T : V {
  { P <- Q. }
  { Q <- P. }
  { R <- P. }
}
structure S : V { }
",
        2,
    );
}

/// The same loop at one time point of an LTC theory: the time argument does not advance along
/// `P(t) <- Q(t)` and `Q(t) <- P(t)`, so the definitions are not bounded together and every
/// time point keeps both choices (2^3 models).
#[test]
fn a_loop_across_definitions_at_one_time_keeps_its_models() {
    support::assert_models(
        "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  P(Time)
  Q(Time)
  R(Time)
}
theory T : V {
  { ! t : P(t) <- Q(t). }
  { ! t : Q(t) <- P(t). ! t : Q(Next(t)) <- R(t). }
  { ! t : R(t) <- false. }
}
structure S : V { Time = { 0..2 } Start = 0 Next = { 0->1; 1->2 } }
",
        8,
    );
}

/// A sentence that bounds an open predicate by itself (`Move(t, c) => Move(t, c) | ...`) gives
/// it no bound: every interpretation the sentences allow stays a model.
#[test]
fn a_predicate_bounded_by_itself_keeps_its_models() {
    support::assert_models(
        "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  P(Time)
  Q(Time)
  R(Time)
}
theory T : V {
  { ! t : Q(Next(t)) <- P(t). }
  { ! t : R(t) <- Q(t). }
  ! t : P(t) => P(t) | R(t).
}
structure S : V { Time = { 0..2 } Start = 0 Next = { 0->1; 1->2 } }
",
        8,
    );
}

/// Sentences that each bound only some atoms of an open predicate (`Do(t, s(x))` by one,
/// `Do(t, u(x))` by another, as PlayID's translation of GDL's legal moves writes them) give it
/// no joint bound: joining them would leave no action at all. (Its one model: `s(1)` first,
/// which makes `Up` and so `Down` true, then `u(1)`.)
#[test]
fn sentences_over_some_atoms_of_a_predicate_do_not_bound_it() {
    support::assert_models(
        "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type Item isa nat
  type Action constructed from { s(Item), u(Item) }
  Do(Time, Action)
  Up(Time, Item)
  Down(Time, Item)
}
theory T : V {
  { ! t x : Up(Next(t), x) <- Do(t, s(x)). }
  { ! t x : Down(Next(t), x) <- Do(t, u(x)). ! t x : Down(t, x) <- Up(t, x). }
  ! t x : Do(t, s(x)) => ~Up(t, x).
  ! t x : Do(t, u(x)) => Down(t, x).
  ! t : #{ a : Do(t, a) } = 1.
}
structure S : V { Time = { 0..1 } Start = 0 Next = { 0->1 } Item = { 1 } }
",
        1,
    );
}

/// Two sentences bound the same open predicate; each numbers its variables from 0, so the
/// `t2` of the first and the `t` of the second share a number: joined in one bound they must
/// stay apart (else `Next(t) = t2` would read `Next(t) = t` and rule out every action).
#[test]
fn two_sentences_bounding_one_predicate_keep_their_variables_apart() {
    support::assert_models(
        "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type Item isa nat
  type Player constructed from { p }
  type Action constructed from { press(Item, Item, Item) }
  Do(Time, Player, Action)
  Lit(Time)
}
theory T : V {
  { ! t x y z : Lit(Next(t)) <- Do(t, p, press(x, y, z)). }
  ! a t q : Do(t, q, a) => (? t2 : Next(t) = t2).
  ! x y z t : Do(t, p, press(x, y, z)) => x = y.
}
structure S : V { Time = { 0..1 } Start = 0 Next = { 0->1 } Item = { 1 } }
",
        2,
    );
}

/// A key that stays where it lies until the player, a function fluent, stands on its cell
/// (`Key(Next(t)) <- Key(t) & At(t) ~= 2`): that `At(t) = 2` is possible must not make the key
/// possibly gone, since the player may stay away (the joint bounds once read the negated
/// graph atom against the possible graph, and the key vanished from time 2 on).
#[test]
fn a_fluent_kept_while_a_function_fluent_differs_keeps_every_model() {
    let adj = ["1,2; 2,1; 2,3; 3,2".to_string()];
    let text = &ltc_walk(
        "  Adj(Cell, Cell)
  At(Time) : Cell
  Move(Time, Cell)
  Key(Time)",
        "  {
    At(Start) = 1.
    ! t c : At(Next(t)) = c <- Move(t, c).
    ! t c : At(Next(t)) = c <- At(t) = c & ~(? d : Move(t, d)).
  }
  {
    Key(Start).
    ! t : Key(Next(t)) <- Key(t) & At(t) ~= 2.
  }
  ! t c : Move(t, c) => ? d : At(t) = d & Adj(d, c).
  ! t : #{ c : Move(t, c) } =< 1.",
        3,
        2,
        &adj,
        "",
    );
    // Twelve walks (two at time 0, then two or three choices at each of times 1 and 2);
    // brute force over the functions is out of reach, every model passes the checker.
    let (program, models) = support::checked_models(text);
    assert_eq!(models.len(), 12);
    let printed: Vec<String> = models
        .iter()
        .map(|m| idp::print::structure_to_string(&program, m))
        .collect();
    assert!(
        printed.iter().any(|m| m.contains("Key = { 0; 1; 2 }")),
        "no model keeps the key: {printed:#?}"
    );
}

/// A walk whose action names a direction, not a cell (`Move(t, d)`, the precondition reading
/// the function fluent `At(t)`): the precondition is joined into the rules that read the
/// action, so the relaxation reads one position `At(t)` for the move and its effect and the
/// walls past cell 4 are never possible positions. Without that, a step right is possible at
/// every time point from somewhere, so every cell within reach would be.
#[test]
fn a_precondition_over_a_function_fluent_bounds_the_effect_of_its_action() {
    let cells = 40;
    let steps = 20;
    let adj: Vec<String> = (1..cells)
        .map(|i| format!("{i},R,{}; {},L,{i}", i + 1, i + 1))
        .collect();
    let text = ltc_walk(
        "  type Dir constructed from { L, R }
  Adj(Cell, Dir, Cell)
  Wall(Cell)
  At(Time) : Cell
  Move(Time, Dir)",
        "  {
    At(Start) = 1.
    ! t d c : At(Next(t)) = c <- Move(t, d) & Adj(At(t), d, c).
    ! t c : At(Next(t)) = c <- At(t) = c & ~(? d : Move(t, d)).
  }
  ! t d : Move(t, d) => ? c : Adj(At(t), d, c) & ~Wall(c).
  ! t : #{ d : Move(t, d) } =< 1.",
        cells,
        steps,
        &adj,
        &format!("  Wall = {{ 5..{cells} }}"),
    );
    let out = support::idp(&["--stats", "-n", "1"], &text);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    let atoms = ground_atoms(&stderr);
    assert!(atoms <= 150, "{atoms} ground atoms:\n{stderr}");
}

/// The ground atoms that `--stats` reports.
fn ground_atoms(stderr: &str) -> usize {
    stderr
        .lines()
        .find_map(|l| {
            let l = l.strip_prefix("[stats] grounded and encoded")?;
            let before = l.split(" atoms").next()?;
            before.rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no stats line in:\n{stderr}"))
}

/// A generated game's actions, written as PlayID writes them: one `Action` type built by
/// several constructors, a precondition per constructor (`do(t, take(x)) => ...`) and one
/// constructor without any. Each precondition bounds the actions of its constructor only;
/// the models are those of brute force.
const ACTIONS_BY_CONSTRUCTOR: &str = "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type Item isa nat
  type Action constructed from { take(Item), put(Item, Item), wait }
  Do(Time, Action)
  Held(Time, Item)
  On(Time, Item, Item)
}
theory T : V {
  { ! t x : Held(Next(t), x) <- Do(t, take(x)).
    ! t x y : On(Next(t), x, y) <- Do(t, put(x, y)). }
  ! t x : Do(t, take(x)) => ~Held(t, x).
  ! t x y : Do(t, put(x, y)) => Held(t, x) & x ~= y.
  ! t : ?=1 a : Do(t, a).
}
structure S : V { Time = { 0..2 } Start = 0 Next = { 0->1; 1->2 } Item = { 1..2 } }
";

#[test]
fn preconditions_per_constructor_keep_every_model() {
    // One action per time point. At 0 nothing is held: take(1), take(2) or wait. At 1 and 2
    // after take(x): take the other, put(x, other) or wait; after anything else: take(1),
    // take(2) or wait. So 3 * 3 * 3 walks.
    let (_, models) = support::checked_models(ACTIONS_BY_CONSTRUCTOR);
    assert_eq!(models.len(), 27);
    // Small enough for brute force: one item, two time points (take(1) then wait; wait then
    // take(1) or wait).
    let tiny = ACTIONS_BY_CONSTRUCTOR
        .replace("Time = { 0..2 }", "Time = { 0..1 }")
        .replace("Next = { 0->1; 1->2 }", "Next = { 0->1 }")
        .replace("Item = { 1..2 }", "Item = { 1 }");
    support::assert_models(&tiny, 3);
}

/// The same game over many items: a `put(x, y)` is possible only for an x that some earlier
/// `take` can hold, so the actions of the ground theory are a small part of the 900 puts.
#[test]
fn a_precondition_bounds_the_actions_of_its_constructor() {
    let items = 30;
    let text = ACTIONS_BY_CONSTRUCTOR
        .replace("Item = { 1..2 }", &format!("Item = {{ 1..{items} }}"))
        .replace(
            "! t x : Do(t, take(x)) => ~Held(t, x).",
            "! t x : Do(t, take(x)) => ~Held(t, x) & x =< 2.",
        );
    let out = support::idp(&["--stats", "-n", "1"], &text);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    // Per time point: 2 takes, at most 2 * 29 puts, wait; Held and On after them.
    let atoms = ground_atoms(&stderr);
    assert!(atoms <= 400, "{atoms} ground atoms:\n{stderr}");
}

/// A universal whose consequent has variables of its own (`! x y z : P(x) => Q(x, y) | R(z)`)
/// is ground as `! x : P(x) => ! y z : ..`, stopping the inner enumeration at the first
/// false consequent; an existential over a conjunction the same way. The models are those of
/// brute force (R is known: `Q(x, y) | R(z)` is false for z > 1 unless Q(x, y) holds).
#[test]
fn quantified_variables_of_a_consequent_alone_keep_the_models() {
    let spec = |theory: &str| {
        format!(
            "vocabulary V {{
  type X isa nat
  type Y isa nat
  type Z isa nat
  P(X)
  Q(X, Y)
  R(Z)
}}
theory T : V {{ {theory} }}
structure S : V {{ X = {{ 1..2 }} Y = {{ 1..4 }} Z = {{ 1..16 }} R = {{ 1 }} }}
"
        )
    };
    // Per x: P(x) false and Q(x, _) free (16), or P(x) and every Q(x, y) (1).
    support::assert_models(&spec("! x y z : P(x) => Q(x, y) | R(z)."), 17 * 17);
    // Per x: Q(x, _) free and P(x) exactly when some Q(x, y) holds (R(1) does).
    support::assert_models(&spec("! x : P(x) <=> ? y z : Q(x, y) & R(z)."), 16 * 16);
}

/// PlayID's peg solitaire writes its precondition with two variables of the consequent
/// alone, universally quantified (`! .. or oc : do(t, jump(sr, sc, dr, dc)) => .. &
/// middle(t, sr, sc, or, oc, dr, dc) & ..`): no jump satisfies it, so the theory has no
/// model, which must be found without enumerating every pair (or, oc) for every jump and time
/// point (60^4 bindings per time point here).
#[test]
fn a_precondition_with_variables_of_its_consequent_alone_grounds_quickly() {
    let text = "LTCvocabulary V {
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type Pos isa nat
  type Action constructed from { jump(Pos, Pos) }
  Do(Time, Action)
  Peg(Time, Pos)
  Mid(Pos, Pos, Pos)
}
theory T : V {
  { ! x : Peg(Start, x) <- x ~= 1.
    ! t x : Peg(Next(t), x) <- Peg(t, x) & ~(? y : Do(t, jump(x, y))). }
  ! t a c b d : Do(t, jump(a, c)) => Peg(t, a) & ~Peg(t, c) & Mid(a, b, d) & Peg(t, b).
  ! t : ?=1 j : Do(t, j).
}
structure S : V {
  Time = { 0..10 } Start = 0 Next = { 0->1; 1->2; 2->3; 3->4; 4->5; 5->6; 6->7; 7->8; 8->9; 9->10 }
  Pos = { 1..60 }
  Mid = { 1,2,3; 2,3,4; 3,4,5 }
}
";
    let out = support::idp(&["--stats", "-n", "1", "--timeout", "60"], text);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(20), "{stderr}");
}

/// A pancake stack of `n` as PlayID writes it: the order a fluent with one argument per
/// position, `Next` defined by the theory (time ends where the game does: once the stack is
/// sorted), one flip of the top `k` per time point.
fn pancakes(n: usize, steps: usize) -> String {
    let vars: Vec<String> = (1..=n).map(|i| format!("a{i}")).collect();
    let all = vars.join(", ");
    let sorts = vec!["P"; n].join(", ");
    let flips: String = (2..=n)
        .map(|k| {
            let mut flipped: Vec<String> = vars[..k].iter().rev().cloned().collect();
            flipped.extend(vars[k..].iter().cloned());
            format!(
                "    ! t {all} : C_order(t, {all}) <- do(t, flip(p{k})) & order(t, {}).\n",
                flipped.join(", ")
            )
        })
        .collect();
    let sorted: Vec<String> = (1..=n).map(|i| format!("p{i}")).collect();
    let mut start: Vec<String> = sorted.clone();
    start.reverse();
    let pancakes: Vec<String> = sorted.clone();
    format!(
        "LTCvocabulary V {{
  type Time isa nat
  Start : Time
  partial Next(Time) : Time
  type P constructed from {{ {} }}
  type Action constructed from {{ flip(P) }}
  terminalTime(Time)
  do(Time, Action)
  order(Time, {sorts})
  I_order({sorts})
  C_order(Time, {sorts})
}}
theory T : V {{
  ! a t : do(t, a) => ~terminalTime(t) & (? t2 : Next(t) = t2).
  ! t : ~terminalTime(t) & (? t2 : Next(t) = t2) => (?=1 a : do(t, a)).
  {{ ! t : Next(t) = t + 1 <- ~terminalTime(t) & (? t2 : Next(t2) = t).
    Next(0) = 1. }}
  {{ ! {all} : order(Start, {all}) <- I_order({all}).
    ! t {all} : order(Next(t), {all}) <- C_order(t, {all}). }}
  {{
{flips}  }}
  ! t k : do(t, flip(k)) => k ~= p1.
  {{ ! t : terminalTime(t) <- order(t, {}). }}
}}
structure S : V {{
  Start = 0
  Time = {{ 0..{steps} }}
  I_order = {{ {} }}
}}
",
        pancakes.join(", "),
        sorted.join(", "),
        start.join(", ")
    )
}

/// Sequences of flips (of the top 2 to `n`) from the reversed stack, one per time point until
/// the stack is sorted or time runs out (the last time point has no `Next`).
fn count_flip_sequences(n: usize, steps: usize) -> u64 {
    fn go(stack: &mut Vec<usize>, left: usize) -> u64 {
        if stack.windows(2).all(|w| w[0] < w[1]) || left == 0 {
            return 1;
        }
        let mut total = 0;
        for k in 2..=stack.len() {
            stack[..k].reverse();
            total += go(stack, left - 1);
            stack[..k].reverse();
        }
        total
    }
    let mut stack: Vec<usize> = (1..=n).rev().collect();
    go(&mut stack, steps)
}

/// The shape that made PlayID's pancakes slow to ground: the initial state is ground from its
/// one tuple (not from every possible state at every time), and `order(Next(t), ..)` takes
/// `Next(t)`'s own cases (not every time point) for each possible `C_order` tuple.
#[test]
fn a_state_fluent_with_a_defined_next_is_ground_from_its_tuples() {
    for (n, steps) in [(3, 3), (4, 3)] {
        let (_, models) = support::checked_models(&pancakes(n, steps));
        assert_eq!(
            models.len() as u64,
            count_flip_sequences(n, steps),
            "{n} pancakes, {steps} steps"
        );
    }
    let out = support::idp(&["--stats", "-n", "1"], &pancakes(6, 5));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    let rule = |line: usize| rule_stats(&stderr, line);
    let initial = rule(18);
    // Before: 919 bindings (every possible state), and 8423 for the next states (every time
    // point for each).
    assert!(
        initial.ends_with("s: 1 ground rules, 1 new nodes (7 bindings tried)"),
        "{initial}"
    );
    let next = rule(19);
    assert!(
        next.ends_with("s: 918 ground rules, 2754 new nodes (3833 bindings tried)"),
        "{next}"
    );
}

/// [`pancakes`] of `start` (a permutation of `1..=n`) over `steps` time points, with a goal:
/// the stack is sorted at some time point before `within`.
fn scrambled_pancakes(start: &[usize], steps: usize, within: usize) -> String {
    let names = |v: Vec<usize>| -> String {
        v.iter()
            .map(|i| format!("p{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let n = start.len();
    let reversed = names((1..=n).rev().collect());
    pancakes(n, steps)
        .replace(
            &format!("I_order = {{ {reversed} }}"),
            &format!("I_order = {{ {} }}", names(start.to_vec())),
        )
        .replace(
            "theory T : V {\n",
            &format!("theory T : V {{\n  ? t : terminalTime(t) & t < {within}.\n"),
        )
}

/// The flips of the top 2 to n pancakes of `stack`.
fn flipped(stack: &[usize]) -> Vec<Vec<usize>> {
    (2..=stack.len())
        .map(|k| {
            let mut s = stack.to_vec();
            s[..k].reverse();
            s
        })
        .collect()
}

/// Plans that sort `stack` with at most `left` flips, ending at the first sorted stack.
fn count_plans(stack: &[usize], left: usize) -> u64 {
    if stack.windows(2).all(|w| w[0] < w[1]) {
        return 1;
    }
    if left == 0 {
        return 0;
    }
    flipped(stack)
        .iter()
        .map(|s| count_plans(s, left - 1))
        .sum()
}

/// The stacks reachable from `start` at each of the first `steps` time points, summed (the
/// possible `C_order` tuples: one per time point that has a next one).
fn reachable_states(start: &[usize], steps: usize) -> usize {
    let mut layer: std::collections::BTreeSet<Vec<usize>> = [start.to_vec()].into();
    let mut total = 0;
    for _ in 0..steps {
        total += layer.len();
        layer = layer.iter().flat_map(|s| flipped(s)).collect();
    }
    total
}

/// Seven pancakes over eight time points: the shape of PlayID's pancakes88 (rules over a
/// many-argument state fluent, thousands of possible states over time). `order(Next(t), ..)`
/// binds its eight variables at once from `C_order`'s sorted possible tuples (two bindings a
/// tuple, with `Next(t)`'s; 46032 when they were joined one variable at a time), and the six
/// flip rules are ground at the same sorted heads, one ground rule per state reachable before
/// the last time point. The models are the plans a search of the flips finds.
#[test]
fn many_variable_flip_rules_over_a_state_fluent_ground_at_its_tuples() {
    let start = [2, 5, 7, 1, 6, 3, 4];
    for (within, plans) in [(6, 0), (7, 2), (8, 11)] {
        assert_eq!(count_plans(&start, within - 1), plans);
        let out = support::idp(
            &["--nowarnings", "-n", "0", "--count"],
            &scrambled_pancakes(&start, 7, within),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.trim(),
            format!("Number of models: {plans}"),
            "plans sorted before {within}"
        );
    }
    let out = support::idp(&["--stats", "-n", "1"], &scrambled_pancakes(&start, 7, 8));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    let rule = |line: usize| rule_stats(&stderr, line);
    let next = rule(20);
    assert!(
        next.ends_with("s: 11688 ground rules, 35064 new nodes (23376 bindings tried)"),
        "{next}"
    );
    let states = reachable_states(&start, 7);
    assert_eq!(states, 6684);
    for line in 22..28 {
        let flip = rule(line);
        let expected = format!("s: {states} ground rules, 6691 new nodes (11688 bindings tried)");
        assert!(flip.ends_with(&expected), "{flip}");
    }
}

/// The `--stats` line of the rule at line `line` of stdin.
fn rule_stats(stderr: &str, line: usize) -> String {
    stderr
        .lines()
        .find(|l| l.contains(&format!("rule at stdin:{line}:")))
        .unwrap_or_else(|| panic!("no rule at line {line} in:\n{stderr}"))
        .to_string()
}

/// Peg solitaire on a line of `holes` holes written the plain way, without LTC (as
/// bench/classics/solitaire.idp writes the English board): `Move(t, a, b, c)` bounded by the
/// known `Jump` and by the pegs one step before (`? s : s = t - 1 & ...`), `Peg` defined over
/// the moves. Exactly one move a step for `steps` steps, from the pegs in `full`.
fn line_solitaire(holes: usize, full: &[usize], steps: usize) -> String {
    let jumps: Vec<String> = (1..=holes.saturating_sub(2))
        .flat_map(|a| {
            [
                format!("{a},{},{}", a + 1, a + 2),
                format!("{},{},{a}", a + 2, a + 1),
            ]
        })
        .collect();
    let full: Vec<String> = full.iter().map(usize::to_string).collect();
    format!(
        "vocabulary V {{
  type Time isa int
  type Hole isa int
  Jump(Hole, Hole, Hole)
  Full(Hole)
  Peg(Time, Hole)
  Move(Time, Hole, Hole, Hole)
}}
theory T : V {{
  ! t : t > 0 => ?1 a b c : Move(t, a, b, c).
  ! t a b c : Move(t, a, b, c) => Jump(a, b, c).
  ! t a b c : Move(t, a, b, c) => ? s : s = t - 1 & Peg(s, a) & Peg(s, b) & ~Peg(s, c).
  {{
    ! h : Peg(0, h) <- Full(h).
    ! t h : Peg(t, h) <- ? s : s = t - 1 & Peg(s, h) & ~(? b c : Move(t, h, b, c) | Move(t, b, h, c)).
    ! t h : Peg(t, h) <- ? a b : Move(t, a, b, h).
  }}
}}
structure S : V {{
  Time = {{ 0..{steps} }}
  Hole = {{ 1..{holes} }}
  Jump = {{ {} }}
  Full = {{ {} }}
}}
",
        jumps.join("; "),
        full.join("; ")
    )
}

/// The sequences of `steps` jumps from the pegs in `pegs` (a peg jumps over a neighbour into
/// the empty hole beyond), counted directly.
fn count_jump_sequences(pegs: &mut [bool], steps: usize) -> u64 {
    if steps == 0 {
        return 1;
    }
    let n = pegs.len();
    let mut total = 0;
    for a in 0..n {
        for (b, c) in [(a + 1, a + 2), (a.wrapping_sub(1), a.wrapping_sub(2))] {
            if c < n && pegs[a] && pegs[b] && !pegs[c] {
                pegs[a] = false;
                pegs[b] = false;
                pegs[c] = true;
                total += count_jump_sequences(pegs, steps - 1);
                pegs[a] = true;
                pegs[b] = true;
                pegs[c] = false;
            }
        }
    }
    total
}

/// A plan written without LTC is bounded like one written with it: each symbol's first
/// integer argument is its time, `Peg(s, _)` with `s = t - 1` is a step back, so `Move` and
/// `Peg` are bounded together and the models stay those of a direct count.
#[test]
fn a_plan_without_ltc_keeps_every_model() {
    for (holes, full, steps) in [
        (5, vec![1, 2, 4], 2),
        (6, vec![1, 2, 4, 5], 3),
        (6, vec![2, 3, 5, 6], 2),
        (4, vec![1, 2], 1),
    ] {
        let mut pegs: Vec<bool> = (1..=holes).map(|h| full.contains(&h)).collect();
        let expected = count_jump_sequences(&mut pegs, steps);
        let (_, models) = support::checked_models(&line_solitaire(holes, &full, steps));
        assert_eq!(
            models.len() as u64,
            expected,
            "{holes} holes, pegs {full:?}, {steps} steps"
        );
    }
}

/// The same plan on 12 holes over 8 steps: `Move` is ground only where `Jump` and the pegs
/// allow it (Time x Hole³ would be over 15 000 atoms).
#[test]
fn a_plan_without_ltc_is_ground_only_over_possible_moves() {
    let full: Vec<usize> = (1..=12).filter(|h| h % 3 != 0).collect();
    let out = support::idp(&["--stats", "-n", "1"], &line_solitaire(12, &full, 8));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let atoms = ground_atoms(&stderr);
    assert!(atoms <= 600, "{atoms} ground atoms:\n{stderr}");
}

/// Two definitions that support each other at the same integer time, and through a step
/// forward and one back (`P(t) <- Q(t + 1)`, `Q(t) <- P(t - 1)`): ground loops, so the
/// definitions are not bounded together and every model stays (2 per time point for the
/// first pair, and the second pair's loops P(0) - Q(1) and P(1) - Q(2) each true or false).
#[test]
fn loops_across_definitions_without_ltc_keep_their_models() {
    let theory = |p: &str, q: &str| {
        format!(
            "vocabulary V {{
  type Time isa int
  P(Time)
  Q(Time)
}}
theory T : V {{
  {{ ! t : P(t) <- {p}. }}
  {{ ! t : Q(t) <- {q}. }}
}}
structure S : V {{ Time = {{ 0..2 }} }}
"
        )
    };
    support::assert_models(&theory("Q(t)", "P(t)"), 8);
    support::assert_models(&theory("Q(t + 1)", "P(t - 1)"), 4);
}
