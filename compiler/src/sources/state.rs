//! `$HOOKDEX_HOME/state.json`, as `hookdex init` writes it: the linked
//! bundle, the profile chain, linked profile paths, and per-target overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{RuleError, RuleErrorKind};

/// `$HOOKDEX_HOME/state.json`, as written by `hookdex init`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct State {
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
    /// When the file is not valid state JSON (the caller goes on without it).
    pub(super) fn read(path: &Path) -> Result<State, RuleError> {
        let Ok(bytes) = std::fs::read(path) else {
            return Ok(State::default());
        };
        serde_json::from_slice::<State>(&bytes).map_err(|err| {
            RuleError::new(
                path.display().to_string(),
                RuleErrorKind::Selection(format!(
                    "not valid state JSON ({err}); using no bundle and no profiles"
                )),
            )
            .at(Some((err.line() as u32, err.column() as u32)))
        })
    }
}
