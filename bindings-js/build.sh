#!/usr/bin/env bash
# Builds the npm package in place, every entry:
# - `retryplan` (the default, lean entry): wasm/retryplan_js.js (wasm-bindgen
#   `web` glue) and wasm/retryplan_js_bg.wasm, next to the hand-written lib/;
#   only Node loads it, so it is built for speed (cargo profile wasm-node, see
#   Cargo.toml), every other entry for size (wasm-release);
# - `retryplan/tools`: the same crate with the `tools` feature, its own glue and
#   wasm in tools/wasm/, and tools/lib/ (made by tools-entry.mjs from lib/);
# - the browser runtime (`retryplan` under the `browser` and `default`
#   conditions): the crate without default features (no configuration reader,
#   no message data), its glue and wasm in browser/wasm/,
#   and browser/lib/ (made by browser-entry.mjs from lib/ and lib/runtime/);
# - the lean browser runtime (`retryplan/lean`, which the bundler plugin takes
#   with `runtime: 'lean'`): the same without the shared controls (feature
#   `controls`), in browser-lean/wasm/ and browser-lean/lib/.
# Run from anywhere; needs the wasm32 target, wasm-bindgen-cli 0.2.130 and
# `npm ci` done here (test.sh installs all three).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

target="$root/target/wasm32-unknown-unknown"
# npm binaryen (never Debian's wasm-opt 108: its output crashes with current glue).
wasm_opt="$here/node_modules/.bin/wasm-opt"
size() { printf '%s raw %d B, gzip -9 %d B' "$1" "$(wc -c <"$2")" "$(gzip -9c "$2" | wc -c)"; }

# build <out dir> <cargo profile> [cargo features...]: the crate, its glue and its optimised wasm in <out dir>.
build() {
  local out="$1" profile="$2"
  shift 2
  cargo build -p retryplan-js --target wasm32-unknown-unknown --profile "$profile" --locked --quiet "$@"
  rm -rf "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name retryplan_js "$target/$profile/retryplan_js.wasm"
}

# shrink <out dir>: the size-optimised wasm, without names or debug information.
shrink() {
  "$wasm_opt" -Oz --strip-debug --strip-producers "$1/retryplan_js_bg.wasm" -o "$1/retryplan_js_bg.wasm"
}

# The Node entry: binaryen's level makes no difference to its speed (-O2, -O3
# and -O4 measured as -Oz within noise): -Oz, as every entry.
build "$here/wasm" wasm-node
# Each entry optimised as shipped but with its name section (function names):
# test/messages.test.mjs checks the default one holds no formatting code,
# size.mjs gives each part's share. Not part of the package. They go where
# those read them, which the Node entry's own build (wasm-node) does not make.
mkdir -p "$target/wasm-release"
"$wasm_opt" -Oz -g "$here/wasm/retryplan_js_bg.wasm" -o "$target/wasm-release/retryplan_js.lean.wasm"
shrink "$here/wasm"
build "$here/tools/wasm" wasm-release --features tools
"$wasm_opt" -Oz -g "$here/tools/wasm/retryplan_js_bg.wasm" -o "$target/wasm-release/retryplan_js.tools.wasm"
shrink "$here/tools/wasm"
build "$here/browser/wasm" wasm-release --no-default-features --features controls
"$wasm_opt" -Oz -g "$here/browser/wasm/retryplan_js_bg.wasm" -o "$target/wasm-release/retryplan_js.browser.wasm"
shrink "$here/browser/wasm"
build "$here/browser-lean/wasm" wasm-release --no-default-features
"$wasm_opt" -Oz -g "$here/browser-lean/wasm/retryplan_js_bg.wasm" -o "$target/wasm-release/retryplan_js.browser-lean.wasm"
shrink "$here/browser-lean/wasm"
node "$here/tools-entry.mjs"
node "$here/browser-entry.mjs"

echo "built: $(size retryplan_js_bg.wasm "$here/wasm/retryplan_js_bg.wasm"); $(size retryplan_js.js "$here/wasm/retryplan_js.js")"
echo "built browser: $(size retryplan_js_bg.wasm "$here/browser/wasm/retryplan_js_bg.wasm"); $(size retryplan_js.js "$here/browser/wasm/retryplan_js.js")"
echo "built browser-lean: $(size retryplan_js_bg.wasm "$here/browser-lean/wasm/retryplan_js_bg.wasm"); $(size retryplan_js.js "$here/browser-lean/wasm/retryplan_js.js")"
echo "built tools: $(size retryplan_js_bg.wasm "$here/tools/wasm/retryplan_js_bg.wasm"); $(size retryplan_js.js "$here/tools/wasm/retryplan_js.js")"
