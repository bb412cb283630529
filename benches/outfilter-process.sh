#!/usr/bin/env bash
# Whole-process throughput of output filtering: `hookdex exec -- <tool>`
# against `rtk <tool>` (when RTK_BIN names an rtk 0.37.2 binary; see
# ../shared/peers/rtk/README.md for building it outside the repository) and
# against the bare tool, on the same generated output in one run.
#
# Each <tool> is a stand-in on PATH that prints a fixture file (cargo prints
# to stderr, as cargo does), so every command reads the same bytes. The
# fixtures are a shipped filter's own inline-test inputs repeated to 100 KB,
# 1 MB and 10 MB. Printed per tool and size: the median seconds of ROUNDS
# runs, MB/s, the output size after filtering, the ratio to rtk, and the
# ceiling: rtk's time over the bare command's, the ratio a wrapper that
# cost nothing at all would reach (where it is below 3, so is every
# wrapper's).
#
# Usage: benches/outfilter-process.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
. benches/fixture.sh
bin=$(release_binary)
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-outfilter.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" 0
cp "$bin" "$root/hookdex"
bin=$root/hookdex
mkdir -p "$root/bin" "$root/out"
# tool|shipped file|filter name|command words|stream
tools=(
  "make|make|make|make|stdout"
  "pytest|pytest|pytest|pytest|stdout"
  "cargo|cargo|cargo-build|cargo build|stderr"
  "terraform|terraform|terraform-plan|terraform plan|stdout"
  "npm|npm|npm-install|npm install|stdout"
)
for entry in "${tools[@]}"; do
  IFS='|' read -r tool file filter words stream <<<"$entry"
  for size in 100000 1000000 10000000; do
    outfilter_input "rules/outfilters/$file.outfilter.toml" "$filter" "$size" >"$root/out/$tool-$size.txt"
  done
  stand_in "$root/bin" "$tool" "$stream"
done
export PATH="$root/bin:$PATH"
cd "$root/repo"
"$bin" compile >/dev/null
rtk_home=$root/rtk-home
mkdir -p "$rtk_home"

timed() { # command… ; prints seconds of the median run, leaves the last output in $root/last
  local samples=() start end
  for ((r = 0; r < rounds; r++)); do
    start=$EPOCHREALTIME
    "$@" >"$root/last" 2>&1 || true
    end=$EPOCHREALTIME
    samples+=("$(( ${end/[.,]/} - ${start/[.,]/} ))")
  done
  printf '%s\n' "${samples[@]}" | median | awk '{printf "%.4f", $1 / 1e6}'
}

[ -n "${RTK_BIN:-}" ] || echo "RTK_BIN is not set: the rtk comparison is skipped" >&2
printf '%-10s %9s %10s %10s %10s %12s %10s %10s %8s %8s\n' tool size bare_s hookdex_s "MB/s" "out bytes" rtk_s "rtk MB/s" "vs rtk" ceiling
for entry in "${tools[@]}"; do
  IFS='|' read -r tool file filter words stream <<<"$entry"
  read -r -a argv <<<"$words"
  for size in 100000 1000000 10000000; do
    export FIXTURE=$root/out/$tool-$size.txt
    bare=$(timed "${argv[@]}")
    ours=$(timed "$bin" exec -- "${argv[@]}")
    out_bytes=$(wc -c <"$root/last")
    rtk_s=- rtk_mbs=- ratio=- ceiling=-
    if [ -n "${RTK_BIN:-}" ]; then
      rtk_s=$(HOME=$rtk_home timed "$RTK_BIN" "${argv[@]}")
      rtk_mbs=$(echo "$size / $rtk_s / 1000000" | bc -l | xargs printf '%.1f')
      ratio=$(echo "$rtk_s / $ours" | bc -l | xargs printf '%.2fx')
      ceiling=$(echo "$rtk_s / $bare" | bc -l | xargs printf '%.2fx')
    fi
    mbs=$(echo "$size / $ours / 1000000" | bc -l | xargs printf '%.1f')
    printf '%-10s %9s %10s %10s %10s %12s %10s %10s %8s %8s\n' "$tool" "$size" "$bare" "$ours" "$mbs" "$out_bytes" "$rtk_s" "$rtk_mbs" "$ratio" "$ceiling"
  done
done
# What exec adds to a command whose output nothing claims (an empty one).
printf '#!/bin/sh\n:\n' >"$root/bin/quiet" && chmod +x "$root/bin/quiet"
bare=$(timed quiet)
ours=$(timed "$bin" exec -- quiet)
echo "exec overhead on a silent command: $(echo "($ours - $bare) * 1000" | bc -l | xargs printf '%.2f') ms (bare $bare s, exec $ours s)"
if [ -n "${RTK_BIN:-}" ]; then
  theirs=$(HOME=$rtk_home timed "$RTK_BIN" quiet)
  echo "rtk overhead on the same: $(echo "($theirs - $bare) * 1000" | bc -l | xargs printf '%.2f') ms"
fi
