//! How conditions run: timeouts kill the whole process group, parallelism keeps order,
//! `.async` conditions are not waited for, and the environment, stdin and cwd scripts get.

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
