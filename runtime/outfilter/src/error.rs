//! The crate's errors: [`Error`] for reading a filter file (a line, the key, a
//! [`ErrorKind`]) and [`DecodeError`] for loading a compiled filter from bytes
//! (an offset and a [`DecodeErrorKind`]). One error type per operation.

use std::fmt;

use regex_automata::{meta, util::wire::DeserializeError};

/// An error in a filter file, pointing at the line (1-based) and, when there
/// is one, the key it concerns.
///
/// Displays like a compiler diagnostic without the path, which the caller
/// knows: `line 12: key 'foo': unknown key`.
#[derive(Clone, Debug)]
pub struct Error {
    /// The 1-based line of the key (or of the table, or of the syntax error).
    pub line: usize,
    /// The dotted key the error concerns (`filters.make.max_lines`), if any.
    pub key: Option<String>,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong in a filter file.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not TOML; the message is the TOML parser's.
    Syntax {
        /// The TOML parser's description of the problem.
        message: String,
    },
    /// `schema_version` is missing or is not `1`; no filter of the file is loaded.
    SchemaVersion {
        /// The value found, when it is an integer.
        found: Option<i64>,
    },
    /// A key this format does not have (rtk's keys plus `match_shape`,
    /// `priority` and `min_size`).
    UnknownKey {
        /// The known key it is nearest to, when it looks like a typo of one.
        nearest: Option<&'static str>,
    },
    /// A required key is absent.
    MissingKey,
    /// A value of the wrong type.
    WrongType {
        /// What the key takes, for instance `a string`.
        expected: &'static str,
    },
    /// An integer that must not be negative is negative (or does not fit).
    OutOfRange,
    /// `strip_lines_matching` and `keep_lines_matching` are both non-empty.
    StripAndKeep,
    /// The filter has neither `match_command` nor a non-empty `match_shape`,
    /// so nothing could ever select it.
    NoSelector,
    /// A regex does not compile.
    Regex {
        /// The pattern as written.
        pattern: String,
        /// The regex engine's error.
        error: Box<meta::BuildError>,
    },
}

impl Error {
    pub(crate) fn new(line: usize, key: Option<String>, kind: ErrorKind) -> Error {
        Error { line, key, kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        if let Some(key) = &self.key {
            write!(f, "key '{key}': ")?;
        }
        fmt::Display::fmt(&self.kind, f)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Syntax { message } => {
                write!(f, "not TOML: {}", message.trim_end())
            }
            ErrorKind::SchemaVersion { found: None } => {
                write!(f, "expected `schema_version = 1`")
            }
            ErrorKind::SchemaVersion { found: Some(v) } => {
                write!(f, "unsupported schema_version {v}, expected 1")
            }
            ErrorKind::UnknownKey { nearest: None } => write!(f, "unknown key"),
            ErrorKind::UnknownKey {
                nearest: Some(near),
            } => write!(f, "unknown key (did you mean '{near}'?)"),
            ErrorKind::MissingKey => write!(f, "missing"),
            ErrorKind::WrongType { expected } => write!(f, "expected {expected}"),
            ErrorKind::OutOfRange => write!(f, "expected a non-negative integer"),
            ErrorKind::StripAndKeep => write!(
                f,
                "strip_lines_matching and keep_lines_matching are mutually exclusive"
            ),
            ErrorKind::NoSelector => {
                write!(
                    f,
                    "a filter needs `match_command` or a non-empty `match_shape`"
                )
            }
            ErrorKind::Regex { pattern, error } => {
                write!(f, "invalid regex `{pattern}`: {error}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Regex { error, .. } => Some(&**error),
            _ => None,
        }
    }
}

/// Bytes that are not a compiled filter written by [`Filter::to_bytes`]
/// of this version.
///
/// [`Filter::to_bytes`]: crate::Filter::to_bytes
#[derive(Debug)]
pub struct DecodeError {
    /// The byte offset at which decoding failed.
    pub offset: usize,
    /// What is wrong.
    pub kind: DecodeErrorKind,
}

/// What is wrong with the bytes of a compiled filter.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The bytes do not start with the compiled-filter magic.
    BadMagic,
    /// The format version is not the one this build reads.
    Version {
        /// The version found.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// The checksum of the body does not match: the bytes are corrupt.
    Checksum,
    /// The bytes end before the structure does.
    Truncated,
    /// Bytes remain after the structure.
    TrailingBytes,
    /// A tag, flag or count with a value the format does not have.
    Invalid {
        /// What was being read.
        what: &'static str,
    },
    /// A string that is not UTF-8.
    Utf8,
    /// A serialized DFA that regex-automata's checked loader rejects.
    Dfa(Box<DeserializeError>),
    /// A pattern kept as source that no longer compiles.
    Regex(Box<meta::BuildError>),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "compiled filter, byte {}: ", self.offset)?;
        match &self.kind {
            DecodeErrorKind::BadMagic => write!(f, "not a compiled filter"),
            DecodeErrorKind::Version { found, expected } => {
                write!(f, "format version {found}, this build reads {expected}")
            }
            DecodeErrorKind::Checksum => write!(f, "checksum mismatch"),
            DecodeErrorKind::Truncated => write!(f, "truncated"),
            DecodeErrorKind::TrailingBytes => write!(f, "trailing bytes"),
            DecodeErrorKind::Invalid { what } => write!(f, "invalid {what}"),
            DecodeErrorKind::Utf8 => write!(f, "string is not UTF-8"),
            DecodeErrorKind::Dfa(e) => write!(f, "invalid DFA: {e}"),
            DecodeErrorKind::Regex(e) => write!(f, "pattern does not compile: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            DecodeErrorKind::Dfa(e) => Some(&**e),
            DecodeErrorKind::Regex(e) => Some(&**e),
            _ => None,
        }
    }
}
