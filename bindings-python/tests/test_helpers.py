"""The sync and asyncio helpers with a fake clock (no real sleeping)."""

import asyncio
import subprocess
import sys
import time
from typing import Any, Callable, List

import pytest
from fake_clock import FakeClock

import retryplan
from retryplan import (
    AttemptFailed,
    GaveUpError,
    GiveUpReason,
    Outcome,
    Policy,
    ReconcileRequiredError,
    RestartRequiredError,
    Stats,
)

POLICY = Policy(max_attempts=4, jitter={"kind": "none"})


def test_the_first_call_of_a_plain_function_loads_no_typing_and_no_error_classes() -> None:
    # What a process's first @retry call imports is its start-up cost (bench.py: import plus first use <= 10 ms);
    # typing alone is several ms. The error classes load when an operation fails, not before.
    code = (
        "import sys\nbefore = set(sys.modules)\nimport retryplan\n"
        "@retryplan.retry(retryplan.Policy())\ndef f(): return 1\nf()\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "retryplan._failures" in loaded  # the failure table is read on the first call
    assert "typing" not in loaded and "retryplan._error_classes" not in loaded, loaded


def test_decorator_retries_with_the_engines_waits() -> None:
    clock = FakeClock()
    seen = []

    @retryplan.retry(POLICY, clock=clock, sleep=clock.sleep, seed=1)
    def flaky(x: int) -> int:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        seen.append((attempt.attempt, attempt.timeout, attempt.idempotency_key))
        if attempt.attempt < 3:
            raise ConnectionResetError("reset")
        return x * 2

    assert flaky(21) == 42
    assert [s[0] for s in seen] == [1, 2, 3] and len({s[2] for s in seen}) == 1
    assert clock.slept == [0.1, 0.2]  # base 100 ms, x2, no jitter: the engine's numbers
    assert retryplan.current_attempt() is None


def test_decorator_gives_up_with_the_ending_and_cause() -> None:
    clock = FakeClock()
    events: List[retryplan.Event] = []

    @retryplan.retry(POLICY, clock=clock, sleep=clock.sleep, seed=1, on_decision=events.append)
    def down() -> None:
        raise AttemptFailed(Outcome.http_status(503))

    with pytest.raises(GaveUpError) as raised:
        down()
    error = raised.value
    assert error.reason is GiveUpReason.ATTEMPTS_EXHAUSTED and error.attempts == 4 and error.code == "gave_up"
    assert [e.decision.attempt for e in events if isinstance(e.decision, retryplan.StartAttempt)] == [1, 2, 3, 4]
    assert isinstance(error.__cause__, AttemptFailed) and error.cause is error.__cause__
    assert error.last_outcome == Outcome.http_status(503) and isinstance(error.decision, retryplan.GaveUp)
    assert len(error.idempotency_key) == 36  # the operation's key, drawn from the seed


def test_unknown_exceptions_are_ambiguous_retried_then_named_in_the_ending() -> None:
    # The core's one default (Verdict::UNKNOWN_ERROR): retried under a safe policy, every attempt used.
    calls, clock = [], FakeClock()

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def buggy() -> None:
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(GaveUpError) as raised:
        buggy()
    assert (
        raised.value.reason == "attempts_exhausted" and len(calls) == 4 and isinstance(raised.value.__cause__, KeyError)
    )
    assert raised.value.last_outcome == Outcome.application("ambiguous")
    assert str(raised.value).endswith(retryplan.UNKNOWN_ERROR_HINT) and "outcome_of_error=" in str(raised.value)


def test_an_unknown_exception_of_a_non_idempotent_write_reconciles() -> None:
    calls, clock = [], FakeClock()
    unsafe = Policy(max_attempts=4, jitter={"kind": "none"}, idempotency="unsafe")

    @retryplan.retry(unsafe, seed=1, clock=clock, sleep=clock.sleep)
    def write() -> None:
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(retryplan.ReconcileRequiredError) as raised:
        write()
    assert len(calls) == 1 and "outcome_of_error=" in str(raised.value)


def test_the_readme_s_first_example_with_an_unknown_exception() -> None:
    # bindings-python/README.md's first example (the checkout profile, keyed) when the call raises an
    # exception the failure table does not know: retried as the README's behaviour table says.
    class Unknown(Exception):
        pass

    calls, clock = [], FakeClock()
    checkout = retryplan.Policy.from_profile("checkout")

    @retryplan.retry(checkout, seed=1, clock=clock, sleep=clock.sleep)
    def place_order() -> None:
        calls.append(1)
        raise Unknown("unknown")

    with pytest.raises(GaveUpError) as raised:
        place_order()
    assert len(calls) == checkout.to_dict()["max_attempts"] and raised.value.reason == "attempts_exhausted"


def test_an_error_the_hook_calls_a_success_returns_no_value() -> None:
    """``outcome_of_error`` answering success ends the call with None, the error dropped (JS returns undefined,
    Kotlin null): never the exception object as if the function had returned it."""
    success = lambda error: Outcome.success()  # noqa: E731

    @retryplan.retry(Policy(), seed=1, outcome_of_error=success)
    def call() -> int:
        raise KeyError("not found")

    assert call() is None

    @retryplan.retry(Policy(), seed=1, outcome_of_error=success)
    async def call_async() -> int:
        raise KeyError("not found")

    assert asyncio.run(call_async()) is None


def test_outcome_of_result_and_custom_mapping() -> None:
    clock = FakeClock()
    statuses = iter([503, 429, 200])

    @retryplan.retry(
        POLICY,
        clock=clock,
        sleep=clock.sleep,
        seed=1,
        outcome_of_result=lambda status: Outcome.http_status(status, 250 if status == 429 else None),
    )
    def call() -> int:
        return next(statuses)

    assert call() == 200
    assert clock.slept == [0.1, 0.25]  # Retry-After 250 ms raised the 200 ms backoff


def test_the_last_value_rides_on_the_ending_that_raises() -> None:
    """A value the policy retries until the end is the ending's ``last_value`` (as the README says), in every loop:
    ``@retry`` on a function and on a coroutine function, and ``attempts()`` reporting a result."""
    clock = FakeClock()
    policy = Policy(max_attempts=3, jitter={"kind": "none"})
    busy = lambda value: Outcome.http_status(503)  # noqa: E731
    answers = iter(["busy 1", "busy 2", "busy 3"])

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1, outcome_of_result=busy)
    def call() -> str:
        return next(answers)

    with pytest.raises(GaveUpError) as raised:
        call()
    assert (raised.value.reason, raised.value.last_value, raised.value.cause) == ("attempts_exhausted", "busy 3", None)
    with pytest.warns(DeprecationWarning, match="renamed OperationFailedError.last_value"):
        assert raised.value.last_result == "busy 3"  # the old name, kept for one release

    async def no_sleep(seconds: float) -> None:
        clock.now += seconds

    @retryplan.retry(policy, clock=clock, sleep=no_sleep, seed=1, outcome_of_result=busy)
    async def call_async() -> str:
        return "busy async"

    with pytest.raises(GaveUpError) as raised:
        asyncio.run(call_async())
    assert raised.value.last_value == "busy async"

    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(policy, clock=clock, sleep=clock.sleep, seed=2):
            with attempt:
                attempt.report(Outcome.http_status(503), result=f"response {attempt.attempt}")
    assert raised.value.last_value == "response 3"


def test_a_value_judged_ambiguous_ends_without_the_hint_about_an_unknown_error() -> None:
    """The ending's hint ("return an outcome from outcome_of_error=") speaks of an error nothing classified: an
    ending raised with a value ``outcome_of_result`` judged ambiguous has the ending's words alone, in every loop;
    an unknown error keeps it."""
    policy = Policy(max_attempts=2, jitter={"kind": "none"})
    ambiguous = lambda value: Outcome.application("ambiguous")  # noqa: E731
    clock = FakeClock()  # a sleep that does not wait needs a clock it moves (else it is refused: test_testing.py)

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1, outcome_of_result=ambiguous)
    def pending() -> str:
        return "pending"

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1)
    def unknown() -> str:
        raise LookupError("nothing classifies this")

    with pytest.raises(GaveUpError) as raised:
        pending()
    assert raised.value.last_value == "pending" and raised.value.last_outcome == Outcome.application("ambiguous")
    assert str(raised.value).startswith("retryplan: ") and "outcome_of_error" not in str(raised.value)
    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(policy, clock=clock, sleep=clock.sleep, seed=1):
            with attempt:
                attempt.report(Outcome.application("ambiguous"), result="pending")
    assert raised.value.last_value == "pending" and "outcome_of_error" not in str(raised.value)
    with pytest.raises(GaveUpError) as raised:
        unknown()
    assert "return an outcome from outcome_of_error=" in str(raised.value)


def test_on_discard_receives_each_value_the_core_drops() -> None:
    """``on_discard`` sees every value ``outcome_of_result`` failed that a later attempt replaced, never the value
    returned or the one the ending carries (``last_value``): ``@retry`` sync and async, and ``attempts()``."""
    clock = FakeClock()
    policy = Policy(max_attempts=3, jitter={"kind": "none"})
    busy = lambda value: Outcome.http_status(503) if value.startswith("busy") else None  # noqa: E731
    dropped: List[Any] = []
    answers = iter(["busy 1", "busy 2", "ok"])

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1, outcome_of_result=busy, on_discard=dropped.append)
    def call() -> str:
        return next(answers)

    assert call() == "ok" and dropped == ["busy 1", "busy 2"]
    dropped.clear()

    async def no_sleep(seconds: float) -> None:
        clock.now += seconds

    counter = iter(range(1, 4))

    @retryplan.retry(policy, clock=clock, sleep=no_sleep, seed=1, outcome_of_result=busy, on_discard=dropped.append)
    async def call_async() -> str:
        return f"busy {next(counter)}"

    with pytest.raises(GaveUpError) as raised:
        asyncio.run(call_async())
    assert (dropped, raised.value.last_value) == (["busy 1", "busy 2"], "busy 3")
    dropped.clear()

    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(policy, clock=clock, sleep=clock.sleep, seed=2, on_discard=dropped.append):
            with attempt:
                attempt.report(Outcome.http_status(503), result=f"response {attempt.attempt}")
    assert (dropped, raised.value.last_value) == (["response 1", "response 2"], "response 3")


def test_a_raising_hook_or_the_callers_cancel_ends_the_call_and_drops_what_is_held() -> None:
    """A hook that raises ends the call with its exception; the value it judged and every value still held go to
    ``on_discard`` and the operation ends ``cancelled``. The caller giving up in a wait (KeyboardInterrupt) drops
    the value held the same way. As JS and Kotlin do."""
    clock = FakeClock()
    policy = Policy(max_attempts=3, jitter={"kind": "none"})
    dropped: List[Any] = []
    events: List[Any] = []
    broken = RuntimeError("the hook broke")

    def judge(value: str) -> "Outcome | None":
        if value == "second":
            raise broken
        return Outcome.http_status(503)

    answers = iter(["first", "second"])

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1, outcome_of_result=judge,
                     on_discard=dropped.append, on_decision=events.append)  # fmt: skip
    def call() -> str:
        return next(answers)

    with pytest.raises(RuntimeError) as raised:
        call()
    assert raised.value is broken and dropped == ["second", "first"]
    assert events[-1].decision.reason == "cancelled"
    dropped.clear()

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    @retryplan.retry(policy, clock=clock, sleep=interrupted, seed=1, outcome_of_result=judge, on_discard=dropped.append)
    def held() -> str:
        return "busy"

    with pytest.raises(KeyboardInterrupt):
        held()
    assert dropped == ["busy"]


def test_the_old_keyword_of_last_value_still_builds_an_ending() -> None:
    decision = retryplan.Decision.from_dict(
        {"type": "gave_up", "reason": "attempts_exhausted", "attempts": 1, "remaining_ms": 0}
    )
    with pytest.warns(DeprecationWarning, match="last_result= is renamed last_value="):
        ending = GaveUpError("gave up", decision, last_result="old")
    assert ending.last_value == "old"
    with pytest.raises(TypeError, match="not both"):
        GaveUpError("gave up", decision, last_value="new", last_result="old")


def test_an_observer_that_raises_ends_the_call_with_its_first_error() -> None:
    """``on_decision`` raising after an attempt ends the call with that error; the cancel that follows is observed
    too, and a second error it raises does not hide the first."""
    errors: List[BaseException] = []

    def observer(event: Any) -> None:
        if isinstance(event.decision, retryplan.StartAttempt):
            return
        errors.append(RuntimeError(f"observer {len(errors) + 1}"))
        raise errors[-1]

    @retryplan.retry(
        Policy(max_attempts=3, jitter={"kind": "none"}), seed=1, sleep=lambda _: None, on_decision=observer
    )
    def call() -> int:
        raise ConnectionResetError

    with pytest.raises(RuntimeError) as raised:
        call()
    assert raised.value is errors[0] and len(errors) == 2


def test_an_observer_that_raises_ends_an_async_call_with_its_first_error() -> None:
    """The same on an ``async def``: the cancel after the failed step is observed too, and its error does not
    replace the one being raised."""
    errors: List[BaseException] = []

    def observer(event: Any) -> None:
        if isinstance(event.decision, retryplan.StartAttempt):
            return
        errors.append(RuntimeError(f"observer {len(errors) + 1}"))
        raise errors[-1]

    async def no_sleep(_: float) -> None:
        pass

    @retryplan.retry(Policy(max_attempts=3, jitter={"kind": "none"}), seed=1, sleep=no_sleep, on_decision=observer)
    async def call() -> int:
        raise ConnectionResetError

    with pytest.raises(RuntimeError) as raised:
        asyncio.run(call())
    assert raised.value is errors[0] and len(errors) == 2


def test_a_sleep_that_raises_in_async_attempts_is_raised_over_an_observers_error() -> None:
    """``async_attempts()``: a sleep that raises cancels the operation, and an observer raising while that cancel is
    observed does not replace the sleep's error."""

    def observer(event: Any) -> None:
        if isinstance(event.decision, retryplan.GaveUp):
            raise RuntimeError("observer")

    async def sleep(_: float) -> None:
        raise KeyError("sleep")

    async def main() -> None:
        policy = Policy(max_attempts=3, jitter={"kind": "none"})
        async for attempt in retryplan.async_attempts(policy, sleep=sleep, on_decision=observer):
            with attempt:
                raise ConnectionResetError

    with pytest.raises(KeyError, match="sleep"):
        asyncio.run(main())


def test_on_discard_is_checked_and_not_an_http_helpers_option() -> None:
    """A non-callable ``on_discard`` is refused naming it; an HTTP helper closes the responses it drops itself, so
    it refuses the option rather than ignore it."""
    with pytest.raises(retryplan.ArgumentTypeError, match="`on_discard`: must be a function"):
        retryplan.retry(Policy(), on_discard=3)(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(retryplan.ArgumentTypeError, match="`on_discard`: is not an option of this helper"):
        __import__("retryplan.httpx").httpx.RetryTransport(policy=Policy(), on_discard=print)


@pytest.mark.parametrize("option", ["outcome_of_result", "name", "dispose"])
@pytest.mark.parametrize("helper", ["httpx.RetryTransport", "httpx.AsyncRetryTransport", "requests.RetryAdapter"])
def test_http_helpers_refuse_the_options_of_retry_they_do_not_have(helper: str, option: str) -> None:
    """``outcome_of_result`` and ``name`` are ``@retry``'s (an HTTP helper's outcome is the response's, its name
    the request's), ``dispose`` the helpers' own: given to an HTTP helper, each is refused when it is made, naming
    it, rather than ignored (the hook never called, the ending naming the URL all the same)."""
    module, name = helper.split(".")
    cls = getattr(__import__(f"retryplan.{module}").__dict__[module], name)
    with pytest.raises(retryplan.ArgumentTypeError, match=f"`{option}`: is not an option of this helper") as raised:
        cls(policy=Policy(), **{option: "x" if option == "name" else print})
    assert raised.value.field == option


def test_attempt_loop_success_and_give_up() -> None:
    clock = FakeClock()
    count = 0
    for attempt in retryplan.attempts(POLICY, clock=clock, sleep=clock.sleep, seed=2):
        with attempt:
            count += 1
            if count < 3:
                raise TimeoutError()
    assert count == 3 and clock.slept == [0.1, 0.2]

    stats = Stats()
    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(POLICY, clock=clock, sleep=clock.sleep, seed=2, stats=stats):
            with attempt:
                attempt.report(Outcome.http_status(503))
    assert raised.value.attempts == 4 and stats.gave_up_total == 1 and stats.retries == 3


def test_attempt_loop_reconcile_and_restart() -> None:
    unsafe = Policy(idempotency="unsafe", jitter={"kind": "none"})
    with pytest.raises(ReconcileRequiredError) as reconcile:
        for attempt in retryplan.attempts(unsafe, seed=3, idempotency_key="order-9"):
            with attempt:
                raise ConnectionResetError()
    assert reconcile.value.idempotency_key == "order-9" and reconcile.value.code == "reconcile"
    with pytest.raises(RestartRequiredError) as restart:
        for attempt in retryplan.attempts(POLICY, seed=3):
            with attempt:
                attempt.report(Outcome.http_status(409))
    assert restart.value.decision.kind == "restart"
    assert isinstance(restart.value.decision, retryplan.Restart)  # what the types say, as JS's decision: Restart
    assert restart.value.deadline_ms == restart.value.decision.deadline_ms > 0
    assert isinstance(reconcile.value.decision, retryplan.Reconcile)


def test_attempt_without_an_outcome_is_misuse() -> None:
    loop = retryplan.attempts(POLICY, seed=1)
    next(loop)
    with pytest.raises(RuntimeError, match="without an outcome"):
        next(loop)


def test_keyboard_interrupt_is_reported_as_cancelled() -> None:
    stats = Stats()

    @retryplan.retry(POLICY, seed=1, stats=stats)
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_async_decorator_enforces_the_attempt_timeout() -> None:
    policy = Policy(max_attempts=2, total_timeout_ms=2000, attempt_timeout={"fixed_ms": 100}, jitter={"kind": "none"})
    calls = []

    @retryplan.retry(policy, seed=1)
    async def stuck() -> None:
        calls.append(1)
        await asyncio.sleep(10)

    with pytest.raises(GaveUpError) as raised:
        asyncio.run(stuck())
    assert len(calls) == 2 and raised.value.last_outcome == Outcome.transport("timed_out")


def test_async_cancellation_during_the_wait_cancels_the_operation() -> None:
    stats = Stats()
    policy = Policy(backoff={"base_ms": 5000, "cap_ms": 5000}, jitter={"kind": "none"}, total_timeout_ms=60000)

    @retryplan.retry(policy, seed=1, stats=stats)
    async def failing() -> None:
        raise ConnectionResetError()

    async def main() -> None:
        task = asyncio.ensure_future(failing())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1 and stats.attempts == 1


def test_async_attempt_loop() -> None:
    async def main() -> int:
        count = 0
        async for attempt in retryplan.async_attempts(
            Policy(jitter={"kind": "none"}, backoff={"base_ms": 10, "cap_ms": 10}), seed=4
        ):
            async with attempt:
                count += 1
                if count == 1:
                    raise ConnectionRefusedError()
        return count

    assert asyncio.run(main()) == 2


def test_an_open_breaker_refuses_attempts_of_every_operation() -> None:
    dependency = retryplan.Dependency(
        breaker={"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 60000, "half_open_probes": 1}
    )
    calls = []

    @retryplan.retry(POLICY, seed=1, dependency=dependency)
    def down() -> None:
        calls.append(1)
        raise ConnectionResetError()

    with pytest.raises(GaveUpError) as first:
        down()
    with pytest.raises(GaveUpError) as second:
        down()
    assert first.value.reason == GiveUpReason.CIRCUIT_OPEN and second.value.reason == GiveUpReason.CIRCUIT_OPEN
    assert len(calls) == 1  # the second operation never reached the function
    assert dependency.snapshot(0.0)["breaker"]["state"] == "open"


# ---------------------------------------------------------------- the helper contract (README, "Helpers")

HEDGING = Policy(
    max_attempts=3,
    total_timeout_ms=5000,
    attempt_timeout={"fixed_ms": 2000},
    jitter={"kind": "none"},
    hedging={"delay_ms": 50, "max_hedged_attempts": 1},
)


class AppError(Exception):
    """An ordinary application error."""


def test_sync_helpers_refuse_a_hedging_policy_unless_told_to_run_it_one_attempt_at_a_time() -> None:
    for make in (lambda: retryplan.retry(HEDGING)(lambda: None), lambda: retryplan.attempts(HEDGING)):
        with pytest.raises(retryplan.UnsupportedError) as refused:  # when the sync function is decorated
            make()
        assert refused.value.field == "hedging" and refused.value.code == "unsupported"
    calls = []

    @retryplan.retry(HEDGING, sequential_attempts=True, seed=1)
    def one_at_a_time() -> int:
        calls.append(retryplan.current_attempt())
        return len(calls)

    assert one_at_a_time() == 1 and calls[0] is not None and not calls[0].plan.hedge


def hedged(stats: Stats, started: List[Any], cancelled: List[int], hedge: Callable[[int], str]) -> Any:
    """``@retry(HEDGING)`` on an async function whose first attempt hangs (noting its cancellation) and whose hedge
    ends as ``hedge(attempt)`` does; each attempt's ``(attempt, hedge)`` goes to ``started``."""

    @retryplan.retry(HEDGING, seed=1, stats=stats)
    async def fetch() -> str:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        assert attempt.hedge is attempt.plan.hedge  # as JS's `context.hedge` and Kotlin's `Attempt.hedge`
        started.append((attempt.attempt, attempt.hedge))
        if attempt.attempt == 1:
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                cancelled.append(attempt.attempt)
                raise
        return hedge(attempt.attempt)

    return fetch


def test_async_retry_hedges_and_cancels_the_loser() -> None:
    stats, started, cancelled = Stats(), [], []
    fetch = hedged(stats, started, cancelled, lambda attempt: f"attempt {attempt}")
    assert asyncio.run(fetch()) == "attempt 2"
    assert started == [(1, False), (2, True)] and cancelled == [1]
    assert (stats.attempts, stats.hedges, stats.succeeded) == (2, 1, 1)


def test_an_async_attempt_that_cancels_itself_ends_the_operation_and_its_cancellation_propagates() -> None:
    # A cancellation is never swallowed (asyncio, as Kotlin's coroutines and `attempts()`): an attempt that raises
    # CancelledError of its own, not cancelled by the helper at its abort time, ends the operation (cancelled),
    # the other running attempts are cancelled, and the CancelledError reaches the caller. It was dropped as an
    # abort the driver had not made, and the operation waited for the attempt's abort time, then retried.
    stats, started, cancelled = Stats(), [], []

    def cancels_itself(attempt: int) -> str:
        raise asyncio.CancelledError("the attempt gave up on its own")

    fetch = hedged(stats, started, cancelled, cancels_itself)

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await fetch()

    asyncio.run(main())
    assert started == [(1, False), (2, True)] and cancelled == [1]
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1 and stats.attempts == 2


def test_the_hook_decides_only_what_the_failure_table_does_not_know() -> None:
    seen: List[BaseException] = []
    failures = iter([AppError("busy"), ConnectionRefusedError(), AppError("busy")])

    def outcome_of_error(error: BaseException) -> "Outcome | None":
        seen.append(error)
        return Outcome.application("retryable") if isinstance(error, AppError) else None

    clock = FakeClock()

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep, outcome_of_error=outcome_of_error)
    def flaky() -> str:
        error = next(failures, None)
        if error is not None:
            raise error
        return "done"

    assert flaky() == "done"
    assert [type(error) for error in seen] == [AppError, AppError]  # ConnectionRefusedError is the table's

    later = FakeClock()

    @retryplan.retry(POLICY, seed=1, clock=later, sleep=later.sleep, outcome_of_error=lambda error: None)
    def unknown() -> None:
        raise AppError("bug")

    with pytest.raises(GaveUpError) as raised:
        unknown()
    # None from the hook is the core's default for an unknown error: ambiguous, retried to the last attempt.
    assert raised.value.reason == "attempts_exhausted" and raised.value.attempts == 4


def test_outcome_of_exception_is_a_deprecated_alias_of_outcome_of_error() -> None:
    calls = []

    def flaky() -> int:
        calls.append(1)
        if len(calls) < 2:
            raise AppError()
        return len(calls)

    with pytest.warns(DeprecationWarning, match="outcome_of_error"):
        flaky = retryplan.retry(POLICY, seed=1, outcome_of_exception=lambda error: Outcome.application("retryable"))(
            flaky
        )

    assert flaky() == 2


def test_an_invalid_request_is_raised_again_unchanged() -> None:
    httpx = pytest.importorskip("httpx")
    stats, calls = Stats(), []
    invalid = httpx.UnsupportedProtocol("Request URL has an unsupported protocol 'ftp://'.")

    @retryplan.retry(POLICY, seed=1, stats=stats)
    def send() -> None:
        calls.append(1)
        raise invalid

    with pytest.raises(httpx.UnsupportedProtocol) as raised:
        send()
    assert raised.value is invalid and len(calls) == 1 and stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_typed_endings_carry_reason_attempts_key_last_outcome_cause_and_decision() -> None:
    unsafe = Policy(idempotency="unsafe", jitter={"kind": "none"})
    reset = ConnectionResetError("reset after sending")
    with pytest.raises(ReconcileRequiredError) as raised:
        for attempt in retryplan.attempts(unsafe, seed=3, idempotency_key="order-9"):
            with attempt:
                raise reset
    ending = raised.value
    assert (ending.idempotency_key, ending.attempts, ending.cause, ending.__cause__) == ("order-9", 1, reset, reset)
    assert ending.last_outcome == Outcome.failure("connection_lost") and isinstance(
        ending.decision, retryplan.Reconcile
    )


def test_a_success_keeps_no_error_of_an_earlier_attempt_alive() -> None:
    import gc
    import weakref

    errors: List[weakref.ref[BaseException]] = []

    @retryplan.retry(
        Policy(
            max_attempts=50,
            jitter={"kind": "none"},
            backoff={"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
        ),
        seed=1,
        outcome_of_error=lambda error: Outcome.application("retryable"),
    )
    def flaky() -> int:
        # Only the error of the attempt just before can still be alive: the latest accepted result.
        assert sum(ref() is not None for ref in errors) <= 1
        if len(errors) < 40:
            raise registered(AppError(len(errors)))  # no local name: the frame must not hold its own error
        return len(errors)

    def registered(error: BaseException) -> BaseException:
        errors.append(weakref.ref(error))
        return error

    gc.disable()
    try:
        assert flaky() == 40
        assert all(ref() is None for ref in errors)  # freed without the cyclic collector
    finally:
        gc.enable()


def test_an_attempt_loop_keeps_no_error_of_an_earlier_attempt_alive() -> None:
    import gc
    import weakref

    errors: List[weakref.ref[BaseException]] = []

    def registered(error: BaseException) -> BaseException:
        errors.append(weakref.ref(error))
        return error

    policy = Policy(
        max_attempts=50,
        jitter={"kind": "none"},
        backoff={"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
    )
    gc.disable()
    try:
        for attempt in retryplan.attempts(
            policy, seed=1, outcome_of_error=lambda error: Outcome.application("retryable")
        ):
            with attempt:
                # Only the latest error is kept (the driver may still raise with it as the cause, until a newer
                # result replaces it and the driver releases it); every earlier one is gone.
                assert all(ref() is None for ref in errors[:-1])
                if len(errors) < 40:
                    raise registered(AppError(len(errors)))  # no local name: the frame must not hold its own error
        assert len(errors) == 40 and all(ref() is None for ref in errors)  # freed without the cyclic collector
    finally:
        gc.enable()


def test_a_sync_call_that_returns_after_its_abort_time_counts_as_timed_out() -> None:
    clock = FakeClock()
    events: List[retryplan.Event] = []
    policy = Policy(max_attempts=3, attempt_timeout={"fixed_ms": 100}, jitter={"kind": "none"})

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1, on_decision=events.append)
    def slow_then_fast() -> str:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        if attempt.attempt == 1:
            clock.now += 0.5  # returns 400 ms after its abort time: its value is dropped
            return "late"
        return "in time"

    assert slow_then_fast() == "in time"
    afters = [event.after for event in events if event.after is not None]
    assert afters[0].attempt == 1 and afters[0].outcome == Outcome.transport("timed_out")


def test_a_keyboard_interrupt_during_the_wait_ends_the_operation() -> None:
    stats = Stats()

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    @retryplan.retry(POLICY, seed=1, stats=stats, sleep=interrupted)
    def failing() -> None:
        raise ConnectionResetError()

    with pytest.raises(KeyboardInterrupt):
        failing()
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1 and stats.attempts == 1


def test_async_attempts_cut_the_block_at_its_abort_time() -> None:
    policy = Policy(
        max_attempts=3,
        attempt_timeout={"fixed_ms": 100},
        jitter={"kind": "none"},
        backoff={"base_ms": 10, "cap_ms": 10},
    )

    async def main() -> List[int]:
        numbers = []
        async for attempt in retryplan.async_attempts(policy, seed=5):
            async with attempt:
                numbers.append(attempt.attempt)
                if attempt.attempt == 1:
                    await asyncio.sleep(10)  # cut at 100 ms
        return numbers

    started = time.monotonic()
    assert asyncio.run(main()) == [1, 2] and time.monotonic() - started < 2.0


def test_every_decision_reaches_on_decision_and_the_log(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    clock, events = FakeClock(), []
    with caplog.at_level(logging.DEBUG, logger="retryplan"):

        @retryplan.retry(POLICY, clock=clock, sleep=clock.sleep, seed=1, on_decision=events.append)
        def flaky() -> None:
            raise AttemptFailed(Outcome.http_status(404))

        with pytest.raises(GaveUpError):
            flaky()
    kinds = [event.decision.kind for event in events]
    assert kinds == ["start_attempt", "gave_up"]
    assert [r.retryplan_decision for r in caplog.records if hasattr(r, "retryplan_decision")] == kinds
    assert caplog.records[-1].levelno == logging.INFO and caplog.records[-1].retryplan["reason"] == "not_retryable"


def test_log_lines_say_what_happened_in_words_with_no_clock_readings(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    clock = FakeClock()
    clock.now = 7_654.321  # a monotonic clock far from 0: its readings must not reach the words
    policy = Policy(
        max_attempts=3,
        jitter={"kind": "none"},
        attempt_timeout={"fixed_ms": 800},
        backoff={"kind": "constant", "base_ms": 250, "multiplier": 1.0, "cap_ms": 250},
    )
    with caplog.at_level(logging.DEBUG, logger="retryplan"):

        @retryplan.retry(policy, clock=clock, sleep=clock.sleep, seed=1)
        def flaky() -> None:
            raise AttemptFailed(Outcome.http_status(503))

        with pytest.raises(GaveUpError):
            flaky()
    lines = [r.getMessage() for r in caplog.records if hasattr(r, "retryplan_decision")]
    assert all(line.startswith("retryplan ") for line in lines)
    assert [line.partition(": ")[2] for line in lines] == [
        "start attempt 1 (timeout 800 ms)",
        "wait 250 ms, before attempt 2",
        "start attempt 2 (timeout 800 ms)",
        "wait 250 ms, before attempt 3",
        "start attempt 3 (timeout 800 ms)",
        "gave up after 3 attempts: attempts_exhausted",
    ]
    assert all("7654" not in line and "retry=" not in line for line in lines)
    wait = next(r for r in caplog.records if getattr(r, "retryplan_decision", None) == "wait")
    assert wait.retryplan["retry"] == 0 and wait.retryplan["delay_ms"] == 250  # the fields stay, for machines
    assert wait.retryplan["until_ms"] >= 7_654_321  # the clock's reading stays in the fields


@pytest.mark.parametrize(
    "make, failure",
    [
        (lambda: ConnectionRefusedError(), "connection_refused"),
        (lambda: __import__("socket").gaierror(-2, "Name or service not known"), "dns_lookup_failed"),
        (lambda: ConnectionResetError(), "connection_lost"),
        (lambda: BrokenPipeError(), "write_failed"),
        (lambda: TimeoutError(), "read_timeout"),
        (lambda: OSError(__import__("errno").ENETUNREACH, "unreachable"), "unreachable"),
        (lambda: __import__("ssl").SSLCertVerificationError(), "tls_handshake_failed"),
        (lambda: __import__("http.client").client.IncompleteRead(b""), "body_broken"),
        (lambda: __import__("httpx").ConnectTimeout("t"), "connect_timeout"),
        (lambda: __import__("httpx").PoolTimeout("t"), "pool_timeout"),
        (lambda: __import__("httpx").ReadTimeout("t"), "read_timeout"),
        (lambda: __import__("httpx").WriteError("w"), "write_failed"),
        # a write timeout is a timeout in every language (requests: a socket TimeoutError; OkHttp: SocketTimeoutException)
        (lambda: __import__("httpx").WriteTimeout("w"), "read_timeout"),
        (lambda: __import__("httpx").ReadError("r"), "connection_lost"),
        (lambda: __import__("httpx").RemoteProtocolError("Server disconnected"), "connection_lost"),
        (lambda: _caused(__import__("httpx").ConnectError("c"), ConnectionRefusedError()), "connection_refused"),
        (
            lambda: _caused(__import__("httpx").ConnectError("c"), __import__("socket").gaierror(-2, "x")),
            "dns_lookup_failed",
        ),
        (lambda: __import__("httpx").ConnectError("no cause"), "unreachable"),
    ],
)
def test_the_failure_table(make: "Any", failure: str) -> None:
    assert retryplan.default_outcome_of_exception(make()) == Outcome.failure(failure)


def _caused(error: BaseException, cause: BaseException) -> BaseException:
    error.__cause__ = cause
    return error


def test_the_failure_table_looks_the_cores_depth_through_wrapped_errors() -> None:
    """One depth in every language (issue 23): the core's MAX_CAUSE_DEPTH, read from its source here."""
    import pathlib
    import re

    from retryplan import _failures, _native

    source = (pathlib.Path(__file__).resolve().parents[2] / "core" / "src" / "outcomes" / "failure.rs").read_text()
    written = re.search(r"pub const MAX_CAUSE_DEPTH: usize = (\d+);", source)
    assert written is not None and _native.MAX_CAUSE_DEPTH == _failures.MAX_CAUSE_DEPTH == int(written.group(1))
    httpx = pytest.importorskip("httpx")

    def wrapped(depth: int) -> BaseException:
        """A ConnectError over ``depth - 1`` errors the table does not know, then a refused connection."""
        inner: BaseException = ConnectionRefusedError()
        for _ in range(depth - 1):
            inner = _caused(RuntimeError("wrapper"), inner)
        return _caused(httpx.ConnectError("c"), inner)

    deepest = _native.MAX_CAUSE_DEPTH
    assert retryplan.default_outcome_of_exception(wrapped(deepest)) == Outcome.failure("connection_refused")
    assert retryplan.default_outcome_of_exception(wrapped(deepest + 1)) == Outcome.failure("unreachable")


def test_the_failure_table_reads_requests_and_urllib3_errors() -> None:
    requests = pytest.importorskip("requests")
    import urllib3.exceptions as u

    def wrapped(reason: BaseException) -> BaseException:
        """requests.ConnectionError(MaxRetryError(reason)), chained as requests and urllib3 chain them."""
        retries = _caused(u.MaxRetryError(None, "http://x/", reason), reason)  # type: ignore[arg-type]
        error = requests.ConnectionError(retries)
        error.__context__ = retries
        return error

    refused = _caused(u.NewConnectionError(None, "refused"), ConnectionRefusedError())  # type: ignore[arg-type]
    dns = _caused(
        u.NameResolutionError("retryplan-test.invalid", None, __import__("socket").gaierror(-2, "x")),  # type: ignore[arg-type]
        __import__("socket").gaierror(-2, "x"),
    )
    reset = u.ProtocolError("Connection aborted.", ConnectionResetError())
    cases = [
        (wrapped(refused), "connection_refused"),
        (wrapped(dns), "dns_lookup_failed"),
        (_caused(requests.ConnectionError(reset), reset), "connection_lost"),
        (requests.ConnectTimeout(), "connect_timeout"),
        (requests.ReadTimeout(), "read_timeout"),
        (requests.exceptions.ChunkedEncodingError(), "body_broken"),
        (requests.exceptions.SSLError(), "tls_handshake_failed"),
        (u.ReadTimeoutError(None, "/", "read timed out"), "read_timeout"),  # type: ignore[arg-type]
    ]
    for error, failure in cases:
        assert retryplan.default_outcome_of_exception(error) == Outcome.failure(failure), (error, failure)
    stats = Stats()
    for invalid in (requests.exceptions.MissingSchema("no scheme"), requests.exceptions.InvalidURL("bad")):

        @retryplan.retry(POLICY, seed=1, stats=stats)
        def send() -> None:
            raise invalid

        with pytest.raises(type(invalid)) as raised:
            send()
        assert raised.value is invalid
    assert stats.attempts == 2 and stats.gave_up[GiveUpReason.CANCELLED] == 2


def test_an_attempts_number_is_attempt_and_number_is_a_deprecated_alias() -> None:
    """One name in every language (issue 25): ``attempt``; ``number`` warns for one release."""
    for attempt in retryplan.attempts(Policy.from_dict({"max_attempts": 1}), seed=1):
        with attempt:
            assert attempt.attempt == 1
            with pytest.warns(DeprecationWarning, match="renamed Attempt.attempt"):
                assert attempt.number == 1


def test_an_attempts_time_left_and_remaining_ms_are_two_names_for_two_things() -> None:
    """``remaining_ms`` is the operation's time left at the attempt's start, as in JS and Kotlin; ``time_left()`` the
    seconds before this attempt times out, on the helper's clock; ``remaining()``, its old name, warns."""
    clock = FakeClock()
    policy = Policy.from_dict(
        {
            "max_attempts": 1,
            "total_timeout_ms": 10_000,
            "response_reserve_ms": 500,
            "attempt_timeout": {"fixed_ms": 2_000},
        }
    )
    for attempt in retryplan.attempts(policy, seed=1, clock=clock, sleep=clock.sleep):
        with attempt:
            assert attempt.remaining_ms == attempt.plan.remaining_ms == 9_500
            assert attempt.time_left() == 2.0
            clock.now += 0.5
            assert attempt.time_left() == 1.5 and attempt.remaining_ms == 9_500
            with pytest.warns(DeprecationWarning, match=r"renamed Attempt.time_left\(\)"):
                assert attempt.remaining() == 1.5
