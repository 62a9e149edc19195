//! Structures between an LTC vocabulary and its state vocabularies (IDP3's
//! `LTCStructureProjector` and the post-processing of progression).

use indexmap::IndexMap;

use crate::error::IdpResult;
use crate::ids::{Symbol, VocId};
use crate::sema::{LtcInfo, Program};
use crate::structure::{Structure, Table, TupleSet, Value};

/// A structure over an LTC vocabulary projected on its single-state vocabulary: the types and
/// static symbols as they are, the time-dependent symbols at the element of Start (when
/// `use_start` and Start is interpreted). The warnings IDP3 gives come with it.
pub fn project(
    program: &Program,
    info: &LtcInfo,
    s: &Structure,
    use_start: bool,
) -> IdpResult<(Structure, Vec<String>)> {
    let (ss, _) = super::vocab::state_vocabularies(info)?;
    let mut out = Structure::new(format!("{}_projected", s.name), ss);
    for &so in &program.voc(ss).sorts {
        if program.sort(so).builtin.is_some() {
            continue;
        }
        // The structure's own listing, copied as it is (a type it leaves to the vocabulary
        // stays so; the state vocabulary fixes and constructs the same types).
        out.copy_domain(s, so);
        if let Some(h) = s.huge_ranges.get(&so) {
            out.huge_ranges.insert(so, h.clone());
        }
    }
    let start = start_value(s, info).filter(|_| use_start);
    let mut warnings = Vec::new();
    for (sym, table) in &s.symbols {
        if *sym == Symbol::Func(info.start) || *sym == Symbol::Func(info.next) {
            continue;
        }
        match info.projection.get(sym) {
            None => {
                out.symbols.insert(*sym, table.clone());
            }
            Some(&state) => {
                let k = info.time_arg[sym];
                let name = program.symbol_name(*sym);
                match start {
                    Some(at) => {
                        let (t, other) = at_time(table, k, at);
                        if other {
                            warnings.push(format!("In structure {}, for symbol {name} information about other time-points than start is given. All this information is ignored.\n", s.name));
                        }
                        out.symbols.insert(state, t);
                    }
                    None if use_start && has_information(table) => {
                        warnings.push(format!("In structure {}, Start is uninterpreted. Therefore, we ignore the interpretation of {name} even though it is not completely unknown.\n", s.name));
                    }
                    None => {}
                }
            }
        }
    }
    Ok((out, warnings))
}

/// The element that a two-valued Start has.
fn start_value(s: &Structure, info: &LtcInfo) -> Option<Value> {
    match s.table(Symbol::Func(info.start))? {
        Table::TwoValued(t) => t.iter().next().and_then(|t| t.first().copied()),
        Table::ThreeValued { ct, .. } => ct.iter().next().and_then(|t| t.first().copied()),
    }
}

fn has_information(t: &Table) -> bool {
    match t {
        Table::TwoValued(_) => true,
        Table::ThreeValued { ct, cf } => !ct.is_empty() || !cf.is_empty(),
    }
}

/// The tuples at time `at` without their Time argument (position `k`), and whether other time
/// points had information.
fn at_time(t: &Table, k: usize, at: Value) -> (Table, bool) {
    let mut other = false;
    let mut pick = |set: &TupleSet| -> TupleSet {
        let mut out = TupleSet::default();
        for t in set {
            if t.get(k) == Some(&at) {
                let mut t = t.clone();
                t.remove(k);
                out.insert(t);
            } else {
                other = true;
            }
        }
        out
    };
    let table = match t {
        Table::TwoValued(s) => Table::TwoValued(pick(s)),
        Table::ThreeValued { ct, cf } => Table::ThreeValued {
            ct: pick(ct),
            cf: pick(cf),
        },
    };
    (table, other)
}

/// A state over the single-state vocabulary seen over the bistate vocabulary (the next-state
/// symbols left open).
pub fn to_bistate(state: &Structure, bistate: VocId) -> Structure {
    let mut s = state.clone();
    s.vocabulary = bistate;
    s
}

/// A model of the bistate theory as the next state: each state symbol gets its next-state
/// symbol's interpretation, over the single-state vocabulary (IDP3's `postprocess`).
pub fn next_state(
    model: &Structure,
    symbols: &IndexMap<Symbol, (Symbol, Symbol)>,
    single_state: VocId,
) -> Structure {
    let mut out = model.clone();
    for &(state, next) in symbols.values() {
        match out.symbols.shift_remove(&next) {
            Some(t) => {
                out.symbols.insert(state, t);
            }
            None => {
                out.symbols.shift_remove(&state);
            }
        }
    }
    out.vocabulary = single_state;
    out.name = String::new();
    out
}
