"""One operation as every helper runs it: the core's driver, the clock, the latest result, the ending.

Every helper (``@retry``, ``attempts()``, ``async_attempts()``, the httpx
transports, a requests adapter) is an adapter over :class:`Run` and the
core's ``Driver``, which decides when attempts start, time out, hedge, wait
and end. The adapter does only the I/O its runtime offers: it starts what the
driver plans, reports what happened (``report``), sleeps while it says so,
and returns or raises at the ending. One rule for an attempt that raises:
the one failure table (``_failures``), then the ``outcome_of_error`` hook,
else the verdict ``not_retryable``; an invalid request is rethrown unchanged.

Nothing here imports more than the compiled engine: logging is used only
when the application imported it (else nobody can be listening).
"""

from __future__ import annotations

import sys
import time
from _contextvars import ContextVar

from ._failures import _BY_TYPE as _KNOWN
from ._failures import INVALID_REQUEST, outcome_of as _table
from ._native import AttemptPlan, Driver, Ending, GaveUp, Outcome, Reconcile, Sleep, Succeeded

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

    from ._errors import OperationFailed
    from ._native import Decision, Dependency, Event, Policy, Stats

    OutcomeOfError = Callable[[BaseException], Optional[Outcome]]
    OutcomeOfResult = Callable[[Any], Outcome]
    OnDecision = Callable[[Event], Any]
    Concurrency = Literal["concurrent", "sequential", "sequential_without_hedging"]

SUCCESS = Outcome.success()
NOT_RETRYABLE = Outcome.application("not_retryable")
DEBUG, INFO = 10, 20  # logging's levels, without importing logging
_UNSEEN = object()

CURRENT: ContextVar[Any] = ContextVar("retryplan_current_attempt", default=None)
"""The Run (sync ``@retry``) or Attempt (a task of the async helpers) whose attempt runs in this context."""

_LOGGER: List[Any] = []  # logging.getLogger("retryplan"), once the application has imported logging


def _default_logger() -> Any:
    if not _LOGGER:
        logging = sys.modules.get("logging")
        if logging is None:
            return None
        _LOGGER.append(logging.getLogger("retryplan"))
    return _LOGGER[0]


class Config:
    """What a helper was given, checked once when the helper is made."""

    __slots__ = (
        "policy",
        "outcome_of_error",
        "outcome_of_result",
        "on_decision",
        "logger",
        "stats",
        "clock",
        "seed",
        "name",
        "dependency",
        "concurrency",
        "dispose",
        "plain",
    )

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
        dispose: Optional[Callable[[Any], Any]] = None,
    ) -> None:
        if outcome_of_exception is not None:
            import warnings

            message = "outcome_of_exception is deprecated (removed in the next release): pass outcome_of_error"
            warnings.warn(message, DeprecationWarning, stacklevel=3)
            outcome_of_error = outcome_of_error or outcome_of_exception
        self.concurrency: Concurrency = "concurrent"
        if sequential:
            self.concurrency = "sequential_without_hedging" if sequential_attempts else "sequential"
        self.policy = policy
        self.outcome_of_error = outcome_of_error
        self.outcome_of_result = outcome_of_result
        self.on_decision = on_decision
        self.logger = logger
        self.stats = stats
        self.clock = clock
        self.seed = seed
        self.name = name
        self.dependency = dependency
        self.dispose = dispose
        self.plain = seed is None and stats is None and dependency is None  # a driver from the policy alone

    def check(self) -> Config:
        """Has the core refuse now what this helper cannot run (a policy's hedging, one attempt at a time)."""
        Driver(self.policy, 0.0, self.concurrency, seed=0)
        return self

    def run(self, **options: Any) -> Run:
        """A new operation (options: ``idempotency_key``, ``deadline``, ``method``, ``idempotent``, ``policy``, ...)."""
        return Run(self, options)


class Run:
    """One operation: the driver, and the value or error of its latest accepted result."""

    __slots__ = ("driver", "config", "clock", "name", "observe", "fast", "log", "plan", "value", "error", "outcome", "settled", "read")

    def __init__(self, config: Config, options: Dict[str, Any]) -> None:
        logger = config.logger if config.logger is not None else _LOGGER[0] if _LOGGER else _default_logger()
        self.log = logger if logger is not None and logger.isEnabledFor(INFO) else None
        self.observe = observe = config.on_decision is not None or (self.log is not None and logger.isEnabledFor(DEBUG))
        self.fast = config.dispose is None and not observe  # nothing to dispose of, nobody to tell: one crossing
        self.config, self.name, self.clock = config, config.name, config.clock
        self.plan: Optional[AttemptPlan] = None  # the attempt running (sequential helpers), for current_attempt()
        self.settled: Optional[AttemptPlan] = None  # the attempt of the latest result (accepted, unless late)
        self.value: Any = None
        self.error: Optional[BaseException] = None
        self.outcome: Optional[Outcome] = None
        # What a returned value means (the helper's outcome_of_result; an HTTP helper reads through the driver).
        self.read: Optional[OutcomeOfResult] = config.outcome_of_result
        if not options and config.plain and not observe:  # the common case: keywords cost more than the engine here
            self.driver = Driver(config.policy, self.clock(), config.concurrency)
            return
        kwargs = {key: value for key, value in options.items() if value is not None}
        policy = kwargs.pop("policy", config.policy)
        for key in ("seed", "stats", "dependency"):
            if getattr(config, key) is not None:
                kwargs.setdefault(key, getattr(config, key))
        self.driver = Driver(policy, self.clock(), config.concurrency, record_events=observe, **kwargs)

    # ------------------------------------------------------------ into the driver

    def report(self, plan: AttemptPlan, outcome: Outcome, value: Any = None, error: Any = None, now: Any = None) -> bool:
        """Hands in how ``plan``'s attempt ended; True when accepted. A value no longer needed is disposed of."""
        accepted: bool = self.driver.handle_result(self.clock() if now is None else now, plan.attempt, outcome) == "accepted"
        if self.observe:
            self.observed()
        dispose = self.config.dispose
        if accepted:
            if dispose is not None and self.value is not None:
                dispose(self.value)  # a newer result replaces it
            self.settled, self.value, self.error, self.outcome = plan, value, error, outcome
        elif dispose is not None and value is not None:
            dispose(value)  # late, or the operation has ended
        return accepted

    def reported(self, plan: AttemptPlan, outcome: Outcome, value: Any, error: Any, now: float) -> Any:
        """Hands in how ``plan``'s attempt ended and returns the next action (for the sequential helpers)."""
        if self.fast:  # one crossing; a late result is dropped by the driver, failure() tells which one decided
            self.settled, self.value, self.error, self.outcome = plan, value, error, outcome
            return self.driver.next_action(now, plan.attempt, outcome)
        self.report(plan, outcome, value, error, now)
        return self.poll()

    def outcome_of(self, error: BaseException) -> Outcome:
        """What an attempt's error means: the failure table, else the hook, else ``not_retryable``.

        An invalid request (a bad URL or header) ends the operation and is raised again unchanged.
        """
        meaning = _KNOWN.get(type(error), _UNSEEN)  # the table's verdict on this class, when it is a plain one
        if meaning is _UNSEEN or (meaning is not None and type(meaning) is not Outcome and meaning is not INVALID_REQUEST):
            meaning = _table(error)
        if type(meaning) is Outcome:
            return meaning
        if meaning is INVALID_REQUEST:
            self.cancel()
            raise error
        hook = self.config.outcome_of_error
        outcome = hook(error) if hook is not None else None
        return NOT_RETRYABLE if outcome is None else outcome

    def outcome_of_value(self, value: Any) -> Outcome:
        """What a returned value means: success, unless the helper's ``outcome_of_result`` says otherwise."""
        read = self.read
        return SUCCESS if read is None else read(value)

    def cancel(self) -> None:
        """The caller gave up on the operation (a cancelled task, a KeyboardInterrupt): it ends ``cancelled``."""
        self.driver.handle_cancel(self.clock())
        if self.observe:
            self.observed()

    def observed(self) -> None:
        """Hands every decision the driver recorded to the ``on_decision`` hook and the log."""
        hook, log, event = self.config.on_decision, self.log, self.driver.poll_event()
        while event is not None:
            if hook is not None:
                hook(event)
            if log is not None:
                self.logged(event.decision)
            event = self.driver.poll_event()

    def logged(self, decision: Decision) -> None:
        """Logs a decision on the ``retryplan`` logger (steps and success at DEBUG, other endings at INFO)."""
        level = INFO if decision.is_final and type(decision) is not Succeeded else DEBUG
        log = self.log
        if log is not None and log.isEnabledFor(level):
            fields = decision.to_dict()
            kind = fields.pop("type")
            numbers = " ".join(f"{key}={value}" for key, value in fields.items())
            fields["operation"], fields["idempotency_key"] = self.name, self.driver.idempotency_key
            extra = {"retryplan_decision": kind, "retryplan": fields}
            log.log(level, "retryplan %s %s: %s", self.name, kind, numbers, extra=extra)

    # ------------------------------------------------------------ the sequential host loop

    def poll(self) -> Any:
        action = self.driver.poll_action(self.clock())
        if self.observe:
            self.observed()
        return action

    def step(self, action: Any = None) -> Union[AttemptPlan, Ending, float]:
        """One move of the sequential host loop from ``action`` (else a new poll): the attempt to run now, the
        ending, or the seconds to sleep before the next poll."""
        while True:
            if action is None:
                action = self.poll()
            if isinstance(action, (AttemptPlan, Ending)):
                return action
            if isinstance(action, Sleep):
                return action.until_ms / 1000.0 - self.clock()
            action = None  # AbortAttempt: one attempt at a time, so it has returned already (late, and discarded).

    def next_plan(self, sleep: Callable[[float], Any], action: Any = None) -> Union[AttemptPlan, Ending]:
        """The next attempt to run, sleeping (cancellably) as the driver says; or the ending."""
        step = self.step(action)
        while isinstance(step, float):
            if step > 0:
                try:
                    sleep(step)
                except BaseException:
                    self.cancel()
                    raise
            step = self.step()
        return step

    def call(self, attempt: Callable[..., Any], args: Any, kwargs: Any, sleep: Callable[[float], Any]) -> Ending:
        """Runs the operation one blocking attempt at a time (``attempt(*args, **kwargs)``); returns the ending.

        The hot path of ``@retry``: when nothing needs disposing of and nobody observes, an attempt costs one
        crossing into the engine (``next_action``: the result, then the next action, at one clock reading)."""
        config, clock, known, fast = self.config, self.clock, _KNOWN, self.fast
        hook, read, next_action = config.outcome_of_error, self.read, self.driver.next_action
        settled: Optional[AttemptPlan] = None
        value: Any = None
        failed: Optional[BaseException] = None
        outcome: Optional[Outcome] = None
        action = self.poll()
        while True:
            if type(action) is not AttemptPlan:
                if type(action) is not Ending:
                    action = self.next_plan(sleep, action)
                if isinstance(action, Ending):
                    if fast:  # the latest result (a late one was dropped by the driver: failure() tells)
                        self.settled, self.value, self.error, self.outcome = settled, value, failed, outcome
                    return action
            self.plan = plan = action
            failed = None
            try:
                value = attempt(*args, **kwargs)
            except Exception as error:
                now, value, failed = clock(), None, error
                meaning = known.get(type(error), _UNSEEN)  # the failure table's verdict, learnt per class
                if type(meaning) is Outcome:
                    outcome = meaning
                elif meaning is None and hook is not None:
                    outcome = hook(error) or NOT_RETRYABLE
                else:
                    outcome = self.outcome_of(error)
            except BaseException:
                self.cancel()
                raise
            else:
                now = clock()
                outcome = SUCCESS if read is None else read(value)
            if fast:
                settled, action = plan, next_action(now, plan.attempt, outcome)
            else:
                action = self.reported(plan, outcome, value, failed, now)

    # ------------------------------------------------------------ the ending

    def end(self, ending: Ending) -> Any:
        """The winner's value, or raises the typed ending (GaveUpError, ReconcileRequired, RestartRequired)."""
        value, error = self.value, self.error
        self.value = self.error = None  # handed over once: nothing stays alive through this run
        if ending.succeeded:
            return value
        raise self.failure(ending, value, error) from error

    def deciding(self) -> Tuple[Any, Optional[BaseException]]:
        """The value and error of the latest accepted result, handed over once (nothing is kept alive after)."""
        value, error = self.value, self.error
        self.value = self.error = None
        return value, error

    def failure(self, ending: Ending, value: Any = None, error: Optional[BaseException] = None) -> OperationFailed:
        """The typed ending; ``value`` and ``error`` count only when they came from the deciding attempt."""
        from ._errors import GaveUpError, ReconcileRequired, RestartRequired

        decision, last = ending.decision, ending.last_result
        settled = self.settled
        if last is None or settled is None or last.attempt != settled.attempt or last.outcome != self.outcome:
            value = error = None  # the driver decided on its own (a timeout), not on a reported result
        if self.log is not None and not self.observe:
            self.logged(decision)
        kind = type(decision)
        cls = GaveUpError if kind is GaveUp else ReconcileRequired if kind is Reconcile else RestartRequired
        message = f"{self.name}: {decision!r} after {getattr(decision, 'attempts', 0)} attempt(s)"
        key, outcome = self.driver.idempotency_key, None if last is None else last.outcome
        return cls(message, decision, idempotency_key=key, last_outcome=outcome, cause=error, last_result=value)


class Attempt:
    """One attempt the driver started: its number, timeout and ids.

    As a context manager (``with attempt:`` in ``attempts()``, ``async with``
    in ``async_attempts()``): leaving the block reports success unless
    :meth:`report` was called; an exception is reported through the failure
    table and the ``outcome_of_error`` hook and suppressed (the loop then
    retries, or raises the typed ending); an invalid request, a
    ``KeyboardInterrupt`` or a cancellation ends the operation and propagates.
    """

    __slots__ = ("plan", "_run", "_loop", "_reported", "_timer")

    def __init__(self, plan: AttemptPlan, run: Run, loop: Any = None) -> None:
        self.plan = plan
        self._run = run
        self._loop = loop  # the loop that owns this attempt; None under @retry (the call reports itself)
        self._reported = False
        self._timer: Any = None

    @property
    def number(self) -> int:
        """The attempt number, 1 for the first."""
        return self.plan.attempt

    @property
    def timeout(self) -> float:
        """The effective timeout in seconds (``plan.timeout_ms / 1000``)."""
        return self.plan.timeout_ms / 1000.0

    @property
    def abort_at(self) -> float:
        """When the driver counts this attempt as timed out, on the helper's clock (seconds)."""
        return self.plan.abort_at_ms / 1000.0

    def remaining(self) -> float:
        """Seconds left before this attempt times out (never negative)."""
        return max(0.0, self.abort_at - self._run.clock())

    @property
    def request_id(self) -> str:
        """A fresh id for this attempt's request (send it as ``X-Request-Id``)."""
        return self.plan.request_id

    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key (the same on every attempt)."""
        key: str = self._run.driver.idempotency_key
        return key

    @property
    def send_idempotency_key(self) -> bool:
        """True when this attempt's request should carry the idempotency key."""
        return self.plan.send_idempotency_key

    def report(self, outcome: Outcome, *, result: Any = None, exception: Optional[BaseException] = None) -> bool:
        """Reports this attempt's outcome; True when the driver accepted it (False: it was late)."""
        if self._loop is None:
            raise RuntimeError("under @retry an attempt reports itself: return a value or raise")
        if self._reported:
            raise RuntimeError(f"attempt {self.number} was already reported")
        self._reported = True
        run = self._run
        accepted = run.report(self.plan, outcome, result, exception)
        self._loop.pending = run.poll()
        return accepted

    def __enter__(self) -> Attempt:
        return self

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        if self._reported:
            return False
        if self._loop is None:
            raise RuntimeError("under @retry an attempt reports itself: return a value or raise")
        self._reported = True
        run = self._run
        if exc is None:
            self._loop.pending = run.reported(self.plan, SUCCESS, None, None, run.clock())
            return False
        if not isinstance(exc, Exception):
            run.cancel()  # KeyboardInterrupt, a cancelled task: the caller gave up
            return False
        now = run.clock()
        self._loop.pending = run.reported(self.plan, run.outcome_of(exc), None, exc, now)
        return True  # the loop goes on: another attempt, or the typed ending

    async def __aenter__(self) -> Attempt:
        from ._async import attempt_timeout

        self._timer = attempt_timeout(self.remaining())  # the block is cancelled at the abort time
        await self._timer.__aenter__()
        return self

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        timer, self._timer = self._timer, None
        try:
            await timer.__aexit__(exc_type, exc, tb)
        except TimeoutError:
            self._reported = True  # cut at its abort time: the driver counts it timed out itself
            return True
        return self.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"<Attempt {self.number} timeout={self.timeout}s request_id={self.request_id}>"


def current_attempt() -> Optional[Attempt]:
    """The attempt running in this context under ``@retry`` (None outside one)."""
    holder = CURRENT.get()
    if holder is None or isinstance(holder, Attempt):
        return holder
    plan = holder.plan
    return None if plan is None else Attempt(plan, holder)
