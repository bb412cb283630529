//! Which paths are rule sources (SPEC §13): every layer's `conditions/`
//! (with its `_finders/` and output filters), `hooks.yaml`, `hooks/` and
//! `.moltis/hooks/` folders and `enforcements.json`, and the state that
//! decides what runs (`$HOOKDEX_HOME`, `state.json`, the gate itself). A
//! path touches one when it lies inside one; a folder that holds one counts
//! for what removes, moves or relinks it ([`RuleSources::holds`]).
//!
//! The places are known by name as much as by layer: any `.claude/conditions/`
//! (a bundle's or a profile's), any repository's `.agentihooks/` and
//! `.hookdex/`, any `.moltis/hooks/`, any `enforcements.json`; and by the
//! view: `$HOOKDEX_HOME`, the managed directory, the repository's own
//! folders, `~/.moltis/hooks`, rtk's user filters. No file is read to
//! decide.

use std::path::{Component, Path, PathBuf};

use hookdex_compiler::View;

/// The rule sources of one view.
#[derive(Clone, Debug)]
pub struct RuleSources {
    /// Folders and files that are rule sources whole.
    roots: Vec<PathBuf>,
}

impl RuleSources {
    /// The rule sources `view` reads.
    pub fn of(view: &View) -> RuleSources {
        let mut roots = vec![view.home.clone(), view.managed_dir.clone()];
        if let Some(repo) = &view.repo_root {
            for folder in [".agentihooks", ".hookdex", ".moltis/hooks", ".rtk"] {
                roots.push(repo.join(folder));
            }
        }
        if let Some(user) = &view.git_user.home {
            roots.push(user.join(".moltis/hooks"));
        }
        if let Some(bundle) = &view.bundle_override {
            roots.push(bundle.join(".claude/conditions"));
            roots.push(bundle.join("profiles"));
            roots.push(bundle.join("enforcements.json"));
        }
        roots.extend(view.rtk_user_filters.clone());
        let roots = roots.iter().map(|r| resolved(r)).collect();
        RuleSources { roots }
    }

    /// Whether `path` (absolute, resolved) is a rule source or lies in one.
    pub fn touches(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root)) || by_name(path)
    }

    /// Whether `path` is a folder that holds a rule source of the view (or
    /// is one): what removing, moving or relinking it takes along.
    pub fn holds(&self, path: &Path) -> bool {
        self.touches(path) || self.roots.iter().any(|root| root.starts_with(path))
    }
}

/// Whether `path` is in a rule folder by its names alone: a
/// `.claude/conditions`, `.agentihooks`, `.hookdex` or `.moltis/hooks`
/// folder, or an `enforcements.json`.
fn by_name(path: &Path) -> bool {
    let names: Vec<&std::ffi::OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    names.windows(2).any(|pair| {
        matches!(
            (pair[0].to_str(), pair[1].to_str()),
            (Some(".claude"), Some("conditions")) | (Some(".moltis"), Some("hooks"))
        )
    }) || names.iter().any(|n| {
        matches!(
            n.to_str(),
            Some(".agentihooks" | ".hookdex" | "enforcements.json")
        )
    })
}

/// `path` made absolute against `cwd`, `.` and `..` taken lexically, and
/// the longest part of it that exists resolved through its links: where
/// a write to it lands.
pub fn resolve_in(cwd: &Path, path: &str) -> PathBuf {
    let joined = cwd.join(path);
    resolved(&joined)
}

/// `path` with its existing part's links resolved (see [`resolve_in`]).
fn resolved(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    let mut existing = clean.clone();
    let mut rest = Vec::new();
    while !existing.as_os_str().is_empty() {
        if let Ok(real) = existing.canonicalize() {
            return rest
                .iter()
                .rev()
                .fold(real, |p, part: &std::ffi::OsString| p.join(part));
        }
        match existing.file_name() {
            Some(name) => rest.push(name.to_os_string()),
            None => break,
        }
        existing.pop();
    }
    clean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_folders_by_name_and_by_view() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        let vars = |name: &str| match name {
            "HOME" => Some(root.join("home").into_os_string()),
            "HOOKDEX_HOME" => Some(root.join("hh").into_os_string()),
            _ => None,
        };
        let view = View::from_vars(hookdex_model::Target::Claude, &root.join("repo"), vars);
        let sources = RuleSources::of(&view);
        let cwd = root.join("repo");
        let touches = |p: &str| sources.touches(&resolve_in(&cwd, p));
        assert!(touches(".hookdex/conditions/pre-bash-x.sh"));
        assert!(touches("./.agentihooks/enforcements.json"));
        assert!(touches("src/../.moltis/hooks/x/HOOK.md"));
        assert!(touches("/anywhere/bundle/.claude/conditions/pre-any-x.sh"));
        assert!(touches("/anywhere/enforcements.json"));
        assert!(touches(&format!("{}/hh/hooks.yaml", root.display())));
        assert!(touches(&format!("{}/home/.moltis/hooks", root.display())));
        // A folder that holds one: removing it takes the rules along.
        assert!(!touches("."));
        assert!(sources.holds(&resolve_in(&cwd, ".")));
        assert!(sources.holds(&resolve_in(&cwd, "..")));
        assert!(!sources.holds(&resolve_in(&cwd, "src")));
        assert!(!touches("src/main.rs"));
        assert!(!touches("/tmp/conditions/x"));
        assert!(!touches(".claude/settings.json"));
        // A link into a rule folder is where the write lands.
        std::fs::create_dir_all(root.join("repo/.hookdex/conditions")).unwrap();
        std::os::unix::fs::symlink(
            root.join("repo/.hookdex/conditions"),
            root.join("repo/innocent"),
        )
        .unwrap();
        assert!(touches("innocent/pre-bash-x.sh"));
    }
}
