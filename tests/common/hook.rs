//! Helpers for the `hookdex hook --target T` tests (`tests/hook_*.rs`): real harness
//! payloads (the fixtures under `tests/fixtures/payloads/`) on stdin, real condition
//! scripts in a scratch tree, the reply parsed, and the seed's example conditions.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{rule_with, set_executable, Scratch};

// ---------------------------------------------------------------------------------------------
// Running the hook
// ---------------------------------------------------------------------------------------------

pub const TARGETS: [&str; 5] = ["claude", "codex", "copilot", "gemini", "cursor"];

/// `tests/fixtures/payloads/<name>.json` with `@CWD@` replaced by the scratch repository.
pub fn fixture(s: &Scratch, name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/payloads")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()));
    let text = text.replace("@CWD@", &s.repo.display().to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Copilot's camelCase payloads name their event with `--event`.
pub fn event_of(payload: &Value) -> Option<&'static str> {
    payload.get("toolName").map(|_| {
        if payload.get("toolResult").is_some() {
            "postToolUse"
        } else {
            "preToolUse"
        }
    })
}

/// One `hookdex hook` call.
pub struct Hooked {
    /// The reply parsed as JSON, or `Null` when stdout was empty.
    pub reply: Value,
    /// The raw process output.
    #[allow(dead_code)]
    pub out: Output,
    /// Wall time of the call.
    pub elapsed: Duration,
}

/// Runs `hookdex hook --target <target>` with raw bytes on stdin.
pub fn hook_bytes(s: &Scratch, target: &str, event: Option<&str>, stdin: &[u8]) -> Hooked {
    let mut args = vec!["hook", "--target", target];
    if let Some(event) = event {
        args.extend(["--event", event]);
    }
    let started = Instant::now();
    let out = s.run_stdin(&args, stdin);
    let elapsed = started.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "hookdex {args:?} must always exit 0\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let reply = if text.is_empty() {
        Value::Null
    } else {
        assert!(
            text.ends_with('\n') && text.trim_end().lines().count() == 1,
            "a reply is one JSON line: {text:?}"
        );
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {text:?}"));
        assert!(value.is_object(), "reply is not an object: {text}");
        value
    };
    Hooked {
        reply,
        out,
        elapsed,
    }
}

/// Runs the hook for `target` on `payload` and returns the parsed reply.
pub fn hook(s: &Scratch, target: &str, payload: &Value) -> Value {
    hook_timed(s, target, payload).reply
}

pub fn hook_timed(s: &Scratch, target: &str, payload: &Value) -> Hooked {
    hook_bytes(s, target, event_of(payload), payload.to_string().as_bytes())
}

/// Sets the shell command of a pre payload of any harness.
pub fn set_command(payload: &mut Value, command: &str) {
    if let Some(args) = payload.get_mut("toolArgs") {
        match args {
            Value::String(text) => {
                let mut parsed: Value = serde_json::from_str(text).unwrap();
                parsed["command"] = json!(command);
                *text = parsed.to_string();
            }
            other => other["command"] = json!(command),
        }
    } else {
        payload["tool_input"]["command"] = json!(command);
    }
}

/// Sets the tool output of a post payload of any harness.
pub fn set_output(payload: &mut Value, text: &str) {
    if let Some(result) = payload.get_mut("toolResult") {
        result["textResultForLlm"] = json!(text);
    } else if payload.get("tool_output").is_some() {
        payload["tool_output"] = json!(text);
    } else if let Some(Value::String(_)) = payload.get("tool_response") {
        payload["tool_response"] = json!(text);
    } else if let Some(content) = payload["tool_response"].get_mut("llmContent") {
        *content = json!(text);
        payload["tool_response"]["returnDisplay"] = json!(text);
    } else {
        payload["tool_response"]["stdout"] = json!(text);
    }
}

/// `payload` with every `from` in its JSON text replaced by `to`.
pub fn replaced(payload: &Value, from: &str, to: &str) -> Value {
    serde_json::from_str(&payload.to_string().replace(from, to)).unwrap()
}

/// The pre-bash fixture of `target` with `command`.
pub fn pre_bash(s: &Scratch, target: &str, command: &str) -> Value {
    let mut payload = fixture(s, &format!("{target}-pre-bash"));
    set_command(&mut payload, command);
    payload
}

/// The tool input of a pre payload as a harness sent it (Copilot's `toolArgs` parsed).
pub fn input_of(payload: &Value) -> Value {
    match payload.get("toolArgs") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap(),
        Some(other) => other.clone(),
        None => payload["tool_input"].clone(),
    }
}

/// Removes the string at `pointer` and returns it (panics when absent).
pub fn take_str(reply: &mut Value, pointer: &str) -> String {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = if parent.is_empty() {
        &mut *reply
    } else {
        reply
            .pointer_mut(parent)
            .unwrap_or_else(|| panic!("no {parent}"))
    };
    let removed = parent
        .as_object_mut()
        .and_then(|o| o.remove(key))
        .unwrap_or_else(|| panic!("no {pointer} in the reply"));
    removed
        .as_str()
        .unwrap_or_else(|| panic!("{pointer} is not a string: {removed}"))
        .to_string()
}

/// The text the agent sees as context in a reply of any harness (empty when none).
pub fn context_of(reply: &Value) -> String {
    reply
        .pointer("/hookSpecificOutput/additionalContext")
        .or_else(|| reply.get("additionalContext"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Writes a condition script `name` into `dir`.
pub fn condition(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = rule_with(dir, name, body);
    set_executable(&path, true);
    path
}

/// Every line of the hook log, parsed.
pub fn hook_log(s: &Scratch) -> Vec<Value> {
    std::fs::read_to_string(s.home().join("logs/hook.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("log line {l:?}: {e}")))
        .collect()
}

/// Polls `check` every 50 ms for up to `limit`.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sets up a bundle with one profile `profile`; returns (bundle conditions, profile conditions).
pub fn bundle_and_profile(s: &mut Scratch, profile: &str) -> (PathBuf, PathBuf) {
    let bundle = s.bundle("bundle");
    let profile_dir = bundle.join(format!("profiles/{profile}/.claude/conditions"));
    std::fs::create_dir_all(&profile_dir).unwrap();
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    s.set_env("HOOKDEX_PROFILES", profile);
    (bundle.join(".claude/conditions"), profile_dir)
}

/// A condition body that prints `decision` with `reason` as JSON.
pub fn decider(decision: &str, reason: &str) -> String {
    format!("echo '{{\"decision\": \"{decision}\", \"reason\": \"{reason}\"}}'\n")
}

// ---------------------------------------------------------------------------------------------
// The seed's examples, as real scripts (python3 and bash; no jq needed)
// ---------------------------------------------------------------------------------------------

pub const KUBECTL_READONLY: &str = r#"#!/usr/bin/env bash
cmd=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["command"])')
if grep -Eq 'kubectl (edit|patch|apply|delete)' <<<"$cmd"; then
  echo "kubectl writes go through GitOps" >&2
  exit 2
fi
"#;

pub const GIT_SHORT_LOG: &str = r#"import json, sys
payload = json.load(sys.stdin)
command = payload["tool_input"]["command"]
if command.strip() == "git log":
    print(json.dumps({"tool_input": {"command": "git log --oneline -20"}, "decision": "allow"}))
"#;

pub const PYTEST_TRIM: &str = r#"import json, sys
payload = json.load(sys.stdin)
lines = payload["tool_response"].get("stdout", "").splitlines()
if len(lines) > 60:
    kept = "\n".join(lines[:10] + ["[... trimmed ...]"] + lines[-40:])
    print(json.dumps({"tool_output": kept, "context": f"pytest output trimmed from {len(lines)} lines"}))
"#;

/// Appends `<AH_TOOL_NAME> TAB <stdin>` to `$HOME/mcp-audit.log`.
pub const MCP_AUDIT: &str = r#"#!/usr/bin/env bash
payload=$(cat)
printf '%s\t%s\n' "$AH_TOOL_NAME" "$payload" >> "$HOME/mcp-audit.log"
"#;

/// The seed reads `.tool_input.file_path`; this reads the whole input, so Codex's patch
/// text and Copilot's `path` count too.
pub const MIGRATIONS: &str = r#"#!/usr/bin/env bash
python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["tool_input"]))' \
  | grep -q '/migrations/' && echo "Migrations are append-only; add a new file."
exit 0
"#;

pub const MIGRATIONS_NOTE: &str = "Migrations are append-only; add a new file.";

/// A scratch tree with the five examples in the runtime layer.
pub fn examples() -> Scratch {
    let s = Scratch::new();
    let dir = s.runtime();
    condition(&dir, "pre-bash.kubectl-readonly.sh", KUBECTL_READONLY);
    condition(&dir, "pre-bash.git-short_log.py", GIT_SHORT_LOG);
    condition(&dir, "post-bash.pytest-trim.py", PYTEST_TRIM);
    condition(&dir, "post-mcp__github-audit.async.sh", MCP_AUDIT);
    condition(&dir, "pre-edit+write-migrations.sh", MIGRATIONS);
    s
}

/// Whether `jq` runs here: the seeds' hook scripts read their payload with
/// it. Says visibly when a test skips for want of it.
pub fn has_jq() -> bool {
    let found = std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!(
            "SKIPPED: jq is not installed; the seeds' hook scripts read their payload with it"
        );
    }
    found
}

/// The reply of `target` that denies a tool call with `reason`.
pub fn deny_reply(target: &str, reason: &str) -> Value {
    match target {
        "claude" | "codex" => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
        "copilot" => json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
        _ => json!({"decision": "deny", "reason": reason}),
    }
}
