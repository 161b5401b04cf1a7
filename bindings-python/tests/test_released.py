"""What a helper is given, and what an operation holds, is released when they are done (a soak review's leaks).

- Every ``Config`` (one per ``@retry``, per transport or adapter, per ``attempts()`` call with new options) held
  a native ``Settings`` that held the ``Config`` back, a cycle the collector could not see: every hook, policy
  and object the helper was given lived for the life of the process.
- An attempt loop left early after a failed attempt (``break``, ``return``, an error outside ``with attempt:``)
  kept the failed attempt's error, whose frame held the loop's ``Attempt``, which held the operation: a cycle
  never collected, its driver never dropped, its retry slot (breaker permit, budget charge) never given back.
"""

import asyncio
import gc
import weakref
from typing import Any, Iterator

import pytest

import retryplan
from retryplan import Dependency, Policy

POLICY = Policy.from_dict(
    {"max_attempts": 3, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "cap_ms": 0}}
)


class Request:
    """What a caller's hook may capture (a request being served, a connection, ...)."""


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cycle collector off: what is released must be released when its last reference goes."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_what_a_helper_was_given_is_released_with_the_helper() -> None:
    captured = weakref.WeakSet[Request]()

    def make(kind: str) -> None:
        request = Request()
        captured.add(request)
        on_decision = lambda event: request and None  # noqa: E731  (a hook capturing the request, as a user's does)
        if kind == "retry":
            retryplan.retry(POLICY, on_decision=on_decision)(lambda: 1)()
        elif kind == "attempts":
            for attempt in retryplan.attempts(POLICY, on_decision=on_decision):
                with attempt:
                    pass
        else:
            retryplan.retry(POLICY, outcome_of_error=lambda error: request and None)(lambda: 1)()

    for kind in ("retry", "attempts", "hook"):
        for _ in range(100):
            make(kind)
    retryplan._run._LOOPS.clear()  # the attempt loops' cache of settings, bounded, holds the last ones on purpose
    gc.collect()
    assert len(captured) == 0, f"{len(captured)} of 300 requests still held"


def fails_then_leaves(dependency: Dependency) -> None:
    for attempt in retryplan.attempts(POLICY, dependency=dependency):
        with attempt:
            raise ConnectionResetError()
        break  # the caller stops retrying (shutting down, its own deadline, ...)


def test_an_attempt_loop_left_after_a_failure_gives_its_grants_back_at_once(no_collector: None) -> None:
    dependency = Dependency(
        retry_slots=20,
        breaker={"trip": {"kind": "consecutive", "failures": 1000}, "open_ms": 10, "half_open_probes": 1},
    )
    for _ in range(20):
        fails_then_leaves(dependency)
    slots, breaker = dependency.retry_slots, dependency.breaker
    assert slots is not None and breaker is not None
    assert (slots.in_use, breaker.permits_outstanding) == (0, 0)
    failures = iter([ConnectionResetError(), None])

    @retryplan.retry(POLICY, dependency=dependency)
    def refund() -> str:
        error = next(failures)
        if error is not None:
            raise error
        return "refunded"

    assert refund() == "refunded", "an unrelated call still gets a retry slot"


def test_leaving_a_loop_ends_the_operation_for_its_observers(no_collector: None) -> None:
    events: list[Any] = []
    for attempt in retryplan.attempts(POLICY, on_decision=events.append):
        with attempt:
            raise ConnectionResetError()
        break
    assert events[-1].decision.kind == "gave_up" and events[-1].decision.reason == "cancelled", events[-1]


def test_an_async_attempt_loop_left_after_a_failure_gives_its_slot_back(no_collector: None) -> None:
    dependency = Dependency(retry_slots=5)

    async def leave() -> None:
        async for attempt in retryplan.async_attempts(POLICY, dependency=dependency):
            async with attempt:
                raise ConnectionResetError()
            break

    async def main() -> None:
        for _ in range(5):
            await leave()

    asyncio.run(main())
    assert dependency.retry_slots is not None and dependency.retry_slots.in_use == 0
