"""One operation as every helper runs it: the settings a helper was given, and what the engine calls back.

Every helper (``@retry``, ``attempts()``, ``async_attempts()``, the httpx
transports, a requests adapter) is an adapter over the engine's ``Run``
(``retryplan._native``): one operation over the core's ``Driver``, which
decides when attempts start, time out, hedge, wait and end, with the value or
error of its latest accepted result. The sequential host loop (``Run.call``,
``Attempts``) runs in the engine; the asyncio loop (``retryplan._async``)
reports through ``Run.settle``. One rule for an attempt that raises: the one
failure table (``_failures``), then the ``outcome_of_error`` hook, else the
core's verdict for an unknown error (``ambiguous``); an invalid request is rethrown unchanged.

This module keeps what runs only when someone listens or an operation fails:
``observed`` (the ``on_decision`` hook and the log) and ``failure`` (the typed
ending). Nothing here imports more than the compiled engine: logging is used
only when the application imported it (else nobody can be listening).
"""

from __future__ import annotations

import os
import sys
import time
from _contextvars import ContextVar

from ._native import (
    Attempt,
    Dependency,
    Driver,
    GaveUp,
    Reconcile,
    Run,
    Settings,
    Stats,
    Succeeded,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, List, Literal, Optional, Protocol, Tuple, Union

    from ._errors import OperationFailedError
    from ._native import Decision, Ending, Event, Outcome, Policy

    if sys.version_info >= (3, 11):
        from typing import TypedDict
        from typing import Unpack as Unpack  # for the helpers' signatures
    else:
        from typing_extensions import TypedDict
        from typing_extensions import Unpack as Unpack

    OutcomeOfError = Callable[[BaseException], Optional[Outcome]]
    OutcomeOfResult = Callable[[Any], Optional[Outcome]]
    OnDecision = Callable[[Event], Any]
    Concurrency = Literal["concurrent", "sequential", "sequential_without_hedging"]

    class HelperOptions(TypedDict, total=False):
        """What every helper takes besides its policy, written once (each as :func:`retryplan.retry` says)."""

        outcome_of_error: Optional[OutcomeOfError]
        """What an error the failure table does not know means (an Outcome; None: ``ambiguous``)."""
        on_decision: Optional[OnDecision]
        """Sees every decision event."""
        logger: Any
        """The logger of endings (INFO) and steps (DEBUG); default ``retryplan`` once logging is imported."""
        stats: Optional[Stats]
        """Counts every decision."""
        clock: Callable[[], float]
        """The monotonic clock, float seconds (default ``time.monotonic``)."""
        seed: Optional[int]
        """Fixes the jitter and ids (tests only: the default draws from the OS)."""
        dependency: Optional[Dependency]
        """Shares a retry budget, breaker and retry cap with every operation that names it."""

    class LoopOptions(HelperOptions, total=False):
        """The options of an attempt loop (``attempts()``, ``async_attempts()``)."""

        name: str
        """The operation's name in logs and endings (default ``operation``)."""
        sequential_attempts: bool
        """Accept a policy with ``hedging`` and run it without its hedges."""
        on_discard: Optional[Callable[[Any], Any]]
        """Receives each reported ``result=`` the core drops."""
        outcome_of_exception: Optional[OutcomeOfError]
        """Deprecated name of ``outcome_of_error``."""

    class Fake(Protocol):
        """What the helpers use of an active ``retryplan.testing.FakeTime`` (typed here: ``testing`` imports this)."""

        def monotonic(self) -> float: ...
        def sleep(self, seconds: float) -> None: ...
        async def async_sleep(self, seconds: float) -> None: ...
        def advance_to(self, when: float) -> None: ...

    class HttpOptions(HelperOptions, total=False):
        """The options of an HTTP helper (the httpx transports, the requests adapter)."""

        wall_clock: Optional[Callable[[], float]]
        """The wall clock Retry-After dates are read against (default, or None: ``time.time()``, looked up when read,
        so that a test's frozen wall clock is the one read)."""
        request_id_header: Optional[str]
        """Each attempt's request id header (default ``X-Request-Id``; None: not sent)."""
        idempotency_key_header: Optional[str]
        """The idempotency key's header (default ``Idempotency-Key``; None: neither read nor sent)."""


DEBUG, INFO = 10, 20  # logging's levels, without importing logging

CURRENT: ContextVar[Any] = ContextVar("retryplan_current_attempt", default=None)
"""The Run (sync ``@retry``) or Attempt (a task of the async helpers) whose attempt runs in this context."""

SERVED: ContextVar[Any] = ContextVar("retryplan_served", default=None)
"""The request being served in this context (``retryplan.propagation``'s ``Served``, or None): every helper's
operation starts from its caller's context and records its ending in its answer (the native ``Run``). Here,
not in ``propagation``, so that the first call of a helper imports nothing more."""

FAKES: List[Fake] = []
"""The active ``retryplan.testing.fake_time()`` fakes, innermost last: the last one's clock is every helper's
without a clock of its own (the engine reads it: ``Settings.fake_clock``), and its sleep their sleep."""


def default_sleep(seconds: float) -> None:
    """The sync helpers' own sleep: the active fake's (``retryplan.testing.fake_time()``), else ``time.sleep`` as it
    is when called (a test's patch of it is called; the loop then refuses a sleep that did not move its clock)."""
    if FAKES:
        FAKES[-1].sleep(seconds)
    else:
        time.sleep(seconds)


if hasattr(os, "register_at_fork"):  # the helpers draw OS randomness ahead: a forked child must not reuse it
    os.register_at_fork(after_in_child=Settings.forget_entropy)


class Config:
    """What a helper was given, checked once when the helper is made (``sleep`` is only checked: each helper
    sleeps its own way)."""

    __slots__ = ("policy", "on_decision", "stats", "clock", "seed", "dependency", "concurrency", "native")

    def __init__(
        self,
        policy: Policy,
        *,
        outcome_of_error: Optional[OutcomeOfError] = None,
        outcome_of_exception: Optional[OutcomeOfError] = None,
        outcome_of_result: Optional[OutcomeOfResult] = None,
        on_decision: Optional[OnDecision] = None,
        logger: Any = None,
        stats: Optional[Stats] = None,
        clock: Callable[[], float] = time.monotonic,
        seed: Optional[int] = None,
        name: str = "operation",
        dependency: Optional[Dependency] = None,
        sequential: bool = False,
        sequential_attempts: bool = False,
        on_discard: Optional[Callable[[Any], Any]] = None,
        dispose: Optional[Callable[[Any], Any]] = None,
        sleep: Any = None,
        **unknown: Any,
    ) -> None:
        if on_discard is not None and dispose is not None:  # an HTTP helper closes the responses it drops itself
            unknown["on_discard"] = on_discard
        if unknown:  # a helper hands its options on as given: one it does not have is named here
            _not_an_option(next(iter(unknown)))
        if outcome_of_exception is not None:
            import warnings

            message = "outcome_of_exception is deprecated (removed in the next release): pass outcome_of_error"
            warnings.warn(message, DeprecationWarning, stacklevel=3)
            outcome_of_error = outcome_of_error or outcome_of_exception
        _check_types(
            stats=(stats, Stats, "a retryplan.Stats"),
            dependency=(dependency, Dependency, "a retryplan.Dependency"),
            outcome_of_error=(outcome_of_error, None, "a function of the error (an Outcome, or None)"),
            outcome_of_result=(outcome_of_result, None, "a function of the value (an Outcome, or None)"),
            on_decision=(on_decision, None, "a function of each decision event"),
            clock=(clock, None, "a function returning float seconds, such as time.monotonic"),
            on_discard=(on_discard, None, "a function of each value dropped"),
            logger=(logger, "isEnabledFor", "a logging.Logger (or an object with its isEnabledFor and log)"),
            sequential_attempts=(sequential_attempts, bool, "a bool"),
            name=(name, str, "a str"),
        )
        check_sleep(sleep, asynchronous=not sequential)  # a helper with tasks is an async one, and awaits its sleep
        if sequential_attempts and not sequential:  # ignored there, it would let the policy's hedges run
            rule = "is for a helper that runs one attempt at a time (this one hedges: give it a policy without hedging)"
            _not_an_option("sequential_attempts", rule)
        self.concurrency: Concurrency = "concurrent"
        if sequential:
            self.concurrency = "sequential_without_hedging" if sequential_attempts else "sequential"
        self.policy = policy
        self.on_decision = on_decision
        self.stats = stats
        self.clock = clock
        self.seed = seed
        self.dependency = dependency
        plain = seed is None and stats is None and dependency is None  # a driver from the policy alone
        self.native = Settings(
            self, policy, self.concurrency, plain, outcome_of_error, outcome_of_result, on_decision is not None,
            logger, clock, dispose or on_discard, name,
        )  # fmt: skip

    def check(self) -> Config:
        """Has the core refuse now what this helper cannot run (a policy's hedging, one attempt at a time)."""
        Driver(self.policy, 0.0, self.concurrency, seed=0 if self.seed is None else self.seed)  # the seed's rule too
        return self

    def run(self, **options: Any) -> Run:
        """A new operation (options: ``idempotency_key``, ``deadline``, ``method``, ``idempotent``, ``policy``, ...)."""
        return Run(self.native, options)


_LOOPS: Dict[Tuple[Any, ...], Config] = {}  # the settings of recent attempt loops, by what they were given
_ENOUGH_LOOPS = 64


def loop_run(
    policy: Policy,
    idempotency_key: Optional[str],
    deadline: Optional[float],
    sleep: Any,
    asynchronous: bool,
    options: LoopOptions,
) -> Run:
    """One operation of an attempt loop (``attempts()``, and ``async_attempts()``: ``asynchronous``). Its settings
    are checked once per set of arguments and kept while in use (a Config holds every object its key names by id);
    ``sleep`` is checked on every call."""
    if sleep is not default_sleep:  # the sync loop's default; an async loop's is checked cheaply (callable)
        check_sleep(sleep, asynchronous)
    if "outcome_of_result" in options:  # an attempt loop reports each outcome itself: it reads no returned value
        _not_an_option("outcome_of_result")
    key = (id(policy), *[(name, id(value)) for name, value in options.items()])
    config = _LOOPS.get(key) if "outcome_of_exception" not in options else None  # the deprecated name warns every time
    if config is None:
        config = Config(policy, sequential=True, **options)
        if len(_LOOPS) >= _ENOUGH_LOOPS:
            _LOOPS.clear()
        _LOOPS[key] = config
    given = {"idempotency_key": idempotency_key, "deadline": deadline}
    return Run(config.native, None if idempotency_key is None and deadline is None else given)


def _not_an_option(name: str, rule: str = "is not an option of this helper") -> None:
    """Raises ArgumentTypeError naming ``name``, an option the helper it was handed to does not have."""
    from ._errors import ArgumentTypeError

    raise ArgumentTypeError(f"invalid argument `{name}`: {rule}", field=name, rule=rule)


SLEEP = "a function of the seconds to wait, such as time.sleep"
"""What a sync helper's ``sleep=`` must be."""

ASYNC_SLEEP = "a function of the seconds to wait that returns an awaitable, such as asyncio.sleep"
"""What an async helper's ``sleep=`` must be (what it returns is checked when it is awaited: ``_async``)."""


def check_sleep(sleep: Any, asynchronous: bool) -> None:
    """Refuses a ``sleep=`` the helper cannot use (ArgumentTypeError naming it; None: the helper's own): one that
    cannot be called, or a coroutine function given to a sync helper, which would call it without awaiting it, over
    and over until the wake time came (a busy wait)."""
    if sleep is None:
        return
    if callable(sleep) and (asynchronous or not _is_coroutine_function(sleep)):
        return
    from ._errors import ArgumentTypeError

    words = ASYNC_SLEEP if asynchronous else SLEEP
    got = "a coroutine function" if callable(sleep) else type(sleep).__name__
    raise ArgumentTypeError(
        f"invalid argument `sleep`: must be {words}, got {got}", field="sleep", rule=f"must be {words}"
    )


def _is_coroutine_function(fn: Any) -> bool:
    """``inspect.iscoroutinefunction`` without importing inspect unless something else did."""
    inspect = sys.modules.get("inspect")
    if inspect is not None:
        return bool(inspect.iscoroutinefunction(fn))
    partial = getattr(sys.modules.get("functools"), "partial", None)
    while partial is not None and isinstance(fn, partial):  # as inspect unwraps functools.partial(async_fn, ...)
        fn = fn.func
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & 0x80)  # CO_COROUTINE


def _check_types(**given: Tuple[Any, Union[type, str, None], str]) -> None:
    """Raises ArgumentTypeError (a TypeError) naming the first argument of the wrong type (None is always fine;
    a None type: any callable; a str: an object with that method, duck-typed)."""
    for name, (value, kind, words) in given.items():
        if value is None:
            continue
        if kind is None:
            fits = callable(value)
        elif isinstance(kind, str):
            fits = callable(getattr(value, kind, None))
        else:
            fits = isinstance(value, kind)
        if not fits:
            from ._errors import ArgumentTypeError

            message = f"invalid argument `{name}`: must be {words}, got {type(value).__name__}"
            raise ArgumentTypeError(message, field=name, rule=f"must be {words}")


def observed(run: Run) -> None:
    """Hands every decision the driver recorded to the ``on_decision`` hook, the log and OpenTelemetry (called
    by the engine after each step of a run that someone observes)."""
    hook, log, driver, telemetry = run.config.on_decision, run.log, run.driver, run.telemetry
    event = driver.poll_event()
    while event is not None:
        if telemetry is not None:
            telemetry.record(run, event)
        if hook is not None:
            hook(event)
        if log is not None:
            logged(run, event.decision)
        event = driver.poll_event()


def telemetry(name: Any) -> Any:
    """A new operation's reporter to OpenTelemetry (``retryplan.otel``), or None when nothing listens (asked by
    the engine only once the application has imported ``opentelemetry``)."""
    try:
        from . import otel
    except ImportError:  # sys.modules names it, but it cannot be imported (blocked, or half installed)
        return None
    return otel.operation(name)


def logged(run: Run, decision: Decision) -> None:
    """Logs a decision on the ``retryplan`` logger (steps and success at DEBUG, other endings at INFO)."""
    level = INFO if decision.is_final and type(decision) is not Succeeded else DEBUG
    log = run.log
    if log is not None and log.isEnabledFor(level):
        fields = decision.to_dict()
        kind = fields.pop("type")
        fields["operation"], fields["idempotency_key"] = run.name, run.driver.idempotency_key
        extra = {"retryplan_decision": kind, "retryplan": fields}
        # The words are the core's (attempts from 1, durations, no clock readings); the fields stay for machines.
        log.log(level, "retryplan %s: %s", run.name, decision.describe(), extra=extra)


def failure(run: Run, ending: Ending, value: Any, error: Optional[BaseException]) -> OperationFailedError:
    """The typed ending of ``run`` (``value`` and ``error``: the deciding attempt's, when it returned or raised),
    caused by ``error`` (called by the engine)."""
    from ._errors import GaveUpError, ReconcileRequiredError, RestartRequiredError

    decision, last = ending.decision, ending.last_result
    if run.log is not None and not run.observe:
        logged(run, decision)
    kind = type(decision)
    cls = GaveUpError if kind is GaveUp else ReconcileRequiredError if kind is Reconcile else RestartRequiredError
    key, outcome = run.driver.idempotency_key, None if last is None else last.outcome
    # The core's whole text, every language's (without a key when the helper sent none).
    message = ending.message(str(run.name), key if run.key_sent else None) or repr(decision)
    exception = cls(message, decision, idempotency_key=key, last_outcome=outcome, cause=error, last_value=value)
    exception.__cause__ = error
    return exception


def current_attempt() -> Optional[Attempt]:
    """The attempt running in this context under ``@retry`` (None outside one)."""
    holder = CURRENT.get()
    if holder is None or type(holder) is Attempt:
        return holder
    attempt: Optional[Attempt] = Attempt.running_in(holder)
    return attempt
