//! `hooks.yaml` and `HOOK.md` hooks at run time: whether a hook the
//! tables found fires for a call ([`fires`]: its events and its
//! `input_matcher`), and running those that do ([`run`]): command hooks
//! in parallel, each under its own contract ([`claude`] for `hooks.yaml`,
//! [`moltis`] for `HOOK.md`), prompt hooks judged by the classifier
//! providers ([`prompt`]). Every failure is a note and blocks nothing.

pub mod claude;
pub mod input;
pub mod moltis;
pub mod prompt;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use hookdex_harness::Payload;
use hookdex_index::Index;
use hookdex_model::{Event, HookAction, HookSpec, LayerKind, RuleKind, Runner};
use serde_json::Value;

use crate::call::Call;
use crate::exec::{self, Deadline, Job, Stdin};
use crate::fired::Fired;
use crate::outcome::Outcome;
use crate::settings::Settings;
use crate::state::breaker::{Breakers, Gate};

/// The spec of hook rule `rule` when it fires for a call at `event` with
/// `tool_input`: it answers the event and its `input_matcher`, if any,
/// matches the input. `Err(spec, why)` when it does not fire.
///
/// # Errors
///
/// When its record is damaged.
pub fn fires(
    index: &Index<'_>,
    rule: u32,
    event: Event,
    tool_input: &Value,
) -> Result<Result<HookSpec, (HookSpec, String)>, hookdex_index::Error> {
    let hook = record(index, rule)?;
    let spec = hook.spec;
    if !spec.answers(event) {
        let why = format!("answers {} only", spec.events.join(", "));
        return Ok(Err((spec, why)));
    }
    if let Some(matcher) = &hook.input {
        if !input::matches(&spec.input, matcher, tool_input) {
            let entries: Vec<String> = spec
                .input
                .iter()
                .map(|p| match &p.field {
                    Some(field) => format!("{field}: {}", p.regex),
                    None => p.regex.clone(),
                })
                .collect();
            let why = format!("input_matcher `{}` does not match", entries.join(", "));
            return Ok(Err((spec, why)));
        }
    }
    Ok(Ok(spec))
}

/// The spec of hook rule `rule`, read from its record (no parsing).
///
/// # Errors
///
/// When its record is missing or damaged.
pub fn spec(index: &Index<'_>, rule: u32) -> Result<HookSpec, hookdex_index::Error> {
    Ok(record(index, rule)?.spec)
}

/// The hook record of rule `rule`.
fn record(index: &Index<'_>, rule: u32) -> Result<hookdex_index::Hook, hookdex_index::Error> {
    index.hook(rule)?.ok_or_else(|| {
        hookdex_index::Error::corrupt(format!("hook rule {rule} has no hook record"))
    })
}

/// Why a `HOOK.md` hook that fires would be skipped now: a requirement
/// that does not hold, or its breaker open. `None` when it runs.
pub fn held(
    spec: &HookSpec,
    file: &str,
    breakers: &Breakers,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    if let Some(unmet) = moltis::unmet(&spec.requires, var) {
        return Some(format!("not eligible here: requires {unmet}"));
    }
    match breakers.status(file) {
        Gate::Open { until_ms } => Some(breaker_open(until_ms)),
        Gate::Closed(_) => None,
    }
}

fn breaker_open(until_ms: u64) -> String {
    let left = until_ms.saturating_sub(crate::log::now_ms()).div_ceil(1000);
    format!(
        "its breaker is open after {} failures in a row ({left} s left)",
        crate::state::breaker::THRESHOLD
    )
}

/// The name a hook goes by in the log, the answer and `explain`: its
/// format, label and layer, which no other hook of the call shares (each
/// layer has one `hooks.yaml`, and one `HOOK.md` hook of a name).
pub fn display(kind: RuleKind, spec: &HookSpec, layer: &str) -> String {
    match kind {
        RuleKind::HookMd => format!("HOOK.md {} ({layer})", spec.label),
        _ => format!("hooks.yaml {} ({layer})", spec.label),
    }
}

/// One call's hooks to run.
pub struct HookCall<'a> {
    /// Everything the hook read of its environment.
    pub settings: &'a Settings,
    /// The end of the time the call gives its rules.
    pub deadline: Deadline,
    /// The payload.
    pub payload: &'a Payload,
    /// The call.
    pub call: &'a Call,
    /// Reads the environment (requirements).
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
}

/// What the hooks of one call did.
#[derive(Default)]
pub struct Done {
    /// (hook name, outcome), in the order the hooks fired.
    pub outcomes: Vec<(String, Outcome)>,
    /// Every hook run.
    pub ran: Vec<String>,
    /// Lines for the hook log.
    pub notes: Vec<String>,
}

/// One hook's work, ready to run.
enum Task<'r> {
    Command {
        kind: RuleKind,
        breaker: String,
        spec: &'r HookSpec,
        job: Job,
        stdin: Stdin,
    },
    Prompt {
        name: String,
        spec: &'r HookSpec,
        prompt: &'r str,
        model: Option<&'r str>,
    },
}

/// Runs the hooks of `rules` (every one a hook that fires) for one call.
pub fn run(call: &HookCall<'_>, rules: &[&Fired]) -> Done {
    let mut done = Done::default();
    let settings = call.settings;
    let breakers = Breakers::new(&settings.view.home, settings.breaker_cooldown);
    let bypass = call.payload.permission_mode.as_deref() == Some("bypassPermissions");
    let mut tasks = Vec::new();
    let mut held_back = Vec::new();
    for rule in rules {
        let Some(spec) = rule.hook.as_deref() else {
            continue;
        };
        let name = rule.name();
        if rule.kind == RuleKind::HookMd {
            if let Some(unmet) = moltis::unmet(&spec.requires, call.var) {
                done.notes.push(format!(
                    "{name}: skipped, not eligible here: requires {unmet}"
                ));
                continue;
            }
            if let Gate::Open { until_ms } = breakers.admit(&breaker_key(rule)) {
                // A guard off is news for the agent and the person, not only the log.
                let skipped = Outcome {
                    failure: Some(breaker_open(until_ms)),
                    ..Outcome::default()
                };
                held_back.push((name, skipped));
                continue;
            }
        }
        let task = match &spec.action {
            HookAction::Prompt { prompt, model } => Task::Prompt {
                name: name.clone(),
                spec,
                prompt,
                model: model.as_deref(),
            },
            HookAction::Command { command } => {
                let stdin = match rule.kind {
                    RuleKind::HookMd => match moltis::stdin(spec, call.payload) {
                        Some(stdin) => stdin,
                        None => continue,
                    },
                    _ => claude::stdin(call.payload, call.call),
                };
                Task::Command {
                    kind: rule.kind,
                    breaker: breaker_key(rule),
                    spec,
                    job: job(call, rule, spec, command),
                    stdin: Stdin::new(stdin.to_string().into_bytes()),
                }
            }
        };
        done.ran.push(name);
        tasks.push(task);
    }
    let shared = Shared {
        settings,
        deadline: call.deadline,
        payload: call.payload,
        call: call.call,
    };
    let results: Vec<(Outcome, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = tasks
            .iter()
            .map(|task| scope.spawn(|| perform(&shared, task, &breakers, bypass)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (name, (outcome, notes)) in done.ran.iter().zip(results) {
        done.outcomes.push((name.clone(), outcome));
        done.notes.extend(notes);
    }
    done.outcomes.extend(held_back);
    done
}

/// The breaker key of a `HOOK.md` rule: its file, whichever event fired.
fn breaker_key(rule: &Fired) -> String {
    rule.file.display().to_string()
}

/// What every task of one call reads.
pub struct Shared<'a> {
    /// Everything the hook read of its environment.
    pub settings: &'a Settings,
    /// The end of the time the call gives its rules.
    pub deadline: Deadline,
    /// The payload.
    pub payload: &'a Payload,
    /// The call.
    pub call: &'a Call,
}

/// Runs one task to its outcome, with notes for the log.
fn perform(
    call: &Shared<'_>,
    task: &Task<'_>,
    breakers: &Breakers,
    bypass: bool,
) -> (Outcome, Vec<String>) {
    let event = call.payload.event;
    match task {
        Task::Command {
            kind,
            breaker,
            spec,
            job,
            stdin,
        } => {
            let run = exec::run_all(
                std::slice::from_ref(job),
                &call.settings.exec,
                call.deadline,
                stdin,
            )
            .remove(0);
            match kind {
                RuleKind::HookMd => {
                    let (outcome, failed) = moltis::interpret(&spec.label, event, &run, bypass);
                    breakers.record(breaker, failed);
                    (outcome, Vec::new())
                }
                _ => (claude::interpret(event, &run, bypass), Vec::new()),
            }
        }
        Task::Prompt {
            name,
            spec,
            prompt,
            model,
        } => prompt::judge(call, name, spec, prompt, *model),
    }
}

/// The job of a command hook: `sh -c <command>` in the call's directory
/// (a `HOOK.md` hook: its folder), with its own timeout and the contract's
/// variables.
fn job(call: &HookCall<'_>, rule: &Fired, spec: &HookSpec, command: &str) -> Job {
    let settings = call.settings;
    let env = settings.script_env(rule.layer_kind);
    let project = settings.exec.cwd.display().to_string();
    let contract = claude::env(call.payload, &project);
    Job {
        file: PathBuf::from(command),
        runner: Runner::Shell,
        interpreter: rule.interpreter.clone(),
        clear_env: env.is_some(),
        env: env
            .into_iter()
            .flatten()
            .chain(spec.env.iter().cloned())
            .chain(contract)
            .collect(),
        mandatory: rule.layer_kind == LayerKind::Managed,
        cwd: spec.cwd.as_ref().map(PathBuf::from),
        timeout: Some(Duration::from_millis(spec.timeout_ms)),
    }
}
