//! `hookdex trust [PATH]`, `hookdex trust --revoke [PATH]` and `hookdex
//! trust --list`: the person's decision on a repository's own rules,
//! recorded in the trust store outside every repository
//! (`$HOOKDEX_HOME/trust/`), and what the store remembers of each root.

use std::path::{Path, PathBuf};

use hookdex_compiler::sources::find_repo_root;
use hookdex_compiler::sources::trust::seen_now;
use hookdex_compiler::sources::trust_store::{canonical, Entry, Identity, TrustStore};
use hookdex_compiler::View;
use hookdex_model::{Decision, Target};
use serde_json::json;

use super::{print_json, CmdResult};

/// What `hookdex trust` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Trust the repository's rules, whatever its owners.
    Trust,
    /// Never run them, whatever its owners.
    Revoke,
    /// List what the store holds.
    List,
}

/// Runs `hookdex trust` for `path` (default: the current directory).
pub fn run(action: Action, path: Option<PathBuf>, json: bool) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    // The target only names an index file; the store is the same for all.
    let view = View::from_vars(Target::Claude, &cwd, |name| std::env::var_os(name));
    let store = TrustStore::of(&view.home);
    if action == Action::List {
        return list(&store, json);
    }
    let asked = match path {
        Some(path) => {
            std::path::absolute(&path).map_err(|e| format!("`{}`: {e}", path.display()))?
        }
        None => cwd,
    };
    // A typo must not fall through to the repository around it.
    if !asked.is_dir() {
        return Err(format!("`{}` is not a directory", asked.display()).into());
    }
    let root = root_of(&asked, &store)?;
    let (ids, shown, seen) = seen_now(&root, &view.git_user);
    let decision = match action {
        Action::Revoke => Decision::Revoked,
        _ => Decision::Trusted,
    };
    // Under every identity, so a revocation holds whichever path or move
    // reaches the repository next, and a trust replaces one.
    let mut entry = Entry::default();
    for id in &ids {
        let written = store
            .decide(id, &shown, decision, &seen)
            .map_err(|e| e.to_string())?;
        if *id == Identity::Path(shown.clone()) {
            entry = written;
        }
    }
    if json {
        print_json(&entry_json(&entry));
    } else {
        let done = match decision {
            Decision::Revoked => "revoked: its rules never run",
            _ => "trusted: its rules run",
        };
        println!("{} {done} (owners seen: {})", entry.root, owners(&entry));
    }
    Ok(0)
}

/// The repository root at or above `path`; a folder the store already
/// knows (a repository whose `.git` is gone) stands for itself.
fn root_of(path: &Path, store: &TrustStore) -> Result<PathBuf, String> {
    if let Some(root) = find_repo_root(path) {
        return Ok(root);
    }
    match store.read(&Identity::Path(canonical(path))) {
        Ok(Some(_)) => Ok(path.to_path_buf()),
        _ => Err(format!(
            "`{}` is not in a git repository (no `.git` at or above it)",
            path.display()
        )),
    }
}

fn list(store: &TrustStore, json: bool) -> CmdResult {
    let entries = store.list();
    if json {
        let roots: Vec<_> = entries
            .iter()
            .map(|(file, entry)| match entry {
                Ok(entry) => entry_json(entry),
                Err(e) => json!({"file": file, "error": e.to_string()}),
            })
            .collect();
        print_json(&json!({"store": store.dir(), "roots": roots}));
        return Ok(0);
    }
    if entries.is_empty() {
        println!("no repository seen yet ({})", store.dir().display());
    }
    for (_, entry) in entries {
        match entry {
            Ok(entry) => {
                let decision = match entry.decision() {
                    Decision::Trusted => "trusted",
                    Decision::Revoked => "revoked",
                    Decision::Owners => "by owners",
                };
                println!(
                    "{decision:<9}  {}  (owners seen: {})",
                    entry.root,
                    owners(&entry)
                );
            }
            Err(e) => println!("unreadable  {e}"),
        }
    }
    Ok(0)
}

fn owners(entry: &Entry) -> String {
    let names: Vec<&str> = entry
        .seen
        .iter()
        .map(|o| o.as_deref().unwrap_or("no remote"))
        .collect();
    match names.is_empty() {
        true => "none".into(),
        false => names.join(", "),
    }
}

fn entry_json(entry: &Entry) -> serde_json::Value {
    let decision = match entry.decision() {
        Decision::Trusted => "trust",
        Decision::Revoked => "revoke",
        Decision::Owners => "owners",
    };
    json!({
        "root": entry.root,
        "decision": decision,
        "decided_at_ms": entry.decided_at_ms,
        "seen": entry.seen,
    })
}
