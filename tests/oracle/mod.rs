//! The `pipeline` fuzz target's oracle, shared by the tests that check model expansion on
//! small specifications against the naive checker and brute force.

use idp::diagnostics::Diagnostics;
use idp::infer::{self, Options};
use idp::infer::{brute_force_count, check_model};
use idp::sema::{Component, Program};
use idp::source::SourceMap;

pub fn program(text: &str) -> Program {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let file = idp::syntax::parse_text("fuzz.idp", text, &mut sources, &mut diags);
    let program = idp::sema::resolve(&file, &mut diags);
    assert!(!diags.has_errors(), "unexpected errors: {:#?}", diags.items);
    program
}

/// The `pipeline` target's oracle: model expansion finds `expected` models of theory `T` in
/// structure `S`, each passes the naive checker, and brute force counts the same. Returns the
/// program and the models, each printed as IDP3 prints it.
pub fn assert_models(text: &str, expected: u64) -> Vec<String> {
    let (p, models) = checked_models(text);
    let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
        (p.lookup(&["T"]), p.lookup(&["S"]))
    else {
        panic!("no theory T or structure S");
    };
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    assert_eq!(models.len() as u64, expected, "model expansion count");
    let brute = brute_force_count(&p, theory, structure, 1 << 12).expect("small enough");
    assert_eq!(brute, expected, "brute-force count");
    models
        .iter()
        .map(|m| idp::print::structure_to_string(&p, m))
        .collect()
}

/// Every model of theory `T` in structure `S`, each checked by the naive checker.
pub fn checked_models(text: &str) -> (Program, Vec<idp::structure::Structure>) {
    let p = program(text);
    let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
        (p.lookup(&["T"]), p.lookup(&["S"]))
    else {
        panic!("no theory T or structure S");
    };
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let options = Options {
        nbmodels: 0,
        ..Options::default()
    };
    let models = infer::modelexpand(&p, theory, structure, None, &options)
        .expect("expands")
        .value;
    for m in &models {
        if let Err(why) = check_model(&p, theory, m) {
            panic!("a returned model is wrong: {why}\n{text}");
        }
    }
    (p, models)
}
