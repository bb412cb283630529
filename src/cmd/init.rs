//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b]`:
//! wires a harness to run `hookdex hook` on its pre- and post-tool events, and
//! links a bundle and profile chain in `state.json`; both files are merged, never replaced.
//! Members keep their document order (serde_json's `preserve_order`).

mod settings_file;

use std::path::{Path, PathBuf};

use hookdex_runtime::tool::Target;
use hookdex_runtime::view::{find_repo_root, View};
use serde_json::{json, Map, Value};

use self::settings_file::{Doc, Saved};
use super::CmdResult;

/// Where harness settings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The user's own settings (`~/.claude/settings.json`, …).
    User,
    /// The repository's settings (`<repo>/.claude/settings.json`, …).
    Project,
}

/// Seconds a harness waits for the hook before giving up on it.
const TIMEOUT_SEC: u64 = 60;

/// Where one harness keeps its hook settings and how it spells them.
struct Harness {
    /// The settings file under the repository root (project scope).
    project: &'static str,
    /// The harness's own directory under `$HOME` (user scope).
    user_dir: &'static str,
    /// The variable that moves that directory, when the harness has one.
    user_dir_var: Option<&'static str>,
    /// The settings file under that directory.
    user_file: &'static str,
    /// The harness's names for the pre-tool and post-tool events.
    events: [&'static str; 2],
    /// The shape of the entry for one event.
    shape: Shape,
}

/// How a harness lists the handlers of one event.
enum Shape {
    /// Claude-compatible matcher groups:
    /// `{"matcher": "*", "hooks": [{"type": "command", "command", "timeout"}]}`,
    /// with the timeout in the harness's own unit.
    Grouped {
        /// `TIMEOUT_SEC` in the harness's unit.
        timeout: u64,
    },
    /// Copilot's flat handlers `{"type": "command", "bash", "timeoutSec"}` in a
    /// versioned file; its camelCase payload does not name the event, so the
    /// command does (`--event`).
    Copilot,
    /// Cursor's flat handlers `{"command"}` in a versioned file.
    Cursor,
}

/// The table every target is wired from (`harness-formats.md` §1–5).
fn harness(target: Target) -> Harness {
    match target {
        Target::Claude => Harness {
            project: ".claude/settings.json",
            user_dir: ".claude",
            user_dir_var: None,
            user_file: "settings.json",
            events: ["PreToolUse", "PostToolUse"],
            shape: Shape::Grouped {
                timeout: TIMEOUT_SEC,
            },
        },
        Target::Codex => Harness {
            project: ".codex/hooks.json",
            user_dir: ".codex",
            user_dir_var: Some("CODEX_HOME"),
            user_file: "hooks.json",
            events: ["PreToolUse", "PostToolUse"],
            shape: Shape::Grouped {
                timeout: TIMEOUT_SEC,
            },
        },
        Target::Copilot => Harness {
            project: ".github/hooks/hookdex.json",
            user_dir: ".copilot",
            user_dir_var: Some("COPILOT_HOME"),
            user_file: "hooks/hookdex.json",
            events: ["preToolUse", "postToolUse"],
            shape: Shape::Copilot,
        },
        Target::Gemini => Harness {
            project: ".gemini/settings.json",
            user_dir: ".gemini",
            user_dir_var: None,
            user_file: "settings.json",
            events: ["BeforeTool", "AfterTool"],
            // Gemini counts hook timeouts in milliseconds.
            shape: Shape::Grouped {
                timeout: TIMEOUT_SEC * 1000,
            },
        },
        Target::Cursor => Harness {
            project: ".cursor/hooks.json",
            user_dir: ".cursor",
            user_dir_var: None,
            user_file: "hooks.json",
            events: ["preToolUse", "postToolUse"],
            shape: Shape::Cursor,
        },
    }
}

impl Harness {
    /// The settings file for `scope`, seen from `cwd`.
    fn settings_path(&self, scope: Scope, cwd: &Path) -> Result<PathBuf, String> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Ok(match scope {
            // Outside a repository the current directory is the project.
            Scope::Project => find_repo_root(cwd)
                .unwrap_or_else(|| cwd.to_path_buf())
                .join(self.project),
            Scope::User => {
                let dir = match self.user_dir_var.and_then(var) {
                    Some(dir) => PathBuf::from(dir),
                    None => {
                        PathBuf::from(var("HOME").ok_or("HOME is not set")?).join(self.user_dir)
                    }
                };
                std::path::absolute(dir)
                    .map_err(|e| e.to_string())?
                    .join(self.user_file)
            }
        })
    }

    /// Installs `command` on both tool events of the settings object `root`.
    fn install(
        &self,
        root: &mut Map<String, Value>,
        target: Target,
        exe: &str,
        command: &str,
    ) -> Result<(), String> {
        let grouped = matches!(self.shape, Shape::Grouped { .. });
        // The flat formats are versioned; a missing version goes first.
        if !grouped && !root.contains_key("version") {
            root.shift_insert(0, "version".into(), 1.into());
        }
        let hooks = root
            .entry("hooks")
            .or_insert(json!({}))
            .as_object_mut()
            .ok_or("\"hooks\" is not an object")?;
        for event in self.events {
            let list = hooks
                .entry(event)
                .or_insert(json!([]))
                .as_array_mut()
                .ok_or_else(|| format!("\"hooks.{event}\" is not an array"))?;
            let handler = self.handler(command, event);
            let ours = |h: &Value| runs_hook(h, target, exe);
            // An earlier install (under any path) is updated where it stands.
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
        Ok(())
    }

    /// The handler that runs `command` on `event`.
    fn handler(&self, command: &str, event: &str) -> Value {
        match self.shape {
            Shape::Grouped { timeout } => {
                json!({"type": "command", "command": command, "timeout": timeout})
            }
            Shape::Copilot => json!({
                "type": "command",
                "bash": format!("{command} --event {event}"),
                "timeoutSec": TIMEOUT_SEC,
            }),
            Shape::Cursor => json!({"command": command}),
        }
    }
}

/// Whether `handler` runs `hookdex hook --target <target>`: its program is
/// this binary or any file named `hookdex`.
fn runs_hook(handler: &Value, target: Target, exe: &str) -> bool {
    ["command", "bash"]
        .iter()
        .filter_map(|key| handler.get(key)?.as_str())
        .any(|command| {
            let words = words(command);
            words.iter().enumerate().any(|(at, word)| {
                let program = word == exe || word.rsplit('/').next() == Some("hookdex");
                let args = &words[at + 1..];
                program
                    && args.first().is_some_and(|a| a == "hook")
                    && (args
                        .windows(2)
                        .any(|w| w[0] == "--target" && w[1] == target.as_str())
                        || args.iter().any(|a| *a == format!("--target={target}")))
            })
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

/// `path` as one shell word: single-quoted unless every character is safe bare.
fn shell_quote(path: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._+-:,@%=".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The bundle directory `dir` as the absolute, canonical path `state.json` holds.
fn bundle_path(dir: &Path) -> Result<String, String> {
    let abs = std::fs::canonicalize(dir).map_err(|e| format!("--bundle {}: {e}", dir.display()))?;
    if !abs.is_dir() {
        return Err(format!("--bundle {}: not a directory", dir.display()));
    }
    Ok(utf8(&abs)?.to_string())
}

/// Merges the bundle and the `--profile` chain into the state object `root`.
fn link(
    root: &mut Map<String, Value>,
    target: Target,
    bundle: Option<&str>,
    profiles: &[String],
) -> Result<(), String> {
    // `insert` on an existing key keeps its place; a new one goes last.
    if let Some(bundle) = bundle {
        root.insert("bundle".into(), bundle.into());
    }
    // `--profile ''` clears the chain; no flag leaves it alone.
    if !profiles.is_empty() {
        let chain = profiles
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .map(Value::from)
            .collect();
        root.entry("targets")
            .or_insert(json!({}))
            .as_object_mut()
            .and_then(|t| {
                t.entry(target.as_str())
                    .or_insert(json!({}))
                    .as_object_mut()
            })
            .ok_or_else(|| format!("\"targets.{target}\" is not an object"))?
            .insert("profiles".into(), Value::Array(chain));
    }
    Ok(())
}

/// `path` as text, since JSON holds nothing else.
fn utf8(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{}: path is not UTF-8", path.display()))
}

/// Writes the harness's hook settings and `state.json`.
pub fn run(
    target: Target,
    scope: Scope,
    bundle: Option<PathBuf>,
    profiles: Vec<String>,
) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the hookdex binary: {e}"))?;
    let exe = utf8(&exe)?;
    let command = format!("{} hook --target {target}", shell_quote(exe));
    let harness = harness(target);
    let bundle = bundle.as_deref().map(bundle_path).transpose()?;

    // Both files are edited in memory first, so a refusal writes neither.
    let mut settings = Doc::load(harness.settings_path(scope, &cwd)?)?;
    harness
        .install(&mut settings.root, target, exe, &command)
        .map_err(|e| format!("{}: {e}", settings.path.display()))?;
    let mut state = Doc::load(View::from_env(target, &cwd).state_path())?;
    link(&mut state.root, target, bundle.as_deref(), &profiles)
        .map_err(|e| format!("{}: {e}", state.path.display()))?;

    for doc in [&settings, &state] {
        let verb = match doc.save()? {
            Saved::Wrote => "wrote",
            Saved::Unchanged => "unchanged",
        };
        println!("{verb} {}", doc.path.display());
    }
    Ok(0)
}
