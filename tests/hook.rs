//! End-to-end tests of `hookdex hook --target T`: real harness payloads (the
//! fixtures under `tests/fixtures/payloads/`) on stdin, real condition scripts
//! in a scratch tree, and the exact reply each harness gets.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const TARGETS: [&str; 5] = ["claude", "codex", "copilot", "gemini", "cursor"];

/// `tests/fixtures/payloads/<name>.json` with `@CWD@` replaced by the scratch repository.
fn fixture(s: &Scratch, name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/payloads")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()));
    let text = text.replace("@CWD@", &s.repo.display().to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Copilot's camelCase payloads name their event with `--event`.
fn event_of(payload: &Value) -> Option<&'static str> {
    payload.get("toolName").map(|_| {
        if payload.get("toolResult").is_some() {
            "postToolUse"
        } else {
            "preToolUse"
        }
    })
}

/// One `hookdex hook` call.
struct Hooked {
    /// The reply parsed as JSON, or `Null` when stdout was empty.
    reply: Value,
    /// The raw process output.
    #[allow(dead_code)]
    out: Output,
    /// Wall time of the call.
    elapsed: Duration,
}

/// Runs `hookdex hook --target <target>` with raw bytes on stdin.
fn hook_bytes(s: &Scratch, target: &str, event: Option<&str>, stdin: &[u8]) -> Hooked {
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
fn hook(s: &Scratch, target: &str, payload: &Value) -> Value {
    hook_timed(s, target, payload).reply
}

fn hook_timed(s: &Scratch, target: &str, payload: &Value) -> Hooked {
    hook_bytes(s, target, event_of(payload), payload.to_string().as_bytes())
}

/// Sets the shell command of a pre payload of any harness.
fn set_command(payload: &mut Value, command: &str) {
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
fn set_output(payload: &mut Value, text: &str) {
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
fn replaced(payload: &Value, from: &str, to: &str) -> Value {
    serde_json::from_str(&payload.to_string().replace(from, to)).unwrap()
}

/// The pre-bash fixture of `target` with `command`.
fn pre_bash(s: &Scratch, target: &str, command: &str) -> Value {
    let mut payload = fixture(s, &format!("{target}-pre-bash"));
    set_command(&mut payload, command);
    payload
}

/// The tool input of a pre payload as a harness sent it (Copilot's `toolArgs` parsed).
fn input_of(payload: &Value) -> Value {
    match payload.get("toolArgs") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap(),
        Some(other) => other.clone(),
        None => payload["tool_input"].clone(),
    }
}

/// Removes the string at `pointer` and returns it (panics when absent).
fn take_str(reply: &mut Value, pointer: &str) -> String {
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
fn context_of(reply: &Value) -> String {
    reply
        .pointer("/hookSpecificOutput/additionalContext")
        .or_else(|| reply.get("additionalContext"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Writes a condition script `name` into `dir`.
fn condition(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = rule_with(dir, name, body);
    set_executable(&path, true);
    path
}

/// Every line of the hook log, parsed.
fn hook_log(s: &Scratch) -> Vec<Value> {
    std::fs::read_to_string(s.home().join("logs/hook.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("log line {l:?}: {e}")))
        .collect()
}

/// Polls `check` every 50 ms for up to `limit`.
fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
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
fn bundle_and_profile(s: &mut Scratch, profile: &str) -> (PathBuf, PathBuf) {
    let bundle = s.bundle("bundle");
    let profile_dir = bundle.join(format!("profiles/{profile}/.claude/conditions"));
    std::fs::create_dir_all(&profile_dir).unwrap();
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    s.set_env("HOOKDEX_PROFILES", profile);
    (bundle.join(".claude/conditions"), profile_dir)
}

// ---------------------------------------------------------------------------------------------
// The seed's examples, as real scripts (python3 and bash; no jq needed)
// ---------------------------------------------------------------------------------------------

const KUBECTL_READONLY: &str = r#"#!/usr/bin/env bash
cmd=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["command"])')
if grep -Eq 'kubectl (edit|patch|apply|delete)' <<<"$cmd"; then
  echo "kubectl writes go through GitOps" >&2
  exit 2
fi
"#;

const GIT_SHORT_LOG: &str = r#"import json, sys
payload = json.load(sys.stdin)
command = payload["tool_input"]["command"]
if command.strip() == "git log":
    print(json.dumps({"tool_input": {"command": "git log --oneline -20"}, "decision": "allow"}))
"#;

const PYTEST_TRIM: &str = r#"import json, sys
payload = json.load(sys.stdin)
lines = payload["tool_response"].get("stdout", "").splitlines()
if len(lines) > 60:
    kept = "\n".join(lines[:10] + ["[... trimmed ...]"] + lines[-40:])
    print(json.dumps({"tool_output": kept, "context": f"pytest output trimmed from {len(lines)} lines"}))
"#;

/// Appends `<AH_TOOL_NAME> TAB <stdin>` to `$HOME/mcp-audit.log`.
const MCP_AUDIT: &str = r#"#!/usr/bin/env bash
payload=$(cat)
printf '%s\t%s\n' "$AH_TOOL_NAME" "$payload" >> "$HOME/mcp-audit.log"
"#;

/// The seed reads `.tool_input.file_path`; this reads the whole input, so Codex's patch
/// text and Copilot's `path` count too.
const MIGRATIONS: &str = r#"#!/usr/bin/env bash
python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["tool_input"]))' \
  | grep -q '/migrations/' && echo "Migrations are append-only; add a new file."
exit 0
"#;

const MIGRATIONS_NOTE: &str = "Migrations are append-only; add a new file.";

/// A scratch tree with the five examples in the runtime layer.
fn examples() -> Scratch {
    let s = Scratch::new();
    let dir = s.runtime();
    condition(&dir, "pre-bash.kubectl-readonly.sh", KUBECTL_READONLY);
    condition(&dir, "pre-bash.git-short_log.py", GIT_SHORT_LOG);
    condition(&dir, "post-bash.pytest-trim.py", PYTEST_TRIM);
    condition(&dir, "post-mcp__github-audit.async.sh", MCP_AUDIT);
    condition(&dir, "pre-edit+write-migrations.sh", MIGRATIONS);
    s
}

#[test]
fn fixtures_exist_for_every_target_and_parse() {
    let s = Scratch::new();
    for target in TARGETS {
        for kind in ["pre-bash", "post-bash"] {
            let payload = fixture(&s, &format!("{target}-{kind}"));
            assert!(payload.is_object(), "{target}-{kind}");
            let text = payload.to_string();
            assert!(!text.contains("@CWD@"), "{target}-{kind}: placeholder left");
            assert!(
                text.contains(&s.repo.display().to_string()),
                "{target}-{kind} names the scratch repository"
            );
        }
    }
}

#[test]
fn kubectl_guard_denies_writes_on_every_harness() {
    let s = examples();
    let reason = "kubectl writes go through GitOps";
    for target in TARGETS {
        let reply = hook(
            &s,
            target,
            &pre_bash(&s, target, "kubectl delete pod web-0"),
        );
        let want = match target {
            "claude" | "codex" => json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }}),
            "copilot" => json!({"permissionDecision": "deny", "permissionDecisionReason": reason}),
            _ => json!({"decision": "deny", "reason": reason}),
        };
        assert_eq!(reply, want, "{target}");
    }
}

#[test]
fn kubectl_guard_lets_reads_and_wrapped_writes_are_still_caught() {
    let s = examples();
    for target in TARGETS {
        let reply = hook(&s, target, &pre_bash(&s, target, "kubectl get pods -n web"));
        assert_eq!(reply, Value::Null, "{target}: a read passes silently");
    }
    // The matcher sees kubectl behind sudo and inside `bash -c`, and the script decides.
    for command in [
        "cd deploy && sudo kubectl apply -f web.yaml",
        "bash -c 'kubectl patch deploy web -p {}'",
    ] {
        let reply = hook(&s, "claude", &pre_bash(&s, "claude", command));
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"], "deny",
            "{command}: {reply}"
        );
    }
}

#[test]
fn git_short_log_rewrites_and_allows_on_every_harness() {
    let s = examples();
    for target in TARGETS {
        let payload = pre_bash(&s, target, "git log");
        let mut full = input_of(&payload);
        full["command"] = json!("git log --oneline -20");
        let mut reply = hook(&s, target, &payload);
        let reason_at = match target {
            "claude" | "codex" => "/hookSpecificOutput/permissionDecisionReason",
            "copilot" => "/permissionDecisionReason",
            _ => "/reason",
        };
        let reason = take_str(&mut reply, reason_at);
        assert!(
            reason.contains("pre-bash.git-short_log.py"),
            "{target}: the reason names the rule: {reason}"
        );
        let want = match target {
            "claude" | "codex" => json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": full,
            }}),
            "copilot" => json!({"permissionDecision": "allow", "modifiedArgs": full}),
            "gemini" => json!({"decision": "allow", "hookSpecificOutput": {"tool_input": full}}),
            _ => json!({"decision": "allow", "updated_input": full}),
        };
        assert_eq!(reply, want, "{target}");
        // Any other git command is left alone.
        let reply = hook(&s, target, &pre_bash(&s, target, "git log -p"));
        assert_eq!(reply, Value::Null, "{target}: git log -p");
    }
}

fn pytest_lines(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| format!("tests/test_mod.py::test_case_{i} PASSED"))
        .collect()
}

fn trimmed(lines: &[String]) -> String {
    let mut kept: Vec<String> = lines[..10].to_vec();
    kept.push("[... trimmed ...]".into());
    kept.extend_from_slice(&lines[lines.len() - 40..]);
    kept.join("\n")
}

fn pytest_trim_on(target: &str) {
    let s = examples();
    let lines = pytest_lines(100);
    let kept = trimmed(&lines);
    let note = "pytest output trimmed from 100 lines";
    let mut payload = fixture(&s, &format!("{target}-post-bash"));
    set_output(&mut payload, &lines.join("\n"));
    let reply = hook(&s, target, &payload);
    let want = match target {
        // A string for Bash keeps the response's shape: stdout replaced, stderr cleared.
        "claude" => json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {"stdout": kept, "stderr": "", "interrupted": false, "isImage": false},
            "additionalContext": note,
        }}),
        // Codex's Bash result is a plain string; the replacement is one too.
        "codex" => json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": kept,
            "additionalContext": note,
        }}),
        "copilot" => json!({
            "modifiedResult": {"resultType": "success", "textResultForLlm": kept},
            "additionalContext": note,
        }),
        // Gemini cannot replace a result: the output goes, the context stays.
        "gemini" => json!({"hookSpecificOutput": {"additionalContext": note}}),
        // Cursor's postToolUse only replaces MCP output and has no context channel.
        _ => Value::Null,
    };
    assert_eq!(reply, want, "{target}");

    // Short output: nothing to say.
    let mut short = fixture(&s, &format!("{target}-post-bash"));
    set_output(&mut short, &pytest_lines(5).join("\n"));
    assert_eq!(
        hook(&s, target, &short),
        Value::Null,
        "{target}: short output"
    );
}

#[test]
fn pytest_trim_on_claude() {
    pytest_trim_on("claude");
}

#[test]
fn pytest_trim_on_codex() {
    pytest_trim_on("codex");
}

#[test]
fn pytest_trim_on_copilot() {
    pytest_trim_on("copilot");
}

#[test]
fn pytest_trim_on_gemini() {
    pytest_trim_on("gemini");
}

#[test]
fn pytest_trim_on_cursor() {
    pytest_trim_on("cursor");
}

/// The note of the last hook log line for `target`.
fn last_notes(s: &Scratch, target: &str) -> String {
    let log = hook_log(s);
    log.iter()
        .rev()
        .find(|e| e["target"] == target)
        .unwrap_or_else(|| panic!("{target}: no hook log line: {log:?}"))["notes"]
        .to_string()
}

#[test]
fn degradations_are_noted_in_the_hook_log() {
    let s = examples();
    condition(
        &s.runtime(),
        "pre-bash.make-confirm.sh",
        &decider("ask", "sure?"),
    );
    condition(
        &s.runtime(),
        "post-bash.make-red.sh",
        "echo 'build broke' >&2\nexit 2\n",
    );
    // Gemini and Cursor: no pre context.
    for (target, name) in [
        ("gemini", "gemini-pre-edit"),
        ("cursor", "cursor-pre-write"),
    ] {
        assert_eq!(hook(&s, target, &fixture(&s, name)), Value::Null);
        let notes = last_notes(&s, target);
        assert!(
            notes.contains(MIGRATIONS_NOTE),
            "{target}: dropped context not logged: {notes}"
        );
    }
    // Gemini and Cursor: no output replacement.
    let lines = pytest_lines(80).join("\n");
    for target in ["gemini", "cursor"] {
        let mut payload = fixture(&s, &format!("{target}-post-bash"));
        set_output(&mut payload, &lines);
        hook(&s, target, &payload);
        let notes = last_notes(&s, target);
        assert!(notes.contains("tool_output dropped"), "{target}: {notes}");
    }
    // Codex: ask becomes deny.
    hook(&s, "codex", &pre_bash(&s, "codex", "make deploy"));
    let notes = last_notes(&s, "codex");
    assert!(notes.contains("ask turned into deny"), "{notes}");
    let logged = hook_log(&s);
    let codex = logged
        .iter()
        .rev()
        .find(|e| e["target"] == "codex")
        .unwrap();
    assert_eq!(
        codex["decision"], "deny",
        "the log records the decision sent: {codex}"
    );
    // Cursor: a post block cannot block.
    let mut payload = fixture(&s, "cursor-post-bash");
    set_command(&mut payload, "make all");
    hook(&s, "cursor", &payload);
    let notes = last_notes(&s, "cursor");
    assert!(notes.contains("cannot block"), "{notes}");
}

#[test]
fn mcp_audit_runs_detached_and_changes_nothing() {
    let s = examples();
    let audit = s.path("home/mcp-audit.log");
    for (i, target) in ["claude", "codex", "gemini"].into_iter().enumerate() {
        let payload = fixture(&s, &format!("{target}-post-mcp"));
        let reply = hook(&s, target, &payload);
        assert_eq!(
            reply,
            Value::Null,
            "{target}: an async condition says nothing"
        );
        let arrived = eventually(Duration::from_secs(5), || {
            std::fs::read_to_string(&audit)
                .map(|t| t.lines().count() > i)
                .unwrap_or(false)
        });
        assert!(arrived, "{target}: the audit line was not written");
        let text = std::fs::read_to_string(&audit).unwrap();
        let line = text.lines().nth(i).unwrap();
        let (tool, stdin) = line.split_once('\t').unwrap();
        assert_eq!(tool, "mcp__github__create_issue", "{target}: AH_TOOL_NAME");
        let stdin: Value = serde_json::from_str(stdin).unwrap();
        assert_eq!(stdin["tool_name"], "mcp__github__create_issue", "{target}");
        assert_eq!(stdin["tool_input"]["title"], "Flaky test in CI", "{target}");
        assert_eq!(stdin["hook_event_name"], "PostToolUse", "{target}");
    }
    let log = hook_log(&s);
    assert_eq!(log.len(), 3, "{log:?}");
    for line in &log {
        assert_eq!(
            line["fired"],
            json!(["post-mcp__github-audit.async.sh"]),
            "{line}"
        );
        assert_eq!(line["event"], "PostToolUse", "{line}");
    }
    // Another server's tools do not fire it.
    let other = replaced(
        &fixture(&s, "claude-post-mcp"),
        "mcp__github__",
        "mcp__gitlab__",
    );
    assert_eq!(hook(&s, "claude", &other), Value::Null);
    std::thread::sleep(Duration::from_millis(500));
    let lines = std::fs::read_to_string(&audit).unwrap().lines().count();
    assert_eq!(lines, 3, "mcp__gitlab__ must not fire mcp__github");
}

#[test]
fn mcp_output_replacement_per_harness() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "post-mcp__github-redact.py",
        "import json\nprint(json.dumps({'tool_output': '[redacted]', 'context': 'issue body redacted'}))\n",
    );
    let note = "issue body redacted";
    for target in ["claude", "codex", "gemini", "cursor"] {
        let reply = hook(&s, target, &fixture(&s, &format!("{target}-post-mcp")));
        let want = match target {
            "claude" | "codex" => json!({"hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedMCPToolOutput": "[redacted]",
                "additionalContext": note,
            }}),
            // Gemini cannot replace a result.
            "gemini" => json!({"hookSpecificOutput": {"additionalContext": note}}),
            // Cursor's generic MCP tool is `MCP`, which `mcp__github` does not match.
            _ => Value::Null,
        };
        assert_eq!(reply, want, "{target}");
    }
}

#[test]
fn cursor_replaces_mcp_output() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "post-mcp-redact.py",
        "import json\nprint(json.dumps({'tool_output': '[redacted]'}))\n",
    );
    let reply = hook(&s, "cursor", &fixture(&s, "cursor-post-mcp"));
    assert_eq!(reply, json!({"updated_mcp_tool_output": "[redacted]"}));
}

#[test]
fn cursor_post_context_drop_is_noted() {
    let s = examples();
    let mut payload = fixture(&s, "cursor-post-bash");
    set_output(&mut payload, &pytest_lines(80).join("\n"));
    assert_eq!(hook(&s, "cursor", &payload), Value::Null);
    let notes = last_notes(&s, "cursor");
    assert!(
        notes.contains("pytest output trimmed from 80 lines"),
        "the dropped context is not in the hook log: {notes}"
    );
}

#[test]
fn migrations_reminder_per_harness() {
    let s = examples();
    let cases = [
        ("claude", "claude-pre-edit"),
        ("claude", "claude-pre-write"),
        ("codex", "codex-pre-edit"),
        ("copilot", "copilot-pre-edit"),
        ("gemini", "gemini-pre-edit"),
        ("cursor", "cursor-pre-write"),
    ];
    for (target, name) in cases {
        let payload = fixture(&s, name);
        let reply = hook(&s, target, &payload);
        let want = match target {
            "claude" | "codex" => json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "additionalContext": MIGRATIONS_NOTE,
            }}),
            "copilot" => json!({"additionalContext": MIGRATIONS_NOTE}),
            // Gemini and Cursor have no context channel before a tool runs.
            _ => Value::Null,
        };
        assert_eq!(reply, want, "{name}");
        // Elsewhere in the tree: nothing.
        let elsewhere = replaced(&payload, "/migrations/", "/src/");
        assert_eq!(hook(&s, target, &elsewhere), Value::Null, "{name} outside");
    }
    // Bash calls do not fire an edit+write condition.
    let bash = pre_bash(&s, "claude", "cat db/migrations/0001_init.sql");
    assert_eq!(hook(&s, "claude", &bash), Value::Null);
}

// ---------------------------------------------------------------------------------------------
// Merge: precedence and contexts
// ---------------------------------------------------------------------------------------------

fn decider(decision: &str, reason: &str) -> String {
    format!("echo '{{\"decision\": \"{decision}\", \"reason\": \"{reason}\"}}'\n")
}

#[test]
fn deny_beats_ask_beats_allow_across_layers() {
    let mut s = Scratch::new();
    let (bundle, profile) = bundle_and_profile(&mut s, "x");
    // The strongest decision sits in the lowest layer: order must not matter.
    let deny = condition(
        &bundle,
        "pre-bash-guard.sh",
        &decider("deny", "bundle says no"),
    );
    let ask = condition(
        &profile,
        "pre-bash-check.sh",
        &decider("ask", "profile asks"),
    );
    condition(
        &s.runtime(),
        "pre-bash-ok.sh",
        &decider("allow", "runtime allows"),
    );
    let payload = pre_bash(&s, "claude", "make deploy");

    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply,
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "bundle says no",
        }})
    );
    std::fs::remove_file(deny).unwrap();
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"],
        json!({"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "profile asks"})
    );
    // Codex cannot ask: the ask becomes a deny whose reason says so.
    let codex = hook(&s, "codex", &pre_bash(&s, "codex", "make deploy"));
    let out = &codex["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{codex}");
    let why = out["permissionDecisionReason"].as_str().unwrap();
    assert!(
        why.contains("cannot ask") && why.contains("profile asks"),
        "{why}"
    );
    for target in ["copilot", "cursor"] {
        let reply = hook(&s, target, &pre_bash(&s, target, "make deploy"));
        assert_eq!(
            reply
                .get("permissionDecision")
                .or_else(|| reply.get("decision")),
            Some(&json!("deny")),
            "{target}: no ask there: {reply}"
        );
    }
    let gemini = hook(&s, "gemini", &pre_bash(&s, "gemini", "make deploy"));
    assert_eq!(gemini["decision"], "ask", "{gemini}");

    std::fs::remove_file(ask).unwrap();
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"],
        json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "runtime allows"})
    );
    // Codex takes no bare allow: nothing is said.
    assert_eq!(
        hook(&s, "codex", &pre_bash(&s, "codex", "make deploy")),
        Value::Null
    );
}

#[test]
fn two_deny_reasons_are_both_given() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-a.sh",
        "echo 'first no' >&2; exit 2\n",
    );
    condition(&s.managed(), "pre-bash-b.sh", &decider("deny", "second no"));
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    let (a, b) = (
        reason.find("first no").expect(reason),
        reason.find("second no").expect(reason),
    );
    assert!(a < b, "reasons in execution order: {reason}");
}

#[test]
fn contexts_arrive_in_execution_order_not_finish_order() {
    let mut s = Scratch::new();
    let (bundle, _) = bundle_and_profile(&mut s, "x");
    // The first in execution order finishes last.
    condition(
        &bundle,
        "pre-bash-slow.sh",
        "sleep 0.7\necho 'from the bundle'\n",
    );
    condition(
        &s.runtime(),
        "pre-bash-fast.py",
        "import json\nprint(json.dumps({'context': 'from the runtime'}))\n",
    );
    condition(
        &s.hookdex_dir(),
        "pre-any-dir.sh",
        "echo 'from the directory'\n",
    );
    for target in ["claude", "codex", "copilot"] {
        let reply = hook(&s, target, &pre_bash(&s, target, "ls"));
        assert_eq!(
            context_of(&reply),
            "from the bundle\n\nfrom the runtime\n\nfrom the directory",
            "{target}: {reply}"
        );
        assert!(
            reply
                .pointer("/hookSpecificOutput/permissionDecision")
                .is_none()
                && reply.get("permissionDecision").is_none(),
            "{target}: context alone decides nothing: {reply}"
        );
    }
}

#[test]
fn patches_merge_in_order_and_the_last_key_wins() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-a.py",
        "import json\nprint(json.dumps({'tool_input': {'command': 'echo a', 'timeout': 5000}, 'decision': 'allow'}))\n",
    );
    condition(
        &s.hookdex_dir(),
        "pre-bash-b.py",
        "import json\nprint(json.dumps({'tool_input': {'command': 'echo b'}}))\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "echo x"));
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"],
        json!({"command": "echo b", "description": "Show recent commits", "timeout": 5000})
    );
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "allow");
}

// ---------------------------------------------------------------------------------------------
// Failures: crashes and bad output fail open
// ---------------------------------------------------------------------------------------------

#[test]
fn a_crashing_condition_is_named_and_does_not_deny() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-crash.py",
        "import json, sys\nprint(json.dumps({'decision': 'deny', 'reason': 'half done'}))\nsys.stdout.flush()\nraise RuntimeError('boom')\n",
    );
    condition(&s.runtime(), "pre-bash-note.sh", "echo 'still here'\n");
    condition(
        &s.hookdex_dir(),
        "pre-bash-rw.py",
        "import json\nprint(json.dumps({'tool_input': {'command': 'ls -la'}, 'decision': 'allow'}))\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(
        out["permissionDecision"], "allow",
        "a crash never denies: {reply}"
    );
    assert_eq!(out["updatedInput"]["command"], "ls -la", "{reply}");
    let context = out["additionalContext"].as_str().unwrap();
    assert!(context.contains("still here"), "{context}");
    let note = context
        .lines()
        .find(|l| l.contains("pre-bash-crash.py"))
        .unwrap_or_else(|| panic!("no note naming the crash: {context}"));
    assert!(
        note.starts_with("hookdex: condition pre-bash-crash.py skipped (exit 1"),
        "{note}"
    );
    assert!(note.contains("RuntimeError: boom"), "{note}");
    assert!(
        !context.contains("half done"),
        "a crash's stdout is not applied"
    );

    let log = hook_log(&s);
    let last = log.last().unwrap();
    assert!(
        last["notes"].to_string().contains("pre-bash-crash.py"),
        "the crash is logged: {last}"
    );
}

#[test]
fn odd_exit_codes_signals_and_unstartable_scripts_fail_open() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-seven.sh",
        "echo 'deny me' >&2; exit 7\n",
    );
    condition(&s.runtime(), "pre-bash-killed.sh", "kill -9 $$\n");
    let direct = condition(
        &s.runtime(),
        "pre-bash-direct.bin",
        "#!/bin/sh\necho 'no' >&2\nexit 2\n",
    );
    let payload = pre_bash(&s, "claude", "ls");
    // Executable: it runs and denies.
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    // No longer executable after the index was built: it cannot start, and nothing denies.
    set_executable(&direct, false);
    let reply = hook(&s, "claude", &payload);
    let out = &reply["hookSpecificOutput"];
    assert!(out.get("permissionDecision").is_none(), "{reply}");
    let context = out["additionalContext"].as_str().unwrap();
    let notes: Vec<&str> = context.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        notes
            .iter()
            .all(|l| l.starts_with("hookdex: condition ") && l.contains(" skipped (")),
        "only one-line notes: {context}"
    );
    assert!(
        notes
            .iter()
            .any(|l| l.starts_with("hookdex: condition pre-bash-seven.sh skipped (exit 7")),
        "{context}"
    );
    assert!(
        notes.iter().any(
            |l| l.starts_with("hookdex: condition pre-bash-killed.sh skipped (")
                && l.contains("signal 9")
        ),
        "{context}"
    );
}

#[test]
fn copilot_batches_are_judged_call_by_call() {
    let s = examples();
    let batch = json!({
        "sessionId": "c0p1l07-5e55-4a1b-8c2d-3e4f5a6b7c8d",
        "timestamp": 1785600000000u64,
        "cwd": s.repo.display().to_string(),
        "toolCalls": [
            {"name": "bash", "args": "{\"command\":\"kubectl get pods\"}"},
            {"name": "bash", "args": {"command": "kubectl delete pod web-0"}},
        ],
    });
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        batch.to_string().as_bytes(),
    );
    assert_eq!(
        hooked.reply,
        json!({"permissionDecision": "deny", "permissionDecisionReason": "kubectl writes go through GitOps"})
    );
    let mut reads = batch.clone();
    reads["toolCalls"][1]["args"] = json!({"command": "kubectl describe pod web-0"});
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        reads.to_string().as_bytes(),
    );
    assert_eq!(hooked.reply, Value::Null);
}

#[test]
fn post_exit_2_blocks_per_harness() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "post-bash-red.sh",
        "echo 'tests failed: fix them first' >&2\nexit 2\n",
    );
    let reason = "tests failed: fix them first";
    for target in TARGETS {
        let reply = hook(&s, target, &fixture(&s, &format!("{target}-post-bash")));
        let want = match target {
            "claude" | "codex" => json!({"decision": "block", "reason": reason}),
            "gemini" => json!({"decision": "deny", "reason": reason}),
            "copilot" => {
                json!({"additionalContext": format!("hookdex: blocked after the tool ran: {reason}")})
            }
            _ => Value::Null,
        };
        assert_eq!(reply, want, "{target}");
    }
}

// ---------------------------------------------------------------------------------------------
// Execution: timeouts kill the group, .async does not wait
// ---------------------------------------------------------------------------------------------

/// Whether `pid` is gone (or a zombie nobody reaped yet: it runs nothing).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

/// Live processes (not zombies) whose process group is `pgid`.
fn live_in_group(pgid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command: state, ppid, pgrp.
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            found.push(pid);
        }
    }
    found
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let out = out.display();
    condition(
        &s.runtime(),
        "pre-bash-hang.sh",
        &format!(
            "read -r -a stat < /proc/$$/stat; echo \"${{stat[4]}}\" > {out}/pgid\n\
             echo $$ > {out}/leader\n\
             sleep 30 &\necho $! >> {out}/pids\n\
             sleep 30 &\necho $! >> {out}/pids\n\
             wait\necho 'never printed'\n"
        ),
    );
    condition(&s.runtime(), "pre-bash-quick.sh", "echo 'quick one'\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "the hook waited {:?}",
        hooked.elapsed
    );
    let reply = hooked.reply;
    let out = s.path("out");
    let context = context_of(&reply);
    assert!(context.contains("quick one"), "{context}");
    let note = context
        .lines()
        .find(|l| l.contains("pre-bash-hang.sh"))
        .unwrap_or_else(|| panic!("no note: {context}"));
    assert!(
        note.starts_with("hookdex: condition pre-bash-hang.sh skipped (")
            && note.contains("timed out"),
        "{note}"
    );
    assert!(!context.contains("never printed"));
    assert!(reply["hookSpecificOutput"]
        .get("permissionDecision")
        .is_none());

    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let pgid: u32 = read("pgid").trim().parse().unwrap();
    let leader: u32 = read("leader").trim().parse().unwrap();
    assert_eq!(pgid, leader, "the condition leads its own process group");
    let mut pids: Vec<u32> = read("pids")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "both children started");
    pids.push(leader);
    let gone = eventually(Duration::from_millis(1500), || {
        pids.iter().all(|&p| dead(p)) && live_in_group(pgid).is_empty()
    });
    assert!(
        gone,
        "survivors of the timed-out group: {:?} (pids {pids:?})",
        live_in_group(pgid)
    );
}

#[test]
fn fractional_timeouts_are_honoured() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "0.3");
    condition(&s.runtime(), "pre-bash-nap.sh", "sleep 20\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "{:?}",
        hooked.elapsed
    );
    let context = context_of(&hooked.reply);
    assert!(
        context.contains("pre-bash-nap.sh") && context.contains("timed out"),
        "{context}"
    );
}

#[test]
fn max_parallel_one_still_runs_every_condition_in_order() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_MAX_PARALLEL", "1");
    for i in 0..4 {
        condition(
            &s.runtime(),
            &format!("pre-bash-c{i}.sh"),
            &format!("echo 'part {i}'\n"),
        );
    }
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(context_of(&reply), "part 0\n\npart 1\n\npart 2\n\npart 3");
}

#[test]
fn an_async_condition_starts_cannot_change_the_call_and_is_not_waited_for() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-watch.async.sh",
        &format!(
            "echo $$ > {o}/async.pid\n\
             cat > {o}/async.stdin\n\
             echo \"$AH_CONDITION $AH_TOOL_NAME\" > {o}/async.started\n\
             echo '{{\"decision\": \"deny\", \"reason\": \"async says no\"}}'\n\
             echo 'async says no' >&2\n\
             sleep 15\n\
             echo finished > {o}/async.finished\n\
             exit 2\n"
        ),
    );
    condition(&s.runtime(), "pre-bash-sync.sh", "echo 'sync context'\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "rm -rf build"));
    let finished_early = !out.join("async.finished").exists();
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "the hook waited for the async condition: {:?}",
        hooked.elapsed
    );
    assert!(finished_early, "the async condition had already finished");
    assert_eq!(
        hooked.reply,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "sync context"}})
    );
    let started = eventually(Duration::from_secs(5), || {
        out.join("async.started").exists()
    });
    assert!(started, "the async condition never started");
    assert_eq!(
        std::fs::read_to_string(out.join("async.started"))
            .unwrap()
            .trim(),
        "pre-bash-watch.async.sh bash"
    );
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("async.stdin")).unwrap()).unwrap();
    assert_eq!(stdin["tool_input"]["command"], "rm -rf build");
    // Clean up the sleeper (it leads its own group).
    if let Ok(pid) = std::fs::read_to_string(out.join("async.pid")) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", pid.trim())])
            .output();
    }
}

#[test]
fn an_async_condition_alone_gives_an_empty_reply_on_every_harness() {
    let s = Scratch::new();
    let marks = s.path("marks");
    std::fs::create_dir_all(&marks).unwrap();
    condition(
        &s.runtime(),
        "pre-bash-deny.async.sh",
        &format!(
            "touch {}/$AH_TARGET\necho 'no' >&2\nexit 2\n",
            marks.display()
        ),
    );
    for target in TARGETS {
        let reply = hook(&s, target, &pre_bash(&s, target, "ls"));
        assert_eq!(reply, Value::Null, "{target}");
    }
    for target in TARGETS {
        assert!(
            eventually(Duration::from_secs(5), || marks.join(target).exists()),
            "{target}: the async condition did not run"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// CONDITIONS_ENABLED, rewrites
// ---------------------------------------------------------------------------------------------

#[test]
fn conditions_enabled_false_leaves_only_the_managed_layer() {
    let mut s = Scratch::new();
    let (bundle, _) = bundle_and_profile(&mut s, "x");
    let marks = s.path("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let m = marks.display();
    condition(
        &bundle,
        "pre-bash-b.sh",
        &format!("touch {m}/bundle\necho 'bundle ctx'\n"),
    );
    condition(
        &s.runtime(),
        "pre-bash-r.sh",
        &format!("touch {m}/runtime\necho 'runtime says no' >&2\nexit 2\n"),
    );
    condition(
        &s.hookdex_dir(),
        "pre-bash-d.sh",
        &format!("touch {m}/directory\necho 'dir ctx'\n"),
    );
    let managed = condition(
        &s.managed(),
        "pre-bash.rm-guard.sh",
        &format!("touch {m}/managed\ngrep -q 'rm -rf' && {{ echo 'managed says no' >&2; exit 2; }}\nexit 0\n"),
    );
    s.set_env("CONDITIONS_ENABLED", "false");
    // A call only the others would act on: nothing at all.
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(reply, Value::Null);
    assert!(
        !marks.join("managed").exists(),
        "bash.rm does not fire on ls"
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "rm -rf /tmp/x"));
    assert_eq!(
        reply,
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "managed says no",
        }})
    );
    for layer in ["bundle", "runtime", "directory"] {
        assert!(
            !marks.join(layer).exists(),
            "{layer} ran with CONDITIONS_ENABLED=false"
        );
    }
    assert!(marks.join("managed").exists(), "the managed guard ran");
    std::fs::remove_file(managed).unwrap();
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "rm -rf /tmp/x"));
    assert_eq!(reply, Value::Null, "nothing left to run");

    s.set_env("CONDITIONS_ENABLED", "true");
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    for layer in ["bundle", "runtime", "directory"] {
        assert!(
            marks.join(layer).exists(),
            "{layer} did not run when enabled"
        );
    }
}

const REWRITE_ONLY: &str =
    "import json\nprint(json.dumps({'tool_input': {'command': 'git log --oneline -20'}}))\n";

fn with_mode(mut payload: Value, mode: &str) -> Value {
    payload["permission_mode"] = json!(mode);
    payload
}

#[test]
fn a_rewrite_without_a_decision_is_dropped_outside_bypass() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-bash-rw.py", REWRITE_ONLY);
    for mode in ["default", "acceptEdits", "plan"] {
        let reply = hook(
            &s,
            "claude",
            &with_mode(pre_bash(&s, "claude", "git log"), mode),
        );
        let out = &reply["hookSpecificOutput"];
        assert!(out.get("updatedInput").is_none(), "{mode}: {reply}");
        assert!(out.get("permissionDecision").is_none(), "{mode}: {reply}");
        let context = out["additionalContext"].as_str().unwrap();
        assert!(
            context.contains("pre-bash-rw.py") && context.contains("dropped"),
            "{mode}: the agent is told why: {context}"
        );
    }
    // No permission mode at all (Gemini, Copilot): dropped too.
    let reply = hook(&s, "copilot", &pre_bash(&s, "copilot", "git log"));
    assert!(reply.get("modifiedArgs").is_none(), "{reply}");
    assert!(reply.get("permissionDecision").is_none(), "{reply}");
}

#[test]
fn a_rewrite_without_a_decision_applies_in_bypass_permissions() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-bash-rw.py", REWRITE_ONLY);
    let payload = with_mode(pre_bash(&s, "claude", "git log"), "bypassPermissions");
    let mut reply = hook(&s, "claude", &payload);
    take_str(&mut reply, "/hookSpecificOutput/permissionDecisionReason");
    assert_eq!(
        reply,
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "git log --oneline -20", "description": "Show recent commits", "timeout": 120000},
        }})
    );
    let codex = with_mode(pre_bash(&s, "codex", "git log"), "bypassPermissions");
    let reply = hook(&s, "codex", &codex);
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"],
        json!({"command": "git log --oneline -20"})
    );
}

#[test]
fn a_rewrite_with_ask_is_applied_and_asked_where_ask_exists() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-rw.py",
        "import json\nprint(json.dumps({'tool_input': {'command': 'git log --oneline -20'}, 'decision': 'ask', 'reason': 'long log'}))\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "git log"));
    assert_eq!(
        reply,
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "long log",
            "updatedInput": {"command": "git log --oneline -20", "description": "Show recent commits", "timeout": 120000},
        }})
    );
    // Codex: ask becomes deny, and a denied call is not rewritten.
    let reply = hook(&s, "codex", &pre_bash(&s, "codex", "git log"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    assert!(out.get("updatedInput").is_none(), "{reply}");
    // A deny anywhere drops the rewrite.
    condition(&s.managed(), "pre-bash-no.sh", "echo 'no' >&2; exit 2\n");
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "git log"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    assert!(out.get("updatedInput").is_none(), "{reply}");
}

// ---------------------------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_payloads_exit_0_with_nothing_to_say() {
    let s = examples();
    condition(
        &s.runtime(),
        "pre-any-deny.sh",
        "echo 'everything denied' >&2; exit 2\n",
    );
    let bad: [&[u8]; 7] = [
        b"",
        b"not json",
        b"[1,2]",
        b"42",
        b"null",
        b"{\"tool_name\": ",
        b"\xff\xfe\x00garbage",
    ];
    for target in TARGETS {
        for bytes in bad {
            let event = (target == "copilot").then_some("preToolUse");
            let hooked = hook_bytes(&s, target, event, bytes);
            assert_eq!(
                hooked.reply,
                Value::Null,
                "{target} {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

#[test]
fn an_unknown_tool_without_cwd_is_ignored() {
    let s = examples();
    for target in TARGETS {
        let payload = json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "FrobnicateWidgets",
            "tool_input": {"knob": 11},
        });
        assert_eq!(hook(&s, target, &payload), Value::Null, "{target}");
        let copilot =
            json!({"toolName": "frobnicate", "toolArgs": "{\"knob\": 11}", "timestamp": 1});
        let hooked = hook_bytes(
            &s,
            target,
            Some("preToolUse"),
            copilot.to_string().as_bytes(),
        );
        assert_eq!(hooked.reply, Value::Null, "{target} camelCase");
    }
    // Neither cwd nor tool: still nothing.
    let hooked = hook_bytes(&s, "claude", None, b"{}");
    assert_eq!(hooked.reply, Value::Null);
}

#[test]
fn a_payload_with_no_cwd_runs_in_the_hook_directory() {
    let s = examples();
    let mut payload = pre_bash(&s, "claude", "kubectl delete ns prod");
    payload.as_object_mut().unwrap().remove("cwd");
    let reply = hook(&s, "claude", &payload);
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn a_five_megabyte_payload_still_works() {
    let s = examples();
    let mut payload = fixture(&s, "claude-pre-write");
    let big = "INSERT INTO t VALUES (1);\n".repeat(5 * 1024 * 1024 / 26 + 1);
    assert!(big.len() >= 5 * 1024 * 1024);
    payload["tool_input"]["content"] = json!(big);
    let hooked = hook_timed(&s, "claude", &payload);
    assert_eq!(
        hooked.reply,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": MIGRATIONS_NOTE}})
    );
    // Five megabytes that match nothing: nothing.
    let elsewhere = replaced(&payload, "/migrations/", "/src/");
    assert_eq!(hook(&s, "claude", &elsewhere), Value::Null);
    // A five-megabyte command line: the guard still sees kubectl.
    let long = format!("kubectl delete pod web-0 # {}", "x".repeat(5 * 1024 * 1024));
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", &long));
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn a_corrupt_index_is_rebuilt_and_the_answer_is_right() {
    let s = examples();
    let payload = pre_bash(&s, "claude", "kubectl delete pod web-0");
    let deny = hook(&s, "claude", &payload);
    assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
    let index = s.index_file();
    let bytes = std::fs::read(&index).unwrap();
    assert!(bytes.len() > 64, "index is {} bytes", bytes.len());

    // Truncated to half.
    std::fs::write(&index, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(
        hook(&s, "claude", &payload),
        deny,
        "after truncation to half"
    );
    // Emptied.
    std::fs::write(s.index_file(), b"").unwrap();
    assert_eq!(hook(&s, "claude", &payload), deny, "after truncation to 0");
    // Same size, bytes flipped past the header.
    let bytes = std::fs::read(s.index_file()).unwrap();
    let mut flipped = bytes.clone();
    for b in flipped.iter_mut().skip(64) {
        *b ^= 0x5a;
    }
    std::fs::write(s.index_file(), &flipped).unwrap();
    assert_eq!(hook(&s, "claude", &payload), deny, "after flipped bytes");
    // Bad magic.
    let mut magic = bytes.clone();
    magic[..8].copy_from_slice(b"NOTANIDX");
    std::fs::write(s.index_file(), &magic).unwrap();
    assert_eq!(hook(&s, "claude", &payload), deny, "after a bad magic");
    // And a call that should not fire still does not.
    let quiet = pre_bash(&s, "claude", "kubectl get pods");
    std::fs::write(s.index_file(), &bytes[..bytes.len() / 3]).unwrap();
    assert_eq!(hook(&s, "claude", &quiet), Value::Null);
}

#[test]
fn a_new_condition_is_picked_up_on_the_next_call() {
    let s = Scratch::new();
    let payload = pre_bash(&s, "claude", "terraform apply");
    assert_eq!(hook(&s, "claude", &payload), Value::Null);
    condition(
        &s.runtime(),
        "pre-bash.terraform-plan_first.sh",
        "echo 'run plan first' >&2; exit 2\n",
    );
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"],
        "run plan first"
    );
}

// ---------------------------------------------------------------------------------------------
// The script's environment, stdin and working directory
// ---------------------------------------------------------------------------------------------

fn env_dump(out: &Path, tag: &str) -> String {
    let o = out.display();
    format!(
        "env | grep '^AH_' | sort > {o}/{tag}.env\ncat > {o}/{tag}.stdin\npwd -P > {o}/{tag}.pwd\n"
    )
}

fn read_env(path: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn scripts_get_the_ah_environment_stdin_and_cwd() {
    let mut s = Scratch::new();
    let (bundle, profile) = bundle_and_profile(&mut s, "x");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let layers = [
        ("bundle", bundle.clone(), "pre-bash-envb.sh"),
        ("profile:x", profile.clone(), "pre-bash-envp.sh"),
        ("runtime", s.runtime(), "pre-bash.git-envr.sh"),
        ("directory", s.hookdex_dir(), "pre-any-envd.sh"),
        ("managed", s.managed(), "pre-bash+read-envm.sh"),
    ];
    for (_, dir, name) in &layers {
        condition(dir, name, &env_dump(&out, name));
    }
    // Run from elsewhere: the scripts must still run in the payload's cwd.
    s.cwd = s.root.clone();
    let payload = fixture(&s, "codex-pre-exec");
    let reply = hook(&s, "codex", &payload);
    assert_eq!(reply, Value::Null, "the dumps say nothing");
    let repo = s.repo.display().to_string();
    for (label, _, name) in &layers {
        let env = read_env(&out.join(format!("{name}.env")));
        let want: std::collections::BTreeMap<String, String> = [
            ("AH_STEP", "pre"),
            ("AH_EVENT", "PreToolUse"),
            ("AH_TOOL_NAME", "bash"),
            ("AH_TOOL_USE_ID", "call_Ex4Cm6Dn8Fp0Gq2Hr4Js6Kt"),
            ("AH_SESSION_ID", "019a3c5e-7f21-7d40-b1a2-5c3d9e8f0a11"),
            ("AH_CWD", repo.as_str()),
            (
                "AH_TRANSCRIPT_PATH",
                "/home/dev/.codex/sessions/2026/08/01/rollout-2026-08-01T10-00-00-019a3c5e.jsonl",
            ),
            ("AH_PERMISSION_MODE", "default"),
            ("AH_TARGET", "codex"),
            ("AH_CONDITION", name),
            ("AH_CONDITION_SOURCE", label),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(env, want, "{name}");
        let pwd = std::fs::read_to_string(out.join(format!("{name}.pwd"))).unwrap();
        assert_eq!(pwd.trim(), repo, "{name}: working directory");
        let stdin: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{name}.stdin"))).unwrap(),
        )
        .unwrap();
        assert_eq!(stdin["tool_name"], "bash", "{name}");
        assert_eq!(stdin["hook_event_name"], "PreToolUse", "{name}");
        let command = stdin["tool_input"]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: tool_input.command is not a string: {stdin}"));
        assert!(
            command.starts_with("git log ")
                && command.contains("%h %s")
                && command.ends_with("-n 5"),
            "{name}: the list is joined with shell quoting: {command}"
        );
        assert_eq!(stdin["tool_input"]["workdir"], repo.as_str(), "{name}");
        assert_eq!(stdin["cwd"], repo.as_str(), "{name}");
        assert_eq!(
            stdin["session_id"], "019a3c5e-7f21-7d40-b1a2-5c3d9e8f0a11",
            "{name}"
        );
        assert_eq!(
            stdin["tool_use_id"], "call_Ex4Cm6Dn8Fp0Gq2Hr4Js6Kt",
            "{name}"
        );
        assert_eq!(stdin["permission_mode"], "default", "{name}");
    }
}

#[test]
fn scripts_read_normalized_payloads_on_every_harness() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-dump.sh",
        &format!("cat > {o}/pre-$AH_TARGET.json\nprintf '%s|%s|%s' \"$AH_STEP\" \"$AH_EVENT\" \"$AH_TOOL_NAME\" > {o}/pre-$AH_TARGET.env\n"),
    );
    condition(
        &s.runtime(),
        "post-bash-dump.sh",
        &format!("cat > {o}/post-$AH_TARGET.json\nprintf '%s|%s|%s' \"$AH_STEP\" \"$AH_EVENT\" \"$AH_TOOL_NAME\" > {o}/post-$AH_TARGET.env\n"),
    );
    let repo = s.repo.display().to_string();
    for target in TARGETS {
        assert_eq!(
            hook(&s, target, &pre_bash(&s, target, "make test")),
            Value::Null
        );
        assert_eq!(
            hook(&s, target, &fixture(&s, &format!("{target}-post-bash"))),
            Value::Null
        );
        for step in ["pre", "post"] {
            let env = std::fs::read_to_string(out.join(format!("{step}-{target}.env")))
                .unwrap_or_else(|_| panic!("{target} {step}: the condition did not run"));
            let event = if step == "pre" {
                "PreToolUse"
            } else {
                "PostToolUse"
            };
            assert_eq!(env, format!("{step}|{event}|bash"), "{target}");
            let stdin: Value = serde_json::from_str(
                &std::fs::read_to_string(out.join(format!("{step}-{target}.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(stdin["tool_name"], "bash", "{target} {step}");
            assert_eq!(stdin["hook_event_name"], event, "{target} {step}");
            assert_eq!(stdin["cwd"], repo.as_str(), "{target} {step}: cwd");
            let command = stdin["tool_input"]["command"].as_str().unwrap();
            if step == "pre" {
                assert_eq!(command, "make test", "{target}");
            } else {
                assert_eq!(command, "pytest -q", "{target}");
                assert_eq!(
                    stdin["tool_response"]["stdout"], "....\n4 passed in 0.12s",
                    "{target}: the result reaches scripts as tool_response.stdout: {stdin}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The hook log
// ---------------------------------------------------------------------------------------------

#[test]
fn the_hook_log_names_what_fired_and_the_decision() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-readonly.sh",
        KUBECTL_READONLY,
    );
    assert_eq!(
        hook(&s, "claude", &pre_bash(&s, "claude", "ls")),
        Value::Null
    );
    assert!(
        hook_log(&s).is_empty(),
        "a call where nothing fired writes no line: {:?}",
        hook_log(&s)
    );
    hook(
        &s,
        "claude",
        &pre_bash(&s, "claude", "kubectl delete pod web-0"),
    );
    let log = hook_log(&s);
    assert_eq!(log.len(), 1, "{log:?}");
    let line = &log[0];
    assert_eq!(
        line["fired"],
        json!(["pre-bash.kubectl-readonly.sh"]),
        "{line}"
    );
    assert_eq!(line["decision"], "deny", "{line}");
    assert_eq!(line["target"], "claude", "{line}");
    assert_eq!(line["event"], "PreToolUse", "{line}");
    assert_eq!(
        line["session_id"], "5b1f0c2e-8d7a-4c1e-9f3a-2a6d4e8b9c01",
        "{line}"
    );
    assert_eq!(
        line["tool_use_id"], "toolu_01QxL7dM3pA9kWcZ8rYb2VnE",
        "{line}"
    );

    condition(&s.runtime(), "pre-bash.git-short_log.py", GIT_SHORT_LOG);
    hook(&s, "gemini", &pre_bash(&s, "gemini", "git log"));
    let log = hook_log(&s);
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1]["fired"], json!(["pre-bash.git-short_log.py"]));
    assert_eq!(log[1]["decision"], "allow");
    assert_eq!(log[1]["target"], "gemini");

    // A bad payload is logged as gone wrong.
    hook_bytes(&s, "claude", None, b"not json");
    let log = hook_log(&s);
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(
        log[2]["notes"].to_string().contains("payload"),
        "{}",
        log[2]
    );
}
