//! `idp serve` through its HTTP API: diagnostics equal to the command line's, runs of `main`,
//! model expansion and minimisation, Stop, files confined to the folder, bad requests, killed
//! children, and a load of 20 concurrent runs with an endless loop and a memory hog among them.
//! (The page itself is tested in a real browser by `tests/serve_browser.rs`.)

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::crate_dir;
use support::serve::{idp, request, request_text, rows, run_body, scratch_dir, segments, Server};

/// The number of the last `Model K` heading in a running run's output (0 if none).
fn last_model_printed(status: &Value) -> usize {
    let tail = status["stdout"].as_str().unwrap_or("");
    tail.lines()
        .rev()
        .filter_map(|l| l.strip_prefix("Model "))
        .find_map(|k| k.trim().parse().ok())
        .unwrap_or(0)
}

/// A status and a body read as JSON.
fn json_of((status, text): (u16, String)) -> (u16, Value) {
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

const ENDLESS: &str =
    "vocabulary V {\n    type T\n}\nprocedure main() {\n    while true do end\n}\n";
const HOG: &str = "vocabulary V {\n    type T\n}\nprocedure main() {\n    local t = {}\n    local i = 0\n    while true do\n        i = i + 1\n        t[i] = string.rep(\"x\", 1000000) .. i\n    end\n}\n";

/// The number K of `Number of models: K` in idp's output.
fn number_of_models(text: &str) -> usize {
    text.lines()
        .find_map(|l| l.strip_prefix("Number of models: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no model count in {text}"))
}

fn all_text(status: &Value) -> String {
    segments(status, "text")
        .iter()
        .map(|s| s["text"].as_str().unwrap_or(""))
        .collect()
}

#[test]
fn diagnostics_are_the_command_lines() {
    let dir = scratch_dir("diagnostics");
    let good = std::fs::read_to_string(crate_dir().join("examples/graph-colouring.idp")).unwrap();
    let typo = good.replacen("Colouring(x) ~=", "Colourin(x) ~=", 1);
    assert_ne!(good, typo);
    std::fs::write(dir.join("typo.idp"), &typo).unwrap();
    let (code, _, cli) = idp(&dir, &["--check", "--color", "never", "typo.idp"]);
    assert_eq!(code, 1);

    let server = Server::start(&dir, &[]);
    let (status, v) = server.post("/api/check", &json!({ "path": "typo.idp", "text": typo }));
    assert_eq!(status, 200, "{v}");
    let errors: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{v}");
    let d = errors[0];
    assert_eq!(d["code"], "unknown-symbol");
    // The same text as the command line's, but for the buffer's name.
    let rendered = d["text"].as_str().unwrap().replace("stdin:", "typo.idp:");
    assert!(
        cli.contains(&rendered),
        "CLI said:\n{cli}\nserver said:\n{rendered}"
    );
    assert!(d["hint"].as_str().is_some_and(|h| !h.is_empty()), "{d}");
    let (from, to) = (
        d["from"].as_u64().unwrap() as usize,
        d["to"].as_u64().unwrap() as usize,
    );
    assert!(
        typo[from..to].starts_with("Colourin"),
        "{:?}",
        &typo[from..to]
    );
    assert_eq!(v["summary"]["theories"], json!(["T"]));
    assert_eq!(v["summary"]["structures"], json!(["S"]));

    let (_, fixed) = server.post("/api/check", &json!({ "path": "typo.idp", "text": good }));
    let errors = fixed["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(errors, 0, "{fixed}");
    assert_eq!(fixed["exit_code"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn main_of_the_maze_gives_a_table_and_a_picture() {
    let root = crate_dir();
    let server = Server::start(&root, &["specs/maze/construction.idp"]);
    let (_, files) = server.get("/api/files");
    assert_eq!(files["opened"], json!(["specs/maze/construction.idp"]));
    let gallery: Vec<&str> = files["gallery"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(
        gallery.contains(&"examples/nqueens.idp") && gallery.contains(&"specs/theseus/theseus.idp")
    );

    let v = server.run(&run_body(
        &root,
        "specs/maze/construction.idp",
        json!({ "mode": "main" }),
    ));
    assert_eq!(v["exit_code"], 0, "{v}");
    let models = segments(&v, "model");
    assert_eq!(models.len(), 1);
    assert_eq!(models[0]["vocabulary"], "Vmaze");
    let walls = rows(models[0], "Wall");
    assert_eq!(walls.len(), 16);
    assert_eq!(walls[0], ["P(0,0)"]);
    let entrance = models[0]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Entrance")
        .unwrap();
    assert_eq!(entrance["value"], "P(1,0)");
    let pictures = segments(&v, "picture");
    assert_eq!(pictures.len(), 1);
    assert_eq!(pictures[0]["frames"], 1);
    let svg = pictures[0]["svg"].as_str().unwrap();
    assert_eq!(svg.matches("data-layers=\"Wall\"").count(), 16);
    assert!(svg.contains("5 x 5 grid of Pos"));
}

#[test]
fn model_expansion_and_minimisation_answer_as_the_command_line() {
    let root = crate_dir();
    let server = Server::start(&root, &[]);
    let (_, cli, _) = idp(&root, &["-n", "0", "examples/graph-colouring.idp"]);
    let k = number_of_models(&cli);
    assert!(k > 1, "{k}");
    let v = server.run(&run_body(
        &root,
        "examples/graph-colouring.idp",
        json!({ "mode": "expand", "theory": "T", "structure": "S", "models": 0 }),
    ));
    assert_eq!(v["exit_code"], 10, "{v}");
    assert_eq!(number_of_models(&all_text(&v)), k);
    let models = segments(&v, "model");
    assert_eq!(models.len(), k);
    assert_eq!(models[0]["title"], "Model 1");
    assert_eq!(rows(models[0], "Colouring").len(), 4);
    assert_eq!(
        segments(&v, "picture").len(),
        k.min(20),
        "pictures of the first 20 models"
    );

    let (_, cli, _) = idp(
        &root,
        &[
            "-n",
            "1",
            "--minimize",
            "TotalCost",
            "examples/minimisation.idp",
        ],
    );
    let optimum = cli
        .lines()
        .find(|l| l.starts_with("Optimal value: "))
        .unwrap();
    let v = server.run(&run_body(
        &root,
        "examples/minimisation.idp",
        json!({ "mode": "minimize", "theory": "T", "structure": "S", "term": "TotalCost" }),
    ));
    assert_eq!(v["exit_code"], 10, "{v}");
    assert!(all_text(&v).contains(optimum), "{v}");
    assert_eq!(segments(&v, "model").len(), 1);

    // No model: exit 20, and why, as `idp -n 1 --explain` says it (the page marks the lines).
    let unsat = "vocabulary V {\n    type T\n    P(T)\n}\ntheory Th : V {\n    ?x : P(x).\n    !x : ~P(x).\n}\nstructure S : V {\n    T = { 1..3 }\n}\n";
    let v = server.run(
        &json!({ "path": "", "text": unsat, "mode": "expand", "theory": "Th", "structure": "S" }),
    );
    assert_eq!(v["exit_code"], 20, "{v}");
    assert_eq!(v["outcome"], "no model (exit code 20)");
    assert_eq!(segments(&v, "model").len(), 0);
    assert_eq!(
        all_text(&v),
        "Unsatisfiable\nNumber of models: 0\n\
         Why: 2 parts of the theory have no model together; without any one of them there is one.\n  \
         stdin:6:5: ?x : P(x).\n  \
         stdin:7:5: !x : ~P(x).\n      \
         ~P(1)   (x=1)\n      ~P(2)   (x=2)\n      ~P(3)   (x=3)\n",
        "{v}"
    );
}

#[test]
fn stop_keeps_the_models_found() {
    let root = crate_dir();
    let server = Server::start(&root, &[]);
    let id = server.start_run(
        &json!({ "text": MANY, "mode": "expand", "theory": "Th", "structure": "S", "models": 0 }),
    );
    // Late: past the first 8 MB of output (about 70000 models), which is all the server keeps
    // of its start.
    let start = Instant::now();
    while last_model_printed(&server.get(&format!("/api/runs/{id}")).1) < 80_000 {
        assert!(start.elapsed() < Duration::from_secs(120), "too slow");
        std::thread::sleep(Duration::from_millis(200));
    }
    let (status, v) = server.post(&format!("/api/runs/{id}/stop"), &json!({}));
    assert_eq!((status, &v["stopping"]), (200, &json!(true)));
    let stopped = Instant::now();
    let v = server.wait_run(&id, Duration::from_secs(60));
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "{:?}",
        stopped.elapsed()
    );
    assert_eq!(v["exit_code"], 3, "{}", v["stderr"]);
    assert_eq!(v["outcome"], "stopped by Stop (exit code 3)");
    assert_eq!(v["stdout_truncated"], true, "past 8 MB of output");
    let stderr = v["stderr"].as_str().unwrap();
    let found: usize = stderr
        .split("Stopped: Stop was pressed after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no kept-models line in {stderr}"));
    assert!(
        stderr.contains("(the models found so far were kept)"),
        "{stderr}"
    );
    assert!(found > 0 && found < 1 << 22, "{found}");
    assert_eq!(number_of_models(&all_text(&v)), found);
    // At most 300 models become tables; the others are counted in a note, and no blank
    // text stands for them.
    assert_eq!(segments(&v, "model").len(), found.min(300));
    assert!(found > 300, "{found}");
    let note = format!(
        "({} more models are not shown as tables; 300 are)\n",
        found - 300
    );
    assert_eq!(
        all_text(&v),
        format!("\nNumber of models: {found}\n{note}"),
        "{}",
        v["stdout_truncated"]
    );
}

#[test]
fn bad_requests_are_refused() {
    let dir = scratch_dir("bad");
    std::fs::create_dir_all(dir.join("inside")).unwrap();
    std::fs::write(dir.join("inside/a.idp"), "vocabulary V {\n}\n").unwrap();
    std::fs::write(dir.join("secret.idp"), "outside").unwrap();
    let server = Server::start(&dir.join("inside"), &["a.idp"]);
    let p = server.port;
    let cases: Vec<(u16, Value)> = vec![
        server.get("/api/file?path=../secret.idp"),
        server.get("/api/file?path=%2Fetc%2Fpasswd"),
        server.get("/api/file?path=nothere.idp"),
        server.get("/api/runs/999"),
        server.get("/api/runs/x"),
        server.get("/nothing"),
        server.post(
            "/api/save",
            &json!({ "path": "../secret.idp", "text": "x" }),
        ),
        server.post(
            "/api/run",
            &json!({ "text": "", "mode": "expand", "theory": "T) os.exit(", "structure": "S" }),
        ),
        server.post("/api/run", &json!({ "text": "", "mode": "sing" })),
        request(
            p,
            "GET",
            "/api/health",
            None,
            &[("Host", "evil.example:80"), ("X-Idp-Token", &server.token)],
        ),
        json_of(server.page("test-page-0").request(
            "POST",
            "/api/save",
            Some(json!({ "path": "a.idp", "text": "x" }).to_string()),
            &[("Content-Type", "text/plain")],
        )),
        // No token, a wrong one, no page.
        request(p, "GET", "/api/files", None, &[]),
        request(p, "GET", "/api/files", None, &[("X-Idp-Token", "0123")]),
        request(
            p,
            "POST",
            "/api/run",
            Some(&json!({ "text": "" })),
            &[("X-Idp-Token", &server.token)],
        ),
        server.post("/api/save", &json!({ "path": "notes.txt", "text": "x" })),
    ];
    let statuses: Vec<u16> = cases.iter().map(|c| c.0).collect();
    assert_eq!(
        statuses,
        [403, 403, 404, 404, 404, 404, 403, 400, 400, 403, 400, 403, 403, 400, 403],
        "{cases:?}"
    );
    assert_eq!(
        cases[11].1["error"],
        "this request lacks the server's token: open the address that idp serve printed (it ends in ?token=...)"
    );
    assert_eq!(
        cases[13].1["error"],
        "runs belong to a page: send an X-Idp-Page header (8 to 64 letters, digits or -)"
    );
    assert_eq!(
        cases[14].1["error"],
        "only .idp files are saved from the page, not notes.txt (Download keeps a copy)"
    );
    assert!(!dir.join("inside/notes.txt").exists());
    assert_eq!(
        cases[0].1["error"].as_str().unwrap(),
        format!(
            "../secret.idp is outside the folder idp serve serves ({})",
            dir.join("inside").canonicalize().unwrap().display()
        )
    );
    assert_eq!(
        cases[7].1["error"],
        "'T) os.exit(' is not the name of a theory"
    );
    let (status, text) =
        server
            .page("test-page-0")
            .request("POST", "/api/check", Some("{not json".into()), &[]);
    assert_eq!(status, 400, "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.join("secret.idp")).unwrap(),
        "outside"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("inside/a.idp")).unwrap(),
        "vocabulary V {\n}\n"
    );
    // The page and its bundle.
    let (status, html) = request_text(p, "GET", "/", None, &[]);
    assert_eq!(status, 200);
    assert!(html.contains("<script src=\"/app.js\"></script>"));
    let (status, js) = request_text(p, "GET", "/app.js", None, &[]);
    assert_eq!(status, 200);
    assert!(js.len() > 100_000 && js.contains("idpEditor"));
    // The guide at /docs: the book when docs/build.sh has built it, else how to build it.
    assert!(html.contains("href=\"/docs/\""));
    let (status, guide) = request_text(p, "GET", "/docs/", None, &[]);
    assert_eq!(status, 200);
    assert!(
        guide.contains("docs/build.sh") || guide.contains("idp: a guide to FO(.)"),
        "{guide}"
    );
    let (status, _) = request_text(p, "GET", "/docs/../Cargo.toml", None, &[]);
    assert_eq!(status, 404);
    let (_, health) = server.get("/api/health");
    assert_eq!(health["ok"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `idp serve FILE` from another folder serves the file's folder (issue 30).
#[test]
fn a_file_elsewhere_is_served_from_its_folder() {
    let dir = scratch_dir("elsewhere");
    std::fs::create_dir_all(dir.join("course")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::write(dir.join("course/maze.idp"), "// maze").unwrap();
    let file = dir.join("course/maze.idp").display().to_string();
    let server = Server::start(&dir.join("home"), &[&file]);
    let (status, v) = server.get("/api/files");
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (&v["folder"], &v["opened"]),
        (&json!("course"), &json!(["maze.idp"]))
    );
    let (_, v) = server.get("/api/file?path=maze.idp");
    assert_eq!(v["text"], "// maze");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn saves_stay_inside_the_folder() {
    let dir = scratch_dir("save");
    std::fs::create_dir_all(dir.join("work/sub")).unwrap();
    std::fs::write(dir.join("work/sub/a.idp"), "old").unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("work/up")).unwrap();
    let server = Server::start(&dir.join("work"), &[]);
    let (status, v) = server.post(
        "/api/save",
        &json!({ "path": "sub/a.idp", "text": "new text" }),
    );
    assert_eq!(
        (status, &v["saved"], &v["bytes"]),
        (200, &json!("sub/a.idp"), &json!(8))
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("work/sub/a.idp")).unwrap(),
        "new text"
    );
    let (status, _) = server.post("/api/save", &json!({ "path": "sub/b.idp", "text": "b" }));
    assert_eq!(status, 200);
    assert_eq!(
        std::fs::read_to_string(dir.join("work/sub/b.idp")).unwrap(),
        "b"
    );
    let (status, v) = server.post(
        "/api/save",
        &json!({ "path": "up/escape.idp", "text": "x" }),
    );
    assert_eq!(status, 403, "{v}");
    assert!(!dir.join("escape.idp").exists());
    let (_, v) = server.get("/api/file?path=sub/a.idp");
    assert_eq!(v["text"], "new text");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_survives_killed_children() {
    let root = crate_dir();
    let mut server = Server::start(&root, &[]);
    let id = server.start_run(&json!({ "text": ENDLESS }));
    std::thread::sleep(Duration::from_millis(500));
    let (_, v) = server.get(&format!("/api/runs/{id}"));
    assert_eq!(v["running"], true);
    let pid = v["pid"].as_i64().unwrap() as i32;
    // SAFETY: a plain system call on the test's own grandchild.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    let v = server.wait_run(&id, Duration::from_secs(20));
    assert_eq!(v["signal"], 9);
    assert_eq!(
        v["outcome"],
        "killed (SIGKILL: it outlived its limits, or something outside ended it)"
    );
    assert!(server.alive());
    let v = server.run(&run_body(&root, "examples/nqueens.idp", json!({})));
    assert_eq!(v["exit_code"], 0, "{v}");
    let (_, health) = server.get("/api/health");
    assert_eq!(
        (&health["ok"], &health["running"]),
        (&json!(true), &json!(0))
    );
}

/// What one run of the load test should give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    Colourings(usize),
    Maze,
    Queens,
    Endless,
    Hog,
}

#[test]
fn twenty_concurrent_runs_with_an_endless_loop_and_a_memory_hog() {
    let root = crate_dir();
    let mut server = Server::start(&root, &["--timeout", "60", "--max-memory", "1500"]);
    let (_, cli, _) = idp(&root, &["-n", "0", "examples/graph-colouring.idp"]);
    let colourings = number_of_models(&cli);
    let (_, queens, _) = idp(&root, &["examples/nqueens.idp"]);
    let mut plan = vec![Expect::Endless, Expect::Hog];
    for i in 0..18 {
        plan.push([Expect::Colourings(colourings), Expect::Maze, Expect::Queens][i % 3]);
    }
    let started = Instant::now();
    let results: Vec<(Expect, Value, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = plan
            .iter()
            .enumerate()
            .map(|(i, &expect)| {
                // Each client is a page of its own.
                let page = server.page(&format!("load-page-{i}"));
                let root = &root;
                scope.spawn(move || {
                    let body = match expect {
                        Expect::Colourings(_) => run_body(root, "examples/graph-colouring.idp", json!({ "mode": "expand", "theory": "T", "structure": "S", "models": 0 })),
                        Expect::Maze => run_body(root, "specs/maze/construction.idp", json!({})),
                        Expect::Queens => run_body(root, "examples/nqueens.idp", json!({})),
                        Expect::Endless => json!({ "text": ENDLESS, "timeout": 4 }),
                        Expect::Hog => json!({ "text": HOG, "max_memory": 300 }),
                    };
                    let t = Instant::now();
                    let v = page.run(&body);
                    (expect, v, t.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client thread"))
            .collect()
    });
    let wall = started.elapsed().as_secs_f64();
    let mut report = String::new();
    for (expect, v, seconds) in &results {
        report.push_str(&format!(
            "{expect:?}: {} in {seconds:.2} s (child {:.2} s)\n",
            v["outcome"].as_str().unwrap_or("?"),
            v["elapsed"].as_f64().unwrap_or(0.0)
        ));
        check_load_result(*expect, v, &queens);
    }
    eprintln!("20 concurrent runs in {wall:.2} s:\n{report}");
    assert!(server.alive());
    let (_, health) = server.get("/api/health");
    assert_eq!(
        (&health["ok"], &health["running"]),
        (&json!(true), &json!(0)),
        "{health}"
    );
    // The endless run and the hog hold their slots for seconds: every slot was used, no more.
    let (_, files) = server.get("/api/files");
    assert_eq!(
        health["most_running"], files["limits"]["max_runs"],
        "{health}"
    );
    let v = server.run(&run_body(&root, "examples/nqueens.idp", json!({})));
    assert_eq!(all_text(&v), queens);
}

fn check_load_result(expect: Expect, v: &Value, queens: &str) {
    let stderr = v["stderr"].as_str().unwrap_or("");
    match expect {
        Expect::Colourings(k) => {
            assert_eq!(v["exit_code"], 10, "{stderr}");
            assert_eq!(segments(v, "model").len(), k);
        }
        Expect::Maze => {
            assert_eq!(v["exit_code"], 0, "{stderr}");
            assert_eq!(rows(segments(v, "model")[0], "Wall").len(), 16);
            assert_eq!(segments(v, "picture").len(), 1);
        }
        Expect::Queens => {
            assert_eq!(v["exit_code"], 0, "{stderr}");
            assert_eq!(all_text(v), queens);
        }
        Expect::Endless => {
            assert_eq!(v["exit_code"], 3, "{v}");
            assert!(
                stderr.starts_with("Stopped: ")
                    && stderr.contains("timeout: the time limit of 4 s was reached while running a procedure (the workbench's limit for a run)"),
                "{stderr}"
            );
        }
        Expect::Hog => {
            assert_eq!(v["exit_code"], 3, "{v}");
            assert!(
                stderr.contains("more than the memory limit of 300 MB"),
                "{stderr}"
            );
        }
    }
}

const MANY: &str = "vocabulary V {\n    type T isa int\n    P(T)\n}\ntheory Th : V {\n}\nstructure S : V {\n    T = { 1..22 }\n}\n";

/// The models printed before a stop: the `Model K` headings of `text`.
fn printed_models(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with("Model ") && !l.contains(':'))
        .count()
}

/// A memory stop while models are kept for printing says it was memory and keeps the models
/// found, on the command line and in the workbench (issue 30). (`-n` keeps no model: it prints
/// each as it is found.)
#[test]
fn a_memory_stop_is_one_and_keeps_the_models() {
    let dir = scratch_dir("memory");
    std::fs::write(dir.join("many.idp"), MANY).unwrap();
    let chunk = "stdoptions.nbmodels = 0 printmodels(modelexpand(Th, S))";
    let (code, out, err) = idp(&dir, &["--max-memory", "150", "many.idp", "-e", chunk]);
    assert_eq!(code, 3, "{err}");
    let found = number_of_models(&out);
    assert_eq!(printed_models(&out), found);
    let stopped = err.lines().find(|l| l.starts_with("Stopped: ")).unwrap();
    assert!(
        stopped.starts_with("Stopped: memory: the process uses ")
            && stopped.ends_with(&format!(
                "more than the memory limit of 150 MB after {found} models (the models found so far were kept); raise it with --max-memory MB"
            )),
        "{stopped}"
    );

    let server = Server::start(&dir, &[]);
    let v = server
        .run(&json!({ "path": "many.idp", "text": MANY, "expression": chunk, "max_memory": 150 }));
    assert_eq!(v["exit_code"], 3, "{}", v["stderr"]);
    assert_eq!(v["outcome"], "stopped: memory limit reached (exit code 3)");
    let found = number_of_models(&all_text(&v));
    assert!(found > 300, "{found}");
    assert_eq!(segments(&v, "model").len(), 300);
    let stderr = v["stderr"].as_str().unwrap();
    assert!(
        stderr.starts_with("Stopped: memory: the process uses ")
            && stderr.ends_with(&format!(
                "more than the memory limit of 150 MB after {found} models (the models found so far were kept) (the workbench's limit for a run)\n"
            )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-n 0` prints each model as it is found and keeps none: 131072 models fit in 150 MB (the
/// server's runs use it).
#[test]
fn an_enumeration_that_prints_keeps_no_model() {
    let dir = scratch_dir("streaming");
    std::fs::write(dir.join("many.idp"), MANY.replace("1..22", "1..17")).unwrap();
    let (code, out, err) = idp(&dir, &["--max-memory", "150", "-n", "0", "many.idp"]);
    assert_eq!((code, err.as_str()), (10, ""));
    assert_eq!(number_of_models(&out), 1 << 17);
    assert_eq!(printed_models(&out), 1 << 17);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another page can neither read nor stop a run; its own page's closing ends it.
#[test]
fn runs_belong_to_their_page() {
    let root = crate_dir();
    let server = Server::start(&root, &[]);
    let (mine, other) = (server.page("page-mine-1"), server.page("page-other-2"));
    let id = mine.start_run(&json!({ "text": ENDLESS, "timeout": 30 }));
    assert_eq!(id.len(), 16, "{id}");
    let missing = json!({ "error": format!("there is no run {id}") });
    assert_eq!(
        other.get(&format!("/api/runs/{id}")),
        (404, missing.clone())
    );
    assert_eq!(
        other.post(&format!("/api/runs/{id}/stop"), &json!({})),
        (404, missing)
    );
    assert_eq!(
        other.post("/api/close", &json!({})),
        (200, json!({ "cancelled": 0, "consultations_closed": 0 }))
    );
    let (status, v) = mine.get(&format!("/api/runs/{id}"));
    assert_eq!((status, &v["running"]), (200, &json!(true)), "{v}");
    assert_eq!(
        mine.post("/api/close", &json!({})),
        (200, json!({ "cancelled": 1, "consultations_closed": 0 }))
    );
    let v = mine.wait_run(&id, Duration::from_secs(20));
    assert_eq!(v["outcome"], "cancelled: its page was closed");
    assert_eq!(v["signal"], 9);
}

/// Three people, three chairs, Ann and Bob not side by side.
const SEATING: &str = "vocabulary V {\n    type Person constructed from { Ann, Bob, Cy }\n    type Chair isa int\n    Seat(Person) : Chair\n}\ntheory T : V {\n    ! p q : p ~= q => Seat(p) ~= Seat(q).\n    abs(Seat(Ann) - Seat(Bob)) ~= 1.\n}\nstructure S : V {\n    Chair = { 1..3 }\n}\n";

/// A consultation through the API answers as `idp consult` does, belongs to the page that
/// opened it, and ends when that page closes; a buffer with errors says them.
#[test]
fn consultations_answer_and_belong_to_their_page() {
    let dir = scratch_dir("consult");
    let server = Server::start(&dir, &[]);
    let (mine, other) = (server.page("page-mine-1"), server.page("page-other-2"));
    let (status, opened) = mine.post("/api/consult", &json!({ "text": SEATING }));
    assert_eq!(status, 200, "{opened}");
    let id = opened["id"].as_str().expect("an id").to_string();
    assert_eq!(opened["open"]["has_model"], json!(true));
    assert_eq!(opened["open"]["atoms"], json!(9));
    let ask = |page: &support::serve::Page, question: Value| {
        let (status, mut reply) = page.post(&format!("/api/consult/{id}"), &question);
        if let Some(m) = reply.as_object_mut() {
            m.remove("ms");
        }
        (status, reply)
    };
    assert_eq!(
        ask(&mine, json!({"op": "assume", "literal": "Seat(Ann) = 1"})),
        (200, json!({"added": true, "ok": true}))
    );
    assert_eq!(
        ask(&mine, json!({"op": "forced"})),
        (
            200,
            json!({"complete": true, "ok": true,
            "false": ["Seat(Ann) = 2", "Seat(Ann) = 3", "Seat(Bob) = 1", "Seat(Bob) = 2", "Seat(Cy) = 1", "Seat(Cy) = 3"],
            "true": ["Seat(Ann) = 1", "Seat(Bob) = 3", "Seat(Cy) = 2"]})
        )
    );
    let over = json!({"error": "this consultation is over (it was closed, or idle for 30 minutes): start it again"});
    assert_eq!(ask(&other, json!({"op": "forced"})), (404, over.clone()));
    assert_eq!(
        other.post(&format!("/api/consult/{id}/close"), &json!({})),
        (200, json!({"closed": false}))
    );
    assert_eq!(
        ask(&mine, json!([1, 2])),
        (
            400,
            json!({"error": "a question is a JSON object with \"op\""})
        )
    );
    let (_, health) = server.get("/api/health");
    assert_eq!(health["consultations"], json!(1));
    assert_eq!(
        mine.post("/api/close", &json!({})),
        (200, json!({ "cancelled": 0, "consultations_closed": 1 }))
    );
    assert_eq!(ask(&mine, json!({"op": "forced"})), (404, over));
    // A buffer with an error: the command line's message.
    let (status, v) = mine.post(
        "/api/consult",
        &json!({ "text": "vocabulary V {\n    P\n}\ntheory T : V {\n    Q.\n}\n" }),
    );
    assert_eq!(status, 400);
    assert_eq!(
        v["error"],
        "Error: Predicate Q/0 is not declared in this scope. At stdin:5:5 [unknown-symbol]\n  hint: did you mean `P`?"
    );
    let (_, health) = server.get("/api/health");
    assert_eq!(health["consultations"], json!(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// With one slot, a second run waits in line, then answers.
#[test]
fn runs_wait_in_line_for_a_slot() {
    let root = crate_dir();
    let server = Server::start(&root, &["--max-runs", "1"]);
    let first = server.start_run(&json!({ "text": ENDLESS, "timeout": 2 }));
    let second = server.start_run(&run_body(&root, "examples/nqueens.idp", json!({})));
    let (_, v) = server.get(&format!("/api/runs/{second}"));
    assert_eq!(
        (&v["running"], &v["queued"], &v["pid"]),
        (&json!(true), &json!(true), &json!(0)),
        "{v}"
    );
    let v = server.wait_run(&second, Duration::from_secs(60));
    assert_eq!(v["exit_code"], 0, "{v}");
    let (_, queens, _) = idp(&root, &["examples/nqueens.idp"]);
    assert_eq!(all_text(&v), queens);
    let v = server.wait_run(&first, Duration::from_secs(30));
    assert_eq!(v["exit_code"], 3, "{v}");
}

/// A run seen over has given its slot back: the next run never waits for it (the browser
/// test's Stop step once found its run "waiting for a free slot" on a loaded machine).
#[test]
fn a_run_seen_over_has_freed_its_slot() {
    let root = crate_dir();
    let server = Server::start(&root, &["--max-runs", "1"]);
    for _ in 0..5 {
        let id = server.start_run(&run_body(&root, "examples/nqueens.idp", json!({})));
        let v = server.wait_run(&id, Duration::from_secs(60));
        assert_eq!(v["exit_code"], 0, "{v}");
        let (_, health) = server.get("/api/health");
        assert_eq!(health["slots_taken"], json!(0), "{health}");
    }
}

/// A run that finds a slot free holds it from its start: its first poll says it is not
/// waiting, however late its thread starts (the browser test's Stop step once showed "waiting
/// for a free slot" on a loaded machine with both slots free).
#[test]
fn a_run_with_a_free_slot_is_never_queued() {
    let root = crate_dir();
    let server = Server::start(&root, &["--max-runs", "1"]);
    for _ in 0..5 {
        let id = server.start_run(&run_body(&root, "examples/nqueens.idp", json!({})));
        let (_, v) = server.get(&format!("/api/runs/{id}"));
        assert_eq!(v["queued"], json!(false), "{v}");
        let v = server.wait_run(&id, Duration::from_secs(60));
        assert_eq!(v["exit_code"], 0, "{v}");
    }
}

/// A bundled level reader works from the page: procedures read the served folder's files
/// (only read, only there), with an expression run as `-e`.
#[test]
fn levels_are_read_from_the_served_folder() {
    let root = crate_dir();
    let server = Server::start(&root, &[]);
    let body = |expression: &str| {
        run_body(
            &root,
            "specs/theseus/theseus.idp",
            json!({ "expression": expression }),
        )
    };
    let (_, cli, _) = idp(
        &root,
        &[
            "specs/theseus/theseus.idp",
            "-e",
            "solve(\"specs/theseus/levels/th01_4x4_rand.lp\")",
        ],
    );
    assert!(cli.starts_with("at(3,1,0) at(2,1,1)"), "{cli}");
    for path in [
        "specs/theseus/levels/th01_4x4_rand.lp",
        "levels/th01_4x4_rand.lp",
    ] {
        let v = server.run(&body(&format!("solve(\"{path}\")")));
        assert_eq!(v["exit_code"], 0, "{v}");
        assert_eq!(all_text(&v), cli);
    }
    // The other bundled readers, with the paths their files document.
    for (spec, expression) in [
        (
            "specs/colourmaze/colourmaze.idp",
            "solvefile(\"specs/colourmaze/instances/seed7-6x6c4.txt\")",
        ),
        (
            "specs/maze/game.idp",
            "plan(\"specs/maze/game/wrongkey.txt\")",
        ),
    ] {
        let (_, cli, _) = idp(&root, &[spec, "-e", expression]);
        let v = server.run(&run_body(&root, spec, json!({ "expression": expression })));
        assert_eq!((&v["exit_code"], all_text(&v)), (&json!(0), cli), "{v}");
    }
    let v = server.run(&run_body(
        &root,
        "specs/overflow/overflow.idp",
        json!({ "expression": "picture(\"specs/overflow/levels/tiny.txt\")" }),
    ));
    assert_eq!(v["exit_code"], 0, "{v}");
    assert_eq!(segments(&v, "picture").len(), 1, "{v}");
    let v = server.run(&body("solve(\"/etc/passwd\")"));
    assert_eq!(v["exit_code"], 1, "{v}");
    assert_eq!(
        v["stderr"],
        format!(
            "Error: cannot open /etc/passwd: /etc/passwd: only the files inside {} may be read in --sandbox mode\n",
            root.canonicalize().unwrap().display()
        )
    );
    let v = server.run(&body("local f = io.open(\"README.md\", \"w\")"));
    assert_eq!(v["exit_code"], 1, "{v}");
    assert!(
        v["stderr"].as_str().unwrap().contains(
            "io.open: only reading (mode \"r\") is allowed in --sandbox mode, not mode \"w\""
        ),
        "{v}"
    );
}
