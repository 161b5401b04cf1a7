"""asyncio helpers, adapters over the core's driver.

:func:`run_concurrently` is the concurrent host loop (``@retry`` on an
``async def``, the async httpx transport): each attempt the driver plans runs
as a task, hedges beside the attempt they hedge; an attempt still running at
its abort time is cancelled (the driver counts it ``timed_out``), so are the
losers of a race, and whatever a discarded attempt returned is disposed of.
Cancelling the caller's task ends the operation (``cancelled``), cancels every
attempt and propagates; so does an attempt that cancels itself (raises
``CancelledError`` of its own) or raises a ``BaseException`` that is not an
``Exception``: it is never retried. As a TaskGroup, it cancels each task once
and returns or raises only once every task it started has finished (the next
attempt keeps the driver's schedule: it does not wait for a cancelled one to
unwind). An async ``sleep=`` that returns before the clock reaches the wake
time (a fake) is awaited once per wait; the rest is waited on the loop's timer,
and each time that timer runs out the driver judges whether the clock moved
through the wait (the core's still-clock rule: a clock that does not move is
refused, naming ``clock``, for the wait would never come).
Under ``retryplan.testing.fake_time()`` the helpers' own sleep is the fake's.

``async_attempts()`` runs its attempts in the caller's task, so one at a
time, like ``attempts()``; ``async with attempt:`` cancels the block at the
attempt's abort time, and sets ``current_attempt()`` inside it.

Every helper here needs a running asyncio loop (``running_loop``): under trio
each refuses before starting the operation.
"""

from __future__ import annotations

import asyncio
import inspect

from ._native import AbortAttempt, Attempt, AttemptPlan, Attempts, Ending, Run, Sleep
from ._run import ASYNC_SLEEP, CURRENT, FAKES, Config, loop_run

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Awaitable, Callable, Dict, List, Optional, Set

    from ._native import Driver, Policy
    from ._run import LoopOptions, Unpack

    Sleeper = Callable[[float], Awaitable[Any]]

__all__ = ["AsyncAttempts", "async_attempts"]

_loop_sleep = asyncio.tasks.sleep
"""What a sleep that returned early leaves is waited with: asyncio's own (``asyncio.tasks.sleep``), which a test's
patch of ``asyncio.sleep`` (a mock that returns at once) does not replace, or the wait would spin."""


async def default_sleep(seconds: float) -> None:
    """``async_attempts()``'s own sleep: the active fake's (``retryplan.testing.fake_time()``: the fake clock moves,
    and the task yields to the loop once), else ``asyncio.sleep`` as it is when called."""
    if FAKES:
        await FAKES[-1].async_sleep(seconds)
    else:
        await asyncio.sleep(seconds)


def running_loop() -> asyncio.AbstractEventLoop:
    """The running asyncio event loop, or UnsupportedError (field ``event_loop``) naming the limitation: the async
    helpers run their attempts and timers on asyncio, so under trio (or anyio's trio backend) they cannot run."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        from ._errors import UnsupportedError

        rule = (
            "the async helpers run on asyncio and need its running event loop (asyncio.run, or anyio's asyncio"
            " backend); trio and anyio's trio backend are not supported (run a sync helper in a worker thread there)"
        )
        raise UnsupportedError(f"`event_loop` cannot run here: {rule}", field="event_loop", rule=rule) from None


async def run_concurrently(
    run: Run, start: Callable[[Attempt], Awaitable[Any]], sleep: Optional[Sleeper] = None
) -> Ending:
    """Runs the operation with its attempts as tasks (``start(attempt)``); returns the ending once every attempt
    task it started has finished (as a TaskGroup: each task cancelled once, then awaited)."""
    loop = running_loop()
    plans: Dict[asyncio.Task[Any], AttemptPlan] = {}  # every attempt not yet reported
    running: Dict[int, asyncio.Task[Any]] = {}
    cancelled: Set[asyncio.Task[Any]] = set()  # every task cancelled (aborted, or a race lost): never twice
    finished: List[asyncio.Task[Any]] = []
    waiter: List[Optional[asyncio.Future[None]]] = [None]

    def on_done(task: asyncio.Task[Any]) -> None:
        finished.append(task)
        if waiter[0] is not None and not waiter[0].done():
            waiter[0].set_result(None)

    try:
        slept_until = None  # the wake time the caller's sleep was last called for
        timer_ended = False  # the loop's timer ran out: the driver judges the clock before its next action
        while True:
            action = run.timer_ended() if timer_ended else run.poll()
            timer_ended = False
            if isinstance(action, AttemptPlan):
                task = loop.create_task(_attempt(run, start, action))
                plans[task], running[action.attempt] = action, task
                task.add_done_callback(on_done)
            elif isinstance(action, AbortAttempt):
                aborted = running.pop(action.attempt, None)
                if aborted is not None:
                    aborted.cancel()
                    cancelled.add(aborted)
            elif isinstance(action, Ending):
                ending = action
                break
            elif isinstance(action, Sleep):  # until then, or until an attempt ends
                delay = action.until_ms / 1000.0 - run.clock()
                if not finished and delay > 0:
                    fake = FAKES[-1] if sleep is None and FAKES else None  # fake_time(): the helper's own sleep is its
                    own = fake.async_sleep if fake is not None else sleep
                    if own is not None and not running and action.until_ms != slept_until:
                        slept_until = action.until_ms
                        await _slept(own(delay))
                    else:  # what a sleep that returned early left (a fake one: its clock did not move) waits here
                        await _wake(loop, waiter, delay)
                        if fake is not None and not finished:  # attempts still run after that wait: the fake clock
                            fake.advance_to(action.until_ms / 1000.0)  # moves to its end, or it would never come
                        else:
                            timer_ended = not finished
                while finished:
                    _report(run, finished.pop(0), plans, running)
    except BaseException:  # the caller's cancellation, or an invalid request raised again: the operation ends
        _cancel(run)
        if plans:  # a cancellation meanwhile, or an error disposing: the error being handled propagates
            await _finish(run, plans, cancelled, failing=True)
        raise
    caller_cancelled = await _finish(run, plans, cancelled, failing=False) if plans else None
    if caller_cancelled is not None:  # cancelled while the attempts unwound: that cancellation, its message kept
        _drop(run, ending)
        raise caller_cancelled
    return ending


async def _finish(
    run: Run, plans: Dict[asyncio.Task[Any], AttemptPlan], cancelled: Set[asyncio.Task[Any]], failing: bool
) -> Optional[asyncio.CancelledError]:
    """Cancels the attempt tasks not reported that still run (once each), waits until every one has finished, and
    disposes of what they returned; returns the caller's first cancellation if its task was cancelled meanwhile (it
    waits on regardless, as a TaskGroup does, so that nothing is left behind). The first error an ``on_discard``
    raises is raised after every value is disposed of, unless the operation is ``failing`` (its error is the one
    raised)."""
    caller_cancelled: Optional[asyncio.CancelledError] = None
    pending = {task for task in plans if not task.done()}
    for task in pending - cancelled:
        task.cancel()
    while pending:
        try:
            _, pending = await asyncio.wait(pending)
        except asyncio.CancelledError as cancellation:
            caller_cancelled = caller_cancelled or cancellation
    first: Optional[Exception] = None
    for task in plans:
        try:
            _dispose(run, task)
        except Exception as error:
            first = first or error
    if first is not None and not failing and caller_cancelled is None:
        raise first
    return caller_cancelled


async def _wake(loop: asyncio.AbstractEventLoop, waiter: List[Optional[asyncio.Future[None]]], delay: float) -> None:
    future = waiter[0] = loop.create_future()
    timer = loop.call_later(delay, _set, future)
    try:
        await future
    finally:
        timer.cancel()
        waiter[0] = None


def _set(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _attempt(run: Run, start: Callable[[Attempt], Awaitable[Any]], plan: AttemptPlan) -> Any:
    attempt = Attempt(plan, run)
    CURRENT.set(attempt)  # the task's own context: current_attempt() inside this attempt
    return await start(attempt)


def _report(run: Run, task: asyncio.Task[Any], plans: Dict[Any, AttemptPlan], running: Dict[int, Any]) -> None:
    plan = plans.pop(task)
    aborted = running.pop(plan.attempt, None) is None  # the loop forgets an attempt before it cancels it
    if task.cancelled():
        if aborted:
            return  # aborted: the driver has counted it already
        task.result()  # it cancelled itself: its CancelledError ends the operation and propagates, never retried
    error = task.exception()
    if error is not None and not isinstance(error, Exception):
        task.result()  # GeneratorExit, a BaseException of the application's: the caller gave up, never retried
    run.settle(plan, None if error is not None else task.result(), error)


def _slept(waited: Any) -> Awaitable[Any]:
    """What the caller's ``sleep(seconds)`` returned, to await; a sync sleep (``time.sleep``: it returned None, having
    blocked the event loop) is refused naming it, rather than failing in ``await``."""
    if inspect.isawaitable(waited):
        return waited
    from ._errors import ArgumentTypeError

    rule = f"must be {ASYNC_SLEEP}"
    message = f"invalid argument `sleep`: {rule}, got a function that returned {type(waited).__name__}"
    raise ArgumentTypeError(message, field="sleep", rule=rule)


def _cancel(run: Run) -> None:
    """Ends the operation on a failure path. An error an observer raises while the cancel is observed is dropped,
    so the error being handled is the one raised, as in the Rust loops (``run.rs``)."""
    try:
        run.cancel()
    except Exception:
        pass


def _drop(run: Run, ending: Ending) -> None:
    """Disposes of the value ``ending`` holds (the winner's, or the last one a typed ending carries): the caller,
    cancelled while the other attempts unwound, gets its cancellation instead."""
    try:
        value = run.end(ending)
    except Exception as failed:
        value = getattr(failed, "last_value", None)
    if value is not None:
        try:
            run.dispose(value)
        except Exception:  # the cancellation is what is raised
            pass


def _dispose(run: Run, task: asyncio.Task[Any]) -> None:
    """Disposes of what an attempt not reported returned (an error it raised is dropped, retrieved)."""
    if not task.cancelled() and task.exception() is None:
        run.dispose(task.result())


def wrap_coroutine_function(
    fn: Callable[..., Awaitable[Any]], config: Config, sleep: Optional[Sleeper]
) -> Callable[..., Awaitable[Any]]:
    """The coroutine side of ``@retry``: each attempt a task, hedges included."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        running_loop()  # before the operation starts: under trio, nothing is started
        run = config.run()
        return run.end(await run_concurrently(run, lambda attempt: fn(*args, **kwargs), sleep))

    return call


class AsyncAttempts:
    """The asyncio attempt loop: ``async for attempt in async_attempts(policy): async with attempt: ...``.

    Same contract as :class:`retryplan.Attempts` (the same loop, in the engine), sleeping with ``asyncio.sleep``.
    """

    def __init__(self, run: Run, sleep: Sleeper) -> None:
        self._attempts = Attempts(run, sleep)
        self._sleep = sleep

    @property
    def driver(self) -> Driver:
        """The core's driver of this operation (its idempotency key, deadline, attempts started)."""
        return self._attempts.driver

    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key."""
        return self._attempts.idempotency_key

    def __aiter__(self) -> AsyncAttempts:
        return self

    async def __anext__(self) -> Attempt:
        running_loop()  # refuses at once without an asyncio loop (under trio)
        attempts = self._attempts
        step = attempts.step(True)
        sleep: Sleeper = self._sleep
        while isinstance(step, float):
            if step > 0:
                try:
                    await _slept(sleep(step))
                except BaseException:
                    _cancel(attempts.run)
                    raise
            # The loop's timer ran out (not the caller's sleep, which may return early): the driver judges the clock.
            step = attempts.step(False, timer_ended=sleep is _loop_sleep and step > 0)
            sleep = _loop_sleep  # what a sleep that returned early left (a fake one: its clock did not move)
        if step is None:
            raise StopAsyncIteration
        return step


async def enter(attempt: Attempt) -> Attempt:
    """``async with attempt:``: the block is cancelled at the attempt's abort time; ``current_attempt()`` inside it
    is this attempt."""
    running_loop()
    timer = attempt_timeout(attempt.time_left())
    await timer.__aenter__()
    attempt.timer = (timer, CURRENT.set(attempt))
    return attempt


async def leave(attempt: Attempt, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
    """Leaving ``async with attempt:``: a block cut at its abort time has timed out (the driver counts it
    itself); otherwise as ``with attempt:``."""
    (timer, token), attempt.timer = attempt.timer, None
    CURRENT.reset(token)
    try:
        await timer.__aexit__(exc_type, exc, tb)
    except TimeoutError:
        attempt.cut()
        return True
    return attempt.__exit__(exc_type, exc, tb)


def attempt_timeout(seconds: float) -> Any:
    """``asyncio.timeout`` (3.11+), else a small equivalent: cancels the block, which then raises TimeoutError."""
    timeout = getattr(asyncio, "timeout", None)
    return timeout(seconds) if timeout is not None else _Timeout(seconds)


class _Timeout:
    def __init__(self, seconds: float) -> None:
        self.seconds, self.fired = seconds, False
        self.timer: Optional[asyncio.TimerHandle] = None

    async def __aenter__(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.timer = asyncio.get_running_loop().call_later(self.seconds, self.fire, task)

    def fire(self, task: asyncio.Task[Any]) -> None:
        self.fired = True
        task.cancel()

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.fired and isinstance(exc, asyncio.CancelledError):
            raise TimeoutError from exc


def async_attempts(
    policy: Policy,
    *,
    idempotency_key: Optional[str] = None,
    deadline: Optional[float] = None,
    sleep: Optional[Sleeper] = None,
    **options: Unpack[LoopOptions],
) -> AsyncAttempts:
    """Start one operation and iterate over its attempts with ``async for`` (one at a time; options as ``attempts``;
    ``sleep``: default, or None, ``asyncio.sleep``, or the fake of ``retryplan.testing.fake_time()`` while one is
    active)."""
    sleep = default_sleep if sleep is None else sleep  # None: the helper's own, as for every helper
    return AsyncAttempts(loop_run(policy, idempotency_key, deadline, sleep, True, options), sleep)
