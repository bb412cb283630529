//! Repositories made by the real git for trust tests: git run with the
//! scratch HOME and no system config, a repository whose own rule denies
//! every Bash call, and whether `hookdex hook` ran that rule.

use std::path::Path;
use std::process::Command;

use super::{rule, rule_with, Scratch};

/// Runs the real git in `dir`, with the scratch HOME and no system config.
pub fn git(s: &Scratch, dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", s.path("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A scratch tree whose repository is made by `git init` and `git remote
/// add origin <url>` (no remote when `url` is empty), with a directory rule
/// that denies every Bash call and a runtime rule that says nothing.
pub fn git_repo(url: &str) -> Scratch {
    let s = Scratch::new();
    std::fs::remove_dir_all(s.repo.join(".git")).unwrap();
    git(&s, &s.repo, &["init", "-q"]);
    if !url.is_empty() {
        git(&s, &s.repo, &["remote", "add", "origin", url]);
    }
    rule_with(
        &s.hookdex_dir(),
        "pre-bash-repo.sh",
        "echo 'the repository rule ran' >&2\nexit 2\n",
    );
    rule(&s.runtime(), "pre-bash-mine.sh");
    s
}

/// Whether `hookdex hook` (claude), called from the scratch tree's working
/// directory, ran a rule that says "the repository rule ran".
pub fn hook_denies(s: &Scratch) -> bool {
    let payload = serde_json::json!({
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "cwd": s.cwd,
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    });
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        payload.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let reply = String::from_utf8_lossy(&out.stdout);
    reply.contains("the repository rule ran")
}
