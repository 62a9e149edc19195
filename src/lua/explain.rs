//! The procedures that say why there is no model: IDP3's `printunsatcore`, `printcore`,
//! `unsatstructure` and `explainunsat` (their wrappers, with IDP3's argument messages, are in
//! the prelude and call `__idp_unsatcore` as IDP3's call `idpintern.unsatcore`), and
//! `explain(T, S, literal)`, which says why every model gives a literal its value.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::infer::{
    interpreted_symbols, parse_literal, unsat_core, unsat_structure, why_forced, Facts, Forced,
    Reading,
};
use crate::lua::objects::{as_structure, as_theory, as_voc, struct_to_lua, TheoryUd};
use crate::lua::{rt_err, state};
use crate::sema::Theory;
use crate::structure::Structure;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let unsatcore = lua.create_function(
        |lua, (by_structure, by_theory, t, s, v): (bool, bool, LuaValue, LuaValue, LuaValue)| {
            let (Some(t), Some(s), Some(v)) = (as_theory(&t), as_structure(&s), as_voc(&v)) else {
                return Err(rt_err(
                    "unsatcore: expected a theory, a structure and a vocabulary",
                ));
            };
            let (t, s) = (t.borrow(), s.borrow());
            unsatcore(lua, by_structure, by_theory, &t, &s, v)
        },
    )?;
    lua.globals().set("__idp_unsatcore", unsatcore)?;
    let explain = lua.create_function(|lua, (t, s, literal): (LuaValue, LuaValue, String)| {
        let (Some(t), Some(s)) = (as_theory(&t), as_structure(&s)) else {
            return Err(rt_err(
                "explain: expected a theory, a structure and a literal (a string)",
            ));
        };
        let (t, s) = (t.borrow(), s.borrow());
        explain_literal(lua, &t, &s, &literal)
    })?;
    lua.globals().set("explain", explain)
}

/// IDP3's `idpintern.unsatcore`: a core of the theory (`by_theory`), of the structure's facts
/// about the symbols of `voc` (`by_structure`), or both. Prints the theory's part as IDP3
/// does; returns the structure (reduced when `by_structure`) and, when `by_theory`, the
/// core's instances and definitions as a theory.
fn unsatcore<'lua>(
    lua: &'lua Lua,
    by_structure: bool,
    by_theory: bool,
    theory: &Theory,
    structure: &Structure,
    voc: crate::ids::VocId,
) -> mlua::Result<MultiValue<'lua>> {
    let st = state(lua);
    let program = &*st.program();
    let options = st.infer_options();
    let symbols = interpreted_symbols(program, voc);
    let engine = |e| mlua::Error::external(e);
    if by_structure && !by_theory {
        let Some(reduced) =
            unsat_structure(program, theory, structure, &symbols, &options).map_err(engine)?
        else {
            return already_satisfiable(lua);
        };
        print(lua, UNSAT_FOUND)?;
        return Ok(MultiValue::from_vec(vec![struct_to_lua(lua, reduced)?]));
    }
    let facts = if by_structure {
        Facts::Of(symbols.clone())
    } else {
        Facts::Given
    };
    let found = unsat_core(program, theory, structure, &facts, &[], &options).map_err(engine)?;
    for w in &found.warnings {
        crate::lua::warning(lua, w);
    }
    let Some(core) = found.value else {
        return already_satisfiable(lua);
    };
    print(lua, UNSAT_FOUND)?;
    let reading = Reading {
        program,
        theory,
        structure,
    };
    for line in reading.idp3_lines(&core) {
        print(lua, &line)?;
    }
    let shown = if by_structure {
        core.structure(structure)
    } else {
        structure.clone()
    };
    let core_theory = core.theory(theory);
    Ok(MultiValue::from_vec(vec![
        struct_to_lua(lua, shown)?,
        LuaValue::UserData(lua.create_userdata(TheoryUd(Rc::new(RefCell::new(core_theory))))?),
    ]))
}

/// What IDP3 prints once it knows there is no model, before it shrinks the core.
const UNSAT_FOUND: &str = ">>> Unsatisfiable subset found, trying to reduce its size (might take some time, can be interrupted with ctrl-c.";

/// IDP3's answer when there is a model: its message on stderr, and nothing returned.
fn already_satisfiable(lua: &Lua) -> mlua::Result<MultiValue<'_>> {
    // IDP3's `UnsatCoreInference` (`src/external/commands/unsatcore.hpp`) catches the
    // `AlreadySatisfiableException` of `src/inferences/debugging/MinimizeMarkers.hpp`, writes
    // its message on stderr and returns nil (one value): the procedure goes on. `io.stderr` is a file
    // (userdata), so its `write` is called as a method.
    lua.load(r#"io.stderr:write("Cannot get core of theory which is already satisfiable\n")"#)
        .set_name("=unsatcore")
        .exec()?;
    Ok(MultiValue::from_vec(vec![LuaValue::Nil]))
}

/// `explain(T, S, literal)`: prints why every model satisfies the literal (or that one does
/// not, or that there is no model) and returns whether every model satisfies it.
fn explain_literal<'lua>(
    lua: &'lua Lua,
    theory: &Theory,
    structure: &Structure,
    literal: &str,
) -> mlua::Result<MultiValue<'lua>> {
    let st = state(lua);
    let program = &*st.program();
    let formula = parse_literal(program, theory.vocabulary, structure, literal)
        .map_err(|m| rt_err(format!("explain: {m}")))?;
    let options = st.infer_options();
    let answer = why_forced(program, theory, structure, &formula, &options)
        .map_err(mlua::Error::external)?
        .value;
    let reading = Reading {
        program,
        theory,
        structure,
    };
    for line in reading.forced_lines(literal, &answer) {
        print(lua, &line)?;
    }
    let forced = !matches!(answer, Forced::Not);
    Ok(MultiValue::from_vec(vec![LuaValue::Boolean(forced)]))
}

/// Prints a line through Lua's `print`, so that it stays in order with the procedure's output.
fn print(lua: &Lua, line: &str) -> mlua::Result<()> {
    let print: mlua::Function = lua.globals().get("print")?;
    print.call::<_, ()>(line)
}
