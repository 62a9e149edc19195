//! The procedure runtime: an embedded Lua 5.1 in which every component of the global namespace
//! is a global, procedures are Lua functions, and IDP objects are userdata (reference §8, §9).

mod api;
mod arguments;
mod asp;
mod builtins;
mod explain;
mod interpreted;
mod ltc;
mod meta;
mod objects;
mod options;
mod parse;
mod register;
mod sandbox;
mod signature;
mod trace;
mod transform;
mod values;
mod visual;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use mlua::{Lua, Table as LuaTable, Value as LuaValue};

pub use builtins::{merge_structures, merge_theories};

use crate::ids::{NamespaceId, ProcId};
use crate::lua::objects::{QueryUd, StructUd, TermUd, TheoryUd, VocUd};
use crate::lua::options::OptionsUd;
use crate::sema::{Component, Procedure, Program};

const PRELUDE: &str = include_str!("prelude.lua");

/// Shared state that builtins and userdata reach through the Lua app data.
pub struct State {
    /// The program; `parse` and `newvocabulary` add components to it while procedures run.
    program: RefCell<Rc<Program>>,
    /// The current options (`stdoptions`, or what `setascurrentoptions` installed).
    pub options: RefCell<OptionsUd>,
    pub show_warnings: bool,
    /// Whether procedures run in the sandbox (`--sandbox`): no files, processes or modules.
    pub sandbox: Cell<bool>,
    /// Number of errors reported (on stderr) while running.
    pub errors: Cell<usize>,
    warned: RefCell<HashSet<String>>,
    /// (chunk name, file, line of the body's first line) of every compiled procedure.
    chunks: RefCell<Vec<(String, String, u32)>>,
    /// What the command line set for every inference of the run.
    run: RefCell<RunSettings>,
    /// The last index of a model that a list of models did not have.
    pub missing_model: RefCell<Option<MissingModel>>,
    /// The Lua state itself, which lives as long as the process (closures of lazily
    /// interpreted symbols keep it); set when the runtime is made.
    lua: Cell<Option<&'static Lua>>,
}

/// Code indexed a model that a list of models does not have (`sols[2]` of a one-model list):
/// which, where, and what the list is.
#[derive(Clone, Debug)]
pub struct MissingModel {
    pub index: i64,
    /// How many models the list has.
    pub found: usize,
    /// How many models the inference was asked for (0: all).
    pub asked: usize,
    /// The inference that made the list (`modelexpand`).
    pub proc: String,
    /// What stopped the search, when a limit stopped it.
    pub partial: Option<String>,
    /// The chunk and line of the indexing, as Lua writes positions (`procedure main:3:`).
    pub at: String,
}

impl MissingModel {
    /// Why the model is not there, and how to ask for more.
    pub fn hint(&self) -> String {
        let MissingModel {
            index,
            found,
            asked,
            proc,
            ..
        } = self;
        let models = |n: usize| format!("{n} model{}", if n == 1 { "" } else { "s" });
        let why = if let Some(note) = &self.partial {
            format!("the search was stopped: {note}")
        } else if *found == 0 {
            "the theory has no model in this structure".to_string()
        } else if *asked > 0 && found == asked {
            format!(
                "stdoptions.nbmodels = {asked} asked for at most {}; set stdoptions.nbmodels = 0 for all models, or N for up to N",
                models(*asked)
            )
        } else {
            format!("the theory has only {} in this structure", models(*found))
        };
        format!(
            "there is no model {index}: {proc} returned {} ({why})",
            models(*found)
        )
    }
}

/// What the command line sets for every inference of a run (`--sat`, `--max-ground-size`,
/// `--stats`, `--dump ground`, the `IDP_*` knobs), on top of the procedures' options.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub sat_backend: crate::infer::SatBackend,
    pub max_ground_size: usize,
    pub observer: crate::infer::Observer,
    pub tuning: crate::infer::Tuning,
    /// The run the procedures' inferences belong to (its limits, Ctrl-C, progress).
    pub run: crate::limits::Run,
    /// Solvers raced on each search (`--threads`), unless `stdoptions.threads` says.
    pub threads: usize,
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        let defaults = crate::infer::Options::default();
        RunSettings {
            sat_backend: defaults.sat_backend,
            max_ground_size: defaults.max_ground_size,
            observer: defaults.observer,
            tuning: defaults.tuning,
            run: defaults.run,
            threads: defaults.threads,
        }
    }
}

impl State {
    pub fn options(&self) -> OptionsUd {
        self.options.borrow().clone()
    }

    /// The Lua state of the runtime, for the callbacks that must keep it.
    pub fn lua(&self) -> &'static Lua {
        self.lua.get().expect("the runtime's Lua state")
    }

    /// The program as it is now.
    pub fn program(&self) -> Rc<Program> {
        self.program.borrow().clone()
    }

    /// Replaces the program by one that extends it (`parse`): the ids that Lua values hold
    /// stay valid.
    pub fn set_program(&self, program: Program) {
        *self.program.borrow_mut() = Rc::new(program);
    }

    /// Changes the program (new components only: the ids that Lua values hold stay valid).
    pub fn update_program(&self, change: impl FnOnce(&mut Program)) {
        let mut p = self.program.borrow_mut();
        change(Rc::make_mut(&mut p));
    }

    /// The options of an inference: the current options with the run's settings.
    /// A `stdoptions.verbosity.*` above 0 turns on the `--stats` lines for the inference.
    pub fn infer_options(&self) -> crate::infer::Options {
        let run = self.run.borrow();
        let mine = self.options().infer_options();
        let mut observer = run.observer.clone();
        if mine.verbose && !observer.stats_on() {
            observer = observer.with_stats(|line| eprintln!("[stats] {line}"));
        }
        crate::infer::Options {
            sat_backend: run.sat_backend,
            max_ground_size: run.max_ground_size,
            observer,
            tuning: run.tuning.clone(),
            run: run.run.clone(),
            threads: match mine.threads {
                0 => run.threads,
                n => n,
            },
            ..mine
        }
    }

    /// The run the procedures belong to.
    pub fn run(&self) -> crate::limits::Run {
        self.run.borrow().run.clone()
    }
}

/// The state of a Lua instance created by [`Runtime`].
pub fn state(lua: &Lua) -> Rc<State> {
    lua.app_data_ref::<Rc<State>>()
        .expect("the IDP runtime state is installed")
        .clone()
}

/// A Lua runtime error with the given message.
pub fn rt_err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::RuntimeError(msg.into())
}

/// Prints `Warning: msg` on stderr (once per message) unless warnings are off.
pub fn warning(lua: &Lua, msg: &str) {
    let st = state(lua);
    if !st.show_warnings || st.options().get_bool("showwarnings") == Some(false) {
        return;
    }
    if st.warned.borrow_mut().insert(msg.to_string()) {
        eprintln!("Warning: {msg}");
    }
}

/// Prints `Error: msg` on stderr and counts the error (the run then exits with code 1).
pub fn report_error(lua: &Lua, msg: &str) {
    let st = state(lua);
    st.errors.set(st.errors.get() + 1);
    eprintln!("Error: {msg}");
}

/// The Lua error for an error that was already reported on stderr: the running chunk stops
/// without a further message (IDP3's `NoSuchProcedureException`).
pub fn already_reported() -> mlua::Error {
    mlua::Error::external(crate::error::Error::new(
        crate::error::ErrorKind::Aborted,
        "",
    ))
}

/// The result of running a chunk.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The chunk finished; what its first return value was.
    Returned(Returned),
    /// A Lua error (not yet printed).
    Failed(Failure),
}

/// A failed chunk or command: its message, already mapped to `.idp` file lines, and whether a
/// limit stopped it (an engine error of kind [`crate::error::ErrorKind::Limit`] somewhere in
/// the Lua error's chain).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub message: String,
    pub stopped: bool,
}

/// The first value a chunk returned, which the command line makes its exit code.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned {
    /// No value, or nil.
    Nothing,
    /// An integer (or a float with an integer value).
    Integer(i64),
    /// Anything else, described for a warning (`1.5`, `a string ("done")`, `a table`).
    Other(String),
}

pub struct Runtime {
    /// The Lua state lives as long as the process: procedures that interpret symbols lazily
    /// are called from inside inferences, through closures that keep it.
    lua: &'static Lua,
    state: Rc<State>,
}

impl Runtime {
    /// Creates the Lua state with all builtins, options and the program's components as
    /// globals, and compiles every procedure. Procedure compile errors are reported on stderr
    /// and counted in [`Runtime::error_count`].
    pub fn new(program: Program, show_warnings: bool) -> Result<Runtime, String> {
        let lua = Lua::new().into_static();
        let state = Rc::new(State {
            program: RefCell::new(Rc::new(program)),
            options: RefCell::new(OptionsUd::new_default()),
            run: RefCell::new(RunSettings::default()),
            show_warnings,
            sandbox: Cell::new(false),
            errors: Cell::new(0),
            warned: RefCell::new(HashSet::new()),
            chunks: RefCell::new(Vec::new()),
            missing_model: RefCell::new(None),
            lua: Cell::new(Some(lua)),
        });
        if !show_warnings {
            state
                .options()
                .0
                .borrow_mut()
                .insert("showwarnings".into(), options::OptValue::Bool(false));
        }
        lua.set_app_data(state.clone());
        let rt = Runtime { lua, state };
        rt.setup()
            .map_err(|e| format!("could not set up the Lua runtime: {}", error_message(&e)))?;
        install_limits_hook(rt.lua);
        Ok(rt)
    }

    fn setup(&self) -> mlua::Result<()> {
        let lua = self.lua;
        builtins::register(lua)?;
        ltc::register(lua)?;
        trace::register(lua)?;
        api::register(lua)?;
        parse::register(lua)?;
        transform::register(lua)?;
        explain::register(lua)?;
        arguments::register(lua)?;
        meta::register(lua)?;
        lua.globals().set("stdoptions", self.state.options())?;
        lua.load(PRELUDE).set_name("=prelude").exec()?;
        install_components(lua, &self.state, &[])?;
        Ok(())
    }

    /// Takes `os`, `io` (but writing to stdout and stderr), modules and binary chunks away
    /// from procedures (`--sandbox`; see [`sandbox`]).
    pub fn enable_sandbox(&self, read: Option<&std::path::Path>) -> Result<(), String> {
        self.state.sandbox.set(true);
        sandbox::install(self.lua, read)
            .map_err(|e| format!("could not set up the sandbox: {}", error_message(&e)))
    }

    /// Sets what every inference of the run uses (from the command line).
    pub fn set_run_settings(&self, settings: RunSettings) {
        *self.state.run.borrow_mut() = settings;
    }

    /// Number of errors reported so far (compile errors, `Error:` lines from builtins).
    pub fn error_count(&self) -> usize {
        self.state.errors.get()
    }

    /// Runs a chunk of Lua (with `::` already rewritten by the caller if needed).
    pub fn run(&self, code: &str, chunk_name: &str) -> Outcome {
        let result = self
            .lua
            .load(code)
            .set_name(format!("={chunk_name}"))
            .call::<_, mlua::MultiValue>(());
        self.outcome(result)
    }

    /// Calls the procedure `main()` (IDP3's `return idpglobal.main()`), from no chunk of its
    /// own: an error it raises at its caller has no position, which would mean nothing to the
    /// user.
    pub fn run_main(&self) -> Outcome {
        let result = match self.global("main") {
            Some(LuaValue::Function(main)) => main.call::<_, mlua::MultiValue>(()),
            _ => Err(mlua::Error::runtime("there is no procedure main()")),
        };
        self.outcome(result)
    }

    /// What running Lua code gave, for the command line.
    fn outcome(&self, result: mlua::Result<mlua::MultiValue<'static>>) -> Outcome {
        match result {
            Ok(values) => {
                let first = values.into_iter().next();
                Outcome::Returned(match first {
                    None | Some(LuaValue::Nil) => Returned::Nothing,
                    Some(LuaValue::Integer(i)) => Returned::Integer(i),
                    Some(LuaValue::Number(n)) if n.fract() == 0.0 && n.abs() < 9.0e18 => {
                        Returned::Integer(n as i64)
                    }
                    Some(LuaValue::Number(n)) => Returned::Other(format!("{n}")),
                    Some(LuaValue::String(s)) => {
                        Returned::Other(format!("a string (\"{}\")", s.to_string_lossy()))
                    }
                    Some(LuaValue::Boolean(b)) => Returned::Other(b.to_string()),
                    Some(other) => Returned::Other(format!("a {}", objects::describe(&other))),
                })
            }
            Err(e) => Outcome::Failed(self.failure(&e)),
        }
    }

    /// One command of the interactive shell: an expression is evaluated and its values are
    /// printed with IDP3's `print` (`modelexpand(T, S)[1]` shows the model); anything else is
    /// run as a statement.
    pub fn run_command(&self, code: &str) -> Result<(), Failure> {
        let (function, show) = match self.compile_command(&format!("return {code}")) {
            Ok(f) => (f, true),
            Err(_) => (
                self.compile_command(code).map_err(|e| self.failure(&e))?,
                false,
            ),
        };
        let values = function
            .call::<_, mlua::MultiValue>(())
            .map_err(|e| self.failure(&e))?;
        if show && !values.is_empty() {
            self.show_values(values).map_err(|e| self.failure(&e))?;
        }
        Ok(())
    }

    /// Prints the values of a shell command as `print` does, except a list of models (what
    /// `modelexpand`, `allmodels` or `minimize` return), which is printed as `printmodels`
    /// prints it rather than as `table: 0x...`.
    fn show_values(&self, values: mlua::MultiValue) -> mlua::Result<()> {
        let globals = self.lua.globals();
        let values = values.into_vec();
        let models = match values.first() {
            Some(LuaValue::Table(list)) => list
                .get_metatable()
                .is_some_and(|meta| meta.raw_get::<_, bool>("__idp_models").unwrap_or(false)),
            _ => false,
        };
        if models {
            let printmodels: mlua::Function = globals.get("printmodels")?;
            printmodels.call::<_, ()>(values[0].clone())?;
            // `minimize`'s optimality and value follow its models (a trace of nil does not).
            let rest = &values[1..];
            if rest.iter().all(LuaValue::is_nil) {
                return Ok(());
            }
            let print: mlua::Function = globals.get("print")?;
            return print.call::<_, ()>(mlua::MultiValue::from_vec(rest.to_vec()));
        }
        let print: mlua::Function = globals.get("print")?;
        print.call::<_, ()>(mlua::MultiValue::from_vec(values))
    }

    /// Whether `code` is a whole command, or stops before its end (an open `do`, `function`
    /// or bracket), so that the shell reads more lines, as Lua's own shell does.
    pub fn is_complete(&self, code: &str) -> bool {
        if self.compile_command(&format!("return {code}")).is_ok() {
            return true;
        }
        !matches!(
            self.compile_command(code),
            Err(mlua::Error::SyntaxError {
                incomplete_input: true,
                ..
            })
        )
    }

    fn compile_command(&self, code: &str) -> mlua::Result<mlua::Function<'static>> {
        self.lua.load(code).set_name("=stdin").into_function()
    }

    /// A failed chunk: its message, with the procedure line that called a failing built-in,
    /// and whether a limit stopped it.
    fn failure(&self, e: &mlua::Error) -> Failure {
        if let Some(engine) = engine_error(e) {
            if *engine.kind() == crate::error::ErrorKind::Aborted {
                // Reported where it happened (or a plain IDP3 message without a position).
                return Failure {
                    message: engine.message().to_string(),
                    stopped: false,
                };
            }
        }
        let raw = error_message(e);
        let mut message = self.map_message(&raw);
        // `sols[2].P` on a list of one model: say why model 2 is missing. Lua reports indexing
        // nil only as a runtime error's text (mlua's `RuntimeError(String)`), so it is read.
        let missing = self.state.missing_model.borrow_mut().take();
        if let Some(missing) = missing
            .filter(|m| !m.at.is_empty() && raw.starts_with(&m.at) && raw.contains("(a nil value)"))
        {
            message.push_str(&format!("\n  hint: {}", missing.hint()));
        } else if let Some(hint) = self.global_hint(&raw) {
            message.push_str(&format!("\n  hint: {hint}"));
        }
        let message = match self.calling_line(e) {
            Some(at) => format!("{at} {message}"),
            None => message,
        };
        Failure {
            message,
            stopped: engine_error(e).is_some_and(crate::error::Error::is_limit),
        }
    }

    /// For `attempt to call global 'printmodle' (a nil value)`: the global function spelled
    /// most like it (`printmodels`), as a `did you mean` hint.
    fn global_hint(&self, raw: &str) -> Option<String> {
        let (_, rest) = raw.split_once("attempt to call global '")?;
        let (name, rest) = rest.split_once('\'')?;
        if rest.trim() != "(a nil value)" || name.chars().count() < 4 {
            return None;
        }
        let functions: Vec<String> = self
            .lua
            .globals()
            .pairs::<LuaValue, LuaValue>()
            .filter_map(Result::ok)
            .filter_map(|(k, v)| match (k, v) {
                (LuaValue::String(k), LuaValue::Function(_)) => k.to_str().ok().map(str::to_string),
                _ => None,
            })
            .collect();
        let near = crate::sema::nearest_name(name, functions.iter().map(String::as_str))?;
        if near == "printmodels" {
            // IDP3 has no `printmodel`: one model is printed by `print`.
            return Some(
                "did you mean `printmodels`? It prints a list of models; print(m) prints one model"
                    .to_string(),
            );
        }
        Some(format!("did you mean `{near}`?"))
    }

    /// For an error raised by a built-in (`modelexpand` with a wrong argument, an inference
    /// that failed), `file:line:` of the procedure line that called it.
    fn calling_line(&self, e: &mlua::Error) -> Option<String> {
        let mlua::Error::CallbackError { traceback, .. } = e else {
            return None;
        };
        traceback.lines().map(str::trim).find_map(|frame| {
            let (at, _) = frame.split_once(": in ")?;
            let mapped = self.map_message(&format!("{at}:"));
            (mapped != format!("{at}:")).then_some(mapped)
        })
    }

    /// Rewrites `procedure NAME:LINE:` positions in a Lua message to `file:line:`.
    pub fn map_message(&self, msg: &str) -> String {
        map_message(&self.state, msg)
    }

    /// The value of a global of the global namespace (a theory, structure or term block by its
    /// name), as procedures see it now.
    fn global(&self, name: &str) -> Option<LuaValue<'static>> {
        self.lua.globals().raw_get::<_, LuaValue>(name).ok()
    }

    /// Whether the global `name` is a function (a procedure, or one that Lua code defined).
    pub fn has_function(&self, name: &str) -> bool {
        matches!(self.global(name), Some(LuaValue::Function(_)))
    }

    /// The theory named `name`.
    pub fn theory(&self, name: &str) -> Option<Rc<RefCell<crate::sema::Theory>>> {
        objects::as_theory(&self.global(name)?)
    }

    /// The structure named `name`, with the tables its procedures interpret filled in.
    pub fn structure(&self, name: &str) -> Option<objects::SharedStructure> {
        objects::as_structure(&self.global(name)?)
    }

    /// The term block named `name`.
    pub fn term(&self, name: &str) -> Option<Rc<crate::sema::TermBlock>> {
        objects::as_term(&self.global(name)?)
    }

    /// The options of an inference run now: the current `stdoptions` with the run's settings.
    pub fn infer_options(&self) -> crate::infer::Options {
        self.state.infer_options()
    }

    /// The run the procedures belong to: its limits, stop requests and progress.
    pub fn limits(&self) -> crate::limits::Run {
        self.state.run()
    }

    /// Whether procedures run in the sandbox (`--sandbox`).
    pub fn sandboxed(&self) -> bool {
        self.state.sandbox.get()
    }

    /// Shows a warning as procedures' warnings are shown (once, unless warnings are off).
    pub fn warn(&self, message: &str) {
        warning(self.lua, message);
    }

    /// The resolved program (with the vocabularies procedures made since, `newvocabulary`).
    pub fn program(&self) -> Rc<Program> {
        self.state.program()
    }

    pub fn lua(&self) -> &Lua {
        self.lua
    }

    /// Flushes what Lua printed, so that it comes before what Rust prints next.
    pub fn flush_stdout(&self) {
        let _ = self.lua.load("io.stdout:flush()").exec();
    }
}

/// The Lua text of a procedure: its chunk name (`procedure NS::name`) and a chunk that returns
/// the function. Line k of the chunk is line `body_line + k - 1` of the file.
fn procedure_chunk(p: &Procedure) -> (String, String) {
    let fname = if is_lua_identifier(&p.name) {
        p.name.clone()
    } else {
        "__idp_procedure".to_string()
    };
    let mut qualified = p.namespace.clone();
    qualified.push(p.name.clone());
    let chunk = format!("procedure {}", qualified.join("::"));
    let code = format!(
        "local function {fname}({}) {}\nend\nreturn {fname}",
        p.params.join(", "),
        p.body
    );
    (chunk, code)
}

/// A Lua syntax error in the body of a procedure.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcedureSyntaxError {
    pub procedure: ProcId,
    /// The line of the procedure's file.
    pub line: u32,
    pub message: String,
}

/// Compiles every procedure body, without running anything, in a bare Lua state, and returns
/// the syntax errors (`--check` and the command line report them with their file line).
pub fn procedure_syntax_errors(program: &Program) -> Vec<ProcedureSyntaxError> {
    let lua = Lua::new();
    let mut out = Vec::new();
    for (k, p) in program.procedures.iter().enumerate() {
        let (chunk, code) = procedure_chunk(p);
        if let Err(e) = lua.load(code).set_name(format!("={chunk}")).into_function() {
            let (line, message) = syntax_error_in(p, &chunk, &error_message(&e));
            out.push(ProcedureSyntaxError {
                procedure: ProcId(k as u32),
                line,
                message,
            });
        }
    }
    out
}

/// The syntax errors of the procedures as diagnostics at their file lines (`--check`, the
/// command line and the language server report them).
pub fn procedure_syntax_diagnostics(
    program: &Program,
    sources: &crate::source::SourceMap,
) -> Vec<crate::diagnostics::Diagnostic> {
    let mut out = Vec::new();
    for e in procedure_syntax_errors(program) {
        let p = &program.procedures[e.procedure.index()];
        let span = sources.line_span(p.span.file, e.line).or(Some(p.span));
        let mut d = crate::diagnostics::Diagnostic::error(
            "lua-syntax-error",
            format!("Lua syntax error in procedure {}: {}", p.name, e.message),
            span,
        );
        if let Some(hint) = lua_syntax_hint(&e.message) {
            d = d.with_hint(hint);
        }
        out.push(d);
    }
    out
}

fn lua_syntax_hint(message: &str) -> Option<&'static str> {
    message
        .ends_with("near '!'")
        .then_some("Lua writes \"is not equal to\" as '~=' (and \"not\" as `not`), not '!='")
}

/// The file line and the message of a syntax error that Lua reported in the chunk of `p`
/// (`procedure NAME:LINE: message`). The text that `idp` adds around the body (`local function
/// NAME(...)`, the closing `end`) never shows: an error after the body is put at the procedure's
/// closing `}`, and `(to close 'function' at line 1)` becomes `(to close the procedure)`.
fn syntax_error_in(p: &Procedure, chunk: &str, raw: &str) -> (u32, String) {
    let body_lines = p.body.matches('\n').count() as u32 + 1;
    let to_file = |line: u32| p.body_line + line.min(body_lines).saturating_sub(1);
    let Some((line, message)) = raw
        .strip_prefix(&format!("{chunk}:"))
        .and_then(|rest| rest.split_once(": "))
        .and_then(|(n, m)| Some((n.parse::<u32>().ok()?, m)))
    else {
        return (p.body_line, raw.to_string());
    };
    let mut message = message.replace(
        "(to close 'function' at line 1)",
        "(to close the procedure)",
    );
    // `(to close 'for' at line 3)`: a line of the chunk.
    if let Some(at) = message.find(" at line ") {
        let digits: String = message[at + 9..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(n) = digits.parse::<u32>() {
            message.replace_range(at + 9..at + 9 + digits.len(), &to_file(n).to_string());
        }
    }
    if line > body_lines {
        // Lua met the `end` that closes the function idp wrapped the body in (or what follows).
        // Lua's parser gives a syntax error only as text; mlua's `incomplete_input` is read off
        // the same text (`near <eof>`) and does not tell these three cases apart (an unfinished
        // long comment is also at `<eof>`), so the text is what is read.
        let long = message.starts_with("unfinished long ");
        if let Some(opened) = long.then(|| unclosed_long_bracket(&p.body)).flatten() {
            let what = if opened.comment { "comment" } else { "string" };
            let message = format!(
                "a long {what} opened with `{}` is not closed: `{}` expected before the '}}' \
                 that ends the procedure",
                opened.open, opened.close
            );
            return (to_file(opened.line), message);
        }
        message = if message.starts_with("'end' expected") {
            "a block (do, for, function, if, repeat, while) is not closed: 'end' expected before the '}' that ends the procedure".to_string()
        } else if message.starts_with("'<eof>' expected") {
            "an 'end' too many: the procedure's body is closed before its '}'".to_string()
        } else {
            "the last statement is unfinished at the '}' that ends the procedure".to_string()
        };
    }
    (to_file(line), message)
}

/// A long bracket of Lua (`--[[`, `[==[`) that a procedure's body opens and never closes.
struct LongBracket {
    /// The line of the body (from 1) where it opens.
    line: u32,
    /// Whether it opens a comment (`--[[`) rather than a string (`[[`).
    comment: bool,
    /// The text that opens it and the text that would close it.
    open: String,
    close: String,
}

/// The long bracket that `body` leaves open at its end, if any: the body is scanned as Lua
/// scans it, skipping short strings, line comments and closed long brackets.
fn unclosed_long_bracket(body: &str) -> Option<LongBracket> {
    let bytes = body.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        let comment = body[k..].starts_with("--");
        let start = if comment { k + 2 } else { k };
        if let Some(level) = crate::syntax::lua_text::long_bracket_level(&bytes[start..]) {
            let close = format!("]{}]", "=".repeat(level));
            let after = start + level + 2;
            match body[after..].find(&close) {
                Some(at) => k = after + at + close.len(),
                None => {
                    let open =
                        format!("{}[{}[", if comment { "--" } else { "" }, "=".repeat(level));
                    let line = body[..k].matches('\n').count() as u32 + 1;
                    return Some(LongBracket {
                        line,
                        comment,
                        open,
                        close,
                    });
                }
            }
        } else if comment {
            k = body[k..].find('\n').map_or(bytes.len(), |at| k + at);
        } else if bytes[k] == b'"' || bytes[k] == b'\'' {
            k = crate::syntax::lua_text::end_of_short_string(bytes, k);
        } else {
            k += 1;
        }
    }
    None
}

/// Makes the program's components Lua values: globals (the global namespace) and members of
/// their namespaces' tables, procedures compiled last. `installed[k]` is the number of members
/// of namespace `k` that are Lua values already: none when the runtime starts, the program's
/// members before `parse` when it added more. Errors are reported and counted.
pub(crate) fn install_components(
    lua: &'static Lua,
    state: &State,
    installed: &[usize],
) -> mlua::Result<()> {
    let program = &state.program();
    let n = program.namespaces.len();
    // Structures with procedure-interpreted symbols, filled in once procedures exist.
    let mut with_procedures = Vec::new();
    // Namespace 0 is the global namespace: its members are globals. A namespace installed
    // before keeps its table (found in its parent's); a new one gets a new table.
    let mut tables: Vec<LuaTable> = Vec::with_capacity(n);
    let make_ns: mlua::Function = lua.globals().get("__idp_new_namespace")?;
    for k in 0..n {
        let ns = &program.namespaces[k];
        let known = match ns.parent {
            None => Some(lua.globals()),
            Some(parent) if k < installed.len() => {
                tables[parent.index()].raw_get::<_, Option<LuaTable>>(ns.name.as_str())?
            }
            Some(_) => None,
        };
        let table = match known {
            Some(table) => table,
            None => make_ns.call(ns.name.clone())?,
        };
        tables.push(table);
    }
    let new_members = |k: usize| {
        let skip = installed.get(k).copied().unwrap_or(0);
        program.namespaces[k].members.iter().skip(skip)
    };
    for k in 0..n {
        for (name, comp) in new_members(k) {
            let v: LuaValue = match *comp {
                Component::Vocabulary(id) => LuaValue::UserData(lua.create_userdata(VocUd(id))?),
                Component::Theory(id) => LuaValue::UserData(lua.create_userdata(TheoryUd(
                    Rc::new(RefCell::new(program.theory(id).clone())),
                ))?),
                Component::Structure(id) => {
                    let structure = Rc::new(RefCell::new(program.structures[id.index()].clone()));
                    if !structure.borrow().procedures.is_empty() {
                        with_procedures.push(structure.clone());
                    }
                    LuaValue::UserData(lua.create_userdata(StructUd(structure))?)
                }
                Component::Term(id) => LuaValue::UserData(
                    lua.create_userdata(TermUd(Rc::new(program.terms[id.index()].clone())))?,
                ),
                Component::Query(id) => LuaValue::UserData(
                    lua.create_userdata(QueryUd(Rc::new(program.queries[id.index()].clone())))?,
                ),
                Component::Namespace(id) => LuaValue::Table(tables[id.index()].clone()),
                Component::Procedure(_) => continue,
            };
            tables[k].raw_set(name.as_str(), v)?;
        }
    }
    lua.globals().set("idpglobal", lua.globals())?;
    // Procedures last, so that namespaces are complete when their environments are built.
    let make_env: mlua::Function = lua.globals().get("__idp_namespace_env")?;
    for k in 0..n {
        let env = if k == 0 {
            None
        } else {
            // The chain of namespaces from this one outwards (excluding the global one).
            let mut chain = Vec::new();
            let mut cur = Some(NamespaceId(k as u32));
            while let Some(c) = cur {
                if c.index() == 0 {
                    break;
                }
                chain.push(tables[c.index()].clone());
                cur = program.namespaces[c.index()].parent;
            }
            Some(make_env.call::<_, LuaTable>(mlua::Variadic::from_iter(chain))?)
        };
        for (name, comp) in new_members(k) {
            if let Component::Procedure(pid) = *comp {
                match compile_procedure(lua, state, pid, env.clone()) {
                    Ok(f) => tables[k].raw_set(name.as_str(), f)?,
                    Err(msg) => report_setup_error(state, &msg),
                }
            }
        }
    }
    for structure in with_procedures {
        // A procedure that fails now may need what `main` sets up first (a table it reads):
        // IDP3 calls such procedures only when an inference looks the symbol up
        // (`ProcInternalPredTable`, `src/structure/StructureComponents.cpp`), so the structure
        // is filled again when it is first used ([`interpreted::fill_deferred`]), and only an
        // error then is reported.
        let before = structure.borrow().clone();
        let filled =
            interpreted::fill_tables(lua, program, &lua.globals(), &mut structure.borrow_mut());
        if filled.is_err() {
            *structure.borrow_mut() = before;
            interpreted::defer(lua);
        }
    }
    Ok(())
}

/// Fills a structure whose procedures failed at setup ([`interpreted::fill_deferred`]);
/// an error is reported as one at setup.
pub(crate) fn fill_deferred_structure(lua: &'static Lua, structure: &objects::SharedStructure) {
    let st = state(lua);
    let program = st.program();
    let filled =
        interpreted::fill_tables(lua, &program, &lua.globals(), &mut structure.borrow_mut());
    if let Err(msg) = filled {
        report_setup_error(&st, &msg);
    }
}

/// An error while setting up (or while `parse` adds components): printed, and counted so that
/// the run exits with code 1.
fn report_setup_error(state: &State, msg: &str) {
    state.errors.set(state.errors.get() + 1);
    eprintln!("Error: {msg}");
}

fn compile_procedure<'lua>(
    lua: &'lua Lua,
    state: &State,
    pid: ProcId,
    env: Option<LuaTable<'lua>>,
) -> Result<mlua::Function<'lua>, String> {
    let program = state.program();
    let p = &program.procedures[pid.index()];
    let (chunk, code) = procedure_chunk(p);
    state
        .chunks
        .borrow_mut()
        .push((chunk.clone(), p.file.clone(), p.body_line));
    let mut loader = lua.load(code).set_name(format!("={chunk}"));
    if let Some(env) = env {
        loader = loader.set_environment(env);
    }
    let f = loader.into_function().map_err(|e| {
        let (line, message) = syntax_error_in(p, &chunk, &error_message(&e));
        format!("{}:{line}: {message}", p.file)
    })?;
    f.call::<_, mlua::Function>(())
        .map_err(|e| map_message(state, &error_message(&e)))
}

/// Rewrites `procedure NAME:LINE:` positions in a Lua message to `file:line:`.
pub(crate) fn map_message(state: &State, msg: &str) -> String {
    let mut out = msg.to_string();
    for (chunk, file, body_line) in state.chunks.borrow().iter() {
        let pat = format!("{chunk}:");
        let mut result = String::new();
        let mut rest = out.as_str();
        while let Some(pos) = rest.find(&pat) {
            let after = &rest[pos + pat.len()..];
            let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty() && after[digits.len()..].starts_with(':') {
                let line: u32 = digits.parse().unwrap_or(1);
                result.push_str(&rest[..pos]);
                result.push_str(&format!("{}:{}:", file, body_line + line.saturating_sub(1)));
                rest = &after[digits.len() + 1..];
            } else {
                result.push_str(&rest[..pos + pat.len()]);
                rest = after;
            }
        }
        result.push_str(rest);
        out = result;
    }
    out
}

/// Every few thousand Lua instructions, checks the wall-time and memory limits and Ctrl-C, so
/// that an endless loop in a procedure stops with a limit message.
fn install_limits_hook(lua: &Lua) {
    let every = mlua::HookTriggers::new().every_nth_instruction(4096);
    lua.set_hook(every, |lua, _| {
        state(lua).run().lua_check().map_err(mlua::Error::external)
    });
}

fn is_lua_identifier(s: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ];
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// The engine error that a Lua error carries (an inference's error, passed through Lua as an
/// external error), if it carries one.
pub fn engine_error(e: &mlua::Error) -> Option<&crate::error::Error> {
    match e {
        mlua::Error::CallbackError { cause, .. } => engine_error(cause),
        mlua::Error::WithContext { cause, .. } => engine_error(cause),
        mlua::Error::BadArgument { cause, .. } => engine_error(cause),
        mlua::Error::ExternalError(inner) => inner.downcast_ref::<crate::error::Error>(),
        _ => None,
    }
}

/// The innermost message of a Lua error, without tracebacks.
pub fn error_message(e: &mlua::Error) -> String {
    let s = raw_error_message(e);
    match s.find("\nstack traceback:") {
        Some(p) => s[..p].to_string(),
        None => s,
    }
}

fn raw_error_message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => error_message(cause),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::ExternalError(inner) => inner.to_string(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::WithContext { context, cause } => {
            format!("{}: {}", context, error_message(cause))
        }
        mlua::Error::BadArgument {
            to,
            pos,
            name,
            cause,
        } => {
            let what = name.clone().unwrap_or_else(|| format!("#{pos}"));
            match to {
                Some(f) => format!("bad argument {what} to {f}: {}", error_message(cause)),
                None => format!("bad argument {what}: {}", error_message(cause)),
            }
        }
        other => {
            let s = other.to_string();
            match s.find("\nstack traceback:") {
                Some(p) => s[..p].to_string(),
                None => s,
            }
        }
    }
}
