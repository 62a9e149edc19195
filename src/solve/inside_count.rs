//! Counting models inside one search. The external propagator's check of a model that the
//! solver found counts it and refutes it with its blocking clause, so the solver goes on
//! from where it stands (learnt clauses, phases, trail) instead of starting a new search for
//! each model, the way clasp enumerates by recording solutions.

use super::Lit;

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

    #[test]
    fn no_counting_without_a_clause_to_block_with() {
        assert!(InsideCount::new(&[], 5).is_none());
        assert!(InsideCount::new(&[2, -2], 5).is_none());
        assert!(InsideCount::new(&[2], 0).is_none());
    }
}
