//! Unit tests of the resolver, written as small IDP texts.

use crate::diagnostics::Diagnostics;
use crate::sema::program::Program;
use crate::source::SourceMap;

fn resolve_text(text: &str) -> (Program, Diagnostics) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let file = crate::syntax::parse_text("test.idp", text, &mut sources, &mut diags);
    let prog = super::resolve_with_sources(&file, Some(&sources), &mut diags);
    (prog, diags)
}

fn errors(d: &Diagnostics) -> Vec<(&'static str, String)> {
    d.items
        .iter()
        .filter(|x| x.is_error())
        .map(|x| (x.code, x.message.clone()))
        .collect()
}

fn assert_clean(d: &Diagnostics) {
    assert!(errors(d).is_empty(), "unexpected errors: {:?}", errors(d));
}

fn voc_of<'p>(p: &'p Program, name: &str) -> &'p crate::sema::program::Vocabulary {
    match p.lookup(&[name]) {
        Some(Component::Vocabulary(v)) => p.voc(v),
        other => panic!("no vocabulary {name}: {other:?}"),
    }
}

fn structure_of<'p>(p: &'p Program, name: &str) -> &'p crate::structure::Structure {
    match p.lookup(&[name]) {
        Some(Component::Structure(s)) => &p.structures[s.index()],
        other => panic!("no structure {name}: {other:?}"),
    }
}

fn sort_named(p: &Program, name: &str) -> SortId {
    SortId(
        p.sorts
            .iter()
            .position(|s| s.name == name)
            .expect("sort exists") as u32,
    )
}

fn pred_named(p: &Program, name: &str) -> PredId {
    PredId(
        p.preds
            .iter()
            .position(|s| s.name == name && s.type_of.is_none())
            .expect("pred exists") as u32,
    )
}

fn first_sentence(p: &Program) -> &ir::Formula {
    &p.theories[0].sentences[0]
}

use crate::ids::{PredId, SortId, Symbol};
use crate::sema::ir;
use crate::sema::program::Component;
use crate::structure::{Table, Value};

const PEOPLE: &str =
    "vocabulary V {\n type A\n type B isa A\n type C isa A\n P(B)\n Q(C)\n R(A,A)\n}\n";

#[test]
fn variable_sort_is_the_least_common_ancestor() {
    let (p, d) = resolve_text(&format!("{PEOPLE}theory T : V {{ ! x : P(x) | Q(x). }}"));
    assert_clean(&d);
    let ir::FormulaKind::Forall(vars, _) = first_sentence(&p).kind() else {
        panic!("forall expected")
    };
    assert_eq!(vars[0].sort, sort_named(&p, "A"));
    assert!(
        d.items.iter().any(|x| x.code == "derived-sort"),
        "LCA warning expected"
    );
}

#[test]
fn unrelated_sorts_are_an_error_at_the_variable() {
    let text =
        "vocabulary V {\n type A\n type B\n P(A)\n Q(B)\n}\ntheory T : V { ! x : P(x) & Q(x). }";
    let (_, d) = resolve_text(text);
    let e = d
        .items
        .iter()
        .find(|x| x.code == "no-sort-derivable")
        .expect("error");
    assert_eq!(e.message, "Could not derive the sort of variable x.");
    let span = e.span.expect("span");
    assert_eq!(&text[span.start as usize..span.end as usize], "x");
    assert_eq!(span.start as usize, text.find("! x").unwrap() + 2);
}

#[test]
fn builtin_positions_derive_in_the_second_round() {
    let (p, d) =
        resolve_text("vocabulary V {\n type T isa int\n c : T\n}\ntheory T : V { ? x : x = c. }");
    assert_clean(&d);
    let ir::FormulaKind::Exists(vars, _) = first_sentence(&p).kind() else {
        panic!()
    };
    assert_eq!(vars[0].sort, sort_named(&p, "T"));
    let (_, d) =
        resolve_text("vocabulary V {\n type T isa int\n}\ntheory T : V { ? x : x + 1 > 2. }");
    assert_eq!(errors(&d)[0].0, "no-sort-derivable");
}

#[test]
fn unused_untyped_variable_is_an_error() {
    let (_, d) = resolve_text(&format!("{PEOPLE}theory T : V {{ ! x y : P(x). }}"));
    assert_eq!(
        errors(&d),
        vec![(
            "no-sort-derivable",
            "Could not derive the sort of variable y.".to_string()
        )]
    );
    let (_, d) = resolve_text(&format!("{PEOPLE}theory T : V {{ ! x y[A] : P(x). }}"));
    assert_clean(&d);
}

#[test]
fn free_variables_in_sentences_are_universal_with_a_warning() {
    let (p, d) = resolve_text(&format!("{PEOPLE}theory T : V {{ P(x). }}"));
    assert_clean(&d);
    assert!(matches!(
        first_sentence(&p).kind(),
        ir::FormulaKind::Forall(..)
    ));
    assert!(d
        .items
        .iter()
        .any(|x| x.code == "free-variable" && !x.is_error()));
}

#[test]
fn rule_body_only_variables_are_existential() {
    let (p, d) = resolve_text(&format!(
        "{PEOPLE}theory T : V {{ {{ ! x y : P(x) <- R(x,y). Q(z) <- R(z,w). }} }}"
    ));
    assert_clean(&d);
    let def = &p.theories[0].definitions[0];
    assert_eq!(def.rules.len(), 2);
    for r in &def.rules {
        assert_eq!(r.vars.len(), 1, "one head variable");
        let ir::FormulaKind::Exists(bv, _) = r.body.kind() else {
            panic!("existential body expected")
        };
        assert_eq!(bv.len(), 1);
        assert_ne!(bv[0].id, r.vars[0].id);
    }
    assert_eq!(
        def.defined(),
        vec![
            Symbol::Pred(pred_named(&p, "P")),
            Symbol::Pred(pred_named(&p, "Q"))
        ]
    );
}

#[test]
fn function_head_terms_are_replaced_by_variables() {
    let text = "vocabulary V {\n type T isa int\n F(T):T\n G(T):T\n}\ntheory T : V { { ! x : F(x) = G(x) + 1. } }";
    let (p, d) = resolve_text(text);
    assert_clean(&d);
    let r = &p.theories[0].definitions[0].rules[0];
    assert_eq!(r.head_args.len(), 2);
    assert!(matches!(r.head_args[1].kind(), ir::TermKind::Var(_)));
    assert_eq!(r.vars.len(), 2);
    let (_, d) = resolve_text(
        "vocabulary V {\n type t\n f(t):t\n q(t)\n}\ntheory T : V { { !x: x = f(x) <- q(x). } }",
    );
    assert!(!errors(&d).is_empty());
}

#[test]
fn overloading_is_resolved_by_sorts() {
    let text = "vocabulary V {\n type X\n type Y\n f(X):X\n f(X):Y\n g(X):X\n P(X)\n P(Y)\n c : Y\n}\ntheory T : V { ! x : f(x) = g(x). P(c). }";
    let (p, d) = resolve_text(text);
    assert_clean(&d);
    let ir::FormulaKind::Forall(_, body) = p.theories[0].sentences[0].kind() else {
        panic!()
    };
    let ir::FormulaKind::Cmp(_, l, _) = body.kind() else {
        panic!()
    };
    let ir::TermKind::Func(f, _) = l.kind() else {
        panic!()
    };
    assert_eq!(p.func(*f).result, sort_named(&p, "X"));
    let ir::FormulaKind::Pred(pr, _) = p.theories[0].sentences[1].kind() else {
        panic!()
    };
    assert_eq!(p.pred(*pr).args, vec![sort_named(&p, "Y")]);
}

#[test]
fn unknown_symbol_gets_a_near_miss_hint() {
    let (_, d) = resolve_text(&format!("{PEOPLE}theory T : V {{ ! x : Pp(x). }}"));
    let e = d
        .items
        .iter()
        .find(|x| x.code == "unknown-symbol")
        .expect("error");
    assert_eq!(e.hint.as_deref(), Some("did you mean `P`?"));
}

#[test]
fn counting_quantifier_and_arithmetic() {
    let text = "vocabulary V {\n type T isa int\n P(T)\n}\ntheory T : V { ?<2 x : P(x). ! x : P(x) => x / 2 > 1. }";
    let (p, d) = resolve_text(text);
    assert_clean(&d);
    let ir::FormulaKind::Cmp(op, agg, n) = first_sentence(&p).kind() else {
        panic!()
    };
    assert_eq!(*op, crate::syntax::ast::CmpOp::Lt);
    assert!(matches!(agg.kind(), ir::TermKind::Aggregate(..)));
    assert_eq!(n.kind(), &ir::TermKind::Value(Value::Int(2)));
}

#[test]
fn queries_and_terms_reject_free_variables() {
    let (_, d) = resolve_text(&format!("{PEOPLE}query Q : V {{ {{ x : R(x, y) }} }}"));
    assert_eq!(errors(&d)[0].0, "free-variable");
    let (p, d) = resolve_text(&format!(
        "{PEOPLE}query Q : V {{ {{ x y : R(x, y) }} }}\nterm t : V {{ #{{x : P(x)}} }}"
    ));
    assert_clean(&d);
    assert_eq!(p.queries[0].vars.len(), 2);
    assert_eq!(p.terms[0].term.sort, p.builtin("int"));
}

#[test]
fn ltc_vocabulary_generates_single_and_bistate_vocabularies() {
    let text = "LTCvocabulary V {\n type Time\n Start : Time\n Next(Time) : Time\n P(Time)\n type S\n Q(S, Time)\n R(S)\n}\n\
                structure A : V_bs { P = true S = {1..3} P_next = false }";
    let (p, d) = resolve_text(text);
    assert_clean(&d);
    let v = voc_of(&p, "V");
    let ltc = v.ltc.as_ref().expect("ltc info");
    let ss = p.voc(ltc.single_state.unwrap());
    let bs = p.voc(ltc.bistate.unwrap());
    assert_eq!(ss.name, "V_ss");
    let names = |voc: &crate::sema::program::Vocabulary| {
        let mut n: Vec<String> = voc
            .preds
            .iter()
            .map(|&q| format!("{}/{}", p.pred(q).name, p.pred(q).args.len()))
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(ss), vec!["P/0", "Q/1", "R/1"]);
    assert_eq!(names(bs), vec!["P/0", "P_next/0", "Q/1", "Q_next/1", "R/1"]);
    assert!(ss.funcs.is_empty());
    assert!(!ss.sorts.contains(&ltc.time));
    assert_eq!(ltc.projection.len(), 2);
    assert_eq!(bs.next_of.len(), 2);
    let (_, d) = resolve_text("LTCvocabulary V (T, S, N) {\n type T\n S : T\n}\n");
    assert_eq!(errors(&d)[0].0, "ltc-vocabulary");
}

#[test]
fn structures_autocomplete_sorts_from_symbols_and_subsorts() {
    let text =
        format!("{PEOPLE}structure S : V {{ B = {{ b1; b2 }} Q = {{ c1 }} R = {{ x, y }} }}");
    let (p, d) = resolve_text(&text);
    assert_clean(&d);
    let s = structure_of(&p, "S");
    let dom = |n: &str| s.domain(sort_named(&p, n)).unwrap().to_vec();
    assert_eq!(dom("C"), vec![Value::str("c1")]);
    let a: Vec<Value> = ["b1", "b2", "c1", "x", "y"]
        .iter()
        .map(|x| Value::str(x))
        .collect();
    assert_eq!(dom("A"), a);
    assert!(matches!(
        s.table(Symbol::Pred(pred_named(&p, "Q"))),
        Some(Table::TwoValued(_))
    ));
    let (_, d) = resolve_text(&format!(
        "{PEOPLE}structure S : V {{ B = {{ b1 }} P = {{ b2 }} }}"
    ));
    assert_eq!(errors(&d)[0].0, "element-not-in-sort");
}

#[test]
fn constructed_types_are_listed_when_first_asked_for() {
    let voc = "vocabulary V {\n type A\n type P constructed from { p(A, A), none }\n type L constructed from { nil, l(L) }\n Q(P)\n}\n";
    let (p, d) = resolve_text(&format!(
        "{voc}structure S : V {{ A = {{ a; b }} Q = {{ p(a, b); none }} }}"
    ));
    assert_clean(&d);
    let s = structure_of(&p, "S");
    let (ps, ls) = (sort_named(&p, "P"), sort_named(&p, "L"));
    assert!(s.is_constructed_lazily(ps));
    assert!(
        !s.is_constructed_lazily(ls),
        "a recursive type is never listed"
    );
    assert_eq!(s.domain(ls), None);
    let domains = crate::sema::Domains::new(&p, s);
    let (a, b) = (Value::str("a"), Value::str("b"));
    let ctor = |name: &str| {
        p.funcs
            .iter()
            .position(|f| f.name == name)
            .map(|k| crate::ids::FuncId(k as u32))
            .unwrap()
    };
    let pab = Value::compound(ctor("p"), vec![a, b]);
    assert!(domains.contains(ps, pab));
    assert!(!domains.contains(ps, Value::compound(ctor("p"), vec![a, Value::str("c")])));
    let listed = s.domain(ps).unwrap();
    assert_eq!(listed.len(), 5);
    assert!(listed.is_sorted() && listed.contains(&pab));
    let (_, d) = resolve_text(&format!(
        "{voc}structure S : V {{ A = {{ a; b }} Q = {{ p(a, c) }} }}"
    ));
    assert_eq!(errors(&d)[0].0, "element-not-in-sort");
}

#[test]
fn a_function_into_an_empty_type_is_not_total() {
    let voc = "vocabulary V {\n type T\n type U\n c : T\n f(U) : T\n partial d : T\n}\n";
    let (_, d) = resolve_text(&format!("{voc}structure S : V {{ T = {{ }} U = {{ }} }}"));
    assert_eq!(
        errors(&d),
        vec![(
            "function-not-total",
            "The interpretation of function c in structure S is non-total.".to_string()
        )]
    );
    let hint = d.items.iter().find_map(|x| x.hint.clone()).unwrap();
    assert_eq!(hint, "type T has no elements in structure S, so c can have no value; give T elements, or declare `partial c : T` in the vocabulary");
    let (_, d) = resolve_text(&format!("{voc}structure S : V {{ T = {{ }} U = {{ u }} }}"));
    let names: Vec<String> = errors(&d).into_iter().map(|(_, m)| m).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[1].contains("function f in structure S"), "{names:?}");
    let (_, d) = resolve_text(&format!(
        "{voc}structure S : V {{ T = {{ t }} U = {{ u }} }}"
    ));
    assert_clean(&d);
    // A table given for it, with no values to give: the same reason.
    let (_, d) = resolve_text(&format!(
        "{voc}structure S : V {{\n T = {{ }}\n U = {{ }}\n c<ct> = {{ }}\n}}"
    ));
    let names: Vec<String> = errors(&d).into_iter().map(|(_, m)| m).collect();
    assert_eq!(
        names,
        vec!["The interpretation of function c in structure S is non-total."]
    );
    let hint = d.items.iter().find_map(|x| x.hint.clone()).unwrap();
    assert_eq!(hint, "type T has no elements in structure S, so c can have no value; give T elements, or declare `partial c : T` in the vocabulary");
}

#[test]
fn three_valued_interpretations() {
    let voc = "vocabulary V {\n type x\n p(x)\n f(x):x\n}\n";
    let (p, d) = resolve_text(&format!(
        "{voc}structure S : V {{ x = {{1..3}} p<ct> = {{1}} p<u> = {{2}} f<ct> = {{1->1}} }}"
    ));
    assert_clean(&d);
    let s = structure_of(&p, "S");
    let Some(Table::ThreeValued { ct, cf }) = s.table(Symbol::Pred(pred_named(&p, "p"))) else {
        panic!()
    };
    assert_eq!(ct.len(), 1);
    assert_eq!(
        cf.iter().cloned().collect::<Vec<_>>(),
        vec![vec![Value::Int(3)]]
    );
    for bad in [
        "p<ct> = {1} p<ct> = {2}",
        "p = {1} p<ct> = {2}",
        "p<u> = {1}",
        "f = {1->1; 1->2; 2->1; 3->1}",
        "f = {1->1}",
    ] {
        let (_, d) = resolve_text(&format!("{voc}structure S : V {{ x = {{1..3}} {bad} }}"));
        assert_eq!(errors(&d).len(), 1, "{bad}: {:?}", errors(&d));
    }
}

#[test]
fn factlists_are_closed_world() {
    let text = "vocabulary V {\n type N isa int\n E(N,N)\n M(N)\n}\nfactlist F : V { N(1..3). E(1,2). E(2,3). }";
    let (p, d) = resolve_text(text);
    assert_clean(&d);
    let s = structure_of(&p, "F");
    assert_eq!(s.domain(sort_named(&p, "N")).unwrap().len(), 3);
    assert_eq!(
        s.table(Symbol::Pred(pred_named(&p, "E")))
            .unwrap()
            .ct()
            .len(),
        2
    );
    assert!(
        matches!(s.table(Symbol::Pred(pred_named(&p, "M"))), Some(Table::TwoValued(t)) if t.is_empty())
    );
}

#[test]
fn namespaces_and_duplicates() {
    let text = "namespace N {\n vocabulary V {\n type T\n }\n}\nusing namespace N\ntheory A : V { }\ntheory B : N::V { }\nvocabulary W { }\nvocabulary W { }";
    let (p, d) = resolve_text(text);
    assert_eq!(errors(&d).len(), 1);
    assert_eq!(errors(&d)[0].0, "duplicate-name");
    assert!(errors(&d)[0]
        .1
        .starts_with("Vocabulary W is already declared in this scope, namely at test.idp:9:"));
    assert!(matches!(
        p.lookup(&["N", "V"]),
        Some(Component::Vocabulary(_))
    ));
    assert_eq!(p.theories.len(), 2);
}
