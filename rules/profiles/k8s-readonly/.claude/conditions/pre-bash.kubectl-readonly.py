"""Lets kubectl read a cluster and nothing else: an allow-list of read verbs.

Reads what hookdex's splitter found in the command line (the payload's
`shell.commands`: each simple command with its words, past sudo, env, xargs,
find -exec, bash -c and quoting), so `sudo kubectl -n x delete` and
`bash -c 'kube""ctl delete'` are judged like `kubectl delete`. Denied: a
kubectl whose verb is not a known read, a global option this list does not
know, and a line that may also run a program its text cannot name
(`$tool delete`, `eval "$x"`). Cluster writes go through GitOps.

Words the text cannot tell (a command's `unknown`: `$x`, `$(…)`, `*`,
`{a,b}`, …) may be any number of words when bash runs the line, so the verb
is only told when no word up to it, and up to the sub-verb of `auth` and
`config`, is one; and a command that may get more words than the text shows
(`more`: under xargs, an alias) needs its verb among the words it shows.

An unknown word after a literal read verb is allowed: it cannot change the
verb. kubectl (cobra) takes the first word that is not an option, past the
global options and their values, as the subcommand, and the read verbs here
are leaf commands (`auth` and `config` only with a read sub-verb, which is
checked the same way), so every word after one is an argument or an option
of that read. A split word could add options such as `--kubeconfig`,
`--server` or `--as`; but a literal word could add those too, this script
does not judge the words after the verb either way, and pointed at another
cluster or user a read is still a read.
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


def positional(words, i):
    """The index of the first word from `i` that is not a global option or
    its value (len(words) when there is none); or None and why not."""
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1, None
        if not word.startswith("-"):
            return i, None
        name = word.split("=", 1)[0]
        if name in FLAGS or (name != word and name in VALUED):
            i += 1
        elif name in VALUED:
            i += 2
        elif not word.startswith("--") and word[:2] in VALUED:
            i += 1  # -nprod
        else:
            return None, f"option `{word}` is not one this allow-list knows"
    return len(words), None


def refusal(command):
    """Why `kubectl ARGS` is not a read, or None when it is."""
    words = command.get("args", [])
    unknown = set(command.get("unknown", []))
    more = command.get("more", False)
    told = []  # the verb, then the sub-verb
    i = 0
    for _ in range(2):
        i, why = positional(words, i)
        if why:
            return why
        if any(k in unknown for k in range(min(i + 1, len(words)))):
            return "cannot tell the verb: a word before it is not in the text"
        if i >= len(words):
            break
        told.append(words[i])
        i += 1
        if READS.get(told[0]) is None:
            break
    if not told and more:
        return "cannot tell the verb: it comes from words the line does not show"
    verb = told[0] if told else "help"  # `kubectl` alone prints its usage
    if verb not in READS:
        return f"`kubectl {verb}` is not a read"
    allowed = READS[verb]
    if allowed is None:
        return None
    sub = told[1] if len(told) > 1 else ""
    if sub in allowed:
        return None
    if not sub and more:
        return f"cannot tell what `kubectl {verb}` does: it comes from words the line does not show"
    return f"`{' '.join(['kubectl', verb, sub]).strip()}` is not a read"


def main():
    shell = json.load(sys.stdin).get("shell") or {}
    reasons = [
        refusal(c)
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
