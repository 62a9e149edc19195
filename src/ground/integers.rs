//! Integer variables: functions onto `int` or `nat` (or onto a range too large to list) whose
//! values the search chooses, without one atom per value.
//!
//! A function qualifies when it is total, not defined, not interpreted by the structure, and
//! every application of it in the theory stands in linear arithmetic: compared (`=`, `<`,
//! `=<`, ...), added, subtracted, multiplied, or summed by `sum{..}`. Each application
//! `f(args)` is then one variable of the solver's integer theory (`solve::integers`), within
//! the function's bounds (IDP3's 32-bit integers when nothing else bounds it), and each
//! comparison over such terms is one atom `c ↔ Σ aⱼ·xⱼ ≥ k` that the theory keeps in both
//! directions. A number that counts only where a formula holds (`sum{ j : P(j) : Start(j) }`
//! with `P` open) is a variable of its own, equal to the number where the formula holds and
//! to 0 elsewhere; a formula inside a sum is a 0/1 variable. Models read each application's
//! value from the theory.
//!
//! Functions onto `float` (FO(·)'s `Real`) that qualify alike are real variables, decided
//! by the simplex in the search (`solve::simplex`): a comparison over a real variable is a
//! real atom (its negation strict), known numbers that are not integers are exact rationals
//! (a linear term keeps a common denominator), and a formula inside a sum over reals is a
//! real 0/1 variable pinned by two comparisons. A comparison that mixes a real variable with
//! an integer one is refused by name (that needs branch and bound, not there yet).
//!
//! `abs` of a linear term is a variable of its own, tied to the term by three comparisons.
//! Terms that are not linear (a product of two unknown numbers, a division of one) stop
//! grounding with a message that names the term and says what would make it linear.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::error::{Error, IdpResult};
use crate::ground::store::AUX;
use crate::ground::{GVal, Gf, Grounder};
use crate::ids::{FuncId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Term, TermKind};
use crate::sema::BuiltinSort;
use crate::structure::{Rational, Tuple, Value};
use crate::syntax::ast::{AggKind, ArithOp, CmpOp};
use num_traits::ToPrimitive;

/// The tag of the auxiliary atoms that stand for linear comparisons.
const LINEAR_TAG: i64 = -12;

/// The values an integer that nothing else bounds is searched within: IDP3's 32-bit
/// integers (FO(·)'s `Int` has no end; an optimum at one of these is warned about).
pub const INT_WINDOW: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);

/// Below this many values a bounded constant keeps one atom per value (see
/// `constant_bounds`); from it on, it is an integer variable.
const LISTED_AT_MOST: usize = 64;

/// One variable of the integer theory: an application `f(args)` searched as a number, or a
/// number the grounding needs (a guarded copy, a formula as 0/1), with its bounds.
#[derive(Clone, Debug)]
pub struct IntVar {
    /// The application it is, if any.
    pub application: Option<(FuncId, Tuple)>,
    /// For a real variable, `i64::MIN` and `i64::MAX` stand for no bound.
    pub low: i64,
    pub high: i64,
    /// Whether it ranges over the reals (decided by the simplex), not the integers.
    pub real: bool,
}

impl IntVar {
    /// Its bounds as exact numbers, for a real variable (`None`: unbounded on that side).
    pub fn real_bounds(&self) -> (Option<Rational>, Option<Rational>) {
        let bound = |b: i64, unbounded: i64| (b != unbounded).then(|| Rational::from(b));
        (bound(self.low, i64::MIN), bound(self.high, i64::MAX))
    }
}

/// A comparison the search decides: `atom ↔ Σ coefficient·variable ≥ bound`.
#[derive(Clone, Debug)]
pub struct LinearAtom {
    pub atom: Gf,
    pub terms: Vec<(usize, i64)>,
    pub bound: i64,
    /// Whether its variables are real (its negation is then `Σ < bound`, not `≤ bound − 1`).
    pub real: bool,
}

/// A comparison over real variables with exact coefficients: `atom ↔ Σ a·x ≥ bound` (its
/// negation `Σ a·x < bound`). Made for numbers found after grounding (a bound from an
/// optimum, a model's value), whose digits may not fit a [`LinearAtom`].
#[derive(Clone, Debug)]
pub struct RealAtom {
    pub atom: Gf,
    pub terms: Vec<(usize, Rational)>,
    pub bound: Rational,
}

/// A ground linear term: `constant + Σ coefficient·variable + Σ weight·[guard]`, with a
/// value when `defined` holds.
#[derive(Clone, Debug)]
pub struct LinTerm {
    constant: i128,
    vars: Vec<(usize, i128)>,
    parts: Vec<(Gf, i128)>,
    defined: Gf,
    /// The positive denominator of all the numbers above (1 unless a known number is not an
    /// integer).
    den: i128,
}

impl LinTerm {
    /// When it has a value.
    pub fn defined(&self) -> Gf {
        self.defined
    }

    fn constant(c: i128) -> LinTerm {
        LinTerm {
            constant: c,
            vars: Vec::new(),
            parts: Vec::new(),
            defined: Gf::TRUE,
            den: 1,
        }
    }

    /// The same term over denominator `den` (a multiple of its own).
    fn over(self, den: i128) -> LinTerm {
        let k = den / self.den;
        LinTerm {
            den,
            ..self.scaled(k)
        }
    }

    /// Both terms over their least common denominator.
    fn common(a: LinTerm, b: LinTerm) -> (LinTerm, LinTerm) {
        if a.den == b.den {
            return (a, b);
        }
        let den = num_integer::lcm(a.den, b.den);
        (a.over(den), b.over(den))
    }

    fn variable(v: usize) -> LinTerm {
        LinTerm {
            vars: vec![(v, 1)],
            ..LinTerm::constant(0)
        }
    }

    fn scaled(mut self, k: i128) -> LinTerm {
        self.constant *= k;
        for (_, w) in &mut self.parts {
            *w *= k;
        }
        for (_, w) in &mut self.vars {
            *w *= k;
        }
        self
    }

    fn plus(self, other: LinTerm, store: &mut crate::ground::Store) -> LinTerm {
        let (mut this, mut other) = LinTerm::common(self, other);
        this.constant += other.constant;
        this.vars.append(&mut other.vars);
        this.parts.append(&mut other.parts);
        this.defined = store.and2(this.defined, other.defined);
        this
    }

    fn is_constant(&self) -> bool {
        self.parts.is_empty() && self.vars.is_empty() && self.defined == Gf::TRUE
    }

    /// Its value when `holds` tells which guards hold and `number` gives the variables'
    /// values (`None` when it has none).
    pub fn value(
        &self,
        holds: &mut dyn FnMut(Gf) -> bool,
        number: &mut dyn FnMut(usize) -> i64,
    ) -> Option<i128> {
        if !holds(self.defined) {
            return None;
        }
        let parts: i128 = self
            .parts
            .iter()
            .filter(|(g, _)| holds(*g))
            .map(|(_, w)| w)
            .sum();
        let vars: i128 = self
            .vars
            .iter()
            .map(|&(v, a)| a * i128::from(number(v)))
            .sum();
        Some(self.constant + parts + vars)
    }
}

/// The integer variables of a grounding and the comparisons over them.
#[derive(Default)]
pub struct Integers {
    /// The functions searched as numbers, with their least and greatest value.
    functions: HashMap<FuncId, (i64, i64)>,
    vars: Vec<IntVar>,
    index: HashMap<(FuncId, Tuple), usize>,
    atoms: Vec<LinearAtom>,
    memo: HashMap<(Vec<(usize, i64)>, i64), Gf>,
    real_atoms: Vec<RealAtom>,
    real_memo: HashMap<(Vec<(usize, Rational)>, Rational), Gf>,
    /// The copies of variables that count only where a formula holds.
    guarded: HashMap<(Gf, usize), usize>,
    /// The 0/1 variables of formulas inside sums (integer, and real for sums over reals).
    indicators: HashMap<(Gf, bool), usize>,
    /// The functions of `functions` that are real-valued.
    reals: HashSet<FuncId>,
    /// What must hold of every model: each variable within its bounds.
    axioms: Vec<Gf>,
}

impl Integers {
    /// The applications searched as numbers so far.
    pub fn vars(&self) -> &[IntVar] {
        &self.vars
    }

    /// The comparisons over them so far.
    pub fn atoms(&self) -> &[LinearAtom] {
        &self.atoms
    }

    /// The comparisons with exact coefficients so far.
    pub fn real_atoms(&self) -> &[RealAtom] {
        &self.real_atoms
    }

    /// The bounds the variables so far must keep.
    pub fn axioms(&self) -> &[Gf] {
        &self.axioms
    }

    /// The functions searched as numbers, with their bounds.
    pub fn functions(&self) -> impl Iterator<Item = (FuncId, (i64, i64))> + '_ {
        self.functions.iter().map(|(&f, &b)| (f, b))
    }

    /// The variable of `f(args)`, if grounding made one.
    pub fn var_of(&self, f: FuncId, args: &[Value]) -> Option<usize> {
        self.index.get(&(f, args.to_vec())).copied()
    }
}

impl<'a> Grounder<'a> {
    /// Decides which functions of `declared` (the vocabulary's: a model gives each a value,
    /// even one that no sentence reads) are searched as numbers, by how `sentences`,
    /// `definitions` and `objective` (a term to optimise) use them: see the module
    /// documentation.
    pub fn choose_integer_variables(
        &mut self,
        sentences: &[Formula],
        definitions: &[Definition],
        objective: Option<&Term>,
        declared: &[FuncId],
    ) {
        // Every function a sentence, a rule or the objective reads is declared.
        let defined: HashSet<Symbol> = definitions.iter().flat_map(|d| d.defined()).collect();
        let mut candidates: HashMap<FuncId, (i64, i64)> = declared
            .iter()
            .filter(|&&f| !defined.contains(&Symbol::Func(f)))
            .filter_map(|&f| Some((f, self.integer_bounds(f)?)))
            .collect();
        if candidates.is_empty() {
            return;
        }
        let reals: HashSet<FuncId> = candidates
            .keys()
            .copied()
            .filter(|&f| {
                let result = self.program.func(f).result;
                self.program.sort(result).builtin == Some(BuiltinSort::Float)
            })
            .collect();
        let mut linear = Linearity {
            candidates: &mut candidates,
            reals: &reals,
            dividing: false,
        };
        for f in sentences {
            linear.formula(f);
        }
        for d in definitions {
            for r in &d.rules {
                linear.formula(&r.body);
                for a in &r.head_args {
                    linear.term(a, false);
                }
            }
        }
        if let Some(t) = objective {
            linear.term(t, true);
        }
        self.integers.reals = reals
            .into_iter()
            .filter(|f| candidates.contains_key(f))
            .collect();
        self.integers.functions = candidates;
    }

    /// The least and greatest value of `f` when it can be searched as a number: a total,
    /// uninterpreted function over finite arguments onto `int`, `nat`, a range too large to
    /// list, or a constant that sentences bound to many values.
    fn integer_bounds(&self, f: FuncId) -> Option<(i64, i64)> {
        let func = self.program.func(f);
        if func.partial
            || func.constructor_of.is_some()
            || self.structure.table(Symbol::Func(f)).is_some()
            || self.structure.lazy.contains_key(&Symbol::Func(f))
            || func.args.iter().any(|&a| self.domains.get(a).is_none())
        {
            return None;
        }
        if let Some(values) = self.constants.get(&f) {
            let ints: Option<Vec<i64>> = values
                .iter()
                .map(|v| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                })
                .collect();
            let ints = ints?;
            let contiguous = ints.windows(2).all(|w| w[1] == w[0] + 1);
            return (contiguous && ints.len() > LISTED_AT_MOST)
                .then(|| (ints[0], *ints.last().expect("many values")));
        }
        if self.domains.get(func.result).is_some() {
            return None;
        }
        if let Some(range) = self.structure.huge_ranges.get(&func.result) {
            return range.extra.is_empty().then_some((range.lo, range.hi));
        }
        match self.program.sort(func.result).builtin? {
            BuiltinSort::Int => Some(INT_WINDOW),
            BuiltinSort::Nat => Some((0, INT_WINDOW.1)),
            BuiltinSort::Float => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }

    /// Whether `f` is searched as a number.
    pub fn is_integer_variable(&self, f: FuncId) -> bool {
        self.integers.functions.contains_key(&f)
    }

    /// The integer variables and comparisons made so far.
    pub fn integers(&self) -> &Integers {
        &self.integers
    }

    /// Whether `t` applies a function searched as a number.
    pub fn mentions_integer_variable(&self, t: &Term) -> bool {
        !self.integers.functions.is_empty()
            && crate::sema::walk::any_term(
                t,
                &mut |u| matches!(u.kind(), TermKind::Func(f, _) if self.is_integer_variable(*f)),
            )
    }

    /// The ground form of `a op b` where a side applies a function searched as a number.
    pub(super) fn ground_integer_comparison(
        &mut self,
        op: CmpOp,
        a: &Term,
        b: &Term,
    ) -> IdpResult<Gf> {
        let la = self.ground_linear(a)?;
        let lb = self.ground_linear(b)?;
        let defined = self.store.and2(la.defined, lb.defined);
        let mut difference = la.plus(lb.scaled(-1), &mut self.store);
        difference.defined = Gf::TRUE;
        let real = self.has_real(&difference);
        let (base, negated) = op.positive_form();
        let holds = match base {
            // Over reals `d < 0` is the negation of `d ≥ 0`; over integers it is `−d − 1 ≥ 0`.
            CmpOp::Lt if real => -self.at_least_zero(difference, a)?,
            CmpOp::Gt if real => -self.at_least_zero(difference.scaled(-1), a)?,
            CmpOp::Lt => {
                let mut d = difference.scaled(-1);
                d.constant -= 1;
                self.at_least_zero(d, a)?
            }
            CmpOp::Gt => {
                let mut d = difference;
                d.constant -= 1;
                self.at_least_zero(d, a)?
            }
            _ => {
                let up = self.at_least_zero(difference.clone(), a)?;
                let down = self.at_least_zero(difference.scaled(-1), a)?;
                self.store.and2(up, down)
            }
        };
        let positive = self.store.and2(defined, holds);
        Ok(if negated { -positive } else { positive })
    }

    /// Whether `lin` has a real variable.
    fn has_real(&self, lin: &LinTerm) -> bool {
        lin.vars.iter().any(|&(v, _)| self.integers.vars[v].real)
    }

    /// A term to optimise that applies a function searched as a number, as a linear term
    /// (see [`Grounder::linear_at_most`] for its bounds).
    ///
    /// Its `defined` need not be `TRUE` when the term is made of total functions and
    /// arithmetic that always has a value (`x() - y()` with `x` listed by value): the caller
    /// asserts it.
    pub fn integer_term(&mut self, t: &Term) -> IdpResult<LinTerm> {
        let lin = self.ground_linear(t)?;
        if lin.defined != Gf::TRUE && !self.always_defined(t) {
            return Err(self.not_linear(t, "may have no value (a partial argument)"));
        }
        if self.has_real(&lin) || lin.den != 1 {
            return Err(self.not_linear(
                t,
                "is not a whole number (idp optimises real-valued terms later)",
            ));
        }
        Ok(lin)
    }

    /// A term to optimise over real variables, as a linear term; `None` when it has none.
    /// Its `defined` is as [`Grounder::integer_term`]'s.
    pub fn real_term(&mut self, t: &Term) -> IdpResult<Option<LinTerm>> {
        let lin = self.ground_linear(t)?;
        if !self.has_real(&lin) {
            return Ok(None);
        }
        if lin.defined != Gf::TRUE && !self.always_defined(t) {
            return Err(self.not_linear(t, "may have no value (a partial argument)"));
        }
        Ok(Some(lin))
    }

    /// Whether `t` has a value in every structure: built of variables, values, applications
    /// of total functions, sums, differences, products, negations, absolute values, sums and
    /// counts of sets, and the ends of a type (no division, no partial function).
    fn always_defined(&self, t: &Term) -> bool {
        match t.kind() {
            TermKind::Var(_) | TermKind::Value(_) | TermKind::SortMin(_) | TermKind::SortMax(_) => {
                true
            }
            TermKind::Func(f, args) => {
                !self.program.func(*f).partial && args.iter().all(|a| self.always_defined(a))
            }
            TermKind::Arith(ArithOp::Add | ArithOp::Sub | ArithOp::Mul, a, b) => {
                self.always_defined(a) && self.always_defined(b)
            }
            TermKind::Neg(a) | TermKind::Abs(a) => self.always_defined(a),
            TermKind::Aggregate(AggKind::Sum | AggKind::Card, sets) => {
                sets.iter().all(|s| self.always_defined(&s.term))
            }
            _ => false,
        }
    }

    /// `lin` as exact coefficients of variables and a constant (its formulas become real 0/1
    /// variables).
    pub fn real_form(&mut self, lin: &LinTerm) -> (Vec<(usize, Rational)>, Rational) {
        let den = Rational::from(lin.den);
        let (coefficients, constant) = self.coefficients(lin, true);
        let terms = coefficients
            .into_iter()
            .map(|(v, a)| (v, Rational::from(a) / &den))
            .collect();
        (terms, Rational::from(constant) / den)
    }

    /// `lin` as the nonzero coefficients of its variables (its formulas become 0/1
    /// variables, real ones when `real`), by variable, and a constant.
    fn coefficients(&mut self, lin: &LinTerm, real: bool) -> (Vec<(usize, i128)>, i128) {
        let mut coefficients: HashMap<usize, i128> = HashMap::default();
        let mut constant = lin.constant;
        for &(v, a) in &lin.vars {
            *coefficients.entry(v).or_default() += a;
        }
        for &(g, w) in &lin.parts {
            match g {
                Gf::TRUE => constant += w,
                Gf::FALSE => {}
                _ if w == 0 => {}
                _ => {
                    let v = self.indicator(g, real);
                    *coefficients.entry(v).or_default() += w;
                }
            }
        }
        let mut terms: Vec<(usize, i128)> =
            coefficients.into_iter().filter(|&(_, a)| a != 0).collect();
        terms.sort_unstable();
        (terms, constant)
    }

    /// The atom `lin < q` (`lin ≤ q` unless `strict`), over real variables.
    pub fn real_below(&mut self, lin: &LinTerm, q: &Rational, strict: bool) -> Gf {
        let (terms, constant) = self.real_form(lin);
        let bound = q - constant;
        if strict {
            -self.real_atom(terms, bound)
        } else {
            let terms = terms.into_iter().map(|(v, a)| (v, -a)).collect();
            self.real_atom(terms, -bound)
        }
    }

    /// The least and greatest value `lin` can have by the bounds of its variables.
    pub fn linear_range(&self, lin: &LinTerm) -> (i128, i128) {
        let mut range = (lin.constant, lin.constant);
        for &(_, w) in &lin.parts {
            if w < 0 {
                range.0 += w;
            } else {
                range.1 += w;
            }
        }
        for &(v, a) in &lin.vars {
            let var = &self.integers.vars[v];
            let (x, y) = (
                a.saturating_mul(i128::from(var.low)),
                a.saturating_mul(i128::from(var.high)),
            );
            range.0 = range.0.saturating_add(x.min(y));
            range.1 = range.1.saturating_add(x.max(y));
        }
        range
    }

    /// The atom `lin ≤ k` (`at` names the term in messages).
    pub fn linear_at_most(&mut self, lin: &LinTerm, k: i128, at: &Term) -> IdpResult<Gf> {
        let mut below = lin.clone().scaled(-1);
        below.constant += k;
        self.at_least_zero(below, at)
    }

    /// The formula "integer variable `v` does not have value `k`" (to tell models apart).
    pub fn differs_from(&mut self, v: usize, k: i64) -> Gf {
        let terms = vec![(v, 1)];
        let above = self.linear_atom(terms.clone(), k.saturating_add(1), false);
        let below = self.linear_atom(terms, k, false);
        self.store.or2(above, -below)
    }

    /// The formula "real variable `v` does not have value `q`": `v < q ∨ v > q`.
    pub fn differs_from_real(&mut self, v: usize, q: &Rational) -> Gf {
        let at_least = self.real_atom(vec![(v, Rational::ONE)], q.clone());
        let at_most = self.real_atom(vec![(v, -Rational::ONE)], -q);
        self.store.or2(-at_least, -at_most)
    }

    /// `t` as a linear term.
    fn ground_linear(&mut self, t: &Term) -> IdpResult<LinTerm> {
        if !self.mentions_integer_variable(t) {
            return self.linear_cases(t);
        }
        match t.kind() {
            TermKind::Func(f, args) if self.is_integer_variable(*f) => {
                let cases = self.ground_args(args)?;
                if let [(Gf::TRUE, tuple)] = cases.as_slice() {
                    let var = self.integer_variable(*f, tuple.clone());
                    return Ok(LinTerm::variable(var));
                }
                let mut out = LinTerm::constant(0);
                let mut guards = Vec::with_capacity(cases.len());
                for (guard, tuple) in cases {
                    guards.push(guard);
                    let var = self.integer_variable(*f, tuple);
                    self.add_guarded(&mut out, guard, LinTerm::variable(var));
                }
                out.defined = self.store.or(guards);
                Ok(out)
            }
            TermKind::Arith(op @ (ArithOp::Add | ArithOp::Sub), a, b) => {
                let la = self.ground_linear(a)?;
                let mut lb = self.ground_linear(b)?;
                if *op == ArithOp::Sub {
                    lb = lb.scaled(-1);
                }
                Ok(la.plus(lb, &mut self.store))
            }
            TermKind::Arith(ArithOp::Mul, a, b) => {
                let (var_side, other) = match (
                    self.mentions_integer_variable(a),
                    self.mentions_integer_variable(b),
                ) {
                    (true, true) => return Err(self.not_linear(t, "multiplies two numbers")),
                    (true, false) => (a, b),
                    _ => (b, a),
                };
                let factor = self.linear_cases(other)?;
                let lin = self.ground_linear(var_side)?;
                Ok(self.product(factor, lin))
            }
            TermKind::Arith(ArithOp::Div, a, b) if !self.mentions_integer_variable(b) => {
                // Over the reals, a division by a known number is a product with its inverse.
                let lin = self.ground_linear(a)?;
                if !self.has_real(&lin) {
                    return Err(self.not_linear(t, "divides a number"));
                }
                let divisor = self.linear_cases(b)?;
                let inverse = self.inverse(divisor, t)?;
                Ok(self.product(inverse, lin))
            }
            TermKind::Neg(a) => Ok(self.ground_linear(a)?.scaled(-1)),
            TermKind::Aggregate(AggKind::Sum, sets) => {
                let mut out = LinTerm::constant(0);
                for set in sets {
                    self.for_each_candidate(&set.vars, &set.cond, &mut |g, known| {
                        let cond = g.condition(known, &set.cond)?;
                        if cond == Gf::FALSE {
                            return Ok(false);
                        }
                        let element = g.ground_linear(&set.term)?;
                        g.add_guarded(&mut out, cond, element);
                        Ok(false)
                    })?;
                }
                Ok(out)
            }
            TermKind::Arith(ArithOp::Div | ArithOp::Mod, ..) => {
                Err(self.not_linear(t, "divides a number"))
            }
            TermKind::Arith(ArithOp::Pow, ..) => {
                Err(self.not_linear(t, "raises a number to a power"))
            }
            TermKind::Abs(a) => {
                let lin = self.ground_linear(a)?;
                self.absolute(lin, t)
            }
            _ => Err(self.not_linear(t, "uses a number")),
        }
    }

    /// A term without integer variables as a linear term: one part per value it may take,
    /// over the least common denominator of those values.
    fn linear_cases(&mut self, t: &Term) -> IdpResult<LinTerm> {
        let ground = self.ground_term(t)?;
        if let Some(GVal::V(Value::Int(k))) = ground.as_known() {
            return Ok(LinTerm::constant(i128::from(k)));
        }
        let mut cases = Vec::with_capacity(ground.0.len());
        let mut den = 1i128;
        for (g, v) in ground.0 {
            let (n, d) = match v {
                GVal::V(Value::Int(k)) => (i128::from(k), 1),
                GVal::V(v) if v.is_number() => self.fraction(v, t)?,
                _ => return Err(self.not_linear(t, "has a value that is not a number")),
            };
            den = num_integer::lcm(den, d);
            cases.push((g, n, d));
        }
        let mut out = LinTerm::constant(0);
        out.den = den;
        let mut guards = Vec::with_capacity(cases.len());
        for (g, n, d) in cases {
            let n = n * (den / d);
            if g == Gf::TRUE {
                out.constant += n;
            } else {
                out.parts.push((g, n));
            }
            guards.push(g);
        }
        out.defined = self.store.or(guards);
        Ok(out)
    }

    /// A number's exact value as numerator and positive denominator.
    fn fraction(&self, v: Value, t: &Term) -> IdpResult<(i128, i128)> {
        let q = v
            .exact()
            .ok_or_else(|| self.not_linear(t, "has a value that is not a number"))?;
        match (q.numerator().to_i128(), q.denominator().to_i128()) {
            (Some(n), Some(d)) if d <= 1 << 60 => Ok((n, d)),
            _ => Err(self.not_linear(t, "has a value with too many digits")),
        }
    }

    /// `1 / divisor`, where `divisor`'s parts are exclusive cases (none of them 0).
    fn inverse(&mut self, divisor: LinTerm, t: &Term) -> IdpResult<LinTerm> {
        let inverse_of = |n: i128, den: i128| -> Option<(i128, i128)> {
            (n != 0).then(|| if n < 0 { (-den, -n) } else { (den, n) })
        };
        if divisor.is_constant() {
            let (n, d) = inverse_of(divisor.constant, divisor.den)
                .ok_or_else(|| self.not_linear(t, "divides by 0"))?;
            return Ok(LinTerm {
                den: d,
                ..LinTerm::constant(n)
            });
        }
        if divisor.constant != 0 || !divisor.vars.is_empty() {
            return Err(self.not_linear(t, "divides by a sum"));
        }
        let mut out = LinTerm::constant(0);
        for &(g, n) in &divisor.parts {
            let (m, d) = inverse_of(n, divisor.den)
                .ok_or_else(|| self.not_linear(t, "divides by a number that may be 0"))?;
            let case = LinTerm {
                den: d,
                ..LinTerm::constant(m)
            };
            self.add_guarded(&mut out, g, case);
        }
        out.defined = divisor.defined;
        Ok(out)
    }

    /// `factor · lin`, where `factor`'s parts are exclusive cases (see [`Self::linear_cases`]).
    fn product(&mut self, factor: LinTerm, lin: LinTerm) -> LinTerm {
        let den = factor.den * lin.den;
        if factor.is_constant() {
            return LinTerm {
                den,
                ..lin.scaled(factor.constant)
            };
        }
        let mut out = LinTerm::constant(0);
        for &(g, k) in &factor.parts {
            let case = LinTerm {
                den,
                ..lin.clone().scaled(k)
            };
            self.add_guarded(&mut out, g, case);
        }
        out.defined = self.store.and2(factor.defined, lin.defined);
        out
    }

    /// Adds `element` to `sum` where `cond` holds and `element` has a value.
    fn add_guarded(&mut self, sum: &mut LinTerm, cond: Gf, element: LinTerm) {
        let guard = self.store.and2(cond, element.defined);
        if guard == Gf::FALSE {
            return;
        }
        let (whole, element) =
            LinTerm::common(std::mem::replace(sum, LinTerm::constant(0)), element);
        *sum = whole;
        if guard == Gf::TRUE {
            sum.constant += element.constant;
            sum.parts.extend(element.parts);
            sum.vars.extend(element.vars);
            return;
        }
        if element.constant != 0 {
            sum.parts.push((guard, element.constant));
        }
        for (g, w) in element.parts {
            let both = self.store.and2(guard, g);
            if both != Gf::FALSE {
                sum.parts.push((both, w));
            }
        }
        for (v, a) in element.vars {
            let copy = self.guarded_variable(guard, v);
            sum.vars.push((copy, a));
        }
    }

    /// `|lin|` as a variable `y` of its own: `y ≥ lin`, `y ≥ −lin`, and `y ≤ lin ∨ y ≤ −lin`.
    fn absolute(&mut self, lin: LinTerm, at: &Term) -> IdpResult<LinTerm> {
        let real = self.has_real(&lin);
        let y = if real {
            self.new_var(None, 0, i64::MAX, true)
        } else {
            let (least, most) = self.linear_range(&lin);
            let largest = least.unsigned_abs().max(most.unsigned_abs());
            let high =
                i64::try_from(largest).map_err(|_| self.not_linear(at, "grows too large"))?;
            self.new_var(None, 0, high, false)
        };
        let mut value = lin.clone();
        value.defined = Gf::TRUE;
        let y_term = LinTerm::variable(y);
        let minus = |t: &LinTerm| t.clone().scaled(-1);
        let sides = [
            y_term.clone().plus(minus(&value), &mut self.store),
            y_term.clone().plus(value.clone(), &mut self.store),
        ];
        for side in sides {
            let at_least = self.at_least_zero(side, at)?;
            self.integers.axioms.push(at_least);
        }
        let up = value.clone().plus(minus(&y_term), &mut self.store);
        let down = minus(&value).plus(minus(&y_term), &mut self.store);
        let up = self.at_least_zero(up, at)?;
        let down = self.at_least_zero(down, at)?;
        let either = self.store.or2(up, down);
        self.integers.axioms.push(either);
        Ok(LinTerm {
            defined: lin.defined,
            ..LinTerm::variable(y)
        })
    }

    /// A variable equal to `v` where `guard` holds and to 0 elsewhere.
    fn guarded_variable(&mut self, guard: Gf, v: usize) -> usize {
        if let Some(&k) = self.integers.guarded.get(&(guard, v)) {
            return k;
        }
        let var = &self.integers.vars[v];
        let (low, high, real) = (var.low.min(0), var.high.max(0), var.real);
        let k = self.new_var(None, low, high, real);
        self.integers.guarded.insert((guard, v), k);
        // guard → k − v ≥ 0 ∧ v − k ≥ 0; ¬guard → k ≥ 0 ∧ −k ≥ 0.
        let up = self.linear_atom(vec![(k, 1), (v, -1)], 0, real);
        let down = self.linear_atom(vec![(k, -1), (v, 1)], 0, real);
        let nonnegative = self.linear_atom(vec![(k, 1)], 0, real);
        let nonpositive = self.linear_atom(vec![(k, -1)], 0, real);
        for (when, atom) in [
            (guard, up),
            (guard, down),
            (-guard, nonnegative),
            (-guard, nonpositive),
        ] {
            let axiom = self.store.or2(-when, atom);
            self.integers.axioms.push(axiom);
        }
        k
    }

    /// The 0/1 variable that is 1 exactly where `g` holds (a real one pinned at 0 or 1 for
    /// sums over reals).
    fn indicator(&mut self, g: Gf, real: bool) -> usize {
        if let Some(&k) = self.integers.indicators.get(&(g, real)) {
            return k;
        }
        let k = self.new_var(None, 0, 1, real);
        self.integers.indicators.insert((g, real), k);
        let one = self.linear_atom(vec![(k, 1)], 1, real);
        if real {
            let zero = self.linear_atom(vec![(k, -1)], 0, real);
            let when_true = self.store.or2(-g, one);
            let when_false = self.store.or2(g, zero);
            self.integers.axioms.push(when_true);
            self.integers.axioms.push(when_false);
        } else {
            let same = self.store.equiv(one, g);
            self.integers.axioms.push(same);
        }
        k
    }

    /// The ground form of `lin ≥ 0`.
    fn at_least_zero(&mut self, lin: LinTerm, at: &Term) -> IdpResult<Gf> {
        let real = self.has_real(&lin);
        let (coefficients, constant) = self.coefficients(&lin, real);
        let mut terms: Vec<(usize, i64)> = Vec::with_capacity(coefficients.len());
        let (mut least, mut most) = (constant, constant);
        for (v, a) in coefficients {
            let var = &self.integers.vars[v];
            if real && !var.real {
                return Err(self.not_linear(
                    at,
                    "compares a real number with a whole number (an integer function \
                     without a finite type)",
                ));
            }
            let (x, y) = (
                a.saturating_mul(i128::from(var.low)),
                a.saturating_mul(i128::from(var.high)),
            );
            least = least.saturating_add(x.min(y));
            most = most.saturating_add(x.max(y));
            let a = i64::try_from(a).map_err(|_| self.not_linear(at, "grows too large"))?;
            terms.push((v, a));
        }
        if least >= 0 {
            return Ok(Gf::TRUE);
        }
        if most < 0 {
            return Ok(Gf::FALSE);
        }
        // Σ a·x ≥ −constant.
        let bound = i64::try_from(-constant).map_err(|_| self.not_linear(at, "grows too large"))?;
        Ok(self.linear_atom(terms, bound, real))
    }

    /// The atom of `Σ terms ≥ bound`, made once per comparison.
    fn linear_atom(&mut self, terms: Vec<(usize, i64)>, bound: i64, real: bool) -> Gf {
        let key = (terms, bound);
        if let Some(&g) = self.integers.memo.get(&key) {
            return g;
        }
        let atom = self.comparison_atom(self.integers.atoms.len(), false);
        self.integers.atoms.push(LinearAtom {
            atom,
            terms: key.0.clone(),
            bound,
            real,
        });
        self.integers.memo.insert(key, atom);
        atom
    }

    /// The auxiliary atom of comparison number `n` (among the exact ones when `exact`).
    fn comparison_atom(&mut self, n: usize, exact: bool) -> Gf {
        let tuple = [
            Value::Int(LINEAR_TAG),
            Value::Int(n as i64),
            Value::Int(i64::from(exact)),
        ];
        self.store.atom(AUX, &tuple)
    }

    /// The atom `Σ terms ≥ bound` over real variables, exactly (made once per comparison).
    fn real_atom(&mut self, terms: Vec<(usize, Rational)>, bound: Rational) -> Gf {
        let key = (terms, bound);
        if let Some(&g) = self.integers.real_memo.get(&key) {
            return g;
        }
        let atom = self.comparison_atom(self.integers.real_atoms.len(), true);
        self.integers.real_atoms.push(RealAtom {
            atom,
            terms: key.0.clone(),
            bound: key.1.clone(),
        });
        self.integers.real_memo.insert(key, atom);
        atom
    }

    /// The variable of `f(args)`, made on first use.
    /// The variable of application `f(args)` of a function searched as a number (made now
    /// when grounding has not met it).
    pub fn application_variable(&mut self, f: FuncId, args: Tuple) -> usize {
        self.integer_variable(f, args)
    }

    fn integer_variable(&mut self, f: FuncId, args: Tuple) -> usize {
        if let Some(&k) = self.integers.index.get(&(f, args.clone())) {
            return k;
        }
        let (low, high) = self.integers.functions[&f];
        let real = self.integers.reals.contains(&f);
        let k = self.new_var(Some((f, args.clone())), low, high, real);
        self.integers.index.insert((f, args), k);
        k
    }

    fn new_var(
        &mut self,
        application: Option<(FuncId, Tuple)>,
        low: i64,
        high: i64,
        real: bool,
    ) -> usize {
        self.integers.vars.push(IntVar {
            application,
            low,
            high,
            real,
        });
        self.integers.vars.len() - 1
    }

    /// A term that cannot be searched as a linear number, named with its position.
    pub fn not_linear(&self, t: &Term, what: &str) -> Error {
        let at = self.program.position(t.span).unwrap_or_default();
        let mut used = HashSet::default();
        crate::sema::walk::symbols(t, &mut used);
        let mut names: Vec<&str> = used
            .iter()
            .filter_map(|s| match *s {
                Symbol::Func(f) if self.is_integer_variable(f) => {
                    Some(self.program.func(f).name.as_str())
                }
                _ => None,
            })
            .collect();
        names.sort_unstable();
        let real = used
            .iter()
            .any(|s| matches!(s, Symbol::Func(f) if self.integers.reals.contains(f)));
        let remedy = if real {
            "Give one of them its value in the structure (a product with a known number is \
             linear), or use a whole-number type with listed values instead of the reals."
        } else if self.program.in_fodot(t.span) {
            "Give the function a finite type (e.g. `type Val := {0..100}` and `f: () -> Val`) \
             so that its values are listed, or give its values in the structure."
        } else {
            "Give the function a finite type (e.g. `type Val isa int` with `Val = {0..100}` \
             in the structure) so that its values are listed, or give its values in the \
             structure."
        };
        Error::input(format!(
            "The term at {at} {what} that the search chooses ({}): idp searches such numbers \
             only in linear arithmetic (sums, differences, products with a known number, \
             comparisons). {remedy}",
            names.join(", ")
        ))
    }
}

/// Removes from `candidates` the functions applied outside linear arithmetic.
struct Linearity<'c> {
    candidates: &'c mut HashMap<FuncId, (i64, i64)>,
    /// The candidates onto the reals.
    reals: &'c HashSet<FuncId>,
    /// Whether the term being walked is divided by a known number (linear only over reals).
    dividing: bool,
}

impl Linearity<'_> {
    fn formula(&mut self, f: &Formula) {
        match f.kind() {
            FormulaKind::Bool(_) => {}
            FormulaKind::Pred(_, args) => {
                for a in args {
                    self.term(a, false);
                }
            }
            FormulaKind::Cmp(_, a, b) => {
                self.term(a, true);
                self.term(b, true);
            }
            FormulaKind::Not(g) => self.formula(g),
            FormulaKind::And(gs) | FormulaKind::Or(gs) => {
                for g in gs {
                    self.formula(g);
                }
            }
            FormulaKind::Implies(a, b) | FormulaKind::Equiv(a, b) => {
                self.formula(a);
                self.formula(b);
            }
            FormulaKind::Forall(_, g) | FormulaKind::Exists(_, g) => self.formula(g),
        }
    }

    fn term(&mut self, t: &Term, linear: bool) {
        match t.kind() {
            TermKind::Func(f, args) => {
                if !linear || (self.dividing && !self.reals.contains(f)) {
                    self.candidates.remove(f);
                }
                for a in args {
                    self.term(a, false);
                }
            }
            TermKind::Arith(ArithOp::Div, a, b) => {
                // Divided by a known number: linear over the reals (checked when ground).
                let outer = std::mem::replace(&mut self.dividing, true);
                self.term(a, linear);
                self.dividing = outer;
                self.term(b, false);
            }
            TermKind::Arith(op, a, b) => {
                let linear = linear && matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul);
                self.term(a, linear);
                self.term(b, linear);
            }
            TermKind::Neg(a) => self.term(a, linear),
            TermKind::Abs(a) => self.term(a, linear),
            TermKind::Succ(_, a) | TermKind::Pred(_, a) => self.term(a, false),
            TermKind::Aggregate(kind, sets) => {
                for set in sets {
                    self.formula(&set.cond);
                    self.term(&set.term, linear && *kind == AggKind::Sum);
                }
            }
            TermKind::Var(_) | TermKind::Value(_) | TermKind::SortMin(_) | TermKind::SortMax(_) => {
            }
        }
    }
}
