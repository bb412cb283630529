//! `hookdex explain` as data: every rule's verdict for one call, with what
//! the gate says of it, the guard, the indexes' freshness and, with
//! `--input`, what each firing filter's finders flag. Serialized, it is
//! `explain --json` key for key; the text fields the binary prints besides
//! are skipped.

use std::path::PathBuf;

use hookdex_model::{LayerKind, RuleKind};
use serde::{Serialize, Serializer};
use serde_json::json;

use super::status::{EnforcementStatus, GateStatus};
use super::{verdicts, CallSpec, Context, Error};
use crate::filters::trace::{trace, FilterTrace};
use crate::load::{self, Verify};

/// What `hookdex explain` shows.
#[derive(Clone, Debug, Serialize)]
pub struct ExplainReport {
    /// The rules that fire, in execution order.
    pub fires: Vec<Fired>,
    /// The rules that do not, each with why.
    pub skipped: Vec<Skipped>,
    /// The programs a shell command runs.
    pub programs: Vec<String>,
    /// The parts of a shell command no program can be read from.
    pub dynamic: Vec<DynamicEntry>,
    /// `HOOKDEX_SHELL_STRICT`.
    pub shell_strict: bool,
    /// The tool, normalized.
    pub tool: String,
    /// The step.
    pub step: &'static str,
    /// The harness.
    pub target: &'static str,
    /// The directory layer's trust verdict, one line.
    pub trust: String,
    /// Its kind.
    pub trust_kind: &'static str,
    /// The gate, and whether this call changes rule sources.
    pub gate: CallGate,
    /// The guard.
    pub enforcement: EnforcementStatus,
    /// The index.
    pub index: IndexEntry,
    /// The administrator's managed index, when it runs apart.
    pub managed_index: Option<ManagedEntry>,
    /// What the text header shows besides.
    #[serde(skip)]
    pub header: Header,
}

/// The call as the text header shows it.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// The tool as the harness spelled it.
    pub raw_tool: String,
    /// How the tool's name was normalized.
    pub via: String,
    /// Whether the tool is the shell.
    pub is_bash: bool,
    /// The shell command.
    pub command: Option<String>,
    /// `--path`.
    pub path: Option<String>,
    /// Each dynamic part, as one line.
    pub dynamic: Vec<String>,
    /// The step's event.
    pub event: &'static str,
    /// The repository, when there is one.
    pub repo_root: Option<String>,
    /// How many files did not parse.
    pub invalid_count: usize,
}

/// A rule that fires.
#[derive(Clone, Debug, Serialize)]
pub struct Fired {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Which alternative matched.
    pub why: String,
    /// What a filter's finders flag in `--input`.
    #[serde(
        rename = "filter",
        skip_serializing_if = "Option::is_none",
        serialize_with = "trace_json"
    )]
    pub trace: Option<FilterTrace>,
    /// The enforcement it carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Cadence>,
    /// What a guard decides for the call (decided here as the hook would:
    /// a guard starts nothing); `None` for another rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardDecision>,
    /// Its file's name.
    #[serde(skip)]
    pub name: String,
}

/// What a guard decides for one call.
#[derive(Clone, Debug, Serialize)]
pub struct GuardDecision {
    /// `deny`, `ask`, or `none` (it has no objection).
    pub decision: &'static str,
    /// Why, when it objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An enforcement's id and cadence.
#[derive(Clone, Debug, Serialize)]
pub struct Cadence {
    /// Its id.
    pub id: String,
    /// Every how many matching calls it speaks.
    pub cadence: u32,
}

/// A rule that does not fire.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Why it does not fire.
    pub reason: String,
    /// Its file's name.
    #[serde(skip)]
    pub name: String,
}

/// A part of a shell command no program can be read from.
#[derive(Clone, Debug, Serialize)]
pub struct DynamicEntry {
    /// Why.
    pub reason: &'static str,
    /// Its text.
    pub text: String,
}

/// The gate, with whether this call changes rule sources.
#[derive(Clone, Debug, Serialize)]
pub struct CallGate {
    /// The session's gate.
    #[serde(flatten)]
    pub status: GateStatus,
    /// Why the call changes a rule source, if it does.
    pub changes_rules: Option<String>,
}

/// The index's freshness.
#[derive(Clone, Debug, Serialize)]
pub struct IndexEntry {
    /// Whether it was fresh.
    pub fresh: bool,
    /// Its state, one line.
    pub state: String,
    /// Its file.
    pub path: PathBuf,
    /// How long the lookup took, in nanoseconds.
    pub lookup_ns: u64,
}

/// The managed index's freshness.
#[derive(Clone, Debug, Serialize)]
pub struct ManagedEntry {
    /// Whether it was fresh.
    pub fresh: bool,
    /// Its state, one line.
    pub state: String,
    /// Its file.
    pub path: PathBuf,
}

/// Every rule's verdict for the call `spec` describes, under `cx`.
///
/// # Errors
///
/// When an index is damaged, or `spec` does not describe a call.
pub fn explain(cx: &Context<'_>, spec: &CallSpec) -> Result<ExplainReport, Error> {
    let settings = cx.settings;
    let call = spec.call(settings, cx.var)?;
    let (file, state) = load::load(&settings.view, Verify::Full);
    let index = file.index()?;
    let meta = index.meta()?;
    let trust = settings.trust(&meta);
    let managed = settings
        .managed_view()
        .map(|view| load::load(&view, Verify::Full));
    let managed_index = match &managed {
        Some((file, _)) => Some(file.index()?),
        None => None,
    };
    let landing = spec.landing(&call)?;
    let paths: Vec<Option<&str>> = landing.iter().map(Option::as_deref).collect();
    let input = spec.input()?;
    let (verdicts, lookup_ns) = verdicts(
        &index,
        managed_index.as_ref(),
        &call.query(settings.shell_strict),
        &paths,
        &spec.probe(settings, &input, cx.var),
        &trust,
        settings.switches(),
    )?;
    // What the gate, which comes before every rule, says of the call.
    let sources = crate::gate::rule_sources(&settings.view);
    let changes_rules = crate::gate::changes_rules(
        &spec.tool,
        &input,
        &call,
        &settings.exec.cwd,
        &sources,
        cx.var,
    );
    let mut fires = Vec::new();
    let mut skipped = Vec::new();
    for v in &verdicts {
        if !v.fires {
            skipped.push(Skipped {
                file: v.rule.file.to_string(),
                layer: v.layer.label.to_string(),
                reason: v.why.clone(),
                name: v.rule.file_name().to_string(),
            });
            continue;
        }
        // With --input, what a firing filter's finders flag in it.
        let trace = match (&spec.input, v.rule.kind) {
            (Some(_), RuleKind::Filter) => {
                let from = match &managed_index {
                    Some(managed) if v.layer.kind == LayerKind::Managed => managed,
                    _ => &index,
                };
                trace(
                    from,
                    v.rule.id,
                    v.rule.file_name(),
                    &call.tool.name,
                    &input,
                    &trust,
                    settings.switches(),
                    settings,
                )?
            }
            _ => None,
        };
        fires.push(Fired {
            file: v.rule.file.to_string(),
            layer: v.layer.label.to_string(),
            why: v.why.clone(),
            trace,
            enforcement: match index.enforcement(v.rule.id) {
                Ok(Some(e)) => Some(Cadence {
                    id: e.id.to_string(),
                    cadence: e.cadence,
                }),
                _ => None,
            },
            guard: match v.rule.kind {
                RuleKind::Guard => {
                    let from = match &managed_index {
                        Some(managed) if v.layer.kind == LayerKind::Managed => managed,
                        _ => &index,
                    };
                    from.guard(v.rule.id)?.map(|guard| {
                        let at = settings.place();
                        let judged = crate::guards::judge_call(&guard, &call, &input, &at);
                        GuardDecision {
                            decision: judged.as_ref().map_or("none", |j| j.decision.as_str()),
                            reason: judged.map(|j| j.reason),
                        }
                    })
                }
                _ => None,
            },
            name: v.rule.file_name().to_string(),
        });
    }
    Ok(ExplainReport {
        fires,
        skipped,
        programs: call.programs.clone(),
        dynamic: call
            .dynamic
            .iter()
            .map(|d| DynamicEntry {
                reason: d.reason.as_str(),
                text: d.text.clone(),
            })
            .collect(),
        shell_strict: settings.shell_strict,
        tool: call.tool.name.as_str().to_string(),
        step: call.step.as_str(),
        target: settings.view.target.as_str(),
        trust: trust.to_string(),
        trust_kind: trust.kind(),
        gate: CallGate {
            status: GateStatus::of(settings, cx.session),
            changes_rules,
        },
        enforcement: EnforcementStatus::of(settings, cx.session),
        index: IndexEntry {
            fresh: state.is_fresh(),
            state: state.describe(),
            path: file.path().to_path_buf(),
            lookup_ns,
        },
        managed_index: managed.as_ref().map(|(file, state)| ManagedEntry {
            fresh: state.is_fresh(),
            state: state.describe(),
            path: file.path().to_path_buf(),
        }),
        header: Header {
            raw_tool: call.raw_tool.clone(),
            via: call.tool.via.to_string(),
            is_bash: call.tool.name.is_bash(),
            command: call.command.clone(),
            path: spec.path.clone(),
            dynamic: call.dynamic.iter().map(ToString::to_string).collect(),
            event: call.step.event().as_str(),
            repo_root: meta.repo_root.map(str::to_string),
            invalid_count: index.invalid_count(),
        },
    })
}

/// A traced filter as `explain --json` adds it to a firing filter's entry.
fn trace_json<S: Serializer>(trace: &Option<FilterTrace>, out: S) -> Result<S::Ok, S::Error> {
    let Some(t) = trace else {
        return out.serialize_none();
    };
    json!({
        "mode": t.mode.as_str(),
        "texts": t.units,
        "finders": t.finders.iter().map(|f| json!({
            "finder": f.name,
            "failed": f.failed,
            "spans": f.spans.iter().map(|s| json!({
                "path": s.path, "start": s.start, "end": s.end, "text": s.text, "reason": s.reason,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "would_ask": t.would_ask,
    })
    .serialize(out)
}
