//! Reading what a harness sends a hook: each harness's spelling (Claude and
//! Codex snake_case, Copilot camelCase with `toolArgs` as a string or an
//! object, Gemini `BeforeTool`/`AfterTool`, Cursor `preToolUse`) into one
//! [`Payload`], and the normalized JSON that condition scripts read on stdin.

use serde_json::{json, Map, Value};

use crate::call::Call;
use crate::rule::Step;
use crate::tool::Target;

/// The payload shapes a harness may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// snake_case with `hook_event_name` (Claude, Codex, Gemini, Copilot's
    /// PascalCase events, Cursor).
    Snake,
    /// Copilot's camelCase (`toolName`, `toolArgs`, `toolResult`).
    CopilotCamel,
}

/// One tool call (or event) as a harness reported it, normalized.
#[derive(Clone, Debug)]
pub struct Payload {
    /// Which spelling the harness used.
    pub shape: Shape,
    /// The step, from `--event`, the event name, or the presence of a result.
    pub step: Step,
    /// The tool name as the harness spelled it (empty for non-tool events).
    pub tool_name: String,
    /// The tool input, as an object when the harness sent one.
    pub tool_input: Value,
    /// The tool result on post.
    pub tool_response: Option<Value>,
    /// The call's id, when the harness has one.
    pub tool_use_id: Option<String>,
    /// The session (or conversation) id.
    pub session_id: Option<String>,
    /// The working directory of the session.
    pub cwd: Option<String>,
    /// The transcript file.
    pub transcript_path: Option<String>,
    /// The permission mode (`default`, `bypassPermissions`, …).
    pub permission_mode: Option<String>,
    /// The field event steps match on (`source`, `reason`, `trigger`, …).
    pub event_field: Option<String>,
    /// Further calls of a Copilot batch (`toolCalls[]`): (tool name, input).
    /// The first call of the batch is `tool_name`/`tool_input`.
    pub batch: Vec<(String, Value)>,
    /// The payload as received.
    pub raw: Value,
}

/// Event names, per spelling, and the step they mean.
const EVENTS: &[(&str, Step)] = &[
    ("PreToolUse", Step::Pre),
    ("preToolUse", Step::Pre),
    ("BeforeTool", Step::Pre),
    ("PostToolUse", Step::Post),
    ("postToolUse", Step::Post),
    ("AfterTool", Step::Post),
    ("PostToolUseFailure", Step::Fail),
    ("postToolUseFailure", Step::Fail),
    ("PermissionRequest", Step::Permission),
    ("permissionRequest", Step::Permission),
    ("SessionStart", Step::Start),
    ("sessionStart", Step::Start),
    ("SessionEnd", Step::End),
    ("sessionEnd", Step::End),
    ("SubagentStart", Step::Substart),
    ("subagentStart", Step::Substart),
    ("SubagentStop", Step::Substop),
    ("subagentStop", Step::Substop),
    ("PreCompact", Step::Compact),
    ("preCompact", Step::Compact),
    ("PreCompress", Step::Compact),
    ("Notification", Step::Notify),
    ("notification", Step::Notify),
    ("UserPromptSubmit", Step::Prompt),
    ("userPromptSubmitted", Step::Prompt),
    ("beforeSubmitPrompt", Step::Prompt),
    ("BeforeAgent", Step::Prompt),
    ("Stop", Step::Stop),
    ("stop", Step::Stop),
    ("agentStop", Step::Stop),
    ("AfterAgent", Step::Stop),
];

/// The step an event name means (any harness's spelling, or a step token).
pub fn step_of_event(name: &str) -> Option<Step> {
    EVENTS
        .iter()
        .find(|(event, _)| *event == name)
        .map(|(_, step)| *step)
        .or_else(|| Step::parse(name))
}

fn string(value: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match value.get(*k)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

/// A tool input sent as a JSON string (Copilot's `toolArgs`, Cursor's MCP
/// input) is parsed; anything else is kept as it is.
fn object_or_parsed(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!({"raw": s})),
        Some(v) => v.clone(),
        None => json!({}),
    }
}

impl Payload {
    /// Parses a payload; `event` is `--event` when the harness passed one.
    ///
    /// # Errors
    ///
    /// A one-line reason when the bytes are not a JSON object.
    pub fn parse(bytes: &[u8], event: Option<&str>) -> Result<Payload, String> {
        let raw: Value =
            serde_json::from_slice(bytes).map_err(|e| format!("payload is not JSON: {e}"))?;
        if !raw.is_object() {
            return Err("payload is not a JSON object".into());
        }
        let camel = ["toolName", "toolArgs", "toolCalls"]
            .iter()
            .any(|k| raw.get(*k).is_some());
        let mut batch: Vec<(String, Value)> = raw
            .get("toolCalls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| {
                        let args = c.get("args").or_else(|| c.get("toolArgs"));
                        (
                            string(c, &["name", "toolName"]).unwrap_or_default(),
                            object_or_parsed(args),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let shape = if camel {
            Shape::CopilotCamel
        } else {
            Shape::Snake
        };
        let (tool_name, tool_input, tool_response) = match shape {
            Shape::CopilotCamel if raw.get("toolName").is_none() && !batch.is_empty() => {
                let (name, input) = batch.remove(0);
                (name, input, None)
            }
            Shape::CopilotCamel => (
                string(&raw, &["toolName"]).unwrap_or_default(),
                object_or_parsed(raw.get("toolArgs")),
                raw.get("toolResult").map(|r| {
                    json!({
                        "stdout": r.get("textResultForLlm").cloned().unwrap_or(Value::Null),
                        "result_type": r.get("resultType").cloned().unwrap_or(Value::Null),
                    })
                }),
            ),
            Shape::Snake => (
                string(&raw, &["tool_name"]).unwrap_or_default(),
                object_or_parsed(raw.get("tool_input")),
                response_of(&raw),
            ),
        };
        let named = event
            .map(String::from)
            .or_else(|| string(&raw, &["hook_event_name", "hookEventName"]));
        let step = match named.as_deref().and_then(step_of_event) {
            Some(step) => step,
            None if tool_response.is_some() => Step::Post,
            None => Step::Pre,
        };
        let event_field = match step {
            Step::Start => string(&raw, &["source"]),
            Step::End => string(&raw, &["reason"]),
            Step::Substart | Step::Substop => string(&raw, &["agent_type"]),
            Step::Compact => string(&raw, &["trigger"]),
            Step::Notify => string(&raw, &["notification_type"]),
            _ => None,
        };
        Ok(Payload {
            shape,
            step,
            tool_name,
            tool_input,
            tool_response,
            tool_use_id: string(&raw, &["tool_use_id", "toolUseId"]),
            session_id: string(&raw, &["session_id", "sessionId", "conversation_id"]),
            cwd: string(&raw, &["cwd"]).or_else(|| {
                raw.get("workspace_roots")
                    .and_then(|r| r.get(0))
                    .and_then(Value::as_str)
                    .map(String::from)
            }),
            transcript_path: string(&raw, &["transcript_path", "transcriptPath"]),
            permission_mode: string(&raw, &["permission_mode", "permissionMode"]),
            event_field,
            batch,
            raw,
        })
    }

    /// Every call of the payload: itself, then one per further batched call.
    pub fn calls(&self) -> Vec<Payload> {
        let single = Payload {
            batch: Vec::new(),
            ..self.clone()
        };
        let mut calls = vec![single.clone()];
        calls.extend(self.batch.iter().map(|(name, input)| Payload {
            tool_name: name.clone(),
            tool_input: input.clone(),
            ..single.clone()
        }));
        calls
    }

    /// The call to look up: the tool name normalized for `target`, or, for an
    /// event step, its matched field.
    pub fn call(&self, target: Target) -> Call {
        if matches!(
            self.step,
            Step::Pre | Step::Post | Step::Fail | Step::Permission
        ) {
            Call::new(target, self.step, &self.tool_name, &self.tool_input)
        } else {
            let field = self.event_field.clone().unwrap_or_default();
            Call::new(target, self.step, &field.to_ascii_lowercase(), &Value::Null)
        }
    }

    /// What condition scripts read on stdin: the payload in the agentihooks
    /// shape, with the normalized tool name (`harness_tool_name` keeps the
    /// harness's spelling) and `hook_event_name` in Claude's spelling.
    pub fn normalized(&self, call: &Call) -> Value {
        let mut out = Map::new();
        out.insert("tool_name".into(), json!(call.tool.name));
        out.insert("harness_tool_name".into(), json!(self.tool_name));
        let mut input = self.tool_input.clone();
        // A list command (Codex's exec form) reaches scripts as one string.
        if let (Some(command), Some(object)) = (&call.command, input.as_object_mut()) {
            if object.get("command").is_some_and(Value::is_array) {
                object.insert("command".into(), json!(command));
            }
        }
        out.insert("tool_input".into(), input);
        if let Some(response) = &self.tool_response {
            // A bare string result (Codex's shell) reaches scripts as `stdout`.
            let response = match response {
                Value::String(text) => json!({ "stdout": text }),
                other => other.clone(),
            };
            out.insert("tool_response".into(), response);
        }
        let optional = [
            ("tool_use_id", &self.tool_use_id),
            ("session_id", &self.session_id),
            ("cwd", &self.cwd),
            ("transcript_path", &self.transcript_path),
            ("permission_mode", &self.permission_mode),
        ];
        for (key, value) in optional {
            out.insert(
                key.into(),
                value.as_deref().map_or(Value::Null, |v| json!(v)),
            );
        }
        out.insert("hook_event_name".into(), json!(self.step.event()));
        // Event payloads carry their own fields (prompt, source, stop_hook_active, …).
        if let Value::Object(raw) = &self.raw {
            for (key, value) in raw {
                out.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        Value::Object(out)
    }
}

/// The tool result of a snake_case payload: Claude/Codex `tool_response`,
/// Copilot PascalCase `tool_result`, Gemini `tool_response {llmContent}`,
/// Cursor `tool_output` (a string).
fn response_of(raw: &Value) -> Option<Value> {
    if let Some(response) = raw.get("tool_response") {
        if let Some(content) = response.get("llmContent") {
            return Some(json!({"stdout": content, "raw": response}));
        }
        return Some(response.clone());
    }
    if let Some(result) = raw.get("tool_result") {
        return Some(json!({
            "stdout": result.get("text_result_for_llm").cloned().unwrap_or(Value::Null),
            "result_type": result.get("result_type").cloned().unwrap_or(Value::Null),
        }));
    }
    raw.get("tool_output")
        .map(|output| json!({"stdout": output}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, event: Option<&str>) -> Payload {
        Payload::parse(text.as_bytes(), event).unwrap()
    }

    #[test]
    fn each_spelling_parses() {
        let claude = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s","cwd":"/r","permission_mode":"default","tool_use_id":"t"}"#,
            None,
        );
        assert_eq!(
            (claude.step, claude.tool_name.as_str()),
            (Step::Pre, "Bash")
        );
        assert_eq!(claude.permission_mode.as_deref(), Some("default"));

        let copilot = parse(
            r#"{"sessionId":"s","timestamp":1,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"git push\"}"}"#,
            Some("preToolUse"),
        );
        assert_eq!(copilot.shape, Shape::CopilotCamel);
        assert_eq!(copilot.tool_input["command"], "git push");
        assert_eq!(copilot.step, Step::Pre);

        let copilot_post = parse(
            r#"{"toolName":"bash","toolArgs":{"command":"ls"},"toolResult":{"resultType":"success","textResultForLlm":"a\nb"}}"#,
            None,
        );
        assert_eq!(copilot_post.step, Step::Post);
        assert_eq!(copilot_post.tool_response.unwrap()["stdout"], "a\nb");

        let gemini = parse(
            r#"{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"pytest"},"tool_response":{"llmContent":"ok","returnDisplay":"ok"}}"#,
            None,
        );
        assert_eq!(gemini.step, Step::Post);
        assert_eq!(gemini.tool_response.unwrap()["stdout"], "ok");

        let cursor = parse(
            r#"{"hook_event_name":"preToolUse","conversation_id":"c","workspace_roots":["/w"],"tool_name":"Shell","tool_input":{"command":"ls"}}"#,
            None,
        );
        assert_eq!(
            (cursor.session_id.as_deref(), cursor.cwd.as_deref()),
            (Some("c"), Some("/w"))
        );

        let batch = parse(
            r#"{"sessionId":"s","toolCalls":[{"name":"bash","args":"{\"command\":\"ls\"}"},{"name":"view","args":{"path":"/a"}}]}"#,
            Some("preToolUse"),
        );
        let calls = batch.calls();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].tool_input["command"], "ls");
        assert_eq!(
            (calls[1].tool_name.as_str(), &calls[1].tool_input["path"]),
            ("view", &json!("/a"))
        );

        let start = parse(
            r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
            None,
        );
        assert_eq!(
            (start.step, start.event_field.as_deref()),
            (Step::Start, Some("startup"))
        );
    }

    #[test]
    fn bad_payloads_are_errors() {
        for bad in ["", "not json", "[1]", "42"] {
            assert!(Payload::parse(bad.as_bytes(), None).is_err(), "{bad}");
        }
    }

    #[test]
    fn scripts_read_the_normalized_name() {
        let payload = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"exec","tool_input":{"command":["git","log"]},"turn_id":"x"}"#,
            None,
        );
        let call = payload.call(Target::Codex);
        let normalized = payload.normalized(&call);
        assert_eq!(normalized["tool_name"], "bash");
        assert_eq!(normalized["harness_tool_name"], "exec");
        assert_eq!(normalized["hook_event_name"], "PreToolUse");
        assert_eq!(normalized["turn_id"], "x");
        assert_eq!(call.programs, vec!["git".to_string()]);
        assert_eq!(normalized["tool_input"]["command"], "git log");
    }
}
