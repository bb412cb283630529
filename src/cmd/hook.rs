//! `hookdex hook --target T [--event E]`: the command every harness runs on
//! every tool call. It reads the payload, maps the index, looks up what
//! fires, runs it (`.async` conditions detached first, the others in
//! parallel), merges the answers and replies in the harness's format.
//!
//! It fails open everywhere: a bad payload, a broken index, a crashing or
//! hanging condition never blocks the call; only an explicit decision does.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hookdex_runtime::answer::{self, Answer};
use hookdex_runtime::call::Call;
use hookdex_runtime::exec::{self, ExecConfig, Job, Stdin};
use hookdex_runtime::harness;
use hookdex_runtime::index::Lookup;
use hookdex_runtime::outcome::{self, Outcome};
use hookdex_runtime::payload::Payload;
use hookdex_runtime::rule::{LayerKind, RuleKind, Runner};
use hookdex_runtime::tool::Target;
use hookdex_runtime::view::View;
use serde_json::json;

use super::CmdResult;
use crate::load::{self, Verify};

/// Reads the payload, runs what fires, and prints the harness's reply.
pub fn run(target: Target, event: Option<&str>) -> CmdResult {
    let started = Instant::now();
    let mut bytes = Vec::new();
    if std::io::stdin().read_to_end(&mut bytes).is_err() {
        return Ok(0);
    }
    let payload = match Payload::parse(&bytes, event) {
        Ok(payload) => payload,
        Err(reason) => {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            let home = View::from_env(target, &cwd).home;
            let notes = [format!("payload ignored: {reason}")];
            log(&home, target, None, &[], None, &notes, started);
            return Ok(0);
        }
    };
    let cwd = payload
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    let view = View::from_env(target, &cwd);
    let home = view.home.clone();
    let calls: Vec<(Payload, Call)> = payload
        .calls()
        .into_iter()
        .map(|p| {
            let call = p.call(target);
            (p, call)
        })
        .collect();
    let hits = match fired_rules(&view, &calls) {
        Ok(found) => found,
        Err(reason) => {
            log(&home, target, Some(&payload), &[], None, &[reason], started);
            return Ok(0);
        }
    };
    if hits.iter().all(Vec::is_empty) {
        return Ok(0);
    }
    let config = ExecConfig::from_env(cwd);
    let mut ran = Ran::default();
    for ((single, call), fired) in calls.iter().zip(&hits) {
        run_call(target, single, call, fired, &config, &mut ran);
    }
    if ran.fired.is_empty() {
        if ran.notes.is_empty() {
            return Ok(0);
        }
        log(
            &home,
            target,
            Some(&payload),
            &[],
            None,
            &ran.notes,
            started,
        );
        return Ok(0);
    }
    let mut merged: Answer = answer::merge(
        payload.step,
        &payload.tool_input,
        payload.permission_mode.as_deref(),
        &ran.outcomes,
    );
    if calls.len() > 1 && merged.updated_input.take().is_some() {
        merged.note(
            "hookdex: an input rewrite cannot apply to a batch of calls; it was dropped".into(),
        );
    }
    merged.log.extend(ran.notes);
    let tool = &calls[0].1.tool.name;
    let reply = harness::reply(target, &payload, tool, &mut merged);
    print!("{}", reply.stdout);
    let decision = merged.decision.map(|d| d.as_str());
    let fired: Vec<&str> = ran.fired.iter().map(String::as_str).collect();
    log(
        &home,
        target,
        Some(&payload),
        &fired,
        decision,
        &merged.log,
        started,
    );
    Ok(reply.exit)
}

/// What the conditions of every call of a payload did.
#[derive(Default)]
struct Ran {
    /// (condition file name, outcome) of synchronous conditions, in order.
    outcomes: Vec<(String, Outcome)>,
    /// Every condition started, async ones included.
    fired: Vec<String>,
    /// Lines for the hook log.
    notes: Vec<String>,
}

/// A rule that fires, copied out of the index so it can run after the
/// mapping is released.
struct Fired {
    file: PathBuf,
    file_name: String,
    runner: Runner,
    is_async: bool,
    kind: RuleKind,
    layer_kind: LayerKind,
    layer_label: String,
}

/// Runs the conditions that fire for one call: `.async` ones detached
/// first, then the others in parallel.
fn run_call(
    target: Target,
    payload: &Payload,
    call: &Call,
    fired: &[Fired],
    config: &ExecConfig,
    ran: &mut Ran,
) {
    let enabled = conditions_enabled();
    let mut runnable = Vec::new();
    for rule in fired {
        if !enabled && rule.layer_kind != LayerKind::Managed {
            continue;
        }
        if rule.kind == RuleKind::Filter {
            ran.notes.push(format!(
                "{}: filters do not run in the hook yet",
                rule.file_name
            ));
            continue;
        }
        runnable.push(rule);
    }
    if runnable.is_empty() {
        return;
    }
    let stdin = match Stdin::new(payload.normalized(call).to_string().as_bytes()) {
        Ok(stdin) => stdin,
        Err(err) => {
            ran.notes
                .push(format!("cannot write the payload for conditions: {err}"));
            return;
        }
    };
    let job = |rule: &Fired| Job {
        file: rule.file.clone(),
        runner: rule.runner,
        env: script_env(
            target,
            payload,
            &call.tool.name,
            &rule.file_name,
            &rule.layer_label,
        ),
    };
    for rule in runnable.iter().filter(|r| r.is_async) {
        ran.fired.push(rule.file_name.clone());
        if let Err(err) = exec::spawn_detached(&job(rule), config, &stdin) {
            ran.notes.push(format!(
                "{}: async condition not started: {err}",
                rule.file_name
            ));
        }
    }
    let sync: Vec<&Fired> = runnable.into_iter().filter(|r| !r.is_async).collect();
    let jobs: Vec<Job> = sync.iter().map(|rule| job(rule)).collect();
    let executions = exec::run_all(&jobs, config, &stdin);
    for (rule, run) in sync.iter().zip(&executions) {
        ran.fired.push(rule.file_name.clone());
        ran.outcomes.push((
            rule.file_name.clone(),
            outcome::interpret(payload.step, run),
        ));
    }
}

/// The rules that fire for each call, read from the index in one pass
/// (recompiled once if the lookup finds it damaged).
fn fired_rules(view: &View, calls: &[(Payload, Call)]) -> Result<Vec<Vec<Fired>>, String> {
    load::with_index(view, Verify::Lazy, |index| {
        let trust = index.meta()?.trust();
        calls
            .iter()
            .map(|(_, call)| {
                let found: Lookup<'_> = index.lookup(&call.query(), &trust)?;
                found
                    .hits
                    .iter()
                    .map(|hit| {
                        let rule = index.rule(hit.rule)?;
                        let layer = index.layer(usize::from(rule.layer))?;
                        Ok(Fired {
                            file: PathBuf::from(rule.file),
                            file_name: rule.file_name().to_string(),
                            runner: rule.runner,
                            is_async: rule.is_async,
                            kind: rule.kind,
                            layer_kind: layer.kind,
                            layer_label: layer.label.to_string(),
                        })
                    })
                    .collect()
            })
            .collect()
    })
    .map_err(|e| format!("index: {e}"))
}

/// `CONDITIONS_ENABLED=false` (or `0`, `no`, `off`) turns every layer but
/// the managed one off.
fn conditions_enabled() -> bool {
    !matches!(
        std::env::var("CONDITIONS_ENABLED")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref(),
        Ok("false" | "0" | "no" | "off")
    )
}

/// The `AH_*` variables of the agentihooks script contract.
fn script_env(
    target: Target,
    payload: &Payload,
    tool: &str,
    condition: &str,
    source: &str,
) -> Vec<(String, String)> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    vec![
        ("AH_STEP".into(), payload.step.as_str().into()),
        ("AH_EVENT".into(), payload.step.event().into()),
        ("AH_TOOL_NAME".into(), tool.into()),
        ("AH_TOOL_USE_ID".into(), opt(&payload.tool_use_id)),
        ("AH_SESSION_ID".into(), opt(&payload.session_id)),
        ("AH_CWD".into(), opt(&payload.cwd)),
        ("AH_TRANSCRIPT_PATH".into(), opt(&payload.transcript_path)),
        ("AH_PERMISSION_MODE".into(), opt(&payload.permission_mode)),
        ("AH_TARGET".into(), target.as_str().into()),
        ("AH_CONDITION".into(), condition.into()),
        ("AH_CONDITION_SOURCE".into(), source.into()),
    ]
}

/// One line in the hook log for a call that did something or went wrong.
fn log(
    home: &Path,
    target: Target,
    payload: Option<&Payload>,
    fired: &[&str],
    decision: Option<&str>,
    notes: &[String],
    started: Instant,
) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let entry = json!({
        "ts_ms": now,
        "target": target.as_str(),
        "event": payload.map(|p| p.step.event()),
        "tool": payload.map(|p| p.tool_name.as_str()),
        "session_id": payload.and_then(|p| p.session_id.as_deref()),
        "tool_use_id": payload.and_then(|p| p.tool_use_id.as_deref()),
        "fired": fired,
        "decision": decision,
        "notes": notes,
        "ms": started.elapsed().as_secs_f64() * 1000.0,
    });
    hookdex_runtime::log::append(home, &entry);
}
