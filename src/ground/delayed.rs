//! Delayed tuples: lazy grounding of an open predicate with too many tuples (issue 28).
//!
//! A game translated into LTC declares `do(Time, Player, Action)` over every action, say
//! `write(All, All, All, All)`, a hundred million per time point, while its sentences single
//! out a few (`do(t, p, write(x, y, v, b)) => cell(t, x, y, v, e) & ..`). Grounding every
//! tuple is out of reach. Here such a predicate P is ground over a subset S of its tuples and
//! every tuple outside S is assumed false (the residual assumption), as IDP3's lazy model
//! expansion delays the instances the search has not made relevant:
//!
//! * S holds the tuples that a sentence `! x : P(t) => phi` singles out with a pattern `t`
//!   (constants, constructor applications) and whose `phi` can hold by the joint
//!   possibly-true bounds ([`Grounder::joint_possible`]), plus, at expansion level k > 0, the
//!   first [`Delayed::chunk`] other tuples (the first argument varying fastest, so that every
//!   time point gets some).
//! * Every model found under the assumption is a model of the whole theory: it is a model of
//!   the theory with those atoms fixed false, as if the structure said so.
//! * The converse does not hold: a theory without a model under the assumption may have one
//!   that makes a delayed tuple true, and models that differ in delayed tuples are not
//!   enumerated. So model expansion that finds fewer models than it was asked for grounds
//!   the next level and searches again, and stops with [`too_many_delayed`] (naming the
//!   predicate and its tuple count) when the next chunk would pass the threshold, or with
//!   [`out_of_time`] when grounding it would not finish in time; it never answers with fewer
//!   models than exist.
//! * Before the first level, model expansion tries a relaxation of the theory on which the
//!   assumption is exact (`crate::infer::abstraction`, from the patterns of [`Delayable`]): a
//!   relaxation without a model answers `Unsatisfiable` for the theory.
//!
//! P qualifies when it is open (neither defined nor interpreted), has more than
//! [`Delay::after`] tuples, some sentence singles out a part of it, no rule body reads it
//! negatively (where a false atom would make bodies true for every delayed tuple), and one of
//! the sentences that single out a part of it is beyond the joint bounds (which read those
//! over all its tuples, or all those of one constructor): a theory whose bounds they read
//! is ground as before.

use std::rc::Rc;

use rustc_hash::FxHashSet as HashSet;

use crate::error::{Error, Limit};
use crate::ground::joint::{
    empty_rule, guarded_by_atom, Bound, Shift, FRESH_VARIABLES, SENTENCE_VARIABLES,
};
use crate::ground::tuple_set::TupleSet;
use crate::ground::Grounder;
use crate::ids::{SortId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Term, TermKind};
use crate::sema::{LtcInfo, Program};
use crate::source::Span;
use crate::structure::Value;

/// The tuple count above which an open predicate's tuples may be delayed, by default.
pub const DEFAULT_DELAY_AFTER: u64 = 1_000_000;

/// How many times more tuples each expansion level grounds than the one before.
const GROWTH: u128 = 8;

/// How model expansion delays tuples: predicates with more than `after` tuples (0: never),
/// with [`Delayed::chunk`] of the others ground at `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delay {
    pub after: u64,
    pub level: u32,
}

impl Delay {
    /// Level 0: only the singled-out tuples are ground.
    pub fn first(after: u64) -> Delay {
        Delay { after, level: 0 }
    }

    /// The next level, or `None` when it would ground more than the threshold of every
    /// predicate's other tuples (grounding that many is what delaying is meant to avoid),
    /// unless that is all of them.
    pub fn next(self, delayed: &[Delayed]) -> Option<Delay> {
        let next = Delay {
            level: self.level + 1,
            ..self
        };
        delayed
            .iter()
            .any(|d| {
                d.chunk(next) <= d.per_prefix.max(self.after as u128)
                    || d.total - d.ground as u128 <= self.after as u128
            })
            .then_some(next)
    }
}

/// A predicate whose tuples outside `ground` are assumed false.
#[derive(Clone, Debug)]
pub struct Delayed {
    pub symbol: Symbol,
    /// Its number of tuples.
    pub total: u128,
    /// How many of them are ground (can be true).
    pub ground: usize,
    /// The number of tuples of its arguments but the last (`(t, p)` of `do(t, p, a)`): level 1
    /// grounds that many other tuples, one for each.
    pub per_prefix: u128,
    /// How many of the ground tuples are others than the singled-out ones (the level's chunk).
    pub others: u128,
    /// The sentences whose patterns single out the ground tuples (`do(t, p, write(..)) => ..`).
    pub singled_out_by: Vec<Span>,
}

impl Delayed {
    /// How many tuples outside the singled-out ones are ground at `delay`'s level: a tuple
    /// for each prefix at level 1, [`GROWTH`] times more at each level after.
    pub fn chunk(&self, delay: Delay) -> u128 {
        match delay.level {
            0 => 0,
            k => self.per_prefix.saturating_mul(GROWTH.saturating_pow(k - 1)),
        }
    }
}

/// How many seconds grounding the next level is likely to take, from the seconds this one
/// took: as many more as it grounds more tuples, at least as long.
pub fn next_level_seconds(seconds: f64, delayed: &[Delayed], next: Delay) -> f64 {
    let now: u128 = delayed.iter().map(|d| d.ground as u128).sum();
    let added: u128 = delayed
        .iter()
        .map(|d| {
            d.chunk(next).saturating_sub(d.chunk(Delay {
                level: next.level - 1,
                ..next
            }))
        })
        .sum();
    seconds * (1.0 + added as f64 / now.max(1) as f64)
}

/// The error for a model expansion that cannot ground more of the delayed tuples before its
/// time limit (`limit`, the limit's name): it names each predicate as [`too_many_delayed`].
pub fn out_of_time(program: &Program, delayed: &[Delayed], found: usize, limit: Limit) -> Error {
    let plural = if found == 1 { "" } else { "s" };
    Error::limit(
        limit,
        format!(
            "Lazy grounding found {found} model{plural} with the delayed tuples false, and \
             grounding more of them would not finish before {} ({}): {UNDECIDED}",
            match limit {
                Limit::InferenceTimeout => "the inference's time limit (stdoptions.timeout)",
                _ => "the run's time limit (--timeout)",
            },
            describe(program, delayed)
        ),
    )
}

/// What a stop of lazy grounding leaves open, and what would decide it.
const UNDECIDED: &str = "a model that makes one of the others true may exist, and so may no \
     model at all: lazy grounding cannot tell which without them (it never answers \
     Unsatisfiable or too few models while tuples are delayed). Give the predicate in the \
     structure, or constrain its other tuples in the theory.";

/// `do has N tuples, M of them ground: the K that the sentences at f:3:1, f:4:1 single out and
/// the first J others; ..`.
fn describe(program: &Program, delayed: &[Delayed]) -> String {
    let which: Vec<String> = delayed
        .iter()
        .map(|d| {
            format!(
                "{} has {} tuples, {} of them ground: {}",
                program.symbol_name(d.symbol),
                d.total,
                d.ground,
                ground_part(program, d)
            )
        })
        .collect();
    which.join("; ")
}

/// Which tuples of `d` are ground: those its sentences single out, and the level's others.
fn ground_part(program: &Program, d: &Delayed) -> String {
    let singled = d.ground as u128 - d.others.min(d.ground as u128);
    let at: Vec<String> = d
        .singled_out_by
        .iter()
        .filter_map(|&span| program.position(span))
        .collect();
    let by = match at.len() {
        0 => "its sentences".to_string(),
        1 => format!("the sentence at {}", at[0]),
        _ => format!("the sentences at {}", at.join(", ")),
    };
    let verb = if at.len() == 1 { "singles" } else { "single" };
    match d.others {
        0 => format!("the {singled} that {by} {verb} out"),
        n => format!("the {singled} that {by} {verb} out and the first {n} others"),
    }
}

/// The error for a model expansion that would need more of the delayed tuples than the
/// threshold allows: it names each predicate, its tuple count and how many were ground.
pub fn too_many_delayed(program: &Program, delayed: &[Delayed], found: usize) -> Error {
    let plural = if found == 1 { "" } else { "s" };
    Error::limit(
        Limit::GroundSize,
        format!(
            "Lazy grounding found {found} model{plural} with the delayed tuples false, and \
             grounding more of them would pass the limit ({}): {UNDECIDED}",
            describe(program, delayed)
        ),
    )
}

/// An open predicate that lazy grounding would delay, with the argument patterns of the
/// sentences that single out a part of its tuples (`do(t, p, write(x, y, v, b))`), not those
/// over every tuple.
#[derive(Clone, Debug)]
pub struct Delayable {
    pub symbol: Symbol,
    /// Its number of tuples (`None`: too many to count).
    pub total: Option<u128>,
    pub patterns: Vec<Vec<Term>>,
}

/// Whether `sentence` reads `symbol` only as its guard: `! x : P(args) => phi` with a pattern
/// `args` and `phi` not reading P.
pub fn is_guard_of(sentence: &Formula, symbol: Symbol) -> bool {
    let Some((_, atom, phi)) = guarded_by_atom(sentence) else {
        return false;
    };
    let FormulaKind::Pred(p, args) = atom.kind() else {
        return false;
    };
    let mut read = HashSet::default();
    crate::sema::walk::symbols(phi, &mut read);
    Symbol::Pred(*p) == symbol && is_pattern(args) && !read.contains(&symbol)
}

impl<'a> Grounder<'a> {
    /// Delays the tuples of each open predicate that qualifies (see the module
    /// documentation): bounds it by the tuples its sentences single out plus the level's
    /// chunk, every other tuple false. Call before [`Grounder::bound_definitions_jointly`].
    pub fn delay_large_predicates(
        &mut self,
        definitions: &[&Definition],
        sentences: &[Formula],
        ltc: Option<&LtcInfo>,
        delay: Delay,
    ) -> Vec<Delayed> {
        if delay.after == 0 {
            return Vec::new();
        }
        let candidates = self.delay_candidates(definitions, sentences, delay.after);
        if candidates.is_empty() {
            return Vec::new();
        }
        let rules: Vec<Definition> = candidates
            .iter()
            .map(|(s, bounds)| singled_out_rule(self.program, *s, bounds))
            .collect();
        self.status
            .delayed
            .extend(candidates.iter().map(|(s, _)| *s));
        let Some(possible) = self.joint_possible(definitions, sentences, ltc, rules) else {
            self.status.delayed.clear();
            return Vec::new();
        };
        let mut delayed = Vec::new();
        for (symbol, bounds) in &candidates {
            let symbol = *symbol;
            let singled_out = possible
                .iter()
                .find(|(s, _)| *s == symbol)
                .map(|(_, tuples)| tuples.iter().map(Vec::as_slice).collect::<Vec<_>>())
                .unwrap_or_default();
            match self.delay_one(symbol, &singled_out, delay) {
                Some(d) => delayed.push(Delayed {
                    singled_out_by: pattern_spans(bounds),
                    ..d
                }),
                None => {
                    self.status.delayed.remove(&symbol);
                }
            }
        }
        delayed
    }

    /// The open predicates that [`Grounder::delay_large_predicates`] would delay with the
    /// threshold `after`, each with its patterns.
    pub fn delayable(
        &self,
        definitions: &[&Definition],
        sentences: &[Formula],
        after: u64,
    ) -> Vec<Delayable> {
        if after == 0 {
            return Vec::new();
        }
        self.delay_candidates(definitions, sentences, after)
            .into_iter()
            .map(|(symbol, bounds)| Delayable {
                symbol,
                total: self.tuple_count(symbol),
                patterns: bounds
                    .into_iter()
                    .filter(|(_, covers)| !covers)
                    .map(|(b, _)| b.args)
                    .collect(),
            })
            .collect()
    }

    /// Bounds `symbol` by `singled_out` plus the level's chunk of other tuples; `None` (and
    /// nothing bounded) when that would not leave any tuple out, or not enough.
    fn delay_one(
        &mut self,
        symbol: Symbol,
        singled_out: &[&[Value]],
        delay: Delay,
    ) -> Option<Delayed> {
        let sorts = self.program.symbol_sorts(symbol);
        let enums: Vec<SortEnum> = sorts
            .iter()
            .map(|&s| SortEnum::of(self, s))
            .collect::<Option<_>>()?;
        let total = enums
            .iter()
            .try_fold(1u128, |n, e| n.checked_mul(e.size()))?;
        let per_prefix = total / enums.last().map_or(1, |e| e.size().max(1));
        if singled_out.len() as u64 > delay.after {
            return None;
        }
        let mut set = TupleSet::of(sorts.len(), singled_out.iter().copied());
        let mut delayed = Delayed {
            symbol,
            total,
            ground: 0,
            per_prefix: per_prefix.max(1),
            others: 0,
            singled_out_by: Vec::new(),
        };
        // Once the other tuples are at most the threshold, the next level grounds them all.
        if delay.level > 0 && total - set.len() as u128 <= delay.after as u128 {
            return None;
        }
        let wanted = delayed.chunk(delay);
        let (mut added, mut index) = (0u128, 0u128);
        while added < wanted && index < total {
            let tuple = nth_tuple(&enums, index);
            if set.insert(&tuple) {
                added += 1;
            }
            index += 1;
        }
        if index >= total {
            return None;
        }
        delayed.ground = set.len();
        delayed.others = added;
        self.status.possible.insert(symbol, set);
        Some(delayed)
    }

    /// The open predicates with more than `after` tuples that some sentence singles out a
    /// part of and no rule reads negatively, with their bounding sentences.
    fn delay_candidates(
        &self,
        definitions: &[&Definition],
        sentences: &[Formula],
        after: u64,
    ) -> Vec<(Symbol, Vec<(Bound, bool)>)> {
        let defined: HashSet<Symbol> = definitions.iter().flat_map(|d| d.defined()).collect();
        let mut by_symbol: indexmap::IndexMap<Symbol, (Vec<(Bound, bool)>, bool)> =
            Default::default();
        for sentence in sentences {
            let Some((vars, atom, phi)) = guarded_by_atom(sentence) else {
                continue;
            };
            let FormulaKind::Pred(p, args) = atom.kind() else {
                continue;
            };
            let symbol = Symbol::Pred(*p);
            if !self.is_open(symbol, &defined) || !is_pattern(args) {
                continue;
            }
            let mut read = HashSet::default();
            crate::sema::walk::symbols(phi, &mut read);
            if read.contains(&symbol) {
                continue;
            }
            let sorts = &self.program.pred(*p).args;
            let covering = self.covers_every_tuple(sorts, args);
            let entry = by_symbol.entry(symbol).or_default();
            // Only a sentence that the joint bounds cannot read makes P a candidate.
            entry.1 |= self.cover(sorts, args).is_none();
            let bound = Bound {
                vars,
                args: args.clone(),
                phi: phi.clone(),
                span: sentence.span,
                applies_open_function: false,
                case: None,
            };
            entry.0.push((bound, covering));
        }
        by_symbol
            .into_iter()
            .filter(|(s, (_, singles_out))| {
                *singles_out
                    && self.tuple_count(*s).is_none_or(|n| n > after as u128)
                    && !definitions.iter().any(|d| reads_negatively(d, *s))
            })
            .map(|(s, (bounds, _))| (s, bounds))
            .collect()
    }

    /// Whether `s` is an open predicate: not a type's, not defined, not interpreted at all.
    fn is_open(&self, s: Symbol, defined: &HashSet<Symbol>) -> bool {
        let Symbol::Pred(p) = s else {
            return false;
        };
        self.program.pred(p).type_of.is_none()
            && !defined.contains(&s)
            && self.structure.table(s).is_none()
            && !self.structure.lazy.contains_key(&s)
    }

    /// The number of tuples of `s`, or `None` when a sort cannot be counted (infinite).
    fn tuple_count(&self, s: Symbol) -> Option<u128> {
        self.program
            .symbol_sorts(s)
            .iter()
            .map(|&sort| SortEnum::of(self, sort).map(|e| e.size()))
            .try_fold(1u128, |n, k| n.checked_mul(k?))
    }
}

/// `P(v) <- (covering bounds) & ((? x : phi & v = t) | ..)`: P bounded by the tuples its
/// patterned sentences single out, within what its other sentences allow.
fn singled_out_rule(program: &Program, symbol: Symbol, bounds: &[(Bound, bool)]) -> Definition {
    let sorts = program.symbol_sorts(symbol);
    let mut fresh = FRESH_VARIABLES + (1 << 29);
    let mut rule = empty_rule(symbol, &sorts, bounds[0].0.span, &mut fresh);
    let head: Vec<Term> = rule
        .vars
        .iter()
        .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, rule.span))
        .collect();
    let (mut covering, mut patterns) = (Vec::new(), Vec::new());
    for (k, (b, covers)) in bounds.iter().enumerate() {
        let instance = b.instance(&head, Shift((k as u32 + 1) * SENTENCE_VARIABLES));
        if *covers {
            covering.push(instance);
        } else {
            patterns.push(instance);
        }
    }
    covering.push(Formula::new(FormulaKind::Or(patterns), rule.span));
    rule.body = Formula::new(FormulaKind::And(covering), rule.span);
    Definition {
        span: rule.span,
        rules: vec![rule],
    }
}

/// The spans of the sentences among `bounds` that single out a part of the tuples (not those
/// over every tuple), in source order.
fn pattern_spans(bounds: &[(Bound, bool)]) -> Vec<Span> {
    let mut spans: Vec<Span> = bounds
        .iter()
        .filter(|(_, covers)| !covers)
        .map(|(b, _)| b.span)
        .collect();
    spans.sort_by_key(|s| (s.file, s.start));
    spans.dedup();
    spans
}

/// Whether an atom's arguments are a pattern: variables, constants and constructor
/// applications of patterns (no function the structure must evaluate).
fn is_pattern(args: &[Term]) -> bool {
    args.iter().all(|a| match a.kind() {
        TermKind::Var(_) | TermKind::Value(_) => true,
        TermKind::Func(_, parts) => is_pattern(parts),
        _ => false,
    })
}

/// Whether a rule body of `d` reads `s` under a negation.
fn reads_negatively(d: &Definition, s: Symbol) -> bool {
    d.rules.iter().any(|r| occurs_with(&r.body, s, false, true))
}

/// Whether `s` occurs in `f` with polarity `wanted` (`positive` is that of `f` itself);
/// both sides of an equivalence count as both.
fn occurs_with(f: &Formula, s: Symbol, wanted: bool, positive: bool) -> bool {
    match f.kind() {
        FormulaKind::Pred(p, _) => Symbol::Pred(*p) == s && positive == wanted,
        FormulaKind::Not(g) => occurs_with(g, s, wanted, !positive),
        FormulaKind::And(fs) | FormulaKind::Or(fs) => {
            fs.iter().any(|g| occurs_with(g, s, wanted, positive))
        }
        FormulaKind::Implies(a, b) => {
            occurs_with(a, s, wanted, !positive) || occurs_with(b, s, wanted, positive)
        }
        FormulaKind::Equiv(a, b) => [a, b]
            .iter()
            .any(|g| occurs_with(g, s, true, true) || occurs_with(g, s, false, true)),
        FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => {
            occurs_with(g, s, wanted, positive)
        }
        FormulaKind::Bool(_) | FormulaKind::Cmp(..) => false,
    }
}

/// The elements of a sort in a fixed order, without listing a constructed sort too large to
/// list: its constructors one after the other, each over its arguments' elements with the
/// first argument varying fastest.
enum SortEnum {
    Listed(Rc<[Value]>),
    Constructed(Vec<(crate::ids::FuncId, Vec<SortEnum>, u128)>),
}

impl SortEnum {
    fn of(g: &Grounder, s: SortId) -> Option<SortEnum> {
        Self::within(g, s, 0)
    }

    fn within(g: &Grounder, s: SortId, depth: usize) -> Option<SortEnum> {
        if let Some(listed) = g.domains().get(s) {
            return Some(SortEnum::Listed(listed));
        }
        let sort = g.program.sort(s);
        if !sort.constructed || depth > 4 {
            return None;
        }
        let mut blocks = Vec::new();
        for &c in &sort.constructors {
            let args: Vec<SortEnum> = g
                .program
                .func(c)
                .args
                .iter()
                .map(|&a| Self::within(g, a, depth + 1))
                .collect::<Option<_>>()?;
            let size = args
                .iter()
                .try_fold(1u128, |n, e| n.checked_mul(e.size()))?;
            blocks.push((c, args, size));
        }
        Some(SortEnum::Constructed(blocks))
    }

    fn size(&self) -> u128 {
        match self {
            SortEnum::Listed(d) => d.len() as u128,
            SortEnum::Constructed(blocks) => blocks.iter().map(|b| b.2).sum(),
        }
    }

    /// The element at `index` (< `size()`).
    fn nth(&self, mut index: u128) -> Value {
        match self {
            SortEnum::Listed(d) => d[index as usize],
            SortEnum::Constructed(blocks) => {
                for (c, args, size) in blocks {
                    if index < *size {
                        return Value::compound(*c, nth_tuple(args, index));
                    }
                    index -= size;
                }
                unreachable!("index within the sort's size")
            }
        }
    }
}

/// The tuple at `index` of the product of `enums`, the first position varying fastest.
fn nth_tuple(enums: &[SortEnum], mut index: u128) -> Vec<Value> {
    enums
        .iter()
        .map(|e| {
            let size = e.size();
            let v = e.nth(index % size);
            index /= size;
            v
        })
        .collect()
}
