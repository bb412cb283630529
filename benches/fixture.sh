# shellcheck shell=bash
# Shared by the process-level scripts: builds the release binary the way
# install.sh does, and a scratch tree with N rules (the same mix as
# benches/lookup.rs), exporting the hookdex variables.
# Usage: . benches/fixture.sh; bin=$(release_binary); make_fixture DIR N
#        hooks_yaml FILE N   (N hooks.yaml groups, the same kind of mix)
# and the helpers the scripts share: release_path, guard_trees, empty_files,
# bash_payload, static_noop, time_rounds (interleaved rounds), median,
# rusage, outfilter_input, stand_in.

# Builds the release binary as installed and prints its path (under
# CARGO_TARGET_DIR when that is set, as cargo puts it there).
release_binary() {
  local args
  mapfile -t args < <(scripts/cargo-release-args.sh)
  cargo build --release --quiet --locked "${args[@]}" >&2
  release_path "${args[@]}"
}

# Where cargo puts the release binary built with ARGS, the output of
# scripts/cargo-release-args.sh (`--target T` first, when there is one).
# Usage: release_path ARGS…
release_path() {
  local dir=${CARGO_TARGET_DIR:-$PWD/target}
  if [ $# -gt 0 ]; then
    echo "$dir/$2/release/hookdex"
  else
    echo "$dir/release/hookdex"
  fi
}

make_fixture() {
  local root=$1 n=$2 i name
  mkdir -p "$root/home/conditions" "$root/repo/.git" "$root/cache" "$root/user"
  printf '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n' > "$root/repo/.git/config"
  for ((i = 0; i < n; i++)); do
    case $((i % 10)) in
      0|1|2|3) name="pre-bash.cli$i-r$i.sh" ;;
      4|5|6) name="pre-mcp__srv$((i % 100))__tool$i-r$i.py" ;;
      7) name="pre-mcp__srvp$i-r$i.py" ;;
      8) name="pre-tool$i+edit$i-r$i.sh" ;;
      *) name="post-bash.cli$i-r$i.sh" ;;
    esac
    : > "$root/home/conditions/$name"
  done
  export HOME="$root/user" HOOKDEX_HOME="$root/home" HOOKDEX_CACHE_DIR="$root/cache"
  export HOOKDEX_MANAGED_DIR="$root/managed"
  unset HOOKDEX_BUNDLE HOOKDEX_PROFILES CONDITIONS_TRUSTED_OWNERS
}

# N hooks.yaml groups for other tools than a plain shell call: literal MCP
# tool names, alternations, one in ten a regex (all of a step's regexes
# share one DFA), post groups and input matchers on tools the call is not.
hooks_yaml() {
  local file=$1 n=$2 i
  {
    echo "hooks:"
    echo "  PreToolUse:"
    for ((i = 0; i < n; i++)); do
      case $((i % 10)) in
        0|1|2|3) echo "    - matcher: mcp__srv$((i % 100))__tool$i" ;;
        4|5|6) echo "    - matcher: \"Tool$i|Edit$i\"" ;;
        7) echo "    - matcher: \"mcp__srvp${i}__.*\"" ;;
        8) printf '    - matcher: Write%s\n      input_matcher: {file_path: "^/etc/%s"}\n' "$i" "$i" ;;
        *) continue ;;
      esac
      echo "      hooks: [{type: command, command: \"exit 0\"}]"
    done
    echo "  PostToolUse:"
    for ((i = 9; i < n; i += 10)); do
      echo "    - matcher: Bash$i"
      echo "      hooks: [{type: command, command: \"exit 0\"}]"
    done
  } > "$file"
}

# Copies of the rule tree HOME with a guard on kubectl: SH_HOME with a bash
# one (pre-bash.kubectl-x.sh, `exit 0`), GUARD_HOME with a declarative one
# denying `kubectl delete`. Separate trees: the two guards have one rule
# name, and their indexes are files of their own.
# Usage: guard_trees HOME SH_HOME GUARD_HOME
guard_trees() {
  cp -r "$1" "$2"
  cp -r "$1" "$3"
  printf 'exit 0\n' >"$2/conditions/pre-bash.kubectl-x.sh"
  chmod +x "$2/conditions/pre-bash.kubectl-x.sh"
  printf 'reason: kubectl deletes go through GitOps\ndeny: [delete]\n' \
    >"$3/conditions/pre-bash.kubectl-x.guard.yaml"
}

# DIR made with N empty files: output no filter claims, from `ls -la DIR`.
# Usage: empty_files DIR N
empty_files() {
  local i
  mkdir -p "$1"
  for ((i = 0; i < $2; i++)); do : >"$1/file-$i.txt"; done
}

# A PreToolUse Bash payload for COMMAND (inserted as is: no double quotes
# or backslashes in it), its transcript under ROOT and its cwd ROOT/repo.
# Usage: bash_payload ROOT COMMAND > FILE
bash_payload() {
  printf '{"session_id":"s","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"t"}' \
    "$1" "$1/repo" "$2"
}

# The floor for any process start here: a static binary linked like hookdex
# that returns 0 (with `stdin`, one that first reads its stdin to the end,
# as the hook reads its payload). Prints its path, or nothing (with a note
# on stderr) when `cc -static` is not available.
# Usage: noop=$(static_noop DIR [stdin])
static_noop() {
  local dir=$1 name=noop-static src='int main(void) { return 0; }'
  if [ "${2:-}" = stdin ]; then
    name=noop-static-stdin
    src='#include <unistd.h>
int main(void) { static char b[65536]; while (read(0, b, sizeof b) > 0) {} return 0; }'
  fi
  if command -v cc >/dev/null && printf '%s\n' "$src" > "$dir/$name.c" &&
    cc -O2 -static -o "$dir/$name" "$dir/$name.c" 2>/dev/null; then
    echo "$dir/$name"
  else
    echo "no static no-op: cc -static is not available here" >&2
  fi
}

# Builds DIR/wrapper-static, the least a wrapper process can be: a static C
# program that starts its arguments with posix_spawnp, waits, and exits
# with their code. What it costs over the command alone is the floor of
# any wrapper that runs the command as its child. Prints its path, or
# nothing (and why, on stderr) where cc cannot link statically.
# Usage: static_wrapper DIR
static_wrapper() {
  local dir=$1
  if command -v cc >/dev/null && cat >"$dir/wrapper-static.c" <<'EOF' &&
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv) {
  pid_t pid;
  int status;
  if (argc < 2 || posix_spawnp(&pid, argv[1], 0, 0, argv + 1, environ) != 0) return 127;
  if (waitpid(pid, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
EOF
    cc -O2 -static -o "$dir/wrapper-static" "$dir/wrapper-static.c" 2>/dev/null; then
    echo "$dir/wrapper-static"
  else
    echo "no static wrapper: cc -static is not available here" >&2
  fi
}

# Interleaved rounds: each command once, then each again, CALLS times a
# round, so a change of load on a shared machine falls on all of them
# alike. Times the entries of the arrays t_cmds (a command line, run with
# eval, so it may start with VAR=value assignments), t_inputs (its stdin;
# /dev/null when empty) and t_counts (calls per round; CALLS when empty),
# with bash's own clock ($EPOCHREALTIME, microseconds: no process is
# started to read it), output discarded. Sets t_ns[i] to entry i's median
# round's mean per call, in nanoseconds.
# Usage: t_cmds=(…) t_inputs=(…) t_counts=(…); time_rounds ROUNDS CALLS
# shellcheck disable=SC2154  # t_cmds, t_inputs and t_counts are the caller's
# shellcheck disable=SC2034  # t_ns is the caller's to read
time_rounds() {
  local rounds=$1 calls=$2 r i e start end
  local -a sums samples=()
  for ((r = 0; r < rounds; r++)); do
    sums=()
    for ((i = 0; i < calls; i++)); do
      for e in "${!t_cmds[@]}"; do
        ((i < ${t_counts[e]:-$calls})) || continue
        start=$EPOCHREALTIME
        eval "${t_cmds[e]}" <"${t_inputs[e]:-/dev/null}" >/dev/null 2>&1 || true
        end=$EPOCHREALTIME
        sums[e]=$(( ${sums[e]:-0} + ${end/[.,]/} - ${start/[.,]/} ))
      done
    done
    for e in "${!t_cmds[@]}"; do
      samples[e]+="$(( sums[e] * 1000 / ${t_counts[e]:-$calls} )) "
    done
  done
  t_ns=()
  for e in "${!t_cmds[@]}"; do
    t_ns[e]=$(median <<<"${samples[e]}")
  done
}

# The median of whitespace-separated numbers on stdin.
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# One run of COMMAND… with stdin from INPUT under /usr/bin/time: prints
# "peak_rss_KiB major_faults minor_faults" (its waited-for children's
# included).
# Usage: read -r rss major minor < <(rusage INPUT COMMAND…)
rusage() {
  local input=$1
  shift
  /usr/bin/time -f '%M %F %R' "$@" <"$input" 2>&1 >/dev/null | tail -1
}

# A shipped output filter's own inline-test inputs, repeated to SIZE bytes
# (cut at a line end), on stdout.
# Usage: outfilter_input rules/outfilters/FILE.outfilter.toml FILTER SIZE > OUT
outfilter_input() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
inputs = [t["input"] for t in doc["tests"][sys.argv[2]]]
block = "".join(i if i.endswith("\n") else i + "\n" for i in inputs)
size = int(sys.argv[3])
sys.stdout.write((block * (size // len(block) + 1))[:size].rsplit("\n", 1)[0] + "\n")
EOF
}

# A stand-in DIR/TOOL that prints the file $FIXTURE names, on stdout or
# (STREAM stderr) on stderr, so every wrapper reads the same bytes.
# Usage: stand_in DIR TOOL stdout|stderr
stand_in() {
  local redirect=''
  [ "$3" != stderr ] || redirect='>&2'
  # shellcheck disable=SC2016  # $FIXTURE is the stand-in's to expand
  printf '#!/bin/sh\neval "cat \\"$FIXTURE\\" %s"\n' "$redirect" >"$1/$2"
  chmod +x "$1/$2"
}
