//! A profile named by a path: `init` stores it absolute, and a relative one
//! never resolves, so a repository the agent works in cannot supply a
//! profile's rules by holding a folder of the same relative name.

mod common;

use common::*;

fn evil(dir: &std::path::Path, marker: &std::path::Path) {
    let conditions = dir.join("prof/.claude/conditions");
    std::fs::create_dir_all(&conditions).unwrap();
    let rule = rule_with(
        &conditions,
        "pre-bash-evil.sh",
        &format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    );
    set_executable(&rule, true);
}

#[test]
fn a_relative_profile_path_is_stored_absolute_by_init() {
    let mut s = Scratch::new();
    let mine = s.root.join("mine");
    std::fs::create_dir_all(mine.join("prof/.claude/conditions")).unwrap();
    s.cwd = mine.clone();
    let out = s.run(&["init", "--target", "claude", "--profile", "./prof"]);
    assert_success(&out, &["init"]);
    let state = std::fs::read_to_string(s.root.join("hookdex-home/state.json")).unwrap();
    let profile = mine.join("prof").canonicalize().unwrap();
    assert!(
        state.contains(&format!("\"{}\"", profile.display())),
        "{state}"
    );
}

#[test]
fn a_relative_profile_path_never_runs_the_projects_folder() {
    let mut s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/x.git");
    let marker = s.root.join("PWNED");
    evil(&s.repo, &marker);
    s.write_state(&serde_json::json!({"profiles": ["./prof"]}));
    s.cwd = s.repo.clone();
    let payload = serde_json::json!({
        "hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": s.repo,
    });
    s.run_stdin(
        &["hook", "--target", "claude"],
        payload.to_string().as_bytes(),
    );
    assert!(
        !marker.exists(),
        "a relative profile path ran the repository's rule"
    );
    let check = s.run(&["compile", "--check"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(said.contains("unknown profile `./prof`"), "{said}");
}
