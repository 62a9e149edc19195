//! IDP-Z3's `display` block resolved: each concept it names (`` `p ``) becomes the symbol of
//! the vocabulary with that name, into [`Display`]; a name that is no symbol is left out with
//! a located warning (the block only says how a consultant shows the vocabulary, so a run
//! goes on without it).

use super::{nearest_name, Resolver};
use crate::diagnostics::Diagnostic;
use crate::ids::{FuncId, PredId, Symbol};
use crate::syntax::ast;

impl Resolver<'_> {
    pub(super) fn display(&mut self, d: &ast::Display) {
        let mut display = std::mem::take(&mut self.prog.display);
        for setting in &d.settings {
            let symbols: Vec<Symbol> = setting
                .symbols
                .iter()
                .filter_map(|name| self.display_symbol(name))
                .collect();
            let text = setting.texts.first().cloned().unwrap_or_default();
            match setting.kind.name.as_str() {
                "goal_symbol" => display.goals.extend(symbols),
                "expand" => display.expanded.extend(symbols),
                "hide" => display.hidden.extend(symbols),
                "counter" => display.counters.extend(symbols),
                "noOptimization" => display.not_optimised.extend(symbols),
                "unit" => display
                    .units
                    .extend(symbols.into_iter().map(|s| (s, text.clone()))),
                "heading" => display.headings.push((text, symbols)),
                "introduction" => display.introduction = Some(text),
                "view" => display.view_expanded = text == "expanded",
                flag => display.flags.push(flag.to_string()),
            }
        }
        self.prog.display = display;
    }

    /// The symbol a display setting names: a predicate or function of the vocabularies
    /// declared (not a type's own predicate, not a constructor).
    fn display_symbol(&mut self, name: &ast::Ident) -> Option<Symbol> {
        let prog = &self.prog;
        // The vocabularies' own symbols (not a type's predicate, not a constructor).
        let preds = (prog.preds.iter().enumerate())
            .filter(|(_, p)| p.type_of.is_none() && p.span.is_some())
            .map(|(k, p)| (Symbol::Pred(PredId(k as u32)), p.name.as_str()));
        let funcs = (prog.funcs.iter().enumerate())
            .filter(|(_, f)| f.constructor_of.is_none() && f.span.is_some())
            .map(|(k, f)| (Symbol::Func(FuncId(k as u32)), f.name.as_str()));
        let candidates: Vec<(Symbol, &str)> = preds.chain(funcs).collect();
        if let Some(&(symbol, _)) = candidates.iter().find(|(_, n)| *n == name.name) {
            return Some(symbol);
        }
        let names = candidates.iter().map(|&(_, n)| n);
        let nearest = nearest_name(&name.name, names);
        let mut warning = Diagnostic::warning(
            "display-unknown-symbol",
            format!(
                "`{} names no symbol of the vocabulary: the display setting leaves it out",
                name.name
            ),
            Some(name.span),
        );
        if let Some(n) = nearest {
            warning = warning.with_hint(format!("did you mean `{n}?"));
        }
        self.diags.push(warning);
        None
    }
}
