//! The engine's error: an index that could not be read even after a
//! recompile. Everything else the engine meets is a note, never an error:
//! it fails open.

use std::fmt;

/// An error from the engine.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The index (on disk, or freshly compiled) could not be read.
    Index(hookdex_index::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Index(err) => write!(f, "index: {err}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Index(err) => Some(err),
        }
    }
}

impl From<hookdex_index::Error> for Error {
    fn from(err: hookdex_index::Error) -> Error {
        Error::Index(err)
    }
}
