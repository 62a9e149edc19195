//! `printasbdd`: each sentence of a theory as IDP3's `BDDPrinter` prints it — the sentence as
//! IDP3 prints a formula (`Formula::put`: every connective in parentheses, `=>` as `(~A | B)`,
//! variables with their sort `x[T]`), then its BDD made by IDP3's `FOBDDFactory` with one
//! manager for the whole theory.

use std::fmt;
use std::rc::Rc;

use super::print::Printer;
use super::{BddId, BddSort, Comparison, Manager, Sym, TermId, FALSE, TRUE};
use crate::ids::SortId;
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind, Var};
use crate::sema::{Program, Theory};
use crate::structure::Value;
use crate::syntax::ast::{ArithOp, CmpOp};

/// A part of a sentence that has no BDD here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BddError {
    /// An aggregate term (IDP3 makes an aggregate kernel; this module has none).
    Aggregate,
}

impl fmt::Display for BddError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BddError::Aggregate => write!(
                f,
                "printasbdd: a sentence with an aggregate has no BDD in this implementation"
            ),
        }
    }
}

/// What `printasbdd(T)` prints for the sentences of `theory` (definitions are left out, as in
/// IDP3, which warns about that).
pub fn print_theory(program: &Program, theory: &Theory) -> Result<String, BddError> {
    let mut manager = Manager::new(true);
    let mut printer = Printer::new();
    let mut out = String::new();
    for (i, sentence) in theory.sentences.iter().enumerate() {
        let bdd = Factory {
            program,
            m: &mut manager,
            sentence: i as u64,
        }
        .formula(sentence)?;
        out.push_str(">>> Formula\n\t");
        out.push_str(&formula_text(program, sentence, false));
        out.push_str("\n>>> is the BDD\n");
        manager.put_bdd(bdd, &mut printer);
        out.push_str(&std::mem::take(&mut printer.out));
        out.push_str("\n\n");
    }
    Ok(out)
}

/// IDP3's `FOBDDFactory` over this implementation's formulas.
struct Factory<'a> {
    program: &'a Program,
    m: &'a mut Manager,
    sentence: u64,
}

impl Factory<'_> {
    fn formula(&mut self, f: &Formula) -> Result<BddId, BddError> {
        Ok(match f.kind() {
            FormulaKind::Bool(b) => bool_bdd(*b),
            FormulaKind::Pred(p, args) => {
                let args = self.terms(args)?;
                let sym = pred_sym(self.program, *p);
                let k = self.m.atom(sym, args);
                self.m.ite(k, TRUE, FALSE)
            }
            FormulaKind::Cmp(op, a, b) => self.comparison(*op, a, b)?,
            FormulaKind::Not(g) => {
                let b = self.formula(g)?;
                self.m.negation(b)
            }
            FormulaKind::And(fs) => self.fold(fs, true)?,
            FormulaKind::Or(fs) => self.fold(fs, false)?,
            FormulaKind::Implies(a, b) => {
                let left = self.formula(a)?;
                let left = self.m.negation(left);
                let acc = self.m.disjunction(FALSE, left);
                let right = self.formula(b)?;
                self.m.disjunction(acc, right)
            }
            FormulaKind::Equiv(l, r) => {
                let (l, r) = (self.formula(l)?, self.formula(r)?);
                let both = self.m.conjunction(l, r);
                let (nl, nr) = (self.m.negation(l), self.m.negation(r));
                let none = self.m.conjunction(nl, nr);
                self.m.disjunction(both, none)
            }
            FormulaKind::Forall(vars, g) => {
                let b = self.formula(g)?;
                let vars = self.vars(vars);
                self.m.forall(&vars, b)
            }
            FormulaKind::Exists(vars, g) => {
                let b = self.formula(g)?;
                let vars = self.vars(vars);
                self.m.exists_all(&vars, b)
            }
        })
    }

    /// A conjunction (or disjunction) folded from `true` (`false`), as IDP3's `BoolForm`.
    fn fold(&mut self, fs: &[Formula], and: bool) -> Result<BddId, BddError> {
        let mut acc = bool_bdd(and);
        for f in fs {
            let b = self.formula(f)?;
            acc = if and {
                self.m.conjunction(acc, b)
            } else {
                self.m.disjunction(acc, b)
            };
        }
        Ok(acc)
    }

    /// IDP3 splits a comparison into `=`, `<` or `>`, negated for `~=`, `>=` and `=<`.
    fn comparison(&mut self, op: CmpOp, a: &Term, b: &Term) -> Result<BddId, BddError> {
        let (c, negated) = match op {
            CmpOp::Eq => (Comparison::Eq, false),
            CmpOp::Ne => (Comparison::Eq, true),
            CmpOp::Lt => (Comparison::Lt, false),
            CmpOp::Ge => (Comparison::Lt, true),
            CmpOp::Gt => (Comparison::Gt, false),
            CmpOp::Le => (Comparison::Gt, true),
        };
        let args = vec![self.term(a)?, self.term(b)?];
        let k = self.m.atom(comparison_sym(c, a.sort), args);
        Ok(if negated {
            self.m.ite(k, FALSE, TRUE)
        } else {
            self.m.ite(k, TRUE, FALSE)
        })
    }

    /// The quantified variables in IDP3's order: by name.
    fn vars(&mut self, vars: &[Var]) -> Vec<TermId> {
        let mut sorted: Vec<&Var> = vars.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        sorted.into_iter().map(|v| self.var(v)).collect()
    }

    fn var(&mut self, v: &Var) -> TermId {
        let sort = bdd_sort(self.program, v.sort);
        self.m.variable(
            (self.sentence << 32) | u64::from(v.id),
            v.name.clone(),
            sort,
        )
    }

    fn terms(&mut self, ts: &[Term]) -> Result<Vec<TermId>, BddError> {
        ts.iter().map(|t| self.term(t)).collect()
    }

    fn term(&mut self, t: &Term) -> Result<TermId, BddError> {
        let result = bdd_sort(self.program, t.sort);
        Ok(match t.kind() {
            TermKind::Var(v) => self.var(v),
            TermKind::Value(v) => {
                let sort = literal_sort(self.program, v, t.sort);
                self.m.domain(v.to_string().into(), sort)
            }
            TermKind::Func(f, args) => {
                let args = self.terms(args)?;
                let decl = self.program.func(*f);
                let sym = func_sym(&format!("f:{}", f.0), &decl.name, decl.partial, result);
                self.m.func(sym, args)
            }
            TermKind::Arith(op, a, b) => {
                let args = vec![self.term(a)?, self.term(b)?];
                let name = op.symbol();
                let partial = matches!(op, ArithOp::Div | ArithOp::Mod);
                let sym = func_sym(&format!("{name}:{}", t.sort.0), name, partial, result);
                self.m.func(sym, args)
            }
            TermKind::Neg(a) => self.builtin(t, "-", false, &[a])?,
            TermKind::Abs(a) => self.builtin(t, "abs", false, &[a])?,
            TermKind::Succ(_, a) => self.builtin(t, "SUCC", true, &[a])?,
            TermKind::Pred(_, a) => self.builtin(t, "PRED", true, &[a])?,
            TermKind::SortMin(_) => self.builtin(t, "MIN", false, &[])?,
            TermKind::SortMax(_) => self.builtin(t, "MAX", false, &[])?,
            TermKind::Aggregate(..) => return Err(BddError::Aggregate),
        })
    }

    fn builtin(
        &mut self,
        t: &Term,
        name: &str,
        partial: bool,
        args: &[&Term],
    ) -> Result<TermId, BddError> {
        let ids = args
            .iter()
            .map(|a| self.term(a))
            .collect::<Result<Vec<_>, _>>()?;
        let sort = bdd_sort(self.program, t.sort);
        let sym = func_sym(
            &format!("{name}/{}:{}", args.len(), t.sort.0),
            name,
            partial,
            sort,
        );
        Ok(self.m.func(sym, ids))
    }
}

fn bool_bdd(b: bool) -> BddId {
    if b {
        TRUE
    } else {
        FALSE
    }
}

fn bdd_sort(program: &Program, s: SortId) -> BddSort {
    let sort = program.sort(s);
    BddSort {
        key: s.0,
        name: sort.name.as_str().into(),
        builtin: sort.builtin.is_some(),
    }
}

/// IDP3 gives a number in a theory the sort `nat` (or `int` when negative), a float `float`
/// and a string `string`.
fn literal_sort(program: &Program, v: &Value, sort: SortId) -> BddSort {
    let name = match v {
        Value::Int(i) if *i >= 0 => "nat",
        Value::Int(_) => "int",
        Value::Float(_) | Value::Ratio(_) => "float",
        Value::Str(_) => "string",
        Value::Compound(_) => return bdd_sort(program, sort),
    };
    bdd_sort(program, program.builtin(name))
}

fn pred_sym(program: &Program, p: crate::ids::PredId) -> Sym {
    let decl = program.pred(p);
    let key: Rc<str> = match decl.type_of {
        Some(s) => format!("sort:{}", s.0).into(),
        None => format!("p:{}", p.0).into(),
    };
    Sym {
        key,
        name: decl.name.as_str().into(),
        comparison: None,
        partial: false,
        result: None,
    }
}

fn func_sym(key: &str, name: &str, partial: bool, result: BddSort) -> Sym {
    Sym {
        key: key.into(),
        name: name.into(),
        comparison: None,
        partial,
        result: Some(result),
    }
}

fn comparison_sym(c: Comparison, sort: SortId) -> Sym {
    let (name, tag) = match c {
        Comparison::Eq => ("=", "eq"),
        Comparison::Lt => ("<", "lt"),
        Comparison::Gt => (">", "gt"),
    };
    Sym {
        key: format!("{tag}:{}", sort.0).into(),
        name: name.into(),
        comparison: Some(c),
        partial: false,
        result: None,
    }
}

/// A formula as IDP3's `Formula::put` prints it; `negated` is the sign IDP3 keeps on the node.
pub fn formula_text(program: &Program, f: &Formula, negated: bool) -> String {
    let sign = if negated { "~" } else { "" };
    match f.kind() {
        FormulaKind::Bool(b) => (if *b != negated { "true" } else { "false" }).to_string(),
        FormulaKind::Pred(p, args) => {
            format!(
                "{sign}{}{}",
                program.pred(*p).name,
                args_text(program, args)
            )
        }
        FormulaKind::Cmp(op, a, b) => format!(
            "{sign}({} {} {})",
            term_text(program, a),
            op.symbol(),
            term_text(program, b)
        ),
        FormulaKind::Not(g) => formula_text(program, g, !negated),
        FormulaKind::And(fs) => bool_text(program, fs, true, negated),
        FormulaKind::Or(fs) => bool_text(program, fs, false, negated),
        FormulaKind::Implies(a, b) => format!(
            "{sign}({} | {})",
            formula_text(program, a, true),
            formula_text(program, b, false)
        ),
        FormulaKind::Equiv(a, b) => format!(
            "{sign}({} <=> {})",
            formula_text(program, a, false),
            formula_text(program, b, false)
        ),
        FormulaKind::Forall(vs, g) => quant_text(program, '!', vs, g, sign),
        FormulaKind::Exists(vs, g) => quant_text(program, '?', vs, g, sign),
    }
}

/// IDP3's parser nests `A & B & C` to the right: `(A & (B & C))`; an empty conjunction is
/// `true`, an empty disjunction `false`.
fn bool_text(program: &Program, fs: &[Formula], conj: bool, negated: bool) -> String {
    let sign = if negated { "~" } else { "" };
    let op = if conj { " & " } else { " | " };
    match fs {
        [] => (if conj != negated { "true" } else { "false" }).to_string(),
        [only] => formula_text(program, only, negated),
        [first, second] => format!(
            "{sign}({}{op}{})",
            formula_text(program, first, false),
            formula_text(program, second, false)
        ),
        [first, rest @ ..] => format!(
            "{sign}({}{op}{})",
            formula_text(program, first, false),
            bool_text(program, rest, conj, false)
        ),
    }
}

fn quant_text(program: &Program, q: char, vs: &[Var], body: &Formula, sign: &str) -> String {
    let mut sorted: Vec<&Var> = vs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    let vars: String = sorted
        .iter()
        .map(|v| format!(" {}", var_text(program, v)))
        .collect();
    format!("{sign}({q}{vars} : {})", formula_text(program, body, false))
}

fn var_text(program: &Program, v: &Var) -> String {
    format!("{}[{}]", v.name, program.sort(v.sort).name)
}

fn args_text(program: &Program, args: &[Term]) -> String {
    if args.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = args.iter().map(|a| term_text(program, a)).collect();
    format!("({})", parts.join(","))
}

/// A term as IDP3's `Term::put` prints it: every function, built-in ones too, in prefix form.
fn term_text(program: &Program, t: &Term) -> String {
    match t.kind() {
        TermKind::Var(v) => var_text(program, v),
        TermKind::Value(v) => v.to_string(),
        TermKind::Func(f, args) => {
            format!("{}{}", program.func(*f).name, args_text(program, args))
        }
        TermKind::Arith(op, a, b) => format!(
            "{}({},{})",
            op.symbol(),
            term_text(program, a),
            term_text(program, b)
        ),
        TermKind::Neg(a) => format!("-({})", term_text(program, a)),
        TermKind::Abs(a) => format!("abs({})", term_text(program, a)),
        TermKind::Succ(_, a) => format!("SUCC({})", term_text(program, a)),
        TermKind::Pred(_, a) => format!("PRED({})", term_text(program, a)),
        TermKind::SortMin(_) => "MIN".to_string(),
        TermKind::SortMax(_) => "MAX".to_string(),
        TermKind::Aggregate(..) => "<aggregate>".to_string(),
    }
}
