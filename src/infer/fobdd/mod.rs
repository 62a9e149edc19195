//! First-order BDDs as IDP3's FOBDD package builds them (`src/fobdds/FoBddManager.cpp`), for
//! `printasbdd`. A BDD node tests a *kernel*: an atom (`P(x,<0>[T])`) or a quantified BDD
//! (`? <0> : ...`). Quantified variables are De Bruijn indices, one per enclosing quantifier,
//! annotated with their sort. Kernels are ordered as IDP3 orders them: kernels without a free
//! index 0 (standard) above those with one (De Bruijn), and within a category the kernel made
//! later above the kernel made earlier. Terms are numbered in the order they are made, which
//! decides the argument order of comparison atoms (`=`, `<`, `>`), as in IDP3.
//!
//! Of IDP3's arithmetic rewriting (moving terms to the left of a comparison, normalising sums
//! and products, solving for a variable) only the swap of comparison arguments is done here.

mod build;
mod print;
mod visit;

pub use build::print_theory;

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

/// A sort as the BDDs need it: identity, printed name and whether it is built in (`int`...).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BddSort {
    pub key: u32,
    pub name: Rc<str>,
    pub builtin: bool,
}

/// The comparison an atom is, if it is one (IDP3's `=/2`, `</2`, `>/2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    Eq,
    Lt,
    Gt,
}

/// A predicate or function symbol: `key` identifies it, `name` is printed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sym {
    pub key: Rc<str>,
    pub name: Rc<str>,
    pub comparison: Option<Comparison>,
    /// For a function: partial; for a predicate: unused.
    pub partial: bool,
    /// For a function: its result sort.
    pub result: Option<BddSort>,
}

pub type TermId = usize;
pub type KernelId = usize;
pub type BddId = usize;

/// The BDD `true` and `false`.
pub const TRUE: BddId = 0;
pub const FALSE: BddId = 1;
const TRUE_KERNEL: KernelId = 0;
const FALSE_KERNEL: KernelId = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermKind {
    /// A free variable: `key` identifies it, `name` is printed.
    Var {
        key: u64,
        name: Rc<str>,
        sort: BddSort,
    },
    Index {
        sort: BddSort,
        index: u32,
    },
    Domain {
        text: Rc<str>,
        sort: BddSort,
    },
    Func {
        sym: Sym,
        args: Vec<TermId>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Standard,
    DeBruijn,
    TrueFalse,
}

#[derive(Clone, Debug)]
pub enum KernelKind {
    True,
    False,
    Atom { sym: Sym, args: Vec<TermId> },
    Quant { sort: BddSort, bdd: BddId },
}

#[derive(Clone, Debug)]
pub struct Kernel {
    pub kind: KernelKind,
    category: Category,
    number: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub kernel: KernelId,
    pub on_true: BddId,
    pub on_false: BddId,
}

/// The tables of one FOBDD manager (IDP3's `FOBDDManager`).
pub struct Manager {
    rewrite_arithmetic: bool,
    terms: Vec<TermKind>,
    term_table: HashMap<TermKind, TermId>,
    kernels: Vec<Kernel>,
    atom_table: HashMap<(Rc<str>, Vec<TermId>), KernelId>,
    quant_table: HashMap<(BddSort, BddId), KernelId>,
    order: HashMap<(Category, u32), KernelId>,
    next_order: HashMap<Category, u32>,
    nodes: Vec<Node>,
    bdd_table: HashMap<(KernelId, BddId, BddId), BddId>,
    negations: HashMap<BddId, BddId>,
    conjunctions: HashMap<(BddId, BddId), BddId>,
    disjunctions: HashMap<(BddId, BddId), BddId>,
    ites: HashMap<(KernelId, BddId, BddId), BddId>,
    quantified: HashMap<(BddSort, BddId), BddId>,
}

impl Manager {
    /// A manager with only `true` and `false` (IDP3's `createManager`).
    pub fn new(rewrite_arithmetic: bool) -> Manager {
        let mut m = Manager {
            rewrite_arithmetic,
            terms: Vec::new(),
            term_table: HashMap::default(),
            kernels: Vec::new(),
            atom_table: HashMap::default(),
            quant_table: HashMap::default(),
            order: HashMap::default(),
            next_order: HashMap::default(),
            nodes: Vec::new(),
            bdd_table: HashMap::default(),
            negations: HashMap::default(),
            conjunctions: HashMap::default(),
            disjunctions: HashMap::default(),
            ites: HashMap::default(),
            quantified: HashMap::default(),
        };
        for kind in [KernelKind::True, KernelKind::False] {
            let k = m.new_kernel(kind, Category::TrueFalse);
            m.nodes.push(Node {
                kernel: k,
                on_true: TRUE,
                on_false: FALSE,
            });
        }
        m
    }

    pub fn term(&self, t: TermId) -> &TermKind {
        &self.terms[t]
    }

    pub fn kernel(&self, k: KernelId) -> &KernelKind {
        &self.kernels[k].kind
    }

    pub fn node(&self, b: BddId) -> Node {
        self.nodes[b]
    }

    fn new_kernel(&mut self, kind: KernelKind, category: Category) -> KernelId {
        let next = self.next_order.entry(category).or_insert(0);
        let number = *next;
        *next += 1;
        let id = self.kernels.len();
        self.kernels.push(Kernel {
            kind,
            category,
            number,
        });
        self.order.insert((category, number), id);
        id
    }

    /// IDP3's kernel order: `a` is nearer the root than `b`.
    fn before(&self, a: KernelId, b: KernelId) -> bool {
        let (ka, kb) = (&self.kernels[a], &self.kernels[b]);
        if ka.category != kb.category {
            return ka.category < kb.category;
        }
        ka.number > kb.number
    }

    // ----- terms -----

    fn intern(&mut self, t: TermKind) -> TermId {
        if let Some(&id) = self.term_table.get(&t) {
            return id;
        }
        let id = self.terms.len();
        self.terms.push(t.clone());
        self.term_table.insert(t, id);
        id
    }

    pub fn variable(&mut self, key: u64, name: Rc<str>, sort: BddSort) -> TermId {
        self.intern(TermKind::Var { key, name, sort })
    }

    pub fn index(&mut self, sort: BddSort, index: u32) -> TermId {
        self.intern(TermKind::Index { sort, index })
    }

    pub fn domain(&mut self, text: Rc<str>, sort: BddSort) -> TermId {
        self.intern(TermKind::Domain { text, sort })
    }

    pub fn func(&mut self, sym: Sym, args: Vec<TermId>) -> TermId {
        self.intern(TermKind::Func { sym, args })
    }

    pub fn term_sort(&self, t: TermId) -> Option<&BddSort> {
        match &self.terms[t] {
            TermKind::Var { sort, .. }
            | TermKind::Index { sort, .. }
            | TermKind::Domain { sort, .. } => Some(sort),
            TermKind::Func { sym, .. } => sym.result.as_ref(),
        }
    }

    pub fn term_has_index(&self, t: TermId, index: u32) -> bool {
        match &self.terms[t] {
            TermKind::Index { index: i, .. } => *i == index,
            TermKind::Func { args, .. } => args.iter().any(|&a| self.term_has_index(a, index)),
            _ => false,
        }
    }

    fn term_contains(&self, t: TermId, sub: TermId) -> bool {
        t == sub
            || matches!(&self.terms[t], TermKind::Func { args, .. }
                if args.iter().any(|&a| self.term_contains(a, sub)))
    }

    fn term_partial(&self, t: TermId) -> bool {
        match &self.terms[t] {
            TermKind::Func { sym, args } => {
                sym.partial || args.iter().any(|&a| self.term_partial(a))
            }
            _ => false,
        }
    }

    /// IDP3's `Multiplication::before`: domain terms first, then the order of making.
    fn term_before(&self, a: TermId, b: TermId) -> bool {
        let dom = |t| matches!(self.terms[t], TermKind::Domain { .. });
        match (dom(a), dom(b)) {
            (true, false) => true,
            (false, true) => false,
            _ => a < b,
        }
    }

    // ----- kernels -----

    /// IDP3's `getAtomKernel`, with its simplification `t = t` and its swap of comparison
    /// arguments (when arithmetic is rewritten).
    pub fn atom(&mut self, sym: Sym, args: Vec<TermId>) -> KernelId {
        if sym.comparison == Some(Comparison::Eq) && args.len() == 2 && args[0] == args[1] {
            return TRUE_KERNEL;
        }
        if self.rewrite_arithmetic && args.len() == 2 {
            if let Some(c) = sym.comparison {
                if self.term_before(args[0], args[1]) {
                    let flipped = match c {
                        Comparison::Eq => sym,
                        Comparison::Lt => flip(&sym, Comparison::Gt),
                        Comparison::Gt => flip(&sym, Comparison::Lt),
                    };
                    return self.atom(flipped, vec![args[1], args[0]]);
                }
            }
        }
        let key = (sym.key.clone(), args.clone());
        if let Some(&k) = self.atom_table.get(&key) {
            return k;
        }
        let category = if args.iter().any(|&a| self.term_has_index(a, 0)) {
            Category::DeBruijn
        } else {
            Category::Standard
        };
        let k = self.new_kernel(KernelKind::Atom { sym, args }, category);
        self.atom_table.insert(key, k);
        k
    }

    /// IDP3's `getQuantKernel`: `? x : true` is true, `? x : false` false, and `? y : y = t`
    /// true when `t` has only total functions and a sort within `y`'s.
    pub fn quant_kernel(&mut self, sort: BddSort, bdd: BddId) -> KernelId {
        if bdd == TRUE {
            return TRUE_KERNEL;
        }
        if bdd == FALSE {
            return FALSE_KERNEL;
        }
        if self.longest_branch(bdd) == 2 && self.solved_as_total(&sort, bdd) {
            return TRUE_KERNEL;
        }
        let key = (sort.clone(), bdd);
        if let Some(&k) = self.quant_table.get(&key) {
            return k;
        }
        let category = if self.bdd_has_index(bdd, 1) {
            Category::DeBruijn
        } else {
            Category::Standard
        };
        let k = self.new_kernel(KernelKind::Quant { sort, bdd }, category);
        self.quant_table.insert(key, k);
        k
    }

    /// Whether the one-atom BDD `bdd` is `<0> = t` (or `t = <0>`) on its true branch, with `t`
    /// free of `<0>`, of total functions and of a sort within `sort` (IDP3's `solve` for the
    /// non-arithmetic case).
    fn solved_as_total(&mut self, sort: &BddSort, bdd: BddId) -> bool {
        let node = self.nodes[bdd];
        let KernelKind::Atom { sym, args } = &self.kernels[node.kernel].kind else {
            return false;
        };
        if sym.comparison != Some(Comparison::Eq) || args.len() != 2 || !self.rewrite_arithmetic {
            return false;
        }
        let args = args.clone();
        let q = self.index(sort.clone(), 0);
        let other = if args[0] == q && !self.term_contains(args[1], q) {
            args[1]
        } else if args[1] == q && !self.term_contains(args[0], q) {
            args[0]
        } else {
            return false;
        };
        !self.term_partial(other)
            && node.on_true == TRUE
            && self.term_sort(other).map(|s| s.key) == Some(sort.key)
    }

    pub fn kernel_has_index(&self, k: KernelId, index: u32) -> bool {
        match &self.kernels[k].kind {
            KernelKind::Atom { args, .. } => args.iter().any(|&a| self.term_has_index(a, index)),
            KernelKind::Quant { bdd, .. } => self.bdd_has_index(*bdd, index + 1),
            _ => false,
        }
    }

    pub fn bdd_has_index(&self, b: BddId, index: u32) -> bool {
        if b == TRUE || b == FALSE {
            return false;
        }
        let n = self.nodes[b];
        self.kernel_has_index(n.kernel, index)
            || self.bdd_has_index(n.on_false, index)
            || self.bdd_has_index(n.on_true, index)
    }

    fn longest_branch_kernel(&self, k: KernelId) -> usize {
        match &self.kernels[k].kind {
            KernelKind::True | KernelKind::False => 0,
            KernelKind::Atom { .. } => 1,
            KernelKind::Quant { bdd, .. } => self.longest_branch(*bdd) + 1,
        }
    }

    fn longest_branch(&self, b: BddId) -> usize {
        if b == TRUE || b == FALSE {
            return 1;
        }
        let n = self.nodes[b];
        let k = self.longest_branch_kernel(n.kernel);
        (self.longest_branch(n.on_true) + k).max(self.longest_branch(n.on_false) + k)
    }

    // ----- nodes -----

    /// IDP3's `getBDD`: the node for branches already in order.
    fn get_bdd(&mut self, kernel: KernelId, on_true: BddId, on_false: BddId) -> BddId {
        if kernel == TRUE_KERNEL {
            return on_true;
        }
        if kernel == FALSE_KERNEL || on_true == on_false {
            return on_false;
        }
        if let Some(&b) = self.bdd_table.get(&(kernel, on_false, on_true)) {
            return b;
        }
        let b = self.nodes.len();
        self.nodes.push(Node {
            kernel,
            on_true,
            on_false,
        });
        self.bdd_table.insert((kernel, on_false, on_true), b);
        b
    }

    /// IDP3's `ifthenelse`: `kernel ? on_true : on_false`, put in order.
    pub fn ite(&mut self, kernel: KernelId, on_true: BddId, on_false: BddId) -> BddId {
        if let Some(&r) = self.ites.get(&(kernel, on_true, on_false)) {
            return r;
        }
        if kernel == TRUE_KERNEL {
            return on_true;
        }
        if kernel == FALSE_KERNEL {
            return on_false;
        }
        if on_true == on_false {
            return on_true;
        }
        let (t, f) = (self.nodes[on_true], self.nodes[on_false]);
        let (tk, fk) = (t.kernel, f.kernel);
        let r = if self.before(kernel, tk) {
            if self.before(kernel, fk) {
                self.get_bdd(kernel, on_true, on_false)
            } else if kernel == fk {
                self.get_bdd(kernel, on_true, f.on_false)
            } else {
                let nt = self.ite(kernel, on_true, f.on_true);
                let nf = self.ite(kernel, on_true, f.on_false);
                self.get_bdd(fk, nt, nf)
            }
        } else if kernel == tk {
            if self.before(kernel, fk) {
                self.get_bdd(kernel, t.on_true, on_false)
            } else if kernel == fk {
                self.get_bdd(kernel, t.on_true, f.on_false)
            } else {
                let nt = self.ite(kernel, on_true, f.on_true);
                let nf = self.ite(kernel, on_true, f.on_false);
                self.get_bdd(fk, nt, nf)
            }
        } else if self.before(kernel, fk) || kernel == fk || self.before(tk, fk) {
            let nt = self.ite(kernel, t.on_true, on_false);
            let nf = self.ite(kernel, t.on_false, on_false);
            self.get_bdd(tk, nt, nf)
        } else if tk == fk {
            let nt = self.ite(kernel, t.on_true, f.on_true);
            let nf = self.ite(kernel, t.on_false, f.on_false);
            self.get_bdd(tk, nt, nf)
        } else {
            let nt = self.ite(kernel, on_true, f.on_true);
            let nf = self.ite(kernel, on_true, f.on_false);
            self.get_bdd(fk, nt, nf)
        };
        self.ites.insert((kernel, on_true, on_false), r);
        r
    }

    pub fn negation(&mut self, b: BddId) -> BddId {
        if b == TRUE {
            return FALSE;
        }
        if b == FALSE {
            return TRUE;
        }
        if let Some(&r) = self.negations.get(&b) {
            return r;
        }
        let n = self.nodes[b];
        let f = self.negation(n.on_false);
        let t = self.negation(n.on_true);
        let r = self.get_bdd(n.kernel, t, f);
        self.negations.insert(b, r);
        r
    }

    pub fn conjunction(&mut self, a: BddId, b: BddId) -> BddId {
        self.apply(a, b, true)
    }

    pub fn disjunction(&mut self, a: BddId, b: BddId) -> BddId {
        self.apply(a, b, false)
    }

    /// IDP3's `conjunction` (`and`) and `disjunction`.
    fn apply(&mut self, a: BddId, b: BddId, and: bool) -> BddId {
        let (absorbing, neutral) = if and { (FALSE, TRUE) } else { (TRUE, FALSE) };
        if a == absorbing || b == absorbing {
            return absorbing;
        }
        if a == neutral {
            return b;
        }
        if b == neutral || a == b {
            return a;
        }
        let (a, b) = if b < a { (b, a) } else { (a, b) };
        let table = if and {
            &self.conjunctions
        } else {
            &self.disjunctions
        };
        if let Some(&r) = table.get(&(a, b)) {
            return r;
        }
        let (na, nb) = (self.nodes[a], self.nodes[b]);
        let r = if self.before(na.kernel, nb.kernel) {
            let f = self.apply(na.on_false, b, and);
            let t = self.apply(na.on_true, b, and);
            self.get_bdd(na.kernel, t, f)
        } else if self.before(nb.kernel, na.kernel) {
            let f = self.apply(a, nb.on_false, and);
            let t = self.apply(a, nb.on_true, and);
            self.get_bdd(nb.kernel, t, f)
        } else {
            let f = self.apply(na.on_false, nb.on_false, and);
            let t = self.apply(na.on_true, nb.on_true, and);
            self.get_bdd(na.kernel, t, f)
        };
        let table = if and {
            &mut self.conjunctions
        } else {
            &mut self.disjunctions
        };
        table.insert((a, b), r);
        r
    }

    /// IDP3's `quantify`: `? <0>[sort] : bdd`.
    fn quantify(&mut self, sort: &BddSort, b: BddId) -> BddId {
        if b == FALSE {
            return b;
        }
        if b == TRUE || !self.bdd_has_index(b, 0) {
            if sort.builtin {
                return b;
            }
            let sort_pred = Sym {
                key: format!("sort:{}", sort.key).into(),
                name: sort.name.clone(),
                comparison: None,
                partial: false,
                result: None,
            };
            let i = self.index(sort.clone(), 0);
            let atom = self.atom(sort_pred, vec![i]);
            let inner = self.get_bdd(atom, TRUE, FALSE);
            let not_empty = self.quant_kernel(sort.clone(), inner);
            return self.get_bdd(not_empty, b, FALSE);
        }
        if let Some(&r) = self.quantified.get(&(sort.clone(), b)) {
            return r;
        }
        let n = self.nodes[b];
        let r = if self.kernels[n.kernel].category == Category::Standard {
            let f = self.quantify(sort, n.on_false);
            let t = self.quantify(sort, n.on_true);
            self.ite(n.kernel, t, f)
        } else {
            let k = self.quant_kernel(sort.clone(), b);
            self.get_bdd(k, TRUE, FALSE)
        };
        self.quantified.insert((sort.clone(), b), r);
        r
    }

    /// IDP3's `existsquantify` for one variable: the variable becomes index 0.
    pub fn exists(&mut self, var: TermId, b: BddId) -> BddId {
        let Some(sort) = self.term_sort(var).cloned() else {
            return b;
        };
        let bumped = self.bump(var, b);
        self.quantify(&sort, bumped)
    }

    /// IDP3's `univquantify`: `~ ? vars : ~ bdd`, the variables in the given order.
    pub fn forall(&mut self, vars: &[TermId], b: BddId) -> BddId {
        let mut r = self.negation(b);
        for &v in vars {
            r = self.exists(v, r);
        }
        self.negation(r)
    }

    pub fn exists_all(&mut self, vars: &[TermId], b: BddId) -> BddId {
        let mut r = b;
        for &v in vars {
            r = self.exists(v, r);
        }
        r
    }

    // ----- reordering (IDP3's moveUp / moveDown) -----

    fn clear_dynamic_tables(&mut self) {
        self.negations.clear();
        self.conjunctions.clear();
        self.disjunctions.clear();
        self.ites.clear();
        self.quantified.clear();
    }

    /// Moves `kernel` one place nearer the root of every BDD.
    fn move_up(&mut self, kernel: KernelId) -> bool {
        self.clear_dynamic_tables();
        let k = &self.kernels[kernel];
        match self.order.get(&(k.category, k.number + 1)).copied() {
            Some(above) if k.category != Category::TrueFalse => self.move_down(above),
            _ => false,
        }
    }

    /// Swaps `kernel` with the kernel just below it in the order, rebuilding the nodes that
    /// test `kernel` directly above that kernel.
    fn move_down(&mut self, kernel: KernelId) -> bool {
        self.clear_dynamic_tables();
        let (cat, nr) = (self.kernels[kernel].category, self.kernels[kernel].number);
        if nr == 0 {
            return false;
        }
        let Some(&next) = self.order.get(&(cat, nr - 1)) else {
            return false;
        };
        let mut rows: Vec<((KernelId, BddId, BddId), BddId)> = self
            .bdd_table
            .iter()
            .filter(|(key, _)| key.0 == kernel)
            .map(|(k, v)| (*k, *v))
            .collect();
        rows.sort();
        let mut erase = Vec::new();
        for ((_, f, t), node) in rows {
            let (fnode, tnode) = (self.nodes[f], self.nodes[t]);
            let (swap_f, swap_t) = (fnode.kernel == next, tnode.kernel == next);
            let (new_f, new_t) = match (swap_f, swap_t) {
                (true, true) => (
                    self.get_bdd(kernel, tnode.on_false, fnode.on_false),
                    self.get_bdd(kernel, tnode.on_true, fnode.on_true),
                ),
                (true, false) => (
                    self.get_bdd(kernel, t, fnode.on_false),
                    self.get_bdd(kernel, t, fnode.on_true),
                ),
                (false, true) => (
                    self.get_bdd(kernel, tnode.on_false, f),
                    self.get_bdd(kernel, tnode.on_true, f),
                ),
                (false, false) => continue,
            };
            self.nodes[node] = Node {
                kernel: next,
                on_true: new_t,
                on_false: new_f,
            };
            self.bdd_table.insert((next, new_f, new_t), node);
            erase.push((kernel, f, t));
        }
        for key in erase {
            self.bdd_table.remove(&key);
        }
        let next_nr = self.kernels[next].number;
        self.kernels[next].number = nr;
        self.kernels[kernel].number = next_nr;
        self.order.insert((cat, nr), next);
        self.order.insert((cat, next_nr), kernel);
        true
    }

    /// IDP3's `ifthenelseTryMaintainOrder`: `ite`, then `kernel` moved up until it is above
    /// the kernels of both branches.
    fn ite_keep_order(&mut self, kernel: KernelId, on_true: BddId, on_false: BddId) -> BddId {
        let r = self.ite(kernel, on_true, on_false);
        let (tk, fk) = (self.nodes[on_true].kernel, self.nodes[on_false].kernel);
        while self.before(tk, kernel) || self.before(fk, kernel) {
            if !self.move_up(kernel) {
                break;
            }
        }
        r
    }
}

fn flip(sym: &Sym, to: Comparison) -> Sym {
    let (name, tag) = match to {
        Comparison::Lt => ("<", "lt"),
        Comparison::Gt => (">", "gt"),
        Comparison::Eq => ("=", "eq"),
    };
    let sort = sym.key.rsplit_once(':').map_or("", |(_, s)| s);
    Sym {
        key: format!("{tag}:{sort}").into(),
        name: name.into(),
        comparison: Some(to),
        partial: false,
        result: None,
    }
}
