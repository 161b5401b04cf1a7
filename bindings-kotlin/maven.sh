# Sourced by build.sh and aar.sh: POMs and a Maven repository layout
# (build/maven/dev/retryplan/<artifact>/<version>/), which Gradle and Maven
# read as `maven { url = uri(".../build/maven") }`. Needs VERSION and BUILD.

# What the POMs name: JNA is the version Debian ships and the tests run with;
# the classes are compiled for Kotlin $KOTLIN_API (an app's kotlin-stdlib must
# be at least that).
JNA_VERSION=5.13.0
KOTLIN_API=2.0
# The oldest versions the classes are compiled against (an app may bring any
# later 1.x coroutines and OkHttp 3.13 to 5: see the README).
COROUTINES_VERSION=1.0.1
OKHTTP_VERSION=3.13.1

# dependency group artifact version [type]
dependency() {
  echo "    <dependency>"
  echo "      <groupId>$1</groupId>"
  echo "      <artifactId>$2</artifactId>"
  echo "      <version>$3</version>"
  if [ -n "${4:-}" ]; then echo "      <type>$4</type>"; fi
  echo "    </dependency>"
}

# pom artifact packaging description dependencies-xml
pom() {
  cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.retryplan</groupId>
  <artifactId>$1</artifactId>
  <version>$VERSION</version>
  <packaging>$2</packaging>
  <name>$1</name>
  <description>$3</description>
  <licenses>
    <license>
      <name>MIT</name>
      <url>https://opensource.org/licenses/MIT</url>
      <comments>MIT OR Apache-2.0, at your option (LICENSE-MIT, LICENSE-APACHE in META-INF)</comments>
    </license>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
      <comments>MIT OR Apache-2.0, at your option (LICENSE-MIT, LICENSE-APACHE in META-INF)</comments>
    </license>
  </licenses>
  <dependencies>
$4
  </dependencies>
</project>
EOF
}

# legal_files DIR: DIR/META-INF/LICENSE-MIT and LICENSE-APACHE (the package's
# own copies), for `jar -C DIR META-INF`.
legal_files() {
  rm -rf "$1" && mkdir -p "$1/META-INF"
  cp "$HERE/LICENSE-MIT" "$HERE/LICENSE-APACHE" "$1/META-INF/"
}

# publish artifact packaging file description dependencies-xml
publish() {
  local dir="$BUILD/maven/dev/retryplan/$1/$VERSION"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$3" "$dir/$1-$VERSION.$2"
  pom "$1" "$2" "$4" "$5" >"$dir/$1-$VERSION.pom"
}
