//! The command line, compatible with IDP3: `idp [options] [FILE...] [-e CHUNK]`.
//!
//! Files are loaded and resolved; diagnostics go to stderr; if there was no error the Lua chunk
//! (`-e`, or `return idpglobal.main()`) runs. The exit code is the integer the chunk returned
//! when no error was reported, else 0, or 1 if any error was reported, or
//! [`EXIT_LIMIT`] (3) when a limit stopped the run: the grounding size, `--timeout` or
//! `stdoptions.timeout`, `--max-memory`, or Ctrl-C.

use std::cell::{Cell, RefCell};
use std::io::{IsTerminal, Read, Write};
use std::rc::Rc;
use std::sync::OnceLock;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, ValueEnum};

use crate::diagnostics::{self, Diagnostic, Diagnostics, RenderStyle, Severity};
use crate::limits::{Run, EXIT_KILLED, EXIT_LIMIT};
use crate::lua::{Failure, Outcome, Returned, RunSettings, Runtime};
use crate::progress::Display;
use crate::sema::{Component, Program, Theory};
use crate::source::SourceMap;
use crate::structure::Structure;
use crate::visual::Options as VisualOptions;

const EXAMPLES: &str = "\
Examples:
  idp problem.idp                      run the procedure main() of problem.idp
  idp problem.idp -e 'printmodels(modelexpand(T,S))'
                                       run a Lua chunk instead of main()
  idp a.idp b.idp -e 'return test()'   load several files; exit code = returned integer
  idp -n 0 problem.idp                 print all models of its theory and structure
                                       (exit 10: models found, 20: none)
  idp -n 1 --minimize Cost problem.idp print an optimal model
  idp -n 1 --visualize problem.idp     print a model and draw its grid (--visualize=svg:F.svg)
  idp -i problem.idp                   interactive shell: Lua commands, values printed
  idp --check problem.idp              only parse and type-check
  idp --dump program problem.idp       print the program as resolved, in the file's dialect
  idp serve [FILE...] [--port N]       the workbench in the browser (idp serve --help)
  idp consult problem.idp              a consultation: JSON requests on stdin, replies on
                                       stdout (assume, forced, explain, why_not, ...)
  idp lsp                              the language server for editors (README: editors)
  idp fmt problem.idp                  lay out the file (--check: only say whether it is)
  idp < problem.idp                    read the specification from stdin
  idp --sandbox --timeout 10 --max-memory 2000 untrusted.idp
                                       run an untrusted specification: no files, processes
                                       or modules for procedures, includes only from its
                                       folder, at most 10 s and 2000 MB

Exit codes: 0 (or the integer that the chunk returned), 1 on an error, 3 when a limit stopped
the run (the grounding size, --timeout or stdoptions.timeout, --max-memory, or Ctrl-C; the
message starts with `Stopped:`), 10/20 with --models. A second Ctrl-C ends the run at once
(exit 130).

In procedures, all vocabularies, theories, structures, terms, queries and procedures of the
global namespace are Lua globals; `stdoptions` holds the options (e.g. stdoptions.nbmodels = 0).\n";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Dump {
    Ast,
    Program,
    /// The ground theory of every inference, before solving (the run goes on).
    Ground,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Sat {
    Cadical,
    /// CaDiCaL without definitions in its search: each candidate model checked after the
    /// search, loop formulas added, then the ranking translation (for comparison).
    CadicalLoops,
    Splr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// `--message-format`: diagnostics for people, or JSON lines for programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

#[derive(Parser, Debug)]
#[command(
    name = "idp",
    about = "A knowledge-base system for FO(.), compatible with IDP3",
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub struct Args {
    /// Specification files (.idp), loaded in order; stdin when none is given
    pub files: Vec<String>,
    /// Run this Lua chunk instead of `main()` (`::` is replaced by `.`); with `-n`, `--count`
    /// or `--explain`, run it first (it may make the structure searched)
    #[arg(short = 'e', long = "execute", value_name = "CHUNK")]
    pub execute: Option<String>,
    /// Do not print warnings
    #[arg(long)]
    pub nowarnings: bool,
    /// Also print IDP3's notes that say nothing about a mistake (`Verifying and/or
    /// autocompleting structure S`)
    #[arg(long)]
    pub verbose: bool,
    /// Print the version and exit
    #[arg(short = 'v', long = "version")]
    pub version: bool,
    /// Only parse and type-check the files; report diagnostics (exit 0 or 1)
    #[arg(long)]
    pub check: bool,
    /// Print the parsed AST (a Rust debug dump) or the resolved program (as IDP text: types
    /// of variables, completed structures; an IDP-Z3 file in FO(·)) and stop, or print the
    /// ground theory of each inference before it is solved (`ground`)
    #[arg(long, value_enum, value_name = "WHAT")]
    pub dump: Option<Dump>,
    /// Colour and source excerpts in diagnostics
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: Color,
    /// Read the specification from stdin (in addition to the files)
    #[arg(short = 'I')]
    pub stdin: bool,
    /// Interactive shell: after loading the files, read Lua commands (an expression's value is
    /// printed) until Ctrl-D or `exit`
    #[arg(short = 'i', long = "interactive")]
    pub interactive: bool,
    /// Data directory: `include <name>` reads DIR/share/std/name.idp when it exists (else the
    /// built-in standard library)
    #[arg(short = 'd', value_name = "DIR")]
    pub datadir: Option<String>,
    /// Model expansion without a procedure: print up to N models (0 = all) of the theory and
    /// structure; exit code 10 if a model was found, 20 if none, 1 on an error
    #[arg(short = 'n', long = "models", value_name = "N")]
    pub models: Option<usize>,
    /// With --models: the theory to use (default: the only theory of the files)
    #[arg(long, value_name = "NAME")]
    pub theory: Option<String>,
    /// With --models: the structure to use (default: the only structure of the files)
    #[arg(long, value_name = "NAME")]
    pub structure: Option<String>,
    /// Count the models instead of printing them (all of them, or up to N with --models N):
    /// prints `Number of models: N`; exit code 10 if there is one, 20 if none
    #[arg(long)]
    pub count: bool,
    /// With --models: print optimal models minimising this term block
    #[arg(long, value_name = "TERM")]
    pub minimize: Option<String>,
    /// With --models: when there is no model, say why: a minimal set of sentences (with the
    /// instances that clash), definitions and structure facts that has none
    #[arg(long)]
    pub explain: bool,
    /// With --models: say why every model satisfies this literal (`"Col(a) = red"`,
    /// `"~Edge(a,b)"`): the minimal set of sentences and facts that forces it
    #[arg(long, value_name = "LITERAL")]
    pub explain_atom: Option<String>,
    /// Stop grounding (exit code 3), naming the sentence, once the ground theory has this many
    /// nodes (about 200 bytes each; default 10000000)
    #[arg(long, value_name = "NODES")]
    pub max_ground_size: Option<usize>,
    /// Stop the whole run (grounding, search and procedures) after this many seconds, with
    /// exit code 3; `stdoptions.timeout` limits one inference
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Stop with exit code 3 once the process uses more than this much memory (default:
    /// three quarters of the physical memory; 0 = no limit)
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
    /// Run an untrusted specification: procedures get no files (but stdout and stderr), no
    /// processes, no modules, and includes must stay in the specification's folder
    #[arg(long)]
    pub sandbox: bool,
    /// The SAT solver: CaDiCaL (default; incremental, with assumptions, definitions propagated
    /// inside its search), CaDiCaL checking definitions only on each candidate model
    /// (`cadical-loops`), or splr (one-shot); the last two for comparison
    #[arg(long, value_enum, value_name = "SOLVER", default_value = "cadical")]
    pub sat: Sat,
    /// Race N CaDiCaL solvers, each in its own configuration, on every search (`auto`: one per
    /// core the machine or its container allows); the answers are those of one solver, found
    /// by whichever is fastest. `stdoptions.threads` sets it for a procedure's inferences
    #[arg(long, value_name = "N|auto", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Print per-stage sizes and times (grounding, encoding, each SAT call) on stderr
    #[arg(long)]
    pub stats: bool,
    /// With --models: also draw every model's grid (see `visualize` in the README); with
    /// =svg:FILE write SVG instead (FILE-2.svg, ... for further models)
    #[arg(long, value_name = "svg:FILE", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub visualize: Option<String>,
    /// With --models: draw the first N models whose structure has a grid (as SVG with
    /// `--message-format json`), and skip the drawing of a structure without one (for `idp
    /// serve`)
    #[arg(long, value_name = "N", hide = true)]
    pub draw_first: Option<usize>,
    /// With --visualize: `rows` draws the grid's first coordinate as rows counted from the
    /// top, as in a matrix, `xy` across with the second going up (by default rows when the
    /// first coordinate's type is named Row or r); `visualize`'s option `rows` in procedures
    #[arg(long, value_name = "rows|xy", value_parser = ["rows", "xy"])]
    pub grid: Option<String>,
    /// With --sandbox: procedures may read (only read) the files inside DIR with `io.open` and
    /// `io.lines`; a relative path is looked up in the current folder, then in DIR
    #[arg(long, value_name = "DIR")]
    pub sandbox_read: Option<String>,
    /// `json`: diagnostics, the names declared and progress as JSON lines on stderr, and
    /// `visualize` pictures as SVG on stdout (for programs such as `idp serve`)
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "human")]
    pub message_format: MessageFormat,
}

/// What `-n N` (with `--minimize`, `--visualize`) asks for: the theory, structure and term to
/// use, named on the command line or the only ones the files declare.
struct ModelRequest {
    blocks: ChosenBlocks,
    minimize: Option<String>,
    models: usize,
}

/// The theory, structure and term of `-n N`, or why they cannot be chosen.
impl Args {
    /// How many models the command line asks for without a procedure (`-n N`, all of them
    /// for `--count`, one for `--explain` and `--explain-atom`, which explain a search).
    fn models_asked(&self) -> Option<usize> {
        let explains = self.explain || self.explain_atom.is_some();
        self.models
            .or(self.count.then_some(0))
            .or(explains.then_some(1))
    }
}

fn model_request(args: &Args, n: usize, program: &Program) -> Result<ModelRequest, String> {
    let members = &program.namespaces[0].members;
    let blocks = chosen_blocks(
        program,
        &args.theory,
        &args.structure,
        args.execute.is_some(),
    )?;
    if let Some(term) = &args.minimize {
        if !matches!(members.get(term), Some(Component::Term(_))) {
            return Err(format!("there is no term named '{term}'"));
        }
    }
    visualize_options(args.visualize.as_deref(), 1)?;
    Ok(ModelRequest {
        blocks,
        minimize: args.minimize.clone(),
        models: n,
    })
}

/// The member of the global namespace named `given`, which must be of the kind (`what`) that
/// `is_kind` accepts, or else the only member of that kind.
fn pick_component(
    program: &Program,
    given: Option<&str>,
    what: &str,
    is_kind: &dyn Fn(&Component) -> bool,
) -> Result<String, String> {
    let members = &program.namespaces[0].members;
    if let Some(name) = given {
        return match members.get(name) {
            Some(c) if is_kind(c) => Ok(name.to_string()),
            _ => Err(format!("there is no {what} named '{name}'")),
        };
    }
    let found: Vec<&String> = members
        .iter()
        .filter(|(_, c)| is_kind(c))
        .map(|(k, _)| k)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("the files declare no {what}")),
        many => Err(format!(
            "the files declare {} {} ({}); choose one with --{what} NAME",
            many.len(),
            if what == "theory" {
                "theories"
            } else {
                "structures"
            },
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `idp consult`'s arguments.
#[derive(Parser, Debug)]
#[command(
    name = "idp consult",
    about = "Consult a theory interactively: one JSON request per line on stdin, one JSON reply \
             per line on stdout (see the README's reference for the requests)"
)]
struct ConsultArgs {
    /// Specification files (.idp), loaded in order; `-` alone: the specification is the first
    /// line of stdin, one JSON string (for programs that hold the text, as the workbench does)
    #[arg(required = true)]
    files: Vec<String>,
    /// The theory to consult (needed when the files declare several)
    #[arg(long)]
    theory: Option<String>,
    /// The structure to consult it over (needed when the files declare several)
    #[arg(long)]
    structure: Option<String>,
    /// Stop the whole consultation after this many seconds
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// A Lua chunk run first, for a structure that procedures build: `-e 'G = mystructure(11)'
    /// --structure G` (`::` is replaced by `.`)
    #[arg(short = 'e', long = "execute", value_name = "CHUNK")]
    execute: Option<String>,
    /// Milliseconds that one `forced` may search; atoms it does not settle by then are
    /// `undecided` (asking again goes on); a request's `budget_ms` overrides it
    #[arg(long = "budget-ms", value_name = "MS", default_value_t = 1000.0, value_parser = parse_millis)]
    budget_ms: f64,
    /// Stop when the process uses more than this many megabytes
    #[arg(long, value_name = "MB")]
    max_memory: Option<u64>,
    /// Procedures (`-e`) may not touch files or run programs
    #[arg(long)]
    sandbox: bool,
    /// With --sandbox: procedures may read (only read) the files inside DIR
    #[arg(long, value_name = "DIR")]
    sandbox_read: Option<String>,
    /// A structure whose facts are the first choices (`P<ct> = {...}`, `f<cf> = {...}`), as
    /// the `choices` request and the workbench's Save choices write them
    #[arg(long, value_name = "STRUCTURE")]
    choices: Option<String>,
}

/// `idp fmt`: lays out .idp files regularly (what it changes: [`crate::syntax::format`]).
#[derive(Parser, Debug)]
#[command(
    name = "idp fmt",
    about = "Lay out .idp files: four spaces per block, continued sentences one more, no \
             trailing blanks, one blank line at most; comments and procedure code keep their \
             text. Without files: stdin to stdout.",
    disable_version_flag = true
)]
struct FmtArgs {
    /// Only say which files are not formatted (exit code 1 if any), change nothing
    #[arg(long)]
    check: bool,
    /// The files to format in place
    files: Vec<String>,
}

/// `idp fmt [--check] [FILE...]`. Exit code 0, 1 when a file cannot be read or written, is
/// not formatted (`--check`), or would read differently laid out.
fn run_fmt(argv: &[String], stack: crate::syntax::Stack) -> i32 {
    // `idp fmt < f.idp | head` ends quietly when head has read enough.
    crate::limits::end_on_closed_pipe();
    let mut full = vec!["idp fmt".to_string()];
    full.extend(argv.iter().cloned());
    let args = match FmtArgs::try_parse_from(full) {
        Ok(a) => a,
        Err(e) => return report_args_error(e, "idp fmt"),
    };
    if args.files.is_empty() {
        let mut text = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut text) {
            eprintln!("Error: could not read stdin: {e}");
            return 1;
        }
        return match crate::print::formatted("stdin", &text, stack) {
            Ok(out) if args.check => i32::from(out != text),
            Ok(out) => {
                print!("{out}");
                0
            }
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        };
    }
    let mut code = 0;
    for file in &args.files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("Error: could not read {file}: {e}");
                code = 1;
                continue;
            }
        };
        let out = match crate::print::formatted(file, &text, stack) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("Error: {e}");
                code = 1;
                continue;
            }
        };
        if out == text {
            continue;
        }
        if args.check {
            println!("{file}: not formatted");
            code = 1;
        } else if let Err(e) = std::fs::write(file, out) {
            eprintln!("Error: could not write {file}: {e}");
            code = 1;
        }
    }
    code
}

/// `idp consult FILE...`: loads the files, then answers the requests on stdin
/// ([`crate::consult`]). Exit code 0, 1 when the files have errors, 3 when a limit stopped it.
fn run_consult(argv: &[String], settings: &Settings, stack: crate::syntax::Stack) -> i32 {
    crate::limits::end_on_closed_pipe();
    let args = match ConsultArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return report_args_error(e, "idp consult"),
    };
    let run = set_limits(args.timeout, args.max_memory, None);
    let stdin = std::io::stdin();
    let mut requests = stdin.lock();
    let inputs = if args.files == ["-"] {
        spec_line(&mut requests)
    } else {
        read_files(&args.files)
    };
    let Some(inputs) = inputs else {
        return 1;
    };
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let std_lib = |name: &str| crate::stdlib::source_in(None, name);
    let loaded = crate::syntax::load_with(
        inputs,
        &std_lib,
        false,
        None,
        stack,
        &mut sources,
        &mut diags,
    );
    let program = crate::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    // Warnings too: a name read as a variable where an element was meant changes the answers.
    let mut notes = Vec::new();
    for d in diags.sorted().into_iter().filter(|d| !d.is_verbose_only()) {
        let text = diagnostics::render_plain(&d, &sources);
        eprint!("{text}");
        if d.severity != Severity::Error {
            notes.push(text.trim_end().to_string());
        }
    }
    if diags.has_errors() {
        return 1;
    }
    let blocks = match chosen_blocks(
        &program,
        &args.theory,
        &args.structure,
        args.execute.is_some(),
    ) {
        Ok(blocks) => blocks,
        Err(msg) => {
            eprintln!("Error: {msg}");
            return 1;
        }
    };
    let runtime = match Runtime::new(program, true) {
        Ok(rt) => rt,
        Err(msg) => {
            eprintln!("Error: {msg}");
            return 1;
        }
    };
    if let Err(msg) = sandbox(&runtime, args.sandbox, args.sandbox_read.as_deref()) {
        eprintln!("Error: {msg}");
        return 1;
    }
    runtime.set_run_settings(RunSettings {
        run: run.clone(),
        ..RunSettings::default()
    });
    install_interrupt_handler();
    if let Some(chunk) = &args.execute {
        if let Outcome::Failed(f) = runtime.run(&chunk.replace("::", "."), "-e") {
            eprintln!("Error: {}", f.message);
            return if f.stopped { EXIT_LIMIT } else { 1 };
        }
        runtime.flush_stdout();
    }
    let Taken {
        theory,
        structure,
        environment,
    } = match blocks.take(&runtime) {
        Ok(taken) => taken,
        Err(msg) => {
            eprintln!("Error: {msg}");
            return 1;
        }
    };
    let choices = match &args.choices {
        None => None,
        Some(name) => match runtime.structure(name) {
            Some(s) => Some(s.borrow().clone()),
            None => {
                eprintln!("Error: there is no structure {name} (--choices)");
                return 1;
            }
        },
    };
    let program = runtime.program();
    let options = crate::infer::Options {
        tuning: settings.tuning.clone(),
        run,
        ..crate::infer::Options::default()
    };
    let problem = match crate::infer::consult::Problem::new(&program, &theory, &structure, &options)
    {
        Ok(p) => p,
        Err(e) => {
            let label = if e.is_limit() { "Stopped" } else { "Error" };
            eprintln!("{label}: {e}");
            return if e.is_limit() { EXIT_LIMIT } else { 1 };
        }
    };
    let environment = match &environment {
        None => None,
        Some((theory, structure)) => {
            match crate::infer::consult::Problem::new(&program, theory, structure, &options) {
                Ok(p) => Some(p),
                Err(e) => {
                    let label = if e.is_limit() { "Stopped" } else { "Error" };
                    eprintln!("{label}: {e} (in the environment theory alone)");
                    return if e.is_limit() { EXIT_LIMIT } else { 1 };
                }
            }
        }
    };
    let opening = crate::consult::Opening {
        notes,
        environment: environment.as_ref(),
        choices: choices.as_ref(),
        budget: std::time::Duration::from_secs_f64(args.budget_ms / 1000.0),
    };
    let stdout = std::io::stdout();
    match crate::consult::serve_lines(&problem, &opening, requests, stdout.lock()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

/// What a search or a consultation is over: a theory, or IDP-Z3's `environment` and
/// `decision` theories together (when the files declare both and `--theory` chooses neither),
/// and a structure, or none (an empty one over the theory's vocabulary: FO(·) files need
/// none).
struct ChosenBlocks {
    theory: String,
    environment: Option<String>,
    structure: Option<String>,
}

/// The blocks named on the command line (`--theory`, `--structure`), or the only ones the
/// files declare; with a chunk (`chunk`), a name given may be a Lua global that it makes.
fn chosen_blocks(
    program: &Program,
    theory: &Option<String>,
    structure: &Option<String>,
    chunk: bool,
) -> Result<ChosenBlocks, String> {
    let members = &program.namespaces[0].members;
    let theory_written = |name: &str| {
        members.iter().find_map(|(k, c)| {
            (matches!(c, Component::Theory(_)) && crate::syntax::fodot::written_name(k) == name)
                .then(|| k.clone())
        })
    };
    let is_theory = |c: &Component| matches!(c, Component::Theory(_));
    let is_structure = |c: &Component| matches!(c, Component::Structure(_));
    let (theory, environment) = match (
        theory,
        theory_written("environment"),
        theory_written("decision"),
    ) {
        (Some(name), _, _) if chunk => (name.clone(), None),
        (None, Some(environment), Some(decision)) => (decision, Some(environment)),
        (given, _, _) => (
            pick_component(program, given.as_deref(), "theory", &is_theory)?,
            None,
        ),
    };
    let structures = members.values().filter(|c| is_structure(c)).count();
    let structure = match structure {
        Some(name) if chunk => Some(name.clone()),
        None if structures == 0 => None,
        given => Some(pick_component(
            program,
            given.as_deref(),
            "structure",
            &is_structure,
        )?),
    };
    Ok(ChosenBlocks {
        theory,
        environment,
        structure,
    })
}

impl ChosenBlocks {
    /// The theory's name as the messages give it.
    fn theory_name(&self) -> String {
        match &self.environment {
            Some(environment) => format!(
                "{} + {}",
                crate::syntax::fodot::written_name(environment),
                crate::syntax::fodot::written_name(&self.theory)
            ),
            None => self.theory.clone(),
        }
    }

    /// The structure's name as the messages give it.
    fn structure_name(&self) -> String {
        self.structure
            .clone()
            .unwrap_or_else(|| "(none: an empty one)".to_string())
    }

    /// The theory and the structure (over the theory's vocabulary) to consult and, with
    /// IDP-Z3's environment and decision, the environment theory and its structure apart.
    fn take(&self, runtime: &Runtime) -> Result<Taken, String> {
        let program = runtime.program();
        let missing = |what: &str, name: &str| {
            format!("there is no {what} {name} (a procedure or the -e chunk may have replaced it)")
        };
        let theory = runtime
            .theory(&self.theory)
            .ok_or_else(|| missing("theory", &self.theory))?
            .borrow()
            .clone();
        let given = match &self.structure {
            Some(name) => Some(
                runtime
                    .structure(name)
                    .ok_or_else(|| missing("structure", name))?
                    .borrow()
                    .clone(),
            ),
            None => None,
        };
        // A structure given over another vocabulary than a theory's is read over the
        // theory's (its name kept); none given: an empty one.
        let over = |voc| match &given {
            Some(s) if s.vocabulary == voc => Ok(s.clone()),
            Some(s) => crate::lua::merge_structures(&program, &Structure::new("", voc), s).map(
                |mut merged| {
                    merged.name = s.name.clone();
                    merged
                },
            ),
            None => Ok(Structure::new("", voc)),
        };
        let Some(name) = &self.environment else {
            // One theory: a structure given is used as it is (the inferences read a
            // structure over a smaller vocabulary).
            let structure = match &given {
                Some(s) => s.clone(),
                None => Structure::new("", theory.vocabulary),
            };
            return Ok(Taken {
                theory,
                structure,
                environment: None,
            });
        };
        let environment = runtime
            .theory(name)
            .ok_or_else(|| missing("theory", name))?
            .borrow()
            .clone();
        let whole = crate::lua::merge_theories(&program, &environment, &theory)?;
        let structure = over(whole.vocabulary)?;
        let apart = over(environment.vocabulary)?;
        Ok(Taken {
            theory: whole,
            structure,
            environment: Some((environment, apart)),
        })
    }
}

/// The blocks of [`ChosenBlocks`] taken from the runtime.
struct Taken {
    theory: Theory,
    structure: Structure,
    /// IDP-Z3's environment theory alone, with its part of the structure.
    environment: Option<(Theory, Structure)>,
}

/// `idp consult -`: the specification, read from the first line of `input` (one JSON string),
/// named `stdin` as `idp` names a specification read from stdin; `None` (after saying why on
/// stderr) when that line is missing or not a JSON string.
fn spec_line(input: &mut impl std::io::BufRead) -> Option<Vec<(String, Vec<u8>)>> {
    let mut line = String::new();
    if let Err(e) = input.read_line(&mut line) {
        eprintln!("Error: could not read stdin: {e}");
        return None;
    }
    match serde_json::from_str::<String>(&line) {
        Ok(text) => Some(vec![("stdin".to_string(), text.into_bytes())]),
        Err(e) if line.trim().is_empty() => {
            eprintln!("Error: stdin is empty: with `-`, its first line is the specification as one JSON string ({e})");
            None
        }
        Err(e) => {
            eprintln!("Error: with `-`, the first line of stdin is the specification as one JSON string, as `jq -Rs . FILE` writes it ({e})");
            None
        }
    }
}

/// The bytes of each file, named; `None` (after saying which file on stderr) when one cannot
/// be read.
fn read_files(files: &[String]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut inputs = Vec::new();
    for f in files {
        match std::fs::read(f) {
            Ok(bytes) => inputs.push((f.clone(), bytes)),
            Err(e) => {
                eprintln!("Error: could not read file {}: {}", f, io_reason(&e));
                return None;
            }
        }
    }
    Some(inputs)
}

/// `--count`: the number of models, found by the search of model expansion without decoding
/// or printing them. Exit code 10 with models, 20 without, 3 when a limit stopped the search
/// (after printing how many were found by then).
fn count_models(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &crate::infer::Options,
    runtime: &Runtime,
) -> i32 {
    match crate::infer::count_models(program, theory, structure, None, options) {
        Ok(found) => {
            found.warnings.iter().for_each(|w| runtime.warn(w));
            println!("Number of models: {}", found.value);
            if let Some(note) = &found.partial {
                eprintln!("Stopped: {note}");
                return EXIT_LIMIT;
            }
            if found.value > 0 {
                10
            } else {
                20
            }
        }
        Err(e) => {
            let label = if e.is_limit() { "Stopped" } else { "Error" };
            eprintln!("{label}: {e}");
            if e.is_limit() {
                EXIT_LIMIT
            } else {
                1
            }
        }
    }
}

/// The models `-n N` asks for, found by calling the inference directly (as `modelexpand` or
/// `minimize` in a procedure would), printed as `printmodels` prints each model, and drawn with
/// `--visualize`. Models of a model expansion are printed as they are found (so that a reader
/// such as `head` gets them at once, and a search that a limit stops has printed every model it
/// kept); `Number of models: N` follows them. Exit code 10 with models, 20 without, 1 on an
/// error, 3 when a limit stopped the search.
fn run_models(args: &Args, request: &ModelRequest, runtime: &Runtime) -> i32 {
    let program = runtime.program();
    let program = &*program;
    let (theory, structure) = match request.blocks.take(runtime) {
        Ok(taken) => (taken.theory, taken.structure),
        Err(msg) => {
            eprintln!("Error: {msg}");
            return 1;
        }
    };
    let shown = Rc::new(ModelPrinter {
        state: crate::lua::state(runtime.lua()),
        visualize: args.visualize.clone(),
        draw_first: args.draw_first,
        rows: args.grid.as_deref().map(|g| g == "rows"),
        sandboxed: runtime.sandboxed(),
        printed: Cell::new(0),
        texts: RefCell::default(),
        failed: RefCell::new(None),
    });
    let mut options = runtime.infer_options();
    options.nbmodels = request.models;
    if let Some(w) = crate::infer::ltc::open_time_warning(program, &theory, &structure) {
        runtime.warn(&w);
    }
    if args.count && request.minimize.is_none() {
        return count_models(program, &theory, &structure, &options, runtime);
    }
    let found = match &request.minimize {
        None => {
            // Only this search prints its models as it finds them (not --explain's), and keeps
            // none of them: an enumeration needs no memory for the models it printed.
            let printer = shown.clone();
            let mut streaming = options.clone();
            streaming.observer = options
                .observer
                .clone()
                .with_models(move |m| printer.show(m));
            crate::infer::count_models(program, &theory, &structure, None, &streaming)
                .map(|found| found.map(|count| (Vec::new(), count, None)))
        }
        Some(term) => {
            let Some(term) = runtime.term(term) else {
                eprintln!("Error: there is no term named '{term}'");
                return 1;
            };
            crate::infer::minimize(program, &theory, &structure, &term.term, None, &options).map(
                |found| {
                    found.map(|o| {
                        let count = o.models.len();
                        (o.models, count, Some((o.proven, o.value)))
                    })
                },
            )
        }
    };
    let found = match found {
        Ok(found) => found,
        Err(e) => {
            let label = if e.is_limit() { "Stopped" } else { "Error" };
            eprintln!("{label}: {e}");
            return if e.is_limit() { EXIT_LIMIT } else { 1 };
        }
    };
    found.warnings.iter().for_each(|w| runtime.warn(w));
    let (models, count, optimum) = found.value;
    // A minimisation's models are known at its end only.
    for model in models.iter().skip(shown.printed.get()) {
        shown.show(model);
    }
    if count == 0 {
        println!("Unsatisfiable");
    }
    println!("Number of models: {count}");
    if count == 0 && !args.explain {
        eprintln!("{}", explain_hint(args, request, program));
    }
    if let (Some((proven, value)), false) = (optimum, count == 0) {
        let label = if proven {
            "Optimal value"
        } else {
            "Best value found"
        };
        let value = value.map_or("nil".to_string(), |v| v.to_string());
        println!("{label}: {value}");
    }
    let explained = match (&args.explain_atom, count == 0) {
        (Some(literal), false) => explain_literal(literal, program, &theory, &structure, &options),
        (_, true) if args.explain => explain_no_model(program, &theory, &structure, &options),
        (Some(literal), true) => {
            println!("The theory has no model, so {literal} holds in none (--explain says why).");
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(e) = explained {
        let label = if e.is_limit() { "Stopped" } else { "Error" };
        eprintln!("{label}: {e}");
        return if e.is_limit() { EXIT_LIMIT } else { 1 };
    }
    if let Some(message) = shown.failed.borrow_mut().take() {
        // `--draw-first` leaves an empty message: no error.
        if !message.is_empty() {
            eprintln!("Error: {message}");
            return 1;
        }
    }
    if let Some(note) = process_run().partial() {
        eprintln!("Stopped: {note}");
        return EXIT_LIMIT;
    }
    if count == 0 {
        20
    } else {
        10
    }
}

/// After `Unsatisfiable` without `--explain`: where the theory is, and the command that says
/// why it has no model.
fn explain_hint(args: &Args, request: &ModelRequest, program: &Program) -> String {
    let mut command = vec!["idp".to_string(), "--explain".to_string()];
    if let Some(theory) = &args.theory {
        command.push(format!("--theory {theory}"));
    }
    if let Some(structure) = &args.structure {
        command.push(format!("--structure {structure}"));
    }
    if args.files.is_empty() {
        command.push("< FILE".to_string());
    } else {
        command.extend(args.files.iter().map(|f| shell_word(f)));
    }
    let at = match program.namespaces[0].members.get(&request.blocks.theory) {
        Some(Component::Theory(t)) => program.theories[t.index()]
            .span
            .and_then(|span| program.position(span))
            .map(|p| format!(" (at {p})"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "hint: theory {}{at} has no model with structure {}; `{}` says why: a minimal set of \
         its sentences, definitions and facts that has none",
        request.blocks.theory_name(),
        request.blocks.structure_name(),
        command.join(" ")
    )
}

/// `--explain` after a search without a model: the minimal core, each part where it is.
fn explain_no_model(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &crate::infer::Options,
) -> crate::error::IdpResult<()> {
    use crate::infer::{unsat_core_after_search, Facts, Reading};
    let core = unsat_core_after_search(program, theory, structure, &Facts::Involved, options)?;
    core.warnings.iter().for_each(|w| eprintln!("Warning: {w}"));
    let reading = Reading {
        program,
        theory,
        structure,
    };
    match core.value {
        Some(core) => reading.lines(&core).iter().for_each(|l| println!("{l}")),
        // The search and the explanation disagree only when a limit cut the search short.
        None => println!("Why: no explanation: the theory has a model after all"),
    }
    Ok(())
}

/// `--explain-atom LITERAL`: why every model satisfies the literal, or that one does not.
fn explain_literal(
    literal: &str,
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &crate::infer::Options,
) -> crate::error::IdpResult<()> {
    use crate::infer::{parse_literal, why_forced, Reading};
    let formula = parse_literal(program, theory.vocabulary, structure, literal)
        .map_err(|m| crate::error::Error::input(format!("--explain-atom: {m}")))?;
    let reading = Reading {
        program,
        theory,
        structure,
    };
    let answer = why_forced(program, theory, structure, &formula, options)?.value;
    for line in reading.forced_lines(literal, &answer) {
        println!("{line}");
    }
    Ok(())
}

/// Prints the models of `-n N` one at a time, as IDP3's `printmodels` prints each (`Model 3`,
/// a rule, the structure), and draws each with `--visualize`.
struct ModelPrinter {
    state: Rc<crate::lua::State>,
    visualize: Option<String>,
    /// `--draw-first N`: the first N models are drawn when they can be, quietly skipped when
    /// they cannot.
    draw_first: Option<usize>,
    /// `--grid`: the drawings' orientation ([`VisualOptions::rows`]).
    rows: Option<bool>,
    sandboxed: bool,
    printed: Cell<usize>,
    /// The values' texts and order, made once for all the models.
    texts: RefCell<crate::print::ValueTexts>,
    /// The first drawing error; no more drawings after it.
    failed: RefCell<Option<String>>,
}

impl ModelPrinter {
    fn show(&self, model: &Structure) {
        let k = self.printed.get() + 1;
        self.printed.set(k);
        let program = self.state.program();
        let header = format!("Model {k}");
        // Printed without a name, as `printmodels` prints it.
        let shown = if model.name.is_empty() {
            std::borrow::Cow::Borrowed(model)
        } else {
            let mut named = model.clone();
            named.name = String::new();
            std::borrow::Cow::Owned(named)
        };
        // One write for the whole model (stdout is line-buffered: a write per line would be
        // most of the time of a long enumeration).
        let mut text = format!("{header}\n{}\n", "=".repeat(header.len()));
        let texts = &mut self.texts.borrow_mut();
        crate::print::write_structure(&program, &shown, texts, &mut text);
        text.push('\n');
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        if let Some(first) = self.draw_first {
            if k <= first && self.failed.borrow().is_none() {
                self.draw_if_possible(model);
            }
        } else if self.failed.borrow().is_none() {
            if let Err(message) = self.draw(k, model) {
                *self.failed.borrow_mut() = Some(message);
            }
        }
        let _ = out.flush();
    }

    /// `--draw-first`: the model drawn when its structure has a grid; the first that cannot be
    /// drawn ends the drawings (the others have the same vocabulary), without an error.
    fn draw_if_possible(&self, model: &Structure) {
        let drawn = crate::visual::visualize(
            &self.state.program(),
            model,
            &VisualOptions {
                svg_on_stdout: crate::message_format::enabled(),
                rows: self.rows,
                ..VisualOptions::default()
            },
            std::io::stdout().is_terminal(),
        );
        match drawn {
            Ok(text) => print!("{text}"),
            Err(_) => *self.failed.borrow_mut() = Some(String::new()),
        }
    }

    /// `--visualize`: the model drawn on the terminal, or `--visualize=svg:FILE` written to
    /// FILE (FILE-2.svg, ... for later models).
    fn draw(&self, k: usize, model: &Structure) -> Result<(), String> {
        let Some(mut options) = visualize_options(self.visualize.as_deref(), k)? else {
            return Ok(());
        };
        options.svg_on_stdout = crate::message_format::enabled();
        options.rows = self.rows;
        if self.sandboxed && options.svg.is_some() {
            return Err("visualize: writing SVG files is not allowed in --sandbox mode".into());
        }
        let text = crate::visual::visualize(
            &self.state.program(),
            model,
            &options,
            std::io::stdout().is_terminal(),
        )
        .map_err(|m| format!("visualize: {m}"))?;
        print!("{text}");
        Ok(())
    }
}

/// The drawing options of `--visualize[=svg:FILE]` for the `k`-th model; `None` without the
/// flag.
fn visualize_options(flag: Option<&str>, k: usize) -> Result<Option<VisualOptions>, String> {
    let Some(flag) = flag else {
        return Ok(None);
    };
    let mut options = VisualOptions::default();
    if flag.is_empty() {
        return Ok(Some(options));
    }
    let Some(file) = flag.strip_prefix("svg:").filter(|f| !f.is_empty()) else {
        return Err(format!(
            "--visualize={flag}: expected --visualize or --visualize=svg:FILE"
        ));
    };
    options.svg = Some(if k > 1 {
        format!("{}-{k}.svg", file.strip_suffix(".svg").unwrap_or(file))
    } else {
        file.to_string()
    });
    options.quiet = true;
    Ok(Some(options))
}

pub fn version_text() -> String {
    format!(
        "idp {} (IDP3-compatible, IDP 3.6.0 language)",
        env!("CARGO_PKG_VERSION")
    )
}

/// What the environment sets for a run. It is read here, once, and handed down: nothing below
/// the command line reads the environment (`tests/architecture.rs` checks).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The engine's knobs for experiments and comparisons (`IDP_DATALOG=0`,
    /// `IDP_MINIMIZE=STRATEGY`, `IDP_EXPLAIN_BUDGET=SECONDS`, `IDP_RANKING_AFTER=N`,
    /// `IDP_CADICAL_CONFIG=NAME,option=value,..`).
    pub tuning: crate::infer::Tuning,
    /// `IDP_NO_PROGRESS`: no progress line on a terminal.
    pub no_progress: bool,
    /// `IDP_STATS`: as `--stats`.
    pub stats: bool,
    /// `IDP_SERVE_WEB=DIR`: `idp serve` reads the page's files from DIR.
    pub serve_web: Option<std::path::PathBuf>,
}

impl Settings {
    /// The settings of the process's environment.
    pub fn from_env() -> Settings {
        Settings::from_vars(|name| std::env::var_os(name))
    }

    /// The settings that the variables `var` gives (`None`: unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Settings {
        let text = |name: &str| var(name).map(|v| v.to_string_lossy().into_owned());
        let tuning = crate::infer::Tuning {
            datalog: text("IDP_DATALOG").is_none_or(|v| v != "0"),
            // Set to a name not known, it still chooses: the default, `descend`.
            minimize: text("IDP_MINIMIZE")
                .map(|v| crate::infer::Strategy::named(&v).unwrap_or_default()),
            explain_budget: text("IDP_EXPLAIN_BUDGET").and_then(|v| v.parse().ok()),
            ranking_after: text("IDP_RANKING_AFTER").and_then(|v| v.parse().ok()),
            cadical_config: text("IDP_CADICAL_CONFIG"),
            delay_after: text("IDP_DELAY_AFTER")
                .and_then(|v| v.parse().ok())
                .unwrap_or(crate::ground::delayed::DEFAULT_DELAY_AFTER),
            relax_above: text("IDP_RELAX_ABOVE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(crate::infer::DEFAULT_RELAX_ABOVE),
        };
        Settings {
            tuning,
            no_progress: var("IDP_NO_PROGRESS").is_some(),
            stats: var("IDP_STATS").is_some(),
            serve_web: var("IDP_SERVE_WEB").map(std::path::PathBuf::from),
        }
    }
}

/// Stack size of the thread the command line runs on: deeply nested formulas, the parser's
/// recursion and Lua recursion need it (the parser then needs no thread of its own).
const STACK: usize = 512 << 20;

/// Runs the command line of the process, on a thread with a large stack; returns the process
/// exit code.
pub fn run() -> i32 {
    let argv: Vec<String> = std::env::args().collect();
    let settings = Settings::from_env();
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || run_on(argv, settings, crate::syntax::Stack::Callers))
        .expect("could not start the main thread");
    handle.join().unwrap_or(101)
}

/// Runs the command line `argv` (the program's name first) in the environment `settings`, on
/// the current thread (the parser on a thread of its own).
pub fn run_with(argv: Vec<String>, settings: Settings) -> i32 {
    run_on(argv, settings, crate::syntax::Stack::Own)
}

/// [`run_with`], the parser where `stack` says.
fn run_on(argv: Vec<String>, settings: Settings, stack: crate::syntax::Stack) -> i32 {
    if argv.get(1).map(String::as_str) == Some("serve") {
        return crate::serve::run(&argv[2..], settings.serve_web);
    }
    if argv.get(1).map(String::as_str) == Some("lsp") {
        return crate::lsp::run(&argv[2..]);
    }
    if argv.get(1).map(String::as_str) == Some("fmt") {
        return run_fmt(&argv[2..], stack);
    }
    if argv.get(1).map(String::as_str) == Some("consult") {
        return run_consult(&argv[1..], &settings, stack);
    }
    crate::limits::end_on_closed_pipe();
    let args = match Args::try_parse_from(&argv) {
        Ok(a) => a,
        Err(e) => return report_args_error(e, "idp"),
    };
    if args.version {
        println!("{}", version_text());
        return 0;
    }
    let json = args.message_format == MessageFormat::Json;
    if json {
        crate::message_format::enable();
    }
    let display = if json {
        Some(Display::Machine)
    } else if std::io::stderr().is_terminal() && !settings.no_progress {
        Some(Display::Terminal)
    } else {
        None
    };
    set_limits(args.timeout, args.max_memory, display);

    // Read the inputs.
    process_run().set_phase("reading the input");
    let Some(mut inputs) = read_files(&args.files) else {
        return 1;
    };
    // In the interactive shell stdin carries the commands, not the specification.
    let read_stdin = args.stdin
        || (args.files.is_empty()
            && !args.interactive
            && !(args.execute.is_some() && std::io::stdin().is_terminal()));
    if read_stdin {
        eprintln!("(Reading from stdin)");
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut buf) {
            eprintln!("Error: could not read stdin: {}", e);
            return 1;
        }
        inputs.push(("stdin".to_string(), buf));
    }

    // Parse and resolve.
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let datadir = args.datadir.clone();
    let std_lib = move |name: &str| crate::stdlib::source_in(datadir.as_deref(), name);
    let loaded = crate::syntax::load_with(
        inputs,
        &std_lib,
        args.sandbox,
        Some(stdin_bytes),
        stack,
        &mut sources,
        &mut diags,
    );
    if args.dump == Some(Dump::Ast) {
        println!("{:#?}", loaded.file);
    }
    let program = crate::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    for d in crate::lua::procedure_syntax_diagnostics(&program, &sources) {
        diags.push(d);
    }
    let runs_main = args.execute.is_none() && args.models_asked().is_none() && !args.interactive;
    // Only worth saying about a file of procedures without mistakes (a file of only a
    // theory and a structure is run with -n; an empty editor buffer is no mistake).
    if args.check
        && runs_main
        && !diags.has_errors()
        && !has_main(&program)
        && program.namespaces[0]
            .members
            .values()
            .any(|c| matches!(c, Component::Procedure(_)))
    {
        let mut d = no_main(&args, read_stdin, &program);
        d.severity = Severity::Warning;
        diags.push(d);
    }
    let style = match args.color {
        Color::Always => RenderStyle::Fancy,
        Color::Never => RenderStyle::Plain,
        Color::Auto => {
            if std::io::stderr().is_terminal() {
                RenderStyle::Fancy
            } else {
                RenderStyle::Plain
            }
        }
    };
    let mut stderr_text = String::new();
    for d in diags.sorted() {
        if d.severity == Severity::Warning
            && (args.nowarnings || (d.is_verbose_only() && !args.verbose))
        {
            continue;
        }
        if json {
            stderr_text.push_str(&crate::message_format::diagnostic_line(&d, &sources));
        } else {
            stderr_text.push_str(&diagnostics::render(&d, &sources, style));
        }
    }
    if json {
        stderr_text.push_str(&crate::message_format::summary_line(&program));
    }
    eprint!("{stderr_text}");
    let has_errors = diags.has_errors();
    if args.dump == Some(Dump::Program) {
        let text = if loaded.fodot {
            crate::fodot::program_to_fodot(&program)
        } else {
            crate::print::program_to_string(&program)
        };
        print!("{text}");
    }
    if args.check || matches!(args.dump, Some(Dump::Ast | Dump::Program)) {
        return i32::from(has_errors);
    }
    if has_errors {
        return 1;
    }
    if let Err(msg) = process_run().check(None, "reading the input") {
        eprintln!("Stopped: {msg}");
        return EXIT_LIMIT;
    }

    // An IDP-Z3 file's `main` block is run by its own interpreter, not by Lua.
    let runs_script = args.execute.is_none() && args.models_asked().is_none() && !args.interactive;
    if let (true, Some(script)) = (runs_script, loaded.scripts.last()) {
        process_run().set_phase("running main");
        install_interrupt_handler();
        return run_script(script, &program, &args, &settings, &sources);
    }

    // Run.
    process_run().set_phase("running a procedure");
    let runtime = match Runtime::new(program, !args.nowarnings) {
        Ok(rt) => rt,
        Err(msg) => {
            eprintln!("Error: {msg}");
            return 1;
        }
    };
    if runtime.error_count() > 0 {
        return 1;
    }
    if let Err(msg) = sandbox(&runtime, args.sandbox, args.sandbox_read.as_deref()) {
        eprintln!("Error: {msg}");
        return 1;
    }
    runtime.set_run_settings(run_settings(&args, &settings));
    if args.interactive {
        install_interrupt_handler();
        return crate::repl::run(&runtime);
    }
    let (code, name) = match (&args.execute, args.models_asked()) {
        (Some(chunk), None) => (Some(chunk.replace("::", ".")), "-e"),
        (chunk, Some(n)) => {
            // With -n, a chunk prepares what the search uses (a structure it makes, say).
            if let Some(chunk) = chunk {
                install_interrupt_handler();
                if let Outcome::Failed(f) = runtime.run(&chunk.replace("::", "."), "-e") {
                    flush_lua_stdout(&runtime);
                    if !f.message.is_empty() {
                        let label = if f.stopped { "Stopped" } else { "Error" };
                        eprintln!("{label}: {}", f.message);
                    }
                    return if f.stopped { EXIT_LIMIT } else { 1 };
                }
            }
            let request = match model_request(&args, n, &runtime.program()) {
                Ok(request) => request,
                Err(msg) => {
                    eprintln!("Error: {msg}");
                    return 1;
                }
            };
            install_interrupt_handler();
            let code = run_models(&args, &request, &runtime);
            flush_lua_stdout(&runtime);
            return code;
        }
        (None, None) => {
            if !runtime.has_function("main") {
                let d = no_main(&args, read_stdin, &runtime.program());
                if json {
                    eprint!("{}", crate::message_format::diagnostic_line(&d, &sources));
                } else {
                    eprint!("{}", diagnostics::render(&d, &sources, style));
                }
                return 1;
            }
            // IDP3 runs `return idpglobal.main()`.
            (None, "main")
        }
    };
    // From here on Ctrl-C stops the work cleanly (before, while reading and parsing, it ends
    // the process as usual).
    install_interrupt_handler();
    let outcome = match code {
        Some(code) => runtime.run(&code, name),
        None => runtime.run_main(),
    };
    flush_lua_stdout(&runtime);
    match outcome {
        Outcome::Failed(Failure {
            message: msg,
            stopped,
        }) => {
            if stopped {
                eprintln!("Stopped: {msg}");
                EXIT_LIMIT
            } else {
                // An empty message: the error was reported where it happened.
                if !msg.is_empty() {
                    eprintln!("Error: {msg}");
                }
                1
            }
        }
        Outcome::Returned(v) => {
            if runtime.error_count() > 0 {
                1
            } else if let Some(note) = process_run().partial() {
                eprintln!("Stopped: {note}");
                EXIT_LIMIT
            } else {
                let who = if args.execute.is_some() {
                    "the -e chunk"
                } else {
                    "main"
                };
                exit_code_of(who, v, &runtime)
            }
        }
    }
}

/// Runs the `main` block of an IDP-Z3 file; exit code 0, 1 on an error, 3 when a limit
/// stopped it.
fn run_script(
    script: &crate::syntax::fodot::Script,
    program: &Program,
    args: &Args,
    settings: &Settings,
    sources: &SourceMap,
) -> i32 {
    let run = run_settings(args, settings);
    let options = crate::infer::Options {
        sat_backend: run.sat_backend,
        max_ground_size: run.max_ground_size,
        observer: run.observer,
        tuning: run.tuning,
        run: run.run,
        threads: run.threads,
        ..crate::infer::Options::default()
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (outcome, warnings) = crate::fodot::run(script, program, options, &mut out);
    if !args.nowarnings {
        for w in warnings {
            eprintln!("Warning: {w}");
        }
    }
    match outcome {
        Ok(()) => match process_run().partial() {
            Some(note) => {
                eprintln!("Stopped: {note}");
                EXIT_LIMIT
            }
            None => 0,
        },
        Err(f) if f.stopped => {
            eprintln!("Stopped: {}", f.message);
            EXIT_LIMIT
        }
        Err(f) => {
            let d = Diagnostic::error("fodot-main", f.message, f.at);
            eprint!("{}", diagnostics::render_plain(&d, sources));
            1
        }
    }
}

/// The exit code for what `main` (or the `-e` chunk) returned: an integer from 0 to 255 as it
/// is; a larger or negative one, which the system would wrap (256 would read as success), is
/// 255 with a warning; any other value is 0 with a warning.
fn exit_code_of(who: &str, returned: Returned, runtime: &Runtime) -> i32 {
    match returned {
        Returned::Nothing => 0,
        Returned::Integer(i @ 0..=255) => i as i32,
        Returned::Integer(i) => {
            runtime.warn(&format!(
                "{who} returned {i}, but an exit code is a number from 0 to 255; the exit code is 255"
            ));
            255
        }
        Returned::Other(what) => {
            runtime.warn(&format!(
                "{who} returned {what}, not an integer exit code; the exit code is 0"
            ));
            0
        }
    }
}

/// Whether the global namespace has a procedure `main`.
fn has_main(program: &Program) -> bool {
    matches!(
        program.namespaces[0].members.get("main"),
        Some(Component::Procedure(_))
    )
}

/// The error of a run without `-e` or `-n` when the files have no procedure `main`: it names
/// the files and their procedures (the ones no other procedure calls first), and shows how to
/// run one (`-e 'name(...)'`) or, when there is a theory and a structure, how to print a model
/// (`-n 1`).
fn no_main(args: &Args, from_stdin: bool, program: &Program) -> Diagnostic {
    let files: Vec<String> = args.files.iter().map(|f| shell_word(f)).collect();
    let what = match (files.as_slice(), from_stdin) {
        ([], _) => "The specification read from stdin has".to_string(),
        ([one], false) => format!("{one} has"),
        (many, _) => format!("{} have", many.join(", ")),
    };
    // `-n 1` before the files, `-e CHUNK` after them, as the README writes them.
    let command = |options: &str| {
        let files = match (files.is_empty(), from_stdin) {
            (true, _) => "< FILE".to_string(),
            (false, false) => files.join(" "),
            (false, true) => format!("-I {} < FILE", files.join(" ")),
        };
        if options.starts_with("-e") {
            format!("idp {files} {options}")
        } else {
            format!("idp {options} {files}")
        }
    };
    let members = &program.namespaces[0].members;
    let procedures: Vec<&crate::sema::Procedure> = members
        .values()
        .filter_map(|c| match c {
            Component::Procedure(id) => Some(&program.procedures[id.index()]),
            _ => None,
        })
        .collect();
    // Entry points: procedures whose name no other procedure's body mentions as a call.
    let called = |name: &str| {
        procedures.iter().any(|p| {
            p.name != name
                && p.body.match_indices(name).any(|(at, _)| {
                    let before = p.body[..at].chars().next_back();
                    let after = p.body[at + name.len()..].trim_start().chars().next();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                        && after == Some('(')
                })
        })
    };
    type Proc<'a> = &'a crate::sema::Procedure;
    let (entries, helpers): (Vec<Proc>, Vec<Proc>) =
        procedures.iter().copied().partition(|p| !called(&p.name));
    let entries = if entries.is_empty() {
        helpers.clone()
    } else {
        entries
    };
    let mut lines = Vec::new();
    if procedures.is_empty() {
        lines.push("it has no procedures".to_string());
    } else {
        const SHOWN: usize = 8;
        let list: Vec<String> = entries
            .iter()
            .take(SHOWN)
            .map(|p| format!("{}({})", p.name, p.params.join(", ")))
            .collect();
        let more = procedures.len() - list.len();
        let mut list = list.join(", ");
        if more > 0 {
            let others = if more == 1 { "other" } else { "others" };
            list.push_str(&format!(" and {more} {others} they call"));
        }
        lines.push(format!("its procedures: {list}"));
        let first = entries[0];
        let call = if first.params.is_empty() {
            "()"
        } else {
            "(...)"
        };
        lines.push(format!(
            "run one:  {}",
            command(&format!("-e '{}{call}'", first.name))
        ));
    }
    let kinds = |is: fn(&Component) -> bool| -> Vec<&String> {
        members
            .iter()
            .filter(|(_, c)| is(c))
            .map(|(k, _)| k)
            .collect()
    };
    let theories = kinds(|c| matches!(c, Component::Theory(_)));
    let structures = kinds(|c| matches!(c, Component::Structure(_)));
    if let (Some(t), Some(s)) = (theories.first(), structures.first()) {
        let choose = if theories.len() == 1 && structures.len() == 1 {
            String::new()
        } else {
            format!(" --theory {t} --structure {s}")
        };
        lines.push(format!(
            "{}print a model of theory {t} in structure {s}:  {}",
            if procedures.is_empty() { "" } else { "or " },
            command(&format!("-n 1{choose}"))
        ));
    }
    lines.push("or add  procedure main() { ... }".to_string());
    Diagnostic::error(
        "no-main",
        format!("{what} no procedure main(), which idp runs when neither -e nor -n is given"),
        None,
    )
    .with_hint(lines.join("\n"))
}

/// A file name as a shell word: quoted when it has characters the shell would read.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What the command line sets for every inference: the SAT backend, the grounding size limit,
/// and where `--stats` lines (also with `IDP_STATS` set) and `--dump ground` texts go.
fn run_settings(args: &Args, env: &Settings) -> RunSettings {
    let mut settings = RunSettings {
        sat_backend: match args.sat {
            Sat::Cadical => crate::infer::SatBackend::Cadical,
            Sat::CadicalLoops => crate::infer::SatBackend::CadicalLoops,
            Sat::Splr => crate::infer::SatBackend::Splr,
        },
        tuning: env.tuning.clone(),
        run: process_run().clone(),
        threads: args.threads.unwrap_or(1),
        ..RunSettings::default()
    };
    if let Some(n) = args.max_ground_size {
        settings.max_ground_size = n;
    }
    if args.stats || env.stats {
        settings.observer = settings
            .observer
            .with_stats(|line| eprintln!("[stats] {line}"));
    }
    if args.dump == Some(Dump::Ground) {
        settings.observer = settings.observer.with_ground_dump(|text| print!("{text}"));
    }
    settings
}

/// What `include stdin` reads (the loader leaves terminal input to the driver).
fn stdin_bytes() -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A positive, finite number of milliseconds (`idp consult --budget-ms`).
fn parse_millis(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
        _ => Err(format!("'{text}' is not a positive number of milliseconds")),
    }
}

/// `--threads`: a number of solvers from 1 to 64, or `auto` (the cores this process may use).
fn parse_threads(text: &str) -> Result<usize, String> {
    let most = crate::infer::MAX_THREADS;
    if text == "auto" {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        return Ok(cores.min(most));
    }
    match text.parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 1 to {most}, or auto"
        )),
    }
}

/// A positive, finite number of seconds (`--timeout`).
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("'{text}' is not a positive number of seconds")),
    }
}

/// `--sandbox` (and `--sandbox-read DIR`) for the procedures of `runtime`.
fn sandbox(runtime: &Runtime, on: bool, read: Option<&str>) -> Result<(), String> {
    if !on {
        return match read {
            Some(_) => Err("--sandbox-read DIR only widens --sandbox; give both".into()),
            None => Ok(()),
        };
    }
    runtime.enable_sandbox(read.map(std::path::Path::new))
}

/// The run that this process of the command line is: its limits, its Ctrl-C and its progress
/// line. The command line is one run per process (the signal handler must reach it without a
/// lock), so it is kept here, in the drive layer; the engine only gets it handed down.
static PROCESS_RUN: OnceLock<Run> = OnceLock::new();

fn process_run() -> &'static Run {
    PROCESS_RUN.get_or_init(Run::default)
}

/// Applies `--timeout` and `--max-memory` (the machine's share when not given) to the
/// process's run, whose progress line shows as `display` says, and starts its watchdog.
fn set_limits(timeout: Option<f64>, max_memory: Option<u64>, display: Option<Display>) -> Run {
    let run = process_run();
    if let Some(display) = display {
        run.meter().show(display);
    }
    if let Some(seconds) = timeout {
        run.set_timeout(seconds);
    }
    let memory = max_memory
        .or_else(crate::limits::default_max_memory_mb)
        .unwrap_or(0);
    run.set_max_memory_mb(memory);
    run.start_watchdog(true);
    run.clone()
}

/// Installs the Ctrl-C (SIGINT) handler: the first Ctrl-C asks the process's run to stop
/// ([`Run::interrupt`]); a second one ends the process at once with [`EXIT_KILLED`].
fn install_interrupt_handler() {
    extern "C" fn on_sigint(_: libc::c_int) {
        let Some(run) = PROCESS_RUN.get() else {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(EXIT_KILLED) }
        };
        if run.interrupted() {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(EXIT_KILLED) }
        }
        run.interrupt();
    }
    process_run();
    let handler: extern "C" fn(libc::c_int) = on_sigint;
    // SAFETY: the handler only reads an initialised OnceLock, stores to an atomic and calls
    // _exit, all async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
}

/// Flushes what Lua printed (with the limits hook removed, so that a reached limit cannot stop
/// the flush itself).
fn flush_lua_stdout(rt: &Runtime) {
    rt.lua().remove_hook();
    rt.flush_stdout();
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Says what is wrong with the command line of `command` (`idp`, `idp consult`); the exit
/// code (0 for help and version).
fn report_args_error(e: clap::Error, command: &str) -> i32 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            0
        }
        ErrorKind::DisplayVersion => {
            println!("{}", version_text());
            0
        }
        ErrorKind::UnknownArgument => {
            let arg = match e.get(ContextKind::InvalidArg) {
                Some(ContextValue::String(s)) => s.clone(),
                _ => String::from("?"),
            };
            eprintln!("Error: '{arg}' is an unknown option. (see {command} --help)");
            1
        }
        _ => {
            let text = e.render().to_string();
            let mut lines = text.lines();
            let first = lines
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            // What clap lists under its first line (the arguments missing).
            let listed: Vec<&str> = lines
                .take_while(|l| l.starts_with("  "))
                .map(str::trim)
                .collect();
            let said = if listed.is_empty() {
                first.to_string()
            } else {
                format!("{first} {}", listed.join(", "))
            };
            eprintln!("Error: {said} (see {command} --help)");
            1
        }
    }
}

/// A hint for a Lua syntax error that comes from another language's operator: Lua (like IDP)
/// writes "not equal" as `~=`.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_from_the_variables_given() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let none = Settings::from_vars(vars(&[]));
        assert_eq!(none.tuning, crate::infer::Tuning::default());
        assert!(!none.no_progress && !none.stats && none.serve_web.is_none());
        let some = Settings::from_vars(vars(&[
            ("IDP_DATALOG", "0"),
            ("IDP_MINIMIZE", "gallop"),
            ("IDP_EXPLAIN_BUDGET", "0.5"),
            ("IDP_RANKING_AFTER", "64"),
            ("IDP_CADICAL_CONFIG", "unsat"),
            ("IDP_DELAY_AFTER", "0"),
            ("IDP_RELAX_ABOVE", "7"),
            ("IDP_NO_PROGRESS", ""),
            ("IDP_STATS", "1"),
            ("IDP_SERVE_WEB", "web"),
        ]));
        assert_eq!(
            some.tuning,
            crate::infer::Tuning {
                datalog: false,
                minimize: Some(crate::infer::Strategy::Gallop),
                explain_budget: Some(0.5),
                ranking_after: Some(64),
                cadical_config: Some("unsat".into()),
                delay_after: 0,
                relax_above: 7,
            }
        );
        assert!(some.no_progress && some.stats);
        assert_eq!(some.serve_web, Some(std::path::PathBuf::from("web")));
        // An unknown strategy still chooses one (the default), as the variable always did.
        let odd = Settings::from_vars(vars(&[("IDP_MINIMIZE", "fastest"), ("IDP_DATALOG", "1")]));
        assert_eq!(odd.tuning.minimize, Some(crate::infer::Strategy::Descend));
        assert!(odd.tuning.datalog);
    }
}
