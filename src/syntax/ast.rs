//! The abstract syntax tree of IDP3 files: what the parser produces and the resolver consumes.
//!
//! Every node that a diagnostic may point at carries a [`Span`]. Names are kept as written
//! (`Pointer` keeps the `A::B::C` path); resolution to symbols happens later, in `sema`.

use crate::source::Span;

/// An identifier with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A possibly qualified name `A::B::c`; the last part is the name itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Pointer {
    pub parts: Vec<Ident>,
    pub span: Span,
}

impl Pointer {
    pub fn name(&self) -> &str {
        &self
            .parts
            .last()
            .expect("a pointer has at least one part")
            .name
    }
    pub fn is_simple(&self) -> bool {
        self.parts.len() == 1
    }
    /// The path as written, joined with `::`.
    pub fn to_path(&self) -> String {
        self.parts
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join("::")
    }
}

/// A symbol reference in a theory or structure, with an optional sort annotation:
/// `P`, `P[T1,T2]`, `F[T1,T2:T]`, `C[:T]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolRef {
    pub name: Pointer,
    pub sorts: Option<SortAnnotation>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SortAnnotation {
    pub args: Vec<Pointer>,
    /// `Some` for a function annotation `[A,B:C]` (also `[:C]`).
    pub result: Option<Pointer>,
}

/// A whole parsed file (or the expansion of a file with its includes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
}

/// A top-level (or namespace-level) block.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Namespace(Namespace),
    Vocabulary(Vocabulary),
    Theory(Theory),
    Structure(Structure),
    Factlist(Factlist),
    Procedure(Procedure),
    Query(Query),
    Term(TermBlock),
    Using(Using),
    /// IDP-Z3's `display` block: how its consultant shows the vocabulary.
    Display(Display),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Namespace {
    pub name: Ident,
    pub items: Vec<Item>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum UsingKind {
    Namespace,
    Vocabulary,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Using {
    pub kind: UsingKind,
    pub target: Pointer,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Vocabularies
// ---------------------------------------------------------------------------------------------

/// `vocabulary V { ... }` or `LTCvocabulary V [(Time, Start, Next)] { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Vocabulary {
    pub name: Ident,
    /// `Some` for an LTC vocabulary; holds the custom (Time, Start, Next) names if given.
    pub ltc: Option<Option<[Pointer; 3]>>,
    pub decls: Vec<Decl>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Type(TypeDecl),
    Predicate(PredDecl),
    Function(FuncDecl),
    /// `extern vocabulary W`
    ExternVocabulary(Pointer),
    /// `extern type T`, `extern V::P[A,B]`, `extern V::P/2`, `extern V::F[A:B]`, `extern V::F/1:1`
    ExternSymbol(ExternSymbol),
    Using(Using),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExternSymbol {
    Type(Pointer),
    /// Pointer plus sorts or arity; `result` set for functions.
    Sorted {
        name: Pointer,
        sorts: SortAnnotation,
        span: Span,
    },
    Arity {
        name: Pointer,
        arity: u32,
        function: bool,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeDecl {
    pub name: Ident,
    pub isa: Vec<Pointer>,
    pub contains: Vec<Pointer>,
    pub body: TypeBody,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeBody {
    /// `type T` (optionally with isa/contains): interpreted by structures.
    Open,
    /// `type T = { ... }`: fixed in the vocabulary.
    Enumerated(Vec<Element>),
    /// `type T constructed from { A, F(T1, T2) }`
    Constructed(Vec<Constructor>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Constructor {
    pub name: Ident,
    pub args: Vec<Pointer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PredDecl {
    pub name: Ident,
    pub args: Vec<Pointer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDecl {
    pub name: Ident,
    pub partial: bool,
    pub args: Vec<Pointer>,
    pub result: Pointer,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Theories, terms and queries
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub struct Theory {
    pub name: Ident,
    pub vocabulary: Pointer,
    pub components: Vec<TheoryComponent>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TheoryComponent {
    Sentence(Formula),
    Definition(Definition),
    /// `LFD [ ... ]` / `GFD [ ... ]`: parsed, reported as unsupported by sema.
    FixpointDefinition(Span),
    Using(Using),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    pub rules: Vec<Rule>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The variables of the `! x y :` prefix.
    pub vars: Vec<VarDecl>,
    pub head: RuleHead,
    /// `None` for a fact `P(x).` (body `true`).
    pub body: Option<Formula>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RuleHead {
    Predicate {
        symbol: SymbolRef,
        args: Vec<Term>,
    },
    /// `F(args) = value`
    Function {
        symbol: SymbolRef,
        args: Vec<Term>,
        value: Term,
    },
}

/// A quantified variable, optionally typed `x[T]`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: Ident,
    pub sort: Option<Pointer>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    Forall,
    Exists,
}

/// The comparison of a counting quantifier `?<n x: ...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl CmpOp {
    /// The operator as written in IDP: `=`, `~=`, `<`, `>`, `=<`, `>=`.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "~=",
            CmpOp::Lt => "<",
            CmpOp::Gt => ">",
            CmpOp::Le => "=<",
            CmpOp::Ge => ">=",
        }
    }

    /// The comparison that holds exactly when this one does not.
    pub fn negation(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Le => CmpOp::Gt,
        }
    }

    /// The comparison with its sides swapped: `a op b` iff `b (op.mirrored()) a`.
    pub fn mirrored(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Eq | CmpOp::Ne => self,
        }
    }

    /// Whether `x op y` holds in `T`'s order (for domain elements: the order the grounder
    /// compares them in).
    pub fn holds<T: Ord>(self, x: T, y: T) -> bool {
        match self {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Gt => x > y,
            CmpOp::Le => x <= y,
            CmpOp::Ge => x >= y,
        }
    }

    /// The comparison among `=`, `<` and `>` that this one is or negates, and whether it
    /// negates it: `~=` is `~(=)`, `=<` is `~(>)`, `>=` is `~(<)`. (IDP3 reads them so: a
    /// comparison with an undefined term makes `=`, `<`, `>` false and the others true.)
    pub fn positive_form(self) -> (CmpOp, bool) {
        match self {
            CmpOp::Eq | CmpOp::Lt | CmpOp::Gt => (self, false),
            CmpOp::Ne => (CmpOp::Eq, true),
            CmpOp::Le => (CmpOp::Gt, true),
            CmpOp::Ge => (CmpOp::Lt, true),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinConn {
    And,
    Or,
    /// `=>`
    Implies,
    /// `<=` ("is implied by")
    ImpliedBy,
    /// `<=>`
    Equiv,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub kind: FormulaKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormulaKind {
    True,
    False,
    /// `P`, `P()`, `P(t1, ..., tn)`.
    Atom {
        symbol: SymbolRef,
        args: Vec<Term>,
    },
    /// `t1 op t2 op t3 ...`: a chain of at least one comparison (`terms.len() == ops.len() + 1`).
    Compare {
        terms: Vec<Term>,
        ops: Vec<CmpOp>,
    },
    Not(Box<Formula>),
    Binary {
        op: BinConn,
        left: Box<Formula>,
        right: Box<Formula>,
    },
    /// `! x y : f` and `? x y : f`.
    Quant {
        q: Quantifier,
        vars: Vec<VarDecl>,
        body: Box<Formula>,
    },
    /// `?n x : f` (`op` is `Eq` for `?n` and `?=n`).
    Count {
        op: CmpOp,
        bound: i64,
        vars: Vec<VarDecl>,
        body: Box<Formula>,
    },
    /// `! (x,y) in P : f` / `? (x,y) in P : f`.
    QuantIn {
        q: Quantifier,
        vars: Vec<VarDecl>,
        symbol: SymbolRef,
        body: Box<Formula>,
    },
    /// `! (x,y) sat g : f` / `? (x,y) sat g : f`.
    QuantSat {
        q: Quantifier,
        vars: Vec<VarDecl>,
        cond: Box<Formula>,
        body: Box<Formula>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

impl ArithOp {
    /// The operator as written in IDP: `+`, `-`, `*`, `/`, `%`, `^`.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
            ArithOp::Pow => "^",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggKind {
    Card,
    Sum,
    Prod,
    Min,
    Max,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    /// A bare or applied name: a variable, a constant, or a function application `F(t1, ..)`.
    /// `args` is `None` when written without parentheses.
    App {
        symbol: SymbolRef,
        args: Option<Vec<Term>>,
    },
    Int(i64),
    Float(f64),
    Str(String),
    Char(char),
    Arith {
        op: ArithOp,
        left: Box<Term>,
        right: Box<Term>,
    },
    Neg(Box<Term>),
    /// `#{x : f}`, `sum{x : f : t}`, ...; `#(f1, f2)` and `sum(t1, t2)` are lowered to sets with
    /// no variables, one per listed element.
    Aggregate {
        kind: AggKind,
        sets: Vec<SetExpr>,
    },
}

/// One `{ vars : cond [: term] }` set of an aggregate. For `#` the term is `None` (count 1 each).
#[derive(Clone, Debug, PartialEq)]
pub struct SetExpr {
    pub vars: Vec<VarDecl>,
    pub cond: Formula,
    pub term: Option<Term>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub name: Ident,
    pub vocabulary: Pointer,
    pub vars: Vec<VarDecl>,
    pub formula: Formula,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TermBlock {
    pub name: Ident,
    pub vocabulary: Pointer,
    pub term: Term,
    pub span: Span,
}

/// IDP-Z3's `display` block: settings for its Interactive Consultant, in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct Display {
    pub settings: Vec<DisplaySetting>,
    pub span: Span,
}

/// One setting of a `display` block: `hide(`p, `q).` is `{ kind: "hide", symbols: [p, q] }`,
/// `unit('m', `length).` has the text `m`, `view() = expanded.` is the kind `view` with
/// the text `expanded`.
#[derive(Clone, Debug, PartialEq)]
pub struct DisplaySetting {
    pub kind: Ident,
    /// The concepts named (without their backquote).
    pub symbols: Vec<Ident>,
    /// The quoted texts, without their quotes (`unit`, `heading`, `introduction`) or the
    /// view's name.
    pub texts: Vec<String>,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Structures
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    pub name: Ident,
    pub vocabulary: Pointer,
    pub interpretations: Vec<Interpretation>,
    pub usings: Vec<Using>,
    pub span: Span,
}

/// Which part of a three-valued interpretation is given: `P = ..`, `P<ct> = ..`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    TwoValued,
    Ct,
    Cf,
    U,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Interpretation {
    pub symbol: SymbolRef,
    pub truth: Truth,
    pub value: InterValue,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InterValue {
    /// `{ ... }`: elements (unary), tuples, or function mappings; mixed forms are kept as given
    /// and checked against the symbol by sema.
    Table(Vec<TableEntry>),
    /// `true` / `false` for a proposition.
    Bool(bool),
    /// `C = element` for a constant.
    Element(Element),
    /// `F = generate`
    Generate,
    /// `P = procedure Name`
    Procedure(Pointer),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableEntry {
    /// A single element or range (types, unary predicates).
    Element(Element),
    /// A tuple `a,b,c` or `(a,b,c)`; `()` is the empty tuple.
    Tuple(Vec<Element>, Span),
    /// `a,b -> c` (`args` empty for `-> c` / `() -> c`).
    Mapping {
        args: Vec<Element>,
        value: Element,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    pub kind: ElementKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ElementKind {
    Int(i64),
    Float(f64),
    /// A quoted string or an identifier used as a string (`red`).
    Str {
        value: String,
        quoted: bool,
    },
    Char(char),
    /// `F(a, b)` or `A()`.
    Compound {
        constructor: Pointer,
        args: Vec<Element>,
    },
    /// `1..5`
    IntRange(i64, i64),
    /// `a..z`
    CharRange(char, char),
}

/// `factlist S : V { P(a,b). Q(1..3). R. }`
#[derive(Clone, Debug, PartialEq)]
pub struct Factlist {
    pub name: Ident,
    pub vocabulary: Pointer,
    pub facts: Vec<Fact>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub symbol: Pointer,
    /// Arguments; ranges (`1..3`) expand to several facts.
    pub args: Vec<Element>,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Procedures
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub struct Procedure {
    pub name: Ident,
    pub params: Vec<Ident>,
    /// The Lua body after IDP3's capture rules (`::` rewritten to `.`, IDP comments removed),
    /// with its newlines preserved so Lua line numbers map back to the file.
    pub body: String,
    /// Line (1-based) of the `{` that opens the body, to map Lua errors back to the `.idp` file.
    pub body_line: u32,
    pub span: Span,
}
