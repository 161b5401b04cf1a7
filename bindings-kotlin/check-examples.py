"""Checks that the README's Kotlin examples are the code CI compiles, both ways.

Every block of kotlin/examples/ marked `// README: <name>` ... `// README: end`
must be a ```kotlin block of README.md as written, and every ```kotlin block
of README.md (its `import` lines aside: the example file imports for all of
them) must be one of those marked blocks, unless the README marks it
`<!-- not-tested: reason -->` (scripts/readme_snippets.py, the extractor every
language's README test shares). build.sh compiles kotlin/examples/ with the
tests; ReadmeExamplesTest runs the examples that need no server.

Usage: python3 check-examples.py
"""

import importlib.util
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
README = "bindings-kotlin/README.md"

spec = importlib.util.spec_from_file_location("readme_snippets", HERE.parent / "scripts" / "readme_snippets.py")
assert spec is not None and spec.loader is not None
snippets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippets)


def without_imports(code: str) -> str:
    return "\n".join(line for line in code.splitlines() if not line.startswith("import ")).strip()


def main() -> None:
    readme_blocks = {without_imports(b.code): b for b in snippets.blocks(README, "kotlin")}
    mirrored = {}
    for source in sorted((HERE / "kotlin/examples").rglob("*.kt")):
        text = source.read_text(encoding="utf-8")
        for name, block in re.findall(r"// README: (\w+)\n(.*?)// README: end\n", text, flags=re.S):
            if block.strip() not in readme_blocks:
                sys.exit(
                    f"examples: the `{name}` block of {source.relative_to(HERE)} is not a ```kotlin block of README.md as written"
                )
            mirrored[block.strip()] = name
    for body, block in readme_blocks.items():
        if body not in mirrored:
            sys.exit(
                f"examples: {block.where}: a ```kotlin block that is not in kotlin/examples/ (mirror it there between "
                f"`// README: name` and `// README: end`, or mark it `<!-- not-tested: reason -->`)"
            )
    skipped = [b for b in snippets.all_blocks(README) if b.lang == "kotlin" and b.not_tested is not None]
    print(
        f"examples: {', '.join(mirrored.values())}: in README.md as compiled; "
        f"{len(skipped)} kotlin block(s) marked not-tested"
    )


if __name__ == "__main__":
    main()
