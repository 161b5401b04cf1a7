#!/usr/bin/env bash
# The CLI's part of scripts/test-all.sh. Its unit and integration tests already
# ran there (`cargo test --workspace`); this runs the README's main job once,
# in release mode as a user would, and checks that the chart was written
# beside the plan file and that nothing was written into the working directory.
# Then every `retryplan` command the READMEs show (their output compared where
# they show it: cli/check-readme.py), `check` on every example policy file, and
# the Rust example program (examples/rust/checkout.rs), the compiled forms the
# bindings' suites load, and the READMEs' install line (`cargo install --path cli`).
set -euo pipefail
cd "$(dirname "$0")/.."
chart=examples/checkout.svg
rm -f "$chart"
before=$(ls -A)
cargo run --release --locked -p retryplan-cli -- simulate examples/checkout.json
test -s "$chart" && head -c 4 "$chart" | grep -q '<svg' || { echo "cli: no chart at $chart" >&2; exit 1; }
test "$before" = "$(ls -A)" || { echo "cli: simulate wrote into the working directory" >&2; exit 1; }
echo "cli: main job ran, chart at $chart"

python3 cli/check-readme.py "${CARGO_TARGET_DIR:-target}/release/retryplan"
find examples -name '*.json' | sort | while read -r plan; do
  "${CARGO_TARGET_DIR:-target}/release/retryplan" check "$plan" >/dev/null || { echo "cli: $plan is invalid" >&2; exit 1; }
done
# The compiled forms the Python and Kotlin suites load (tests/compiled/*.b64: one
# form made by the CLI, read in every language) are what the CLI writes today.
bin="${CARGO_TARGET_DIR:-target}/release/retryplan"
for pair in "checkout.policy.b64 examples/policies/checkout.json" "checkout.dependency.b64 examples/checkout.json --dependency"; do
  set -- $pair
  fixture=tests/compiled/$1
  shift
  "$bin" compile "$@" | cmp -s - "$fixture" || {
    echo "cli: $fixture is not what \`retryplan compile $*\` prints (the form changed?): write it again with" >&2
    echo "  cargo run --release -p retryplan-cli -- compile $* > $fixture" >&2
    exit 1
  }
done
echo "cli: tests/compiled/*.b64 are the CLI's forms"
# The install line the root and cli READMEs show, run as a user would (into a
# scratch root; the release build above is reused through the target directory).
for readme in README.md cli/README.md; do
  grep -qx 'cargo install --path cli' "$readme" || { echo "cli: $readme does not show \`cargo install --path cli\`" >&2; exit 1; }
done
install_root=$(mktemp -d)
trap 'rm -rf "$install_root"' EXIT
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" cargo install --quiet --locked --path cli --root "$install_root"
"$install_root/bin/retryplan" check examples/checkout.json >/dev/null
echo "cli: cargo install --path cli installed a working retryplan"
cargo run --quiet --locked -p retryplan-repository --example checkout >/dev/null
echo "cli: README commands, example files and examples/rust/checkout.rs ran"
