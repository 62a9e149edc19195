//! IDP3's `tometa` and `frommeta` (`transformations.hpp`, `BootstrappingUtils.cpp`,
//! `Metafier.cpp` and `bootstrap.idp` of IDP3): a theory as a structure over
//! `stdspace::meta::metavoc`, and that structure back as a theory with the same models.

mod support;

use support::run;

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
/// The numbers are IDP3's (`toMeta`, `addSymbol`, `getNonOverloadedSymbols`): the
/// vocabulary's predicates by `name/arity` in byte order (`P/1`, `Q/2`, `R/1`, `X/1`, then the
/// std types `char/1`, `float/1`, `int/1`, `nat/1`, `string/1`), then its functions (`%/2`,
/// `//2`, `^/2` of the std vocabulary, `c/0`, `f/1`); each symbol's number is given when it is
/// first mentioned: `P_1`, its argument type `X_2`, `Q_3`, `R_4`, `X`'s parent `int_5`,
/// `char_6`, its parent `string_7`, `float_8`, `nat_9`, `%_10`, `/_11`, `^_12`, `c_13`,
/// `f_14`.
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
  Func = { "%_10"; "/_11"; "^_12"; "c_13"; "f_14" }
  FuncT = {  }
  Index = { 0..10 }
  Negation = { 2; 5 }
  Pred = { "P_1"; "Q_3"; "R_4"; "X_2"; "char_6"; "float_8"; "int_5"; "nat_9"; "string_7" }
  Quant = {  }
  QuantSet = {  }
  Rule = {  }
  Set = {  }
  SingleSubForm = { 2; 5 }
  Sort = { "X_2"; "char_6"; "float_8"; "int_5"; "nat_9"; "string_7" }
  Symbol = { "%_10"; "/_11"; "P_1"; "Q_3"; "R_4"; "X_2"; "^_12"; "c_13"; "char_6"; "f_14"; "float_8"; "int_5"; "nat_9"; "string_7" }
  Term = { 4; 7; 8 }
  Var = {  }
  VarT = {  }
  constructedFrom = {  }
  isPartial = { "c_13" }
  quantVars = {  }
  ruleOf = {  }
  ruleVars = {  }
  sentence = { 1 }
  setOf = {  }
  setVars = {  }
  subForms = { 1,2; 1,5 }
  subtypeOf = { "X_2","int_5"; "char_6","string_7"; "int_5","float_8"; "nat_9","int_5" }
  aSymbol = { 3->"P_1"; 6->"Q_3" }
  aTerms = { 3,0->4; 6,0->7; 6,1->8 }
  aggFunc = {  }
  aggSet = {  }
  arity = { "%_10"->2; "/_11"->2; "P_1"->1; "Q_3"->2; "R_4"->1; "X_2"->1; "^_12"->2; "c_13"->0; "char_6"->1; "f_14"->1; "float_8"->1; "int_5"->1; "nat_9"->1; "string_7"->1 }
  body = {  }
  boolType = { 1->disj }
  dom = { 4->1; 7->1; 8->1 }
  fSymbol = {  }
  fTerms = {  }
  head = {  }
  left = {  }
  name = { "%_10"->"%"; "/_11"->"/"; "P_1"->"P"; "Q_3"->"Q"; "R_4"->"R"; "X_2"->"X"; "^_12"->"^"; "c_13"->"c"; "char_6"->"char"; "f_14"->"f"; "float_8"->"float"; "int_5"->"int"; "nat_9"->"nat"; "string_7"->"string" }
  outputSort = { "%_10"->"int_5"; "/_11"->"float_8"; "^_12"->"float_8"; "c_13"->"X_2"; "f_14"->"X_2" }
  quantType = {  }
  right = {  }
  setForm = {  }
  setTerm = {  }
  sort = { "%_10",0->"int_5"; "%_10",1->"int_5"; "/_11",0->"float_8"; "/_11",1->"float_8"; "P_1",0->"X_2"; "Q_3",0->"X_2"; "Q_3",1->"X_2"; "R_4",0->"X_2"; "X_2",0->"X_2"; "^_12",0->"float_8"; "^_12",1->"float_8"; "char_6",0->"char_6"; "f_14",0->"X_2"; "float_8",0->"float_8"; "int_5",0->"int_5"; "nat_9",0->"nat_9"; "string_7",0->"string_7" }
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

/// Each `tometa` numbers its symbols from 1 again (IDP3 makes its `UniqueStringNames` afresh
/// in `toMeta`), so the same theory gets the same names; a structure from an earlier call
/// still reads back.
#[test]
fn each_call_numbers_from_one() {
    let o = out(
        "again",
        "local function body(m) return (string.gsub(tostring(m), '^[^\\n]*\\n', '')) end\nlocal m1 = tometa(Small)\nlocal m2 = tometa(T)\nlocal m3 = tometa(Small)\nprint(body(m1) == body(m3))\nprint(frommeta(V, getvocabulary(m1)::sentence, m1))",
    );
    assert_eq!(
        o,
        "true\ntheory demetafied_theory_1 : V {\n  (~P(1) | ~Q(1,1)).\n}\n\n"
    );
}

/// IDP3 disambiguates each comparison to the sorts of its terms (`=[X,X]`, `=[int,int]`,
/// `<[int,int]` for `c : X` against a number), and each is a symbol of its own with its
/// argument types; the theory still reads back.
#[test]
fn comparisons_are_symbols_per_sort() {
    let spec = "vocabulary V {
  type X isa int
  P(X)
  f(X) : X
  partial c : X
}
theory T : V {
  1 < c < 3.
  ! x : P(x) <=> ~ f(x) = x.
  c = 2.
}
";
    let r = run(
        "cmp",
        spec,
        "local m = tometa(T) print(m) print(frommeta(V, getvocabulary(m)::sentence, m))",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // P_1, X_2, int_3, char_4, string_5, float_6, nat_7, %_8, /_9, ^_10, c_11, f_12, then the
    // walk: `<` on int, `=` on X, `=` on int.
    let line = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("  {name} = ")))
            .unwrap_or_else(|| panic!("no {name} in {}", r.stdout))
            .to_string()
    };
    assert_eq!(
        line("aSymbol"),
        r#"  aSymbol = { 2->"<_13"; 5->"<_13"; 10->"P_1"; 13->"=_14"; 17->"=_15" }"#
    );
    let sorts = line("sort");
    for fact in [
        r#""<_13",0->"int_3"; "<_13",1->"int_3""#,
        r#""=_14",0->"X_2"; "=_14",1->"X_2""#,
        r#""=_15",0->"int_3"; "=_15",1->"int_3""#,
    ] {
        assert!(sorts.contains(fact), "{fact} not in {sorts}");
    }
    assert!(
        r.stdout.ends_with(
            "  ((1 < c) & (c < 3)).\n  (! x[X] : (P(x) <=> ~(f(x) = x))).\n  (c = 2).\n}\n\n"
        ),
        "{}",
        r.stdout
    );
}
