//! The Lua side of `visualize(structure [, options])`: reads the options table and calls
//! [`crate::visual`]. `initVisualization()` (IDP3's set-up of its web visualiser) is a no-op.

use std::io::IsTerminal;

use mlua::{Lua, Table as LuaTable, Value as LuaValue};

use crate::lua::objects::as_structure;
use crate::lua::values::describe;
use crate::lua::{rt_err, state};
use crate::visual::{self, Options};

/// `__idp_visualize(structure, options)`: the text to print (the prelude's `visualize` writes
/// it through `io.stdout`, in order with `print`).
pub fn visualize_text(lua: &Lua, s: LuaValue, opts: LuaValue) -> mlua::Result<String> {
    let Some(shared) = as_structure(&s) else {
        return Err(rt_err(format!(
            "visualize: argument 1 should be a structure, not a {}",
            describe(&s)
        )));
    };
    let options = match opts {
        LuaValue::Nil => Options::default(),
        LuaValue::Table(t) => parse_options(&t)?,
        other => {
            return Err(rt_err(format!(
                "visualize: argument 2 should be a table of options, not a {}",
                describe(&other)
            )))
        }
    };
    let st = state(lua);
    if st.sandbox.get() && options.svg.is_some() {
        return Err(rt_err(
            "visualize: writing SVG files is not allowed in --sandbox mode",
        ));
    }
    let s = shared.borrow();
    visual::visualize(&st.program(), &s, &options, std::io::stdout().is_terminal()).map_err(|m| {
        if m.starts_with("visualize:") {
            rt_err(m)
        } else {
            rt_err(format!("visualize: {m}"))
        }
    })
}

/// Reads `{ show = {...}, hide = {...}, glyphs = {...}, colours = {...}, unicode = b,
/// path = b, svg = "file.svg", quiet = b }` (`colors` is accepted for `colours`).
pub fn parse_options(t: &LuaTable) -> mlua::Result<Options> {
    let mut o = Options::default();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        let LuaValue::String(k) = k else {
            return Err(rt_err("visualize: option names should be strings"));
        };
        let key = k.to_str()?.to_string();
        match key.as_str() {
            "show" => o.show = Some(string_list(&key, &v)?),
            "hide" => o.hide = string_list(&key, &v)?,
            "glyphs" => {
                for (name, g) in string_map(&key, &v)? {
                    let c = g.chars().next().ok_or_else(|| {
                        rt_err(format!("visualize: the glyph of {name} is empty"))
                    })?;
                    o.glyphs.insert(name, c);
                }
            }
            "colours" | "colors" => o.colours.extend(string_map(&key, &v)?),
            "unicode" => o.unicode = Some(boolean(&key, &v)?),
            "path" => o.path = boolean(&key, &v)?,
            "quiet" => o.quiet = boolean(&key, &v)?,
            "svg" => match &v {
                LuaValue::String(s) => o.svg = Some(s.to_str()?.to_string()),
                _ => return Err(type_error(&key, "a file name", &v)),
            },
            _ => {
                return Err(rt_err(format!(
                    "visualize: unknown option {key} (known: show, hide, glyphs, colours, \
                     unicode, path, svg, quiet)"
                )))
            }
        }
    }
    Ok(o)
}

fn type_error(key: &str, want: &str, v: &LuaValue) -> mlua::Error {
    rt_err(format!(
        "visualize: option {key} should be {want}, not a {}",
        describe(v)
    ))
}

fn boolean(key: &str, v: &LuaValue) -> mlua::Result<bool> {
    match v {
        LuaValue::Boolean(b) => Ok(*b),
        _ => Err(type_error(key, "true or false", v)),
    }
}

/// A list of names: `{"Wall", "Exit"}` (a single string is a list of one).
fn string_list(key: &str, v: &LuaValue) -> mlua::Result<Vec<String>> {
    match v {
        LuaValue::String(s) => Ok(vec![s.to_str()?.to_string()]),
        LuaValue::Table(t) => {
            let mut out = Vec::new();
            for item in t.clone().sequence_values::<LuaValue>() {
                match item? {
                    LuaValue::String(s) => out.push(s.to_str()?.to_string()),
                    other => return Err(type_error(key, "a list of symbol names", &other)),
                }
            }
            Ok(out)
        }
        _ => Err(type_error(key, "a list of symbol names", v)),
    }
}

/// A table from symbol names to strings: `{ Wall = "#", Exit = "X" }`.
fn string_map(key: &str, v: &LuaValue) -> mlua::Result<Vec<(String, String)>> {
    let LuaValue::Table(t) = v else {
        return Err(type_error(key, "a table from symbol names to strings", v));
    };
    let mut out = Vec::new();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        match pair? {
            (LuaValue::String(n), LuaValue::String(s)) => {
                out.push((n.to_str()?.to_string(), s.to_str()?.to_string()))
            }
            (_, other) => {
                return Err(type_error(
                    key,
                    "a table from symbol names to strings",
                    &other,
                ))
            }
        }
    }
    Ok(out)
}
