//! The guard stage (SPEC §15, [`crate::wrap::plan`]): a shell call runs
//! under hookdex's guard where that applies, its answer carrying the
//! wrapped input; the model is told once per session.

use std::ffi::OsString;

use hookdex_harness::Payload;
use hookdex_model::Answer;
use hookdex_model::Permission;

use super::plan::Plan;
use crate::settings::Settings;
use crate::state::caps::Caps;
use crate::wrap::plan::{self as wrapping, Wrapper};

/// Sets `answer`'s guard input (and `allow` where the session allows
/// everything anyway), or denies under `HOOKDEX_ENFORCE=require` where it
/// cannot be enforced. Returns the name it goes by in the log when it did
/// anything.
pub(super) fn guard_call(
    settings: &Settings,
    payload: &Payload,
    plan: &Plan,
    answer: &mut Answer,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let [planned] = plan.calls.as_slice() else {
        return None;
    };
    let call = &planned.call;
    if !call.tool.name.is_bash() {
        return None;
    }
    let input = answer
        .updated_input
        .as_ref()
        .unwrap_or(&planned.payload.tool_input);
    let wrapper = || {
        Some(Wrapper {
            exe: std::env::current_exe().ok()?,
            env: crate::settings::VARIABLES
                .iter()
                .filter_map(|name| Some((name.to_string(), var(name)?.into_string().ok()?)))
                .collect(),
        })
    };
    let name = "hookdex guard".to_string();
    let decision = answer.decision;
    match wrapping::plan(
        settings,
        payload,
        call,
        decision,
        input,
        plan.watching,
        &wrapper,
    ) {
        wrapping::Plan::AsIs => None,
        wrapping::Plan::Deny(reason) => {
            answer.decision = Some(Permission::Deny);
            answer.reasons.insert(0, reason);
            answer.deciders = vec![name.clone()];
            answer.updated_input = None;
            Some(name)
        }
        wrapping::Plan::Wrap { input, allow } => {
            if allow {
                answer.decision = Some(Permission::Allow);
                answer.deciders = vec![name.clone()];
            }
            answer.guard = Some(input);
            tell_once(settings, payload, answer);
            Some(name)
        }
        wrapping::Plan::ByHarness => tell_once(settings, payload, answer).then_some(name),
    }
}

/// Tells the model of the guard on the session's first guarded call;
/// whether it did.
fn tell_once(settings: &Settings, payload: &Payload, answer: &mut Answer) -> bool {
    let session = payload.session_id.as_deref().unwrap_or_default();
    let first = Caps::new(&settings.view.home).first(session, GUARD_NOTICE);
    if first {
        answer.contexts.push(GUARD_TOLD.into());
    }
    first
}

/// The counter of the once-per-session notice.
const GUARD_NOTICE: &str = "hookdex-guard-notice";

/// What the model is told, once per session, of the guard.
const GUARD_TOLD: &str = "hookdex: shell commands in this session run under hookdex's guard. \
A program a rule forbids fails with \"Permission denied\" wherever it runs (a script, make, an \
interpreter), and a line \"hookdex: <rule>: <reason>\" on stderr says why; a write into rule \
sources while they are closed fails the same way (\"hookdex: gate closed: <path>\").";
