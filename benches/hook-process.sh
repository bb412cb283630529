#!/usr/bin/env bash
# Whole-process timing of `hookdex hook` against a bare process (/bin/true),
# a static no-op binary (the floor for any process start here), and the
# Python peer (agentihooks 2.17, when its virtualenv is there), measured in
# one run and printed as ratios. Commands run in rounds, interleaved call
# by call (each command once, then each again), so a change of load on a
# shared machine falls on all of them alike; each figure is the median
# round's mean per call. Also prints the binary's size
# and the hook's peak RSS and page faults.
#
# Every hookdex binary timed is a fresh copy in the scratch directory, as
# `cargo install` leaves one: a file just written by the linker sits in the
# page cache in smaller pieces than a copied one, and here takes up to
# ~0.15 ms longer to start (more page faults), which would be measured as a
# difference between the builds.
#
# Usage: benches/hook-process.sh [RULES] [CALLS_PER_ROUND] [ROUNDS]
#   The "nothing fires" call is also timed on a second tree: the same
#   rules and RULES hooks.yaml groups (SPEC §9: within 10% of the first).
#   PEER=1 installs the peer into target/peer-venv first (from PyPI).
#   BASELINE=/path/to/hookdex adds another build of hookdex (an older commit)
#   to the same run, on the same index tree.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
calls=${2:-300}
rounds=${3:-7}
. benches/fixture.sh
bin=$(release_binary)
venv=$PWD/target/peer-venv
if [ "${PEER:-0}" = 1 ] && [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q agentihooks==2.17.0
fi
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-process.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" "$n"
# The second tree: the same condition files, and N hooks.yaml groups.
home_yaml=$root/home-yaml
cp -r "$HOOKDEX_HOME" "$home_yaml"
hooks_yaml "$home_yaml/hooks.yaml" "$n"
built=$bin
cp "$built" "$root/hookdex"
bin=$root/hookdex
# The static no-op: `int main(void) { return 0; }`, linked like hookdex.
noop=$(static_noop "$root")
# The peer reads the same rules from its runtime folder.
mkdir -p "$HOME/.agentihooks" && ln -s "$HOOKDEX_HOME/conditions" "$HOME/.agentihooks/conditions"
cd "$root/repo"
"$bin" compile >/dev/null
HOOKDEX_HOME=$home_yaml "$bin" compile >/dev/null

payload() { bash_payload "$root" "$1" >"$root/$2.json"; }
payload "ls -la | wc -l" nothing
payload "cli1 --verbose" one      # fires pre-bash.cli1-r1.sh (an empty bash script)
# Edits the package's ui_slop filter fires for by its matcher: one its paths
# do not admit (only its glob automaton is read), and one they do (no
# classifier is configured, so it passes without running a finder).
edit() {
  printf '{"session_id":"s","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"%s","old_string":"a","new_string":"const t = \\"12 seats; because\\";"},"tool_use_id":"t"}' \
    "$root" "$root/repo" "$root/repo/$1" > "$root/$2.json"
}
edit src/main.rs edit_elsewhere
edit web/components/Seats.tsx edit_front_end

# name|payload|calls per round|command[|HOOKDEX_HOME]
entries=(
  "bare process (/bin/true)|nothing|$calls|/bin/true"
  "hookdex hook, nothing fires|nothing|$calls|$bin hook --target claude"
  "nothing fires, and $n hooks.yaml groups|nothing|$calls|$bin hook --target claude|$home_yaml"
  "hookdex hook, one bash condition fires|one|$calls|$bin hook --target claude"
  "hookdex hook, an Edit no filter's paths admit|edit_elsewhere|$calls|$bin hook --target claude"
  "hookdex hook, a front-end Edit, no classifier|edit_front_end|$calls|$bin hook --target claude"
)
[ -z "$noop" ] || entries+=("static no-op binary (cc -static)|nothing|$calls|$noop")
if [ -n "${BASELINE:-}" ]; then
  cp "$BASELINE" "$root/hookdex-baseline"
  # The same rules in a folder of its own: its index is another file, so two
  # builds with different index formats do not recompile each other's.
  cp -r "$HOOKDEX_HOME" "$root/home-baseline"
  HOOKDEX_HOME=$root/home-baseline "$root/hookdex-baseline" compile >/dev/null
  entries+=("baseline hookdex hook ($BASELINE), nothing fires|nothing|$calls|$root/hookdex-baseline hook --target claude|$root/home-baseline")
fi
if [ -x "$venv/bin/python" ]; then
  peer_calls=$(( calls / 15 > 3 ? calls / 15 : 3 ))
  entries+=("agentihooks 2.17 (python -m hooks), nothing fires|nothing|$peer_calls|$venv/bin/python -m hooks")
fi

# Interleaved rounds (time_rounds in fixture.sh), each entry with its own
# HOOKDEX_HOME.
declare -A samples
t_cmds=() t_inputs=() t_counts=()
for entry in "${entries[@]}"; do
  IFS='|' read -r name input count cmd home <<<"$entry"
  t_cmds+=("HOOKDEX_HOME=${home:-$HOOKDEX_HOME} $cmd") t_inputs+=("$root/$input.json") t_counts+=("$count")
done
time_rounds "$rounds" "$calls"
for e in "${!entries[@]}"; do
  IFS='|' read -r name _ <<<"${entries[e]}"
  samples[$name]=${t_ns[e]}
done

IFS='|' read -r base_name _ <<<"${entries[0]}"
base=${samples[$base_name]}
IFS='|' read -r hook_name _ <<<"${entries[1]}"
hook=${samples[$hook_name]}
echo "rules: $n, rounds: $rounds"
printf '%-52s %12s %10s %12s\n' "command" "per call" "vs true" "vs hookdex"
for entry in "${entries[@]}"; do
  IFS='|' read -r name _ <<<"$entry"
  m=${samples[$name]}
  printf '%-52s %9.3f ms %9.2fx %11.2fx\n' "$name" "$(echo "$m / 1000000" | bc -l)" \
    "$(echo "$m / $base" | bc -l)" "$(echo "$m / $hook" | bc -l)"
done
if [ -n "$noop" ]; then
  noop_m=${samples["static no-op binary (cc -static)"]}
  printf 'hookdex hook, nothing fires, vs the static no-op: %.2fx\n' "$(echo "$hook / $noop_m" | bc -l)"
fi
echo "binary: $(stat -c %s "$bin") bytes ($built)"
if [ -x /usr/bin/time ]; then
  read -r rss major minor < <(rusage "$root/nothing.json" "$bin" hook --target claude)
  echo "hookdex hook, nothing fires: peak RSS ${rss} KiB, page faults ${minor} minor / ${major} major"
  if [ -n "$noop" ]; then
    read -r rss major minor < <(rusage /dev/null "$noop")
    echo "static no-op: peak RSS ${rss} KiB, page faults ${minor} minor / ${major} major"
  fi
fi
