//! The hook pipeline as a library function: payload bytes in, the harness's
//! reply out, in stages over one call, each its own module in the
//! pipeline's vocabulary (`Payload → Call → Query → Hit → Job → Outcome →
//! Answer → Reply`): read the payload (`payload`), the gate (`gate`),
//! one plan of what fires from one lookup per index (`plan`), run it
//! (`run`: `.async` conditions detached first, the others in parallel,
//! hooks and enforcements beside them), the filters as a chain on the input
//! as the conditions left it (`filters`), a rewritten input judged again
//! (`rejudge`), a post call's output shrunk (`output`), the answer held
//! to the session's caps and the guard (`answer`, `guard`), and the
//! reply with its log line (`reply`, `log`), which carries, on a
//! session's first call, the notice of mistakes in the rules (`notice`).
//! `hookdex try` runs the same stages as a `trial`, which keeps what they
//! saw. Every rule of the call,
//! whichever call of a batch or run it belongs to, runs within one deadline
//! from the hook's start.
//!
//! It fails open everywhere: a bad payload, a broken index, a crashing or
//! hanging condition never blocks the call; only an explicit decision does.
//! Calls where something fired or went wrong leave one line in the hook log.

mod answer;
pub(crate) mod conditions;
mod filters;
mod gate;
mod guard;
mod log;
mod notice;
mod output;
mod payload;
mod plan;
mod rejudge;
mod reply;
mod run;
pub(crate) mod trial;

use std::ffi::OsString;
use std::time::Instant;

use hookdex_harness::{notice, McpScope, Reply};
use hookdex_model::{Event, Step, Target};

use crate::exec::Deadline;

pub use crate::hooks::input::take_regex_builds;
use crate::state::caps::{CapKind, Caps};

use self::conditions::{Judge, Ran};
use self::log::Log;
use self::plan::Plan;
use self::trial::Trial;

/// The largest payload judged (16 MiB, far past what a model writes in one
/// tool call); a larger one is let through with a note, since reading it
/// would cost the hook more memory than any guard is worth.
pub const MAX_PAYLOAD: usize = 16 << 20;

/// Answers one hook call: `bytes` is the payload a harness of `target` sent,
/// `event` the `--event` it named (if any), and `var` reads the environment.
pub fn hook(
    target: Target,
    event: Option<&str>,
    bytes: &[u8],
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Reply {
    judge_call(target, event, bytes, var, None)
}

/// The pipeline of [`hook`]; a `trial` ([`trial::Trial`], `hookdex try`)
/// judges the call in its own session, writes no log line, may keep one
/// rule alone, and keeps what each stage saw.
pub(crate) fn judge_call(
    target: Target,
    event: Option<&str>,
    bytes: &[u8],
    var: &dyn Fn(&str) -> Option<OsString>,
    mut trial: Option<&mut Trial>,
) -> Reply {
    let started = Instant::now();
    let mut read = match payload::read(target, event, bytes, var, started) {
        Ok(read) => read,
        Err(reply) => return reply,
    };
    if let Some(trial) = trial.as_deref() {
        read.payload.session_id = Some(trial.session.clone());
    }
    let settings = &read.settings;
    let trusted = || crate::load::repository_trusted(settings);
    let scope = McpScope {
        cwd: &read.cwd,
        var,
        project_trusted: &trusted,
    };
    let calls = payload::calls(target, &mut read.payload, &scope);
    let payload = &read.payload;
    let log = Log::new(settings, target, Some(payload), started).quiet(trial.is_some());
    let judge = Judge {
        target,
        settings,
        deadline: Deadline::after(started, settings.exec.hook_timeout),
        var,
        awaits_async: trial.is_some(),
    };
    if let Some((reply, answer)) = gate::judge(settings, payload, &calls, &log, var) {
        if let Some(trial) = trial {
            trial.tool = Some(calls[0].1.tool.name.as_str().to_string());
            trial
                .notes
                .push("the gate refused the call before any rule".into());
            trial.saw_reply(&answer, &reply);
        }
        return reply;
    }
    let mut plan = match Plan::of(settings, payload, calls) {
        Ok(plan) => plan,
        Err(reason) => {
            let message = format!(
                "hookdex could not look up its rules ({reason}); no rule ran for this call"
            );
            log.write(&[], None, &[reason.to_string()]);
            if let Some(trial) = trial {
                trial.notes.push(message.clone());
            }
            return notice(target, &message);
        }
    };
    if let Some(only) = trial.as_deref().and_then(|t| t.only.as_deref()) {
        plan.keep_only(only);
    }
    // A trial is no session's call: it tells nothing once.
    let told = match trial {
        Some(_) => None,
        None => notice::once(settings, payload, plan.problems),
    };
    let post_output = payload.step() == Step::Post && settings.outfilters_enabled;
    if plan.fires_nothing() && !post_output {
        if payload.event == Event::UserPromptSubmit {
            // The person spoke: a run of Stop blocks ends, rules or none.
            let session = payload.session_id.as_deref().unwrap_or_default();
            Caps::new(&settings.view.home).reset(session, CapKind::Stop);
        }
        return reply::guarded_or_nothing(settings, payload, &plan, &log, var, told, trial);
    }
    let mut ran = Ran::default();
    for planned in &plan.calls {
        run::run_call(&judge, planned, &mut ran);
    }
    let mut merged = answer::merge_all(&plan.calls[0].payload, plan.calls.len(), &ran);
    filters::keep_dropped_rewrites_dropped(&merged, &plan, &mut ran);
    if filters::run_filters(&judge, &scope, &mut plan, &merged, &mut ran) {
        merged = answer::merge_all(&plan.calls[0].payload, plan.calls.len(), &ran);
    }
    if post_output && output::shrink_output(settings, &plan, &mut ran, trial.is_none()) {
        merged = answer::merge_all(&plan.calls[0].payload, plan.calls.len(), &ran);
    }
    if ran.fired.is_empty() {
        if !ran.notes.is_empty() {
            log.write(&[], None, &ran.notes);
        }
        if let Some(trial) = trial.as_deref_mut() {
            trial.notes.extend(ran.notes);
        }
        return reply::guarded_or_nothing(settings, payload, &plan, &log, var, told, trial);
    }
    if let Some(input) = merged.updated_input.clone() {
        let rewriters = merged.rewriters.clone();
        if let Some(again) =
            rejudge::judge_again(&judge, &scope, &mut plan, input, &rewriters, &mut ran)
        {
            merged = again;
        }
    }
    answer::hold_to_cap(settings, payload, &mut merged);
    if let Some(guarded) = guard::guard_call(settings, payload, &plan, &mut merged, var) {
        ran.fired.push(guarded);
    }
    if let Some(trial) = trial.as_deref_mut() {
        trial.saw_run(&plan, &ran, &merged);
    }
    merged.log.extend(ran.notes);
    merged.user_notes.extend(told);
    let fired: Vec<&str> = ran.fired.iter().map(String::as_str).collect();
    let reply = reply::render(settings, payload, &plan, &mut merged, &log, &fired);
    if let Some(trial) = trial {
        trial.saw_reply(&merged, &reply);
    }
    reply
}
