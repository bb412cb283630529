"""Lets kubectl read a cluster and nothing else: an allow-list of read verbs.

Reads what hookdex's splitter found in the command line (the payload's
`shell.commands`: each simple command with its words, past sudo, env, xargs,
find -exec, bash -c and quoting), so `sudo kubectl -n x delete` and
`bash -c 'kube""ctl delete'` are judged like `kubectl delete`. Denied: a
kubectl whose verb is not a known read, a global option this list does not
know, and a line that may also run a program its text cannot name
(`$tool delete`, `eval "$x"`). Cluster writes go through GitOps.
"""
import json
import sys

# Verbs that only read. A verb with sub-verbs lists the ones that only read.
READS = {
    "get": None, "describe": None, "logs": None, "top": None, "explain": None,
    "api-resources": None, "api-versions": None, "version": None,
    "cluster-info": None, "events": None, "help": None,
    "auth": {"can-i", "whoami"},
    "config": {"view", "get-contexts", "current-context", "get-clusters", "get-users"},
}
# kubectl's global options that take a value (`kubectl options`).
VALUED = {
    "-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server",
    "--kubeconfig", "--token", "--as", "--as-group", "--as-uid", "--request-timeout",
    "-v", "--v", "--cache-dir", "--certificate-authority", "--client-certificate",
    "--client-key", "--tls-server-name", "--username", "--password", "--profile",
    "--profile-output", "--log-file", "--log-dir", "--log-file-max-size",
    "--log-flush-frequency", "--vmodule", "--stderrthreshold", "--log-backtrace-at",
}
# Global options that take none.
FLAGS = {
    "--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors",
    "--disable-compression", "--alsologtostderr", "--logtostderr", "--skip-headers",
    "--skip-log-headers", "--add-dir-header", "--one-output", "-h", "--help",
}


def verb_of(args):
    """The verb of `kubectl ARGS` and the words after it; or None and why not."""
    words = list(args)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-"):
            break
        name = word.split("=", 1)[0]
        if name in FLAGS or (name != word and name in VALUED):
            i += 1
        elif name in VALUED:
            i += 2
        elif not word.startswith("--") and word[:2] in VALUED:
            i += 1  # -nprod
        else:
            return None, f"option `{word}` is not one this allow-list knows"
    if i >= len(words):
        return "help", []  # `kubectl` alone prints its usage
    return words[i], words[i + 1:]


def refusal(args):
    """Why `kubectl ARGS` is not a read, or None when it is."""
    verb, rest = verb_of(args)
    if verb is None:
        return rest
    if verb not in READS:
        return f"`kubectl {verb}` is not a read"
    allowed = READS[verb]
    if allowed is None:
        return None
    sub = next((w for w in rest if not w.startswith("-")), "")
    if sub in allowed:
        return None
    return f"`{' '.join(['kubectl', verb, sub]).strip()}` is not a read"


def main():
    shell = json.load(sys.stdin).get("shell") or {}
    reasons = [
        refusal(c.get("args", []))
        for c in shell.get("commands", [])
        if c.get("program") == "kubectl"
    ]
    reasons = [r for r in reasons if r]
    if shell.get("dynamic"):
        texts = ", ".join(d.get("text", "") for d in shell["dynamic"])
        reasons.append(f"this line may run a program hookdex cannot read ({texts})")
    if reasons:
        print(
            "; ".join(reasons)
            + ": kubectl writes go through GitOps; use a read (get, describe, logs)",
            file=sys.stderr,
        )
        sys.exit(2)


main()
