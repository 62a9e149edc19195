//! Lazy grounding (issue 28, `ground::delayed`): an open predicate over a huge action type
//! whose sentences single out a few actions is ground over those, every other tuple assumed
//! false; model expansion grounds more of them when it finds fewer models than asked for, and
//! stops with a limit naming the predicate rather than answer with too few models. Every model
//! is checked by the naive checker; counts on tiny versions are compared with brute force.

mod support;

use idp::infer::{self, brute_force_count, check_model, Options, Tuning};
use idp::structure::Structure;
use support::{program, theory_t_and_structure_s};

/// A game with `n` elements: actions `w(E, E, E, E)` (n^4 per time point), two time points,
/// one action per time point, and the given extra sentences.
fn game(n: usize, sentences: &str) -> String {
    game_over(n, 1, sentences)
}

/// [`game`] over the time points 0..`last`.
fn game_over(n: usize, last: usize, sentences: &str) -> String {
    format!(
        r#"
vocabulary V {{
    type Time isa int
    type E isa int
    type Action constructed from {{ w(E, E, E, E) }}
    do(Time, Action)
    Mark(Time, E)
}}
theory T : V {{
    ! t : ?=1 a : do(t, a).
    {{ ! t x : Mark(t, x) <- do(t, w(x, x, x, 1)). }}
    {sentences}
}}
structure S : V {{
    Time = {{ 0..{last} }}
    E = {{ 1..{n} }}
}}
"#
    )
}

fn options(nbmodels: usize, delay_after: u64) -> Options {
    Options {
        nbmodels,
        tuning: Tuning {
            delay_after,
            ..Tuning::default()
        },
        ..Options::default()
    }
}

/// Model expansion's models (each checked by the naive checker), or its error message.
fn expand(text: &str, nbmodels: usize, delay_after: u64) -> Result<Vec<Structure>, String> {
    let p = program(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let found = infer::modelexpand(&p, theory, structure, None, &options(nbmodels, delay_after))
        .map_err(|e| e.message().to_string())?
        .value;
    for m in &found {
        if let Err(why) = check_model(&p, theory, m) {
            panic!("a returned model is wrong: {why}\n{m:?}");
        }
    }
    Ok(found)
}

/// Actions that mark, allowed only on elements 1 and 2: the models need one of them at each
/// time point (4 plans), and every other action leaves no mark.
const MARK_ONE_OR_TWO: &str =
    "! t x : do(t, w(x, x, x, 1)) => x =< 2.\n    ! t : ? x : Mark(t, x).";

#[test]
fn the_singled_out_actions_give_the_models_without_grounding_the_others() {
    // 36^4 = 1,679,616 actions per time point (past the default threshold, and few enough
    // for the naive checker to list): only those that can mark are ground.
    let text = game(36, MARK_ONE_OR_TWO);
    let models = expand(&text, 4, 1_000_000).expect("four models");
    assert_eq!(models.len(), 4);
}

#[test]
fn asking_for_more_models_than_the_singled_out_actions_give_stops_with_a_limit() {
    // Only 4 models exist, but lazy grounding cannot know that without grounding every
    // action: it grounds more of them, then stops naming `do` rather than answer 4.
    let text = game(60, MARK_ONE_OR_TWO);
    let message = expand(&text, 5, 1000).expect_err("a limit, not 4 models");
    assert!(message.contains("do has 25920000 tuples"), "{message}");
    assert!(message.contains("4 models"), "{message}");
}

#[test]
fn a_model_that_needs_a_delayed_action_is_found_by_grounding_more() {
    // No marking action is allowed: the model takes some other action at each time point,
    // which only the first expansion grounds.
    let text = game(36, "! t x : do(t, w(x, x, x, 1)) => false.");
    let models = expand(&text, 1, 1_000_000).expect("a model");
    assert_eq!(models.len(), 1);
}

#[test]
fn an_unsatisfiable_theory_is_not_answered_unsatisfiable_while_actions_are_delayed() {
    // Unsatisfiable (an action at each time point, none allowed), but only grounding every
    // action shows it: lazy grounding must stop with a limit, not answer.
    let text = game(
        60,
        "! t x : do(t, w(x, x, x, 1)) => x = 1.\n    ! t a : do(t, a) => false.",
    );
    let message = expand(&text, 1, 1000).expect_err("a limit, not Unsatisfiable");
    assert!(message.contains("do has"), "{message}");
}

#[test]
fn tiny_versions_count_as_brute_force_does() {
    // 2^4 = 16 actions at one time point, delayed past 15 tuples: the next level grounds the
    // others (at most 15) all, and the count is exact.
    for sentences in [
        MARK_ONE_OR_TWO,
        "! t x : do(t, w(x, x, x, 1)) => false.",
        "! t x : do(t, w(x, x, x, 1)) => x = 1.\n    ! t a : do(t, a) => false.",
        "! t x : do(t, w(x, x, x, 1)) => x = 2.\n    ! t a : do(t, a) => (? x : a = w(x, x, x, 1)) | a = w(1, 2, 1, 2).",
    ] {
        let text = game_over(2, 0, sentences);
        let p = program(&text);
        let (theory, structure) = theory_t_and_structure_s(&p);
        let expected = brute_force_count(&p, theory, structure, 1 << 20).expect("brute force");
        let lazy = expand(&text, 0, 15).expect("an exact count");
        let eager = expand(&text, 0, 0).expect("an exact count");
        assert_eq!(lazy.len() as u64, expected, "{sentences}");
        assert_eq!(eager.len() as u64, expected, "{sentences}");
    }
}

#[test]
fn every_model_asked_for_is_found_when_the_singled_out_actions_have_enough() {
    // Four models exist with the marking actions; asking for at most four needs no expansion,
    // and the models agree with the eager grounding's on a version small enough for it.
    let text = game(6, MARK_ONE_OR_TWO);
    let lazy = expand(&text, 4, 100).expect("four models");
    let eager = expand(&text, 0, 0).expect("all models");
    assert_eq!(lazy.len(), 4);
    assert_eq!(eager.len(), 4);
}

/// A translated game's shape (PlayID's hitori): the actions `w(E, E, E, E)` at `steps` time
/// points; the marking actions `w(x, x, x, 1)` are singled out by a legality sentence whose
/// count is universally quantified (as PlayID writes it, so that no marking action is legal);
/// a frame rule keeps each element after an action unless the action's last argument names
/// it (the last, as the other tuples that lazy grounding adds first vary the last argument
/// of `w` fastest: a frame keyed on the first one would need more of them than a threshold of
/// 1000 allows, and lazy grounding stops instead); and the goal asks that `goal` hold. Each element has the count 1.
fn framed_game(n: usize, steps: usize, goal: &str) -> String {
    format!(
        r#"
vocabulary V {{
    type Step isa int
    type E isa int
    type Action constructed from {{ w(E, E, E, E) }}
    do(Step, Action)
    Count(E, E)
    Kept(E)
}}
theory T : V {{
    ! s : ?=1 a : do(s, a).
    ! s x c : do(s, w(x, x, x, 1)) => Count(x, c).
    {{ ! x s a b c d : Kept(x) <- do(s, w(a, b, c, d)) & x ~= d. }}
    {goal}
}}
structure S : V {{
    Step = {{ 0..{last} }}
    E = {{ 1..{n} }}
    Count = {{ {counts} }}
}}
"#,
        last = steps - 1,
        counts = (1..=n)
            .map(|x| format!("{x},1"))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// The element 1 is kept: the action's last argument is another, none of them singled out.
const KEEP_ONE: &str = "Kept(1).";

/// Every element is kept: no action does that, whatever the delayed tuples are.
const KEEP_ALL: &str = "! x : Kept(x).";

#[test]
fn a_model_that_needs_an_action_no_sentence_singles_out_is_found() {
    // 12^4 actions, past a threshold of 1000: the singled-out ones are never legal, and the
    // model takes one of the others (a no-op, as PlayID's translation allows), ground at
    // level 1.
    let text = framed_game(12, 1, KEEP_ONE);
    let models = expand(&text, 1, 1000).expect("a model");
    assert_eq!(models.len(), 1);
}

#[test]
fn a_theory_without_models_whatever_the_delayed_actions_stops_naming_the_sentence() {
    // No model (every element kept needs an action whose first argument is none of them),
    // which only all the actions show: the stop names `do`, the sentence that singles out its
    // ground tuples, and says that no model may exist.
    let text = framed_game(60, 1, KEEP_ALL);
    let message = expand(&text, 1, 1000).expect_err("a limit, not Unsatisfiable");
    assert!(message.contains("do has 12960000 tuples"), "{message}");
    assert!(
        message.contains("the 60 that its sentences single out"),
        "{message}"
    );
    assert!(message.contains("no model at all"), "{message}");
}

#[test]
fn tiny_framed_games_count_as_brute_force_and_eager_grounding_do() {
    // 2^4 = 16 actions at one step, delayed past 15 tuples: 8 models keep element 1 (the 8
    // actions w(.., 2), none of them a marking one), none keeps both.
    for (goal, count) in [(KEEP_ONE, 8), (KEEP_ALL, 0)] {
        assert_counts(&framed_game(2, 1, goal), count, goal);
    }
}

/// Brute force counts `count` models of `text`, and so do model expansion with a delay
/// threshold of 15 tuples and without delays (`what` names the case).
fn assert_counts(text: &str, count: u64, what: &str) {
    let p = program(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let expected = brute_force_count(&p, theory, structure, 1 << 20).expect("brute force");
    let lazy = expand(text, 0, 15).expect("an exact count");
    let eager = expand(text, 0, 0).expect("an exact count");
    assert_eq!(expected, count, "{what}");
    assert_eq!(lazy.len() as u64, expected, "{what}");
    assert_eq!(eager.len() as u64, expected, "{what}");
}

#[test]
fn framed_games_on_a_few_elements_agree_with_eager_grounding() {
    // 3^4 = 81 actions at one step, delayed past 50: the lazy models (asked for all, so
    // every level is ground) are as many as the eager ones (54 and 0), and each is checked.
    for goal in [KEEP_ONE, KEEP_ALL] {
        let text = framed_game(3, 1, goal);
        let eager = expand(&text, 0, 0).expect("all models");
        match expand(&text, 0, 50) {
            Ok(lazy) => assert_eq!(lazy.len(), eager.len(), "{goal}"),
            Err(message) => assert!(message.contains("do has 81 tuples"), "{message}"),
        }
    }
}

/// A game of hitori's shape whose goal needs a marking action: `w(x, x, x, 1)` marks `x` and
/// is legal only when `Count(x, c)` holds for every `c` (PlayID's universal count), which the
/// structure gives for the elements of `legal` only; a frame rule reads every action (`Kept`,
/// as [`framed_game`]); one action per step.
fn marking_game(n: usize, steps: usize, legal: &[usize]) -> String {
    let mut counts: Vec<String> = (1..=n).map(|x| format!("{x},1")).collect();
    for &x in legal {
        counts.extend((2..=n).map(|c| format!("{x},{c}")));
    }
    format!(
        r#"
vocabulary V {{
    type Step isa int
    type E isa int
    type Action constructed from {{ w(E, E, E, E) }}
    do(Step, Action)
    Count(E, E)
    Marked(E)
    Kept(E)
}}
theory T : V {{
    ! s : ?=1 a : do(s, a).
    ! s x c : do(s, w(x, x, x, 1)) => Count(x, c).
    {{
        ! s x : Marked(x) <- do(s, w(x, x, x, 1)).
        ! x s a b c d : Kept(x) <- do(s, w(a, b, c, d)) & x ~= d.
    }}
    ? x : Marked(x).
}}
structure S : V {{
    Step = {{ 0..{last} }}
    E = {{ 1..{n} }}
    Count = {{ {counts} }}
}}
"#,
        last = steps - 1,
        counts = counts.join("; ")
    )
}

#[test]
fn a_goal_that_no_legal_action_reaches_is_unsatisfiable_without_grounding_the_delayed_actions() {
    // 60^4 = 12,960,000 actions, past a threshold of 1000: no marking action is legal, so no
    // model; the relaxation with the frame rule's action read by a free predicate shows it
    // (every model would be one of it), where lazy grounding alone stops with a limit.
    let text = marking_game(60, 2, &[]);
    let models = expand(&text, 1, 1000).expect("Unsatisfiable, not a limit");
    assert!(models.is_empty());
}

#[test]
fn a_goal_that_a_legal_action_reaches_is_not_refuted_by_the_relaxation() {
    // Element 7 may be marked: the relaxation has a model, and lazy grounding finds the
    // theory's own (each checked by the naive checker, which lists the 12^4 actions).
    let text = marking_game(12, 2, &[7]);
    let models = expand(&text, 2, 1000).expect("models");
    assert_eq!(models.len(), 2);
}

#[test]
fn tiny_marking_games_count_as_brute_force_and_eager_grounding_do() {
    // 2^4 = 16 actions at one step, delayed past 15: with no legal marking action, none; with
    // element 2's, the one model that takes it.
    for (legal, count) in [(&[][..], 0), (&[2][..], 1)] {
        assert_counts(&marking_game(2, 1, legal), count, &format!("{legal:?}"));
    }
}

#[test]
fn explaining_a_theory_over_delayed_actions_stops_at_once_naming_the_predicate() {
    // Explaining leaves out each sentence in turn; without the legality sentence every one
    // of the 2 * 60^4 tuples of do would have to be ground: it says so rather than try.
    let text = marking_game(60, 2, &[]);
    let p = program(&text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let started = std::time::Instant::now();
    let Err(error) = infer::unsat_core(
        &p,
        theory,
        structure,
        &infer::Facts::Given,
        &[],
        &options(1, 1000),
    ) else {
        panic!("a stop, not a core");
    };
    assert!(
        error
            .message()
            .starts_with("idp cannot explain this theory: do has 25920000 tuples"),
        "{}",
        error.message()
    );
    assert!(started.elapsed().as_secs() < 5);
}
