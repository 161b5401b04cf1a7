#!/usr/bin/env bash
# What one decision call costs from Kotlin through the jar (the release
# library), against a pure-Kotlin loop making the same decisions, in one JVM
# after a warm-up. Not part of the tests (timings are not assertions): run it
# by hand. Arguments: rounds (default 7), seconds per round (default 0.5).
# build.sh compiles the bench with the test classes.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh >/dev/null
java -cp "build/libs/retryplan-kotlin.jar:build/classes/test:node_modules/kotlin-compiler/lib/kotlin-stdlib.jar:node_modules/kotlin-compiler/lib/kotlinx-coroutines-core-jvm.jar:/usr/share/java/jna.jar" \
  dev.retryplan.bench.BenchKt "$@"
