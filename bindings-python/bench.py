"""Benchmark of the Python binding (a script, not a test).

Run it with ``bindings-python/bench.sh``: that builds the wheel and installs
it with tenacity, stamina and urllib3 into a bench-only venv. In one run it
reports:

* one engine decision call (``Operation.poll`` and ``on_outcome``) in ns;
* the retry loop's overhead per attempt with sleeping disabled, for
  ``retryplan.retry``, ``retryplan.attempts``, tenacity, stamina, urllib3's
  ``Retry.increment`` loop and a hand-written loop, each over the same
  function that fails 4 times and then succeeds;
* the time ``import retryplan`` adds to a fresh interpreter.

Goals: decision <= 500 ns; per-attempt overhead <= 1/10 of tenacity's;
import <= 10 ms.
"""

import gc
import re
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List

import retryplan

ATTEMPTS = 5  # 4 failures, then a success
ROUNDS = 7


class Flaky(Exception):
    """The failure the benchmarked function raises."""


def best_ns(fn: Callable[[], None], number: int) -> float:
    """The best per-call time of ``fn`` in ns over ROUNDS rounds of ``number`` calls."""
    results = []
    for _ in range(ROUNDS):
        gc.disable()
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter_ns() - start
        gc.enable()
        results.append(elapsed / number)
    return min(results)


def decision_ns() -> Dict[str, float]:
    policy = retryplan.Policy(jitter={"kind": "none"})
    op = retryplan.Operation(policy, 0.0, seed=1)
    start = op.poll(0.0)
    op.on_outcome(0.001, start.attempt, retryplan.Outcome.http_status(503))  # now waiting until 0.101
    poll = op.poll
    poll_ns = best_ns(lambda: poll(0.05), 200_000)
    unavailable = retryplan.Outcome.http_status(503)

    def cycle() -> None:
        o = retryplan.Operation(policy, 0.0, seed=1)
        d = o.poll(0.0)
        o.on_outcome(0.001, d.attempt, unavailable)

    cycle_ns = best_ns(cycle, 50_000)
    outcome_ns = best_ns(lambda: retryplan.Outcome.http_status(503), 200_000)
    return {"poll (a Wait)": poll_ns, "new+poll+on_outcome": cycle_ns, "Outcome.http_status": outcome_ns}


class Counter:
    """A function that fails ATTEMPTS-1 times per call cycle, then succeeds."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> int:
        self.n += 1
        if self.n % ATTEMPTS:
            raise Flaky()
        return self.n


def loops() -> Dict[str, Callable[[], object]]:
    """One callable per library, each running one operation of ATTEMPTS attempts without sleeping."""
    made: Dict[str, Callable[[], object]] = {}

    # A hand-written loop: the floor.
    f0 = Counter()

    def hand() -> object:
        for attempt in range(ATTEMPTS):
            try:
                return f0()
            except Flaky:
                if attempt == ATTEMPTS - 1:
                    raise
        return None

    made["hand-written loop"] = hand

    # retryplan: a clock that advances only when the helper "sleeps".
    policy = retryplan.Policy(max_attempts=ATTEMPTS, jitter={"kind": "none"}, backoff={"base_ms": 1, "cap_ms": 1})
    now = [0.0]

    def clock() -> float:
        return now[0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    retried = retryplan.AttemptFailed(retryplan.Outcome.application("retryable"))

    def outcome_of_exception(exc: BaseException) -> retryplan.Outcome:
        return retried.outcome

    f1 = Counter()
    # seed=None (the default): every operation draws its seed and key from the OS, as in production.
    made["retryplan.retry"] = retryplan.retry(policy, clock=clock, sleep=sleep, outcome_of_exception=outcome_of_exception)(
        f1
    )

    f2 = Counter()

    def attempt_loop() -> object:
        for attempt in retryplan.attempts(policy, clock=clock, sleep=sleep, outcome_of_exception=outcome_of_exception):
            with attempt:
                return f2()
        return None

    made["retryplan.attempts"] = attempt_loop

    try:
        import tenacity

        f3 = Counter()
        made["tenacity"] = tenacity.retry(
            stop=tenacity.stop_after_attempt(ATTEMPTS),
            wait=tenacity.wait_none(),
            sleep=lambda seconds: None,
            retry=tenacity.retry_if_exception_type(Flaky),
            reraise=True,
        )(f3)
    except ImportError:
        print("tenacity not installed: skipped", file=sys.stderr)

    try:
        import stamina
        import stamina.instrumentation

        stamina.instrumentation.set_on_retry_hooks([])
        f4 = Counter()
        made["stamina"] = stamina.retry(
            on=Flaky, attempts=ATTEMPTS, timeout=None, wait_initial=0, wait_max=0, wait_jitter=0
        )(f4)
    except ImportError:
        print("stamina not installed: skipped", file=sys.stderr)

    try:
        from urllib3.util.retry import Retry

        f5 = Counter()

        def urllib3_loop() -> object:
            retry = Retry(total=ATTEMPTS - 1, backoff_factor=0)
            while True:
                try:
                    return f5()
                except Flaky as error:
                    retry = retry.increment(method="GET", url="/", error=error)  # raises when exhausted

        made["urllib3 Retry.increment"] = urllib3_loop
    except ImportError:
        print("urllib3 not installed: skipped", file=sys.stderr)
    return made


def import_ms() -> Dict[str, float]:
    """Import time of retryplan in a fresh interpreter: -X importtime, and wall time over `pass`."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import retryplan"], capture_output=True, text=True, check=True
    ).stderr
    cumulative = [int(m.group(1)) for m in re.finditer(r"\|\s*(\d+)\s*\|\s*retryplan\s*$", out, re.M)]

    def wall(code: str) -> float:
        runs = []
        for _ in range(15):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs) * 1000

    return {
        "-X importtime (cumulative)": cumulative[-1] / 1000 if cumulative else float("nan"),
        "wall, median of 15 (minus bare interpreter)": wall("import retryplan") - wall("pass"),
    }


def main() -> None:
    print(f"retryplan {retryplan.__version__} on Python {sys.version.split()[0]}")
    print("\n== one decision call (best of 7 rounds)")
    decisions = decision_ns()
    for name, ns in decisions.items():
        print(f"  {name:28s} {ns:8.0f} ns")
    goal = decisions["poll (a Wait)"]
    print(f"  goal: a decision <= 500 ns -> {'met' if goal <= 500 else 'NOT met'} ({goal:.0f} ns)")

    print(f"\n== retry loop, {ATTEMPTS} attempts per operation, sleeping disabled (best of 7 rounds)")
    per_attempt: Dict[str, float] = {}
    for name, fn in loops().items():
        per_attempt[name] = best_ns(fn, 20_000) / ATTEMPTS
    floor = per_attempt["hand-written loop"]
    rows: List[str] = []
    for name, ns in per_attempt.items():
        overhead = ns - floor
        rows.append(f"  {name:26s} {ns / 1000:7.2f} us/attempt  overhead {overhead / 1000:7.2f} us")
    print("\n".join(rows))
    if "tenacity" in per_attempt:
        tenacity_overhead = per_attempt["tenacity"] - floor
        for name in ("retryplan.retry", "retryplan.attempts"):
            ratio = tenacity_overhead / max(per_attempt[name] - floor, 1.0)
            print(f"  {name}: overhead is 1/{ratio:.1f} of tenacity's (goal: 1/10 or less)")
        for name in ("stamina", "urllib3 Retry.increment"):
            if name in per_attempt:
                ratio = (per_attempt[name] - floor) / max(per_attempt["retryplan.retry"] - floor, 1.0)
                print(f"  {name}: overhead is {ratio:.1f}x retryplan.retry's")

    print("\n== import retryplan")
    for name, ms in import_ms().items():
        print(f"  {name:44s} {ms:6.2f} ms")
    print("  goal: import <= 10 ms")


if __name__ == "__main__":
    main()
