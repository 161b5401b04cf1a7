"""String enums for the engine's stable snake_case names.

Every member is also a ``str`` equal to the engine's name, so plain strings
work wherever a member is accepted, and members compare equal to strings.
"""

from enum import Enum

__all__ = ["Failure", "GiveUpReason", "GrpcCode", "Idempotency", "TransportFailure", "Verdict"]


class _StrEnum(str, Enum):
    """A str-valued Enum whose ``str()`` is its value on every Python version."""

    def __str__(self) -> str:
        return str(self.value)


class GiveUpReason(_StrEnum):
    """Why an operation gave up (``GaveUp.reason``)."""

    ATTEMPTS_EXHAUSTED = "attempts_exhausted"
    """The last allowed attempt failed (``max_attempts`` counts the first)."""
    DEADLINE_INSUFFICIENT = "deadline_insufficient"
    """What remains cannot hold the next wait plus a minimum useful attempt."""
    RETRY_AFTER_EXCEEDS_BUDGET = "retry_after_exceeds_budget"
    """The server asked for a wait that does not fit in what remains."""
    RETRY_AFTER_ABOVE_CAP = "retry_after_above_cap"
    """The server asked for a wait above ``server_guidance.cap_ms``."""
    SERVER_DECLINED_RETRY = "server_declined_retry"
    """gRPC pushback said not to retry."""
    NOT_RETRYABLE = "not_retryable"
    """The outcome is not worth another attempt."""
    CANCELLED = "cancelled"
    """The caller cancelled."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """The dependency's retry budget refused the retry."""
    CIRCUIT_OPEN = "circuit_open"
    """The dependency's circuit breaker is open."""
    NO_RETRY_SLOT = "no_retry_slot"
    """Every retry slot of the dependency is in use."""
    BODY_NOT_REPLAYABLE = "body_not_replayable"
    """The request's body can be sent only once (a stream): the retry it called for was not made."""


class TransportFailure(_StrEnum):
    """A failure below the application protocol."""

    NOT_SENT = "not_sent"
    """The request never left (refused, DNS, TLS before sending): always safe to repeat."""
    CONNECTION_LOST = "connection_lost"
    """The connection broke after (part of) the request was sent: it may have been processed."""
    TIMED_OUT = "timed_out"
    """The attempt's timeout fired after sending: it may have been processed."""


class Failure(_StrEnum):
    """What a host saw go wrong with an attempt, named the same in every language (``Outcome.failure``)."""

    DNS_LOOKUP_FAILED = "dns_lookup_failed"
    """The host name could not be resolved (nothing was sent)."""
    CONNECTION_REFUSED = "connection_refused"
    """The server refused the connection (nothing was sent)."""
    UNREACHABLE = "unreachable"
    """No route to the network or the host (nothing was sent)."""
    CONNECT_TIMEOUT = "connect_timeout"
    """The connection could not be made in time (nothing was sent)."""
    TLS_HANDSHAKE_FAILED = "tls_handshake_failed"
    """The TLS handshake failed (nothing was sent)."""
    POOL_TIMEOUT = "pool_timeout"
    """No pooled connection became free in time (nothing was sent)."""
    WRITE_FAILED = "write_failed"
    """The connection broke while the request was being written (it may have been processed)."""
    CONNECTION_LOST = "connection_lost"
    """Reset or closed after the request was sent, before a complete response (it may have been processed)."""
    READ_TIMEOUT = "read_timeout"
    """No (complete) response within the read timeout (it may have been processed)."""
    BODY_BROKEN = "body_broken"
    """The response started, then its body broke off mid-stream."""
    MALFORMED_RESPONSE = "malformed_response"
    """The answer could not be read as a response (a status outside 100..=599): the server's fault."""
    ATTEMPT_TIMED_OUT = "attempt_timed_out"
    """The attempt ran to its abort time and was aborted."""
    CANCELLED = "cancelled"
    """The caller abandoned the attempt."""


class Verdict(_StrEnum):
    """The application's own judgement of a failed attempt."""

    RETRYABLE = "retryable"
    """Worth another attempt; the effect certainly did not happen."""
    NOT_RETRYABLE = "not_retryable"
    """Not worth another attempt."""
    CONFLICT = "conflict"
    """State changed underneath: re-read, recompute, redo the unit."""


class Idempotency(_StrEnum):
    """Whether repeating an operation could repeat its effect (``Policy.idempotency``)."""

    SAFE = "safe"
    """No effect at all (a read)."""
    IDEMPOTENT = "idempotent"
    """Repeating has the same effect as doing it once."""
    KEYED = "keyed"
    """The server deduplicates by the operation's idempotency key."""
    UNSAFE = "unsafe"
    """Repeating may repeat the effect: ambiguous outcomes answer Reconcile."""


class GrpcCode(_StrEnum):
    """gRPC status codes by their canonical snake_case names (numbers 0 to 16 in order)."""

    OK = "ok"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"
    INVALID_ARGUMENT = "invalid_argument"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    FAILED_PRECONDITION = "failed_precondition"
    ABORTED = "aborted"
    OUT_OF_RANGE = "out_of_range"
    UNIMPLEMENTED = "unimplemented"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"
    DATA_LOSS = "data_loss"
    UNAUTHENTICATED = "unauthenticated"
