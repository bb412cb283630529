#!/usr/bin/env bash
# Checks the warm hook path's system calls with strace: no directory is
# listed (getdents64), and the only paths stat'ed are the recorded ones plus
# the `.git` probe that finds the repository root.
# Usage: benches/strace-hook.sh [RULES]   (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
. benches/fixture.sh
bin=$(release_binary)
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-strace.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" "$n"
payload='{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la | wc -l"},"cwd":"'"$root/repo"'","session_id":"s"}'
cd "$root/repo"
"$bin" compile >/dev/null
"$bin" hook --target claude <<<"$payload" >/dev/null   # warm
strace -f -qq -e trace=getdents64,stat,lstat,newfstatat,statx,openat,mmap -o "$root/trace" \
  "$bin" hook --target claude <<<"$payload" >/dev/null
getdents=$(grep -c getdents64 "$root/trace" || true)
echo "rules: $n"
echo "getdents64 calls: $getdents"
echo "stat-family calls:"
grep -E 'stat|statx' "$root/trace" | grep -v '/proc/\|/sys/\|libc\|ld.so' | sed 's/^[0-9]* */  /' | cut -c1-150
echo "openat of the index:"
grep -E 'openat.*\.hdx' "$root/trace" | sed 's/^[0-9]* */  /' | cut -c1-150
[ "$getdents" -eq 0 ]
