//! Whether the rules that define a total function give it a value in every case. A function
//! that is not `partial` has a value for every argument, so rules that give `Late(j)` a value
//! only when `End(j) > Due(j)` make every model late: the definition silently becomes a
//! constraint. The check is on the rules' shapes: it speaks only when every rule is
//! `F(x̄) = t <- φ(x̄)` over the head's variables, and the bodies together are not true in
//! every case (read as propositions over their atoms and comparisons, with the order's laws).

use std::collections::HashMap;

use super::Resolver;
use crate::diagnostics::Diagnostic;
use crate::ids::Symbol;
use crate::sema::ir::{Formula, FormulaKind, Rule, Term, TermKind};
use crate::sema::program::Program;
use crate::sema::walk::free_vars;
use crate::source::{one_line, Span};
use crate::syntax::ast::CmpOp;

/// More distinct atoms than this and the cases are not tried (2^n of them).
const MOST_ATOMS: usize = 12;

impl Resolver<'_> {
    /// Warns about each total function whose definition leaves some cases without a value.
    pub(super) fn warn_partly_defined_functions(&mut self) {
        let mut found = Vec::new();
        for theory in &self.prog.theories {
            for d in &theory.definitions {
                for s in d.defined() {
                    let Symbol::Func(f) = s else { continue };
                    if self.prog.func(f).partial {
                        continue;
                    }
                    let rules: Vec<&Rule> = d.rules.iter().filter(|r| r.head == s).collect();
                    if leaves_cases_open(&self.prog, &rules) {
                        found.push((s, rules[0], condition_spans(&rules)));
                    }
                }
            }
        }
        let found: Vec<(Symbol, Span, String, Vec<Span>)> = found
            .into_iter()
            .map(|(s, rule, conditions)| (s, rule.span, self.head_text(rule), conditions))
            .collect();
        for (s, at, head, conditions) in found {
            self.warn_partly_defined(s, at, &head, &conditions);
        }
    }

    /// `Late(j)`: the head of a rule with its variables' names.
    fn head_text(&self, rule: &Rule) -> String {
        let name = self.prog.symbol_name(rule.head);
        let args = &rule.head_args[..rule.head_args.len() - 1];
        let names: Vec<String> = args
            .iter()
            .map(|a| match a.kind() {
                TermKind::Var(v) => v.name.to_string(),
                _ => "..".to_string(),
            })
            .collect();
        match names.as_slice() {
            [] => name.to_string(),
            _ => format!("{name}({})", names.join(", ")),
        }
    }

    fn warn_partly_defined(&mut self, s: Symbol, at: Span, head: &str, conditions: &[Span]) {
        let name = self.prog.symbol_name(s).to_string();
        let texts: Vec<String> = conditions
            .iter()
            .filter_map(|&c| self.prog_text(c))
            .collect();
        let when = match texts.as_slice() {
            [one] => format!("only when {one}"),
            _ => "only when one of its rules' bodies holds".to_string(),
        };
        let message = format!(
            "{name} is a total function, but its definition gives it a value {when}: every \
             model must then make that true for every argument, as a constraint would."
        );
        let example = match texts.as_slice() {
            [one] => format!("{head} = 0 <- ~({one})."),
            _ => format!("{head} = 0 <- ~(...)."),
        };
        let hint = format!(
            "add a rule for the other cases (such as `{example}`), or declare {name} partial \
             (`partial {name}(..) : ..`) if it has no value there"
        );
        self.diags.push(
            Diagnostic::warning("partly-defined-function", message, Some(at)).with_hint(hint),
        );
    }

    /// The source text of `span`, on one line.
    fn prog_text(&self, span: Span) -> Option<String> {
        Some(one_line(self.sources?.span_text(span)?))
    }
}

fn condition_spans(rules: &[&Rule]) -> Vec<Span> {
    rules.iter().map(|r| r.body.span).collect()
}

/// Whether the rules are all of the checked shape and some case gets no value from them.
fn leaves_cases_open(program: &Program, rules: &[&Rule]) -> bool {
    let Symbol::Func(f) = rules[0].head else {
        return false;
    };
    // One numbering of the atoms over every rule: equal keys (written without positions) are
    // the same atom.
    let mut atoms = Atoms::default();
    let mut bodies = Vec::new();
    for rule in rules {
        let Some((head, value)) = head_variables(rule) else {
            return false;
        };
        let reading = Reading {
            program,
            names: Names::new(program, &head, value),
            value,
        };
        bodies.push(reading.atoms_of(&rule.body, &mut atoms));
    }
    // The value's variable elsewhere than in its equation, or a comparison of variables and
    // elements only (`_v0 = N` for `Opp(N) = S.`): the cases depend on the data. A body that
    // reads the function it defines (`f(x) = 1 <- f(x) ~= 2.`) says what its models are, not
    // which cases it leaves.
    let itself = format!("{SYMBOL}f{}(", f.index());
    let data_or_itself = atoms
        .keys
        .iter()
        .any(|k| k.mentions(VALUE) || k.reads_no_symbol() || k.mentions(&itself));
    if data_or_itself || atoms.keys.len() > MOST_ATOMS {
        return false;
    }
    some_case_uncovered(&bodies, &atoms.keys)
}

/// The head's argument variables by position, and the value's variable when the value is
/// one (`F(x) = _v <- ... & _v = t`, as rules are lowered), when each argument is a distinct
/// variable and the body has no other variable of its own (an implicit `?`: whether such rules
/// cover every case depends on the data).
fn head_variables(rule: &Rule) -> Option<(Vec<u32>, Option<u32>)> {
    let (value, args) = rule.head_args.split_last()?;
    let mut head = Vec::new();
    for a in args {
        match a.kind() {
            TermKind::Var(v) if !head.contains(&v.id) => head.push(v.id),
            _ => return None,
        }
    }
    let value_var = match value.kind() {
        TermKind::Var(v) if !head.contains(&v.id) => Some(v.id),
        _ => None,
    };
    let mut own = false;
    let known = |id: u32| head.contains(&id) || value_var == Some(id);
    free_vars(value, &mut |v| own |= !known(v.id));
    free_vars(&rule.body, &mut |v| own |= !known(v.id));
    (!own).then_some((head, value_var))
}

/// The name of the value's variable in the shapes.
const VALUE: &str = "@v";

/// What starts a symbol's application in the shapes.
const SYMBOL: char = '%';

/// A body read as a proposition over numbered atoms.
#[derive(Clone, Debug)]
enum Prop {
    Const(bool),
    Atom(usize),
    Not(Box<Prop>),
    And(Vec<Prop>),
    Or(Vec<Prop>),
}

impl Prop {
    fn holds(&self, case: u32) -> bool {
        match self {
            Prop::Const(b) => *b,
            Prop::Atom(i) => case & (1 << i) != 0,
            Prop::Not(p) => !p.holds(case),
            Prop::And(ps) => ps.iter().all(|p| p.holds(case)),
            Prop::Or(ps) => ps.iter().any(|p| p.holds(case)),
        }
    }
}

/// An atom, written without positions: a predicate atom or a quantified formula as its shape,
/// `a =< b` or `a = b` over the shapes of two terms (the other comparisons are their
/// negations or turned around).
#[derive(Clone, Debug, PartialEq)]
enum AtomKey {
    Other(String),
    AtMost(String, String),
    Equal(String, String),
}

impl AtomKey {
    /// A comparison whose terms apply no function: its truth is the data's.
    fn reads_no_symbol(&self) -> bool {
        match self {
            AtomKey::Other(_) => false,
            AtomKey::AtMost(a, b) | AtomKey::Equal(a, b) => {
                !a.contains(SYMBOL) && !b.contains(SYMBOL)
            }
        }
    }

    fn mentions(&self, name: &str) -> bool {
        match self {
            AtomKey::Other(a) => a.contains(name),
            AtomKey::AtMost(a, b) | AtomKey::Equal(a, b) => a.contains(name) || b.contains(name),
        }
    }
}

#[derive(Default)]
struct Atoms {
    keys: Vec<AtomKey>,
}

impl Atoms {
    fn number(&mut self, key: AtomKey) -> usize {
        match self.keys.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                self.keys.push(key);
                self.keys.len() - 1
            }
        }
    }
}

/// How the body of one rule reads.
struct Reading<'p> {
    program: &'p Program,
    names: Names<'p>,
    value: Option<u32>,
}

impl Reading<'_> {
    fn atoms_of(&self, f: &Formula, atoms: &mut Atoms) -> Prop {
        let not = |p: Prop| Prop::Not(Box::new(p));
        match f.kind() {
            FormulaKind::Bool(b) => Prop::Const(*b),
            FormulaKind::Not(g) => not(self.atoms_of(g, atoms)),
            FormulaKind::And(gs) => Prop::And(gs.iter().map(|g| self.atoms_of(g, atoms)).collect()),
            FormulaKind::Or(gs) => Prop::Or(gs.iter().map(|g| self.atoms_of(g, atoms)).collect()),
            FormulaKind::Implies(a, b) => {
                Prop::Or(vec![not(self.atoms_of(a, atoms)), self.atoms_of(b, atoms)])
            }
            FormulaKind::Equiv(a, b) => {
                let (a, b) = (self.atoms_of(a, atoms), self.atoms_of(b, atoms));
                Prop::Or(vec![
                    Prop::And(vec![a.clone(), b.clone()]),
                    Prop::And(vec![not(a), not(b)]),
                ])
            }
            // The equation that gives the value: some value always meets it.
            FormulaKind::Cmp(CmpOp::Eq, a, b) if self.gives_value(a, b) => Prop::Const(true),
            FormulaKind::Cmp(op, a, b) => {
                let (a, b) = (self.names.term(a), self.names.term(b));
                let (key, positive) = match op {
                    CmpOp::Le => (AtomKey::AtMost(a, b), true),
                    CmpOp::Gt => (AtomKey::AtMost(a, b), false),
                    CmpOp::Ge => (AtomKey::AtMost(b, a), true),
                    CmpOp::Lt => (AtomKey::AtMost(b, a), false),
                    CmpOp::Eq | CmpOp::Ne => {
                        let (x, y) = if a <= b { (a, b) } else { (b, a) };
                        (AtomKey::Equal(x, y), *op == CmpOp::Eq)
                    }
                };
                let atom = Prop::Atom(atoms.number(key));
                if positive {
                    atom
                } else {
                    not(atom)
                }
            }
            // A type's guard, as lowering adds them (`Time(0)`).
            FormulaKind::Pred(p, _) if self.program.pred(*p).type_of.is_some() => Prop::Const(true),
            FormulaKind::Pred(..) | FormulaKind::Forall(..) | FormulaKind::Exists(..) => {
                Prop::Atom(atoms.number(AtomKey::Other(self.names.formula(f))))
            }
        }
    }

    /// Whether `a = b` is `_v = t` for the value's variable `_v`, with `t` free of it.
    fn gives_value(&self, a: &Term, b: &Term) -> bool {
        let Some(value) = self.value else {
            return false;
        };
        let is_value = |t: &Term| matches!(t.kind(), TermKind::Var(v) if v.id == value);
        let free_of_value = |t: &Term| {
            let mut seen = false;
            free_vars(t, &mut |v| seen |= v.id == value);
            !seen
        };
        (is_value(a) && free_of_value(b)) || (is_value(b) && free_of_value(a))
    }
}

/// Whether some case, consistent with the order's laws on the comparisons, makes no body true.
fn some_case_uncovered(bodies: &[Prop], keys: &[AtomKey]) -> bool {
    (0..1u32 << keys.len())
        .any(|case| ordered_consistently(case, keys) && !bodies.iter().any(|b| b.holds(case)))
}

/// The laws of a total order between the comparisons of the same two terms: `a =< b` or
/// `b =< a`; both exactly when `a = b`.
fn ordered_consistently(case: u32, keys: &[AtomKey]) -> bool {
    let truth = |key: &AtomKey| {
        keys.iter()
            .position(|k| k == key)
            .map(|i| case & (1 << i) != 0)
    };
    keys.iter().all(|k| {
        let (a, b) = match k {
            AtomKey::AtMost(a, b) | AtomKey::Equal(a, b) => (a, b),
            AtomKey::Other(_) => return true,
        };
        let le = truth(&AtomKey::AtMost(a.clone(), b.clone()));
        let ge = truth(&AtomKey::AtMost(b.clone(), a.clone()));
        let (x, y) = if a <= b { (a, b) } else { (b, a) };
        let eq = truth(&AtomKey::Equal(x.clone(), y.clone()));
        let total = !(le == Some(false) && ge == Some(false));
        let both_is_equal = match (le, ge, eq) {
            (Some(l), Some(g), Some(e)) => (l && g) == e,
            (Some(false), _, Some(true)) | (_, Some(false), Some(true)) => false,
            _ => true,
        };
        total && both_is_equal
    })
}

/// Shapes of terms and formulas without positions or node ids: the head's variables by their
/// place (`#0`), bound variables by their depth (`$1`).
struct Names<'p> {
    program: &'p Program,
    bound: HashMap<u32, String>,
}

impl<'p> Names<'p> {
    fn new(program: &'p Program, head: &[u32], value: Option<u32>) -> Names<'p> {
        let mut bound: HashMap<u32, String> = head
            .iter()
            .enumerate()
            .map(|(k, id)| (*id, format!("#{k}")))
            .collect();
        bound.extend(value.map(|id| (id, VALUE.to_string())));
        Names { program, bound }
    }

    fn binding(&self, vars: &[crate::sema::ir::Var]) -> Names<'p> {
        let mut bound = self.bound.clone();
        for v in vars {
            let depth = bound.len();
            bound.insert(v.id, format!("${depth}"));
        }
        Names {
            program: self.program,
            bound,
        }
    }

    fn var(&self, v: &crate::sema::ir::Var) -> String {
        self.bound
            .get(&v.id)
            .cloned()
            .unwrap_or_else(|| format!("?{}", v.id))
    }

    fn terms(&self, ts: &[Term]) -> String {
        let shown: Vec<String> = ts.iter().map(|t| self.term(t)).collect();
        shown.join(",")
    }

    fn term(&self, t: &Term) -> String {
        match t.kind() {
            TermKind::Var(v) => self.var(v),
            TermKind::Value(v) => format!("{v:?}"),
            // A constructed element (`N` of `Dir`) is data, not a symbol.
            TermKind::Func(f, args) if self.program.func(*f).constructor_of.is_some() => {
                format!("c{}({})", f.index(), self.terms(args))
            }
            TermKind::Func(f, args) => format!("{SYMBOL}f{}({})", f.index(), self.terms(args)),
            TermKind::Arith(op, a, b) => {
                format!("({} {op:?} {})", self.term(a), self.term(b))
            }
            TermKind::Neg(a) => format!("-({})", self.term(a)),
            TermKind::Abs(a) => format!("abs({})", self.term(a)),
            TermKind::SortMin(s) => format!("MIN{}", s.index()),
            TermKind::SortMax(s) => format!("MAX{}", s.index()),
            TermKind::Succ(s, a) => format!("SUCC{}({})", s.index(), self.term(a)),
            TermKind::Pred(s, a) => format!("PRED{}({})", s.index(), self.term(a)),
            TermKind::Aggregate(kind, sets) => {
                let shown: Vec<String> = sets
                    .iter()
                    .map(|set| {
                        let inner = self.binding(&set.vars);
                        format!("{}:{}", inner.formula(&set.cond), inner.term(&set.term))
                    })
                    .collect();
                format!("{kind:?}{{{}}}", shown.join(";"))
            }
        }
    }

    fn formula(&self, f: &Formula) -> String {
        let all = |fs: &[Formula], sep: &str| {
            let shown: Vec<String> = fs.iter().map(|g| self.formula(g)).collect();
            format!("({})", shown.join(sep))
        };
        match f.kind() {
            FormulaKind::Bool(b) => b.to_string(),
            FormulaKind::Pred(p, args) => {
                format!("{SYMBOL}p{}({})", p.index(), self.terms(args))
            }
            FormulaKind::Cmp(op, a, b) => format!("({} {op:?} {})", self.term(a), self.term(b)),
            FormulaKind::Not(g) => format!("~{}", self.formula(g)),
            FormulaKind::And(gs) => all(gs, "&"),
            FormulaKind::Or(gs) => all(gs, "|"),
            FormulaKind::Implies(a, b) => format!("({}=>{})", self.formula(a), self.formula(b)),
            FormulaKind::Equiv(a, b) => format!("({}<=>{})", self.formula(a), self.formula(b)),
            FormulaKind::Forall(vs, g) => format!("!{}", self.binding(vs).formula(g)),
            FormulaKind::Exists(vs, g) => format!("?{}", self.binding(vs).formula(g)),
        }
    }
}
