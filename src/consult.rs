//! `idp consult FILE`: a consultation as a line protocol. Each line on stdin is one JSON
//! request, each line on stdout its JSON reply, in order, so that a teacher or a test can
//! script a conversation with a model. The questions are answered by
//! [`crate::infer::consult`] on one live solver.
//!
//! Requests have an `"op"`: `assume` and `retract` (with `"literal"`: `P(a,b)`, `~P(a,b)`,
//! `f(a) = v`, `f(a) ~= v`), `forced` (what the choices make certain beyond `given`, what
//! the structure fixes), `value` and `explain` and `why_not` (with `"literal"`), `model`,
//! `choices`, `reset`, `atoms`, `symbols`, `given`, `relevant` (the open atoms that still
//! matter, and those that do not, for the symbols named in `"goals"`, else for those of the
//! `goal_symbol` of IDP-Z3's `display` block, else for the whole theory), `minimize` and
//! `maximize` (with `"term"`: a term block's name or a constant), `quit`. Every reply has
//! `"ok"` and `"ms"` (the milliseconds the request took); a reply that is not ok has
//! `"error"`.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value as Json};

use crate::error::IdpResult;
use crate::infer::consult::{Assumed, Consultation, Explanation, Literal, Problem, Reason, WhyNot};
use crate::sema::ir::{Term, TermKind};
use crate::sema::{Component, Program};
use crate::structure::Structure;

/// The budget of the first answer (what holds without choices), in budgets of one request.
const OPENING_BUDGET: u32 = 10;

/// The operations a request may name.
pub const OPERATIONS: &[&str] = &[
    "assume", "retract", "forced", "value", "explain", "why_not", "model", "choices", "reset",
    "atoms", "symbols", "given", "relevant", "minimize", "maximize", "quit",
];

/// How a consultation starts: what reading the files warned about, a structure whose facts
/// are the first choices (`--choices`), and the budget of one request.
pub struct Opening<'a> {
    pub notes: Vec<String>,
    /// IDP-Z3's environment theory alone (with the structure's environment part): what it
    /// and the choices of environment symbols make certain is told apart in `forced`.
    pub environment: Option<&'a Problem<'a>>,
    pub choices: Option<&'a Structure>,
    pub budget: Duration,
}

/// Answers the requests read from `input` on `output` until `quit` or the end of the input.
/// The first line written (`"op": "open"`) gives the number of atoms, whether the problem
/// has a model at all (`"has_model"`), whether environmental consequences are told apart
/// (`"environment"`), the `warnings` (the opening's notes and the problem's
/// own), the first choices made (`"choices"`) or refused (`"refused"`, with why), and the
/// settings of IDP-Z3's `display` block when the files have one (`"display"`, see
/// `display_json`; `symbols` then gives each symbol's view, unit and heading).
pub fn serve_lines(
    problem: &Problem<'_>,
    opening: &Opening<'_>,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let started = Instant::now();
    let budget = opening.budget;
    let opened = problem.consult().and_then(|mut c| {
        // What holds without any choice is settled now, with a longer budget.
        c.set_budget(Some(budget * OPENING_BUDGET));
        let has_model = c.forced()?.is_some();
        Ok((c, has_model))
    });
    let (mut consultation, has_model) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            let reply = failure(&e.to_string(), started);
            return writeln!(output, "{reply}");
        }
    };
    consultation.set_budget(Some(budget));
    let mut environment = match opening.environment.map(Problem::consult).transpose() {
        Ok(environment) => environment,
        Err(e) => return writeln!(output, "{}", failure(&e.to_string(), started)),
    };
    if let Some(env) = &mut environment {
        env.set_budget(Some(budget));
    }
    let mut opened = Map::new();
    opened.insert("op".into(), json!("open"));
    opened.insert("atoms".into(), json!(consultation.atoms().len()));
    opened.insert("has_model".into(), json!(has_model));
    if environment.is_some() {
        opened.insert("environment".into(), json!(true));
    }
    let program = problem.program();
    let skipped: Vec<String> = consultation
        .skipped()
        .iter()
        .map(|s| program.symbol_name(*s).to_string())
        .collect();
    if !skipped.is_empty() {
        opened.insert("skipped".into(), json!(skipped));
    }
    if !program.display.is_empty() {
        opened.insert("display".into(), display_json(program));
    }
    let warnings: Vec<&String> = opening.notes.iter().chain(problem.warnings()).collect();
    if !warnings.is_empty() {
        opened.insert("warnings".into(), json!(warnings));
    }
    if let Some(choices) = opening.choices {
        let made = first_choices(&mut consultation, choices);
        match made {
            Ok((made, refused)) => {
                opened.insert("choices".into(), json!(made));
                if !refused.is_empty() {
                    opened.insert("refused".into(), json!(refused));
                }
            }
            Err(e) => return writeln!(output, "{}", failure(&e.to_string(), started)),
        }
    }
    if let Some(env) = &mut environment {
        if let Err(e) = mirror_choices(&consultation, env) {
            return writeln!(output, "{}", failure(&e.to_string(), started));
        }
    }
    writeln!(output, "{}", success(opened, started))?;
    output.flush()?;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let started = Instant::now();
        let (reply, quit) = match serde_json::from_str::<Json>(&line) {
            Ok(request) => answer(&mut consultation, environment.as_mut(), &request, started),
            Err(e) => (
                failure(&format!("the request is not JSON: {e}"), started),
                false,
            ),
        };
        writeln!(output, "{reply}")?;
        output.flush()?;
        if quit {
            break;
        }
    }
    Ok(())
}

/// Makes the facts of `choices` (a structure over the vocabulary, as a saved consultation
/// writes it: `P<ct> = {...}`, `f<cf> = {...}`) choices, in the vocabulary's order; returns
/// the choices made and, for each refused, why.
fn first_choices(
    c: &mut Consultation<'_>,
    choices: &Structure,
) -> IdpResult<(Vec<String>, Vec<String>)> {
    use crate::structure::TruthValue;
    let (mut made, mut refused) = (Vec::new(), Vec::new());
    let mut literals = Vec::new();
    for atom in c.atoms() {
        match choices.table(atom.symbol).map(|t| t.truth(&atom.tuple)) {
            Some(TruthValue::True) => literals.push(atom),
            Some(TruthValue::False) => literals.push(atom.negated()),
            _ => {}
        }
    }
    literals.extend(number_choices(c, choices));
    for literal in literals {
        match c.assume(&literal)? {
            Assumed::Added => made.push(c.text(&literal)),
            Assumed::Already => {}
            Assumed::Undecided => refused.push(format!(
                "{}: not decided within the budget",
                c.text(&literal)
            )),
            Assumed::Refused(with) => {
                let with = texts(c, &with);
                refused.push(if with.is_empty() {
                    format!("{}: no model has it", c.text(&literal))
                } else {
                    format!("{}: impossible with {}", c.text(&literal), with.join(", "))
                });
            }
        }
    }
    Ok((made, refused))
}

/// The facts of `choices` about the numbers of `c` (`f<ct> = { a->5 }`), as literals.
fn number_choices(c: &Consultation<'_>, choices: &Structure) -> Vec<Literal> {
    use crate::structure::Table;
    let mut out = Vec::new();
    for (symbol, args) in c.numbers() {
        let (ct, cf) = match choices.table(symbol) {
            Some(Table::ThreeValued { ct, cf }) => (ct, Some(cf)),
            Some(Table::TwoValued(set)) => (set, None),
            None => continue,
        };
        let told = ct.iter().map(|t| (t, true));
        for (tuple, truth) in told.chain(cf.into_iter().flatten().map(|t| (t, false))) {
            if is_graph_tuple_of(tuple, &args) {
                out.push(Literal {
                    symbol,
                    tuple: tuple.clone(),
                    truth,
                });
            }
        }
    }
    out
}

/// Whether `tuple` is a function's graph tuple for the application to `args` (`args` and
/// then the value).
fn is_graph_tuple_of(tuple: &[crate::structure::Value], args: &[crate::structure::Value]) -> bool {
    tuple.len() == args.len() + 1 && tuple[..args.len()] == *args
}

/// The choices as a structure block named `name` over the theory's vocabulary, which
/// `idp consult --choices NAME` (and the workbench) reads back: `P<ct> = { a; b }`,
/// `P<cf> = {...}`, `f<ct> = { a->v }`, `C = v`, `Q = true`.
fn choices_block(c: &Consultation<'_>, name: &str) -> String {
    use crate::ids::Symbol;
    use crate::print::readable_value;
    let program = c.problem().program();
    let vocabulary = &program.voc(c.problem().theory().vocabulary).name;
    // (symbol, truth) -> tuples written, in the order of the choices.
    let mut parts: Vec<((Symbol, bool), Vec<String>)> = Vec::new();
    let mut lines = Vec::new();
    for l in c.choices() {
        let name = program.symbol_name(l.symbol);
        let shown: Vec<String> = l.tuple.iter().map(|v| readable_value(*v)).collect();
        let tuple = match l.symbol {
            Symbol::Pred(_) if shown.is_empty() => {
                lines.push(format!("    {name} = {}", l.truth));
                continue;
            }
            Symbol::Func(_) if shown.len() == 1 && l.truth => {
                lines.push(format!("    {name} = {}", shown[0]));
                continue;
            }
            Symbol::Pred(_) => shown.join(","),
            Symbol::Func(_) => {
                let (args, value) = shown.split_at(shown.len() - 1);
                format!("{}->{}", args.join(","), value[0])
            }
        };
        match parts.iter_mut().find(|(k, _)| *k == (l.symbol, l.truth)) {
            Some((_, tuples)) => tuples.push(tuple),
            None => parts.push(((l.symbol, l.truth), vec![tuple])),
        }
    }
    for ((symbol, truth), tuples) in parts {
        let part = if truth { "ct" } else { "cf" };
        let name = program.symbol_name(symbol);
        lines.push(format!("    {name}<{part}> = {{ {} }}", tuples.join("; ")));
    }
    format!(
        "structure {name} : {vocabulary} {{\n{}\n}}\n",
        lines.join("\n")
    )
}

/// The choices of `c` that are about the environment's symbols made the choices of `env`
/// (IDP-Z3's environment theory alone), so that its consequences can be told apart.
fn mirror_choices(c: &Consultation<'_>, env: &mut Consultation<'_>) -> IdpResult<()> {
    env.clear();
    for choice in c.choices() {
        if let Ok(l) = env.parse(&c.text(&choice)) {
            env.assume(&l)?;
        }
    }
    Ok(())
}

/// What the environment theory alone makes certain with the environment's choices (IDP-Z3's
/// environmental consequences), as `{"true": [...], "false": [...], "complete": ...}`.
fn environment_fields(env: &mut Consultation<'_>, budget: Option<Duration>) -> IdpResult<Json> {
    let before = env.budget();
    env.set_budget(budget);
    let forced = env.forced();
    env.set_budget(before);
    Ok(match forced? {
        Some(f) => json!({
            "true": texts(env, &f.true_atoms),
            "false": texts(env, &f.false_atoms),
            "complete": f.undecided.is_empty(),
        }),
        None => json!({"true": [], "false": [], "complete": true}),
    })
}

/// The reply to one request, and whether it ends the consultation.
fn answer(
    c: &mut Consultation<'_>,
    env: Option<&mut Consultation<'_>>,
    request: &Json,
    started: Instant,
) -> (Json, bool) {
    let Some(op) = request.get("op").and_then(Json::as_str) else {
        let message = format!(
            "a request is a JSON object with \"op\": one of {}",
            OPERATIONS.join(", ")
        );
        return (failure(&message, started), false);
    };
    if op == "quit" {
        return (success(Map::new(), started), true);
    }
    let mut answered = respond(c, op, request);
    if let (Some(env), Ok(Ok(fields))) = (env, &mut answered) {
        let told_apart = match op {
            "assume" | "retract" | "reset" => mirror_choices(c, env).map(|()| None),
            "forced" => environment_fields(env, c.budget()).map(Some),
            _ => Ok(None),
        };
        match told_apart {
            Ok(Some(environment)) => {
                fields.insert("environment".into(), environment);
            }
            Ok(None) => {}
            Err(e) => answered = Err(e),
        }
    }
    let reply = match answered {
        Ok(Ok(fields)) => success(fields, started),
        Ok(Err(message)) => failure(&message, started),
        Err(e) => failure(&e.to_string(), started),
    };
    (reply, false)
}

/// The fields of a successful reply, a message for a request that cannot be answered, or
/// the engine's error.
fn respond(
    c: &mut Consultation<'_>,
    op: &str,
    request: &Json,
) -> IdpResult<Result<Map<String, Json>, String>> {
    let mut out = Map::new();
    let literal = |c: &Consultation<'_>| -> Result<Literal, String> {
        let text = request
            .get("literal")
            .and_then(Json::as_str)
            .ok_or_else(|| format!("\"{op}\" needs \"literal\", as in \"P(a)\" or \"f(a) = b\""))?;
        c.parse(text)
    };
    let parsed = match op {
        "assume" | "retract" | "value" | "explain" | "why_not" => match literal(c) {
            Ok(l) => Some(l),
            Err(m) => return Ok(Err(m)),
        },
        _ => None,
    };
    match op {
        "assume" => {
            let l = parsed.clone().expect("parsed above");
            match c.assume(&l)? {
                Assumed::Added => {
                    out.insert("added".into(), json!(true));
                }
                Assumed::Already => {
                    out.insert("added".into(), json!(false));
                }
                Assumed::Undecided => {
                    return Ok(Err(format!(
                        "whether a model has {} with the choices was not decided within the \
                         budget; the choice is not made (a larger --budget-ms decides more)",
                        c.text(&l)
                    )))
                }
                Assumed::Refused(conflict) => {
                    let with = texts(c, &conflict);
                    let message = if with.is_empty() {
                        format!(
                            "{} is impossible: no model of the theory and the structure has it",
                            c.text(&l)
                        )
                    } else {
                        format!(
                            "{} is impossible with the choice{} {}: retract one of them first",
                            c.text(&l),
                            if with.len() == 1 { "" } else { "s" },
                            with.join(", ")
                        )
                    };
                    out.insert("inconsistent".into(), json!(true));
                    out.insert("conflicts_with".into(), json!(with));
                    out.insert("error".into(), json!(message));
                    out.insert("ok".into(), json!(false));
                }
            }
        }
        "retract" => {
            let l = parsed.clone().expect("parsed above");
            if !c.retract(&l)? {
                return Ok(Err(format!("{} is not among the choices", c.text(&l))));
            }
            out.insert("retracted".into(), json!(true));
        }
        "reset" => c.clear(),
        "choices" => {
            out.insert("choices".into(), json!(texts(c, &c.choices())));
            let name = request
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or("Choices");
            out.insert("structure".into(), json!(choices_block(c, name)));
        }
        "atoms" => {
            out.insert("atoms".into(), json!(texts(c, &c.atoms())));
        }
        "symbols" => {
            out.insert("symbols".into(), symbols_json(c));
        }
        "relevant" => {
            let goals = match goal_symbols(c, request) {
                Ok(goals) => goals,
                Err(m) => return Ok(Err(m)),
            };
            match c.relevant(goals.as_deref())? {
                Some(r) => {
                    out.insert("relevant".into(), json!(texts(c, &r.relevant)));
                    out.insert("irrelevant".into(), json!(texts(c, &r.irrelevant)));
                }
                None => return Ok(Err(no_model(c))),
            }
        }
        "given" => {
            let given = c.given();
            out.insert("true".into(), json!(texts(c, &given.true_atoms)));
            out.insert("false".into(), json!(texts(c, &given.false_atoms)));
        }
        "forced" => {
            let asked = request.get("budget_ms").and_then(Json::as_f64);
            let before = c.budget();
            // 0: no budget (every atom is settled, however long that takes).
            match asked.filter(|ms| ms.is_finite() && *ms >= 0.0) {
                Some(0.0) => c.set_budget(None),
                Some(ms) => c.set_budget(Some(Duration::from_secs_f64(ms / 1000.0))),
                None => {}
            }
            let forced = c.forced();
            c.set_budget(before);
            match forced? {
                Some(forced) => {
                    out.insert("true".into(), json!(texts(c, &forced.true_atoms)));
                    out.insert("false".into(), json!(texts(c, &forced.false_atoms)));
                    let complete =
                        forced.undecided.is_empty() && forced.undecided_numbers.is_empty();
                    out.insert("complete".into(), json!(complete));
                    if !forced.undecided.is_empty() {
                        out.insert("undecided".into(), json!(texts(c, &forced.undecided)));
                    }
                    if !forced.undecided_numbers.is_empty() {
                        let numbers: Vec<String> = (forced.undecided_numbers.iter())
                            .map(|(symbol, args)| c.application_text(*symbol, args))
                            .collect();
                        out.insert("undecided_numbers".into(), json!(numbers));
                    }
                }
                None => return Ok(Err(no_model(c))),
            }
        }
        "value" => {
            let l = parsed.clone().expect("parsed above");
            match c.settled_value(&l)? {
                Some((v, settled)) => {
                    let shown = match v.map(|v| v == l.truth) {
                        Some(true) => "true",
                        Some(false) => "false",
                        None if settled => "unknown",
                        None => "undecided",
                    };
                    out.insert("value".into(), json!(shown));
                }
                None => return Ok(Err(no_model(c))),
            }
        }
        "explain" => {
            let l = parsed.clone().expect("parsed above");
            let explanation = c.explain(&l)?;
            explanation_fields(c, &explanation, &mut out);
        }
        "why_not" => {
            let l = parsed.clone().expect("parsed above");
            match c.why_not(&l)? {
                WhyNot::Possible => {
                    out.insert("possible".into(), json!(true));
                }
                WhyNot::Undecided => {
                    return Ok(Err(format!(
                        "whether a model has {} with the choices was not decided within the \
                         budget",
                        c.text(&l)
                    )))
                }
                WhyNot::Impossible { retract, because } => {
                    out.insert("possible".into(), json!(false));
                    let sets: Vec<Vec<String>> = retract.iter().map(|set| texts(c, set)).collect();
                    out.insert("retract".into(), json!(sets));
                    explanation_fields(c, &because, &mut out);
                }
            }
        }
        "model" => match c.model()? {
            Some(model) => {
                let program = c.problem().program();
                out.insert(
                    "structure".into(),
                    json!(crate::print::structure_to_string(program, &model)),
                );
                out.insert("true".into(), json!(texts(c, &true_atoms(c, &model))));
            }
            None => {
                out.insert("model".into(), Json::Null);
            }
        },
        "minimize" | "maximize" => {
            let Some(name) = request.get("term").and_then(Json::as_str) else {
                return Ok(Err(format!(
                    "\"{op}\" needs \"term\": the name of a term block or a constant"
                )));
            };
            let term = match named_term(c.problem(), name) {
                Ok(t) => t,
                Err(m) => return Ok(Err(m)),
            };
            let optimum = c.optimum(&term, op == "maximize")?;
            match optimum.value {
                Some(v) => out.insert("value".into(), json!(v.to_string())),
                None => out.insert("value".into(), Json::Null),
            };
            out.insert("proven".into(), json!(optimum.proven));
            if let Some(model) = optimum.model {
                let program = c.problem().program();
                out.insert(
                    "structure".into(),
                    json!(crate::print::structure_to_string(program, &model)),
                );
            }
        }
        _ => {
            return Ok(Err(format!(
                "unknown \"op\" \"{op}\": one of {}",
                OPERATIONS.join(", ")
            )))
        }
    }
    Ok(Ok(out))
}

/// The message for a question asked when no model has the choices (only the problem
/// itself, since a choice that leaves no model is refused).
fn no_model(c: &Consultation<'_>) -> String {
    if c.choices().is_empty() {
        "the theory has no model with the structure".to_string()
    } else {
        "no model has the current choices".to_string()
    }
}

/// The literals as IDP writes them.
fn texts(c: &Consultation<'_>, literals: &[Literal]) -> Vec<String> {
    literals.iter().map(|l| c.text(l)).collect()
}

/// The atoms of the consultation that `model` makes true, and each number's value.
fn true_atoms(c: &Consultation<'_>, model: &Structure) -> Vec<Literal> {
    let mut out: Vec<Literal> = c
        .atoms()
        .into_iter()
        .filter(|l| {
            model
                .table(l.symbol)
                .is_some_and(|t| t.truth(&l.tuple) == crate::structure::TruthValue::True)
        })
        .collect();
    // Each number's value, `f(a) = 5`.
    for (symbol, args) in c.numbers() {
        let Some(crate::structure::Table::TwoValued(graph)) = model.table(symbol) else {
            continue;
        };
        let value = graph.iter().find(|t| is_graph_tuple_of(t, &args));
        if let Some(tuple) = value {
            out.push(Literal {
                symbol,
                tuple: tuple.clone(),
                truth: true,
            });
        }
    }
    out
}

/// The display block's settings (IDP-Z3's, for its consultant), by symbol name: `"goals"`,
/// `"expanded"`, `"hidden"`, `"counters"`, `"not_optimised"` (lists of names), `"units"`
/// (name to unit), `"headings"` (each `{"heading", "symbols"}`), `"introduction"`,
/// `"view"` (`"expanded"` or `"normal"`) and `"flags"`; empty parts are left out.
fn display_json(program: &Program) -> Json {
    let d = &program.display;
    let names = |symbols: &[crate::ids::Symbol]| -> Vec<&str> {
        symbols.iter().map(|&s| program.symbol_name(s)).collect()
    };
    let mut m = Map::new();
    for (key, symbols) in [
        ("goals", &d.goals),
        ("expanded", &d.expanded),
        ("hidden", &d.hidden),
        ("counters", &d.counters),
        ("not_optimised", &d.not_optimised),
    ] {
        if !symbols.is_empty() {
            m.insert(key.into(), json!(names(symbols)));
        }
    }
    if !d.units.is_empty() {
        let units: Map<String, Json> = d
            .units
            .iter()
            .map(|(s, unit)| (program.symbol_name(*s).to_string(), json!(unit)))
            .collect();
        m.insert("units".into(), Json::Object(units));
    }
    if !d.headings.is_empty() {
        let headings: Vec<Json> = d
            .headings
            .iter()
            .map(|(h, symbols)| json!({"heading": h, "symbols": names(symbols)}))
            .collect();
        m.insert("headings".into(), json!(headings));
    }
    if let Some(text) = &d.introduction {
        m.insert("introduction".into(), json!(text));
    }
    m.insert(
        "view".into(),
        json!(if d.view_expanded {
            "expanded"
        } else {
            "normal"
        }),
    );
    if !d.flags.is_empty() {
        m.insert("flags".into(), json!(d.flags));
    }
    Json::Object(m)
}

/// How the display block, when there is one, shows `symbol`: its `"view"` (`"hidden"`,
/// `"expanded"` or `"normal"`), and its `"unit"`, `"heading"`, `"counter"` and
/// `"optimisable"` when the block says.
fn display_fields(program: &Program, symbol: crate::ids::Symbol, m: &mut Map<String, Json>) {
    let d = &program.display;
    if d.is_empty() {
        return;
    }
    let view = if d.hidden.contains(&symbol) {
        "hidden"
    } else if d.view_expanded || d.expanded.contains(&symbol) {
        "expanded"
    } else {
        "normal"
    };
    m.insert("view".into(), json!(view));
    if let Some((_, unit)) = d.units.iter().find(|(s, _)| *s == symbol) {
        m.insert("unit".into(), json!(unit));
    }
    if let Some((heading, _)) = d.headings.iter().find(|(_, ss)| ss.contains(&symbol)) {
        m.insert("heading".into(), json!(heading));
    }
    if d.counters.contains(&symbol) {
        m.insert("counter".into(), json!(true));
    }
    if d.not_optimised.contains(&symbol) {
        m.insert("optimisable".into(), json!(false));
    }
}

/// The symbols a `relevant` request names in `"goals"`; without them, those of the display
/// block's `goal_symbol` (`None` when there are none either).
fn goal_symbols(
    c: &Consultation<'_>,
    request: &Json,
) -> Result<Option<Vec<crate::ids::Symbol>>, String> {
    let Some(goals) = request.get("goals") else {
        let goals = &c.problem().program().display.goals;
        return Ok((!goals.is_empty()).then(|| goals.clone()));
    };
    let names = goals
        .as_array()
        .and_then(|a| a.iter().map(Json::as_str).collect::<Option<Vec<&str>>>())
        .ok_or("\"goals\" is a list of symbol names, as in [\"Colour\"]")?;
    let program = c.problem().program();
    let symbols = crate::infer::interpreted_symbols(program, c.problem().theory().vocabulary);
    names
        .iter()
        .map(|&name| {
            symbols
                .iter()
                .copied()
                .find(|&s| program.symbol_name(s) == name)
                .ok_or_else(|| format!("there is no symbol {name} in the vocabulary"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The atoms of the consultation by symbol, as a form shows them: for each symbol its name,
/// `"kind"` (`predicate` or `function`), the names of its argument types (and `"result"`,
/// for a function), and `"rows"`: for a predicate one per tuple (`"args"`, and the
/// `"literal"` that `assume` takes), for a function one per tuple of arguments with the
/// `"values"` it may take (`"value"` and `"literal"`, `f(a) = v`), or, for a number the
/// search chooses (an integer or real without a listed type), `"number"`: the application
/// `f(a)` whose value `assume` takes as `f(a) = 5`.
/// With a display block, each symbol also says how it is shown (see `display_fields`).
fn symbols_json(c: &Consultation<'_>) -> Json {
    use crate::ids::Symbol;
    use crate::print::readable_value;
    let program = c.problem().program();
    let shown = |vs: &[crate::structure::Value]| -> Vec<String> {
        vs.iter().map(|v| readable_value(*v)).collect()
    };
    let mut symbols: Vec<(Symbol, Map<String, Json>)> = Vec::new();
    for atom in c.atoms() {
        let literal = c.text(&atom);
        let rows = rows_of(&mut symbols, program, atom.symbol);
        match atom.symbol {
            Symbol::Pred(_) => rows.push(json!({"args": shown(&atom.tuple), "literal": literal})),
            Symbol::Func(_) => {
                let (args, value) = atom.tuple.split_at(atom.tuple.len() - 1);
                let args = shown(args);
                let entry = json!({"value": readable_value(value[0]), "literal": literal});
                match rows.last_mut() {
                    Some(row) if row["args"] == json!(args) => {
                        if let Some(Json::Array(values)) = row.get_mut("values") {
                            values.push(entry);
                        }
                    }
                    _ => rows.push(json!({"args": args, "values": [entry]})),
                }
            }
        }
    }
    for (symbol, args) in c.numbers() {
        let applied = c.application_text(symbol, &args);
        rows_of(&mut symbols, program, symbol)
            .push(json!({"args": shown(&args), "number": applied}));
    }
    // In the vocabulary's order (the numbers were listed after the atoms).
    let order = crate::infer::interpreted_symbols(program, c.problem().theory().vocabulary);
    symbols.sort_by_key(|(s, _)| order.iter().position(|o| o == s));
    Json::Array(symbols.into_iter().map(|(_, m)| Json::Object(m)).collect())
}

/// The rows of `symbol`, the last of `symbols` (added when it is not).
fn rows_of<'m>(
    symbols: &'m mut Vec<(crate::ids::Symbol, Map<String, Json>)>,
    program: &Program,
    symbol: crate::ids::Symbol,
) -> &'m mut Vec<Json> {
    if symbols.last().is_none_or(|(s, _)| *s != symbol) {
        symbols.push((symbol, symbol_head(program, symbol)));
    }
    let (_, m) = symbols.last_mut().expect("just pushed");
    match m.get_mut("rows") {
        Some(Json::Array(rows)) => rows,
        _ => unreachable!("a symbol's head has its rows"),
    }
}

/// What `symbols` says of a symbol before its rows: name, kind, types (as FO(·) names them
/// when its declaration is in an FO(·) file: `Real`, not `float`), how it is shown.
fn symbol_head(program: &Program, symbol: crate::ids::Symbol) -> Map<String, Json> {
    use crate::ids::Symbol;
    let declared = match symbol {
        Symbol::Pred(p) => program.pred(p).span,
        Symbol::Func(f) => program.func(f).span,
    };
    let fodot = declared.is_some_and(|at| program.in_fodot(at));
    let type_name = |s: crate::ids::SortId| -> String {
        if fodot {
            crate::print::fodot_sort_name(program, s)
        } else {
            program.sort(s).name.clone()
        }
    };
    let type_names =
        |ids: &[crate::ids::SortId]| -> Vec<String> { ids.iter().map(|&s| type_name(s)).collect() };
    let mut m = Map::new();
    m.insert("name".into(), json!(program.symbol_name(symbol)));
    match symbol {
        Symbol::Pred(p) => {
            m.insert("kind".into(), json!("predicate"));
            m.insert("args".into(), json!(type_names(&program.pred(p).args)));
        }
        Symbol::Func(f) => {
            let func = program.func(f);
            m.insert("kind".into(), json!("function"));
            m.insert("args".into(), json!(type_names(&func.args)));
            m.insert("result".into(), json!(type_name(func.result)));
            m.insert("partial".into(), json!(func.partial));
        }
    }
    display_fields(program, symbol, &mut m);
    m.insert("rows".into(), json!([]));
    m
}

/// A term block's term, or a constant of the vocabulary as a term.
fn named_term(problem: &Problem<'_>, name: &str) -> Result<Term, String> {
    let program: &Program = problem.program();
    if let Some(Component::Term(id)) = program.namespaces[0].members.get(name) {
        return Ok(program.terms[id.index()].term.clone());
    }
    let voc = program.voc(problem.theory().vocabulary);
    voc.funcs
        .iter()
        .copied()
        .find(|&f| program.func(f).name == name && program.func(f).args.is_empty())
        .map(|f| {
            let span = crate::source::Span::default();
            Term::new(TermKind::Func(f, Vec::new()), program.func(f).result, span)
        })
        .ok_or_else(|| format!("there is no term block or constant named '{name}'"))
}

/// An explanation's fields: `forced` and, when forced, `reasons`.
fn explanation_fields(c: &Consultation<'_>, e: &Explanation, out: &mut Map<String, Json>) {
    match e {
        Explanation::Because { reasons, .. } => {
            out.insert("forced".into(), json!(true));
            let parts: Vec<Json> = reasons.iter().map(|r| reason_json(c, r)).collect();
            out.insert("reasons".into(), json!(parts));
        }
        Explanation::NotForced => {
            out.insert("forced".into(), json!(false));
        }
        Explanation::NoModel => {
            out.insert("forced".into(), json!(true));
            out.insert("no_model".into(), json!(true));
        }
    }
}

fn reason_json(c: &Consultation<'_>, r: &Reason) -> Json {
    match r {
        Reason::Choice(l) => json!({"kind": "choice", "literal": c.text(l)}),
        Reason::Fact(l) => json!({"kind": "fact", "literal": c.text(l)}),
        Reason::Sentence { at, text, instance } => {
            let mut m = Map::new();
            m.insert("kind".into(), json!("sentence"));
            m.insert("at".into(), json!(at));
            m.insert("text".into(), json!(text));
            if let Some((instance, binding)) = instance.as_ref().filter(|(_, b)| !b.is_empty()) {
                m.insert("instance".into(), json!(instance));
                m.insert("binding".into(), json!(binding));
            }
            Json::Object(m)
        }
        Reason::Definition { at, text } => json!({"kind": "definition", "at": at, "text": text}),
        Reason::Given(text) => json!({"kind": "given", "text": text}),
    }
}

/// A reply: `fields` with `"ok": true` (unless they say otherwise) and `"ms"`.
fn success(mut fields: Map<String, Json>, started: Instant) -> Json {
    fields.entry("ok").or_insert(json!(true));
    fields.insert("ms".into(), json!(millis(started)));
    Json::Object(fields)
}

fn failure(message: &str, started: Instant) -> Json {
    json!({"ok": false, "error": message, "ms": millis(started)})
}

/// Milliseconds since `started`, to the hundredth.
fn millis(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0
}
