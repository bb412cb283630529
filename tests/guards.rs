//! Declarative guards (`.guard.yaml`) through the binary, judged by outcome:
//! a program guard's reply applied as Claude Code applies it, the command
//! then run by real bash with a stub `kubectl` on PATH saying what ran —
//! written plainly, past options, behind a `make` the text cannot see (the
//! exec-time guard, on the real kernel); a rewrite to a denied use judged
//! again; path and field guards on file and MCP calls; a broken guard
//! listed with its line while the others stand; a guard's case file run by
//! `hookdex test`.
//!
//! The exec-time part skips, saying why, where the kernel cannot supervise
//! (no seccomp user notification); CI fails instead of skipping.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::hook::*;
use common::*;
use serde_json::{json, Value};

const KUBECTL_GUARD: &str = "pre-bash.kubectl-writes.guard.yaml";
const KUBECTL: &str = "reason: kubectl writes go through GitOps
options: {valued: [-n, --namespace, --context], flags: [--debug]}
deny: [delete, apply, rollout restart]
ask: [scale]
";

/// A tree with the kubectl guard, a stub kubectl first on PATH, and the
/// exec-time guard on where the kernel allows.
struct Tree {
    s: Scratch,
    log: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let mut s = Scratch::new();
        s.set_env("HOOKDEX_ENFORCE", "auto");
        let log = stub_on_path(&mut s, "kubectl");
        rule_with(&s.runtime(), KUBECTL_GUARD, KUBECTL);
        Tree { s, log }
    }

    fn ran(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Claude Code's reply to `command`: its decision, and the command it
    /// runs when it runs one (the rewrite, or the line as it was).
    fn judge(&self, command: &str) -> (String, Option<String>) {
        let reply = hook(&self.s, "claude", &pre_bash(&self.s, "claude", command));
        let out = &reply["hookSpecificOutput"];
        let decision = out["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string();
        let runs = match decision.as_str() {
            "deny" | "ask" => None,
            _ => Some(
                out["updatedInput"]["command"]
                    .as_str()
                    .unwrap_or(command)
                    .to_string(),
            ),
        };
        (decision, runs)
    }

    /// Runs `command` as Claude Code's shell would.
    fn shell(&self, command: &str) -> Output {
        shell(&self.s, command)
    }
}

/// Whether the kernel can supervise execs here; says why not.
fn kernel_guard(test: &str) -> bool {
    let avail =
        std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail").unwrap_or_default();
    let ok = avail.split_whitespace().any(|a| a == "user_notif");
    if !ok {
        let why = format!("{test}: skipped: no seccomp user notification here");
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("{why}");
    }
    ok
}

#[test]
fn a_program_guard_decides_what_the_text_shows_past_its_options() {
    let tree = Tree::new();
    for (line, want) in [
        ("kubectl delete pod x", "deny"),
        ("kubectl -n prod delete pod x", "deny"),
        ("kubectl --namespace=prod --debug apply -f x.yaml", "deny"),
        (
            "sudo kubectl --context c rollout restart deploy/api",
            "deny",
        ),
        // An option it does not know is read with a value and without.
        ("kubectl --made-up delete pod x", "deny"),
        ("kubectl --made-up x delete pod x", "deny"),
        ("echo pod/x | xargs kubectl delete", "deny"),
        ("bash -c 'kube\"\"ctl delete pod x'", "deny"),
        // The verb the text cannot tell: the guard's `cannot_tell` (deny).
        ("kubectl $verb pod x", "deny"),
        ("kubectl scale deploy api --replicas 2", "ask"),
        ("kubectl get pods", "none"),
        ("kubectl rollout status deploy/api", "none"),
        ("kubectl get pod delete", "none"),
        ("kubectl -n delete get pods", "none"),
    ] {
        let (decision, runs) = tree.judge(line);
        assert_eq!(decision, want, "{line}");
        if let Some(command) = runs {
            let before = tree.ran();
            let out = tree.shell(&command);
            assert!(out.status.success(), "{line}: {out:?}");
            assert!(
                tree.ran().len() > before.len(),
                "{line}: kubectl did not run"
            );
        }
    }
    assert!(!tree.ran().contains("delete pod x\n"), "{}", tree.ran());
    // The reason names the use and the guard's reason.
    let reply = hook(
        &tree.s,
        "claude",
        &pre_bash(&tree.s, "claude", "kubectl -n x delete pod y"),
    );
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("`kubectl delete pod` matches `delete`: kubectl writes go through GitOps"),
        "{reason}"
    );
}

#[test]
fn a_kubectl_the_text_cannot_see_is_refused_at_exec_time() {
    if !kernel_guard("a_kubectl_the_text_cannot_see_is_refused_at_exec_time") {
        return;
    }
    let tree = Tree::new();
    let line = "printf 'all:\\n\\tkubectl get pods\\n\\tkubectl -n p delete pod y\\n' > Makefile && make -s; rm -f Makefile";
    let (decision, runs) = tree.judge(line);
    assert_eq!(decision, "none");
    let command = runs.unwrap();
    assert!(command.contains("exec --guard"), "not wrapped: {command}");
    let out = tree.shell(&command);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(tree.ran().contains("get pods"), "the get did not run");
    assert!(
        !tree.ran().contains("delete"),
        "the delete ran: {}",
        tree.ran()
    );
    assert!(
        stderr.contains(&format!(
            "hookdex: {KUBECTL_GUARD}: `kubectl delete pod` matches `delete`"
        )),
        "{stderr}"
    );
}

#[test]
fn a_rewrite_to_a_denied_use_is_judged_again() {
    let tree = Tree::new();
    condition(
        &tree.s.runtime(),
        "pre-bash.kubectl-widen.sh",
        "#!/bin/bash\ncat >/dev/null\necho '{\"tool_input\": {\"command\": \"kubectl delete pod x\"}, \"decision\": \"allow\"}'\n",
    );
    let (decision, _) = tree.judge("kubectl get pods");
    assert_eq!(decision, "deny");
}

#[test]
fn a_path_guard_judges_the_file_a_tool_touches() {
    let s = Scratch::new();
    rule_with(&s.runtime(), "pre-edit+write+read-secrets.guard.yaml", "reason: secrets stay out of the agent's hands\ndeny: ['.env', 'secrets/**']\nask: ['/etc/**']\n");
    let call = |tool: &str, path: &str| {
        let payload = json!({
            "hook_event_name": "PreToolUse", "session_id": "s1",
            "cwd": s.repo, "permission_mode": "default",
            "tool_name": tool, "tool_input": {"file_path": path, "content": "x"},
        });
        let reply = hook(&s, "claude", &payload);
        reply["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    let repo = s.repo.display().to_string();
    assert_eq!(call("Write", ".env"), "deny");
    assert_eq!(call("Read", &format!("{repo}/app/.env")), "deny");
    assert_eq!(call("Edit", "secrets/prod/key.pem"), "deny");
    assert_eq!(call("Edit", "./src/../secrets/key.pem"), "deny");
    assert_eq!(call("Edit", &format!("{repo}/secrets/key.pem")), "deny");
    assert_eq!(call("Write", "/etc/hosts"), "ask");
    assert_eq!(call("Edit", "src/main.rs"), "none");
    assert_eq!(call("Edit", "src/secrets.rs"), "none");
}

#[test]
fn a_fields_guard_judges_an_mcp_call() {
    let s = Scratch::new();
    rule_with(&s.runtime(), "pre-mcp__github-prod.guard.yaml", "reason: production merges need a person\nask: [{repo: 'acme/prod-*', draft: false}]\ndeny: [{force: true}]\n");
    let call = |input: Value| {
        let payload = json!({
            "hook_event_name": "PreToolUse", "session_id": "s1",
            "cwd": s.repo, "permission_mode": "default",
            "tool_name": "mcp__github__merge_pull_request", "tool_input": input,
        });
        let reply = hook(&s, "claude", &payload);
        reply["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    assert_eq!(
        call(json!({"repo": "acme/prod-api", "draft": false})),
        "ask"
    );
    assert_eq!(
        call(json!({"repo": "acme/prod-api", "draft": true})),
        "none"
    );
    assert_eq!(call(json!({"repo": "acme/docs", "draft": false})), "none");
    assert_eq!(call(json!({"repo": "acme/docs", "force": true})), "deny");
}

#[test]
fn a_broken_guard_is_listed_with_its_line_and_the_others_stand() {
    let tree = Tree::new();
    rule_with(
        &tree.s.runtime(),
        "pre-bash.git-pushes.guard.yaml",
        "reason: no pushes\ndeny: [push]\notherwise: ask\n",
    );
    let out = tree.s.run(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("pre-bash.git-pushes.guard.yaml: 3:12: otherwise: is what a use no `allow` entry matches gets: it needs `allow`"),
        "{text}"
    );
    assert!(
        text.contains("(guard on program: deny delete, apply, rollout restart; ask scale)"),
        "{text}"
    );
    let (decision, _) = tree.judge("kubectl delete pod x");
    assert_eq!(decision, "deny");
    let (decision, _) = tree.judge("git push");
    assert_eq!(decision, "none", "a broken guard is no decision");
}

#[test]
fn a_guards_case_file_runs_under_hookdex_test() {
    let tree = Tree::new();
    std::fs::write(
        tree.s.runtime().join("pre-bash.kubectl-writes.test.yaml"),
        "- name: a delete behind a namespace\n  command: kubectl -n x delete pod y\n  expect: {decision: deny, reason: GitOps}\n\
         - name: a scale is asked about\n  command: kubectl scale deploy a --replicas 1\n  expect: {decision: ask}\n\
         - name: a read\n  command: kubectl get pods\n  expect: {decision: none}\n\
         - name: wrong on purpose\n  command: kubectl get pods\n  expect: {decision: deny}\n",
    )
    .unwrap();
    let file = tree.s.runtime().join("pre-bash.kubectl-writes.test.yaml");
    let out = tree.s.run(&["test", &file.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("(rule pre-bash.kubectl-writes.guard.yaml)"),
        "{text}"
    );
    assert!(
        text.contains("4 tests in 1 files: 3 passed, 1 failed"),
        "{text}"
    );
    assert!(text.contains("expected decision deny, got none"), "{text}");
}

#[test]
fn claude_codes_own_bash_permissions_are_judged_as_guards_when_asked() {
    let mut s = Scratch::new();
    let settings = s.root.join("home/.claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"permissions": {"deny": ["Bash(kubectl delete:*)", "Bash(rm -rf:*)"], "ask": ["Bash(git push)"]}}"#,
    )
    .unwrap();
    let decide = |s: &Scratch, command: &str| {
        let reply = hook(s, "claude", &pre_bash(s, "claude", command));
        reply["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    // Claude Code's prefix match misses these; without the opt-in, so does hookdex.
    let past_the_prefix = "kubectl -n prod delete pod x";
    assert_eq!(decide(&s, past_the_prefix), "none");
    s.set_env("HOOKDEX_CLAUDE_PERMISSIONS", "1");
    assert_eq!(decide(&s, past_the_prefix), "deny");
    assert_eq!(decide(&s, "bash -c 'kubectl delete pod x'"), "deny");
    assert_eq!(decide(&s, "git push --force origin main"), "ask");
    assert_eq!(decide(&s, "kubectl get pods"), "none");
    let out = s.run(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`Bash(rm -rf:*)` is not judged by hookdex (its words are options"),
        "{text}"
    );
    // A rule source now: the agent cannot edit it while the gate is closed.
    let write = json!({
        "hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.repo,
        "permission_mode": "default", "tool_name": "Write",
        "tool_input": {"file_path": settings, "content": "{}"},
    });
    let reply = hook(&s, "claude", &write);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
}

#[test]
fn a_program_called_by_its_dashed_name_is_judged_as_its_subcommand_at_exec_time() {
    if !kernel_guard("a_program_called_by_its_dashed_name_is_judged_as_its_subcommand_at_exec_time")
    {
        return;
    }
    let mut s = Scratch::new();
    s.set_env("HOOKDEX_ENFORCE", "auto");
    let log = stub_on_path(&mut s, "git");
    rule_with(
        &s.runtime(),
        "pre-bash.git-pushes.guard.yaml",
        "reason: pushes are for people\ndeny: [push]\n",
    );
    // git picks its command from the name it is called by (`git-push`).
    let dashed = s.repo.join("git-push");
    std::os::unix::fs::symlink(s.root.join("stubs/git"), &dashed).unwrap();
    // In a script, where only the exec-time guard sees it.
    std::fs::write(
        s.repo.join("push.sh"),
        "./git-push origin main; git status\n",
    )
    .unwrap();
    let line = "bash push.sh";
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", line));
    let out = &reply["hookSpecificOutput"];
    assert_ne!(out["permissionDecision"], "deny", "{reply}");
    let command = out["updatedInput"]["command"].as_str().unwrap_or(line);
    assert!(command.contains("exec --guard"), "not wrapped: {reply}");
    let ran = shell(&s, command);
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logged.contains("origin main"), "the push ran: {logged}");
    assert!(
        logged.contains("status"),
        "git status did not run: {logged}"
    );
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        stderr.contains("hookdex: pre-bash.git-pushes.guard.yaml: `git push` matches `push`"),
        "{stderr}"
    );
}

#[test]
fn a_path_guard_on_any_tool_holds_from_a_subfolder_and_for_every_file_tool() {
    let s = Scratch::new();
    rule_with(
        &s.runtime(),
        "pre-any-secrets.guard.yaml",
        "reason: secrets stay out of the agent's hands\ndeny: ['.env', 'secrets/**']\n",
    );
    std::fs::create_dir_all(s.repo.join("sub")).unwrap();
    let call = |cwd: &std::path::Path, tool: &str, input: Value| {
        let payload = json!({
            "hook_event_name": "PreToolUse", "session_id": "s1",
            "cwd": cwd, "permission_mode": "default",
            "tool_name": tool, "tool_input": input,
        });
        let reply = hook(&s, "claude", &payload);
        reply["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    let sub = s.repo.join("sub");
    assert_eq!(
        call(&sub, "Read", json!({"file_path": "../secrets/k"})),
        "deny"
    );
    assert_eq!(
        call(&sub, "Read", json!({"file_path": s.repo.join("secrets/k")})),
        "deny"
    );
    assert_eq!(
        call(
            &s.repo,
            "MultiEdit",
            json!({"file_path": "secrets/k", "edits": []})
        ),
        "deny"
    );
    assert_eq!(
        call(&s.repo, "Grep", json!({"pattern": ".", "path": ".env"})),
        "deny"
    );
    assert_eq!(
        call(&s.repo, "Bash", json!({"command": "ls"})),
        "none",
        "a call with no path is not judged"
    );
}
