//! A model search's trace as IDP3 hands it to Lua (`stdoptions.trace = true`): an array of
//! entries `{type = "assign", dl = level, value = bool, atom = ...}` and
//! `{type = "backtrack", dl = level}`, in the order the solver made them. The atom of an
//! assignment is a `formula` object for an atom of a vocabulary symbol (it prints as IDP3
//! prints an atom: `P(1,2)`, `F(1)=2`, `c=3`) and the text `tseitin_N` for a variable of the
//! encoding, as in IDP3's `LuaTraceMonitor`.
//!
//! As IDP3's `LuaTraceMonitor`, every traced search keeps its trace in the Lua registry as
//! `sat_trace_N` (N counts the traced searches from 1), the same table `modelexpand` and
//! `minimize` return; `modelIterator` returns no trace in IDP3 either, and its search's trace is
//! only there. `debug.getregistry()` (IDP3 loads Lua's `debug` library) gives these entries.

use mlua::{Lua, MetaMethod, UserData, UserDataMethods, Value as LuaValue};

use crate::ids::Symbol;
use crate::infer::{TraceStep, TracedAtom};
use crate::print::tuple_to_string;
use crate::sema::Program;
use crate::structure::Tuple;

/// A ground atom as a Lua `formula` object (IDP3 gives its traces' atoms as formulas).
pub struct AtomUd {
    pub symbol: Symbol,
    pub tuple: Tuple,
    /// The atom as IDP3 prints it.
    pub text: String,
}

impl UserData for AtomUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.text.clone()));
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::AnyUserData| {
            Ok(other
                .borrow::<AtomUd>()
                .map(|o| o.symbol == this.symbol && o.tuple == this.tuple)
                .unwrap_or(false))
        });
    }
}

/// An atom as IDP3's printer writes it: `P(1,2)`, `P` without arguments, and a function's
/// graph atom as `F(1,2)=3` (`c=3` for a constant).
pub fn atom_text(program: &Program, symbol: Symbol, tuple: &[crate::structure::Value]) -> String {
    let args = |t: &[crate::structure::Value]| {
        if t.is_empty() {
            String::new()
        } else {
            format!("({})", tuple_to_string(t))
        }
    };
    match symbol {
        Symbol::Pred(p) => format!("{}{}", program.pred(p).name, args(tuple)),
        Symbol::Func(f) => match tuple.split_last() {
            Some((value, inputs)) => format!(
                "{}{}={}",
                program.func(f).name,
                args(inputs),
                tuple_to_string(std::slice::from_ref(value))
            ),
            None => program.func(f).name.clone(),
        },
    }
}

/// The trace as IDP3's Lua array of entries, kept in the registry as `sat_trace_N`.
pub fn register_trace<'lua>(
    lua: &'lua Lua,
    program: &Program,
    steps: &[TraceStep],
) -> mlua::Result<LuaValue<'lua>> {
    let table = trace_to_lua(lua, program, steps)?;
    let n = trace_count(lua)? + 1;
    lua.set_named_registry_value(COUNT_KEY, n)?;
    lua.set_named_registry_value(&format!("sat_trace_{n}"), table.clone())?;
    Ok(table)
}

const COUNT_KEY: &str = "idp_sat_trace_count";

fn trace_count(lua: &Lua) -> mlua::Result<u32> {
    Ok(lua
        .named_registry_value::<Option<u32>>(COUNT_KEY)?
        .unwrap_or(0))
}

/// `debug.getregistry()`: a table of the registry's `sat_trace_N` entries (the rest of Lua's
/// `debug` library is not loaded here). An existing `debug` table only gains the function.
pub fn register(lua: &Lua) -> mlua::Result<()> {
    let debug = match lua.globals().get::<_, LuaValue>("debug")? {
        LuaValue::Table(t) => t,
        _ => {
            let t = lua.create_table()?;
            lua.globals().set("debug", t.clone())?;
            t
        }
    };
    if debug.contains_key("getregistry")? {
        return Ok(());
    }
    let getregistry = lua.create_function(|lua, ()| {
        let registry = lua.create_table()?;
        for n in 1..=trace_count(lua)? {
            let key = format!("sat_trace_{n}");
            let trace: LuaValue = lua.named_registry_value(&key)?;
            registry.raw_set(key, trace)?;
        }
        Ok(registry)
    })?;
    debug.set("getregistry", getregistry)
}

/// The trace as IDP3's Lua array of entries.
fn trace_to_lua<'lua>(
    lua: &'lua Lua,
    program: &Program,
    steps: &[TraceStep],
) -> mlua::Result<LuaValue<'lua>> {
    let list = lua.create_table_with_capacity(steps.len(), 0)?;
    for (i, step) in steps.iter().enumerate() {
        list.raw_set(i + 1, step_to_lua(lua, program, step)?)?;
    }
    Ok(LuaValue::Table(list))
}

fn step_to_lua<'lua>(
    lua: &'lua Lua,
    program: &Program,
    step: &TraceStep,
) -> mlua::Result<mlua::Table<'lua>> {
    let entry = lua.create_table()?;
    match step {
        TraceStep::Backtrack { level } => {
            entry.raw_set("type", "backtrack")?;
            entry.raw_set("dl", *level)?;
        }
        TraceStep::Assign { atom, value, level } => {
            entry.raw_set("type", "assign")?;
            entry.raw_set("dl", *level)?;
            entry.raw_set("value", *value)?;
            entry.raw_set("atom", atom_to_lua(lua, program, atom)?)?;
        }
    }
    Ok(entry)
}

fn atom_to_lua<'lua>(
    lua: &'lua Lua,
    program: &Program,
    atom: &TracedAtom,
) -> mlua::Result<LuaValue<'lua>> {
    Ok(match atom {
        TracedAtom::Tseitin(v) => LuaValue::String(lua.create_string(format!("tseitin_{v}"))?),
        TracedAtom::Input(symbol, tuple) => LuaValue::UserData(lua.create_userdata(AtomUd {
            symbol: *symbol,
            tuple: tuple.clone(),
            text: atom_text(program, *symbol, tuple),
        })?),
    })
}
