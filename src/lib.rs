//! `idp`: a knowledge-base system for FO(.), compatible with IDP3.
//!
//! The pipeline, one module per stage: `syntax` (load and parse) → `sema` (resolve and type-check
//! into a `Program`) → `ground` (instantiate over finite domains, evaluating what the structure
//! already determines) → `encode` (clauses) → `solve` (SAT) → decode into `structure`s →
//! `print`. `infer` composes these into IDP3's inferences; `lua` exposes them to procedures, and
//! `fodot` runs the `main` blocks of IDP-Z3 (FO(·)) files on them.

pub mod cli;
pub mod consult;
pub mod diagnostics;
pub mod encode;
pub mod error;
pub mod fodot;
pub mod graph;
pub mod ground;
pub mod ids;
pub mod infer;
pub mod limits;
pub mod lsp;
pub mod lua;
pub mod message_format;
pub mod meta;
pub mod print;
pub mod progress;
pub mod repl;
pub mod sema;
pub mod serve;
pub mod solve;
pub mod source;
pub mod stdlib;
pub mod structure;
pub mod syntax;
pub mod visual;
