"""Policies from the retry configurations Python users already have.

:func:`from_urllib3` turns a ``urllib3.util.Retry`` (what ``requests`` users
pass to ``HTTPAdapter(max_retries=...)``) into a :class:`~retryplan.Policy`
that retries the same answers, the same number of times, with the same waits.
What a policy cannot express is refused with :class:`RetryNotMappable`, which
names the ``Retry`` attribute; nothing is dropped silently. A value of the
wrong type raises :class:`TypeError` naming the attribute or argument.

The mapping (see the core's ``compatibility::http_clients`` page):

* ``total`` retries -> ``max_attempts = total + 1`` (``None``: up to 100
  attempts, the kind counters decide; ``False``, ``0`` or a negative count:
  one attempt, as urllib3 is exhausted at the first increment);
* ``connect`` / ``read`` / ``status`` / ``other`` -> ``retry_limits``
  (``False`` or a negative count: 0);
* ``allowed_methods`` -> ``retry_methods`` (``None``, ``False`` or empty:
  every method, as urllib3's ``if self.allowed_methods and ...`` reads them);
* ``status_forcelist`` -> ``retry_on.http_statuses`` (an integral float such
  as ``503.0`` is the status 503, as ``503 in [503.0]`` is true; a 2xx is
  polled again); with ``respect_retry_after_header`` the
  ``RETRY_AFTER_STATUS_CODES`` (413, 429, 503) are added with a
  ``requires_guidance`` rule unless forced;
* ``backoff_factor`` / ``backoff_max`` / ``backoff_jitter`` -> urllib3's
  ``min(backoff_max, factor * 2**(n-1) + random() * backoff_jitter)`` with 0
  before the first retry: exponential backoff with ``immediate_first_retry``,
  jitter ``additive`` (``backoff_max`` at or below the factor: every wait is
  ``backoff_max``; ``backoff_max = inf``: no cap);
* Retry-After: read leniently (``email.utils``, as urllib3 does), replacing
  the backoff, capped at ``retry_after_max`` (clamped; ``inf``: no cap);
* ambiguous and conflict status sets are empty: urllib3 has neither notion.

Refused (:class:`RetryNotMappable`): a method outside GET HEAD POST PUT DELETE
CONNECT OPTIONS TRACE PATCH QUERY or not in upper case (urllib3 compares
``method.upper()`` with the entries as written, so ``"get"`` never matches), a
forced 1xx or 3xx status or a number that is no HTTP status, more than 99
retries of a kind, a positive ``redirect`` count (redirects are followed by
the HTTP client, not retried), NaN, a number of seconds that is negative, not
whole milliseconds or beyond 2^53 - 1 ms where it matters, and a ``Retry``
subclass that overrides the methods deciding retries.
"""

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Dict, List, Optional, Union

from ._errors import RetryplanError
from ._native import Policy

if TYPE_CHECKING:  # pragma: no cover
    from urllib3.util.retry import Retry

__all__ = ["DEFAULT_TOTAL_TIMEOUT_MS", "RetryNotMappable", "from_urllib3"]

#: The total timeout of a converted policy when ``from_urllib3`` is given
#: none: 24 hours. urllib3 has no overall deadline (urllib3#1338); pass the
#: deadline of your call as ``total_timeout_ms``.
DEFAULT_TOTAL_TIMEOUT_MS = 86_400_000


def __getattr__(name: str) -> object:
    """``DEFAULT_TOTAL_BUDGET_MS``, the old name of :data:`DEFAULT_TOTAL_TIMEOUT_MS`, for one release (it warns)."""
    if name == "DEFAULT_TOTAL_BUDGET_MS":
        import warnings

        message = "retryplan.compat.DEFAULT_TOTAL_BUDGET_MS is renamed DEFAULT_TOTAL_TIMEOUT_MS; the old name goes in the next release"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return DEFAULT_TOTAL_TIMEOUT_MS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]
_RETRY_AFTER_STATUS_CODES = (413, 429, 503)
_MAX_RETRIES = 99
_MAX_MS = 2**53 - 1
_DECIDING_METHODS = (
    "is_retry",
    "increment",
    "get_backoff_time",
    "parse_retry_after",
    "get_retry_after",
    "sleep",
    "sleep_for_retry",
    "_is_method_retryable",
    "_is_connection_error",
    "_is_read_error",
)

_Json = Union[None, bool, int, float, str, List["_Json"], Dict[str, "_Json"]]


class RetryNotMappable(RetryplanError):
    """A ``urllib3.util.Retry`` setting that no policy expresses.

    ``attribute`` names the ``Retry`` attribute; ``reason`` says why.
    """

    code = "retry_not_mappable"

    def __init__(self, attribute: str, reason: str) -> None:
        super().__init__(f"urllib3 Retry.{attribute} cannot be mapped: {reason}")
        self.attribute = attribute
        self.reason = reason


def _urllib3_retry_class(retry: object) -> type:
    """urllib3's own ``Retry`` class among the argument's bases, or TypeError naming ``retry``."""
    for klass in type(retry).__mro__:
        if klass.__name__ == "Retry" and klass.__module__.startswith("urllib3."):
            return klass
    raise TypeError(f"from_urllib3: retry must be a urllib3.util.Retry, got {type(retry).__name__}")


def _count(attribute: str, value: object) -> Optional[int]:
    """A retry counter: None (no limit), or a count; False and negative counts are 0."""
    if value is None:
        return None
    if value is False:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Retry.{attribute} must be an int, None or False, got {value!r}")
    if value < 0:
        # urllib3's is_exhausted: a count below 0 after the first increment.
        return 0
    if value > _MAX_RETRIES:
        raise RetryNotMappable(attribute, f"{value} retries is more than a policy allows ({_MAX_RETRIES})")
    return value


def _seconds(attribute: str, value: object) -> float:
    """A number of seconds (int or float, not NaN, not negative); TypeError for another type."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Retry.{attribute} must be a number of seconds, got {value!r}")
    seconds = float(value)
    if math.isnan(seconds):
        raise RetryNotMappable(attribute, "NaN is no number of seconds")
    if seconds < 0:
        raise RetryNotMappable(attribute, f"expected a non-negative number of seconds, got {value!r}")
    return seconds


def _ms(attribute: str, seconds: float) -> int:
    """Finite seconds as whole milliseconds, refusing what rounding would change or 2^53 - 1 ms exceeds."""
    if math.isinf(seconds) or seconds * 1000 > _MAX_MS:
        raise RetryNotMappable(attribute, f"{seconds!r} s is more than 2^53 - 1 ms")
    ms = round(seconds * 1000)
    if abs(ms - seconds * 1000) > 1e-6:
        raise RetryNotMappable(attribute, f"{seconds!r} s is not a whole number of milliseconds")
    return int(ms)


def _cap_ms(attribute: str, value: object) -> int:
    """A cap in whole ms; infinity (or beyond 2^53 - 1 ms) is no cap."""
    seconds = _seconds(attribute, value)
    if math.isinf(seconds) or seconds * 1000 > _MAX_MS:
        return _MAX_MS
    return _ms(attribute, seconds)


def _methods(value: object) -> List[str]:
    """``allowed_methods`` as ``retry_methods``: a falsy value allows every method."""
    if not value:
        return list(_METHODS)
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"Retry.allowed_methods must be a collection of method names or None, got {value!r}")
    listed = list(value)
    for method in listed:
        if not isinstance(method, str):
            raise TypeError(f"Retry.allowed_methods must hold method names (str), got {method!r}")
    unknown = sorted(method for method in listed if method not in _METHODS)
    if unknown:
        raise RetryNotMappable(
            "allowed_methods",
            f"{', '.join(map(repr, unknown))} is not one of {', '.join(_METHODS)} as written"
            " (urllib3 compares the upper-cased method with each entry)",
        )
    return [method for method in _METHODS if method in listed]


def _statuses(value: object) -> List[int]:
    """``status_forcelist`` as statuses: ints, or floats equal to one (``503 in [503.0]`` holds)."""
    if value is None or value is False:
        return []
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"Retry.status_forcelist must be a collection of HTTP statuses or None, got {value!r}")
    statuses = set()
    for status in value:
        if isinstance(status, bool) or not isinstance(status, (int, float)):
            raise TypeError(f"Retry.status_forcelist must hold HTTP statuses (int), got {status!r}")
        if isinstance(status, float) and not (math.isfinite(status) and status.is_integer()):
            raise RetryNotMappable("status_forcelist", f"{status!r} equals no HTTP status")
        code = int(status)
        if not (200 <= code <= 299 or 400 <= code <= 599):
            raise RetryNotMappable(
                "status_forcelist",
                f"{code} is not a 2xx (polled again) or an error status (400-599): 1xx are interim, 3xx are"
                " followed by the HTTP client",
            )
        statuses.add(code)
    return sorted(statuses)


def _backoff(retry: object) -> Dict[str, _Json]:
    """urllib3's ``min(backoff_max, factor * 2**(n-1) + random() * backoff_jitter)``, 0 before the first retry."""
    factor = _seconds("backoff_factor", getattr(retry, "backoff_factor", 0))
    jitter = _seconds("backoff_jitter", getattr(retry, "backoff_jitter", 0.0))
    cap_ms = _cap_ms("backoff_max", getattr(retry, "backoff_max", 120))
    jitter_ms = _ms("backoff_jitter", jitter)
    additive: Dict[str, _Json] = {"kind": "additive", "max_ms": jitter_ms} if jitter_ms else {"kind": "none"}
    if factor * 1000 >= cap_ms:
        if cap_ms == _MAX_MS:
            raise RetryNotMappable("backoff_factor", f"{factor!r} s waits more than 2^53 - 1 ms, with no backoff_max")
        # Every wait after the first reaches the cap: min(cap, f * 2^k + jitter) = cap.
        backoff: Dict[str, _Json] = {"kind": "constant", "base_ms": cap_ms, "multiplier": 1.0, "cap_ms": cap_ms}
        return {"backoff": {**backoff, "immediate_first_retry": True}, "jitter": {"kind": "none"}}
    factor_ms = _ms("backoff_factor", factor)
    if factor_ms == 0:
        backoff = {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": cap_ms}
    else:
        backoff = {"kind": "exponential", "base_ms": factor_ms, "multiplier": 2.0, "cap_ms": cap_ms}
    return {"backoff": {**backoff, "immediate_first_retry": True}, "jitter": additive}


def from_urllib3(
    retry: "Retry", *, total_timeout_ms: Optional[int] = None, total_budget_ms: Optional[int] = None
) -> Policy:
    """The :class:`~retryplan.Policy` that retries as ``retry`` (a ``urllib3.util.Retry``) does.

    ``total_timeout_ms`` is the deadline of the whole call, retries and waits
    included, in ms. urllib3 has none, so it defaults to
    :data:`DEFAULT_TOTAL_TIMEOUT_MS` (24 hours): pass your own. Each attempt may
    run for what remains of it (``attempt_timeout: fraction_of_remaining 1``;
    the HTTP client's connect and read timeouts bound it, as in urllib3), with
    no response reserve and no minimum useful attempt (both 0 ms: urllib3 has
    neither). Everything else comes from ``retry``, as the module docstring
    lists.

    Raises :class:`TypeError` naming ``retry``, ``total_timeout_ms`` or the
    ``Retry`` attribute whose type is wrong, :class:`RetryNotMappable` naming
    the attribute a policy cannot express, and the policy's own
    ``ConfigViolationsError`` for a ``total_timeout_ms`` out of its range.
    ``total_budget_ms``, its old name, is read for one release (it warns
    ``DeprecationWarning``); giving both is a :class:`TypeError`.
    """
    base = _urllib3_retry_class(retry)
    if total_budget_ms is not None:
        import warnings

        if total_timeout_ms is not None:
            raise TypeError(
                "from_urllib3: both total_timeout_ms and its old name total_budget_ms are given; keep total_timeout_ms only"
            )
        message = "from_urllib3: total_budget_ms is renamed total_timeout_ms; the old name goes in the next release"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        total_timeout_ms = total_budget_ms
    if total_timeout_ms is None:
        total_timeout_ms = DEFAULT_TOTAL_TIMEOUT_MS
    if isinstance(total_timeout_ms, bool) or not isinstance(total_timeout_ms, int):
        raise TypeError(f"from_urllib3: total_timeout_ms must be an int (ms), got {total_timeout_ms!r}")
    for name in _DECIDING_METHODS:
        mine = getattr(type(retry), name, None)
        theirs = getattr(base, name, None)
        if theirs is not None and mine is not theirs:
            raise RetryNotMappable(name, "a Retry subclass overrides how retries are decided")

    total = getattr(retry, "total", None)
    if total is False:
        max_attempts = 1
    else:
        retries = _count("total", total)
        max_attempts = 100 if retries is None else retries + 1

    redirect = getattr(retry, "redirect", None)
    if redirect not in (None, False) and _count("redirect", redirect):
        raise RetryNotMappable("redirect", "redirects are followed by the HTTP client, not retried by a policy")

    limits = {kind: _count(kind, getattr(retry, kind, None)) for kind in ("connect", "read", "status", "other")}
    retry_limits: Dict[str, _Json] = {kind: limit for kind, limit in limits.items() if limit is not None}

    retry_methods: List[_Json] = list(_methods(getattr(retry, "allowed_methods", None)))
    forced = _statuses(getattr(retry, "status_forcelist", None))
    respect = bool(getattr(retry, "respect_retry_after_header", True))
    statuses = set(forced)
    rules: List[_Json] = []
    # Retry.is_retry needs a truthy total for the Retry-After statuses.
    if respect and isinstance(total, int) and not isinstance(total, bool) and total > 0:
        for status in _RETRY_AFTER_STATUS_CODES:
            if status not in statuses:
                statuses.add(status)
                rules.append({"status": status, "requires_guidance": True})

    retry_after_cap_ms = _cap_ms("retry_after_max", getattr(retry, "retry_after_max", 21600))
    config: Dict[str, _Json] = {
        "max_attempts": max_attempts,
        "total_timeout_ms": total_timeout_ms,
        "attempt_timeout": {"fraction_of_remaining": 1.0},
        "response_reserve_ms": 0,
        "minimum_useful_attempt_ms": 0,
        **_backoff(retry),
        "retry_on": {
            "http_statuses": list(sorted(statuses)),
            "transport": ["not_sent", "connection_lost", "timed_out"],
        },
        "ambiguous": {"http_statuses": []},
        "conflict": {"http_statuses": []},
        "server_guidance": {
            "honor": respect,
            "cap_ms": retry_after_cap_ms,
            "above_cap": "clamp",
            "retry_after_reading": "lenient",
            "mode": "replace",
            "statuses": rules,
        },
        "retry_methods": retry_methods,
        "idempotency": "idempotent",
    }
    if retry_limits:
        config["retry_limits"] = retry_limits
    return Policy.from_dict(config)
