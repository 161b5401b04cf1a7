"""Checks that every block of kotlin/examples/ marked `// README: <name>` ...
`// README: end` appears, line for line, in a ```kotlin block of README.md: the
README's examples are the code CI compiles.

Usage: python3 check-examples.py
"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).parent


def main() -> None:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    fences = "\n".join(re.findall(r"```kotlin\n(.*?)```", readme, flags=re.S))
    checked = []
    for source in sorted((HERE / "kotlin/examples").rglob("*.kt")):
        text = source.read_text(encoding="utf-8")
        for name, block in re.findall(r"// README: (\w+)\n(.*?)// README: end\n", text, flags=re.S):
            if block.strip() not in fences:
                sys.exit(f"examples: the `{name}` block of {source.relative_to(HERE)} is not in README.md as written")
            checked.append(name)
    if not checked:
        sys.exit("examples: no marked block found under kotlin/examples")
    print(f"examples: {', '.join(checked)}: in README.md as compiled")


if __name__ == "__main__":
    main()
