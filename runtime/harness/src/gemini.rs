//! Google Gemini CLI: its events and tool names, its `settings.json`
//! (timeouts in milliseconds), and its format: flat `decision` (`allow`,
//! `deny`, `ask`) and `reason`; a rewrite in `hookSpecificOutput.tool_input`
//! (0.61.0 replaces the arguments with it; it is not merged, so it is the
//! full input); on `AfterTool`, `decision: "deny"` replaces the result with
//! the reason, and `hookSpecificOutput.additionalContext` adds context;
//! `systemMessage` for the person. Its MCP tools, `mcp_<server>_<tool>`, are
//! resolved by the payload's `mcp_context`, else against the servers in its
//! settings.

use std::path::PathBuf;

use hookdex_model::{Event, Step, Target, ToolName};
use serde_json::{json, Map, Value};

use crate::mcp::{first_tier, McpScope};
use crate::payload::Payload;
use crate::reply::{Ask, Capabilities, OutputChannel, Reply};
use crate::settings::{EnvPlace, HookSettings, Layout, McpFormat, McpRegistration};
use crate::{Harness, InitRequest, Shape};
use hookdex_model::Answer;

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

    fn sends(&self) -> &'static [Event] {
        // Its own names above, and SessionStart, SessionEnd and
        // Notification, which it spells as Claude does.
        &[
            Event::PreToolUse,
            Event::PostToolUse,
            Event::PreCompact,
            Event::UserPromptSubmit,
            Event::Stop,
            Event::SessionStart,
            Event::SessionEnd,
            Event::Notification,
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

    fn mcp_tool(&self, payload: &Payload, scope: &McpScope<'_>) -> Option<ToolName> {
        let name = payload.tool_name.as_str();
        // `mcp__…` is already the normalized shape (the table lowercases it).
        if !name.starts_with(MCP_PREFIX) || name.starts_with("mcp__") {
            return None;
        }
        // Gemini CLI 0.61.0 (coreToolHookTriggers.ts `extractMcpContext`)
        // sends `mcp_context {server_name, tool_name, …}` on BeforeTool and
        // AfterTool for an MCP tool whose server it has a config for: its
        // own answer, read before any file. Seen live: tool `do_thing` of
        // server `srv_a` arrives as `tool_name: "mcp_srv_a_do_thing"` with
        // `mcp_context: {server_name: "srv_a", tool_name: "do_thing",
        // command, args}`.
        let context = payload.raw.get("mcp_context");
        let field = |key| context?.get(key)?.as_str().filter(|s| !s.is_empty());
        if let (Some(server), Some(tool)) = (field("server_name"), field("tool_name")) {
            return Some(ToolName::mcp(server, tool));
        }
        let (user, project) = settings_files(scope);
        let tool = first_tier(scope, &[], user, project, |servers| {
            let prefixes = servers.iter().map(|s| (tool_prefix(&s.name), &s.name));
            ToolName::resolve_mcp(name, prefixes)
        })?;
        if let (true, Some(server)) = (truncated(name), tool.server()) {
            // The tool part was cut; only the server is known.
            return Some(ToolName::mcp(server, ""));
        }
        Some(tool)
    }

    fn init_notes(&self, request: &InitRequest<'_>) -> Vec<String> {
        let mut notes = Vec::new();
        // The repository's file carries no machine's variables.
        if !request.project && !request.env.is_empty() {
            let names: Vec<&str> = request.env.iter().map(|(k, _)| k.as_str()).collect();
            notes.push(format!(
                "note: the hooks carry {} in their own env: Gemini CLI strips them from a \
                 hook's environment under strict sanitization (rerun init when they change)",
                names.join(", ")
            ));
        }
        // 0.61.0 registers every settings hook, user ones too, as a project
        // hook, and skips them in an untrusted folder.
        notes.push(
            "note: Gemini CLI runs these hooks only in a trusted folder (trust it when asked, \
             or run gemini with --skip-trust)"
                .into(),
        );
        notes
    }

    fn program(&self) -> &'static str {
        "gemini"
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
            shell_prefix: None,
            env: EnvPlace::Handler,
            mcp: McpRegistration {
                user: ".gemini/settings.json",
                user_dir_var: None,
                project: Some(".gemini/settings.json"),
                format: McpFormat::Json { kind: None },
            },
        }
    }
}

/// Gemini CLI 0.61.0 (`MCP_TOOL_PREFIX` in packages/core/src/tools/mcp-tool.ts).
const MCP_PREFIX: &str = "mcp_";

/// The longest MCP tool name Gemini CLI 0.61.0 sends (`generateValidName`:
/// past 63 characters it keeps the first 30 and the last 30 around `...`).
const MAX_NAME: usize = 63;

/// What Gemini CLI 0.61.0 puts before the tools of `server`:
/// `generateValidName(`${server}_`)` in mcp-tool.ts, which prefixes `mcp_`
/// unless the name already starts with it and turns every UTF-16 unit
/// outside `[a-zA-Z0-9_.:-]` into `_` (seen live: server `a/b c` gives
/// `mcp_a_b_c_do_thing`, a tool `x.y` stays `x.y`).
pub(crate) fn tool_prefix(server: &str) -> String {
    let qualified = if server.starts_with(MCP_PREFIX) {
        format!("{server}_")
    } else {
        format!("{MCP_PREFIX}{server}_")
    };
    let mut out = String::with_capacity(qualified.len());
    for c in qualified.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':') {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

/// Whether `name` is one Gemini shortened to fit its length limit.
fn truncated(name: &str) -> bool {
    name.len() == MAX_NAME && name.get(30..33) == Some("...")
}

/// The settings files Gemini CLI 0.61.0 merges `mcpServers` from
/// (packages/cli/src/config/settings.ts `_doLoadSettings`): system
/// (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else the platform path), user
/// (`~/.gemini/settings.json`, home being `GEMINI_CLI_HOME` when set) and the
/// workspace's `.gemini/settings.json` under the session's directory; and each
/// extension's `~/.gemini/extensions/<name>/gemini-extension.json`: the
/// person's (system, user, extensions), then the workspace's.
fn settings_files(scope: &McpScope<'_>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let system = scope
        .path_var("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        .unwrap_or_else(|| PathBuf::from(SYSTEM_SETTINGS));
    let mut files = vec![system];
    let home = scope
        .path_var("GEMINI_CLI_HOME")
        .or_else(|| scope.path_var("HOME"));
    if let Some(dir) = home.map(|home| home.join(".gemini")) {
        files.push(dir.join("settings.json"));
        if let Ok(entries) = std::fs::read_dir(dir.join("extensions")) {
            let mut extensions: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("gemini-extension.json"))
                .collect();
            extensions.sort();
            files.extend(extensions);
        }
    }
    (files, vec![scope.cwd.join(".gemini/settings.json")])
}

/// Gemini CLI 0.61.0's system settings path when the variable is unset.
const SYSTEM_SETTINGS: &str = if cfg!(target_os = "macos") {
    "/Library/Application Support/GeminiCli/settings.json"
} else if cfg!(windows) {
    "C:\\ProgramData\\gemini-cli\\settings.json"
} else {
    "/etc/gemini-cli/settings.json"
};

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
