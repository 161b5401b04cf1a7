#!/usr/bin/env bash
# The cost of one decision call from Kotlin through JNA into the optimised
# library. Not part of the tests (timings are not assertions): run by hand
# (build.sh compiles the bench with the test classes).
set -euo pipefail
cd "$(dirname "$0")"
PROFILE=release ./build.sh >/dev/null
java -cp "build/libs/retryplan-kotlin.jar:build/classes/test:node_modules/kotlin-compiler/lib/kotlin-stdlib.jar:/usr/share/java/jna.jar" \
  dev.retryplan.bench.BenchKt "$@"
