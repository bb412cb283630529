//! Folder trust as Copilot CLI and Gemini CLI keep it, read for `hookdex
//! doctor` and, for Copilot, written by `hookdex init --scope project`.
//!
//! Copilot CLI 1.0.102 loads a repository's `.github/hooks/*.json` only in
//! a folder it trusts, and skips them silently otherwise, `-p` included. Its
//! record is the `trustedFolders` array of `$COPILOT_HOME/config.json`
//! (default `~/.copilot`): an entry trusts that folder and every folder
//! under it. Seen running it offline: no record, the project hook did not
//! run; `trustedFolders` (or the older `trusted_folders`, which it renames
//! to `trustedFolders`) naming the folder or its parent, it ran;
//! `trustedFolders` in `settings.json`, it did not. Copilot writes the file
//! with `//` comment lines before the JSON.
//!
//! Gemini CLI 0.61.0 (its bundled `trust.ts`): `GEMINI_RESTRICTED_MODE=true`
//! or `GEMINI_CLI_TRUST_WORKSPACE=false` distrusts, then
//! `GEMINI_CLI_TRUST_WORKSPACE=true` trusts; then trust is off (everything
//! trusted) when `security.folderTrust.enabled` is `false` in its settings
//! (default `true`); then `trustedFolders.json`
//! (`GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `.gemini/` under
//! `GEMINI_CLI_HOME` or `HOME`), an object mapping a path to
//! `TRUST_FOLDER`, `TRUST_PARENT` (its parent folder) or `DO_NOT_TRUST`,
//! decides by the longest rule path covering the folder (real paths);
//! an unknown level makes Gemini refuse to start. No rule: `gemini -p`
//! refuses to run, the interactive one asks.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Whether a harness trusts a folder, and what says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderVerdict {
    /// Whether the harness runs hooks there.
    pub trusted: bool,
    /// The record, variable or setting that decided.
    pub why: String,
}

/// Copilot CLI's `config.json`: `$COPILOT_HOME/config.json`, else
/// `$HOME/.copilot/config.json`; `None` without either.
fn copilot_config_path(var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let home = crate::harness(hookdex_model::Target::Copilot)
        .settings()
        .user_home(var)?;
    Some(home.join("config.json"))
}

/// Splits Copilot's `config.json` text into the comment lines it writes
/// before the JSON (blank and `//` lines, kept as they are) and the JSON.
pub fn split_comment_header(text: &str) -> (&str, &str) {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if !(trimmed.is_empty() || trimmed.starts_with("//")) {
            break;
        }
        at += line.len();
    }
    text.split_at(at)
}

/// The folders `config` (Copilot's `config.json` object) trusts: its
/// `trustedFolders` and the older `trusted_folders`.
fn copilot_entries(config: &Map<String, Value>) -> impl Iterator<Item = &str> {
    ["trustedFolders", "trusted_folders"]
        .into_iter()
        .filter_map(|key| config.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
}

/// Whether `config` (Copilot's `config.json` object) trusts `folder`: an
/// entry names it or a folder above it.
fn copilot_trusts(config: &Map<String, Value>, folder: &Path) -> bool {
    copilot_entries(config).any(|entry| folder.starts_with(entry))
}

/// Whether Copilot CLI trusts `folder`, read from its `config.json`.
pub fn copilot_folder_verdict(
    folder: &Path,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> FolderVerdict {
    let Some(path) = copilot_config_path(var) else {
        return FolderVerdict {
            trusted: false,
            why: "neither COPILOT_HOME nor HOME is set".into(),
        };
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let config = serde_json::from_str::<Map<String, Value>>(split_comment_header(&text).1)
        .unwrap_or_default();
    match copilot_trusts(&config, folder) {
        true => FolderVerdict {
            trusted: true,
            why: format!("{} trusts {}", path.display(), folder.display()),
        },
        false => FolderVerdict {
            trusted: false,
            why: format!(
                "no trustedFolders entry of {} covers {}",
                path.display(),
                folder.display()
            ),
        },
    }
}

/// Adds `folder` to `config`'s `trustedFolders` unless an entry already
/// trusts it; returns whether it was added.
///
/// # Errors
///
/// When `trustedFolders` holds something other than an array.
fn record_copilot_trust(config: &mut Map<String, Value>, folder: &Path) -> Result<bool, NotAList> {
    if copilot_trusts(config, folder) {
        return Ok(false);
    }
    let list = config
        .entry("trustedFolders")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| NotAList {
            key: "trustedFolders".into(),
        })?;
    list.push(Value::String(folder.display().to_string()));
    Ok(true)
}

/// Takes `folder` (that exact entry) out of `config`'s `trustedFolders`,
/// and the key when it is left empty; returns whether `config` changed.
fn forget_copilot_trust(config: &mut Map<String, Value>, folder: &Path) -> bool {
    let Some(list) = config
        .get_mut("trustedFolders")
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    let before = list.len();
    let name = folder.display().to_string();
    list.retain(|entry| entry.as_str() != Some(name.as_str()));
    let changed = list.len() < before;
    if changed && list.is_empty() {
        config.remove("trustedFolders");
    }
    changed
}

/// A list of trusted folders in a JSON file of the harness's own, which
/// `init --scope project` adds the repository to (its hooks run only in a
/// trusted folder) and `init --remove` takes it out of again.
pub trait FolderTrust: Sync {
    /// The file, read through `var`; `None` when it cannot be named.
    fn path(&self, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf>;

    /// Adds `folder` to `config` (the file's object) unless it is trusted
    /// already; returns whether it was added.
    ///
    /// # Errors
    ///
    /// When the list's key holds something other than an array.
    fn record(&self, config: &mut Map<String, Value>, folder: &Path) -> Result<bool, NotAList>;

    /// Takes the entry `folder` out of `config`; returns whether it changed.
    fn forget(&self, config: &mut Map<String, Value>, folder: &Path) -> bool;
}

/// Copilot CLI's `trustedFolders` in its `config.json`.
pub(crate) struct CopilotFolders;

impl FolderTrust for CopilotFolders {
    fn path(&self, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        copilot_config_path(var)
    }

    fn record(&self, config: &mut Map<String, Value>, folder: &Path) -> Result<bool, NotAList> {
        record_copilot_trust(config, folder)
    }

    fn forget(&self, config: &mut Map<String, Value>, folder: &Path) -> bool {
        forget_copilot_trust(config, folder)
    }
}

/// A key that must hold an array holds something else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAList {
    /// The key.
    pub key: String,
}

impl std::fmt::Display for NotAList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\" is not an array", self.key)
    }
}

impl std::error::Error for NotAList {}

/// Whether Gemini CLI trusts `folder` (its working directory), as its
/// `trust.ts` decides (see the module doc); reads its user settings and
/// `trustedFolders.json` through `var`.
pub fn gemini_folder_verdict(
    folder: &Path,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> FolderVerdict {
    let var = |name: &str| var(name).filter(|v| !v.is_empty());
    let is = |name: &str, value: &str| var(name).is_some_and(|v| v == value);
    let verdict = |trusted: bool, why: String| FolderVerdict { trusted, why };
    if is("GEMINI_RESTRICTED_MODE", "true") || is("GEMINI_CLI_TRUST_WORKSPACE", "false") {
        return verdict(
            false,
            "GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE distrusts every folder".into(),
        );
    }
    if is("GEMINI_CLI_TRUST_WORKSPACE", "true") {
        return verdict(
            true,
            "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder".into(),
        );
    }
    let Some(home) = var("GEMINI_CLI_HOME").or_else(|| var("HOME")) else {
        return verdict(false, "neither GEMINI_CLI_HOME nor HOME is set".into());
    };
    let dir = PathBuf::from(home).join(".gemini");
    let settings = dir.join("settings.json");
    let enabled = read_jsonc(&settings)
        .as_ref()
        .and_then(|s| s.pointer("/security/folderTrust/enabled"))
        .and_then(Value::as_bool);
    if enabled == Some(false) {
        return verdict(
            true,
            format!(
                "security.folderTrust.enabled is false in {}",
                settings.display()
            ),
        );
    }
    let file = var("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("trustedFolders.json"));
    let rules = match read_jsonc(&file) {
        None => Map::new(),
        Some(Value::Object(rules)) => rules,
        Some(_) => {
            return verdict(
                false,
                format!(
                    "{} is not a JSON object: Gemini refuses to start",
                    file.display()
                ),
            )
        }
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let folder = real(folder);
    let mut best: Option<(usize, &str, &str)> = None;
    for (rule, level) in &rules {
        let level = level.as_str().unwrap_or_default();
        let covered = match level {
            "TRUST_FOLDER" | "DO_NOT_TRUST" => Path::new(rule),
            "TRUST_PARENT" => Path::new(rule).parent().unwrap_or(Path::new(rule)),
            _ => {
                return verdict(
                    false,
                    format!(
                        "{} gives {rule} the unknown level {level:?}: Gemini refuses to start",
                        file.display()
                    ),
                )
            }
        };
        // Gemini keeps the longest rule path, compared as written.
        if folder.starts_with(real(covered)) && best.is_none_or(|(len, ..)| rule.len() > len) {
            best = Some((rule.len(), rule, level));
        }
    }
    match best {
        Some((_, rule, "DO_NOT_TRUST")) => verdict(
            false,
            format!("{} marks {rule} DO_NOT_TRUST", file.display()),
        ),
        Some((_, rule, level)) => verdict(true, format!("{} gives {rule} {level}", file.display())),
        None => verdict(
            false,
            format!(
                "no entry of {} covers {}, and folder trust is on: gemini -p refuses to run there",
                file.display(),
                folder.display()
            ),
        ),
    }
}

/// The JSON value of the file at `path` with `//` and `/* */` comments
/// taken out (Gemini reads its files so); `None` when it is missing or not
/// JSON.
fn read_jsonc(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&crate::mcp::strip_comments(&text)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn copilot_trusts_a_folder_and_those_under_it() {
        let config = obj(json!({"trustedFolders": ["/r/a"], "trusted_folders": ["/old"]}));
        assert!(copilot_trusts(&config, Path::new("/r/a")));
        assert!(copilot_trusts(&config, Path::new("/r/a/b")));
        assert!(copilot_trusts(&config, Path::new("/old/x")));
        assert!(!copilot_trusts(&config, Path::new("/r/ab")));
        assert!(!copilot_trusts(&config, Path::new("/r")));
    }

    #[test]
    fn record_adds_only_what_is_not_trusted_and_forget_takes_it_out() {
        let mut config = obj(json!({"firstLaunchAt": "x", "trustedFolders": ["/r"]}));
        assert_eq!(
            record_copilot_trust(&mut config, Path::new("/r/a")),
            Ok(false)
        );
        assert_eq!(record_copilot_trust(&mut config, Path::new("/s")), Ok(true));
        assert_eq!(config["trustedFolders"], json!(["/r", "/s"]));
        assert!(forget_copilot_trust(&mut config, Path::new("/s")));
        assert!(!forget_copilot_trust(&mut config, Path::new("/s")));
        assert_eq!(
            config,
            obj(json!({"firstLaunchAt": "x", "trustedFolders": ["/r"]}))
        );
        let mut fresh = Map::new();
        assert_eq!(record_copilot_trust(&mut fresh, Path::new("/s")), Ok(true));
        assert!(forget_copilot_trust(&mut fresh, Path::new("/s")));
        assert!(fresh.is_empty(), "{fresh:?}");
        let mut bad = obj(json!({"trustedFolders": "/s"}));
        assert_eq!(
            record_copilot_trust(&mut bad, Path::new("/t")),
            Err(NotAList {
                key: "trustedFolders".into()
            })
        );
    }

    #[test]
    fn the_comment_header_copilot_writes_is_split_off() {
        let text = "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"a\": 1\n}\n";
        let (header, json) = split_comment_header(text);
        assert_eq!(header.lines().count(), 2);
        assert_eq!(json, "{\n  \"a\": 1\n}\n");
        assert_eq!(split_comment_header("{}"), ("", "{}"));
    }
}
