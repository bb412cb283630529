//! The guard wired through the hook, judged by outcome: a PreToolUse shell
//! call goes to `hookdex hook` for each harness that can rewrite, the reply
//! is applied as the harness applies it (its rewrite field replaces the
//! command, which the harness's shell, real bash here, then runs), and a
//! stub `kubectl` on PATH says whether the program ran. Also: Claude Code's
//! shell prefix, `HOOKDEX_ENFORCE=require` where the kernel cannot (the
//! hook run under an outer guard, whose listener makes a second one fail),
//! the write gate through the binary, the notice told once, `list` and
//! `explain`, and a supervisor killed mid-command.
//!
//! Skips, saying why, where the kernel cannot supervise (no seccomp user
//! notification); CI fails instead of skipping.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{
    assert_success, rule_with, set_executable, shell, skip_without, stub_on_path, Scratch, BIN,
};
use serde_json::{json, Value};

const RULE: &str = "pre-bash.kubectl-readonly.sh";
const RULE_BODY: &str = "#!/bin/bash\n\
command=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_input\"][\"command\"])')\n\
case \"$command\" in *' delete'*) echo 'kubectl is read-only here' >&2; exit 2;; esac\n\
exit 0\n";

/// Whether the kernel can supervise here; says why not.
fn available(test: &str) -> bool {
    let status =
        std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail").unwrap_or_default();
    let ok = status.split_whitespace().any(|a| a == "user_notif")
        && Command::new("bash").arg("-c").arg("true").status().is_ok()
        && Command::new("python3").arg("-c").arg("0").status().is_ok();
    if !ok {
        let why = format!("{test}: skipped: no seccomp user notification, bash or python3 here");
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("{why}");
    }
    ok
}

/// A tree with the read-only rule, a stub kubectl first on PATH, and the
/// guard on.
struct Tree {
    s: Scratch,
    log: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let mut s = Scratch::new();
        s.set_env("HOOKDEX_ENFORCE", "auto");
        let log = stub_on_path(&mut s, "kubectl");
        let rule = rule_with(&s.runtime(), RULE, RULE_BODY);
        set_executable(&rule, true);
        assert_success(&s.run(&["compile"]), &["compile"]);
        Tree { s, log }
    }

    fn ran(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The hook's reply to a shell call of `target`.
    fn hook(&self, target: &str, payload: &Value) -> Value {
        let mut args = vec!["hook", "--target", target];
        if target == "copilot" {
            args.extend(["--event", "preToolUse"]);
        }
        let out = self.s.run_stdin(&args, payload.to_string().as_bytes());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        match out.stdout.is_empty() {
            true => Value::Null,
            false => serde_json::from_slice(&out.stdout).unwrap(),
        }
    }

    /// Runs `command` as the harness's shell would.
    fn shell(&self, command: &str) -> Output {
        shell(&self.s, command)
    }
}

fn payload(target: &str, command: &str, cwd: &Path) -> Value {
    match target {
        // The camelCase form `init` wires (`--event preToolUse`).
        "copilot" => json!({
            "sessionId": "s1", "timestamp": 1, "cwd": cwd,
            "toolName": "bash", "toolArgs": {"command": command},
        }),
        "gemini" => json!({
            "hook_event_name": "BeforeTool", "session_id": "s1", "cwd": cwd,
            "tool_name": "run_shell_command", "tool_input": {"command": command},
        }),
        "codex" => json!({
            "hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd,
            "permission_mode": "bypassPermissions", "tool_name": "Bash",
            "tool_input": {"command": command},
        }),
        _ => json!({
            "hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd,
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command},
        }),
    }
}

/// The command a harness runs after applying `reply` to `original`, and
/// the decision it was sent with.
fn applied(target: &str, reply: &Value, original: &str) -> (String, Option<String>) {
    let (input, decision) = match target {
        "copilot" => (&reply["modifiedArgs"], reply["permissionDecision"].as_str()),
        "gemini" => (
            &reply["hookSpecificOutput"]["tool_input"],
            reply["decision"].as_str(),
        ),
        _ => (
            &reply["hookSpecificOutput"]["updatedInput"],
            reply["hookSpecificOutput"]["permissionDecision"].as_str(),
        ),
    };
    let command = input["command"].as_str().unwrap_or(original).to_string();
    (command, decision.map(String::from))
}

#[test]
fn a_hidden_kubectl_is_stopped_on_every_harness_that_rewrites() {
    if !available("a_hidden_kubectl_is_stopped_on_every_harness_that_rewrites") {
        return;
    }
    let tree = Tree::new();
    let hidden = "c=xubectl; ${c/x/k} get pods; ${c/x/k} delete pod x; echo after";
    let maked = "printf 'all:\\n\\tkubectl delete pod y\\n' > Makefile && make -s; rm -f Makefile";
    for target in ["claude", "codex", "gemini", "copilot"] {
        for line in [hidden, maked] {
            let reply = tree.hook(target, &payload(target, line, &tree.s.repo));
            let (command, decision) = applied(target, &reply, line);
            assert!(
                command.contains("exec --guard"),
                "{target}: not wrapped: {reply}"
            );
            // Never wider than what the harness would decide itself:
            // Codex takes a rewrite only with allow, and it is sent only
            // where the session allows every call (bypassPermissions).
            let expected = (target == "codex").then(|| "allow".to_string());
            assert_eq!(decision, expected, "{target}: {reply}");
            let before = tree.ran();
            // What the agent exported in a shell the harness keeps does not
            // reach the guard.
            let out = tree.shell(&format!(
                "export HOOKDEX_ENFORCE=off CONDITIONS_ENABLED=false HOOKDEX_GATE=off; {command}"
            ));
            let ran = tree.ran()[before.len()..].to_string();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !ran.contains("delete"),
                "{target}: kubectl delete ran: {line}"
            );
            assert!(
                stderr.contains(&format!("hookdex: {RULE}: kubectl is read-only here")),
                "{target}: the model is not told why: {stderr}"
            );
            if line == hidden {
                assert!(ran.contains("get pods"), "{target}: the get did not run");
                assert!(String::from_utf8_lossy(&out.stdout).ends_with("after\n"));
            }
        }
    }
    // The model is told once per session, on its first guarded call.
    let told = |reply: &Value| reply.to_string().contains("run under hookdex's guard");
    let first = tree.hook("gemini", &payload("gemini", "ls", &tree.s.repo));
    let ls_in_s2 = json!({
        "hook_event_name": "PreToolUse", "session_id": "s2", "cwd": tree.s.repo,
        "tool_name": "Bash", "tool_input": {"command": "ls"},
    });
    let again = tree.hook("claude", &ls_in_s2);
    let second = tree.hook("claude", &ls_in_s2);
    assert!(!told(&first), "session s1 was told already: {first}");
    assert!(told(&again), "{again}");
    assert!(!told(&second), "{second}");
}

#[test]
fn codex_outside_bypass_is_not_widened_and_require_denies() {
    if !available("codex_outside_bypass_is_not_widened_and_require_denies") {
        return;
    }
    let mut tree = Tree::new();
    let mut call = payload("codex", "c=xubectl; ${c/x/k} delete pod x", &tree.s.repo);
    call["permission_mode"] = json!("default");
    let reply = tree.hook("codex", &call);
    assert!(!reply.to_string().contains("exec --guard"), "{reply}");
    assert!(!reply.to_string().contains("\"allow\""), "{reply}");
    tree.s.set_env("HOOKDEX_ENFORCE", "require");
    let reply = tree.hook("codex", &call);
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    assert!(
        reply.to_string().contains("HOOKDEX_ENFORCE=require"),
        "{reply}"
    );
}

#[test]
fn where_the_kernel_cannot_the_text_guards_and_require_denies() {
    if !available("where_the_kernel_cannot_the_text_guards_and_require_denies") {
        return;
    }
    let mut tree = Tree::new();
    let call = payload("claude", "c=xubectl; ${c/x/k} get pods", &tree.s.repo);
    // Under an outer guard a second listener cannot be installed (EBUSY):
    // the hook run there sees enforcement as the kernel leaves it.
    let under_guard = |tree: &Tree| {
        tree.s.run_stdin_via(
            &[BIN, "exec", "--guard", "--"],
            &["hook", "--target", "claude"],
            call.to_string().as_bytes(),
        )
    };
    let out = under_guard(&tree);
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("exec --guard"));
    tree.s.set_env("HOOKDEX_ENFORCE", "require");
    let out = under_guard(&tree);
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    assert!(reply.to_string().contains("already supervises"), "{reply}");
    // list and explain say why.
    let list = tree.s.list(&[]);
    assert_eq!(list["enforcement"]["mode"], "require");
    let listed = tree
        .s
        .run_stdin_via(&[BIN, "exec", "--guard", "--"], &["list", "--json"], b"");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["enforcement"]["on"], false, "{listed}");
    assert!(
        listed["enforcement"]["why"]
            .as_str()
            .unwrap()
            .starts_with("off:"),
        "{listed}"
    );
    tree.s.set_env("HOOKDEX_ENFORCE", "auto");
    let list = tree.s.list(&[]);
    assert_eq!(list["enforcement"]["on"], true, "{list}");
    assert_eq!(list["enforcement"]["programs"], json!(["kubectl"]));
    let explain = tree
        .s
        .json(&["explain", "--tool", "Bash", "--command", "ls", "--json"]);
    assert!(
        explain["enforcement"]["why"]
            .as_str()
            .unwrap()
            .starts_with("on (kernel)"),
        "{explain}"
    );
}

#[test]
fn claudes_shell_prefix_guards_without_a_rewrite() {
    if !available("claudes_shell_prefix_guards_without_a_rewrite") {
        return;
    }
    let mut tree = Tree::new();
    // What `init` writes.
    let prefix = format!("{BIN} --guard-shell=claude");
    tree.s.set_env("CLAUDE_CODE_SHELL_PREFIX", &prefix);
    tree.s.set_env("CLAUDE_CODE_SESSION_ID", "s9");
    let line = "c=xubectl; ${c/x/k} delete pod x";
    let call = |session: &str| {
        json!({
            "hook_event_name": "PreToolUse", "session_id": session, "cwd": tree.s.repo,
            "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": line},
        })
    };
    let first = tree.hook("claude", &call("s9"));
    assert!(
        first["hookSpecificOutput"]["updatedInput"].is_null(),
        "{first}"
    );
    assert!(
        first.to_string().contains("run under hookdex's guard"),
        "{first}"
    );
    assert_eq!(tree.hook("claude", &call("s9")), Value::Null);
    // Claude Code runs the prefix with its whole command string last.
    let claude_string = format!("eval '{line}' < /dev/null && pwd -P >| /dev/null");
    let out = tree.shell(&format!("{prefix} {}", hookdex_quote(&claude_string)));
    assert!(!tree.ran().contains("delete"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("hookdex: {RULE}:")));
}

#[test]
fn the_write_gate_holds_until_the_person_asks() {
    if !available("the_write_gate_holds_until_the_person_asks") {
        return;
    }
    let tree = Tree::new();
    let rules = tree.s.hookdex_dir();
    std::fs::create_dir_all(&rules).unwrap();
    let write = "cd .hook* && echo 'exit 2' > conditions/pre-any-evil.sh; python3 -c \"open('$PWD/conditions/py.sh','w')\"";
    let guarded = |session: &str| {
        tree.s.run(&[
            "exec",
            "--guard",
            "--session",
            session,
            "--",
            "bash",
            "-c",
            write,
        ])
    };
    let out = guarded("g1");
    assert!(!rules.join("pre-any-evil.sh").exists());
    assert!(!rules.join("py.sh").exists());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hookdex: gate closed:"), "{stderr}");
    // The person asks: the gate opens for that session.
    let prompt = json!({
        "hook_event_name": "UserPromptSubmit", "session_id": "g1", "cwd": tree.s.repo,
        "prompt": "please add a condition that blocks evil",
    });
    tree.hook("claude", &prompt);
    let out = guarded("g1");
    assert!(
        rules.join("pre-any-evil.sh").exists(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Another session's gate is still closed.
    std::fs::remove_file(rules.join("pre-any-evil.sh")).unwrap();
    guarded("g2");
    assert!(!rules.join("pre-any-evil.sh").exists());
}

#[test]
fn a_managed_guard_that_fails_refuses_the_exec_and_a_users_lets_it_go() {
    if !available("a_managed_guard_that_fails_refuses_the_exec_and_a_users_lets_it_go") {
        return;
    }
    let tree = Tree::new();
    // The user's rule crashes: fail open, kubectl get runs.
    let crash = "#!/bin/sh\necho 'not json' ; exit 3\n";
    let user = rule_with(&tree.s.runtime(), "pre-bash.kubectl-crash.sh", crash);
    set_executable(&user, true);
    assert_success(&tree.s.run(&["compile"]), &["compile"]);
    let line = "c=xubectl; ${c/x/k} get pods";
    tree.s.run(&["exec", "--guard", "--", "bash", "-c", line]);
    assert!(
        tree.ran().contains("get pods"),
        "a failing user rule refused: {}",
        tree.ran()
    );
    // A managed one that crashes refuses it.
    let managed_dir = tree.s.managed();
    std::fs::create_dir_all(&managed_dir).unwrap();
    let managed = rule_with(&managed_dir, "pre-bash.kubectl-audit.sh", crash);
    set_executable(&managed, true);
    assert_success(&tree.s.run(&["compile"]), &["compile"]);
    let before = tree.ran();
    let out = tree.s.run(&[
        "exec",
        "--guard",
        "--",
        "bash",
        "-c",
        "c=xubectl; ${c/x/k} get nodes",
    ]);
    assert!(
        !tree.ran()[before.len()..].contains("get nodes"),
        "{}",
        tree.ran()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hookdex: pre-bash.kubectl-audit.sh: a managed guard failed"),
        "{stderr}"
    );
}

/// A tree past 32 guarded names, where the wrapper lists each search-path
/// folder and remembers what it held in the cache folder, with a hard link
/// of the stub kubectl outside `PATH`.
struct ManyGuarded {
    tree: Tree,
    names: Vec<String>,
    stubs: PathBuf,
    linked: PathBuf,
}

impl ManyGuarded {
    fn new() -> ManyGuarded {
        let tree = Tree::new();
        for n in 0..40 {
            let rule = rule_with(
                &tree.s.runtime(),
                &format!("pre-bash.cli{n}-ok.sh"),
                "exit 0\n",
            );
            set_executable(&rule, true);
        }
        assert_success(&tree.s.run(&["compile"]), &["compile"]);
        let stubs = tree.s.root.join("stubs");
        let elsewhere = tree.s.root.join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let linked = elsewhere.join("k2");
        std::fs::hard_link(stubs.join("kubectl"), &linked).unwrap();
        let mut names: Vec<String> = (0..40).map(|n| format!("cli{n}")).collect();
        names.push("kubectl".into());
        names.sort();
        ManyGuarded {
            tree,
            names,
            stubs,
            linked,
        }
    }

    /// Where the wrapper keeps the listing: beside the user's index.
    fn listing_file(&self) -> PathBuf {
        self.tree
            .s
            .index_file()
            .with_extension("search-path-listing")
    }

    /// A listing that says the stub's folder holds none of the names, with
    /// the folder's stamp as it is (`changed`: seconds later than it is).
    fn hiding(&self, changed: i64) -> String {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&self.stubs).unwrap();
        format!(
            "hookdex search-path listing 1\n{}\n{} {} {} {} - {}\n",
            self.names.join(" "),
            meta.dev(),
            meta.ino(),
            meta.ctime() + changed,
            meta.ctime_nsec(),
            self.stubs.display()
        )
    }

    /// Whether `k2 delete <what>` was refused (the hard link known as
    /// kubectl); panics when the wrapper does not finish.
    fn denied(&self, what: &str) -> bool {
        let line = format!("{} delete {what}", self.linked.display());
        let mut child = self
            .tree
            .s
            .cmd(&["exec", "--guard", "--", "bash", "-c", &line])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(30) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("the wrapper did not finish `delete {what}`");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        !self.tree.ran().contains(&format!("delete {what}"))
    }
}

#[test]
fn a_remembered_listing_is_the_users_to_trust_and_never_a_managed_guards() {
    if !available("a_remembered_listing_is_the_users_to_trust_and_never_a_managed_guards") {
        return;
    }
    let many = ManyGuarded::new();
    let file = many.listing_file();
    // Remembered before the folder last changed: listed again, and the
    // hard link is known.
    std::fs::write(&file, many.hiding(-10)).unwrap();
    assert!(many.denied("pod a"), "{}", many.tree.ran());
    // What the settled system folders on PATH held is kept for next time.
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.lines().count() > 3, "nothing kept: {kept}");
    // The file sits with the user's index and is theirs to trust: written
    // to hide the link, it hides it from the user's own guard.
    std::fs::write(&file, many.hiding(0)).unwrap();
    assert!(!many.denied("pod b"), "the remembered listing was not used");
    // A managed guard of the program reads no file its user can write.
    let managed = rule_with(
        &many.tree.s.managed(),
        "pre-bash.kubectl-audit.sh",
        RULE_BODY,
    );
    set_executable(&managed, true);
    assert_success(&many.tree.s.run(&["compile"]), &["compile"]);
    std::fs::write(&file, many.hiding(0)).unwrap();
    assert!(many.denied("pod c"), "{}", many.tree.ran());
}

#[test]
fn a_listing_that_is_not_a_plain_file_neither_stops_nor_blinds_the_guard() {
    if !available("a_listing_that_is_not_a_plain_file_neither_stops_nor_blinds_the_guard") {
        return;
    }
    let many = ManyGuarded::new();
    let file = many.listing_file();
    // A FIFO would hold a reader until something writes into it.
    let made = Command::new("mkfifo").arg(&file).status().unwrap();
    assert!(made.success());
    assert!(many.denied("pod fifo"), "{}", many.tree.ran());
    // A symlink to a hiding listing is not followed.
    std::fs::remove_file(&file).unwrap();
    let elsewhere = many.tree.s.root.join("hiding-listing");
    std::fs::write(&elsewhere, many.hiding(0)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
    assert!(many.denied("pod link"), "{}", many.tree.ran());
}

#[test]
fn a_guarded_command_cannot_starve_its_supervisor_of_files() {
    if !available("a_guarded_command_cannot_starve_its_supervisor_of_files")
        || skip_without("prlimit")
    {
        return;
    }
    let tree = Tree::new();
    // The command runs as the supervisor's user: with its open-file limit
    // at 8, the supervisor could not start the rule, and a user's rule
    // that cannot start lets the program go.
    let line = "prlimit --pid $PPID --nofile=8:8; kubectl delete pod after";
    let out = tree.s.run(&["exec", "--guard", "--", "bash", "-c", line]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!tree.ran().contains("delete pod after"), "{}", tree.ran());
    assert!(stderr.contains("Operation not permitted"), "{stderr}");
    assert!(stderr.contains("kubectl is read-only"), "{stderr}");
}

#[test]
fn without_proc_the_guard_says_it_cannot_judge() {
    if !available("without_proc_the_guard_says_it_cannot_judge") {
        return;
    }
    // A mount namespace of its own with /proc gone (root only).
    let private = Command::new("unshare")
        .args(["-m", "sh", "-c", "umount -l /proc"])
        .output();
    if !private.is_ok_and(|out| out.status.success()) {
        eprintln!("SKIPPED: without_proc_the_guard_says_it_cannot_judge needs `unshare -m` and the right to unmount /proc");
        return;
    }
    let mut tree = Tree::new();
    tree.s.set_env("HOOKDEX_ENFORCE", "require");
    let no_proc = [
        "unshare",
        "-m",
        "sh",
        "-c",
        "umount -l /proc && exec \"$0\" \"$@\"",
    ];
    let out = tree
        .s
        .cmd_via(
            &no_proc,
            &["exec", "--guard", "--", "kubectl", "delete", "pod", "x"],
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("/proc cannot be read"), "{stderr}");
    assert!(!tree.ran().contains("delete pod x"), "{}", tree.ran());
}

#[test]
fn a_supervisor_killed_mid_command_leaves_nothing_running() {
    if !available("a_supervisor_killed_mid_command_leaves_nothing_running") {
        return;
    }
    let tree = Tree::new();
    let mark = format!("hookdex-kill-{}", std::process::id());
    let line = "( sleep 1; kubectl get after-kill ) & sleep 1; kubectl get late; wait";
    let mut child = tree
        .s
        .cmd(&["exec", "--guard", "--", "bash", "-c", line])
        .env("HOOKDEX_TEST_MARK", &mark)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let started = Instant::now();
    let left = loop {
        let left = marked(&mark);
        if left.is_empty() || started.elapsed() > Duration::from_secs(5) {
            break left;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(left.is_empty(), "still running: {left:?}");
    assert!(!tree.ran().contains("after-kill"), "{}", tree.ran());
    assert!(!tree.ran().contains("late"), "{}", tree.ran());

    // SIGTERM to the wrapper alone is passed on; its exit says so.
    let mut child = tree
        .s
        .cmd(&["exec", "--guard", "--", "bash", "-c", "sleep 5"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: the pid is our own unreaped child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
}

/// The processes whose environment carries `mark`.
fn marked(mark: &str) -> Vec<String> {
    let needle = format!("HOOKDEX_TEST_MARK={mark}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|v| v == needle.as_bytes()) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}

fn hookdex_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}
