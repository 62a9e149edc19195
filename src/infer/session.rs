//! A solving session: one theory grounded over one structure, encoded into one incremental SAT
//! solver. Definitions are encoded by completion; after every candidate model, unfounded sets
//! are searched and refuted by loop formulas (added lazily), and definitions with recursion
//! through negation are checked to have a total well-founded model. A non-recursive
//! definition that cannot be grounded because it ranges over an infinite type is evaluated on
//! demand instead (see [`crate::ground::inlined`]). Inferences (model expansion, optimisation,
//! propagation) drive a session.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Instant;

use indexmap::IndexMap;

use crate::encode::ranking::{
    positive_atoms, ranking_constraints, recursive_components, terminal_components,
};
use crate::encode::Encoder;
use crate::error::{Error, IdpResult, Limit};
use crate::ground::dump::ground_theory_text;
use crate::ground::inlined::inlinable;
use crate::ground::store::{AtomId, Gf};
use crate::ground::wellfounded::{evaluate, without_positive, Evaluator};
use crate::ground::{GroundDefinition, Grounder};
use crate::infer::{Options, SatBackend};
use crate::print::theory::{definition_to_string, formula_to_string};
use crate::sema::domains::cartesian;
use crate::sema::ir::{Definition, Formula, FormulaKind, Term, TermKind};
use crate::sema::program::{FuncId, Program, SortId, Symbol, Theory, VocId};
use crate::sema::walk::{any_term, symbols};
use crate::solve::{Cadical, Lit, SatResult, SatSolver, Splr};
use crate::source::Span;
use crate::structure::structure::{Structure, Table};
use crate::structure::value::Tuple;

/// A definition switches from lazy loop formulas to the ranking translation after this many
/// rounds of loop formulas ...
const RANKING_AFTER_LOOPS: usize = 1000;

/// ... or earlier, once it has had at least `RANKING_MIN_LOOPS` rounds and the rounds have
/// taken `RANKING_AFTER_SECONDS`: cheap rounds (short Hamiltonian paths) are best finished
/// lazily, while expensive ones (Hamiltonian cycles over hundreds of vertices, unsatisfiable
/// mazes) are not worth continuing.
const RANKING_MIN_LOOPS: usize = 64;
const RANKING_AFTER_SECONDS: f64 = 20.0;

/// Once a definition needs a second round of lazy loop formulas, it gets the loop formulas of
/// all its two-atom loops at once (at most `MAX_PAIR_LOOPS` of them): cheap, and they spare
/// the rounds that would find them one by one. A definition without loops, or whose first
/// candidate model is well-founded, never pays for them.
const PAIR_LOOPS_AFTER: usize = 2;
const MAX_PAIR_LOOPS: usize = 200_000;

/// Whether a definition with `loops` rounds of loop formulas, the first `elapsed` ago, should
/// switch to the ranking translation. `IDP_RANKING_AFTER=N` fixes the switch at N rounds
/// (deterministic, for experiments).
fn switch_to_ranking(loops: usize, elapsed: std::time::Duration) -> bool {
    match std::env::var("IDP_RANKING_AFTER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(n) => loops >= n,
        None => {
            loops >= RANKING_AFTER_LOOPS
                || (loops >= RANKING_MIN_LOOPS && elapsed.as_secs_f64() >= RANKING_AFTER_SECONDS)
        }
    }
}

/// A definition as encoded in a session.
struct EncodedDefinition {
    evaluator: Evaluator,
    /// Rule bodies per defined atom.
    bodies: HashMap<AtomId, Vec<Gf>>,
    /// Defined atoms occurring positively in the bodies of each defined atom.
    deps: HashMap<AtomId, Vec<AtomId>>,
    /// How many rounds of loop formulas this definition needed so far.
    loops_added: usize,
    /// When the first loop formula was added.
    first_loop: Option<Instant>,
    /// Whether the ranking translation has been added.
    ranked: bool,
    check_totality: bool,
    /// Where the definition is, and an atom that a candidate model left unknown (for the
    /// warning when no candidate makes the definition total).
    span: Span,
    not_total_example: Option<String>,
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
    /// When this inference must stop (`stdoptions.timeout`; the run's `--timeout` is checked
    /// separately, so that the message names the right limit).
    own_deadline: Option<Instant>,
    stable: bool,
    /// The values of all SAT variables in the last model (index = variable), kept so that
    /// clauses can be added while the model is still being inspected.
    model: Vec<bool>,
    /// Number of candidate models refuted by loop formulas or totality cuts.
    refinements: usize,
    /// The asserted ground formulas, kept only for `--dump ground`.
    asserted: Option<Vec<Gf>>,
    /// Open functions over an infinite argument type: only their applications that grounding
    /// meets get a value (see [`Session::constrain_named_applications`]).
    named_functions: HashSet<FuncId>,
    /// The applications of `named_functions` that have their one-value constraint.
    constrained: HashSet<(FuncId, Tuple)>,
    /// Atoms up to this id have been looked at for new applications.
    atoms_seen: usize,
    /// Shows a progress line on a terminal while the session lives.
    _progress: crate::progress::Running,
}

/// The symbols of a vocabulary that a model interprets (no type predicates, no constructors).
pub fn interpreted_symbols(program: &Program, voc: VocId) -> Vec<Symbol> {
    let v = program.voc(voc);
    let preds = v
        .preds
        .iter()
        .filter(|p| program.pred(**p).type_of.is_none())
        .map(|p| Symbol::Pred(*p));
    let funcs = v
        .funcs
        .iter()
        .filter(|f| program.func(**f).constructor_of.is_none())
        .map(|f| Symbol::Func(*f));
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
    ) -> IdpResult<Session<'a>> {
        let started = Instant::now();
        let own_deadline = (options.timeout > 0.0)
            .then(|| Instant::now() + std::time::Duration::from_secs_f64(options.timeout));
        let deadline = crate::limits::earliest(own_deadline, crate::limits::run_deadline());
        let mut grounder = Grounder::new(program, structure, options.max_ground_size);
        grounder.deadline = own_deadline;
        for d in pending {
            grounder.force_unknown(&d.defined());
        }
        let vocabulary = theory.vocabulary;
        let mut session = Session {
            grounder,
            encoder: Encoder::new(),
            sat: match options.sat_backend {
                SatBackend::Cadical => Box::new(Cadical::new(deadline)),
                SatBackend::Splr => Box::new(Splr::new(deadline)),
            },
            definitions: Vec::new(),
            symbols: interpreted_symbols(program, vocabulary),
            vocabulary,
            options: options.clone(),
            own_deadline,
            stable: options.stablesemantics,
            model: Vec::new(),
            refinements: 0,
            asserted: crate::infer::dump_ground_enabled().then(Vec::new),
            named_functions: HashSet::default(),
            constrained: HashSet::default(),
            atoms_seen: 0,
            _progress: crate::progress::begin(),
        };
        // Sentences that mention no defined symbol and can only give unit literals are grounded
        // first: their units (`~In(x, y)` for the pairs a constraint rules out) simplify the
        // rule bodies. They are asserted after the definitions, which keeps the clause order
        // the solver's heuristics were tuned on. Then the definitions, those that others use
        // before them, so that atoms of defined symbols without a rule are known to be false
        // everywhere after; then the other sentences.
        let defined: HashSet<Symbol> = pending.iter().flat_map(|d| d.defined()).collect();
        let (independent, dependent): (Vec<&Formula>, Vec<&Formula>) =
            theory.sentences.iter().partition(|f| {
                let mut used = HashSet::default();
                symbols(*f, &mut used);
                used.is_disjoint(&defined) && session.gives_units(f)
            });
        let early: Vec<Gf> = session.ground_and_learn(independent)?;
        for d in dependency_order(pending) {
            let atoms_before = session.grounder.store.atom_count();
            let gd = match session.grounder.ground_definition(d) {
                Ok(gd) => gd,
                Err(e) if e.is_unbounded_grounding() && inlinable(program, d, structure) => {
                    session.inline_definition(d, atoms_before)?;
                    continue;
                }
                Err(e) => {
                    let text = definition_to_string(program, d);
                    return Err(naming(e, "the definition", program, d.span, &text));
                }
            };
            session.encode_definition(gd, d.span)?;
            session.check_time("grounding")?;
        }
        for g in early {
            session.assert(g);
        }
        session.ground_sentences(dependent)?;
        session.encode_symbols()?;
        if let Some(asserted) = session.asserted.take() {
            print!(
                "// ground theory ({} formulas)\n{}// end of ground theory\n",
                asserted.len(),
                ground_theory_text(program, &session.grounder.store, &asserted)
            );
        }
        if crate::infer::stats_enabled() {
            eprintln!(
                "[stats] grounded and encoded in {:.3}s: {} nodes, {} atoms, {} SAT variables",
                started.elapsed().as_secs_f64(),
                session.grounder.store.len(),
                session.grounder.store.atom_count(),
                session.sat.num_vars()
            );
        }
        Ok(session)
    }

    /// The sentences ordered by the size of their outer universal quantification, so that
    /// small sentences (often unit constraints) are grounded first and simplify the others.
    /// Grounds each sentence and learns its units, without asserting it yet: first those that
    /// can only give unit literals (so the others are grounded with them), each group
    /// cheapest first. Returns the ground sentences in that order.
    fn ground_and_learn(&mut self, sentences: Vec<&Formula>) -> IdpResult<Vec<Gf>> {
        let (unit_like, rest): (Vec<&Formula>, Vec<&Formula>) =
            sentences.into_iter().partition(|f| self.gives_units(f));
        let mut ordered = self.cheapest_first(unit_like);
        ordered.extend(self.cheapest_first(rest));
        let mut out = Vec::new();
        for sentence in ordered {
            let grounded = self
                .grounder
                .ground_formula(sentence)
                .and_then(|g| self.grounder.check_growth().map(|()| g));
            let g = grounded.map_err(|e| {
                let program = self.grounder.program;
                let text = formula_to_string(program, sentence);
                naming(e, "the sentence", program, sentence.span, &text)
            })?;
            self.grounder.learn_units(g);
            out.push(g);
            self.check_time("grounding")?;
        }
        Ok(out)
    }

    /// Grounds, learns the units of and asserts each sentence.
    fn ground_sentences(&mut self, sentences: Vec<&Formula>) -> IdpResult<()> {
        for g in self.ground_and_learn(sentences)? {
            self.assert(g);
        }
        Ok(())
    }

    /// Whether `f` is `! x1 ... xn: C` with `C` a quantifier-free combination of literals of
    /// which exactly one is not known from the structure: every instance is then a unit
    /// literal or already decided.
    fn gives_units(&self, f: &Formula) -> bool {
        let mut body = f;
        while let FormulaKind::Forall(_, inner) = body.kind() {
            body = inner;
        }
        self.unknown_literals(body) == Some(1)
    }

    /// The number of literals of a quantifier-free formula that mention a symbol the structure
    /// does not fix; `None` when the formula has quantifiers or aggregates.
    fn unknown_literals(&self, f: &Formula) -> Option<usize> {
        match f.kind() {
            FormulaKind::Bool(_) => Some(0),
            FormulaKind::Pred(_, args) if args.iter().any(has_aggregate) => None,
            FormulaKind::Cmp(_, a, b) if has_aggregate(a) || has_aggregate(b) => None,
            FormulaKind::Pred(..) | FormulaKind::Cmp(..) => {
                let mut used = HashSet::default();
                symbols(f, &mut used);
                let unknown = used.iter().any(|&s| !self.grounder.indexable(s));
                Some(usize::from(unknown))
            }
            FormulaKind::Not(g) => self.unknown_literals(g),
            FormulaKind::And(fs) | FormulaKind::Or(fs) => fs
                .iter()
                .map(|g| self.unknown_literals(g))
                .sum::<Option<usize>>(),
            FormulaKind::Implies(a, b) | FormulaKind::Equiv(a, b) => {
                Some(self.unknown_literals(a)? + self.unknown_literals(b)?)
            }
            FormulaKind::Forall(..) | FormulaKind::Exists(..) => None,
        }
    }

    fn cheapest_first<'t>(&mut self, sentences: Vec<&'t Formula>) -> Vec<&'t Formula> {
        let mut keyed: Vec<(u128, usize, &Formula)> = Vec::new();
        for (k, f) in sentences.into_iter().enumerate() {
            let mut size: u128 = 1;
            let mut cur = f;
            while let FormulaKind::Forall(vars, body) = cur.kind() {
                for v in vars {
                    let n = self
                        .grounder
                        .domains
                        .get(v.sort)
                        .map(|d| d.len())
                        .unwrap_or(1 << 20);
                    size = size.saturating_mul(n as u128);
                }
                cur = body;
            }
            keyed.push((size, k, f));
        }
        keyed.sort_by_key(|(size, k, _)| (*size, *k));
        keyed.into_iter().map(|(_, _, f)| f).collect()
    }

    pub fn assert(&mut self, g: Gf) {
        if let Some(asserted) = &mut self.asserted {
            asserted.push(g);
        }
        self.encoder
            .assert(&self.grounder.store, self.sat.as_mut(), g);
    }

    pub fn lit(&mut self, g: Gf) -> Lit {
        self.encoder.lit(&self.grounder.store, self.sat.as_mut(), g)
    }

    /// Stops with a limit error when Ctrl-C was pressed or a time or memory limit is reached.
    fn check_time(&self, during: &str) -> IdpResult<()> {
        crate::limits::check(self.own_deadline, during)
    }

    /// Whether every argument type of `s` has a finite interpretation.
    fn finite_arguments(&mut self, s: Symbol) -> bool {
        let sorts = self.grounder.program.symbol_sorts(s);
        sorts
            .into_iter()
            .all(|sort| self.grounder.domains.get(sort).is_some())
    }

    /// A predicate over an infinite type (`P(string)`) gets atoms only where a formula names
    /// them, as in IDP3's lazy grounding: the others are false in every model, and models
    /// differ only on the named ones. Says so once per predicate.
    fn note_infinite_predicate(&mut self, s: Symbol) {
        let program = self.grounder.program;
        let infinite: Vec<&str> = program
            .symbol_sorts(s)
            .into_iter()
            .filter(|sort| self.grounder.domains.get(*sort).is_none())
            .map(|sort| program.sort(sort).name.as_str())
            .collect();
        crate::infer::warn(format!(
            "{} ranges over the infinite type {}: only its atoms that the theory names are \
             searched; the others are false in the models",
            program.symbol_name(s),
            infinite.join(", ")
        ));
    }

    /// The tuples of a symbol's graph/arguments over the finite domains.
    fn all_tuples(&mut self, s: Symbol) -> IdpResult<Vec<Tuple>> {
        let sorts = self.grounder.program.symbol_sorts(s);
        let mut domains = Vec::with_capacity(sorts.len());
        for sort in sorts {
            domains.push(self.grounder.domain(sort)?.to_vec());
        }
        Ok(cartesian(&domains))
    }

    /// Evaluates definition `d` on demand (see [`crate::ground::inlined`]) after grounding it
    /// up front failed on an infinite type. Refused when grounding before it (the definitions
    /// it depends on in a cycle) already made atoms of its symbols, which would then be
    /// unconstrained. What the structure says about its symbols becomes constraints on the
    /// expansions of those tuples.
    fn inline_definition(&mut self, d: &Definition, atoms_before: usize) -> IdpResult<()> {
        let program = self.grounder.program;
        let defined = d.defined();
        let store = &self.grounder.store;
        if let Some(a) =
            (0..atoms_before as AtomId).find(|&a| defined.contains(&store.atom_key(a).0))
        {
            let text = definition_to_string(program, d);
            let e = Error::input(format!(
                "Infinite grounding: the definition ranges over an infinite type, and its atom {} \
                 is used by a definition it depends on, so it cannot be evaluated on demand. \
                 Give its arguments finite types.",
                crate::ground::dump::atom_text(program, store, a, false)
            ));
            return Err(naming(e, "the definition", program, d.span, &text));
        }
        self.grounder.inline(d);
        for s in defined {
            crate::infer::warn(format!(
                "{} is defined over an infinite type: it is evaluated only for the arguments \
                 the theory uses, and models show only those tuples (as {}<ct> and {}<cf>)",
                program.symbol_name(s),
                program.symbol_name(s),
                program.symbol_name(s)
            ));
            let Some(Table::ThreeValued { ct, cf }) = self.grounder.structure.table(s) else {
                continue;
            };
            let mut known: Vec<(Tuple, bool)> = ct.iter().map(|t| (t.clone(), true)).collect();
            known.extend(cf.iter().map(|t| (t.clone(), false)));
            // Sorted: clause order must not depend on hashing.
            known.sort();
            for (t, truth) in known {
                let g = self.grounder.inlined_atom(s, t)?;
                self.assert(if truth { g } else { -g });
            }
        }
        Ok(())
    }

    /// Completion of a definition: each defined atom is equivalent to the disjunction of its
    /// bodies; defined atoms without rules are false. What the structure says about the defined
    /// symbols becomes constraints.
    fn encode_definition(&mut self, gd: GroundDefinition, span: Span) -> IdpResult<()> {
        for (head, bodies) in &gd.rules {
            let body = self.grounder.store.or(bodies.iter().copied());
            let eq = self.grounder.store.equiv(*head, body);
            self.assert(eq);
            if let Some(a) = self.grounder.store.as_atom(*head) {
                self.grounder.heads.insert(a);
            }
        }
        let defined: HashSet<Symbol> = gd.defined.iter().copied().collect();
        for a in 0..self.grounder.store.atom_count() as AtomId {
            let (s, t) = self.grounder.store.atom_key(a);
            if defined.contains(s)
                && self.grounder.is_forced(*s, t)
                && !self.grounder.heads.contains(&a)
            {
                let g = self.grounder.store.atom_gf(a);
                self.assert(-g);
            }
        }
        for &s in &gd.defined {
            self.grounder.complete.insert(s);
            self.encode_known_part(s)?;
        }
        let evaluator = Evaluator::new(&self.grounder.store, &gd);
        let check_totality = !self.stable && evaluator.has_negative_recursion(&self.grounder.store);
        let defined = evaluator.defined();
        let mut bodies = HashMap::default();
        let mut deps = HashMap::default();
        for (k, &h) in evaluator.heads().iter().enumerate() {
            let bs = evaluator.bodies(k).to_vec();
            let mut d: HashSet<AtomId> = HashSet::default();
            for &b in &bs {
                d.extend(
                    positive_atoms(&self.grounder.store, b)
                        .into_iter()
                        .filter(|a| defined.contains(a)),
                );
            }
            deps.insert(h, d.into_iter().collect());
            bodies.insert(h, bs);
        }
        self.definitions.push(EncodedDefinition {
            evaluator,
            bodies,
            deps,
            loops_added: 0,
            first_loop: None,
            ranked: false,
            check_totality,
            span,
            not_total_example: None,
        });
        Ok(())
    }

    /// Loop formulas for every pair of defined atoms that support each other directly: the
    /// shortest loops, cheap to state all at once (the two-cycles of a candidate Hamiltonian
    /// cycle), for a definition whose lazy rounds keep finding loops.
    fn add_two_atom_loop_formulas(&mut self, k: usize) {
        let def = &self.definitions[k];
        let mut pairs = Vec::new();
        for (&h, ds) in &def.deps {
            for &d in ds {
                if h < d && def.deps.get(&d).is_some_and(|back| back.contains(&h)) {
                    pairs.push((h, d));
                }
            }
        }
        if pairs.len() > MAX_PAIR_LOOPS {
            return;
        }
        pairs.sort_unstable();
        for (h, d) in pairs {
            self.add_loop_formula(k, &[h, d].into_iter().collect());
        }
    }

    /// The structure's certainly true and certainly false tuples of a defined symbol.
    fn encode_known_part(&mut self, s: Symbol) -> IdpResult<()> {
        let Some(table) = self.grounder.structure.table(s).cloned() else {
            return Ok(());
        };
        // Sorted: the structure's tables are unordered sets, and clause order must not depend
        // on hashing (identical runs give identical output).
        let mut trues: Vec<&Tuple> = table.ct().iter().collect();
        trues.sort();
        for t in trues {
            if self.grounder.is_forced(s, t) {
                let atom = self.grounder.atom(s, t.clone());
                self.assert(atom);
            }
        }
        let mut falses: Vec<Tuple> = match &table {
            Table::ThreeValued { cf, .. } => cf.iter().cloned().collect(),
            Table::TwoValued(ct) => {
                let heads: Vec<Tuple> = self
                    .grounder
                    .heads
                    .iter()
                    .map(|&a| self.grounder.store.atom_key(a))
                    .filter(|(x, _)| *x == s)
                    .map(|(_, t)| t.clone())
                    .collect();
                heads.into_iter().filter(|t| !ct.contains(t)).collect()
            }
        };
        falses.sort();
        for t in falses {
            if self.grounder.is_forced(s, &t) {
                let atom = self.grounder.atom(s, t);
                self.assert(-atom);
            }
        }
        Ok(())
    }

    /// Creates atoms for every unknown tuple of every symbol (so that models are two-valued and
    /// counted on all of them) and adds the function constraints.
    fn encode_symbols(&mut self) -> IdpResult<()> {
        for s in self.symbols.clone() {
            if matches!(self.grounder.structure.table(s), Some(Table::TwoValued(_)))
                && !self.grounder.forced_unknown.contains(&s)
            {
                continue;
            }
            if self.grounder.structure.lazy.contains_key(&s) || self.grounder.is_inlined(s) {
                continue;
            }
            if matches!(s, Symbol::Pred(_)) && !self.finite_arguments(s) {
                self.note_infinite_predicate(s);
                continue;
            }
            if self.options.leave_unmentioned_false && matches!(s, Symbol::Pred(_)) {
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
            self.grounder.check_growth()?;
        }
        Ok(())
    }

    /// Exactly one value per argument tuple (at most one for a partial function). A function
    /// over an infinite argument type with a finite result type gets it only for the
    /// applications that grounding meets, as in IDP3's lazy grounding.
    fn encode_function(&mut self, f: FuncId) -> IdpResult<()> {
        let func = self.grounder.program.func(f).clone();
        let mut arg_domains = Vec::new();
        for &a in &func.args {
            match self.grounder.domains.get(a) {
                Some(d) => arg_domains.push(d.to_vec()),
                None if self.grounder.domains.get(func.result).is_some() => {
                    self.note_named_function(f, a);
                    return self.constrain_named_applications();
                }
                // Its error names the infinite type.
                None => arg_domains.push(self.grounder.domain(a)?.to_vec()),
            }
        }
        for args in cartesian(&arg_domains) {
            self.encode_application(f, args)?;
        }
        Ok(())
    }

    /// `f(args)` takes exactly one value (at most one when `f` is partial).
    fn encode_application(&mut self, f: FuncId, args: Tuple) -> IdpResult<()> {
        let partial = self.grounder.program.func(f).partial;
        let options = self.grounder.apply_function(f, args)?;
        let guards: Vec<Gf> = options.iter().map(|(g, _)| *g).collect();
        for &g in &guards {
            if !g.is_const() {
                self.lit(g);
            }
        }
        if !partial {
            let any = self.grounder.store.or(guards.iter().copied());
            self.assert(any);
        }
        self.at_most_one(&guards);
        Ok(())
    }

    fn note_named_function(&mut self, f: FuncId, infinite: SortId) {
        let program = self.grounder.program;
        self.named_functions.insert(f);
        crate::infer::warn(format!(
            "{} ranges over the infinite type {}: only its applications that the theory names \
             are searched, and models show only those",
            program.func(f).name,
            program.sort(infinite).name
        ));
    }

    /// Gives every application of a function of `named_functions` met since the last call
    /// (in sentences, definitions, or an objective grounded later) its one-value constraint.
    fn constrain_named_applications(&mut self) -> IdpResult<()> {
        if self.named_functions.is_empty() {
            return Ok(());
        }
        while self.atoms_seen < self.grounder.store.atom_count() {
            let (symbol, tuple) = self.grounder.store.atom_key(self.atoms_seen as AtomId);
            self.atoms_seen += 1;
            let Symbol::Func(f) = *symbol else { continue };
            if !self.named_functions.contains(&f) {
                continue;
            }
            let args = tuple[..tuple.len() - 1].to_vec();
            if self.constrained.insert((f, args.clone())) {
                self.encode_application(f, args)?;
            }
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
    pub fn solve(&mut self, assumptions: &[Lit]) -> IdpResult<bool> {
        self.constrain_named_applications()?;
        loop {
            self.check_time("searching")?;
            let t0 = Instant::now();
            crate::progress::set_phase(crate::progress::Phase::Solving);
            crate::progress::set_nodes(self.grounder.store.len());
            crate::progress::sat_call();
            let result = self.sat.solve(assumptions);
            if crate::infer::stats_enabled() {
                eprintln!(
                    "[stats] SAT call: {:?} in {:.3}s",
                    result,
                    t0.elapsed().as_secs_f64()
                );
            }
            match result {
                SatResult::Unsat => return Ok(false),
                SatResult::Interrupted => {
                    self.check_time("searching")?;
                    return Err(Error::limit(Limit::Search, "the SAT search was stopped"));
                }
                SatResult::Sat => self.take_model(),
            }
            if self.refute_unfounded() || self.refute_non_total() {
                self.refinements += 1;
                continue;
            }
            if crate::infer::stats_enabled() {
                eprintln!(
                    "[stats] model found after {} refinements (loop formulas, totality cuts)",
                    self.refinements
                );
            }
            return Ok(true);
        }
    }

    fn take_model(&mut self) {
        let n = self.sat.num_vars();
        self.model.clear();
        self.model.push(false);
        for v in 1..=n as Lit {
            self.model.push(self.sat.value(v));
        }
    }

    /// A copy of the last model, to bring back with [`Self::restore_model`] after later SAT
    /// calls.
    pub fn saved_model(&self) -> Vec<bool> {
        self.model.clone()
    }

    /// Makes a model saved with [`Self::saved_model`] the current one again (for decoding).
    pub fn restore_model(&mut self, model: Vec<bool>) {
        self.model = model;
    }

    /// The value of a literal in the last model.
    pub fn lit_value(&self, l: Lit) -> bool {
        let v = self
            .model
            .get(l.unsigned_abs() as usize)
            .copied()
            .unwrap_or(false);
        if l < 0 {
            !v
        } else {
            v
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
            Some(l) => self.lit_value(l),
            None => false,
        }
    }

    fn atom_value(&self, a: AtomId) -> bool {
        self.value(self.grounder.store.atom_gf(a))
    }

    /// Adds loop formulas for the unfounded sets of the current model (one per strongly
    /// connected part of the unfounded set); true if any was found. A definition that keeps
    /// producing loops switches to the ranking translation.
    fn refute_unfounded(&mut self) -> bool {
        let mut added = false;
        for k in 0..self.definitions.len() {
            let unfounded = self.unfounded_atoms(k);
            if unfounded.is_empty() {
                continue;
            }
            for part in self.unfounded_parts(k, &unfounded) {
                self.add_loop_formula(k, &part.into_iter().collect());
            }
            added = true;
            let def = &mut self.definitions[k];
            def.loops_added += 1;
            if def.loops_added == PAIR_LOOPS_AFTER {
                self.add_two_atom_loop_formulas(k);
            }
            let def = &mut self.definitions[k];
            let first = *def.first_loop.get_or_insert_with(Instant::now);
            if !def.ranked && switch_to_ranking(def.loops_added, first.elapsed()) {
                def.ranked = true;
                self.add_ranking(k);
            }
        }
        added
    }

    /// The smallest unfounded sets within `unfounded` that the current model shows: the parts
    /// of its active dependency graph (an atom depends on the unfounded atoms read positively by
    /// its true bodies) that no edge leaves. Each is unfounded by itself, so a loop formula per
    /// part cuts, say, every subtour of a candidate Hamiltonian cycle separately.
    fn unfounded_parts(&self, k: usize, unfounded: &HashSet<AtomId>) -> Vec<Vec<AtomId>> {
        let def = &self.definitions[k];
        let store = &self.grounder.store;
        let mut atoms: Vec<AtomId> = unfounded.iter().copied().collect();
        atoms.sort_unstable();
        let value = |a: AtomId| self.atom_value(a);
        let active = |h: AtomId| -> Vec<AtomId> {
            let bodies = def.bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]);
            bodies
                .iter()
                .filter(|&&b| evaluate(store, b, &value))
                .flat_map(|&b| positive_atoms(store, b))
                .filter(|a| unfounded.contains(a))
                .collect()
        };
        let parts = terminal_components(&atoms, &active);
        if parts.is_empty() {
            vec![atoms]
        } else {
            parts
        }
    }

    /// True defined atoms of definition `k` that the current model does not found.
    fn unfounded_atoms(&self, k: usize) -> HashSet<AtomId> {
        let def = &self.definitions[k];
        let model_true: HashSet<AtomId> = def
            .evaluator
            .heads()
            .iter()
            .copied()
            .filter(|&a| self.atom_value(a))
            .collect();
        let open = |a: AtomId| self.atom_value(a);
        let founded = def
            .evaluator
            .founded(&self.grounder.store, &model_true, &open);
        model_true.difference(&founded).copied().collect()
    }

    /// Every atom of `set` needs support from outside `set`.
    fn add_loop_formula(&mut self, k: usize, set: &HashSet<AtomId>) {
        let mut external = Vec::new();
        for &h in set {
            for &b in self.definitions[k]
                .bodies
                .get(&h)
                .map(|v| v.as_slice())
                .unwrap_or(&[])
            {
                external.push(without_positive(&mut self.grounder.store, b, set));
            }
        }
        let support = self.grounder.store.or(external);
        let support_lit = self.lit(support);
        for a in set {
            let g = self.grounder.store.atom_gf(*a);
            let l = self.lit(g);
            self.sat.add_clause(&[-l, support_lit]);
        }
    }

    /// Adds the ranking translation for every recursive component of definition `k`.
    fn add_ranking(&mut self, k: usize) {
        let def = &self.definitions[k];
        let components = recursive_components(def.evaluator.heads(), &def.deps);
        let bodies = def.bodies.clone();
        for component in components {
            for g in ranking_constraints(&mut self.grounder.store, &component, &bodies) {
                self.assert(g);
            }
        }
        if crate::infer::stats_enabled() {
            eprintln!(
                "[stats] definition {} switched to the ranking translation",
                k + 1
            );
        }
    }

    /// Excludes candidate models in which a definition with recursion through negation has a
    /// well-founded model that is not two-valued; true if any was excluded.
    fn refute_non_total(&mut self) -> bool {
        let mut added = false;
        for k in 0..self.definitions.len() {
            let def = &self.definitions[k];
            if !def.check_totality {
                continue;
            }
            let open = |a: AtomId| self.atom_value(a);
            let wf = def.evaluator.well_founded(&self.grounder.store, &open);
            if wf.unknown_atoms.is_empty() {
                continue;
            }
            if def.not_total_example.is_none() {
                let example = unknown_atoms_text(self.grounder.program, &self.grounder.store, &wf);
                self.definitions[k].not_total_example = Some(example);
            }
            // Only the opens that the unknown atoms depend on: other opens cannot make the
            // definition total, and naming them would refute one candidate at a time.
            let def = &self.definitions[k];
            let below = def
                .evaluator
                .opens_below(&self.grounder.store, wf.unknown_atoms.iter().copied());
            let clause: Vec<Lit> = below
                .iter()
                .map(|&a| {
                    let l = self
                        .encoder
                        .existing_lit(self.grounder.store.atom_gf(a))
                        .unwrap_or(0);
                    if self.lit_value(l) {
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

    /// Warnings for the definitions that were not total in some candidate model, to give when
    /// no model was found.
    pub fn not_total_warnings(&self) -> Vec<String> {
        self.definitions
            .iter()
            .filter_map(|def| {
                let example = def.not_total_example.as_ref()?;
                let at = self.grounder.program.position(def.span).unwrap_or_default();
                Some(format!(
                    "The definition at {at} is not total in the candidate structures tried \
                     (its well-founded model leaves {example} unknown); IDP3's semantics \
                     accepts only total definitions, so those have no model."
                ))
            })
            .collect()
    }

    /// The two-valued structure of the current model.
    pub fn decode(&self, name: &str) -> Structure {
        let base = self.grounder.structure;
        let mut out = Structure::new(name, self.vocabulary);
        out.sorts = base.sorts.clone();
        out.huge_ranges = base.huge_ranges.clone();
        out.lazy = base.lazy.clone();
        let mut tables: IndexMap<Symbol, HashSet<Tuple>> = IndexMap::new();
        for &s in &self.symbols {
            if base.lazy.contains_key(&s) {
                continue;
            }
            let mut set = HashSet::default();
            if let Some(t) = base.table(s) {
                set.extend(
                    t.ct()
                        .iter()
                        .filter(|t| !self.grounder.is_forced(s, t))
                        .cloned(),
                );
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
            let table = if self.grounder.is_inlined(s) {
                self.inlined_table(s)
            } else {
                Table::TwoValued(set.into_iter().collect())
            };
            out.symbols.insert(s, table);
        }
        out
    }

    /// What a model shows of a symbol evaluated on demand: it has infinitely many tuples, so
    /// only those the structure gives and those the grounding expanded are listed, as a
    /// three-valued table (`p<ct>` true, `p<cf>` false; every other tuple is left unknown,
    /// rather than shown false as a two-valued table would).
    fn inlined_table(&self, s: Symbol) -> Table {
        let (mut ct, mut cf) = match self.grounder.structure.table(s) {
            Some(Table::ThreeValued { ct, cf }) => (ct.clone(), cf.clone()),
            _ => Default::default(),
        };
        let store = &self.grounder.store;
        for (t, g) in self.grounder.inlined_tuples(s) {
            if evaluate(store, g, &|a| self.atom_value(a)) {
                ct.insert(t);
            } else {
                cf.insert(t);
            }
        }
        Table::ThreeValued { ct, cf }
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
                clause.push(if self.lit_value(l) { -l } else { l });
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

/// The definitions ordered so that one that uses symbols defined by another comes after it
/// (mutually dependent definitions keep their order).
fn dependency_order<'d>(defs: &[&'d Definition]) -> Vec<&'d Definition> {
    let defined: Vec<HashSet<Symbol>> = defs
        .iter()
        .map(|d| d.defined().into_iter().collect())
        .collect();
    let used: Vec<HashSet<Symbol>> = defs
        .iter()
        .map(|d| {
            let mut out = HashSet::default();
            for r in &d.rules {
                symbols(&r.body, &mut out);
            }
            out
        })
        .collect();
    let mut done = vec![false; defs.len()];
    let mut order = Vec::with_capacity(defs.len());
    while order.len() < defs.len() {
        let ready = (0..defs.len()).find(|&i| {
            !done[i]
                && (0..defs.len()).all(|j| j == i || done[j] || used[i].is_disjoint(&defined[j]))
        });
        let next = ready.unwrap_or_else(|| (0..defs.len()).find(|&i| !done[i]).expect("one left"));
        done[next] = true;
        order.push(defs[next]);
    }
    order
}

/// The first few atoms a well-founded model leaves unknown, as text.
pub fn unknown_atoms_text(
    program: &Program,
    store: &crate::ground::store::Store,
    wf: &crate::ground::wellfounded::WellFounded,
) -> String {
    let mut atoms: Vec<String> = wf
        .unknown_atoms
        .iter()
        .map(|&a| crate::ground::dump::atom_text(program, store, a, false))
        .collect();
    atoms.sort();
    let more = atoms.len().saturating_sub(3);
    atoms.truncate(3);
    let mut text = atoms.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// Adds to an error which sentence or definition was being grounded: where it is (when the
/// sources are known) and its text (the first line, cut at 160 characters).
fn naming(e: Error, what: &str, program: &Program, span: Span, text: &str) -> Error {
    let first_line = text.trim().lines().next().unwrap_or("");
    let mut shown: String = first_line.chars().take(160).collect();
    if shown.len() < first_line.len() || text.trim().lines().count() > 1 {
        shown.push_str(" ...");
    }
    let at = program
        .position(span)
        .map(|p| format!(" at {p}"))
        .unwrap_or_default();
    e.with_context(format!("while grounding {what}{at}: {shown}"), Some(span))
}

/// Whether a term contains an aggregate (or a counting quantifier, which is one).
fn has_aggregate(t: &Term) -> bool {
    any_term(t, &mut |t| matches!(t.kind(), TermKind::Aggregate(..)))
}
