//! Splitting an LTC theory as IDP3's `LTCTheorySplitter` does: every sentence and rule is
//! checked (one Time variable, universally quantified at the top level; Start only in
//! initial-state axioms; time stratification; no static symbol defined by dynamic ones) and
//! then rewritten over the state vocabularies: time-dependent symbols applied to `t` or
//! `Start` become their state symbol, applied to `Next(t)` their `_next` symbol, and the
//! quantifiers over Time disappear.
//!
//! * The initial theory (over `V_ss`) gets the initial-state axioms, the static ones and the
//!   single-state ones instantiated at the current state.
//! * The bistate theory (over `V_bs`) gets the bistate axioms, the static ones, the
//!   single-state ones at the next state and (for theories, not invariants) at the current
//!   state too.
//!
//! Every error names IDP3's text and the position of the sentence or rule.

use indexmap::IndexMap;

use crate::error::{Error, ErrorKind, IdpResult};
use crate::ids::Symbol;
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::walk::{Node, Rewriter};
use crate::sema::{LtcInfo, Program, Theory, TheoryForm};
use crate::source::Span;

/// The two theories of an LTC theory.
#[derive(Clone, Debug)]
pub struct Split {
    pub initial: Theory,
    pub bistate: Theory,
}

/// How an invariant is proven by induction (IDP3's `SplitLTCInvariant`).
#[derive(Clone, Debug)]
pub enum Invariant {
    /// A single-state invariant: `base` must hold in every initial state and `step` (the
    /// invariant now implies it in the next state) in every transition.
    SingleState { base: Formula, step: Formula },
    /// A bistate invariant (it mentions Next): it must hold in every transition.
    Bistate(Formula),
}

/// What a sentence or rule mentions (IDP3's `LTCFormulaInfo`).
#[derive(Clone, Copy, Debug, Default)]
struct Mentions {
    time_var: bool,
    start: bool,
    next: bool,
}

impl Mentions {
    fn of<'a>(info: &LtcInfo, nodes: impl IntoIterator<Item = Node<'a>>) -> Mentions {
        let mut m = Mentions::default();
        for node in nodes {
            node.walk(&mut |n| {
                if n.binds().iter().any(|v| v.sort == info.time)
                    || n.var().is_some_and(|v| v.sort == info.time)
                {
                    m.time_var = true;
                }
                if let Node::Term(t) = n {
                    if let TermKind::Func(g, _) = t.kind() {
                        m.start |= *g == info.start;
                        m.next |= *g == info.next;
                    }
                }
                true
            });
        }
        m
    }

    fn of_rule(info: &LtcInfo, r: &Rule) -> Mentions {
        let mut m = Mentions::of(info, rule_nodes(r));
        m.time_var |= r.vars.iter().any(|v| v.sort == info.time);
        m
    }

    fn of_head(info: &LtcInfo, r: &Rule) -> Mentions {
        Mentions::of(info, r.head_args.iter().map(Node::Term))
    }

    fn is_static(self) -> bool {
        !(self.time_var || self.start)
    }
}

fn rule_nodes(r: &Rule) -> impl Iterator<Item = Node<'_>> {
    r.head_args
        .iter()
        .map(Node::Term)
        .chain(std::iter::once(Node::Formula(&r.body)))
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// An LTC error as IDP3 reports it: the message and ` At file:line:col`.
fn ltc_error(program: &Program, msg: &str, span: Option<Span>) -> Error {
    let text = match span.and_then(|s| program.position(s)) {
        Some(pos) => format!("{msg} At {pos}"),
        None => msg.to_string(),
    };
    Error::new(ErrorKind::Aborted, text)
}

/// A variable as IDP3 prints it: `t[Time]`.
fn var_text(program: &Program, v: &Var) -> String {
    format!("{}[{}]", v.name, program.sort(v.sort).name)
}

/// A time term as IDP3 prints it (`Next(Next(t[Time]))`).
fn term_text(program: &Program, t: &Term) -> String {
    match t.kind() {
        TermKind::Var(v) => var_text(program, v),
        TermKind::Func(f, args) if args.is_empty() => program.func(*f).name.clone(),
        TermKind::Func(f, args) => {
            let inner: Vec<String> = args.iter().map(|a| term_text(program, a)).collect();
            format!("{}({})", program.func(*f).name, inner.join(","))
        }
        _ => crate::print::term_to_string(program, t),
    }
}

fn unexpected_time_term(program: &Program, t: &Term, span: Span) -> Error {
    ltc_error(
        program,
        &format!("Term {} is not expected at a position of type Time. LTC theories can only contain specific constructs of type time (variables, Next(var), or Start). Constructs such as for example Next(Start), Next(Next(var)) are not allowed.", term_text(program, t)),
        Some(span),
    )
}

// ---------------------------------------------------------------------------------------------
// Quantification checks
// ---------------------------------------------------------------------------------------------

/// A quantified variable: universal in its context (after pushing negations) and at the top
/// level of its sentence or rule.
struct Quantified {
    var: Var,
    universal: bool,
    top: bool,
}

/// Collects the quantified variables of `f`. `pos`: the polarity (`None` inside an
/// equivalence, where a quantifier occurs with both).
fn quantified(f: &Formula, pos: Option<bool>, top: bool, out: &mut Vec<Quantified>) {
    let flip = pos.map(|p| !p);
    match f.kind() {
        FormulaKind::Forall(vs, g) | FormulaKind::Exists(vs, g) => {
            let forall = matches!(f.kind(), FormulaKind::Forall(..));
            let universal = pos.is_some_and(|p| p == forall);
            for v in vs {
                out.push(Quantified {
                    var: v.clone(),
                    universal,
                    top,
                });
            }
            // Nested quantifiers of the same kind are one quantifier after flattening.
            let same = matches!(
                (forall, g.kind()),
                (true, FormulaKind::Forall(..)) | (false, FormulaKind::Exists(..))
            );
            quantified(g, pos, top && same, out);
        }
        FormulaKind::Not(g) => quantified(g, flip, top, out),
        FormulaKind::And(fs) | FormulaKind::Or(fs) => {
            fs.iter().for_each(|g| quantified(g, pos, top, out))
        }
        FormulaKind::Implies(a, b) => {
            quantified(a, flip, top, out);
            quantified(b, pos, top, out);
        }
        FormulaKind::Equiv(a, b) => {
            quantified(a, None, top, out);
            quantified(b, None, top, out);
        }
        FormulaKind::Pred(_, args) => args.iter().for_each(|a| set_vars(a, out)),
        FormulaKind::Cmp(_, a, b) => {
            set_vars(a, out);
            set_vars(b, out);
        }
        FormulaKind::Bool(_) => {}
    }
}

/// The variables of the aggregates in a term (never universal, never at the top level).
fn set_vars(t: &Term, out: &mut Vec<Quantified>) {
    Node::Term(t).walk(&mut |n| match n {
        Node::Set(s) => {
            for v in &s.vars {
                out.push(Quantified {
                    var: v.clone(),
                    universal: false,
                    top: false,
                });
            }
            quantified(&s.cond, Some(true), false, out);
            set_vars(&s.term, out);
            false
        }
        _ => true,
    });
}

/// IDP3's `checkQuantifications`: at most one Time variable, universally quantified at the top
/// level.
fn check_quantifications(
    program: &Program,
    info: &LtcInfo,
    vars: Vec<Quantified>,
    span: Span,
) -> IdpResult<()> {
    let mut first: Option<Var> = None;
    for q in vars.into_iter().filter(|q| q.var.sort == info.time) {
        if first.as_ref().is_some_and(|f| f.id == q.var.id) {
            continue;
        }
        if let Some(f) = &first {
            return Err(ltc_error(
                program,
                &format!(
                    "LTC theories can only contain one time variable in every sentence/rule.\nThis is violated by variables {} and {}.",
                    var_text(program, f),
                    var_text(program, &q.var)
                ),
                Some(span),
            ));
        }
        if !q.universal {
            return Err(ltc_error(program, &format!("In LTC theories, every variable over type Time should be universally quantified (given its context). This is violated by variable {}", var_text(program, &q.var)), Some(span)));
        }
        if !q.top {
            return Err(ltc_error(program, &format!("In LTC theories, every variable over type Time should be universally quantified at the toplevel. E.g. quantifications such as ? x[type]: ! t[Time] ... are not allowed. This is violated by variable  {}", var_text(program, &q.var)), Some(span)));
        }
        first = Some(q.var);
    }
    Ok(())
}

fn check_sentence(program: &Program, info: &LtcInfo, f: &Formula) -> IdpResult<()> {
    let mut vars = Vec::new();
    quantified(f, Some(true), true, &mut vars);
    check_quantifications(program, info, vars, f.span)
}

fn check_rule(program: &Program, info: &LtcInfo, r: &Rule) -> IdpResult<()> {
    let mut vars: Vec<Quantified> = r
        .vars
        .iter()
        .map(|v| Quantified {
            var: v.clone(),
            universal: true,
            top: true,
        })
        .collect();
    // Variables free in the body are quantified by the rule.
    crate::sema::walk::free_vars(&r.body, &mut |v| {
        vars.push(Quantified {
            var: v.clone(),
            universal: true,
            top: true,
        })
    });
    r.head_args.iter().for_each(|a| set_vars(a, &mut vars));
    quantified(&r.body, Some(true), false, &mut vars);
    check_quantifications(program, info, vars, r.span)
}

// ---------------------------------------------------------------------------------------------
// Rewriting over the state vocabularies
// ---------------------------------------------------------------------------------------------

/// IDP3's `ReplaceLTCSymbols`: replaces time-dependent symbols by their state or next-state
/// symbol and drops the quantifiers over Time.
struct Replace<'a> {
    program: &'a Program,
    info: &'a LtcInfo,
    symbols: &'a IndexMap<Symbol, (Symbol, Symbol)>,
    /// Replace every time-dependent symbol by its next-state symbol (single-state axioms in
    /// the bistate theory).
    by_next: bool,
    error: Option<Error>,
}

impl Replace<'_> {
    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// The state or next-state symbol for an application of `sym` whose Time argument is `t`.
    fn target(&mut self, sym: Symbol, t: &Term, span: Span) -> Symbol {
        let (state, next) = self.symbols[&sym];
        match t.kind() {
            TermKind::Func(f, _) if *f == self.info.start => {
                if self.by_next {
                    next
                } else {
                    state
                }
            }
            TermKind::Func(_, args) => {
                if !matches!(args.as_slice(), [a] if matches!(a.kind(), TermKind::Var(_))) {
                    self.fail(unexpected_time_term(self.program, t, t.span));
                }
                next
            }
            _ if self.by_next => next,
            TermKind::Var(_) => state,
            _ => {
                self.fail(unexpected_time_term(self.program, t, span));
                state
            }
        }
    }

    /// An application of a time-dependent symbol: its new symbol and its arguments without
    /// the Time argument.
    fn application(&mut self, sym: Symbol, args: &[Term], span: Span) -> (Symbol, Vec<Term>) {
        let k = self.info.time_arg[&sym];
        let target = self.target(sym, &args[k], span);
        let rest = args
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, a)| self.term(a))
            .collect();
        (target, rest)
    }

    /// `Time(x)`: true, if `x` is a time variable, Start or Next.
    fn time_atom(&mut self, arg: &Term, span: Span) -> Formula {
        let ok = match arg.kind() {
            TermKind::Var(v) => v.sort == self.info.time,
            TermKind::Func(f, _) => *f == self.info.start || *f == self.info.next,
            _ => false,
        };
        if !ok {
            self.fail(unexpected_time_term(self.program, arg, span));
        }
        Formula::new(FormulaKind::Bool(true), span)
    }

    fn without_time(&self, vs: &[Var]) -> Vec<Var> {
        vs.iter()
            .filter(|v| v.sort != self.info.time)
            .cloned()
            .collect()
    }

    fn rule(&mut self, r: &Rule) -> Rule {
        let (head, head_args) = if self.symbols.contains_key(&r.head) {
            self.application(r.head, &r.head_args, r.span)
        } else {
            (r.head, r.head_args.iter().map(|a| self.term(a)).collect())
        };
        Rule {
            vars: self.without_time(&r.vars),
            head,
            head_args,
            body: self.formula(&r.body),
            span: r.span,
        }
    }
}

impl Rewriter for Replace<'_> {
    fn formula(&mut self, f: &Formula) -> Formula {
        let span = f.span;
        match f.kind() {
            FormulaKind::Pred(p, args) if self.symbols.contains_key(&Symbol::Pred(*p)) => {
                match self.application(Symbol::Pred(*p), args, span) {
                    (Symbol::Pred(q), rest) => Formula::new(FormulaKind::Pred(q, rest), span),
                    _ => {
                        self.fail(Error::internal("a predicate projected to a function"));
                        f.clone()
                    }
                }
            }
            FormulaKind::Pred(p, args)
                if self.program.pred(*p).type_of == Some(self.info.time) && args.len() == 1 =>
            {
                self.time_atom(&args[0], span)
            }
            FormulaKind::Forall(vs, g) | FormulaKind::Exists(vs, g) => {
                let kept = self.without_time(vs);
                let body = self.formula(g);
                if kept.is_empty() {
                    return body;
                }
                let kind = if matches!(f.kind(), FormulaKind::Forall(..)) {
                    FormulaKind::Forall(kept, Box::new(body))
                } else {
                    FormulaKind::Exists(kept, Box::new(body))
                };
                Formula::new(kind, span)
            }
            _ => f.rebuild(self),
        }
    }

    fn term(&mut self, t: &Term) -> Term {
        match t.kind() {
            TermKind::Func(g, args) if self.symbols.contains_key(&Symbol::Func(*g)) => {
                match self.application(Symbol::Func(*g), args, t.span) {
                    (Symbol::Func(h), rest) => Term::new(TermKind::Func(h, rest), t.sort, t.span),
                    _ => {
                        self.fail(Error::internal("a function projected to a predicate"));
                        t.clone()
                    }
                }
            }
            TermKind::Func(g, _) if *g == self.info.start || *g == self.info.next => {
                self.fail(unexpected_time_term(self.program, t, t.span));
                t.clone()
            }
            TermKind::Var(v) if v.sort == self.info.time => {
                self.fail(unexpected_time_term(self.program, t, t.span));
                t.clone()
            }
            _ => t.rebuild(self),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The splitter
// ---------------------------------------------------------------------------------------------

/// Where a sentence or rule goes, and how it is rewritten.
struct Splitter<'a> {
    program: &'a Program,
    info: &'a LtcInfo,
    symbols: IndexMap<Symbol, (Symbol, Symbol)>,
    /// Splitting a single-state invariant: the extra checks apply and single-state axioms are
    /// not repeated at the current state in the bistate theory.
    invariant: bool,
}

/// A formula or a rule, as the splitter sorts them.
trait Part: Sized {
    fn span(&self) -> Span;
    fn mentions(&self, info: &LtcInfo) -> Mentions;
    fn replaced(&self, r: &mut Replace) -> Self;
}

impl Part for Formula {
    fn span(&self) -> Span {
        self.span
    }
    fn mentions(&self, info: &LtcInfo) -> Mentions {
        Mentions::of(info, [Node::Formula(self)])
    }
    fn replaced(&self, r: &mut Replace) -> Formula {
        r.formula(self)
    }
}

impl Part for Rule {
    fn span(&self) -> Span {
        self.span
    }
    fn mentions(&self, info: &LtcInfo) -> Mentions {
        Mentions::of_rule(info, self)
    }
    fn replaced(&self, r: &mut Replace) -> Rule {
        r.rule(self)
    }
}

impl Splitter<'_> {
    fn error(&self, msg: &str, span: Span) -> Error {
        ltc_error(self.program, msg, Some(span))
    }

    fn replace<P: Part>(&self, part: &P, by_next: bool) -> IdpResult<P> {
        let mut r = Replace {
            program: self.program,
            info: self.info,
            symbols: &self.symbols,
            by_next,
            error: None,
        };
        let out = part.replaced(&mut r);
        match r.error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// IDP3's `handleAndAddToConstruct`: checks a sentence or rule and adds its rewritten
    /// forms to the initial and bistate parts.
    fn handle<P: Part>(
        &self,
        part: &P,
        initial: &mut Vec<P>,
        bistate: &mut Vec<P>,
        only_start_next: bool,
    ) -> IdpResult<()> {
        let m = part.mentions(self.info);
        let span = part.span();
        if m.start {
            if self.invariant {
                return Err(self.error("LTC invariants cannot contain Start.", span));
            }
            if m.next {
                return Err(self.error("Initial-state axioms (sentences/rules containing Start) cannot contain other terms of type Time (in particular no Next-terms).", span));
            }
            if m.time_var {
                return Err(self.error("Initial-state axioms (sentences/rules containing Start) cannot contain other terms of type Time.", span));
            }
            initial.push(self.replace(part, false)?);
        } else if m.next {
            if self.invariant {
                return Err(self.error("LTC invariants cannot contain Next.", span));
            }
            if !m.time_var {
                return Err(self.error(
                    "LTC sentences can only contain the following terms of type Time: Start, Next and variables.",
                    span,
                ));
            }
            bistate.push(self.replace(part, false)?);
        } else if m.time_var {
            initial.push(self.replace(part, false)?);
            bistate.push(self.replace(part, true)?);
            if !self.invariant && !only_start_next {
                bistate.push(self.replace(part, false)?);
            }
        } else {
            if self.invariant {
                return Err(self.error("LTC invariants cannot be static.", span));
            }
            initial.push(self.replace(part, false)?);
            bistate.push(self.replace(part, false)?);
        }
        Ok(())
    }

    /// Checks the rules of a definition and splits it; defined time-dependent symbols left
    /// without rules in a part are defined false there.
    fn definition(&self, d: &Definition, fresh: &mut u32) -> IdpResult<(Definition, Definition)> {
        let mut init = Vec::new();
        let mut bi = Vec::new();
        for r in &d.rules {
            let head = Mentions::of_head(self.info, r);
            let head = Mentions {
                time_var: head.time_var || rule_head_var(self.info, r),
                ..head
            };
            let body = Mentions::of(self.info, [Node::Formula(&r.body)]);
            if head.is_static() && !body.is_static() {
                return Err(self.error("In LTC theories, it is not allowed to define static predicates in terms of dynamic predicates.", r.span));
            }
            if body.next && !head.next {
                return Err(self.error("In LTC theories, it is not allowed to define the state at time $t$ in terms of next(t). This violates the time-stratification assumption.", r.span));
            }
            let special = head.time_var
                && !head.next
                && d.rules.iter().any(|o| {
                    !std::ptr::eq(o, r) && o.head == r.head && Mentions::of_head(self.info, o).next
                });
            self.handle(r, &mut init, &mut bi, special)?;
        }
        let mut init = Definition {
            rules: init,
            span: d.span,
        };
        let mut bi = Definition {
            rules: bi,
            span: d.span,
        };
        for sym in d.defined() {
            if let Some(&(state, next)) = self.symbols.get(&sym) {
                if !init.defined().contains(&state) {
                    init.rules
                        .push(false_rule(self.program, state, d.span, fresh));
                }
                if !bi.defined().contains(&next) {
                    bi.rules.push(false_rule(self.program, next, d.span, fresh));
                }
            }
        }
        Ok((init, bi))
    }
}

/// Whether a Time variable occurs among the head arguments of a rule.
fn rule_head_var(info: &LtcInfo, r: &Rule) -> bool {
    r.head_args
        .iter()
        .any(|a| Node::Term(a).any(&mut |n| n.var().is_some_and(|v| v.sort == info.time)))
}

/// `! x1 .. xn : S(x1, .., xn) <- false.`, its variables' ids after `fresh`.
fn false_rule(program: &Program, sym: Symbol, span: Span, fresh: &mut u32) -> Rule {
    Rule::nothing_true(sym, program.symbol_sorts(sym), span, || {
        *fresh += 1;
        *fresh
    })
}

/// The largest variable id of a theory.
fn max_var_id(t: &Theory) -> u32 {
    let of = |n: Node| {
        n.fold(0u32, &mut |m, x| {
            let bound = x.binds().iter().map(|v| v.id).max().unwrap_or(0);
            m.max(bound).max(x.var().map_or(0, |v| v.id))
        })
    };
    let sentences = t.sentences.iter().map(|f| of(Node::Formula(f)));
    let rules = t.definitions.iter().flat_map(|d| &d.rules).map(|r| {
        let vars = r.vars.iter().map(|v| v.id).max().unwrap_or(0);
        rule_nodes(r).map(of).max().unwrap_or(0).max(vars)
    });
    sentences.chain(rules).max().unwrap_or(0)
}

/// The resolver moves a head argument that is not a variable into the body (`F(Next(t)) = y
/// <- phi` becomes `! v : F(v) = y <- phi & v = Next(t)`); for Time arguments this puts the
/// term back into the head, as IDP3 has it, so that the checks and the rewriting see it.
fn renest(info: &LtcInfo, r: &Rule) -> Rule {
    let mut r = r.clone();
    for k in 0..r.head_args.len() {
        let TermKind::Var(v) = r.head_args[k].kind() else {
            continue;
        };
        if v.sort != info.time || !r.vars.iter().any(|w| w.id == v.id) {
            continue;
        }
        let v = v.clone();
        let FormulaKind::And(conjuncts) = r.body.kind() else {
            continue;
        };
        let Some((at, term)) = conjuncts
            .iter()
            .enumerate()
            .find_map(|(i, c)| defining_term(c, &v).map(|t| (i, t.clone())))
        else {
            continue;
        };
        let mut rest = conjuncts.clone();
        rest.remove(at);
        r.body = Formula::new(FormulaKind::And(rest), r.body.span);
        r.head_args[k] = term;
        r.vars.retain(|w| w.id != v.id);
    }
    r
}

/// `t` if `c` is `v = t` or `t = v`.
fn defining_term<'a>(c: &'a Formula, v: &Var) -> Option<&'a Term> {
    let FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, a, b) = c.kind() else {
        return None;
    };
    let is_v = |t: &Term| matches!(t.kind(), TermKind::Var(w) if w.id == v.id);
    if is_v(a) && !is_v(b) {
        Some(b)
    } else if is_v(b) && !is_v(a) {
        Some(a)
    } else {
        None
    }
}

/// The theory with the Time arguments of rule heads put back in place (see [`renest`]).
fn renested(info: &LtcInfo, theory: &Theory) -> Theory {
    let mut t = theory.clone();
    for d in &mut t.definitions {
        d.rules = d.rules.iter().map(|r| renest(info, r)).collect();
    }
    t
}

/// IDP3's `createTheories`: checks all quantifications, then splits every sentence and
/// definition.
fn create(program: &Program, info: &LtcInfo, theory: &Theory, invariant: bool) -> IdpResult<Split> {
    let theory = &renested(info, theory);
    let (ss, bs) = super::vocab::state_vocabularies(info)?;
    let splitter = Splitter {
        program,
        info,
        symbols: super::vocab::state_symbols(program, info)?,
        invariant,
    };
    for f in &theory.sentences {
        check_sentence(program, info, f)?;
    }
    for r in theory.definitions.iter().flat_map(|d| &d.rules) {
        check_rule(program, info, r)?;
    }
    let mut initial = Theory {
        form: TheoryForm::Source,
        name: format!("{}_init", theory.name),
        vocabulary: ss,
        sentences: Vec::new(),
        definitions: Vec::new(),
        span: theory.span,
    };
    let mut bistate = Theory {
        name: format!("{}_bistate", theory.name),
        vocabulary: bs,
        ..initial.clone()
    };
    for f in &theory.sentences {
        splitter.handle(f, &mut initial.sentences, &mut bistate.sentences, false)?;
    }
    let mut fresh = max_var_id(theory) + 1;
    for d in &theory.definitions {
        if invariant {
            return Err(ltc_error(
                program,
                "LTC invariants cannot contain definitions.",
                theory.span,
            ));
        }
        let (init, bi) = splitter.definition(d, &mut fresh)?;
        if !init.rules.is_empty() {
            initial.definitions.push(init);
        }
        if !bi.rules.is_empty() {
            bistate.definitions.push(bi);
        }
    }
    Ok(Split { initial, bistate })
}

/// Splits an LTC theory into its initial and bistate theories.
pub fn split_theory(program: &Program, info: &LtcInfo, theory: &Theory) -> IdpResult<Split> {
    create(program, info, theory, false)
}

fn conjunction(fs: Vec<Formula>, span: Span) -> Formula {
    Formula::new(FormulaKind::And(fs), span)
}

/// Splits an invariant theory (IDP3's `splitInvar`).
pub fn split_invariant(program: &Program, info: &LtcInfo, inv: &Theory) -> IdpResult<Invariant> {
    let span = inv.span.unwrap_or_default();
    let mentions_next = inv
        .sentences
        .iter()
        .any(|f| Mentions::of(info, [Node::Formula(f)]).next)
        || inv
            .definitions
            .iter()
            .flat_map(|d| &d.rules)
            .any(|r| Mentions::of_rule(info, r).next);
    if mentions_next {
        let split = create(program, info, inv, false)?;
        if !split.initial.definitions.is_empty() || !split.bistate.definitions.is_empty() {
            return Err(ltc_error(
                program,
                "LTC invariants cannot contain definitions.",
                inv.span,
            ));
        }
        if !split.initial.sentences.is_empty() {
            return Err(ltc_error(
                program,
                "LTC invariants cannot contain Start.",
                inv.span,
            ));
        }
        return Ok(Invariant::Bistate(conjunction(
            split.bistate.sentences,
            span,
        )));
    }
    let split = create(program, info, inv, true)?;
    let now = conjunction(split.initial.sentences, span);
    let next = conjunction(split.bistate.sentences, span);
    let not_now = Formula::new(FormulaKind::Not(Box::new(now.clone())), span);
    Ok(Invariant::SingleState {
        base: now,
        step: Formula::new(FormulaKind::Or(vec![not_now, next]), span),
    })
}
