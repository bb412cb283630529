//! `hookdex mcp` end to end (SPEC §13): the real server process over
//! stdio, spoken to in raw JSON-RPC lines as an MCP client sends them. The
//! gate: a session whose gate is closed is refused by the server itself,
//! one the person opened (through `hookdex hook`) is served, another
//! session is not. The round trip `condition_set` → `condition_list` →
//! `condition_show` → `condition_clear`; an invalid filter refused with
//! the schema error and nothing written; `enforcement_set`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use common::hook::*;
use common::*;

/// Runs `hookdex mcp` with `calls` (tool name, arguments) after the
/// handshake, and returns each call's result, in order.
fn mcp(s: &Scratch, calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(BIN)
        .args(["mcp", "--target", "claude"])
        .current_dir(&s.repo)
        .env_clear()
        .envs(s.vars_with_prefix(""))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("hookdex mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "hookdex-test", "version": "1"}}}),
    );
    let hello: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(hello["result"]["serverInfo"]["name"], "hookdex", "{hello}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut results = Vec::new();
    for (id, (tool, arguments)) in calls.iter().enumerate() {
        send(
            json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
        );
        let reply: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        assert_eq!(reply["id"], id + 1, "{reply}");
        results.push(reply["result"].clone());
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    results
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn open_gate(s: &Scratch, session: &str) {
    let mut payload = fixture(s, "claude-prompt");
    payload["prompt"] = json!("set a condition: kubectl writes go through GitOps");
    payload["session_id"] = json!(session);
    hook(s, "claude", &payload);
}

const GUARD: &str = "#!/bin/bash\necho 'kubectl writes go through GitOps' >&2\nexit 2\n";

#[test]
fn the_server_lists_its_tools_and_refuses_a_closed_gate() {
    let s = Scratch::new();
    let set = json!({"step": "pre", "matcher": "bash.kubectl", "name": "gitops",
        "script": GUARD, "session_id": "closed", "cwd": s.repo});
    let results = mcp(&s, &[("condition_set", set.clone())]);
    assert_eq!(results[0]["isError"], true, "{}", results[0]);
    assert!(text(&results[0]).contains("hookdex gate: the gate of session closed is closed"));
    assert!(!s
        .home()
        .join("conditions/pre-bash.kubectl-gitops.sh")
        .exists());
    // The person opens another session's gate: this one stays closed.
    open_gate(&s, "other");
    let results = mcp(&s, &[("condition_set", set)]);
    assert_eq!(results[0]["isError"], true);
}

#[test]
fn set_list_show_clear_round_trip() {
    let s = Scratch::new();
    open_gate(&s, "s1");
    let set = json!({"step": "pre", "matcher": "bash.kubectl", "name": "gitops",
        "script": GUARD, "session_id": "s1", "cwd": s.repo});
    let results = mcp(
        &s,
        &[
            ("condition_set", set.clone()),
            ("condition_list", json!({"cwd": s.repo})),
            (
                "condition_show",
                json!({"file": "pre-bash.kubectl-gitops.sh", "cwd": s.repo}),
            ),
            ("condition_set", set),
        ],
    );
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    let written = s.home().join("conditions/pre-bash.kubectl-gitops.sh");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&written).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "executable");
    let listed: Value = serde_json::from_str(&text(&results[1])).unwrap();
    let active = listed["active"].to_string();
    assert!(active.contains("pre-bash.kubectl-gitops.sh"), "{active}");
    assert!(listed["layers"].is_array() && listed["invalid"].is_array());
    assert!(
        text(&results[2]).contains("kubectl writes go through GitOps"),
        "{}",
        results[2]
    );
    assert!(
        text(&results[3]).contains("replace: true"),
        "a second set without replace"
    );
    // The condition is live at the next call.
    let reply = hook(
        &s,
        "claude",
        &pre_bash(&s, "claude", "kubectl delete pod x"),
    );
    assert!(
        reply
            .to_string()
            .contains("kubectl writes go through GitOps"),
        "{reply}"
    );
    let results = mcp(
        &s,
        &[(
            "condition_clear",
            json!({"file": "pre-bash.kubectl-gitops.sh", "session_id": "s1", "cwd": s.repo}),
        )],
    );
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    assert!(!written.exists());
}

#[test]
fn an_invalid_filter_is_refused_with_the_schema_error_and_nothing_written() {
    let s = Scratch::new();
    open_gate(&s, "s1");
    let results = mcp(
        &s,
        &[(
            "condition_set",
            json!({"step": "pre", "matcher": "edit+write", "name": "ui_slop", "language": "filter",
                "script": "mode: sometimes\n", "scope": "directory", "session_id": "s1", "cwd": s.repo}),
        )],
    );
    assert_eq!(results[0]["isError"], true);
    assert!(
        text(&results[0]).contains("unknown variant `sometimes`"),
        "{}",
        results[0]
    );
    assert!(!s.repo.join(".agentihooks/conditions").exists());
    let results = mcp(
        &s,
        &[(
            "condition_set",
            json!({"step": "pre", "matcher": "edit+write", "name": "ui_slop", "language": "filter",
                "script": "mode: classifier\nintent: text states the value\n", "scope": "directory",
                "session_id": "s1", "cwd": s.repo}),
        )],
    );
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    assert!(s
        .repo
        .join(".agentihooks/conditions/pre-edit+write-ui_slop.filter.yaml")
        .is_file());
}

#[test]
fn a_guard_is_written_refused_when_broken_and_then_decides() {
    let s = Scratch::new();
    open_gate(&s, "s1");
    let set = |script: &str| {
        mcp(
            &s,
            &[(
                "condition_set",
                json!({"step": "pre", "matcher": "bash.kubectl", "name": "writes", "language": "guard",
                    "script": script, "session_id": "s1", "cwd": s.repo, "replace": true}),
            )],
        )
        .remove(0)
    };
    let refused = set("deny: [delete]\n");
    assert_eq!(refused["isError"], true);
    assert!(text(&refused).contains("reason: is missing"), "{refused}");
    let written = set("reason: GitOps\ndeny: [delete]\n");
    assert_eq!(written["isError"], false, "{written}");
    let file = s
        .home()
        .join("conditions/pre-bash.kubectl-writes.guard.yaml");
    assert!(file.is_file());
    let reply = hook(
        &s,
        "claude",
        &pre_bash(&s, "claude", "kubectl -n x delete pod y"),
    );
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn enforcement_set_writes_an_entry_that_comes_on_its_cadence() {
    let s = Scratch::new();
    open_gate(&s, "s1");
    let results = mcp(
        &s,
        &[(
            "enforcement_set",
            json!({"message": "Cluster writes go through GitOps.", "cadence": 2,
                "matcher": "bash.kubectl", "session_id": "s1", "cwd": s.repo}),
        )],
    );
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(s.home().join("enforcements.json")).unwrap())
            .unwrap();
    assert_eq!(written[0]["cadence"], 2);
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "kubectl get pods"));
    assert_eq!(context_of(&reply), "Cluster writes go through GitOps.");
}

/// A refused filter body names the key and the line that is wrong: a bad
/// value under its key, a key typo with the key it is nearest to.
#[test]
fn a_refused_filter_names_the_key_and_its_line() {
    let s = Scratch::new();
    open_gate(&s, "s1");
    let set = |script: &str| {
        (
            "condition_set",
            json!({"step": "pre", "matcher": "edit", "name": "f", "language": "filter",
                "script": script, "scope": "directory", "session_id": "s1", "cwd": s.repo}),
        )
    };
    let results = mcp(
        &s,
        &[
            set("fields: [content]\nmode: sometimes\n"),
            set("finders:\n  - regex: x\n    reasn: r\n"),
        ],
    );
    let wanted = [
        "pre-edit-f.filter.yaml:2:7: mode: unknown variant `sometimes`",
        "pre-edit-f.filter.yaml:3:5: unknown key `reasn` (did you mean `reason`?)",
    ];
    for (result, want) in results.iter().zip(wanted) {
        assert_eq!(result["isError"], true, "{result}");
        assert!(text(result).contains(want), "no {want:?} in {result}");
    }
    assert!(!s.repo.join(".agentihooks/conditions").exists());
}
