//! Symbols over types with infinitely many (or too many to list) elements: a predicate over
//! such a type gets atoms only where the theory names them (the others are false in the
//! models, as in IDP3's lazy grounding), membership of such types is decided by their
//! constructors and ranges, and a quantifier over them still needs a bound.

mod support;

use std::process::Output;

use support::all_models as run;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const RECURSIVE: &str = "vocabulary V {
  type test constructed from { aa, bb, F(test) }
  sol(test)
}
theory T : V {
  sol(F(F(F(aa)))) | sol(F(bb)).
  ~sol(F(bb)).
}
structure S : V { }
";

#[test]
fn a_predicate_over_a_recursive_constructed_type_has_the_named_atoms() {
    let o = run(RECURSIVE);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout(&o),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  sol = { F(F(F(aa))) }\n}\n\n"
    );
}

#[test]
fn the_named_atoms_are_all_that_models_differ_on() {
    let spec = "vocabulary V {\n  P(string)\n}\ntheory T : V {\n  P(\"a\") | P(\"b\").\n}\nstructure S : V { }\n";
    let out = stdout(&run(spec));
    assert!(out.starts_with("Number of models: 3\n"), "{out}");
    for model in ["P = { \"a\"; \"b\" }", "P = { \"a\" }", "P = { \"b\" }"] {
        assert!(out.contains(model), "{model} not in {out}");
    }
}

#[test]
fn the_warning_names_the_predicate_and_the_type() {
    let o = support::idp(&["-e", "print(#modelexpand(T, S))"], RECURSIVE);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "Warning: sol ranges over the infinite type test: only its atoms that the theory \
             names are searched; the others are false in the models"
        ),
        "{err}"
    );
}

/// `T1` is a range too large to list; `test` holds `F(t)` for `t` in it, and not `F(0)`.
#[test]
fn members_of_a_type_over_a_huge_range_follow_the_range() {
    let spec = |sentence: &str| {
        format!(
            "vocabulary V {{\n  type T1 isa int\n  type test constructed from {{ aa, F(T1) }}\n  \
             sol(test)\n}}\ntheory T : V {{\n  {sentence}\n}}\nstructure S : V {{\n  \
             T1 = {{ 1..100000000 }}\n}}\n"
        )
    };
    let out = stdout(&run(&spec("sol(F(5)) & sol(aa).")));
    assert_eq!(
        out,
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  T1 = { 1..100000000 }\n  \
         sol = { F(5); aa }\n}\n\n"
    );
    let out = stdout(&run(&spec("sol(F(0)).")));
    assert_eq!(out, "Unsatisfiable\nNumber of models: 0\n");
}

#[test]
fn a_quantifier_over_an_infinite_type_still_needs_a_bound() {
    let spec = "vocabulary V {\n  P(string)\n}\ntheory T : V {\n  ! x[string] : P(x).\n}\nstructure S : V { }\n";
    let o = run(spec);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Infinite grounding: the variable 'x' ranges over the infinite type 'string'"),
        "{err}"
    );
}

/// IDP3's test `string_append`: `app` over strings is called for the one tuple the theory
/// names, and `P` over strings gets that atom only.
#[test]
fn a_procedure_over_strings_is_called_for_the_tuples_met() {
    let spec = "procedure append(a, b) {\n  return a..b\n}\n\
        vocabulary V {\n  P(string)\n  app(string, string) : string\n}\n\
        theory T : V {\n  P(app(\"Hello\", \" world\")).\n}\n\
        structure S : V {\n  app = procedure append\n}\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  P = { \"Hello world\" }\n  \
         app = procedure append\n}\n\n"
    );
}

/// A predicate over `int` interpreted by a procedure, asked once per tuple however often the
/// theory names it.
#[test]
fn a_procedure_over_integers_answers_each_tuple_once() {
    let spec = |atom: &str| {
        format!(
            "procedure checkSquare(x, y) {{\n  calls = (calls or 0) + 1\n  return x * x == y\n}}\n\
             vocabulary V {{\n  T\n  isSquare(int, int)\n}}\n\
             theory T : V {{\n  T <=> {atom}.\n  T | ~{atom}.\n}}\n\
             structure S : V {{\n  isSquare = procedure checkSquare\n}}\n"
        )
    };
    let chunk = "stdoptions.nbmodels = 0 printmodels(modelexpand(T, S)) print(calls)";
    let out = |atom: &str| stdout(&support::idp(&["--nowarnings", "-e", chunk], &spec(atom)));
    let square = out("isSquare(5, 25)");
    assert!(square.contains("  T = true\n"), "{square}");
    assert!(
        square.starts_with("Number of models: 1\n") && square.ends_with("\n1\n"),
        "{square}"
    );
    let not_square = out("isSquare(5, 24)");
    assert!(not_square.contains("  T = false\n"), "{not_square}");
}

#[test]
fn a_failing_procedure_is_reported_with_the_sentence() {
    let spec = "procedure boom(x) {\n  error(\"no answer for \" .. x)\n}\n\
        vocabulary V {\n  Q(int)\n}\ntheory T : V {\n  Q(3).\n}\n\
        structure S : V {\n  Q = procedure boom\n}\n";
    let o = run(spec);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("procedure boom: "), "{err}");
    assert!(err.contains("no answer for 3"), "{err}");
    assert!(
        err.contains("while grounding the sentence at stdin:8:3"),
        "{err}"
    );
}

#[test]
fn a_function_procedure_must_return_a_value() {
    let spec = "procedure half(x) {\n  if x % 2 == 0 then return x / 2 end\n}\n\
        vocabulary V {\n  f(int) : int\n  Q(int)\n}\ntheory T : V {\n  Q(f(3)).\n}\n\
        structure S : V {\n  f = procedure half\n}\n";
    let o = run(spec);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("procedure half returned no domain element for f(3)"),
        "{err}"
    );
}

/// A query meets the lazy procedure too, and its failure is an error, not an empty answer.
#[test]
fn a_query_reports_a_failing_procedure() {
    let spec = |body: &str| {
        format!(
            "vocabulary V {{\n  type N isa int\n  isSquare(int, int)\n}}\n\
             query Q : V {{ {{x[N] : isSquare(x, 9)}} }}\n\
             procedure checkSquare(x, y) {{ {body} }}\n\
             structure S : V {{\n  N = {{ 0..5 }}\n  isSquare = procedure checkSquare\n}}\n"
        )
    };
    let o = support::idp(
        &["--nowarnings", "-e", "print(query(Q, S))"],
        &spec("return x * x == y"),
    );
    assert_eq!(stdout(&o), "{ 3 }\n");
    let o = support::idp(
        &["--nowarnings", "-e", "print(query(Q, S))"],
        &spec("error(\"bad\")"),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("procedure checkSquare: stdin:6: bad"), "{err}");
}

/// A function's procedure must answer with an element of the result type, whether it is
/// tabulated (finite arguments) or called lazily (`int` arguments).
#[test]
fn a_function_procedure_must_answer_within_its_result_type() {
    let spec = |argument: &str| {
        format!(
            "procedure seven(x) {{ return 7 }}\n\
             vocabulary V {{\n  type N isa int\n  f({argument}) : N\n  Q(N)\n}}\n\
             theory T : V {{ Q(f(3)). }}\n\
             structure S : V {{\n  N = {{ 1..3 }}\n  f = procedure seven\n}}\n"
        )
    };
    let o = run(&spec("N"));
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("procedure seven returned 7 for f(1), which is not an element of N"),
        "{err}"
    );
    let o = run(&spec("int"));
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("procedure seven returned 7 for f(3), which is not an element of N"),
        "{err}"
    );
}

/// An open function over `int` with a finite result type gets a value only for the
/// applications the theory names; the models list those.
#[test]
fn an_open_function_over_integers_has_the_named_applications() {
    let spec = "vocabulary V {\n  type C constructed from { red, green, blue }\n  \
        Colour(int) : C\n}\ntheory T : V {\n  Colour(3) ~= Colour(5).\n  Colour(5) = red.\n}\n\
        structure S : V { }\n";
    assert_eq!(
        stdout(&run(spec)),
        "Number of models: 2\nModel 1\n=======\nstructure  : V {\n  Colour = { 3->green; 5->red }\n\
         }\n\nModel 2\n=======\nstructure  : V {\n  Colour = { 3->blue; 5->red }\n}\n\n"
    );
}

/// An application that only the objective names (grounded after the theory) gets its
/// one-value constraint too.
#[test]
fn an_objective_may_name_new_applications() {
    let spec = "vocabulary V {\n  type C isa int\n  Cost(int) : C\n}\n\
        term t : V { Cost(1) + Cost(2) }\ntheory T : V { Cost(1) >= 2. }\n\
        structure S : V { C = { 1..3 } }\n";
    let o = support::idp(
        &[
            "--nowarnings",
            "-e",
            "local m, opt, v = minimize(T, S, t) print(v) print(m[1])",
        ],
        spec,
    );
    assert_eq!(
        stdout(&o),
        "3\nstructure  : V {\n  C = { 1..3 }\n  Cost = { 1->2; 2->1 }\n}\n\n"
    );
}

#[test]
fn an_open_function_with_an_infinite_result_type_needs_a_finite_one() {
    let spec =
        "vocabulary V {\n  f(int) : int\n}\ntheory T : V { f(1) = 2. }\nstructure S : V { }\n";
    let o = run(spec);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "Infinite grounding: the function f(int) : int has the infinite result type 'int'"
        ),
        "{err}"
    );
}

/// A constructed type whose every constructor needs an element of the type itself has no
/// elements (IDP3's `ConstructedInternalSortTable::empty`): a function over it has the one
/// empty graph, as IDP3's regression test `rec_constr_type_regr` expects.
#[test]
fn a_type_built_only_from_itself_is_empty() {
    let spec = "vocabulary V {\n  type CTLProp constructed from {EX(CTLProp)}\n  \
                negate(CTLProp):CTLProp\n}\ntheory T : V {\n}\nstructure S : V {\n}\n";
    let o = run(spec);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout(&o),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  negate = {  }\n}\n\n"
    );
}

/// A type built from an empty one keeps only its other constructors, and one that also has
/// a constant is infinite again.
#[test]
fn a_type_built_from_an_empty_one_keeps_its_other_constructors() {
    let spec = |a: &str| {
        format!(
            "vocabulary V {{\n  type A constructed from {{ {a} }}\n  type B constructed from \
             {{ h(A), stop }}\n  P(B)\n}}\ntheory T : V {{\n  ! x : P(x).\n}}\nstructure S : V {{ }}\n"
        )
    };
    let o = run(&spec("g(A)"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout(&o),
        "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  P = { stop }\n}\n\n"
    );
    let o = run(&spec("g(A), start"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Infinite grounding: the variable 'x' ranges over the infinite type 'B'"),
        "{err}"
    );
}

/// Predicates over `int` that sentences bound (`P(x) => Q(x)`, `S(x) <=> ...`, `~U(x) |
/// R(x)`) are searched over every tuple their bounds allow, as if their type were finite:
/// P holds where R does and may hold where Q does (4 ways), U within R (2 ways), S is
/// decided; no warning that atoms are left out.
#[test]
fn predicates_over_int_that_sentences_bound_are_searched_within_their_bounds() {
    let spec = "vocabulary V {\n  P(int)\n  Q(int)\n  R(int)\n  S(int)\n  U(int)\n}\n\
                theory T : V {\n  ! x[int] : P(x) => Q(x).\n  ! x[int] : R(x) => P(x).\n  \
                ! x[int] : S(x) <=> Q(x) & x > 1.\n  ! x[int] : ~U(x) | R(x).\n}\n\
                structure S : V { Q = { 1; 2; 3 } R = { 2 } }\n";
    let o = support::idp(
        &[
            "-e",
            "stdoptions.nbmodels = 0 printmodels(modelexpand(T, S))",
        ],
        spec,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("Warning"), "{err}");
    let out = stdout(&o);
    assert!(out.starts_with("Number of models: 8\n"), "{out}");
    for p in ["{ 2 }", "{ 1; 2 }", "{ 2; 3 }", "{ 1; 2; 3 }"] {
        for u in ["{  }", "{ 2 }"] {
            let model = format!(
                "  P = {p}\n  Q = {{ 1; 2; 3 }}\n  R = {{ 2 }}\n  S = {{ 2; 3 }}\n  U = {u}\n"
            );
            assert!(out.contains(&model), "{model} not in {out}");
        }
    }
}

const CLIP: &str = "vocabulary V {\n  Clip(int) : int\n  Size : int\n  C : int\n  Sel(int)\n}\n\
theory T : V {\n  { ! n r : Clip(n) = r <- (n < 1 & r = 1) | (n >= 1 & n > Size & r = Size) | \
(n >= 1 & n =< Size & r = n). }\n  C = Clip(7) + Clip(-2) + Clip(3).\n  \
! n[int] : Sel(n) => 0 =< n =< 9.\n  ? n[int] : Sel(n) & Clip(n) = 5.\n}\n\
structure S : V { Size = 5 }\n";

/// A function defined over `int` (IDP3's `Clip(int) : int` by rules) is applied where the
/// theory applies it: C = 5 + 1 + 3, and Sel, any subset of 0..9 (its bound), must hold for
/// some n whose clip is 5 (n in 5..9): 2^10 - 2^5 = 992 models.
#[test]
fn a_function_defined_over_int_is_applied_where_the_theory_uses_it() {
    let o = run(CLIP);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.starts_with("Number of models: 992\n"), "{out}");
    assert_eq!(out.matches("  C = 9\n").count(), 992);
    let clip =
        "  Clip<ct> = { -2->1; 0->1; 1->1; 2->2; 3->3; 4->4; 5->5; 6->5; 7->5; 8->5; 9->5 }\n";
    assert_eq!(out.matches(clip).count(), 992, "{out}");
}

/// Where a function's definition gives an application no value, or two, the theory has no
/// model (a definition defines a total function); an application it never makes is not
/// checked.
#[test]
fn an_application_with_no_value_or_two_has_no_model() {
    let spec = |sentence: &str| {
        format!(
            "vocabulary V {{\n  Pos(int) : int\n  Two(int) : int\n  C : int\n}}\n\
             theory T : V {{\n  {{ ! n r : Pos(n) = r <- n > 0 & r = n. }}\n  \
             {{ ! n r : Two(n) = r <- r = n. ! n r : Two(n) = r <- r = n + 1. }}\n  \
             0 =< C =< 5.\n  {sentence}\n}}\nstructure S : V {{ }}\n"
        )
    };
    let count = |sentence: &str| {
        let out = stdout(&run(&spec(sentence)));
        let line = out.lines().find(|l| l.starts_with("Number of models"));
        line.unwrap_or_default().to_string()
    };
    assert_eq!(count("C = Pos(2)."), "Number of models: 1");
    assert_eq!(count("C = Pos(-1)."), "Number of models: 0");
    assert_eq!(count("C = 3 | Pos(-1) = 1."), "Number of models: 0");
    assert_eq!(count("C = Two(1)."), "Number of models: 0");
    assert_eq!(count("C = Pos(3) | C = 4."), "Number of models: 2");
}

/// A value that the rule's body does not bound (`n = 2 * r` leaves `r` open) stops grounding
/// with the application and the definition named.
#[test]
fn an_unbounded_value_names_the_application_and_the_definition() {
    let spec = "vocabulary V {\n  Half(int) : int\n  C : int\n}\ntheory T : V {\n  \
                { ! n r : Half(n) = r <- n = 2 * r. }\n  C = Half(4).\n}\nstructure S : V { }\n";
    let o = run(spec);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    for said in [
        "Infinite grounding: the variable 'r' ranges over the infinite type 'int' and the \
         formula gives no finite bound for it.",
        "\n  while applying the definition at stdin:6:3 to Half(4)\n  while grounding the \
         sentence at stdin:7:3: (C = Half(4))",
    ] {
        assert!(err.contains(said), "{said} not in {err}");
    }
}
