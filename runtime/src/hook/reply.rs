//! `Answer → Reply`: the harness shapes the answer ([`hookdex_harness::reply`])
//! and the call leaves its log line.

use std::ffi::OsString;

use hookdex_harness::{reply, Payload, Reply};
use hookdex_model::Answer;

use super::guard::guard_call;
use super::log::Log;
use super::plan::Plan;
use super::trial::Trial;
use crate::settings::Settings;

/// The reply to a call where no rule had anything to say: the shell call
/// wrapped to run under the guard where that applies, and the session's
/// notice `told` ([`super::notice`]) if any, else nothing; a trial keeps it.
pub(super) fn guarded_or_nothing(
    settings: &Settings,
    payload: &Payload,
    plan: &Plan,
    log: &Log<'_>,
    var: &dyn Fn(&str) -> Option<OsString>,
    told: Option<String>,
    trial: Option<&mut Trial>,
) -> Reply {
    let mut answer = Answer::default();
    let guarded = guard_call(settings, payload, plan, &mut answer, var);
    let reply = match guarded.is_none() && told.is_none() {
        true => Reply::default(),
        false => {
            answer.user_notes.extend(told);
            let fired: Vec<&str> = guarded.iter().map(String::as_str).collect();
            render(settings, payload, plan, &mut answer, log, &fired)
        }
    };
    if let Some(trial) = trial {
        trial.saw_plan(plan);
        trial.saw_reply(&answer, &reply);
    }
    reply
}

/// The harness's reply carrying `answer`, with the log line naming what
/// `fired`.
pub(super) fn render(
    settings: &Settings,
    payload: &Payload,
    plan: &Plan,
    answer: &mut Answer,
    log: &Log<'_>,
    fired: &[&str],
) -> Reply {
    let reply = reply(
        settings.view.target,
        payload,
        &plan.calls[0].call.tool.name,
        answer,
        settings.reply,
    );
    log.write(fired, answer.decision.map(|d| d.as_str()), &answer.log);
    reply
}
