//! The lint warnings of `list` and `compile --check`: a matcher alternative
//! that names no tool of any harness, and a name part written with `-`,
//! shown by the real binary for real rule files; warnings never change an
//! exit code, and correct names get none.

mod common;

use common::*;

/// Rule files that are fine: none of them may be warned about.
const CLEAN: &[&str] = &[
    "pre-bash-ok.sh",
    "pre-edit+write-migrations.sh",
    "pre-bash.git-guard.sh",
    "pre-bash.git-push_guard.sh",
    "pre-any-audit.sh",
    "pre-mcp-all.sh",
    "post-mcp__gateway-tools-audit.async.sh",
    "start-startup-banner.sh",
    "prompt-remind.sh",
];

/// (rule file, the start of its one warning)
const WARNED: &[(&str, &str)] = &[
    (
        "pre-bsh-typo.sh",
        r#"matcher alternative "bsh" names no tool of any harness (nearest: "bash")"#,
    ),
    (
        "pre-run_shell_command-raw.sh",
        r#"matcher alternative "run_shell_command" names no tool once normalized: it is gemini's own name for "bash""#,
    ),
    (
        "pre-bash-my-guard.sh",
        r#"matcher alternative "bash-my" names no tool of any harness; the file name splits at its last "-" as matcher "bash-my" + name "guard"; if the name part is meant to be "my-guard", rename the file to "pre-bash-my_guard.sh""#,
    ),
    (
        "pre-bash.git-push-guard.sh",
        r#"the file name splits at its last "-" as matcher "bash.git-push" + name "guard"; if the name part is meant to be "push-guard", rename the file to "pre-bash.git-push_guard.sh""#,
    ),
];

/// A scratch tree whose bundle holds `files`; returns it and the bundle's path.
fn tree(files: &[&str]) -> (Scratch, String) {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    for file in files {
        rule(&bundle.join(".claude/conditions"), file);
    }
    let bundle = bundle.display().to_string();
    s.set_env("HOOKDEX_BUNDLE", &bundle);
    (s, bundle)
}

fn all_files() -> Vec<&'static str> {
    CLEAN
        .iter()
        .copied()
        .chain(WARNED.iter().map(|(f, _)| *f))
        .collect()
}

/// `(file name, reason)` of a JSON `warnings` array.
fn warnings(report: &serde_json::Value) -> Vec<(String, String)> {
    report["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings array: {report:#}"))
        .iter()
        .map(|w| {
            (
                base(w["file"].as_str().unwrap()).to_string(),
                w["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Each warned file has one warning starting as expected, and nothing else is warned about.
fn assert_warnings(got: &[(String, String)]) {
    let mut files: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
    files.sort();
    let mut want: Vec<&str> = WARNED.iter().map(|(f, _)| *f).collect();
    want.sort();
    assert_eq!(files, want, "{got:#?}");
    for (file, start) in WARNED {
        let (_, reason) = got.iter().find(|(f, _)| f == file).unwrap();
        assert!(reason.starts_with(start), "{file}: {reason}");
    }
}

#[test]
fn list_json_adds_warnings_and_keeps_its_keys() {
    let (s, _) = tree(&all_files());
    let list = s.list(&[]);
    for key in ["layers", "active", "invalid", "warnings"] {
        assert!(list[key].is_array(), "no {key}: {list:#}");
    }
    // Warned rules stay active: a warning is advice, not an exclusion.
    assert_eq!(active(&list).len(), CLEAN.len() + WARNED.len(), "{list:#}");
    assert_warnings(&warnings(&list));
}

#[test]
fn list_prints_a_warnings_section() {
    let (s, bundle) = tree(&all_files());
    let out = s.run(&["list"]);
    assert_success(&out, &["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let section = text
        .split("\nwarnings\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no warnings section:\n{text}"));
    let lines: Vec<&str> = section
        .lines()
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(lines.len(), WARNED.len(), "{text}");
    for (file, start) in WARNED {
        let line = format!("  {bundle}/.claude/conditions/{file}: {start}");
        assert!(lines.iter().any(|l| l.starts_with(&line)), "{line}\n{text}");
    }
}

#[test]
fn clean_rules_get_no_warnings() {
    let (s, bundle) = tree(CLEAN);
    assert_eq!(warnings(&s.list(&[])), Vec::new());
    let out = s.run(&["list"]);
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("\nwarnings\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = s.run(&["compile", "--check", "--bundle", &bundle]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn list_warns_only_about_the_step_it_lists() {
    let (s, _) = tree(&["pre-bsh-typo.sh", "post-wirte-x.sh"]);
    let got = warnings(&s.list(&["--step", "post"]));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "post-wirte-x.sh");
    assert!(got[0].1.ends_with(r#"(nearest: "write")"#), "{got:?}");
}

#[test]
fn an_overridden_rule_is_not_warned_about() {
    let (s, _) = tree(&["pre-bsh-typo.sh"]);
    // The runtime layer's rule of the same key replaces the bundle's.
    let runtime = rule(&s.runtime(), "pre-bsh-typo.sh");
    let got = warnings(&s.list(&[]));
    assert_eq!(got.len(), 1, "{got:?}");
    let list = s.list(&[]);
    let file = list["warnings"][0]["file"].as_str().unwrap();
    assert_eq!(file, runtime.display().to_string());
}

#[test]
fn compile_check_prints_warnings_to_stderr_and_keeps_its_exit_code() {
    let (s, bundle) = tree(&all_files());
    let args = ["compile", "--check", "--bundle", &bundle];
    let out = s.run(&args);
    assert_eq!(out.status.code(), Some(0), "warnings are not errors");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), WARNED.len(), "{stderr}");
    for (file, start) in WARNED {
        let line = format!("warning: {bundle}/.claude/conditions/{file}: {start}");
        assert!(
            lines.iter().any(|l| l.starts_with(&line)),
            "{line}\n{stderr}"
        );
    }
    assert!(!String::from_utf8_lossy(&out.stdout).contains("warning"));

    // An invalid file still fails the check, warnings or not.
    rule(&s.path("bundle/.claude/conditions"), "bad.sh");
    assert_eq!(s.run(&args).status.code(), Some(1));
}

#[test]
fn compile_check_json_adds_warnings() {
    let (s, bundle) = tree(&all_files());
    let report = s.json(&["compile", "--check", "--json", "--bundle", &bundle]);
    for key in [
        "index", "written", "check", "rules", "active", "layers", "invalid",
    ] {
        assert!(!report[key].is_null(), "no {key}: {report:#}");
    }
    assert_warnings(&warnings(&report));
}

#[test]
fn rules_others_can_change_are_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let (s, bundle) = tree(CLEAN);
    let dir = std::path::PathBuf::from(&bundle).join(".claude/conditions");
    let first = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::set_permissions(&first, std::fs::Permissions::from_mode(0o777)).unwrap();
    let warned = warnings(&s.list(&[]));
    let name = file_name(&first);
    assert!(
        warned
            .iter()
            .any(|(file, reason)| *file == name
                && reason.starts_with("writable by anyone (mode 0777)")),
        "{warned:?}"
    );
    std::fs::set_permissions(&first, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        warnings(&s.list(&[])),
        Vec::new(),
        "only the user can change it again"
    );
}
