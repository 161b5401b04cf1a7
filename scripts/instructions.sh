#!/usr/bin/env bash
# Instructions per decision: the engine (with a caller's key and with a key
# derived from the seed) against a hand-written retry loop making the same
# decisions, counted by callgrind inside the measured functions only
# (core/examples/instructions.rs). Callgrind counts instructions, not time, so
# the figures repeat on a busy machine. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q -p retryplan --example instructions
binary=target/release/examples/instructions
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
decisions=10000
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1.out" --toggle-collect="instructions::workload_*" \
    "$binary" "$1" >/dev/null 2>"$out/$1.log"
  sed -n 's/^summary: //p' "$out/$1.out"
}
hand=$(count hand-loop)
printf '%-20s %10s %14s %8s\n' workload instructions per-decision "x hand"
for workload in hand-loop engine-given-key engine-derived-key; do
  total=$(count "$workload")
  awk -v w="$workload" -v t="$total" -v d="$decisions" -v h="$hand" \
    'BEGIN { printf "%-20s %10d %14.1f %8.2f\n", w, t, t / d, t / h }'
done
