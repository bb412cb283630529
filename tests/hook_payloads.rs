//! Payloads an attacker (or a confused model) can shape, through the real
//! `hookdex hook`: a stray character that strict JSON refuses must not hide
//! a command from its guard; only Copilot batches; a batch is judged per
//! distinct call without a copy of itself per call; an oversized payload is
//! let through with a note; what rules print is bounded.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

fn deny_kubectl(s: &Scratch) {
    condition(
        &s.runtime(),
        "pre-bash.kubectl-deny.sh",
        &decider("deny", "no kubectl"),
    );
}

#[test]
fn a_stray_surrogate_or_huge_number_does_not_hide_the_command() {
    let s = Scratch::new();
    deny_kubectl(&s);
    let payload = pre_bash(&s, "claude", "kubectl delete pod web-0").to_string();
    // The model wrote a lone surrogate into the description and a number no
    // f64 holds into the timeout: strict JSON refuses both.
    let odd = payload.replacen(
        "\"tool_input\":{",
        "\"tool_input\":{\"description\":\"x\\ud800y\",\"timeout\":1e400,",
        1,
    );
    assert_ne!(odd, payload, "the payload fixture changed shape");
    assert!(
        serde_json::from_str::<Value>(&odd).is_err(),
        "strict JSON refuses it"
    );
    let hooked = hook_bytes(&s, "claude", None, odd.as_bytes());
    assert_eq!(
        hooked.reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{}",
        hooked.reply
    );
}

#[test]
fn nesting_past_the_parsers_limit_does_not_hide_the_command() {
    let s = Scratch::new();
    deny_kubectl(&s);
    let payload = pre_bash(&s, "claude", "kubectl delete pod web-0").to_string();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let odd = payload.replacen(
        "\"tool_input\":{",
        &format!("\"tool_input\":{{\"x\":{deep},"),
        1,
    );
    assert_ne!(odd, payload, "the payload fixture changed shape");
    assert!(
        serde_json::from_str::<Value>(&odd).is_err(),
        "past serde_json's limit"
    );
    let hooked = hook_bytes(&s, "claude", None, odd.as_bytes());
    assert_eq!(
        hooked.reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{}",
        hooked.reply
    );
}

#[test]
fn only_copilot_reads_a_batch() {
    let s = Scratch::new();
    deny_kubectl(&s);
    // A Claude payload carrying Copilot's batch key is still one call, and
    // its own command is what is judged.
    let mut payload = pre_bash(&s, "claude", "kubectl delete pod web-0");
    payload["toolCalls"] = json!([{"name": "bash", "args": {"command": "ls"}}]);
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
}

#[test]
fn a_large_batch_is_judged_per_distinct_call() {
    let s = Scratch::new();
    // The rule logs each call it sees.
    let seen = s.path("home/seen.log");
    condition(
        &s.runtime(),
        "pre-bash.kubectl-count.sh",
        &format!("cat > /dev/null; echo x >> '{}'\n", seen.display()),
    );
    let mut calls: Vec<Value> = (0..10_000)
        .map(|_| json!({"name": "bash", "args": {"command": "kubectl get pods"}}))
        .collect();
    calls.push(json!({"name": "bash", "args": {"command": "kubectl delete pod x"}}));
    let batch = json!({"sessionId": "s", "cwd": s.repo.display().to_string(), "toolCalls": calls});
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        batch.to_string().as_bytes(),
    );
    assert_eq!(hooked.reply, Value::Null, "{}", hooked.reply);
    let runs = std::fs::read_to_string(&seen).unwrap().lines().count();
    assert_eq!(runs, 2, "10,001 calls, 2 distinct");
}

#[test]
fn an_oversized_payload_is_let_through_with_a_note() {
    let s = Scratch::new();
    deny_kubectl(&s);
    let mut payload = pre_bash(&s, "claude", "kubectl delete pod web-0");
    payload["tool_input"]["description"] = json!("x".repeat(17 << 20));
    let hooked = hook_bytes(&s, "claude", None, payload.to_string().as_bytes());
    let keys: Vec<&String> = hooked.reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["systemMessage"], "a note, no decision");
    let last = hook_log(&s).pop().unwrap();
    assert!(last["notes"].to_string().contains("not judged"), "{last}");
}

#[test]
fn what_rules_print_is_bounded() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-chatty.sh",
        "head -c 200000 /dev/zero | tr '\\0' 'y'; echo\n",
    );
    condition(
        &s.runtime(),
        "pre-bash.kubectl-deny.sh",
        "head -c 200000 /dev/zero | tr '\\0' 'n' >&2; exit 2\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "kubectl get pods"));
    let out = &reply["hookSpecificOutput"];
    let reason = out["permissionDecisionReason"].as_str().unwrap();
    let context = out["additionalContext"].as_str().unwrap();
    for text in [reason, context] {
        assert!(text.len() <= 10_100, "{}", text.len());
        assert!(
            text.ends_with("more bytes cut]"),
            "{}",
            &text[text.len() - 60..]
        );
    }
    let log = std::fs::read_to_string(s.path("hookdex-home/logs/hook.log")).unwrap();
    assert!(
        log.lines().all(|l| l.len() <= 16 << 10),
        "log lines are bounded"
    );
}
