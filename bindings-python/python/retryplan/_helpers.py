"""Sync helpers: the ``retry`` decorator and the ``attempts`` loop.

Every decision comes from the engine (:class:`retryplan.Operation`); these
helpers only read the clock, sleep as a ``Wait`` says, run the attempt, turn
what happened into an :class:`~retryplan.Outcome`, log each decision and
raise when the operation ends without success.
"""

import functools
import inspect
import logging
import socket
import sys
import time
from contextvars import ContextVar
from typing import Any, Callable, List, Optional, TypeVar, cast

from ._enums import TransportFailure, Verdict
from ._errors import (
    AttemptFailed,
    AttemptRecord,
    GaveUpError,
    OperationFailed,
    ReconcileRequired,
    RestartRequired,
)
from ._native import (
    Decision,
    Dependency,
    GaveUp,
    Operation,
    Outcome,
    Policy,
    Reconcile,
    StartAttempt,
    Stats,
    Succeeded,
    Wait,
)

__all__ = [
    "Attempt",
    "Attempts",
    "attempts",
    "current_attempt",
    "default_outcome_of_exception",
    "http_outcome",
    "response_outcome",
    "retry",
]

F = TypeVar("F", bound=Callable[..., Any])
OutcomeOfException = Callable[[BaseException], Outcome]
OutcomeOfResult = Callable[[Any], Outcome]

LOGGER = logging.getLogger("retryplan")
SUCCESS = Outcome.success()
CANCELLED = Outcome.cancelled()
_NOT_RETRYABLE = Outcome.application(Verdict.NOT_RETRYABLE)
_NOT_SENT = Outcome.transport(TransportFailure.NOT_SENT)
_CONNECTION_LOST = Outcome.transport(TransportFailure.CONNECTION_LOST)
_TIMED_OUT = Outcome.transport(TransportFailure.TIMED_OUT)

_CURRENT: "ContextVar[Optional[_Run]]" = ContextVar("retryplan_current_attempt", default=None)


def http_outcome(
    status: int,
    retry_after: Optional[str] = None,
    retry_after_ms: Optional[str] = None,
    *,
    now_unix: Optional[float] = None,
) -> Outcome:
    """The outcome of an HTTP response from its status and raw guidance headers.

    The engine reads the headers one way for every language
    (:meth:`Outcome.from_http`): ``retry-after-ms`` when readable, else
    ``Retry-After`` (delta-seconds or an HTTP-date against the wall clock
    ``now_unix``, default ``time.time()``); an unreadable value is no guidance.
    """
    return Outcome.from_http(status, retry_after, retry_after_ms, now_unix=time.time() if now_unix is None else now_unix)


def response_outcome(headers: Any, status: int, now_unix: Optional[float] = None) -> Outcome:
    """:func:`http_outcome` for a response whose ``headers.get`` is case-insensitive (httpx, requests, urllib3)."""
    retry_after_ms = headers.get("retry-after-ms") or headers.get("x-ms-retry-after-ms")
    return http_outcome(status, headers.get("retry-after"), retry_after_ms, now_unix=now_unix)


def _httpx_outcome(exc: BaseException, httpx: Any) -> Optional[Outcome]:
    """httpx's exceptions in the engine's words (None: not an httpx transport failure)."""
    if isinstance(exc, httpx.HTTPStatusError):
        response = exc.response
        return response_outcome(response.headers, response.status_code)
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)):
        return _NOT_SENT
    if isinstance(exc, httpx.TimeoutException):
        return _TIMED_OUT
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError, httpx.CloseError)):
        return _CONNECTION_LOST
    return None


def default_outcome_of_exception(exc: BaseException) -> Outcome:
    """What an exception raised by an attempt means, in the engine's words.

    * :class:`~retryplan.AttemptFailed` carries its outcome;
    * httpx (when imported): ``HTTPStatusError`` is its status and Retry-After,
      connect/pool failures are ``not_sent``, timeouts ``timed_out``, broken
      connections ``connection_lost``;
    * ``ConnectionRefusedError`` is ``not_sent``, ``TimeoutError`` is
      ``timed_out``, any other ``ConnectionError`` is ``connection_lost``;
    * anything else is the application verdict ``not_retryable`` (a bug is
      not worth repeating). Pass ``outcome_of_exception=`` to say otherwise.
    """
    if isinstance(exc, AttemptFailed):
        return exc.outcome
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(exc, httpx.HTTPError):
        outcome = _httpx_outcome(exc, httpx)
        if outcome is not None:
            return outcome
    if isinstance(exc, ConnectionRefusedError):
        return _NOT_SENT
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return _TIMED_OUT
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None and isinstance(exc, asyncio.TimeoutError):
        return _TIMED_OUT
    if isinstance(exc, ConnectionError):
        return _CONNECTION_LOST
    return _NOT_RETRYABLE


def _is_step(decision: Any) -> bool:
    """True for StartAttempt and Wait (the decisions a helper neither counts nor logs when nobody listens)."""
    kind = type(decision)
    return kind is StartAttempt or kind is Wait


class _Run:
    """One operation driven by a helper: the engine, the clock, the log and the history.

    ``records`` holds raw ``(start, outcome, exception, decision, result)``
    tuples (cheap on the hot path); ``history`` turns them into AttemptRecords.
    """

    __slots__ = ("op", "clock", "options", "records", "observe", "current")

    def __init__(self, options: "_Options", idempotency_key: Optional[str], deadline: Optional[float]) -> None:
        clock = options.clock
        if options.plain and idempotency_key is None and deadline is None:
            self.op = Operation(options.policy, clock())  # the common case, without keyword parsing
        else:
            self.op = Operation(
                options.policy,
                clock(),
                seed=options.seed,
                idempotency_key=idempotency_key,
                deadline=deadline,
                dependency=options.dependency,
            )
        self.clock = clock
        self.options = options
        self.records: List[Any] = []
        # Steps (StartAttempt, Wait) are counted and logged only when someone listens.
        self.observe = options.stats is not None or options.logger.isEnabledFor(logging.DEBUG)
        self.current: Optional[StartAttempt] = None  # the attempt running under @retry

    @property
    def history(self) -> List[AttemptRecord]:
        """Every attempt reported so far."""
        return [AttemptRecord(s.attempt, s.request_id, o, e, d) for s, o, e, d, _ in self.records]

    @property
    def last_exception(self) -> Optional[BaseException]:
        """The exception of the last attempt, if it raised."""
        return self.records[-1][2] if self.records else None

    @property
    def last_result(self) -> Any:
        """What the last attempt returned, if it returned."""
        return self.records[-1][4] if self.records else None

    def decided(self, decision: Any) -> Any:
        """Counts and logs a decision, then hands it back."""
        options = self.options
        if options.stats is not None:
            options.stats.record(decision)
        logger = options.logger
        level = logging.DEBUG if _is_step(decision) or type(decision) is Succeeded else logging.INFO
        if logger.isEnabledFor(level):
            fields = decision.to_dict()
            kind = fields.pop("type")
            numbers = " ".join(f"{key}={value}" for key, value in fields.items())
            fields["operation"] = options.name
            fields["idempotency_key"] = self.op.idempotency_key
            logger.log(
                level,
                "retryplan %s %s: %s",
                options.name,
                kind,
                numbers,
                extra={"retryplan_decision": kind, "retryplan": fields},
            )
        return decision

    def poll(self) -> Any:
        decision = self.op.poll(self.clock())
        if self.observe or not _is_step(decision):
            self.decided(decision)
        return decision

    def report(self, start: StartAttempt, outcome: Outcome, exc: Optional[BaseException], result: Any = None) -> Any:
        decision = self.op.on_outcome(self.clock(), start.attempt, outcome)
        self.records.append((start, outcome, exc, decision, result))
        kind = type(decision)
        if self.observe or (kind is not StartAttempt and kind is not Wait):
            self.decided(decision)
        return decision

    def cancel(self) -> None:
        """Tells the engine the caller gave up (a cancelled waiter spends nothing)."""
        if not self.op.is_ended:
            self.decided(self.op.cancel(self.clock()))

    def cancelled_attempt(self, start: StartAttempt, exc: BaseException) -> None:
        """An attempt was interrupted (KeyboardInterrupt, task cancellation): report it."""
        if not self.op.is_ended:
            self.report(start, CANCELLED, exc)

    def seconds_until(self, wait: Wait) -> float:
        return wait.until_ms / 1000.0 - self.clock()

    def failure(self, decision: Decision) -> OperationFailed:
        """The exception that surfaces an ending other than success."""
        cls: type = GaveUpError
        if isinstance(decision, Reconcile):
            cls = ReconcileRequired
        elif not isinstance(decision, GaveUp):
            cls = RestartRequired
        message = f"{self.options.name}: {decision!r} after {len(self.records)} attempt(s)"
        error = cls(
            message,
            decision=decision,
            history=self.history,
            idempotency_key=self.op.idempotency_key,
            last_exception=self.last_exception,
            last_result=self.last_result,
        )
        return cast(OperationFailed, error)


class Attempt:
    """One attempt the engine started: its number, timeout and ids.

    Use it as a context manager: leaving the block normally reports success
    (unless :meth:`report` was called), an exception is turned into an
    outcome (suppressed when the engine will retry, re-raised as
    :class:`~retryplan.OperationFailed` when the operation ends), and
    ``KeyboardInterrupt``/task cancellation is reported as cancelled and
    propagates.
    """

    __slots__ = ("decision", "_run", "_owner", "_reported", "_outcome_of_exception")

    def __init__(self, decision: StartAttempt, run: _Run, owner: Any, outcome_of_exception: OutcomeOfException):
        self.decision = decision
        self._run = run
        self._owner = owner
        self._reported = False
        self._outcome_of_exception = outcome_of_exception

    @property
    def number(self) -> int:
        """The attempt number, 1 for the first."""
        return self.decision.attempt

    @property
    def timeout(self) -> float:
        """The effective timeout in seconds (``decision.timeout_ms / 1000``)."""
        return self.decision.timeout_ms / 1000.0

    @property
    def abort_at(self) -> float:
        """When to abort this attempt, on the helper's clock (seconds)."""
        return self.decision.abort_at_ms / 1000.0

    def remaining(self) -> float:
        """Seconds left before this attempt should be aborted (never negative)."""
        return max(0.0, self.abort_at - self._run.clock())

    @property
    def request_id(self) -> str:
        """A fresh id for this attempt's request (send it as X-Request-Id)."""
        return self.decision.request_id

    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key (the same on every attempt)."""
        return self._run.op.idempotency_key

    def report(self, outcome: Outcome, *, result: Any = None, exception: Optional[BaseException] = None) -> Decision:
        """Reports this attempt's outcome to the engine and returns its next decision."""
        if self._owner is None:
            raise RuntimeError("under @retry an attempt reports itself: return a value or raise")
        if self._reported:
            raise RuntimeError(f"attempt {self.number} was already reported")
        self._reported = True
        decision = self._run.report(self.decision, outcome, exception, result)
        self._owner._pending = decision
        return cast(Decision, decision)

    def __enter__(self) -> "Attempt":
        return self

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        if exc is None:
            if not self._reported:  # the common case, inlined
                self._reported = True
                self._owner._pending = self._run.report(self.decision, SUCCESS, None)
            return False
        if self._reported:
            return False
        if not isinstance(exc, Exception):
            self._reported = True
            self._run.cancelled_attempt(self.decision, exc)
            return False
        if self._owner is None:
            raise RuntimeError("under @retry an attempt reports itself: return a value or raise")
        self._reported = True
        decision = self._run.report(self.decision, self._outcome_of_exception(exc), exc)
        kind = type(decision)
        if kind is StartAttempt or kind is Wait or kind is Succeeded:
            self._owner._pending = decision
            return True  # the engine will retry: the loop goes on
        self._owner._pending = None
        raise self._run.failure(decision) from exc

    async def __aenter__(self) -> "Attempt":
        return self

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        return self.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"<Attempt {self.number} timeout={self.timeout}s request_id={self.request_id}>"


class _Options:
    """What every helper takes, checked once."""

    __slots__ = (
        "policy",
        "outcome_of_exception",
        "outcome_of_result",
        "logger",
        "stats",
        "clock",
        "seed",
        "name",
        "dependency",
        "plain",
    )

    def __init__(
        self,
        policy: Policy,
        outcome_of_exception: Optional[OutcomeOfException],
        outcome_of_result: Optional[OutcomeOfResult],
        logger: Optional[logging.Logger],
        stats: Optional[Stats],
        clock: Callable[[], float],
        seed: Optional[int],
        name: str,
        dependency: Optional[Dependency] = None,
    ) -> None:
        if not isinstance(policy, Policy):
            from ._errors import ArgumentTypeError

            got = type(policy).__name__
            raise ArgumentTypeError(
                f"invalid argument `policy`: must be a retryplan.Policy, got {got}",
                name="policy",
                rule=f"must be a retryplan.Policy, got {got}",
            )
        self.policy = policy
        self.outcome_of_exception = outcome_of_exception or default_outcome_of_exception
        self.outcome_of_result = outcome_of_result
        self.logger = LOGGER if logger is None else logger
        self.stats = stats
        self.clock = clock
        self.seed = seed
        self.name = name
        self.dependency = dependency
        self.plain = seed is None and dependency is None  # an Operation from the policy and the clock alone

    def run(self, idempotency_key: Optional[str], deadline: Optional[float]) -> _Run:
        return _Run(self, idempotency_key, deadline)


class Attempts:
    """The sync attempt loop: ``for attempt in attempts(policy): with attempt: ...``.

    Each iteration is one attempt the engine started; between attempts the
    loop sleeps as the engine's ``Wait`` says. The loop ends after a success,
    and raises :class:`~retryplan.GaveUpError`, :class:`~retryplan.ReconcileRequired`
    or :class:`~retryplan.RestartRequired` when the operation ends otherwise.
    """

    def __init__(
        self,
        options: _Options,
        sleep: Callable[[float], Any],
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

    def __iter__(self) -> "Attempts":
        return self

    def __next__(self) -> Attempt:
        run = self._run
        decision = self._pending
        if decision is None:
            attempt = self._attempt
            if attempt is not None and not attempt._reported:
                raise RuntimeError(
                    f"attempt {attempt.number} ended without an outcome: use `with attempt:` or attempt.report(...)"
                )
            if run.op.is_ended:
                raise StopIteration
            decision = run.poll()
        else:
            self._pending = None
        while True:
            self.decision = decision
            kind = type(decision)
            if kind is StartAttempt:
                self._attempt = Attempt(decision, run, self, self._options.outcome_of_exception)
                return self._attempt
            if kind is Wait:
                delay = run.seconds_until(decision)
                if delay > 0:
                    try:
                        self._sleep(delay)
                    except BaseException:
                        run.cancel()
                        raise
                decision = run.poll()
                continue
            if kind is Succeeded:
                raise StopIteration
            raise run.failure(decision) from run.last_exception


def attempts(
    policy: Policy,
    *,
    idempotency_key: Optional[str] = None,
    deadline: Optional[float] = None,
    outcome_of_exception: Optional[OutcomeOfException] = None,
    logger: Optional[logging.Logger] = None,
    stats: Optional[Stats] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Any] = time.sleep,
    seed: Optional[int] = None,
    name: str = "operation",
    dependency: Optional[Dependency] = None,
) -> Attempts:
    """Start one operation and iterate over its attempts (sync).

    ``deadline`` is a caller deadline on ``clock`` (seconds); ``seed`` fixes
    the jitter and ids (tests only: the default draws from the OS);
    ``dependency`` shares a retry budget, breaker and retry cap with every
    operation that names it.
    """
    options = _Options(policy, outcome_of_exception, None, logger, stats, clock, seed, name, dependency)
    return Attempts(options, sleep, idempotency_key, deadline)


def current_attempt() -> Optional[Attempt]:
    """The attempt running in this context under ``@retry`` (None outside one)."""
    run = _CURRENT.get()
    if run is None or run.current is None:
        return None
    return Attempt(run.current, run, None, default_outcome_of_exception)


def retry(
    policy: Policy,
    *,
    outcome_of_exception: Optional[OutcomeOfException] = None,
    outcome_of_result: Optional[OutcomeOfResult] = None,
    logger: Optional[logging.Logger] = None,
    stats: Optional[Stats] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Optional[Callable[[float], Any]] = None,
    seed: Optional[int] = None,
    name: Optional[str] = None,
    dependency: Optional[Dependency] = None,
) -> Callable[[F], F]:
    """Decorate a function (sync or ``async def``) so each call is one operation under ``policy``.

    Each attempt calls the function; a return is reported as success (or as
    ``outcome_of_result(value)``), an exception as ``outcome_of_exception(exc)``
    (default: :func:`default_outcome_of_exception`). Inside the call,
    :func:`current_attempt` gives the attempt's timeout and ids. Coroutine
    functions get the asyncio loop: ``asyncio.sleep`` between attempts and the
    attempt's timeout enforced with ``asyncio.wait_for``.
    """

    def decorate(fn: F) -> F:
        label = name or str(getattr(fn, "__qualname__", "operation"))
        options = _Options(policy, outcome_of_exception, outcome_of_result, logger, stats, clock, seed, label, dependency)
        if inspect.iscoroutinefunction(fn):
            from ._async import wrap_coroutine_function

            return cast(F, wrap_coroutine_function(fn, options, sleep))
        return cast(F, _wrap_function(fn, options, sleep or time.sleep))

    return decorate


def _wrap_function(fn: Callable[..., Any], options: _Options, sleep: Callable[[float], Any]) -> Callable[..., Any]:
    # Everything that is the same for every call, read once per decorator.
    outcome_of_exception = options.outcome_of_exception
    outcome_of_result = options.outcome_of_result
    policy = options.policy
    clock = options.clock
    stats = options.stats
    logger = options.logger
    plain = options.plain
    new_run = _Run.__new__
    set_current = _CURRENT.set
    reset_current = _CURRENT.reset
    start_attempt, wait, succeeded, success = StartAttempt, Wait, Succeeded, SUCCESS
    debug = logging.DEBUG

    def call(*args: Any, **kwargs: Any) -> Any:
        # The hot path: the same steps as Attempts, inlined.
        if plain:  # _Run.__init__ for the common case, without its calls and lookups
            run = new_run(_Run)
            run.op = op = Operation(policy, clock())
            run.clock = clock
            run.options = options
            run.records = records = []
            run.observe = observe = stats is not None or logger.isEnabledFor(debug)
            run.current = None
        else:
            run = _Run(options, None, None)
            op, records, observe = run.op, run.records, run.observe
        result = None
        token = set_current(run)
        try:
            decision: Any = op.poll(clock())
            while True:
                kind = type(decision)
                if kind is start_attempt:
                    if observe:
                        run.decided(decision)
                    run.current = start = decision
                    try:
                        result = fn(*args, **kwargs)
                    except Exception as exc:
                        outcome = outcome_of_exception(exc)
                        decision = op.on_outcome(clock(), start.attempt, outcome)
                        records.append((start, outcome, exc, decision, None))
                    except BaseException as exc:
                        run.cancelled_attempt(start, exc)
                        raise
                    else:
                        outcome = success if outcome_of_result is None else outcome_of_result(result)
                        decision = op.on_outcome(clock(), start.attempt, outcome)
                        records.append((start, outcome, None, decision, result))
                    # run.current keeps the last attempt: current_attempt() is only asked inside fn.
                elif kind is wait:
                    if observe:
                        run.decided(decision)
                    delay = decision.until_ms / 1000.0 - clock()
                    if delay > 0:
                        try:
                            sleep(delay)
                        except BaseException:
                            run.cancel()
                            raise
                    decision = op.poll(clock())
                elif kind is succeeded:
                    if observe:
                        run.decided(decision)
                    # Nothing reads the history after a success: dropping it breaks the cycle
                    # records -> exception -> traceback -> this frame -> records, so the failed
                    # attempts are freed now instead of by the cyclic garbage collector.
                    records.clear()
                    return result
                else:
                    run.decided(decision)
                    raise run.failure(decision) from run.last_exception
        finally:
            reset_current(token)

    # functools.wraps, except that a callable object's instance attributes are not copied onto
    # the wrapper: reading such an object's ``__dict__`` materializes it, which slows every
    # attribute access of the object from then on (CPython 3.11+), i.e. every attempt.
    plain_callable = inspect.isfunction(fn) or inspect.ismethod(fn)
    functools.update_wrapper(call, fn, updated=functools.WRAPPER_UPDATES if plain_callable else ())
    return call
