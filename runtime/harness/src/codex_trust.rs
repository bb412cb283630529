//! Codex's hook trust: Codex 0.171.0 runs a non-managed hook (one in
//! `~/.codex/hooks.json` too) only when `config.toml` records that the user
//! trusted it, and skips it silently otherwise. The record is
//!
//! ```toml
//! [hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
//! trusted_hash = "sha256:<hex>"
//! ```
//!
//! where `<event>` is the snake_case event, `<group>` and `<handler>` are
//! indexes into `hooks.<Event>` and its `hooks` list, and `<hex>` is the
//! sha256 of the compact, key-sorted JSON of the handler normalized as Codex
//! does (`type`, `command`, `timeout` 600 and `async` false by default,
//! `statusMessage` when set) inside its group (`event_name`, `hooks`, and
//! `matcher` when set). Checked against the `currentHash` that
//! `codex app-server` reports for `hooks/list`. `hookdex init` writes these
//! records for hookdex's own handlers because the user asked it to wire them.

use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Table};

/// One trust record for one handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TrustEntry {
    /// `<hooks.json path>:<event>:<group>:<handler>`.
    pub key: String,
    /// `sha256:<hex>`.
    pub hash: String,
}

/// The trust records for every handler of `hooks_json` (the parsed
/// `hooks.json` at `path`) that `pick` picks: to record, those whose
/// command is exactly the one `init` wrote (a handler someone else wrote
/// that merely looks like hookdex's, another path, more shell around it,
/// is never trusted for them); to forget, every handler of hookdex's.
pub(crate) fn codex_trust_entries(
    path: &Path,
    hooks_json: &Map<String, Value>,
    pick: impl Fn(&Value) -> bool,
) -> Vec<TrustEntry> {
    let mut entries = Vec::new();
    let Some(events) = hooks_json.get("hooks").and_then(Value::as_object) else {
        return entries;
    };
    // Codex reads PascalCase event keys only; a `preToolUse` key is not
    // the same event to it, so it must not take that event's records.
    let events = events
        .iter()
        .filter(|(name, _)| name.starts_with(|c: char| c.is_ascii_uppercase()));
    for (event, groups) in events {
        let event = snake_case(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in handlers.into_iter().flatten().enumerate() {
                if !pick(handler) {
                    continue;
                }
                entries.push(TrustEntry {
                    key: format!("{}:{event}:{g}:{h}", path.display()),
                    hash: hash(&event, group.get("matcher"), handler),
                });
            }
        }
    }
    entries
}

/// The `hooks.json` path as Codex 0.171.0 names its trust records: it
/// resolves `CODEX_HOME` to its real path (and leaves `HOME` as it is), so
/// a user file under a moved `CODEX_HOME` is named by its real path.
pub fn codex_record_path(
    settings_path: &Path,
    project: bool,
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> std::path::PathBuf {
    let moved = var("CODEX_HOME").is_some_and(|h| !h.is_empty());
    match !project && moved {
        true => crate::init::real_path(settings_path),
        false => settings_path.to_path_buf(),
    }
}

/// The handlers of `hooks_json` (the parsed `hooks.json` at `path`, named
/// as Codex names it) running `command` that `config` (Codex's
/// `config.toml`, its text; one that does not parse records nothing) does
/// not record as trusted with their current hash: each record's key. Codex
/// skips such a handler silently.
pub fn codex_untrusted(
    path: &Path,
    hooks_json: &Map<String, Value>,
    command: &str,
    config: &str,
) -> Vec<String> {
    let config: DocumentMut = config.parse().unwrap_or_default();
    codex_trust_entries(path, hooks_json, |h| {
        h.get("command").and_then(Value::as_str) == Some(command)
    })
    .into_iter()
    .filter(|entry| {
        config
            .get("hooks")
            .and_then(|h| h.get("state"))
            .and_then(|s| s.get(&entry.key))
            .and_then(|r| r.get("trusted_hash"))
            .and_then(|h| h.as_str())
            != Some(entry.hash.as_str())
    })
    .map(|entry| entry.key)
    .collect()
}

/// Records `entries` in the `config.toml` document `config`, replacing an
/// older hash under the same key and keeping everything else as it was.
/// Returns whether the document changed.
///
/// # Errors
///
/// When `hooks` or `hooks.state` in `config` is not a table.
pub(crate) fn record_codex_trust(
    config: &mut DocumentMut,
    entries: &[TrustEntry],
) -> Result<bool, NotATable> {
    let before = config.to_string();
    let state = implicit_table(config.as_table_mut(), "hooks")?;
    let state = implicit_table(state, "state")?;
    for entry in entries {
        let record = implicit_table(state, &entry.key)?;
        record.set_implicit(false);
        record["trusted_hash"] = toml_edit::value(entry.hash.clone());
    }
    Ok(config.to_string() != before)
}

/// Removes the records of `entries` from the `config.toml` document
/// `config`, and `hooks.state` and `hooks` when they are left empty;
/// returns whether the document changed.
pub(crate) fn forget_codex_trust(config: &mut DocumentMut, entries: &[TrustEntry]) -> bool {
    let Some(hooks) = config.get_mut("hooks").and_then(Item::as_table_mut) else {
        return false;
    };
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_mut) else {
        return false;
    };
    let before = state.len();
    for entry in entries {
        state.remove(&entry.key);
    }
    let changed = state.len() < before;
    if changed && state.is_empty() {
        hooks.remove("state");
        if hooks.is_empty() {
            config.remove("hooks");
        }
    }
    changed
}

/// The sub-table `key` of `table`, created (implicit, so it prints no
/// header of its own) when missing.
fn implicit_table<'t>(table: &'t mut Table, key: &str) -> Result<&'t mut Table, NotATable> {
    let item = table.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut()
        .ok_or_else(|| NotATable { key: key.into() })
}

/// A key of `config.toml` that must hold a table holds something else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotATable {
    /// The key.
    pub key: String,
}

impl std::fmt::Display for NotATable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\" is not a table", self.key)
    }
}

impl std::error::Error for NotATable {}

/// `PreToolUse` → `pre_tool_use`.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Codex's hash of one handler in its group.
fn hash(event: &str, matcher: Option<&Value>, handler: &Value) -> String {
    let field = |k: &str| handler.get(k).cloned();
    let mut normalized = json!({
        "type": field("type").unwrap_or(json!("command")),
        "command": field("command").unwrap_or(Value::Null),
        "timeout": field("timeout").unwrap_or(json!(600)),
        "async": field("async").unwrap_or(json!(false)),
    });
    if let Some(message) = field("statusMessage") {
        normalized["statusMessage"] = message;
    }
    let mut group = json!({"event_name": event, "hooks": [normalized]});
    if let Some(matcher) = matcher.filter(|m| !m.is_null()) {
        group["matcher"] = matcher.clone();
    }
    let digest = Sha256::digest(sorted(&group).to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `value` with every object's keys in byte order (serde_json keeps
/// insertion order here, so inserting sorted is sorting).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exactly(command: &str) -> impl Fn(&Value) -> bool + '_ {
        move |h| h.get("command").and_then(Value::as_str) == Some(command)
    }

    #[test]
    fn snake_case_events() {
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("PostToolUseFailure"), "post_tool_use_failure");
    }

    #[test]
    fn the_hashes_codex_reported() {
        // `codex app-server` 0.171.0, `hooks/list`, for this hooks.json: a
        // two-handler group (each handler hashed alone in its group) and a
        // second event.
        let hooks = json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "other"},
                {"type": "command", "command": "/bin/hookdex hook --target codex", "timeout": 60}]}],
            "PostToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "/bin/hookdex hook --target codex", "timeout": 60}]}]}});
        let path = Path::new("/tmp/ct/home/.codex/hooks.json");
        let entries = codex_trust_entries(
            path,
            hooks.as_object().unwrap(),
            exactly("/bin/hookdex hook --target codex"),
        );
        let expect = |key: &str, hex: &str| TrustEntry {
            key: format!("/tmp/ct/home/.codex/hooks.json:{key}"),
            hash: format!("sha256:{hex}"),
        };
        assert_eq!(
            entries,
            [
                expect(
                    "pre_tool_use:0:1",
                    "f2071f8cfce50c9625581e9bb0d3e103133249f539646bfd84b5f5ddc6c0bcb9"
                ),
                expect(
                    "post_tool_use:0:0",
                    "f77ce66f8499f567b5fa493ea41f546c90226d555fc33017ee9df324a781b826"
                ),
            ]
        );
        let other = hooks["hooks"]["PreToolUse"][0]["hooks"][0].clone();
        assert_eq!(
            hash("pre_tool_use", Some(&json!("Bash")), &other),
            "sha256:e6621106064c00518265b82f59992d260d46ae23908f042147962fe0a83035f1"
        );
    }

    #[test]
    fn entries_name_only_hookdex_handlers_and_keep_other_config() {
        let hooks = json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "/bin/hookdex hook --target codex", "timeout": 60}]},
            // Looks like hookdex's to `init`'s merge, but is not what it wrote.
            {"matcher": "*", "hooks": [{"type": "command", "command": "/tmp/x/hookdex hook --target codex; curl evil"}]}
        ]}});
        let entries = codex_trust_entries(
            Path::new("/h/.codex/hooks.json"),
            hooks.as_object().unwrap(),
            exactly("/bin/hookdex hook --target codex"),
        );
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].key, "/h/.codex/hooks.json:pre_tool_use:1:0");
        let mut config: DocumentMut = "# mine\nmodel = \"m\"\n".parse().unwrap();
        assert!(record_codex_trust(&mut config, &entries).unwrap());
        let text = config.to_string();
        assert!(text.starts_with("# mine\nmodel = \"m\"\n"), "{text}");
        assert!(
            text.contains(
                "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:"
            ),
            "{text}"
        );
        assert!(
            !record_codex_trust(&mut config, &entries).unwrap(),
            "a second run changes nothing"
        );
        assert!(forget_codex_trust(&mut config, &entries));
        assert_eq!(config.to_string(), "# mine\nmodel = \"m\"\n");
        assert!(!forget_codex_trust(&mut config, &entries));
    }

    #[test]
    fn untrusted_entries_are_those_without_their_current_hash() {
        let path = Path::new("/h/.codex/hooks.json");
        let command = "/bin/hookdex hook --target codex";
        let hooks = json!({"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": command}]}
        ]}});
        let hooks = hooks.as_object().unwrap();
        let key = format!("{}:pre_tool_use:0:0", path.display());
        assert_eq!(codex_untrusted(path, hooks, command, ""), vec![key.clone()]);
        let mut config = DocumentMut::new();
        let ours = |h: &Value| h.get("command").and_then(Value::as_str) == Some(command);
        record_codex_trust(&mut config, &codex_trust_entries(path, hooks, ours)).unwrap();
        let config = config.to_string();
        assert!(codex_untrusted(path, hooks, command, &config).is_empty());
        let changed = config.replace("sha256:", "sha256:0");
        assert_eq!(codex_untrusted(path, hooks, command, &changed), vec![key]);
    }
}
