//! Failing conditions fail open: crashes, odd exit codes, signals and unstartable
//! scripts; Copilot batches judged call by call; `exit 2` after a tool ran.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

#[test]
fn a_crashing_condition_is_named_and_does_not_deny() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-crash.py",
        "import json, sys\nprint(json.dumps({'decision': 'deny', 'reason': 'half done'}))\nsys.stdout.flush()\nraise RuntimeError('boom')\n",
    );
    condition(&s.runtime(), "pre-bash-note.sh", "echo 'still here'\n");
    condition(
        &s.hookdex_dir(),
        "pre-bash-rw.py",
        "import json\nprint(json.dumps({'tool_input': {'command': 'ls -la'}, 'decision': 'allow'}))\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let out = &reply["hookSpecificOutput"];
    assert_eq!(
        out["permissionDecision"], "allow",
        "a crash never denies: {reply}"
    );
    assert_eq!(out["updatedInput"]["command"], "ls -la", "{reply}");
    let context = out["additionalContext"].as_str().unwrap();
    assert!(context.contains("still here"), "{context}");
    let note = context
        .lines()
        .find(|l| l.contains("pre-bash-crash.py"))
        .unwrap_or_else(|| panic!("no note naming the crash: {context}"));
    assert!(
        note.starts_with("hookdex: condition pre-bash-crash.py skipped (exit 1"),
        "{note}"
    );
    assert!(note.contains("RuntimeError: boom"), "{note}");
    assert!(
        !context.contains("half done"),
        "a crash's stdout is not applied"
    );

    let log = hook_log(&s);
    let last = log.last().unwrap();
    assert!(
        last["notes"].to_string().contains("pre-bash-crash.py"),
        "the crash is logged: {last}"
    );
}

#[test]
fn odd_exit_codes_signals_and_unstartable_scripts_fail_open() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash-seven.sh",
        "echo 'deny me' >&2; exit 7\n",
    );
    condition(&s.runtime(), "pre-bash-killed.sh", "kill -9 $$\n");
    let direct = condition(
        &s.runtime(),
        "pre-bash-direct.bin",
        "#!/bin/sh\necho 'no' >&2\nexit 2\n",
    );
    let payload = pre_bash(&s, "claude", "ls");
    // Executable: it runs and denies.
    let reply = hook(&s, "claude", &payload);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    // No longer executable after the index was built: it cannot start, and nothing denies.
    set_executable(&direct, false);
    let reply = hook(&s, "claude", &payload);
    let out = &reply["hookSpecificOutput"];
    assert!(out.get("permissionDecision").is_none(), "{reply}");
    let context = out["additionalContext"].as_str().unwrap();
    let notes: Vec<&str> = context.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        notes
            .iter()
            .all(|l| l.starts_with("hookdex: condition ") && l.contains(" skipped (")),
        "only one-line notes: {context}"
    );
    assert!(
        notes
            .iter()
            .any(|l| l.starts_with("hookdex: condition pre-bash-seven.sh skipped (exit 7")),
        "{context}"
    );
    assert!(
        notes.iter().any(
            |l| l.starts_with("hookdex: condition pre-bash-killed.sh skipped (")
                && l.contains("signal 9")
        ),
        "{context}"
    );
}

#[test]
fn copilot_batches_are_judged_call_by_call() {
    let s = examples();
    let batch = json!({
        "sessionId": "c0p1l07-5e55-4a1b-8c2d-3e4f5a6b7c8d",
        "timestamp": 1785600000000u64,
        "cwd": s.repo.display().to_string(),
        "toolCalls": [
            {"name": "bash", "args": "{\"command\":\"kubectl get pods\"}"},
            {"name": "bash", "args": {"command": "kubectl delete pod web-0"}},
        ],
    });
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        batch.to_string().as_bytes(),
    );
    assert_eq!(
        hooked.reply,
        json!({"permissionDecision": "deny", "permissionDecisionReason": "kubectl writes go through GitOps"})
    );
    let mut reads = batch.clone();
    reads["toolCalls"][1]["args"] = json!({"command": "kubectl describe pod web-0"});
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        reads.to_string().as_bytes(),
    );
    assert_eq!(hooked.reply, Value::Null);
}

#[test]
fn post_exit_2_blocks_per_harness() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "post-bash-red.sh",
        "echo 'tests failed: fix them first' >&2\nexit 2\n",
    );
    let reason = "tests failed: fix them first";
    for target in TARGETS {
        let reply = hook(&s, target, &fixture(&s, &format!("{target}-post-bash")));
        let want = match target {
            "claude" | "codex" => json!({"decision": "block", "reason": reason}),
            "gemini" => json!({"decision": "deny", "reason": reason}),
            // Copilot withholds the output through `modifiedResult`.
            "copilot" => {
                json!({"modifiedResult": {"resultType": "denied", "textResultForLlm": reason}})
            }
            _ => Value::Null,
        };
        assert_eq!(reply, want, "{target}");
    }
}

#[test]
fn a_broken_hook_command_exits_0_with_a_log_line_and_a_note() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-bash.ls-deny.sh",
        "echo '{\"decision\": \"deny\"}'\n",
    );
    let payload = pre_bash(&s, "claude", "ls").to_string();
    for (args, note) in [
        (&["hook"][..], false),
        (&["hook", "--target", "vim"][..], false),
        (&["hook", "--target=codexx"][..], false),
        (&["hook", "--target", "codex", "--frobnicate"][..], true),
        (&["hook", "--target=gemini", "--event"][..], true),
        (
            &["hook", "--target", "copilot", "--evnt", "preToolUse"][..],
            false,
        ),
    ] {
        let out = s.run_stdin(args, payload.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: a harness reads non-zero as a deny"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if note {
            let reply: Value = serde_json::from_str(&stdout).unwrap();
            let message = reply["systemMessage"].as_str().unwrap();
            assert!(
                message.contains("hook command is broken"),
                "{args:?}: {message}"
            );
            assert_eq!(
                reply.as_object().unwrap().len(),
                1,
                "a note decides nothing: {reply}"
            );
        } else {
            // No channel to the person (Copilot), or no target to shape it for.
            assert!(stdout.is_empty(), "{args:?}: {stdout}");
        }
        let last = hook_log(&s).pop().expect("a log line");
        let logged = last["notes"].to_string();
        assert!(
            logged.contains("no rule ran")
                && logged.contains(args[args.len() - 1].trim_start_matches("--target=")),
            "{args:?}: {logged}"
        );
    }
}
