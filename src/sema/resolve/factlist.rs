//! Factlists (`factlist S : V { P(a,b). Q(1..3). }`): ASP-style facts under the closed-world
//! assumption. Facts `T(a).` for a type add to the type; every predicate of the vocabulary
//! ends up two-valued (what is not listed is false).

use super::structure::Builder;
use super::{Entry, Resolver};
use crate::ids::{SortId, Symbol};
use crate::sema::index;
use crate::structure::TupleSet;
use crate::syntax::ast;

impl Resolver<'_> {
    pub(super) fn factlist(&mut self, f: &ast::Factlist) {
        let Some(voc) = self.lookup_vocabulary(&f.vocabulary) else {
            return;
        };
        let mut b = Builder::new(&f.name, voc, f.span);
        for fact in &f.facts {
            self.fact(&mut b, fact);
        }
        let st = self.finish_structure(b, true);
        self.push_structure(&f.name, st);
    }

    fn fact(&mut self, b: &mut Builder, fact: &ast::Fact) {
        let n = fact.args.len();
        let entries: Vec<Entry> = self
            .lookup_entries(b.voc, &fact.symbol)
            .into_iter()
            .filter(|&e| self.in_vocabulary(b.voc, e))
            .collect();
        let target = entries.iter().find_map(|&e| match e {
            Entry::Pred(p) if self.prog.pred(p).args.len() == n => {
                Some(Target::Sym(Symbol::Pred(p)))
            }
            Entry::Sort(s) if n == 1 => Some(Target::Sort(s)),
            Entry::Func(g)
                if self.prog.func(g).args.len() + 1 == n
                    && self.prog.func(g).constructor_of.is_none() =>
            {
                Some(Target::Sym(Symbol::Func(g)))
            }
            _ => None,
        });
        let Some(target) = target else {
            let msg = format!(
                "Predicate {}/{n} is not declared in this scope.",
                fact.symbol.to_path()
            );
            let hint = self.near_miss(b.voc, fact.symbol.name(), |e| {
                matches!(e, Entry::Pred(_) | Entry::Sort(_))
            });
            return self.error_hint("unknown-symbol", msg, fact.symbol.span, hint);
        };
        let named = match target {
            Target::Sort(s) => index::Target::Sort(s),
            Target::Sym(symbol) => index::Target::Symbol(symbol),
        };
        let at = fact
            .symbol
            .parts
            .last()
            .map_or(fact.symbol.span, |p| p.span);
        self.note(at, named, false);
        let elems: Vec<&ast::Element> = fact.args.iter().collect();
        let tuples = self.expand_tuple(b.voc, &elems);
        match target {
            Target::Sort(s) => {
                let fixed = self.prog.sort(s).fixed.is_some()
                    || self.prog.sort(s).constructed
                    || self.prog.sort(s).builtin.is_some();
                if fixed {
                    let msg = format!(
                        "Sort {} is a type with a fixed interpretation.",
                        self.prog.sort(s).name
                    );
                    return self.error("invalid-interpretation", msg, fact.symbol.span);
                }
                let given = b.given_sorts.entry(s).or_default();
                given.extend(tuples.into_iter().filter_map(|t| t.first().copied()));
                given.sort();
                given.dedup();
            }
            Target::Sym(sym) => {
                let parts = b.parts.entry(sym).or_default();
                parts.span.get_or_insert(fact.span);
                parts
                    .two
                    .get_or_insert_with(TupleSet::default)
                    .extend(tuples);
            }
        }
    }
}

enum Target {
    Sort(SortId),
    Sym(Symbol),
}
