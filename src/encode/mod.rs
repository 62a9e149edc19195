//! Encoding ground formulas into clauses: every store node gets a SAT variable on first use
//! (Tseitin), top-level conjunctions are split and top-level disjunctions become single
//! clauses. The encoder is incremental: formulas built after a solve (loop formulas, bounds)
//! are encoded on demand.

mod definitions;
mod ranking;
mod sat;
#[cfg(test)]
mod tests;

pub use definitions::{assert_completion, Definitions};
pub use sat::Sat;

use crate::ground::{Gf, Node, Store};
use crate::solve::{Lit, SatSolver};

#[derive(Default)]
pub struct Encoder {
    /// SAT variable of each store node (0 = not encoded yet).
    node_vars: Vec<Lit>,
    /// The nodes still to encode (reused between calls).
    stack: Vec<(usize, bool)>,
    /// The clause being built (reused between calls).
    clause: Vec<Lit>,
    /// The clause of an asserted disjunction being built (reused between calls).
    top: Vec<Lit>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// The literal of `g`, encoding its node (and the nodes below it) if needed.
    pub fn lit(&mut self, store: &Store, sat: &mut dyn SatSolver, g: Gf) -> Lit {
        let v = self.node_var(store, sat, g.node());
        if g.is_negated() {
            -v
        } else {
            v
        }
    }

    /// The literal of an already encoded node, if any.
    pub fn existing_lit(&self, g: Gf) -> Option<Lit> {
        let v = *self.node_vars.get(g.node())?;
        (v != 0).then_some(if g.is_negated() { -v } else { v })
    }

    fn node_var(&mut self, store: &Store, sat: &mut dyn SatSolver, node: usize) -> Lit {
        if let Some(&v) = self.node_vars.get(node) {
            if v != 0 {
                return v;
            }
        }
        // Iterative post-order so deep formulas do not overflow the stack.
        let mut stack = std::mem::take(&mut self.stack);
        let mut clause = std::mem::take(&mut self.clause);
        stack.clear();
        stack.push((node, false));
        while let Some((n, expanded)) = stack.pop() {
            if self.var_of(n) != 0 {
                continue;
            }
            match store.node(Gf(n as i32 + 1)) {
                Node::True => {
                    let v = self.fresh(sat, n);
                    sat.add_clause(&[v]);
                }
                Node::Atom(_) => {
                    self.fresh(sat, n);
                }
                Node::And(children) if expanded => {
                    let v = self.fresh(sat, n);
                    clause.clear();
                    for &c in children {
                        let l = self.existing_lit(c).expect("child encoded");
                        sat.add_clause(&[-v, l]);
                        clause.push(-l);
                    }
                    clause.push(v);
                    sat.add_clause(&clause);
                }
                Node::And(children) => {
                    stack.push((n, true));
                    for &c in children {
                        if self.var_of(c.node()) == 0 {
                            stack.push((c.node(), false));
                        }
                    }
                }
            }
        }
        self.stack = stack;
        self.clause = clause;
        self.var_of(node)
    }

    fn var_of(&self, node: usize) -> Lit {
        self.node_vars.get(node).copied().unwrap_or(0)
    }

    fn fresh(&mut self, sat: &mut dyn SatSolver, node: usize) -> Lit {
        if self.node_vars.len() <= node {
            self.node_vars.resize(node + 1, 0);
        }
        let v = sat.new_var();
        self.node_vars[node] = v;
        v
    }

    /// Adds the disjunction of `lits` as one clause that holds when `guard` is true.
    pub fn assert_clause(
        &mut self,
        store: &Store,
        sat: &mut dyn SatSolver,
        lits: &[Gf],
        guard: Option<Lit>,
    ) {
        let mut clause = std::mem::take(&mut self.top);
        clause.clear();
        for &g in lits {
            let l = self.lit(store, sat, g);
            clause.push(l);
        }
        clause.extend(guard.map(|l| -l));
        sat.add_clause(&clause);
        self.top = clause;
    }

    /// Adds `g` as a constraint: conjunctions are split, disjunctions become one clause.
    pub fn assert(&mut self, store: &Store, sat: &mut dyn SatSolver, g: Gf) {
        self.assert_guarded(store, sat, g, None);
    }

    /// Adds `g` as a constraint that holds when `guard` is true (every clause gets `-guard`);
    /// without a guard, unconditionally.
    pub fn assert_guarded(
        &mut self,
        store: &Store,
        sat: &mut dyn SatSolver,
        g: Gf,
        guard: Option<Lit>,
    ) {
        if g == Gf::TRUE {
            return;
        }
        let mut clause = std::mem::take(&mut self.top);
        clause.clear();
        match store.node(g) {
            _ if g == Gf::FALSE => {}
            Node::And(children) if !g.is_negated() => {
                for &c in children {
                    self.assert_guarded(store, sat, c, guard);
                }
                self.top = clause;
                return;
            }
            Node::And(children) => {
                for &c in children {
                    let l = self.lit(store, sat, -c);
                    clause.push(l);
                }
            }
            _ => clause.push(self.lit(store, sat, g)),
        }
        clause.extend(guard.map(|l| -l));
        sat.add_clause(&clause);
        self.top = clause;
    }
}
