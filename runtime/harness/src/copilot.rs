//! GitHub Copilot CLI: its camelCase events and tool names, its
//! `hooks/hookdex.json`, and its two reply formats. A camelCase payload gets
//! flat `permissionDecision`, `permissionDecisionReason`, `modifiedArgs`
//! (the full arguments) and `additionalContext`, and on post
//! `modifiedResult` (a replacement, or a block that withholds the output);
//! a PascalCase payload gets Claude's format. Its MCP tools,
//! `<server>-<tool>`, are resolved against its configured servers.

use std::path::PathBuf;

use hookdex_model::{Event, Permission, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::claude::{self, BareAllow};
use crate::folder_trust::{CopilotFolders, FolderTrust};
use crate::mcp::{first_tier, McpScope};
use crate::payload::Payload;
use crate::reply::{output_text, Ask, Capabilities, Reply};
use crate::settings::{EnvPlace, HookSettings, Layout, McpFormat, McpRegistration};
use crate::{Harness, InitRequest, Shape};
use hookdex_model::Answer;

/// GitHub Copilot CLI and coding agent.
pub(crate) struct Copilot;

impl Harness for Copilot {
    fn target(&self) -> Target {
        Target::Copilot
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        &[
            ("preToolUse", Event::PreToolUse),
            ("postToolUse", Event::PostToolUse),
            ("postToolUseFailure", Event::PostToolUseFailure),
            ("permissionRequest", Event::PermissionRequest),
            ("sessionStart", Event::SessionStart),
            ("sessionEnd", Event::SessionEnd),
            ("subagentStart", Event::SubagentStart),
            ("subagentStop", Event::SubagentStop),
            ("preCompact", Event::PreCompact),
            ("notification", Event::Notification),
            ("userPromptSubmitted", Event::UserPromptSubmit),
            ("agentStop", Event::Stop),
        ]
    }

    fn sends(&self) -> &'static [Event] {
        &[
            Event::PreToolUse,
            Event::PostToolUse,
            Event::PostToolUseFailure,
            Event::PermissionRequest,
            Event::SessionStart,
            Event::SessionEnd,
            Event::SubagentStart,
            Event::SubagentStop,
            Event::PreCompact,
            Event::Notification,
            Event::UserPromptSubmit,
            Event::Stop,
        ]
    }

    fn tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("bash", "bash"),
            ("shell", "bash"),
            ("apply_patch", "edit"),
            ("edit", "edit"),
            ("str_replace", "edit"),
            ("create", "write"),
            ("view", "read"),
            ("rg", "grep"),
            ("web_fetch", "webfetch"),
            ("web_search", "websearch"),
            ("task", "agent"),
        ]
    }

    fn capabilities(&self, shape: Shape) -> Capabilities {
        match shape {
            Shape::Snake => Capabilities {
                user_message: false,
                ..Capabilities::ALL
            },
            // 1.0.102: `ask` is a deny; `modifiedResult` is honoured, so a
            // post block withholds the output; no user channel is known.
            // agentStop blocks; the lifecycle events' output is not read.
            Shape::CopilotCamel => Capabilities {
                ask: Ask::No,
                user_message: false,
                permission_rewrite: false,
                block_events: &[Event::Stop],
                context_events: &[],
                ..Capabilities::ALL
            },
        }
    }

    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
        match payload.shape {
            Shape::Snake => claude::render(payload, tool, answer, BareAllow::Say),
            Shape::CopilotCamel => camel(payload, answer),
        }
    }

    fn mcp_tool(&self, payload: &Payload, scope: &McpScope<'_>) -> Option<ToolName> {
        let name = payload.tool_name.as_str();
        // Copilot CLI 1.0.102 sends preToolUse `toolName: "srv_a-do_thing"`
        // for tool `do_thing` of server `srv_a` (seen running it offline with
        // a stdio server in `~/.copilot/mcp-config.json`); none of its own
        // tools has a `-` (bash, view, create, edit, glob, grep, task,
        // list_bash, read_bash, write_agent, …, as sent to the model), so
        // anything else is not read as MCP and costs nothing.
        if !name.contains('-') || name.starts_with("mcp__") {
            return None;
        }
        let (user, project) = settings_files(scope);
        first_tier(scope, BUILTIN_SERVERS, user, project, |servers| {
            let prefixes = servers.iter().map(|s| (tool_prefix(&s.name), &s.name));
            ToolName::resolve_mcp(name, prefixes)
        })
    }

    fn folder_trust(&self) -> Option<&'static dyn FolderTrust> {
        Some(&CopilotFolders)
    }

    fn init_notes(&self, request: &InitRequest<'_>) -> Vec<String> {
        // With trust, `init` records the folder itself and says so.
        match request.project && !request.trust {
            true => vec![format!(
                "note: Copilot CLI loads {} only in a folder it trusts (trustedFolders in its \
                 config.json) and skips it silently otherwise, -p included; --no-trust left \
                 that list alone: choose to trust the folder when copilot asks, or rerun init \
                 without --no-trust; the user scope (the default) always loads",
                request.settings_path.display(),
            )],
            false => Vec::new(),
        }
    }

    fn program(&self) -> &'static str {
        "copilot"
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".github/hooks/hookdex.json",
            user_dir: ".copilot",
            user_dir_var: Some("COPILOT_HOME"),
            user_file: "hooks/hookdex.json",
            layout: Layout::Copilot,
            // 1.0.102 sends postToolUse for a failed command too.
            events: &[Event::PreToolUse, Event::PostToolUse],
            shell_prefix: None,
            env: EnvPlace::Prefix,
            mcp: McpRegistration {
                user: ".copilot/mcp-config.json",
                user_dir_var: Some(("COPILOT_HOME", "mcp-config.json")),
                project: None,
                format: McpFormat::Json {
                    kind: Some("local"),
                },
            },
        }
    }
}

/// The server Copilot CLI 1.0.102 brings itself (when signed in), whose
/// tools are not in any settings file.
const BUILTIN_SERVERS: &[&str] = &["github-mcp-server"];

/// What Copilot CLI 1.0.102 puts before the tools of `server`: the name with
/// every character outside `[A-Za-z0-9_-]` turned into `-` (seen: `a/b c@d`
/// gives `a-b-c-d-do_thing`, `my-srv.v2` gives `my-srv-v2-do_thing`), then `-`.
pub(crate) fn tool_prefix(server: &str) -> String {
    let mut prefix: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    prefix.push('-');
    prefix
}

/// Where Copilot CLI 1.0.102 configures MCP servers (`mcpServers`): the
/// user's `mcp-config.json` in `$COPILOT_HOME` (default `~/.copilot`), and
/// the workspace's `.mcp.json` and `.github/mcp.json` (its message on the
/// removed `.vscode/mcp.json` support names these two): the user's, then
/// the workspace's.
fn settings_files(scope: &McpScope<'_>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let home = scope
        .path_var("COPILOT_HOME")
        .or_else(|| scope.path_var("HOME").map(|home| home.join(".copilot")));
    let user = home.map(|dir| dir.join("mcp-config.json"));
    let project = vec![
        scope.cwd.join(".mcp.json"),
        scope.cwd.join(".github/mcp.json"),
    ];
    (user.into_iter().collect(), project)
}

fn camel(payload: &Payload, answer: &Answer) -> Reply {
    let mut out = Map::new();
    match payload.step() {
        Step::Permission => {
            if let Some(decision @ (Permission::Allow | Permission::Deny)) = answer.decision {
                out.insert("behavior".into(), json!(decision.as_str()));
                if decision == Permission::Deny {
                    out.insert("message".into(), json!(answer.reason()));
                }
            }
            return Reply::json(Value::Object(out));
        }
        Step::Stop => {
            if let Some(block) = &answer.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(block));
            }
            return Reply::json(Value::Object(out));
        }
        _ => {}
    }
    if payload.step() == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("permissionDecision".into(), json!(decision.as_str()));
            out.insert("permissionDecisionReason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            out.insert("modifiedArgs".into(), input.clone());
        }
    }
    if let Some(block) = &answer.block {
        out.insert(
            "modifiedResult".into(),
            json!({"resultType": "denied", "textResultForLlm": block}),
        );
    } else if let Some(output) = &answer.tool_output {
        out.insert(
            "modifiedResult".into(),
            json!({"resultType": "success", "textResultForLlm": output_text(output)}),
        );
    }
    if let Some(context) = answer.context() {
        out.insert("additionalContext".into(), json!(context));
    }
    Reply::json(Value::Object(out))
}
