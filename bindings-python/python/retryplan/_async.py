"""asyncio helpers: the ``async for`` attempt loop and the coroutine side of ``@retry``.

Waits use ``asyncio.sleep``; cancelling the task cancels the wait, is
reported to the engine as a cancel (reason ``cancelled``) and propagates.
"""

import asyncio
import functools
import logging
import time
from typing import Any, Awaitable, Callable, List, Optional

from ._errors import AttemptRecord
from ._helpers import (
    _CURRENT,
    SUCCESS,
    _TIMED_OUT,
    Attempt,
    OutcomeOfException,
    _is_step,
    _Options,
    _Run,
)
from ._native import Decision, Dependency, Operation, Policy, StartAttempt, Stats, Succeeded, Wait

__all__ = ["AsyncAttempts", "async_attempts"]


async def _wait(run: _Run, decision: Wait, sleep: Callable[[float], Awaitable[Any]]) -> Any:
    """Sleeps until the engine's ``until_ms``; a cancelled wait is the caller cancelling."""
    delay = run.seconds_until(decision)
    if delay > 0:
        try:
            await sleep(delay)
        except BaseException:
            run.cancel()
            raise
    return run.poll()


class AsyncAttempts:
    """The asyncio attempt loop: ``async for attempt in async_attempts(policy): with attempt: ...``.

    Same contract as :class:`retryplan.Attempts`, sleeping with ``asyncio.sleep``.
    """

    def __init__(
        self,
        options: _Options,
        sleep: Callable[[float], Awaitable[Any]],
        idempotency_key: Optional[str],
        deadline: Optional[float],
    ) -> None:
        self._options = options
        self._sleep = sleep
        self._run = options.run(idempotency_key, deadline)
        self._pending: Any = None
        self._attempt: Optional[Attempt] = None
        self.decision: Optional[Decision] = None

    @property
    def operation(self) -> Operation:
        """The engine's operation (its idempotency key, deadline, ...)."""
        return self._run.op

    @property
    def history(self) -> List[AttemptRecord]:
        """Every attempt reported so far."""
        return self._run.history

    def __aiter__(self) -> "AsyncAttempts":
        return self

    async def __anext__(self) -> Attempt:
        run = self._run
        if run.op.is_ended and self._pending is None:
            raise StopAsyncIteration
        attempt = self._attempt
        if attempt is not None and not attempt._reported:
            raise RuntimeError(
                f"attempt {attempt.number} ended without an outcome: use `with attempt:` or attempt.report(...)"
            )
        decision, self._pending = self._pending, None
        if decision is None:
            decision = run.poll()
        while True:
            self.decision = decision
            kind = type(decision)
            if kind is StartAttempt:
                self._attempt = Attempt(decision, run, self, self._options.outcome_of_exception)
                return self._attempt
            if kind is Wait:
                decision = await _wait(run, decision, self._sleep)
                continue
            if kind is Succeeded:
                raise StopAsyncIteration
            raise run.failure(decision) from run.last_exception


def async_attempts(
    policy: Policy,
    *,
    idempotency_key: Optional[str] = None,
    deadline: Optional[float] = None,
    outcome_of_exception: Optional[OutcomeOfException] = None,
    logger: Optional[logging.Logger] = None,
    stats: Optional[Stats] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    seed: Optional[int] = None,
    name: str = "operation",
    dependency: Optional[Dependency] = None,
) -> AsyncAttempts:
    """Start one operation and iterate over its attempts with ``async for``."""
    options = _Options(policy, outcome_of_exception, None, logger, stats, clock, seed, name, dependency)
    return AsyncAttempts(options, sleep, idempotency_key, deadline)


def wrap_coroutine_function(
    fn: Callable[..., Awaitable[Any]],
    options: _Options,
    sleep: Optional[Callable[[float], Awaitable[Any]]],
) -> Callable[..., Awaitable[Any]]:
    """The coroutine side of ``@retry``: each attempt runs under ``asyncio.wait_for`` with its timeout."""
    outcome_of_exception = options.outcome_of_exception
    outcome_of_result = options.outcome_of_result
    do_sleep = sleep or asyncio.sleep

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        run = options.run(None, None)
        token = _CURRENT.set(run)
        try:
            decision = run.poll()
            while True:
                kind = type(decision)
                if kind is StartAttempt:
                    run.current = start = decision
                    try:
                        timeout = start.abort_at_ms / 1000.0 - run.clock()
                        result = await asyncio.wait_for(fn(*args, **kwargs), max(timeout, 0.0))
                    except asyncio.TimeoutError as exc:
                        decision = _after_failure(run, start, _TIMED_OUT, exc)
                    except Exception as exc:
                        decision = _after_failure(run, start, outcome_of_exception(exc), exc)
                    except BaseException as exc:
                        run.cancelled_attempt(start, exc)
                        raise
                    else:
                        outcome = SUCCESS if outcome_of_result is None else outcome_of_result(result)
                        decision = run.report(start, outcome, None, result)
                        if type(decision) is Succeeded:
                            run.records.clear()  # unread after a success: frees the failed attempts now (no cycle)
                            return result
                    run.current = None
                elif kind is Wait:
                    decision = await _wait(run, decision, do_sleep)
                elif kind is Succeeded:
                    return run.last_result
                else:
                    raise run.failure(decision) from run.last_exception
        finally:
            _CURRENT.reset(token)

    return call


def _after_failure(run: _Run, start: StartAttempt, outcome: Any, exc: BaseException) -> Any:
    decision = run.report(start, outcome, exc)
    if not _is_step(decision) and type(decision) is not Succeeded:
        raise run.failure(decision) from exc
    return decision
