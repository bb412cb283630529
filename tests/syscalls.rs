//! The warm hook path under strace: no directory is listed, and the only
//! paths stat'ed are the recorded ones plus the `.git` probe; an ordinary
//! tool touches none of the harnesses' MCP settings files. Where strace
//! is missing or ptrace is not allowed the test is skipped with a line on
//! the terminal saying so; in CI (`CI=true`, where `.ci/run` installs
//! strace) that is a failure instead.

mod common;

use std::io::Write;
use std::process::Command;

use common::*;

/// Skips `test` visibly (outside the test harness's capture), or fails it in CI.
fn skip_test(test: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("in CI this test must run, but {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "tests/syscalls.rs: {test} SKIPPED: {why}"
    );
}

fn skip(why: &str) {
    skip_test("a_warm_hook_lists_no_directory", why);
}

#[test]
fn a_warm_hook_lists_no_directory() {
    if Command::new("strace").arg("-V").output().is_err() {
        skip("strace is not installed (apt-get install strace)");
        return;
    }
    let s = Scratch::new();
    for i in 0..50 {
        rule(&s.runtime(), &format!("pre-bash.cli{i}-r{i}.sh"));
    }
    rule(&s.hookdex_dir(), "pre-edit-x.sh");
    let payload = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls -la | wc -l"}},"cwd":"{}"}}"#,
        s.repo.display()
    );
    assert_success(&s.run(&["compile"]), &["compile"]);
    let trace = s.root.join("trace");
    let trace_arg = trace.display().to_string();
    let strace = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=getdents64,stat,lstat,newfstatat,statx",
        "-o",
        &trace_arg,
    ];
    let out = s.run_stdin_via(&strace, &["hook", "--target", "claude"], payload.as_bytes());
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    if !out.status.success() && text.is_empty() {
        skip(&format!(
            "strace could not trace ({})",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return;
    }
    assert!(
        !text.contains("getdents64"),
        "the warm hook listed a directory:\n{text}"
    );
    let stat_paths: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split('"').nth(1))
        .filter(|path| !path.is_empty())
        .collect();
    let root = s.root.display().to_string();
    let ours: Vec<&&str> = stat_paths.iter().filter(|p| p.starts_with(&root)).collect();
    assert!(
        ours.iter().any(|p| p.ends_with("hookdex-home/conditions")),
        "the runtime layer is checked: {ours:?}"
    );
    for path in &ours {
        assert!(
            !path.contains("/conditions/"),
            "a rule file was stat'ed on the warm path: {path}"
        );
    }
}

#[test]
fn ordinary_tools_read_no_mcp_settings() {
    let test = "ordinary_tools_read_no_mcp_settings";
    if Command::new("strace").arg("-V").output().is_err() {
        skip_test(test, "strace is not installed (apt-get install strace)");
        return;
    }
    let s = Scratch::new();
    rule(&s.runtime(), "pre-mcp__srv__tool-x.sh");
    let servers = r#"{"mcpServers": {"srv": {}}}"#;
    for file in [
        ".gemini/settings.json",
        ".copilot/mcp-config.json",
        ".cursor/mcp.json",
    ] {
        let path = s.path("home").join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, servers).unwrap();
    }
    assert_success(&s.run(&["compile"]), &["compile"]);
    let repo = s.repo.display();
    let traced = |target: &str, event: Option<&str>, payload: String| {
        let trace = s.root.join(format!("trace-{target}"));
        let trace_arg = trace.display().to_string();
        let strace = ["strace", "-f", "-qq", "-e", "trace=%file", "-o", &trace_arg];
        let mut args = vec!["hook", "--target", target];
        args.extend(event.map(|e| ["--event", e]).into_iter().flatten());
        let out = s.run_stdin_via(&strace, &args, payload.as_bytes());
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        (out.status.success() || !text.is_empty()).then_some(text)
    };
    let mcp_files = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                [".gemini", "mcp-config.json", "mcp.json"]
                    .iter()
                    .any(|f| l.contains(f))
            })
            .map(String::from)
            .collect()
    };
    let gemini = |tool: &str| {
        format!(
            r#"{{"hook_event_name":"BeforeTool","tool_name":"{tool}","tool_input":{{}},"cwd":"{repo}"}}"#
        )
    };
    // The control: an MCP spelling does read Gemini's settings.
    let Some(control) = traced("gemini", None, gemini("mcp_srv_tool")) else {
        skip_test(test, "strace could not trace");
        return;
    };
    assert!(
        !mcp_files(&control).is_empty(),
        "the control read no settings:\n{control}"
    );
    let ordinary = [
        ("gemini", None, gemini("read_file")),
        (
            "copilot",
            Some("preToolUse"),
            format!(r#"{{"toolName":"view","toolArgs":{{}},"cwd":"{repo}"}}"#),
        ),
        (
            "cursor",
            None,
            format!(
                r#"{{"hook_event_name":"preToolUse","tool_name":"Read","tool_input":{{}},"cwd":"{repo}"}}"#
            ),
        ),
    ];
    for (target, event, payload) in ordinary {
        let text = traced(target, event, payload).unwrap_or_default();
        assert_eq!(
            mcp_files(&text),
            Vec::<String>::new(),
            "{target} read MCP settings"
        );
    }
}

#[test]
fn an_edit_no_filter_admits_opens_no_rule_file() {
    let test = "an_edit_no_filter_admits_opens_no_rule_file";
    if Command::new("strace").arg("-V").output().is_err() {
        skip_test(test, "strace is not installed (apt-get install strace)");
        return;
    }
    let s = Scratch::new();
    let finders = s.runtime().join("_finders");
    rule_with(&finders, "tails.py", "print('[]')\n");
    rule_with(
        &s.runtime(),
        "pre-edit-tails.filter.yaml",
        "paths: ['*.tsx']\nfinders:\n  - script: tails\nmode: finders\n",
    );
    assert_success(&s.run(&["compile"]), &["compile"]);
    // The package's ui_slop filter fires for every Edit too: its paths
    // do not admit a Rust file either.
    let payload = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{{"file_path":"{repo}/src/main.rs","old_string":"a","new_string":"b; because"}},"cwd":"{repo}"}}"#,
        repo = s.repo.display()
    );
    let trace = s.root.join("trace");
    let trace_arg = trace.display().to_string();
    let strace = [
        "strace",
        "-f",
        "-qq",
        // Whole paths: a cut one could hide what it names.
        "-s",
        "4096",
        "-e",
        "trace=%file,getdents64",
        "-o",
        &trace_arg,
    ];
    let out = s.run_stdin_via(&strace, &["hook", "--target", "claude"], payload.as_bytes());
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    if !out.status.success() && text.is_empty() {
        skip_test(test, "strace could not trace");
        return;
    }
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !text.contains("getdents64"),
        "a directory was listed:\n{text}"
    );
    // Recorded paths are stat'ed for freshness, as before; none is opened
    // or run.
    let opening = ["open(", "openat(", "openat2(", "execve("];
    for line in text
        .lines()
        .filter(|l| opening.iter().any(|c| l.contains(c)))
    {
        let rule_file = ["_finders", ".filter.yaml", "/package-"]
            .iter()
            .any(|part| line.contains(part));
        assert!(!rule_file, "a rule file was opened: {line}");
    }
    // And nothing was written: no log line, no round count.
    assert!(!s.home().join("logs/hook.log").exists());
    assert!(!s.home().join("filters").exists());
    // The control: an edit the filter admits runs its finder.
    let tsx = payload.replace("src/main.rs", "src/App.tsx");
    s.run_stdin_via(&strace, &["hook", "--target", "claude"], tsx.as_bytes());
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    assert!(
        text.lines()
            .any(|l| l.contains("execve(") && l.contains("_finders/tails.py")),
        "the control ran no finder:\n{text}"
    );
}
