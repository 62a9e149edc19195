//! The differential test of the formal grammar (`grammar/idp.pest`) against the hand-written
//! parser (`src/syntax`): every `.idp` file of `tests/corpus`, `specs/`, `examples/` and IDP3's
//! conformance tests (`../shared/conformance`, next to the checkout) is parsed by both, per file
//! and on the parse stage only (an `include` includes nothing), and the two must agree on
//! accepting or rejecting it and, when both accept, on its shape: the sequence of blocks with
//! their kinds and names, every declaration, interpretation and fact, and every sentence and
//! rule with its formulas and terms fully bracketed (`idp::syntax::grammar::shape`).
//!
//! Where they disagreed, IDP3's `lex.ll` and `parser.yy` decided; each disagreement found is a
//! file in `tests/corpus` (see FUZZING.md for those the fuzz target `grammar_diff` found).

use std::path::{Path, PathBuf};

use idp::syntax::grammar::{check, compare, Agreement, Verdict};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "idp") {
            out.push(path);
        }
    }
}

/// The files under the repository's own folders, and the conformance files if present.
fn files() -> (Vec<PathBuf>, bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["tests/corpus", "specs", "examples"] {
        collect(&root.join(dir), &mut out);
    }
    let conformance = root.join("../shared/conformance");
    let present = conformance.join("tests").is_dir();
    collect(&conformance.join("tests"), &mut out);
    collect(&conformance.join("harness"), &mut out);
    out.sort();
    (out, present)
}

#[test]
fn every_file_gets_the_same_verdict_and_shape_from_both_parsers() {
    let (files, conformance) = files();
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("a readable file");
        let text = String::from_utf8(bytes).expect("the test files are UTF-8");
        match compare(&path.display().to_string(), &text) {
            Ok(Agreement::Accepted) => accepted += 1,
            Ok(Agreement::Rejected) => rejected += 1,
            Ok(Agreement::Skipped) => skipped += 1,
            Err(d) => disagreements.push(d.to_string()),
        }
    }
    println!(
        "{} files: {accepted} accepted by both, {rejected} rejected by both, {skipped} skipped, {} disagreements",
        files.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreement(s):\n{}",
        disagreements.len(),
        disagreements.join("\n\n")
    );
    assert_eq!(skipped, 0, "no real file is nested too deeply");
    let least = if conformance { 500 } else { 100 };
    assert!(accepted >= least, "only {accepted} files accepted by both");
    assert!(rejected >= 30, "only {rejected} files rejected by both");
}

/// A small file's shape, as both parsers write it.
#[test]
fn the_shape_writes_out_blocks_sentences_and_rules() {
    let text = "vocabulary V {\n type T isa int\n P(T)\n partial F(T) : T\n}\n\
        theory Th : V {\n ! x : P(x) => F(x) = x + 1 * 2 | ~P(x).\n { P(x) <- ? y : y = -(x, 1). }\n}\n\
        structure S : V {\n T = {1..3}\n P<ct> = {1; 2}\n F = {1->2; 2->3}\n}\n\
        procedure main() {\n print(V::P) // gone\n}\n";
    let expected = vec![
        "vocabulary V",
        "  type T isa(int) contains()",
        "  pred P(T)",
        "  partial func F(T):T",
        "theory Th : V",
        "  sentence (! x : (P(x) => ((F(x) = (x + (1 * 2))) | ~P(x))))",
        "  definition",
        "    rule !  : P(x) <- (? y : (y = (x - 1)))",
        "structure S : V",
        "  T = {1..3}",
        "  P<ct> = {1;2}",
        "  F = {(1)->2;(2)->3}",
        "procedure main()",
        "  body \"\\n print(V.P) \\n\"",
    ];
    assert_eq!(
        check(text),
        Verdict::Accepted(expected.iter().map(|s| s.to_string()).collect())
    );
    assert_eq!(compare("shape.idp", text), Ok(Agreement::Accepted));
}

#[test]
fn a_rejected_text_is_rejected_by_both() {
    for text in [
        "vocabulary V { type T }\n",
        "theory T : V {\n P(x) Q(x).\n}\n",
        "structure S : V {\n P = {1; 2,3}\n}\n",
        "procedure p() {\n",
    ] {
        assert!(matches!(check(text), Verdict::Rejected(_)), "{text}");
        assert_eq!(compare("bad.idp", text), Ok(Agreement::Rejected), "{text}");
    }
}

/// The inputs on which the fuzz target `grammar_diff` found the parsers disagreeing
/// (FUZZING.md), exactly as found: they agree now.
#[test]
fn fuzz_findings_agree() {
    let findings = [
        // 1: a keyword glued to `using namespace` was taken for a name.
        ("crash-15bf0849", "using namespaceusing ", Agreement::Rejected),
        // 2: the grammar split IDP3's token `extern vocabulary` (`extern vocabulary::p/0`).
        ("crash-bc97b56c", "vocabulary V{\n\tpn\n\tq\n}\n\nvocabulary Vout{\n\textern vocabulary::p/0\n\textern V::q/0\n}\n\ntheory T:V{\n\t{\n\t\tpn <- p(15789).p(x).\n\t}\n}\n\nstructure S:V{\n\tx = {-1000000000..1000000000}\n}\n\nprocedure getExpectedNbOfModels(){\n\t2  structure �rue;\n\n}", Agreement::Rejected),
    ];
    for (name, text, expected) in findings {
        assert_eq!(compare(name, text), Ok(expected), "{name}");
    }
}
