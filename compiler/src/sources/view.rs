//! Where things live for one hook call: `$HOOKDEX_HOME`, the cache directory,
//! the managed directory, the repository root, the user's git config files,
//! and the key that names the index file for that view; and the trusted
//! owners the directory layer's trust verdict is taken against.
//!
//! Computing a view stats `.git` upward from the working directory and the
//! system managed directory, and reads environment variables; it never lists
//! a directory or parses a file.
//!
//! A view of [`Scope::Managed`] holds the managed directory alone: what an
//! administrator compiles into that directory (`hookdex compile --managed`)
//! so the managed layer never depends on bytes the user can write.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hookdex_model::{Target, Trust};

use crate::sources::git::GitUser;
use crate::sources::package;

/// The managed directory when `HOOKDEX_MANAGED_DIR` is not set, and the one
/// that holds whatever it says while another user (the administrator) owns
/// it: a variable the user can set cannot move a managed layer away.
pub const SYSTEM_MANAGED_DIR: &str = "/etc/hookdex";

/// Which layers a view compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every layer, into the user's cache.
    Every,
    /// The managed layer alone, into the managed directory.
    Managed,
}

/// The inputs that decide which rules apply, and so which index file answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Which layers it compiles.
    pub scope: Scope,
    /// The harness the index is for.
    pub target: Target,
    /// `$HOOKDEX_HOME` (default `~/.hookdex`): `state.json`, `conditions/`, `logs/`.
    pub home: PathBuf,
    /// `$HOOKDEX_CACHE_DIR` (default `$XDG_CACHE_HOME/hookdex`, else `~/.cache/hookdex`).
    pub cache_dir: PathBuf,
    /// `$HOOKDEX_MANAGED_DIR` (default `/etc/hookdex`).
    pub managed_dir: PathBuf,
    /// The owner of [`View::managed_dir`] when it exists, read with the view
    /// from the same stat that chose the directory where it could be.
    pub managed_dir_owner: Option<u32>,
    /// `$HOOKDEX_BUNDLE`, which overrides the bundle of `state.json`.
    pub bundle_override: Option<PathBuf>,
    /// `$HOOKDEX_PROFILES` (comma list), which overrides the profile chain of `state.json`.
    pub profiles_override: Option<String>,
    /// The root of the git repository the working directory is in, if any.
    pub repo_root: Option<PathBuf>,
    /// `$HOME` and the global git config files (`$XDG_CONFIG_HOME/git/config`,
    /// default `~/.config/git/config`, then `~/.gitconfig`), whose
    /// `insteadOf` rewrites apply to `origin`.
    pub git_user: GitUser,
    /// `CONDITIONS_TRUSTED_OWNERS`, as given. Not part of the [key](View::key):
    /// trust is decided at each lookup, so changing it takes effect on the
    /// next call with the same index file. The compiler reads it only to
    /// decide whether an untrusted repository's rule files are opened at all.
    pub trusted_owners: String,
    /// rtk's user filter file, `$XDG_CONFIG_HOME/rtk/filters.toml` (default
    /// `~/.config/rtk/filters.toml`): its output filters join the runtime
    /// layer's.
    pub rtk_user_filters: Option<PathBuf>,
    /// `HOOKDEX_ALLOW_PROJECT_HOOKS` (`1` or `true`): a trusted
    /// repository's `.hookdex/hooks.yaml` is read even when the global
    /// `hooks.yaml` does not say `allow_project_hooks: true`.
    pub allow_project_hooks: bool,
    /// `HOOKDEX_BIOROUTER` (`1` or `true`): BioRouter's hooks are read in
    /// place — the top-level `hooks:` of this file,
    /// `$XDG_CONFIG_HOME/biorouter/config.yaml` (default
    /// `~/.config/biorouter/config.yaml`), in the runtime layer, and a
    /// trusted repository's `.biorouter/hooks.yaml` in the directory layer
    /// (when project hooks are allowed). `None` when not asked for.
    pub biorouter_config: Option<PathBuf>,
    /// `HOOKDEX_CLAUDE_PERMISSIONS` (`1` or `true`): Claude Code's
    /// `permissions.deny`/`ask` Bash rules are read as guards from this
    /// folder's `settings.json` (`$CLAUDE_CONFIG_DIR`, default `~/.claude`)
    /// in the runtime layer, and from a trusted repository's
    /// `.claude/settings.json` and `.claude/settings.local.json` in the
    /// directory layer. `None` when not asked for.
    pub claude_config: Option<PathBuf>,
}

impl View {
    /// The view for a call made in `cwd`, reading variables through `var`.
    pub fn from_vars(target: Target, cwd: &Path, var: impl Fn(&str) -> Option<OsString>) -> View {
        let nonempty = |name: &str| var(name).filter(|v| !v.is_empty());
        let home_var = nonempty("HOME").map(|h| absolute(Path::new(&h)));
        let user_home = home_var.clone().unwrap_or_else(|| PathBuf::from("/"));
        let xdg_config = nonempty("XDG_CONFIG_HOME")
            .map(|d| absolute(Path::new(&d)))
            .or_else(|| home_var.as_ref().map(|h| h.join(".config")));
        let rtk_user_filters = xdg_config
            .as_ref()
            .map(|d| d.join("rtk").join(crate::formats::outfilter::RTK_FILE));
        let biorouter_config = xdg_config
            .as_ref()
            .filter(|_| nonempty("HOOKDEX_BIOROUTER").is_some_and(|v| yes(&v)))
            .map(|d| d.join("biorouter").join("config.yaml"));
        let claude_config = nonempty("HOOKDEX_CLAUDE_PERMISSIONS")
            .filter(|v| yes(v))
            .and_then(|_| {
                nonempty("CLAUDE_CONFIG_DIR")
                    .map(|d| absolute(Path::new(&d)))
                    .or_else(|| home_var.as_ref().map(|h| h.join(".claude")))
            });
        let git_user = GitUser {
            globals: xdg_config
                .map(|d| d.join("git").join("config"))
                .into_iter()
                .chain(home_var.as_ref().map(|h| h.join(".gitconfig")))
                .collect(),
            home: home_var,
        };
        let home = nonempty("HOOKDEX_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| user_home.join(".hookdex"));
        let cache_dir = nonempty("HOOKDEX_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| nonempty("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("hookdex")))
            .unwrap_or_else(|| user_home.join(".cache").join("hookdex"));
        let (managed_dir, managed_dir_owner) = managed_dir(
            nonempty("HOOKDEX_MANAGED_DIR").map(PathBuf::from),
            Path::new(SYSTEM_MANAGED_DIR),
            hookdex_index::current_user(),
        );
        let cwd = absolute(cwd);
        View {
            scope: Scope::Every,
            target,
            home: absolute(&home),
            cache_dir: absolute(&cache_dir),
            managed_dir: absolute(&managed_dir),
            managed_dir_owner,
            bundle_override: nonempty("HOOKDEX_BUNDLE").map(|b| absolute(Path::new(&b))),
            profiles_override: nonempty("HOOKDEX_PROFILES")
                .map(|p| p.to_string_lossy().into_owned()),
            repo_root: find_repo_root(&cwd),
            git_user,
            trusted_owners: var("CONDITIONS_TRUSTED_OWNERS")
                .map(|v| v.to_string_lossy().trim().to_string())
                .unwrap_or_default(),
            rtk_user_filters,
            allow_project_hooks: nonempty("HOOKDEX_ALLOW_PROJECT_HOOKS").is_some_and(|v| yes(&v)),
            biorouter_config,
            claude_config,
        }
    }

    /// The view of this one's managed directory alone ([`Scope::Managed`]),
    /// whose index lives in that directory.
    pub fn managed_only(&self) -> View {
        View {
            scope: Scope::Managed,
            target: self.target,
            home: self.managed_dir.clone(),
            cache_dir: self.managed_dir.clone(),
            managed_dir: self.managed_dir.clone(),
            managed_dir_owner: self.managed_dir_owner,
            bundle_override: None,
            profiles_override: None,
            repo_root: None,
            git_user: GitUser::default(),
            trusted_owners: self.trusted_owners.clone(),
            rtk_user_filters: None,
            allow_project_hooks: false,
            biorouter_config: None,
            claude_config: None,
        }
    }

    /// The owner of the managed directory when it exists and is not the
    /// user running this process: then its layer is the administrator's,
    /// and must run from their index, never from the user's cache.
    pub fn managed_owner(&self) -> Option<u32> {
        let owner = self.managed_dir_owner?;
        (owner != hookdex_index::current_user()).then_some(owner)
    }

    /// The directory layer's trust verdict for a repository whose trust
    /// facts are `record` (`hookdex_model::TrustRecord` text, `None`
    /// outside a repository), with the bundle's recorded origin
    /// `bundle_owner` (a `hookdex_model::RecordedOrigin` string), under
    /// this view's trusted owners.
    pub fn trust(&self, record: Option<&str>, bundle_owner: Option<&str>) -> Trust {
        Trust::of_record(record, bundle_owner, &self.trusted_owners)
    }

    /// The xxh3 key of everything that selects the rule set (the package
    /// rules' own hash included), so two views share an index file exactly
    /// when they would compile the same one, but for the trusted owners: an
    /// index that listed an untrusted repository by name is recompiled by
    /// the first lookup that trusts it.
    pub fn key(&self) -> u64 {
        let mut input = Vec::with_capacity(256);
        let mut push = |part: &[u8]| {
            input.extend_from_slice(&(part.len() as u64).to_le_bytes());
            input.extend_from_slice(part);
        };
        push(env!("CARGO_PKG_VERSION").as_bytes());
        push(match self.scope {
            Scope::Every => b"every",
            Scope::Managed => b"managed",
        });
        push(&package::PACKAGE_HASH.to_le_bytes());
        push(self.target.as_str().as_bytes());
        push(self.home.as_os_str().as_encoded_bytes());
        push(opt_bytes(self.bundle_override.as_deref()));
        push(self.profiles_override.as_deref().unwrap_or("\0").as_bytes());
        push(opt_bytes(self.repo_root.as_deref()));
        push(self.managed_dir.as_os_str().as_encoded_bytes());
        push(opt_bytes(self.git_user.home.as_deref()));
        for global in &self.git_user.globals {
            push(global.as_os_str().as_encoded_bytes());
        }
        push(opt_bytes(self.rtk_user_filters.as_deref()));
        push(&[u8::from(self.allow_project_hooks)]);
        push(opt_bytes(self.biorouter_config.as_deref()));
        push(opt_bytes(self.claude_config.as_deref()));
        xxhash_rust::xxh3::xxh3_64(&input)
    }

    /// The index file for this view: `<cache>/index-<target>-<key>.hdx`, or
    /// `<managed dir>/index-<target>.hdx` for the managed layer alone (one
    /// per target, rewritten by each `hookdex compile --managed`).
    pub fn index_path(&self) -> PathBuf {
        match self.scope {
            Scope::Every => {
                self.cache_dir
                    .join(format!("index-{}-{:016x}.hdx", self.target, self.key()))
            }
            Scope::Managed => self.managed_dir.join(format!("index-{}.hdx", self.target)),
        }
    }

    /// The permission bits of this view's index file: the user's alone in
    /// their cache; readable by every user for the managed layer.
    pub fn index_mode(&self) -> u32 {
        match self.scope {
            Scope::Every => 0o600,
            Scope::Managed => 0o644,
        }
    }

    /// agentihooks' own home, `~/.agentihooks`, whose `conditions/` and
    /// `enforcements.json` the runtime layer reads first (so
    /// `$HOOKDEX_HOME`'s win a shared key) — unless `$HOOKDEX_HOME` is it.
    pub fn agentihooks_home(&self) -> Option<PathBuf> {
        let dir = self.git_user.home.as_ref()?.join(".agentihooks");
        (dir != self.home).then_some(dir)
    }

    /// `$HOOKDEX_HOME/state.json`.
    pub fn state_path(&self) -> PathBuf {
        self.home.join("state.json")
    }
}

/// The managed directory and its owner when it exists: `system` while it
/// exists and another user (the administrator) owns it, else
/// `HOOKDEX_MANAGED_DIR` when `set`, else `system`. The directory chosen is
/// stat'ed once: `system`'s stat serves for both the choice and the owner.
fn managed_dir(set: Option<PathBuf>, system: &Path, user: u32) -> (PathBuf, Option<u32>) {
    use std::os::unix::fs::MetadataExt;
    let owner_of = |dir: &Path| std::fs::metadata(dir).ok().map(|meta| meta.uid());
    let system_owner = owner_of(system);
    let administered = system_owner.is_some_and(|owner| owner != user);
    match set {
        Some(dir) if !administered => {
            let owner = owner_of(&dir);
            (dir, owner)
        }
        _ => (system.to_path_buf(), system_owner),
    }
}

/// Whether a switch variable says yes (`1` or `true`).
fn yes(value: &std::ffi::OsStr) -> bool {
    let value = value.to_string_lossy();
    value == "1" || value.eq_ignore_ascii_case("true")
}

fn opt_bytes(path: Option<&Path>) -> &[u8] {
    path.map_or(b"\0", |p| p.as_os_str().as_encoded_bytes())
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The nearest ancestor of `dir` (itself included) holding a `.git` entry,
/// directory or worktree file.
pub fn find_repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn defaults_follow_home() {
        let view = View::from_vars(Target::Claude, Path::new("/"), vars(&[("HOME", "/h")]));
        assert_eq!(view.home, Path::new("/h/.hookdex"));
        assert_eq!(view.cache_dir, Path::new("/h/.cache/hookdex"));
        assert_eq!(view.managed_dir, Path::new("/etc/hookdex"));
        assert_eq!(view.bundle_override, None);
        assert_eq!(
            view.git_user.globals,
            [
                Path::new("/h/.config/git/config"),
                Path::new("/h/.gitconfig")
            ]
        );
        let view = View::from_vars(
            Target::Claude,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]),
        );
        assert_eq!(view.git_user.home.as_deref(), Some(Path::new("/h")));
        assert_eq!(view.git_user.globals[0], Path::new("/x/git/config"));
        let view = View::from_vars(Target::Claude, Path::new("/"), vars(&[]));
        assert_eq!(view.git_user, GitUser::default());
    }

    #[test]
    fn key_changes_with_every_input() {
        let base = [("HOME", "/h")];
        let a = View::from_vars(Target::Claude, Path::new("/"), vars(&base));
        let b = View::from_vars(Target::Codex, Path::new("/"), vars(&base));
        let c = View::from_vars(
            Target::Claude,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("HOOKDEX_PROFILES", "a,b")]),
        );
        let d = View::from_vars(
            Target::Claude,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("HOOKDEX_BUNDLE", "/b")]),
        );
        let e = View::from_vars(
            Target::Claude,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]),
        );
        let keys = [a.key(), b.key(), c.key(), d.key(), e.key()];
        for i in 0..keys.len() {
            for j in i + 1..keys.len() {
                assert_ne!(keys[i], keys[j]);
            }
        }
        assert!(a.index_path().starts_with("/h/.cache/hookdex"));
        // Trust is decided at lookup: the trusted owners pick no other file.
        let trusting = View::from_vars(
            Target::Claude,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("CONDITIONS_TRUSTED_OWNERS", "*")]),
        );
        assert_eq!(trusting.trusted_owners, "*");
        assert_eq!(trusting.key(), a.key());
    }

    #[test]
    fn an_administered_system_dir_cannot_be_moved_by_the_variable() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile_dir().join("system");
        let set = Some(PathBuf::from("/elsewhere"));
        // Absent: the variable decides.
        assert_eq!(
            managed_dir(set.clone(), &dir, 0),
            (PathBuf::from("/elsewhere"), None)
        );
        std::fs::create_dir_all(&dir).unwrap();
        let owner = std::fs::metadata(&dir).unwrap().uid();
        // Owned by the user: theirs to move.
        assert_eq!(
            managed_dir(set.clone(), &dir, owner),
            (PathBuf::from("/elsewhere"), None)
        );
        // Owned by someone else: it stands, and its owner is known.
        assert_eq!(
            managed_dir(set, &dir, owner.wrapping_add(1)),
            (dir.clone(), Some(owner))
        );
        assert_eq!(managed_dir(None, &dir, owner), (dir.clone(), Some(owner)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_managed_view_is_the_managed_dir_alone() {
        let view = View::from_vars(
            Target::Codex,
            Path::new("/"),
            vars(&[("HOME", "/h"), ("HOOKDEX_MANAGED_DIR", "/m")]),
        );
        let managed = view.managed_only();
        assert_eq!(managed.scope, Scope::Managed);
        assert_eq!(managed.index_path(), Path::new("/m/index-codex.hdx"));
        assert_ne!(managed.key(), view.key());
        assert_eq!(managed.repo_root, None);
    }

    #[test]
    fn repo_root_is_found_upward() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
        std::fs::create_dir_all(dir.join("repo/a/b")).unwrap();
        assert_eq!(
            find_repo_root(&dir.join("repo/a/b")),
            Some(dir.join("repo"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookdex-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
