//! IDP3's meta-representation of theories (`tometa` and `frommeta`, after IDP3's
//! `BootstrappingUtils` and `Metafier`): a theory becomes a two-valued structure over the
//! vocabulary `stdspace::meta::metavoc` ([`METAVOC`]), whose domain elements are the theory's
//! formulas, terms, rules, sets (numbered in the order of a pre-order walk), variables and
//! symbols (named `name_N`), and a structure over that vocabulary becomes a theory again.
//!
//! As in IDP3, the names of symbols are kept between `tometa` and `frommeta` ([`MetaNames`]),
//! and the representation is IDP3's: `x ~= y` is the negation of the atom `=(x, y)`, `=<` the
//! negation of `>`, an implication a disjunction with its left side negated, `true` an empty
//! conjunction; built-in functions (`+`, `abs`, `MIN`, `SUCC`, ...) are function symbols of
//! their own, and a rule's head an atom (a function's head the atom of its graph).

mod from;
mod to;

pub use from::from_meta;
pub use to::to_meta;

use indexmap::{IndexMap, IndexSet};

use crate::ids::{FuncId, PredId, SortId, Symbol, VocId};
use crate::sema::Program;
use crate::structure::{Structure, Table, Tuple, Value};
use crate::syntax::ast::{ArithOp, CmpOp};

/// The meta vocabulary, as IDP3's `bootstrap.idp` declares it (its names and types).
pub const METAVOC: &str = "namespace stdspace {
namespace meta {
vocabulary metavoc {
  type Index isa nat
  type Symbol
  type Pred isa Symbol
  type Sort isa Pred
  type Func isa Symbol
  type Var
  type Dom
  arity(Symbol) : Index
  name(Symbol) : string
  isPartial(Func)
  constructedFrom(Sort, Func)
  partial sort(Symbol, Index) : Sort
  outputSort(Func) : Sort
  varSort(Var) : Sort
  subtypeOf(Sort, Sort)
  type Form
  type SingleSubForm isa Form
  subForm(SingleSubForm) : Form
  type Negation isa SingleSubForm
  type Quant isa SingleSubForm
  type QT constructed from { exists, forall }
  quantType(Quant) : QT
  quantVars(Quant, Var)
  type BoolForm isa Form
  subForms(BoolForm, Form)
  type BT constructed from { conj, disj }
  boolType(BoolForm) : BT
  type Equiv isa Form
  left(Equiv) : Form
  right(Equiv) : Form
  type Atom isa Form
  aSymbol(Atom) : Symbol
  type Term
  partial aTerms(Atom, Index) : Term
  termSort(Term) : Sort
  type DomT isa Term
  dom(DomT) : Dom
  type FuncT isa Term
  fSymbol(FuncT) : Symbol
  partial fTerms(FuncT, Index) : Term
  type VarT isa Term
  var(VarT) : Var
  type AggT isa Term
  type AF constructed from { card, sum, min, max, prod }
  aggFunc(AggT) : AF
  type Rule
  head(Rule) : Form
  body(Rule) : Form
  type Definition isa Form
  ruleOf(Rule, Definition)
  ruleVars(Rule, Var)
  type Set
  type QuantSet isa Set
  setForm(QuantSet) : Form
  setVars(QuantSet, Var)
  setTerm(QuantSet) : Term
  type EnumSet isa Set
  setOf(QuantSet, EnumSet)
  aggSet(AggT) : EnumSet
  sentence(Form)
}
}
}
";

/// The largest argument position the structure's `Index` type holds (IDP3: 0..10).
pub const MAX_INDEX: i64 = 10;

/// Why a theory or a structure could not be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaError {
    /// The meta vocabulary lacks a type or symbol the translation needs.
    MissingSymbol(String),
    /// A symbol has more arguments than `Index` can number.
    TooManyArguments(String),
    /// The structure names a symbol that no `tometa` call named.
    UnknownSymbol(String),
    /// The structure does not describe a formula, term or rule completely.
    Incomplete(String),
}

impl std::fmt::Display for MetaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MetaError::MissingSymbol(s) => write!(f, "the meta vocabulary has no {s}"),
            MetaError::TooManyArguments(s) => write!(
                f,
                "the symbol {s} has more than {} arguments, more than the meta vocabulary's Index numbers",
                MAX_INDEX + 1
            ),
            MetaError::UnknownSymbol(s) => write!(
                f,
                "the symbol {s} was not named by tometa (frommeta needs the names of the last tometa calls)"
            ),
            MetaError::Incomplete(s) => write!(f, "the structure does not describe {s} completely"),
        }
    }
}

impl std::error::Error for MetaError {}

/// What a symbol name of the meta-representation stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaSym {
    /// A predicate, type predicates (types) included.
    Pred(PredId),
    Func(FuncId),
    /// `=`, `<` or `>` on a sort, IDP3's `=[T,T]` (the other comparisons are their negations).
    Cmp(CmpOp, SortId),
    /// A built-in arithmetic function, by its result sort.
    Arith(ArithOp, SortId),
    /// Unary minus.
    Neg(SortId),
    Abs(SortId),
    Min(SortId),
    Max(SortId),
    Succ(SortId),
    Prev(SortId),
}

/// The names given to symbols (`P_1`): numbered from 1 in each `tometa` call, as IDP3's
/// `UniqueStringNames` made afresh in `toMeta`. `frommeta` reads the last call's names, and
/// (unlike IDP3, which keeps only those) an earlier call's names that the last did not reuse.
#[derive(Clone, Debug, Default)]
pub struct MetaNames {
    symbols: IndexMap<MetaSym, String>,
    earlier: Vec<(String, MetaSym)>,
    counter: usize,
}

impl MetaNames {
    /// Starts the names of a new `tometa` call.
    pub fn start(&mut self) {
        for (s, n) in self.symbols.drain(..) {
            self.earlier.push((n, s));
        }
        self.counter = 0;
    }

    /// The unique name of `s` (a new one the first time).
    pub fn name(&mut self, program: &Program, s: MetaSym) -> String {
        if let Some(n) = self.symbols.get(&s) {
            return n.clone();
        }
        self.counter += 1;
        let n = format!("{}_{}", base_name(program, s), self.counter);
        self.symbols.insert(s, n.clone());
        n
    }

    /// What the unique name `name` stands for: the last call's meaning first.
    pub fn symbol(&self, name: &str) -> Option<MetaSym> {
        self.symbols
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(s, _)| *s)
            .or_else(|| {
                self.earlier
                    .iter()
                    .rev()
                    .find(|(n, _)| n.as_str() == name)
                    .map(|(_, s)| *s)
            })
    }
}

/// A symbol's name without arity, as IDP3 prints it.
pub fn base_name(program: &Program, s: MetaSym) -> String {
    match s {
        MetaSym::Pred(p) => program.pred(p).name.clone(),
        MetaSym::Func(f) => program.func(f).name.clone(),
        MetaSym::Cmp(CmpOp::Lt, _) => "<".into(),
        MetaSym::Cmp(CmpOp::Gt, _) => ">".into(),
        MetaSym::Cmp(..) => "=".into(),
        MetaSym::Arith(op, _) => op.symbol().into(),
        MetaSym::Neg(_) => "-".into(),
        MetaSym::Abs(_) => "abs".into(),
        MetaSym::Min(_) => "MIN".into(),
        MetaSym::Max(_) => "MAX".into(),
        MetaSym::Succ(_) => "SUCC".into(),
        MetaSym::Prev(_) => "PRED".into(),
    }
}

/// The facts of a meta structure being built: each type's elements and each symbol's tuples
/// (a function's with its value last), by name.
#[derive(Default)]
pub struct Facts {
    sorts: IndexMap<&'static str, IndexSet<Value>>,
    tables: IndexMap<&'static str, IndexSet<Tuple>>,
}

impl Facts {
    pub fn elem(&mut self, sort: &'static str, v: Value) {
        self.sorts.entry(sort).or_default().insert(v);
    }

    pub fn has_elem(&self, sort: &str, v: &Value) -> bool {
        self.sorts.get(sort).is_some_and(|s| s.contains(v))
    }

    pub fn fact(&mut self, symbol: &'static str, t: Tuple) {
        self.tables.entry(symbol).or_default().insert(t);
    }

    /// The two-valued structure over `voc` (the meta vocabulary) with these facts: each type
    /// holds its elements and those of its subtypes, `Index` is 0..10, the constructed types
    /// their constructors, and every symbol without facts is empty.
    pub fn into_structure(
        mut self,
        program: &Program,
        voc: VocId,
        name: &str,
    ) -> Result<Structure, MetaError> {
        let v = program.voc(voc);
        for i in 0..=MAX_INDEX {
            self.elem("Index", Value::Int(i));
        }
        let mut out = Structure::new(name, voc);
        let sorts: Vec<SortId> = v
            .sorts
            .iter()
            .copied()
            .filter(|&s| program.sort(s).builtin.is_none())
            .collect();
        for &s in &sorts {
            let mut values: IndexSet<Value> = IndexSet::new();
            for &sub in &sorts {
                if sub == s || is_subsort(program, sub, s) {
                    let sort = program.sort(sub);
                    if let Some(vals) = self.sorts.get(sort.name.as_str()) {
                        values.extend(vals.iter().copied());
                    }
                    values.extend(
                        sort.constructors
                            .iter()
                            .map(|&f| Value::compound(f, Vec::new())),
                    );
                }
            }
            let mut values: Vec<Value> = values.into_iter().collect();
            values.sort();
            out.set_domain(s, values);
        }
        for &p in &v.preds {
            if program.pred(p).type_of.is_some() {
                continue;
            }
            let name = program.pred(p).name.as_str();
            out.symbols.insert(Symbol::Pred(p), self.table(name));
        }
        for &f in &v.funcs {
            if program.func(f).constructor_of.is_some() {
                continue;
            }
            let name = program.func(f).name.as_str();
            out.symbols.insert(Symbol::Func(f), self.table(name));
        }
        Ok(out)
    }

    fn table(&self, name: &str) -> Table {
        Table::TwoValued(
            self.tables
                .get(name)
                .map(|t| t.iter().cloned().collect())
                .unwrap_or_default(),
        )
    }
}

/// Whether `sub` is a (strict, transitive) subtype of `sup`.
fn is_subsort(program: &Program, sub: SortId, sup: SortId) -> bool {
    let mut todo = program.sort(sub).parents.clone();
    let mut seen = Vec::new();
    while let Some(s) = todo.pop() {
        if s == sup {
            return true;
        }
        if !seen.contains(&s) {
            seen.push(s);
            todo.extend(program.sort(s).parents.iter().copied());
        }
    }
    false
}

/// The constructor `name` of the meta vocabulary, as a value.
pub fn constructor(program: &Program, voc: VocId, name: &str) -> Result<Value, MetaError> {
    program
        .voc(voc)
        .funcs
        .iter()
        .copied()
        .find(|&f| program.func(f).name == name && program.func(f).constructor_of.is_some())
        .map(|f| Value::compound(f, Vec::new()))
        .ok_or_else(|| MetaError::MissingSymbol(format!("constructor {name}")))
}
