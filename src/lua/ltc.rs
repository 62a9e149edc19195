//! The LTC procedures `initialise`, `progress` and `isinvariant` (IDP3's `progress.hpp` and the
//! `initialise` wrapper of `idp_intern.idp`), on top of [`crate::infer::ltc`].

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::error::{Error, ErrorKind};
use crate::lua::objects::{
    as_structure, as_target, as_theory, structures_to_lua, Target, TheoryUd, VocUd,
};
use crate::lua::register::{arg, reg_in, reg_intern, Args};
use crate::lua::signature::{dispatch, ArgType};
use crate::lua::{report_error, state};
use crate::sema::Theory;

/// Shows an inference's warnings and gives its answer (or the Lua error of [`ltc_error`]).
fn answered<T>(
    lua: &Lua,
    result: crate::error::IdpResult<crate::infer::Inferred<T>>,
) -> mlua::Result<T> {
    let found = result.map_err(|e| ltc_error(lua, e))?;
    for w in &found.warnings {
        crate::lua::warning(lua, w);
    }
    Ok(found.value)
}

/// The Lua error for an engine error of an LTC inference: an error that IDP3 reports where it
/// finds it is printed now, and the chunk stops with `Error encountered; operation aborted.`.
pub fn ltc_error(lua: &Lua, e: Error) -> mlua::Error {
    if *e.kind() == ErrorKind::Aborted && !e.message().is_empty() {
        report_error(lua, e.message());
        return mlua::Error::external(Error::new(
            ErrorKind::Aborted,
            "Error encountered; operation aborted.",
        ));
    }
    mlua::Error::external(e)
}

fn theory_value(lua: &Lua, t: Theory) -> mlua::Result<LuaValue<'_>> {
    Ok(LuaValue::UserData(lua.create_userdata(TheoryUd(
        std::rc::Rc::new(std::cell::RefCell::new(t)),
    ))?))
}

/// `idpintern.initialise(T, S [, Time, Start, Next])`: the table `{models, bistate theory,
/// initial theory, V_bs, V_ss}`.
fn initialise<'lua>(lua: &'lua Lua, args: Args<'lua>) -> mlua::Result<MultiValue<'lua>> {
    use ArgType::*;
    dispatch(
        lua,
        "initialise",
        &args,
        &[
            &[Theory, Structure],
            &[Theory, Structure, Sort, Function, Function],
        ],
    )?;
    let st = state(lua);
    let t = as_theory(arg(&args, 0)).expect("dispatched");
    let s = as_structure(arg(&args, 1)).expect("dispatched");
    if args.len() == 5 {
        // The time symbols given: the theory's vocabulary is made an LTC vocabulary with them
        // (IDP3's `LTCData::getStateVocInfo(voc, symbols)`, reached from `idp_intern.idp`'s
        // `initialise` when Time, Start and Next are passed).
        let program = st.program();
        let (time, start, next) = match (
            as_target(&program, arg(&args, 2)),
            as_target(&program, arg(&args, 3)),
            as_target(&program, arg(&args, 4)),
        ) {
            (
                Ok(Target::Sort(time)),
                Ok(Target::Sym(crate::ids::Symbol::Func(start))),
                Ok(Target::Sym(crate::ids::Symbol::Func(next))),
            ) => (time, start, next),
            _ => {
                return Err(ltc_error(
                    lua,
                    Error::new(
                        ErrorKind::Aborted,
                        "initialise: give the Time type, the Start constant and the Next function (e.g. V::Time.type, V::Start, V::Next)",
                    ),
                ))
            }
        };
        let voc = t.borrow().vocabulary;
        let mut made = Ok(());
        st.update_program(|p| {
            made = crate::sema::transform_vocabulary(p, voc, time, start, next);
        });
        if let Err(message) = made {
            return Err(ltc_error(lua, Error::new(ErrorKind::Aborted, message)));
        }
    }
    let opts = st.infer_options();
    let result = crate::infer::ltc::initialise(&st.program(), &t.borrow(), &s.borrow(), &opts);
    let init = answered(lua, result)?;
    let out = lua.create_table()?;
    out.raw_set(1, structures_to_lua(lua, init.models)?)?;
    out.raw_set(2, theory_value(lua, init.split.bistate)?)?;
    out.raw_set(3, theory_value(lua, init.split.initial)?)?;
    out.raw_set(4, lua.create_userdata(VocUd(init.bistate_voc))?)?;
    out.raw_set(5, lua.create_userdata(VocUd(init.single_state_voc))?)?;
    Ok(MultiValue::from_vec(vec![LuaValue::Table(out)]))
}

fn progress<'lua>(lua: &'lua Lua, args: Args<'lua>) -> mlua::Result<MultiValue<'lua>> {
    dispatch(
        lua,
        "progress",
        &args,
        &[&[ArgType::Theory, ArgType::Structure]],
    )?;
    let st = state(lua);
    let t = as_theory(arg(&args, 0)).expect("dispatched");
    let s = as_structure(arg(&args, 1)).expect("dispatched");
    let opts = st.infer_options();
    let result = crate::infer::ltc::progress(&st.program(), &t.borrow(), &s.borrow(), &opts);
    let states = answered(lua, result)?;
    Ok(MultiValue::from_vec(vec![structures_to_lua(lua, states)?]))
}

fn isinvariant<'lua>(lua: &'lua Lua, args: Args<'lua>) -> mlua::Result<MultiValue<'lua>> {
    use ArgType::*;
    dispatch(
        lua,
        "isinvariant",
        &args,
        &[&[Theory, Theory, Structure], &[Theory, Theory]],
    )?;
    let st = state(lua);
    let t = as_theory(arg(&args, 0)).expect("dispatched");
    let inv = as_theory(arg(&args, 1)).expect("dispatched");
    let s = as_structure(arg(&args, 2));
    let opts = st.infer_options();
    let s_ref = s.as_ref().map(|s| s.borrow());
    let result = crate::infer::ltc::isinvariant(
        &st.program(),
        &t.borrow(),
        &inv.borrow(),
        s_ref.as_deref(),
        &opts,
    );
    let answer = answered(lua, result)?;
    if let Some(c) = answer.counterexample {
        eprint!("{c}");
    }
    Ok(MultiValue::from_vec(vec![LuaValue::Boolean(answer.holds)]))
}

/// `shortestplan(T, S [, maxsteps])`: a model of a shortest plan (Time = {0..L} for the least L whose
/// last state satisfies the goal `? t[Time]: φ(t)` of T), or nil when there is none within the
/// step limit (`maxsteps`, else S's Time domain, else 1000 steps). Not an IDP3 procedure.
fn shortestplan<'lua>(lua: &'lua Lua, args: Args<'lua>) -> mlua::Result<MultiValue<'lua>> {
    use ArgType::*;
    dispatch(
        lua,
        "shortestplan",
        &args,
        &[&[Theory, Structure], &[Theory, Structure, Int]],
    )?;
    let st = state(lua);
    let t = as_theory(arg(&args, 0)).expect("dispatched");
    let s = as_structure(arg(&args, 1)).expect("dispatched");
    let max_steps = match arg(&args, 2) {
        LuaValue::Integer(n) => Some(*n),
        LuaValue::Number(n) => Some(*n as i64),
        _ => None,
    };
    if max_steps.is_some_and(|n| n < 0) {
        return Err(mlua::Error::external(Error::input(
            "shortestplan: the number of steps must not be negative",
        )));
    }
    let max_steps = max_steps.map(|n| n as usize);
    let opts = st.infer_options();
    let result = crate::infer::ltc::plan(&st.program(), &t.borrow(), &s.borrow(), max_steps, &opts);
    let found = answered(lua, result)?;
    let value = match found {
        Some(mut m) => {
            m.name = std::string::String::new();
            crate::lua::objects::struct_to_lua(lua, m)?
        }
        None => LuaValue::Nil,
    };
    Ok(MultiValue::from_vec(vec![value]))
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    reg_in(lua, "inferences", "shortestplan", shortestplan)?;
    reg_intern(lua, "initialise", initialise)?;
    reg_in(lua, "inferences", "progress", progress)?;
    reg_in(lua, "inferences", "isinvariant", isinvariant)?;
    Ok(())
}
