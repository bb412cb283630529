//! The hook settings `hookdex init` writes for a harness: where the file
//! is, how the harness lists the handlers of an event, and merging hookdex's
//! handler into a settings object that may already hold others — and
//! knowing hookdex's own handler, guard prefix and MCP server from the
//! person's, which merely run hookdex among other things.

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
    /// Where the handler takes hookdex's variables in force, so the hook
    /// reads the same `$HOOKDEX_HOME` whatever environment the harness
    /// was started from.
    pub(crate) env: EnvPlace,
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

/// Where a harness's hook handler takes hookdex's variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvPlace {
    /// The handler's own `env` object (Gemini CLI, which strips unknown
    /// variables from a hook's environment and applies `env` after that).
    Handler,
    /// The settings' top-level `env` object, which the harness applies to
    /// every hook and shell command it runs (Claude Code: its handlers have
    /// no `env`, and hookdex's is in the exec form, which takes no prefix).
    Settings,
    /// `NAME=value` words before the command, which the harness runs
    /// through a shell (Codex, Copilot, Cursor).
    Prefix,
}

/// What [`McpRegistration::uninstall_json`] found under the name `hookdex`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpRemoval {
    /// hookdex's server, removed.
    Removed,
    /// No server of that name.
    Absent,
    /// A server of that name that does not run `hookdex mcp`: the
    /// person's, left where it is.
    Foreign,
}

impl McpRegistration {
    /// Removes hookdex's server from a JSON settings `root`, and
    /// `mcpServers` when it held nothing else: only a server that runs
    /// `runs_mcp` (`exe` being this binary).
    pub fn uninstall_json(&self, root: &mut Map<String, Value>, exe: &str) -> McpRemoval {
        let Some(servers) = root.get_mut("mcpServers").and_then(Value::as_object_mut) else {
            return McpRemoval::Absent;
        };
        let Some(server) = servers.get("hookdex") else {
            return McpRemoval::Absent;
        };
        let command = server.get("command").and_then(Value::as_str);
        let args: Option<Vec<&str>> = server
            .get("args")
            .and_then(Value::as_array)
            .and_then(|args| args.iter().map(Value::as_str).collect());
        if !command.is_some_and(|c| runs_mcp(c, args.as_deref().unwrap_or_default(), exe)) {
            return McpRemoval::Foreign;
        }
        servers.shift_remove("hookdex");
        if servers.is_empty() {
            root.shift_remove("mcpServers");
        }
        McpRemoval::Removed
    }
}

/// Whether an MCP server running `command` with `args` is hookdex's:
/// `command` is a file named `hookdex` or the binary `exe`, and its first
/// argument `mcp`.
pub(crate) fn runs_mcp(command: &str, args: &[&str], exe: &str) -> bool {
    is_hookdex(command, Some(exe)) && args.first() == Some(&"mcp")
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
                        // Past the `NAME=value` words init may put first.
                        None => plain_words(command)
                            .unwrap_or_default()
                            .into_iter()
                            .find(|w| !w.contains('='))
                            .unwrap_or_default(),
                    };
                    // Where init puts the variables: the handler's `env`, the
                    // settings' `env` (Claude Code), `NAME=value` words first.
                    let object = |v: Option<&Value>| {
                        v.and_then(Value::as_object)
                            .into_iter()
                            .flatten()
                            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                            .collect::<Vec<_>>()
                    };
                    let mut env = object(handler.get("env"));
                    if self.env == EnvPlace::Settings {
                        env.extend(object(root.get("env")));
                    }
                    let prefix = plain_words(command).unwrap_or_default();
                    env.extend(prefix.iter().map_while(|w| {
                        let (k, v) = w.split_once('=')?;
                        Some((k.to_string(), v.to_string()))
                    }));
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

    /// The hook command line that runs `exe` for `target` with `env` (the
    /// hookdex variables in force) where the harness takes them on the
    /// command line; the others carry `env` in the settings ([`HookSettings::install`]).
    pub fn command(&self, exe: &str, target: Target, env: &[(String, String)]) -> String {
        let mut words: Vec<String> = match self.env {
            EnvPlace::Prefix => env
                .iter()
                .map(|(k, v)| format!("{k}={}", hookdex_shell::quote(v)))
                .collect(),
            EnvPlace::Handler | EnvPlace::Settings => Vec::new(),
        };
        words.push(format!(
            "{} hook --target {target}",
            hookdex_shell::quote(exe)
        ));
        words.join(" ")
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
            if grouped {
                // hookdex's handler in a group of the person's that matches
                // fewer tools (`"matcher": "Bash"`) is taken out of it:
                // hookdex's own group matches every tool.
                list.retain_mut(|group| {
                    if matches_all(group) {
                        return true;
                    }
                    let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut)
                    else {
                        return true;
                    };
                    let had = handlers.len();
                    handlers.retain(|h| !ours(h));
                    handlers.len() == had || !handlers.is_empty()
                });
            }
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
        let settings_env = match self.env {
            EnvPlace::Settings => env,
            EnvPlace::Handler | EnvPlace::Prefix => &[],
        };
        if self.shell_prefix.is_none() && settings_env.is_empty() {
            return Ok(());
        }
        let vars = root
            .entry("env")
            .or_insert(json!({}))
            .as_object_mut()
            .ok_or(SettingsError {
                key: "env".into(),
                expected: "an object",
            })?;
        for (name, value) in settings_env {
            vars.insert(name.clone(), json!(value));
        }
        if let Some(var) = self.shell_prefix {
            // Another prefix is the person's own: kept (the hook then
            // rewrites shell calls instead).
            let theirs = vars
                .get(var)
                .and_then(Value::as_str)
                .is_some_and(|v| !is_guard_prefix(v));
            match (theirs, guard_prefix(exe, target)) {
                (false, Some(prefix)) => {
                    vars.insert(var.into(), json!(prefix));
                }
                // A path that needs quoting cannot be a prefix: the hook
                // rewrites shell calls instead.
                (false, None) => {
                    vars.shift_remove(var);
                }
                (true, _) => {}
            }
        }
        Ok(())
    }

    /// Removes from the settings object `root` what [`HookSettings::install`]
    /// wrote there: every handler that runs `hookdex hook --target <target>`
    /// (this binary `exe` or any file named `hookdex`), the groups and event
    /// lists that held only those, `hooks` when nothing is left in it, the
    /// guard's shell prefix, and the variables of `env` that still hold the
    /// values given. Everything else is kept where it stands; a flat file
    /// left with its `version` alone is left empty. Returns whether anything
    /// was removed.
    pub fn uninstall(
        &self,
        root: &mut Map<String, Value>,
        target: Target,
        exe: &str,
        env: &[(String, String)],
    ) -> bool {
        let grouped = matches!(self.layout, Layout::Grouped { .. });
        let ours = |h: &Value| runs_hook(h, target, exe);
        let mut removed = false;
        if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
            for list in hooks.values_mut().filter_map(Value::as_array_mut) {
                let before = list.len();
                if grouped {
                    list.retain_mut(|group| {
                        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut)
                        else {
                            return true;
                        };
                        let had = handlers.len();
                        handlers.retain(|h| !ours(h));
                        removed |= handlers.len() < had;
                        // A group emptied here was hookdex's; one found empty is kept.
                        handlers.len() == had || !handlers.is_empty()
                    });
                } else {
                    list.retain(|h| !ours(h));
                }
                removed |= list.len() < before;
            }
            if removed {
                hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
            }
        }
        if removed
            && root
                .get("hooks")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            root.shift_remove("hooks");
        }
        if let Some(vars) = root.get_mut("env").and_then(Value::as_object_mut) {
            let before = vars.len();
            if let Some(var) = self.shell_prefix {
                if vars
                    .get(var)
                    .and_then(Value::as_str)
                    .is_some_and(is_guard_prefix)
                {
                    vars.shift_remove(var);
                }
            }
            if self.env == EnvPlace::Settings {
                for (name, value) in env {
                    if vars.get(name).and_then(Value::as_str) == Some(value) {
                        vars.shift_remove(name);
                    }
                }
            }
            if vars.len() < before {
                removed = true;
                if vars.is_empty() {
                    root.shift_remove("env");
                }
            }
        }
        if removed && !grouped && root.len() == 1 && root.contains_key("version") {
            root.shift_remove("version");
        }
        removed
    }

    /// The handler that runs `command` on `event`.
    fn handler(&self, command: &str, event: &str, env: &[(String, String)]) -> Value {
        match self.layout {
            Layout::Grouped { timeout } => {
                let mut handler =
                    json!({"type": "command", "command": command, "timeout": timeout});
                if self.env == EnvPlace::Handler && !env.is_empty() {
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

/// Whether a shell prefix is hookdex's guard ([`guard_prefix`]): plain
/// words (as [`hookdex_shell::quote`] writes them) whose program is a file
/// named `hookdex` or this very binary.
pub fn is_guard_prefix(prefix: &str) -> bool {
    let Some(words) = plain_words(prefix) else {
        return false;
    };
    let guard = words
        .windows(2)
        .any(|w| w[0] == "exec" && w[1] == "--guard")
        || words.iter().any(|w| w.starts_with("--guard-shell="));
    // The running binary's path is read only for a program not named
    // `hookdex`: the hook checks this prefix on every call.
    guard
        && words.first().is_some_and(|p| {
            is_hookdex(p, None) || {
                let this = std::env::current_exe().ok();
                is_hookdex(p, this.as_deref().and_then(std::path::Path::to_str))
            }
        })
}

/// Whether `program` is a file named `hookdex` or the binary `exe`.
fn is_hookdex(program: &str, exe: Option<&str>) -> bool {
    Some(program) == exe || program.rsplit('/').next() == Some("hookdex")
}

/// Whether the matcher group `group` runs its handlers on every tool
/// (`"*"`, an empty matcher or none), as hookdex's own group does.
fn matches_all(group: &Value) -> bool {
    group
        .get("matcher")
        .is_none_or(|m| m.as_str().is_some_and(|m| m.is_empty() || m == "*"))
}

/// Whether `handler` runs exactly `[VAR=value …] <hookdex> hook --target
/// <target> [--event E]`: its program is this binary or any file named
/// `hookdex`, the variables set first are hookdex's own, and the command
/// has nothing else — no other word, shell operator, redirection or
/// substitution. One that wraps hookdex (`notify.sh … hookdex hook …`,
/// `hookdex hook … && after.sh`, `… | tee log`, another variable set
/// first) is the user's, and kept as written.
pub(crate) fn runs_hook(handler: &Value, target: Target, exe: &str) -> bool {
    let hook_args = |args: &[&str]| match args {
        ["hook", "--target", t] => *t == target.as_str(),
        ["hook", "--target", t, "--event", e] => *t == target.as_str() && !e.starts_with('-'),
        _ => false,
    };
    if let (Some(program), Some(args)) = (
        handler.get("command").and_then(Value::as_str),
        handler.get("args").and_then(Value::as_array),
    ) {
        let args: Option<Vec<&str>> = args.iter().map(Value::as_str).collect();
        return is_hookdex(program, Some(exe)) && args.is_some_and(|a| hook_args(&a));
    }
    ["command", "bash"]
        .iter()
        .filter_map(|key| handler.get(key)?.as_str())
        .any(|command| {
            let Some(words) = plain_words(command) else {
                return false;
            };
            let set_first = words
                .iter()
                .take_while(|w| sets_hookdex_variable(w))
                .count();
            let Some((program, args)) = words[set_first..].split_first() else {
                return false;
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            is_hookdex(program, Some(exe)) && hook_args(&args)
        })
}

/// Whether `word` sets one of hookdex's own variables (`HOOKDEX_*`,
/// `CONDITIONS_*`, `AGENTIHOOKS_*`), as `init` does before the hook command.
fn sets_hookdex_variable(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        ["HOOKDEX_", "CONDITIONS_", "AGENTIHOOKS_"]
            .iter()
            .any(|p| name.starts_with(p))
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The words of `command` when it is nothing but words as
/// [`hookdex_shell::quote`] writes them, separated by spaces: plain
/// characters, `'…'` runs and `\'`. Anything else a shell gives a meaning
/// to (`&&`, `|`, `;`, `>`, `$(…)`, `` ` ``, `"`, `~`, globs, newlines) is
/// `None`: such a command is not one `init` wrote.
fn plain_words(command: &str) -> Option<Vec<String>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => words.extend(word.take()),
            '\\' => match chars.next() {
                Some('\'') => word.get_or_insert_with(String::new).push('\''),
                _ => return None,
            },
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            c if plain(c) => word.get_or_insert_with(String::new).push(c),
            _ => return None,
        }
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXE: &str = "/opt/bin/hookdex";

    fn env() -> Vec<(String, String)> {
        vec![("HOOKDEX_HOME".into(), "/h/my hookdex".into())]
    }

    #[test]
    fn the_command_carries_the_variables_where_the_harness_takes_them() {
        let codex = crate::harness(Target::Codex).settings();
        assert_eq!(
            codex.command(EXE, Target::Codex, &env()),
            "HOOKDEX_HOME='/h/my hookdex' /opt/bin/hookdex hook --target codex"
        );
        let gemini = crate::harness(Target::Gemini).settings();
        assert_eq!(
            gemini.command(EXE, Target::Gemini, &env()),
            "/opt/bin/hookdex hook --target gemini"
        );
        let handler = json!({"command": codex.command(EXE, Target::Codex, &env())});
        assert!(runs_hook(&handler, Target::Codex, EXE));
        let theirs = json!({"command": "MINE=1 /opt/bin/hookdex hook --target codex"});
        assert!(!runs_hook(&theirs, Target::Codex, EXE));
    }

    #[test]
    fn a_command_that_does_more_than_run_the_hook_is_not_hookdexs() {
        let theirs = [
            "/usr/bin/hookdex hook --target claude && rm -rf x",
            "hookdex hook --target claude | tee -a audit.log",
            "HOOKDEX_HOME=$(backup) hookdex hook --target claude",
            "hookdex hook --target claude > /dev/null || notify-send failed",
            "hookdex hook --target claude && ~/bin/after.sh",
            "hookdex hook --target claude; after.sh",
            "hookdex hook --target claude extra",
            "HOOKDEX_HOME=\"/h\" hookdex hook --target claude",
            "`which hookdex` hook --target claude",
        ];
        for command in theirs {
            let handler = json!({"command": command});
            assert!(!runs_hook(&handler, Target::Claude, EXE), "{command}");
        }
        let ours = [
            "hookdex hook --target claude",
            "HOOKDEX_HOME='/h/my hookdex' '/opt/my bin/hookdex' hook --target claude",
            "HOOKDEX_HOME='/h/it'\\''s' /opt/bin/hookdex hook --target claude --event Stop",
        ];
        for command in ours {
            let handler = json!({"command": command});
            assert!(runs_hook(&handler, Target::Claude, EXE), "{command}");
        }
        assert!(!is_guard_prefix("hookdex --guard-shell=claude && x"));
        assert!(is_guard_prefix("/opt/bin/hookdex --guard-shell=claude"));
    }

    #[test]
    fn hookdex_leaves_a_narrower_group_for_its_own() {
        let settings = crate::harness(Target::Claude).settings();
        let mine = json!({"type": "command", "command": "mine.sh"});
        let mut root = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            mine, {"type": "command", "command": "hookdex hook --target claude"}]}]}})
        .as_object()
        .unwrap()
        .clone();
        let command = settings.command(EXE, Target::Claude, &[]);
        settings
            .install(
                &mut root,
                Target::Claude,
                EXE,
                &command,
                &[],
                &[Event::PreToolUse],
            )
            .unwrap();
        let groups = root["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 2, "{groups:?}");
        assert_eq!(groups[0], json!({"matcher": "Bash", "hooks": [mine]}));
        assert_eq!(groups[1]["matcher"], "*");
        assert_eq!(groups[1]["hooks"][0]["command"], EXE);
    }

    #[test]
    fn uninstall_takes_out_what_install_put_in_and_nothing_else() {
        for target in Target::ALL {
            let settings = crate::harness(target).settings();
            let mut root = json!({"model": "x", "hooks": {"Stop": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "mine.sh"}]},
                {"command": "mine.sh", "bash": "mine.sh"}
            ]}, "env": {"MINE": "1"}})
            .as_object()
            .unwrap()
            .clone();
            if !matches!(settings.layout, Layout::Grouped { .. }) {
                root.shift_insert(0, "version".into(), json!(1));
            }
            let mine = root.clone();
            let command = settings.command(EXE, target, &env());
            let events = [Event::PreToolUse, Event::Stop];
            settings
                .install(&mut root, target, EXE, &command, &env(), &events)
                .unwrap();
            assert_ne!(root, mine, "{target}");
            assert!(
                settings.uninstall(&mut root, target, EXE, &env()),
                "{target}"
            );
            assert_eq!(
                serde_json::to_string(&root).unwrap(),
                serde_json::to_string(&mine).unwrap(),
                "{target}"
            );
            assert!(
                !settings.uninstall(&mut root, target, EXE, &env()),
                "{target}"
            );
        }
    }

    #[test]
    fn the_mcp_server_goes_and_an_emptied_list_with_it() {
        let mcp = &crate::harness(Target::Claude).settings().mcp;
        let mut root = Map::new();
        mcp.install_json(&mut root, EXE, Target::Claude, &env())
            .unwrap();
        assert_eq!(mcp.uninstall_json(&mut root, EXE), McpRemoval::Removed);
        assert!(root.is_empty());
        assert_eq!(mcp.uninstall_json(&mut root, EXE), McpRemoval::Absent);
        let theirs = json!({"mcpServers": {"hookdex": {"command": "npx", "args": ["hookdex"]}}});
        let mut root = theirs.as_object().unwrap().clone();
        assert_eq!(mcp.uninstall_json(&mut root, EXE), McpRemoval::Foreign);
        assert_eq!(Value::Object(root), theirs);
    }

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
