//! Runs the `main` block of an IDP-Z3 (FO(·)) file: a small interpreter for the calls IDP-Z3's
//! documentation shows (`model_expand`, `model_check`, `model_propagate`, `minimize`,
//! `maximize`, `determine_relevance`, `pretty_print`, `print` (a vocabulary as IDP-Z3 writes
//! it), `duration`, and `Theory(T, S)`
//! with its methods `.expand()`, `.propagate()`, `.assignments`, `.disable_law("...")` and
//! `.enable_law("...")`), each done by the inference of
//! `crate::infer` on the blocks that `syntax::fodot` found for it, and printed as IDP-Z3 prints.
//!
//! IDP-Z3 collects what `main` prints and writes it at the end, one item a line, then an empty
//! line (or `None` when nothing was printed); the same text is written here as it is made.

mod dump;
mod print;
mod relevance;

pub use dump::{program_to_fodot, symbol_declaration};

use std::collections::{HashMap, HashSet};

use std::io::Write;
use std::time::Instant;

use rustc_hash::FxHashSet;

use crate::ids::Symbol;
use crate::infer::Options;
use crate::sema::{Component, Program};
use crate::source::Span;
use crate::structure::Structure;
use crate::syntax::fodot::{Arg, Call, Script, Statement};

/// A value of `main`.
#[derive(Clone, Debug)]
enum Val {
    Nothing,
    Text(String),
    /// What a generator yields (`model_expand`, `model_propagate`): `pretty_print` prints each.
    Items(Vec<String>),
    /// A block named by a bare name.
    Block(String),
    /// `Theory(T, S)`: a theory with a structure, propagated or not.
    Theory(Target),
}

/// The blocks a `Theory(...)` value stands for.
#[derive(Clone, Debug)]
struct Target {
    theory: String,
    structure: String,
    propagated: bool,
    /// The laws turned off by `disable_law("...")`, as written there.
    disabled: Vec<String>,
}

/// Why `main` stopped.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// A limit (time, memory, Ctrl-C) stopped it.
    pub stopped: bool,
    /// The call of `main` that failed.
    pub at: Option<Span>,
}

impl Failure {
    fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            stopped: false,
            at: None,
        }
    }

    /// A limit stopped the inference.
    fn stopped(note: String) -> Failure {
        Failure {
            stopped: true,
            ..Failure::new(note)
        }
    }

    fn at(span: Span, message: impl Into<String>) -> Failure {
        Failure {
            at: Some(span),
            ..Failure::new(message)
        }
    }
}

/// The models of one model expansion, with the blocks they are of.
struct Found {
    models: Vec<Structure>,
    theory: usize,
    structure: usize,
    /// Some function onto ℤ or ℝ took its values from [`value_window`].
    windowed: bool,
}

/// The state of one run of `main`.
struct Run<'a> {
    program: &'a Program,
    options: Options,
    vars: HashMap<String, Val>,
    out: &'a mut dyn Write,
    printed: bool,
    last_duration: Instant,
    warnings: Vec<String>,
}

/// Runs `script` on `program`, writing what it prints to `out`; the warnings of its
/// inferences are returned with the outcome.
pub fn run(
    script: &Script,
    program: &Program,
    options: Options,
    out: &mut dyn Write,
) -> (Result<(), Failure>, Vec<String>) {
    let mut run = Run {
        program,
        options,
        vars: HashMap::new(),
        out,
        printed: false,
        last_duration: Instant::now(),
        warnings: Vec::new(),
    };
    print::set_dates(script.dates.0.clone(), script.dates.1.clone());
    let result = run.statements(script);
    if result.is_ok() {
        let end = if run.printed { "\n" } else { "None\n" };
        let _ = run.out.write_all(end.as_bytes());
    }
    let _ = run.out.flush();
    (result, run.warnings)
}

impl Run<'_> {
    fn statements(&mut self, script: &Script) -> Result<(), Failure> {
        for s in &script.statements {
            match s {
                Statement::Assign { name, value } => {
                    let v = self.eval(value)?;
                    self.vars.insert(name.name.clone(), v);
                }
                Statement::Expr(e) => {
                    self.eval(e)?;
                }
            }
        }
        Ok(())
    }

    fn eval(&mut self, arg: &Arg) -> Result<Val, Failure> {
        Ok(match arg {
            Arg::Str(s, _) => Val::Text(s.clone()),
            Arg::Int(i, _) => Val::Text(i.to_string()),
            Arg::Float(f, _) => Val::Text(f.to_string()),
            Arg::List(items, _) => {
                let texts: Result<Vec<String>, Failure> = items
                    .iter()
                    .map(|a| self.eval(a).map(|v| text_of(&v)))
                    .collect();
                Val::Text(format!("[{}]", texts?.join(", ")))
            }
            Arg::Name(n) => match self.vars.get(&n.name) {
                Some(v) => v.clone(),
                None => Val::Block(n.name.clone()),
            },
            Arg::Call(c) => self.call(c)?,
        })
    }

    /// A call's value, with the methods chained on it applied; a failure without a place is
    /// placed at the call.
    fn call(&mut self, call: &Call) -> Result<Val, Failure> {
        let value = if call.parens {
            self.apply(call)
        } else {
            Ok(self.named(&call.name.name))
        };
        let value = match &call.method {
            Some(m) => value.and_then(|v| self.method(v, m)),
            None => value,
        };
        // `theory.disable_law("...")` changes the theory the variable holds.
        if let (false, Some(m), Ok(v)) = (call.parens, &call.method, &value) {
            if matches!(m.name.name.as_str(), "disable_law" | "enable_law") {
                self.vars.insert(call.name.name.clone(), v.clone());
            }
        }
        value.map_err(|f| Failure {
            at: f.at.or(Some(call.span)),
            ..f
        })
    }

    /// What `print` writes for a value: a vocabulary named by its block as IDP-Z3 prints it,
    /// other values as their text.
    fn printed(&self, value: &Val) -> String {
        if let Val::Block(name) = value {
            if let Some(Component::Vocabulary(id)) = self.program.namespaces[0].members.get(name) {
                return dump::vocabulary_as_printed(self.program, *id);
            }
        }
        text_of(value)
    }

    fn named(&self, name: &str) -> Val {
        match self.vars.get(name) {
            Some(v) => v.clone(),
            None => Val::Block(name.to_string()),
        }
    }

    fn apply(&mut self, call: &Call) -> Result<Val, Failure> {
        match call.name.name.as_str() {
            "model_expand" => self.model_expand(call),
            "model_check" => self.model_check(call),
            "model_propagate" => self.model_propagate(call),
            "minimize" | "maximize" => self.optimise(call),
            "determine_relevance" => {
                let (t, s) = self.blocks(call)?;
                relevance::relevant(self, t, s).map(Val::Items)
            }
            "Theory" => {
                self.blocks(call)?;
                Ok(Val::Theory(Target {
                    theory: call.theory.clone().unwrap_or_default(),
                    structure: call.structure.clone().unwrap_or_default(),
                    propagated: false,
                    disabled: Vec::new(),
                }))
            }
            "pretty_print" => {
                let v = match call.args.first() {
                    Some(a) => self.eval(a)?,
                    None => Val::Text(String::new()),
                };
                match v {
                    Val::Items(items) => items.iter().for_each(|i| self.emit(i)),
                    Val::Theory(t) => {
                        let text = self.assignments(&t)?;
                        self.emit(&text);
                    }
                    other => self.emit(&text_of(&other)),
                }
                Ok(Val::Nothing)
            }
            "print" => {
                // IDP-Z3 captures `print(a, b)` as one line, the texts joined without a space.
                let mut line = String::new();
                for a in &call.args {
                    let value = self.eval(a)?;
                    line.push_str(&self.printed(&value));
                }
                self.emit(&line);
                Ok(Val::Nothing)
            }
            "str" => match call.args.first() {
                Some(a) => Ok(Val::Text(text_of(&self.eval(a)?))),
                None => Ok(Val::Text(String::new())),
            },
            "duration" => {
                let msg = match call.args.first() {
                    Some(a) => text_of(&self.eval(a)?),
                    None => String::new(),
                };
                let seconds = self.last_duration.elapsed().as_secs_f64();
                self.last_duration = Instant::now();
                Ok(Val::Text(format!(
                    "{} {msg}",
                    (seconds * 1000.0).round() / 1000.0
                )))
            }
            "decision_table" => Err(Failure::at(
                call.span,
                "`decision_table` is not supported by idp: it prints the theory as DMN decision \
                 tables, which needs IDP-Z3's symbolic simplification (model_expand or \
                 model_propagate give the same knowledge as models or consequences)",
            )),
            other => Err(Failure::at(
                call.span,
                format!(
                    "`{other}` in main is not supported by idp (it runs model_expand, \
                     model_check, model_propagate, minimize, maximize, determine_relevance, \
                     Theory(...) with .expand(), .propagate() and .assignments, pretty_print, \
                     print and duration)"
                ),
            )),
        }
    }

    /// `value.name(...)` (or the attribute `value.name`): on a `Theory`, `expand` runs
    /// `model_expand`, `propagate` propagates it and `assignments` is what it knows.
    fn method(&mut self, value: Val, m: &Call) -> Result<Val, Failure> {
        let out = match (&value, m.name.name.as_str()) {
            (Val::Theory(t), "expand") if !t.disabled.is_empty() => return Err(Failure::at(
                m.span,
                "`.expand()` after `.disable_law(...)` is not supported by idp (`.propagate()` \
                     is)",
            )),
            (Val::Theory(t), "expand") => {
                let mut c = m.clone();
                c.name.name = "model_expand".to_string();
                (c.theory, c.structure, c.method) =
                    (Some(t.theory.clone()), Some(t.structure.clone()), None);
                self.apply(&c)?
            }
            (Val::Theory(t), "propagate") => Val::Theory(Target {
                propagated: true,
                ..t.clone()
            }),
            (Val::Theory(_), "assignments") => value.clone(),
            (Val::Theory(t), "disable_law" | "enable_law") => {
                let law = match m.args.first() {
                    Some(a) => text_of(&self.eval(a)?),
                    None => String::new(),
                };
                let mut t = t.clone();
                t.disabled.retain(|d| d != &law);
                if m.name.name == "disable_law" {
                    t.disabled.push(law);
                }
                Val::Theory(t)
            }
            (_, name) => {
                let what = match value {
                    Val::Theory(_) => "a Theory",
                    _ => "this value",
                };
                return Err(Failure::at(
                    m.span,
                    format!(
                        "`.{name}` on {what} is not supported by idp (a Theory has .expand(), \
                         .propagate(), .assignments, .disable_law() and .enable_law(); formulas \
                         and explanations are Z3's and IDP-Z3's own)"
                    ),
                ));
            }
        };
        match &m.method {
            Some(next) => self.method(out, next),
            None => Ok(out),
        }
    }

    /// What `pretty_print` shows of a `Theory`: its assignments as a model's text (unknown
    /// constants as `// c := *.`).
    fn assignments(&mut self, t: &Target) -> Result<String, Failure> {
        let (ti, si) = self.block_ids(&t.theory, &t.structure)?;
        let (theory, structure) = (&self.program.theories[ti], &self.program.structures[si]);
        let known = if t.propagated {
            let kept = self.without_laws(theory, &t.disabled)?;
            match self.propagate_on(&kept, structure)? {
                Some(k) => k,
                None => return Ok("Not satisfiable.".to_string()),
            }
        } else {
            structure.clone()
        };
        Ok(print::model_text(
            self.program,
            theory.vocabulary,
            structure,
            &known,
            None,
        ))
    }

    /// The theory without the sentences `disable_law` named (each must be one of them).
    fn without_laws(
        &self,
        theory: &crate::sema::Theory,
        laws: &[String],
    ) -> Result<crate::sema::Theory, Failure> {
        let mut kept = theory.clone();
        for law in laws {
            let text = law_text(law);
            let before = kept.sentences.len();
            kept.sentences
                .retain(|f| law_text(&crate::print::formula_to_fodot(self.program, f)) != text);
            if kept.sentences.len() == before {
                return Err(Failure::new(format!(
                    "no sentence of theory {} reads \"{law}\" (disable_law names a sentence as \
                     written, without its final `.`)",
                    theory.name
                )));
            }
        }
        Ok(kept)
    }

    /// What every model of theory `t` with structure `s` has in common (`None`: no model).
    fn propagated(&mut self, t: usize, s: usize) -> Result<Option<Structure>, Failure> {
        let (theory, structure) = (&self.program.theories[t], &self.program.structures[s]);
        self.propagate_on(theory, structure)
    }

    fn propagate_on(
        &mut self,
        theory: &crate::sema::Theory,
        structure: &Structure,
    ) -> Result<Option<Structure>, Failure> {
        let found = crate::infer::propagate(
            self.program,
            theory,
            structure,
            crate::infer::Propagation::Optimal,
            &self.options,
        )
        .map_err(failure)?;
        self.warnings.extend(found.warnings);
        Ok(found.value)
    }

    /// One item of IDP-Z3's output.
    fn emit(&mut self, text: &str) {
        self.printed = true;
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }

    /// The theory and structure a call works on.
    fn blocks(&self, call: &Call) -> Result<(usize, usize), Failure> {
        match (&call.theory, &call.structure) {
            (Some(t), Some(s)) => self.block_ids(t, s),
            _ => Err(Failure::at(
                call.span,
                format!(
                    "`{}` needs a theory (and a structure) of this file",
                    call.name.name
                ),
            )),
        }
    }

    fn block_ids(&self, theory: &str, structure: &str) -> Result<(usize, usize), Failure> {
        let members = &self.program.namespaces[0].members;
        let t = match members.get(theory) {
            Some(Component::Theory(id)) => Some(id.index()),
            _ => None,
        };
        let s = match members.get(structure) {
            Some(Component::Structure(id)) => Some(id.index()),
            _ => None,
        };
        t.zip(s).ok_or_else(|| {
            Failure::new(format!(
                "no theory `{theory}` with structure `{structure}` in this file"
            ))
        })
    }

    fn int_kwarg(&mut self, call: &Call, key: &str, default: i64) -> Result<i64, Failure> {
        match call.kwarg(key) {
            None => Ok(default),
            Some(Arg::Int(i, _)) => Ok(*i),
            Some(other) => match self.eval(other)? {
                Val::Text(t) => t
                    .parse()
                    .map_err(|_| Failure::new(format!("`{key}` must be a whole number"))),
                _ => Err(Failure::new(format!("`{key}` must be a whole number"))),
            },
        }
    }

    /// Up to `max` models (0: all). With `window`, a function onto ℤ or ℝ that nothing bounds
    /// takes its values from [`value_window`] instead of stopping the search (IDP-Z3 leaves
    /// them to Z3 and lists some models); the answer then says whether that happened.
    fn models(&mut self, call: &Call, max: usize, window: bool) -> Result<Found, Failure> {
        let (t, s) = self.blocks(call)?;
        let mut options = self.options.clone();
        options.nbmodels = max;
        let (theory, structure) = (&self.program.theories[t], &self.program.structures[s]);
        let mut windowed = false;
        let found =
            match crate::infer::modelexpand(self.program, theory, structure, None, &options) {
                Err(e) if window && infinite_values(&e) => {
                    windowed = true;
                    options.value_window = Some(value_window(theory));
                    crate::infer::modelexpand(self.program, theory, structure, None, &options)
                }
                other => other,
            }
            .map_err(failure)?;
        self.warnings.extend(found.warnings);
        if let Some(note) = found.partial {
            return Err(Failure::stopped(note));
        }
        Ok(Found {
            models: found.value,
            theory: t,
            structure: s,
            windowed,
        })
    }

    fn model_expand(&mut self, call: &Call) -> Result<Val, Failure> {
        let max = self.int_kwarg(call, "max", 10)?.max(0) as usize;
        let (t, _) = self.blocks(call)?;
        let complete = matches!(call.kwarg("complete"), Some(Arg::Name(n)) if n.name == "True");
        let used = if complete {
            all_symbols(self.program, self.program.theories[t].vocabulary)
        } else {
            used_symbols(self.program, &self.program.theories[t])
        };
        // Symbols the theory never mentions are IDP-Z3's "don't care": not searched, so they
        // do not multiply the models (a predicate's unmentioned atoms stay false here).
        let unmentioned = self.options.leave_unmentioned_false;
        self.options.leave_unmentioned_false = true;
        let mut searched: Vec<Symbol> = used.iter().copied().collect();
        searched.sort();
        self.options.dont_care = Some(searched);
        let found = self.distinct_models(call, max, &used);
        self.options.leave_unmentioned_false = unmentioned;
        self.options.dont_care = None;
        let Found {
            models,
            theory: t,
            structure: s,
            windowed,
        } = found?;
        let voc = self.program.theories[t].vocabulary;
        let given = &self.program.structures[s];
        let mut texts: Vec<String> = models
            .iter()
            .map(|m| print::model_text(self.program, voc, given, m, Some(&used)))
            .collect();
        if matches!(call.kwarg("sort"), Some(Arg::Name(n)) if n.name == "True") {
            texts.sort();
        }
        let mut out = String::new();
        for (k, m) in texts.iter().enumerate() {
            out.push_str(&format!("\nModel {}\n==========\n{m}\n", k + 1));
        }
        let last = if max > 0 && models.len() >= max {
            "\nMore models may be available.  Change the max argument to see them."
        } else if windowed && !models.is_empty() {
            // Values outside the window were not searched: there may be more models.
            "\nMore models may be available: idp tried only the values the warning names."
        } else if windowed {
            return Err(Failure::new(
                "no model with the values idp tried for the functions the warning names; \
                 models that need other values were not searched, so whether one exists is \
                 unknown: give those functions a listed type (`type Val := {0..100}`) to \
                 search every value",
            ));
        } else if !models.is_empty() {
            "\nNo more models."
        } else {
            "No models."
        };
        out.push_str(last);
        Ok(Val::Items(vec![out]))
    }

    /// Up to `max` models (0: all) that differ on the symbols in `used`.
    fn distinct_models(
        &mut self,
        call: &Call,
        max: usize,
        used: &FxHashSet<Symbol>,
    ) -> Result<Found, Failure> {
        let mut found = self.models(call, max, true)?;
        let mut symbols: Vec<Symbol> = used.iter().copied().collect();
        symbols.sort();
        let mut seen = HashSet::new();
        found
            .models
            .retain(|m| seen.insert(print::projection(m, &symbols)));
        Ok(found)
    }

    fn model_check(&mut self, call: &Call) -> Result<Val, Failure> {
        let found = self.models(call, 1, false)?;
        Ok(Val::Text(
            if found.models.is_empty() {
                "unsat"
            } else {
                "sat"
            }
            .to_string(),
        ))
    }

    /// What every model has in common: IDP-Z3 lists each consequence, then `No more
    /// consequences.` (or `Not satisfiable.`).
    fn model_propagate(&mut self, call: &Call) -> Result<Val, Failure> {
        let (t, s) = self.blocks(call)?;
        let complete = matches!(call.kwarg("complete"), Some(Arg::Name(n)) if n.name == "True");
        let Some(known) = self.propagated(t, s)? else {
            return Ok(Val::Items(vec!["Not satisfiable.".to_string()]));
        };
        let (theory, structure) = (&self.program.theories[t], &self.program.structures[s]);
        let mut items =
            print::consequences(self.program, theory.vocabulary, structure, &known, complete);
        items.push("No more consequences.".to_string());
        Ok(Val::Items(items))
    }

    fn optimise(&mut self, call: &Call) -> Result<Val, Failure> {
        let (t, s) = self.blocks(call)?;
        let members = &self.program.namespaces[0].members;
        let term = call.term.as_ref().and_then(|n| match members.get(n) {
            Some(Component::Term(id)) => Some(id.index()),
            _ => None,
        });
        let Some(term) = term else {
            return Err(Failure::new(format!(
                "`{}` needs the term to optimise: term=\"...\"",
                call.name.name
            )));
        };
        let (theory, structure) = (&self.program.theories[t], &self.program.structures[s]);
        let mut options = self.options.clone();
        options.nbmodels = 1;
        // As in model_expand, what neither the theory nor the term mentions is "don't care".
        options.leave_unmentioned_false = true;
        let mut used = used_symbols(self.program, theory);
        crate::sema::walk::symbols(&self.program.terms[term].term, &mut used);
        // IDP-Z3 prints the optimum only (no best-so-far on a limit), so the bounds can be
        // asked from below, unless chosen otherwise: a plan's length is then found as by
        // growing a horizon.
        options
            .tuning
            .minimize
            .get_or_insert(crate::infer::Strategy::Auto);
        let found = crate::infer::minimize(
            self.program,
            theory,
            structure,
            &self.program.terms[term].term,
            None,
            &options,
        )
        .map_err(failure)?;
        self.warnings.extend(found.warnings);
        if let Some(note) = found.partial {
            return Err(Failure::stopped(note));
        }
        Ok(match found.value.models.first() {
            Some(m) => Val::Text(print::model_text(
                self.program,
                theory.vocabulary,
                structure,
                m,
                Some(&used),
            )),
            None => Val::Text("No models.".to_string()),
        })
    }
}

/// Every predicate and function of a vocabulary (`complete=True`: nothing is "don't care").
fn all_symbols(program: &Program, voc: crate::ids::VocId) -> FxHashSet<Symbol> {
    let v = program.voc(voc);
    let preds = v.preds.iter().map(|&p| Symbol::Pred(p));
    preds
        .chain(v.funcs.iter().map(|&f| Symbol::Func(f)))
        .collect()
}

/// The predicates and functions a theory's sentences and definitions mention, and the
/// functions of its vocabulary whose result type is one the vocabulary declares (`c: () ->
/// Colour`, `f: N -> R` with `type R := {1..3}`): IDP-Z3 0.12.1 bounds each such function to
/// its type by an axiom of its own, so it is searched and shown even when the theory never
/// mentions it. Only predicates and functions onto `Int`, `Real` or `Date` are "don't care".
fn used_symbols(program: &Program, theory: &crate::sema::Theory) -> FxHashSet<Symbol> {
    let mut used = FxHashSet::default();
    for &f in &program.voc(theory.vocabulary).funcs {
        let func = program.func(f);
        if func.constructor_of.is_none() && program.sort(func.result).builtin.is_none() {
            used.insert(Symbol::Func(f));
        }
    }
    for f in &theory.sentences {
        crate::sema::walk::symbols(f, &mut used);
    }
    for d in &theory.definitions {
        for r in &d.rules {
            used.insert(r.head);
            crate::sema::walk::symbols(&r.body, &mut used);
            for a in &r.head_args {
                crate::sema::walk::symbols(a, &mut used);
            }
        }
    }
    used
}

/// Whether grounding stopped at a function onto `int` or `float` that nothing bounds.
fn infinite_values(e: &crate::error::Error) -> bool {
    matches!(
        e.kind(),
        crate::error::ErrorKind::InfiniteDomain { numbers: true, .. }
    )
}

/// The whole numbers `model_expand` tries for a function onto ℤ or ℝ that nothing bounds:
/// -10..10, and each number the theory writes, with its neighbours and of either sign (so
/// that `x > 18` and `sum{{..}} = 180` have values to meet).
fn value_window(theory: &crate::sema::Theory) -> Vec<i64> {
    /// Most numbers of the theory taken into the window.
    const MAX_NUMBERS: usize = 64;
    let mut numbers: Vec<i64> = Vec::new();
    let mut note = |t: &crate::sema::ir::Term| {
        if let crate::sema::ir::TermKind::Value(v) = t.kind() {
            if let Some(x) = v.as_f64().filter(|x| x.is_finite() && x.abs() < 1e12) {
                numbers.push(x.round() as i64);
            }
        }
        false
    };
    for f in &theory.sentences {
        crate::sema::walk::any_term(f, &mut note);
    }
    for d in &theory.definitions {
        for r in &d.rules {
            crate::sema::walk::any_term(&r.body, &mut note);
            for a in &r.head_args {
                crate::sema::walk::any_term(a, &mut note);
            }
        }
    }
    numbers.sort_unstable_by_key(|x| x.abs());
    numbers.dedup();
    let mut window: Vec<i64> = (-10..=10).collect();
    for x in numbers.into_iter().take(MAX_NUMBERS) {
        let x = x.abs();
        window.extend([x - 1, x, x + 1, -x - 1, -x, 1 - x]);
    }
    window.sort_unstable();
    window.dedup();
    window
}

fn failure(e: crate::error::Error) -> Failure {
    let mut message = e.to_string();
    if let crate::error::ErrorKind::InfiniteDomain { sort, .. } = e.kind() {
        // The engine's hint is in IDP3's words; say it in FO(·)'s too.
        let sort = crate::print::fodot_sort_text(sort);
        message.push_str(&format!(
            "\n  hint (FO(\u{b7})): IDP-Z3 leaves {sort} unbounded to Z3; idp grounds, so give the \
             values a listed type (`type Val := {{0..100}}`, then `f: T -> Val` or `x in Val`)"
        ));
    }
    Failure {
        stopped: e.is_limit(),
        message,
        at: None,
    }
}

/// A law's text compared without spaces and parentheses, its signs in ASCII.
fn law_text(law: &str) -> String {
    let ascii = law
        .replace('⇔', "<=>")
        .replace('⇒', "=>")
        .replace('⇐', "<=")
        .replace('∧', "&")
        .replace('∨', "|")
        .replace('¬', "~")
        .replace('≠', "~=")
        .replace('≤', "=<")
        .replace('≥', ">=");
    ascii
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
        .collect::<String>()
        .trim_end_matches('.')
        .to_string()
}

/// The text `print` gives for a value.
fn text_of(v: &Val) -> String {
    match v {
        Val::Nothing => "None".to_string(),
        Val::Text(t) => t.clone(),
        Val::Items(items) => items.join("\n"),
        Val::Block(name) => name.clone(),
        Val::Theory(t) => format!("Theory({}, {})", t.theory, t.structure),
    }
}
