//! The re-judge stage: a rewrite goes through the lookup once more (the
//! rewritten input only, the lookup the filters stage may have made
//! already), so no rule can rewrite a call past another's guard.

use hookdex_harness::McpScope;
use hookdex_model::Answer;
use serde_json::Value;

use super::conditions::{Judge, Ran};
use super::plan::Plan;
use super::run::{run_conditions, run_guards, run_hooks};
use crate::fired::Fired;
use crate::merge;

/// Every deny-capable rule that fires for the rewritten `input`
/// (conditions, `hooks.yaml` and `HOOK.md` hooks; filters judged it
/// already, as the chain's last step) runs on it, those that judged the
/// original too (they saw other text), but not the `rewriters`
/// themselves; the answer is merged again from every outcome, so a deny
/// among them drops the rewrite. A rewrite of the rewritten input is not
/// applied: it would need judging once more, and so on without end. `None`
/// when nothing fires for the rewritten input.
pub(super) fn judge_again(
    judge: &Judge<'_>,
    scope: &McpScope<'_>,
    plan: &mut Plan,
    input: Value,
    rewriters: &[String],
    ran: &mut Ran,
) -> Option<Answer> {
    plan.look_up_rewrite(judge.settings, scope, &input);
    let rewritten = match plan.rewritten()? {
        Ok(rewritten) => rewritten,
        Err(reason) => {
            ran.notes.push(format!(
                "the rewritten call could not be looked up: {reason}"
            ));
            return None;
        }
    };
    // An `.async` rule cannot change the call: one that already started
    // does not start twice.
    // Filters judged this input already, as the chain's last step.
    let fired: Vec<&Fired> = rewritten
        .fired
        .iter()
        .filter(|rule| {
            rule.kind == hookdex_model::RuleKind::Condition
                || rule.hook.is_some()
                || rule.guard.is_some()
        })
        .filter(|rule| !(rule.is_async && ran.fired.contains(&rule.file_name)))
        .filter(|rule| !rewriters.contains(&rule.name()))
        .collect();
    if fired.is_empty() {
        return None;
    }
    let names: Vec<String> = fired.iter().map(|rule| rule.name()).collect();
    ran.notes.push(format!(
        "the rewritten call was judged again: {}",
        names.join(", ")
    ));
    let (payload, call) = (&rewritten.payload, &rewritten.call);
    let mut again = Ran::default();
    let (guards, fired): (Vec<&Fired>, Vec<&Fired>) =
        fired.into_iter().partition(|rule| rule.guard.is_some());
    let (hooks, conditions): (Vec<&Fired>, Vec<&Fired>) =
        fired.into_iter().partition(|rule| rule.hook.is_some());
    run_guards(judge.settings, payload, call, &guards, &mut again);
    run_conditions(judge, payload, call, &conditions, &mut again);
    run_hooks(judge, payload, call, &hooks, &mut again);
    for (name, mut outcome) in again.outcomes {
        let rewrote = outcome.replacement.take().is_some();
        if outcome.patch.take().is_some() || rewrote {
            ran.notes.push(format!(
                "{name}: its rewrite of the rewritten call is not applied"
            ));
        }
        // A rule that answered the original text already counts again only
        // when it is stricter about the rewrite (it passed `get` and denies
        // `delete`); otherwise its first answer stands alone.
        let first = ran.outcomes.iter().find(|(n, _)| *n == name);
        if let Some((_, first)) = first {
            if outcome.decision <= first.decision {
                continue;
            }
            outcome.context = None;
        }
        ran.outcomes.push((name, outcome));
    }
    for name in again.fired {
        if !ran.fired.contains(&name) {
            ran.fired.push(name);
        }
    }
    ran.notes.extend(again.notes);
    let original = &plan.calls[0].payload;
    Some(merge::merge(
        original.step(),
        &original.tool_input,
        original.permission_mode.as_deref(),
        &ran.outcomes,
    ))
}
