//! Reading what a harness sends a hook: each harness's spelling (Claude and
//! Codex snake_case, Copilot camelCase with `toolArgs` as a string or an
//! object, Gemini `BeforeTool`/`AfterTool`, Cursor `preToolUse`) into one
//! [`Payload`]. What condition scripts read is the engine's script contract.

use std::sync::Arc;

use hookdex_model::{Event, Step, Target};
use serde_json::{json, Value};

use crate::event_of;

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
    /// The event, from `--event`, the event name, or the presence of a result.
    pub event: Event,
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
    /// The payload as received, shared by the calls of a batch, less a
    /// `tool_input` key: that is moved into [`Payload::tool_input`] (it may
    /// be megabytes, and is read from there).
    pub raw: Arc<Value>,
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
fn object_or_parsed(value: Option<Value>) -> Value {
    match value {
        Some(Value::String(s)) => serde_json::from_str(&s).unwrap_or_else(|_| json!({"raw": s})),
        Some(v) => v,
        None => json!({}),
    }
}

impl Payload {
    /// Parses a payload a harness of `target` sent; `event` is `--event`
    /// when the harness passed one.
    ///
    /// # Errors
    ///
    /// When the bytes are not a JSON object.
    pub fn parse(
        target: Target,
        bytes: &[u8],
        event: Option<&str>,
    ) -> Result<Payload, PayloadError> {
        let mut raw: Value = match serde_json::from_slice(bytes) {
            Ok(raw) => raw,
            Err(err) => crate::lenient::repair(bytes)
                .and_then(|repaired| serde_json::from_slice(&repaired).ok())
                .ok_or(PayloadError::NotJson(err))?,
        };
        if !raw.is_object() {
            return Err(PayloadError::NotAnObject);
        }
        // Only Copilot spells payloads this way; elsewhere these keys are
        // just keys, and must not turn a call into a batch of others.
        // `sessionId` too: its lifecycle payloads (agentStop, sessionStart)
        // carry no tool.
        let camel = target == Target::Copilot
            && ["toolName", "toolArgs", "toolCalls", "sessionId"]
                .iter()
                .any(|k| raw.get(*k).is_some());
        let mut batch: Vec<(String, Value)> = raw
            .get("toolCalls")
            .filter(|_| camel)
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| {
                        let args = c.get("args").or_else(|| c.get("toolArgs"));
                        (
                            string(c, &["name", "toolName"]).unwrap_or_default(),
                            object_or_parsed(args.cloned()),
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
                object_or_parsed(raw.get("toolArgs").cloned()),
                raw.get("toolResult").map(|r| {
                    json!({
                        "stdout": r.get("textResultForLlm").cloned().unwrap_or(Value::Null),
                        "result_type": r.get("resultType").cloned().unwrap_or(Value::Null),
                    })
                }),
            ),
            // The input moves out of `raw` (it may be megabytes): every
            // reader of the call takes it from `tool_input`.
            Shape::Snake => (
                string(&raw, &["tool_name"]).unwrap_or_default(),
                object_or_parsed(
                    raw.as_object_mut()
                        .and_then(|o| o.shift_remove("tool_input")),
                ),
                response_of(&raw),
            ),
        };
        let named = event
            .map(String::from)
            .or_else(|| string(&raw, &["hook_event_name", "hookEventName"]));
        // Inferred only when nothing names the event (SPEC §10); a name no
        // table knows never runs another event's rules.
        let event = match named.as_deref() {
            Some(name) => {
                event_of(target, name).ok_or_else(|| PayloadError::UnknownEvent(name.into()))?
            }
            None if tool_response.is_some() => Event::PostToolUse,
            // No name and no tool (a Copilot agentStop run without
            // `--event`): no tool call to judge, and no event to guess.
            None if tool_name.is_empty() && batch.is_empty() => {
                return Err(PayloadError::UnknownEvent("(unnamed, with no tool)".into()))
            }
            None => Event::PreToolUse,
        };
        let event_field = event
            .matched_field()
            .and_then(|field| string(&raw, &[field]));
        Ok(Payload {
            shape,
            event,
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
            raw: Arc::new(raw),
        })
    }

    /// Every call of the payload: itself, then one per further batched call.
    /// The first call takes this payload's input, which is left `null` here
    /// (it may be megabytes): read it from the first call from then on.
    pub fn take_calls(&mut self) -> Vec<Payload> {
        let first_input = std::mem::take(&mut self.tool_input);
        let single = Payload {
            batch: Vec::new(),
            ..self.clone()
        };
        let mut calls = Vec::with_capacity(1 + self.batch.len());
        calls.push(Payload {
            tool_input: first_input,
            ..single.clone()
        });
        calls.extend(self.batch.iter().map(|(name, input)| Payload {
            tool_name: name.clone(),
            tool_input: input.clone(),
            ..single.clone()
        }));
        calls
    }

    /// The step whose rules answer this payload.
    pub fn step(&self) -> Step {
        self.event.step()
    }

    /// The text a tool's result shows the model, as output filters read it:
    /// its `stdout`, then its `stderr` on the next line when there is one
    /// (a shell's output, in every harness's spelling); `None` when the
    /// result carries no text.
    pub fn output_text(&self) -> Option<String> {
        let response = self.tool_response.as_ref()?;
        let text = |key: &str| {
            response
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        };
        match (text("stdout"), text("stderr")) {
            (Some(out), Some(err)) if out.ends_with('\n') => Some(format!("{out}{err}")),
            (Some(out), Some(err)) => Some(format!("{out}\n{err}")),
            (Some(one), None) | (None, Some(one)) => Some(one.to_string()),
            (None, None) => response.as_str().map(String::from),
        }
    }

    /// What the matcher of this payload's rules is compared with: the tool
    /// name as the harness sent it, or, for an event step, its matched
    /// field (lowercased).
    pub fn matched_name(&self) -> String {
        if self.event.is_tool_event() {
            self.tool_name.clone()
        } else {
            self.event_field
                .as_deref()
                .unwrap_or_default()
                .to_ascii_lowercase()
        }
    }
}

/// Why a payload was ignored.
#[derive(Debug)]
pub enum PayloadError {
    /// The bytes are not JSON.
    NotJson(serde_json::Error),
    /// The JSON is not an object.
    NotAnObject,
    /// The payload names an event hookdex does not answer (Gemini's
    /// `BeforeModel`, Codex's `StopFailure`): not broken, not ours.
    UnknownEvent(String),
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadError::NotJson(err) => write!(f, "payload is not JSON: {err}"),
            PayloadError::NotAnObject => write!(f, "payload is not a JSON object"),
            PayloadError::UnknownEvent(name) => write!(f, "unknown event {name}"),
        }
    }
}

impl std::error::Error for PayloadError {}

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
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_input_moves_out_of_the_payload_as_received() {
        let p = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/r"}"#,
            None,
        );
        assert_eq!(p.tool_input, json!({"command": "ls"}));
        assert!(p.raw.get("tool_input").is_none());
        assert_eq!(p.raw["cwd"], "/r");
        let p = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"x","tool_input":"{\"a\":1}"}"#,
            None,
        );
        assert_eq!(p.tool_input, json!({"a": 1}));
    }

    /// A test payload, as Copilot sent it when it has Copilot's camelCase
    /// keys (only Copilot sends that shape), else as Claude did.
    pub(crate) fn parse(text: &str, event: Option<&str>) -> Payload {
        let camel = ["\"toolName\"", "\"toolArgs\"", "\"toolCalls\""]
            .iter()
            .any(|k| text.contains(k));
        let target = if camel {
            Target::Copilot
        } else {
            Target::Claude
        };
        Payload::parse(target, text.as_bytes(), event).unwrap()
    }

    #[test]
    fn each_spelling_parses() {
        let claude = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s","cwd":"/r","permission_mode":"default","tool_use_id":"t"}"#,
            None,
        );
        assert_eq!(
            (claude.step(), claude.tool_name.as_str()),
            (Step::Pre, "Bash")
        );
        assert_eq!(claude.permission_mode.as_deref(), Some("default"));

        let copilot = parse(
            r#"{"sessionId":"s","timestamp":1,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"git push\"}"}"#,
            Some("preToolUse"),
        );
        assert_eq!(copilot.shape, Shape::CopilotCamel);
        assert_eq!(copilot.tool_input["command"], "git push");
        assert_eq!(copilot.step(), Step::Pre);

        let copilot_post = parse(
            r#"{"toolName":"bash","toolArgs":{"command":"ls"},"toolResult":{"resultType":"success","textResultForLlm":"a\nb"}}"#,
            None,
        );
        assert_eq!(copilot_post.step(), Step::Post);
        assert_eq!(copilot_post.tool_response.unwrap()["stdout"], "a\nb");

        let gemini = parse(
            r#"{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"pytest"},"tool_response":{"llmContent":"ok","returnDisplay":"ok"}}"#,
            None,
        );
        assert_eq!(gemini.step(), Step::Post);
        assert_eq!(gemini.tool_response.unwrap()["stdout"], "ok");

        let cursor = parse(
            r#"{"hook_event_name":"preToolUse","conversation_id":"c","workspace_roots":["/w"],"tool_name":"Shell","tool_input":{"command":"ls"}}"#,
            None,
        );
        assert_eq!(
            (cursor.session_id.as_deref(), cursor.cwd.as_deref()),
            (Some("c"), Some("/w"))
        );

        let mut batch = parse(
            r#"{"sessionId":"s","toolCalls":[{"name":"bash","args":"{\"command\":\"ls\"}"},{"name":"view","args":{"path":"/a"}}]}"#,
            Some("preToolUse"),
        );
        let calls = batch.take_calls();
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
            (start.step(), start.event_field.as_deref()),
            (Step::Start, Some("startup"))
        );
    }

    #[test]
    fn only_copilot_batches_and_stray_characters_cost_nothing() {
        // Another harness's payload with a `toolCalls` key is one call.
        let claude = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"kubectl delete x"},"toolCalls":[{"name":"view","args":{}}]}"#;
        let mut p = Payload::parse(Target::Claude, claude, None).unwrap();
        let calls = p.take_calls();
        assert_eq!((p.shape, calls.len()), (Shape::Snake, 1));
        assert_eq!(calls[0].tool_input["command"], "kubectl delete x");
        assert!(p.tool_input.is_null(), "the first call took the input");
        // A lone surrogate or a huge number elsewhere does not hide the command.
        let odd = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"kubectl delete x","description":"\ud800","timeout":1e400}}"#;
        let p = Payload::parse(Target::Claude, odd, None).unwrap();
        assert_eq!(p.tool_input["command"], "kubectl delete x");
    }

    #[test]
    fn bad_payloads_are_errors() {
        for bad in ["", "not json", "[1]", "42"] {
            assert!(
                Payload::parse(Target::Claude, bad.as_bytes(), None).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn each_harness_names_its_events() {
        let cases = [
            (Target::Gemini, "BeforeTool", Event::PreToolUse),
            (Target::Gemini, "PreCompress", Event::PreCompact),
            (
                Target::Copilot,
                "userPromptSubmitted",
                Event::UserPromptSubmit,
            ),
            (
                Target::Cursor,
                "beforeSubmitPrompt",
                Event::UserPromptSubmit,
            ),
            (Target::Cursor, "stop", Event::Stop),
            (
                Target::Codex,
                "PostToolUseFailure",
                Event::PostToolUseFailure,
            ),
            (Target::Claude, "agentStop", Event::Stop),
        ];
        for (target, name, want) in cases {
            assert_eq!(event_of(target, name), Some(want), "{target} {name}");
        }
        // Step tokens and other cases are no harness's names.
        for name in ["Whenever", "post", "STOP", "pretooluse"] {
            assert_eq!(event_of(Target::Claude, name), None, "{name}");
        }
    }
}
