//! The slips of a student's first hour that issue 30 lists, each with its exact message:
//! where it is, what is wrong and what to write instead.

use std::process::{Output, Stdio};

mod support;

/// Runs `idp ARGS NAME` in the folder of a fresh file `name` holding `text` (so that messages
/// name the file without a folder), with `input` on stdin.
fn idp_with_input(name: &str, text: &str, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let path = support::write_file(name, text);
    let mut child = support::idp_command()
        .current_dir(path.parent().unwrap())
        .args(args)
        .arg(name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idp binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().expect("idp ends")
}

fn idp_on(name: &str, text: &str, args: &[&str]) -> Output {
    idp_with_input(name, text, args, "")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Two nodes, a colour predicate, the theory's body `theory` (line 7) and `main`'s body
/// (line 13) when given.
fn nodes(theory: &str, main: Option<&str>) -> String {
    let main = main
        .map(|body| format!("procedure main() {{\n  {body}\n}}\n"))
        .unwrap_or_default();
    format!(
        "vocabulary V {{
  type Node
  Red(Node)
  Blue(Node)
}}
theory T : V {{
  {theory}
}}
structure S : V {{
  Node = {{a; b}}
}}
{main}"
    )
}

const UNSAT: &str = "Red(a) & ~Red(a).";

#[test]
fn unsatisfiable_says_how_to_ask_why() {
    let o = idp_on("u.idp", &nodes(UNSAT, None), &["-n", "1", "--nowarnings"]);
    assert_eq!(o.status.code(), Some(20));
    assert_eq!(stdout(&o), "Unsatisfiable\nNumber of models: 0\n");
    assert_eq!(
        stderr(&o),
        "hint: theory T (at u.idp:6:1) has no model with structure S; `idp --explain u.idp` \
         says why: a minimal set of its sentences, definitions and facts that has none\n"
    );
    // From a procedure: printmodels of modelexpand's empty list.
    let main = nodes(UNSAT, Some("printmodels(modelexpand(T, S))"));
    let o = idp_on("m.idp", &main, &["--nowarnings"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "Unsatisfiable\nNumber of models: 0\n");
    assert_eq!(
        stderr(&o),
        "hint: theory T has no model with structure S; printunsatcore(T, S) prints a minimal \
         set of its sentences and definitions that has none (from the command line: idp \
         --explain FILE)\n"
    );
}

#[test]
fn explain_without_n_explains() {
    let text = nodes(UNSAT, Some("print(1)"));
    let o = idp_on("e.idp", &text, &["--explain", "--nowarnings"]);
    assert_eq!(o.status.code(), Some(20));
    assert_eq!(
        stdout(&o),
        "Unsatisfiable
Number of models: 0
Why: 1 part of the theory has no model on its own.
  e.idp:7:3: Red(a) & ~Red(a).
      Red(a) & ~Red(a)   (a=a)
"
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn arguments_in_the_wrong_order_name_the_argument_and_the_line() {
    let text = nodes("? x : Red(x).", Some("printmodels(modelexpand(S, T))"));
    let o = idp_on("w.idp", &text, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "Error: w.idp:13: modelexpand: argument 1 should be a theory, not the structure S
  hint: the arguments are in the wrong order; write modelexpand(T, S)
"
    );
    let o = idp_on("w.idp", &text, &["-e", "propagate(T, 3)"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: propagate: argument 2 should be a structure, not an integer\n"
    );
}

/// Every inference `help` names exists, and the inferences of the README's table are named
/// (those not supported here too, as such).
#[test]
fn shell_help_lists_every_inference() {
    let o = idp_with_input("h.idp", &nodes("? x : Red(x).", None), &["-i"], "help\n");
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    for name in [
        "modelexpand",
        "onemodel",
        "allmodels",
        "modelIterator",
        "modelcount",
        "sat",
        "printmodels",
        "minimize",
        "maximize",
        "printunsatcore",
        "unsatstructure",
        "explainunsat",
        "explain",
        "propagate",
        "groundpropagate",
        "optimalpropagate",
        "calculatedefinitions",
        "refinedefinitions",
        "query",
        "value",
        "ground",
        "groundeq",
        "printgrounding",
        "completion",
        "flatten",
        "pushnegations",
        "removenesting",
        "removecardinalities",
        "tometa",
        "frommeta",
        "printasbdd",
        "initialise",
        "progress",
        "shortestplan",
        "isinvariant",
        "simulate",
        "clone",
        "merge",
        "visualize",
        "nbModelsTwoValuedExtensions",
        "nrtwovaluedatoms",
        "entails",
        "detectfunctions",
    ] {
        assert!(
            help.contains(&format!(" {name}(")),
            "help names {name}: {help}"
        );
    }
    assert!(
        help.contains(
            "  Not here:     entails(T1,T2) detectfunctions(T) (IDP3 calls an external theorem \
             prover)\n"
        ),
        "{help}"
    );
    let names: Vec<&str> = help
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '('))
        .filter_map(|w| w.strip_suffix('('))
        .collect();
    let check: String = names
        .iter()
        .map(|n| format!("assert(type({n}) == 'function', '{n}')\n"))
        .collect();
    let o = idp_on("h.idp", &nodes("? x : Red(x).", None), &["-e", &check]);
    assert_eq!(stderr(&o), "", "every name in help is a procedure");
}

#[test]
fn a_list_of_models_in_the_shell_is_printed_as_printmodels_does() {
    let text = nodes("! x : Red(x).", None);
    let o = idp_with_input(
        "l.idp",
        &text,
        &["-i", "--nowarnings"],
        "modelexpand(T, S)\nmodelexpand(T, S)[1]\n",
    );
    assert_eq!(o.status.code(), Some(0));
    let model =
        "structure  : V {\n  Node = { \"a\"; \"b\" }\n  Blue = {  }\n  Red = { \"a\"; \"b\" }\n}\n";
    assert_eq!(
        stdout(&o),
        format!("Number of models: 1\nModel 1\n=======\n{model}\n{model}\n")
    );
}

#[test]
fn equal_between_formulas_teaches_equivalence() {
    let o = idp_on(
        "r.idp",
        &nodes("! x : Red(x) = ~Blue(x).", None),
        &["-n", "1"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: unexpected '~' after '=': '=' compares two values, and a formula follows it At r.idp:7:18 [syntax-error]
  hint: to say that two formulas are both true or both false, write '<=>': Red(x) <=> ~Blue(x)
"
    );
    let o = idp_on(
        "r.idp",
        &nodes("! x : Red(x) = Blue(x).", None),
        &["-n", "1"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: '=' compares values, but Red and Blue are predicates: Red(x) = Blue(x) compares truth values At r.idp:7:9 [predicate-compared]
  hint: to say that both are true or both false, write '<=>': Red(x) <=> Blue(x)
"
    );
    let o = idp_on(
        "r.idp",
        &nodes("! x : Red(x) ~= Blue(x).", None),
        &["-n", "1"],
    );
    assert_eq!(
        stderr(&o),
        "Error: '~=' compares values, but Red and Blue are predicates: Red(x) ~= Blue(x) compares truth values At r.idp:7:9 [predicate-compared]
  hint: to say that exactly one of them is true, write ~(Red(x) <=> Blue(x))
"
    );
}

#[test]
fn an_undeclared_constant_is_read_as_a_variable_and_the_warning_says_so() {
    let o = idp_on("c.idp", &nodes("Red(c).", None), &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(
        stderr(&o),
        "Warning: c is not declared, so it is read as a variable: the sentence says this for every c (as ! c : ...). At c.idp:7:7 [free-variable]
  hint: to mean one element, declare a constant in the vocabulary (c : Node) and give its value in the structure; to mean every value, quantify: ! c[Node] : ...
"
    );
    // Names of the structure's elements get the warning that says so, and only that one.
    let o = idp_on("c.idp", &nodes("Red(a) & ~Blue(a).", None), &["-n", "1"]);
    assert_eq!(
        stderr(&o),
        "Warning: a is a variable here (it stands for every Node), but structure S has an element a of Node. At c.idp:7:7 [element-variable]
  hint: to mean the element, declare a constant (A : Node in the vocabulary, A = a in the structure) or make Node a constructed type (type Node constructed from {a, ...}); to mean every value, quantify it: ! a[Node] : ...
"
    );
}

const LIGHTS: &str = "vocabulary V {
  type Time isa nat
  Start : Time
  Next(Time) : Time
  type Light constructed from {red, green}
  L(Time) : Light
}
theory T : V {
  L(Start) = red.
  ! t : L(Next(t)) ~= L(t).
}
structure S : V {
  Time = {0..3}
}
";

#[test]
fn model_expansion_with_open_start_and_next_gets_a_warning() {
    let o = idp_on("l.idp", LIGHTS, &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(
        stderr(&o),
        "Warning: structure S gives no value of Start or Next, the time functions of LTC \
         vocabulary V (declared at l.idp:3:3): model expansion chooses them like any other \
         function, so time need not start at the first Time or go one step at a time (a model \
         may have Next(0) = 0)
  hint: give them in the structure (Start = 0  Next = { 0->1; 1->2; ... }), or let the LTC \
         inferences do it: initialise(T, S) and progress, or shortestplan(T, S)\n"
    );
    // The same from a procedure; none when the structure gives them.
    let o = idp_on("l.idp", LIGHTS, &["-e", "modelexpand(T, S)"]);
    assert!(stderr(&o).starts_with("Warning: structure S gives no value of Start or Next"));
    let given = LIGHTS.replace(
        "Time = {0..3}",
        "Time = {0..3}\n  Start = 0\n  Next<ct> = {0->1; 1->2; 2->3}",
    );
    let o = idp_on("l.idp", &given, &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert_eq!(stderr(&o), "");
    // Only Start when the theory defines Next (as PlayID's generated games do).
    let defined = LIGHTS.replace(
        "L(Start) = red.",
        "L(Start) = red.\n  { ! t : Next(t) = (t + 1) % 4. }",
    );
    let o = idp_on("l.idp", &defined, &["-n", "1"]);
    assert_eq!(o.status.code(), Some(10));
    assert!(
        stderr(&o).starts_with("Warning: structure S gives no value of Start, the time functions"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_quoted_element_written_back_into_a_theory_is_explained() {
    let o = idp_on("q.idp", &nodes("Red(\"a\").", None), &["-n", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "Error: Term \"a\" has sort string but occurs in a position with sort Node. At q.idp:7:7 [type-mismatch]
  hint: models print the elements of Node in quotes (\"a\"), but in a theory \"a\" is a string, not a Node; to name the element, declare a constant (A : Node in the vocabulary, A = a in the structure) or make Node a constructed type (type Node constructed from {a, ...}) and write a
"
    );
}
