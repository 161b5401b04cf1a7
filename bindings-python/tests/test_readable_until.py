"""A response returned at the end is readable for as long as the core says: a failed one until its attempt's
abort time (the ending's ``result.readable_until_ms``), a success's without limit. Driven with a fake clock."""

from typing import Any, List, Tuple

import pytest
from fake_clock import FakeClock

from retryplan import Policy
from retryplan._run import Config

POLICY = Policy(
    max_attempts=2,
    jitter={"kind": "none"},
    attempt_timeout={"fixed_ms": 1000},
    total_timeout_ms=60_000,
    response_reserve_ms=0,
)


class Response:
    """A response as the run reads it: a status, no headers."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.closed = False

    def close(self) -> None:
        self.closed = True


def run_to_the_end(status: int) -> Tuple[Any, Any, List[float], FakeClock]:
    """Runs one operation whose every attempt answers ``status`` 200 ms after it starts: the ending, what
    ``finish`` gives (the response, the seconds left to read it), and each attempt's start."""
    clock, starts = FakeClock(), []  # type: FakeClock, List[float]
    config = Config(POLICY, sequential=True, clock=clock, seed=1, dispose=Response.close)
    run = config.run(method="GET", returns_responses=True)
    run.read = lambda response: (response.status, {}, 0.0)

    def attempt() -> Response:
        starts.append(clock.now)
        clock.now += 0.2
        return Response(status)

    ending = run.call(attempt, (), clock.sleep)
    return ending, run.finish(ending), starts, clock


def test_a_failed_response_returned_at_the_end_is_readable_until_its_attempts_abort_time() -> None:
    ending, (response, window), starts, clock = run_to_the_end(503)
    assert not ending.succeeded and len(starts) == 2
    assert response.status == 503 and not response.closed
    assert ending.result.readable_until_ms == pytest.approx((starts[-1] + 1.0) * 1000, abs=1)
    assert window == pytest.approx(starts[-1] + 1.0 - clock.now)  # 0.8 s of the last attempt's window


def test_a_successful_response_is_the_callers_without_limit() -> None:
    ending, (response, window), starts, _ = run_to_the_end(200)
    assert ending.succeeded and len(starts) == 1
    assert response.status == 200 and window is None
    assert ending.result.readable_until_ms is None
