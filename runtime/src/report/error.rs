//! What can stop a report: a damaged index, a call the flags do not
//! describe, a rule name that designates no rule or several, a rule file
//! that cannot be read. Each message is the line the binary prints.

use std::fmt;

/// Why a report could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An index (the user's or the managed one) is damaged.
    Index(hookdex_index::Error),
    /// `--input` is not a JSON object.
    InputNotObject,
    /// The harness could not read the call the flags describe.
    Payload(hookdex_harness::PayloadError),
    /// `show NAME`: no active rule has that name.
    NoRule {
        /// The name asked for.
        name: String,
    },
    /// `show NAME`: several active rules have that name.
    ManyRules {
        /// The name asked for.
        name: String,
        /// The rules it names, each as `LAYER/FILE` (a name `show` takes).
        keys: Vec<String>,
    },
    /// A rule file could not be read.
    Read {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Index(e) => e.fmt(f),
            Error::InputNotObject => f.write_str("--input: expected a JSON object"),
            Error::Payload(e) => e.fmt(f),
            Error::NoRule { name } => {
                write!(f, "no rule named `{name}` runs here (try `hookdex list`)")
            }
            Error::ManyRules { name, keys } => write!(
                f,
                "`{name}` names {} rules: {}; give one of these",
                keys.len(),
                keys.join(", ")
            ),
            Error::Read { file, source } => write!(f, "{file}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Index(e) => Some(e),
            Error::Payload(e) => Some(e),
            Error::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<hookdex_index::Error> for Error {
    fn from(e: hookdex_index::Error) -> Error {
        Error::Index(e)
    }
}
