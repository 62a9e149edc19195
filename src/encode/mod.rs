//! Encoding ground formulas into clauses: every store node gets a SAT variable on first use
//! (Tseitin), top-level conjunctions are split and top-level disjunctions become single
//! clauses. The encoder is incremental: formulas built after a solve (loop formulas, bounds)
//! are encoded on demand. An atom of a non-recursive definition may instead stand for its
//! body ([`Encoder::alias`]): it takes the body's literal when asked for one, and a
//! conjunction that contains it contains the body's conjuncts.

mod definitions;
mod ranking;
mod sat;
#[cfg(test)]
mod tests;
mod totalizer;

pub use definitions::{assert_completion, Definitions};
pub use sat::{Sat, SavedModel};

use rustc_hash::FxHashMap as HashMap;

use crate::ground::{Gf, Node, Store};
use crate::solve::{Lit, SatSolver};

/// The most conjuncts a conjunction inside an asserted disjunction may have to be distributed
/// over (see [`Encoder::assert_disjunction`]) instead of taking a literal.
const DISTRIBUTE_AT_MOST: usize = 16;

/// ... or when each of its conjuncts is a literal or a disjunction of literals (the asserted
/// form of an atom over two functions' applications, one conjunct per value of the first:
/// `Move(u, d) => Next(Player(t), d, Player(u))` over 53 squares; see
/// `Grounder::asserted_atom`). Sokoban's rooms (bench/classics, 7 instances, 3 seeds each)
/// took 82 s so against 110 s with the conjunction's variable.
const DISTRIBUTE_CLAUSES_AT_MOST: usize = 64;

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
    /// The atoms that stand for a formula (by node), see [`Encoder::alias`].
    aliases: HashMap<usize, Gf>,
    /// A conjunction's conjuncts being encoded (reused between calls).
    conjuncts_buffer: Vec<Gf>,
    /// The unconditional two-literal clauses asserted so far (up to
    /// [`RECORDED_BINARY_CLAUSES`]): which literals exclude each other, for the counts whose
    /// bounds are built later ([`totalizer::Counter::with_exclusions`]).
    binary: Vec<(Lit, Lit)>,
}

/// The most two-literal clauses an [`Encoder`] records (8 bytes each).
const RECORDED_BINARY_CLAUSES: usize = 1 << 21;

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
                Node::Atom(_) => match self.aliases.get(&n).copied() {
                    None => {
                        self.fresh(sat, n);
                    }
                    Some(body) if expanded => {
                        let l = self.existing_lit(body).expect("body encoded");
                        self.node_vars[n] = l;
                    }
                    Some(body) => {
                        if self.node_vars.len() <= n {
                            self.node_vars.resize(n + 1, 0);
                        }
                        stack.push((n, true));
                        stack.push((body.node(), false));
                    }
                },
                Node::And(children) if expanded => {
                    let conjuncts = self.flat_conjuncts(store, children);
                    let v = self.fresh(sat, n);
                    clause.clear();
                    for &c in &conjuncts {
                        let l = self.existing_lit(c).expect("child encoded");
                        sat.add_clause(&[-v, l]);
                        clause.push(-l);
                    }
                    clause.push(v);
                    sat.add_clause(&clause);
                    self.conjuncts_buffer = conjuncts;
                }
                Node::And(children) => {
                    stack.push((n, true));
                    let conjuncts = self.flat_conjuncts(store, children);
                    for &c in &conjuncts {
                        if self.var_of(c.node()) == 0 {
                            stack.push((c.node(), false));
                        }
                    }
                    self.conjuncts_buffer = conjuncts;
                }
            }
        }
        self.stack = stack;
        self.clause = clause;
        self.var_of(node)
    }

    /// Makes the atom `head` stand for the formula `body` (the completion `head <=> body` of a
    /// non-recursive definition): no variable of its own, its literal is `body`'s, and a
    /// conjunction that contains `head` contains `body`'s conjuncts instead
    /// ([`Encoder::conjuncts`]). False, changing nothing, when `head` is not a positive atom
    /// or is encoded or aliased already.
    pub fn alias(&mut self, store: &Store, head: Gf, body: Gf) -> bool {
        let node = head.node();
        if head.is_negated()
            || !matches!(store.node(head), Node::Atom(_))
            || self.var_of(node) != 0
            || self.aliases.contains_key(&node)
        {
            return false;
        }
        self.aliases.insert(node, body);
        true
    }

    /// Gives every aliased atom that has no literal yet its body's literal, so that every
    /// atom met so far has one (for reading models and building blocking clauses).
    pub fn encode_aliases(&mut self, store: &Store, sat: &mut dyn SatSolver) {
        let mut pending: Vec<usize> = self
            .aliases
            .keys()
            .copied()
            .filter(|&n| self.var_of(n) == 0)
            .collect();
        pending.sort_unstable();
        for n in pending {
            self.node_var(store, sat, n);
        }
    }

    /// Whether `g` is an aliased atom that has no literal yet.
    pub fn is_pending_alias(&self, g: Gf) -> bool {
        self.var_of(g.node()) == 0 && self.aliases.contains_key(&g.node())
    }

    /// The value of `g` when literals have the values `lit_value` gives (`None` for a literal
    /// it does not know, made after the model it reads): its literal's, or else the value of
    /// the formula an aliased atom stands for, of a conjunction's conjuncts; `None` when some
    /// part of it has no known literal.
    pub fn value(
        &self,
        store: &Store,
        g: Gf,
        lit_value: &dyn Fn(Lit) -> Option<bool>,
    ) -> Option<bool> {
        if let Some(v) = self.existing_lit(g).and_then(lit_value) {
            return Some(v);
        }
        let positive = match store.node(g) {
            Node::True => true,
            Node::Atom(_) => {
                let body = *self.aliases.get(&g.node())?;
                self.value(store, body, lit_value)?
            }
            Node::And(children) => {
                let mut all = true;
                for &c in children {
                    if !self.value(store, c, lit_value)? {
                        all = false;
                        break;
                    }
                }
                all
            }
        };
        Some(positive != g.is_negated())
    }

    /// The conjuncts that `g` stands for: `g` itself, or, for an aliased atom without a
    /// literal, those of its body (a conjunction's children, each in turn).
    pub fn conjuncts(&self, store: &Store, g: Gf, out: &mut Vec<Gf>) {
        if !g.is_negated() && self.var_of(g.node()) == 0 {
            if let Some(&body) = self.aliases.get(&g.node()) {
                match store.node(body) {
                    Node::And(children) if !body.is_negated() => {
                        for &c in children {
                            self.conjuncts(store, c, out);
                        }
                    }
                    _ => self.conjuncts(store, body, out),
                }
                return;
            }
        }
        out.push(g);
    }

    /// The conjuncts of a conjunction with `children` (see [`Encoder::conjuncts`]), in the
    /// reused buffer (to be put back).
    fn flat_conjuncts(&mut self, store: &Store, children: &[Gf]) -> Vec<Gf> {
        let mut out = std::mem::take(&mut self.conjuncts_buffer);
        out.clear();
        for &c in children {
            self.conjuncts(store, c, &mut out);
        }
        out
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

    /// Adds `g` as a constraint: conjunctions are split, disjunctions become clauses.
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
        let mut clause = std::mem::take(&mut self.top);
        clause.clear();
        clause.extend(guard.map(|l| -l));
        self.assert_top(store, sat, g, &mut clause);
        self.top = clause;
    }

    /// Adds "`clause` or `g`" for an asserted `g`: conjunctions are split into one such
    /// constraint per conjunct, and a disjunction becomes clauses (see
    /// [`Encoder::assert_disjunction`]). `clause` is left as it was given.
    fn assert_top(&mut self, store: &Store, sat: &mut dyn SatSolver, g: Gf, clause: &mut Vec<Lit>) {
        match store.node(g) {
            _ if g == Gf::TRUE => {}
            Node::And(children) if !g.is_negated() => {
                for &c in children {
                    self.assert_top(store, sat, c, clause);
                }
            }
            _ => self.assert_disjunction(store, sat, g, clause),
        }
    }

    /// Adds "`clause` or `g`" as clauses: the disjuncts of `g` join the clause, except one
    /// conjunction among them without a literal yet, which is distributed over (`a | (b & c)`
    /// becomes `a | b` and `a | c`), so that an implication `p => q & r` needs no variable for
    /// `q & r`. Only that one level is distributed, and only the disjunctions at the top of
    /// `g` and of each conjunct are taken apart: deeper subformulas keep their literals (the
    /// clauses stay as many as the formula's nodes, and a subformula that a definition's
    /// completion also reads is one literal in both, which the search does better with).
    /// `clause` is left as it was given.
    fn assert_disjunction(
        &mut self,
        store: &Store,
        sat: &mut dyn SatSolver,
        g: Gf,
        clause: &mut Vec<Lit>,
    ) {
        let given = clause.len();
        let mut split = None;
        self.disjuncts_into_clause(store, sat, g, clause, Some(&mut split));
        match split {
            Some(conjunction) => {
                let Node::And(children) = store.node(conjunction) else {
                    unreachable!("a conjunction is an AND node")
                };
                for &c in children {
                    let before = clause.len();
                    self.disjuncts_into_clause(store, sat, c, clause, None);
                    self.add_top_clause(sat, clause, given == 0);
                    clause.truncate(before);
                }
            }
            None => self.add_top_clause(sat, clause, given == 0),
        }
        clause.truncate(given);
    }

    /// Adds an asserted clause, recording it when it has two literals and holds
    /// `unconditionally` (no guard literal in it).
    fn add_top_clause(&mut self, sat: &mut dyn SatSolver, clause: &[Lit], unconditionally: bool) {
        if let [a, b] = *clause {
            if unconditionally && self.binary.len() < RECORDED_BINARY_CLAUSES {
                self.binary.push((a, b));
            }
        }
        sat.add_clause(clause);
    }

    /// The unconditional two-literal clauses asserted so far (the first
    /// [`RECORDED_BINARY_CLAUSES`] of them).
    pub fn binary_clauses(&self) -> &[(Lit, Lit)] {
        &self.binary
    }

    /// Adds to `clause` the literals of `g`'s disjuncts (of `g` itself when it is no
    /// disjunction), except that the first conjunction without a literal goes to `split`
    /// when that is given.
    fn disjuncts_into_clause(
        &mut self,
        store: &Store,
        sat: &mut dyn SatSolver,
        g: Gf,
        clause: &mut Vec<Lit>,
        mut split: Option<&mut Option<Gf>>,
    ) {
        match store.node(g) {
            _ if g == Gf::FALSE => {}
            Node::And(children) if g.is_negated() => {
                for &c in children {
                    let d = -c;
                    let free = split.as_ref().is_some_and(|s| s.is_none());
                    if free && self.is_unencoded_conjunction(store, d) {
                        if let Some(s) = split.as_deref_mut() {
                            *s = Some(d);
                        }
                    } else if d != Gf::FALSE {
                        let l = self.lit(store, sat, d);
                        clause.push(l);
                    }
                }
            }
            _ => {
                let l = self.lit(store, sat, g);
                clause.push(l);
            }
        }
    }

    /// Whether `g` is a conjunction of at most [`DISTRIBUTE_AT_MOST`] conjuncts (of clauses:
    /// [`DISTRIBUTE_CLAUSES_AT_MOST`]) that has no literal yet (one that many disjunctions
    /// share, as the nodes of a sum's diagram are, would be distributed once for each).
    fn is_unencoded_conjunction(&self, store: &Store, g: Gf) -> bool {
        let is_literal = |c: Gf| matches!(store.node(c), Node::Atom(_));
        let is_clause = |c: Gf| match store.node(c) {
            Node::Atom(_) => true,
            Node::And(d) => c.is_negated() && d.iter().all(|&l| is_literal(l)),
            Node::True => false,
        };
        !g.is_negated()
            && self.var_of(g.node()) == 0
            && match store.node(g) {
                Node::And(c) if c.len() <= DISTRIBUTE_AT_MOST => true,
                Node::And(c) if c.len() <= DISTRIBUTE_CLAUSES_AT_MOST => {
                    c.iter().all(|&c| is_clause(c))
                }
                _ => false,
            }
    }
}
