//! The check of the `grammar_diff` target: the hand-written parser and the formal grammar
//! (`grammar/idp.pest`) must agree on every input (`idp::syntax::grammar::compare`: the same
//! verdict, and the same shape when both accept). Neither reads a file, so inputs with
//! `include` are checked too.

use std::sync::Once;

/// pest's budget of rule calls per parse: enough for any real file of the corpus, and a bound
/// on the time a pathological mutant can take (it is then skipped, as too deep).
const CALL_LIMIT: usize = 20_000_000;

/// Compares both parsers on `data` (skipped unless it is UTF-8); panics on a disagreement.
pub fn check(data: &[u8]) {
    static LIMIT: Once = Once::new();
    LIMIT.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(CALL_LIMIT)));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(d) = idp::syntax::grammar::compare("fuzz.idp", text) {
        panic!("{d}\n--- input ---\n{text}");
    }
}
