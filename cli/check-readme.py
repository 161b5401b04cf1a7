#!/usr/bin/env python3
"""Runs every `retryplan` command the READMEs show, and compares the output they show.

For each README with ```sh or ```text blocks registered to the CLI in
scripts/readme_snippets.py:

- a ```sh block holds only `retryplan ...` or `cargo run ... -p retryplan-cli
  -- ...` commands (a trailing `# comment` allowed); each runs from the
  repository root with the release binary and must exit 0. Any other line
  fails: a block that is not the CLI's is marked `<!-- not-tested: reason -->`;
- a ```text block starts with `$ retryplan ...`; the command runs in
  cli/tests/fixtures (where the files it names live) and its output must be the
  block's lines, in order; a shown line ending in `...` stands for any line
  starting with the text before it.

Usage: python3 cli/check-readme.py TARGET/release/retryplan
"""

import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "cli/tests/fixtures"

spec = importlib.util.spec_from_file_location("readme_snippets", ROOT / "scripts/readme_snippets.py")
assert spec is not None and spec.loader is not None
snippets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippets)


def arguments(line: str, where: str) -> List[str]:
    """The CLI arguments of one README command line."""
    words = shlex.split(line, comments=True)
    if words[:1] == ["retryplan"]:
        return words[1:]
    if words[:2] == ["cargo", "run"] and "-p" in words and "--" in words:
        if words[words.index("-p") + 1] == "retryplan-cli":
            return words[words.index("--") + 1 :]
    raise SystemExit(f"{where}: `{line}` is not a retryplan command: mark the block `<!-- not-tested: reason -->`")


def matches(shown: List[str], printed: List[str]) -> bool:
    if len(shown) != len(printed):
        return False
    return all(p == s or (s.endswith("...") and p.startswith(s[:-3])) for s, p in zip(shown, printed, strict=True))


def main() -> None:
    binary = Path(sys.argv[1]).resolve()
    commands = shown = 0
    seen = set()
    for path, langs in snippets.RUNNERS.items():
        # Only the READMEs whose sh/text blocks are the CLI's (another suite runs, say, Kotlin's `java -cp`).
        langs = {lang: runner for lang, runner in langs.items() if runner.startswith("cli/test.sh")}
        for block in snippets.blocks(path, "sh") if "sh" in langs else []:
            lines = [line for line in block.code.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            if not lines:
                raise SystemExit(f"{block.where}: an empty sh block")
            for line in lines:
                args = arguments(line, block.where)
                commands += 1
                if tuple(args) in seen:  # the same command shown twice runs once
                    continue
                seen.add(tuple(args))
                run = subprocess.run([str(binary), *args], cwd=ROOT, capture_output=True, text=True)
                if run.returncode != 0:
                    raise SystemExit(
                        f"{block.where}: `retryplan {' '.join(args)}` exited {run.returncode}:\n"
                        f"{run.stdout}{run.stderr}"
                    )
        for block in snippets.blocks(path, "text") if "text" in langs else []:
            first, *expected = block.code.splitlines()
            if not first.startswith("$ "):
                raise SystemExit(f"{block.where}: a text block that does not start with `$ retryplan ...`")
            args = arguments(first[2:], block.where)
            run = subprocess.run([str(binary), *args], cwd=FIXTURES, capture_output=True, text=True)
            printed = (run.stdout + run.stderr).splitlines()
            if run.returncode not in (0, 1) or not matches(expected, printed):
                raise SystemExit(
                    f"{block.where}: `{first[2:]}` (in cli/tests/fixtures) exited {run.returncode} and "
                    f"printed\n" + "\n".join(printed) + "\nwhere the README shows\n" + "\n".join(expected)
                )
            shown += 1
    if not commands or not shown:
        raise SystemExit("cli readme: no command found in the READMEs")
    print(f"cli readme: {commands} commands run ({len(seen)} distinct), {shown} shown output(s) compared")


if __name__ == "__main__":
    main()
