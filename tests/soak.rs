//! A soak: 16 hook processes at a time while rule files are added, edited
//! and removed under them. Every answer must be one a rule state could give
//! (a deny or nothing, exit 0, one JSON line), and once the churn stops every
//! concurrent answer must match a fresh `explain`.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use common::hook::*;
use common::*;

const HOOKS: usize = 16;

/// Puts an executable `body` at `path` in one rename.
fn replace(path: &std::path::Path, body: &str) {
    let tmp = path.with_extension("tmp-churn");
    std::fs::write(&tmp, body).unwrap();
    set_executable(&tmp, true);
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn sixteen_hooks_under_churn_agree_with_explain() {
    let s = Scratch::new();
    let dir = s.runtime();
    std::fs::create_dir_all(&dir).unwrap();
    let payload = pre_bash(&s, "claude", "kubectl delete pod web-0");
    let guard = dir.join("pre-bash.kubectl-guard.sh");
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for round in 0..60 {
                // Whole files replaced by rename, as editors and `git checkout`
                // do, so every state is a state of whole files.
                match round % 4 {
                    0 => replace(&guard, &decider("deny", "churn")),
                    // An edit to something that says nothing.
                    1 => replace(&guard, "exit 0\n"),
                    2 => std::fs::remove_file(&guard).unwrap(),
                    _ => replace(
                        &dir.join(format!("pre-bash.git-other{round}.sh")),
                        "exit 0\n",
                    ),
                }
                std::thread::sleep(std::time::Duration::from_millis(15));
            }
            done.store(true, Ordering::SeqCst);
        });
        for _ in 0..HOOKS {
            scope.spawn(|| {
                while !done.load(Ordering::SeqCst) {
                    let mut reply = hook(&s, "claude", &payload);
                    // A file caught mid-replace may be listed invalid: the
                    // session is told once, beside whatever the rules say.
                    if let Some(reply) = reply.as_object_mut() {
                        let told = reply.remove("systemMessage");
                        assert!(
                            told.is_none_or(|t| t
                                .as_str()
                                .is_some_and(|t| t.ends_with("(hookdex doctor)"))),
                            "a message no rule state gives: {reply:?}"
                        );
                    }
                    let reply = match reply.as_object().is_some_and(|o| o.is_empty()) {
                        true => Value::Null,
                        false => reply,
                    };
                    let decision = &reply["hookSpecificOutput"]["permissionDecision"];
                    assert!(
                        reply == Value::Null || decision == "deny",
                        "an answer no rule state gives: {reply}"
                    );
                }
            });
        }
    });
    // Settled: a guard in place, and every concurrent answer as explain says.
    replace(&guard, &decider("deny", "settled"));
    let explain = s.explain(&["--tool", "Bash", "--command", "kubectl delete pod web-0"]);
    assert!(
        explain
            .fire_names()
            .iter()
            .any(|n| n == "pre-bash.kubectl-guard.sh"),
        "{:?}",
        explain.fire_names()
    );
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..HOOKS)
            .map(|_| scope.spawn(|| hook(&s, "claude", &payload)))
            .collect();
        for handle in handles {
            let reply = handle.join().unwrap();
            assert_eq!(
                reply["hookSpecificOutput"]["permissionDecisionReason"], "settled",
                "{reply}"
            );
        }
    });
}
