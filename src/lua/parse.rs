//! IDP3's `parse(file)` (`parse.hpp`: `parsefile` of `parser.yy`): a file read while
//! procedures run, whose vocabularies, theories, structures, terms, queries, namespaces and
//! procedures join the program and become Lua values as if they had been in the input; and
//! `idpintern.parsetext(text, name)`, the same on a text, which `<createStructureFromFile>`
//! uses.
//!
//! As in IDP3, names in the new file resolve against everything declared before (`structure
//! S : V { ... }` over a vocabulary of the input), a component declared again is an error, and
//! the errors of the file are reported (and make the run exit with code 1) while the procedure
//! goes on; `parse` returns nothing. A file with errors adds nothing here (IDP3 keeps the blocks
//! that came before the first error).

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::diagnostics::{render_plain, Diagnostics, Severity};
use crate::lua::register::{arg, reg_in, reg_intern, Args};
use crate::lua::signature::{dispatch, ArgType};
use crate::lua::{install_components, report_error, rt_err, state};

type Ret<'lua> = mlua::Result<MultiValue<'lua>>;

fn string_arg(args: &Args, i: usize) -> String {
    match arg(args, i) {
        LuaValue::String(s) => s.to_string_lossy().to_string(),
        _ => String::new(),
    }
}

/// `parse(file)`.
fn parse<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "parse", &args, &[&[ArgType::String]])?;
    if state(lua).sandbox.get() {
        return Err(rt_err("parse is not allowed in --sandbox mode"));
    }
    let file = string_arg(&args, 0);
    match std::fs::read(&file) {
        Ok(bytes) => {
            add_input(lua, file, bytes)?;
        }
        Err(_) => report_error(lua, &format!("Could not open file {file}.")),
    }
    Ok(MultiValue::new())
}

/// `idpintern.parsetext(text, name)`: `text` parsed as the file `name`; true when it had no
/// errors.
fn parsetext<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(
        lua,
        "parsetext",
        &args,
        &[&[ArgType::String, ArgType::String]],
    )?;
    let (text, name) = (string_arg(&args, 0), string_arg(&args, 1));
    let ok = add_input(lua, name, text.into_bytes())?;
    Ok(MultiValue::from_vec(vec![LuaValue::Boolean(ok)]))
}

/// Parses and resolves one input on top of the program, reports its diagnostics, and makes its
/// components Lua values. False when it had errors (then nothing was added).
pub(crate) fn add_input(lua: &Lua, name: String, bytes: Vec<u8>) -> mlua::Result<bool> {
    let st = state(lua);
    let program = st.program();
    let mut sources = program
        .sources
        .as_ref()
        .map(|s| (*s.0).clone())
        .unwrap_or_default();
    let mut diags = Diagnostics::default();
    let loaded = crate::syntax::load_with(
        vec![(name, bytes)],
        &crate::stdlib::source,
        false,
        None,
        // The runtime may be on an ordinary stack (a library user's).
        crate::syntax::Stack::Own,
        &mut sources,
        &mut diags,
    );
    let installed: Vec<usize> = program.namespaces.iter().map(|n| n.members.len()).collect();
    let extended = if diags.has_errors() {
        None
    } else {
        let more =
            crate::sema::resolve_more((*program).clone(), &loaded.file, Some(&sources), &mut diags);
        (!diags.has_errors()).then_some(more)
    };
    drop(program);
    for d in diags.sorted() {
        if d.severity == Severity::Warning {
            crate::lua::warning(
                lua,
                render_plain(&d, &sources)
                    .trim_end()
                    .trim_start_matches("Warning: "),
            );
        } else {
            report_error(
                lua,
                render_plain(&d, &sources)
                    .trim_end()
                    .trim_start_matches("Error: "),
            );
        }
    }
    let Some(extended) = extended else {
        return Ok(false);
    };
    st.set_program(extended);
    install_components(st.lua(), &st, &installed)?;
    Ok(true)
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    reg_in(lua, "stdspace", "parse", parse)?;
    reg_intern(lua, "parsetext", parsetext)?;
    Ok(())
}
