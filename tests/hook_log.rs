//! The hook log (`$HOOKDEX_HOME/logs/hook.log`): what fired, the decision sent, and
//! calls gone wrong.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

#[test]
fn the_hook_log_names_what_fired_and_the_decision() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-readonly.sh",
        KUBECTL_READONLY,
    );
    assert_eq!(
        hook(&s, "claude", &pre_bash(&s, "claude", "ls")),
        Value::Null
    );
    assert!(
        hook_log(&s).is_empty(),
        "a call where nothing fired writes no line: {:?}",
        hook_log(&s)
    );
    hook(
        &s,
        "claude",
        &pre_bash(&s, "claude", "kubectl delete pod web-0"),
    );
    let log = hook_log(&s);
    assert_eq!(log.len(), 1, "{log:?}");
    let line = &log[0];
    assert_eq!(
        line["fired"],
        json!(["pre-bash.kubectl-readonly.sh"]),
        "{line}"
    );
    assert_eq!(line["decision"], "deny", "{line}");
    assert_eq!(line["target"], "claude", "{line}");
    assert_eq!(line["event"], "PreToolUse", "{line}");
    assert_eq!(
        line["session_id"], "5b1f0c2e-8d7a-4c1e-9f3a-2a6d4e8b9c01",
        "{line}"
    );
    assert_eq!(
        line["tool_use_id"], "toolu_01QxL7dM3pA9kWcZ8rYb2VnE",
        "{line}"
    );

    condition(&s.runtime(), "pre-bash.git-short_log.py", GIT_SHORT_LOG);
    hook(&s, "gemini", &pre_bash(&s, "gemini", "git log"));
    let log = hook_log(&s);
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1]["fired"], json!(["pre-bash.git-short_log.py"]));
    assert_eq!(log[1]["decision"], "allow");
    assert_eq!(log[1]["target"], "gemini");

    // A bad payload is logged as gone wrong.
    hook_bytes(&s, "claude", None, b"not json");
    let log = hook_log(&s);
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(
        log[2]["notes"].to_string().contains("payload"),
        "{}",
        log[2]
    );
}
