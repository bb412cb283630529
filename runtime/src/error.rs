//! The engine's error: an index that could not be read even after a
//! recompile, naming the index file. Everything else the engine meets is a
//! note, never an error: it fails open.

use std::fmt;
use std::path::{Path, PathBuf};

/// An error from the engine: what went wrong, and with which index file.
#[derive(Debug)]
pub struct Error {
    index: PathBuf,
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The index (on disk, or freshly compiled) could not be read.
    Index(hookdex_index::Error),
}

impl Error {
    /// The index at `index` could not be read: `err`.
    pub(crate) fn index(index: &Path, err: hookdex_index::Error) -> Error {
        Error {
            index: index.to_path_buf(),
            kind: ErrorKind::Index(err),
        }
    }

    /// The index file it is about.
    pub fn index_path(&self) -> &Path {
        &self.index
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Index(err) => write!(f, "index `{}`: {err}", self.index.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Index(err) => Some(err),
        }
    }
}
