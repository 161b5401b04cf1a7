"""One deadline across hops, the server side: ASGI and WSGI middleware that make the caller's context the
ambient context of the request (``retryplan::propagation`` in the core decides every value).

For each HTTP request the middleware:

* reads the request's headers into an :class:`~retryplan.IncomingContext` (``IncomingContext.read``, as
  the middleware's ``policy.propagation.read_headers`` says): the caller's remaining deadline
  (``grpc-timeout``, ``x-envoy-expected-rq-timeout-ms``, ``retryplan-timeout-ms``), its attempt count,
  its ``Idempotency-Key`` and whether it retries;
* answers a request whose propagation header the core refuses with **400** and a text body naming the
  header and its rule (the app is not called): the caller sent it, whatever the error's ``blame``;
* makes it the request's ambient context (a :class:`contextvars.ContextVar`; :func:`current` returns it)
  while the app runs: every outgoing HTTP helper (``retryplan.httpx``, ``retryplan.requests``) called
  inside then starts its driver with it (its attempts end by the caller's deadline less
  ``propagation.reserve_ms``, carry the caller's key and the core's outgoing headers, and make one attempt
  when the caller retries under ``retry_layer: outermost``);
* adds the core's answer headers to the response (``retryplan-retryable: ?0``, "do not retry", when the
  last give-up of an outgoing helper inside this request was for overload or an exhausted budget: the
  request's ``Answer``, which the helpers hand each ending). They go out with the response's start: a
  helper that gives up after the response started (a streamed body) cannot change them.

``AsgiMiddleware(app, policy=...)`` wraps any ASGI 3 app (Starlette, FastAPI:
``app.add_middleware(AsgiMiddleware, policy=...)``); ``WsgiMiddleware(app, policy=...)`` any WSGI app.
The context is read on ``clock``, which must be the helpers' clock (default: theirs, ``time.monotonic``, or the
fake one inside ``retryplan.testing.fake_time()``).
"""

from __future__ import annotations

import time
from contextvars import ContextVar, copy_context

from ._errors import RetryplanError
from ._native import IncomingContext, Served
from ._run import FAKES, SERVED

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import (
        Any,
        Awaitable,
        Callable,
        Dict,
        Iterable,
        Iterator,
        List,
        MutableMapping,
        Optional,
        Protocol,
        Tuple,
        Type,
    )

    from ._native import Policy

    class StartResponse(Protocol):
        """WSGI's ``start_response`` (PEP 3333) as a server hands it to an app: the status, the headers, the error
        being answered. What it returns (the legacy ``write``) is only passed back, so any return is accepted: a
        test's ``lambda status, headers, exc_info=None: ...`` too."""

        def __call__(
            self,
            status: str,
            headers: List[Tuple[str, str]],
            exc_info: Optional[Tuple[Type[BaseException], BaseException, TracebackType]] = None,
            /,
        ) -> object: ...

    Message = MutableMapping[str, Any]
    Asgi = Callable[[Any, Any, Any], Awaitable[None]]
    """An ASGI 3 app: ``app(scope, receive, send)`` (typed loosely: every framework types its own)."""

__all__ = ["AsgiMiddleware", "Served", "WsgiMiddleware", "current", "done", "serving"]


_SERVED: ContextVar[Optional[Served]] = SERVED  # every helper's Run reads it (retryplan._run)


def current() -> Optional[Served]:
    """The request being served in this context (under a middleware, or :func:`serving`), or None."""
    return _SERVED.get()


def serving(incoming: IncomingContext) -> Tuple[Served, Any]:
    """Makes ``incoming`` the ambient context of this context (for a server the middleware do not cover):
    the :class:`Served` request and the token to ``reset`` with (``_SERVED.reset(token)``, see
    :func:`done`)."""
    served = Served(incoming)
    return served, _SERVED.set(served)


def done(token: Any) -> None:
    """Ends what :func:`serving` began."""
    _SERVED.reset(token)


def _helpers_clock() -> float:
    """The helpers' default clock, read when the middleware reads a request: ``time.monotonic``, or inside
    ``retryplan.testing.fake_time()`` the fake one, as every helper reads it."""
    return FAKES[-1].monotonic() if FAKES else time.monotonic()


def _bad_request(error: RetryplanError) -> Tuple[bytes, List[Tuple[str, str]]]:
    body = f"{error}\n".encode()
    return body, [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(body)))]


class AsgiMiddleware:
    """ASGI 3 middleware: the caller's context as the request's ambient context (see the module doc)."""

    def __init__(self, app: Asgi, *, policy: Policy, clock: Callable[[], float] = _helpers_clock) -> None:
        self.app, self.policy, self.clock = app, policy, clock

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: Dict[str, str] = {}
        for raw_name, raw_value in scope.get("headers", ()):
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value  # field lines joined
        try:
            incoming = IncomingContext.read(self.policy, headers, self.clock())
        except RetryplanError as error:  # the caller's malformed header: 400, whatever the blame
            body, fields = _bad_request(error)
            start = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in fields]
            await send({"type": "http.response.start", "status": 400, "headers": start})
            await send({"type": "http.response.body", "body": body})
            return
        served, token = serving(incoming)

        async def answering(message: Message) -> None:
            if message["type"] == "http.response.start" and (answer := served.answer):
                added = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in answer.items()]
                message = {**message, "headers": [*message.get("headers", ()), *added]}
            await send(message)

        try:
            await self.app(scope, receive, answering)
        finally:
            done(token)


class WsgiMiddleware:
    """WSGI middleware: the caller's context as the request's ambient context (see the module doc). The app and
    every step of the body it returns run in one context holding it."""

    def __init__(
        self, app: Callable[..., Iterable[bytes]], *, policy: Policy, clock: Callable[[], float] = _helpers_clock
    ) -> None:
        self.app, self.policy, self.clock = app, policy, clock

    def __call__(self, environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        headers = {
            key[5:].lower().replace("_", "-"): value for key, value in environ.items() if key.startswith("HTTP_")
        }
        try:
            incoming = IncomingContext.read(self.policy, headers, self.clock())
        except RetryplanError as error:  # the caller's malformed header: 400, whatever the blame
            body, fields = _bad_request(error)
            start_response("400 Bad Request", fields)
            return [body]
        context = copy_context()
        served, _ = context.run(serving, incoming)

        def answering(status: str, response_headers: List[Tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, [*response_headers, *served.answer.items()], exc_info)

        return _InContext(context, context.run(self.app, environ, answering))


class _InContext:
    """A WSGI body whose every step (and ``close``) runs in the request's context."""

    def __init__(self, context: Any, body: Iterable[bytes]) -> None:
        self.context, self.body = context, body

    def __iter__(self) -> Iterator[bytes]:
        steps = self.context.run(iter, self.body)
        while True:
            try:
                yield self.context.run(next, steps)
            except StopIteration:
                return

    def close(self) -> None:
        close = getattr(self.body, "close", None)
        if close is not None:
            self.context.run(close)
