#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for SECONDS each,
# starting from the checked-in corpus, and fails on the first crash.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 s, every target
#
# Installs what is missing, idempotently: the nightly toolchain (minimal
# profile) and cargo-fuzz at the pinned version. New inputs go to a scratch
# directory, never into the checked-in corpus (to keep one, copy it into
# fuzz/corpus/TARGET/ by hand); a crash is kept in fuzz/artifacts/TARGET/ and
# reproduced with `cd fuzz && cargo +nightly fuzz run --sanitizer none --debug-assertions TARGET artifacts/TARGET/FILE`.
# Each run prints "TARGET: N executions in S s".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(headers config plan operations compiled)
fi
cargo_fuzz_version=0.13.2
# The flags every build uses: no sanitizer (the core forbids unsafe code, so
# the sanitizer finds nothing the fuzzer does not and halves the speed), and
# debug assertions with overflow checks on, so an internal assertion or an
# unsaturated overflow is a crash.
# Builds go to a cache outside the clone (RETRYPLAN_FUZZ_TARGET_DIR to move
# it): a fresh clone on a machine that built the targets before only
# recompiles the repository's crates, not libFuzzer and every dependency.
target_dir=${RETRYPLAN_FUZZ_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/retryplan/fuzz-target}
flags=(--sanitizer none --debug-assertions --target-dir "$target_dir")

if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]; then
  cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked
fi

# Inputs large enough to show a reader's cost growing faster than its input
# (a quadratic reader of a 256 KiB header or a 1 MiB config runs for
# seconds, issue 29), where 4 KiB never did: libFuzzer grows inputs toward
# -max_len gradually (-len_control), so short runs still start small. A
# single input that runs longer than -timeout seconds fails the run as a
# crash would (every reader is linear or n log n: its largest input takes
# milliseconds); -report_slow_units prints any input past half of that.
declare -A max_len=([headers]=262144 [config]=1048576 [plan]=1048576 [operations]=65536)
timeout_seconds=2

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd fuzz
if ! cargo +nightly fuzz build "${flags[@]}" >"$scratch/build.log" 2>&1; then
  cat "$scratch/build.log"
  exit 1
fi
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target" "corpus/$target"
  log="$scratch/$target.log"
  if ! cargo +nightly fuzz run "${flags[@]}" "$target" "$scratch/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len="${max_len[$target]:-65536}" -timeout="$timeout_seconds" \
    -report_slow_units=1 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $target crashed or ran an input past ${timeout_seconds} s; the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -n 1 | awk '{print $2 " executions in " $5 " s"}')
  echo "$target: ${runs:-no summary (see libFuzzer output)}"
done
