//! The seed's example conditions (kubectl guard, git short log, pytest trim, MCP audit,
//! migrations reminder) on every harness, and the degradations each harness imposes.

mod common;

use std::time::Duration;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

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
        let want = deny_reply(target, reason);
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
        // The model is told what ran, where there is a pre context channel.
        let told = "hookdex: this call's input was rewritten by pre-bash.git-short_log.py before it ran; it ran as: git log --oneline -20";
        let want = match target {
            "claude" | "codex" => json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": full,
                "additionalContext": told,
            }}),
            "copilot" => {
                json!({"permissionDecision": "allow", "modifiedArgs": full, "additionalContext": told})
            }
            "gemini" => json!({"decision": "allow", "hookSpecificOutput": {"tool_input": full}}),
            _ => json!({"decision": "allow", "updated_input": full}),
        };
        assert_eq!(reply, want, "{target}");
        // Any other git command is left alone.
        let reply = hook(&s, target, &pre_bash(&s, target, "git log -p"));
        assert_eq!(reply, Value::Null, "{target}: git log -p");
    }
}

/// How a replacement output is marked where it travels as a post block.
const FEEDBACK: &str =
    "hookdex replaced this tool's output (hook feedback; the original is withheld):";

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
        // Codex rejects `updatedToolOutput`; a block withholds the output
        // and carries the replacement as hook feedback.
        "codex" => json!({
            "decision": "block",
            "reason": format!("{FEEDBACK}\n{kept}"),
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note},
        }),
        "copilot" => json!({
            "modifiedResult": {"resultType": "success", "textResultForLlm": kept},
            "additionalContext": note,
        }),
        // Gemini's AfterTool deny replaces the result with its reason.
        "gemini" => json!({
            "decision": "deny",
            "reason": format!("{FEEDBACK}\n{kept}"),
            "hookSpecificOutput": {"additionalContext": note},
        }),
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
    // Cursor: no output replacement.
    let lines = pytest_lines(80).join("\n");
    let mut payload = fixture(&s, "cursor-post-bash");
    set_output(&mut payload, &lines);
    hook(&s, "cursor", &payload);
    let notes = last_notes(&s, "cursor");
    assert!(notes.contains("tool_output dropped"), "cursor: {notes}");
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
            "claude" => json!({"hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedMCPToolOutput": "[redacted]",
                "additionalContext": note,
            }}),
            // Codex reports `updatedMCPToolOutput` unsupported; the block carries it.
            "codex" => json!({
                "decision": "block",
                "reason": format!("{FEEDBACK}\n[redacted]"),
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note},
            }),
            "gemini" => json!({
                "decision": "deny",
                "reason": format!("{FEEDBACK}\n[redacted]"),
                "hookSpecificOutput": {"additionalContext": note},
            }),
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
