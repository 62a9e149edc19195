//! Theory printing (reference §11.2): `theory T : V {`, fully parenthesised sentences each followed
//! by `.`, definitions as `{ ... }` blocks. [`readable_formula`] prints a formula for a person
//! reading an explanation: string elements that are identifiers appear as written in the
//! structure (`Col(a)`, not `Col("a")`).

use crate::ids::Symbol;
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, SetExpr, Term, TermKind, Var};
use crate::sema::{Program, Query, TermBlock, Theory};
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp};

/// `t`, a theory as written (not made by `ground`), as IDP text.
pub fn source_theory_to_string(program: &Program, t: &Theory) -> String {
    let mut out = format!(
        "theory {} : {} {{\n",
        t.name,
        program.voc(t.vocabulary).name
    );
    for f in &t.sentences {
        out.push_str(&format!("  {}.\n", formula_to_string(program, f)));
    }
    for d in &t.definitions {
        out.push_str(&definition_to_string(program, d));
    }
    out.push_str("}\n");
    out
}

/// `query NAME : V {` with its set `{ x[T] : formula }`, and `}`.
pub fn query_to_string(program: &Program, q: &Query) -> String {
    format!(
        "query {} : {} {{\n  {{ {} : {} }}\n}}\n",
        q.name,
        program.voc(q.vocabulary).name,
        vars_to_string(program, &q.vars),
        formula_to_string(program, &q.formula)
    )
}

/// `term NAME : V {` with its term, and `}`.
pub fn term_block_to_string(program: &Program, t: &TermBlock) -> String {
    format!(
        "term {} : {} {{\n  {}\n}}\n",
        t.name,
        program.voc(t.vocabulary).name,
        term_to_string(program, &t.term)
    )
}

pub fn definition_to_string(program: &Program, d: &Definition) -> String {
    let mut out = String::from("  {\n");
    for r in &d.rules {
        out.push_str(&format!("    {}\n", rule_to_string(program, r)));
    }
    out.push_str("  }\n");
    out
}

pub fn rule_to_string(program: &Program, r: &Rule) -> String {
    let mut out = String::new();
    if !r.vars.is_empty() {
        out.push_str(&format!("! {} : ", vars_to_string(program, &r.vars)));
    }
    let args: Vec<String> = r
        .head_args
        .iter()
        .map(|t| term_to_string(program, t))
        .collect();
    match r.head {
        Symbol::Pred(p) => {
            out.push_str(&program.pred(p).name);
            if !args.is_empty() {
                out.push_str(&format!("({})", args.join(",")));
            }
        }
        Symbol::Func(f) => {
            let n = args.len().saturating_sub(1);
            out.push_str(&program.func(f).name);
            if n > 0 {
                out.push_str(&format!("({})", args[..n].join(",")));
            }
            if let Some(v) = args.last() {
                out.push_str(&format!(" = {}", v));
            }
        }
    }
    out.push_str(&format!(" <- {}.", formula_to_string(program, &r.body)));
    out
}

fn vars_to_string(program: &Program, vars: &[Var]) -> String {
    vars.iter()
        .map(|v| format!("{}[{}]", v.name, program.sort(v.sort).name))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn formula_to_string(program: &Program, f: &Formula) -> String {
    Printer {
        program,
        bare: false,
        fodot: false,
    }
    .formula(f)
}

/// `f` in IDP-Z3's FO(·) dialect, fully parenthesised.
pub fn formula_to_fodot(program: &Program, f: &Formula) -> String {
    Printer {
        program,
        bare: false,
        fodot: true,
    }
    .formula(f)
}

/// A rule in IDP-Z3's FO(·) dialect: `!x in T: p(x) <- body.`
pub fn rule_to_fodot(program: &Program, r: &Rule) -> String {
    let printer = Printer {
        program,
        bare: false,
        fodot: true,
    };
    let (vars, value, body) = head_value(r);
    let quantified = match vars.as_slice() {
        [] => String::new(),
        vars => format!("!{}: ", printer.vars(vars)),
    };
    let (name, arity) = match r.head {
        Symbol::Pred(p) => (&program.pred(p).name, r.head_args.len()),
        Symbol::Func(f) => (&program.func(f).name, r.head_args.len().saturating_sub(1)),
    };
    let mut args: Vec<String> = r.head_args.iter().map(|t| printer.term(t)).collect();
    if let (Some(v), Some(last)) = (value, args.last_mut()) {
        *last = printer.term(v);
    }
    let value = match r.head {
        Symbol::Func(_) => args.last().map(|v| format!(" = {v}")).unwrap_or_default(),
        Symbol::Pred(_) => String::new(),
    };
    format!(
        "{quantified}{name}({}){value} <- {}.",
        args[..arity].join(", "),
        printer.formula(&body)
    )
}

/// A function rule `!x v: f(x) = v <- ... & v = t & ...` as `!x: f(x) = t <- ...`: its
/// variables, the head's value when it was moved out of the body, and the body left.
fn head_value(r: &Rule) -> (Vec<Var>, Option<&Term>, Formula) {
    let whole = (r.vars.clone(), None, r.body.clone());
    let (Symbol::Func(_), Some(TermKind::Var(v))) = (r.head, r.head_args.last().map(|t| t.kind()))
    else {
        return whole;
    };
    let FormulaKind::And(parts) = r.body.kind() else {
        return whole;
    };
    let is_value = |f: &Formula| match f.kind() {
        FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a, t) => {
            matches!(a.kind(), TermKind::Var(w) if w.id == v.id)
                && !crate::sema::walk::Node::Term(t)
                    .any(&mut |n| n.var().is_some_and(|w| w.id == v.id))
        }
        _ => false,
    };
    let Some(k) = parts.iter().position(is_value) else {
        return whole;
    };
    let FormulaKind::Cmp(_, _, t) = parts[k].kind() else {
        return whole;
    };
    let rest: Vec<Formula> = parts
        .iter()
        .enumerate()
        .filter(|&(i, f)| i != k && !matches!(f.kind(), FormulaKind::Bool(true)))
        .map(|(_, f)| f.clone())
        .collect();
    let body = match <[Formula; 1]>::try_from(rest) {
        Ok([one]) => one,
        Err(many) if many.is_empty() => Formula::new(FormulaKind::Bool(true), r.body.span),
        Err(many) => Formula::new(FormulaKind::And(many), r.body.span),
    };
    let vars = r.vars.iter().filter(|w| w.id != v.id).cloned().collect();
    (vars, Some(t), body)
}

/// `f` as a person writes it: parentheses only where the connectives' binding needs them,
/// quantified variables without their types, identifier-like string elements bare.
pub fn readable_formula(program: &Program, f: &Formula) -> String {
    Printer {
        program,
        bare: true,
        fodot: false,
    }
    .readable(f)
    .0
}

pub fn term_to_string(program: &Program, t: &Term) -> String {
    Printer {
        program,
        bare: false,
        fodot: false,
    }
    .term(t)
}

/// A domain element as a person reads it: identifier-like strings without quotes.
pub fn readable_value(v: Value) -> String {
    match v.string_text() {
        Some(text) if is_identifier(&text) => text.to_string(),
        _ => v.to_string(),
    }
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Prints formulas and terms; `bare` prints identifier-like string elements without quotes.
struct Printer<'p> {
    program: &'p Program,
    bare: bool,
    /// IDP-Z3's FO(·) dialect (`p()`, `!x in T: ...`, `#{x in T: ...}`) instead of IDP3's.
    fodot: bool,
}

impl Printer<'_> {
    fn formula(&self, f: &Formula) -> String {
        let program = self.program;
        match f.kind() {
            FormulaKind::Bool(true) => "true".into(),
            FormulaKind::Bool(false) => "false".into(),
            FormulaKind::Pred(p, args) => {
                let x = program.pred(*p);
                let name = match x.type_of {
                    Some(s) => program.sort(s).name.clone(),
                    None => x.name.clone(),
                };
                if self.fodot {
                    return self.fodot_atom(&name, args);
                }
                if args.is_empty() {
                    name
                } else {
                    let a: Vec<String> = args.iter().map(|t| self.term(t)).collect();
                    format!("{}({})", name, a.join(","))
                }
            }
            FormulaKind::Cmp(op, a, b) => {
                format!("({} {} {})", self.term(a), op.symbol(), self.term(b))
            }
            FormulaKind::Not(g) => format!("~{}", self.formula(g)),
            FormulaKind::And(fs) => self.join(fs, " & ", "true"),
            FormulaKind::Or(fs) => self.join(fs, " | ", "false"),
            FormulaKind::Implies(a, b) => {
                format!("({} => {})", self.formula(a), self.formula(b))
            }
            FormulaKind::Equiv(a, b) => {
                format!("({} <=> {})", self.formula(a), self.formula(b))
            }
            FormulaKind::Forall(vs, g) | FormulaKind::Exists(vs, g) => {
                let q = if matches!(f.kind(), FormulaKind::Forall(..)) {
                    "!"
                } else {
                    "?"
                };
                if self.fodot {
                    format!("({q}{}: {})", self.vars(vs), self.formula(g))
                } else {
                    format!(
                        "({q} {} : {})",
                        vars_to_string(program, vs),
                        self.formula(g)
                    )
                }
            }
        }
    }

    /// An FO(·) atom: `p()`, `p(a, b)` (`T(x)` for a type's predicate).
    fn fodot_atom(&self, name: &str, args: &[Term]) -> String {
        let a: Vec<String> = args.iter().map(|t| self.term(t)).collect();
        format!("{name}({})", a.join(", "))
    }

    /// Quantified variables: `x in T, y in U` in FO(·), `x[T] y[U]` in IDP3.
    fn vars(&self, vars: &[Var]) -> String {
        if !self.fodot {
            return vars_to_string(self.program, vars);
        }
        vars.iter()
            .map(|v| format!("{} in {}", v.name, fodot_sort_name(self.program, v.sort)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The text of `f` and how tightly its outer connective binds (0 a quantifier, 1 `<=>`, 2
    /// `=>`, 3 `|`, 4 `&`, 5 a literal).
    fn readable(&self, f: &Formula) -> (String, u8) {
        let wrapped = |g: &Formula, below: u8| {
            let (text, level) = self.readable(g);
            if level < below {
                format!("({text})")
            } else {
                text
            }
        };
        let joined = |fs: &[Formula], sep: &str, level: u8, empty: &str| match fs {
            [] => (empty.to_string(), 5),
            [one] => self.readable(one),
            _ => {
                let parts: Vec<String> = fs.iter().map(|g| wrapped(g, level)).collect();
                (parts.join(sep), level)
            }
        };
        let names = |vs: &[Var]| {
            vs.iter()
                .map(|v| v.name.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        match f.kind() {
            FormulaKind::Cmp(op, a, b) => (
                format!("{} {} {}", self.term(a), op.symbol(), self.term(b)),
                5,
            ),
            FormulaKind::Bool(_) | FormulaKind::Pred(..) => (self.formula(f), 5),
            FormulaKind::Not(g) => (format!("~{}", wrapped(g, 5)), 5),
            FormulaKind::And(fs) => joined(fs, " & ", 4, "true"),
            FormulaKind::Or(fs) => joined(fs, " | ", 3, "false"),
            FormulaKind::Implies(a, b) => (format!("{} => {}", wrapped(a, 3), wrapped(b, 3)), 2),
            FormulaKind::Equiv(a, b) => (format!("{} <=> {}", wrapped(a, 2), wrapped(b, 2)), 1),
            FormulaKind::Forall(vs, g) => (format!("! {} : {}", names(vs), self.readable(g).0), 0),
            FormulaKind::Exists(vs, g) => (format!("? {} : {}", names(vs), self.readable(g).0), 0),
        }
    }

    fn join(&self, fs: &[Formula], sep: &str, empty: &str) -> String {
        if fs.is_empty() {
            return empty.into();
        }
        if fs.len() == 1 {
            return self.formula(&fs[0]);
        }
        let parts: Vec<String> = fs.iter().map(|f| self.formula(f)).collect();
        format!("({})", parts.join(sep))
    }

    fn term(&self, t: &Term) -> String {
        let program = self.program;
        match t.kind() {
            TermKind::Var(v) => v.name.to_string(),
            TermKind::Value(v) if self.bare => readable_value(*v),
            TermKind::Value(v) => v.to_string(),
            TermKind::Func(f, args) => {
                let name = &program.func(*f).name;
                if self.fodot && program.func(*f).constructor_of.is_none() {
                    let a: Vec<String> = args.iter().map(|x| self.term(x)).collect();
                    return format!("{}({})", name, a.join(", "));
                }
                if args.is_empty() {
                    name.clone()
                } else {
                    let a: Vec<String> = args.iter().map(|x| self.term(x)).collect();
                    format!("{}({})", name, a.join(","))
                }
            }
            TermKind::Arith(..) | TermKind::Neg(_) if self.bare => self.readable_term(t).0,
            TermKind::Arith(op, a, b) => {
                format!("({} {} {})", self.term(a), op.symbol(), self.term(b))
            }
            TermKind::Neg(a) => format!("-{}", self.term(a)),
            TermKind::Abs(a) => format!("abs({})", self.term(a)),
            TermKind::SortMin(s) => format!("MIN[:{}]", program.sort(*s).name),
            TermKind::SortMax(s) => format!("MAX[:{}]", program.sort(*s).name),
            TermKind::Succ(_, a) => format!("SUCC({})", self.term(a)),
            TermKind::Pred(_, a) => format!("PRED({})", self.term(a)),
            TermKind::Aggregate(kind, sets) => {
                let name = match kind {
                    AggKind::Card if self.fodot => "#",
                    AggKind::Card => "card",
                    AggKind::Sum => "sum",
                    AggKind::Prod => "prod",
                    AggKind::Min => "min",
                    AggKind::Max => "max",
                };
                let parts: Vec<String> = sets.iter().map(|s| self.set(*kind, s)).collect();
                if parts.len() == 1 {
                    format!("{}{}", name, parts[0])
                } else {
                    format!("{}({})", name, parts.join(", "))
                }
            }
        }
    }

    /// Arithmetic as a person writes it: the text of `t` and how tightly it binds (1 `+ -`,
    /// 2 `* / %`, 3 `^`, 4 an operand that never needs parentheses).
    fn readable_term(&self, t: &Term) -> (String, u8) {
        let wrapped = |a: &Term, below: u8| {
            let (text, level) = self.readable_term(a);
            if level < below {
                format!("({text})")
            } else {
                text
            }
        };
        match t.kind() {
            TermKind::Arith(op, a, b) => {
                let level = match op {
                    ArithOp::Add | ArithOp::Sub => 1,
                    ArithOp::Mul | ArithOp::Div | ArithOp::Mod => 2,
                    ArithOp::Pow => 3,
                };
                // `a - (b - c)`, `a / (b * c)`; `^` groups to the right.
                let (left, right) = match op {
                    ArithOp::Add | ArithOp::Mul => (level, level),
                    ArithOp::Pow => (level + 1, level),
                    _ => (level, level + 1),
                };
                let text = format!("{} {} {}", wrapped(a, left), op.symbol(), wrapped(b, right));
                (text, level)
            }
            TermKind::Neg(a) => (format!("-{}", wrapped(a, 4)), 4),
            _ => (self.term(t), 4),
        }
    }

    fn set(&self, kind: AggKind, s: &SetExpr) -> String {
        let vars = self.vars(&s.vars);
        let cond = self.formula(&s.cond);
        if self.fodot {
            // Written after `#`, `sum`, `min`... by the caller: `#{x in T: φ}`,
            // `sum{{t | x in T: φ}}`, `min{t | x in T: φ}`.
            return match kind {
                AggKind::Card => format!("{{{vars}: {cond}}}"),
                AggKind::Sum | AggKind::Prod => {
                    format!("{{{{{} | {vars}: {cond}}}}}", self.term(&s.term))
                }
                AggKind::Min | AggKind::Max => {
                    format!("{{{} | {vars}: {cond}}}", self.term(&s.term))
                }
            };
        }
        if kind == AggKind::Card {
            format!("{{ {} : {} }}", vars, cond)
        } else {
            format!("{{ {} : {} : {} }}", vars, cond, self.term(&s.term))
        }
    }
}

/// A sort's name in FO(·): `Int`, `Real` and `String` for IDP3's `int`, `float` and `string`.
pub fn fodot_sort_name(program: &Program, s: crate::ids::SortId) -> String {
    fodot_sort_text(&program.sort(s).name).to_string()
}

/// [`fodot_sort_name`] of a sort named `name`.
pub fn fodot_sort_text(name: &str) -> &str {
    match name {
        "int" | "nat" => "Int",
        "float" => "Real",
        "string" => "String",
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::SortId;
    use crate::source::Span;

    fn int(i: i64) -> Term {
        Term::new(TermKind::Value(Value::Int(i)), SortId(0), Span::default())
    }

    fn op(o: ArithOp, a: Term, b: Term) -> Term {
        Term::new(
            TermKind::Arith(o, Box::new(a), Box::new(b)),
            SortId(0),
            Span::default(),
        )
    }

    fn equal(a: Term, b: Term) -> String {
        let f = Formula::new(
            FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a, b),
            Span::default(),
        );
        readable_formula(&Program::default(), &f)
    }

    #[test]
    fn readable_arithmetic_has_only_the_parentheses_it_needs() {
        use ArithOp::*;
        let nested = op(Sub, int(1), op(Sub, int(2), int(3)));
        let product = op(Mul, op(Add, int(1), int(2)), int(3));
        assert_eq!(equal(nested, product), "1 - (2 - 3) = (1 + 2) * 3");
        let left = op(Sub, op(Sub, int(1), int(2)), op(Mul, int(3), int(4)));
        let quotient = op(Div, int(8), op(Mul, int(2), int(2)));
        assert_eq!(equal(left, quotient), "1 - 2 - 3 * 4 = 8 / (2 * 2)");
        let right_pow = op(Pow, int(2), op(Pow, int(3), int(2)));
        let left_pow = op(Pow, op(Pow, int(2), int(3)), int(2));
        assert_eq!(equal(right_pow, left_pow), "2 ^ 3 ^ 2 = (2 ^ 3) ^ 2");
        let negated = Term::new(
            TermKind::Neg(Box::new(op(Add, int(1), int(2)))),
            SortId(0),
            Span::default(),
        );
        assert_eq!(equal(negated, int(-3)), "-(1 + 2) = -3");
    }
}
