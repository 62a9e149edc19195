//! LTC as IDP3 checks and runs it (`src/inferences/progression` and `src/errorhandling/error.cpp`
//! of IDP3): every check on LTC vocabularies, theories and invariants with its message, the five
//! values of `initialise`, progression of nested time terms, and `isinvariant` by induction on a
//! huge Time.

mod support;

use support::run;

const VOC: &str = "vocabulary V {\n  type Time isa int\n  Start : Time\n  partial Next(Time) : Time\n  type Pos isa int\n  Loc(Time) : Pos\n  Move(Time) : Pos\n  On(Time)\n  Off(Time)\n  Static\n}\nstructure S : V { Time = { 0..10000000 } Pos = { 0..3 } }\n";

/// Runs `initialise(T, S)` for a theory over V (on lines 13 and later) and returns stderr.
fn initialise_error(test: &str, theory: &str) -> String {
    let spec = format!("{VOC}theory T : V {{\n{theory}\n}}\n");
    let r = run(test, &spec, "initialise(T, S)");
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.stderr
}

fn abort(msg: &str, at: &str) -> String {
    format!("Error: {msg} At spec.idp:{at}\nError: Error encountered; operation aborted.\n")
}

#[test]
fn one_time_variable_per_sentence() {
    let e = initialise_error("multi", "! t t2 : On(t) | On(t2).");
    assert_eq!(e, abort("LTC theories can only contain one time variable in every sentence/rule.\nThis is violated by variables t[Time] and t2[Time].", "14:1"));
}

#[test]
fn time_variables_are_universal() {
    let e = initialise_error("exists", "? t : On(t).");
    assert_eq!(e, abort("In LTC theories, every variable over type Time should be universally quantified (given its context). This is violated by variable t[Time]", "14:1"));
    // A negated universal quantifier is existential.
    let e = initialise_error("notall", "~ ! t : On(t).");
    assert!(
        e.contains("should be universally quantified (given its context)"),
        "{e}"
    );
}

#[test]
fn time_variables_are_at_the_top_level() {
    let e = initialise_error(
        "nested",
        "! p[Pos] : ? q[Pos] : ! t : Loc(t) = p | Loc(t) = q.",
    );
    assert_eq!(e, abort("In LTC theories, every variable over type Time should be universally quantified at the toplevel. E.g. quantifications such as ? x[type]: ! t[Time] ... are not allowed. This is violated by variable  t[Time]", "14:1"));
    let e = initialise_error("inrule", "{ Static <- ! t : On(Next(t)). }");
    assert!(e.contains("quantified at the toplevel"), "{e}");
}

#[test]
fn initial_state_axioms_have_no_other_time_terms() {
    let e = initialise_error("startnext", "! t : On(Start) | On(Next(t)).");
    assert_eq!(e, abort("Initial-state axioms (sentences/rules containing Start) cannot contain other terms of type Time (in particular no Next-terms).", "14:1"));
    let e = initialise_error("startvar", "! t : On(Start) | On(t).");
    assert_eq!(e, abort("Initial-state axioms (sentences/rules containing Start) cannot contain other terms of type Time.", "14:1"));
}

#[test]
fn next_needs_a_time_variable() {
    let e = initialise_error("next3", "On(Next(3)).");
    assert_eq!(e, abort("LTC sentences can only contain the following terms of type Time: Start, Next and variables.", "14:1"));
}

#[test]
fn nested_time_terms_are_refused() {
    let e = initialise_error("nextnext", "! t : On(Next(Next(t))).");
    assert_eq!(e, abort("Term Next(Next(t[Time])) is not expected at a position of type Time. LTC theories can only contain specific constructs of type time (variables, Next(var), or Start). Constructs such as for example Next(Start), Next(Next(var)) are not allowed.", "14:10"));
}

#[test]
fn definitions_are_time_stratified() {
    let e = initialise_error("static", "{ Static <- On(Start). }");
    assert_eq!(e, abort("In LTC theories, it is not allowed to define static predicates in terms of dynamic predicates.", "14:3"));
    let e = initialise_error("strat", "{ ! t : On(t) <- Off(Next(t)). }");
    assert_eq!(e, abort("In LTC theories, it is not allowed to define the state at time $t$ in terms of next(t). This violates the time-stratification assumption.", "14:3"));
}

#[test]
fn vocabulary_checks() {
    let cases = [
        ("vocabulary W { type T\n}", "LTC Vocabularies are required to have a sort named Time. (or, if the name of this sort is not Time, provide it yourself)"),
        ("vocabulary W { type Time\n}", "LTC Vocabularies are required to have a constant of type Time named Start.  (or, if the name of this constant is not Start, provide it yourself)"),
        ("vocabulary W { type Time\n Start : Time\n}", "LTC Vocabularies are required to have a function, typed [Time:Time] named Next.  (or, if the name of this function is not Next, provide it yourself)"),
        ("vocabulary W { type Time\n type U\n Start : Time\n Next(U) : Time\n}", "In LTC Vocabularies, the function Next should be typed [Time:Time] ."),
        ("vocabulary W { type Time\n type U\n Start : Time\n Next(Time) : Time\n F(U) : Time\n}", "LTC vocabularies cannot contain functions mapping to the sort Time"),
        ("vocabulary W { type Time\n Start : Time\n Next(Time) : Time\n P(Time, Time)\n}", "In LTC vocabularies, every function/predicate can only have one argument of type Time"),
    ];
    for (k, (voc, msg)) in cases.iter().enumerate() {
        // Time has elements: a structure where the constant Start can have no value is
        // rejected when it is closed, before any inference.
        let time = if voc.contains("type Time") {
            " Time = { 0..1 }"
        } else {
            ""
        };
        let spec = format!("{voc}\ntheory T : W {{ }}\nstructure S : W {{{time} }}\n");
        let r = run(&format!("voc{k}"), &spec, "initialise(T, S)");
        assert_eq!(r.stderr, format!("Error: {msg}\n"), "{voc}");
        assert_eq!(r.code, 1);
    }
}

const SPEC: &str = "theory T : V {\n  Loc(Start) = 0.\n  ! t : Loc(Next(t)) = Loc(t) + Move(t).\n  ! t : Move(t) = 1 | Move(t) = 0.\n  { On(Start). ! t : On(Next(t)) <- ~On(t). ! t : Off(t) <- ~On(t). }\n}\n";

#[test]
fn initialise_returns_models_theories_and_vocabularies() {
    let spec = format!("{VOC}{SPEC}");
    let chunk = "stdoptions.nbmodels = 0\nlocal ms, bt, it, vb, vs = initialise(T, S)\nprint(#ms, type(bt), type(it), type(vb), type(vs))\nprint(getname(bt), getname(it))\nprint(vb)\nprint(vs)\nprint(it)\nprint(ms[1])";
    let r = run("init5", &spec, chunk);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = "4\ttheory\ttheory\tvocabulary\tvocabulary\nT_bistate\tT_init\nvocabulary V_bs {\n  type Pos isa int\n  Off\n  Off_next\n  On\n  On_next\n  Static\n  Loc : Pos\n  Loc_next : Pos\n  Move : Pos\n  Move_next : Pos\n}\n\nvocabulary V_ss {\n  type Pos isa int\n  Off\n  On\n  Static\n  Loc : Pos\n  Move : Pos\n}\n\ntheory T_init : V_ss {\n  (Loc = 0).\n  ((Move = 1) | (Move = 0)).\n  {\n    On <- true.\n    Off <- ~On.\n  }\n}\n\nstructure  : V_ss {\n  Pos = { 0..3 }\n  Off = false\n  On = true\n  Static = true\n  Loc = 0\n  Move = 0\n}\n\n";
    assert_eq!(r.stdout, expected);
}

#[test]
fn progression_of_nested_time_terms() {
    // Loc(t) is nested in the sum that gives Loc(Next(t)); four steps of Move = 1.
    let spec = format!("{VOC}{SPEC}");
    let chunk = "local ms, _, _, _, vs = initialise(T, S)\nlocal s = ms[1]\nfor i = 1, 3 do\n  s[vs.Move] = { { 1 } }\n  local next = progress(T, s)\n  s = next[1]\n  print(#next, s[vs.Loc](), s[vs.On.pred].ct)\nend";
    let r = run("progress", &spec, chunk);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "1\t1\tfalse\n1\t2\ttrue\n1\t3\tfalse\n");
}

#[test]
fn progress_wants_a_state() {
    let spec = format!("{VOC}{SPEC}");
    let r = run("progressvoc", &spec, "progress(T, S)");
    assert_eq!(r.stderr, "Error: The structure given to the progression inference should range over vocabulary V_ss but ranges over V\nError: Error encountered; operation aborted.\n");
    assert_eq!(r.code, 1);
}

#[test]
fn initialise_wants_all_or_none_of_time_start_next() {
    let spec = format!("{VOC}{SPEC}");
    let r = run("initcount", &spec, "print(initialise(T, S, V::Time))");
    assert_eq!(
        r.stdout,
        "Error: please either provide Time, Start and Next or provide none of them.\n\n"
    );
    assert_eq!(r.code, 0);
    let r = run("inittype", &spec, "print(initialise(1, S))");
    assert_eq!(
        r.stderr,
        "Error: initialise: argument 1 should be a theory, not an integer\n"
    );
    assert_eq!(r.stdout, "");
    assert_eq!(r.code, 1);
}

const INVARIANTS: &str = "theory Pos0 : V { ! t : Loc(t) >= 0. }\ntheory Below2 : V { ! t : Loc(t) < 2. }\ntheory Step : V { ! t : Loc(Next(t)) >= Loc(t). }\ntheory WithStart : V { ! t : Loc(t) >= 0. Loc(Start) = 0. }\ntheory Static : V { Static | ~Static. }\ntheory Def : V { { ! t : On(t) <- Off(t). } }\nvocabulary W { type Time\n Start : Time\n Next(Time) : Time\n}\ntheory OtherVoc : W { }\n";

#[test]
fn invariants_are_proven_by_induction_on_a_huge_time() {
    let spec = format!("{VOC}{SPEC}{INVARIANTS}");
    let r = run(
        "invariant",
        &spec,
        "print(isinvariant(T, Pos0, S), isinvariant(T, Step, S))",
    );
    assert_eq!(r.stdout, "true\ttrue\n", "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let r = run("noinvariant", &spec, "print(isinvariant(T, Below2, S))");
    assert_eq!(r.stdout, "false\n");
    assert!(
        r.stderr.starts_with(
            "Found counterexample for invariant in the induction step:\nstructure  : V_bs {\n"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("  Loc = 1\n") && r.stderr.contains("  Loc_next = 2\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn invariant_checks() {
    let spec = format!("{VOC}{SPEC}{INVARIANTS}");
    let cases = [
        ("WithStart", abort("LTC invariants cannot contain Start.", "22:43")),
        ("Static", abort("LTC invariants cannot be static.", "23:21")),
        ("Def", abort("LTC invariants cannot contain definitions.", "24:1")),
        ("OtherVoc", "Error: Proving invariants requires that your LTC theory and invariant range over the same vocabulary.\nError: Error encountered; operation aborted.\n".to_string()),
    ];
    for (inv, expected) in cases {
        let r = run(
            &format!("inv{inv}"),
            &spec,
            &format!("isinvariant(T, {inv}, S)"),
        );
        assert_eq!(r.stderr, expected, "{inv}");
        assert_eq!(r.code, 1);
    }
    let r = run(
        "invstruct",
        &spec,
        "isinvariant(T, Pos0, newstructure(W, 'x'))",
    );
    assert_eq!(r.stderr, "Error: LTC operations require that structure and theory range over the same vocabulary.\nError: Error encountered; operation aborted.\n");
}

#[test]
fn projection_warnings() {
    let spec = format!("{VOC}{SPEC}structure S2 : V {{ Time = {{ 0..3 }} Pos = {{ 0..3 }} On = {{ 1 }} }}\nstructure S3 : V {{ Time = {{ 0..3 }} Pos = {{ 0..3 }} Start = 0 On = {{ 0; 2 }} }}\n");
    let r = support::run_with(
        "projwarn",
        &spec,
        "initialise(T, S2) initialise(T, S3)",
        &[],
    );
    assert!(r.stderr.contains("Warning: In structure S2, Start is uninterpreted. Therefore, we ignore the interpretation of On even though it is not completely unknown.\n\n"), "{}", r.stderr);
    assert!(r.stderr.contains("Warning: In structure S3, for symbol On information about other time-points than start is given. All this information is ignored.\n\n"), "{}", r.stderr);
}
