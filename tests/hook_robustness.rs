//! Bad input never breaks the hook: malformed or huge payloads, unknown tools, a missing
//! cwd, a corrupt index, and conditions added between calls.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

#[test]
fn bad_payloads_exit_0_and_decide_nothing() {
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
            // Nothing decided: at most a note for the person, where the
            // harness shows one.
            let what = format!("{target} {:?}", String::from_utf8_lossy(bytes));
            match target {
                "claude" | "codex" | "gemini" => {
                    let keys: Vec<&String> = hooked.reply.as_object().unwrap().keys().collect();
                    assert_eq!(keys, ["systemMessage"], "{what}: {}", hooked.reply);
                }
                _ => assert_eq!(hooked.reply, Value::Null, "{what}"),
            }
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
