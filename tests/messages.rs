//! The messages a newcomer meets in the first hour (issue 17), each with its exact text and
//! position: notes that are silent unless asked for, warnings before the error they lead to,
//! a file without `main`, and the hints for slips from other languages.

mod support;

use support::{idp_on, stderr_text as stderr, stdout_text as stdout};

/// A vocabulary, theory and structure; `theory` is the theory's body.
fn spec(theory: &str) -> String {
    format!(
        "vocabulary V {{
  type T = {{1..3}} isa int
  P(T)
}}
theory T : V {{
  {theory}
}}
structure S : V {{
}}
"
    )
}

#[test]
fn autocompletion_is_silent_unless_asked() {
    let text = spec("! x[T]: P(x).");
    let o = idp_on("s.idp", &text, &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(stderr(&o), "");
    let o = idp_on("s.idp", &text, &["-n", "1", "--verbose"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(
        stderr(&o),
        "Warning: Verifying and/or autocompleting structure S At s.idp:8:11 [autocomplete]\n"
    );
}

#[test]
fn a_warning_comes_before_a_later_error_never_after() {
    // An unused variable on line 6, a syntax error on line 7: in the order of the file.
    let text = "vocabulary V {
  type T = {1..3} isa int
  P(T)
}
theory T : V {
  ! x[T] y[T]: P(x).
  P(1) P(2).
}
";
    let o = idp_on("w.idp", text, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Warning: Quantified variable y is unused. At w.idp:6:10 [unused-variable]
Error: unexpected 'P', expected '.' at the end of the sentence At w.idp:7:8 [syntax-error]
  hint: two formulas must be joined by a connective such as '&', '|' or '=>'
"
    );
    // With --verbose the note on the structure comes where the structure is: after an
    // error in the theory above it.
    let text = format!("{}structure S : V {{\n}}\n", text);
    let o = idp_on("w.idp", &text, &["--check", "--verbose"]);
    let err = stderr(&o);
    assert!(
        err.ends_with(
            "Warning: Verifying and/or autocompleting structure S At w.idp:9:11 [autocomplete]\n"
        ),
        "{err}"
    );
}

#[test]
fn a_file_without_main_names_its_procedures_and_how_to_run_them() {
    let o = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("specs/maze/game.idp")
        .output()
        .expect("the idp binary runs");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: specs/maze/game.idp has no procedure main(), which idp runs when neither -e nor -n is given [no-main]
  hint: its procedures: plan(path, boards), plan_ltc(path), play(path, echo), picture(path, svgfile) and 34 others they call
        run one:  idp specs/maze/game.idp -e 'plan(...)'
        or add  procedure main() { ... }
"
    );
    assert_eq!(stdout(&o), "");
    // `--check` reports it as a warning: a file of procedures run with -e is not wrong.
    let o = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--check", "specs/maze/game.idp"])
        .output()
        .expect("the idp binary runs");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).starts_with("Warning: specs/maze/game.idp has no procedure main(), "),
        "{}",
        stderr(&o)
    );
    // With -e, or -n, there is nothing to report.
    let o = support::idp_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--check", "specs/maze/game.idp", "-e", "plan()"])
        .output()
        .expect("the idp binary runs");
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
}

#[test]
fn a_file_without_procedures_shows_how_to_print_a_model() {
    let o = idp_on("m.idp", &spec("! x[T]: P(x)."), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: m.idp has no procedure main(), which idp runs when neither -e nor -n is given [no-main]
  hint: it has no procedures
        print a model of theory T in structure S:  idp -n 1 m.idp
        or add  procedure main() { ... }
"
    );
    // --check says nothing about it: such a file is run with -n.
    let o = idp_on("m.idp", &spec("! x[T]: P(x)."), &["--check"]);
    assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()));
    // The command it shows runs.
    let o = idp_on("m.idp", &spec("! x[T]: P(x)."), &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    // Two theories: the command names the first of each.
    let two = format!("{}theory U : V {{ }}\n", spec("! x[T]: P(x)."));
    let o = idp_on("two.idp", &two, &[]);
    assert!(
        stderr(&o).contains(
            "print a model of theory T in structure S:  idp -n 1 --theory T --structure S two.idp\n"
        ),
        "{}",
        stderr(&o)
    );
}

/// A long comment or string left open swallows the rest of the body: the message names the
/// line where it opens and what would close it (Lua says only `near <eof>`).
#[test]
fn an_unclosed_long_comment_is_named_where_it_opens() {
    let text = "procedure main() {\n  print(\"--[[ in a string\") -- [[ in a line comment\n  \
                --[==[ closed ]==] print(1)\n  --[[ never closed\n  print(2)\n}\n\
                procedure other() {\n  local s = [=[ a long\n  string ]]\n}\n";
    let expected = "Error: Lua syntax error in procedure main: a long comment opened with `--[[` \
                    is not closed: `]]` expected before the '}' that ends the procedure At \
                    c.idp:4:3 [lua-syntax-error]\n\
                    Error: Lua syntax error in procedure other: a long string opened with `[=[` \
                    is not closed: `]=]` expected before the '}' that ends the procedure At \
                    c.idp:8:3 [lua-syntax-error]\n";
    let o = idp_on("c.idp", text, &["--check"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(1), expected));
}

#[test]
fn check_compiles_every_procedure_body() {
    let text = "procedure helper(x) {
  local y = x +
}
procedure loop() {
  for i = 1, 3 do
    print(i)
}
procedure other() {
  print(\"x\" .. )
}
procedure third() {
  if x then
    print(1)
  end end
}
procedure main() {
  print(\"fine\")
}
";
    let expected = "Error: Lua syntax error in procedure helper: the last statement is unfinished at the '}' that ends the procedure At l.idp:3:1 [lua-syntax-error]
Error: Lua syntax error in procedure loop: a block (do, for, function, if, repeat, while) is not closed: 'end' expected before the '}' that ends the procedure At l.idp:7:1 [lua-syntax-error]
Error: Lua syntax error in procedure other: unexpected symbol near ')' At l.idp:9:3 [lua-syntax-error]
Error: Lua syntax error in procedure third: an 'end' too many: the procedure's body is closed before its '}' At l.idp:15:1 [lua-syntax-error]
";
    let o = idp_on("l.idp", text, &["--check"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(1), expected));
    // A run reports the same, before anything runs.
    let o = idp_on("l.idp", text, &[]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(1), expected));
    assert_eq!(stdout(&o), "");
    // A block in the body names its line of the file.
    let o = idp_on(
        "b.idp",
        "procedure main() {\n  if true then\n    print(1)\n  else else\n  end\n}\n",
        &["--check"],
    );
    assert_eq!(
        stderr(&o),
        "Error: Lua syntax error in procedure main: 'end' expected (to close 'if' at line 2) near 'else' At b.idp:4:3 [lua-syntax-error]\n"
    );
}

#[test]
fn an_exit_code_out_of_range_or_not_an_integer_gives_a_warning() {
    let cases = [
        ("return 3", Some(3), ""),
        ("return 255", Some(255), ""),
        (
            "return 300",
            Some(255),
            "Warning: main returned 300, but an exit code is a number from 0 to 255; the exit code is 255\n",
        ),
        (
            "return -1",
            Some(255),
            "Warning: main returned -1, but an exit code is a number from 0 to 255; the exit code is 255\n",
        ),
        (
            "return 1.5",
            Some(0),
            "Warning: main returned 1.5, not an integer exit code; the exit code is 0\n",
        ),
        (
            "return \"done\"",
            Some(0),
            "Warning: main returned a string (\"done\"), not an integer exit code; the exit code is 0\n",
        ),
        (
            "return {}",
            Some(0),
            "Warning: main returned a table, not an integer exit code; the exit code is 0\n",
        ),
        ("return nil", Some(0), ""),
    ];
    for (body, code, warning) in cases {
        let text = format!("procedure main() {{\n  {body}\n}}\n");
        let o = idp_on("x.idp", &text, &[]);
        assert_eq!(
            (o.status.code(), stderr(&o).as_str()),
            (code, warning),
            "{body}"
        );
    }
    let o = idp_on("x.idp", "procedure main() { }\n", &["-e", "return 256"]);
    assert_eq!(
        (o.status.code(), stderr(&o).as_str()),
        (
            Some(255),
            "Warning: the -e chunk returned 256, but an exit code is a number from 0 to 255; the exit code is 255\n"
        )
    );
}

#[test]
fn indexing_a_missing_model_says_how_many_were_asked_for() {
    let main = |body: &str| {
        format!(
            "{}procedure main() {{\n{body}}}\n",
            spec("! x[T]: P(x) | ~P(x).")
        )
    };
    // One model asked for (the default), the second one used.
    let o = idp_on(
        "m.idp",
        &main("  local sols = modelexpand(T, S)\n  print(sols[2].P)\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: m.idp:12: attempt to index field '?' (a nil value)
  hint: there is no model 2: modelexpand returned 1 model (stdoptions.nbmodels = 1 asked for at most 1 model; set stdoptions.nbmodels = 0 for all models, or N for up to N)
"
    );
    // All asked for, and fewer there.
    let o = idp_on(
        "m.idp",
        &main("  stdoptions.nbmodels = 0\n  local sols = modelexpand(T, S)\n  print(sols[9].P)\n"),
        &[],
    );
    assert_eq!(
        stderr(&o),
        "Error: m.idp:13: attempt to index field '?' (a nil value)
  hint: there is no model 9: modelexpand returned 8 models (the theory has only 8 models in this structure)
"
    );
    // An unsatisfiable theory.
    let unsat = format!(
        "{}procedure main() {{\n  local sols = modelexpand(T, S)\n  print(sols[1].P)\n}}\n",
        spec("P(1) & ~P(1).")
    );
    let o = idp_on("u.idp", &unsat, &[]);
    assert_eq!(
        stderr(&o),
        "Error: u.idp:12: attempt to index field '?' (a nil value)
  hint: there is no model 1: modelexpand returned 0 models (the theory has no model in this structure)
"
    );
    // Any other nil is not about models.
    let o = idp_on(
        "n.idp",
        &main("  local sols = modelexpand(T, S)\n  print(x.y)\n"),
        &[],
    );
    assert_eq!(
        stderr(&o),
        "Error: n.idp:12: attempt to index global 'x' (a nil value)\n"
    );
}

/// A vocabulary with a type T, predicates P and Q and a function F, and `theory` as the body
/// of its theory (line 8).
fn spec_f(theory: &str) -> String {
    format!(
        "vocabulary V {{
  type T = {{1..3}} isa int
  P(T)
  Q(T)
  F(T) : T
}}
theory T : V {{
  {theory}
}}
structure S : V {{
}}
"
    )
}

/// Runs `idp -n 1` on a file `f.idp` with theory body `theory` and returns (exit code, stderr).
fn slip(theory: &str) -> (Option<i32>, String) {
    let o = idp_on("f.idp", &spec_f(theory), &["-n", "1"]);
    (o.status.code(), stderr(&o))
}

const NOT_EQUAL: &str = "  hint: '!=' is not IDP: write '~=' for \"is not equal to\" ('~' is IDP's negation, '!' is \"for all\")\n";
const IMPLIES: &str = "  hint: '->' is not a connective in IDP: write '=>' for \"implies\" ('<=>' for \"if and only if\")\n";

#[test]
fn not_equal_written_as_in_c_teaches_tilde_equals() {
    let (code, err) = slip("! x[T]: F(x) != x.");
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        format!("Error: unexpected '!', expected '.' at the end of the sentence At f.idp:8:16 [syntax-error]\n{NOT_EQUAL}")
    );
    // Inside parentheses the error points at the operator, not at the '('.
    let (_, err) = slip("! x[T]: (F(x) != x & P(x)).");
    assert_eq!(
        err,
        format!("Error: unexpected '!', expected ')' At f.idp:8:17 [syntax-error]\n{NOT_EQUAL}")
    );
    let (_, err) = slip("{ P(x) <- F(x) != x. }");
    assert_eq!(
        err,
        format!("Error: unexpected '!', expected '.' at the end of the rule At f.idp:8:18 [syntax-error]\n{NOT_EQUAL}")
    );
    // A quantifier after a formula is no such slip.
    let (_, err) = slip("P(1) ! x[T]: P(x).");
    assert!(!err.contains("'!='"), "{err}");
}

#[test]
fn an_arrow_for_implication_teaches_the_implication_and_the_rule_arrow() {
    let (code, err) = slip("! x[T]: P(x) -> Q(x).");
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        format!("Error: unexpected '->', expected '.' at the end of the sentence At f.idp:8:16 [syntax-error]\n{IMPLIES}")
    );
    let (_, err) = slip("! x[T]: (P(x) -> Q(x)).");
    assert_eq!(
        err,
        format!("Error: unexpected '->', expected ')' At f.idp:8:17 [syntax-error]\n{IMPLIES}")
    );
    // After the head of a rule it is the rule arrow that was meant.
    let (_, err) = slip("{ Q(x) -> P(x). }");
    assert_eq!(
        err,
        "Error: unexpected '->', expected '<-' or '.' after the head of the rule At f.idp:8:10 [syntax-error]
  hint: the arrow of a rule points to its head: write '<-', as in P(x) <- Q(x).
"
    );
    // In a structure '->' maps arguments to a value, as it should.
    let o = idp_on(
        "g.idp",
        "vocabulary V {\n  type T = {1..2} isa int\n  F(T) : T\n}\nstructure S : V {\n  F = { 1->2; 2->1 }\n}\n",
        &["--check"],
    );
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
}

#[test]
fn idp_z3_typed_quantifiers_teach_brackets() {
    let (code, err) = slip("! x in T: P(x).");
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error: unexpected 'in' after the quantified variable x At f.idp:8:7 [syntax-error]
  hint: IDP3 gives a variable its type in brackets: x[T] (`x in T` is IDP-Z3's notation)
"
    );
    // Two variables, and nothing else reported: the variables got T.
    let (_, err) = slip("? x, y in T: P(x) & Q(y).");
    assert_eq!(
        err,
        "Error: unexpected 'in' after the quantified variables x y At f.idp:8:10 [syntax-error]
  hint: IDP3 gives each variable its type in brackets: x[T] y[T] (`x, y in T` is IDP-Z3's notation)
"
    );
    // Over a predicate: IDP3's own `(x) in P`.
    let (_, err) = slip("! x in P: Q(x).");
    assert_eq!(
        err,
        "Error: unexpected 'in' after the quantified variable x At f.idp:8:7 [syntax-error]
  hint: IDP3 quantifies over the tuples of a predicate with parentheses: (x) in P (`x in P` is IDP-Z3's notation)
"
    );
    let (code, err) = slip("! (x) in P: Q(x).");
    assert_eq!((code, err.as_str()), (Some(10), ""));
}

#[test]
fn a_type_used_as_a_function_says_it_is_a_formula() {
    let (code, err) = slip("! x[T]: F(x) = T(x).");
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error: Function T/1 is not declared in this scope. At f.idp:8:18 [unknown-symbol]
  hint: T is a type, not a function: T(x) is a formula, true when x is of type T; give a variable its type in brackets, as in ! x[T]: ...
"
    );
    // As a formula it is IDP3's type predicate.
    let (code, err) = slip("! x: T(x) => P(x).");
    assert_eq!((code, err.as_str()), (Some(10), ""));
}

#[test]
fn a_misspelled_lua_function_gets_a_did_you_mean() {
    let run = |call: &str| {
        let text = format!(
            "{}procedure main() {{\n  {call}\n}}\n",
            spec("! x[T]: P(x).")
        );
        let o = idp_on("l.idp", &text, &[]);
        (o.status.code(), stderr(&o))
    };
    assert_eq!(
        run("printmodle(modelexpand(T, S))"),
        (
            Some(1),
            "Error: l.idp:11: attempt to call global 'printmodle' (a nil value)
  hint: did you mean `printmodels`? It prints a list of models; print(m) prints one model
"
            .to_string()
        )
    );
    assert_eq!(
        run("print(modelexpnd(T, S)[1])").1,
        "Error: l.idp:11: attempt to call global 'modelexpnd' (a nil value)
  hint: did you mean `modelexpand`?
"
    );
    // The file's own procedures are globals too.
    assert_eq!(
        run("hepler()\nend\nfunction helper() ").1,
        "Error: l.idp:11: attempt to call global 'hepler' (a nil value)
  hint: did you mean `helper`?
"
    );
    // Nothing near: no hint.
    assert_eq!(
        run("nosuch()").1,
        "Error: l.idp:11: attempt to call global 'nosuch' (a nil value)\n"
    );
}

#[test]
fn a_partial_function_table_names_the_missing_arguments_and_ct() {
    let text = "vocabulary V {
  type T = {1..3} isa int
  F(T) : T
  G(T, T) : T
}
structure S : V {
  F = { 1->2; 2->3 }
  G = { 1,1->2 }
}
";
    let o = idp_on("p.idp", text, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: The interpretation of function F in structure S is non-total. At p.idp:7:3 [function-not-total]
  hint: F has no value for 3; give it one, write `F<ct> = { ... }` to let model expansion find the missing values, or declare `partial F(T) : T` in the vocabulary if F may have none
Error: The interpretation of function G in structure S is non-total. At p.idp:8:3 [function-not-total]
  hint: G has no value for (1,2), (1,3), (2,1), (2,2) and 4 more; give each one, write `G<ct> = { ... }` to let model expansion find the missing values, or declare `partial G(T,T) : T` in the vocabulary if G may have none
"
    );
    // What the hint proposes works: <ct> leaves the rest to model expansion.
    let fixed = text.replace("F = ", "F<ct> = ").replace("G = ", "G<ct> = ");
    let o = idp_on("p.idp", &fixed, &["--check"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    // A <cf> part that rules out every value of an argument.
    let cf = text
        .replace("F = { 1->2; 2->3 }", "F<cf> = { 1->1; 1->2; 1->3 }")
        .replace("  G = { 1,1->2 }\n", "");
    let o = idp_on("p.idp", &cf, &["--check"]);
    assert_eq!(
        stderr(&o),
        "Error: The interpretation of function F in structure S is non-total. At p.idp:7:3 [function-not-total]
  hint: F can have no value for 1: its <cf> part rules out every value; take one out of <cf>, or declare `partial F(T) : T` in the vocabulary
"
    );
}

/// A total function into a type the structure leaves without elements can have no value: the
/// structure is rejected when it is closed, as IDP3 rejects it (`Structure::functionCheck`),
/// whatever is asked of it, with the same exit status as the other errors in a structure.
#[test]
fn a_constant_into_an_empty_type_has_no_value() {
    let text = "vocabulary V {
  type Node
  Start : Node
  Edge(Node, Node)
}
theory T : V {
  ! x : ~Edge(x, x).
}
structure S : V {
}
";
    let error = "Warning: Sort Node in structure S has an empty interpretation. At e.idp:9:11 [empty-sort]
Error: The interpretation of function Start in structure S is non-total. At e.idp:9:11 [function-not-total]
  hint: type Node has no elements in structure S, so Start can have no value; give Node elements, or declare `partial Start : Node` in the vocabulary
";
    let asks: [&[&str]; 4] = [
        &["--check"],
        &["-n", "1"],
        &["-n", "1", "--explain"],
        &["-e", "printunsatcore(T, S)"],
    ];
    for args in asks {
        let o = idp_on("e.idp", text, args);
        assert_eq!(
            (o.status.code(), stdout(&o).as_str(), stderr(&o).as_str()),
            (Some(1), "", error),
            "{args:?}"
        );
    }
    // What the hint proposes works: a partial constant has no value in the model.
    let partial = text.replace("  Start : Node", "  partial Start : Node");
    let o = idp_on("e.idp", &partial, &["--nowarnings", "-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(
        stdout(&o),
        "Model 1\n=======\nstructure  : V {\n  Node = {  }\n  Edge = {  }\n  Start = { }\n}\n\nNumber of models: 1\n"
    );
    let o = idp_on(
        "e.idp",
        &text.replace("structure S : V {\n", "structure S : V {\n  Node = { a }\n"),
        &["--check"],
    );
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    // A function of a type with elements into an empty type; into an empty type from an
    // empty one there is nothing to give a value, and no error.
    let text = "vocabulary V {
  type Node
  type Cell
  Place(Node) : Cell
  Owner(Cell) : Node
}
structure S : V {
  Node = { a; b }
  Cell = { }
}
";
    let o = idp_on("f.idp", text, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Warning: Sort Cell in structure S has an empty interpretation. At f.idp:7:11 [empty-sort]
Error: The interpretation of function Place in structure S is non-total. At f.idp:7:11 [function-not-total]
  hint: type Cell has no elements in structure S, so Place can have no value; give Cell elements, or declare `partial Place(Node) : Cell` in the vocabulary
"
    );
}

/// `Score(x) > 0` alone is searched as a number (tests/integers.rs); divided it is not, and
/// its values would have to be listed.
#[test]
fn infinite_grounding_names_the_function_with_an_infinite_result_type() {
    let text = "vocabulary V {
  type T = {1..3} isa int
  Score(T) : int
}
theory T : V {
  ! x[T]: Score(x) / 2 > 0.
}
structure S : V {
}
";
    let o = idp_on("i.idp", text, &["-n", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: Infinite grounding: the function Score(T) : int has the infinite result type 'int', so its possible values cannot be grounded. Give it a finite result type (e.g. `type Val isa int` with `Val = {0..10}` in the structure, and Score(T) : Val), or give its values in the structure.
  while grounding the sentence at i.idp:6:3: (! x[T] : ((Score(x) / 2) > 0))
"
    );
}

#[test]
fn not_equal_in_a_procedure_teaches_luas_tilde_equals() {
    let text = "procedure main() {\n  local x = 1\n  if x != 1 then print(x) end\n}\n";
    let o = idp_on("q.idp", text, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: Lua syntax error in procedure main: 'then' expected near '!' At q.idp:3:3 [lua-syntax-error]
  hint: Lua writes \"is not equal to\" as '~=' (and \"not\" as `not`), not '!='
"
    );
}

/// IDP-Z3's version header is read (the file used to vanish without a word); its older forms
/// (0.10's `sum(lambda ...)`, `>>`) are read with the form to write now; IDP 3.1's `#include`
/// gets the form IDP3 3.2 and later write.
#[test]
fn older_dialects_are_read_or_answered_with_todays_form() {
    let header = "#! IDP-Z3 0.9.2\nvocabulary V {\n  p : () -> Bool\n}\ntheory T:V {\n  p().\n}\nstructure S:V {}\nprocedure main() {\n  pretty_print(model_expand(T,S))\n}\n";
    let o = idp_on("header.idp", header, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "\nModel 1\n==========\np := true.\n\n\nNo more models.\n\n"
    );
    let old = "vocabulary V {
  type T := {1..4}
  f : T -> Int
  total : () -> Int
}
theory T : V {
  total() = sum(lambda x in T : f(x)).
  max(lambda x in T: f(x)) = 3.
}
structure S : V {
  f >> {1 -> 1, 2 -> 2, 3 -> 3, 4 -> 0}.
}
procedure main() {
  pretty_print(model_expand(T, S))
}
";
    let o = idp_on("old.idp", old, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "\nModel 1\n==========\nf := {1 -> 1, 2 -> 2, 3 -> 3, 4 -> 0}.\ntotal := 6.\n\n\nNo more models.\n\n"
    );
    assert_eq!(
        stderr(&o),
        "Warning: `sum(lambda x in T: t)` is IDP-Z3 0.10's aggregate; IDP-Z3 0.12 writes `sum{{ t | x in T }}` At old.idp:7:17 [old-idp-z3]
Warning: `max(lambda x in T: t)` is IDP-Z3 0.10's aggregate; IDP-Z3 0.12 writes `max{ t | x in T }` At old.idp:8:7 [old-idp-z3]
Warning: `>>` is an older IDP-Z3's sign for what is certainly true; IDP-Z3 0.12 writes `f :> {...}.` At old.idp:11:5 [old-idp-z3]
"
    );
    let include = "#include <mx>\nvocabulary V {\n  P\n}\n";
    let o = idp_on("include.idp", include, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: unexpected '#', expected a block such as 'vocabulary', 'theory', 'structure' or 'procedure' At include.idp:1:1 [syntax-error]
  hint: '#include' is the include of IDP 3.1 and before: IDP3 3.2 and later (and idp) write 'include \"file.idp\"' or 'include <library>', without '#'
"
    );
}
