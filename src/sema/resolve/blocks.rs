//! Term blocks (`term t : V { ... }`), query blocks (`query Q : V { {x y : f} }`) and
//! procedures. Free variables are errors in terms and queries.

use super::pre::{PF, PT};
use super::theory::Ctx;
use super::Resolver;
use crate::ids::{ProcId, QueryId, TermId};
use crate::sema::program::{Component, Procedure, Query, TermBlock};
use crate::source::Span;
use crate::syntax::ast;

impl Resolver<'_> {
    pub(super) fn term_block(&mut self, t: &ast::TermBlock) {
        let Some(voc) = self.lookup_vocabulary(&t.vocabulary) else {
            return;
        };
        let mut cx = Ctx::new(voc, format!("Term {}", t.name.name));
        let mut pt: PT = self.term(&mut cx, &t.term);
        self.no_free_vars(&mut cx, t.span);
        self.derive_term(&mut cx, &mut pt);
        self.check_term(&mut cx, &pt);
        if cx.failed {
            return;
        }
        let term = self.lower_term(&cx, &pt);
        let id = TermId(self.prog.terms.len() as u32);
        self.prog.terms.push(TermBlock {
            name: t.name.name.clone(),
            vocabulary: voc,
            term,
            span: Some(t.span),
        });
        self.declare(&t.name, Component::Term(id));
    }

    pub(super) fn query(&mut self, q: &ast::Query) {
        let Some(voc) = self.lookup_vocabulary(&q.vocabulary) else {
            return;
        };
        let mut cx = Ctx::new(voc, format!("Query {}", q.name.name));
        let vars = self.bind_vars(&mut cx, &q.vars);
        let mut pf: PF = self.formula(&mut cx, &q.formula);
        self.no_free_vars(&mut cx, q.formula.span);
        self.derive_formula(&mut cx, &mut pf);
        self.check_formula(&mut cx, &pf);
        if cx.failed {
            return;
        }
        let formula = self.lower_formula(&cx, &pf);
        let vars = vars.iter().map(|&v| self.lower_var(&cx, v)).collect();
        let id = QueryId(self.prog.queries.len() as u32);
        self.prog.queries.push(Query {
            name: q.name.name.clone(),
            vocabulary: voc,
            vars,
            formula,
            span: Some(q.span),
        });
        self.declare(&q.name, Component::Query(id));
    }

    fn no_free_vars(&mut self, cx: &mut Ctx, span: Span) {
        if cx.free.is_empty() {
            return;
        }
        let names: String = cx
            .free
            .iter()
            .map(|&v| format!(" {}", cx.vars[v].name))
            .collect();
        let msg = if cx.free.len() == 1 {
            format!("Variable{names} is not quantified.")
        } else {
            format!("Variables{names} are not quantified.")
        };
        let hint = "list the variable in the query's `{ x y : ... }` or quantify it; a constant must be declared in the vocabulary";
        let at = cx.vars[cx.free[0]].span;
        self.error_hint("free-variable", msg, at, Some(hint.into()));
        let _ = span;
        cx.failed = true;
    }

    pub(super) fn procedure(&mut self, p: &ast::Procedure) {
        let id = ProcId(self.prog.procedures.len() as u32);
        self.prog.procedures.push(Procedure {
            name: p.name.name.clone(),
            params: p.params.iter().map(|i| i.name.clone()).collect(),
            body: p.body.clone(),
            file: self.file_name(p.span),
            body_line: p.body_line,
            namespace: self.ns_path(),
            span: p.span,
        });
        self.declare(&p.name, Component::Procedure(id));
    }
}
