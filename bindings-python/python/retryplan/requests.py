"""A requests transport adapter that runs every request as one retryplan operation (an adapter over the core's driver).

Mount it like ``requests.adapters.HTTPAdapter``::

    session = requests.Session()
    adapter = RetryAdapter(policy=retryplan.Policy.from_profile("read"))
    session.mount("https://", adapter)
    session.mount("http://", adapter)

It runs one attempt at a time, as the sync httpx transport does (a policy
with a ``hedging`` section raises ``UnsupportedError`` unless
``sequential_attempts=True``), on the same driver and the same shared HTTP
logic as every other helper: for each attempt the driver starts it sends a
fresh ``X-Request-Id`` and, when the attempt's plan says so, the
operation's ``Idempotency-Key`` (a key already on the request is the key);
it cuts requests' ``timeout`` (a number, a ``(connect, read)`` pair or
None) to what is left of the attempt; and it reads the response the core's
one way, Retry-After as the policy says. urllib3's own retries stay off
(``max_retries`` is the policy's job: ``retryplan.compat.from_urllib3``
maps a ``Retry``). A request whose method is not idempotent (RFC 9110 §9.2.2; RFC 10008's QUERY is)
(POST, PATCH, ...) is never repeated after it may have been processed
unless the policy is ``keyed``, lists the method in ``retry_methods``, or
the adapter is made with ``idempotent=True``.

The response of the deciding attempt is returned, with the ending in
``response.retryplan_decision``; the typed ending is raised when there is
none (``GaveUpError`` chained from the last error), and always for
reconcile (``ReconcileRequiredError``). Every other response is closed. No byte
is read past an attempt's abort time or the deadline: an attempt is
abandoned at its abort time, its connection shut (so its worker thread
returns and no socket is left), and a failed response's body is read ahead
within its attempt's window: reading it gives what arrived, then, for a body
that broke or was not whole in time, requests' own error (``ChunkedEncodingError``;
``ConnectionError`` of urllib3's ``ReadTimeoutError``, requests' error for a
body read timeout), raised by the call itself with ``stream=False``, never an
empty body. A success's body is read by requests as usual (``stream=False``)
or left to you.

A body that cannot be sent twice (a generator, an iterator, a file without
a position to rewind to: a pipe, stdin, a socket's file) is sent once, as it
comes: where the policy would send it again the operation gives up
``body_not_replayable`` instead (the response is returned, or ``GaveUpError``
raised without one). Bytes, a ``bytearray``, a ``memoryview`` or text are sent
again as they are.

Redirects stay inside the total timeout: the session follows them
(``allow_redirects``, ``max_redirects``, ``response.history`` as ever), and
every hop after the first runs within the first request's deadline, with its
key (see ``retryplan._redirects``). A redirect handed back
(``allow_redirects=False``) and followed later by hand (``session.send(response.next)``,
``session.resolve_redirects``) is a fresh operation.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar

import requests
from requests.adapters import HTTPAdapter
from requests.models import CONTENT_CHUNK_SIZE
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ReadTimeoutError

from ._http import Client, HttpHelper, blocking, close_returned, read_ahead, shut, within
from ._native import Attempt
from ._redirects import Hop
from ._run import _check_types, default_sleep

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Iterator, List, Mapping, Optional, Tuple, Union

    from ._native import Decision, Policy, Run
    from ._run import HttpOptions, Unpack

__all__ = ["RetryAdapter"]

_BODIES = (bytes, bytearray, memoryview, str)  # sent again as they are


class _Sockets:
    """The connections one attempt uses (its worker thread's), so that an attempt abandoned at its abort time has
    them shut: a read in progress (a head trickling in, byte after byte, within every read timeout) stops at once
    and the worker thread returns, leaving no thread and no socket behind."""

    __slots__ = ("connections", "aborted")

    def __init__(self) -> None:
        self.connections: List[Any] = []
        self.aborted = False

    def using(self, connection: Any) -> None:
        self.connections.append(connection)
        if self.aborted:  # abandoned before it connected: it stops at its first read or write
            shut(getattr(connection, "sock", None))

    def abort(self) -> None:
        self.aborted = True
        for connection in self.connections:
            shut(getattr(connection, "sock", None))


_ATTEMPT: ContextVar[Optional[_Sockets]] = ContextVar("retryplan_requests_attempt", default=None)
"""The sockets of the attempt running in this context (its worker thread)."""


class _Watched:
    """A urllib3 connection that tells the attempt using it (if any) when it connects or sends a request."""

    def connect(self) -> None:
        attempt = _ATTEMPT.get()
        if attempt is not None:
            attempt.using(self)
        super().connect()  # type: ignore[misc]
        if attempt is not None and attempt.aborted:
            shut(getattr(self, "sock", None))

    def request(self, *args: Any, **kwargs: Any) -> None:
        attempt = _ATTEMPT.get()
        if attempt is not None:
            attempt.using(self)
        super().request(*args, **kwargs)  # type: ignore[misc]


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _Responses(Client):
    """requests' responses as the shared HTTP logic sees them."""

    def read(self, response: requests.Response, arrived: List[bytes]) -> Optional[Iterator[bytes]]:
        """Reads the body as requests does (urllib3's stream, decoded; urllib3's own errors), chunk after chunk."""
        return read_ahead(response.raw.stream(CONTENT_CHUNK_SIZE, decode_content=True), arrived)

    def timed_out(self, response: requests.Response) -> BaseException:
        message = "Read timed out (the body was not read within its attempt's window)."
        return ReadTimeoutError(response.raw._pool, None, message)  # as urllib3 raises it (its pool, no URL)

    def replay(
        self, response: requests.Response, arrived: List[bytes], error: Optional[BaseException], rest: Any = None
    ) -> requests.Response:
        """The response whose body is the bytes that arrived, then the rest from its open connection, or (the
        connection closed) ``error`` raised where the caller reads it: through requests, which turns urllib3's
        errors into its own as ever (a broken body: ``ChunkedEncodingError``; one cut at its window:
        ``ConnectionError`` of a ``ReadTimeoutError``)."""
        if error is None and rest is None:
            response._content = b"".join(arrived)  # what requests holds once a body is read
            response._content_consumed = True
            return response
        if rest is None:
            self.close(response)
        response.raw = _Replay(response.raw, arrived, error, rest)
        return response

    def abort(self, response: requests.Response) -> None:
        """Stops a read of the body in progress: shuts the connection's socket."""
        fp = getattr(getattr(response.raw, "_fp", None), "fp", None)  # http.client's file over the socket
        shut(getattr(getattr(fp, "raw", None), "_sock", None))

    def attach(self, response: requests.Response, decision: Decision) -> requests.Response:
        response.retryplan_decision = decision  # type: ignore[attr-defined]
        return response


class _Replay:
    """A response's urllib3 body read ahead: the chunks that arrived, then the chunks left on the open connection
    (``rest``, cut at the window's end) or the error that ended the read; anything else is the original's.
    ``read(amt)`` returns at most ``amt`` bytes, as urllib3's does (``shutil.copyfileobj(response.raw, file)``)."""

    def __init__(self, raw: Any, arrived: List[bytes], error: Optional[BaseException], rest: Any) -> None:
        self.original, self.chunks = raw, self._chunks(arrived, error, rest)
        self.pending, self.failure = b"", None  # type: bytes, Optional[BaseException]

    @staticmethod
    def _chunks(arrived: List[bytes], error: Optional[BaseException], rest: Any) -> Iterator[bytes]:
        yield from arrived
        if rest is not None:
            yield from rest
        elif error is not None:
            raise error

    def stream(self, amt: Any = None, decode_content: Any = None) -> Iterator[bytes]:
        if self.pending:
            pending, self.pending = self.pending, b""
            yield pending
        if self.failure is not None:
            failure, self.failure = self.failure, None
            raise failure
        yield from self.chunks

    def read(self, amt: Any = None, decode_content: Any = None, cache_content: bool = False) -> bytes:
        """Up to ``amt`` bytes (all that is left: None); a read that breaks after some bytes returns them, and
        the next read raises its error."""
        parts, size = [self.pending], len(self.pending)
        self.pending = b""
        try:
            if self.failure is not None:
                failure, self.failure = self.failure, None
                raise failure
            while amt is None or size < amt:
                chunk = next(self.chunks, None)
                if chunk is None:
                    break
                parts.append(chunk)
                size += len(chunk)
        except Exception as failure:
            if size == 0:
                raise
            self.failure = failure
        data = b"".join(parts)
        if amt is not None and len(data) > amt:
            data, self.pending = data[:amt], data[amt:]
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.original, name)


def _cut_timeout(timeout: Any, window: float) -> Tuple[float, float]:
    """requests' ``timeout`` (None, a number, a ``(connect, read)`` pair, urllib3's ``Timeout``) cut to ``window``."""
    if isinstance(timeout, tuple):
        connect, read = timeout
    elif hasattr(timeout, "connect_timeout"):  # urllib3's Timeout
        connect, read = timeout.connect_timeout, timeout.read_timeout
    else:
        connect = read = timeout
    return within(connect, window), within(read, window)


def _replayable(request: requests.PreparedRequest) -> bool:
    """True when every attempt can send the same body: none, bytes-like or text, or a file requests can rewind."""
    body = request.body
    return body is None or isinstance(body, _BODIES) or isinstance(getattr(request, "_body_position", None), int)


class RetryAdapter(HTTPAdapter):
    """A requests adapter that retries under a retryplan policy, one attempt at a time (see the module doc)."""

    def __init__(
        self,
        *,
        policy: Policy,
        sleep: Optional[Callable[[float], Any]] = None,
        sequential_attempts: bool = False,
        idempotent: Optional[bool] = None,
        pool_connections: int = 10,
        pool_maxsize: int = 10,
        pool_block: bool = False,
        **options: Unpack[HttpOptions],
    ) -> None:
        _check_types(idempotent=(idempotent, bool, "a bool or None"))  # checked when made, as every option
        super().__init__(
            pool_connections=pool_connections, pool_maxsize=pool_maxsize, max_retries=0, pool_block=pool_block
        )
        self.http = HttpHelper(
            _Responses(),
            policy=policy,
            sequential=True,
            sequential_attempts=sequential_attempts,
            sleep=sleep,
            **options,
        )
        self.sleep = default_sleep if sleep is None else sleep  # None: the helper's own, as for every helper
        self.idempotent = idempotent
        self.redirected = threading.local()  # .hop: the redirect this thread's last request returned, if any

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Union[bool, str] = True,
        cert: Any = None,
        proxies: Optional[Mapping[str, str]] = None,
    ) -> requests.Response:
        """Sends ``request`` as one operation: attempts, waits and headers as the driver decides."""
        method = request.method or "GET"
        options = None if self.idempotent is None else {"idempotent": self.idempotent}
        hop, self.redirected.hop = getattr(self.redirected, "hop", None), None
        following = _following()
        if not (hop is not None and hop.following is following and hop.follows(request)):
            hop = None
        if hop is not None:
            options = hop.continued(options)
        run = self.http.start(method, request.headers, options, one_shot_body=not _replayable(request))
        self.http.describe(run, method, request.url or "", hop)  # a hop is named by the request the caller made
        settings = (timeout, verify, cert, proxies)
        ending = run.call(self._attempt, (run, request, settings), self.sleep)
        response: requests.Response = self.http.finish(run, ending)
        if response.is_redirect and following is not None:  # the session's next hop continues this total timeout
            self.redirected.hop = _Hop(request, run, following)
        return response

    def _attempt(
        self, run: Run, request: requests.PreparedRequest, settings: Tuple[Any, Any, Any, Any]
    ) -> requests.Response:
        attempt = Attempt.running_in(run)
        assert attempt is not None
        timeout, verify, cert, proxies = settings
        sent = request.copy()
        sent.headers.update(self.http.attempt_headers(attempt, run))
        if attempt.attempt > 1 and isinstance(getattr(sent, "_body_position", None), int):
            requests.utils.rewind_body(sent)  # the same bytes again, from where the first attempt began
        window, sockets = attempt.time_left(), _Sockets()

        def send(prepared: requests.PreparedRequest) -> requests.Response:
            _ATTEMPT.set(sockets)  # in the worker thread's own context
            cut = _cut_timeout(timeout, window)
            return HTTPAdapter.send(self, prepared, stream=True, timeout=cut, verify=verify, cert=cert, proxies=proxies)

        response: requests.Response = blocking(send, sent, window, close_returned, sockets.abort)
        return response

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        """requests' pool manager, whose connections tell the attempt using them (so an abandoned one is shut)."""
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        """requests' proxy manager, watched the same way (a SOCKS proxy's connections are not: an attempt
        abandoned there ends at its read timeout, the attempt's window)."""
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager


class _Hop(Hop):
    """A redirect returned to a requests session that follows it: its next hop is sent by the session on this
    thread, at once, while the ``Session.send`` following redirects for ``following`` is still running (that is
    how it is known). A redirect handed back (``allow_redirects=False``) is no hop: whatever follows it later, by
    hand (``session.send(response.next)``, ``session.resolve_redirects``), is a fresh operation, as in JS."""

    __slots__ = ("following",)

    def __init__(self, origin: requests.PreparedRequest, run: Run, following: requests.PreparedRequest) -> None:
        super().__init__(origin, run)
        self.following = following


def _following() -> Optional[requests.PreparedRequest]:
    """The request whose redirects the session is following on this thread (the innermost ``Session.send`` on the
    stack called with ``allow_redirects``, which requests passes to no adapter), or None: none is. A wrapper of
    ``Session.send`` (OpenTelemetry's instrumentation) is looked through to the function it wraps."""
    import sys

    send = requests.Session.send
    while hasattr(send, "__wrapped__"):
        send = send.__wrapped__
    code = send.__code__
    frame: Any = sys._getframe(2)
    while frame is not None:
        if frame.f_code is code and frame.f_locals.get("allow_redirects"):
            return frame.f_locals.get("request")  # type: ignore[no-any-return]
        frame = frame.f_back
    return None
