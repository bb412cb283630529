//! Claude Code's format (also Codex's, and Copilot's PascalCase events):
//! `hookSpecificOutput` with `hookEventName`, `permissionDecision`,
//! `permissionDecisionReason`, `updatedInput` (the full input) and
//! `additionalContext`; on post, top-level `decision: "block"` + `reason`,
//! and `updatedToolOutput` (`updatedMCPToolOutput` for MCP tools).

use serde_json::{json, Map, Value};

use super::{output_text, Reply};
use crate::answer::Answer;
use crate::outcome::Permission;
use crate::payload::Payload;
use crate::rule::Step;
use crate::tool::Target;

pub(super) fn reply(target: Target, payload: &Payload, tool: &str, answer: &Answer) -> Reply {
    let mut out = Map::new();
    let mut specific = Map::new();
    specific.insert("hookEventName".into(), json!(payload.step.event()));
    match payload.step {
        Step::Pre | Step::Permission => {
            // Codex rejects `allow` without a rewrite; saying nothing is the same there.
            let silent_allow = target == Target::Codex
                && answer.decision == Some(Permission::Allow)
                && answer.updated_input.is_none();
            if let (Some(decision), false) = (answer.decision, silent_allow) {
                specific.insert("permissionDecision".into(), json!(decision.as_str()));
                specific.insert("permissionDecisionReason".into(), json!(answer.reason()));
            }
            if let Some(input) = &answer.updated_input {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        _ => {
            if let Some(block) = &answer.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(block));
            }
            if let Some(output) = &answer.tool_output {
                if tool.starts_with("mcp__") {
                    specific.insert("updatedMCPToolOutput".into(), output.clone());
                } else {
                    specific.insert("updatedToolOutput".into(), shaped_output(payload, output));
                }
            }
        }
    }
    if let Some(context) = answer.context() {
        specific.insert("additionalContext".into(), json!(context));
    }
    if specific.len() > 1 {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if out.is_empty() {
        return Reply::default();
    }
    Reply::json(Value::Object(out))
}

/// A string replacing a Bash result keeps the result's shape: it becomes
/// `stdout`, and `stderr` is cleared.
fn shaped_output(payload: &Payload, output: &Value) -> Value {
    match (output, payload.tool_response.as_ref()) {
        (Value::String(_), Some(Value::Object(response))) if response.contains_key("stdout") => {
            let mut shaped = response.clone();
            shaped.insert("stdout".into(), json!(output_text(output)));
            if shaped.contains_key("stderr") {
                shaped.insert("stderr".into(), json!(""));
            }
            Value::Object(shaped)
        }
        _ => output.clone(),
    }
}
