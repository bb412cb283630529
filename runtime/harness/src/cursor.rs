//! Cursor: its events and tool names, its `hooks.json`, and its format:
//! `preToolUse` takes `decision` (`allow`, `deny`), `reason` and
//! `updated_input`; `postToolUse` takes `updated_mcp_tool_output` for MCP tools.

use hookdex_model::{Event, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::answer::Answer;
use crate::payload::Payload;
use crate::reply::{Ask, Capabilities, OutputChannel, Reply};
use crate::settings::{HookSettings, Layout};
use crate::{Harness, Shape};

/// Cursor.
pub(crate) struct Cursor;

impl Harness for Cursor {
    fn target(&self) -> Target {
        Target::Cursor
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        &[
            ("preToolUse", Event::PreToolUse),
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
            ..Capabilities::ALL
        }
    }

    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
        render(payload, tool, answer)
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".cursor/hooks.json",
            user_dir: ".cursor",
            user_dir_var: None,
            user_file: "hooks.json",
            layout: Layout::Cursor,
            events: &[Event::PreToolUse, Event::PostToolUse],
            handler_env: false,
        }
    }
}

fn render(payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
    let mut out = Map::new();
    if payload.step() == Step::Pre {
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
    if out.is_empty() {
        return Reply::default();
    }
    Reply::json(Value::Object(out))
}
