//! The model's one error: a name that is not in a vocabulary.

use std::fmt;

/// A name that does not belong to the vocabulary it was parsed as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    input: String,
    kind: ErrorKind,
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
    pub(crate) fn new(kind: ErrorKind, input: &str) -> Error {
        Error {
            input: input.to_string(),
            kind,
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
        match self.kind {
            ErrorKind::UnknownTarget => write!(
                f,
                "unknown target `{}`: expected one of claude, codex, copilot, gemini, cursor",
                self.input
            ),
            ErrorKind::UnknownStep => {
                let steps: Vec<_> = crate::Step::ALL.iter().map(|s| s.as_str()).collect();
                write!(
                    f,
                    "unknown step `{}`: expected one of {}",
                    self.input,
                    steps.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for Error {}
