"""retryplan: retry and deadline decisions from one sans-IO engine.

The engine (compiled Rust, ``retryplan._native``) decides; this package
converts types and errors and does the I/O the Python way.

Units: a clock reading you pass in (``now``, ``deadline``) is float seconds
from ``time.monotonic()`` (``now_unix``: ``time.time()``), and each also has an
exact integer-millisecond keyword twin (``now_ms=``, ``deadline_ms=``, ...).
Everything else, every policy field, decision field and return value, is
integer milliseconds named ``_ms``, exactly as in the engine.

Only the compiled engine is imported eagerly; the enums, the exceptions and
the helpers (``retry``, ``attempts``, ``async_attempts``, ``current_attempt``,
and the ``retryplan.httpx`` module) are imported on first use, so
``import retryplan`` stays cheap.
"""

from ._native import (
    GIVE_UP_REASONS,
    GRPC_CODES,
    MAX_MS,
    PROFILE_NAMES,
    Admission,
    AwaitOutcome,
    BreakerPermit,
    CircuitBreaker,
    Classification,
    Decision,
    Dependency,
    GaveUp,
    Operation,
    Outcome,
    Policy,
    Pushback,
    Reconcile,
    Redelivery,
    Restart,
    RetryBudget,
    RetryCharge,
    ServiceConfig,
    StartAttempt,
    Stats,
    Succeeded,
    Timeline,
    Wait,
    __version__,
    admit,
    aws_error_code_from_response,
    aws_standard_dependency,
    backoff_ceilings_ms,
    classify,
    encode_grpc_timeout,
    encode_grpc_timeout_ns,
    explain,
    parse_grpc_pushback,
    parse_grpc_timeout,
    parse_grpc_timeout_ns,
    parse_retry_after,
    parse_retry_after_ms_header,
    profile,
    redeliver,
    remaining_budget_ms,
)

TYPE_CHECKING = False  # typing is not imported at run time: it would double the import time
if TYPE_CHECKING:  # pragma: no cover
    from ._async import AsyncAttempts, async_attempts
    from ._enums import GiveUpReason, GrpcCode, Idempotency, TransportFailure, Verdict
    from ._errors import (
        ArgumentTypeError,
        AttemptFailed,
        AttemptNotRunningError,
        AttemptRecord,
        EntropyUnavailableError,
        GaveUpError,
        InvalidArgumentError,
        InvalidHeaderError,
        InvalidPolicyError,
        InvalidPolicyJsonError,
        OperationEndedError,
        OperationFailed,
        ReconcileRequired,
        RestartRequired,
        RetryplanError,
        UnknownProfileError,
        UnsupportedError,
        Violation,
    )
    from ._helpers import (
        Attempt,
        Attempts,
        attempts,
        current_attempt,
        default_outcome_of_exception,
        http_outcome,
        response_outcome,
        retry,
    )

_LAZY = {
    **dict.fromkeys(("GiveUpReason", "GrpcCode", "Idempotency", "TransportFailure", "Verdict"), "._enums"),
    **dict.fromkeys(
        (
            "ArgumentTypeError",
            "AttemptFailed",
            "AttemptNotRunningError",
            "AttemptRecord",
            "EntropyUnavailableError",
            "GaveUpError",
            "InvalidArgumentError",
            "InvalidHeaderError",
            "InvalidPolicyError",
            "InvalidPolicyJsonError",
            "OperationEndedError",
            "OperationFailed",
            "ReconcileRequired",
    "Redelivery",
            "RestartRequired",
            "RetryBudget",
    "RetryCharge",
    "RetryplanError",
            "UnknownProfileError",
            "UnsupportedError",
            "Violation",
        ),
        "._errors",
    ),
    **dict.fromkeys(
        (
            "Attempt",
            "Attempts",
            "attempts",
            "current_attempt",
            "default_outcome_of_exception",
            "http_outcome",
            "response_outcome",
            "retry",
        ),
        "._helpers",
    ),
    **dict.fromkeys(("AsyncAttempts", "async_attempts"), "._async"),
}


def __getattr__(name: str) -> object:
    """Import enums, exceptions and helpers on first use (PEP 562), so ``import retryplan`` stays cheap."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'retryplan' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "GIVE_UP_REASONS",
    "GRPC_CODES",
    "MAX_MS",
    "PROFILE_NAMES",
    "Admission",
    "ArgumentTypeError",
    "AsyncAttempts",
    "Attempt",
    "AttemptFailed",
    "AttemptNotRunningError",
    "AttemptRecord",
    "Attempts",
    "AwaitOutcome",
    "BreakerPermit",
    "CircuitBreaker",
    "Classification",
    "Decision",
    "Dependency",
    "EntropyUnavailableError",
    "GaveUp",
    "GaveUpError",
    "GiveUpReason",
    "GrpcCode",
    "Idempotency",
    "InvalidArgumentError",
    "InvalidHeaderError",
    "InvalidPolicyError",
    "InvalidPolicyJsonError",
    "Operation",
    "OperationEndedError",
    "OperationFailed",
    "Outcome",
    "Policy",
    "Pushback",
    "Reconcile",
    "ReconcileRequired",
    "Redelivery",
    "Restart",
    "RestartRequired",
    "RetryBudget",
    "RetryCharge",
    "RetryplanError",
    "ServiceConfig",
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
    "aws_standard_dependency",
    "backoff_ceilings_ms",
    "classify",
    "current_attempt",
    "default_outcome_of_exception",
    "encode_grpc_timeout",
    "encode_grpc_timeout_ns",
    "explain",
    "http_outcome",
    "parse_grpc_pushback",
    "parse_grpc_timeout",
    "parse_grpc_timeout_ns",
    "parse_retry_after",
    "parse_retry_after_ms_header",
    "profile",
    "redeliver",
    "remaining_budget_ms",
    "response_outcome",
    "retry",
]
