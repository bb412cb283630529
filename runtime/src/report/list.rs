//! `hookdex list` as data: the layers with their trust, the active rules
//! with their filter, enforcement or hook, the finder scripts, the output
//! filters, the invalid files, the warnings (a managed index compiled on
//! every call among them), the gate and the guard, and, for a call, what
//! fires. Serialized, it is `list --json` key for key.

use hookdex_model::{
    HookAction, HookSpec, LayerKind, Permission, RuleKind, RunVerdict, Step, Trust,
};
use serde::Serialize;

use super::listing::listing;
use super::status::{EnforcementStatus, GateStatus};
use super::{verdicts, CallSpec, Context, Error, InvalidEntry, WarningEntry};
use crate::hooks;
use crate::load::{self, Verify};
use crate::state::breaker::{Breakers, Gate};

/// What `hookdex list` shows.
#[derive(Clone, Debug, Serialize)]
pub struct ListReport {
    /// Every layer.
    pub layers: Vec<LayerEntry>,
    /// Rules not overridden, in execution order.
    pub active: Vec<ActiveRule>,
    /// Every layer's `_finders` scripts.
    pub finders: Vec<FinderEntry>,
    /// Every layer's output filters, in choosing order.
    pub output_filters: Vec<OutFilterEntry>,
    /// Files that did not parse.
    pub invalid: Vec<InvalidEntry>,
    /// Warnings about what is listed.
    pub warnings: Vec<WarningEntry>,
    /// For a call, the rules that fire.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fires: Option<Vec<Fire>>,
    /// With `--all`, the rules a higher layer's rule of the same key
    /// overrides, in execution order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overridden: Option<Vec<OverriddenEntry>>,
    /// The session's gate.
    pub gate: GateStatus,
    /// The session's guard.
    pub enforcement: EnforcementStatus,
    /// The directory layer's trust verdict, as one line.
    #[serde(skip)]
    pub trust: String,
}

/// One layer.
#[derive(Clone, Debug, Serialize)]
pub struct LayerEntry {
    /// Its label.
    pub label: String,
    /// Its folder.
    pub dir: String,
    /// How many rules it holds.
    pub count: u32,
    /// Whether its rules may run (only the directory layer can be untrusted).
    pub trusted: bool,
    /// Why the repository's own layer runs or not (the directory layer only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustEntry>,
    /// Its kind.
    #[serde(skip)]
    pub kind: LayerKind,
}

/// The directory layer's trust.
#[derive(Clone, Debug, Serialize)]
pub struct TrustEntry {
    /// The verdict's kind (`owner`, `no-origin`, …).
    pub kind: &'static str,
    /// The verdict, one line.
    pub why: String,
}

/// One active rule.
#[derive(Clone, Debug, Serialize)]
pub struct ActiveRule {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Its step.
    pub step: &'static str,
    /// Its matcher.
    pub matcher: String,
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: &'static str,
    /// The format it was written in.
    pub format: &'static str,
    /// Whether it runs here (the managed index's rules count).
    pub runs: bool,
    /// A filter's mode, action and round cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterEntry>,
    /// The enforcement it carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<EnforcementEntry>,
    /// A hook's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// A hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook: Option<HookEntry>,
    /// A guard: what it judges and its entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardEntry>,
    /// Its verdict.
    #[serde(skip)]
    pub verdict: RunVerdict,
}

/// A filter's settings.
#[derive(Clone, Debug, Serialize)]
pub struct FilterEntry {
    /// `mode`.
    pub mode: &'static str,
    /// `action`.
    pub action: &'static str,
    /// `max_rounds`.
    pub max_rounds: u32,
}

/// A guard: what it judges, its entries by decision, and its answers to
/// a use no `allow` entry matches and to one the text cannot tell.
#[derive(Clone, Debug, Serialize)]
pub struct GuardEntry {
    /// `program`, `path` or `fields`.
    pub judges: &'static str,
    /// The entries that deny.
    pub deny: Vec<String>,
    /// The entries that ask.
    pub ask: Vec<String>,
    /// The `allow` entries; `None` when the guard has no allow-list.
    pub allow: Option<Vec<String>>,
    /// What a use no `allow` entry matches gets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<&'static str>,
    /// What a use the text cannot tell gets.
    pub cannot_tell: &'static str,
    /// Its reason.
    pub reason: String,
}

impl GuardEntry {
    /// The entry of `guard`.
    pub fn of(guard: &hookdex_index::GuardData) -> GuardEntry {
        let of = |decision: Permission| -> Vec<String> {
            guard
                .entries
                .iter()
                .filter(|e| e.decision == decision)
                .map(|e| e.text.clone())
                .collect()
        };
        GuardEntry {
            judges: guard.kind.as_str(),
            deny: of(Permission::Deny),
            ask: of(Permission::Ask),
            allow: guard.otherwise.map(|_| of(Permission::Allow)),
            otherwise: guard.otherwise.map(Permission::as_str),
            cannot_tell: guard.cannot_tell.as_str(),
            reason: guard.reason.clone(),
        }
    }
}

/// An enforcement a rule carries.
#[derive(Clone, Debug, Serialize)]
pub struct EnforcementEntry {
    /// Its id.
    pub id: String,
    /// Every how many matching calls it speaks.
    pub cadence: u32,
    /// What it says.
    pub message: String,
}

/// A hook: what it runs, on which events, its matchers and requirements,
/// and (`HOOK.md`) its breaker and why it is held back here, if it is.
#[derive(Clone, Debug, Serialize)]
pub struct HookEntry {
    /// How it is named.
    pub label: String,
    /// The line of its group or front matter.
    pub line: u32,
    /// `command` or `prompt`.
    #[serde(rename = "type")]
    pub action: &'static str,
    /// Its source's own name of its event.
    pub event: String,
    /// The events it answers.
    pub events: Vec<String>,
    /// How long it may take, in seconds.
    pub timeout_s: f64,
    /// The group's `matcher`.
    pub matcher: Option<String>,
    /// The group's `input_matcher`.
    pub input_matcher: Vec<InputEntry>,
    /// Why it does not run now, if it does not.
    pub held: Option<String>,
    /// What it runs.
    #[serde(flatten)]
    pub runs: HookRuns,
    /// What must hold for it to run (`HOOK.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires: Option<RequiresEntry>,
    /// Its breaker (`HOOK.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker: Option<BreakerEntry>,
}

/// What a hook runs.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum HookRuns {
    /// `sh -c <command>`.
    Command {
        /// The command line.
        command: String,
    },
    /// A rule the classifier judges.
    Prompt {
        /// The rule.
        prompt: String,
        /// The model asked for.
        model: Option<String>,
    },
}

/// One `input_matcher` entry.
#[derive(Clone, Debug, Serialize)]
pub struct InputEntry {
    /// The dotted field path, or `None` for the whole input.
    pub field: Option<String>,
    /// The regex as written.
    pub regex: String,
}

/// A `HOOK.md` hook's `[requires]`.
#[derive(Clone, Debug, Serialize)]
pub struct RequiresEntry {
    /// Operating systems.
    pub os: Vec<String>,
    /// Programs on `PATH`.
    pub bins: Vec<String>,
    /// Variables that must be set.
    pub env: Vec<String>,
}

/// A `HOOK.md` hook's breaker.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum BreakerEntry {
    /// Closed, after so many failures in a row.
    Closed {
        /// Always `false`.
        open: bool,
        /// Failures in a row.
        failures: u32,
    },
    /// Open until a time.
    Open {
        /// Always `true`.
        open: bool,
        /// When it closes, in milliseconds since the epoch.
        until_ms: u64,
    },
}

/// One finder script.
#[derive(Clone, Debug, Serialize)]
pub struct FinderEntry {
    /// Its name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Whether it is the one of its name that runs here.
    pub runs: bool,
}

/// One output filter.
#[derive(Clone, Debug, Serialize)]
pub struct OutFilterEntry {
    /// Its name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Its line there.
    pub line: u32,
    /// Its layer's label.
    pub layer: String,
    /// Whether it is the one of its name that stands here.
    pub stands: bool,
}

/// A rule another rule overrides (`list --all`).
#[derive(Clone, Debug, Serialize)]
pub struct OverriddenEntry {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Its step.
    pub step: &'static str,
    /// The file of the rule that runs in its place.
    pub overridden_by: String,
    /// That rule's layer's label.
    pub by_layer: String,
}

/// A rule that fires for the call asked about.
#[derive(Clone, Debug, Serialize)]
pub struct Fire {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Which alternative matched.
    pub why: String,
}

/// The listing under `cx`, limited to `step` if given; with `call`, what
/// fires for it; with `all`, the overridden rules too.
///
/// # Errors
///
/// When an index is damaged, or `call` does not describe a call.
pub fn list(
    cx: &Context<'_>,
    step: Option<Step>,
    call: Option<&CallSpec>,
    all: bool,
) -> Result<ListReport, Error> {
    let settings = cx.settings;
    let (file, _) = load::load(&settings.view, Verify::Full);
    let index = file.index()?;
    let listing = listing(&index, settings, step)?;
    let managed = settings
        .managed_view()
        .map(|view| (view.index_path(), load::load(&view, Verify::Full)));
    let mut warnings: Vec<WarningEntry> = listing.warnings.iter().map(WarningEntry::from).collect();
    if let Some((path, (_, state))) = managed.as_ref().filter(|(_, (_, state))| !state.is_fresh()) {
        warnings.push(WarningEntry {
            file: path.display().to_string(),
            reason: format!(
                "the managed layer is compiled on every call ({}): its owner runs `hookdex compile --managed`",
                state.describe()
            ),
        });
    }
    let trust = &listing.trust;
    let fires = match call {
        None => None,
        Some(spec) => {
            let managed_index = match &managed {
                Some((_, (file, _))) => Some(file.index()?),
                None => None,
            };
            Some(fires(cx, &index, managed_index.as_ref(), spec, trust)?)
        }
    };
    let label = |layer: u16| listing.layers[usize::from(layer)].0.label.to_string();
    let breakers = Breakers::new(&settings.view.home, settings.breaker_cooldown);
    let mut active = Vec::with_capacity(listing.active.len());
    for (rule, verdict) in &listing.active {
        let filter = index.filter(rule.id)?.map(|f| FilterEntry {
            mode: f.mode.as_str(),
            action: f.action.as_str(),
            max_rounds: f.max_rounds,
        });
        let hook = match rule.kind {
            RuleKind::HooksYaml | RuleKind::HookMd => {
                let spec = hooks::spec(&index, rule.id)?;
                let held = match rule.kind {
                    RuleKind::HookMd => hooks::held(&spec, rule.file, &breakers, cx.var),
                    _ => None,
                };
                Some(hook_entry(rule.kind, &spec, held, &breakers, rule.file))
            }
            _ => None,
        };
        active.push(ActiveRule {
            file: rule.file.to_string(),
            layer: label(rule.layer),
            step: rule.step.as_str(),
            matcher: rule.matcher.to_string(),
            name: rule.name.to_string(),
            kind: rule.kind.as_str(),
            format: rule.kind.format(),
            runs: verdict.runs() || *verdict == RunVerdict::ManagedApart,
            filter,
            enforcement: match index.enforcement(rule.id) {
                Ok(Some(e)) => Some(EnforcementEntry {
                    id: e.id.to_string(),
                    cadence: e.cadence,
                    message: e.message.to_string(),
                }),
                _ => None,
            },
            line: hook.as_ref().map(|h| h.line),
            hook,
            guard: index.guard(rule.id)?.map(|g| GuardEntry::of(&g.data)),
            verdict: *verdict,
        });
    }
    Ok(ListReport {
        layers: listing
            .layers
            .iter()
            .map(|(l, trusted)| LayerEntry {
                label: l.label.to_string(),
                dir: l.dir.to_string(),
                count: l.count,
                trusted: *trusted,
                trust: (l.kind == LayerKind::Directory).then(|| TrustEntry {
                    kind: trust.kind(),
                    why: trust.to_string(),
                }),
                kind: l.kind,
            })
            .collect(),
        active,
        finders: listing
            .finders
            .iter()
            .map(|(f, runs)| FinderEntry {
                name: f.name.to_string(),
                file: f.file.to_string(),
                layer: label(f.layer),
                runs: *runs,
            })
            .collect(),
        output_filters: listing
            .out_filters
            .iter()
            .map(|(f, stands)| OutFilterEntry {
                name: f.name.to_string(),
                file: f.file.to_string(),
                line: f.line,
                layer: label(f.layer),
                stands: *stands,
            })
            .collect(),
        invalid: listing.invalid.iter().map(InvalidEntry::from).collect(),
        warnings,
        fires,
        overridden: match all {
            true => Some(overridden(&index, step)?),
            false => None,
        },
        gate: GateStatus::of(settings, cx.session),
        enforcement: EnforcementStatus::of(settings, cx.session),
        trust: trust.to_string(),
    })
}

/// The rules of `index` (of `step`, if given) that another rule overrides.
fn overridden(
    index: &hookdex_index::Index<'_>,
    step: Option<Step>,
) -> Result<Vec<OverriddenEntry>, Error> {
    let label = |layer: u16| -> Result<String, Error> {
        Ok(index.layer(usize::from(layer))?.label.to_string())
    };
    let mut out = Vec::new();
    for id in 0..index.rule_count() as u32 {
        let rule = index.rule(id)?;
        let Some(by) = rule.overridden_by else {
            continue;
        };
        if step.is_some_and(|s| s != rule.step) {
            continue;
        }
        let by = index.rule(by)?;
        out.push(OverriddenEntry {
            file: rule.file.to_string(),
            layer: label(rule.layer)?,
            step: rule.step.as_str(),
            overridden_by: by.file.to_string(),
            by_layer: label(by.layer)?,
        });
    }
    Ok(out)
}

/// The rules that fire for the call `spec` describes.
fn fires(
    cx: &Context<'_>,
    index: &hookdex_index::Index<'_>,
    managed: Option<&hookdex_index::Index<'_>>,
    spec: &CallSpec,
    trust: &Trust,
) -> Result<Vec<Fire>, Error> {
    let settings = cx.settings;
    let call = spec.call(settings, cx.var)?;
    let landing = spec.landing(&call)?;
    let paths: Vec<Option<&str>> = landing.iter().map(Option::as_deref).collect();
    let input = spec.input()?;
    let (verdicts, _) = verdicts(
        index,
        managed,
        &call.query(settings.shell_strict),
        &paths,
        &spec.probe(settings, &input, cx.var),
        trust,
        settings.switches(),
    )?;
    Ok(verdicts
        .iter()
        .filter(|v| v.fires)
        .map(|v| Fire {
            file: v.rule.file.to_string(),
            layer: v.layer.label.to_string(),
            why: v.why.clone(),
        })
        .collect())
}

/// A hook as `list --json` shows it.
fn hook_entry(
    kind: RuleKind,
    spec: &HookSpec,
    held: Option<String>,
    breakers: &Breakers,
    file: &str,
) -> HookEntry {
    let (action, runs) = match &spec.action {
        HookAction::Command { command } => (
            "command",
            HookRuns::Command {
                command: command.clone(),
            },
        ),
        HookAction::Prompt { prompt, model } => (
            "prompt",
            HookRuns::Prompt {
                prompt: prompt.clone(),
                model: model.clone(),
            },
        ),
    };
    let hook_md = kind == RuleKind::HookMd;
    HookEntry {
        label: spec.label.clone(),
        line: spec.line,
        action,
        event: spec.source_event.clone(),
        events: spec.events.clone(),
        timeout_s: spec.timeout_ms as f64 / 1000.0,
        matcher: spec.matcher.clone(),
        input_matcher: spec
            .input
            .iter()
            .map(|p| InputEntry {
                field: p.field.clone(),
                regex: p.regex.clone(),
            })
            .collect(),
        held,
        runs,
        requires: hook_md.then(|| RequiresEntry {
            os: spec.requires.os.clone(),
            bins: spec.requires.bins.clone(),
            env: spec.requires.env.clone(),
        }),
        breaker: hook_md.then(|| match breakers.status(file) {
            Gate::Closed(failures) => BreakerEntry::Closed {
                open: false,
                failures,
            },
            Gate::Open { until_ms } => BreakerEntry::Open {
                open: true,
                until_ms,
            },
        }),
    }
}
