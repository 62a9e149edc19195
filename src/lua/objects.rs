//! The IDP userdata types seen from Lua: vocabulary, symbol, sort, predicate/function symbol,
//! theory, structure, term, query, predicate/function interpretation, predicate table, tuple,
//! compound and domain. (`options` lives in `options.rs`.)

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{
    AnyUserData, Lua, MetaMethod, MultiValue, UserData, UserDataMethods, Value as LuaValue,
};

use crate::ids::{FuncId, PredId, SortId, Symbol, VocId};
use crate::lua::options::OptionsUd;
use crate::lua::values::{
    is_single_tuple, lua_to_tuple, lua_to_tuples, lua_to_value, tuple_to_lua, value_to_lua,
    CompoundUd, TupleUd,
};
use crate::lua::{rt_err, state};
use crate::print;
use crate::sema::{Program, Query, TermBlock, Theory};
use crate::structure::{Structure, Table, Tuple, TupleSet, Value};

pub type SharedStructure = Rc<RefCell<Structure>>;

pub struct VocUd(pub VocId);

/// All sorts, predicates and functions of a vocabulary with one name (`V::P`).
#[derive(Clone)]
pub struct SymbolUd {
    pub name: String,
    pub sorts: Vec<SortId>,
    pub preds: Vec<PredId>,
    pub funcs: Vec<FuncId>,
}

pub struct SortUd(pub SortId);
pub struct PredUd(pub PredId);
pub struct FuncUd(pub FuncId);
pub struct TheoryUd(pub Rc<RefCell<Theory>>);
pub struct StructUd(pub SharedStructure);
pub struct TermUd(pub Rc<TermBlock>);
pub struct QueryUd(pub Rc<Query>);

/// `S[V::P]` (or a function's `.graph`): a live view on one symbol of a structure.
pub struct PredInterUd {
    pub s: SharedStructure,
    pub sym: Symbol,
}

/// `S[V::F]`: callable, `S[V::F](a,b)` gives the value.
pub struct FuncInterUd {
    pub s: SharedStructure,
    pub f: FuncId,
}

/// A (snapshot) table of tuples: `S[V::P].ct`, query answers. Its tuples are sorted when they
/// are first read (`#` only counts them: counting a million tuples needs no sort).
pub struct PredTableUd {
    unsorted: RefCell<Option<Vec<Tuple>>>,
    sorted: std::cell::OnceCell<Rc<Vec<Tuple>>>,
    len: usize,
    pub arity: usize,
}

pub struct DomainUd(pub Rc<Vec<Value>>);

impl PredTableUd {
    pub fn new(mut tuples: Vec<Tuple>, arity: usize) -> PredTableUd {
        // Equal tuples are identical, so an unstable sort gives the same table, faster.
        tuples.sort_unstable();
        tuples.dedup();
        PredTableUd {
            unsorted: RefCell::new(None),
            len: tuples.len(),
            sorted: std::cell::OnceCell::from(Rc::new(tuples)),
            arity,
        }
    }

    /// A table of distinct tuples (the tuples of a set), sorted when they are first read.
    pub fn distinct(tuples: Vec<Tuple>, arity: usize) -> PredTableUd {
        PredTableUd {
            len: tuples.len(),
            unsorted: RefCell::new(Some(tuples)),
            sorted: std::cell::OnceCell::new(),
            arity,
        }
    }

    /// The tuples, sorted.
    pub fn tuples(&self) -> &Rc<Vec<Tuple>> {
        self.sorted.get_or_init(|| {
            let mut tuples = self.unsorted.borrow_mut().take().unwrap_or_default();
            tuples.sort_unstable();
            Rc::new(tuples)
        })
    }

    /// The number of tuples.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// IDP3's userdata type name (what the overridden `type` returns), if `ud` is an IDP object.
pub fn idp_type_name(ud: &AnyUserData) -> Option<&'static str> {
    Some(if ud.is::<VocUd>() {
        "vocabulary"
    } else if ud.is::<SymbolUd>() {
        "symbol"
    } else if ud.is::<SortUd>() {
        "type"
    } else if ud.is::<PredUd>() {
        "predicate_symbol"
    } else if ud.is::<FuncUd>() {
        "function_symbol"
    } else if ud.is::<TheoryUd>() {
        "theory"
    } else if ud.is::<StructUd>() {
        "structure"
    } else if ud.is::<TermUd>() {
        "term"
    } else if ud.is::<QueryUd>() {
        "query"
    } else if ud.is::<PredInterUd>() {
        "predicate_interpretation"
    } else if ud.is::<FuncInterUd>() {
        "function_interpretation"
    } else if ud.is::<PredTableUd>() {
        "predicate_table"
    } else if ud.is::<TupleUd>() {
        "tuple"
    } else if ud.is::<CompoundUd>() {
        "compound"
    } else if ud.is::<DomainUd>() {
        "domain"
    } else if ud.is::<OptionsUd>() {
        "options"
    } else if ud.is::<crate::lua::trace::AtomUd>() {
        "formula"
    } else {
        return None;
    })
}

// ---------------------------------------------------------------------------------------------
// Argument helpers
// ---------------------------------------------------------------------------------------------

pub fn as_structure(v: &LuaValue) -> Option<SharedStructure> {
    let s = match v {
        LuaValue::UserData(ud) => ud.borrow::<StructUd>().ok().map(|s| s.0.clone()),
        _ => None,
    }?;
    crate::lua::interpreted::fill_deferred(&s);
    Some(s)
}

pub fn as_theory(v: &LuaValue) -> Option<Rc<RefCell<Theory>>> {
    match v {
        LuaValue::UserData(ud) => ud.borrow::<TheoryUd>().ok().map(|s| s.0.clone()),
        _ => None,
    }
}

pub fn as_term(v: &LuaValue) -> Option<Rc<TermBlock>> {
    match v {
        LuaValue::UserData(ud) => ud.borrow::<TermUd>().ok().map(|s| s.0.clone()),
        _ => None,
    }
}

pub fn as_query(v: &LuaValue) -> Option<Rc<Query>> {
    match v {
        LuaValue::UserData(ud) => ud.borrow::<QueryUd>().ok().map(|s| s.0.clone()),
        _ => None,
    }
}

pub fn as_voc(v: &LuaValue) -> Option<VocId> {
    match v {
        LuaValue::UserData(ud) => ud.borrow::<VocUd>().ok().map(|s| s.0),
        _ => None,
    }
}

/// What `S[x]` may index: a sort or a single predicate/function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Sort(SortId),
    Sym(Symbol),
}

pub fn as_target(program: &Program, v: &LuaValue) -> Result<Target, String> {
    let LuaValue::UserData(ud) = v else {
        return Err(format!("expected a symbol, got a {}", describe(v)));
    };
    if let Ok(s) = ud.borrow::<SortUd>() {
        return Ok(Target::Sort(s.0));
    }
    if let Ok(p) = ud.borrow::<PredUd>() {
        return Ok(match program.pred(p.0).type_of {
            Some(s) => Target::Sort(s),
            None => Target::Sym(Symbol::Pred(p.0)),
        });
    }
    if let Ok(f) = ud.borrow::<FuncUd>() {
        return Ok(Target::Sym(Symbol::Func(f.0)));
    }
    if let Ok(sym) = ud.borrow::<SymbolUd>() {
        let preds: Vec<PredId> = sym
            .preds
            .iter()
            .copied()
            .filter(|&p| program.pred(p).type_of.is_none())
            .collect();
        let n = preds.len() + sym.funcs.len();
        if n == 1 {
            return Ok(match preds.first() {
                Some(&p) => Target::Sym(Symbol::Pred(p)),
                None => Target::Sym(Symbol::Func(sym.funcs[0])),
            });
        }
        if n == 0 && sym.sorts.len() == 1 {
            return Ok(Target::Sort(sym.sorts[0]));
        }
        return Err(format!(
            "the symbol {} is ambiguous here; use .type, .pred, .func or an arity filter",
            sym.name
        ));
    }
    Err(format!("expected a symbol, got a {}", describe(v)))
}

fn new_struct<'lua>(lua: &'lua Lua, s: Structure) -> mlua::Result<LuaValue<'lua>> {
    Ok(LuaValue::UserData(
        lua.create_userdata(StructUd(Rc::new(RefCell::new(s))))?,
    ))
}

pub fn struct_to_lua<'lua>(lua: &'lua Lua, s: Structure) -> mlua::Result<LuaValue<'lua>> {
    new_struct(lua, s)
}

/// The table of the distinct `tuples` that [`read_part`] read (from sets or a filtered
/// enumeration), sorted when first read.
fn table_ud<'lua>(
    lua: &'lua Lua,
    tuples: Vec<Tuple>,
    arity: usize,
) -> mlua::Result<LuaValue<'lua>> {
    Ok(LuaValue::UserData(
        lua.create_userdata(PredTableUd::distinct(tuples, arity))?,
    ))
}

/// The arity of a symbol's table (a function's graph has one more column).
pub fn table_arity(program: &Program, sym: Symbol) -> usize {
    program.symbol_sorts(sym).len()
}

// ---------------------------------------------------------------------------------------------
// Reading and changing a symbol's interpretation
// ---------------------------------------------------------------------------------------------

/// The explicit (ct, cf) of a symbol, with cf completed for two-valued tables.
fn explicit(program: &Program, s: &Structure, sym: Symbol) -> Result<(TupleSet, TupleSet), String> {
    let (ct, cf) = crate::sema::ct_cf(program, s, sym);
    match cf {
        Some(cf) => Ok((ct, cf)),
        None => Err(format!(
            "cannot compute the false tuples of {}: some of its types have no finite interpretation",
            program.symbol_name(sym)
        )),
    }
}

/// Stores (ct, cf) for a symbol, as a two-valued table when it determines every tuple.
pub fn store(program: &Program, s: &mut Structure, sym: Symbol, ct: TupleSet, cf: TupleSet) {
    s.symbols.insert(sym, Table::ThreeValued { ct, cf });
    if print::is_two_valued(program, s, sym) {
        if let Some(Table::ThreeValued { ct, .. }) = s.symbols.get(&sym) {
            let ct = ct.clone();
            s.symbols.insert(sym, Table::TwoValued(ct));
        }
    }
}

pub fn read_part(
    program: &Program,
    s: &Structure,
    sym: Symbol,
    part: &str,
) -> Result<Vec<Tuple>, String> {
    match part {
        "ct" => Ok(s
            .table(sym)
            .map(|t| t.ct().iter().cloned().collect())
            .unwrap_or_default()),
        "cf" => Ok(explicit(program, s, sym)?.1.into_iter().collect()),
        "pt" | "pf" => {
            let (ct, cf) = explicit(program, s, sym)?;
            let all = crate::sema::all_tuples(program, s, sym).ok_or_else(|| {
                format!(
                    "cannot enumerate the tuples of {}: its types are not finitely interpreted",
                    program.symbol_name(sym)
                )
            })?;
            let excluded = if part == "pt" { cf } else { ct };
            Ok(all.into_iter().filter(|t| !excluded.contains(t)).collect())
        }
        _ => Err(format!("unknown field {part} (expected ct, cf, pt or pf)")),
    }
}

pub fn write_part(
    program: &Program,
    s: &mut Structure,
    sym: Symbol,
    part: &str,
    tuples: Vec<Tuple>,
) -> Result<(), String> {
    let (mut ct, mut cf) = if s.table(sym).is_some() {
        explicit(program, s, sym)?
    } else {
        (TupleSet::default(), TupleSet::default())
    };
    let given: TupleSet = tuples.into_iter().collect();
    match part {
        "ct" => ct = given,
        "cf" => cf = given,
        "pt" | "pf" => {
            let all = crate::sema::all_tuples(program, s, sym).ok_or_else(|| {
                format!(
                    "cannot enumerate the tuples of {}",
                    program.symbol_name(sym)
                )
            })?;
            let rest: TupleSet = all.into_iter().filter(|t| !given.contains(t)).collect();
            if part == "pt" {
                cf = rest;
            } else {
                ct = rest;
            }
        }
        _ => return Err(format!("unknown field {part} (expected ct, cf, pt or pf)")),
    }
    store(program, s, sym, ct, cf);
    Ok(())
}

/// maketrue / makefalse / makeunknown of some tuples.
pub fn set_truth(
    program: &Program,
    s: &mut Structure,
    sym: Symbol,
    tuples: Vec<Tuple>,
    truth: Option<bool>,
) -> Result<(), String> {
    let (mut ct, mut cf) = if s.table(sym).is_some() {
        explicit(program, s, sym)?
    } else {
        (TupleSet::default(), TupleSet::default())
    };
    for t in tuples {
        match truth {
            Some(true) => {
                cf.remove(&t);
                ct.insert(t);
            }
            Some(false) => {
                ct.remove(&t);
                cf.insert(t);
            }
            None => {
                ct.remove(&t);
                cf.remove(&t);
            }
        }
    }
    store(program, s, sym, ct, cf);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// UserData implementations
// ---------------------------------------------------------------------------------------------

fn key_str(key: &LuaValue) -> Option<String> {
    match key {
        LuaValue::String(s) => Some(s.to_string_lossy().to_string()),
        _ => None,
    }
}

/// Looks up a name in a vocabulary.
pub fn voc_symbol(program: &Program, voc: VocId, name: &str) -> Option<SymbolUd> {
    let v = program.voc(voc);
    let sorts: Vec<SortId> = v
        .sorts
        .iter()
        .copied()
        .filter(|&s| program.sort(s).name == name)
        .collect();
    let preds: Vec<PredId> = v
        .preds
        .iter()
        .copied()
        .filter(|&p| program.pred(p).name == name && program.pred(p).type_of.is_none())
        .collect();
    let funcs: Vec<FuncId> = v
        .funcs
        .iter()
        .copied()
        .filter(|&f| program.func(f).name == name)
        .collect();
    if sorts.is_empty() && preds.is_empty() && funcs.is_empty() {
        // Builtin sorts are part of every vocabulary.
        if let Some(&s) = program.builtin_sorts.get(name) {
            return Some(SymbolUd {
                name: name.into(),
                sorts: vec![s],
                preds: vec![],
                funcs: vec![],
            });
        }
        return None;
    }
    Some(SymbolUd {
        name: name.into(),
        sorts,
        preds,
        funcs,
    })
}

impl UserData for VocUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            Ok(print::vocabulary_to_string(
                &st.program(),
                st.program().voc(this.0),
            ))
        });
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            let st = state(lua);
            let Some(k) = key_str(&key) else {
                return Ok(LuaValue::Nil);
            };
            match voc_symbol(&st.program(), this.0, &k) {
                Some(sym) => Ok(LuaValue::UserData(lua.create_userdata(sym)?)),
                None => Ok(LuaValue::Nil),
            }
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<VocUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for SymbolUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.name.clone()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            let Some(k) = key_str(&key) else {
                return Ok(LuaValue::Nil);
            };
            match k.as_str() {
                "type" => match this.sorts.first() {
                    Some(&s) => Ok(LuaValue::UserData(lua.create_userdata(SortUd(s))?)),
                    None => Ok(LuaValue::Nil),
                },
                "pred" => match this.preds.first() {
                    Some(&p) => Ok(LuaValue::UserData(lua.create_userdata(PredUd(p))?)),
                    None => Ok(LuaValue::Nil),
                },
                "func" => match this.funcs.first() {
                    Some(&f) => Ok(LuaValue::UserData(lua.create_userdata(FuncUd(f))?)),
                    None => Ok(LuaValue::Nil),
                },
                "name" => Ok(LuaValue::String(lua.create_string(&this.name)?)),
                _ => Ok(LuaValue::Nil),
            }
        });
        // `V::P/2`: keep the predicates and functions of that arity.
        methods.add_meta_method(MetaMethod::Div, |lua, this, n: i64| {
            let st = state(lua);
            let mut s = this.clone();
            s.preds
                .retain(|&p| st.program().pred(p).args.len() as i64 == n);
            s.funcs
                .retain(|&f| st.program().func(f).args.len() as i64 == n);
            s.sorts.clear();
            Ok(s)
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<SymbolUd>()
                .map(|o| o.sorts == this.sorts && o.preds == this.preds && o.funcs == this.funcs)
                .unwrap_or(false))
        });
    }
}

impl UserData for SortUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            Ok(state(lua).program().sort(this.0).name.clone())
        });
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            let st = state(lua);
            match key_str(&key).as_deref() {
                Some("name") => Ok(LuaValue::String(
                    lua.create_string(&st.program().sort(this.0).name)?,
                )),
                _ => Ok(LuaValue::Nil),
            }
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<SortUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for PredUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            Ok(print::pred_long_name(&st.program(), this.0))
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<PredUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for FuncUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            Ok(print::func_long_name(&st.program(), this.0))
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<FuncUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for TheoryUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            let t = this.0.borrow();
            Ok(print::theory_to_string(&st.program(), &t))
        });
    }
}

impl UserData for TermUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            Ok(print::term_to_string(&st.program(), &this.0.term))
        });
    }
}

impl UserData for QueryUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            let st = state(lua);
            let vars: Vec<String> = this
                .0
                .vars
                .iter()
                .map(|v| format!("{}[{}]", v.name, st.program().sort(v.sort).name))
                .collect();
            Ok(format!(
                "{{ {} : {} }}",
                vars.join(" "),
                print::formula_to_string(&st.program(), &this.0.formula)
            ))
        });
    }
}

impl UserData for StructUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            crate::lua::interpreted::fill_deferred(&this.0);
            let st = state(lua);
            let s = this.0.borrow();
            let language = st.options().get_str("language").unwrap_or_default();
            if language == "asp" {
                let (text, three_valued) = crate::lua::asp::structure_facts(&st.program(), &s);
                if three_valued {
                    crate::lua::warning(
                        lua,
                        "Printing only true facts of three-valued structures.",
                    );
                }
                return Ok(text);
            }
            Ok(print::structure_to_string(&st.program(), &s))
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<StructUd>()
                .map(|o| Rc::ptr_eq(&o.0, &this.0))
                .unwrap_or(false))
        });
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            crate::lua::interpreted::fill_deferred(&this.0);
            let st = state(lua);
            if let Some(k) = key_str(&key) {
                return match k.as_str() {
                    "name" => Ok(LuaValue::String(lua.create_string(&this.0.borrow().name)?)),
                    _ => Ok(LuaValue::Nil),
                };
            }
            let target = as_target(&st.program(), &key)
                .map_err(|e| rt_err(format!("Indexing a structure: {e}")))?;
            match target {
                Target::Sort(so) => {
                    let s = this.0.borrow();
                    let d = crate::sema::sort_domain(&st.program(), &s, so).unwrap_or_default();
                    Ok(LuaValue::UserData(
                        lua.create_userdata(DomainUd(Rc::new(d)))?,
                    ))
                }
                Target::Sym(Symbol::Func(f)) => {
                    Ok(LuaValue::UserData(lua.create_userdata(FuncInterUd {
                        s: this.0.clone(),
                        f,
                    })?))
                }
                Target::Sym(sym) => Ok(LuaValue::UserData(lua.create_userdata(PredInterUd {
                    s: this.0.clone(),
                    sym,
                })?)),
            }
        });
        methods.add_meta_method(MetaMethod::NewIndex, |lua, this, (key, val): (LuaValue, LuaValue)| {
            let st = state(lua);
            let program = &st.program();
            let target = as_target(program, &key).map_err(|e| rt_err(format!("Assigning in a structure: {e}")))?;
            match target {
                Target::Sort(so) => {
                    let values: Vec<Value> = match &val {
                        LuaValue::UserData(ud) if ud.is::<DomainUd>() => ud.borrow::<DomainUd>()?.0.as_ref().clone(),
                        LuaValue::Table(t) => {
                            let mut out = Vec::new();
                            for e in t.clone().sequence_values::<LuaValue>() {
                                let e = e?;
                                out.push(lua_to_value(&e).ok_or_else(|| {
                                    rt_err(format!("a {} is not a domain element", describe(&e)))
                                })?);
                            }
                            out
                        }
                        other => {
                            return Err(rt_err(format!(
                                "a type can only be assigned a domain or a table of elements, not a {}",
                                describe(other)
                            )))
                        }
                    };
                    this.0.borrow_mut().set_domain(so, values);
                    Ok(())
                }
                Target::Sym(sym) if as_interpretation(&val).is_some() => {
                    // `S[V::P] = M[V::P]`: a copy of the whole interpretation.
                    let (from, from_sym) = as_interpretation(&val).expect("an interpretation");
                    if from_sym != sym {
                        return Err(rt_err(if matches!(sym, Symbol::Pred(_)) {
                            "Expected a predicate interpretation"
                        } else {
                            "Expected a function interpretation"
                        }));
                    }
                    let table = from.borrow().table(sym).cloned();
                    let mut s = this.0.borrow_mut();
                    match table {
                        Some(t) => {
                            s.symbols.insert(sym, t);
                        }
                        None => {
                            s.symbols.shift_remove(&sym);
                        }
                    }
                    Ok(())
                }
                Target::Sym(sym) => {
                    let tuples: Vec<Tuple> = match &val {
                        LuaValue::Boolean(b) => {
                            if *b {
                                vec![vec![]]
                            } else {
                                vec![]
                            }
                        }
                        LuaValue::UserData(ud) if ud.is::<PredTableUd>() => {
                            ud.borrow::<PredTableUd>()?.tuples().as_ref().clone()
                        }
                        other => lua_to_tuples(other).ok_or_else(|| {
                            rt_err(format!("cannot assign a {} to a symbol of a structure", describe(other)))
                        })?,
                    };
                    this.0.borrow_mut().symbols.insert(sym, Table::TwoValued(tuples.into_iter().collect()));
                    Ok(())
                }
            }
        });
    }
}

fn inter_index<'lua>(
    lua: &'lua Lua,
    s: &SharedStructure,
    sym: Symbol,
    key: &LuaValue,
) -> mlua::Result<LuaValue<'lua>> {
    let st = state(lua);
    let Some(k) = key_str(key) else {
        return Ok(LuaValue::Nil);
    };
    match k.as_str() {
        "ct" | "cf" | "pt" | "pf" => {
            let tuples = read_part(&st.program(), &s.borrow(), sym, &k).map_err(rt_err)?;
            table_ud(lua, tuples, table_arity(&st.program(), sym))
        }
        "graph" => Ok(LuaValue::UserData(
            lua.create_userdata(PredInterUd { s: s.clone(), sym })?,
        )),
        _ => Ok(LuaValue::Nil),
    }
}

fn inter_newindex(
    lua: &Lua,
    s: &SharedStructure,
    sym: Symbol,
    key: &LuaValue,
    val: &LuaValue,
) -> mlua::Result<()> {
    let st = state(lua);
    let Some(k) = key_str(key) else {
        return Err(rt_err(
            "an interpretation has only the fields ct, cf, pt and pf",
        ));
    };
    let tuples: Vec<Tuple> = match val {
        LuaValue::UserData(ud) if ud.is::<PredTableUd>() => {
            ud.borrow::<PredTableUd>()?.tuples().as_ref().clone()
        }
        LuaValue::Boolean(b) => {
            if *b {
                vec![vec![]]
            } else {
                vec![]
            }
        }
        other => lua_to_tuples(other).ok_or_else(|| {
            rt_err(format!(
                "cannot assign a {} to .{}: expected a table of tuples",
                describe(other),
                k
            ))
        })?,
    };
    write_part(&st.program(), &mut s.borrow_mut(), sym, &k, tuples).map_err(rt_err)
}

fn inter_to_string(program: &Program, s: &Structure, sym: Symbol) -> String {
    let arity = table_arity(program, sym);
    let (ct, cf) = match s.table(sym) {
        None => (vec![], vec![]),
        Some(Table::TwoValued(t)) => (t.iter().cloned().collect(), vec![]),
        Some(Table::ThreeValued { ct, cf }) => {
            (ct.iter().cloned().collect(), cf.iter().cloned().collect())
        }
    };
    if s.table(sym).is_some_and(|t| t.is_two_valued()) {
        print::tuples_to_string(ct.iter(), arity)
    } else {
        format!(
            "<ct> = {}\n<cf> = {}",
            print::tuples_to_string(ct.iter(), arity),
            print::tuples_to_string(cf.iter(), arity)
        )
    }
}

impl UserData for PredInterUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            inter_index(lua, &this.s, this.sym, &key)
        });
        methods.add_meta_method(
            MetaMethod::NewIndex,
            |lua, this, (key, val): (LuaValue, LuaValue)| {
                inter_newindex(lua, &this.s, this.sym, &key, &val)
            },
        );
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            Ok(inter_to_string(
                &state(lua).program(),
                &this.s.borrow(),
                this.sym,
            ))
        });
    }
}

impl UserData for FuncInterUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            inter_index(lua, &this.s, Symbol::Func(this.f), &key)
        });
        methods.add_meta_method(
            MetaMethod::NewIndex,
            |lua, this, (key, val): (LuaValue, LuaValue)| {
                inter_newindex(lua, &this.s, Symbol::Func(this.f), &key, &val)
            },
        );
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            Ok(inter_to_string(
                &state(lua).program(),
                &this.s.borrow(),
                Symbol::Func(this.f),
            ))
        });
        methods.add_meta_method(MetaMethod::Call, |lua, this, args: MultiValue| {
            let mut key = Vec::new();
            for a in args.iter() {
                key.push(
                    lua_to_value(a).ok_or_else(|| {
                        rt_err(format!("a {} is not a domain element", describe(a)))
                    })?,
                );
            }
            let s = this.s.borrow();
            let found = s.table(Symbol::Func(this.f)).and_then(|t| {
                t.ct()
                    .iter()
                    .find(|t| t.len() == key.len() + 1 && t[..key.len()] == key[..])
                    .map(|t| t[key.len()])
            });
            match found {
                Some(v) => value_to_lua(lua, v),
                None => Ok(LuaValue::Nil),
            }
        });
    }
}

/// An iterator function over the tuples of a table.
pub fn tuple_iterator<'lua>(
    lua: &'lua Lua,
    tuples: Rc<Vec<Tuple>>,
) -> mlua::Result<mlua::Function<'lua>> {
    let pos = std::cell::Cell::new(0usize);
    lua.create_function(move |lua, _: MultiValue| {
        let k = pos.get();
        if k >= tuples.len() {
            return Ok(LuaValue::Nil);
        }
        pos.set(k + 1);
        tuple_to_lua(lua, &tuples[k])
    })
}

impl UserData for PredTableUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(print::tuples_to_string(this.tuples().iter(), this.arity))
        });
        methods.add_meta_method(MetaMethod::Len, |_, this, ()| Ok(this.len()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| match key {
            LuaValue::Integer(i) if i >= 1 && (i as usize) <= this.len() => {
                tuple_to_lua(lua, &this.tuples()[i as usize - 1])
            }
            LuaValue::String(s) if s.to_str().ok() == Some("arity") => {
                Ok(LuaValue::Integer(this.arity as mlua::Integer))
            }
            _ => Ok(LuaValue::Nil),
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<PredTableUd>()
                .map(|o| o.tuples() == this.tuples())
                .unwrap_or(false))
        });
        // `table(a, b)` or `table(tuple)`: whether the tuple is in the table (IDP3's
        // `predtableCall`).
        methods.add_meta_method(MetaMethod::Call, |_, this, args: MultiValue| {
            let args = args.into_vec();
            let tuple: Tuple = match args.as_slice() {
                [LuaValue::UserData(u)] if u.is::<TupleUd>() => u.borrow::<TupleUd>()?.0.clone(),
                _ => {
                    let mut t = Vec::new();
                    for a in &args {
                        t.push(lua_to_value(a).ok_or_else(|| {
                            rt_err("Only numbers, strings, and compounds can be arguments of a predicate table")
                        })?);
                    }
                    t
                }
            };
            Ok(this.tuples().binary_search(&tuple).is_ok())
        });
    }
}

impl UserData for TupleUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(format!("({})", print::tuple_to_string(&this.0)))
        });
        methods.add_meta_method(MetaMethod::Len, |_, this, ()| Ok(this.0.len()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| match key {
            LuaValue::Integer(i) if i >= 1 && (i as usize) <= this.0.len() => {
                value_to_lua(lua, this.0[i as usize - 1])
            }
            LuaValue::Number(n) if n >= 1.0 && n.fract() == 0.0 && (n as usize) <= this.0.len() => {
                value_to_lua(lua, this.0[n as usize - 1])
            }
            _ => Ok(LuaValue::Nil),
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<TupleUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for CompoundUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.0.to_string()));
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<CompoundUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
        methods.add_meta_method(MetaMethod::Lt, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<CompoundUd>()
                .map(|o| this.0 < o.0)
                .unwrap_or(false))
        });
        methods.add_meta_method(MetaMethod::Le, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<CompoundUd>()
                .map(|o| this.0 <= o.0)
                .unwrap_or(false))
        });
    }
}

impl UserData for DomainUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| {
            Ok(print::sort_table_to_string(&this.0))
        });
        methods.add_meta_method(MetaMethod::Len, |_, this, ()| Ok(this.0.len()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| match key {
            LuaValue::Integer(i) if i >= 1 && (i as usize) <= this.0.len() => {
                value_to_lua(lua, this.0[i as usize - 1])
            }
            _ => Ok(LuaValue::Nil),
        });
        methods.add_meta_method(MetaMethod::Eq, |_, this, other: AnyUserData| {
            Ok(other
                .borrow::<DomainUd>()
                .map(|o| o.0 == this.0)
                .unwrap_or(false))
        });
    }
}

/// Tuples given to maketrue & co: one tuple (a list of elements or a `tuple`) or a list of them.
pub fn tuples_arg(v: &LuaValue) -> Option<Vec<Tuple>> {
    if let LuaValue::UserData(ud) = v {
        if let Ok(t) = ud.borrow::<PredTableUd>() {
            return Some(t.tuples().as_ref().clone());
        }
    }
    if is_single_tuple(v) {
        lua_to_tuple(v).map(|t| vec![t])
    } else {
        lua_to_tuples(v)
    }
}

/// The structure and symbol behind an interpretation userdata.
pub fn as_interpretation(v: &LuaValue) -> Option<(SharedStructure, Symbol)> {
    let LuaValue::UserData(ud) = v else {
        return None;
    };
    if let Ok(p) = ud.borrow::<PredInterUd>() {
        return Some((p.s.clone(), p.sym));
    }
    if let Ok(f) = ud.borrow::<FuncInterUd>() {
        return Some((f.s.clone(), Symbol::Func(f.f)));
    }
    None
}

/// A short description of a Lua value's type for error messages.
pub fn describe(v: &LuaValue) -> String {
    match v {
        LuaValue::UserData(ud) => idp_type_name(ud).unwrap_or("userdata").to_string(),
        other => other.type_name().to_string(),
    }
}

/// Models as a Lua list of structures (their names cleared).
pub fn structures_to_lua<'lua>(
    lua: &'lua Lua,
    models: Vec<Structure>,
) -> mlua::Result<LuaValue<'lua>> {
    // The models an inference kept at a stop are handed over whole, however many.
    let _delivering = state(lua).run().delivering();
    let t = lua.create_table()?;
    for (k, mut m) in models.into_iter().enumerate() {
        m.name = String::new();
        t.raw_set(k + 1, struct_to_lua(lua, m)?)?;
    }
    Ok(LuaValue::Table(t))
}
