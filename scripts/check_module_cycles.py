#!/usr/bin/env python3
"""No import cycle among a crate's modules, at any depth.

A crate is a root file (`lib.rs`, `main.rs`) and the modules its `mod x;` and
`mod x { ... }` declarations reach (`#[cfg(test)]` ones left out). The modules
with one parent are the nodes at that parent's level: the top-level modules of
core/src, and as well `a6`, `duration` and `service_config` inside `grpc`.

A path `crate::`, `$crate::`, `self::` or `super::` in a module's code outside
comments, strings and test-only (`#[cfg(test)]`) items is resolved to the deepest module it
reaches, following `use` declarations (a re-export reaches the module that
defines the name: `crate::Policy` is a use of `policy`, `super::ServiceConfig`
in `grpc/a6.rs` a use of `grpc::service_config`). It makes an edge between
the two siblings under the deepest module holding both ends; a module using
its own ancestor or descendant is the normal shape of a tree, not an edge.

The same rule holds for the other languages' module trees, each read by its
own parser:
- a Python package (a folder with `__init__.py`): its modules and
  subpackages are the nodes; every `import` and `from ... import` of the
  package's own modules is an edge, wherever it stands (one inside a function,
  imported lazily, and one under `if TYPE_CHECKING:` too). A name taken from a
  package (`from . import Policy`) is a use of the module whose `from .x
  import Policy` the package's `__init__.py` re-exports it from; a module
  using its own package is not an edge.
- JavaScript (a folder of `.js`/`.mjs` files, ES modules): each file is a
  node, each subfolder a node at its parent's level; every static `import`
  and `export ... from` and every `import('...')` of a relative path inside
  the folder is an edge.

Prints each cycle with its edges (and the lines that make them) and exits 1;
exits 0 when there is none (`--graph` prints every edge first). The roots are
every Rust crate of the workspace (core, the CLI, the bindings' glue), the
Python binding's package and the JS binding's `lib/` unless given.

A crate with a table of floors (`FLOORS`: core/src) is held to it as well:
each top-level module (a folder of the crate: `ground`, `engine`, ...) stands
on one floor, and an edge from a module to one on a higher floor is refused
(printed with its lines, exit 1), as is a top-level module the table does not
place. `--floors=a,b,c` gives the table (ground floor first) for the roots
given instead.

Usage: python3 scripts/check_module_cycles.py [--graph] [--floors=A,B,...] [ROOT_DIR ...]
"""

import ast
import os
import re
import sys

ROOT_FILES = ("lib.rs", "main.rs")


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
        elif re.match(r'b?r#*"', src[i : i + 20]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
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
    """The code without every item marked `#[cfg(test)]` or `#[cfg(all(test, ...))]` (up to its `;` or closing brace)."""
    while True:
        m = re.search(r"#\[cfg\((test|all\(\s*test\b[^\]]*)\)\]", src)
        if not m:
            return src
        i = m.end()
        while i < len(src) and src[i] not in "{;":
            i += 1
        if i < len(src) and src[i] == "{":
            i = closing_brace(src, i)
        else:
            i += 1
        src = src[: m.start()] + "\n" * src.count("\n", m.start(), i) + src[i:]


def closing_brace(code, i):
    """The index just past the brace closing the one at `code[i]`."""
    depth = 0
    while i < len(code):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
        if depth == 0:
            break
    return i


NAME = re.compile(r"\$?\w+|\*")
SEPARATOR = re.compile(r"\s*::\s*")
ALIAS = re.compile(r"\s+as\s+(\w+)")


def use_tree(text, start=0):
    """Every path of the use tree or path at `text[start:]` (`a::{b, c::{self, D as E}, F}`) as (segments, alias).

    `self` first in a group names the group's prefix; a glob is a path ending in `*`.
    """
    paths, n = [], len(text)

    def tree(prefix, i):
        segments = list(prefix)
        while True:
            while i < n and text[i].isspace():
                i += 1
            if text.startswith("{", i):
                i += 1
                while True:
                    while i < n and text[i] in " \t\n,":
                        i += 1
                    if i >= n or text[i] == "}":
                        return i + 1
                    i = tree(segments, i)
            m = NAME.match(text, i)
            if not m:  # `crate::f::<T>()`: the path so far
                if len(segments) > len(prefix):
                    paths.append((segments, None))
                return i
            i = m.end()
            if not (m.group() == "self" and prefix and segments == list(prefix)):
                segments.append(m.group())
            sep = SEPARATOR.match(text, i)
            if sep:
                i = sep.end()
                continue
            alias = ALIAS.match(text, i)
            if alias:
                i = alias.end()
            paths.append((segments, alias.group(1) if alias else None))
            return i

    tree([], start)
    return paths


class Crate:
    """The modules of one crate: their files, inline spans, `use` names and references."""

    def __init__(self, src_dir, root_file):
        self.src_dir = src_dir
        self.root_file = root_file
        self.modules = set()  # tuples of segments; () is the crate root
        self.bindings = {}  # module -> {name: (segments, declared in)}
        self.references = []  # (module, segments, file, line)
        self.load(os.path.join(src_dir, root_file), (), src_dir)

    def load(self, path, module, child_dir):
        """Reads the file of `module`; its `mod x;` children live in `child_dir`."""
        rel = os.path.relpath(path, self.src_dir)
        code = strip_test_items(strip_comments_and_strings(read(path)))
        # Inline modules: (start, end, module path, directory of their file children).
        spans = [(0, len(code), module, child_dir)]
        for m in re.finditer(r"(?<![\w])mod\s+(\w+)\s*([{;])", code):
            outer = innermost(spans, m.start())
            name = m.group(1)
            if m.group(2) == "{":
                spans.append(
                    (m.end() - 1, closing_brace(code, m.end() - 1), outer[2] + (name,), os.path.join(outer[3], name))
                )
                self.modules.add(outer[2] + (name,))
            else:
                for candidate, grandchildren in (
                    (os.path.join(outer[3], name + ".rs"), os.path.join(outer[3], name)),
                    (os.path.join(outer[3], name, "mod.rs"), os.path.join(outer[3], name)),
                ):
                    if os.path.exists(candidate):
                        self.load(candidate, outer[2] + (name,), grandchildren)
                        break
        self.modules.add(module)
        for m in re.finditer(r"(?<![\w])use\s+", code):
            scope = innermost(spans, m.start())
            if brace_depth(code, scope[0], m.start()) != (0 if scope[0] == 0 else 1):
                continue  # a `use` inside a function body or a block
            for segments, alias in use_tree(code, m.end()):
                if segments and segments[-1] != "*":
                    self.bindings.setdefault(scope[2], {})[alias or segments[-1]] = (segments, scope[2])
        for m in re.finditer(r"(?<![\w:$])(\$crate|crate|self|super)(?=\s*::)", code):
            scope = innermost(spans, m.start())
            line = code.count("\n", 0, m.start()) + 1
            for segments, _ in use_tree(code, m.start()):
                self.references.append((scope[2], segments, rel, line))

    def resolve(self, here, segments, hops=0):
        """The deepest module `segments` (written in module `here`) reaches, or None outside the crate."""
        if not segments or hops > 32:
            return None
        first, rest = segments[0], segments[1:]
        if first in ("crate", "$crate"):
            current = ()
        elif first == "self":
            current = here
        elif first == "super":
            current = here[:-1]
            while rest and rest[0] == "super":
                current, rest = current[:-1], rest[1:]
        elif here + (first,) in self.modules:
            current, rest = here + (first,), rest
        elif first in self.bindings.get(here, {}):
            target, declared_in = self.bindings[here][first]
            return self.resolve(declared_in, target + rest, hops + 1)
        else:
            return None  # another crate: std, alloc, serde, retryplan...
        for i, name in enumerate(rest):
            if current + (name,) in self.modules:
                current += (name,)
            elif name in self.bindings.get(current, {}):
                target, declared_in = self.bindings[current][name]
                return self.resolve(declared_in, target + list(rest[i + 1 :]), hops + 1) or current
            else:
                break
        return current

    def edges(self):
        """{parent: {child: {sibling: [(file, line), ...]}}}: every child of every module, and its edges."""
        levels = module_levels(self.modules)
        for here, segments, rel, line in self.references:
            target = self.resolve(here, segments)
            if target is not None:
                sibling_edge(levels, here, target, (rel, line))
        return levels


def innermost(spans, offset):
    return max((span for span in spans if span[0] <= offset < span[1]), key=lambda span: span[0])


def brace_depth(code, start, end):
    return code.count("{", start, end) - code.count("}", start, end)


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


def sibling_edge(levels, here, target, where):
    """Records `here` using `target` as an edge between the siblings under the deepest module holding both ends."""
    common = 0
    while common < min(len(here), len(target)) and here[common] == target[common]:
        common += 1
    if common == len(here) or common == len(target):
        return  # itself, an ancestor or a descendant
    edges = levels.setdefault(here[:common], {}).setdefault(here[common], {}).setdefault(target[common], [])
    if where not in edges:
        edges.append(where)


def module_levels(modules):
    """{parent: {child: {}}} for every module of a tree (a tuple of names; () is the root)."""
    levels = {}
    for module in modules:
        if module:
            levels.setdefault(module[:-1], {}).setdefault(module[-1], {})
    return levels


class PythonPackage:
    """The modules of one Python package (a folder with `__init__.py`) and their imports of each other."""

    root_file = "__init__.py"

    def __init__(self, package_dir):
        self.package_dir = package_dir
        self.name = os.path.basename(os.path.normpath(package_dir))
        self.files = {}  # module -> path
        self.packages = set()  # modules that are packages (their file is __init__.py)
        for folder, dirs, files in os.walk(package_dir):
            dirs[:] = sorted(d for d in dirs if os.path.exists(os.path.join(folder, d, "__init__.py")))
            rel = os.path.relpath(folder, package_dir)
            base = () if rel == "." else tuple(rel.split(os.sep))
            for name in sorted(files):
                if name == "__init__.py":
                    self.files[base] = os.path.join(folder, name)
                    self.packages.add(base)
                elif name.endswith(".py"):
                    self.files[base + (name[:-3],)] = os.path.join(folder, name)
        self.modules = set(self.files)
        self.trees = {module: ast.parse(read(path), path) for module, path in self.files.items()}
        # What a package's __init__ re-exports: {package: {name: module defining it}}.
        self.exports = {}
        for package in self.packages:
            for node in ast.walk(self.trees[package]):
                if isinstance(node, ast.ImportFrom):
                    source = self.imported(package, node)
                    if source is not None and source != package:
                        for alias in node.names:
                            if alias.name != "*":
                                self.exports.setdefault(package, {})[alias.asname or alias.name] = source

    def imported(self, here, node):
        """The module `from X import ...` (node) names, written in module `here`, or None outside the package."""
        if node.level:
            base = here if here in self.packages else here[:-1]
            if node.level - 1 > len(base):
                return None
            base = base[: len(base) - (node.level - 1)]
        elif node.module and node.module.split(".")[0] == self.name:
            return self.module(tuple(node.module.split(".")[1:]))
        else:
            return None
        return self.module(base + (tuple(node.module.split(".")) if node.module else ()))

    def module(self, path):
        """`path` when it is a module of the package, else None (another package, or an extension module)."""
        return path if path in self.modules else None

    def targets(self, here, node):
        """Every module of the package one import statement of module `here` uses."""
        if isinstance(node, ast.Import):
            found = []
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == self.name and self.module(tuple(parts[1:])) is not None:
                    found.append(tuple(parts[1:]))
            return found
        source = self.imported(here, node)
        if source is None:
            return []
        found = []
        for alias in node.names:
            if source + (alias.name,) in self.modules:
                found.append(source + (alias.name,))  # `from . import x`: the module x
            elif source in self.packages and alias.name in self.exports.get(source, {}):
                found.append(self.exports[source][alias.name])  # a name the package re-exports
            else:
                found.append(source)
        return found

    def edges(self):
        levels = module_levels(self.modules)
        for here, tree in self.trees.items():
            rel = os.path.relpath(self.files[here], self.package_dir)
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for target in self.targets(here, node):
                        sibling_edge(levels, here, target, (rel, node.lineno))
        return levels


JS_IMPORT = re.compile(
    r"""(?:\bimport\s*(?:[\w*${},\s]+?\s*from\s*)?|\bexport\s*(?:\*(?:\s*as\s+\w+)?|\{[^}]*\})\s*from\s*|\bimport\s*\(\s*)(["'])(\.{1,2}/[^"']*)\1"""
)


def strip_js_comments(src):
    """The source with comments blanked (line breaks kept) and strings kept as they are, and the
    (start, end) of each string in it."""
    out, strings, i, n = [], [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * src.count("\n", i, end))
            i = end
        elif src[i] in "\"'`":
            quote, j = src[i], i + 1
            while j < n and src[j] != quote:
                j += 2 if src[j] == "\\" else 1
            start = sum(map(len, out))
            out.append(src[i : j + 1])
            strings.append((start, start + j + 1 - i))
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out), strings


class JsModules:
    """The ES modules of one folder (`.js` and `.mjs` files, subfolders included) and their imports of each other."""

    root_file = None

    def __init__(self, root_dir):
        self.root_dir = os.path.abspath(root_dir)
        self.files = {}  # module -> path
        for folder, dirs, files in os.walk(self.root_dir):
            dirs.sort()
            rel = os.path.relpath(folder, self.root_dir)
            base = () if rel == "." else tuple(rel.split(os.sep))
            for name in sorted(files):
                if name.endswith((".js", ".mjs")):
                    self.files[base + (name,)] = os.path.join(folder, name)
        self.modules = set(self.files) | {()}
        self.by_path = {os.path.normpath(path): module for module, path in self.files.items()}

    def edges(self):
        levels = module_levels(self.modules)
        for here, path in self.files.items():
            code, strings = strip_js_comments(read(path))
            for m in JS_IMPORT.finditer(code):
                if any(start < m.start() < end for start, end in strings):
                    continue  # text in a string
                target = self.by_path.get(os.path.normpath(os.path.join(os.path.dirname(path), m.group(2))))
                if target is not None:
                    line = code.count("\n", 0, m.start(2)) + 1
                    sibling_edge(levels, here, target, (os.path.relpath(path, self.root_dir), line))
        return levels


def crates(src_dir):
    """The module trees at `src_dir`: its Rust crates (one per root file), else its Python package, else its JS modules."""
    found = [Crate(src_dir, name) for name in ROOT_FILES if os.path.exists(os.path.join(src_dir, name))]
    if found:
        return found
    if os.path.exists(os.path.join(src_dir, "__init__.py")):
        return [PythonPackage(src_dir)]
    return [JsModules(src_dir)]


# The floors of a crate's top-level modules, ground floor first: a module
# imports from its own floor and the floors below it, never above
# (ARCHITECTURE.md, "The core's floors", explains each).
FLOORS = {
    "core/src": (
        "ground",
        "headers",
        "config",
        "controls",
        "policy",
        "dialects",
        "outcomes",
        "propagation",
        "engine",
        "driver",
        "tools",
        "compatibility",
    ),
}


def floor_violations(levels, floors):
    """Every problem of the crate's top level against `floors` (ground floor first), as printable lines."""
    height = {name: i for i, name in enumerate(floors)}
    graph = levels.get((), {})
    found = []
    for node in sorted(graph):
        if node not in height:
            found.append(
                f"top-level module {node} stands on no floor: add it to the table of floors ({', '.join(floors)})"
            )
            continue
        for dep in sorted(graph[node]):
            if dep in height and height[dep] > height[node]:
                where = ", ".join(f"{file}:{line}" for file, line in graph[node][dep][:3])
                more = len(graph[node][dep]) - 3
                found.append(
                    f"{node} (floor {height[node] + 1}) imports {dep} (floor {height[dep] + 1}), a higher floor  "
                    f"({where}{f', +{more} more' if more > 0 else ''})"
                )
    return found


DEFAULT_ROOTS = (
    "core/src",
    "core/mirrors/src",
    "cli/src",
    "bindings-python/src",
    "bindings-python/python/retryplan",
    "bindings-js/src",
    "bindings-js/lib",
    "bindings-js/playground/src",
    "bindings-kotlin/src",
)


def label(src_dir):
    here = os.path.relpath(os.path.abspath(src_dir), os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    return src_dir if here.startswith("..") else here


def main(argv):
    show_graph = "--graph" in argv
    given_floors = [tuple(arg.split("=", 1)[1].split(",")) for arg in argv if arg.startswith("--floors=")]
    roots = [arg for arg in argv if arg != "--graph" and not arg.startswith("--floors=")]
    if not roots:
        repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        roots = [os.path.join(repo, *root.split("/")) for root in DEFAULT_ROOTS]
    found_any, found_floors, modules, names = 0, 0, 0, []
    for src_dir in roots:
        found_crates = crates(src_dir)
        for crate in found_crates:
            name = label(src_dir) + (f" ({crate.root_file})" if len(found_crates) > 1 else "")
            names.append(name)
            modules += len(crate.modules)
            levels = crate.edges()
            floors = given_floors[0] if given_floors else FLOORS.get(label(src_dir))
            if floors and isinstance(crate, Crate):
                for problem in floor_violations(levels, floors):
                    found_floors += 1
                    print(f"floors of {name}: {problem}")
            for parent in sorted(levels):
                graph = levels[parent]
                inside = f", inside {'::'.join(parent)}" if parent else ""
                if show_graph:
                    for node in sorted(graph):
                        path = "::".join(parent + (node,))
                        print(f"{name}: {path} -> {', '.join(sorted(graph[node])) or '(nothing)'}")
                for component in cycles(graph):
                    found_any += 1
                    print(f"cycle among modules of {name}{inside}: {' <-> '.join(component)}")
                    for node in component:
                        for dep in sorted(set(graph[node]) & set(component)):
                            where = ", ".join(f"{file}:{line}" for file, line in graph[node][dep][:3])
                            more = len(graph[node][dep]) - 3
                            print(f"  {node} -> {dep}  ({where}{f', +{more} more' if more > 0 else ''})")
    if found_any:
        print(
            f"{found_any} cycle(s) among {modules} modules of {', '.join(names)}: "
            "move the shared item to the module that defines its concept, or to a small module both use"
        )
    if found_floors:
        print(
            f"{found_floors} floor problem(s): move the item down to the floor of what uses it, "
            "or the user up; a new top-level module goes into FLOORS"
        )
    if found_any or found_floors:
        return 1
    print(
        f"no import cycle at any depth among {modules} modules of {', '.join(names)}"
        f"{'; every import of ' + ', '.join(sorted(FLOORS)) + ' stays on its floor or goes down' if not given_floors else ''}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
