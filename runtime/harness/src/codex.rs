//! OpenAI Codex CLI: its tool names, its `hooks.json`, and Claude's reply
//! format with what Codex lacks: no `ask`, a rewrite only with `allow`, no
//! bare `allow`, and no output replacement (it travels as a post block).

use hookdex_model::{Event, Target, ToolName};

use crate::claude::{render, BareAllow};
use crate::codex_config::CodexConfig;
use crate::init::{ConfigFile, InitRequest};
use crate::payload::Payload;
use crate::reply::{Ask, Capabilities, OutputChannel, Reply};
use crate::settings::{EnvPlace, HookSettings, Layout, McpFormat, McpRegistration};
use crate::{Harness, Shape};
use hookdex_model::Answer;

/// OpenAI Codex CLI.
pub(crate) struct Codex;

impl Harness for Codex {
    fn target(&self) -> Target {
        Target::Codex
    }

    fn events(&self) -> &'static [(&'static str, Event)] {
        // Codex spells its events as Claude does.
        &[]
    }

    fn sends(&self) -> &'static [Event] {
        // 0.171.0's hook events (harness-formats.md §2); no SessionEnd,
        // Notification or PostToolUseFailure.
        &[
            Event::PreToolUse,
            Event::PermissionRequest,
            Event::PostToolUse,
            Event::SessionStart,
            Event::UserPromptSubmit,
            Event::PreCompact,
            Event::PostCompact,
            Event::SubagentStart,
            Event::SubagentStop,
            Event::Stop,
        ]
    }

    fn tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("shell", "bash"),
            ("shell_command", "bash"),
            ("exec", "bash"),
            ("exec_command", "bash"),
            ("unified_exec", "bash"),
            ("local_shell", "bash"),
            ("container.exec", "bash"),
            ("apply_patch", "edit"),
            ("read_file", "read"),
            ("spawn_agent", "agent"),
        ]
    }

    fn capabilities(&self, _shape: Shape) -> Capabilities {
        Capabilities {
            ask: Ask::No,
            rewrite_without_allow: false,
            // 0.171.0: the PostToolUse output schema has no
            // `updatedToolOutput` (a reply carrying it is dropped whole, block
            // and context too) and reports `updatedMCPToolOutput` unsupported;
            // a block withholds the output and shows the reason.
            post_output: OutputChannel::Block,
            mcp_output: OutputChannel::Block,
            // The PermissionRequest decision takes no `updatedInput` there.
            permission_rewrite: false,
            // 0.171.0 drops a rewrite that comes without `allow`.
            rewrite_alone: false,
            ..Capabilities::ALL
        }
    }

    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply {
        render(payload, tool, answer, BareAllow::Omit)
    }

    fn config_file(&self) -> Option<&'static dyn ConfigFile> {
        Some(&CodexConfig)
    }

    fn init_notes(&self, request: &InitRequest<'_>) -> Vec<String> {
        match request.project {
            true => vec![format!(
                "note: Codex loads {} only when the project is trusted ([projects.\"<repo>\"] \
                 trust_level = \"trusted\" in config.toml, or trust it when Codex asks)",
                request.settings_path.display()
            )],
            false => Vec::new(),
        }
    }

    fn program(&self) -> &'static str {
        "codex"
    }

    fn settings(&self) -> &'static HookSettings {
        &HookSettings {
            project: ".codex/hooks.json",
            user_dir: ".codex",
            user_dir_var: Some("CODEX_HOME"),
            user_file: "hooks.json",
            layout: Layout::Grouped {
                timeout: HookSettings::TIMEOUT_SEC,
            },
            events: &[Event::PreToolUse, Event::PostToolUse],
            shell_prefix: None,
            env: EnvPlace::Prefix,
            mcp: McpRegistration {
                user: ".codex/config.toml",
                user_dir_var: None,
                project: None,
                format: McpFormat::CodexToml,
            },
        }
    }
}
