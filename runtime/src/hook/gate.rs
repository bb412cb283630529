//! The gate stage (SPEC §13): it comes before every rule, and no rule can
//! override it. A call it refuses ends here, denied.

use std::ffi::OsString;

use hookdex_harness::{reply, Payload, Reply};
use hookdex_model::Answer;
use hookdex_model::Permission;

use super::log::Log;
use crate::call::Call;
use crate::settings::Settings;

/// The reply denying the call when the gate refuses it, with its answer
/// as shaped for the harness, its log line written; `None` when the call
/// goes on to the rules.
pub(super) fn judge(
    settings: &Settings,
    payload: &Payload,
    calls: &[(Payload, Call)],
    log: &Log<'_>,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> Option<(Reply, Answer)> {
    let reason = crate::gate::on_event(settings, payload, calls, var)?;
    let mut answer = Answer {
        decision: Some(Permission::Deny),
        reasons: vec![reason],
        deciders: vec!["hookdex gate".into()],
        ..Default::default()
    };
    let reply = reply(
        settings.view.target,
        payload,
        &calls[0].1.tool.name,
        &mut answer,
        settings.reply,
    );
    log.write(&["hookdex gate"], Some("deny"), &answer.log);
    Some((reply, answer))
}
