//! IDP3's theory procedures that rewrite or ground a theory: `completion`, `flatten`,
//! `pushnegations`, `removenesting` and `removecardinalities` modify their theory in place and
//! return nil, as IDP3's; `idpintern.ground` returns the ground theory as a theory object
//! and `idpintern.printgrounding` prints it (the prelude's `ground`, `groundeq` and
//! `printgrounding` check their arguments as IDP3's `idp_intern.idp` does and call them);
//! `printasbdd` prints each sentence with its first-order BDD ([`crate::infer::fobdd`]).

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::error::IdpResult;
use crate::infer::ground;
use crate::lua::objects::{as_structure, as_theory, TheoryUd};
use crate::lua::register::{reg, reg_intern, Args};
use crate::lua::{rt_err, state};
use crate::print::{ground_theory_to_string, theory_to_string, Layout};
use crate::sema::{transform, Theory, TheoryForm};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    reg(lua, "completion", |lua, args| {
        in_place(lua, &args, "completion", |program, t| {
            transform::completion(program, t)
        })
    })?;
    reg(lua, "flatten", |lua, args| {
        in_place(lua, &args, "flatten", |_, t| transform::flatten(t))
    })?;
    reg(lua, "pushnegations", |lua, args| {
        in_place(lua, &args, "pushnegations", |_, t| {
            transform::push_negations(t)
        })
    })?;
    reg(lua, "removenesting", |lua, args| {
        in_place(lua, &args, "removenesting", |program, t| {
            transform::remove_nesting(program, t)
        })
    })?;
    reg(lua, "removecardinalities", |lua, args| {
        let threshold = match args.get(1) {
            Some(LuaValue::Integer(n)) => *n,
            Some(LuaValue::Number(n)) => *n as i64,
            _ => 0,
        };
        let budget = state(lua).infer_options().max_ground_size;
        in_place_fallible(lua, &args, "removecardinalities", |_, t| {
            transform::remove_cardinalities(t, threshold, budget)
        })
    })?;
    reg_intern(lua, "ground", |lua, args| {
        let grounded = ground_of(lua, &args, "ground")?;
        let ud = lua.create_userdata(TheoryUd(Rc::new(RefCell::new(grounded))))?;
        Ok(MultiValue::from_vec(vec![LuaValue::UserData(ud)]))
    })?;
    reg(lua, "printasbdd", printasbdd)?;
    reg_intern(lua, "printgrounding", |lua, args| {
        let grounded = ground_of(lua, &args, "printgrounding")?;
        let text = match grounded.form {
            TheoryForm::Ground { model_equivalent } => ground_theory_to_string(
                &state(lua).program(),
                &grounded,
                model_equivalent,
                Layout::Streamed,
            ),
            TheoryForm::Source => theory_to_string(&state(lua).program(), &grounded),
        };
        let print: mlua::Function = lua.globals().get("print")?;
        print.call::<_, ()>(text.trim_end_matches('\n'))?;
        Ok(MultiValue::new())
    })
}

/// IDP3's `printasbdd(T)`: each sentence with its BDD (`printers/bddprinter.hpp`), after
/// IDP3's warning that only the sentences are printed.
fn printasbdd<'lua>(lua: &'lua Lua, args: Args<'lua>) -> mlua::Result<MultiValue<'lua>> {
    let Some(theory) = args.first().and_then(as_theory) else {
        return Err(rt_err("printasbdd: expects a theory"));
    };
    crate::lua::warning(
        lua,
        "Only the sentences of the given theory are printed as BDDs.",
    );
    let text = {
        let st = state(lua);
        let program = st.program();
        let theory = theory.borrow();
        crate::infer::print_theory(&program, &theory).map_err(|e| rt_err(e.to_string()))?
    };
    let print: mlua::Function = lua.globals().get("print")?;
    if let Some(body) = text.strip_suffix('\n') {
        print.call::<_, ()>(body)?;
    }
    Ok(MultiValue::new())
}

/// Applies `rewrite` to the theory that is the first argument.
fn in_place<'lua>(
    lua: &'lua Lua,
    args: &Args<'lua>,
    name: &str,
    rewrite: impl FnOnce(&crate::sema::Program, &mut Theory),
) -> mlua::Result<MultiValue<'lua>> {
    in_place_fallible(lua, args, name, |program, t| {
        rewrite(program, t);
        Ok(())
    })
}

/// Applies `rewrite` to the theory that is the first argument; its error is the procedure's
/// (and leaves the theory as it was).
fn in_place_fallible<'lua>(
    lua: &'lua Lua,
    args: &Args<'lua>,
    name: &str,
    rewrite: impl FnOnce(&crate::sema::Program, &mut Theory) -> IdpResult<()>,
) -> mlua::Result<MultiValue<'lua>> {
    let Some(theory) = args.first().and_then(as_theory) else {
        return Err(rt_err(format!("{name}: expects a theory")));
    };
    let st = state(lua);
    let program = st.program();
    let mut theory = theory.borrow_mut();
    rewrite(&program, &mut theory).map_err(mlua::Error::external)?;
    // A rewritten ground theory is a theory again (it may have variables).
    theory.form = TheoryForm::Source;
    Ok(MultiValue::from_vec(vec![LuaValue::Nil]))
}

/// The ground theory of the theory and structure that are the first two arguments.
fn ground_of(lua: &Lua, args: &Args<'_>, name: &str) -> mlua::Result<Theory> {
    let (Some(t), Some(s)) = (
        args.first().and_then(as_theory),
        args.get(1).and_then(as_structure),
    ) else {
        return Err(rt_err(format!("{name}: expects a theory and a structure")));
    };
    let st = state(lua);
    let program = st.program();
    let options = st.infer_options();
    let model_equivalent = !matches!(args.get(2), Some(LuaValue::Boolean(false)));
    let found = ground(
        &program,
        &t.borrow(),
        &s.borrow(),
        &options,
        model_equivalent,
    )
    .map_err(mlua::Error::external)?;
    for w in &found.warnings {
        crate::lua::warning(lua, w);
    }
    Ok(found.value)
}
