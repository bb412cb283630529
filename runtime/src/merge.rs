//! Merging the outcomes of every condition that ran for one call into one
//! answer, in execution order: contexts concatenate, `tool_input` patches
//! merge (a later key wins) over the last full replacement, if any (a
//! hook's `updatedInput`), the last `tool_output` wins, and `deny > ask >
//! allow`. A rewrite is applied only together with a permission decision,
//! and never widens permissions unless a rule says `allow`.

use hookdex_model::Answer;
use hookdex_model::{Permission, Step};
use serde_json::{Map, Value};

use crate::outcome::Outcome;

/// Merges `outcomes` (condition file name, outcome), in execution order, for a
/// call at `step` whose tool input was `input`, in `permission_mode`.
pub fn merge(
    step: Step,
    input: &Value,
    permission_mode: Option<&str>,
    outcomes: &[(String, Outcome)],
) -> Answer {
    let mut answer = Answer::default();
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let mut patch = Map::new();
    let mut base: Option<&Value> = None;
    let mut patchers = Vec::new();
    let mut writers = Vec::new();
    for (name, outcome) in outcomes {
        if let Some(failure) = &outcome.failure {
            warnings.push(format!("hookdex: condition {name} skipped ({failure})"));
            continue;
        }
        for ignored in &outcome.ignored {
            answer.log.push(format!("{name}: ignored {ignored}"));
        }
        if let Some(context) = &outcome.context {
            answer.contexts.push(context.clone());
        }
        if let Some(notice) = &outcome.notice {
            answer.user_notes.push(notice.clone());
        }
        if let Some(whole) = &outcome.replacement {
            if base.is_some() {
                answer.log.push(format!(
                    "{name}: its input rewrite replaces an earlier one; the last one wins"
                ));
            }
            base = Some(whole);
            patch.clear();
            patchers.push(name.as_str());
        }
        if let Some(p) = &outcome.patch {
            patch.extend(p.clone());
            patchers.push(name.as_str());
        }
        if let Some(output) = &outcome.tool_output {
            answer.tool_output = Some(output.clone());
            writers.push(name.as_str());
        }
        if let Some(reason) = &outcome.block {
            let reason = reason.clone();
            answer.block = Some(match answer.block.take() {
                Some(before) => format!("{before}; {reason}"),
                None => reason,
            });
        }
        if let Some(decision) = outcome.decision {
            if answer.decision.is_none_or(|d| decision > d) {
                answer.decision = Some(decision);
                answer.reasons.clear();
                answer.deciders.clear();
            }
            if answer.decision == Some(decision) {
                // A rule judged again on a rewrite says the same thing twice.
                if let Some(reason) = outcome
                    .reason
                    .as_ref()
                    .filter(|r| !answer.reasons.contains(r))
                {
                    answer.reasons.push(reason.clone());
                }
                answer.deciders.push(name.clone());
            }
        }
    }
    if writers.len() > 1 {
        answer.log.push(format!(
            "tool_output written by {}; the last one wins",
            writers.join(", ")
        ));
    }
    if !patchers.is_empty() && step == Step::Pre {
        apply_rewrite(
            &mut answer,
            base.unwrap_or(input),
            patch,
            permission_mode,
            &patchers,
            &mut notes,
        );
    }
    for note in notes {
        answer.note(note);
    }
    for warning in warnings {
        answer.warn(warning);
    }
    answer
}

/// What the agent is told when the rewrite of `patchers` is dropped.
pub(crate) fn rewrite_dropped(patchers: &[&str]) -> String {
    format!(
        "hookdex: the input rewrite from {} was dropped: a rewrite needs \"decision\": \"allow\" or \"ask\" outside bypassPermissions",
        patchers.join(", ")
    )
}

/// The rewrite table: with `allow` or `ask` the rewrite applies; with no
/// decision it applies only in `bypassPermissions` (as an allow); otherwise
/// it is dropped and the agent told why. A denied call is not rewritten.
fn apply_rewrite(
    answer: &mut Answer,
    input: &Value,
    patch: Map<String, Value>,
    permission_mode: Option<&str>,
    patchers: &[&str],
    notes: &mut Vec<String>,
) {
    let rewritten = || {
        let mut full = input.as_object().cloned().unwrap_or_default();
        full.extend(patch.clone());
        Value::Object(full)
    };
    match answer.decision {
        Some(Permission::Deny) => return,
        Some(Permission::Allow | Permission::Ask) => answer.updated_input = Some(rewritten()),
        None if permission_mode == Some("bypassPermissions") => {
            answer.updated_input = Some(rewritten());
            answer.decision = Some(Permission::Allow);
            answer.deciders = patchers.iter().map(|p| p.to_string()).collect();
        }
        None => notes.push(rewrite_dropped(patchers)),
    }
    if answer.updated_input.is_some() {
        answer.rewriters = patchers.iter().map(|p| p.to_string()).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(value: Value) -> Outcome {
        let mut o = Outcome::default();
        if let Some(c) = value.get("context").and_then(Value::as_str) {
            o.context = Some(c.into());
        }
        if let Some(p) = value.get("tool_input").and_then(Value::as_object) {
            o.patch = Some(p.clone());
        }
        o.decision = match value.get("decision").and_then(Value::as_str) {
            Some("allow") => Some(Permission::Allow),
            Some("ask") => Some(Permission::Ask),
            Some("deny") => Some(Permission::Deny),
            _ => None,
        };
        o.reason = value
            .get("reason")
            .and_then(Value::as_str)
            .map(String::from);
        o
    }

    fn merged(mode: Option<&str>, outcomes: &[Value]) -> Answer {
        let named: Vec<(String, Outcome)> = outcomes
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("c{i}"), outcome(v.clone())))
            .collect();
        merge(
            Step::Pre,
            &json!({"command": "git log", "description": "d"}),
            mode,
            &named,
        )
    }

    #[test]
    fn precedence_and_contexts() {
        let a = merged(
            None,
            &[
                json!({"decision": "allow", "reason": "fine", "context": "one"}),
                json!({"decision": "deny", "reason": "no"}),
                json!({"decision": "ask", "reason": "maybe", "context": "two"}),
                json!({"decision": "deny", "reason": "never"}),
            ],
        );
        assert_eq!(a.decision, Some(Permission::Deny));
        assert_eq!(a.reason(), "no; never");
        assert_eq!(a.contexts, vec!["one", "two"]);
    }

    #[test]
    fn the_rewrite_table() {
        let patch = json!({"tool_input": {"command": "git log --oneline -20"}});
        let full = json!({"command": "git log --oneline -20", "description": "d"});
        let with = |decision: &str| {
            let mut p = patch.clone();
            p["decision"] = json!(decision);
            p
        };
        let allow = merged(None, &[with("allow")]);
        assert_eq!(
            (allow.decision, allow.updated_input.as_ref()),
            (Some(Permission::Allow), Some(&full))
        );
        let ask = merged(None, &[with("ask")]);
        assert_eq!(
            (ask.decision, ask.updated_input.as_ref()),
            (Some(Permission::Ask), Some(&full))
        );
        let bypass = merged(Some("bypassPermissions"), std::slice::from_ref(&patch));
        assert_eq!(
            (bypass.decision, bypass.updated_input.as_ref()),
            (Some(Permission::Allow), Some(&full))
        );
        let dropped = merged(Some("default"), std::slice::from_ref(&patch));
        assert_eq!(
            (dropped.decision, dropped.updated_input.clone()),
            (None, None)
        );
        assert!(
            dropped.contexts[0].contains("rewrite from c0 was dropped"),
            "{:?}",
            dropped.contexts
        );
        let denied = merged(None, &[with("allow"), json!({"decision": "deny"})]);
        assert_eq!(
            (denied.decision, denied.updated_input.clone()),
            (Some(Permission::Deny), None)
        );
    }

    #[test]
    fn patches_merge_in_order_and_failures_are_named() {
        let failed = Outcome {
            failure: Some("exit 1".into()),
            ..Outcome::default()
        };
        let outcomes = vec![
            (
                "a".to_string(),
                outcome(json!({"tool_input": {"command": "x", "timeout": 5}, "decision": "allow"})),
            ),
            ("crash.py".to_string(), failed),
            (
                "b".to_string(),
                outcome(json!({"tool_input": {"command": "y"}})),
            ),
        ];
        let a = merge(Step::Pre, &json!({"command": "git log"}), None, &outcomes);
        assert_eq!(a.updated_input, Some(json!({"command": "y", "timeout": 5})));
        assert_eq!(a.decision, Some(Permission::Allow), "a crash never denies");
        assert_eq!(
            a.contexts,
            vec!["hookdex: condition crash.py skipped (exit 1)"]
        );
    }
}
