//! IDP3's `ground(T, S)`: the ground theory of `T` over `S` as a theory over `T`'s
//! vocabulary, without variables. Definitions whose inputs the structure fixes are evaluated
//! (their values become ground rules `P(1,2) <- true.`); the other definitions become ground
//! rules, one per defined atom with the disjunction of its bodies; each sentence becomes its
//! ground instances that the structure does not decide, each a sentence. Together with `S`
//! the result has the models of `T` with `S`.

use rustc_hash::FxHashMap as HashMap;

use crate::error::IdpResult;
use crate::ground::{value_terms, Gf, GroundDefinition, Grounder, Lift};
use crate::ids::Symbol;
use crate::infer::definitions::evaluate_definitions_at;
use crate::infer::session::{dependency_order_at, naming};
use crate::infer::{Inferred, Options};
use crate::print::{definition_to_string, formula_to_string};
use crate::sema::ir::{Definition, Formula, FormulaKind, Rule};
use crate::sema::transform::flatten_formula;
use crate::sema::{Program, Theory, TheoryForm};
use crate::source::Span;
use crate::structure::Structure;

/// The ground theory of `theory` over `structure` (IDP3's `ground`); `model_equivalent` is
/// the procedure's flag, which only changes how the theory prints (its Tseitins).
pub fn ground(
    program: &Program,
    theory: &Theory,
    structure: &Structure,
    options: &Options,
    model_equivalent: bool,
) -> IdpResult<Inferred<Theory>> {
    let mut warnings = Vec::new();
    let mut out = Theory {
        name: theory.name.clone(),
        vocabulary: theory.vocabulary,
        sentences: Vec::new(),
        definitions: Vec::new(),
        span: theory.span,
        form: TheoryForm::Ground { model_equivalent },
    };
    let Some((evaluated, pending)) =
        evaluate_definitions_at(program, theory, structure, options, &mut warnings)?
    else {
        let span = theory.span.unwrap_or_default();
        out.sentences
            .push(Formula::new(FormulaKind::Bool(false), span));
        return Ok(Inferred::new(out, warnings));
    };
    let mut grounder = Grounder::new(
        program,
        &evaluated,
        options.max_ground_size,
        options.run.until(None),
    );
    let pending_defs: Vec<&Definition> = pending.iter().map(|&k| &theory.definitions[k]).collect();
    for d in &pending_defs {
        grounder.force_unknown(&d.defined());
    }
    // By index in `theory.definitions`.
    let mut grounded: HashMap<usize, GroundDefinition> = HashMap::default();
    for k in dependency_order_at(&pending_defs) {
        let d = pending_defs[k];
        let gd = grounder.ground_definition(d).map_err(|e| {
            naming(
                e,
                "the definition",
                program,
                d.span,
                &definition_to_string(program, d),
            )
        })?;
        grounder.mark_encoded(&gd);
        grounded.insert(pending[k], gd);
    }
    let mut roots: Vec<(Gf, Span)> = Vec::new();
    for f in &theory.sentences {
        let g = grounder.ground_formula(f).map_err(|e| {
            naming(
                e,
                "the sentence",
                program,
                f.span,
                &formula_to_string(program, f),
            )
        })?;
        grounder.check_growth()?;
        grounder.learn_units(g);
        roots.push((g, f.span));
    }
    let mut lift = Lift::new(program, grounder.store(), options.max_ground_size);
    for (g, span) in roots {
        for c in lift.conjuncts(g) {
            out.sentences.push(flatten_formula(&lift.formula(c, span)?));
        }
    }
    for (k, d) in theory.definitions.iter().enumerate() {
        let definition = match grounded.get(&k) {
            Some(gd) => ground_rules(&mut lift, gd, d.span)?,
            None => evaluated_rules(program, d, &evaluated),
        };
        out.definitions.push(definition);
    }
    Ok(Inferred::new(out, warnings))
}

/// A ground definition as IR rules: one per defined atom, its body the disjunction of the
/// atom's ground bodies; a defined symbol without any rule gets `! x : P(x) <- false.`
fn ground_rules(lift: &mut Lift, gd: &GroundDefinition, span: Span) -> IdpResult<Definition> {
    let program = lift.program();
    let mut rules = Vec::with_capacity(gd.rules.len());
    let mut heads: Vec<Symbol> = Vec::new();
    for (head, bodies) in &gd.rules {
        let Some(a) = lift.store().as_atom(*head) else {
            continue;
        };
        let (symbol, tuple) = lift.store().atom_key(a).clone();
        let parts = bodies
            .iter()
            .map(|&b| lift.formula(b, span))
            .collect::<IdpResult<Vec<_>>>()?;
        let body = match <[Formula; 1]>::try_from(parts) {
            Ok([one]) => flatten_formula(&one),
            Err(many) => flatten_formula(&Formula::new(FormulaKind::Or(many), span)),
        };
        heads.push(symbol);
        rules.push(Rule {
            vars: Vec::new(),
            head: symbol,
            head_args: value_terms(program, symbol, &tuple, span),
            body,
            span,
        });
    }
    for &s in &gd.defined {
        if !heads.contains(&s) {
            rules.push(empty_rule(program, s, span));
        }
    }
    Ok(Definition { rules, span })
}

/// The values an evaluated definition gave its symbols, as rules `P(1,2) <- true.`
fn evaluated_rules(program: &Program, d: &Definition, evaluated: &Structure) -> Definition {
    let mut rules = Vec::new();
    for s in d.defined() {
        let mut tuples: Vec<_> = evaluated
            .table(s)
            .map(|t| t.ct().iter().cloned().collect())
            .unwrap_or_default();
        tuples.sort();
        if tuples.is_empty() {
            rules.push(empty_rule(program, s, d.span));
        }
        for t in tuples {
            rules.push(Rule {
                vars: Vec::new(),
                head: s,
                head_args: value_terms(program, s, &t, d.span),
                body: Formula::new(FormulaKind::Bool(true), d.span),
                span: d.span,
            });
        }
    }
    Definition {
        rules,
        span: d.span,
    }
}

/// `! x1 .. xn : S(x1, .., xn) <- false.`: the symbol defined, with no true atom.
fn empty_rule(program: &Program, s: Symbol, span: Span) -> Rule {
    let mut id = 0;
    Rule::nothing_true(s, program.symbol_sorts(s), span, || {
        id += 1;
        id - 1
    })
}
