//! Claude Code: its tool names (which every harness understands), its
//! settings (`.claude/settings.json`), and its reply format, which Codex and
//! Copilot's PascalCase events share: `hookSpecificOutput` with
//! `hookEventName`, `permissionDecision`, `permissionDecisionReason`,
//! `updatedInput` (the full input) and `additionalContext`; on post,
//! top-level `decision: "block"` + `reason`, and `updatedToolOutput`
//! (`updatedMCPToolOutput` for MCP tools); `systemMessage` for the person.

use hookdex_model::{Event, Permission, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::payload::Payload;
use crate::reply::{output_text, Capabilities, Reply};
use crate::settings::{EnvPlace, HookSettings, Layout, McpFormat, McpRegistration};
use crate::{Harness, Shape};
use hookdex_model::Answer;

/// Claude Code.
pub(crate) struct Claude;

impl Harness for Claude {
    fn target(&self) -> Target {
        Target::Claude
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        // Claude's names are the canonical ones.
        &[]
    }

    fn tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Bash", "bash"),
            ("Edit", "edit"),
            ("MultiEdit", "multiedit"),
            ("NotebookEdit", "notebookedit"),
            ("Write", "write"),
            ("Read", "read"),
            ("Grep", "grep"),
            ("Glob", "glob"),
            ("LS", "ls"),
            ("WebFetch", "webfetch"),
            ("WebSearch", "websearch"),
            ("Agent", "agent"),
            ("Task", "agent"),
        ]
    }

    fn capabilities(&self, _shape: Shape) -> Capabilities {
        Capabilities::ALL
    }

    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
        render(payload, tool, answer, BareAllow::Say)
    }

    fn program(&self) -> &'static str {
        "claude"
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".claude/settings.json",
            user_dir: ".claude",
            user_dir_var: None,
            user_file: "settings.json",
            layout: Layout::Grouped {
                timeout: HookSettings::TIMEOUT_SEC,
            },
            // A failing command sends PostToolUseFailure, not PostToolUse
            // (2.1.332); post rules see both.
            events: &[
                Event::PreToolUse,
                Event::PostToolUse,
                Event::PostToolUseFailure,
            ],
            shell_prefix: Some("CLAUDE_CODE_SHELL_PREFIX"),
            env: EnvPlace::Settings,
            mcp: McpRegistration {
                user: ".claude.json",
                user_dir_var: None,
                project: Some(".mcp.json"),
                format: McpFormat::Json {
                    kind: Some("stdio"),
                },
            },
        }
    }
}

/// Whether an `allow` with no rewrite is said or left unsaid.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum BareAllow {
    /// Said, as any decision.
    Say,
    /// Left unsaid: Codex rejects `allow` without a rewrite, and saying
    /// nothing means the same there.
    Omit,
}

/// The Claude-format reply.
pub(crate) fn render(
    payload: &Payload,
    tool: &ToolName,
    answer: &Answer,
    bare_allow: BareAllow,
) -> Reply {
    let mut out = Map::new();
    let mut specific = Map::new();
    specific.insert("hookEventName".into(), json!(payload.event.as_str()));
    match payload.step() {
        Step::Permission => {
            // `ask` says nothing: the harness's own dialog decides.
            let behavior = match answer.decision {
                Some(Permission::Allow) => Some("allow"),
                Some(Permission::Deny) => Some("deny"),
                _ => None,
            };
            if let Some(behavior) = behavior {
                let mut decision = Map::new();
                decision.insert("behavior".into(), json!(behavior));
                if behavior == "deny" {
                    decision.insert("message".into(), json!(answer.reason()));
                }
                if let Some(input) = &answer.updated_input {
                    decision.insert("updatedInput".into(), input.clone());
                }
                specific.insert("decision".into(), Value::Object(decision));
            }
        }
        Step::Pre => {
            let silent_allow = bare_allow == BareAllow::Omit
                && answer.decision == Some(Permission::Allow)
                && answer.updated_input.is_none();
            if let (Some(decision), false) = (answer.decision, silent_allow) {
                specific.insert("permissionDecision".into(), json!(decision.as_str()));
                specific.insert("permissionDecisionReason".into(), json!(answer.reason()));
            }
            if let Some(input) = &answer.updated_input {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        _ => {
            if let Some(block) = &answer.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(block));
            }
            if let Some(output) = &answer.tool_output {
                if tool.is_mcp() {
                    specific.insert("updatedMCPToolOutput".into(), output.clone());
                } else {
                    specific.insert("updatedToolOutput".into(), shaped_output(payload, output));
                }
            }
        }
    }
    if let Some(context) = answer.context() {
        specific.insert("additionalContext".into(), json!(context));
    }
    if let Some(message) = answer.user_message() {
        out.insert("systemMessage".into(), json!(message));
    }
    if specific.len() > 1 {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if out.is_empty() {
        return Reply::default();
    }
    Reply::json(Value::Object(out))
}

/// A string replacing a Bash result keeps the result's shape: it becomes
/// `stdout`, and `stderr` is cleared.
fn shaped_output(payload: &Payload, output: &Value) -> Value {
    match (output, payload.tool_response.as_ref()) {
        (Value::String(_), Some(Value::Object(response))) if response.contains_key("stdout") => {
            let mut shaped = response.clone();
            shaped.insert("stdout".into(), json!(output_text(output)));
            if shaped.contains_key("stderr") {
                shaped.insert("stderr".into(), json!(""));
            }
            Value::Object(shaped)
        }
        _ => output.clone(),
    }
}
