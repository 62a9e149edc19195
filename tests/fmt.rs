//! `idp fmt` over every `.idp` file of `tests/`, `examples/` and `specs/`: formatting a
//! formatted file changes nothing, and the formatted file parses to the same program (its AST,
//! positions and the indentation inside procedure code aside), with the same messages.

mod support;

use idp::diagnostics::Diagnostics;
use idp::source::SourceMap;

/// The AST of a text with positions and the blanks that start lines (in procedure code)
/// taken out, and its messages' codes.
fn reading(name: &str, text: &str) -> (String, Vec<&'static str>) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let no_std = |_: &str| Some(String::new());
    let loaded = idp::syntax::load(
        vec![(name.into(), text.as_bytes().to_vec())],
        &no_std,
        &mut sources,
        &mut diags,
    );
    let ast = format!("{:?}{:?}", loaded.file, loaded.scripts);
    let mut out = String::with_capacity(ast.len());
    let mut rest = ast.as_str();
    while let Some(k) = rest.find(['s', 'e', 'b', '\\']) {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let skip_number = |prefix: &str, rest: &mut &str, out: &mut String| {
            if let Some(after) = rest.strip_prefix(prefix) {
                out.push_str(prefix);
                *rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
                true
            } else {
                false
            }
        };
        if ["start: ", "end: ", "body_line: "]
            .iter()
            .any(|prefix| skip_number(prefix, &mut rest, &mut out))
        {
            continue;
        }
        if let Some(after) = rest.strip_prefix("\\n") {
            out.push_str("\\n");
            rest = after.trim_start_matches([' ', '\t']);
            rest = rest
                .strip_prefix("\\t")
                .map_or(rest, |r| r.trim_start_matches([' ', '\t']));
            continue;
        }
        out.push_str(&rest[..1]);
        rest = &rest[1..];
    }
    out.push_str(rest);
    idp::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    (out, diags.sorted().iter().map(|d| d.code).collect())
}

#[test]
fn formatting_is_idempotent_and_keeps_the_program() {
    let root = support::crate_dir();
    let files: Vec<_> = ["tests", "examples", "specs"]
        .iter()
        .flat_map(|dir| support::idp_files_below(&root.join(dir)))
        .collect();
    assert!(files.len() > 250, "only {} files found", files.len());
    let mut changed = 0;
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let once = idp::print::formatted(&name, &text, idp::syntax::Stack::Own)
            .unwrap_or_else(|e| panic!("{e}"));
        let fodot = reading(&name, &text).0.contains("Script");
        let twice = idp::syntax::format::format(&once, fodot);
        assert_eq!(twice, once, "{name}: formatting again changes it");
        if once != text {
            changed += 1;
            let (before, after) = (reading(&name, &text), reading(&name, &once));
            if before != after {
                let at = before
                    .0
                    .bytes()
                    .zip(after.0.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                let near = |s: &str| {
                    s.get(at.saturating_sub(80)..(at + 80).min(s.len()))
                        .unwrap_or("")
                        .to_string()
                };
                panic!("{name} reads differently formatted:\n  before: {}\n  after:  {}\n  messages {:?} / {:?}", near(&before.0), near(&after.0), before.1, after.1);
            }
        }
    }
    assert!(
        changed > 50,
        "only {changed} files needed formatting: the test would see little"
    );
}
