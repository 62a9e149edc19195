//! `stdoptions`: IDP3's option object, with its fields and defaults (reference §10). Unknown
//! fields produce a warning on stderr and are otherwise ignored.

use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;
use mlua::{Lua, MetaMethod, UserData, UserDataMethods, Value as LuaValue};

use crate::infer;

#[derive(Clone, Debug, PartialEq)]
pub enum OptValue {
    Int(i64),
    Bool(bool),
    Str(String, &'static [&'static str]),
    Float(f64),
    Sub(Rc<RefCell<OptMap>>),
}

pub type OptMap = IndexMap<String, OptValue>;

pub const INT_MAX: i64 = 2147483647;

/// The default option table (printable fields first, in IDP3's order).
pub fn default_options() -> OptMap {
    use OptValue::*;
    let mut m = OptMap::new();
    let s = |v: &str, allowed: &'static [&'static str]| Str(v.to_string(), allowed);
    let entries: Vec<(&str, OptValue)> = vec![
        (
            "language",
            s("idp", &["idp", "idp2", "ecnf", "tptp", "flatzinc", "asp"]),
        ),
        ("nbmodels", Int(1)),
        ("timeout", Int(INT_MAX)),
        ("mxtimeout", Int(INT_MAX)),
        ("memoryout", Int(INT_MAX)),
        ("mxmemoryout", Int(INT_MAX)),
        ("seed", Int(91648253)),
        ("xsb", Bool(false)),
        ("cpsupport", Bool(true)),
        ("cpgroundatoms", Bool(false)),
        ("groundwithbounds", Bool(true)),
        ("liftedunitpropagation", Bool(true)),
        ("functiondetection", Bool(false)),
        ("skolemize", Bool(false)),
        ("tseitindelay", Bool(false)),
        ("satdelay", Bool(false)),
        ("symmetrybreaking", s("none", &["none", "static"])),
        ("stablesemantics", Bool(false)),
        ("trace", Bool(false)),
        ("longnames", Bool(false)),
        ("showwarnings", Bool(true)),
        ("assumeconsistentinput", Bool(false)),
        (
            "approxdef",
            s("none", &["none", "complete", "cheap", "stratified", "all"]),
        ),
        ("randomvaluechoice", Bool(false)),
        ("randominitactivity", Bool(false)),
        ("nrpropsteps", Int(6)),
        ("longestbranch", Int(13)),
        ("relativepropsteps", Bool(true)),
        ("lazysizelimit", Int(12)),
        ("existsexpansion", Int(10)),
        ("provercommand", s("", &[])),
        ("proversupportsTFA", Bool(false)),
        ("timeout_entailment", Int(2)),
        (
            "optimalpropagation",
            s(
                "assumptions",
                &["assumptions", "intersection", "enumeration"],
            ),
        ),
        ("solverheuristic", s("classic", &["classic", "vmtf"])),
        ("equalitytheory", Bool(false)),
        ("refinedefinitionswithxsb", Bool(false)),
        ("xsbusescompiler", Bool(true)),
        ("existsonlyoneleftapprox", Bool(false)),
        ("postprocessdefs", Bool(true)),
        ("splitdefs", Bool(true)),
        ("autocomplete", Bool(true)),
        ("reducedgrounding", Bool(true)),
        ("joindefsforxsb", Bool(false)),
        ("guaranteenorecursionnegation", Bool(false)),
        ("mxrandompolarity", Bool(false)),
        ("bddmaxtime", Float(5.0)),
    ];
    for (k, v) in entries {
        m.insert(k.to_string(), v);
    }
    let mut verbosity = OptMap::new();
    for k in [
        "creategrounders",
        "generatorsandcheckers",
        "grounding",
        "groundingstats",
        "solvingstats",
        "transformations",
        "solving",
        "entails",
        "propagation",
        "createpropagators",
        "query",
        "functiondetection",
        "calculatedefinitions",
        "approxdef",
        "symmetrybreaking",
    ] {
        verbosity.insert(k.to_string(), Int(0));
    }
    m.insert("verbosity".into(), Sub(Rc::new(RefCell::new(verbosity))));
    m
}

/// The `options` userdata (also used for the `verbosity` sub-table).
#[derive(Clone)]
pub struct OptionsUd(pub Rc<RefCell<OptMap>>);

impl OptionsUd {
    pub fn new_default() -> OptionsUd {
        OptionsUd(Rc::new(RefCell::new(default_options())))
    }

    pub fn get_int(&self, k: &str) -> Option<i64> {
        match self.0.borrow().get(k) {
            Some(OptValue::Int(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn get_bool(&self, k: &str) -> Option<bool> {
        match self.0.borrow().get(k) {
            Some(OptValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The options that inferences read.
    pub fn infer_options(&self) -> infer::Options {
        let mut o = infer::Options {
            nbmodels: self.get_int("nbmodels").unwrap_or(1).max(0) as usize,
            ..infer::Options::default()
        };
        let t = self.get_int("timeout").unwrap_or(INT_MAX);
        o.timeout = if t <= 0 || t >= INT_MAX {
            0.0
        } else {
            t as f64
        };
        o.stablesemantics = self.get_bool("stablesemantics").unwrap_or(false);
        o.verbose = self.0.borrow().get("verbosity").is_some_and(|v| match v {
            OptValue::Sub(m) => m
                .borrow()
                .values()
                .any(|x| matches!(x, OptValue::Int(i) if *i > 0)),
            _ => false,
        });
        o
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (k, v) in self.0.borrow().iter() {
            match v {
                OptValue::Sub(_) => {}
                OptValue::Int(i) => out.push_str(&format!("\t{} = {}\n", k, i)),
                OptValue::Float(f) => out.push_str(&format!("\t{} = {}\n", k, f)),
                OptValue::Bool(b) => out.push_str(&format!("\t{} = {}\n", k, b)),
                OptValue::Str(s, _) => out.push_str(&format!("\t{} = \"{}\"\n", k, s)),
            }
        }
        out
    }
}

fn warn(lua: &Lua, msg: &str) {
    crate::lua::warning(lua, msg);
}

impl UserData for OptionsUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.to_text()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            let LuaValue::String(k) = &key else {
                return Ok(LuaValue::Nil);
            };
            let k = k.to_string_lossy().to_string();
            let v = this.0.borrow().get(&k).cloned();
            Ok(match v {
                None => {
                    warn(lua, &format!("There is no option named {}", k));
                    LuaValue::Nil
                }
                Some(OptValue::Int(i)) => LuaValue::Integer(i as mlua::Integer),
                Some(OptValue::Float(f)) => LuaValue::Number(f),
                Some(OptValue::Bool(b)) => LuaValue::Boolean(b),
                Some(OptValue::Str(s, _)) => LuaValue::String(lua.create_string(&s)?),
                Some(OptValue::Sub(m)) => LuaValue::UserData(lua.create_userdata(OptionsUd(m))?),
            })
        });
        methods.add_meta_method(
            MetaMethod::NewIndex,
            |lua, this, (key, val): (LuaValue, LuaValue)| {
                let LuaValue::String(k) = &key else {
                    warn(lua, "Options can only be indexed by name");
                    return Ok(());
                };
                let k = k.to_string_lossy().to_string();
                let current = this.0.borrow().get(&k).cloned();
                let new = match (&current, &val) {
                    (None, _) => {
                        warn(lua, &format!("There is no option named {}", k));
                        return Ok(());
                    }
                    (Some(OptValue::Int(_)), LuaValue::Integer(i)) => OptValue::Int(*i),
                    (Some(OptValue::Int(_)), LuaValue::Number(n)) if n.fract() == 0.0 => {
                        OptValue::Int(*n as i64)
                    }
                    (Some(OptValue::Float(_)), LuaValue::Integer(i)) => OptValue::Float(*i as f64),
                    (Some(OptValue::Float(_)), LuaValue::Number(n)) => OptValue::Float(*n),
                    (Some(OptValue::Bool(_)), LuaValue::Boolean(b)) => OptValue::Bool(*b),
                    (Some(OptValue::Str(_, allowed)), LuaValue::String(s)) => {
                        let s = s.to_string_lossy().to_string();
                        if !allowed.is_empty() && !allowed.contains(&s.as_str()) {
                            warn(lua, &format!("{} is not a valid value for option {}", s, k));
                            return Ok(());
                        }
                        OptValue::Str(s, allowed)
                    }
                    _ => {
                        warn(lua, &format!("Invalid value for option {}", k));
                        return Ok(());
                    }
                };
                this.0.borrow_mut().insert(k, new);
                Ok(())
            },
        );
    }
}
