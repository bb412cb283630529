# Shared by the process-level scripts: builds the release binary the way
# install.sh does, and a scratch tree with N rules (the same mix as
# benches/lookup.rs), exporting the hookdex variables.
# Usage: . benches/fixture.sh; bin=$(release_binary); make_fixture DIR N

# Builds the release binary as installed and prints its path.
release_binary() {
  local args
  mapfile -t args < <(scripts/cargo-release-args.sh)
  cargo build --release --quiet --locked "${args[@]}" >&2
  local target=${CARGO_TARGET_DIR:-$PWD/target}
  if [ ${#args[@]} -gt 0 ]; then
    echo "$target/${args[1]}/release/hookdex"
  else
    echo "$target/release/hookdex"
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
