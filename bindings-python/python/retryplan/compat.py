"""Policies from the retry configurations Python users already have.

:func:`from_urllib3` turns a ``urllib3.util.Retry`` (what ``requests`` users
pass to ``HTTPAdapter(max_retries=...)``) into a :class:`~retryplan.Policy`
that retries the same answers, the same number of times, with the same waits.
What a policy cannot express is refused with :class:`RetryNotMappable`, which
names the ``Retry`` attribute; nothing is dropped silently. A value of the
wrong type raises :class:`TypeError` naming the attribute or argument.

The core maps the ``Retry`` (``retryplan::dialects::urllib3``); this module
reads its attributes and hands them over. The mapping, rule by rule, and every
deliberate deviation are on the core's ``compatibility::http_clients`` page
("urllib3 ``Retry``"), pinned by ``tests/conformance/urllib3.json``. In short:
``total`` retries are ``max_attempts = total + 1`` (``None``: 128 attempts,
the kind counters decide), ``connect`` / ``read`` / ``status`` / ``other``
are ``retry_limits`` (a negative count of any counter, ``redirect`` too, is
one attempt: urllib3's ``is_exhausted`` reads them all), ``allowed_methods``
is ``retry_methods``,
``status_forcelist`` is ``retry_on.http_statuses`` (the statuses of
``RETRY_AFTER_STATUS_CODES``, 413, 429 and 503 unless a subclass replaces
them, added when they carry Retry-After; an instance's own set, which urllib3
applies to the first response only, is refused), ``backoff_factor`` / ``backoff_max`` /
``backoff_jitter`` are urllib3's ``min(backoff_max, factor * 2**(n-1) +
random() * backoff_jitter)`` with 0 before the first retry, and Retry-After
is read leniently, replacing the backoff, clamped at ``retry_after_max``;
Retry-After is the only guidance header read (``server_guidance.headers:
retry_after``), as urllib3 reads no ``retry-after-ms`` or rate-limit header.
Refused: more than 127 retries of a kind, a positive ``redirect`` count, a
method or status no policy names, NaN, negative seconds, seconds that are not
whole milliseconds, and a ``Retry`` subclass that overrides the methods
deciding retries.
"""

from collections.abc import Collection
from typing import TYPE_CHECKING, Optional, Union, cast

from . import _native
from ._error_classes import ConfigViolationsError, InvalidConfigError
from ._errors import RetryplanError
from ._native import Policy

if TYPE_CHECKING:  # pragma: no cover
    from urllib3.util.retry import Retry

__all__ = ["DEFAULT_TOTAL_TIMEOUT_MS", "RetryNotMappable", "from_urllib3"]

#: The total timeout of a converted policy when ``from_urllib3`` is given
#: none: 24 hours (the core's). urllib3 has no overall deadline (urllib3#1338);
#: pass the deadline of your call as ``total_timeout_ms``.
DEFAULT_TOTAL_TIMEOUT_MS: int = _native.URLLIB3_DEFAULT_TOTAL_TIMEOUT_MS


if TYPE_CHECKING:  # pragma: no cover
    DEFAULT_TOTAL_BUDGET_MS: int  # the old name (it warns at run time)
else:  # hidden from type checkers: a misspelt name is theirs to report, not an `object`

    def __getattr__(name: str) -> object:
        """``DEFAULT_TOTAL_BUDGET_MS``, the old name of :data:`DEFAULT_TOTAL_TIMEOUT_MS`, for one release (it warns)."""
        if name == "DEFAULT_TOTAL_BUDGET_MS":
            import warnings

            message = "retryplan.compat.DEFAULT_TOTAL_BUDGET_MS is renamed DEFAULT_TOTAL_TIMEOUT_MS; the old name goes in the next release"
            warnings.warn(message, DeprecationWarning, stacklevel=2)
            return DEFAULT_TOTAL_TIMEOUT_MS
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The methods of ``Retry`` that decide retries: a subclass overriding one is code, not configuration.
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


def _same_codes(retry: object, after: object) -> bool:
    """Whether ``retry`` and ``after`` (the ``Retry`` urllib3 makes for the next response) read the same
    ``RETRY_AFTER_STATUS_CODES``, compared as sets, as urllib3 reads them (``status in ...``)."""
    mine, theirs = (getattr(each, "RETRY_AFTER_STATUS_CODES", None) for each in (retry, after))
    if isinstance(mine, Collection) and isinstance(theirs, Collection):
        return set(mine) == set(theirs)
    return mine is theirs


class RetryNotMappable(RetryplanError):
    """A ``urllib3.util.Retry`` setting that no policy expresses.

    ``attribute`` names the ``Retry`` attribute; ``reason`` says why.
    """

    code = "retry_not_mappable"

    def __init__(self, attribute: str, reason: str) -> None:
        super().__init__(f"urllib3 Retry.{attribute} cannot be mapped: {reason}")
        self.attribute = attribute
        self.reason = reason


def _urllib3_retry_class(retry: object) -> Optional[type]:
    """urllib3's own ``Retry`` class among the argument's bases, or None."""
    for klass in type(retry).__mro__:
        if klass.__name__ == "Retry" and klass.__module__.startswith("urllib3."):
            return klass
    return None


def _check_from_int_argument(name: str, value: object) -> None:
    """A TypeError naming ``name`` unless ``value`` is what ``Retry.from_int`` reads: a Retry, an int, a bool or None."""
    if value is not None and not isinstance(value, int) and _urllib3_retry_class(value) is None:  # bool is an int
        raise TypeError(
            f"from_urllib3: {name} must be a urllib3.util.Retry, an int, a bool or None "
            f"(what Retry.from_int reads), got {type(value).__name__}"
        )


def _from_int(retry: "Union[Retry, bool, int, None]", default: "Union[Retry, bool, int, None]") -> object:
    """``Retry.from_int(retry, default=default)`` of the installed urllib3 for what it converts (None, a bool, an int),
    as ``PoolManager(retries=...)``, ``urlopen(retries=...)`` (a pool's own ``retries`` is its ``default``) and
    ``HTTPAdapter(max_retries=...)`` convert it."""
    try:
        from urllib3.util.retry import Retry
    except ImportError as error:
        raise ImportError(f"from_urllib3({retry!r}) is urllib3's Retry.from_int({retry!r}): install urllib3") from error
    return Retry.from_int(retry, default=default)


def _attribute(value: object) -> object:
    """A ``Retry`` attribute as the core reads it: a collection (urllib3 keeps sets and frozensets) as a list."""
    if isinstance(value, Collection) and not isinstance(value, (str, bytes, list, tuple, dict)):
        return list(value)
    return value


def from_urllib3(
    retry: "Union[Retry, bool, int, None]",
    *,
    default: "Union[Retry, bool, int, None]" = None,
    total_timeout_ms: Optional[int] = None,
    total_budget_ms: Optional[int] = None,
) -> Policy:
    """The :class:`~retryplan.Policy` that retries as ``retry`` (a ``urllib3.util.Retry``) does.

    ``retry`` is what urllib3 and requests take for their retries
    (``PoolManager(retries=...)``, ``urlopen(retries=...)``,
    ``HTTPAdapter(max_retries=...)``): a ``Retry``, or what
    ``Retry.from_int`` converts, converted by the installed urllib3's
    ``Retry.from_int`` exactly as they do: an int or a bool ``n`` is
    ``Retry(n, redirect=None)`` (redirects counted by ``total`` only;
    ``False`` also makes ``redirect=0``), and ``None`` is ``Retry.DEFAULT``
    (``Retry(3)``), or ``default`` when given: ``from_int``'s ``default``,
    which ``HTTPConnectionPool.urlopen(retries=None)`` passes as the pool's own
    ``retries`` (``from_urllib3(None, default=pool.retries)`` is the policy of
    such a call; ``default`` changes nothing when ``retry`` is a ``Retry``, as
    in urllib3). ``from_int``'s ``redirect`` argument is not taken: it only
    chooses between ``redirect=None`` and ``redirect=0`` on the converted
    ``Retry``, and a policy does not follow redirects (both give the same
    policy). requests' own default is not ``from_int``'s:
    ``HTTPAdapter()`` (``max_retries=0``) makes ``Retry(0, read=False)``, so
    a caller mirroring requests' default passes that ``Retry``.

    ``total_timeout_ms`` is the deadline of the whole call, retries and waits
    included, in ms. urllib3 has none, so it defaults to
    :data:`DEFAULT_TOTAL_TIMEOUT_MS` (24 hours): pass your own. Each attempt may
    run for what remains of it (``attempt_timeout: fraction_of_remaining 1``;
    the HTTP client's connect and read timeouts bound it, as in urllib3), with
    no response reserve and no minimum useful attempt (both 0 ms: urllib3 has
    neither). Everything else comes from ``retry``, as the module docstring
    lists.

    Raises :class:`TypeError` naming ``retry`` or ``default`` (anything
    ``Retry.from_int`` does not read: a str, a float, ...), ``total_timeout_ms`` or the
    ``Retry`` attribute whose type is wrong, :class:`RetryNotMappable` naming
    the attribute a policy cannot express (the core's error is its
    ``__cause__``), ``InvalidArgumentError`` for a negative
    ``total_timeout_ms`` and the policy's own ``ConfigViolationsError`` for
    one out of its range.
    ``total_budget_ms``, its old name, is read for one release (it warns
    ``DeprecationWarning``); giving both is a :class:`TypeError`.
    """
    _check_from_int_argument("retry", retry)
    _check_from_int_argument("default", default)
    base = _urllib3_retry_class(retry)
    if base is None:
        retry = _from_int(retry, default)  # type: ignore[assignment]
        base = _urllib3_retry_class(retry)
        assert base is not None
    if total_budget_ms is not None:
        import warnings

        if total_timeout_ms is not None:
            raise TypeError(
                "from_urllib3: both total_timeout_ms and its old name total_budget_ms are given; keep total_timeout_ms only"
            )
        message = "from_urllib3: total_budget_ms is renamed total_timeout_ms; the old name goes in the next release"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        total_timeout_ms = total_budget_ms
    if total_timeout_ms is not None and (isinstance(total_timeout_ms, bool) or not isinstance(total_timeout_ms, int)):
        raise TypeError(f"from_urllib3: total_timeout_ms must be an int (ms), got {total_timeout_ms!r}")
    for name in _DECIDING_METHODS:
        mine = getattr(type(retry), name, None)
        theirs = getattr(base, name, None)
        if theirs is not None and mine is not theirs:
            raise RetryNotMappable(name, "a Retry subclass overrides how retries are decided")
    # `retry` is a urllib3 Retry here (what from_int made of anything else); new() is the Retry of the next response.
    if "RETRY_AFTER_STATUS_CODES" in vars(retry) and not _same_codes(retry, cast("Retry", retry).new()):
        raise RetryNotMappable(
            "RETRY_AFTER_STATUS_CODES",
            "the Retry's own set applies to its first response only (Retry.new(), which makes the Retry of the next "
            "response, does not carry it): set it on a Retry subclass",
        )
    attributes = {name: _attribute(getattr(retry, name)) for name in _native.URLLIB3_ATTRIBUTES if hasattr(retry, name)}
    if "respect_retry_after_header" in attributes:
        # urllib3 reads it by its truth value (`if self.respect_retry_after_header and response`).
        attributes["respect_retry_after_header"] = bool(attributes["respect_retry_after_header"])
    try:
        return _native.policy_from_urllib3(attributes, total_timeout_ms)
    except ConfigViolationsError as error:
        if error.config != "urllib3_retry":
            raise  # the policy's own rules (a total_timeout_ms out of range)
        reason = "; ".join(violation.message for violation in error.violations)
        raise RetryNotMappable(error.violations[0].field, reason) from error
    except InvalidConfigError as error:
        if error.config != "urllib3_retry":
            raise
        raise TypeError(f"Retry.{error.field}: {error.detail}") from error
