//! The argument check of the inferences that IDP3 writes in Lua (`modelexpand`, `minimize`,
//! `propagate`, `printunsatcore`, ...): a wrong argument stops the chunk with an error that
//! names the argument and what was given, at the procedure line of the call (as the internal
//! procedures' errors are), and says so when the arguments are only in the wrong order
//! (`modelexpand(S, T)`).

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::lua::objects::{as_structure, as_term, as_theory, as_voc, idp_type_name};
use crate::lua::{rt_err, state};

/// Registers `__idp_arguments(proc, kinds, ...)`: `kinds` lists the kinds of the arguments
/// that follow, separated by spaces, an optional one ending in `?` (`"theory structure
/// vocabulary?"`). Returns nothing when each argument is of its kind.
pub fn register(lua: &Lua) -> mlua::Result<()> {
    let check = lua.create_function(|lua, args: MultiValue| {
        let mut args = args.into_vec().into_iter();
        let proc = match args.next() {
            Some(LuaValue::String(s)) => s.to_string_lossy().into_owned(),
            _ => return Err(rt_err("__idp_arguments: expected the procedure's name")),
        };
        let kinds = match args.next() {
            Some(LuaValue::String(s)) => s.to_string_lossy().into_owned(),
            _ => return Err(rt_err("__idp_arguments: expected the arguments' kinds")),
        };
        let given: Vec<LuaValue> = args.collect();
        match wrong_argument(lua, &proc, &kinds, &given) {
            Some(message) => Err(rt_err(message)),
            None => Ok(()),
        }
    })?;
    lua.globals().set("__idp_arguments", check)
}

/// The message for the first argument that is not of its kind, with a hint when the required
/// arguments are all there but in another order.
fn wrong_argument(lua: &Lua, proc: &str, kinds: &str, given: &[LuaValue]) -> Option<String> {
    let expected: Vec<(&str, bool)> = kinds
        .split_whitespace()
        .map(|k| match k.strip_suffix('?') {
            Some(k) => (k, true),
            None => (k, false),
        })
        .collect();
    let nil = LuaValue::Nil;
    let (position, kind) = expected
        .iter()
        .enumerate()
        .find_map(|(i, &(kind, optional))| {
            let value = given.get(i).unwrap_or(&nil);
            let fits = kind_of(value) == Some(kind) || (optional && value.is_nil());
            (!fits).then_some((i, kind))
        })?;
    let value = given.get(position).unwrap_or(&nil);
    let mut message = format!(
        "{proc}: argument {} should be {} {kind}, not {}",
        position + 1,
        article(kind),
        what(lua, value)
    );
    if let Some(order) = reordered(lua, proc, &expected, given) {
        message.push_str(&format!(
            "\n  hint: the arguments are in the wrong order; write {order}"
        ));
    }
    Some(message)
}

/// The call with the required arguments in the order `expected` has them, when `given` holds
/// exactly those kinds in another order (`modelexpand(T, S)` for `modelexpand(S, T)`).
fn reordered(
    lua: &Lua,
    proc: &str,
    expected: &[(&str, bool)],
    given: &[LuaValue],
) -> Option<String> {
    let required: Vec<&str> = expected
        .iter()
        .filter(|(_, optional)| !optional)
        .map(|(k, _)| *k)
        .collect();
    let mut pool: Vec<&LuaValue> = given.iter().take(required.len()).collect();
    let mut names = Vec::new();
    for kind in &required {
        let at = pool.iter().position(|v| kind_of(v) == Some(kind))?;
        names.push(name_of(lua, pool.remove(at))?);
    }
    Some(format!("{proc}({})", names.join(", ")))
}

/// The IDP kind of a value (`theory`, `structure`, ...), `None` for plain Lua values.
fn kind_of(value: &LuaValue) -> Option<&'static str> {
    match value {
        LuaValue::UserData(ud) => idp_type_name(ud),
        _ => None,
    }
}

/// The name a procedure writes for a theory, structure, vocabulary or term.
fn name_of(lua: &Lua, value: &LuaValue) -> Option<String> {
    if let Some(t) = as_theory(value) {
        return Some(t.borrow().name.clone());
    }
    if let Some(s) = as_structure(value) {
        return Some(s.borrow().name.clone());
    }
    if let Some(v) = as_voc(value) {
        return Some(state(lua).program().voc(v).name.clone());
    }
    as_term(value).map(|t| t.name.clone())
}

/// What was given: `the structure S`, `a number`, `nil`.
fn what(lua: &Lua, value: &LuaValue) -> String {
    match (kind_of(value), name_of(lua, value)) {
        (Some(kind), Some(name)) if !name.is_empty() => format!("the {kind} {name}"),
        (Some(kind), _) => format!("{} {kind}", article(kind)),
        (None, _) if value.is_nil() => "nil".to_string(),
        (None, _) => {
            let kind = value.type_name();
            format!("{} {kind}", article(kind))
        }
    }
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}
