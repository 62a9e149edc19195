//! Definitions inside the search: unfounded-set propagation, as clasp and MinisatID do it.
//!
//! A definition reaches the solver as a [`DefinitionGraph`] over its literals: an OR node per
//! defined atom (true iff one of its bodies is) and per disjunction inside a body, an AND node
//! per conjunction, and external literals for everything the definition does not define (or
//! reads only negatively). Completion, already in the clauses, makes every node equivalent to
//! its children; what it misses are cycles of positive support. So every node keeps a
//! *source*: an OR node one child that founds it, an AND node all its node children founded.
//! Sources point down an acyclic support graph that ends in external literals that are not
//! false. When an assignment falsifies a source, the nodes that lose their support are looked
//! for a new one among their children; those that find none, and are not false, form an
//! unfounded set `U`: no derivation can make them true without each other. They are made false
//! at once, each with the loop nogood `¬a ∨ EB(U)` as reason, where `EB(U)` are the false
//! literals that cut `U` off from outside support (Gebser, Kaufmann, Schaub, "Conflict-driven
//! answer set solving", 2012; Mariën, "Model generation for ID-logic", 2009).
//!
//! Each founded node has a level (one more than its source, or than an AND node's highest
//! child), so sources point strictly down and stay acyclic; a node that loses its source first
//! takes any usable child of a lower level and keeps its level, so the loss stops there
//! instead of reaching every node founded through it.
//!
//! Sources survive backtracking (unassigning only makes literals less false); a node whose
//! literal becomes unassigned without a source is looked at again before the next propagation.
//! Only nodes on a cycle of positive dependencies take part: the rest are founded by
//! completion alone, and count as external literals.

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;
use std::rc::Rc;

use super::Lit;

/// One definition as its nodes; node `i` of `nodes` is `GraphChild::Node(i)`.
#[derive(Clone, Debug, Default)]
pub struct DefinitionGraph {
    pub nodes: Vec<GraphNode>,
}

/// A defined atom or a subformula of a rule body that reads defined atoms positively.
#[derive(Clone, Debug)]
pub struct GraphNode {
    /// The literal that is equivalent to the node (the atom, or the subformula's Tseitin
    /// literal).
    pub lit: Lit,
    /// AND: true iff every child is; else OR: true iff some child is.
    pub conjunctive: bool,
    pub children: Vec<GraphChild>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphChild {
    /// Another node of the same graph.
    Node(usize),
    /// A literal the definition does not define.
    Lit(Lit),
}

/// What unfounded-set propagation did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes that take part (on a cycle of positive dependencies).
    pub nodes: usize,
    /// Unfounded sets found on partial assignments.
    pub unfounded_sets: u64,
    /// Literals made false by them.
    pub propagated: u64,
    /// Unfounded sets that only a complete assignment showed (should not happen: counted to
    /// be sure).
    pub late_sets: u64,
    /// The solver's conflicts and decisions so far.
    pub conflicts: u64,
    pub decisions: u64,
}

const NONE: u32 = u32::MAX;

/// Source events, in the low bit of `node << 1 | event`: a node lost its source, or its
/// literal became false (it is unusable either way).
const UNSOURCED: u32 = 0;
const FALSIFIED: u32 = 1;
/// A node found a source, or its literal is no longer false.
const SOURCED: u32 = 0;
const UNFALSIFIED: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Child {
    Node(u32),
    Lit(Lit),
}

struct Node {
    lit: Lit,
    conjunctive: bool,
    children: Vec<Child>,
    /// Nodes that have this one as a child (once per occurrence).
    parents: Vec<u32>,
    /// How many of `parents`, at their start, are OR nodes (the only ones that care whether
    /// this node is false).
    or_parents: u32,
    /// Whether the node is founded: an OR node through `children[source]`, an AND node
    /// through all its node children.
    sourced: bool,
    /// OR: the child that founds it.
    source: Option<Child>,
    /// How far the node is from outside support along sources, while founded: an OR node
    /// one more than its source, an AND node one more than its highest child (a literal
    /// child counts 0). Sources point strictly down in level, so they never form a cycle, and
    /// a node that loses its source may take at once any usable child of a lower level
    /// without telling its parents.
    level: u32,
    /// AND: how many node children are not founded (false ones count as founded: a false
    /// child makes the AND node false, which is what its parents see).
    unusable_children: u32,
    /// Whether the node is in `todo`.
    queued: bool,
}

/// The propagator's state: the nodes of every definition given, the values of their
/// literals as the solver assigns them, and what is still to propagate.
#[derive(Default)]
pub struct UnfoundedSets {
    nodes: Vec<Node>,
    /// Variable -> index into `observed` (or `NONE`).
    slot: Vec<u32>,
    /// Variable -> its value: +1 true, -1 false, 0 unassigned (or not observed). Kept apart
    /// from `observed` so that the many look-ups of source maintenance stay in cache.
    values: Vec<i8>,
    observed: Vec<Observed>,
    /// The assigned literals of observed variables, in order.
    trail: Vec<Lit>,
    /// Where each decision level starts in `trail`.
    levels: Vec<usize>,
    /// Nodes that lost their source, or whose literal was unassigned without one.
    todo: Vec<u32>,
    /// Unfounded nodes still to make false, each with its reason (the set's external
    /// bodies).
    pending: Vec<(u32, Rc<[Lit]>)>,
    /// The reason of each propagated literal (its external bodies, all false).
    reasons: HashMap<Lit, Rc<[Lit]>>,
    /// The reason clause being handed to the solver, and how far.
    reason_out: Option<(Lit, Rc<[Lit]>, usize)>,
    /// Clauses to add (a conflict found, or loop nogoods of a complete assignment), and the
    /// one being handed over with how far.
    clauses: VecDeque<Vec<Lit>>,
    clause_out: Option<(Vec<Lit>, usize)>,
    /// A reused work list (empty between uses).
    scratch: Vec<u32>,
    /// Per node: its position in the unfounded set being split (`NONE` outside it).
    position: Vec<u32>,
    /// Per node: the part being built it belongs to (`NONE` when none).
    part_of: Vec<u32>,
    /// The values of a complete assignment being checked, by variable (+1 true, -1 false,
    /// 0 absent: false); reused between checks.
    model_value: Vec<i8>,
    stats: SearchStats,
}

/// An observed variable: the nodes that read it.
#[derive(Default)]
struct Observed {
    /// Nodes whose literal is on this variable.
    nodes: Vec<u32>,
    /// OR nodes that have a literal of this variable as a child.
    readers: Vec<u32>,
}

impl UnfoundedSets {
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            nodes: self.nodes.len(),
            ..self.stats
        }
    }

    /// Adds a definition's nodes (those on a cycle of positive dependencies); returns the
    /// variables the solver must now observe. Called between searches (at level 0).
    pub fn add(&mut self, graph: &DefinitionGraph) -> Vec<Lit> {
        let cyclic = cyclic_nodes(graph);
        let base = self.nodes.len() as u32;
        let mut index = vec![NONE; graph.nodes.len()];
        let mut next = base;
        for (i, &c) in cyclic.iter().enumerate() {
            if c {
                index[i] = next;
                next += 1;
            }
        }
        let mut fresh_vars = Vec::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            if !cyclic[i] {
                continue;
            }
            let children: Vec<Child> = node
                .children
                .iter()
                .map(|&c| match c {
                    GraphChild::Node(j) if cyclic[j] => Child::Node(index[j]),
                    GraphChild::Node(j) => Child::Lit(graph.nodes[j].lit),
                    GraphChild::Lit(l) => Child::Lit(l),
                })
                .collect();
            let unusable_children = children
                .iter()
                .filter(|c| matches!(c, Child::Node(_)))
                .count() as u32;
            self.nodes.push(Node {
                lit: node.lit,
                conjunctive: node.conjunctive,
                children,
                parents: Vec::new(),
                or_parents: 0,
                sourced: false,
                source: None,
                level: 0,
                unusable_children,
                queued: false,
            });
        }
        for n in base..next {
            let lit = self.nodes[n as usize].lit;
            let slot = self.observe(lit, &mut fresh_vars);
            self.observed[slot].nodes.push(n);
            let children = std::mem::take(&mut self.nodes[n as usize].children);
            for &c in &children {
                match c {
                    Child::Node(m) => self.nodes[m as usize].parents.push(n),
                    Child::Lit(l) => {
                        let slot = self.observe(l, &mut fresh_vars);
                        if !self.nodes[n as usize].conjunctive {
                            self.observed[slot].readers.push(n);
                        }
                    }
                }
            }
            self.nodes[n as usize].children = children;
            self.enqueue(n);
        }
        for n in base..next {
            self.order_parents(n);
        }
        self.position.resize(self.nodes.len(), NONE);
        self.part_of.resize(self.nodes.len(), NONE);
        fresh_vars
    }

    /// Puts the OR parents of `n` first and counts them.
    fn order_parents(&mut self, n: u32) {
        let mut parents = std::mem::take(&mut self.nodes[n as usize].parents);
        parents.sort_by_key(|&p| self.nodes[p as usize].conjunctive);
        let or_parents = parents
            .iter()
            .filter(|&&p| !self.nodes[p as usize].conjunctive)
            .count();
        let node = &mut self.nodes[n as usize];
        node.parents = parents;
        node.or_parents = or_parents as u32;
    }

    /// The parents of `n` that an event concerns: all of them when it lost or found its
    /// source, the OR parents only when it became false or no longer false.
    fn parents_for(&self, n: u32, source_event: bool) -> usize {
        let node = &self.nodes[n as usize];
        if source_event {
            node.parents.len()
        } else {
            node.or_parents as usize
        }
    }

    /// The slot of `lit`'s variable, observing it if it is new.
    fn observe(&mut self, lit: Lit, fresh: &mut Vec<Lit>) -> usize {
        let var = lit.unsigned_abs() as usize;
        if self.slot.len() <= var {
            self.slot.resize(var + 1, NONE);
            self.values.resize(var + 1, 0);
        }
        if self.slot[var] == NONE {
            self.slot[var] = self.observed.len() as u32;
            self.observed.push(Observed::default());
            fresh.push(var as Lit);
        }
        self.slot[var] as usize
    }

    /// The value of `lit`: +1 true, -1 false, 0 unassigned.
    fn value(&self, lit: Lit) -> i8 {
        let v = self
            .values
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(0);
        if lit < 0 {
            -v
        } else {
            v
        }
    }

    fn is_false(&self, lit: Lit) -> bool {
        self.value(lit) < 0
    }

    fn usable(&self, n: u32) -> bool {
        let node = &self.nodes[n as usize];
        node.sourced && !self.is_false(node.lit)
    }

    fn enqueue(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        if !node.queued {
            node.queued = true;
            self.todo.push(n);
        }
    }

    /// The solver assigned `lits` (observed variables only).
    pub fn assigned(&mut self, lits: &[Lit]) {
        for &lit in lits {
            let Some(&slot) = self.slot.get(lit.unsigned_abs() as usize) else {
                continue;
            };
            if slot == NONE {
                continue;
            }
            let want = if lit > 0 { 1 } else { -1 };
            let value = &mut self.values[lit.unsigned_abs() as usize];
            if *value == want {
                continue;
            }
            *value = want;
            self.trail.push(lit);
            self.falsified(-lit, slot as usize);
        }
    }

    pub fn new_level(&mut self) {
        self.levels.push(self.trail.len());
    }

    /// The solver went back to decision level `level`: every assignment above it is undone.
    pub fn backtrack(&mut self, level: usize) {
        self.drop_pending();
        if level >= self.levels.len() {
            return;
        }
        let start = self.levels[level];
        self.levels.truncate(level);
        while self.trail.len() > start {
            let lit = self.trail.pop().expect("trail entry");
            let slot = self.slot[lit.unsigned_abs() as usize] as usize;
            self.values[lit.unsigned_abs() as usize] = 0;
            self.reasons.remove(&lit);
            self.unfalsified(-lit, slot);
        }
    }

    /// `lit` became false: what it founded loses that support.
    fn falsified(&mut self, lit: Lit, slot: usize) {
        let mut lost = std::mem::take(&mut self.scratch);
        for k in 0..self.observed[slot].nodes.len() {
            let n = self.observed[slot].nodes[k];
            // A founded node was usable (its literal was not false before).
            if self.nodes[n as usize].lit == lit && self.nodes[n as usize].sourced {
                lost.push(n << 1 | FALSIFIED);
            }
        }
        for k in 0..self.observed[slot].readers.len() {
            let n = self.observed[slot].readers[k];
            let node = &self.nodes[n as usize];
            if node.sourced && node.source == Some(Child::Lit(lit)) && !self.resource_below(n) {
                self.unsource(n, &mut lost);
            }
        }
        self.lose_support(&mut lost);
        self.scratch = lost;
    }

    /// `lit` is no longer false: nodes on it may be usable again, readers may take it as
    /// their source.
    fn unfalsified(&mut self, lit: Lit, slot: usize) {
        let mut gained = std::mem::take(&mut self.scratch);
        for k in 0..self.observed[slot].nodes.len() {
            let n = self.observed[slot].nodes[k];
            if self.nodes[n as usize].lit != lit {
                continue;
            }
            if self.nodes[n as usize].sourced {
                gained.push(n << 1 | UNFALSIFIED);
            } else {
                self.enqueue(n);
            }
        }
        for k in 0..self.observed[slot].readers.len() {
            let n = self.observed[slot].readers[k];
            if self.nodes[n as usize].sourced {
                continue;
            }
            // A reader may read the variable with the other sign only.
            if self.nodes[n as usize].children.contains(&Child::Lit(lit)) {
                self.found(n, Some(Child::Lit(lit)), &mut gained);
            }
        }
        self.gain_support(&mut gained);
        self.scratch = gained;
    }

    /// `n` loses its source; that is an event for its parents.
    fn unsource(&mut self, n: u32, lost: &mut Vec<u32>) {
        let node = &mut self.nodes[n as usize];
        node.sourced = false;
        node.source = None;
        self.enqueue(n);
        lost.push(n << 1 | UNSOURCED);
    }

    /// Node `n` is founded, an OR node through `child` (AND nodes pass `None`, and have all
    /// their node children founded); that is an event for its parents.
    fn found(&mut self, n: u32, child: Option<Child>, gained: &mut Vec<u32>) {
        let level = match child {
            Some(c) => self.child_level(c) + 1,
            None => self.highest_child_level(n) + 1,
        };
        let node = &mut self.nodes[n as usize];
        node.sourced = true;
        node.source = child;
        node.level = level;
        gained.push(n << 1 | SOURCED);
    }

    /// The level of a founded child (a literal: 0).
    fn child_level(&self, c: Child) -> u32 {
        match c {
            Child::Lit(_) => 0,
            Child::Node(m) => self.nodes[m as usize].level,
        }
    }

    /// The highest level among the node children of AND node `n` (all founded).
    fn highest_child_level(&self, n: u32) -> u32 {
        self.nodes[n as usize]
            .children
            .iter()
            .map(|&c| self.child_level(c))
            .max()
            .unwrap_or(0)
    }

    /// OR node `n` lost its source: takes a usable child of a lower level instead, if it has
    /// one, and says whether it did. Its own level stays, so its parents see no change.
    fn resource_below(&mut self, n: u32) -> bool {
        let level = self.nodes[n as usize].level;
        let found = self.nodes[n as usize]
            .children
            .iter()
            .copied()
            .find(|&c| match c {
                Child::Lit(l) => !self.is_false(l),
                Child::Node(m) => self.usable(m) && self.nodes[m as usize].level < level,
            });
        if let Some(c) = found {
            self.nodes[n as usize].source = Some(c);
        }
        found.is_some()
    }

    /// Events of `lost` (a node made false, or one that lost its source): OR parents lose a
    /// source that is no longer usable; AND parents count children without a source and
    /// lose theirs with the first. A false child does not unfound an AND node: unit
    /// propagation makes the AND node false too, which takes it from its OR parents.
    fn lose_support(&mut self, lost: &mut Vec<u32>) {
        while let Some(event) = lost.pop() {
            let n = event >> 1;
            let unsourced = event & 1 == UNSOURCED;
            for k in 0..self.parents_for(n, unsourced) {
                let p = self.nodes[n as usize].parents[k];
                let parent = &mut self.nodes[p as usize];
                if parent.conjunctive {
                    if unsourced {
                        parent.unusable_children += 1;
                        if parent.sourced {
                            self.unsource(p, lost);
                        }
                    }
                } else if parent.sourced
                    && parent.source == Some(Child::Node(n))
                    && !self.resource_below(p)
                {
                    self.unsource(p, lost);
                }
            }
        }
    }

    /// Events of `gained` (a node that found a source, or a founded one no longer false):
    /// AND parents count it, OR parents without a source take it if it is usable.
    fn gain_support(&mut self, gained: &mut Vec<u32>) {
        // First in, first out: parents are founded through the lowest levels found so far.
        let mut next = 0;
        while next < gained.len() {
            let event = gained[next];
            next += 1;
            let n = event >> 1;
            let sourced = event & 1 == SOURCED;
            let usable = !self.is_false(self.nodes[n as usize].lit);
            for k in 0..self.parents_for(n, sourced) {
                let p = self.nodes[n as usize].parents[k];
                let parent = &mut self.nodes[p as usize];
                if parent.conjunctive {
                    if sourced {
                        parent.unusable_children -= 1;
                        if parent.unusable_children == 0 && !parent.sourced {
                            self.found(p, None, gained);
                        }
                    }
                } else if usable && !parent.sourced {
                    self.found(p, Some(Child::Node(n)), gained);
                }
            }
        }
        gained.clear();
    }

    /// A usable child of OR node `n`.
    fn usable_child(&self, n: u32) -> Option<Child> {
        self.nodes[n as usize]
            .children
            .iter()
            .copied()
            .find(|&c| match c {
                Child::Lit(l) => !self.is_false(l),
                Child::Node(m) => self.usable(m),
            })
    }

    /// Unfounded nodes not made false yet go back to `todo` (the assignment that made them
    /// unfounded is being undone, or a conflict ends this propagation).
    fn drop_pending(&mut self) {
        while let Some((n, _)) = self.pending.pop() {
            self.enqueue(n);
        }
    }

    /// The next literal to propagate (0: none). Looks for a new source for every node that
    /// lost its own; the nodes left without one, and not false, are unfounded.
    pub fn propagate(&mut self) -> Lit {
        loop {
            if !self.clauses.is_empty() {
                return 0;
            }
            if let Some((n, reason)) = self.pending.pop() {
                let lit = -self.nodes[n as usize].lit;
                match self.value(lit) {
                    1 => continue,
                    -1 => {
                        // Its node became true meanwhile: the loop nogood is a conflict.
                        self.clauses.push_back(reason_clause(lit, &reason));
                        self.enqueue(n);
                        self.drop_pending();
                        return 0;
                    }
                    _ => {
                        self.stats.propagated += 1;
                        self.reasons.insert(lit, reason);
                        return lit;
                    }
                }
            }
            if self.todo.is_empty() {
                return 0;
            }
            let unfounded = self.resource();
            if unfounded.is_empty() {
                return 0;
            }
            let parts = self.unfounded_parts(&unfounded);
            self.stats.unfounded_sets += parts.len() as u64;
            // `pending` is a stack: the first part is made false first.
            for (members, reason) in parts.into_iter().rev() {
                for n in members {
                    self.pending.push((n, reason.clone()));
                }
            }
        }
    }

    /// Finds sources for the nodes in `todo`; returns those left unfounded and not false.
    fn resource(&mut self) -> Vec<u32> {
        let todo = std::mem::take(&mut self.todo);
        let mut failed = Vec::new();
        for &n in &todo {
            self.nodes[n as usize].queued = false;
        }
        // Every node founded here is an event; their parents are founded in one pass after.
        let mut gained = std::mem::take(&mut self.scratch);
        for &n in &todo {
            let node = &self.nodes[n as usize];
            if node.sourced || self.is_false(node.lit) {
                continue;
            }
            // An AND node is founded by all its children (no one child).
            let child = if node.conjunctive {
                (node.unusable_children == 0).then_some(None)
            } else {
                self.usable_child(n).map(Some)
            };
            match child {
                Some(c) => self.found(n, c, &mut gained),
                None => failed.push(n),
            }
        }
        self.gain_support(&mut gained);
        self.scratch = gained;
        failed.retain(|&n| {
            !self.nodes[n as usize].sourced && !self.is_false(self.nodes[n as usize].lit)
        });
        failed
    }

    /// Splits the unfounded set `set` into its strongly connected parts (over children in
    /// the set), those that nothing else in the set founds first, each with its OR nodes (the
    /// ones to make false) and its external bodies: the literals that cut it off from outside
    /// support. Each such literal is false, or an OR node of a part listed earlier (made false
    /// before this part's nodes are). AND nodes are not made false here: each has a child in
    /// the set, so unit propagation on the completion falsifies it once that child is; one
    /// read as an external body stands for a child of its that is false or made false
    /// earlier. Parts without OR nodes are left out. Smaller parts give shorter reasons than
    /// the set as a whole.
    fn unfounded_parts(&mut self, set: &[u32]) -> Vec<(Vec<u32>, Rc<[Lit]>)> {
        for (k, &n) in set.iter().enumerate() {
            self.position[n as usize] = k as u32;
        }
        // Sinks first: a part's children in the set lie in its own or an earlier part.
        let components = self.components(set);
        let mut parts = Vec::new();
        let mut bodies = Vec::new();
        for component in components {
            if component
                .iter()
                .all(|&n| self.nodes[n as usize].conjunctive)
            {
                continue;
            }
            // The part is marked by one of its nodes.
            let stamp = component[0];
            for &n in &component {
                self.part_of[n as usize] = stamp;
            }
            bodies.clear();
            let mut members = Vec::new();
            for &n in &component {
                let node = &self.nodes[n as usize];
                if node.conjunctive {
                    continue;
                }
                members.push(n);
                for &c in &node.children {
                    match c {
                        Child::Node(m) if self.part_of[m as usize] == stamp => {}
                        Child::Node(m) => bodies.push(self.external_lit(m)),
                        Child::Lit(l) => bodies.push(l),
                    }
                }
            }
            for &n in &component {
                self.part_of[n as usize] = NONE;
            }
            bodies.sort_unstable();
            bodies.dedup();
            parts.push((members, Rc::from(bodies.as_slice())));
        }
        for &n in set {
            self.position[n as usize] = NONE;
        }
        parts
    }

    /// The literal that stands for node `m`, outside the part being built, in its external
    /// bodies: its own (false, or an OR node of an earlier part), or for an AND node of the
    /// unfounded set (made false only by unit propagation) a child that is false or an OR
    /// node of the set.
    fn external_lit(&self, m: u32) -> Lit {
        let mut m = m;
        for _ in 0..self.nodes.len() {
            let node = &self.nodes[m as usize];
            if !node.conjunctive || self.position[m as usize] == NONE {
                return node.lit;
            }
            let mut next = None;
            for &c in &node.children {
                match c {
                    Child::Lit(l) if self.is_false(l) => return l,
                    Child::Lit(_) => {}
                    Child::Node(k) if self.position[k as usize] != NONE => {
                        if !self.nodes[k as usize].conjunctive {
                            return self.nodes[k as usize].lit;
                        }
                        next.get_or_insert(k);
                    }
                    Child::Node(k) if self.is_false(self.nodes[k as usize].lit) => {
                        return self.nodes[k as usize].lit;
                    }
                    Child::Node(_) => {}
                }
            }
            match next {
                Some(k) => m = k,
                None => break,
            }
        }
        self.nodes[m as usize].lit
    }

    /// The strongly connected components of the nodes of `set` (whose positions are in
    /// `position`) over their children in the set, sinks first (Tarjan's algorithm, without
    /// recursion).
    fn components(&mut self, set: &[u32]) -> Vec<Vec<u32>> {
        let len = set.len();
        let mut index = vec![NONE; len];
        let mut low = vec![0u32; len];
        let mut on_stack = vec![false; len];
        let mut stack: Vec<u32> = Vec::new();
        // (position, next child to look at)
        let mut calls: Vec<(u32, usize)> = Vec::new();
        let mut out = Vec::new();
        let mut counter = 0u32;
        for root in 0..len as u32 {
            if index[root as usize] != NONE {
                continue;
            }
            calls.push((root, 0));
            index[root as usize] = counter;
            low[root as usize] = counter;
            counter += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&(v, start)) = calls.last() {
                let children = &self.nodes[set[v as usize] as usize].children;
                let mut next = start;
                let mut descend = None;
                while next < children.len() {
                    let c = children[next];
                    next += 1;
                    let Child::Node(m) = c else { continue };
                    let w = self.position[m as usize];
                    if w == NONE {
                        continue;
                    }
                    if index[w as usize] == NONE {
                        descend = Some(w);
                        break;
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                }
                if let Some(w) = descend {
                    calls.last_mut().expect("call").1 = next;
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut component = Vec::new();
                    loop {
                        let w = stack.pop().expect("Tarjan stack");
                        on_stack[w as usize] = false;
                        component.push(set[w as usize]);
                        if w == v {
                            break;
                        }
                    }
                    out.push(component);
                }
            }
        }
        out
    }

    /// The next literal of the reason of `propagated` (0 ends it).
    pub fn next_reason_lit(&mut self, propagated: Lit) -> Lit {
        if self
            .reason_out
            .as_ref()
            .is_none_or(|(l, _, _)| *l != propagated)
        {
            let reason = self
                .reasons
                .get(&propagated)
                .cloned()
                .unwrap_or_else(|| Rc::from(Vec::new()));
            self.reason_out = Some((propagated, reason, 0));
            return propagated;
        }
        let (_, reason, pos) = self.reason_out.as_mut().expect("reason being given");
        match reason.get(*pos) {
            Some(&l) => {
                *pos += 1;
                l
            }
            None => {
                self.reason_out = None;
                0
            }
        }
    }

    /// Whether a clause is waiting to be added; it becomes the one handed over.
    pub fn has_clause(&mut self) -> bool {
        self.clause_out = self.clauses.pop_front().map(|c| (c, 0));
        self.clause_out.is_some()
    }

    /// The next literal of the clause being handed over (0 ends it).
    pub fn next_clause_lit(&mut self) -> Lit {
        let Some((clause, pos)) = &mut self.clause_out else {
            return 0;
        };
        match clause.get(*pos) {
            Some(&l) => {
                *pos += 1;
                l
            }
            None => {
                self.clause_out = None;
                0
            }
        }
    }

    /// Checks a complete assignment from scratch: every true node must be founded. Returns
    /// false, with loop nogoods to add, when some are not.
    pub fn check_model(&mut self, model: &[Lit]) -> bool {
        if self.sources_found_model(model) {
            return true;
        }
        let mut value = std::mem::take(&mut self.model_value);
        value.clear();
        let top = model.iter().map(|l| l.unsigned_abs()).max().unwrap_or(0);
        value.resize(top as usize + 1, 0);
        for &l in model {
            value[l.unsigned_abs() as usize] = if l > 0 { 1 } else { -1 };
        }
        let truth = |l: Lit| -> bool {
            let v = value.get(l.unsigned_abs() as usize).copied().unwrap_or(0) > 0;
            if l < 0 {
                !v
            } else {
                v
            }
        };
        let founded = self.founded_from_scratch(&truth);
        let unfounded: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&n| !founded[n as usize] && truth(self.nodes[n as usize].lit))
            .collect();
        self.model_value = value;
        if unfounded.is_empty() {
            return true;
        }
        self.stats.late_sets += 1;
        let set: std::collections::HashSet<u32> = unfounded.iter().copied().collect();
        let mut bodies = Vec::new();
        for &n in &unfounded {
            let node = &self.nodes[n as usize];
            if node.conjunctive {
                continue;
            }
            for &c in &node.children {
                match c {
                    Child::Node(m) if set.contains(&m) => {}
                    Child::Node(m) => bodies.push(self.nodes[m as usize].lit),
                    Child::Lit(l) => bodies.push(l),
                }
            }
        }
        bodies.sort_unstable();
        bodies.dedup();
        for &n in &unfounded {
            self.clauses
                .push_back(reason_clause(-self.nodes[n as usize].lit, &bodies));
        }
        false
    }

    /// Whether the sources kept during the search found every true node of `model` already:
    /// nothing is left to re-source, every observed value is the model's, and every true node
    /// has a source (sources point down in level to literals that are not false, so they are
    /// a derivation). Most models pass this, without the check from scratch.
    fn sources_found_model(&self, model: &[Lit]) -> bool {
        if !self.todo.is_empty() || !self.pending.is_empty() {
            return false;
        }
        let agrees = model.iter().all(|&l| {
            let v = self.value(l);
            v > 0
                || self
                    .slot
                    .get(l.unsigned_abs() as usize)
                    .is_none_or(|&s| s == NONE)
        });
        agrees
            && self
                .nodes
                .iter()
                .all(|n| n.sourced || self.value(n.lit) < 0)
    }

    /// Which nodes a least fixpoint founds under the total assignment `truth`.
    fn founded_from_scratch(&self, truth: &dyn Fn(Lit) -> bool) -> Vec<bool> {
        let mut founded = vec![false; self.nodes.len()];
        let mut missing: Vec<u32> = self
            .nodes
            .iter()
            .map(|n| {
                n.children
                    .iter()
                    .filter(|c| matches!(c, Child::Node(_)))
                    .count() as u32
            })
            .collect();
        let mut work: Vec<u32> = Vec::new();
        for (n, node) in self.nodes.iter().enumerate() {
            if !truth(node.lit) {
                continue;
            }
            let base = if node.conjunctive {
                missing[n] == 0
            } else {
                node.children
                    .iter()
                    .any(|&c| matches!(c, Child::Lit(l) if truth(l)))
            };
            if base {
                founded[n] = true;
                work.push(n as u32);
            }
        }
        while let Some(n) = work.pop() {
            for &p in &self.nodes[n as usize].parents {
                let parent = &self.nodes[p as usize];
                if founded[p as usize] || !truth(parent.lit) {
                    continue;
                }
                if parent.conjunctive {
                    missing[p as usize] -= 1;
                    if missing[p as usize] > 0 {
                        continue;
                    }
                }
                founded[p as usize] = true;
                work.push(p);
            }
        }
        founded
    }
}

/// The clause `lit ∨ bodies` (a loop nogood, `lit` the negation of an unfounded node).
fn reason_clause(lit: Lit, bodies: &[Lit]) -> Vec<Lit> {
    let mut clause = Vec::with_capacity(bodies.len() + 1);
    clause.push(lit);
    clause.extend_from_slice(bodies);
    clause
}

/// Which nodes of `graph` lie on a cycle of node-to-node edges.
fn cyclic_nodes(graph: &DefinitionGraph) -> Vec<bool> {
    let succ: Vec<Vec<usize>> = graph
        .nodes
        .iter()
        .map(|node| {
            node.children
                .iter()
                .filter_map(|&c| match c {
                    GraphChild::Node(m) => Some(m),
                    GraphChild::Lit(_) => None,
                })
                .collect()
        })
        .collect();
    crate::graph::on_cycle(&succ)
}

#[cfg(test)]
mod tests;
