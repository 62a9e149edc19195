//! LTC vocabularies: checks that Time, Start and Next exist (IDP3's errors), and generates the
//! single-state vocabulary `V_ss` (time arguments projected away, Start/Next/Time dropped) and
//! the bistate vocabulary `V_bs` (`V_ss` plus a `P_next` copy of every time-dependent symbol).
//! A plain vocabulary with well-typed Time/Start/Next also gets this information (without
//! errors, and without registering the generated vocabularies as components).

use indexmap::IndexMap;

use super::{Entry, Resolver};
use crate::ids::{FuncId, SortId, Symbol, VocId};
use crate::sema::program::{Component, LtcInfo};
use crate::source::Span;
use crate::syntax::ast;

impl Resolver<'_> {
    pub(super) fn ltc_vocabulary(&mut self, voc: VocId, v: &ast::Vocabulary) {
        let names = match &v.ltc {
            Some(Some(p)) => [
                p[0].name().to_string(),
                p[1].name().to_string(),
                p[2].name().to_string(),
            ],
            _ => ["Time".to_string(), "Start".to_string(), "Next".to_string()],
        };
        let explicit = v.ltc.is_some();
        let span = match &v.ltc {
            Some(Some(p)) => [p[0].span, p[1].span, p[2].span],
            _ => [v.name.span; 3],
        };
        let Some((time, start, next)) = self.ltc_symbols(voc, &names, explicit, span) else {
            return;
        };
        let mut info = LtcInfo {
            time,
            start,
            next,
            single_state: None,
            bistate: None,
            projection: IndexMap::new(),
            time_arg: IndexMap::new(),
        };
        if !self.ltc_projection_ok(voc, &info, explicit, v.name.span) {
            return;
        }
        let name = v.name.name.clone();
        let ss = self.new_vocabulary(&format!("{name}_ss"), Some(v.span));
        let bs = self.new_vocabulary(&format!("{name}_bs"), Some(v.span));
        self.fill_state_vocabularies(voc, ss, bs, &mut info);
        if explicit {
            self.declare_generated(
                &format!("{name}_ss"),
                Component::Vocabulary(ss),
                v.name.span,
            );
            self.declare_generated(
                &format!("{name}_bs"),
                Component::Vocabulary(bs),
                v.name.span,
            );
        }
        info.single_state = Some(ss);
        info.bistate = Some(bs);
        self.prog.vocabularies[voc.index()].ltc = Some(info);
    }

    /// Finds Time, Start and Next; reports IDP3's errors only for declared LTC vocabularies.
    fn ltc_symbols(
        &mut self,
        voc: VocId,
        names: &[String; 3],
        explicit: bool,
        span: [Span; 3],
    ) -> Option<(SortId, FuncId, FuncId)> {
        let time = self
            .own_entries(voc, &names[0])
            .into_iter()
            .find_map(|e| match e {
                Entry::Sort(s) => Some(s),
                _ => None,
            });
        let Some(time) = time else {
            if explicit {
                let msg = format!("LTC Vocabularies are required to have a sort named {}. (or, if the name of this sort is not {}, provide it yourself)", names[0], names[0]);
                let typo = self.ltc_typo(voc, &names[0], |r, e| match e {
                    Entry::Sort(s) => r.prog.sorts[s.index()].span,
                    _ => None,
                });
                self.ltc_error(msg, span[0], &names[0], typo);
            }
            return None;
        };
        let funcs = |r: &Self, name: &str, arity: usize| -> Vec<FuncId> {
            r.own_entries(voc, name)
                .into_iter()
                .filter_map(|e| match e {
                    Entry::Func(f) if r.prog.func(f).args.len() == arity => Some(f),
                    _ => None,
                })
                .collect()
        };
        let starts = funcs(self, &names[1], 0);
        let nexts = funcs(self, &names[2], 1);
        let start = starts
            .iter()
            .copied()
            .find(|&f| self.prog.func(f).result == time);
        let next = nexts
            .iter()
            .copied()
            .find(|&f| self.prog.func(f).args == [time] && self.prog.func(f).result == time);
        if start.is_none() && explicit {
            let msg = format!("LTC Vocabularies are required to have a constant of type {} named {}.  (or, if the name of this constant is not {}, provide it yourself)", names[0], names[1], names[1]);
            let typo = self.ltc_typo(voc, &names[1], |r, e| match e {
                Entry::Func(f)
                    if r.prog.func(f).result == time && r.prog.func(f).args.is_empty() =>
                {
                    r.prog.func(f).span
                }
                _ => None,
            });
            self.ltc_error(msg, span[1], &names[1], typo);
        }
        if next.is_none() && explicit {
            let msg = format!("LTC Vocabularies are required to have a function, typed [{}:{}] named {}.  (or, if the name of this function is not {}, provide it yourself)", names[0], names[0], names[2], names[2]);
            let typo = self.ltc_typo(voc, &names[2], |r, e| match e {
                Entry::Func(f)
                    if r.prog.func(f).args == [time] && r.prog.func(f).result == time =>
                {
                    r.prog.func(f).span
                }
                _ => None,
            });
            self.ltc_error(msg, span[2], &names[2], typo);
        }
        Some((time, start?, next?))
    }

    /// A declaration of `voc` whose name is a plausible typo of the LTC name `wanted` and whose
    /// kind fits (`declared_at` gives its span): `Strat : Time` for `Start`.
    fn ltc_typo(
        &self,
        voc: VocId,
        wanted: &str,
        declared_at: impl Fn(&Self, Entry) -> Option<Span>,
    ) -> Option<(String, Span)> {
        let names = self.voc_names.get(voc.index())?;
        let fitting = names.iter().filter_map(|(name, entries)| {
            let span = entries.iter().find_map(|&e| declared_at(self, e))?;
            Some((name.as_str(), span))
        });
        let fitting: Vec<(&str, Span)> = fitting.collect();
        let near = super::nearest_name(wanted, fitting.iter().map(|(n, _)| *n))?;
        let span = fitting.iter().find(|(n, _)| *n == near)?.1;
        Some((near, span))
    }

    /// IDP3's error about a missing LTC symbol; at the declaration of a near miss when there is
    /// one (`Strat : Time`), with a hint naming both fixes.
    fn ltc_error(&mut self, msg: String, at: Span, wanted: &str, typo: Option<(String, Span)>) {
        match typo {
            None => self.error("ltc-vocabulary", msg, at),
            Some((near, span)) => {
                let hint = format!(
                    "did you mean `{wanted}`? `{near}` is declared here: rename it `{wanted}`, \
                     or name it in the vocabulary's header (`LTCvocabulary V(Time, Start, \
                     Next)` with `{near}` in its place)"
                );
                self.error_hint("ltc-vocabulary", msg, span, Some(hint));
            }
        }
    }

    /// Every symbol may have at most one Time argument, and no function may map to Time.
    fn ltc_projection_ok(
        &mut self,
        voc: VocId,
        info: &LtcInfo,
        explicit: bool,
        span: Span,
    ) -> bool {
        let mut ok = true;
        for sym in self.voc_symbols(voc) {
            if sym == Symbol::Func(info.start) || sym == Symbol::Func(info.next) {
                continue;
            }
            let sorts = self.prog.symbol_sorts(sym);
            let n = sorts.iter().filter(|&&s| s == info.time).count();
            let maps_to_time =
                matches!(sym, Symbol::Func(f) if self.prog.func(f).result == info.time);
            let msg = if maps_to_time {
                "LTC vocabularies cannot contain functions mapping to the sort Time"
            } else if n > 1 {
                "In LTC vocabularies, every function/predicate can only have one argument of type Time"
            } else {
                continue;
            };
            ok = false;
            if explicit {
                self.error(
                    "ltc-vocabulary",
                    format!("{msg} (symbol {}).", self.prog.symbol_name(sym)),
                    span,
                );
            }
        }
        ok
    }

    fn voc_symbols(&self, voc: VocId) -> Vec<Symbol> {
        let v = &self.prog.vocabularies[voc.index()];
        v.preds
            .iter()
            .map(|&p| Symbol::Pred(p))
            .chain(v.funcs.iter().map(|&f| Symbol::Func(f)))
            .collect()
    }

    fn fill_state_vocabularies(&mut self, voc: VocId, ss: VocId, bs: VocId, info: &mut LtcInfo) {
        let sorts: Vec<SortId> = self.prog.vocabularies[voc.index()]
            .sorts
            .iter()
            .copied()
            .filter(|&s| s != info.time)
            .collect();
        for s in sorts {
            self.add_sort(ss, s);
            self.add_sort(bs, s);
        }
        for sym in self.voc_symbols(voc) {
            if sym == Symbol::Func(info.start) || sym == Symbol::Func(info.next) {
                continue;
            }
            let sorts = self.prog.symbol_sorts(sym);
            match sorts.iter().position(|&s| s == info.time) {
                None => {
                    self.add_symbol(ss, sym);
                    self.add_symbol(bs, sym);
                }
                Some(k) => {
                    let state = self.project_symbol(sym, k, "");
                    let next = self.project_symbol(sym, k, "_next");
                    self.add_symbol(ss, state);
                    self.add_symbol(bs, state);
                    self.add_symbol(bs, next);
                    self.prog.vocabularies[bs.index()]
                        .next_of
                        .insert(next, state);
                    info.projection.insert(sym, state);
                    info.time_arg.insert(sym, k);
                }
            }
        }
    }

    fn add_symbol(&mut self, voc: VocId, sym: Symbol) {
        match sym {
            Symbol::Pred(p) => self.add_pred(voc, p),
            Symbol::Func(f) => self.add_func(voc, f),
        }
    }

    /// A copy of `sym` without its Time argument (at position `k`), named `name + suffix`.
    fn project_symbol(&mut self, sym: Symbol, k: usize, suffix: &str) -> Symbol {
        match sym {
            Symbol::Pred(p) => {
                let orig = self.prog.pred(p).clone();
                let mut args = orig.args.clone();
                args.remove(k);
                Symbol::Pred(self.new_pred(&format!("{}{suffix}", orig.name), args, orig.span))
            }
            Symbol::Func(f) => {
                let orig = self.prog.func(f).clone();
                let mut args = orig.args.clone();
                args.remove(k);
                Symbol::Func(self.new_func(
                    &format!("{}{suffix}", orig.name),
                    args,
                    orig.result,
                    orig.partial,
                    orig.span,
                ))
            }
        }
    }
}
