//! Domain elements <-> Lua values: integers as Lua integers, floats as numbers, strings as
//! strings, compounds as `compound` userdata. Tuples and tables of tuples from Lua tables.

use mlua::{Lua, Value as LuaValue};

use crate::structure::{Tuple, Value};

/// A tuple as Lua userdata (`tuple`; its methods are in [`super::objects`]).
pub struct TupleUd(pub Tuple);
/// A compound domain element as Lua userdata (`compound`).
pub struct CompoundUd(pub Value);

pub fn value_to_lua<'lua>(lua: &'lua Lua, v: Value) -> mlua::Result<LuaValue<'lua>> {
    Ok(match v {
        Value::Int(i) => LuaValue::Integer(i as mlua::Integer),
        Value::Float(f) => LuaValue::Number(f),
        Value::Ratio(_) => LuaValue::Number(v.as_f64().unwrap_or(f64::NAN)),
        Value::Str(_) => LuaValue::String(lua.create_string(v.string_text().unwrap_or_default())?),
        Value::Compound(_) => LuaValue::UserData(lua.create_userdata(CompoundUd(v))?),
    })
}

/// A domain element from a Lua value (`None` for values that are not elements).
pub fn lua_to_value(v: &LuaValue) -> Option<Value> {
    match v {
        LuaValue::Integer(i) => Some(Value::Int(*i)),
        LuaValue::Number(n) => Some(Value::float(*n)),
        LuaValue::String(s) => Some(Value::str(&s.to_string_lossy())),
        LuaValue::UserData(ud) => ud.borrow::<CompoundUd>().ok().map(|c| c.0),
        _ => None,
    }
}

pub fn tuple_to_lua<'lua>(lua: &'lua Lua, t: &[Value]) -> mlua::Result<LuaValue<'lua>> {
    Ok(LuaValue::UserData(
        lua.create_userdata(TupleUd(t.to_vec()))?,
    ))
}

/// A tuple from a Lua value: a Lua list of elements, a `tuple` userdata, or one element.
pub fn lua_to_tuple(v: &LuaValue) -> Option<Tuple> {
    match v {
        LuaValue::Table(t) => {
            let mut out = Vec::new();
            for e in t.clone().sequence_values::<LuaValue>() {
                out.push(lua_to_value(&e.ok()?)?);
            }
            Some(out)
        }
        LuaValue::UserData(ud) => {
            if let Ok(t) = ud.borrow::<TupleUd>() {
                return Some(t.0.clone());
            }
            lua_to_value(v).map(|x| vec![x])
        }
        other => lua_to_value(other).map(|x| vec![x]),
    }
}

/// Whether a Lua value looks like one tuple (as opposed to a list of tuples).
pub fn is_single_tuple(v: &LuaValue) -> bool {
    match v {
        LuaValue::Table(t) => match t.raw_get::<_, LuaValue>(1) {
            Ok(LuaValue::Table(_)) => false,
            Ok(LuaValue::UserData(ud)) => !ud.is::<TupleUd>(),
            _ => true,
        },
        _ => true,
    }
}

/// A list of tuples from a Lua list whose entries are tuples (tables or `tuple` userdata) or
/// single elements (1-tuples).
pub fn lua_to_tuples(v: &LuaValue) -> Option<Vec<Tuple>> {
    match v {
        LuaValue::Table(t) => {
            let mut out = Vec::new();
            for e in t.clone().sequence_values::<LuaValue>() {
                out.push(lua_to_tuple(&e.ok()?)?);
            }
            Some(out)
        }
        _ => None,
    }
}
