//! Domain elements and structures: the data that inferences take in and give back.

// `structure::structure::Structure` reads naturally at use sites (`structure::Structure`).
#[allow(clippy::module_inception)]
mod structure;
mod value;

pub use structure::{
    Answer, HugeRange, LazyProcedure, Structure, Table, TruthValue, TupleSet, MAX_LISTED,
};
pub use value::{format_float, register_constructor_name, str_text, Rational, Tuple, Value};
