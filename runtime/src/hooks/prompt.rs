//! `prompt` hooks (**contract**, SPEC §9): the hook's rule judged by the
//! classifier providers of §6. The command provider reads `{"kind":
//! "prompt", "prompt", "event", "payload", "model"}` and answers `{"ok",
//! "reason"}`; the HTTP provider is asked the same and its reply read for
//! that object. `ok: false` blocks (a deny before the call, a block
//! after it and at Stop). No provider, a failing one or one slower than
//! the hook's timeout (default 30 s): the call passes, and the log says why.

use std::time::Duration;

use hookdex_model::HookSpec;

use crate::filters::classifier::{self, PromptQuestion};
use crate::hooks::{claude, Shared};
use crate::outcome::Outcome;

/// Judges prompt hook `spec` (its rule `prompt`, asking `model`) for `call`.
pub fn judge(
    call: &Shared<'_>,
    name: &str,
    spec: &HookSpec,
    prompt: &str,
    model: Option<&str>,
) -> (Outcome, Vec<String>) {
    let timeout = Duration::from_millis(spec.timeout_ms);
    let settings = call.settings;
    let Some(provider) = classifier::provider_with_timeout(settings, timeout) else {
        let note = format!("{name} passed: {}", classifier::Unavailable::NotConfigured);
        return (Outcome::default(), vec![note]);
    };
    let question = PromptQuestion {
        prompt: prompt.to_string(),
        event: call.payload.event.as_str().to_string(),
        payload: claude::stdin(call.payload, call.call),
    };
    let model = model.or(settings.classifier.models.first().map(String::as_str));
    let deadline = call.deadline.within(timeout);
    match provider.verdict(&question, model, deadline) {
        Ok(verdict) if verdict.ok => (Outcome::default(), Vec::new()),
        Ok(verdict) => {
            let event = call.payload.event;
            let reason = verdict
                .reason
                .unwrap_or_else(|| format!("{} blocked by prompt hook", event.as_str()));
            (claude::blocked(event, reason), Vec::new())
        }
        Err(why) => (Outcome::default(), vec![format!("{name} passed: {why}")]),
    }
}
