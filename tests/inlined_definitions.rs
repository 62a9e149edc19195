//! Non-recursive definitions over infinite types, evaluated on demand ("inlined"): an atom with
//! known arguments grounds to the bodies of the rules whose heads match it, so the definition
//! is never grounded over its whole (infinite) argument types. Models show the expanded tuples
//! of such a symbol as `<ct>`/`<cf>`.

mod support;

use std::process::Output;

use support::all_models as run;

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn square_test(atom: &str) -> String {
    format!(
        "vocabulary V {{\n  T\n  p(int,int)\n}}\ntheory T : V {{\n  {{ !x y: p(x,y) <- x*x = y. }}\n  \
         T <=> {atom}.\n}}\nstructure S : V {{ }}\n"
    )
}

#[test]
fn an_atom_of_a_definition_over_int_is_its_rule_body() {
    assert_eq!(
        stdout(&run(&square_test("p(5,24)"))),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = false\n  \
         p<ct> = {  }\n  p<cf> = { 5,24 }\n}\n\n"
    );
    assert_eq!(
        stdout(&run(&square_test("p(5,25)"))),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = true\n  \
         p<ct> = { 5,25 }\n  p<cf> = {  }\n}\n\n"
    );
}

#[test]
fn the_harness_call_with_an_output_vocabulary_gives_one_model() {
    let spec = format!(
        "{}vocabulary Vout {{\n  extern V::T/0\n}}\n",
        square_test("p(5,24)")
    );
    let o = support::idp(
        &[
            "--nowarnings",
            "-e",
            "stdoptions.nbmodels = 2 print(#modelexpand(T, S, Vout))",
        ],
        &spec,
    );
    assert_eq!(stdout(&o), "1\n");
}

/// `Q` is free over three elements and `T <=> Q(2)`: each of the 8 models has `T` exactly when
/// `Q` holds for 2.
#[test]
fn an_inlined_body_may_read_unknown_symbols_over_finite_types() {
    let spec = "vocabulary V {\n  type N isa int\n  T\n  Q(N)\n  p(int,int)\n}\n\
                theory T : V {\n  { !x[int] y[int]: p(x,y) <- Q(x) & y > x. }\n  T <=> p(2,3).\n}\n\
                structure S : V {\n  N = { 1..3 }\n}\n";
    let out = stdout(&run(spec));
    assert!(out.starts_with("Number of models: 8\n"), "{out}");
    let models: Vec<&str> = out.split("Model ").skip(1).collect();
    assert_eq!(models.len(), 8);
    for model in models {
        let q = model
            .lines()
            .find(|l| l.trim_start().starts_with("Q = "))
            .expect("Q is shown");
        let has_two = q.contains("{ 2") || q.contains("; 2");
        let t = if has_two { "T = true" } else { "T = false" };
        assert!(model.contains(t), "{model}");
    }
}

/// When the rule bodies bound the head variables, the definition is grounded up front as
/// before and shown in full.
#[test]
fn a_definition_that_its_bodies_bound_is_still_grounded_in_full() {
    let spec = "vocabulary V {\n  type N isa int\n  T\n  Q(N)\n  p(int,int)\n}\n\
                theory T : V {\n  { !x[int] y[int]: p(x,y) <- Q(x) & y = x + 1. }\n  T <=> p(2,3).\n}\n\
                structure S : V {\n  N = { 1..3 }\n  Q = { 1; 2 }\n}\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  N = { 1..3 }\n  \
         Q = { 1; 2 }\n  T = true\n  p = { 1,2; 2,3 }\n}\n\n"
    );
}

#[test]
fn a_recursive_definition_over_int_is_still_an_error() {
    let spec = "vocabulary V {\n  T\n  p(int)\n}\n\
                theory T : V {\n  { p(0). !x: p(x) <- p(x-1) & x < 5. }\n  T <=> p(3).\n}\n\
                structure S : V { }\n";
    let o = run(spec);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Infinite grounding"), "{err}");
}

/// The inlined atoms are read by the rules of another definition, under a quantifier whose
/// variable has the same name as a rule variable of the inlined definition.
#[test]
fn another_definition_may_read_an_inlined_symbol() {
    let spec = "vocabulary V {\n  type N isa int\n  sq(int,int)\n  R(N)\n  Q(N)\n}\n\
                theory T : V {\n  { !x y: sq(x,y) <- x*x = y. }\n  \
                { !x[N]: R(x) <- Q(x) & sq(x, 4). }\n  !x[N]: Q(x).\n}\n\
                structure S : V {\n  N = { 1..3 }\n}\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  N = { 1..3 }\n  \
         Q = { 1; 2; 3 }\n  R = { 2 }\n  sq<ct> = { 2,4 }\n  sq<cf> = { 1,4; 3,4 }\n}\n\n"
    );
}

/// Body variables that are not in the head are quantified existentially, bounded by the body.
#[test]
fn body_only_variables_are_existential() {
    let spec = "vocabulary V {\n  T\n  U\n  square(int)\n}\n\
                theory T : V {\n  { !x y: square(x) <- 0 < y & y < x & y*y = x. }\n  \
                T <=> square(9).\n  U <=> square(8).\n}\n\
                structure S : V { }\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = true\n  U = false\n  \
         square<ct> = { 9 }\n  square<cf> = { 8 }\n}\n\n"
    );
}

/// A head argument may be a term of the head's variables; it is matched against the value.
#[test]
fn a_head_term_of_the_variables_is_matched() {
    let spec = "vocabulary V {\n  T\n  U\n  p(int,int)\n}\n\
                theory T : V {\n  { !x: p(x+1,x) <- x > 2. }\n  T <=> p(6,5).\n  U <=> p(6,4).\n}\n\
                structure S : V { }\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = true\n  U = false\n  \
         p<ct> = { 6,5 }\n  p<cf> = { 6,4 }\n}\n\n"
    );
}

/// What the structure says about an inlined symbol constrains its expansions.
#[test]
fn the_structure_constrains_the_expanded_tuples() {
    let spec = |table: &str| {
        square_test("p(5,24)").replace(
            "structure S : V { }",
            &format!("structure S : V {{ {table} }}"),
        )
    };
    assert_eq!(
        stdout(&run(&spec("p<ct> = { 5,24 }"))),
        "Unsatisfiable\nNumber of models: 0\n"
    );
    assert_eq!(
        stdout(&run(&spec("p<cf> = { 5,24 }"))),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T = false\n  \
         p<ct> = {  }\n  p<cf> = { 5,24 }\n}\n\n"
    );
}

/// With the inlined symbol in the output vocabulary, models are still told apart only by the
/// atoms that are SAT variables, so the enumeration ends: `Q` is free over three elements but
/// only `T <=> Q(2)` is output.
#[test]
fn enumerating_on_an_inlined_symbol_terminates() {
    let spec = "vocabulary V {\n  type N isa int\n  T\n  Q(N)\n  p(int,int)\n}\n\
                vocabulary Vout {\n  extern V::T/0\n  extern V::p/2\n}\n\
                theory T : V {\n  { !x y: p(x,y) <- x*x = y. }\n  T <=> p(2,4) & Q(2).\n}\n\
                structure S : V {\n  N = { 1..3 }\n}\n";
    let o = support::idp(
        &[
            "--nowarnings",
            "-e",
            "stdoptions.nbmodels = 0 print(#modelexpand(T, S, Vout))",
        ],
        spec,
    );
    assert_eq!(stdout(&o), "2\n");
}

#[test]
fn the_warning_says_the_symbol_is_evaluated_on_demand() {
    let o = support::idp(
        &["-e", "print(#modelexpand(T, S))"],
        &square_test("p(5,24)"),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "p is defined over an infinite type: it is evaluated only for the arguments the \
             theory uses"
        ),
        "{err}"
    );
}

/// Two inlined definitions that read each other would expand forever: a clear error instead.
#[test]
fn inlined_definitions_that_read_each_other_are_an_error() {
    let spec = "vocabulary V {\n  T\n  p(int)\n  q(int)\n}\n\
                theory T : V {\n  { !x: p(x) <- q(x+1) & x < 3. }\n  \
                { !x: q(x) <- p(x+1) | x > 10. }\n  T <=> p(1).\n}\n\
                structure S : V { }\n";
    let o = run(spec);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("'p' ranges over an infinite type, so its atoms are expanded on demand"),
        "{err}"
    );
    assert!(err.contains("through p -> q"), "{err}");
}
