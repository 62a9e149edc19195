//! `idp lsp` with a real editor: Neovim's built-in LSP client, run headless on the real binary
//! (tests/lsp/neovim.lua), formats, hovers, goes to the definition, finds references,
//! completes, lists the lenses, shows a typo's diagnostic and renames — each answer as Neovim
//! received it. Without `nvim` (scripts/install-neovim installs Debian's) the test says that
//! it skipped and why.

mod support;

use std::process::Command;

use serde_json::{json, Value};

/// The family spec of the protocol tests, written out of shape for the formatter (which
/// changes only the blanks at the start and end of lines, and blank lines).
fn misformatted_family() -> String {
    let family = std::fs::read_to_string(support::lsp::dir().join("family.idp")).unwrap();
    family
        .replace("    Parent(Person, Person)", "  Parent(Person, Person)   ")
        .replace("    ! x : ~Ancestor", "\t! x : ~Ancestor")
        .replace("theory T : V {", "\n\ntheory T : V {")
}

#[test]
fn neovim_edits_a_file_with_the_server() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("SKIPPED neovim_edits_a_file_with_the_server: no nvim on the PATH (scripts/install-neovim installs it)");
        return;
    }
    let dir = support::scratch("neovim");
    let file = dir.join("family.idp");
    std::fs::write(&file, misformatted_family()).unwrap();
    let out = dir.join("answers.json");
    let run = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u", "NONE", "-c"])
        .arg(format!(
            "luafile {}",
            support::lsp::dir().join("neovim.lua").display()
        ))
        .env("IDP_BIN", support::IDP)
        .env("IDP_FILE", &file)
        .env("IDP_OUT", &out)
        .env("XDG_STATE_HOME", &dir)
        .env("XDG_DATA_HOME", &dir)
        .current_dir(&dir)
        .output()
        .expect("nvim runs");
    let text = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "nvim wrote no answers (exit {:?}): {}",
            run.status.code(),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let answers: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answers["error"], Value::Null, "{answers:#}");
    let family = std::fs::read_to_string(support::lsp::dir().join("family.idp")).unwrap();
    assert_eq!(
        answers["formatted"].as_str().unwrap().trim_end(),
        family.trim_end(),
        "formatting through Neovim gives the laid-out file"
    );
    assert!(
        answers["hover"]
            .as_str()
            .unwrap()
            .contains("Parent(Person, Person)"),
        "{answers:#}"
    );
    assert_eq!(answers["definition"], json!({ "line": 3, "character": 4 }));
    assert_eq!(answers["references"], 4);
    let completion = answers["completion"].as_array().unwrap();
    for name in ["Ancestor", "Parent", "Person"] {
        assert!(completion.contains(&json!(name)), "{name}: {completion:?}");
    }
    assert_eq!(
        answers["lenses"],
        json!(["▶ Run T with S", "Count", "Explain", "▶ Run main()"]),
        "{answers:#}"
    );
    let diagnostics = answers["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["line"], 13);
    assert_eq!(diagnostics[0]["col"], 11);
    assert!(diagnostics[0]["message"]
        .as_str()
        .unwrap()
        .contains("did you mean `Ancestor`?"));
    let renamed = answers["renamed"].as_str().unwrap();
    assert_eq!(renamed.matches("ParentOf").count(), 4, "{renamed}");
    assert!(!renamed.contains("Parent("), "{renamed}");
}
