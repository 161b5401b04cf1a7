"""Sync helpers: the ``retry`` decorator and the ``attempts()`` loop, adapters over the core's driver.

They run one attempt at a time (``sequential``): a policy with a ``hedging``
section is refused (``UnsupportedError``, field ``hedging``) unless
``sequential_attempts=True``. A running call cannot be interrupted: one that
returns after its abort time counts as ``timed_out`` (its value is dropped).
Between attempts they sleep as the driver says; a ``KeyboardInterrupt`` ends
the operation (``cancelled``) and propagates.
"""

from __future__ import annotations

import time

from ._native import Attempt, Attempts, Policy, Run
from ._run import Config, _is_coroutine_function, current_attempt, default_sleep, loop_run

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, NoReturn, Optional, TypeVar

    from ._native import Dependency, Stats
    from ._run import LoopOptions, OnDecision, OutcomeOfError, OutcomeOfResult, Unpack

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Attempt", "Attempts", "attempts", "current_attempt", "retry"]

_WRAPPED = ("__module__", "__name__", "__qualname__", "__doc__")


def retry(
    policy: Policy,
    *,
    outcome_of_error: Optional[OutcomeOfError] = None,
    outcome_of_result: Optional[OutcomeOfResult] = None,
    on_discard: Optional[Callable[[Any], Any]] = None,
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
    core's verdict for an unknown error, ``ambiguous``). The call returns the winner's value or raises
    ``GaveUpError``, ``ReconcileRequiredError`` or ``RestartRequiredError`` (with the last value, when the
    ending came after one, as ``last_value``). ``on_discard(value)`` receives each value the core drops: one
    ``outcome_of_result`` failed that a later attempt replaced, a hedge's that lost or came back late (never
    the value returned or carried by the ending). Inside the
    call, :func:`current_attempt` gives the attempt's timeout and ids.
    ``on_decision(event)`` sees every decision; ``stats`` counts them.

    A plain function runs one attempt at a time (see the module doc);
    ``async def`` attempts (or an object's ``async def __call__``) run as
    tasks, cancelled at their abort time, and a hedging policy hedges; a
    plain function that returns a coroutine is refused when called. ``outcome_of_exception`` is the deprecated name
    of ``outcome_of_error``. The options are checked here, the function when
    decorated: a generator function is refused (its call returns the generator
    at once, so no error it raises would ever reach the retry).
    """
    if callable(policy) and not isinstance(policy, Policy):  # a bare @retry, as tenacity's: `policy` is the function
        _refuse_function(
            "policy",
            "must be a retryplan.Policy: write @retryplan.retry(policy), not a bare @retryplan.retry",
            policy,
        )

    def configured(**varying: Any) -> Config:
        """The helper's configuration: the options given, and what depends on the function (its name, its kind)."""
        return Config(
            policy,
            outcome_of_result=outcome_of_result,
            on_discard=on_discard,
            on_decision=on_decision,
            logger=logger,
            stats=stats,
            clock=clock,
            seed=seed,
            dependency=dependency,
            sequential_attempts=sequential_attempts,
            **varying,
        )

    # Every option's type now, not when the function comes (they are checked again then: they are few).
    configured(outcome_of_error=outcome_of_error or outcome_of_exception, name=name or "operation", sequential=True)

    def decorate(fn: F) -> F:
        if not callable(fn):
            _refuse_function("fn", "must be a function to retry", fn)
        if _is_generator_function(fn):
            rule = (
                "must not be a generator function (its call returns the generator at once: the retry would never see"
                " an error it raises); retry a function that returns the values, or use retryplan.attempts()"
            )
            _refuse_function("fn", rule, fn)
        label = name or _operation_name(fn)
        is_async = _is_coroutine_function(fn) or _is_async_callable_object(fn)
        config = configured(
            outcome_of_error=outcome_of_error,
            outcome_of_exception=outcome_of_exception,
            name=label,
            sequential=not is_async,
            sleep=sleep,
        ).check()
        if is_async:
            from ._async import wrap_coroutine_function

            wrapper = wrap_coroutine_function(fn, config, sleep)
        else:
            wrapper = _wrap_function(fn, config, sleep or default_sleep)
        for attribute in _WRAPPED:
            if hasattr(fn, attribute):
                setattr(wrapper, attribute, getattr(fn, attribute))
        if hasattr(fn, "__code__"):  # a function's attributes; an object's would be materialised, slowing it down
            wrapper.__dict__.update(fn.__dict__)
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def _refuse_function(field: str, rule: str, got: Any) -> NoReturn:
    """Raises ArgumentTypeError naming ``field`` and its ``rule``, and what was given."""
    from ._errors import ArgumentTypeError

    what = "a generator function" if _is_generator_function(got) else type(got).__name__
    raise ArgumentTypeError(f"invalid argument `{field}`: {rule}, got {what}", field=field, rule=rule)


def _is_generator_function(fn: Any) -> bool:
    """True for a ``def`` with ``yield`` (sync or async): ``inspect``'s test without importing it."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & 0x220)  # CO_GENERATOR | CO_ASYNC_GENERATOR


def _is_async_callable_object(fn: Any) -> bool:
    """True for an object whose class has an ``async def __call__`` (its call returns a coroutine, as an
    ``async def``'s does)."""
    return not hasattr(fn, "__code__") and _is_coroutine_function(type(fn).__call__)


async def _a_coroutine() -> None:
    pass


_first = _a_coroutine()
_COROUTINE = type(_first)  # types.CoroutineType, without importing types
_first.close()
del _first


def _refuse_coroutine(returned: Any, fn: Any) -> NoReturn:
    """A plain function returned a coroutine under ``@retry``: it is closed (it never ran, and warns of nothing), and
    the call is refused (ArgumentTypeError naming ``fn``), or the sync loop would take it for a value and retry
    nothing in it (called by the engine's loop, before the driver counts the attempt, which ends ``cancelled``)."""
    returned.close()
    rule = (
        "must not return a coroutine from a plain function (the retry would take the coroutine for the value, and"
        " never see an error it raises); decorate the async def itself, or make the wrapper an async def that"
        " awaits it"
    )
    from ._errors import ArgumentTypeError

    message = f"invalid argument `fn`: {rule}, got {_operation_name(fn)}, a plain function that returned a coroutine"
    raise ArgumentTypeError(message, field="fn", rule=rule)


def _operation_name(fn: Any) -> str:
    """A function's qualified name; ``operation`` for an anonymous one (a lambda), as JS and Kotlin name it."""
    qualname = str(getattr(fn, "__qualname__", "operation"))
    return "operation" if qualname.endswith("<lambda>") else qualname


def _wrap_function(fn: Callable[..., Any], config: Config, sleep: Callable[[float], Any]) -> Callable[..., Any]:
    settings, run = config.native, Run.sequential  # the sequential host loop, in the engine (it refuses a coroutine)

    def call(*args: Any, **kwargs: Any) -> Any:
        return run(settings, fn, args, kwargs, sleep)

    return call


def attempts(
    policy: Policy,
    *,
    idempotency_key: Optional[str] = None,
    deadline: Optional[float] = None,
    sleep: Optional[Callable[[float], Any]] = None,
    **options: Unpack[LoopOptions],
) -> Attempts:
    """Start one operation and iterate over its attempts (sync, one at a time).

    ``deadline`` is a caller deadline on ``clock`` (seconds); ``sleep`` waits between attempts (default, or None:
    ``time.sleep``, or the fake of ``retryplan.testing.fake_time()`` while one is active). The other
    options (``outcome_of_error``, ``on_discard``, ``on_decision``, ``logger``, ``stats``, ``clock``, ``seed``,
    ``name``, ``dependency``, ``sequential_attempts``) are :func:`retry`'s (``on_discard`` receives the
    ``result=`` of a report the core drops); ``outcome_of_result`` is refused: the loop reports each outcome.
    """
    sleep = default_sleep if sleep is None else sleep  # None: the helper's own, as for every helper
    return Attempts(loop_run(policy, idempotency_key, deadline, sleep, False, options), sleep)
