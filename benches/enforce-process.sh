#!/usr/bin/env bash
# Whole-process cost of the kernel's guard (`hookdex exec --guard`, SPEC §15)
# against the bare command, measured in one run and printed as ratios:
#   - `true`: what the wrapper adds to every shell call;
#   - a build that starts 1,000 processes (make -j1, one `true` per target);
#   - a command that writes 10,000 files (each an open with O_CREAT, which
#     the write gate judges while the session's gate is closed).
# The guard watches one program (a `bash.kubectl` rule, which none of these
# run) and the write gate is on (no session: its gate is closed), so every
# exec and every write goes through the supervisor. Rounds are interleaved
# (bare, then wrapped, then the next round), and each figure is the median
# round.
#
# Usage: benches/enforce-process.sh [ROUNDS] [SHELL_CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
calls=${2:-200}
. benches/fixture.sh
built=$(release_binary)
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-enforce.XXXXXX")
trap 'rm -rf "$root"' EXIT
cp "$built" "$root/hookdex"
bin=$root/hookdex
mkdir -p "$root/home/conditions" "$root/repo/.git" "$root/cache" "$root/user" "$root/work"
printf '#!/bin/sh\nexit 0\n' > "$root/home/conditions/pre-bash.kubectl-readonly.sh"
chmod +x "$root/home/conditions/pre-bash.kubectl-readonly.sh"
export HOME=$root/user HOOKDEX_HOME=$root/home HOOKDEX_CACHE_DIR=$root/cache
export HOOKDEX_MANAGED_DIR=$root/managed HOOKDEX_ENFORCE=auto
cd "$root/repo"
"$bin" compile >/dev/null
listed=$("$bin" list --json)
if ! grep -q '"on": true' <<<"$listed"; then
  echo "enforcement is off here: $(grep '"why"' <<<"$listed")" >&2
  exit 1
fi
# The build: 1,000 targets, each running one `true` through make's shell.
{
  printf 'all:'
  for ((i = 0; i < 1000; i++)); do printf ' t%d' "$i"; done
  printf '\n'
  for ((i = 0; i < 1000; i++)); do printf 't%d:\n\t@true\n' "$i"; done
  printf '.PHONY: all'
  for ((i = 0; i < 1000; i++)); do printf ' t%d' "$i"; done
  printf '\n'
} > "$root/work/Makefile"
# shellcheck disable=SC2016  # expanded by the bash that runs it
writes='for i in $(seq 10000); do : > "f$i"; done'

# name|command (run in $root/work)|repeat
entries=(
  "/bin/true (a shell call)|/bin/true|$calls"
  "make, 1,000 processes|make -s -j1 -f $root/work/Makefile|1"
  "10,000 file writes|bash -c '$writes'|1"
)
declare -A samples
time_it() { # command repeat -> microseconds per run
  local start end i
  start=$EPOCHREALTIME
  for ((i = 0; i < $2; i++)); do eval "$1" >/dev/null 2>&1 || true; done
  end=$EPOCHREALTIME
  echo $(( (${end/[.,]/} - ${start/[.,]/}) / $2 ))
}
cd "$root/work"
for ((r = 0; r < rounds; r++)); do
  for entry in "${entries[@]}"; do
    IFS='|' read -r name cmd repeat <<<"$entry"
    rm -f f*
    samples["$name|bare"]+="$(time_it "$cmd" "$repeat") "
    rm -f f*
    samples["$name|guard"]+="$(time_it "$bin exec --guard -- $cmd" "$repeat") "
  done
done
echo "rounds: $rounds; guard watching kubectl execs and writes into rule sources"
printf '%-26s %12s %12s %12s %8s\n' "command" "bare" "guarded" "added" "ratio"
for entry in "${entries[@]}"; do
  IFS='|' read -r name _ <<<"$entry"
  bare=$(median <<<"${samples["$name|bare"]}")
  guard=$(median <<<"${samples["$name|guard"]}")
  printf '%-26s %9.3f ms %9.3f ms %9.3f ms %7.3fx\n' "$name" \
    "$(echo "$bare / 1000" | bc -l)" "$(echo "$guard / 1000" | bc -l)" \
    "$(echo "($guard - $bare) / 1000" | bc -l)" "$(echo "$guard / $bare" | bc -l)"
done
