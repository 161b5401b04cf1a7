#!/usr/bin/env python3
"""Binds uniffi's native functions per object type, on first use (run by build.sh).

uniffi 0.32 declares every C function of the library in one Kotlin object,
`UniffiLib`, which JNA binds whole (`Native.register`) the first time any of
them is called: ~190 functions, about a millisecond each on a loaded machine,
paid by a process's first `Policy.profile(...)` before its first `retrying {}`.
This moves each object type's functions (`Policy`, `Driver`, ...) into an
object of its own (`UniffiLibPolicy`, ...) and the free functions into
`UniffiLibFunctions`, each bound by JNA when first called, and drops the
declarations of uniffi's async support (`rust_future_*`: this library exports
no async function, so nothing calls them). `UniffiLib` keeps the RustBuffer
functions and the cleaner. The calls are the same functions with the same
signatures; only where JNA binds them changes.

Usage: lazy-natives.py GENERATED_KT. Fails, naming what it found, when the
generated code is not the shape it expects (a uniffi upgrade), so build.sh
stops rather than ship a half-moved file.
"""

import re
import sys

DECLARATION = re.compile(r"^    external fun (\w+)\(.*?\n    \): [^\n]*\n", re.M | re.S)
BY_OBJECT = re.compile(r"^uniffi_\w+?_fn_(?:(?:method|constructor)_([a-z0-9]+)_|(?:clone|free)_([a-z0-9]+)$)")
FUNCTION = re.compile(r"^uniffi_\w+?_fn_func_")
FUTURE = re.compile(r"^ffi_\w+?_rust_future_")
LIBRARY = 'Native.register(UniffiLib::class.java, findLibraryName(componentName = "retryplan_uniffi"))'


def fail(message):
    sys.exit(f"lazy-natives.py: {message}: check uniffi's NamespaceLibraryTemplate.kt")


def main(path):
    with open(path, encoding="utf-8") as source:
        text = source.read()
    start = text.find("\ninternal object UniffiLib {\n")
    end = text.find("\n}\n", start)
    if start < 0 or end < 0 or text.count(LIBRARY) != 1:
        fail("no `internal object UniffiLib` registering the library once")
    body = text[start:end]
    groups, dropped, kept = {}, [], 0
    for declaration in DECLARATION.finditer(body):
        name = declaration.group(1)
        by_object = BY_OBJECT.match(name)
        if by_object:
            groups.setdefault((by_object.group(1) or by_object.group(2)).capitalize(), []).append(declaration)
        elif FUNCTION.match(name):
            groups.setdefault("Functions", []).append(declaration)
        elif FUTURE.match(name):
            dropped.append(declaration)
        else:
            kept += 1
    moved = sum(len(declarations) for declarations in groups.values())
    if len(groups) < 5 or moved < 100 or len(dropped) < 40 or kept < 4:
        fail(f"{len(groups)} groups of {moved} functions, {len(dropped)} async, {kept} kept")
    for declaration in dropped:
        if re.search(rf"\b{declaration.group(1)}\b", text[:start] + text[end:]):
            fail(f"{declaration.group(1)} is called")
    removed = {declaration.group(0) for declarations in groups.values() for declaration in declarations}
    removed.update(declaration.group(0) for declaration in dropped)
    new_body = DECLARATION.sub(lambda m: "" if m.group(0) in removed else m.group(0), body)
    objects = []
    for group, declarations in sorted(groups.items()):
        lib = f"UniffiLib{group}"
        externals = "".join(declaration.group(0) for declaration in declarations)
        objects.append(
            f"\n/** The C functions of `{group}`, bound by JNA on first use (lazy-natives.py). */\n"
            f"internal object {lib} {{\n    init {{\n        {LIBRARY.replace('UniffiLib', lib, 1)}\n    }}\n\n"
            f"{externals}}}\n"
        )
        for declaration in declarations:
            name = declaration.group(1)
            text_count = len(re.findall(rf"\bUniffiLib\.{name}\b", text))
            if text_count == 0 and not name.startswith("uniffi_retryplan_uniffi_fn_clone_"):
                fail(f"{name} is never called as UniffiLib.{name}")
    text = text[:start] + new_body + text[end:end + 3] + "".join(objects) + text[end + 3:]
    for group, declarations in groups.items():
        for declaration in declarations:
            name = declaration.group(1)
            text = re.sub(rf"\bUniffiLib\.{name}\b", f"UniffiLib{group}.{name}", text)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"lazy-natives.py: {moved} functions in {len(groups)} objects bound on first use, "
          f"{len(dropped)} async declarations dropped, {kept} left in UniffiLib")


if __name__ == "__main__":
    main(sys.argv[1])
