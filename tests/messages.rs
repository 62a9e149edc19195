//! The messages a newcomer meets in the first hour (issue 17), each with its exact text and
//! position: notes that are silent unless asked for, warnings before the error they lead to,
//! a file without `main`, and the hints for slips from other languages.

use std::process::{Command, Output};

mod scratch;

/// Runs `idp ARGS NAME` in the folder of a fresh file `name` holding `text`, so that messages
/// name the file without a folder.
fn idp_on(name: &str, text: &str, args: &[&str]) -> Output {
    let path = scratch::write_file(name, text);
    Command::new(env!("CARGO_BIN_EXE_idp"))
        .current_dir(path.parent().unwrap())
        .args(args)
        .arg(name)
        .output()
        .expect("the idp binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

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
    let o = Command::new(env!("CARGO_BIN_EXE_idp"))
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
    let o = Command::new(env!("CARGO_BIN_EXE_idp"))
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
    let o = Command::new(env!("CARGO_BIN_EXE_idp"))
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
