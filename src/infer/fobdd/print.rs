//! Printing a BDD as IDP3's `FOBDD::put` does: the kernel, then `FALSE BRANCH:` and `TRUE
//! BRANCH:` one tab (four spaces) deeper, each branch a further tab deeper. A quantified kernel
//! prints as `EXISTS(varN[T]) { ... }` around its BDD with index 0 replaced by a fresh variable,
//! rebuilt first in a new manager that keeps the order (IDP3's `FOBDDQuantKernel::put`).

use super::{BddId, BddSort, KernelId, KernelKind, Manager, TermId, TermKind, FALSE, TRUE};

/// The text printed so far, IDP3's tab stack and the number of the next fresh variable.
pub(super) struct Printer {
    pub out: String,
    tabs: Vec<usize>,
    next_var: u32,
}

impl Printer {
    pub fn new() -> Printer {
        Printer {
            out: String::new(),
            tabs: vec![0],
            next_var: 0,
        }
    }

    /// IDP3's `nt()`: a newline and the current indentation.
    fn newline(&mut self) {
        let depth = self.tabs.last().copied().unwrap_or(0);
        self.out.push('\n');
        self.out.push_str(&"    ".repeat(depth));
    }

    fn push_tab(&mut self) {
        let depth = self.tabs.last().copied().unwrap_or(0);
        self.tabs.push(depth + 1);
    }

    fn pop_tab(&mut self) {
        if self.tabs.len() > 1 {
            self.tabs.pop();
        }
    }

    fn fresh_var(&mut self) -> String {
        let n = self.next_var;
        self.next_var += 1;
        format!("var{n}")
    }
}

impl Manager {
    pub(super) fn put_bdd(&self, b: BddId, p: &mut Printer) {
        if b == TRUE {
            p.out.push_str("true");
            return;
        }
        if b == FALSE {
            p.out.push_str("false");
            return;
        }
        let n = self.node(b);
        self.put_kernel(n.kernel, p);
        p.push_tab();
        p.newline();
        p.out.push_str("FALSE BRANCH:");
        p.push_tab();
        p.newline();
        self.put_bdd(n.on_false, p);
        p.pop_tab();
        p.newline();
        p.out.push_str("TRUE BRANCH:");
        p.push_tab();
        p.newline();
        self.put_bdd(n.on_true, p);
        p.pop_tab();
        p.pop_tab();
    }

    fn put_kernel(&self, k: KernelId, p: &mut Printer) {
        match self.kernel(k) {
            KernelKind::True => p.out.push_str("true"),
            KernelKind::False => p.out.push_str("false"),
            KernelKind::Atom { sym, args } => {
                p.out.push_str(&sym.name);
                self.put_args(args, p);
            }
            KernelKind::Quant { sort, bdd } => self.put_quant(sort, *bdd, p),
        }
    }

    fn put_quant(&self, sort: &BddSort, bdd: BddId, p: &mut Printer) {
        let name = p.fresh_var();
        p.out.push_str(&format!("EXISTS({name}[{}]) {{", sort.name));
        p.push_tab();
        let mut m = Manager::new(false);
        let copied = m.copy_keep_order(self, bdd);
        let var = m.variable(u64::MAX, name.into(), sort.clone());
        let open = m.substitute_index(sort.clone(), var, copied);
        p.newline();
        m.put_bdd(open, p);
        p.pop_tab();
        p.newline();
        p.out.push('}');
    }

    fn put_args(&self, args: &[TermId], p: &mut Printer) {
        if args.is_empty() {
            return;
        }
        p.out.push('(');
        for (i, &a) in args.iter().enumerate() {
            if i > 0 {
                p.out.push(',');
            }
            self.put_term(a, p);
        }
        p.out.push(')');
    }

    fn put_term(&self, t: TermId, p: &mut Printer) {
        match self.term(t) {
            TermKind::Var { name, sort, .. } => p.out.push_str(&format!("{name}[{}]", sort.name)),
            TermKind::Index { sort, index } => p.out.push_str(&format!("<{index}>[{}]", sort.name)),
            TermKind::Domain { text, sort } => p.out.push_str(&format!("{text}[{}]", sort.name)),
            TermKind::Func { sym, args } => {
                p.out.push_str(&sym.name);
                self.put_args(args, p);
            }
        }
    }
}
