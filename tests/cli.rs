//! The command-line contract: `compile --check/--json/--bundle`, `show`,
//! `hook`, the human form of `explain`, and exit codes.

mod common;

use common::*;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn compile_check_fails_on_a_bundle_with_a_bad_file() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-bash-good.sh");
    let bad = rule(&conditions, "bad.sh");
    let bad_filter = rule_with(&conditions, "pre-edit-f.filter.yaml", "colour: red\n");
    let args = ["compile", "--check", "--bundle", bundle.to_str().unwrap()];
    let out = s.run(&args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    for path in [&bad, &bad_filter] {
        let prefix = format!("{}: ", path.display());
        let line = text
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", path.display()));
        assert!(line.len() > prefix.len(), "{line}");
    }
    assert!(text.contains("colour"), "{text}");
    // --check writes no index.
    assert!(s.index_files("claude").is_empty(), "{:?}", walk(&s.cache()));
}

#[test]
fn compile_check_passes_on_a_good_bundle() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-bash-good.sh");
    rule(&conditions, "README.md");
    rule(&conditions, "_lib.sh");
    rule_with(&conditions, "pre-edit-f.filter.yaml", "mode: classifier\n");
    rule(
        &bundle.join("profiles/p1/.claude/conditions"),
        "pre-bash-p.sh",
    );
    let args = ["compile", "--check", "--bundle", bundle.to_str().unwrap()];
    let out = s.run(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(!stdout(&out).contains(": "), "{}", stdout(&out));
}

#[test]
fn compile_bundle_accepts_a_relative_path() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    rule(&bundle.join(".claude/conditions"), "bad.sh");
    s.cwd = s.root.clone();
    let out = s.run(&["compile", "--check", "--bundle", "bundle"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let want = format!("{}: ", bundle.join(".claude/conditions/bad.sh").display());
    assert!(
        stdout(&out).lines().any(|l| l.starts_with(&want)),
        "{}",
        stdout(&out)
    );
}

#[test]
fn compile_json_reports_counts() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-bash-x.sh");
    rule(&conditions, "pre-bash-y.sh");
    rule(&conditions, "bad.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    let report = s.json(&["compile", "--json", "--bundle", bundle.to_str().unwrap()]);
    let layer_count = |label: &str| {
        report["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["label"] == label)
            .unwrap_or_else(|| panic!("no {label}: {report:#}"))["count"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(layer_count("bundle"), 2);
    assert_eq!(layer_count("runtime"), 1);
    let package = layer_count("package");
    assert_eq!(report["rules"].as_u64().unwrap(), 3 + package, "{report:#}");
    let invalid = report["invalid"].as_array().unwrap();
    assert!(
        invalid
            .iter()
            .any(|i| i["file"].as_str().unwrap().ends_with("/bad.sh")),
        "{report:#}"
    );
    // One of the two `pre-bash-x` is overridden.
    let active = report["active"].as_u64().unwrap();
    assert_eq!(active, 2 + package, "{report:#}");
    assert_eq!(report["written"], true);
    // --json without --check still exits 0 with invalid files.
    let check = s.run(&[
        "compile",
        "--check",
        "--json",
        "--bundle",
        bundle.to_str().unwrap(),
    ]);
    assert_eq!(check.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["check"], true);
    assert_eq!(report["written"], false);
}

#[test]
fn show_prints_the_body() {
    let s = Scratch::new();
    let body = "#!/bin/bash\n# guard\necho '{\"decision\":\"deny\"}'\n";
    rule_with(&s.runtime(), "pre-bash.git-guard.sh", body);
    rule_with(&s.runtime(), "post-any-audit.async.py", "print('hi')\n");
    for name in [
        "guard",
        "pre-bash.git-guard",
        "pre-bash.git-guard.sh",
        "GUARD",
    ] {
        let out = s.run(&["show", name]);
        assert_success(&out, &["show", name]);
        assert_eq!(stdout(&out), body, "{name}");
    }
    let out = s.run(&["show", "audit"]);
    assert_success(&out, &["show", "audit"]);
    assert_eq!(stdout(&out), "print('hi')\n");
}

#[test]
fn show_prints_the_winning_layers_body() {
    let mut s = Scratch::new();
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    rule_with(
        &bundle.join(".claude/conditions"),
        "pre-bash-x.sh",
        "bundle\n",
    );
    rule_with(&s.runtime(), "pre-bash-x.sh", "runtime\n");
    let out = s.run(&["show", "x"]);
    assert_success(&out, &["show", "x"]);
    assert_eq!(stdout(&out), "runtime\n");
}

#[test]
fn show_unknown_name_fails_with_one_line() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-x.sh");
    let out = s.run(&["show", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn show_ambiguous_name_fails_and_names_the_keys() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-audit.sh");
    rule(&s.runtime(), "post-any-audit.sh");
    let out = s.run(&["show", "audit"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("pre-bash-audit"), "{err}");
    assert!(err.contains("post-any-audit"), "{err}");
    // The key picks one.
    let out = s.run(&["show", "post-any-audit"]);
    assert_success(&out, &["show", "post-any-audit"]);
}

fn hook_tree() -> Scratch {
    let s = Scratch::new();
    // Empty bodies: whatever execution does later, they answer nothing.
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.hookdex_dir(), "pre-any-y.sh");
    s
}

fn assert_quiet_success(out: &std::process::Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(out));
    assert!(out.stdout.is_empty(), "{what}: stdout {}", stdout(out));
}

/// Exit 0 and nothing decided: no reply, or only a note for the person.
fn assert_fails_open(out: &std::process::Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(out));
    if out.stdout.is_empty() {
        return;
    }
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["systemMessage"], "{what}: {reply}");
}

#[test]
fn hook_answers_a_bash_payload() {
    let s = hook_tree();
    let payload = serde_json::json!({
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "cwd": s.repo,
        "tool_name": "Bash",
        "tool_input": {"command": "git push"},
    });
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        payload.to_string().as_bytes(),
    );
    assert_quiet_success(&out, "bash payload");
    // It compiled and wrote the index for this view.
    assert_eq!(s.index_files("claude").len(), 1);
    let e = s.explain(&["--tool", "Bash", "--command", "git push"]);
    assert!(e.fresh(), "{:#}", e.0["index"]);
}

#[test]
fn hook_always_exits_zero() {
    let s = hook_tree();
    let payloads: &[(&str, &[u8])] = &[
        ("empty stdin", b""),
        ("not json", b"not json"),
        ("json array", b"[1,2,3]"),
        ("json null", b"null"),
        ("no tool", br#"{"hook_event_name":"PreToolUse"}"#),
        (
            "wrong types",
            br#"{"tool_name":7,"tool_input":"x","cwd":false}"#,
        ),
        (
            "missing cwd dir",
            br#"{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/nonexistent/deep/dir"}"#,
        ),
        ("binary", &[0xff, 0xfe, 0x00, 0x01, 0x80]),
        (
            "post event",
            br#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":""}}"#,
        ),
    ];
    for (what, payload) in payloads {
        let out = s.run_stdin(&["hook", "--target", "claude"], payload);
        assert_fails_open(&out, what);
    }
    for target in ["codex", "copilot", "gemini", "cursor"] {
        let out = s.run_stdin(
            &["hook", "--target", target],
            br#"{"tool_name":"shell","tool_input":{"command":"ls"}}"#,
        );
        assert_quiet_success(&out, target);
    }
    // A corrupt index does not make it fail either.
    let e = s.explain(&["--tool", "Bash"]);
    let index = e.0["index"]["path"]
        .as_str()
        .expect("index.path")
        .to_string();
    std::fs::write(&index, b"HOOKDEX\0garbage").unwrap();
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    assert_quiet_success(&out, "corrupt index");
}

#[test]
fn explain_human_form_reads_top_to_bottom() {
    let mut s = Scratch::new();
    set_origin(&s.repo, "git@github.com:stranger/r.git");
    let bundle = s.bundle("bundle");
    s.set_env("HOOKDEX_BUNDLE", bundle.display().to_string());
    rule(&bundle.join(".claude/conditions"), "pre-any-audit.sh");
    rule(&bundle.join(".claude/conditions"), "pre-bash.git-guard.sh");
    rule(&s.runtime(), "pre-bash.git-guard.sh");
    rule(&s.runtime(), "pre-bash.kubectl-readonly.sh");
    rule(&s.hookdex_dir(), "pre-bash.git-x.sh");
    let args = [
        "explain",
        "--tool",
        "Bash",
        "--command",
        "cd x && sudo -u bob git push",
    ];
    let out = s.run(&args);
    assert_success(&out, &args);
    let text = stdout(&out);
    let line = |needle: &str| -> String {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle}:\n{text}"))
            .to_string()
    };
    assert!(line("Bash").contains("bash"), "{text}");
    assert!(line("programs").contains("cd, git"), "{text}");
    assert!(line("index").contains("µs") || line("index").contains("us"));
    let audit = line("pre-any-audit.sh");
    assert!(audit.starts_with("FIRES"), "{audit}");
    assert!(audit.contains("bundle"), "{audit}");
    let kubectl = line("pre-bash.kubectl-readonly.sh");
    assert!(kubectl.starts_with("skip"), "{kubectl}");
    assert!(kubectl.contains("no program kubectl"), "{kubectl}");
    let npm = line("pre-bash.git-x.sh");
    assert!(npm.starts_with("skip"), "{npm}");
    assert!(npm.contains("not trusted"), "{npm}");
    assert!(npm.contains("stranger"), "{npm}");
    let guard: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("pre-bash.git-guard.sh"))
        .collect();
    assert_eq!(guard.len(), 2, "{text}");
    assert!(guard
        .iter()
        .any(|l| l.starts_with("FIRES") && l.contains("runtime") && l.contains("program git")));
    assert!(guard.iter().any(|l| l.starts_with("skip")
        && l.contains("bundle")
        && l.contains("overridden by runtime/pre-bash.git-guard.sh")));
    // FIRES lines come first.
    let lines: Vec<&str> = text.lines().collect();
    let first_skip = lines.iter().position(|l| l.starts_with("skip")).unwrap();
    let last_fire = lines.iter().rposition(|l| l.starts_with("FIRES")).unwrap();
    assert!(last_fire < first_skip, "{text}");
}

#[test]
fn explain_json_has_the_contract_keys() {
    let s = Scratch::new();
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-read-y.sh");
    let e = s.explain(&["--tool", "Bash", "--command", "git status"]);
    let v = &e.0;
    for key in ["fires", "skipped", "programs", "tool", "index"] {
        assert!(v.get(key).is_some(), "no {key}: {v:#}");
    }
    assert!(v["index"]["fresh"].is_boolean());
    assert!(v["index"]["lookup_ns"].is_u64());
    for f in v["fires"].as_array().unwrap() {
        for key in ["file", "layer", "why"] {
            assert!(f[key].is_string(), "{f}");
        }
    }
    for f in v["skipped"].as_array().unwrap() {
        for key in ["file", "layer", "reason"] {
            assert!(f[key].is_string(), "{f}");
        }
    }
    let list = s.list(&["--tool", "Bash"]);
    for key in ["layers", "active", "invalid", "fires"] {
        assert!(list[key].is_array(), "no {key}: {list:#}");
    }
    for l in list["layers"].as_array().unwrap() {
        assert!(l["label"].is_string() && l["dir"].is_string());
        assert!(l["count"].is_u64() && l["trusted"].is_boolean(), "{l}");
    }
    for r in list["active"].as_array().unwrap() {
        for key in ["file", "layer", "step", "matcher", "name", "kind"] {
            assert!(r[key].is_string(), "{r}");
        }
    }
    let plain = s.list(&[]);
    assert!(plain.get("fires").is_none(), "{plain:#}");
}

#[test]
fn usage_errors_exit_2() {
    let s = Scratch::new();
    for args in [
        &["bogus"][..],
        &[][..],
        &["explain"][..],
        &["explain", "--tool", "Bash", "--target", "vim"][..],
        &["explain", "--tool", "Bash", "--step", "during"][..],
        &["list", "--frobnicate"][..],
        &["show"][..],
        &["compile", "--bundle"][..],
    ] {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?}");
    }
}

#[test]
fn runtime_errors_exit_1_with_one_line() {
    let s = Scratch::new();
    let out = s.run(&["compile", "--bundle", "/nonexistent/bundle"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).trim_end().lines().count(),
        1,
        "{}",
        stderr(&out)
    );
}

/// `--input` that is not JSON is a malformed argument, like `--target vim`:
/// clap's message, its first line naming the argument and the reason.
#[test]
fn malformed_input_json_is_a_usage_error() {
    let s = Scratch::new();
    for (input, reason) in [("not json", "not valid JSON"), ("[1,2]", "JSON object")] {
        let out = s.run(&["explain", "--tool", "Bash", "--input", input]);
        assert_eq!(out.status.code(), Some(2), "{input}: {}", stderr(&out));
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        assert!(first.contains("--input") && first.contains(reason), "{err}");
        assert!(err.contains("try '--help'"), "{err}");
    }
}

/// A usage error prints clap's whole message: the reason, a tip, the usage.
#[test]
fn usage_errors_print_the_whole_message() {
    let s = Scratch::new();
    let cases: &[(&[&str], &[&str])] = &[
        (&["init"], &["--target <TARGET>", "Usage: hookdex init"]),
        (
            &["list", "--stpe", "pre"],
            &[
                "'--stpe'",
                "tip: a similar argument exists: '--step'",
                "Usage:",
            ],
        ),
        (
            &["list", "--step", "during"],
            &["--step", "during", "For more information, try '--help'"],
        ),
        (
            &["completions", "tcsh"],
            &["possible values: bash, elvish, fish, powershell, zsh"],
        ),
    ];
    for (args, wanted) in cases {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(err.lines().count() > 2, "{args:?}: {err}");
        for want in *wanted {
            assert!(err.contains(want), "{args:?}: no {want:?} in\n{err}");
        }
    }
    // `hook` stays quiet for its harness: exit 0, the reason on one line.
    let out = s.run_stdin(&["hook", "--target", "vim"], b"{}");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn bare_hookdex_prints_help() {
    let s = Scratch::new();
    let out = s.run(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for want in [
        "Usage: hookdex <COMMAND>",
        "Commands:",
        "compile",
        "completions",
    ] {
        assert!(err.contains(want), "no {want:?} in\n{err}");
    }
}

#[test]
fn version_names_the_commit_when_built_in_git() {
    let s = Scratch::new();
    let out = s.run(&["--version"]);
    assert_success(&out, &["--version"]);
    let line = stdout(&out);
    let version = concat!("hookdex ", env!("CARGO_PKG_VERSION"));
    assert!(line.starts_with(version), "{line}");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(commit) = commit {
        let commit = String::from_utf8_lossy(&commit.stdout).trim().to_string();
        assert_eq!(line.trim_end(), format!("{version} ({commit})"));
    }
}

#[test]
fn completions_print_a_script_per_shell() {
    let s = Scratch::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = s.run(&["completions", shell]);
        assert_success(&out, &["completions", shell]);
        let script = stdout(&out);
        assert!(script.contains("hookdex"), "{shell}: {script}");
        assert!(script.contains("explain"), "{shell}: {script}");
    }
    assert!(stdout(&s.run(&["completions", "bash"])).contains("complete -F _hookdex"));
}

/// `show` takes every spelling `list` and `explain` print: the path, the
/// file name, the name without its extension, `LAYER/FILE`; when a name
/// designates rules in several layers, it says which.
#[test]
fn show_finds_the_names_list_prints() {
    let s = Scratch::new();
    let runtime = rule_with(
        &s.runtime(),
        "pre-bash.kubectl-readonly.sh",
        "#!/bin/bash\n# runtime\n",
    );
    rule_with(
        &s.hookdex_dir(),
        "post-bash.kubectl-audit.sh",
        "# directory\n",
    );
    let listed = s.list(&[]);
    let file = listed["active"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| r["file"].as_str().filter(|f| f.ends_with("readonly.sh")))
        .unwrap_or_else(|| panic!("{listed:#}"))
        .to_string();
    assert_eq!(file, runtime.display().to_string());
    let text = stdout(&s.run(&["list"]));
    assert!(text.lines().any(|l| l.contains(&file)), "{text}");
    for name in [
        file.as_str(),
        "pre-bash.kubectl-readonly.sh",
        "pre-bash.kubectl-readonly",
        "runtime/pre-bash.kubectl-readonly.sh",
        "readonly",
    ] {
        let out = s.run(&["show", name]);
        assert_success(&out, &["show", name]);
        assert_eq!(stdout(&out), "#!/bin/bash\n# runtime\n", "{name}");
    }
    let shown = s.json(&["show", "--json", "readonly"]);
    assert_eq!(shown["layer"], "runtime", "{shown:#}");
    assert_eq!(shown["file"], file.as_str());
    assert_eq!(shown["key"], "pre-bash.kubectl-readonly");
    assert_eq!(shown["body"], "#!/bin/bash\n# runtime\n");
    // The same name part in two layers: the error names both as `LAYER/FILE`.
    rule_with(&s.hookdex_dir(), "pre-bash.git-readonly.sh", "# git\n");
    let out = s.run(&["show", "readonly"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("runtime/pre-bash.kubectl-readonly.sh"),
        "{err}"
    );
    assert!(err.contains("directory/pre-bash.git-readonly.sh"), "{err}");
    let out = s.run(&["show", "directory/pre-bash.git-readonly.sh"]);
    assert_eq!(stdout(&out), "# git\n", "{}", stderr(&out));
}

/// `compile`'s summary line adds up: every rule is active or overridden,
/// every file that did not parse is invalid, and they sum to the total.
#[test]
fn compile_check_counts_add_up() {
    let s = Scratch::new();
    let bundle = s.bundle("bundle");
    let conditions = bundle.join(".claude/conditions");
    rule(&conditions, "pre-bash-x.sh");
    rule(&conditions, "pre-bash-y.sh");
    rule(&conditions, "bad.sh");
    rule(&conditions, "worse.sh");
    rule(&s.runtime(), "pre-bash-x.sh");
    let args = ["compile", "--check", "--bundle", bundle.to_str().unwrap()];
    let out = s.run(&args);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("checked "))
        .unwrap_or_else(|| panic!("{text}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().unwrap())
        .collect();
    let [total, active, overridden, invalid] = numbers[..] else {
        panic!("{line}");
    };
    assert_eq!(total, active + overridden + invalid, "{line}");
    assert_eq!((overridden, invalid), (1, 2), "{line}");
    let words = format!("{active} active, 1 overridden, 2 invalid");
    assert!(
        line.starts_with(&format!("checked {total} rules ({words}) from ")),
        "{line}"
    );
    let report = s.json(&["compile", "--json", "--bundle", bundle.to_str().unwrap()]);
    assert_eq!(report["overridden"], 1, "{report:#}");
    assert_eq!(report["active"], active, "{report:#}");
}

/// A regex that does not parse is reported with regex-syntax's reason and
/// its column, in a filter's finder and in a `hooks.yaml` matcher.
#[test]
fn a_regex_error_names_the_reason_and_position() {
    let s = Scratch::new();
    let filter = rule_with(
        &s.runtime(),
        "pre-edit-f.filter.yaml",
        "finders:\n  - regex: '(?i)because(x'\n    reason: r\nmode: finders\n",
    );
    let hooks = s.home().join("hooks.yaml");
    std::fs::write(
        &hooks,
        "hooks:\n  PreToolUse:\n    - matcher: \"Bash|(x\"\n      hooks:\n        - type: command\n          command: \"true\"\n",
    )
    .unwrap();
    let out = s.run(&["compile", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let line = |file: &std::path::Path| {
        let prefix = format!("{}: ", file.display());
        text.lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", file.display()))
            .to_string()
    };
    let finder = line(&filter);
    assert!(
        finder.ends_with("regex `(?i)because(x`: unclosed group at column 12"),
        "{finder}"
    );
    let matcher = line(&hooks);
    assert!(
        matcher.ends_with("regex `Bash|(x`: unclosed group at column 6"),
        "{matcher}"
    );
    assert!(!text.contains("error building NFA"), "{text}");
}

/// A key typo names the nearest known key, in a filter file and in
/// `hooks.yaml`.
#[test]
fn a_key_typo_suggests_the_nearest_key() {
    let s = Scratch::new();
    let filter = rule_with(
        &s.runtime(),
        "pre-edit-g.filter.yaml",
        "finders:\n  - regex: 'x'\n    reasn: r\nmode: finders\n",
    );
    let hooks = s.home().join("hooks.yaml");
    std::fs::write(
        &hooks,
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          comand: \"true\"\n",
    )
    .unwrap();
    let out = s.run(&["compile", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    for (file, typo, key) in [(&filter, "reasn", "reason"), (&hooks, "comand", "command")] {
        let want = format!("unknown key `{typo}` (did you mean `{key}`?)");
        assert!(
            text.lines()
                .any(|l| l.starts_with(&file.display().to_string()) && l.contains(&want)),
            "no {want:?} for {}:\n{text}",
            file.display()
        );
    }
}

/// Status words are coloured only on a terminal and without `NO_COLOR`:
/// a pipe never gets escape codes; under a pseudo-terminal (`script`, when
/// installed) they come and `NO_COLOR` takes them away.
#[test]
fn colour_only_on_a_terminal_without_no_color() {
    let mut s = Scratch::new();
    rule(&s.runtime(), "pre-bash-x.sh");
    rule(&s.runtime(), "pre-read-y.sh");
    let args = ["explain", "--tool", "Bash", "--command", "ls"];
    let escapes = |out: &std::process::Output| out.stdout.contains(&0x1b);
    let piped = s.run(&args);
    assert_success(&piped, &args);
    assert!(stdout(&piped).contains("FIRES"), "{}", stdout(&piped));
    assert!(!escapes(&piped), "{}", stdout(&piped));
    let has_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // `script` runs `$0 $*` (the binary and these plain words) on a terminal.
    let tty = ["sh", "-c", "exec script -qec \"$0 $*\" /dev/null"];
    if has_script {
        let out = s.cmd_via(&tty, &args).output().unwrap();
        assert!(escapes(&out), "{}", stdout(&out));
    }
    s.set_env("NO_COLOR", "1");
    assert!(!escapes(&s.run(&args)));
    if has_script {
        let out = s.cmd_via(&tty, &args).output().unwrap();
        assert!(stdout(&out).contains("FIRES"), "{}", stdout(&out));
        assert!(!escapes(&out), "{}", stdout(&out));
    }
}

/// A prompt asking for a rule opens the gate, and `list --session` shows
/// when it closes at the latest as a local `HH:MM` (here in UTC), never as
/// milliseconds since the epoch.
#[test]
fn the_gate_opens_for_a_rule_and_shows_its_deadline_as_a_clock_time() {
    let mut s = Scratch::new();
    s.set_env("TZ", "UTC");
    let prompt = serde_json::json!({
        "session_id": "s1",
        "hook_event_name": "UserPromptSubmit",
        "cwd": s.repo,
        "prompt": "add a rule that blocks git push --force",
    });
    let out = s.run_stdin(
        &["hook", "--target", "claude"],
        prompt.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = s.list(&["--session", "s1"]);
    let gate = &listed["gate"];
    assert_eq!(gate["state"], "open", "{gate:#}");
    let until_ms = gate["until_ms"].as_u64().unwrap();
    let secs = until_ms / 1000;
    let clock = format!("{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60);
    assert_eq!(gate["until"], clock.as_str(), "{gate:#}");
    let text = stdout(&s.run(&["list", "--session", "s1"]));
    let line = text
        .lines()
        .find(|l| l.starts_with("gate:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.ends_with(&format!("(at the latest {clock})")),
        "{line}"
    );
    assert!(!line.contains("epoch"), "{line}");
}

/// `init --json` prints the files it wrote (or left unchanged) and its notes.
#[test]
fn init_json_lists_the_files_and_notes() {
    let s = Scratch::new();
    let args = ["init", "--target", "claude", "--json"];
    let first = s.json(&args);
    let files = first["files"].as_array().unwrap();
    assert!(!files.is_empty(), "{first:#}");
    for file in files {
        assert_eq!(file["action"], "wrote", "{first:#}");
        assert!(std::path::Path::new(file["path"].as_str().unwrap()).is_file());
    }
    assert!(first["notes"].is_array(), "{first:#}");
    assert_eq!(
        first["next_steps"].as_array().unwrap().len(),
        3,
        "{first:#}"
    );
    let dry = s.json(&["init", "--target", "codex", "--dry-run", "--json"]);
    assert!(dry["dry_run"].as_bool().unwrap(), "{dry:#}");
    assert!(
        dry["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["action"] != "wrote"),
        "{dry:#}"
    );
    let again = s.json(&args);
    assert!(
        again["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["action"] == "unchanged"),
        "{again:#}"
    );
}
