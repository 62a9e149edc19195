//! Arbitrary bytes through the command line's front end: load (UTF-8 check, lexing, parsing,
//! `include <std>`), resolve and type-check, render diagnostics. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(front) = idp_fuzz::front::load_and_resolve(data) {
        if !front.has_errors {
            idp_fuzz::front::print_components(&front.program);
        }
    }
});
