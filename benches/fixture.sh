# Shared by the process-level scripts: builds the release binary the way
# install.sh does, and a scratch tree with N rules (the same mix as
# benches/lookup.rs), exporting the hookdex variables.
# Usage: . benches/fixture.sh; bin=$(release_binary); make_fixture DIR N
#        hooks_yaml FILE N   (N hooks.yaml groups, the same kind of mix)

# Builds the release binary as installed and prints its path (under
# CARGO_TARGET_DIR when that is set, as cargo puts it there).
release_binary() {
  local args dir=${CARGO_TARGET_DIR:-$PWD/target}
  mapfile -t args < <(scripts/cargo-release-args.sh)
  cargo build --release --quiet --locked "${args[@]}" >&2
  if [ ${#args[@]} -gt 0 ]; then
    echo "$dir/${args[1]}/release/hookdex"
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
