//! IDP3's procedures on vocabularies, names, structures and values that are not inferences
//! (`vocabulary.hpp`, `names.hpp`, `equal.hpp`, `structureproperties.hpp`,
//! `newvocabulary.hpp`, `twovaluedextensions.hpp` of IDP3), each with IDP3's signatures.

use mlua::{Lua, MultiValue, Value as LuaValue};

use crate::error::Error;
use crate::ids::Symbol;
use crate::lua::objects::*;
use crate::lua::register::{arg, reg_in, Args};
use crate::lua::signature::{dispatch, ArgType};
use crate::lua::state;
use crate::lua::values::lua_to_value;
use crate::sema::{Program, Theory, TheoryForm, Vocabulary};
use crate::structure::{Structure, Table};

type Ret<'lua> = mlua::Result<MultiValue<'lua>>;

fn one(v: LuaValue) -> Ret {
    Ok(MultiValue::from_vec(vec![v]))
}

fn text<'lua>(lua: &'lua Lua, s: &str) -> Ret<'lua> {
    one(LuaValue::String(lua.create_string(s)?))
}

fn list<'lua>(lua: &'lua Lua, items: Vec<LuaValue<'lua>>) -> Ret<'lua> {
    one(LuaValue::Table(lua.create_sequence_from(items)?))
}

fn ud<'lua, T: mlua::UserData + 'static>(lua: &'lua Lua, v: T) -> mlua::Result<LuaValue<'lua>> {
    Ok(LuaValue::UserData(lua.create_userdata(v)?))
}

/// The one sort, predicate or function that a value stands for (a `symbol` may stand for
/// several; the signature that matched says which kind).
fn sort_of(v: &LuaValue) -> Option<crate::ids::SortId> {
    let LuaValue::UserData(u) = v else {
        return None;
    };
    if let Ok(s) = u.borrow::<SortUd>() {
        return Some(s.0);
    }
    u.borrow::<SymbolUd>().ok()?.sorts.first().copied()
}

fn pred_of(v: &LuaValue) -> Option<crate::ids::PredId> {
    let LuaValue::UserData(u) = v else {
        return None;
    };
    if let Ok(p) = u.borrow::<PredUd>() {
        return Some(p.0);
    }
    u.borrow::<SymbolUd>().ok()?.preds.first().copied()
}

fn func_of(v: &LuaValue) -> Option<crate::ids::FuncId> {
    let LuaValue::UserData(u) = v else {
        return None;
    };
    if let Ok(f) = u.borrow::<FuncUd>() {
        return Some(f.0);
    }
    u.borrow::<SymbolUd>().ok()?.funcs.first().copied()
}

/// `gettypes(V)`: the types of V that are not built in.
fn gettypes<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "gettypes", &args, &[&[ArgType::Vocabulary]])?;
    let program = state(lua).program();
    let voc = program.voc(as_voc(arg(&args, 0)).expect("dispatched"));
    let mut sorts: Vec<_> = voc
        .sorts
        .iter()
        .copied()
        .filter(|&s| program.sort(s).builtin.is_none())
        .collect();
    sorts.sort_by(|a, b| program.sort(*a).name.cmp(&program.sort(*b).name));
    let items = sorts
        .into_iter()
        .map(|s| ud(lua, SortUd(s)))
        .collect::<mlua::Result<_>>()?;
    list(lua, items)
}

/// `getpredicates(V)`: its predicates but the type predicates.
fn getpredicates<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "getpredicates", &args, &[&[ArgType::Vocabulary]])?;
    let program = state(lua).program();
    let voc = program.voc(as_voc(arg(&args, 0)).expect("dispatched"));
    let preds = voc
        .preds
        .iter()
        .filter(|&&p| program.pred(p).type_of.is_none())
        .map(|&p| ud(lua, PredUd(p)))
        .collect::<mlua::Result<_>>()?;
    list(lua, preds)
}

/// `getfunctions(V)`: its functions.
fn getfunctions<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "getfunctions", &args, &[&[ArgType::Vocabulary]])?;
    let program = state(lua).program();
    let voc = program.voc(as_voc(arg(&args, 0)).expect("dispatched"));
    let funcs = voc
        .funcs
        .iter()
        .map(|&f| ud(lua, FuncUd(f)))
        .collect::<mlua::Result<_>>()?;
    list(lua, funcs)
}

/// `name(type or symbol)`: its name without arity.
fn name<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    let k = dispatch(lua, "name", &args, &[&[Sort], &[Predicate], &[Function]])?;
    let program = state(lua).program();
    let a = arg(&args, 0);
    let n = match k {
        0 => sort_of(a).map(|s| program.sort(s).name.clone()),
        1 => pred_of(a).map(|p| program.pred(p).name.clone()),
        _ => func_of(a).map(|f| program.func(f).name.clone()),
    };
    text(lua, &n.unwrap_or_default())
}

/// `gettyping(symbol)`: the types of its arguments (and a function's value), in order.
fn gettyping<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    let k = dispatch(lua, "gettyping", &args, &[&[Predicate], &[Function]])?;
    let program = state(lua).program();
    let a = arg(&args, 0);
    let sorts = match k {
        0 => pred_of(a).map(|p| program.symbol_sorts(Symbol::Pred(p))),
        _ => func_of(a).map(|f| program.symbol_sorts(Symbol::Func(f))),
    };
    let items = sorts
        .unwrap_or_default()
        .into_iter()
        .map(|s| ud(lua, SortUd(s)))
        .collect::<mlua::Result<_>>()?;
    list(lua, items)
}

/// `getname(S or T)`.
fn getname<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    dispatch(lua, "getname", &args, &[&[Structure], &[Theory]])?;
    let a = arg(&args, 0);
    let n = match (as_structure(a), as_theory(a)) {
        (Some(s), _) => s.borrow().name.clone(),
        (_, Some(t)) => t.borrow().name.clone(),
        _ => std::string::String::new(),
    };
    text(lua, &n)
}

/// `setname(S or T, name)`.
fn setname<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    dispatch(
        lua,
        "setname",
        &args,
        &[&[Structure, String], &[Theory, String]],
    )?;
    let new = match arg(&args, 1) {
        LuaValue::String(s) => s.to_string_lossy().to_string(),
        _ => std::string::String::new(),
    };
    let a = arg(&args, 0);
    if let Some(s) = as_structure(a) {
        s.borrow_mut().name = new;
    } else if let Some(t) = as_theory(a) {
        t.borrow_mut().name = new;
    }
    Ok(MultiValue::new())
}

/// `newvocabulary(name)`: an empty vocabulary.
fn newvocabulary<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "newvocabulary", &args, &[&[ArgType::String]])?;
    let name = match arg(&args, 0) {
        LuaValue::String(s) => s.to_string_lossy().to_string(),
        _ => String::new(),
    };
    let st = state(lua);
    let mut id = None;
    st.update_program(|p| {
        id = Some(crate::ids::VocId(p.vocabularies.len() as u32));
        p.vocabularies.push(Vocabulary {
            name,
            ..Default::default()
        });
    });
    one(ud(lua, VocUd(id.expect("added")))?)
}

/// The number of atoms of a structure that are true or false (IDP3's
/// `StructureUtils::getNbOfTwoValuedAtoms`), type atoms included.
pub fn two_valued_atoms(program: &Program, s: &Structure) -> f64 {
    let voc = program.voc(s.vocabulary);
    let mut n = 0.0;
    for &so in &voc.sorts {
        if program.sort(so).builtin.is_none() {
            n += crate::sema::sort_domain(program, s, so).map_or(0, |d| d.len()) as f64;
        }
    }
    let symbols = voc
        .preds
        .iter()
        .filter(|&&p| program.pred(p).type_of.is_none())
        .map(|&p| Symbol::Pred(p))
        .chain(voc.funcs.iter().map(|&f| Symbol::Func(f)));
    for sym in symbols {
        n += match s.table(sym) {
            Some(Table::TwoValued(_)) => {
                crate::sema::all_tuples(program, s, sym).map_or(0, |t| t.len()) as f64
            }
            Some(Table::ThreeValued { ct, cf }) => {
                (ct.len() + cf.len() - ct.intersection(cf).count()) as f64
            }
            None => 0.0,
        };
    }
    n
}

fn nrtwovaluedatoms<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    dispatch(lua, "nrtwovaluedatoms", &args, &[&[ArgType::Structure]])?;
    let s = as_structure(arg(&args, 0)).expect("dispatched");
    let n = two_valued_atoms(&state(lua).program(), &s.borrow());
    one(LuaValue::Number(n))
}

/// `equal(a, b)` on structures (structure namespace) and on tuples, compounds, strings,
/// booleans and numbers (inferences namespace).
fn equal<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    let k = dispatch(
        lua,
        "equal",
        &args,
        &[
            &[Structure, Structure],
            &[Tuple, Tuple],
            &[Compound, Compound],
            &[String, String],
            &[Boolean, Boolean],
            &[Double, Double],
            &[Int, Int],
        ],
    )?;
    let (a, b) = (arg(&args, 0), arg(&args, 1));
    let eq = match k {
        0 => {
            let (s, t) = (as_structure(a), as_structure(b));
            let program = state(lua).program();
            match (s, t) {
                (Some(s), Some(t)) => structures_equal(&program, &s.borrow(), &t.borrow()),
                _ => false,
            }
        }
        1 => crate::lua::values::lua_to_tuple(a) == crate::lua::values::lua_to_tuple(b),
        4 => a == b,
        _ => lua_to_value(a) == lua_to_value(b),
    };
    one(LuaValue::Boolean(eq))
}

/// IDP3's structure equality: the same vocabulary, the same types and, for every symbol, the
/// same certainly true and certainly false tuples.
pub fn structures_equal(program: &Program, a: &Structure, b: &Structure) -> bool {
    if a.vocabulary != b.vocabulary {
        return false;
    }
    let voc = program.voc(a.vocabulary);
    let sorts_equal = voc.sorts.iter().all(|&so| {
        program.sort(so).builtin.is_some()
            || crate::sema::sort_domain(program, a, so) == crate::sema::sort_domain(program, b, so)
    });
    let symbols = voc
        .preds
        .iter()
        .filter(|&&p| program.pred(p).type_of.is_none())
        .map(|&p| Symbol::Pred(p))
        .chain(voc.funcs.iter().map(|&f| Symbol::Func(f)));
    sorts_equal
        && symbols.into_iter().all(|sym| {
            a.table(sym) == b.table(sym)
                || crate::sema::ct_cf(program, a, sym) == crate::sema::ct_cf(program, b, sym)
        })
}

/// The two-valued structures that extend `s`, at most `stdoptions.nbmodels` (0: all).
fn extensions(lua: &Lua, s: &Structure) -> mlua::Result<Vec<Structure>> {
    let st = state(lua);
    let program = st.program();
    if !crate::print::is_consistent(&program, s) {
        return Err(mlua::Error::external(Error::input(
            "Cannot generate two-valued extensions of a four-valued (inconsistent) structure.",
        )));
    }
    let voc = program.voc(s.vocabulary);
    let two_valued = voc
        .preds
        .iter()
        .filter(|&&p| program.pred(p).type_of.is_none())
        .map(|&p| Symbol::Pred(p))
        .chain(
            voc.funcs
                .iter()
                .filter(|&&f| program.func(f).constructor_of.is_none())
                .map(|&f| Symbol::Func(f)),
        )
        .all(|sym| {
            // Symbols over infinite types keep the tuples that the inference met (IDP3 does
            // not extend them either).
            crate::print::is_two_valued(&program, s, sym)
                || crate::sema::all_tuples(&program, s, sym).is_none()
        });
    if two_valued {
        return Ok(vec![s.clone()]);
    }
    let empty = Theory {
        form: TheoryForm::Source,
        name: String::new(),
        vocabulary: s.vocabulary,
        sentences: Vec::new(),
        definitions: Vec::new(),
        span: None,
    };
    let opts = st.infer_options();
    crate::infer::modelexpand(&program, &empty, s, None, &opts)
        .map(|found| found.value)
        .map_err(mlua::Error::external)
}

/// `nbModelsTwoValuedExtensions(S or {S1, S2, ...})`: the two-valued extensions of the
/// structures, as many as `stdoptions.nbmodels` asks (0: all).
fn two_valued_extensions<'lua>(lua: &'lua Lua, args: Args<'lua>) -> Ret<'lua> {
    use ArgType::*;
    dispatch(
        lua,
        "nbModelsTwoValuedExtensions",
        &args,
        &[&[Structure], &[Table]],
    )?;
    let structures: Vec<SharedStructure> = match arg(&args, 0) {
        LuaValue::Table(t) => t
            .clone()
            .sequence_values::<LuaValue>()
            .filter_map(|v| v.ok().as_ref().and_then(as_structure))
            .collect(),
        v => as_structure(v).into_iter().collect(),
    };
    let wanted = state(lua).options().infer_options().nbmodels;
    // Models kept at a stop are extended whole, however many.
    let _delivering = state(lua).run().delivering();
    let mut out = Vec::new();
    for s in structures {
        if wanted != 0 && out.len() >= wanted {
            break;
        }
        let more = extensions(lua, &s.borrow())?;
        out.extend(more);
    }
    if wanted != 0 {
        out.truncate(wanted);
    }
    one(structures_to_lua(lua, out)?)
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    reg_in(lua, "vocabulary", "gettypes", gettypes)?;
    reg_in(lua, "vocabulary", "getpredicates", getpredicates)?;
    reg_in(lua, "vocabulary", "getfunctions", getfunctions)?;
    reg_in(lua, "vocabulary", "name", name)?;
    reg_in(lua, "vocabulary", "gettyping", gettyping)?;
    reg_in(lua, "vocabulary", "newvocabulary", newvocabulary)?;
    reg_in(lua, "structure", "getname", getname)?;
    reg_in(lua, "structure", "setname", setname)?;
    reg_in(lua, "theory", "getname", getname)?;
    reg_in(lua, "theory", "setname", setname)?;
    reg_in(lua, "structure", "nrtwovaluedatoms", nrtwovaluedatoms)?;
    reg_in(lua, "structure", "equal", equal)?;
    reg_in(lua, "inferences", "equal", equal)?;
    reg_in(
        lua,
        "structure",
        "nbModelsTwoValuedExtensions",
        two_valued_extensions,
    )?;
    Ok(())
}
