//! Symbols that a structure interprets by a Lua procedure (`isSquare = procedure checkSquare`):
//! once the procedures are compiled, each is called for every tuple of its symbol's argument
//! types, and the answers become the symbol's table (true/false for a predicate, the value for
//! a function). IDP3 calls such procedures lazily during grounding; `idp` needs the argument
//! types to be finite in the structure, and says so otherwise.

use mlua::{Lua, Table as LuaTable, Value as LuaValue};

use crate::ground::domains::cartesian;
use crate::sema::program::{Program, Symbol};
use crate::structure::structure::{Structure, Table};
use crate::structure::value::{Tuple, Value};

use super::values::{lua_to_value, value_to_lua};

/// Fills in the tables of the procedure-interpreted symbols of `structure`.
pub fn fill_tables(
    lua: &Lua,
    program: &Program,
    namespaces: &LuaTable,
    structure: &mut Structure,
) -> Result<(), String> {
    for (symbol, name) in std::mem::take(&mut structure.procedures) {
        let table = procedure_table(lua, program, namespaces, structure, symbol, &name)?;
        structure.symbols.insert(symbol, Table::TwoValued(table));
    }
    Ok(())
}

fn procedure_table(
    lua: &Lua,
    program: &Program,
    namespaces: &LuaTable,
    structure: &Structure,
    symbol: Symbol,
    name: &[String],
) -> Result<std::collections::HashSet<Tuple>, String> {
    let shown = name.join("::");
    let symbol_name = program.symbol_name(symbol).to_string();
    let function = find_procedure(namespaces, name).ok_or_else(|| {
        format!(
            "{symbol_name} in structure {} is interpreted by procedure {shown}, which does not \
             exist",
            structure.name
        )
    })?;
    let args = match symbol {
        Symbol::Pred(p) => program.pred(p).args.clone(),
        Symbol::Func(f) => program.func(f).args.clone(),
    };
    let mut domains = Vec::new();
    for sort in args {
        let Some(d) = structure.domain(sort) else {
            return Err(format!(
                "{symbol_name} in structure {} is interpreted by procedure {shown}, but its \
                 argument type {} has no finite interpretation; idp calls the procedure for \
                 every argument tuple, so give the type a finite interpretation",
                structure.name,
                program.sort(sort).name
            ));
        };
        domains.push(d.to_vec());
    }
    let mut table = std::collections::HashSet::new();
    for tuple in cartesian(&domains) {
        let lua_args = tuple
            .iter()
            .map(|&v| value_to_lua(lua, v))
            .collect::<mlua::Result<Vec<_>>>()
            .map_err(|e| e.to_string())?;
        let answer: LuaValue = function
            .call(mlua::MultiValue::from_vec(lua_args))
            .map_err(|e| format!("procedure {shown}: {}", super::error_message(&e)))?;
        match symbol {
            Symbol::Pred(_) => {
                if !matches!(answer, LuaValue::Nil | LuaValue::Boolean(false)) {
                    table.insert(tuple);
                }
            }
            Symbol::Func(_) => {
                let value = lua_to_value(&answer).ok_or_else(|| {
                    format!(
                        "procedure {shown} returned no domain element for {symbol_name}({})",
                        tuple
                            .iter()
                            .map(Value::to_string)
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })?;
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
