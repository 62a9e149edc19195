//! Issue 29: what stopped IDP3 files people wrote, each fixed as IDP3 behaves. Every test names
//! the IDP3 source (`KULeuven-KRR/IDP`) whose behaviour it follows.

mod support;

use std::path::PathBuf;
use std::process::Output;

/// Writes `bytes` to a fresh file `name` in a directory of its own and runs `idp args... file`.
fn run_file(name: &str, bytes: &[u8], args: &[&str]) -> Output {
    let dir = support::test_dir(name);
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = support::idp_command()
        .current_dir(&dir)
        .args(args)
        .arg(name)
        .output()
        .expect("the idp binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// stdout, stderr and the exit code of a run.
fn outcome(o: &Output) -> (String, String, i32) {
    (
        text(&o.stdout),
        text(&o.stderr),
        o.status.code().unwrap_or(-1),
    )
}

/// IDP3's `char` is a finite type of 256 elements: `AllChars` in
/// `src/structure/StructureComponents.{hpp,cpp}` is `finite()`, its `size()` is the number of
/// `char` values, and `vocabulary.cpp` gives the builtin sort `char` that table.
#[test]
fn char_is_a_finite_type_of_256_elements() {
    let spec = "vocabulary V {
  A(char)
}
theory T : V {
  #{x[char] : A(x)} = 3.
  A(\"a\"). A(\"b\"). A(\"z\").
}
theory All : V {
  #{x[char] : x = x} = 256.
}
structure S : V { }
procedure main() {
  stdoptions.nbmodels = 0
  printmodels(modelexpand(T, S))
  print(sat(All, S))
}
";
    let o = run_file("char.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  A = { \"a\"; \"b\"; \"z\" }\n}\n\ntrue\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// IDP3's lexer (`src/parser/lex.ll`: `STR` is `\"[^\"]*\"`, a line comment runs over `.*`, a
/// block comment over `[^*\n]*`) takes any byte inside comments and strings, so a Latin-1 file
/// whose accents stay there (`één` in a Dutch course file) runs.
#[test]
fn a_latin1_byte_in_a_comment_or_string_is_accepted() {
    let spec = b"vocabulary V {\n  P // \xe9\xe9n predicaat\n}\ntheory T : V {\n  /* \xe9\xe9n */ P.\n}\nstructure S : V { }\nprocedure main() {\n  print(\"caf\xe9\") -- \xe9\n  printmodels(modelexpand(T, S))\n}\n";
    let o = run_file("latin1.idp", spec, &[]);
    assert_eq!(
        outcome(&o),
        (
            "caf\u{e9}\nNumber of models: 1\nModel 1\n=======\nstructure  : V {\n  P = true\n}\n\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// Outside comments and strings such a byte is an error (IDP3's lexer has no token for it),
/// and it comes first: the errors it may cause further on are its consequences.
#[test]
fn an_encoding_error_is_reported_first_and_once() {
    let spec = b"vocabulary V {\n  type T\n  P(T)\n}\ntheory T : V {\n  P(3).\n}\nstructure S : V {\n  T = {1..3}\n  P = { 1 } // Q\xe9\xe9\n  Q\xe9\xe9 = { 2 }\n}\n";
    let o = run_file("latin1_error.idp", spec, &[]);
    assert_eq!(
        outcome(&o),
        (
            String::new(),
            "Error: the byte 0xE9 ('\u{e9}' in Latin-1) is not UTF-8 text, and outside a comment or string no such byte is allowed At latin1_error.idp:11:4 [invalid-utf8]\n  hint: save the file with UTF-8 encoding (e.g. `iconv -f latin1 -t utf-8`), or keep such characters in comments and strings\nError: Term 3 has sort nat but occurs in a position with sort T. At latin1_error.idp:6:5 [type-mismatch]\nError: Symbol Q is not declared in this scope. At latin1_error.idp:11:3 [unknown-symbol]\n  hint: this may follow from the first error: the name may be declared in the line with the byte that is not UTF-8; fix that error first\n"
                .to_string(),
            1
        )
    );
}

/// A missing include comes first, and the names it would have declared are marked as its
/// possible consequences (before: a bare "Vocabulary V is not declared" error). IDP3 reports
/// the include (`src/parser/lex.ll`, `start_include`; `Error::unexistingfile` in
/// `src/errorhandling/error.cpp`: "Could not open file") and goes on; here its consequences
/// say where to look.
#[test]
fn names_missing_after_a_missing_include_are_marked_as_its_consequences() {
    let spec = b"include \"nothere.idp\"\ntheory T : V {\n  P(1).\n}\n";
    let o = run_file("missing_include.idp", spec, &[]);
    let (_, stderr, code) = outcome(&o);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("Error: the included file \"nothere.idp\" does not exist At ")
            && stderr.ends_with("Error: Vocabulary V is not declared in this scope. At missing_include.idp:2:12 [unknown-vocabulary]\n  hint: this may follow from the first error: the name may be declared in the included file that could not be read; fix that error first\n"),
        "{stderr}"
    );
}

/// A malformed constructor (`p_?role`, a GDL variable PlayID's translator left in a name) is
/// one syntax error: the entry is left out and the type is declared with the others, so the
/// symbols over it are declared too and their uses are not reported as undeclared (before:
/// four "Sort Player is not declared" errors after it, and more down the file). IDP3's
/// grammar (`src/parser/parser.yy`, `TYPE identifier CONSTRUCTED '{' func_list '}'`) has no
/// `error` productions, so bison stops at the first syntax error; here the rest of the file
/// is still checked, without the cascade.
#[test]
fn a_malformed_constructor_is_one_error_without_its_consequences() {
    let spec = b"vocabulary V {\n  type Player constructed from {p_?role,p_kitten}\n  Score(Player) : nat\n  Moves(Player)\n}\ntheory T : V {\n  Moves(p_kitten).\n}\nstructure S : V {\n  Score = { p_kitten -> 100 }\n}\n";
    let o = run_file("kitten.idp", spec, &[]);
    assert_eq!(
        outcome(&o),
        (
            String::new(),
            "Error: unexpected '?', expected ',' or '}' At kitten.idp:2:35 [syntax-error]\n"
                .to_string(),
            1
        )
    );
}

/// `initialise(T, S, Time, Start, Next)` transforms the theory's vocabulary with the symbols
/// given (IDP3's `data/share/std/idp_intern.idp`, `initialise`, passes them to
/// `idpintern.initialise`; `LTCData::getStateVocInfo(voc, symbols)` in
/// `src/inferences/progression/data/LTCData.cpp` uses them instead of looking for `Time`).
#[test]
fn initialise_uses_the_time_symbols_it_is_given() {
    let spec = "vocabulary Voc {
  type time isa nat
  Start : time
  Next(time) : time
  On(time)
}
theory T : Voc {
  On(Start).
  ! t : On(Next(t)) <=> ~On(t).
}
structure S : Voc {
  time = { 0..3 }
}
procedure main() {
  local init = initialise(T, S, Voc::time.type, Voc::Start, Voc::Next)
  print(#init)
  print(init[1])
  print(progress(T, init[1])[1])
}
";
    let o = run_file("ltc_symbols.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "1\nstructure  : Voc_ss {\n  On = true\n}\n\nstructure  : Voc_ss {\n  On = false\n}\n\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// A procedure that interprets a symbol is called only when the structure is used: IDP3's
/// `ProcInternalPredTable` and `ProcInternalFuncTable` (`src/structure/StructureComponents.cpp`)
/// call it when a tuple is looked up, so a procedure that reads a table `main` fills first
/// works, and a structure no inference uses is never rejected.
#[test]
fn a_procedural_interpretation_is_evaluated_when_the_structure_is_used() {
    let spec = "vocabulary V {
  type T isa int
  F(T) : int
}
procedure f(x) {
  return data[x]
}
structure S : V {
  T = {1..3}
  F = procedure f
}
structure Unused : V {
  T = {1..2}
  F = procedure f
}
procedure main() {
  data = {10, 20, 30}
  print(S)
}
";
    let o = run_file("procedural.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "structure S : V {\n  T = { 1..3 }\n  F = { 1->10; 2->20; 3->30 }\n}\n\n".to_string(),
            String::new(),
            0
        )
    );
}

/// The name of a constant constructor, quoted or not, is that constructor in a structure:
/// IDP3's parser reads both as a `strelement` (`src/parser/parser.yy`), and
/// `Insert::element(const std::string&)` in `src/insert.cpp` maps a name with a constructor of
/// arity 0 in scope to its compound.
#[test]
fn a_quoted_constructor_name_in_a_structure_is_the_constructor() {
    let spec = "vocabulary V {
  type Insp constructed from { Insp1, Insp2 }
  Works(Insp)
  Boss : Insp
}
structure S : V {
  Works = { \"Insp1\" }
  Boss = \"Insp2\"
}
procedure main() {
  print(S)
}
";
    let o = run_file("quoted_constructor.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "structure S : V {\n  Works = { Insp1 }\n  Boss = Insp2\n}\n\n".to_string(),
            String::new(),
            0
        )
    );
}

/// Two constructed types may share a constructor name: IDP3 overloads function symbols
/// (`Insert::createfunction` in `src/insert.cpp` refuses only a function with the same
/// argument and result sorts; `FuncUtils::overload` joins the others), and the sorts where
/// the name is used tell which one is meant, in a theory as in a structure.
#[test]
fn two_constructed_types_may_share_a_constructor_name() {
    let spec = "vocabulary V {
  type A constructed from { red, green }
  type B constructed from { red, blue }
  P(A)
  Q(B)
  R(A, B)
}
theory T : V {
  P(red).
  Q(red).
  ~Q(blue).
  ~P(green).
}
structure S : V {
  R = { green, red; red, blue }
}
procedure main() {
  printmodels(modelexpand(T, S))
}
";
    let o = run_file("overloaded_constructor.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  P = { red }\n  Q = { red }\n  R = { green,red; red,blue }\n}\n\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// On a theory with a model, the unsat-core procedures say so and the procedure goes on:
/// IDP3's `UnsatCoreInference` (`src/external/commands/unsatcore.hpp`) catches the
/// `AlreadySatisfiableException` of `src/inferences/debugging/MinimizeMarkers.hpp`, writes
/// "Cannot get core of theory which is already satisfiable" and returns nil.
#[test]
fn the_unsat_core_of_a_satisfiable_theory_says_so_and_goes_on() {
    let spec = "vocabulary V {
  P
}
theory T : V {
  P.
}
structure S : V { }
procedure main() {
  printunsatcore(T, S)
  print(\"after\")
  printcore(T, S)
  print(unsatstructure(T, S))
  explainunsat(T, S)
  print(\"end\")
}
";
    let o = run_file("sat_core.idp", spec.as_bytes(), &[]);
    let message = "Cannot get core of theory which is already satisfiable\n";
    assert_eq!(
        outcome(&o),
        (
            "after\nWarning: using deprecated method \"printcore\". Please use \"printunsatcore\" instead.\nnil\nnil\nend\n"
                .to_string(),
            message.repeat(4),
            0
        )
    );
}

/// A symbol named like an aggregate cannot be used in a theory: IDP3's lexer
/// (`src/parser/lex.ll`, state `<theory>`) reads `sum`, `prod`, `min`, `max` and `card` as
/// aggregates, so `max(1, 2)` silently meant the aggregate. The declaration is the error.
#[test]
fn a_function_named_like_an_aggregate_is_an_error_at_its_declaration() {
    let spec = "vocabulary V {
  type T isa int
  max(T, T) : T
}
theory T1 : V {
  max(1, 2) = 2.
}
structure S : V { T = {1..3} }
";
    let o = run_file("aggregate_name.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            String::new(),
            "Error: 'max' is the name of an aggregate: in a theory, max(...) and max{...} are read as the aggregate max, never as this symbol At aggregate_name.idp:3:3 [aggregate-name]\n  hint: give the symbol another name, for example maxOf or myMax\n"
                .to_string(),
            1
        )
    );
}

/// A definition with infinitely many true atoms stops at the grounding size limit, located at
/// the definition, with exit code 3 (IDP3 has no such limit and runs on; `idp`'s limits end a
/// run with code 3 wherever they arise).
#[test]
fn a_definition_with_infinitely_many_true_atoms_stops_at_the_size_limit() {
    let spec = "vocabulary V {
  True(nat)
}
theory T : V {
  {
    True(0).
    ! x[nat] : True(x + 1) <- True(x).
  }
}
structure S : V { }
procedure main() {
  print(#modelexpand(T, S))
}
";
    let o = run_file(
        "infinite_definition.idp",
        spec.as_bytes(),
        &["--max-ground-size", "1000"],
    );
    assert_eq!(
        outcome(&o),
        (
            String::new(),
            "Stopped: infinite_definition.idp:12: The definition derived more than 1000 true atoms (the grounding size limit): it may have infinitely many (a rule such as `True(x + 1) <- True(x)` over nat). Bound its variables by a finite type, or raise the limit with --max-ground-size.\n  while evaluating the definition at infinite_definition.idp:5:3\n"
                .to_string(),
            3
        )
    );
}

/// A file in IDP-Z3's dialect (`type T := {..}`, `->` in declarations, `main {`) is read as
/// such (tests/idp_z3.rs has the rest); one that is neither IDP3 nor FO(·) gets FO(·)'s syntax
/// error, located, instead of the cascade that IDP3's grammar gives it.
#[test]
fn an_idp_z3_file_is_read_in_its_own_dialect() {
    let spec = "vocabulary V {
    type Color := {red, green, blue}
    type Country := {BE, NL, LU}
    color_of: Country -> Color
    borders: Country * Country -> Bool
}

theory T:V {
    !c1, c2 in Country: borders(c1, c2) => color_of(c1) ~= color_of(c2).
}

structure S:V {
    borders := {(BE, NL), (BE, LU)}.
}

procedure main() {
    pretty_print(model_expand(T, S))
}
";
    let o = run_file("z3.idp", spec.as_bytes(), &[]);
    let (stdout, stderr, code) = outcome(&o);
    assert_eq!((stderr.as_str(), code), ("", 0));
    assert_eq!(stdout.matches("==========").count(), 10, "{stdout}");
    assert!(stdout
        .ends_with("\nMore models may be available.  Change the max argument to see them.\n\n"));
    let spec = "vocabulary {\n  p: () -> Bool\n}\ntheory {\n  p().\n}\nmain {\n  pretty_print(model_expand(T))\n}\n";
    let o = run_file("z3_arrow.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "\nModel 1\n==========\np := true.\n\n\nNo more models.\n\n".to_string(),
            String::new(),
            0
        )
    );
    let spec = "vocabulary V {\n  P\n}\ntheory T : V { P. }\nmain {\n  print(1)\n}\n";
    let o = run_file("z3_main.idp", spec.as_bytes(), &[]);
    let (_, stderr, code) = outcome(&o);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("Error: unexpected 'P', expected a declaration")
            && stderr.contains("At z3_main.idp:2:3 [fodot-syntax-error]"),
        "{stderr}"
    );
}

/// A constant of type `int` that a sentence fixes (`N = MAX[:Player].`, `N = #{...}.`) is
/// grounded over the values that sentence allows, not over `int`: IDP3's `cpsupport` (on by
/// default) makes such a function a CP variable bounded by the theory
/// (`CPSupport::eligibleForCP`, `src/inferences/grounding/GroundTranslator.cpp`).
#[test]
fn an_int_constant_fixed_by_a_sentence_is_grounded_over_its_values() {
    let spec = "vocabulary V {
  type Player isa int
  N : int
  M : nat
  P(Player)
  Q(Player)
}
theory T : V {
  N = MAX[:Player].
  ! x : P(x) <=> x < N.
  M = #{x[Player] : Q(x)}.
  M > 2.
}
structure S : V { Player = {1..4} }
procedure main() {
  stdoptions.nbmodels = 0
  print(#modelexpand(T, S))
  S2 = clone(S)
  S2[V::Q] = {1, 2, 3}
  printmodels(modelexpand(T, S2))
}
";
    let o = run_file("fixed_constant.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "5\nNumber of models: 1\nModel 1\n=======\nstructure  : V {\n  Player = { 1..4 }\n  P = { 1; 2; 3 }\n  Q = { 1; 2; 3 }\n  M = 3\n  N = 4\n}\n\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// `modelexpand(T, S, W)` gives models over the output vocabulary `W`, one per assignment of
/// its symbols: IDP3's `handleSolution` (`src/inferences/modelexpansion/ModelExpansion.cpp`)
/// calls `changeVocabulary(outputvoc)` on every model.
#[test]
fn models_with_an_output_vocabulary_are_over_that_vocabulary() {
    let spec = "vocabulary V {
  P
  Q
}
vocabulary W {
  extern V::P/0
}
theory T : V {
  P | Q.
}
structure S : V { }
procedure main() {
  stdoptions.nbmodels = 0
  printmodels(modelexpand(T, S, W))
}
";
    let o = run_file("output_vocabulary.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "Number of models: 2\nModel 1\n=======\nstructure  : W {\n  P = true\n}\n\nModel 2\n=======\nstructure  : W {\n  P = false\n}\n\n"
                .to_string(),
            String::new(),
            0
        )
    );
}

/// `F(1) ~= x` in a rule body is the negated graph atom `~F(1, x)`: IDP3's
/// `GraphFuncsAndAggs::visit(PredForm*)` (`src/theory/transformations/GraphFuncsAndAggs.cpp`)
/// turns a comparison with a defined function into its graph atom with the comparison's sign
/// (`makeFuncGraph(pf->sign(), ...)`). Read so, the two rules below depend on each other
/// through negation (`F(0) = 1` on `~F(1, 0)`, `F(1) = 0` on `~F(0, 1)`): the well-founded model
/// leaves them unknown and the definition has no model. Reading `F(1) ~= x` as "F(1) has
/// another value" would make the dependency positive and give the model `F = {0->0; 1->0}`.
#[test]
fn a_negated_comparison_with_a_defined_function_is_a_negated_graph_atom() {
    let spec = "vocabulary V {
  type T isa int
  F(T) : T
}
theory T : V {
  {
    ! x[T] : F(x) = 1 <- F(1) ~= x & ? y[T] : F(y) = x & y ~= 0.
    ! x[T] : F(x) = 0 <- ~(F(0) = 1) | F(1) = 0.
  }
}
structure S : V {
  T = { 0..1 }
}
";
    let o = run_file("negated_graph.idp", spec.as_bytes(), &["-n", "0"]);
    assert_eq!(
        outcome(&o),
        (
            "Unsatisfiable\nNumber of models: 0\n".to_string(),
            "Warning: The definition at negated_graph.idp:6:3 is not total in structure 'S': its well-founded model leaves F(0) = 0, F(0) = 1, F(1) = 0 unknown, so there is no model (IDP3's semantics accepts only total definitions).\nhint: theory T (at negated_graph.idp:5:1) has no model with structure S; `idp --explain negated_graph.idp` says why: a minimal set of its sentences, definitions and facts that has none\n".to_string(),
            20
        )
    );
}
