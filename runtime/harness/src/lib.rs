//! The harnesses hookdex answers, one module each behind one [`Harness`]
//! trait: the event names it sends, how its payload is spelled, its
//! tool-name table, what its hook protocol can carry, how it wants a reply,
//! and the settings file `hookdex init` writes for it.
//!
//! Adding a harness is adding one module here and one arm to [`harness`].
//!
//! ```
//! use hookdex_harness::{harness, Payload};
//! use hookdex_model::{Step, Target};
//!
//! let payload = Payload::parse(
//!     Target::Gemini,
//!     br#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#,
//!     None,
//! )
//! .unwrap();
//! assert_eq!(payload.step(), Step::Pre);
//! assert_eq!(harness(Target::Gemini).normalize_tool("run_shell_command", None).name.as_str(), "bash");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod claude;
mod codex;
mod codex_config;
mod codex_trust;
mod copilot;
mod cursor;
mod folder_trust;
mod gemini;
mod init;
mod lenient;
mod mcp;
mod payload;
mod reply;
mod settings;
mod tools;

use hookdex_model::{Answer, Event, Target, ToolName};

pub use crate::codex_trust::{codex_record_path, codex_untrusted, NotATable};
pub use crate::folder_trust::{
    copilot_folder_verdict, gemini_folder_verdict, split_comment_header, FolderTrust,
    FolderVerdict, NotAList,
};
pub use crate::init::{
    foreign_server_note, init_notes, real_path, registered_note, ConfigFile, InitRequest,
};
pub use crate::mcp::McpScope;
pub use crate::payload::{Payload, PayloadError, Shape};
pub use crate::reply::{
    decision_at_event, notice, reply, Ask, Capabilities, OutputChannel, Reply, ReplyOptions,
};
pub use crate::settings::{
    guard_prefix, is_guard_prefix, HookSettings, McpFormat, McpRegistration, McpRemoval,
    SettingsError, Wired,
};
pub use crate::tools::{known_tool, KnownTool, Normalized};

/// What hookdex knows about one harness.
pub trait Harness: Sync {
    /// The target this module answers.
    fn target(&self) -> Target;

    /// The harness's own event names and the events they mean (its
    /// spellings that differ from Claude Code's; Claude's names are
    /// understood everywhere).
    fn events(&self) -> &'static [(&'static str, Event)];

    /// The events the harness sends a hook (what `init` can wire): every
    /// event unless its module says otherwise.
    fn sends(&self) -> &'static [Event] {
        Event::ALL
    }

    /// The harness's own tool names and the normalized names matchers are
    /// written against (Claude Code's names are understood everywhere).
    fn tools(&self) -> &'static [(&'static str, &'static str)];

    /// What the hook protocol can carry for a payload of `shape`.
    fn capabilities(&self, shape: Shape) -> Capabilities;

    /// The reply to `payload` carrying `answer`, already degraded to what
    /// the harness can carry; `tool` is the normalized tool name.
    fn render(&self, payload: &Payload, tool: &ToolName, answer: &Answer) -> Reply;

    /// Where `hookdex init` writes the hook settings and how they are spelled.
    fn settings(&self) -> &'static HookSettings;

    /// The harness's program on `PATH` (`claude`, `cursor-agent`, …): with
    /// its own directory, how `hookdex doctor` finds it on a machine.
    fn program(&self) -> &'static str;

    /// The harness's name for `event`: its own spelling, else Claude Code's.
    fn event_name(&self, event: Event) -> &'static str {
        self.events()
            .iter()
            .find(|(_, e)| *e == event)
            .map_or(event.as_str(), |(name, _)| name)
    }

    /// The MCP tool `payload` calls, as `mcp__<server>__<tool>`, when this
    /// harness spells MCP tools its own way (Gemini, Copilot, Cursor) and
    /// the payload's tool is one. `scope` is read (settings files, the
    /// environment) only when the tool name can be this harness's spelling
    /// of an MCP tool; `None` otherwise, and when no configured server
    /// accounts for the name.
    fn mcp_tool(&self, _payload: &Payload, _scope: &McpScope<'_>) -> Option<ToolName> {
        None
    }

    /// The configuration file beside the hook settings that `init` edits
    /// too (Codex's `config.toml`); `None` for most harnesses.
    fn config_file(&self) -> Option<&'static dyn ConfigFile> {
        None
    }

    /// The trusted-folder list `init --scope project` records the
    /// repository in (Copilot's `config.json`); `None` for most harnesses.
    fn folder_trust(&self) -> Option<&'static dyn FolderTrust> {
        None
    }

    /// What `init` must tell the person for this harness to really run the
    /// hooks it wired for `request` (folder trust, stripped variables);
    /// [`init_notes`] adds what every harness shares.
    fn init_notes(&self, _request: &InitRequest<'_>) -> Vec<String> {
        Vec::new()
    }

    /// Normalizes a tool name this harness sent: its own table first, then
    /// Claude Code's, then the other harnesses', then lowercased.
    fn normalize_tool(&self, name: &str, nested_command: Option<&str>) -> Normalized {
        tools::normalize(self.target(), name, nested_command)
    }
}

/// The module for `target`.
pub fn harness(target: Target) -> &'static dyn Harness {
    match target {
        Target::Claude => &claude::Claude,
        Target::Codex => &codex::Codex,
        Target::Copilot => &copilot::Copilot,
        Target::Gemini => &gemini::Gemini,
        Target::Cursor => &cursor::Cursor,
    }
}

/// The event a harness of `target` means by `name`: its own spelling,
/// Claude Code's, or any other harness's; case and step tokens (`stop`)
/// count for nothing, so a name no table knows runs no rule.
pub fn event_of(target: Target, name: &str) -> Option<Event> {
    let own = |t: Target| {
        harness(t)
            .events()
            .iter()
            .find(|(event, _)| *event == name)
            .map(|(_, e)| *e)
    };
    own(target)
        .or_else(|| Event::from_name(name))
        .or_else(|| Target::ALL.into_iter().find_map(own))
}

#[cfg(test)]
mod tests;
