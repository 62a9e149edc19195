//! The pre-typed form of formulas and terms: names are resolved to candidate symbols (several
//! when overloaded) and variables to slots whose sorts are not yet known. `sorts` derives the
//! sorts and picks the candidates; `lower` turns the result into `ir`.

use std::rc::Rc;

use crate::ids::{FuncId, PredId, SortId};
use crate::source::Span;
use crate::structure::Value;
use crate::syntax::ast::{AggKind, ArithOp, CmpOp, Quantifier};

pub(super) type VarIx = usize;

#[derive(Clone, Debug)]
pub(super) struct VarInfo {
    pub name: Rc<str>,
    pub sort: Option<SortId>,
    /// Written with a sort `x[T]` (its sort is not derived).
    pub typed: bool,
    pub span: Span,
    pub uses: u32,
    /// Sorts that were joined into a least common ancestor (for IDP3's warning).
    pub joined: Vec<SortId>,
    pub underivable: bool,
    /// Its name is also a constant's, and a use has said so (once per variable).
    pub shadow_warned: bool,
}

#[derive(Clone, Debug)]
pub(super) struct PF {
    pub kind: PfKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum PfKind {
    Bool(bool),
    Atom {
        name: String,
        /// The name as written (none for atoms the resolver made itself).
        at: Option<Span>,
        cands: Vec<PredId>,
        args: Vec<PT>,
    },
    Cmp(CmpOp, PT, PT),
    Not(Box<PF>),
    And(Vec<PF>),
    Or(Vec<PF>),
    Implies(Box<PF>, Box<PF>),
    Equiv(Box<PF>, Box<PF>),
    Quant(Quantifier, Vec<VarIx>, Box<PF>),
    /// Something that failed to resolve (already reported).
    Error,
}

#[derive(Clone, Debug)]
pub(super) struct PT {
    pub kind: PtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum PtKind {
    Var(VarIx),
    /// A domain element with the sort IDP3 gives literals (nat, int, float, string, char).
    Value(Value, SortId),
    Func {
        name: String,
        /// The name as written.
        at: Option<Span>,
        cands: Vec<FuncId>,
        args: Vec<PT>,
    },
    Arith(ArithOp, Box<PT>, Box<PT>),
    Neg(Box<PT>),
    Abs(Box<PT>),
    SortMin(SortId),
    SortMax(SortId),
    /// SUCC/PRED with the sort given by an annotation, else derived from the argument.
    Succ(Option<SortId>, Box<PT>),
    Pred(Option<SortId>, Box<PT>),
    Agg(AggKind, Vec<PSet>),
    Error,
}

#[derive(Clone, Debug)]
pub(super) struct PSet {
    pub vars: Vec<VarIx>,
    pub cond: PF,
    pub term: Option<PT>,
    pub span: Span,
}

/// A rule before typing: head symbol candidates, head arguments (value last for functions).
#[derive(Clone, Debug)]
pub(super) struct PRule {
    pub head_vars: Vec<VarIx>,
    pub body_vars: Vec<VarIx>,
    pub head: PHead,
    /// The head's name as written.
    pub head_at: Option<Span>,
    pub head_args: Vec<PT>,
    pub body: PF,
    pub span: Span,
    /// The head symbol was overloaded when written (IDP3 cannot type its non-variable args).
    pub overloaded_head: bool,
}

#[derive(Clone, Debug)]
pub(super) enum PHead {
    Pred(Vec<PredId>),
    Func(Vec<FuncId>),
    Error,
}

impl PF {
    pub fn new(kind: PfKind, span: Span) -> PF {
        PF { kind, span }
    }
}

impl PT {
    pub fn new(kind: PtKind, span: Span) -> PT {
        PT { kind, span }
    }
}
