"""Type stubs of ``retryplan._native``, the compiled engine.

Units: ``now``/``deadline``/``now_unix`` are float seconds (``time.monotonic()``,
``time.time()``), each with an exact integer-ms twin keyword; every ``*_ms``
value is integer milliseconds, exactly as in the engine.
"""

import os
import sys
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Union,
    final,
    overload,
)

from ._config_types import (
    AbortReasonName,
    BreakerFields,
    BudgetFields,
    ConcurrencyName,
    DependencyFields,
    FailureName,
    GiveUpReasonName,
    GrpcCodeName,
    HeldName,
    IdempotencyName,
    PolicyFields,
    ProfileName,
    ProtocolName,
    ReceiptName,
    RetryAfterReadingName,
    TransportFailureName,
    VerdictName,
)
from ._enums import Failure, GiveUpReason, GrpcCode, TransportFailure, Verdict
from ._values import Admission, Classification, Redelivery, Timeline

PROFILE_NAMES: Tuple[ProfileName, ...]
"""The built-in profile names (``read``, ``checkout``, ``write_keyed``, ``write_strict``, ``background``)."""
GIVE_UP_REASONS: Tuple[GiveUpReasonName, ...]
"""Every give-up reason name, in the engine's order."""
GRPC_CODES: Tuple[GrpcCodeName, ...]
"""The gRPC code names, in numeric order (0 to 16)."""
MAX_MS: int
"""The largest millisecond value a policy accepts: 2**53 - 1."""
URLLIB3_DEFAULT_TOTAL_TIMEOUT_MS: int
"""The total timeout of a policy mapped from a urllib3 ``Retry`` when none is given: 24 hours."""
URLLIB3_ATTRIBUTES: Tuple[str, ...]
"""The attributes of a urllib3 ``Retry`` the core reads, in urllib3's order."""
FORM_VERSION: int
"""The version of the compiled form this engine writes and reads (``Policy.to_compiled``); any other is refused."""
UNKNOWN_ERROR_VERDICT: VerdictName
"""The verdict every helper gives an error its failure table and ``outcome_of_error`` hook do not classify:
``"ambiguous"`` (retried while the operation may repeat an attempt that may have had its effect)."""
UNKNOWN_ERROR_HINT: str
"""What an ending after such an error says, naming ``outcome_of_error=`` (the core's text)."""
FAILURES: Tuple[FailureName, ...]
"""The failure vocabulary (``dns_lookup_failed``, ``connection_refused``, ...), for ``Outcome.failure``."""
MAX_CAUSE_DEPTH: int
"""How many wrapped errors (``__cause__``, ``__context__``, urllib3's ``reason``) the failure table looks through
below the one caught, the same in every language."""
GUIDANCE_HEADERS: Tuple[str, ...]
"""Every response header ``Outcome.from_http_response`` reads, lower case, in the order it consults them."""
IDEMPOTENCY_KEY_HEADER: str
"""The header carrying the operation's idempotency key (``Idempotency-Key``)."""
REQUEST_ID_HEADER: str
"""The header carrying each attempt's request id (``X-Request-Id``)."""
__version__: str

_JsonValue = Any

if sys.version_info >= (3, 11):
    from typing import Unpack
else:
    from typing_extensions import Unpack
if sys.version_info >= (3, 13):
    from warnings import deprecated
else:
    from typing_extensions import deprecated

class _Headers(Protocol):
    """Headers as the engine reads them: a ``dict``, whose keys are matched whatever their letter case (RFC 9110
    §5.1; two keys that differ only in case are two field lines of one header, joined by ``", "`` in the dict's order,
    as an HTTP library joins repeated lines), or any other mapping whose ``get`` finds the lower-case names
    (``httpx.Headers``, ``requests``' and urllib3's headers, ``http.client``'s: case-insensitive already)."""

    def get(self, name: str, /) -> Optional[str]: ...

@final
class Policy:
    """A validated, immutable retry policy.

    Every field not given takes the engine's default; every broken rule is
    reported at once (:class:`~retryplan.ConfigViolationsError`, each naming its
    field); an unreadable value raises :class:`~retryplan.InvalidConfigError`
    naming the field. Nothing is clamped.

    ``Policy(max_attempts=4, backoff={"base_ms": 50, "cap_ms": 400})``
    """

    def __new__(cls, **fields: Unpack[PolicyFields]) -> Policy:
        """A policy from keyword arguments shaped like the JSON schema."""
    @staticmethod
    def from_dict(config: Mapping[str, _JsonValue]) -> Policy:
        """A policy from a dict shaped like the JSON schema."""
    @staticmethod
    def from_json(json: str) -> Policy:
        """A policy from JSON text."""
    @staticmethod
    def from_file(path: Union[str, os.PathLike[str]]) -> Policy:
        """A policy from a ``.toml`` file (tomllib, or tomli before 3.11) or any other file as JSON."""
    @staticmethod
    def from_profile(name: ProfileName) -> Policy:
        """The built-in profile ``name`` (see ``PROFILE_NAMES``)."""
    @staticmethod
    def from_compiled(form: Union[bytes, bytearray, memoryview]) -> Policy:
        """A policy from its compiled form (``to_compiled``, ``retryplan compile``, any language's).

        Raises a ``CompiledFormError`` (``NotACompiledFormError``, ``CompiledFormVersionError``,
        ``CompiledFormDamagedError``, ``CompiledFormKindError``) for a form it refuses.
        """
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The configuration as a dict (normalised: sets sorted, ratios as decimals)."""
    def to_json(self) -> str:
        """The configuration as pretty-printed JSON."""
    def to_compiled(self) -> bytes:
        """The policy's compiled form: versioned, checksummed bytes ``Policy.from_compiled`` (any language's) reads
        back."""
    @property
    def max_attempts(self) -> int:
        """Attempts allowed in all, the first included."""
    @property
    def total_timeout_ms(self) -> int:
        """The operation's total timeout, in ms: every attempt and wait fit in it."""
    @property
    @deprecated("renamed total_timeout_ms")
    def total_budget_ms(self) -> int:
        """Deprecated alias of :attr:`total_timeout_ms` for one release."""
    @property
    def response_reserve_ms(self) -> int:
        """Time kept back at the end of the total timeout, in ms."""
    @property
    def minimum_useful_attempt_ms(self) -> int:
        """Least time worth starting an attempt with, in ms."""
    @property
    def idempotency(self) -> IdempotencyName:
        """``safe``, ``idempotent``, ``keyed`` or ``unsafe``."""
    @property
    def sends_idempotency_key(self) -> bool:
        """True when requests carry the idempotency key header (keyed and unsafe operations)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def profile(name: ProfileName) -> Dict[str, _JsonValue]:
    """The configuration of a built-in profile, as a dict to adjust and pass to ``Policy.from_dict``."""

def compile_dependency(config: Optional[Mapping[str, _JsonValue]] = None, **fields: Unpack[DependencyFields]) -> bytes:
    """A dependency's configuration (as ``Dependency`` takes it), validated, as its compiled form for
    ``Dependency.from_compiled``."""

@final
class Pushback:
    """What a gRPC server asked for in ``grpc-retry-pushback-ms``."""

    @staticmethod
    def retry_after(ms: int) -> Pushback:
        """Retry, but not before ``ms`` milliseconds."""
    @staticmethod
    def do_not_retry() -> Pushback:
        """The server asked not to retry."""
    @property
    def retry_after_ms(self) -> Optional[int]:
        """The requested delay in ms, or None for "do not retry"."""
    @property
    def is_do_not_retry(self) -> bool:
        """True when the server asked not to retry."""
    def to_json_value(self) -> Union[Dict[str, int], str]:
        """The JSON form: ``{"retry_after_ms": n}`` or ``"do_not_retry"``."""

@final
class Outcome:
    """What the caller saw when an attempt ended. Build it with the static constructors."""

    @staticmethod
    def success() -> Outcome:
        """The attempt succeeded."""
    @staticmethod
    def http_status(status: int, retry_after_ms: Optional[int] = None, error_code: Optional[str] = None) -> Outcome:
        """An HTTP response; ``retry_after_ms`` is Retry-After already in ms from now (see ``parse_retry_after``);
        ``error_code`` is the service's error code (AWS: ``"SlowDown"``, 1 to 64 visible ASCII characters)."""
    @staticmethod
    def grpc_status(code: Union[GrpcCode, GrpcCodeName, int], pushback: Optional[Pushback] = None) -> Outcome:
        """A gRPC status: a name (``"unavailable"``) or the wire number (14), with optional pushback."""
    @staticmethod
    def transport(
        failure: Union[TransportFailure, TransportFailureName], retry_after_ms: Optional[int] = None
    ) -> Outcome:
        """The transport failed: ``not_sent``, ``connection_lost`` or ``timed_out``; ``retry_after_ms`` is a wait the
        server asked for with the failure (applied as a Retry-After is)."""
    @staticmethod
    def failure(name: Union[Failure, FailureName], retry_after_ms: Optional[int] = None) -> Outcome:
        """A failure of the shared vocabulary by name (``dns_lookup_failed``, ``connection_lost``, ...; see
        ``FAILURES``), with the wait the server asked for along with it, if any (none for ``cancelled``)."""
    @staticmethod
    def application(verdict: Union[Verdict, VerdictName]) -> Outcome:
        """The application's own verdict: ``retryable``, ``not_retryable`` or ``conflict``."""
    @staticmethod
    def cancelled() -> Outcome:
        """The caller abandoned the attempt and the operation."""
    @overload
    @staticmethod
    def from_http(
        status: int, retry_after: Optional[str] = None, retry_after_ms: Optional[str] = None, *, now_unix: float
    ) -> Outcome:
        """An HTTP outcome from the status and the raw guidance headers, read the engine's one way.

        ``retry-after-ms`` wins when readable, else ``Retry-After`` (delta-seconds or an
        HTTP-date against the wall clock ``now_unix``); an unreadable value is no guidance.
        """
    @overload
    @staticmethod
    def from_http(
        status: int, retry_after: Optional[str] = None, retry_after_ms: Optional[str] = None, *, now_unix_ms: int
    ) -> Outcome: ...
    @overload
    @staticmethod
    def from_http_response(
        status: int,
        headers: _Headers,
        *,
        now_unix: float,
        reading: Optional[RetryAfterReadingName] = None,
        policy: Optional[Policy] = None,
    ) -> Outcome:
        """A response's outcome from its status and headers, read the engine's one way.

        ``headers`` is a ``dict`` (its keys in any letter case; two keys that differ
        only in case are two lines of one header, joined by ``", "``) or a mapping
        whose ``get`` finds the lower-case names of ``GUIDANCE_HEADERS``
        (``httpx.Headers``, ``requests``' headers); ``now_unix`` reads an HTTP-date. A status outside 100..=599,
        or an interim 1xx but 101, is ``malformed_response``, the server's fault (never an error). The first
        guidance header that asks for a wait wins: ``retry-after-ms``,
        ``x-ms-retry-after-ms``, ``x-amz-retry-after``, ``Retry-After`` (read as
        ``reading`` says), ``RateLimit`` (with ``RateLimit-Policy``),
        ``RateLimit-Reset``, ``X-RateLimit-Reset`` (the rate-limit headers not on a cached response: an ``Age`` above 0).

        Given a ``policy``, the response is read as its HTTP helpers read it: only the guidance
        headers its ``server_guidance.headers`` names (``"retry_after"``, what ``compat.from_urllib3``
        writes: ``Retry-After`` alone), ``Retry-After`` read as its ``server_guidance.retry_after_reading``
        says; an outcome recorded in an ``Operation`` or a ``Driver`` of that policy should be read so.
        ``reading`` (``"strict"`` when neither is given) and ``policy`` together are refused
        (``InvalidArgumentError`` naming ``reading``): the policy carries its reading.
        """
    @overload
    @staticmethod
    def from_http_response(
        status: int,
        headers: _Headers,
        *,
        now_unix_ms: int,
        reading: Optional[RetryAfterReadingName] = None,
        policy: Optional[Policy] = None,
    ) -> Outcome: ...
    @property
    def kind(self) -> str:
        """The outcome's kind, as in JSON's ``type``."""
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The outcome in the JSON schema's shape."""

class Decision:
    """What the caller must do now; one subclass per kind, fields exactly as in the engine.

    All times are absolute milliseconds on the caller's clock. Instances are
    frozen, hashable, comparable, and support ``isinstance`` and ``match``.
    """

    @property
    def kind(
        self,
    ) -> Literal["start_attempt", "wait", "await_outcome", "succeeded", "gave_up", "reconcile", "restart"]:
        """The snake_case kind, as in JSON's ``type`` (``start_attempt``, ``wait``, ...)."""
    @property
    def is_final(self) -> bool:
        """True for the four endings: Succeeded, GaveUp, Reconcile, Restart."""
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The decision in the JSON schema's shape (absent optional fields omitted)."""
    @staticmethod
    def from_dict(value: Mapping[str, _JsonValue]) -> Decision:
        """A decision from its JSON-shaped dict (for tests and replays). A bad dict is ``InvalidArgumentError``
        naming the field and its rule, in the same words as every language."""
    def ending_message(self, operation: str, idempotency_key: Optional[str]) -> Optional[str]:
        """The words of the typed ending a helper raises for this decision (GaveUp, Reconcile, Restart; None for
        any other): what happened and what to do, the same in every language. ``idempotency_key``: the key the
        helper sent (None: none was sent, and a reconcile's words send the caller to other means)."""
    def describe(self) -> str:
        """What the decision says, in words, for a log line (``wait 250 ms, before attempt 2``): attempts count
        from 1, a wait is a duration, no clock reading appears; the same words in every language."""
    @property
    @deprecated("renamed Wait.retry_after_ms")
    def server_delay_ms(self) -> Optional[int]:
        """Deprecated alias of ``Wait.retry_after_ms`` for one release; None on any other kind."""
    @property
    @deprecated("renamed AwaitOutcome.running")
    def in_flight(self) -> Optional[int]:
        """Deprecated alias of ``AwaitOutcome.running`` for one release; None on any other kind."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::Decision
@final
class StartAttempt(Decision):
    """Start attempt ``attempt`` now; abort it at ``abort_at_ms`` (that is, after ``timeout_ms``), then report its
    ``Outcome`` with ``on_outcome``."""

    __match_args__ = ("attempt", "timeout_ms", "abort_at_ms", "request_id", "remaining_ms", "hedge")
    @property
    def attempt(self) -> int:
        """Attempt number, 1 for the first."""
    @property
    def timeout_ms(self) -> int:
        """The effective timeout: ``min(per-attempt timeout, time left)``. Propagate it downstream (e.g. as
        ``grpc-timeout``)."""
    @property
    def abort_at_ms(self) -> int:
        """When to abort the attempt: now + ``timeout_ms``."""
    @property
    def request_id(self) -> str:
        """A fresh id for this attempt's request."""
    @property
    def remaining_ms(self) -> int:
        """Time left at the start, after the response reserve."""
    @property
    def hedge(self) -> bool:
        """True for a hedge: an extra attempt while another still runs (keep both; the first acceptable result wins)."""

@final
class Wait(Decision):
    """Sleep until ``until_ms`` (cancellably), then call ``poll``."""

    __match_args__ = ("retry", "delay_ms", "until_ms", "retry_after_ms", "remaining_ms")
    @property
    def retry(self) -> int:
        """Retry number this wait precedes (0 = first retry)."""
    @property
    def delay_ms(self) -> int:
        """The delay: the jittered backoff, raised to any server guidance."""
    @property
    def until_ms(self) -> int:
        """When to poll again: now + ``delay_ms``."""
    @property
    def retry_after_ms(self) -> Optional[int]:
        """The retry after: the wait the server asked for, as honored (after the policy's ``cap_ms`` and
        ``max_above_backoff_ms``), if any."""
    @property
    def remaining_ms(self) -> int:
        """Time left now, after the response reserve."""

@final
class AwaitOutcome(Decision):
    """Attempts are running: report each one's outcome, and poll again at ``until_ms`` at the latest (the earliest abort
    time of a running attempt). It is in the past when a running attempt is past its abort time and not yet reported:
    abort it and report it timed out (the sleep until then is 0, not negative). A ``Driver`` does this itself."""

    __match_args__ = ("running", "until_ms")
    @property
    def running(self) -> int:
        """How many attempts are running."""
    @property
    def until_ms(self) -> int:
        """When to poll again at the latest."""

@final
class Succeeded(Decision):
    """The operation succeeded. It has ended."""

    __match_args__ = ("attempts", "winner", "abort_attempts")
    @property
    def attempts(self) -> int:
        """Attempts made, the successful one included."""
    @property
    def winner(self) -> int:
        """The attempt whose result won."""
    @property
    def abort_attempts(self) -> Tuple[int, ...]:
        """Attempts still running that the caller must abort now."""

@final
class GaveUp(Decision):
    """The operation gave up; ``reason`` says why. It has ended."""

    __match_args__ = ("reason", "attempts", "remaining_ms", "refused_delay_ms", "abort_attempts")
    @property
    def reason(self) -> GiveUpReason:
        """Why."""
    @property
    def attempts(self) -> int:
        """Attempts made."""
    @property
    def remaining_ms(self) -> int:
        """Time left now, after the response reserve."""
    @property
    def refused_delay_ms(self) -> Optional[int]:
        """The wait that was considered and refused, if one was computed."""
    @property
    def abort_attempts(self) -> Tuple[int, ...]:
        """Attempts still running that the caller must abort now."""

@final
class Reconcile(Decision):
    """The last attempt of an unsafe write may have been processed: do not repeat it; query the outcome by the
    operation's idempotency key (its operation id). It has ended."""

    __match_args__ = ("attempts", "remaining_ms", "abort_attempts")
    @property
    def attempts(self) -> int:
        """Attempts made."""
    @property
    def remaining_ms(self) -> int:
        """Time left now, after the response reserve, for the reconciliation."""
    @property
    def abort_attempts(self) -> Tuple[int, ...]:
        """Attempts still running that the caller must abort now."""

@final
class Restart(Decision):
    """A conflict: re-read the current state, recompute the change and start a new operation with ``deadline_ms`` as its
    caller deadline (no layer mints time). It has ended."""

    __match_args__ = ("attempts", "deadline_ms", "remaining_ms", "abort_attempts")
    @property
    def attempts(self) -> int:
        """Attempts made."""
    @property
    def deadline_ms(self) -> int:
        """The deadline the redone unit must respect."""
    @property
    def remaining_ms(self) -> int:
        """Time left now, after the response reserve."""
    @property
    def abort_attempts(self) -> Tuple[int, ...]:
        """Attempts still running that the caller must abort now."""

# end of what core/mirrors writes: retryplan::Decision

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the engine's classes (core/mirrors/src/methods/table.rs)
@final
class Operation:
    """The state machine of one logical operation: events in, one Decision out per call. Raises only on misuse (an event
    after the end, an outcome for an attempt that is not running, a value that cannot be represented)."""

    @overload
    def __new__(
        cls,
        policy: Policy,
        now: float,
        *,
        seed: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        deadline: Optional[float] = None,
        deadline_ms: Optional[int] = None,
        dependency: Optional[Dependency] = None,
    ) -> Operation:
        """Starts an operation of ``policy`` at ``now``; without a seed, seed and key are drawn from the OS."""
    @overload
    def __new__(
        cls,
        policy: Policy,
        *,
        now_ms: int,
        seed: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        deadline: Optional[float] = None,
        deadline_ms: Optional[int] = None,
        dependency: Optional[Dependency] = None,
    ) -> Operation: ...
    @overload
    def poll(self, now: float) -> Decision:
        """The current decision: start an attempt, keep waiting, or await the running attempt."""
    @overload
    def poll(self, *, now_ms: int) -> Decision: ...
    @overload
    def on_outcome(self, now: float, attempt: int, outcome: Outcome) -> Decision:
        """Reports how attempt ``attempt`` ended (for an HTTP response, ``Outcome.from_http``) and returns the next
        decision."""
    @overload
    def on_outcome(self, *, attempt: int, outcome: Outcome, now_ms: int) -> Decision: ...
    @overload
    def cancel(self, now: float) -> Decision:
        """The caller abandons the operation: it gives up (``cancelled``), listing the running attempts to abort."""
    @overload
    def cancel(self, *, now_ms: int) -> Decision: ...
    def next_wakeup_ms(self) -> Optional[int]:
        """When to poll next, in ms on the caller's clock, or None once ended."""
    @overload
    def remaining_ms(self, now: float) -> int:
        """Time left at ``now`` before the deadline, after the response reserve, in ms (saturating at 0)."""
    @overload
    def remaining_ms(self, *, now_ms: int) -> int: ...
    @overload
    @deprecated("renamed remaining_ms")
    def remaining_budget_ms(self, now: float) -> int:
        """Deprecated alias of ``remaining_ms`` for one release ("budget" names the retry budget only)."""
    @overload
    @deprecated("renamed remaining_ms")
    def remaining_budget_ms(self, *, now_ms: int) -> int: ...
    def request_id(self, attempt: int) -> str:
        """The request id attempt ``attempt`` (1-based) gets (16 lowercase hex digits)."""
    @property
    def idempotency_key(self) -> str:
        """The stable idempotency key of every attempt (the operation id)."""
    @property
    def deadline_ms(self) -> int:
        """The deadline in ms: min(start + total_timeout_ms, the caller's deadline)."""
    @property
    def started_at_ms(self) -> int:
        """When the operation started, in ms."""
    @property
    def attempts_started(self) -> int:
        """Attempts started so far."""
    @property
    def running_attempts(self) -> Tuple[int, ...]:
        """The attempts running now (hedging can run several), ascending."""
    @property
    def is_ended(self) -> bool:
        """True once an ending was returned."""
    @property
    def policy(self) -> Policy:
        """The policy this operation runs."""

# end of what core/mirrors writes: the engine's classes (core/mirrors/src/methods/table.rs)

@final
class Stats:
    """Counters of operations, attempts, retries, endings and give-ups by reason, for metrics.

    Counted inside the engine as the helpers' drivers decide (pass it as ``stats=``), or fed
    decisions by hand with ``record``. Thread-safe.
    """

    def __new__(cls) -> Stats:
        """All counters at zero."""
    def record(self, decision: Decision) -> None:
        """Counts one decision (Wait and AwaitOutcome count nothing)."""
    def merge(self, other: Stats) -> None:
        """Adds another Stats' counters."""
    # generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::Stats
    @property
    def operations(self) -> int:
        """Logical operations that started a first attempt."""
    @property
    def attempts(self) -> int:
        """Attempts started, first attempts included."""
    @property
    def retries(self) -> int:
        """Attempts after the first that followed a failure."""
    @property
    def hedges(self) -> int:
        """Hedges: attempts started while another was still running."""
    @property
    def succeeded(self) -> int:
        """Operations that succeeded."""
    @property
    def reconciles(self) -> int:
        """Operations that ended in reconciliation."""
    @property
    def restarts(self) -> int:
        """Operations that ended in a restart of the unit."""
    # end of what core/mirrors writes: retryplan::Stats
    @property
    def gave_up(self) -> Dict[GiveUpReason, int]:
        """Give-ups by reason."""
    @property
    def gave_up_total(self) -> int:
        """All give-ups."""
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The JSON form."""

def classify(policy: Policy, outcome: Outcome) -> Classification:
    """Classifies an outcome under a policy."""

def explain(
    policy: Policy, deadline_ms: Optional[int] = None, *, first_attempt_at_ms: Optional[int] = None
) -> Timeline:
    """The worst-case timeline of ``policy`` against ``deadline_ms`` (ms from the start; None: the total timeout alone).

    ``first_attempt_at_ms``: when the first attempt starts after the operation (time already spent; None or 0: at once).
    """

def backoff_ceilings_ms(policy: Policy, retries: int) -> List[int]:
    """The backoff ceilings of the first ``retries`` retries, in ms."""

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the core's free functions (core/mirrors/src/functions.rs)
@overload
def parse_retry_after(value: str, now_unix: float, *, reading: RetryAfterReadingName = "strict") -> int:
    """Reads a ``Retry-After`` value as ``reading`` says: the delay it asks for, in milliseconds.

    ``"strict"`` reads it as ``parse_retry_after`` does: the delta-seconds and HTTP-date forms of RFC 9110, to the
    letter. ``"lenient"`` first reads the value strictly; when that fails it reads it as urllib3 does: digits with any
    whitespace around them are seconds (``^\\s*[0-9]+\\s*$``), anything else goes through the model of Python's
    ``email.utils.parsedate_tz`` + ``mktime_tz`` (two-digit years 1969-2068, zones
    ``GMT``/``UTC``/``EST``/``+0800``/..., a missing zone is UTC).

    ``now_unix`` is float seconds (``time.time()``), or ``now_unix_ms`` int milliseconds.
    """

@overload
def parse_retry_after(value: str, *, now_unix_ms: int, reading: RetryAfterReadingName = "strict") -> int: ...
@overload
def parse_http_date(value: str, now_unix: float, *, reading: RetryAfterReadingName = "strict") -> int:
    """Reads an HTTP-date on its own (RFC 9110 section 5.6.7): the moment it names, in milliseconds since the Unix epoch
    (negative before 1970).

    The dates ``parse_retry_after`` reads, without the delta-seconds form: ``"0"`` is not a date. ``"strict"`` reads the
    three forms to the letter (IMF-fixdate, rfc850-date with the 50-year rule against ``now_unix_ms``, asctime-date;
    years 0000-9999, second 60 the next second, day names checked); ``"lenient"`` also reads what Python's
    ``email.utils.parsedate_tz`` + ``mktime_tz`` read, strict results kept where strict reads the value. Optional
    whitespace around the value is ignored. ``now_unix_ms`` is only consulted for an rfc850-date.

    ``now_unix`` is float seconds (``time.time()``), or ``now_unix_ms`` int milliseconds.
    """

@overload
def parse_http_date(value: str, *, now_unix_ms: int, reading: RetryAfterReadingName = "strict") -> int: ...
def parse_retry_after_ms_header(value: str) -> int:
    """Reads a ``retry-after-ms`` or ``x-ms-retry-after-ms`` value: a non-negative integer number of milliseconds.

    Surrounding ASCII whitespace is ignored and leading zeros are allowed. A value above ``MAX_MS`` saturates to
    ``MAX_MS``.
    """

def parse_grpc_pushback(value: str) -> Pushback:
    """Interprets a ``grpc-retry-pushback-ms`` trailer value.

    A value of the form ``0`` or ``[1-9][0-9]*`` that fits in a signed 32-bit integer yields
    ``Pushback.retry_after_ms``. Surrounding ASCII whitespace is ignored.

    This function cannot fail, on purpose: gRPC proposal A6 gives every other value a meaning. A negative number,
    leading zeros, an out-of-range number, or text that does not parse at all is the server saying "do not retry", so
    all of them map to ``Pushback.do_not_retry``. Callers who only want to know whether a trailer was present should
    check for its presence before calling.
    """

def parse_rate_limit(value: str, policy_value: Optional[str] = None) -> Optional[int]:
    """Reads a ``RateLimit`` field (all its field lines joined with ``", "``) with the optional ``RateLimit-Policy``
    field, and returns the wait it asks for in milliseconds, or ``None`` when it asks for none.

    Each service limit ``"name";r=<remaining>;t=<seconds>`` with ``r=0`` is an exhausted quota that returns after ``t``
    seconds (its effective window; a limit without ``t`` takes the window ``w`` of the same-named ``RateLimit-Policy``
    item, when there is one). The wait is the longest of them: only then are all exhausted quotas back. Limits with
    quota left ask for no wait. The result saturates at ``MAX_MS``.
    """

@overload
def parse_rate_limit_reset(value: str, now_unix: float) -> int:
    """Reads a ``RateLimit-Reset`` or ``X-RateLimit-Reset`` value: the wait in milliseconds from ``now_unix_ms``.

    The value is one or more ASCII digits (optional whitespace around it is ignored). The same number is sent in two
    meanings, told apart by size: a value of at least ``UNIX_TIME_THRESHOLD_SECONDS`` (1 000 000 000, in September 2001)
    is a Unix time in seconds (as GitHub sends), and the wait is until then (``0`` once it has passed); a smaller value
    is delta-seconds (as the draft's ``RateLimit-Reset`` defines it). The result saturates at ``MAX_MS``.

    ``now_unix`` is float seconds (``time.time()``), or ``now_unix_ms`` int milliseconds.
    """

@overload
def parse_rate_limit_reset(value: str, *, now_unix_ms: int) -> int: ...
def encode_grpc_timeout(timeout_ms: int) -> str:
    """Encodes a remaining time of ``timeout_ms`` milliseconds as a ``grpc-timeout`` value.

    The most precise unit whose value fits in eight digits is chosen: milliseconds up to ``99999999m``, then whole
    seconds, whole minutes and whole hours. Coarser units always round down, never up, so the downstream service is
    never granted time the caller does not have. Budgets beyond ``99999999H`` (about 11 400 years) are clamped to that
    value.

    A timeout of ``0`` encodes as ``"0m"``: the deadline has already passed, and a caller should normally fail the call
    locally instead of sending it.
    """

def parse_grpc_timeout(value: str) -> int:
    """Reads a ``grpc-timeout`` value and returns the timeout in milliseconds.

    Surrounding ASCII whitespace (optional whitespace in HTTP terms) is ignored; anything else must match ``1*8DIGIT
    unit`` exactly. A value of zero is accepted and means the deadline has already expired.

    Microsecond and nanosecond values are rounded down to whole milliseconds, so ``999u`` or ``500000n`` read as ``0``:
    a timeout below one millisecond is treated as already spent. Larger units are multiplied out with saturating
    arithmetic.
    """

def encode_grpc_timeout_ns(timeout_ns: int) -> str:
    """Encodes a timeout of ``timeout_ns`` nanoseconds as a ``grpc-timeout`` value, in the finest unit whose value fits
    in eight digits (``n``, then ``u``, ``m``, ``S``, ``M``, ``H``), as grpc-go and grpc-java choose it.

    A coarser unit rounds down, never up. Every int from ``0`` to ``2**64 - 1`` fits: ``2**64 - 1`` nanoseconds is
    ``5124095H``.
    """

def parse_grpc_timeout_ns(value: str) -> int:
    """Reads a ``grpc-timeout`` value and returns the timeout in nanoseconds, exactly for every unit.

    The grammar is that of ``parse_grpc_timeout``. The result saturates at ``MAX_GRPC_TIMEOUT_NS`` (``2**63 - 1``
    nanoseconds), as in grpc-go and grpc-java: ``99999999H`` reads as that value.
    """

@overload
def remaining_ms(deadline: float, now: float, *, reserve_ms: int) -> int:
    """Time left at ``now_ms`` before ``deadline_ms``, minus ``reserve_ms``, saturating at 0.

    This is the number to propagate downstream (e.g. with ``encode_grpc_timeout``): a callee that gets more than this
    would be working for a caller that has already given up.

    ``deadline`` is float seconds (``time.time()``), or ``deadline_ms`` int milliseconds. ``now`` is float seconds
    (``time.time()``), or ``now_ms`` int milliseconds.
    """

@overload
def remaining_ms(*, reserve_ms: int, deadline_ms: int, now_ms: int) -> int: ...
@overload
def admit(deadline: float, now: float, *, reserve_ms: int, minimum_useful_ms: int) -> Admission:
    """Server-side admission: reject when the remaining time (after the reserve) is below the minimum useful time.

    ``deadline`` is float seconds (``time.time()``), or ``deadline_ms`` int milliseconds. ``now`` is float seconds
    (``time.time()``), or ``now_ms`` int milliseconds.
    """

@overload
def admit(*, reserve_ms: int, minimum_useful_ms: int, deadline_ms: int, now_ms: int) -> Admission: ...
def aws_error_code_from_response(errortype_header: Optional[str] = None, body: Optional[str] = None) -> Optional[str]:
    """The error code of an AWS response, read only where the protocols put it (botocore's response parsers, smithy-rs's
    error readers).

    1. the ``x-amzn-errortype`` header (JSON protocols); 2. else, in a JSON body, the top-level object's string member
    ``code``, else ``Code``, else ``__type`` (never a member of a nested object or array); 3. else, in an XML body, the
    ``<Code>`` of the error element: a root ``<Error>`` (S3), the root's ``<Error>`` (``<ErrorResponse><Error>``,
    awsQuery and restXml), or the first ``<Error>`` of the root's ``<Errors>`` (EC2's ``<Response><Errors><Error>``),
    never text elsewhere (comments, CDATA, other elements).

    The first of them that is there decides, as in botocore: a header that is there but empty, or a body's code member
    that is empty or no string, is no code (the body is not read further). The header is reduced by the SDKs' rule
    (everything from the first ``:`` on dropped, then everything up to the last ``#``; surrounding whitespace ignored);
    a body's code the same way but nothing trimmed, so a padded ``<Code> SlowDown </Code>`` is no code, as botocore
    keeps the spaces and no table holds such a code. A body that does not parse has no code; a value that is not a valid
    error code (longer than 64 bytes, not visible ASCII) counts as no code: it cannot name a retryable error. Nothing
    here fails; the reading is one pass over the body.
    """

def request_name(method: str, url: str) -> str:
    """How the HTTP helpers name a request in their endings, logs and spans (their ``url.full`` is the name after its
    method): ``"METHOD url"``, the URL as the platform gave it without its user info or its fragment (a name must not
    carry credentials, and a fragment is never sent), and with the value of each query parameter the OpenTelemetry
    semantic conventions call sensitive replaced by ``REDACTED`` (``url.full``: the signatures and keys of presigned
    URLs).

    The URL is read as text, never parsed nor normalised: the scheme, host (its case, an IPv6 literal's brackets), port,
    path and query stay as given. Of an absolute URL with an authority (``scheme://authority...``), the user info is
    everything of the authority up to its last ``@``; the authority ends at the first ``/``, ``?`` or ``#`` after the
    ``//``, so an ``@`` in the path or query is kept. The fragment is everything from the first ``#``. A URL without an
    authority, or not absolute (no scheme, a path, an empty text), is kept as given, minus its fragment. Never fails: a
    name is information, and any text makes one.

    The query is everything after the first ``?`` (before the fragment), its parameters separated by ``&``. A parameter
    whose key is one of ``X-Amz-Signature``, ``X-Amz-Credential``, ``X-Amz-Security-Token``, ``AWSAccessKeyId``,
    ``Signature``, ``sig`` and ``X-Goog-Signature`` (the conventions' list, matched as written and case-sensitively, as
    they say: ``SIG`` and a percent-escaped ``%73ig`` are other keys) keeps its key and its ``=``, and its value,
    whatever it is (empty included), becomes ``REDACTED``: ``sig=abc`` names ``sig=REDACTED``. A key without ``=`` has
    no value and is kept; every other parameter is kept as given. Naming a name again gives it back unchanged.
    """

def aws_standard_dependency() -> Dependency:
    """The dependency of the classic standard mode: the retry quota (500 units, a retry costs 5 or 10 after a timeout, a
    first-attempt success returns 1)."""

def aws_standard_2026_dependency() -> Dependency:
    """The dependency of the 2026 revision: the retry quota (500 units, a retry costs 14, or 5 after a throttling error;
    a first-attempt success returns 1)."""

# end of what core/mirrors writes: the core's free functions (core/mirrors/src/functions.rs)

def policy_from_urllib3(retry: Mapping[str, Any], total_timeout_ms: Optional[int] = None) -> Policy:
    """The policy a urllib3 ``Retry`` maps to, from its attributes by name (an absent one has urllib3's default),
    ``total_timeout_ms`` the deadline of the whole call (24 hours when None). ``retryplan.compat.from_urllib3`` is the
    API."""

@final
class ServiceConfig:
    """A gRPC service config read as gRFC A6 says: a validated policy per method selector, the retry throttling,
    warnings."""

    def __new__(
        cls, config: Union[str, Mapping[str, _JsonValue]], *, max_attempts_cap: Optional[int] = None
    ) -> ServiceConfig: ...
    @property
    def methods(self) -> List[Dict[str, Any]]:
        """One dict per selector: ``name``, ``service``, ``method`` and its ``policy``."""
    @property
    def warnings(self) -> List[Dict[str, str]]:
        """What was capped or truncated: dicts with ``field`` and ``message``."""
    def throttling_dependency(self) -> Optional[Dependency]:
        """A new Dependency holding the retry throttling, or None; one per server name."""
    def method_for(self, service: str, method: str) -> Optional[Dict[str, Any]]:
        """The most specific selector's dict for ``service``/``method``, or None."""
    def profile_for(self, service: str, method: str) -> Optional[Policy]:
        """The most specific selector's policy for ``service``/``method``, or None."""

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the shared controls (core/mirrors/src/methods/table.rs)
@final
class Dependency:
    """The shared controls of one downstream dependency (retry budget, circuit breaker, retry slots): pass it to every
    operation that calls that dependency, from any thread."""

    def __new__(
        cls,
        config: Optional[Mapping[str, _JsonValue]] = None,
        **fields: Unpack[DependencyFields],
    ) -> Dependency:
        """Validates the configuration: every rule it breaks is reported at once, once each of its values could be read
        (a value of the wrong type or sign stops the reading there, naming it). Takes one dict, or keyword arguments,
        shaped like the JSON configuration."""
    @staticmethod
    def from_json(json: str) -> Dependency:
        """Reads and validates the configuration from JSON text."""
    @staticmethod
    def from_compiled(form: Union[bytes, bytearray, memoryview]) -> Dependency:
        """New controls (full budget, closed breaker) from a compiled form (``compile_dependency``, ``retryplan compile
        --dependency``, or any language's). Raises a ``CompiledFormError`` for a form it refuses."""
    @overload
    def snapshot(self, now: float) -> Dict[str, _JsonValue]:
        """The state of every control at ``now``. A JSON-shaped dict."""
    @overload
    def snapshot(self, *, now_ms: int) -> Dict[str, _JsonValue]: ...
    @property
    def budget(self) -> Optional[RetryBudget]:
        """The retry budget, or None: the one every operation naming this dependency shares."""
    @property
    def breaker(self) -> Optional[CircuitBreaker]:
        """The circuit breaker, or None."""
    @property
    def retry_slots(self) -> Optional[RetrySlots]:
        """The retry slots, or None."""

@final
class RetryCharge:
    """What a granted retry cost; hand it back once, with the retry's success (refunded) or failure (spent). Only
    ``try_retry`` makes one; a second use is refused."""

    @property
    def cost(self) -> int:
        """Units charged (quota model; 0 for the others)."""

@final
class RetryBudget:
    """A retry budget (token bucket, ratio or quota) shared by many operations and threads, on its own or a
    dependency's."""

    def __new__(cls, config: Optional[Mapping[str, _JsonValue]] = None, **fields: Unpack[BudgetFields]) -> RetryBudget:
        """Validates the configuration. Takes one dict, or keyword arguments, shaped like the JSON configuration."""
    @overload
    def on_request(self, now: float) -> None:
        """Counts an original request (a first attempt) made at ``now``."""
    @overload
    def on_request(self, *, now_ms: int) -> None: ...
    @overload
    def try_retry(self, now: float, after_timeout: bool = False) -> Optional[RetryCharge]:
        """Asks to dispatch a retry (or hedge) now: a charge when granted, none when refused."""
    @overload
    def try_retry(self, *, after_timeout: bool = False, now_ms: int) -> Optional[RetryCharge]: ...
    @overload
    def on_success(self, now: float, charge: Optional[RetryCharge] = None) -> None:
        """An attempt succeeded (with the charge of the retry that made it, if any: refunded)."""
    @overload
    def on_success(self, *, charge: Optional[RetryCharge] = None, now_ms: int) -> None: ...
    @overload
    def on_failure(self, now: float, charge: Optional[RetryCharge] = None) -> None:
        """An attempt failed (with the charge of the retry that made it, if any: it stays spent)."""
    @overload
    def on_failure(self, *, charge: Optional[RetryCharge] = None, now_ms: int) -> None: ...
    def spend(self, charge: RetryCharge) -> None:
        """Settles a charge whose retry ended with neither a success nor a retryable failure (cancelled, aborted): its
        cost stays spent."""
    @property
    def charges_outstanding(self) -> int:
        """Charges granted and not yet settled."""
    def acquire(self, amount: int) -> bool:
        """Takes ``amount`` units from a quota, as the AWS SDKs' raw ``acquire`` (for a host that mirrors botocore's own
        bookkeeping; a retry loop uses ``try_retry`` and its charge): true when taken, false when fewer are left
        (nothing is taken)."""
    def release(self, amount: int) -> None:
        """Gives ``amount`` units back to a quota, never above its capacity (the AWS SDKs' raw ``release``)."""
    @overload
    def snapshot(self, now: float) -> Dict[str, _JsonValue]:
        """The budget's state at ``now``. A JSON-shaped dict."""
    @overload
    def snapshot(self, *, now_ms: int) -> Dict[str, _JsonValue]: ...

@final
class BreakerPermit:
    """Admission granted by a circuit breaker's ``try_acquire``; hand it back once, with the result or as a release (a
    second use is refused)."""

    @property
    def probe(self) -> bool:
        """True when this admission is a half-open probe."""

@final
class CircuitBreaker:
    """A circuit breaker (consecutive failures or failure ratio) shared by many operations and threads, on its own or a
    dependency's."""

    def __new__(
        cls,
        config: Optional[Mapping[str, _JsonValue]] = None,
        **fields: Unpack[BreakerFields],
    ) -> CircuitBreaker:
        """Validates the configuration. Takes one dict, or keyword arguments, shaped like the JSON configuration."""
    @overload
    def try_acquire(self, now: float) -> Optional[BreakerPermit]:
        """Asks to send an attempt at ``now``: a permit, or None while the breaker refuses."""
    @overload
    def try_acquire(self, *, now_ms: int) -> Optional[BreakerPermit]: ...
    @overload
    def on_success(self, now: float, permit: BreakerPermit) -> None:
        """The attempt admitted by ``permit`` succeeded."""
    @overload
    def on_success(self, *, permit: BreakerPermit, now_ms: int) -> None: ...
    @overload
    def on_failure(self, now: float, permit: BreakerPermit) -> None:
        """The attempt admitted by ``permit`` failed."""
    @overload
    def on_failure(self, *, permit: BreakerPermit, now_ms: int) -> None: ...
    def release(self, permit: BreakerPermit) -> None:
        """The attempt admitted by ``permit`` ended without a result that counts (never sent, cancelled)."""
    @property
    def permits_outstanding(self) -> int:
        """Permits granted and not yet settled."""
    @overload
    def snapshot(self, now: float) -> Dict[str, _JsonValue]:
        """The breaker's state at ``now``. A JSON-shaped dict."""
    @overload
    def snapshot(self, *, now_ms: int) -> Dict[str, _JsonValue]: ...

@final
class RetrySlot:
    """One slot of a ``RetrySlots``; give it back once, with ``release``, to the slots that granted it (a second use is
    refused). Only ``try_acquire`` makes one."""

@final
class RetrySlots:
    """Retry slots: how many retries and hedges may run at once, on their own or a dependency's."""

    def __new__(cls, capacity: int) -> RetrySlots:
        """``capacity`` slots (0 refuses every retry and hedge)."""
    def try_acquire(self) -> Optional[RetrySlot]:
        """Takes a slot; none when all are taken."""
    def release(self, slot: RetrySlot) -> None:
        """Gives a slot back (once, to the slots that granted it)."""
    @property
    def in_use(self) -> int:
        """Slots in use now."""
    @property
    def capacity(self) -> int:
        """How many slots there are."""

# end of what core/mirrors writes: the shared controls (core/mirrors/src/methods/table.rs)
@overload
def redeliver(policy: Policy, attempts: int, outcome: Outcome, first_seen: float, now: float) -> Redelivery:
    """What happens to a queued message after delivery number ``attempts`` (1 for the first)."""

@overload
def redeliver(policy: Policy, attempts: int, outcome: Outcome, *, first_seen_ms: int, now_ms: int) -> Redelivery: ...

class Action:
    """One thing a host must do now (``Driver.poll_action``); one subclass per kind.

    ``AttemptPlan`` (start this attempt), ``AbortAttempt``, ``Sleep``, ``Ending``.
    Times are absolute ms on the host's clock.
    """

    @property
    def kind(self) -> Literal["start_attempt", "abort_attempt", "sleep", "release", "finish"]:
        """The snake_case kind, as in the vectors' ``type``."""
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The action in the vectors' JSON shape."""

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::Action
@final
class AttemptPlan(Action):
    """Start this attempt now, carrying out the plan; report how it ended with ``Driver.handle_result``."""

    @property
    def attempt(self) -> int:
        """Attempt number, 1 for the first."""
    @property
    def timeout_ms(self) -> int:
        """The effective timeout: ``min(per-attempt timeout, time left)``. Propagate it downstream (e.g. as
        ``grpc-timeout``)."""
    @property
    def abort_at_ms(self) -> int:
        """When the driver counts the attempt as timed out: now + ``timeout_ms``. A host that can interrupt the attempt
        aborts it then; a result that arrives at or after this time is discarded either way."""
    @property
    def request_id(self) -> str:
        """A fresh id for this attempt's request (send it as ``X-Request-Id``)."""
    @property
    def remaining_ms(self) -> int:
        """Time left at the start, after the response reserve."""
    @property
    def hedge(self) -> bool:
        """True for a hedge: an extra attempt while another still runs."""
    @property
    def send_idempotency_key(self) -> bool:
        """True when the request carries the operation's idempotency key (keyed or unsafe operations, see
        ``core/src/outcomes/http.rs``; or a key the caller sent, which travels unchanged: ``Driver.with_incoming``)."""

@final
class AbortAttempt(Action):
    """Abort this running attempt (cancel its I/O, close what it opened). Any result it still delivers is discarded."""

    @property
    def attempt(self) -> int:
        """The attempt to abort."""
    @property
    def reason(self) -> AbortReasonName:
        """Why."""

@final
class Sleep(Action):
    """Sleep until ``until_ms``, waking early when an attempt delivers a result or the caller cancels; then poll again.
    """

    @property
    def until_ms(self) -> int:
        """When to poll again at the latest."""

@final
class Release(Action):
    """Close or drop what the host holds under ``token`` now (a response body, a value): the driver will never name it
    again. Sent for a result the host handed in with a token once a later result replaces it, once the driver counts a
    later attempt as timed out, or at the end when the ending neither returns nor raises it. A result the driver
    discards is not released this way: its ``"discarded"`` says so at once."""

    @property
    def token(self) -> int:
        """The host's token for that result."""

# end of what core/mirrors writes: retryplan::Action

@final
class AttemptResult:
    # generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::AttemptResult
    """An attempt and how it ended."""

    @property
    def attempt(self) -> int:
        """The attempt number."""
    @property
    def outcome(self) -> Outcome:
        """How it ended."""
    # end of what core/mirrors writes: retryplan::AttemptResult

@final
class Ending(Action):
    # generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::Ending
    """The operation has ended: return or raise ``Ending.decision`` as ``Ending.result`` says. Every poll from now on
    returns the same ending."""

    @property
    def decision(self) -> Decision:
        """The final decision: ``Succeeded``, ``GaveUp``, ``Reconcile`` or ``Restart``."""
    @property
    def last_result(self) -> Optional[AttemptResult]:
        """The last attempt result the driver took into account (a host's report, or a timeout it counted itself);
        ``None`` when no attempt ended before the operation did. For ``Succeeded`` it is the winner's."""
    @property
    def result(self) -> Optional[EndingResult]:
        """What the host does with the one result it still holds, when the last result was handed in with a token:
        return it, or raise the ending with it (an error as its cause, a function's value as its last value). ``None``
        when the host holds nothing the ending needs (a response it does not return was released before this action):
        raise the ending alone."""
    # end of what core/mirrors writes: retryplan::Ending
    @property
    def succeeded(self) -> bool:
        """True when the operation succeeded."""
    def message(self, operation: str, idempotency_key: Optional[str]) -> Optional[str]:
        """The typed ending's whole message, the core's: its words, and the hint naming ``outcome_of_error=``
        after an error nothing classified; None for a success. ``idempotency_key``: the key the helper sent
        (None: none was sent, and a reconcile's words send the caller to other means)."""

@final
class EndingResult:
    # generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::EndingResult
    """The one held result an ending concerns (see ``Ending.result``)."""

    @property
    def token(self) -> int:
        """The host's token for it."""
    @property
    def returned(self) -> bool:
        """True: return the value held under ``token`` (the winner's on success; for a host that returns responses, the
        last response unless the ending is a reconcile or the caller's cancel). False: raise the typed ending with what
        is held under ``token``: an error as its cause; a value, which only a host of functions is left holding (a host
        of responses is told to close a response the ending does not return), as the ending's last value (the typed
        ending carries it), dropped after."""
    @property
    def readable_until_ms(self) -> Optional[int]:
        """Until when (the host's monotonic ms) the returned value stays the caller's to read: the abort time of the
        attempt that produced it when the ending returns it (``returned``) and is not ``Succeeded`` (a host that returns
        responses handing back the last failed one, a 503 after the retries ran out: its body is read within its
        attempt's window, then cut). ``None`` otherwise: a success's value is the caller's without limit, and a raised
        ending returns nothing."""
    # end of what core/mirrors writes: retryplan::EndingResult

@final
class Event:
    # generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): retryplan::Event
    """A decision the engine made, for observers (logs, metrics, the helpers' ``on_decision`` hooks): recorded when
    ``record_events=True`` is set, read with ``Driver.poll_event``."""

    @property
    def at_ms(self) -> int:
        """When it was made (the host's clock reading)."""
    @property
    def decision(self) -> Decision:
        """The decision: each attempt start, each wait and hedge-wait that follows a result, and the ending, each once.
        """
    @property
    def after(self) -> Optional[AttemptResult]:
        """The result that led to it, when one did."""
    # end of what core/mirrors writes: retryplan::Event
    def to_dict(self) -> Dict[str, _JsonValue]:
        """The event in the vectors' JSON shape."""

@final
class IncomingContext:
    """The context of the request being served, read by ``IncomingContext.read``: the caller's remaining
    deadline, its attempts, its idempotency key and whether it retries. Opaque to the host: hand it to a
    ``Driver`` (``incoming=``) or to the helpers (through ``retryplan.propagation``'s ambient context)."""

    @overload
    @staticmethod
    def read(policy: Policy, headers: _Headers, now: float) -> IncomingContext:
        """Reads the request's headers (a ``dict`` with keys in any letter case, two keys that differ only in case
        joined by ``", "`` as repeated lines; or a mapping whose ``get`` finds lower-case names) at ``now`` on the
        helpers' monotonic clock, as ``policy.propagation.read_headers`` says; a malformed value raises
        ``InvalidRequestHeaderError`` (a ``CallerError``: the caller sent it) naming the header
        (``InvalidArgumentError`` for ``Idempotency-Key``)."""
    @overload
    @staticmethod
    def read(policy: Policy, headers: _Headers, *, now_ms: int) -> IncomingContext: ...
    @overload
    @staticmethod
    def none(now: float) -> IncomingContext:
        """The context of a request with none of the headers."""
    @overload
    @staticmethod
    def none(*, now_ms: int) -> IncomingContext: ...
    @property
    def received_at_ms(self) -> int:
        """When the request was read (ms on the helpers' clock)."""
    @property
    def caller_remaining_ns(self) -> Optional[int]:
        """The caller's remaining time when it sent the request, in ns, or None."""
    @property
    def deadline_header(self) -> Optional[str]:
        """The header that gave ``caller_remaining_ns``, or None."""
    @property
    def previous_attempts(self) -> int:
        """Attempts the caller made before this one."""
    @property
    def idempotency_key(self) -> Optional[str]:
        """The caller's idempotency key, or None."""
    @property
    def caller_retries(self) -> bool:
        """True when a layer above retries this request."""
    def deadline_ms(self, policy: Policy) -> Optional[int]:
        """The deadline of an operation serving this request under ``policy`` (ms), or None."""
    def to_dict(self) -> Dict[str, Any]:
        """The context as a dict."""

@final
class Served:
    """The request being served (``retryplan.propagation``'s ambient context): its :attr:`incoming` context, and
    its :attr:`answer`, which the endings of the operations made inside it decide (the last give-up decides)."""

    def __new__(cls, incoming: IncomingContext) -> Served: ...
    @property
    def incoming(self) -> IncomingContext:
        """The context the core read from the request."""
    def ended(self, ending: Ending) -> None:
        """An outgoing helper's operation ended with ``ending``: called by the helpers."""
    @property
    def answer(self) -> Dict[str, str]:
        """The answer's headers, for an HTTP caller (none until a helper gives up for overload or a budget)."""

# generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the driver's class (core/mirrors/src/methods/table.rs)
@final
class Driver:
    """The host loop of one operation: results in, one action out per poll. Every helper is an adapter from its runtime
    to this loop: start each ``AttemptPlan``, abort each ``AbortAttempt``, sleep until each ``Sleep`` (waking for
    results), and return or raise at the ``Ending``. Raises only on misuse."""

    @overload
    def __new__(
        cls,
        policy: Policy,
        now: float,
        concurrency: Optional[ConcurrencyName] = None,
        *,
        seed: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        deadline: Optional[float] = None,
        deadline_ms: Optional[int] = None,
        dependency: Optional[Dependency] = None,
        method: Optional[str] = None,
        idempotent: Optional[bool] = None,
        request_idempotency_key: Optional[str] = None,
        stats: Optional[Stats] = None,
        record_events: bool = False,
        returns_responses: bool = False,
        one_shot_body: bool = False,
        incoming: Optional[IncomingContext] = None,
    ) -> Driver:
        """Starts the operation of ``policy`` at ``now``, run as the driver's options say; without a seed, seed and key
        are drawn from the OS. A policy that hedges is refused (``UnsupportedError``, field ``hedging``) when the
        attempts run one at a time (``"sequential"``). ``concurrency``: ``"concurrent"`` (default), ``"sequential"`` or
        ``"sequential_without_hedging"``. ``method``: the HTTP request's method (a method that is not idempotent (RFC
        9110 §9.2.2; RFC 10008's QUERY is) makes a safe or idempotent policy unsafe). ``idempotent``: the caller's word
        for this request. ``request_idempotency_key``: the value of the request's own ``Idempotency-Key`` header, which
        makes it keyed by that exact key (the core's ``http_request`` rule; an empty or malformed one is
        ``InvalidArgumentError`` naming ``Idempotency-Key``). ``stats``: counted as decisions are made.
        ``record_events``: keep each decision for ``poll_event``. ``returns_responses``: the host returns the last
        response (the HTTP helpers; ``Ending.result`` says which). ``one_shot_body``: the request's body can be sent
        once (a retry it would need ends ``body_not_replayable``). ``incoming``: the context of the request this
        operation serves (``IncomingContext.read``): the operation ends by the caller's deadline less
        ``propagation.reserve_ms``, runs under the caller's key, and makes one attempt when the caller retries
        (``propagation.retry_layer`` ``outermost``)."""
    @overload
    def __new__(
        cls,
        policy: Policy,
        *,
        concurrency: Optional[ConcurrencyName] = None,
        now_ms: int,
        seed: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        deadline: Optional[float] = None,
        deadline_ms: Optional[int] = None,
        dependency: Optional[Dependency] = None,
        method: Optional[str] = None,
        idempotent: Optional[bool] = None,
        request_idempotency_key: Optional[str] = None,
        stats: Optional[Stats] = None,
        record_events: bool = False,
        returns_responses: bool = False,
        one_shot_body: bool = False,
        incoming: Optional[IncomingContext] = None,
    ) -> Driver: ...
    @overload
    def poll_action(self, now: float) -> Action:
        """What to do now: an ``AttemptPlan`` to start, an ``AbortAttempt``, a ``Sleep`` or the ``Ending``."""
    @overload
    def poll_action(self, *, now_ms: int) -> Action: ...
    @overload
    def handle_result(
        self,
        now: float,
        attempt: int,
        outcome: Outcome,
        token: Optional[int] = None,
        held: Optional[HeldName] = None,
    ) -> ReceiptName:
        """Hands in how attempt ``attempt`` ended: ``"accepted"``, or ``"discarded"`` (dispose of what it carried). With
        a ``token`` (the host's handle to what it holds, ``held`` ``"value"`` (default) or ``"error"``) the driver says
        later what becomes of it: a ``Release`` action, or the ``Ending.result``. ``token``: an int."""
    @overload
    def handle_result(
        self,
        *,
        attempt: int,
        outcome: Outcome,
        token: Optional[int] = None,
        held: Optional[HeldName] = None,
        now_ms: int,
    ) -> ReceiptName: ...
    @overload
    def handle_response(
        self,
        now: float,
        attempt: int,
        status: int,
        headers: _Headers,
        now_unix: float,
        token: Optional[int] = None,
        redirected: bool = False,
    ) -> ReceiptName:
        """Hands in the HTTP response attempt ``attempt`` received, read by the core: ``status`` exactly as the platform
        gave it (any number; outside 100..=599, or an interim 1xx but 101, the core reads it as
        ``Failure.MALFORMED_RESPONSE``), its ``headers``, Retry-After read as the policy says against the wall clock
        ``now_unix``. Held as a value under ``token`` when one is given. ``redirected``: the client followed at least
        one redirect inside the attempt to get it (its retryable failure is then ambiguous: an earlier hop may have
        processed the request). ``"accepted"`` or ``"discarded"``. ``headers``: a dict (its names in any letter case),
        or a mapping whose ``get`` finds lower-case names. ``token``: an int."""
    @overload
    def handle_response(
        self,
        *,
        attempt: int,
        status: int,
        headers: _Headers,
        token: Optional[int] = None,
        redirected: bool = False,
        now_ms: int,
        now_unix_ms: int,
    ) -> ReceiptName: ...
    def exchange(self, words: Sequence[int]) -> List[int]:
        """One wire exchange (the core's wire encoding, ``core/src/driver/wire/mod.rs``): an input record (poll, result
        or cancel) in, the output record (the receipt and the next action) out. A record that breaks the encoding's
        rules is refused with ``InvalidArgumentError`` naming the word; nothing changes then. The records are ints (a
        sequence in, a list out), their words and kinds by the positions and names of ``wire_tables()``."""
    @overload
    def outgoing_headers(self, attempt: int, now: float, protocol: Optional[ProtocolName] = None) -> Dict[str, str]:
        """The request headers of running attempt ``attempt`` sent at ``now`` to a next hop speaking ``protocol``: the
        attempt's remaining time, its number, the key, whether a layer above retries. The core computes them;
        ``AttemptNotRunningError`` when ``attempt`` is not running. ``protocol``: ``"http"`` (default) or ``"grpc"``. A
        dict by lower-case name."""
    @overload
    def outgoing_headers(
        self,
        attempt: int,
        *,
        protocol: Optional[ProtocolName] = None,
        now_ms: int,
    ) -> Dict[str, str]: ...
    def answer_headers(self, protocol: Optional[ProtocolName] = None) -> Dict[str, str]:
        """The headers of the answer this layer gives its own caller once the operation has ended, for ``protocol``: "do
        not retry" after overload or an exhausted budget, else none (and none before the end). ``protocol``: ``"http"``
        (default) or ``"grpc"``. A dict by lower-case name."""
    @overload
    def handle_cancel(self, now: float) -> None:
        """The caller abandons the operation: it gives up (``cancelled``), running attempts are aborted."""
    @overload
    def handle_cancel(self, *, now_ms: int) -> None: ...
    @overload
    def handle_timer_end(self, now: float) -> None:
        """The timer the host armed for the last ``Sleep`` ran out (it was not woken early), the clock at ``now``; the
        host polls next. A clock that did not move through the wait is refused (``InvalidArgumentError`` naming
        ``clock``): the wait would never end by it."""
    @overload
    def handle_timer_end(self, *, now_ms: int) -> None: ...
    def poll_event(self) -> Optional[Event]:
        """The oldest recorded ``Event`` not yet read (only with ``record_events=True``), or None."""
    @property
    def idempotency_key(self) -> str:
        """The operation's idempotency key (the same on every attempt)."""
    @property
    def deadline_ms(self) -> int:
        """The deadline in ms: min(start + total_timeout_ms, the caller's deadline)."""
    @property
    def attempts_started(self) -> int:
        """Attempts started so far."""
    @property
    def running_attempts(self) -> Tuple[int, ...]:
        """The attempts running now, ascending."""
    @property
    def is_ended(self) -> bool:
        """True once the operation has ended."""

# end of what core/mirrors writes: the driver's class (core/mirrors/src/methods/table.rs)

@final
class Settings:
    """What a helper was given, checked once (built by ``retryplan._run.Config``)."""

    def __new__(
        cls,
        config: Any,
        policy: Policy,
        concurrency: ConcurrencyName,
        plain: bool,
        outcome_of_error: Optional[Callable[[BaseException], Optional[Outcome]]],
        outcome_of_result: Optional[Callable[[Any], Optional[Outcome]]],
        on_decision: bool,
        logger: Any,
        clock: Callable[[], float],
        dispose: Optional[Callable[[Any], Any]],
        name: str,
    ) -> Settings: ...
    @staticmethod
    def fake_clock(clock: Optional[Callable[[], float]]) -> None:
        """Makes ``clock`` the clock of every helper without a clock of its own, until set to None
        (``retryplan.testing.fake_time()``)."""
    @staticmethod
    def forget_entropy() -> None:
        """Forgets the OS randomness drawn ahead (a forked child must not reuse its parent's)."""

@final
class Run:
    """One operation as every helper runs it: its driver, and what each result it handed in carried, held
    under a token until the driver says to drop it, return it or raise with it."""

    name: str
    """The operation's name in logs and messages."""
    key_sent: bool
    """False when the helper sends no idempotency key: a reconcile's message then names none."""
    read: Optional[Callable[[Any], Any]]
    """What a returned value means: the helper's ``outcome_of_result`` (an Outcome); for an HTTP helper
    (``returns_responses``) the response as ``(status, headers, now_unix)``, read by the core."""
    telemetry: Any
    """What ``retryplan.otel`` keeps of this operation (its open attempt spans) while OpenTelemetry listens."""
    def __new__(cls, settings: Settings, options: Optional[Dict[str, Any]] = None) -> Run: ...
    @property
    def handed_in(self) -> Any:
        """What the result being handed in carried (its value or error), while observers see the events it led
        to; None otherwise."""
    @property
    def driver(self) -> Driver:
        """The core's driver of this operation."""
    @property
    def config(self) -> Any:
        """The helper's ``Config`` (its hooks)."""
    @property
    def observe(self) -> bool:
        """True when every decision is observed (``on_decision``, the log at DEBUG, or OpenTelemetry)."""
    @property
    def log(self) -> Any:
        """The logger, when it logs (INFO), else None."""
    def clock(self) -> float:
        """The helper's clock, in float seconds."""
    def timer_ended(self) -> Action:
        """The event loop's timer for the last Sleep ran out: the driver judges the clock (refused, naming ``clock``,
        when it did not move through the wait), then the next action."""
    def dispose(self, value: Any) -> None:
        """Disposes of a value no longer needed, when the helper disposes of values."""
    def poll(self) -> Action:
        """The next action (observed when someone listens)."""
    def settle(self, plan: AttemptPlan, value: Any, error: Optional[BaseException] = None) -> bool:
        """Hands in how ``plan``'s attempt ended: it raised ``error``, else returned ``value``; True when accepted."""
    def cancel(self) -> None:
        """The caller gave up on the operation: it ends ``cancelled``."""
    def call(self, attempt: Callable[..., Any], args: Tuple[Any, ...], sleep: Callable[[float], Any]) -> Ending:
        """Runs the operation one blocking attempt at a time (``attempt(*args)``); returns the Ending."""
    def end(self, ending: Ending) -> Any:
        """The winner's value, or raises the typed ending."""
    def finish(self, ending: Ending) -> Tuple[Any, Optional[float]]:
        """What an HTTP helper's ending returns: the response and the seconds left to read its body in (None:
        a success); or raises the typed ending, as the driver says."""
    @staticmethod
    def sequential(
        settings: Settings,
        attempt: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Optional[Dict[str, Any]],
        sleep: Callable[[float], Any],
    ) -> Any:
        """One operation of ``settings``, each attempt ``attempt(*args, **kwargs)``: its value, or raises the
        typed ending (the hot path of ``@retry`` on a plain function)."""

class Attempt:
    """One attempt the driver started: its number, timeout and ids.

    As a context manager (``with attempt:`` in ``attempts()``, ``async with`` in ``async_attempts()``):
    leaving the block reports success unless :meth:`report` was called; an exception is reported through
    the failure table and the ``outcome_of_error`` hook and suppressed (the loop then retries, or raises
    the typed ending); an invalid request, a ``KeyboardInterrupt`` or a cancellation ends the operation.
    """

    timer: Any
    """The timer of ``async with attempt:``."""
    def __new__(cls, plan: AttemptPlan, run: Run) -> Attempt: ...
    @staticmethod
    def running_in(run: Run) -> Optional[Attempt]:
        """The attempt ``run`` is running now, for ``current_attempt()`` (None between attempts)."""
    @property
    def attempt(self) -> int:
        """The attempt number, 1 for the first (``attempt``, as every binding names it)."""
    @property
    @deprecated("renamed Attempt.attempt")
    def number(self) -> int:
        """Deprecated alias of :attr:`attempt` for one release."""
    @property
    def timeout(self) -> float:
        """The effective timeout in seconds (``plan.timeout_ms / 1000``)."""
    @property
    def abort_at(self) -> float:
        """When the driver counts this attempt as timed out, on the helper's clock (seconds)."""
    def time_left(self) -> float:
        """Seconds left before this attempt times out, now on the helper's clock (never negative)."""
    @deprecated("renamed Attempt.time_left")
    def remaining(self) -> float:
        """Deprecated alias of :meth:`time_left` for one release."""
    @property
    def remaining_ms(self) -> int:
        """The operation's time left at this attempt's start, after the response reserve, in ms (``remaining_ms``, as
        every binding names it): propagate it downstream as a deadline."""
    @property
    def hedge(self) -> bool:
        """True when this attempt is a hedge, started while an earlier one still runs (as in JS and Kotlin)."""
    @property
    def request_id(self) -> str:
        """A fresh id for this attempt's request (send it as ``X-Request-Id``)."""
    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key (the same on every attempt)."""
    @property
    def send_idempotency_key(self) -> bool:
        """True when this attempt's request should carry the idempotency key."""
    def outgoing_headers(self, protocol: Optional[ProtocolName] = None) -> Dict[str, str]:
        """This attempt's request headers for a next hop speaking ``protocol`` (``"http"`` by default, or
        ``"grpc"``), as the core computes them now on the helper's clock."""
    @property
    def plan(self) -> AttemptPlan:
        """The driver's plan of this attempt."""
    @property
    def reported(self) -> bool:
        """True once the attempt reported its outcome."""
    def report(
        self, outcome: Optional[Outcome] = None, *, result: Any = None, exception: Optional[BaseException] = None
    ) -> bool:
        """Reports this attempt's outcome (None, the default: a success), with what it returned (``result``) or
        raised (``exception``); True when the driver accepted it (False: it was late)."""
    def cut(self) -> None:
        """Marks the attempt reported: cut at its abort time, the driver counts it timed out itself."""
    def __enter__(self) -> Attempt: ...
    def __exit__(self, exc_type: Any, exc: Optional[BaseException], traceback: Any) -> bool: ...
    def __aenter__(self) -> Awaitable[Attempt]: ...
    def __aexit__(self, exc_type: Any, exc: Optional[BaseException], traceback: Any) -> Awaitable[bool]: ...

class Attempts:
    """The sync attempt loop: ``for attempt in attempts(policy): with attempt: ...``.

    Each iteration is one attempt the driver started; between attempts the loop sleeps as the driver
    says. The loop ends after a success and raises the typed ending (``GaveUpError``,
    ``ReconcileRequiredError``, ``RestartRequiredError``) when the operation ends otherwise.
    """

    def __new__(cls, run: Run, sleep: Any) -> Attempts: ...
    @property
    def driver(self) -> Driver:
        """The core's driver of this operation (its idempotency key, deadline, attempts started)."""
    @property
    def idempotency_key(self) -> str:
        """The operation's stable idempotency key."""
    @property
    def run(self) -> Run:
        """The operation."""
    def __iter__(self) -> Attempts: ...
    def __next__(self) -> Attempt: ...
    def step(self, resume: bool, timer_ended: bool = False) -> Union[Attempt, float, None]:
        """One move for a host that sleeps itself: the next Attempt, seconds to sleep, or None after a success
        (``timer_ended``: the event loop's timer for the last sleep ran out; the driver judges the clock first)."""

def wire_tables() -> Dict[str, Any]:
    """The core's wire tables: version, constants, word positions by field name, kind names in wire order."""

def telemetry_signals(event: Event) -> List[Tuple[Any, ...]]:
    """What the core's telemetry mapping makes of a recorded event, in order, each tagged by its kind's name
    (``_telemetry_names.SIGNAL_*``): ``("attempt_started", attempt, resend_count, hedge)``, ``("attempt_ended",
    attempt, status_code, error_type)`` (a str, True for the raised error's type, or None), ``("gave_up",
    on_attempt, reason, attempts)``, ``("count", instrument name, attribute value)``."""
