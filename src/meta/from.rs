//! `frommeta`: the theory that a structure over the meta vocabulary describes, as IDP3's
//! `DeMetafier` reads it: each element of the given sentence predicate is a sentence, or a
//! definition when it is in `Definition`; symbol names are told back with the names of the
//! `tometa` calls before.

use std::collections::HashMap;
use std::rc::Rc;

use crate::ids::{PredId, SortId, Symbol, VocId};
use crate::meta::{MetaError, MetaNames, MetaSym};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, SetExpr, Term, TermKind, Var};
use crate::sema::{Program, Theory, TheoryForm};
use crate::source::Span;
use crate::structure::{Structure, Tuple, Value};
use crate::syntax::ast::{AggKind, CmpOp};

/// The theory over `voc` that `structure` describes, its sentences the elements of
/// `sentence`.
pub fn from_meta(
    program: &Program,
    voc: VocId,
    sentence: PredId,
    structure: &Structure,
    names: &MetaNames,
    name: &str,
) -> Result<Theory, MetaError> {
    let mut d = DeMetafier {
        program,
        reader: Reader::new(program, structure),
        names,
        vars: HashMap::new(),
    };
    let mut tops: Vec<Value> = structure
        .table(Symbol::Pred(sentence))
        .map(|t| t.ct().iter().filter_map(|t| t.first().copied()).collect())
        .unwrap_or_default();
    tops.sort();
    let mut theory = Theory {
        form: TheoryForm::Source,
        name: name.to_string(),
        vocabulary: voc,
        sentences: Vec::new(),
        definitions: Vec::new(),
        span: None,
    };
    for e in tops {
        if d.reader.is("Definition", e) {
            theory.definitions.push(d.definition(e)?);
        } else {
            theory.sentences.push(d.formula(e)?);
        }
    }
    Ok(theory)
}

/// The tables of a meta structure, by symbol name.
struct Reader<'a> {
    structure: &'a Structure,
    sorts: HashMap<String, SortId>,
    /// Functions: arguments to value.
    funcs: HashMap<String, HashMap<Tuple, Value>>,
    /// Predicates: their true tuples, sorted.
    preds: HashMap<String, Vec<Tuple>>,
}

impl<'a> Reader<'a> {
    fn new(program: &Program, structure: &'a Structure) -> Reader<'a> {
        let voc = program.voc(structure.vocabulary);
        let sorts = voc
            .sorts
            .iter()
            .map(|&s| (program.sort(s).name.clone(), s))
            .collect();
        let mut funcs = HashMap::new();
        let mut preds = HashMap::new();
        for (&sym, table) in &structure.symbols {
            match sym {
                Symbol::Func(f) => {
                    let map: HashMap<Tuple, Value> = table
                        .ct()
                        .iter()
                        .filter_map(|t| t.split_last().map(|(v, a)| (a.to_vec(), *v)))
                        .collect();
                    funcs.insert(program.func(f).name.clone(), map);
                }
                Symbol::Pred(p) => {
                    let mut tuples: Vec<Tuple> = table.ct().iter().cloned().collect();
                    tuples.sort();
                    preds.insert(program.pred(p).name.clone(), tuples);
                }
            }
        }
        Reader {
            structure,
            sorts,
            funcs,
            preds,
        }
    }

    /// Whether `v` is in the type `sort`.
    fn is(&self, sort: &str, v: Value) -> bool {
        self.sorts
            .get(sort)
            .and_then(|&s| self.structure.domain(s))
            .is_some_and(|vals| vals.contains(&v))
    }

    fn value(&self, func: &str, args: &[Value]) -> Option<Value> {
        self.funcs.get(func)?.get(args).copied()
    }

    /// The second elements of the tuples of `pred` whose first element is `first`.
    fn related(&self, pred: &str, first: Value) -> Vec<Value> {
        self.pairs(pred, first, 0)
    }

    /// The first elements of the tuples of `pred` whose second element is `second`.
    fn related_back(&self, pred: &str, second: Value) -> Vec<Value> {
        self.pairs(pred, second, 1)
    }

    /// The other elements of the pairs of `pred` that have `known` at position `at` (0 or 1).
    fn pairs(&self, pred: &str, known: Value, at: usize) -> Vec<Value> {
        self.preds
            .get(pred)
            .map(|ts| {
                ts.iter()
                    .filter(|t| t.len() == 2 && t[at] == known)
                    .map(|t| t[1 - at])
                    .collect()
            })
            .unwrap_or_default()
    }
}

struct DeMetafier<'a> {
    program: &'a Program,
    reader: Reader<'a>,
    names: &'a MetaNames,
    vars: HashMap<Value, Var>,
}

fn incomplete(what: &str, e: Value) -> MetaError {
    MetaError::Incomplete(format!("{what} {e}"))
}

fn span() -> Span {
    Span::default()
}

impl DeMetafier<'_> {
    fn get(&self, func: &str, e: Value, what: &str) -> Result<Value, MetaError> {
        self.reader
            .value(func, &[e])
            .ok_or_else(|| incomplete(what, e))
    }

    /// The meta vocabulary's constructor `name` (`forall`, `disj`, `sum`, ...) as a value.
    fn constructor(&self, name: &str) -> Result<Value, MetaError> {
        crate::meta::constructor(self.program, self.reader.structure.vocabulary, name)
    }

    fn symbol(&self, e: Value) -> Result<MetaSym, MetaError> {
        let name = e.string_text().unwrap_or_else(|| e.to_string());
        self.names
            .symbol(&name)
            .ok_or(MetaError::UnknownSymbol(name))
    }

    fn sort(&self, e: Value) -> Result<SortId, MetaError> {
        match self.symbol(e)? {
            MetaSym::Pred(p) => self
                .program
                .pred(p)
                .type_of
                .ok_or_else(|| incomplete("the type", e)),
            _ => Err(incomplete("the type", e)),
        }
    }

    fn var(&mut self, e: Value) -> Result<Var, MetaError> {
        if let Some(v) = self.vars.get(&e) {
            return Ok(v.clone());
        }
        let sort = self.sort(self.get("varSort", e, "the variable")?)?;
        let text = e.string_text().unwrap_or_else(|| e.to_string());
        let name = text.rsplit_once('_').map_or(text.as_str(), |(n, _)| n);
        let v = Var {
            id: self.vars.len() as u32 + 1,
            name: Rc::from(name),
            sort,
        };
        self.vars.insert(e, v.clone());
        Ok(v)
    }

    fn vars(&mut self, pred: &str, owner: Value) -> Result<Vec<Var>, MetaError> {
        self.reader
            .related(pred, owner)
            .into_iter()
            .map(|v| self.var(v))
            .collect()
    }

    fn formula(&mut self, e: Value) -> Result<Formula, MetaError> {
        let kind = if self.reader.is("Negation", e) {
            let sub = self.get("subForm", e, "the negation")?;
            FormulaKind::Not(Box::new(self.formula(sub)?))
        } else if self.reader.is("Quant", e) {
            let forall =
                self.get("quantType", e, "the quantification")? == self.constructor("forall")?;
            let vars = self.vars("quantVars", e)?;
            let sub = self.get("subForm", e, "the quantification")?;
            let body = Box::new(self.formula(sub)?);
            if forall {
                FormulaKind::Forall(vars, body)
            } else {
                FormulaKind::Exists(vars, body)
            }
        } else if self.reader.is("BoolForm", e) {
            let disj = self.get("boolType", e, "the conjunction or disjunction")?
                == self.constructor("disj")?;
            let subs = self.reader.related("subForms", e);
            let fs = subs
                .into_iter()
                .map(|s| self.formula(s))
                .collect::<Result<Vec<_>, _>>()?;
            match (disj, fs.is_empty()) {
                (true, true) => FormulaKind::Bool(false),
                (false, true) => FormulaKind::Bool(true),
                (true, false) => FormulaKind::Or(fs),
                (false, false) => FormulaKind::And(fs),
            }
        } else if self.reader.is("Atom", e) {
            return self.atom_formula(e);
        } else if self.reader.is("Equiv", e) {
            let l = self.get("left", e, "the equivalence")?;
            let r = self.get("right", e, "the equivalence")?;
            FormulaKind::Equiv(Box::new(self.formula(l)?), Box::new(self.formula(r)?))
        } else {
            return Err(incomplete("the formula", e));
        };
        Ok(Formula::new(kind, span()))
    }

    /// The number of arguments of a meta symbol.
    fn arity(&self, symd: Value) -> Result<i64, MetaError> {
        self.reader
            .value("arity", &[symd])
            .and_then(Value::as_int)
            .ok_or_else(|| incomplete("the symbol", symd))
    }

    /// An atom's symbol and argument terms (a function's value last).
    fn atom(&mut self, e: Value) -> Result<(MetaSym, Vec<Term>), MetaError> {
        let symd = self.get("aSymbol", e, "the atom")?;
        let sym = self.symbol(symd)?;
        let arity = self.arity(symd)?;
        let arity = arity + i64::from(matches!(sym, MetaSym::Func(_)));
        let mut terms = Vec::new();
        for i in 0..arity {
            let t = self
                .reader
                .value("aTerms", &[e, Value::Int(i)])
                .ok_or_else(|| incomplete("the atom", e))?;
            terms.push(self.term(t)?);
        }
        Ok((sym, terms))
    }

    fn atom_formula(&mut self, e: Value) -> Result<Formula, MetaError> {
        let (sym, mut terms) = self.atom(e)?;
        let kind = match sym {
            MetaSym::Pred(p) => FormulaKind::Pred(p, terms),
            MetaSym::Cmp(op, _) if terms.len() == 2 => {
                let b = terms.pop().expect("two terms");
                let a = terms.pop().expect("two terms");
                FormulaKind::Cmp(op, a, b)
            }
            MetaSym::Func(f) => {
                let value = terms.pop().ok_or_else(|| incomplete("the atom", e))?;
                let app = Term::new(
                    TermKind::Func(f, terms),
                    self.program.func(f).result,
                    span(),
                );
                FormulaKind::Cmp(CmpOp::Eq, app, value)
            }
            _ => return Err(incomplete("the atom", e)),
        };
        Ok(Formula::new(kind, span()))
    }

    fn term(&mut self, e: Value) -> Result<Term, MetaError> {
        let sort = self.sort(self.get("termSort", e, "the term")?)?;
        let kind = if self.reader.is("VarT", e) {
            let v = self.get("var", e, "the term")?;
            TermKind::Var(self.var(v)?)
        } else if self.reader.is("DomT", e) {
            TermKind::Value(self.get("dom", e, "the term")?)
        } else if self.reader.is("FuncT", e) {
            self.func_term(e)?
        } else if self.reader.is("AggT", e) {
            self.aggregate(e)?
        } else {
            return Err(incomplete("the term", e));
        };
        Ok(Term::new(kind, sort, span()))
    }

    fn func_term(&mut self, e: Value) -> Result<TermKind, MetaError> {
        let symd = self.get("fSymbol", e, "the term")?;
        let sym = self.symbol(symd)?;
        let arity = self.arity(symd)?;
        let mut args = Vec::new();
        for i in 0..arity {
            let t = self
                .reader
                .value("fTerms", &[e, Value::Int(i)])
                .ok_or_else(|| incomplete("the term", e))?;
            args.push(self.term(t)?);
        }
        let one = |mut args: Vec<Term>| {
            args.pop()
                .map(Box::new)
                .ok_or_else(|| incomplete("the term", e))
        };
        Ok(match sym {
            MetaSym::Func(f) => TermKind::Func(f, args),
            MetaSym::Arith(op, _) if args.len() == 2 => {
                let b = args.pop().expect("two");
                let a = args.pop().expect("two");
                TermKind::Arith(op, Box::new(a), Box::new(b))
            }
            MetaSym::Neg(_) => TermKind::Neg(one(args)?),
            MetaSym::Abs(_) => TermKind::Abs(one(args)?),
            MetaSym::Min(s) => TermKind::SortMin(s),
            MetaSym::Max(s) => TermKind::SortMax(s),
            MetaSym::Succ(s) => TermKind::Succ(s, one(args)?),
            MetaSym::Prev(s) => TermKind::Pred(s, one(args)?),
            _ => return Err(incomplete("the term", e)),
        })
    }

    fn aggregate(&mut self, e: Value) -> Result<TermKind, MetaError> {
        let f = self.get("aggFunc", e, "the aggregate")?;
        let kinds = [
            ("card", AggKind::Card),
            ("sum", AggKind::Sum),
            ("prod", AggKind::Prod),
            ("min", AggKind::Min),
            ("max", AggKind::Max),
        ];
        let mut kind = None;
        for (name, k) in kinds {
            if self.constructor(name)? == f {
                kind = Some(k);
            }
        }
        let kind = kind.ok_or_else(|| incomplete("the aggregate", e))?;
        let set = self.get("aggSet", e, "the aggregate")?;
        let mut sets = Vec::new();
        for q in self.reader.related_back("setOf", set) {
            let vars = self.vars("setVars", q)?;
            let cond = self.get("setForm", q, "the set")?;
            let term = self.get("setTerm", q, "the set")?;
            sets.push(SetExpr {
                vars,
                cond: self.formula(cond)?,
                term: self.term(term)?,
            });
        }
        Ok(TermKind::Aggregate(kind, sets))
    }

    fn definition(&mut self, e: Value) -> Result<Definition, MetaError> {
        let rules = self
            .reader
            .related_back("ruleOf", e)
            .into_iter()
            .map(|r| self.rule(r))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Definition {
            rules,
            span: span(),
        })
    }

    fn rule(&mut self, e: Value) -> Result<Rule, MetaError> {
        let vars = self.vars("ruleVars", e)?;
        let h = self.get("head", e, "the rule")?;
        let (sym, head_args) = self.atom(h)?;
        let head = match sym {
            MetaSym::Pred(p) => Symbol::Pred(p),
            MetaSym::Func(f) => Symbol::Func(f),
            _ => return Err(incomplete("the rule", e)),
        };
        let b = self.get("body", e, "the rule")?;
        Ok(Rule {
            vars,
            head,
            head_args,
            body: self.formula(b)?,
            span: span(),
        })
    }
}
