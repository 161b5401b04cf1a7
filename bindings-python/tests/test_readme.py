"""Every ```python block of the README, as a user would copy it: mypy --strict, then run.

The blocks come from scripts/readme_snippets.py (the one extractor every
language's README test uses); a block marked ``<!-- not-tested: reason -->``
is left out and counted there. Each block is checked with ``mypy --strict``
(on the dev venv, where mypy is installed) and run in a fresh interpreter of
the suite's Python (3.9 included) with the README's hosts served by
tests/helpers/server.py (readme_route.py says how). A block that names an
``.example`` host must have reached the server.
"""

import importlib.util
import pathlib
import subprocess
import sys
from typing import Any, Dict, Iterator, List

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
README = "bindings-python/README.md"


def _snippets() -> Any:
    spec = importlib.util.spec_from_file_location("readme_snippets", ROOT / "scripts" / "readme_snippets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SNIPPETS = _snippets()
BLOCKS = SNIPPETS.blocks(README, "python")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Dict[int, pathlib.Path]:
    directory = tmp_path_factory.mktemp("readme")
    written = {}
    for block in BLOCKS:
        path = directory / f"readme_line_{block.line}.py"
        path.write_text(block.code, encoding="utf-8")
        written[block.line] = path
    return written


def serve_hosts(hosts: pathlib.Path) -> Iterator[str]:
    """Serves the scenarios of ``hosts`` with tests/helpers/server.py, yielding its port; stops it after."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests/helpers/server.py"), str(hosts)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None
    line = process.stdout.readline()
    assert line.startswith("listening 127.0.0.1:"), line
    try:
        yield line.rsplit(":", 1)[1].strip()
    finally:
        process.stdin.close()
        process.terminate()  # a scenario may hang a request, and the server with it
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    yield from serve_hosts(ROOT / "tests/helpers/readme-hosts.json")


def test_the_readme_has_python_examples() -> None:
    skipped = [b for b in SNIPPETS.all_blocks(README) if b.lang == "python" and b.not_tested is not None]
    print(f"{README}: {len(BLOCKS)} python blocks tested, {len(skipped)} marked not-tested")
    assert BLOCKS, "no ```python block found"


def test_every_block_passes_mypy_strict(files: Dict[int, pathlib.Path]) -> None:
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is installed in the dev venv only, where this runs")
    # Each block is a module of its own (``-m``-less paths, one per file).
    command: List[str] = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                          "--cache-dir", str(ROOT / "target/python-mypy-cache-readme"),
                          *(str(p) for p in files.values())]  # fmt: skip
    checked = subprocess.run(command, capture_output=True, text=True, cwd=str(next(iter(files.values())).parent))
    lines = {str(p.name): line for line, p in files.items()}
    report = checked.stdout
    for name, line in lines.items():
        report = report.replace(name, f"README.md block at line {line} ({name})")
    assert checked.returncode == 0, report + checked.stderr


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_every_block_runs_against_the_local_server(block: Any, files: Dict[int, pathlib.Path], server: str) -> None:
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{server}/__reset", method="POST"), timeout=5)
    ran = subprocess.run(
        [sys.executable, str(HERE / "readme_route.py"), server, str(files[block.line])],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, f"{block.where}:\n{ran.stdout}{ran.stderr}"
    routed = int(ran.stderr.rsplit("readme: ", 1)[1].split(" ", 1)[0])
    if ".example" in block.code:
        assert routed > 0, f"{block.where}: names an .example host but sent nothing to the server"
