#!/usr/bin/env bash
# Every test of every language, from a fresh clone: installs what is missing
# (idempotently), then runs each suite. Stops at the first failing suite and
# ends with one line counting every test that ran.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

# Runs one suite, showing its output and keeping a copy for the final count,
# then its wall time (the run's minutes, suite by suite, to keep CI under 30).
suite() {
  local name=$1 begun=$SECONDS
  shift
  printf '\n=== %s ===\n' "$name"
  "$@" 2>&1 | tee "$log_dir/$(echo "$name" | tr -c 'a-z0-9\n' '_').log"
  printf '=== %s: %ss (run so far: %ss)\n' "$name" "$((SECONDS - begun))" "$SECONDS"
}

# Tools the suites below need: rustfmt and clippy, and jsonschema so the lint
# validates every vector file against its schema (installed only if missing).
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add rustfmt clippy
fi
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet 'jsonschema==4.26.0'
# The JS binding's Rust is wasm-only: clippy checks it for its target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

suite "conformance vectors: lint" python3 tests/conformance/lint.py
suite "conformance vectors: lint self-test" python3 tests/conformance/test_lint.py
# Every README code block is run by a suite below or marked as not tested.
suite "readme snippets: every block tested or marked" python3 scripts/readme_snippets.py check
# No module imports another that imports it back, at any depth: every Rust crate
# (edges: `crate::`, `self::` and `super::` paths), the Python package (imports,
# lazy ones too) and the JS binding's lib/ (imports of relative paths).
suite "no import cycle at any module depth (Rust crates, Python package, JS lib)" python3 scripts/check_module_cycles.py
suite "rust: module cycle check self-test" python3 scripts/test_check_module_cycles.py
# The bindings' mirrors of the core's names and config shapes are generated
# (core/mirrors); a committed copy that differs fails, naming the file.
suite "mirrors: generated files are up to date" cargo run -q -p retryplan-mirrors --locked -- --check
suite "rust: format" cargo fmt --all --check
suite "rust: clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
# The workspace's crates, built without the core's default feature `root-aliases`
# (the root's hidden old paths, kept one release): none of them may use one.
suite "rust: no crate here uses the root's old paths" \
  cargo check --locked --all-targets -p retryplan-cli -p retryplan-mirrors -p retryplan-python -p retryplan-kotlin \
  -p retryplan-repository
# The core as the JS build uses it (no json, no entropy), checked natively too.
suite "rust: clippy, core without default features" cargo clippy -p retryplan --lib --no-default-features --locked -- -D warnings
# The JS binding's Rust, which compiles to nothing natively: each of its builds, for wasm32.
suite "rust: clippy, JS binding for wasm32" cargo clippy -p retryplan-js --target wasm32-unknown-unknown --locked -- -D warnings
suite "rust: clippy, JS binding for wasm32, --all-features (tools entry)" \
  cargo clippy -p retryplan-js --target wasm32-unknown-unknown --all-features --locked -- -D warnings
# The browser runtimes (bindings-js/build.sh): with the shared controls, and the lean one without.
suite "rust: clippy, JS binding for wasm32, browser runtime" \
  cargo clippy -p retryplan-js --target wasm32-unknown-unknown --no-default-features --features controls --locked -- -D warnings
suite "rust: clippy, JS binding for wasm32, lean browser runtime" \
  cargo clippy -p retryplan-js --target wasm32-unknown-unknown --no-default-features --locked -- -D warnings
# Python (ruff), JS (biome) and Kotlin (ktlint) lint and format checks; each
# tool is installed at its pinned version on first run (scripts/lint.sh --fix
# applies the formatters and safe fixes).
suite "lint: ruff, biome, ktlint" scripts/lint.sh
suite "rust: docs" env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
# The core's docs without `root-aliases` (the hidden old root paths): a link that resolves only through
# one of them is broken for a user who turns that feature off, and for everyone once they are removed.
suite "rust: docs, core without the root's old paths" env RUSTDOCFLAGS="-D warnings" \
  cargo doc -p retryplan --no-deps --no-default-features --features std,json,entropy --locked --quiet
suite "rust: unit, property, conformance and doc tests" cargo test --workspace --locked

for binding in bindings-python bindings-js bindings-kotlin cli; do
  if [ -x "$binding/test.sh" ]; then
    suite "$binding" "$binding/test.sh"
  fi
done

# Issue 27's three hops (Chromium -> Python under uvicorn -> Node), on the builds of the bindings' suites above
# (bindings-js's package and Chromium, bindings-python's .venv-python): builds nothing, about 10 s.
suite "three hops: one propagated deadline from a page through Python to Node (tests/hops)" tests/hops/test.sh
suite "playground (bindings-js/playground): wasm page in Chromium" bindings-js/playground/test.sh
# Every fuzz target for a few seconds from the checked-in corpus (fuzz/):
# installs nightly and cargo-fuzz once; the longer runs are scripts/fuzz.sh.
suite "fuzz: every target, 8 s each, from the corpus" scripts/fuzz.sh 8

# Sum the counts every runner printed: cargo/libtest ("test result: ok. N
# passed; M failed"), pytest ("N passed"), unittest ("Ran N tests" then "OK" or
# "FAILED (failures=M)"), node --test ("# pass N" / "# fail M") and the JUnit
# console launcher ("[ N tests successful ]" / "[ M tests failed ]").
python3 - "$log_dir" <<'EOF'
import pathlib, re, sys
passed = failed = 0
for log in sorted(pathlib.Path(sys.argv[1]).glob("*.log")):
    text = log.read_text(errors="replace")
    for p, f in re.findall(r"test result: \w+\. (\d+) passed; (\d+) failed", text):
        passed += int(p); failed += int(f)
    for m in re.finditer(r"^=+ (.*) in [\d.]+s", text, re.M):
        summary = m.group(1)
        p = re.search(r"(\d+) passed", summary); f = re.search(r"(\d+) failed", summary)
        passed += int(p.group(1)) if p else 0; failed += int(f.group(1)) if f else 0
    for ran, status in re.findall(r"^Ran (\d+) tests? in [\d.]+s\n\n(OK.*|FAILED.*)$", text, re.M):
        bad = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", status))
        skipped = sum(int(n) for n in re.findall(r"skipped=(\d+)", status))
        passed += int(ran) - bad - skipped; failed += bad
    for p in re.findall(r"^# pass (\d+)$", text, re.M): passed += int(p)
    for f in re.findall(r"^# fail (\d+)$", text, re.M): failed += int(f)
    for p in re.findall(r"\[\s*(\d+) tests successful\s*\]", text): passed += int(p)
    for f in re.findall(r"\[\s*(\d+) tests failed\s*\]", text): failed += int(f)
print(f"\ntotal: {passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
EOF
