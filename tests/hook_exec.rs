//! How conditions run: timeouts kill the whole process group, parallelism keeps order,
//! `.async` conditions are not waited for, the environment, stdin and cwd scripts get
//! (the payload in an anonymous file, nothing in `TMPDIR`), and one deadline bounds
//! every condition of a hook call.

mod common;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

// ---------------------------------------------------------------------------------------------
// Timeouts, parallelism, .async
// ---------------------------------------------------------------------------------------------

/// Whether `pid` is gone (or a zombie nobody reaped yet: it runs nothing).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

/// Live processes (not zombies) whose process group is `pgid`.
fn live_in_group(pgid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command: state, ppid, pgrp.
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            found.push(pid);
        }
    }
    found
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let out = out.display();
    condition(
        &s.runtime(),
        "pre-bash-hang.sh",
        &format!(
            "read -r -a stat < /proc/$$/stat; echo \"${{stat[4]}}\" > {out}/pgid\n\
             echo $$ > {out}/leader\n\
             sleep 30 &\necho $! >> {out}/pids\n\
             sleep 30 &\necho $! >> {out}/pids\n\
             wait\necho 'never printed'\n"
        ),
    );
    condition(&s.runtime(), "pre-bash-quick.sh", "echo 'quick one'\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "the hook waited {:?}",
        hooked.elapsed
    );
    let reply = hooked.reply;
    let out = s.path("out");
    let context = context_of(&reply);
    assert!(context.contains("quick one"), "{context}");
    let note = context
        .lines()
        .find(|l| l.contains("pre-bash-hang.sh"))
        .unwrap_or_else(|| panic!("no note: {context}"));
    assert!(
        note.starts_with("hookdex: condition pre-bash-hang.sh skipped (")
            && note.contains("timed out"),
        "{note}"
    );
    assert!(!context.contains("never printed"));
    assert!(reply["hookSpecificOutput"]
        .get("permissionDecision")
        .is_none());

    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let pgid: u32 = read("pgid").trim().parse().unwrap();
    let leader: u32 = read("leader").trim().parse().unwrap();
    assert_eq!(pgid, leader, "the condition leads its own process group");
    let mut pids: Vec<u32> = read("pids")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "both children started");
    pids.push(leader);
    let gone = eventually(Duration::from_millis(1500), || {
        pids.iter().all(|&p| dead(p)) && live_in_group(pgid).is_empty()
    });
    assert!(
        gone,
        "survivors of the timed-out group: {:?} (pids {pids:?})",
        live_in_group(pgid)
    );
}

#[test]
fn fractional_timeouts_are_honoured() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "0.3");
    condition(&s.runtime(), "pre-bash-nap.sh", "sleep 20\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "{:?}",
        hooked.elapsed
    );
    let context = context_of(&hooked.reply);
    assert!(
        context.contains("pre-bash-nap.sh") && context.contains("timed out"),
        "{context}"
    );
}

#[test]
fn max_parallel_one_still_runs_every_condition_in_order() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_MAX_PARALLEL", "1");
    for i in 0..4 {
        condition(
            &s.runtime(),
            &format!("pre-bash-c{i}.sh"),
            &format!("echo 'part {i}'\n"),
        );
    }
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(context_of(&reply), "part 0\n\npart 1\n\npart 2\n\npart 3");
}

#[test]
fn an_async_condition_starts_cannot_change_the_call_and_is_not_waited_for() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-watch.async.sh",
        &format!(
            "echo $$ > {o}/async.pid\n\
             cat > {o}/async.stdin\n\
             echo \"$AH_CONDITION $AH_TOOL_NAME\" > {o}/async.started\n\
             echo '{{\"decision\": \"deny\", \"reason\": \"async says no\"}}'\n\
             echo 'async says no' >&2\n\
             sleep 15\n\
             echo finished > {o}/async.finished\n\
             exit 2\n"
        ),
    );
    condition(&s.runtime(), "pre-bash-sync.sh", "echo 'sync context'\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "rm -rf build"));
    let finished_early = !out.join("async.finished").exists();
    assert!(
        hooked.elapsed < Duration::from_secs(10),
        "the hook waited for the async condition: {:?}",
        hooked.elapsed
    );
    assert!(finished_early, "the async condition had already finished");
    assert_eq!(
        hooked.reply,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "sync context"}})
    );
    // `echo … > file` creates the file before it writes the line: wait for the line.
    let started = eventually(Duration::from_secs(5), || {
        std::fs::read_to_string(out.join("async.started")).is_ok_and(|t| t.ends_with('\n'))
    });
    assert!(started, "the async condition never started");
    assert_eq!(
        std::fs::read_to_string(out.join("async.started"))
            .unwrap()
            .trim(),
        "pre-bash-watch.async.sh bash"
    );
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("async.stdin")).unwrap()).unwrap();
    assert_eq!(stdin["tool_input"]["command"], "rm -rf build");
    // Clean up the sleeper (it leads its own group).
    if let Ok(pid) = std::fs::read_to_string(out.join("async.pid")) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", pid.trim())])
            .output();
    }
}

#[test]
fn an_async_condition_alone_gives_an_empty_reply_on_every_harness() {
    let s = Scratch::new();
    let marks = s.path("marks");
    std::fs::create_dir_all(&marks).unwrap();
    condition(
        &s.runtime(),
        "pre-bash-deny.async.sh",
        &format!(
            "touch {}/$AH_TARGET\necho 'no' >&2\nexit 2\n",
            marks.display()
        ),
    );
    for target in TARGETS {
        let reply = hook(&s, target, &pre_bash(&s, target, "ls"));
        assert_eq!(reply, Value::Null, "{target}");
    }
    for target in TARGETS {
        assert!(
            eventually(Duration::from_secs(5), || marks.join(target).exists()),
            "{target}: the async condition did not run"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The script's environment, stdin and working directory
// ---------------------------------------------------------------------------------------------

fn env_dump(out: &Path, tag: &str) -> String {
    let o = out.display();
    format!(
        "env | grep '^AH_' | sort > {o}/{tag}.env\ncat > {o}/{tag}.stdin\npwd -P > {o}/{tag}.pwd\n"
    )
}

fn read_env(path: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn scripts_get_the_ah_environment_stdin_and_cwd() {
    let mut s = Scratch::new();
    let (bundle, profile) = bundle_and_profile(&mut s, "x");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let layers = [
        ("bundle", bundle.clone(), "pre-bash-envb.sh"),
        ("profile:x", profile.clone(), "pre-bash-envp.sh"),
        ("runtime", s.runtime(), "pre-bash.git-envr.sh"),
        ("directory", s.hookdex_dir(), "pre-any-envd.sh"),
        ("managed", s.managed(), "pre-bash+read-envm.sh"),
    ];
    for (_, dir, name) in &layers {
        condition(dir, name, &env_dump(&out, name));
    }
    // Run from elsewhere: the scripts must still run in the payload's cwd.
    s.cwd = s.root.clone();
    let payload = fixture(&s, "codex-pre-exec");
    let reply = hook(&s, "codex", &payload);
    assert_eq!(reply, Value::Null, "the dumps say nothing");
    let repo = s.repo.display().to_string();
    for (label, _, name) in &layers {
        let env = read_env(&out.join(format!("{name}.env")));
        let want: std::collections::BTreeMap<String, String> = [
            ("AH_STEP", "pre"),
            ("AH_EVENT", "PreToolUse"),
            ("AH_TOOL_NAME", "bash"),
            ("AH_TOOL_USE_ID", "call_Ex4Cm6Dn8Fp0Gq2Hr4Js6Kt"),
            ("AH_SESSION_ID", "019a3c5e-7f21-7d40-b1a2-5c3d9e8f0a11"),
            ("AH_CWD", repo.as_str()),
            (
                "AH_TRANSCRIPT_PATH",
                "/home/dev/.codex/sessions/2026/08/01/rollout-2026-08-01T10-00-00-019a3c5e.jsonl",
            ),
            ("AH_PERMISSION_MODE", "default"),
            ("AH_TARGET", "codex"),
            ("AH_CONDITION", name),
            ("AH_CONDITION_SOURCE", label),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(env, want, "{name}");
        let pwd = std::fs::read_to_string(out.join(format!("{name}.pwd"))).unwrap();
        assert_eq!(pwd.trim(), repo, "{name}: working directory");
        let stdin: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{name}.stdin"))).unwrap(),
        )
        .unwrap();
        assert_eq!(stdin["tool_name"], "bash", "{name}");
        assert_eq!(stdin["hook_event_name"], "PreToolUse", "{name}");
        let command = stdin["tool_input"]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: tool_input.command is not a string: {stdin}"));
        assert!(
            command.starts_with("git log ")
                && command.contains("%h %s")
                && command.ends_with("-n 5"),
            "{name}: the list is joined with shell quoting: {command}"
        );
        assert_eq!(stdin["tool_input"]["workdir"], repo.as_str(), "{name}");
        assert_eq!(stdin["cwd"], repo.as_str(), "{name}");
        assert_eq!(
            stdin["session_id"], "019a3c5e-7f21-7d40-b1a2-5c3d9e8f0a11",
            "{name}"
        );
        assert_eq!(
            stdin["tool_use_id"], "call_Ex4Cm6Dn8Fp0Gq2Hr4Js6Kt",
            "{name}"
        );
        assert_eq!(stdin["permission_mode"], "default", "{name}");
    }
}

#[test]
fn scripts_read_normalized_payloads_on_every_harness() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-dump.sh",
        &format!("cat > {o}/pre-$AH_TARGET.json\nprintf '%s|%s|%s' \"$AH_STEP\" \"$AH_EVENT\" \"$AH_TOOL_NAME\" > {o}/pre-$AH_TARGET.env\n"),
    );
    condition(
        &s.runtime(),
        "post-bash-dump.sh",
        &format!("cat > {o}/post-$AH_TARGET.json\nprintf '%s|%s|%s' \"$AH_STEP\" \"$AH_EVENT\" \"$AH_TOOL_NAME\" > {o}/post-$AH_TARGET.env\n"),
    );
    let repo = s.repo.display().to_string();
    for target in TARGETS {
        assert_eq!(
            hook(&s, target, &pre_bash(&s, target, "make test")),
            Value::Null
        );
        assert_eq!(
            hook(&s, target, &fixture(&s, &format!("{target}-post-bash"))),
            Value::Null
        );
        for step in ["pre", "post"] {
            let env = std::fs::read_to_string(out.join(format!("{step}-{target}.env")))
                .unwrap_or_else(|_| panic!("{target} {step}: the condition did not run"));
            let event = if step == "pre" {
                "PreToolUse"
            } else {
                "PostToolUse"
            };
            assert_eq!(env, format!("{step}|{event}|bash"), "{target}");
            let stdin: Value = serde_json::from_str(
                &std::fs::read_to_string(out.join(format!("{step}-{target}.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(stdin["tool_name"], "bash", "{target} {step}");
            assert_eq!(stdin["hook_event_name"], event, "{target} {step}");
            assert_eq!(stdin["cwd"], repo.as_str(), "{target} {step}: cwd");
            let command = stdin["tool_input"]["command"].as_str().unwrap();
            if step == "pre" {
                assert_eq!(command, "make test", "{target}");
            } else {
                assert_eq!(command, "pytest -q", "{target}");
                assert_eq!(
                    stdin["tool_response"]["stdout"], "....\n4 passed in 0.12s",
                    "{target}: the result reaches scripts as tool_response.stdout: {stdin}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Nothing a condition starts outlives the hook
// ---------------------------------------------------------------------------------------------

/// Shell lines that start `starter` (a command that runs `bash -c BODY`
/// somewhere outside the condition's group) with a body that writes its pid
/// to `file` and sleeps, and wait for the pid to be written.
fn escapee(starter: &str, file: &Path) -> String {
    let f = file.display();
    format!(
        "{starter} 'echo $$ > {f}.tmp; mv {f}.tmp {f}; exec sleep 30' </dev/null >/dev/null 2>&1 &\n\
         while [ ! -s {f} ]; do sleep 0.01; done\n"
    )
}

fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn what_leaves_the_group_dies_with_the_hook() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    // A double fork out of the group (the middle process exits at once, so
    // the sleeper is an orphan in a group of its own).
    let double_fork = format!(
        "python3 -c \"import os, time\nif os.fork() == 0:\n    os.setpgid(0, 0)\n    if os.fork() == 0:\n        open('{f}.tmp', 'w').write(str(os.getpid())); os.rename('{f}.tmp', '{f}'); time.sleep(30)\n    os._exit(0)\n\" </dev/null >/dev/null 2>&1\n\
         while [ ! -s {f} ]; do sleep 0.01; done\n",
        f = out.join("double-fork").display()
    );
    condition(
        &s.runtime(),
        "pre-bash-escape.sh",
        &format!(
            "{}{}{double_fork}echo 'started them'\n",
            escapee("setsid bash -c", &out.join("setsid")),
            escapee("setsid -f bash -c", &out.join("setsid-fork")),
        ),
    );
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        context_of(&hooked.reply).contains("started them"),
        "{}",
        hooked.reply
    );
    for name in ["setsid", "setsid-fork", "double-fork"] {
        let pid = read_pid(&out.join(name));
        assert!(dead(pid), "{name}: pid {pid} outlived the hook");
    }
}

#[test]
fn sigterm_to_the_hook_kills_the_conditions() {
    let s = Scratch::new();
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-hang.sh",
        &format!(
            "{}sleep 30 &\necho $! > {o}/child.tmp; mv {o}/child.tmp {o}/child\n\
             echo $$ > {o}/leader.tmp; mv {o}/leader.tmp {o}/leader\nwait\n",
            escapee("setsid bash -c", &out.join("escapee"))
        ),
    );
    for signal in ["TERM", "INT", "HUP"] {
        for name in ["escapee", "child", "leader"] {
            let _ = std::fs::remove_file(out.join(name));
        }
        let mut child = s
            .cmd(&["hook", "--target", "claude"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin
                .write_all(pre_bash(&s, "claude", "ls").to_string().as_bytes())
                .unwrap();
        }
        assert!(
            eventually(Duration::from_secs(10), || out.join("leader").exists()),
            "the condition never started"
        );
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exited = eventually(Duration::from_secs(5), || {
            child.try_wait().unwrap().is_some()
        });
        assert!(exited, "SIG{signal}: the hook did not exit");
        let leader = read_pid(&out.join("leader"));
        let pids = [
            leader,
            read_pid(&out.join("child")),
            read_pid(&out.join("escapee")),
        ];
        // Killed before the hook exits; gone once init has reaped them
        // (a loaded machine can take a moment).
        let gone = eventually(Duration::from_secs(5), || {
            pids.iter().all(|&p| dead(p)) && live_in_group(leader).is_empty()
        });
        assert!(
            gone,
            "SIG{signal}: survivors {:?} of {pids:?}",
            live_in_group(leader)
        );
    }
}

#[test]
fn an_answer_printed_before_a_helper_kept_stdout_open_counts() {
    let s = Scratch::new();
    for (name, helper) in [
        ("pre-bash-held.sh", "sleep 100 &"),
        ("pre-bash-escaped.sh", "setsid sleep 100 &"),
    ] {
        let _ = std::fs::remove_file(s.runtime().join("pre-bash-held.sh"));
        condition(
            &s.runtime(),
            name,
            &format!(
                "echo '{{\"decision\": \"deny\", \"reason\": \"{name} says no\"}}'\n{helper}\n"
            ),
        );
        let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
        assert!(
            hooked.elapsed < Duration::from_secs(3),
            "{name}: the hook waited {:?}",
            hooked.elapsed
        );
        let output = &hooked.reply["hookSpecificOutput"];
        assert_eq!(
            output["permissionDecision"], "deny",
            "{name}: {}",
            hooked.reply
        );
        assert_eq!(
            output["permissionDecisionReason"]
                .as_str()
                .map(|r| r.contains("says no")),
            Some(true),
            "{name}: {}",
            hooked.reply
        );
    }
}

#[test]
fn a_broken_rule_never_denies_but_a_reason_does() {
    let s = Scratch::new();
    let broken = [
        ("pre-bash-exit2_silent.sh", "exit 2\n"),
        (
            "pre-bash-set_e.sh",
            "set -e\nls /nonexistent/hookdex\necho 'not reached' >&2\nexit 2\n",
        ),
        (
            "pre-bash-unbound.sh",
            "set -u\necho \"$NOT_SET_ANYWHERE\" >&2\nexit 2\n",
        ),
    ];
    for (name, body) in broken {
        condition(&s.runtime(), name, body);
    }
    // Run directly (no runner by extension): the kernel finds no interpreter.
    condition(
        &s.runtime(),
        "pre-bash-nointerp.x",
        "#!/nonexistent/python\nprint('x')\n",
    );
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.reply["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none(),
        "a broken rule denied: {}",
        hooked.reply
    );
    let context = context_of(&hooked.reply);
    for name in broken
        .map(|(name, _)| name)
        .into_iter()
        .chain(["pre-bash-nointerp.x"])
    {
        assert!(
            context.contains(&format!("hookdex: condition {name} skipped (")),
            "{name} is not noted: {context}"
        );
    }

    condition(
        &s.runtime(),
        "pre-bash-reason.sh",
        "echo 'run plan first' >&2\nexit 2\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .map(|r| r.contains("run plan first")),
        Some(true),
        "{reply}"
    );
}

#[test]
fn a_rule_file_that_vanished_before_it_ran_is_looked_up_again() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_MAX_PARALLEL", "1");
    let dir = s.runtime();
    let runs = s.path("runs");
    std::fs::create_dir_all(&runs).unwrap();
    // The first rule renames the second, as an editor's save might.
    condition(
        &dir,
        "pre-bash-a_rename.sh",
        &format!(
            "echo x >> {}/first\nmv {d}/pre-bash-b_old.sh {d}/pre-bash-c_new.sh\necho 'first ran'\n",
            runs.display(),
            d = dir.display()
        ),
    );
    condition(&dir, "pre-bash-b_old.sh", "echo 'renamed one ran'\n");
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    let context = context_of(&hooked.reply);
    assert!(context.contains("first ran"), "{context}");
    assert!(
        context.contains("renamed one ran"),
        "the renamed rule did not run: {context}"
    );
    assert!(!context.contains("pre-bash-b_old.sh skipped"), "{context}");
    assert_eq!(
        std::fs::read_to_string(runs.join("first")).unwrap(),
        "x\n",
        "the first rule ran once"
    );
    let notes = hook_log(&s)
        .last()
        .map(|line| line["notes"].to_string())
        .unwrap_or_default();
    assert!(notes.contains("pre-bash-b_old.sh vanished"), "{notes}");
}

#[test]
fn an_async_condition_has_a_deadline_of_its_own() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-forever.async.sh",
        &format!(
            "{}echo $$ > {o}/leader.tmp; mv {o}/leader.tmp {o}/leader\nsleep 30\n",
            escapee("setsid bash -c", &out.join("escapee"))
        ),
    );
    let hooked = hook_timed(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(
        hooked.elapsed < Duration::from_secs(1),
        "{:?}",
        hooked.elapsed
    );
    assert!(
        eventually(Duration::from_secs(5), || out.join("leader").exists()),
        "the async condition never started"
    );
    let pids = [
        read_pid(&out.join("leader")),
        read_pid(&out.join("escapee")),
    ];
    assert!(
        !dead(pids[0]),
        "the async condition was killed with the hook"
    );
    assert!(
        eventually(Duration::from_secs(5), || pids.iter().all(|&p| dead(p))),
        "the async condition outlived its deadline: {pids:?}"
    );
}

#[test]
fn a_script_that_does_not_parse_is_invalid_and_never_runs() {
    let s = Scratch::new();
    let marks = s.path("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let m = marks.display();
    let bash = condition(
        &s.runtime(),
        "pre-bash-syntax.sh",
        &format!("touch {m}/bash\necho 'no' >&2\nexit 2\nif then\n"),
    );
    condition(
        &s.runtime(),
        "pre-bash-syntax.py",
        &format!("open('{m}/python', 'w')\nx = (\n"),
    );
    let reasons = invalid_reasons(&s);
    assert_eq!(
        reasons,
        [
            (
                "pre-bash-syntax.py".to_string(),
                "python3 compile: line 2: SyntaxError: '(' was never closed".to_string()
            ),
            (
                "pre-bash-syntax.sh".to_string(),
                "bash -n: line 4: syntax error near unexpected token `then'".to_string()
            ),
        ]
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    // The session's first call tells the person, once; neither script ran.
    assert_eq!(
        reply,
        serde_json::json!({"systemMessage": "hookdex: 2 rule files are invalid and will not run (hookdex doctor)"}),
        "an invalid script ran"
    );
    assert!(!marks.join("bash").exists() && !marks.join("python").exists());
    // Fixed in place (the directory does not change): it runs again.
    std::fs::write(&bash, "echo 'fixed and running'\n").unwrap();
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(context_of(&reply), "fixed and running", "{reply}");
}

/// Each file `list` shows invalid, by its name, with the reason.
fn invalid_reasons(s: &Scratch) -> Vec<(String, String)> {
    s.list(&[])["invalid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let file = e["file"].as_str().unwrap();
            (
                file_name(Path::new(file)),
                e["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn one_compile_checks_every_script_of_a_large_folder() {
    let s = Scratch::new();
    let n = 1_500;
    let mut broken = Vec::new();
    for i in 0..n {
        let (name, body) = match (i % 3, i % 50 == 49) {
            (0, false) => (format!("pre-bash-r{i}.py"), format!("x = {i}\n")),
            (0, true) => (format!("pre-bash-r{i}.py"), "x = (\n".to_string()),
            (_, false) => (
                format!("pre-bash-r{i}.sh"),
                format!("case \"$1\" in\n  a{i}) exit 2 ;;\nesac\n"),
            ),
            (_, true) => (format!("pre-bash-r{i}.sh"), "echo\nif then\n".to_string()),
        };
        if i % 50 == 49 {
            broken.push(name.clone());
        }
        condition(&s.runtime(), &name, &body);
    }
    let mut reasons = invalid_reasons(&s);
    reasons.sort();
    broken.sort();
    let expected: Vec<(String, String)> = broken
        .into_iter()
        .map(|name| {
            let reason = if name.ends_with(".py") {
                "python3 compile: line 1: SyntaxError: '(' was never closed"
            } else {
                "bash -n: line 2: syntax error near unexpected token `then'"
            };
            (name, reason.to_string())
        })
        .collect();
    assert_eq!(
        reasons, expected,
        "every broken script, in the first compile"
    );
}

#[test]
fn conditions_start_with_no_signal_blocked_or_ignored_by_the_hook() {
    let s = Scratch::new();
    // A child of the condition shows what the hook passed on (bash itself
    // blocks some signals while it forks).
    condition(
        &s.runtime(),
        "pre-bash-mask.sh",
        // Read once it runs `sleep`: between bash's fork and exec the
        // child still has the mask bash blocks around a fork.
        "sleep 1 &\nfor _ in $(seq 200); do [ \"$(cat /proc/$!/comm)\" = sleep ] && break; sleep 0.01; done\ngrep -E '^SigBlk' /proc/$!/status\nkill $!\n",
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert_eq!(context_of(&reply), "SigBlk:\t0000000000000000", "{reply}");
}

// ---------------------------------------------------------------------------------------------
// The payload on stdin: an anonymous file per condition, nothing in TMPDIR
// ---------------------------------------------------------------------------------------------

/// A scratch tree whose conditions see `TMPDIR` set to an empty `tmp/`
/// (returned) and write what they find into `out/` (returned).
fn with_tmpdir() -> (Scratch, std::path::PathBuf, std::path::PathBuf) {
    let mut s = Scratch::new();
    let (tmp, out) = (s.path("tmp"), s.path("out"));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    s.set_env("TMPDIR", tmp.display().to_string());
    (s, tmp, out)
}

/// The names in `dir`.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// A Claude pre-bash payload running `command` whose description is
/// `size` bytes, so a reader that gets only part of it shows.
fn large_pre_bash(s: &Scratch, command: &str, size: usize) -> Value {
    let mut payload = pre_bash(s, "claude", command);
    payload["tool_input"]["description"] = json!("x".repeat(size));
    payload
}

/// The stdin a condition saved to `file`, parsed.
fn saved_stdin(file: &Path) -> Value {
    let text = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

#[test]
fn a_missing_tmpdir_skips_no_condition() {
    let mut s = Scratch::new();
    s.set_env("TMPDIR", "/nonexistent-dir");
    condition(
        &s.runtime(),
        "pre-bash-no_deletes.sh",
        "grep -q 'kubectl delete' && { echo 'deletes go through GitOps' >&2; exit 2; }\nexit 0\n",
    );
    let reply = hook(
        &s,
        "claude",
        &pre_bash(&s, "claude", "kubectl delete pod web-0"),
    );
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{reply}");
    assert_eq!(out["permissionDecisionReason"], "deletes go through GitOps");
}

#[test]
fn a_condition_killed_at_its_timeout_leaves_nothing_in_tmpdir() {
    let (mut s, tmp, out) = with_tmpdir();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    let o = out.display();
    // What TMPDIR holds while the condition runs is what a hook killed
    // then would leave behind.
    condition(
        &s.runtime(),
        "pre-bash-hang.sh",
        &format!("ls -A \"$TMPDIR\" > {o}/during.tmp; mv {o}/during.tmp {o}/during\nsleep 30\n"),
    );
    let reply = hook(&s, "claude", &pre_bash(&s, "claude", "ls"));
    assert!(context_of(&reply).contains("timed out"), "{reply}");
    assert_eq!(std::fs::read_to_string(out.join("during")).unwrap(), "");
    let left: Vec<String> = entries(&tmp)
        .into_iter()
        .filter(|name| name.starts_with("hookdex-payload-"))
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

#[test]
fn a_hook_killed_mid_condition_leaves_nothing_in_tmpdir() {
    let (s, tmp, out) = with_tmpdir();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-hang.sh",
        &format!("echo $$ > {o}/leader.tmp; mv {o}/leader.tmp {o}/leader\nsleep 30\n"),
    );
    let mut running = s
        .cmd(&["hook", "--target", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = running.stdin.take().unwrap();
        stdin
            .write_all(pre_bash(&s, "claude", "ls").to_string().as_bytes())
            .unwrap();
    }
    assert!(
        eventually(Duration::from_secs(10), || out.join("leader").exists()),
        "the condition never started"
    );
    running.kill().unwrap();
    running.wait().unwrap();
    let left = entries(&tmp);
    // The condition outlived the SIGKILLed hook (nothing could end it); end it.
    let leader = read_pid(&out.join("leader"));
    let _ = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{leader}")])
        .status();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

#[test]
fn parallel_conditions_each_read_the_whole_payload() {
    let (s, _tmp, out) = with_tmpdir();
    let o = out.display();
    // Each waits for the other before it reads, so both read at once.
    let reader = format!(
        "touch {o}/$AH_CONDITION.ready\n\
         for i in $(seq 200); do\n\
           [ -e {o}/pre-bash-a_reader.sh.ready ] && [ -e {o}/pre-bash-b_reader.sh.ready ] && break\n\
           sleep 0.05\n\
         done\n\
         cat > {o}/$AH_CONDITION.stdin\n"
    );
    condition(&s.runtime(), "pre-bash-a_reader.sh", &reader);
    condition(&s.runtime(), "pre-bash-b_reader.sh", &reader);
    // Far past a pipe's buffer; the unit tests in exec.rs take 16 MiB.
    let size = 4 << 20;
    let reply = hook(&s, "claude", &large_pre_bash(&s, "ls", size));
    assert_eq!(reply, Value::Null, "{reply}");
    for name in ["pre-bash-a_reader.sh", "pre-bash-b_reader.sh"] {
        let stdin = saved_stdin(&out.join(format!("{name}.stdin")));
        let description = stdin["tool_input"]["description"].as_str().unwrap();
        assert_eq!(description.len(), size, "{name}");
        assert_eq!(stdin["tool_input"]["command"], "ls", "{name}");
    }
}

#[test]
fn an_async_condition_reading_after_the_hook_exited_gets_the_whole_payload() {
    let (s, _tmp, out) = with_tmpdir();
    let o = out.display();
    condition(
        &s.runtime(),
        "pre-bash-late.async.sh",
        &format!("sleep 1\ncat > {o}/late.tmp; mv {o}/late.tmp {o}/late.stdin\n"),
    );
    let size = 1 << 20;
    let reply = hook(&s, "claude", &large_pre_bash(&s, "ls -la", size));
    assert_eq!(reply, Value::Null, "{reply}");
    assert!(
        eventually(Duration::from_secs(10), || out.join("late.stdin").exists()),
        "the async condition never read its stdin"
    );
    let stdin = saved_stdin(&out.join("late.stdin"));
    assert_eq!(
        stdin["tool_input"]["description"].as_str().map(str::len),
        Some(size)
    );
    assert_eq!(stdin["tool_input"]["command"], "ls -la");
}

// ---------------------------------------------------------------------------------------------
// One deadline for the whole hook
// ---------------------------------------------------------------------------------------------

#[test]
fn a_batch_shares_one_deadline_and_what_it_leaves_no_time_for_is_skipped() {
    let mut s = Scratch::new();
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    let out = s.path("out");
    std::fs::create_dir_all(&out).unwrap();
    let programs = ["alpha", "beta", "gamma"];
    for program in programs {
        condition(
            &s.runtime(),
            &format!("pre-bash.{program}-slow.sh"),
            &format!("touch {}/{program}.started\nsleep 30\n", out.display()),
        );
    }
    let calls: Vec<Value> = programs
        .iter()
        .map(|p| json!({"name": "bash", "args": {"command": format!("{p} --now")}}))
        .collect();
    let batch = json!({"sessionId": "s", "cwd": s.repo.display().to_string(), "toolCalls": calls});
    let hooked = hook_bytes(
        &s,
        "copilot",
        Some("preToolUse"),
        batch.to_string().as_bytes(),
    );
    assert!(
        hooked.reply.get("permissionDecision").is_none(),
        "{}",
        hooked.reply
    );
    let notes = hook_log(&s)
        .pop()
        .map(|line| line["notes"].to_string())
        .unwrap_or_default();
    // The first call's condition takes all the time there is ...
    assert!(out.join("alpha.started").exists());
    assert!(
        notes.contains("condition pre-bash.alpha-slow.sh skipped (timed out"),
        "{notes}"
    );
    // ... so the later calls' conditions never start.
    for program in ["beta", "gamma"] {
        assert!(
            notes.contains(&format!(
                "condition pre-bash.{program}-slow.sh skipped (not started: the hook's deadline"
            )),
            "{notes}"
        );
        assert!(
            !out.join(format!("{program}.started")).exists(),
            "{program}"
        );
    }
}
