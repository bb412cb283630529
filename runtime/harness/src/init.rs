//! What `hookdex init` does for a harness beyond its hook list and its MCP
//! entry: the harness's own further configuration (Codex's `config.toml`)
//! and what the person must be told for the hooks to really run (folder
//! trust, stripped variables, a shell prefix it could not set). Each
//! harness answers through the [`Harness`] trait; the binary only loads,
//! saves and prints.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::{is_guard_prefix, Harness, NotATable};

/// What `init` asked for and wrote, as a harness needs to know it.
pub struct InitRequest<'a> {
    /// Whether the settings go to the repository (`--scope project`)
    /// rather than the user's own files.
    pub project: bool,
    /// The hook settings file `init` wrote.
    pub settings_path: &'a Path,
    /// That file's object, with hookdex's hooks installed.
    pub settings: &'a Map<String, Value>,
    /// The hookdex binary, absolute.
    pub exe: &'a str,
    /// The hook command line installed in the settings.
    pub command: &'a str,
    /// hookdex's variables carried into the harness's entries.
    pub env: &'a [(String, String)],
    /// Whether the person lets `init` record the hooks as trusted where the
    /// harness keeps such records (`--no-trust` says no).
    pub trust: bool,
    /// The environment (`std::env::var_os` outside tests).
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
}

/// A TOML configuration file the harness reads beside its hook settings.
pub trait ConfigFile: Sync {
    /// Where it is for `request`, or `None` when it cannot be named (no `HOME`).
    fn path(&self, request: &InitRequest<'_>) -> Option<PathBuf>;

    /// Edits `doc` (the file's document, empty when it did not exist) for
    /// `request`; returns what to tell the person.
    ///
    /// # Errors
    ///
    /// When a key the harness reads as a table holds something else; the
    /// document is then not to be written.
    fn edit(
        &self,
        request: &InitRequest<'_>,
        doc: &mut toml_edit::DocumentMut,
    ) -> Result<Vec<String>, NotATable>;

    /// Removes from `doc` what [`ConfigFile::edit`] wrote for `request`,
    /// whose `settings` are the hook settings as they stood before
    /// hookdex's handlers were taken out; keeps everything else. Returns
    /// what to tell the person.
    ///
    /// # Errors
    ///
    /// When a key the harness reads as a table holds something else.
    fn remove(
        &self,
        request: &InitRequest<'_>,
        doc: &mut toml_edit::DocumentMut,
    ) -> Result<Vec<String>, NotATable>;
}

/// Everything `init` must tell the person about `harness` for `request`:
/// the harness's own notes after the one every harness with a shell prefix
/// shares (when the prefix could not be set).
pub fn init_notes(harness: &dyn Harness, request: &InitRequest<'_>) -> Vec<String> {
    let target = harness.target();
    let mut notes = Vec::new();
    if let Some(var) = harness.settings().shell_prefix {
        let prefix = request
            .settings
            .get("env")
            .and_then(|e| e.get(var))
            .and_then(Value::as_str);
        if !prefix.is_some_and(is_guard_prefix) {
            let why = match prefix {
                Some(theirs) => format!("{var} is already set to your own prefix ({theirs})"),
                None => format!("the path of hookdex needs quoting, which {var} cannot carry"),
            };
            notes.push(format!(
                "note: {why}, so shell commands are not run behind hookdex's guard by {target}; \
                 the hook rewrites each shell call instead, and {target}'s allow rules then see \
                 the rewritten command (docs/enforcement.md)"
            ));
        }
    }
    notes.extend(harness.init_notes(request));
    notes
}

/// The line that says `init` registered `hookdex mcp` in `path` as `entry`
/// (`already registered` when the file held it as it is).
pub fn registered_note(changed: bool, path: &Path, entry: &str) -> String {
    let already = if changed { "" } else { "already " };
    format!(
        "{already}registered the hookdex MCP server in {} ({entry})",
        path.display()
    )
}

/// The line that says `--remove` left the MCP server named `hookdex` in
/// `path` (`entry` names it), since it does not run `hookdex mcp`.
pub fn foreign_server_note(path: &Path, entry: &str) -> String {
    format!(
        "note: left {entry} in {}: it does not run hookdex mcp, so it is not hookdex's",
        path.display()
    )
}

/// `path` with its deepest existing ancestor resolved (symlinks, `..`), the
/// rest appended as it is.
pub fn real_path(path: &Path) -> PathBuf {
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
