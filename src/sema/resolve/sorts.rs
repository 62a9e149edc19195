//! Sort derivation and checking (IDP3 §5.4, `DeriveSorts` and `CheckSorts`).
//!
//! Untyped variables get the sort of the argument positions of non-builtin symbols they occur
//! in, widened to the least common ancestor when positions differ (no ancestor: error). A
//! second round also uses builtin positions: both sides of a comparison get the common sort
//! of the sides. Overloaded symbols are disambiguated by the sorts of their arguments (and,
//! for function terms, the sort expected of the result) as soon as exactly one candidate fits.
//! Both rounds repeat until nothing changes. Afterwards every argument must share an ancestor
//! with its position's sort, and arithmetic needs numbers.

use super::pre::{PHead, PRule, PfKind, PtKind, VarIx, PF, PT};
use super::theory::Ctx;
use super::Resolver;
use crate::ids::SortId;
use crate::source::Span;
use crate::syntax::ast::{AggKind, ArithOp};

const MAX_ROUNDS: usize = 64;

struct Walk {
    builtins: bool,
    changed: bool,
    /// Set while walking the sides of a comparison: like IDP3, a builtin position only gives a
    /// sort to a variable that has none yet, it never widens one derived from a symbol.
    in_builtin: bool,
}

impl Resolver<'_> {
    pub(super) fn derive_formula(&mut self, cx: &mut Ctx, f: &mut PF) {
        for builtins in [false, true] {
            for _ in 0..MAX_ROUNDS {
                let mut st = Walk {
                    builtins,
                    changed: false,
                    in_builtin: false,
                };
                self.df(cx, f, &mut st);
                if !st.changed {
                    break;
                }
            }
        }
        self.report_variable_sorts(cx);
    }

    pub(super) fn derive_rule(&mut self, cx: &mut Ctx, r: &mut PRule) {
        for builtins in [false, true] {
            for _ in 0..MAX_ROUNDS {
                let mut st = Walk {
                    builtins,
                    changed: false,
                    in_builtin: false,
                };
                self.d_head(cx, r, &mut st);
                self.df(cx, &mut r.body, &mut st);
                if !st.changed {
                    break;
                }
            }
        }
        self.report_variable_sorts(cx);
    }

    /// Derives sorts inside a term (term blocks).
    pub(super) fn derive_term(&mut self, cx: &mut Ctx, t: &mut PT) {
        for builtins in [false, true] {
            for _ in 0..MAX_ROUNDS {
                let mut st = Walk {
                    builtins,
                    changed: false,
                    in_builtin: false,
                };
                self.dt(cx, t, None, &mut st);
                if !st.changed {
                    break;
                }
            }
        }
        self.report_variable_sorts(cx);
    }

    fn d_head(&mut self, cx: &mut Ctx, r: &mut PRule, st: &mut Walk) {
        let sorts: Option<Vec<SortId>> = match &r.head {
            PHead::Pred(c) if c.len() == 1 => Some(self.prog.pred(c[0]).args.clone()),
            PHead::Func(c) if c.len() == 1 => {
                Some(self.prog.symbol_sorts(crate::ids::Symbol::Func(c[0])))
            }
            _ => None,
        };
        for (k, a) in r.head_args.iter_mut().enumerate() {
            let s = sorts.as_ref().and_then(|s| s.get(k).copied());
            self.dt(cx, a, s, st);
        }
        let known: Vec<Option<SortId>> =
            r.head_args.iter().map(|a| self.term_sort(cx, a)).collect();
        match &mut r.head {
            PHead::Pred(c) if c.len() > 1 => {
                let fit: Vec<_> = c
                    .iter()
                    .copied()
                    .filter(|&p| self.fits(&self.prog.pred(p).args, &known))
                    .collect();
                if fit.len() == 1 {
                    *c = fit;
                    st.changed = true;
                }
            }
            PHead::Func(c) if c.len() > 1 => {
                let fit: Vec<_> = c
                    .iter()
                    .copied()
                    .filter(|&f| {
                        self.fits(&self.prog.symbol_sorts(crate::ids::Symbol::Func(f)), &known)
                    })
                    .collect();
                if fit.len() == 1 {
                    *c = fit;
                    st.changed = true;
                }
            }
            _ => {}
        }
    }

    /// Whether declared sorts are compatible with the known sorts (unknown ones always fit).
    fn fits(&self, declared: &[SortId], known: &[Option<SortId>]) -> bool {
        declared
            .iter()
            .zip(known)
            .all(|(&d, k)| k.is_none_or(|k| self.lca(d, k).is_some()))
    }

    fn df(&mut self, cx: &mut Ctx, f: &mut PF, st: &mut Walk) {
        match &mut f.kind {
            PfKind::Atom { cands, args, .. } => {
                if cands.len() == 1 {
                    let sorts = self.prog.pred(cands[0]).args.clone();
                    for (a, s) in args.iter_mut().zip(sorts) {
                        self.dt(cx, a, Some(s), st);
                    }
                } else {
                    for a in args.iter_mut() {
                        self.dt(cx, a, None, st);
                    }
                    let known: Vec<Option<SortId>> =
                        args.iter().map(|a| self.term_sort(cx, a)).collect();
                    let fit: Vec<_> = cands
                        .iter()
                        .copied()
                        .filter(|&p| self.fits(&self.prog.pred(p).args, &known))
                        .collect();
                    if fit.len() == 1 && cands.len() > 1 {
                        *cands = fit;
                        st.changed = true;
                    }
                }
            }
            PfKind::Cmp(_, a, b) => {
                let common = if st.builtins {
                    self.common_sort(cx, &[&*a, &*b])
                } else {
                    None
                };
                let outer = std::mem::replace(&mut st.in_builtin, true);
                self.dt(cx, a, common, st);
                self.dt(cx, b, common, st);
                st.in_builtin = outer;
            }
            PfKind::Not(g) => self.df(cx, g, st),
            PfKind::And(fs) | PfKind::Or(fs) => fs.iter_mut().for_each(|g| self.df(cx, g, st)),
            PfKind::Implies(a, b) | PfKind::Equiv(a, b) => {
                self.df(cx, a, st);
                self.df(cx, b, st);
            }
            PfKind::Quant(_, _, g) => self.df(cx, g, st),
            PfKind::Bool(_) | PfKind::Error => {}
        }
    }

    /// The least common ancestor of the known sorts of some terms.
    fn common_sort(&self, cx: &Ctx, ts: &[&PT]) -> Option<SortId> {
        let mut acc: Option<SortId> = None;
        for t in ts {
            if let Some(s) = self.term_sort(cx, t) {
                acc = match acc {
                    None => Some(s),
                    Some(a) => Some(self.lca(a, s)?),
                };
            }
        }
        acc
    }

    fn dt(&mut self, cx: &mut Ctx, t: &mut PT, expect: Option<SortId>, st: &mut Walk) {
        let symbol_args = !matches!(t.kind, PtKind::Var(_) | PtKind::Arith(..) | PtKind::Neg(_));
        let outer = st.in_builtin;
        if symbol_args {
            st.in_builtin = false;
        }
        self.dt_kind(cx, t, expect, st);
        st.in_builtin = outer;
    }

    fn dt_kind(&mut self, cx: &mut Ctx, t: &mut PT, expect: Option<SortId>, st: &mut Walk) {
        match &mut t.kind {
            PtKind::Var(v) => {
                if let Some(s) = expect {
                    self.assert_var_sort(cx, *v, s, st);
                }
            }
            PtKind::Func { cands, args, .. } => {
                if cands.len() == 1 {
                    let sorts = self.prog.func(cands[0]).args.clone();
                    for (a, s) in args.iter_mut().zip(sorts) {
                        self.dt(cx, a, Some(s), st);
                    }
                } else {
                    for a in args.iter_mut() {
                        self.dt(cx, a, None, st);
                    }
                    let mut known: Vec<Option<SortId>> =
                        args.iter().map(|a| self.term_sort(cx, a)).collect();
                    known.push(expect);
                    let fit: Vec<_> = cands
                        .iter()
                        .copied()
                        .filter(|&f| {
                            self.fits(&self.prog.symbol_sorts(crate::ids::Symbol::Func(f)), &known)
                        })
                        .collect();
                    if fit.len() == 1 && cands.len() > 1 {
                        *cands = fit;
                        st.changed = true;
                    }
                }
            }
            PtKind::Arith(_, a, b) => {
                self.dt(cx, a, None, st);
                self.dt(cx, b, None, st);
            }
            PtKind::Neg(a) | PtKind::Abs(a) => self.dt(cx, a, None, st),
            PtKind::Succ(s, a) | PtKind::Pred(s, a) => {
                let s = s.or(expect);
                self.dt(cx, a, s, st);
            }
            PtKind::Agg(_, sets) => {
                for set in sets.iter_mut() {
                    self.df(cx, &mut set.cond, st);
                    if let Some(term) = &mut set.term {
                        self.dt(cx, term, None, st);
                    }
                }
            }
            PtKind::Value(..) | PtKind::SortMin(_) | PtKind::SortMax(_) | PtKind::Error => {}
        }
    }

    fn assert_var_sort(&mut self, cx: &mut Ctx, v: VarIx, s: SortId, st: &mut Walk) {
        let var = &cx.vars[v];
        if var.typed || var.underivable || (st.in_builtin && var.sort.is_some()) {
            return;
        }
        let new = match var.sort {
            None => Some(s),
            Some(cur) => self.lca(cur, s),
        };
        let var = &mut cx.vars[v];
        if !var.joined.contains(&s) {
            var.joined.push(s);
        }
        match new {
            None => var.underivable = true,
            Some(n) if Some(n) != var.sort => {
                var.sort = Some(n);
                st.changed = true;
            }
            Some(_) => {}
        }
    }

    fn report_variable_sorts(&mut self, cx: &mut Ctx) {
        for k in 0..cx.vars.len() {
            let var = cx.vars[k].clone();
            if var.underivable {
                let names: Vec<&str> = var
                    .joined
                    .iter()
                    .map(|&s| self.prog.sort(s).name.as_str())
                    .collect();
                let msg = format!("Could not derive the sort of variable {}.", var.name);
                let hint = format!(
                    "it occurs at positions of sorts {} which have no unique common supertype",
                    names.join(", ")
                );
                self.error_hint("no-sort-derivable", msg, var.span, Some(hint));
                cx.failed = true;
            } else if var.sort.is_none() && !cx.failed {
                let msg = format!("Could not derive the sort of variable {}.", var.name);
                let hint = format!("give its sort explicitly, as in {}[T]", var.name);
                self.error_hint("no-sort-derivable", msg, var.span, Some(hint));
                cx.failed = true;
            } else if let Some(s) = var.sort {
                if var.joined.len() > 1 && !var.joined.contains(&s) {
                    let names: Vec<&str> = var
                        .joined
                        .iter()
                        .map(|&j| self.prog.sort(j).name.as_str())
                        .collect();
                    let (last, init) = names
                        .split_last()
                        .map(|(l, i)| (*l, i.join(", ")))
                        .unwrap_or_default();
                    let msg = format!(
                        "Derived sort {} for variable {} as nearest parent of {init} and {last}.",
                        self.prog.sort(s).name,
                        var.name
                    );
                    self.warning("derived-sort", msg, var.span);
                }
            }
        }
    }

    // -- the sort of a term --------------------------------------------------------------------

    pub(super) fn term_sort(&self, cx: &Ctx, t: &PT) -> Option<SortId> {
        match &t.kind {
            PtKind::Var(v) => cx.vars[*v].sort,
            PtKind::Value(_, s) => Some(*s),
            PtKind::Func { cands, .. } => {
                let first = self.prog.func(*cands.first()?).result;
                cands
                    .iter()
                    .all(|&f| self.prog.func(f).result == first)
                    .then_some(first)
            }
            PtKind::Arith(op, a, b) => {
                let (sa, sb) = (self.term_sort(cx, a)?, self.term_sort(cx, b)?);
                Some(match op {
                    ArithOp::Div | ArithOp::Pow => self.sort_float(),
                    ArithOp::Mod => self.sort_int(),
                    _ if self.is_intlike(sa) && self.is_intlike(sb) => self.sort_int(),
                    _ => self.sort_float(),
                })
            }
            PtKind::Neg(a) | PtKind::Abs(a) => {
                let s = self.term_sort(cx, a)?;
                Some(if self.is_intlike(s) {
                    self.sort_int()
                } else {
                    self.sort_float()
                })
            }
            PtKind::SortMin(s) | PtKind::SortMax(s) => Some(*s),
            PtKind::Succ(s, a) | PtKind::Pred(s, a) => s.or_else(|| self.term_sort(cx, a)),
            PtKind::Agg(kind, sets) => {
                if *kind == AggKind::Card {
                    return Some(self.sort_int());
                }
                let all_int = sets.iter().all(|s| {
                    s.term
                        .as_ref()
                        .and_then(|t| self.term_sort(cx, t))
                        .is_none_or(|s| self.is_intlike(s))
                });
                Some(if all_int {
                    self.sort_int()
                } else {
                    self.sort_float()
                })
            }
            PtKind::Error => None,
        }
    }

    // -- checking ------------------------------------------------------------------------------

    pub(super) fn check_formula(&mut self, cx: &mut Ctx, f: &PF) {
        if cx.failed {
            return;
        }
        self.cf(cx, f);
    }

    pub(super) fn check_term(&mut self, cx: &mut Ctx, t: &PT) {
        if cx.failed {
            return;
        }
        self.ct(cx, t, None);
    }

    pub(super) fn check_rule(&mut self, cx: &mut Ctx, r: &PRule) {
        if cx.failed {
            return;
        }
        let (name, sorts) = match &r.head {
            PHead::Pred(c) if c.len() == 1 => (
                self.prog.pred(c[0]).name.clone(),
                self.prog.pred(c[0]).args.clone(),
            ),
            PHead::Func(c) if c.len() == 1 => (
                self.prog.func(c[0]).name.clone(),
                self.prog.symbol_sorts(crate::ids::Symbol::Func(c[0])),
            ),
            PHead::Pred(c) => {
                return self.ambiguous(
                    cx,
                    "predicate",
                    c.first().map(|&p| self.prog.pred(p).name.clone()),
                    r.span,
                )
            }
            PHead::Func(c) => {
                return self.ambiguous(
                    cx,
                    "function",
                    c.first().map(|&f| self.prog.func(f).name.clone()),
                    r.span,
                )
            }
            PHead::Error => return,
        };
        if r.overloaded_head
            && r.head_args
                .iter()
                .any(|a| !matches!(a.kind, PtKind::Var(_)))
        {
            return self.ambiguous(cx, "predicate", Some(name), r.span);
        }
        for (a, s) in r.head_args.iter().zip(sorts) {
            self.ct(cx, a, Some(s));
        }
        self.cf(cx, &r.body);
    }

    fn ambiguous(&mut self, cx: &mut Ctx, what: &str, name: Option<String>, span: Span) {
        let name = name.unwrap_or_default();
        let msg = format!("Could not derive the sorts of {what} {name}.");
        let hint =
            format!("disambiguate the overloaded {what} with its sorts, as in {name}[T1,T2]");
        self.error_hint("ambiguous-symbol", msg, span, Some(hint));
        cx.failed = true;
    }

    fn cf(&mut self, cx: &mut Ctx, f: &PF) {
        match &f.kind {
            PfKind::Atom {
                cands, args, name, ..
            } => {
                if cands.len() != 1 {
                    return self.ambiguous(cx, "predicate", Some(name.clone()), f.span);
                }
                let sorts = self.prog.pred(cands[0]).args.clone();
                for (a, s) in args.iter().zip(sorts) {
                    self.ct(cx, a, Some(s));
                }
            }
            PfKind::Cmp(_, a, b) => {
                self.ct(cx, a, None);
                self.ct(cx, b, None);
                if let (Some(sa), Some(sb)) = (self.term_sort(cx, a), self.term_sort(cx, b)) {
                    if self.lca(sa, sb).is_none() {
                        self.wrong_sort(cx, b, sb, sa);
                    }
                }
            }
            PfKind::Not(g) | PfKind::Quant(_, _, g) => self.cf(cx, g),
            PfKind::And(fs) | PfKind::Or(fs) => fs.iter().for_each(|g| self.cf(cx, g)),
            PfKind::Implies(a, b) | PfKind::Equiv(a, b) => {
                self.cf(cx, a);
                self.cf(cx, b);
            }
            PfKind::Bool(_) | PfKind::Error => {}
        }
    }

    /// Checks a term and, if `pos` is given, that its sort fits the position.
    fn ct(&mut self, cx: &mut Ctx, t: &PT, pos: Option<SortId>) {
        if let (Some(p), Some(s)) = (pos, self.term_sort(cx, t)) {
            if self.lca(p, s).is_none() {
                return self.wrong_sort(cx, t, s, p);
            }
        }
        match &t.kind {
            PtKind::Func {
                cands, args, name, ..
            } => {
                if cands.len() != 1 {
                    return self.ambiguous(cx, "function", Some(name.clone()), t.span);
                }
                let sorts = self.prog.func(cands[0]).args.clone();
                for (a, s) in args.iter().zip(sorts) {
                    self.ct(cx, a, Some(s));
                }
            }
            PtKind::Arith(op, a, b) => {
                self.ct(cx, a, None);
                self.ct(cx, b, None);
                let sym = op.symbol();
                self.numeric_operand(cx, a, sym, t.span);
                self.numeric_operand(cx, b, sym, t.span);
            }
            PtKind::Neg(a) => {
                self.ct(cx, a, None);
                self.numeric_operand(cx, a, "-", t.span);
            }
            PtKind::Abs(a) => {
                self.ct(cx, a, None);
                self.numeric_operand(cx, a, "abs", t.span);
            }
            PtKind::Succ(s, a) | PtKind::Pred(s, a) => {
                self.ct(cx, a, *s);
                if s.is_none() && self.term_sort(cx, a).is_none() {
                    self.error(
                        "no-sort-derivable",
                        "Could not derive the sorts of function SUCC/PRED.",
                        t.span,
                    );
                    cx.failed = true;
                }
            }
            PtKind::Agg(_, sets) => {
                for set in sets {
                    self.cf(cx, &set.cond);
                    if let Some(term) = &set.term {
                        self.ct(cx, term, None);
                        if let Some(s) = self.term_sort(cx, term) {
                            if !self.is_numeric(s) {
                                let msg = format!(
                                    "Term {} has sort {} but occurs in a position with sort int or float.",
                                    self.term_text(cx, term),
                                    self.prog.sort(s).name
                                );
                                self.error("type-mismatch", msg, term.span);
                                cx.failed = true;
                            }
                        }
                    }
                }
            }
            PtKind::Var(_)
            | PtKind::Value(..)
            | PtKind::SortMin(_)
            | PtKind::SortMax(_)
            | PtKind::Error => {}
        }
    }

    fn numeric_operand(&mut self, cx: &mut Ctx, a: &PT, sym: &str, span: Span) {
        if let Some(s) = self.term_sort(cx, a) {
            if !self.is_numeric(s) {
                let msg = format!("Could not derive the sorts of function {sym}.\nPossibly the sorts of its subterms are not subtypes of the sorts of the function's arguments? (e.g. missing isa declaration)");
                let hint = format!(
                    "{} has sort {}, which is not numeric; declare it `isa int` or `isa float`",
                    self.term_text(cx, a),
                    self.prog.sort(s).name
                );
                self.error_hint("type-mismatch", msg, span, Some(hint));
                cx.failed = true;
            }
        }
    }

    fn wrong_sort(&mut self, cx: &mut Ctx, t: &PT, has: SortId, pos: SortId) {
        let msg = format!(
            "Term {} has sort {} but occurs in a position with sort {}.",
            self.term_text(cx, t),
            self.prog.sort(has).name,
            self.prog.sort(pos).name
        );
        let hint = self.quoted_element_hint(t, has, pos);
        self.error_hint("type-mismatch", msg, t.span, hint);
        cx.failed = true;
    }

    /// For `Red("a")` over a type `Node` of elements: models print the elements of a type in
    /// quotes (`Red = { "a" }`, as IDP3 does), but in a theory a quoted text is a string. How
    /// to name the element instead.
    fn quoted_element_hint(&self, t: &PT, has: SortId, pos: SortId) -> Option<String> {
        let PtKind::Value(v, _) = &t.kind else {
            return None;
        };
        let text = v.string_text()?;
        if has != self.sort_string() || self.prog.sort(pos).builtin.is_some() {
            return None;
        }
        let sort = &self.prog.sort(pos).name;
        Some(format!(
            "models print the elements of {sort} in quotes (\"{text}\"), but in a theory \
             \"{text}\" is a string, not a {sort}; to name the element, declare a constant \
             ({} : {sort} in the vocabulary, {} = {text} in the structure) or make {sort} a \
             constructed type (type {sort} constructed from {{{text}, ...}}) and write {text}",
            super::capitalised(&text),
            super::capitalised(&text),
        ))
    }

    /// A short rendering of a term for messages.
    pub(super) fn term_text(&self, cx: &Ctx, t: &PT) -> String {
        match &t.kind {
            PtKind::Var(v) => cx.vars[*v].name.to_string(),
            PtKind::Value(v, _) => v.to_string(),
            PtKind::Func { name, args, .. } => {
                if args.is_empty() {
                    name.clone()
                } else {
                    let a: Vec<String> = args.iter().map(|a| self.term_text(cx, a)).collect();
                    format!("{name}({})", a.join(","))
                }
            }
            PtKind::Arith(op, a, b) => format!(
                "{}{}{}",
                self.term_text(cx, a),
                op.symbol(),
                self.term_text(cx, b)
            ),
            PtKind::Neg(a) => format!("-{}", self.term_text(cx, a)),
            PtKind::Abs(a) => format!("abs({})", self.term_text(cx, a)),
            PtKind::SortMin(s) => format!("MIN[:{}]", self.prog.sort(*s).name),
            PtKind::SortMax(s) => format!("MAX[:{}]", self.prog.sort(*s).name),
            PtKind::Succ(_, a) => format!("SUCC({})", self.term_text(cx, a)),
            PtKind::Pred(_, a) => format!("PRED({})", self.term_text(cx, a)),
            PtKind::Agg(..) => "aggregate".into(),
            PtKind::Error => "?".into(),
        }
    }
}
