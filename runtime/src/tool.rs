//! Harness targets and the one table that maps each harness's tool names to the
//! normalized names matchers are written against (`bash`, `edit`, `read`, …).

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

    fn bit(self) -> u8 {
        1 << (self as u8)
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
                Error::new(ErrorKind::Invalid(format!(
                    "unknown target `{s}`: expected one of claude, codex, copilot, gemini, cursor"
                )))
            })
    }
}

const CLAUDE: u8 = 1 << 0;
const CODEX: u8 = 1 << 1;
const COPILOT: u8 = 1 << 2;
const GEMINI: u8 = 1 << 3;
const CURSOR: u8 = 1 << 4;
const ALL: u8 = CLAUDE | CODEX | COPILOT | GEMINI | CURSOR;

/// (targets that use the name, the harness's name, the normalized name).
///
/// Names are compared case-sensitively first, then case-insensitively, so a
/// harness's exact spelling wins over a look-alike of another harness.
const TABLE: &[(u8, &str, &str)] = &[
    // Shell.
    (ALL, "Bash", "bash"),
    (COPILOT, "bash", "bash"),
    (COPILOT, "shell", "bash"),
    (CODEX, "shell", "bash"),
    (CODEX, "shell_command", "bash"),
    (CODEX, "exec", "bash"),
    (CODEX, "exec_command", "bash"),
    (CODEX, "unified_exec", "bash"),
    (CODEX, "local_shell", "bash"),
    (CODEX, "container.exec", "bash"),
    (GEMINI, "run_shell_command", "bash"),
    (CURSOR, "Shell", "bash"),
    // Edit, write, read.
    (ALL, "Edit", "edit"),
    (ALL, "MultiEdit", "multiedit"),
    (ALL, "NotebookEdit", "notebookedit"),
    (CODEX | COPILOT, "apply_patch", "edit"),
    (COPILOT, "edit", "edit"),
    (COPILOT, "str_replace", "edit"),
    (GEMINI, "replace", "edit"),
    (CURSOR, "StrReplace", "edit"),
    (ALL, "Write", "write"),
    (COPILOT, "create", "write"),
    (GEMINI, "write_file", "write"),
    (ALL, "Read", "read"),
    (COPILOT, "view", "read"),
    (CODEX | GEMINI, "read_file", "read"),
    (GEMINI, "read_many_files", "read"),
    // Search.
    (ALL, "Grep", "grep"),
    (COPILOT, "rg", "grep"),
    (GEMINI, "grep_search", "grep"),
    (ALL, "Glob", "glob"),
    (GEMINI, "list_directory", "ls"),
    (ALL, "LS", "ls"),
    // Web.
    (ALL, "WebFetch", "webfetch"),
    (COPILOT | GEMINI, "web_fetch", "webfetch"),
    (ALL, "WebSearch", "websearch"),
    (COPILOT, "web_search", "websearch"),
    (GEMINI, "google_web_search", "websearch"),
    // Subagents.
    (ALL, "Agent", "agent"),
    (ALL, "Task", "agent"),
    (COPILOT, "task", "agent"),
    (CODEX, "spawn_agent", "agent"),
    (GEMINI, "invoke_agent", "agent"),
    // Other.
    (CURSOR, "Delete", "delete"),
    (CURSOR, "MCP", "mcp"),
];

/// A tool name after normalization, with how it was obtained (for `explain`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Normalized {
    /// The normalized name matchers are written against.
    pub name: String,
    /// How the name was obtained: `table`, `mcp`, `lowercase`, or a nested-command note.
    pub via: &'static str,
}

/// Normalizes the tool `name` a harness of `target` sent.
///
/// Copilot's `str_replace_editor` is resolved by its nested `command`
/// (`view` → read, `create` → write, anything else → edit); pass it as
/// `nested_command` when known.
pub fn normalize(target: Target, name: &str, nested_command: Option<&str>) -> Normalized {
    if name == "str_replace_editor" {
        let normalized = match nested_command {
            Some("view") => "read",
            Some("create") => "write",
            _ => "edit",
        };
        return Normalized {
            name: normalized.to_string(),
            via: "str_replace_editor command",
        };
    }
    if let Some(mcp) = normalize_mcp(target, name) {
        return Normalized {
            name: mcp,
            via: "mcp",
        };
    }
    let found = TABLE
        .iter()
        .find(|(targets, raw, _)| targets & target.bit() != 0 && *raw == name)
        .or_else(|| TABLE.iter().find(|(_, raw, _)| *raw == name))
        .or_else(|| {
            TABLE
                .iter()
                .find(|(_, raw, _)| raw.eq_ignore_ascii_case(name))
        });
    match found {
        Some((_, _, normalized)) => Normalized {
            name: normalized.to_string(),
            via: "table",
        },
        None => Normalized {
            name: name.to_ascii_lowercase(),
            via: "lowercase",
        },
    }
}

/// MCP names: `mcp__server__tool` everywhere; Gemini spells them
/// `mcp_server_tool`, which is split at the first `_` after `mcp_` (a server
/// name with `_` in it cannot be told apart there).
fn normalize_mcp(target: Target, name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("mcp__") {
        return Some(lower);
    }
    if target == Target::Gemini {
        let rest = lower.strip_prefix("mcp_")?;
        let (server, tool) = rest.split_once('_')?;
        if !server.is_empty() && !tool.is_empty() {
            return Some(format!("mcp__{server}__{tool}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_per_target() {
        let cases: &[(Target, &str, Option<&str>, &str)] = &[
            (Target::Claude, "Bash", None, "bash"),
            (Target::Claude, "Edit", None, "edit"),
            (Target::Claude, "Task", None, "agent"),
            (
                Target::Claude,
                "mcp__GitHub__create_pr",
                None,
                "mcp__github__create_pr",
            ),
            (Target::Codex, "exec", None, "bash"),
            (Target::Codex, "local_shell", None, "bash"),
            (Target::Codex, "unified_exec", None, "bash"),
            (Target::Codex, "apply_patch", None, "edit"),
            (Target::Codex, "read_file", None, "read"),
            (Target::Copilot, "bash", None, "bash"),
            (Target::Copilot, "shell", None, "bash"),
            (Target::Copilot, "view", None, "read"),
            (Target::Copilot, "create", None, "write"),
            (Target::Copilot, "edit", None, "edit"),
            (Target::Copilot, "task", None, "agent"),
            (Target::Copilot, "str_replace_editor", Some("view"), "read"),
            (
                Target::Copilot,
                "str_replace_editor",
                Some("create"),
                "write",
            ),
            (
                Target::Copilot,
                "str_replace_editor",
                Some("str_replace"),
                "edit",
            ),
            (Target::Gemini, "run_shell_command", None, "bash"),
            (Target::Gemini, "replace", None, "edit"),
            (Target::Gemini, "write_file", None, "write"),
            (Target::Gemini, "read_many_files", None, "read"),
            (
                Target::Gemini,
                "mcp_github_create_pr",
                None,
                "mcp__github__create_pr",
            ),
            (Target::Cursor, "Shell", None, "bash"),
            (Target::Cursor, "Write", None, "write"),
            (Target::Cursor, "Delete", None, "delete"),
            (Target::Claude, "SomethingNew", None, "somethingnew"),
            (Target::Claude, "BASH", None, "bash"),
        ];
        for (target, name, nested, want) in cases {
            assert_eq!(
                normalize(*target, name, *nested).name,
                *want,
                "{target} {name}"
            );
        }
    }

    #[test]
    fn targets_parse() {
        assert_eq!("Codex".parse::<Target>().unwrap(), Target::Codex);
        let err = "vim".parse::<Target>().unwrap_err().to_string();
        assert!(err.contains("`vim`"), "{err}");
    }
}
