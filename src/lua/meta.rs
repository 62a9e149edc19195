//! IDP3's `tometa(T)` and `frommeta(V, P, S)` (`transformations.hpp`): a theory as a
//! structure over `stdspace::meta::metavoc`, and back (see [`crate::meta`]). The meta
//! vocabulary joins the program the first time `tometa` is called, as IDP3 parses its
//! `bootstrap.idp` then; the names given to symbols are kept in the Lua state from one call to
//! the next, as IDP3 keeps them in a global.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::ids::{PredId, VocId};
use crate::lua::objects::{
    as_structure, as_theory, as_voc, struct_to_lua, PredUd, SymbolUd, TheoryUd,
};
use crate::lua::register::{arg, reg_in, Args};
use crate::lua::signature::{dispatch, ArgType};
use crate::lua::{rt_err, state};
use crate::meta::{from_meta, to_meta, MetaError, MetaNames, METAVOC};
use crate::sema::Program;

type Ret<'lua> = mlua::Result<MultiValue<'lua>>;

/// The names and counters kept between calls.
#[derive(Default)]
struct MetaState {
    names: MetaNames,
    structures: usize,
    theories: usize,
}

fn meta_state(lua: &Lua) -> Rc<RefCell<MetaState>> {
    if let Some(s) = lua.app_data_ref::<Rc<RefCell<MetaState>>>() {
        return s.clone();
    }
    let s = Rc::new(RefCell::new(MetaState::default()));
    lua.set_app_data(s.clone());
    s
}

/// The meta vocabulary of the program, if it has been added.
fn find_metavoc(program: &Program) -> Option<VocId> {
    program
        .vocabularies
        .iter()
        .position(|v| v.name == "metavoc" && v.namespace == ["stdspace", "meta"])
        .map(|i| VocId(i as u32))
}

/// The meta vocabulary, added to the program the first time.
fn metavoc(lua: &Lua) -> mlua::Result<VocId> {
    if let Some(v) = find_metavoc(&state(lua).program()) {
        return Ok(v);
    }
    crate::lua::parse::add_input(lua, "bootstrap.idp".into(), METAVOC.as_bytes().to_vec())?;
    find_metavoc(&state(lua).program())
        .ok_or_else(|| rt_err("tometa: the meta vocabulary could not be added"))
}

fn meta_err(proc: &str, e: MetaError) -> mlua::Error {
    rt_err(format!("{proc}: {e}"))
}

/// `tometa(T)`.
fn tometa<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "tometa", &args, &[&[ArgType::Theory]])?;
    let theory = as_theory(arg(&args, 0)).ok_or_else(|| rt_err("tometa: a theory"))?;
    let voc = metavoc(lua)?;
    let program = state(lua).program();
    let shared = meta_state(lua);
    let mut meta = shared.borrow_mut();
    meta.structures += 1;
    let name = format!("metastructure_{}", meta.structures);
    let structure = to_meta(&program, &theory.borrow(), voc, &mut meta.names, &name)
        .map_err(|e| meta_err("tometa", e))?;
    drop(meta);
    Ok(MultiValue::from_vec(vec![struct_to_lua(lua, structure)?]))
}

/// The predicate of a `predicate_symbol` argument, or of a symbol with one predicate.
fn as_pred(v: &LuaValue) -> Option<PredId> {
    let LuaValue::UserData(ud) = v else {
        return None;
    };
    if let Ok(p) = ud.borrow::<PredUd>() {
        return Some(p.0);
    }
    let s = ud.borrow::<SymbolUd>().ok()?;
    match s.preds.as_slice() {
        [p] => Some(*p),
        _ => None,
    }
}

/// `frommeta(V, P, S)`.
fn frommeta<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(
        lua,
        "frommeta",
        &args,
        &[&[ArgType::Vocabulary, ArgType::Predicate, ArgType::Structure]],
    )?;
    let voc = as_voc(arg(&args, 0)).ok_or_else(|| rt_err("frommeta: a vocabulary"))?;
    let sentence = as_pred(arg(&args, 1))
        .ok_or_else(|| rt_err("frommeta: argument 2 should be a predicate symbol"))?;
    let structure = as_structure(arg(&args, 2)).ok_or_else(|| rt_err("frommeta: a structure"))?;
    let program = state(lua).program();
    let shared = meta_state(lua);
    let mut meta = shared.borrow_mut();
    meta.theories += 1;
    let name = format!("demetafied_theory_{}", meta.theories);
    let theory = from_meta(
        &program,
        voc,
        sentence,
        &structure.borrow(),
        &meta.names,
        &name,
    )
    .map_err(|e| meta_err("frommeta", e))?;
    drop(meta);
    let ud = lua.create_userdata(TheoryUd(Rc::new(RefCell::new(theory))))?;
    Ok(MultiValue::from_vec(vec![LuaValue::UserData(ud)]))
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    reg_in(lua, "theory", "tometa", tometa)?;
    reg_in(lua, "theory", "frommeta", frommeta)?;
    Ok(())
}
