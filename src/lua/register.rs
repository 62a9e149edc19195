//! How the builtins become Lua functions: their arguments as a list, registered as globals
//! and in the tables of IDP3's namespaces (`inferences`, `idpintern`, ...), internal procedures
//! dispatched on their signatures first.

use mlua::{Lua, MultiValue, Value as LuaValue};

/// The arguments of a builtin.
pub type Args<'lua> = Vec<LuaValue<'lua>>;

pub fn arg<'a, 'lua>(args: &'a Args<'lua>, i: usize) -> &'a LuaValue<'lua> {
    const NIL: LuaValue<'static> = LuaValue::Nil;
    args.get(i).unwrap_or(&NIL)
}

/// Registers a builtin taking its arguments as a list.
/// IDP3's internal procedures are dispatched on their signatures first (see
/// [`crate::lua::signature::internal`]) and also put in their namespace table.
pub fn reg<F>(lua: &Lua, name: &str, f: F) -> mlua::Result<()>
where
    F: for<'lua> Fn(&'lua Lua, Args<'lua>) -> mlua::Result<MultiValue<'lua>> + 'static,
{
    let Some((ns, signatures)) = crate::lua::signature::internal(name) else {
        let func = lua.create_function(move |lua, args: MultiValue| f(lua, args.into_vec()))?;
        return lua.globals().set(name, func);
    };
    let proc = name.to_string();
    reg_in(lua, ns, name, move |lua, args| {
        crate::lua::signature::dispatch(lua, &proc, &args, signatures)?;
        f(lua, args)
    })
}

/// Registers an internal procedure in the namespace table `ns` (created when missing) and as a
/// global, as IDP3 does for procedures outside `idpintern`.
pub fn reg_in<F>(lua: &Lua, ns: &str, name: &str, f: F) -> mlua::Result<()>
where
    F: for<'lua> Fn(&'lua Lua, Args<'lua>) -> mlua::Result<MultiValue<'lua>> + 'static,
{
    let func = lua.create_function(move |lua, args: MultiValue| f(lua, args.into_vec()))?;
    namespace_table(lua, ns)?.raw_set(name, func.clone())?;
    if ns != "idpintern" {
        lua.globals().set(name, func)?;
    }
    Ok(())
}

/// Registers a procedure of `idpintern`, which the Lua procedures of the prelude call.
pub fn reg_intern<F>(lua: &Lua, name: &str, f: F) -> mlua::Result<()>
where
    F: for<'lua> Fn(&'lua Lua, Args<'lua>) -> mlua::Result<MultiValue<'lua>> + 'static,
{
    reg_in(lua, "idpintern", name, f)
}

/// The global table of one of IDP3's built-in namespaces (`inferences`, `structure`, ...).
pub fn namespace_table<'lua>(lua: &'lua Lua, ns: &str) -> mlua::Result<mlua::Table<'lua>> {
    if let Ok(t) = lua.globals().raw_get::<_, mlua::Table>(ns) {
        return Ok(t);
    }
    let t = lua.create_table()?;
    lua.globals().raw_set(ns, t.clone())?;
    Ok(t)
}
