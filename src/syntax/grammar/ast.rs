//! The shape ([`super::shape`]) of a file as the hand-written parser reads it, from its AST.

use super::shape::{self as sh, indented};
use crate::syntax::ast::*;

/// The shape of a parsed file.
pub fn file_shape(file: &File) -> Vec<String> {
    items(&file.items)
}

fn items(items: &[Item]) -> Vec<String> {
    items.iter().flat_map(item).collect()
}

fn item(item: &Item) -> Vec<String> {
    match item {
        Item::Namespace(n) => {
            let mut out = vec![format!("namespace {} {{", n.name.name)];
            out.extend(indented(items(&n.items)));
            out.push("}".to_string());
            out
        }
        Item::Vocabulary(v) => vocabulary(v),
        Item::Theory(t) => theory(t),
        Item::Structure(s) => structure(s),
        Item::Factlist(f) => factlist(f),
        Item::Procedure(p) => procedure(p),
        Item::Query(q) => vec![format!(
            "query {} : {} {{{} : {}}}",
            q.name.name,
            q.vocabulary.to_path(),
            vars(&q.vars).join(" "),
            formula(&q.formula)
        )],
        Item::Term(t) => vec![format!(
            "term {} : {} {}",
            t.name.name,
            t.vocabulary.to_path(),
            term(&t.term)
        )],
        Item::Using(u) => vec![using(u)],
        // IDP3 has no display block: it is IDP-Z3's consultant's alone.
        Item::Display(_) => Vec::new(),
    }
}

fn using(u: &Using) -> String {
    let kind = match u.kind {
        UsingKind::Vocabulary => "vocabulary",
        UsingKind::Namespace => "namespace",
    };
    format!("using {kind} {}", u.target.to_path())
}

// ---------------------------------------------------------------------------------------------
// Vocabularies
// ---------------------------------------------------------------------------------------------

fn vocabulary(v: &Vocabulary) -> Vec<String> {
    let head = match &v.ltc {
        None => format!("vocabulary {}", v.name.name),
        Some(None) => format!("ltcvocabulary {}", v.name.name),
        Some(Some(names)) => format!(
            "ltcvocabulary {} ({})",
            v.name.name,
            names
                .iter()
                .map(Pointer::to_path)
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    let mut out = vec![head];
    out.extend(indented(v.decls.iter().map(declaration).collect()));
    out
}

fn paths(ps: &[Pointer]) -> Vec<String> {
    ps.iter().map(Pointer::to_path).collect()
}

fn declaration(d: &Decl) -> String {
    match d {
        Decl::Type(t) => type_decl(t),
        Decl::Predicate(p) => format!("pred {}{}", p.name.name, sh::parenthesised(&paths(&p.args))),
        Decl::Function(f) => format!(
            "{}func {}{}:{}",
            if f.partial { "partial " } else { "" },
            f.name.name,
            sh::parenthesised(&paths(&f.args)),
            f.result.to_path()
        ),
        Decl::ExternVocabulary(p) => format!("extern vocabulary {}", p.to_path()),
        Decl::ExternSymbol(e) => extern_symbol(e),
        Decl::Using(u) => using(u),
    }
}

fn type_decl(t: &TypeDecl) -> String {
    let body = match &t.body {
        TypeBody::Open => String::new(),
        TypeBody::Enumerated(els) => format!(
            " = {{{}}}",
            els.iter().map(element).collect::<Vec<_>>().join(";")
        ),
        TypeBody::Constructed(cs) => format!(
            " constructed from {{{}}}",
            cs.iter()
                .map(|c| format!("{}{}", c.name.name, sh::parenthesised(&paths(&c.args))))
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    format!(
        "type {}{body} isa({}) contains({})",
        t.name.name,
        paths(&t.isa).join(","),
        paths(&t.contains).join(",")
    )
}

fn extern_symbol(e: &ExternSymbol) -> String {
    match e {
        ExternSymbol::Type(p) => format!("extern type {}", p.to_path()),
        ExternSymbol::Sorted { name, sorts, .. } => {
            format!("extern {}{}", name.to_path(), annotation(sorts))
        }
        ExternSymbol::Arity {
            name,
            arity,
            function,
            ..
        } => format!(
            "extern {}/{arity}{}",
            name.to_path(),
            if *function { ":" } else { "" }
        ),
    }
}

fn annotation(a: &SortAnnotation) -> String {
    let result = a.result.as_ref().map(Pointer::to_path);
    sh::annotation(&paths(&a.args), result.as_deref())
}

fn symbol(s: &SymbolRef) -> String {
    match &s.sorts {
        Some(a) => format!("{}{}", s.name.to_path(), annotation(a)),
        None => s.name.to_path(),
    }
}

// ---------------------------------------------------------------------------------------------
// Theories, formulas and terms
// ---------------------------------------------------------------------------------------------

fn theory(t: &Theory) -> Vec<String> {
    let mut out = vec![format!(
        "theory {} : {}",
        t.name.name,
        t.vocabulary.to_path()
    )];
    let mut body = Vec::new();
    for c in &t.components {
        match c {
            TheoryComponent::Sentence(f) => body.push(format!("sentence {}", formula(f))),
            TheoryComponent::Definition(d) => {
                body.push("definition".to_string());
                body.extend(indented(d.rules.iter().map(rule).collect()));
            }
            TheoryComponent::FixpointDefinition(_) => body.push("fixpoint".to_string()),
            TheoryComponent::Using(u) => body.push(using(u)),
        }
    }
    out.extend(indented(body));
    out
}

fn rule(r: &Rule) -> String {
    let head = match &r.head {
        RuleHead::Predicate { symbol: s, args } => format!("{}{}", symbol(s), terms(args)),
        RuleHead::Function {
            symbol: s,
            args,
            value,
        } => format!("{}{} = {}", symbol(s), terms(args), term(value)),
    };
    let body = r.body.as_ref().map(formula).unwrap_or_default();
    format!("rule ! {} : {head} <- {body}", vars(&r.vars).join(" "))
}

fn vars(vs: &[VarDecl]) -> Vec<String> {
    vs.iter()
        .map(|v| sh::variable(&v.name.name, v.sort.as_ref().map(Pointer::to_path)))
        .collect()
}

fn terms(ts: &[Term]) -> String {
    sh::parenthesised(&ts.iter().map(term).collect::<Vec<_>>())
}

fn quantifier(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Forall => "!",
        Quantifier::Exists => "?",
    }
}

/// A formula, fully bracketed.
pub fn formula(f: &Formula) -> String {
    match &f.kind {
        FormulaKind::True => "true".to_string(),
        FormulaKind::False => "false".to_string(),
        FormulaKind::Atom { symbol: s, args } => format!("{}{}", symbol(s), terms(args)),
        FormulaKind::Compare { terms: ts, ops } => {
            let mut s = format!("({}", term(&ts[0]));
            for (op, t) in ops.iter().zip(&ts[1..]) {
                s.push_str(&format!(" {} {}", op.symbol(), term(t)));
            }
            s + ")"
        }
        FormulaKind::Not(g) => format!("~{}", formula(g)),
        FormulaKind::Binary { op, left, right } => {
            sh::binary(&formula(left), connective(*op), &formula(right))
        }
        FormulaKind::Quant { q, vars: vs, body } => {
            sh::quantified(quantifier(*q), &vars(vs), &formula(body))
        }
        FormulaKind::Count {
            op,
            bound,
            vars: vs,
            body,
        } => sh::quantified(
            &format!("?{}{bound}", op.symbol()),
            &vars(vs),
            &formula(body),
        ),
        FormulaKind::QuantIn {
            q,
            vars: vs,
            symbol: s,
            body,
        } => format!(
            "({} ({}) in {} : {})",
            quantifier(*q),
            vars(vs).join(" "),
            symbol(s),
            formula(body)
        ),
        FormulaKind::QuantSat {
            q,
            vars: vs,
            cond,
            body,
        } => format!(
            "({} ({}) sat {} : {})",
            quantifier(*q),
            vars(vs).join(" "),
            formula(cond),
            formula(body)
        ),
    }
}

fn connective(op: BinConn) -> &'static str {
    match op {
        BinConn::And => "&",
        BinConn::Or => "|",
        BinConn::Implies => "=>",
        BinConn::ImpliedBy => "<=",
        BinConn::Equiv => "<=>",
    }
}

/// A term, fully bracketed.
pub fn term(t: &Term) -> String {
    match &t.kind {
        TermKind::App { symbol: s, args } => match args {
            Some(a) => format!("{}{}", symbol(s), terms(a)),
            None => symbol(s),
        },
        TermKind::Int(v) => v.to_string(),
        TermKind::Float(v) => format!("{v:?}"),
        TermKind::Str(s) => sh::string(s),
        TermKind::Char(c) => sh::character(*c),
        TermKind::Arith { op, left, right } => sh::binary(&term(left), op.symbol(), &term(right)),
        TermKind::Neg(a) => sh::negate(&term(a)),
        TermKind::Aggregate { kind, sets } => sh::aggregate(
            aggregate_kind(*kind),
            &sets.iter().map(set).collect::<Vec<_>>(),
        ),
    }
}

fn aggregate_kind(kind: AggKind) -> &'static str {
    match kind {
        AggKind::Card => "#",
        AggKind::Sum => "sum",
        AggKind::Prod => "prod",
        AggKind::Min => "min",
        AggKind::Max => "max",
    }
}

fn set(s: &SetExpr) -> String {
    let t = s.term.as_ref().map(term);
    sh::set(&vars(&s.vars), &formula(&s.cond), t.as_deref())
}

// ---------------------------------------------------------------------------------------------
// Structures, factlists, procedures
// ---------------------------------------------------------------------------------------------

fn structure(s: &Structure) -> Vec<String> {
    let mut out = vec![format!(
        "structure {} : {}",
        s.name.name,
        s.vocabulary.to_path()
    )];
    let mut body: Vec<String> = s.interpretations.iter().map(interpretation).collect();
    body.extend(s.usings.iter().map(using));
    out.extend(indented(body));
    out
}

fn interpretation(i: &Interpretation) -> String {
    let truth = match i.truth {
        Truth::TwoValued => "",
        Truth::Ct => "<ct>",
        Truth::Cf => "<cf>",
        Truth::U => "<u>",
    };
    let value = match &i.value {
        InterValue::Table(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(table_entry)
                .collect::<Vec<_>>()
                .join(";")
        ),
        InterValue::Bool(b) => b.to_string(),
        InterValue::Element(e) => element(e),
        InterValue::Generate => "generate".to_string(),
        InterValue::Procedure(p) => format!("procedure {}", p.to_path()),
    };
    format!("{}{truth} = {value}", symbol(&i.symbol))
}

fn table_entry(e: &TableEntry) -> String {
    match e {
        TableEntry::Element(el) => element(el),
        TableEntry::Tuple(els, _) => elements(els),
        TableEntry::Mapping { args, value, .. } => {
            format!("{}->{}", elements(args), element(value))
        }
    }
}

fn elements(els: &[Element]) -> String {
    sh::parenthesised(&els.iter().map(element).collect::<Vec<_>>())
}

fn element(e: &Element) -> String {
    match &e.kind {
        ElementKind::Int(v) => v.to_string(),
        ElementKind::Float(v) => format!("{v:?}"),
        ElementKind::Str { value, quoted } => {
            if *quoted {
                sh::string(value)
            } else {
                value.clone()
            }
        }
        ElementKind::Char(c) => sh::character(*c),
        ElementKind::Compound { constructor, args } => {
            format!("{}{}", constructor.to_path(), elements(args))
        }
        ElementKind::IntRange(a, b) => format!("{a}..{b}"),
        ElementKind::CharRange(a, b) => format!("{a}..{b}"),
    }
}

fn factlist(f: &Factlist) -> Vec<String> {
    let mut out = vec![format!(
        "factlist {} : {}",
        f.name.name,
        f.vocabulary.to_path()
    )];
    out.extend(indented(
        f.facts
            .iter()
            .map(|fact| format!("fact {}{}", fact.symbol.to_path(), elements(&fact.args)))
            .collect(),
    ));
    out
}

fn procedure(p: &Procedure) -> Vec<String> {
    let params: Vec<String> = p.params.iter().map(|i| i.name.clone()).collect();
    vec![
        format!("procedure {}{}", p.name.name, sh::parenthesised(&params)),
        format!("{}body {:?}", sh::INDENT, p.body),
    ]
}
