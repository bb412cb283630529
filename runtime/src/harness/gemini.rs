//! Gemini CLI's format: flat `decision` (`allow`, `deny`, `ask`) and
//! `reason`; a rewrite in `hookSpecificOutput.tool_input` (merged over the
//! arguments); on `AfterTool`, `decision: "deny"` replaces the result with
//! the reason, and `hookSpecificOutput.additionalContext` adds context.

use serde_json::{json, Map, Value};

use super::Reply;
use crate::answer::Answer;
use crate::payload::Payload;
use crate::rule::Step;

pub(super) fn reply(payload: &Payload, answer: &Answer) -> Reply {
    let mut out = Map::new();
    let mut specific = Map::new();
    if payload.step == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("decision".into(), json!(decision.as_str()));
            out.insert("reason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            specific.insert("tool_input".into(), input.clone());
        }
    } else if let Some(block) = &answer.block {
        out.insert("decision".into(), json!("deny"));
        out.insert("reason".into(), json!(block));
    }
    if let Some(context) = answer.context() {
        specific.insert("additionalContext".into(), json!(context));
    }
    if !specific.is_empty() {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    Reply::json(Value::Object(out))
}
