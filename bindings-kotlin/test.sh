#!/usr/bin/env bash
# Builds (build.sh, release library), runs the JUnit suites from the jars,
# checks the POMs and the AAR layout (aar.sh --test), and checks the generated
# Swift: the header parses and every function it declares is exported by the
# library. This is what scripts/test-all.sh runs.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
HERE="$PWD"
ROOT="$(cd .. && pwd)"
BUILD="$HERE/build"
JNA=/usr/share/java/jna.jar
JUNIT=/usr/share/java/junit-platform-console-standalone.jar
STDLIB="$HERE/node_modules/kotlin-compiler/lib/kotlin-stdlib.jar"
JAR="$BUILD/libs/retryplan-kotlin.jar"
JVM_JAR="$BUILD/libs/retryplan-kotlin-jvm.jar"
OKHTTP_JAR="$BUILD/libs/retryplan-kotlin-okhttp.jar"
OKHTTP=/usr/share/java/okhttp.jar:/usr/share/java/okio.jar
# The classes are compiled against coroutines 1.0.1 (Debian's); the suite runs
# with 1.8.0 (the one the Kotlin compiler ships), what a current app brings,
# and the helper tests (the late-results stress included) run again with 1.0.1
# itself (which needs atomicfu).
COROUTINES_NEW="$HERE/node_modules/kotlin-compiler/lib/kotlinx-coroutines-core-jvm.jar"
COROUTINES_OLD=/usr/share/java/kotlinx-coroutines-core.jar:/usr/share/java/atomicfu.jar
LIB=libretryplan_uniffi.so
SO="$ROOT/target/${PROFILE:-release}/$LIB"
step() { printf -- '--- kotlin: %s\n' "$1"; }

step "no import cycle among the modules of src/"
python3 "$ROOT/scripts/check_module_cycles.py" src

step "swift: header parses, every declared symbol is exported"
SWIFT="$BUILD/generated/swift"
HEADER="$SWIFT/RetryplanFFI.h"
test -s "$SWIFT/Retryplan.swift" && test -s "$SWIFT/RetryplanFFI.modulemap" && test -s "$HEADER"
# Included from a file, as a C user would; the nullability keywords are clang's.
echo '#include "RetryplanFFI.h"' | gcc -fsyntax-only -Werror -D_Nullable= -D_Nonnull= -I "$SWIFT" -x c -
grep -oE '\b(uniffi|ffi)_[A-Za-z0-9_]+[[:space:]]*\(' "$HEADER" | tr -d '( \t' | sort -u >"$BUILD/swift-declared.txt"
nm -D --defined-only "$SO" | awk '{print $NF}' | sort -u >"$BUILD/so-exported.txt"
missing="$(comm -23 "$BUILD/swift-declared.txt" "$BUILD/so-exported.txt")"
declared="$(wc -l <"$BUILD/swift-declared.txt")"
if [ -n "$missing" ] || [ "$declared" -lt 50 ]; then
  echo "swift: $declared declared; not exported by $LIB:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "swift: header parses; all $declared declared functions are exported by $LIB"

step "packaging: the AAR layout and the POMs; the README's examples are the compiled ones"
./aar.sh --test
python3 check-poms.py "$BUILD/maven"
python3 check-examples.py

step "the README's classpath command, as written (bindings-kotlin/README.md, \"Using the jar\")"
CLASSPATH_DIR="$BUILD/classpath"
rm -rf "$CLASSPATH_DIR" && mkdir -p "$CLASSPATH_DIR"
cp "$JAR" "$JVM_JAR" "$OKHTTP_JAR" "$CLASSPATH_DIR/"
# Debian's coroutines 1.0.1, which needs atomicfu at run time (the case the README names).
for jar in jna kotlinx-coroutines-core atomicfu okhttp okio; do cp "/usr/share/java/$jar.jar" "$CLASSPATH_DIR/$jar.jar"; done
cp "$STDLIB" "$CLASSPATH_DIR/kotlin-stdlib.jar"
jar --create --file "$CLASSPATH_DIR/app.jar" -C "$BUILD/classes/test" com/example
command="$(python3 "$ROOT/scripts/readme_snippets.py" extract sh bindings-kotlin/README.md \
  | python3 -c 'import json, sys; found = [b["code"] for b in json.load(sys.stdin) if b["code"].startswith("java -cp ")]
assert len(found) == 1, found; print(found[0])')"
printed="$(cd "$CLASSPATH_DIR" && bash -euo pipefail -c "$command" 2>&1)" || { echo "kotlin: the README's \`$command\` failed:" >&2; echo "$printed" >&2; exit 1; }
grep -q '^classpath ok' <<<"$printed" || { echo "kotlin: the README's command printed: $printed" >&2; exit 1; }
echo "kotlin: the README's classpath command ran: $printed"

step "tests (JUnit 5; the native library loads from the jar, no -Djna.library.path)"
REPORT="$BUILD/junit.txt"
# junit COROUTINES-CLASSPATH SELECTOR...: runs the suite on that kotlinx-coroutines, printing its tree.
junit() {
  local coroutines="$1"
  shift
  # java.net.http follows at most 4 redirects (jdk.httpclient.redirects.retrylimit=5), then returns the 3xx; the
  # redirect scenario runs it with OkHttp's 20 follow-ups (README: "Redirects").
  java -Dretryplan.vectors="$ROOT/tests/conformance" -Djdk.httpclient.redirects.retrylimit=21 -jar "$JUNIT" \
    --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii --fail-if-no-tests \
    -cp "$JAR:$JVM_JAR:$OKHTTP_JAR:$BUILD/classes/test:$STDLIB:$JNA:$coroutines:$OKHTTP" "$@" 2>&1
}
# The two runs at once, in two JVMs (most of their time is spent waiting on local servers and real timeouts): the
# suite's printed as it runs, the floor's into its own file, shown once both ended, so no line of the two is mixed.
set +e
junit "$COROUTINES_OLD" --select-class dev.retryplan.test.SuspendRetryingTest \
  --select-class dev.retryplan.test.HelperScenariosTest --select-class dev.retryplan.test.LateResultsTest \
  --select-class dev.retryplan.test.ReadmeExamplesTest --select-class dev.retryplan.test.ReturnedBodyTest \
  --select-class dev.retryplan.test.OutcomeOfResultTest >"$REPORT.floor" &
floor=$!
junit "$COROUTINES_NEW" --select-package dev.retryplan.test | tee "$REPORT.all"
status=${PIPESTATUS[0]}
wait "$floor"
status_old=$?
set -e
echo "--- kotlin: the helper tests again with kotlinx-coroutines 1.0.1 (the API floor), run beside the above"
cat "$REPORT.floor"
cat "$REPORT.all" "$REPORT.floor" >"$REPORT"
passed="$(sed -n 's/.*\[ *\([0-9]*\) tests successful *\].*/\1/p' "$REPORT" | awk '{ s += $1 } END { print s + 0 }')"
failed="$(sed -n 's/.*\[ *\([0-9]*\) tests failed *\].*/\1/p' "$REPORT" | awk '{ s += $1 } END { print s + 0 }')"
echo "kotlin: ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -ne 0 ] || [ "$status_old" -ne 0 ] || [ "${passed:-0}" -eq 0 ] || [ "${failed:-1}" -ne 0 ]; then
  echo "kotlin tests failed (exit $status, $status_old)" >&2
  exit 1
fi
