//! A relaxation of a theory over a huge open predicate (issue 28): the predicate's uses that
//! read tuples no sentence singles out are replaced by free predicates over fewer arguments.
//!
//! Lazy grounding ([`crate::ground::delayed`]) grounds an open predicate P only over the
//! tuples that its guarded sentences `! x : P(pattern) => phi` single out and assumes the
//! others false. That is exact when nothing else reads P outside the patterns; a frame rule
//! of a translated game does, though: `C_cell(t, x, y, v, c) <- cell(t, x, y, v, c) &
//! do(t, p, write(a, b, v2, c2)) & (x ~= a | y ~= b)` reads every move. The relaxation made
//! here replaces such an atom, together with the comparisons on the variables that occur
//! nowhere else (`a b v2 c2`), by a fresh open predicate over the variables left
//! (`do'1(t, p, x, y)`), and leaves out the sentences that read P other than as a guard.
//!
//! Every model M of the theory gives one of the relaxation: P restricted to the pattern
//! tuples, each fresh predicate read off M (it stands for `? a b v2 c2 : do(..) & ..`). The
//! rules then derive what they derive in M, the guarded sentences hold (on the pattern
//! tuples P is unchanged, elsewhere false), and the other sentences are gone. So P may be
//! assumed false outside the patterns in the relaxation, lazy grounding is exact there, and a
//! relaxation without a model means a theory without one, found without grounding P's other
//! tuples (`hitori`: no blackening move is ever legal, so the puzzle is never solved, and both
//! of its `Score` rules fire).

use rustc_hash::FxHashSet as HashSet;

use crate::ground::delayed::{is_guard_of, Delayable};
use crate::ids::{PredId, Symbol};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule, Term, TermKind, Var};
use crate::sema::walk::Node;
use crate::sema::Predicate;
use crate::sema::{Program, Theory};
use crate::source::Span;

/// The relaxation: a copy of the program with the fresh predicates, the theory without the
/// sentences left out, the definitions with the rewritten rules, and what was changed.
pub(super) struct Abstraction {
    pub program: Program,
    pub theory: Theory,
    pub definitions: Vec<Definition>,
    /// The rules whose atoms of a delayed predicate were replaced.
    pub rewritten: Vec<Span>,
    /// The sentences left out (they read a delayed predicate other than as a guard).
    pub left_out: Vec<Span>,
}

/// The relaxation of `theory` (its definitions still to ground: `pending`) for the predicates
/// of `delayable`; `None` when a use of one cannot be replaced (an atom under a negation or a
/// disjunction, or one whose variables all occur elsewhere in its rule).
pub(super) fn abstract_delayed(
    program: &Program,
    theory: &Theory,
    pending: &[&Definition],
    delayable: &[Delayable],
) -> Option<Abstraction> {
    let mut out = Abstraction {
        program: program.clone(),
        theory: Theory {
            sentences: Vec::new(),
            definitions: Vec::new(),
            ..theory.clone()
        },
        definitions: Vec::new(),
        rewritten: Vec::new(),
        left_out: Vec::new(),
    };
    let delayed: HashSet<Symbol> = delayable.iter().map(|d| d.symbol).collect();
    for sentence in &theory.sentences {
        let read = reads(sentence, &delayed);
        if read.is_empty() || read.iter().all(|&s| is_guard_of(sentence, s)) {
            out.theory.sentences.push(sentence.clone());
        } else {
            out.left_out.push(sentence.span);
        }
    }
    for d in pending {
        let mut rules = Vec::with_capacity(d.rules.len());
        for rule in &d.rules {
            let mut fresh = Fresh {
                program: &mut out.program,
                made: 0,
            };
            let new = abstract_rule(rule, delayable, &delayed, &mut fresh)?;
            if fresh.made > 0 {
                out.rewritten.push(rule.span);
            }
            rules.push(new);
        }
        out.definitions.push(Definition {
            rules,
            span: d.span,
        });
    }
    Some(out)
}

/// The delayed symbols that `f` mentions.
fn reads(f: &Formula, delayed: &HashSet<Symbol>) -> Vec<Symbol> {
    let mut used = HashSet::default();
    crate::sema::walk::symbols(f, &mut used);
    used.into_iter().filter(|s| delayed.contains(s)).collect()
}

/// Makes the fresh predicates in the relaxation's program.
struct Fresh<'p> {
    program: &'p mut Program,
    made: usize,
}

impl Fresh<'_> {
    /// A new open predicate over the sorts of `vars`, named after `of`.
    fn predicate(&mut self, of: PredId, vars: &[Var]) -> PredId {
        self.made += 1;
        let original = self.program.pred(of).clone();
        let id = PredId(self.program.preds.len() as u32);
        self.program.preds.push(Predicate {
            name: format!("{}'{}", original.name, id.0),
            args: vars.iter().map(|v| v.sort).collect(),
            type_of: None,
            span: original.span,
        });
        id
    }
}

/// `rule` with each atom of a delayed predicate (`delayed`: the symbols of `delayable`) that no
/// pattern subsumes replaced (see the module documentation); the rule itself when it reads none.
fn abstract_rule(
    rule: &Rule,
    delayable: &[Delayable],
    delayed: &HashSet<Symbol>,
    fresh: &mut Fresh,
) -> Option<Rule> {
    if reads(&rule.body, delayed).is_empty() {
        return Some(rule.clone());
    }
    let (mut local, body) = match rule.body.kind() {
        FormulaKind::Exists(vars, inner) => (vars.clone(), &**inner),
        _ => (Vec::new(), &rule.body),
    };
    let mut conjuncts = Vec::new();
    flatten_and(body, &mut conjuncts);
    let mut kept: Vec<Formula> = Vec::new();
    let mut replaced = vec![false; conjuncts.len()];
    for (k, c) in conjuncts.iter().enumerate() {
        if reads(c, delayed).is_empty() || subsumed(c, delayable) {
            continue;
        }
        let FormulaKind::Pred(p, _) = c.kind() else {
            return None;
        };
        let projected = projected_vars(rule, &conjuncts, k, &local);
        if projected.is_empty() {
            return None;
        }
        let group: Vec<usize> = (0..conjuncts.len())
            .filter(|&j| j == k || (!replaced[j] && joins_group(conjuncts[j], &projected)))
            .collect();
        let args = group_args(&conjuncts, &group, &projected);
        for &j in &group {
            replaced[j] = true;
        }
        let q = fresh.predicate(*p, &args);
        let terms = args
            .iter()
            .map(|v| Term::new(TermKind::Var(v.clone()), v.sort, c.span))
            .collect();
        kept.push(Formula::new(FormulaKind::Pred(q, terms), c.span));
        local.retain(|v| !projected.contains(&v.id));
    }
    let mut parts: Vec<Formula> = conjuncts
        .iter()
        .zip(&replaced)
        .filter(|(_, r)| !**r)
        .map(|(c, _)| (*c).clone())
        .collect();
    parts.extend(kept);
    let span = rule.body.span;
    let mut body = Formula::new(FormulaKind::And(parts), span);
    if !local.is_empty() {
        body = Formula::new(FormulaKind::Exists(local, Box::new(body)), span);
    }
    Some(Rule {
        body,
        ..rule.clone()
    })
}

/// The conjuncts of `f`, nested conjunctions flattened.
fn flatten_and<'f>(f: &'f Formula, out: &mut Vec<&'f Formula>) {
    match f.kind() {
        FormulaKind::And(fs) => fs.iter().for_each(|g| flatten_and(g, out)),
        _ => out.push(f),
    }
}

/// Whether every atom of a delayed predicate in `f` is an instance of one of its patterns.
fn subsumed(f: &Formula, delayable: &[Delayable]) -> bool {
    !Node::from(f).any(&mut |n| match n {
        Node::Formula(g) => match g.kind() {
            FormulaKind::Pred(p, args) => delayable.iter().any(|d| {
                d.symbol == Symbol::Pred(*p)
                    && !d.patterns.iter().any(|pattern| instance_of(args, pattern))
            }),
            _ => false,
        },
        _ => false,
    })
}

/// Whether `args` is an instance of `pattern`: the pattern's variables bound consistently to
/// the arguments, its constants and constructors equal.
fn instance_of(args: &[Term], pattern: &[Term]) -> bool {
    let mut binding: Vec<(u32, &Term)> = Vec::new();
    args.len() == pattern.len()
        && args
            .iter()
            .zip(pattern)
            .all(|(a, p)| matches_term(a, p, &mut binding))
}

fn matches_term<'t>(arg: &'t Term, pattern: &Term, binding: &mut Vec<(u32, &'t Term)>) -> bool {
    match (pattern.kind(), arg.kind()) {
        (TermKind::Var(v), _) => match binding.iter().find(|(id, _)| *id == v.id) {
            Some((_, bound)) => bound.kind() == arg.kind(),
            None => {
                binding.push((v.id, arg));
                true
            }
        },
        (TermKind::Value(p), TermKind::Value(a)) => p == a,
        (TermKind::Func(f, ps), TermKind::Func(g, as_)) => {
            f == g
                && ps.len() == as_.len()
                && as_.iter().zip(ps).all(|(a, p)| matches_term(a, p, binding))
        }
        (TermKind::Value(v), TermKind::Func(g, as_))
        | (TermKind::Func(g, as_), TermKind::Value(v))
            if as_.is_empty() =>
        {
            v.compound_parts()
                .is_some_and(|c| c.constructor == *g && c.args.is_empty())
        }
        _ => false,
    }
}

/// The body variables of the atom `conjuncts[k]` that occur in no other conjunct that reads a
/// has an atom and not in the head: those the fresh predicate
/// projects out.
fn projected_vars(rule: &Rule, conjuncts: &[&Formula], k: usize, local: &[Var]) -> Vec<u32> {
    let mut elsewhere = HashSet::default();
    for t in &rule.head_args {
        crate::sema::walk::var_ids(t, &mut elsewhere);
    }
    for (j, c) in conjuncts.iter().enumerate() {
        if j != k && reads_a_symbol(c) {
            crate::sema::walk::var_ids(*c, &mut elsewhere);
        }
    }
    let mut in_atom = HashSet::default();
    crate::sema::walk::var_ids(conjuncts[k], &mut in_atom);
    local
        .iter()
        .map(|v| v.id)
        .filter(|id| in_atom.contains(id) && !elsewhere.contains(id))
        .collect()
}

/// Whether `f` has an atom.
fn reads_a_symbol(f: &Formula) -> bool {
    Node::from(f)
        .any(&mut |n| matches!(n, Node::Formula(g) if matches!(g.kind(), FormulaKind::Pred(..))))
}

/// Whether the conjunct `c` (no atom of its own) mentions a projected
/// variable, and so goes with the atom into the fresh predicate.
fn joins_group(c: &Formula, projected: &[u32]) -> bool {
    let mut ids = HashSet::default();
    crate::sema::walk::var_ids(c, &mut ids);
    !reads_a_symbol(c) && projected.iter().any(|v| ids.contains(v))
}

/// The free variables of the conjuncts in `group` other than the projected ones, in order of
/// first occurrence: the fresh predicate's arguments.
fn group_args(conjuncts: &[&Formula], group: &[usize], projected: &[u32]) -> Vec<Var> {
    let mut args: Vec<Var> = Vec::new();
    for &j in group {
        crate::sema::walk::free_vars(conjuncts[j], &mut |v: &Var| {
            if !projected.contains(&v.id) && !args.iter().any(|a| a.id == v.id) {
                args.push(v.clone());
            }
        });
    }
    args
}
