#!/usr/bin/env bash
# Builds the wheel (pyproject's profile, python-release) and runs bench.py in a bench-only venv
# (target/python-bench) with the pinned comparison libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" PIP_DISABLE_PIP_VERSION_CHECK=1
venv=target/python-bench
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q maturin==1.16.0 -r bindings-python/requirements-bench.txt  # a no-op when satisfied
rm -rf target/python-bench-wheel
"$venv/bin/maturin" build -q -m bindings-python/Cargo.toml -i "$venv/bin/python" --out target/python-bench-wheel
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps target/python-bench-wheel/*.whl
exec "$venv/bin/python" bindings-python/bench.py
