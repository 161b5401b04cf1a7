#!/usr/bin/env bash
# Builds and tests the Kotlin binding and checks the generated Swift, from a
# fresh clone: installs what is missing (idempotently), builds the cdylib,
# generates Kotlin + Swift, compiles with kotlinc (cached by a hash of its
# inputs), packs the jar (native library inside under linux-x86-64/), runs
# the JUnit suites from that jar, then checks the Swift header and symbols.
# Outputs go to bindings-kotlin/build/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")"
HERE="$PWD"
ROOT="$(cd .. && pwd)"
BUILD="$HERE/build"
JNA=/usr/share/java/jna.jar
JUNIT=/usr/share/java/junit-platform-console-standalone.jar
KOTLIN_HOME="$HERE/node_modules/kotlin-compiler"
KOTLINC="$KOTLIN_HOME/bin/kotlinc"
STDLIB="$KOTLIN_HOME/lib/kotlin-stdlib.jar"
LIB=libretryplan_uniffi.so
step() { printf -- '--- kotlin: %s\n' "$1"; }

step "tools"
if [ ! -f "$JNA" ] || [ ! -f "$JUNIT" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjna-java junit5 >/dev/null
fi
if [ ! -x "$KOTLINC" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
command -v java >/dev/null || { echo "java (17+) is required" >&2; exit 1; }

step "cdylib and bindgen"
(cd "$ROOT" && cargo build --locked -p retryplan-kotlin --lib --bin uniffi-bindgen)
SO="$ROOT/target/debug/$LIB"
rm -rf "$BUILD/generated"
"$ROOT/target/debug/uniffi-bindgen" generate "$SO" --language kotlin --no-format --out-dir "$BUILD/generated/kotlin"
"$ROOT/target/debug/uniffi-bindgen" generate "$SO" --language swift --no-format --out-dir "$BUILD/generated/swift"

# kotlinc takes ~15 s per source set: reuse its output when nothing it reads changed.
compile() { # name output-dir classpath extra-key sources...
  local name="$1" out="$2" classpath="$3" extra="$4"
  shift 4
  local key
  key="$( { "$KOTLINC" -version 2>&1; echo "$classpath $extra"; cat "$@"; } | sha256sum | cut -c1-16)"
  if [ -f "$out/.key" ] && [ "$(cat "$out/.key")" = "$key" ]; then
    echo "$name: unchanged, reusing $out"
    return
  fi
  rm -rf "$out"
  mkdir -p "$out"
  "$KOTLINC" -nowarn -cp "$classpath" -d "$out" "$@"
  echo "$key" >"$out/.key"
}

step "compile"
mapfile -t MAIN_SOURCES < <(find "$BUILD/generated/kotlin" kotlin/main -name '*.kt' | sort)
compile main "$BUILD/classes/main" "$JNA" "" "${MAIN_SOURCES[@]}"
mapfile -t TEST_SOURCES < <(find kotlin/test kotlin/bench -name '*.kt' | sort)
# The key of the test classes includes the main classes' key, so they rebuild together.
compile test "$BUILD/classes/test" "$BUILD/classes/main:$JNA:$JUNIT" "$(cat "$BUILD/classes/main/.key")" "${TEST_SOURCES[@]}"

step "jar"
rm -rf "$BUILD/jar" && mkdir -p "$BUILD/jar/linux-x86-64" "$BUILD/libs"
cp "$SO" "$BUILD/jar/linux-x86-64/$LIB"
JAR="$BUILD/libs/retryplan-kotlin.jar"
rm -f "$JAR"
jar --create --file "$JAR" -C "$BUILD/classes/main" dev -C "$BUILD/classes/main" META-INF -C "$BUILD/jar" linux-x86-64
jar --list --file "$JAR" | grep -qx "linux-x86-64/$LIB"

step "tests (JUnit 5; the native library loads from the jar, no -Djna.library.path)"
REPORT="$BUILD/junit.txt"
set +e
java -Dretryplan.vectors="$ROOT/tests/conformance" -jar "$JUNIT" \
  --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii --fail-if-no-tests \
  -cp "$JAR:$BUILD/classes/test:$STDLIB:$JNA" \
  --select-package dev.retryplan.test 2>&1 | tee "$REPORT"
status=${PIPESTATUS[0]}
set -e
passed="$(sed -n 's/.*\[ *\([0-9]*\) tests successful *\].*/\1/p' "$REPORT")"
failed="$(sed -n 's/.*\[ *\([0-9]*\) tests failed *\].*/\1/p' "$REPORT")"
echo "kotlin: ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -ne 0 ] || [ "${passed:-0}" -eq 0 ] || [ "${failed:-1}" -ne 0 ]; then
  echo "kotlin tests failed (exit $status)" >&2
  exit 1
fi

step "swift: header parses, every declared symbol is exported"
SWIFT="$BUILD/generated/swift"
HEADER="$SWIFT/RetryplanFFI.h"
test -s "$SWIFT/Retryplan.swift" && test -s "$SWIFT/RetryplanFFI.modulemap" && test -s "$HEADER"
gcc -fsyntax-only -D_Nullable= -D_Nonnull= -x c "$HEADER"
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
