"""The exceptions of retryplan.

Two families, both under :class:`RetryplanError`:

* the engine's errors (an invalid configuration, an event after the end, a value
  that cannot be represented): one class per engine error, each with the
  engine's stable ``code``, under one class per ``blame`` (who must act, as
  h11 splits its errors): :class:`CallerError` (a bug in how the API is
  called, or a served request's header its caller sent malformed),
  :class:`ConfigurationError` (a policy or other configuration to fix),
  :class:`ServerDataError` (what a server answered, such as a header the
  engine cannot read) and :class:`PlatformError` (the machine: the random
  source). ``ServerDataError`` is not an HTTP 5xx: a failed attempt is an
  outcome, never an exception; ``PlatformError`` is not named
  ``EnvironmentError``, a builtin alias of ``OSError``. Every concrete class
  keeps its builtin base as well (``ValueError``, ``RuntimeError``, ...), so
  ``except ValueError`` still catches what it did;
* the helpers' way of surfacing an operation that ended without success
  (:class:`OperationFailedError`: :class:`GaveUpError`,
  :class:`ReconcileRequiredError`, :class:`RestartRequiredError`, named as in
  JS; their names before were ``OperationFailed``, ``ReconcileRequired`` and
  ``RestartRequired``, deprecated aliases for one release). These are not
  misuse: they carry the engine's final decision and the attempt history.
"""

from typing import TYPE_CHECKING, Any, Dict, Optional

from . import _error_classes
from ._error_classes import *  # noqa: F403 - the engine's errors, generated from the core's (their __all__)
from ._error_classes import BY_CODE as BY_CODE
from ._error_classes import RENAMED, CallerError, InvalidArgumentError, RetryplanError

if TYPE_CHECKING:  # pragma: no cover
    from typing import Literal

    from ._enums import GiveUpReason
    from ._error_classes import InvalidPolicyError as InvalidPolicyError
    from ._error_classes import InvalidPolicyJsonError as InvalidPolicyJsonError
    from ._native import Decision, GaveUp, Outcome, Reconcile, Restart

__all__ = [
    "ArgumentTypeError",
    "AttemptFailed",
    "AttemptMisuseError",
    "AttemptTimedOut",
    "GaveUpError",
    "OperationFailedError",
    "ReconcileRequiredError",
    "RestartRequiredError",
]
__all__ += _error_classes.__all__


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong Python type (also a ``TypeError``; code ``invalid_argument``)."""


class AttemptMisuseError(CallerError, RuntimeError):
    """An attempt used against its protocol (code ``attempt_misuse``, blame ``caller``; also a ``RuntimeError``):
    an attempt loop moved on from an attempt that reported no outcome (use ``with attempt:`` or
    ``attempt.report(...)``), or an attempt under ``@retry`` was told to report (there the call reports: return or
    raise). An attempt reported twice is :class:`AttemptNotRunningError`. The operation is unchanged."""

    code = "attempt_misuse"

    def __init__(self, message: str, attempt: int = 0) -> None:
        super().__init__(message)
        #: The attempt number misused.
        self.attempt = attempt


class AttemptFailed(Exception):
    """Raise this inside a retried function to report an exact outcome.

    ``raise AttemptFailed(Outcome.http_status(503, retry_after_ms=200))`` lets
    the engine classify the attempt as it would any other outcome.
    """

    def __init__(self, outcome: "Outcome", message: Optional[str] = None) -> None:
        super().__init__(message or repr(outcome))
        self.outcome = outcome


class AttemptTimedOut(TimeoutError):
    """An attempt a sync helper stopped waiting for at its abort time (the failure ``attempt_timed_out``)."""


def _renamed_keyword(renamed: Dict[str, Any], last_value: Any) -> Any:
    """``last_result=``, the deprecated name of ``last_value=`` (warns); any other keyword is a TypeError."""
    import warnings

    unknown = [name for name in renamed if name != "last_result"]
    if unknown:
        raise TypeError(f"OperationFailedError() got an unexpected keyword argument {unknown[0]!r}")
    if last_value is not None:
        raise TypeError("OperationFailedError(): give last_value or its deprecated name last_result, not both")
    warnings.warn("OperationFailedError's last_result= is renamed last_value=", DeprecationWarning, stacklevel=3)
    return renamed["last_result"]


class OperationFailedError(RetryplanError):
    """A helper's operation ended without success (not misuse).

    ``decision`` is the engine's final decision; ``attempts`` the attempts
    started; ``idempotency_key`` the operation's key; ``last_outcome`` how
    the deciding (last) attempt ended; ``cause`` the exception it raised, if
    it raised (also ``__cause__``); ``last_value`` what it returned, if it
    returned (``last_result`` is its deprecated name). Only the last attempt
    is kept: no history of every error. ``blame`` is empty: no one misused
    anything.
    """

    code = "operation_failed"
    if TYPE_CHECKING:  # pragma: no cover - an ending is not misuse: no one is to blame (JS's has no blame)
        blame: Literal[""]

    def __init__(
        self,
        message: str,
        decision: "Decision",
        *,
        idempotency_key: str = "",
        last_outcome: "Optional[Outcome]" = None,
        cause: Optional[BaseException] = None,
        last_value: Any = None,
        **renamed: Any,
    ) -> None:
        if renamed:  # the keyword's old name, for one release
            last_value = _renamed_keyword(renamed, last_value)
        super().__init__(message)
        self.decision = decision
        self.idempotency_key = idempotency_key
        self.last_outcome = last_outcome
        self.cause = cause
        self.last_value = last_value

    @property
    def last_result(self) -> Any:
        """Deprecated: renamed ``last_value``, as every binding names it (``Ending.last_result`` is the last
        attempt's number and outcome, another thing); kept for one release."""
        import warnings

        warnings.warn(
            "OperationFailedError.last_result is renamed OperationFailedError.last_value",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.last_value

    @property
    def attempts(self) -> int:
        """Attempts started, hedges included."""
        return int(getattr(self.decision, "attempts", 0))

    @property
    def last_exception(self) -> Optional[BaseException]:
        """Deprecated alias of :attr:`cause` (kept for one release)."""
        import warnings

        warnings.warn(
            "OperationFailedError.last_exception is renamed OperationFailedError.cause",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.cause


class GaveUpError(OperationFailedError):
    """The engine gave up; ``reason`` (a GiveUpReason) says why."""

    code = "gave_up"
    if TYPE_CHECKING:  # pragma: no cover - the helpers raise it with its decision, a GaveUp
        decision: GaveUp

    @property
    def reason(self) -> "GiveUpReason":
        """The GiveUpReason of the final decision."""
        return self.decision.reason


class ReconcileRequiredError(OperationFailedError):
    """An unsafe write may have been processed: query its outcome by ``idempotency_key``; do not repeat it."""

    code = "reconcile"
    if TYPE_CHECKING:  # pragma: no cover - the helpers raise it with its decision, a Reconcile
        decision: Reconcile


class RestartRequiredError(OperationFailedError):
    """A conflict: re-read, recompute and start again within ``deadline_ms`` (the decision's)."""

    code = "restart"
    if TYPE_CHECKING:  # pragma: no cover - the helpers raise it with its decision, a Restart
        decision: Restart

    @property
    def deadline_ms(self) -> int:
        """The restarted operation's deadline, ``decision.deadline_ms`` (ms on the operation's clock), as JS's
        ``deadlineMs``."""
        return self.decision.deadline_ms


# The endings' names before issue 28 (one name per concept: JS's, ending in Error).
ENDINGS_RENAMED = {
    "OperationFailed": "OperationFailedError",
    "ReconcileRequired": "ReconcileRequiredError",
    "RestartRequired": "RestartRequiredError",
}

if TYPE_CHECKING:  # pragma: no cover
    OperationFailed = OperationFailedError
    ReconcileRequired = ReconcileRequiredError
    RestartRequired = RestartRequiredError


def __getattr__(name: str) -> object:
    """The deprecated aliases (PEP 562): each warns, then is the renamed class."""
    renamed = RENAMED.get(name) or ENDINGS_RENAMED.get(name)
    if renamed is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    new = globals()[renamed]
    warnings.warn(
        f"retryplan.{name} is renamed {renamed} (code {new.code}); the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return new


for _name in __all__:  # shown (in tracebacks, reprs) and pickled by their public home, not this private module
    globals()[_name].__module__ = "retryplan"
del _name
