//! The hook settings `hookdex init` writes for a harness: where the file
//! is, how the harness lists the handlers of an event, and merging hookdex's
//! handler into a settings object that may already hold others.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use hookdex_model::{Event, Target};
use serde_json::{json, Map, Value};

/// Where one harness keeps its hook settings and how it spells them.
#[derive(Debug)]
pub struct HookSettings {
    /// The settings file under the repository root (project scope).
    pub project: &'static str,
    /// The harness's own directory under `$HOME` (user scope).
    pub user_dir: &'static str,
    /// The variable that moves that directory, when the harness has one.
    pub user_dir_var: Option<&'static str>,
    /// The settings file under that directory.
    pub user_file: &'static str,
    /// How the handlers of one event are listed.
    pub(crate) layout: Layout,
    /// The events hookdex's handler is always installed on (its tool
    /// events); `init` adds the others the view has rules for.
    pub events: &'static [Event],
    /// Whether the handler carries hookdex's variables in its own `env`
    /// (for a harness that strips them from a hook's environment).
    pub(crate) handler_env: bool,
    /// Where the harness takes its MCP servers, for `hookdex mcp`.
    pub mcp: McpRegistration,
    /// The variable of the settings' `env` through which the harness runs
    /// every shell command behind a prefix (Claude Code's
    /// `CLAUDE_CODE_SHELL_PREFIX`, which gets the whole command string as
    /// its last argument, and applies to string-form hook commands too):
    /// `init` sets it to run shell commands under hookdex's guard, and
    /// writes hookdex's own handler in the exec form, which the prefix
    /// leaves alone.
    pub shell_prefix: Option<&'static str>,
}

/// Where a harness lists its MCP servers, and how.
#[derive(Debug)]
pub struct McpRegistration {
    /// The file under `$HOME` (user scope).
    pub user: &'static str,
    /// The variable that moves the harness's directory, and the file
    /// under it (Copilot's `COPILOT_HOME`).
    pub user_dir_var: Option<(&'static str, &'static str)>,
    /// The file under the repository root (project scope), if the harness
    /// reads one; without, the user file serves both.
    pub project: Option<&'static str>,
    /// How a server is written there.
    pub format: McpFormat,
}

/// How a harness spells one MCP server.
#[derive(Debug, PartialEq, Eq)]
pub enum McpFormat {
    /// `mcpServers.<name> = {"command", "args", "env"}`, with `"type"` when
    /// the harness wants one (`stdio` for Claude Code, `local` for Copilot
    /// CLI, which also takes the tools to allow).
    Json {
        /// The `type` the entry carries, if any.
        kind: Option<&'static str>,
    },
    /// Codex's `config.toml`: `[mcp_servers.<name>]` with `command`,
    /// `args` and `env`.
    CodexToml,
}

impl McpRegistration {
    /// Puts hookdex's server, run as `exe mcp --target <target>` with `env`,
    /// into a JSON settings `root`, keeping every other server and key.
    ///
    /// # Errors
    ///
    /// When `mcpServers` is there and is not an object.
    pub fn install_json(
        &self,
        root: &mut Map<String, Value>,
        exe: &str,
        target: Target,
        env: &[(String, String)],
    ) -> Result<(), SettingsError> {
        let McpFormat::Json { kind } = self.format else {
            return Ok(());
        };
        let wrong = |key: &str| SettingsError {
            key: key.into(),
            expected: "an object",
        };
        let servers = root
            .entry("mcpServers")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or_else(|| wrong("mcpServers"))?;
        let env: Map<String, Value> = env
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let mut entry = json!({
            "command": exe,
            "args": ["mcp", "--target", target.as_str()],
            "env": env,
        });
        if let Some(kind) = kind {
            entry["type"] = json!(kind);
            if kind == "local" {
                entry["tools"] = json!(["*"]);
            }
        }
        servers.insert("hookdex".into(), entry);
        Ok(())
    }
}

/// One handler of a settings file that runs `hookdex hook` ([`HookSettings::wired`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wired {
    /// The event key it is listed under, as the harness spells it.
    pub event: String,
    /// The program it runs.
    pub program: String,
    /// Its command line as written.
    pub command: String,
    /// The variables it carries in its own `env`.
    pub env: Vec<(String, String)>,
}

/// How a harness lists the handlers of one event.
#[derive(Debug)]
pub(crate) enum Layout {
    /// Claude-compatible matcher groups:
    /// `{"matcher": "*", "hooks": [{"type": "command", "command", "timeout"}]}`,
    /// with the timeout in the harness's own unit.
    Grouped {
        /// [`HookSettings::TIMEOUT_SEC`] in the harness's unit.
        timeout: u64,
    },
    /// Copilot's flat handlers `{"type": "command", "bash", "timeoutSec"}` in a
    /// versioned file; its camelCase payload does not name the event, so the
    /// command does (`--event`).
    Copilot,
    /// Cursor's flat handlers `{"command"}` in a versioned file.
    Cursor,
}

/// A settings object that cannot take hookdex's handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    /// The JSON key that is in the way (`hooks`, `hooks.PreToolUse`).
    pub key: String,
    /// What it should be.
    pub expected: &'static str,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" is not {}", self.key, self.expected)
    }
}

impl std::error::Error for SettingsError {}

impl HookSettings {
    /// Seconds a harness waits for the hook before giving up on it.
    pub const TIMEOUT_SEC: u64 = 60;

    /// The project-scope settings file of the repository (or directory) `root`.
    pub fn project_path(&self, root: &Path) -> PathBuf {
        root.join(self.project)
    }

    /// The user-scope settings file, with variables read through `var`;
    /// `None` when neither the harness's variable nor `HOME` is set.
    pub fn user_path(&self, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        Some(self.user_home(var)?.join(self.user_file))
    }

    /// The harness's own directory (`~/.claude`, `$COPILOT_HOME`, …):
    /// where it is found on a machine. `None` without `HOME`.
    pub fn user_home(&self, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        Some(match self.user_dir_var.and_then(var) {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(var("HOME")?).join(self.user_dir),
        })
    }

    /// Whether the handler carries hookdex's variables in its own `env`
    /// (the harness may strip them from a hook's environment); otherwise
    /// the hook inherits the harness's environment.
    pub fn carries_env(&self) -> bool {
        self.handler_env
    }

    /// Every handler of the settings object `root` that runs `hookdex hook
    /// --target <target>` (its program is `exe` or any file named
    /// `hookdex`), in document order, with its event, program and `env`.
    pub fn wired(&self, root: &Map<String, Value>, target: Target, exe: &str) -> Vec<Wired> {
        let grouped = matches!(self.layout, Layout::Grouped { .. });
        let mut found = Vec::new();
        let Some(hooks) = root.get("hooks").and_then(Value::as_object) else {
            return found;
        };
        for (event, list) in hooks {
            for entry in list.as_array().into_iter().flatten() {
                let handlers: Vec<&Value> = match grouped {
                    true => entry
                        .get("hooks")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .collect(),
                    false => vec![entry],
                };
                for handler in handlers.into_iter().filter(|h| runs_hook(h, target, exe)) {
                    let command = ["command", "bash"]
                        .iter()
                        .find_map(|key| handler.get(key)?.as_str())
                        .unwrap_or_default();
                    let program = match handler.get("args") {
                        Some(_) => command.to_string(),
                        None => words(command).into_iter().next().unwrap_or_default(),
                    };
                    let env = handler
                        .get("env")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect();
                    found.push(Wired {
                        event: event.clone(),
                        program,
                        command: command.to_string(),
                        env,
                    });
                }
            }
        }
        found
    }

    /// Installs `command` (which runs the binary `exe`) on each of `events`
    /// in the settings object `root`. An earlier
    /// install, under any path, is updated where it stands; every other
    /// handler is kept. `env` is the hookdex configuration in force
    /// (`HOOKDEX_*`, `CONDITIONS_*`), written into the handler where the
    /// harness would otherwise strip it.
    ///
    /// # Errors
    ///
    /// When `hooks` or an event's list has another type.
    pub fn install(
        &self,
        root: &mut Map<String, Value>,
        target: Target,
        exe: &str,
        command: &str,
        env: &[(String, String)],
        events: &[Event],
    ) -> Result<(), SettingsError> {
        let grouped = matches!(self.layout, Layout::Grouped { .. });
        // The flat formats are versioned; a missing version goes first.
        if !grouped && !root.contains_key("version") {
            root.shift_insert(0, "version".into(), 1.into());
        }
        let hooks = root
            .entry("hooks")
            .or_insert(json!({}))
            .as_object_mut()
            .ok_or(SettingsError {
                key: "hooks".into(),
                expected: "an object",
            })?;
        let harness = crate::harness(target);
        for event in events.iter().map(|e| harness.event_name(*e)) {
            let list = hooks
                .entry(event)
                .or_insert(json!([]))
                .as_array_mut()
                .ok_or_else(|| SettingsError {
                    key: format!("hooks.{event}"),
                    expected: "an array",
                })?;
            let mut handler = self.handler(command, event, env);
            if self.shell_prefix.is_some() {
                handler["command"] = json!(exe);
                handler["args"] = json!(["hook", "--target", target.as_str()]);
            }
            let ours = |h: &Value| runs_hook(h, target, exe);
            let slot = list.iter_mut().find_map(|entry| {
                if grouped {
                    entry
                        .get_mut("hooks")?
                        .as_array_mut()?
                        .iter_mut()
                        .find(|h| ours(h))
                } else {
                    Some(entry).filter(|h| ours(h))
                }
            });
            match slot {
                Some(slot) => *slot = handler,
                None if grouped => list.push(json!({"matcher": "*", "hooks": [handler]})),
                None => list.push(handler),
            }
        }
        if let Some(var) = self.shell_prefix {
            let env = root
                .entry("env")
                .or_insert(json!({}))
                .as_object_mut()
                .ok_or(SettingsError {
                    key: "env".into(),
                    expected: "an object",
                })?;
            // Another prefix is the person's own: kept (the hook then
            // rewrites shell calls instead).
            let theirs = env
                .get(var)
                .and_then(Value::as_str)
                .is_some_and(|v| !is_guard_prefix(v));
            match (theirs, guard_prefix(exe, target)) {
                (false, Some(prefix)) => {
                    env.insert(var.into(), json!(prefix));
                }
                // A path that needs quoting cannot be a prefix: the hook
                // rewrites shell calls instead.
                (false, None) => {
                    env.remove(var);
                }
                (true, _) => {}
            }
        }
        Ok(())
    }

    /// The handler that runs `command` on `event`.
    fn handler(&self, command: &str, event: &str, env: &[(String, String)]) -> Value {
        match self.layout {
            Layout::Grouped { timeout } => {
                let mut handler =
                    json!({"type": "command", "command": command, "timeout": timeout});
                if self.handler_env && !env.is_empty() {
                    let vars: Map<String, Value> =
                        env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                    handler["env"] = Value::Object(vars);
                }
                handler
            }
            Layout::Copilot => json!({
                "type": "command",
                "bash": format!("{command} --event {event}"),
                "timeoutSec": HookSettings::TIMEOUT_SEC,
            }),
            Layout::Cursor => json!({"command": command}),
        }
    }
}

/// The shell prefix that runs every shell command of `target` under
/// hookdex's guard: the harness appends the command string as one last
/// argument. Claude Code 2.1.332 takes a prefix whose words are plain (no
/// quotes, no `--`, the last not starting with `-`) as a program and its
/// arguments, and any other as one program name; the words before its
/// first option are taken as one program name, so the prefix is
/// `hookdex --guard-shell=T` (`None` when `exe` needs quoting).
pub fn guard_prefix(exe: &str, target: Target) -> Option<String> {
    let plain = hookdex_shell::quote(exe) == exe;
    plain.then(|| format!("{exe} --guard-shell={target}"))
}

/// Whether a shell prefix is hookdex's guard ([`guard_prefix`]).
pub fn is_guard_prefix(prefix: &str) -> bool {
    let words = words(prefix);
    let guard = words
        .windows(2)
        .any(|w| w[0] == "exec" && w[1] == "--guard")
        || words.iter().any(|w| w.starts_with("--guard-shell="));
    guard
        && words
            .first()
            .is_some_and(|p| p.rsplit('/').next() == Some("hookdex"))
}

/// Whether `handler` runs `hookdex hook --target <target>`: its program is
/// this binary or any file named `hookdex`.
fn runs_hook(handler: &Value, target: Target, exe: &str) -> bool {
    if let (Some(program), Some(args)) = (
        handler.get("command").and_then(Value::as_str),
        handler.get("args").and_then(Value::as_array),
    ) {
        let args: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
        let hookdex = program == exe || program.rsplit('/').next() == Some("hookdex");
        return hookdex
            && args.first() == Some(&"hook")
            && args
                .windows(2)
                .any(|w| w[0] == "--target" && w[1] == target.as_str());
    }
    ["command", "bash"]
        .iter()
        .filter_map(|key| handler.get(key)?.as_str())
        .any(|command| {
            // Only a handler that runs hookdex itself: one that wraps it
            // (`notify.sh … hookdex hook …`, `logger …; hookdex …`, a
            // variable set first) is the user's, and kept as written.
            let words = words(command);
            let Some((program, args)) = words.split_first() else {
                return false;
            };
            let hookdex = program == exe || program.rsplit('/').next() == Some("hookdex");
            hookdex
                && args.first().is_some_and(|a| a == "hook")
                && (args
                    .windows(2)
                    .any(|w| w[0] == "--target" && w[1] == target.as_str())
                    || args.iter().any(|a| *a == format!("--target={target}")))
        })
}

/// The words of a shell command line, quotes and backslashes removed; enough
/// to recognise a hook command, not a shell parser.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                word.get_or_insert_with(String::new).extend(chars.next());
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            _ => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wired_finds_hookdex_handlers_and_nothing_else() {
        let settings = crate::harness(Target::Gemini).settings();
        let root = json!({"hooks": {
            "BeforeTool": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "notify.sh"},
                {"type": "command", "command": "/opt/hookdex hook --target gemini",
                 "env": {"HOOKDEX_HOME": "/hh"}}
            ]}],
            "AfterTool": [{"hooks": [{"type": "command", "command": "/x/hookdex hook --target claude"}]}]
        }});
        let wired = settings.wired(root.as_object().unwrap(), Target::Gemini, "/bin/hookdex");
        assert_eq!(
            wired,
            vec![Wired {
                event: "BeforeTool".into(),
                program: "/opt/hookdex".into(),
                command: "/opt/hookdex hook --target gemini".into(),
                env: vec![("HOOKDEX_HOME".into(), "/hh".into())],
            }]
        );
    }
}
