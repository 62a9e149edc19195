//! The shape ([`super::shape`]) of a file from the grammar's parse tree, and the numeric checks
//! IDP3's lexer makes (integers fit in 32 bits, floats in a double).

use pest::iterators::Pair;

use super::shape::{self as sh, indented};
use super::Rule;

type P<'i> = Pair<'i, Rule>;

fn kids(p: P) -> Vec<P> {
    p.into_inner().collect()
}

/// The first integer or float token out of IDP3's range, described; `None` when all fit.
pub fn number_out_of_range(file: P) -> Option<String> {
    file.into_inner().flatten().find_map(|p| {
        let bad = match p.as_rule() {
            Rule::integer_token => p
                .as_str()
                .parse::<i64>()
                .map_or(true, |v| v > i32::MAX as i64),
            Rule::float_token => float_out_of_range(p.as_str()),
            _ => false,
        };
        bad.then(|| {
            let (line, col) = p.line_col();
            format!("{line}:{col}: number out of range: {}", p.as_str())
        })
    })
}

/// Does `strtod` report ERANGE for this literal: overflow, or a non-zero value that rounds to
/// zero or to a subnormal double (glibc's underflow)?
fn float_out_of_range(text: &str) -> bool {
    let v: f64 = text.parse().unwrap_or(0.0);
    let nonzero = text.bytes().any(|b| (b'1'..=b'9').contains(&b));
    v.is_infinite() || (nonzero && (v == 0.0 || v.is_subnormal()))
}

/// The shape of a whole file (the pair of rule `file`).
pub fn file_shape(file: P) -> Vec<String> {
    let body = file
        .into_inner()
        .find(|p| p.as_rule() == Rule::file_body)
        .expect("a file body");
    items(body)
}

fn items(parent: P) -> Vec<String> {
    parent.into_inner().flat_map(item).collect()
}

fn item(p: P) -> Vec<String> {
    match p.as_rule() {
        Rule::namespace => {
            let k = kids(p);
            let mut out = vec![format!("namespace {} {{", k[1].as_str())];
            out.extend(indented(k[2..].iter().cloned().flat_map(item).collect()));
            out.push("}".to_string());
            out
        }
        Rule::vocabulary | Rule::ltc_vocabulary => vocabulary(p),
        Rule::theory => theory(p),
        Rule::structure => structure(p),
        Rule::factlist => factlist(p),
        Rule::procedure => procedure(p),
        Rule::query => vec![query(p)],
        Rule::term_block => {
            let k = kids(p);
            vec![format!(
                "term {} : {} {}",
                k[1].as_str(),
                pointer(k[3].clone()),
                term(k[4].clone())
            )]
        }
        Rule::using_top => vec![using(p)],
        _ => Vec::new(), // include, fobdd, EOI
    }
}

/// `using vocabulary X` / `using namespace X` in any block.
fn using(p: P) -> String {
    let k = kids(p);
    let kind = if k[0].as_rule() == Rule::using_vocabulary {
        "vocabulary"
    } else {
        "namespace"
    };
    format!("using {kind} {}", pointer(k[1].clone()))
}

/// A pointer `A::B::c` (any state's pointer rule).
fn pointer(p: P) -> String {
    let parts: Vec<&str> = p.into_inner().map(|i| i.as_str()).collect();
    sh::pointer(&parts)
}

fn pointers(p: P) -> Vec<String> {
    p.into_inner().map(pointer).collect()
}

/// A symbol with its optional sort annotation (any state's intern pointer rule).
fn intern_pointer(p: P) -> String {
    let k = kids(p);
    let name = pointer(k[0].clone());
    if k.len() == 1 {
        return name;
    }
    let args = pointers(k[1].clone());
    let result = k.get(3).map(|r| pointer(r.clone()));
    format!("{name}{}", sh::annotation(&args, result.as_deref()))
}

/// The name of an intern pointer without its sort annotation (which the AST does not keep for
/// LTC names, compound elements and facts).
fn unannotated(p: P) -> String {
    pointer(kids(p).remove(0))
}

// ---------------------------------------------------------------------------------------------
// Vocabularies
// ---------------------------------------------------------------------------------------------

fn vocabulary(p: P) -> Vec<String> {
    let ltc = p.as_rule() == Rule::ltc_vocabulary;
    let k = kids(p);
    let name = k[1].as_str();
    let mut head = if ltc {
        format!("ltcvocabulary {name}")
    } else {
        format!("vocabulary {name}")
    };
    if k[2].as_rule() == Rule::ltc_names {
        let names: Vec<String> = k[2].clone().into_inner().map(unannotated).collect();
        head.push_str(&format!(" ({})", names.join(",")));
    }
    let content = k
        .iter()
        .find(|c| c.as_rule() == Rule::vocab_content)
        .expect("vocabulary content");
    let decls = content
        .clone()
        .into_inner()
        .filter(|d| d.as_rule() != Rule::newline)
        .map(declaration)
        .collect();
    let mut out = vec![head];
    out.extend(indented(decls));
    out
}

fn declaration(p: P) -> String {
    match p.as_rule() {
        Rule::type_decl => type_decl(p),
        Rule::predicate_decl => {
            let k = kids(p);
            let args = k.get(1).map(|a| pointers(a.clone())).unwrap_or_default();
            format!("pred {}{}", k[0].as_str(), sh::parenthesised(&args))
        }
        Rule::function_decl => function_decl(p),
        Rule::extern_vocabulary => format!("extern vocabulary {}", pointer(kids(p)[1].clone())),
        Rule::extern_decl => extern_decl(kids(p)[1].clone()),
        _ => using(p),
    }
}

fn function_decl(p: P) -> String {
    let k = kids(p);
    let partial = k[0].as_rule() == Rule::kw_partial;
    let k = &k[usize::from(partial)..];
    let args = if k[1].as_rule() == Rule::sort_tuple_v {
        pointers(k[1].clone())
    } else {
        Vec::new()
    };
    format!(
        "{}func {}{}:{}",
        if partial { "partial " } else { "" },
        k[0].as_str(),
        sh::parenthesised(&args),
        pointer(k[k.len() - 1].clone())
    )
}

fn type_decl(p: P) -> String {
    let k = kids(p);
    let (mut body, mut isa, mut contains) = (String::new(), Vec::new(), Vec::new());
    for part in &k[2..] {
        let inner = kids(part.clone());
        match part.as_rule() {
            Rule::constructed => {
                let cs: Vec<String> = inner[1].clone().into_inner().map(constructor).collect();
                body = format!(" constructed from {{{}}}", cs.join(","));
            }
            Rule::enumeration => body = format!(" = {{{}}}", elements(inner[0].clone())),
            Rule::isa => isa = pointers(inner[1].clone()),
            _ => contains = pointers(inner[1].clone()),
        }
    }
    format!(
        "type {}{body} isa({}) contains({})",
        k[1].as_str(),
        isa.join(","),
        contains.join(",")
    )
}

fn constructor(p: P) -> String {
    let k = kids(p);
    let args = k.get(1).map(|a| pointers(a.clone())).unwrap_or_default();
    format!("{}{}", k[0].as_str(), sh::parenthesised(&args))
}

fn extern_decl(p: P) -> String {
    let kind = p.as_rule();
    let k = kids(p);
    let name = pointer(k[if kind == Rule::extern_type { 1 } else { 0 }].clone());
    match (kind, k.len()) {
        (Rule::extern_type, _) => format!("extern type {name}"),
        (_, 2) if k[1].as_rule() == Rule::integer_token => {
            format!("extern {name}/{}", k[1].as_str())
        }
        (_, 2) => format!(
            "extern {name}{}",
            sh::annotation(&pointers(k[1].clone()), None)
        ),
        (_, _) if k[1].as_rule() == Rule::integer_token => {
            format!("extern {name}/{}:", k[1].as_str())
        }
        _ => format!(
            "extern {name}{}",
            sh::annotation(&pointers(k[1].clone()), Some(&pointer(k[3].clone())))
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Domain elements (all states)
// ---------------------------------------------------------------------------------------------

/// The elements of a unary table or enumeration, `;`-separated.
fn elements(p: P) -> String {
    p.into_inner().map(element).collect::<Vec<_>>().join(";")
}

fn element(p: P) -> String {
    match p.as_rule() {
        Rule::int_v | Rule::int_s | Rule::int_f => int_element(p),
        Rule::float_v | Rule::float_s | Rule::float_f => {
            let k = kids(p);
            sh::float(k[k.len() - 1].as_str(), k.len() == 2)
        }
        Rule::int_range_v | Rule::int_range_s | Rule::int_range_f => {
            let k = kids(p);
            format!(
                "{}..{}",
                int_element(k[0].clone()),
                int_element(k[2].clone())
            )
        }
        Rule::char_range_v | Rule::char_range_s | Rule::char_range_f => {
            let k = kids(p);
            format!("{}..{}", char_of(&k[0]), char_of(&k[2]))
        }
        Rule::str_element_v => element(kids(p)[0].clone()),
        Rule::compound_v | Rule::compound_s | Rule::compound_f => {
            let k = kids(p);
            let args: Vec<String> = k[1..].iter().cloned().map(element).collect();
            format!("{}{}", unannotated(k[0].clone()), sh::parenthesised(&args))
        }
        Rule::string => sh::string(unquote(p.as_str())),
        Rule::char_literal => sh::character(char_of(&p)),
        _ => p.as_str().to_string(), // a name
    }
}

fn int_element(p: P) -> String {
    let k = kids(p);
    let v: i64 = k[k.len() - 1].as_str().parse().unwrap_or(0);
    if k.len() == 2 { -v } else { v }.to_string()
}

/// The character of a `letter` or a `'c'` literal.
fn char_of(p: &P) -> char {
    let s = p.as_str();
    let mut cs = s.chars();
    if s.starts_with('\'') {
        cs.next();
    }
    cs.next().unwrap_or(' ')
}

fn unquote(s: &str) -> &str {
    &s[1..s.len() - 1]
}

// ---------------------------------------------------------------------------------------------
// Theories
// ---------------------------------------------------------------------------------------------

fn theory(p: P) -> Vec<String> {
    let k = kids(p);
    let mut out = vec![format!(
        "theory {} : {}",
        k[1].as_str(),
        pointer(k[3].clone())
    )];
    let mut body = Vec::new();
    for part in &k[4..] {
        match part.as_rule() {
            Rule::sentence => body.push(format!(
                "sentence {}",
                formula(kids(part.clone())[0].clone())
            )),
            Rule::definition => {
                body.push("definition".to_string());
                let rules = part
                    .clone()
                    .into_inner()
                    .filter(|r| r.as_rule() == Rule::rule)
                    .map(rule)
                    .collect();
                body.extend(indented(rules));
            }
            Rule::fixpoint_definition => body.push("fixpoint".to_string()),
            _ => body.push(using(part.clone())),
        }
    }
    out.extend(indented(body));
    out
}

fn rule(p: P) -> String {
    let mut vars = Vec::new();
    let (mut head, mut body) = (String::new(), String::new());
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::rule_vars => vars.extend(variables(kids(part)[0].clone())),
            Rule::rule_head => head = rule_head(kids(part)[0].clone()),
            Rule::formula => body = formula(part),
            _ => {}
        }
    }
    format!("rule ! {} : {head} <- {body}", vars.join(" "))
}

fn rule_head(p: P) -> String {
    let function = p.as_rule() == Rule::function_head;
    let k = kids(p);
    let (symbol, args) = application_parts(k[0].clone());
    let args = sh::parenthesised(&args.unwrap_or_default());
    if function {
        format!("{symbol}{args} = {}", term(k[2].clone()))
    } else {
        format!("{symbol}{args}")
    }
}

fn variables(p: P) -> Vec<String> {
    p.into_inner()
        .map(|v| {
            let k = kids(v);
            sh::variable(k[0].as_str(), k.get(1).map(|s| pointer(s.clone())))
        })
        .collect()
}

fn query(p: P) -> String {
    let k = kids(p);
    format!(
        "query {} : {} {{{} : {}}}",
        k[1].as_str(),
        pointer(k[3].clone()),
        variables(k[4].clone()).join(" "),
        formula(k[6].clone())
    )
}

// ---------------------------------------------------------------------------------------------
// Formulas
// ---------------------------------------------------------------------------------------------

/// A formula (rules `formula` down to `negation`), fully bracketed.
fn formula(p: P) -> String {
    let kind = p.as_rule();
    let k = kids(p);
    match kind {
        Rule::formula => formula(k[0].clone()),
        Rule::equivalence | Rule::implication | Rule::reverse_implication => match k.len() {
            1 => formula(k[0].clone()),
            _ => sh::binary(
                &formula(k[0].clone()),
                k[1].as_str(),
                &formula(k[2].clone()),
            ),
        },
        Rule::disjunction | Rule::conjunction => match k.len() {
            1 => formula(k[0].clone()),
            _ => {
                let op = if kind == Rule::disjunction { "|" } else { "&" };
                sh::binary(&formula(k[0].clone()), op, &formula(k[1].clone()))
            }
        },
        Rule::negation if k.len() == 2 => format!("~{}", formula(k[1].clone())),
        Rule::negation => formula(k[0].clone()),
        Rule::quantified => quantified(k),
        _ => atomic_formula(k),
    }
}

fn quantified(k: Vec<P>) -> String {
    let body = formula(k[k.len() - 1].clone());
    if k[0].as_rule() == Rule::count_bound {
        let b = kids(k[0].clone());
        let op = if b.len() == 2 {
            sh::comparison(b[0].as_str())
        } else {
            "="
        };
        let bound: i64 = b[b.len() - 1].as_str().parse().unwrap_or(0);
        return sh::quantified(&format!("?{op}{bound}"), &variables(k[1].clone()), &body);
    }
    let q = k[0].as_str();
    match k[2].as_rule() {
        Rule::kw_in => format!(
            "({q} ({}) in {} : {body})",
            variables(k[1].clone()).join(" "),
            intern_pointer(k[3].clone())
        ),
        Rule::kw_sat => format!(
            "({q} ({}) sat {} : {body})",
            variables(k[1].clone()).join(" "),
            formula(k[3].clone())
        ),
        _ => sh::quantified(q, &variables(k[1].clone()), &body),
    }
}

fn is_comparison(p: &P) -> bool {
    matches!(
        p.as_rule(),
        Rule::op_le | Rule::op_ge | Rule::op_ne | Rule::eq | Rule::lt | Rule::gt
    )
}

fn atomic_formula(k: Vec<P>) -> String {
    match k[0].as_rule() {
        Rule::kw_true => "true".to_string(),
        Rule::kw_false => "false".to_string(),
        Rule::formula => formula(k[0].clone()),
        Rule::application_t if k.len() == 1 => {
            let (symbol, args) = application_parts(k[0].clone());
            format!("{symbol}{}", sh::parenthesised(&args.unwrap_or_default()))
        }
        _ => comparison_chain(k),
    }
}

/// `t1 op t2 op ...`: the first term may be a flat arithmetic sequence.
fn comparison_chain(k: Vec<P>) -> String {
    let first_end = k.iter().position(is_comparison).unwrap_or(k.len());
    let first = if k[0].as_rule() == Rule::term {
        term(k[0].clone())
    } else {
        arithmetic(&k[..first_end])
    };
    let mut s = format!("({first}");
    for pair in k[first_end..].chunks(2) {
        s.push_str(&format!(
            " {} {}",
            sh::comparison(pair[0].as_str()),
            term(pair[1].clone())
        ));
    }
    s + ")"
}

// ---------------------------------------------------------------------------------------------
// Terms
// ---------------------------------------------------------------------------------------------

/// A `term`: a float, string or character literal, or arithmetic.
fn term(p: P) -> String {
    let inner = kids(p).remove(0);
    match inner.as_rule() {
        Rule::float_token => sh::float(inner.as_str(), false),
        Rule::string => sh::string(unquote(inner.as_str())),
        Rule::char_literal => sh::character(char_of(&inner)),
        _ => arithmetic(&kids(inner)),
    }
}

/// Binding power and right-associativity of IDP3's arithmetic operators.
fn power(op: &str) -> (u8, bool) {
    match op {
        "+" | "-" => (1, false),
        "*" | "/" => (2, false),
        "%" => (3, false),
        _ => (4, true),
    }
}

/// A flat `operand (op operand)*` sequence, by precedence climbing.
fn arithmetic(seq: &[P]) -> String {
    let mut pos = 0;
    climb(seq, &mut pos, 0)
}

fn climb(seq: &[P], pos: &mut usize, min: u8) -> String {
    let mut left = operand(seq[*pos].clone());
    *pos += 1;
    while *pos < seq.len() {
        let op = seq[*pos].as_str();
        let (bp, right_assoc) = power(op);
        if bp < min {
            break;
        }
        *pos += 1;
        let right = climb(seq, pos, if right_assoc { bp } else { bp + 1 });
        left = sh::binary(&left, op, &right);
    }
    left
}

fn operand(p: P) -> String {
    match p.as_rule() {
        Rule::integer_token => p.as_str().parse::<i64>().unwrap_or(0).to_string(),
        Rule::negative => negative(kids(p)),
        Rule::prefix_operation => {
            let k = kids(p);
            sh::binary(
                &arithmetic(&kids(k[1].clone())),
                k[0].as_str(),
                &arithmetic(&kids(k[2].clone())),
            )
        }
        Rule::parenthesised => arithmetic(&kids(p)),
        Rule::aggregate => aggregate(kids(p)),
        Rule::arith => arithmetic(&kids(p)),
        _ => {
            let (symbol, args) = application_parts(p);
            match args {
                Some(a) => format!("{symbol}{}", sh::parenthesised(&a)),
                None => symbol,
            }
        }
    }
}

/// `-t`, `-(a + b)` (a negation) or `-(a, b)` (a subtraction).
fn negative(k: Vec<P>) -> String {
    if k[1].as_rule() != Rule::operands {
        return sh::negate(&operand(k[1].clone()));
    }
    let inner = kids(k[1].clone());
    let last = inner.len() - 1;
    if inner[last].as_rule() == Rule::arith && last > 0 {
        let right = arithmetic(&kids(inner[last].clone()));
        sh::binary(&arithmetic(&inner[..last]), "-", &right)
    } else {
        sh::negate(&arithmetic(&inner))
    }
}

/// The symbol of an application and its arguments (`None` without parentheses).
fn application_parts(p: P) -> (String, Option<Vec<String>>) {
    let k = kids(p);
    let symbol = intern_pointer(k[0].clone());
    let args = k.get(1).map(|a| a.clone().into_inner().map(term).collect());
    (symbol, args)
}

fn aggregate(k: Vec<P>) -> String {
    let card = k[0].as_rule() == Rule::kw_card;
    let kind = if card { "#" } else { k[0].as_str() };
    let sets: Vec<String> = match k[1].as_rule() {
        Rule::card_set | Rule::term_set => vec![set(kids(k[1].clone()))],
        Rule::formula => k[1..]
            .iter()
            .map(|f| sh::set(&[], &formula(f.clone()), None))
            .collect(),
        _ => k[1..]
            .iter()
            .map(|t| sh::set(&[], "true", Some(&term(t.clone()))))
            .collect(),
    };
    sh::aggregate(kind, &sets)
}

/// `{vars : f}` or `{vars : f : t}`.
fn set(k: Vec<P>) -> String {
    let (vars, rest) = if k[0].as_rule() == Rule::variables {
        (variables(k[0].clone()), &k[1..])
    } else {
        (Vec::new(), &k[..])
    };
    let cond = formula(rest[1].clone());
    let t = rest.get(3).map(|t| term(t.clone()));
    sh::set(&vars, &cond, t.as_deref())
}

// ---------------------------------------------------------------------------------------------
// Structures, factlists, procedures
// ---------------------------------------------------------------------------------------------

fn structure(p: P) -> Vec<String> {
    let k = kids(p);
    let mut out = vec![format!(
        "structure {} : {}",
        k[1].as_str(),
        pointer(k[3].clone())
    )];
    let inters = k[4..]
        .iter()
        .filter(|c| c.as_rule() == Rule::interpretation);
    let usings = k[4..]
        .iter()
        .filter(|c| c.as_rule() == Rule::structure_using);
    let mut body: Vec<String> = inters.cloned().map(interpretation).collect();
    body.extend(usings.cloned().map(using));
    out.extend(indented(body));
    out
}

fn interpretation(p: P) -> String {
    let k = kids(p);
    let symbol = intern_pointer(k[0].clone());
    let (truth, value) = if k[1].as_rule() == Rule::truth_value {
        (
            format!("<{}>", kids(k[1].clone())[0].as_str()),
            k[2].clone(),
        )
    } else {
        (String::new(), k[1].clone())
    };
    format!("{symbol}{truth} = {}", inter_value(value))
}

fn inter_value(p: P) -> String {
    match p.as_rule() {
        Rule::table => format!("{{{}}}", kids(p).into_iter().map(table).collect::<String>()),
        Rule::kw_s_true => "true".to_string(),
        Rule::kw_s_false => "false".to_string(),
        Rule::generate => "generate".to_string(),
        Rule::procedure_value => format!("procedure {}", pointer(kids(p)[1].clone())),
        _ => element(p),
    }
}

fn table(p: P) -> String {
    match p.as_rule() {
        Rule::elements_s => elements(p),
        Rule::tuples => p
            .into_inner()
            .map(|t| sh::parenthesised(&t.into_inner().map(element).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
            .join(";"),
        _ => p.into_inner().map(mapping).collect::<Vec<_>>().join(";"),
    }
}

fn mapping(p: P) -> String {
    let k = kids(p);
    let args = if k[0].as_rule() == Rule::mapping_args {
        k[0].clone().into_inner().map(element).collect()
    } else {
        Vec::new()
    };
    format!(
        "{}->{}",
        sh::parenthesised(&args),
        element(k[k.len() - 1].clone())
    )
}

fn factlist(p: P) -> Vec<String> {
    let k = kids(p);
    let mut out = vec![format!(
        "factlist {} : {}",
        k[1].as_str(),
        pointer(k[3].clone())
    )];
    let facts = k[4..]
        .iter()
        .filter(|c| c.as_rule() == Rule::fact)
        .map(|f| {
            let parts = kids(f.clone());
            let args: Vec<String> = parts[1..]
                .iter()
                .filter(|a| a.as_rule() != Rule::dot)
                .cloned()
                .map(element)
                .collect();
            format!(
                "fact {}{}",
                unannotated(parts[0].clone()),
                sh::parenthesised(&args)
            )
        })
        .collect();
    out.extend(indented(facts));
    out
}

fn procedure(p: P) -> Vec<String> {
    let k = kids(p);
    let params: Vec<String> = k[2..k.len() - 1]
        .iter()
        .map(|q| q.as_str().to_string())
        .collect();
    let body = lua_text(kids(k[k.len() - 1].clone())[0].clone());
    vec![
        format!("procedure {}{}", k[1].as_str(), sh::parenthesised(&params)),
        format!("{}body {body:?}", sh::INDENT),
    ]
}

/// A Lua body as IDP3 hands it to Lua: `::` becomes `.`, IDP comments go (their newlines stay,
/// so that line numbers are kept).
fn lua_text(body: P) -> String {
    body.into_inner()
        .map(|lexeme| match lexeme.as_rule() {
            Rule::lua_namespace => ".".to_string(),
            Rule::lua_comment | Rule::lua_dash_comment => {
                lexeme.as_str().chars().filter(|&c| c == '\n').collect()
            }
            Rule::lua_nested => format!("{{{}}}", lua_text(kids(lexeme)[0].clone())),
            _ => lexeme.as_str().to_string(),
        })
        .collect()
}
