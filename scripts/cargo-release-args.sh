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
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu)
    flags='"-C","target-feature=+crt-static"'
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')
    major=${glibc%%.*} minor=${glibc#*.} minor=${minor%%.*}
    if [ -n "$glibc" ] && { [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 36 ]; }; }; then
      flags+=',"-C","link-arg=-Wl,-z,pack-relative-relocs"'
    fi
    printf '%s\n' --target "$host" --config "target.$host.rustflags=[$flags]"
    ;;
esac
