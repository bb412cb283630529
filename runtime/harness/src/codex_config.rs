//! Codex's `config.toml` as `hookdex init` edits it: the hooks feature
//! switched on where it was switched off, hookdex's handlers recorded as
//! trusted (Codex 0.171.0 skips untrusted hooks silently, see
//! [`codex_trust`](crate::codex_trust)), and `hookdex mcp` registered under
//! `[mcp_servers.hookdex]`. Everything else in the file is kept.

use std::path::PathBuf;

use hookdex_model::Target;
use toml_edit::{DocumentMut, Item, Table};

use serde_json::Value;

use crate::codex_trust::{
    codex_record_path, codex_trust_entries, forget_codex_trust, record_codex_trust,
};
use crate::init::{foreign_server_note, registered_note, ConfigFile, InitRequest};
use crate::settings::{runs_hook, runs_mcp};
use crate::{harness, NotATable};

/// The comment `init` leaves on a `[features]` flag it switched on, so
/// `--remove` knows to switch it back off.
const SWITCHED: &str = " # switched on by `hookdex init`; `hookdex init --remove` turns it off";

/// Codex's `config.toml`, beside its user `hooks.json`.
pub(crate) struct CodexConfig;

impl ConfigFile for CodexConfig {
    fn path(&self, request: &InitRequest<'_>) -> Option<PathBuf> {
        let user = harness(Target::Codex).settings().user_path(request.var)?;
        std::path::absolute(user.with_file_name("config.toml")).ok()
    }

    fn edit(
        &self,
        request: &InitRequest<'_>,
        doc: &mut DocumentMut,
    ) -> Result<Vec<String>, NotATable> {
        let mut notes = Vec::new();
        for flag in ["hooks", "codex_hooks"] {
            let off = doc
                .get("features")
                .and_then(|f| f.get(flag))
                .and_then(|v| v.as_bool());
            if off == Some(false) {
                let mut on = toml_edit::value(true);
                if let Some(value) = on.as_value_mut() {
                    value.decor_mut().set_suffix(SWITCHED);
                }
                doc["features"][flag] = on;
                notes.push(format!(
                    "switched [features] {flag} on: Codex runs no hooks without it"
                ));
            }
        }
        if request.trust {
            let named = codex_record_path(request.settings_path, request.project, request.var);
            let command = request.command;
            let entries = codex_trust_entries(&named, request.settings, |h| {
                h.get("command").and_then(Value::as_str) == Some(command)
            });
            let changed = record_codex_trust(doc, &entries)?;
            let path = self.path(request).unwrap_or_default();
            let already = if changed { "" } else { "already " };
            notes.push(format!(
                "{already}trusted hookdex's {} hook handlers in {}: Codex skips untrusted hooks \
                 silently (--no-trust leaves them to Codex's own review)",
                entries.len(),
                path.display()
            ));
        } else {
            notes.push(
                "note: Codex skips these hooks until you trust them (its /hooks review), or \
                 rerun init without --no-trust"
                    .into(),
            );
        }
        let before = doc
            .get("mcp_servers")
            .and_then(|s| s.get("hookdex"))
            .map(|s| s.to_string());
        register_mcp(doc, request.exe, request.env)?;
        let after = doc
            .get("mcp_servers")
            .and_then(|s| s.get("hookdex"))
            .map(|s| s.to_string());
        notes.push(registered_note(
            before != after,
            &self.path(request).unwrap_or_default(),
            &format!("[mcp_servers.hookdex]: {} mcp --target codex", request.exe),
        ));
        Ok(notes)
    }

    fn remove(
        &self,
        request: &InitRequest<'_>,
        doc: &mut DocumentMut,
    ) -> Result<Vec<String>, NotATable> {
        let named = codex_record_path(request.settings_path, request.project, request.var);
        let ours = |h: &Value| runs_hook(h, Target::Codex, request.exe);
        let entries = codex_trust_entries(&named, request.settings, ours);
        let mut notes = Vec::new();
        if forget_codex_trust(doc, &entries) {
            notes.push(format!(
                "forgot Codex's trust records for hookdex's hook handlers in {}",
                self.path(request).unwrap_or_default().display()
            ));
        }
        // A flag `init` switched on carries its mark and goes back off; one
        // that was on before is the person's, and stays.
        for flag in ["hooks", "codex_hooks"] {
            let Some(value) = doc
                .get_mut("features")
                .and_then(|f| f.get_mut(flag))
                .and_then(Item::as_value_mut)
                .filter(|v| v.as_bool() == Some(true))
            else {
                continue;
            };
            if value.decor().suffix().and_then(|s| s.as_str()) == Some(SWITCHED) {
                *value = false.into();
                notes.push(format!(
                    "switched [features] {flag} back off in {}, as it was before init",
                    self.path(request).unwrap_or_default().display()
                ));
            }
        }
        // The server in the user's file serves every scope: a project's
        // removal leaves it to the user's.
        let servers = doc
            .get_mut("mcp_servers")
            .and_then(Item::as_table_like_mut)
            .filter(|_| !request.project);
        if let Some(servers) = servers {
            let server = servers.get("hookdex");
            let command = server.and_then(|s| s.get("command")?.as_str());
            let args: Vec<&str> = server
                .and_then(|s| s.get("args")?.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            match command {
                Some(command) if runs_mcp(command, &args, request.exe) => {
                    servers.remove("hookdex");
                    if servers.is_empty() {
                        doc.remove("mcp_servers");
                    }
                }
                _ if server.is_some() => notes.push(foreign_server_note(
                    &self.path(request).unwrap_or_default(),
                    "[mcp_servers.hookdex]",
                )),
                _ => {}
            }
        }
        Ok(notes)
    }
}

/// `[mcp_servers.hookdex]`: `hookdex mcp`, with hookdex's variables,
/// keeping every other server.
fn register_mcp(
    doc: &mut DocumentMut,
    exe: &str,
    env: &[(String, String)],
) -> Result<(), NotATable> {
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_like_mut()
        .ok_or_else(|| NotATable {
            key: "mcp_servers".into(),
        })?;
    let mut server = Table::new();
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
    servers.insert("hookdex", Item::Table(server));
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Map;

    use super::*;

    fn request<'a>(settings: &'a Map<String, serde_json::Value>, trust: bool) -> InitRequest<'a> {
        InitRequest {
            project: false,
            settings_path: Path::new("/home/u/.codex/hooks.json"),
            settings,
            exe: "/bin/hookdex",
            command: "/bin/hookdex hook --target codex",
            env: &[],
            trust,
            var: &|name| (name == "HOME").then(|| "/home/u".into()),
        }
    }

    #[test]
    fn registers_the_server_and_keeps_the_rest() {
        let settings = Map::new();
        let mut doc: DocumentMut = "model = \"o4\" # mine\n[mcp_servers.other]\ncommand = \"x\"\n"
            .parse()
            .unwrap();
        let notes = CodexConfig
            .edit(&request(&settings, false), &mut doc)
            .unwrap();
        let text = doc.to_string();
        assert!(text.contains("model = \"o4\" # mine"), "{text}");
        assert!(text.contains("[mcp_servers.other]"), "{text}");
        assert!(text.contains("[mcp_servers.hookdex]"), "{text}");
        assert!(notes[0].contains("--no-trust"), "{notes:?}");
        assert_eq!(
            CodexConfig.path(&request(&settings, false)),
            Some("/home/u/.codex/config.toml".into())
        );
    }

    #[test]
    fn remove_takes_out_the_records_and_the_server_and_nothing_else() {
        let hooks = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "/bin/hookdex hook --target codex", "timeout": 60}]}]}});
        let settings = hooks.as_object().unwrap().clone();
        let mine = "model = \"o4\" # mine\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let mut doc: DocumentMut = mine.parse().unwrap();
        let notes = CodexConfig
            .edit(&request(&settings, true), &mut doc)
            .unwrap();
        assert!(
            notes[0].starts_with("trusted hookdex's 1 hook handlers"),
            "{notes:?}"
        );
        assert!(doc.to_string().contains("trusted_hash"));
        let again = CodexConfig
            .edit(&request(&settings, true), &mut doc)
            .unwrap();
        assert!(again[0].starts_with("already trusted"), "{again:?}");
        let notes = CodexConfig
            .remove(&request(&settings, true), &mut doc)
            .unwrap();
        assert_eq!(doc.to_string(), mine);
        assert!(
            notes[0].starts_with("forgot Codex's trust records"),
            "{notes:?}"
        );
    }

    #[test]
    fn a_server_list_that_is_not_a_table_is_refused() {
        let settings = Map::new();
        let mut doc: DocumentMut = "mcp_servers = 3\n".parse().unwrap();
        let err = CodexConfig
            .edit(&request(&settings, false), &mut doc)
            .unwrap_err();
        assert_eq!(err.key, "mcp_servers");
    }
}
