//! The formal grammar of the IDP3 language (`grammar/idp.pest`) and the differential check of
//! the hand-written parser against it.
//!
//! [`check`] parses a text with the grammar and gives its verdict: accepted, with the *shape* of
//! the file (its blocks, declarations, sentences and rules written out in a normal form), or
//! rejected. [`compare`] parses the same text with the hand-written parser
//! ([`crate::syntax::parse_text`]-style, includes resolved to nothing) and requires the same
//! verdict and the same shape. The shapes are made by [`tree`] (from the pest parse tree) and
//! [`ast`] (from the hand-written parser's AST) with the same conventions ([`shape`]).

mod ast;
mod compare;
mod shape;
mod tree;

use pest::Parser;

pub use compare::{compare, Agreement, Disagreement};

/// The pest parser generated from `grammar/idp.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "../grammar/idp.pest"]
pub struct IdpGrammar;

/// What the grammar says of a text.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// In the language; the shape of the file, one line per block, declaration, sentence, rule.
    Accepted(Vec<String>),
    /// Not in the language: where and why, in pest's words.
    Rejected(String),
    /// The parse ran out of pest's call or stack budget (deeply nested input); no verdict.
    Limit,
}

/// Parses `text` with the grammar.
pub fn check(text: &str) -> Verdict {
    match IdpGrammar::parse(Rule::file, text) {
        Ok(pairs) => {
            let file = pairs.peek().expect("a file pair");
            if let Some(bad) = tree::number_out_of_range(file.clone()) {
                return Verdict::Rejected(bad);
            }
            Verdict::Accepted(tree::file_shape(file))
        }
        // pest reports its budgets only as a custom error whose message is its own fixed text
        // (`ParserState`'s "call limit reached", "stack limit reached"); the grammar makes no
        // custom errors of its own, so that text is matched exactly (not in the rendered error,
        // which quotes the input's line).
        Err(e) => match &e.variant {
            pest::error::ErrorVariant::CustomError { message }
                if message == "call limit reached" || message == "stack limit reached" =>
            {
                Verdict::Limit
            }
            _ => Verdict::Rejected(e.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(text: &str) -> bool {
        matches!(check(text), Verdict::Accepted(_))
    }

    #[test]
    fn newlines_end_vocabulary_declarations_only() {
        assert!(accepts("vocabulary V {\n type T\n P(T)\n}\n"));
        assert!(!accepts("vocabulary V { type T }\n"));
        assert!(!accepts("vocabulary V\n{\n type T\n}\n"));
        assert!(!accepts("vocabulary V {\n P(T,\n T)\n}\n"));
        assert!(accepts(
            "vocabulary V {\n type L constructed from {\n a,\n b }\n}\n"
        ));
        assert!(accepts("theory T : V\n{\n P(x)\n &\n Q.\n}\n"));
    }

    #[test]
    fn keywords_depend_on_the_block() {
        assert!(accepts("theory T : V {\n type(x) & partial.\n}\n"));
        assert!(!accepts("vocabulary V {\n P(type)\n}\n"));
        assert!(accepts("vocabulary V {\n P(true)\n}\n"));
        assert!(!accepts("structure S : V {\n P = {true}\n}\n"));
        assert!(!accepts("theory T : V {\n sum(x).\n}\n"));
        assert!(!accepts("theory T : V {\n using.\n}\n"));
    }

    #[test]
    fn a_limit_is_told_by_pest_not_by_the_input() {
        // The rejected line is quoted in pest's message; its words say nothing of a limit.
        assert!(matches!(
            check("vocabulary V { type T } // call limit reached\n"),
            Verdict::Rejected(_)
        ));
    }

    #[test]
    fn description_comments() {
        assert!(accepts("/** doc */ vocabulary V {\n}\n"));
        // `/**/` opens a description comment that the next `*/` closes (or the end of file).
        assert_eq!(check("/**/ vocabulary V {\n}\n"), Verdict::Accepted(vec![]));
        assert_eq!(
            check("/**/ vocabulary V {\n}\n*/"),
            Verdict::Accepted(vec![])
        );
        assert!(!accepts("/**/ vocabulary V {\n}\n*/ }"));
        assert!(accepts("/***/ vocabulary V {\n}\n"));
    }

    #[test]
    fn an_empty_line_comment_takes_the_next_line() {
        let v = "vocabulary V {\n type T //\n\n P(T)\n}\n";
        let shape = ["vocabulary V", "  type T isa() contains()"];
        assert_eq!(
            check(v),
            Verdict::Accepted(shape.iter().map(|s| s.to_string()).collect())
        );
        assert!(!accepts("//\nvocabulary V {\n}\n"));
        assert!(accepts("//\r\nvocabulary V {\n}\n"));
        assert!(!accepts("procedure p() {\n x = 1 //\n}\n"));
    }

    #[test]
    fn terms_that_are_not_arithmetic() {
        assert!(accepts(
            "theory T : V {\n x = 1.5. y = \"s\". z = 'c'. (x + 1) = 2.\n}\n"
        ));
        assert!(!accepts("theory T : V {\n x = -1.5.\n}\n"));
        assert!(!accepts("theory T : V {\n x + 1.5 = y.\n}\n"));
        assert!(!accepts("theory T : V {\n P((x)).\n}\n"));
        assert!(!accepts("theory T : V {\n x = -(y).\n}\n"));
    }

    #[test]
    fn numbers_in_range() {
        assert!(accepts("theory T : V {\n x = 2147483647.\n}\n"));
        assert!(!accepts("theory T : V {\n x = 2147483648.\n}\n"));
        assert!(!accepts("theory T : V {\n x = -2147483648.\n}\n"));
        assert!(!accepts(&format!(
            "structure S : V {{\n C = 1{}.0\n}}\n",
            "0".repeat(400)
        )));
    }

    #[test]
    fn lua_bodies_end_at_the_balancing_brace() {
        // Braces in strings and one-character literals do not count; in `--` comments they do.
        assert!(accepts(
            "procedure p() {\n s = \"}\" t = '}' -- a {\n }\n}\n"
        ));
        assert!(accepts("procedure p() {\n--}\n}\n"));
        assert!(!accepts("procedure p() {\n -- }\n}\n"));
        assert!(!accepts("procedure p() { s = '}}' }\n"));
    }
}
