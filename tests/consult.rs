//! The consultant's engine (`idp::infer::consult`) against brute force: on random tiny
//! theories (definitions, aggregates, functions), after every prefix of random choices,
//! `forced` is the intersection of the models with the choices; every explanation is sound
//! (its parts alone force the literal) and minimal (without any one part they do not); every
//! set of choices that `why_not` says to retract makes the value possible, and no smaller set
//! does; a refused choice names a minimal set of choices that excludes it. Then `idp consult`,
//! the line protocol, on a small spec with its exact replies.
//!
//! `IDP_CONSULT_CASES` sets the number of random theories (a longer run, in BENCHMARKS.md).

mod support;

use idp::infer::consult::{Assumed, Consultation, Explanation, Literal, Problem, WhyNot};
use idp::infer::{brute_force_count, brute_force_models, Options};
use idp::sema::{Program, Theory};
use idp::structure::{Structure, TruthValue};
use support::{idp, program, theory_t_and_structure_s, Rng};

/// Candidates brute force may try.
const LIMIT: u64 = 1 << 16;

/// One random theory over `D = {1..n}`: open `P`, `A`, `B` and (with two elements) `F`,
/// a definition of `R` and `Q` with recursion, negation, an aggregate and a function in its
/// rules (with two elements), and sentences with counts, sums and function terms.
fn random_theory(rng: &mut Rng) -> String {
    let small = rng.below(2) == 0;
    let pick = |rng: &mut Rng, items: &[&str], percent: u64| -> Vec<String> {
        items
            .iter()
            .filter(|_| rng.below(100) < percent)
            .map(|s| s.to_string())
            .collect()
    };
    let sentences = [
        "! x: A(x) => B(x) | P.",
        "#{x: A(x)} =< 1.",
        "sum{x: B(x): x} >= 2 | ~P.",
        "! x: F(x) ~= x => A(x).",
        "A(F(1)) | B(F(2)).",
        "P <=> Q(1).",
        "? x: Q(x) & ~A(x).",
        "~(A(1) & B(2)).",
        "#{x: Q(x)} >= 2 => P.",
        "! x: R(x, x) => ~B(x).",
        "?1 x: B(x).",
        "P | A(2).",
    ];
    let rules = [
        "! x y: R(x, y) <- A(x) & B(y) & x < y.",
        "! x y: R(x, y) <- ? z: R(x, z) & R(z, y).",
        "! x y: R(x, y) <- F(x) = y & P.",
        "! x: Q(x) <- A(x) & ~B(x).",
        "! x: Q(x) <- ? y: R(y, x).",
        "! x: Q(x) <- Q(F(x)) & ~P.",
        "! x: Q(x) <- #{y: B(y) & y ~= x} >= 1 & ~A(x).",
    ];
    let mut chosen = pick(rng, &sentences, 30);
    let mut defined = pick(rng, &rules, 40);
    if defined.is_empty() {
        defined.push(rules[3].to_string());
    }
    if chosen.is_empty() {
        chosen.push(sentences[rng.below(sentences.len() as u64) as usize].to_string());
    }
    // Three elements: brute force cannot also try every function, so F is given.
    let (n, given) = if small {
        (2, String::new())
    } else {
        (3, "F = { 1->2; 2->3; 3->1 }".to_string())
    };
    let known = match rng.below(4) {
        0 => "A<cf> = { 2 }",
        1 => "B<ct> = { 1 }",
        _ => "",
    };
    format!(
        "vocabulary V {{\n    type D isa int\n    P\n    A(D)\n    B(D)\n    F(D) : D\n    \
         R(D, D)\n    Q(D)\n}}\ntheory T : V {{\n    {{\n        {}\n    }}\n    {}\n}}\n\
         structure S : V {{\n    D = {{ 1..{n} }}\n    {given}\n    {known}\n}}\n",
        defined.join("\n        "),
        chosen.join("\n    ")
    )
}

/// The literals as the consultation writes them.
fn shown(c: &Consultation<'_>, ls: &[Literal]) -> Vec<String> {
    ls.iter().map(|l| c.text(l)).collect()
}

/// Whether `model` satisfies `literal`.
fn holds(model: &Structure, literal: &Literal) -> bool {
    let truth = model
        .table(literal.symbol)
        .map(|t| t.truth(&literal.tuple))
        .unwrap_or(TruthValue::False);
    (truth == TruthValue::True) == literal.truth
}

/// The models among `models` that satisfy every literal of `choices`.
fn with<'m>(models: &'m [Structure], choices: &[Literal]) -> Vec<&'m Structure> {
    models
        .iter()
        .filter(|m| choices.iter().all(|l| holds(m, l)))
        .collect()
}

/// `theory` with the negation of `literal` added as a sentence.
fn without_literal(
    p: &Program,
    theory: &Theory,
    c: &Consultation<'_>,
    literal: &Literal,
) -> Theory {
    let text = c.text(&literal.negated());
    let f = idp::infer::parse_literal(p, theory.vocabulary, c.problem().structure(), &text)
        .expect("a literal the consultation wrote");
    let mut out = theory.clone();
    out.sentences.push(f);
    out
}

/// An explanation of `literal` is sound and minimal by brute force: its core (sentence
/// instances, definitions, the facts and choices it keeps) with the literal's negation has no
/// model, and without any one of its parts it has one.
fn assert_explanation(p: &Program, c: &mut Consultation<'_>, literal: &Literal, text: &str) {
    let theory = c.problem().theory();
    let chosen = c.chosen_structure();
    let negated = without_literal(p, theory, c, literal);
    let explanation = c.explain(literal).expect("an explanation");
    let Explanation::Because { core, .. } = explanation else {
        panic!("{} is forced but not explained\n{text}", c.text(literal));
    };
    let count = |core: &idp::infer::Core| {
        let mut t = core.theory(theory);
        t.sentences
            .push(negated.sentences.last().expect("added").clone());
        brute_force_count(p, &t, &core.structure(&chosen), LIMIT).expect("small")
    };
    assert_eq!(
        count(&core),
        0,
        "unsound explanation of {}: {core:?}\n{text}",
        c.text(literal)
    );
    if core.whole.is_some() {
        return;
    }
    for k in 0..core.pieces.len() {
        let mut smaller = core.clone();
        smaller.pieces.remove(k);
        assert!(
            count(&smaller) > 0,
            "explanation of {} not minimal: {:?} is not needed\n{text}",
            c.text(literal),
            core.pieces[k]
        );
    }
}

/// Relevance against brute force: the open atoms are split into relevant and irrelevant
/// ones, and an irrelevant atom of an open predicate does not matter: flipping it in any
/// model with the choices (the definitions following) gives a model with the choices.
fn assert_relevance(
    p: &Program,
    c: &mut Consultation<'_>,
    models_now: &[&Structure],
    atoms: &[Literal],
    text: &str,
) -> usize {
    let relevance = c.relevant(None).expect("relevant").expect("a model");
    let open: Vec<&Literal> = atoms
        .iter()
        .filter(|a| {
            let values: Vec<bool> = models_now.iter().map(|m| holds(m, a)).collect();
            values.contains(&true) && values.contains(&false)
        })
        .collect();
    let mut told: Vec<String> = shown(c, &relevance.relevant);
    told.extend(shown(c, &relevance.irrelevant));
    told.sort();
    let mut expected: Vec<String> = open.iter().map(|a| c.text(a)).collect();
    expected.sort();
    assert_eq!(
        told, expected,
        "relevant and irrelevant are the open atoms
{text}"
    );
    // The atoms that models are told apart by (open predicates and the function).
    let free: Vec<&Literal> = atoms
        .iter()
        .filter(|l| ["P", "A", "B", "F"].contains(&p.symbol_name(l.symbol)))
        .collect();
    let key = |m: &Structure| -> Vec<bool> { free.iter().map(|a| holds(m, a)).collect() };
    let keys: Vec<Vec<bool>> = models_now.iter().map(|m| key(m)).collect();
    let mut checks = 0;
    for a in &relevance.irrelevant {
        let Some(k) = free
            .iter()
            .position(|f| f.symbol == a.symbol && f.tuple == a.tuple)
            .filter(|_| p.symbol_name(a.symbol) != "F")
        else {
            continue;
        };
        for m in &keys {
            let mut flipped = m.clone();
            flipped[k] = !flipped[k];
            assert!(
                keys.contains(&flipped),
                "{} was said irrelevant, but flipping it in a model loses the model, with \
                 choices {:?}\n{text}",
                c.text(a),
                shown(c, &c.choices())
            );
        }
        checks += 1;
    }
    checks
}

/// One consultation of one random theory, checked step by step against brute force.
fn check_consultation(text: &str, rng: &mut Rng) -> usize {
    let p = program(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let Some(models) = brute_force_models(&p, theory, structure, LIMIT) else {
        return 0;
    };
    let problem = Problem::new(&p, theory, structure, &Options::default()).expect("prepared");
    let mut c = problem.consult().expect("consulted");
    let atoms = c.atoms();
    let mut checks = 0;
    for _step in 0..5 {
        let choices = c.choices();
        let models_now = with(&models, &choices);
        let forced = c.forced().expect("forced");
        let Some(mut forced) = forced else {
            assert!(
                models_now.is_empty(),
                "no model said, but there are some\n{text}"
            );
            break;
        };
        assert!(
            forced.undecided.is_empty(),
            "no budget, yet undecided atoms\n{text}"
        );
        // Compared on all atoms: what the structure fixes and what the choices add.
        let given = c.given();
        forced.true_atoms.extend(given.true_atoms);
        forced.false_atoms.extend(given.false_atoms);
        let index: std::collections::HashMap<_, _> = atoms
            .iter()
            .enumerate()
            .map(|(k, a)| ((a.symbol, a.tuple.clone()), k))
            .collect();
        for ls in [&mut forced.true_atoms, &mut forced.false_atoms] {
            ls.sort_by_key(|l| index[&(l.symbol, l.tuple.clone())]);
        }
        assert!(
            !models_now.is_empty(),
            "models said, but there are none\n{text}"
        );
        let (mut true_atoms, mut false_atoms) = (Vec::new(), Vec::new());
        let mut open = Vec::new();
        for a in &atoms {
            let values: Vec<bool> = models_now.iter().map(|m| holds(m, a)).collect();
            if values.iter().all(|&v| v) {
                true_atoms.push(a.clone());
            } else if values.iter().all(|&v| !v) {
                false_atoms.push(a.clone());
            } else {
                open.push(a.clone());
            }
        }
        assert_eq!(
            shown(&c, &forced.true_atoms),
            shown(&c, &true_atoms),
            "forced true atoms after {:?}\n{text}",
            shown(&c, &choices)
        );
        assert_eq!(
            shown(&c, &forced.false_atoms),
            shown(&c, &false_atoms),
            "forced false atoms after {:?}\n{text}",
            shown(&c, &choices)
        );
        checks += 1;
        checks += assert_relevance(&p, &mut c, &models_now, &atoms, text);
        // A consequence that is not a choice: explained soundly and minimally; its other
        // value: why not, and what to retract.
        let consequences: Vec<Literal> = true_atoms
            .iter()
            .cloned()
            .chain(false_atoms.iter().map(|a| a.negated()))
            .filter(|l| !choices.contains(l))
            .collect();
        if !consequences.is_empty() {
            let l = consequences[rng.below(consequences.len() as u64) as usize].clone();
            assert_explanation(&p, &mut c, &l, text);
            assert_why_not(&mut c, &models, &l.negated(), text);
            // Choosing the impossible value is refused, naming a minimal conflict.
            match c.assume(&l.negated()).expect("assumed") {
                Assumed::Refused(conflict) => {
                    assert!(conflict.iter().all(|x| choices.contains(x)));
                    let mut tried = conflict.clone();
                    tried.push(l.negated());
                    assert!(
                        with(&models, &tried).is_empty(),
                        "conflict {:?} allows it\n{text}",
                        shown(&c, &conflict)
                    );
                    for k in 0..conflict.len() {
                        let mut less = tried.clone();
                        less.remove(k);
                        assert!(
                            !with(&models, &less).is_empty(),
                            "conflict not minimal\n{text}"
                        );
                    }
                }
                other => panic!(
                    "{} accepted ({other:?}) though impossible\n{text}",
                    c.text(&l.negated())
                ),
            }
            checks += 3;
        }
        // The next choice: a random open atom, a random value; sometimes a retraction.
        if !choices.is_empty() && rng.below(5) == 0 {
            let l = &choices[rng.below(choices.len() as u64) as usize];
            assert!(c.retract(l).expect("retracted"));
            continue;
        }
        if open.is_empty() {
            break;
        }
        let mut l = open[rng.below(open.len() as u64) as usize].clone();
        l.truth = rng.below(2) == 0;
        assert_eq!(
            c.assume(&l).expect("assumed"),
            Assumed::Added,
            "{}\n{text}",
            c.text(&l)
        );
        // Every model the consultation gives has the choices and passes brute force.
        if rng.below(3) == 0 {
            let model = c.model().expect("a model").expect("some model");
            assert!(
                models
                    .iter()
                    .any(|m| atoms.iter().all(|a| holds(m, a) == holds(&model, a))),
                "the model given is not one of brute force's\n{text}"
            );
            assert!(c.choices().iter().all(|l| holds(&model, l)));
        }
    }
    checks
}

/// `why_not` of `literal` (impossible with the choices): each set to retract, retracted,
/// makes it possible, and no smaller set does; with no set, no retraction does.
fn assert_why_not(c: &mut Consultation<'_>, models: &[Structure], literal: &Literal, text: &str) {
    let choices = c.choices();
    let WhyNot::Impossible { retract, .. } = c.why_not(literal).expect("why not") else {
        panic!("{} said possible\n{text}", c.text(literal));
    };
    let kept = |set: &[Literal]| -> Vec<Literal> {
        let mut rest: Vec<Literal> = choices
            .iter()
            .filter(|x| !set.contains(x) && x.symbol_tuple() != literal.symbol_tuple())
            .cloned()
            .collect();
        rest.push(literal.clone());
        rest
    };
    if retract.is_empty() {
        assert!(
            with(models, std::slice::from_ref(literal)).is_empty(),
            "no retraction said for {}, but retracting all makes it possible\n{text}",
            c.text(literal)
        );
        return;
    }
    let others: Vec<Literal> = choices
        .iter()
        .filter(|x| x.symbol_tuple() != literal.symbol_tuple())
        .cloned()
        .collect();
    // A choice of the atom's other value is in every set; the rest is what is chosen.
    let own = choices.len() - others.len();
    let smallest = retract.iter().map(Vec::len).min().expect("not empty") - own;
    for set in &retract {
        assert!(
            !with(models, &kept(set)).is_empty(),
            "retracting {set:?} does not help\n{text}"
        );
        assert_eq!(set.len() - own, smallest);
    }
    // No smaller set of the other choices helps.
    for mask in 0u32..(1 << others.len()) {
        let set: Vec<Literal> = (0..others.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| others[i].clone())
            .collect();
        if set.len() < smallest {
            assert!(
                with(models, &kept(&set)).is_empty(),
                "a smaller set {set:?} helps\n{text}"
            );
        }
    }
}

trait SymbolTuple {
    fn symbol_tuple(&self) -> (idp::ids::Symbol, &[idp::structure::Value]);
}

impl SymbolTuple for Literal {
    fn symbol_tuple(&self) -> (idp::ids::Symbol, &[idp::structure::Value]) {
        (self.symbol, &self.tuple)
    }
}

#[test]
fn random_consultations_agree_with_brute_force() {
    let cases: usize = std::env::var("IDP_CONSULT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let mut rng = Rng(0x5be0_cd19_137e_2179);
    let mut checks = 0;
    for _ in 0..cases {
        let text = random_theory(&mut rng);
        checks += check_consultation(&text, &mut rng);
    }
    assert!(checks > cases * 3, "too few checks: {checks}");
}

/// `groundpropagate` (`Propagation::Ground`: propagation on the grounding without a search)
/// is sound and never stronger than `optimalpropagate`, which is exactly the intersection of
/// the models (brute force); on random theories with definitions, aggregates and functions,
/// and on one theory where the two differ.
#[test]
fn ground_propagation_is_sound_and_optimal_is_the_intersection() {
    use idp::infer::{propagate, Propagation};
    use idp::structure::Table;
    let mut rng = Rng(0x1f83_d9ab_fb41_bd6b);
    let (mut weaker, mut certain) = (0, 0);
    for _ in 0..150 {
        let text = random_theory(&mut rng);
        let p = program(&text);
        let (t, s) = theory_t_and_structure_s(&p);
        let options = Options::default();
        let Some(models) = brute_force_models(&p, t, s, LIMIT) else {
            continue;
        };
        let ground = propagate(&p, t, s, Propagation::Ground, &options)
            .unwrap()
            .value;
        let optimal = propagate(&p, t, s, Propagation::Optimal, &options)
            .unwrap()
            .value;
        let Some(optimal) = optimal else {
            assert!(models.is_empty(), "optimal says no model:\n{text}");
            continue;
        };
        assert!(
            !models.is_empty(),
            "optimal found no contradiction:\n{text}"
        );
        let ground = ground.expect("a theory with models propagates without a contradiction");
        for (&sym, table) in &ground.symbols {
            let Table::ThreeValued { ct, cf } = table else {
                continue;
            };
            for (tuples, truth) in [(ct, TruthValue::True), (cf, TruthValue::False)] {
                for tuple in tuples.iter() {
                    certain += 1;
                    assert_eq!(optimal.truth(sym, tuple), truth, "{tuple:?}:\n{text}");
                    for m in &models {
                        assert_eq!(m.truth(sym, tuple), truth, "{tuple:?}:\n{text}");
                    }
                }
            }
        }
        for (&sym, table) in &optimal.symbols {
            for m in &models {
                let trues = match &m.symbols[&sym] {
                    Table::TwoValued(set) | Table::ThreeValued { ct: set, .. } => set,
                };
                for tuple in trues {
                    let all = models
                        .iter()
                        .all(|o| o.truth(sym, tuple) == TruthValue::True);
                    let said = table.truth(tuple);
                    assert_eq!(all, said == TruthValue::True, "{tuple:?}:\n{text}");
                    if all && ground.truth(sym, tuple) != TruthValue::True {
                        weaker += 1;
                    }
                }
            }
        }
    }
    assert!(
        certain > 40 && weaker > 0,
        "certain {certain}, weaker {weaker}"
    );
    let o = idp(
        &[],
        "vocabulary V {\n  P\n  Q\n  R\n}\ntheory T : V { P | Q. P | ~Q. }\n\
         theory D : V { { R <- R. } P <=> ~R. }\nstructure S : V { }\n\
         procedure main() {\n  print(groundpropagate(T, S))\n  print(optimalpropagate(T, S))\n  \
         print(propagate(D, S))\n  print(groundpropagate(merge(T, D), S))\n}\n",
    );
    let unknown = |s: &str| format!("  {s}<ct> = false\n  {s}<cf> = false\n");
    let (p, q, r) = (unknown("P"), unknown("Q"), unknown("R"));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "structure  : V {{\n{p}{q}{r}}}\n\nstructure  : V {{\n  P = true\n{q}{r}}}\n\n\
             structure  : V {{\n  P = true\n{q}  R = false\n}}\n\n\
             structure  : V {{\n  P = true\n{q}  R = false\n}}\n\n"
        ),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The line protocol on the README's seating puzzle: each reply exactly.
#[test]
fn the_line_protocol_answers_each_request() {
    let spec = support::write_file(
        "consult.idp",
        "vocabulary V {
    type Person constructed from { Ann, Bob, Cy }
    type Chair isa int
    Seat(Person) : Chair
}
theory T : V {
    ! p q : p ~= q => Seat(p) ~= Seat(q).
    abs(Seat(Ann) - Seat(Bob)) ~= 1.
}
structure S : V {
    Chair = { 1..3 }
}
",
    );
    let requests = [
        r#"{"op":"forced"}"#,
        r#"{"op":"assume","literal":"Seat(Ann) = 1"}"#,
        r#"{"op":"forced"}"#,
        r#"{"op":"assume","literal":"Seat(Bob) = 2"}"#,
        r#"{"op":"why_not","literal":"Seat(Bob) = 2"}"#,
        r#"{"op":"explain","literal":"Seat(Bob) = 3"}"#,
        r#"{"op":"retract","literal":"Seat(Ann) = 1"}"#,
        r#"{"op":"choices"}"#,
        r#"{"op":"assume","literal":"Seat(Dan) = 1"}"#,
        r#"{"op":"jump"}"#,
        r#"{"op":"quit"}"#,
    ];
    let out = idp(
        &["consult", spec.to_str().expect("utf-8")],
        &(requests.join("\n") + "\n"),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let at = spec.display().to_string();
    let replies: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            assert!(v["ms"].as_f64().is_some(), "no ms in {l}");
            v.as_object_mut().expect("an object").remove("ms");
            v.to_string().replace(&at, "FILE")
        })
        .collect();
    let expected = [
        r#"{"atoms":9,"has_model":true,"ok":true,"op":"open"}"#,
        r#"{"complete":true,"false":["Seat(Ann) = 2","Seat(Bob) = 2","Seat(Cy) = 1","Seat(Cy) = 3"],"ok":true,"true":["Seat(Cy) = 2"]}"#,
        r#"{"added":true,"ok":true}"#,
        r#"{"complete":true,"false":["Seat(Ann) = 2","Seat(Ann) = 3","Seat(Bob) = 1","Seat(Bob) = 2","Seat(Cy) = 1","Seat(Cy) = 3"],"ok":true,"true":["Seat(Ann) = 1","Seat(Bob) = 3","Seat(Cy) = 2"]}"#,
        r#"{"conflicts_with":[],"error":"Seat(Bob) = 2 is impossible: no model of the theory and the structure has it","inconsistent":true,"ok":false}"#,
        r#"{"forced":true,"ok":true,"possible":false,"reasons":[{"at":"FILE:7:5","binding":"p=Ann, q=Bob","instance":"Seat(Ann) ~= Seat(Bob)","kind":"sentence","text":"! p q : p ~= q => Seat(p) ~= Seat(q)."},{"at":"FILE:8:5","kind":"sentence","text":"abs(Seat(Ann) - Seat(Bob)) ~= 1."},{"kind":"given","text":"Seat is a function: each Person has exactly one value of Chair = {1; 2; 3}"}],"retract":[]}"#,
        r#"{"forced":true,"ok":true,"reasons":[{"kind":"choice","literal":"Seat(Ann) = 1"},{"at":"FILE:7:5","binding":"p=Ann, q=Bob","instance":"Seat(Ann) ~= Seat(Bob)","kind":"sentence","text":"! p q : p ~= q => Seat(p) ~= Seat(q)."},{"at":"FILE:8:5","kind":"sentence","text":"abs(Seat(Ann) - Seat(Bob)) ~= 1."},{"kind":"given","text":"Seat is a function: each Person has exactly one value of Chair = {1; 2; 3}"}]}"#,
        r#"{"ok":true,"retracted":true}"#,
        r#"{"choices":[],"ok":true,"structure":"structure Choices : V {\n\n}\n"}"#,
        r#"{"error":"'Dan' is not an element of type Person in structure S","ok":false}"#,
        r#"{"error":"unknown \"op\" \"jump\": one of assume, retract, forced, value, explain, why_not, model, choices, reset, atoms, symbols, given, relevant, minimize, maximize, quit","ok":false}"#,
        r#"{"ok":true}"#,
    ];
    assert_eq!(replies, expected);
}

/// `relevant`: the open atoms that still matter, for the whole theory or for goal symbols;
/// a choice that satisfies a sentence makes the atoms only it read irrelevant, and a defined
/// atom that no undecided sentence reads does not matter. (`Edge(2,2)` is said relevant
/// through `Reach(2) <- Reach(2) & Edge(2,2)`, which cannot change `Reach(2)`: the rule is
/// read syntactically, as IDP-Z3 reads it; only "irrelevant" is a promise.)
#[test]
fn relevant_says_which_open_atoms_still_matter() {
    let spec = support::write_file(
        "relevant.idp",
        "vocabulary V {\n  A\n  B\n  C\n  D\n  E\n  type T isa int\n  Reach(T)\n  \
         Edge(T,T)\n}\ntheory T : V {\n  A | B.\n  C => D.\n  \
         { Reach(1). Reach(y) <- Reach(x) & Edge(x,y). }\n  E => Reach(3).\n}\n\
         structure S : V {\n  T = { 1..3 }\n}\n",
    );
    let requests = [
        r#"{"op":"relevant"}"#,
        r#"{"op":"assume","literal":"A"}"#,
        r#"{"op":"relevant"}"#,
        r#"{"op":"relevant","goals":["D"]}"#,
        r#"{"op":"relevant","goals":["Nope"]}"#,
        r#"{"op":"relevant","goals":"D"}"#,
    ];
    let (replies, code, stderr) = consult_replies(
        &[spec.to_str().expect("utf-8")],
        &(requests.join("\n") + "\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let expected = [
        r#"{"atoms":17,"has_model":true,"ok":true,"op":"open"}"#,
        r#"{"irrelevant":["Edge(1,1)","Edge(2,1)","Edge(3,1)"],"ok":true,"relevant":["A","B","C","D","E","Reach(2)","Reach(3)","Edge(1,2)","Edge(1,3)","Edge(2,2)","Edge(2,3)","Edge(3,2)","Edge(3,3)"]}"#,
        r#"{"added":true,"ok":true}"#,
        r#"{"irrelevant":["B","Edge(1,1)","Edge(2,1)","Edge(3,1)"],"ok":true,"relevant":["C","D","E","Reach(2)","Reach(3)","Edge(1,2)","Edge(1,3)","Edge(2,2)","Edge(2,3)","Edge(3,2)","Edge(3,3)"]}"#,
        r#"{"irrelevant":["B","E","Reach(2)","Reach(3)","Edge(1,1)","Edge(1,2)","Edge(1,3)","Edge(2,1)","Edge(2,2)","Edge(2,3)","Edge(3,1)","Edge(3,2)","Edge(3,3)"],"ok":true,"relevant":["C","D"]}"#,
        r#"{"error":"there is no symbol Nope in the vocabulary","ok":false}"#,
        r#"{"error":"\"goals\" is a list of symbol names, as in [\"Colour\"]","ok":false}"#,
    ];
    assert_eq!(replies, expected);
}

/// The replies of `idp consult ARGS` to `input`, without their times, and its exit code.
fn consult_replies(args: &[&str], input: &str) -> (Vec<String>, Option<i32>, String) {
    let mut argv = vec!["consult"];
    argv.extend_from_slice(args);
    let out = idp(&argv, input);
    let replies = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v.as_object_mut().expect("an object").remove("ms");
            v.to_string()
        })
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (replies, out.status.code(), stderr)
}

/// IDP-Z3's environment and decision: with both theories declared and no `--theory`, the
/// consultation is of both together, and `forced` tells apart what the environment theory
/// alone makes certain with the environment's choices; a file without a structure is
/// consulted over an empty one.
#[test]
fn environment_consequences_are_told_apart() {
    let spec = support::write_file(
        "consult-environment.idp",
        "vocabulary environment {\n    raining : () -> Bool\n    cold : () -> Bool\n}\n\
         vocabulary decision {\n    import environment\n    type Gear := {coat, shorts}\n    \
         wear : () -> Gear\n}\ntheory environment:environment {\n    raining() => cold().\n}\n\
         theory decision:decision {\n    cold() => wear() = coat.\n}\n",
    );
    let requests = [
        r#"{"op":"assume","literal":"wear() = shorts"}"#,
        r#"{"op":"forced"}"#,
        r#"{"op":"assume","literal":"raining()"}"#,
        r#"{"op":"reset"}"#,
        r#"{"op":"assume","literal":"raining()"}"#,
        r#"{"op":"forced"}"#,
    ];
    let (replies, code, stderr) =
        consult_replies(&[spec.to_str().unwrap()], &(requests.join("\n") + "\n"));
    assert_eq!(code, Some(0), "{stderr}");
    let expected = [
        r#"{"atoms":4,"environment":true,"has_model":true,"ok":true,"op":"open"}"#,
        r#"{"added":true,"ok":true}"#,
        r#"{"complete":true,"environment":{"complete":true,"false":[],"true":[]},"false":["raining","cold","wear = coat"],"ok":true,"true":["wear = shorts"]}"#,
        r#"{"conflicts_with":["wear = shorts"],"error":"raining is impossible with the choice wear = shorts: retract one of them first","inconsistent":true,"ok":false}"#,
        r#"{"ok":true}"#,
        r#"{"added":true,"ok":true}"#,
        r#"{"complete":true,"environment":{"complete":true,"false":[],"true":["raining","cold"]},"false":["wear = shorts"],"ok":true,"true":["raining","cold","wear = coat"]}"#,
    ];
    assert_eq!(replies, expected);
    // One theory chosen: that theory alone (raining no longer makes it cold), nothing told
    // apart.
    let (replies, _, _) = consult_replies(
        &[spec.to_str().unwrap(), "--theory", "decision"],
        "{\"op\":\"assume\",\"literal\":\"raining()\"}\n{\"op\":\"forced\"}\n",
    );
    assert_eq!(
        replies[2],
        r#"{"complete":true,"false":[],"ok":true,"true":["raining"]}"#
    );
}

/// A map whose colours the workbench's form shows: `symbols` lays the atoms out by symbol;
/// the choices saved as a structure block (`choices` with a name) and read back with
/// `--choices` are the same choices; `-` reads the specification from stdin's first line.
#[test]
fn choices_are_saved_as_a_structure_and_read_back() {
    let map = "vocabulary V {
    type Country constructed from { B, N, L }
    type Colour constructed from { Red, Blue }
    Border(Country, Country)
    Of(Country) : Colour
    Coast(Country)
    Calm
}
theory T : V {
    ! x y : Border(x, y) => Of(x) ~= Of(y).
}
structure S : V {
    Border = { B,N; N,L }
}
";
    let spec_line = serde_json::to_string(map).expect("a JSON string");
    let requests = [
        r#"{"op":"symbols"}"#,
        r#"{"op":"assume","literal":"Of(B) = Red"}"#,
        r#"{"op":"assume","literal":"~Coast(L)"}"#,
        r#"{"op":"assume","literal":"Calm"}"#,
        r#"{"op":"choices","name":"Saved"}"#,
    ];
    let input = format!("{spec_line}\n{}\n", requests.join("\n"));
    let (replies, code, stderr) = consult_replies(&["-"], &input);
    assert_eq!(code, Some(0), "{stderr}");
    let symbols: serde_json::Value = serde_json::from_str(&replies[1]).unwrap();
    assert_eq!(
        symbols["symbols"][3],
        serde_json::json!({"args": ["Country"], "kind": "function", "name": "Of", "partial": false,
            "result": "Colour", "rows": [
            {"args": ["B"], "values": [{"literal": "Of(B) = Blue", "value": "Blue"}, {"literal": "Of(B) = Red", "value": "Red"}]},
            {"args": ["L"], "values": [{"literal": "Of(L) = Blue", "value": "Blue"}, {"literal": "Of(L) = Red", "value": "Red"}]},
            {"args": ["N"], "values": [{"literal": "Of(N) = Blue", "value": "Blue"}, {"literal": "Of(N) = Red", "value": "Red"}]}]})
    );
    assert_eq!(
        symbols["symbols"][2],
        serde_json::json!({"args": [], "kind": "predicate", "name": "Calm", "rows": [{"args": [], "literal": "Calm"}]})
    );
    let block = "structure Saved : V {\n    Calm = true\n    Of<ct> = { B->Red }\n    Coast<cf> = { L }\n}\n";
    assert_eq!(
        replies[5],
        serde_json::json!({"choices": ["Of(B) = Red", "~Coast(L)", "Calm"], "ok": true, "structure": block}).to_string()
    );
    // The block read back: the same choices, and what follows from them.
    let saved = support::write_file("consult-saved.idp", &format!("{map}{block}"));
    let file = saved.to_str().expect("utf-8");
    let forced = r#"{"op":"forced"}"#;
    let (replies, code, stderr) = consult_replies(
        &[file, "--structure", "S", "--choices", "Saved"],
        &format!("{forced}\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        replies,
        [
            r#"{"atoms":19,"choices":["~Coast(L)","Calm","Of(B) = Red"],"has_model":true,"ok":true,"op":"open"}"#,
            r#"{"complete":true,"false":["Coast(L)","Of(B) = Blue","Of(L) = Blue","Of(N) = Red"],"ok":true,"true":["Calm","Of(B) = Red","Of(L) = Red","Of(N) = Blue"]}"#,
        ]
    );
}

/// What goes wrong when opening says why, on stderr, with exit code 1.
#[test]
fn a_consultation_that_cannot_open_says_why() {
    let (replies, code, stderr) = consult_replies(&["-"], "vocabulary V {\n");
    assert!(replies.is_empty());
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: with `-`, the first line of stdin is the specification as one JSON string, as `jq -Rs . FILE` writes it ("),
        "{stderr}"
    );
    let (_, code, stderr) = consult_replies(&["-"], "");
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with("Error: stdin is empty: with `-`"),
        "{stderr}"
    );
    let spec = support::write_file(
        "consult-no-choices.idp",
        "vocabulary V {\n    P\n}\ntheory T : V {\n}\nstructure S : V {\n}\n",
    );
    let (_, code, stderr) = consult_replies(&[spec.to_str().unwrap(), "--choices", "Nope"], "");
    assert_eq!(code, Some(1));
    assert_eq!(stderr, "Error: there is no structure Nope (--choices)\n");
}

/// A wrong command line of `idp consult` says what is missing or unknown, and which help to
/// read.
#[test]
fn a_wrong_command_line_names_consults_help() {
    let (_, code, stderr) = consult_replies(&[], "");
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "Error: the following required arguments were not provided: <FILES>... (see idp consult --help)\n"
    );
    let (_, code, stderr) = consult_replies(&["x.idp", "--bogus"], "");
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "Error: '--bogus' is an unknown option. (see idp consult --help)\n"
    );
}

/// `value` tells a value both kinds of models have (`unknown`) from one the budget did not
/// settle (`undecided`): with a budget of a microsecond, never a wrong value.
#[test]
fn value_says_undecided_when_the_budget_ran_out() {
    let spec = support::write_file(
        "consult-value.idp",
        "vocabulary V {\n    type Person constructed from { Ann, Bob, Cy }\n    type Chair isa int\n    Seat(Person) : Chair\n}\ntheory T : V {\n    ! p q : p ~= q => Seat(p) ~= Seat(q).\n    abs(Seat(Ann) - Seat(Bob)) ~= 1.\n}\nstructure S : V {\n    Chair = { 1..3 }\n}\n",
    );
    let requests = [
        r#"{"op":"value","literal":"Seat(Ann) = 1"}"#,
        r#"{"op":"value","literal":"Seat(Ann) = 2"}"#,
        r#"{"op":"forced","budget_ms":0}"#,
        r#"{"op":"value","literal":"Seat(Ann) = 1"}"#,
        r#"{"op":"value","literal":"Seat(Ann) = 2"}"#,
    ];
    let (replies, code, stderr) = consult_replies(
        &[spec.to_str().unwrap(), "--budget-ms", "0.001"],
        &(requests.join("\n") + "\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        [
            r#"{"ok":true,"value":"undecided"}"#,
            r#"{"ok":true,"value":"unknown"}"#
        ]
        .contains(&replies[1].as_str()),
        "{}",
        replies[1]
    );
    assert!(
        [
            r#"{"ok":true,"value":"undecided"}"#,
            r#"{"ok":true,"value":"false"}"#
        ]
        .contains(&replies[2].as_str()),
        "{}",
        replies[2]
    );
    assert_eq!(replies[4], r#"{"ok":true,"value":"unknown"}"#);
    assert_eq!(replies[5], r#"{"ok":true,"value":"false"}"#);
}

/// Reals are numbers the search chooses, outside the consultation's atoms: `open` lists them
/// as skipped, choosing one says so (not that `5` is no element), and a model shows them.
#[test]
fn a_real_is_chosen_by_value() {
    let spec = support::write_file(
        "consult-reals.idp",
        "vocabulary V {\n    type Food := {bread, milk}\n    amount: Food -> Real\n    \
         veggie: () -> Bool\n}\ntheory T:V {\n    !f in Food: amount(f) >= 1.\n    \
         veggie() => amount(milk) = 2.\n    amount(bread) + amount(milk) =< 7.5.\n}\n",
    );
    let requests = [
        r#"{"op":"symbols"}"#,
        r#"{"op":"assume","literal":"amount(bread) = 5.5"}"#,
        r#"{"op":"assume","literal":"veggie()"}"#,
        r#"{"op":"forced"}"#,
        r#"{"op":"assume","literal":"amount(milk) = 2.5"}"#,
        r#"{"op":"why_not","literal":"amount(milk) = 3"}"#,
        r#"{"op":"model"}"#,
        r#"{"op":"assume","literal":"amount(milk) = 1/2"}"#,
        r#"{"op":"choices"}"#,
    ];
    let (replies, code, stderr) =
        consult_replies(&[spec.to_str().unwrap()], &(requests.join("\n") + "\n"));
    assert_eq!(code, Some(0), "{stderr}");
    let at = spec.display().to_string();
    let expected = [
        r#"{"atoms":1,"has_model":true,"ok":true,"op":"open"}"#.to_string(),
        r#"{"ok":true,"symbols":[{"args":[],"kind":"predicate","name":"veggie","rows":[{"args":[],"literal":"veggie"}]},{"args":["Food"],"kind":"function","name":"amount","partial":false,"result":"Real","rows":[{"args":["bread"],"number":"amount(bread)"},{"args":["milk"],"number":"amount(milk)"}]}]}"#.to_string(),
        r#"{"added":true,"ok":true}"#.to_string(),
        r#"{"added":true,"ok":true}"#.to_string(),
        r#"{"complete":true,"false":[],"ok":true,"true":["veggie","amount(bread) = 5.5","amount(milk) = 2"]}"#.to_string(),
        r#"{"conflicts_with":["amount(bread) = 5.5"],"error":"amount(milk) = 2.5 is impossible with the choice amount(bread) = 5.5: retract one of them first","inconsistent":true,"ok":false}"#.to_string(),
        format!(
            r#"{{"forced":true,"ok":true,"possible":false,"reasons":[{{"at":"{at}:9:5","kind":"sentence","text":"amount(bread) + amount(milk) =< 7.5."}},{{"kind":"choice","literal":"amount(bread) = 5.5"}},{{"kind":"given","text":"amount is a function: each Food has exactly one value of Real"}},{{"kind":"given","text":"(narrowing this down to instances and facts would need an infinite grounding: its sentences are whole)"}}],"retract":[["amount(bread) = 5.5","veggie"]]}}"#
        ),
        r#"{"ok":true,"structure":"structure  : V {\n  veggie = true\n  amount = { bread->5.5; milk->2 }\n}\n","true":["veggie","amount(bread) = 5.5","amount(milk) = 2"]}"#.to_string(),
        r#"{"error":"'1/2' is not an element of type Real","ok":false}"#.to_string(),
        r#"{"choices":["amount(bread) = 5.5","veggie"],"ok":true,"structure":"structure Choices : V {\n    veggie = true\n    amount<ct> = { bread->5.5 }\n}\n"}"#.to_string(),
    ];
    assert_eq!(replies, expected);
}

/// A number's choice saved as a structure block (`weight<ct> = { a->3 }`) is read back by
/// `--choices`: the same choice, and what follows from it.
#[test]
fn a_numbers_choice_is_read_back() {
    let spec =
        "vocabulary V {\n    type Item constructed from { a, b }\n    weight(Item) : int\n    \
                total : int\n}\n\
                theory T : V {\n    ! i : 0 =< weight(i) & weight(i) =< 5.\n    \
                total = weight(a) + weight(b).\n    weight(b) = 2.\n}\n\
                structure S : V {\n}\n\
                structure Saved : V {\n    weight<ct> = { a->3 }\n}\n";
    let file = support::write_file("consult-numbers-saved.idp", spec);
    let file = file.to_str().expect("utf-8");
    let (replies, code, stderr) = consult_replies(
        &[file, "--structure", "S", "--choices", "Saved"],
        "{\"op\":\"forced\"}\n{\"op\":\"choices\"}\n",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        replies,
        [
            r#"{"atoms":0,"choices":["weight(a) = 3"],"has_model":true,"ok":true,"op":"open"}"#,
            r#"{"complete":true,"false":[],"ok":true,"true":["weight(a) = 3","weight(b) = 2","total = 5"]}"#,
            r#"{"choices":["weight(a) = 3"],"ok":true,"structure":"structure Choices : V {\n    weight<ct> = { a->3 }\n}\n"}"#,
        ]
    );
}

/// A spec with numbers `W(Item)` and `Total`: searched as numbers (onto `int`), or, when
/// `listed`, over listed types whose values are atoms.
fn numbers_spec(listed: bool) -> String {
    let (weight, total) = if listed { ("D", "S") } else { ("int", "int") };
    format!(
        "vocabulary V {{\n    type Item\n    type D isa int\n    type S isa int\n    \
         W(Item) : {weight}\n    Total : {total}\n    Big(Item)\n}}\n\
         theory T : V {{\n    ! i : 0 =< W(i) & W(i) =< 4.\n    \
         Total = sum{{ i : true : W(i) }}.\n    ! i : Big(i) <=> W(i) >= 3.\n    \
         Total =< 8.\n}}\n\
         structure S : V {{\n    Item = {{ a; b; c }}\n    D = {{ 0..4 }}\n    S = {{ 0..12 }}\n}}\n"
    )
}

/// Numbers the search chooses (`W(Item) : int`, bounded by sentences) are consulted by
/// value, and every answer agrees with the same theory over listed types (`W(Item) : D`,
/// `D = {0..4}`), whose functions are atoms: on random sequences of choices (a number's
/// value, a value excluded, an atom), the choices are made or refused alike, and what every
/// model shares is the same: the numbers' values every model has, and the atoms of `Big`.
/// An explanation of a number's value names only choices that were made.
#[test]
fn numbers_are_chosen_by_value_and_agree_with_listed_types() {
    let searched = program(&numbers_spec(false));
    let listed = program(&numbers_spec(true));
    let (t1, s1) = theory_t_and_structure_s(&searched);
    let (t2, s2) = theory_t_and_structure_s(&listed);
    let p1 = Problem::new(&searched, t1, s1, &Options::default()).expect("prepared");
    let p2 = Problem::new(&listed, t2, s2, &Options::default()).expect("prepared");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut checks = 0;
    for _sequence in 0..40 {
        let mut c1 = p1.consult().expect("consulted");
        let mut c2 = p2.consult().expect("consulted");
        assert!(c1.skipped().is_empty() && c1.numbers().len() == 4);
        for _step in 0..5 {
            let item = ["a", "b", "c"][rng.below(3) as usize];
            let text = match rng.below(5) {
                0 => format!("Big({item})"),
                1 => format!("~Big({item})"),
                2 => format!("W({item}) ~= {}", rng.below(5)),
                3 => format!("Total = {}", rng.below(10)),
                _ => format!("W({item}) = {}", rng.below(5)),
            };
            let (l1, l2) = (c1.parse(&text).expect(&text), c2.parse(&text).expect(&text));
            let a1 = c1.assume(&l1).expect("assumed");
            // A number's value chosen again replaces the one chosen before (a field is
            // edited); over listed types that is a retraction first.
            if let (Some((applied, _)), Assumed::Added) = (text.split_once(" = "), &a1) {
                let before = c2.choices();
                let earlier = before
                    .iter()
                    .find(|l| c2.text(l).starts_with(&format!("{applied} = ")));
                if let Some(earlier) = earlier {
                    c2.retract(earlier).expect("retracted");
                }
            }
            let a2 = c2.assume(&l2).expect("assumed");
            assert_eq!(
                std::mem::discriminant(&a1),
                std::mem::discriminant(&a2),
                "{text}: {a1:?} against {a2:?} after {:?}",
                shown(&c2, &c2.choices())
            );
            let f1 = c1.forced().expect("forced").expect("a model");
            let f2 = c2.forced().expect("forced").expect("a model");
            assert!(f1.undecided.is_empty() && f1.undecided_numbers.is_empty());
            let mut true1 = shown(&c1, &f1.true_atoms);
            let mut true2 = shown(&c2, &f2.true_atoms);
            true1.sort();
            true2.sort();
            assert_eq!(
                true1,
                true2,
                "after {:?} and {:?}",
                shown(&c1, &c1.choices()),
                shown(&c2, &c2.choices())
            );
            // Every false atom of the numbers' consultation is false over listed types; on
            // Big they are the same.
            let mut false2 = shown(&c2, &f2.false_atoms);
            false2.extend(shown(&c2, &c2.given().false_atoms));
            let false1 = shown(&c1, &f1.false_atoms);
            assert!(
                false1.iter().all(|l| false2.contains(l)),
                "{false1:?} {false2:?}"
            );
            let big = |ls: &[String]| -> Vec<String> {
                let mut out: Vec<String> =
                    ls.iter().filter(|l| l.contains("Big")).cloned().collect();
                out.sort();
                out
            };
            assert_eq!(big(&false1), big(&false2));
            let totals: Vec<Literal> = (f1.true_atoms.iter())
                .filter(|l| c1.text(l).starts_with("Total"))
                .cloned()
                .collect();
            for l in &totals {
                let Explanation::Because { reasons, .. } = c1.explain(l).expect("explained") else {
                    panic!("{} is forced but not explained", c1.text(l));
                };
                let made = shown(&c1, &c1.choices());
                for r in reasons {
                    if let idp::infer::consult::Reason::Choice(choice) = r {
                        assert!(made.contains(&c1.text(&choice)), "{made:?}");
                    }
                }
            }
            checks += 1;
        }
    }
    assert_eq!(checks, 200);
}

/// A display setting written in a theory (IDP-Z3 reads `goal_symbol := {`p}.` there too) is
/// a setting as in a display block: relevance is measured against `p`.
#[test]
fn a_goal_symbol_written_in_the_theory_is_the_goal() {
    let spec = support::write_file(
        "consult-goal-in-theory.idp",
        "vocabulary {\n    type num := {1,2}\n    f : num -> num\n    p: () -> Bool\n}\n\
         theory {\n    f(1)=1 => p().\n    goal_symbol := {`p}.\n}\n",
    );
    let (replies, code, stderr) =
        consult_replies(&[spec.to_str().unwrap()], "{\"op\":\"relevant\"}\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        replies,
        [
            r#"{"atoms":5,"display":{"goals":["p"],"view":"normal"},"has_model":true,"ok":true,"op":"open"}"#,
            r#"{"irrelevant":["f(1) = 2","f(2) = 1","f(2) = 2"],"ok":true,"relevant":["p","f(1) = 1"]}"#,
        ]
    );
}

/// IDP-Z3's `display` block: its settings come with the opening, `symbols` gives each
/// symbol's view, unit and heading, and `relevant` without goals is relevance for the
/// `goal_symbol`s (here `area`: `colour` and `metric` do not matter for it, though they are
/// relevant for the theory); a misspelt concept and an unknown setting are left out with
/// located warnings. Headings quoted and bare, and `view() is normal` (IDP-Z3's examples
/// write both).
#[test]
fn the_display_block_sets_up_the_consultation() {
    let spec = support::write_file(
        "consult-display.idp",
        concat!(
            "vocabulary V {\n",
            "    type Shape := {square, circle}\n",
            "    type Len := {1..3}\n",
            "    type Area := {1..27}\n",
            "    shape: () -> Shape\n",
            "    side: () -> Len\n",
            "    radius: () -> Len\n",
            "    area: () -> Area\n",
            "    metric: () -> Bool\n",
            "    type Colour := {red, blue}\n",
            "    colour: () -> Colour\n",
            "}\n",
            "theory T:V {\n",
            "    metric() | colour() = blue.\n",
            "    shape() = square => area() = side() * side().\n",
            "    shape() = circle => area() = 3 * radius() * radius().\n",
            "}\n",
            "structure S:V {\n",
            "}\n",
            "display {\n",
            "    goal_symbol := {`area}.\n",
            "    expand := {`shape}.\n",
            "    hide(`metric).\n",
            "    unit('cm', `side, `radius).\n",
            "    heading('Dimensions', `side, `radius).\n",
            "    introduction('The area of a shape').\n",
            "    noOptimization(`shape).\n",
            "    manualPropagation().\n",
            "    heading(Colours, `colour, `metrik).\n",
            "    columns(`colour).\n",
            "    view() is normal.\n",
            "}\n",
        ),
    );
    let requests = [
        r#"{"op":"relevant"}"#,
        r#"{"op":"relevant","goals":["colour"]}"#,
        r#"{"op":"symbols"}"#,
    ];
    let (replies, code, stderr) =
        consult_replies(&[spec.to_str().unwrap()], &(requests.join("\n") + "\n"));
    assert_eq!(code, Some(0), "{stderr}");
    let opening: serde_json::Value = serde_json::from_str(&replies[0]).unwrap();
    assert_eq!(
        opening["display"].to_string(),
        r#"{"expanded":["shape"],"flags":["manualPropagation"],"goals":["area"],"headings":[{"heading":"Dimensions","symbols":["side","radius"]},{"heading":"Colours","symbols":["colour"]}],"hidden":["metric"],"introduction":"The area of a shape","not_optimised":["shape"],"units":{"radius":"cm","side":"cm"},"view":"normal"}"#
    );
    let at = spec.display().to_string();
    assert_eq!(
        stderr,
        format!(
            "Warning: `metrik names no symbol of the vocabulary: the display setting leaves it \
             out At {at}:29:31 [display-unknown-symbol]\n  hint: did you mean `metric?\n\
             Warning: IDP-Z3's consultant has no display setting `columns`: it is left out At \
             {at}:30:5 [fodot-display-setting]\n  hint: the settings are goal_symbol, expand, \
             counter, hide, noOptimization, unit, heading, introduction, moveSymbols, \
             optionalPropagation, manualPropagation, optionalRelevance, manualRelevance, view\n"
        )
    );
    assert_eq!(
        replies[1],
        r#"{"irrelevant":["metric","colour = blue","colour = red"],"ok":true,"relevant":["shape = circle","shape = square","side = 1","side = 2","side = 3","radius = 1","radius = 2","radius = 3","area = 1","area = 3","area = 4","area = 9","area = 12","area = 27"]}"#
    );
    assert_eq!(
        replies[2],
        r#"{"irrelevant":["shape = circle","shape = square","side = 1","side = 2","side = 3","radius = 1","radius = 2","radius = 3","area = 1","area = 3","area = 4","area = 9","area = 12","area = 27","colour = red"],"ok":true,"relevant":["metric","colour = blue"]}"#
    );
    let symbols: serde_json::Value = serde_json::from_str(&replies[3]).unwrap();
    let shown = |name: &str| -> String {
        let mut s = symbols["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no symbol {name}"))
            .clone();
        s.as_object_mut().unwrap().remove("rows");
        s.to_string()
    };
    assert_eq!(
        shown("metric"),
        r#"{"args":[],"kind":"predicate","name":"metric","view":"hidden"}"#
    );
    assert_eq!(
        shown("shape"),
        r#"{"args":[],"kind":"function","name":"shape","optimisable":false,"partial":false,"result":"Shape","view":"expanded"}"#
    );
    assert_eq!(
        shown("side"),
        r#"{"args":[],"heading":"Dimensions","kind":"function","name":"side","partial":false,"result":"Len","unit":"cm","view":"normal"}"#
    );
    assert_eq!(
        shown("colour"),
        r#"{"args":[],"heading":"Colours","kind":"function","name":"colour","partial":false,"result":"Colour","view":"normal"}"#
    );
}
