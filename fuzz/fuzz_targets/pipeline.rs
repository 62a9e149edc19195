//! The whole pipeline on small random well-typed theories and structures (see
//! `idp_fuzz::gen`): every model returned by model expansion must pass the naive checker, and
//! the number of models must equal the brute-force count.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|spec: idp_fuzz::gen::Spec| {
    idp_fuzz::gen::check_spec(&spec);
});
