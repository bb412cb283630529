//! The harnesses hookdex answers.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ErrorKind};

/// A harness hookdex answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// GitHub Copilot CLI and coding agent.
    Copilot,
    /// Google Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 5] = [
        Target::Claude,
        Target::Codex,
        Target::Copilot,
        Target::Gemini,
        Target::Cursor,
    ];

    /// The name used on the command line and in index file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::Copilot => "copilot",
            Target::Gemini => "gemini",
            Target::Cursor => "cursor",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = Error;

    fn from_str(s: &str) -> Result<Target, Error> {
        Target::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names = Target::ALL.iter().map(|t| t.as_str());
                Error::new(ErrorKind::UnknownTarget, s, names)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        assert_eq!("Codex".parse::<Target>().unwrap(), Target::Codex);
        let err = "vim".parse::<Target>().unwrap_err().to_string();
        assert!(err.contains("`vim`"), "{err}");
    }
}
