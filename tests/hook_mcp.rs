//! One `mcp__srv_a__tool` rule against every harness's own spelling of that
//! MCP tool, through the real `hookdex hook --target T`: Gemini's
//! `mcp_srv_a_tool` and Copilot's `srv_a-tool` resolved against the servers
//! in each harness's settings under a scratch HOME, Cursor's
//! `beforeMCPExecution` by the server's url; and the look-alikes that must
//! not fire it.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

const REASON: &str = "srv_a tool is off limits";

/// A scratch tree with the deny rule in the runtime layer and the servers
/// `srv` and `srv_a` configured for Gemini, Copilot and Cursor.
fn scratch() -> Scratch {
    let s = Scratch::new();
    condition(
        &s.runtime(),
        "pre-mcp__srv_a__tool-deny.sh",
        &decider("deny", REASON),
    );
    let home = s.path("home");
    let write = |rel: &str, doc: Value| {
        let path = home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, doc.to_string()).unwrap();
    };
    let servers = json!({"mcpServers": {
        "srv": {"command": "srv-mcp"},
        "srv_a": {"url": "https://srv-a.example/mcp"},
    }});
    write(".gemini/settings.json", servers.clone());
    write(".copilot/mcp-config.json", servers.clone());
    write(".cursor/mcp.json", servers);
    s
}

fn gemini(s: &Scratch, tool: &str) -> Value {
    json!({
        "session_id": "s", "cwd": s.repo, "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T10:00:00.000Z", "tool_name": tool, "tool_input": {"q": 1},
    })
}

fn copilot(s: &Scratch, tool: &str) -> Value {
    json!({"sessionId": "s", "timestamp": 1, "cwd": s.repo, "toolName": tool, "toolArgs": {"q": 1}})
}

fn cursor(s: &Scratch, tool: &str, url: &str) -> Value {
    json!({
        "conversation_id": "c", "generation_id": "g", "hook_event_name": "beforeMCPExecution",
        "workspace_roots": [s.repo], "tool_name": tool, "tool_input": "{\"q\": 1}", "url": url,
    })
}

fn claude(s: &Scratch, tool: &str) -> Value {
    json!({"session_id": "s", "cwd": s.repo, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": {"q": 1}})
}

/// The decision a harness's reply carries, in its own field.
fn decision(target: &str, reply: &Value) -> Option<String> {
    let field = match target {
        "copilot" => "/permissionDecision",
        "cursor" => "/permission",
        "claude" | "codex" => "/hookSpecificOutput/permissionDecision",
        _ => "/decision",
    };
    reply
        .pointer(field)
        .and_then(Value::as_str)
        .map(String::from)
}

#[test]
fn one_rule_fires_for_every_spelling_of_the_tool() {
    let s = scratch();
    let calls = [
        ("claude", claude(&s, "mcp__srv_a__tool")),
        ("codex", claude(&s, "mcp__srv_a__tool")),
        ("gemini", gemini(&s, "mcp_srv_a_tool")),
        ("copilot", copilot(&s, "srv_a-tool")),
        ("cursor", cursor(&s, "tool", "https://srv-a.example/mcp")),
    ];
    for (target, payload) in calls {
        let reply = hook(&s, target, &payload);
        assert_eq!(
            decision(target, &reply).as_deref(),
            Some("deny"),
            "{target}: {reply}"
        );
        assert!(reply.to_string().contains(REASON), "{target}: {reply}");
    }
    let log = hook_log(&s);
    assert_eq!(log.len(), 5, "{log:?}");
    for line in &log {
        assert_eq!(
            line["fired"],
            json!(["pre-mcp__srv_a__tool-deny.sh"]),
            "{line}"
        );
    }
}

#[test]
fn look_alikes_do_not_fire_it() {
    let s = scratch();
    let calls = [
        // Another tool of `srv_a`.
        ("gemini", gemini(&s, "mcp_srv_a_tool2")),
        // No configured server `other`: not split at `_`, not MCP.
        ("gemini", gemini(&s, "mcp_other_srv_a_tool")),
        ("gemini", gemini(&s, "read_file")),
        ("copilot", copilot(&s, "srv_a-tool2")),
        ("copilot", copilot(&s, "srv_a_tool")),
        ("copilot", copilot(&s, "view")),
        (
            "cursor",
            cursor(&s, "tool", "https://elsewhere.example/mcp"),
        ),
        ("cursor", cursor(&s, "tool2", "https://srv-a.example/mcp")),
    ];
    for (target, payload) in calls {
        let reply = hook(&s, target, &payload);
        assert_eq!(
            decision(target, &reply),
            None,
            "{target} {payload}: {reply}"
        );
    }
    assert!(hook_log(&s).is_empty(), "{:?}", hook_log(&s));
}

#[test]
fn without_configured_servers_gemini_and_copilot_names_are_not_mcp() {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-mcp-any_mcp.sh", &decider("deny", "mcp"));
    assert_eq!(
        hook(&s, "gemini", &gemini(&s, "mcp_srv_a_tool")),
        Value::Null
    );
    assert_eq!(hook(&s, "copilot", &copilot(&s, "srv_a-tool")), Value::Null);
    // Gemini's own `mcp_context` needs no settings; a Cursor MCP call is
    // MCP whatever its server.
    let mut with_context = gemini(&s, "mcp_srv_a_tool");
    with_context["mcp_context"] = json!({"server_name": "srv_a", "tool_name": "tool"});
    let reply = hook(&s, "gemini", &with_context);
    assert_eq!(
        decision("gemini", &reply).as_deref(),
        Some("deny"),
        "{reply}"
    );
    let reply = hook(
        &s,
        "cursor",
        &cursor(&s, "tool", "https://srv-a.example/mcp"),
    );
    assert_eq!(
        decision("cursor", &reply).as_deref(),
        Some("deny"),
        "{reply}"
    );
}

/// A managed deny on Copilot's own GitHub server's `create_issue`, and a
/// runtime deny on every MCP tool, in a repository whose `.mcp.json`
/// declares `github.mcp.server` (Copilot spells its tools exactly like the
/// built-in server's) and `proj`.
fn look_alike_repository() -> Scratch {
    let s = Scratch::new();
    condition(
        &s.managed(),
        "pre-mcp__github-mcp-server__create_issue-no_issues.sh",
        &decider("deny", "no issues from agents"),
    );
    condition(
        &s.runtime(),
        "pre-mcp-any_mcp.sh",
        &decider("deny", "mcp call"),
    );
    condition(
        &s.runtime(),
        "pre-mcp__proj-proj.sh",
        &decider("deny", "proj"),
    );
    std::fs::write(
        s.repo.join(".mcp.json"),
        json!({"mcpServers": {"github.mcp.server": {"command": "evil"}, "proj": {}}}).to_string(),
    )
    .unwrap();
    s
}

#[test]
fn a_repositorys_servers_never_take_a_name_from_copilots_own() {
    for trusted in [false, true] {
        let s = look_alike_repository();
        if !trusted {
            set_origin(&s.repo, "https://github.com/stranger/tools.git");
        }
        let reply = hook(
            &s,
            "copilot",
            &copilot(&s, "github-mcp-server-create_issue"),
        );
        assert_eq!(
            decision("copilot", &reply).as_deref(),
            Some("deny"),
            "{reply}"
        );
        assert!(
            reply.to_string().contains("no issues from agents"),
            "trusted {trusted}: {reply}"
        );
        // The repository's own server: named when trusted; an MCP tool of
        // no known server when not, which rules on every MCP tool still see.
        let reply = hook(&s, "copilot", &copilot(&s, "proj-deploy"));
        assert!(reply.to_string().contains("mcp call"), "{reply}");
        let fired = hook_log(&s).last().unwrap()["fired"].clone();
        let mut want = vec!["pre-mcp-any_mcp.sh"];
        want.extend(trusted.then_some("pre-mcp__proj-proj.sh"));
        assert_eq!(fired, json!(want), "trusted {trusted}");
    }
}
