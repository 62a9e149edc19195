//! Grounding the rules of a definition into one disjunction of bodies per defined atom.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{Error, IdpResult};
use crate::ground::datalog::{self, Approx};
use crate::ground::formulas::Admit;
use crate::ground::store::Gf;
use crate::ground::tuple_set::TupleSet;
use crate::ground::{GVal, GroundDefinition, Grounder};
use crate::ids::{SortId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind};
use crate::sema::walk::free_vars;
use crate::structure::{Table, Value};
use crate::syntax::ast::CmpOp;

impl<'a> Grounder<'a> {
    /// Grounds every rule of `def`. The defined symbols must be in `forced_unknown` so that
    /// their atoms stay atoms.
    pub fn ground_definition(&mut self, def: &Definition) -> IdpResult<GroundDefinition> {
        let mut out = GroundDefinition {
            defined: def.defined(),
            ..GroundDefinition::default()
        };
        let outer = std::mem::replace(&mut self.defining, out.defined.clone());
        self.memo.reads_defining.clear();
        self.restrict_to_possible(def);
        let grounded = def
            .rules
            .iter()
            .try_for_each(|rule| self.ground_rule(rule, &mut out));
        self.defining = outer;
        self.memo.reads_defining.clear();
        grounded.map(|()| out)
    }

    /// Finds the tuples of the defined symbols that can be true, by the least fixpoint of
    /// the definition's possibly-true relaxation ([`datalog::possibly_true`]): atoms outside
    /// them are false in every model, get no rule, and the rules' bodies are grounded with
    /// them false (`GateAt(t, p, k)` only for the cells that hold a gate at the start). When
    /// the relaxation has no Datalog counterpart (or its evaluation fails: the grounding then
    /// meets the problem where it is real), nothing is restricted.
    fn restrict_to_possible(&mut self, def: &Definition) {
        if self.joint_bounds_hold(def) {
            return;
        }
        let approx = |s: Symbol| self.approx(s);
        let Ok(Some(mut possible)) = datalog::possibly_true(
            self.program,
            def,
            self.structure,
            &approx,
            self.growth.max_size,
            &self.growth.until,
        ) else {
            return;
        };
        // What an earlier pass found (the joint bounds of all definitions) is as sound and
        // often tighter: this pass reads the other definitions' symbols one tuple at a time.
        for (s, tuples) in &mut possible {
            if let Some(earlier) = self.status.possible.get(s) {
                tuples.retain(|t| earlier.contains(t));
            }
        }
        let defined = def.defined();
        self.forget_possible(&defined);
        self.record_possible(possible);
    }

    /// Whether the joint pass's bounds of `def`'s symbols are what this definition's own pass
    /// would find: they are still recorded, and every symbol its rules read is approximated
    /// as the joint pass read it (the same bound, or the heads of an encoded definition, as
    /// many as that bound allowed). The least fixpoint of `def`'s relaxation over the same
    /// inputs is then the joint one restricted to `def`'s symbols, so the pass, which costs
    /// a join over every possible tuple (the eight flips of every stack in `pancakes88`),
    /// is skipped.
    fn joint_bounds_hold(&self, def: &Definition) -> bool {
        let joint = &self.status.joint_sizes;
        let recorded = |s: &Symbol| self.status.possible.get(s).map(TupleSet::len);
        let defined = def.defined();
        if !defined
            .iter()
            .all(|s| joint.contains_key(s) && recorded(s) == joint.get(s).copied())
        {
            return false;
        }
        let mut read = rustc_hash::FxHashSet::default();
        for rule in &def.rules {
            crate::sema::walk::symbols(&rule.body, &mut read);
            for arg in &rule.head_args {
                crate::sema::walk::symbols(arg, &mut read);
            }
        }
        read.iter()
            .filter(|s| !defined.contains(s))
            .all(|s| match joint.get(s) {
                Some(&n) if self.status.complete.contains(s) => self.head_count(*s) == n,
                Some(&n) => recorded(s) == Some(n),
                None => !self.status.complete.contains(s) && recorded(s).is_none(),
            })
    }

    /// Keeps what a possibly-true pass found, as tuple sets.
    pub(super) fn record_possible(&mut self, possible: datalog::Extensions) {
        let program = self.program;
        self.status
            .possible
            .extend(possible.into_iter().map(|(s, tuples)| {
                let arity = program.symbol_sorts(s).len();
                (s, TupleSet::of(arity, tuples.iter().map(Vec::as_slice)))
            }));
    }

    /// What is known of `s` for the possibly-true relaxation of a definition that does not
    /// define it.
    pub(super) fn approx(&self, s: Symbol) -> Approx {
        if self.lazy_procedure(s).is_some() {
            return Approx::Anything;
        }
        if self.status.forced_unknown.contains(&s) {
            return if self.status.complete.contains(&s) {
                Approx::Possible(self.head_tuples(s))
            } else {
                match self.status.possible.get(&s) {
                    Some(p) => Approx::Possible(p.iter().map(<[Value]>::to_vec).collect()),
                    None => Approx::Anything,
                }
            };
        }
        if let Some(bound) = self.status.possible.get(&s) {
            return Approx::Possible(bound.iter().map(<[Value]>::to_vec).collect());
        }
        if let Some(graph) = self.symbol_bounded_graph(s) {
            return Approx::Possible(graph);
        }
        match self.structure.table(s) {
            Some(Table::TwoValued(_)) => Approx::Exact,
            Some(Table::ThreeValued { ct, cf }) => Approx::Partial {
                ct: ct.iter().cloned().collect(),
                cf: cf.iter().cloned().collect(),
            },
            None => Approx::Anything,
        }
    }

    /// Grounds one rule without folding `D | ~D` to true or `D & ~D` to false: under the
    /// three-valued well-founded semantics both are unknown while `D` is. The whole rule is
    /// grounded so, as the body's ground subformulas are memoised while candidates are sought.
    fn ground_rule(&mut self, rule: &Rule, out: &mut GroundDefinition) -> IdpResult<()> {
        let started = std::time::Instant::now();
        let (nodes, bindings) = (self.store.len(), self.bindings_tried());
        let instances: usize = out.rules.values().map(Vec::len).sum();
        let saved = std::mem::replace(&mut self.store.keep_complements, true);
        let grounded = self.ground_rule_instances(rule, out);
        self.store.keep_complements = saved;
        let cost = crate::ground::RuleCost {
            span: rule.span,
            seconds: started.elapsed().as_secs_f64(),
            instances: out.rules.values().map(Vec::len).sum::<usize>() - instances,
            nodes: self.store.len() - nodes,
            bindings: self.bindings_tried() - bindings,
        };
        // A limit that stops the rule names it with how far it got (the definition around it
        // is named by the caller).
        let grounded =
            grounded.map_err(|e| match (e.is_limit(), self.program.position(rule.span)) {
                (true, Some(at)) => e.with_context(
                    format!(
                        "while grounding the rule at {at}: {} ground rules, {} new nodes ({} \
                     bindings tried) so far",
                        cost.instances, cost.nodes, cost.bindings
                    ),
                    Some(rule.span),
                ),
                _ => e,
            });
        out.costs.push(cost);
        grounded
    }

    fn ground_rule_instances(&mut self, rule: &Rule, out: &mut GroundDefinition) -> IdpResult<()> {
        if let Some(heads) = self.few_possible_heads(rule) {
            return self.ground_rule_at_heads(rule, heads, out);
        }
        let lifted = joined_existential(rule);
        let (vars, body) = match &lifted {
            Some((vars, body)) => (vars.as_slice(), *body),
            None => (rule.vars.as_slice(), &rule.body),
        };
        let head = RuleHead::new(self, rule);
        // A head the possibly-true pass ruled out is rejected as soon as its variables are
        // bound, before the body is grounded.
        let mut reads: Vec<u32> = Vec::new();
        for arg in &rule.head_args {
            free_vars(arg, &mut |v| reads.push(v.id));
        }
        // The tuple of the head last admitted: the bindings below it leave it as it is.
        let admitted: RefCell<Option<Vec<Value>>> = RefCell::new(None);
        let mut check = |g: &mut Grounder<'a>| {
            let tuple = head.tuple(g, true)?;
            let possible = tuple.is_some();
            *admitted.borrow_mut() = tuple;
            Ok(possible)
        };
        let restricted = self.status.possible.contains_key(&rule.head);
        let admit = restricted.then_some(Admit {
            reads: &reads,
            check: &mut check,
        });
        self.for_each_admitted_candidate(vars, body, admit, &mut |g, known| {
            let tuple = if restricted {
                admitted.borrow().clone()
            } else {
                head.tuple(g, false)?
            };
            let Some(tuple) = tuple else {
                return Ok(false);
            };
            let body = g.condition(known, body)?;
            if body == Gf::FALSE {
                return Ok(false);
            }
            let head = g.store.atom(rule.head, &tuple);
            out.rules.entry(head).or_default().push(body);
            Ok(false)
        })?;
        self.check_growth()
    }

    /// The possibly true tuples of a rule's head, sorted and flat, when its arguments are its
    /// variables
    /// (each once) and they are far fewer than the bindings of those variables: the rule is
    /// then ground at each of them, instead of over the product of the variables' types (a
    /// fluent that holds at a few cells per time point, over a type of hundreds of elements).
    fn few_possible_heads(&self, rule: &Rule) -> Option<Rc<[Value]>> {
        let possible = self.status.possible.get(&rule.head)?;
        let vars = head_variables(rule)?;
        let mut bindings: usize = 1;
        for v in &vars {
            bindings = bindings.saturating_mul(self.domains.get(v.sort)?.len());
        }
        if bindings < FEW_HEADS_FROM.max(possible.len().saturating_mul(FEW_HEADS_RATIO)) {
            return None;
        }
        // A body atom that binds the head's variables with far fewer possible tuples is the
        // better start (`porder(_v, ..) <- I_porder(..) & _v = Start`: one initial state, not
        // every state at every time).
        if self
            .smallest_body_bound(&rule.body, &vars)
            .is_some_and(|n| n.saturating_mul(FEW_HEADS_RATIO) <= possible.len())
        {
            return None;
        }
        Some(possible.sorted())
    }

    /// The fewest tuples that an atom among the conjuncts of `body` allows (a two-valued table
    /// or a possibly-true bound), among the atoms that bind every variable of `vars` but those
    /// a conjunct `v = t` gives a value without any variable (`_v = Start`).
    fn smallest_body_bound(&self, body: &Formula, vars: &[&crate::sema::ir::Var]) -> Option<usize> {
        let mut given: Vec<u32> = Vec::new();
        super::formulas::conjuncts(body, &mut |f| {
            if let FormulaKind::Cmp(CmpOp::Eq, a, b) = f.kind() {
                for (v, t) in [(a, b), (b, a)] {
                    if let TermKind::Var(v) = v.kind() {
                        let mut closed = true;
                        free_vars(t, &mut |_| closed = false);
                        if closed {
                            given.push(v.id);
                        }
                    }
                }
            }
        });
        let mut smallest: Option<usize> = None;
        super::formulas::conjuncts(body, &mut |f| {
            let FormulaKind::Pred(p, _) = f.kind() else {
                return;
            };
            if self.program.pred(*p).type_of.is_some() {
                return;
            }
            let mut bound: Vec<u32> = given.clone();
            free_vars(f, &mut |v| bound.push(v.id));
            if !vars.iter().all(|v| bound.contains(&v.id)) {
                return;
            }
            if let Some(n) = self.bound_size(Symbol::Pred(*p)) {
                smallest = Some(smallest.map_or(n, |m| m.min(n)));
            }
        });
        smallest
    }

    /// Grounds `rule` at each of `heads` (see [`Self::few_possible_heads`]).
    fn ground_rule_at_heads(
        &mut self,
        rule: &Rule,
        heads: Rc<[Value]>,
        out: &mut GroundDefinition,
    ) -> IdpResult<()> {
        let vars = head_variables(rule).expect("checked by few_possible_heads");
        let mut atoms = match self.head_atoms.take() {
            Some((rows, atoms)) if Rc::ptr_eq(&rows, &heads) => atoms,
            _ => vec![Gf::TRUE; heads.len() / vars.len()],
        };
        for (tuple, known) in heads.chunks_exact(vars.len()).zip(atoms.iter_mut()) {
            self.step()?;
            if !vars
                .iter()
                .zip(tuple)
                .all(|(v, x)| self.domains.contains(v.sort, *x))
            {
                continue;
            }
            for (v, x) in vars.iter().zip(tuple) {
                self.bind(v, *x);
            }
            let body = self.ground_formula(&rule.body)?;
            if body != Gf::FALSE {
                if *known == Gf::TRUE {
                    *known = self.store.atom(rule.head, tuple);
                }
                out.rules.entry(*known).or_default().push(body);
            }
        }
        for v in &vars {
            self.unbind(v);
        }
        self.head_atoms = Some((heads, atoms));
        self.check_growth()
    }

    /// The value of a rule head's argument under the current bindings (`None` when it is
    /// undefined); an error when grounding does not determine it.
    fn head_argument(&mut self, arg: &Term) -> IdpResult<Option<Value>> {
        if let Some(v) = self.simple_value(arg) {
            return Ok(Some(v));
        }
        let ground = self.ground_term(arg)?;
        if ground.0.is_empty() {
            return Ok(None);
        }
        match ground.as_known() {
            Some(GVal::V(v)) => Ok(Some(v)),
            _ => Err(Error::input(
                "a rule head argument must be a variable or a domain element",
            )),
        }
    }

    /// Marks the symbols of a definition as unknown so that grounding keeps their atoms.
    pub fn force_unknown(&mut self, symbols: &[Symbol]) {
        self.memo.applications.clear();
        self.status.forced_unknown.extend(symbols.iter().copied());
    }
}

/// Below this many bindings of a rule's head variables, the rule is ground the usual way.
const FEW_HEADS_FROM: usize = 100_000;
/// A rule is ground at its possible heads when its head variables have this many times more
/// bindings.
const FEW_HEADS_RATIO: usize = 16;

/// The variables of a rule that are its head's arguments, each once and nothing else.
fn head_variables(rule: &Rule) -> Option<Vec<&crate::sema::ir::Var>> {
    let mut vars = Vec::with_capacity(rule.head_args.len());
    for a in &rule.head_args {
        let TermKind::Var(v) = a.kind() else {
            return None;
        };
        if vars.iter().any(|w: &&crate::sema::ir::Var| w.id == v.id) {
            return None;
        }
        vars.push(v);
    }
    let all = rule.vars.len() == vars.len()
        && rule.vars.iter().all(|v| vars.iter().any(|w| w.id == v.id));
    all.then_some(vars)
}

/// A rule's head, to read its tuple under the bindings of the rule's variables.
struct RuleHead<'r> {
    rule: &'r Rule,
    sorts: Vec<SortId>,
    /// Whether an argument's value must be checked against the head's sort (a variable of
    /// that sort or a subsort needs no check).
    checked: Vec<bool>,
}

impl<'r> RuleHead<'r> {
    fn new(g: &Grounder, rule: &'r Rule) -> RuleHead<'r> {
        let sorts = g.program.symbol_sorts(rule.head);
        let checked = rule
            .head_args
            .iter()
            .zip(&sorts)
            .map(|(arg, &sort)| match arg.kind() {
                TermKind::Var(v) => !g.program.is_subsort(v.sort, sort),
                _ => true,
            })
            .collect();
        RuleHead {
            rule,
            sorts,
            checked,
        }
    }

    /// The head's tuple, unless an argument is undefined (`Next(t)` at the last time point) or
    /// outside its sort, or the atom cannot be true (the possibly-true pass is asked when
    /// `possible` is set).
    fn tuple(&self, g: &mut Grounder, possible: bool) -> IdpResult<Option<Vec<Value>>> {
        let mut tuple = Vec::with_capacity(self.rule.head_args.len());
        for (k, arg) in self.rule.head_args.iter().enumerate() {
            let Some(v) = g.head_argument(arg)? else {
                return Ok(None);
            };
            if self.checked[k] && !g.domains.contains(self.sorts[k], v) {
                return Ok(None);
            }
            tuple.push(v);
        }
        let head = self.rule.head;
        let admitted = g.is_forced(head, &tuple) && (!possible || g.is_possible(head, &tuple));
        Ok(admitted.then_some(tuple))
    }
}

/// A rule whose body is `? vs: inner`, with every variable of `vs` joined to a head variable
/// by a conjunct atom of `inner`, as the rule over the head variables and `vs` with body
/// `inner`: its instances are the existential's disjuncts, each a body of its own, and the
/// bindings of all the variables are found together (the join can start from the smallest
/// table) instead of the head variables' product first and the existential's join under
/// each (`WetSide(r2, c2, Opp(d)) <- WetSide(r, c, d) & Dest(r, c, d, r2, c2)` binds the
/// rows of `Dest` instead of every `d`, `r2`, `c2`). A variable that no atom joins to the
/// head stays inside: its existential is ground once for every head.
fn joined_existential(rule: &Rule) -> Option<(Vec<crate::sema::ir::Var>, &Formula)> {
    let FormulaKind::Exists(inner_vars, inner) = rule.body.kind() else {
        return None;
    };
    let head_ids: Vec<u32> = rule.vars.iter().map(|v| v.id).collect();
    let mut atoms: Vec<Vec<u32>> = Vec::new();
    crate::ground::formulas::conjuncts(inner, &mut |f| {
        if let FormulaKind::Pred(_, args) = f.kind() {
            let mut ids = Vec::new();
            for a in args {
                free_vars(a, &mut |v| ids.push(v.id));
            }
            atoms.push(ids);
        }
    });
    let joined = |id: u32| {
        atoms
            .iter()
            .any(|ids| ids.contains(&id) && ids.iter().any(|i| head_ids.contains(i)))
    };
    if head_ids.is_empty() || !inner_vars.iter().all(|v| joined(v.id)) {
        return None;
    }
    let mut vars = rule.vars.clone();
    vars.extend(inner_vars.iter().cloned());
    Some((vars, inner))
}
