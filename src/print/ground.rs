//! A ground theory (made by `ground(T, S)`) printed as IDP3's `IDPPrinter` prints a
//! `GroundTheory` (IDP3's `src/printers/idpprinter.hpp`, `GroundTheory.cpp`): no `theory`
//! header; clauses `P[D](a) | ~F[D,D](a) = b.` over atoms written with their symbol's sorts;
//! a subformula inside a clause or a rule body becomes a Tseitin atom `tseitin_N`, `N` its atom
//! number; ground rules `P[D](a) <- Q[D](a) & tseitin_7.`.
//!
//! As IDP3's grounding: atom 1 is the true literal, its unit clause `tseitin_1.` first; atoms are
//! numbered as they are first met, a Tseitin after the atoms of its subformula. A clause is
//! followed by the clauses that give its Tseitins their meaning, breadth first: `ts | ~a | ~b.`
//! `~ts | a.` `~ts | b.` for `ts <=> a & b` (IDP3's `GroundEquivalence::getClauses`), only
//! `~ts | a.` `~ts | b.` when the grounding need not keep the number of models (the Tseitin
//! implies its subformula). Inside a definition a Tseitin is defined by a rule of that
//! definition. [`Layout::Stored`] (`print(ground(T, S))`) prints all clauses, then each
//! definition in braces, its rules by head atom number; [`Layout::Streamed`] (`printgrounding`)
//! prints as IDP3's `PrintGroundPolicy` does, each rule after the Tseitin rules it uses and
//! without braces.
//!
//! What cannot be IDP3's: atom numbers follow this grounding's order, not IDP3's grounder's;
//! aggregates are already written out as formulas (IDP3 prints `set_N = [ ... ]` and
//! `tseitin_N <=> 2 =< card(set_N).`); IDP3's function constraints (one value per argument)
//! are not printed (the theory's functions carry them); a definition that the structure's
//! input fixes is printed as its true atoms (`P[D](a) <- true.`), where IDP3 evaluates it away.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::ids::Symbol;
use crate::print::theory::{formula_to_string, term_to_string};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind};
use crate::sema::{Program, Theory};
use crate::syntax::ast::CmpOp;

/// Where a ground theory's parts go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// As `print(ground(T, S))`: clauses, then definitions in braces.
    Stored,
    /// As `printgrounding(T, S)`: as they are made, rules without braces.
    Streamed,
}

/// `theory` (variable-free) as IDP3 prints a ground theory.
pub fn ground_theory_to_string(
    program: &Program,
    theory: &Theory,
    model_equivalent: bool,
    layout: Layout,
) -> String {
    let mut p = GroundPrinter::new(program, model_equivalent);
    let true_atom = p.new_atom();
    p.out.push_str(&p.clause(&[true_atom]));
    for f in &theory.sentences {
        p.sentence(f);
    }
    for d in &theory.definitions {
        p.definition(d, layout);
    }
    p.out
}

/// A literal: an atom number, negative when negated.
type Lit = i64;

/// A formula's value when it is not a literal.
enum Enc {
    Const(bool),
    Lit(Lit),
}

/// A Tseitin's subformula: the conjunction or disjunction of `body`.
struct Tseitin {
    conj: bool,
    body: Vec<Lit>,
}

struct GroundPrinter<'p> {
    program: &'p Program,
    model_equivalent: bool,
    /// The number of each input atom, by its text.
    numbers: HashMap<String, Lit>,
    /// The text of each input atom, by its number.
    names: HashMap<Lit, String>,
    /// The subformula of each Tseitin.
    tseitins: HashMap<Lit, Tseitin>,
    last: Lit,
    out: String,
}

impl<'p> GroundPrinter<'p> {
    fn new(program: &'p Program, model_equivalent: bool) -> GroundPrinter<'p> {
        GroundPrinter {
            program,
            model_equivalent,
            numbers: HashMap::default(),
            names: HashMap::default(),
            tseitins: HashMap::default(),
            last: 0,
            out: String::new(),
        }
    }

    fn new_atom(&mut self) -> Lit {
        self.last += 1;
        self.last
    }

    /// One sentence: its conjuncts each a clause, followed by its Tseitins' clauses.
    fn sentence(&mut self, f: &Formula) {
        match f.kind() {
            FormulaKind::And(parts) => parts.iter().for_each(|g| self.sentence(g)),
            FormulaKind::Or(parts) => {
                let mut clause = Vec::with_capacity(parts.len());
                for g in parts {
                    match self.encode(g) {
                        Enc::Const(true) => return,
                        Enc::Const(false) => {}
                        Enc::Lit(l) => clause.push(l),
                    }
                }
                self.emit_clause(&clause);
            }
            _ => match self.encode(f) {
                Enc::Const(true) => {}
                Enc::Const(false) => self.emit_clause(&[]),
                Enc::Lit(l) => self.emit_clause(&[l]),
            },
        }
    }

    /// A clause at the root, then the clauses of the Tseitins it uses, breadth first.
    fn emit_clause(&mut self, clause: &[Lit]) {
        let text = self.clause(clause);
        self.out.push_str(&text);
        let mut queue: VecDeque<Lit> = clause.iter().map(|l| l.abs()).collect();
        while let Some(ts) = queue.pop_front() {
            let Some(t) = self.tseitins.get(&ts) else {
                continue;
            };
            let (conj, body) = (t.conj, t.body.clone());
            for c in self.meaning(ts, conj, &body) {
                let text = self.clause(&c);
                self.out.push_str(&text);
            }
            queue.extend(body.iter().map(|l| l.abs()));
        }
    }

    /// The clauses of `ts <=> conj/disj(body)` (IDP3's `GroundEquivalence::getClauses`), or of
    /// `ts => ...` when the grounding need not keep the number of models.
    fn meaning(&self, ts: Lit, conj: bool, body: &[Lit]) -> Vec<Vec<Lit>> {
        let sign = if conj { 1 } else { -1 };
        let head = sign * ts;
        let mut first = vec![head];
        first.extend(body.iter().map(|&b| -(sign * b)));
        let mut rest: Vec<Vec<Lit>> = body.iter().map(|&b| vec![-head, sign * b]).collect();
        if self.model_equivalent {
            let mut all = vec![first];
            all.append(&mut rest);
            return all;
        }
        if conj {
            rest
        } else {
            let mut only = vec![-ts];
            only.extend_from_slice(body);
            vec![only]
        }
    }

    /// A formula as a literal: an atom, or a new Tseitin for a conjunction or disjunction
    /// (after its parts' atoms); `true` and `false` parts dropped or deciding.
    fn encode(&mut self, f: &Formula) -> Enc {
        match f.kind() {
            FormulaKind::Bool(b) => Enc::Const(*b),
            FormulaKind::And(parts) => self.connective(parts, true),
            FormulaKind::Or(parts) => self.connective(parts, false),
            FormulaKind::Not(g) => match self.encode(g) {
                Enc::Const(b) => Enc::Const(!b),
                Enc::Lit(l) => Enc::Lit(-l),
            },
            FormulaKind::Cmp(CmpOp::Ne, a, b) if is_function_atom(a, b) => {
                Enc::Lit(-self.function_atom(a, b))
            }
            FormulaKind::Cmp(CmpOp::Eq, a, b) if is_function_atom(a, b) => {
                Enc::Lit(self.function_atom(a, b))
            }
            FormulaKind::Pred(p, args) => {
                let text = self.atom_text(Symbol::Pred(*p), args, None);
                Enc::Lit(self.input_atom(text))
            }
            _ => {
                let text = formula_to_string(self.program, f);
                Enc::Lit(self.input_atom(text))
            }
        }
    }

    fn connective(&mut self, parts: &[Formula], conj: bool) -> Enc {
        let mut body = Vec::with_capacity(parts.len());
        for g in parts {
            match self.encode(g) {
                Enc::Const(b) if b == conj => {}
                Enc::Const(b) => return Enc::Const(b),
                Enc::Lit(l) => body.push(l),
            }
        }
        match body.as_slice() {
            [] => Enc::Const(conj),
            [l] => Enc::Lit(*l),
            _ => {
                let ts = self.new_atom();
                self.tseitins.insert(ts, Tseitin { conj, body });
                Enc::Lit(ts)
            }
        }
    }

    /// The atom `F(args) = value` for the comparison `a = b`.
    fn function_atom(&mut self, a: &Term, b: &Term) -> Lit {
        let TermKind::Func(f, args) = a.kind() else {
            return self.input_atom(term_to_string(self.program, a));
        };
        let text = self.atom_text(Symbol::Func(*f), args, Some(b));
        self.input_atom(text)
    }

    fn input_atom(&mut self, text: String) -> Lit {
        if let Some(&n) = self.numbers.get(&text) {
            return n;
        }
        let n = self.new_atom();
        self.names.insert(n, text.clone());
        self.numbers.insert(text, n);
        n
    }

    /// `P[D,E](a,b)`, `F[D,E](a) = b`, `C[E] = b` (IDP3's `printAtom`: the symbol's sorts,
    /// a function's result sort last).
    fn atom_text(&self, symbol: Symbol, args: &[Term], value: Option<&Term>) -> String {
        let program = self.program;
        let (name, sorts) = match symbol {
            Symbol::Pred(p) => (&program.pred(p).name, program.symbol_sorts(symbol)),
            Symbol::Func(f) => (&program.func(f).name, program.symbol_sorts(symbol)),
        };
        let mut text = name.clone();
        if !sorts.is_empty() {
            let names: Vec<&str> = sorts.iter().map(|&s| &*program.sort(s).name).collect();
            text.push_str(&format!("[{}]", names.join(",")));
        }
        if !args.is_empty() {
            let args: Vec<String> = args.iter().map(|t| term_to_string(program, t)).collect();
            text.push_str(&format!("({})", args.join(",")));
        }
        if let Some(v) = value {
            text.push_str(&format!(" = {}", term_to_string(program, v)));
        }
        text
    }

    fn atom_name(&self, l: Lit) -> String {
        match self.names.get(&l.abs()) {
            Some(name) => name.clone(),
            None => format!("tseitin_{}", l.abs()),
        }
    }

    fn literal(&self, l: Lit) -> String {
        let sign = if l < 0 { "~" } else { "" };
        format!("{sign}{}", self.atom_name(l))
    }

    /// `l1 | l2.`, or `false.` for the empty clause.
    fn clause(&self, lits: &[Lit]) -> String {
        if lits.is_empty() {
            return "false.\n".to_string();
        }
        let parts: Vec<String> = lits.iter().map(|&l| self.literal(l)).collect();
        format!("{}.\n", parts.join(" | "))
    }

    /// One definition: its ground rules with the rules of the Tseitins in their bodies.
    fn definition(&mut self, d: &Definition, layout: Layout) {
        let mut rules: Vec<(Lit, String)> = Vec::new();
        for r in d.rules.iter().filter(|r| r.vars.is_empty()) {
            self.rule(r, layout, &mut rules);
        }
        match layout {
            Layout::Streamed => rules.iter().for_each(|(_, r)| self.out.push_str(r)),
            Layout::Stored if rules.is_empty() => {}
            Layout::Stored => {
                rules.sort_by_key(|(head, _)| *head);
                self.out.push_str("{\n");
                rules.iter().for_each(|(_, r)| self.out.push_str(r));
                self.out.push_str("}\n");
            }
        }
    }

    /// A ground rule and the rules of its body's Tseitins, breadth first; streamed, the
    /// Tseitins' rules come first (IDP3 adds a rule's Tseitins before the rule).
    fn rule(&mut self, r: &Rule, layout: Layout, rules: &mut Vec<(Lit, String)>) {
        let head_text = match r.head {
            Symbol::Pred(_) => self.atom_text(r.head, &r.head_args, None),
            Symbol::Func(_) => {
                let (value, args) = match r.head_args.split_last() {
                    Some((v, args)) => (Some(v), args),
                    None => (None, &r.head_args[..]),
                };
                self.atom_text(r.head, args, value)
            }
        };
        let head = self.input_atom(head_text);
        let (conj, body) = match &r.body.kind() {
            FormulaKind::Or(parts) => (false, parts.as_slice()),
            FormulaKind::And(parts) => (true, parts.as_slice()),
            _ => (true, std::slice::from_ref(&r.body)),
        };
        let mut lits = Vec::with_capacity(body.len());
        let mut decided = None;
        for g in body {
            match self.encode(g) {
                Enc::Const(b) if b == conj => {}
                Enc::Const(b) => decided = Some(b),
                Enc::Lit(l) => lits.push(l),
            }
            if decided.is_some() {
                break;
            }
        }
        let (conj, lits) = match decided {
            Some(b) => (b, Vec::new()),
            None => (conj, lits),
        };
        let own = (head, self.rule_text(head, conj, &lits));
        let mut made = Vec::new();
        let mut queue: VecDeque<Lit> = lits.iter().map(|l| l.abs()).collect();
        while let Some(ts) = queue.pop_front() {
            let Some(t) = self.tseitins.get(&ts) else {
                continue;
            };
            made.push((ts, self.rule_text(ts, t.conj, &t.body)));
            queue.extend(t.body.iter().map(|l| l.abs()));
        }
        if layout == Layout::Stored {
            rules.push(own);
            rules.append(&mut made);
        } else {
            rules.append(&mut made);
            rules.push(own);
        }
    }

    /// `head <- l1 & l2.`, `head <- l1 | l2.`; an empty body `true` (conjunction) or `false`.
    fn rule_text(&self, head: Lit, conj: bool, body: &[Lit]) -> String {
        let body = if body.is_empty() {
            (if conj { "true" } else { "false" }).to_string()
        } else {
            let parts: Vec<String> = body.iter().map(|&l| self.literal(l)).collect();
            parts.join(if conj { " & " } else { " | " })
        };
        format!("{} <- {body}.\n", self.atom_name(head))
    }
}

/// Whether `a = b` is a function atom `F(args) = value`.
fn is_function_atom(a: &Term, b: &Term) -> bool {
    matches!(a.kind(), TermKind::Func(..)) && matches!(b.kind(), TermKind::Value(_))
}
