//! Claude Code's own `permissions.deny` and `permissions.ask` Bash rules
//! (`Bash(kubectl delete:*)`, `Bash(git push)`), read as declarative guards
//! when the person opts in (`HOOKDEX_CLAUDE_PERMISSIONS=1`): Claude Code
//! matches them by prefix on the command line, so `kubectl -n prod delete`
//! or `bash -c 'kubectl delete …'` walk past them; as guards they are
//! judged per simple command by the splitter, past the options, and at exec
//! time by the kernel.
//!
//! One guard per program and settings file, named
//! `pre-bash.<cli>-claude_<file>_permissions` (`user`, `project`, `local`,
//! `managed`: distinct, so no file's rules replace another's), with
//! the rule's words after the program as its entries (a prefix, as every
//! guard entry is: `Bash(git push)` also stops `git push --force`, which
//! is stricter than Claude Code's exact match and never wider). A rule
//! whose words are options (`Bash(rm -rf:*)`), hold a wildcard elsewhere
//! than at the end, or name no program is listed as not judged here:
//! Claude Code still judges it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::Permission;
use serde_json::{json, Value};

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::{classify, FileClass};
use crate::formats::source::read_source;
use crate::formats::{guard, RuleSpec};

/// What one settings file gave.
#[derive(Debug, Default)]
pub struct Scanned {
    /// One guard per program its rules name.
    pub rules: Vec<RuleSpec>,
    /// The rules not judged here, and a file that cannot be read.
    pub invalid: Vec<RuleError>,
    /// The file, stamped.
    pub stamps: Vec<(PathBuf, Stamp)>,
}

/// Reads the `permissions` of the Claude Code settings file `file` (which
/// must not leave `root`), its guards named for `which` (`user`,
/// `project`, `local`, `managed`); an absent file gives nothing.
pub fn scan(file: &Path, root: &Path, which: &str, dir_index: usize) -> Scanned {
    let mut scanned = Scanned::default();
    let Some(text) = read_source(file, root, &mut scanned.stamps, &mut scanned.invalid) else {
        return scanned;
    };
    let shown = file.display().to_string();
    let settings: Value = match serde_json::from_str(&text) {
        Ok(settings) => settings,
        Err(e) => {
            let kind = RuleErrorKind::Syntax(format!("not JSON: {e}"));
            scanned.invalid.push(RuleError::new(shown, kind));
            return scanned;
        }
    };
    // program → (decision, words) in the file's order.
    let mut by_program: BTreeMap<String, Vec<(Permission, String)>> = BTreeMap::new();
    for (key, decision) in [("deny", Permission::Deny), ("ask", Permission::Ask)] {
        let rules = settings
            .pointer(&format!("/permissions/{key}"))
            .and_then(Value::as_array);
        for rule in rules.into_iter().flatten().filter_map(Value::as_str) {
            let Some(inner) = rule.strip_prefix("Bash(").and_then(|r| r.strip_suffix(')')) else {
                continue;
            };
            match entry(inner) {
                Ok((program, words)) => by_program
                    .entry(program)
                    .or_default()
                    .push((decision, words)),
                Err(why) => scanned.invalid.push(RuleError::new(
                    shown.clone(),
                    RuleErrorKind::Key {
                        key: format!("permissions.{key}"),
                        reason: format!("`{rule}` is not judged by hookdex ({why}); Claude Code still judges it"),
                    },
                )),
            }
        }
    }
    for (program, entries) in by_program {
        match guard_rule(&shown, &program, which, &entries, dir_index) {
            Ok(rule) => scanned.rules.push(rule),
            Err(kind) => scanned.invalid.push(RuleError::new(shown.clone(), kind)),
        }
    }
    scanned
}

/// The program and the words after it of a rule's inside (`kubectl
/// delete:*` → `kubectl`, `delete`), or why hookdex does not judge it.
fn entry(inner: &str) -> Result<(String, String), &'static str> {
    let prefix = inner.strip_suffix(":*").unwrap_or(inner);
    let prefix = prefix.strip_suffix(" *").unwrap_or(prefix);
    let mut words = prefix.split_whitespace();
    let program = words.next().ok_or("it names no program")?;
    let words: Vec<&str> = words.collect();
    let plain = |w: &str| {
        !w.contains([
            '*', '?', '$', '`', '\'', '"', ';', '&', '|', '<', '>', '(', ')',
        ])
    };
    if !plain(program) || program.contains('/') {
        return Err("its program is not one plain name");
    }
    if words.is_empty() {
        return Err("it names the program alone, which Claude Code's own rule covers");
    }
    if words.iter().any(|w| w.starts_with('-')) {
        return Err("its words are options, and a guard judges subcommand words");
    }
    if !words.iter().all(|w| plain(w)) {
        return Err("a word holds a wildcard or shell syntax");
    }
    Ok((program.to_ascii_lowercase(), words.join(" ")))
}

/// The guard of `program` with `entries`, as a rule of the settings file
/// `shown`.
fn guard_rule(
    shown: &str,
    program: &str,
    which: &str,
    entries: &[(Permission, String)],
    dir_index: usize,
) -> Result<RuleSpec, RuleErrorKind> {
    let file_name = format!("pre-bash.{program}-claude_{which}_permissions.guard.yaml");
    let name = match classify(&file_name) {
        FileClass::Rule(name) => name,
        _ => {
            return Err(RuleErrorKind::Key {
                key: "permissions".into(),
                reason: format!("`{program}` cannot name a `bash.<cli>` matcher"),
            })
        }
    };
    let of = |want: Permission| -> Vec<&str> {
        entries
            .iter()
            .filter(|(d, _)| *d == want)
            .map(|(_, w)| w.as_str())
            .collect()
    };
    // JSON is YAML: the guard compiles through its own format.
    let body = json!({
        "reason": format!("Claude Code's permissions in {shown} say so"),
        "deny": of(Permission::Deny),
        "ask": of(Permission::Ask),
    });
    let guard = guard::compile(&name, &body.to_string()).map_err(|(kind, _)| kind)?;
    Ok(RuleSpec {
        file: shown.to_string(),
        file_name,
        dir_index,
        name,
        runner: hookdex_model::Runner::None,
        filter: None,
        enforcement: None,
        hook: None,
        guard: Some(Box::new(guard)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_rules_become_one_guard_per_program() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("settings.json");
        std::fs::write(
            &file,
            r#"{"permissions": {
                "deny": ["Bash(kubectl delete:*)", "Bash(git push)", "Read(./.env)", "Bash(rm -rf:*)", "Bash(kubectl rollout restart *)"],
                "ask": ["Bash(git reset:*)", "Bash(curl:*)"]
            }, "env": {"X": "1"}}"#,
        )
        .unwrap();
        let scanned = scan(&file, root.path(), "user", 0);
        let names: Vec<&str> = scanned.rules.iter().map(|r| r.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pre-bash.git-claude_user_permissions.guard.yaml",
                "pre-bash.kubectl-claude_user_permissions.guard.yaml"
            ]
        );
        let git = scanned.rules[0].guard.as_ref().unwrap();
        let texts: Vec<(&str, Permission)> = git
            .entries
            .iter()
            .map(|e| (e.text.as_str(), e.decision))
            .collect();
        assert_eq!(
            texts,
            [("push", Permission::Deny), ("reset", Permission::Ask)]
        );
        let kubectl = scanned.rules[1].guard.as_ref().unwrap();
        assert_eq!(kubectl.entries.len(), 2);
        let reasons: Vec<String> = scanned.invalid.iter().map(|e| e.to_string()).collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(
            reasons[0].contains("`Bash(rm -rf:*)` is not judged by hookdex (its words are options"),
            "{reasons:?}"
        );
        assert!(
            reasons[1]
                .contains("`Bash(curl:*)` is not judged by hookdex (it names the program alone"),
            "{reasons:?}"
        );
    }

    #[test]
    fn an_absent_file_gives_nothing_and_a_broken_one_is_listed() {
        let root = tempfile::tempdir().unwrap();
        let none = scan(&root.path().join("none.json"), root.path(), "user", 0);
        assert!(none.rules.is_empty() && none.invalid.is_empty());
        let file = root.path().join("settings.json");
        std::fs::write(&file, "{").unwrap();
        let scanned = scan(&file, root.path(), "user", 0);
        assert!(scanned.invalid[0].to_string().contains("not JSON"));
    }
}
