//! A relaxation first (issue 28, `infer::lazy`): model expansion leaves out the definitions
//! whose symbols the joint bounds allow many tuples (the stacks of a pancake game at every
//! time point), grounds the rest with those symbols open within their bounds, and answers
//! `Unsatisfiable` when that relaxation has no model; otherwise it grounds the whole theory.
//! Counts with and without the relaxation are compared with a replay of every plan; the binary's
//! `--stats` show what was left out and how few nodes the answer took.

mod support;

use idp::infer::{Options, Tuning};
use support::checked_models_with;

/// Four pancakes that take four flips to sort, `last` time points of flips, and a goal that
/// reads the stack through a defined `Sorted`: sorted at a time point no later than
/// `deadline`.
fn pancakes(last: usize, deadline: usize) -> String {
    format!(
        r#"
vocabulary V {{
    type Time isa int
    type P isa int
    type Flip isa int
    Start(P, P, P, P)
    Order(Time, P, P, P, P)
    do(Time, Flip)
    Sorted(Time)
}}
theory T : V {{
    ! t : t < {last} => (?=1 k : do(t, k)).
    ! t k : do(t, k) => t < {last}.
    {{
        ! a b c d : Order(0, a, b, c, d) <- Start(a, b, c, d).
        ! t a b c d : Order(t + 1, b, a, c, d) <- Order(t, a, b, c, d) & do(t, 2).
        ! t a b c d : Order(t + 1, c, b, a, d) <- Order(t, a, b, c, d) & do(t, 3).
        ! t a b c d : Order(t + 1, d, c, b, a) <- Order(t, a, b, c, d) & do(t, 4).
    }}
    {{ ! t : Sorted(t) <- Order(t, 1, 2, 3, 4). }}
    ? t : Sorted(t) & t =< {deadline}.
}}
structure S : V {{
    Time = {{ 0..{last} }}
    P = {{ 1..4 }}
    Flip = {{ 2..4 }}
    Start = {{ 3, 1, 4, 2 }}
}}
"#
    )
}

/// The number of models (each checked by the naive checker), with definitions over more
/// than `relax_above` possible tuples left out of a first relaxation (0: none).
fn count(text: &str, relax_above: usize) -> usize {
    let options = Options {
        tuning: Tuning {
            relax_above,
            ..Tuning::default()
        },
        ..Options::default()
    };
    checked_models_with(text, options).1.len()
}

/// The plans of `last` flips (each of the top 2, 3 or 4) that sort the start stack at some
/// time point no later than `deadline`, counted by replaying every plan: the models, as each
/// plan fixes the stacks.
fn plans_by_replay(last: usize, deadline: usize) -> usize {
    let sorts = |plan: &[usize]| {
        let mut stack = vec![3, 1, 4, 2];
        let mut sorted = vec![stack == [1, 2, 3, 4]];
        for &k in plan {
            stack[..k].reverse();
            sorted.push(stack == [1, 2, 3, 4]);
        }
        sorted.iter().take(deadline + 1).any(|&s| s)
    };
    let mut count = 0;
    for code in 0..3usize.pow(last as u32) {
        let plan: Vec<usize> = (0..last)
            .map(|i| 2 + code / 3usize.pow(i as u32) % 3)
            .collect();
        count += usize::from(sorts(&plan));
    }
    count
}

#[test]
fn counts_with_and_without_the_relaxation_are_those_of_a_replay() {
    // Sorting takes four flips: a deadline of 3 leaves no model, 4 leaves the plans whose
    // first four flips sort (the stacks: 24 per time point, more than 10 in all).
    for (last, deadline) in [(4, 3), (5, 4), (5, 3), (3, 3)] {
        let text = pancakes(last, deadline);
        let expected = plans_by_replay(last, deadline);
        assert_eq!(count(&text, 10), expected, "relaxed, {last} {deadline}");
        assert_eq!(count(&text, 0), expected, "whole, {last} {deadline}");
    }
    assert_eq!(plans_by_replay(4, 3), 0);
    assert!(plans_by_replay(5, 4) > 0);
}

/// The nodes of the ground theories and the relaxation's `--stats` line of a run of `text`
/// with `IDP_RELAX_ABOVE` set to `above`, and its first line of output.
fn run(text: &str, above: &str) -> (u64, Option<String>, String) {
    let dir = support::scratch("relaxation");
    let file = dir.join(format!("pancakes-{above}.idp"));
    let main = "procedure main() { stdoptions.nbmodels = 1 printmodels(modelexpand(T, S)) }";
    std::fs::write(&file, format!("{text}\n{main}\n")).expect("a scratch file");
    let out = support::idp_command()
        .env("IDP_RELAX_ABOVE", above)
        .args(["--stats", "--nowarnings"])
        .arg(&file)
        .output()
        .expect("the idp binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let nodes = stderr
        .lines()
        .filter(|l| l.starts_with("[stats] grounded and encoded in"))
        .filter_map(|l| {
            l.rsplit_once("): ")?
                .1
                .split(" nodes")
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum();
    let relaxed = stderr
        .lines()
        .find(|l| l.starts_with("[stats] relaxation:"))
        .map(str::to_string);
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    (nodes, relaxed, first)
}

#[test]
fn an_unreachable_goal_is_refuted_without_grounding_the_stacks() {
    let text = pancakes(4, 3);
    let (relaxed_nodes, relaxed, answer) = run(&text, "10");
    let (whole_nodes, none, whole_answer) = run(&text, "0");
    assert_eq!(answer, "Unsatisfiable");
    assert_eq!(whole_answer, "Unsatisfiable");
    let line = relaxed.expect("a relaxation");
    assert!(line.contains("the definitions of Order left out"), "{line}");
    assert!(none.is_none());
    // The goal reads four stacks (sorted at 0..3), the whole theory every stack and flip.
    assert!(
        relaxed_nodes * 2 < whole_nodes,
        "{relaxed_nodes} nodes relaxed, {whole_nodes} whole"
    );
}
