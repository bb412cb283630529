//! Inputs that used to panic the hook process, so it died without an
//! answer instead of failing open: an absurd `CONDITIONS_TIMEOUT_SEC`, and
//! a stdout the harness has closed. `hookdex hook` must exit 0 on both.

mod common;

use std::process::Stdio;

use common::hook::*;
use common::*;
use serde_json::Value;

#[test]
fn an_absurd_timeout_still_runs_the_guard() {
    for timeout in ["1e30", "inf", "1e300", "18446744073709551616"] {
        let mut s = Scratch::new();
        condition(
            &s.runtime(),
            "pre-bash.kubectl-guard.sh",
            "echo 'kubectl writes go through GitOps' >&2; exit 2\n",
        );
        s.set_env("CONDITIONS_TIMEOUT_SEC", timeout);
        let reply = hook(
            &s,
            "claude",
            &pre_bash(&s, "claude", "kubectl delete pod x"),
        );
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"], "deny",
            "CONDITIONS_TIMEOUT_SEC={timeout}: {reply}"
        );
    }
}

#[test]
fn a_closed_stdout_is_not_a_crash() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-note.sh",
        "echo 'a note for the agent'\n",
    );
    let payload = pre_bash(&s, "claude", "ls");
    // The reply is there to be written; the harness has closed the pipe.
    for closed in [Stdio::null(), closed_pipe()] {
        let mut child = s
            .cmd(&["hook", "--target", "claude"])
            .stdin(Stdio::piped())
            .stdout(closed)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(
            &mut child.stdin.take().unwrap(),
            payload.to_string().as_bytes(),
        )
        .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let logged: Vec<Value> = hook_log(&s);
    assert!(
        logged.iter().all(|l| !l.to_string().contains("panicked")),
        "{logged:?}"
    );
}

/// The write end of a pipe whose read end is already closed: writing to it
/// fails with EPIPE (SIGPIPE is ignored here, as the harness's own may be).
fn closed_pipe() -> Stdio {
    // `true` exits without reading: the pipe into it has no reader left.
    let mut reader = std::process::Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = reader.stdin.take().unwrap();
    reader.wait().unwrap();
    Stdio::from(writer)
}

#[test]
fn conditions_start_with_sigpipe_at_its_default() {
    // The hook ignores SIGPIPE for itself; a script's `yes | head` must
    // still end quietly, so its children must not inherit that.
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-sig.sh",
        "mask=$(awk '/^SigIgn/ {print $2}' /proc/self/status)\necho \"sigign $mask\"\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let context = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mask = u64::from_str_radix(context.trim_start_matches("sigign ").trim(), 16)
        .unwrap_or_else(|e| panic!("{context:?}: {e}"));
    let sigpipe = 1u64 << (13 - 1);
    assert_eq!(
        mask & sigpipe,
        0,
        "SIGPIPE is ignored in the condition: {context}"
    );
}

#[test]
fn a_panic_is_logged_and_lets_the_call_through() {
    if !cfg!(debug_assertions) {
        // The fault injection exists only in debug builds of the binary.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"tests/hook_panics.rs: a_panic_is_logged_and_lets_the_call_through SKIPPED: release build\n",
        );
        return;
    }
    let mut s = Scratch::new();
    condition(&s.runtime(), "pre-bash-deny.sh", "exit 2\n");
    s.set_env("HOOKDEX_DEBUG_PANIC", "1");
    let hooked = hook_bytes(
        &s,
        "claude",
        None,
        pre_bash(&s, "claude", "ls").to_string().as_bytes(),
    );
    // No decision: only a note for the person.
    let keys: Vec<&String> = hooked.reply.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["systemMessage"],
        "a panic is no decision: {}",
        hooked.reply
    );
    assert!(hooked.reply["systemMessage"]
        .as_str()
        .unwrap()
        .contains("no guardrail ran"));
    let logged = hook_log(&s);
    assert!(
        logged.iter().any(|l| l["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("hookdex panicked"))),
        "{logged:?}"
    );
}
