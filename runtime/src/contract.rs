//! The condition script contract (agentihooks): what a script reads on
//! stdin and in its environment. What it answers is read by [`crate::outcome`].

use hookdex_harness::Payload;
use hookdex_model::Target;
use serde_json::{json, Map, Value};

use crate::call::Call;

/// What a condition script reads on stdin: the payload in the agentihooks
/// shape, with the call's normalized tool name (`harness_tool_name` keeps
/// the harness's spelling), its shell command as one string when there is
/// one, and `hook_event_name` in Claude's spelling.
pub fn stdin(payload: &Payload, call: &Call) -> Value {
    let (tool, command) = (&call.tool.name, call.command.as_deref());
    let mut out = Map::new();
    out.insert("tool_name".into(), json!(tool.as_str()));
    out.insert("harness_tool_name".into(), json!(payload.tool_name));
    let mut input = payload.tool_input.clone();
    // A list command (Codex's exec form) reaches scripts as one string.
    if let (Some(command), Some(object)) = (command, input.as_object_mut()) {
        if object.get("command").is_some_and(Value::is_array) {
            object.insert("command".into(), json!(command));
        }
    }
    out.insert("tool_input".into(), input);
    if let Some(response) = &payload.tool_response {
        // A bare string result (Codex's shell) reaches scripts as `stdout`.
        let response = match response {
            Value::String(text) => json!({ "stdout": text }),
            other => other.clone(),
        };
        out.insert("tool_response".into(), response);
    }
    let optional = [
        ("tool_use_id", &payload.tool_use_id),
        ("session_id", &payload.session_id),
        ("cwd", &payload.cwd),
        ("transcript_path", &payload.transcript_path),
        ("permission_mode", &payload.permission_mode),
    ];
    for (key, value) in optional {
        out.insert(
            key.into(),
            value.as_deref().map_or(Value::Null, |v| json!(v)),
        );
    }
    if command.is_some() && tool.is_bash() {
        out.insert("shell".into(), shell(call));
    }
    out.insert("hook_event_name".into(), json!(payload.event.as_str()));
    // Event payloads carry their own fields (prompt, source, stop_hook_active, …).
    // A batch's other calls are not this call's: each script sees its own.
    if let Value::Object(raw) = &*payload.raw {
        for (key, value) in raw.iter().filter(|(k, _)| k.as_str() != "toolCalls") {
            out.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    // Claude's name for "this stop follows a blocked one", from Cursor's
    // count of the loops so far where the harness does not send it.
    if payload.event == hookdex_model::Event::Stop && !out.contains_key("stop_hook_active") {
        if let Some(loops) = out.get("loop_count").and_then(Value::as_u64) {
            out.insert("stop_hook_active".into(), json!(loops > 0));
        }
    }
    Value::Object(out)
}

/// What the splitter read of a shell command: each simple command with its
/// words (`commands`: `program`, `args`, `unknown` — the indices of the args
/// whose words the text cannot tell — and `more` — whether words the text
/// does not show may follow), and the programs it may run that its text
/// cannot name (`dynamic`: `reason`, `text`). A rule that allows some uses of
/// a program reads its arguments here, past wrappers, runners and quoting.
fn shell(call: &Call) -> Value {
    let commands: Vec<Value> = call
        .commands
        .iter()
        .map(|c| {
            json!({
                "program": c.program,
                "args": c.args,
                "unknown": c.unknown,
                "more": c.more,
            })
        })
        .collect();
    let dynamic: Vec<Value> = call
        .dynamic
        .iter()
        .map(|d| json!({ "reason": d.reason.as_str(), "text": d.text }))
        .collect();
    json!({ "commands": commands, "dynamic": dynamic })
}

/// The `AH_*` variables a script gets on top of the inherited environment:
/// `condition` is its file name, `source` its layer's label. A NUL byte
/// cannot be in an environment value, and one in a payload field must not
/// stop every condition from starting (a guard skipped), so it is dropped.
pub fn env(
    target: Target,
    payload: &Payload,
    call: &Call,
    condition: &str,
    source: &str,
) -> Vec<(String, String)> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let vars: Vec<(String, String)> = vec![
        ("AH_STEP".into(), payload.step().as_str().into()),
        ("AH_EVENT".into(), payload.event.as_str().into()),
        ("AH_TOOL_NAME".into(), call.tool.name.to_string()),
        ("AH_TOOL_USE_ID".into(), opt(&payload.tool_use_id)),
        ("AH_SESSION_ID".into(), opt(&payload.session_id)),
        ("AH_CWD".into(), opt(&payload.cwd)),
        ("AH_TRANSCRIPT_PATH".into(), opt(&payload.transcript_path)),
        ("AH_PERMISSION_MODE".into(), opt(&payload.permission_mode)),
        ("AH_TARGET".into(), target.as_str().into()),
        ("AH_CONDITION".into(), condition.into()),
        ("AH_CONDITION_SOURCE".into(), source.into()),
    ];
    vars.into_iter()
        .map(|(name, value)| match value.contains('\0') {
            true => (name, value.replace('\0', "")),
            false => (name, value),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookdex_harness::McpScope;

    fn no_settings() -> McpScope<'static> {
        McpScope {
            cwd: std::path::Path::new("/"),
            var: &|_| None,
            project_trusted: &|| false,
        }
    }

    #[test]
    fn a_cursor_stop_says_whether_it_follows_a_blocked_one() {
        for (loops, active) in [(0, false), (2, true)] {
            let text = format!(
                r#"{{"hook_event_name":"stop","status":"completed","loop_count":{loops}}}"#
            );
            let payload = Payload::parse(Target::Cursor, text.as_bytes(), None).unwrap();
            let call = Call::of(Target::Cursor, &payload, &no_settings());
            assert_eq!(stdin(&payload, &call)["stop_hook_active"], active);
        }
    }

    #[test]
    fn scripts_read_the_normalized_name() {
        let payload = Payload::parse(
            Target::Codex,
            br#"{"hook_event_name":"PreToolUse","tool_name":"exec","tool_input":{"command":["git","log"]},"turn_id":"x"}"#,
            None,
        )
        .unwrap();
        let call = Call::of(Target::Codex, &payload, &no_settings());
        assert_eq!(call.programs, vec!["git".to_string()]);
        let normalized = stdin(&payload, &call);
        assert_eq!(normalized["tool_name"], "bash");
        assert_eq!(normalized["harness_tool_name"], "exec");
        assert_eq!(normalized["hook_event_name"], "PreToolUse");
        assert_eq!(normalized["turn_id"], "x");
        assert_eq!(normalized["tool_input"]["command"], "git log");
        assert_eq!(
            normalized["shell"],
            serde_json::json!({
                "commands": [{ "program": "git", "args": ["log"], "unknown": [], "more": false }],
                "dynamic": [],
            })
        );
    }

    #[test]
    fn only_shell_calls_carry_what_the_splitter_read() {
        let parse = |bytes: &[u8]| Payload::parse(Target::Claude, bytes, None).unwrap();
        let bash = parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sudo kubectl get x; $tool y; echo a | xargs kubectl -n $ns"}}"#,
        );
        let call = Call::of(Target::Claude, &bash, &no_settings());
        let shell = &stdin(&bash, &call)["shell"];
        assert_eq!(shell["commands"][0]["program"], "kubectl");
        assert_eq!(
            shell["commands"][0]["args"],
            serde_json::json!(["get", "x"])
        );
        assert_eq!(shell["commands"][0]["more"], false);
        assert_eq!(shell["dynamic"][0]["reason"], "expansion");
        // Under xargs more words follow; `$ns` may be any number of words.
        let last = &shell["commands"][3];
        assert_eq!(
            (&last["program"], &last["unknown"], &last["more"]),
            (&json!("kubectl"), &json!([1]), &json!(true))
        );
        let write = parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"command":"kubectl delete x"}}"#,
        );
        let call = Call::of(Target::Claude, &write, &no_settings());
        assert!(stdin(&write, &call).get("shell").is_none());
    }

    #[test]
    fn nul_bytes_never_reach_the_environment() {
        let payload = Payload::parse(
            Target::Claude,
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s\u0000x","cwd":"/tmp\u0000"}"#,
            None,
        )
        .unwrap();
        let call = Call::of(Target::Claude, &payload, &no_settings());
        let vars = env(Target::Claude, &payload, &call, "pre-bash-x.sh", "runtime");
        assert!(vars.iter().all(|(_, v)| !v.contains('\0')), "{vars:?}");
        let session = vars.iter().find(|(k, _)| k == "AH_SESSION_ID").unwrap();
        assert_eq!(session.1, "sx");
    }
}
