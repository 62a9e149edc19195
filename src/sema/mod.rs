//! Name resolution and type checking: turns the AST into a typed [`program::Program`].

pub mod domains;
pub mod ir;
pub mod ltc;
pub mod program;
pub mod resolve;
pub mod transform;
pub mod walk;

pub use resolve::{resolve, resolve_more, resolve_with_sources};
