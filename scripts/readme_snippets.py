#!/usr/bin/env python3
"""Every fenced code block of the repository's Markdown, and who tests it.

A README cannot drift from the API when each of its code blocks is compiled
or run by some suite. This module is the one extractor those suites share,
and the inventory that proves no block is left out:

- ``blocks(path, lang)`` returns the fenced blocks of one language, each with
  its line number and, when the README marks it, why it is not tested. The
  suites (``cargo test --doc``, ``bindings-python/tests/test_readme.py``,
  ``bindings-kotlin/check-examples.py``, ``bindings-js/test/readme.test.mjs``,
  ``cli/test.sh``) call it, directly
  or through ``extract``.
- ``python3 scripts/readme_snippets.py check`` (run by ``scripts/test-all.sh``)
  reads every Markdown file the repository tracks and fails on a block that
  no suite tests and no marker excuses; it prints one line per file: blocks,
  tested how, skipped and why.
- ``python3 scripts/readme_snippets.py extract LANG FILE`` prints one
  language's testable blocks as JSON (for shell and Kotlin/JS suites).

A block that is deliberately not tested (an install line, a build script for
another tool, a fragment that only names an API) says so in the README, on
the line right before its fence, where a reader sees it in the source:

    <!-- not-tested: installs from the network -->
    ```sh

To add a language's README (bindings-js, say): name its runner in ``RUNNERS``
under its path (and drop it from ``PENDING``), and have the runner test
``blocks(path, "js")``.

Standard library only, Python 3.9+.
"""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

ROOT = Path(__file__).resolve().parent.parent

# README (path from the root) -> fence language -> the suite that tests every
# unmarked block of that language there, and how.
RUNNERS: Dict[str, Dict[str, str]] = {
    "README.md": {
        "rust": "cargo test --doc -p retryplan-repository (tests/repository/src/lib.rs includes the README): compiled and run",
        "sh": "cli/test.sh: every retryplan command run",
    },
    "core/README.md": {
        "rust": "cargo test --doc -p retryplan (the crate documentation): compiled and run",
    },
    "cli/README.md": {
        "sh": "cli/test.sh: every retryplan command run",
        "text": "cli/test.sh: the `$ retryplan ...` command run, its output compared",
    },
    "bindings-python/README.md": {
        "python": "bindings-python/tests/test_readme.py: mypy --strict, run against tests/helpers/server.py",
    },
    "bindings-js/README.md": {
        "js": "bindings-js/test/readme.test.mjs: tsc --strict (checkJs), run in Node against tests/helpers/server.py",
        "ts": "bindings-js/test/readme.test.mjs: tsc --strict, run in Node; test/consumer.test.mjs runs examples/checkout.mts "
        "against a local shop",
    },
    "bindings-kotlin/README.md": {
        "kotlin": "bindings-kotlin/check-examples.py: mirrored in kotlin/examples/, compiled by build.sh; "
        "ReadmeExamplesTest runs all but the OkHttp one (its host is in the code)",
        "sh": "bindings-kotlin/test.sh: the `java -cp ...` command run as written with the built jars and an app.jar",
    },
}

# Markdown not yet under this check, and why. Each entry is a debt.
PENDING: Dict[str, str] = {}

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
NOT_TESTED = re.compile(r"^\s*<!--\s*not-tested:\s*(?P<reason>.+?)\s*-->\s*$")


class Block(NamedTuple):
    """One fenced block: where it is, its language, its text, and the marker's reason if it is not tested."""

    path: str
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    not_tested: Optional[str]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def all_blocks(path: str) -> List[Block]:
    """Every fenced block of the Markdown file ``path`` (relative to the repository root)."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    found: List[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        lang = opening.group("info").strip().split(" ")[0].split(",")[0]
        body: List[str] = []
        end = index + 1
        while end < len(lines) and not re.match(rf"^[ \t]*{re.escape(fence)}[ \t]*$", lines[end]):
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        if end == len(lines):
            raise SystemExit(f"{path}:{index + 1}: a code fence that never closes")
        marker = NOT_TESTED.match(lines[index - 1]) if index > 0 else None
        found.append(Block(path, index + 1, lang, "\n".join(body) + "\n", marker.group("reason") if marker else None))
        index = end + 1
    return found


def blocks(path: str, lang: str) -> List[Block]:
    """The blocks of ``lang`` in ``path`` that a suite must test (the marked ones left out)."""
    if lang not in RUNNERS.get(path, {}):
        raise SystemExit(f"{path}: no runner is registered for ```{lang} blocks (scripts/readme_snippets.py RUNNERS)")
    return [b for b in all_blocks(path) if b.lang == lang and b.not_tested is None]


def markdown_files() -> List[str]:
    """Every Markdown file git tracks (or, outside a checkout, finds)."""
    try:
        listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, check=True, capture_output=True, text=True)
        return sorted(listed.stdout.split())
    except (OSError, subprocess.CalledProcessError):
        return sorted(
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*.md")
            if not any(part.startswith(".") or part in ("target", "node_modules", "build") for part in p.parts)
        )


def check() -> int:
    """Prints the inventory; returns 1 when a block is neither tested nor marked."""
    problems: List[str] = []
    total_tested = total_skipped = 0
    print(f"{'README':<34} {'blocks':>6} {'tested':>6} {'skipped':>7}")
    for path in markdown_files():
        if path in PENDING:
            print(f"{path:<34} not checked yet: {PENDING[path]}")
            continue
        found = all_blocks(path)
        if not found:
            continue
        runners = RUNNERS.get(path, {})
        tested = [b for b in found if b.not_tested is None and b.lang in runners]
        skipped = [b for b in found if b.not_tested is not None]
        for block in found:
            if block.not_tested is None and block.lang not in runners:
                problems.append(
                    f"{block.where}: a ```{block.lang or '(no language)'} block that no suite tests: "
                    f"test it (RUNNERS) or mark it `<!-- not-tested: reason -->`"
                )
            if block.not_tested is not None and block.lang in runners and not block.not_tested.strip():
                problems.append(f"{block.where}: a not-tested marker without a reason")
        print(f"{path:<34} {len(found):>6} {len(tested):>6} {len(skipped):>7}")
        for lang in sorted({b.lang for b in tested}):
            print(f"    {lang}: {sum(b.lang == lang for b in tested)} by {runners[lang]}")
        for block in skipped:
            print(f"    skipped {block.lang or '-'} at line {block.line}: {block.not_tested}")
        total_tested += len(tested)
        total_skipped += len(skipped)
    for path in RUNNERS:
        if not (ROOT / path).exists():
            problems.append(f"{path}: registered in RUNNERS but missing")
    print(
        f"readme snippets: {total_tested} tested, {total_skipped} skipped (marked), {len(problems)} untested and unmarked"
    )
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: List[str]) -> int:
    if argv[1:2] == ["check"] and len(argv) == 2:
        return check()
    if argv[1:2] == ["extract"] and len(argv) == 4:
        print(json.dumps([b._asdict() for b in blocks(argv[3], argv[2])], indent=1))
        return 0
    print(__doc__.split("\n\n")[0], "\nusage: readme_snippets.py check | extract LANG FILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
