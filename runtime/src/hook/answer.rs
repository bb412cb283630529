//! `Outcome → Answer`: every outcome of the call merged into one answer,
//! and the answer held to the session's block caps ([`Caps`]).

use hookdex_harness::Payload;
use hookdex_model::Answer;
use hookdex_model::Event;

use super::conditions::Ran;
use crate::merge;
use crate::settings::Settings;
use crate::state::caps::{CapKind, Caps, Counted};

/// Every outcome of the call merged into one answer (`payload` is the
/// first call's, which holds the input); a rewrite is dropped from a batch
/// of `calls` calls (it could not say which call it rewrites).
pub(super) fn merge_all(payload: &Payload, calls: usize, ran: &Ran) -> Answer {
    let mut merged = merge::merge(
        payload.step(),
        &payload.tool_input,
        payload.permission_mode.as_deref(),
        &ran.outcomes,
    );
    if calls > 1 && merged.updated_input.take().is_some() {
        merged.note(
            "hookdex: an input rewrite cannot apply to a batch of calls; it was dropped".into(),
        );
    }
    merged
}

/// Holds the session's blocks to their caps ([`Caps`]): past them the
/// block is dropped and the agent and the person are told why. A prompt
/// the person sent ends a run of Stop blocks.
pub(super) fn hold_to_cap(settings: &Settings, payload: &Payload, merged: &mut Answer) {
    if !payload.event.is_tool_event() {
        // A Stop rule's `{"decision": "deny"}` is its block: counted too.
        hookdex_harness::decision_at_event(payload.event, merged);
    }
    let caps = Caps::new(&settings.view.home);
    let session = payload.session_id.as_deref().unwrap_or_default();
    let kind = match payload.event {
        Event::PostToolUse | Event::PostToolUseFailure => CapKind::Post,
        Event::Stop => CapKind::Stop,
        Event::UserPromptSubmit => return caps.reset(session, CapKind::Stop),
        _ => return,
    };
    if caps.count(session, kind, merged.block.is_some()) != Counted::Dropped {
        return;
    }
    let reason = merged.block.take().unwrap_or_default();
    merged.warn(format!(
        "hookdex: {} was blocked {} times in a row in this session, so this one goes through (the rule said: {reason})",
        payload.event.as_str(),
        kind.limit()
    ));
}
