#!/usr/bin/env bash
# Runs hookdex on the demo tree: a bundle with a profile, a machine (runtime)
# layer and a repository layer. The tree is copied to a scratch directory so
# the repository can be its own git root; nothing outside it is touched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hookdex=${HOOKDEX:-$(command -v hookdex || echo "${CARGO_HOME:-$HOME/.cargo}/bin/hookdex")}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp -R "$here/." "$scratch/"
mkdir -p "$scratch/repo/.git"
printf '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n' > "$scratch/repo/.git/config"
mkdir -p "$scratch/bundle/.git"
printf '[remote "origin"]\n\turl = https://github.com/acme/agent-bundle.git\n' > "$scratch/bundle/.git/config"

export HOOKDEX_HOME="$scratch/home" HOOKDEX_CACHE_DIR="$scratch/cache" HOOKDEX_MANAGED_DIR="$scratch/managed"
export HOOKDEX_BUNDLE="$scratch/bundle" HOOKDEX_PROFILES=strict
unset CONDITIONS_TRUSTED_OWNERS
cd "$scratch/repo"

run() { printf '\n$ %s\n' "$*"; "$@"; }
run "$hookdex" compile
run "$hookdex" list
run "$hookdex" explain --tool Bash --command 'cd services && sudo -u deploy kubectl delete pod api-0'
run "$hookdex" explain --tool Write --path db/migrations/0042_add_index.sql
run "$hookdex" explain --target codex --tool exec --input '{"command": ["bash", "-lc", "git log"]}'
printf '\n$ hookdex hook --target claude < payloads/claude-pre-bash.json\n'
"$hookdex" hook --target claude < "$scratch/payloads/claude-pre-bash.json"
echo "(exit $?)"
# On Linux the same rule holds when the program runs, whatever ran it: a
# stub kubectl on PATH, hidden from the text behind a variable.
mkdir -p "$scratch/bin"
printf '#!/bin/sh\necho "kubectl ran: $*"\n' > "$scratch/bin/kubectl"
chmod +x "$scratch/bin/kubectl"
printf '\n$ hookdex exec --guard -- bash -c %s\n' "'c=kubectl; \$c get pods; \$c delete pod api-0'"
PATH="$scratch/bin:$PATH" "$hookdex" exec --guard -- bash -c 'c=kubectl; $c get pods; $c delete pod api-0' \
  && echo "(exit 0)" || echo "(exit $?)"
