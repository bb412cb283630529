//! Cursor's format: `preToolUse` takes `decision` (`allow`, `deny`),
//! `reason` and `updated_input`; `postToolUse` takes
//! `updated_mcp_tool_output` for MCP tools.

use serde_json::{json, Map, Value};

use super::Reply;
use crate::answer::Answer;
use crate::payload::Payload;
use crate::rule::Step;

pub(super) fn reply(payload: &Payload, tool: &str, answer: &Answer) -> Reply {
    let mut out = Map::new();
    if payload.step == Step::Pre {
        if let Some(decision) = answer.decision {
            out.insert("decision".into(), json!(decision.as_str()));
            out.insert("reason".into(), json!(answer.reason()));
        }
        if let Some(input) = &answer.updated_input {
            out.insert("updated_input".into(), input.clone());
        }
    } else if let (Some(output), true) = (&answer.tool_output, tool.starts_with("mcp")) {
        out.insert("updated_mcp_tool_output".into(), output.clone());
    }
    if out.is_empty() {
        return Reply::default();
    }
    Reply::json(Value::Object(out))
}
