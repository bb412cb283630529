//! `hookdex doctor` and the mistakes it reports, seen where they matter:
//! the real binary on a scratch HOME. The once-per-session notice of the
//! hook (first call of a session tells, later calls do not, another
//! session tells again, nothing when all is well), `compile --check`'s
//! shadowing warning, and doctor's checks with their fix lines.

mod common;

use common::hook::{hook, pre_bash};
use common::*;
use serde_json::Value;

/// The Claude pre-bash payload of `session`.
fn call(s: &Scratch, session: &str) -> Value {
    let mut payload = pre_bash(s, "claude", "ls");
    payload["session_id"] = session.into();
    payload
}

/// The message the person is shown in a Claude reply, if any.
fn told(reply: &Value) -> Option<String> {
    reply
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[test]
fn an_invalid_rule_is_told_once_per_session() {
    let s = Scratch::new();
    rule(&s.runtime(), "bad.sh");
    rule(&s.runtime(), "pre-bash-ok.sh");

    let first = told(&hook(&s, "claude", &call(&s, "session-a")));
    assert_eq!(
        first.as_deref(),
        Some("hookdex: 1 rule file is invalid and will not run (hookdex doctor)")
    );
    assert_eq!(told(&hook(&s, "claude", &call(&s, "session-a"))), None);
    assert!(told(&hook(&s, "claude", &call(&s, "session-b"))).is_some());
}

#[test]
fn nothing_is_told_when_the_rules_are_fine() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-ok.sh");
    assert_eq!(hook(&s, "claude", &call(&s, "session-a")), Value::Null);
}

#[test]
fn a_missing_profile_and_a_shadowing_rule_are_told() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    s.write_state(&serde_json::json!({"bundle": bundle, "profiles": ["ghost"]}));
    let message = told(&hook(&s, "claude", &call(&s, "session-a"))).unwrap();
    assert_eq!(
        message,
        "hookdex: 1 rule file is invalid and will not run; 1 rule shadows a rule of a \
         profile, bundle or the package (hookdex doctor)"
    );
}

#[test]
fn compile_check_warns_of_a_shadowing_rule_and_keeps_its_exit_code() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let shipped = rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    let mine = rule(&s.runtime(), "pre-bash-x.sh");
    let out = s.run(&["compile", "--check", "--bundle", bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = format!(
        "warning: {}: overrides {} (bundle) with the same key",
        mine.display(),
        shipped.display()
    );
    assert!(stderr.contains(&want), "{stderr}");
}
