//! The check of the `grammar_diff` target: the hand-written parser and the formal grammar
//! (`grammar/idp.pest`) must agree on every input (`idp::syntax::grammar::compare`: the same
//! verdict, and the same shape when both accept). Neither reads a file, so inputs with
//! `include` are checked too.

use std::sync::Once;

/// pest's budget of rule calls per parse: a bound on the time a pathological mutant can take (it
/// is then skipped, as too deep). Every real file up to 64 KB (the seeds) needs fewer than 10^6
/// calls (only the 34 KB `specs/maze/game.idp` and a 16 KB conformance file more than 3·10^5);
/// 117 bytes of nested parentheses can take some 3·10^7 (0.7 s in a release build, over the
/// 20 s timeout instrumented on a loaded machine). At 2·10^6 such an input is given up after
/// 0.04 s in a release build.
const CALL_LIMIT: usize = 2_000_000;

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
