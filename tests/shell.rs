//! The interactive shell (`idp -i`): commands piped in (no prompts), and typed into a real
//! terminal (prompts, continuation lines, Ctrl-C stopping a search but not the shell).

mod support;

use support::terminal::{tmux, wait_for};

const SPEC: &str = "vocabulary V {
  type N isa int
  P(N)
}
theory T : V { ?=1 x: P(x). }
structure S : V { N = { 1..2 } }
";

/// 13 pigeons in 12 holes: a search that does not end soon.
const PIGEONS: &str = "vocabulary W {
  type Pigeon isa int
  type Hole isa int
  In(Pigeon, Hole)
}
theory H : W {
  ! p: ? h: In(p, h).
  ! h p1 p2: In(p1, h) & In(p2, h) => p1 = p2.
}
structure G : W {
  Pigeon = { 1..13 }
  Hole = { 1..12 }
}
";

fn write_spec(text: &str) -> String {
    let dir = support::test_dir("shell");
    let path = dir.join("spec.idp");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn piped_commands_print_values_run_statements_and_go_on_after_errors() {
    let spec = write_spec(SPEC);
    let commands = "print(1 + 1)\n1 + 2\nx = 5\nx * 2\nfor i = 1, 2 do\n  print(i)\nend\n\
                    modelexpand(T, S)[1]\nnosuch()\n#modelexpand(T, S)\nV::P\nexit\nprint(0)\n";
    let o = support::idp(&["--nowarnings", "-i", &spec], commands);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "2\n3\n10\n1\n2\nstructure  : V {\n  N = { 1..2 }\n  P = { 2 }\n}\n\n1\nP\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "Error: stdin:1: attempt to call global 'nosuch' (a nil value)\n"
    );
}

/// As IDP3's shell: `help` is `help()`, and `quit()`, `exit()`, `quit` and `exit` leave.
#[test]
fn help_quit_and_exit_as_in_idp3() {
    let spec = write_spec(SPEC);
    for leave in ["quit()", "exit()", "quit", "exit"] {
        let commands = format!("help\nprint(7)\n{leave}\nprint(8)\n");
        let o = support::idp(&["--nowarnings", "-i", &spec], &commands);
        assert_eq!(o.status.code(), Some(0), "{leave}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("modelexpand"),
            "help lists the procedures: {out}"
        );
        assert!(
            out.ends_with("7\n"),
            "{leave} leaves before print(8): {out}"
        );
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{leave}");
    }
}

#[test]
fn an_unfinished_command_at_the_end_is_reported() {
    let o = support::idp(&["-i"], "for i = 1, 2 do\n  print(i)\n");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "Error: stdin:2: 'end' expected (to close 'for' at line 1) near '<eof>'\n"
    );
}

/// Types `text` (literally: `end` alone would be taken for the End key) and Enter.
fn type_line(session: &str, text: &str) {
    tmux(&["send-keys", "-t", session, "-l", text]);
    tmux(&["send-keys", "-t", session, "Enter"]);
}

/// Typed into a terminal: the prompt, a continuation line, and Ctrl-C stopping a search and
/// coming back to the prompt (skipped without tmux).
#[test]
fn the_shell_in_a_terminal() {
    if tmux(&["-V"]).is_none() {
        eprintln!("tmux not found: skipped");
        return;
    }
    let spec = write_spec(&format!("{SPEC}{PIGEONS}"));
    let session = format!("idp-shell-test-{}", std::process::id());
    let command = format!(
        "{} --nowarnings -i {spec}; echo shell-ended-$?; sleep 20",
        support::IDP
    );
    support::terminal::start(&session, 100, 40, &command);
    // Each line once the prompt is back: the line editor drops what is typed ahead.
    wait_for(&session, "leaves.\n>");
    type_line(&session, "6 * 7");
    wait_for(&session, "42\n>");
    type_line(&session, "for i = 1, 2 do");
    wait_for(&session, "do\n>>");
    type_line(&session, "print(i * 100)");
    wait_for(&session, "100)\n>>");
    type_line(&session, "end");
    wait_for(&session, "200\n>");
    type_line(&session, "modelexpand(H, G)");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    tmux(&["send-keys", "-t", &session, "C-c"]);
    wait_for(&session, "Stopped: ");
    std::thread::sleep(std::time::Duration::from_millis(500));
    type_line(&session, "print('still ' .. 'here')");
    wait_for(&session, "still here\n>");
    type_line(&session, "exit");
    let pane = wait_for(&session, "shell-ended-0");
    tmux(&["kill-session", "-t", &session]);
    assert!(pane.contains("> 6 * 7"), "{pane}");
    assert!(pane.contains("interrupted (Ctrl-C)"), "{pane}");
}
