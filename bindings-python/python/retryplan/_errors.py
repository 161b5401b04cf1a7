"""The exceptions of retryplan.

Two families, both under :class:`RetryplanError`:

* the engine's errors (an invalid configuration, an event after the end, a value
  that cannot be represented): one class per engine error, each with the
  engine's stable ``code``, under one class per ``blame`` (who must act, as
  h11 splits its errors): :class:`CallerError` (a bug in how the API is
  called), :class:`ConfigurationError` (a policy or other configuration to
  fix), :class:`ServerDataError` (what the peer sent, such as a header the
  engine cannot read) and :class:`PlatformError` (the machine: the random
  source). ``ServerDataError`` is not an HTTP 5xx: a failed attempt is an
  outcome, never an exception; ``PlatformError`` is not named
  ``EnvironmentError``, a builtin alias of ``OSError``. Every concrete class
  keeps its builtin base as well (``ValueError``, ``RuntimeError``, ...), so
  ``except ValueError`` still catches what it did;
* the helpers' way of surfacing an operation that ended without success
  (:class:`OperationFailed`: :class:`GaveUpError`, :class:`ReconcileRequired`,
  :class:`RestartRequired`). These are not misuse: they carry the engine's
  final decision and the attempt history.
"""

from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from ._native import Decision, Outcome

__all__ = [
    "ArgumentTypeError",
    "AttemptFailed",
    "AttemptNotRunningError",
    "AttemptTimedOut",
    "CallerError",
    "ConfigViolationsError",
    "ConfigurationError",
    "EntropyUnavailableError",
    "GaveUpError",
    "InvalidArgumentError",
    "InvalidConfigError",
    "InvalidHeaderError",
    "OperationEndedError",
    "OperationFailed",
    "PlatformError",
    "ReconcileRequired",
    "RestartRequired",
    "RetryplanError",
    "ServerDataError",
    "UnknownProfileError",
    "UnsupportedError",
    "Violation",
]


class RetryplanError(Exception):
    """Base of every exception retryplan raises.

    ``code`` is a stable snake_case identifier: for engine errors it equals the
    engine's ``Error::code()`` (the same in every language binding); messages
    may be reworded, codes may not.
    """

    code: str = "retryplan_error"
    #: Who must act (engine errors): ``caller`` (misuse of the API),
    #: ``configuration`` (a policy or config), ``server`` (what the peer sent) or
    #: ``environment`` (the random source); the same as every binding's
    #: ``blame``, see the README's errors section. Empty for
    #: :class:`OperationFailed` and its subclasses, which are not misuse.
    blame: str = ""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CallerError(RetryplanError):
    """Blame ``caller``: the code calling the engine uses it wrongly (an event
    after the end, an attempt that is not running, an argument out of range)."""

    blame = "caller"


class ConfigurationError(RetryplanError):
    """Blame ``configuration``: a policy or other configuration the engine
    cannot read, accept or carry out; fix the configuration (or the host)."""

    blame = "configuration"


class ServerDataError(RetryplanError):
    """Blame ``server``: the peer sent data the engine cannot read (a
    Retry-After or grpc-timeout header). Not an HTTP 5xx: a failed attempt is
    an outcome the engine decides on, never an exception."""

    blame = "server"


class PlatformError(RetryplanError):
    """Blame ``environment``: the machine failed the engine (the operating
    system's random source). Not named ``EnvironmentError``, which is a
    builtin alias of ``OSError``."""

    blame = "environment"


class Violation(NamedTuple):
    """One rule a configuration breaks: the dotted field path (from the
    configuration the error names) and the rule in words."""

    field: str
    message: str


class ConfigViolationsError(ConfigurationError, ValueError):
    """A configuration that reads breaks one or more rules; ``violations`` lists every one.

    ``config`` names which: ``policy``, ``dependency``, ``budget``,
    ``breaker`` or ``service_config`` (the constructor or reader called: a
    dependency's budget is ``dependency``); each violation's ``field`` is its
    path from that configuration (``max_tokens`` for a budget,
    ``budget.max_tokens`` for a dependency). Renamed from
    ``InvalidPolicyError`` (code ``invalid_policy``), which stays importable
    as a deprecated alias of this class for one release.
    """

    code = "config_violations"

    def __init__(self, message: str, violations: Sequence[Tuple[str, str]] = (), config: str = "policy") -> None:
        super().__init__(message)
        self.config = config
        self.violations: Tuple[Violation, ...] = tuple(Violation(f, m) for f, m in violations)

    @property
    def fields(self) -> Tuple[str, ...]:
        """The dotted path of each violation, in order."""
        return tuple(v.field for v in self.violations)


class InvalidConfigError(ConfigurationError, ValueError):
    """A configuration could not be read (JSON syntax, a wrong type, an unknown field).

    ``config`` names which: ``policy``, ``dependency``, ``budget``,
    ``breaker`` or ``service_config`` (the reader called: a dependency's
    budget is ``dependency``); ``field`` is the dotted path where reading
    stopped (empty at the top level). Renamed from ``InvalidPolicyJsonError``
    (code ``invalid_policy_json``), which stays importable as a deprecated
    alias of this class for one release.
    """

    code = "invalid_config"

    def __init__(self, message: str, config: str = "policy", field: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.config = config
        self.field = field
        self.detail = detail

    @property
    def fields(self) -> Tuple[str, ...]:
        """``(field,)``, for symmetry with :class:`ConfigViolationsError`."""
        return (self.field,)


class UnknownProfileError(ConfigurationError, LookupError):
    """No built-in profile has this ``name``; ``known`` lists the names (a list)."""

    code = "unknown_profile"

    def __init__(self, message: str, name: str = "", known: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.name = name
        self.known: List[str] = list(known)

    def __str__(self) -> str:  # LookupError subclasses would otherwise be fine; keep the message plain
        return self.message


class OperationEndedError(CallerError, RuntimeError):
    """An outcome, cancel or poll arrived after the operation ended."""

    code = "operation_ended"


class AttemptNotRunningError(CallerError, RuntimeError):
    """An outcome names an attempt that is not running (``running``: the attempts that are, ascending; empty when none is)."""

    code = "attempt_not_running"

    def __init__(self, message: str, attempt: int = 0, running: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.attempt = attempt
        self.running: List[int] = list(running)


class InvalidArgumentError(CallerError, ValueError):
    """A value handed to the engine cannot be represented; ``name`` is the argument."""

    code = "invalid_argument"

    def __init__(self, message: str, name: str = "", rule: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.rule = rule


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong Python type (also a ``TypeError``; code ``invalid_argument``)."""


class UnsupportedError(ConfigurationError, ValueError):
    """The helper cannot carry out a section of the policy (``field``, e.g. ``hedging`` one attempt at a time)."""

    code = "unsupported"

    def __init__(self, message: str, field: str = "", rule: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule


class InvalidHeaderError(ServerDataError, ValueError):
    """A header value could not be read (Retry-After, retry-after-ms, grpc-timeout).

    ``kind`` is ``empty``, ``malformed`` or ``out_of_range``; ``value`` is a
    bounded excerpt of the input.
    """

    code = "invalid_header"

    def __init__(
        self,
        message: str,
        header: str = "",
        kind: str = "",
        value: Optional[str] = None,
        expected: Optional[str] = None,
        limit: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.header = header
        self.kind = kind
        self.value = value
        self.expected = expected
        self.limit = limit


class EntropyUnavailableError(PlatformError, OSError):
    """The operating system's random source failed (drawing a seed or key)."""

    code = "entropy_unavailable"

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def __str__(self) -> str:
        return self.message


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


class OperationFailed(RetryplanError):
    """A helper's operation ended without success (not misuse).

    ``decision`` is the engine's final decision; ``attempts`` the attempts
    started; ``idempotency_key`` the operation's key; ``last_outcome`` how
    the deciding (last) attempt ended; ``cause`` the exception it raised, if
    it raised (also ``__cause__``); ``last_result`` what it returned, if it
    returned. Only the last attempt is kept: no history of every error.
    """

    code = "operation_failed"

    def __init__(
        self,
        message: str,
        decision: "Decision",
        *,
        idempotency_key: str = "",
        last_outcome: "Optional[Outcome]" = None,
        cause: Optional[BaseException] = None,
        last_result: Any = None,
    ) -> None:
        super().__init__(message)
        self.decision = decision
        self.idempotency_key = idempotency_key
        self.last_outcome = last_outcome
        self.cause = cause
        self.last_result = last_result

    @property
    def attempts(self) -> int:
        """Attempts started, hedges included."""
        return int(getattr(self.decision, "attempts", 0))

    @property
    def last_exception(self) -> Optional[BaseException]:
        """Deprecated alias of :attr:`cause` (kept for one release)."""
        return self.cause


class GaveUpError(OperationFailed):
    """The engine gave up; ``reason`` (a GiveUpReason) says why."""

    code = "gave_up"

    @property
    def reason(self) -> Any:
        """The GiveUpReason of the final decision."""
        return getattr(self.decision, "reason", None)


class ReconcileRequired(OperationFailed):
    """An unsafe write may have been processed: query its outcome by ``idempotency_key``; do not repeat it."""

    code = "reconcile"


class RestartRequired(OperationFailed):
    """A conflict: re-read, recompute and start again within ``decision.deadline_ms``."""

    code = "restart"


if TYPE_CHECKING:  # pragma: no cover
    #: Deprecated alias of :class:`InvalidConfigError` (for type checkers; at run time see ``__getattr__``).
    InvalidPolicyJsonError = InvalidConfigError
    #: Deprecated alias of :class:`ConfigViolationsError` (for type checkers; at run time see ``__getattr__``).
    InvalidPolicyError = ConfigViolationsError

#: Names renamed in this release, each kept as a deprecated alias for one release.
_RENAMED = {"InvalidPolicyJsonError": "InvalidConfigError", "InvalidPolicyError": "ConfigViolationsError"}


def __getattr__(name: str) -> object:
    """The deprecated aliases (PEP 562): each warns, then is the renamed class."""
    renamed = _RENAMED.get(name)
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
