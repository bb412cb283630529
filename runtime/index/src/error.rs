//! The index crate's error: what is wrong with which index file.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error reading or writing an index, naming the file when known.
#[derive(Debug)]
pub struct Error {
    path: Option<PathBuf>,
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Opening, mapping or writing the file failed.
    Io(io::Error),
    /// The file is shorter than its header says.
    Truncated,
    /// The file does not start with the hookdex magic.
    BadMagic,
    /// Another format version, endianness, automata version or hookdex version wrote it.
    ForeignVersion(String),
    /// A checksum, a bound or a reference inside the file is wrong.
    Corrupt(String),
    /// The file is not one hookdex may trust (a FIFO, another owner,
    /// writable by others).
    Refused(String),
    /// A DFA search gave up on this input (a Unicode word boundary next to
    /// non-ASCII text); the index is sound.
    SearchGaveUp(String),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { path: None, kind }
    }

    /// Damage in what was read from the index (also a caller's reading of
    /// a record it got from here: a hook's spec that does not parse).
    pub fn corrupt(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Corrupt(what.into()))
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

    /// Whether the file on disk cannot be used as it is (missing, damaged or
    /// foreign), so a fresh compile should replace it. An I/O error while
    /// writing is not damage; neither is anything a caller does with a good index.
    pub fn is_damage(&self) -> bool {
        match &self.kind {
            ErrorKind::Io(_) | ErrorKind::SearchGaveUp(_) => false,
            ErrorKind::Truncated
            | ErrorKind::BadMagic
            | ErrorKind::ForeignVersion(_)
            | ErrorKind::Corrupt(_)
            | ErrorKind::Refused(_) => true,
        }
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
            ErrorKind::Refused(why) => write!(f, "index refused: {why}"),
            ErrorKind::SearchGaveUp(why) => write!(f, "search gave up: {why}"),
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
