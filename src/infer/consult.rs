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
//! - Numbers the search chooses (functions onto `int` or the reals, searched as integer or
//!   real variables) are consulted by value: `f(a) = 5` becomes an atom of its own when
//!   first asked (each model kept knows the numbers' values, so it gets its value in each),
//!   and `forced` adds the numbers whose value every model with the choices shares. Their
//!   choices are sentences, not facts, in explanations and optima ([`Consultation::chosen_theory`]).

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
    /// For `f(a) = v` of a number (see [`Number`]): its index in `numbers`.
    number: Option<usize>,
}

/// An application the search chooses as a number (`f(a)` of a function onto `int`, `nat`,
/// a range too large to list, or the reals). It is chosen by value (`f(a) = 5`), each value
/// chosen becoming an atom of its own, and `forced` tells its value when every model with
/// the choices gives it the same.
#[derive(Clone, Debug)]
struct Number {
    symbol: Symbol,
    args: Tuple,
    /// The grounder's variable of the application.
    var: usize,
    /// Whether it takes real values (else integers).
    real: bool,
}

/// A model seen: the values of `lits`, and of the numbers.
#[derive(Clone, Debug)]
struct Model {
    lits: Vec<bool>,
    numbers: Vec<crate::structure::Value>,
}

/// What is known of the numbers' values under one set of choices.
#[derive(Clone, Debug)]
struct NumberBackbone {
    /// For each number, its value in every model with the choices, where that is settled.
    fixed: Vec<Option<crate::structure::Value>>,
    /// The numbers not settled yet: every model seen gives them their value in `reference`.
    pending: Vec<usize>,
    /// Each number's value in a model with the choices.
    reference: Vec<crate::structure::Value>,
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
    /// The numbers (symbol and arguments) whose value was not settled within the budget:
    /// the same in every model or not. (A number that is has `f(a) = v` among the true
    /// atoms.)
    pub undecided_numbers: Vec<(Symbol, Tuple)>,
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
    reference: Model,
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
    pool: Vec<Model>,
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
    /// The applications chosen as numbers, and the index of each (symbol, arguments).
    numbers: Vec<Number>,
    number_index: HashMap<(Symbol, Tuple), usize>,
    /// The numbers' values under each set of choices asked so far (the key of `backbones`).
    number_backbones: HashMap<Vec<(usize, bool)>, NumberBackbone>,
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
            numbers: Vec::new(),
            number_index: HashMap::default(),
            number_backbones: HashMap::default(),
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
            if let (Symbol::Func(f), Some(session)) = (symbol, session.as_deref_mut()) {
                if session.is_number_function(f) {
                    self.list_numbers(structure, f, session);
                    continue;
                }
            }
            let tuples = symbol_domains(program, structure, symbol)
                .or_else(|| bounded_domains(program, structure, symbol, session.as_deref_mut()?))
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
                    number: None,
                });
            }
        }
        Ok(())
    }

    /// Lists the applications of `f`, a function the search chooses as a number (skipped
    /// when its arguments are too many to list).
    fn list_numbers(
        &mut self,
        structure: &Structure,
        f: crate::ids::FuncId,
        session: &mut Session<'s>,
    ) {
        let symbol = Symbol::Func(f);
        let domains = argument_domains(self.problem.program, structure, f);
        let room = MAX_CONSULTED_ATOMS.saturating_sub(self.numbers.len());
        let Some(tuples) = domains.and_then(|d| crate::sema::product(&d, room)) else {
            self.skipped.push(symbol);
            return;
        };
        for args in tuples {
            let var = session.number_variable(f, args.clone());
            let real = session.is_real_number(var);
            self.number_index
                .insert((symbol, args.clone()), self.numbers.len());
            self.numbers.push(Number {
                symbol,
                args,
                var,
                real,
            });
        }
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
            .filter(|&a| self.atoms[a].number.is_none())
            .map(|a| self.literal(a, true))
            .collect()
    }

    /// The applications chosen as numbers (symbol and arguments), in the vocabulary's
    /// order: each is chosen by value (`f(a) = 5`), not listed among the atoms.
    pub fn numbers(&self) -> Vec<(Symbol, Tuple)> {
        self.numbers
            .iter()
            .map(|n| (n.symbol, n.args.clone()))
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
                "{} is not part of this consultation: its tuples are infinite or too many \
                 to list (its arguments range over an infinite or huge type); its values \
                 show in a model",
                p.program.symbol_name(symbol)
            ));
        }
        let formula = parse_literal(p.program, p.theory.vocabulary, &p.given, text)?;
        let literal = literal_of(&formula).ok_or_else(|| format!("'{text}' is not a literal"))?;
        if self
            .index
            .contains_key(&(literal.symbol, literal.tuple.clone()))
        {
            return Ok(literal);
        }
        if let Some(n) = self.number_of(&literal) {
            return self.number_literal(n, literal);
        }
        Err(format!(
            "{} is not part of this consultation (its type is infinite or too large)",
            p.program.symbol_name(literal.symbol)
        ))
    }

    /// The number that literal `f(a) = v` is about, if `f(a)` is one.
    fn number_of(&self, literal: &Literal) -> Option<usize> {
        let (_, args) = literal.tuple.split_last()?;
        self.number_index
            .get(&(literal.symbol, args.to_vec()))
            .copied()
    }

    /// `literal` about number `n`, if its value is one the number can take (an integer for
    /// a function onto the integers).
    fn number_literal(&self, n: usize, literal: Literal) -> Result<Literal, String> {
        let value = *literal
            .tuple
            .last()
            .expect("a function's graph tuple has its value");
        let real = self.numbers[n].real;
        let fits = if real {
            value.exact().is_some()
        } else {
            value.as_int().is_some()
        };
        if fits {
            return Ok(literal);
        }
        let number = &self.numbers[n];
        Err(format!(
            "{} takes {} values, and {value} is not one",
            self.application_text(number.symbol, &number.args),
            if real { "number" } else { "integer" }
        ))
    }

    /// `f(args)` as IDP writes it.
    pub fn application_text(&self, symbol: Symbol, args: &[crate::structure::Value]) -> String {
        self.reading().application_text(symbol, args)
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

    /// The atom of `literal`; for `f(a) = v` of a number, made now when that value was not
    /// asked before.
    fn atom_for(&mut self, literal: &Literal) -> IdpResult<usize> {
        if let Some(&a) = self.index.get(&(literal.symbol, literal.tuple.clone())) {
            return Ok(a);
        }
        let n = self
            .number_of(literal)
            .ok_or_else(|| Error::internal("a literal outside the consultation"))?;
        let value = *literal
            .tuple
            .last()
            .expect("a number's literal has its value");
        let state = match self.session.as_mut() {
            None => AtomState::Known(false),
            Some(session) => {
                let g = session
                    .number_equals(self.numbers[n].var, value)
                    .ok_or_else(|| Error::internal("a number's literal with another value"))?;
                if g == Gf::TRUE || g == Gf::FALSE {
                    AtomState::Known(g == Gf::TRUE)
                } else {
                    let lit = session.lit(g);
                    let k = *self.lit_index.entry(lit).or_insert(self.lits.len());
                    if k == self.lits.len() {
                        self.lits.push(lit);
                        self.add_number_lit(n, value);
                    }
                    AtomState::Open(k)
                }
            }
        };
        let a = self.atoms.len();
        self.index
            .insert((literal.symbol, literal.tuple.clone()), a);
        self.atoms.push(Atom {
            symbol: literal.symbol,
            tuple: literal.tuple.clone(),
            state,
            number: Some(n),
        });
        Ok(a)
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
        let model = Model {
            lits: self.lits.iter().map(|&l| session.lit_value(l)).collect(),
            numbers: self.number_values(),
        };
        if self.pool.len() == POOL_SIZE {
            self.pool.remove(0);
        }
        self.pool.push(model);
    }

    /// Gives the models kept, and the backbones, the value of the literal just made for
    /// `f(a) = value` of number `n` (each model has its numbers' values); in each backbone
    /// it waits to be settled.
    fn add_number_lit(&mut self, n: usize, value: crate::structure::Value) {
        let k = self.lits.len() - 1;
        for m in &mut self.pool {
            m.lits.push(m.numbers[n] == value);
        }
        for state in self.backbones.values_mut().flatten() {
            let r = &mut state.reference;
            r.lits.push(r.numbers[n] == value);
            state.values.push(None);
            state.pending.push(k);
        }
    }

    /// Makes a choice, unless no model allows it with the others.
    pub fn assume(&mut self, literal: &Literal) -> IdpResult<Assumed> {
        let a = self.atom_for(literal)?;
        if self.choices.contains(&(a, literal.truth)) {
            return Ok(Assumed::Already);
        }
        // A choice of the other value of the same atom replaces it, and so does a value of
        // the same number chosen before (a number's field is edited).
        let number = self.atoms[a].number.filter(|_| literal.truth);
        let mut with: Vec<(usize, bool)> = self
            .choices
            .iter()
            .copied()
            .filter(|&(b, t)| b != a && !(t && number.is_some() && self.atoms[b].number == number))
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
        let Some(&a) = self.index.get(&(literal.symbol, literal.tuple.clone())) else {
            return Ok(false);
        };
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
    /// among them), and `f(a) = v` for each number they all give value `v`; `None` when
    /// there is no model. Within the consultation's budget
    /// ([`Consultation::set_budget`]): the atoms not settled by then are `undecided`, and
    /// asking again goes on where this stopped.
    pub fn forced(&mut self) -> IdpResult<Option<Consequences>> {
        let deadline = self.budget.map(|b| Instant::now() + b);
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
        if !self.numbers.is_empty() {
            self.add_fixed_numbers(&mut out, deadline)?;
        }
        Ok(Some(out))
    }

    /// Adds to `out` the numbers whose value every model with the choices shares (`f(a) = v`
    /// among the true atoms, unless a chosen or forced atom says it already), and those not
    /// settled by `deadline`.
    fn add_fixed_numbers(
        &mut self,
        out: &mut Consequences,
        deadline: Option<Instant>,
    ) -> IdpResult<()> {
        let Some(state) = self.number_backbone(deadline)? else {
            out.undecided_numbers = self.numbers();
            return Ok(());
        };
        for (n, number) in self.numbers.iter().enumerate() {
            if state.pending.contains(&n) {
                out.undecided_numbers
                    .push((number.symbol, number.args.clone()));
            }
            let Some(value) = state.fixed[n] else {
                continue;
            };
            let mut tuple = number.args.clone();
            tuple.push(value);
            let literal = Literal {
                symbol: number.symbol,
                tuple,
                truth: true,
            };
            if !out.true_atoms.contains(&literal) {
                out.true_atoms.push(literal);
            }
        }
        Ok(())
    }

    /// The values of the numbers under the current choices, as far as `deadline` allows
    /// (cached per set of choices, and resumed when it was not complete): as for the atoms,
    /// each number is asked for another value than in a model with the choices, and a model
    /// found drops every number it changes. `None` when no model was found in time.
    fn number_backbone(&mut self, deadline: Option<Instant>) -> IdpResult<Option<NumberBackbone>> {
        let key = sorted(&self.choices);
        let Some(mut with) = self.assumptions(&self.choices.clone()) else {
            return Ok(None);
        };
        let mut state = match self.number_backbones.get(&key) {
            Some(state) if state.pending.is_empty() => return Ok(Some(state.clone())),
            Some(state) => state.clone(),
            None => {
                let Some(session) = self.session.as_mut() else {
                    return Ok(None);
                };
                if session.solve_before(&with, None, deadline)? != Some(true) {
                    return Ok(None);
                }
                self.remember_model();
                let mut fixed = vec![None; self.numbers.len()];
                // A number chosen has its value.
                for &(a, t) in &self.choices {
                    if let (Some(n), true) = (self.atoms[a].number, t) {
                        fixed[n] = self.atoms[a].tuple.last().copied();
                    }
                }
                NumberBackbone {
                    pending: (0..self.numbers.len())
                        .rev()
                        .filter(|&n| fixed[n].is_none())
                        .collect(),
                    fixed,
                    reference: self.number_values(),
                }
            }
        };
        while let Some(n) = state.pending.pop() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                state.pending.push(n);
                break;
            }
            let session = self.session.as_mut().expect("a model was found");
            let differs = session
                .number_differs(self.numbers[n].var, state.reference[n])
                .ok_or_else(|| Error::internal("a number's value that is not a number"))?;
            with.push(session.lit(differs));
            let found = session.solve_before(&with, None, deadline)?;
            with.pop();
            match found {
                Some(true) => {
                    self.remember_model();
                    let values = self.number_values();
                    state.pending.retain(|&j| values[j] == state.reference[j]);
                }
                Some(false) => state.fixed[n] = Some(state.reference[n]),
                None => {
                    state.pending.push(n);
                    break;
                }
            }
        }
        if self.number_backbones.len() >= CACHE_SIZE {
            self.number_backbones.clear();
        }
        self.number_backbones.insert(key, state.clone());
        Ok(Some(state))
    }

    /// The numbers' values in the session's current model.
    fn number_values(&self) -> Vec<crate::structure::Value> {
        let session = self.session.as_ref().expect("a model was found");
        self.numbers
            .iter()
            .map(|n| session.number_value(n.var))
            .collect()
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
            if state.values[k].is_some() || atom.number.is_some() {
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
        let a = self.atom_for(literal)?;
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
        let consistent: Vec<&Model> = self
            .pool
            .iter()
            .filter(|m| assumptions.iter().all(|&l| self.model_has(m, l)))
            .collect();
        let pending: Vec<usize> = (0..self.lits.len())
            .filter(|&k| values[k].is_none())
            .filter(|&k| consistent.iter().all(|m| m.lits[k] == reference.lits[k]))
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
        // The search tries the other value of every pending candidate first, so that each
        // model it finds drops many of them.
        let flips: Vec<Lit> = state
            .pending
            .iter()
            .map(|&k| {
                if state.reference.lits[k] {
                    -self.lits[k]
                } else {
                    self.lits[k]
                }
            })
            .collect();
        if let Some(session) = self.session.as_mut() {
            session.prefer(&flips, false);
        }
        let settled = self.settle_pending(state, &mut with, deadline);
        if let Some(session) = self.session.as_mut() {
            session.prefer(&flips, true);
        }
        settled
    }

    /// The levels of [`Consultation::settle`]: one call per pending candidate, under `with` (the
    /// choices' assumptions).
    fn settle_pending(
        &mut self,
        mut state: Backbone,
        with: &mut Vec<Lit>,
        deadline: Option<Instant>,
    ) -> IdpResult<Backbone> {
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
                with.push(if state.reference.lits[k] { -l } else { l });
                let session = self.session.as_mut().expect("a model was found");
                let found = session.solve_before(with, limit, deadline)?;
                with.pop();
                match found {
                    Some(true) => {
                        self.remember_model();
                        let model = self.pool.last().expect("just kept");
                        let reference = &state.reference.lits;
                        state.pending.retain(|&j| model.lits[j] == reference[j]);
                        deferred.retain(|&j| model.lits[j] == reference[j]);
                    }
                    Some(false) => state.values[k] = Some(state.reference.lits[k]),
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
            let value = state.reference.lits[k];
            let settled = implied.contains(&if value { lits[k] } else { -lits[k] });
            if settled {
                state.values[k] = Some(value);
            }
            !settled
        });
        Ok(())
    }

    /// Whether model `m` satisfies solver literal `l` (a literal not among `lits` is taken
    /// as satisfied).
    fn model_has(&self, m: &Model, l: Lit) -> bool {
        match (self.lit_index.get(&l), self.lit_index.get(&-l)) {
            (Some(&k), _) => m.lits[k],
            (None, Some(&k)) => !m.lits[k],
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
        let theory = self.theory_with(choices);
        let formula = formula_of(p.program, literal);
        let answer = why_forced(p.program, &theory, &chosen, &formula, &p.options)?.value;
        Ok(match answer {
            Forced::By(core) => Explanation::Because {
                reasons: self.reasons(&core, &theory, choices),
                core,
            },
            Forced::Not => Explanation::NotForced,
            Forced::NoModel => Explanation::NoModel,
        })
    }

    /// The structure as given with the choices added as facts (the choices of numbers are
    /// sentences of [`Consultation::chosen_theory`]: a number's function has no table).
    pub fn chosen_structure(&self) -> Structure {
        self.structure_with(&self.choices)
    }

    /// The theory with a sentence for each choice of a number's value (`f(a) = 5.`), after
    /// the theory's own.
    pub fn chosen_theory(&self) -> Theory {
        self.theory_with(&self.choices)
    }

    /// The theory with a sentence for each choice of `choices` about a number.
    fn theory_with(&self, choices: &[(usize, bool)]) -> Theory {
        let mut theory = self.problem.theory.clone();
        for &(a, t) in choices {
            if self.atoms[a].number.is_some() {
                let formula = formula_of(self.problem.program, &self.literal(a, t));
                theory.sentences.push(formula);
            }
        }
        theory
    }

    /// The structure as given with the choices of `choices` that are not about numbers
    /// added as facts.
    fn structure_with(&self, choices: &[(usize, bool)]) -> Structure {
        let mut s = self.problem.given.clone();
        for &(a, t) in choices {
            let atom = &self.atoms[a];
            if atom.number.is_some() {
                continue;
            }
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

    /// A core's parts as reasons, the facts that are choices told apart. `theory` is the
    /// theory with the choices of numbers among `choices` ([`Consultation::theory_with`]):
    /// its sentences after the problem's own are those choices, in order.
    fn reasons(&self, core: &Core, theory: &Theory, choices: &[(usize, bool)]) -> Vec<Reason> {
        let reading = self.reading();
        let own = self.problem.theory.sentences.len();
        let chosen_numbers: Vec<Literal> = choices
            .iter()
            .filter(|&&(a, _)| self.atoms[a].number.is_some())
            .map(|&(a, t)| self.literal(a, t))
            .collect();
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
                        .is_some_and(|&a| choices.contains(&(a, *truth)));
                    out.push(if chosen {
                        Reason::Choice(literal)
                    } else {
                        Reason::Fact(literal)
                    });
                }
                Piece::Sentence(k) | Piece::Instance { sentence: k, .. } if *k >= own => {
                    if let Some(literal) = chosen_numbers.get(*k - own) {
                        out.push(Reason::Choice(literal.clone()));
                    }
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
        let a = self.atom_for(literal)?;
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
        let theory = self.chosen_theory();
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
            crate::infer::minimize(p.program, &theory, &chosen, &objective, None, &options)?.value;
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

/// The domains of function `symbol`'s graph when its result type is infinite but
/// sentences bound its values (`x() = 0.`), as grounding lists them.
fn bounded_domains(
    program: &Program,
    structure: &Structure,
    symbol: Symbol,
    session: &mut Session<'_>,
) -> Option<Vec<Vec<crate::structure::Value>>> {
    let Symbol::Func(f) = symbol else {
        return None;
    };
    let mut domains = argument_domains(program, structure, f)?;
    domains.push(session.result_values(f)?);
    Some(domains)
}

/// The domain of each argument of function `f` (none when one of them cannot be listed).
fn argument_domains(
    program: &Program,
    structure: &Structure,
    f: crate::ids::FuncId,
) -> Option<Vec<Vec<crate::structure::Value>>> {
    (program.func(f).args)
        .iter()
        .map(|&sort| crate::sema::sort_domain(program, structure, sort))
        .collect()
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
