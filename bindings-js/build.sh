#!/usr/bin/env bash
# Builds the npm package in place: wasm/retryplan_js.js (wasm-bindgen `web` glue)
# and wasm/retryplan_js_bg.wasm (size-optimised), next to the hand-written lib/.
# Run from anywhere; needs the wasm32 target, wasm-bindgen-cli 0.2.130 and
# `npm ci` done here (test.sh installs all three).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

cargo build -p retryplan-js --target wasm32-unknown-unknown --profile wasm-release --locked --quiet
raw="$root/target/wasm32-unknown-unknown/wasm-release/retryplan_js.wasm"

rm -rf "$here/wasm"
wasm-bindgen --target web --no-typescript --out-dir "$here/wasm" --out-name retryplan_js "$raw"

# npm binaryen (never Debian's wasm-opt 108: its output crashes with current glue).
"$here/node_modules/.bin/wasm-opt" -Oz --strip-debug --strip-producers \
  "$here/wasm/retryplan_js_bg.wasm" -o "$here/wasm/retryplan_js_bg.wasm"

size() { printf '%s raw %d B, gzip -9 %d B' "$(basename "$1")" "$(wc -c <"$1")" "$(gzip -9c "$1" | wc -c)"; }
echo "built: $(size "$here/wasm/retryplan_js_bg.wasm"); $(size "$here/wasm/retryplan_js.js")"
