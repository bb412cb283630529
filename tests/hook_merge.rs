//! How replies from several conditions and layers merge: decision precedence,
//! deny reasons, context order and input patches.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

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
    // Gemini CLI asks only a person at a terminal: headless, a deny that
    // says approval is needed; with HOOKDEX_INTERACTIVE=1, the ask.
    let gemini = hook(&s, "gemini", &pre_bash(&s, "gemini", "make deploy"));
    assert_eq!(gemini["decision"], "deny", "{gemini}");
    assert!(
        gemini["reason"]
            .as_str()
            .unwrap()
            .contains("needs approval"),
        "{gemini}"
    );
    let mut s = s;
    s.set_env("HOOKDEX_INTERACTIVE", "1");
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
