//! `tometa`: a theory as facts over the meta vocabulary. Its vocabulary's symbols are named
//! first (numbered from 1 in each call, in IDP3's order: a symbol's number is given when it is
//! first mentioned, its argument types right after it), then the sentences and definitions are walked in order; every formula, term, rule
//! and set gets the next number when it is met (its parts come after it), as IDP3's
//! `Metafier` numbers them.

use crate::ids::{SortId, Symbol, VocId};
use crate::meta::{constructor, Facts, MetaError, MetaNames, MetaSym, MAX_INDEX};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, SetExpr, Term, TermKind, Var};
use crate::sema::{Program, Theory};
use crate::structure::{Structure, Value};
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};

/// The meta structure of `theory` over the meta vocabulary `metavoc`, named `name`.
pub fn to_meta(
    program: &Program,
    theory: &Theory,
    metavoc: VocId,
    names: &mut MetaNames,
    name: &str,
) -> Result<Structure, MetaError> {
    let mut m = Metafier {
        program,
        metavoc,
        names,
        facts: Facts::default(),
        next: 0,
    };
    m.names.start();
    for s in vocabulary_symbols(program, theory.vocabulary) {
        m.add_symbol(s)?;
    }
    let mut top = Vec::new();
    for f in &theory.sentences {
        top.push(m.formula(f)?);
    }
    for d in &theory.definitions {
        top.push(m.definition(d)?);
    }
    for id in top {
        m.facts.fact("sentence", vec![id]);
    }
    m.facts.into_structure(program, metavoc, name)
}

/// The symbols of a vocabulary in IDP3's order (`Vocabulary::getNonOverloadedSymbols`): the
/// predicates by `name/arity` (byte order), types and the std vocabulary's type predicates
/// (`int/1`, ...) included, then the functions likewise, with the std vocabulary's functions
/// that are not overloaded (`%/2` on `int`, `//2` and `^/2` on `float`).
fn vocabulary_symbols(program: &Program, voc: VocId) -> Vec<MetaSym> {
    let v = program.voc(voc);
    let builtin = |name: &str| program.builtin_sorts.get(name).copied();
    let std_sorts = ["nat", "int", "float", "char", "string"]
        .into_iter()
        .filter_map(builtin);
    let mut preds: Vec<(String, MetaSym)> = v
        .sorts
        .iter()
        .copied()
        .chain(std_sorts)
        .map(|s| program.sort(s).pred)
        .chain(v.preds.iter().copied())
        .map(|p| {
            let pred = program.pred(p);
            (
                format!("{}/{}", pred.name, pred.args.len()),
                MetaSym::Pred(p),
            )
        })
        .collect();
    preds.sort_by(|a, b| a.0.cmp(&b.0));
    preds.dedup_by(|a, b| a.1 == b.1);
    let mut funcs: Vec<(String, MetaSym)> = v
        .funcs
        .iter()
        .map(|&f| {
            let func = program.func(f);
            (
                format!("{}/{}", func.name, func.args.len()),
                MetaSym::Func(f),
            )
        })
        .collect();
    let std_funcs = [
        ("%/2", ArithOp::Mod, "int"),
        ("//2", ArithOp::Div, "float"),
        ("^/2", ArithOp::Pow, "float"),
    ];
    for (key, op, sort) in std_funcs {
        if let Some(s) = builtin(sort) {
            funcs.push((key.to_string(), MetaSym::Arith(op, s)));
        }
    }
    funcs.sort_by(|a, b| a.0.cmp(&b.0));
    preds.into_iter().chain(funcs).map(|(_, s)| s).collect()
}

/// The sort of IDP3's comparison of two terms (`ComparisonPredGenerator::disambiguate`): the
/// least type that both sorts are within (`X` and `nat` under `X isa int`: `int`), else `a`.
fn common_sort(program: &Program, a: SortId, b: SortId) -> SortId {
    let mut todo = vec![a];
    let mut seen = Vec::new();
    while !todo.is_empty() {
        let mut next = Vec::new();
        for s in todo {
            if program.is_subsort(b, s) {
                return s;
            }
            if !seen.contains(&s) {
                seen.push(s);
                next.extend(program.sort(s).parents.iter().copied());
            }
        }
        todo = next;
    }
    a
}

struct Metafier<'a> {
    program: &'a Program,
    metavoc: VocId,
    names: &'a mut MetaNames,
    facts: Facts,
    next: i64,
}

impl Metafier<'_> {
    fn id(&mut self) -> Value {
        self.next += 1;
        Value::Int(self.next)
    }

    fn cons(&self, name: &str) -> Result<Value, MetaError> {
        constructor(self.program, self.metavoc, name)
    }

    /// The name of `s` as an element of `Symbol` (IDP3's `UniqueStringNames::getUnique`: the
    /// next number the first time it is asked for).
    fn unique(&mut self, s: MetaSym) -> Value {
        let v = Value::str(&self.names.name(self.program, s));
        self.facts.elem("Symbol", v);
        v
    }

    /// IDP3's `addSymbol`: the name of `s`, its arity, base name and argument types, for a
    /// function its result type, for a type its parents and constructors (each added too).
    fn add_symbol(&mut self, s: MetaSym) -> Result<Value, MetaError> {
        let program = self.program;
        let v = self.unique(s);
        let (args, result): (Vec<SortId>, Option<SortId>) = match s {
            MetaSym::Pred(p) => (program.pred(p).args.clone(), None),
            MetaSym::Func(f) => (program.func(f).args.clone(), Some(program.func(f).result)),
            MetaSym::Cmp(_, t) => (vec![t, t], None),
            MetaSym::Arith(_, r) => (vec![r, r], Some(r)),
            MetaSym::Neg(r) | MetaSym::Abs(r) => (vec![r], Some(r)),
            MetaSym::Min(r) | MetaSym::Max(r) => (Vec::new(), Some(r)),
            MetaSym::Succ(r) | MetaSym::Prev(r) => (vec![r], Some(r)),
        };
        let arity = args.len() as i64;
        if arity > MAX_INDEX + 1 {
            return Err(MetaError::TooManyArguments(crate::meta::base_name(
                program, s,
            )));
        }
        self.facts.fact("arity", vec![v, Value::Int(arity)]);
        self.facts.fact(
            "name",
            vec![v, Value::str(&crate::meta::base_name(program, s))],
        );
        for (i, &a) in args.iter().enumerate() {
            let sort = self.sort(a);
            self.facts.fact("sort", vec![v, Value::Int(i as i64), sort]);
        }
        match (s, result) {
            (_, Some(r)) => {
                self.facts.elem("Func", v);
                let partial = match s {
                    MetaSym::Func(f) => program.func(f).partial,
                    MetaSym::Succ(_) | MetaSym::Prev(_) => true,
                    _ => false,
                };
                if partial {
                    self.facts.fact("isPartial", vec![v]);
                }
                let out = self.sort(r);
                self.facts.fact("outputSort", vec![v, out]);
            }
            (MetaSym::Pred(p), None) => {
                self.facts.elem("Pred", v);
                if let Some(sort) = program.pred(p).type_of {
                    self.sort_facts(sort, v)?;
                }
            }
            (_, None) => self.facts.elem("Pred", v),
        }
        Ok(v)
    }

    /// A type's parents and constructors (each constructor added as a symbol).
    fn sort_facts(&mut self, sort: SortId, v: Value) -> Result<(), MetaError> {
        self.facts.elem("Sort", v);
        let s = self.program.sort(sort);
        for &p in &s.parents.clone() {
            let parent = self.sort(p);
            self.facts.fact("subtypeOf", vec![v, parent]);
        }
        for &f in &s.constructors.clone() {
            let c = self.unique(MetaSym::Func(f));
            self.facts.fact("constructedFrom", vec![v, c]);
            self.add_symbol(MetaSym::Func(f))?;
        }
        Ok(())
    }

    fn sort(&mut self, s: SortId) -> Value {
        self.unique(MetaSym::Pred(self.program.sort(s).pred))
    }

    fn var(&mut self, v: &Var) -> Result<Value, MetaError> {
        let name = Value::str(&format!("{}_{}", v.name, v.id));
        self.facts.elem("Var", name);
        let sort = self.sort(v.sort);
        self.facts.fact("varSort", vec![name, sort]);
        Ok(name)
    }

    fn formula(&mut self, f: &Formula) -> Result<Value, MetaError> {
        match f.kind() {
            FormulaKind::Bool(b) => self.bool_form(!*b, &[]),
            FormulaKind::Pred(p, args) => self.atom(MetaSym::Pred(*p), args),
            FormulaKind::Cmp(op, a, b) => {
                let args = [a.clone(), b.clone()];
                let sort = common_sort(self.program, a.sort, b.sort);
                let cmp = |op| MetaSym::Cmp(op, sort);
                match op {
                    CmpOp::Eq | CmpOp::Lt | CmpOp::Gt => self.atom(cmp(*op), &args),
                    CmpOp::Ne => self.negation(|m| m.atom(cmp(CmpOp::Eq), &args)),
                    CmpOp::Le => self.negation(|m| m.atom(cmp(CmpOp::Gt), &args)),
                    CmpOp::Ge => self.negation(|m| m.atom(cmp(CmpOp::Lt), &args)),
                }
            }
            FormulaKind::Not(g) => self.negation(|m| m.formula(g)),
            FormulaKind::And(fs) => self.bool_form(false, fs),
            FormulaKind::Or(fs) => self.bool_form(true, fs),
            FormulaKind::Implies(a, b) => {
                let id = self.bool_header(true)?;
                let left = self.negation(|m| m.formula(a))?;
                let right = self.formula(b)?;
                self.facts.fact("subForms", vec![id, left]);
                self.facts.fact("subForms", vec![id, right]);
                Ok(id)
            }
            FormulaKind::Equiv(a, b) => {
                let id = self.id();
                self.facts.elem("Equiv", id);
                let l = self.formula(a)?;
                self.facts.fact("left", vec![id, l]);
                let r = self.formula(b)?;
                self.facts.fact("right", vec![id, r]);
                Ok(id)
            }
            FormulaKind::Forall(vs, g) => self.quant("forall", vs, g),
            FormulaKind::Exists(vs, g) => self.quant("exists", vs, g),
        }
    }

    fn negation(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<Value, MetaError>,
    ) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("Negation", id);
        self.facts.elem("SingleSubForm", id);
        let sub = inner(self)?;
        self.facts.fact("subForm", vec![id, sub]);
        Ok(id)
    }

    fn bool_header(&mut self, disjunction: bool) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("BoolForm", id);
        let t = self.cons(if disjunction { "disj" } else { "conj" })?;
        self.facts.fact("boolType", vec![id, t]);
        Ok(id)
    }

    fn bool_form(&mut self, disjunction: bool, fs: &[Formula]) -> Result<Value, MetaError> {
        let id = self.bool_header(disjunction)?;
        for f in fs {
            let sub = self.formula(f)?;
            self.facts.fact("subForms", vec![id, sub]);
        }
        Ok(id)
    }

    fn quant(&mut self, kind: &str, vs: &[Var], f: &Formula) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("Quant", id);
        self.facts.elem("SingleSubForm", id);
        let q = self.cons(kind)?;
        self.facts.fact("quantType", vec![id, q]);
        for v in vs {
            let var = self.var(v)?;
            self.facts.fact("quantVars", vec![id, var]);
        }
        let sub = self.formula(f)?;
        self.facts.fact("subForm", vec![id, sub]);
        Ok(id)
    }

    fn atom(&mut self, s: MetaSym, args: &[Term]) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("Atom", id);
        let sym = self.add_symbol(s)?;
        self.facts.fact("aSymbol", vec![id, sym]);
        for (i, t) in args.iter().enumerate() {
            let term = self.term(t)?;
            self.facts
                .fact("aTerms", vec![id, Value::Int(i as i64), term]);
        }
        Ok(id)
    }

    fn term(&mut self, t: &Term) -> Result<Value, MetaError> {
        let id = self.id();
        let sort = self.sort(t.sort);
        self.facts.elem("Term", id);
        self.facts.fact("termSort", vec![id, sort]);
        match t.kind() {
            TermKind::Var(v) => {
                self.facts.elem("VarT", id);
                let var = self.var(v)?;
                self.facts.fact("var", vec![id, var]);
            }
            TermKind::Value(v) => {
                self.facts.elem("DomT", id);
                self.facts.elem("Dom", *v);
                self.facts.fact("dom", vec![id, *v]);
            }
            TermKind::Func(f, args) => self.func_term(id, MetaSym::Func(*f), args)?,
            TermKind::Arith(op, a, b) => self.func_term(
                id,
                MetaSym::Arith(*op, t.sort),
                &[(**a).clone(), (**b).clone()],
            )?,
            TermKind::Neg(a) => self.func_term(id, MetaSym::Neg(t.sort), &[(**a).clone()])?,
            TermKind::Abs(a) => self.func_term(id, MetaSym::Abs(t.sort), &[(**a).clone()])?,
            TermKind::SortMin(s) => self.func_term(id, MetaSym::Min(*s), &[])?,
            TermKind::SortMax(s) => self.func_term(id, MetaSym::Max(*s), &[])?,
            TermKind::Succ(s, a) => self.func_term(id, MetaSym::Succ(*s), &[(**a).clone()])?,
            TermKind::Pred(s, a) => self.func_term(id, MetaSym::Prev(*s), &[(**a).clone()])?,
            TermKind::Aggregate(kind, sets) => self.aggregate(id, *kind, sets)?,
        }
        Ok(id)
    }

    fn func_term(&mut self, id: Value, s: MetaSym, args: &[Term]) -> Result<(), MetaError> {
        self.facts.elem("FuncT", id);
        let sym = self.add_symbol(s)?;
        self.facts.fact("fSymbol", vec![id, sym]);
        for (i, a) in args.iter().enumerate() {
            let sub = self.term(a)?;
            self.facts
                .fact("fTerms", vec![id, Value::Int(i as i64), sub]);
        }
        Ok(())
    }

    fn aggregate(&mut self, id: Value, kind: AggKind, sets: &[SetExpr]) -> Result<(), MetaError> {
        self.facts.elem("AggT", id);
        let f = self.cons(match kind {
            AggKind::Card => "card",
            AggKind::Sum => "sum",
            AggKind::Prod => "prod",
            AggKind::Min => "min",
            AggKind::Max => "max",
        })?;
        self.facts.fact("aggFunc", vec![id, f]);
        let set = self.id();
        self.facts.elem("EnumSet", set);
        self.facts.fact("aggSet", vec![id, set]);
        for s in sets {
            let q = self.id();
            self.facts.elem("QuantSet", q);
            self.facts.fact("setOf", vec![q, set]);
            let term = self.term(&s.term)?;
            self.facts.fact("setTerm", vec![q, term]);
            let cond = self.formula(&s.cond)?;
            self.facts.fact("setForm", vec![q, cond]);
            for v in &s.vars {
                let var = self.var(v)?;
                self.facts.fact("setVars", vec![q, var]);
            }
        }
        Ok(())
    }

    fn definition(&mut self, d: &Definition) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("Definition", id);
        for r in &d.rules {
            let rule = self.rule(r)?;
            self.facts.fact("ruleOf", vec![rule, id]);
        }
        Ok(id)
    }

    fn rule(&mut self, r: &Rule) -> Result<Value, MetaError> {
        let id = self.id();
        self.facts.elem("Rule", id);
        for v in &r.vars {
            let var = self.var(v)?;
            self.facts.fact("ruleVars", vec![id, var]);
        }
        let head = match r.head {
            Symbol::Pred(p) => MetaSym::Pred(p),
            Symbol::Func(f) => MetaSym::Func(f),
        };
        let h = self.atom(head, &r.head_args)?;
        self.facts.fact("head", vec![id, h]);
        let b = self.formula(&r.body)?;
        self.facts.fact("body", vec![id, b]);
        Ok(id)
    }
}
