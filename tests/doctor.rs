//! `hookdex doctor` and the mistakes it reports, seen where they matter:
//! the real binary on a scratch HOME. The once-per-session notice of the
//! hook (first call of a session tells, later calls do not, another
//! session tells again, nothing when all is well), `compile --check`'s
//! shadowing warning, and doctor's checks with their fix lines.

mod common;

use common::hook::{hook, pre_bash};
use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// The Claude pre-bash payload of `session`.
fn call(s: &Scratch, session: &str) -> Value {
    let mut payload = pre_bash(s, "claude", "ls");
    payload["session_id"] = session.into();
    payload
}

/// The message the person is shown in a Claude reply, if any.
fn told(reply: &Value) -> Option<String> {
    reply
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[test]
fn an_invalid_rule_is_told_once_per_session() {
    let s = Scratch::new();
    rule(&s.runtime(), "bad.sh");
    rule(&s.runtime(), "pre-bash-ok.sh");

    let first = told(&hook(&s, "claude", &call(&s, "session-a")));
    assert_eq!(
        first.as_deref(),
        Some("hookdex: 1 rule file is invalid and will not run (hookdex doctor)")
    );
    assert_eq!(told(&hook(&s, "claude", &call(&s, "session-a"))), None);
    assert!(told(&hook(&s, "claude", &call(&s, "session-b"))).is_some());
}

#[test]
fn nothing_is_told_when_the_rules_are_fine() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-ok.sh");
    assert_eq!(hook(&s, "claude", &call(&s, "session-a")), Value::Null);
}

#[test]
fn a_missing_profile_and_a_shadowing_rule_are_told() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    s.write_state(&serde_json::json!({"bundle": bundle, "profiles": ["ghost"]}));
    let message = told(&hook(&s, "claude", &call(&s, "session-a"))).unwrap();
    assert_eq!(
        message,
        "hookdex: 1 rule file is invalid and will not run; 1 rule shadows a rule of a \
         profile, bundle or the package (hookdex doctor)"
    );
}

#[test]
fn compile_check_warns_of_a_shadowing_rule_and_keeps_its_exit_code() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let shipped = rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    let mine = rule(&s.runtime(), "pre-bash-x.sh");
    let out = s.run(&["compile", "--check", "--bundle", bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = format!(
        "warning: {}: overrides {} (bundle) with the same key",
        mine.display(),
        shipped.display()
    );
    assert!(stderr.contains(&want), "{stderr}");
}

/// A scratch tree where no harness program is on `PATH`, set up with
/// `hookdex init --target claude`.
fn set_up() -> Scratch {
    let mut s = Scratch::new();
    s.set_env("PATH", "/nonexistent");
    assert_success(&s.run(&["init", "--target", "claude"]), &["init"]);
    s
}

/// `hookdex doctor ARGS`: exit code and stdout.
fn doctor(s: &Scratch, args: &[&str]) -> (i32, String) {
    let mut all = vec!["doctor"];
    all.extend(args);
    let out = s.run(&all);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// Asserts `text` has the problem line containing `what` followed by `fix`.
fn has_problem(text: &str, what: &str, fix: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("problem") && l.contains(what))
        .unwrap_or_else(|| panic!("no problem with {what:?}:\n{text}"));
    assert_eq!(
        lines.get(at + 1).map(|l| l.trim()),
        Some(format!("fix: {fix}").as_str()),
        "{text}"
    );
}

#[test]
fn a_clean_set_up_exits_0() {
    let s = set_up();
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("claude\n"), "{text}");
    assert!(text.contains("ok       wired in "), "{text}");
    assert!(!text.contains("problem"), "{text}");
}

#[test]
fn a_harness_found_but_not_wired_is_a_problem() {
    let s = set_up();
    std::fs::create_dir_all(s.root.join("home/.codex")).unwrap();
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        "codex is on this machine",
        "hookdex init --target codex",
    );
}

#[test]
fn an_invalid_rule_names_file_and_reason() {
    let s = set_up();
    let bad = rule(&s.runtime(), "bad.sh");
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        &format!("invalid rule file: {}: ", bad.display()),
        &format!("edit or rename {}", bad.display()),
    );
}

#[test]
fn a_missing_profile_is_a_problem() {
    let s = set_up();
    let mut state: Value =
        serde_json::from_slice(&std::fs::read(s.home().join("state.json")).unwrap()).unwrap();
    state["profiles"] = serde_json::json!(["ghost"]);
    s.write_state(&state);
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        "missing profile: unknown profile `ghost` (available: k8s-readonly)",
        "hookdex init --target claude --profile <the chain without ghost>, or create the profile",
    );
}

#[test]
fn a_shadowing_rule_is_a_problem_that_keeps_exit_0() {
    let s = set_up();
    let bundle = s.bundle("bundle");
    let shipped = rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    let mine = rule(&s.runtime(), "pre-bash-x.sh");
    let mut state: Value =
        serde_json::from_slice(&std::fs::read(s.home().join("state.json")).unwrap()).unwrap();
    state["bundle"] = serde_json::json!(bundle);
    s.write_state(&state);
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 0, "{text}");
    has_problem(
        &text,
        &format!(
            "{} (runtime) shadows {} (bundle)",
            mine.display(),
            shipped.display()
        ),
        &format!(
            "rename {} to run both, or delete it to run the bundle rule",
            mine.display()
        ),
    );
}

#[test]
fn an_entry_running_a_missing_binary_is_a_problem() {
    let s = set_up();
    let path = s.root.join("home/.claude/settings.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_hookdex")).unwrap();
    std::fs::write(
        &path,
        text.replace(exe.to_str().unwrap(), "/nonexistent/bin/hookdex"),
    )
    .unwrap();
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        "runs /nonexistent/bin/hookdex, which does not exist",
        "hookdex init --target claude",
    );
}

#[test]
fn a_project_entry_finds_hookdex_on_path() {
    let mut s = set_up();
    assert_success(
        &s.run(&["init", "--target", "claude", "--scope", "project"]),
        &["init"],
    );
    let claude = |s: &Scratch| harness_json(s, "claude");
    let project = |report: &Value| {
        report["wired"]["project"]["binaries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["path"] == "hookdex")
            .cloned()
            .unwrap_or_else(|| panic!("no bare hookdex in {report:#}"))
    };
    assert_eq!(project(&claude(&s))["exists"], false);
    let bin = s.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookdex"), bin.join("hookdex")).unwrap();
    s.set_env("PATH", bin.display().to_string());
    let found = project(&claude(&s));
    assert_eq!(found["exists"], true, "{found}");
    assert_eq!(found["current"], true, "{found}");
}

#[test]
fn a_changed_codex_trust_hash_is_a_problem() {
    let s = set_up();
    assert_success(&s.run(&["init", "--target", "codex"]), &["init"]);
    let (code, text) = doctor(&s, &["--target", "codex"]);
    assert_eq!(code, 0, "{text}");
    let config = s.root.join("home/.codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("trusted_hash = \"sha256:"), "{text}");
    std::fs::write(
        &config,
        text.replace("trusted_hash = \"sha256:", "trusted_hash = \"sha256:0"),
    )
    .unwrap();
    let (code, text) = doctor(&s, &["--target", "codex"]);
    assert_eq!(code, 1, "{text}");
    has_problem(&text, "Codex skips", "hookdex init --target codex");
}

#[test]
fn json_has_the_documented_shape() {
    let s = set_up();
    rule(&s.runtime(), "bad.sh");
    let out = s.run(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let claude = &report["harnesses"][0];
    assert_eq!(claude["target"], "claude");
    assert_eq!(claude["found"], true);
    assert!(claude["wired"]["user"]["events"]
        .as_array()
        .unwrap()
        .contains(&Value::from("PreToolUse")));
    assert_eq!(claude["wired"]["user"]["binaries"][0]["current"], true);
    assert_eq!(claude["trusted"]["verdict"], "yes");
    assert!(claude["env"]["here"]["HOOKDEX_HOME"].is_string());
    assert!(claude["problems"].as_array().unwrap().is_empty());
    let invalid = report["rules"]["invalid"].as_array().unwrap();
    assert_eq!(invalid.len(), 1);
    assert!(invalid[0]["file"].as_str().unwrap().ends_with("bad.sh"));
    assert!(report["rules"]["shadowed"].as_array().unwrap().is_empty());
    assert!(report["rules"]["missing_profiles"]
        .as_array()
        .unwrap()
        .is_empty());
    let problem = &report["rules"]["problems"][0];
    assert!(problem["what"].is_string() && problem["fix"].is_string());
    assert!(report["index"]["fresh"].is_boolean());
    assert!(report["enforcement"]["on"].is_boolean());
    assert_eq!(report["ok"], false);
}

#[test]
fn list_all_shows_overridden_rules_and_list_does_not() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let shipped = rule(&bundle.join(".claude/conditions"), "pre-bash-x.sh");
    let mine = rule(&s.runtime(), "pre-bash-x.sh");
    s.write_state(&serde_json::json!({"bundle": bundle}));

    let plain = s.list(&[]);
    assert!(plain.get("overridden").is_none(), "{plain:#}");
    let all = s.list(&["--all"]);
    let overridden = all["overridden"].as_array().unwrap();
    assert_eq!(overridden.len(), 1, "{all:#}");
    assert_eq!(overridden[0]["file"], shipped.display().to_string());
    assert_eq!(overridden[0]["layer"], "bundle");
    assert_eq!(overridden[0]["overridden_by"], mine.display().to_string());

    let text = String::from_utf8_lossy(&s.run(&["list", "--all"]).stdout).to_string();
    assert!(
        text.contains(&format!(
            "{}  (overridden by {})",
            shipped.display(),
            mine.display()
        )),
        "{text}"
    );
    let text = String::from_utf8_lossy(&s.run(&["list"]).stdout).to_string();
    assert!(!text.contains("overridden"), "{text}");
}

#[test]
fn a_hookdex_home_the_entries_do_not_carry_is_a_problem() {
    // The scratch tree sets HOOKDEX_HOME; init carries it in Claude's settings `env`.
    let s = set_up();
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("env: the entries carry hookdex's variables as set here"),
        "{text}"
    );
    let path = s.root.join("home/.claude/settings.json");
    let mut settings: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    settings["env"]
        .as_object_mut()
        .unwrap()
        .remove("HOOKDEX_HOME");
    std::fs::write(&path, settings.to_string()).unwrap();
    let (code, text) = doctor(&s, &[]);
    assert_eq!(
        code, 0,
        "not carrying a variable is no rule failing: {text}"
    );
    has_problem(
        &text,
        "claude's hook entries do not carry HOOKDEX_HOME",
        "hookdex init --target claude",
    );
}

/// `hookdex doctor --json`'s report of `target`.
fn harness_json(s: &Scratch, target: &str) -> Value {
    let out = s.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["target"] == target)
        .unwrap_or_else(|| panic!("no {target} in {report}"))
        .clone()
}

#[test]
fn copilot_folder_trust_is_read_from_its_config_json() {
    let s = set_up();
    let init = |extra: &[&str]| {
        let mut args = vec!["init", "--target", "copilot", "--scope", "project"];
        args.extend_from_slice(extra);
        assert_success(&s.run(&args), &args);
    };
    init(&["--no-trust"]);
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        "Copilot CLI skips the repository's hooks here silently",
        "hookdex init --target copilot --scope project",
    );
    assert_eq!(harness_json(&s, "copilot")["trusted"]["verdict"], "no");

    init(&[]);
    let copilot = harness_json(&s, "copilot");
    assert_eq!(copilot["trusted"]["verdict"], "yes", "{copilot}");
    assert!(
        !copilot["problems"].to_string().contains("skips"),
        "{copilot}"
    );

    // A parent folder, in the file as Copilot writes it (comment lines first).
    std::fs::write(
        s.root.join("home/.copilot/config.json"),
        format!(
            "// This file is managed automatically.\n{{\"trustedFolders\": [\"{}\"]}}\n",
            s.root.display()
        ),
    )
    .unwrap();
    assert_eq!(harness_json(&s, "copilot")["trusted"]["verdict"], "yes");
    // `trustedFolders` in settings.json is not Copilot's record.
    std::fs::write(s.root.join("home/.copilot/config.json"), "{}").unwrap();
    std::fs::write(
        s.root.join("home/.copilot/settings.json"),
        format!("{{\"trustedFolders\": [\"{}\"]}}", s.repo.display()),
    )
    .unwrap();
    assert_eq!(harness_json(&s, "copilot")["trusted"]["verdict"], "no");
}

#[test]
fn gemini_folder_trust_is_read_as_gemini_reads_it() {
    let mut s = set_up();
    assert_success(
        &s.run(&["init", "--target", "gemini"]),
        &["init", "--target", "gemini"],
    );
    let verdict = |s: &Scratch| harness_json(s, "gemini")["trusted"]["verdict"].clone();
    // Folder trust is on by default, and no rule covers the repository.
    let (code, text) = doctor(&s, &[]);
    assert_eq!(code, 1, "{text}");
    has_problem(
        &text,
        "Gemini CLI runs no hook here",
        "start gemini here and trust the folder, or set GEMINI_CLI_TRUST_WORKSPACE=true where it starts",
    );
    let folders = s.root.join("home/.gemini/trustedFolders.json");
    let write = |path: &Path, rules: Value| std::fs::write(path, rules.to_string()).unwrap();
    let (root, repo) = (s.root.display().to_string(), s.repo.display().to_string());
    write(&folders, json!({ &repo: "TRUST_FOLDER" }));
    assert_eq!(verdict(&s), "yes");
    // The longest rule path decides.
    write(
        &folders,
        json!({ &root: "TRUST_FOLDER", &repo: "DO_NOT_TRUST" }),
    );
    assert_eq!(verdict(&s), "no");
    // TRUST_PARENT trusts the folder above the one named.
    write(&folders, json!({ format!("{repo}/sub"): "TRUST_PARENT" }));
    assert_eq!(verdict(&s), "yes");
    write(&folders, json!({ &repo: "TRUST_EVERYTHING" }));
    assert_eq!(verdict(&s), "no");
    // Another file named by GEMINI_CLI_TRUSTED_FOLDERS_PATH.
    let elsewhere = s.root.join("trusted.json");
    write(&elsewhere, json!({ &repo: "TRUST_FOLDER" }));
    s.set_env(
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
        elsewhere.display().to_string(),
    );
    assert_eq!(verdict(&s), "yes");
    s.unset_env("GEMINI_CLI_TRUSTED_FOLDERS_PATH");
    assert_eq!(verdict(&s), "no");
    s.set_env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    assert_eq!(verdict(&s), "yes");
    s.unset_env("GEMINI_CLI_TRUST_WORKSPACE");
    // Folder trust switched off in the user's settings.
    let settings = s.root.join("home/.gemini/settings.json");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    value["security"] = json!({"folderTrust": {"enabled": false}});
    std::fs::write(&settings, value.to_string()).unwrap();
    let gemini = harness_json(&s, "gemini");
    assert_eq!(gemini["trusted"]["verdict"], "yes", "{gemini}");
    assert!(
        gemini["problems"].as_array().unwrap().is_empty(),
        "{gemini}"
    );
}
