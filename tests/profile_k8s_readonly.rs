//! The package profile `k8s-readonly` through `hookdex hook`: a declarative
//! allow-list of kubectl's read verbs, judged on the splitter's words, so
//! wrappers, runners, re-parsed strings, quoting, words that expand to
//! several and words appended from stdin do not hide a write, and a read
//! whose arguments merely spell a write verb is not denied.

mod common;

use common::hook::*;
use common::*;

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
        // An unquoted expansion, a glob or braces may split into the verb.
        r#"x="prod delete pod victim"; kubectl -n $x"#,
        "kubectl -n $(echo prod delete pod victim)",
        "kubectl -n `echo prod delete pod victim`",
        "kubectl --context=$(echo c delete pod v)",
        "kubectl -v$(echo 9 delete pod v)",
        r#"set -- prod delete pod victim; kubectl -n "$@""#,
        r#"a=(prod delete pod victim); kubectl -n "${a[@]}""#,
        "IFS=,; v=a,delete,pod,v; kubectl -n $v",
        "kubectl -n *",
        r#"v=delete; kubectl "$v" pod victim"#,
        "HOME=delete; kubectl ~ pod victim",
        "kubectl -n {prod,delete,pod,victim}",
        "kubectl --context {c,delete,pod,v}",
        "{kubectl,delete,pod,victim}",
        "{bash,-c,'kubectl delete pod victim'}",
        // xargs and parallel append words from stdin.
        "echo delete pod victim | xargs kubectl",
        "printf 'delete\\0pod\\0victim' | xargs -0 kubectl",
        "xargs -a file kubectl",
        "echo delete pod victim | xargs kubectl -n prod",
        "echo delete | xargs -I{} kubectl {} pod victim",
        "parallel kubectl {} pod victim ::: delete",
        // An alias's value and a `hash -p` name run with the invocation's words.
        "shopt -s expand_aliases; alias k=kubectl; k delete pod victim",
        "bash -O expand_aliases -c $'alias k=kubectl\\nk delete pod victim'",
        "hash -p /usr/bin/kubectl k; k delete pod victim",
        "env -S kubectl delete pod victim",
        // Runners, and shells that read their code from a stdin path.
        "fakeroot -u kubectl delete pod victim",
        "fakeroot -f 'kubectl delete pod victim;' true",
        "fakeroot <<< 'kubectl delete pod victim'",
        "valgrind -q --tool=none kubectl delete pod victim",
        "perf stat -e cycles -x , kubectl delete pod victim",
        "perf record -o /tmp/p -- kubectl delete pod victim",
        "perf trace -i x kubectl delete pod victim",
        "perf stat --pre 'kubectl delete pod victim' true",
        "perf stat rec -o /tmp/p kubectl delete pod victim",
        "perf trace record -o /tmp/p kubectl delete pod victim",
        "dbus-run-session --config-file=f -- kubectl delete pod victim",
        "catchsegv kubectl delete pod victim",
        "firejail --noprofile kubectl delete pod victim",
        "torsocks -u bob kubectl delete pod victim",
        "proxychains4 -q -f c kubectl delete pod victim",
        "proxychains -qf kubectl delete pod victim",
        "aa-exec -p p -- kubectl delete pod victim",
        "cgexec -g cpu:/x kubectl delete pod victim",
        "systemd-run --user -p X=1 kubectl delete pod victim",
        "source /dev/stdin <<< 'kubectl delete pod v'",
        ". /dev/fd/0 <<< 'kubectl delete pod v'",
        "bash /dev/stdin <<< 'kubectl delete pod v'",
        "sh /proc/self/fd/0 <<< 'kubectl delete pod v'",
        "bash -c 'bash' <<< 'kubectl delete pod v'",
        // Text pasted into code may hold any command.
        r#"x='pods; kubectl delete pod v'; eval "kubectl get $x""#,
        r#"x='pods; kubectl delete pod v'; bash -c "kubectl get $x""#,
        r#"x='pods; kubectl delete pod v'; bash <<< "kubectl get $x""#,
        "x='pods; kubectl delete pod v'; bash <<EOF\nkubectl get $x\nEOF",
        "echo 'pods; kubectl delete pod v' | xargs -I{} sh -c 'kubectl get {}'",
        "find . -exec sh -c 'kubectl get {}' \\;",
        // Variables a shell reads as code, or as the file it sources first.
        "BASH_ENV=/dev/stdin bash -c 'kubectl get pods' <<< 'kubectl delete pod v'",
        "env 'BASH_FUNC_kubectl%%=() { command kubectl delete pod v; }' bash -c 'kubectl get pods'",
        "PS4='$(kubectl delete pod v)'; set -x; kubectl get pods",
        // A global option's value is not the sub-verb.
        "kubectl auth --cache-dir can-i reconcile -f r.yaml",
        "kubectl config --cache-dir view set-context fake --namespace=hacked",
        "kubectl config --kubeconfig view set-context fake --namespace=hacked",
        "kubectl auth",
        "echo can-i | xargs kubectl auth",
    ] {
        assert_eq!(decision(&s, command), "deny", "{command}");
    }
}

/// Lines whose kubectl the text never names: the splitter reports a program
/// it cannot name, so with `HOOKDEX_SHELL_STRICT` every `bash.<cli>` rule,
/// this one too, fires and denies.
#[test]
fn writes_behind_a_program_the_text_cannot_name_are_denied_when_strict() {
    let mut s = profile();
    s.set_env("HOOKDEX_SHELL_STRICT", "1");
    for command in [
        "$k delete pod x",
        "echo \"'kubectl delete pod victim'\" | xargs sh -c",
        "echo kubectl delete pod victim | xargs timeout 5",
        "echo kubectl delete pod victim | xargs env",
        "mkdir -p kubectl; find kubectl -maxdepth 0 -exec {} delete pod victim \\;",
        "parallel {} delete pod victim ::: kubectl",
    ] {
        assert_eq!(decision(&s, command), "deny", "{command}");
    }
}

#[test]
fn reads_pass_even_when_their_words_spell_a_write() {
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
        // An unknown word after a literal read verb cannot change the verb.
        "kubectl get pods -l app=$APP",
        "kubectl logs \"$POD\" --since 1h",
        "kubectl auth can-i get pods --as $USER",
        "kubectl config view --kubeconfig ~/.kube/config",
        // Appended words after a literal read verb are its arguments.
        "kubectl get pods -o name | xargs kubectl describe",
        "echo api-0 | xargs -I{} kubectl logs {}",
        "kubectl --cache-dir /tmp/c get pods",
    ] {
        assert_ne!(decision(&s, command), "deny", "{command}");
    }
}
