//! One alternative of a rule's matcher, as the compiler parsed it and the
//! index stores it.

use std::fmt;

/// One alternative of a matcher, classified by how the index answers it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Alternative {
    /// `any`: every call of the step.
    Any,
    /// An exact normalized name: a tool (`bash`, `edit`), one MCP tool
    /// (`mcp__s__t`), or an event field value (`startup`).
    Name(String),
    /// `bash.<cli>`: a bash call in which some simple command runs `<cli>`.
    Program(String),
    /// `mcp` or `mcp__<server>`: every MCP tool, or every tool of one server.
    Prefix(String),
}

impl Alternative {
    /// The stable code of the alternative's kind, stored in the index.
    pub fn code(&self) -> u8 {
        match self {
            Alternative::Any => 0,
            Alternative::Name(_) => 1,
            Alternative::Program(_) => 2,
            Alternative::Prefix(_) => 3,
        }
    }

    /// The alternative stored under `code` with `text`.
    pub fn from_code(code: u8, text: &str) -> Option<Alternative> {
        let text = text.to_string();
        Some(match code {
            0 => Alternative::Any,
            1 => Alternative::Name(text),
            2 => Alternative::Program(text),
            3 => Alternative::Prefix(text),
            _ => return None,
        })
    }

    /// The name, program or prefix the alternative carries (empty for `any`).
    pub fn text(&self) -> &str {
        match self {
            Alternative::Any => "",
            Alternative::Name(s) | Alternative::Program(s) | Alternative::Prefix(s) => s,
        }
    }
}

impl fmt::Display for Alternative {
    /// The alternative as it is written in a filename.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Alternative::Any => f.write_str("any"),
            Alternative::Program(cli) => write!(f, "bash.{cli}"),
            Alternative::Name(s) | Alternative::Prefix(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_display_as_written() {
        let all = [
            (Alternative::Any, "any"),
            (Alternative::Name("edit".into()), "edit"),
            (Alternative::Program("git".into()), "bash.git"),
            (Alternative::Prefix("mcp__gh".into()), "mcp__gh"),
        ];
        for (alt, written) in all {
            assert_eq!(
                Alternative::from_code(alt.code(), alt.text()),
                Some(alt.clone())
            );
            assert_eq!(alt.to_string(), written);
        }
        assert_eq!(Alternative::from_code(4, ""), None);
    }
}
