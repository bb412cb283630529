//! Rule sources: which directories make up the layers of one [`View`] —
//! the package rules, the bundle and profile chain (from `state.json` or
//! `HOOKDEX_BUNDLE` / `HOOKDEX_PROFILES`), the runtime folders
//! (`~/.agentihooks/conditions/`, then `$HOOKDEX_HOME/conditions/`), the
//! repository's own folders and the managed folder — with the files whose
//! stamps decide freshness and the facts trust is decided from (the git
//! owners, and what the trust store remembers: [`trust`]).

pub mod confine;
pub mod git;
pub mod owner;
// The one module with `unsafe`: the shipped output filters, read in place.
#[allow(unsafe_code)]
pub mod package;
pub mod rule_sources;
pub mod state;
pub mod trust;
pub mod trust_store;
mod view;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_index::Stamp;
use hookdex_model::{LayerKind, RecordedOrigin};

use self::state::State;
pub use self::view::{find_repo_root, Scope, View, SYSTEM_MANAGED_DIR};
use crate::error::{RuleError, RuleErrorKind};

/// One layer to scan.
#[derive(Clone, Debug)]
pub struct LayerSource {
    /// Kind of layer.
    pub kind: LayerKind,
    /// Source label.
    pub label: String,
    /// Its directories, lowest priority first (the directory layer has two).
    pub dirs: Vec<RuleDir>,
}

/// Where a layer's files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleDir {
    /// A directory on disk, and the root it must stay inside: the directory
    /// the configuration names (the repository, the bundle, a profile,
    /// `$HOOKDEX_HOME`, the managed directory), which holds the folder.
    Disk {
        /// The rule folder (`<root>/.hookdex/conditions`, …).
        dir: PathBuf,
        /// The directory the configuration names.
        root: PathBuf,
    },
    /// A directory of the embedded package (`conditions/`, `profiles/x/.claude/conditions/`).
    Package(String),
}

impl RuleDir {
    /// How the directory is shown to people.
    pub fn display(&self) -> String {
        match self {
            RuleDir::Disk { dir, .. } => dir.display().to_string(),
            RuleDir::Package(rel) => format!("package:rules/{rel}"),
        }
    }
}

/// The layers of a view and what their selection depended on.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Layers, lowest priority first.
    pub layers: Vec<LayerSource>,
    /// Files (besides the rule directories) whose stamps decide freshness.
    pub recorded: Vec<(PathBuf, Stamp)>,
    /// The linked bundle.
    pub bundle: Option<PathBuf>,
    /// The profile chain.
    pub profiles: Vec<String>,
    /// The repository's `origin`, as the index records it ([`RecordedOrigin`]).
    pub directory_owner: Option<String>,
    /// The bundle's `origin`, as the index records it.
    pub bundle_owner: Option<String>,
    /// The repository's trust facts ([`hookdex_model::TrustRecord`] text).
    pub trust_record: Option<String>,
    /// Problems with the selection itself (`state.json`, missing profiles).
    pub problems: Vec<RuleError>,
}

/// `<dir>/.claude/conditions`, which must stay inside `dir`.
fn conditions_of(dir: &Path) -> RuleDir {
    RuleDir::Disk {
        dir: dir.join(".claude").join("conditions"),
        root: dir.to_path_buf(),
    }
}

/// Resolves the layers of `view`.
pub fn resolve(view: &View) -> Sources {
    let mut sources = Sources::default();
    if view.scope == Scope::Managed {
        sources.layers.push(managed_layer(view));
        return sources;
    }
    let state_path = view.state_path();
    sources
        .recorded
        .push((state_path.clone(), Stamp::of(&state_path)));
    let state = State::read(&state_path).unwrap_or_else(|problem| {
        sources.problems.push(problem);
        State::default()
    });
    let per_target = state.targets.get(view.target.as_str());
    let bundle = selected_bundle(view, &state);
    let profiles: Vec<String> = match &view.profiles_override {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect(),
        None => per_target
            .and_then(|t| t.profiles.clone())
            .unwrap_or(state.profiles.clone()),
    };

    sources.layers.push(LayerSource {
        kind: LayerKind::Package,
        label: "package".into(),
        dirs: vec![RuleDir::Package("conditions/".into())],
    });
    if let Some(bundle) = &bundle {
        sources.layers.push(LayerSource {
            kind: LayerKind::Bundle,
            label: "bundle".into(),
            dirs: vec![conditions_of(bundle)],
        });
        if let Some(root) = find_repo_root(bundle) {
            let origin = git::origin(&root, &view.git_user);
            sources.bundle_owner = recorded(&origin.remote);
            sources.recorded.extend(origin.read);
        }
    }
    for name in &profiles {
        match profile_dir(
            name,
            bundle.as_deref(),
            &state.linked_profiles,
            &mut sources.recorded,
        ) {
            Some(dir) => sources.layers.push(LayerSource {
                kind: LayerKind::Profile,
                label: format!("profile:{name}"),
                dirs: vec![dir],
            }),
            // Named where the chain was set: `state.json`, or the variable.
            None => sources.problems.push(RuleError::new(
                match view.profiles_override {
                    Some(_) => "HOOKDEX_PROFILES".to_string(),
                    None => state_path.display().to_string(),
                },
                RuleErrorKind::Selection(format!(
                    "{}: not found in the package, {}, or the linked profiles",
                    UnknownProfile {
                        name: name.clone(),
                        available: available(bundle.as_deref(), &state.linked_profiles),
                    },
                    bundle.as_ref().map_or("no bundle linked".to_string(), |b| b
                        .join("profiles")
                        .display()
                        .to_string())
                )),
            )),
        }
    }
    // agentihooks' own folder when there is one (stamped, so one made
    // later is seen), first, so `$HOOKDEX_HOME`'s wins a shared key.
    let agentihooks = view.agentihooks_home().filter(|dir| {
        sources.recorded.push((dir.clone(), Stamp::of(dir)));
        dir.is_dir()
    });
    let runtime_homes = agentihooks.into_iter().chain([view.home.clone()]);
    sources.layers.push(LayerSource {
        kind: LayerKind::Runtime,
        label: "runtime".into(),
        dirs: runtime_homes
            .map(|home| RuleDir::Disk {
                dir: home.join("conditions"),
                root: home,
            })
            .collect(),
    });
    if let Some(root) = &view.repo_root {
        sources.layers.push(LayerSource {
            kind: LayerKind::Directory,
            label: "directory".into(),
            dirs: [".agentihooks", ".hookdex"]
                .map(|folder| RuleDir::Disk {
                    dir: root.join(folder).join("conditions"),
                    root: root.clone(),
                })
                .into(),
        });
        let store = trust_store::TrustStore::of(&view.home);
        let facts = trust::record(root, &view.git_user, &store, &mut sources.recorded);
        // `origin` as it is now, read with the rest of the evidence.
        sources.directory_owner = facts.roots.first().and_then(|own| {
            own.sightings
                .iter()
                .find(|s| s.seen == hookdex_model::Seen::Origin)
                .and_then(|s| s.origin.clone())
        });
        sources.trust_record = Some(facts.encode());
    }
    sources.layers.push(managed_layer(view));
    sources.bundle = bundle;
    sources.profiles = profiles;
    sources
}

/// The bundle `view` links: `HOOKDEX_BUNDLE`, else the target's own in
/// `state`, else `state`'s.
fn selected_bundle(view: &View, state: &State) -> Option<PathBuf> {
    let per_target = state.targets.get(view.target.as_str());
    view.bundle_override
        .clone()
        .or_else(|| per_target.and_then(|t| t.bundle.clone()))
        .or_else(|| state.bundle.clone())
}

/// A profile name that no profile answers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile {
    /// The name as given.
    pub name: String,
    /// The profiles that could be named instead.
    pub available: Vec<String>,
}

impl std::fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown profile `{}` (available: ", self.name)?;
        match self.available.is_empty() {
            true => f.write_str("none)"),
            false => write!(f, "{})", self.available.join(", ")),
        }
    }
}

impl std::error::Error for UnknownProfile {}

/// Checks that each of `names` (a `--profile` chain) resolves to a profile
/// for `view`, with `bundle` standing for the view's own bundle when given
/// (the one `init --bundle` is about to link), as [`resolve`] resolves it.
///
/// # Errors
///
/// The first name that does not, with the profiles available.
pub fn check_profiles(
    view: &View,
    bundle: Option<&Path>,
    names: &[String],
) -> Result<(), UnknownProfile> {
    let state = State::read(&view.state_path()).unwrap_or_default();
    let bundle = bundle
        .map(Path::to_path_buf)
        .or_else(|| selected_bundle(view, &state));
    let unknown = names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .find(|n| {
            profile_dir(
                n,
                bundle.as_deref(),
                &state.linked_profiles,
                &mut Vec::new(),
            )
            .is_none()
        });
    match unknown {
        None => Ok(()),
        Some(name) => Err(UnknownProfile {
            name: name.to_string(),
            available: available(bundle.as_deref(), &state.linked_profiles),
        }),
    }
}

/// The profile names that resolve: the package's, the bundle's `profiles/`
/// folders and the linked ones, sorted, each once.
fn available(bundle: Option<&Path>, linked: &BTreeMap<String, PathBuf>) -> Vec<String> {
    let mut names: Vec<String> = package::profiles().map(String::from).collect();
    if let Some(dir) = bundle.map(|b| b.join("profiles")) {
        let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
        names.extend(
            entries
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().into_string().ok()),
        );
    }
    names.extend(
        linked
            .iter()
            .filter(|(_, path)| path.is_dir())
            .map(|(name, _)| name.clone()),
    );
    names.sort();
    names.dedup();
    names
}

/// Writes the owners `view`'s repository shows now to the trust store: run
/// before a compile starts its clock, so the store entries it writes are
/// not stamped as changed during the compile (which would compile again).
pub fn observe_trust(view: &View) {
    if let (Scope::Every, Some(root)) = (view.scope, &view.repo_root) {
        let store = trust_store::TrustStore::of(&view.home);
        trust::record(root, &view.git_user, &store, &mut Vec::new());
    }
}

/// `$HOOKDEX_MANAGED_DIR/conditions/`.
fn managed_layer(view: &View) -> LayerSource {
    LayerSource {
        kind: LayerKind::Managed,
        label: "managed".into(),
        dirs: vec![RuleDir::Disk {
            dir: view.managed_dir.join("conditions"),
            root: view.managed_dir.clone(),
        }],
    }
}

/// The index's string for a remote.
pub(crate) fn recorded(remote: &git::Remote) -> Option<String> {
    match remote {
        git::Remote::Absent => RecordedOrigin::Absent.record(),
        git::Remote::Owner(owner) => RecordedOrigin::Owner(owner).record(),
        git::Remote::Unknown(why) => RecordedOrigin::Unknown(&why.to_string()).record(),
    }
}

/// A profile resolves to the package's `rules/profiles/<name>`, then
/// `<bundle>/profiles/<name>`, then a linked profile path (or the name itself
/// when it is an absolute path; a relative path never resolves). Candidates on disk are recorded whether present or not.
fn profile_dir(
    name: &str,
    bundle: Option<&Path>,
    linked: &BTreeMap<String, PathBuf>,
    recorded: &mut Vec<(PathBuf, Stamp)>,
) -> Option<RuleDir> {
    if package::has_profile(name) {
        return Some(RuleDir::Package(format!(
            "profiles/{name}/.claude/conditions/"
        )));
    }
    let mut candidates = Vec::new();
    // A name is one plain folder name; a path only when absolute: a relative
    // one would resolve against whatever project the agent is in.
    let plain = !name.contains('/') && name != "." && name != "..";
    if let (Some(bundle), true) = (bundle, plain) {
        candidates.push(bundle.join("profiles").join(name));
    }
    if let Some(path) = linked.get(name) {
        candidates.push(path.clone());
    } else if Path::new(name).is_absolute() {
        candidates.push(PathBuf::from(name));
    }
    for candidate in candidates {
        recorded.push((candidate.clone(), Stamp::of(&candidate)));
        if candidate.is_dir() {
            return Some(conditions_of(&candidate));
        }
    }
    None
}
