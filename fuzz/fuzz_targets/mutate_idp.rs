//! Grammar-aware mutations of real `.idp` files (seeded by `fuzz/seed_corpus.sh`): a custom
//! mutator edits the text token by token, so mutants stay near-valid. Each mutant goes through
//! the front end; those that resolve without errors are printed and given a small model
//! expansion. Must never panic.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    if let Some(front) = idp_fuzz::front::load_and_resolve(data) {
        if !front.has_errors {
            idp_fuzz::front::print_components(&front.program);
            idp_fuzz::front::expand_small(&front.program);
        }
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    idp_fuzz::mutate::mutate_buffer(data, size, max_size, seed, |d, s, m| {
        libfuzzer_sys::fuzzer_mutate(d, s, m)
    })
});
