//! Peers' rule files read where they are: agentihooks' own
//! `~/.agentihooks/conditions/` and `enforcements.json` in the runtime layer
//! (below `$HOOKDEX_HOME`'s, which wins a shared key), and BioRouter's
//! hooks — the `hooks:` of `~/.config/biorouter/config.yaml` and a
//! repository's `.biorouter/hooks.yaml` — behind `HOOKDEX_BIOROUTER=1`,
//! the project file only where project hooks are allowed and the
//! repository is trusted.

mod common;

use std::path::Path;

use serde_json::Value;

use common::hook::*;
use common::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn reason(reply: &Value) -> &str {
    reply
        .pointer("/hookSpecificOutput/permissionDecisionReason")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[test]
fn agentihooks_own_folder_joins_the_runtime_layer_below_hookdex_home() {
    let s = Scratch::new();
    let theirs = s.path("home/.agentihooks");
    rule(&theirs.join("conditions"), "pre-bash-only-there.sh");
    rule(&theirs.join("conditions"), "pre-bash-shared.sh");
    rule(&s.runtime(), "pre-bash-shared.sh");
    write(
        &theirs.join("enforcements.json"),
        r#"[{"id": "tests", "message": "run the tests", "cadence": 1}]"#,
    );
    let list = s.list(&[]);
    let runtime = active(&list)
        .into_iter()
        .filter(|(layer, _)| layer == "runtime")
        .map(|(_, file)| file)
        .collect::<Vec<_>>();
    assert!(runtime.iter().any(|f| f.contains("only-there")), "{list:#}");
    let files: Vec<&str> = list["active"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let theirs = theirs.join("enforcements.json").display().to_string();
    assert!(files.contains(&theirs.as_str()), "{files:?}");
    let shared: Vec<&&str> = files.iter().filter(|f| f.ends_with("shared.sh")).collect();
    assert_eq!(shared.len(), 1, "{files:?}");
    assert!(
        shared[0].starts_with(&s.runtime().display().to_string()),
        "$HOOKDEX_HOME's wins: {files:?}"
    );
}

#[test]
fn agentihooks_folder_made_later_is_seen() {
    let s = Scratch::new();
    assert!(!active(&s.list(&[])).iter().any(|(_, f)| f.contains("late")));
    rule(&s.path("home/.agentihooks/conditions"), "pre-bash-late.sh");
    assert!(
        active(&s.list(&[])).iter().any(|(_, f)| f.contains("late")),
        "a stale index kept the old view"
    );
}

const DENY: &str =
    "  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: \"echo 'biorouter says no' >&2; exit 2\"}]\n";

#[test]
fn biorouter_global_hooks_run_only_when_asked_for() {
    let mut s = Scratch::new();
    write(
        &s.path("home/.config/biorouter/config.yaml"),
        &format!("provider: openai\nmodel: gpt\nhooks:\n{DENY}"),
    );
    let call = pre_bash(&s, "claude", "make deploy");
    assert_eq!(hook(&s, "claude", &call), Value::Null, "no opt-in");
    s.set_env("HOOKDEX_BIOROUTER", "1");
    assert_eq!(reason(&hook(&s, "claude", &call)), "biorouter says no");
    // A config.yaml with no hooks gives nothing, and no error.
    write(
        &s.path("home/.config/biorouter/config.yaml"),
        "provider: openai\n",
    );
    assert_eq!(hook(&s, "claude", &call), Value::Null);
    assert!(invalid(&s.list(&[])).is_empty());
}

#[test]
fn biorouter_project_hooks_need_the_opt_ins_and_a_trusted_repository() {
    let mut s = Scratch::new();
    write(
        &s.repo.join(".biorouter/hooks.yaml"),
        &format!("hooks:\n{DENY}"),
    );
    let call = pre_bash(&s, "claude", "make deploy");
    s.set_env("HOOKDEX_BIOROUTER", "1");
    assert_eq!(
        hook(&s, "claude", &call),
        Value::Null,
        "project hooks not allowed"
    );
    // BioRouter's own opt-in, in its global file.
    write(
        &s.path("home/.config/biorouter/config.yaml"),
        "hooks:\n  allow_project_hooks: true\n",
    );
    assert_eq!(reason(&hook(&s, "claude", &call)), "biorouter says no");
    s.unset_env("HOOKDEX_BIOROUTER");
    assert_eq!(hook(&s, "claude", &call), Value::Null, "no opt-in");
    s.set_env("HOOKDEX_BIOROUTER", "1");
    set_origin(&s.repo, "git@github.com:stranger/x.git");
    assert_eq!(
        hook(&s, "claude", &call),
        Value::Null,
        "untrusted repository"
    );
}
