//! A filter file's inline tests (`tests:`), for bundle CI: each test's
//! text is offered by its tool for its path, as a call would offer it, and
//! goes through the filter's `fields`, `paths` and finders alone; the
//! classifier is not asked and no action runs. The spans flagged, in text
//! order, must be the test's `expect`. `hookdex test` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookdex_compiler::formats::filename::{self, FileClass};
use hookdex_compiler::formats::filter::{self, FilterFile, FilterTest};
use hookdex_compiler::formats::{finder_dir, source};
use hookdex_compiler::sources::{package, RuleDir};
use hookdex_compiler::RuleErrorKind;
use hookdex_model::{FilterMode, LayerKind, RuleKind, Step, Target};

use super::finders::{self, Finder, ScriptFile};
use super::paths::Globs;
use super::{text, Filter};
use crate::call::Call;
use crate::exec::Deadline;
use crate::settings::Settings;

/// The package's own conditions folder, whose `_finders` every filter file sees.
const PACKAGE_CONDITIONS: &str = "conditions/";

/// One inline test's run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRun {
    /// The test's name.
    pub name: String,
    /// Its line in the file.
    pub line: u32,
    /// The spans it expects.
    pub expect: Vec<String>,
    /// The spans the finders flagged, in text order.
    pub found: Vec<String>,
    /// Why the text reached no finder, when it did not.
    pub notes: Vec<String>,
    /// Each finder that failed on the text, and why: a test whose finder
    /// failed fails, whatever it expected.
    pub failed_finders: Vec<String>,
}

impl TestRun {
    /// Whether the finders flagged exactly the expected spans.
    pub fn passed(&self) -> bool {
        self.found == self.expect && self.failed_finders.is_empty()
    }
}

/// The inline tests of one filter file, run.
#[derive(Debug)]
pub struct Suite {
    /// The file as shown (`package:rules/...` for a package file).
    pub file: String,
    /// Its tests' runs, or why the file could not be run.
    pub runs: Result<Vec<TestRun>, SuiteError>,
}

/// Why a filter file's inline tests could not be run; shown as one line,
/// with the line and column in the file when known.
#[derive(Debug)]
#[non_exhaustive]
pub enum SuiteError {
    /// The file could not be read, or is not a filter file.
    File {
        /// Why.
        kind: RuleErrorKind,
        /// Its line and column, when the reason has one.
        at: Option<(u32, u32)>,
    },
    /// A finder of the file could not be built.
    Run(hookdex_index::Error),
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuiteError::File {
                kind,
                at: Some((line, column)),
            } => write!(f, "line {line}, column {column}: {kind}"),
            SuiteError::File { kind, at: None } => kind.fmt(f),
            SuiteError::Run(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for SuiteError {}

impl From<RuleErrorKind> for SuiteError {
    fn from(kind: RuleErrorKind) -> SuiteError {
        SuiteError::File { kind, at: None }
    }
}

impl Suite {
    /// Whether the file loaded and every test passed.
    pub fn passed(&self) -> bool {
        self.runs
            .as_ref()
            .is_ok_and(|runs| runs.iter().all(TestRun::passed))
    }
}

/// The suites of `files` (filter files on disk), or of every filter file
/// the package ships when `files` is empty. A file's named finders are the
/// package's `_finders` scripts, overridden by those of the `_finders`
/// folder beside the file, then the built-ins.
pub fn suites(settings: &Settings, files: &[PathBuf]) -> Vec<Suite> {
    let package_root = package::materialized_root(&settings.view.cache_dir);
    let interpreters = hookdex_compiler::interpreters::find();
    let scripts_of = |dirs: &[(RuleDir, LayerKind)]| {
        let mut scripts = BTreeMap::new();
        for (dir, layer) in dirs {
            for (name, script) in finder_dir::scan(dir, &package_root).found {
                let file = ScriptFile {
                    file: PathBuf::from(script.file),
                    runner: script.runner,
                    interpreter: interpreters.get(script.runner).map(PathBuf::from),
                    layer: *layer,
                };
                scripts.insert(name, file);
            }
        }
        scripts
    };
    let base = (
        RuleDir::Package(PACKAGE_CONDITIONS.into()),
        LayerKind::Package,
    );
    let suite = |file: String,
                 text: Result<String, RuleErrorKind>,
                 beside: (RuleDir, LayerKind)| {
        let scripts = scripts_of(&[base.clone(), beside]);
        let runs = text.map_err(SuiteError::from).and_then(|text| {
            let read = filter::read(&text).map_err(|(kind, at)| SuiteError::File { kind, at })?;
            let name = file.rsplit('/').next().unwrap_or(&file);
            run(settings, name, &read, &scripts).map_err(SuiteError::Run)
        });
        Suite { file, runs }
    };
    if files.is_empty() {
        return package::files()
            .filter(|(path, _, _)| {
                let name = path.rsplit('/').next().unwrap_or(path);
                matches!(filename::classify(name), FileClass::Rule(rule) if rule.kind == RuleKind::Filter)
            })
            .map(|(path, contents, _)| {
                let dir = &path[..path.rfind('/').map_or(0, |at| at + 1)];
                let text = package::text(contents);
                let beside = (RuleDir::Package(dir.into()), LayerKind::Package);
                suite(format!("package:rules/{path}"), text, beside)
            })
            .collect();
    }
    files
        .iter()
        .map(|path| {
            let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let text = source::read_text(path);
            let beside = (
                RuleDir::Disk {
                    root: dir.clone(),
                    dir,
                },
                LayerKind::Runtime,
            );
            suite(path.display().to_string(), text, beside)
        })
        .collect()
}

/// Runs the inline tests of `file` (shown as `file_name`), its named
/// finders resolved against `scripts` (name to script, the one that runs)
/// and the built-ins.
///
/// # Errors
///
/// When a DFA of the filter does not validate (only a compiler bug does that).
pub fn run(
    settings: &Settings,
    file_name: &str,
    file: &FilterFile,
    scripts: &BTreeMap<String, ScriptFile>,
) -> Result<Vec<TestRun>, hookdex_index::Error> {
    let compiled = file.filter.load()?;
    let globs = compiled.globs.iter().map(Globs::from).collect();
    let resolved = compiled
        .finders
        .iter()
        .map(|finder| {
            let script = match finder {
                hookdex_index::Finder::Script { name, .. } => scripts.get(*name).cloned(),
                hookdex_index::Finder::Regex { .. } => None,
            };
            Finder::resolve(finder, script)
        })
        .collect();
    let filter = Filter::new(file_name, &compiled, globs, resolved);
    file.tests
        .iter()
        .map(|test| run_one(settings, &filter, test))
        .collect()
}

fn run_one(
    settings: &Settings,
    filter: &Filter,
    test: &FilterTest,
) -> Result<TestRun, hookdex_index::Error> {
    let mut run = TestRun {
        name: test.name.clone(),
        line: test.line,
        expect: test.expect.clone(),
        found: Vec::new(),
        notes: Vec::new(),
        failed_finders: Vec::new(),
    };
    let tool = Call::new(
        Target::Claude,
        Step::Pre,
        &test.tool,
        &serde_json::json!({}),
    )
    .tool
    .name;
    let Some(input) = text::offering(&tool, test.path.as_deref(), &test.text) else {
        run.notes
            .push(format!("tool `{}` offers filters no text", test.tool));
        return Ok(run);
    };
    let units = filter.units(&tool, &input)?;
    if units.is_empty() {
        run.notes
            .push("the filter's fields or paths do not take this text".into());
        return Ok(run);
    }
    if filter.mode == FilterMode::Classifier {
        run.notes
            .push("mode classifier: no finder runs, the classifier is not asked".into());
        return Ok(run);
    }
    let find = finders::Run {
        settings,
        deadline: Deadline::after(std::time::Instant::now(), settings.exec.timeout),
        tool: tool.as_str(),
    };
    let (mut found, failed) = finders::find(&filter.finders, &units, &find);
    found.sort_by_key(|f| (f.unit, f.range.start, f.range.end));
    run.found = found
        .iter()
        .map(|f| units[f.unit].text[f.range.clone()].to_string())
        .collect();
    run.failed_finders = failed.into_iter().map(|f| f.note).collect();
    Ok(run)
}
