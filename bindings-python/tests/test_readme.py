"""The README's Python examples at least compile (they need network services to run)."""

import pathlib
import re
import sys

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.skipif(sys.version_info < (3, 10), reason="the examples use match statements")
def test_readme_examples_compile() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    for index, block in enumerate(blocks):
        compile(block, f"README.md block {index}", "exec")
