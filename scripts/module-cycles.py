#!/usr/bin/env python3
"""Prints the file-level import circles of each crate: a file reaches another when
it names an item of it (`crate::a::b`, `super::x`, `self::x`, or a `use` of them),
declaring a child module (`mod x;`) is not an import. Exit status 1 when any exist.

Usage: scripts/module-cycles.py [CRATE_DIR...]   (default: every workspace crate)
"""
import os
import re
import sys

CRATES = ["src", "compiler/src", "runtime/src", "runtime/shell/src", "runtime/model/src",
          "runtime/index/src", "runtime/harness/src", "runtime/literals/src",
          "runtime/outfilter/src", "runtime/enforce/src", "runtime/mcp/src"]


def modules(root):
    """Module path (tuple) -> file, for every .rs file under root."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            out[tuple(rel)] = os.path.join(d, f)
    return out


def strip(text):
    # A file's unit tests (`#[cfg(test)] mod tests`, last in the file) name the file itself.
    text = re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)[0]
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def expand_use(body):
    """Flattens `a::{b, c::{d}}` into paths."""
    body = body.strip()
    m = re.match(r"^(.*?)\{(.*)\}$", body, re.S)
    if not m:
        return [body]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for part in parts if part.strip() for p in expand_use(prefix + part.strip())]


def absolute(ref, here):
    """The absolute module path of `crate::`/`super::`/`self::` reference `ref` in
    module `here`, or None for an outside crate."""
    parts = [p for p in re.sub(r"\s+as\s+\w+$", "", ref.strip()).split("::") if p]
    if not parts:
        return None
    if parts[0] == "crate":
        return parts[1:]
    if parts[0] in ("super", "self"):
        base = list(here)
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        return base + parts
    if parts[0] in ("std", "core", "alloc"):
        return None
    return None


def reexports(mods):
    """Per module: item name -> absolute path it re-exports (`pub use a::X`)."""
    out = {}
    for path, file in mods.items():
        text = strip(open(file, encoding="utf-8").read())
        names = {}
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for ref in expand_use(m.group(1)):
                alias = re.search(r"\s+as\s+(\w+)$", ref)
                full = absolute(ref if re.match(r"(crate|super|self)::", ref.strip()) else "self::" + ref.strip(), path)
                if full:
                    names[alias.group(1) if alias else full[-1]] = full
        out[path] = names
    return out


def resolve(parts, mods, exports, depth=0):
    """The file defining what absolute path `parts` names."""
    target = ()
    for i, p in enumerate(parts):
        if target + (p,) in mods:
            target = target + (p,)
            continue
        again = exports.get(target, {}).get(p)
        if again and depth < 8:
            return resolve(again + list(parts[i + 1:]), mods, exports, depth + 1)
        break
    return mods.get(target)


def edges(mods):
    exports = reexports(mods)
    graph = {f: set() for f in mods.values()}
    for path, file in mods.items():
        text = strip(open(file, encoding="utf-8").read())
        refs = []
        private = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]+;", "", text)
        for m in re.finditer(r"\buse\s+([^;]+);", private):
            refs += expand_use(m.group(1))
        refs += re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", private)
        for ref in refs:
            parts = absolute(ref, path)
            if parts is None:
                continue
            dest = resolve(parts, mods, exports)
            if dest and dest != file:
                graph[file].add(dest)
    return graph


def cycles(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    roots = sys.argv[1:] or CRATES
    found = 0
    for root in roots:
        if not os.path.isdir(root):
            continue
        for comp in cycles(edges(modules(root))):
            found += 1
            print(" <-> ".join(comp))
    print(f"{found} circles")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
