//! The compiler's error type. Problems with one rule file are not errors: they
//! become invalid entries in the index. These are the failures that stop a
//! compile as a whole.

use std::fmt;
use std::path::PathBuf;

/// A compile that could not finish, naming the file or directory involved.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading a directory or writing the index failed.
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Building an automaton failed.
    Automaton {
        /// The step and patterns involved.
        what: String,
        /// The builder's message.
        message: String,
    },
    /// Writing or reading the index through the runtime failed.
    Index(hookdex_runtime::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Automaton { what, message } => {
                write!(f, "building the automaton for {what}: {message}")
            }
            Error::Index(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Index(err) => Some(err),
            Error::Automaton { .. } => None,
        }
    }
}

impl From<hookdex_runtime::Error> for Error {
    fn from(err: hookdex_runtime::Error) -> Error {
        Error::Index(err)
    }
}
