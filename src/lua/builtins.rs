//! The built-in procedures (reference §9): inferences (calling `crate::infer`), structure
//! utilities, iteration, options. Anything not supported raises a Lua error naming it.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::error::{Error, IdpResult};
use crate::ids::{Symbol, VocId};
use crate::infer::{self, Inferred, Propagation};
use crate::lua::objects::*;
use crate::lua::options::OptionsUd;
use crate::lua::register::{arg, reg, reg_in, reg_intern, Args};
use crate::lua::values::{lua_to_value, value_to_lua, TupleUd};
use crate::lua::{report_error, rt_err, state};
use crate::print;
use crate::sema::{ir, Program, Theory};
use crate::structure::{Structure, Table, Tuple, Value};

/// Shows an inference's warnings and gives its answer, or its error as a Lua error.
fn answered<T>(lua: &Lua, proc: &str, result: IdpResult<Inferred<T>>) -> mlua::Result<T> {
    let found = result.map_err(|e| infer_err(proc, e))?;
    for w in &found.warnings {
        super::warning(lua, w);
    }
    Ok(found.value)
}

/// An inference's error, passed through Lua as an external error so that the command line can
/// still tell its kind (a limit) when it comes out.
fn infer_err(proc: &str, e: Error) -> mlua::Error {
    let _ = proc;
    mlua::Error::external(e)
}

fn expect_theory(proc: &str, args: &Args, i: usize) -> mlua::Result<Rc<RefCell<Theory>>> {
    as_theory(arg(args, i)).ok_or_else(|| {
        rt_err(format!(
            "{proc}: argument {} should be a theory, not a {}",
            i + 1,
            describe(arg(args, i))
        ))
    })
}

fn expect_structure(proc: &str, args: &Args, i: usize) -> mlua::Result<SharedStructure> {
    as_structure(arg(args, i)).ok_or_else(|| {
        rt_err(format!(
            "{proc}: argument {} should be a structure, not a {}",
            i + 1,
            describe(arg(args, i))
        ))
    })
}

fn optional_voc(proc: &str, args: &Args, i: usize) -> mlua::Result<Option<VocId>> {
    match arg(args, i) {
        LuaValue::Nil => Ok(None),
        v => as_voc(v).map(Some).ok_or_else(|| {
            rt_err(format!(
                "{proc}: argument {} should be a vocabulary, not a {}",
                i + 1,
                describe(v)
            ))
        }),
    }
}

/// The models of a model expansion, and what stopped the search when a limit stopped it after
/// some models were found, and the search's trace when `stdoptions.trace` asked for one.
struct Expanded {
    models: Vec<Structure>,
    partial: Option<String>,
    trace: Option<Vec<infer::TraceStep>>,
}

fn do_modelexpand(
    lua: &Lua,
    proc: &str,
    args: &Args,
    nbmodels: Option<usize>,
) -> mlua::Result<Expanded> {
    let st = state(lua);
    let t = expect_theory(proc, args, 0)?;
    let s = expect_structure(proc, args, 1)?;
    let out = optional_voc(proc, args, 2)?;
    let mut opts = st.infer_options();
    if let Some(n) = nbmodels {
        opts.nbmodels = n;
    }
    let t = t.borrow();
    let s = s.borrow();
    if let Some(w) = infer::ltc::open_time_warning(&st.program(), &t, &s) {
        super::warning(lua, &w);
    }
    let mut found = infer::modelexpand(&st.program(), &t, &s, out, &opts);
    let partial = found.as_ref().ok().and_then(|f| f.partial.clone());
    let trace = found.as_mut().ok().and_then(|f| f.trace.take());
    Ok(Expanded {
        models: answered(lua, proc, found)?,
        partial,
        trace,
    })
}

/// The metatable of a list of `found` models that `proc` returned: indexing a model that is not
/// there (`sols[2]` of a one-model list) gives nil, as for any table, and notes where that
/// happened, so that the error of indexing that nil can say why the model is missing.
fn missing_model_notes<'lua>(
    lua: &'lua Lua,
    proc: &str,
    found: usize,
    asked: usize,
    partial: Option<String>,
) -> mlua::Result<mlua::Table<'lua>> {
    let meta = lua.create_table()?;
    // Marks a list of models, which the shell prints as `printmodels` does.
    meta.set("__idp_models", true)?;
    let walked = proc.to_string();
    let proc = proc.to_string();
    let index = lua.create_function(move |lua, (_list, key): (LuaValue, LuaValue)| {
        let k = match key {
            LuaValue::Integer(k) => Some(k),
            LuaValue::Number(f) if f.fract() == 0.0 => Some(f as i64),
            _ => None,
        };
        if let Some(k) = k {
            let at = lua_position(lua, 1);
            *state(lua).missing_model.borrow_mut() = Some(super::MissingModel {
                index: k,
                found,
                asked,
                proc: proc.clone(),
                partial: partial.clone(),
                at: at.unwrap_or_default(),
            });
        }
        Ok(LuaValue::Nil)
    })?;
    meta.set("__index", index)?;
    // `for m in modelexpand(T, S) do`: Lua calls the list as if it were an iterator.
    let call = lua.create_function(move |_, _: MultiValue| -> mlua::Result<()> {
        Err(rt_err(format!(
            "{walked} returned a list of models, not an iterator: walk it with \
             `for i, m in ipairs({walked}(...)) do ... end`"
        )))
    })?;
    meta.set("__call", call)?;
    Ok(meta)
}

/// Where the Lua function `level` frames up the stack is, as Lua writes positions
/// (`procedure main:3:`).
fn lua_position(lua: &Lua, level: usize) -> Option<String> {
    lua.inspect_stack(level).map(|d| {
        let src = d
            .source()
            .short_src
            .map(|s| s.into_owned())
            .unwrap_or_default();
        format!("{src}:{}:", d.curr_line())
    })
}

/// `print(modelexpand(T, S)[1])` when the list is empty prints `nil`, as IDP3 does; the
/// warning after it says why it is nil. Called by the prelude's `print` with a nil argument:
/// speaks when the nil came from a list of models indexed on the same line.
fn note_printed_nil(lua: &Lua) {
    let here = lua_position(lua, 2);
    let st = state(lua);
    let missing = st.missing_model.borrow().clone();
    let Some(missing) = missing.filter(|m| here.is_some_and(|h| h == m.at)) else {
        return;
    };
    let at = super::map_message(&st, &missing.at);
    let at = at.trim_end_matches(':');
    let message = match missing.found {
        0 => format!(
            "{at}: nil is printed because {} found no model: the theory has no model in this \
             structure (printunsatcore with the same theory and structure says why; idp \
             --explain FILE from the command line)",
            missing.proc
        ),
        _ => format!("{at}: nil is printed because {}", missing.hint()),
    };
    super::warning(lua, &message);
}

/// What `printmodels` adds to `Unsatisfiable` for the models of `modelexpand(T, S)`: how to
/// ask why.
fn why_hint(theory: &str, structure: &str) -> String {
    format!(
        "hint: theory {theory} has no model with structure {structure}; \
         printunsatcore({theory}, {structure}) prints a minimal set of its sentences and \
         definitions that has none (from the command line: idp --explain FILE)"
    )
}

fn do_minimize<'lua>(
    lua: &'lua Lua,
    proc: &str,
    args: &Args<'lua>,
    negate: bool,
) -> mlua::Result<MultiValue<'lua>> {
    let st = state(lua);
    let t = expect_theory(proc, args, 0)?;
    let s = expect_structure(proc, args, 1)?;
    let term = as_term(arg(args, 2)).ok_or_else(|| {
        rt_err(format!(
            "{proc}: argument 3 should be a term, not a {}",
            describe(arg(args, 2))
        ))
    })?;
    let out = optional_voc(proc, args, 3)?;
    let opts = st.infer_options();
    let mut objective = term.term.clone();
    if negate {
        let int = st
            .program()
            .builtin_sorts
            .get("int")
            .copied()
            .unwrap_or(objective.sort);
        objective = ir::Term::new(
            ir::TermKind::Neg(Box::new(objective.clone())),
            int,
            objective.span,
        );
    }
    let (result, trace) = {
        let t = t.borrow();
        let s = s.borrow();
        let mut found = infer::minimize(&st.program(), &t, &s, &objective, out, &opts);
        let trace = found.as_mut().ok().and_then(|f| f.trace.take());
        (answered(lua, proc, found)?, trace)
    };
    let value = match result.value {
        Some(v) if negate => match v {
            Value::Int(i) => Some(Value::Int(-i)),
            Value::Float(f) => Some(Value::float(-f)),
            v @ Value::Ratio(_) => {
                crate::ground::arith(crate::syntax::ast::ArithOp::Sub, Value::Int(0), v)
            }
            other => Some(other),
        },
        other => other,
    };
    let models = structures_to_lua(lua, result.models)?;
    // IDP3 gives 0 when there is no model (and `maximize`'s value is the optimum of the
    // negated term, as IDP3 returns it).
    let value = match value {
        Some(v) => value_to_lua(lua, v)?,
        None => LuaValue::Integer(0),
    };
    let mut values = vec![models, LuaValue::Boolean(result.proven), value];
    if let Some(trace) = trace {
        // IDP3's fourth value: the search's trace (`stdoptions.trace`).
        values.push(crate::lua::trace::register_trace(
            lua,
            &st.program(),
            &trace,
        )?);
    }
    Ok(MultiValue::from_vec(values))
}

fn do_propagate<'lua>(
    lua: &'lua Lua,
    proc: &str,
    args: &Args<'lua>,
    strength: Propagation,
) -> mlua::Result<LuaValue<'lua>> {
    let st = state(lua);
    let t = expect_theory(proc, args, 0)?;
    let s = expect_structure(proc, args, 1)?;
    let opts = st.infer_options();
    let res = {
        let t = t.borrow();
        let s = s.borrow();
        answered(
            lua,
            proc,
            infer::propagate(&st.program(), &t, &s, strength, &opts),
        )?
    };
    match res {
        Some(mut r) => {
            r.name = String::new();
            struct_to_lua(lua, r)
        }
        None => Ok(LuaValue::Nil),
    }
}

fn one(v: LuaValue) -> mlua::Result<MultiValue> {
    Ok(MultiValue::from_vec(vec![v]))
}

fn none<'lua>() -> mlua::Result<MultiValue<'lua>> {
    Ok(MultiValue::new())
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    lua.globals().set(
        "__idp_typeof",
        lua.create_function(|lua, v: LuaValue| match &v {
            LuaValue::UserData(ud) => match idp_type_name(ud) {
                Some(n) => Ok(LuaValue::String(lua.create_string(n)?)),
                None => Ok(LuaValue::Nil),
            },
            _ => Ok(LuaValue::Nil),
        })?,
    )?;
    lua.globals().set(
        "__idp_report_error",
        lua.create_function(|lua, msg: String| {
            report_error(lua, &msg);
            Ok(())
        })?,
    )?;

    // ----- model expansion -----
    // The models, and in IDP3's trace slot what stopped the search when a limit stopped it
    // after some models were found (`local sols, stopped = modelexpand(T, S)`).
    reg_intern(lua, "modelexpand", |lua, args| {
        let found = do_modelexpand(lua, "modelexpand", &args, None)?;
        let mut values = vec![structures_to_lua(lua, found.models)?];
        if let Some(trace) = found.trace {
            // IDP3's second value: the search's trace (`stdoptions.trace`).
            values.push(crate::lua::trace::register_trace(
                lua,
                &state(lua).program(),
                &trace,
            )?);
        } else if let Some(note) = found.partial {
            values.push(LuaValue::String(lua.create_string(&note)?));
        }
        Ok(MultiValue::from_vec(values))
    })?;
    // Not in IDP3: the number of models (all of them), counted by the search of modelexpand
    // without building a structure per model (`idp --count` on the command line).
    reg(lua, "modelcount", |lua, args| {
        let st = state(lua);
        let t = expect_theory("modelcount", &args, 0)?;
        let s = expect_structure("modelcount", &args, 1)?;
        let out = optional_voc("modelcount", &args, 2)?;
        let mut opts = st.infer_options();
        opts.nbmodels = 0;
        let (t, s) = (t.borrow(), s.borrow());
        let found = infer::count_models(&st.program(), &t, &s, out, &opts);
        let count = answered(lua, "modelcount", found)?;
        one(LuaValue::Integer(count as i64))
    })?;
    reg(lua, "__idp_models", |lua, args| {
        let LuaValue::Table(list) = arg(&args, 0).clone() else {
            return one(arg(&args, 0).clone());
        };
        let proc = match arg(&args, 1) {
            LuaValue::String(s) => s.to_string_lossy().into_owned(),
            _ => "modelexpand".to_string(),
        };
        let partial = match arg(&args, 2) {
            LuaValue::String(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        };
        let asked = state(lua).options().infer_options().nbmodels;
        let found = list.raw_len();
        let notes = missing_model_notes(lua, &proc, found, asked, partial)?;
        if let (Some(t), Some(s)) = (as_theory(arg(&args, 3)), as_structure(arg(&args, 4))) {
            notes.set("__idp_why", why_hint(&t.borrow().name, &s.borrow().name))?;
        }
        list.set_metatable(Some(notes));
        one(LuaValue::Table(list))
    })?;
    reg(lua, "__idp_printed_nil", |lua, _| {
        note_printed_nil(lua);
        none()
    })?;
    reg(lua, "__idp_delivering", |lua, args| {
        state(lua)
            .run()
            .set_delivering(matches!(arg(&args, 0), LuaValue::Boolean(true)));
        none()
    })?;
    reg_intern(lua, "negateterm", |lua, args| {
        crate::lua::signature::dispatch(
            lua,
            "negateterm",
            &args,
            &[&[crate::lua::signature::ArgType::Term]],
        )?;
        let t = as_term(arg(&args, 0)).expect("dispatched");
        let int = state(lua).program().builtin("int");
        let mut negated = (*t).clone();
        negated.term = ir::Term::new(
            ir::TermKind::Neg(Box::new(t.term.clone())),
            int,
            t.term.span,
        );
        one(LuaValue::UserData(
            lua.create_userdata(TermUd(Rc::new(negated)))?,
        ))
    })?;
    reg_intern(lua, "minimize", |lua, args| {
        do_minimize(lua, "minimize", &args, false)
    })?;

    // ----- definitions, queries, propagation -----
    for name in ["calculatedefinitions", "refinedefinitions"] {
        reg(lua, name, move |lua, args| {
            let st = state(lua);
            let t = expect_theory(name, &args, 0)?;
            let s = expect_structure(name, &args, 1)?;
            optional_voc(name, &args, 2)?;
            let opts = st.infer_options();
            let res = {
                let t = t.borrow();
                let s = s.borrow();
                answered(
                    lua,
                    name,
                    infer::calculatedefinitions(&st.program(), &t, &s, &opts),
                )?
            };
            match res {
                Some(mut r) => {
                    r.name = String::new();
                    one(struct_to_lua(lua, r)?)
                }
                None => one(LuaValue::Nil),
            }
        })?;
    }
    reg(lua, "query", |lua, args| {
        let st = state(lua);
        let q = as_query(arg(&args, 0)).ok_or_else(|| {
            rt_err(format!(
                "query: argument 1 should be a query, not a {}",
                describe(arg(&args, 0))
            ))
        })?;
        let s = expect_structure("query", &args, 1)?;
        let opts = st.infer_options();
        let tuples = infer::query(&st.program(), &q, &s.borrow(), &opts)
            .map_err(|e| infer_err("query", e))?;
        one(LuaValue::UserData(
            lua.create_userdata(PredTableUd::new(tuples, q.vars.len()))?,
        ))
    })?;
    reg_intern(lua, "propagate", |lua, args| {
        one(do_propagate(lua, "propagate", &args, Propagation::Ground)?)
    })?;
    reg_intern(lua, "groundpropagate", |lua, args| {
        one(do_propagate(
            lua,
            "groundpropagate",
            &args,
            Propagation::Ground,
        )?)
    })?;
    for name in ["optimalpropagate", "fullpropagate", "bestpropagate"] {
        reg_intern(lua, name, move |lua, args| {
            one(do_propagate(lua, name, &args, Propagation::Optimal)?)
        })?;
    }
    reg(lua, "value", |lua, args| {
        let st = state(lua);
        let s = expect_structure("value", &args, 1)?;
        if let Some(t) = as_term(arg(&args, 0)) {
            let opts = st.infer_options();
            let v = infer::value_of_term(&st.program(), &t.term, &s.borrow(), &opts)
                .map_err(|e| infer_err("value", e))?;
            return one(match v {
                Some(v) => value_to_lua(lua, v)?,
                None => LuaValue::Nil,
            });
        }
        if let Some(t) = as_theory(arg(&args, 0)) {
            let mut opts = st.infer_options();
            opts.nbmodels = 1;
            let found = infer::modelexpand(&st.program(), &t.borrow(), &s.borrow(), None, &opts);
            let models = answered(lua, "value", found)?;
            return one(LuaValue::Boolean(!models.is_empty()));
        }
        Err(rt_err(format!(
            "value: argument 1 should be a term or a theory, not a {}",
            describe(arg(&args, 0))
        )))
    })?;

    // ----- structures -----
    lua.globals().set(
        "__idp_visualize",
        lua.create_function(|lua, (s, o): (LuaValue, LuaValue)| {
            crate::lua::visual::visualize_text(lua, s, o)
        })?,
    )?;
    lua.globals().set(
        "readkey",
        lua.create_function(|lua, ()| crate::lua::visual::read_key(lua))?,
    )?;
    reg(lua, "clone", |lua, args| match arg(&args, 0) {
        v if as_structure(v).is_some() => {
            let mut s = as_structure(v).unwrap().borrow().clone();
            s.name = String::new();
            one(struct_to_lua(lua, s)?)
        }
        v if as_theory(v).is_some() => {
            let t = as_theory(v).unwrap().borrow().clone();
            one(LuaValue::UserData(
                lua.create_userdata(TheoryUd(Rc::new(RefCell::new(t))))?,
            ))
        }
        v => one(v.clone()),
    })?;
    reg(lua, "merge", |lua, args| {
        let st = state(lua);
        if let (Some(a), Some(b)) = (as_theory(arg(&args, 0)), as_theory(arg(&args, 1))) {
            let merged = merge_theories(&st.program(), &a.borrow(), &b.borrow()).map_err(rt_err)?;
            return one(LuaValue::UserData(
                lua.create_userdata(TheoryUd(Rc::new(RefCell::new(merged))))?,
            ));
        }
        let a = expect_structure("merge", &args, 0)?;
        let b = expect_structure("merge", &args, 1)?;
        let merged = merge_structures(&st.program(), &a.borrow(), &b.borrow()).map_err(rt_err)?;
        one(struct_to_lua(lua, merged)?)
    })?;
    reg(lua, "isconsistent", |lua, args| {
        let st = state(lua);
        let s = expect_structure("isconsistent", &args, 0)?;
        let ok = print::is_consistent(&st.program(), &s.borrow());
        one(LuaValue::Boolean(ok))
    })?;
    reg(lua, "clean", |_, args| one(arg(&args, 0).clone()))?;
    reg(lua, "setvocabulary", |_, args| {
        let s = expect_structure("setvocabulary", &args, 0)?;
        let v = as_voc(arg(&args, 1))
            .ok_or_else(|| rt_err("setvocabulary: argument 2 should be a vocabulary"))?;
        s.borrow_mut().vocabulary = v;
        none()
    })?;
    reg(lua, "getvocabulary", |lua, args| {
        let v = arg(&args, 0);
        let voc = if let Some(s) = as_structure(v) {
            s.borrow().vocabulary
        } else if let Some(t) = as_theory(v) {
            t.borrow().vocabulary
        } else if let Some(t) = as_term(v) {
            t.vocabulary
        } else if let Some(q) = as_query(v) {
            q.vocabulary
        } else {
            return Err(rt_err(format!(
                "getvocabulary: cannot take the vocabulary of a {}",
                describe(v)
            )));
        };
        one(LuaValue::UserData(lua.create_userdata(VocUd(voc))?))
    })?;
    reg(lua, "newstructure", |lua, args| {
        let v = as_voc(arg(&args, 0))
            .ok_or_else(|| rt_err("newstructure: argument 1 should be a vocabulary"))?;
        let name = match arg(&args, 1) {
            LuaValue::String(s) => s.to_string_lossy().to_string(),
            _ => String::new(),
        };
        one(struct_to_lua(lua, Structure::new(name, v))?)
    })?;
    reg(lua, "range", |lua, args| {
        let lo = lua_to_value(arg(&args, 0)).and_then(|v| v.as_int());
        let hi = lua_to_value(arg(&args, 1)).and_then(|v| v.as_int());
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Err(rt_err("range: expects two integers"));
        };
        if hi.saturating_sub(lo) > 50_000_000 {
            return Err(rt_err("range: the range is too large"));
        }
        let d: Vec<Value> = (lo..=hi).map(Value::Int).collect();
        one(LuaValue::UserData(
            lua.create_userdata(DomainUd(Rc::new(d)))?,
        ))
    })?;
    for (name, truth) in [
        ("maketrue", Some(true)),
        ("makefalse", Some(false)),
        ("makeunknown", None),
    ] {
        reg(lua, name, move |lua, args| {
            let st = state(lua);
            let (s, sym) = as_interpretation(arg(&args, 0)).ok_or_else(|| {
                rt_err(format!(
                    "{name}: argument 1 should be an interpretation S[V::P], not a {}",
                    describe(arg(&args, 0))
                ))
            })?;
            let tuples = tuples_arg(arg(&args, 1)).ok_or_else(|| {
                rt_err(format!(
                    "{name}: argument 2 should be a tuple or a table of tuples"
                ))
            })?;
            set_truth(&st.program(), &mut s.borrow_mut(), sym, tuples, truth).map_err(rt_err)?;
            none()
        })?;
    }

    // ----- iteration -----
    reg(lua, "tuples", |lua, args| {
        let v = arg(&args, 0);
        let tuples: Rc<Vec<Tuple>> = match v {
            LuaValue::UserData(ud) if ud.is::<PredTableUd>() => {
                ud.borrow::<PredTableUd>()?.tuples().clone()
            }
            LuaValue::UserData(_) if as_interpretation(v).is_some() => {
                let st = state(lua);
                let (s, sym) = as_interpretation(v).unwrap();
                let ts = read_part(&st.program(), &s.borrow(), sym, "ct").map_err(rt_err)?;
                Rc::new(ts)
            }
            LuaValue::Table(_) => {
                Rc::new(tuples_arg(v).ok_or_else(|| rt_err("tuples: expects a table of tuples"))?)
            }
            other => {
                return Err(rt_err(format!(
                    "tuples: expects a predicate table, not a {}",
                    describe(other)
                )))
            }
        };
        one(LuaValue::Function(tuple_iterator(lua, tuples)?))
    })?;
    reg(lua, "elements", |lua, args| {
        let d: Rc<Vec<Value>> = match arg(&args, 0) {
            LuaValue::UserData(ud) if ud.is::<DomainUd>() => ud.borrow::<DomainUd>()?.0.clone(),
            other => {
                return Err(rt_err(format!(
                    "elements: expects a domain, not a {}",
                    describe(other)
                )))
            }
        };
        let pos = std::cell::Cell::new(0usize);
        let f = lua.create_function(move |lua, _: MultiValue| {
            let k = pos.get();
            if k >= d.len() {
                return Ok(LuaValue::Nil);
            }
            pos.set(k + 1);
            value_to_lua(lua, d[k])
        })?;
        one(LuaValue::Function(f))
    })?;
    reg_in(lua, "structure", "createdummytuple", |lua, args| {
        crate::lua::signature::dispatch(lua, "createdummytuple", &args, &[&[]])?;
        one(LuaValue::UserData(
            lua.create_userdata(TupleUd(Vec::new()))?,
        ))
    })?;
    reg(lua, "size", |_, args| match arg(&args, 0) {
        LuaValue::UserData(ud) if ud.is::<PredTableUd>() => one(LuaValue::Integer(
            ud.borrow::<PredTableUd>()?.len() as mlua::Integer,
        )),
        LuaValue::UserData(ud) if ud.is::<DomainUd>() => one(LuaValue::Integer(
            ud.borrow::<DomainUd>()?.0.len() as mlua::Integer,
        )),
        other => Err(rt_err(format!(
            "size: expects a table or domain, not a {}",
            describe(other)
        ))),
    })?;

    // ----- options -----
    reg(lua, "getoptions", |lua, _| {
        let st = state(lua);
        one(LuaValue::UserData(lua.create_userdata(st.options())?))
    })?;
    reg(lua, "newoptions", |lua, _| {
        one(LuaValue::UserData(
            lua.create_userdata(OptionsUd::new_default())?,
        ))
    })?;
    reg(lua, "setascurrentoptions", |lua, args| {
        let st = state(lua);
        let o = match arg(&args, 0) {
            LuaValue::UserData(ud) if ud.is::<OptionsUd>() => ud.borrow::<OptionsUd>()?.clone(),
            other => {
                return Err(rt_err(format!(
                    "setascurrentoptions: expects options, not a {}",
                    describe(other)
                )))
            }
        };
        *st.options.borrow_mut() = o.clone();
        lua.globals().set("stdoptions", o)?;
        none()
    })?;

    // ----- not supported -----
    for name in ["entails", "detectfunctions", "tometa", "frommeta"] {
        reg(lua, name, move |_, _| {
            Err(rt_err(format!(
                "the procedure {name} is not supported by this implementation"
            )))
        })?;
    }
    Ok(())
}

/// IDP3's `merge(T1, T2)`: the theory over the larger vocabulary gets the other's sentences and
/// definitions appended, and the name `T1T2` (in that order).
pub fn merge_theories(program: &Program, a: &Theory, b: &Theory) -> Result<Theory, String> {
    let (va, vb) = (program.voc(a.vocabulary), program.voc(b.vocabulary));
    let (first, second) = if a.vocabulary == b.vocabulary || includes(va, vb) {
        (a, b)
    } else if includes(vb, va) {
        (b, a)
    } else {
        return Err(format!(
            "merge: the vocabularies {} and {} of the theories do not include one another; \
             declare a vocabulary with `extern vocabulary {}` and `extern vocabulary {}` and \
             give both theories that vocabulary",
            va.name, vb.name, va.name, vb.name
        ));
    };
    let mut merged = first.clone();
    merged.name = format!("{}{}", first.name, second.name);
    merged.sentences.extend(second.sentences.iter().cloned());
    merged
        .definitions
        .extend(second.definitions.iter().cloned());
    Ok(merged)
}

/// IDP3's `merge(S1, S2)`: `a` with the domains and the facts of `b` added.
pub fn merge_structures(
    program: &Program,
    a: &Structure,
    b: &Structure,
) -> Result<Structure, String> {
    let mut out = a.clone();
    out.name = String::new();
    for so in b.interpreted_sorts() {
        if b.is_constructed_lazily(so) && out.is_constructed_lazily(so) {
            continue;
        }
        let mut v = out.domain(so).map(<[Value]>::to_vec).unwrap_or_default();
        v.extend(b.domain(so).unwrap_or_default().iter().copied());
        out.set_domain(so, v);
    }
    let syms: Vec<Symbol> = b.symbols.keys().copied().collect();
    for sym in syms {
        if out.table(sym).is_none() {
            out.symbols.insert(sym, b.symbols[&sym].clone());
            continue;
        }
        let (mut ct, cfa) = crate::sema::ct_cf(program, a, sym);
        let (ctb, cfb) = crate::sema::ct_cf(program, b, sym);
        let (Some(mut cf), Some(cfb)) = (cfa, cfb) else {
            return Err(format!(
                "merge: cannot merge {}: its types are not finitely interpreted",
                program.symbol_name(sym)
            ));
        };
        ct.extend(ctb);
        cf.extend(cfb);
        out.symbols.insert(sym, Table::ThreeValued { ct, cf });
        if print::is_two_valued(program, &out, sym) && print::is_consistent(program, &out) {
            let ct = out.table(sym).unwrap().ct().clone();
            out.symbols.insert(sym, Table::TwoValued(ct));
        }
    }
    Ok(out)
}

/// Whether vocabulary `big` has every sort, predicate and function of `small`.
fn includes(big: &crate::sema::Vocabulary, small: &crate::sema::Vocabulary) -> bool {
    small.sorts.iter().all(|x| big.sorts.contains(x))
        && small.preds.iter().all(|x| big.preds.contains(x))
        && small.funcs.iter().all(|x| big.funcs.contains(x))
}
