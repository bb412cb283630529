#!/usr/bin/env bash
# Writes scripts/hot-symbols.txt: the functions the common calls of the
# release binary run, in the order they first run. The release link
# (cargo-release-args.sh) hands the file to lld as its symbol ordering
# file, so that code sits together at the start of `.text`: a hook call
# where nothing fires then takes 13 page faults in code instead of 53 (the
# 380 KB of code it runs lay on 245 pages spread over the 9.7 MB `.text`).
#
# A symbol's name carries its crate's hash, which changes with the
# release profile, the compiler and a dependency's version, so the list
# is taken from the release build itself: linked with a map (`-Map`, no
# other flag changes a name), its calls run under valgrind's lackey, each
# instruction run mapped to the input section holding it, and that
# section named by its first symbol. A name the next build does not have
# is skipped by lld; the file goes stale without breaking a build, and
# this script makes it current again (after a compiler update, a
# dependency bump or a change on the hook's path).
#
# The calls: `hookdex hook` where nothing fires, with a bash guard and a
# declarative one firing, `exec` with and without the guard, and `exec`
# of output no filter claims (the rows of benches/table.sh), nothing-fires
# first.
#
# Usage: scripts/hot-symbols.sh   (needs valgrind, python3, readelf and
# lld, the linker rustc uses on x86_64 Linux since 1.90)
set -euo pipefail
CDPATH='' cd -- "$(dirname -- "$0")/.." >/dev/null
fail() { echo "hot-symbols.sh: $*" >&2; exit 1; }
for tool in valgrind python3 readelf; do
  command -v "$tool" >/dev/null || fail "needs $tool"
done
# Either variable replaces the config's rustflags, and the build would not
# be the release one.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
mapfile -t args < <(scripts/cargo-release-args.sh)
[[ "${args[*]}" == *--symbol-ordering-file* ]] ||
  fail "this host's release link does not take the order (see scripts/cargo-release-args.sh)"
root=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-hot.XXXXXX")
trap 'rm -rf "$root"' EXIT
. benches/fixture.sh
cargo rustc --release --quiet --locked --bin hookdex "${args[@]}" -- \
  -C link-arg=-Xlinker -C link-arg=-Map="$root/hookdex.map" -C link-arg=-Wl,--no-demangle
cp "$(release_path "${args[@]}")" "$root/hookdex"
bin=$root/hookdex
# The first instruction run must be the binary's own entry point: a static
# build, no program interpreter.
! LC_ALL=C readelf -lW "$bin" | grep -q INTERP || fail "$bin is not linked statically"
entry=$(LC_ALL=C readelf -h "$bin" | awk '/Entry point/ {print $4}')

make_fixture "$root/tree" 1000
export HOOKDEX_ENFORCE=auto CLAUDE_CODE_SHELL_PREFIX="$bin --guard-shell=claude"
home=$HOOKDEX_HOME
guard_trees "$home" "$root/sh" "$root/guard"
bash_payload "$root/tree" "ls -la | wc -l" >"$root/nothing.json"
bash_payload "$root/tree" "kubectl get pods" >"$root/kubectl.json"
empty_files "$root/lsdir" 200
cd "$root/tree/repo"
for h in "$home" "$root/sh" "$root/guard"; do
  HOOKDEX_HOME=$h "$bin" compile >/dev/null
  # The session's first call says more than the next ones; trace those.
  HOOKDEX_HOME=$h "$bin" hook --target claude <"$root/nothing.json" >/dev/null
done

n=0
trace() { # INPUT HOME ARGS…: one call under lackey, its instructions in trace-N
  local input=$1 h=$2
  shift 2
  HOOKDEX_HOME=$h valgrind --tool=lackey --trace-mem=yes --log-file="$root/trace-$n" \
    "$bin" "$@" <"$input" >/dev/null 2>&1 || [ -n "${until_seccomp:-}" ] ||
    fail "hookdex $* failed under valgrind"
  n=$((n + 1))
}
trace "$root/nothing.json" "$home" hook --target claude
trace "$root/kubectl.json" "$root/guard" hook --target claude
trace "$root/kubectl.json" "$root/sh" hook --target claude
trace /dev/null "$home" exec -- /bin/true
# valgrind has no seccomp(2) nor pidfd_open(2): the supervised call is
# traced up to its filter's install, and fails there.
until_seccomp=1 trace /dev/null "$root/sh" exec --guard -- /bin/true
trace /dev/null "$home" exec -- ls -la "$root/lsdir"

cd - >/dev/null
python3 - "$root/hookdex.map" "$entry" "$root"/trace-* >"$root/hot-symbols.txt" <<'EOF'
import bisect, re, sys

map_path, entry, traces = sys.argv[1], int(sys.argv[2], 16), sys.argv[3:]
# lld's map: "VMA LMA Size Align Out/In/Symbol", indented by level. An
# input section of `.text` is followed by the symbols it defines.
starts, sections = [], []
in_text = False
line_re = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(.*)$")
for line in open(map_path):
    m = line_re.match(line)
    if not m:
        continue
    vma, size, indent, name = int(m[1], 16), int(m[2], 16), len(m[3]), m[4]
    if indent == 0:
        in_text = name == ".text"
    elif in_text and indent == 8:
        starts.append(vma)
        sections.append([vma + size, None])
    elif in_text and sections and sections[-1][1] is None:
        sections[-1][1] = name
order, seen = [], set()
for path in sorted(traces, key=lambda p: int(p.rsplit("-", 1)[1])):
    base = None
    for line in open(path):
        if not line.startswith("I  "):
            continue
        addr = int(line[3:].split(",")[0], 16)
        if base is None:
            base = addr - entry  # the first instruction run is the entry point
        at = bisect.bisect_right(starts, addr - base) - 1
        if at < 0 or addr - base >= sections[at][0] or at in seen:
            continue
        seen.add(at)
        if sections[at][1]:
            order.append(sections[at][1])
print("# The functions hookdex's common calls run, in the order first run:")
print("# lld's symbol ordering file for the release link. Written by")
print("# scripts/hot-symbols.sh; see there for when to run it again.")
print("\n".join(dict.fromkeys(order)))
EOF
# A map the parser did not understand gives a handful of names at most.
count=$(grep -vc '^#' "$root/hot-symbols.txt" || true)
[ "$count" -ge 100 ] || fail "only $count functions found; scripts/hot-symbols.txt left as it was"
mv "$root/hot-symbols.txt" scripts/hot-symbols.txt
echo "hot-symbols.sh: $count functions in scripts/hot-symbols.txt" >&2
