//! The engine's one error type. Grounding, encoding, solving and the inferences fail with an
//! [`Error`]: a kind that callers match on (an infinite domain, a limit, a failed procedure,
//! ...), the message the user reads, and a context chain of what was being done when it
//! happened, innermost first (`while grounding the sentence at f.idp:3:1: ...`), each with the
//! span of the source it names when known.
//!
//! The command line and the shell tell a stop by a limit (exit code 3) from any other error by
//! the kind, also after the error passed through Lua (it travels as an external error), never
//! by the message text. A leaf module: it imports nothing from the rest of the crate but
//! [`crate::source`].

use std::fmt;

use crate::source::Span;

/// Which limit stopped the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The ground theory grew past the grounding size limit (`--max-ground-size`).
    GroundSize,
    /// An aggregate has too many possible values to ground.
    AggregateSize,
    /// Ctrl-C.
    Interrupted,
    /// The wall time of the run (`--timeout`).
    RunTimeout,
    /// The time of one inference (`stdoptions.timeout`).
    InferenceTimeout,
    /// The memory of the process (`--max-memory`).
    Memory,
    /// The SAT search was stopped without one of the limits above being seen.
    Search,
}

/// What went wrong, for callers that must react to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A quantifier, variable or symbol ranges over a type with infinitely many elements;
    /// `numbers` when that type is the built-in `int` or `float`.
    InfiniteDomain { sort: String, numbers: bool },
    /// A type is interpreted by a range with too many elements to ground.
    HugeRange { sort: String },
    /// The structure does not interpret a type that must be grounded.
    Uninterpreted { name: String },
    /// A limit stopped the work.
    Limit(Limit),
    /// A procedure that interprets a symbol failed or answered outside the symbol's type.
    Procedure,
    /// Any other mistake in what the inference was given (data, rule heads, ...).
    Input,
    /// A broken invariant of the engine (a bug).
    Internal,
    /// A mistake that IDP3 reports where it finds it (`Error: <message> At f:l:c`) before it
    /// aborts the operation with `Error encountered; operation aborted.` (LTC theories).
    Aborted,
}

/// One step of the context chain: a line such as `while grounding the definition at
/// f.idp:7:5: { ... }`, and the span of the source it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    pub text: String,
    pub span: Option<Span>,
}

/// An error of the engine: its kind, its message and what was being done.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    context: Vec<Context>,
}

/// The result of the engine's fallible steps.
pub type IdpResult<T> = Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            context: Vec::new(),
        }
    }

    /// A mistake in the input ([`ErrorKind::Input`]).
    pub fn input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Input, message)
    }

    /// A broken invariant ([`ErrorKind::Internal`]).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    /// A stop by `limit`.
    pub fn limit(limit: Limit, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Limit(limit), message)
    }

    /// Adds what was being done when the error happened (outermost last).
    pub fn with_context(mut self, text: impl Into<String>, span: Option<Span>) -> Error {
        self.context.push(Context {
            text: text.into(),
            span,
        });
        self
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The message without its context.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The context chain, innermost first.
    pub fn context(&self) -> &[Context] {
        &self.context
    }

    /// The limit that stopped the work, if a limit did.
    pub fn limit_kind(&self) -> Option<Limit> {
        match self.kind {
            ErrorKind::Limit(l) => Some(l),
            _ => None,
        }
    }

    pub fn is_limit(&self) -> bool {
        self.limit_kind().is_some()
    }

    /// Whether grounding failed because something ranges over a type without a finite
    /// interpretation (infinite, too large, or not interpreted), so that a definition that
    /// can be evaluated on demand should be.
    pub fn is_unbounded_grounding(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::InfiniteDomain { .. }
                | ErrorKind::HugeRange { .. }
                | ErrorKind::Uninterpreted { .. }
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        for c in &self.context {
            write!(f, "\n  {}", c.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_lines_follow_the_message_innermost_first() {
        let e = Error::input("bad")
            .with_context("while grounding the sentence: P.", None)
            .with_context("in procedure main", None);
        assert_eq!(
            e.to_string(),
            "bad\n  while grounding the sentence: P.\n  in procedure main"
        );
        assert_eq!(e.message(), "bad");
        assert!(!e.is_limit());
    }

    #[test]
    fn kinds_are_matched_not_messages() {
        let e = Error::new(
            ErrorKind::InfiniteDomain {
                sort: "int".into(),
                numbers: true,
            },
            "any wording at all",
        );
        assert!(e.is_unbounded_grounding());
        let stop = Error::limit(Limit::GroundSize, "Infinite grounding? no: a limit");
        assert!(!stop.is_unbounded_grounding());
        assert_eq!(stop.limit_kind(), Some(Limit::GroundSize));
    }
}
