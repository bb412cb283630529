//! One answer, five wire formats: a table of (harness, payload, answer) and
//! the exact reply each harness gets.

use serde_json::{json, Value};

use hookdex_model::{Permission, Target, ToolName};

use super::*;

use crate::payload::tests::parse as payload;

fn pre(target: Target) -> Payload {
    match target {
        Target::Copilot => payload(
            r#"{"toolName":"bash","toolArgs":{"command":"git log"}}"#,
            Some("preToolUse"),
        ),
        Target::Gemini => payload(
            r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git log"}}"#,
            None,
        ),
        Target::Cursor => payload(
            r#"{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"git log"}}"#,
            None,
        ),
        _ => payload(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git log"}}"#,
            None,
        ),
    }
}

fn rendered(target: Target, payload: &Payload, answer: Answer) -> Value {
    rendered_with(target, payload, answer, ReplyOptions::default())
}

fn rendered_with(
    target: Target,
    payload: &Payload,
    answer: Answer,
    options: ReplyOptions,
) -> Value {
    let mut answer = answer;
    let reply = reply(
        target,
        payload,
        &ToolName::new("bash"),
        &mut answer,
        options,
    );
    assert_eq!(reply.exit, 0);
    if reply.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&reply.stdout).unwrap()
    }
}

fn answer(
    decision: Option<Permission>,
    reason: &str,
    rewrite: Option<Value>,
    context: &[&str],
) -> Answer {
    Answer {
        decision,
        reasons: if reason.is_empty() {
            vec![]
        } else {
            vec![reason.into()]
        },
        updated_input: rewrite,
        contexts: context.iter().map(|c| c.to_string()).collect(),
        ..Answer::default()
    }
}

#[test]
fn deny_everywhere() {
    let deny = || answer(Some(Permission::Deny), "no", None, &[]);
    let cases = [
        (
            Target::Claude,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
        ),
        (
            Target::Codex,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
        ),
        (
            Target::Copilot,
            json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}),
        ),
        (Target::Gemini, json!({"decision": "deny", "reason": "no"})),
        (Target::Cursor, json!({"decision": "deny", "reason": "no"})),
    ];
    for (target, want) in cases {
        assert_eq!(rendered(target, &pre(target), deny()), want, "{target}");
    }
}

#[test]
fn ask_degrades_to_deny_where_there_is_no_ask() {
    for (target, asks) in [
        (Target::Claude, true),
        (Target::Codex, false),
        (Target::Copilot, false),
        (Target::Gemini, false),
        (Target::Cursor, false),
    ] {
        let out = rendered(
            target,
            &pre(target),
            answer(Some(Permission::Ask), "sure?", None, &[]),
        );
        let text = out.to_string();
        assert_eq!(text.contains("\"ask\""), asks, "{target}: {text}");
        assert_eq!(text.contains("\"deny\""), !asks, "{target}: {text}");
        if !asks {
            assert!(text.contains("cannot ask"), "{target}: {text}");
        }
    }
    // Gemini CLI asks a person at a terminal: kept when sessions are interactive.
    let interactive = ReplyOptions { interactive: true };
    for (target, asks) in [(Target::Gemini, true), (Target::Codex, false)] {
        let ask = answer(Some(Permission::Ask), "sure?", None, &[]);
        let text = rendered_with(target, &pre(target), ask, interactive).to_string();
        assert_eq!(text.contains("\"ask\""), asks, "{target}: {text}");
    }
}

#[test]
fn notes_for_the_person_go_where_the_harness_shows_them() {
    let crashed = || {
        let mut a = Answer::default();
        a.warn("hookdex: condition x.sh skipped (exit 1)".into());
        a
    };
    for target in [Target::Claude, Target::Codex, Target::Gemini] {
        let out = rendered(target, &pre(target), crashed());
        assert_eq!(
            out["systemMessage"], "hookdex: condition x.sh skipped (exit 1)",
            "{target}"
        );
    }
    for target in [Target::Copilot, Target::Cursor] {
        let out = rendered(target, &pre(target), crashed());
        assert!(out.get("systemMessage").is_none(), "{target}: {out}");
    }
    assert_eq!(
        notice(Target::Codex, "broken").stdout,
        "{\"systemMessage\":\"broken\"}\n"
    );
    assert_eq!(notice(Target::Copilot, "broken"), Reply::default());
}

#[test]
fn rewrites_and_contexts() {
    let rewrite = json!({"command": "git log --oneline -20"});
    let allow = || Answer {
        rewriters: vec!["rw.sh".into()],
        ..answer(
            Some(Permission::Allow),
            "",
            Some(rewrite.clone()),
            &["short log"],
        )
    };
    let claude = rendered(Target::Claude, &pre(Target::Claude), allow());
    assert_eq!(claude["hookSpecificOutput"]["updatedInput"], rewrite);
    assert_eq!(
        claude["hookSpecificOutput"]["additionalContext"],
        "short log\n\nhookdex: this call's input was rewritten by rw.sh before it ran; it ran as: git log --oneline -20"
    );
    assert_eq!(
        rendered(Target::Copilot, &pre(Target::Copilot), allow())["modifiedArgs"],
        rewrite
    );
    assert_eq!(
        rendered(Target::Gemini, &pre(Target::Gemini), allow())["hookSpecificOutput"]["tool_input"],
        rewrite
    );
    let cursor = rendered(Target::Cursor, &pre(Target::Cursor), allow());
    assert_eq!(cursor["updated_input"], rewrite);
    assert!(cursor.get("additionalContext").is_none());
    // Codex takes a rewrite only with allow; with ask (which becomes deny) it goes.
    let codex_ask = rendered(
        Target::Codex,
        &pre(Target::Codex),
        answer(Some(Permission::Ask), "", Some(rewrite.clone()), &[]),
    );
    assert!(codex_ask["hookSpecificOutput"]
        .get("updatedInput")
        .is_none());
    // Codex rejects a bare allow: say nothing instead.
    assert_eq!(
        rendered(
            Target::Codex,
            &pre(Target::Codex),
            answer(Some(Permission::Allow), "", None, &[])
        ),
        Value::Null
    );
    assert_eq!(
        rendered(Target::Claude, &pre(Target::Claude), Answer::default()),
        Value::Null
    );
}

#[test]
fn post_output_and_block() {
    let claude_post = payload(
        r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_response":{"stdout":"long","stderr":"warn","interrupted":false}}"#,
        None,
    );
    let trimmed = Answer {
        tool_output: Some(json!("short")),
        contexts: vec!["trimmed".into()],
        ..Answer::default()
    };
    let out = rendered(Target::Claude, &claude_post, trimmed.clone());
    assert_eq!(
        out["hookSpecificOutput"]["updatedToolOutput"],
        json!({"stdout": "short", "stderr": "", "interrupted": false})
    );
    assert_eq!(out["hookSpecificOutput"]["additionalContext"], "trimmed");
    let copilot_post = payload(
        r#"{"toolName":"bash","toolArgs":{},"toolResult":{"resultType":"success","textResultForLlm":"long"}}"#,
        None,
    );
    let out = rendered(Target::Copilot, &copilot_post, trimmed.clone());
    assert_eq!(
        out["modifiedResult"],
        json!({"resultType": "success", "textResultForLlm": "short"})
    );
    let gemini_post = payload(
        r#"{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{},"tool_response":{"llmContent":"long"}}"#,
        None,
    );
    // Gemini and Codex withhold the output on a block: the replacement
    // travels as its reason.
    let out = rendered(Target::Gemini, &gemini_post, trimmed.clone());
    assert_eq!(out["decision"], "deny", "{out}");
    assert!(
        out["reason"]
            .as_str()
            .unwrap()
            .ends_with("withheld):\nshort"),
        "{out}"
    );
    let codex_post = payload(
        r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_response":"long"}"#,
        None,
    );
    let out = rendered(Target::Codex, &codex_post, trimmed);
    assert_eq!(out["decision"], "block", "{out}");
    assert!(out["reason"].as_str().unwrap().contains("short"), "{out}");
    assert!(
        out["hookSpecificOutput"].get("updatedToolOutput").is_none(),
        "{out}"
    );
    let block = Answer {
        block: Some("tests failed".into()),
        ..Answer::default()
    };
    let out = rendered(Target::Claude, &claude_post, block.clone());
    assert_eq!(
        (out["decision"].as_str(), out["reason"].as_str()),
        (Some("block"), Some("tests failed"))
    );
    let out = rendered(Target::Copilot, &copilot_post, block);
    assert_eq!(
        out["modifiedResult"],
        json!({"resultType": "denied", "textResultForLlm": "tests failed"})
    );
}
