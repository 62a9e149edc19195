//! Counting models inside one search. The external propagator's check of a model that the
//! solver found counts it and refutes it with its blocking clause, so the solver goes on
//! from where it stands (learnt clauses, phases, trail) instead of starting a new search for
//! each model, the way clasp enumerates by recording solutions.
//!
//! Models that are to be printed are counted the same way and their values kept
//! ([`InsideCount::recording`]): the solver observes every variable, so the model it hands
//! to the check is whole, and the caller decodes the kept models when the search returns.
//! A search returns after [`KEPT_AT_ONCE`] kept models, so the order of the models depends
//! on nothing but the problem, and at the latest [`RECORDED_FOR`] after the first model it
//! kept, so that a slow enumeration still shows its models as they come (only there can
//! the order depend on the machine's speed). The first [`FOUND_BEFORE_KEEPING`] models are
//! returned one by one: going on inside the search pays when there are many models, but
//! proving that there is no other model can take much longer there than in a new search
//! (a colour maze with one solution: 0.02 s against 1 s).

use std::time::{Duration, Instant};

use super::Lit;

/// How long a kept model waits at most before the search returns it to the caller.
pub const RECORDED_FOR: Duration = Duration::from_secs(1);

/// The most models a search keeps before it returns them.
pub const KEPT_AT_ONCE: usize = 256;

/// How many models a recording search returns one by one before it keeps any.
pub const FOUND_BEFORE_KEEPING: usize = 32;

/// The most values the kept models hold together (a search returns when they are full).
const RECORDED_VALUES: usize = 1 << 25;

/// The models kept whole for the caller: each the values of variables `1..=vars`.
struct Record {
    vars: usize,
    models: Vec<Vec<bool>>,
    /// When the first of `models` was kept.
    since: Option<Instant>,
    /// How many more models are returned one by one before any is kept.
    deferred: usize,
}

impl Record {
    /// Whether the search should return the next model instead of keeping it.
    fn full(&self) -> bool {
        self.deferred > 0
            || self.models.len() >= KEPT_AT_ONCE
            || (self.models.len() + 1) * (self.vars + 1) > RECORDED_VALUES
            || self.since.is_some_and(|t| t.elapsed() >= RECORDED_FOR)
    }

    /// Keeps `model` (the values of the observed variables): index 0 is no variable (false).
    fn keep(&mut self, model: &[Lit]) {
        let mut values = vec![false; self.vars + 1];
        for &l in model {
            if let Some(v) = values.get_mut(l.unsigned_abs() as usize) {
                *v = l > 0;
            }
        }
        self.models.push(values);
        self.since.get_or_insert_with(Instant::now);
    }
}

/// The models counted inside the search so far and the blocking clause of the last one, until
/// the solver has taken it.
pub struct InsideCount {
    /// The literals whose values tell two models apart (one per variable, all observed by the
    /// solver).
    lits: Vec<Lit>,
    /// How many more models are counted here; the one after ends the search as a model.
    left: usize,
    /// Models counted (and blocked) since the caller last asked.
    counted: usize,
    /// The values of the last model's variables (1 true, -1 false), reused between models.
    value: Vec<i8>,
    /// The blocking clause to hand over, and how many of its literals have been.
    clause: Vec<Lit>,
    handed: usize,
    /// Whether `clause` waits for the solver to ask for it.
    pending: bool,
    /// The counted models' values, when they are kept for the caller.
    record: Option<Record>,
}

impl InsideCount {
    /// Counts up to `limit` models distinct on `lits`; `None` when the literals cannot make a
    /// blocking clause (none, or a variable with both signs).
    pub fn new(lits: &[Lit], limit: usize) -> Option<InsideCount> {
        let mut lits = lits.to_vec();
        lits.sort_unstable_by_key(|l| (l.unsigned_abs(), *l));
        lits.dedup();
        let clashes = lits
            .windows(2)
            .any(|w| w[0].unsigned_abs() == w[1].unsigned_abs());
        if lits.is_empty() || clashes || limit == 0 {
            return None;
        }
        Some(InsideCount {
            lits,
            left: limit,
            counted: 0,
            value: Vec::new(),
            clause: Vec::new(),
            handed: 0,
            pending: false,
            record: None,
        })
    }

    /// [`InsideCount::new`], each counted model also kept whole (the values of variables
    /// `1..=vars`, all of which the solver must observe) for [`InsideCount::take_recorded`].
    /// None when no more than [`FOUND_BEFORE_KEEPING`] models are wanted: each of those is
    /// found by a search of its own anyway, and observing every variable would only slow it.
    pub fn recording(lits: &[Lit], limit: usize, vars: usize) -> Option<InsideCount> {
        if limit <= FOUND_BEFORE_KEEPING {
            return None;
        }
        let mut count = InsideCount::new(lits, limit)?;
        count.record = Some(Record {
            vars,
            models: Vec::new(),
            since: None,
            deferred: FOUND_BEFORE_KEEPING,
        });
        Some(count)
    }

    /// Whether counted models are kept whole.
    pub fn is_recording(&self) -> bool {
        self.record.is_some()
    }

    /// A variable made after the recording started: kept in the models from now on (the
    /// solver must observe it too).
    pub fn note_new_var(&mut self, var: usize) {
        if let Some(r) = &mut self.record {
            r.vars = r.vars.max(var);
        }
    }

    /// The models kept since the last call, in the order found (index: variable).
    pub fn take_recorded(&mut self) -> Vec<Vec<bool>> {
        self.record.as_mut().map_or_else(Vec::new, |r| {
            r.since = None;
            std::mem::take(&mut r.models)
        })
    }

    /// The variables the solver must observe (their values reach [`InsideCount::take_model`]).
    pub fn vars(&self) -> impl Iterator<Item = Lit> + '_ {
        self.lits.iter().map(|l| l.abs())
    }

    /// Counts `model` (the values of the observed variables) and prepares its blocking clause,
    /// true; false when the limit is reached and the model ends the search.
    pub fn take_model(&mut self, model: &[Lit]) -> bool {
        if self.left == 0 {
            return false;
        }
        if let Some(r) = self.record.as_mut().filter(|r| r.full()) {
            // The caller takes this model, which counts towards the limit.
            r.deferred = r.deferred.saturating_sub(1);
            self.left -= 1;
            return false;
        }
        if let Some(r) = &mut self.record {
            r.keep(model);
        }
        self.value.clear();
        let top = model.iter().map(|l| l.unsigned_abs()).max().unwrap_or(0);
        self.value.resize(top as usize + 1, 0);
        for &l in model {
            self.value[l.unsigned_abs() as usize] = if l > 0 { 1 } else { -1 };
        }
        let value = &self.value;
        let holds = |l: Lit| {
            let v = value.get(l.unsigned_abs() as usize).copied().unwrap_or(0);
            (v > 0) == (l > 0)
        };
        self.clause.clear();
        self.clause
            .extend(self.lits.iter().map(|&l| if holds(l) { -l } else { l }));
        self.handed = 0;
        self.pending = true;
        self.left -= 1;
        self.counted += 1;
        true
    }

    /// Whether a blocking clause waits; it is handed over literal by literal from now on.
    pub fn has_clause(&mut self) -> bool {
        std::mem::take(&mut self.pending)
    }

    /// The next literal of the blocking clause being handed over (0 ends it).
    pub fn next_clause_lit(&mut self) -> Lit {
        let lit = self.clause.get(self.handed).copied().unwrap_or(0);
        self.handed += 1;
        lit
    }

    /// The models counted since the last call.
    pub fn take_counted(&mut self) -> usize {
        std::mem::take(&mut self.counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_gives_the_clause_that_excludes_it() {
        let mut count = InsideCount::new(&[3, -1, 3], 2).unwrap();
        assert_eq!(count.vars().collect::<Vec<_>>(), vec![1, 3]);
        assert!(count.take_model(&[1, -2, -3]));
        assert!(count.has_clause());
        assert!(!count.has_clause());
        let clause: Vec<Lit> = std::iter::from_fn(|| Some(count.next_clause_lit()))
            .take_while(|&l| l != 0)
            .collect();
        // -1 is false in the model (keeps), 3 is false (keeps).
        assert_eq!(clause, vec![-1, 3]);
        assert!(count.take_model(&[-1, 3]));
        assert!(
            !count.take_model(&[1, 3]),
            "the third model ends the search"
        );
        assert_eq!(count.take_counted(), 2);
        assert_eq!(count.take_counted(), 0);
    }

    /// A recording count that keeps models from the first one on.
    fn keeping_at_once(lits: &[Lit], limit: usize, vars: usize) -> InsideCount {
        let mut count = InsideCount::new(lits, limit).unwrap();
        count.record = Some(Record {
            vars,
            models: Vec::new(),
            since: None,
            deferred: 0,
        });
        count
    }

    #[test]
    fn a_few_models_are_not_recorded() {
        assert!(InsideCount::recording(&[1], FOUND_BEFORE_KEEPING, 1).is_none());
        assert!(InsideCount::recording(&[1], FOUND_BEFORE_KEEPING + 1, 1).is_some());
    }

    #[test]
    fn recorded_models_are_kept_whole_until_taken() {
        let mut count = keeping_at_once(&[1], 5, 3);
        assert!(count.take_model(&[1, -2, 3]));
        assert!(count.take_model(&[-1, 2, -3]));
        count.note_new_var(4);
        assert!(count.take_model(&[-1, -2, -3, 4]));
        assert_eq!(
            count.take_recorded(),
            vec![
                vec![false, true, false, true],
                vec![false, false, true, false],
                vec![false, false, false, false, true]
            ]
        );
        assert!(count.take_recorded().is_empty());
        assert_eq!(count.take_counted(), 3);
    }

    #[test]
    fn a_kept_model_waits_no_longer_than_its_time() {
        let mut count = keeping_at_once(&[1], 5, 1);
        assert!(count.take_model(&[1]));
        std::thread::sleep(RECORDED_FOR);
        assert!(!count.take_model(&[-1]), "the search returns this model");
        assert_eq!(count.take_recorded().len(), 1);
        assert!(count.take_model(&[-1]), "kept again once taken");
    }

    #[test]
    fn a_search_keeps_a_bounded_number_of_models() {
        let mut count = keeping_at_once(&[1], usize::MAX, 1);
        for _ in 0..KEPT_AT_ONCE {
            assert!(count.take_model(&[1]));
        }
        assert!(!count.take_model(&[1]), "the search returns this model");
        assert_eq!(count.take_recorded().len(), KEPT_AT_ONCE);
    }

    #[test]
    fn the_first_models_are_returned_one_by_one() {
        let mut count = InsideCount::recording(&[1], 100, 1).unwrap();
        for _ in 0..FOUND_BEFORE_KEEPING {
            assert!(!count.take_model(&[1]), "returned to the caller");
        }
        assert!(count.take_model(&[1]), "kept");
        assert_eq!(count.take_recorded().len(), 1);
        assert_eq!(count.take_counted(), 1);
        // The returned models count towards the limit: 32 returned, 1 kept, 67 left.
        for _ in 0..67 {
            assert!(count.take_model(&[1]));
        }
        assert!(!count.take_model(&[1]), "the limit's last model");
    }

    #[test]
    fn no_counting_without_a_clause_to_block_with() {
        assert!(InsideCount::new(&[], 5).is_none());
        assert!(InsideCount::new(&[2, -2], 5).is_none());
        assert!(InsideCount::new(&[2], 0).is_none());
    }
}
