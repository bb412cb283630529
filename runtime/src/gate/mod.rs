//! The gate (**contract**, SPEC §13): agents never write, change or remove
//! their own guardrails on their own initiative. A session's gate opens
//! only on the person's own prompt that asks for a rule change
//! ([`phrase`]), and closes at `Stop` and after an hour
//! ([`crate::state::gate`]). While it is closed, a `PreToolUse` call is
//! denied, before any rule runs, when it
//!
//! - is an MCP tool whose name ends in `condition_set`, `condition_clear`
//!   or `enforcement_set`;
//! - is a file tool (every harness's write, edit, multi-edit, notebook
//!   edit and patch tools) on a path inside a rule source ([`sources`]);
//! - is a shell command that changes a rule source ([`shell`]).
//!
//! Nothing is read from disk for a call that touches no rule source: the
//! gate's state is read only when the call would be denied.
//! `HOOKDEX_GATE=off` turns it off (for people who edit rules by hand).

pub mod phrase;
pub mod shell;
pub mod sources;

use std::ffi::OsString;
use std::path::Path;

use hookdex_harness::Payload;
use hookdex_model::Event;
use serde_json::Value;

use crate::call::Call;
use crate::settings::Settings;
use crate::state::gate::{GateState, Gates};

use self::sources::{resolve_in, RuleSources};

/// The MCP tools that change rules: gated by name.
pub const GATED_TOOLS: &[&str] = &["condition_set", "condition_clear", "enforcement_set"];

/// What the gate does with one event of a session, before any rule: opens
/// on an asking prompt, closes at Stop; `Some(reason)` denies a tool call
/// that would change a rule source while it is closed.
pub fn on_event(
    settings: &Settings,
    payload: &Payload,
    calls: &[(Payload, Call)],
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    if !settings.gate_enabled {
        return None;
    }
    let gates = || Gates::new(&settings.view.home);
    let session = payload.session_id.as_deref().unwrap_or_default();
    match payload.event {
        // Each prompt of the person decides: one that asks opens the gate
        // for its turn, any other closes it (a turn the person interrupted
        // sends no Stop). A call that names no session opens nothing.
        Event::UserPromptSubmit => {
            let prompt = payload.raw.get("prompt").and_then(Value::as_str);
            match prompt.is_some_and(phrase::asks_for_change) && !session.is_empty() {
                true => {
                    let _ = gates().open(session);
                }
                false => gates().close(session),
            }
            None
        }
        Event::Stop | Event::SessionEnd => {
            gates().close(session);
            None
        }
        Event::PreToolUse => {
            let sources = RuleSources::of(&settings.view);
            let cwd = &settings.exec.cwd;
            let why = calls.iter().find_map(|(single, call)| {
                changes_rules(
                    &single.tool_name,
                    &single.tool_input,
                    call,
                    cwd,
                    &sources,
                    var,
                )
            })?;
            match gates().state(session) {
                GateState::Open { .. } => None,
                GateState::Closed => Some(denial(&why)),
            }
        }
        _ => None,
    }
}

/// The denial: what the call does, the gate, and how to open it.
pub fn denial(why: &str) -> String {
    format!(
        "hookdex gate: {why}. Rule sources change only when the person asks: a prompt of theirs \
         such as \"set a condition …\", \"update the filter …\" or \"remove the enforcement …\" \
         opens the gate for this session until the turn ends."
    )
}

/// Why one call (of the tool `raw` as the harness names it, with `input`)
/// changes a rule source, if it does; `explain` asks it too.
pub fn changes_rules(
    raw: &str,
    input: &Value,
    call: &Call,
    cwd: &Path,
    sources: &RuleSources,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let gated = |name: &str| {
        GATED_TOOLS.iter().find(|t| {
            name == **t || name.ends_with(&format!("_{t}")) || name.ends_with(&format!("-{t}"))
        })
    };
    // Cursor names every MCP call `MCP`, the tool in its input.
    let mcp_tool = input
        .get("tool")
        .and_then(Value::as_str)
        .filter(|_| call.tool.name.is_mcp());
    if let Some(tool) = gated(raw).or_else(|| mcp_tool.and_then(gated)) {
        return Some(format!("`{tool}` changes the rules"));
    }
    let tool = &call.tool.name;
    if tool.is_bash() {
        let command = call.command.as_deref()?;
        // The shell tool's own directory (Codex `workdir`, Gemini `dir_path`).
        let workdir = ["workdir", "dir_path", "cwd"]
            .iter()
            .find_map(|key| input.get(*key).and_then(Value::as_str))
            .map(|dir| resolve_in(cwd, dir).lexical);
        let cwd = workdir.as_deref().unwrap_or(cwd);
        return shell::writes_rule_source(command, cwd, sources, var)
            .map(|why| format!("this command changes a rule source: {why}"));
    }
    if !matches!(
        tool.as_str(),
        "write" | "edit" | "multiedit" | "notebookedit" | "delete"
    ) {
        return None;
    }
    let mut paths: Vec<String> = call.path.iter().cloned().collect();
    paths.extend(patch_paths(input));
    paths
        .iter()
        .map(|p| resolve_in(cwd, p))
        .find(|p| sources.touches(p))
        .map(|p| format!("`{raw}` writes {}, a rule source", p.display()))
}

/// The files a patch (Codex's `apply_patch`, in `command`, `input` or
/// `patch`) adds, updates, deletes or moves to.
pub(crate) fn patch_paths(input: &Value) -> Vec<String> {
    let body = ["command", "input", "patch"]
        .iter()
        .find_map(|key| match input.get(*key)? {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        });
    let Some(body) = body else {
        return Vec::new();
    };
    const MARKERS: &[&str] = &[
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    body.lines()
        .filter_map(|line| {
            let line = line.trim();
            MARKERS
                .iter()
                .find_map(|m| line.strip_prefix(m))
                .map(|p| p.trim().to_string())
        })
        .collect()
}
