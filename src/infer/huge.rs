//! Sorts interpreted by ranges too large to ground (`x = {-1000000000..1000000000}`), replaced
//! by small stand-in domains where that cannot change the answer.
//!
//! When a theory uses a huge sort `T` only through unary predicates over `T`, constants of
//! `T` and (dis)equality, the elements of `T` that no formula or table names are
//! interchangeable: a sentence with `q` variables over `T` can only tell apart how many
//! elements of each kind (which of the `m` unary predicates hold, which constant equals it)
//! there are, up to `q`. So `T` can be cut down to its named elements plus `(q + 1) · 2^m`
//! anonymous ones without changing which interpretations of the other symbols have models.
//! That holds only for what an output vocabulary shows, so the stand-in is used only when one
//! is given and it says nothing about `T`; otherwise the huge sort stays an error.

use rustc_hash::FxHashSet as HashSet;

use crate::ids::{SortId, Symbol, VocId};
use crate::sema::ir::{Formula, FormulaKind, Term, TermKind};
use crate::sema::{Program, Theory};
use crate::structure::{HugeRange, Structure, Table, Value};
use crate::syntax::ast::CmpOp;

/// Stand-ins larger than this are not worth it (the grounding would be large anyway).
const MAX_STAND_IN: u64 = 4096;

/// `structure` with every huge sort that can be cut down given a small stand-in domain, or
/// `None` when nothing changes.
pub fn with_stand_ins(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    output: Option<VocId>,
) -> Option<Structure> {
    let output = output?;
    let mut changed = structure.clone();
    for (&sort, range) in &structure.huge_ranges {
        if let Some(domain) = stand_in(program, theory, structure, output, sort, range) {
            changed.set_domain(sort, domain);
            changed.huge_ranges.shift_remove(&sort);
        }
    }
    (changed.huge_ranges.len() < structure.huge_ranges.len()).then_some(changed)
}

/// A model found over stand-in domains, given back projected on the output vocabulary (as
/// IDP3 projects): the stand-ins never show, and the symbols over the huge sorts, which only
/// the stand-ins interpret, are left out.
pub fn project(program: &Program, model: Structure, output: VocId) -> Structure {
    project_with(program, model, output, &HashSet::default())
}

/// `model` projected on the output vocabulary and the symbols `extra` (with their types), as
/// IDP3 shows the models of `minimize(T, S, t, Vout)`: Vout and the symbols of `t`.
pub fn project_with(
    program: &Program,
    model: Structure,
    output: VocId,
    extra: &HashSet<Symbol>,
) -> Structure {
    let voc = program.voc(output);
    let mut sorts: HashSet<SortId> = voc.sorts.iter().copied().collect();
    for &s in extra {
        match s {
            Symbol::Pred(p) => sorts.extend(program.pred(p).args.iter().copied()),
            Symbol::Func(f) => {
                let func = program.func(f);
                sorts.extend(func.args.iter().copied());
                sorts.insert(func.result);
            }
        }
    }
    let mut projected = Structure::new(model.name.clone(), output);
    for sort in model.interpreted_sorts() {
        if sorts.contains(&sort) {
            projected.copy_domain(&model, sort);
        }
    }
    for (&s, table) in &model.symbols {
        let shown = extra.contains(&s)
            || match s {
                Symbol::Pred(p) => voc.preds.contains(&p),
                Symbol::Func(f) => voc.funcs.contains(&f),
            };
        if shown {
            projected.symbols.insert(s, table.clone());
        }
    }
    projected.beyond_vocabulary = extra
        .iter()
        .copied()
        .filter(|&s| match s {
            Symbol::Pred(p) => !voc.preds.contains(&p) && program.pred(p).type_of.is_none(),
            Symbol::Func(f) => !voc.funcs.contains(&f),
        })
        .collect();
    projected.beyond_vocabulary.sort();
    projected
}

/// The stand-in domain of one huge sort, if the theory treats its elements as interchangeable.
fn stand_in(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    output: VocId,
    sort: SortId,
    range: &HugeRange,
) -> Option<Vec<Value>> {
    let mentions = |s: Symbol| symbol_sorts(program, s).contains(&sort);
    let out_voc = program.voc(output);
    let shown = out_voc
        .preds
        .iter()
        .map(|&p| Symbol::Pred(p))
        .chain(out_voc.funcs.iter().map(|&f| Symbol::Func(f)))
        .any(mentions);
    let has_subsorts = program.sorts.iter().any(|s| s.parents.contains(&sort));
    if shown || has_subsorts {
        return None;
    }
    let mut uses = Use {
        program,
        sort,
        variables: 0,
        symbols: HashSet::default(),
        named: HashSet::default(),
        ok: true,
    };
    for f in &theory.sentences {
        uses.formula(f);
    }
    for d in &theory.definitions {
        for r in &d.rules {
            uses.symbols.insert(r.head);
            uses.variables += r.vars.iter().filter(|v| v.sort == sort).count();
            r.head_args.iter().for_each(|t| uses.argument(t));
            uses.formula(&r.body);
        }
    }
    let kinds = uses.symbols.iter().filter(|&&s| mentions(s)).count();
    if !uses.ok
        || !uses
            .symbols
            .iter()
            .all(|&s| !mentions(s) || is_monadic(program, s, sort))
    {
        return None;
    }
    for &s in uses.symbols.iter().filter(|&&s| mentions(s)) {
        named_in_table(structure.table(s), &mut uses.named);
    }
    let anonymous = (uses.variables as u64 + 1).checked_mul(1u64.checked_shl(kinds as u32)?)?;
    if anonymous > MAX_STAND_IN {
        return None;
    }
    let mut domain: Vec<Value> = uses
        .named
        .iter()
        .copied()
        .filter(|&v| range.contains(v))
        .chain(range.extra.iter().copied())
        .collect();
    let mut next = range.lo;
    while (domain.len() as u64) < anonymous + uses.named.len() as u64 && next <= range.hi {
        if !uses.named.contains(&Value::Int(next)) {
            domain.push(Value::Int(next));
        }
        next += 1;
    }
    domain.sort();
    domain.dedup();
    Some(domain)
}

/// The sorts in a symbol's signature.
fn symbol_sorts(program: &Program, s: Symbol) -> Vec<SortId> {
    match s {
        Symbol::Pred(p) => program.pred(p).args.clone(),
        Symbol::Func(f) => {
            let func = program.func(f);
            func.args.iter().copied().chain([func.result]).collect()
        }
    }
}

/// A unary predicate over `sort` or a constant of `sort`.
fn is_monadic(program: &Program, s: Symbol, sort: SortId) -> bool {
    match s {
        Symbol::Pred(p) => program.pred(p).args == [sort],
        Symbol::Func(f) => {
            let func = program.func(f);
            func.args.is_empty() && func.result == sort
        }
    }
}

/// The values a structure's table lists (they are named elements).
fn named_in_table(table: Option<&Table>, named: &mut HashSet<Value>) {
    let Some(table) = table else { return };
    let listed: Vec<&Vec<Value>> = match table {
        Table::TwoValued(set) => set.iter().collect(),
        Table::ThreeValued { ct, cf } => ct.iter().chain(cf.iter()).collect(),
    };
    for tuple in listed {
        named.extend(tuple.iter().copied());
    }
}

/// What a theory does with the elements of one sort: the variables over it, the symbols it
/// reads, the values it names, and whether every use keeps elements interchangeable.
struct Use<'p> {
    program: &'p Program,
    sort: SortId,
    variables: usize,
    symbols: HashSet<Symbol>,
    named: HashSet<Value>,
    ok: bool,
}

impl Use<'_> {
    fn formula(&mut self, f: &Formula) {
        match f.kind() {
            FormulaKind::Bool(_) => {}
            FormulaKind::Pred(p, args) => self.application(Symbol::Pred(*p), args),
            FormulaKind::Cmp(op, a, b) => {
                if !matches!(op, CmpOp::Eq | CmpOp::Ne) && (self.of_sort(a) || self.of_sort(b)) {
                    self.ok = false;
                }
                self.argument(a);
                self.argument(b);
            }
            FormulaKind::Not(g) => self.formula(g),
            FormulaKind::And(fs) | FormulaKind::Or(fs) => fs.iter().for_each(|g| self.formula(g)),
            FormulaKind::Implies(a, b) | FormulaKind::Equiv(a, b) => {
                self.formula(a);
                self.formula(b);
            }
            FormulaKind::Forall(vars, g) | FormulaKind::Exists(vars, g) => {
                self.variables += vars.iter().filter(|v| v.sort == self.sort).count();
                self.formula(g);
            }
        }
    }

    /// A symbol applied to arguments: an element of the sort may only be passed to a unary
    /// predicate over it (other symbols could tell elements apart).
    fn application(&mut self, s: Symbol, args: &[Term]) {
        self.symbols.insert(s);
        if args.iter().any(|a| self.of_sort(a)) && !is_monadic(self.program, s, self.sort) {
            self.ok = false;
        }
        args.iter().for_each(|a| self.argument(a));
    }

    /// A term in a position where an element of the sort may stand as it is.
    fn argument(&mut self, t: &Term) {
        match t.kind() {
            TermKind::Var(_) => {}
            TermKind::Value(v) => {
                self.named.insert(*v);
            }
            TermKind::Func(f, args) => self.application(Symbol::Func(*f), args),
            _ => self.computed(t),
        }
    }

    /// A term that computes with values: no element of the sort may occur in it.
    fn computed(&mut self, t: &Term) {
        if self.of_sort(t) {
            self.ok = false;
        }
        match t.kind() {
            TermKind::Var(_) | TermKind::SortMin(_) | TermKind::SortMax(_) => {}
            TermKind::Value(v) => {
                self.named.insert(*v);
            }
            TermKind::Func(f, args) => {
                self.symbols.insert(Symbol::Func(*f));
                args.iter().for_each(|a| self.computed(a));
            }
            TermKind::Arith(_, a, b) => {
                self.computed(a);
                self.computed(b);
            }
            TermKind::Neg(a) | TermKind::Abs(a) | TermKind::Succ(_, a) | TermKind::Pred(_, a) => {
                self.computed(a)
            }
            TermKind::Aggregate(..) => self.ok = false,
        }
    }

    /// Whether a term denotes an element of the sort (a variable, a constant or a value of it).
    fn of_sort(&self, t: &Term) -> bool {
        match t.kind() {
            TermKind::Var(v) => v.sort == self.sort,
            TermKind::SortMin(s)
            | TermKind::SortMax(s)
            | TermKind::Succ(s, _)
            | TermKind::Pred(s, _) => *s == self.sort,
            TermKind::Func(f, _) => self.program.func(*f).result == self.sort,
            _ => t.sort == self.sort,
        }
    }
}
