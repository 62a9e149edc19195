//! A solving session: one theory grounded over one structure, encoded into one incremental SAT
//! solver. Definitions are encoded by completion; after every candidate model, unfounded sets
//! are searched and refuted by loop formulas (added lazily), and definitions with recursion
//! through negation are checked to have a total well-founded model. Inferences (model
//! expansion, optimisation, propagation) drive a session.

use std::collections::HashSet;
use std::time::Instant;

use indexmap::IndexMap;

use crate::encode::Encoder;
use crate::ground::domains::cartesian;
use crate::ground::store::{AtomId, Gf};
use crate::ground::wellfounded::{without_positive, Evaluator};
use crate::ground::{GroundDefinition, Grounder};
use crate::infer::{InferError, InferResult, Options};
use crate::sema::ir::Definition;
use crate::sema::program::{Program, Symbol, Theory, VocId};
use crate::solve::{Cadical, Lit, SatResult, SatSolver};
use crate::structure::structure::{Structure, Table, TruthValue};
use crate::structure::value::Tuple;

/// A definition as encoded in a session.
struct EncodedDefinition {
    evaluator: Evaluator,
    check_totality: bool,
    /// Open atoms read by the definition's bodies (for blocking non-total candidates).
    opens: Vec<AtomId>,
}

pub struct Session<'a> {
    pub grounder: Grounder<'a>,
    pub encoder: Encoder,
    pub sat: Box<dyn SatSolver>,
    definitions: Vec<EncodedDefinition>,
    /// The symbols of the model's vocabulary whose values the solver chooses.
    pub symbols: Vec<Symbol>,
    pub vocabulary: VocId,
    pub options: Options,
    deadline: Option<Instant>,
    stable: bool,
}

/// The symbols of a vocabulary that a model interprets (no type predicates, no constructors).
pub fn interpreted_symbols(program: &Program, voc: VocId) -> Vec<Symbol> {
    let v = program.voc(voc);
    let preds = v.preds.iter().filter(|p| program.pred(**p).type_of.is_none()).map(|p| Symbol::Pred(*p));
    let funcs = v.funcs.iter().filter(|f| program.func(**f).constructor_of.is_none()).map(|f| Symbol::Func(*f));
    preds.chain(funcs).collect()
}

impl<'a> Session<'a> {
    /// Grounds and encodes `theory` over `structure` (whose definitions with known opens have
    /// already been evaluated; `pending` are the definitions still to encode).
    pub fn new(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
    ) -> InferResult<Session<'a>> {
        let deadline = (options.timeout > 0.0).then(|| Instant::now() + std::time::Duration::from_secs_f64(options.timeout));
        let mut grounder = Grounder::new(program, structure, options.max_ground_size);
        for d in pending {
            grounder.force_unknown(&d.defined());
        }
        let vocabulary = theory.vocabulary;
        let mut session = Session {
            grounder,
            encoder: Encoder::new(),
            sat: Box::new(Cadical::new(deadline)),
            definitions: Vec::new(),
            symbols: interpreted_symbols(program, vocabulary),
            vocabulary,
            options: options.clone(),
            deadline,
            stable: options.stablesemantics,
        };
        for sentence in &theory.sentences {
            let g = session.grounder.ground_formula(sentence)?;
            session.assert(g);
            session.check_time()?;
        }
        for d in pending {
            let gd = session.grounder.ground_definition(d)?;
            session.encode_definition(gd)?;
        }
        session.encode_symbols()?;
        Ok(session)
    }

    pub fn assert(&mut self, g: Gf) {
        self.encoder.assert(&self.grounder.store, self.sat.as_mut(), g);
    }

    pub fn lit(&mut self, g: Gf) -> Lit {
        self.encoder.lit(&self.grounder.store, self.sat.as_mut(), g)
    }

    fn check_time(&self) -> InferResult<()> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) || crate::solve::interrupted() {
            return Err(InferError::Limit("timeout: the time limit (stdoptions.timeout) was reached".into()));
        }
        Ok(())
    }

    /// The tuples of a symbol's graph/arguments over the finite domains.
    fn all_tuples(&mut self, s: Symbol) -> InferResult<Vec<Tuple>> {
        let sorts = self.grounder.program.symbol_sorts(s);
        let mut domains = Vec::with_capacity(sorts.len());
        for sort in sorts {
            domains.push(self.grounder.domain(sort)?.to_vec());
        }
        Ok(cartesian(&domains))
    }

    /// Completion of a definition: each defined atom is equivalent to the disjunction of its
    /// bodies; defined atoms without rules are false.
    fn encode_definition(&mut self, gd: GroundDefinition) -> InferResult<()> {
        let mut heads_with_rules: HashSet<Gf> = HashSet::new();
        for (head, bodies) in &gd.rules {
            let body = self.grounder.store.or(bodies.iter().copied());
            let eq = self.grounder.store.equiv(*head, body);
            self.assert(eq);
            heads_with_rules.insert(*head);
        }
        for &s in &gd.defined {
            for t in self.all_tuples(s)? {
                if !self.grounder.is_forced(s, &t) {
                    continue;
                }
                let atom = self.grounder.store.atom(s, t.clone());
                if !heads_with_rules.contains(&atom) {
                    self.assert(-atom);
                }
                match self.grounder.structure.truth(s, &t) {
                    TruthValue::True => self.assert(atom),
                    TruthValue::False => self.assert(-atom),
                    TruthValue::Unknown => {}
                }
            }
        }
        let evaluator = Evaluator::new(&self.grounder.store, &gd);
        let check_totality = !self.stable && evaluator.has_negative_recursion(&self.grounder.store);
        let opens = if check_totality { self.open_atoms(&gd, &evaluator) } else { Vec::new() };
        self.definitions.push(EncodedDefinition { evaluator, check_totality, opens });
        Ok(())
    }

    fn open_atoms(&self, gd: &GroundDefinition, evaluator: &Evaluator) -> Vec<AtomId> {
        let defined = evaluator.defined();
        let store = &self.grounder.store;
        let mut seen = HashSet::new();
        let mut stack: Vec<Gf> = gd.rules.values().flatten().copied().collect();
        let mut visited = HashSet::new();
        while let Some(g) = stack.pop() {
            if !visited.insert(g.node()) {
                continue;
            }
            match store.node(g) {
                crate::ground::store::Node::Atom(a) if !defined.contains(a) => {
                    seen.insert(*a);
                }
                crate::ground::store::Node::And(c) => stack.extend(c.iter().copied()),
                _ => {}
            }
        }
        let mut v: Vec<AtomId> = seen.into_iter().collect();
        v.sort_unstable();
        v
    }

    /// Creates atoms for every unknown tuple of every symbol (so that models are two-valued and
    /// counted on all of them) and adds the function constraints.
    fn encode_symbols(&mut self) -> InferResult<()> {
        for s in self.symbols.clone() {
            if matches!(self.grounder.structure.table(s), Some(Table::TwoValued(_))) && !self.grounder.forced_unknown.contains(&s) {
                continue;
            }
            match s {
                Symbol::Pred(_) => {
                    for t in self.all_tuples(s)? {
                        let g = self.grounder.atom(s, t);
                        if !g.is_const() {
                            self.lit(g);
                        }
                    }
                }
                Symbol::Func(f) => self.encode_function(f)?,
            }
            self.grounder.check_size()?;
        }
        Ok(())
    }

    /// Exactly one value per argument tuple (at most one for a partial function).
    fn encode_function(&mut self, f: crate::sema::program::FuncId) -> InferResult<()> {
        let func = self.grounder.program.func(f).clone();
        let mut arg_domains = Vec::new();
        for a in &func.args {
            arg_domains.push(self.grounder.domain(*a)?.to_vec());
        }
        for args in cartesian(&arg_domains) {
            let options = self.grounder.apply_function(f, args)?;
            let guards: Vec<Gf> = options.iter().map(|(g, _)| *g).collect();
            for &g in &guards {
                if !g.is_const() {
                    self.lit(g);
                }
            }
            if !func.partial {
                let any = self.grounder.store.or(guards.iter().copied());
                self.assert(any);
            }
            self.at_most_one(&guards);
        }
        Ok(())
    }

    /// At most one of `gs` holds: pairwise for few, a sequential counter for many.
    pub fn at_most_one(&mut self, gs: &[Gf]) {
        let gs: Vec<Gf> = gs.iter().copied().filter(|g| *g != Gf::FALSE).collect();
        if gs.len() <= 1 {
            return;
        }
        let lits: Vec<Lit> = gs.iter().map(|&g| self.lit(g)).collect();
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.sat.add_clause(&[-lits[i], -lits[j]]);
                }
            }
            return;
        }
        // Sequential counter: s_i means "some of lits[0..=i] holds".
        let mut prev = lits[0];
        for &l in &lits[1..] {
            let s = self.sat.new_var();
            self.sat.add_clause(&[-prev, s]);
            self.sat.add_clause(&[-l, s]);
            self.sat.add_clause(&[-prev, -l]);
            prev = s;
        }
    }

    /// Solves under assumptions until a model that satisfies the definitions is found (adding
    /// loop formulas and totality cuts as needed), or none exists.
    pub fn solve(&mut self, assumptions: &[Lit]) -> InferResult<bool> {
        loop {
            self.check_time()?;
            match self.sat.solve(assumptions) {
                SatResult::Unsat => return Ok(false),
                SatResult::Interrupted => {
                    return Err(InferError::Limit("timeout: the time limit (stdoptions.timeout) was reached".into()))
                }
                SatResult::Sat => {}
            }
            if self.refute_unfounded() || self.refute_non_total() {
                continue;
            }
            return Ok(true);
        }
    }

    /// The value of a ground formula in the current SAT model.
    pub fn value(&self, g: Gf) -> bool {
        if g == Gf::TRUE {
            return true;
        }
        if g == Gf::FALSE {
            return false;
        }
        match self.encoder.existing_lit(g) {
            Some(l) => self.sat.value(l),
            None => false,
        }
    }

    fn atom_value(&self, a: AtomId) -> bool {
        self.value(self.grounder.store.atom_gf(a))
    }

    /// Adds loop formulas for the unfounded sets of the current model; true if any was found.
    fn refute_unfounded(&mut self) -> bool {
        let mut added = false;
        for k in 0..self.definitions.len() {
            let def = &self.definitions[k];
            let model_true: HashSet<AtomId> =
                def.evaluator.heads().iter().copied().filter(|&a| self.atom_value(a)).collect();
            let open = |a: AtomId| self.atom_value(a);
            let founded = def.evaluator.founded(&self.grounder.store, &model_true, &open);
            let unfounded: HashSet<AtomId> = model_true.difference(&founded).copied().collect();
            if unfounded.is_empty() {
                continue;
            }
            let mut external = Vec::new();
            let heads: Vec<AtomId> = def.evaluator.heads().to_vec();
            let bodies: Vec<Vec<Gf>> = (0..heads.len()).map(|i| def.evaluator.bodies(i).to_vec()).collect();
            for (i, h) in heads.iter().enumerate() {
                if unfounded.contains(h) {
                    for &b in &bodies[i] {
                        external.push(without_positive(&mut self.grounder.store, b, &unfounded));
                    }
                }
            }
            let support = self.grounder.store.or(external);
            let support_lit = self.lit(support);
            for a in &unfounded {
                let g = self.grounder.store.atom_gf(*a);
                let l = self.lit(g);
                self.sat.add_clause(&[-l, support_lit]);
            }
            added = true;
        }
        added
    }

    /// Excludes candidate models in which a definition with recursion through negation has a
    /// well-founded model that is not two-valued; true if any was excluded.
    fn refute_non_total(&mut self) -> bool {
        let mut added = false;
        for def in &self.definitions {
            if !def.check_totality {
                continue;
            }
            let open = |a: AtomId| self.atom_value(a);
            let wf = def.evaluator.well_founded(&self.grounder.store, &open);
            if wf.unknown_atoms.is_empty() {
                continue;
            }
            let clause: Vec<Lit> = def
                .opens
                .iter()
                .map(|&a| {
                    let l = self.encoder.existing_lit(self.grounder.store.atom_gf(a)).unwrap_or(0);
                    if self.sat.value(l) {
                        -l
                    } else {
                        l
                    }
                })
                .filter(|&l| l != 0)
                .collect();
            self.sat.add_clause(&clause);
            added = true;
        }
        added
    }

    /// The two-valued structure of the current model.
    pub fn decode(&self, name: &str) -> Structure {
        let base = self.grounder.structure;
        let mut out = Structure::new(name, self.vocabulary);
        out.sorts = base.sorts.clone();
        let mut tables: IndexMap<Symbol, HashSet<Tuple>> = IndexMap::new();
        for &s in &self.symbols {
            let mut set = HashSet::new();
            if let Some(t) = base.table(s) {
                set.extend(t.ct().iter().filter(|t| !self.grounder.is_forced(s, t)).cloned());
            }
            tables.insert(s, set);
        }
        let store = &self.grounder.store;
        for a in 0..store.atom_count() as AtomId {
            let (s, t) = store.atom_key(a);
            if let Some(set) = tables.get_mut(s) {
                if self.atom_value(a) {
                    set.insert(t.clone());
                }
            }
        }
        for (s, set) in tables {
            out.symbols.insert(s, Table::TwoValued(set));
        }
        out
    }

    /// A clause that excludes the current model's values of the symbols in `output`.
    pub fn block(&mut self, output: &[Symbol]) {
        let output: HashSet<Symbol> = output.iter().copied().collect();
        let store = &self.grounder.store;
        let mut clause = Vec::new();
        for a in 0..store.atom_count() as AtomId {
            if !output.contains(&store.atom_key(a).0) {
                continue;
            }
            if let Some(l) = self.encoder.existing_lit(store.atom_gf(a)) {
                clause.push(if self.sat.value(l) { -l } else { l });
            }
        }
        self.sat.add_clause(&clause);
    }

    pub fn output_symbols(&self, output: Option<VocId>) -> Vec<Symbol> {
        match output {
            None => self.symbols.clone(),
            Some(v) => interpreted_symbols(self.grounder.program, v),
        }
    }
}
