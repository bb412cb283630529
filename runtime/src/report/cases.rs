//! `hookdex test`'s case files ([`hookdex_compiler::formats::cases`]): each
//! case a call run through [`super::try_call`], the hook's own pipeline,
//! with the rule the case file sits beside alone — the unit test of one
//! rule, whatever else the view holds. The rule runs from a scratch
//! `$HOOKDEX_HOME` (its copy in the runtime layer, with the `_finders`
//! beside it), a scratch cache and state, no managed directory, bundle,
//! profile or repository, and the guard off, so neither the person's
//! other rules nor their sessions' state change the answer.
//!
//! Also here: which kind of test file a named file is, read from its
//! extension and its content ([`sort_files`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hookdex_compiler::formats::cases::{self, Case, Decision};
use hookdex_compiler::formats::filename::{classify, FileClass};
use hookdex_compiler::formats::source;
use hookdex_compiler::sources::{self, package, RuleDir};
use hookdex_compiler::RuleErrorKind;
use hookdex_model::LayerKind;
use serde::Serialize;
use serde_json::Value;

use super::{try_call, CallSpec, Context, RuleAnswer, TryCall};
use crate::settings::Settings;

/// The named files of `hookdex test`, by kind.
#[derive(Debug, Default)]
pub struct TestFiles {
    /// Text-filter files (YAML that is not a list of cases).
    pub filters: Vec<PathBuf>,
    /// Output-filter files (any `.toml`, read as rtk's format).
    pub outfilters: Vec<PathBuf>,
    /// Case files: named, or beside a named rule.
    pub cases: Vec<PathBuf>,
    /// Rule files with no case file, each with the one to write.
    pub untested: Vec<(PathBuf, String)>,
}

/// Sorts `files` by what their tests are: a `.toml` is an output-filter
/// file whatever its name; a YAML file is a case file when it holds a list
/// and a filter file otherwise; any other file is a rule, tested by the
/// case file beside it.
pub fn sort_files(files: &[PathBuf]) -> TestFiles {
    let mut sorted = TestFiles::default();
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("toml") => sorted.outfilters.push(file.clone()),
            Some("yaml" | "yml") => {
                let is_cases = cases::is_cases_file(&name)
                    || source::read_text(file).is_ok_and(|text| cases::looks_like_cases(&text));
                match is_cases {
                    true => sorted.cases.push(file.clone()),
                    false => sorted.filters.push(file.clone()),
                }
            }
            _ => {
                let beside = cases::cases_file_of(&name);
                let path = file.with_file_name(&beside);
                match path.is_file() {
                    true => sorted.cases.push(path),
                    false => sorted.untested.push((file.clone(), beside)),
                }
            }
        }
    }
    sorted
}

/// One case, run.
#[derive(Clone, Debug, Serialize)]
pub struct CaseRun {
    /// Its name.
    pub name: String,
    /// Its line in the file.
    pub line: u32,
    /// What differs from what it expects (none: it passed).
    pub failures: Vec<String>,
    /// The rule's answer (`decision: none` when it did not fire).
    pub got: RuleAnswer,
}

impl CaseRun {
    /// Whether the rule answered as the case expects.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// The cases of one case file, run.
#[derive(Debug)]
pub struct CaseSuite {
    /// The file as shown (`package:rules/...` for a shipped one).
    pub file: String,
    /// The rule it tests, when found.
    pub rule: Option<String>,
    /// Its cases' runs, or why they could not run.
    pub runs: Result<Vec<CaseRun>, CasesError>,
}

/// Why a case file's cases could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum CasesError {
    /// The file could not be read, or is not a case file.
    File {
        /// Why.
        kind: RuleErrorKind,
        /// Its line and column, when the reason has one.
        at: Option<(u32, u32)>,
    },
    /// No rule file sits beside it with its name.
    NoRule {
        /// The rule name it tests (`pre-bash.x`).
        stem: String,
    },
    /// The scratch home the rule runs from could not be made.
    Scratch(std::io::Error),
    /// A case could not be judged.
    Report(super::Error),
}

impl std::fmt::Display for CasesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CasesError::File {
                kind,
                at: Some((line, column)),
            } => write!(f, "line {line}, column {column}: {kind}"),
            CasesError::File { kind, at: None } => kind.fmt(f),
            CasesError::NoRule { stem } => {
                write!(f, "no rule beside it: expected a file `{stem}.<ext>`")
            }
            CasesError::Scratch(e) => write!(f, "no scratch home for the rule: {e}"),
            CasesError::Report(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CasesError {}

/// Where a case file is, with the folder its rule is in.
enum Source {
    Disk(PathBuf),
    Package(&'static str),
}

/// The suites of the case files `files`; with none, of every case file in
/// the layers of `settings`' view (not an untrusted repository's) and
/// every one the package ships.
pub fn case_suites(settings: &Settings, files: &[PathBuf], every: bool) -> Vec<CaseSuite> {
    let sources: Vec<Source> = match every {
        true => discover(settings),
        false => files.iter().cloned().map(Source::Disk).collect(),
    };
    sources.iter().map(|s| run_suite(settings, s)).collect()
}

/// Every case file of the view's own layers, then the package's.
fn discover(settings: &Settings) -> Vec<Source> {
    let mut found = Vec::new();
    let layers = sources::resolve(&settings.view).layers;
    let trusted = || crate::load::repository_trusted(settings);
    for layer in layers {
        if layer.kind == LayerKind::Directory && !trusted() {
            continue;
        }
        for dir in layer.dirs {
            let RuleDir::Disk { dir, .. } = dir else {
                continue;
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| cases::is_cases_file(&n.to_string_lossy()))
                })
                .collect();
            names.sort();
            found.extend(names.into_iter().map(Source::Disk));
        }
    }
    found.extend(
        package::files()
            .filter(|(path, _, _)| cases::is_cases_file(path))
            .map(|(path, _, _)| Source::Package(path)),
    );
    found
}

/// A file of the rule's folder: its name, contents and whether it runs.
type Sibling = (String, Vec<u8>, bool);

/// Runs one case file's cases.
fn run_suite(settings: &Settings, source: &Source) -> CaseSuite {
    let (file, text, siblings) = match source {
        Source::Disk(path) => (
            path.display().to_string(),
            source::read_text(path),
            disk_siblings(path),
        ),
        Source::Package(path) => (
            format!("package:rules/{path}"),
            package::text(
                package::files()
                    .find(|(p, _, _)| p == path)
                    .map_or(&[][..], |f| f.1),
            ),
            package_siblings(path),
        ),
    };
    let name = match source {
        Source::Disk(path) => path.file_name().map(|n| n.to_string_lossy().into_owned()),
        Source::Package(path) => path.rsplit('/').next().map(str::to_string),
    }
    .unwrap_or_default();
    let rule = siblings.iter().find(|(n, _, _)| {
        matches!(classify(n), FileClass::Rule(_))
            && cases::cases_file_of(n).eq_ignore_ascii_case(&name)
    });
    let read = text
        .map_err(|kind| (kind, None))
        .and_then(|t| cases::read(&t));
    let runs = match (read, rule) {
        (Err((kind, at)), _) => Err(CasesError::File { kind, at }),
        (Ok(_), None) => Err(CasesError::NoRule {
            stem: cases::rule_stem(&name).unwrap_or(&name).to_string(),
        }),
        (Ok(cases), Some(rule)) => run_cases(settings, rule, &siblings, &cases),
    };
    CaseSuite {
        file,
        rule: rule.map(|(name, _, _)| name.clone()),
        runs,
    }
}

/// The files of a disk case file's folder, with its `_finders/` ones
/// named `_finders/<name>`.
fn disk_siblings(case_file: &Path) -> Vec<Sibling> {
    let dir = case_file.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    for (sub, prefix) in [(dir.to_path_buf(), ""), (dir.join("_finders"), "_finders/")] {
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            use std::os::unix::fs::PermissionsExt;
            let name = entry.file_name().to_string_lossy().into_owned();
            let runs = meta.permissions().mode() & 0o111 != 0;
            if let Ok(bytes) = std::fs::read(&path) {
                files.push((format!("{prefix}{name}"), bytes, runs));
            }
        }
    }
    files
}

/// The package files of a shipped case file's folder, as [`disk_siblings`].
fn package_siblings(case_file: &str) -> Vec<Sibling> {
    let dir = case_file.rsplit_once('/').map_or("", |(d, _)| d);
    package::files()
        .filter_map(|(path, bytes, runs)| {
            let rest = path.strip_prefix(dir)?.strip_prefix('/')?;
            let flat = !rest.contains('/')
                || rest
                    .strip_prefix("_finders/")
                    .is_some_and(|r| !r.contains('/'));
            flat.then(|| (rest.to_string(), bytes.to_vec(), runs))
        })
        .collect()
}

/// Runs `cases` against `rule` alone, from a scratch home holding it and
/// its folder's finders.
fn run_cases(
    settings: &Settings,
    rule: &Sibling,
    siblings: &[Sibling],
    cases: &[Case],
) -> Result<Vec<CaseRun>, CasesError> {
    let scratch = tempfile::Builder::new()
        .prefix("hookdex-test-")
        .tempdir()
        .map_err(CasesError::Scratch)?;
    let root = scratch.path();
    let conditions = root.join("home").join("conditions");
    let finders = siblings
        .iter()
        .filter(|(n, _, _)| n.starts_with("_finders/"));
    for (name, bytes, runs) in std::iter::once(rule).chain(finders) {
        let path = conditions.join(name);
        write_file(&path, bytes, *runs).map_err(CasesError::Scratch)?;
    }
    let cwd = root.join("work");
    std::fs::create_dir_all(&cwd).map_err(CasesError::Scratch)?;
    let overlay = |name: &str| -> Option<OsString> {
        let path = |sub: &str| Some(root.join(sub).into_os_string());
        match name {
            "HOOKDEX_HOME" => path("home"),
            "HOOKDEX_CACHE_DIR" => path("cache"),
            "HOOKDEX_MANAGED_DIR" => path("managed"),
            "HOOKDEX_BUNDLE" | "HOOKDEX_PROFILES" | "HOOKDEX_DIRECTORY_ENV" => None,
            "HOOKDEX_ENFORCE" | "HOOKDEX_GATE" | "HOOKDEX_OUTFILTERS" => Some("off".into()),
            "CONDITIONS_ENABLED" => Some("true".into()),
            _ => std::env::var_os(name),
        }
    };
    // Cases are written in the spelling of the view's harness.
    let scratch_settings = Settings::from_vars(settings.view.target, &cwd, overlay);
    let ctx = Context {
        settings: &scratch_settings,
        session: None,
        var: &overlay,
    };
    let runs = cases
        .iter()
        .map(|case| {
            let spec = CallSpec {
                tool: case.tool.clone(),
                command: case.command.clone(),
                path: case.path.clone(),
                input: case.input.clone(),
                step: case.step,
            };
            let report =
                try_call(&ctx, &TryCall::Flags(spec), Some(&rule.0)).map_err(CasesError::Report)?;
            let got = report
                .rules
                .into_iter()
                .find(|r| r.file == rule.0)
                .unwrap_or_else(|| RuleAnswer::silent(&rule.0, "runtime"));
            Ok(CaseRun {
                name: case.name.clone(),
                line: case.line,
                failures: failures(case, &got),
                got,
            })
        })
        .collect();
    drop(scratch);
    runs
}

fn write_file(path: &Path, bytes: &[u8], runs: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)?;
    let mode = if runs { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// What in `got` differs from what `case` expects.
fn failures(case: &Case, got: &RuleAnswer) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(error) = &got.error {
        failures.push(format!("the rule failed: {error}"));
    }
    let expect = &case.expect;
    let answers = expect.decision.is_some_and(|d| d != Decision::None)
        || expect.reason.is_some()
        || expect.rewrite.is_some();
    if got.detached && answers {
        failures.push(
            "the rule is `.async`: the hook starts it detached and never reads its answer, \
             so a case can expect only `decision: none` (that it runs and exits cleanly)"
                .to_string(),
        );
        return failures;
    }
    if let Some(decision) = expect.decision.filter(|d| *d != got.decision) {
        failures.push(format!(
            "expected decision {}, got {}",
            decision.as_str(),
            got.decision.as_str()
        ));
    }
    if let Some(want) = &expect.reason {
        let reason = got.reason.as_deref().unwrap_or_default();
        if !reason.contains(want.as_str()) {
            failures.push(format!(
                "expected a reason containing {want:?}, got {reason:?}"
            ));
        }
    }
    if let Some(want) = &expect.rewrite {
        if !rewrite_matches(want, got.rewrite.as_ref()) {
            let shown = got.rewrite.as_ref().map_or("none".into(), Value::to_string);
            failures.push(format!("expected the rewrite {want}, got {shown}"));
        }
    }
    failures
}

/// Whether the rewritten input `got` has each key of `want` with its value
/// (`want` a string: the rewritten `command`).
fn rewrite_matches(want: &Value, got: Option<&Value>) -> bool {
    let Some(got) = got else { return false };
    match want {
        Value::String(_) => got.get("command") == Some(want),
        Value::Object(keys) => keys.iter().all(|(k, v)| got.get(k) == Some(v)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rewrite_matches_by_keys_or_command() {
        let got = json!({"command": "git log -20", "timeout": 5});
        assert!(rewrite_matches(&json!("git log -20"), Some(&got)));
        assert!(rewrite_matches(&json!({"timeout": 5}), Some(&got)));
        assert!(!rewrite_matches(&json!({"timeout": 6}), Some(&got)));
        assert!(!rewrite_matches(&json!("git log"), Some(&got)));
        assert!(!rewrite_matches(&json!("git log"), None));
    }

    #[test]
    fn files_sort_by_extension_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let odd_toml = at("f.toml", "schema_version = 1\n");
        let cases = at("mine.yaml", "- name: x\n  expect: {}\n");
        let filter = at("pre-edit-x.filter.yaml", "mode: finders\n");
        let rule = at("pre-bash.git-x.sh", "exit 0\n");
        let tested = at("pre-bash.git-y.sh", "exit 0\n");
        let beside = at("pre-bash.git-y.test.yaml", "- name: y\n  expect: {}\n");
        let sorted = sort_files(&[
            odd_toml.clone(),
            cases.clone(),
            filter.clone(),
            rule.clone(),
            tested,
        ]);
        assert_eq!(sorted.outfilters, [odd_toml]);
        assert_eq!(sorted.cases, [cases, beside]);
        assert_eq!(sorted.filters, [filter]);
        assert_eq!(
            sorted.untested,
            [(rule, "pre-bash.git-x.test.yaml".to_string())]
        );
    }
}
