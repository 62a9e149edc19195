//! `idp lsp`: the language server, driven as an editor drives it. Each test opens the files
//! of `tests/lsp/`, asks what an editor asks, and compares the answers with
//! `tests/lsp/NAME.snap` (re-bless with `IDP_BLESS=1 cargo test --release --test lsp` and
//! review the diff); the last test drives the real binary over stdio.

mod support;

use serde_json::{json, Value};
use support::lsp::{assert_snapshot, at, Editor};

/// Labels, kinds and details of completion items, one per line (the snapshots stay short).
fn items(answer: &Value) -> Value {
    let list = answer.as_array().cloned().unwrap_or_default();
    Value::Array(
        list.iter()
            .map(|i| {
                json!(format!(
                    "{} ({}) {}",
                    i["label"].as_str().unwrap_or(""),
                    i["kind"],
                    i["detail"].as_str().unwrap_or("")
                ))
            })
            .collect(),
    )
}

/// Semantic tokens as `line:col length type modifiers`, decoded from the protocol's deltas
/// with the server's legend.
fn decoded_tokens(answer: &Value) -> Value {
    const TYPES: [&str; 6] = [
        "type",
        "function",
        "method",
        "enumMember",
        "variable",
        "namespace",
    ];
    let data: Vec<u64> = answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    let (mut line, mut col) = (0, 0);
    let mut out = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        let declaration = if t[4] & 1 == 1 { " declaration" } else { "" };
        out.push(json!(format!(
            "{line}:{col} {} {}{declaration}",
            t[2], TYPES[t[3] as usize]
        )));
    }
    Value::Array(out)
}

fn labels(answer: &Value) -> Vec<String> {
    answer
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["label"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn hover_definition_and_references() {
    let mut e = Editor::in_memory();
    let uri = e.open("family.idp");
    assert_eq!(e.diagnostics(&uri), json!([]));
    e.request("textDocument/hover", at(&uri, 10, 26)); // Parent in a rule's body
    e.request("textDocument/hover", at(&uri, 10, 17)); // x, a variable of a rule
    e.request("textDocument/hover", at(&uri, 14, 28)); // Age
    e.request("textDocument/hover", at(&uri, 29, 28)); // T in the procedure
    e.request("textDocument/hover", at(&uri, 8, 11)); // V after theory T :
    e.request("textDocument/hover", at(&uri, 18, 5)); // Person in the structure
    e.request("textDocument/hover", at(&uri, 7, 0)); // nothing
    e.request("textDocument/definition", at(&uri, 10, 26));
    e.request("textDocument/definition", at(&uri, 14, 22)); // y's use: its quantifier
    let mut with = at(&uri, 10, 26);
    with["context"] = json!({ "includeDeclaration": true });
    e.request("textDocument/references", with);
    let mut theory = at(&uri, 8, 7);
    theory["context"] = json!({ "includeDeclaration": false });
    let found = e.request("textDocument/references", theory);
    // The theory's name in the procedure, not the one in the comment nor stdoptions.T.
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(
        found[0]["range"]["start"],
        json!({ "line": 29, "character": 28 })
    );
    assert_snapshot("navigation", &e.transcript);
    e.close();
}

#[test]
fn rename_across_blocks_and_procedures() {
    let mut e = Editor::in_memory();
    let uri = e.open("family.idp");
    e.diagnostics(&uri);
    e.request("textDocument/prepareRename", at(&uri, 29, 28));
    let mut theory = at(&uri, 29, 28);
    theory["newName"] = json!("Family");
    let edit = e.request("textDocument/rename", theory);
    assert_eq!(edit["changes"][&uri].as_array().unwrap().len(), 2, "{edit}");
    let mut parent = at(&uri, 3, 6);
    parent["newName"] = json!("ParentOf");
    let edit = e.request("textDocument/rename", parent);
    assert_eq!(edit["changes"][&uri].as_array().unwrap().len(), 4, "{edit}");
    for (name, why) in [
        ("theory", "keyword"),
        ("Ancestor", "already names"),
        ("2x", "not a name"),
    ] {
        let mut bad = at(&uri, 3, 6);
        bad["newName"] = json!(name);
        let refused = e.request("textDocument/rename", bad);
        assert!(
            refused["error"]["message"].as_str().unwrap().contains(why),
            "{refused}"
        );
    }
    e.request("textDocument/prepareRename", at(&uri, 7, 0));
    e.request("textDocument/prepareRename", at(&uri, 5, 19)); // int
    assert_snapshot("rename", &e.transcript);
    e.close();
}

#[test]
fn completion_knows_where_the_cursor_is() {
    let mut e = Editor::in_memory();
    let uri = e.open("family.idp");
    e.diagnostics(&uri);
    let mut transcript = String::new();
    for (what, line, character) in [
        ("in a sentence, after ! x : ~", 13, 11),
        ("in a rule", 11, 26),
        ("in a structure", 18, 4),
        ("in the vocabulary", 5, 4),
        ("at the top level", 7, 0),
        ("in a comment", 0, 10),
    ] {
        let answer = e.request("textDocument/completion", at(&uri, line, character));
        transcript.push_str(&format!(
            "### {what}\n{}\n\n",
            serde_json::to_string_pretty(&items(&answer)).unwrap()
        ));
    }
    let in_comment = e.request("textDocument/completion", at(&uri, 28, 20));
    assert_eq!(in_comment, json!([]), "nothing inside a Lua comment");
    let lua = labels(&e.request("textDocument/completion", at(&uri, 30, 4)));
    for name in [
        "modelexpand",
        "printmodels",
        "minimize",
        "T",
        "S",
        "Q",
        "main",
        "local",
        "stdoptions",
    ] {
        assert!(lua.contains(&name.to_string()), "{name} in {lua:?}");
    }
    // A sentence half typed: the rest of the theory no longer parses, names still come.
    e.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": 14, "character": 44 }, "end": { "line": 14, "character": 44 } }, "text": "\n    ? z : Par" }]
        }),
    );
    let broken = e.diagnostics(&uri);
    assert!(broken.to_string().contains("syntax-error"), "{broken}");
    let answer = e.request("textDocument/completion", at(&uri, 15, 13));
    transcript.push_str(&format!(
        "### after a syntax error\n{}\n",
        serde_json::to_string_pretty(&items(&answer)).unwrap()
    ));
    assert_snapshot("completion", &transcript);
    e.close();
}

#[test]
fn outline_folding_tokens_and_inlay_hints() {
    let mut e = Editor::in_memory();
    let uri = e.open("family.idp");
    e.diagnostics(&uri);
    let doc = json!({ "textDocument": { "uri": uri } });
    e.request("textDocument/documentSymbol", doc.clone());
    e.request("textDocument/foldingRange", doc.clone());
    e.request_viewed(
        "textDocument/semanticTokens/full",
        doc.clone(),
        decoded_tokens,
    );
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 40, "character": 0 } });
    e.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri }, "range": whole }),
    );
    assert_snapshot("outline", &e.transcript);
    e.close();
}

#[test]
fn diagnostics_as_check_gives_them_and_their_quick_fixes() {
    let mut e = Editor::in_memory();
    let uri = e.open("broken.idp");
    let published = e.diagnostics(&uri);
    // The same codes, in the same order, as `idp --check`.
    let check = support::idp_command()
        .args(["--check", "--color", "never", "tests/lsp/broken.idp"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&check.stderr);
    let check_codes: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.rsplit_once(" [").map(|(_, c)| c.trim_end_matches(']')))
        .collect();
    let lsp_codes: Vec<&str> = published
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != 3) // the editor's own hints come on top
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(lsp_codes, check_codes);
    assert!(
        published.to_string().contains("exists-implies"),
        "{published}"
    );
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 30, "character": 0 } });
    e.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": whole, "context": { "diagnostics": [] } }),
    );
    assert_snapshot("fixes", &e.transcript);
    e.close();
}

#[test]
fn formatting_lays_out_and_then_leaves_alone() {
    let mut e = Editor::in_memory();
    let messy =
        "vocabulary V {\ntype T\n      P(T)   \n}\n\n\n\ntheory T : V {\n! x : P(x) =>\nP(x).\n}\n";
    let uri = e.open_text("messy.idp", messy);
    e.diagnostics(&uri);
    let params = json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 4, "insertSpaces": true } });
    let edits = e.request("textDocument/formatting", params.clone());
    let formatted = edits[0]["newText"].as_str().unwrap().to_string();
    assert_eq!(
        formatted,
        "vocabulary V {\n    type T\n    P(T)\n}\n\ntheory T : V {\n    ! x : P(x) =>\n        P(x).\n}\n"
    );
    e.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": formatted }] }),
    );
    e.diagnostics(&uri);
    assert_eq!(e.request("textDocument/formatting", params), json!([]));
    e.close();
}

#[test]
fn lenses_run_count_and_explain_and_show_why() {
    let mut e = Editor::in_memory();
    let uri = e.open("nocolour.idp");
    e.diagnostics(&uri);
    let doc = json!({ "textDocument": { "uri": uri } });
    let lenses = e.request("textDocument/codeLens", doc.clone());
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["▶ Run T with S", "Count", "Explain"]);
    let explain = lenses[2]["command"].clone();
    let answer = e.request("workspace/executeCommand", explain);
    assert_eq!(answer["exitCode"], 20, "{answer}");
    assert!(
        answer["outcome"].as_str().unwrap().starts_with("0 models"),
        "{answer}"
    );
    let why = e.diagnostics(&uri);
    let messages: Vec<&str> = why
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{why}");
    assert!(
        messages[0].starts_with("part of why T has no model with S: ! x y : Edge(x, y)"),
        "{why}"
    );
    assert_eq!(
        why[0]["range"]["start"],
        json!({ "line": 7, "character": 4 })
    );
    assert_eq!(
        why[1]["range"]["start"],
        json!({ "line": 12, "character": 4 })
    );
    let progress = e.sent_by_server("$/progress");
    assert_eq!(
        progress.first().map(|p| p["value"]["kind"].clone()),
        Some(json!("begin"))
    );
    assert_eq!(
        progress.last().map(|p| p["value"]["kind"].clone()),
        Some(json!("end"))
    );
    assert_eq!(e.sent_by_server("workspace/codeLens/refresh").len(), 1);
    let after = e.request("textDocument/codeLens", doc);
    assert!(
        after[2]["command"]["title"]
            .as_str()
            .unwrap()
            .starts_with("Explain — 0 models"),
        "{after}"
    );
    let hover = e.request("textDocument/hover", at(&uri, 6, 8));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Why: 1 part of the theory"),
        "{hover}"
    );
    let count = e.request("workspace/executeCommand", lenses[1]["command"].clone());
    assert_eq!(count["output"], "Number of models: 0\n", "{count}");
    e.close();
}

#[test]
fn a_long_run_is_cancelled() {
    let mut e = Editor::in_memory();
    let holes = 13;
    let text = format!(
        "vocabulary V {{\n    type Pigeon = {{1..{}}} isa int\n    type Hole = {{1..{holes}}} isa int\n    In(Pigeon) : Hole\n}}\ntheory T : V {{\n    ! x y : In(x) = In(y) => x = y.\n}}\nstructure S : V {{\n}}\n",
        holes + 1
    );
    let uri = e.open_text("pigeons.idp", &text);
    e.diagnostics(&uri);
    let lenses = e.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let started = std::time::Instant::now();
    let id = e.start("workspace/executeCommand", lenses[0]["command"].clone());
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.notify(
        "$/cancelRequest",
        json!({ "id": id.to_string().trim_matches('"').parse::<i32>().unwrap() }),
    );
    let answer = e.answer(id, "workspace/executeCommand", &Value::Null);
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    assert!(
        started.elapsed().as_secs() < 10,
        "cancelled after {:?}",
        started.elapsed()
    );
    let lenses = e.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(lenses[0]["command"]["title"], "▶ Run T with S — cancelled");
    e.close();
}

#[test]
fn an_idp_z3_file_gets_the_same_service() {
    let mut e = Editor::in_memory();
    let uri = e.open("colour.idp");
    e.diagnostics(&uri);
    e.request("textDocument/hover", at(&uri, 8, 37)); // colour_of
    e.request("textDocument/hover", at(&uri, 8, 6)); // x
    let answer = e.request("textDocument/completion", at(&uri, 8, 4));
    let names = labels(&answer);
    for name in ["border", "colour_of", "Country", "Colour"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    let whole =
        json!({ "start": { "line": 8, "character": 0 }, "end": { "line": 8, "character": 10 } });
    let actions = e.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": whole, "context": { "diagnostics": [] } }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Write the connectives in ASCII (! ? & | ~ =>)"),
        "{titles:?}"
    );
    assert_snapshot("idp_z3", &e.transcript);
    e.close();
}

#[test]
fn the_binary_serves_an_editor_over_stdio() {
    let mut e = Editor::over_stdio();
    let uri = e.open("family.idp");
    assert_eq!(e.diagnostics(&uri), json!([]));
    e.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": 13, "character": 11 }, "end": { "line": 13, "character": 19 } }, "text": "Ancestr" }]
        }),
    );
    let after = e.diagnostics(&uri);
    assert_eq!(after[0]["code"], "unknown-symbol", "{after}");
    assert!(
        after[0]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `Ancestor`?"),
        "{after}"
    );
    let hover = e.request("textDocument/hover", at(&uri, 10, 26));
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("Parent(Person, Person)"));
    let definition = e.request("textDocument/definition", at(&uri, 10, 26));
    assert_eq!(
        definition["range"]["start"],
        json!({ "line": 3, "character": 4 })
    );
    let mut refs = at(&uri, 10, 26);
    refs["context"] = json!({ "includeDeclaration": true });
    assert_eq!(
        e.request("textDocument/references", refs)
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let mut rename = at(&uri, 10, 26);
    rename["newName"] = json!("ParentOf");
    assert_eq!(
        e.request("textDocument/rename", rename)["changes"][&uri]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert!(
        labels(&e.request("textDocument/completion", at(&uri, 14, 10)))
            .contains(&"Parent".to_string())
    );
    let edits = e.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    assert_eq!(edits, json!([]), "family.idp is formatted");
    let lenses = e.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(lenses.as_array().unwrap().len(), 4, "{lenses}");
    e.close();
}

#[test]
fn definition_and_rename_reach_into_included_files() {
    let mut e = Editor::in_memory();
    let uri = e.open("graph.idp");
    assert_eq!(e.diagnostics(&uri), json!([]));
    let included = support::lsp::uri("graph_vocabulary.idp");
    let definition = e.request("textDocument/definition", at(&uri, 2, 12));
    assert_eq!(definition["uri"], json!(included), "{definition}");
    assert_eq!(
        definition["range"]["start"],
        json!({ "line": 2, "character": 4 })
    );
    let mut rename = at(&uri, 2, 12);
    rename["newName"] = json!("Link");
    let edit = e.request("textDocument/rename", rename);
    assert_eq!(edit["changes"][&uri].as_array().unwrap().len(), 2, "{edit}");
    assert_eq!(
        edit["changes"][&included].as_array().unwrap().len(),
        1,
        "{edit}"
    );
    e.close();
}
