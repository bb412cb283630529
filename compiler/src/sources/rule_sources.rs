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
//! view: `$HOOKDEX_HOME`, `~/.agentihooks`, the managed directory, the
//! repository's own folders, `~/.moltis/hooks`, rtk's user filters. No file is read to
//! decide.

use std::path::{Component, Path, PathBuf};

use super::View;

/// The rule sources of one view.
#[derive(Debug)]
pub struct RuleSources {
    /// Folders and files that are rule sources whole, as the view names them
    /// (the first `rules`), then what wires them ([`RuleSources::with_wiring`]).
    roots: Vec<PathBuf>,
    /// How many of `roots` are rule sources proper.
    rules: usize,
    /// The same, through their links: read only for a path that went
    /// through a link itself.
    real: std::sync::OnceLock<Vec<PathBuf>>,
}

/// A path a call names: as written (made absolute, `.` and `..` taken
/// lexically), and where it leads when a link is on its way.
#[derive(Clone, Debug)]
pub struct Named {
    /// The path as written.
    pub lexical: PathBuf,
    /// Where it leads through the links on its way, when there is one.
    pub real: Option<PathBuf>,
}

impl Named {
    /// How the path is shown.
    pub fn display(&self) -> std::path::Display<'_> {
        self.real.as_ref().unwrap_or(&self.lexical).display()
    }
}

impl RuleSources {
    /// The rule sources `view` reads.
    pub fn of(view: &View) -> RuleSources {
        let mut roots = vec![view.home.clone(), view.managed_dir.clone()];
        if let Some(repo) = &view.repo_root {
            for folder in [
                ".agentihooks",
                ".hookdex",
                ".moltis/hooks",
                ".rtk",
                ".biorouter",
            ] {
                roots.push(repo.join(folder));
            }
        }
        if let Some(user) = &view.git_user.home {
            roots.push(user.join(".moltis/hooks"));
        }
        roots.extend(view.agentihooks_home());
        roots.extend(view.biorouter_config.clone());
        if let Some(claude) = &view.claude_config {
            roots.push(claude.join("settings.json"));
            if let Some(repo) = &view.repo_root {
                roots.push(repo.join(".claude/settings.json"));
                roots.push(repo.join(".claude/settings.local.json"));
            }
        }
        if let Some(bundle) = &view.bundle_override {
            roots.push(bundle.join(".claude/conditions"));
            roots.push(bundle.join("profiles"));
            roots.push(bundle.join("enforcements.json"));
        }
        roots.extend(view.rtk_user_filters.clone());
        RuleSources {
            rules: roots.len(),
            roots: roots.iter().map(|r| lexical(r)).collect(),
            real: std::sync::OnceLock::new(),
        }
    }

    /// The rule sources proper, without what wires them.
    pub fn rules_only(&self) -> RuleSources {
        RuleSources {
            roots: self.roots[..self.rules].to_vec(),
            rules: self.rules,
            real: std::sync::OnceLock::new(),
        }
    }

    /// The rule sources of `view` and what decides whether and how they
    /// run, for the gate of file and MCP tools and the exec-time write
    /// gate: the cache (index and syntax cache), the repository's
    /// `.git/config` (a trust input) and `.mcp.json`, each harness's
    /// settings files that `hookdex init` writes (where hooks are wired and
    /// MCP servers registered), at their default places, and the other
    /// settings files where a harness reads hooks or a switch that turns
    /// them off (Copilot's `.github/copilot/settings*.json` and
    /// `~/.copilot/settings.json`, Codex's project `config.toml`).
    /// `harness_files` are the harnesses' own settings files; the compiler
    /// knows no harness, so the engine names them.
    pub fn with_wiring(view: &View, harness_files: &[PathBuf]) -> RuleSources {
        let mut sources = RuleSources::of(view);
        // The git configuration that decides a repository's origin, and so
        // its trust: the user's global files too (`url.<x>.insteadOf`).
        let mut more = vec![view.cache_dir.clone()];
        more.extend(view.git_user.globals.iter().cloned());
        if let Some(repo) = &view.repo_root {
            for file in [
                ".git/config",
                ".git/config.worktree",
                ".git/commondir",
                ".mcp.json",
                ".claude/settings.local.json",
                ".github/copilot/settings.json",
                ".github/copilot/settings.local.json",
                ".codex/config.toml",
            ] {
                more.push(repo.join(file));
            }
        }
        if let Some(home) = &view.git_user.home {
            more.push(home.join(".copilot/settings.json"));
        }
        more.extend(harness_files.iter().cloned());
        sources.roots.extend(more.iter().map(|r| lexical(r)));
        sources
    }

    fn real_roots(&self) -> &[PathBuf] {
        self.real.get_or_init(|| {
            self.roots
                .iter()
                .map(|r| through_links(r).unwrap_or_else(|| r.clone()))
                .collect()
        })
    }

    /// Whether `path` is a rule source or lies in one.
    pub fn touches(&self, path: &Named) -> bool {
        let inside =
            |p: &Path, roots: &[PathBuf]| roots.iter().any(|r| p.starts_with(r)) || by_name(p);
        inside(&path.lexical, &self.roots)
            || path
                .real
                .as_ref()
                .is_some_and(|real| inside(real, &self.roots) || inside(real, self.real_roots()))
    }

    /// Whether `path` is a folder that holds a rule source of the view (or
    /// is one): what removing, moving or relinking it takes along.
    pub fn holds(&self, path: &Named) -> bool {
        let holds = |p: &Path, roots: &[PathBuf]| roots.iter().any(|r| r.starts_with(p));
        self.touches(path)
            || holds(&path.lexical, &self.roots)
            || path
                .real
                .as_ref()
                .is_some_and(|real| holds(real, self.real_roots()))
    }
}

/// A quick test of a path's text, for the many strings of one call: false
/// only when the path, taken as written from `cwd`, cannot touch a rule
/// source or its wiring ([`RuleSources::touches`] says for the others).
#[derive(Debug)]
pub struct Screen {
    /// `cwd` lies in a rule source: every relative path does too.
    cwd_inside: bool,
    /// The roots, and where their links lead, as text.
    roots: Vec<String>,
    /// The names right below `cwd` that lead to a root (a few).
    below_cwd: Vec<String>,
}

impl Screen {
    /// Whether `path` may touch a rule source: it has a `.` or `..` part
    /// (or, absolute, a doubled `/`), which resolving may change; its text
    /// holds a name that is one wherever it is; or, absolute, it starts
    /// with a root; relative, `cwd` lies in one or its first part leads to
    /// one.
    pub fn may_touch(&self, path: &str) -> bool {
        let absolute = path.starts_with('/');
        // A `.` or `..` part starts the path or follows a `/`.
        let dot_part = (path.starts_with('.') || path.contains("/."))
            && path.split('/').any(|part| part == "." || part == "..");
        dot_part || absolute && path.contains("//") || self.plain_may_touch(path, absolute)
    }

    /// [`Screen::may_touch`] of a path with no `.`, `..` or empty part.
    fn plain_may_touch(&self, path: &str, absolute: bool) -> bool {
        const NAMES: &[&str] = &[
            ".agentihooks",
            ".hookdex",
            "enforcements.json",
            ".claude/conditions",
            ".moltis/hooks",
        ];
        // Every name above holds a `.`: a path without one needs no search.
        if path.contains('.') && NAMES.iter().any(|name| path.contains(name)) {
            return true;
        }
        if absolute {
            return self.roots.iter().any(|root| {
                path.strip_prefix(root.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            });
        }
        let first = path.split('/').next().unwrap_or_default();
        self.cwd_inside || self.below_cwd.iter().any(|name| name == first)
    }
}

impl RuleSources {
    /// The [`Screen`] of paths named from `cwd`.
    pub fn screen(&self, cwd: &Path) -> Screen {
        let cwd = lexical(cwd);
        let dir = Named {
            real: through_links(&cwd),
            lexical: cwd,
        };
        Screen {
            cwd_inside: self.touches(&dir),
            roots: self
                .roots
                .iter()
                .chain(self.real_roots())
                .map(|r| r.display().to_string())
                .collect(),
            below_cwd: self.first_names_below(&dir),
        }
    }

    /// The names, right below `dir`, that lead to a rule source of the view
    /// (`.hookdex` for the repository): what a glob in `dir` must match to
    /// reach one.
    pub fn first_names_below(&self, dir: &Named) -> Vec<String> {
        let mut names = Vec::new();
        let dirs = [Some(&dir.lexical), dir.real.as_ref()];
        for dir in dirs.into_iter().flatten() {
            for root in self.roots.iter().chain(self.real_roots()) {
                if let Ok(rest) = root.strip_prefix(dir) {
                    if let Some(Component::Normal(first)) = rest.components().next() {
                        names.push(first.to_string_lossy().into_owned());
                    }
                }
            }
        }
        names
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

/// `path` as `cwd` names it: absolute, `.` and `..` taken lexically, and,
/// when one of the parts of it below `cwd` that exist is a link, where it
/// leads. One `lstat` per part, stopping at the first that does not exist.
pub fn resolve_in(cwd: &Path, path: &str) -> Named {
    let lexical = lexical(&cwd.join(path));
    let below = lexical.strip_prefix(cwd).ok();
    let mut linked = below.is_none() && Path::new(path).is_absolute();
    if let Some(below) = below {
        let mut at = cwd.to_path_buf();
        for part in below.components() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    linked = true;
                    break;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    // Through a link, `..` is the kernel's: taken after the link, not before.
    let real = linked.then(|| through_links(&cwd.join(path))).flatten();
    Named { lexical, real }
}

/// `path` as `cwd` names it, taken as written: absolute, `.` and `..`
/// taken lexically, no link followed.
pub fn lexically_in(cwd: &Path, path: &str) -> Named {
    Named {
        lexical: lexical(&cwd.join(path)),
        real: None,
    }
}

/// `path` with `.` and `..` taken lexically.
fn lexical(path: &Path) -> PathBuf {
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
    clean
}

/// Where `path` leads through its links: its longest existing part
/// resolved, the rest as written; `None` when that is the path itself.
fn through_links(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while !existing.as_os_str().is_empty() {
        if let Ok(real) = existing.canonicalize() {
            let real = rest
                .iter()
                .rev()
                .fold(real, |p, part: &std::ffi::OsString| p.join(part));
            return (real != path).then_some(real);
        }
        rest.push(existing.file_name()?.to_os_string());
        existing.pop();
    }
    None
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

    #[test]
    fn the_screen_passes_every_path_that_touches() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let cwd = root.join("repo");
        std::fs::create_dir_all(cwd.join(".git")).unwrap();
        let vars = |name: &str| match name {
            "HOME" => Some(root.join("home").into_os_string()),
            "HOOKDEX_HOME" => Some(root.join("hh").into_os_string()),
            _ => None,
        };
        let view = View::from_vars(hookdex_model::Target::Claude, &cwd, vars);
        let sources = RuleSources::with_wiring(&view, &[]);
        let screen = sources.screen(&cwd);
        let hh = format!("{}/hh/x", root.display());
        let cases: &[(&str, bool)] = &[
            (".hookdex/conditions/x.sh", true),
            (".mcp.json", true),
            ("src/../.agentihooks/x", true),
            ("/a//b", true),
            ("a//b", false),
            ("./d1/.f1", true),
            ("./.hookdex/x", true),
            ("src/.gitignore", false),
            ("docs/enforcements.json", true),
            (&hh, true),
            ("src/main.rs", false),
            ("d1/f1", false),
            ("/elsewhere/x", false),
            ("https://example.com/a", false),
        ];
        for (path, passes) in cases {
            assert_eq!(screen.may_touch(path), *passes, "{path}");
            let touches = sources.touches(&lexically_in(&cwd, path));
            assert!(!touches || screen.may_touch(path), "{path} touches");
        }
    }
}
