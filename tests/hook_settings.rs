//! Settings that change what runs or applies: `CONDITIONS_ENABLED`, and input rewrites
//! under each permission mode.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

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
            "additionalContext": "hookdex: this call's input was rewritten by pre-bash-rw.py before it ran; it ran as: git log --oneline -20",
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
            "additionalContext": "hookdex: this call's input was rewritten by pre-bash-rw.py before it ran; it ran as: git log --oneline -20",
        }})
    );
    // Codex: ask becomes deny, and a denied call is not rewritten (nor
    // said to be).
    let reply = hook(&s, "codex", &pre_bash(&s, "codex", "git log"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    assert!(out.get("updatedInput").is_none(), "{reply}");
    assert!(!reply.to_string().contains("rewritten"), "{reply}");
    // A deny anywhere drops the rewrite.
    condition(&s.managed(), "pre-bash-no.sh", "echo 'no' >&2; exit 2\n");
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "git log"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    assert!(out.get("updatedInput").is_none(), "{reply}");
}
