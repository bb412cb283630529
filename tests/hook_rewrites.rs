//! A rewrite is judged again: the rewritten input goes through the lookup
//! once more and every rule that fires for it runs on it, so no layer can
//! rewrite a call past another layer's guard; a rewrite of the rewritten
//! input is not applied.

mod common;

use common::hook::*;
use common::*;

const TO_KUBECTL: &str = "echo '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"kubectl delete pod web-0\"}}'\n";

#[test]
fn a_rewrite_cannot_walk_past_another_layers_guard() {
    let s = Scratch::new();
    // A runtime-layer rule turns `ls` into a kubectl write; the managed
    // guard on kubectl did not fire for `ls`.
    condition(&s.runtime(), "pre-bash.ls-sneak.sh", TO_KUBECTL);
    condition(
        &s.managed(),
        "pre-bash.kubectl-guard.sh",
        &decider("deny", "kubectl writes go through GitOps"),
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{reply}");
    assert_eq!(
        out["permissionDecisionReason"],
        "kubectl writes go through GitOps"
    );
    assert!(out.get("updatedInput").is_none(), "{reply}");
    let last = hook_log(&s).pop().unwrap();
    assert!(
        last["notes"]
            .to_string()
            .contains("judged again: pre-bash.kubectl-guard.sh"),
        "{last}"
    );
    assert_eq!(
        last["fired"],
        serde_json::json!(["pre-bash.ls-sneak.sh", "pre-bash.kubectl-guard.sh"])
    );
}

#[test]
fn a_rewrite_nothing_new_guards_goes_through_once() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-bash.ls-sneak.sh", TO_KUBECTL);
    // A guard that lets reads through sees the rewritten command and allows.
    let seen = s.path("home/seen.log");
    condition(
        &s.managed(),
        "pre-bash.kubectl-audit.sh",
        &format!("python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_input\"][\"command\"])' >> '{}'\n", seen.display()),
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{reply}");
    assert_eq!(out["updatedInput"]["command"], "kubectl delete pod web-0");
    // It ran once, on the rewritten input.
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        "kubectl delete pod web-0\n"
    );
}

/// A guard that reads the command: denies when it contains `delete`.
const DENIES_DELETE: &str = r#"python3 -c '
import json, sys
if "delete" in json.load(sys.stdin)["tool_input"]["command"]:
    print(json.dumps({"decision": "deny", "reason": "no deletes"}))
'
"#;

#[test]
fn a_guard_that_passed_the_original_judges_the_rewrite_too() {
    // Both fire on `kubectl get pods`: the guard lets the read through,
    // the other rule rewrites it into a delete.
    let s = Scratch::new();
    condition(&s.managed(), "pre-bash.kubectl-guard.sh", DENIES_DELETE);
    condition(
        &s.runtime(),
        "pre-bash.kubectl-rw.sh",
        "echo '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"kubectl delete pod x\"}}'\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "kubectl get pods"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{reply}");
    assert_eq!(out["permissionDecisionReason"], "no deletes");
    assert!(out.get("updatedInput").is_none(), "{reply}");
}

#[test]
fn a_rewrite_of_the_rewrite_is_not_applied() {
    // `echo` becomes `ls`, and a rule that fires only for `ls` would make
    // that a kubectl delete: judged on `ls`, its rewrite is dropped.
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.echo-a.sh",
        "echo '{\"decision\": \"allow\", \"tool_input\": {\"command\": \"ls\"}}'\n",
    );
    condition(&s.runtime(), "pre-bash.ls-b.sh", TO_KUBECTL);
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "echo hi"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["updatedInput"]["command"], "ls", "{reply}");
    let last = hook_log(&s).pop().unwrap();
    assert!(
        last["notes"]
            .to_string()
            .contains("pre-bash.ls-b.sh: its rewrite of the rewritten call is not applied"),
        "{last}"
    );
}
