#!/usr/bin/env bash
# Prints the cargo arguments for a release build of hookdex on this host.
# On Linux with glibc the binary is linked statically: it starts about 0.3 ms
# faster (no dynamic loader, no relocations), and `hookdex hook` starts once
# per tool call. Elsewhere it prints nothing and the default build is used.
#
# With glibc 2.36 or later, the static binary's relocations are also packed
# (`-z pack-relative-relocs`, DT_RELR): a static PIE relocates itself at
# start, and ~8,800 RELA entries (206 KB read on every start) become 3 KB,
# ~15 fewer page faults and ~0.08 ms per call here, with the same address
# randomization. Older glibc cannot apply DT_RELR, so they keep RELA.
#
# Where rustc links with its own lld (x86_64 Linux, rustc 1.90 or later),
# the functions the common calls run are placed first in `.text`, in the
# order of scripts/hot-symbols.txt (see scripts/hot-symbols.sh): a hook call
# where nothing fires takes 13 page faults in code instead of 53. A name the
# build does not have is skipped, so a stale list costs nothing. A cargo
# config that links with another linker (mold, GNU ld) cannot take the
# order: HOOKDEX_HOT_ORDER=off leaves it out (install.sh does so by itself
# when the link refuses it).
CDPATH='' cd -- "$(dirname -- "$0")/.." >/dev/null || exit 1
host=$(rustc -vV | sed -n 's/^host: //p')

# Whether this link takes the hot-code order: not turned off, the list
# there, rustc's own lld doing the link, and a checkout path that goes into
# the flags' TOML as it is (-Xlinker passes it whole, where -Wl, would split
# it at a comma).
takes_hot_order() {
  [ "${HOOKDEX_HOT_ORDER:-on}" != off ] && [ -f scripts/hot-symbols.txt ] || return 1
  case $PWD in *[[:cntrl:]'"\']*) return 1 ;; esac
  [ "$host" = x86_64-unknown-linux-gnu ] || return 1
  local minor
  minor=$(rustc -vV | sed -n 's/^release: 1\.\([0-9]*\)\..*/\1/p')
  [ "${minor:-0}" -ge 90 ] && [ -x "$(rustc --print sysroot)/lib/rustlib/$host/bin/gcc-ld/ld.lld" ]
}
case "$host" in
  *-linux-gnu)
    flags='"-C","target-feature=+crt-static"'
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')
    major=${glibc%%.*} minor=${glibc#*.} minor=${minor%%.*}
    if [ -n "$glibc" ] && { [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 36 ]; }; }; then
      flags+=',"-C","link-arg=-Wl,-z,pack-relative-relocs"'
    fi
    if takes_hot_order; then
      flags+=',"-C","link-arg=-Xlinker","-C","link-arg=--symbol-ordering-file"'
      flags+=",\"-C\",\"link-arg=-Xlinker\",\"-C\",\"link-arg=$PWD/scripts/hot-symbols.txt\""
      flags+=',"-C","link-arg=-Wl,--no-warn-symbol-ordering"'
    fi
    printf '%s\n' --target "$host" --config "target.$host.rustflags=[$flags]"
    ;;
esac
