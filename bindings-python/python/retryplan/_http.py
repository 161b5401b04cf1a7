"""What every HTTP helper shares, whatever its client library (httpx here; a requests adapter calls the same).

A library adapter supplies a :class:`Client` (read a response's status and
headers, read its body, replay what arrived, close it, abort its I/O, attach
the ending);
this module does the rest once:

* the operation's options from the request: its method (RFC 9110: a method
  that is not idempotent is never repeated after it may have been processed
  unless the policy is ``keyed`` or the request says ``idempotent``), its key
  (an ``Idempotency-Key`` already set makes the request keyed by that exact key: the core's
  ``Policy.http_request`` rule, through the driver's ``request_idempotency_key``), a deadline;
* each attempt's headers (a fresh ``X-Request-Id``; the key when the plan says
  so) and its window (what is left of the attempt, for the client's timeouts);
* each response handed to the core as the library gives it (its status, any
  int, and its headers): the core reads the guidance headers, Retry-After as
  the operation's policy says, and a status outside 100..=599 (or an interim 1xx but 101) as the server's
  fault;
* a body that can be sent only once (a generator, a stream) marks the
  operation ``one_shot_body``: sent once, never again; the core gives up
  ``body_not_replayable`` where it would have retried;
* the ending, as the core says (``returns_responses``): the response it names
  is returned with the decision attached, else the typed ending raised; every
  response the core releases is closed;
* no byte read past the deadline: a sync attempt runs in a worker thread that
  is abandoned at its abort time, and the body of a failed response returned
  at the end is read ahead only within its attempt's window, and only its
  first :data:`READ_AHEAD_BYTES` (the rest is read when the caller reads it,
  still within that window): the caller reads the bytes that arrived, then,
  for a body that broke or was not whole in time, the library's own error
  (its read timeout), as a plain read would end;
* every attempt carries the core's outgoing headers (``Attempt.outgoing_headers``: the attempt's remaining
  time, its number, the key when it is sent, whether this layer or one above retries), inside a served
  request or not: a client that never said it retries would let the next hop retry too, and the layers'
  attempts would multiply (as gRPC sends ``grpc-timeout`` whenever a call has a deadline);
* inside a request served under ``retryplan.propagation``'s middleware (its ambient context), the driver
  starts with the caller's context (``incoming``: its deadline, its key, one attempt when it retries), and
  a give-up decides the request's answer headers, as for every helper's operation (the native ``Run`` does
  both).
"""

from __future__ import annotations

import time

from ._errors import AttemptTimedOut
from ._native import IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, Run, request_name
from ._run import Config, _check_types, _not_an_option

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Optional, Tuple

    from ._native import Attempt, Ending
    from ._redirects import Hop


_CORE_KEY_HEADER = IDEMPOTENCY_KEY_HEADER.lower()  # the core's outgoing headers are by lower-case name

READ_AHEAD_BYTES = 1 << 20
"""How much of a failed body returned at the end the helpers read ahead within its window (1 MiB, as the library
gives the bytes: requests' decoded). The rest is read when the caller reads it, still cut at the window's end
(:func:`within_window`): a 400 MB error page, or a small gzip body that inflates to gigabytes, never sits in memory
because a helper read it."""


def _check_header_names(**names: Optional[str]) -> None:
    """Refuses a header name option that is neither None (the header is left out) nor a non-empty str, naming it."""
    for field, name in names.items():
        rule = "must be a header name (a non-empty str), or None to leave the header out"
        if name is not None and not isinstance(name, str):
            from ._errors import ArgumentTypeError

            raise ArgumentTypeError(f"invalid argument `{field}`: {rule}, got {type(name).__name__}", field, rule)
        if name == "":
            from ._errors import InvalidArgumentError

            raise InvalidArgumentError(f"invalid argument `{field}`: {rule}, got ''", field, rule)


class Client:
    """An HTTP library's responses as the helpers see them: httpx's and requests' share a status, headers and
    ``close``; each library says how to ``read`` a failed body ahead (within its window), ``replay`` what arrived
    (ending as the library's own read would), ``abort`` a read in progress and ``attach`` the ending."""

    def status(self, response: Any) -> Any:
        return response.status_code  # as the library gives it: the core reads any int

    def headers(self, response: Any) -> Any:
        return response.headers  # case-insensitive: `get` finds the lower-case names

    def close(self, response: Any) -> Any:
        return response.close()

    def read(self, response: Any, arrived: List[bytes]) -> Optional[Iterator[bytes]]:
        """Reads the body (:func:`read_ahead`), appending each chunk to ``arrived`` as it comes: the chunks not read
        yet, None once the body ended; raises the library's own error."""
        raise NotImplementedError

    def timed_out(self, response: Any) -> BaseException:
        """The library's own error for a body not read in time (its read timeout)."""
        raise NotImplementedError

    def replay(self, response: Any, arrived: List[bytes], error: Optional[BaseException], rest: Any = None) -> Any:
        """The response whose body is ``arrived``, then ``rest`` (the chunks :meth:`read` left, read from the
        response's open connection) or ``error`` raised where the caller reads it (neither: the body is whole; the
        response is closed unless a ``rest`` is still to be read)."""
        raise NotImplementedError

    def abort(self, response: Any) -> None:
        raise NotImplementedError

    def attach(self, response: Any, decision: Any) -> Any:
        raise NotImplementedError


def read_ahead(chunks: Iterator[bytes], arrived: List[bytes]) -> Optional[Iterator[bytes]]:
    """Appends a body's ``chunks`` to ``arrived`` until :data:`READ_AHEAD_BYTES` arrived: the chunks left (None
    once the body ended)."""
    size = 0
    for chunk in chunks:
        arrived.append(chunk)
        size += len(chunk)
        if size >= READ_AHEAD_BYTES:
            return chunks
    return None


def within_window(rest: Iterator[bytes], client: Client, response: Any, ends: float) -> Iterator[bytes]:
    """The rest of a failed body read ahead, cut at the end of its window (``ends``, on ``time.monotonic``) as the
    read-ahead is: a timer then aborts the response's connection (``client.abort``) and the read ends with the
    library's read timeout (``client.timed_out``), never a byte read past it."""
    import threading

    cut = threading.Event()

    def expire() -> None:
        cut.set()
        client.abort(response)

    timer = threading.Timer(max(ends - time.monotonic(), 0.0), expire)
    timer.daemon = True
    timer.start()
    try:
        for chunk in rest:
            if cut.is_set():
                break
            yield chunk
    except Exception:  # the aborted read's own error, when the window's end cut it
        if not cut.is_set():
            raise
    finally:
        timer.cancel()
    if cut.is_set():
        raise client.timed_out(response)


async def within_window_async(
    rest: AsyncIterator[bytes], timed_out: Callable[[], BaseException], ends: float
) -> AsyncIterator[bytes]:
    """:func:`within_window` on the running loop: each chunk awaited until the window's end (``ends``, on
    ``time.monotonic``) at most, then ``timed_out()`` raised."""
    import asyncio

    while True:
        try:
            chunk = await asyncio.wait_for(rest.__anext__(), max(ends - time.monotonic(), 0.0))
        except StopAsyncIteration:
            return
        except asyncio.TimeoutError:
            raise timed_out() from None
        yield chunk


def close_returned(response: Any) -> None:
    """Closes what an abandoned attempt still returned (a response, or None)."""
    if response is not None:
        response.close()


def within(timeout: Any, window: float) -> float:
    """A client's own timeout for one phase of I/O (None: it set none) cut to ``window``, the seconds left of the
    attempt: the sooner of the two, so no phase outlives the attempt and none is longer than the client asked."""
    return window if timeout is None else min(float(timeout), window)


def shut(sock: Any) -> None:
    """Shuts a connection's socket (the OS socket, under TLS too): a read in progress on it stops at once."""
    if sock is not None:
        import socket

        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass


_NOT_HTTP_OPTIONS = ("outcome_of_result", "name", "dispose")
"""Options of ``retry`` an HTTP helper does not have: a response's outcome is the core's to read, the operation is
named by its request, and the helper closes the responses it drops itself."""


class HttpHelper:
    """The settings of one HTTP helper (a transport, an adapter) and what it does per request."""

    def __init__(
        self,
        client: Client,
        *,
        wall_clock: Optional[Callable[[], float]] = None,
        request_id_header: Optional[str] = REQUEST_ID_HEADER,
        idempotency_key_header: Optional[str] = IDEMPOTENCY_KEY_HEADER,
        **settings: Any,
    ) -> None:
        _check_types(wall_clock=(wall_clock, None, "a function returning the Unix time in seconds, such as time.time"))
        _check_header_names(request_id_header=request_id_header, idempotency_key_header=idempotency_key_header)
        for option in _NOT_HTTP_OPTIONS:  # Config takes them for `retry`; here they would be silently ignored
            if option in settings:
                _not_an_option(option)
        self.client = client
        self.wall_clock = wall_clock
        self.request_id_header = request_id_header
        self.idempotency_key_header = idempotency_key_header
        self.config = Config(dispose=client.close, **settings).check()

    def start(self, method: str, headers: Any, options: Optional[Dict[str, Any]], one_shot_body: bool = False) -> Run:
        """The operation of one request: ``options`` is the request's ``retryplan`` extension (policy,
        dependency, idempotency_key, deadline, idempotent), ``headers`` its headers (a key already set);
        ``one_shot_body`` when its body can be sent only once."""
        options = dict(options or {})
        if self.idempotency_key_header is not None:
            options.setdefault("request_idempotency_key", headers.get(self.idempotency_key_header))
        # Inside a served request the operation starts from its caller's deadline, key and retrying layer (Run).
        run = self.config.run(method=method, returns_responses=True, one_shot_body=one_shot_body, **options)
        run.key_sent = self.idempotency_key_header is not None
        client, wall_clock = self.client, self.wall_clock

        def head(response: Any) -> Tuple[int, Any, float]:
            """A response as the core reads it: its status and headers as given, and the wall clock now."""
            # time.time looked up now, as urllib3 reads it: a test's frozen wall clock (freezegun, time-machine) is read
            return (
                client.status(response),
                client.headers(response),
                time.time() if wall_clock is None else wall_clock(),
            )

        run.read = head
        return run

    def describe(self, run: Run, method: str, url: str, hop: Optional[Hop] = None) -> None:
        """Names the operation by its request, in endings, logs and spans: the core's ``request_name`` (``url`` as
        the client gives it, without user info or fragment, the conventions' sensitive query values ``REDACTED``).
        The next hop of a redirect (``hop``) keeps the name of the request the caller made, as in every language
        (retryFetch and Kotlin's helpers follow redirects inside the attempt and name the request asked for): the URL
        a user searches the logs for. Its spans name the URL this hop was sent to (``url.full``, the request actually
        sent)."""
        name = request_name(method, url)
        run.name = name if hop is None else hop.name
        if run.telemetry is not None:
            run.telemetry.request(method, name[len(method) + 1 :])

    def attempt_headers(self, attempt: Attempt, run: Run) -> Dict[str, str]:
        """The headers of this attempt's request: its request id, the core's headers for the next hop (served
        request or not: the next hop learns this layer retries; the key among them when the attempt's plan sends
        it, under this helper's ``idempotency_key_header``), and the attempt's span context when OpenTelemetry
        listens. A header name set to None is left out."""
        headers = attempt.outgoing_headers()
        key = headers.pop(_CORE_KEY_HEADER, None)  # one field line: the key travels under one name, or none
        if key is not None and self.idempotency_key_header is not None:
            headers[self.idempotency_key_header] = key
        if self.request_id_header is not None:
            headers[self.request_id_header] = attempt.request_id
        if run.telemetry is not None:
            run.telemetry.inject(attempt.attempt, headers)
        return headers

    def settle(self, run: Run, ending: Ending) -> Tuple[Any, Optional[float]]:
        """The response the core says to return, with the seconds left to read its body in (None: a success,
        whose body is the caller's to read); else raises the typed ending (which, inside a served request,
        decides its answer: Run)."""
        response, window = run.finish(ending)
        return self.client.attach(response, ending.decision), window

    def finish(self, run: Run, ending: Ending) -> Any:
        """The sync ending: the response to return, its failed body read ahead within its window. A body that
        breaks, or is not whole by then, ends the caller's read as the library's own read would: the bytes that
        arrived, then the library's error (its read timeout for a body cut at the window), never an empty body."""
        response, window = self.settle(run, ending)
        if window is None:
            return response
        client, arrived, ends = self.client, [], time.monotonic() + window  # type: Client, List[bytes], float
        error: Optional[BaseException] = None
        rest = None
        try:
            rest = blocking(
                lambda _: client.read(response, arrived),
                response,
                window,
                lambda _: client.close(response),
                lambda: client.abort(response),
            )
        except AttemptTimedOut:
            error = client.timed_out(response)
        except Exception as broken:  # the library's own error: raised again where the caller reads the body
            error = broken
        if rest is not None:
            rest = within_window(rest, client, response, ends)
        return client.replay(response, list(arrived), error, rest)


def blocking(
    call: Callable[[Any], Any], arg: Any, seconds: float, cleanup: Callable[[Any], Any], abort: Any = None
) -> Any:
    """``call(arg)`` in a worker thread, waited for ``seconds`` at most: its value or error; else the call is
    abandoned (``abort()`` stops its I/O if it can; ``cleanup(value)`` disposes of what it still returns)
    and AttemptTimedOut is raised."""
    if seconds <= 0:
        raise AttemptTimedOut("no time left")
    import threading
    from contextvars import copy_context

    done, lock, state = threading.Event(), threading.Lock(), {}  # type: Any, Any, Dict[str, Any]

    def work() -> None:
        try:
            value = context.run(call, arg)
        except BaseException as error:  # handed to the caller, or dropped when abandoned
            value, state["error"] = None, error
        with lock:
            state["value"] = value
            abandoned = state.get("abandoned", False)
        if abandoned:
            cleanup(value)
        done.set()

    context = copy_context()
    threading.Thread(target=work, name="retryplan-attempt", daemon=True).start()
    try:
        finished = done.wait(seconds)
    except BaseException:  # KeyboardInterrupt while waiting: the caller gives up
        finished = False
        _abandon(state, lock, cleanup, abort)
        raise
    if finished:
        if "error" in state:
            raise state["error"]
        return state["value"]
    _abandon(state, lock, cleanup, abort)
    raise AttemptTimedOut(f"abandoned at its abort time, after {seconds:.3f} s")


def _abandon(state: Dict[str, Any], lock: Any, cleanup: Callable[[Any], Any], abort: Any) -> None:
    with lock:
        state["abandoned"] = True
        late = "value" in state
    if late:
        cleanup(state["value"])
    elif abort is not None:
        abort()
