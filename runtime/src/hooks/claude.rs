//! The contract of a `hooks.yaml` `command` hook (**contract**, SPEC §9):
//! Claude Code's, as BioRouter reads it. stdin is the snake_case payload
//! with the harness's own tool name; the environment adds
//! `HOOKDEX_HOOK_EVENT`, `HOOKDEX_SESSION_ID` and `HOOKDEX_PROJECT_DIR`.
//!
//! Exit 2 blocks with stderr as the reason (stdout ignored); any other
//! non-zero exit, a signal or the timeout is a failure that blocks nothing.
//! Exit 0 may print a camelCase JSON object, read in BioRouter's order:
//! `hookSpecificOutput.permissionDecision` first, then a top-level
//! `decision` (`block`, `approve`, `allow`), then `"continue": false`;
//! `systemMessage` goes to the person, `additionalContext` to the agent,
//! `updatedInput` (or `updated_input`, `toolInput`, `tool_input`) is the
//! full replacement of the tool input, on PreToolUse only, an object of at
//! most 256 KiB. Stdout that is not such an object is context on
//! UserPromptSubmit and SessionStart, and ignored elsewhere.

use hookdex_harness::Payload;
use hookdex_model::{Event, Permission};
use serde_json::{Map, Value};

use crate::call::Call;
use crate::exec::{Execution, Finish};
use crate::outcome::Outcome;

/// The largest `updatedInput`, as compact JSON (BioRouter's 262,144 bytes,
/// inclusive).
pub const MAX_REPLACEMENT: usize = 256 << 10;

/// What a command hook reads on stdin: the agentihooks payload with the
/// harness's spelling of the tool name, as Claude Code sends it.
pub fn stdin(payload: &Payload, call: &Call) -> Value {
    let mut value = crate::contract::stdin(payload, call);
    if let Value::Object(map) = &mut value {
        map.insert("tool_name".into(), Value::String(payload.tool_name.clone()));
        map.remove("harness_tool_name");
        map.remove("shell");
    }
    value
}

/// The variables a command hook gets on top of its environment.
pub fn env(payload: &Payload, project_dir: &str) -> Vec<(String, String)> {
    vec![
        ("HOOKDEX_HOOK_EVENT".into(), payload.event.as_str().into()),
        (
            "HOOKDEX_SESSION_ID".into(),
            payload.session_id.clone().unwrap_or_default(),
        ),
        ("HOOKDEX_PROJECT_DIR".into(), project_dir.into()),
    ]
}

/// Reads the run of a command hook at `event`; `bypass` is whether the
/// session is in `bypassPermissions` (a rewrite with no decision applies
/// there as it is, elsewhere it is offered as `ask`).
pub fn interpret(event: Event, execution: &Execution, bypass: bool) -> Outcome {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_string();
    match &execution.finish {
        Finish::Exited(2) => {
            let reason = match text(&execution.stderr) {
                r if r.is_empty() => format!("{} blocked by hook", event.as_str()),
                r => r,
            };
            blocked(event, reason)
        }
        Finish::Exited(0) => from_stdout(event, &text(&execution.stdout), bypass),
        _ => crate::outcome::interpret(event.step(), execution),
    }
}

/// A block at `event`: a deny where the call has not run yet.
pub fn blocked(event: Event, reason: String) -> Outcome {
    match event.step().decides_permission() {
        true => Outcome {
            decision: Some(Permission::Deny),
            reason: Some(reason),
            ..Outcome::default()
        },
        false => Outcome {
            block: Some(reason),
            ..Outcome::default()
        },
    }
}

fn from_stdout(event: Event, stdout: &str, bypass: bool) -> Outcome {
    if stdout.is_empty() {
        return Outcome::default();
    }
    let takes_text = matches!(event, Event::UserPromptSubmit | Event::SessionStart);
    let object = match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(object)) => object,
        _ if takes_text => {
            return Outcome {
                context: Some(stdout.to_string()),
                ..Outcome::default()
            }
        }
        _ => {
            return Outcome {
                ignored: vec!["stdout that is not a JSON object".into()],
                ..Outcome::default()
            }
        }
    };
    let mut outcome = Outcome::default();
    let string = |map: &Map<String, Value>, key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(String::from)
    };
    outcome.notice = string(&object, "systemMessage");
    let specific = object
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    outcome.context = string(&specific, "additionalContext");
    let mut decided = false;
    if let Some(decision) = specific.get("permissionDecision").and_then(Value::as_str) {
        let reason = string(&specific, "permissionDecisionReason");
        match decision {
            "deny" => {
                let reason = reason.unwrap_or_else(|| "denied by hook".into());
                let block = blocked(event, reason);
                outcome.decision = block.decision;
                outcome.reason = block.reason;
                outcome.block = block.block;
                decided = true;
            }
            "ask" | "allow" if event.step().decides_permission() => {
                outcome.decision = Some(match decision {
                    "ask" => Permission::Ask,
                    _ => Permission::Allow,
                });
                outcome.reason = reason;
                decided = true;
            }
            "ask" | "allow" => decided = true,
            other => outcome
                .ignored
                .push(format!("unknown permissionDecision `{other}`")),
        }
    }
    if !decided {
        if let Some(decision) = object.get("decision").and_then(Value::as_str) {
            match decision {
                "block" => {
                    let reason = string(&object, "reason")
                        .unwrap_or_else(|| format!("{} blocked by hook", event.as_str()));
                    let block = blocked(event, reason);
                    (outcome.decision, outcome.reason, outcome.block) =
                        (block.decision, block.reason, block.block);
                    decided = true;
                }
                "approve" | "allow" => {
                    if event.step().decides_permission() {
                        outcome.decision = Some(Permission::Allow);
                        outcome.reason = string(&object, "reason");
                    }
                    decided = true;
                }
                other => outcome.ignored.push(format!("unknown decision `{other}`")),
            }
        }
    }
    if !decided && object.get("continue") == Some(&Value::Bool(false)) {
        let reason = string(&object, "stopReason")
            .or_else(|| string(&object, "reason"))
            .unwrap_or_else(|| format!("{} stopped by hook", event.as_str()));
        let block = blocked(event, reason);
        (outcome.decision, outcome.reason, outcome.block) =
            (block.decision, block.reason, block.block);
    }
    let rewrite = ["updatedInput", "updated_input", "toolInput", "tool_input"]
        .iter()
        .find_map(|key| specific.get(*key).filter(|v| !v.is_null()));
    if let Some(rewrite) = rewrite {
        match replacement(event, rewrite) {
            Ok(input) => offer(&mut outcome, input, bypass),
            Err(why) => outcome.ignored.push(why.message("updatedInput")),
        }
    }
    outcome
}

/// Why a hook's rewrite of the tool input is not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refused {
    /// It came on an event other than PreToolUse.
    NotPreToolUse(Event),
    /// It is not a JSON object of tool arguments.
    NotAnObject,
    /// It is this many bytes, over [`MAX_REPLACEMENT`].
    TooLarge(usize),
}

impl Refused {
    /// The line for the hook log, naming the hook's `key` for the rewrite
    /// (`updatedInput` in `hooks.yaml`, `modify` in `HOOK.md`).
    pub fn message(&self, key: &str) -> String {
        match self {
            Refused::NotPreToolUse(event) => format!(
                "{key}: it is only honoured on PreToolUse (ignored on {})",
                event.as_str()
            ),
            Refused::NotAnObject => format!("{key}: it must be a JSON object of tool arguments"),
            Refused::TooLarge(size) => format!(
                "{key}: {size} bytes, over the {MAX_REPLACEMENT}-byte limit; rewrite ignored"
            ),
        }
    }
}

/// `value` as a full replacement of the tool input at `event`.
///
/// # Errors
///
/// Why it is not taken ([`Refused`]).
pub fn replacement(event: Event, value: &Value) -> Result<Value, Refused> {
    if event != Event::PreToolUse {
        return Err(Refused::NotPreToolUse(event));
    }
    if !value.is_object() {
        return Err(Refused::NotAnObject);
    }
    let size = value.to_string().len();
    if size > MAX_REPLACEMENT {
        return Err(Refused::TooLarge(size));
    }
    Ok(value.clone())
}

/// Puts a replacement into `outcome`. With no decision of its own it is
/// offered as `ask` (the person sees the changed call), except in
/// `bypassPermissions`, where the rewrite table applies it as it is: a
/// rewrite never widens what the call may do.
pub fn offer(outcome: &mut Outcome, input: Value, bypass: bool) {
    if outcome.decision.is_none() && !bypass {
        outcome.decision = Some(Permission::Ask);
    }
    outcome.replacement = Some(input);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(code: i32, stdout: &str, stderr: &str) -> Execution {
        Execution {
            finish: Finish::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn exit_codes_and_json_read_in_biorouter_order() {
        let pre = Event::PreToolUse;
        let deny = interpret(pre, &run(2, r#"{"decision":"approve"}"#, " no \n"), false);
        assert_eq!(
            (deny.decision, deny.reason.as_deref()),
            (Some(Permission::Deny), Some("no"))
        );
        let blank = interpret(Event::Stop, &run(2, "", ""), false);
        assert_eq!(blank.block.as_deref(), Some("Stop blocked by hook"));
        assert!(interpret(pre, &run(1, "", "boom"), false).failure.is_some());
        let specific_wins = interpret(
            pre,
            &run(
                0,
                r#"{"decision":"block","hookSpecificOutput":{"permissionDecision":"allow"}}"#,
                "",
            ),
            false,
        );
        assert_eq!(specific_wins.decision, Some(Permission::Allow));
        let stop = interpret(
            Event::Stop,
            &run(0, r#"{"continue":false,"stopReason":"tests first"}"#, ""),
            false,
        );
        assert_eq!(stop.block.as_deref(), Some("tests first"));
        let context = interpret(Event::SessionStart, &run(0, "lab notes", ""), false);
        assert_eq!(context.context.as_deref(), Some("lab notes"));
        assert!(interpret(pre, &run(0, "lab notes", ""), false)
            .context
            .is_none());
        let notice = interpret(pre, &run(0, r#"{"systemMessage":"heads up"}"#, ""), false);
        assert_eq!(notice.notice.as_deref(), Some("heads up"));
    }

    #[test]
    fn rewrites_are_whole_objects_on_pretooluse_within_the_cap() {
        let pre = Event::PreToolUse;
        let out = |json: &str, bypass| interpret(pre, &run(0, json, ""), bypass);
        let asked = out(
            r#"{"hookSpecificOutput":{"updatedInput":{"command":"rm -rf ./build"}}}"#,
            false,
        );
        assert_eq!(asked.decision, Some(Permission::Ask));
        assert_eq!(
            asked.replacement,
            Some(serde_json::json!({"command": "rm -rf ./build"}))
        );
        let bypassed = out(
            r#"{"hookSpecificOutput":{"tool_input":{"command":"x"}}}"#,
            true,
        );
        assert_eq!(
            (bypassed.decision, bypassed.replacement.is_some()),
            (None, true)
        );
        let allowed = out(
            r#"{"hookSpecificOutput":{"permissionDecision":"allow","updated_input":{"a":1}}}"#,
            false,
        );
        assert_eq!(allowed.decision, Some(Permission::Allow));
        assert!(
            out(r#"{"hookSpecificOutput":{"updatedInput":"rm"}}"#, false)
                .replacement
                .is_none()
        );
        let big = format!(
            r#"{{"hookSpecificOutput":{{"updatedInput":{{"k":"{}"}}}}}}"#,
            "x".repeat(MAX_REPLACEMENT)
        );
        assert!(out(&big, false).replacement.is_none());
        let exact = "x".repeat(MAX_REPLACEMENT - r#"{"k":""}"#.len());
        let exact = format!(r#"{{"hookSpecificOutput":{{"updatedInput":{{"k":"{exact}"}}}}}}"#);
        assert!(out(&exact, false).replacement.is_some());
        let post = interpret(
            Event::PostToolUse,
            &run(0, r#"{"hookSpecificOutput":{"updatedInput":{"a":1}}}"#, ""),
            false,
        );
        assert!(post.replacement.is_none() && !post.ignored.is_empty());
    }
}
