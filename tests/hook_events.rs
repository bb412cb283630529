//! Every lifecycle event through `hookdex hook`, on each harness that has
//! it: a fixture payload (`tests/fixtures/payloads/<target>-<event>.json`)
//! and the exact reply. Event steps' replies take their event's own shape
//! (Claude's PermissionRequest answers in `decision.behavior`, a Stop
//! blocks with `decision: "block"`); observe-only events never block;
//! post and Stop blocks are capped per session; an event hookdex does not
//! know runs nothing.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const CONTEXT: &str = "echo 'Staging is frozen until Monday.'\n";
const GUARD: &str = "echo 'no deploys on Friday' >&2\nexit 2\n";
/// A Stop rule that keeps its stdin in `dir` and blocks.
fn tests_fail(dir: &std::path::Path) -> String {
    format!(
        "cat > '{}/stop-stdin.'$$\necho 'the tests are failing' >&2\nexit 2\n",
        dir.display()
    )
}

fn with_event(s: &Scratch, target: &str, name: &str, event: &str) -> Value {
    let payload = fixture(s, name);
    hook_bytes(s, target, Some(event), payload.to_string().as_bytes()).reply
}

#[test]
fn user_prompt_submit_takes_context_and_blocks_in_each_harness_shape() {
    let s = Scratch::new();
    let ctx = condition(&s.runtime(), "prompt-context.sh", CONTEXT);
    let cases: &[(&str, &str, Option<&str>, Value)] = &[
        (
            "claude",
            "claude-prompt",
            None,
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Staging is frozen until Monday."}}),
        ),
        (
            "codex",
            "codex-prompt",
            None,
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Staging is frozen until Monday."}}),
        ),
        (
            "gemini",
            "gemini-prompt",
            None,
            json!({"hookSpecificOutput": {"additionalContext": "Staging is frozen until Monday."}}),
        ),
        // Copilot and Cursor read no context at the prompt.
        (
            "copilot",
            "copilot-prompt",
            Some("userPromptSubmitted"),
            Value::Null,
        ),
        ("cursor", "cursor-prompt", None, Value::Null),
    ];
    for (target, name, event, want) in cases {
        let reply = match event {
            Some(event) => with_event(&s, target, name, event),
            None => hook(&s, target, &fixture(&s, name)),
        };
        assert_eq!(&reply, want, "{target}");
    }
    std::fs::remove_file(ctx).unwrap();
    condition(&s.runtime(), "prompt-guard.sh", GUARD);
    let blocks: &[(&str, &str, Value)] = &[
        (
            "claude",
            "claude-prompt",
            json!({"decision": "block", "reason": "no deploys on Friday"}),
        ),
        (
            "gemini",
            "gemini-prompt",
            json!({"decision": "deny", "reason": "no deploys on Friday"}),
        ),
        (
            "cursor",
            "cursor-prompt",
            json!({"continue": false, "user_message": "no deploys on Friday"}),
        ),
    ];
    for (target, name, want) in blocks {
        assert_eq!(&hook(&s, target, &fixture(&s, name)), want, "{target}");
    }
}

#[test]
fn session_start_takes_context_by_its_source() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "start-startup-notes.sh",
        "echo 'lab notes: use make'\n",
    );
    let want = json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "lab notes: use make"}});
    assert_eq!(hook(&s, "claude", &fixture(&s, "claude-start")), want);
    assert_eq!(hook(&s, "codex", &fixture(&s, "codex-start")), want);
    assert_eq!(
        hook(&s, "gemini", &fixture(&s, "gemini-start")),
        json!({"hookSpecificOutput": {"additionalContext": "lab notes: use make"}})
    );
    let mut resumed = fixture(&s, "claude-start");
    resumed["source"] = json!("resume");
    assert_eq!(hook(&s, "claude", &resumed), Value::Null, "another source");
    // Cursor sends no source: an `any` rule answers it.
    condition(&s.runtime(), "start-any-cursor.sh", "echo 'cursor notes'\n");
    assert_eq!(
        hook(&s, "cursor", &fixture(&s, "cursor-start")),
        json!({"additional_context": "cursor notes"})
    );
}

#[test]
fn a_stop_is_blocked_five_times_in_a_row_then_goes_through() {
    let s = Scratch::new();
    condition(&s.runtime(), "stop-tests.sh", &tests_fail(&s.home()));
    let block = json!({"decision": "block", "reason": "the tests are failing"});
    let stop = fixture(&s, "claude-stop");
    for round in 1..=5 {
        assert_eq!(hook(&s, "claude", &stop), block, "round {round}");
    }
    let sixth = hook(&s, "claude", &stop);
    assert!(sixth.get("decision").is_none(), "{sixth}");
    let message = sixth["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("{sixth}"));
    assert!(
        message.contains("Stop was blocked 5 times in a row"),
        "{message}"
    );
    assert_eq!(hook(&s, "claude", &stop), block, "the count starts again");
    // The script read the payload, `stop_hook_active` and all.
    let seen: Vec<Value> = std::fs::read_dir(s.home())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("stop-stdin."))
        .map(|e| serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap())
        .collect();
    assert!(!seen.is_empty() && seen.iter().all(|p| p["stop_hook_active"] == json!(false)));
    // Another session has its own count; a prompt ends a session's run.
    let mut other = stop.clone();
    other["session_id"] = json!("another-session");
    assert_eq!(hook(&s, "claude", &other), block);

    let blocks: &[(&str, &str, Option<&str>, Value)] = &[
        ("codex", "codex-stop", None, block.clone()),
        (
            "gemini",
            "gemini-stop",
            None,
            json!({"decision": "deny", "reason": "the tests are failing"}),
        ),
        (
            "copilot",
            "copilot-stop",
            Some("agentStop"),
            json!({"decision": "block", "reason": "the tests are failing"}),
        ),
        (
            "cursor",
            "cursor-stop",
            None,
            json!({"followup_message": "the tests are failing"}),
        ),
    ];
    for (target, name, event, want) in blocks {
        let reply = match event {
            Some(event) => with_event(&s, target, name, event),
            None => hook(&s, target, &fixture(&s, name)),
        };
        assert_eq!(&reply, want, "{target}");
    }
}

#[test]
fn concurrent_stops_of_one_session_share_the_cap() {
    let s = Scratch::new();
    condition(&s.runtime(), "stop-tests.sh", GUARD);
    let stop = fixture(&s, "claude-stop").to_string();
    let replies: Vec<Value> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..6)
            .map(|_| scope.spawn(|| hook_bytes(&s, "claude", None, stop.as_bytes()).reply))
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let blocked = replies.iter().filter(|r| r["decision"] == "block").count();
    assert_eq!(blocked, 5, "{replies:?}");
}

#[test]
fn a_permission_request_is_answered_in_decision_behavior() {
    let s = Scratch::new();
    let allow = condition(
        &s.runtime(),
        "permission-bash-npm_ok.sh",
        "echo '{\"decision\": \"allow\"}'\n",
    );
    let want = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}});
    assert_eq!(hook(&s, "claude", &fixture(&s, "claude-permission")), want);
    assert_eq!(hook(&s, "codex", &fixture(&s, "codex-permission")), want);
    assert_eq!(
        with_event(&s, "copilot", "copilot-permission", "permissionRequest"),
        json!({"behavior": "allow"})
    );
    std::fs::remove_file(allow).unwrap();
    condition(
        &s.runtime(),
        "permission-bash-no_tests.sh",
        "echo 'not now' >&2\nexit 2\n",
    );
    let want = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not now"}}});
    assert_eq!(hook(&s, "claude", &fixture(&s, "claude-permission")), want);
    assert_eq!(
        with_event(&s, "copilot", "copilot-permission", "permissionRequest"),
        json!({"behavior": "deny", "message": "not now"})
    );
}

#[test]
fn a_failed_call_reaches_fail_and_post_rules() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "fail-bash-hint.sh",
        "echo 'try npm test -- --verbose'\n",
    );
    assert_eq!(
        hook(&s, "claude", &fixture(&s, "claude-fail")),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "try npm test -- --verbose"}})
    );
}

#[test]
fn a_post_block_is_capped_at_three_in_a_row() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "post-bash-review.sh",
        "echo 'review this output' >&2\nexit 2\n",
    );
    let post = fixture(&s, "claude-post-bash");
    for round in 1..=3 {
        let reply = hook(&s, "claude", &post);
        assert_eq!(reply["decision"], "block", "round {round}: {reply}");
    }
    let fourth = hook(&s, "claude", &post);
    assert!(fourth.get("decision").is_none(), "{fourth}");
    assert!(
        context_of(&fourth).contains("blocked 3 times in a row"),
        "{fourth}"
    );
}

#[test]
fn observe_only_events_run_their_rules_but_never_block() {
    let s = Scratch::new();
    let rules = [
        (
            "notify-permission_prompt-ping.sh",
            "claude-notify",
            "notified",
        ),
        ("compact-auto-backup.sh", "claude-compact", "compacted"),
        ("end-any-bye.sh", "claude-end", "ended"),
        ("substop-explore-check.sh", "claude-substop", "substopped"),
    ];
    for (rule, _, mark) in rules {
        condition(
            &s.runtime(),
            rule,
            &format!(
                "touch '{}/{mark}'\necho 'stop everything' >&2\nexit 2\n",
                s.home().display()
            ),
        );
    }
    for (_, name, mark) in rules {
        assert_eq!(
            hook(&s, "claude", &fixture(&s, name)),
            Value::Null,
            "{name}"
        );
        assert!(s.home().join(mark).exists(), "{name}: its rule ran");
    }
    let logged = hook_log(&s).iter().any(|l| {
        l.to_string()
            .contains("observe-only event Notification: block (stop everything) not applied")
    });
    assert!(logged, "{:?}", hook_log(&s));
    // PostCompact runs the same `compact` rules (AH_EVENT tells them apart).
    std::fs::remove_file(s.home().join("compacted")).unwrap();
    assert_eq!(
        hook(&s, "claude", &fixture(&s, "claude-postcompact")),
        Value::Null
    );
    assert!(
        s.home().join("compacted").exists(),
        "PostCompact ran the compact rule"
    );
    // A manual compaction is not the auto rule's.
    std::fs::remove_file(s.home().join("compacted")).unwrap();
    let mut manual = fixture(&s, "claude-compact");
    manual["trigger"] = json!("manual");
    hook(&s, "claude", &manual);
    assert!(!s.home().join("compacted").exists());
}

#[test]
fn an_event_no_harness_table_knows_runs_nothing() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-any-deny_all.sh", GUARD);
    let mut payload = fixture(&s, "claude-pre-bash");
    payload["hook_event_name"] = json!("Whenever");
    assert_eq!(hook(&s, "claude", &payload), Value::Null);
    let gemini = replaced(&fixture(&s, "gemini-pre-bash"), "BeforeTool", "BeforeModel");
    assert_eq!(hook(&s, "gemini", &gemini), Value::Null);
    assert!(hook_log(&s)
        .iter()
        .any(|l| l.to_string().contains("unknown event Whenever")));
}

#[test]
fn list_says_which_rules_a_harness_can_never_reach() {
    let s = Scratch::new();
    condition(&s.runtime(), "notify-any-ping.sh", "true\n");
    condition(&s.runtime(), "stop-tests.sh", "true\n");
    let listed = s.list(&["--target", "codex"]);
    let warnings = listed["warnings"].to_string();
    assert!(
        warnings.contains("unreachable on codex: it sends no Notification event"),
        "{warnings}"
    );
    assert!(!warnings.contains("stop rule never runs"), "{warnings}");
    let listed = s.list(&["--target", "claude"]);
    assert!(
        !listed["warnings"].to_string().contains("unreachable"),
        "{listed}"
    );
}

#[test]
fn a_stop_blocked_by_a_json_deny_is_capped_too_and_a_prompt_ends_the_run() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "stop-json.sh",
        "echo '{\"decision\": \"deny\", \"reason\": \"not yet\"}'\n",
    );
    let stop = fixture(&s, "claude-stop");
    for round in 1..=5 {
        let reply = hook(&s, "claude", &stop);
        assert_eq!(reply["decision"], "block", "round {round}: {reply}");
    }
    assert!(hook(&s, "claude", &stop).get("decision").is_none());
    for round in 1..=3 {
        assert_eq!(
            hook(&s, "claude", &stop)["decision"],
            "block",
            "round {round}"
        );
    }
    // The person's prompt (no prompt rule is installed) ends the run: five
    // blocks stand again.
    assert_eq!(
        hook(&s, "claude", &fixture(&s, "claude-prompt")),
        Value::Null
    );
    for round in 1..=5 {
        let reply = hook(&s, "claude", &stop);
        assert_eq!(
            reply["decision"], "block",
            "after the prompt, round {round}: {reply}"
        );
    }
}

#[test]
fn a_permission_allow_given_with_a_rewrite_it_cannot_carry_is_not_sent() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "permission-bash-rewrite.sh",
        "echo '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"npm test -- --ci\"}}'\n",
    );
    assert_eq!(
        hook(&s, "claude", &fixture(&s, "claude-permission")),
        Value::Null
    );
}

#[test]
fn step_tokens_and_unnamed_lifecycle_payloads_run_nothing() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-any-deny_all.sh", GUARD);
    condition(&s.runtime(), "stop-tests.sh", GUARD);
    for name in ["STOP", "pre", "Permission"] {
        let mut payload = fixture(&s, "claude-pre-bash");
        payload["hook_event_name"] = json!(name);
        assert_eq!(hook(&s, "claude", &payload), Value::Null, "{name}");
    }
    // A Copilot agentStop without `--event`: no tool, no name.
    let stop = fixture(&s, "copilot-stop");
    assert_eq!(
        hook_bytes(&s, "copilot", None, stop.to_string().as_bytes()).reply,
        Value::Null
    );
}
