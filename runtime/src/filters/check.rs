//! A synthetic tool's call site (`hookdex filter check --tool NAME`): the
//! filters that fire for the tool run as a chain on the tool input the
//! call site is about to write, with no conditions and no harness. A strip
//! rewrites the text outright (the call site applies it, so there is no
//! permission to ask); one that would leave nothing sends back. A send-back
//! is a deny the call site returns to the writer as a refusal carrying the
//! findings. Every error inside the check allows the write.

use hookdex_harness::Payload;
use hookdex_model::{Permission, Step};
use serde_json::{json, Value};

use super::actions::{self, Strip};
use super::{run, Call, Filter};
use crate::exec::Deadline;
use crate::load::Verify;
use crate::log;
use crate::rules::fired_rules;
use crate::settings::Settings;

/// What a check answers the call site.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// `allow` or `deny`.
    pub decision: Permission,
    /// Why: the send-back's findings on a deny; the flagged findings, or
    /// what went wrong, on an allow (empty when nothing did).
    pub reason: String,
    /// The input to write, rewritten by strips (`null` when the input
    /// could not be read).
    pub tool_input: Value,
    /// The filters that read text.
    pub fired: Vec<String>,
    /// Lines for the hook log.
    pub notes: Vec<String>,
}

impl Verdict {
    /// The verdict as the call site reads it (**contract**):
    /// `{"decision", "reason", "tool_input"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "decision": self.decision.as_str(),
            "reason": self.reason,
            "tool_input": self.tool_input,
        })
    }
}

/// Checks `input` (the tool input's JSON bytes) against the filters that
/// fire for the synthetic tool `tool`; `session` keys the round counts. A
/// check that ran a filter or went wrong leaves a line in the hook log.
pub fn check(settings: &Settings, tool: &str, input: &[u8], session: Option<&str>) -> Verdict {
    let verdict = verdict(settings, tool, input, session);
    if !verdict.fired.is_empty() || !verdict.notes.is_empty() {
        let entry = json!({
            "ts_ms": log::now_ms(),
            "event": "filter check",
            "tool": tool,
            "session_id": session,
            "fired": verdict.fired,
            "decision": verdict.decision.as_str(),
            "notes": verdict.notes,
        });
        log::append(&settings.view.home, &entry);
    }
    verdict
}

fn verdict(settings: &Settings, tool: &str, input: &[u8], session: Option<&str>) -> Verdict {
    let allow = |tool_input: Value, reason: String| Verdict {
        decision: Permission::Allow,
        notes: vec![reason.clone()],
        reason,
        tool_input,
        fired: Vec::new(),
    };
    let input: Value = match serde_json::from_slice(input) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => {
            return allow(
                Value::Null,
                "the tool input is not a JSON object; no filter ran".into(),
            )
        }
        Err(err) => {
            return allow(
                Value::Null,
                format!("the tool input is not JSON ({err}); no filter ran"),
            )
        }
    };
    let target = settings.view.target;
    let event = Step::Pre.event();
    let sent = json!({"hook_event_name": event.as_str(), "tool_name": tool, "tool_input": input, "session_id": session});
    let payload = match Payload::parse(target, sent.to_string().as_bytes(), None) {
        Ok(payload) => payload,
        Err(err) => {
            return allow(
                input,
                format!("the call could not be read ({err}); no filter ran"),
            )
        }
    };
    let call = crate::call::Call::new(target, Step::Pre, tool, &input);
    let pair = [(payload, call)];
    let fired = match fired_rules(settings, &pair, Verify::Lazy) {
        Ok(mut fired) => fired.remove(0),
        Err(why) => {
            return allow(
                input,
                format!("the filters could not be looked up ({why}); no filter ran"),
            )
        }
    };
    let chain: Vec<Filter> = fired
        .iter()
        .filter_map(|rule| rule.filter.as_deref().cloned())
        .collect();
    let [(_, call)] = &pair;
    let filter_call = Call {
        settings,
        deadline: Deadline::after(std::time::Instant::now(), settings.exec.hook_timeout),
        tool: &call.tool.name,
        cwd: &settings.exec.cwd,
        session,
        strip: Strip::Rewrite(Permission::Allow),
    };
    let done = run(&filter_call, &chain, input);
    let (decision, reason) = if done.sent_back.is_empty() {
        let contexts: Vec<&str> = done
            .outcomes
            .iter()
            .filter_map(|(_, outcome)| outcome.context.as_deref())
            .collect();
        (Permission::Allow, contexts.join("\n\n"))
    } else {
        (Permission::Deny, actions::reason(&done.sent_back))
    };
    Verdict {
        decision,
        reason,
        tool_input: done.input,
        fired: done.ran,
        notes: done.notes,
    }
}
