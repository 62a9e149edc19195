//! Binding several variables at once from the rows of one atom's possibly-true tuples: when a
//! conjunct that must hold is an atom whose arguments are exactly the next variables to bind
//! (`C_porder(t, a, .., a8)` in `porder(Next(t), a, .., a8) <- C_porder(t, a, .., a8)`), its
//! bound's rows, sorted in the order the variables are bound, are the bindings a nested join
//! would find one variable at a time, in the same order, without an index and a candidate list
//! per variable and partial binding.

use std::rc::Rc;

use crate::error::IdpResult;
use crate::ground::formulas::Guard;
use crate::ground::store::Gf;
use crate::ground::Grounder;
use crate::ids::Symbol;
use crate::sema::ir::{FormulaKind, TermKind, Var};
use crate::structure::Value;

/// Below this many rows, an atom's variables are bound one at a time as before.
const SCAN_FROM: usize = 4096;

impl<'a> Grounder<'a> {
    /// The rows of a guard atom that binds `vars[depth..depth + width]` at once, with `width`,
    /// flat in the variables' order: the atom must hold (a conjunct), has a possibly-true
    /// bound of at least [`SCAN_FROM`] rows, and its arguments are those variables, each once.
    pub(super) fn scan_rows(
        &self,
        vars: &[Var],
        depth: usize,
        guards: &[Guard],
    ) -> Option<(usize, Rc<[Value]>)> {
        guards
            .iter()
            .filter(|g| g.skip_if == Gf::FALSE)
            .find_map(|g| self.guard_rows(vars, depth, g))
    }

    /// [`Self::scan_rows`] for one guard.
    fn guard_rows(
        &self,
        vars: &[Var],
        depth: usize,
        guard: &Guard,
    ) -> Option<(usize, Rc<[Value]>)> {
        let FormulaKind::Pred(p, args) = guard.formula.kind() else {
            return None;
        };
        let width = args.len();
        if width < 2 || guard.depth + 1 != depth + width {
            return None;
        }
        let possible = self.status.possible.get(&Symbol::Pred(*p))?;
        if possible.len() < SCAN_FROM {
            return None;
        }
        let mut columns = Vec::with_capacity(width);
        for var in &vars[depth..depth + width] {
            let position = args
                .iter()
                .position(|a| matches!(a.kind(), TermKind::Var(v) if v.id == var.id))?;
            columns.push(position);
        }
        let distinct = columns
            .iter()
            .all(|c| columns.iter().filter(|d| *d == c).count() == 1);
        distinct.then(|| (width, possible.sorted_columns(&columns)))
    }

    /// Binds `bound` to each row of `rows` in turn (values outside a variable's sort are
    /// passed over) and calls `rest`; stops early (returning `true`) when `rest` does. The
    /// variables are unbound afterwards.
    pub(super) fn bind_rows(
        &mut self,
        bound: &[Var],
        rows: &[Value],
        mut rest: impl FnMut(&mut Self) -> IdpResult<bool>,
    ) -> IdpResult<bool> {
        let mut stopped = false;
        'rows: for row in rows.chunks_exact(bound.len()) {
            self.step()?;
            for (var, &v) in bound.iter().zip(row) {
                if !self.domains.contains(var.sort, v) {
                    continue 'rows;
                }
                self.bind(var, v);
            }
            if rest(self)? {
                stopped = true;
                break;
            }
        }
        for var in bound {
            self.unbind(var);
        }
        Ok(stopped)
    }
}
