//! The conditions-directory format: every entry of a rule directory
//! classified by the filename grammar, given a runner, `.filter.yaml` files
//! compiled, and what was read stamped for freshness.

use std::path::{Path, PathBuf};

use hookdex_index::{FilterData, Stamp, StampKind};
use hookdex_model::{RuleKind, Runner};

use crate::error::{RuleError, RuleErrorKind};
use crate::formats::filename::{self, FileClass, RuleName};
use crate::formats::{filter, RuleSpec};
use crate::sources::package;
use crate::sources::RuleDir;

/// What one directory held.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    /// Rule files, sorted by file name.
    pub rules: Vec<RuleSpec>,
    /// Files that cannot be used.
    pub invalid: Vec<RuleError>,
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
            Err(raw) => scanned.invalid.push(RuleError::new(
                path.display().to_string(),
                RuleErrorKind::Name(format!(
                    "file name `{}` is not UTF-8",
                    raw.to_string_lossy()
                )),
            )),
        }
    }
    names.sort();
    for (file_name, path) in names {
        let name = match filename::classify(&file_name) {
            FileClass::Ignored => continue,
            FileClass::Invalid(kind) => {
                scanned
                    .invalid
                    .push(RuleError::new(path.display().to_string(), kind));
                continue;
            }
            FileClass::Rule(name) => name,
        };
        let Some(file) = path.to_str().map(String::from) else {
            scanned.invalid.push(RuleError::new(
                path.display().to_string(),
                RuleErrorKind::Name("path is not UTF-8".into()),
            ));
            continue;
        };
        let stamp = Stamp::of(&path);
        if stamp.kind == StampKind::Dir {
            scanned
                .invalid
                .push(RuleError::new(file, RuleErrorKind::Directory));
            continue;
        }
        if name.kind == RuleKind::Filter || !matches!(name.ext.as_str(), "sh" | "bash" | "py") {
            // A filter's text, or whether a file runs at all (its mode), is
            // something the directory's mtime does not follow.
            scanned.stamps.push((path.clone(), stamp));
        }
        let read = || {
            let bytes =
                std::fs::read(&path).map_err(|e| RuleErrorKind::Unreadable(e.to_string()))?;
            String::from_utf8(bytes).map_err(|_| RuleErrorKind::NotUtf8)
        };
        let found = Found {
            shown: file.clone(),
            file_name,
            dir_index,
            name,
            executable: stamp.is_executable(),
        };
        scanned.admit(found, read, || Ok(file));
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
        scanned.admit(found, read, materialize);
    }
    scanned
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

impl Scanned {
    /// Gives `found` its runner and, for a filter, its compiled form, and
    /// keeps it as a rule run from the path `file` gives; or keeps why it
    /// cannot be used. `read` gives the file's text when it is needed.
    fn admit(
        &mut self,
        found: Found,
        read: impl FnOnce() -> Result<String, RuleErrorKind>,
        file: impl FnOnce() -> Result<String, RuleErrorKind>,
    ) {
        let compiled = compile_rule(&found.name, found.executable, read)
            .and_then(|parts| Ok((parts, file().map_err(|kind| (kind, None))?)));
        match compiled {
            Ok(((runner, filter), file)) => self.rules.push(RuleSpec {
                file,
                file_name: found.file_name,
                dir_index: found.dir_index,
                name: found.name,
                runner,
                filter,
            }),
            Err((kind, span)) => self
                .invalid
                .push(RuleError::new(found.shown, kind).at(span)),
        }
    }
}

/// What is wrong with a rule file's contents, and where.
type Problem = (RuleErrorKind, Option<(u32, u32)>);

/// The runner of a rule file and, for a filter, its compiled form; `read`
/// gives the file's text when it is needed.
pub(crate) fn compile_rule(
    name: &RuleName,
    executable: bool,
    read: impl FnOnce() -> Result<String, RuleErrorKind>,
) -> Result<(Runner, Option<FilterData>), Problem> {
    let runner = runner_for(name, executable).map_err(|kind| (kind, None))?;
    let filter = match name.kind {
        RuleKind::Filter => Some(filter::compile(&read().map_err(|kind| (kind, None))?)?),
        RuleKind::Condition => None,
    };
    Ok((runner, filter))
}

/// `.sh`/`.bash` run with bash, `.py` with python3, filters in process, any
/// other extension only when the file is executable.
fn runner_for(name: &RuleName, executable: bool) -> Result<Runner, RuleErrorKind> {
    if name.kind == RuleKind::Filter {
        return Ok(Runner::None);
    }
    match name.ext.as_str() {
        "sh" | "bash" => Ok(Runner::Bash),
        "py" => Ok(Runner::Python),
        _ if executable => Ok(Runner::Direct),
        ext => Err(RuleErrorKind::NoRunner { ext: ext.into() }),
    }
}
