"""The one table from Python's errors to the engine's failure vocabulary.

Every helper maps an exception raised by an attempt through :func:`outcome_of`:
the builtins (``socket.gaierror``, ``ConnectionRefusedError``, ``ssl`` errors,
``TimeoutError``, ...), ``http.client``, httpx, requests and urllib3. What
each failure *means* (was the request sent? may it have been processed?) is
decided in the core (``Outcome.failure``); this table only names what
happened. Classes are read from ``sys.modules``: nothing is imported here, and
a library that was never imported cannot have raised anything.

An error that means the request itself is invalid (a bad URL, a bad header
value, a body that cannot be encoded) is :data:`INVALID_REQUEST`: the helper
ends the operation (``cancelled``) and rethrows it unchanged. So is misuse of
retryplan itself (a :class:`~retryplan.CallerError` or
:class:`~retryplan.ConfigurationError`, such as ``attempt.report("success")``
inside ``with attempt:``): it is no attempt's outcome. A nested operation's
typed ending (an ``OperationFailedError``) is an attempt's error like any
other. Anything the table does not know is ``None``: the helper's
``outcome_of_error`` hook decides, by default the core's verdict for an
unknown error, ``ambiguous`` (``UNKNOWN_ERROR_VERDICT``).
"""

from __future__ import annotations

import sys

from ._error_classes import MISUSE_CLASSES
from ._native import FAILURES, MAX_CAUSE_DEPTH, UNKNOWN_ERROR_VERDICT, Outcome

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, Optional, Tuple, Union

    Resolver = Callable[[BaseException], Any]  # reads what a wrapping error carries (its cause, a response)

INVALID_REQUEST = object()
"""The request itself is invalid, or retryplan was misused: rethrow the error unchanged (never retried, never
``connection_lost``)."""

_OUTCOMES = {name: Outcome.failure(name) for name in FAILURES}


def _cause(default: Optional[str]) -> Resolver:
    """The failure of the first known error wrapped (cause, context, reason; MAX_CAUSE_DEPTH deep), or ``default``."""

    def resolve(exc: BaseException) -> Any:
        inner: Optional[BaseException] = exc
        for _ in range(MAX_CAUSE_DEPTH):
            reason = getattr(inner, "reason", None)  # urllib3's MaxRetryError
            inner = reason if isinstance(reason, BaseException) else inner.__cause__ or inner.__context__  # type: ignore[union-attr]
            if inner is None:
                break
            found = outcome_of(inner)
            if found is not None:
                return found
        return None if default is None else _OUTCOMES[default]

    return resolve


def _status(exc: Any) -> Optional[Outcome]:
    """An HTTP status error (httpx's ``raise_for_status``, requests' ``HTTPError``): its status and guidance."""
    import time

    response = getattr(exc, "response", None)
    if response is None:
        return None
    status = getattr(response, "status_code", None)
    return Outcome.from_http_response(status, response.headers, now_unix=time.time()) if status else None


def _ssl(exc: BaseException) -> Outcome:
    """An SSL error raised inside the handshake failed the connection; any other broke it."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "do_handshake":
            return _OUTCOMES["tls_handshake_failed"]
        tb = tb.tb_next
    return _OUTCOMES["connection_lost"]


def _os_error(exc: BaseException) -> Optional[Outcome]:
    """No route to the network or host; any other OS error is not the table's to judge."""
    import errno

    unreachable = (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN)
    return _OUTCOMES["unreachable"] if getattr(exc, "errno", None) in unreachable else None


# (module, class, meaning), most specific first: the first class an error is an instance of wins.
_TABLE: Tuple[Tuple[str, str, Union[str, object, Resolver]], ...] = (
    ("retryplan._errors", "AttemptFailed", lambda exc: exc.outcome),  # type: ignore[attr-defined]
    ("retryplan._errors", "AttemptTimedOut", "attempt_timed_out"),
    # misuse of retryplan (a class of MISUSE_CLASSES, the core's Blame::is_misuse) is no attempt's outcome
    *(("retryplan._errors", misuse.__name__, INVALID_REQUEST) for misuse in MISUSE_CLASSES),
    # httpx
    ("httpx", "HTTPStatusError", _status),
    ("httpx", "InvalidURL", INVALID_REQUEST),
    ("httpx", "UnsupportedProtocol", INVALID_REQUEST),
    ("httpx", "LocalProtocolError", INVALID_REQUEST),
    ("httpx", "ConnectTimeout", "connect_timeout"),
    ("httpx", "PoolTimeout", "pool_timeout"),
    ("httpx", "ReadTimeout", "read_timeout"),
    ("httpx", "WriteTimeout", "write_failed"),
    ("httpx", "ConnectError", _cause("unreachable")),
    ("httpx", "WriteError", "write_failed"),
    ("httpx", "ReadError", "connection_lost"),
    ("httpx", "RemoteProtocolError", "connection_lost"),
    ("httpx", "CloseError", "connection_lost"),
    ("httpx", "DecodingError", "body_broken"),
    # requests (its errors wrap urllib3's, which wrap the builtins)
    ("requests.exceptions", "InvalidURL", INVALID_REQUEST),
    ("requests.exceptions", "MissingSchema", INVALID_REQUEST),
    ("requests.exceptions", "InvalidSchema", INVALID_REQUEST),
    ("requests.exceptions", "InvalidHeader", INVALID_REQUEST),
    ("requests.exceptions", "URLRequired", INVALID_REQUEST),
    ("requests.exceptions", "InvalidJSONError", INVALID_REQUEST),
    ("requests.exceptions", "HTTPError", _status),
    ("requests.exceptions", "ConnectTimeout", "connect_timeout"),
    ("requests.exceptions", "ReadTimeout", "read_timeout"),
    ("requests.exceptions", "SSLError", "tls_handshake_failed"),
    ("requests.exceptions", "ChunkedEncodingError", "body_broken"),
    ("requests.exceptions", "ContentDecodingError", "body_broken"),
    ("requests.exceptions", "ConnectionError", _cause("connection_lost")),
    ("requests.exceptions", "Timeout", "read_timeout"),
    # urllib3
    ("urllib3.exceptions", "LocationValueError", INVALID_REQUEST),
    ("urllib3.exceptions", "MaxRetryError", _cause(None)),
    ("urllib3.exceptions", "NameResolutionError", "dns_lookup_failed"),
    ("urllib3.exceptions", "NewConnectionError", _cause("unreachable")),
    ("urllib3.exceptions", "ConnectTimeoutError", "connect_timeout"),
    ("urllib3.exceptions", "ReadTimeoutError", "read_timeout"),
    ("urllib3.exceptions", "SSLError", "tls_handshake_failed"),
    ("urllib3.exceptions", "IncompleteRead", "body_broken"),
    ("urllib3.exceptions", "DecodeError", "body_broken"),
    ("urllib3.exceptions", "ProtocolError", _cause("connection_lost")),
    # http.client (urllib, and urllib3 underneath)
    ("http.client", "RemoteDisconnected", "connection_lost"),
    ("http.client", "IncompleteRead", "body_broken"),
    ("http.client", "HTTPException", "malformed_response"),
    # the builtins
    ("socket", "gaierror", "dns_lookup_failed"),
    ("ssl", "SSLCertVerificationError", "tls_handshake_failed"),
    ("ssl", "SSLError", _ssl),
    ("builtins", "ConnectionRefusedError", "connection_refused"),
    ("builtins", "BrokenPipeError", "write_failed"),
    ("builtins", "ConnectionError", "connection_lost"),
    ("builtins", "TimeoutError", "read_timeout"),
    ("socket", "timeout", "read_timeout"),  # before 3.10, not yet TimeoutError
    ("asyncio", "TimeoutError", "read_timeout"),  # before 3.11, not yet TimeoutError
    ("builtins", "OSError", _os_error),
)

# What the table says of each exception class seen so far: an Outcome, INVALID_REQUEST, a resolver or None.
# Sound to keep: a class can only derive from classes of modules already imported when it is first seen.
_BY_TYPE: Dict[type, Any] = {}


def _learn(cls: type) -> Any:
    meaning: Any = None
    for module_name, name, what in _TABLE:
        module = sys.modules.get(module_name)
        known = getattr(module, name, None) if module is not None else None
        if isinstance(known, type) and issubclass(cls, known):
            meaning = _OUTCOMES[what] if isinstance(what, str) else what
            break
    if len(_BY_TYPE) < 4096:  # classes made on the fly must not grow it without bound
        _BY_TYPE[cls] = meaning
    return meaning


def outcome_of(exc: BaseException) -> Any:
    """What the table makes of ``exc``: an Outcome, :data:`INVALID_REQUEST`, or None (not recognised)."""
    cls = type(exc)
    meaning = _BY_TYPE[cls] if cls in _BY_TYPE else _learn(cls)
    if meaning is None or meaning is INVALID_REQUEST or type(meaning) is Outcome:
        return meaning
    return meaning(exc)


def default_outcome_of_exception(exc: BaseException) -> Outcome:
    """What the failure table makes of ``exc``, and the core's verdict for an error it does not know
    (``ambiguous``: retried while the operation may repeat an attempt that may have had its effect).

    (An invalid request, which the helpers raise again unchanged, is ``not_retryable`` here.)
    """
    meaning = outcome_of(exc)
    if meaning is INVALID_REQUEST:
        return Outcome.application("not_retryable")
    return meaning if type(meaning) is Outcome else Outcome.application(UNKNOWN_ERROR_VERDICT)


def response_outcome(headers: Any, status: int, now_unix: Optional[float] = None) -> Outcome:
    """A response's outcome from its headers (whose ``get`` is case-insensitive: httpx, requests, urllib3) and status."""
    import time

    return Outcome.from_http_response(status, headers, now_unix=time.time() if now_unix is None else now_unix)


def http_outcome(
    status: int,
    retry_after: Optional[str] = None,
    retry_after_ms: Optional[str] = None,
    *,
    now_unix: Optional[float] = None,
) -> Outcome:
    """The outcome of an HTTP response from its status and raw ``Retry-After`` / ``retry-after-ms`` values."""
    import time

    return Outcome.from_http(
        status, retry_after, retry_after_ms, now_unix=time.time() if now_unix is None else now_unix
    )
