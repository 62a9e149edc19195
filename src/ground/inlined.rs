//! Demand-driven ("inlined") definitions: a non-recursive predicate definition whose head
//! variables range over a type without a finite interpretation (`int`, `string`, an
//! uninterpreted or huge type) cannot be grounded up front. Instead, each atom `p(t)` that
//! grounding meets with a known tuple `t` becomes the disjunction, over the rules of `p`, of
//! the rule body with its head variables bound to `t` and its other variables existentially
//! quantified. For a non-recursive definition this is its completion, whose unique model is
//! the definition's well-founded model, so the atoms of `p` need no SAT variables at all.
//!
//! This module owns the choice of which definitions are inlined ([`inlinable`],
//! [`crate::error::Error::is_unbounded_grounding`]) and the expansion of their atoms ([`Grounder::inlined_atom`]),
//! memoised per (symbol, tuple).

use rustc_hash::FxHashSet as HashSet;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::error::{Error, IdpResult};
use crate::ground::formulas::Bound;
use crate::ground::store::Gf;
use crate::ground::{GVal, Grounder};
use crate::ids::{FuncId, Symbol};
use crate::sema::ir::{Definition, Rule, Term, TermKind, Var};
use crate::sema::Program;
use crate::structure::{Structure, Table, Tuple, Value};

/// Whether `def` may be inlined: none of its symbols occurs in a rule body (no recursion),
/// the structure does not interpret them two-valued, and some argument of one ranges over a
/// sort without a finite interpretation in `grounder`'s domains. Its functions (`clip(n) =
/// m <- m = ...`, `double(x) = x + x`) are applied on demand as its predicates are.
pub fn inlinable(program: &Program, def: &Definition, structure: &Structure) -> bool {
    let defined = def.defined();
    if (defined.iter()).any(|s| matches!(structure.table(*s), Some(Table::TwoValued(_)))) {
        return false;
    }
    let mut used = HashSet::default();
    for rule in &def.rules {
        crate::sema::walk::symbols(&rule.body, &mut used);
    }
    if defined.iter().any(|s| used.contains(s)) {
        return false;
    }
    let domains = crate::sema::Domains::new(program, structure);
    defined
        .iter()
        .flat_map(|s| program.symbol_sorts(*s))
        .any(|sort| domains.get(sort).is_none())
}

impl<'a> Grounder<'a> {
    /// Makes the atoms of `def`'s symbols expand to their rule bodies from now on. The symbols
    /// stop being forced unknown (they get no atoms), and any bindings a failed attempt to
    /// ground the definition up front left behind are dropped.
    pub fn inline(&mut self, def: &Definition) {
        self.memo.applications.clear();
        let def = Rc::new(def.clone());
        for s in def.defined() {
            self.status.forced_unknown.remove(&s);
            self.inlining.defs.insert(s, def.clone());
        }
        self.env.clear();
    }

    /// Whether atoms of `s` are expanded by [`Self::inlined_atom`].
    pub fn is_inlined(&self, s: Symbol) -> bool {
        self.inlining.defs.contains_key(&s)
    }

    /// The tuples of `s` expanded so far, with their ground formulas.
    pub fn inlined_tuples(&self, s: Symbol) -> Vec<(Tuple, Gf)> {
        let mut out: Vec<(Tuple, Gf)> = self
            .inlining
            .memo
            .iter()
            .filter(|((x, _), _)| *x == s)
            .map(|((_, t), g)| (t.clone(), *g))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The ground formula of the inlined atom `s(t)`: the disjunction of the bodies of the
    /// rules of `s` whose head matches `t`. Grounded in an environment of its own (rule
    /// variables may share ids with the variables of the formula being grounded), keeping
    /// `D | ~D` unfolded so that the result is also right inside the rule bodies of another
    /// definition.
    pub fn inlined_atom(&mut self, s: Symbol, t: Tuple) -> IdpResult<Gf> {
        let key = (s, t);
        if let Some(&g) = self.inlining.memo.get(&key) {
            return Ok(g);
        }
        let (s, t) = key;
        let def = self.inlining.defs[&s].clone();
        let g = self.expanding(s, &def, |g| g.expand(&def, s, &t))?;
        self.inlining.memo.insert((s, t), g);
        Ok(g)
    }

    /// Runs `expand` for symbol `s` of the inlined definition `def`: checked against
    /// expansions that would not end ([`Grounder::check_inlining_context`]), in an
    /// environment of its own, keeping `D | ~D` unfolded.
    fn expanding<T>(
        &mut self,
        s: Symbol,
        def: &Definition,
        expand: impl FnOnce(&mut Self) -> IdpResult<T>,
    ) -> IdpResult<T> {
        self.check_inlining_context(s, def)?;
        self.inlining.expanding.push(s);
        let outer_env = std::mem::take(&mut self.env);
        let saved = std::mem::replace(&mut self.store.keep_complements, true);
        let expanded = expand(self);
        self.store.keep_complements = saved;
        self.env = outer_env;
        self.inlining.expanding.pop();
        expanded
    }

    /// The values of the application `f(args)` of an inlined function, with their conditions:
    /// for each rule of `f` whose head matches `args`, its body with the head's value (a term
    /// over the head's variables, or a variable that the body bounds: `clip(n) = m <- m =
    /// ...`). Memoised; the theory then owes that exactly one condition holds (a function's
    /// definition gives each application one value), which [`Grounder::take_obligations`]
    /// hands over.
    pub fn inlined_application(
        &mut self,
        f: FuncId,
        args: Vec<Value>,
    ) -> IdpResult<Vec<(Gf, Value)>> {
        let key = (f, args);
        if let Some(found) = self.inlining.applied.get(&key) {
            return Ok(found.clone());
        }
        let (f, args) = key;
        let s = Symbol::Func(f);
        let def = self.inlining.defs[&s].clone();
        let expanded = self.expanding(s, &def, |g| g.expand_application(&def, s, &args));
        let found = expanded.map_err(|e| {
            let program = self.program;
            let at = (program.position(def.span))
                .map(|p| format!(" at {p}"))
                .unwrap_or_default();
            let applied: Vec<String> = args.iter().map(Value::to_string).collect();
            e.with_context(
                format!(
                    "while applying the definition{at} to {}({})",
                    program.symbol_name(s),
                    applied.join(", ")
                ),
                Some(def.span),
            )
        })?;
        for &(g, v) in &found {
            let mut graph = args.clone();
            graph.push(v);
            self.inlining.memo.insert((s, graph), g);
        }
        let one = self.one_case_holds(&found);
        if one != Gf::TRUE {
            self.inlining.obligations.push(one);
        }
        self.inlining.applied.insert((f, args), found.clone());
        Ok(found)
    }

    /// The formulas owed for the applications expanded since the last call (see
    /// [`Grounder::inlined_application`]).
    pub fn take_obligations(&mut self) -> Vec<Gf> {
        std::mem::take(&mut self.inlining.obligations)
    }

    /// Exactly one of the conditions of `cases` holds.
    fn one_case_holds(&mut self, cases: &[(Gf, Value)]) -> Gf {
        let guards: Vec<Gf> = cases.iter().map(|&(g, _)| g).collect();
        let mut parts = vec![self.store.or(guards.iter().copied())];
        for (k, &a) in guards.iter().enumerate() {
            for &b in &guards[k + 1..] {
                let both = self.store.and2(a, b);
                parts.push(-both);
            }
        }
        self.store.and(parts)
    }

    /// The values of `s(args)` by its rules (see [`Grounder::inlined_application`]).
    fn expand_application(
        &mut self,
        def: &Definition,
        s: Symbol,
        args: &[Value],
    ) -> IdpResult<Vec<(Gf, Value)>> {
        let mut by_value: BTreeMap<Value, Vec<Gf>> = BTreeMap::new();
        for rule in def.rules.iter().filter(|r| r.head == s) {
            let Some(rest) = self.match_head(rule, args)? else {
                continue;
            };
            let found = self.rule_values(rule, rest, &mut by_value);
            for v in &rule.vars {
                self.unbind(v);
            }
            found?;
        }
        Ok(by_value
            .into_iter()
            .map(|(v, gs)| (self.store.or(gs), v))
            .filter(|&(g, _)| g != Gf::FALSE)
            .collect())
    }

    /// Adds to `by_value` the values that `rule`, its head's arguments bound, gives its
    /// function, each with its body's ground formula; `rest` are its variables left free.
    fn rule_values(
        &mut self,
        rule: &Rule,
        rest: Vec<Var>,
        by_value: &mut BTreeMap<Value, Vec<Gf>>,
    ) -> IdpResult<()> {
        let value = rule
            .head_args
            .last()
            .expect("a function's head has its value");
        let value_var = match value.kind() {
            TermKind::Var(v) if rest.iter().any(|r| r.id == v.id) => Some(v.clone()),
            _ => None,
        };
        let others: Vec<Var> = (rest.into_iter())
            .filter(|r| value_var.as_ref().is_none_or(|v| v.id != r.id))
            .collect();
        let Some(var) = value_var else {
            if !self.is_closed(value) {
                return Err(self.head_argument_error(rule));
            }
            let body = self.ground_body(&others, &rule.body)?;
            if body == Gf::FALSE {
                return Ok(());
            }
            for (h, v) in self.ground_term(value)?.0 {
                let GVal::V(v) = v else { continue };
                let g = self.store.and2(body, h);
                by_value.entry(v).or_default().push(g);
            }
            return Ok(());
        };
        let bound = Bound {
            formula: &rule.body,
            want: true,
        };
        for &v in self.bounded_domain(&var, Some(bound))?.iter() {
            self.bind(&var, v);
            let body = self.ground_body(&others, &rule.body);
            self.unbind(&var);
            let body = body?;
            if body != Gf::FALSE {
                by_value.entry(v).or_default().push(body);
            }
        }
        Ok(())
    }

    /// `body` with `vars` quantified existentially.
    fn ground_body(&mut self, vars: &[Var], body: &crate::sema::ir::Formula) -> IdpResult<Gf> {
        if vars.is_empty() {
            self.ground_formula(body)
        } else {
            self.ground_quantifier(vars, body, false)
        }
    }

    /// Refuses an expansion that would not terminate or could change the meaning: `s` met
    /// again while its own atom is being expanded (definitions that read each other), or `s`
    /// read by a rule of a definition being grounded whose symbols `s`'s rules read in turn.
    fn check_inlining_context(&self, s: Symbol, def: &Definition) -> IdpResult<()> {
        let program = self.program;
        let name = program.symbol_name(s);
        let cycle = if self.inlining.expanding.contains(&s) {
            let path: Vec<&str> = self
                .inlining
                .expanding
                .iter()
                .skip_while(|x| **x != s)
                .map(|x| program.symbol_name(*x))
                .collect();
            format!("its rules read themselves through {}", path.join(" -> "))
        } else if self.defining.is_empty() {
            return Ok(());
        } else {
            let mut used = HashSet::default();
            for rule in &def.rules {
                crate::sema::walk::symbols(&rule.body, &mut used);
            }
            match self.defining.iter().find(|d| used.contains(d)) {
                Some(d) => format!(
                    "its rules read '{}', whose definition, being grounded, reads '{name}'",
                    program.symbol_name(*d)
                ),
                None => return Ok(()),
            }
        };
        Err(Error::input(format!(
            "'{name}' ranges over an infinite type, so its atoms are expanded on demand into \
             its rule bodies, but {cycle}. Give its arguments finite types."
        )))
    }

    fn expand(&mut self, def: &Definition, s: Symbol, t: &[Value]) -> IdpResult<Gf> {
        let mut bodies = Vec::new();
        for rule in def.rules.iter().filter(|r| r.head == s) {
            let Some(rest) = self.match_head(rule, t)? else {
                continue;
            };
            let body = self.ground_body(&rest, &rule.body)?;
            for v in &rule.vars {
                self.unbind(v);
            }
            if body == Gf::TRUE {
                return Ok(Gf::TRUE);
            }
            bodies.push(body);
        }
        Ok(self.store.or(bodies))
    }

    /// Binds the head variables of `rule` to `t`; returns the rule's other variables, or `None`
    /// when the head cannot match `t` (a different domain element, a repeated variable with two
    /// values, a value outside a variable's sort, an undefined term). Variables are bound
    /// first, so that a term over them in another position (`p(x, x + 1)`) can be evaluated.
    fn match_head(&mut self, rule: &Rule, t: &[Value]) -> IdpResult<Option<Vec<Var>>> {
        for v in &rule.vars {
            self.unbind(v);
        }
        let mut bound: Vec<u32> = Vec::new();
        let mut matched = true;
        for (arg, &value) in rule.head_args.iter().zip(t) {
            let TermKind::Var(v) = arg.kind() else {
                continue;
            };
            if bound.contains(&v.id) {
                matched &= self.lookup(v) == Some(value);
            } else {
                bound.push(v.id);
                self.bind(v, value);
                matched &= self.domains.contains(v.sort, value);
            }
        }
        for (arg, &value) in rule.head_args.iter().zip(t) {
            if !matched {
                break;
            }
            matched = match arg.kind() {
                TermKind::Var(_) => true,
                TermKind::Value(x) => *x == value,
                _ if self.is_closed(arg) => self.head_term_matches(rule, arg, value)?,
                _ => return Err(self.head_argument_error(rule)),
            };
        }
        if !matched {
            for v in &rule.vars {
                self.unbind(v);
            }
            return Ok(None);
        }
        Ok(Some(
            rule.vars
                .iter()
                .filter(|v| !bound.contains(&v.id))
                .cloned()
                .collect(),
        ))
    }

    /// Whether a head argument term without free variables has the value `value`; an error
    /// when its value depends on symbols the structure leaves unknown.
    fn head_term_matches(&mut self, rule: &Rule, arg: &Term, value: Value) -> IdpResult<bool> {
        let ground = self.ground_term(arg)?;
        if ground.0.is_empty() {
            return Ok(false);
        }
        match ground.as_known() {
            Some(GVal::V(x)) => Ok(x == value),
            Some(_) => Ok(false),
            None => Err(self.head_argument_error(rule)),
        }
    }

    fn head_argument_error(&self, rule: &Rule) -> Error {
        let at = self.program.position(rule.span).unwrap_or_default();
        Error::input(format!(
            "The rule at {at} defines '{}' over an infinite type, so it is evaluated on demand, \
             which needs every head argument to be a variable, a domain element, or a term that \
             the structure determines once the head's variables are known.",
            self.program.symbol_name(rule.head)
        ))
    }
}
