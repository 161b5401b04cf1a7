#!/usr/bin/env bash
# Builds the Kotlin binding from a fresh clone: installs what is missing
# (idempotently), builds the cdylib, generates Kotlin + Swift, compiles with
# kotlinc (cached by a hash of its inputs) and packs the jar with the native
# library inside under linux-x86-64/. Outputs go to bindings-kotlin/build/
# (gitignored): libs/retryplan-kotlin.jar, generated/{kotlin,swift}/. PROFILE=release packs an
# optimised library (the default, debug, shares its build with cargo test).
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
PROFILE="${PROFILE:-debug}"
case "$PROFILE" in debug) CARGO_PROFILE=() ;; release) CARGO_PROFILE=(--release) ;; *) echo "PROFILE is debug or release" >&2; exit 2 ;; esac
step() { printf -- '--- kotlin: %s\n' "$1"; }

step "tools"
missing=()
[ -f "$JNA" ] || missing+=(libjna-java)
[ -f "$JUNIT" ] || missing+=(junit5)
command -v jar >/dev/null || missing+=(default-jdk-headless)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x "$KOTLINC" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

step "cdylib and bindgen"
(cd "$ROOT" && cargo build --locked "${CARGO_PROFILE[@]}" -p retryplan-kotlin --lib --bin uniffi-bindgen)
SO="$ROOT/target/$PROFILE/$LIB"
rm -rf "$BUILD/generated"
"$ROOT/target/$PROFILE/uniffi-bindgen" generate "$SO" --language kotlin --no-format --out-dir "$BUILD/generated/kotlin"
"$ROOT/target/$PROFILE/uniffi-bindgen" generate "$SO" --language swift --no-format --out-dir "$BUILD/generated/swift"

# uniffi 0.32 lowers an object passed as an argument (a Policy to Operation(...),
# a Dependency in OperationOptions, a BreakerPermit to onSuccess) by cloning its
# handle without the check its own methods make, so a destroyed object reached
# freed memory. Lower it under that same guard (`callWithHandle`: refuses a
# destroyed object, keeps it alive while cloning). The count check makes a
# uniffi upgrade that changes this code fail here, not silently.
GENERATED="$BUILD/generated/kotlin/dev/retryplan/retryplan_uniffi.kt"
objects="$(grep -c '^open class [A-Za-z]*: Disposable, AutoCloseable' "$GENERATED")"
unguarded="$(grep -c '^        return value\.uniffiCloneHandle()$' "$GENERATED" || true)"
if [ "$objects" -lt 1 ] || [ "$unguarded" != "$objects" ]; then
  echo "kotlin: expected one unguarded lower() per object ($objects objects, $unguarded found): check uniffi's ObjectTemplate.kt" >&2
  exit 1
fi
sed -i 's/^        return value\.uniffiCloneHandle()$/        return value.callWithHandle { it }/' "$GENERATED"

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
echo "built $JAR ($PROFILE)"
