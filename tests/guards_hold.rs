//! What the agent can write outside the rules cannot switch a guard off,
//! end to end through `hookdex hook`: a syntax cache that says a guard does
//! not parse, and programs named `bash`, `python3` and `sh` first on `PATH`
//! that exit 0 without a word. Each guard still denies.

mod common;

use serde_json::{json, Value};

use common::hook::*;
use common::*;

/// A denying guard of each kind that starts an interpreter: a `.sh` and a
/// `.py` condition and a `hooks.yaml` command (run with `sh -c`).
fn guards(s: &Scratch) {
    condition(
        &s.runtime(),
        "pre-bash-guard_sh.sh",
        &decider("deny", "sh guard"),
    );
    condition(
        &s.runtime(),
        "pre-bash-guard_py.py",
        "import json\nprint(json.dumps({'decision': 'deny', 'reason': 'py guard'}))\n",
    );
    std::fs::write(
        s.home().join("hooks.yaml"),
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo 'yaml guard' >&2; exit 2\"\n",
    )
    .unwrap();
}

/// Whether every guard of [`guards`] denied `reply`.
fn all_denied(reply: &Value) -> bool {
    let text = reply.to_string();
    reply.pointer("/hookSpecificOutput/permissionDecision") == Some(&json!("deny"))
        && ["sh guard", "py guard", "yaml guard"]
            .iter()
            .all(|g| text.contains(g))
}

fn kubectl(s: &Scratch) -> Value {
    hook(s, "claude", &pre_bash(s, "claude", "kubectl get pods"))
}

#[test]
fn interpreters_first_on_path_do_not_run_rules() {
    let mut s = Scratch::new();
    guards(&s);
    let fake = s.root.join("home/.local/bin");
    std::fs::create_dir_all(&fake).unwrap();
    for program in ["bash", "python3", "sh"] {
        let path = fake.join(program);
        std::fs::write(&path, "#!/bin/dash\nexit 0\n").unwrap();
        set_executable(&path, true);
    }
    // They would run, and stay silent, where a rule's interpreter were
    // looked up in PATH.
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A thread of this test binary forking while a fake was open for
    // writing holds it until its exec: running it then fails with "Text
    // file busy" for a moment, so that failure is tried again.
    let silent = loop {
        match std::process::Command::new("bash")
            .env("PATH", &path)
            .args(["-c", "echo hi"])
            .output()
        {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            ran => break ran.unwrap(),
        }
    };
    assert!(silent.status.success() && silent.stdout.is_empty());
    s.set_env("PATH", &path);
    let reply = kubectl(&s);
    assert!(all_denied(&reply), "{reply}");
    assert!(invalid(&s.list(&[])).is_empty());
}

#[test]
fn a_syntax_cache_that_says_a_guard_does_not_parse_is_not_believed() {
    let s = Scratch::new();
    guards(&s);
    assert!(all_denied(&kubectl(&s)));
    let caches: Vec<_> = walk(&s.cache())
        .into_iter()
        .filter(|p| file_name(p).ends_with(".syntax.json"))
        .collect();
    assert_eq!(caches.len(), 1, "{caches:?}");
    // Every key it holds (and the script's path) now says "syntax error",
    // and the index is gone, so the next call compiles from the cache.
    let held: Vec<String> = serde_json::from_slice(&std::fs::read(&caches[0]).unwrap()).unwrap();
    assert_eq!(held.len(), 2, "the two scripts parsed: {held:?}");
    let script = s.runtime().join("pre-bash-guard_sh.sh");
    let poisoned: serde_json::Map<String, Value> = held
        .iter()
        .cloned()
        .chain([script.display().to_string()])
        .map(|k| (k, json!("bash -n: line 1: syntax error")))
        .collect();
    std::fs::write(&caches[0], Value::Object(poisoned).to_string()).unwrap();
    std::fs::remove_file(s.index_file()).unwrap();
    assert!(all_denied(&kubectl(&s)));
    assert!(invalid(&s.list(&[])).is_empty());
    // A script that does not parse is still found out, cache or not.
    condition(&s.runtime(), "pre-bash-broken.sh", "if then\n");
    let list = s.list(&[]);
    assert!(
        invalid_reason(&list, "pre-bash-broken.sh").contains("syntax error"),
        "{list}"
    );
}
