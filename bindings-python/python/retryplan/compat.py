"""Policies from the retry configurations Python users already have.

:func:`from_urllib3` turns a ``urllib3.util.Retry`` (what ``requests`` users
pass to ``HTTPAdapter(max_retries=...)``) into a :class:`~retryplan.Policy`
that retries the same answers, the same number of times, with the same waits.
What a policy cannot express is refused with :class:`RetryNotMappable`, which
names the ``Retry`` attribute; nothing is dropped silently.

The mapping (see the core's ``compatibility::http_clients`` page):

* ``total`` retries -> ``max_attempts = total + 1`` (``None``: up to 100
  attempts, the kind counters decide; ``False``/``0``: one attempt);
* ``connect`` / ``read`` / ``status`` / ``other`` -> ``retry_limits``
  (``False`` for ``connect``/``read``: 0, urllib3 re-raises);
* ``allowed_methods`` -> ``retry_methods`` (``None``: every method);
* ``status_forcelist`` -> ``retry_on.http_statuses``; with
  ``respect_retry_after_header`` the ``RETRY_AFTER_STATUS_CODES`` (413, 429,
  503) are added with a ``requires_guidance`` rule unless forced;
* ``backoff_factor`` / ``backoff_max`` -> exponential backoff from
  ``backoff_factor`` with ``immediate_first_retry`` (urllib3 sleeps 0 before
  the first retry, then ``factor * 2**r``), capped at ``backoff_max``;
* Retry-After: read leniently (``email.utils``, as urllib3 does), replacing
  the backoff, capped at ``retry_after_max`` (clamped);
* ambiguous and conflict status sets are empty: urllib3 has neither notion.

Refused: a ``backoff_jitter`` other than 0 (urllib3 adds it on top of the
backoff; no jitter kind of the engine adds), a method outside GET HEAD POST PUT
DELETE CONNECT OPTIONS TRACE PATCH QUERY, a forced status outside 400-599,
more than 99 retries, a positive ``redirect`` count (redirects are followed by
the HTTP client, not retried), and a ``Retry`` subclass that overrides the
methods deciding retries.
"""

from typing import Any, Dict, List, Optional

from ._errors import RetryplanError
from ._native import Policy

__all__ = ["RetryNotMappable", "from_urllib3"]

_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]
_RETRY_AFTER_STATUS_CODES = (413, 429, 503)
_MAX_RETRIES = 99
_DAY_MS = 86_400_000
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


class RetryNotMappable(RetryplanError):
    """A ``urllib3.util.Retry`` setting that no policy expresses.

    ``attribute`` names the ``Retry`` attribute; ``reason`` says why.
    """

    code = "retry_not_mappable"

    def __init__(self, attribute: str, reason: str) -> None:
        super().__init__(f"urllib3 Retry.{attribute} cannot be mapped: {reason}")
        self.attribute = attribute
        self.reason = reason


def _count(attribute: str, value: Any) -> Optional[int]:
    """A retry counter: None (no limit), or a count; False counts as 0."""
    if value is None:
        return None
    if value is False:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise RetryNotMappable(attribute, f"expected an int, None or False, got {value!r}")
    if value < 0:
        return 0
    if value > _MAX_RETRIES:
        raise RetryNotMappable(attribute, f"{value} retries is more than a policy allows ({_MAX_RETRIES})")
    return int(value)


def _ms(attribute: str, seconds: Any) -> int:
    """Seconds (int or float) as whole milliseconds, refusing what rounding would change."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise RetryNotMappable(attribute, f"expected a non-negative number of seconds, got {seconds!r}")
    ms = round(seconds * 1000)
    if abs(ms - seconds * 1000) > 1e-6:
        raise RetryNotMappable(attribute, f"{seconds!r} s is not a whole number of milliseconds")
    return int(ms)


def from_urllib3(retry: Any) -> Policy:
    """The :class:`~retryplan.Policy` that retries as ``retry`` (a ``urllib3.util.Retry``) does.

    Raises :class:`RetryNotMappable` naming the attribute a policy cannot express.
    """
    for name in _DECIDING_METHODS:
        mine = getattr(type(retry), name, None)
        base = next((getattr(k, name) for k in type(retry).__mro__ if k.__name__ == "Retry" and name in vars(k)), None)
        if base is not None and mine is not base:
            raise RetryNotMappable(name, "a Retry subclass overrides how retries are decided")

    total = retry.total
    if total is False:
        max_attempts = 1
    else:
        retries = _count("total", total)
        max_attempts = 100 if retries is None else retries + 1

    redirect = retry.redirect
    if redirect not in (None, False) and _count("redirect", redirect):
        raise RetryNotMappable("redirect", "redirects are followed by the HTTP client, not retried by a policy")

    limits = {
        kind: _count(kind, getattr(retry, kind, None)) for kind in ("connect", "read", "status", "other")
    }
    retry_limits = {kind: limit for kind, limit in limits.items() if limit is not None}

    methods = retry.allowed_methods
    if methods is None or (not methods and hasattr(methods, "__len__")):
        retry_methods: List[str] = list(_METHODS)
    else:
        unknown = sorted(str(method) for method in methods if str(method).upper() not in _METHODS)
        if unknown:
            raise RetryNotMappable("allowed_methods", f"{', '.join(unknown)} is not one of {', '.join(_METHODS)}")
        retry_methods = [method for method in _METHODS if method in {str(m).upper() for m in methods}]

    forced = sorted({status for status in (retry.status_forcelist or ()) if isinstance(status, int)})
    for status in forced:
        if not 400 <= status <= 599:
            raise RetryNotMappable("status_forcelist", f"{status} is not an error status (400-599)")
    respect = bool(retry.respect_retry_after_header)
    statuses = set(forced)
    rules: List[Dict[str, Any]] = []
    # Retry.is_retry needs a truthy total for the Retry-After statuses.
    if respect and isinstance(total, int) and not isinstance(total, bool) and total > 0:
        for status in _RETRY_AFTER_STATUS_CODES:
            if status not in statuses:
                statuses.add(status)
                rules.append({"status": status, "requires_guidance": True})

    jitter = getattr(retry, "backoff_jitter", 0.0) or 0.0
    if jitter != 0:
        raise RetryNotMappable("backoff_jitter", "urllib3 adds it on top of the backoff; no jitter kind adds")
    factor_ms = _ms("backoff_factor", retry.backoff_factor)
    cap_ms = _ms("backoff_max", retry.backoff_max)
    if factor_ms == 0:
        backoff = {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}
        jitter_config: Dict[str, Any] = {"kind": "none"}
    else:
        backoff = {
            "kind": "exponential",
            "base_ms": factor_ms,
            "multiplier": 2.0,
            "cap_ms": cap_ms,
            "immediate_first_retry": True,
        }
        # A cap below the factor caps every wait, as urllib3's min(): only
        # Polly's arithmetic (the same doubling, without jitter) allows it.
        jitter_config = {"kind": "polly", "use_jitter": False} if cap_ms < factor_ms else {"kind": "none"}

    retry_after_max = getattr(retry, "retry_after_max", 21600)
    # urllib3 has no overall deadline (urllib3#1338): the policy gets a day, and
    # each attempt may run as long as the HTTP client's own timeouts allow.
    config: Dict[str, Any] = {
        "max_attempts": max_attempts,
        "total_budget_ms": _DAY_MS,
        "attempt_timeout": {"fixed_ms": _DAY_MS},
        "backoff": backoff,
        "jitter": jitter_config,
        "retry_on": {"http_statuses": sorted(statuses), "transport": ["not_sent", "connection_lost", "timed_out"]},
        "ambiguous": {"http_statuses": []},
        "conflict": {"http_statuses": []},
        "server_guidance": {
            "honor": respect,
            "cap_ms": _ms("retry_after_max", retry_after_max),
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
