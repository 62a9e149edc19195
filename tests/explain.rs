//! Explanations of theories without a model, on the slips students make (`tests/explain/`):
//! each file's core, as `idp -n 1 --explain` and as IDP3's `printunsatcore` print it, is
//! exactly the one in its `.expected` file (`IDP_BLESS=1` writes them anew, to be read before
//! committing); the same run twice prints the same; and every core is minimal: the core's
//! instances, definitions and facts have no model, and leaving out any one of them gives one;
//! the functions whose totality it names are those that, made partial, give it a model, and
//! the types it names those that, given more elements, give its sentences a model. With no
//! time to narrow a core down (`IDP_EXPLAIN_BUDGET=0`, as a loaded machine may give), every
//! core is still correct and minimal in its whole parts, names every function and type it
//! needs, and says what stayed whole.

mod support;

use std::path::{Path, PathBuf};

use idp::error::ErrorKind;
use idp::ids::{FuncId, SortId};
use idp::infer::{self, Options};
use idp::infer::{enlarged, unsat_core, Core, Facts, Piece};
use idp::sema::{Component, Program, Theory};
use idp::structure::{Structure, Table};
use support::program_file as program;

fn specs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/explain")
        .expect("tests/explain exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "idp"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 46,
        "at least 46 specs, found {}",
        files.len()
    );
    files
}

fn stdout_of(args: &[&str]) -> String {
    let out = support::idp_command()
        .args(args)
        .output()
        .expect("idp runs");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// What both ways of asking print for one spec.
fn explanations(file: &Path) -> String {
    let path = file.to_str().expect("utf-8 path");
    let cli = stdout_of(&["-n", "1", "--explain", path]);
    let lua = stdout_of(&["-e", "printunsatcore(T, S)", path]);
    format!("--- idp -n 1 --explain\n{cli}--- printunsatcore(T, S)\n{lua}")
}

#[test]
fn every_core_is_as_expected_and_the_same_each_run() {
    let mut wrong = Vec::new();
    for file in specs() {
        let got = explanations(&file);
        let expected_file = file.with_extension("expected");
        if std::env::var_os("IDP_BLESS").is_some() {
            std::fs::write(&expected_file, &got).expect("writable");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_file).unwrap_or_default();
        if got != expected {
            wrong.push(format!("{}:\n{got}", file.display()));
        }
        assert_eq!(
            got,
            explanations(&file),
            "{} differs between runs",
            file.display()
        );
    }
    assert!(wrong.is_empty(), "cores differ:\n{}", wrong.join("\n"));
}

/// Whether there is a model; `None` when the theory cannot be ground (a function over `int`
/// that only a left-out definition made known).
fn has_model(program: &Program, theory: &Theory, structure: &Structure) -> Option<bool> {
    let options = Options::default();
    match infer::modelexpand(program, theory, structure, None, &options) {
        Ok(found) => Some(!found.value.is_empty()),
        Err(e) if matches!(e.kind(), ErrorKind::InfiniteDomain { .. }) => None,
        Err(e) => panic!("model expansion fails: {e}"),
    }
}

/// The core without piece `k`: its theory and structure (a fact left out becomes unknown).
fn without(core: &Core, k: usize, theory: &Theory, structure: &Structure) -> (Theory, Structure) {
    let mut rest = core.clone();
    let dropped = rest.pieces.remove(k);
    let mut reduced = rest.structure(structure);
    if let Piece::Fact { symbol, tuple, .. } = &dropped {
        if let Some(Table::ThreeValued { ct, cf }) = reduced.symbols.get_mut(symbol) {
            ct.remove(tuple);
            cf.remove(tuple);
        }
    }
    (rest.theory(theory), reduced)
}

/// The functions of the vocabulary whose totality matters to the core (made partial, the core
/// has a model) and the types whose size does (given more elements, the core's sentences,
/// whole, have a model), but those where that cannot be decided.
fn needed(
    program: &Program,
    core: &Core,
    theory: &Theory,
    structure: &Structure,
) -> (Vec<FuncId>, Vec<SortId>) {
    let core_theory = core.theory(theory);
    let core_structure = core.structure(structure);
    let voc = program.voc(theory.vocabulary);
    let mut functions = Vec::new();
    for &f in &voc.funcs {
        let mut partial = program.clone();
        partial.funcs[f.index()].partial = true;
        if has_model(&partial, &core_theory, &core_structure) == Some(true) {
            functions.push(f);
        }
    }
    let mut whole = core.clone();
    whole.pieces = Vec::new();
    for p in &core.pieces {
        let p = match p {
            Piece::Instance { sentence, .. } => Piece::Sentence(*sentence),
            other => other.clone(),
        };
        if !whole.pieces.contains(&p) {
            whole.pieces.push(p);
        }
    }
    let sentences = whole.theory(theory);
    let mut types = Vec::new();
    for &sort in &voc.sorts {
        let Some(larger) = enlarged(program, &core_structure, sort) else {
            continue;
        };
        if has_model(program, &sentences, &larger) == Some(true) {
            types.push(sort);
        }
    }
    (functions, types)
}

/// The names of the items of `these` that are not in `those`.
fn but<T: PartialEq>(these: &[T], those: &[T], name: impl Fn(&T) -> String) -> Vec<String> {
    these
        .iter()
        .filter(|x| !those.contains(x))
        .map(name)
        .collect()
}

/// Every core is correct (its parts, with the structure as the core cuts it down, have no
/// model) and minimal (leaving out any one piece gives a model), with `options`; it names the
/// functions and types it needs (all of them, and no other unless it could not decide).
fn check_cores(options: &Options) -> Vec<(PathBuf, Core)> {
    let mut cores = Vec::new();
    for file in specs() {
        let program = program(&file);
        let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
            (program.lookup(&["T"]), program.lookup(&["S"]))
        else {
            panic!("{}: no theory T or structure S", file.display());
        };
        let (theory, structure) = (&program.theories[t.index()], &program.structures[s.index()]);
        let core = unsat_core(&program, theory, structure, &Facts::Involved, &[], options)
            .expect("explanation runs")
            .value
            .unwrap_or_else(|| panic!("{} has a model", file.display()));
        assert_eq!(
            has_model(&program, &core.theory(theory), &core.structure(structure)),
            Some(false),
            "{}: the core has a model",
            file.display()
        );
        for k in 0..core.pieces.len() {
            let (t, s) = without(&core, k, theory, structure);
            assert_ne!(
                has_model(&program, &t, &s),
                Some(false),
                "{}: without {:?} the core still has no model",
                file.display(),
                core.pieces[k]
            );
        }
        let (functions, types) = needed(&program, &core, theory, structure);
        let name = file.display();
        let sort = |s: &SortId| program.sort(*s).name.clone();
        let func = |f: &FuncId| program.func(*f).name.clone();
        let decided: Vec<SortId> = [&core.types[..], &core.types_undecided[..]].concat();
        // With the structure kept whole, its types are named as a whole ("as given").
        let as_given = core.whole.as_ref().is_some_and(|w| w.structure);
        let missing = but(&types, &decided, sort);
        assert!(
            missing.is_empty() || as_given,
            "{name}: types {missing:?} needed, not named"
        );
        let extra = but(&core.types, &types, sort);
        assert!(
            extra.is_empty(),
            "{name}: types {extra:?} named, not needed"
        );
        let missing = but(&functions, &core.totality, func);
        assert!(
            missing.is_empty(),
            "{name}: totality of {missing:?} needed, not named"
        );
        // With no time to decide, a function is named.
        let extra = but(&core.totality, &functions, func);
        assert!(
            extra.is_empty() || core.whole.is_some(),
            "{name}: totality of {extra:?} named, not needed"
        );
        cores.push((file, core));
    }
    cores
}

/// With time enough to narrow every core down and to decide every type (a budget that no
/// load reaches), each core is minimal and names exactly what it needs.
#[test]
fn every_core_is_minimal() {
    let options = Options {
        tuning: infer::Tuning {
            explain_budget: Some(120.0),
            ..infer::Tuning::default()
        },
        ..Options::default()
    };
    for (file, core) in check_cores(&options) {
        assert!(
            core.types_undecided.is_empty(),
            "{}: types {:?} undecided with time to decide",
            file.display(),
            core.types_undecided
        );
    }
}

/// With no time to narrow the core down (as on a loaded machine), nothing is left out: the
/// sentences and the structure stay whole, the core is still correct and minimal in its
/// parts, and the text says so.
#[test]
fn with_no_time_to_narrow_nothing_is_left_out() {
    let options = Options {
        tuning: infer::Tuning {
            explain_budget: Some(0.0),
            ..Default::default()
        },
        ..Options::default()
    };
    for (file, core) in check_cores(&options) {
        let name = file.display();
        if core.pieces.is_empty() {
            continue;
        }
        let whole = core
            .whole
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: narrowed with no time"));
        assert!(whole.sentences, "{name}: sentences narrowed with no time");
        assert!(
            core.pieces
                .iter()
                .all(|p| matches!(p, Piece::Sentence(_) | Piece::Definition(_))),
            "{name}: {:?}",
            core.pieces
        );
        let path = file.to_str().expect("utf-8 path");
        let out = support::idp_command()
            .env("IDP_EXPLAIN_BUDGET", "0")
            .args(["--explain", path])
            .output()
            .expect("idp runs");
        let text = String::from_utf8(out.stdout).expect("utf-8 output");
        let facts = core.relaxed.is_empty() && whole.structure;
        assert_eq!(
            text.contains("with structure S as given"),
            facts,
            "{name}: {text}"
        );
        let last = text
            .lines()
            .rfind(|l| !l.starts_with("Another conflict remains"))
            .unwrap_or_default();
        let kept = if facts {
            "its sentences are whole and every fact of structure S is kept"
        } else {
            "its sentences are whole"
        };
        assert_eq!(
            last,
            format!("  (narrowing this down to instances and facts took longer than its budget: {kept})"),
            "{name}: {text}"
        );
    }
}

/// The theory and structure of a spec whose theory is T and structure S.
fn theory_and_structure(program: &Program) -> (&Theory, &Structure) {
    let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
        (program.lookup(&["T"]), program.lookup(&["S"]))
    else {
        panic!("no theory T or structure S");
    };
    (&program.theories[t.index()], &program.structures[s.index()])
}

/// The sentences and definitions a core has (its instances counted by their sentence).
fn parts_of(core: &Core) -> usize {
    let mut parts: Vec<Piece> = Vec::new();
    for p in &core.pieces {
        let p = match p {
            Piece::Instance { sentence, .. } => Piece::Sentence(*sentence),
            Piece::Fact { .. } => continue,
            other => other.clone(),
        };
        if !parts.contains(&p) {
            parts.push(p);
        }
    }
    parts.len()
}

/// When another conflict remains, the core shown is the smaller one: the theory without the
/// core's sentences has no core with fewer sentences and definitions. Without another, the
/// theory without them has a model.
#[test]
fn the_smaller_of_two_conflicts_comes_first() {
    let mut seen = 0;
    for file in specs() {
        let program = program(&file);
        let (theory, structure) = theory_and_structure(&program);
        let options = Options::default();
        let core = unsat_core(&program, theory, structure, &Facts::Given, &[], &options)
            .expect("explanation runs")
            .value
            .expect("no model");
        let mut rest = theory.clone();
        rest.sentences = (0..theory.sentences.len())
            .filter(|k| {
                !core.pieces.iter().any(|p| {
                    matches!(p, Piece::Sentence(s) | Piece::Instance { sentence: s, .. } if s == k)
                })
            })
            .map(|k| theory.sentences[k].clone())
            .collect();
        if core.pieces.is_empty() || rest.sentences.len() == theory.sentences.len() {
            continue;
        }
        let other = unsat_core(&program, &rest, structure, &Facts::Given, &[], &options)
            .expect("explanation runs")
            .value;
        assert_eq!(core.another, other.is_some(), "{}", file.display());
        if let Some(other) = other {
            seen += 1;
            assert!(
                parts_of(&other) >= parts_of(&core),
                "{}: a core of {} parts shown while one of {} remains",
                file.display(),
                parts_of(&core),
                parts_of(&other)
            );
        }
    }
    assert!(seen >= 2, "only {seen} specs with two conflicts");
}

/// A literal that the types and functions alone force names them, and a type that a
/// sentence needs more elements of is named with its elements (`idp --explain-atom`).
#[test]
fn types_and_functions_are_named_as_reasons_for_a_literal() {
    let one_colour = support::write_file(
        "one_colour.idp",
        "vocabulary V {\n  type Node\n  type Colour\n  Col(Node) : Colour\n  P(Node)\n}\n\
         theory T : V {\n  ! x : P(x).\n}\nstructure S : V {\n  Node = {a}\n  Colour = {red}\n}\n",
    );
    let one_node = support::write_file(
        "one_node.idp",
        "vocabulary V {\n  type Node\n  P(Node)\n}\ntheory T : V {\n  ? x : P(x).\n}\n\
         structure S : V {\n  Node = {a}\n}\n",
    );
    let tail = |literal: &str, file: &Path| {
        let out = stdout_of(&["--explain-atom", literal, file.to_str().unwrap()]);
        let at = out.find(literal).unwrap_or_else(|| panic!("{out}"));
        out[at..].replace(&format!("{}:", file.display()), "FILE:")
    };
    assert_eq!(
        tail("Col(a) = red", &one_colour),
        "Col(a) = red holds in every model, because of the types and functions below (without \
         any one of them it need not):\n  given: Col is a function: each Node has exactly one \
         value of Colour = {red}\n"
    );
    assert_eq!(
        tail("P(a)", &one_node),
        "P(a) holds in every model, because of 1 part of the theory (without any one of them \
         it need not):\n  FILE:6:3: ? x : P(x).\n  given: type Node has 1 element: {a}\n"
    );
}

/// An element of a type that the vocabulary constructs, or of `char`, is named in the literal
/// even when the structure (over a smaller vocabulary) does not list the type.
#[test]
fn elements_of_types_the_structure_does_not_list_are_named() {
    let colour = support::write_file(
        "colour_of_the_vocabulary.idp",
        "vocabulary V0 {\n  type Item\n}\nvocabulary V {\n  extern vocabulary V0\n  \
         type Colour constructed from { red, green }\n  Paint : Colour\n}\n\
         theory T : V {\n  Paint ~= green.\n}\nstructure S : V0 {\n  Item = { a }\n}\n",
    );
    let letter = support::write_file(
        "letter.idp",
        "vocabulary V {\n  Letter : char\n}\ntheory T : V {\n  Letter = \"b\".\n}\n\
         structure S : V {\n}\n",
    );
    let tail = |literal: &str, file: &Path| {
        let out = stdout_of(&["--explain-atom", literal, file.to_str().unwrap()]);
        let at = out
            .find(&format!("{literal} holds"))
            .unwrap_or_else(|| panic!("{out}"));
        out[at..].replace(&format!("{}:", file.display()), "FILE:")
    };
    assert_eq!(
        tail("Paint = red", &colour),
        "Paint = red holds in every model, because of 1 part of the theory (without any one of \
         them it need not):\n  FILE:10:3: Paint ~= green.\n  given: Paint is a constant: it \
         has exactly one value of Colour = {green; red}\n"
    );
    assert_eq!(
        tail("Letter = b", &letter),
        "Letter = b holds in every model, because of 1 part of the theory (without any one of \
         them it need not):\n  FILE:5:3: Letter = \"b\".\n"
    );
}

/// A core of nothing but types too small (no sentence, definition or fact, no function that
/// needs a value in an empty type) names them with their elements.
#[test]
fn a_core_of_types_alone_names_them() {
    let program = support::program_named(
        "types.idp",
        "vocabulary V {\n  type Node\n  P(Node)\n}\ntheory T : V {\n  ? x : P(x).\n}\n\
         structure S : V {\n  Node = {a; b}\n}\n",
    );
    let (theory, structure) = theory_and_structure(&program);
    let node = program.voc(theory.vocabulary).sorts[..]
        .iter()
        .copied()
        .find(|s| program.sort(*s).name == "Node")
        .expect("type Node");
    let core = Core {
        pieces: Vec::new(),
        relaxed: Vec::new(),
        whole: None,
        totality: Vec::new(),
        types: vec![node],
        types_undecided: Vec::new(),
        another: false,
    };
    let reading = infer::Reading {
        program: &program,
        theory,
        structure,
    };
    assert_eq!(
        reading.lines(&core),
        ["Why: the structure's types have no model: type Node has 2 elements: {a; b} (with more \
          elements there is one)."]
    );
}

/// With no time to decide whether a larger type would give a model, the core says so (and
/// what stayed whole) rather than name the type or leave it out silently.
#[test]
fn a_type_not_decided_in_time_is_said_to_be() {
    let out = support::idp_command()
        .env("IDP_EXPLAIN_BUDGET", "0")
        .args(["--explain", "tests/explain/cardinality_too_large.idp"])
        .output()
        .expect("idp runs");
    assert_eq!(
        String::from_utf8(out.stdout).expect("utf-8 output"),
        "Unsatisfiable
Number of models: 0
Why: 1 part of the theory has no model on its own.
  tests/explain/cardinality_too_large.idp:7:3: #{x : Chosen(x)} = 3.
  (whether more elements in type Item would give a model was not decided within the budget)
  (narrowing this down to instances and facts took longer than its budget: its sentences are whole)
"
    );
}
