//! Google Gemini CLI: its events and tool names, its `settings.json`
//! (timeouts in milliseconds), and its format: flat `decision` (`allow`,
//! `deny`, `ask`) and `reason`; a rewrite in `hookSpecificOutput.tool_input`
//! (0.61.0 replaces the arguments with it; it is not merged, so it is the
//! full input); on `AfterTool`, `decision: "deny"` replaces the result with
//! the reason, and `hookSpecificOutput.additionalContext` adds context;
//! `systemMessage` for the person.

use hookdex_model::{Event, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::answer::Answer;
use crate::payload::Payload;
use crate::reply::{Ask, Capabilities, OutputChannel, Reply};
use crate::settings::{HookSettings, Layout};
use crate::{Harness, Shape};

/// Google Gemini CLI.
pub(crate) struct Gemini;

impl Harness for Gemini {
    fn target(&self) -> Target {
        Target::Gemini
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        &[
            ("BeforeTool", Event::PreToolUse),
            ("AfterTool", Event::PostToolUse),
            ("PreCompress", Event::PreCompact),
            ("BeforeAgent", Event::UserPromptSubmit),
            ("AfterAgent", Event::Stop),
        ]
    }

    fn tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("run_shell_command", "bash"),
            ("replace", "edit"),
            ("write_file", "write"),
            ("read_file", "read"),
            ("read_many_files", "read"),
            ("grep_search", "grep"),
            ("list_directory", "ls"),
            ("web_fetch", "webfetch"),
            ("google_web_search", "websearch"),
            ("invoke_agent", "agent"),
        ]
    }

    fn capabilities(&self, _shape: Shape) -> Capabilities {
        Capabilities {
            pre_context: false,
            // 0.61.0 `-p`: an `ask` waits for a confirmation that never comes.
            ask: Ask::Interactive,
            // An AfterTool deny replaces what the model sees with the reason.
            post_output: OutputChannel::Block,
            mcp_output: OutputChannel::Block,
            ..Capabilities::ALL
        }
    }

    fn render(&self, payload: &Payload, _tool: &ToolName, answer: &Answer) -> Reply {
        render(payload, answer)
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".gemini/settings.json",
            user_dir: ".gemini",
            user_dir_var: None,
            user_file: "settings.json",
            // Gemini counts hook timeouts in milliseconds.
            layout: Layout::Grouped {
                timeout: HookSettings::TIMEOUT_SEC * 1000,
            },
            events: &[Event::PreToolUse, Event::PostToolUse],
            // In strict sanitization (0.61.0: whenever `GITHUB_SHA` is set)
            // a hook's environment loses every variable Gemini does not
            // know; the handler's own `env` is applied after that.
            handler_env: true,
        }
    }
}

fn render(payload: &Payload, answer: &Answer) -> Reply {
    let mut out = Map::new();
    let mut specific = Map::new();
    if payload.step() == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("decision".into(), json!(decision.as_str()));
            out.insert("reason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            specific.insert("tool_input".into(), input.clone());
        }
    } else if let Some(block) = &answer.block {
        out.insert("decision".into(), json!("deny"));
        out.insert("reason".into(), json!(block));
    }
    if let Some(context) = answer.context() {
        specific.insert("additionalContext".into(), json!(context));
    }
    if let Some(message) = answer.user_message() {
        out.insert("systemMessage".into(), json!(message));
    }
    if !specific.is_empty() {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    Reply::json(Value::Object(out))
}
