#!/usr/bin/env bash
# Builds the Kotlin binding from a fresh clone: installs what is missing
# (idempotently), builds the cdylib (release by default), generates Kotlin +
# Swift, compiles with kotlinc (cached by a hash of its inputs) and packs the
# jars and their POMs. Outputs go to bindings-kotlin/build/ (gitignored):
#   libs/retryplan-kotlin.jar      the binding (JVM and Android code) + linux-x86-64 library
#   libs/retryplan-kotlin-jvm.jar  JVM-only helpers (java.net.http), needs the first
#   libs/retryplan-kotlin-okhttp.jar  the OkHttp interceptor (JVM and Android), needs the first
#   maven/dev/retryplan/...        both as a Maven repository (jar + pom naming JNA)
#   generated/{kotlin,swift}/      uniffi's output
# PROFILE=debug packs the debug library instead (15 times larger; shares its
# build with cargo test).
set -euo pipefail
cd "$(dirname "$0")"
HERE="$PWD"
ROOT="$(cd .. && pwd)"
BUILD="$HERE/build"
JNA=/usr/share/java/jna.jar
JUNIT=/usr/share/java/junit-platform-console-standalone.jar
# The API floor the classes are compiled against: Debian's kotlinx-coroutines
# 1.0.1 (the API retrying needs has been stable since 1.0) and OkHttp 3.13
# (the Interceptor API OkHttp 4 and 5 keep). The tests run with newer ones.
COROUTINES=/usr/share/java/kotlinx-coroutines-core.jar
OKHTTP=/usr/share/java/okhttp.jar:/usr/share/java/okio.jar
KOTLIN_HOME="$HERE/node_modules/kotlin-compiler"
KOTLINC="$KOTLIN_HOME/bin/kotlinc"
LIB=libretryplan_uniffi.so
PROFILE="${PROFILE:-release}"
case "$PROFILE" in debug) CARGO_PROFILE=() ;; release) CARGO_PROFILE=(--release) ;; *) echo "PROFILE is debug or release" >&2; exit 2 ;; esac
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -1)"
# shellcheck source=maven.sh
. ./maven.sh
step() { printf -- '--- kotlin: %s\n' "$1"; }

step "tools"
missing=()
[ -f "$JNA" ] || missing+=(libjna-java)
[ -f "$JUNIT" ] || missing+=(junit5)
[ -f "$COROUTINES" ] || missing+=(libkotlinx-coroutines-java)
# atomicfu: Debian's coroutines jar still calls it at run time (the tests run it once that way).
[ -f /usr/share/java/atomicfu.jar ] || missing+=(libkotlinx-atomicfu-java)
[ -f /usr/share/java/okhttp.jar ] || missing+=(libokhttp-java)
command -v jar >/dev/null || missing+=(default-jdk-headless)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x "$KOTLINC" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

step "cdylib ($PROFILE) and bindgen"
# The generator is a tool: debug, shared with the workspace's debug builds.
(cd "$ROOT" && cargo build --locked -p retryplan-uniffi-bindgen)
(cd "$ROOT" && cargo build --locked "${CARGO_PROFILE[@]}" -p retryplan-kotlin --lib)
SO="$ROOT/target/$PROFILE/$LIB"
BINDGEN="$ROOT/target/debug/uniffi-bindgen"
rm -rf "$BUILD/generated"
"$BINDGEN" generate "$SO" --language kotlin --no-format --out-dir "$BUILD/generated/kotlin"
"$BINDGEN" generate "$SO" --language swift --no-format --out-dir "$BUILD/generated/swift"

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

# Driver and Operation are lean wrappers (`NoHandle` to uniffi) whose typed calls
# go through their engine object (Driver.withNative, Lean.typed). A call that
# bypasses it reaches uniffiCloneHandle() with the empty handle: raise the clear
# error of Driver.kt's noEngineObject there, not uniffi's bare InternalException.
sed -i 's/^            throw InternalException("uniffiCloneHandle() called on NoHandle object");$/            throw noEngineObject(this)/' "$GENERATED"
if [ "$(grep -c '^            throw noEngineObject(this)$' "$GENERATED")" != "$objects" ]; then
  echo "kotlin: expected one NoHandle check per object in uniffiCloneHandle(): check uniffi's ObjectTemplate.kt" >&2
  exit 1
fi

# uniffi encodes a String with a strict UTF-8 encoder, so a lone surrogate
# (UTF-16 that is no Unicode text) threw java's MalformedInputException. Make
# it the typed error the other bindings give: `InvalidArgument` naming the
# argument or record field that held it (`Text.kt`: `uniffiText`), `text`
# where no name is known. The counts make a uniffi upgrade that changes this
# code fail here.
perl -0pi -e 's/            encode\(CharBuffer\.wrap\(value\)\)\n/            try { encode(CharBuffer.wrap(value)) } catch (e: java.nio.charset.CharacterCodingException) { throw loneSurrogate("text") }\n/' "$GENERATED"
perl -pi -e 'sub snake { my $s = shift; $s =~ s/([A-Z])/_\l$1/g; $s }
  s/(FfiConverter\w*String\w*\.lower\(`(\w+)`\))/"uniffiText(\"" . snake($2) . "\") { $1 }"/ge;
  s/(FfiConverter\w*String\w*\.write\(value\.`(\w+)`, buf\))/"uniffiText(\"" . snake($2) . "\") { $1 }"/ge' "$GENERATED"
if [ "$(grep -c 'throw loneSurrogate("text")' "$GENERATED")" != 1 ] || [ "$(grep -c 'uniffiText("' "$GENERATED")" -lt 10 ]; then
  echo "kotlin: the String lowering to patch has changed: check uniffi's StringHelper.kt" >&2
  exit 1
fi

# uniffi's `message` of an error with fields is a dump of them (`field=max_attemps, code=..., blame=...,
# description=...`), which loggers and wrapping exceptions show: make it the core's words, `description`, as
# `toString()` already is (every variant carries it). The count makes a uniffi upgrade that changes this fail here.
messages="$(grep -c '^        override val message$' "$GENERATED")"
perl -pi -e 's/^            get\(\) = ".*, description=\$\{ `description` \}"$/            get() = `description`/' "$GENERATED"
if [ "$messages" -lt 10 ] || [ "$(grep -c '^            get() = `description`$' "$GENERATED")" != "$messages" ]; then
  echo "kotlin: expected every error's message to end with its description ($messages messages): check uniffi's ErrorTemplate.kt" >&2
  exit 1
fi

# uniffi loads the library by its name, which JNA extracts from the jar again
# on every start: load what Library.kt finds (a copy kept in the user's cache).
sed -i 's/^    return "retryplan_uniffi"$/    return LIBRARY/' "$GENERATED"
if [ "$(grep -c '^    return LIBRARY$' "$GENERATED")" != 1 ]; then
  echo "kotlin: uniffi's findLibraryName has changed: check its NamespaceLibraryTemplate.kt" >&2
  exit 1
fi

# wireTables() is deprecated (src/wire.rs: no binding reads it, removed in the
# next release); uniffi has no deprecation attribute, so mark the generated function.
DEPRECATED='@Deprecated("No binding reads it any more; the tables are fixed per wire version: core/src/driver/wire.md. Removed in the next release.")' \
  perl -pi -e 's/^(\s*\*\/) fun `wireTables`\(\): WireTables \{$/$1 $ENV{DEPRECATED} fun `wireTables`(): WireTables {/' "$GENERATED"
if [ "$(grep -c '@Deprecated("No binding reads it any more' "$GENERATED")" != 1 ]; then
  echo "kotlin: the generated wireTables() to deprecate has changed: check uniffi's TopLevelFunctionTemplate.kt" >&2
  exit 1
fi

# Policy.repeatabilityForHttp is deprecated (src/policy.rs: Policy.httpRequest is the one entry point,
# removed in the next release): mark the interface's declaration and the class's override.
DEPRECATED='@Deprecated("Use httpRequest(method, idempotent).repeatability(): the one entry point, which reads the request key too. Removed in the next release.", ReplaceWith("httpRequest(method, idempotent).repeatability()"))' \
  perl -pi -e 's/^(\s*(?:\@Throws\(RetryplanException::class\))?(?:override )?)fun `repeatabilityForHttp`\(/$1$ENV{DEPRECATED} fun `repeatabilityForHttp`(/' "$GENERATED"
if [ "$(grep -c 'fun `repeatabilityForHttp`' "$GENERATED")" != 2 ] || [ "$(grep -c ')) fun `repeatabilityForHttp`' "$GENERATED")" != 2 ]; then
  echo "kotlin: the generated repeatabilityForHttp to deprecate has changed: check uniffi's ObjectTemplate.kt" >&2
  exit 1
fi

# Lambdas and SAM conversions as classes, not invokedynamic: a process's first
# retrying {} then spins no LambdaMetafactory (about 5-10 ms of CPU at its first
# call, measured; 33 small classes more in the jar). D8 desugars either on Android.
KOTLINC_FLAGS=(-Xlambdas=class -Xsam-conversions=class)
# kotlinc takes ~15 s per source set: reuse its output when nothing it reads changed.
compile() { # module-name output-dir classpath extra-key sources...  (FRIENDS: modules whose internals it sees)
  local name="$1" out="$2" classpath="$3" extra="$4" friends=()
  [ -z "${FRIENDS:-}" ] || friends=("-Xfriend-paths=$FRIENDS")
  shift 4
  local key
  key="$( { "$KOTLINC" -version 2>&1; echo "$classpath $extra $KOTLIN_API ${KOTLINC_FLAGS[*]}"; cat "$@"; } | sha256sum | cut -c1-16)"
  if [ -f "$out/.key" ] && [ "$(cat "$out/.key")" = "$key" ]; then
    echo "$name: unchanged, reusing $out"
    return
  fi
  rm -rf "$out"
  mkdir -p "$out"
  "$KOTLINC" -nowarn -Xsuppress-version-warnings "${KOTLINC_FLAGS[@]}" -module-name "$name" -api-version "$KOTLIN_API" -language-version "$KOTLIN_API" \
    "${friends[@]}" -cp "$classpath" -d "$out" "$@"
  echo "$key" >"$out/.key"
}

step "compile"
# main: what runs on the JVM and on Android; jvm: what needs the JDK (java.net.http);
# okhttp: the interceptor. The helpers' modules see main's internals (the host loop).
mapfile -t MAIN_SOURCES < <(find "$BUILD/generated/kotlin" kotlin/main -name '*.kt' | sort)
compile retryplan-kotlin "$BUILD/classes/main" "$JNA:$COROUTINES" "" "${MAIN_SOURCES[@]}"
MAIN_KEY="$(cat "$BUILD/classes/main/.key")"
mapfile -t JVM_SOURCES < <(find kotlin/jvm -name '*.kt' | sort)
FRIENDS="$BUILD/classes/main" compile retryplan-kotlin-jvm "$BUILD/classes/jvm" "$BUILD/classes/main:$JNA:$COROUTINES" "$MAIN_KEY" "${JVM_SOURCES[@]}"
mapfile -t OKHTTP_SOURCES < <(find kotlin/okhttp -name '*.kt' | sort)
FRIENDS="$BUILD/classes/main" compile retryplan-kotlin-okhttp "$BUILD/classes/okhttp" "$BUILD/classes/main:$JNA:$COROUTINES:$OKHTTP" \
  "$MAIN_KEY" "${OKHTTP_SOURCES[@]}"
mapfile -t TEST_SOURCES < <(find kotlin/test kotlin/bench kotlin/examples -name '*.kt' | sort)
# The key of the test classes includes the others' keys, so they rebuild together.
# The tests see main's internals (Library.kt's cache), as a module's own tests do.
FRIENDS="$BUILD/classes/main" compile retryplan-kotlin-test "$BUILD/classes/test" "$BUILD/classes/main:$BUILD/classes/jvm:$BUILD/classes/okhttp:$JNA:$COROUTINES:$OKHTTP:$JUNIT" \
  "$(cat "$BUILD/classes/main/.key" "$BUILD/classes/jvm/.key" "$BUILD/classes/okhttp/.key")" "${TEST_SOURCES[@]}"

step "jars and POMs"
rm -rf "$BUILD/jar" && mkdir -p "$BUILD/jar/linux-x86-64" "$BUILD/libs"
cp "$SO" "$BUILD/jar/linux-x86-64/$LIB"
# The jar's copy without its symbol table and debug sections (2.2 -> 1.7 MB):
# JNA needs only the dynamic symbols, which strip keeps; bindgen and test.sh's
# export check read the unstripped $SO.
strip --strip-unneeded "$BUILD/jar/linux-x86-64/$LIB"
JAR="$BUILD/libs/retryplan-kotlin.jar"
JVM_JAR="$BUILD/libs/retryplan-kotlin-jvm.jar"
OKHTTP_JAR="$BUILD/libs/retryplan-kotlin-okhttp.jar"
rm -f "$JAR" "$JVM_JAR" "$OKHTTP_JAR"
# Every jar carries both licences (META-INF/LICENSE-MIT, META-INF/LICENSE-APACHE).
legal_files "$BUILD/legal"
jar --create --file "$JAR" -C "$BUILD/classes/main" dev -C "$BUILD/classes/main" META-INF -C "$BUILD/legal" META-INF -C "$BUILD/jar" linux-x86-64
jar --create --file "$JVM_JAR" -C "$BUILD/classes/jvm" dev -C "$BUILD/classes/jvm" META-INF -C "$BUILD/legal" META-INF
jar --create --file "$OKHTTP_JAR" -C "$BUILD/classes/okhttp" dev -C "$BUILD/classes/okhttp" META-INF -C "$BUILD/legal" META-INF
jar --list --file "$JAR" | grep -qx "linux-x86-64/$LIB"
for packed in "$JAR" "$JVM_JAR" "$OKHTTP_JAR"; do
  for licence in LICENSE-MIT LICENSE-APACHE; do
    jar --list --file "$packed" | grep -qx "META-INF/$licence" || { echo "kotlin: $packed lacks META-INF/$licence" >&2; exit 1; }
  done
done
if jar --list --file "$JAR" | grep -q '^dev/retryplan/\(http\|okhttp\)/'; then
  echo "kotlin: JVM-only classes leaked into $JAR" >&2
  exit 1
fi
publish retryplan-kotlin jar "$JAR" "retryplan for Kotlin on the JVM (JNA; the Linux x86-64 library inside)" \
  "$(dependency net.java.dev.jna jna "$JNA_VERSION"; dependency org.jetbrains.kotlin kotlin-stdlib "$KOTLIN_API.0"
     dependency org.jetbrains.kotlinx kotlinx-coroutines-core "$COROUTINES_VERSION")"
publish retryplan-kotlin-jvm jar "$JVM_JAR" "retryplan helpers that need the JDK (java.net.http), not Android" \
  "$(dependency dev.retryplan retryplan-kotlin "$VERSION")"
publish retryplan-kotlin-okhttp jar "$OKHTTP_JAR" "retryplan's OkHttp interceptor (JVM and Android)" \
  "$(dependency dev.retryplan retryplan-kotlin "$VERSION"; dependency com.squareup.okhttp3 okhttp "$OKHTTP_VERSION")"
echo "built $JAR ($PROFILE, $(du -k "$JAR" | cut -f1) KB), $JVM_JAR, $OKHTTP_JAR and $BUILD/maven"
