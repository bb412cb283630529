//! A conditions folder's `_finders/` subfolder: the named finder scripts a
//! filter's `script:` entries run (`<name>.py` with python3, `<name>.sh`
//! with bash), found at compile time so the hook never lists a folder. The
//! conditions scan ignores the folder (its name starts with `_`); this is
//! the only reader of it.
//!
//! The folder is stamped when it is there (a script added, removed or
//! renamed changes its stamp; the folder appearing changes the conditions
//! folder's). A script's contents are not read: it runs from its path. A
//! symlink that leaves the layer, the folder itself or an entry, is refused
//! and stamped itself, as rule files are ([`confine`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_index::{Stamp, StampKind};
use hookdex_model::Runner;

use crate::error::{RuleError, RuleErrorKind};
use crate::sources::confine::{self, Place};
use crate::sources::{package, RuleDir};

/// The folder's name inside a conditions folder.
pub const FOLDER: &str = "_finders";

/// One finder script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// The finder's name: the file name without `.py` or `.sh`.
    pub name: String,
    /// Where it runs from (a package script: its materialized copy).
    pub file: String,
    /// Its interpreter.
    pub runner: Runner,
}

/// What one `_finders` folder held.
#[derive(Clone, Debug, Default)]
pub struct Scripts {
    /// The scripts by name; of two files with one name (`x.py`, `x.sh`),
    /// the one that sorts last, as with rule files.
    pub found: BTreeMap<String, Script>,
    /// Stamps that decide freshness: the folder, links refused, package copies.
    pub stamps: Vec<(PathBuf, Stamp)>,
    /// Entries that cannot be finders.
    pub invalid: Vec<RuleError>,
}

/// The finder scripts of the conditions folder `dir`; `package_root` is
/// where package files are materialized.
pub fn scan(dir: &RuleDir, package_root: &Path) -> Scripts {
    match dir {
        RuleDir::Disk { dir, root } => scan_disk(&dir.join(FOLDER), root),
        RuleDir::Package(rel) => scan_package(&format!("{rel}{FOLDER}/"), package_root),
    }
}

/// The finder name and runner a file name gives, if it is a finder script.
fn script_name(file_name: &str) -> Option<(&str, Runner)> {
    if file_name.starts_with(['.', '_']) || file_name.ends_with('~') {
        return None;
    }
    let (name, ext) = file_name.rsplit_once('.')?;
    let runner = match ext {
        "py" => Runner::Python,
        "sh" => Runner::Bash,
        _ => return None,
    };
    (!name.is_empty()).then_some((name, runner))
}

fn scan_disk(folder: &Path, root: &Path) -> Scripts {
    let mut scripts = Scripts::default();
    if let Some(leaving) = confine::leaving_link(folder, root) {
        scripts.refuse_link(leaving.link, leaving.to);
        return scripts;
    }
    let stamp = Stamp::of(folder);
    if stamp.kind != StampKind::Dir {
        // Absent (the conditions folder's stamp notices it appear), or not
        // a folder: nothing to run.
        if stamp.kind != StampKind::Absent {
            scripts.stamps.push((folder.to_path_buf(), stamp));
        }
        return scripts;
    }
    scripts.stamps.push((folder.to_path_buf(), stamp));
    let Ok(listing) = std::fs::read_dir(folder) else {
        return scripts;
    };
    let mut entries: Vec<(String, PathBuf)> = listing
        .flatten()
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    entries.sort();
    for (file_name, path) in entries {
        let Some((name, runner)) = script_name(&file_name) else {
            continue;
        };
        if let Place::Leaves(to) = confine::place(&path, folder) {
            scripts.refuse_link(path, to);
            continue;
        }
        let refused = match Stamp::of(&path).kind {
            StampKind::File => None,
            StampKind::Dir => Some(RuleErrorKind::Directory),
            _ => Some(RuleErrorKind::Special),
        };
        let shown = path.display().to_string();
        match refused {
            Some(kind) => scripts.invalid.push(RuleError::new(shown, kind)),
            None => scripts.keep(name, shown, runner),
        }
    }
    scripts
}

fn scan_package(rel: &str, root: &Path) -> Scripts {
    let mut scripts = Scripts::default();
    for (path, contents, executable) in package::files_in(rel) {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        let Some((name, runner)) = script_name(file_name) else {
            continue;
        };
        match package::materialize(root, path, contents, executable) {
            Ok(dest) => {
                // Not stamped: every hook call would stat it for a file
                // only hookdex writes. A copy edited or deleted is written
                // again by the next compile (which materializes the whole
                // package first); until then a deleted one yields nothing,
                // and the hook log says so.
                scripts.keep(name, dest.display().to_string(), runner);
            }
            Err(err) => scripts.invalid.push(RuleError::new(
                format!("package:rules/{path}"),
                RuleErrorKind::Unreadable(format!(
                    "cannot materialize under {}: {err}",
                    root.display()
                )),
            )),
        }
    }
    scripts
}

impl Scripts {
    fn keep(&mut self, name: &str, file: String, runner: Runner) {
        let script = Script {
            name: name.to_string(),
            file,
            runner,
        };
        self.found.insert(name.to_string(), script);
    }

    fn refuse_link(&mut self, link: PathBuf, to: String) {
        let shown = link.display().to_string();
        self.stamps.push((link.clone(), Stamp::of_link(&link)));
        self.invalid
            .push(RuleError::new(shown, RuleErrorKind::LinkLeaves { to }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn script_names() {
        let cases = [
            ("tails.py", Some(("tails", Runner::Python))),
            ("ids.sh", Some(("ids", Runner::Bash))),
            ("a.b.py", Some(("a.b", Runner::Python))),
            (".hidden.py", None),
            ("_lib.py", None),
            ("x.py~", None),
            ("notes.md", None),
            ("x.js", None),
            (".py", None),
            ("py", None),
        ];
        for (file_name, want) in cases {
            assert_eq!(script_name(file_name), want, "{file_name}");
        }
    }

    #[test]
    fn a_folder_yields_its_scripts_and_refuses_what_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let conditions = root.join(".hookdex/conditions");
        let folder = conditions.join(FOLDER);
        std::fs::create_dir_all(folder.join("sub.py")).unwrap();
        for name in ["tails.py", "tails.sh", "ids.py", "README.md", "lib.js"] {
            std::fs::write(folder.join(name), "").unwrap();
        }
        std::fs::write(root.join("outside.py"), "").unwrap();
        symlink("../../../outside.py", folder.join("out.py")).unwrap();
        let rule_dir = RuleDir::Disk {
            dir: conditions.clone(),
            root: root.clone(),
        };
        let scripts = scan(&rule_dir, Path::new("/nonexistent"));
        let found: Vec<(&str, &str, Runner)> = scripts
            .found
            .values()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.file.rsplit('/').next().unwrap(),
                    s.runner,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("ids", "ids.py", Runner::Python),
                ("tails", "tails.sh", Runner::Bash)
            ]
        );
        let refused: Vec<String> = scripts.invalid.iter().map(|e| e.kind.to_string()).collect();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(refused
            .iter()
            .any(|r| r.contains("symlink out of its layer")));
        assert!(refused.iter().any(|r| r.contains("directory")));
        let stamped: Vec<&Path> = scripts.stamps.iter().map(|(p, _)| p.as_path()).collect();
        assert!(stamped.contains(&folder.as_path()));
        // No folder: nothing found, nothing stamped.
        std::fs::remove_dir_all(&folder).unwrap();
        let scripts = scan(&rule_dir, Path::new("/nonexistent"));
        assert!(scripts.found.is_empty() && scripts.stamps.is_empty());
    }
}
