//! IDP3's `printasbdd(T)` (`printers/bddprinter.hpp`, `fobdds/`): each sentence as IDP3 prints a
//! formula, then its BDD from one FOBDD manager for the whole theory. The expected texts were
//! traced by hand through IDP3's `FOBDDFactory` and `FOBDDManager`: kernels made later sit
//! nearer the root; kernels with a free De Bruijn index 0 sit below the others; `! x : F` is
//! `~ ? x : ~F`; a quantified kernel prints its BDD rebuilt in a fresh manager with index 0
//! replaced by a fresh variable (IDP3 numbers these from its global id counter, here from 0).

mod support;

use support::{run, run_with};

const VOC: &str = "vocabulary V {
  type T
  P(T)
  Q(T)
  E(T,T)
  R
  S
}
";

fn bdd(test: &str, sentences: &str) -> String {
    let spec = format!("{VOC}theory Th : V {{\n{sentences}\n}}\n");
    let r = run(test, &spec, "printasbdd(Th)");
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// `R` is made first, `S` second: `S` is the root of both BDDs.
#[test]
fn propositional_conjunction_and_negated_disjunction() {
    let expected = ">>> Formula
\t(R & S)
>>> is the BDD
S
    FALSE BRANCH:
        false
    TRUE BRANCH:
        R
            FALSE BRANCH:
                false
            TRUE BRANCH:
                true

>>> Formula
\t~(R | S)
>>> is the BDD
S
    FALSE BRANCH:
        R
            FALSE BRANCH:
                true
            TRUE BRANCH:
                false
    TRUE BRANCH:
        false

";
    assert_eq!(bdd("bdd_prop", "R & S.\n~(R | S)."), expected);
}

/// `! x : P(x) => Q(x)`: the disjunction `Q ? T : (P ? F : T)` is negated, `x` becomes index
/// 0 (`Q(<0>)` made before `P(<0>)`, so `P(<0>)` is the root) and the whole is one quantified
/// kernel; printed, the kernel's BDD is rebuilt with `P(var0)` made before `Q(var0)`.
#[test]
fn universal_implication() {
    let expected = ">>> Formula
\t(! x[T] : (~P(x[T]) | Q(x[T])))
>>> is the BDD
EXISTS(var0[T]) {
    Q(var0[T])
        FALSE BRANCH:
            P(var0[T])
                FALSE BRANCH:
                    false
                TRUE BRANCH:
                    true
        TRUE BRANCH:
            false
}
    FALSE BRANCH:
        true
    TRUE BRANCH:
        false

";
    assert_eq!(bdd("bdd_impl", "! x : P(x) => Q(x)."), expected);
}

/// `? x y : E(x,y)`: `x` (first by name) is quantified first and becomes the inner kernel;
/// the outer fresh variable stands for `y`.
#[test]
fn nested_existentials() {
    let expected = ">>> Formula
\t(? x[T] y[T] : E(x[T],y[T]))
>>> is the BDD
EXISTS(var0[T]) {
    EXISTS(var1[T]) {
        E(var1[T],var0[T])
            FALSE BRANCH:
                false
            TRUE BRANCH:
                true
    }
        FALSE BRANCH:
            false
        TRUE BRANCH:
            true
}
    FALSE BRANCH:
        false
    TRUE BRANCH:
        true

";
    assert_eq!(bdd("bdd_exists", "? x y : E(x,y)."), expected);
}

/// A quantifier over a formula without its variable keeps IDP3's `? x[T] : T(x)` (the type is
/// not empty) in front, made after `R` and so above it.
#[test]
fn vacuous_quantifier_tests_the_type() {
    let expected = ">>> Formula
\t(! x[T] : R)
>>> is the BDD
EXISTS(var0[T]) {
    T(var0[T])
        FALSE BRANCH:
            false
        TRUE BRANCH:
            true
}
    FALSE BRANCH:
        true
    TRUE BRANCH:
        R
            FALSE BRANCH:
                false
            TRUE BRANCH:
                true

";
    assert_eq!(bdd("bdd_vacuous", "! x[T] : R."), expected);
}

/// `y = x` is stored as `=(x, y)` (IDP3 swaps a comparison whose first argument was made
/// first), and `? y : y = x` is the kernel `true` (IDP3's `getQuantKernel` solves it), so
/// only `! x : P(x)` is left.
#[test]
fn equality_with_a_solved_quantifier() {
    let expected = ">>> Formula
\t(! x[T] : (? y[T] : ((y[T] = x[T]) & P(x[T]))))
>>> is the BDD
EXISTS(var0[T]) {
    P(var0[T])
        FALSE BRANCH:
            true
        TRUE BRANCH:
            false
}
    FALSE BRANCH:
        true
    TRUE BRANCH:
        false

";
    assert_eq!(bdd("bdd_eq", "! x : ? y : y = x & P(x)."), expected);
}

/// `true`, `false`, a double negation and an equivalence of one atom with itself.
#[test]
fn constants_and_trivial_sentences() {
    let expected = ">>> Formula
\ttrue
>>> is the BDD
true

>>> Formula
\tR
>>> is the BDD
R
    FALSE BRANCH:
        false
    TRUE BRANCH:
        true

>>> Formula
\t(S <=> S)
>>> is the BDD
true

";
    assert_eq!(bdd("bdd_const", "true.\n~~R.\nS <=> S."), expected);
}

/// Definitions are left out, with IDP3's warning; a non-theory is an error.
#[test]
fn definitions_warned_and_bad_argument() {
    let spec = format!("{VOC}theory Th : V {{ R. {{ S <- R. }} }}\n");
    let r = run_with("bdd_def", &spec, "printasbdd(Th)", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stderr
        .contains("Warning: Only the sentences of the given theory are printed as BDDs."));
    assert!(r.stdout.starts_with(">>> Formula\n\tR\n"), "{}", r.stdout);
    assert_eq!(r.stdout.matches(">>> Formula").count(), 1);
    let r = run("bdd_bad", &spec, "printasbdd(3)");
    assert_ne!(r.code, 0);
    assert!(!r.stderr.contains("not supported"), "{}", r.stderr);
}
