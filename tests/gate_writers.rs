//! The gate covers every tool that writes (SPEC §13), end to end through
//! `hookdex hook`: while a session's gate is closed, MCP tools whose
//! arguments name a rule source or a file that wires one (at any depth,
//! absolute, `~`, relative, through `..` or a link, or as a `file://` URI)
//! are denied with the gate's own denial, and so are file tools on the
//! wiring (`.mcp.json`, `.git/config`, the cache, the harness settings
//! `init` writes). Reading stays allowed; once the person opens the gate,
//! every one of them passes.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const SESSION: &str = "w";

fn denied_by_gate(reply: &Value) -> bool {
    reply.to_string().contains("hookdex gate:")
}

fn claude(s: &Scratch, tool: &str, input: Value) -> Value {
    json!({"session_id": SESSION, "cwd": s.repo, "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input})
}

fn open_gate(s: &Scratch) {
    let mut payload = fixture(s, "claude-prompt");
    payload["prompt"] = json!("set a condition that blocks kubectl delete");
    payload["session_id"] = json!(SESSION);
    hook(s, "claude", &payload);
}

/// A tree with a rule, a link to its folder, and a runtime rule that allows
/// everything (so a denial can only be the gate's).
fn scratch() -> Scratch {
    let s = Scratch::new();
    condition(
        &s.hookdex_dir(),
        "pre-bash-guard.sh",
        &decider("deny", "guard"),
    );
    condition(
        &s.runtime(),
        "pre-any-allow_all.sh",
        &decider("allow", "all"),
    );
    std::os::unix::fs::symlink(s.hookdex_dir(), s.repo.join("innocent")).unwrap();
    s
}

/// The calls that write a rule source or its wiring.
fn writers(s: &Scratch) -> Vec<(&'static str, Value)> {
    let rule = s.hookdex_dir().join("pre-bash-guard.sh");
    let rule = rule.display().to_string();
    let home = s.path("home");
    vec![
        (
            "mcp write_file, absolute",
            claude(
                s,
                "mcp__filesystem__write_file",
                json!({"path": rule, "content": "exit 0"}),
            ),
        ),
        (
            "mcp move_file onto a rule",
            claude(
                s,
                "mcp__filesystem__move_file",
                json!({"source": "/tmp/x", "destination": rule}),
            ),
        ),
        (
            "mcp edit_file, relative through ..",
            claude(
                s,
                "mcp__filesystem__edit_file",
                json!({"path": "src/../.hookdex/conditions/pre-bash-guard.sh", "edits": []}),
            ),
        ),
        (
            "mcp create_directory through a link",
            claude(
                s,
                "mcp__filesystem__create_directory",
                json!({"path": "innocent/new"}),
            ),
        ),
        (
            "mcp tool, path deep in its arguments as a file URI",
            claude(
                s,
                "mcp__store__put",
                json!({"ops": [{"target": {"uri": format!("file://{}", rule.replace(' ', "%20"))}}]}),
            ),
        ),
        (
            "mcp write_file, ~ path into the harness settings",
            claude(
                s,
                "mcp__filesystem__write_file",
                json!({"path": "~/.claude/settings.json", "content": "{}"}),
            ),
        ),
        (
            "mcp write_file of .mcp.json",
            claude(
                s,
                "mcp__filesystem__write_file",
                json!({"path": ".mcp.json", "content": "{}"}),
            ),
        ),
        (
            "Write .mcp.json",
            claude(
                s,
                "Write",
                json!({"file_path": s.repo.join(".mcp.json"), "content": "{}"}),
            ),
        ),
        (
            "Edit .git/config",
            claude(
                s,
                "Edit",
                json!({"file_path": s.repo.join(".git/config"), "old_string": "a", "new_string": "b"}),
            ),
        ),
        (
            "Write into the cache",
            claude(
                s,
                "Write",
                json!({"file_path": s.cache().join("index-claude-x.syntax.json"), "content": "{}"}),
            ),
        ),
        (
            "Write the project's Claude settings",
            claude(
                s,
                "Write",
                json!({"file_path": s.repo.join(".claude/settings.json"), "content": "{}"}),
            ),
        ),
        (
            "Write the user's Codex hooks",
            claude(
                s,
                "Write",
                json!({"file_path": home.join(".codex/hooks.json"), "content": "{}"}),
            ),
        ),
        (
            "Write Copilot's repository settings",
            claude(
                s,
                "Write",
                json!({"file_path": s.repo.join(".github/copilot/settings.json"), "content": "{}"}),
            ),
        ),
    ]
}

/// Calls that only read, or write elsewhere: never the gate's business.
fn others(s: &Scratch) -> Vec<(&'static str, Value)> {
    let rule = s.hookdex_dir().join("pre-bash-guard.sh");
    vec![
        (
            "mcp read_file of a rule",
            claude(s, "mcp__filesystem__read_file", json!({"path": rule})),
        ),
        (
            "mcp list_directory of the rule folder",
            claude(
                s,
                "mcp__filesystem__list_directory",
                json!({"path": s.hookdex_dir()}),
            ),
        ),
        (
            "mcp condition_show",
            claude(s, "mcp__hookdex__condition_show", json!({"file": rule})),
        ),
        (
            "mcp write_file elsewhere",
            claude(
                s,
                "mcp__filesystem__write_file",
                json!({"path": "src/main.rs", "content": "see .hookdex/conditions/x.sh\n"}),
            ),
        ),
        (
            "mcp tool whose text mentions a rule folder",
            claude(
                s,
                "mcp__github__create_issue",
                json!({"title": "tidy .hookdex/conditions", "body": "the rule in\n.hookdex/conditions/pre-bash-guard.sh"}),
            ),
        ),
        (
            "Read .mcp.json",
            claude(s, "Read", json!({"file_path": s.repo.join(".mcp.json")})),
        ),
    ]
}

#[test]
fn every_writer_is_denied_while_the_gate_is_closed_and_passes_once_open() {
    let s = scratch();
    for (what, payload) in writers(&s) {
        let reply = hook(&s, "claude", &payload);
        assert!(denied_by_gate(&reply), "{what}: {reply}");
        assert!(
            reply.to_string().contains("opens the gate"),
            "{what}: the gate's own denial: {reply}"
        );
    }
    open_gate(&s);
    for (what, payload) in writers(&s) {
        let reply = hook(&s, "claude", &payload);
        assert!(!denied_by_gate(&reply), "{what}, gate open: {reply}");
    }
}

#[test]
fn reads_and_writes_elsewhere_pass_a_closed_gate() {
    let s = scratch();
    for (what, payload) in others(&s) {
        let reply = hook(&s, "claude", &payload);
        assert!(!denied_by_gate(&reply), "{what}: {reply}");
    }
}

#[test]
fn explain_says_which_writer_the_gate_stops() {
    let s = scratch();
    let rule = s.hookdex_dir().join("pre-bash-guard.sh");
    let input = json!({"path": rule, "content": ""}).to_string();
    let explained = s.explain(&["--tool", "mcp__filesystem__write_file", "--input", &input]);
    let changes = explained.0["gate"]["changes_rules"]
        .as_str()
        .unwrap_or_default();
    assert!(changes.contains("a rule source"), "{}", explained.0);
}

#[test]
fn a_rule_path_behind_many_strings_is_still_found() {
    let s = scratch();
    let rule = s.hookdex_dir().join("pre-bash-guard.sh");
    let mut items: Vec<Value> = (0..3000).map(|i| json!(format!("d{i}/f{i}.txt"))).collect();
    items.push(json!(format!(
        "./src/../{}",
        ".hookdex/conditions/pre-bash-guard.sh"
    )));
    let deep = claude(&s, "mcp__store__put_many", json!({"items": items}));
    assert!(denied_by_gate(&hook(&s, "claude", &deep)));
    let mut items: Vec<Value> = (0..3000).map(|i| json!(format!("d{i}/f{i}.txt"))).collect();
    items.push(json!(rule));
    let reply = hook(
        &s,
        "claude",
        &claude(&s, "mcp__store__put_many", json!({"items": items})),
    );
    assert!(denied_by_gate(&reply), "{reply}");
    // Strings built to pass the screen without naming a rule source: past
    // what the gate follows, the call is denied rather than let through.
    let lookalikes: Vec<Value> = (0..6000).map(|i| json!(format!("x{i}.hookdexy"))).collect();
    let reply = hook(
        &s,
        "claude",
        &claude(&s, "mcp__store__put_many", json!({"items": lookalikes})),
    );
    assert!(
        reply.to_string().contains("more paths near rule sources"),
        "{reply}"
    );
    // Plenty of ordinary paths pass.
    let plain: Vec<Value> = (0..6000).map(|i| json!(format!("d{i}/f{i}.txt"))).collect();
    let reply = hook(
        &s,
        "claude",
        &claude(&s, "mcp__store__put_many", json!({"items": plain})),
    );
    assert!(!denied_by_gate(&reply), "{reply}");
}
