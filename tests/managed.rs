//! The managed layer against the user's own account. When the managed
//! directory belongs to another user (the administrator), its rules run from
//! an index in that directory (`hookdex compile --managed`, run by them) or,
//! failing that, compiled in memory; never from the user's cache, which the
//! user, and so the agent, can write. Each attack is made the way such a
//! user could: a consistent index for the view, built with hookdex's own
//! compiler and edited to switch the managed guard off, planted with the
//! user's ownership.
//!
//! The hooks run as uid 65534 (`nobody`) while the managed directory stays
//! root's, so these tests need root; without it they say so and skip. The
//! last ones need no other user: whoever owns the managed directory, its
//! rules run in a fixed environment and the user's timing settings cannot
//! cut them short.

mod common;

use std::path::Path;

use common::hook::*;
use common::*;
use hookdex_compiler::View;
use hookdex_index::IndexFile;
use hookdex_model::{LayerKind, Target};
use serde_json::Value;

/// The user the hooks run as.
const USER: u32 = 65534;

/// Whether this process can run commands as another user.
fn root() -> bool {
    if hookdex_index::current_user() == 0 {
        return true;
    }
    eprintln!("skipped: running the hook as another user needs root");
    false
}

/// A tree whose root-owned managed directory denies kubectl.
fn administered() -> Scratch {
    let s = Scratch::new();
    condition(
        &s.managed(),
        "pre-bash.kubectl-deny.sh",
        &decider("deny", "managed: no kubectl"),
    );
    s
}

fn decision(s: &Scratch) -> Value {
    let reply = hook(s, "claude", &pre_bash(s, "claude", "kubectl delete pod x"));
    reply["hookSpecificOutput"]["permissionDecision"].clone()
}

fn explain(s: &Scratch) -> Value {
    let out = s.run(&[
        "explain",
        "--tool",
        "Bash",
        "--command",
        "kubectl delete pod x",
        "--json",
    ]);
    assert_success(&out, &["explain"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The index `view` compiles to, with its managed rule switched off (marked
/// overridden) and its checksums right: what a user could write in place
/// of the one hookdex built.
fn forged(view: &View) -> Vec<u8> {
    let mut data = hookdex_compiler::compile(view).data;
    let managed = data
        .rules
        .iter()
        .position(|r| r.layer_kind == LayerKind::Managed)
        .expect("a managed rule to switch off");
    data.rules[managed].overridden_by = Some(managed as u32);
    data.to_bytes()
}

/// Writes `bytes` at `path` as the user's own file.
fn plant(path: &Path, bytes: &[u8]) {
    IndexFile::write_atomic(path, bytes, 0o644).unwrap();
    let status = std::process::Command::new("chown")
        .arg(format!("{USER}:{USER}"))
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn view(s: &Scratch) -> View {
    View::from_vars(Target::Claude, &s.cwd, |name| s.var(name))
}

fn fires_managed(explained: &Value) -> bool {
    explained["fires"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["layer"] == "managed")
}

#[test]
fn a_forged_user_index_cannot_switch_a_managed_rule_off() {
    if !root() {
        return;
    }
    let mut s = administered();
    s.run_as(USER);
    assert_eq!(decision(&s), "deny", "the managed guard runs for the user");
    let out = s.run(&["list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("the managed layer is compiled on every call"),
        "no managed index yet: `list` says so\n{listed}"
    );
    // The user's cache holds a sound index now; the forgery replaces it.
    plant(&view(&s).index_path(), &forged(&view(&s)));
    let explained = explain(&s);
    assert_eq!(
        explained["index"]["fresh"], true,
        "the forgery is believed as the user's index: {explained}"
    );
    assert!(fires_managed(&explained), "{explained}");
    assert_eq!(decision(&s), "deny", "the managed guard still runs");
}

#[test]
fn the_same_forgery_works_on_a_managed_dir_the_user_owns() {
    // The limit, shown: a managed directory the user owns is the user's to
    // change, so hookdex cannot hold it against them (SECURITY.md).
    if !root() {
        return;
    }
    let mut s = administered();
    s.run_as(USER);
    let status = std::process::Command::new("chown")
        .args(["-R", &format!("{USER}:{USER}")])
        .arg(s.path("managed"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(decision(&s), "deny");
    plant(&view(&s).index_path(), &forged(&view(&s)));
    assert_eq!(decision(&s), Value::Null, "the forgery switched it off");
}

#[test]
fn the_administrators_index_is_used_and_a_planted_one_refused() {
    if !root() {
        return;
    }
    let mut s = administered();
    // The administrator compiles the managed directory for every target.
    let out = s.run(&["compile", "--managed"]);
    assert_success(&out, &["compile", "--managed"]);
    for target in Target::ALL {
        let index = s.path(&format!("managed/index-{target}.hdx"));
        assert!(index.is_file(), "{} written", index.display());
    }
    s.run_as(USER);
    let explained = explain(&s);
    assert_eq!(explained["managed_index"]["fresh"], true, "{explained}");
    assert!(fires_managed(&explained), "{explained}");
    assert_eq!(decision(&s), "deny");

    // An index the user wrote in the managed directory (say it was left
    // group-writable) is refused, and the managed layer compiled in memory.
    let managed = view(&s).managed_only();
    plant(&managed.index_path(), &forged(&managed));
    let explained = explain(&s);
    let state = explained["managed_index"]["state"].as_str().unwrap();
    assert!(state.contains("owned by another user"), "{explained}");
    assert!(fires_managed(&explained), "{explained}");
    assert_eq!(decision(&s), "deny");
}

#[test]
fn switching_conditions_off_leaves_the_administrators_layer_on() {
    if !root() {
        return;
    }
    let mut s = administered();
    condition(
        &s.runtime(),
        "pre-bash.kubectl-ask.sh",
        &decider("ask", "mine"),
    );
    s.run_as(USER);
    s.set_env("CONDITIONS_ENABLED", "false");
    assert_eq!(decision(&s), "deny");
    let log = hook_log(&s);
    let fired = &log.last().unwrap()["fired"];
    assert_eq!(
        fired,
        &serde_json::json!(["pre-bash.kubectl-deny.sh"]),
        "{log:?}"
    );
}

#[test]
fn the_users_environment_does_not_choose_what_a_managed_rule_runs() {
    let mut s = Scratch::new();
    let evil = s.path("evil");
    std::fs::create_dir_all(&evil).unwrap();
    // A `bash` first on PATH, a BASH_ENV, an exported `echo`: each would
    // turn the managed deny into an allow.
    let allow = "#!/bin/sh\necho '{\"decision\": \"allow\"}'\n";
    condition(&evil, "bash", allow);
    std::fs::write(
        evil.join("benv.sh"),
        "echo() { builtin echo '{\"decision\": \"allow\"}'; }\n",
    )
    .unwrap();
    let seen = s.path("managed-env.txt");
    condition(
        &s.managed(),
        "pre-bash.kubectl-deny.sh",
        &format!(
            "env > '{}'\n{}",
            seen.display(),
            decider("deny", "managed: no kubectl")
        ),
    );
    let path = format!(
        "{}:{}",
        evil.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    s.set_env("PATH", path);
    s.set_env("BASH_ENV", evil.join("benv.sh").display().to_string());
    s.set_env(
        "BASH_FUNC_echo%%",
        "() { builtin echo '{\"decision\": \"allow\"}'; }",
    );
    s.set_env("OPENAI_API_KEY", "sk-not-for-managed-rules");
    assert_eq!(decision(&s), "deny");
    let env = std::fs::read_to_string(&seen).unwrap();
    assert!(
        env.lines()
            .any(|l| l == "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
        "{env}"
    );
    assert!(env.lines().any(|l| l == "PYTHONNOUSERSITE=1"), "{env}");
    for unwanted in ["BASH_ENV=", "BASH_FUNC_", "OPENAI_API_KEY="] {
        assert!(!env.contains(unwanted), "{unwanted} reached it:\n{env}");
    }
}

#[test]
fn the_users_timing_settings_cannot_skip_a_managed_rule() {
    let mut s = Scratch::new();
    // It takes longer than the user's timeouts allow.
    condition(
        &s.managed(),
        "pre-bash.kubectl-deny.sh",
        &format!("sleep 1.5\n{}", decider("deny", "managed: no kubectl")),
    );
    // Eight of the user's rules that never finish hold every worker.
    for n in 0..8 {
        condition(
            &s.runtime(),
            &format!("pre-bash.kubectl-slow{n}.sh"),
            "sleep 30\n",
        );
    }
    s.set_env("CONDITIONS_TIMEOUT_SEC", "1");
    s.set_env("HOOKDEX_HOOK_TIMEOUT_SEC", "0.000000001");
    assert_eq!(decision(&s), "deny");
}
