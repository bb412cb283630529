//! `HOOK.md` folders end to end (SPEC §9, the moltis seed's worked
//! examples, each from its own file format): command-logger,
//! block-dangerous-commands, modify-arguments and redact-secrets through
//! `hookdex hook` with real bash and jq; eligibility (skipped, and
//! `explain` says which requirement); the circuit breaker tripping and
//! recovering after the cooldown; a project hook replacing a global one of
//! the same name, and never running in an untrusted repository.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

/// Writes `<dir>/<folder>/HOOK.md` with `front` as its front matter and
/// `handler.sh` with `handler`.
fn hook_dir(dir: &Path, folder: &str, front: &str, handler: &str) -> PathBuf {
    let at = dir.join(folder);
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(
        at.join("HOOK.md"),
        format!("+++\n{front}\n+++\n# {folder}\n\nA hook of the seed.\n"),
    )
    .unwrap();
    let handler_path = at.join("handler.sh");
    std::fs::write(&handler_path, handler).unwrap();
    set_executable(&handler_path, true);
    at
}

fn global(s: &Scratch) -> PathBuf {
    s.path("home/.moltis/hooks")
}

fn reason(reply: &Value) -> &str {
    reply
        .pointer("/hookSpecificOutput/permissionDecisionReason")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

const BLOCK_DANGEROUS: &str = r#"#!/bin/bash
payload=$(cat)
command=$(echo "$payload" | jq -r '.arguments.command // ""')
# Block rm -rf /
if echo "$command" | grep -qE 'rm\s+-rf\s+/'; then
echo "Blocked dangerous rm command" >&2
exit 1
fi
exit 0
"#;

#[test]
fn block_dangerous_commands() {
    if !has_jq() {
        return;
    }
    let s = Scratch::new();
    hook_dir(
        &global(&s),
        "block-dangerous",
        "name = \"block-dangerous-commands\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./handler.sh\"\ntimeout = 5",
        BLOCK_DANGEROUS,
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "rm -rf /var/lib"));
    assert_eq!(
        reply.pointer("/hookSpecificOutput/permissionDecision"),
        Some(&json!("deny")),
        "{reply}"
    );
    assert_eq!(reason(&reply), "Blocked dangerous rm command");
    assert_eq!(
        hook(&s, "claude", &pre_bash(&s, "claude", "rm -rf build")),
        Value::Null
    );
    // The same hook answers Gemini's shell tool, in Gemini's reply shape.
    let reply = hook(&s, "gemini", &pre_bash(&s, "gemini", "rm -rf /"));
    assert_eq!(reply["decision"], "deny", "{reply}");
}

#[test]
fn command_logger_logs_slash_commands_only() {
    let mut s = Scratch::new();
    let log = s.path("commands.jsonl");
    s.set_env("LOG_FILE", log.display().to_string());
    hook_dir(
        &global(&s),
        "command-logger",
        "name = \"command-logger\"\ndescription = \"Logs all Command events to a JSONL file\"\nevents = [\"Command\"]\ncommand = \"./handler.sh\"\n[requires]\nenv = [\"LOG_FILE\"]",
        "#!/bin/bash\npayload=$(cat)\necho \"$payload\" >> \"$LOG_FILE\"\nexit 0\n",
    );
    let mut prompt = fixture(&s, "claude-prompt");
    assert_eq!(hook(&s, "claude", &prompt), Value::Null);
    assert!(!log.exists(), "a plain prompt is not a Command");
    prompt["prompt"] = json!("/new fresh start");
    hook(&s, "claude", &prompt);
    let line: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!(
        line,
        json!({"event": "Command", "session_key": prompt["session_id"], "action": "new", "sender_id": null})
    );
}

#[test]
fn modify_arguments_and_redact_secrets_replace_the_arguments() {
    if !has_jq() {
        return;
    }
    let s = Scratch::new();
    hook_dir(
        &global(&s),
        "redact",
        "name = \"redact-secrets\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./handler.sh\"",
        r#"#!/bin/bash
payload=$(cat)
command=$(echo "$payload" | jq -r '.arguments.command // ""')
redacted=$(printf '%s' "$command" | sed -E '
s/sk-[a-zA-Z0-9]{32,}/[REDACTED]/g
s/ghp_[a-zA-Z0-9]{36}/[REDACTED]/g
s/password=[^&[:space:]]+/password=[REDACTED]/g
')
modified_args=$(echo "$payload" | jq --arg command "$redacted" '.arguments.command = $command | .arguments')
echo "{\"action\":\"modify\",\"data\":$modified_args}"
exit 0
"#,
    );
    let secret = format!(
        "curl -H 'x: sk-{}' 'https://h/?password=hunter2&v=1'",
        "a".repeat(40)
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", &secret));
    let command = reply
        .pointer("/hookSpecificOutput/updatedInput/command")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no rewrite: {reply}"));
    assert_eq!(
        command,
        "curl -H 'x: [REDACTED]' 'https://h/?password=[REDACTED]&v=1'"
    );
    // Not a decision of its own: the person sees the changed call.
    assert_eq!(
        reply.pointer("/hookSpecificOutput/permissionDecision"),
        Some(&json!("ask"))
    );

    // modify-arguments, in bypassPermissions: applied as it is.
    let s = Scratch::new();
    hook_dir(
        &global(&s),
        "set-e",
        "name = \"modify-arguments\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./handler.sh\"",
        r#"#!/bin/bash
payload=$(cat)
tool=$(echo "$payload" | jq -r '.tool_name')
if [ "$tool" = "Bash" ]; then
modified_args=$(echo "$payload" | jq '.arguments.command = "set -e; " + .arguments.command | .arguments')
echo "{\"action\":\"modify\",\"data\":$modified_args}"
fi
exit 0
"#,
    );
    let mut call = pre_bash(&s, "claude", "make test");
    call["permission_mode"] = json!("bypassPermissions");
    let reply = hook(&s, "claude", &call);
    assert_eq!(
        reply.pointer("/hookSpecificOutput/updatedInput/command"),
        Some(&json!("set -e; make test")),
        "{reply}"
    );
}

#[test]
fn an_ineligible_hook_is_skipped_and_explain_says_which_requirement() {
    let s = Scratch::new();
    let marker = s.path("ran");
    hook_dir(
        &global(&s),
        "needs-bin",
        "name = \"needs-bin\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./handler.sh\"\n[requires]\nos = [\"darwin\", \"linux\"]\nbins = [\"hookdex-no-such-tool\"]",
        &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    );
    assert_eq!(
        hook(&s, "claude", &pre_bash(&s, "claude", "ls")),
        Value::Null
    );
    assert!(!marker.exists());
    let notes = hook_log(&s)
        .last()
        .map(|l| l["notes"].to_string())
        .unwrap_or_default();
    assert!(
        notes.contains("requires bin `hookdex-no-such-tool`"),
        "{notes}"
    );
    let ex = s.explain(&["--tool", "Bash", "--command", "ls"]);
    let why = ex.skip_reason("runtime", "needs-bin/HOOK.md");
    assert!(
        why.contains("not eligible here: requires bin `hookdex-no-such-tool`"),
        "{why}"
    );
    let listed = s.list(&[]).to_string();
    assert!(listed.contains("\"format\":\"HOOK.md\""), "{listed}");
}

#[test]
fn a_failing_hook_trips_the_breaker_and_recovers_after_the_cooldown() {
    let mut s = Scratch::new();
    s.set_env("HOOKDEX_BREAKER_COOLDOWN_SEC", "1");
    let runs = s.path("runs");
    hook_dir(
        &global(&s),
        "broken",
        "name = \"broken\"\nevents = [\"BeforeToolCall\"]\ncommand = \"./handler.sh\"",
        &format!(
            "#!/bin/sh\necho x >> {}\necho 'it broke' >&2\nexit 3\n",
            runs.display()
        ),
    );
    let call = pre_bash(&s, "claude", "ls");
    let count = || {
        std::fs::read_to_string(&runs)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    for n in 1..=3 {
        let reply = hook(&s, "claude", &call);
        // A failure blocks nothing; the agent is told it was skipped.
        assert!(
            reply
                .pointer("/hookSpecificOutput/permissionDecision")
                .is_none(),
            "{reply}"
        );
        assert_eq!(count(), n);
    }
    hook(&s, "claude", &call);
    hook(&s, "claude", &call);
    assert_eq!(count(), 3, "the breaker is open");
    let listed = s.list(&[]);
    let breaker = listed["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["format"] == "HOOK.md")
        .map(|r| r["hook"]["breaker"].clone())
        .unwrap();
    assert_eq!(breaker["open"], true, "{listed}");
    let ex = s.explain(&["--tool", "Bash", "--command", "ls"]);
    assert!(ex
        .skip_reason("runtime", "broken/HOOK.md")
        .contains("breaker is open"));
    std::thread::sleep(Duration::from_millis(1100));
    hook(&s, "claude", &call);
    assert_eq!(count(), 4, "it runs again after the cooldown");
    // Concurrent hook processes share the breaker: the failure of the run
    // above and two more at once open it again.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| hook(&s, "claude", &call));
        }
    });
    assert_eq!(count(), 6);
    hook(&s, "claude", &call);
    assert_eq!(count(), 6, "open again after three more failures");
}

#[test]
fn a_project_hook_replaces_a_global_one_and_needs_a_trusted_repository() {
    let s = Scratch::new();
    let front = |who: &str| {
        format!("name = \"guard\"\nevents = [\"BeforeToolCall\"]\ncommand = \"echo '{who} says no' >&2; exit 1\"")
    };
    hook_dir(&global(&s), "guard", &front("global"), "");
    let call = pre_bash(&s, "claude", "ls");
    assert_eq!(reason(&hook(&s, "claude", &call)), "global says no");
    hook_dir(
        &s.repo.join(".hookdex/hooks"),
        "guard",
        &front("project"),
        "",
    );
    assert_eq!(reason(&hook(&s, "claude", &call)), "project says no");
    hook_dir(
        &s.repo.join(".moltis/hooks"),
        "other",
        &front("moltis-project").replace("guard", "other"),
        "",
    );
    let reply = hook(&s, "claude", &call);
    assert!(reason(&reply).contains("moltis-project says no"), "{reply}");
    set_origin(&s.repo, "git@github.com:stranger/x.git");
    assert_eq!(
        reason(&hook(&s, "claude", &call)),
        "global says no",
        "a stranger's hooks do not run, and do not switch the global one off"
    );
}
