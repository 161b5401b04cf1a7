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
import subprocess
import sys
import time
from typing import Callable, Dict

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


def loops(waits: bool) -> Dict[str, Callable[[], object]]:
    """One callable per library, each running one operation of ATTEMPTS attempts without sleeping.

    ``waits=False``: no backoff at all (retryplan: a constant 0 ms backoff, so the
    engine answers the next StartAttempt at once; tenacity: ``wait_none``).
    ``waits=True``: a 1 ms backoff whose sleep is a no-op (retryplan: a fake clock
    that the no-op sleep advances; tenacity: ``wait_fixed`` with a no-op sleep).
    """
    made: Dict[str, Callable[[], object]] = {}

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

    retried = retryplan.Outcome.application("retryable")

    def outcome_of_exception(exc: BaseException) -> retryplan.Outcome:
        return retried

    if waits:
        policy = retryplan.Policy(max_attempts=ATTEMPTS, jitter={"kind": "none"}, backoff={"base_ms": 1, "cap_ms": 1})
        now = [0.0]

        def clock() -> float:
            return now[0]

        def sleep(seconds: float) -> None:
            now[0] += seconds

        helper_kwargs = {"clock": clock, "sleep": sleep, "outcome_of_exception": outcome_of_exception}
    else:
        policy = retryplan.Policy(
            max_attempts=ATTEMPTS,
            jitter={"kind": "none"},
            backoff={"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
        )
        helper_kwargs = {"outcome_of_exception": outcome_of_exception}

    # seed=None (the default): every operation draws its seed and key from the OS, as in production.
    made["retryplan.retry"] = retryplan.retry(policy, **helper_kwargs)(Counter())  # type: ignore[arg-type]

    f2 = Counter()

    def attempt_loop() -> object:
        for attempt in retryplan.attempts(policy, **helper_kwargs):  # type: ignore[arg-type]
            with attempt:
                return f2()
        return None

    made["retryplan.attempts"] = attempt_loop

    try:
        import tenacity

        made["tenacity"] = tenacity.retry(
            stop=tenacity.stop_after_attempt(ATTEMPTS),
            wait=tenacity.wait_fixed(0.001) if waits else tenacity.wait_none(),
            sleep=lambda seconds: None,
            retry=tenacity.retry_if_exception_type(Flaky),
            reraise=True,
        )(Counter())
    except ImportError:
        print("tenacity not installed: skipped", file=sys.stderr)

    if waits:
        return made

    try:
        import stamina
        import stamina.instrumentation

        stamina.instrumentation.set_on_retry_hooks([])
        made["stamina"] = stamina.retry(
            on=Flaky, attempts=ATTEMPTS, timeout=None, wait_initial=0, wait_max=0, wait_jitter=0
        )(Counter())
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


def report_loops(title: str, waits: bool) -> None:
    print(f"\n== {title} (best of {ROUNDS} interleaved rounds)")
    made = loops(waits)
    per_attempt: Dict[str, float] = {name: float("inf") for name in made}
    for _ in range(ROUNDS):  # interleaved, so every library sees the same background load
        for name, fn in made.items():
            gc.disable()
            start = time.perf_counter_ns()
            for _ in range(10_000):
                fn()
            elapsed = time.perf_counter_ns() - start
            gc.enable()
            per_attempt[name] = min(per_attempt[name], elapsed / 10_000 / ATTEMPTS)
    floor = per_attempt["hand-written loop"]
    for name, ns in per_attempt.items():
        print(f"  {name:26s} {ns / 1000:7.2f} us/attempt  overhead {(ns - floor) / 1000:7.2f} us")
    if "tenacity" in per_attempt:
        tenacity_overhead = per_attempt["tenacity"] - floor
        for name in ("retryplan.retry", "retryplan.attempts"):
            ratio = tenacity_overhead / max(per_attempt[name] - floor, 1.0)
            print(f"  {name}: overhead is 1/{ratio:.1f} of tenacity's (goal: 1/10 or less)")
    for name in ("stamina", "urllib3 Retry.increment"):
        if name in per_attempt:
            ratio = (per_attempt[name] - floor) / max(per_attempt["retryplan.retry"] - floor, 1.0)
            print(f"  {name}: overhead is {ratio:.1f}x retryplan.retry's")


def import_ms() -> Dict[str, float]:
    """Import time of retryplan in a fresh interpreter: -X importtime, and wall time over `pass`."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import retryplan"], capture_output=True, text=True, check=True
    ).stderr
    cumulative = [int(m.group(1)) for m in re.finditer(r"\|\s*(\d+)\s*\|\s*retryplan\s*$", out, re.M)]

    walls: Dict[str, float] = {"pass": float("inf"), "import retryplan": float("inf")}
    for _ in range(20):  # interleaved; the best run of each
        for code in walls:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            walls[code] = min(walls[code], time.perf_counter() - start)

    return {
        "-X importtime (cumulative)": cumulative[-1] / 1000 if cumulative else float("nan"),
        "wall, best of 20 (minus bare interpreter)": (walls["import retryplan"] - walls["pass"]) * 1000,
    }


def main() -> None:
    print(f"retryplan {retryplan.__version__} on Python {sys.version.split()[0]}")
    print("\n== one decision call (best of 7 rounds)")
    decisions = decision_ns()
    for name, ns in decisions.items():
        print(f"  {name:28s} {ns:8.0f} ns")
    goal = decisions["poll (a Wait)"]
    print(f"  goal: a decision <= 500 ns -> {'met' if goal <= 500 else 'NOT met'} ({goal:.0f} ns)")

    report_loops(f"retry loop, {ATTEMPTS} attempts per operation, no backoff", waits=False)
    report_loops(f"retry loop, {ATTEMPTS} attempts per operation, 1 ms backoff with a no-op sleep", waits=True)

    print("\n== import retryplan")
    for name, ms in import_ms().items():
        print(f"  {name:44s} {ms:6.2f} ms")
    print("  goal: import <= 10 ms")


if __name__ == "__main__":
    main()
