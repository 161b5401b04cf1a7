"""Sync helpers: the ``retry`` decorator and the ``attempts()`` loop, adapters over the core's driver.

They run one attempt at a time (``sequential``): a policy with a ``hedging``
section is refused (``UnsupportedError``, field ``hedging``) unless
``sequential_attempts=True``. A running call cannot be interrupted: one that
returns after its abort time counts as ``timed_out`` (its value is dropped).
Between attempts they sleep as the driver says; a ``KeyboardInterrupt`` ends
the operation (``cancelled``) and propagates.
"""

from __future__ import annotations

import sys
import time

from ._native import AttemptPlan, Ending
from ._run import CURRENT, Attempt, Config, Run, current_attempt

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, Optional, Tuple, TypeVar

    from ._native import Dependency, Driver, Outcome, Policy, Stats
    from ._run import OnDecision, OutcomeOfError, OutcomeOfResult

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Attempt", "Attempts", "attempts", "current_attempt", "retry"]

_WRAPPED = ("__module__", "__name__", "__qualname__", "__doc__")


def retry(
    policy: Policy,
    *,
    outcome_of_error: Optional[OutcomeOfError] = None,
    outcome_of_result: Optional[OutcomeOfResult] = None,
    on_decision: Optional[OnDecision] = None,
    logger: Any = None,
    stats: Optional[Stats] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Optional[Callable[[float], Any]] = None,
    seed: Optional[int] = None,
    name: Optional[str] = None,
    dependency: Optional[Dependency] = None,
    sequential_attempts: bool = False,
    outcome_of_exception: Optional[OutcomeOfError] = None,
) -> Callable[[F], F]:
    """Decorate a function (sync or ``async def``) so each call is one operation under ``policy``.

    Each attempt calls the function: a return is the winner's value (or the
    outcome ``outcome_of_result(value)`` says); an exception goes through the
    failure table, then ``outcome_of_error(exc)`` (an Outcome, or None for the
    verdict ``not_retryable``). The call returns the winner's value or raises
    ``GaveUpError``, ``ReconcileRequired`` or ``RestartRequired``. Inside the
    call, :func:`current_attempt` gives the attempt's timeout and ids.
    ``on_decision(event)`` sees every decision; ``stats`` counts them.

    A plain function runs one attempt at a time (see the module doc);
    ``async def`` attempts run as tasks, cancelled at their abort time, and
    a hedging policy hedges. ``outcome_of_exception`` is the deprecated name
    of ``outcome_of_error``.
    """

    def decorate(fn: F) -> F:
        label = name or str(getattr(fn, "__qualname__", "operation"))
        is_async = _is_coroutine_function(fn)
        config = Config(
            policy,
            outcome_of_error=outcome_of_error,
            outcome_of_exception=outcome_of_exception,
            outcome_of_result=outcome_of_result,
            on_decision=on_decision,
            logger=logger,
            stats=stats,
            clock=clock,
            seed=seed,
            name=label,
            dependency=dependency,
            sequential=not is_async,
            sequential_attempts=sequential_attempts,
        ).check()
        if is_async:
            from ._async import wrap_coroutine_function

            wrapper = wrap_coroutine_function(fn, config, sleep)
        else:
            wrapper = _wrap_function(fn, config, sleep or time.sleep)
        for attribute in _WRAPPED:
            if hasattr(fn, attribute):
                setattr(wrapper, attribute, getattr(fn, attribute))
        if hasattr(fn, "__code__"):  # a function's attributes; an object's would be materialised, slowing it down
            wrapper.__dict__.update(fn.__dict__)
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def _is_coroutine_function(fn: Any) -> bool:
    """``inspect.iscoroutinefunction`` without importing inspect unless something else did."""
    inspect = sys.modules.get("inspect")
    if inspect is not None:
        return bool(inspect.iscoroutinefunction(fn))
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & 0x80)  # CO_COROUTINE


def _wrap_function(fn: Callable[..., Any], config: Config, sleep: Callable[[float], Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        run = Run(config, {})
        token = CURRENT.set(run)
        try:
            return run.end(run.call(fn, args, kwargs, sleep))
        finally:
            CURRENT.reset(token)

    return call


class AttemptLoop:
    """What the sync and the asyncio attempt loops share: the operation, and the action after a result."""

    def __init__(self, config: Config, sleep: Any, options: Dict[str, Any]) -> None:
        self._run = config.run(**options)
        self._sleep = sleep
        self._attempt: Optional[Attempt] = None
        self.pending: Any = None  # the action that followed the last attempt's result

    @property
    def driver(self) -> Driver:
        """The core's driver of this operation (its idempotency key, deadline, attempts started)."""
        driver: Driver = self._run.driver
        return driver

    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key."""
        return self.driver.idempotency_key

    def _resume(self) -> Any:
        """The action after the last attempt's result, once the attempt has reported (else misuse)."""
        attempt, pending = self._attempt, self.pending
        if attempt is not None and not attempt._reported:
            message = f"attempt {attempt.number} ended without an outcome: use `with attempt:` or attempt.report(...)"
            raise RuntimeError(message)
        self.pending = None
        return pending

    def _next(self, step: Any) -> Optional[Attempt]:
        """The attempt for a planned step, or None at the ending (raising the typed ending unless it succeeded)."""
        if isinstance(step, Ending):
            self._attempt = None
            self._run.end(step)
            return None
        self._attempt = attempt = Attempt(step, self._run, self)
        return attempt


class Attempts(AttemptLoop):
    """The sync attempt loop: ``for attempt in attempts(policy): with attempt: ...``.

    Each iteration is one attempt the driver started; between attempts the
    loop sleeps as the driver says. The loop ends after a success and raises
    the typed ending (``GaveUpError``, ``ReconcileRequired``,
    ``RestartRequired``) when the operation ends otherwise.
    """

    def __iter__(self) -> Attempts:
        return self

    def __next__(self) -> Attempt:
        pending = self._resume()
        attempt = self._next(pending if type(pending) is AttemptPlan else self._run.next_plan(self._sleep, pending))
        if attempt is None:
            raise StopIteration
        return attempt


def _options(idempotency_key: Optional[str], deadline: Optional[float]) -> Dict[str, Any]:
    if idempotency_key is None and deadline is None:
        return {}
    return {"idempotency_key": idempotency_key, "deadline": deadline}


def attempts(
    policy: Policy,
    *,
    idempotency_key: Optional[str] = None,
    deadline: Optional[float] = None,
    outcome_of_error: Optional[OutcomeOfError] = None,
    on_decision: Optional[OnDecision] = None,
    logger: Any = None,
    stats: Optional[Stats] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Any] = time.sleep,
    seed: Optional[int] = None,
    name: str = "operation",
    dependency: Optional[Dependency] = None,
    sequential_attempts: bool = False,
    outcome_of_exception: Optional[OutcomeOfError] = None,
) -> Attempts:
    """Start one operation and iterate over its attempts (sync, one at a time).

    ``deadline`` is a caller deadline on ``clock`` (seconds); ``seed`` fixes
    the jitter and ids (tests only: the default draws from the OS);
    ``dependency`` shares a retry budget, breaker and retry cap with every
    operation that names it. The other options are :func:`retry`'s.
    """
    config = Config(
        policy, outcome_of_error=outcome_of_error, outcome_of_exception=outcome_of_exception, on_decision=on_decision,
        logger=logger, stats=stats, clock=clock, seed=seed, name=name, dependency=dependency, sequential=True,
        sequential_attempts=sequential_attempts,
    )  # fmt: skip
    return Attempts(config, sleep, _options(idempotency_key, deadline))
