//! The compiler's error: [`RuleError`], what is wrong with one rule file.
//! It never stops a compile (the file becomes an invalid entry with its
//! reason, and nothing else stops a compile), and it reads like a
//! compiler's diagnostic: `file:line:col: key: reason`.

use std::fmt;

/// A rule file that cannot be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The file, as shown to people (`package:rules/...` for package files).
    pub file: String,
    /// Where in the file, 1-based `(line, column)`, when the reason has a place.
    pub span: Option<(u32, u32)>,
    /// What is wrong.
    pub kind: RuleErrorKind,
}

/// What is wrong with a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleErrorKind {
    /// The file name does not follow the grammar (the reason says how).
    Name(String),
    /// The extension has no runner and the file is not executable.
    NoRunner {
        /// The extension.
        ext: String,
    },
    /// The entry is a directory, not a file.
    Directory,
    /// The entry is a FIFO, socket or device, which a rule cannot be.
    Special,
    /// A symlink (a rule file, or a component of a layer folder's path)
    /// that leaves its layer: neither followed nor stamped through.
    LinkLeaves {
        /// Where it leads, as far as it is known.
        to: String,
    },
    /// The file is larger than a rule file is read.
    TooLarge {
        /// The largest size read, in bytes.
        limit: u64,
    },
    /// The file could not be read.
    Unreadable(String),
    /// The file is not valid UTF-8.
    NotUtf8,
    /// The file's text does not parse (YAML, TOML, …).
    Syntax(String),
    /// A key has a value the format does not accept.
    Key {
        /// The key, dotted (`paths`, `finders`).
        key: String,
        /// Why its value is refused.
        reason: String,
    },
    /// The layer selection itself (`state.json`, a profile) is broken.
    Selection(String),
    /// The interpreter the rule runs with is in no system location
    /// ([`crate::interpreters::SYSTEM_DIRS`]); one elsewhere is not used.
    NoInterpreter {
        /// Its name (`bash`, `python3`, `sh`).
        program: String,
    },
}

impl RuleError {
    /// An error about `file` with no place in it.
    pub fn new(file: impl Into<String>, kind: RuleErrorKind) -> RuleError {
        RuleError {
            file: file.into(),
            span: None,
            kind,
        }
    }

    /// The same error at `(line, column)`.
    pub fn at(mut self, span: Option<(u32, u32)>) -> RuleError {
        self.span = span;
        self
    }
}

impl fmt::Display for RuleErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleErrorKind::Name(reason)
            | RuleErrorKind::Syntax(reason)
            | RuleErrorKind::Selection(reason) => f.write_str(reason),
            RuleErrorKind::NoRunner { ext } => write!(
                f,
                "extension `.{ext}` has no runner and the file is not executable (chmod +x it, or use .sh or .py)"
            ),
            RuleErrorKind::Directory => f.write_str("a directory, not a rule file"),
            RuleErrorKind::Special => {
                f.write_str("a FIFO, socket or device, not a rule file (it is never opened)")
            }
            RuleErrorKind::LinkLeaves { to } => write!(
                f,
                "a symlink out of its layer (to `{to}`), not followed: keep rules inside the layer folder, or link within it"
            ),
            RuleErrorKind::TooLarge { limit } => write!(
                f,
                "larger than {} KiB, more than a rule file is read",
                limit >> 10
            ),
            RuleErrorKind::Unreadable(err) => write!(f, "cannot read: {err}"),
            RuleErrorKind::NotUtf8 => f.write_str("not UTF-8"),
            RuleErrorKind::Key { key, reason } => write!(f, "{key}: {reason}"),
            RuleErrorKind::NoInterpreter { program } => write!(
                f,
                "no `{program}` in a system location ({}) that only root can write; one on PATH is never used to run a rule",
                crate::interpreters::SYSTEM_DIRS.join(", ")
            ),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file, self.kind),
            None => write!(f, "{}: {}", self.file, self.kind),
        }
    }
}

impl std::error::Error for RuleError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_the_place_and_the_key() {
        let e = RuleError::new(
            "/r/pre-edit-x.filter.yaml",
            RuleErrorKind::Key {
                key: "mode".into(),
                reason: "unknown variant `loud`".into(),
            },
        )
        .at(Some((3, 7)));
        assert_eq!(
            e.to_string(),
            "/r/pre-edit-x.filter.yaml:3:7: mode: unknown variant `loud`"
        );
        let e = RuleError::new(
            "/r/guard.sh",
            RuleErrorKind::Name("no `-` in the name".into()),
        );
        assert_eq!(e.to_string(), "/r/guard.sh: no `-` in the name");
    }
}
