#!/usr/bin/env bash
# Lays out the Android library: build/libs/retryplan-kotlin-android.aar, and
# the same with its POM in build/maven/ (dev.retryplan:retryplan-kotlin-android,
# depending on JNA's aar). Run build.sh first (it compiles the classes).
#
#   ./aar.sh DIR     takes DIR/<abi>/libretryplan_uniffi.so for each Android ABI
#                    in DIR (arm64-v8a, armeabi-v7a, x86_64, x86): what
#                    `cargo ndk -o DIR build --release -p retryplan-kotlin --lib`
#                    writes (README, "Android"). Each library is checked: ELF of
#                    that ABI's machine, linked against Android's libc (bionic),
#                    not glibc. At least one ABI is required.
#   ./aar.sh --test  lays out an AAR with no ABI in a scratch directory and
#                    checks its entries, and checks that a library that is not
#                    an Android one (this machine's) is refused. test.sh runs it.
#
# An AAR is a zip: AndroidManifest.xml, classes.jar (the binding's classes:
# no JVM-only helper, no desktop library), jni/<abi>/*.so, proguard.txt (the
# keep rules JNA needs, applied to the app by R8), R.txt (no resources).
set -euo pipefail
shopt -s inherit_errexit
# DIR is read where the caller stands (the README runs this from the repository root), before the cd below.
jni_given="${1:-}"
[ -z "$jni_given" ] || [ "$jni_given" = --test ] || [ ! -d "$jni_given" ] || jni_given="$(cd "$jni_given" && pwd)"
cd "$(dirname "$0")"
HERE="$PWD"
ROOT="$(cd .. && pwd)"
BUILD="$HERE/build"
LIB=libretryplan_uniffi.so
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -1)"
# shellcheck source=maven.sh
. ./maven.sh
# The oldest Android the Rust targets support (API 21, Android 5.0).
MIN_SDK=21
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

# The ELF machine `readelf -h` names for each Android ABI.
machine_of() {
  case "$1" in
    arm64-v8a) echo "AArch64" ;;
    armeabi-v7a) echo "ARM" ;;
    x86_64) echo "Advanced Micro Devices X86-64" ;;
    x86) echo "Intel 80386" ;;
    *) return 1 ;;
  esac
}

# Refuses anything but an Android library for that ABI.
check_library() { # abi file
  local abi="$1" file="$2" want machine
  want="$(machine_of "$abi")" || { echo "aar: $abi is not an Android ABI (arm64-v8a, armeabi-v7a, x86_64, x86)" >&2; return 1; }
  machine="$(readelf -h "$file" 2>/dev/null | sed -n 's/^ *Machine: *//p')"
  if [ "$machine" != "$want" ]; then
    echo "aar: $file is ${machine:-not an ELF library}, not $want ($abi)" >&2
    return 1
  fi
  # Android's libc is libc.so; glibc's is libc.so.6 (a desktop Linux build).
  if ! readelf -d "$file" | grep -q 'Shared library: \[libc\.so\]'; then
    echo "aar: $file is not linked against Android's libc (bionic): $(readelf -d "$file" | sed -n 's/.*Shared library: \[\(libc[^]]*\)\].*/\1/p' | head -1)" >&2
    return 1
  fi
}

# layout jni-dir output.aar: lays out the AAR; prints the ABIs it holds.
layout() {
  local jni="$1" out="$2" stage abis=()
  stage="$(mktemp -d -p "$SCRATCH")"
  [ -f "$BUILD/classes/main/.key" ] || { echo "aar: run build.sh first (no compiled classes)" >&2; return 1; }
  cat >"$stage/AndroidManifest.xml" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="dev.retryplan">
    <uses-sdk android:minSdkVersion="$MIN_SDK" />
</manifest>
EOF
  cat >"$stage/proguard.txt" <<'EOF'
# JNA finds the binding's native methods and structures by reflection.
-keep class com.sun.jna.** { *; }
-keep class * implements com.sun.jna.** { *; }
-keep class dev.retryplan.** { *; }
-dontwarn java.awt.**
EOF
  : >"$stage/R.txt"
  cp "$HERE/LICENSE-MIT" "$HERE/LICENSE-APACHE" "$stage/"
  legal_files "$SCRATCH/legal"
  jar --create --file "$stage/classes.jar" -C "$BUILD/classes/main" dev -C "$BUILD/classes/main" META-INF -C "$SCRATCH/legal" META-INF
  if [ -n "$jni" ]; then
    for dir in "$jni"/*/; do
      [ -d "$dir" ] || continue
      local abi
      abi="$(basename "$dir")"
      [ -f "$dir/$LIB" ] || continue
      check_library "$abi" "$dir/$LIB" || return 1
      mkdir -p "$stage/jni/$abi"
      cp "$dir/$LIB" "$stage/jni/$abi/$LIB"
      abis+=("$abi")
    done
  fi
  rm -f "$out"
  (cd "$stage" && jar --create --no-manifest --file "$out" AndroidManifest.xml classes.jar proguard.txt R.txt LICENSE-MIT LICENSE-APACHE \
    $( [ "${#abis[@]}" -gt 0 ] && echo jni ))
  echo "${abis[*]:-}"
}

if [ "${1:-}" = "--test" ]; then
  scratch="$SCRATCH"
  layout "" "$scratch/empty.aar" >/dev/null
  entries="$(jar --list --file "$scratch/empty.aar" | sort | tr '\n' ' ')"
  [ "$entries" = "AndroidManifest.xml LICENSE-APACHE LICENSE-MIT R.txt classes.jar proguard.txt " ] || { echo "aar: entries are $entries" >&2; exit 1; }
  (cd "$scratch" && jar --extract --file empty.aar classes.jar)
  classes="$(jar --list --file "$scratch/classes.jar")"
  grep -qx 'dev/retryplan/Operation.class' <<<"$classes" || { echo "aar: classes.jar lacks the binding" >&2; exit 1; }
  grep -qx 'META-INF/LICENSE-MIT' <<<"$classes" && grep -qx 'META-INF/LICENSE-APACHE' <<<"$classes" \
    || { echo "aar: classes.jar lacks the licences" >&2; exit 1; }
  if grep -Eq '^(linux-|dev/retryplan/http/)' <<<"$classes"; then
    echo "aar: classes.jar holds a desktop library or JVM-only classes" >&2
    exit 1
  fi
  # This machine's library (glibc, x86-64) must not pass for Android's x86_64.
  mkdir -p "$scratch/jni/x86_64"
  cp "$ROOT/target/${PROFILE:-release}/$LIB" "$scratch/jni/x86_64/$LIB"
  if layout "$scratch/jni" "$scratch/fake.aar" 2>"$scratch/refusal" >/dev/null; then
    echo "aar: a desktop Linux library was accepted as Android x86_64" >&2
    exit 1
  fi
  grep -q "not linked against Android's libc" "$scratch/refusal" || { cat "$scratch/refusal" >&2; exit 1; }
  # DIR as the README gives it, relative to where the caller stands: the same refusal, not a failed cd.
  if (cd "$scratch" && "$HERE/aar.sh" jni) 2>"$scratch/relative" >/dev/null; then
    echo "aar: a desktop Linux library was accepted as Android x86_64 (DIR given relative)" >&2
    exit 1
  fi
  grep -q "not linked against Android's libc" "$scratch/relative" || { cat "$scratch/relative" >&2; exit 1; }
  echo "aar: layout checked (manifest, both licences, classes.jar without desktop parts, proguard.txt, R.txt); a glibc library is refused as an Android ABI"
  exit 0
fi

[ $# -eq 1 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
jni="$(cd "$jni_given" && pwd)"
AAR="$BUILD/libs/retryplan-kotlin-android.aar"
mkdir -p "$BUILD/libs"
abis="$(layout "$jni" "$AAR")"
if [ -z "$abis" ]; then
  rm -f "$AAR"
  echo "aar: no $LIB for any Android ABI under $jni (see the README: it needs the Android NDK)" >&2
  exit 1
fi
publish retryplan-kotlin-android aar "$AAR" "retryplan for Android (JNA; native libraries for: $abis)" \
  "$(dependency net.java.dev.jna jna "$JNA_VERSION" aar; dependency org.jetbrains.kotlin kotlin-stdlib "$KOTLIN_API.0"
     dependency org.jetbrains.kotlinx kotlinx-coroutines-core "$COROUTINES_VERSION")"
echo "built $AAR for: $abis (and $BUILD/maven/dev/retryplan/retryplan-kotlin-android/$VERSION)"
