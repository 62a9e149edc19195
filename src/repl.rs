//! The interactive shell (`idp -i`), as in IDP3: once the files are loaded, Lua commands are
//! read and run one at a time in the runtime that `main` would run in. An expression's values
//! are printed (`modelexpand(T, S)[1]` shows a model), a statement is run, and code that is not
//! finished (`for i = 1, 3 do`) is continued on the next lines. Mistakes are reported and the
//! shell goes on; Ctrl-C stops the running command (keeping what it found) and returns to the
//! prompt; Ctrl-D, `exit` or `quit` leave.
//!
//! On a terminal the lines are edited with rustyline (history, cursor keys); otherwise they
//! are read from stdin without prompts, so that a script of commands can be piped in.

use std::io::{BufRead, IsTerminal};

use rustyline::error::ReadlineError;

use crate::lua::{Failure, Runtime};

const PROMPT: &str = "> ";
const CONTINUATION: &str = ">> ";

/// Where commands come from.
enum Input {
    Terminal(rustyline::DefaultEditor),
    Piped(std::io::StdinLock<'static>),
}

impl Input {
    fn open() -> Input {
        if std::io::stdin().is_terminal() {
            if let Ok(editor) = rustyline::DefaultEditor::new() {
                return Input::Terminal(editor);
            }
        }
        Input::Piped(std::io::stdin().lock())
    }

    /// The next line, `None` at the end of the input. Ctrl-C at the prompt gives an empty
    /// line (the command being typed is dropped).
    fn line(&mut self, prompt: &str) -> Option<String> {
        match self {
            Input::Terminal(editor) => match editor.readline(prompt) {
                Ok(line) => Some(line),
                Err(ReadlineError::Interrupted) => Some(String::new()),
                Err(_) => None,
            },
            Input::Piped(stdin) => {
                let mut line = String::new();
                match stdin.read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
                }
            }
        }
    }

    fn remember(&mut self, command: &str) {
        if let Input::Terminal(editor) = self {
            let _ = editor.add_history_entry(command);
        }
    }

    fn is_terminal(&self) -> bool {
        matches!(self, Input::Terminal(_))
    }
}

/// Runs the shell until the input ends; returns the exit code (0).
pub fn run(runtime: &Runtime) -> i32 {
    let mut input = Input::open();
    if input.is_terminal() {
        eprintln!(
            "idp {} interactive shell: Lua commands over the loaded files, e.g. \
             print(modelexpand(T, S)[1]); Ctrl-D or `exit` leaves.",
            env!("CARGO_PKG_VERSION")
        );
    }
    while let Some(command) = read_command(&mut input, runtime) {
        input.remember(&command);
        if let Err(failure) = runtime.run_command(&command) {
            report(runtime, &failure);
        }
        runtime.flush_stdout();
        runtime.limits().forget_stop();
    }
    0
}

/// One command: lines are joined while the code is unfinished. `None` at the end of the
/// input (an unfinished command there is returned as it is) or on `exit`/`quit`.
fn read_command(input: &mut Input, runtime: &Runtime) -> Option<String> {
    let mut command = String::new();
    loop {
        let prompt = if command.is_empty() {
            PROMPT
        } else {
            CONTINUATION
        };
        let Some(line) = input.line(prompt) else {
            // An unfinished command at the end of the input is run, to report what is missing.
            return (!command.is_empty()).then_some(command);
        };
        if command.is_empty() {
            match line.trim() {
                "" => continue,
                // As in IDP3: `exit`, `quit`, `exit()` and `quit()` leave; `help` is `help()`.
                "exit" | "quit" | "exit()" | "quit()" => return None,
                "help" => return Some("help()".to_string()),
                _ => {}
            }
        } else {
            command.push('\n');
        }
        // As with -e, `V::P` is written for `V.P`.
        command.push_str(&line.replace("::", "."));
        if runtime.is_complete(&command) {
            return Some(command);
        }
    }
}

fn report(runtime: &Runtime, failure: &Failure) {
    runtime.flush_stdout();
    let label = if failure.stopped { "Stopped" } else { "Error" };
    if !failure.message.is_empty() {
        eprintln!("{label}: {}", failure.message);
    }
}
