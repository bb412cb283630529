//! `hookdex test` on rules' case files (`<rule>.test.yaml`): a case that
//! passes, one whose reason substring is wrong, a rewrite, a rule named
//! instead of its case file (with and without one), an output-filter file
//! with an odd name read as rtk TOML, every case file of the person's layers
//! and the package when no file is named, and case files never listed as
//! invalid rule files.

mod common;

use serde_json::Value;

use common::hook::*;
use common::*;

const GUARD: &str = "#!/bin/bash\n\
input=$(cat)\n\
case \"$input\" in *delete*) echo 'kubectl writes go through GitOps' >&2; exit 2;; esac\n";

const SHORT_LOG: &str = "#!/bin/bash\n\
echo '{\"tool_input\": {\"command\": \"git log -20\"}, \"decision\": \"allow\", \"reason\": \"short log\"}'\n";

const GUARD_CASES: &str = "- name: a delete is denied
  command: kubectl delete pod x
  expect: {decision: deny, reason: GitOps}
- name: a read passes
  command: kubectl get pods
  expect: {decision: none}
";

fn setup() -> Scratch {
    let s = Scratch::new();
    condition(&s.runtime(), "pre-bash.kubectl-guard.sh", GUARD);
    condition(&s.runtime(), "pre-bash.git-short.sh", SHORT_LOG);
    std::fs::write(
        s.runtime().join("pre-bash.kubectl-guard.test.yaml"),
        GUARD_CASES,
    )
    .unwrap();
    s
}

fn test_out(s: &Scratch, files: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["test"];
    args.extend_from_slice(files);
    let out = s.run(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), text)
}

fn path(s: &Scratch, name: &str) -> String {
    s.runtime().join(name).display().to_string()
}

#[test]
fn passing_cases() {
    let s = setup();
    let (code, text) = test_out(&s, &[&path(&s, "pre-bash.kubectl-guard.test.yaml")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("pre-bash.kubectl-guard.test.yaml (rule pre-bash.kubectl-guard.sh)"),
        "{text}"
    );
    assert!(text.contains("  ok      a delete is denied"), "{text}");
    assert!(text.contains("  ok      a read passes"), "{text}");
    assert!(
        text.contains("2 tests in 1 files: 2 passed, 0 failed"),
        "{text}"
    );
}

#[test]
fn a_wrong_reason_fails_with_what_it_got() {
    let s = setup();
    let file = s.root.join("wrong.test.yaml");
    std::fs::write(
        &file,
        "- name: wrong reason\n  command: kubectl delete pod x\n  expect: {decision: deny, reason: forbidden}\n",
    )
    .unwrap();
    // Beside no rule: it says so.
    let (code, text) = test_out(&s, &[file.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("BROKEN  no rule beside it: expected a file `wrong.<ext>`"),
        "{text}"
    );
    let beside = s.runtime().join("pre-bash.kubectl-guard.test.yaml");
    std::fs::write(
        &beside,
        "- name: wrong reason\n  command: kubectl delete pod x\n  expect: {decision: deny, reason: forbidden}\n",
    )
    .unwrap();
    let (code, text) = test_out(&s, &[beside.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("  FAIL    wrong reason (line 1)"), "{text}");
    assert!(
        text.contains(
            "expected a reason containing \"forbidden\", got \"kubectl writes go through GitOps\""
        ),
        "{text}"
    );
}

#[test]
fn a_rewrite_as_a_command_or_keys() {
    let s = setup();
    std::fs::write(
        s.runtime().join("pre-bash.git-short.test.yaml"),
        "- name: as a command\n  command: git log\n  expect: {decision: allow, rewrite: git log -20}\n\
         - name: as keys\n  command: git log\n  expect: {rewrite: {command: git log -20}}\n\
         - name: a wrong one\n  command: git log\n  expect: {rewrite: git log -5}\n",
    )
    .unwrap();
    let out = s.run(&["test", "--json", &path(&s, "pre-bash.git-short.sh")]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tests = report["files"][0]["tests"].as_array().unwrap();
    let passed: Vec<bool> = tests
        .iter()
        .map(|t| t["passed"].as_bool().unwrap())
        .collect();
    assert_eq!(passed, [true, true, false], "{report}");
    assert_eq!(tests[2]["got"]["rewrite"]["command"], "git log -20");
    assert_eq!(report["failed"], 1);
}

#[test]
fn a_rule_named_runs_its_cases_or_says_there_are_none() {
    let s = setup();
    let (code, text) = test_out(&s, &[&path(&s, "pre-bash.kubectl-guard.sh")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("  ok      a delete is denied"), "{text}");
    let (code, text) = test_out(&s, &[&path(&s, "pre-bash.git-short.sh")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "pre-bash.git-short.sh: no tests (write pre-bash.git-short.test.yaml beside it)"
        ),
        "{text}"
    );
}

#[test]
fn a_toml_file_with_an_odd_name_is_an_output_filter_file() {
    let s = setup();
    let file = s.root.join("my-filters.toml");
    std::fs::write(
        &file,
        "schema_version = 1\n[filters.quiet]\nmatch_command = '^make'\nstrip_lines_matching = ['^make\\[']\n\
         [[tests.quiet]]\nname = 'drops make lines'\ninput = \"make[1]: x\\nreal\"\nexpected = 'real'\n",
    )
    .unwrap();
    let (code, text) = test_out(&s, &[file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("ok      quiet: drops make lines"), "{text}");
}

#[test]
fn every_case_file_runs_when_none_is_named() {
    let s = setup();
    let (code, text) = test_out(&s, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("pre-bash.kubectl-guard.test.yaml (rule pre-bash.kubectl-guard.sh)"),
        "{text}"
    );
    assert!(
        text.contains(
            "package:rules/profiles/k8s-readonly/.claude/conditions/pre-bash.kubectl-readonly.test.yaml"
        ),
        "{text}"
    );
}

#[test]
fn case_files_are_not_invalid_rule_files() {
    let s = setup();
    let list = s.json(&["list", "--json"]);
    let invalid = list["invalid"].as_array().unwrap();
    assert!(invalid.is_empty(), "{list}");
    let active = list["active"].as_array().unwrap();
    assert!(
        active
            .iter()
            .all(|r| !r["file"].as_str().unwrap().ends_with(".test.yaml")),
        "{list}"
    );
    let out = s.run(&["compile", "--check"]);
    assert_success(&out, &["compile", "--check"]);
}

#[test]
fn a_rule_under_test_sees_the_scratch_home_not_the_persons() {
    let s = setup();
    rule_with(
        &s.runtime(),
        "pre-bash-home_probe.sh",
        "echo \"home:$HOOKDEX_HOME\" >&2; exit 2\n",
    );
    let cases = s.runtime().join("pre-bash-home_probe.test.yaml");
    std::fs::write(
        &cases,
        "- name: probe\n  command: ls\n  expect: {decision: deny, reason: \"home:/nowhere\"}\n",
    )
    .unwrap();
    let (code, text) = test_out(&s, &[cases.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{text}");
    let person = s.root.join("hookdex-home").display().to_string();
    assert!(text.contains("got \"home:/"), "{text}");
    assert!(
        !text.contains(&format!("home:{person}\"")),
        "the rule saw the person's HOOKDEX_HOME: {text}"
    );
}

/// An `.async` rule's case runs it to the end (so a crash fails the case)
/// and cannot expect an answer the hook never reads.
#[test]
fn an_async_rule_is_run_to_the_end_and_its_answer_is_not_expected() {
    let s = Scratch::new();
    let marker = s.root.join("audited");
    condition(
        &s.runtime(),
        "pre-bash-audit.async.sh",
        &format!(
            "#!/bin/bash\ninput=$(cat)\nsleep 0.2\necho ran > '{}'\n\
             case \"$input\" in *crash*) exit 3;; esac\n\
             echo '{{\"decision\": \"deny\", \"reason\": \"never read\"}}'\n",
            marker.display()
        ),
    );
    let cases = s.runtime().join("pre-bash-audit.test.yaml");
    std::fs::write(
        &cases,
        "- name: it runs\n  command: ls\n  expect: {decision: none}\n\
         - name: it cannot deny\n  command: ls\n  expect: {decision: deny, reason: never}\n\
         - name: a crash fails\n  command: crash\n  expect: {decision: none}\n",
    )
    .unwrap();
    let (code, text) = test_out(&s, &[&cases.display().to_string()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("  ok      it runs"), "{text}");
    assert!(text.contains("FAIL    it cannot deny"), "{text}");
    assert!(text.contains("never reads its answer"), "{text}");
    assert!(text.contains("FAIL    a crash fails"), "{text}");
    assert!(text.contains("the rule failed"), "{text}");
    // Waited for, not left running: the file is there when `test` returns.
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ran\n");

    // `try` shows it ran and that its answer is not the hook's.
    let out = s.run(&["try", "--tool", "Bash", "--command", "ls"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ASYNC  pre-bash-audit.async.sh"), "{text}");
    assert!(text.contains("merged    none"), "{text}");
}
