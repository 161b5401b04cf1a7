#!/usr/bin/env bash
# Python binding: build the abi3 wheel, run the pytest suite (conformance
# vectors, API, helpers, httpx against a local server) on the dev venv and on
# CPython 3.10 and 3.13 (the dev venv is 3.11), and check `pip install ./bindings-python` from source
# in fresh venvs. Idempotent: installs only what is missing or at another
# version, and reuses cargo's caches. Run from anywhere; paths are the repo's.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
here=$root/bindings-python
venv=$root/.venv-python
fresh=$root/target/python-fresh
wheels=$root/target/python-wheels
export CARGO_TERM_COLOR=never PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
started=$SECONDS

step() { printf -- '--- %s (%ss)\n' "$1" "$((SECONDS - started))"; }

# pip install the pinned requirements of $2.. into interpreter $1, only when one is missing or differs.
ensure_pinned() {
  local python=$1; shift
  local wanted missing
  wanted=$("$python" - "$@" <<'PY'
import re, sys
from importlib import metadata

missing = []
for path in sys.argv[1:]:
    for line in open(path):
        spec, _, marker = line.split("#")[0].strip().partition(";")
        if not spec:
            continue
        if marker.strip():  # only the form: python_version >= "3.10" / < "3.10"
            op, bound = re.fullmatch(r'python_version\s*(>=|<)\s*"([\d.]+)"', marker.strip()).groups()
            applies = (sys.version_info[:2] >= tuple(map(int, bound.split(".")))) == (op == ">=")
            if not applies:
                continue
        name, version = spec.strip().split("==")
        try:
            if metadata.version(name) == version:
                continue
        except metadata.PackageNotFoundError:
            pass
        missing.append(spec.strip())
print(" ".join(missing))
PY
)
  if [ -n "$wanted" ]; then
    # shellcheck disable=SC2086
    "$python" -m pip install -q $wanted
  fi
}

find_python() {  # the interpreter for version $1, or nothing when it is truly absent
  local v=$1 candidate
  for candidate in "$HOME"/.pyenv/versions/"$v".*/bin/python"$v" "$(command -v "python$v" 2>/dev/null || true)"; do
    if [ -x "$candidate" ] && "$candidate" -c 'import sys' 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
}

step "dev venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
ensure_pinned "$venv/bin/python" "$here/requirements-dev.txt" "$here/requirements-test.txt"

step "build the abi3 wheel (pyproject's profile, python-release)"
rm -rf "$wheels"
"$venv/bin/maturin" build -m "$here/Cargo.toml" -i "$venv/bin/python" --out "$wheels"
wheel=$(ls "$wheels"/retryplan-*-abi3-*.whl)
# Both licences ship in the wheel's .dist-info/licenses/ (pyproject's license-files).
"$venv/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for licence in ("LICENSE-MIT", "LICENSE-APACHE"):
    assert any(name.endswith(f".dist-info/licenses/{licence}") for name in names), f"the wheel lacks {licence}: {names}"
PY
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$wheel"

step "static checks: mypy --strict on the package, stubtest on _native.pyi"
(cd "$root/target" && "$venv/bin/python" -m mypy --strict --cache-dir "$root/target/python-mypy-cache" -p retryplan \
  && "$venv/bin/python" -m mypy.stubtest retryplan._native --ignore-disjoint-bases \
    --mypy-config-file /dev/null --allowlist "$here/stubtest-allowlist.txt")

step "pytest on $("$venv/bin/python" -V)"
(cd "$here" && "$venv/bin/python" -m pytest -p no:cacheprovider -n 3 tests)

smoke='
import retryplan
policy = retryplan.Policy.from_profile("checkout")
op = retryplan.Operation(policy, now_ms=0, seed=1)
d = op.poll(now_ms=50)
assert d.to_dict() == {"type": "start_attempt", "attempt": 1, "timeout_ms": 200, "abort_at_ms": 250,
                       "request_id": "92c2a5665ff07619", "remaining_ms": 700, "hedge": False}, d
assert isinstance(op.on_outcome(0.25, 1, retryplan.Outcome.http_status(503)), retryplan.Wait)
assert callable(retryplan.retry) and callable(retryplan.async_attempts)
print("smoke ok:", retryplan.__version__, d)
'

for version in 3.10 3.13; do
  python=$(find_python "$version")
  if [ -z "$python" ]; then
    echo "SKIPPED: python$version not found"
    continue
  fi
  step "CPython $version: the wheel in a fresh venv, then the suite"
  rm -rf "$fresh/wheel-$version"
  "$python" -m venv "$fresh/wheel-$version"
  "$fresh/wheel-$version/bin/python" -m pip install -q "$wheel"
  "$fresh/wheel-$version/bin/python" -c "$smoke"
  ensure_pinned "$fresh/wheel-$version/bin/python" "$here/requirements-test.txt"
  (cd "$here" && "$fresh/wheel-$version/bin/python" -m pytest -p no:cacheprovider -n 3 tests)

  step "CPython $version: pip install ./bindings-python from source in a fresh venv"
  rm -rf "$fresh/src-$version"
  "$python" -m venv "$fresh/src-$version"
  # One target directory for both interpreters: the abi3 build is the same crate, so the second one rebuilds only
  # what depends on the interpreter (pyo3's build configuration), not all of it.
  CARGO_TARGET_DIR="$root/target/python-src" \
    "$fresh/src-$version/bin/python" -m pip install -q "$here"
  (cd "$fresh" && "$fresh/src-$version/bin/python" -c "$smoke")
done

step "bindings-python: all checks passed"
