#!/usr/bin/env bash
# Every row of the performance goals measured in one run, each printed as a
# markdown table row: what was measured, the figure(s), the goal, and `met`
# or `missed by X`.
#
# The whole-process timings share one set of interleaved rounds
# (time_rounds in fixture.sh: each command once, then each again), so a
# change of load on this shared machine falls on all of them alike; each
# figure is the median round's mean per call. Every binary timed is a fresh
# copy in the scratch directory (see hook-process.sh for why), and the
# references are built or run here: a static no-op that reads its stdin to
# the end (linked like hookdex), `bash -c 'exit 0'` and `/bin/true`.
#
# Peak RSS is judged in decimal MB (10^6 bytes; /usr/bin/time's KiB × 1024),
# the stricter reading of "8 MB", with MiB beside it.
#
# Every call runs as an installed hookdex does after `hookdex init`:
# HOOKDEX_ENFORCE=auto and Claude Code's shell prefix set to the guard, so
# the hook judges the text and rewrites nothing.
#
# Usage: benches/table.sh
#   CALLS (default 200) and ROUNDS (default 7): the interleaved timings.
#   N="10000 …": the rule counts of the compile and peak-RSS rows (default
#   10000; FULL=1 makes it 10000 100000).
#   RTK_BIN=/path/to/rtk (0.37.2, see ../shared/peers/rtk/README.md) adds
#   the rows against rtk; without it they print as skipped.
#   BIN=/path/to/hookdex times that build instead of building the release one
#   (a commit moves HEAD, which the build script watches: release_binary
#   then relinks hookdex, about 1.5 minutes here).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
calls=${CALLS:-200}
rounds=${ROUNDS:-7}
if [ -n "${N:-}" ]; then
  read -r -a big <<<"$N"
elif [ "${FULL:-0}" = 1 ]; then
  big=(10000 100000)
else
  big=(10000)
fi
. benches/fixture.sh
built=${BIN:-$(release_binary)}
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-table.XXXXXX")
trap 'rm -rf "$root"' EXIT
make_fixture "$root" 1000
cp "$built" "$root/hookdex"
bin=$root/hookdex
noop=$(static_noop "$root" stdin)
if [ -z "$noop" ]; then
  echo "table.sh: the static no-op is a reference of the first row; it needs cc -static" >&2
  exit 1
fi
wrapper=$(static_wrapper "$root")
export HOOKDEX_ENFORCE=auto CLAUDE_CODE_SHELL_PREFIX="$bin --guard-shell=claude"

# Three rule trees, the same 1,000 rules in each: as made (nothing fires),
# with a bash guard and with a declarative one (guard_trees).
home=$HOOKDEX_HOME
home_sh=$root/home-sh
home_guard=$root/home-guard
guard_trees "$home" "$home_sh" "$home_guard"
# The bash guard alone, no other rule: the guard as most trees have it
# (the 1,000-rule tree's 400 `pre-bash.cli<N>` rules make the wrapper look
# up 400 more programs on PATH).
home_one=$root/home-one
mkdir -p "$home_one/conditions"
cp "$home_sh/conditions/pre-bash.kubectl-x.sh" "$home_one/conditions/"
# A tree to check that the bash guard's file name fires on the call (an
# `exit 2` with a reason there denies it).
home_check=$root/home-check
mkdir -p "$home_check/conditions"
printf 'echo checked >&2\nexit 2\n' >"$home_check/conditions/pre-bash.kubectl-x.sh"
chmod +x "$home_check/conditions/pre-bash.kubectl-x.sh"
cd "$root/repo"
for h in "$home" "$home_sh" "$home_guard" "$home_check" "$home_one"; do
  HOOKDEX_HOME=$h "$bin" compile >/dev/null
done

bash_payload "$root" "ls -la | wc -l" >"$root/nothing.json"
bash_payload "$root" "kubectl get pods" >"$root/kubectl.json"
bash_payload "$root" "kubectl delete pods" >"$root/kubectl-delete.json"
bash_payload "$root" "echo 'x'" >"$root/echo-small.json"
bash_payload "$root" "echo '$(head -c 1048576 /dev/zero | tr '\0' x)'" >"$root/echo-1mb.json"
empty_files "$root/lsdir" 200

# Each call does what its row says, or the row says why not.
warn() { echo "table.sh: $*" >&2; }
hook_out() { HOOKDEX_HOME=$1 "$bin" hook --target claude <"$2" 2>/dev/null || true; }
out=$(hook_out "$home" "$root/nothing.json")
! grep -q 'updatedInput\|deny' <<<"$out" || warn "the nothing-fires call answered: $out"
grep -q deny <<<"$(hook_out "$home_check" "$root/kubectl.json")" ||
  warn "pre-bash.kubectl-x.sh does not fire on kubectl get pods"
grep -q deny <<<"$(hook_out "$home_guard" "$root/kubectl-delete.json")" ||
  warn "the declarative guard does not deny kubectl delete pods"
out=$(hook_out "$home_guard" "$root/kubectl.json")
! grep -q 'deny\|ask' <<<"$out" || warn "the declarative guard decides on kubectl get pods: $out"
# Whether the wrapper supervises here (`list --json`'s enforcement).
enforcement=$(HOOKDEX_HOME=$home_sh "$bin" list --json | python3 -c '
import json, sys
e = json.load(sys.stdin)["enforcement"]
print("on" if e["on"] else "off here (" + e["why"] + ")")')

# The interleaved timings.
t_cmds=() t_inputs=() t_counts=()
entry() { t_cmds+=("$1") t_inputs+=("${2:-}"); }
hook="$bin hook --target claude"
e_noop=${#t_cmds[@]}; entry "$noop" "$root/nothing.json"
e_nothing=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home $hook" "$root/nothing.json"
e_sh=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home_sh $hook" "$root/kubectl.json"
e_bash=${#t_cmds[@]}; entry "bash -c 'exit 0'"
e_guard=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home_guard $hook" "$root/kubectl.json"
e_small=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home $hook" "$root/echo-small.json"
e_big=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home $hook" "$root/echo-1mb.json"
e_true=${#t_cmds[@]}; entry "/bin/true"
e_exec_guard=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home_sh $bin exec --guard -- /bin/true"
e_exec_plain=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home_sh $bin exec -- /bin/true"
e_exec_one=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home_one $bin exec --guard -- /bin/true"
e_wrapper=-1
if [ -n "$wrapper" ]; then e_wrapper=${#t_cmds[@]}; entry "$wrapper /bin/true"; fi
e_ls_on=${#t_cmds[@]}; entry "HOOKDEX_HOME=$home $bin exec -- ls -la $root/lsdir"
e_ls_off=${#t_cmds[@]}; entry "HOOKDEX_OUTFILTERS=off HOOKDEX_HOME=$home $bin exec -- ls -la $root/lsdir"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
time_rounds "$rounds" "$calls"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
declare -a ns=("${t_ns[@]}")

# Page faults and peak RSS: the median of 5 runs under /usr/bin/time.
usage() { # INPUT COMMAND… -> "minor_faults peak_rss_KiB"
  local i minors=() rsses=() rss major minor
  for i in 1 2 3 4 5; do
    read -r rss major minor < <(rusage "$@")
    minors+=("$minor") rsses+=("$rss")
  done
  : "$major"
  echo "$(median <<<"${minors[*]}") $(median <<<"${rsses[*]}")"
}
read -r f_nothing _ < <(HOOKDEX_HOME=$home usage "$root/nothing.json" "$bin" hook --target claude)
read -r f_noop _ < <(usage "$root/nothing.json" "$noop")
read -r f_sh _ < <(HOOKDEX_HOME=$home_sh usage "$root/kubectl.json" "$bin" hook --target claude)
read -r f_bash _ < <(usage /dev/null bash -c 'exit 0')

# Figures and verdicts. `calc FORMAT EXPR` prints EXPR (awk) in FORMAT;
# `judge VALUE GOAL FORMAT` prints met, or missed by the excess in FORMAT.
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
judge() {
  awk -v v="$1" -v g="$2" -v f="$3" 'BEGIN { if (v <= g) print "met"; else printf "missed by " f "\n", v - g }'
}
ms() { calc '%.3f' "$1 / 1e6"; }
row() { printf '| %s | %s | %s | %s |\n' "$@"; }

echo "build: $("$bin" --version) ($(stat -c %s "$bin") bytes), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $load_before before the timings and $load_after after;"
echo "interleaved timings: $rounds rounds of $calls calls each, the median round's mean per call; /bin/true took $(ms "${ns[e_true]}") ms"
echo
row "row" "measured" "goal" "verdict"
row "---" "---" "---" "---"

r=$(calc '%.2f' "${ns[e_nothing]} / ${ns[e_noop]}")
row "\`hookdex hook\`, nothing fires, 1,000 rules, vs a static no-op reading the same stdin" \
  "$(ms "${ns[e_nothing]}") ms vs $(ms "${ns[e_noop]}") ms: ${r} ×; minor page faults $f_nothing vs $f_noop" \
  "≤ 1.3 ×" "$(judge "$r" 1.3 '%.2f ×')"

d=$(calc '%.3f' "(${ns[e_sh]} - ${ns[e_bash]}) / 1e6")
row "one guard firing (\`pre-bash.kubectl-x.sh\`, \`exit 0\`; call \`kubectl get pods\`) vs \`bash -c 'exit 0'\`" \
  "$(ms "${ns[e_sh]}") ms vs $(ms "${ns[e_bash]}") ms: ${d} ms, $(calc '%.2f' "${ns[e_sh]} / ${ns[e_bash]}") ×; minor page faults $f_sh vs $f_bash" \
  "≤ bash + 0.3 ms" "$(judge "$d" 0.3 '%.3f ms')"

row "one declarative guard firing (\`pre-bash.kubectl-x.guard.yaml\`, \`deny: [delete]\`; call \`kubectl get pods\`) vs the nothing-fires call" \
  "$(ms "${ns[e_guard]}") ms vs $(ms "${ns[e_nothing]}") ms: $(calc '%.2f' "${ns[e_guard]} / ${ns[e_nothing]}") ×" \
  "— (new row)" "no goal set"

d=$(calc '%.3f' "(${ns[e_exec_guard]} - ${ns[e_true]}) / 1e6")
if [ "$enforcement" = on ]; then verdict=$(judge "$d" 0.5 '%.3f ms'); else verdict="not measured: enforcement is $enforcement"; fi
over_true() { calc '%.3f' "(${ns[$1]} - ${ns[e_true]}) / 1e6"; }
floor="no static wrapper built (cc -static)"
[ "$e_wrapper" -lt 0 ] || floor="+$(over_true "$e_wrapper") ms"
row "\`hookdex exec --guard -- /bin/true\` vs \`/bin/true\` (HOOKDEX_ENFORCE=auto, \`pre-bash.kubectl-x.sh\` active: the wrapper supervises)" \
  "+${d} ms ($(ms "${ns[e_exec_guard]}") ms vs $(ms "${ns[e_true]}") ms); with that guard the only rule: +$(over_true e_exec_one) ms; plain \`exec -- /bin/true\` (output filters, no supervisor): +$(over_true e_exec_plain) ms; the floor of any wrapper process (a static C program that spawns the command and waits): ${floor}" \
  "≤ + 0.5 ms" "$verdict"

r=$(calc '%.3f' "${ns[e_ls_on]} / ${ns[e_ls_off]}")
row "unclaimed output through \`exec\` (\`ls -la\` of 200 files) vs \`HOOKDEX_OUTFILTERS=off\`" \
  "$(ms "${ns[e_ls_on]}") ms vs $(ms "${ns[e_ls_off]}") ms: ${r} ×" \
  "≤ 1.05 ×" "$(judge "$r" 1.05 '%.3f ×')"

# exec against rtk, the make filter on the same input, interleaved.
if [ -n "${RTK_BIN:-}" ]; then
  mkdir -p "$root/bin" "$root/rtk-home"
  cp "$RTK_BIN" "$root/rtk"
  stand_in "$root/bin" make stdout
  # The same filter for both: rtk reads hookdex's shipped make filter as its
  # user-global filter (ahead of its builtins), less the keys rtk does not
  # know (it drops a file with an unknown key).
  mkdir -p "$root/rtk-home/.config/rtk"
  python3 - "$src/rules/outfilters/make.outfilter.toml" >"$root/rtk-home/.config/rtk/filters.toml" <<'EOF'
import json, sys, tomllib
known = {"description", "match_command", "strip_ansi", "replace", "match_output",
         "strip_lines_matching", "keep_lines_matching", "truncate_lines_at",
         "head_lines", "tail_lines", "max_lines", "on_empty", "filter_stderr"}
make = tomllib.load(open(sys.argv[1], "rb"))["filters"]["make"]
print("schema_version = 1\n\n[filters.make]")
for key, value in make.items():
    if key in known:  # strings, booleans and lists of strings: JSON spells them as TOML does
        print(f"{key} = {json.dumps(value)}")
EOF
  sizes=(100000 1000000 10000000) labels=("100 KB" "1 MB" "10 MB")
  t_cmds=() t_inputs=() t_counts=() kept=()
  for size in "${sizes[@]}"; do
    outfilter_input "$src/rules/outfilters/make.outfilter.toml" make "$size" >"$root/make-$size.txt"
    entry "FIXTURE=$root/make-$size.txt PATH=$root/bin:\$PATH $bin exec -- make"
    entry "FIXTURE=$root/make-$size.txt PATH=$root/bin:\$PATH HOME=$root/rtk-home $root/rtk make"
  done
  # What each prints: the same bytes, or the filters differ.
  for e in "${!t_cmds[@]}"; do
    kept[e]=$(eval "${t_cmds[e]}" 2>&1 </dev/null | wc -c)
  done
  time_rounds 5 3
  for i in "${!sizes[@]}"; do
    ours=${t_ns[2 * i]} theirs=${t_ns[2 * i + 1]}
    r=$(calc '%.2f' "$ours / $theirs")
    row "\`exec -- make\` vs rtk 0.37.2 (\`rtk make\`), both with hookdex's shipped make filter, ${labels[i]} of its test inputs (median of 5 rounds of 3)" \
      "$(ms "$ours") ms vs $(ms "$theirs") ms: ${r} ×; printed ${kept[2 * i]} vs ${kept[2 * i + 1]} of ${sizes[i]} bytes" \
      "≤ 0.33 ×" "$(judge "$r" 0.33 '%.2f ×')"
  done
else
  row "\`exec\` vs rtk 0.37.2, same filter, same input, at 100 KB, 1 MB, 10 MB" "—" "≤ 0.33 ×" \
    "skipped: RTK_BIN is not set (no rtk 0.37.2 build given)"
fi

# Cold compiles and the hook's peak RSS on big trees, and the index of a
# tree with no user rules (the shipped package rules only); printed in the
# table's order.
compile_rows=() rss_rows=() index_row=()
for n in 0 "${big[@]}"; do
  t=$root/n$n
  (make_fixture "$t" "$n")
  start=$EPOCHREALTIME
  (cd "$t/repo" && HOME=$t/user HOOKDEX_HOME=$t/home HOOKDEX_CACHE_DIR=$t/cache "$bin" compile >/dev/null)
  end=$EPOCHREALTIME
  if [ "$n" = 0 ]; then
    index=$(find "$t/cache" -type f -name '*index*' -printf '%s %f\n' | sort -n | tail -1)
    cache=$(du -sb "$t/cache" | cut -f1)
    index_row=("index size with no user rules (the shipped package rules only)"
      "$(calc '%.2f' "${index%% *} / 1e6") MB (${index#* }); the whole cache directory $(calc '%.2f' "$cache / 1e6") MB"
      "only what the view needs" "not judged here (no number)")
    continue
  fi
  s=$(calc '%.2f' "(${end/[.,]/} - ${start/[.,]/}) / 1e6")
  goal=$(calc '%g' "$n / 10000")
  compile_rows+=("\`hookdex compile\`, cold (fresh cache), $n rule files" "$s s" "≤ $goal s"
    "$(judge "$s" "$goal" '%.2f s')")
  read -r _ rss < <(HOME=$t/user HOOKDEX_HOME=$t/home HOOKDEX_CACHE_DIR=$t/cache usage "$root/nothing.json" "$bin" hook --target claude)
  mb=$(calc '%.2f' "$rss * 1024 / 1e6")
  rss_rows+=("hook peak RSS at $n rules (nothing fires; median of 5 runs)" "$mb MB ($rss KiB, $(calc '%.2f' "$rss / 1024") MiB)" "≤ 8 MB" "$(judge "$mb" 8 '%.2f MB')")
  rm -rf "$t"
done
row "${compile_rows[@]}"
row "${index_row[@]}"
row "${rss_rows[@]}"

big_ms=$(ms "${ns[e_big]}")
row "hook on a 1 MB Bash command (\`echo '<1 MB>'\`) vs a small payload (\`echo 'x'\`)" \
  "$big_ms ms vs $(ms "${ns[e_small]}") ms: $(calc '%.2f' "${ns[e_big]} / ${ns[e_small]}") ×" \
  "≤ 5 ms" "$(judge "$big_ms" 5 '%.3f ms')"
