//! The runtime's error type: what went wrong with which file or input.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error from the runtime, naming the file or input it concerns.
#[derive(Debug)]
pub struct Error {
    path: Option<PathBuf>,
    kind: ErrorKind,
}

/// What kind of error happened.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing a file failed.
    Io(io::Error),
    /// The index file is shorter than its header says.
    Truncated,
    /// The index file does not start with the hookdex magic.
    BadMagic,
    /// The index was written by another format version, endianness or automata version.
    ForeignVersion(String),
    /// A section's checksum or bounds are wrong.
    Corrupt(String),
    /// A value is not what the caller expected (unknown target, bad payload).
    Invalid(String),
}

impl Error {
    /// An error of `kind` about no particular file.
    pub fn new(kind: ErrorKind) -> Error {
        Error { path: None, kind }
    }

    /// Attaches the file this error concerns.
    pub fn with_path(mut self, path: impl AsRef<Path>) -> Error {
        self.path = Some(path.as_ref().to_path_buf());
        self
    }

    /// The kind of this error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file this error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub(crate) fn corrupt(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Corrupt(what.into()))
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        Error::new(ErrorKind::Io(err))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        match &self.kind {
            ErrorKind::Io(err) => write!(f, "{err}"),
            ErrorKind::Truncated => write!(f, "index file is truncated"),
            ErrorKind::BadMagic => write!(f, "not a hookdex index (bad magic)"),
            ErrorKind::ForeignVersion(what) => {
                write!(f, "index written by another version: {what}")
            }
            ErrorKind::Corrupt(what) => write!(f, "index is corrupt: {what}"),
            ErrorKind::Invalid(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(err) => Some(err),
            _ => None,
        }
    }
}
