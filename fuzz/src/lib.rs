//! Shared code of the `idp` fuzz targets (see `../FUZZING.md`).
//!
//! - [`front`]: the command line's load → resolve → render path, and printing of what resolved;
//! - [`mutate`]: grammar-aware (token-level) mutation of IDP text;
//! - [`diff`]: the grammar target's check, the hand-written parser against `grammar/idp.pest`;
//! - [`gen`]: small random well-typed vocabularies, theories and structures, and the oracle
//!   that checks model expansion on them against brute force.

pub mod diff;
pub mod front;
pub mod gen;
pub mod mutate;
