//! IDP3's dispatch of internal procedures on the types of their arguments (`internalCall` in
//! IDP3's `luaconnection.cpp`): each procedure has one or more signatures; a call whose
//! argument types fit none reports `There is no procedure NAME with the provided arguments
//! <...>` with the signatures that exist, and stops the running chunk.

use mlua::{Lua, Value as LuaValue};

use crate::lua::objects::*;
use crate::lua::options::OptionsUd;
use crate::lua::values::{CompoundUd, TupleUd};

/// The type of an argument, in IDP3's order (which orders the signatures in messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArgType {
    Sort,
    Predicate,
    Function,
    Vocabulary,
    Compound,
    Tuple,
    Domain,
    PredTable,
    PredInter,
    FuncInter,
    Structure,
    Query,
    Formula,
    Theory,
    Term,
    Options,
    Namespace,
    Nil,
    Int,
    Double,
    Boolean,
    String,
    Table,
    Procedure,
}

impl ArgType {
    /// IDP3's name of the type (`toCString`).
    pub fn name(self) -> &'static str {
        use ArgType::*;
        match self {
            Sort => "type",
            Predicate => "predicate_symbol",
            Function => "function_symbol",
            Vocabulary => "vocabulary",
            Compound => "compound",
            Tuple => "tuple",
            Domain => "domain",
            PredTable => "predicate_table",
            PredInter => "predicate_interpretation",
            FuncInter => "function_interpretation",
            Structure => "structure",
            Query => "query",
            Formula => "formula",
            Theory => "theory",
            Term => "term",
            Options => "options",
            Namespace => "namespace",
            Nil => "nil",
            Int | Double => "number",
            Boolean => "boolean",
            String => "string",
            Table => "table",
            Procedure => "function",
        }
    }
}

/// The types a value can be taken as: one, or for a symbol `V::P` each of its sorts,
/// predicates and functions (IDP3's overloaded symbols).
pub fn arg_types(v: &LuaValue) -> Vec<ArgType> {
    use ArgType::*;
    match v {
        LuaValue::Nil => vec![Nil],
        LuaValue::Boolean(_) => vec![Boolean],
        LuaValue::Integer(_) => vec![Int],
        LuaValue::Number(n) if n.fract() == 0.0 && n.abs() < 2.0e9 => vec![Int],
        LuaValue::Number(_) => vec![Double],
        LuaValue::String(_) => vec![String],
        LuaValue::Function(_) => vec![Procedure],
        LuaValue::Table(t) => {
            let ns = t.get_metatable().and_then(|m| {
                m.raw_get::<_, Option<std::string::String>>("__idptype")
                    .ok()
                    .flatten()
            });
            if ns.as_deref() == Some("namespace") {
                vec![Namespace]
            } else {
                vec![Table]
            }
        }
        LuaValue::UserData(ud) => userdata_types(ud),
        _ => vec![],
    }
}

fn userdata_types(ud: &mlua::AnyUserData) -> Vec<ArgType> {
    use ArgType::*;
    if let Ok(s) = ud.borrow::<SymbolUd>() {
        let mut out = Vec::new();
        out.extend(s.sorts.iter().map(|_| Sort));
        out.extend(s.preds.iter().map(|_| Predicate));
        out.extend(s.funcs.iter().map(|_| Function));
        out.dedup();
        return out;
    }
    let one = if ud.is::<VocUd>() {
        Vocabulary
    } else if ud.is::<SortUd>() {
        Sort
    } else if ud.is::<PredUd>() {
        Predicate
    } else if ud.is::<FuncUd>() {
        Function
    } else if ud.is::<TheoryUd>() {
        Theory
    } else if ud.is::<StructUd>() {
        Structure
    } else if ud.is::<TermUd>() {
        Term
    } else if ud.is::<QueryUd>() {
        Query
    } else if ud.is::<PredInterUd>() {
        PredInter
    } else if ud.is::<FuncInterUd>() {
        FuncInter
    } else if ud.is::<PredTableUd>() {
        PredTable
    } else if ud.is::<TupleUd>() {
        Tuple
    } else if ud.is::<CompoundUd>() {
        Compound
    } else if ud.is::<DomainUd>() {
        Domain
    } else if ud.is::<OptionsUd>() {
        Options
    } else {
        return vec![];
    };
    vec![one]
}

/// The signature (an index into `signatures`) that the arguments fit, or IDP3's error: it is
/// reported on stderr and the running chunk stops.
pub fn dispatch(
    lua: &Lua,
    name: &str,
    args: &[LuaValue],
    signatures: &[&[ArgType]],
) -> mlua::Result<usize> {
    let types: Vec<Vec<ArgType>> = args.iter().map(arg_types).collect();
    let fits = |sig: &[ArgType]| {
        sig.len() == types.len()
            && sig
                .iter()
                .zip(&types)
                .all(|(t, options)| options.contains(t))
    };
    if let Some(k) = signatures.iter().position(|s| fits(s)) {
        return Ok(k);
    }
    crate::lua::report_error(lua, &no_such_procedure(name, &types, signatures));
    Err(crate::lua::already_reported())
}

/// IDP3's `errorNoSuchProcedure` text (without the leading `Error: `).
pub fn no_such_procedure(name: &str, types: &[Vec<ArgType>], signatures: &[&[ArgType]]) -> String {
    let given: Vec<String> = types
        .iter()
        .map(|options| {
            options
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let mut sigs: Vec<&[ArgType]> = signatures.to_vec();
    sigs.sort();
    let mut out = format!(
        "There is no procedure {name} with the provided arguments <{}>\nDid you intend to use:\n",
        given.join(",")
    );
    for s in sigs {
        let names: Vec<&str> = s.iter().map(|t| t.name()).collect();
        out.push_str(&format!("\t{name}({})\n", names.join(", ")));
    }
    out.push('\n');
    out
}

/// The namespace and the signatures of the internal procedures that `builtins` registers by
/// name (IDP3's `setNameSpace` and `TypedInference` lists).
pub fn internal(name: &str) -> Option<(&'static str, &'static [&'static [ArgType]])> {
    use ArgType::*;
    Some(match name {
        "query" => ("inferences", &[&[Query, Structure]]),
        "value" => (
            "inferences",
            &[
                &[Theory, Structure],
                &[Formula, Structure],
                &[Term, Structure],
            ],
        ),
        "clone" => ("structure", &[&[Structure], &[Theory]]),
        "merge" => ("structure", &[&[Theory, Theory], &[Structure, Structure]]),
        "isconsistent" | "clean" => ("structure", &[&[Structure]]),
        "setvocabulary" => ("vocabulary", &[&[Structure, Vocabulary]]),
        "getvocabulary" => ("vocabulary", &[&[Structure], &[Theory], &[Term], &[Query]]),
        "newstructure" => ("structure", &[&[Vocabulary, String]]),
        "range" => ("structure", &[&[Int, Int]]),
        "maketrue" | "makefalse" | "makeunknown" => {
            ("structure", &[&[PredInter, Tuple], &[PredInter, Table]])
        }
        "size" => ("structure", &[&[PredTable]]),
        "getoptions" | "newoptions" => ("options", &[&[]]),
        "setascurrentoptions" => ("options", &[&[Options]]),
        "calculatedefinitions" => (
            "inferences",
            &[&[Theory, Structure], &[Theory, Structure, Vocabulary]],
        ),
        "refinedefinitions" => ("inferences", &[&[Theory, Structure]]),
        "completion" | "flatten" | "pushnegations" | "removenesting" => ("theory", &[&[Theory]]),
        "removecardinalities" => ("theory", &[&[Theory, Int]]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_lists_the_signatures_in_idp3_order() {
        let text = no_such_procedure(
            "merge",
            &[vec![ArgType::Int], vec![ArgType::Structure]],
            &[
                &[ArgType::Theory, ArgType::Theory],
                &[ArgType::Structure, ArgType::Structure],
            ],
        );
        assert_eq!(
            text,
            "There is no procedure merge with the provided arguments <number,structure>\nDid you intend to use:\n\tmerge(structure, structure)\n\tmerge(theory, theory)\n\n"
        );
    }
}
