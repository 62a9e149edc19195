//! Domain elements and structures: the data that inferences take in and give back.

pub mod structure;
pub mod value;
