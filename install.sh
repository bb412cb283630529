#!/usr/bin/env bash
# Installs the `hookdex` binary with cargo (into ~/.cargo/bin by default),
# statically linked where that makes it start faster.
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t args < <(scripts/cargo-release-args.sh)
cargo install --locked --path . "${args[@]}" "$@"
