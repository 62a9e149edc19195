//! The table of loaded source files, kept in [`crate::source`] (this path stays for users of
//! the library).

pub use crate::source::SourceMap;
