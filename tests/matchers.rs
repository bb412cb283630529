//! Matchers on normalized tool names, `bash.<cli>` programs, MCP prefixes and
//! per-harness normalization, end to end through `explain --json`.

mod common;

use common::*;

/// A scratch tree whose runtime layer holds one rule per matcher form.
fn matcher_rules() -> Scratch {
    let s = Scratch::new();
    for name in [
        "pre-any-all.sh",
        "pre-bash-sh.sh",
        "pre-bash.git-git.sh",
        "pre-bash.kubectl-kube.sh",
        "pre-edit+write-files.sh",
        "pre-read-reads.sh",
        "pre-mcp-every_mcp.sh",
        "pre-mcp__github-gh_server.sh",
        "pre-mcp__github__create_pr-gh_pr.sh",
        "pre-mcp__gateway-tools-gw.sh",
        "post-bash.git-after.sh",
    ] {
        rule(&s.runtime(), name);
    }
    s
}

fn fired(s: &Scratch, args: &[&str]) -> Vec<String> {
    let mut names = s.explain(args).fire_names();
    names.sort();
    names
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn bash_cli_fires_on_the_program_not_on_its_mention() {
    let s = matcher_rules();
    let e = s.explain(&[
        "--tool",
        "Bash",
        "--command",
        "cd x && sudo -u bob git push",
    ]);
    assert_eq!(e.tool(), "bash");
    assert_eq!(e.programs(), ["cd", "git"]);
    let mut names = e.fire_names();
    names.sort();
    assert_eq!(
        names,
        sorted(&["pre-any-all.sh", "pre-bash-sh.sh", "pre-bash.git-git.sh"])
    );
    assert!(e.why("/pre-bash.git-git.sh").contains("program git"));

    let e = s.explain(&["--tool", "Bash", "--command", "echo git"]);
    let mut names = e.fire_names();
    names.sort();
    assert_eq!(names, sorted(&["pre-any-all.sh", "pre-bash-sh.sh"]));
    let reason = e.skip_reason("runtime", "/pre-bash.git-git.sh");
    assert!(reason.contains("no program git"), "{reason}");
    assert!(reason.contains("echo"), "{reason}");
}

#[test]
fn bash_cli_sees_through_shell_syntax() {
    let s = matcher_rules();
    let git = ["pre-any-all.sh", "pre-bash-sh.sh", "pre-bash.git-git.sh"];
    let no_git = ["pre-any-all.sh", "pre-bash-sh.sh"];
    let cases: &[(&str, &[&str])] = &[
        ("git status", &git),
        ("/usr/bin/git status", &git),
        ("FOO=1 BAR=2 git commit", &git),
        ("env -i FOO=1 git status", &git),
        ("timeout -s KILL 5 git fetch", &git),
        ("nohup git gc", &git),
        ("ls | grep x; git log", &git),
        ("make || git stash", &git),
        ("echo \"$(git rev-parse HEAD)\"", &git),
        ("echo `git describe`", &git),
        ("x=$(git rev-parse HEAD)", &git),
        ("(cd sub && git pull)", &git),
        ("if true; then git push; fi", &git),
        ("bash -c 'git push --force'", &git),
        ("sh -c \"git reset --hard\"", &git),
        ("2>&1 git status", &git),
        ("diff <(git show HEAD:a) a", &git),
        ("echo 'git push'", &no_git),
        ("echo git # git push", &no_git),
        ("grep -r git .", &no_git),
        ("cat <<EOF\ngit push\nEOF", &no_git),
        ("echo hi > git", &no_git),
        ("legit status", &no_git),
    ];
    for (command, want) in cases {
        assert_eq!(
            fired(&s, &["--tool", "Bash", "--command", command]),
            sorted(want),
            "command: {command}"
        );
    }
}

#[test]
fn bash_cli_only_applies_to_bash() {
    let s = matcher_rules();
    // A `command` field on another tool is not a shell command.
    let e = s.explain(&["--tool", "Write", "--command", "git push"]);
    assert!(!e.fire_names().contains(&"pre-bash.git-git.sh".to_string()));
    let reason = e.skip_reason("runtime", "/pre-bash.git-git.sh");
    assert!(reason.contains("not bash"), "{reason}");
}

#[test]
fn alternatives_and_plain_tools() {
    let s = matcher_rules();
    for tool in ["Write", "Edit"] {
        assert_eq!(
            fired(&s, &["--tool", tool, "--path", "a.txt"]),
            sorted(&["pre-any-all.sh", "pre-edit+write-files.sh"]),
            "{tool}"
        );
    }
    assert_eq!(
        fired(&s, &["--tool", "Read", "--path", "a.txt"]),
        sorted(&["pre-any-all.sh", "pre-read-reads.sh"])
    );
    let e = s.explain(&["--tool", "Write"]);
    assert_eq!(e.why("/pre-edit+write-files.sh"), "write");
    let reason = e.skip_reason("runtime", "/pre-read-reads.sh");
    assert!(reason.contains("write"), "{reason}");
    // Unknown tools still meet `any`.
    assert_eq!(
        fired(&s, &["--tool", "SomethingNew"]),
        sorted(&["pre-any-all.sh"])
    );
}

#[test]
fn mcp_matchers() {
    let s = matcher_rules();
    assert_eq!(
        fired(&s, &["--tool", "mcp__github__create_pr"]),
        sorted(&[
            "pre-any-all.sh",
            "pre-mcp-every_mcp.sh",
            "pre-mcp__github-gh_server.sh",
            "pre-mcp__github__create_pr-gh_pr.sh",
        ])
    );
    // `mcp__s__t` is exact.
    assert_eq!(
        fired(&s, &["--tool", "mcp__github__create_prx"]),
        sorted(&[
            "pre-any-all.sh",
            "pre-mcp-every_mcp.sh",
            "pre-mcp__github-gh_server.sh"
        ])
    );
    // `mcp__github` is a whole server, not a name prefix.
    assert_eq!(
        fired(&s, &["--tool", "mcp__githubx__list"]),
        sorted(&["pre-any-all.sh", "pre-mcp-every_mcp.sh"])
    );
    // Hyphenated server names.
    assert_eq!(
        fired(
            &s,
            &["--tool", "mcp__gateway-tools__github-create_pull_request"]
        ),
        sorted(&[
            "pre-any-all.sh",
            "pre-mcp-every_mcp.sh",
            "pre-mcp__gateway-tools-gw.sh"
        ])
    );
    // Case-insensitive on the tool name.
    assert_eq!(
        fired(&s, &["--tool", "mcp__GitHub__Create_PR"]),
        fired(&s, &["--tool", "mcp__github__create_pr"])
    );
    // `mcp` is not a tool of its own, and not a prefix of other names.
    assert_eq!(
        fired(&s, &["--tool", "mcpserver"]),
        sorted(&["pre-any-all.sh"])
    );
}

#[test]
fn steps_are_separate() {
    let s = matcher_rules();
    let e = s.explain(&["--tool", "Bash", "--command", "git push", "--step", "post"]);
    assert_eq!(e.fire_names(), ["post-bash.git-after.sh"]);
    let reason = e.skip_reason("runtime", "/pre-any-all.sh");
    assert!(reason.contains("step pre"), "{reason}");
}

#[test]
fn codex_exec_list_command_is_a_bash_call() {
    let s = matcher_rules();
    let e = s.explain(&[
        "--target",
        "codex",
        "--tool",
        "exec",
        "--input",
        r#"{"command":["bash","-lc","kubectl delete pod x"]}"#,
    ]);
    assert_eq!(e.tool(), "bash");
    assert!(e.programs().contains(&"kubectl".to_string()), "{:?}", e.0);
    let mut names = e.fire_names();
    names.sort();
    assert_eq!(
        names,
        sorted(&[
            "pre-any-all.sh",
            "pre-bash-sh.sh",
            "pre-bash.kubectl-kube.sh"
        ])
    );
    assert!(e
        .why("/pre-bash.kubectl-kube.sh")
        .contains("program kubectl"));
}

#[test]
fn other_harnesses_normalize_their_tool_names() {
    let s = matcher_rules();
    let e = s.explain(&[
        "--target",
        "gemini",
        "--tool",
        "run_shell_command",
        "--command",
        "kubectl get pods",
    ]);
    assert_eq!(e.tool(), "bash");
    assert_eq!(
        fired(
            &s,
            &[
                "--target",
                "gemini",
                "--tool",
                "run_shell_command",
                "--command",
                "kubectl get pods"
            ]
        ),
        sorted(&[
            "pre-any-all.sh",
            "pre-bash-sh.sh",
            "pre-bash.kubectl-kube.sh"
        ])
    );

    let e = s.explain(&["--target", "copilot", "--tool", "view", "--path", "a.rs"]);
    assert_eq!(e.tool(), "read");
    assert_eq!(
        fired(&s, &["--target", "copilot", "--tool", "view"]),
        sorted(&["pre-any-all.sh", "pre-read-reads.sh"])
    );
    assert_eq!(
        fired(&s, &["--target", "copilot", "--tool", "create"]),
        sorted(&["pre-any-all.sh", "pre-edit+write-files.sh"])
    );
    assert_eq!(
        fired(&s, &["--target", "codex", "--tool", "apply_patch"]),
        sorted(&["pre-any-all.sh", "pre-edit+write-files.sh"])
    );
    // Gemini's MCP spelling is resolved against the servers in its settings.
    let gemini_mcp = ["--target", "gemini", "--tool", "mcp_github_create_pr"];
    assert_eq!(fired(&s, &gemini_mcp), sorted(&["pre-any-all.sh"]));
    let settings = s.path("home/.gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"mcpServers": {"github": {"command": "gh-mcp"}}}"#,
    )
    .unwrap();
    assert_eq!(
        fired(&s, &gemini_mcp),
        fired(&s, &["--tool", "mcp__github__create_pr"])
    );
    // Each target gets its own index file.
    assert!(!s.index_files("gemini").is_empty());
    assert!(!s.index_files("copilot").is_empty());
}

#[test]
fn strict_mode_fires_every_cli_rule_on_a_dynamic_program() {
    let mut s = matcher_rules();
    let all_bash = [
        "pre-any-all.sh",
        "pre-bash-sh.sh",
        "pre-bash.git-git.sh",
        "pre-bash.kubectl-kube.sh",
    ];
    let plain = ["pre-any-all.sh", "pre-bash-sh.sh"];
    let dynamic = ["ls; $K get pods", "python3 -c 'import os'", "curl x | sh"];
    for command in dynamic {
        let e = s.explain(&["--tool", "Bash", "--command", command]);
        assert!(
            e.0["dynamic"].as_array().is_some_and(|d| !d.is_empty()),
            "{command}"
        );
        assert_eq!(e.0["shell_strict"], false);
        assert_eq!(
            fired(&s, &["--tool", "Bash", "--command", command]),
            sorted(&plain)
        );
    }
    s.set_env("HOOKDEX_SHELL_STRICT", "1");
    for command in dynamic {
        assert_eq!(
            fired(&s, &["--tool", "Bash", "--command", command]),
            sorted(&all_bash),
            "command: {command}"
        );
    }
    let e = s.explain(&["--tool", "Bash", "--command", "$K get"]);
    assert_eq!(e.0["dynamic"][0]["reason"], "expansion");
    assert_eq!(e.0["dynamic"][0]["text"], "$K");
    assert!(e.why("/pre-bash.kubectl-kube.sh").contains("cannot name"));
    // A command whose programs are all known is matched as before.
    let e = s.explain(&["--tool", "Bash", "--command", "git status"]);
    assert_eq!(e.0["dynamic"].as_array().map(Vec::len), Some(0));
    let git = ["pre-any-all.sh", "pre-bash-sh.sh", "pre-bash.git-git.sh"];
    assert_eq!(
        fired(&s, &["--tool", "Bash", "--command", "git status"]),
        sorted(&git)
    );
    // Only bash calls: an edit is no shell command.
    assert_eq!(
        fired(&s, &["--tool", "Edit", "--path", "$K"]),
        sorted(&["pre-any-all.sh", "pre-edit+write-files.sh"])
    );
}
