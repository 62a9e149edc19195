//! `stdoptions`: IDP3's option object, with its fields, defaults and allowed values (reference
//! §10, IDP3's `options.cpp`). Setting an unknown option, a value of the wrong type or a value
//! out of range is an error with IDP3's message; reading an unknown option stops the chunk.

use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;
use mlua::{MetaMethod, UserData, UserDataMethods, Value as LuaValue};

use crate::error::{Error, ErrorKind};
use crate::lua::rt_err;

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

/// The most solvers `stdoptions.threads` races.
const MAX_THREADS: i64 = infer::MAX_THREADS as i64;

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
        // Not IDP3's: solvers raced on each search (0: as the command line says).
        ("threads", Int(0)),
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

    pub fn get_str(&self, k: &str) -> Option<String> {
        match self.0.borrow().get(k) {
            Some(OptValue::Str(s, _)) => Some(s.clone()),
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
        // `mxtimeout` bounds the search and `timeout` the whole inference: the smaller wins.
        let t = ["timeout", "mxtimeout"]
            .iter()
            .filter_map(|k| self.get_int(k))
            .filter(|&t| t > 0 && t < INT_MAX)
            .min();
        o.timeout = t.map_or(0.0, |t| t as f64);
        o.threads = self.get_int("threads").unwrap_or(0).clamp(0, MAX_THREADS) as usize;
        o.stablesemantics = self.get_bool("stablesemantics").unwrap_or(false);
        o.trace = self.get_bool("trace").unwrap_or(false);
        if self.get_bool("randomvaluechoice") == Some(true) {
            o.random_values = Some(self.get_int("seed").unwrap_or(91648253) as u64);
        }
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

/// The lowest and highest value of an integer option (IDP3's ranges).
fn int_range(k: &str) -> (i64, i64) {
    match k {
        "seed" | "lazysizelimit" | "existsexpansion" => (1, INT_MAX),
        "threads" => (0, MAX_THREADS),
        _ => (0, INT_MAX),
    }
}

/// IDP3's description of an option's allowed values (`printAllowedValues`).
fn allowed_text(k: &str, v: &OptValue) -> String {
    match v {
        OptValue::Int(i) => {
            let (lo, hi) = int_range(k);
            format!("\t{k} = {i}\n\t\t => between {lo} and {hi}.\n")
        }
        OptValue::Float(f) => format!("\t{k} = {f}\n"),
        OptValue::Bool(b) => format!("\t{k} = {b}\n\t\t => one of [false, true]\n"),
        OptValue::Str(s, []) => format!("\t{k} = {s}\n"),
        OptValue::Str(s, allowed) => {
            let mut sorted: Vec<&str> = allowed.to_vec();
            sorted.sort();
            let quoted: Vec<String> = sorted.iter().map(|a| format!("\"{a}\"")).collect();
            format!("\t{k} = {s}\n\t\t => one of [{}]\n", quoted.join(", "))
        }
        OptValue::Sub(_) => String::new(),
    }
}

/// The new value of option `k` (now `current`), or IDP3's message for a value it refuses.
fn new_value(k: &str, current: &OptValue, val: &LuaValue) -> Result<OptValue, String> {
    let invalid = |shown: String| {
        format!(
            "\"{shown}\" is not a valid value for option {k}.\n{}.\n",
            allowed_text(k, current)
        )
    };
    match (current, val) {
        (OptValue::Int(_), LuaValue::Integer(_) | LuaValue::Number(_)) => {
            let n = match val {
                LuaValue::Integer(i) => *i as f64,
                LuaValue::Number(n) => *n,
                _ => 0.0,
            };
            let (lo, hi) = int_range(k);
            if n.fract() != 0.0 {
                return Err(format!(
                    "Wrong option value type for option {k}.\n{}.\n",
                    allowed_text(k, current)
                ));
            }
            if n < lo as f64 || n > hi as f64 {
                return Err(invalid(format!("{}", n as i64)));
            }
            Ok(OptValue::Int(n as i64))
        }
        (OptValue::Float(_), LuaValue::Integer(i)) => Ok(OptValue::Float(*i as f64)),
        (OptValue::Float(_), LuaValue::Number(n)) => Ok(OptValue::Float(*n)),
        (OptValue::Bool(_), LuaValue::Boolean(b)) => Ok(OptValue::Bool(*b)),
        (OptValue::Str(_, allowed), LuaValue::String(s)) => {
            let s = s.to_string_lossy().to_string();
            if !allowed.is_empty() && !allowed.contains(&s.as_str()) {
                return Err(invalid(s));
            }
            Ok(OptValue::Str(s, allowed))
        }
        _ => Err(format!(
            "Wrong option value type for option {k}.\n{}.\n",
            allowed_text(k, current)
        )),
    }
}

impl UserData for OptionsUd {
    fn add_methods<'lua, M: UserDataMethods<'lua, Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.to_text()));
        methods.add_meta_method(MetaMethod::Index, |lua, this, key: LuaValue| {
            let LuaValue::String(k) = &key else {
                return Err(rt_err("Options can only be indexed by a string"));
            };
            let k = k.to_string_lossy().to_string();
            let v = this.0.borrow().get(&k).cloned();
            Ok(match v {
                None => {
                    return Err(mlua::Error::external(Error::new(
                        ErrorKind::Aborted,
                        format!("Requesting non-existing option {k}"),
                    )))
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
                    return Err(rt_err("Options can only be indexed by a string"));
                };
                let k = k.to_string_lossy().to_string();
                let current = this.0.borrow().get(&k).cloned();
                let Some(current) = current.filter(|c| !matches!(c, OptValue::Sub(_))) else {
                    return Err(rt_err(format!("There is no option named {k}.\n")));
                };
                let new = new_value(&k, &current, &val).map_err(rt_err)?;
                if let ("memoryout" | "mxmemoryout", OptValue::Int(mb)) = (k.as_str(), &new) {
                    if *mb > 0 && *mb < INT_MAX {
                        crate::lua::state(lua).run().set_max_memory_mb(*mb as u64);
                    }
                }
                this.0.borrow_mut().insert(k, new);
                Ok(())
            },
        );
    }
}
