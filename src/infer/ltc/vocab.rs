//! The LTC vocabulary of a theory, checked as IDP3's `LTCData::collectLTCSortAndFunctions` and
//! `LTCVocabularyTransformer::projectSorts` check it: a sort `Time`, one constant `Start :
//! Time`, one function `Next(Time) : Time`, no function mapping to Time and at most one Time
//! argument per symbol. The resolver already built the single-state and bistate vocabularies
//! of every vocabulary that passes; here the first failed check is named with IDP3's text.

use indexmap::IndexMap;

use crate::error::{Error, IdpResult};
use crate::ids::{FuncId, SortId, Symbol, VocId};
use crate::sema::{LtcInfo, Program};

/// The LTC information of `voc`, or IDP3's error for the first check it fails.
pub fn info(program: &Program, voc: VocId) -> IdpResult<&LtcInfo> {
    if let Some(info) = program.voc(voc).ltc.as_ref() {
        return Ok(info);
    }
    Err(Error::input(diagnose(program, voc)))
}

/// IDP3's message for a vocabulary that is not a valid LTC vocabulary.
fn diagnose(program: &Program, voc: VocId) -> String {
    let v = program.voc(voc);
    let Some(&time) = v.sorts.iter().find(|&&s| program.sort(s).name == "Time") else {
        return "LTC Vocabularies are required to have a sort named Time. (or, if the name of this sort is not Time, provide it yourself)".into();
    };
    let named = |name: &str, arity: usize| -> Vec<FuncId> {
        v.funcs
            .iter()
            .copied()
            .filter(|&f| program.func(f).name == name && program.func(f).args.len() == arity)
            .collect()
    };
    let starts = named("Start", 0);
    if starts.is_empty() {
        return "LTC Vocabularies are required to have a constant of type Time named Start.  (or, if the name of this constant is not Start, provide it yourself)".into();
    }
    if starts.len() > 1 {
        return "LTC theories can only have one function named Start.".into();
    }
    if program.func(starts[0]).result != time {
        // IDP3 throws an exception without a message here.
        return String::new();
    }
    let nexts = named("Next", 1);
    if nexts.is_empty() {
        return "LTC Vocabularies are required to have a function, typed [Time:Time] named Next.  (or, if the name of this function is not Next, provide it yourself)".into();
    }
    if nexts.len() > 1 {
        return "LTC Vocabularies can only have one function named Next.".into();
    }
    let next = program.func(nexts[0]);
    if next.args != [time] || next.result != time {
        return "In LTC Vocabularies, the function Next should be typed [Time:Time] .".into();
    }
    projection_problem(program, voc, time, starts[0], nexts[0])
        .unwrap_or_else(|| "Did not find a valid Time symbol in LTC vocabulary".into())
}

/// IDP3's complaint about a symbol that cannot be projected on a state, if there is one.
fn projection_problem(
    program: &Program,
    voc: VocId,
    time: SortId,
    start: FuncId,
    next: FuncId,
) -> Option<String> {
    let v = program.voc(voc);
    let preds = v.preds.iter().map(|&p| Symbol::Pred(p));
    let funcs = v
        .funcs
        .iter()
        .filter(|&&f| f != start && f != next)
        .map(|&f| Symbol::Func(f));
    for sym in preds.chain(funcs) {
        if let Symbol::Func(f) = sym {
            if program.func(f).result == time {
                return Some(
                    "LTC vocabularies cannot contain functions mapping to the sort Time".into(),
                );
            }
        }
        let sorts = program.symbol_sorts(sym);
        if sorts.iter().filter(|&&s| s == time).count() > 1 {
            return Some("In LTC vocabularies, every function/predicate can only have one argument of type Time".into());
        }
    }
    None
}

/// The single-state vocabulary `V_ss` and the bistate vocabulary `V_bs` of an LTC vocabulary.
pub fn state_vocabularies(info: &LtcInfo) -> IdpResult<(VocId, VocId)> {
    match (info.single_state, info.bistate) {
        (Some(ss), Some(bs)) => Ok((ss, bs)),
        _ => Err(Error::internal(
            "an LTC vocabulary without its single-state and bistate vocabularies",
        )),
    }
}

/// Each time-dependent symbol of the LTC vocabulary with its state symbol (`P`) and its
/// next-state symbol (`P_next`).
pub fn state_symbols(
    program: &Program,
    info: &LtcInfo,
) -> IdpResult<IndexMap<Symbol, (Symbol, Symbol)>> {
    let (_, bs) = state_vocabularies(info)?;
    let next_of = &program.voc(bs).next_of;
    let mut out = IndexMap::new();
    for (&ltc, &state) in &info.projection {
        let next = next_of
            .iter()
            .find(|(_, &s)| s == state)
            .map(|(&n, _)| n)
            .ok_or_else(|| Error::internal("a state symbol without its next-state symbol"))?;
        out.insert(ltc, (state, next));
    }
    Ok(out)
}
