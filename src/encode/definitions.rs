//! Definitions in clauses: the completion of each ground definition (every defined atom is
//! equivalent to the disjunction of its bodies), and what completion misses. A solver that
//! can keeps each definition with positive recursion inside its search (its
//! [`DefinitionGraph`], see [`crate::solve::SatSolver::propagate_definition`]); for the
//! others, what completion misses is added as the solver's candidate models show it is
//! needed:
//! - loop formulas for the unfounded sets of a candidate (one per part of the set that no
//!   dependency leaves), then the loop formulas of all two-atom loops at once, and after many
//!   rounds the ranking translation ([`crate::encode::ranking`]) instead;
//! - for a definition with recursion through negation, a clause that excludes the choices of
//!   opens under which its well-founded model is not two-valued (IDP3 accepts only total
//!   definitions).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Instant;

use crate::encode::ranking::{
    positive_atoms, ranking_constraints, recursive_components, terminal_components,
    UNARY_RANKING_LIMIT,
};
use crate::encode::sat::Sat;
use crate::ground::wellfounded::Evaluator;
use crate::ground::{evaluate, without_positive, AtomId, Gf, GroundDefinition, Node, Store};
use crate::solve::{DefinitionGraph, GraphChild, GraphNode, Lit};
use crate::source::Span;

/// A definition switches from lazy loop formulas to the ranking translation after this many
/// rounds of loop formulas ...
const RANKING_AFTER_LOOPS: usize = 1000;

/// ... or earlier, once it has had at least `RANKING_MIN_LOOPS` rounds and the rounds have
/// taken `RANKING_AFTER_SECONDS`: cheap rounds (short Hamiltonian paths) are best finished
/// lazily, while expensive ones (Hamiltonian cycles over hundreds of vertices, unsatisfiable
/// mazes) are not worth continuing.
const RANKING_MIN_LOOPS: usize = 64;
const RANKING_AFTER_SECONDS: f64 = 20.0;

/// Once a definition needs a second round of lazy loop formulas, it gets the loop formulas of
/// all its two-atom loops at once (at most `MAX_PAIR_LOOPS` of them): cheap, and they spare
/// the rounds that would find them one by one. A definition without loops, or whose first
/// candidate model is well-founded, never pays for them.
const PAIR_LOOPS_AFTER: usize = 2;
const MAX_PAIR_LOOPS: usize = 200_000;

/// Whether a definition with `loops` rounds of loop formulas, the first `elapsed` ago, should
/// switch to the ranking translation. `after` (`IDP_RANKING_AFTER=N`) fixes the switch at N
/// rounds (deterministic, for experiments).
fn switch_to_ranking(loops: usize, elapsed: std::time::Duration, after: Option<usize>) -> bool {
    match after {
        Some(n) => loops >= n,
        None => {
            loops >= RANKING_AFTER_LOOPS
                || (loops >= RANKING_MIN_LOOPS && elapsed.as_secs_f64() >= RANKING_AFTER_SECONDS)
        }
    }
}

/// Asserts the completion of `gd`: each defined atom is equivalent to the disjunction of its
/// bodies (when `guard` holds, if there is one: the selector of an explanation). With
/// `non_recursive` (no rule body reads a symbol `gd` defines) and no guard, an atom not
/// encoded yet takes its body's literal instead ([`Sat::alias`]): `innerwall(p) <- Wall(p)`
/// needs no variable, and the solver propagates through one literal fewer.
pub fn assert_completion(
    store: &mut Store,
    sat: &mut Sat,
    gd: &GroundDefinition,
    guard: Option<Lit>,
    non_recursive: bool,
) {
    for (head, bodies) in &gd.rules {
        let body = store.or(bodies.iter().copied());
        let may_alias = non_recursive && guard.is_none() && !head.is_const() && !body.is_const();
        if may_alias && head.node() != body.node() && sat.alias(store, *head, body) {
            continue;
        }
        if sat.keeps_asserted() || head.node() == body.node() || head.is_const() || body.is_const()
        {
            // A dump shows each completion as one formula; the folded cases make no node.
            let eq = store.equiv(*head, body);
            sat.assert_under(store, eq, guard);
        } else if let Some(disjuncts) = unencoded_disjuncts(store, sat, body) {
            assert_disjunctive_equivalence(store, sat, *head, &disjuncts, guard);
        } else {
            assert_equivalence(store, sat, *head, body, guard);
        }
    }
}

/// The disjuncts of `body` when it is a disjunction without a literal yet, those of the
/// disjunctions among them without one in turn (`p(x) <- q(x). p(x) <- ? y: r(x, y).`): a
/// completion can then say `head <=> b1 | .. | bn` in clauses over the disjuncts, with no
/// variable for a disjunction (clasp's bodies and heads, one step of propagation apart).
fn unencoded_disjuncts(store: &Store, sat: &Sat, body: Gf) -> Option<Vec<Gf>> {
    let is_unencoded_or = |g: Gf| {
        g.is_negated() && sat.existing_lit(g).is_none() && matches!(store.node(g), Node::And(_))
    };
    if !is_unencoded_or(body) {
        return None;
    }
    let mut disjuncts = Vec::new();
    let mut stack = vec![body];
    while let Some(g) = stack.pop() {
        match store.node(g) {
            Node::And(children) if is_unencoded_or(g) => {
                stack.extend(children.iter().rev().map(|&c| -c));
            }
            _ => disjuncts.push(g),
        }
    }
    Some(disjuncts)
}

/// `head <=> b1 | .. | bn` as `~head | b1 | .. | bn` and `head | ~bi` for each disjunct.
fn assert_disjunctive_equivalence(
    store: &Store,
    sat: &mut Sat,
    head: Gf,
    disjuncts: &[Gf],
    guard: Option<Lit>,
) {
    let mut clause = Vec::with_capacity(disjuncts.len() + 1);
    clause.push(-head);
    clause.extend_from_slice(disjuncts);
    sat.assert_clause(store, &clause, guard);
    for &b in disjuncts {
        sat.assert_clause(store, &[head, -b], guard);
    }
}

/// `head <=> body` as the two clauses that asserting `store.equiv(head, body)` gives, in the
/// same order and with the same literals, without its three nodes (`head => body`, `body =>
/// head` and their conjunction): a state fluent's completion (579 008 heads in PlayID's
/// pancakes88) made a third of the store.
fn assert_equivalence(store: &Store, sat: &mut Sat, head: Gf, body: Gf, guard: Option<Lit>) {
    for clause in [[-head, body], [head, -body]] {
        let mut clause = clause;
        clause.sort_unstable_by_key(|g| (g.0.unsigned_abs(), g.0));
        sat.assert_clause(store, &clause, guard);
    }
}

/// A definition as encoded.
struct EncodedDefinition {
    evaluator: Evaluator,
    /// Rule bodies per defined atom.
    bodies: HashMap<AtomId, Vec<Gf>>,
    /// Defined atoms occurring positively in the bodies of each defined atom.
    deps: HashMap<AtomId, Vec<AtomId>>,
    /// How many rounds of loop formulas this definition needed so far.
    loops_added: usize,
    /// When the first loop formula was added.
    first_loop: Option<Instant>,
    /// Whether the ranking translation has been added.
    ranked: bool,
    /// Whether the defined atoms' positive dependencies close a cycle (else completion founds
    /// every true atom).
    positively_recursive: bool,
    /// Whether the solver keeps the definition's positive recursion inside its search (no
    /// loop formulas needed).
    propagated: bool,
    check_totality: bool,
    span: Span,
    /// The literal under which the definition holds (its selector in an explanation).
    guard: Option<Lit>,
    /// The atoms that a candidate's well-founded model left unknown, the first time one did.
    not_total_example: Option<Vec<AtomId>>,
}

/// The definitions of a session whose completion is asserted, checked against each candidate
/// model.
pub struct Definitions {
    defs: Vec<EncodedDefinition>,
    /// Rounds of loop formulas after which a definition switches to the ranking translation;
    /// `None`: by rounds and time ([`switch_to_ranking`]).
    ranking_after: Option<usize>,
    /// Rank-propagation clauses the unary rankings still added in this session may take
    /// ([`UNARY_RANKING_LIMIT`] at first).
    unary_ranking_left: usize,
}

impl Default for Definitions {
    fn default() -> Definitions {
        Definitions::new(None)
    }
}

impl EncodedDefinition {
    /// Whether the current model must satisfy the definition: it has no guard, or its guard
    /// is true (a definition left out of an explanation's candidate set is not checked).
    fn holds(&self, sat: &Sat) -> bool {
        self.guard.is_none_or(|g| sat.lit_value(g))
    }
}

/// What refining a candidate model did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refinement {
    /// Whether the candidate was refuted (a clause was added).
    pub refuted: bool,
    /// Definitions that switched to the ranking translation in this round (by number, from 1).
    pub ranked: Vec<usize>,
}

impl Definitions {
    /// No definitions yet; `ranking_after` fixes the rounds of loop formulas after which one
    /// switches to the ranking translation (`IDP_RANKING_AFTER`).
    pub fn new(ranking_after: Option<usize>) -> Definitions {
        Definitions {
            defs: Vec::new(),
            ranking_after,
            unary_ranking_left: UNARY_RANKING_LIMIT,
        }
    }

    /// Starts checking `gd` (located at `span`) against candidate models; `stable` (IDP3's
    /// stable semantics) skips the totality check. The clauses added for it hold under
    /// `guard` when there is one. A definition with positive recursion and no guard is handed
    /// to the solver to keep inside its search, if it can.
    pub fn track(
        &mut self,
        store: &Store,
        sat: &mut Sat,
        gd: &GroundDefinition,
        span: Span,
        stable: bool,
        guard: Option<Lit>,
    ) {
        let evaluator = Evaluator::new(store, gd);
        let check_totality = !stable && evaluator.has_negative_recursion(store);
        let defined = evaluator.defined();
        let mut bodies = HashMap::default();
        let mut deps = HashMap::default();
        for (k, &h) in evaluator.heads().iter().enumerate() {
            let bs = evaluator.bodies(k).to_vec();
            let mut d: HashSet<AtomId> = HashSet::default();
            for &b in &bs {
                d.extend(
                    positive_atoms(store, b)
                        .into_iter()
                        .filter(|a| defined.contains(a)),
                );
            }
            deps.insert(h, d.into_iter().collect());
            bodies.insert(h, bs);
        }
        // Reading a defined atom is not recursion unless the reading closes a cycle: over
        // `Peg(t, h) <- Peg(t - 1, h) & ...` every derivation is as long as t, so the
        // completion alone is exact and the search needs no unfounded sets.
        let positively_recursive = deps.values().any(|ds: &Vec<AtomId>| !ds.is_empty())
            && !recursive_components(evaluator.heads(), &deps).is_empty();
        let propagated = positively_recursive && guard.is_none() && {
            let graph = definition_graph(store, sat, &evaluator);
            sat.propagate_definition(&graph)
        };
        self.defs.push(EncodedDefinition {
            evaluator,
            bodies,
            deps,
            loops_added: 0,
            first_loop: None,
            ranked: false,
            positively_recursive,
            propagated,
            check_totality,
            span,
            guard,
            not_total_example: None,
        });
    }

    /// Refutes the current model of `sat` if some definition does not hold in it: loop
    /// formulas for unfounded sets first, else a totality cut.
    pub fn refine(&mut self, store: &mut Store, sat: &mut Sat) -> Refinement {
        let mut refinement = self.refute_unfounded(store, sat);
        if !refinement.refuted {
            refinement.refuted = self.refute_non_total(store, sat);
        }
        refinement
    }

    /// Whether the clauses added so far encode every definition exactly: none has recursion
    /// through negation, and every one with positive recursion has its ranking translation.
    pub fn completion_suffices(&self) -> bool {
        self.defs
            .iter()
            .all(|d| !d.check_totality && (d.ranked || d.propagated || !d.positively_recursive))
    }

    /// Whether some definition is kept inside the solver's search without its ranking
    /// translation (which [`Definitions::rank_propagated`] would add).
    pub fn has_unranked_propagated(&self) -> bool {
        self.defs.iter().any(|d| d.propagated && !d.ranked)
    }

    /// Adds the ranking translation of every definition the solver keeps inside its search.
    /// Unfounded-set propagation finds models fast but proves some theories unsatisfiable
    /// slowly (no n x n maze for an even n: clasp cannot either); the rank variables give
    /// the solver the level mapping to learn over, which makes such proofs feasible.
    pub fn rank_propagated(&mut self, store: &mut Store, sat: &mut Sat) {
        for k in 0..self.defs.len() {
            if self.defs[k].propagated && !self.defs[k].ranked {
                self.add_ranking(k, store, sat);
                self.defs[k].ranked = true;
            }
        }
    }

    /// Adds the ranking translation of every definition with positive recursion now, instead
    /// of loop formulas as candidate models need them (for clauses that must be complete
    /// before any search, as a template's).
    pub fn rank_recursive(&mut self, store: &mut Store, sat: &mut Sat) {
        for k in 0..self.defs.len() {
            let def = &self.defs[k];
            if def.ranked || def.propagated || !def.positively_recursive {
                continue;
            }
            self.add_ranking(k, store, sat);
            self.defs[k].ranked = true;
        }
    }

    /// The definitions that were not total in some candidate model: where each is, and the
    /// atoms its well-founded model left unknown.
    pub fn not_total(&self) -> Vec<(Span, &[AtomId])> {
        self.defs
            .iter()
            .filter_map(|d| Some((d.span, d.not_total_example.as_deref()?)))
            .collect()
    }

    /// Adds loop formulas for the unfounded sets of the current model (one per strongly
    /// connected part of the unfounded set). A definition that keeps producing loops switches
    /// to the ranking translation.
    fn refute_unfounded(&mut self, store: &mut Store, sat: &mut Sat) -> Refinement {
        let mut refinement = Refinement::default();
        for k in 0..self.defs.len() {
            let def = &self.defs[k];
            // Without positive recursion completion founds every true atom.
            if def.propagated || !def.positively_recursive || !def.holds(sat) {
                continue;
            }
            let unfounded = self.unfounded_atoms(k, store, sat);
            if unfounded.is_empty() {
                continue;
            }
            for part in self.unfounded_parts(k, &unfounded, store, sat) {
                self.add_loop_formula(k, &part.into_iter().collect(), store, sat);
            }
            refinement.refuted = true;
            let def = &mut self.defs[k];
            def.loops_added += 1;
            if def.loops_added == PAIR_LOOPS_AFTER {
                self.add_two_atom_loop_formulas(k, store, sat);
            }
            let def = &mut self.defs[k];
            let first = *def.first_loop.get_or_insert_with(Instant::now);
            if !def.ranked
                && switch_to_ranking(def.loops_added, first.elapsed(), self.ranking_after)
            {
                def.ranked = true;
                self.add_ranking(k, store, sat);
                refinement.ranked.push(k + 1);
            }
        }
        refinement
    }

    /// True defined atoms of definition `k` that the current model does not found.
    fn unfounded_atoms(&self, k: usize, store: &Store, sat: &Sat) -> HashSet<AtomId> {
        let def = &self.defs[k];
        let model_true: HashSet<AtomId> = def
            .evaluator
            .heads()
            .iter()
            .copied()
            .filter(|&a| sat.atom_value(store, a))
            .collect();
        let open = |a: AtomId| sat.atom_value(store, a);
        let founded = def.evaluator.founded(store, &model_true, &open);
        model_true.difference(&founded).copied().collect()
    }

    /// The smallest unfounded sets within `unfounded` that the current model shows: the parts
    /// of its active dependency graph (an atom depends on the unfounded atoms read positively by
    /// its true bodies) that no edge leaves. Each is unfounded by itself, so a loop formula per
    /// part cuts, say, every subtour of a candidate Hamiltonian cycle separately.
    fn unfounded_parts(
        &self,
        k: usize,
        unfounded: &HashSet<AtomId>,
        store: &Store,
        sat: &Sat,
    ) -> Vec<Vec<AtomId>> {
        let def = &self.defs[k];
        let mut atoms: Vec<AtomId> = unfounded.iter().copied().collect();
        atoms.sort_unstable();
        let value = |a: AtomId| sat.atom_value(store, a);
        let active = |h: AtomId| -> Vec<AtomId> {
            let bodies = def.bodies.get(&h).map(|v| v.as_slice()).unwrap_or(&[]);
            bodies
                .iter()
                .filter(|&&b| evaluate(store, b, &value))
                .flat_map(|&b| positive_atoms(store, b))
                .filter(|a| unfounded.contains(a))
                .collect()
        };
        let parts = terminal_components(&atoms, &active);
        if parts.is_empty() {
            vec![atoms]
        } else {
            parts
        }
    }

    /// Every atom of `set` needs support from outside `set`.
    fn add_loop_formula(&self, k: usize, set: &HashSet<AtomId>, store: &mut Store, sat: &mut Sat) {
        let mut external = Vec::new();
        for &h in set {
            for &b in self.defs[k]
                .bodies
                .get(&h)
                .map(|v| v.as_slice())
                .unwrap_or(&[])
            {
                external.push(without_positive(store, b, set));
            }
        }
        let support = store.or(external);
        let support_lit = sat.lit(store, support);
        let guard = self.defs[k].guard;
        for a in set {
            let l = sat.lit(store, store.atom_gf(*a));
            let mut clause = vec![-l, support_lit];
            clause.extend(guard.map(|g| -g));
            sat.add_clause(&clause);
        }
    }

    /// Loop formulas for every pair of defined atoms that support each other directly: the
    /// shortest loops, cheap to state all at once (the two-cycles of a candidate Hamiltonian
    /// cycle), for a definition whose lazy rounds keep finding loops.
    fn add_two_atom_loop_formulas(&self, k: usize, store: &mut Store, sat: &mut Sat) {
        let def = &self.defs[k];
        let mut pairs = Vec::new();
        for (&h, ds) in &def.deps {
            for &d in ds {
                if h < d && def.deps.get(&d).is_some_and(|back| back.contains(&h)) {
                    pairs.push((h, d));
                }
            }
        }
        if pairs.len() > MAX_PAIR_LOOPS {
            return;
        }
        pairs.sort_unstable();
        for (h, d) in pairs {
            self.add_loop_formula(k, &[h, d].into_iter().collect(), store, sat);
        }
    }

    /// Adds the ranking translation for every recursive component of definition `k`.
    fn add_ranking(&mut self, k: usize, store: &mut Store, sat: &mut Sat) {
        let def = &self.defs[k];
        for component in recursive_components(def.evaluator.heads(), &def.deps) {
            let unary_left = &mut self.unary_ranking_left;
            for g in ranking_constraints(store, &component, &def.bodies, unary_left) {
                sat.assert_under(store, g, def.guard);
            }
        }
    }

    /// Excludes candidate models in which a definition with recursion through negation has a
    /// well-founded model that is not two-valued; true if any was excluded.
    fn refute_non_total(&mut self, store: &Store, sat: &mut Sat) -> bool {
        let mut added = false;
        for def in &mut self.defs {
            if !def.check_totality || !def.holds(sat) {
                continue;
            }
            let open = |a: AtomId| sat.atom_value(store, a);
            let wf = def.evaluator.well_founded(store, &open);
            if wf.unknown_atoms.is_empty() {
                continue;
            }
            if def.not_total_example.is_none() {
                let mut unknown: Vec<AtomId> = wf.unknown_atoms.iter().copied().collect();
                unknown.sort_unstable();
                def.not_total_example = Some(unknown);
            }
            // Only the opens that the unknown atoms depend on: other opens cannot make the
            // definition total, and naming them would refute one candidate at a time.
            let below = def
                .evaluator
                .opens_below(store, wf.unknown_atoms.iter().copied());
            let mut clause: Vec<Lit> = below
                .iter()
                .filter_map(|&a| sat.existing_lit(store.atom_gf(a)))
                .map(|l| if sat.lit_value(l) { -l } else { l })
                .collect();
            clause.extend(def.guard.map(|g| -g));
            sat.add_clause(&clause);
            added = true;
        }
        added
    }
}

/// The definition as the solver's graph: an OR node per defined atom (its bodies as
/// children), and a node per subformula of a body that reads a defined atom positively (a
/// conjunction AND, a negated conjunction OR); everything else is an external literal.
fn definition_graph(store: &Store, sat: &mut Sat, evaluator: &Evaluator) -> DefinitionGraph {
    let mut builder = GraphBuilder {
        store,
        defined: evaluator.defined(),
        graph: DefinitionGraph::default(),
        node_of: HashMap::default(),
        recursive: HashMap::default(),
    };
    for &h in evaluator.heads() {
        let g = store.atom_gf(h);
        builder.node_of.insert(g, builder.graph.nodes.len());
        builder.graph.nodes.push(GraphNode {
            lit: sat.lit(store, g),
            conjunctive: false,
            children: Vec::new(),
        });
    }
    for k in 0..evaluator.heads().len() {
        let mut disjuncts = Vec::new();
        for &b in evaluator.bodies(k) {
            disjuncts_into(store, b, &mut disjuncts);
        }
        let children = disjuncts
            .into_iter()
            .map(|b| builder.child(sat, b))
            .collect();
        builder.graph.nodes[k].children = children;
    }
    builder.graph
}

/// The disjuncts of `g`: itself, or for a disjunction, those of each of its disjuncts.
fn disjuncts_into(store: &Store, g: Gf, out: &mut Vec<Gf>) {
    match store.node(g) {
        Node::And(children) if g.is_negated() => {
            for &c in children {
                disjuncts_into(store, -c, out);
            }
        }
        _ => out.push(g),
    }
}

struct GraphBuilder<'s> {
    store: &'s Store,
    defined: &'s HashSet<AtomId>,
    graph: DefinitionGraph,
    node_of: HashMap<Gf, usize>,
    /// Whether a (signed) formula reads a defined atom positively.
    recursive: HashMap<Gf, bool>,
}

impl GraphBuilder<'_> {
    fn child(&mut self, sat: &mut Sat, g: Gf) -> GraphChild {
        if let Some(&n) = self.node_of.get(&g) {
            return GraphChild::Node(n);
        }
        if !self.reads_defined(g) {
            return GraphChild::Lit(sat.lit(self.store, g));
        }
        let Node::And(children) = self.store.node(g) else {
            // A defined atom without rules: false, as completion says.
            return GraphChild::Lit(sat.lit(self.store, g));
        };
        let conjunctive = !g.is_negated();
        let n = self.graph.nodes.len();
        self.node_of.insert(g, n);
        self.graph.nodes.push(GraphNode {
            lit: sat.lit(self.store, g),
            conjunctive,
            children: Vec::new(),
        });
        let mut flat = Vec::with_capacity(children.len());
        for &c in children {
            if !conjunctive {
                // A disjunction in a disjunction gives its disjuncts.
                disjuncts_into(self.store, -c, &mut flat);
            } else if !self.reads_defined(c) {
                // An atom that stands for a conjunction of literals gives them all.
                flat.extend(sat.conjuncts(self.store, c));
            } else {
                flat.push(c);
            }
        }
        let children: Vec<GraphChild> = flat.into_iter().map(|c| self.child(sat, c)).collect();
        self.graph.nodes[n].children = children;
        GraphChild::Node(n)
    }

    fn reads_defined(&mut self, g: Gf) -> bool {
        if let Some(&r) = self.recursive.get(&g) {
            return r;
        }
        let store = self.store;
        let r = match store.node(g) {
            Node::True => false,
            Node::Atom(a) => !g.is_negated() && self.defined.contains(&a),
            Node::And(children) => {
                let negated = g.is_negated();
                children
                    .iter()
                    .any(|&c| self.reads_defined(if negated { -c } else { c }))
            }
        };
        self.recursive.insert(g, r);
        r
    }
}
