//! `hookdex try`: a call run as the hook would run it, reported rule by rule
//! (a deny, an allow with a rewrite, a rule that crashes), with the merged
//! answer and what the harness does, in human and `--json` form, from flags
//! or a harness payload; a report exits 0 whatever the decision, leaves no
//! hook-log line and no state in the real session.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const GUARD: &str = "#!/bin/bash\n\
input=$(cat)\n\
case \"$input\" in *delete*) echo 'kubectl writes go through GitOps' >&2; exit 2;; esac\n\
echo 'kubectl read'\n";

const SHORT_LOG: &str = "#!/bin/bash\n\
echo '{\"tool_input\": {\"command\": \"git log -20\"}, \"decision\": \"allow\", \"reason\": \"short log\"}'\n";

const BROKEN: &str = "#!/bin/bash\necho 'it broke' >&2\nexit 1\n";

fn setup() -> Scratch {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-bash.kubectl-guard.sh", GUARD);
    condition(&s.runtime(), "pre-bash.git-short.sh", SHORT_LOG);
    condition(&s.runtime(), "pre-bash.rm-broken.sh", BROKEN);
    s
}

fn tried(s: &Scratch, args: &[&str]) -> Value {
    let mut all = vec!["try", "--json"];
    all.extend_from_slice(args);
    s.json(&all)
}

fn rule<'a>(report: &'a Value, file: &str) -> &'a Value {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == file)
        .unwrap_or_else(|| panic!("{file} ran: {report}"))
}

#[test]
fn a_deny_is_reported_and_exits_zero() {
    let s = setup();
    let out = s.run(&["try", "--tool", "Bash", "--command", "kubectl delete pod x"]);
    assert_success(&out, &["try"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tool      bash (target claude, session hookdex-try)"),
        "{text}"
    );
    assert!(
        text.contains(
            "DENY   pre-bash.kubectl-guard.sh  runtime  kubectl writes go through GitOps"
        ),
        "{text}"
    );
    assert!(
        text.contains("merged    deny: kubectl writes go through GitOps"),
        "{text}"
    );
    assert!(
        text.contains("claude: the call is denied: kubectl writes go through GitOps"),
        "{text}"
    );
    let report = tried(&s, &["--tool", "Bash", "--command", "kubectl delete pod x"]);
    assert_eq!(report["tool"], "bash");
    assert_eq!(report["target"], "claude");
    let guard = rule(&report, "pre-bash.kubectl-guard.sh");
    assert_eq!(guard["layer"], "runtime");
    assert_eq!(guard["decision"], "deny");
    assert_eq!(report["merged"]["decision"], "deny");
    assert_eq!(
        report["merged"]["reason"],
        "kubectl writes go through GitOps"
    );
    assert_eq!(report["rules"].as_array().unwrap().len(), 1, "{report}");
    assert!(hook_log(&s).is_empty(), "try leaves no hook-log line");
}

#[test]
fn an_allow_with_a_rewrite_and_context() {
    let s = setup();
    let report = tried(
        &s,
        &["--tool", "Bash", "--command", "kubectl get pods && git log"],
    );
    let short = rule(&report, "pre-bash.git-short.sh");
    assert_eq!(short["decision"], "allow");
    assert_eq!(short["reason"], "short log");
    assert_eq!(short["rewrite"], json!({"command": "git log -20"}));
    let guard = rule(&report, "pre-bash.kubectl-guard.sh");
    assert_eq!(guard["decision"], "none");
    assert_eq!(guard["context"], "kubectl read");
    let merged = &report["merged"];
    assert_eq!(merged["decision"], "allow");
    assert_eq!(merged["context"], "kubectl read");
    assert_eq!(merged["rewrite"], json!({"command": "git log -20"}));
    let harness = report["harness"].as_str().unwrap();
    assert!(
        harness.starts_with("claude: the call is allowed: short log, with its input rewritten"),
        "{harness}"
    );
    let out = s.run(&["try", "--tool", "Bash", "--command", "git log"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("       rewrite  {\"command\":\"git log -20\"}"),
        "{text}"
    );
    assert!(
        text.contains("rewrite   {\"command\":\"git log -20\"}"),
        "{text}"
    );
}

#[test]
fn a_broken_rule_is_reported_not_a_crash() {
    let s = setup();
    let report = tried(&s, &["--tool", "Bash", "--command", "rm -rf build"]);
    let broken = rule(&report, "pre-bash.rm-broken.sh");
    assert_eq!(broken["decision"], "none");
    assert_eq!(broken["error"], "exit 1: it broke");
    assert_eq!(report["merged"]["decision"], "none");
    assert!(report["harness"]
        .as_str()
        .unwrap()
        .starts_with("claude: the call goes on as usual"));
    let out = s.run(&["try", "--tool", "Bash", "--command", "rm -rf build"]);
    assert_success(&out, &["try"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ERROR  pre-bash.rm-broken.sh  runtime  skipped: exit 1: it broke"),
        "{text}"
    );
}

#[test]
fn nothing_fires() {
    let s = setup();
    let out = s.run(&["try", "--tool", "Read", "--path", "src/a.rs"]);
    assert_success(&out, &["try"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no rule ran for this call"), "{text}");
    assert!(text.contains("merged    none"), "{text}");
    assert!(text.contains("claude: the call goes on as usual"), "{text}");
}

#[test]
fn a_payload_from_a_file_or_stdin() {
    let s = setup();
    let payload = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "real-session",
        "tool_name": "Bash",
        "tool_input": {"command": "kubectl delete ns prod"},
        "cwd": s.repo,
    });
    let file = s.root.join("payload.json");
    std::fs::write(&file, payload.to_string()).unwrap();
    let report = tried(&s, &["--payload", file.to_str().unwrap()]);
    assert_eq!(report["merged"]["decision"], "deny");
    assert_eq!(
        report["session"], "hookdex-try",
        "the real session is left alone"
    );
    let out = s.run_stdin(
        &["try", "--json", "--payload", "-", "--session", "mine"],
        payload.to_string().as_bytes(),
    );
    assert_success(&out, &["try", "--payload", "-"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["session"], "mine");
    assert_eq!(report["merged"]["decision"], "deny");
}

#[test]
fn the_other_harness_says_what_it_does() {
    let s = setup();
    let report = tried(
        &s,
        &[
            "--tool",
            "shell",
            "--command",
            "kubectl delete pod x",
            "--target",
            "codex",
        ],
    );
    assert_eq!(report["tool"], "bash");
    assert!(
        report["harness"]
            .as_str()
            .unwrap()
            .starts_with("codex: the call is denied: kubectl writes go through GitOps"),
        "{report}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let s = setup();
    // clap's own message, whole: the reason, usage and a pointer to help.
    for args in [
        &["try"][..],
        &["try", "--tool", "Bash", "--payload", "x.json"],
        &["try", "--tool", "Bash", "--input", "[1]"],
    ] {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    }
    for args in [
        &["try", "--payload", "/nonexistent/payload.json"][..],
        // Bounded as the hook's read is, not read to the end.
        &["try", "--payload", "/dev/zero"],
    ] {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let out = s.run_stdin(&["try", "--payload", "-"], b"not json at all");
    assert_eq!(out.status.code(), Some(2));
}

/// A tool result no harness sent leaves no count in `hookdex stats`; the
/// same result through the hook does.
#[test]
fn a_trial_is_not_counted_in_the_stats() {
    let s = Scratch::new();
    let output: String = (0..400)
        .map(|i| format!("line {i} of some build output\n"))
        .collect();
    let payload = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "mytool run"}, "tool_response": {"stdout": output},
        "cwd": s.repo,
    })
    .to_string();
    let stats = s.root.join("hookdex-home/stats");
    let out = s.run_stdin(&["try", "--payload", "-"], payload.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !stats.exists(),
        "try counted its call in {}",
        stats.display()
    );
    s.run_stdin(&["hook", "--target", "claude"], payload.as_bytes());
    assert!(
        stats.exists(),
        "the hook counted nothing: the test proves nothing"
    );
}
