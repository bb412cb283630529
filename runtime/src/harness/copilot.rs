//! Copilot's camelCase format: flat `permissionDecision`,
//! `permissionDecisionReason`, `modifiedArgs` (the full arguments) and
//! `additionalContext`; on post, `modifiedResult` and `additionalContext`.

use serde_json::{json, Map, Value};

use super::{output_text, Reply};
use crate::answer::Answer;
use crate::payload::Payload;
use crate::rule::Step;

pub(super) fn reply(payload: &Payload, answer: &Answer) -> Reply {
    let mut out = Map::new();
    if payload.step == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("permissionDecision".into(), json!(decision.as_str()));
            out.insert("permissionDecisionReason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            out.insert("modifiedArgs".into(), input.clone());
        }
    }
    if let Some(output) = &answer.tool_output {
        out.insert(
            "modifiedResult".into(),
            json!({"resultType": "success", "textResultForLlm": output_text(output)}),
        );
    }
    if let Some(context) = answer.context() {
        out.insert("additionalContext".into(), json!(context));
    }
    Reply::json(Value::Object(out))
}
