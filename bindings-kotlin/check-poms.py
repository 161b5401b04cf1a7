"""Checks the Maven repository build.sh lays out: every POM names its
coordinates and dependencies, and its artifact lies beside it.

Usage: python3 check-poms.py build/maven
"""

import pathlib
import sys
import xml.etree.ElementTree as ET

NS = {"m": "http://maven.apache.org/POM/4.0.0"}

# artifact -> (packaging, {(group, artifact, version or None for "ours", type)})
EXPECTED = {
    "retryplan-kotlin": (
        "jar",
        {
            ("net.java.dev.jna", "jna", "5.13.0", None),
            ("org.jetbrains.kotlin", "kotlin-stdlib", "2.0.0", None),
            ("org.jetbrains.kotlinx", "kotlinx-coroutines-core", "1.0.1", None),
        },
    ),
    "retryplan-kotlin-jvm": ("jar", {("dev.retryplan", "retryplan-kotlin", None, None)}),
    "retryplan-kotlin-okhttp": (
        "jar",
        {
            ("dev.retryplan", "retryplan-kotlin", None, None),
            ("com.squareup.okhttp3", "okhttp", "3.13.1", None),
        },
    ),
    "retryplan-kotlin-android": (
        "aar",
        {
            ("net.java.dev.jna", "jna", "5.13.0", "aar"),
            ("org.jetbrains.kotlin", "kotlin-stdlib", "2.0.0", None),
            ("org.jetbrains.kotlinx", "kotlinx-coroutines-core", "1.0.1", None),
        },
    ),
}


def text(node, path):
    return node.findtext(path, namespaces=NS)


def main(repository: pathlib.Path) -> None:
    checked = []
    for artifact, (packaging, dependencies) in EXPECTED.items():
        poms = sorted(repository.glob(f"dev/retryplan/{artifact}/*/{artifact}-*.pom"))
        if not poms:
            if artifact == "retryplan-kotlin-android":
                continue  # only when aar.sh ran
            sys.exit(f"poms: no POM for {artifact} under {repository}")
        for pom in poms:
            root = ET.parse(pom).getroot()
            version = text(root, "m:version")
            found = (text(root, "m:groupId"), text(root, "m:artifactId"), text(root, "m:packaging"))
            if found != ("dev.retryplan", artifact, packaging):
                sys.exit(f"poms: {pom} says {found}")
            if not (pom.parent / f"{artifact}-{version}.{packaging}").is_file():
                sys.exit(f"poms: no {packaging} beside {pom}")
            licences = [text(licence, "m:name") for licence in root.iterfind("m:licenses/m:license", NS)]
            if licences != ["MIT", "Apache-2.0"]:
                sys.exit(f"poms: {pom} names the licences {licences}, not MIT and Apache-2.0")
            deps = set()
            for dep in root.iterfind("m:dependencies/m:dependency", NS):
                group, name, dep_version = text(dep, "m:groupId"), text(dep, "m:artifactId"), text(dep, "m:version")
                ours = group == "dev.retryplan"
                if ours and dep_version != version:
                    sys.exit(f"poms: {pom} depends on {name} {dep_version}, not {version}")
                deps.add((group, name, None if ours else dep_version, text(dep, "m:type")))
            if deps != dependencies:
                sys.exit(f"poms: {pom} depends on {sorted(deps, key=str)}, expected {sorted(dependencies, key=str)}")
            checked.append(f"{artifact} {version}")
    print(f"poms: {', '.join(checked)}: coordinates, licences, artifact and dependencies as expected")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
