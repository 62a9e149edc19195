//! Name resolution and type checking: turns the AST into a typed [`program::Program`].

mod domains;
pub mod index;
pub mod ir;
mod ltc;
mod program;
mod resolve;
pub mod transform;
pub mod walk;

pub use domains::{
    all_tuples, builtin_contains, cartesian, ct_cf, product, sort_domain, symbol_domains, Domains,
    MAX_ENUMERATION,
};
pub use ltc::transform_vocabulary;
pub use program::{
    BuiltinSort, Component, Display, Function, LtcInfo, Predicate, Procedure, Program, Query, Sort,
    TermBlock, Theory, TheoryForm, Vocabulary,
};
pub(crate) use resolve::nearest_name;

pub use resolve::{resolve, resolve_indexed, resolve_more, resolve_with_sources};
