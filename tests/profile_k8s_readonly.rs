//! The package profile `k8s-readonly` through `hookdex hook`: an allow-list
//! of kubectl's read verbs, read from the splitter's words (the payload's
//! `shell.commands`), so wrappers, runners, re-parsed strings and quoting
//! do not hide a write, and a read whose arguments merely spell a write
//! verb is not denied.

mod common;

use common::hook::*;
use common::*;

fn has_python() -> bool {
    let found = std::process::Command::new("python3")
        .arg("-c")
        .arg("")
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped: the k8s-readonly profile runs with python3, not on PATH");
    }
    found
}

fn decision(s: &Scratch, command: &str) -> String {
    let reply = hook(s, "claude", &pre_bash(s, "claude", command));
    reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

fn profile() -> Scratch {
    let mut s = Scratch::new();
    s.set_env("HOOKDEX_PROFILES", "k8s-readonly");
    s
}

#[test]
fn writes_are_denied_however_the_line_is_written() {
    if !has_python() {
        return;
    }
    let s = profile();
    for command in [
        "kubectl delete pod x",
        "sudo -n kubectl -n prod delete pod x",
        "KUBECONFIG=/k kubectl -nprod delete pod y",
        "bash -c 'kube\"\"ctl apply -f x.yaml'",
        "echo pod/x | xargs kubectl delete",
        "find . -name '*.yaml' -exec kubectl apply -f {} \\;",
        "kubectl --context prod scale deploy api --replicas 0",
        "kubectl --context=prod -- delete ns x",
        "kubectl config set-context prod",
        "kubectl auth reconcile -f rbac.yaml",
        "kubectl exec -it api -- sh",
        "kubectl --made-up-flag get pods",
        "kubectl get pods; $k delete pod x",
        "cd deploy && watch -n 5 'kubectl rollout restart deploy/api'",
    ] {
        assert_eq!(decision(&s, command), "deny", "{command}");
    }
}

#[test]
fn reads_pass_even_when_their_words_spell_a_write() {
    if !has_python() {
        return;
    }
    let s = profile();
    for command in [
        "kubectl get pods -A",
        "kubectl -n prod describe pod api-0",
        "kubectl logs -f api-0 --since 10m",
        "kubectl --context=prod get ns",
        "kubectl config view --minify",
        "kubectl auth can-i delete pods",
        "kubectl version",
        "kubectl",
        // A pattern over the text denied these: a pod named `delete`, a
        // configmap named `set`, a write verb piped to grep or quoted.
        "kubectl get pod delete",
        "kubectl get configmap set -o yaml",
        "kubectl get pods | grep delete",
        "echo 'kubectl delete pod x'",
    ] {
        assert_ne!(decision(&s, command), "deny", "{command}");
    }
}
