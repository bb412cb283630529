//! The gate end to end (SPEC §13) through `hookdex hook`: a session's gate
//! opens only on the person's own asking prompt, not a negated one and not
//! tool output; it closes at Stop; one session open does not open another.
//! While closed, every harness's file tools writing into a rule source,
//! gated MCP tools and shell lines that change rule sources are denied
//! before any rule runs, and no rule can allow them. The shell verdicts
//! are checked against real bash: every line denied does change the rule
//! folder when bash runs it, and every line passed leaves it as it was.

mod common;

use std::path::Path;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

fn denied_by_gate(reply: &Value) -> bool {
    reply.to_string().contains("hookdex gate:")
}

fn prompt(s: &Scratch, session: &str, text: &str) {
    let mut payload = fixture(s, "claude-prompt");
    payload["prompt"] = json!(text);
    payload["session_id"] = json!(session);
    hook(s, "claude", &payload);
}

fn write_call(s: &Scratch, session: &str, path: &str) -> Value {
    let mut payload = fixture(s, "claude-pre-write");
    payload["tool_input"]["file_path"] = json!(path);
    payload["session_id"] = json!(session);
    payload
}

fn rule_path(s: &Scratch) -> String {
    s.repo
        .join(".hookdex/conditions/pre-bash-x.sh")
        .display()
        .to_string()
}

#[test]
fn only_the_persons_own_asking_prompt_opens_the_gate_until_stop() {
    let s = Scratch::new();
    let target = rule_path(&s);
    let call = |session: &str| hook(&s, "claude", &write_call(&s, session, &target));
    assert!(denied_by_gate(&call("a")), "closed by default");
    prompt(&s, "a", "don't add a condition for this");
    assert!(denied_by_gate(&call("a")), "a negated phrase");
    prompt(&s, "a", "what does the kubectl condition do?");
    assert!(denied_by_gate(&call("a")), "no asking phrase");
    // Tool output that says the words opens nothing.
    let mut post = fixture(&s, "claude-post-bash");
    post["session_id"] = json!("a");
    set_output(&mut post, "README: set a condition with condition_set");
    hook(&s, "claude", &post);
    assert!(denied_by_gate(&call("a")), "tool output");
    prompt(
        &s,
        "a",
        "set a condition: after every kubectl apply, remind me of GitOps",
    );
    assert!(!denied_by_gate(&call("a")), "opened by the person's prompt");
    assert!(denied_by_gate(&call("b")), "another session stays closed");
    let mut stop = fixture(&s, "claude-stop");
    stop["session_id"] = json!("a");
    hook(&s, "claude", &stop);
    assert!(denied_by_gate(&call("a")), "closed at Stop");
    prompt(&s, "a", "set a ui slop filter");
    assert!(!denied_by_gate(&call("a")), "filter wording opens it");
}

#[test]
fn every_harness_file_tool_into_a_rule_source_is_denied_and_no_rule_allows_it() {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-any-allow_all.sh",
        "#!/bin/bash\necho '{\"decision\": \"allow\"}'\n",
    );
    let target = rule_path(&s);
    for name in ["claude-pre-write", "claude-pre-edit", "cursor-pre-write"] {
        let mut payload = fixture(&s, name);
        let input = if payload.get("tool_input").is_some() {
            "tool_input"
        } else {
            "toolArgs"
        };
        payload[input]["file_path"] = json!(target);
        let target_name = name.split('-').next().unwrap();
        let reply = hook(&s, target_name, &payload);
        assert!(denied_by_gate(&reply), "{name}: {reply}");
    }
    let gemini = json!({"session_id": "g", "cwd": s.repo, "hook_event_name": "BeforeTool",
        "tool_name": "write_file", "tool_input": {"file_path": target, "content": "exit 0"}});
    assert!(denied_by_gate(&hook(&s, "gemini", &gemini)));
    let gemini_edit = json!({"session_id": "g", "cwd": s.repo, "hook_event_name": "BeforeTool",
        "tool_name": "replace", "tool_input": {"file_path": ".agentihooks/enforcements.json", "old_string": "a", "new_string": "b"}});
    assert!(denied_by_gate(&hook(&s, "gemini", &gemini_edit)));
    let copilot = json!({"sessionId": "c", "cwd": s.repo, "toolName": "create",
        "toolArgs": json!({"path": target, "file_text": "exit 0"}).to_string()});
    let reply = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        copilot.to_string().as_bytes(),
    )
    .reply;
    assert!(denied_by_gate(&reply), "copilot: {reply}");
    let patch =
        "*** Begin Patch\n*** Delete File: .hookdex/conditions/pre-bash-guard.sh\n*** End Patch\n";
    let codex = json!({"session_id": "x", "cwd": s.repo, "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch", "tool_input": {"command": ["apply_patch", patch]}});
    assert!(
        denied_by_gate(&hook(&s, "codex", &codex)),
        "codex apply_patch"
    );
    // Cursor's Delete tool, and its MCP calls, which name the tool in their input.
    let mut delete = fixture(&s, "cursor-pre-write");
    delete["tool_name"] = json!("Delete");
    delete["tool_input"] = json!({"path": target});
    assert!(
        denied_by_gate(&hook(&s, "cursor", &delete)),
        "cursor Delete"
    );
    let mut mcp = fixture(&s, "cursor-pre-write");
    mcp["tool_name"] = json!("MCP");
    mcp["tool_input"] = json!({"server": "hookdex", "tool": "condition_set", "arguments": {}});
    assert!(denied_by_gate(&hook(&s, "cursor", &mcp)), "cursor MCP");
    // A shell tool's own directory is where its relative paths are.
    let mut exec = fixture(&s, "codex-pre-exec");
    exec["tool_input"] = json!({"command": ["truncate", "-s", "0", "pre-bash-guard.sh"],
        "workdir": s.repo.join(".hookdex/conditions")});
    assert!(denied_by_gate(&hook(&s, "codex", &exec)), "codex workdir");
    // Anything else the same rule allows.
    let reply = hook(
        &s,
        "claude",
        &write_call(&s, "s", &s.repo.join("src/x.rs").display().to_string()),
    );
    assert!(!denied_by_gate(&reply), "{reply}");
    // The MCP tools that change rules, whatever the server is called.
    for tool in [
        "mcp__hookdex__condition_set",
        "mcp__rules__condition_clear",
        "mcp__hookdex__enforcement_set",
    ] {
        let payload = json!({"session_id": "m", "cwd": s.repo, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": {"step": "pre"}});
        assert!(denied_by_gate(&hook(&s, "claude", &payload)), "{tool}");
    }
    let listing = json!({"session_id": "m", "cwd": s.repo, "hook_event_name": "PreToolUse",
        "tool_name": "mcp__hookdex__condition_list", "tool_input": {}});
    assert!(!denied_by_gate(&hook(&s, "claude", &listing)));
}

#[test]
fn the_gate_can_be_turned_off() {
    let mut s = Scratch::new();
    s.set_env("HOOKDEX_GATE", "off");
    let reply = hook(&s, "claude", &write_call(&s, "s", &rule_path(&s)));
    assert!(!denied_by_gate(&reply), "{reply}");
}

/// Lines the gate must deny, each of which bash really lets change the
/// rule folder, and lines it must pass, which leave it alone.
const DENIED: &[&str] = &[
    "echo 'exit 0' > .hookdex/conditions/pre-bash-guard.sh",
    "echo x | tee .hookdex/conditions/new.sh",
    "sed -i s/2/0/ .hookdex/conditions/pre-bash-guard.sh",
    "cp /etc/hostname .hookdex/conditions/",
    "mv .hookdex/conditions/pre-bash-guard.sh /tmp/hookdex-gate-moved",
    "rm .hookdex/conditions/pre-bash-guard.sh",
    "rm -rf .hookdex",
    "chmod -x .hookdex/conditions/pre-bash-guard.sh",
    "ln -sf /dev/null .hookdex/conditions/pre-bash-guard.sh",
    "truncate -s 0 .hookdex/conditions/pre-bash-guard.sh",
    "cd .hookdex/conditions && echo x > new.sh",
    "cd src && cd ../.hookdex && rm conditions/pre-bash-guard.sh",
    // What an attack found: globs, braces, variables, substitutions.
    "rm -f .hook*/conditions/*",
    "rm -f .hookde?/conditions/pre-bash-guard.sh",
    "rm -f .hook{dex,x}/conditions/pre-bash-guard.sh",
    "rm -rf .[!.]*",
    "echo 'exit 0' > .hook*/conditions/pre-bash-guard.sh",
    "x=.hookdex; rm -f $x/conditions/pre-bash-guard.sh",
    "rm -f $(echo .hookdex)/conditions/pre-bash-guard.sh",
    "for f in .hookdex/conditions/*; do rm -f \"$f\"; done",
    "echo .hookdex/conditions/pre-bash-guard.sh | xargs rm -f",
    "find . -path '*guard*' -exec rm {} +",
    // Writers that looked like readers, and attached values.
    "sed -Ei 's/exit 2/exit 0/' .hookdex/conditions/pre-bash-guard.sh",
    "sort -uo .hookdex/conditions/pre-bash-guard.sh /dev/null",
    "uniq /dev/null .hookdex/conditions/pre-bash-guard.sh",
    "dd if=/dev/null of=.hookdex/conditions/pre-bash-guard.sh 2>/dev/null",
    "cp -t.hookdex/conditions /etc/hostname",
    // The cd model.
    "cd .hookdex/conditions && cd /tmp && cd - >/dev/null && rm -f pre-bash-guard.sh",
    "cd no-such-dir 2>/dev/null; rm -f .hookdex/conditions/pre-bash-guard.sh",
];

const PASSED: &[&str] = &[
    "ls -la .hookdex/conditions",
    "cat .hookdex/conditions/pre-bash-guard.sh | grep exit",
    "grep -r exit .hookdex",
    "git status && git diff .hookdex && git log -- .hookdex",
    "find .hookdex -name '*.sh'",
    "wc -l .hookdex/conditions/pre-bash-guard.sh > src/count.txt",
    "rm -rf src/build && cd src && echo y > out.txt",
    "rm -f src/*.o src/build/*.tmp",
    "rsync -a ./src/ /tmp/hookdex-gate-rsync/",
    "ln -sf ../README src/readme-link",
];

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.extend(snapshot(&path));
            } else {
                let body = std::fs::read(&path).unwrap_or_default();
                out.push((path.display().to_string(), body, meta.permissions().mode()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn shell_lines_are_judged_as_bash_runs_them() {
    if skip_without("bash") {
        return;
    }
    let s = Scratch::new();
    let guard = "#!/bin/bash\necho no >&2\nexit 2\n";
    let git = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok();
    for (lines, deny) in [(DENIED, true), (PASSED, false)] {
        for line in lines {
            // The gate's verdict, through the hook, on a fresh rule folder.
            let _ = std::fs::remove_dir_all(s.repo.join(".hookdex"));
            // `rm -rf .[!.]*` takes `.git` along too.
            std::fs::create_dir_all(s.repo.join(".git")).unwrap();
            std::fs::write(s.repo.join(".git/config"), "[core]\n").unwrap();
            condition(&s.hookdex_dir(), "pre-bash-guard.sh", guard);
            std::fs::create_dir_all(s.repo.join("src/build")).unwrap();
            let reply = hook(&s, "claude", &pre_bash(&s, "claude", line));
            assert_eq!(denied_by_gate(&reply), deny, "{line}: {reply}");
            // What bash does with it, in the same tree.
            if line.starts_with("git") && !git {
                continue;
            }
            let before = snapshot(&s.repo.join(".hookdex"));
            let ran = std::process::Command::new("bash")
                .arg("-c")
                .arg(line)
                .current_dir(&s.repo)
                .output()
                .unwrap();
            let after = snapshot(&s.repo.join(".hookdex"));
            assert_eq!(before != after, deny, "{line}: bash {ran:?}");
        }
    }
}

#[test]
fn a_rule_path_longer_than_path_max_is_still_a_rule_path() {
    // Too long for the kernel as written, but a program that normalizes it
    // (`os.path.normpath`) writes into the rule folder.
    if skip_without("python3") {
        return;
    }
    let s = Scratch::new();
    condition(
        &s.hookdex_dir(),
        "pre-bash-guard.sh",
        "#!/bin/bash\nexit 0\n",
    );
    let long = format!(
        "{}{}",
        "/".repeat(5000),
        rule_path(&s).trim_start_matches('/')
    );
    let write = "-c 'import os, sys; open(os.path.normpath(sys.argv[1]), \"w\").write(\"x\")'";
    for line in [
        format!("python3 {write} {long}"),
        format!("p=python3; $p {write} {long}"),
    ] {
        let reply = hook(&s, "claude", &pre_bash(&s, "claude", &line));
        assert!(denied_by_gate(&reply), "{reply}");
        // What bash does with it.
        let _ = std::fs::remove_file(rule_path(&s));
        let ran = std::process::Command::new("bash")
            .arg("-c")
            .arg(&line)
            .current_dir(&s.repo)
            .output()
            .unwrap();
        assert!(std::path::Path::new(&rule_path(&s)).exists(), "{ran:?}");
    }
}

#[test]
fn list_and_explain_show_the_gate_of_a_session() {
    let mut s = Scratch::new();
    prompt(&s, "a", "add a condition for kubectl");
    assert_eq!(s.list(&["--session", "a"])["gate"]["state"], "open");
    assert_eq!(s.list(&["--session", "b"])["gate"]["state"], "closed");
    let ex = s.explain(&[
        "--tool",
        "Bash",
        "--command",
        "rm -rf .hookdex",
        "--session",
        "b",
    ]);
    let why = ex.0["gate"]["changes_rules"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("`rm` may change"), "{}", ex.0);
    let ex = s.explain(&["--tool", "Bash", "--command", "ls .hookdex"]);
    assert!(ex.0["gate"]["changes_rules"].is_null(), "{}", ex.0);
    s.set_env("HOOKDEX_GATE", "off");
    assert_eq!(s.list(&[])["gate"]["state"], "off");
}
