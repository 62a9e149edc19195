//! IDP3's theory transformations (`completion`, `flatten`, `pushnegations`, `removenesting`,
//! `removecardinalities`) and its grounding procedures (`ground`, `groundeq`,
//! `printgrounding`): each transformed theory has the models of the original (on the
//! examples and the snapshot specs, counted with all models; the completion of a recursive
//! definition may have more, as IDP3's), and the completion and the ground theory print as
//! checked by hand.

mod support;

use std::path::Path;

use support::run;

/// Counts the models of `T` with `S`, then of `T` after each transformation, of `ground(T, S)`
/// and of `T` after all transformations in a row; one tab-separated line.
const COUNTS: &str = "stdoptions.nbmodels = 0
local function count(t) return #modelexpand(t, S) end
local function tr(f, ...) local c = clone(T); f(c, ...); return c end
print(count(T), count(tr(completion)), count(tr(pushnegations)), count(tr(flatten)),
  count(tr(removenesting)), count(tr(removecardinalities, 0)), count(ground(T, S)),
  count(groundeq(T, S, false)),
  count(tr(function(c) pushnegations(c) flatten(c) removenesting(c) removecardinalities(c, 0) completion(c) end)))";

/// The model counts of `file` (relative to the crate) under [`COUNTS`].
fn counts(file: &str) -> Vec<usize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = support::idp_command()
        .current_dir(root)
        .args(["--nowarnings", file, "-e", COUNTS])
        .output()
        .expect("the idp binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.lines().last().unwrap_or_default();
    line.split('\t')
        .map(|n| {
            n.parse()
                .unwrap_or_else(|_| panic!("{file}: a count, not {line:?}"))
        })
        .collect()
}

/// Specs whose theory has a recursive definition: its completion may have more models.
const RECURSIVE: &[&str] = &[
    "examples/reachability.idp",
    "tests/snapshots/reach_open.idp",
    "tests/snapshots/recursive_agg.idp",
    "tests/snapshots/stable.idp",
    "tests/snapshots/even.idp",
];

#[test]
fn transformations_and_grounding_keep_the_models() {
    let mut files: Vec<String> = [
        "einstein",
        "graph-colouring",
        "minimisation",
        "nqueens",
        "partial-function",
        "reachability",
    ]
    .iter()
    .map(|e| format!("examples/{e}.idp"))
    .collect();
    for s in [
        "arithmetic",
        "cardinality",
        "constructed",
        "equiv",
        "even",
        "minmax",
        "nested",
        "partial",
        "propositional",
        "reach_open",
        "recursive_agg",
        "stable",
        "strings",
        "succ",
        "sudoku",
        "sum",
        "threevalued",
    ] {
        files.push(format!("tests/snapshots/{s}.idp"));
    }
    for file in &files {
        let c = counts(file);
        assert_eq!(c.len(), 9, "{file}: {c:?}");
        let original = c[0];
        for (k, name) in [
            (2, "pushnegations"),
            (3, "flatten"),
            (4, "removenesting"),
            (5, "removecardinalities"),
            (6, "ground"),
            (7, "groundeq"),
        ] {
            assert_eq!(c[k], original, "{file}: {name} changed the models: {c:?}");
        }
        for (k, name) in [(1, "completion"), (8, "all together")] {
            if RECURSIVE.contains(&file.as_str()) {
                assert!(c[k] >= original, "{file}: {name} lost models: {c:?}");
            } else {
                assert_eq!(c[k], original, "{file}: {name} changed the models: {c:?}");
            }
        }
    }
}

/// The completion of reachability has the unfounded loop through b and c from d as a second
/// model (Reach(d,b) and Reach(d,c) support each other); the least model is the first.
#[test]
fn completion_of_reachability_admits_the_unfounded_loop() {
    let c = counts("examples/reachability.idp");
    assert_eq!((c[0], c[1]), (1, 2));
}

const SPEC: &str = "vocabulary V {
    type D constructed from { a, b, c }
    Q(D)
    R(D, D)
    P(D)
    Same(D, D)
    F(D) : D
    Many
}
theory T : V {
    { P(a).
      ! x : P(x) <- Q(x). }
    { ! x : Same(x, x) <- R(x, x). }
    ~(? x : ~(P(x) | ~~Q(x))).
    ! x : ~(R(x, x) & (Q(x) => P(F(x)))).
    Many <=> #{ x : Q(x) } >= 2.
}
structure S : V { }
";

fn out(test: &str, chunk: &str) -> String {
    let r = run(test, SPEC, chunk);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// Checked by hand against IDP3's `ReplaceDefinitionsWithCompletion`: per definition, the
/// head variables of each defined symbol first (`var1` for P; `var5 var6` for Same), then per
/// rule its unnested head terms (`var2` for `a` in `P(a)`, `var7` for the repeated `x` of
/// `Same(x, x)`, their equalities in front of the body, no `true &`) and the new variables of
/// its sentence `! y : ~body | head`; after the rules, one sentence per symbol, head implies
/// the disjunction of its bodies. The definitions are gone; the procedure returns nil and
/// changes its argument.
#[test]
fn completion_prints_as_checked_by_hand() {
    let o = out(
        "completion",
        "local C = clone(T)\nprint(completion(C))\nprint(C)",
    );
    assert_eq!(
        o,
        "nil
theory T : V {
  ~(? x[D] : ~(P(x) | ~~Q(x))).
  (! x[D] : ~(R(x,x) & (Q(x) => P(F(x))))).
  (Many <=> (card{ x[D] : Q(x) } >= 2)).
  (! var3[D] : (~(var3 = a) | P(var3))).
  (! var4[D] : (~Q(var4) | P(var4))).
  (! var1[D] : (~P(var1) | ((var1 = a) | Q(var1)))).
  (! var8[D] var9[D] : (~((var9 = var8) & R(var8,var8)) | Same(var8,var9))).
  (! var5[D] var6[D] : (~Same(var5,var6) | ((var6 = var5) & R(var5,var5)))).
}

"
    );
}

/// Function heads with elements and a repeated variable: `F(1) = 2` and
/// `! x : F(x) = x <- Q(x)`. The theory uses `var1` and `var3`, so F's head variables are
/// `var2 var4`; the first rule unnests `1` and `2` (`var5 var6`, of F's sort `N`, without the
/// resolver's check `N(1)`), its sentence has `var7 var8`; the second unnests the repeated `x`
/// (`var9`), its sentence has `var10 var11`.
#[test]
fn completion_unnests_elements_and_skips_names_in_use() {
    let spec = "vocabulary V {
    type N = { 1..2 } isa int
    Q(N)
    F(N) : N
}
theory T : V {
    { F(1) = 2.
      ! x : F(x) = x <- Q(x). }
    ! var1 var3 : Q(var1) | Q(var3).
}
structure S : V { }
";
    let r = run("completionelems", spec, "completion(T) print(T)");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "theory T : V {
  (! var1[N] var3[N] : (Q(var1) | Q(var3))).
  (! var7[N] var8[N] : (~((var7 = 1) & (var8 = 2)) | (F(var7) = var8))).
  (! var10[N] var11[N] : (~((var11 = var10) & Q(var10)) | (F(var10) = var11))).
  (! var2[N] var4[N] : (~(F(var2) = var4) | (((var2 = 1) & (var4 = 2)) | ((var4 = var2) & Q(var2))))).
}

"
    );
}

#[test]
fn completion_of_reachability_prints_as_checked_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = support::idp_command()
        .current_dir(root)
        .args([
            "--nowarnings",
            "examples/reachability.idp",
            "-e",
            "completion(T) print(T)",
        ])
        .output()
        .expect("the idp binary runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "theory T : V {
  (! var3[Node] var4[Node] : (~Edge(var3,var4) | Reach(var3,var4))).
  (! var5[Node] var6[Node] : (~(? z[Node] : (Reach(var5,z) & Edge(z,var6))) | Reach(var5,var6))).
  (! var1[Node] var2[Node] : (~Reach(var1,var2) | (Edge(var1,var2) | (? z[Node] : (Reach(var1,z) & Edge(z,var2)))))).
}

"
    );
}

/// Negations in front of atoms only (`~(R & (Q => P))` is `~R | (Q & ~P)`), then nothing to
/// flatten; removenesting moves `F(x)` out of `P(F(x))`; removecardinalities writes "at least
/// two" as two different members.
#[test]
fn shape_transformations_print_as_idp3() {
    let o = out(
        "shape",
        "local C = clone(T) pushnegations(C) flatten(C) print(C)
local N = clone(T) removenesting(N) local K = clone(T) removecardinalities(K, 0)
print(N) print(K)",
    );
    let sentences = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("  (") || l.starts_with("  ~"))
            .map(str::to_string)
            .collect()
    };
    let all = sentences(&o);
    assert!(
        all.contains(&"  (! x[D] : (P(x) | Q(x))).".to_string()),
        "{o}"
    );
    assert!(
        all.contains(&"  (! x[D] : (~R(x,x) | (Q(x) & ~P(F(x))))).".to_string()),
        "{o}"
    );
    assert!(
        all.contains(
            &"  (! x[D] : ~(R(x,x) & (Q(x) => (? var1[D] : ((var1 = F(x)) & P(var1))))))."
                .to_string()
        ),
        "{o}"
    );
    assert!(
        all.contains(
            &"  (Many <=> (? var1[D] var2[D] : (Q(var1) & Q(var2) & (var2 ~= var1)))).".to_string()
        ),
        "{o}"
    );
}

/// Checked by hand against IDP3's `IDPPrinter` for a `GroundTheory`: no `theory` header, the
/// true literal's unit clause `tseitin_1.` first, then the four edges of
/// examples/graph-colouring.idp times three colours, one clause each, with the function's
/// atoms as IDP3's `printAtom` writes them (`~Colouring[Vertex,Colour](1) = "blue"`).
#[test]
fn ground_of_graph_colouring_prints_as_checked_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |chunk: &str| {
        let out = support::idp_command()
            .current_dir(root)
            .args(["--nowarnings", "examples/graph-colouring.idp", "-e", chunk])
            .output()
            .expect("the idp binary runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut expected = String::from("tseitin_1.\n");
    for (a, b) in [(1, 2), (1, 3), (2, 4), (3, 4)] {
        for c in ["blue", "green", "red"] {
            expected.push_str(&format!(
                "~Colouring[Vertex,Colour]({a}) = \"{c}\" | ~Colouring[Vertex,Colour]({b}) = \"{c}\".\n"
            ));
        }
    }
    assert_eq!(run("printgrounding(T, S)"), expected);
    assert_eq!(run("print(ground(T, S))"), format!("{expected}\n"));
    assert_eq!(run("print(type(ground(T, S)))"), "theory\n");
    // Rewritten, a ground theory prints as a theory again.
    let rewritten = run("local G = ground(T, S) flatten(G) print(G)");
    assert!(
        rewritten.starts_with("theory T : V {\n  ((Colouring(1) ~= \"blue\")"),
        "{rewritten}"
    );
}

/// A definition with known input is evaluated: its ground form lists the true atoms; an open
/// definition keeps one ground rule per defined atom. `print(ground(T, S))` puts each
/// definition in braces, its rules by head atom number (`Marked(3)` is atom 2, from the
/// sentence); `printgrounding` prints the rules as they are made, without braces.
#[test]
fn ground_definitions_print_as_checked_by_hand() {
    let spec = "vocabulary V {
    type N isa int
    Edge(N, N)
    Reach(N, N)
    Start(N)
    Marked(N)
}
theory T : V {
    { ! x y : Reach(x, y) <- Edge(x, y).
      ! x y : Reach(x, y) <- ? z : Reach(x, z) & Edge(z, y). }
    { ! x : Marked(x) <- Start(x).
      ! x : Marked(x) <- ? y : Marked(y) & Edge(y, x). }
    Marked(3).
}
structure S : V { N = { 1..3 } Edge = { 1,2; 2,3 } }
";
    let r = run(
        "grounddefs",
        spec,
        "printgrounding(T, S) print(\"--\") print(ground(T, S))",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "tseitin_1.
Marked[N](3).
Reach[N,N](1,2) <- true.
Reach[N,N](1,3) <- true.
Reach[N,N](2,3) <- true.
Marked[N](1) <- Start[N](1).
Marked[N](2) <- Start[N](2) | Marked[N](1).
Marked[N](3) <- Start[N](3) | Marked[N](2).
--
tseitin_1.
Marked[N](3).
{
Reach[N,N](1,2) <- true.
Reach[N,N](1,3) <- true.
Reach[N,N](2,3) <- true.
}
{
Marked[N](3) <- Start[N](3) | Marked[N](2).
Marked[N](1) <- Start[N](1).
Marked[N](2) <- Start[N](2) | Marked[N](1).
}

"
    );
}

/// Tseitins, checked by hand against IDP3's `GroundTheory::addTseitinInterpretations` and
/// `GroundEquivalence::getClauses`. Atoms are numbered as met, a Tseitin after its parts:
/// P(1)=2, Q(1)=3, C=1 is 4, R(1)=5, tseitin_6 for `C = 1 | R(1)`, tseitin_7 for
/// `Q(1) & tseitin_6`. The clause comes first, then its Tseitins' clauses breadth first:
/// `ts <=> a & b` as `ts | ~a | ~b.` `~ts | a.` `~ts | b.`; `ts <=> a | b` as `~ts | a | b.`
/// `ts | ~a.` `ts | ~b.`. Without model equivalence (`printgrounding(T, S, false)`) only the
/// implications `~ts | ...`. In a definition a Tseitin is a rule of the definition: streamed
/// before the rule that uses it, stored by atom number.
#[test]
fn ground_tseitins_print_as_checked_by_hand() {
    let spec = "vocabulary V {
    type N isa int
    P(N)
    Q(N)
    R(N)
    C : N
}
theory T : V {
    ! x : P(x) | (Q(x) & (R(x) | C = x)).
    { ! x : R(x) <- P(x) & (Q(x) | x = C). }
}
structure S : V { N = { 1..2 } }
";
    let r = run(
        "groundtseitins",
        spec,
        "printgrounding(T, S) print(\"--\") print(ground(T, S)) print(\"--\")
printgrounding(T, S, false)",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let clauses = "tseitin_1.
P[N](1) | tseitin_7.
tseitin_7 | ~Q[N](1) | ~tseitin_6.
~tseitin_7 | Q[N](1).
~tseitin_7 | tseitin_6.
~tseitin_6 | C[N] = 1 | R[N](1).
tseitin_6 | ~C[N] = 1.
tseitin_6 | ~R[N](1).
P[N](2) | tseitin_13.
tseitin_13 | ~Q[N](2) | ~tseitin_12.
~tseitin_13 | Q[N](2).
~tseitin_13 | tseitin_12.
~tseitin_12 | C[N] = 2 | R[N](2).
tseitin_12 | ~C[N] = 2.
tseitin_12 | ~R[N](2).
";
    let streamed_rules = "tseitin_14 <- Q[N](1) | C[N] = 1.
R[N](1) <- P[N](1) & tseitin_14.
tseitin_15 <- C[N] = 2 | Q[N](2).
R[N](2) <- P[N](2) & tseitin_15.
";
    let expected = format!(
        "{clauses}{streamed_rules}--
{clauses}{{
R[N](1) <- P[N](1) & tseitin_14.
R[N](2) <- P[N](2) & tseitin_15.
tseitin_14 <- Q[N](1) | C[N] = 1.
tseitin_15 <- C[N] = 2 | Q[N](2).
}}

--
tseitin_1.
P[N](1) | tseitin_7.
~tseitin_7 | Q[N](1).
~tseitin_7 | tseitin_6.
~tseitin_6 | C[N] = 1 | R[N](1).
P[N](2) | tseitin_13.
~tseitin_13 | Q[N](2).
~tseitin_13 | tseitin_12.
~tseitin_12 | C[N] = 2 | R[N](2).
{streamed_rules}"
    );
    assert_eq!(r.stdout, expected);
}

/// Argument checks: the Lua-written procedures name the wrong argument (where IDP3 writes
/// `Error: ... expected`), the internal ones list their signatures as IDP3's do.
#[test]
fn arguments_are_checked_as_idp3_does() {
    let r = run("groundargs", SPEC, "print(ground(1, S))");
    assert_eq!(
        r.stderr,
        "Error: ground: argument 1 should be a theory, not an integer\n"
    );
    let r = run("printgroundingargs", SPEC, "printgrounding(T, 2)");
    assert_eq!(
        r.stderr,
        "Error: printgrounding: argument 2 should be a structure, not an integer\n"
    );
    let r = run("completionargs", SPEC, "completion(S)");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("There is no procedure completion with the provided arguments <structure>"),
        "{}",
        r.stderr
    );
    let r = run("cardargs", SPEC, "removecardinalities(T)");
    assert!(
        r.stderr.contains("\tremovecardinalities(theory, number)"),
        "{}",
        r.stderr
    );
}

/// Checked by hand against IDP3's `UnnestTerms::visit(QuantSetExpr*)`: the set's term is
/// visited where unnesting is allowed, innermost first (`G(x)` is `var1`, `F(var1)` is `var2`,
/// `var2 + 1` is `var3`, of sort int), the new variables join the set's and their equalities
/// go in front of its condition; outside, `P(F(1))` moves `F(1)`. The models stay.
#[test]
fn removenesting_moves_set_terms_into_the_set() {
    let spec = "vocabulary V {
    type N isa int
    P(N)
    F(N) : N
    G(N) : N
    Big
}
theory T : V {
    Big <=> sum{ x : P(x) : F(G(x)) + 1 } > 3.
    P(F(1)).
}
structure S : V { N = { 1..2 } }
";
    let r = run(
        "nestingsets",
        spec,
        "stdoptions.nbmodels = 0 local before = #modelexpand(T, S) removenesting(T) print(T)
print(before, #modelexpand(T, S))",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "theory T : V {
  (Big <=> (sum{ x[N] var1[N] var2[N] var3[int] : ((var1 = G(x)) & (var2 = F(var1)) & (var3 = (var2 + 1)) & P(x)) : var3 } > 3)).
  (? var4[N] : ((var4 = F(1)) & P(var4))).
}

32\t32
"
    );
}

/// IDP3's `CardConstrToFO`: the threshold is the only limit. With 0 every comparison is
/// unfolded (`< 1` is "not at least one"), however large its bound (300 here; IDP3 has no cap);
/// with 3 the comparison whose bound times variables is 2 is unfolded; with 1 neither is.
#[test]
fn removecardinalities_follows_the_threshold_only() {
    let spec = "vocabulary V {
    type D = { 1..3 } isa int
    Q(D)
    R(D, D)
    Many
    Few
    Lots
}
theory T : V {
    Many <=> #{ x : Q(x) } >= 2.
    Few <=> #{ x y : R(x, y) } < 1.
    Lots <=> #{ x : Q(x) } >= 300.
}
structure S : V { }
";
    let r = run(
        "cardthreshold",
        spec,
        "local function tr(n) local c = clone(T) removecardinalities(c, n) return c end
print(tr(3)) print(tr(1))
stdoptions.nbmodels = 0
local all = tr(0)
print(#modelexpand(T, S), #modelexpand(all, S), string.find(tostring(all), 'card') == nil)",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "theory T : V {
  (Many <=> (? var1[D] var2[D] : (Q(var1) & Q(var2) & (var2 ~= var1)))).
  (Few <=> ~(? var3[D] var4[D] : R(var3,var4))).
  (Lots <=> (card{ x[D] : Q(x) } >= 300)).
}

theory T : V {
  (Many <=> (card{ x[D] : Q(x) } >= 2)).
  (Few <=> (card{ x[D] y[D] : R(x,y) } < 1)).
  (Lots <=> (card{ x[D] : Q(x) } >= 300)).
}

4096\t4096\ttrue
"
    );
}

/// A bound whose unfolding could not fit in memory (5 * 10^10 parts) stops with the grounding
/// size limit's error and leaves the theory as it was, where IDP3 would run out of memory.
#[test]
fn removecardinalities_stops_at_the_size_limit() {
    let spec = "vocabulary V {
    type D = { 1..3 } isa int
    Q(D)
    Many
}
theory T : V {
    Many <=> #{ x : Q(x) } >= 300000.
}
structure S : V { }
";
    let r = run(
        "cardlimit",
        spec,
        "print(pcall(removecardinalities, T, 0)) print(T)",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("false\t")
            && r.stdout.contains("would pass the grounding size limit")
            && r.stdout
                .contains("(Many <=> (card{ x[D] : Q(x) } >= 300000))."),
        "{}",
        r.stdout
    );
}
