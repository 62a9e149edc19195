//! Symbols that a structure interprets by a Lua procedure (`isSquare = procedure checkSquare`):
//! once the procedures are compiled, each is called for every tuple of its symbol's argument
//! types, and the answers become the symbol's table (true/false for a predicate, the value for
//! a function). When an argument type has no finite interpretation (`int`, `string`, a huge
//! range), the procedure is called lazily instead, as IDP3 does: for each tuple that grounding
//! meets ([`crate::structure::LazyProcedure`]).

use std::collections::HashSet;

use mlua::{Lua, Table as LuaTable, Value as LuaValue};

use crate::error::{Error, ErrorKind};
use crate::ids::Symbol;
use crate::sema::{cartesian, BuiltinSort, Program};
use crate::structure::{Answer, LazyProcedure, Structure, Table, TupleSet, Value};

use super::values::{lua_to_value, value_to_lua};

thread_local! {
    /// The runtime whose structures have procedures still to call, once one has
    /// ([`defer`]).
    static DEFERRED: std::cell::Cell<Option<&'static Lua>> = const { std::cell::Cell::new(None) };
}

/// Notes that a structure of `lua`'s runtime keeps procedures to call when it is first used.
pub fn defer(lua: &'static Lua) {
    DEFERRED.with(|d| d.set(Some(lua)));
}

/// Fills in the tables of a structure whose procedures could not be called when the runtime
/// was set up (they may read what `main` sets up first), now that it is used.
pub fn fill_deferred(structure: &std::rc::Rc<std::cell::RefCell<Structure>>) {
    if structure.borrow().procedures.is_empty() {
        return;
    }
    if let Some(lua) = DEFERRED.with(|d| d.get()) {
        crate::lua::fill_deferred_structure(lua, structure);
    }
}

/// Fills in the tables of the procedure-interpreted symbols of `structure`.
pub fn fill_tables(
    lua: &'static Lua,
    program: &Program,
    namespaces: &LuaTable,
    structure: &mut Structure,
) -> Result<(), String> {
    for (symbol, name) in std::mem::take(&mut structure.procedures) {
        match argument_domains(program, structure, symbol) {
            Some(domains) => {
                let table =
                    procedure_table(lua, program, namespaces, structure, symbol, &name, &domains)?;
                structure.symbols.insert(symbol, Table::TwoValued(table));
            }
            None => {
                let lazy = lazy_procedure(lua, program, namespaces, structure, symbol, &name)?;
                structure.lazy.insert(symbol, lazy);
            }
        }
    }
    Ok(())
}

/// The domains of the argument types of `symbol`, when all are finite in `structure`.
fn argument_domains(
    program: &Program,
    structure: &Structure,
    symbol: Symbol,
) -> Option<Vec<Vec<Value>>> {
    let arguments = match symbol {
        Symbol::Pred(p) => &program.pred(p).args,
        Symbol::Func(f) => &program.func(f).args,
    };
    arguments
        .iter()
        .map(|&sort| crate::sema::sort_domain(program, structure, sort))
        .collect()
}

/// The procedure of `symbol`, to be called per tuple: it is kept in the Lua registry, and its
/// answers are checked as [`procedure_table`] checks them.
fn lazy_procedure(
    lua: &'static Lua,
    program: &Program,
    namespaces: &LuaTable,
    structure: &Structure,
    symbol: Symbol,
    name: &[String],
) -> Result<LazyProcedure, String> {
    let shown = name.join("::");
    let symbol_name = program.symbol_name(symbol).to_string();
    let function = named_procedure(namespaces, structure, &symbol_name, name)?;
    let key = lua
        .create_registry_value(function)
        .map_err(|e| procedure_error(&e, &shown).to_string())?;
    let result = ResultType::of(program, structure, symbol);
    let name_shown = shown.clone();
    let call = move |args: &[Value]| -> Result<Answer, Error> {
        let function: mlua::Function = lua
            .registry_value(&key)
            .map_err(|e| procedure_error(&e, &name_shown))?;
        let answer =
            call_procedure(lua, &function, args).map_err(|e| procedure_error(&e, &name_shown))?;
        match &result {
            None => Ok(Answer::Holds(holds(&answer))),
            Some(result) => result
                .value(&answer, &name_shown, &symbol_name, args)
                .map(Answer::Value)
                .map_err(|m| Error::new(ErrorKind::Procedure, m)),
        }
    };
    Ok(LazyProcedure::new(shown, std::rc::Rc::new(call)))
}

/// The procedure `name` (qualified) that interprets `symbol_name`, or why there is none.
fn named_procedure<'lua>(
    namespaces: &LuaTable<'lua>,
    structure: &Structure,
    symbol_name: &str,
    name: &[String],
) -> Result<mlua::Function<'lua>, String> {
    find_procedure(namespaces, name).ok_or_else(|| {
        format!(
            "{symbol_name} in structure {} is interpreted by procedure {}, which does not exist",
            structure.name,
            name.join("::")
        )
    })
}

/// Calls a procedure on the values of `args`.
fn call_procedure<'lua>(
    lua: &'lua Lua,
    function: &mlua::Function<'lua>,
    args: &[Value],
) -> mlua::Result<LuaValue<'lua>> {
    let lua_args = args
        .iter()
        .map(|&v| value_to_lua(lua, v))
        .collect::<mlua::Result<Vec<_>>>()?;
    function.call(mlua::MultiValue::from_vec(lua_args))
}

/// The error of a procedure that interprets a symbol: named after the procedure, of kind
/// [`ErrorKind::Procedure`], unless a limit stopped it (then it stays a limit).
fn procedure_error(e: &mlua::Error, shown: &str) -> Error {
    let message = format!("procedure {shown}: {}", super::error_message(e));
    match super::engine_error(e).map(Error::kind) {
        Some(kind @ ErrorKind::Limit(_)) => Error::new(kind.clone(), message),
        _ => Error::new(ErrorKind::Procedure, message),
    }
}

/// Whether a predicate's procedure said true (anything but `nil` and `false`, as in Lua).
fn holds(answer: &LuaValue) -> bool {
    !matches!(answer, LuaValue::Nil | LuaValue::Boolean(false))
}

/// The values a function's procedure may return: the elements of the function's result type.
struct ResultType {
    name: String,
    /// The elements, when the type is finite in the structure.
    members: Option<HashSet<Value>>,
    builtin: Option<BuiltinSort>,
}

impl ResultType {
    /// The result type of `symbol`; `None` for a predicate.
    fn of(program: &Program, structure: &Structure, symbol: Symbol) -> Option<ResultType> {
        let Symbol::Func(f) = symbol else {
            return None;
        };
        let sort = program.func(f).result;
        Some(ResultType {
            name: program.sort(sort).name.clone(),
            members: crate::sema::sort_domain(program, structure, sort)
                .map(|d| d.into_iter().collect()),
            builtin: program.sort(sort).builtin,
        })
    }

    /// The value a procedure returned for `symbol_name(args)`, or why it is none of the type.
    fn value(
        &self,
        answer: &LuaValue,
        shown: &str,
        symbol_name: &str,
        args: &[Value],
    ) -> Result<Value, String> {
        let application = || format!("{symbol_name}({})", shown_tuple(args));
        let value = lua_to_value(answer).ok_or_else(|| {
            format!(
                "procedure {shown} returned no domain element for {}",
                application()
            )
        })?;
        let admitted = match (&self.members, self.builtin) {
            (Some(members), _) => members.contains(&value),
            (None, Some(b)) => crate::sema::builtin_contains(b, value),
            (None, None) => true,
        };
        if !admitted {
            return Err(format!(
                "procedure {shown} returned {value} for {}, which is not an element of {}",
                application(),
                self.name
            ));
        }
        Ok(value)
    }
}

/// `a,b,c` for an argument tuple.
fn shown_tuple(args: &[Value]) -> String {
    args.iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The table of `symbol` from calling its procedure on every tuple of `domains`.
fn procedure_table(
    lua: &Lua,
    program: &Program,
    namespaces: &LuaTable,
    structure: &Structure,
    symbol: Symbol,
    name: &[String],
    domains: &[Vec<Value>],
) -> Result<TupleSet, String> {
    let shown = name.join("::");
    let symbol_name = program.symbol_name(symbol).to_string();
    let function = named_procedure(namespaces, structure, &symbol_name, name)?;
    let result = ResultType::of(program, structure, symbol);
    let mut table = TupleSet::default();
    for tuple in cartesian(domains) {
        let answer = call_procedure(lua, &function, &tuple)
            .map_err(|e| procedure_error(&e, &shown).to_string())?;
        match &result {
            None => {
                if holds(&answer) {
                    table.insert(tuple);
                }
            }
            Some(result) => {
                let value = result.value(&answer, &shown, &symbol_name, &tuple)?;
                let mut row = tuple;
                row.push(value);
                table.insert(row);
            }
        }
    }
    Ok(table)
}

/// The procedure with a qualified name, looked up from the global namespace.
fn find_procedure<'lua>(globals: &LuaTable<'lua>, name: &[String]) -> Option<mlua::Function<'lua>> {
    let (last, path) = name.split_last()?;
    let mut table = globals.clone();
    for part in path {
        table = table.raw_get::<_, LuaTable>(part.as_str()).ok()?;
    }
    table.raw_get::<_, mlua::Function>(last.as_str()).ok()
}
