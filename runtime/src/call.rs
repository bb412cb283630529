//! One tool call as the index sees it: the harness's tool name normalized,
//! the shell command pulled out of the input, and its programs.

use hookdex_harness::{harness, McpScope, Normalized, Payload};
use hookdex_index::Query;
use hookdex_model::{Step, Target};
use serde_json::Value;

/// A call ready to be looked up.
#[derive(Clone, Debug)]
pub struct Call {
    /// The harness.
    pub target: Target,
    /// The step.
    pub step: Step,
    /// The tool name as the harness sent it.
    pub raw_tool: String,
    /// The normalized tool name.
    pub tool: Normalized,
    /// The shell command line, when the tool is `bash`.
    pub command: Option<String>,
    /// Programs of the command, lowercased, first-seen order.
    pub programs: Vec<String>,
    /// Programs the command may run that its text cannot name (`$cmd x`, `python -c`).
    pub dynamic: Vec<hookdex_shell::Dynamic>,
    /// The file the call touches (`file_path`, `notebook_path` or `path`).
    pub path: Option<String>,
    /// The simple commands of [`Call::command`], read with its programs
    /// in one reading: the gate, the guards and the conditions' `shell`
    /// field read them.
    pub commands: Vec<hookdex_shell::Command>,
}

impl Call {
    /// Builds a call from the harness's tool name and tool input.
    pub fn new(target: Target, step: Step, raw_tool: &str, input: &Value) -> Call {
        let nested = input.get("command").and_then(Value::as_str);
        let tool = harness(target).normalize_tool(raw_tool, nested);
        Call::with_tool(target, step, raw_tool, tool, input)
    }

    fn with_tool(
        target: Target,
        step: Step,
        raw_tool: &str,
        tool: Normalized,
        input: &Value,
    ) -> Call {
        let command = tool
            .name
            .is_bash()
            .then(|| command_of(input).map(std::borrow::Cow::into_owned))
            .flatten();
        // One reading gives the programs the lookup needs and the simple
        // commands the gate (on by default), the guards and the conditions
        // read.
        let (split, simple) = command
            .as_deref()
            .map(hookdex_shell::read)
            .unwrap_or_default();
        let programs = split
            .programs
            .into_iter()
            .map(|p| p.to_ascii_lowercase())
            .collect();
        let path = ["file_path", "notebook_path", "path"]
            .iter()
            .find_map(|key| input.get(*key).and_then(Value::as_str))
            .map(String::from);
        Call {
            target,
            step,
            raw_tool: raw_tool.to_string(),
            tool,
            command,
            programs,
            dynamic: split.dynamic,
            path,
            commands: simple,
        }
    }

    /// The call a payload makes: its tool (or, for an event step, its
    /// matched field) normalized for `target`. A harness's own spelling of
    /// an MCP tool is resolved against the servers its settings configure,
    /// read through `scope` only when the name can be one.
    pub fn of(target: Target, payload: &Payload, scope: &McpScope<'_>) -> Call {
        if !payload.event.is_tool_event() {
            return Call::new(
                target,
                payload.step(),
                &payload.matched_name(),
                &Value::Null,
            );
        }
        let raw_tool = payload.matched_name();
        match harness(target).mcp_tool(payload, scope) {
            Some(name) => {
                let tool = Normalized { name, via: "mcp" };
                Call::with_tool(target, payload.step(), &raw_tool, tool, &payload.tool_input)
            }
            None => Call::new(target, payload.step(), &raw_tool, &payload.tool_input),
        }
    }

    /// The index query for this call. With `shell_strict`
    /// (`HOOKDEX_SHELL_STRICT`), a command with a dynamic program matches every
    /// `bash.<cli>` rule: it may run any cli.
    pub fn query(&self, shell_strict: bool) -> Query<'_> {
        Query {
            step: self.step,
            tool: &self.tool.name,
            raw_tool: &self.raw_tool,
            programs: &self.programs,
            any_program: shell_strict && !self.dynamic.is_empty(),
        }
    }
}

/// The command line of a shell tool input: a string `command` (or `cmd`), or
/// a list (Codex's exec form), joined with shell quoting.
pub fn command_of(input: &Value) -> Option<std::borrow::Cow<'_, str>> {
    let value = input.get("command").or_else(|| input.get("cmd"))?;
    match value {
        Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
        Value::Array(parts) => Some(std::borrow::Cow::Owned(
            parts
                .iter()
                .map(|p| match p {
                    Value::String(s) => hookdex_shell::quote(s),
                    other => hookdex_shell::quote(&other.to_string()),
                })
                .collect::<Vec<_>>()
                .join(" "),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_from_strings_and_lists() {
        assert_eq!(
            command_of(&json!({"command": "git status"})).as_deref(),
            Some("git status")
        );
        assert_eq!(
            command_of(&json!({"command": ["bash", "-lc", "kubectl delete pod x"]})).as_deref(),
            Some("bash -lc 'kubectl delete pod x'")
        );
        assert_eq!(
            command_of(&json!({"command": ["echo", "it's"]})).as_deref(),
            Some("echo 'it'\\''s'")
        );
        assert_eq!(command_of(&json!({"file_path": "x"})), None);
    }

    #[test]
    fn calls_normalize_and_split() {
        let call = Call::new(
            Target::Codex,
            Step::Pre,
            "exec",
            &json!({"command": ["git", "push"]}),
        );
        assert_eq!(call.tool.name.as_str(), "bash");
        assert_eq!(call.programs, vec!["git".to_string()]);
        let edit = Call::new(
            Target::Copilot,
            Step::Pre,
            "str_replace_editor",
            &json!({"command": "create"}),
        );
        assert_eq!(edit.tool.name.as_str(), "write");
        assert!(edit.programs.is_empty());
    }

    #[test]
    fn strict_queries_match_any_program_only_when_one_is_dynamic() {
        let bash = |command: &str| {
            Call::new(
                Target::Claude,
                Step::Pre,
                "Bash",
                &json!({"command": command}),
            )
        };
        let dynamic = bash("ls && $TOOL x");
        assert_eq!(dynamic.programs, ["ls"]);
        assert_eq!(dynamic.dynamic[0].text, "$TOOL");
        assert!(dynamic.query(true).any_program);
        assert!(!dynamic.query(false).any_program);
        assert!(!bash("git status").query(true).any_program);
    }
}
