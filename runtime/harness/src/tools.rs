//! Tool-name normalization: a harness's tool name to the name matchers are
//! written against (`bash`, `edit`, `read`, `mcp__server__tool`, …), from
//! the harnesses' own tables; and the vocabulary those tables make, which
//! says whether a matcher's tool name can ever match ([`known_tool`]).

use hookdex_model::{Target, ToolName, SYNTHETIC_TOOLS};

use crate::harness;

/// A tool name after normalization, with how it was obtained (for `explain`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Normalized {
    /// The normalized name matchers are written against.
    pub name: ToolName,
    /// How the name was obtained: `table`, `mcp`, `lowercase`, or a nested-command note.
    pub via: &'static str,
}

/// Normalizes the tool `name` a harness of `target` sent.
///
/// Copilot's `str_replace_editor` is resolved by its nested `command`
/// (`view` → read, `create` → write, anything else → edit); pass it as
/// `nested_command` when known. Names are looked up in the target's own
/// table, then Claude Code's, then every other harness's, and last
/// case-insensitively, so a harness's exact spelling wins over a look-alike.
pub fn normalize(target: Target, name: &str, nested_command: Option<&str>) -> Normalized {
    let found = |normalized: &str, via| Normalized {
        name: ToolName::new(normalized),
        via,
    };
    if name == "str_replace_editor" {
        let normalized = match nested_command {
            Some("view") => "read",
            Some("create") => "write",
            _ => "edit",
        };
        return found(normalized, "str_replace_editor command");
    }
    if let Some(mcp) = normalize_mcp(name) {
        return found(&mcp, "mcp");
    }
    let order = [target, Target::Claude].into_iter().chain(
        Target::ALL
            .into_iter()
            .filter(|t| *t != target && *t != Target::Claude),
    );
    let tables = || order.clone().flat_map(|t| harness(t).tools().iter());
    let hit = tables()
        .find(|(raw, _)| *raw == name)
        .or_else(|| tables().find(|(raw, _)| raw.eq_ignore_ascii_case(name)));
    match hit {
        Some((_, normalized)) => found(normalized, "table"),
        None => found(&name.to_ascii_lowercase(), "lowercase"),
    }
}

/// What a matcher alternative naming a tool can match, judged against every
/// harness's table (see [`known_tool`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownTool {
    /// A normalized name some harness's table yields: calls can carry it.
    Tool,
    /// A harness's own spelling that `normalize` rewrites before matching
    /// (Gemini's `run_shell_command` is `bash`), so no call carries it.
    Raw {
        /// A harness that sends this name.
        target: Target,
        /// The normalized name it becomes, which the matcher should say.
        normalized: &'static str,
    },
    /// No table has it, raw or normalized.
    Unknown {
        /// The normalized name nearest to it, when one is close enough to
        /// be a likely typo.
        nearest: Option<&'static str>,
    },
}

/// Whether `name` (one matcher alternative, not MCP and not `bash.<cli>`)
/// names a tool of any harness or a synthetic tool
/// ([`SYNTHETIC_TOOLS`]), case-insensitively, and if not, the nearest
/// normalized name.
///
/// Only what the tables yield counts as known: a harness tool missing from
/// every table still reaches matchers lowercased, so it is reported as
/// unknown until its harness's table lists it.
pub fn known_tool(name: &str) -> KnownTool {
    let name = name.to_ascii_lowercase();
    let tables = || {
        Target::ALL
            .into_iter()
            .flat_map(|t| harness(t).tools().iter().map(move |entry| (t, entry)))
    };
    if SYNTHETIC_TOOLS.contains(&name.as_str())
        || tables().any(|(_, (_, normalized))| *normalized == name)
    {
        return KnownTool::Tool;
    }
    if let Some((target, (_, normalized))) =
        tables().find(|(_, (raw, _))| raw.eq_ignore_ascii_case(&name))
    {
        return KnownTool::Raw { target, normalized };
    }
    // A typo of a raw spelling (`run_shell_comand`) suggests what it normalizes to.
    // A near miss of a synthetic tool (`ledger_writes`) suggests it too.
    let synthetic = SYNTHETIC_TOOLS.iter().map(|tool| (tool.to_string(), *tool));
    let nearest = tables()
        .flat_map(|(_, (raw, normalized))| {
            [
                (raw.to_ascii_lowercase(), *normalized),
                (normalized.to_string(), *normalized),
            ]
        })
        .chain(synthetic)
        .map(|(candidate, normalized)| (strsim::osa_distance(&name, &candidate), normalized))
        .filter(|(distance, _)| *distance <= typo_budget(&name))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, normalized)| normalized);
    KnownTool::Unknown { nearest }
}

/// How many edits (insertions, deletions, substitutions, swaps of two
/// neighbours) still look like a typo of a name this long: one for short
/// names, where two edits reach unrelated words (`ls` to `rg`), else two.
fn typo_budget(name: &str) -> usize {
    if name.len() <= 4 {
        1
    } else {
        2
    }
}

/// Names already in the normalized MCP shape (Claude's and Codex's own
/// spelling), lowercased. The harnesses that spell MCP tools differently
/// resolve them against their configured servers in
/// [`Harness::mcp_tool`](crate::Harness::mcp_tool), which needs their
/// settings; this table lookup does not guess.
fn normalize_mcp(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("mcp__").then_some(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_vocabulary() {
        use KnownTool::*;
        let cases: &[(&str, KnownTool)] = &[
            ("bash", Tool),
            ("Bash", Tool),
            ("edit", Tool),
            ("multiedit", Tool),
            ("webfetch", Tool),
            ("delete", Tool),
            ("agent", Tool),
            ("grep", Tool),
            (
                "run_shell_command",
                Raw {
                    target: Target::Gemini,
                    normalized: "bash",
                },
            ),
            (
                "task",
                Raw {
                    target: Target::Claude,
                    normalized: "agent",
                },
            ),
            (
                "apply_patch",
                Raw {
                    target: Target::Codex,
                    normalized: "edit",
                },
            ),
            (
                "view",
                Raw {
                    target: Target::Copilot,
                    normalized: "read",
                },
            ),
            (
                "bsh",
                Unknown {
                    nearest: Some("bash"),
                },
            ),
            (
                "wirte",
                Unknown {
                    nearest: Some("write"),
                },
            ),
            (
                "webfetc",
                Unknown {
                    nearest: Some("webfetch"),
                },
            ),
            (
                "run_shell_comand",
                Unknown {
                    nearest: Some("bash"),
                },
            ),
            ("bash-my", Unknown { nearest: None }),
            ("frobnicate", Unknown { nearest: None }),
            ("xy", Unknown { nearest: None }),
            ("ledger_write", Tool),
            ("inbox_send", Tool),
            ("judge", Tool),
            (
                "ledger_writes",
                Unknown {
                    nearest: Some("ledger_write"),
                },
            ),
            (
                "inbox_sned",
                Unknown {
                    nearest: Some("inbox_send"),
                },
            ),
        ];
        for (name, want) in cases {
            assert_eq!(known_tool(name), *want, "{name}");
        }
    }

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
            // Without its servers a Gemini MCP name is not split (`Harness::mcp_tool`).
            (
                Target::Gemini,
                "mcp_github_create_pr",
                None,
                "mcp_github_create_pr",
            ),
            (Target::Cursor, "Shell", None, "bash"),
            (Target::Cursor, "Write", None, "write"),
            (Target::Cursor, "Delete", None, "delete"),
            (Target::Claude, "SomethingNew", None, "somethingnew"),
            (Target::Claude, "BASH", None, "bash"),
        ];
        for (target, name, nested, want) in cases {
            assert_eq!(
                normalize(*target, name, *nested).name.as_str(),
                *want,
                "{target} {name}"
            );
        }
    }
}
