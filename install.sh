#!/usr/bin/env bash
# Installs the `hookdex` binary with cargo (into ~/.cargo/bin by default),
# statically linked where that makes it start faster. Where a cargo config
# links with a linker that refuses lld's symbol ordering option (mold, GNU
# ld), it installs again without the hot-code order.
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t args < <(scripts/cargo-release-args.sh)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo install --locked --path . "${args[@]}" "$@" 2> >(tee "$log" >&2) || status=$?
wait $! || true
[ "$status" -ne 0 ] || exit 0
refused="unrecognized option '--symbol-ordering|symbol-ordering-file: unknown option|unknown command line option: -?-symbol-ordering"
grep -Eq "$refused" "$log" || exit "$status"
echo "install.sh: the linker refused the hot-code order; installing without it" >&2
mapfile -t args < <(HOOKDEX_HOT_ORDER=off scripts/cargo-release-args.sh)
cargo install --locked --path . "${args[@]}" "$@"
