//! Rebuilding BDDs as IDP3's `FOBDDVisitor::change` does (kernel, then true branch, then false
//! branch, put together with `ite`): `BumpIndices` (a variable becomes index 0, the other
//! indices move up by one), `SubstituteIndex` (an index becomes a variable, the indices above it
//! move down) and `Copy` into another manager.

use super::{BddId, BddSort, KernelId, KernelKind, Manager, TermId, TermKind, FALSE, TRUE};

/// What a rebuild changes in the terms.
enum Change {
    /// IDP3's `BumpIndices`: `var` becomes the index `depth`.
    Bump { var: TermId, depth: u32 },
    /// IDP3's `SubstituteIndex`: the index `index` of `sort` becomes `var`.
    Subst {
        sort: BddSort,
        index: u32,
        var: TermId,
    },
}

impl Change {
    fn enter(&mut self) {
        match self {
            Change::Bump { depth, .. } => *depth += 1,
            Change::Subst { index, .. } => *index += 1,
        }
    }

    fn leave(&mut self) {
        match self {
            Change::Bump { depth, .. } => *depth -= 1,
            Change::Subst { index, .. } => *index -= 1,
        }
    }
}

impl Manager {
    /// `bdd` with `var` as index 0 and every free index one higher.
    pub(super) fn bump(&mut self, var: TermId, bdd: BddId) -> BddId {
        self.change_bdd(bdd, &mut Change::Bump { var, depth: 0 })
    }

    /// `bdd` with index 0 of `sort` replaced by `var` and every higher index one lower.
    pub(super) fn substitute_index(&mut self, sort: BddSort, var: TermId, bdd: BddId) -> BddId {
        self.change_bdd(
            bdd,
            &mut Change::Subst {
                sort,
                index: 0,
                var,
            },
        )
    }

    fn change_bdd(&mut self, b: BddId, c: &mut Change) -> BddId {
        if b == TRUE || b == FALSE {
            return b;
        }
        let n = self.node(b);
        let k = self.change_kernel(n.kernel, c);
        let t = self.change_bdd(n.on_true, c);
        let f = self.change_bdd(n.on_false, c);
        self.ite(k, t, f)
    }

    fn change_kernel(&mut self, k: KernelId, c: &mut Change) -> KernelId {
        match self.kernel(k).clone() {
            KernelKind::Atom { sym, args } => {
                let args = args.iter().map(|&a| self.change_term(a, c)).collect();
                self.atom(sym, args)
            }
            KernelKind::Quant { sort, bdd } => {
                c.enter();
                let inner = self.change_bdd(bdd, c);
                c.leave();
                self.quant_kernel(sort, inner)
            }
            KernelKind::True | KernelKind::False => k,
        }
    }

    fn change_term(&mut self, t: TermId, c: &Change) -> TermId {
        match (self.term(t).clone(), c) {
            (TermKind::Var { sort, .. }, Change::Bump { var, depth }) if t == *var => {
                self.index(sort, *depth)
            }
            (TermKind::Index { sort, index }, Change::Bump { depth, .. }) if *depth <= index => {
                self.index(sort, index + 1)
            }
            (
                TermKind::Index { sort, index },
                Change::Subst {
                    sort: s,
                    index: i,
                    var,
                },
            ) => {
                if sort == *s && index == *i {
                    *var
                } else if index > *i {
                    self.index(sort, index - 1)
                } else {
                    t
                }
            }
            (TermKind::Func { sym, args }, _) => {
                let args = args.iter().map(|&a| self.change_term(a, c)).collect();
                self.func(sym, args)
            }
            _ => t,
        }
    }

    /// IDP3's `Copy::copyTryMaintainOrder`: `bdd` of `src` made in this manager bottom-up (false
    /// branch, true branch, kernel), each kernel moved above its branches.
    pub(super) fn copy_keep_order(&mut self, src: &Manager, b: BddId) -> BddId {
        if b == TRUE || b == FALSE {
            return b;
        }
        let n = src.node(b);
        let f = self.copy_keep_order(src, n.on_false);
        let t = self.copy_keep_order(src, n.on_true);
        let k = self.copy_kernel(src, n.kernel);
        self.ite_keep_order(k, t, f)
    }

    /// IDP3's `Copy::copy`.
    fn copy_bdd(&mut self, src: &Manager, b: BddId) -> BddId {
        if b == TRUE || b == FALSE {
            return b;
        }
        let n = src.node(b);
        let f = self.copy_bdd(src, n.on_false);
        let t = self.copy_bdd(src, n.on_true);
        let k = self.copy_kernel(src, n.kernel);
        self.ite(k, t, f)
    }

    fn copy_kernel(&mut self, src: &Manager, k: KernelId) -> KernelId {
        match src.kernel(k) {
            KernelKind::Atom { sym, args } => {
                let args = args.iter().map(|&a| self.copy_term(src, a)).collect();
                self.atom(sym.clone(), args)
            }
            KernelKind::Quant { sort, bdd } => {
                let inner = self.copy_bdd(src, *bdd);
                self.quant_kernel(sort.clone(), inner)
            }
            KernelKind::True => super::TRUE_KERNEL,
            KernelKind::False => super::FALSE_KERNEL,
        }
    }

    fn copy_term(&mut self, src: &Manager, t: TermId) -> TermId {
        match src.term(t) {
            TermKind::Func { sym, args } => {
                let args = args.iter().map(|&a| self.copy_term(src, a)).collect();
                self.func(sym.clone(), args)
            }
            other => self.intern(other.clone()),
        }
    }
}
