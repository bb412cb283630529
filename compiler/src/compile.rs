//! One compile: resolve the sources of a view, read each layer's rules with
//! its format, check the scripts' syntax, resolve overrides, build the
//! matching tables, and emit the index.
//!
//! An untrusted repository's folders are read by file name only: the
//! verdict is the view's (its `CONDITIONS_TRUSTED_OWNERS`), the index says
//! so, and a lookup that trusts the repository finds such an index stale
//! and compiles again, with the same verdict, so the rules it runs were
//! read while trusted.

use hookdex_index::{FinderScriptData, Stamp};
use hookdex_model::{LayerKind, Runner};

use crate::emit::{self, Layer};
use crate::error::{RuleError, RuleErrorKind};
use crate::formats::conditions::{self, Reading};
use crate::formats::{
    claude_permissions, enforcements, finder_dir, hook_md, hooks_yaml, outfilter, syntax, RuleSpec,
};
use crate::interpreters;
use crate::resolve;
use crate::sources::{self, package, View};
use crate::tables;

pub use crate::emit::Compiled;

/// Compiles every layer of `view` into index bytes. Nothing is written to
/// disk except materialized package rules; a rule file that cannot be used
/// becomes an invalid entry with its reason and never stops the others.
pub fn compile(view: &View) -> Compiled {
    let package_root = package::materialized_root(&view.cache_dir);
    // Package copies this compile writes are written before its clock
    // starts: they hold the binary's own bytes, and stamped after the
    // start they would read as racy and make the next call compile again.
    package::materialize_all(&package_root);
    // Owners new to the trust store are written before the clock starts
    // too, for the same reason.
    sources::observe_trust(view);
    let started = std::time::SystemTime::now();
    let sources = sources::resolve(view);
    let mut stamps = sources.recorded.clone();
    let mut invalid: Vec<(Option<u16>, RuleError)> =
        sources.problems.iter().map(|p| (None, p.clone())).collect();
    let trust = view.trust(
        sources.trust_record.as_deref(),
        sources.bundle_owner.as_deref(),
    );
    let mut layers = Vec::with_capacity(sources.layers.len());
    let mut specs = Vec::with_capacity(sources.layers.len());
    let mut finder_scripts = Vec::new();
    let mut out_filters = Vec::new();
    let mut allow_project_hooks = view.allow_project_hooks;
    for (i, layer) in sources.layers.iter().enumerate() {
        let reading = match layer.kind {
            LayerKind::Directory if !trust.is_trusted() => Reading::NamesOnly,
            _ => Reading::Contents,
        };
        let mut rules = Vec::new();
        // A later folder of the layer replaces an earlier one's finder of
        // the same name, as it does a rule's key.
        let mut scripts = std::collections::BTreeMap::new();
        for (dir_index, dir) in layer.dirs.iter().enumerate() {
            let scanned = conditions::scan(dir, dir_index, &package_root, reading);
            stamps.extend(scanned.stamps);
            invalid.extend(scanned.invalid.into_iter().map(|e| (Some(i as u16), e)));
            rules.extend(scanned.rules);
            // A layer that cannot run has no finders to run either.
            if reading == Reading::Contents {
                let found = finder_dir::scan(dir, &package_root);
                stamps.extend(found.stamps);
                invalid.extend(found.invalid.into_iter().map(|e| (Some(i as u16), e)));
                scripts.extend(found.found);
            }
        }
        let files = match reading {
            Reading::Contents => enforcements_files(layer.kind, &layer.dirs),
            Reading::NamesOnly => Vec::new(),
        };
        for (dir_index, file, root) in files {
            let scanned = enforcements::scan(&file, &root);
            stamps.extend(scanned.stamps);
            invalid.extend(scanned.invalid.into_iter().map(|e| (Some(i as u16), e)));
            // A later folder's file replaces an earlier one's entry of the same id.
            rules.extend(scanned.rules.into_iter().map(|mut r| {
                r.dir_index = dir_index;
                r
            }));
        }
        if reading == Reading::Contents {
            let hooks = hook_sources(view, layer.kind, &mut allow_project_hooks);
            stamps.extend(hooks.stamps);
            invalid.extend(hooks.invalid.into_iter().map(|e| (Some(i as u16), e)));
            rules.extend(hooks.rules);
        }
        if reading == Reading::Contents {
            let mut found = Vec::new();
            for dir in &layer.dirs {
                found.push(outfilter::scan(dir));
            }
            let rtk_file = match (layer.kind, &view.repo_root) {
                (LayerKind::Runtime, _) => view.rtk_user_filters.as_ref().map(|file| {
                    let root = file.parent().unwrap_or(file);
                    (file.clone(), root.to_path_buf())
                }),
                (LayerKind::Directory, Some(repo)) => {
                    Some((repo.join(".rtk").join(outfilter::RTK_FILE), repo.clone()))
                }
                _ => None,
            };
            if let Some((file, root)) = rtk_file {
                found.push(outfilter::scan_file(&file, &root));
            }
            for scanned in found {
                stamps.extend(scanned.stamps);
                invalid.extend(scanned.invalid.into_iter().map(|e| (Some(i as u16), e)));
                out_filters.extend(scanned.found.into_iter().map(|f| (i as u16, f)));
            }
        }
        finder_scripts.extend(scripts.into_values().map(|script| FinderScriptData {
            name: script.name,
            file: script.file,
            layer: i as u16,
            runner: script.runner,
        }));
        layers.push(Layer {
            source: layer,
            count: rules.len() as u32,
            names_only: reading == Reading::NamesOnly,
        });
        specs.push(rules);
    }
    let cache = view.index_path().with_extension("syntax.json");
    let read: Vec<bool> = layers.iter().map(|l| !l.names_only).collect();
    let found = interpreters::find();
    stamps.extend(found.stamps.iter().cloned());
    drop_without_interpreter(&mut specs, &read, &found, &mut invalid);
    check_syntax(&mut specs, &read, &found, &mut invalid, &mut stamps, &cache);
    let directory = sources
        .layers
        .iter()
        .position(|l| l.kind == LayerKind::Directory)
        .map(|i| i as u16);
    let resolved = resolve::resolve(specs, directory);
    let tables = tables::build(&resolved);
    for (id, reason) in tables.left_out {
        let rule = &resolved[id as usize];
        let kind = RuleErrorKind::Key {
            key: rule.rule.name.name.clone(),
            reason,
        };
        invalid.push((
            Some(rule.layer),
            RuleError::new(rule.rule.file.clone(), kind),
        ));
    }
    let steps = tables.steps;
    // A path changed within a timestamp tick of this compile could change
    // again unseen: recorded as racy, it makes the next call compile again.
    let stamps = stamps
        .into_iter()
        .map(|(path, stamp)| {
            let stamp = if stamp.is_racy(started) {
                Stamp::RACY
            } else {
                stamp
            };
            (path, stamp)
        })
        .collect();
    let found = emit::Found {
        resolved,
        steps,
        stamps,
        invalid,
        finder_scripts,
        out_filters,
        interpreters: found.paths,
    };
    emit::emit(view, &sources, &layers, found)
}

/// What the `hooks.yaml` and `HOOK.md` sources of a layer of `kind` hold
/// (SPEC §9): `$HOOKDEX_HOME/hooks.yaml` and the HOOK.md folders
/// `~/.moltis/hooks/` and `$HOOKDEX_HOME/hooks/` for the runtime layer;
/// `<git-root>/.hookdex/hooks.yaml` (only when `allow_project_hooks`,
/// which the global file may turn on) and `<git-root>/.moltis/hooks/`,
/// `<git-root>/.hookdex/hooks/` for the directory layer;
/// `$HOOKDEX_MANAGED_DIR/hooks.yaml` for the managed one; with
/// `HOOKDEX_BIOROUTER`, BioRouter's global `config.yaml` (`hooks:`) in the
/// runtime layer and `<git-root>/.biorouter/hooks.yaml` in the directory
/// layer, on the project file's terms; with `HOOKDEX_CLAUDE_PERMISSIONS`,
/// Claude Code's `permissions` Bash rules as guards (its user settings in
/// the runtime layer, the repository's in the directory layer). Later
/// folders win a hook name.
fn hook_sources(view: &View, kind: LayerKind, allow_project_hooks: &mut bool) -> HookSources {
    let mut found = HookSources::default();
    let yaml =
        |found: &mut HookSources, root: &std::path::Path, file: std::path::PathBuf, dir_index| {
            let scanned = hooks_yaml::scan(&file, root);
            found.stamps.extend(scanned.stamps);
            found.invalid.extend(scanned.invalid);
            found.rules.extend(scanned.rules.into_iter().map(|mut r| {
                r.dir_index = dir_index;
                r
            }));
            scanned.allow_project_hooks
        };
    let folders = |found: &mut HookSources, dirs: &[(std::path::PathBuf, std::path::PathBuf)]| {
        for (dir_index, (dir, root)) in dirs.iter().enumerate() {
            let scanned = hook_md::scan(dir, root, dir_index);
            found.stamps.extend(scanned.stamps);
            found.invalid.extend(scanned.invalid);
            found.rules.extend(scanned.rules);
        }
    };
    match kind {
        LayerKind::Runtime => {
            *allow_project_hooks |=
                yaml(&mut found, &view.home, view.home.join(hooks_yaml::FILE), 0);
            if let Some(config) = &view.biorouter_config {
                let root = config.parent().unwrap_or(config);
                let scanned = hooks_yaml::scan_config(config, root);
                found.stamps.extend(scanned.stamps);
                found.invalid.extend(scanned.invalid);
                found.rules.extend(scanned.rules);
                *allow_project_hooks |= scanned.allow_project_hooks;
            }
            let mut dirs = Vec::new();
            if let Some(user) = &view.git_user.home {
                let moltis = user.join(".moltis");
                dirs.push((moltis.join("hooks"), moltis));
            }
            dirs.push((view.home.join("hooks"), view.home.clone()));
            folders(&mut found, &dirs);
            if let Some(claude) = &view.claude_config {
                claude_settings(&mut found, &claude.join("settings.json"), claude, "user");
            }
        }
        LayerKind::Directory => {
            let Some(repo) = &view.repo_root else {
                return found;
            };
            let file = repo.join(".hookdex").join(hooks_yaml::FILE);
            if *allow_project_hooks {
                yaml(&mut found, repo, file, 1);
            } else {
                // Stamped, so an opt-in that comes with the file is seen.
                found
                    .stamps
                    .push((file.clone(), hookdex_index::Stamp::of(&file)));
            }
            // BioRouter's project file, when asked for, on the same terms
            // (the layer is read only in a trusted repository).
            if view.biorouter_config.is_some() {
                let file = repo.join(".biorouter").join(hooks_yaml::FILE);
                if *allow_project_hooks {
                    yaml(&mut found, repo, file, 2);
                } else {
                    found
                        .stamps
                        .push((file.clone(), hookdex_index::Stamp::of(&file)));
                }
            }
            let dirs = [
                (repo.join(".moltis").join("hooks"), repo.clone()),
                (repo.join(".hookdex").join("hooks"), repo.clone()),
            ];
            folders(&mut found, &dirs);
            if view.claude_config.is_some() {
                let claude = repo.join(".claude");
                claude_settings(&mut found, &claude.join("settings.json"), repo, "project");
                claude_settings(
                    &mut found,
                    &claude.join("settings.local.json"),
                    repo,
                    "local",
                );
            }
        }
        LayerKind::Managed => {
            let file = view.managed_dir.join(hooks_yaml::FILE);
            yaml(&mut found, &view.managed_dir, file, 0);
        }
        LayerKind::Package | LayerKind::Bundle | LayerKind::Profile => {}
    }
    found
}

/// Adds the guards of the Claude Code settings file `file` (inside `root`).
fn claude_settings(
    found: &mut HookSources,
    file: &std::path::Path,
    root: &std::path::Path,
    which: &str,
) {
    let scanned = claude_permissions::scan(file, root, which, 0);
    found.stamps.extend(scanned.stamps);
    found.invalid.extend(scanned.invalid);
    found.rules.extend(scanned.rules);
}

/// The rules, problems and stamps of a layer's hook sources.
#[derive(Default)]
struct HookSources {
    rules: Vec<RuleSpec>,
    invalid: Vec<RuleError>,
    stamps: Vec<(std::path::PathBuf, hookdex_index::Stamp)>,
}

/// Where a layer keeps its `enforcements.json` (SPEC §9): beside the
/// bundle's and each profile's `.claude/` folder, in `~/.agentihooks` and
/// `$HOOKDEX_HOME` (the runtime layer's folders, in their order), and in
/// the repository's `.agentihooks/`; each with its folder's index in the
/// layer and the folder it must not leave. The package, managed and
/// `.hookdex/` folders have none.
fn enforcements_files(
    kind: LayerKind,
    dirs: &[crate::sources::RuleDir],
) -> Vec<(usize, std::path::PathBuf, std::path::PathBuf)> {
    let disk = |dir: &crate::sources::RuleDir| match dir {
        crate::sources::RuleDir::Disk { dir, .. } => Some(dir.clone()),
        crate::sources::RuleDir::Package(_) => None,
    };
    let taken = match kind {
        LayerKind::Runtime => dirs.len(),
        LayerKind::Bundle | LayerKind::Profile | LayerKind::Directory => 1,
        LayerKind::Package | LayerKind::Managed => 0,
    };
    dirs.iter()
        .take(taken)
        .enumerate()
        .filter_map(|(index, dir)| {
            let dir = disk(dir)?;
            let root = match kind {
                LayerKind::Bundle | LayerKind::Profile => dir.parent()?.parent()?,
                _ => dir.parent()?,
            };
            Some((index, root.join(enforcements::FILE), root.to_path_buf()))
        })
        .collect()
}

/// Moves every rule of `specs` whose interpreter was not found in a system
/// location to `invalid`: run with one from elsewhere, it would be whatever
/// the first directory on `PATH` holds. Layers listed by name only (`read`
/// unset) keep theirs: they do not run for another reason.
fn drop_without_interpreter(
    specs: &mut [Vec<RuleSpec>],
    read: &[bool],
    found: &interpreters::Found,
    invalid: &mut Vec<(Option<u16>, RuleError)>,
) {
    for (layer, rules) in specs.iter_mut().enumerate().filter(|(l, _)| read[*l]) {
        rules.retain(|spec| {
            let Some(program) = found.missing(spec.runner) else {
                return true;
            };
            let kind = RuleErrorKind::NoInterpreter {
                program: program.to_string(),
            };
            invalid.push((Some(layer as u16), RuleError::new(spec.file.clone(), kind)));
            false
        });
    }
}

/// Moves every bash or python3 script of `specs` that does not parse to
/// `invalid`, with the interpreter's one-line error, stamping it so that a
/// fix recompiles (a script that parses is not stamped: the hook skips it
/// if an edit breaks it later). Only layers whose `read` is set are
/// checked: the others were listed by name and their files are not opened.
/// `cache` remembers the scripts that parse.
fn check_syntax(
    specs: &mut [Vec<RuleSpec>],
    read: &[bool],
    found: &interpreters::Found,
    invalid: &mut Vec<(Option<u16>, RuleError)>,
    stamps: &mut Vec<(std::path::PathBuf, hookdex_index::Stamp)>,
    cache: &std::path::Path,
) {
    let checked = |layer: usize, spec: &RuleSpec| {
        read[layer] && matches!(spec.runner, Runner::Bash | Runner::Python)
    };
    let scripts: Vec<syntax::Script> = specs
        .iter()
        .enumerate()
        .flat_map(|(layer, rules)| rules.iter().map(move |spec| (layer, spec)))
        .filter(|(layer, spec)| checked(*layer, spec))
        .map(|(_, spec)| syntax::Script {
            path: std::path::PathBuf::from(&spec.file),
            runner: spec.runner,
        })
        .collect();
    if scripts.is_empty() {
        return;
    }
    let mut errors = syntax::check(&scripts, found, cache)
        .into_iter()
        .zip(scripts);
    for (layer, rules) in specs.iter_mut().enumerate() {
        rules.retain(|spec| {
            if !checked(layer, spec) {
                return true;
            }
            let Some((checked, script)) = errors.next() else {
                return true;
            };
            let Some(error) = checked.error else {
                return true;
            };
            stamps.push((script.path, checked.stamp));
            invalid.push((
                Some(layer as u16),
                RuleError::new(spec.file.clone(), RuleErrorKind::Syntax(error)),
            ));
            false
        });
    }
}
