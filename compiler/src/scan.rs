//! Reads one rule directory: classifies every entry by the filename grammar,
//! picks a runner, validates filter files, and stamps what it read.

use std::path::{Path, PathBuf};

use hookdex_runtime::index::{FilterData, Stamp, StampKind};
use hookdex_runtime::rule::{RuleKind, Runner};

use crate::filename::{self, FileClass, RuleName};
use crate::filter;
use crate::package;
use crate::sources::RuleDir;

/// A file that parsed as a rule.
#[derive(Clone, Debug)]
pub struct ScannedRule {
    /// Full path (package rules: their materialized path).
    pub file: String,
    /// The file name alone, which orders execution within a layer.
    pub file_name: String,
    /// Position of its directory within the layer (later wins a shared key).
    pub dir_index: usize,
    /// The parsed name.
    pub name: RuleName,
    /// How it runs.
    pub runner: Runner,
    /// The compiled filter, for `.filter.yaml` files.
    pub filter: Option<FilterData>,
}

/// What one directory held.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    /// Rule files, sorted by file name.
    pub rules: Vec<ScannedRule>,
    /// Files that do not parse: (path, reason).
    pub invalid: Vec<(String, String)>,
    /// Stamps taken before reading: the directory, and each compiled-content file.
    pub stamps: Vec<(PathBuf, Stamp)>,
}

/// Scans `dir`; `package_root` is where package files are materialized.
pub fn scan(dir: &RuleDir, dir_index: usize, package_root: &Path) -> Scanned {
    match dir {
        RuleDir::Disk(path) => scan_disk(path, dir_index),
        RuleDir::Package(rel) => scan_package(rel, dir_index, package_root),
    }
}

fn scan_disk(dir: &Path, dir_index: usize) -> Scanned {
    let mut scanned = Scanned::default();
    let stamp = Stamp::of(dir);
    scanned.stamps.push((dir.to_path_buf(), stamp));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return scanned;
    };
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_name().into_string() {
            Ok(name) => names.push((name, path)),
            Err(raw) => scanned.invalid.push((
                path.display().to_string(),
                format!("file name `{}` is not UTF-8", raw.to_string_lossy()),
            )),
        }
    }
    names.sort();
    for (file_name, path) in names {
        let name = match filename::classify(&file_name) {
            FileClass::Ignored => continue,
            FileClass::Invalid(reason) => {
                scanned.invalid.push((path.display().to_string(), reason));
                continue;
            }
            FileClass::Rule(name) => name,
        };
        let Some(file) = path.to_str().map(String::from) else {
            scanned
                .invalid
                .push((path.display().to_string(), "path is not UTF-8".into()));
            continue;
        };
        let stamp = Stamp::of(&path);
        if stamp.kind == StampKind::Dir {
            scanned
                .invalid
                .push((file, "a directory, not a rule file".into()));
            continue;
        }
        if name.kind == RuleKind::Filter || !matches!(name.ext.as_str(), "sh" | "bash" | "py") {
            // A filter's text, or whether a file runs at all (its mode), is
            // something the directory's mtime does not follow.
            scanned.stamps.push((path.clone(), stamp));
        }
        let read = || std::fs::read_to_string(&path).map_err(|e| format!("cannot read: {e}"));
        let (runner, filter) = match compile_rule(&name, stamp.is_executable(), read) {
            Ok(parts) => parts,
            Err(reason) => {
                scanned.invalid.push((file, reason));
                continue;
            }
        };
        scanned.rules.push(ScannedRule {
            file,
            file_name,
            dir_index,
            name,
            runner,
            filter,
        });
    }
    scanned
}

fn scan_package(rel: &str, dir_index: usize, root: &Path) -> Scanned {
    let mut scanned = Scanned::default();
    for (path, contents, executable) in package::files_in(rel) {
        let file_name = path.rsplit('/').next().unwrap_or(path).to_string();
        let shown = format!("package:rules/{path}");
        let name = match filename::classify(&file_name) {
            FileClass::Ignored => continue,
            FileClass::Invalid(reason) => {
                scanned.invalid.push((shown, reason));
                continue;
            }
            FileClass::Rule(name) => name,
        };
        let read = || String::from_utf8(contents.to_vec()).map_err(|_| "not UTF-8".to_string());
        let (runner, filter) = match compile_rule(&name, executable, read) {
            Ok(parts) => parts,
            Err(reason) => {
                scanned.invalid.push((shown, reason));
                continue;
            }
        };
        let file = match package::materialize(root, path, contents, executable) {
            Ok(dest) => dest.display().to_string(),
            Err(err) => {
                scanned.invalid.push((
                    shown,
                    format!("cannot materialize under {}: {err}", root.display()),
                ));
                continue;
            }
        };
        scanned.rules.push(ScannedRule {
            file,
            file_name,
            dir_index,
            name,
            runner,
            filter,
        });
    }
    scanned
}

/// The runner of a rule file and, for a filter, its compiled form; `read`
/// gives the file's text when it is needed.
fn compile_rule(
    name: &RuleName,
    executable: bool,
    read: impl FnOnce() -> Result<String, String>,
) -> Result<(Runner, Option<FilterData>), String> {
    let runner = runner_for(name, executable)?;
    let filter = match name.kind {
        RuleKind::Filter => Some(filter::compile(&read()?)?),
        RuleKind::Condition => None,
    };
    Ok((runner, filter))
}

/// `.sh`/`.bash` run with bash, `.py` with python3, filters in process, any
/// other extension only when the file is executable.
fn runner_for(name: &RuleName, executable: bool) -> Result<Runner, String> {
    if name.kind == RuleKind::Filter {
        return Ok(Runner::None);
    }
    match name.ext.as_str() {
        "sh" | "bash" => Ok(Runner::Bash),
        "py" => Ok(Runner::Python),
        _ if executable => Ok(Runner::Direct),
        ext => Err(format!(
            "extension `.{ext}` has no runner and the file is not executable (chmod +x it, or use .sh or .py)"
        )),
    }
}
