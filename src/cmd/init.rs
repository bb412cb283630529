//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b] [--no-trust]`:
//! wires a harness to run `hookdex hook` on its tool events, and links a
//! bundle and profile chain in `state.json`; every file is merged, never
//! replaced. What a harness needs beyond its hook list to really run the
//! hooks is done too, and said: Codex's trust records, Gemini's hook `env`,
//! and for Copilot's project scope, how to trust the folder.
//! Members keep their document order (serde_json's `preserve_order`).

mod settings_file;

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::{find_repo_root, state};
use hookdex_harness::{codex_trust_entries, harness, record_codex_trust, HookSettings, McpFormat};
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

/// Writes the harness's hook settings and `state.json`; for Codex, unless
/// `trust` is false, records the hooks as trusted in its `config.toml`.
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

pub fn run(
    target: Target,
    scope: Scope,
    bundle: Option<PathBuf>,
    profiles: Vec<String>,
    trust: bool,
) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate the hookdex binary: {e}"))?;
    let exe = utf8(&exe)?;
    let command = format!("{} hook --target {target}", hookdex_shell::quote(exe));
    let hooks = harness(target).settings();
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
    let codex = match target {
        Target::Codex => {
            let (mut config, notes) = codex_config(hooks, scope, &settings, &command, trust)?;
            codex_mcp(&mut config.doc, exe, &env);
            Some((config, notes))
        }
        _ => None,
    };

    for doc in [Some(&settings), Some(&state), mcp.as_ref()]
        .into_iter()
        .flatten()
    {
        report(doc.save()?, &doc.path);
    }
    if let Some((config, notes)) = codex {
        report(config.save()?, &config.path);
        notes.iter().for_each(|n| println!("{n}"));
    }
    if let Some(var) = hooks.shell_prefix {
        let prefix = settings
            .root
            .get("env")
            .and_then(|e| e.get(var))
            .and_then(|v| v.as_str());
        if !prefix.is_some_and(hookdex_harness::is_guard_prefix) {
            let why = match prefix {
                Some(theirs) => format!("{var} is already set to your own prefix ({theirs})"),
                None => format!("the path of hookdex needs quoting, which {var} cannot carry"),
            };
            println!(
                "note: {why}, so shell commands are not run behind hookdex's guard by {target}; \
                 the hook rewrites each shell call instead, and {target}'s allow rules then see \
                 the rewritten command (docs/enforcement.md)"
            );
        }
    }
    match target {
        Target::Gemini => {
            if !env.is_empty() {
                let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
                println!(
                    "note: the hooks carry {} in their own env: Gemini CLI strips them from a \
                     hook's environment under strict sanitization (rerun init when they change)",
                    names.join(", ")
                );
            }
            // 0.61.0 registers every settings hook, user ones too, as a
            // project hook, and skips them in an untrusted folder.
            println!(
                "note: Gemini CLI runs these hooks only in a trusted folder (trust it when \
                 asked, or run gemini with --skip-trust)"
            );
        }
        Target::Codex if scope == Scope::Project => println!(
            "note: Codex loads {} only when the project is trusted ([projects.\"<repo>\"] \
             trust_level = \"trusted\" in config.toml, or trust it when Codex asks)",
            settings.path.display()
        ),
        Target::Copilot if scope == Scope::Project => println!(
            "note: Copilot CLI loads {} only in a trusted folder and skips it silently otherwise: \
             trust the folder when Copilot asks, or start it with --trust-folder (headless: \
             COPILOT_ALLOW_ALL=true); the user scope (the default) always loads",
            settings.path.display()
        ),
        _ => {}
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

/// `[mcp_servers.hookdex]` in Codex's `config.toml`: `hookdex mcp`, with
/// hookdex's variables, keeping every other server.
fn codex_mcp(doc: &mut toml_edit::DocumentMut, exe: &str, env: &[(String, String)]) {
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_like_mut();
    let Some(servers) = servers else {
        return;
    };
    let mut server = toml_edit::Table::new();
    server.insert("command", toml_edit::value(exe));
    let args: toml_edit::Array = ["mcp", "--target", "codex"].into_iter().collect();
    server.insert("args", toml_edit::value(args));
    if !env.is_empty() {
        let mut vars = toml_edit::InlineTable::new();
        for (k, v) in env {
            vars.insert(k, v.as_str().into());
        }
        server.insert("env", toml_edit::value(vars));
    }
    servers.insert("hookdex", toml_edit::Item::Table(server));
}

/// `path` with its deepest existing ancestor resolved (symlinks, `..`), the
/// rest appended as it is.
fn real_path(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn report(saved: Saved, path: &Path) {
    let verb = match saved {
        Saved::Wrote => "wrote",
        Saved::Unchanged => "unchanged",
    };
    println!("{verb} {}", path.display());
}

/// Codex's `config.toml`, edited: hookdex's handlers recorded as trusted
/// (Codex 0.171.0 skips untrusted hooks silently), and the hooks feature
/// switched on where it was switched off. Returns what to tell the user.
fn codex_config(
    hooks: &HookSettings,
    scope: Scope,
    settings: &Doc,
    command: &str,
    trust: bool,
) -> Result<(TomlDoc, Vec<String>), String> {
    let user = hooks
        .user_path(|name| std::env::var_os(name))
        .ok_or("HOME is not set")?;
    let path =
        std::path::absolute(user.with_file_name("config.toml")).map_err(|e| e.to_string())?;
    let mut config = TomlDoc::load(path)?;
    let mut notes = Vec::new();
    for flag in ["hooks", "codex_hooks"] {
        let off = config
            .doc
            .get("features")
            .and_then(|f| f.get(flag))
            .and_then(|v| v.as_bool());
        if off == Some(false) {
            config.doc["features"][flag] = toml_edit::value(true);
            notes.push(format!(
                "switched [features] {flag} on: Codex runs no hooks without it"
            ));
        }
    }
    if trust {
        // Codex 0.171.0 resolves `CODEX_HOME` to its real path and names the
        // records by it (it leaves `HOME` as it is).
        let named = match (scope, std::env::var_os("CODEX_HOME")) {
            (Scope::User, Some(home)) if !home.is_empty() => real_path(&settings.path),
            _ => settings.path.clone(),
        };
        let entries = codex_trust_entries(&named, &settings.root, command);
        record_codex_trust(&mut config.doc, &entries)
            .map_err(|e| format!("{}: {e}", config.path.display()))?;
        notes.push(format!(
            "trusted hookdex's {} hook handlers in {}: Codex skips untrusted hooks silently \
             (--no-trust leaves them to Codex's own review)",
            entries.len(),
            config.path.display()
        ));
    } else {
        notes.push(
            "note: Codex skips these hooks until you trust them (its /hooks review), or rerun \
             init without --no-trust"
                .into(),
        );
    }
    Ok((config, notes))
}
