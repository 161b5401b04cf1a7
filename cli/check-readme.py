#!/usr/bin/env python3
"""Runs every `retryplan` command the READMEs show, and compares the output they show.

For each README with ```sh or ```text blocks registered to the CLI in
scripts/readme_snippets.py:

- a ```sh block holds only `retryplan ...` or `cargo run ... -p retryplan-cli
  -- ...` commands (a trailing `# comment` allowed); each runs from the
  repository root with the release binary and must exit 0. Any other line
  fails: a block that is not the CLI's is marked `<!-- not-tested: reason -->`;
- a ```text block starts with `$ retryplan ...`; the command runs in
  cli/tests/fixtures (where the files it names live) and its output must be the
  block's lines, in order; a shown line ending in `...` stands for any line
  starting with the text before it.

Then the figures the READMEs' prose quotes from the main job
(examples/checkout.json, and the same plan with 300 ms attempts) are
computed from `simulate --json` and must appear, as written there, in the
README that quotes them (whitespace and line breaks aside): a change to the
simulator that moves a figure fails here instead of leaving the prose stale.

Usage: python3 cli/check-readme.py TARGET/release/retryplan
"""

import importlib.util
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "cli/tests/fixtures"

spec = importlib.util.spec_from_file_location("readme_snippets", ROOT / "scripts/readme_snippets.py")
assert spec is not None and spec.loader is not None
snippets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippets)


def arguments(line: str, where: str) -> List[str]:
    """The CLI arguments of one README command line."""
    words = shlex.split(line, comments=True)
    if words[:1] == ["retryplan"]:
        return words[1:]
    if words[:2] == ["cargo", "run"] and "-p" in words and "--" in words:
        if words[words.index("-p") + 1] == "retryplan-cli":
            return words[words.index("--") + 1 :]
    raise SystemExit(f"{where}: `{line}` is not a retryplan command: mark the block `<!-- not-tested: reason -->`")


def matches(shown: List[str], printed: List[str]) -> bool:
    if len(shown) != len(printed):
        return False
    return all(p == s or (s.endswith("...") and p.startswith(s[:-3])) for s, p in zip(shown, printed, strict=True))


def simulated(binary: Path, plan: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Each variant of `retryplan simulate --json` on this plan, by name."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "plan.json"
        path.write_text(json.dumps(plan))
        run = subprocess.run(
            [str(binary), "simulate", str(path), "--json", "--no-svg"], capture_output=True, text=True, check=False
        )
    if run.returncode != 0:
        raise SystemExit(f"cli readme: simulate failed:\n{run.stderr}")
    report = json.loads(run.stdout)
    return {variant["name"]: {**variant, "capacity": report["capacity_per_second"]} for variant in report["variants"]}


def restart_seconds(variant: Dict[str, Any], count: int) -> List[int]:
    """Successes in the second holding the restart, then in the seconds after it."""
    restart_ms = variant["zoom"]["restart_ms"]
    buckets = variant["buckets"]
    first = next(index for index, bucket in enumerate(buckets) if bucket["start_ms"] + 1000 > restart_ms)
    return [bucket["succeeded"] for bucket in buckets[first : first + count]]


def quoted_figures(binary: Path) -> Dict[str, List[str]]:
    """The phrases each README writes with the main job's figures, as a run prints them today."""
    plan = json.loads((ROOT / "examples/checkout.json").read_text())
    main = simulated(binary, plan)
    plan["policy"]["attempt_timeout"] = {"fixed_ms": 300}
    slow = simulated(binary, plan)

    def summary(variants: Dict[str, Dict[str, Any]], name: str) -> Dict[str, Any]:
        return variants[name]["summary"]

    def peak(variants: Dict[str, Dict[str, Any]], name: str) -> str:
        return f"{summary(variants, name)['peak_attempts_per_second']:,.0f}"

    def amplification(name: str) -> str:
        return f"{summary(main, name)['amplification']:.2f}"

    def succeeded(name: str) -> str:
        return f"{summary(main, name)['success_rate'] * 100:.1f}"

    def endings(name: str) -> str:
        """The give-up reasons the variant's outermost layer counts, most first, as the README lists them."""
        counts = sorted(((n, r) for r, n in summary(main, name)["gave_up"].items() if n), reverse=True)
        return " or ".join(f"`{reason}`" for _, reason in counts)

    written = summary(main, "as-written")
    recovery = written["recovery"]
    recovered = f"{(recovery['recovered_at_ms'] - recovery['trigger_end_ms']) / 1000:.1f} s"
    per_10ms = f"{main['as-written']['capacity'] / 100:.0f}"
    burst, wave = written["peak_attempts_in_10ms"], summary(main, "no-jitter")["peak_attempts_in_10ms"]
    ratio = summary(main, "layered")["peak_attempts_per_second"] / written["peak_attempts_per_second"]
    layered, single = peak(main, "layered"), peak(main, "as-written")
    served, layered_restart = restart_seconds(slow["propagated"], 1)[0], restart_seconds(slow["layered"], 3)
    return {
        "README.md": [
            f"**as-written** recovers {recovered} after the stall, with {amplification('as-written')} attempts per "
            f"checkout and {succeeded('as-written')} % of checkouts succeeding",
            f"{wave} attempts where the dependency serves {per_10ms} per 10 ms, while with jitter the largest 10 ms "
            f"burst of the whole run is {burst}",
            f"**no-budget** retries into the stall at {amplification('no-budget')} attempts per checkout",
            f"METASTABLE, {succeeded('no-budget')} % succeed",
            f"peaks at {layered} attempts/s ({ratio:.1f} times the single layer's {single}/s)",
            f"the outermost layer ends it {endings('propagated')}: {peak(main, 'propagated')} attempts/s at peak, "
            f"{succeeded('propagated')} % succeed",
            f"({summary(main, 'layered')['served_late']:,} requests served after their client had left)",
            f"propagated peaks at {peak(slow, 'propagated')}/s, as a single layer does "
            f"(layered: {peak(slow, 'layered')}/s)",
            f"{served:,} checkouts succeed in the restart's second where layered manages "
            f"{layered_restart[0]:,}, then {layered_restart[1]:,}, then {layered_restart[2]:,} in the next two",
        ],
        "cli/README.md": [
            f"`as-written` recovers {recovered} after the stall ({amplification('as-written')} attempts per "
            f"operation, {succeeded('as-written')} % succeed)",
            f"{wave} attempts where the dependency serves {per_10ms} per 10 ms (with jitter the largest 10 ms burst "
            f"of the whole run is {burst})",
            f"`no-budget`: {amplification('no-budget')} attempts per operation",
            f"METASTABLE, {succeeded('no-budget')} % succeed",
            f"the load peaks at {layered}/s, {ratio:.1f} times the single layer's {single}/s",
        ],
    }


def check_figures(binary: Path) -> int:
    """Every figure the READMEs quote from the main job is what a run prints; how many were checked."""
    count, stale = 0, []
    for readme, phrases in quoted_figures(binary).items():
        text = re.sub(r"\s+", " ", (ROOT / readme).read_text())
        stale += [f"{readme}: {phrase}" for phrase in phrases if phrase not in text]
        count += len(phrases)
    if stale:
        raise SystemExit(
            "cli readme: a run of the main job (examples/checkout.json; 300 ms attempts for the propagated "
            "sentence) prints other figures than the READMEs quote; they should read:\n  " + "\n  ".join(stale)
        )
    return count


def main() -> None:
    binary = Path(sys.argv[1]).resolve()
    commands = shown = 0
    seen = set()
    for path, langs in snippets.RUNNERS.items():
        # Only the READMEs whose sh/text blocks are the CLI's (another suite runs, say, Kotlin's `java -cp`).
        langs = {lang: runner for lang, runner in langs.items() if runner.startswith("cli/test.sh")}
        for block in snippets.blocks(path, "sh") if "sh" in langs else []:
            lines = [line for line in block.code.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            if not lines:
                raise SystemExit(f"{block.where}: an empty sh block")
            for line in lines:
                args = arguments(line, block.where)
                commands += 1
                if tuple(args) in seen:  # the same command shown twice runs once
                    continue
                seen.add(tuple(args))
                run = subprocess.run([str(binary), *args], cwd=ROOT, capture_output=True, text=True)
                if run.returncode != 0:
                    raise SystemExit(
                        f"{block.where}: `retryplan {' '.join(args)}` exited {run.returncode}:\n"
                        f"{run.stdout}{run.stderr}"
                    )
        for block in snippets.blocks(path, "text") if "text" in langs else []:
            first, *expected = block.code.splitlines()
            if not first.startswith("$ "):
                raise SystemExit(f"{block.where}: a text block that does not start with `$ retryplan ...`")
            args = arguments(first[2:], block.where)
            run = subprocess.run([str(binary), *args], cwd=FIXTURES, capture_output=True, text=True)
            printed = (run.stdout + run.stderr).splitlines()
            if run.returncode not in (0, 1) or not matches(expected, printed):
                raise SystemExit(
                    f"{block.where}: `{first[2:]}` (in cli/tests/fixtures) exited {run.returncode} and "
                    f"printed\n" + "\n".join(printed) + "\nwhere the README shows\n" + "\n".join(expected)
                )
            shown += 1
    if not commands or not shown:
        raise SystemExit("cli readme: no command found in the READMEs")
    figures = check_figures(binary)
    print(
        f"cli readme: {commands} commands run ({len(seen)} distinct), {shown} shown output(s) compared, "
        f"{figures} phrases with the main job's figures found"
    )


if __name__ == "__main__":
    main()
