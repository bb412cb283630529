//! `hookdex init --target T [--scope user|project] [--bundle DIR] [--profile a,b]`.

use std::path::PathBuf;

use hookdex_runtime::tool::Target;

use super::CmdResult;

/// Where harness settings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The user's own settings (`~/.claude/settings.json`, …).
    User,
    /// The repository's settings (`<repo>/.claude/settings.json`, …).
    Project,
}

/// Writes the harness's hook settings and `state.json`.
pub fn run(target: Target, scope: Scope, bundle: Option<PathBuf>, profiles: Vec<String>) -> CmdResult {
    let _ = (target, scope, bundle, profiles);
    Err("init: not built yet".into())
}
