//! The consultant's engine: one problem (a theory over a structure) ground and encoded once,
//! then asked many questions incrementally, as a person converses with a model. Choices are
//! literals assumed in the live solver (never clauses), so retracting one is free and learnt
//! clauses serve every later question.
//!
//! - [`Problem`] evaluates the definitions the input determines, once; [`Problem::consult`]
//!   grounds and encodes the rest into one [`Session`] and opens a [`Consultation`].
//! - [`Consultation::forced`]: the backbone under the choices, over every atom of the
//!   vocabulary (what all models with the choices share). Candidates are the atoms on which
//!   every model seen so far agrees; each is asked for its other value under the choices (no
//!   model puts it in the backbone, a model drops every candidate it flips). Models found on
//!   the way are kept in a pool that filters the candidates of later questions; answers are
//!   cached per set of choices (undo and redo cost nothing), and a new choice starts from its
//!   parent's backbone, which it can only grow. A budget bounds the search of one answer:
//!   the atoms it does not settle are said to be undecided, and the next question goes on.
//! - [`Consultation::assume`] refuses a choice that no model allows and names a minimal set of
//!   earlier choices that exclude it; [`Consultation::why_not`] gives, for an impossible
//!   value, the smallest sets of choices whose retraction makes it possible again, and
//!   [`Consultation::explain`] a minimal reason for a consequence: choices, facts of the
//!   structure, sentence instances and definitions ([`crate::infer::why_forced`] over the
//!   structure with the choices added, each fact that is a choice told apart).
//! - [`Consultation::relevant`]: which open atoms still matter (for goal symbols, or for the
//!   whole theory), read from the ground theory simplified by the backbone.
//! - [`Consultation::model`] gives the models with the choices one by one, and
//!   [`Consultation::optimum`] the optimum of a term with them.

mod relevance;

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::error::{Error, IdpResult};
use crate::ground::Gf;
use crate::ids::Symbol;
use crate::infer::explain::{parse_literal, why_forced, Core, Forced, Reading};
use crate::infer::session::{interpreted_symbols, Piece, Session};
use crate::infer::{evaluate_definitions, Evaluated, Options};
use crate::sema::ir::{Definition, Formula, FormulaKind, Term, TermKind};
use crate::sema::{symbol_domains, Program, Theory};
use crate::solve::{Implied, Lit};
use crate::structure::{Structure, Table, TruthValue, Tuple};

/// Atoms a consultation lists at most (every tuple of every symbol is one).
pub const MAX_CONSULTED_ATOMS: usize = 200_000;

/// Models kept to filter the candidates of later backbones.
const POOL_SIZE: usize = 256;

/// Sets of choices whose backbone is remembered.
const CACHE_SIZE: usize = 512;

/// SAT calls that [`Consultation::why_not`] may spend looking for sets of choices to retract.
const RETRACTION_CALLS: usize = 400;

/// One ground literal: `symbol(tuple)` true or false; for a function, the tuple of its graph
/// (arguments, then the value), so `f(a) = v` is true or false.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Literal {
    pub symbol: Symbol,
    pub tuple: Tuple,
    pub truth: bool,
}

impl Literal {
    /// The literal with the other truth value.
    pub fn negated(&self) -> Literal {
        Literal {
            truth: !self.truth,
            ..self.clone()
        }
    }
}

/// A problem prepared for consultation: the definitions that the input determines evaluated
/// once; every [`Consultation`] of it shares that work.
pub struct Problem<'p> {
    program: &'p Program,
    theory: &'p Theory,
    /// The structure as given (explanations name its facts).
    given: Structure,
    /// The structure with the determined definitions evaluated, and the definitions left to
    /// the solver; `None` when the definitions contradict the structure (no model).
    evaluated: Option<(Structure, Vec<&'p Definition>)>,
    options: Options,
    warnings: Vec<String>,
}

impl<'p> Problem<'p> {
    /// Prepares `theory` over `structure` (evaluating the definitions its input determines).
    pub fn new(
        program: &'p Program,
        theory: &'p Theory,
        structure: &Structure,
        options: &Options,
    ) -> IdpResult<Problem<'p>> {
        let options = Options {
            nbmodels: 0,
            keeps_ground: true,
            leave_unmentioned_false: false,
            seeks_one_model: false,
            delay: None,
            ..options.clone()
        };
        let mut warnings = Vec::new();
        let evaluated =
            match evaluate_definitions(program, theory, structure, &options, &mut warnings)? {
                Evaluated::Done(s, pending) => Some((*s, pending)),
                Evaluated::Inconsistent => None,
            };
        Ok(Problem {
            program,
            theory,
            given: structure.clone(),
            evaluated,
            options,
            warnings,
        })
    }

    pub fn program(&self) -> &'p Program {
        self.program
    }

    pub fn theory(&self) -> &'p Theory {
        self.theory
    }

    /// The structure as given.
    pub fn structure(&self) -> &Structure {
        &self.given
    }

    /// The warnings of preparing (definitions evaluated).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Grounds and encodes the problem into a live solver and opens a consultation of it.
    pub fn consult(&self) -> IdpResult<Consultation<'_>> {
        Consultation::open(self)
    }
}

/// What an atom of the consultation is, before any choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomState {
    /// The structure (or what grounding derived from it) decides it.
    Known(bool),
    /// Open: its literal is `lits[k]`.
    Open(usize),
}

/// One atom of the vocabulary: the symbol, its tuple (a function's graph tuple) and state.
#[derive(Clone, Debug)]
struct Atom {
    symbol: Symbol,
    tuple: Tuple,
    state: AtomState,
}

/// Which atoms still matter with the current choices ([`Consultation::relevant`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Relevance {
    /// The open atoms (neither chosen nor known in every model) that matter.
    pub relevant: Vec<Literal>,
    /// The open atoms whose value matters to no sentence that is still undecided: any value
    /// will do.
    pub irrelevant: Vec<Literal>,
}

/// The answer to a choice.
#[derive(Clone, Debug, PartialEq)]
pub enum Assumed {
    /// The choice is made; models with all choices exist.
    Added,
    /// The same choice was made before: nothing changed.
    Already,
    /// Whether a model has it with the others was not decided within the budget: it is not
    /// made.
    Undecided,
    /// No model has this choice together with the others: it is not made. The earlier
    /// choices that exclude it (a minimal set; empty when the theory and the structure alone
    /// exclude it).
    Refused(Vec<Literal>),
}

/// What every model with the current choices shares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Consequences {
    /// The atoms true in every model (choices and the structure's facts included).
    pub true_atoms: Vec<Literal>,
    /// The atoms false in every model.
    pub false_atoms: Vec<Literal>,
    /// The atoms not settled within the budget: in the backbone or not.
    pub undecided: Vec<Literal>,
}

/// What is known of the backbone under one set of choices.
#[derive(Clone, Debug)]
struct Backbone {
    /// For each literal of `lits`, its value in every model with the choices, where known.
    values: Vec<Option<bool>>,
    /// The literals whose place is not settled yet: every model seen with the choices gives
    /// them their value in `reference`.
    pending: Vec<usize>,
    /// A model with the choices.
    reference: Vec<bool>,
    /// The conflict limit (an index of [`CONFLICT_LEVELS`]) the pending literals wait for.
    level: usize,
}

/// The conflict limits of one backbone call, level by level: what a level cannot decide
/// waits for the next, so quick answers are not held up by hard ones. The last has none; a
/// budget's deadline stops any call (the solver's terminator watches the clock).
const CONFLICT_LEVELS: [Option<u32>; 4] = [Some(100), Some(2_000), Some(50_000), None];

/// One part of an explanation.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// A choice of the user's (retract it to change the answer).
    Choice(Literal),
    /// A fact of the structure.
    Fact(Literal),
    /// A sentence, or one instance of it: where it is, its text, and for an instance the
    /// instance with its values filled in and the binding (`x=a, y=b`).
    Sentence {
        at: String,
        text: String,
        instance: Option<(String, String)>,
    },
    /// A definition: where it is and its text.
    Definition { at: String, text: String },
    /// Something the structure's types or the functions' totality contribute, in words.
    Given(String),
}

/// The answer of [`Consultation::explain`].
#[derive(Clone, Debug, PartialEq)]
pub enum Explanation {
    /// Every model with the choices satisfies the literal, because of these reasons (a
    /// minimal set: without any one of them it need not hold); `core` is the same as the
    /// engine's core, over [`Consultation::chosen_structure`].
    Because { reasons: Vec<Reason>, core: Core },
    /// Some model with the choices does not satisfy it.
    NotForced,
    /// There is no model with the choices at all.
    NoModel,
}

/// The answer of [`Consultation::why_not`].
#[derive(Clone, Debug, PartialEq)]
pub enum WhyNot {
    /// Some model with the choices satisfies the literal.
    Possible,
    /// That was not decided within the budget.
    Undecided,
    /// No model with the choices satisfies it. `retract`: the smallest sets of choices whose
    /// retraction makes it possible (empty when no retraction does: the theory and structure
    /// exclude it); `because`: why its negation holds.
    Impossible {
        retract: Vec<Vec<Literal>>,
        because: Box<Explanation>,
    },
}

/// The optimum of a term with the current choices.
#[derive(Clone, Debug)]
pub struct Optimum {
    pub value: Option<crate::structure::Value>,
    pub model: Option<Structure>,
    pub proven: bool,
}

/// A consultation: a problem in a live solver, the user's choices, and what is known of
/// their consequences.
pub struct Consultation<'s> {
    problem: &'s Problem<'s>,
    /// `None` when the problem has no model at all (its definitions contradict the structure).
    session: Option<Session<'s>>,
    atoms: Vec<Atom>,
    index: HashMap<(Symbol, Tuple), usize>,
    /// The literal of each open atom (`AtomState::Open(k)` is `lits[k]`).
    lits: Vec<Lit>,
    /// The index in `lits` of each solver literal there.
    lit_index: HashMap<Lit, usize>,
    /// The choices, in the order they were made: an atom and its truth.
    choices: Vec<(usize, bool)>,
    /// Models seen (the values of `lits`), newest last.
    pool: Vec<Vec<bool>>,
    /// The backbone of each set of choices asked so far (sorted choices as the key); `None`
    /// when there is no model.
    backbones: HashMap<Vec<(usize, bool)>, Option<Backbone>>,
    /// How long `forced` may search (see [`Consultation::set_budget`]).
    budget: Option<Duration>,
    /// Models shown by [`Consultation::model`] since the choices last changed are excluded
    /// by clauses under this literal.
    shown: Option<Lit>,
    /// The symbols left out of the consultation (an infinite type, or too many tuples).
    skipped: Vec<Symbol>,
}

impl<'s> Consultation<'s> {
    fn open(problem: &'s Problem<'s>) -> IdpResult<Consultation<'s>> {
        let mut c = Consultation {
            problem,
            session: None,
            atoms: Vec::new(),
            index: HashMap::default(),
            lits: Vec::new(),
            lit_index: HashMap::default(),
            choices: Vec::new(),
            pool: Vec::new(),
            backbones: HashMap::default(),
            budget: None,
            shown: None,
            skipped: Vec::new(),
        };
        let Some((structure, pending)) = &problem.evaluated else {
            c.list_atoms(&problem.given, None)?;
            return Ok(c);
        };
        let mut session = Session::new(
            problem.program,
            problem.theory,
            pending,
            structure,
            &problem.options,
        )?;
        c.list_atoms(structure, Some(&mut session))?;
        c.session = Some(session);
        Ok(c)
    }

    /// Lists every atom of the theory's vocabulary with its state (literals made now, before
    /// any search: a literal made after a search has no value in its model).
    fn list_atoms(
        &mut self,
        structure: &Structure,
        mut session: Option<&mut Session<'s>>,
    ) -> IdpResult<()> {
        let program = self.problem.program;
        for symbol in interpreted_symbols(program, self.problem.theory.vocabulary) {
            let tuples = symbol_domains(program, structure, symbol)
                .and_then(|d| crate::sema::product(&d, MAX_CONSULTED_ATOMS));
            let Some(tuples) = tuples else {
                self.skipped.push(symbol);
                continue;
            };
            if self.atoms.len() + tuples.len() > MAX_CONSULTED_ATOMS {
                return Err(Error::limit(
                    crate::error::Limit::GroundSize,
                    format!(
                        "a consultation lists every atom of the vocabulary, and {} has more \
                         than {MAX_CONSULTED_ATOMS} with the others; consult a smaller \
                         instance",
                        program.symbol_name(symbol)
                    ),
                ));
            }
            for tuple in tuples {
                let state = match session.as_deref_mut() {
                    None => AtomState::Known(false),
                    Some(session) => {
                        let g = session.atom(symbol, &tuple);
                        if g == Gf::TRUE {
                            AtomState::Known(true)
                        } else if g == Gf::FALSE {
                            AtomState::Known(false)
                        } else {
                            let lit = session.lit(g);
                            let k = *self.lit_index.entry(lit).or_insert(self.lits.len());
                            if k == self.lits.len() {
                                self.lits.push(lit);
                            }
                            AtomState::Open(k)
                        }
                    }
                };
                self.index.insert((symbol, tuple.clone()), self.atoms.len());
                self.atoms.push(Atom {
                    symbol,
                    tuple,
                    state,
                });
            }
        }
        Ok(())
    }

    /// The problem consulted.
    pub fn problem(&self) -> &Problem<'s> {
        self.problem
    }

    /// The symbols left out (an infinite type or too many tuples): they cannot be chosen.
    pub fn skipped(&self) -> &[Symbol] {
        &self.skipped
    }

    /// The choices made, in order.
    pub fn choices(&self) -> Vec<Literal> {
        self.choices
            .iter()
            .map(|&(a, t)| self.literal(a, t))
            .collect()
    }

    /// Every atom of the consultation, in the vocabulary's order (symbols, then tuples).
    pub fn atoms(&self) -> Vec<Literal> {
        (0..self.atoms.len())
            .map(|a| self.literal(a, true))
            .collect()
    }

    fn literal(&self, atom: usize, truth: bool) -> Literal {
        let a = &self.atoms[atom];
        Literal {
            symbol: a.symbol,
            tuple: a.tuple.clone(),
            truth,
        }
    }

    /// Reads a literal written as in IDP (`P(a,b)`, `~P(a,b)`, `f(a) = v`, `f(a) ~= v`).
    pub fn parse(&self, text: &str) -> Result<Literal, String> {
        let p = self.problem;
        if let Some(symbol) = self.skipped_symbol_in(text) {
            return Err(format!(
                "{} is not part of this consultation: its type is infinite or too large to \
                 list (a number the search chooses, such as a real, cannot be chosen here); \
                 its values show in a model",
                p.program.symbol_name(symbol)
            ));
        }
        let formula = parse_literal(p.program, p.theory.vocabulary, &p.given, text)?;
        let literal = literal_of(&formula).ok_or_else(|| format!("'{text}' is not a literal"))?;
        if !self
            .index
            .contains_key(&(literal.symbol, literal.tuple.clone()))
        {
            return Err(format!(
                "{} is not part of this consultation (its type is infinite or too large)",
                p.program.symbol_name(literal.symbol)
            ));
        }
        Ok(literal)
    }

    /// The skipped symbol that literal `text` is about, if it names one.
    fn skipped_symbol_in(&self, text: &str) -> Option<Symbol> {
        let name = text
            .trim_start()
            .trim_start_matches(['~', '¬'])
            .trim_start()
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()?;
        let program = self.problem.program;
        self.skipped
            .iter()
            .copied()
            .find(|&s| program.symbol_name(s).rsplit(':').next() == Some(name))
    }

    /// The literal as IDP writes it (`P(a,b)`, `~P(a,b)`, `f(a) = v`, `f(a) ~= v`).
    pub fn text(&self, literal: &Literal) -> String {
        self.reading()
            .fact_text(literal.symbol, &literal.tuple, literal.truth)
    }

    fn reading(&self) -> Reading<'_> {
        Reading {
            program: self.problem.program,
            theory: self.problem.theory,
            structure: &self.problem.given,
        }
    }

    fn atom_of(&self, literal: &Literal) -> IdpResult<usize> {
        self.index
            .get(&(literal.symbol, literal.tuple.clone()))
            .copied()
            .ok_or_else(|| Error::internal("a literal outside the consultation"))
    }

    /// The solver literal that makes atom `a` have `truth`; `Err(value)` for a known atom.
    fn solver_lit(&self, a: usize, truth: bool) -> Result<Lit, bool> {
        match self.atoms[a].state {
            AtomState::Known(v) => Err(v),
            AtomState::Open(k) if truth => Ok(self.lits[k]),
            AtomState::Open(k) => Ok(-self.lits[k]),
        }
    }

    /// The assumptions for choices `choices`; `None` when one contradicts a known atom.
    fn assumptions(&self, choices: &[(usize, bool)]) -> Option<Vec<Lit>> {
        let mut out = Vec::new();
        for &(a, t) in choices {
            match self.solver_lit(a, t) {
                Ok(l) => out.push(l),
                Err(v) if v == t => {}
                Err(_) => return None,
            }
        }
        Some(out)
    }

    /// Whether some model has all of `choices` (a model of the pool that has them answers
    /// without a search); `None` when the budget ran out before that was decided.
    fn possible(&mut self, choices: &[(usize, bool)]) -> IdpResult<Option<bool>> {
        let Some(assumptions) = self.assumptions(choices) else {
            return Ok(Some(false));
        };
        if self
            .pool
            .iter()
            .any(|m| assumptions.iter().all(|&l| self.model_has(m, l)))
        {
            return Ok(Some(true));
        }
        let deadline = self.budget.map(|b| Instant::now() + b);
        for &limit in &CONFLICT_LEVELS {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let Some(session) = self.session.as_mut() else {
                return Ok(Some(false));
            };
            match session.solve_before(&assumptions, limit, deadline)? {
                Some(true) => {
                    self.remember_model();
                    return Ok(Some(true));
                }
                Some(false) => return Ok(Some(false)),
                None => {}
            }
        }
        Ok(None)
    }

    /// Searches for a model under `assumptions` (kept in the pool when found).
    fn solve_for_model(&mut self, assumptions: &[Lit]) -> IdpResult<bool> {
        let Some(session) = self.session.as_mut() else {
            return Ok(false);
        };
        let found = session.solve(assumptions)?;
        if found {
            self.remember_model();
        }
        Ok(found)
    }

    /// Keeps the session's current model in the pool.
    fn remember_model(&mut self) {
        let Some(session) = &self.session else { return };
        let model: Vec<bool> = self.lits.iter().map(|&l| session.lit_value(l)).collect();
        if self.pool.len() == POOL_SIZE {
            self.pool.remove(0);
        }
        self.pool.push(model);
    }

    /// Makes a choice, unless no model allows it with the others.
    pub fn assume(&mut self, literal: &Literal) -> IdpResult<Assumed> {
        let a = self.atom_of(literal)?;
        if self.choices.contains(&(a, literal.truth)) {
            return Ok(Assumed::Already);
        }
        // A choice of the other value of the same atom replaces it.
        let mut with: Vec<(usize, bool)> = self
            .choices
            .iter()
            .copied()
            .filter(|&(b, _)| b != a)
            .collect();
        with.push((a, literal.truth));
        let possible = self.possible(&with)?;
        if possible.is_none() {
            return Ok(Assumed::Undecided);
        }
        if possible == Some(false) {
            let earlier: Vec<(usize, bool)> = with[..with.len() - 1].to_vec();
            let conflict = self.minimal_conflict(&earlier, (a, literal.truth))?;
            return Ok(Assumed::Refused(
                conflict
                    .into_iter()
                    .map(|(b, t)| self.literal(b, t))
                    .collect(),
            ));
        }
        self.choices = with;
        self.choices_changed();
        Ok(Assumed::Added)
    }

    /// Takes a choice back; false when it was not made.
    pub fn retract(&mut self, literal: &Literal) -> IdpResult<bool> {
        let a = self.atom_of(literal)?;
        let before = self.choices.len();
        self.choices.retain(|&c| c != (a, literal.truth));
        let changed = self.choices.len() != before;
        if changed {
            self.choices_changed();
        }
        Ok(changed)
    }

    /// Takes every choice back.
    pub fn clear(&mut self) {
        if !self.choices.is_empty() {
            self.choices.clear();
            self.choices_changed();
        }
    }

    fn choices_changed(&mut self) {
        if let (Some(shown), Some(session)) = (self.shown.take(), self.session.as_mut()) {
            session.add_clause(&[-shown]);
        }
    }

    /// A minimal subset of `earlier` that excludes `new` (deletion-based, starting from the
    /// solver's failed assumptions).
    fn minimal_conflict(
        &mut self,
        earlier: &[(usize, bool)],
        new: (usize, bool),
    ) -> IdpResult<Vec<(usize, bool)>> {
        // The solver's failed assumptions of the last call (all choices and the new one) are
        // a first, not necessarily minimal, conflict.
        let mut core: Vec<(usize, bool)> = match &self.session {
            Some(session) if self.assumptions(&[new]).is_some() => earlier
                .iter()
                .copied()
                .filter(|&(a, t)| self.solver_lit(a, t).is_ok_and(|l| session.failed(l)))
                .collect(),
            _ => earlier.to_vec(),
        };
        let mut k = 0;
        while k < core.len() {
            let mut without = core.clone();
            without.remove(k);
            let mut tried = without.clone();
            tried.push(new);
            // Undecided within the budget: kept in the conflict (sound, perhaps not minimal).
            if self.possible(&tried)? != Some(false) {
                k += 1;
            } else {
                core = without;
            }
        }
        Ok(core)
    }

    /// What the structure (with the definitions its input determines, and what grounding
    /// derived) fixes before any choice: the same in every answer, so asked once.
    pub fn given(&self) -> Consequences {
        let mut out = Consequences::default();
        for (a, atom) in self.atoms.iter().enumerate() {
            match atom.state {
                AtomState::Known(true) => out.true_atoms.push(self.literal(a, true)),
                AtomState::Known(false) => out.false_atoms.push(self.literal(a, true)),
                AtomState::Open(_) => {}
            }
        }
        out
    }

    /// What every model with the current choices shares beyond [`Consultation::given`]: the
    /// atoms open before any choice that all such models make true or false (the choices
    /// among them); `None` when there is no model. Within the consultation's budget
    /// ([`Consultation::set_budget`]): the atoms not settled by then are `undecided`, and
    /// asking again goes on where this stopped.
    pub fn forced(&mut self) -> IdpResult<Option<Consequences>> {
        let Some(state) = self.backbone()? else {
            return Ok(None);
        };
        let mut out = Consequences::default();
        for (a, atom) in self.atoms.iter().enumerate() {
            let AtomState::Open(k) = atom.state else {
                continue;
            };
            match state.values[k] {
                Some(true) => out.true_atoms.push(self.literal(a, true)),
                Some(false) => out.false_atoms.push(self.literal(a, true)),
                None if state.pending.contains(&k) => out.undecided.push(self.literal(a, true)),
                None => {}
            }
        }
        Ok(Some(out))
    }

    /// How long [`Consultation::forced`] (and what asks it: `value`) may search before it
    /// answers with some atoms undecided; `None`: until every atom is settled.
    pub fn set_budget(&mut self, budget: Option<Duration>) {
        self.budget = budget;
    }

    /// The budget of [`Consultation::forced`].
    pub fn budget(&self) -> Option<Duration> {
        self.budget
    }

    /// Which open atoms (neither chosen nor the same in every model with the choices) still
    /// matter: those in a part of a sentence that the known values do not decide, or in the
    /// rule of such a defined atom; with `goals`, only those linked to an atom of a goal
    /// symbol. Within the budget of [`Consultation::forced`] (atoms it leaves undecided count
    /// as open). `None` when there is no model.
    pub fn relevant(&mut self, goals: Option<&[Symbol]>) -> IdpResult<Option<Relevance>> {
        let Some(state) = self.backbone()? else {
            return Ok(None);
        };
        let Some(session) = self.session.as_ref() else {
            return Ok(Some(Relevance::default()));
        };
        let store = session.store();
        let value = |a: crate::ground::AtomId| -> Option<bool> {
            let key = store.atom_key(a);
            let &k = self.index.get(key)?;
            match self.atoms[k].state {
                AtomState::Known(b) => Some(b),
                AtomState::Open(l) => state.values[l],
            }
        };
        let nothing_kept = crate::infer::session::KeptGround::default();
        let kept = session.kept_ground().unwrap_or(&nothing_kept);
        let matters = relevance::relevant_atoms(store, kept, &value, goals);
        let matters: HashSet<usize> = matters
            .into_iter()
            .filter_map(|a| self.index.get(store.atom_key(a)).copied())
            .collect();
        let mut out = Relevance::default();
        for (a, atom) in self.atoms.iter().enumerate() {
            let AtomState::Open(k) = atom.state else {
                continue;
            };
            if state.values[k].is_some() {
                continue;
            }
            if matters.contains(&a) {
                out.relevant.push(self.literal(a, true));
            } else {
                out.irrelevant.push(self.literal(a, true));
            }
        }
        Ok(Some(out))
    }

    /// The value every model with the current choices gives the literal's atom, if they
    /// agree (`Some(None)` when they do not, or that was not settled within the budget);
    /// `None` when there is no model.
    pub fn value(&mut self, literal: &Literal) -> IdpResult<Option<Option<bool>>> {
        Ok(self.settled_value(literal)?.map(|(v, _)| v))
    }

    /// [`Consultation::value`], and whether an unknown value is settled (both values have
    /// models) or only not decided within the budget.
    pub fn settled_value(&mut self, literal: &Literal) -> IdpResult<Option<(Option<bool>, bool)>> {
        let a = self.atom_of(literal)?;
        let Some(state) = self.backbone()? else {
            return Ok(None);
        };
        Ok(Some(match self.atoms[a].state {
            AtomState::Known(v) => (Some(v), true),
            AtomState::Open(k) => (state.values[k], !state.pending.contains(&k)),
        }))
    }

    /// The backbone under the current choices, as far as the budget allows (cached per set
    /// of choices, and resumed when it was not complete).
    fn backbone(&mut self) -> IdpResult<Option<Backbone>> {
        let key = sorted(&self.choices);
        let state = match self.backbones.get(&key) {
            Some(None) => return Ok(None),
            Some(Some(state)) if state.pending.is_empty() => return Ok(Some(state.clone())),
            Some(Some(state)) => state.clone(),
            None => {
                // The backbone of the choices without the newest is part of this one.
                let parent = self
                    .choices
                    .split_last()
                    .and_then(|(_, rest)| self.backbones.get(&sorted(rest)).cloned().flatten());
                match self.start_backbone(parent.map(|p| p.values))? {
                    Some(state) => state,
                    None => {
                        self.backbones.insert(key, None);
                        return Ok(None);
                    }
                }
            }
        };
        let deadline = self.budget.map(|b| Instant::now() + b);
        let state = self.settle(state, deadline)?;
        if self.backbones.len() >= CACHE_SIZE {
            self.backbones.clear();
        }
        self.backbones.insert(key, Some(state.clone()));
        Ok(Some(state))
    }

    /// The backbone under the current choices before any candidate is asked: `parent`'s
    /// values, the choices, and as candidates the other atoms on which every model of the
    /// pool that has the choices agrees with a model just found. `None` when there is no
    /// model.
    fn start_backbone(&mut self, parent: Option<Vec<Option<bool>>>) -> IdpResult<Option<Backbone>> {
        let choices = self.choices.clone();
        let Some(assumptions) = self.assumptions(&choices) else {
            return Ok(None);
        };
        // A model of the pool with the choices (the one `assume` found, mostly) serves as
        // the reference; else one is searched.
        let known = self
            .pool
            .iter()
            .rposition(|m| assumptions.iter().all(|&l| self.model_has(m, l)));
        match known {
            Some(k) => {
                let model = self.pool.remove(k);
                self.pool.push(model);
            }
            None if self.session.is_some() && self.solve_for_model(&assumptions)? => {}
            None => return Ok(None),
        }
        let mut values = parent.unwrap_or_else(|| vec![None; self.lits.len()]);
        for &(a, t) in &choices {
            if let AtomState::Open(k) = self.atoms[a].state {
                values[k] = Some(t);
            }
        }
        let reference = self.pool.last().cloned().expect("a model with the choices");
        let consistent: Vec<&Vec<bool>> = self
            .pool
            .iter()
            .filter(|m| assumptions.iter().all(|&l| self.model_has(m, l)))
            .collect();
        let pending: Vec<usize> = (0..self.lits.len())
            .filter(|&k| values[k].is_none())
            .filter(|&k| consistent.iter().all(|m| m[k] == reference[k]))
            .collect();
        Ok(Some(Backbone {
            values,
            pending,
            reference,
            level: 0,
        }))
    }

    /// Settles the pending candidates of `state` until `deadline`: one call per candidate,
    /// asking for its other value under the choices. No model puts it in the backbone (the
    /// learnt clauses of earlier calls stay, so most such calls are quick); a model drops
    /// every candidate it flips. Calls get a conflict limit that grows by levels: what a
    /// level cannot decide waits for the next, so quick answers are not held up by hard
    /// ones. (Asking for many flips at once, by a clause over all candidates, made more hard
    /// calls: each model then flipped only one or two of them.)
    fn settle(&mut self, mut state: Backbone, deadline: Option<Instant>) -> IdpResult<Backbone> {
        let Some(mut with) = self.assumptions(&self.choices.clone()) else {
            return Ok(state);
        };
        if state.level == 0 {
            self.settle_by_propagation(&mut state, &with)?;
        }
        while state.level < CONFLICT_LEVELS.len() && !state.pending.is_empty() {
            let limit = CONFLICT_LEVELS[state.level];
            let mut deferred = Vec::new();
            while let Some(k) = state.pending.pop() {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    state.pending.push(k);
                    state.pending.extend(deferred.iter().rev());
                    return Ok(state);
                }
                let l = self.lits[k];
                with.push(if state.reference[k] { -l } else { l });
                let session = self.session.as_mut().expect("a model was found");
                let found = session.solve_before(&with, limit, deadline)?;
                with.pop();
                match found {
                    Some(true) => {
                        self.remember_model();
                        let model = self.pool.last().expect("just kept");
                        state.pending.retain(|&j| model[j] == state.reference[j]);
                        deferred.retain(|&j| model[j] == state.reference[j]);
                    }
                    Some(false) => state.values[k] = Some(state.reference[k]),
                    None => deferred.push(k),
                }
            }
            deferred.reverse();
            state.pending = deferred;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                // The clock, not this level's limit, stopped the last call: the level goes on
                // with the next question.
                return Ok(state);
            }
            state.level += 1;
        }
        Ok(state)
    }

    /// Settles at once the pending candidates that propagation under the choices derives
    /// (no search: unit propagation over the clauses, learnt ones included, and the
    /// propagators), so that even an answer whose budget allows no search has them.
    fn settle_by_propagation(&mut self, state: &mut Backbone, with: &[Lit]) -> IdpResult<()> {
        let session = self.session.as_mut().expect("a model was found");
        let Implied::Lits(implied) = session.implied(with)? else {
            return Ok(());
        };
        let implied: HashSet<Lit> = implied.into_iter().collect();
        let lits = &self.lits;
        state.pending.retain(|&k| {
            let value = state.reference[k];
            let settled = implied.contains(&if value { lits[k] } else { -lits[k] });
            if settled {
                state.values[k] = Some(value);
            }
            !settled
        });
        Ok(())
    }

    /// Whether model `m` (values of `lits`) satisfies solver literal `l` (a literal not among
    /// `lits` is taken as satisfied).
    fn model_has(&self, m: &[bool], l: Lit) -> bool {
        match (self.lit_index.get(&l), self.lit_index.get(&-l)) {
            (Some(&k), _) => m[k],
            (None, Some(&k)) => !m[k],
            (None, None) => true,
        }
    }

    /// Why every model with the current choices satisfies `literal`.
    pub fn explain(&mut self, literal: &Literal) -> IdpResult<Explanation> {
        self.explain_with(literal, &self.choices.clone())
    }

    /// Why every model with `choices` satisfies `literal`.
    fn explain_with(
        &mut self,
        literal: &Literal,
        choices: &[(usize, bool)],
    ) -> IdpResult<Explanation> {
        let p = self.problem;
        let chosen = self.structure_with(choices);
        let formula = formula_of(p.program, literal);
        let answer = why_forced(p.program, p.theory, &chosen, &formula, &p.options)?.value;
        Ok(match answer {
            Forced::By(core) => Explanation::Because {
                reasons: self.reasons(&core),
                core,
            },
            Forced::Not => Explanation::NotForced,
            Forced::NoModel => Explanation::NoModel,
        })
    }

    /// The structure as given with the choices added as facts.
    pub fn chosen_structure(&self) -> Structure {
        self.structure_with(&self.choices)
    }

    /// The structure as given with `choices` added as facts.
    fn structure_with(&self, choices: &[(usize, bool)]) -> Structure {
        let mut s = self.problem.given.clone();
        for &(a, t) in choices {
            let atom = &self.atoms[a];
            if s.table(atom.symbol)
                .is_some_and(|table| table.truth(&atom.tuple) != TruthValue::Unknown)
            {
                continue;
            }
            let (mut ct, mut cf) = match s.table(atom.symbol) {
                Some(Table::ThreeValued { ct, cf }) => (ct.clone(), cf.clone()),
                _ => Default::default(),
            };
            if t {
                ct.insert(atom.tuple.clone());
            } else {
                cf.insert(atom.tuple.clone());
            }
            s.symbols.insert(atom.symbol, Table::ThreeValued { ct, cf });
        }
        s
    }

    /// A core's parts as reasons, the facts that are choices told apart.
    fn reasons(&self, core: &Core) -> Vec<Reason> {
        let reading = self.reading();
        let theory = self.problem.theory;
        let mut out = Vec::new();
        for piece in &core.pieces {
            match piece {
                Piece::Fact {
                    symbol,
                    tuple,
                    truth,
                } => {
                    let literal = Literal {
                        symbol: *symbol,
                        tuple: tuple.clone(),
                        truth: *truth,
                    };
                    let chosen = self
                        .index
                        .get(&(*symbol, tuple.clone()))
                        .is_some_and(|&a| self.choices.contains(&(a, *truth)));
                    out.push(if chosen {
                        Reason::Choice(literal)
                    } else {
                        Reason::Fact(literal)
                    });
                }
                Piece::Sentence(k) | Piece::Instance { sentence: k, .. } => {
                    let f = &theory.sentences[*k];
                    let instance = match piece {
                        Piece::Instance { .. } => reading
                            .instance_text(piece)
                            .map(|(_, text, with)| (text, with)),
                        _ => None,
                    };
                    out.push(Reason::Sentence {
                        at: reading.at(f.span),
                        text: reading.written(f),
                        instance,
                    });
                }
                Piece::Definition(k) => {
                    let d = &theory.definitions[*k];
                    out.push(Reason::Definition {
                        at: reading.at(d.span),
                        text: reading.definition_text(d),
                    });
                }
            }
        }
        out.extend(reading.given_lines(core).into_iter().map(Reason::Given));
        out
    }

    /// Why no model with the current choices satisfies `literal`, and which choices to
    /// retract to allow it.
    pub fn why_not(&mut self, literal: &Literal) -> IdpResult<WhyNot> {
        let a = self.atom_of(literal)?;
        let mut with = self.choices.clone();
        with.retain(|&(b, _)| b != a);
        let replaced = with.len() != self.choices.len();
        with.push((a, literal.truth));
        if !replaced {
            match self.possible(&with)? {
                Some(true) => return Ok(WhyNot::Possible),
                None => return Ok(WhyNot::Undecided),
                Some(false) => {}
            }
        }
        let retract = self.retractions(a, literal.truth)?;
        // When no retraction helps, the reason is the theory's and the structure's alone.
        let because = if retract.is_empty() {
            self.explain_with(&literal.negated(), &[])?
        } else {
            self.explain(&literal.negated())?
        };
        Ok(WhyNot::Impossible {
            retract,
            because: Box::new(because),
        })
    }

    /// The smallest sets of choices whose retraction lets atom `a` have `truth` (sets of one,
    /// else of two, ... within [`RETRACTION_CALLS`] SAT calls); empty when even all choices
    /// retracted do not.
    fn retractions(&mut self, a: usize, truth: bool) -> IdpResult<Vec<Vec<Literal>>> {
        let choices: Vec<(usize, bool)> = self
            .choices
            .iter()
            .copied()
            .filter(|&(b, _)| b != a)
            .collect();
        // The other value of the same atom, chosen, is always in the way.
        let own: Vec<(usize, bool)> = self
            .choices
            .iter()
            .copied()
            .filter(|&(b, _)| b == a)
            .collect();
        if self.possible(&[(a, truth)])? != Some(true) {
            return Ok(Vec::new());
        }
        let mut calls = 0;
        let mut found: Vec<Vec<(usize, bool)>> = Vec::new();
        for size in 0..=choices.len() {
            for subset in subsets(choices.len(), size) {
                if calls >= RETRACTION_CALLS {
                    break;
                }
                // Only minimal sets: none that contains one found already.
                if found
                    .iter()
                    .any(|f| f.iter().all(|c| subset.iter().any(|&i| choices[i] == *c)))
                {
                    continue;
                }
                let mut kept: Vec<(usize, bool)> = (0..choices.len())
                    .filter(|i| !subset.contains(i))
                    .map(|i| choices[i])
                    .collect();
                kept.push((a, truth));
                calls += 1;
                if self.possible(&kept)? == Some(true) {
                    found.push(subset.iter().map(|&i| choices[i]).collect());
                }
            }
            if !found.is_empty() || calls >= RETRACTION_CALLS {
                break;
            }
        }
        Ok(found
            .into_iter()
            .map(|set| {
                own.iter()
                    .chain(&set)
                    .map(|&(b, t)| self.literal(b, t))
                    .collect()
            })
            .collect())
    }

    /// A model with the current choices, other than those this gave since the choices last
    /// changed; `None` when there is no (other) model.
    pub fn model(&mut self) -> IdpResult<Option<Structure>> {
        let Some(mut assumptions) = self.assumptions(&self.choices.clone()) else {
            return Ok(None);
        };
        let symbols = interpreted_symbols(self.problem.program, self.problem.theory.vocabulary);
        let Some(session) = self.session.as_mut() else {
            return Ok(None);
        };
        let shown = *self.shown.get_or_insert_with(|| session.fresh_lit());
        assumptions.push(shown);
        if !session.solve(&assumptions)? {
            return Ok(None);
        }
        let model = session.decode("");
        let blocking = session.blocking_lits(&symbols);
        let mut clause = vec![-shown];
        clause.extend(
            blocking
                .iter()
                .map(|&l| if session.lit_value(l) { -l } else { l }),
        );
        self.remember_model();
        let session = self.session.as_mut().expect("solved above");
        session.add_clause(&clause);
        Ok(Some(model))
    }

    /// The least (or, with `maximise`, the greatest) value of `term` in the models with the
    /// current choices, with a model that has it.
    pub fn optimum(&mut self, term: &Term, maximise: bool) -> IdpResult<Optimum> {
        let p = self.problem;
        let chosen = self.chosen_structure();
        let objective = if maximise {
            Term::new(TermKind::Neg(Box::new(term.clone())), term.sort, term.span)
        } else {
            term.clone()
        };
        let options = Options {
            nbmodels: 1,
            ..p.options.clone()
        };
        let found =
            crate::infer::minimize(p.program, p.theory, &chosen, &objective, None, &options)?.value;
        let value = found.value.map(|v| match (maximise, v) {
            (true, crate::structure::Value::Int(i)) => crate::structure::Value::Int(-i),
            (true, crate::structure::Value::Float(f)) => crate::structure::Value::float(-f),
            (true, v @ crate::structure::Value::Ratio(_)) => crate::ground::arith(
                crate::syntax::ast::ArithOp::Sub,
                crate::structure::Value::Int(0),
                v,
            )
            .unwrap_or(v),
            (_, v) => v,
        });
        Ok(Optimum {
            value,
            model: found.models.into_iter().next(),
            proven: found.proven,
        })
    }
}

/// The choices in a fixed order (the key of a set of choices).
fn sorted(choices: &[(usize, bool)]) -> Vec<(usize, bool)> {
    let mut key = choices.to_vec();
    key.sort_unstable();
    key
}

/// The index sets of size `size` of `0..n`, in lexicographic order.
fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn go(
        start: usize,
        n: usize,
        size: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == size {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            go(i + 1, n, size, current, out);
            current.pop();
        }
    }
    go(0, n, size, &mut current, &mut out);
    out
}

/// The literal a formula of [`parse_literal`] states.
fn literal_of(f: &Formula) -> Option<Literal> {
    let value_of = |t: &Term| match t.kind() {
        TermKind::Value(v) => Some(*v),
        _ => None,
    };
    match f.kind() {
        FormulaKind::Not(inner) => literal_of(inner).map(|l| l.negated()),
        FormulaKind::Pred(p, args) => Some(Literal {
            symbol: Symbol::Pred(*p),
            tuple: args.iter().map(value_of).collect::<Option<Tuple>>()?,
            truth: true,
        }),
        FormulaKind::Cmp(op, applied, value) => {
            let TermKind::Func(func, args) = applied.kind() else {
                return None;
            };
            let mut tuple = args.iter().map(value_of).collect::<Option<Tuple>>()?;
            tuple.push(value_of(value)?);
            let truth = match op {
                crate::syntax::ast::CmpOp::Eq => true,
                crate::syntax::ast::CmpOp::Ne => false,
                _ => return None,
            };
            Some(Literal {
                symbol: Symbol::Func(*func),
                tuple,
                truth,
            })
        }
        _ => None,
    }
}

/// The formula that states `literal`.
fn formula_of(program: &Program, literal: &Literal) -> Formula {
    let span = crate::source::Span::default();
    let values = crate::ground::value_terms(program, literal.symbol, &literal.tuple, span);
    let atom = match literal.symbol {
        Symbol::Pred(p) => Formula::new(FormulaKind::Pred(p, values), span),
        Symbol::Func(f) => {
            let mut args = values;
            let value = args.pop().expect("a function's graph tuple has its value");
            let applied = Term::new(TermKind::Func(f, args), program.func(f).result, span);
            Formula::new(
                FormulaKind::Cmp(crate::syntax::ast::CmpOp::Eq, applied, value),
                span,
            )
        }
    };
    if literal.truth {
        atom
    } else {
        Formula::new(FormulaKind::Not(Box::new(atom)), span)
    }
}
