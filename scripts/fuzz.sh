#!/usr/bin/env bash
# Runs every cargo-fuzz target for a fixed time (not in CI; needs a nightly
# toolchain and `cargo install cargo-fuzz`). A crash leaves its input under
# fuzz/artifacts/<target>/; turn each into a regression test beside the code
# it broke, then fix it.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
status=0
for target in "${targets[@]}"; do
  echo "== $target ($seconds s)"
  if ! cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 2>&1 | tail -5; then
    status=1
  fi
  # tail hides the fuzzer's own status; a crash is an artifact.
  if compgen -G "artifacts/$target/crash-*" >/dev/null; then
    echo "!! $target crashed: $(ls artifacts/"$target"/crash-* | head -3)"
    status=1
  fi
done
exit $status
