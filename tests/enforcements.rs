//! `enforcements.json` end to end (SPEC §9, agentihooks' kubectl doctrine):
//! the message is added as context on matching call n of a session when
//! n = 1 or n is a multiple of the cadence; a later source replaces an
//! entry of the same id; a repository's file counts only when it is
//! trusted; counters are per session and shared by concurrent hooks.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const DOCTRINE: &str = "Cluster writes go through GitOps.";

fn enforcements(path: &std::path::Path, body: Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body.to_string()).unwrap();
}

fn told(reply: &Value) -> bool {
    context_of(reply).contains(DOCTRINE)
}

#[test]
fn the_kubectl_doctrine_comes_on_its_cadence_of_matching_calls() {
    let s = Scratch::new();
    enforcements(
        &s.home().join("enforcements.json"),
        json!([{"id": "kubectl-doctrine", "message": DOCTRINE, "cadence": 2, "matcher": "bash.kubectl"}]),
    );
    let kubectl = pre_bash(&s, "claude", "kubectl get pods");
    let mut seen = Vec::new();
    for call in 1..=6 {
        // A call it does not match, between, counts for nothing.
        assert!(!told(&hook(
            &s,
            "claude",
            &pre_bash(&s, "claude", "git status")
        )));
        seen.push((call, told(&hook(&s, "claude", &kubectl))));
    }
    let told_on: Vec<u32> = seen.iter().filter(|(_, t)| *t).map(|(c, _)| *c).collect();
    assert_eq!(told_on, [1, 2, 4, 6]);
    let reply = hook(&s, "claude", &kubectl);
    assert!(!told(&reply), "call 7: {reply}");
    // Another session starts at 1.
    let mut other = kubectl.clone();
    other["session_id"] = json!("another");
    assert_eq!(
        hook(&s, "claude", &other),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": DOCTRINE}})
    );
}

#[test]
fn a_later_source_replaces_an_id_and_an_untrusted_repository_counts_for_nothing() {
    let s = Scratch::new();
    let bundle = s.bundle("team");
    s.write_state(&json!({"bundle": bundle.display().to_string()}));
    enforcements(
        &bundle.join("enforcements.json"),
        json!({"enforcements": [{"id": "doctrine", "message": "from the bundle"}]}),
    );
    enforcements(
        &s.home().join("enforcements.json"),
        json!([{"id": "doctrine", "message": "from the runtime layer"}]),
    );
    enforcements(
        &s.repo.join(".agentihooks/enforcements.json"),
        json!([{"id": "repo-note", "message": "from the repository"}]),
    );
    // The bundle's entry is read, and overridden by the runtime layer's.
    let listed = s.list(&[]).to_string();
    assert!(listed.contains("bundle"), "{listed}");
    let bundle_only = Scratch::new();
    let team = bundle_only.bundle("team");
    bundle_only.write_state(&json!({"bundle": team.display().to_string()}));
    enforcements(
        &team.join("enforcements.json"),
        json!({"enforcements": [{"id": "doctrine", "message": "from the bundle"}]}),
    );
    let reply = hook(
        &bundle_only,
        "claude",
        &pre_bash(&bundle_only, "claude", "ls"),
    );
    assert_eq!(context_of(&reply), "from the bundle", "{reply}");
    // A repository without an origin is the user's own: trusted.
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let context = context_of(&reply);
    assert!(context.contains("from the runtime layer"), "{reply}");
    assert!(!context.contains("from the bundle"), "{reply}");
    assert!(context.contains("from the repository"), "{reply}");
    set_origin(&s.repo, "git@github.com:stranger/tool.git");
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        !context_of(&reply).contains("from the repository"),
        "untrusted: {reply}"
    );
}

#[test]
fn a_bad_entry_is_listed_and_its_neighbours_stay() {
    let s = Scratch::new();
    enforcements(
        &s.home().join("enforcements.json"),
        json!([{"id": "a", "message": "first", "cadence": 0}, {"id": "b", "message": "second"}]),
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(context_of(&reply), "second", "{reply}");
    let listed = s.list(&[]);
    let active = listed["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "enforcement")
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(
        (
            &active["format"],
            &active["enforcement"]["id"],
            &active["enforcement"]["cadence"]
        ),
        (&json!("enforcement"), &json!("b"), &json!(1)),
        "{listed}"
    );
    let listed = s.list(&[]);
    let invalid = listed["invalid"].to_string();
    assert!(
        invalid.contains("enforcements[0]: `a`: `cadence` must be 1 or more"),
        "{invalid}"
    );
}

#[test]
fn concurrent_calls_of_one_session_count_each_call_once() {
    let s = Scratch::new();
    enforcements(
        &s.home().join("enforcements.json"),
        json!([{"id": "every-fourth", "message": DOCTRINE, "cadence": 4}]),
    );
    let payload = pre_bash(&s, "claude", "ls").to_string();
    let told_count = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| told(&hook_bytes(&s, "claude", None, payload.as_bytes()).reply))
            })
            .collect();
        calls
            .into_iter()
            .map(|c| c.join().unwrap())
            .filter(|t| *t)
            .count()
    });
    // Calls 1, 4 and 8 of the session.
    assert_eq!(told_count, 3);
}

#[test]
fn explain_names_the_enforcement_and_its_cadence() {
    let s = Scratch::new();
    enforcements(
        &s.home().join("enforcements.json"),
        json!([{"id": "kubectl-doctrine", "message": DOCTRINE, "cadence": 2, "matcher": "bash.kubectl"}]),
    );
    let out = s.run(&["explain", "--tool", "Bash", "--command", "kubectl get pods"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FIRES  enforcements.json"), "{text}");
    assert!(text.contains("enforcement kubectl-doctrine: context on matching call 1 of a session and on every multiple of 2"), "{text}");
    let json = s.json(&[
        "explain",
        "--tool",
        "Bash",
        "--command",
        "kubectl get pods",
        "--json",
    ]);
    assert_eq!(
        json["fires"][0]["enforcement"],
        json!({"id": "kubectl-doctrine", "cadence": 2})
    );
    let out = s.run(&["explain", "--tool", "Bash", "--command", "git status"]);
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("skip   enforcements.json"));
}
