//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b]`:
//! wires a harness to run `hookdex hook` on its pre- and post-tool events, and
//! links a bundle and profile chain in `state.json`; both files are merged, never replaced.
//! Members keep their document order (serde_json's `preserve_order`).

mod settings_file;

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::{find_repo_root, state};
use hookdex_harness::{harness, HookSettings};
use hookdex_model::Target;
use hookdex_runtime::settings::Settings;

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
    let command = format!("{} hook --target {target}", hookdex_shell::quote(exe));
    let hooks = harness(target).settings();
    let bundle = bundle.as_deref().map(bundle_path).transpose()?;

    // Both files are edited in memory first, so a refusal writes neither.
    let mut settings = Doc::load(settings_path(hooks, scope, &cwd)?)?;
    hooks
        .install(&mut settings.root, target, exe, &command)
        .map_err(|e| format!("{}: {e}", settings.path.display()))?;
    let mut state = Doc::load(Settings::from_env(target, &cwd).view.state_path())?;
    state::link(&mut state.root, target, bundle.as_deref(), &profiles)
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
