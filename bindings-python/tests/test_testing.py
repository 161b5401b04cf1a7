"""Testing code that uses the helpers, as a user does (the reviewer's reproductions, session 26).

``retryplan.testing.fake_time()`` fakes the clock and the sleep of every helper not given its own, even one
decorated at import (before, the default sleep and clock were bound when the helper was made, and the clock is
read natively: ``mock.patch("time.sleep")`` was never called, and the test waited for real). A sleep that does
not move the clock, or a clock that does not move, is refused (``InvalidArgumentError``, field ``clock``) instead
of spinning (before: a busy wait, or a hang at 100% CPU on a frozen clock). A Retry-After date is read against
``time.time()`` as it is when read (before: ``time.time`` as imported, so a frozen wall clock was not read).

No test here waits on a real clock: ``no_real_waits`` makes ``time.sleep`` and ``asyncio.sleep`` (but for the
zero-second yield) fail, so a regression fails at once instead of sleeping; a frozen clock's test stops its sleep
after 1,000 calls, so a regression fails instead of hanging.
"""

import asyncio
import datetime
import email.utils
import time
from typing import Any, Callable, Iterator, List
from unittest import mock

import httpx
import pytest
import requests
from fake_clock import FakeClock
from server import Server, status

import retryplan
from retryplan import InvalidArgumentError, Outcome, Policy
from retryplan._run import FAKES
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter
from retryplan.testing import FakeTime, fake_time


def waiting(backoff_ms: int) -> Policy:
    """3 attempts, ``backoff_ms`` between them, no jitter."""
    return Policy.from_dict(
        {
            "max_attempts": 3,
            "total_timeout_ms": 30_000,
            "attempt_timeout": {"fixed_ms": 5_000},
            "backoff": {"kind": "constant", "base_ms": backoff_ms, "multiplier": 1.0, "cap_ms": backoff_ms},
            "jitter": {"kind": "none"},
        }
    )


#: 3 attempts, 2 s between them, no jitter (the reviewer's policy).
POLICY = waiting(2_000)


def flaky(failures: int = 2) -> Callable[[], int]:
    """A function that raises ConnectionError ``failures`` times, then returns 42."""
    calls: List[int] = []

    def fetch() -> int:
        calls.append(1)
        if len(calls) <= failures:
            raise ConnectionError("connection reset")
        return 42

    return fetch


CALLS: List[int] = []


@retryplan.retry(POLICY)  # made before any fake, as a module's helpers are (decorated at import)
def fetch_price() -> int:
    """Fails twice, then returns 42 (each test starts from no calls)."""
    CALLS.append(1)
    if len(CALLS) <= 2:
        raise ConnectionError("connection reset")
    return 42


@pytest.fixture(autouse=True)
def no_real_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``time.sleep`` and ``asyncio.sleep`` (but for ``asyncio.sleep(0)``, a yield) fail: nothing here waits."""
    real_asyncio_sleep = asyncio.sleep

    def no_sleep(seconds: float) -> None:
        raise AssertionError(f"time.sleep({seconds}) called: a real wait")

    async def no_async_sleep(seconds: float, result: Any = None) -> Any:
        if seconds > 0:
            raise AssertionError(f"asyncio.sleep({seconds}) called: a real wait")
        return await real_asyncio_sleep(0, result)

    monkeypatch.setattr(time, "sleep", no_sleep)
    monkeypatch.setattr(asyncio, "sleep", no_async_sleep)
    CALLS.clear()
    yield
    assert not FAKES, "a fake_time() left active"


# --- fake_time(): every helper without its own clock and sleep -------------------------------------------------


def test_retry_decorated_before_the_fake_sleeps_on_it() -> None:
    with fake_time() as fake:
        assert fetch_price() == 42
    assert fake.slept == [2.0, 2.0] and fake.now == 4.0


def test_retry_decorated_inside_the_fake_and_attempts_loop() -> None:
    with fake_time(start=1000.0) as fake:
        fetch = retryplan.retry(POLICY)(flaky())
        assert fetch() == 42
        outcomes = iter([Outcome.http_status(503), Outcome.success()])
        for attempt in retryplan.attempts(POLICY):
            assert attempt.abort_at == fake.now + 5.0  # the attempt's timeout, on the fake clock
            attempt.report(next(outcomes))
    assert fake.slept == [2.0, 2.0, 2.0] and fake.now == 1006.0


def test_async_retry_and_async_attempts() -> None:
    async def fetch_async() -> int:
        return fetch()

    fetch = flaky()
    decorated = retryplan.retry(POLICY)(fetch_async)  # made outside the fake

    async def main() -> None:
        assert await decorated() == 42
        outcomes = iter([Outcome.http_status(503), Outcome.http_status(503), Outcome.success()])
        async for attempt in retryplan.async_attempts(POLICY):
            async with attempt:
                attempt.report(next(outcomes))

    with fake_time() as fake:
        asyncio.run(main())
    assert fake.slept == [2.0, 2.0, 2.0, 2.0] and fake.now == 8.0


def test_httpx_transports() -> None:
    def answers() -> httpx.MockTransport:
        codes = iter([503, 503, 200])
        return httpx.MockTransport(lambda request: httpx.Response(next(codes)))

    client = httpx.Client(transport=RetryTransport(answers(), policy=POLICY))  # made outside the fake

    async def fetch_async() -> int:
        async with httpx.AsyncClient(transport=AsyncRetryTransport(answers(), policy=POLICY)) as client:
            return (await client.get("http://api.example/items")).status_code

    with fake_time() as fake:
        assert client.get("http://api.example/items").status_code == 200
        assert asyncio.run(fetch_async()) == 200
    assert fake.slept == [2.0, 2.0, 2.0, 2.0]


def test_requests_adapter(server: Server) -> None:
    server.script.queue(status(503), status(503), status(200))
    with requests.Session() as session:
        session.mount("http://", RetryAdapter(policy=POLICY))
        with fake_time() as fake:
            assert session.get(server.url + "/items").status_code == 200
    assert fake.slept == [2.0, 2.0] and len(server.script.seen) == 3


def test_a_helper_given_its_own_clock_and_sleep_keeps_them() -> None:
    own = FakeClock()
    fetch = retryplan.retry(POLICY, clock=own, sleep=own.sleep)(flaky())
    with fake_time() as fake:
        assert fetch() == 42
    assert own.slept == [2.0, 2.0] and fake.slept == [] and fake.now == 0.0


def test_the_propagation_middleware_reads_a_request_on_the_fake_clock() -> None:
    """The served request's context is read on the helpers' clock, so a deadline it carries is on the fake one."""
    from retryplan.propagation import WsgiMiddleware, current

    seen: List[int] = []

    def app(environ: Any, start_response: Any) -> List[bytes]:
        served = current()
        assert served is not None
        seen.append(served.incoming.received_at_ms)
        start_response("200 OK", [])
        return [b""]

    middleware = WsgiMiddleware(app, policy=Policy())
    with fake_time(start=1000.0):
        list(middleware({"HTTP_RETRYPLAN_TIMEOUT_MS": "800"}, lambda status, headers, exc_info=None: None))
    assert seen == [1_000_000]


def test_leaving_restores_what_was_before_nested_or_on_an_error() -> None:
    def abort_at() -> float:
        for attempt in retryplan.attempts(POLICY):
            with attempt:
                return attempt.abort_at
        raise AssertionError("no attempt")

    with fake_time(start=1000.0) as outer:
        with fake_time(start=50.0) as inner:
            assert abort_at() == 55.0
            inner.advance(1.5)
            assert abort_at() == 56.5 and inner.now == 51.5
        assert abort_at() == 1005.0 and outer.now == 1000.0
        with pytest.raises(KeyError), fake_time(start=7.0):
            assert abort_at() == 12.0
            raise KeyError("leaves the block")
        assert abort_at() == 1005.0
    real = abort_at() - 5.0  # the real monotonic clock again
    assert abs(real - time.monotonic()) < 60


def test_fake_time_refuses_a_bad_time_and_a_second_entry() -> None:
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidArgumentError) as raised:
            fake_time(start=bad)
        assert raised.value.field == "start"
    fake = FakeTime()
    with pytest.raises(InvalidArgumentError, match="seconds"):
        fake.advance(-0.5)
    block = fake_time()
    with block, pytest.raises(InvalidArgumentError, match="already active"):
        with block:
            pass


# --- the wall clock of Retry-After dates is read when used ----------------------------------------------------

FROZEN = datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)


def _retry_after_in(seconds: int) -> str:
    return email.utils.format_datetime(FROZEN + datetime.timedelta(seconds=seconds), usegmt=True)


def test_a_retry_after_date_is_read_against_the_frozen_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A date 3 s after the frozen now waits 3 s (before: read against the real wall clock, years earlier, it gave
    up ``retry_after_above_cap``)."""
    monkeypatch.setattr(time, "time", lambda: FROZEN.timestamp())
    answers = iter([httpx.Response(503, headers={"Retry-After": _retry_after_in(3)}), httpx.Response(200)])
    transport = RetryTransport(httpx.MockTransport(lambda request: next(answers)), policy=POLICY)
    with fake_time() as fake, httpx.Client(transport=transport) as client:
        assert client.get("http://api.example/items").status_code == 200
    assert fake.slept == [3.0]


def test_a_retry_after_date_under_the_requests_adapter(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    server.script.queue(status(503, {"Retry-After": _retry_after_in(3)}), status(200))
    monkeypatch.setattr(time, "time", lambda: FROZEN.timestamp())
    with requests.Session() as session, fake_time() as fake:
        session.mount("http://", RetryAdapter(policy=POLICY))
        assert session.get(server.url + "/items").status_code == 200
    assert fake.slept == [3.0]


# --- a sleep that does not move the clock is refused, not spun on ---------------------------------------------


class Frozen:
    """A clock that never moves and a sleep that counts its calls, raising after ``limit`` (a regression fails
    instead of hanging)."""

    def __init__(self, limit: int = 1000) -> None:
        self.calls: List[float] = []
        self.limit = limit

    def clock(self) -> float:
        return 1000.0

    def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)
        if len(self.calls) >= self.limit:
            raise AssertionError("the loop spins on a clock that does not move")


def _refused(raised: pytest.ExceptionInfo[InvalidArgumentError]) -> None:
    error = raised.value
    assert error.field == "clock" and type(error) is InvalidArgumentError
    # The words every language uses (JS's and Kotlin's), with Python's two ways out.
    assert "the clock moved 0 ms during a wait of " in str(error) and "retryplan.testing.fake_time()" in str(error)
    assert "a fake sleep or timer needs a clock that moves with it (give `clock=` one this sleep moves" in str(error)


def test_a_frozen_clock_is_refused_in_retry() -> None:
    """A 2 s wait is refused at its first sleep (before: 24 million sleep calls, forever)."""
    frozen = Frozen()
    fetch = retryplan.retry(POLICY, clock=frozen.clock, sleep=frozen.sleep)(flaky())
    with pytest.raises(InvalidArgumentError) as raised:
        fetch()
    _refused(raised)
    assert len(frozen.calls) == 1


def test_a_frozen_clock_is_refused_under_short_waits_too() -> None:
    """A 10 ms wait is not judged sleep by sleep (a coarse clock may not show it yet), but once the real time passed
    it by a quarter of a second and the clock has not moved half of it, the loop refuses it (before: forever). The
    sleep stops the loop after 10 million calls, far more than a quarter of a second's spin makes."""
    frozen = Frozen(limit=10_000_000)
    fetch = retryplan.retry(waiting(10), clock=frozen.clock, sleep=frozen.sleep)(flaky())
    with pytest.raises(InvalidArgumentError) as raised:
        fetch()
    _refused(raised)
    assert "during a wait of 10 ms" in str(raised.value)


def test_a_frozen_clock_is_refused_in_attempts_and_the_transport() -> None:
    frozen = Frozen()
    with pytest.raises(InvalidArgumentError) as raised:
        for attempt in retryplan.attempts(POLICY, clock=frozen.clock, sleep=frozen.sleep):
            attempt.report(Outcome.http_status(503))
    _refused(raised)
    transport = RetryTransport(
        httpx.MockTransport(lambda request: httpx.Response(503)), policy=POLICY, clock=frozen.clock, sleep=frozen.sleep
    )
    with httpx.Client(transport=transport) as client, pytest.raises(InvalidArgumentError) as raised:
        client.get("http://api.example/items")
    _refused(raised)
    assert len(frozen.calls) == 2


def test_patching_time_sleep_alone_is_refused_with_the_way_out() -> None:
    """The helper's own sleep is ``time.sleep`` as it is when called, so a test's patch is called; the real clock
    does not move with it, so the loop says so (before: the patch was never called, and the test waited 4 s)."""
    calls: List[float] = []

    def patched(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) >= 1000:
            raise AssertionError("the loop spins on a sleep that does not sleep")

    with mock.patch("time.sleep", side_effect=patched), pytest.raises(InvalidArgumentError) as raised:
        fetch_price()
    assert raised.value.field == "clock" and "retryplan.testing.fake_time()" in str(raised.value)
    assert len(calls) == 1 and calls[0] > 1.9


def test_a_coarse_clock_is_not_refused() -> None:
    """A clock that ticks every 16 ms (Windows') with a sleep that waits: short waits it does not show yet are not
    judged, and a long one moves it by at least half."""
    state = {"now": 0.0}
    slept: List[float] = []

    def coarse() -> float:
        return int(state["now"] / 0.016) * 0.016

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        state["now"] += seconds

    for backoff_ms in (20, 2_000):
        assert retryplan.retry(waiting(backoff_ms), clock=coarse, sleep=sleep)(flaky())() == 42
    assert slept


def test_a_sleep_that_moves_the_clock_by_more_than_half_is_accepted() -> None:
    own = FakeClock()

    def short_sleep(seconds: float) -> None:  # wakes early, as a signal may: the loop sleeps the rest
        own.sleep(seconds * 0.6)

    assert retryplan.retry(POLICY, clock=own, sleep=short_sleep)(flaky())() == 42
    assert own.now >= 104.0


class FrozenAsync:
    """A clock that never moves (counting its readings, raising after 1,000: a regression that waits on and on
    fails instead of hanging) and an async sleep that returns at once (an ``AsyncMock()``)."""

    def __init__(self) -> None:
        self.readings = 0
        self.calls: List[float] = []

    def clock(self) -> float:
        self.readings += 1
        if self.readings >= 1000:
            raise AssertionError("the helper waits on and on for a clock that does not move")
        return 1000.0

    async def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)


def test_the_async_helpers_wait_the_rest_on_the_loop_but_refuse_a_clock_that_does_not_move() -> None:
    """An async sleep that returns at once is awaited once per wait and the rest waited on the event loop's timer
    (kept: with a clock that moves that is right, and it does not spin); but a clock that does not move is refused
    once the timer has run a quarter of a second past the wait (before: it waited on and on, for ever). The waits
    are 10 ms of real time on the loop's timer: what is tested is that the real wait ends."""

    async def flaky_async() -> int:
        return fetch()

    fetch = flaky()

    async def loop(frozen: FrozenAsync) -> None:
        async for attempt in retryplan.async_attempts(waiting(10), clock=frozen.clock, sleep=frozen.sleep):
            attempt.report(Outcome.http_status(503))

    for run in ("async_attempts", "retry"):
        frozen = FrozenAsync()
        with pytest.raises(InvalidArgumentError) as raised:
            if run == "retry":
                asyncio.run(retryplan.retry(waiting(10), clock=frozen.clock, sleep=frozen.sleep)(flaky_async)())
            else:
                asyncio.run(loop(frozen))
        assert raised.value.field == "clock" and "retryplan.testing.fake_time()" in str(raised.value)
        assert "the clock moved 0 ms" in str(raised.value) and len(frozen.calls) == 1
