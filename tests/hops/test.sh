#!/usr/bin/env bash
# Issue 27's three-hop scenario (hops.test.mjs): headless Chromium -> a Python ASGI service under uvicorn -> a
# Node service, one propagated deadline, retries at one layer, one idempotency key, the Python hop's spans.
# Builds nothing: it reuses the bindings' builds (bindings-js/test.sh: npm ci and build.sh;
# bindings-python/test.sh: .venv-python with the retryplan wheel, httpx, uvicorn and the OpenTelemetry SDK, or
# a Python given as $RETRYPLAN_PYTHON) and their Chromium (/usr/bin/chromium, or $CHROMIUM). Idempotent; about
# 10 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${RETRYPLAN_PYTHON:-$PWD/.venv-python/bin/python}"
missing() { echo "tests/hops: $1 (run $2 first)" >&2; exit 1; }
[ -f bindings-js/browser/wasm/retryplan_js_bg.wasm ] && [ -f bindings-js/wasm/retryplan_js_bg.wasm ] \
  || missing "bindings-js is not built" "bindings-js/test.sh or bindings-js/build.sh"
[ -d bindings-js/node_modules/vite ] || missing "bindings-js has no node_modules" "npm ci in bindings-js"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing "no Chromium at ${CHROMIUM:-/usr/bin/chromium}" "bindings-js/test.sh"
"$python" -c 'import retryplan.otel, httpx, uvicorn, opentelemetry.sdk' 2>/dev/null \
  || missing "$python lacks retryplan (with retryplan.otel), httpx, uvicorn or opentelemetry-sdk" "bindings-python/test.sh"
node --test tests/hops/hops.test.mjs
