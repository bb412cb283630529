//! `$HOOKDEX_HOME/state.json`: the linked bundle, the profile chain, linked
//! profile paths and per-target overrides — read here for every compile,
//! and written here ([`link`]) for `hookdex init` — and the folders `init`
//! added to a harness's trusted-folder list ([`remember_trust`]), so that
//! `init --remove` takes out only those.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_model::Target;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{RuleError, RuleErrorKind};

/// `$HOOKDEX_HOME/state.json`, as written by `hookdex init`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct State {
    pub(super) bundle: Option<PathBuf>,
    #[serde(default)]
    pub(super) profiles: Vec<String>,
    #[serde(default)]
    pub(super) linked_profiles: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub(super) targets: BTreeMap<String, TargetState>,
}

/// Per-target settings in `state.json`, overriding the top-level ones.
#[derive(Debug, Default, Deserialize)]
pub(super) struct TargetState {
    pub(super) bundle: Option<PathBuf>,
    pub(super) profiles: Option<Vec<String>>,
}

impl State {
    /// Reads `path`; a missing file is the empty state.
    ///
    /// # Errors
    ///
    /// When the file cannot be read (it is not a regular file, say) or is
    /// not valid state JSON (the caller goes on without it).
    pub(crate) fn read(path: &Path) -> Result<State, RuleError> {
        let unusable = |reason: String| {
            RuleError::new(
                path.display().to_string(),
                RuleErrorKind::Selection(format!("{reason}; using no bundle and no profiles")),
            )
        };
        // Read without blocking, and only a regular file: a FIFO put there
        // must not hang the hook.
        let bytes = match super::confine::read_regular(path, 1 << 20) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
            Err(e) => return Err(unusable(format!("cannot be read ({e})"))),
        };
        serde_json::from_slice::<State>(&bytes).map_err(|err| {
            unusable(format!("not valid state JSON ({err})"))
                .at(Some((err.line() as u32, err.column() as u32)))
        })
    }
}

/// Records in the state object `root` that `init` added `folder` to
/// `target`'s trusted folders (`trusted_folders.<target>`).
///
/// # Errors
///
/// When `trusted_folders` or `trusted_folders.<target>` is there but is
/// not an object or an array.
pub fn remember_trust(
    root: &mut Map<String, Value>,
    target: Target,
    folder: &str,
) -> Result<(), RuleErrorKind> {
    let list = root
        .entry("trusted_folders")
        .or_insert(json!({}))
        .as_object_mut()
        .and_then(|t| t.entry(target.as_str()).or_insert(json!([])).as_array_mut())
        .ok_or_else(|| RuleErrorKind::Key {
            key: format!("trusted_folders.{target}"),
            reason: "is not a list".into(),
        })?;
    if !list.iter().any(|f| f.as_str() == Some(folder)) {
        list.push(folder.into());
    }
    Ok(())
}

/// Takes out of the state object `root` the record that `init` added
/// `folder` to `target`'s trusted folders, and the keys it leaves empty;
/// returns whether there was one.
pub fn forget_trust(root: &mut Map<String, Value>, target: Target, folder: &str) -> bool {
    let Some(all) = root
        .get_mut("trusted_folders")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(list) = all.get_mut(target.as_str()).and_then(Value::as_array_mut) else {
        return false;
    };
    let before = list.len();
    list.retain(|f| f.as_str() != Some(folder));
    let found = list.len() < before;
    if list.is_empty() {
        all.remove(target.as_str());
    }
    if all.is_empty() {
        root.remove("trusted_folders");
    }
    found
}

/// Merges the bundle and the `--profile` chain into the state object `root`.
///
/// # Errors
///
/// When `targets` or `targets.<target>` is there but is not an object.
pub fn link(
    root: &mut Map<String, Value>,
    target: Target,
    bundle: Option<&str>,
    profiles: &[String],
) -> Result<(), RuleErrorKind> {
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
            .ok_or_else(|| RuleErrorKind::Key {
                key: format!("targets.{target}"),
                reason: "is not an object".into(),
            })?
            .insert("profiles".into(), Value::Array(chain));
    }
    Ok(())
}
