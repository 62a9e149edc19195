//! A solving session: one theory grounded over one structure, encoded into one incremental SAT
//! solver. Definitions are encoded by completion; after every candidate model, unfounded sets
//! are searched and refuted by loop formulas (added lazily), and definitions with recursion
//! through negation are checked to have a total well-founded model. A non-recursive
//! definition that cannot be grounded because it ranges over an infinite type is evaluated on
//! demand instead (see [`crate::ground::inlined`]). Inferences (model expansion, optimisation,
//! propagation) drive a session.

mod explaining;

pub use explaining::{Piece, Setup};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Instant;

use indexmap::IndexMap;

use crate::encode::{assert_completion, Definitions, Sat, SavedModel};
use crate::error::{Error, IdpResult, Limit};
use crate::ground::delayed::Delayed;
use crate::ground::{
    evaluate, ground_theory_text, inlinable, AtomId, GTerm, Gf, GroundDefinition, Grounder, IntVar,
    LinTerm, LinearAtom, LinearObjective, RealAtom, Store, WholeThreshold,
};
use crate::ids::{FuncId, SortId, Symbol, VocId};
use crate::infer::{Options, SatBackend};
use crate::limits::Until;
use crate::print::{definition_to_string, formula_to_string, readable_formula};
use crate::sema::ir::{Definition, Formula, FormulaKind, Term, TermKind};
use crate::sema::transform::linear_closures;
use crate::sema::walk::{any_term, symbols};
use crate::sema::{cartesian, Program, Theory};
use crate::solve::Rational;
use crate::solve::{portfolio_configs, Cadical, Implied, Lit, Portfolio, SatResult, Splr, Traced};
use crate::source::Span;
use crate::structure::{Structure, Table, TruthValue, Tuple, TupleSet, Value};
use std::rc::Rc;

/// One theory grounded over one structure and encoded into one SAT solver. The grounder, the
/// clauses and the definitions' encoding are its parts; inferences call its methods.
pub struct Session<'a> {
    grounder: Grounder<'a>,
    sat: Sat,
    definitions: Definitions,
    /// The symbols of the model's vocabulary whose values the solver chooses.
    symbols: Vec<Symbol>,
    vocabulary: VocId,
    options: Options,
    /// When this inference must stop (`stdoptions.timeout`; the run's `--timeout` is checked
    /// separately, so that the message names the right limit).
    own_deadline: Option<Instant>,
    /// Number of candidate models refuted by loop formulas or totality cuts.
    refinements: usize,
    /// Number of SAT calls so far.
    sat_calls: usize,
    /// Open functions over an infinite argument type: only their applications that grounding
    /// meets get a value (see [`Session::constrain_named_applications`]).
    named_functions: HashSet<FuncId>,
    /// The solver's integer variable of each of the grounder's, and how many of its linear
    /// atoms and axioms are encoded (see [`Session::encode_integers`]).
    numbers: Numbers,
    /// The applications of `named_functions` that have their one-value constraint.
    constrained: HashSet<(FuncId, Tuple)>,
    /// Atoms up to this id have been looked at for new applications.
    atoms_seen: usize,
    /// Warnings for the caller, in the order they arose.
    warnings: Vec<String>,
    /// The definitions encoded here under the well-founded semantics: the symbols each
    /// defines and those its rules read (see [`Session::determined`]).
    encoded_definitions: Vec<(Vec<Symbol>, HashSet<Symbol>)>,
    /// The open predicates whose tuples outside a subset are assumed false
    /// ([`crate::ground::delayed`]).
    delayed: Vec<Delayed>,
    /// The symbols of the definitions a relaxation leaves out ([`Session::relaxation`]):
    /// open within their bounds, and not encoded tuple by tuple.
    left_out: HashSet<Symbol>,
    /// The symbols the theory's sentences and definitions read or define.
    read: HashSet<Symbol>,
    /// With one model asked for, the functions that nothing reads take any allowed value
    /// without grounding: here, the value each application gets in every model (the
    /// structure's value, else the first value it allows; none for a partial function without
    /// one). An application that a term ground later reads (an objective) is encoded then
    /// ([`Session::ground_reading`]) and leaves this map.
    unread: IndexMap<FuncId, HashMap<Tuple, Option<Value>>>,
    /// The ground sentences and rules, kept when the options ask ([`Options::keeps_ground`]).
    kept: Option<KeptGround>,
    /// Shows a progress line on a terminal while the session lives.
    _progress: crate::progress::Running,
}

/// The ground theory of a session as it was encoded: what relevance is read from.
#[derive(Clone, Debug, Default)]
pub struct KeptGround {
    /// Each sentence's grounding.
    pub sentences: Vec<Gf>,
    /// Each defined atom (positive) with the bodies of its rules.
    pub rules: Vec<(Gf, Vec<Gf>)>,
}

/// The CPU time spent encoding (completion, clauses into the solver) while a session is set
/// up, so that `--stats` can tell grounding and encoding apart although they interleave.
#[derive(Default)]
struct EncodingClock {
    seconds: f64,
}

impl EncodingClock {
    /// Runs `encode`, adding the CPU time it takes.
    fn time<T>(&mut self, encode: impl FnOnce() -> T) -> T {
        let started = crate::limits::thread_cpu_seconds();
        let out = encode();
        self.seconds += crate::limits::thread_cpu_seconds() - started;
        out
    }
}

/// Conflicts one SAT call may spend while recursive definitions are kept inside the search by
/// unfounded-set propagation alone; past them they also get the ranking translation (see
/// [`Definitions::rank_propagated`]). Counting the 7x7 mazes takes a few thousand conflicts
/// in all, refuting the 8x8 maze about 12,000; the 10x10 refutation needs the ranks.
const RANKING_AFTER_CONFLICTS: u32 = 15_000;

/// CaDiCaL's configuration when one model is sought past recursive definitions: `sat`
/// (PlayID's `incredible`: 0.1 s against 14 s in the default configuration), each variable
/// first tried false (`phase=0`), as ASP solvers try atoms (clasp's sign heuristic): an atom
/// made true must be founded, one made false needs nothing. Over 35 classic instances
/// (labyrinth, Sokoban, peg solitaire, visit-all; bench/classics) `phase=0` took 118 s
/// against 167 s, the 16x16 labyrinths 13 s against 60 s; Sokoban alone was slower (54
/// against 33 s). Searches this size vary by an order of magnitude with either: `--threads`
/// races both phases.
const ONE_MODEL_PAST_RECURSION: &str = "sat,phase=0";

/// When an inference with `options` must stop by its own time limit (`stdoptions.timeout`).
fn own_deadline(options: &Options) -> Option<Instant> {
    (options.timeout > 0.0)
        .then(|| Instant::now() + std::time::Duration::from_secs_f64(options.timeout))
}

/// The symbols that the sentences and definitions of `theory` read or define.
fn theory_symbols(theory: &Theory) -> HashSet<Symbol> {
    let mut read = HashSet::default();
    for f in &theory.sentences {
        symbols(f, &mut read);
    }
    for rule in theory.definitions.iter().flat_map(|d| &d.rules) {
        read.insert(rule.head);
        for t in &rule.head_args {
            symbols(t, &mut read);
        }
        symbols(&rule.body, &mut read);
    }
    read
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

/// The integer variables a session gave its solver (see [`Session::encode_integers`]).
#[derive(Default)]
struct Numbers {
    /// The solver's variable of each of the grounder's (an index among its real variables
    /// for a real one).
    vars: Vec<usize>,
    /// How many of the grounder's linear atoms, exact real atoms and axioms the solver has.
    atoms: usize,
    real_atoms: usize,
    axioms: usize,
    /// How many of the grounder's thresholds kept whole the solver has.
    thresholds: usize,
    /// The grounder's variables that tell models apart (see [`Session::differing_numbers`]).
    blocked: Vec<usize>,
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
        Session::with_backend(program, theory, pending, structure, options, Relax::No)
            .map(|s| s.expect("a session when no definition is left out"))
    }

    /// A session over a relaxation of `theory`: the definitions whose symbols the joint bounds
    /// allow more than `above` tuples are left out, their symbols open within those bounds.
    /// `None` when no definition is that large (nothing is ground then but the bounds); a
    /// grounding limit when the rest grounds to more than [`RELAXATION_NODES`] nodes. Every
    /// model of the theory is one of the relaxation, so a relaxation without a model answers
    /// for the theory.
    pub fn relaxation(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
        above: usize,
    ) -> IdpResult<Option<Session<'a>>> {
        Session::with_backend(
            program,
            theory,
            pending,
            structure,
            options,
            Relax::LeaveOutAbove(above),
        )
    }

    /// A session over a theory that is already a relaxation in which the tuples lazy grounding
    /// delays can be assumed false ([`crate::infer::abstraction`]): like [`Session::new`], but
    /// the delayed tuples do not stop it.
    pub fn abstraction(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
    ) -> IdpResult<Session<'a>> {
        Session::with_backend(
            program,
            theory,
            pending,
            structure,
            options,
            Relax::Abstracted,
        )
        .map(|s| s.expect("a session when no definition is left out"))
    }

    /// Whether the session's clauses have no model, found within `conflicts` conflicts of
    /// one SAT call (`false` when that call finds a model or spends its budget).
    pub fn refuted_within(&mut self, conflicts: u32) -> IdpResult<bool> {
        self.constrain_named_applications()?;
        let (t0, cpu0) = (Instant::now(), crate::limits::thread_cpu_seconds());
        let result = self.sat.solve(&[], Some(conflicts));
        self.options.observer.stat(|| {
            format!(
                "SAT call on the relaxation ({conflicts} conflicts at most): {result:?} in \
                 {:.3}s ({:.3}s CPU)",
                t0.elapsed().as_secs_f64(),
                crate::limits::thread_cpu_seconds() - cpu0
            )
        });
        Ok(result == SatResult::Unsat)
    }

    /// [`Session::new`] or [`Session::relaxation`] (`relax`), with the solver the options
    /// choose.
    fn with_backend(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
        relax: Relax,
    ) -> IdpResult<Option<Session<'a>>> {
        let make_solver = |until: Until| -> Box<dyn crate::solve::SatSolver> {
            let one_model_past_recursion =
                options.seeks_one_model && pending.iter().any(|d| reads_itself(d));
            let config = match options.tuning.cadical_config.as_deref() {
                None if one_model_past_recursion => Some(ONE_MODEL_PAST_RECURSION),
                config => config,
            };
            match options.sat_backend {
                _ if options.trace => Box::new(Traced::new(until)),
                SatBackend::Cadical if options.threads > 1 => Box::new(Portfolio::new(
                    &until,
                    &portfolio_configs(config, options.threads),
                )),
                SatBackend::Cadical => Box::new(Cadical::configured(until, config)),
                SatBackend::CadicalLoops => Box::new(Cadical::without_propagation(until, config)),
                SatBackend::Splr => Box::new(Splr::new(&until)),
            }
        };
        Session::build(
            program,
            theory,
            pending,
            structure,
            options,
            make_solver,
            relax,
            !options.trace,
        )
    }

    /// [`Session::new`] encoding into the solver that `make_solver` makes for the limits it
    /// is given (the run's, with the session's own deadline; a search stopped by them is
    /// reported as that limit). A [`crate::solve::Recorder`] makes the session's clauses
    /// a template.
    pub fn with_solver(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
        make_solver: impl FnOnce(Until) -> Box<dyn crate::solve::SatSolver>,
    ) -> IdpResult<Session<'a>> {
        Session::build(
            program,
            theory,
            pending,
            structure,
            options,
            make_solver,
            Relax::No,
            false,
        )
        .map(|s| s.expect("a session when no definition is left out"))
    }

    /// The session of [`Session::with_solver`]; with `relax`, that of [`Session::relaxation`]
    /// or [`Session::abstraction`]. With `share_literals`, atoms of non-recursive definitions
    /// may take their bodies' literals ([`Sat::share_literals`]).
    #[allow(clippy::too_many_arguments)]
    fn build(
        program: &'a Program,
        theory: &Theory,
        pending: &[&Definition],
        structure: &'a Structure,
        options: &Options,
        make_solver: impl FnOnce(Until) -> Box<dyn crate::solve::SatSolver>,
        relax: Relax,
        share_literals: bool,
    ) -> IdpResult<Option<Session<'a>>> {
        let own_deadline = own_deadline(options);
        let until = options.run.until(own_deadline);
        let solver = make_solver(until.clone());
        let (started, cpu_started) = (Instant::now(), crate::limits::thread_cpu_seconds());
        let mut grounder = Grounder::new(program, structure, options.max_ground_size, until);
        for d in pending {
            grounder.force_unknown(&d.defined());
        }
        let vocabulary = theory.vocabulary;
        let mut session = Session {
            grounder,
            sat: Sat::new(solver, options.observer.dumps_ground()),
            definitions: Definitions::new(options.tuning.ranking_after),
            symbols: interpreted_symbols(program, vocabulary),
            vocabulary,
            options: options.clone(),
            own_deadline,
            refinements: 0,
            sat_calls: 0,
            named_functions: HashSet::default(),
            numbers: Numbers::default(),
            constrained: HashSet::default(),
            atoms_seen: 0,
            warnings: Vec::new(),
            encoded_definitions: Vec::new(),
            delayed: Vec::new(),
            read: theory_symbols(theory),
            unread: IndexMap::new(),
            left_out: HashSet::default(),
            kept: options.keeps_ground.then(KeptGround::default),
            _progress: options.run.meter().begin(),
        };
        if share_literals {
            session.sat.share_literals();
        }
        // Sentences that mention no defined symbol and can only give unit literals are grounded
        // first: their units (`~In(x, y)` for the pairs a constraint rules out) simplify the
        // rule bodies. They are asserted after the definitions, which keeps the clause order
        // the solver's heuristics were tuned on. Then the definitions, those that others use
        // before them, so that atoms of defined symbols without a rule are known to be false
        // everywhere after; then the other sentences.
        if let Some(searched) = &options.dont_care {
            session.drop_dont_care(searched);
        }
        session.grounder.bound_constants(&theory.sentences);
        session
            .grounder
            .bound_constants_by_comparisons(&theory.sentences);
        let defined: HashSet<Symbol> = pending.iter().flat_map(|d| d.defined()).collect();
        session
            .grounder
            .bound_applications_by_atoms(&theory.sentences, &defined);
        let declared: Vec<FuncId> = program.voc(vocabulary).funcs.iter().copied().collect();
        session.grounder.choose_integer_variables(
            &theory.sentences,
            &theory.definitions,
            None,
            &declared,
        );
        if let Some(values) = &options.value_window {
            session.grounder.set_value_window(values);
        }
        let (independent, dependent): (Vec<&Formula>, Vec<&Formula>) =
            theory.sentences.iter().partition(|f| {
                let mut used = HashSet::default();
                symbols(*f, &mut used);
                used.is_disjoint(&defined) && session.gives_units(f)
            });
        if let Some(delay) = options.delay {
            session.delayed = session.grounder.delay_large_predicates(
                pending,
                &theory.sentences,
                program.voc(vocabulary).ltc.as_ref(),
                delay,
            );
            for d in &session.delayed {
                session.options.observer.stat(|| {
                    format!(
                        "lazy grounding at level {}: {} of the {} tuples of {} ground, the \
                         others assumed false",
                        delay.level,
                        d.ground,
                        d.total,
                        program.symbol_name(d.symbol)
                    )
                });
            }
        }
        // Tuples assumed false are no relaxation.
        if matches!(relax, Relax::LeaveOutAbove(_)) && !session.delayed.is_empty() {
            return Ok(None);
        }
        // The joint bounds first: they bound the open predicates that sentences constrain
        // (`do(t, p, press(..)) => ..`), which the independent sentences are ground over.
        session.grounder.bound_definitions_jointly(
            pending,
            &theory.sentences,
            program.voc(vocabulary).ltc.as_ref(),
        );
        session
            .grounder
            .bound_infinite_predicates(pending, &theory.sentences);
        session.left_out = match relax {
            Relax::LeaveOutAbove(above) => {
                let large = session.grounder.large_definitions(pending, above);
                if large.is_empty() {
                    return Ok(None);
                }
                session.grounder.limit_ground_size(RELAXATION_NODES);
                session.options.observer.stat(|| {
                    let names: Vec<String> = large
                        .iter()
                        .map(|&k| definition_symbols(program, pending[k]))
                        .collect();
                    format!(
                        "relaxation: the definitions of {} left out (more than {above} possible \
                         tuples), their symbols open within their bounds",
                        names.join("; ")
                    )
                });
                large.iter().flat_map(|&k| pending[k].defined()).collect()
            }
            Relax::No | Relax::Abstracted => HashSet::default(),
        };
        let early = session.ground_and_learn(independent)?;
        let mut encoding = EncodingClock::default();
        // The symbols of the definitions not encoded yet: a definition that reads none of
        // them (nor its own) comes after everything it reads, so its atoms may stand for
        // their bodies without a chain of such atoms ever leading back to itself.
        let mut unencoded: HashSet<Symbol> = pending.iter().flat_map(|d| d.defined()).collect();
        for d in dependency_order(pending) {
            let read = rule_symbols(d);
            let reads_unencoded = read.iter().any(|s| unencoded.contains(s));
            for s in d.defined() {
                unencoded.remove(&s);
            }
            if d.defined().iter().any(|s| session.left_out.contains(s)) {
                continue;
            }
            let atoms_before = session.grounder.store().atom_count();
            let linear = linear_closures(d);
            let gd = match session
                .grounder
                .ground_definition(linear.as_ref().unwrap_or(d))
            {
                Ok(gd) => {
                    for c in &gd.costs {
                        session.options.observer.stat(|| {
                            format!(
                                "rule at {} grounded in {:.3}s: {} ground rules, {} new nodes \
                                 ({} bindings tried)",
                                program.position(c.span).unwrap_or_default(),
                                c.seconds,
                                c.instances,
                                c.nodes,
                                c.bindings
                            )
                        });
                    }
                    gd
                }
                Err(e) if e.is_unbounded_grounding() && inlinable(program, d, structure) => {
                    session.inline_definition(d, atoms_before)?;
                    continue;
                }
                Err(e) => {
                    let text = definition_to_string(program, d);
                    return Err(naming(e, "the definition", program, d.span, &text));
                }
            };
            if let Some(kept) = session.kept.as_mut() {
                kept.rules
                    .extend(gd.rules.iter().map(|(h, bodies)| (*h, bodies.clone())));
            }
            encoding.time(|| session.encode_definition(gd, d.span, !reads_unencoded))?;
            if !session.options.stablesemantics {
                session
                    .encoded_definitions
                    .push((d.defined(), rule_symbols(d)));
            }
            session.check_time("grounding")?;
        }
        let late = session.ground_and_learn(dependent)?;
        encoding.time(|| {
            for (g, sentence) in early.into_iter().chain(late) {
                session.assert_sentence(g, sentence);
            }
            session.encode_symbols()?;
            session.assert_obligations();
            if !session.definitions.completion_suffices() {
                // Refining a candidate names the open atoms below a definition by literal.
                session.sat.encode_aliases(session.grounder.store());
            }
            Ok(())
        })?;
        if let Some(asserted) = session.sat.take_asserted() {
            session.options.observer.ground_theory(&ground_theory_text(
                program,
                session.grounder.store(),
                &asserted,
            ));
        }
        let store = session.grounder.store();
        session.options.observer.stat(|| {
            let cpu = crate::limits::thread_cpu_seconds() - cpu_started;
            let grounding = cpu - encoding.seconds;
            format!(
                "grounded and encoded in {:.3}s ({:.3}s CPU, {:.0} nodes per CPU second; \
                 grounding {:.3}s CPU, {:.0} nodes per CPU second; encoding {:.3}s CPU): {} \
                 nodes, {} atoms, {} SAT variables",
                started.elapsed().as_secs_f64(),
                cpu,
                store.len() as f64 / cpu.max(1e-6),
                grounding,
                store.len() as f64 / grounding.max(1e-6),
                encoding.seconds,
                store.len(),
                store.atom_count(),
                session.sat.num_vars()
            )
        });
        Ok(Some(session))
    }

    /// The open predicates whose tuples outside a subset were assumed false.
    pub fn delayed(&self) -> &[Delayed] {
        &self.delayed
    }

    /// The sentences ordered by the size of their outer universal quantification, so that
    /// small sentences (often unit constraints) are grounded first and simplify the others.
    /// Grounds each sentence and learns its units, without asserting it yet: first those that
    /// can only give unit literals (so the others are grounded with them), each group
    /// cheapest first. Returns the ground sentences in that order.
    fn ground_and_learn<'t>(
        &mut self,
        sentences: Vec<&'t Formula>,
    ) -> IdpResult<Vec<(Gf, &'t Formula)>> {
        let (unit_like, rest): (Vec<&Formula>, Vec<&Formula>) =
            sentences.into_iter().partition(|f| self.gives_units(f));
        let mut ordered = self.cheapest_first(unit_like);
        ordered.extend(self.cheapest_first(rest));
        let mut out = Vec::new();
        for sentence in ordered {
            let started = Instant::now();
            let (nodes_before, bindings_before) =
                (self.grounder.store().len(), self.grounder.bindings_tried());
            self.grounder.whole_thresholds_allowed = true;
            self.grounder.polarity = Some(true);
            let grounded = self
                .grounder
                .ground_formula(sentence)
                .and_then(|g| self.grounder.check_growth().map(|()| g));
            self.grounder.whole_thresholds_allowed = false;
            self.grounder.polarity = None;
            self.options.observer.stat(|| {
                let program = self.grounder.program();
                format!(
                    "sentence at {} grounded in {:.3}s: {} instances kept, {} new nodes ({} \
                     bindings tried)",
                    program.position(sentence.span).unwrap_or_default(),
                    started.elapsed().as_secs_f64(),
                    grounded
                        .as_ref()
                        .map_or(0, |&g| self.grounder.store().instances(g)),
                    self.grounder.store().len() - nodes_before,
                    self.grounder.bindings_tried() - bindings_before
                )
            });
            let g = grounded.map_err(|e| {
                let program = self.grounder.program();
                let text = formula_to_string(program, sentence);
                naming(e, "the sentence", program, sentence.span, &text)
            })?;
            self.grounder.learn_units(g);
            out.push((g, sentence));
            self.check_time("grounding")?;
        }
        Ok(out)
    }

    /// Asserts `g`, the grounding of `sentence` (named as its origin in a dump).
    fn assert_sentence(&mut self, g: Gf, sentence: &Formula) {
        let program = self.grounder.program();
        self.sat.set_origin(|| {
            let at = program.position(sentence.span).unwrap_or_default();
            format!("sentence at {at}: {}", readable_formula(program, sentence))
        });
        if let Some(kept) = self.kept.as_mut() {
            kept.sentences.push(g);
        }
        self.assert(g);
    }

    /// The ground sentences and rules, when the options asked to keep them.
    pub fn kept_ground(&self) -> Option<&KeptGround> {
        self.kept.as_ref()
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
                        .domains()
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

    /// Adds `g` as a constraint.
    pub fn assert(&mut self, g: Gf) {
        self.assert_obligations();
        self.sat.assert(self.grounder.store(), g);
    }

    /// Asserts what the grounding owes for the applications of functions it expanded on
    /// demand ([`Grounder::take_obligations`]: each takes exactly one value).
    fn assert_obligations(&mut self) {
        for owed in self.grounder.take_obligations() {
            self.sat.assert(self.grounder.store(), owed);
        }
    }

    /// Adds literal `l` as a constraint (one unit clause).
    pub fn assert_lit(&mut self, l: Lit) {
        self.sat.add_clause(&[l]);
    }

    /// Makes the weighted sum of `terms` (positive weights) ready for bounds by
    /// [`Session::sum_at_least`]: a count by a totalizer's clauses, another sum inside the
    /// solver's search; its index, or `None` when the solver cannot keep a weighted sum (then
    /// bounds are encoded as clauses by the caller).
    pub fn add_sum(&mut self, terms: &[(Lit, u64)]) -> Option<usize> {
        self.sat.add_sum(terms)
    }

    /// A fresh literal that, when true, makes sum `sum` of [`Session::add_sum`] at least
    /// `threshold`.
    pub fn sum_at_least(&mut self, sum: usize, threshold: u64) -> Lit {
        self.sat.sum_at_least(sum, threshold)
    }

    /// The SAT literal of `g`, encoding it if needed.
    pub fn lit(&mut self, g: Gf) -> Lit {
        self.sat.lit(self.grounder.store(), g)
    }

    /// The ground atom `s(t)`: a constant when the structure (or what grounding learnt)
    /// decides it, else an atom of the store.
    pub fn atom(&mut self, s: Symbol, t: &[Value]) -> Gf {
        self.grounder.atom(s, t)
    }

    /// A fresh literal that no formula stands for (an activation literal).
    pub fn fresh_lit(&mut self) -> Lit {
        self.sat.new_var()
    }

    /// Literals `o[j]` that "at least `j + 1` of `inputs` hold" implies (a totalizer's
    /// outputs, one per input).
    pub fn implied_by_count(&mut self, inputs: &[Lit]) -> Vec<Lit> {
        self.sat.implied_by_count(inputs)
    }

    /// Adds a clause over literals.
    pub fn add_clause(&mut self, clause: &[Lit]) {
        self.sat.add_clause(clause);
    }

    /// The value of literal `l` in the current model.
    pub fn lit_value(&self, l: Lit) -> bool {
        self.sat.lit_value(l)
    }

    /// Every atom that has a SAT variable, with that variable.
    pub fn atom_vars(&self) -> Vec<(Lit, Symbol, Tuple)> {
        let store = self.grounder.store();
        (0..store.atom_count() as AtomId)
            .filter_map(|a| {
                let lit = self.sat.existing_lit(store.atom_gf(a))?;
                let (symbol, tuple) = store.atom_key(a);
                Some((lit, *symbol, tuple.clone()))
            })
            .collect()
    }

    /// The structure grounded over (with the definitions evaluated before grounding).
    pub fn structure(&self) -> &Structure {
        self.grounder.structure()
    }

    /// Whether the clauses added so far say all there is: no definition needs loop formulas
    /// or totality checks, so no solve would refine a candidate model.
    pub fn completion_suffices(&self) -> bool {
        self.definitions.completion_suffices()
    }

    /// Encodes positive recursion in the definitions by their ranking translation now (see
    /// [`Definitions::rank_recursive`]).
    pub fn rank_recursive_definitions(&mut self) {
        self.definitions
            .rank_recursive(self.grounder.store_mut(), &mut self.sat);
    }

    /// The ground formulas made so far.
    /// The options the session was made with (its run among them).
    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn store(&self) -> &Store {
        self.grounder.store()
    }

    /// The store, to build formulas in (objectives, bounds).
    pub fn store_mut(&mut self) -> &mut Store {
        self.grounder.store_mut()
    }

    /// Grounds a term over the session's structure (an objective).
    pub fn ground_term(&mut self, t: &Term) -> IdpResult<GTerm> {
        self.ground_reading(|g| g.ground_term(t))
    }

    /// `t`, which applies a function the search chooses as a number, as a linear term; every
    /// model gives it a value.
    pub fn integer_term(&mut self, t: &Term) -> IdpResult<LinTerm> {
        let lin = self.grounder.integer_term(t)?;
        if lin.defined() != Gf::TRUE {
            self.assert(lin.defined());
        }
        Ok(lin)
    }

    /// Where `t` is written (`file:line:col`), for messages.
    pub fn position_of(&self, t: &Term) -> String {
        self.grounder.program().position(t.span).unwrap_or_default()
    }

    /// `t` as a linear term over real variables, if it has any; every model gives it a value.
    pub fn real_term(&mut self, t: &Term) -> IdpResult<Option<LinTerm>> {
        let lin = self.grounder.real_term(t)?;
        if let Some(lin) = lin.as_ref().filter(|l| l.defined() != Gf::TRUE) {
            self.assert(lin.defined());
        }
        Ok(lin)
    }

    /// Makes every model the solver accepts minimise `lin` (over real variables) under its
    /// bounds; the constant part of `lin`, which the solver's optimum leaves out.
    pub fn set_real_objective(&mut self, lin: &LinTerm, at: &Term) -> IdpResult<Rational> {
        let (terms, constant) = self.grounder.real_form(lin);
        self.encode_numbers()?;
        let terms: Vec<(usize, Rational)> = terms
            .into_iter()
            .map(|(v, a)| (self.numbers.vars[v], a))
            .collect();
        if !self.sat.set_real_objective(&terms) {
            return Err(self
                .grounder
                .not_linear(at, "is real-valued, which needs CaDiCaL"));
        }
        Ok(constant)
    }

    /// The least value of the real objective under the last model's bounds.
    pub fn real_optimum(&self) -> Option<crate::solve::LpOptimum> {
        self.sat.real_optimum()
    }

    /// The atom `lin < q` (`lin ≤ q` unless `strict`), over real variables.
    pub fn real_below(&mut self, lin: &LinTerm, q: &Rational, strict: bool) -> Gf {
        self.grounder.real_below(lin, q, strict)
    }

    /// The least and greatest value of `lin` by its variables' bounds.
    pub fn linear_range(&self, lin: &LinTerm) -> (i128, i128) {
        self.grounder.linear_range(lin)
    }

    /// The atom `lin ≤ k` (`at` names the term in messages).
    pub fn linear_at_most(&mut self, lin: &LinTerm, k: i128, at: &Term) -> IdpResult<Gf> {
        self.grounder.linear_at_most(lin, k, at)
    }

    /// The value of `lin` in the current model.
    pub fn linear_value(&self, lin: &LinTerm) -> i128 {
        lin.value(&mut |g| self.value(g), &mut |v| self.number(v))
            .unwrap_or_default()
    }

    /// The error for a term over numbers that the search cannot take.
    pub fn not_linear(&self, t: &Term, what: &str) -> Error {
        self.grounder.not_linear(t, what)
    }

    /// Whether `t` applies a function the search chooses as a number.
    pub fn mentions_integer_variable(&self, t: &Term) -> bool {
        self.grounder.mentions_integer_variable(t)
    }

    /// `t` as a total of non-negative integers, if it is a count or a sum of such (or the
    /// negation of one); see [`crate::ground::LinearObjective`].
    pub fn linear_objective(&mut self, t: &Term) -> IdpResult<Option<LinearObjective>> {
        self.ground_reading(|g| g.linear_objective(t))
    }

    /// Whether the total of `objective` is at least `threshold`.
    pub fn objective_at_least(
        &mut self,
        objective: &LinearObjective,
        threshold: i64,
    ) -> IdpResult<Gf> {
        self.grounder.objective_at_least(objective, threshold)
    }

    /// Whether the solver decides `s` although the structure may interpret it.
    pub fn forces(&self, s: Symbol) -> bool {
        self.grounder.forces(s)
    }

    /// The warnings given so far (taken: the caller shows them).
    pub fn take_warnings(&mut self) -> Vec<String> {
        let windowed = self.grounder.take_windowed();
        if let (false, Some(values)) = (windowed.is_empty(), &self.options.value_window) {
            let program = self.grounder.program();
            let names: Vec<&str> = windowed
                .iter()
                .map(|&f| program.func(f).name.as_str())
                .collect();
            self.warnings.push(format!(
                "nothing bounds the values of {}: idp tried only the whole numbers {}, so models \
                 that need other values are not searched; give {} a listed type (`type Val := \
                 {{0..100}}`) to search every value",
                names.join(", "),
                ranges_text(values),
                if names.len() == 1 { "it" } else { "them" },
            ));
        }
        std::mem::take(&mut self.warnings)
    }

    /// Stops with a limit error when Ctrl-C was pressed or a time or memory limit is reached.
    fn check_time(&self, during: &str) -> IdpResult<()> {
        self.options.run.check(self.own_deadline, during)
    }

    /// Whether every argument type of `s` has a finite interpretation.
    fn finite_arguments(&mut self, s: Symbol) -> bool {
        let sorts = self.grounder.program().symbol_sorts(s);
        sorts
            .into_iter()
            .all(|sort| self.grounder.domains().get(sort).is_some())
    }

    /// A predicate over an infinite type (`P(string)`) gets atoms only where a formula names
    /// them, as in IDP3's lazy grounding: the others are false in every model, and models
    /// differ only on the named ones. Says so once per predicate.
    fn note_infinite_predicate(&mut self, s: Symbol) {
        let program = self.grounder.program();
        let infinite: Vec<&str> = program
            .symbol_sorts(s)
            .into_iter()
            .filter(|sort| self.grounder.domains().get(*sort).is_none())
            .map(|sort| program.sort(sort).name.as_str())
            .collect();
        self.warnings.push(format!(
            "{} ranges over the infinite type {}: only its atoms that the theory names are \
             searched; the others are false in the models",
            program.symbol_name(s),
            infinite.join(", ")
        ));
    }

    /// Gives every unknown atom of predicate `s` a literal, walking the product of its
    /// argument domains without making it (most of a large product is often decided by the
    /// structure or ruled out by the bounds), with the limits checked as it goes. A predicate
    /// that neither the structure nor a bound says anything about needs a new atom for every
    /// tuple: past the grounding size limit, it stops before the walk.
    fn encode_every_tuple(&mut self, s: Symbol) -> IdpResult<()> {
        let sorts = self.grounder.program().symbol_sorts(s);
        let mut domains = Vec::with_capacity(sorts.len());
        for sort in sorts {
            domains.push(self.grounder.domain(sort)?);
        }
        if domains.iter().any(|d| d.is_empty()) {
            return Ok(());
        }
        if self.grounder.structure().table(s).is_none() && !self.grounder.is_bounded(s) {
            let count = domains
                .iter()
                .try_fold(1usize, |n, d| n.checked_mul(d.len()));
            let name = self.grounder.program().symbol_name(s);
            if let Some(e) = self.grounder.too_many_tuples(name, count) {
                return Err(e);
            }
        }
        let mut walked = 0u64;
        for_each_tuple(&domains, |tuple| {
            let g = self.grounder.atom(s, tuple);
            if !g.is_const() && !self.sat.is_pending_alias(g) {
                self.lit(g);
            }
            walked += 1;
            if walked.is_multiple_of(4096) {
                self.grounder.check_growth()?;
                self.check_time("grounding")?;
            }
            Ok(())
        })
    }

    /// The tuples that grounding decided without the search (see [`Grounder::decided`]) and
    /// that the structure leaves open, of each symbol whose tuples can be listed (at most
    /// [`MAX_LISTED_TUPLES`]): a propagation's consequences include them.
    pub fn decided_without_search(&mut self) -> IdpResult<Vec<(Symbol, Tuple, bool)>> {
        let mut out = Vec::new();
        for s in self.symbols.clone() {
            let grounder = &self.grounder;
            if grounder.structure().lazy.contains_key(&s) || grounder.is_inlined(s) {
                continue;
            }
            let sorts = grounder.program().symbol_sorts(s);
            let Some(domains) = sorts
                .iter()
                .map(|&sort| grounder.domains().get(sort))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let count = (domains.iter()).try_fold(1usize, |n, d| n.checked_mul(d.len()));
            if count.is_none_or(|n| n > MAX_LISTED_TUPLES) {
                continue;
            }
            let forced = grounder.forces(s);
            for_each_tuple(&domains, |tuple| {
                let open = forced || grounder.structure().truth(s, tuple) == TruthValue::Unknown;
                if let Some(truth) = grounder.decided(s, tuple).filter(|_| open) {
                    out.push((s, tuple.to_vec(), truth));
                }
                Ok(())
            })?;
            self.check_time("propagation")?;
        }
        Ok(out)
    }

    /// Gives every unknown atom of predicate `s` among `tuples` a literal.
    fn encode_tuples(&mut self, s: Symbol, tuples: &[Tuple]) -> IdpResult<()> {
        for (walked, tuple) in tuples.iter().enumerate() {
            let g = self.grounder.atom(s, tuple);
            if !g.is_const() && !self.sat.is_pending_alias(g) {
                self.lit(g);
            }
            if walked % 4096 == 4095 {
                self.grounder.check_growth()?;
                self.check_time("grounding")?;
            }
        }
        Ok(())
    }

    /// Evaluates definition `d` on demand (see [`crate::ground::inlined`]) after grounding it
    /// up front failed on an infinite type. Refused when grounding before it (the definitions
    /// it depends on in a cycle) already made atoms of its symbols, which would then be
    /// unconstrained. What the structure says about its symbols becomes constraints on the
    /// expansions of those tuples.
    fn inline_definition(&mut self, d: &Definition, atoms_before: usize) -> IdpResult<()> {
        let program = self.grounder.program();
        let defined = d.defined();
        let store = self.grounder.store();
        if let Some(a) =
            (0..atoms_before as AtomId).find(|&a| defined.contains(&store.atom_key(a).0))
        {
            let text = definition_to_string(program, d);
            let e = Error::input(format!(
                "Infinite grounding: the definition ranges over an infinite type, and its atom {} \
                 is used by a definition it depends on, so it cannot be evaluated on demand. \
                 Give its arguments finite types.",
                crate::ground::atom_text(program, store, a, false)
            ));
            return Err(naming(e, "the definition", program, d.span, &text));
        }
        self.grounder.inline(d);
        // IDP-Z3 does the same without a word, and its models show such a symbol as a partial
        // interpretation (`f :> {...}`): FO(·) needs no warning.
        let warns = !program.in_fodot(d.span);
        for s in defined {
            if warns {
                self.warnings.push(format!(
                    "{} is defined over an infinite type: it is evaluated only for the \
                     arguments the theory uses, and models show only those tuples (as {}<ct> \
                     and {}<cf>)",
                    program.symbol_name(s),
                    program.symbol_name(s),
                    program.symbol_name(s)
                ));
            }
            let Some(Table::ThreeValued { ct, cf }) = self.grounder.structure().table(s) else {
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
    /// symbols becomes constraints. Then the definition is checked against candidate models.
    fn encode_definition(
        &mut self,
        gd: GroundDefinition,
        span: Span,
        non_recursive: bool,
    ) -> IdpResult<()> {
        let program = self.grounder.program();
        self.sat.set_origin(|| {
            let at = program.position(span).unwrap_or_default();
            let defined: Vec<&str> = gd.defined.iter().map(|&s| program.symbol_name(s)).collect();
            format!("definition at {at} (of {}): completion", defined.join(", "))
        });
        assert_completion(
            self.grounder.store_mut(),
            &mut self.sat,
            &gd,
            None,
            non_recursive,
        );
        self.grounder.mark_encoded(&gd);
        let defined: HashSet<Symbol> = gd.defined.iter().copied().collect();
        let store = self.grounder.store();
        let without_rule: Vec<Gf> = (0..store.atom_count() as AtomId)
            .filter(|&a| {
                let (s, t) = store.atom_key(a);
                defined.contains(s) && self.grounder.is_forced(*s, t) && !self.grounder.is_head(a)
            })
            .map(|a| store.atom_gf(a))
            .collect();
        for g in without_rule {
            self.assert(-g);
        }
        for &s in &gd.defined {
            self.encode_known_part(s)?;
        }
        let stable = self.options.stablesemantics;
        self.definitions.track(
            self.grounder.store(),
            &mut self.sat,
            &gd,
            span,
            stable,
            None,
        );
        Ok(())
    }

    /// The structure's certainly true and certainly false tuples of a defined symbol.
    fn encode_known_part(&mut self, s: Symbol) -> IdpResult<()> {
        let Some(table) = self.grounder.structure().table(s).cloned() else {
            return Ok(());
        };
        // Sorted: the structure's tables are unordered sets, and clause order must not depend
        // on hashing (identical runs give identical output).
        let mut trues: Vec<&Tuple> = table.ct().iter().collect();
        trues.sort();
        for t in trues {
            if self.grounder.is_forced(s, t) {
                let atom = self.grounder.atom(s, t);
                self.assert(atom);
            }
        }
        let mut falses: Vec<Tuple> = match &table {
            Table::ThreeValued { cf, .. } => cf.iter().cloned().collect(),
            Table::TwoValued(ct) => self
                .grounder
                .head_tuples(s)
                .into_iter()
                .filter(|t| !ct.contains(t))
                .collect(),
        };
        falses.sort();
        for t in falses {
            if self.grounder.is_forced(s, &t) {
                let atom = self.grounder.atom(s, &t);
                self.assert(-atom);
            }
        }
        Ok(())
    }

    /// FO(·)'s "don't care" ([`Options::dont_care`]): the functions over an infinite result
    /// type outside `searched` that the structure does not interpret are left out of the
    /// search and of the models.
    fn drop_dont_care(&mut self, searched: &[Symbol]) {
        let grounder = &self.grounder;
        self.symbols.retain(|&s| match s {
            Symbol::Func(f) => {
                searched.contains(&s)
                    || grounder.structure().table(s).is_some()
                    || grounder
                        .domains()
                        .get(grounder.program().func(f).result)
                        .is_some()
            }
            Symbol::Pred(_) => true,
        });
    }

    /// Creates atoms for every unknown tuple of every symbol (so that models are two-valued and
    /// counted on all of them) and adds the function constraints.
    fn encode_symbols(&mut self) -> IdpResult<()> {
        for s in self.symbols.clone() {
            if self.left_out.contains(&s) {
                continue;
            }
            if matches!(
                self.grounder.structure().table(s),
                Some(Table::TwoValued(_))
            ) && !self.grounder.forces(s)
            {
                continue;
            }
            if self.grounder.structure().lazy.contains_key(&s) || self.grounder.is_inlined(s) {
                continue;
            }
            if matches!(s, Symbol::Pred(_)) && !self.finite_arguments(s) {
                // Lazy grounding says itself which tuples of a delayed predicate it ground.
                if self.delayed.iter().any(|d| d.symbol == s) {
                    continue;
                }
                // A predicate that sentences bound is false outside its bound in every model.
                match self.grounder.possible_tuples(s) {
                    Some(_) if self.options.leave_unmentioned_false => {}
                    Some(tuples) => self.encode_tuples(s, &tuples)?,
                    None => self.note_infinite_predicate(s),
                }
                continue;
            }
            if self.options.leave_unmentioned_false && matches!(s, Symbol::Pred(_)) {
                continue;
            }
            if let Symbol::Func(f) = s {
                if self.options.leave_unmentioned_false && !self.read.contains(&s) {
                    if let Some(values) = self.any_values(f) {
                        self.unread.insert(f, values);
                        continue;
                    }
                }
            }
            match s {
                // A defined symbol can only be true at its rule heads (every other atom is
                // false): enumerating its whole product of types could cost millions.
                Symbol::Pred(_) if self.grounder.is_complete(s) => {
                    for t in self.grounder.head_tuples(s) {
                        let g = self.grounder.atom(s, &t);
                        if !g.is_const() && !self.sat.is_pending_alias(g) {
                            self.lit(g);
                        }
                    }
                }
                Symbol::Pred(_) => self.encode_every_tuple(s)?,
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
        if self.grounder.is_integer_variable(f) {
            // Its applications are numbers in the search (see `encode_integers`).
            return Ok(());
        }
        let program = self.grounder.program();
        self.sat.set_origin(|| {
            let func = program.func(f);
            let count = if func.partial {
                "at most one"
            } else {
                "exactly one"
            };
            format!("function {}: {count} value for each argument", func.name)
        });
        let func = self.grounder.program().func(f).clone();
        let mut arg_domains = Vec::new();
        for &a in &func.args {
            match self.grounder.domains().get(a) {
                Some(d) => arg_domains.push(d.to_vec()),
                None if self.grounder.domains().get(func.result).is_some() => {
                    self.note_named_function(f, a);
                    return self.constrain_named_applications();
                }
                // Its error names the infinite type.
                None => arg_domains.push(self.grounder.domain(a)?.to_vec()),
            }
        }
        let unknown = self.grounder.structure().table(Symbol::Func(f)).is_none();
        if let (true, Some(values)) = (unknown, self.grounder.domains().get(func.result)) {
            let count = arg_domains
                .iter()
                .try_fold(values.len(), |n, d| n.checked_mul(d.len()));
            if let Some(e) = self.grounder.too_many_tuples(&func.name, count) {
                return Err(e);
            }
        }
        for args in cartesian(&arg_domains) {
            self.encode_application(f, args)?;
            self.grounder.check_growth()?;
        }
        Ok(())
    }

    /// For a function that nothing reads, one allowed value per argument tuple: the
    /// structure's value where it gives one, else the first value it does not rule out (none
    /// for a partial function without one). `None` when some argument tuple allows no value
    /// (then there is no model, which the search says), or the types are not finite and small
    /// enough to list.
    fn any_values(&self, f: FuncId) -> Option<HashMap<Tuple, Option<Value>>> {
        const MOST: usize = 10_000_000;
        let func = self.grounder.program().func(f);
        let domains = self.grounder.domains();
        let values = domains.get(func.result)?;
        let arg_domains: Vec<Vec<Value>> = func
            .args
            .iter()
            .map(|&a| domains.get(a).map(|d| d.to_vec()))
            .collect::<Option<_>>()?;
        let count = arg_domains
            .iter()
            .try_fold(1usize, |n, d| n.checked_mul(d.len()))?;
        if count > MOST {
            return None;
        }
        let table = self.grounder.structure().table(Symbol::Func(f));
        let mut chosen = HashMap::default();
        for args in cartesian(&arg_domains) {
            let (mut given, mut allowed) = (None, None);
            match table {
                None => allowed = values.first().copied(),
                Some(t) => {
                    let mut graph = args.clone();
                    graph.push(values[0]);
                    for &v in values.iter() {
                        *graph.last_mut().expect("the value") = v;
                        match t.truth(&graph) {
                            TruthValue::True => {
                                given = Some(v);
                                break;
                            }
                            TruthValue::Unknown if allowed.is_none() => allowed = Some(v),
                            _ => {}
                        }
                    }
                }
            }
            let value = given.or(if func.partial { None } else { allowed });
            if value.is_none() && !func.partial {
                return None;
            }
            chosen.insert(args, value);
        }
        Some(chosen)
    }

    /// Runs `ground` (a term's grounding), then encodes the applications of unread functions
    /// (see [`Session::unread`]) that it read: they are searched, no longer fixed.
    fn ground_reading<T>(
        &mut self,
        ground: impl FnOnce(&mut Grounder<'a>) -> IdpResult<T>,
    ) -> IdpResult<T> {
        let before = self.grounder.store().atom_count();
        let out = ground(&mut self.grounder)?;
        if self.unread.is_empty() {
            return Ok(out);
        }
        let after = self.grounder.store().atom_count();
        let mut read = Vec::new();
        for a in before..after {
            let (s, t) = self.grounder.store().atom_key(a as AtomId);
            if let Symbol::Func(f) = *s {
                let args = t[..t.len() - 1].to_vec();
                let unread = self.unread.get_mut(&f);
                if unread.is_some_and(|m| m.remove(&args).is_some()) {
                    read.push((f, args));
                }
            }
        }
        for (f, args) in read {
            self.encode_application(f, args)?;
        }
        Ok(out)
    }

    /// `f(args)` takes exactly one value (at most one when `f` is partial).
    fn encode_application(&mut self, f: FuncId, args: Tuple) -> IdpResult<()> {
        let partial = self.grounder.program().func(f).partial;
        let options = self.grounder.apply_function(f, args)?;
        let guards: Vec<Gf> = options.iter().map(|(g, _)| *g).collect();
        for &g in &guards {
            if !g.is_const() {
                self.lit(g);
            }
        }
        if !partial {
            let any = self.grounder.store_mut().or(guards.iter().copied());
            self.assert(any);
        }
        self.at_most_one(&guards);
        Ok(())
    }

    fn note_named_function(&mut self, f: FuncId, infinite: SortId) {
        let program = self.grounder.program();
        self.named_functions.insert(f);
        self.warnings.push(format!(
            "{} ranges over the infinite type {}: only its applications that the theory names \
             are searched, and models show only those",
            program.func(f).name,
            program.sort(infinite).name
        ));
    }

    /// Gives every application of a function of `named_functions` met since the last call
    /// (in sentences, definitions, or an objective grounded later) its one-value constraint.
    fn constrain_named_applications(&mut self) -> IdpResult<()> {
        self.encode_numbers()?;
        if self.named_functions.is_empty() {
            return Ok(());
        }
        while self.atoms_seen < self.grounder.store().atom_count() {
            let (symbol, tuple) = self.grounder.store().atom_key(self.atoms_seen as AtomId);
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

    /// Gives the solver what grounding made of numbers since the last call: integer and real
    /// variables with the comparisons over them, and the sums kept whole.
    fn encode_numbers(&mut self) -> IdpResult<()> {
        self.encode_integers()?;
        self.encode_whole_thresholds()
    }

    /// Gives the solver the integer variables and the linear comparisons over them made
    /// since the last call, and asserts what must hold of them (the definitions of guarded
    /// copies and of formulas counted in sums).
    fn encode_integers(&mut self) -> IdpResult<()> {
        let integers = self.grounder.integers();
        let new_vars: Vec<IntVar> = integers.vars()[self.numbers.vars.len()..].to_vec();
        let new_atoms: Vec<LinearAtom> = integers.atoms()[self.numbers.atoms..].to_vec();
        let new_real_atoms: Vec<RealAtom> =
            integers.real_atoms()[self.numbers.real_atoms..].to_vec();
        let new_axioms: Vec<Gf> = integers.axioms()[self.numbers.axioms..].to_vec();
        self.numbers.atoms = integers.atoms().len();
        self.numbers.real_atoms = integers.real_atoms().len();
        self.numbers.axioms = integers.axioms().len();
        for var in new_vars {
            let added = if var.real {
                let (low, high) = var.real_bounds();
                self.sat.add_real_var(low, high)
            } else {
                self.sat.add_int_var(var.low, var.high)
            };
            let Some(v) = added else {
                return Err(Error::input(
                    "This theory searches numbers (functions onto int without a finite type), \
                     which needs the CaDiCaL solver; leave out the option that chose another.",
                ));
            };
            self.numbers.vars.push(v);
        }
        for linear in new_atoms {
            let atom = self.lit(linear.atom);
            if linear.real {
                let terms: Vec<(usize, Rational)> = linear
                    .terms
                    .iter()
                    .map(|&(v, a)| (self.numbers.vars[v], Rational::from(a)))
                    .collect();
                let bound = Rational::from(linear.bound);
                self.sat.add_real_constraint(atom, &terms, bound);
                continue;
            }
            let terms: Vec<(usize, i64)> = linear
                .terms
                .iter()
                .map(|&(v, a)| (self.numbers.vars[v], a))
                .collect();
            self.sat.add_int_constraint(atom, &terms, linear.bound);
        }
        for real in new_real_atoms {
            let atom = self.lit(real.atom);
            let terms: Vec<(usize, Rational)> = real
                .terms
                .into_iter()
                .map(|(v, a)| (self.numbers.vars[v], a))
                .collect();
            self.sat.add_real_constraint(atom, &terms, real.bound);
        }
        for g in new_axioms {
            self.assert(g);
        }
        Ok(())
    }

    /// Gives the solver the thresholds of sums kept whole since the last call
    /// ([`crate::ground::WholeThreshold`]): each atom implies a bound on the sum of its
    /// guards, its negation one on the sum of their negations; a solver that keeps no sums
    /// gets the atom's diagram instead.
    fn encode_whole_thresholds(&mut self) -> IdpResult<()> {
        let new: Vec<WholeThreshold> =
            self.grounder.whole_thresholds()[self.numbers.thresholds..].to_vec();
        self.numbers.thresholds += new.len();
        for t in new {
            let atom = self.lit(t.atom);
            let holding: Vec<(Lit, u64)> = t.terms.iter().map(|&(g, w)| (self.lit(g), w)).collect();
            let failing: Vec<(Lit, u64)> = holding.iter().map(|&(l, w)| (-l, w)).collect();
            let sums = self.sat.add_sum(&holding).zip(self.sat.add_sum(&failing));
            match sums {
                Some((holds, fails)) => {
                    let at_least = self.sat.sum_at_least(holds, t.threshold);
                    let room = t.total_weight() - t.threshold + 1;
                    let below = self.sat.sum_at_least(fails, room);
                    self.sat.add_clause(&[-atom, at_least]);
                    self.sat.add_clause(&[atom, below]);
                }
                None => {
                    let diagram = self.grounder.threshold_diagram(&t)?;
                    let equivalence = self.grounder.store_mut().equiv(t.atom, diagram);
                    self.assert(equivalence);
                }
            }
        }
        Ok(())
    }

    /// The value of the grounder's integer variable `v` in the current model.
    pub fn number(&self, v: usize) -> i64 {
        self.sat.int_value(self.numbers.vars[v])
    }

    /// Warns when the current model (an optimum of the term written at `at`) puts an integer
    /// that nothing else bounds at an end of the 32-bit integers it is searched within
    /// (IDP3's integers; FO(·)'s `Int` has no end): the term may then have no optimum.
    pub fn note_numbers_at_their_ends(&mut self, at: &str) {
        let (low, high) = crate::ground::INT_WINDOW;
        let program = self.grounder.program();
        let mut named = Vec::new();
        for (k, var) in self.grounder.integers().vars().iter().enumerate() {
            let Some((f, args)) = &var.application else {
                continue;
            };
            let value = self.number(k);
            if (value == low && var.low == low) || (value == high && var.high == high) {
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                named.push(format!(
                    "{}({}) = {value}",
                    program.func(*f).name,
                    args.join(",")
                ));
            }
        }
        if !named.is_empty() {
            self.warnings.push(format!(
                "the optimum of the term at {at} has {}, at an end of the 32-bit integers idp \
                 searches: the term may have no optimum (bound the numbers it reads)",
                named.join(", ")
            ));
        }
    }

    /// The value of the grounder's real variable `v` in the current model.
    pub fn real_number(&self, v: usize) -> Rational {
        self.sat.real_value(self.numbers.vars[v])
    }

    /// The applications searched as numbers whose value in the current model is their value
    /// in every model (each tried with the assumption that it differs), as function tuples
    /// (arguments, then value). Searches: the current model is lost.
    pub fn fixed_numbers(&mut self) -> IdpResult<Vec<(FuncId, Tuple)>> {
        let applications: Vec<(usize, FuncId, Tuple)> = (self.grounder.integers().vars())
            .iter()
            .enumerate()
            .filter_map(|(k, var)| {
                let (f, args) = var.application.clone()?;
                Some((k, f, args))
            })
            .collect();
        let values: Vec<Value> = applications
            .iter()
            .map(|&(k, _, _)| self.number_value(k))
            .collect();
        let mut fixed = Vec::new();
        for ((k, f, mut args), value) in applications.into_iter().zip(values) {
            let differs = match value.exact() {
                Some(q) if self.grounder.integers().vars()[k].real => {
                    Some(self.grounder.differs_from_real(k, &q))
                }
                _ => value.as_int().map(|i| self.grounder.differs_from(k, i)),
            };
            let Some(differs) = differs else { continue };
            let lit = self.lit(differs);
            if !self.solve(&[lit])? {
                args.push(value);
                fixed.push((f, args));
            }
        }
        Ok(fixed)
    }

    /// The values grounding lets `f` take: its result type's, or, for a function onto an
    /// infinite type, those sentences bound it to (`x() = 0.`); `None` when it has no such
    /// list.
    pub fn result_values(&mut self, f: FuncId) -> Option<Vec<Value>> {
        if self.grounder.is_integer_variable(f) {
            return None;
        }
        self.grounder
            .result_domain(f)
            .ok()
            .map(|values| values.to_vec())
    }

    /// Whether the search chooses the values of `f` as numbers (integer or real variables,
    /// one per application), every application of it, not only those the theory names.
    pub fn is_number_function(&self, f: FuncId) -> bool {
        self.grounder.is_integer_variable(f) && !self.named_functions.contains(&f)
    }

    /// The grounder's variable of application `f(args)` of a function the search chooses as a
    /// number (made now when no sentence named it: any value within its bounds will do).
    pub fn number_variable(&mut self, f: FuncId, args: Tuple) -> usize {
        self.grounder.application_variable(f, args)
    }

    /// Whether the grounder's variable `v` takes real values (else integers).
    pub fn is_real_number(&self, v: usize) -> bool {
        self.grounder.integers().vars()[v].real
    }

    /// The formula "variable `v` has value `value`"; `None` when it cannot (an integer
    /// variable and a value that is not an integer, or a value that is not a number).
    pub fn number_equals(&mut self, v: usize, value: Value) -> Option<Gf> {
        Some(-self.number_differs(v, value)?)
    }

    /// The formula "variable `v` does not have value `value`" (see
    /// [`Session::number_equals`]).
    pub fn number_differs(&mut self, v: usize, value: Value) -> Option<Gf> {
        if self.is_real_number(v) {
            return Some(self.grounder.differs_from_real(v, &value.exact()?));
        }
        Some(self.grounder.differs_from(v, value.as_int()?))
    }

    /// The value of the grounder's variable `v` (integer or real) in the current model.
    pub fn number_value(&self, v: usize) -> Value {
        if self.is_real_number(v) {
            Value::rational(&self.real_number(v))
        } else {
            Value::Int(self.number(v))
        }
    }

    /// The literals of "this number differs from its value in the current model", for each
    /// number that the last [`Session::blocking_lits`] asked to tell models apart by (all
    /// false in the current model: a blocking clause takes them as they are).
    pub fn differing_numbers(&mut self) -> Vec<Lit> {
        let blocked = self.numbers.blocked.clone();
        let differs: Vec<Gf> = blocked
            .into_iter()
            .map(|v| {
                if self.grounder.integers().vars()[v].real {
                    let value = self.real_number(v);
                    return self.grounder.differs_from_real(v, &value);
                }
                let value = self.number(v);
                self.grounder.differs_from(v, value)
            })
            .collect();
        differs.into_iter().map(|g| self.lit(g)).collect()
    }

    /// At most one of `gs` holds.
    pub fn at_most_one(&mut self, gs: &[Gf]) {
        self.sat.at_most_one(self.grounder.store(), gs);
    }

    /// Solves under assumptions until a model that satisfies the definitions is found (adding
    /// loop formulas and totality cuts as needed), or none exists.
    pub fn solve(&mut self, assumptions: &[Lit]) -> IdpResult<bool> {
        self.solve_limited(assumptions, None)
            .map(|found| found.expect("a search without a conflict limit decides"))
    }

    /// [`Session::solve`], each SAT call stopped after `conflicts` conflicts when given:
    /// `None` when that stopped it (nothing was decided).
    pub fn solve_limited(
        &mut self,
        assumptions: &[Lit],
        conflicts: Option<u32>,
    ) -> IdpResult<Option<bool>> {
        self.solve_before(assumptions, conflicts, None)
    }

    /// What propagation derives under `assumptions` without a decision (unit propagation over
    /// the clauses, learnt ones included, and the propagators inside the search).
    pub fn implied(&mut self, assumptions: &[Lit]) -> IdpResult<Implied> {
        self.constrain_named_applications()?;
        Ok(self.sat.implied(assumptions))
    }

    /// Hints the searches that follow to try each of `lits` first (a phase: no answer
    /// changes); `forget` drops those hints again.
    pub fn prefer(&mut self, lits: &[Lit], forget: bool) {
        for &l in lits {
            self.sat.prefer(l, forget);
        }
    }

    /// [`Session::solve_limited`], stopped also when `deadline` passes (`None` then, as for
    /// the conflict limit; the run's own limits are errors as always).
    pub fn solve_before(
        &mut self,
        assumptions: &[Lit],
        conflicts: Option<u32>,
        deadline: Option<Instant>,
    ) -> IdpResult<Option<bool>> {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(None);
        }
        self.sat.set_call_deadline(deadline);
        let found = self.solve_within(assumptions, conflicts, deadline);
        self.sat.set_call_deadline(None);
        found
    }

    fn solve_within(
        &mut self,
        assumptions: &[Lit],
        conflicts: Option<u32>,
        deadline: Option<Instant>,
    ) -> IdpResult<Option<bool>> {
        self.constrain_named_applications()?;
        loop {
            self.check_time("searching")?;
            let (t0, cpu0) = (Instant::now(), crate::limits::thread_cpu_seconds());
            let meter = self.options.run.meter();
            meter.set_phase(crate::progress::Phase::Solving);
            meter.set_nodes(self.grounder.store().len());
            meter.sat_call();
            self.sat_calls += 1;
            // While a definition is kept inside the search without its ranking translation, a
            // call gets a conflict budget; a call that spends it goes on with the translation.
            let ranking = self
                .definitions
                .has_unranked_propagated()
                .then_some(RANKING_AFTER_CONFLICTS);
            let callers = conflicts.is_some_and(|c| ranking.is_none_or(|r| c < r));
            let budget = if callers { conflicts } else { ranking };
            let counted = self.sat.counters();
            let result = self.sat.solve(assumptions, budget);
            self.options.observer.stat(|| {
                let searched = match (self.sat.counters(), counted) {
                    (Some(after), Some(before)) => {
                        let c = after - before;
                        format!(
                            ": {} conflicts, {} decisions, {} propagations",
                            c.conflicts, c.decisions, c.propagations
                        )
                    }
                    _ => String::new(),
                };
                format!(
                    "SAT call: {result:?} in {:.3}s ({:.3}s CPU){searched}",
                    t0.elapsed().as_secs_f64(),
                    crate::limits::thread_cpu_seconds() - cpu0
                )
            });
            match result {
                SatResult::Unsat => return Ok(Some(false)),
                SatResult::Interrupted => {
                    self.check_time("searching")?;
                    if callers || deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(None);
                    }
                    if budget.is_some() {
                        self.options.observer.stat(|| {
                            format!("{RANKING_AFTER_CONFLICTS} conflicts in one SAT call: the recursive definitions get their ranking translation")
                        });
                        self.definitions
                            .rank_propagated(self.grounder.store_mut(), &mut self.sat);
                        continue;
                    }
                    return Err(Error::limit(Limit::Search, "the SAT search was stopped"));
                }
                SatResult::Sat => {}
            }
            if self.sat.integers_undecided() {
                return Err(Error::limit(
                    Limit::Search,
                    "the search for values of the numbers (functions onto int) gave up: the \
                     comparisons over them are too hard for its bounds reasoning",
                ));
            }
            let refinement = self
                .definitions
                .refine(self.grounder.store_mut(), &mut self.sat);
            for k in &refinement.ranked {
                self.options
                    .observer
                    .stat(|| format!("definition {k} switched to the ranking translation"));
            }
            if refinement.refuted {
                self.refinements += 1;
                continue;
            }
            let refinements = self.refinements;
            self.options.observer.stat(|| {
                format!(
                    "model found after {refinements} refinements (loop formulas, totality cuts)"
                )
            });
            return Ok(Some(true));
        }
    }

    /// Says (`--stats`) what the search did so far: SAT calls, candidate models refuted, and
    /// the unfounded sets the solver found inside its search.
    pub fn report_search(&self) {
        let (calls, refinements) = (self.sat_calls, self.refinements);
        let inside = match self.sat.search_stats() {
            Some(s) => format!(
                "; inside the search: {} unfounded sets over {} definition nodes, {} literals made false; {} conflicts, {} decisions",
                s.unfounded_sets, s.nodes, s.propagated, s.conflicts, s.decisions
            ),
            None => String::new(),
        };
        self.options.observer.stat(|| {
            format!("search: {calls} SAT calls, {refinements} candidate models refuted{inside}")
        });
    }

    /// A copy of the current model, to bring back with [`Self::restore_model`] after later SAT
    /// calls.
    pub fn saved_model(&self) -> SavedModel {
        self.sat.saved_model()
    }

    /// Makes a model saved with [`Self::saved_model`] the current one again (for decoding).
    pub fn restore_model(&mut self, model: SavedModel) {
        self.sat.restore_model(model);
    }

    /// The value of a ground formula in the current SAT model.
    pub fn value(&self, g: Gf) -> bool {
        self.sat.value(self.grounder.store(), g)
    }

    fn atom_value(&self, a: AtomId) -> bool {
        self.sat.atom_value(self.grounder.store(), a)
    }

    /// Warnings for the definitions that were not total in some candidate model, to give when
    /// no model was found.
    pub fn not_total_warnings(&self) -> Vec<String> {
        let program = self.grounder.program();
        self.definitions
            .not_total()
            .into_iter()
            .map(|(span, unknown)| {
                let example = unknown_atoms_text(program, self.grounder.store(), unknown);
                let at = program.position(span).unwrap_or_default();
                format!(
                    "The definition at {at} is not total in the candidate structures tried \
                     (its well-founded model leaves {example} unknown); IDP3's semantics \
                     accepts only total definitions, so those have no model."
                )
            })
            .collect()
    }

    /// The two-valued structure of the current model.
    pub fn decode(&self, name: &str) -> Structure {
        let base = self.grounder.structure();
        let mut out = Structure::new(name, self.vocabulary);
        out.copy_domains(base);
        out.huge_ranges = base.huge_ranges.clone();
        out.lazy = base.lazy.clone();
        let mut tables: IndexMap<Symbol, TupleSet, rustc_hash::FxBuildHasher> = IndexMap::default();
        for &s in &self.symbols {
            if base.lazy.contains_key(&s) {
                continue;
            }
            // The structure's true tuples, unless the grounder decides the symbol anew (a
            // table cloned whole: no hashing again).
            let set = match base.table(s) {
                Some(t) if !self.grounder.is_forced_whole(s) => t.ct().clone(),
                _ => TupleSet::default(),
            };
            tables.insert(s, set);
        }
        let store = self.grounder.store();
        // A symbol's atoms mostly follow each other in the store: its table is looked up
        // once per run of them.
        let mut at: Option<(&Symbol, Option<usize>)> = None;
        for a in 0..store.atom_count() as AtomId {
            let (s, t) = store.atom_key(a);
            let index = match at {
                Some((last, index)) if last == s => index,
                _ => {
                    let index = tables.get_index_of(s);
                    at = Some((s, index));
                    index
                }
            };
            if let Some(k) = index {
                if self.atom_value(a) {
                    tables[k].insert(t.clone());
                }
            }
        }
        self.decode_integers(&mut tables);
        for (f, chosen) in &self.unread {
            if let Some(set) = tables.get_mut(&Symbol::Func(*f)) {
                for (args, value) in chosen {
                    if let Some(v) = value {
                        let mut t = args.clone();
                        t.push(*v);
                        set.insert(t);
                    }
                }
            }
        }
        for (s, set) in tables {
            let table = if self.grounder.is_inlined(s) {
                self.inlined_table(s)
            } else {
                Table::TwoValued(set)
            };
            out.symbols.insert(s, table);
        }
        out
    }

    /// The values of the functions searched as numbers: each application's from the
    /// solver's integer theory, and for an application that no sentence reads, the value
    /// nearest 0 within its bounds.
    fn decode_integers(&self, tables: &mut IndexMap<Symbol, TupleSet, rustc_hash::FxBuildHasher>) {
        let integers = self.grounder.integers();
        for (f, (low, high)) in integers.functions() {
            let Some(set) = tables.get_mut(&Symbol::Func(f)) else {
                continue;
            };
            let func = self.grounder.program().func(f);
            let domains: Option<Vec<Vec<Value>>> = func
                .args
                .iter()
                .map(|&a| self.grounder.domains().get(a).map(|d| d.to_vec()))
                .collect();
            let Some(domains) = domains else { continue };
            for mut t in cartesian(&domains) {
                let value = match integers.var_of(f, &t) {
                    Some(var) => self.number_value(var),
                    None => Value::Int(0i64.clamp(low, high)),
                };
                t.push(value);
                set.insert(t);
            }
        }
    }

    /// What a model shows of a symbol evaluated on demand: it has infinitely many tuples, so
    /// only those the structure gives and those the grounding expanded are listed, as a
    /// three-valued table (`p<ct>` true, `p<cf>` false; every other tuple is left unknown,
    /// rather than shown false as a two-valued table would).
    fn inlined_table(&self, s: Symbol) -> Table {
        let (mut ct, mut cf) = match self.grounder.structure().table(s) {
            Some(Table::ThreeValued { ct, cf }) => (ct.clone(), cf.clone()),
            _ => Default::default(),
        };
        let store = self.grounder.store();
        for (t, g) in self.grounder.inlined_tuples(s) {
            if evaluate(store, g, &|a| self.atom_value(a)) {
                ct.insert(t);
            } else {
                cf.insert(t);
            }
        }
        Table::ThreeValued { ct, cf }
    }

    /// A clause that excludes the current model's values of `lits` (from
    /// [`Session::blocking_lits`]); the model is forgotten (the next one is searched).
    pub fn block(&mut self, lits: &[Lit]) {
        let mut clause: Vec<Lit> = lits
            .iter()
            .map(|&l| if self.sat.lit_value(l) { -l } else { l })
            .collect();
        clause.extend(self.differing_numbers());
        self.sat.add_clause_forgetting_model(&clause);
    }

    /// Makes the following searches count up to `limit` models distinct on the symbols
    /// `output` inside one search each, blocking each as it is found, instead of returning
    /// them one by one ([`Session::counted_inside`] tells how many); false when this session
    /// cannot: its solver cannot, or a definition is checked on the models the solver returns
    /// (whose loop formulas or totality cuts would not see the models counted inside).
    pub fn count_inside(&mut self, output: &[Symbol], limit: usize) -> IdpResult<bool> {
        Ok(match self.inside_blocking_lits(output)? {
            Some(lits) => self.sat.count_inside(&lits, limit),
            None => false,
        })
    }

    /// The literals that tell models on `output` apart, when models can be counted inside
    /// one search ([`Session::count_inside`]); `None` when they cannot.
    fn inside_blocking_lits(&mut self, output: &[Symbol]) -> IdpResult<Option<Vec<Lit>>> {
        self.constrain_named_applications()?;
        if !self.definitions.completion_suffices() {
            return Ok(None);
        }
        let lits = self.blocking_lits(output);
        if !self.numbers.blocked.is_empty() {
            // Models that differ in a number are told apart by comparisons made per model.
            return Ok(None);
        }
        Ok(Some(lits))
    }

    /// The models counted inside the searches since the last call (see
    /// [`Session::count_inside`]).
    pub fn counted_inside(&mut self) -> usize {
        self.sat.counted_inside()
    }

    /// [`Session::count_inside`] for models that are to be decoded: each counted model is
    /// also kept ([`Session::recorded_inside`]). False when this session cannot.
    pub fn record_inside(&mut self, output: &[Symbol], limit: usize) -> IdpResult<bool> {
        Ok(match self.inside_blocking_lits(output)? {
            Some(lits) => self.sat.record_inside(&lits, limit),
            None => false,
        })
    }

    /// The models counted and kept inside the searches since the last call, in the order
    /// found; each is made the current model with [`Session::restore_model`] to be decoded.
    pub fn recorded_inside(&mut self) -> Vec<SavedModel> {
        self.sat.recorded_inside()
    }

    /// The literals whose values tell apart two models that differ on the symbols `output`:
    /// the atoms of `output`, without those of symbols defined under the well-founded
    /// semantics when every other atom is among them. A definition has one model for each
    /// value of the atoms it reads, so two models that agree on all atoms but the defined
    /// ones are the same model; a blocking clause over the open atoms alone excludes exactly
    /// the models that one over all atoms excludes, and is shorter (7x7 maze: 49 atoms of
    /// 613). Projected on symbols that leave out some open atom, the defined atoms stay.
    pub fn blocking_lits(&mut self, output: &[Symbol]) -> Vec<Lit> {
        let wanted: HashSet<Symbol> = output.iter().copied().collect();
        let store = self.grounder.store();
        let sat = &self.sat;
        let in_search = |a: AtomId| {
            let g = store.atom_gf(a);
            sat.existing_lit(g).is_some() || sat.is_pending_alias(g)
        };
        let determined = self.determined();
        let determined_only_by_wanted = (0..store.atom_count() as AtomId).all(|a| {
            let s = &store.atom_key(a).0;
            wanted.contains(s) || determined.contains(s) || !in_search(a)
        });
        let kept: Vec<Gf> = (0..store.atom_count() as AtomId)
            .filter(|&a| {
                let s = &store.atom_key(a).0;
                wanted.contains(s) && !(determined_only_by_wanted && determined.contains(s))
            })
            .filter(|&a| in_search(a))
            .map(|a| store.atom_gf(a))
            .collect();
        self.numbers.blocked = (self.grounder.integers().vars().iter().enumerate())
            .filter(|(_, v)| {
                v.application
                    .as_ref()
                    .is_some_and(|(f, _)| wanted.contains(&Symbol::Func(*f)))
            })
            .map(|(k, _)| k)
            .collect();
        kept.into_iter().map(|g| self.lit(g)).collect()
    }

    /// Gives the atoms of `symbols` that stand for their bodies a literal, if they have none.
    fn encode_aliased_atoms(&mut self, symbols: &HashSet<Symbol>) {
        let store = self.grounder.store();
        let pending: Vec<Gf> = (0..store.atom_count() as AtomId)
            .filter(|&a| symbols.contains(&store.atom_key(a).0))
            .map(|a| store.atom_gf(a))
            .filter(|&g| self.sat.is_pending_alias(g))
            .collect();
        for g in pending {
            self.lit(g);
        }
    }

    /// The defined symbols whose values the atoms of the symbols no definition defines fix:
    /// those of a definition that reads, besides its own symbols, only such atoms and symbols
    /// of definitions found so already. Definitions that read each other's symbols (`{p <-
    /// q.} {q <- p.}`) fix nothing: both `p` and `q` true is a model, and both false.
    fn determined(&self) -> HashSet<Symbol> {
        let defined: HashSet<Symbol> = self
            .encoded_definitions
            .iter()
            .flat_map(|(d, _)| d.iter().copied())
            .collect();
        let mut determined: HashSet<Symbol> = HashSet::default();
        let mut done = vec![false; self.encoded_definitions.len()];
        loop {
            let mut grew = false;
            for (k, (own, read)) in self.encoded_definitions.iter().enumerate() {
                if done[k] {
                    continue;
                }
                let fixed = read
                    .iter()
                    .all(|s| own.contains(s) || !defined.contains(s) || determined.contains(s));
                if fixed {
                    done[k] = true;
                    determined.extend(own.iter().copied());
                    grew = true;
                }
            }
            if !grew {
                return determined;
            }
        }
    }

    /// The atoms and SAT variables so far: [`Session::blocking_lits`] can change only when
    /// one of them grows.
    pub fn blocking_key(&self) -> (usize, usize) {
        (self.grounder.store().atom_count(), self.sat.num_vars())
    }

    /// The SAT literals of the atoms of `symbols` that have one, in the store's order.
    pub fn atom_lits(&mut self, symbols: &[Symbol]) -> Vec<Lit> {
        let symbols: HashSet<Symbol> = symbols.iter().copied().collect();
        self.encode_aliased_atoms(&symbols);
        let store = self.grounder.store();
        (0..store.atom_count() as AtomId)
            .filter(|&a| symbols.contains(&store.atom_key(a).0))
            .filter_map(|a| self.sat.existing_lit(store.atom_gf(a)))
            .collect()
    }

    /// Solves preferring the literals `preferred` (IDP3's `randomvaluechoice`): they are assumed,
    /// and those that the solver finds in the way of a model (its failed assumptions) are given
    /// up, a few rounds at most; then an ordinary search decides.
    pub fn solve_preferring(&mut self, preferred: &[Lit]) -> IdpResult<bool> {
        let mut assumed = preferred.to_vec();
        for _ in 0..PREFERENCE_ROUNDS {
            if assumed.is_empty() {
                break;
            }
            if self.solve(&assumed)? {
                return Ok(true);
            }
            let before = assumed.len();
            assumed.retain(|&l| !self.sat.failed(l));
            if assumed.len() == before {
                break;
            }
        }
        self.solve(&[])
    }

    /// The search steps recorded so far (and forgotten here), with their variables told back
    /// as atoms; `None` unless the session solves with the traced backend.
    pub fn take_trace(&mut self) -> Option<Vec<crate::infer::trace::TraceStep>> {
        let events = self.sat.take_trace()?;
        let store = self.grounder.store();
        let vars =
            crate::infer::trace::AtomVars::new(store, |a| self.sat.existing_lit(store.atom_gf(a)));
        Some(vars.steps(store, events))
    }

    pub fn output_symbols(&self, output: Option<VocId>) -> Vec<Symbol> {
        match output {
            None => self.symbols.clone(),
            Some(v) => interpreted_symbols(self.grounder.program(), v),
        }
    }
}

/// How many times [`Session::solve_preferring`] gives up the preferences in the way of a model
/// before it searches without them.
const PREFERENCE_ROUNDS: usize = 16;

/// The definitions ordered so that one that uses symbols defined by another comes after it
/// (mutually dependent definitions keep their order).
/// Which session [`Session::build`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relax {
    /// The theory's own.
    No,
    /// A relaxation without the definitions over more possible tuples than this
    /// ([`Session::relaxation`]).
    LeaveOutAbove(usize),
    /// A relaxation made by [`crate::infer::abstraction`] ([`Session::abstraction`]).
    Abstracted,
}

/// A relaxation ([`Session::relaxation`]) is given up when it grounds to more nodes.
const RELAXATION_NODES: usize = 500_000;

/// The names of the symbols that `d` defines, comma-separated (for `--stats`).
/// The most tuples of one symbol that [`Session::decided_without_search`] walks.
const MAX_LISTED_TUPLES: usize = 1 << 20;

/// Calls `visit` on every tuple of the product of `domains` (none empty), the last argument
/// fastest (the order of `cartesian`), until it fails.
fn for_each_tuple(
    domains: &[Rc<[Value]>],
    mut visit: impl FnMut(&[Value]) -> IdpResult<()>,
) -> IdpResult<()> {
    if domains.iter().any(|d| d.is_empty()) {
        return Ok(());
    }
    let mut at = vec![0usize; domains.len()];
    let mut tuple: Tuple = domains.iter().map(|d| d[0]).collect();
    loop {
        visit(&tuple)?;
        let Some(k) = (0..at.len()).rev().find(|&k| at[k] + 1 < domains[k].len()) else {
            return Ok(());
        };
        at[k] += 1;
        tuple[k] = domains[k][at[k]];
        for j in k + 1..at.len() {
            at[j] = 0;
            tuple[j] = domains[j][0];
        }
    }
}

fn definition_symbols(program: &Program, d: &Definition) -> String {
    let names: Vec<String> = d
        .defined()
        .iter()
        .map(|&s| program.symbol_name(s).to_string())
        .collect();
    names.join(", ")
}

/// The symbols that the rule bodies of `d` mention.
fn body_symbols(d: &Definition) -> HashSet<Symbol> {
    let mut used = HashSet::default();
    for r in &d.rules {
        symbols(&r.body, &mut used);
    }
    used
}

/// The symbols that the rules of `d` mention, heads included.
fn rule_symbols(d: &Definition) -> HashSet<Symbol> {
    let mut used = body_symbols(d);
    for r in &d.rules {
        for t in &r.head_args {
            symbols(t, &mut used);
        }
    }
    used
}

/// Whether a rule body of `d` mentions a symbol that `d` defines (recursion, positive or not).
fn reads_itself(d: &Definition) -> bool {
    let defined: HashSet<Symbol> = d.defined().into_iter().collect();
    !body_symbols(d).is_disjoint(&defined)
}

/// `defs` in an order in which each definition comes after those it reads (as far as
/// recursion between them allows).
pub(crate) fn dependency_order<'d>(defs: &[&'d Definition]) -> Vec<&'d Definition> {
    dependency_order_at(defs)
        .into_iter()
        .map(|k| defs[k])
        .collect()
}

/// [`dependency_order`], as positions in `defs`.
pub(crate) fn dependency_order_at(defs: &[&Definition]) -> Vec<usize> {
    let defined: Vec<HashSet<Symbol>> = defs
        .iter()
        .map(|d| d.defined().into_iter().collect())
        .collect();
    let used: Vec<HashSet<Symbol>> = defs.iter().map(|d| body_symbols(d)).collect();
    let mut done = vec![false; defs.len()];
    let mut order = Vec::with_capacity(defs.len());
    while order.len() < defs.len() {
        let ready = (0..defs.len()).find(|&i| {
            !done[i]
                && (0..defs.len()).all(|j| j == i || done[j] || used[i].is_disjoint(&defined[j]))
        });
        let next = ready.unwrap_or_else(|| (0..defs.len()).find(|&i| !done[i]).expect("one left"));
        done[next] = true;
        order.push(next);
    }
    order
}

/// The first few atoms a well-founded model leaves unknown, as text.
pub fn unknown_atoms_text(program: &Program, store: &Store, unknown: &[AtomId]) -> String {
    let mut atoms: Vec<String> = unknown
        .iter()
        .map(|&a| crate::ground::atom_text(program, store, a, false))
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
pub(crate) fn naming(e: Error, what: &str, program: &Program, span: Span, text: &str) -> Error {
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

/// Whole numbers as ranges: `-10..10, 59..61`.
fn ranges_text(values: &[i64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for v in sorted {
        match ranges.last_mut() {
            Some((_, high)) if *high + 1 == v => *high = v,
            _ => ranges.push((v, v)),
        }
    }
    let texts: Vec<String> = ranges
        .iter()
        .map(|&(low, high)| match low == high {
            true => low.to_string(),
            false => format!("{low}..{high}"),
        })
        .collect();
    texts.join(", ")
}
