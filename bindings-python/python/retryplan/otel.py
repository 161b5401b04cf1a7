"""OpenTelemetry for every helper: each attempt a span, each give-up a span event, and the counters.

What is reported is the core's (``retryplan::telemetry``): the names, units,
descriptions and attribute keys come from its tables (``_telemetry_names``,
generated), and which signals each decision produces from its mapping
(``telemetry_signals``). This module only calls ``opentelemetry-api``
(``pip install 'retryplan[otel]'``); the page that states the mapping and its
deviations from the semantic conventions is ``core/src/compatibility/telemetry.md``.

* The httpx transports and the requests adapter make one ``CLIENT`` span per
  attempt sent (named by its method; ``http.request.method``,
  ``server.address``, ``server.port``, ``url.full`` as the core names the
  request: no credentials or fragment, the values of the conventions'
  sensitive query keys ``REDACTED``,
  ``http.response.status_code``), ``http.request.resend_count`` on every
  resent attempt, ``error.type`` and the ``Error`` status on a failed one, and
  inject the attempt's span context into its headers through the global
  propagator. ``@retry``, ``run``, ``attempts()`` and ``async_attempts()``
  make one ``INTERNAL`` span per attempt, named after the operation
  (``error.type``: the fully qualified type of what the attempt raised, or the
  core's transport class, ``connection_lost``, ``timed_out`` or ``not_sent``,
  when the failure table or the hook reads it as a transport failure).
  Attempt spans are children of the span current where the operation started.
  A function helper's attempt span is current while the attempt runs (a span
  the attempt starts is its child; under ``@retry`` on an ``async def``, in
  the attempt's own task); an HTTP attempt span is not, so an HTTP client's own
  instrumentation does not nest a second client span under it.
* Each give-up is a ``retryplan.give_up`` span event with its reason, on the
  span of the attempt whose result led to it, else on the caller's span.
* Counters: ``retryplan.attempts`` (by kind), ``retryplan.retries``,
  ``retryplan.give_ups`` (by reason), ``retryplan.budget.refusals``,
  ``retryplan.breaker.refusals``, ``retryplan.operations`` (by ending).

Nothing to call: once the application has set a global tracer or meter provider
(``opentelemetry.trace.set_tracer_provider``, ``metrics.set_meter_provider``)
every helper reports through it. ``instrument(tracer_provider=...,
meter_provider=...)`` reports through providers of your own instead (a provider
left out is the global one), ``uninstrument()`` stops reporting. Without
``opentelemetry`` imported by the application, retryplan imports nothing of it
and changes nothing.
"""

from __future__ import annotations

import asyncio
import threading

from opentelemetry import context, metrics, propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from . import _telemetry_names as names
from ._native import telemetry_signals

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, MutableMapping, Optional, Tuple

    from ._native import Event, Run

__all__ = ["instrument", "uninstrument"]

_ATTEMPT = names.ATTRIBUTES["attempt"]
_RESEND_COUNT = names.ATTRIBUTES["http_request_resend_count"]
_STATUS_CODE = names.ATTRIBUTES["http_response_status_code"]
_ERROR_TYPE = names.ATTRIBUTES["error_type"]
_REASON = names.ATTRIBUTES["give_up_reason"]
_ATTEMPTS = names.ATTRIBUTES["operation_attempts"]
_DEFAULT_PORTS = {"http": 80, "https": 443}


class _Mode:
    """How retryplan reports: through the global providers once set (the default), through given ones, or not."""

    __slots__ = ("reporting", "providers", "recorder")

    def __init__(self) -> None:
        self.reporting = True
        self.providers: Optional[Tuple[Any, Any]] = None  # instrument()'s (tracer provider, meter provider)
        self.recorder: Optional[_Recorder] = None


_MODE = _Mode()


def instrument(*, tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Reports every helper's attempts through these providers (one left out: the global one)."""
    _MODE.reporting, _MODE.providers, _MODE.recorder = True, (tracer_provider, meter_provider), None


def uninstrument() -> None:
    """Stops reporting, even through global providers (``instrument()`` starts again)."""
    _MODE.reporting, _MODE.providers, _MODE.recorder = False, None, None


def _global_providers_set() -> bool:
    """True once the application set a global tracer or meter provider (else every span and count is dropped)."""
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return True
    try:
        from opentelemetry.metrics._internal import _ProxyMeterProvider
    except ImportError:  # pragma: no cover - another API version: assume a provider may listen
        return True
    return not isinstance(metrics.get_meter_provider(), _ProxyMeterProvider)


class _Recorder:
    """The tracer and the counters of one pair of providers, made once."""

    def __init__(self, tracer_provider: Any, meter_provider: Any) -> None:
        from . import __version__

        self.tracer = trace.get_tracer(names.SCOPE_NAME, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(names.SCOPE_NAME, __version__, meter_provider=meter_provider)
        self.counters: Dict[str, Tuple[Any, Optional[str]]] = {
            name: (meter.create_counter(name, unit=unit, description=description), attribute)
            for _, name, unit, description, attribute in names.METRICS
        }


def operation(name: Any) -> Optional[_Operation]:
    """A new operation's reporter, or None when nothing listens (called by ``retryplan._run``)."""
    if not _MODE.reporting or (_MODE.providers is None and not _global_providers_set()):
        return None
    if _MODE.recorder is None:
        _MODE.recorder = _Recorder(*(_MODE.providers or (None, None)))
    return _Operation(_MODE.recorder, name)


def _error_type(error: Any) -> str:
    """The fully qualified type of what an attempt raised (the conventions' ``error.type``), else ``_OTHER``."""
    if not isinstance(error, BaseException):
        return names.OTHER_ERROR_TYPE
    kind = type(error)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


class _Operation:
    """One operation's attempt spans, from the core's signals of each event its driver recorded."""

    __slots__ = ("recorder", "name", "parent", "http", "spans", "current")

    def __init__(self, recorder: _Recorder, name: Any) -> None:
        self.recorder, self.name, self.parent = recorder, name, context.get_current()
        self.http: Optional[Dict[str, Any]] = None  # an HTTP helper's request: the attributes its spans start with
        self.spans: Dict[int, Any] = {}
        self.current: Optional[_Current] = None  # the attempt whose span this operation made current

    def request(self, method: str, url: str) -> None:
        """Makes the attempt spans HTTP client spans of this request: ``url`` is the core's ``request_name`` after
        the method (the helpers' ``describe``), so ``url.full`` carries no credentials and the values of the
        conventions' sensitive query keys (``X-Amz-Signature``, ``sig``, ...) are ``REDACTED``."""
        from urllib.parse import urlsplit

        known = method in names.KNOWN_HTTP_METHODS
        parts = urlsplit(url)
        attributes: Dict[str, Any] = {"http.request.method": method if known else names.OTHER_METHOD, "url.full": url}
        if not known:
            attributes["http.request.method_original"] = method
        if parts.hostname:
            attributes["server.address"] = parts.hostname
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        if port is not None:
            attributes["server.port"] = port
        self.http = {"name": method if known else names.OTHER_METHOD_SPAN_NAME, "attributes": attributes}

    def record(self, run: Run, event: Event) -> None:
        """Reports what the core makes of ``event``."""
        for signal in telemetry_signals(event):
            kind = signal[0]  # the core's SignalKind, by its generated name
            if kind == names.SIGNAL_COUNT:
                counter, attribute = self.recorder.counters[signal[1]]
                value = signal[2]
                counter.add(1, {attribute: value} if attribute is not None and value is not None else None)
            elif kind == names.SIGNAL_ATTEMPT_STARTED:
                self._start(signal[1], signal[2])
            elif kind == names.SIGNAL_ATTEMPT_ENDED:
                self._end(run, signal[1], signal[2], signal[3])
            elif kind == names.SIGNAL_GAVE_UP:
                self._give_up(signal[1], signal[2], signal[3])

    def _start(self, attempt: int, resend_count: Optional[int]) -> None:
        if self.http is not None:
            name, kind, attributes = self.http["name"], SpanKind.CLIENT, dict(self.http["attributes"])
            if resend_count is not None:
                attributes[_RESEND_COUNT] = resend_count
        else:
            name, kind, attributes = str(self.name), SpanKind.INTERNAL, {}
        attributes[_ATTEMPT] = attempt
        span = self.spans[attempt] = self.recorder.tracer.start_span(name, self.parent, kind, attributes)
        if self.http is None:
            self._leave()  # a hedge starts: the attempt it hedges stays current in its own task only
            self.current = _Current(attempt, trace.set_span_in_context(span, self.parent))

    def _end(self, run: Run, attempt: int, status_code: Optional[int], error_type: Any) -> None:
        if self.current is not None and self.current.attempt == attempt:
            self._leave()
        span = self.spans.pop(attempt, None)
        if span is None:
            return
        if status_code is not None and self.http is not None:
            span.set_attribute(_STATUS_CODE, status_code)
        if error_type is True:
            error_type = _error_type(run.handed_in)
        if error_type is not None:
            span.set_attribute(_ERROR_TYPE, error_type)
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def __del__(self) -> None:
        """An operation left before its attempt reported (a ``break`` before ``with attempt:``) leaves it current no
        longer once collected (when collected where it was made current)."""
        if self.current is not None:
            self._leave()

    def _leave(self) -> None:
        """The attempt made current is no longer (where it was made current: else it is left to its context)."""
        current, self.current = self.current, None
        if current is not None:
            current.leave()

    def _give_up(self, on_attempt: Optional[int], reason: str, attempts: int) -> None:
        span = self.spans.get(on_attempt) if on_attempt is not None else None
        if span is None:
            span = trace.get_current_span(self.parent)
        span.add_event(names.GIVE_UP_EVENT, {_REASON: reason, _ATTEMPTS: attempts})

    def inject(self, attempt: int, headers: MutableMapping[str, str]) -> None:
        """Writes the attempt's span context into its request's headers (the global propagator's fields)."""
        span = self.spans.get(attempt)
        if span is not None:
            propagate.inject(headers, context=trace.set_span_in_context(span, self.parent))


def _where() -> Tuple[int, Any]:
    """This thread and its running asyncio task (None outside one): where a context attached here can be detached."""
    try:
        return threading.get_ident(), asyncio.current_task()
    except RuntimeError:  # no running event loop in this thread
        return threading.get_ident(), None


class _Current:
    """An attempt's span made current where the loop started it: the attempt runs there (``attempts()``,
    ``async_attempts()``, ``@retry`` on a function), or in a task made there next (``@retry`` on an ``async def``)."""

    __slots__ = ("attempt", "ctx", "token", "where")

    def __init__(self, attempt: int, ctx: Any) -> None:
        self.attempt, self.ctx, self.token, self.where = attempt, ctx, context.attach(ctx), _where()

    def leave(self) -> None:
        """Detaches it, when still current here (an attempt that made another context current and left it is
        left alone: detaching from another thread, task or context would fail, or undo what is not ours)."""
        if context.get_current() is self.ctx and _where() == self.where:
            context.detach(self.token)
