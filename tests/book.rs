//! The guide in `docs/` (issue 51): every example in it runs and prints what the pages show,
//! every page is in the book's table of contents, and no internal link or include is dead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod support;

fn docs() -> PathBuf {
    support::crate_dir().join("docs")
}

/// The files of `dir` whose names end with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.to_string_lossy().ends_with(ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The arguments of an example's first line, `// run: idp ARGS`.
fn run_line(example: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(example).expect("a readable example");
    let first = text.lines().next().unwrap_or_default();
    let args = first.strip_prefix("// run: idp ").unwrap_or_else(|| {
        panic!(
            "{} does not start with `// run: idp ...`",
            example.display()
        )
    });
    args.split_whitespace().map(str::to_string).collect()
}

#[test]
fn every_example_prints_what_the_book_shows() {
    let examples = files(&docs().join("examples"), ".idp");
    assert!(examples.len() >= 6, "{examples:?}");
    let mut wrong = Vec::new();
    for example in &examples {
        let out = support::idp_command()
            .current_dir(example.parent().unwrap())
            .args(run_line(example))
            .output()
            .expect("idp runs");
        let shown = std::fs::read_to_string(example.with_extension("out")).unwrap_or_default();
        let printed = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let answered = matches!(out.status.code(), Some(0) | Some(10));
        if printed != shown || !stderr.is_empty() || !answered {
            wrong.push(format!(
                "{} (exit {:?}):\n{printed}{stderr}",
                example.display(),
                out.status.code()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "examples differ from the book:\n{}",
        wrong.join("\n")
    );
}

/// `text` without its code: fenced blocks and inline code spans (where `F[N](1)` is no link).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let spans: Vec<&str> = line.split('`').collect();
            out.extend(spans.iter().step_by(2).copied());
            out.push('\n');
        }
    }
    out
}

/// The targets of the Markdown links `](target)` of `text`'s prose and of mdBook's
/// `{{#include target}}` anywhere in it, but addresses of other sites.
fn targets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let prose = prose(text);
    for (open, close, within) in [("](", ')', prose.as_str()), ("{{#include ", '}', text)] {
        let mut rest = within;
        while let Some(at) = rest.find(open) {
            rest = &rest[at + open.len()..];
            let end = rest.find(close).unwrap_or(rest.len());
            let target = rest[..end].trim();
            if !target.contains("://") && !target.starts_with("mailto:") {
                found.push(target.to_string());
            }
        }
    }
    found
}

#[test]
fn every_page_is_in_the_book_and_no_link_is_dead() {
    let src = docs().join("src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = targets(&summary).iter().map(|t| src.join(t)).collect();
    let pages: BTreeSet<PathBuf> = files(&src, ".md")
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md"))
        .collect();
    assert_eq!(listed, pages, "the pages and SUMMARY.md's list differ");
    let mut dead = Vec::new();
    let mut included = BTreeSet::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for target in targets(&text) {
            let file = target.split('#').next().unwrap_or_default();
            if file.is_empty() {
                continue;
            }
            let path = page.parent().unwrap().join(file);
            match path.canonicalize() {
                Ok(found) => {
                    included.insert(found);
                }
                Err(_) => dead.push(format!("{}: {target}", page.display())),
            }
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
    // Every example is shown somewhere, with its output.
    for example in files(&docs().join("examples"), ".idp") {
        for shown in [example.clone(), example.with_extension("out")] {
            let shown = shown.canonicalize().unwrap();
            assert!(
                included.contains(&shown),
                "no page shows {}",
                shown.display()
            );
        }
    }
}

/// The entries of the troubleshooting page: each code with its wrong and its right example.
fn troubleshooting_entries() -> Vec<(String, String, String)> {
    let page = std::fs::read_to_string(docs().join("src/reference/troubleshooting.md"))
        .expect("the troubleshooting page");
    let mut entries = Vec::new();
    for section in page.split("\n## `").skip(1) {
        let code = section.split('`').next().unwrap_or_default().to_string();
        let blocks: Vec<&str> = section
            .split("```idp\n")
            .skip(1)
            .map(|b| b.split("```").next().unwrap_or_default())
            .collect();
        let example = |mark: &str| {
            let found = blocks.iter().find(|b| b.starts_with(mark));
            found
                .unwrap_or_else(|| panic!("{code}: no `{mark}` example"))
                .to_string()
        };
        entries.push((code.clone(), example("// wrong"), example("// right")));
    }
    entries
}

#[test]
fn every_troubleshooting_entry_gets_its_code_and_its_fix_runs_clean() {
    let entries = troubleshooting_entries();
    let mut wrong = Vec::new();
    for (code, bad, good) in &entries {
        let o = support::idp_on(&format!("{code}.idp"), bad, &["--check"]);
        let said = support::stderr_text(&o);
        if !said.contains(&format!("[{code}]")) {
            wrong.push(format!(
                "{code}: the wrong example does not get it:\n{said}"
            ));
        }
        let o = support::idp_on(&format!("{code}-fixed.idp"), good, &["--check"]);
        let said = support::stderr_text(&o);
        if o.status.code() != Some(0) || !said.is_empty() {
            wrong.push(format!("{code}: the right example is not clean:\n{said}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every code of the error corpus has an entry, but the includes' (their right example
    // needs a second file).
    let documented: BTreeSet<String> = entries.into_iter().map(|(code, _, _)| code).collect();
    let corpus = files(&support::crate_dir().join("tests/corpus/err"), ".idp");
    for file in corpus {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter_map(|l| l.strip_prefix("// expect: ")) {
            let code = line.split_whitespace().next().unwrap_or_default();
            if !code.starts_with("include-") {
                assert!(
                    documented.contains(code),
                    "{code} ({}) has no entry",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn the_link_check_sees_dead_links() {
    assert_eq!(
        targets(
            "see [a](a.md#x), [b](https://example.org), `F[N](1)` and\n```idp\n{{#include \
             ../e/f.idp}}\nG[2](3)\n```\n"
        ),
        ["a.md#x", "../e/f.idp"]
    );
}
