//! Unit tests of the resolver, written as small IDP texts.
