"""The asyncio helpers as a service uses them: every attempt task finished before the call returns or raises (each
cancelled once), what ends an operation at once, what is async, a sleep that does not wait, and no asyncio loop."""

import asyncio
import gc
import sys
import time
import warnings
from typing import Any, Awaitable, Callable, List, Optional
from unittest.mock import AsyncMock

import httpx
import pytest
from fake_clock import FakeClock

import retryplan
from retryplan import ArgumentTypeError, GaveUpError, GiveUpReason, Outcome, Policy, Stats, UnsupportedError
from retryplan.httpx import AsyncRetryTransport

# The hedge starts 20 ms after the first attempt (the only real wait here) and wins; the first attempt loses.
HEDGE = Policy(
    max_attempts=2,
    total_timeout_ms=5000,
    attempt_timeout={"fixed_ms": 2000},
    jitter={"kind": "none"},
    hedging={"delay_ms": 20, "max_hedged_attempts": 1},
)
QUICK = Policy(max_attempts=3, total_timeout_ms=5000, jitter={"kind": "none"}, backoff={"base_ms": 1, "cap_ms": 1})
CLEANUP_TURNS = 5  # the event loop turns an attempt's cleanup takes (closing a connection, a rollback)


async def hang_then_clean_up(log: List[str], number: int, until: Optional[asyncio.Event] = None) -> None:
    """Waits until cancelled, then cleans up over several loop turns (after ``until`` is set, if given), noting each
    step (and a second cancel)."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        log.append(f"{number} cancelled")
        try:
            if until is not None:
                await until.wait()
            for _ in range(CLEANUP_TURNS):
                await asyncio.sleep(0)
            log.append(f"{number} cleaned up")
        except asyncio.CancelledError:
            log.append(f"{number} cleanup cancelled again")
        raise


def hedged_call(
    log: List[str],
    stats: Optional[Stats] = None,
    hedge_waits: bool = False,
    on_discard: Optional[Callable[[Any], Any]] = None,
) -> Callable[[], Any]:
    """``@retry(HEDGE)``: attempt 1 hangs (and cleans up when cancelled); the hedge returns, or also hangs."""

    @retryplan.retry(HEDGE, seed=1, stats=stats, on_discard=on_discard)
    async def fetch() -> str:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        if attempt.attempt == 1 or hedge_waits:
            await hang_then_clean_up(log, attempt.attempt)
        return f"attempt {attempt.attempt}"

    return fetch


def others() -> List["asyncio.Task[Any]"]:
    return [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]


def test_a_losing_attempt_is_cancelled_once_and_has_cleaned_up_when_the_call_returns() -> None:
    # It was cancelled when it lost, then again when the call returned (its cleanup cut short), and was left
    # running: "Task was destroyed but it is pending" once the loop closed.
    log: List[str] = []
    fetch = hedged_call(log)

    async def main() -> List[str]:
        assert await fetch() == "attempt 2"
        seen = list(log)
        assert others() == []
        return seen

    assert asyncio.run(main()) == ["1 cancelled", "1 cleaned up"]


def test_an_attempt_cut_at_its_abort_time_is_cancelled_once() -> None:
    policy = Policy(max_attempts=2, total_timeout_ms=2000, attempt_timeout={"fixed_ms": 100}, jitter={"kind": "none"})
    log: List[str] = []
    next_one_returns = asyncio.Event()

    @retryplan.retry(policy, seed=1)
    async def op() -> int:
        attempt = retryplan.current_attempt()
        assert attempt is not None
        if attempt.attempt == 1:  # cut at 100 ms; its cleanup still runs when the next one returns
            await hang_then_clean_up(log, 1, until=next_one_returns)
        next_one_returns.set()
        return attempt.attempt

    async def main() -> List[str]:
        assert await op() == 2
        assert others() == []
        return list(log)

    assert asyncio.run(main()) == ["1 cancelled", "1 cleaned up"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="asyncio.timeout is 3.11+")
def test_the_callers_timeout_raises_timeout_error_once_every_attempt_has_cleaned_up() -> None:
    log: List[str] = []
    stats = Stats()
    fetch = hedged_call(log, stats, hedge_waits=True)

    async def main() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.03):  # both attempts running (the hedge started at 20 ms)
                await fetch()
        assert sorted(log) == ["1 cancelled", "1 cleaned up", "2 cancelled", "2 cleaned up"]
        assert others() == []
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0  # asyncio.timeout's own cancel, taken back

    asyncio.run(main())
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_wait_for_raises_timeout_once_every_attempt_has_cleaned_up() -> None:
    log: List[str] = []
    fetch = hedged_call(log, hedge_waits=True)

    async def main() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(fetch(), 0.03)
        assert sorted(log) == ["1 cancelled", "1 cleaned up", "2 cancelled", "2 cleaned up"]
        assert others() == []

    asyncio.run(main())


async def cancel_twice(task: "asyncio.Task[Any]", log: List[str], after: Optional[str] = None) -> None:
    """Cancels ``task`` (once ``after`` is logged) with the message "checkout abandoned", and again while the
    attempts clean up."""
    while after is not None and after not in log:
        await asyncio.sleep(0)  # turn by turn: the cleanup takes a few
    task.cancel("checkout abandoned")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    task.cancel("second")  # while the cleanup runs: waited through, as a TaskGroup does


def test_a_second_cancellation_while_the_attempts_unwind_is_waited_through_and_propagates() -> None:
    log: List[str] = []
    fetch = hedged_call(log, hedge_waits=True)

    async def main() -> None:
        task = asyncio.ensure_future(fetch())
        await asyncio.sleep(0.025)  # both attempts running
        canceller = asyncio.ensure_future(cancel_twice(task, log))
        with pytest.raises(asyncio.CancelledError):
            await task
        await canceller
        assert sorted(log) == ["1 cancelled", "1 cleaned up", "2 cancelled", "2 cleaned up"]
        assert others() == []

    asyncio.run(main())


def test_a_caller_cancelled_while_the_loser_cleans_up_gets_its_own_cancellation_not_the_value() -> None:
    # The winner's value, which the caller will not get, is disposed of as a loser's (a response closed).
    log: List[str] = []
    dropped: List[Any] = []
    fetch = hedged_call(log, on_discard=dropped.append)

    async def main() -> None:
        task = asyncio.ensure_future(fetch())
        canceller = asyncio.ensure_future(cancel_twice(task, log, after="1 cancelled"))
        with pytest.raises(asyncio.CancelledError, match=CALLERS_MESSAGE):  # the caller's own, message kept
            await task
        await canceller
        assert log == ["1 cancelled", "1 cleaned up"] and dropped == ["attempt 2"]

    asyncio.run(main())


# What an awaiter of a task cancelled with a message sees: 3.10's asyncio hands it no message, even without retryplan.
CALLERS_MESSAGE = "^checkout abandoned$" if sys.version_info >= (3, 11) else "^$"


class MyBase(BaseException):
    """A BaseException of the application's, not an Exception: the caller gave up."""


@pytest.mark.parametrize("error", [MyBase("stop"), GeneratorExit()], ids=["own BaseException", "GeneratorExit"])
def test_a_base_exception_not_an_exception_ends_the_operation_and_is_raised_unchanged(error: BaseException) -> None:
    # It was retried as an unknown error (three attempts, GaveUpError), where every other helper ends the
    # operation (cancelled) and raises it after one attempt.
    stats = Stats()
    calls = []

    @retryplan.retry(QUICK, seed=1, stats=stats)
    async def op() -> None:
        calls.append(1)
        raise error

    async def main() -> None:
        with pytest.raises(type(error)) as raised:
            await op()
        assert raised.value is error

    asyncio.run(main())
    assert calls == [1] and stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_an_object_with_an_async_call_is_retried_as_an_async_def() -> None:
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.sleep(seconds)

    class Client:
        calls = 0

        async def __call__(self, x: int) -> int:
            self.calls += 1
            raise ConnectionRefusedError()

    client = Client()
    wrapped = retryplan.retry(QUICK, seed=1, clock=clock, sleep=sleep)(client)
    assert asyncio.iscoroutinefunction(wrapped)
    with pytest.raises(GaveUpError):
        asyncio.run(wrapped(1))
    assert client.calls == 3


def test_a_plain_function_returning_a_coroutine_is_refused_and_the_coroutine_closed() -> None:
    # The sync loop took the coroutine for the value: nothing it raised was ever retried.
    ran: List[int] = []
    made: List[Any] = []

    async def fetch() -> None:
        ran.append(1)
        raise ConnectionRefusedError()

    def wrapper() -> Awaitable[None]:
        coroutine = fetch()
        made.append(coroutine)
        return coroutine

    decisions: List[Any] = []
    op = retryplan.retry(QUICK, seed=1, on_decision=decisions.append)(wrapper)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ArgumentTypeError, match="returned a coroutine") as raised:
            op()
        del made[:]
        gc.collect()
    assert raised.value.field == "fn" and "async def" in raised.value.rule
    assert ran == [] and not [w for w in caught if "never awaited" in str(w.message)]
    # Refused inside the loop, before the driver counted it: the operation ends cancelled, never a success.
    assert [type(event.decision).__name__ for event in decisions][-1] == "GaveUp", decisions
    assert decisions[-1].decision.reason == "cancelled"


def test_an_async_sleep_that_does_not_wait_is_awaited_once_per_wait_without_spinning() -> None:
    # It was called again and again (tens of thousands of times, blocking the loop) until the real clock reached
    # the wake time; now the rest of the wait is the loop's timer. A fake sleep needs a clock that moves with it.
    policy = Policy(max_attempts=3, total_timeout_ms=5000, jitter={"kind": "none"}, backoff={"base_ms": 5, "cap_ms": 5})
    sleep = AsyncMock()

    @retryplan.retry(policy, seed=1, sleep=sleep)
    async def op() -> None:
        raise ConnectionRefusedError()

    with pytest.raises(GaveUpError):
        asyncio.run(op())
    assert sleep.await_count == 2

    loop_sleep = AsyncMock()

    async def loop() -> None:
        async for attempt in retryplan.async_attempts(policy, seed=1, sleep=loop_sleep):
            async with attempt:
                raise ConnectionRefusedError()

    with pytest.raises(GaveUpError):
        asyncio.run(loop())
    assert loop_sleep.await_count == 2


def refused_for_want_of_an_asyncio_loop(awaitable: Awaitable[Any]) -> UnsupportedError:
    """Steps ``awaitable`` with no event loop running (as under trio): it must refuse at once."""
    coroutine: Any = awaitable.__await__() if not hasattr(awaitable, "send") else awaitable
    with pytest.raises(UnsupportedError) as raised:
        coroutine.send(None)
    assert raised.value.field == "event_loop" and "asyncio" in raised.value.rule and "trio" in raised.value.rule
    return raised.value


def test_without_an_asyncio_loop_the_async_helpers_refuse_naming_the_limitation() -> None:
    # Under trio they failed deep inside asyncio: "RuntimeError: no running event loop".
    stats = Stats()

    @retryplan.retry(QUICK, seed=1, stats=stats)
    async def op() -> int:
        return 1

    refused_for_want_of_an_asyncio_loop(op())
    refused_for_want_of_an_asyncio_loop(retryplan.async_attempts(QUICK, stats=stats).__anext__())
    transport = AsyncRetryTransport(httpx.MockTransport(lambda request: httpx.Response(200)), policy=QUICK, stats=stats)
    refused_for_want_of_an_asyncio_loop(transport.handle_async_request(httpx.Request("GET", "http://test/")))
    assert stats.attempts == 0 and stats.succeeded == 0  # refused before any operation started


def test_under_trio_the_async_helpers_refuse_naming_the_limitation() -> None:
    trio = pytest.importorskip("trio")  # not a test requirement: checked where it is installed

    @retryplan.retry(QUICK, seed=1)
    async def op() -> int:
        return 1

    async def main() -> None:
        with pytest.raises(UnsupportedError, match="trio"):
            await op()
        with pytest.raises(UnsupportedError, match="trio"):
            async for attempt in retryplan.async_attempts(QUICK):
                async with attempt:
                    pass

    trio.run(main)


def _inside_the_block(attempt: Any, seen: List[Optional[int]]) -> None:
    """In an attempt's block: ``current_attempt()`` is that attempt; the first attempt fails (the loop retries)."""
    current = retryplan.current_attempt()
    seen.append(None if current is None else current.attempt)
    assert current is attempt
    if attempt.attempt == 1:
        raise ConnectionRefusedError()


def _after_the_block(seen: List[Optional[int]]) -> None:
    seen.append(None if retryplan.current_attempt() is None else 0)


def test_current_attempt_inside_async_with_attempt_is_that_attempt() -> None:
    async def main() -> List[Optional[int]]:
        seen: List[Optional[int]] = []
        async for attempt in retryplan.async_attempts(QUICK, seed=1):
            async with attempt:
                _inside_the_block(attempt, seen)
            _after_the_block(seen)
        return seen

    assert asyncio.run(main()) == [1, None, 2, None]


def test_current_attempt_inside_with_attempt_is_that_attempt() -> None:
    """The sync loop alike (`with attempt:`): library code called in the block sees the attempt; after the block,
    nothing is left set."""
    seen: List[Optional[int]] = []
    for attempt in retryplan.attempts(QUICK, seed=1):
        with attempt:
            _inside_the_block(attempt, seen)
        _after_the_block(seen)
    assert seen == [1, None, 2, None]


def test_a_partial_of_an_async_def_is_async_without_inspect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decorating ``functools.partial(async_fn, ...)`` before anything imported ``inspect`` (the helpers do not
    import it): it is async, as inspect.iscoroutinefunction says, never a plain function refused for its coroutine."""
    import functools
    import sys

    from retryplan._run import _is_coroutine_function

    async def fetch(item: int) -> int:
        return item

    monkeypatch.delitem(sys.modules, "inspect")
    assert _is_coroutine_function(functools.partial(fetch, 1))
    assert _is_coroutine_function(functools.partial(functools.partial(fetch), 1))
    assert not _is_coroutine_function(functools.partial(int, "1"))


def test_an_event_loop_whose_timers_fire_early_is_not_refused_beside_a_real_clock() -> None:
    # asyncio fires a timer up to its clock's resolution early (Windows' 15.6 ms before Python 3.13): a short wait
    # re-armed on every loop turn. Its timers, counted at the length asked, ran "the wait and 250 ms more" within a
    # few real milliseconds, and a real clock was refused; they are timed by the real clock.
    policy = Policy(
        max_attempts=2,
        total_timeout_ms=5000,
        jitter={"kind": "none"},
        backoff={"kind": "constant", "base_ms": 14, "multiplier": 1.0, "cap_ms": 14},
    )
    calls: List[float] = []

    async def main() -> int:
        loop = asyncio.get_running_loop()
        loop._clock_resolution = 0.015625  # type: ignore[attr-defined] # Windows' before Python 3.13
        stop = False

        async def busy() -> None:  # another task keeps the loop turning
            while not stop:
                await asyncio.sleep(0)

        other = loop.create_task(busy())

        @retryplan.retry(policy, outcome_of_error=lambda error: Outcome.application("retryable"))
        async def attempt() -> int:
            calls.append(time.monotonic())
            if len(calls) == 1:
                raise ConnectionResetError()
            return 42

        try:
            return await attempt()
        finally:
            stop = True
            await other

    assert asyncio.run(main()) == 42 and len(calls) == 2
