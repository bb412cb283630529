#!/usr/bin/env bash
# Whole-process time of `hookdex hook` on hostile payloads up to the 16 MiB cap: command
# lines of every nesting construct, opened and never closed, repeated side by side, then
# `; kubectl delete pod x`; long plain lines; big file edits. A fence rule
# (`pre-bash.kubectl-fence.sh`, exit 2) guards kubectl in strict mode and the gate is on, so each call
# does the work a real one does. Prints each case's seconds and whether the fence still
# denied where bash runs kubectl (a guard skipped at the deadline lets it run: "MISSED"), then
# the slowest.
#
# Usage: benches/hostile-payloads.sh [SIZES_IN_BYTES…]   (default: 1048576 16000000)
#   BIN=/path/to/hookdex times that build instead of building the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/fixture.sh
bin=${BIN:-$(release_binary)}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1048576 16000000)
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-hostile.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" 100
printf '#!/bin/sh\necho fenced >&2\nexit 2\n' > "$HOOKDEX_HOME/conditions/pre-bash.kubectl-fence.sh"
chmod +x "$HOOKDEX_HOME/conditions/pre-bash.kubectl-fence.sh"
# Strict: a line the splitter reports dynamic (too deep, say) fires the fence too, so
# "MISSED" means the line was neither judged nor reported.
export HOOKDEX_ENFORCE=off HOOKDEX_SHELL_STRICT=1
cp "$bin" "$root/hookdex"
bin=$root/hookdex
cd "$root/repo"
"$bin" compile >/dev/null

python3 - "$root" "${sizes[@]}" <<'PY'
import json, os, sys, subprocess, time
root, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
cwd = os.path.join(root, "repo")
tail = " ; kubectl delete pod x"
def rep(unit, n):
    return unit * max(1, (n - len(tail)) // len(unit))
commands = {
    "braces": lambda n: "echo " + rep("{", n) + tail,
    "brace-pairs": lambda n: "echo " + rep("{a,b}", n) + tail,
    "dollar-paren": lambda n: "echo " + rep("$(", n) + tail,
    "backticks": lambda n: "echo " + rep("\\`", n) + tail,
    "param": lambda n: "echo " + rep("${", n) + tail,
    "arith": lambda n: "echo " + rep("$((", n) + tail,
    "double-parens": lambda n: rep("((", n) + tail,
    "subshells": lambda n: rep("(", n) + tail,
    "dquote-subst": lambda n: 'echo "' + rep('$("', n) + tail,
    "squote": lambda n: "echo '" + rep("a", n) + "'" + tail,
    "ansi-c": lambda n: "echo $'" + rep("\\x41", n) + "'" + tail,
    "process-subst": lambda n: "cat " + rep("<(", n) + tail,
    "arrays": lambda n: "a=(" + rep("(", n) + tail,
    "test-brackets": lambda n: rep("[[ ", n) + tail,
    "heredocs": lambda n: "cat " + rep("<<E ", n) + "\nkubectl delete pod x\n",
    "heredoc-body": lambda n: "cat <<E\n" + rep("$(x)\n", n) + "E\nkubectl delete pod x",
    "extglob": lambda n: "echo " + rep("@(", n) + tail,
    "words": lambda n: "echo " + rep("a ", n) + tail,
    "pipes": lambda n: rep("true | ", n) + "kubectl delete pod x",
    "semicolons": lambda n: rep("true; ", n) + "kubectl delete pod x",
    "bash-c": lambda n: rep("bash -c '", 1) + rep("x", n) + "'" + tail,
    "eval-nest": lambda n: rep("eval ", n) + "kubectl delete pod x",
    "runner-chain": lambda n: rep("nice ", n) + "kubectl delete pod x",
    "flock-chain": lambda n: rep("flock f ", n) + "kubectl delete pod x",
    "case": lambda n: "case x in " + rep("a) ;; ", n) + "esac" + tail,
}
def payload(tool, tool_input):
    return json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": tool_input, "cwd": cwd, "permission_mode": "default"})
# Whether bash runs kubectl on the construct, asked of bash itself on a short line with a
# stub kubectl first on PATH: a line bash rejects runs nothing, so no guard need fire.
stub = os.path.join(root, "stub")
os.makedirs(stub, exist_ok=True)
with open(os.path.join(stub, "kubectl"), "w") as f:
    f.write("#!/bin/sh\necho kubectl-ran\n")
os.chmod(os.path.join(stub, "kubectl"), 0o755)
def bash_runs_kubectl(line):
    env = {"PATH": stub + ":" + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root}
    try:
        out = subprocess.run(["bash", "-c", line], env=env, cwd=root, capture_output=True,
                             stdin=subprocess.DEVNULL, timeout=10)
    except subprocess.TimeoutExpired:
        return False
    return b"kubectl-ran" in out.stdout
runs = {name: bash_runs_kubectl(make(200)) for name, make in commands.items()}
cases = []
for size in sizes:
    for name, make in commands.items():
        cases.append((name, size, payload("Bash", {"command": make(size)}), runs[name]))
    cases.append(("write", size, payload("Write", {"file_path": cwd + "/a.py", "content": "x = 1\n" * (size // 6)}), False))
    cases.append(("edit", size, payload("Edit", {"file_path": cwd + "/a.py", "old_string": "x", "new_string": "\"" * size}), False))
slowest = (0.0, "")
missed = 0
print(f"{'case':<16} {'bytes':>10} {'seconds':>8}  fence")
for name, size, body, fenced in cases:
    data = body.encode()
    if len(data) > 16 << 20:
        continue
    start = time.monotonic()
    out = subprocess.run([os.path.join(root, "hookdex"), "hook", "--target", "claude"],
                         input=data, capture_output=True, cwd=cwd)
    took = time.monotonic() - start
    denied = b'"permissionDecision":"deny"' in out.stdout
    verdict = ("denied" if denied else "MISSED") if fenced else "- (bash runs no kubectl)"
    missed += fenced and not denied
    print(f"{name:<16} {len(data):>10} {took:>8.3f}  {verdict}")
    if took > slowest[0]:
        slowest = (took, f"{name} at {len(data)} bytes")
print(f"slowest: {slowest[0]:.3f} s ({slowest[1]}); goal ≤ 1 s of the hook's own work; {missed} fenced lines missed")
PY
