"""The sync and asyncio helpers with a fake clock (no real sleeping)."""

import asyncio
from typing import List

import pytest

import retryplan
from retryplan import (
    AttemptFailed,
    GaveUpError,
    GiveUpReason,
    Outcome,
    Policy,
    ReconcileRequired,
    RestartRequired,
    Stats,
)

POLICY = Policy(max_attempts=4, jitter={"kind": "none"})


class FakeClock:
    """A monotonic clock that only moves when the helper sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: List[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_decorator_retries_with_the_engines_waits() -> None:
    clock = FakeClock()
    seen = []

    @retryplan.retry(POLICY, clock=clock, sleep=clock.sleep, seed=1)
    def flaky(x: int) -> int:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        seen.append((attempt.number, attempt.timeout, attempt.idempotency_key))
        if attempt.number < 3:
            raise ConnectionResetError("reset")
        return x * 2

    assert flaky(21) == 42
    assert [s[0] for s in seen] == [1, 2, 3] and len({s[2] for s in seen}) == 1
    assert clock.slept == [0.1, 0.2]  # base 100 ms, x2, no jitter: the engine's numbers
    assert retryplan.current_attempt() is None


def test_decorator_gives_up_with_history_and_cause() -> None:
    clock = FakeClock()

    @retryplan.retry(POLICY, clock=clock, sleep=clock.sleep, seed=1)
    def down() -> None:
        raise AttemptFailed(Outcome.http_status(503))

    with pytest.raises(GaveUpError) as raised:
        down()
    error = raised.value
    assert error.reason is GiveUpReason.ATTEMPTS_EXHAUSTED and error.attempts == 4 and error.code == "gave_up"
    assert [r.attempt for r in error.history] == [1, 2, 3, 4]
    assert isinstance(error.__cause__, AttemptFailed)
    assert error.last_outcome == Outcome.http_status(503)


def test_unknown_exceptions_are_not_retried() -> None:
    calls = []

    @retryplan.retry(POLICY, seed=1)
    def buggy() -> None:
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(GaveUpError) as raised:
        buggy()
    assert raised.value.reason == "not_retryable" and len(calls) == 1 and isinstance(raised.value.__cause__, KeyError)


def test_outcome_of_result_and_custom_mapping() -> None:
    clock = FakeClock()
    statuses = iter([503, 429, 200])

    @retryplan.retry(
        POLICY, clock=clock, sleep=clock.sleep, seed=1,
        outcome_of_result=lambda status: Outcome.http_status(status, 250 if status == 429 else None),
    )
    def call() -> int:
        return next(statuses)

    assert call() == 200
    assert clock.slept == [0.1, 0.25]  # Retry-After 250 ms raised the 200 ms backoff


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
    with pytest.raises(ReconcileRequired) as reconcile:
        for attempt in retryplan.attempts(unsafe, seed=3, idempotency_key="order-9"):
            with attempt:
                raise ConnectionResetError()
    assert reconcile.value.idempotency_key == "order-9" and reconcile.value.code == "reconcile"
    with pytest.raises(RestartRequired) as restart:
        for attempt in retryplan.attempts(POLICY, seed=3):
            with attempt:
                attempt.report(Outcome.http_status(409))
    assert restart.value.decision.kind == "restart"


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
    policy = Policy(max_attempts=2, total_budget_ms=2000, attempt_timeout={"fixed_ms": 100}, jitter={"kind": "none"})
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
    policy = Policy(backoff={"base_ms": 5000, "cap_ms": 5000}, jitter={"kind": "none"}, total_budget_ms=60000)

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
        async for attempt in retryplan.async_attempts(Policy(jitter={"kind": "none"}, backoff={"base_ms": 10, "cap_ms": 10}), seed=4):
            async with attempt:
                count += 1
                if count == 1:
                    raise ConnectionRefusedError()
        return count

    assert asyncio.run(main()) == 2


def test_an_open_breaker_refuses_attempts_of_every_operation() -> None:
    dependency = retryplan.Dependency(breaker={"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 60000, "half_open_probes": 1})
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
