//! Small random well-typed specifications, and the oracle that checks the pipeline on them.
//!
//! A [`Spec`] is IDP text generated from the fuzzer's bytes (via `arbitrary`): one or two types
//! of one to three elements (plain or `isa int`), a few predicates and functions of arity at
//! most two (some partial), a theory of sentences built from connectives, quantifiers, counting
//! quantifiers, (in)equalities, arithmetic and aggregates, an optional (possibly recursive,
//! possibly non-monotone) inductive definition, and a structure that interprets some symbols
//! two-valued, some three-valued (`<ct>`/`<cf>`) and leaves the rest open.
//!
//! [`check_spec`] runs model expansion for all models and asserts that every model passes the
//! naive checker (`idp::infer::check`) and that their number equals the brute-force count.

use std::fmt;

use arbitrary::{Arbitrary, Result, Unstructured};
use idp::diagnostics::Diagnostics;
use idp::infer::{brute_force_count, check_model};
use idp::infer::{self, Options};
use idp::sema::{Component, Program};
use idp::source::SourceMap;

/// Brute force is attempted up to this many candidate structures.
const BRUTE_FORCE_LIMIT: u64 = 1 << 12;
/// Models asked for when brute force is out of reach (they are still checked one by one).
const MODELS_WITHOUT_ORACLE: usize = 64;
/// Whether aggregates and counting quantifiers in rule bodies may range over defined symbols
/// (evaluated in the bounds approximation; `prod` is then left out, see FUZZING.md).
const RECURSIVE_AGGREGATES: bool = true;

/// A generated specification (vocabulary `V`, theory `T`, structure `S`).
pub struct Spec {
    pub text: String,
}

impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Spec:\n{}", self.text)
    }
}

impl<'a> Arbitrary<'a> for Spec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Spec> {
        Ok(Spec {
            text: Gen::new(u)?.text()?,
        })
    }
}

/// A type: its size and whether it is a subtype of `int` (elements `0..size-1`) or plain
/// (elements `t<i>e<k>`).
struct Sort {
    size: usize,
    int: bool,
}

/// A predicate or function symbol: argument sorts, and for a function its result sort.
struct Sym {
    name: String,
    args: Vec<usize>,
    result: Option<usize>,
    partial: bool,
}

/// The generator: the vocabulary chosen so far and the bytes still to draw from.
struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    sorts: Vec<Sort>,
    preds: Vec<Sym>,
    funcs: Vec<Sym>,
    defined: Vec<Sym>,
    fresh: usize,
    /// Generating a rule body.
    in_rule: bool,
}

/// The variables in scope, with their sorts.
type Scope = Vec<(String, usize)>;

impl<'u, 'a> Gen<'u, 'a> {
    fn new(u: &'u mut Unstructured<'a>) -> Result<Gen<'u, 'a>> {
        let mut g = Gen {
            u,
            sorts: Vec::new(),
            preds: Vec::new(),
            funcs: Vec::new(),
            defined: Vec::new(),
            fresh: 0,
            in_rule: false,
        };
        g.vocabulary()?;
        Ok(g)
    }

    fn pick<T: Copy>(&mut self, options: &[T]) -> Result<T> {
        Ok(*self.u.choose(options)?)
    }

    fn below(&mut self, n: usize) -> Result<usize> {
        self.u.int_in_range(0..=n - 1)
    }

    fn chance(&mut self, num: u8, den: u8) -> Result<bool> {
        self.u.ratio(num, den)
    }

    /// Draws the sorts and symbols.
    fn vocabulary(&mut self) -> Result<()> {
        for _ in 0..1 + self.below(2)? {
            let size = 1 + self.below(3)?;
            let int = self.chance(1, 2)?;
            self.sorts.push(Sort { size, int });
        }
        for i in 0..1 + self.below(3)? {
            let args = self.arg_sorts(2)?;
            self.preds
                .push(Self::symbol(format!("P{i}"), args, None, false));
        }
        for i in 0..self.below(3)? {
            let args = self.arg_sorts(2)?;
            let result = Some(self.below(self.sorts.len())?);
            let partial = self.chance(1, 5)?;
            self.funcs
                .push(Self::symbol(format!("F{i}"), args, result, partial));
        }
        for i in 0..self.below(3)? {
            let args = self.arg_sorts(1)?;
            self.defined
                .push(Self::symbol(format!("D{i}"), args, None, false));
        }
        Ok(())
    }

    fn symbol(name: String, args: Vec<usize>, result: Option<usize>, partial: bool) -> Sym {
        Sym {
            name,
            args,
            result,
            partial,
        }
    }

    fn arg_sorts(&mut self, max_arity: usize) -> Result<Vec<usize>> {
        let arity = self.below(max_arity + 1)?;
        (0..arity).map(|_| self.below(self.sorts.len())).collect()
    }

    /// The whole specification.
    fn text(&mut self) -> Result<String> {
        let vocabulary = self.vocabulary_text();
        let theory = self.theory_text()?;
        let structure = self.structure_text()?;
        Ok(format!("{vocabulary}\n{theory}\n{structure}\n"))
    }

    fn sort_name(s: usize) -> String {
        format!("T{s}")
    }

    fn vocabulary_text(&self) -> String {
        let mut out = String::from("vocabulary V {\n");
        for (i, s) in self.sorts.iter().enumerate() {
            let isa = if s.int { " isa int" } else { "" };
            out.push_str(&format!("  type {}{isa}\n", Self::sort_name(i)));
        }
        for p in self.preds.iter().chain(&self.defined) {
            out.push_str(&format!("  {}{}\n", p.name, Self::arg_list(&p.args)));
        }
        for f in &self.funcs {
            let partial = if f.partial { "partial " } else { "" };
            let result = Self::sort_name(f.result.expect("a function"));
            let args = Self::arg_list(&f.args);
            out.push_str(&format!("  {partial}{}{args} : {result}\n", f.name));
        }
        out.push_str("}\n");
        out
    }

    fn arg_list(args: &[usize]) -> String {
        if args.is_empty() {
            return String::new();
        }
        let names: Vec<String> = args.iter().map(|&s| Self::sort_name(s)).collect();
        format!("({})", names.join(", "))
    }

    // ----- the structure -----

    fn element(&self, sort: usize, k: usize) -> String {
        if self.sorts[sort].int {
            k.to_string()
        } else {
            format!("t{sort}e{k}")
        }
    }

    fn domain(&self, sort: usize) -> Vec<String> {
        (0..self.sorts[sort].size)
            .map(|k| self.element(sort, k))
            .collect()
    }

    /// All argument tuples of a symbol, each as its elements.
    fn tuples(&self, args: &[usize]) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new()];
        for &s in args {
            out = out
                .into_iter()
                .flat_map(|t| {
                    self.domain(s).into_iter().map(move |e| {
                        let mut t = t.clone();
                        t.push(e);
                        t
                    })
                })
                .collect();
        }
        out
    }

    fn structure_text(&mut self) -> Result<String> {
        let mut out = String::from("structure S : V {\n");
        for s in 0..self.sorts.len() {
            let dom = if self.sorts[s].int {
                format!("0..{}", self.sorts[s].size - 1)
            } else {
                self.domain(s).join("; ")
            };
            out.push_str(&format!("  {} = {{ {dom} }}\n", Self::sort_name(s)));
        }
        for i in 0..self.preds.len() {
            out.push_str(&self.pred_interpretation(i)?);
        }
        for i in 0..self.funcs.len() {
            out.push_str(&self.func_interpretation(i)?);
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// A predicate: open, two-valued, or three-valued (disjoint `<ct>` and `<cf>`).
    fn pred_interpretation(&mut self, i: usize) -> Result<String> {
        let args = self.preds[i].args.clone();
        let name = self.preds[i].name.clone();
        if args.is_empty() {
            return Ok(String::new());
        }
        let tuples = self.tuples(&args);
        match self.below(3)? {
            0 => Ok(String::new()),
            1 => {
                let chosen = self.subset(&tuples)?;
                Ok(format!("  {name} = {{ {} }}\n", Self::tuple_list(&chosen)))
            }
            _ => {
                let (mut ct, mut cf) = (Vec::new(), Vec::new());
                for t in tuples {
                    match self.below(3)? {
                        0 => ct.push(t),
                        1 => cf.push(t),
                        _ => {}
                    }
                }
                Ok(format!(
                    "  {name}<ct> = {{ {} }}\n  {name}<cf> = {{ {} }}\n",
                    Self::tuple_list(&ct),
                    Self::tuple_list(&cf)
                ))
            }
        }
    }

    /// A total function: open or given completely; a partial one stays open.
    fn func_interpretation(&mut self, i: usize) -> Result<String> {
        if self.funcs[i].partial || self.chance(1, 2)? {
            return Ok(String::new());
        }
        let (name, args) = (self.funcs[i].name.clone(), self.funcs[i].args.clone());
        let result = self.funcs[i].result.expect("a function");
        let size = self.sorts[result].size;
        if args.is_empty() {
            let k = self.below(size)?;
            return Ok(format!("  {name} = {}\n", self.element(result, k)));
        }
        let mut entries = Vec::new();
        for t in self.tuples(&args) {
            let k = self.below(size)?;
            entries.push(format!("{}->{}", t.join(","), self.element(result, k)));
        }
        Ok(format!("  {name} = {{ {} }}\n", entries.join("; ")))
    }

    fn subset(&mut self, tuples: &[Vec<String>]) -> Result<Vec<Vec<String>>> {
        let mut out = Vec::new();
        for t in tuples {
            if self.chance(1, 2)? {
                out.push(t.clone());
            }
        }
        Ok(out)
    }

    fn tuple_list(tuples: &[Vec<String>]) -> String {
        let items: Vec<String> = tuples.iter().map(|t| t.join(",")).collect();
        items.join("; ")
    }

    // ----- the theory -----

    fn theory_text(&mut self) -> Result<String> {
        let mut out = String::from("theory T : V {\n");
        for _ in 0..self.below(4)? {
            let f = self.formula(3, &mut Vec::new(), true)?;
            out.push_str(&format!("  {f}.\n"));
        }
        if !self.defined.is_empty() {
            out.push_str(&self.definition()?);
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// One definition with one or two rules per defined predicate.
    fn definition(&mut self) -> Result<String> {
        let mut out = String::from("  {\n");
        for d in 0..self.defined.len() {
            for _ in 0..1 + self.below(2)? {
                out.push_str(&format!("    {}\n", self.rule(d)?));
            }
        }
        out.push_str("  }\n");
        Ok(out)
    }

    fn rule(&mut self, d: usize) -> Result<String> {
        let args = self.defined[d].args.clone();
        let mut scope: Scope = Vec::new();
        for &s in &args {
            let v = self.fresh_var();
            scope.push((v, s));
        }
        self.in_rule = true;
        let body = self.formula(2, &mut scope, true);
        self.in_rule = false;
        let body = body?;
        let name = &self.defined[d].name;
        if scope.is_empty() {
            return Ok(format!("{name} <- {body}."));
        }
        let head_vars: Vec<String> = scope.iter().map(|(v, _)| v.clone()).collect();
        let quant: Vec<String> = scope
            .iter()
            .map(|(v, s)| format!("{v}[{}]", Self::sort_name(*s)))
            .collect();
        Ok(format!(
            "! {} : {name}({}) <- {body}.",
            quant.join(" "),
            head_vars.join(", ")
        ))
    }

    fn fresh_var(&mut self) -> String {
        self.fresh += 1;
        format!("x{}", self.fresh)
    }

    /// A formula of at most `depth` levels of connectives over the variables in `scope`.
    fn formula(&mut self, depth: u32, scope: &mut Scope, defined_ok: bool) -> Result<String> {
        let choice = if depth == 0 {
            self.below(2)?
        } else {
            self.below(13)?
        };
        let d = depth.saturating_sub(1);
        Ok(match choice {
            0 => self.atom(scope, defined_ok)?,
            1 => self.comparison(scope)?,
            2 => format!("~{}", self.formula(d, scope, defined_ok)?),
            3..=6 => {
                let op = ["&", "|", "=>", "<=>"][choice - 3];
                let a = self.formula(d, scope, defined_ok)?;
                let b = self.formula(d, scope, defined_ok)?;
                format!("({a} {op} {b})")
            }
            7 | 8 => {
                let q = if choice == 7 { "!" } else { "?" };
                self.quantified(q, d, scope, defined_ok)?
            }
            9 => {
                let q = self.counting_quantifier()?;
                let defined_ok = self.aggregate_may_read_defined(defined_ok);
                self.quantified(&q, d, scope, defined_ok)?
            }
            10 | 11 => self.aggregate(d, scope, defined_ok)?,
            _ => self.pick(&["true", "false"])?.to_string(),
        })
    }

    fn quantified(
        &mut self,
        q: &str,
        depth: u32,
        scope: &mut Scope,
        defined_ok: bool,
    ) -> Result<String> {
        let s = self.below(self.sorts.len())?;
        let v = self.fresh_var();
        scope.push((v.clone(), s));
        let body = self.formula(depth, scope, defined_ok);
        scope.pop();
        Ok(format!("({q} {v}[{}] : {})", Self::sort_name(s), body?))
    }

    fn counting_quantifier(&mut self) -> Result<String> {
        let op = self.pick(&["=", "<", ">", "=<", ">="])?;
        let bound = self.below(4)?;
        Ok(format!("?{op}{bound}"))
    }

    /// `P(t, ...)`; arguments of a sort without a term get a fresh quantified variable.
    fn atom(&mut self, scope: &mut Scope, defined_ok: bool) -> Result<String> {
        let total = self.preds.len() + if defined_ok { self.defined.len() } else { 0 };
        let k = self.below(total)?;
        let p = if k < self.preds.len() {
            &self.preds[k]
        } else {
            &self.defined[k - self.preds.len()]
        };
        let (name, args) = (p.name.clone(), p.args.clone());
        let mut wrap = Vec::new();
        let mut terms = Vec::new();
        for s in args {
            terms.push(self.term_or_var(s, 1, scope, &mut wrap)?);
        }
        let atom = if terms.is_empty() {
            name
        } else {
            format!("{name}({})", terms.join(", "))
        };
        self.wrap(atom, &wrap)
    }

    /// `t1 op t2` on one sort (order comparisons and arithmetic on int sorts).
    fn comparison(&mut self, scope: &mut Scope) -> Result<String> {
        let s = self.below(self.sorts.len())?;
        let mut wrap = Vec::new();
        let a = self.term_or_var(s, 1, scope, &mut wrap)?;
        let b = self.term_or_var(s, 1, scope, &mut wrap)?;
        let text = if self.sorts[s].int {
            let a = self.arithmetic(a, scope)?;
            let op = self.pick(&["=", "~=", "<", ">", "=<", ">="])?;
            format!("{a} {op} {b}")
        } else {
            let op = self.pick(&["=", "~="])?;
            format!("{a} {op} {b}")
        };
        self.wrap(text, &wrap)
    }

    /// Sometimes `t + u`, `t - u`, `t * u`, `-t` or `abs(t)` with an integer `u`.
    fn arithmetic(&mut self, t: String, _scope: &Scope) -> Result<String> {
        Ok(match self.below(6)? {
            0 => format!("({t} + {})", self.below(3)?),
            1 => format!("({t} - {})", self.below(3)?),
            2 => format!("({t} * {})", self.below(3)?),
            3 => format!("-{t}"),
            4 => format!("abs({t})"),
            _ => t,
        })
    }

    /// Whether a set (of an aggregate or counting quantifier) may read defined symbols.
    fn aggregate_may_read_defined(&self, defined_ok: bool) -> bool {
        defined_ok && (RECURSIVE_AGGREGATES || !self.in_rule)
    }

    /// `#{x : φ} op n`, or `sum`/`min`/`max`/`prod` over an int sort.
    fn aggregate(&mut self, depth: u32, scope: &mut Scope, defined_ok: bool) -> Result<String> {
        let defined_ok = self.aggregate_may_read_defined(defined_ok);
        let s = self.below(self.sorts.len())?;
        let v = self.fresh_var();
        scope.push((v.clone(), s));
        let body = self.formula(depth, scope, defined_ok);
        scope.pop();
        let body = body?;
        let sort = Self::sort_name(s);
        let op = self.pick(&["=", "~=", "<", ">", "=<", ">="])?;
        let bound = self.below(5)? as i64 - 1;
        let agg = if self.sorts[s].int && self.chance(2, 3)? {
            // `prod` over defined atoms in a rule body keeps its value cases in the engine,
            // which Kleene's logic reads more weakly than the bounds approximation.
            let kinds: &[&str] = if defined_ok && self.in_rule {
                &["sum", "min", "max"]
            } else {
                &["sum", "min", "max", "prod"]
            };
            let kind = self.pick(kinds)?;
            format!("{kind}{{ {v}[{sort}] : {body} : {v} }}")
        } else {
            format!("#{{ {v}[{sort}] : {body} }}")
        };
        Ok(format!("{agg} {op} {bound}"))
    }

    /// A term of sort `s`, or a fresh variable (recorded in `wrap`) when there is none.
    fn term_or_var(
        &mut self,
        s: usize,
        depth: u32,
        scope: &Scope,
        wrap: &mut Vec<(String, usize)>,
    ) -> Result<String> {
        if let Some(t) = self.term(s, depth, scope)? {
            return Ok(t);
        }
        let v = self.fresh_var();
        wrap.push((v.clone(), s));
        Ok(v)
    }

    /// A term of sort `s`: a variable in scope, an element of an int sort, or a function
    /// application (with at most `depth` nested applications).
    fn term(&mut self, s: usize, depth: u32, scope: &Scope) -> Result<Option<String>> {
        let mut options: Vec<String> = scope
            .iter()
            .filter(|(_, vs)| *vs == s)
            .map(|(v, _)| v.clone())
            .collect();
        if self.sorts[s].int {
            options.push(self.below(self.sorts[s].size + 1)?.to_string());
        }
        let funcs: Vec<usize> = (0..self.funcs.len())
            .filter(|&f| self.funcs[f].result == Some(s))
            .collect();
        let use_func = !funcs.is_empty() && (options.is_empty() || self.chance(1, 3)?);
        if use_func {
            let f = funcs[self.below(funcs.len())?];
            if let Some(t) = self.application(f, depth, scope)? {
                return Ok(Some(t));
            }
        }
        if options.is_empty() {
            return Ok(None);
        }
        let k = self.below(options.len())?;
        Ok(Some(options.swap_remove(k)))
    }

    fn application(&mut self, f: usize, depth: u32, scope: &Scope) -> Result<Option<String>> {
        let (name, args) = (self.funcs[f].name.clone(), self.funcs[f].args.clone());
        if args.is_empty() {
            return Ok(Some(name));
        }
        if depth == 0 {
            return Ok(None);
        }
        let mut terms = Vec::new();
        for s in args {
            match self.term(s, depth - 1, scope)? {
                Some(t) => terms.push(t),
                None => return Ok(None),
            }
        }
        Ok(Some(format!("{name}({})", terms.join(", "))))
    }

    /// Quantifies the fresh variables of an atom: `! x[S] : atom` or `? x[S] : atom`.
    fn wrap(&mut self, text: String, wrap: &[(String, usize)]) -> Result<String> {
        if wrap.is_empty() {
            return Ok(text);
        }
        let q = self.pick(&["!", "?"])?;
        let vars: Vec<String> = wrap
            .iter()
            .map(|(v, s)| format!("{v}[{}]", Self::sort_name(*s)))
            .collect();
        Ok(format!("({q} {} : {text})", vars.join(" ")))
    }
}

/// Resolves generated text; it must resolve without errors.
fn resolve(text: &str) -> Program {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let file = idp::syntax::parse_text("gen.idp", text, &mut sources, &mut diags);
    let program = idp::sema::resolve(&file, &mut diags);
    let errors: Vec<String> = diags
        .items
        .iter()
        .filter(|d| d.is_error())
        .map(|d| idp::diagnostics::render_plain(d, &sources))
        .collect();
    assert!(
        errors.is_empty(),
        "generated text does not resolve:\n{}\n{text}",
        errors.concat()
    );
    program
}

/// Model expansion against the naive checker and brute force (see the module docs).
pub fn check_spec(spec: &Spec) {
    let text = &spec.text;
    let p = resolve(text);
    let (Some(Component::Theory(t)), Some(Component::Structure(s))) =
        (p.lookup(&["T"]), p.lookup(&["S"]))
    else {
        panic!("no theory T or structure S in\n{text}");
    };
    let (theory, structure) = (&p.theories[t.index()], &p.structures[s.index()]);
    let expected = brute_force_count(&p, theory, structure, BRUTE_FORCE_LIMIT);
    let options = Options {
        nbmodels: if expected.is_some() {
            0
        } else {
            MODELS_WITHOUT_ORACLE
        },
        ..Options::default()
    };
    let models = match infer::modelexpand(&p, theory, structure, None, &options) {
        Ok(found) => found.value,
        Err(e) => panic!("model expansion failed: {e}\n{text}"),
    };
    for m in &models {
        if let Err(why) = check_model(&p, theory, m) {
            panic!("a returned model is wrong: {why}\n{m:?}\n{text}");
        }
    }
    if let Some(n) = expected {
        assert_eq!(
            models.len() as u64,
            n,
            "model count differs from brute force\n{text}"
        );
    }
}
