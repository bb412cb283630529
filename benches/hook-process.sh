#!/usr/bin/env bash
# Whole-process timing of `hookdex hook` against a bare process, measured in
# one run and printed as ratios. Each command runs in interleaved rounds; the
# figure is the median round's mean per call.
# Usage: benches/hook-process.sh [RULES] [CALLS_PER_ROUND] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
calls=${2:-300}
rounds=${3:-7}
. benches/fixture.sh
bin=$(release_binary)
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-process.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" "$n"
cd "$root/repo"
"$bin" compile >/dev/null

nothing='{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la | wc -l"},"cwd":"'"$root/repo"'","session_id":"s","tool_use_id":"t"}'
printf '%s' "$nothing" > "$root/nothing.json"

# name|command line (run through `eval`, stdin from the payload file)
commands=(
  "bare process (/bin/true)|/bin/true"
  "hookdex hook, nothing fires ($n rules)|$bin hook --target claude"
)
if [ -n "${EXTRA_COMMANDS:-}" ]; then
  while IFS= read -r line; do [ -n "$line" ] && commands+=("$line"); done <<<"$EXTRA_COMMANDS"
fi

now_ns() { date +%s%N; }
declare -A samples
for ((r = 0; r < rounds; r++)); do
  for entry in "${commands[@]}"; do
    name=${entry%%|*}; cmd=${entry#*|}
    start=$(now_ns)
    for ((i = 0; i < calls; i++)); do eval "$cmd" <"$root/nothing.json" >/dev/null 2>&1 || true; done
    end=$(now_ns)
    samples[$name]+="$(( (end - start) / calls )) "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base_name=${commands[0]%%|*}
base=$(median <<<"${samples[$base_name]}")
printf '%-48s %12s %8s\n' "command" "per call" "ratio"
for entry in "${commands[@]}"; do
  name=${entry%%|*}
  m=$(median <<<"${samples[$name]}")
  printf '%-48s %9.3f ms %7.2fx\n' "$name" "$(echo "$m / 1000000" | bc -l)" "$(echo "$m / $base" | bc -l)"
done
if command -v /usr/bin/time >/dev/null; then
  rss=$(/usr/bin/time -f %M "$bin" hook --target claude <"$root/nothing.json" 2>&1 >/dev/null | tail -1)
  echo "peak RSS of hookdex hook: ${rss} KiB"
fi
