//! The filters stage: each call's filters run as a chain after its
//! conditions, on the input as they rewrote it; a rewritten call's filters
//! are those of the rewritten input ([`Plan::look_up_rewrite`], the lookup
//! the re-judge shares), since a rewrite may move the text to a path
//! another filter's `paths` admit.

use hookdex_harness::McpScope;
use hookdex_model::Answer;
use hookdex_model::Permission;

use super::conditions::{Judge, Ran};
use super::plan::Plan;
use crate::filters::actions::Strip;
use crate::filters::{self, Filter};
use crate::merge;
use crate::outcome::Outcome;

/// A rewrite the conditions' merge dropped (no decision outside
/// `bypassPermissions`) stays dropped: the filters that run next judge the
/// input without it, so a decision of theirs (a strip's `ask`) must not
/// carry it in when the outcomes are merged again. Its patches leave the
/// outcomes, and the agent is still told it was dropped.
pub(super) fn keep_dropped_rewrites_dropped(merged: &Answer, plan: &Plan, ran: &mut Ran) {
    let dropped = merged.updated_input.is_none()
        && merged.decision != Some(Permission::Deny)
        && plan.calls.iter().any(|c| !c.filters().is_empty());
    if !dropped {
        return;
    }
    let patchers: Vec<String> = ran
        .outcomes
        .iter_mut()
        .filter_map(|(name, outcome)| {
            let patched = outcome.patch.take().is_some();
            let replaced = outcome.replacement.take().is_some();
            (patched || replaced).then(|| name.clone())
        })
        .collect();
    if patchers.is_empty() {
        return;
    }
    let names: Vec<&str> = patchers.iter().map(String::as_str).collect();
    let note = merge::rewrite_dropped(&names);
    ran.notes.push(note.clone());
    let told = Outcome {
        context: Some(note),
        ..Outcome::default()
    };
    ran.outcomes.push(("hookdex".into(), told));
}

/// Runs the filters of each call as a chain, after the conditions: on the
/// input as they rewrote it (`merged`), unless they denied the call. Their
/// effects join `ran`'s outcomes as conditions' do; `true` when there are
/// any, so the answer must be merged again.
pub(super) fn run_filters(
    judge: &Judge<'_>,
    scope: &McpScope<'_>,
    plan: &mut Plan,
    merged: &Answer,
    ran: &mut Ran,
) -> bool {
    if merged.decision == Some(Permission::Deny) {
        return false;
    }
    if merged.updated_input.is_none() && plan.calls.iter().all(|c| c.filters().is_empty()) {
        return false;
    }
    let settings = judge.settings;
    if let Some(input) = &merged.updated_input {
        plan.look_up_rewrite(settings, scope, input);
    }
    let rewritten = match merged.updated_input.as_ref().and(plan.rewritten()) {
        Some(Ok(planned)) => Some(planned),
        Some(Err(reason)) => {
            ran.notes.push(format!(
                "the rewritten call's filters could not be looked up: {reason}"
            ));
            None
        }
        None => None,
    };
    let batch = plan.calls.len() > 1;
    let mut acted = false;
    for (at, planned) in plan.calls.iter().enumerate() {
        let planned = match (at, rewritten) {
            (0, Some(rewritten)) => rewritten,
            _ => planned,
        };
        let chain: Vec<Filter> = planned
            .filters()
            .into_iter()
            .filter_map(|rule| rule.filter.as_deref().cloned())
            .collect();
        if chain.is_empty() {
            continue;
        }
        let payload = &planned.payload;
        let caps = hookdex_harness::harness(judge.target).capabilities(payload.shape);
        let strip = Strip::for_call(
            &caps,
            settings.reply.interactive,
            payload.permission_mode.as_deref(),
            batch,
        );
        let filter_call = filters::Call {
            settings,
            deadline: judge.deadline,
            tool: &planned.call.tool.name,
            cwd: &settings.exec.cwd,
            session: payload.session_id.as_deref(),
            strip,
        };
        let done = filters::run(&filter_call, &chain, payload.tool_input.clone());
        acted |= !done.outcomes.is_empty();
        ran.outcomes.extend(done.outcomes);
        ran.fired.extend(done.ran);
        ran.notes.extend(done.notes);
    }
    acted
}
