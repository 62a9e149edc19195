//! IDP3's `tometa` and `frommeta` (`transformations.hpp`, `BootstrappingUtils.cpp`,
//! `Metafier.cpp` and `bootstrap.idp` of IDP3): a theory as a structure over
//! `stdspace::meta::metavoc`, and that structure back as a theory with the same models.

mod api;

use api::run;

const SPEC: &str = "vocabulary V {
  type X isa int
  P(X)
  Q(X, X)
  f(X) : X
  partial c : X
  R(X)
}
theory T : V {
  1 < c < 3.
  ! x : ? y : P(y) | (Q(x, f(c)) & P(1)).
  { f(x) = z <- Q(x, z) & f(c) = 1. }
  P(x) <=> ~ f(x) = x.
  P(sum{ x y : Q(x, y) : x + y }).
}
theory Small : V { P(1) => ~ Q(1, 1). }
theory D : V {
  { R(x) <- P(x) & x > 1. }
  #{ x : R(x) } = 1.
  ! x : P(x) | Q(x, x) <=> f(x) = MAX[:X].
}
structure S : V { X = { 1..3 } }
structure S2 : V { X = { 1..2 } }
";

fn out(test: &str, chunk: &str) -> String {
    let r = run(test, SPEC, chunk);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// IDP3's representation: `=>` as a disjunction with its left side negated, `~` as a
/// `Negation` of the atom, symbols named `name_N` with their typing, numbers as `DomT` terms.
const SMALL_META: &str = r#"structure metastructure_1 : metavoc {
  AggT = {  }
  Atom = { 3; 6 }
  BoolForm = { 1..1 }
  Definition = {  }
  Dom = { 1..1 }
  DomT = { 4; 7; 8 }
  EnumSet = {  }
  Equiv = {  }
  Form = { 1; 2; 3; 5; 6 }
  Func = { "c_7"; "f_8" }
  FuncT = {  }
  Index = { 0..10 }
  Negation = { 2; 5 }
  Pred = { "P_1"; "Q_5"; "R_6"; "X_2"; "float_4"; "int_3"; "nat_9" }
  Quant = {  }
  QuantSet = {  }
  Rule = {  }
  Set = {  }
  SingleSubForm = { 2; 5 }
  Sort = { "X_2"; "float_4"; "int_3"; "nat_9" }
  Symbol = { "P_1"; "Q_5"; "R_6"; "X_2"; "c_7"; "f_8"; "float_4"; "int_3"; "nat_9" }
  Term = { 4; 7; 8 }
  Var = {  }
  VarT = {  }
  constructedFrom = {  }
  isPartial = { "c_7" }
  quantVars = {  }
  ruleOf = {  }
  ruleVars = {  }
  sentence = { 1 }
  setOf = {  }
  setVars = {  }
  subForms = { 1,2; 1,5 }
  subtypeOf = { "X_2","int_3"; "int_3","float_4"; "nat_9","int_3" }
  aSymbol = { 3->"P_1"; 6->"Q_5" }
  aTerms = { 3,0->4; 6,0->7; 6,1->8 }
  aggFunc = {  }
  aggSet = {  }
  arity = { "P_1"->1; "Q_5"->2; "R_6"->1; "X_2"->1; "c_7"->0; "f_8"->1; "float_4"->1; "int_3"->1; "nat_9"->1 }
  body = {  }
  boolType = { 1->disj }
  dom = { 4->1; 7->1; 8->1 }
  fSymbol = {  }
  fTerms = {  }
  head = {  }
  left = {  }
  name = { "P_1"->"P"; "Q_5"->"Q"; "R_6"->"R"; "X_2"->"X"; "c_7"->"c"; "f_8"->"f"; "float_4"->"float"; "int_3"->"int"; "nat_9"->"nat" }
  outputSort = { "c_7"->"X_2"; "f_8"->"X_2" }
  quantType = {  }
  right = {  }
  setForm = {  }
  setTerm = {  }
  sort = { "P_1",0->"X_2"; "Q_5",0->"X_2"; "Q_5",1->"X_2"; "R_6",0->"X_2"; "X_2",0->"X_2"; "f_8",0->"X_2"; "float_4",0->"float_4"; "int_3",0->"int_3"; "nat_9",0->"nat_9" }
  subForm = { 2->3; 5->6 }
  termSort = { 4->"nat_9"; 7->"nat_9"; 8->"nat_9" }
  var = {  }
  varSort = {  }
}
"#;

#[test]
fn a_small_theory_as_a_meta_structure() {
    let o = out("small", "local m = tometa(Small)\nprint(type(m))\nprint(m)");
    assert_eq!(o, format!("structure\n{SMALL_META}\n"));
}

#[test]
fn frommeta_reads_the_theory_back() {
    let o = out(
        "back",
        "local m = tometa(Small)\nlocal mv = getvocabulary(m)\nprint(frommeta(V, mv::sentence, m))",
    );
    assert_eq!(
        o,
        "theory demetafied_theory_1 : V {\n  (~P(1) | ~Q(1,1)).\n}\n\n"
    );
}

/// Each theory read back from its meta structure has the models of the original (over two
/// elements: Small keeps 2304 of the 4 * 16 * 4 * 3 * 4 = 3072 structures, those without
/// both P(1) and Q(1,1)).
#[test]
fn a_theory_read_back_has_the_same_models() {
    let o = out(
        "models",
        "stdoptions.nbmodels = 0\nlocal mv\nfor _, t in ipairs({ T, Small, D }) do\n  local m = tometa(t)\n  mv = mv or getvocabulary(m)\n  local back = frommeta(V, mv::sentence, m)\n  print(#modelexpand(t, S2), #modelexpand(back, S2))\nend",
    );
    assert_eq!(o, "0\t0\n2304\t2304\n96\t96\n");
}

/// A definition, its rule and an aggregate each get one element of their meta type, and the
/// theory read back has them.
#[test]
fn definitions_and_aggregates_in_the_meta_structure() {
    let o = out(
        "defs",
        "local m = tometa(D)\nlocal mv = getvocabulary(m)\nlocal function count(sort) local n = 0 for _ in elements(m[sort]) do n = n + 1 end return n end\nprint(count(mv::Definition), count(mv::Rule), count(mv::AggT))\nprint(frommeta(V, mv::sentence, m))",
    );
    assert_eq!(
        o,
        "1\t1\t1\ntheory demetafied_theory_1 : V {\n  (card{ x[X] : R(x) } = 1).\n  (! x[X] : ((P(x) | Q(x,x)) <=> (f(x) = MAX[:X]))).\n  {\n    ! x[X] : R(x) <- (P(x) & (x > 1)).\n  }\n}\n\n"
    );
}
