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

#[allow(dead_code)]
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
