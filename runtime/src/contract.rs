//! The condition script contract (agentihooks): what a script reads on
//! stdin and in its environment. What it answers is read by [`crate::outcome`].

use hookdex_harness::Payload;
use hookdex_model::Target;
use serde_json::Value;

use crate::call::Call;

/// The JSON a script reads on stdin: the payload with the normalized tool
/// name, the command as one string, and Claude's event name.
pub fn stdin(payload: &Payload, call: &Call) -> Value {
    payload.normalized(&call.tool.name, call.command.as_deref())
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
        .map(|(name, value)| (name, value.replace('\0', "")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_bytes_never_reach_the_environment() {
        let payload = Payload::parse(
            Target::Claude,
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s\u0000x","cwd":"/tmp\u0000"}"#,
            None,
        )
        .unwrap();
        let call = Call::of(Target::Claude, &payload);
        let vars = env(Target::Claude, &payload, &call, "pre-bash-x.sh", "runtime");
        assert!(vars.iter().all(|(_, v)| !v.contains('\0')), "{vars:?}");
        let session = vars.iter().find(|(k, _)| k == "AH_SESSION_ID").unwrap();
        assert_eq!(session.1, "sx");
    }
}
