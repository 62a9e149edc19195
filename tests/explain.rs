//! Explanations of theories without a model, on the slips students make (`tests/explain/`):
//! each file's core, as `idp -n 1 --explain` and as IDP3's `printunsatcore` print it, is
//! exactly the one in its `.expected` file (`IDP_BLESS=1` writes them anew, to be read before
//! committing); the same run twice prints the same; and every core is minimal: the core's
//! instances, definitions and facts have no model, and leaving out any one of them gives one.
//! With no time to narrow a core down (`IDP_EXPLAIN_BUDGET=0`, as a loaded machine may give),
//! every core is still correct and minimal in its whole parts, and says what stayed whole.

mod support;

use std::path::{Path, PathBuf};

use idp::error::ErrorKind;
use idp::infer::{self, Options};
use idp::infer::{unsat_core, Core, Facts, Piece};
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
        files.len() >= 42,
        "at least 42 specs, found {}",
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

/// Every core is correct (its parts, with the structure as the core cuts it down, have no
/// model) and minimal (leaving out any one piece gives a model), with `options`.
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
        cores.push((file, core));
    }
    cores
}

#[test]
fn every_core_is_minimal() {
    check_cores(&Options::default());
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
