#!/usr/bin/env bash
# Whole-process timing of a cold `hookdex compile` at bundle scale (SPEC
# §11: 10,000 rule files in ≤ 1 s on 2 cores). For each N, builds the tree
# of benches/fixture.sh with N rule files, each given a small body of its
# own (bash guards and python3 conditions, so every script is parsed and
# none is answered by the cache), then times RUNS compiles, each cold:
# a fresh HOOKDEX_CACHE_DIR (no index, no syntax cache). Prints the median
# and the range, and how many rules the last compile found active and
# invalid (a compile that stopped checking early would list fewer invalid).
# One script in 500 has a syntax error, so bash's own check runs too.
#
# Usage: benches/compile-process.sh [N...]   (default: 10000 100000)
#   RUNS=5 by default. HOOKDEX_BIN=/path/to/hookdex times that binary
#   instead of building one. BASELINE=/path/to/hookdex adds another build (an
#   older commit) to the same run, interleaved run by run.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000)
runs=${RUNS:-5}
. benches/fixture.sh
bin=${HOOKDEX_BIN:-$(release_binary)}
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-compile.XXXXXX")
trap 'rm -rf "$root"' EXIT
cp "$bin" "$root/hookdex"
builds=("$root/hookdex")
[ -z "${BASELINE:-}" ] || { cp "$BASELINE" "$root/baseline"; builds+=("$root/baseline"); }

# Gives each rule file of the fixture a body: a few lines of the usual
# kind, distinct per file (its number), and a syntax error in one of 500.
fill() {
  local dir=$1 file i=0
  for file in "$dir"/*; do
    i=$((i + 1))
    case $file in
      *.py)
        if ((i % 500 == 0)); then
          printf 'import json, sys\nif (:\n    pass\n' > "$file"
        else
          printf '# rule %d\nimport json, sys\npayload = json.load(sys.stdin)\ncommand = payload.get("tool_input", {}).get("command", "")\nif "rm -rf /" in command:\n    print("blocked: %d", file=sys.stderr)\n    sys.exit(2)\n' "$i" "$i" > "$file"
        fi
        ;;
      *)
        if ((i % 500 == 0)); then
          printf '#!/usr/bin/env bash\nif [ -n "$1" ]; then\n  echo x\nfi fi\n' > "$file"
        else
          printf '#!/usr/bin/env bash\n# rule %d\ncmd=$(jq -r .tool_input.command 2>/dev/null)\ncase "$cmd" in\n  *"rm -rf /"*) echo "blocked: %d" >&2; exit 2 ;;\nesac\nif [[ -n "$cmd" && "$cmd" == *sudo* ]]; then\n  echo '"'"'{"decision":"block"}'"'"'\nfi\nexit 0\n' "$i" "$i" > "$file"
        fi
        ;;
    esac
  done
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for n in "${sizes[@]}"; do
  tree=$root/n$n
  make_fixture "$tree" "$n"
  fill "$HOOKDEX_HOME/conditions"
  cd "$tree/repo"
  declare -A times=() counts=()
  for ((r = 0; r < runs; r++)); do
    for b in "${builds[@]}"; do
      rm -rf "$HOOKDEX_CACHE_DIR" && mkdir -p "$HOOKDEX_CACHE_DIR"
      start=$(date +%s%N)
      "$b" compile --json >"$root/report.json" 2>/dev/null || true
      end=$(date +%s%N)
      counts[$b]=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["active"], "active,", len(d["invalid"]), "invalid")' "$root/report.json" 2>/dev/null ||
        echo "no report")
      times[$b]+="$(( (end - start) / 1000000 )) "
    done
  done
  for b in "${builds[@]}"; do
    ms=$(tr ' ' '\n' <<<"${times[$b]}" | grep . | median)
    range=$(tr ' ' '\n' <<<"${times[$b]}" | grep . | sort -n | sed -n '1p;$p' | paste -sd-)
    printf '%-9s N=%-7d cold compile median %6.3f s (range %s ms, %d runs); one compile: %s\n' \
      "$(basename "$b")" "$n" "$(awk -v m="$ms" 'BEGIN {print m / 1000}')" "$range" "$runs" "${counts[$b]}"
  done
  unset times counts
  cd - >/dev/null
done
