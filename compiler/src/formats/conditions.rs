//! The conditions-directory format: every entry of a rule directory
//! classified by the filename grammar, given a runner, `.filter.yaml` files
//! compiled, and what was read stamped for freshness. A folder of a layer
//! that cannot run (an untrusted repository) is read by file name only, and
//! nothing that leaves a layer through a symlink is followed
//! ([`crate::sources::confine`]).

use std::path::{Path, PathBuf};

use hookdex_index::{FilterData, GuardData, Stamp, StampKind};
use hookdex_model::{RuleKind, Runner};

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::{self, FileClass, RuleName};
use crate::formats::{filter, guard, RuleSpec};
use crate::sources::confine::{self, Place};
use crate::sources::package;
use crate::sources::RuleDir;

pub use crate::formats::source::MAX_RULE_BYTES;

/// How much of a folder a compile reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// What its rules need: their stamps, modes and filter contents.
    Contents,
    /// The folder's stamp and its entries' names and types, for a layer
    /// that cannot run (an untrusted repository): no file in it is opened,
    /// read, parsed, checked, or stat'ed through a symlink. Its rules keep
    /// the runner their extension names, to be listed, never run.
    NamesOnly,
}

/// What one directory held.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    /// Rule files, sorted by file name.
    pub rules: Vec<RuleSpec>,
    /// Files that cannot be used.
    pub invalid: Vec<RuleError>,
    /// Stamps taken before reading: the directory, each compiled-content
    /// file, and each entry refused for what it is (a link is stamped itself).
    pub stamps: Vec<(PathBuf, Stamp)>,
}

/// Scans `dir` as `reading` says; `package_root` is where package files are
/// materialized (package folders are always read: they are the binary's own).
pub fn scan(dir: &RuleDir, dir_index: usize, package_root: &Path, reading: Reading) -> Scanned {
    match dir {
        RuleDir::Disk { dir, root } => scan_disk(dir, root, dir_index, reading),
        RuleDir::Package(rel) => scan_package(rel, dir_index, package_root),
    }
}

/// One entry of a folder, as listing it tells (its type is not followed).
struct Entry {
    file_name: String,
    path: PathBuf,
    file_type: std::fs::FileType,
}

/// A file whose name parsed as a rule, before its contents are read.
struct Found {
    /// The file as shown to people (`package:rules/...` for package files).
    shown: String,
    file_name: String,
    dir_index: usize,
    name: RuleName,
    executable: bool,
}

/// Scans the folder `dir`, which must stay inside `root`.
fn scan_disk(dir: &Path, root: &Path, dir_index: usize, reading: Reading) -> Scanned {
    let mut scanned = Scanned::default();
    if let Some(leaving) = confine::leaving_link(dir, root) {
        // The link's own stamp: made a real folder again, it is noticed,
        // and whatever it points at decides nothing.
        let stamp = Stamp::of_link(&leaving.link);
        let shown = leaving.link.display().to_string();
        scanned.stamps.push((leaving.link, stamp));
        scanned.invalid.push(RuleError::new(
            shown,
            RuleErrorKind::LinkLeaves { to: leaving.to },
        ));
        return scanned;
    }
    let stamp = Stamp::of(dir);
    scanned.stamps.push((dir.to_path_buf(), stamp));
    if stamp.kind != StampKind::Dir {
        return scanned;
    }
    for entry in scanned.entries(dir) {
        let name = match filename::classify(&entry.file_name) {
            FileClass::Ignored | FileClass::OutFilters | FileClass::Cases => continue,
            FileClass::Invalid(kind) => {
                let shown = entry.path.display().to_string();
                scanned.invalid.push(RuleError::new(shown, kind));
                continue;
            }
            FileClass::Rule(name) => name,
        };
        let Some(file) = entry.path.to_str().map(String::from) else {
            scanned.invalid.push(RuleError::new(
                entry.path.display().to_string(),
                RuleErrorKind::Name("path is not UTF-8".into()),
            ));
            continue;
        };
        match reading {
            Reading::Contents => scanned.read_file(entry, file, name, dir_index, dir),
            Reading::NamesOnly => scanned.list_name(entry, file, name, dir_index),
        }
    }
    scanned
}

impl Scanned {
    /// The entries of `dir`, sorted by name; names that are not UTF-8 are
    /// kept as invalid.
    fn entries(&mut self, dir: &Path) -> Vec<Entry> {
        let Ok(listing) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut entries = Vec::new();
        for entry in listing.flatten() {
            let path = entry.path();
            // Gone since the listing began: the folder's stamp says so.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            match entry.file_name().into_string() {
                Ok(file_name) => entries.push(Entry {
                    file_name,
                    path,
                    file_type,
                }),
                Err(raw) => self.invalid.push(RuleError::new(
                    path.display().to_string(),
                    RuleErrorKind::Name(format!(
                        "file name `{}` is not UTF-8",
                        raw.to_string_lossy()
                    )),
                )),
            }
        }
        entries.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        entries
    }

    /// Keeps a rule of a folder that cannot run by its name and type alone.
    fn list_name(&mut self, entry: Entry, file: String, name: RuleName, dir_index: usize) {
        let kind = entry.file_type;
        if kind.is_dir() {
            self.invalid
                .push(RuleError::new(file, RuleErrorKind::Directory));
            return;
        }
        if !kind.is_file() && !kind.is_symlink() {
            self.invalid
                .push(RuleError::new(file, RuleErrorKind::Special));
            return;
        }
        self.rules.push(RuleSpec {
            file,
            file_name: entry.file_name,
            dir_index,
            runner: runner_by_name(&name),
            name,
            filter: None,
            enforcement: None,
            hook: None,
            guard: None,
        });
    }

    /// Keeps a rule file of `folder` with what its contents say, or why it
    /// cannot be used.
    fn read_file(
        &mut self,
        entry: Entry,
        file: String,
        name: RuleName,
        dir_index: usize,
        folder: &Path,
    ) {
        let path = entry.path;
        if entry.file_type.is_symlink() {
            // Refused rather than kept: a rule that runs, or a filter read,
            // from outside its layer would change (or hang, or never stat
            // the same) without its folder noticing. Stamped itself, so
            // replacing it with a file or an inside link recompiles.
            if let Place::Leaves(to) = confine::place(&path, folder) {
                self.stamps.push((path.clone(), Stamp::of_link(&path)));
                self.invalid
                    .push(RuleError::new(file, RuleErrorKind::LinkLeaves { to }));
                return;
            }
        }
        let stamp = Stamp::of(&path);
        let special = match stamp.kind {
            StampKind::Dir => Some(RuleErrorKind::Directory),
            StampKind::Other => Some(RuleErrorKind::Special),
            _ => None,
        };
        if let Some(kind) = special {
            self.stamps.push((path, stamp));
            self.invalid.push(RuleError::new(file, kind));
            return;
        }
        if matches!(name.kind, RuleKind::Filter | RuleKind::Guard)
            || !matches!(name.ext.as_str(), "sh" | "bash" | "py")
        {
            // A filter's or a guard's text, or whether a file runs at all (its mode), is
            // something the directory's mtime does not follow.
            self.stamps.push((path.clone(), stamp));
        }
        let read = || {
            let bytes =
                confine::read_regular(&path, MAX_RULE_BYTES).map_err(|err| match err.kind() {
                    std::io::ErrorKind::FileTooLarge => RuleErrorKind::TooLarge {
                        limit: MAX_RULE_BYTES,
                    },
                    _ => RuleErrorKind::Unreadable(err.to_string()),
                })?;
            String::from_utf8(bytes).map_err(|_| RuleErrorKind::NotUtf8)
        };
        let found = Found {
            shown: file.clone(),
            file_name: entry.file_name,
            dir_index,
            name,
            executable: stamp.is_executable(),
        };
        self.admit(found, read, || Ok(file));
    }

    /// Gives `found` its runner and, for a filter, its compiled form, and
    /// keeps it as a rule run from the path `file` gives (returned); or
    /// keeps why it cannot be used. `read` gives the file's text when it is
    /// needed.
    fn admit(
        &mut self,
        found: Found,
        read: impl FnOnce() -> Result<String, RuleErrorKind>,
        file: impl FnOnce() -> Result<String, RuleErrorKind>,
    ) -> Option<&RuleSpec> {
        let compiled = compile_rule(&found.name, found.executable, read)
            .and_then(|parts| Ok((parts, file().map_err(|kind| (kind, None))?)));
        match compiled {
            Ok(((runner, contents), file)) => {
                self.rules.push(RuleSpec {
                    file,
                    file_name: found.file_name,
                    dir_index: found.dir_index,
                    name: found.name,
                    runner,
                    filter: contents.filter,
                    enforcement: None,
                    hook: None,
                    guard: contents.guard.map(Box::new),
                });
                self.rules.last()
            }
            Err((kind, span)) => {
                self.invalid
                    .push(RuleError::new(found.shown, kind).at(span));
                None
            }
        }
    }
}

/// The package folder `rel`: each rule materialized under `root` and run
/// from there, its materialized copy stamped, so an edit or a deletion of
/// it makes the index stale and the next compile writes the package's own
/// bytes again (a filter's copy excepted).
fn scan_package(rel: &str, dir_index: usize, root: &Path) -> Scanned {
    let mut scanned = Scanned::default();
    for (path, contents, executable) in package::files_in(rel) {
        let file_name = path.rsplit('/').next().unwrap_or(path).to_string();
        let shown = format!("package:rules/{path}");
        let name = match filename::classify(&file_name) {
            FileClass::Ignored | FileClass::OutFilters | FileClass::Cases => continue,
            FileClass::Invalid(kind) => {
                scanned.invalid.push(RuleError::new(shown, kind));
                continue;
            }
            FileClass::Rule(name) => name,
        };
        let read = || String::from_utf8(contents.to_vec()).map_err(|_| RuleErrorKind::NotUtf8);
        let materialize = || {
            package::materialize(root, path, contents, executable)
                .map(|dest| dest.display().to_string())
                .map_err(|err| {
                    RuleErrorKind::Unreadable(format!(
                        "cannot materialize under {}: {err}",
                        root.display()
                    ))
                })
        };
        let found = Found {
            shown,
            file_name,
            dir_index,
            name,
            executable,
        };
        // A filter runs from its compiled record, never from its copy (which
        // only `show` prints), so the copy is not stamped: every hook call
        // would stat it for nothing.
        let kept = scanned
            .admit(found, read, materialize)
            .filter(|rule| rule.name.kind == RuleKind::Condition)
            .map(|rule| PathBuf::from(&rule.file));
        if let Some(dest) = kept {
            let stamp = Stamp::of(&dest);
            scanned.stamps.push((dest, stamp));
        }
    }
    scanned
}

/// What is wrong with a rule file's contents, and where.
type Problem = (RuleErrorKind, Option<(u32, u32)>);

/// What a rule file's contents compile to: a filter's or a guard's record
/// (a condition's contents are its script, run as it is).
#[derive(Default)]
pub(crate) struct Contents {
    /// The compiled filter.
    pub(crate) filter: Option<FilterData>,
    /// The compiled guard.
    pub(crate) guard: Option<GuardData>,
}

/// The runner of a rule file and what its contents compile to; `read`
/// gives the file's text when it is needed.
pub(crate) fn compile_rule(
    name: &RuleName,
    executable: bool,
    read: impl FnOnce() -> Result<String, RuleErrorKind>,
) -> Result<(Runner, Contents), Problem> {
    let runner = runner_for(name, executable).map_err(|kind| (kind, None))?;
    let text = || read().map_err(|kind| (kind, None));
    let contents = match name.kind {
        RuleKind::Filter => Contents {
            filter: Some(filter::compile(&text()?)?),
            ..Contents::default()
        },
        RuleKind::Guard => Contents {
            guard: Some(guard::compile(name, &text()?)?),
            ..Contents::default()
        },
        // Never from a conditions folder: these formats are read whole.
        RuleKind::Condition | RuleKind::Enforcement | RuleKind::HooksYaml | RuleKind::HookMd => {
            Contents::default()
        }
    };
    Ok((runner, contents))
}

/// `.sh`/`.bash` run with bash, `.py` with python3, filters in process, any
/// other extension only when the file is executable.
fn runner_for(name: &RuleName, executable: bool) -> Result<Runner, RuleErrorKind> {
    match runner_by_name(name) {
        Runner::Direct if !executable => Err(RuleErrorKind::NoRunner {
            ext: name.ext.clone(),
        }),
        runner => Ok(runner),
    }
}

/// The runner a file's name gives: whether a file of another extension is
/// executable is its mode, so by name it runs directly.
fn runner_by_name(name: &RuleName) -> Runner {
    if matches!(name.kind, RuleKind::Filter | RuleKind::Guard) {
        return Runner::None;
    }
    match name.ext.as_str() {
        "sh" | "bash" => Runner::Bash,
        "py" => Runner::Python,
        _ => Runner::Direct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// `root/rel` as a rule folder that must stay inside `root`.
    fn disk(root: &Path, rel: &str) -> RuleDir {
        RuleDir::Disk {
            dir: root.join(rel),
            root: root.to_path_buf(),
        }
    }

    /// A repository whose rule folder holds every entry a stranger could
    /// plant, each named as a rule; `None` when `mkfifo` is missing.
    fn hostile() -> Option<(tempfile::TempDir, PathBuf)> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let folder = root.join(".hookdex/conditions");
        std::fs::create_dir_all(folder.join("pre-bash-dir.sh")).unwrap();
        std::fs::create_dir_all(folder.join("_lib")).unwrap();
        std::fs::write(folder.join("_lib/real.sh"), "exit 0\n").unwrap();
        std::fs::write(folder.join("pre-bash-plain.sh"), "exit 0\n").unwrap();
        std::fs::write(folder.join("pre-edit-bad.filter.yaml"), "mode: [\n").unwrap();
        let huge = std::fs::File::create(folder.join("pre-edit-huge.filter.yaml")).unwrap();
        huge.set_len(50 << 20).unwrap();
        symlink("_lib/real.sh", folder.join("pre-bash-inside.sh")).unwrap();
        symlink("/dev/zero", folder.join("pre-edit-zero.filter.yaml")).unwrap();
        symlink("/proc/self/status", folder.join("pre-bash-proc.sh")).unwrap();
        std::fs::write(root.join("outside.sh"), "exit 0\n").unwrap();
        symlink("../../outside.sh", folder.join("pre-bash-out.sh")).unwrap();
        let fifo = folder.join("pre-bash-fifo.sh");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("mkfifo unavailable: skipped");
            return None;
        }
        Some((dir, root))
    }

    fn names(specs: &[RuleSpec]) -> Vec<&str> {
        specs.iter().map(|r| r.file_name.as_str()).collect()
    }

    /// `(file name, reason)` of each invalid entry, sorted.
    fn refused(scanned: &Scanned) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = scanned
            .invalid
            .iter()
            .map(|e| {
                let name = e.file.rsplit('/').next().unwrap_or_default().to_string();
                (name, e.kind.to_string())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_folder_read_by_name_only_keeps_names_and_opens_nothing() {
        let Some((_dir, root)) = hostile() else {
            return;
        };
        let scanned = scan(
            &disk(&root, ".hookdex/conditions"),
            0,
            Path::new("/nonexistent"),
            Reading::NamesOnly,
        );
        assert_eq!(
            names(&scanned.rules),
            [
                "pre-bash-inside.sh",
                "pre-bash-out.sh",
                "pre-bash-plain.sh",
                "pre-bash-proc.sh",
                "pre-edit-bad.filter.yaml",
                "pre-edit-huge.filter.yaml",
                "pre-edit-zero.filter.yaml",
            ]
        );
        assert!(
            scanned.rules.iter().all(|r| r.filter.is_none()),
            "nothing parsed"
        );
        let refused = refused(&scanned);
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(refused[0].0 == "pre-bash-dir.sh" && refused[0].1.contains("directory"));
        assert!(refused[1].0 == "pre-bash-fifo.sh" && refused[1].1.contains("FIFO"));
        // The folder alone decides freshness: its listing is all that was read.
        let stamped: Vec<&Path> = scanned.stamps.iter().map(|(p, _)| p.as_path()).collect();
        assert_eq!(stamped, [root.join(".hookdex/conditions")]);
    }

    #[test]
    fn a_folder_read_in_full_refuses_what_leaves_or_cannot_be_a_rule() {
        let Some((_dir, root)) = hostile() else {
            return;
        };
        let folder = root.join(".hookdex/conditions");
        let scanned = scan(
            &disk(&root, ".hookdex/conditions"),
            0,
            Path::new("/nonexistent"),
            Reading::Contents,
        );
        assert_eq!(
            names(&scanned.rules),
            ["pre-bash-inside.sh", "pre-bash-plain.sh"]
        );
        let reasons: Vec<(&str, &str)> = vec![
            ("pre-bash-dir.sh", "a directory"),
            ("pre-bash-fifo.sh", "FIFO"),
            ("pre-bash-out.sh", "symlink out of its layer"),
            ("pre-bash-proc.sh", "symlink out of its layer (to `/proc/"),
            ("pre-edit-bad.filter.yaml", ""),
            ("pre-edit-huge.filter.yaml", "larger than 1024 KiB"),
            (
                "pre-edit-zero.filter.yaml",
                "symlink out of its layer (to `/dev/zero`)",
            ),
        ];
        let refused = refused(&scanned);
        assert_eq!(refused.len(), reasons.len(), "{refused:?}");
        for ((name, reason), (want_name, want)) in refused.iter().zip(reasons) {
            assert_eq!(name, want_name);
            assert!(reason.contains(want), "{name}: {reason}");
        }
        // Links that leave are stamped themselves, never through.
        for name in [
            "pre-bash-out.sh",
            "pre-bash-proc.sh",
            "pre-edit-zero.filter.yaml",
        ] {
            let path = folder.join(name);
            let stamp = scanned.stamps.iter().find(|(p, _)| *p == path);
            assert_eq!(stamp.map(|(_, s)| s.kind), Some(StampKind::Link), "{name}");
        }
    }

    #[test]
    fn a_layer_folder_linked_out_of_its_root_is_stamped_itself_and_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(root.join(".hookdex")).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("pre-bash-x.sh"), "exit 0\n").unwrap();
        let folder = root.join(".hookdex/conditions");
        symlink(&elsewhere, &folder).unwrap();
        for reading in [Reading::Contents, Reading::NamesOnly] {
            let scanned = scan(
                &disk(&root, ".hookdex/conditions"),
                0,
                Path::new("/nonexistent"),
                reading,
            );
            assert!(scanned.rules.is_empty(), "{reading:?}");
            assert_eq!(scanned.invalid.len(), 1);
            assert!(matches!(
                scanned.invalid[0].kind,
                RuleErrorKind::LinkLeaves { .. }
            ));
            assert_eq!(scanned.stamps.len(), 1);
            assert_eq!(scanned.stamps[0].0, folder);
            assert_eq!(scanned.stamps[0].1.kind, StampKind::Link);
        }
        // A folder linked within its root is read as usual.
        std::fs::remove_file(&folder).unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(root.join("hooks/pre-bash-x.sh"), "exit 0\n").unwrap();
        symlink("../hooks", &folder).unwrap();
        let scanned = scan(
            &disk(&root, ".hookdex/conditions"),
            0,
            Path::new("/nonexistent"),
            Reading::Contents,
        );
        assert_eq!(names(&scanned.rules), ["pre-bash-x.sh"]);
        assert_eq!(scanned.stamps[0].1.kind, StampKind::Dir);
    }

    /// A package condition runs from its materialized copy, stamped so an
    /// edit is noticed; a guard or a filter runs from its compiled record,
    /// and its copy (only `show` prints it) is no input of the index.
    #[test]
    fn package_rules_are_stamped_where_they_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("package");
        for rel in ["conditions/", "profiles/k8s-readonly/.claude/conditions/"] {
            let scanned = scan(&RuleDir::Package(rel.into()), 0, &root, Reading::Contents);
            assert!(!scanned.rules.is_empty(), "{rel}");
            for rule in &scanned.rules {
                let path = PathBuf::from(&rule.file);
                assert!(path.starts_with(&root), "{}", rule.file);
                assert!(path.is_file(), "materialized: {}", rule.file);
                let stamp = scanned.stamps.iter().find(|(p, _)| *p == path);
                let runs_from_copy = rule.name.kind == RuleKind::Condition;
                assert_eq!(
                    stamp.map(|(_, s)| *s),
                    runs_from_copy.then(|| Stamp::of(&path)),
                    "{}",
                    rule.file
                );
            }
        }
    }
}
