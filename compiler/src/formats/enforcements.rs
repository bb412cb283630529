//! `enforcements.json` (**contract**, SPEC §9), the agentihooks format: a
//! list, or `{"enforcements": [...]}`, of `{"id", "message", "cadence",
//! "matcher"}`. Each entry becomes a `pre` rule whose matcher (the
//! grammar of §3; none is `any`) goes into the step tables like a
//! condition's, so the lookup finds it; its message and cadence travel in
//! the index's enforcement records. Its override key is its id, so a later
//! source (layer) replaces an earlier entry of the same id.

use std::path::Path;

use hookdex_index::{EnforcementData, Stamp};
use hookdex_model::{Alternative, RuleKind, Runner, Step};
use serde::Deserialize;

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::RuleName;
use crate::formats::matcher::MatcherError;
use crate::formats::source::read_source;
use crate::formats::{matcher, RuleSpec};

/// The file name, in each source's folder.
pub const FILE: &str = "enforcements.json";

/// What one `enforcements.json` gave.
#[derive(Debug, Default)]
pub struct Scanned {
    /// One rule per valid entry, in file order.
    pub rules: Vec<RuleSpec>,
    /// The file or entries that cannot be used.
    pub invalid: Vec<RuleError>,
    /// The file, stamped present or absent.
    pub stamps: Vec<(std::path::PathBuf, Stamp)>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Document {
    List(Vec<serde_json::Value>),
    Object {
        enforcements: Vec<serde_json::Value>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    message: String,
    #[serde(default = "one")]
    cadence: u32,
    #[serde(default)]
    matcher: Option<String>,
}

fn one() -> u32 {
    1
}

/// Reads the `enforcements.json` at `path` (which must not leave `root`).
pub fn scan(path: &Path, root: &Path) -> Scanned {
    let mut scanned = Scanned::default();
    let Some(text) = read_source(path, root, &mut scanned.stamps, &mut scanned.invalid) else {
        return scanned;
    };
    let shown = path.display().to_string();
    let entries = match serde_json::from_str::<Document>(&text) {
        Ok(
            Document::List(entries)
            | Document::Object {
                enforcements: entries,
            },
        ) => entries,
        Err(err) => {
            let kind = RuleErrorKind::Syntax(format!(
                "not a list of enforcements, nor {{\"enforcements\": [...]}}: {err}"
            ));
            scanned.invalid.push(RuleError::new(shown, kind));
            return scanned;
        }
    };
    for (at, entry) in entries.into_iter().enumerate() {
        match rule(&shown, entry) {
            Ok(rule) => scanned.rules.push(rule),
            Err(reason) => scanned.invalid.push(RuleError::new(
                shown.clone(),
                RuleErrorKind::Key {
                    key: format!("enforcements[{at}]"),
                    reason: reason.to_string(),
                },
            )),
        }
    }
    scanned
}

/// Why an entry is refused (the caller names the entry's position).
#[derive(Debug)]
enum EntryError {
    /// It is not an entry's shape (serde's reason).
    Shape(serde_json::Error),
    /// Its `id` is empty.
    NoId,
    /// The entry with this id has an empty `message`.
    NoMessage(String),
    /// The entry with this id has `cadence` 0.
    ZeroCadence(String),
    /// The entry with this id has a matcher that does not parse.
    Matcher(String, MatcherError),
}

impl std::fmt::Display for EntryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryError::Shape(err) => write!(f, "{err}"),
            EntryError::NoId => f.write_str("`id` is empty"),
            EntryError::NoMessage(id) => write!(f, "`{id}`: `message` is empty"),
            EntryError::ZeroCadence(id) => write!(f, "`{id}`: `cadence` must be 1 or more"),
            EntryError::Matcher(id, err) => write!(f, "`{id}`: {err}"),
        }
    }
}

/// The rule of one entry, or why it is refused.
fn rule(file: &str, entry: serde_json::Value) -> Result<RuleSpec, EntryError> {
    let entry: Entry = serde_json::from_value(entry).map_err(EntryError::Shape)?;
    if entry.id.trim().is_empty() {
        return Err(EntryError::NoId);
    }
    if entry.message.trim().is_empty() {
        return Err(EntryError::NoMessage(entry.id));
    }
    if entry.cadence == 0 {
        return Err(EntryError::ZeroCadence(entry.id));
    }
    let text = entry.matcher.unwrap_or_else(|| "any".to_string());
    let alternatives = match text.trim() {
        "" => vec![Alternative::Any],
        text => matcher::parse(text).map_err(|e| EntryError::Matcher(entry.id.clone(), e))?,
    };
    Ok(RuleSpec {
        file: file.to_string(),
        file_name: FILE.to_string(),
        dir_index: 0,
        name: RuleName {
            step: Step::Pre,
            matcher: text.trim().to_ascii_lowercase(),
            alternatives,
            name: entry.id.clone(),
            is_async: false,
            ext: "json".into(),
            kind: RuleKind::Enforcement,
            key: format!("enforcement:{}", entry.id),
        },
        runner: Runner::None,
        filter: None,
        hook: None,
        guard: None,
        enforcement: Some(EnforcementData {
            rule: 0,
            id: entry.id,
            message: entry.message,
            cadence: entry.cadence,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Scanned {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, text).unwrap();
        scan(&path, dir.path())
    }

    #[test]
    fn both_forms_read_and_bad_entries_are_named_alone() {
        let list = scan_text(
            r#"[{"id": "kubectl-doctrine", "message": "Cluster writes go through GitOps.", "cadence": 2, "matcher": "bash.kubectl"},
                {"id": "x", "message": "m", "cadence": 0},
                {"id": "y", "message": "m", "colour": "red"},
                {"id": "all", "message": "Every call."}]"#,
        );
        let ids: Vec<&str> = list.rules.iter().map(|r| r.name.name.as_str()).collect();
        assert_eq!(ids, ["kubectl-doctrine", "all"]);
        let first = list.rules[0].enforcement.as_ref().unwrap();
        assert_eq!(
            (first.cadence, first.message.as_str()),
            (2, "Cluster writes go through GitOps.")
        );
        assert_eq!(list.rules[1].name.alternatives, [Alternative::Any]);
        let reasons: Vec<String> = list.invalid.iter().map(|e| e.kind.to_string()).collect();
        assert!(
            reasons[0].starts_with("enforcements[1]: `x`: `cadence` must be 1"),
            "{reasons:?}"
        );
        assert!(reasons[1].contains("unknown field `colour`"), "{reasons:?}");
        let object = scan_text(r#"{"enforcements": [{"id": "a", "message": "m"}]}"#);
        assert_eq!(object.rules.len(), 1);
        let broken = scan_text("{not json");
        assert!(broken.rules.is_empty() && broken.invalid.len() == 1);
    }
}
