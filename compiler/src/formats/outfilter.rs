//! Output-filter files: rtk's TOML DSL (`schema_version = 1`,
//! `[filters.<name>]`), read with `hookdex-outfilter` into compiled
//! filters the index carries. Where they are found:
//!
//! - in every layer's conditions folder, `*.outfilter.toml` and rtk's own
//!   `filters.toml`;
//! - in the package, `rules/outfilters/*.toml` (the shipped set);
//! - where rtk reads a user's files: `$XDG_CONFIG_HOME/rtk/filters.toml`
//!   (default `~/.config/rtk/filters.toml`), as part of the runtime layer,
//!   and a repository's `.rtk/filters.toml`, as part of the directory layer
//!   and behind its trust (an untrusted repository's file is never opened).
//!
//! A file's bad filter (an unknown key, a bad regex) is an invalid entry
//! naming the file, line and key, and the file's other filters still load.
//! Every file read is stamped; a later layer's filter replaces a lower
//! layer's of the same name (decided at run time, by trust).

use std::borrow::Cow;
use std::path::Path;

use hookdex_index::Stamp;
use hookdex_outfilter::{Error as DslError, Filter};

use crate::error::{RuleError, RuleErrorKind};
use crate::sources::{package, RuleDir};

/// The package folder of the shipped output filters.
pub const PACKAGE_FOLDER: &str = "outfilters/";

/// rtk's file name for a folder's filters.
pub const RTK_FILE: &str = "filters.toml";

/// Whether a conditions folder's `file_name` is an output-filter file.
pub fn is_outfilter_file(file_name: &str) -> bool {
    file_name == RTK_FILE || file_name.ends_with(".outfilter.toml")
}

/// One filter found, compiled to the bytes the index keeps.
#[derive(Clone, Debug)]
pub struct Found {
    /// The file as shown (`package:rules/outfilters/x.outfilter.toml`).
    pub file: String,
    /// The filter's name.
    pub name: String,
    /// Its line in the file.
    pub line: u32,
    /// Its `priority`.
    pub priority: i64,
    /// Its `min_size`.
    pub min_size: usize,
    /// Its claim's bytes (a shipped filter's are the binary's).
    pub claim: Cow<'static, [u8]>,
    /// The whole filter's bytes (likewise).
    pub body: Cow<'static, [u8]>,
}

impl Found {
    fn of(file: &str, filter: &Filter) -> Found {
        Found {
            file: file.to_string(),
            name: filter.name().to_string(),
            line: u32::try_from(filter.line()).unwrap_or(0),
            priority: filter.priority(),
            min_size: filter.min_size(),
            claim: Cow::Owned(filter.claim().to_bytes()),
            body: Cow::Owned(filter.to_bytes()),
        }
    }
}

/// What a scan found.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The filters, in file order, then name order within a file.
    pub found: Vec<Found>,
    /// Filters and files that cannot be used.
    pub invalid: Vec<RuleError>,
    /// Every file read or looked for, stamped.
    pub stamps: Vec<(std::path::PathBuf, Stamp)>,
}

/// The output filters of the conditions folder `dir` (the package's
/// conditions folder brings the shipped set too).
pub fn scan(dir: &RuleDir) -> Scanned {
    let mut scanned = Scanned::default();
    match dir {
        RuleDir::Disk { dir, root } => {
            let Ok(listing) = std::fs::read_dir(dir) else {
                return scanned;
            };
            let mut names: Vec<String> = listing
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| is_outfilter_file(name) && !name.starts_with('.'))
                .collect();
            names.sort();
            for name in names {
                scanned.file(&dir.join(name), root);
            }
        }
        RuleDir::Package(rel) => {
            // The shipped set was compiled when the binary was built.
            if rel == "conditions/" {
                let shipped = package::shipped_outfilters().iter();
                scanned.found.extend(shipped.map(|f| Found {
                    file: format!("package:rules/{}", f.path),
                    name: f.name.to_string(),
                    line: f.line,
                    priority: f.priority,
                    min_size: f.min_size,
                    claim: Cow::Borrowed(f.claim_bytes()),
                    body: Cow::Borrowed(f.body_bytes()),
                }));
            }
            let beside = package::files_in(rel)
                .filter(|(path, _, _)| is_outfilter_file(path.rsplit('/').next().unwrap_or(path)));
            for (path, contents, _) in beside {
                let shown = format!("package:rules/{path}");
                match std::str::from_utf8(contents) {
                    Ok(text) => scanned.text(&shown, text),
                    Err(_) => scanned
                        .invalid
                        .push(RuleError::new(shown, RuleErrorKind::NotUtf8)),
                }
            }
        }
    }
    scanned
}

/// The output filters of the one file `path`, which must stay inside
/// `root`: rtk's user and project files. Absent, it is stamped so that
/// its appearing is noticed.
pub fn scan_file(path: &Path, root: &Path) -> Scanned {
    let mut scanned = Scanned::default();
    scanned.file(path, root);
    scanned
}

impl Scanned {
    /// Reads one file on disk ([`super::source::read_source`]) and parses it.
    fn file(&mut self, path: &Path, root: &Path) {
        let shown = path.display().to_string();
        if let Some(text) =
            super::source::read_source(path, root, &mut self.stamps, &mut self.invalid)
        {
            self.text(&shown, &text);
        }
    }

    /// Parses one file's text: its filters, and an invalid entry per error.
    fn text(&mut self, shown: &str, text: &str) {
        let parsed = hookdex_outfilter::parse(text);
        for error in &parsed.errors {
            self.invalid.push(invalid(shown, error));
        }
        self.found.extend(
            parsed
                .file
                .filters
                .iter()
                .map(|filter| Found::of(shown, filter)),
        );
    }
}

/// A DSL error as an invalid entry at its line.
fn invalid(shown: &str, error: &DslError) -> RuleError {
    let kind = match &error.key {
        Some(key) => RuleErrorKind::Key {
            key: key.clone(),
            reason: error.kind.to_string(),
        },
        None => RuleErrorKind::Syntax(error.kind.to_string()),
    };
    let line = u32::try_from(error.line).ok().filter(|line| *line > 0);
    RuleError::new(shown, kind).at(line.map(|line| (line, 1)))
}
