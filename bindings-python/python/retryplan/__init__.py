"""retryplan: retry and deadline decisions from one sans-IO engine.

The engine (compiled Rust, ``retryplan._native``) decides; this package
converts types and errors and does the I/O the Python way. Every helper
(``retry``, ``attempts``, ``async_attempts``, ``retryplan.httpx``) is an
adapter over the engine's host loop, ``Driver``.

Units: a clock reading you pass in (``now``, ``deadline``) is float seconds
from ``time.monotonic()`` (``now_unix``: ``time.time()``), and each also has an
exact integer-millisecond keyword twin (``now_ms=``, ``deadline_ms=``, ...).
Everything else, every policy field, decision field and return value, is
integer milliseconds named ``_ms``, exactly as in the engine.

Only the compiled engine is imported eagerly; the enums, the exceptions and
the helpers are imported on first use, so ``import retryplan`` stays cheap.
"""

from . import _wire  # noqa: F401 - checks the engine's wire version at import
from ._native import (
    FAILURES,
    FORM_VERSION,
    GIVE_UP_REASONS,
    GRPC_CODES,
    GUIDANCE_HEADERS,
    IDEMPOTENCY_KEY_HEADER,
    MAX_MS,
    PROFILE_NAMES,
    REQUEST_ID_HEADER,
    UNKNOWN_ERROR_HINT,
    UNKNOWN_ERROR_VERDICT,
    AbortAttempt,
    Action,
    AttemptPlan,
    AttemptResult,
    AwaitOutcome,
    BreakerPermit,
    CircuitBreaker,
    Decision,
    Dependency,
    Driver,
    Ending,
    EndingResult,
    Event,
    GaveUp,
    IncomingContext,
    Operation,
    Outcome,
    Policy,
    Pushback,
    Reconcile,
    Release,
    Restart,
    RetryBudget,
    RetryCharge,
    RetrySlot,
    RetrySlots,
    ServiceConfig,
    Sleep,
    StartAttempt,
    Stats,
    Succeeded,
    Wait,
    __version__,
    admit,
    aws_error_code_from_response,
    aws_standard_2026_dependency,
    aws_standard_dependency,
    backoff_ceilings_ms,
    classify,
    compile_dependency,
    encode_grpc_timeout,
    encode_grpc_timeout_ns,
    explain,
    parse_grpc_pushback,
    parse_grpc_timeout,
    parse_grpc_timeout_ns,
    parse_http_date,
    parse_rate_limit,
    parse_rate_limit_reset,
    parse_retry_after,
    parse_retry_after_ms_header,
    profile,
    redeliver,
    remaining_ms,
    request_name,
)

TYPE_CHECKING = False  # typing is not imported at run time: it would double the import time
if TYPE_CHECKING:  # pragma: no cover
    from ._async import AsyncAttempts, async_attempts
    from ._enums import *  # noqa: F403 - the public enums (their __all__)
    from ._error_classes import *  # noqa: F403 - the engine's errors (their __all__, which _errors extends)
    from ._errors import *  # noqa: F403 - the exceptions (their __all__)

    # The deprecated aliases (`_RENAMED`), re-exported for type checkers as what they are at run time, where each
    # access warns (`__getattr__`); PEP 702's @deprecated marks classes and functions, not an alias of one.
    from ._errors import InvalidPolicyError as InvalidPolicyError
    from ._errors import InvalidPolicyJsonError as InvalidPolicyJsonError
    from ._errors import OperationFailed as OperationFailed
    from ._errors import ReconcileRequired as ReconcileRequired
    from ._errors import RestartRequired as RestartRequired
    from ._failures import default_outcome_of_exception, http_outcome, response_outcome
    from ._helpers import Attempts, attempts, retry
    from ._native import Attempt
    from ._run import current_attempt
    from ._values import *  # noqa: F403 - the engine's plain values (their __all__)

    ConcurrencyLimit = RetrySlots
    remaining_budget_ms = remaining_ms

# The module of each public name not imported eagerly (imported on its first use, and only it); every other
# public name not imported eagerly is an exception of `_errors` (its `__all__`).
_LAZY = {
    "_enums": ("Failure", "GiveUpReason", "GrpcCode", "Idempotency", "TransportFailure", "Verdict"),
    "_failures": ("default_outcome_of_exception", "http_outcome", "response_outcome"),
    "_helpers": ("Attempts", "attempts", "retry"),
    "_run": ("Attempt", "current_attempt"),
    "_async": ("AsyncAttempts", "async_attempts"),
    "_values": ("Admission", "Classification", "Redelivery", "Timeline"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


# Old names kept for one release: reading one warns (DeprecationWarning) and gives the new.
_RENAMED = {
    "ConcurrencyLimit": "RetrySlots",
    "InvalidPolicyJsonError": "InvalidConfigError",
    "InvalidPolicyError": "ConfigViolationsError",
    "OperationFailed": "OperationFailedError",
    "ReconcileRequired": "ReconcileRequiredError",
    "RestartRequired": "RestartRequiredError",
    "remaining_budget_ms": "remaining_ms",
}


if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name is theirs to report, not an `object`

    def __getattr__(name: str) -> object:
        """Import enums, exceptions and helpers on first use (PEP 562), so ``import retryplan`` stays cheap."""
        if name in _RENAMED:
            import sys
            import warnings

            new = _RENAMED[name]
            # `from retryplan import Old` asks twice: importlib's probe for a submodule, then the import itself.
            # Only the second is the caller's line, so only it warns (once per use, as `retryplan.Old` does).
            if sys._getframe(1).f_globals.get("__name__") != "importlib._bootstrap":
                message = f"retryplan.{name} is renamed retryplan.{new}; the old name goes in the next release"
                warnings.warn(message, DeprecationWarning, stacklevel=2)
            # Never cached under the old name, so every use warns; the new one may be lazy.
            return globals()[new] if new in globals() else __getattr__(new)
        module = _MODULE_OF.get(name) or ("_errors" if name in __all__ else None)
        if module is None:
            raise AttributeError(f"module 'retryplan' has no attribute {name!r}")
        import sys

        __import__(f"{__name__}.{module}")
        value = getattr(sys.modules[f"{__name__}.{module}"], name)
        globals()[name] = value
        return value


__all__ = [
    "FAILURES",
    "FORM_VERSION",
    "GIVE_UP_REASONS",
    "GRPC_CODES",
    "GUIDANCE_HEADERS",
    "IDEMPOTENCY_KEY_HEADER",
    "MAX_MS",
    "PROFILE_NAMES",
    "REQUEST_ID_HEADER",
    "UNKNOWN_ERROR_HINT",
    "UNKNOWN_ERROR_VERDICT",
    "AbortAttempt",
    "Action",
    "Admission",
    "ArgumentTypeError",
    "AsyncAttempts",
    "Attempt",
    "AttemptFailed",
    "AttemptMisuseError",
    "AttemptNotRunningError",
    "AttemptPlan",
    "AttemptResult",
    "Attempts",
    "AwaitOutcome",
    "BreakerPermit",
    "CallerError",
    "CircuitBreaker",
    "Classification",
    "CompiledFormDamagedError",
    "CompiledFormError",
    "CompiledFormKindError",
    "CompiledFormVersionError",
    "ConfigViolationsError",
    "ConfigurationError",
    "Decision",
    "Dependency",
    "Driver",
    "Ending",
    "EndingResult",
    "EntropyUnavailableError",
    "Event",
    "Failure",
    "GaveUp",
    "GaveUpError",
    "GiveUpReason",
    "GrpcCode",
    "Idempotency",
    "IncomingContext",
    "InvalidArgumentError",
    "InvalidConfigError",
    "InvalidHeaderError",
    "InvalidRequestHeaderError",
    "NotACompiledFormError",
    "Operation",
    "OperationEndedError",
    "OperationFailedError",
    "Outcome",
    "PlatformError",
    "Policy",
    "Pushback",
    "Reconcile",
    "ReconcileRequiredError",
    "Redelivery",
    "Restart",
    "RestartRequiredError",
    "RetryBudget",
    "RetryCharge",
    "RetrySlot",
    "RetrySlots",
    "RetryplanError",
    "ServerDataError",
    "ServiceConfig",
    "Release",
    "Sleep",
    "StartAttempt",
    "Stats",
    "Succeeded",
    "Timeline",
    "TransportFailure",
    "UnknownProfileError",
    "UnsupportedError",
    "Verdict",
    "Violation",
    "Wait",
    "__version__",
    "admit",
    "async_attempts",
    "attempts",
    "aws_error_code_from_response",
    "aws_standard_2026_dependency",
    "aws_standard_dependency",
    "backoff_ceilings_ms",
    "classify",
    "compile_dependency",
    "current_attempt",
    "default_outcome_of_exception",
    "encode_grpc_timeout",
    "encode_grpc_timeout_ns",
    "explain",
    "http_outcome",
    "parse_grpc_pushback",
    "parse_grpc_timeout",
    "parse_grpc_timeout_ns",
    "parse_http_date",
    "parse_rate_limit",
    "parse_rate_limit_reset",
    "parse_retry_after",
    "parse_retry_after_ms_header",
    "profile",
    "redeliver",
    "remaining_ms",
    "request_name",
    "response_outcome",
    "retry",
]
