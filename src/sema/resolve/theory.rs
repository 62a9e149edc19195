//! Theories: sentences, definitions and rules, and the formulas and terms inside them, resolved
//! into the pre-typed form of `pre` (identifiers become bound variables, constants or new free
//! variables as in IDP3 §5.2; builtin functions become dedicated term kinds), then typed by
//! `sorts` and lowered by `lower`.

use std::rc::Rc;

use super::pre::{PHead, PRule, PSet, PfKind, PtKind, VarInfo, VarIx, PF, PT};
use super::{Entry, Resolver};
use crate::diagnostics::Diagnostic;
use crate::ids::{FuncId, PredId, SortId, TheoryId, VocId};
use crate::sema::ir;
use crate::sema::program::{Component, Theory, TheoryForm};
use crate::source::Span;
use crate::structure::Value;
use crate::syntax::ast;
use crate::syntax::ast::{BinConn, Quantifier, SymbolRef};

/// Resolution state of one theory component (sentence, rule, query, term).
pub(super) struct Ctx {
    pub voc: VocId,
    /// "Theory T", "Query Q", ... for `is not in the vocabulary of` messages.
    pub owner: String,
    pub vars: Vec<VarInfo>,
    scope: Vec<(Rc<str>, VarIx)>,
    /// Free variables in order of creation (they stay visible until the component ends).
    pub free: Vec<VarIx>,
    /// An error was reported while resolving (suppresses follow-up sort errors).
    pub failed: bool,
    /// Added to variable slots to make ids unique across one definition.
    pub id_base: u32,
}

impl Ctx {
    pub fn new(voc: VocId, owner: String) -> Ctx {
        Ctx {
            voc,
            owner,
            vars: Vec::new(),
            scope: Vec::new(),
            free: Vec::new(),
            failed: false,
            id_base: 0,
        }
    }

    pub fn new_var(&mut self, name: &str, sort: Option<SortId>, span: Span) -> VarIx {
        self.vars.push(VarInfo {
            name: Rc::from(name),
            sort,
            typed: sort.is_some(),
            span,
            uses: 0,
            joined: Vec::new(),
            underivable: false,
            shadow_warned: false,
        });
        self.vars.len() - 1
    }

    fn lookup(&self, name: &str) -> Option<VarIx> {
        let bound = self
            .scope
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| *v);
        bound.or_else(|| {
            self.free
                .iter()
                .copied()
                .find(|&v| &*self.vars[v].name == name)
        })
    }
}

impl Resolver<'_> {
    pub(super) fn theory(&mut self, t: &ast::Theory) {
        let Some(voc) = self.lookup_vocabulary(&t.vocabulary) else {
            return;
        };
        let id = TheoryId(self.prog.theories.len() as u32);
        self.prog.theories.push(Theory {
            form: TheoryForm::Source,
            name: t.name.name.clone(),
            vocabulary: voc,
            sentences: Vec::new(),
            definitions: Vec::new(),
            span: Some(t.span),
        });
        self.declare(&t.name, Component::Theory(id));
        let owner = format!("Theory {}", t.name.name);
        self.in_block(|r| {
            for c in &t.components {
                r.theory_component(id, voc, &owner, c);
            }
        });
    }

    fn theory_component(
        &mut self,
        id: TheoryId,
        voc: VocId,
        owner: &str,
        c: &ast::TheoryComponent,
    ) {
        match c {
            ast::TheoryComponent::Sentence(f) => {
                if let Some(f) = self.sentence(voc, owner, f) {
                    self.prog.theories[id.index()].sentences.push(f);
                }
            }
            ast::TheoryComponent::Definition(d) => {
                let def = self.definition(voc, owner, d);
                if !def.rules.is_empty() {
                    self.prog.theories[id.index()].definitions.push(def);
                }
            }
            ast::TheoryComponent::FixpointDefinition(span) => self.error(
                "unsupported",
                "LFD/GFD fixpoint definitions are not supported.",
                *span,
            ),
            ast::TheoryComponent::Using(u) => self.using(u),
        }
    }

    fn sentence(&mut self, voc: VocId, owner: &str, f: &ast::Formula) -> Option<ir::Formula> {
        let mut cx = Ctx::new(voc, owner.to_string());
        let mut pf = self.formula(&mut cx, f);
        if !cx.free.is_empty() {
            pf = PF::new(
                PfKind::Quant(Quantifier::Forall, cx.free.clone(), Box::new(pf)),
                f.span,
            );
        }
        self.derive_formula(&mut cx, &mut pf);
        self.warn_free_variables(&cx);
        self.note_implicit_vars(&cx);
        self.check_formula(&mut cx, &pf);
        (!cx.failed).then(|| self.lower_formula(&cx, &pf))
    }

    fn definition(&mut self, voc: VocId, owner: &str, d: &ast::Definition) -> ir::Definition {
        let mut rules = Vec::new();
        let mut base = 0u32;
        for r in &d.rules {
            let mut cx = Ctx::new(voc, owner.to_string());
            cx.id_base = base;
            if let Some(rule) = self.rule(&mut cx, r) {
                rules.push(rule);
            }
            base += cx.vars.len() as u32;
        }
        ir::Definition {
            rules,
            span: d.span,
        }
    }

    /// A sentence's names that are neither declared nor quantified: IDP3 reads them as
    /// variables for every value (a warning), which is rarely what a newcomer meant by `Red(c)`
    /// (an undeclared constant). The warning says how it is read, and how to declare a
    /// constant or quantify the variable instead.
    fn warn_free_variables(&mut self, cx: &Ctx) {
        let Some(&first) = cx.free.first() else {
            return;
        };
        let names: Vec<&str> = cx.free.iter().map(|&v| &*cx.vars[v].name).collect();
        let listed = match names.as_slice() {
            [one] => one.to_string(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
            [] => unreachable!("not empty"),
        };
        let (verb, pronoun, kind) = if names.len() == 1 {
            ("is", "it", "a variable")
        } else {
            ("are", "they", "variables")
        };
        let message = format!(
            "{listed} {verb} not declared, so {pronoun} {verb} read as {kind}: the sentence \
             says this for every {listed} (as ! {} : ...).",
            names.join(" ")
        );
        let typed: Vec<String> = cx
            .free
            .iter()
            .map(|&v| {
                let var = &cx.vars[v];
                match var.sort {
                    Some(sort) => format!("{}[{}]", var.name, self.prog.sort(sort).name),
                    None => var.name.to_string(),
                }
            })
            .collect();
        let declared: Vec<String> = cx
            .free
            .iter()
            .map(|&v| {
                let var = &cx.vars[v];
                let sort = var
                    .sort
                    .map_or("T".to_string(), |s| self.prog.sort(s).name.clone());
                format!("{} : {sort}", var.name)
            })
            .collect();
        let hint = format!(
            "to mean one element, declare a constant in the vocabulary ({}) and give its value \
             in the structure; to mean every value, quantify: ! {} : ...",
            declared.join(", "),
            typed.join(" ")
        );
        let at = cx.vars[first].span;
        let spans = cx.free.iter().map(|&v| cx.vars[v].span).collect();
        self.free_variable_warnings.push((at, spans));
        self.diags
            .push(Diagnostic::warning("free-variable", message, Some(at)).with_hint(hint));
    }

    /// Records the variables of `cx` that nobody quantified (see `warn_element_variables`).
    fn note_implicit_vars(&mut self, cx: &Ctx) {
        for &v in &cx.free {
            let var = &cx.vars[v];
            if let Some(sort) = var.sort {
                self.implicit_vars.push((var.name.clone(), sort, var.span));
            }
        }
    }

    fn rule(&mut self, cx: &mut Ctx, r: &ast::Rule) -> Option<ir::Rule> {
        let qv = self.bind_vars(cx, &r.vars);
        let (head, head_args, overloaded_head) = self.rule_head(cx, &r.head);
        let head_at = match &r.head {
            ast::RuleHead::Predicate { symbol, .. } | ast::RuleHead::Function { symbol, .. } => {
                Some(name_span(symbol))
            }
        };
        let body = match &r.body {
            Some(b) => self.formula(cx, b),
            None => PF::new(PfKind::Bool(true), r.span),
        };
        cx.scope.truncate(cx.scope.len() - qv.len());
        let mut in_head = Vec::new();
        for t in &head_args {
            collect_vars_term(t, &mut in_head);
        }
        let (mut hv, mut bv) = (Vec::new(), Vec::new());
        for v in qv.iter().chain(cx.free.iter()).copied() {
            if in_head.contains(&v) {
                hv.push(v);
            } else {
                bv.push(v);
            }
        }
        for &v in &qv {
            if cx.vars[v].uses == 0 {
                self.warning(
                    "unused-variable",
                    format!("Quantified variable {} is unused.", cx.vars[v].name),
                    cx.vars[v].span,
                );
            }
        }
        let mut rule = PRule {
            head_vars: hv,
            body_vars: bv,
            head,
            head_at,
            head_args,
            body,
            span: r.span,
            overloaded_head,
        };
        self.derive_rule(cx, &mut rule);
        self.note_implicit_vars(cx);
        self.check_rule(cx, &rule);
        if cx.failed {
            return None;
        }
        self.normalize_head(cx, &mut rule);
        self.lower_rule(cx, &rule)
    }

    fn rule_head(&mut self, cx: &mut Ctx, h: &ast::RuleHead) -> (PHead, Vec<PT>, bool) {
        match h {
            ast::RuleHead::Predicate { symbol, args } => {
                let cands = self.pred_candidates(cx, symbol, args.len());
                let args: Vec<PT> = args.iter().map(|a| self.term(cx, a)).collect();
                let overloaded = cands.as_ref().is_some_and(|c| c.len() > 1);
                (
                    cands.map(PHead::Pred).unwrap_or(PHead::Error),
                    args,
                    overloaded,
                )
            }
            ast::RuleHead::Function {
                symbol,
                args,
                value,
            } => {
                let is_var = symbol.name.is_simple() && cx.lookup(symbol.name.name()).is_some();
                let cands = if is_var {
                    None
                } else {
                    self.func_candidates_quiet(cx, symbol, args.len())
                };
                let Some(cands) = cands else {
                    let msg = "Expected a name of a function, instead of a predicate name.";
                    let name = symbol.name.name();
                    let predicate = self
                        .lookup_entries(cx.voc, &symbol.name)
                        .into_iter()
                        .any(|e| matches!(e, Entry::Pred(p) if self.prog.pred(p).args.len() == args.len()));
                    let hint = if predicate {
                        format!(
                            "{name} is a predicate: a rule defines it with `<-`, not `=` \
                             (`{name}(...) <- ...`)"
                        )
                    } else {
                        "a function definition needs the function on the left: `F(x) = t <- ...`"
                            .to_string()
                    };
                    self.error_hint("invalid-rule-head", msg, symbol.span, Some(hint));
                    cx.failed = true;
                    return (PHead::Error, Vec::new(), false);
                };
                let mut targs: Vec<PT> = args.iter().map(|a| self.term(cx, a)).collect();
                targs.push(self.term(cx, value));
                let overloaded = cands.len() > 1;
                (PHead::Func(cands), targs, overloaded)
            }
        }
    }

    // -- variables -----------------------------------------------------------------------------

    pub(super) fn bind_vars(&mut self, cx: &mut Ctx, decls: &[ast::VarDecl]) -> Vec<VarIx> {
        let mut out: Vec<VarIx> = Vec::new();
        let mut skip = false;
        for (k, d) in decls.iter().enumerate() {
            if std::mem::take(&mut skip) {
                continue;
            }
            // IDP-Z3's `! x in T:` reads here as three variables x, in and T.
            if self.idp_z3_typing(cx, decls, k, &out) {
                skip = true;
                continue;
            }
            if out.iter().any(|&v| *cx.vars[v].name == *d.name.name) {
                let msg = format!(
                    "Variable {} is already declared in this scope.",
                    d.name.name
                );
                self.error("duplicate-variable", msg, d.name.span);
                cx.failed = true;
                continue;
            }
            let sort = match &d.sort {
                Some(p) => {
                    let s = self.lookup_sort(cx.voc, p);
                    if s.is_none() {
                        cx.failed = true;
                    }
                    s
                }
                None => None,
            };
            let v = cx.new_var(&d.name.name, sort, d.name.span);
            cx.scope.push((cx.vars[v].name.clone(), v));
            out.push(v);
        }
        out
    }

    /// When `decls[k]` is an untyped variable named `in` after untyped variables and before
    /// the name of a type T or a predicate P (`! x y in T:`, IDP-Z3's notation), reports it
    /// with IDP3's way to write it and gives those variables T (or P's argument types), so
    /// that no further errors follow from the slip. Returns whether it did.
    fn idp_z3_typing(
        &mut self,
        cx: &mut Ctx,
        decls: &[ast::VarDecl],
        k: usize,
        out: &[VarIx],
    ) -> bool {
        let d = &decls[k];
        let Some(next) = decls.get(k + 1) else {
            return false;
        };
        if d.name.name != "in" || d.sort.is_some() || next.sort.is_some() {
            return false;
        }
        let untyped = out.iter().rev().take_while(|&&v| !cx.vars[v].typed).count();
        let vars = &out[out.len() - untyped..];
        if vars.is_empty() {
            return false;
        }
        let pointer = ast::Pointer {
            parts: vec![next.name.clone()],
            span: next.name.span,
        };
        let entries = self.lookup_entries(cx.voc, &pointer);
        let names: Vec<Rc<str>> = vars.iter().map(|&v| cx.vars[v].name.clone()).collect();
        let t = next.name.name.as_str();
        let (sorts, hint) = if let Some(s) = entries.iter().find_map(|e| match e {
            Entry::Sort(s) => Some(*s),
            _ => None,
        }) {
            (vec![s; vars.len()], typed_in_brackets(&names, t))
        } else if let Some(p) = entries.iter().find_map(|e| match e {
            Entry::Pred(p) if self.prog.pred(*p).args.len() == vars.len() => Some(*p),
            _ => None,
        }) {
            let sorts = self.prog.pred(p).args.clone();
            (sorts, tuples_in_parentheses(&names, t))
        } else {
            return false;
        };
        for (&v, s) in vars.iter().zip(sorts) {
            cx.vars[v].sort = Some(s);
        }
        let msg = match names.as_slice() {
            [x] => format!("unexpected 'in' after the quantified variable {x}"),
            _ => format!(
                "unexpected 'in' after the quantified variables {}",
                names.join(" ")
            ),
        };
        self.error_hint("syntax-error", msg, d.name.span, Some(hint));
        cx.failed = true;
        true
    }

    fn unbind(&mut self, cx: &mut Ctx, vars: &[VarIx]) {
        cx.scope.truncate(cx.scope.len() - vars.len());
        for &v in vars {
            if cx.vars[v].uses == 0 {
                self.warning(
                    "unused-variable",
                    format!("Quantified variable {} is unused.", cx.vars[v].name),
                    cx.vars[v].span,
                );
            }
        }
    }

    // -- formulas ------------------------------------------------------------------------------

    pub(super) fn formula(&mut self, cx: &mut Ctx, f: &ast::Formula) -> PF {
        let kind = match &f.kind {
            ast::FormulaKind::True => PfKind::Bool(true),
            ast::FormulaKind::False => PfKind::Bool(false),
            ast::FormulaKind::Atom { symbol, args } => self.atom(cx, symbol, args),
            ast::FormulaKind::Compare { terms, ops } => self.compare(cx, terms, ops, f.span),
            ast::FormulaKind::Not(g) => PfKind::Not(Box::new(self.formula(cx, g))),
            ast::FormulaKind::Binary {
                op: op @ (BinConn::And | BinConn::Or),
                ..
            } => {
                // A chain `a & b & c ...` is resolved operand by operand, without recursion
                // (generated theories have chains of many thousands of operands).
                let and = *op == BinConn::And;
                let mut operands: Vec<PF> = Vec::new();
                for g in chain_operands(f, *op) {
                    let p = self.formula(cx, g);
                    match p.kind {
                        PfKind::And(fs) if and => operands.extend(fs),
                        PfKind::Or(fs) if !and => operands.extend(fs),
                        kind => operands.push(PF::new(kind, p.span)),
                    }
                }
                if and {
                    PfKind::And(operands)
                } else {
                    PfKind::Or(operands)
                }
            }
            ast::FormulaKind::Binary { op, left, right } => {
                let l = self.formula(cx, left);
                let r = self.formula(cx, right);
                binary(*op, l, r)
            }
            ast::FormulaKind::Quant { q, vars, body } => {
                let vs = self.bind_vars(cx, vars);
                let b = self.formula(cx, body);
                self.unbind(cx, &vs);
                PfKind::Quant(*q, vs, Box::new(b))
            }
            ast::FormulaKind::Count {
                op,
                bound,
                vars,
                body,
            } => {
                let vs = self.bind_vars(cx, vars);
                let b = self.formula(cx, body);
                self.unbind(cx, &vs);
                let set = PSet {
                    vars: vs,
                    cond: b,
                    term: None,
                    span: f.span,
                };
                let count = PT::new(PtKind::Agg(ast::AggKind::Card, vec![set]), f.span);
                let n = self.int_literal(cx, *bound, f.span);
                PfKind::Cmp(*op, count, n)
            }
            ast::FormulaKind::QuantIn {
                q,
                vars,
                symbol,
                body,
            } => {
                let vs = self.bind_vars(cx, vars);
                let args: Vec<PT> = vs.iter().map(|&v| self.var_term(cx, v, f.span)).collect();
                let guard = match self.pred_candidates(cx, symbol, args.len()) {
                    Some(cands) => PF::new(
                        PfKind::Atom {
                            name: symbol.name.to_path(),
                            at: Some(name_span(symbol)),
                            cands,
                            args,
                        },
                        symbol.span,
                    ),
                    None => PF::new(PfKind::Error, symbol.span),
                };
                let b = self.formula(cx, body);
                self.unbind(cx, &vs);
                guarded(*q, vs, guard, b, f.span)
            }
            ast::FormulaKind::QuantSat {
                q,
                vars,
                cond,
                body,
            } => {
                let vs = self.bind_vars(cx, vars);
                let guard = self.formula(cx, cond);
                let b = self.formula(cx, body);
                self.unbind(cx, &vs);
                guarded(*q, vs, guard, b, f.span)
            }
        };
        PF::new(kind, f.span)
    }

    fn atom(&mut self, cx: &mut Ctx, symbol: &SymbolRef, args: &[ast::Term]) -> PfKind {
        let cands = self.pred_candidates(cx, symbol, args.len());
        let args: Vec<PT> = args.iter().map(|a| self.term(cx, a)).collect();
        match cands {
            Some(cands) => PfKind::Atom {
                name: symbol.name.to_path(),
                at: Some(name_span(symbol)),
                cands,
                args,
            },
            None => PfKind::Error,
        }
    }

    fn compare(
        &mut self,
        cx: &mut Ctx,
        terms: &[ast::Term],
        ops: &[ast::CmpOp],
        span: Span,
    ) -> PfKind {
        if let [left, right] = terms {
            if let Some(kind) = self.predicates_compared(cx, left, right, ops[0], span) {
                return kind;
            }
        }
        let ts: Vec<PT> = terms.iter().map(|t| self.term(cx, t)).collect();
        let mut parts: Vec<PF> = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            let (Some(l), Some(r)) = (ts.get(k), ts.get(k + 1)) else {
                break;
            };
            if k > 0 {
                count_uses(cx, l);
            }
            parts.push(PF::new(
                PfKind::Cmp(*op, l.clone(), r.clone()),
                l.span.to(r.span),
            ));
        }
        match parts.len() {
            0 => PfKind::Bool(true),
            1 => parts.pop().map(|p| p.kind).unwrap_or(PfKind::Error),
            _ => PfKind::And(parts),
        }
    }

    /// `Red(x) = Blue(x)`: an equality of two atoms of predicates, which compares truth values
    /// as if they were values. One error, with `<=>` as the hint, instead of one per side.
    fn predicates_compared(
        &mut self,
        cx: &mut Ctx,
        left: &ast::Term,
        right: &ast::Term,
        op: ast::CmpOp,
        span: Span,
    ) -> Option<PfKind> {
        if !matches!(op, ast::CmpOp::Eq | ast::CmpOp::Ne) {
            return None;
        }
        let a = self.predicate_atom(cx, left)?;
        let b = self.predicate_atom(cx, right)?;
        let (l, r) = (self.source_of(left.span)?, self.source_of(right.span)?);
        let what = if a == b {
            format!("{a} is a predicate")
        } else {
            format!("{a} and {b} are predicates")
        };
        let op_text = if op == ast::CmpOp::Eq { "=" } else { "~=" };
        let message = format!(
            "'{op_text}' compares values, but {what}: {l} {op_text} {r} compares truth values"
        );
        let hint = if op == ast::CmpOp::Eq {
            format!("to say that both are true or both false, write '<=>': {l} <=> {r}")
        } else {
            format!("to say that exactly one of them is true, write ~({l} <=> {r})")
        };
        // The sides are resolved for their variables' uses only; their errors say less.
        let before = self.diags.items.len();
        self.term(cx, left);
        self.term(cx, right);
        self.diags.items.truncate(before);
        self.error_hint("predicate-compared", message, span, Some(hint));
        cx.failed = true;
        Some(PfKind::Error)
    }

    /// The name of the predicate when `t` is an atom of one (a name that is no variable and
    /// is declared as a predicate of that arity but not as a function).
    fn predicate_atom(&self, cx: &Ctx, t: &ast::Term) -> Option<String> {
        let ast::TermKind::App { symbol, args } = &t.kind else {
            return None;
        };
        let n = args.as_ref().map_or(0, Vec::len);
        if n == 0 && symbol.name.is_simple() && cx.lookup(symbol.name.name()).is_some() {
            return None;
        }
        let entries = self.lookup_entries(cx.voc, &symbol.name);
        let pred = entries
            .iter()
            .any(|e| matches!(e, Entry::Pred(p) if self.prog.pred(*p).args.len() == n));
        let func = entries.iter().any(|e| matches!(e, Entry::Func(_)));
        (pred && !func).then(|| symbol.name.to_path())
    }

    /// The source text of `span`, when the sources are known.
    fn source_of(&self, span: Span) -> Option<String> {
        let text = self.sources?.text(span.file)?;
        text.get(span.start as usize..span.end as usize)
            .map(str::to_string)
    }

    // -- terms ---------------------------------------------------------------------------------

    pub(super) fn term(&mut self, cx: &mut Ctx, t: &ast::Term) -> PT {
        let kind = match &t.kind {
            ast::TermKind::Int(i) => return self.int_literal(cx, *i, t.span),
            ast::TermKind::Float(f) => PtKind::Value(Value::float(*f), self.sort_float()),
            ast::TermKind::Str(s) => PtKind::Value(Value::str(s), self.sort_string()),
            ast::TermKind::Char(c) => PtKind::Value(Value::str(&c.to_string()), self.sort_char()),
            ast::TermKind::Arith { op, left, right } => PtKind::Arith(
                *op,
                Box::new(self.term(cx, left)),
                Box::new(self.term(cx, right)),
            ),
            ast::TermKind::Neg(inner) => match &inner.kind {
                ast::TermKind::Int(i) => return self.int_literal(cx, -*i, t.span),
                ast::TermKind::Float(f) => PtKind::Value(Value::float(-*f), self.sort_float()),
                _ => PtKind::Neg(Box::new(self.term(cx, inner))),
            },
            ast::TermKind::Aggregate { kind, sets } => {
                let sets = sets.iter().map(|s| self.set_expr(cx, s)).collect();
                PtKind::Agg(*kind, sets)
            }
            ast::TermKind::App { symbol, args } => {
                self.application(cx, symbol, args.as_deref(), t.span)
            }
        };
        PT::new(kind, t.span)
    }

    fn int_literal(&mut self, cx: &mut Ctx, i: i64, span: Span) -> PT {
        if i > i32::MAX as i64 || i < i32::MIN as i64 {
            self.number_out_of_range(i, span);
            cx.failed = true;
        }
        let sort = if i >= 0 {
            self.sort_nat()
        } else {
            self.sort_int()
        };
        PT::new(PtKind::Value(Value::Int(i), sort), span)
    }

    fn set_expr(&mut self, cx: &mut Ctx, s: &ast::SetExpr) -> PSet {
        let vs = self.bind_vars(cx, &s.vars);
        let cond = self.formula(cx, &s.cond);
        let term = s.term.as_ref().map(|t| self.term(cx, t));
        self.unbind(cx, &vs);
        PSet {
            vars: vs,
            cond,
            term,
            span: s.span,
        }
    }

    pub(super) fn var_term(&mut self, cx: &mut Ctx, v: VarIx, span: Span) -> PT {
        cx.vars[v].uses += 1;
        PT::new(PtKind::Var(v), span)
    }

    fn application(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
        args: Option<&[ast::Term]>,
        span: Span,
    ) -> PtKind {
        let simple = symbol.name.is_simple();
        let name = symbol.name.name();
        let has_result = symbol.sorts.as_ref().is_some_and(|s| s.result.is_some());
        if args.is_none() && simple && !has_result {
            if let Some(v) = cx.lookup(name) {
                if !cx.vars[v].shadow_warned && self.has_constant(cx, symbol) {
                    cx.vars[v].shadow_warned = true;
                    let msg = format!("'{name}' could be a variable or a constant. It is assumed to be a variable.");
                    let bound = self.position(cx.vars[v].span);
                    let hint = format!(
                        "the variable {name} (declared at {bound}) hides the constant {name} \
                         wherever it is in scope; give the variable another name"
                    );
                    self.warning_hint("variable-or-constant", msg, symbol.span, hint);
                }
                return self.var_term(cx, v, span).kind;
            }
        }
        let n = args.map_or(0, |a| a.len());
        if let Some(k) = self.builtin_application(cx, symbol, args, span) {
            return k;
        }
        if args.is_none() && simple && !has_result && !self.has_constant(cx, symbol) {
            return self.new_free_var(cx, symbol, span);
        }
        let targs: Vec<PT> = args
            .unwrap_or(&[])
            .iter()
            .map(|a| self.term(cx, a))
            .collect();
        match self.func_candidates(cx, symbol, n) {
            Some(cands) => PtKind::Func {
                name: symbol.name.to_path(),
                at: Some(name_span(symbol)),
                cands,
                args: targs,
            },
            None => PtKind::Error,
        }
    }

    fn has_constant(&self, cx: &Ctx, symbol: &SymbolRef) -> bool {
        self.lookup_entries(cx.voc, &symbol.name)
            .into_iter()
            .any(|e| matches!(e, Entry::Func(f) if self.prog.func(f).args.is_empty() && self.in_vocabulary(cx.voc, e)))
    }

    fn new_free_var(&mut self, cx: &mut Ctx, symbol: &SymbolRef, span: Span) -> PtKind {
        let sort = match symbol.sorts.as_ref().map(|s| s.args.as_slice()) {
            Some([p]) => {
                let s = self.lookup_sort(cx.voc, p);
                if s.is_none() {
                    cx.failed = true;
                }
                s
            }
            _ => None,
        };
        let v = cx.new_var(symbol.name.name(), sort, symbol.span);
        cx.free.push(v);
        self.var_term(cx, v, span).kind
    }

    /// `+ - * / % ^ abs MIN MAX SUCC PRED` unless the vocabulary declares a function by that name.
    fn builtin_application(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
        args: Option<&[ast::Term]>,
        span: Span,
    ) -> Option<PtKind> {
        let name = symbol.name.name();
        let n = args.map_or(0, |a| a.len());
        if !symbol.name.is_simple() || !is_builtin_name(name) {
            return None;
        }
        let user = self
            .lookup_entries(cx.voc, &symbol.name)
            .into_iter()
            .any(|e| matches!(e, Entry::Func(f) if self.prog.func(f).args.len() == n));
        if user {
            return None;
        }
        let annotated = self.annotation_sort(cx, symbol);
        let mut ts: Vec<PT> = args
            .unwrap_or(&[])
            .iter()
            .map(|a| self.term(cx, a))
            .collect();
        let kind = match (name, ts.len()) {
            ("MIN" | "MAX", 0) => {
                let Some(s) = annotated else {
                    let msg =
                        format!("{name} must be disambiguated with its sort, as in {name}[:T].");
                    self.error("no-sort-derivable", msg, symbol.span);
                    cx.failed = true;
                    return Some(PtKind::Error);
                };
                if name == "MIN" {
                    PtKind::SortMin(s)
                } else {
                    PtKind::SortMax(s)
                }
            }
            ("SUCC", 1) => PtKind::Succ(annotated, Box::new(ts.remove(0))),
            ("PRED", 1) => PtKind::Pred(annotated, Box::new(ts.remove(0))),
            ("abs", 1) => PtKind::Abs(Box::new(ts.remove(0))),
            ("-", 1) => PtKind::Neg(Box::new(ts.remove(0))),
            (op, 2) if arith_op(op).is_some() => {
                let r = ts.remove(1);
                let l = ts.remove(0);
                PtKind::Arith(arith_op(op)?, Box::new(l), Box::new(r))
            }
            _ => {
                let msg = format!("Function {name}/{n} is not declared in this scope.");
                self.error("unknown-symbol", msg, symbol.span);
                cx.failed = true;
                PtKind::Error
            }
        };
        let _ = span;
        Some(kind)
    }

    /// The result sort of an annotation `[:T]` or the single sort of `[T]` / `[T:T]`.
    fn annotation_sort(&mut self, cx: &mut Ctx, symbol: &SymbolRef) -> Option<SortId> {
        let ann = symbol.sorts.as_ref()?;
        let p = ann.result.as_ref().or(ann.args.first())?;
        self.lookup_sort(cx.voc, p)
    }

    // -- symbols -------------------------------------------------------------------------------

    /// Entries of the theory's vocabulary under a name, reporting names outside it.
    fn voc_entries(&mut self, cx: &mut Ctx, symbol: &SymbolRef, what: &str) -> Vec<Entry> {
        let all = self.lookup_entries(cx.voc, &symbol.name);
        let inside: Vec<Entry> = all
            .iter()
            .copied()
            .filter(|&e| self.in_vocabulary(cx.voc, e))
            .collect();
        if inside.is_empty() && !all.is_empty() {
            let msg = format!(
                "{what} {} is not in the vocabulary of {}.",
                symbol.name.to_path(),
                cx.owner
            );
            self.error("unknown-symbol", msg, symbol.span);
            cx.failed = true;
        }
        inside
    }

    pub(super) fn pred_candidates(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
        n: usize,
    ) -> Option<Vec<PredId>> {
        let entries = self.voc_entries(cx, symbol, "Predicate");
        if cx.failed && entries.is_empty() {
            return None;
        }
        let mut cands: Vec<PredId> = entries
            .iter()
            .filter_map(|&e| match e {
                Entry::Pred(p) if self.prog.pred(p).args.len() == n => Some(p),
                Entry::Sort(s) if n == 1 => Some(self.prog.sort(s).pred),
                _ => None,
            })
            .collect();
        if let Some(ann) = self.annotation(cx, symbol) {
            if ann.1.is_some() {
                self.error(
                    "not-a-predicate",
                    "Expected a name of a predicate, instead of a function name.",
                    symbol.span,
                );
                cx.failed = true;
                return None;
            }
            cands.retain(|&p| self.prog.pred(p).args == ann.0);
        }
        if cands.is_empty() {
            let is_func = entries.iter().any(|e| matches!(e, Entry::Func(_)));
            let msg = if is_func {
                "Expected a name of a predicate, instead of a function name.".to_string()
            } else {
                format!(
                    "Predicate {}/{n} is not declared in this scope.",
                    symbol.name.to_path()
                )
            };
            let hint = if is_func {
                Some(format!(
                    "{} is a function: it stands for a value, so compare it, as in {}(..) = v",
                    symbol.name.to_path(),
                    symbol.name.to_path()
                ))
            } else {
                self.arity_hint(&entries, symbol, n).or_else(|| {
                    self.near_miss(cx.voc, symbol.name.name(), |e| {
                        matches!(e, Entry::Pred(_)) || n == 1 && matches!(e, Entry::Sort(_))
                    })
                })
            };
            self.error_hint(
                if is_func {
                    "not-a-predicate"
                } else {
                    "unknown-symbol"
                },
                msg,
                symbol.span,
                hint,
            );
            cx.failed = true;
            return None;
        }
        Some(cands)
    }

    fn func_candidates_quiet(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
        n: usize,
    ) -> Option<Vec<FuncId>> {
        let entries = self.lookup_entries(cx.voc, &symbol.name);
        let any = entries
            .iter()
            .any(|e| matches!(e, Entry::Func(f) if self.prog.func(*f).args.len() == n));
        if !any {
            return None;
        }
        self.func_candidates(cx, symbol, n)
    }

    pub(super) fn func_candidates(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
        n: usize,
    ) -> Option<Vec<FuncId>> {
        let entries = self.voc_entries(cx, symbol, "Function");
        if cx.failed && entries.is_empty() {
            return None;
        }
        let mut cands: Vec<FuncId> = entries
            .iter()
            .filter_map(|&e| match e {
                Entry::Func(f) if self.prog.func(f).args.len() == n => Some(f),
                _ => None,
            })
            .collect();
        if let Some((args, result)) = self.annotation(cx, symbol) {
            cands.retain(|&f| {
                let func = self.prog.func(f);
                (args.is_empty() && n > 0 || func.args == args)
                    && result.is_none_or(|r| func.result == r)
            });
        }
        if cands.is_empty() {
            let msg = format!(
                "Function {}/{n} is not declared in this scope.",
                symbol.name.to_path()
            );
            let is_pred = entries.iter().any(|e| matches!(e, Entry::Pred(_)));
            let is_sort = entries.iter().any(|e| matches!(e, Entry::Sort(_)));
            let hint = if is_sort && !entries.iter().any(|e| matches!(e, Entry::Func(_))) {
                Some(type_as_function_hint(&symbol.name.to_path()))
            } else if is_pred && !entries.iter().any(|e| matches!(e, Entry::Func(_))) {
                Some(format!(
                    "{} is a predicate: it is true or false, not a value",
                    symbol.name.to_path()
                ))
            } else {
                self.arity_hint(&entries, symbol, n).or_else(|| {
                    self.near_miss(cx.voc, symbol.name.name(), |e| matches!(e, Entry::Func(_)))
                })
            };
            self.error_hint("unknown-symbol", msg, symbol.span, hint);
            cx.failed = true;
            return None;
        }
        Some(cands)
    }

    /// When `symbol` is declared, but not with `n` arguments: which arities it has.
    fn arity_hint(&self, entries: &[Entry], symbol: &SymbolRef, n: usize) -> Option<String> {
        let mut arities: Vec<usize> = entries
            .iter()
            .filter_map(|&e| match e {
                Entry::Pred(p) => Some(self.prog.pred(p).args.len()),
                Entry::Func(f) => Some(self.prog.func(f).args.len()),
                Entry::Sort(_) => None,
            })
            .filter(|&a| a != n)
            .collect();
        arities.sort_unstable();
        arities.dedup();
        let shown: Vec<String> = arities.iter().map(|a| a.to_string()).collect();
        (!shown.is_empty()).then(|| {
            format!(
                "{} is declared with {} argument(s), but is used here with {n}",
                symbol.name.to_path(),
                shown.join(" or ")
            )
        })
    }

    /// The sorts of an annotation `[A,B]` / `[A,B:C]`, if one was written and all sorts exist.
    fn annotation(
        &mut self,
        cx: &mut Ctx,
        symbol: &SymbolRef,
    ) -> Option<(Vec<SortId>, Option<SortId>)> {
        let ann = symbol.sorts.as_ref()?;
        let args: Vec<Option<SortId>> = ann
            .args
            .iter()
            .map(|p| self.lookup_sort(cx.voc, p))
            .collect();
        let result = ann.result.as_ref().map(|p| self.lookup_sort(cx.voc, p));
        if args.iter().any(Option::is_none) || matches!(result, Some(None)) {
            cx.failed = true;
            return None;
        }
        Some((args.into_iter().flatten().collect(), result.flatten()))
    }
}

/// The span of a symbol's own name (`P` of `V::P[T]`).
fn name_span(symbol: &SymbolRef) -> Span {
    symbol
        .name
        .parts
        .last()
        .map_or(symbol.span, |part| part.span)
}

fn is_builtin_name(name: &str) -> bool {
    matches!(
        name,
        "MIN" | "MAX" | "SUCC" | "PRED" | "abs" | "+" | "-" | "*" | "/" | "%" | "^"
    )
}

fn arith_op(name: &str) -> Option<ast::ArithOp> {
    Some(match name {
        "+" => ast::ArithOp::Add,
        "-" => ast::ArithOp::Sub,
        "*" => ast::ArithOp::Mul,
        "/" => ast::ArithOp::Div,
        "%" => ast::ArithOp::Mod,
        "^" => ast::ArithOp::Pow,
        _ => return None,
    })
}

fn binary(op: BinConn, l: PF, r: PF) -> PfKind {
    match op {
        BinConn::And => PfKind::And(flatten(l, r, true)),
        BinConn::Or => PfKind::Or(flatten(l, r, false)),
        BinConn::Implies => PfKind::Implies(Box::new(l), Box::new(r)),
        BinConn::ImpliedBy => PfKind::Implies(Box::new(r), Box::new(l)),
        BinConn::Equiv => PfKind::Equiv(Box::new(l), Box::new(r)),
    }
}

/// The operands of a chain of `op` (`a & (b & c) & d`: a, b, c, d), left to right.
fn chain_operands(f: &ast::Formula, op: BinConn) -> Vec<&ast::Formula> {
    let mut out = Vec::new();
    let mut todo = vec![f];
    while let Some(g) = todo.pop() {
        match &g.kind {
            ast::FormulaKind::Binary { op: o, left, right } if *o == op => {
                todo.push(right);
                todo.push(left);
            }
            _ => out.push(g),
        }
    }
    out
}

fn flatten(l: PF, r: PF, and: bool) -> Vec<PF> {
    let mut out = Vec::new();
    for f in [l, r] {
        match f.kind {
            PfKind::And(fs) if and => out.extend(fs),
            PfKind::Or(fs) if !and => out.extend(fs),
            kind => out.push(PF::new(kind, f.span)),
        }
    }
    out
}

/// `! (x,y) in P : f` is `! x y : P(x,y) => f`; `?` uses `&`. Likewise for `sat`.
fn guarded(q: Quantifier, vars: Vec<VarIx>, guard: PF, body: PF, span: Span) -> PfKind {
    let inner = match q {
        Quantifier::Forall => PF::new(PfKind::Implies(Box::new(guard), Box::new(body)), span),
        Quantifier::Exists => PF::new(PfKind::And(vec![guard, body]), span),
    };
    PfKind::Quant(q, vars, Box::new(inner))
}

fn count_uses(cx: &mut Ctx, t: &PT) {
    let mut vs = Vec::new();
    collect_vars_term(t, &mut vs);
    for v in vs {
        cx.vars[v].uses += 1;
    }
}

/// The variables occurring in a term (free occurrences and bound ones alike).
pub(super) fn collect_vars_term(t: &PT, out: &mut Vec<VarIx>) {
    match &t.kind {
        PtKind::Var(v) => {
            if !out.contains(v) {
                out.push(*v)
            }
        }
        PtKind::Func { args, .. } => args.iter().for_each(|a| collect_vars_term(a, out)),
        PtKind::Arith(_, a, b) => {
            collect_vars_term(a, out);
            collect_vars_term(b, out);
        }
        PtKind::Neg(a) | PtKind::Abs(a) | PtKind::Succ(_, a) | PtKind::Pred(_, a) => {
            collect_vars_term(a, out)
        }
        PtKind::Agg(_, sets) => {
            for s in sets {
                collect_vars_formula(&s.cond, out);
                if let Some(t) = &s.term {
                    collect_vars_term(t, out);
                }
            }
        }
        PtKind::Value(..) | PtKind::SortMin(_) | PtKind::SortMax(_) | PtKind::Error => {}
    }
}

pub(super) fn collect_vars_formula(f: &PF, out: &mut Vec<VarIx>) {
    match &f.kind {
        PfKind::Atom { args, .. } => args.iter().for_each(|a| collect_vars_term(a, out)),
        PfKind::Cmp(_, a, b) => {
            collect_vars_term(a, out);
            collect_vars_term(b, out);
        }
        PfKind::Not(g) => collect_vars_formula(g, out),
        PfKind::And(fs) | PfKind::Or(fs) => fs.iter().for_each(|g| collect_vars_formula(g, out)),
        PfKind::Implies(a, b) | PfKind::Equiv(a, b) => {
            collect_vars_formula(a, out);
            collect_vars_formula(b, out);
        }
        PfKind::Quant(_, _, g) => collect_vars_formula(g, out),
        PfKind::Bool(_) | PfKind::Error => {}
    }
}

/// The hint for `! x y in T:` with T a type: IDP3 writes `! x[T] y[T]:`.
fn typed_in_brackets(names: &[Rc<str>], t: &str) -> String {
    let typed: Vec<String> = names.iter().map(|x| format!("{x}[{t}]")).collect();
    let which = if names.len() == 1 {
        "a variable"
    } else {
        "each variable"
    };
    format!(
        "IDP3 gives {which} its type in brackets: {} (`{} in {t}` is IDP-Z3's notation)",
        typed.join(" "),
        names.join(", ")
    )
}

/// The hint for `! x in P:` with P a predicate: IDP3 writes `! (x) in P:`.
fn tuples_in_parentheses(names: &[Rc<str>], p: &str) -> String {
    let vars = names.join(", ");
    format!(
        "IDP3 quantifies over the tuples of a predicate with parentheses: ({vars}) in {p} (`{vars} in {p}` is IDP-Z3's notation)"
    )
}

/// The hint for a type T used as a function `T(x)`: it is a formula, and variables get their
/// type in brackets.
fn type_as_function_hint(t: &str) -> String {
    format!(
        "{t} is a type, not a function: {t}(x) is a formula, true when x is of type {t}; give a variable its type in brackets, as in ! x[{t}]: ..."
    )
}
