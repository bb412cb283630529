//! The contract of a `HOOK.md` hook (**contract**, SPEC §9): moltis'.
//! stdin is the moltis payload of its event (`event`, `session_key`,
//! `tool_name`, `arguments`, …), as compact JSON; the command runs as
//! `sh -c` in the hook's folder. Exit 1 blocks with stderr as the reason
//! (`hook '<name>' blocked the action` when stderr is empty); exit 0 with
//! stdout `{"action": "modify", "data": {…}}` replaces the tool arguments
//! whole (BeforeToolCall only); any other exit, a crash or the timeout is a
//! failure, which the breaker counts. Requirements that do not hold make
//! the hook ineligible: skipped, not an error.

use hookdex_harness::Payload;
use hookdex_model::{Event, HookSpec, Permission, Requires};
use serde_json::{json, Value};

use crate::exec::{Execution, Finish};
use crate::hooks::claude;
use crate::outcome::Outcome;

/// The moltis payload of `spec`'s event for `payload`; `None` when the
/// hook's event does not apply to this call (a `Command` hook on a prompt
/// that is not a slash command).
pub fn stdin(spec: &HookSpec, payload: &Payload) -> Option<Value> {
    let session = payload.session_id.clone().unwrap_or_default();
    let field = |key: &str| payload.raw.get(key).cloned().unwrap_or(Value::Null);
    let mut value = json!({ "event": spec.source_event, "session_key": session });
    let extra = match spec.source_event.as_str() {
        "BeforeToolCall" => json!({
            "tool_name": payload.tool_name,
            "arguments": payload.tool_input,
        }),
        "AfterToolCall" => json!({
            "tool_name": payload.tool_name,
            "success": payload.event == Event::PostToolUse,
            "result": payload.tool_response.clone().unwrap_or(Value::Null),
        }),
        "MessageReceived" => json!({ "content": field("prompt"), "channel": Value::Null }),
        "Command" => {
            let prompt = field("prompt");
            let command = prompt.as_str()?.trim().strip_prefix('/')?;
            let action = command.split_whitespace().next()?;
            json!({ "action": action, "sender_id": Value::Null })
        }
        "AgentEnd" => json!({ "text": field("last_assistant_message") }),
        "BeforeCompaction" | "AfterCompaction" => json!({ "trigger": field("trigger") }),
        _ => json!({}),
    };
    if let (Value::Object(map), Value::Object(extra)) = (&mut value, extra) {
        map.extend(extra);
    }
    Some(value)
}

/// The first requirement of `requires` that does not hold here, in words;
/// `None` when the hook is eligible. `os` takes Rust's names, with
/// `darwin` read as `macos`; a `bins` entry must be found on `PATH` (or be
/// a path to an executable file); an `env` entry must be set, even empty.
pub fn unmet(
    requires: &Requires,
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<String> {
    let os = std::env::consts::OS;
    if !requires.os.is_empty()
        && !requires
            .os
            .iter()
            .any(|o| o == os || (o == "darwin" && os == "macos"))
    {
        return Some(format!("os {} (this is {os})", requires.os.join(", ")));
    }
    let path = var("PATH").unwrap_or_default();
    for bin in &requires.bins {
        if crate::exec::on_path(bin, &path).is_none() {
            return Some(format!("bin `{bin}` (not on PATH)"));
        }
    }
    for name in &requires.env {
        if var(name).is_none() {
            return Some(format!("env `{name}` (not set)"));
        }
    }
    None
}

/// Reads the run of `HOOK.md` hook `name` at `event`: the outcome, and
/// whether it counts as a failure for the breaker (a block does not).
pub fn interpret(name: &str, event: Event, execution: &Execution, bypass: bool) -> (Outcome, bool) {
    match &execution.finish {
        Finish::Exited(1) => {
            // moltis tests emptiness before trimming.
            let reason = match execution.stderr.is_empty() {
                true => format!("hook '{name}' blocked the action"),
                false => String::from_utf8_lossy(&execution.stderr)
                    .trim()
                    .to_string(),
            };
            let outcome = match event.step().decides_permission() {
                true => Outcome {
                    decision: Some(Permission::Deny),
                    reason: Some(reason),
                    ..Outcome::default()
                },
                false => Outcome {
                    block: Some(reason),
                    ..Outcome::default()
                },
            };
            (outcome, false)
        }
        Finish::Exited(0) => (from_stdout(event, &execution.stdout, bypass), false),
        Finish::Exited(code) => {
            let mut outcome = crate::outcome::interpret(event.step(), execution);
            if outcome.failure.is_none() {
                outcome = Outcome {
                    failure: Some(format!("exit {code}")),
                    ..Outcome::default()
                };
            }
            (outcome, true)
        }
        _ => (crate::outcome::interpret(event.step(), execution), true),
    }
}

fn from_stdout(event: Event, stdout: &[u8], bypass: bool) -> Outcome {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
        return Outcome::default();
    };
    let data = object.get("data").filter(|d| !d.is_null());
    let (Some("modify"), Some(data)) = (object.get("action").and_then(Value::as_str), data) else {
        return Outcome::default();
    };
    let mut outcome = Outcome::default();
    match claude::replacement(event, data) {
        Ok(input) => claude::offer(&mut outcome, input, bypass),
        Err(why) => outcome.ignored.push(why.message("modify")),
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(finish: Finish, stdout: &str, stderr: &str) -> Execution {
        Execution {
            finish,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn block_modify_and_failures() {
        let pre = Event::PreToolUse;
        let (blocked, failed) = interpret(
            "g",
            pre,
            &run(Finish::Exited(1), "", "Blocked dangerous rm command\n"),
            false,
        );
        assert_eq!(
            blocked.reason.as_deref(),
            Some("Blocked dangerous rm command")
        );
        assert!(!failed);
        let (silent, _) = interpret("g", pre, &run(Finish::Exited(1), "", ""), false);
        assert_eq!(
            silent.reason.as_deref(),
            Some("hook 'g' blocked the action")
        );
        let modify = r#"{"action":"modify","data":{"command":"set -e; ls"}}"#;
        let (modified, _) = interpret("g", pre, &run(Finish::Exited(0), modify, ""), true);
        assert_eq!(modified.replacement, Some(json!({"command": "set -e; ls"})));
        for quiet in [
            "",
            "log line",
            r#"{"action":"Modify","data":{}}"#,
            r#"{"action":"modify","data":null}"#,
        ] {
            assert_eq!(
                interpret("g", pre, &run(Finish::Exited(0), quiet, ""), false).0,
                Outcome::default()
            );
        }
        assert!(interpret("g", pre, &run(Finish::Exited(2), "", "x"), false).1);
        assert!(interpret("g", pre, &run(Finish::TimedOut, "", ""), false).1);
    }

    #[test]
    fn requirements() {
        let none = |_: &str| None;
        let set = |name: &str| (name == "LOG_FILE").then(|| std::ffi::OsString::from(""));
        let os = |os: &[&str]| Requires {
            os: os.iter().map(|s| s.to_string()).collect(),
            ..Requires::default()
        };
        assert_eq!(unmet(&os(&["darwin", "linux"]), &none), None);
        assert!(unmet(&os(&["windows"]), &none)
            .unwrap()
            .starts_with("os windows"));
        let env = Requires {
            env: vec!["LOG_FILE".into()],
            ..Requires::default()
        };
        assert_eq!(unmet(&env, &set), None);
        assert_eq!(
            unmet(&env, &none).as_deref(),
            Some("env `LOG_FILE` (not set)")
        );
        let bins = Requires {
            bins: vec!["/bin/sh".into(), "no-such-bin-hookdex".into()],
            ..Requires::default()
        };
        let path = |name: &str| (name == "PATH").then(|| std::ffi::OsString::from("/usr/bin:/bin"));
        assert_eq!(
            unmet(&bins, &path).as_deref(),
            Some("bin `no-such-bin-hookdex` (not on PATH)")
        );
    }
}
