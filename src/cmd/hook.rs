//! `hookdex hook --target T [--event E]`: the command every harness runs on
//! every tool call. It maps the index, answers what fires, and — until
//! execution lands — replies "nothing to do". It always exits 0: a broken
//! payload or index never blocks the agent.

use std::io::Read;

use hookdex_runtime::call::Call;
use hookdex_runtime::rule::Step;
use hookdex_runtime::tool::Target;
use hookdex_runtime::view::View;
use serde_json::Value;

use super::CmdResult;
use crate::load;

/// Reads the payload, looks up what fires, and answers.
pub fn run(target: Target, event: Option<&str>) -> CmdResult {
    let mut payload = Vec::new();
    if std::io::stdin().read_to_end(&mut payload).is_err() {
        return Ok(0);
    }
    let Ok(payload) = serde_json::from_slice::<Value>(&payload) else {
        return Ok(0);
    };
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| "/".into());
    let view = View::from_env(target, &cwd);
    let Ok((file, _state)) = load::load(&view, load::Verify::Lazy) else {
        return Ok(0);
    };
    let Ok(index) = file.index() else {
        return Ok(0);
    };
    let step = step_of(&payload, event);
    let tool = payload
        .get("tool_name")
        .or_else(|| payload.get("toolName"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let call = Call::new(target, step, tool, &input);
    let trust = match index.meta() {
        Ok(meta) => meta.trust(),
        Err(_) => return Ok(0),
    };
    let _fires = index.lookup(&call.query(), &trust);
    Ok(0)
}

/// The step: from `--event`, else the payload's event name, else post when a
/// tool result is present.
fn step_of(payload: &Value, event: Option<&str>) -> Step {
    let name = event.or_else(|| payload.get("hook_event_name").and_then(Value::as_str));
    match name {
        Some(e) if e.eq_ignore_ascii_case("PostToolUse") || e.eq_ignore_ascii_case("AfterTool") => {
            Step::Post
        }
        Some(e) if e.eq_ignore_ascii_case("PreToolUse") || e.eq_ignore_ascii_case("BeforeTool") => {
            Step::Pre
        }
        _ if payload.get("tool_response").is_some() || payload.get("toolResult").is_some() => {
            Step::Post
        }
        _ => Step::Pre,
    }
}
