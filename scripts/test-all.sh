#!/usr/bin/env bash
# Every test of every language, from a fresh clone: installs what is missing
# (idempotently), then runs each suite. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

section() { printf '\n=== %s ===\n' "$1"; }

section "conformance vectors: lint"
python3 tests/conformance/lint.py

section "rust: format, lint, docs"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

section "rust: unit, property, conformance and doc tests"
cargo test --workspace --locked

for suite in bindings-python bindings-js bindings-kotlin cli; do
  if [ -x "$suite/test.sh" ]; then
    section "$suite"
    "$suite/test.sh"
  fi
done

section "all suites passed"
