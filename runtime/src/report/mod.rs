//! The reports the binary prints, as data: [`list`], [`explain`],
//! [`show`], [`doctor`], [`try_call`] (`hookdex try`) and the case files
//! `hookdex test` runs through it ([`case_suites`], with [`sort_files`]
//! telling a named file's kind). Each opens the index (and the managed one) itself, assembles
//! what it shows and returns a value that serializes to its command's
//! `--json` output key for key; the binary only prints. Beneath them,
//! [`verdicts`] (why each rule fires or not for one call) and the listing
//! of an index.

mod call;
mod cases;
mod doctor;
mod error;
mod explain;
mod list;
mod listing;
mod show;
mod status;
mod try_call;
mod verdicts;

use std::ffi::OsString;

use serde::Serialize;

pub use self::call::CallSpec;
pub use self::cases::{case_suites, sort_files, CaseRun, CaseSuite, CasesError, TestFiles};
pub use self::doctor::{
    doctor, BinaryReport, DoctorReport, DoctorRequest, EnforcementReport, EnvReport, HarnessReport,
    IndexReport, Problem, RulesReport, ScopeReport, ShadowEntry, TrustReport, WiredReport,
};
pub use self::error::Error;
pub use self::explain::{
    explain, Cadence, CallGate, DynamicEntry, ExplainReport, Fired, Header, IndexEntry,
    ManagedEntry, Skipped,
};
pub use self::list::{
    list, ActiveRule, BreakerEntry, EnforcementEntry, FilterEntry, FinderEntry, Fire, HookEntry,
    HookRuns, InputEntry, LayerEntry, ListReport, OutFilterEntry, OverriddenEntry, RequiresEntry,
    TrustEntry,
};
pub use self::show::{show, Shown};
pub use self::status::{EnforcementStatus, GateStatus};
pub use self::try_call::{
    try_call, MergedAnswer, ReplyEntry, RuleAnswer, TryCall, TryReport, TRY_SESSION,
};
pub use self::verdicts::{verdicts, via_text, HookProbe, Verdict};
use crate::lint::Warning;
use crate::settings::Settings;

/// What a report is asked under: the settings, the session whose gate and
/// guard it shows, and the environment (read by hooks' requirements and
/// the MCP tool names a harness's settings define).
pub struct Context<'a> {
    /// The settings of the directory asked about.
    pub settings: &'a Settings,
    /// The session, when one is named.
    pub session: Option<&'a str>,
    /// Reads an environment variable.
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
}

/// A file that did not parse, as `compile --json` and `list --json` show
/// it: the place `null` when unknown.
#[derive(Clone, Debug, Serialize)]
pub struct InvalidEntry {
    /// The file.
    pub file: String,
    /// Why.
    pub reason: String,
    /// The line, 1-based.
    pub line: Option<u32>,
    /// The column, 1-based.
    pub column: Option<u32>,
    /// `file: line:col: reason`, or `file: reason` without a place.
    #[serde(skip)]
    pub message: String,
}

impl From<&hookdex_index::Invalid<'_>> for InvalidEntry {
    fn from(invalid: &hookdex_index::Invalid<'_>) -> InvalidEntry {
        InvalidEntry {
            file: invalid.file.into(),
            reason: invalid.reason.into(),
            line: invalid.at.map(|(line, _)| line),
            column: invalid.at.map(|(_, column)| column),
            message: invalid.message(),
        }
    }
}

impl From<&hookdex_index::InvalidData> for InvalidEntry {
    fn from(invalid: &hookdex_index::InvalidData) -> InvalidEntry {
        InvalidEntry {
            file: invalid.file.clone(),
            reason: invalid.reason.clone(),
            line: invalid.at.map(|(line, _)| line),
            column: invalid.at.map(|(_, column)| column),
            message: invalid.message(),
        }
    }
}

/// A lint warning, as `compile --json` and `list --json` show it.
#[derive(Clone, Debug, Serialize)]
pub struct WarningEntry {
    /// The file it is about.
    pub file: String,
    /// What looks wrong and what to do.
    pub reason: String,
}

impl From<&Warning<'_>> for WarningEntry {
    fn from(warning: &Warning<'_>) -> WarningEntry {
        WarningEntry {
            file: warning.file.into(),
            reason: warning.reason.clone(),
        }
    }
}
