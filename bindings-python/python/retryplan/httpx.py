"""httpx transports that run every request as one retryplan operation (adapters over the core's driver).

``RetryTransport`` wraps an ``httpx.BaseTransport`` (default
``httpx.HTTPTransport()``) and runs one attempt at a time: a policy with a
``hedging`` section raises ``UnsupportedError`` unless
``sequential_attempts=True``. ``AsyncRetryTransport`` wraps an
``httpx.AsyncBaseTransport`` and hedges: each attempt is a task, losers are
cancelled and their responses closed. For each attempt the driver starts,
they send a fresh ``X-Request-Id`` and, when the attempt's plan says so,
the operation's ``Idempotency-Key`` (a key already on the request is the
key); set httpx's timeouts to what is left of the attempt (never above a
timeout the client set); and read the response the core's one way
(``Outcome.from_http_response``). A request whose method RFC 9110 does not
call idempotent (POST, PATCH, ...) is never repeated after it may have been
processed unless the policy is ``keyed`` or the request says
``extensions={"retryplan": {"idempotent": True}}``.

The response of the deciding attempt is returned, with the ending in
``response.extensions["retryplan_decision"]``; the typed ending is raised
when there is none (``GaveUpError`` chained from the last error), and
always for reconcile (``ReconcileRequiredError``: never repeat an unsafe write
blindly). Every other response is closed. No byte is read past an attempt's
abort time or the deadline: the sync transport stops waiting for an attempt
at its abort time, and a failed response's body is read ahead within its
attempt's window: reading it gives the bytes that arrived, then, for a body
that broke or was not whole in time, httpx's own error (``RemoteProtocolError``,
``ReadTimeout``), raised by the call itself when the client reads the body
(not streamed), never an empty body. A success's body is yours to read.

Per request, ``extensions={"retryplan": {"policy": ..., "dependency": ...,
"idempotency_key": ..., "deadline": ..., "idempotent": ...}}`` overrides the
transport's policy or dependency, sets the key, passes a caller deadline
(``time.monotonic()`` seconds) or says whether the request may be repeated. Any other key, or a value that
is not a dict, is refused (``ArgumentTypeError`` naming it).

A streaming body (a generator, an async iterator, a file given as
``content=``) is sent once, as it comes, never read into memory: where the
policy would send it again the operation gives up ``body_not_replayable`` (the
response is returned). A ``files=`` upload is sent again whole, as httpx
renders it every time (bytes and text as they are, a file object rewound to
its start), each attempt reading the files at a position of its own; one with
a file httpx cannot rewind (a pipe, stdin: ``seekable()`` false) is sent once. A
``bytearray`` or ``memoryview`` given as ``content=``, which httpx would send
item by item and fail on, is refused before anything is sent
(``ArgumentTypeError``, a ``TypeError``, naming ``content``).

``request_id_header`` and ``idempotency_key_header`` rename the two headers
(None leaves one out); the key travels under one name only.

Redirects stay inside the total timeout: httpx follows them (``follow_redirects``,
``max_redirects``, ``response.history`` as ever), each hop a request of its
own, and every hop after the first runs within the first request's deadline,
with its key (see ``retryplan._redirects``). A redirect handed back
(``follow_redirects=False``) and sent later by hand (``response.next_request``)
is a fresh operation.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Mapping
from functools import partial

import httpx

try:  # what files= makes (httpx exports no name); an httpx that moved it sends every upload once, never fails to import
    from httpx._multipart import MultipartStream as _MultipartStream
except ImportError:  # pragma: no cover
    _MultipartStream = ()  # type: ignore[assignment,misc]

from ._http import (
    READ_AHEAD_BYTES,
    Client,
    HttpHelper,
    blocking,
    close_returned,
    read_ahead,
    shut,
    within,
    within_window_async,
)
from ._native import Attempt
from ._redirects import Hop
from ._run import _check_types, _not_an_option, default_sleep

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterator, List, Optional, Set, Tuple

    from ._native import Decision, Policy, Run
    from ._run import HttpOptions, Unpack

__all__ = ["AsyncRetryTransport", "RetryTransport"]

_PHASES = ("connect", "read", "write", "pool")
_OPTIONS = ("policy", "dependency", "idempotency_key", "deadline", "idempotent")
_HOP = "retryplan_redirect"  # the request extension a returned redirect leaves for the client's next hop


class _Responses(Client):
    """httpx responses as the shared HTTP logic sees them."""

    def headers(self, response: httpx.Response) -> Dict[str, str]:
        """The headers as one dict by lower-case name, a name sent on several lines joined by ", " as httpx's own
        ``get`` joins them: read once, where the core's dozen lookups through ``httpx.Headers.get`` (each of which
        scans and decodes every header) cost about five times as much."""
        joined: Dict[str, str] = {}
        for name, value in response.headers.multi_items():
            joined[name] = f"{joined[name]}, {value}" if name in joined else value
        return joined

    def read(self, response: httpx.Response, arrived: List[bytes]) -> Optional[Iterator[bytes]]:
        """Reads the body as the transport gives it (raw bytes; httpx's own errors), chunk after chunk."""
        return read_ahead(iter(response.stream), arrived)  # type: ignore[arg-type]

    def timed_out(self, response: httpx.Response) -> BaseException:
        return httpx.ReadTimeout("the body was not read within its attempt's window")

    def replay(
        self, response: httpx.Response, arrived: List[bytes], error: Optional[BaseException], rest: Any = None
    ) -> httpx.Response:
        """A response of the same status, headers and extensions (the ending attached) whose body is the bytes that
        arrived, then the rest from the open connection, or ``error`` raised by the read (httpx decodes them and
        binds the error to the request as ever)."""
        if rest is None:
            self.close(response)
        stream = _Replay(arrived, error, rest, response.stream)
        return httpx.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    def abort(self, response: httpx.Response) -> None:
        """Stops a read of the body in progress."""
        _shut(response.extensions.get("network_stream"))

    def attach(self, response: httpx.Response, decision: Decision) -> httpx.Response:
        response.extensions["retryplan_decision"] = decision
        return response


class _Replay(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body read ahead: the chunks that arrived, then the chunks left on the open connection (``rest``, of the
    ``original`` stream, closed with this one) or the error that ended the read (neither: it was whole)."""

    def __init__(self, arrived: List[bytes], error: Optional[BaseException], rest: Any, original: Any) -> None:
        self.arrived, self.error, self.rest, self.original = arrived, error, rest, original

    def __iter__(self) -> Iterator[bytes]:
        yield from self.arrived
        if self.rest is not None:
            yield from self.rest
        elif self.error is not None:
            raise self.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.arrived:
            yield chunk
        if self.rest is not None:
            async for chunk in self.rest:
                yield chunk
        elif self.error is not None:
            raise self.error

    def close(self) -> None:
        if self.rest is not None:
            self.original.close()

    async def aclose(self) -> None:
        if self.rest is not None:
            await self.original.aclose()


def _shut(stream: Any) -> None:
    """Shuts a connection's socket (its network stream's): a read in progress on it stops at once."""
    shut(stream.get_extra_info("socket") if stream is not None else None)


class _Connection:
    """The connection a sync attempt uses (httpx's ``trace`` extension, chained to the caller's own), so an
    attempt abandoned at its abort time stops reading a trickling head at once and its worker thread returns,
    leaving no thread and no socket behind: the one it opened, or the pooled HTTP/1.1 connection it reused
    (httpcore's trace names no connection then: it is read from the frame sending the request, see
    :func:`_reused_stream`; a multiplexed HTTP/2 connection is never shut for one attempt)."""

    def __init__(self, trace: Any) -> None:
        self.trace, self.stream = trace, None

    def __call__(self, event: str, info: Dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.stream = info.get("return_value")
        elif event == "http11.send_request_headers.started" and self.stream is None:
            self.stream = _reused_stream()
        if self.trace is not None:
            self.trace(event, info)

    def abort(self) -> None:
        _shut(self.stream)


def _reused_stream() -> Any:
    """The network stream of the HTTP/1.1 connection whose ``handle_request`` is tracing (httpcore's
    ``HTTP11Connection``, a few frames up: this callback, ``Trace.trace``, ``Trace.__enter__``); None when the
    frames are not what this httpcore version makes them."""
    import sys

    frame = sys._getframe(1)
    for _ in range(5):
        owner = frame.f_locals.get("self")
        if type(owner).__name__ == "HTTP11Connection":
            return getattr(owner, "_network_stream", None)
        if frame.f_back is None:
            return None
        frame = frame.f_back
    return None


class _AsyncResponses(_Responses):
    def __init__(self) -> None:
        self.closing: Set[Any] = set()  # the closes under way (a task is only weakly held by its loop)

    def close(self, response: httpx.Response) -> None:
        """Starts closing ``response`` (the engine disposes of a response from sync code); :meth:`closed` waits."""
        import asyncio

        task = asyncio.get_running_loop().create_task(response.aclose())
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def closed(self) -> None:
        """Waits until every close under way has finished, so that no response is still open (its connection still
        in flight) when the helper returns or raises: a client closed right after would refuse it (httpcore 0.15).
        A cancellation of the caller does not cut the closes short."""
        import asyncio

        if self.closing:
            await asyncio.wait(set(self.closing))

    async def read_async(self, response: httpx.Response, arrived: List[bytes]) -> Optional[AsyncIterator[bytes]]:
        """:meth:`_Responses.read`, awaited (:func:`~retryplan._http.read_ahead`'s limit)."""
        chunks, size = response.stream.__aiter__(), 0  # type: ignore[union-attr]
        async for chunk in chunks:
            arrived.append(chunk)
            size += len(chunk)
            if size >= READ_AHEAD_BYTES:
                return chunks
        return None


def _start(http: HttpHelper, request: httpx.Request) -> Run:
    """The request's operation; a body httpx cannot send again (a generator, a file given as ``content=``, a file
    of ``files=`` it cannot rewind) is sent once (``one_shot_body``); the next hop
    of a redirect this transport returned runs within that operation's deadline, with its key."""
    given = _request_options(request.extensions.get("retryplan"))
    hop = request.extensions.get(_HOP)
    if not (isinstance(hop, _Hop) and hop.follows(request)):
        hop = None
    if hop is not None:
        given = hop.continued(given)
    _check_body(request.stream)
    run = http.start(request.method, request.headers, given, one_shot_body=not _replayable(request.stream))
    http.describe(run, request.method, str(request.url), hop)  # a hop is named by the request the caller made
    return run


def _replayable(stream: Any) -> bool:
    """Whether httpx sends the body whole again when it is sent again: bytes (given, read or form-encoded) always; a
    multipart body (``files=``) when every file is bytes or text or a file object it rewinds (httpx's
    ``FileField.render_data`` seeks it to 0 before each rendering, and carries on from where it is when it cannot:
    a pipe, stdin, a socket's file); anything streamed (a generator, a file given as ``content=``) never."""
    if isinstance(stream, httpx.ByteStream):
        return True
    fields = getattr(stream, "fields", None) if isinstance(stream, _MultipartStream) else None
    return isinstance(fields, list) and all(_rewound(getattr(field, "file", b"")) for field in fields)


def _rewound(file: Any) -> bool:
    """A ``files=`` value httpx renders whole every time: bytes or text, or a file object that says it is seekable
    (one that cannot say so may be a pipe httpx cannot rewind: sent once)."""
    if isinstance(file, (str, bytes)):
        return True
    seekable = getattr(file, "seekable", None)
    try:
        return callable(seekable) and bool(seekable())
    except (OSError, ValueError):  # closed: httpx's read fails on it the same way each time
        return False


class _Cursor:
    """One attempt's view of a file of a multipart body that every attempt of a request reads: at this attempt's own
    position (a seek, then a read, under the request's lock), so an attempt abandoned at its abort time that is
    still reading in its worker thread, or a hedge sent beside it, never moves another attempt's place in the file.
    httpx rewinds it (``seek(0)``) before rendering, as it rewinds the file itself."""

    def __init__(self, file: Any, lock: Any) -> None:
        self.file, self.lock, self.position = file, lock, 0

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence != 0:
            import io

            raise io.UnsupportedOperation("an attempt's view of an upload seeks from its start only")
        self.position = offset
        return offset

    def tell(self) -> int:
        return self.position

    def read(self, size: int = -1) -> Any:
        with self.lock:
            self.file.seek(self.position)
            chunk = self.file.read(size)
        self.position += len(chunk)
        return chunk


class _Body:
    """The body of each attempt of a request: the request's own stream, or, for a multipart body with file objects
    (replayable: see :func:`_replayable`), a copy whose files are read through a :class:`_Cursor` of its own."""

    def __init__(self, stream: Any) -> None:
        import threading

        self.stream, self.lock = stream, threading.Lock()
        shared = isinstance(stream, _MultipartStream) and _replayable(stream)
        self.shared = shared and any(not isinstance(getattr(f, "file", b""), (str, bytes)) for f in stream.fields)

    def for_attempt(self) -> Any:
        if not self.shared:
            return self.stream
        import copy

        body = copy.copy(self.stream)
        body.fields = []
        for field in self.stream.fields:
            if not isinstance(getattr(field, "file", b""), (str, bytes)):
                field = copy.copy(field)
                field.file = _Cursor(field.file, self.lock)
            body.fields.append(field)
        return body


def _check_body(stream: Any) -> None:
    """Refuses a bytearray or memoryview given as ``content=`` (ArgumentTypeError, a TypeError, naming it) before
    anything is sent: httpx iterates it item by item and fails on the first int with a TypeError of its own once
    the request's head is out, the caller's error, not an attempt's failure ("the write may have happened")."""
    body = getattr(stream, "_stream", None)  # what httpx's IteratorByteStream iterates
    if isinstance(body, (bytearray, memoryview)):
        words = "bytes, str or an iterable of bytes (pass bytes(content))"
        _check_types(content=(body, bytes, words))


def _wrapped(transport: Any, method: str, words: str, default: Callable[[], Any]) -> Any:
    """The transport given to wrap (None: a ``default()``), refused naming ``transport`` unless it has ``method``:
    found only inside the first attempt, it was an attempt's failure (a POST ended "the write may have happened")."""
    if transport is None:
        return default()
    _check_types(transport=(transport, method, f"{words} (with {method})"))
    return transport


def _request_options(options: Any) -> Dict[str, Any]:
    """The request's ``extensions["retryplan"]`` (None: none), refused naming a key that is not one of its options
    or a value that is not a mapping of them."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        _check_types(**{'extensions["retryplan"]': (options, dict, "a dict of per-request options")})
    for key in options:
        if key not in _OPTIONS:
            _not_an_option(str(key), f"is not an option of this helper per request (one of {', '.join(_OPTIONS)})")
    return dict(options)


def _returned(run: Run, request: httpx.Request, response: httpx.Response) -> httpx.Response:
    """The response returned; a redirect is remembered in the request's extensions, which httpx copies into the
    request of the next hop."""
    if response.has_redirect_location:
        request.extensions[_HOP] = _Hop(request, run, response)
    return response


class _Hop(Hop):
    """A redirect returned to an httpx client, continued only when the client follows it itself
    (``follow_redirects``): one handed back to the caller carries its ``next_request``, which httpx sets on the
    response only then, and the caller who sends it later, by hand, starts a fresh operation (as JS's
    ``redirect: 'manual'`` does), never one bound to this finished operation's deadline."""

    __slots__ = ("response",)

    def __init__(self, origin: httpx.Request, run: Run, response: httpx.Response) -> None:
        super().__init__(origin, run)
        self.response = weakref.ref(response)

    def follows(self, request: Any) -> bool:
        response = self.response()  # gone: the client had handed it back, and its caller dropped it
        return response is not None and response.next_request is None and super().follows(request)


def _attempt_request(
    http: HttpHelper, run: Run, attempt: Attempt, request: httpx.Request, body: _Body
) -> httpx.Request:
    """The request of one attempt: its headers, its body, and httpx's timeouts cut to what is left of the attempt."""
    window = attempt.time_left()
    given = request.extensions.get("timeout") or {}
    timeout = {phase: within(given.get(phase), window) for phase in _PHASES}
    headers = request.headers.copy()
    headers.update(http.attempt_headers(attempt, run))
    extensions = {**request.extensions, "timeout": timeout}
    stream = body.for_attempt()
    return httpx.Request(request.method, request.url, headers=headers, stream=stream, extensions=extensions)


class RetryTransport(httpx.BaseTransport):
    """A sync httpx transport that retries under a retryplan policy, one attempt at a time (see the module doc)."""

    def __init__(
        self,
        transport: Optional[httpx.BaseTransport] = None,
        *,
        policy: Policy,
        sleep: Optional[Callable[[float], Any]] = None,
        sequential_attempts: bool = False,
        **options: Unpack[HttpOptions],
    ) -> None:
        self.http = HttpHelper(
            _Responses(),
            policy=policy,
            sequential=True,
            sequential_attempts=sequential_attempts,
            sleep=sleep,
            **options,
        )
        self.transport = _wrapped(transport, "handle_request", "an httpx.BaseTransport", httpx.HTTPTransport)
        self.sleep = default_sleep if sleep is None else sleep  # None: the helper's own, as for every helper

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request`` as one operation: attempts, waits and headers as the driver decides."""
        run = _start(self.http, request)
        ending = run.call(self._attempt, (run, request, _Body(request.stream)), self.sleep)
        return _returned(run, request, self.http.finish(run, ending))

    def _attempt(self, run: Run, request: httpx.Request, body: _Body) -> httpx.Response:
        attempt = Attempt.running_in(run)
        assert attempt is not None
        sent = _attempt_request(self.http, run, attempt, request, body)
        connection = sent.extensions["trace"] = _Connection(request.extensions.get("trace"))
        window = attempt.time_left()
        response: httpx.Response = blocking(
            self.transport.handle_request, sent, window, close_returned, connection.abort
        )
        return response

    def close(self) -> None:
        """Closes the wrapped transport."""
        self.transport.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """An asyncio httpx transport that retries under a retryplan policy and hedges (see the module doc)."""

    def __init__(
        self,
        transport: Optional[httpx.AsyncBaseTransport] = None,
        *,
        policy: Policy,
        sleep: Optional[Callable[[float], Awaitable[Any]]] = None,
        **options: Unpack[HttpOptions],
    ) -> None:
        self.responses = _AsyncResponses()
        self.http = HttpHelper(self.responses, policy=policy, sleep=sleep, **options)
        words = "an httpx.AsyncBaseTransport"
        self.transport = _wrapped(transport, "handle_async_request", words, httpx.AsyncHTTPTransport)
        self.sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request`` as one operation: attempts (hedges too), waits and headers as the driver decides."""
        from ._async import running_loop  # asyncio only when the async transport runs

        running_loop()  # before the operation starts: under trio, nothing is started
        try:
            run, response = await self._send(request)
        finally:
            await self.responses.closed()
        return _returned(run, request, response)  # every response returned, whole or not (as the sync transport's)

    async def _send(self, request: httpx.Request) -> Tuple[Run, httpx.Response]:
        """The operation, and the response it returns (a failed body read ahead within its window)."""
        import asyncio

        from ._async import run_concurrently

        run = _start(self.http, request)
        send, body = self.transport.handle_async_request, _Body(request.stream)
        ending = await run_concurrently(
            run, lambda attempt: send(_attempt_request(self.http, run, attempt, request, body)), self.sleep
        )
        response, window = self.http.settle(run, ending)
        if window is not None:  # a failed body, read ahead within its window (as the sync transport's)
            arrived: List[bytes] = []
            error: Optional[BaseException] = None
            rest, ends = None, time.monotonic() + window
            try:
                rest = await asyncio.wait_for(self.responses.read_async(response, arrived), max(window, 0.0))
            except asyncio.TimeoutError:
                error = self.responses.timed_out(response)
            except Exception as broken:  # httpx's own error: raised again where the caller reads the body
                error = broken
            except BaseException:
                self.responses.close(response)
                raise
            if rest is not None:
                rest = within_window_async(rest, partial(self.responses.timed_out, response), ends)
            response = self.responses.replay(response, list(arrived), error, rest)
        return run, response

    async def aclose(self) -> None:
        """Closes the wrapped transport."""
        await self.transport.aclose()
