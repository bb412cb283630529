//! Cursor: its events and tool names, its `hooks.json`, and its format:
//! `preToolUse` takes `decision` (`allow`, `deny`), `reason` and
//! `updated_input`; `postToolUse` takes `updated_mcp_tool_output` for MCP tools;
//! `beforeMCPExecution` takes `permission`, `user_message` and `agent_message`.

use std::path::PathBuf;

use hookdex_model::{Event, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::mcp::{first_tier, McpScope, Server};
use crate::payload::Payload;
use crate::reply::{Ask, Capabilities, OutputChannel, Reply};
use crate::settings::{EnvPlace, HookSettings, Layout, McpFormat, McpRegistration};
use crate::{Harness, Shape};
use hookdex_model::Answer;

/// Cursor.
pub(crate) struct Cursor;

impl Harness for Cursor {
    fn target(&self) -> Target {
        Target::Cursor
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        &[
            ("preToolUse", Event::PreToolUse),
            (BEFORE_MCP, Event::PreToolUse),
            ("postToolUse", Event::PostToolUse),
            ("postToolUseFailure", Event::PostToolUseFailure),
            ("sessionStart", Event::SessionStart),
            ("sessionEnd", Event::SessionEnd),
            ("subagentStart", Event::SubagentStart),
            ("subagentStop", Event::SubagentStop),
            ("preCompact", Event::PreCompact),
            ("beforeSubmitPrompt", Event::UserPromptSubmit),
            ("stop", Event::Stop),
        ]
    }

    fn sends(&self) -> &'static [Event] {
        &[
            Event::PreToolUse,
            Event::PostToolUse,
            Event::PostToolUseFailure,
            Event::SessionStart,
            Event::SessionEnd,
            Event::SubagentStart,
            Event::SubagentStop,
            Event::PreCompact,
            Event::UserPromptSubmit,
            Event::Stop,
        ]
    }

    fn tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Shell", "bash"),
            ("StrReplace", "edit"),
            ("Delete", "delete"),
            ("MCP", "mcp"),
        ]
    }

    fn capabilities(&self, _shape: Shape) -> Capabilities {
        Capabilities {
            pre_context: false,
            post_context: false,
            ask: Ask::No,
            post_output: OutputChannel::None,
            post_block: false,
            user_message: false,
            context_events: &[Event::SessionStart],
            // Not measured: a rewrite is sent only with a decision.
            rewrite_alone: false,
            ..Capabilities::ALL
        }
    }

    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
        render(payload, tool, answer)
    }

    fn mcp_tool(&self, payload: &Payload, scope: &McpScope<'_>) -> Option<ToolName> {
        // preToolUse names every MCP call `MCP` (the table maps it to `mcp`);
        // beforeMCPExecution names the tool but not the server, only how it
        // is reached (`url`, or `command` for a stdio server), which the
        // servers of Cursor's `mcp.json` files turn into a name.
        if !is_before_mcp(payload) {
            return None;
        }
        let tool = payload.tool_name.as_str();
        let endpoint = |key| payload.raw.get(key).and_then(Value::as_str);
        let (url, command) = (endpoint("url"), endpoint("command"));
        let (user, project) = settings_files(scope);
        let named = first_tier(scope, &[], user, project, |servers| {
            let server = servers.iter().find(|s| reaches(s, url, command))?;
            (!tool.is_empty()).then(|| ToolName::mcp(&server.name, tool))
        });
        // An MCP call all the same: `mcp` rules still see it.
        Some(named.unwrap_or_else(|| ToolName::new("mcp")))
    }

    fn program(&self) -> &'static str {
        "cursor-agent"
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".cursor/hooks.json",
            user_dir: ".cursor",
            user_dir_var: None,
            user_file: "hooks.json",
            layout: Layout::Cursor,
            events: &[Event::PreToolUse, Event::PostToolUse],
            shell_prefix: None,
            env: EnvPlace::Prefix,
            mcp: McpRegistration {
                user: ".cursor/mcp.json",
                user_dir_var: None,
                project: Some(".cursor/mcp.json"),
                format: McpFormat::Json { kind: None },
            },
        }
    }
}

/// Cursor's event before an MCP tool runs.
const BEFORE_MCP: &str = "beforeMCPExecution";

fn is_before_mcp(payload: &Payload) -> bool {
    payload.raw.get("hook_event_name").and_then(Value::as_str) == Some(BEFORE_MCP)
}

/// Whether `server` is the one reached at `url` or by `command` (the
/// command alone, or with its arguments joined by spaces).
fn reaches(server: &Server, url: Option<&str>, command: Option<&str>) -> bool {
    if let (Some(url), Some(configured)) = (url, &server.url) {
        return url == configured;
    }
    match (command, &server.command) {
        (Some(command), Some(configured)) => {
            command == configured
                || command
                    == [configured.as_str()]
                        .into_iter()
                        .chain(server.args.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" ")
        }
        _ => false,
    }
}

/// Cursor's MCP configuration (`mcpServers`): the user's `~/.cursor/mcp.json`
/// and the project's `.cursor/mcp.json` under the session's directory.
fn settings_files(scope: &McpScope<'_>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let user = scope
        .path_var("HOME")
        .map(|home| home.join(".cursor/mcp.json"));
    (
        user.into_iter().collect(),
        vec![scope.cwd.join(".cursor/mcp.json")],
    )
}

fn render(payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
    let mut out = Map::new();
    if is_before_mcp(payload) {
        // beforeMCPExecution has no input rewrite and no context.
        if let Some(decision) = answer.decision {
            out.insert("permission".into(), json!(decision.as_str()));
            out.insert("user_message".into(), json!(answer.reason()));
            out.insert("agent_message".into(), json!(answer.reason()));
        }
    } else if payload.step() == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("decision".into(), json!(decision.as_str()));
            out.insert("reason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            out.insert("updated_input".into(), input.clone());
        }
    } else if let (Some(output), true) = (&answer.tool_output, tool.is_mcp()) {
        out.insert("updated_mcp_tool_output".into(), output.clone());
    }
    match (payload.step(), &answer.block) {
        (Step::Prompt, Some(block)) => {
            out.insert("continue".into(), json!(false));
            out.insert("user_message".into(), json!(block));
        }
        (Step::Stop, Some(block)) => {
            out.insert("followup_message".into(), json!(block));
        }
        _ => {}
    }
    if let (Step::Start, Some(context)) = (payload.step(), answer.context()) {
        out.insert("additional_context".into(), json!(context));
    }
    if out.is_empty() {
        return Reply::default();
    }
    Reply::json(Value::Object(out))
}
