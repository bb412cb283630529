//! The model's one error: a name that is not in a vocabulary.

use std::fmt;

/// A name that does not belong to the vocabulary it was parsed as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    input: String,
    kind: ErrorKind,
    expected: Vec<&'static str>,
}

/// Which vocabulary rejected the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not a harness target.
    UnknownTarget,
    /// Not a rule step.
    UnknownStep,
}

impl Error {
    /// `input` rejected by the vocabulary whose names are `expected`
    /// (given by the vocabulary, so this module names none of them).
    pub(crate) fn new(
        kind: ErrorKind,
        input: &str,
        expected: impl IntoIterator<Item = &'static str>,
    ) -> Error {
        Error {
            input: input.to_string(),
            kind,
            expected: expected.into_iter().collect(),
        }
    }

    /// The rejected input.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Which vocabulary rejected it.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ErrorKind::UnknownTarget => "target",
            ErrorKind::UnknownStep => "step",
        };
        write!(
            f,
            "unknown {what} `{}`: expected one of {}",
            self.input,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for Error {}
