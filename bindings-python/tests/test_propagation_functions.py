"""Every helper's operation inside a served request starts from its caller's context and decides its answer,
not only the HTTP helpers': ``@retry`` (sync and async), ``attempts()`` and ``async_attempts()`` too, as Node's
``run`` and Kotlin's ``retrying {}`` do (the session 24 tracing review: a function helper under the middleware
made three attempts of 800 ms for a caller that gave 300 ms and said it retries, and told the next hop 800 ms)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import retryplan
from retryplan import IncomingContext, Outcome, Policy
from retryplan.propagation import done, serving

READ = Policy.from_dict(
    {
        "max_attempts": 3,
        "total_timeout_ms": 2000,
        "attempt_timeout": {"fixed_ms": 800},
        "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
        "jitter": {"kind": "none"},
    }
)
CALLER = {"retryplan-timeout-ms": "300", "retryplan-caller-retries": "?1"}


@pytest.fixture
def served() -> Iterator[retryplan.propagation.Served]:
    """A request being served whose caller gave 300 ms and retries itself."""
    request, token = serving(IncomingContext.read(READ, CALLER, time.monotonic()))
    try:
        yield request
    finally:
        done(token)


def _timeout_ms(headers: Dict[str, str]) -> int:
    return int(headers["retryplan-timeout-ms"])


def _record(seen: List[Tuple[int, int, int]]) -> None:
    """What the running attempt was given: its number, its timeout and the next hop's deadline."""
    attempt = retryplan.current_attempt()
    assert attempt is not None
    seen.append((attempt.attempt, attempt.plan.timeout_ms, _timeout_ms(attempt.outgoing_headers())))


def _one_attempt_within_the_callers_time(seen: List[Tuple[int, int, int]]) -> None:
    assert [number for number, _, _ in seen] == [1], "the caller retries: this layer makes one attempt"
    _, timeout_ms, next_hop_ms = seen[0]
    assert timeout_ms <= 300 and next_hop_ms <= 300, seen


def _call_inventory(seen: List[Tuple[int, int, int]]) -> None:
    """An attempt of ``@retry(READ)`` that records what it was given and finds the inventory service down."""

    @retryplan.retry(READ)
    def call_inventory() -> None:
        _record(seen)
        raise ConnectionRefusedError("inventory down")

    with pytest.raises(retryplan.GaveUpError):
        call_inventory()


def test_sync_retry_starts_from_the_served_callers_context(served: Any) -> None:
    seen: List[Tuple[int, int, int]] = []
    _call_inventory(seen)
    _one_attempt_within_the_callers_time(seen)


def test_attempts_loop_starts_from_the_served_callers_context(served: Any) -> None:
    seen: List[Tuple[int, int, int]] = []
    with pytest.raises(retryplan.GaveUpError):
        for attempt in retryplan.attempts(READ):
            with attempt:
                seen.append((attempt.attempt, attempt.plan.timeout_ms, _timeout_ms(attempt.outgoing_headers())))
                raise ConnectionRefusedError("inventory down")
    _one_attempt_within_the_callers_time(seen)


def test_async_retry_and_async_attempts_start_from_the_served_callers_context(served: Any) -> None:
    seen: List[Tuple[int, int, int]] = []

    @retryplan.retry(READ)
    async def call_inventory() -> None:
        _record(seen)
        raise ConnectionRefusedError("inventory down")

    async def loop() -> None:
        async for attempt in retryplan.async_attempts(READ):
            async with attempt:
                seen.append((attempt.attempt, attempt.plan.timeout_ms, _timeout_ms(attempt.outgoing_headers())))
                raise ConnectionRefusedError("inventory down")

    with pytest.raises(retryplan.GaveUpError):
        asyncio.run(call_inventory())
    _one_attempt_within_the_callers_time(seen)
    seen.clear()
    with pytest.raises(retryplan.GaveUpError):
        asyncio.run(loop())
    _one_attempt_within_the_callers_time(seen)


def test_a_function_helpers_give_up_for_overload_decides_the_served_answer() -> None:
    """Three overloaded attempts (the hook reads the error as a 503) under a caller that does not retry: the
    request's answer tells that caller not to retry, as an HTTP helper's give-up does."""
    request, token = serving(IncomingContext.none(time.monotonic()))
    calls = []
    try:

        @retryplan.retry(READ, outcome_of_error=lambda error: Outcome.http_status(503))
        def overloaded() -> None:
            calls.append(1)
            raise RuntimeError("503 from the inventory service")

        assert request.answer == {}
        with pytest.raises(retryplan.GaveUpError):
            overloaded()
    finally:
        done(token)
    assert len(calls) == 3
    assert request.answer == {"retryplan-retryable": "?0"}


def test_outside_a_served_request_nothing_changes() -> None:
    seen: List[Tuple[int, int, int]] = []
    _call_inventory(seen)
    assert [number for number, _, _ in seen] == [1, 2, 3]
    assert all(timeout_ms == 800 for _, timeout_ms, _ in seen)
