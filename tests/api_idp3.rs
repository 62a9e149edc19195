//! IDP3 3.6's user API as IDP3 defines it (`data/share/std/idp_intern.idp`,
//! `src/external/commands/*.hpp`, `src/lua/luaconnection.cpp`, `src/options.cpp` of IDP3):
//! exact outputs and messages of the procedures, the argument checks of the Lua-written
//! inferences and of the internal procedures, and the options.

mod support;

use support::run;

const SPEC: &str = "vocabulary V {\n  type T isa int\n  P(T)\n  Q(T, T)\n  c : T\n}\ntheory Th : V { ? x : P(x). }\nterm t : V { c }\nstructure S : V { T = { 1..3 } }\n";

fn out(test: &str, chunk: &str) -> String {
    let r = run(test, SPEC, chunk);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn vocabulary_procedures() {
    let o = out(
        "voc",
        "print(#gettypes(V), name(gettypes(V)[1]), #getpredicates(V), #getfunctions(V))\nprint(name(V::P), name(V::c), name(V::T))\nlocal ty = gettyping(V::Q)\nprint(#ty, name(ty[1]), name(gettyping(V::c)[1]))\nprint(type(vocabulary.gettypes), type(structure.clone), type(inferences.modelexpand), type(stdspace.help))",
    );
    assert_eq!(
        o,
        "1\tT\t2\t1\nP\tc\tT\n2\tT\tT\nfunction\tfunction\tfunction\tfunction\n"
    );
}

#[test]
fn names_and_new_vocabularies() {
    let o = out(
        "names",
        "print(getname(S), getname(Th))\nsetname(S, 'X') setname(Th, 'Y')\nprint(getname(S), getname(Th))\nlocal W = newvocabulary('W')\nprint(type(W))\nprint(W)",
    );
    assert_eq!(o, "S\tTh\nX\tY\nvocabulary\nvocabulary W {\n}\n\n");
}

#[test]
fn equal_on_values_tuples_and_structures() {
    let o = out(
        "equal",
        "print(equal(1, 1), equal(2.5, 2.5), equal('a', 'b'), equal(true, true))\nlocal m = modelexpand(Th, S)[1]\nprint(equal(m, m), equal(m, S), equal(createdummytuple(), createdummytuple()))",
    );
    assert_eq!(o, "true\ttrue\tfalse\ttrue\ntrue\tfalse\ttrue\n");
    // An integer and a float are numbers of different internal types: no equal for them.
    let r = run("equalmix", SPEC, "print(equal(1, 2.5))");
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "Error: There is no procedure equal with the provided arguments <number,number>\nDid you intend to use:\n\tequal(compound, compound)\n\tequal(tuple, tuple)\n\tequal(structure, structure)\n\tequal(number, number)\n\tequal(number, number)\n\tequal(boolean, boolean)\n\tequal(string, string)\n\n\n");
}

#[test]
fn callable_predicate_tables_and_assigned_interpretations() {
    let o = out(
        "predtable",
        "local S2 = newstructure(V, 'S2')\nS2[V::T.type] = { 1, 2, 3 }\nS2[V::P] = { 2 }\nlocal S3 = clone(S2)\nS3[V::P] = S2[V::P]\nprint(S3[V::P].ct(2), S3[V::P].ct(3), S3[V::P].cf(3))\nprint(nrtwovaluedatoms(S2))",
    );
    // Types: 3 atoms; P two-valued: 3 atoms; Q and c open.
    assert_eq!(o, "true\tfalse\ttrue\n6\n");
}

#[test]
fn two_valued_extensions_are_structures() {
    let o = out(
        "ext",
        "local S2 = newstructure(V, 'S2')\nS2[V::T.type] = { 1, 2 }\nS2[V::Q] = {}\nS2[V::c] = { { 1 } }\nstdoptions.nbmodels = 0\nlocal all = nbModelsTwoValuedExtensions(S2)\nprint(#all, type(all[1]))\nstdoptions.nbmodels = 3\nprint(#nbModelsTwoValuedExtensions({ S2, S2 }))",
    );
    assert_eq!(o, "4\tstructure\n3\n");
}

/// A constructor is interpreted by its constructed type, not by a table of the structure, so a
/// structure that interprets everything else is its own only two-valued extension.
#[test]
fn constructors_do_not_make_a_structure_partial() {
    let spec = "vocabulary V {\n  type C constructed from { a, b }\n  P(C)\n}\nstructure S : V {\n  P = { a }\n}\n";
    let r = run(
        "ctorext",
        spec,
        "stdoptions.nbmodels = 0\nlocal all = nbModelsTwoValuedExtensions(S)\nprint(#all, equal(all[1], S))",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "1\ttrue\n");
}

#[test]
fn maximize_returns_idp3s_values() {
    // IDP3's maximize minimises the negated term, and returns that minimum.
    let o = out("max", "local ms, opt, v = maximize(Th, S, t)\nprint(#ms, opt, v, ms[1][V::c]())\nlocal ms2, opt2, v2 = minimize(Th, S, t)\nprint(#ms2, opt2, v2)");
    assert_eq!(o, "1\ttrue\t-3\t3\n1\ttrue\t1\n");
}

/// `minimize(T, S, t, Vout)` shows Vout and the symbols of the term (IDP3's
/// `calculateOutputVocabulary`), as `modelexpand(T, S, Vout)` shows Vout.
#[test]
fn minimize_shows_the_output_vocabulary_and_the_terms_symbols() {
    let spec = "vocabulary V {\n  type T isa int\n  P(T)\n  Q(T)\n  c : T\n}\nvocabulary Vout {\n  extern V::P/1\n}\ntheory Th : V {\n  ? x : P(x).\n  ! x : Q(x) <=> ~P(x).\n  c = #{ x : P(x) }.\n}\nterm t : V { c }\nstructure S : V { T = { 1..3 } }\n";
    let r = run(
        "minvout",
        spec,
        "print(minimize(Th, S, t, Vout)[1])\nprint(modelexpand(Th, S, Vout)[1])",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (min, mx) = r.stdout.split_once("\n}\n").expect("two structures");
    // Each of the three singletons is optimal; the search picks one.
    let optimal = (1..=3)
        .map(|x| format!("structure  : Vout {{\n  T = {{ 1..3 }}\n  P = {{ {x} }}\n  c = 1"))
        .any(|expected| min == expected);
    assert!(optimal, "not an optimal model over Vout and c:\n{min}");
    assert!(
        mx.trim_start()
            .starts_with("structure  : Vout {\n  T = { 1..3 }\n  P = { "),
        "{mx}"
    );
    assert!(!mx.contains("c ="), "{mx}");
}

/// Where IDP3's Lua-written inferences write `Error: theory expected` and go on, a wrong
/// argument stops the chunk (exit code 1), naming the argument and what was given (issue 30).
#[test]
fn lua_written_inferences_check_their_arguments() {
    for (chunk, message) in [
        ("print(modelexpand(1, S))", "modelexpand: argument 1 should be a theory, not an integer"),
        ("print(onemodel(Th, 2))", "modelexpand: argument 2 should be a structure, not an integer"),
        ("print(minimize(Th, S, 3))", "minimize: argument 3 should be a term, not an integer"),
        ("print(propagate(S, Th))", "propagate: argument 1 should be a theory, not the structure S\n  hint: the arguments are in the wrong order; write propagate(Th, S)"),
    ] {
        let r = run("wrappers", SPEC, &format!("{chunk}\nprint('after')"));
        assert_eq!(r.code, 1, "{chunk}");
        assert_eq!(r.stdout, "", "{chunk}");
        assert_eq!(r.stderr, format!("Error: {message}\n"), "{chunk}");
    }
}

#[test]
fn internal_procedures_stop_the_chunk_on_wrong_arguments() {
    let r = run(
        "internal",
        SPEC,
        "print('before')\nmerge(1, S)\nprint('after')",
    );
    assert_eq!(r.stdout, "before\n");
    assert_eq!(r.stderr, "Error: There is no procedure merge with the provided arguments <number,structure>\nDid you intend to use:\n\tmerge(structure, structure)\n\tmerge(theory, theory)\n\n\n");
    assert_eq!(r.code, 1);
}

#[test]
fn options_refuse_unknown_names_and_invalid_values() {
    let r = run("optname", SPEC, "stdoptions.foo = 1");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("There is no option named foo."),
        "{}",
        r.stderr
    );
    let r = run("optread", SPEC, "print(stdoptions.foo)");
    assert_eq!(r.stderr, "Error: Requesting non-existing option foo\n");
    let r = run("optrange", SPEC, "stdoptions.nbmodels = -1");
    assert!(r.stderr.contains("Error: \"-1\" is not a valid value for option nbmodels.\n\tnbmodels = 1\n\t\t => between 0 and 2147483647.\n.\n"), "{}", r.stderr);
    let r = run("optenum", SPEC, "stdoptions.language = 'xx'");
    assert!(r.stderr.contains("\"xx\" is not a valid value for option language.\n\tlanguage = idp\n\t\t => one of [\"asp\", \"ecnf\", \"flatzinc\", \"idp\", \"idp2\", \"tptp\"]\n.\n"), "{}", r.stderr);
    let r = run("opttype", SPEC, "stdoptions.trace = 1");
    assert!(r.stderr.contains("Wrong option value type for option trace.\n\ttrace = false\n\t\t => one of [false, true]\n.\n"), "{}", r.stderr);
}

#[test]
fn asp_language_prints_facts() {
    let o = out("asp", "local m = newstructure(V, 'M')\nm[V::T.type] = { 1, 2 }\nm[V::P] = { 2 }\nm[V::Q] = { { 1, 2 } }\nm[V::c] = { { 1 } }\nstdoptions.language = 'asp'\nprint(m)");
    assert_eq!(o, "T(1).T(2).\nP(2).\nQ(1,2).\nc(1).\n\n");
}

#[test]
fn verbosity_grounding_announces_the_extension() {
    let r = run(
        "verb",
        SPEC,
        "stdoptions.verbosity.grounding = 1\nmodelexpand(Th, S)",
    );
    assert!(
        r.stderr
            .contains("Extending partial models to full models\n"),
        "{}",
        r.stderr
    );
}

/// The other `verbosity.*` levels above 0 turn on the statistics lines of the inference (as
/// `--stats`), on stderr; at 0 nothing is printed.
#[test]
fn verbosity_levels_print_the_statistics_lines() {
    for option in ["solving", "grounding", "propagation"] {
        let r = run(
            "verbstats",
            SPEC,
            &format!("stdoptions.verbosity.{option} = 1\nmodelexpand(Th, S)"),
        );
        assert!(
            r.stderr.contains("[stats] SAT call: Sat"),
            "{option}: {}",
            r.stderr
        );
    }
    let r = run("verbquiet", SPEC, "modelexpand(Th, S)");
    assert_eq!(r.stderr, "");
}

#[test]
fn table_utils() {
    let spec = format!("include <table_utils>\n{SPEC}");
    let r = run("tables", &spec, "for c in tablecombo({ 'a', 'b', 'c' }, 2) do io.write(tabletostring(c), ' ') end\nprint()\nprint(tabletostring({ 1, 'x', k = true, { 2 } }), tablecontains({ 4, 5 }, 5), tablekey_to_str('a b'))\nprint(1)");
    assert_eq!(r.stderr, "");
    assert!(
        r.stdout.starts_with(
            "{\"a\",\"b\"} {\"a\",\"c\"} {\"b\",\"c\"} \n{1,\"x\",{2},k=true}\ttrue\t[\"a b\"]\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn data_directory_for_the_standard_library() {
    let dir = support::scratch("datadir-lib");
    std::fs::create_dir_all(dir.join("share/std")).unwrap();
    std::fs::write(
        dir.join("share/std/mine.idp"),
        "procedure mine() { return 42 }\n",
    )
    .unwrap();
    let spec = format!("include <mine>\n{SPEC}");
    let r = support::run_with(
        "datadir",
        &spec,
        "print(mine())",
        &["-d", dir.to_str().unwrap()],
    );
    assert_eq!(r.stdout, "42\n", "{}", r.stderr);
}

/// `parse(file)` (IDP3's `parse.hpp`): the file's blocks join the program while the procedure
/// runs, over the vocabularies declared before, and are globals from then on.
#[test]
fn parse_adds_the_blocks_of_a_file() {
    let dir = support::scratch("parse-more");
    std::fs::write(
        dir.join("more.idp"),
        "structure S2 : V {\n  T = { 1..2 }\n  P = { 2 }\n}\ntheory T2 : V { ! x : P(x) => c = x. }\nprocedure twice(x) { return 2 * x }\nnamespace N {\n  procedure inner() { return twice(21) }\n}\n",
    )
    .unwrap();
    let r = support::run_with(
        "parse",
        SPEC,
        "parse(\"../parse-more/more.idp\")\nprint(getname(S2), twice(4), N.inner())\nlocal m = modelexpand(T2, S2)[1]\nprint(m[V::c]())",
        &["--nowarnings"],
    );
    assert_eq!(r.stderr, "");
    assert_eq!(r.stdout, "S2\t8\t42\n2\n");
    assert_eq!(r.code, 0);
}

/// IDP3's messages: a missing file, and a component declared again; the procedure goes on and
/// the run ends with exit code 1.
#[test]
fn parse_reports_errors_and_goes_on() {
    let dir = support::scratch("parse-again");
    std::fs::write(dir.join("again.idp"), "structure S : V {\n  T = { 1 }\n}\n").unwrap();
    let r = support::run_with(
        "parse-errors",
        SPEC,
        "parse(\"nothere.idp\")\nparse(\"../parse-again/again.idp\")\nprint(\"after\")",
        &["--nowarnings"],
    );
    assert_eq!(r.stdout, "after\n");
    assert!(
        r.stderr
            .starts_with("Error: Could not open file nothere.idp.\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("Structure S is already declared in this scope"),
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 1);
}

/// `parse` reads a file, so `--sandbox` refuses it like `io.open`.
#[test]
fn parse_is_refused_in_the_sandbox() {
    let r = support::run_with("parse-sandbox", SPEC, "parse(\"spec.idp\")", &["--sandbox"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("parse is not allowed in --sandbox mode"),
        "{}",
        r.stderr
    );
}

/// `<createStructureFromFile>`: a file of interpretations becomes the structure S over V.
#[test]
fn create_structure_from_file() {
    let dir = support::scratch("csff-data");
    std::fs::write(dir.join("s.txt"), "T = { 1..3 }\nP = { 1; 3 }\n").unwrap();
    std::fs::write(dir.join("f.lp"), "T(1). T(2). P(2).\n").unwrap();
    let spec = "include <createStructureFromFile>\nvocabulary V {\n  type T isa int\n  P(T)\n}\n";
    let r = run(
        "csff",
        spec,
        "local s = createStructureFromFile(\"../csff-data/s.txt\")\nprint(s)\nprint(equal(s, S))",
    );
    assert_eq!(r.stderr, "");
    assert_eq!(
        r.stdout,
        "structure S : V {\n  T = { 1..3 }\n  P = { 1; 3 }\n}\n\ntrue\n"
    );
    let r = run(
        "csff-asp",
        spec,
        "print(createStructureFromFile(\"../csff-data/f.lp\", true)[V::P].ct(2))",
    );
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("true\n", ""));
    let r = run(
        "csff-none",
        spec,
        "print(createStructureFromFile(\"none.txt\"))",
    );
    assert_eq!(r.stderr, "File none.txt does not exist.");
    assert_eq!(r.stdout, "nil\n");
}

/// `randomvaluechoice` with `seed` (IDP3's options for its solver): each search prefers random
/// values, so different seeds give different models, and one seed always the same model;
/// without `randomvaluechoice` the seed changes nothing.
#[test]
fn seed_and_random_value_choice_change_the_model() {
    let spec = "vocabulary V {\n  type T isa int\n  P(T)\n}\ntheory Th : V { #{ x : P(x) } = 6. }\nstructure S : V { T = { 1..12 } }\n";
    let models = |random: bool| {
        let chunk = format!(
            "stdoptions.randomvaluechoice = {random}\nfor seed = 1, 8 do\n  stdoptions.seed = seed\n  print(modelexpand(Th, S)[1])\n  print('--')\nend"
        );
        let r = run("seed", spec, &chunk);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
            .split("--\n")
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let random = models(true);
    assert_eq!(random.len(), 8);
    let mut distinct = random.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 4, "{distinct:?}");
    assert_eq!(models(true), random, "the same seeds give the same models");
    let plain = models(false);
    assert!(plain.iter().all(|m| *m == plain[0]), "{plain:?}");
}
