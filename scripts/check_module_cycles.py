#!/usr/bin/env python3
"""No import cycle among the core's top-level modules.

Each top-level module of core/src (a file `x.rs` or a directory `x/`) is a
node; an edge `a -> b` is a path `crate::b` (or `$crate::b`, or `super::`
reaching it) in a's code outside comments and `#[cfg(test)]` items. lib.rs is
the root that re-exports everything, not a node. Prints each cycle with its
edges (and the lines that make them) and exits 1; exits 0 when there is
none (`--graph` prints every edge first).

Usage: python3 scripts/check_module_cycles.py [--graph] [core/src]
"""

import os
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as source:
        return source.read()


def strip_comments_and_strings(src):
    """The source with comments removed and string literals emptied, lines kept."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if src[i] == "\n" else "")
                    i += 1
        elif re.match(r'b?r#*"', src[i:i + 20]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', src[i:])
            close = '"' + m.group(1)
            end = src.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + "\n" * src.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\(x..|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", src[i:])
            if m:  # a char literal; otherwise a lifetime or label
                out.append("' '")
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_test_items(src):
    """The code without every item marked `#[cfg(test)]` (up to its `;` or its closing brace)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]", src)
        if not m:
            return src
        i = m.end()
        while i < len(src) and src[i] not in "{;":
            i += 1
        if i < len(src) and src[i] == "{":
            depth = 0
            while i < len(src):
                depth += {"{": 1, "}": -1}.get(src[i], 0)
                i += 1
                if depth == 0:
                    break
        else:
            i += 1
        src = src[: m.start()] + "\n" * src.count("\n", m.start(), i) + src[i:]


def test_files(root):
    """Files that are `#[cfg(test)] mod x;` modules (test code, not edges)."""
    skipped = set()
    for path in rust_files(root):
        src = read(path)
        for name in re.findall(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", src):
            base = os.path.dirname(path)
            if os.path.basename(path) not in ("mod.rs", "lib.rs"):
                base = os.path.join(base, os.path.basename(path)[:-3])
            for candidate in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
                skipped.add(os.path.normpath(candidate))
    return skipped


def rust_files(root):
    for dirpath, _, filenames in os.walk(root):
        for filename in sorted(filenames):
            if filename.endswith(".rs"):
                yield os.path.normpath(os.path.join(dirpath, filename))


def module_path(root, path):
    """`policy/validate.rs` -> ["policy", "validate"]; `policy/mod.rs` -> ["policy"]."""
    parts = os.path.relpath(path, root)[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts.pop()
    return [] if parts == ["lib"] else parts


def first_segments(group):
    """The first path segment of every path in a `{a, b::c, d::{e, f}}` group body."""
    segments, depth, current = [], 0, ""
    for c in group + ",":
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if depth == 0 and c == ",":
            m = re.match(r"\s*(\w+)", current)
            if m:
                segments.append(m.group(1))
            current = ""
        elif depth >= 0:
            current += c if depth == 0 else ""
    return segments


def root_reexports(root):
    """{name: module} for every `pub use module::...` of lib.rs: `crate::Policy` is a use of `policy`."""
    lib = strip_comments_and_strings(read(os.path.join(root, "lib.rs")))
    names = {}
    for module, body in re.findall(r"pub use (\w+)::(\{[^;]*\}|[\w:]+(?: as \w+)?);", lib):
        for path in re.split(r"\s*,\s*", body.strip("{} \n")):
            if path:
                names[re.split(r"::| as ", path.strip())[-1].strip()] = module
    return names


def edges(root):
    """{module: {dependency: [(file, line), ...]}} for every top-level module."""
    skipped = test_files(root)
    reexported = root_reexports(root)
    graph = {}
    for path in rust_files(root):
        here = module_path(root, path)
        if not here or path in skipped:
            continue
        node = here[0]
        deps = graph.setdefault(node, {})
        code = strip_test_items(strip_comments_and_strings(read(path)))
        found = []
        for m in re.finditer(r"(?<![\w])\$?crate::(\{|\w+)", code):
            if m.group(1) == "{":
                depth, j = 1, m.end()
                while j < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                found += [(name, m.start()) for name in first_segments(code[m.end(): j - 1])]
            else:
                found.append((m.group(1), m.start()))
        for m in re.finditer(r"(?<![\w:])((?:super::)+)(\w+)", code):
            ups = m.group(1).count("super::")
            # A file's own module is `here`; `super` from a non-mod file is its parent.
            base = here[: len(here) - ups]
            target = base[0] if base else m.group(2)
            found.append((target, m.start()))
        for name, offset in found:
            name = reexported.get(name, name)
            if name != node:
                rel = os.path.relpath(path, root)
                deps.setdefault(name, []).append((rel, code.count("\n", 0, offset) + 1))
    nodes = set(graph)
    return {node: {dep: where for dep, where in deps.items() if dep in nodes} for node, deps in graph.items()}


def cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv):
    show_graph = "--graph" in argv
    args = [arg for arg in argv if arg != "--graph"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "src")
    graph = edges(root)
    if show_graph:
        for node in sorted(graph):
            print(f"{node} -> {', '.join(sorted(graph[node])) or '(nothing)'}")
    found = cycles(graph)
    for component in found:
        print(f"cycle among core modules: {' <-> '.join(component)}")
        for node in component:
            for dep in sorted(set(graph[node]) & set(component)):
                where = ", ".join(f"{file}:{line}" for file, line in graph[node][dep][:3])
                more = len(graph[node][dep]) - 3
                print(f"  {node} -> {dep}  ({where}{f', +{more} more' if more > 0 else ''})")
    if found:
        print(f"{len(found)} cycle(s) among {len(graph)} modules: move the shared item to a leaf module or next to its user")
        return 1
    print(f"no import cycle among {len(graph)} core modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
