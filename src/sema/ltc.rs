//! An LTC vocabulary made from the time symbols a procedure names
//! (`initialise(T, S, V::time.type, V::Start, V::Next)`), after resolving: IDP3 transforms a
//! vocabulary on the first LTC inference over it, with the symbols given there or else those
//! named Time, Start and Next (`src/inferences/progression/data/LTCData.cpp`,
//! `LTCData::getStateVocInfo` and `LTCData::verify`). Vocabularies with Time, Start and Next
//! are transformed by the resolver already (`resolve::ltc`); this does the same for other
//! symbols on the program itself (the generated vocabularies get no names to look up).

use indexmap::IndexMap;

use crate::ids::{FuncId, PredId, SortId, Symbol, VocId};
use crate::sema::program::{Function, LtcInfo, Predicate, Program, Vocabulary};

/// Makes `voc` an LTC vocabulary with `time`, `start` and `next` (its single-state and
/// bistate vocabularies added to the program), or gives IDP3's message for why it cannot be.
/// A vocabulary that is already one stays as it is (IDP3 keeps the first transformation).
pub fn transform_vocabulary(
    prog: &mut Program,
    voc: VocId,
    time: SortId,
    start: FuncId,
    next: FuncId,
) -> Result<(), String> {
    if prog.voc(voc).ltc.is_some() {
        return Ok(());
    }
    let (s, n) = (prog.func(start), prog.func(next));
    if !s.args.is_empty() || s.result != time {
        return Err("In LTC Vocabularies, the function Start should be typed [:Time].".into());
    }
    if n.args != [time] || n.result != time {
        return Err(
            "In LTC Vocabularies, Start should be a unary function typed Time->Time".into(),
        );
    }
    let symbols = symbols(prog, voc);
    for &sym in &symbols {
        if sym == Symbol::Func(start) || sym == Symbol::Func(next) {
            continue;
        }
        if matches!(sym, Symbol::Func(f) if prog.func(f).result == time) {
            return Err(
                "LTC vocabularies cannot contain functions mapping to the sort Time".into(),
            );
        }
        if prog
            .symbol_sorts(sym)
            .iter()
            .filter(|&&x| x == time)
            .count()
            > 1
        {
            return Err("In LTC vocabularies, every function/predicate can only have one argument of type Time".into());
        }
    }
    let name = prog.voc(voc).name.clone();
    let namespace = prog.voc(voc).namespace.clone();
    let span = prog.voc(voc).span;
    let new_voc = |prog: &mut Program, suffix: &str| {
        prog.vocabularies.push(Vocabulary {
            name: format!("{name}{suffix}"),
            namespace: namespace.clone(),
            span,
            ..Default::default()
        });
        VocId((prog.vocabularies.len() - 1) as u32)
    };
    let ss = new_voc(prog, "_ss");
    let bs = new_voc(prog, "_bs");
    let mut info = LtcInfo {
        time,
        start,
        next,
        single_state: Some(ss),
        bistate: Some(bs),
        projection: IndexMap::new(),
        time_arg: IndexMap::new(),
    };
    let sorts: Vec<SortId> = prog.voc(voc).sorts.iter().copied().collect();
    for s in sorts.into_iter().filter(|&s| s != time) {
        add_sort(prog, ss, s);
        add_sort(prog, bs, s);
    }
    for sym in symbols {
        if sym == Symbol::Func(start) || sym == Symbol::Func(next) {
            continue;
        }
        match prog.symbol_sorts(sym).iter().position(|&s| s == time) {
            None => {
                add_symbol(prog, ss, sym);
                add_symbol(prog, bs, sym);
            }
            Some(k) => {
                let state = project(prog, sym, k, "");
                let next_state = project(prog, sym, k, "_next");
                add_symbol(prog, ss, state);
                add_symbol(prog, bs, state);
                add_symbol(prog, bs, next_state);
                prog.vocabularies[bs.index()]
                    .next_of
                    .insert(next_state, state);
                info.projection.insert(sym, state);
                info.time_arg.insert(sym, k);
            }
        }
    }
    prog.vocabularies[voc.index()].ltc = Some(info);
    Ok(())
}

fn symbols(prog: &Program, voc: VocId) -> Vec<Symbol> {
    let v = prog.voc(voc);
    v.preds
        .iter()
        .filter(|&&p| prog.pred(p).type_of.is_none())
        .map(|&p| Symbol::Pred(p))
        .chain(v.funcs.iter().map(|&f| Symbol::Func(f)))
        .collect()
}

/// Adds a sort, its non-builtin ancestors and their constructors to a vocabulary.
fn add_sort(prog: &mut Program, voc: VocId, s: SortId) {
    for a in prog.ancestors(s) {
        if prog.sort(a).builtin.is_some() || !prog.vocabularies[voc.index()].sorts.insert(a) {
            continue;
        }
        for f in prog.sort(a).constructors.clone() {
            add_symbol(prog, voc, Symbol::Func(f));
        }
    }
}

fn add_symbol(prog: &mut Program, voc: VocId, sym: Symbol) {
    for s in prog.symbol_sorts(sym) {
        add_sort(prog, voc, s);
    }
    let v = &mut prog.vocabularies[voc.index()];
    match sym {
        Symbol::Pred(p) => v.preds.insert(p),
        Symbol::Func(f) => v.funcs.insert(f),
    };
}

/// A copy of `sym` without its Time argument (at position `k`), named `name + suffix`.
fn project(prog: &mut Program, sym: Symbol, k: usize, suffix: &str) -> Symbol {
    match sym {
        Symbol::Pred(p) => {
            let orig = prog.pred(p).clone();
            let mut args = orig.args;
            args.remove(k);
            prog.preds.push(Predicate {
                name: format!("{}{suffix}", orig.name),
                args,
                type_of: None,
                span: orig.span,
            });
            Symbol::Pred(PredId((prog.preds.len() - 1) as u32))
        }
        Symbol::Func(f) => {
            let orig = prog.func(f).clone();
            let mut args = orig.args;
            args.remove(k);
            prog.funcs.push(Function {
                name: format!("{}{suffix}", orig.name),
                args,
                result: orig.result,
                partial: orig.partial,
                constructor_of: None,
                span: orig.span,
            });
            Symbol::Func(FuncId((prog.funcs.len() - 1) as u32))
        }
    }
}
