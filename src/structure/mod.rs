//! Domain elements and structures: the data that inferences take in and give back.

// `structure::structure::Structure` reads naturally at use sites (`structure::Structure`).
#[allow(clippy::module_inception)]
pub mod structure;
pub mod value;
