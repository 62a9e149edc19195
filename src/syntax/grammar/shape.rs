//! The normal form in which both parsers' results are written out for comparison (the
//! *shape*): one line per block, declaration, interpretation, fact, sentence and rule, with
//! formulas and terms fully bracketed, so that two parses agree exactly when their shapes are
//! equal. Only what both parsers keep is written: `P` and `P()` are the same atom, a factlist's
//! `using` and `fobdd` blocks (which the hand-written parser reads and drops) are left out,
//! and `-3`, `- 3` and `-(3)` are the integer -3. The sort annotations of LTC vocabulary names,
//! of constructors in elements and of fact symbols (`f[A:B](1)`), which the hand-written parser
//! reads and drops, are left out.

/// Indentation of the lines inside a block.
pub const INDENT: &str = "  ";

/// A pointer `A::B::c` from its parts.
pub fn pointer<S: AsRef<str>>(parts: &[S]) -> String {
    parts
        .iter()
        .map(|p| p.as_ref())
        .collect::<Vec<_>>()
        .join("::")
}

/// A sort annotation `[A,B]` (predicate) or `[A,B:C]` (function).
pub fn annotation(args: &[String], result: Option<&str>) -> String {
    match result {
        Some(r) => format!("[{}:{r}]", args.join(",")),
        None => format!("[{}]", args.join(",")),
    }
}

/// A comma-separated list in parentheses.
pub fn parenthesised(items: &[String]) -> String {
    format!("({})", items.join(","))
}

/// A binary formula or arithmetic term.
pub fn binary(left: &str, op: &str, right: &str) -> String {
    format!("({left} {op} {right})")
}

/// The negation of a term; the negation of an integer literal is a literal.
pub fn negate(term: &str) -> String {
    match term.parse::<i64>() {
        Ok(v) => (-v).to_string(),
        Err(_) => format!("-({term})"),
    }
}

/// A float literal as both parsers read it.
pub fn float(text: &str, negative: bool) -> String {
    let v: f64 = text.parse().unwrap_or(0.0);
    format!("{:?}", if negative { -v } else { v })
}

/// A string literal's contents, quoted.
pub fn string(contents: &str) -> String {
    format!("{contents:?}")
}

/// A character literal.
pub fn character(c: char) -> String {
    format!("{c:?}")
}

/// A quantified variable `x` or `x[T]`.
pub fn variable(name: &str, sort: Option<String>) -> String {
    match sort {
        Some(s) => format!("{name}[{s}]"),
        None => name.to_string(),
    }
}

/// A quantifier with its variables and body: `(! x y : f)`, `(?=2 x : f)`.
pub fn quantified(quantifier: &str, vars: &[String], body: &str) -> String {
    format!("({quantifier} {} : {body})", vars.join(" "))
}

/// An aggregate set `{x y : f}` or `{x y : f : t}`.
pub fn set(vars: &[String], cond: &str, term: Option<&str>) -> String {
    match term {
        Some(t) => format!("{{{} : {cond} : {t}}}", vars.join(" ")),
        None => format!("{{{} : {cond}}}", vars.join(" ")),
    }
}

/// An aggregate over its sets: `sum[{x : f : t};{ : true : 3}]`.
pub fn aggregate(kind: &str, sets: &[String]) -> String {
    format!("{kind}[{}]", sets.join(";"))
}

/// The names of IDP3's comparison operators, as both parsers spell them.
pub fn comparison(op: &str) -> &'static str {
    match op {
        "=" => "=",
        "~=" => "~=",
        "<" => "<",
        ">" => ">",
        "=<" => "=<",
        _ => ">=",
    }
}

/// Lines of a block's children, indented.
pub fn indented(lines: Vec<String>) -> impl Iterator<Item = String> {
    lines.into_iter().map(|l| format!("{INDENT}{l}"))
}
