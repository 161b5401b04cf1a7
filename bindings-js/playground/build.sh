#!/usr/bin/env bash
# Builds the playground's wasm (the CLI library and the core, compiled for the
# browser) into pkg/, where main.js imports it. Idempotent and quick when warm:
# cargo rebuilds only what changed, and wasm-bindgen runs only when the .wasm
# is newer than its glue.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
# The CLI must match the wasm-bindgen crate in Cargo.lock exactly.
want="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$want" ]; then
  cargo install wasm-bindgen-cli --version "$want"
fi

cargo build --quiet --locked --target wasm32-unknown-unknown --release -p retryplan-playground
wasm="target/wasm32-unknown-unknown/release/retryplan_playground.wasm"
out="$here/pkg"
if [ ! -f "$out/retryplan_playground_bg.wasm" ] || [ "$wasm" -nt "$out/retryplan_playground_bg.wasm" ]; then
  wasm-bindgen --target web --no-typescript --out-dir "$out" "$wasm"
  echo "playground wasm: $(du -k "$out/retryplan_playground_bg.wasm" | cut -f1) KB in $out"
fi
