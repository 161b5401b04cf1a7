#!/usr/bin/env bash
# Every test of the JS binding, from a fresh machine: installs what is missing
# (idempotently, checking versions first), builds the package, then runs
# node --test: the conformance vectors, the API, driver, bad-input and helper
# tests, retryFetch against a local HTTP server, the shared helper scenarios
# (tests/helpers/) in Node, the vectors and the helper scenarios in headless
# Chromium, tsc --strict on a TypeScript consumer, a Vite build of a page, the
# bundler plugin (its hooks, and Rolldown and Vite builds with it), the
# README's checkout pages built by Vite (their shipped size gated) and run in
# Chromium through the browser runtime, and every README example (tsc --strict, then run against tests/helpers/server.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

step() { printf '\n--- bindings-js: %s\n' "$1"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

step "toolchain"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
# The CLI must match the wasm-bindgen crate in Cargo.lock exactly.
want="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' ../Cargo.lock)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$want" ]; then
  # Not --locked: the CLI's own lockfile wants crates this registry may lack.
  cargo install wasm-bindgen-cli --version "$want"
fi
if [ ! -x /usr/bin/chromium ]; then
  as_root apt-get update -q
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q chromium
fi
command -v node >/dev/null || { echo "node (>= 20) is required" >&2; exit 1; }
stamp=node_modules/.retryplan-lock.sha256
if [ ! -f "$stamp" ] || ! sha256sum --status -c "$stamp"; then
  npm ci --no-audit --no-fund
  sha256sum package-lock.json >"$stamp"
fi
echo "wasm-bindgen $want, $(/usr/bin/chromium --version 2>/dev/null | head -1), node $(node --version)"

step "build"
./build.sh

step "size gate"
node size.mjs

step "module cycles (src/)"
python3 ../scripts/check_module_cycles.py src

step "tests"
node --test \
  test/vectors.test.mjs \
  test/compiled.test.mjs \
  test/api.test.mjs \
  test/controls.test.mjs \
  test/driver.test.mjs \
  test/inputs.test.mjs \
  test/bad-input.test.mjs \
  test/unknown-keys.test.mjs \
  test/run.test.mjs \
  test/options.test.mjs \
  test/collected.test.mjs \
  test/timers.test.mjs \
  test/long-lived-signal.test.mjs \
  test/fetch.test.mjs \
  test/fetch-request.test.mjs \
  test/scenarios.test.mjs \
  test/messages.test.mjs \
  test/tags.test.mjs \
  test/cycles.test.mjs \
  test/runtime.test.mjs \
  test/page-fetch.test.mjs \
  test/propagation.test.mjs \
  test/otel.test.mjs \
  test/browser.test.mjs \
  test/browser-resend.test.mjs \
  test/browser-offline.test.mjs \
  test/browser-keepalive.test.mjs \
  test/consumer.test.mjs \
  test/rollup.test.mjs \
  test/page.test.mjs \
  test/readme.test.mjs \
  test/grpcjs.test.mjs
