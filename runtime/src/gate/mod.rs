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
//!   edit and patch tools) on a path inside a rule source or a file that
//!   wires one ([`sources`], [`RuleSources::with_wiring`]);
//! - is any other MCP tool, except one whose name says it only reads
//!   ([`mcp_reads_only`]), with an argument that names such a path
//!   ([`mcp_paths`]): an MCP filesystem server's `write_file`, `move_file`
//!   or `edit_file` is a file tool by another name;
//! - is a shell command that changes a rule source ([`shell`]).
//!
//! Nothing is read from disk for a call that touches no rule source but
//! the `lstat`s that follow the links on a named path's way: the gate's
//! state is read only when the call would be denied.
//! `HOOKDEX_GATE=off` turns it off (for people who edit rules by hand).

pub mod phrase;
pub mod shell;
pub use hookdex_compiler::sources::rule_sources as sources;

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

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
            let sources = rule_sources(&settings.view);
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
/// changes a rule source, if it does; `explain` asks it too. `sources` are
/// [`RuleSources::with_wiring`]: file and MCP tools may touch none of it,
/// shell commands none of the rule sources proper (the exec-time write
/// gate, where it runs, holds them to the wiring too).
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
        // The shell tool's own directory (Codex `workdir`, Gemini `dir_path`).
        let workdir = ["workdir", "dir_path", "cwd"]
            .iter()
            .find_map(|key| input.get(*key).and_then(Value::as_str))
            .map(|dir| resolve_in(cwd, dir).lexical);
        let cwd = workdir.as_deref().unwrap_or(cwd);
        return shell::writes_rule_source(call, cwd, &sources.rules_only(), var)
            .map(|why| format!("this command changes a rule source: {why}"));
    }
    if tool.is_mcp() {
        let name = mcp_tool.unwrap_or(raw);
        if mcp_reads_only(tool, name) {
            return None;
        }
        let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        for (n, path) in mcp_paths(input, cwd, home.as_deref(), sources).enumerate() {
            if sources.touches(&path) {
                return Some(format!(
                    "`{raw}` names {}, a rule source or a file that wires one",
                    path.display()
                ));
            }
            if n >= MAX_FOLLOWED + MAX_SCREENED {
                return Some(format!(
                    "`{raw}` names more paths near rule sources than the gate follows"
                ));
            }
        }
        return None;
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

/// The words that say an MCP tool only reads, first or last in its own
/// name: `read_file`, `list_directory`, `directory_tree`, `condition_show`.
const READING_VERBS: &[&str] = &[
    "read", "get", "list", "search", "find", "view", "show", "describe", "tree",
];

/// Whether the MCP tool `tool` (normalized; `raw` as the harness named it,
/// for a name that carries no tool, such as Cursor's `MCP`, whose tool is
/// in its input) only reads by its name: the first or last word of its own
/// name (split at `_`, `-`, `.`) is one of `READING_VERBS`. Any other
/// name may write.
pub fn mcp_reads_only(tool: &hookdex_model::ToolName, raw: &str) -> bool {
    let own = match tool.as_str().rsplit_once("__") {
        Some((_, own)) if tool.server().is_some_and(|s| s != own) => own,
        _ => raw,
    };
    let own = own.to_ascii_lowercase();
    let words: Vec<&str> = own
        .split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let verb = |word: Option<&&str>| word.is_some_and(|w| READING_VERBS.contains(w));
    verb(words.first()) || verb(words.last())
}

/// The longest path the kernel takes in one call (Linux's `PATH_MAX`).
const PATH_MAX: usize = 4096;

/// Whether `word` can name no path: longer than the kernel takes for one
/// ([`PATH_MAX`]), with no `/` that a program normalizing it (`//`, `/./`,
/// `..`) could collapse into one that fits. Told without copying the word,
/// which may be a megabyte.
pub(crate) fn names_no_path(word: &str) -> bool {
    word.len() > PATH_MAX && !word.contains('/')
}

/// Most strings of one call resolved as the file tools' paths are, links
/// followed; the rest are resolved only when their text could name a rule
/// source as written ([`sources::Screen`]): a link into a rule source is
/// made only through a gated tool, and the hook's time stays bounded.
const MAX_FOLLOWED: usize = 1024;
/// Most strings past [`MAX_FOLLOWED`] that pass the screen and are then
/// resolved; a call with more is denied while the gate is closed (a call
/// of thousands of paths with `.` or `..` parts, or built to look like
/// rule paths).
const MAX_SCREENED: usize = 4096;

/// The paths among an MCP call's arguments that may touch `sources`:
/// every string of `input`, at any depth, that can be a path (one line,
/// not `names_no_path`), as `cwd` names it: absolute, `~/…` under
/// `home`, relative to `cwd`, or a `file://` URI. The first
/// `MAX_FOLLOWED` are resolved as the file tools' paths are
/// ([`resolve_in`]); the others, when their text passes the
/// [`sources::Screen`], as written.
pub fn mcp_paths<'a>(
    input: &'a Value,
    cwd: &'a Path,
    home: Option<&'a Path>,
    sources: &'a RuleSources,
) -> impl Iterator<Item = sources::Named> + 'a {
    let screen = std::sync::OnceLock::new();
    let mut all = Vec::new();
    strings(input, &mut all);
    all.into_iter()
        .filter(|s| !s.is_empty() && !names_no_path(s) && !s.contains(['\n', '\0']))
        .enumerate()
        .filter_map(move |(n, s)| {
            let path = as_path(s, home)?;
            if n < MAX_FOLLOWED {
                return Some(resolve_in(cwd, &path));
            }
            let screen = screen.get_or_init(|| sources.screen(cwd));
            screen
                .may_touch(&path)
                .then(|| sources::lexically_in(cwd, &path))
        })
}

/// The path an argument names: `file://` URIs decoded, `~` and `~/…`
/// under `home`; `None` for a URI that is not UTF-8 once decoded.
fn as_path<'s>(text: &'s str, home: Option<&Path>) -> Option<Cow<'s, str>> {
    let path = match text.strip_prefix("file://") {
        Some(uri) => Cow::Owned(percent_decoded(
            uri.strip_prefix("localhost").unwrap_or(uri),
        )?),
        None => Cow::Borrowed(text),
    };
    Some(match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            Cow::Owned(format!("{}{rest}", home.display()))
        }
        _ => path,
    })
}

/// Every string value of `value` into `out`, depth first.
fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `text` with its `%XX` escapes decoded; `None` when that is not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
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

/// The rule sources of `view` with what wires them
/// ([`RuleSources::with_wiring`]), the harnesses' own settings files
/// among it: each harness's settings file that `hookdex init` writes
/// (where hooks are wired and MCP servers registered), at its default
/// places.
pub fn rule_sources(view: &hookdex_compiler::View) -> RuleSources {
    let mut harness_files = Vec::new();
    for target in hookdex_model::Target::ALL {
        let wiring = hookdex_harness::harness(target).settings();
        if let Some(repo) = &view.repo_root {
            harness_files.push(repo.join(wiring.project));
            if let Some(project) = wiring.mcp.project {
                harness_files.push(repo.join(project));
            }
        }
        if let Some(home) = &view.git_user.home {
            harness_files.push(home.join(wiring.user_dir).join(wiring.user_file));
            harness_files.push(home.join(wiring.mcp.user));
        }
    }
    RuleSources::with_wiring(view, &harness_files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookdex_model::ToolName;
    use serde_json::json;

    #[test]
    fn mcp_tools_read_by_their_name() {
        let cases = [
            ("mcp__filesystem__read_file", "x", true),
            ("mcp__filesystem__read_multiple_files", "x", true),
            ("mcp__filesystem__list_directory", "x", true),
            ("mcp__filesystem__directory_tree", "x", true),
            ("mcp__hookdex__condition_show", "x", true),
            ("mcp__filesystem__write_file", "x", false),
            ("mcp__filesystem__move_file", "x", false),
            ("mcp__filesystem__edit_file", "x", false),
            ("mcp__filesystem__create_directory", "x", false),
            ("mcp__store__listen", "x", false),
            ("mcp__store__put", "x", false),
            // No tool in the name: the harness's own name says.
            ("mcp", "read_file", true),
            ("mcp", "write_file", false),
            ("mcp__fs", "fs-write_file", false),
        ];
        for (tool, raw, reads) in cases {
            assert_eq!(
                mcp_reads_only(&ToolName::new(tool), raw),
                reads,
                "{tool} {raw}"
            );
        }
    }

    #[test]
    fn every_string_that_can_be_a_path_is_one() {
        let cwd = Path::new("/repo");
        let home = Path::new("/home/u");
        let input = json!({
            "a": "/abs/x",
            "b": [{"c": "~/y", "d": "rel/../z"}, 3, null],
            "e": "file:///u%20ri/w",
            "f": "two\nlines",
            "g": "x".repeat(PATH_MAX + 1),
            "k": format!("{}abs/k", "/".repeat(PATH_MAX)),
            "h": "",
            "i": "/abs/x",
            "j": "~user/q",
        });
        let view = hookdex_compiler::View::from_vars(hookdex_model::Target::Claude, cwd, |_| None);
        let sources = rule_sources(&view);
        let found: Vec<String> = mcp_paths(&input, cwd, Some(home), &sources)
            .map(|p| p.lexical.display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "/abs/x",
                "/home/u/y",
                "/repo/z",
                "/u ri/w",
                "/abs/k",
                "/abs/x",
                "/repo/~user/q"
            ]
        );
    }
}
