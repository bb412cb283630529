//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b] [--no-trust]`:
//! wires a harness to run `hookdex hook` on its tool events, and links a
//! bundle and profile chain in `state.json`; every file is merged, never
//! replaced. What a harness needs beyond its hook list to really run the
//! hooks (Codex's `config.toml`, the notes on folder trust) its own module
//! answers behind the `Harness` trait; this file loads, saves and prints.
//! Members keep their document order (serde_json's `preserve_order`).

mod settings_file;

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::{find_repo_root, state};
use hookdex_harness::{harness, init_notes, HookSettings, InitRequest, McpFormat};
use hookdex_model::{Event, Step, Target};
use hookdex_runtime::settings::Settings;

use self::settings_file::{Doc, Saved, TomlDoc};
use super::CmdResult;

/// Where harness settings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The user's own settings (`~/.claude/settings.json`, …).
    User,
    /// The repository's settings (`<repo>/.claude/settings.json`, …).
    Project,
}

/// The settings file `settings` names for `scope`, seen from `cwd`.
fn settings_path(settings: &HookSettings, scope: Scope, cwd: &Path) -> Result<PathBuf, String> {
    Ok(match scope {
        // Outside a repository the current directory is the project.
        Scope::Project => {
            settings.project_path(&find_repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf()))
        }
        Scope::User => {
            let path = settings
                .user_path(|name| std::env::var_os(name))
                .ok_or("HOME is not set")?;
            std::path::absolute(path).map_err(|e| e.to_string())?
        }
    })
}

/// The bundle directory `dir` as the absolute, canonical path `state.json` holds.
fn bundle_path(dir: &Path) -> Result<String, String> {
    let abs = std::fs::canonicalize(dir).map_err(|e| format!("--bundle {}: {e}", dir.display()))?;
    if !abs.is_dir() {
        return Err(format!("--bundle {}: not a directory", dir.display()));
    }
    Ok(utf8(&abs)?.to_string())
}

/// `path` as text, since JSON holds nothing else.
fn utf8(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{}: path is not UTF-8", path.display()))
}

/// The hook's configuration in force (the set values of
/// [`VARIABLES`](hookdex_runtime::settings::VARIABLES)), for harnesses that
/// would strip it from a hook's environment.
fn configuration_in_force() -> Vec<(String, String)> {
    hookdex_runtime::settings::VARIABLES
        .iter()
        .filter_map(|name| {
            let value = std::env::var_os(name)?.into_string().ok()?;
            (!value.is_empty()).then(|| (name.to_string(), value))
        })
        .collect()
}

/// The events `init` wires for `target`: its tool events, UserPromptSubmit
/// and Stop always (the gate reads the person's prompt and closes at Stop),
/// and every other event the harness sends that a rule of the view's
/// layers is written for (as the view stands before this `init` links a
/// bundle or profiles: rerun it after adding rules for a new event).
fn wired_events(target: Target, cwd: &std::path::Path) -> Vec<Event> {
    let harness = harness(target);
    // Compiled in memory: `init` writes settings, not the hook's index.
    let view = Settings::from_env(target, cwd).view;
    let steps: Vec<Step> = hookdex_compiler::compile(&view)
        .data
        .rules
        .iter()
        .map(|rule| rule.step)
        .collect();
    harness
        .sends()
        .iter()
        .copied()
        .filter(|event| {
            harness.settings().events.contains(event)
                || matches!(event, Event::UserPromptSubmit | Event::Stop)
                || steps.contains(&event.step())
        })
        .collect()
}

/// Writes the harness's hook settings, its MCP entry, `state.json` and the
/// harness's further configuration file, then prints what was written and
/// what the person must know (`--json`: `{"files": [{"path", "action":
/// "wrote"|"unchanged"}], "notes": [...]}`); a refusal in any file writes
/// none.
pub fn run(
    target: Target,
    scope: Scope,
    bundle: Option<PathBuf>,
    profiles: Vec<String>,
    trust: bool,
    json: bool,
) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the hookdex binary: {e}"))?;
    let exe = utf8(&exe)?;
    let command = format!("{} hook --target {target}", hookdex_shell::quote(exe));
    let harness = harness(target);
    let hooks = harness.settings();
    let bundle = bundle.as_deref().map(bundle_path).transpose()?;
    let env = configuration_in_force();

    // Every file is edited in memory first, so a refusal writes none.
    let mut settings = Doc::load(settings_path(hooks, scope, &cwd)?)?;
    hooks
        .install(
            &mut settings.root,
            target,
            exe,
            &command,
            &env,
            &wired_events(target, &cwd),
        )
        .map_err(|e| format!("{}: {e}", settings.path.display()))?;
    // `hookdex mcp`, registered where the harness takes its MCP servers
    // (Gemini keeps them in the hooks' file, Codex in config.toml).
    let mcp_path = mcp_path(hooks, scope, &cwd)?;
    let mut mcp = None;
    if let McpFormat::Json { .. } = hooks.mcp.format {
        let doc = match mcp_path == settings.path {
            true => &mut settings,
            false => mcp.insert(Doc::load(mcp_path)?),
        };
        hooks
            .mcp
            .install_json(&mut doc.root, exe, target, &env)
            .map_err(|e| format!("{}: {e}", doc.path.display()))?;
    }
    let mut state = Doc::load(Settings::from_env(target, &cwd).view.state_path())?;
    state::link(&mut state.root, target, bundle.as_deref(), &profiles)
        .map_err(|e| format!("{}: {e}", state.path.display()))?;
    let var = |name: &str| std::env::var_os(name);
    let request = InitRequest {
        project: scope == Scope::Project,
        settings_path: &settings.path,
        settings: &settings.root,
        exe,
        command: &command,
        env: &env,
        trust,
        var: &var,
    };
    let mut config = None;
    let mut notes = Vec::new();
    if let Some(file) = harness.config_file() {
        let path = file.path(&request).ok_or("HOME is not set".to_string())?;
        let doc = config.insert(TomlDoc::load(path)?);
        notes = file
            .edit(&request, &mut doc.doc)
            .map_err(|e| format!("{}: {e}", doc.path.display()))?;
    }
    notes.extend(init_notes(harness, &request));

    let mut files = Vec::new();
    for doc in [Some(&settings), Some(&state), mcp.as_ref()]
        .into_iter()
        .flatten()
    {
        files.push((action(doc.save()?), &doc.path));
    }
    if let Some(config) = &config {
        files.push((action(config.save()?), &config.path));
    }
    if json {
        super::print_json(&serde_json::json!({
            "files": files
                .iter()
                .map(|(action, path)| serde_json::json!({"path": path, "action": action}))
                .collect::<Vec<_>>(),
            "notes": notes,
        }));
    } else {
        files
            .iter()
            .for_each(|(action, path)| println!("{action} {}", path.display()));
        notes.iter().for_each(|note| println!("{note}"));
    }
    Ok(0)
}

/// Where `init` registers `hookdex mcp` for the harness of `settings`:
/// the project's file in project scope when the harness reads one, else
/// the user's.
fn mcp_path(settings: &HookSettings, scope: Scope, cwd: &Path) -> Result<PathBuf, String> {
    let mcp = &settings.mcp;
    match (scope, mcp.project) {
        (Scope::Project, Some(project)) => Ok(find_repo_root(cwd)
            .unwrap_or_else(|| cwd.to_path_buf())
            .join(project)),
        _ => {
            let moved = mcp.user_dir_var.and_then(|(var, file)| {
                let dir = std::env::var_os(var).filter(|d| !d.is_empty())?;
                Some(Path::new(&dir).join(file))
            });
            let path = match moved {
                Some(path) => path,
                None => {
                    let home = std::env::var_os("HOME")
                        .filter(|h| !h.is_empty())
                        .ok_or("HOME is not set")?;
                    Path::new(&home).join(mcp.user)
                }
            };
            std::path::absolute(path).map_err(|e| e.to_string())
        }
    }
}

/// What saving a file did, as `init` reports it.
fn action(saved: Saved) -> &'static str {
    match saved {
        Saved::Wrote => "wrote",
        Saved::Unchanged => "unchanged",
    }
}
