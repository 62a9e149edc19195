//! A session set up to explain why a theory has no model: every part that an explanation may
//! leave out — a sentence, one instance of a sentence, a definition, a fact of the structure —
//! holds only under its own selector literal, so that one solver, kept warm, answers "is
//! there a model with just these parts?" by solving under those selectors as assumptions.
//!
//! Unlike [`Session::new`], nothing is simplified across parts: no unit learnt from one
//! sentence is used to ground another, no definition is evaluated in advance, and the atoms of
//! a defined symbol without a rule are false only under its definition's selector. The facts
//! of the symbols being explained are left out of the structure (their atoms are unknown to
//! the grounder) and enter as assumption literals themselves.

use rustc_hash::FxHashSet as HashSet;

use crate::encode::{assert_completion, Definitions, Sat};
use crate::error::IdpResult;
use crate::ground::{AtomId, Gf, GroundDefinition, Grounder};
use crate::ids::Symbol;
use crate::infer::{Options, SatBackend};
use crate::sema::ir::{Formula, Var};
use crate::sema::{cartesian, Program, Theory};
use crate::solve::{Cadical, Lit, Splr};
use crate::structure::{Structure, Table, Tuple, Value};

use super::{interpreted_symbols, Session};

/// One part of an explanation, as the solver sees it: it holds when its literal is assumed.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Sentence `index` of the theory, as a whole.
    Sentence(usize),
    /// One instance of sentence `sentence`: its outer universal variables bound to values.
    Instance {
        sentence: usize,
        binding: Vec<(Var, Value)>,
    },
    /// Definition `index` of the theory, as a whole.
    Definition(usize),
    /// What the structure says of one tuple of a symbol: true or false (for a function, of
    /// the tuple of its graph, arguments then value).
    Fact {
        symbol: Symbol,
        tuple: Tuple,
        truth: bool,
    },
}

/// What an explaining session holds under selectors, and what it holds outright.
#[derive(Clone, Debug, Default)]
pub struct Setup<'t> {
    /// Sentences of the theory that take part, and whether each is split into its instances
    /// (each one a piece) or kept whole.
    pub sentences: Vec<(usize, bool)>,
    /// Definitions of the theory that take part, each a piece.
    pub definitions: Vec<usize>,
    /// Symbols whose facts in the structure are pieces (the others keep their tables).
    pub relaxed: Vec<Symbol>,
    /// Sentences that always hold (the negation of a literal whose reason is asked).
    pub hard: Vec<&'t Formula>,
}

impl<'a> Session<'a> {
    /// Grounds the parts of `theory` that `setup` names over `structure`, each piece under its
    /// own selector; returns the session and the pieces with their literals, in a fixed
    /// order: facts, then sentences (or their instances), then definitions.
    pub fn explaining(
        program: &'a Program,
        theory: &Theory,
        structure: &'a Structure,
        options: &Options,
        setup: &Setup,
    ) -> IdpResult<(Session<'a>, Vec<(Piece, Lit)>)> {
        let mut session = Session::bare(program, theory, structure, options);
        let defined: Vec<Symbol> = setup
            .definitions
            .iter()
            .flat_map(|&k| theory.definitions[k].defined())
            .collect();
        session.grounder.force_unknown(&defined);
        session.grounder.force_unknown(&setup.relaxed);
        let mut pieces = Vec::new();
        for &s in &setup.relaxed {
            for (tuple, truth) in facts(&mut session.grounder, s)? {
                let atom = session.grounder.atom(s, &tuple);
                let lit = session.lit(if truth { atom } else { -atom });
                let fact = Piece::Fact {
                    symbol: s,
                    tuple,
                    truth,
                };
                pieces.push((fact, lit));
            }
        }
        for &(k, by_instances) in &setup.sentences {
            session.select_sentence(&theory.sentences[k], k, by_instances, &mut pieces)?;
        }
        for f in &setup.hard {
            let g = session.grounder.ground_formula(f)?;
            session.assert(g);
        }
        let mut grounded = Vec::new();
        for &k in &setup.definitions {
            grounded.push((
                k,
                session.grounder.ground_definition(&theory.definitions[k])?,
            ));
        }
        session.encode_symbols()?;
        session.given_defined_facts(&defined, &setup.relaxed)?;
        for (k, gd) in grounded {
            let selector = session.sat.new_var();
            session.select_definition(&gd, theory.definitions[k].span, selector);
            pieces.push((Piece::Definition(k), selector));
        }
        session.grounder.check_growth()?;
        Ok((session, pieces))
    }

    /// A session with nothing grounded yet.
    fn bare(
        program: &'a Program,
        theory: &Theory,
        structure: &'a Structure,
        options: &Options,
    ) -> Session<'a> {
        let own_deadline = (options.timeout > 0.0).then(|| {
            std::time::Instant::now() + std::time::Duration::from_secs_f64(options.timeout)
        });
        let until = options.run.until(own_deadline);
        let grounder = Grounder::new(program, structure, options.max_ground_size, until.clone());
        let config = options.tuning.cadical_config.as_deref();
        let solver: Box<dyn crate::solve::SatSolver> = match options.sat_backend {
            SatBackend::Cadical => Box::new(Cadical::configured(until, config)),
            SatBackend::CadicalLoops => Box::new(Cadical::without_propagation(until, config)),
            SatBackend::Splr => Box::new(Splr::new(&until)),
        };
        Session {
            grounder,
            sat: Sat::new(solver, false),
            definitions: Definitions::new(options.tuning.ranking_after),
            symbols: interpreted_symbols(program, theory.vocabulary),
            vocabulary: theory.vocabulary,
            options: Options {
                leave_unmentioned_false: false,
                seeks_one_model: false,
                ..options.clone()
            },
            own_deadline,
            refinements: 0,
            sat_calls: 0,
            named_functions: HashSet::default(),
            numbers: Default::default(),
            constrained: HashSet::default(),
            atoms_seen: 0,
            warnings: Vec::new(),
            encoded_definitions: Vec::new(),
            delayed: Vec::new(),
            left_out: HashSet::default(),
            kept: None,
            read: HashSet::default(),
            unread: Default::default(),
            _progress: options.run.meter().begin(),
        }
    }

    /// Adds sentence `f` (number `k`) under selectors: one for the whole sentence, or one per
    /// instance of its outer universal quantifiers.
    fn select_sentence(
        &mut self,
        f: &Formula,
        k: usize,
        by_instances: bool,
        pieces: &mut Vec<(Piece, Lit)>,
    ) -> IdpResult<()> {
        if !by_instances {
            let g = self.grounder.ground_formula(f)?;
            let selector = self.sat.new_var();
            self.sat
                .assert_under(self.grounder.store(), g, Some(selector));
            pieces.push((Piece::Sentence(k), selector));
            return Ok(());
        }
        for instance in self.grounder.ground_instances(f)? {
            let selector = self.sat.new_var();
            self.sat
                .assert_under(self.grounder.store(), instance.ground, Some(selector));
            let piece = Piece::Instance {
                sentence: k,
                binding: instance.binding,
            };
            pieces.push((piece, selector));
        }
        self.check_time("grounding")
    }

    /// The completion of `gd` under `selector`: its heads equivalent to their bodies, every
    /// other atom of its symbols false, loop formulas and totality checks under it too.
    fn select_definition(
        &mut self,
        gd: &GroundDefinition,
        span: crate::source::Span,
        selector: Lit,
    ) {
        assert_completion(
            self.grounder.store_mut(),
            &mut self.sat,
            gd,
            Some(selector),
            false,
        );
        let heads: HashSet<AtomId> = gd
            .rules
            .keys()
            .filter_map(|&h| self.grounder.store().as_atom(h))
            .collect();
        let defined: HashSet<Symbol> = gd.defined.iter().copied().collect();
        let store = self.grounder.store();
        let without_rule: Vec<Gf> = (0..store.atom_count() as AtomId)
            .filter(|a| defined.contains(&store.atom_key(*a).0) && !heads.contains(a))
            .map(|a| store.atom_gf(a))
            .collect();
        for g in without_rule {
            self.sat
                .assert_under(self.grounder.store(), -g, Some(selector));
        }
        let stable = self.options.stablesemantics;
        self.definitions.track(
            self.grounder.store(),
            &mut self.sat,
            gd,
            span,
            stable,
            Some(selector),
        );
    }

    /// What the structure says of the defined symbols that are not being explained holds
    /// outright (the definitions made them unknown to the grounder).
    fn given_defined_facts(&mut self, defined: &[Symbol], relaxed: &[Symbol]) -> IdpResult<()> {
        for &s in defined {
            if relaxed.contains(&s) {
                continue;
            }
            for (tuple, truth) in facts(&mut self.grounder, s)? {
                let atom = self.grounder.atom(s, &tuple);
                self.assert(if truth { atom } else { -atom });
            }
        }
        Ok(())
    }

    /// Sends a statistics line to the options' observer.
    pub fn stat(&self, line: impl FnOnce() -> String) {
        self.options.observer.stat(line);
    }

    /// After a search without a model: whether assumption `lit` was needed for that.
    pub fn failed(&self, lit: Lit) -> bool {
        self.sat.failed(lit)
    }
}

/// The facts the structure gives about `s`, sorted: its certainly true and certainly false
/// tuples; for a two-valued predicate, every other tuple over its argument types is false; for
/// a two-valued function, the tuples of its graph that are true (its one value per argument
/// follows).
pub fn facts(grounder: &mut Grounder, s: Symbol) -> IdpResult<Vec<(Tuple, bool)>> {
    let Some(table) = grounder.structure().table(s).cloned() else {
        return Ok(Vec::new());
    };
    let mut out: Vec<(Tuple, bool)> = table.ct().iter().map(|t| (t.clone(), true)).collect();
    match (&table, s) {
        (Table::ThreeValued { cf, .. }, _) => out.extend(cf.iter().map(|t| (t.clone(), false))),
        (Table::TwoValued(_), Symbol::Func(_)) => {}
        (Table::TwoValued(ct), Symbol::Pred(_)) => {
            let sorts = grounder.program().symbol_sorts(s);
            let mut domains = Vec::with_capacity(sorts.len());
            for sort in sorts {
                domains.push(grounder.domain(sort)?.to_vec());
            }
            out.extend(
                cartesian(&domains)
                    .into_iter()
                    .filter(|t| !ct.contains(t))
                    .map(|t| (t, false)),
            );
        }
    }
    out.sort();
    Ok(out)
}
