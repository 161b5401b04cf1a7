#!/usr/bin/env bash
# The browser playground's tests, from a fresh clone: its Rust unit tests,
# the wasm build, then the page's static build (vite build) driven in headless
# Chromium with playwright-core (test/playground.test.mjs). Installs what is
# missing (bindings-js's npm devDependencies, Chromium) idempotently.
# UPDATE_SCREENSHOT=1 refreshes the checked-in playground.png.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
step() { printf '\n--- playground: %s\n' "$1"; }

step "toolchain"
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  as_root apt-get update -q
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q chromium
fi
command -v node >/dev/null || { echo "node (>= 20) is required" >&2; exit 1; }
# Vite and playwright-core are bindings-js's devDependencies (the same stamp
# as bindings-js/test.sh, so the two install once between them).
cd "$here/.."
stamp=node_modules/.retryplan-lock.sha256
if [ ! -f "$stamp" ] || ! sha256sum --status -c "$stamp"; then
  npm ci --no-audit --no-fund
  sha256sum package-lock.json >"$stamp"
fi

step "rust unit tests"
cargo test --quiet --locked -p retryplan-playground

step "wasm"
"$here/build.sh"

step "the page in Chromium"
cd "$here"
node --test test/playground.test.mjs
