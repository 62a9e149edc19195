//! The formal grammar against the hand-written parser on mutants of real `.idp` files (seeded
//! by `fuzz/seed_corpus.sh`): the token-level mutator of `mutate_idp`, with the grammar's extra
//! words (multi-word keywords, comment openers, quotes). A disagreement panics.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    idp_fuzz::diff::check(data);
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    idp_fuzz::mutate::mutate_buffer_with(
        data,
        size,
        max_size,
        seed,
        &idp_fuzz::mutate::GRAMMAR_DICTIONARY,
        |d, s, m| libfuzzer_sys::fuzzer_mutate(d, s, m),
    )
});
