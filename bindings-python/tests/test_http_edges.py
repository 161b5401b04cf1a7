"""What the HTTP helpers (httpx transports, requests adapter) do with bodies and header names a reviewer tried:
an unseekable file body, a failed body that breaks or trickles, header name options, a bytes-like body."""

import asyncio
import os
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Tuple

import httpx
import pytest
import requests
from server import FAST, Server, status
from urllib3.exceptions import ReadTimeoutError

import retryplan
from retryplan import ArgumentTypeError, GiveUpReason, InvalidArgumentError, Policy
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

KEYED = {**FAST, "idempotency": "keyed"}
ONE = {**FAST, "max_attempts": 1}  # the first failed response is returned at the end


def session(policy: Dict[str, Any], **options: Any) -> requests.Session:
    s = requests.Session()
    s.mount("http://", RetryAdapter(policy=Policy.from_dict(policy), **options))
    return s


# 1. requests: a body that cannot be rewound is sent once, as it comes


def pipe_with(data: bytes) -> Any:
    """A file over a pipe (unseekable: requests records no position to rewind to) holding ``data``."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return os.fdopen(r, "rb")


@pytest.mark.parametrize("policy", [FAST, KEYED], ids=["unkeyed", "keyed"])
def test_requests_sends_an_unseekable_file_body_once(server: Server, policy: Dict[str, Any]) -> None:
    server.script.queue(status(201))
    with session(policy) as s, pipe_with(b'{"sku": 3}') as body:
        response = s.post(server.url + "/orders", data=body)
    assert response.status_code == 201
    assert [seen["body"] for seen in server.script.seen] == [b'{"sku": 3}']


def test_requests_an_unseekable_file_body_is_not_sent_again(server: Server) -> None:
    server.script.queue(status(503), status(201))
    with session(KEYED) as s, pipe_with(b"abc") as body:
        response = s.post(server.url + "/orders", data=body)
    assert response.status_code == 503
    decision = response.retryplan_decision  # type: ignore[attr-defined]
    assert isinstance(decision, retryplan.GaveUp) and decision.reason is GiveUpReason.BODY_NOT_REPLAYABLE
    assert [seen["body"] for seen in server.script.seen] == [b"abc"]


# 2. a failed body returned at the end that breaks, or is not whole within its window


def serve_once(reply: bytes, hold: bool) -> Iterator[str]:
    """A server answering every request with ``reply``, then closing the connection (``hold``: keeping it open,
    silent, until the test ends)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    done = threading.Event()

    def run() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connection.recv(65536)
            connection.sendall(reply)
            if hold:
                done.wait()
            connection.close()

    threading.Thread(target=run, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    done.set()
    listener.close()


HEAD = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 16\r\n\r\nhello"  # 5 bytes of 16


@pytest.fixture
def broken() -> Iterator[str]:
    yield from serve_once(HEAD, hold=False)


@pytest.fixture
def trickling() -> Iterator[str]:
    yield from serve_once(HEAD, hold=True)


def read_httpx(url: str, transport: str) -> Tuple[int, List[bytes], BaseException]:
    """Sends a GET, streamed, through the httpx ``transport``: the status, the raw chunks read, the read's error."""
    policy = Policy.from_dict(ONE)
    chunks: List[bytes] = []
    if transport == "sync":
        with httpx.Client(transport=RetryTransport(policy=policy)) as c, c.stream("GET", url) as response:
            try:
                chunks.extend(response.iter_raw())
            except Exception as error:
                return response.status_code, chunks, error
    else:

        async def main() -> Tuple[int, List[bytes], BaseException]:
            async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as c:
                async with c.stream("GET", url) as response:
                    try:
                        async for chunk in response.aiter_raw():
                            chunks.append(chunk)
                    except Exception as error:
                        return response.status_code, chunks, error
            raise AssertionError("the read ended without an error")

        return asyncio.run(main())
    raise AssertionError(f"the read ended without an error: {chunks}")


@pytest.mark.parametrize("transport", ["sync", "async"])
def test_httpx_a_broken_failed_body_ends_its_read_with_httpxs_error(broken: str, transport: str) -> None:
    code, chunks, error = read_httpx(broken, transport)
    assert code == 503 and b"".join(chunks) == b"hello"  # the bytes that arrived, then the error plain httpx raises
    assert isinstance(error, httpx.RemoteProtocolError), repr(error)
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(ONE))) as c:
        with pytest.raises(httpx.RemoteProtocolError):  # read by the client (not streamed): raised by the call
            c.get(broken)


@pytest.mark.parametrize("transport", ["sync", "async"])
def test_httpx_a_failed_body_not_whole_within_its_window_ends_with_a_read_timeout(
    trickling: str, transport: str
) -> None:
    code, chunks, error = read_httpx(trickling, transport)
    assert code == 503 and b"".join(chunks) == b"hello"
    assert isinstance(error, httpx.ReadTimeout), repr(error)


def test_requests_a_broken_failed_body_ends_its_read_with_requests_error(broken: str) -> None:
    with session(ONE) as s:
        with pytest.raises(requests.exceptions.ChunkedEncodingError):  # as plain requests raises it
            s.get(broken)
        response = s.get(broken, stream=True)
        assert response.status_code == 503
        with pytest.raises(requests.exceptions.ChunkedEncodingError):
            _ = response.content


def test_requests_a_failed_body_not_whole_within_its_window_ends_with_a_read_timeout(trickling: str) -> None:
    with session(ONE) as s:
        response = s.get(trickling, stream=True)
        assert response.status_code == 503
        with pytest.raises(requests.exceptions.ConnectionError) as raised:  # requests' error for a body read timeout
            _ = response.content
    assert isinstance(raised.value.args[0], ReadTimeoutError)


LARGE = 3 << 20  # a failed body three times what the helpers read ahead (READ_AHEAD_BYTES)


@pytest.fixture
def large() -> Iterator[Tuple[str, threading.Event]]:
    """A server answering 503 with a LARGE body: half of it at once, the rest only once the test sets the event."""
    body = bytes(range(256)) * (LARGE // 256)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    release = threading.Event()

    def run() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            try:
                connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: %d\r\n\r\n" % LARGE)
                connection.sendall(body[: LARGE // 2])
                release.wait(10)
                connection.sendall(body[LARGE // 2 :])
            except OSError:  # the client cut the body at its window and closed the connection
                pass

    threading.Thread(target=run, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/", release
    release.set()
    listener.close()


def whole(chunks: List[bytes]) -> bool:
    return b"".join(chunks) == bytes(range(256)) * (LARGE // 256)


@pytest.mark.parametrize("transport", ["sync", "async"])
def test_httpx_reads_ahead_only_the_start_of_a_large_failed_body(
    large: Tuple[str, threading.Event], transport: str
) -> None:
    """The call returns once 1 MiB arrived (the rest still held back by the server: reading it all ahead would wait
    out the window and end in a read timeout, or hold a huge body in memory), and the caller reads every byte."""
    url, release = large
    policy, chunks = Policy.from_dict(ONE), []  # type: Policy, List[bytes]
    if transport == "sync":
        with httpx.Client(transport=RetryTransport(policy=policy)) as c, c.stream("GET", url) as response:
            release.set()
            chunks.extend(response.iter_raw())
            code = response.status_code
    else:

        async def main() -> int:
            async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as c:
                async with c.stream("GET", url) as response:
                    release.set()
                    async for chunk in response.aiter_raw():
                        chunks.append(chunk)
                    return response.status_code

        code = asyncio.run(main())
    assert code == 503 and whole(chunks)


def test_requests_reads_ahead_only_the_start_of_a_large_failed_body(large: Tuple[str, threading.Event]) -> None:
    url, release = large
    with session(ONE) as s:
        response = s.get(url, stream=True)
        release.set()
        assert response.status_code == 503 and whole(list(response.iter_content(65536)))


@pytest.mark.parametrize("transport", ["sync", "async", "requests"])
def test_the_rest_of_a_large_failed_body_is_cut_at_its_window_too(
    large: Tuple[str, threading.Event], transport: str
) -> None:
    """Not streamed, the client reads the rest in the call: the server holds it back 10 s, and the read still ends at
    the attempt's window (300 ms) with the library's read timeout, as the read-ahead itself would."""
    url, _ = large
    started = time.monotonic()
    if transport == "requests":
        with session(ONE) as s, pytest.raises(requests.exceptions.ConnectionError) as raised:
            s.get(url)
        assert isinstance(raised.value.args[0], ReadTimeoutError)
    elif transport == "sync":
        with (
            httpx.Client(transport=RetryTransport(policy=Policy.from_dict(ONE))) as c,
            pytest.raises(httpx.ReadTimeout),
        ):
            c.get(url)
    else:

        async def main() -> None:
            async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=Policy.from_dict(ONE))) as c:
                with pytest.raises(httpx.ReadTimeout):
                    await c.get(url)

        asyncio.run(main())
    assert time.monotonic() - started < 5, "cut at the window, not after the server's 10 s"


def test_requests_raw_read_returns_at_most_what_is_asked(large: Tuple[str, threading.Event]) -> None:
    url, release = large
    with session(ONE) as s:
        response = s.get(url, stream=True)
        release.set()
        first = response.raw.read(8192)
        rest = b"".join(iter(lambda: response.raw.read(65536), b""))
    assert len(first) == 8192 and whole([first, rest])


# 3. header name options


def headers_sent(policy: str, **options: Any) -> List[Dict[str, str]]:
    """The headers of each request a RetryTransport made with ``options`` sends for a POST under profile ``policy``."""
    seen: List[Dict[str, str]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.headers))
        return httpx.Response(201)

    transport = RetryTransport(httpx.MockTransport(answer), policy=Policy.from_profile(policy), **options)
    with httpx.Client(transport=transport) as c:
        c.post("http://retryplan.test/orders", content=b"x")
    return seen


def test_a_header_name_option_renames_the_header_and_the_key_travels_once() -> None:
    (sent,) = headers_sent("checkout", idempotency_key_header="X-Key", request_id_header="X-Trace")
    assert sent["x-key"] and "idempotency-key" not in sent
    assert sent["x-trace"] and "x-request-id" not in sent


def test_a_header_name_option_of_none_leaves_the_header_out() -> None:
    (sent,) = headers_sent("checkout", idempotency_key_header=None, request_id_header=None)
    assert "idempotency-key" not in sent and "x-request-id" not in sent


def test_requests_header_name_options_of_none_send_the_request(server: Server) -> None:
    server.script.queue(status(201))
    with session(KEYED, idempotency_key_header=None, request_id_header=None) as s:
        assert s.post(server.url + "/orders", data=b"x").status_code == 201
    (seen,) = server.script.seen
    assert "idempotency-key" not in seen["headers"] and "x-request-id" not in seen["headers"]


@pytest.mark.parametrize("option", ["request_id_header", "idempotency_key_header"])
@pytest.mark.parametrize(
    ("make", "name"), [(RetryTransport, "httpx"), (AsyncRetryTransport, "httpx async"), (RetryAdapter, "requests")]
)
def test_a_header_name_option_that_is_empty_or_not_a_str_is_refused(
    option: str, make: Callable[..., Any], name: str
) -> None:
    policy = Policy.from_profile("read")
    with pytest.raises(InvalidArgumentError) as empty:
        make(policy=policy, **{option: ""})
    assert empty.value.field == option, name
    with pytest.raises(ArgumentTypeError) as wrong:
        make(policy=policy, **{option: b"X-Key"})
    assert wrong.value.field == option, name


# 5. bytes-like bodies


@pytest.mark.parametrize("policy", [FAST, KEYED], ids=["unkeyed", "keyed"])
def test_httpx_a_bytearray_content_is_refused_before_anything_is_sent(server: Server, policy: Dict[str, Any]) -> None:
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(policy))) as c:
        with pytest.raises(TypeError) as raised:  # the caller's invalid request, not "the write may have happened"
            c.post(server.url + "/orders", content=bytearray(b"x"))
    assert isinstance(raised.value, ArgumentTypeError) and raised.value.field == "content"
    assert server.script.seen == []


@pytest.mark.parametrize("body", [bytearray(b"xy"), memoryview(b"xy")], ids=["bytearray", "memoryview"])
def test_requests_a_bytes_like_body_is_sent_again(server: Server, body: Any) -> None:
    server.script.queue(status(503), status(201))
    with session(KEYED) as s:
        assert s.post(server.url + "/orders", data=body).status_code == 201
    assert [seen["body"] for seen in server.script.seen] == [b"xy", b"xy"]


# 6. the request's own Idempotency-Key: the whitespace around it is not part of it (RFC 9110 §5.5), inside it is


def send(library: str, url: str, method: str = "GET", body: Any = None, headers: Any = None) -> Any:
    """The response to ``method url`` (with ``body`` and ``headers``) through ``library``'s helper under FAST."""
    policy = Policy.from_dict(FAST)
    if library == "requests":
        with session(FAST) as s:
            return s.request(method, url, data=body, headers=headers)
    if library == "httpx":
        with httpx.Client(transport=RetryTransport(policy=policy)) as c:
            return c.request(method, url, content=body, headers=headers)

    async def main() -> Any:
        async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as c:
            return await c.request(method, url, content=body, headers=headers)

    return asyncio.run(main())


LIBRARIES = ["requests", "httpx", "httpx_async"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_whitespace_around_a_requests_own_key_is_not_part_of_it(server: Server, library: str) -> None:
    """The key is the field value without the spaces and tabs around it, as fetch's Headers and OkHttp give it to
    the JS and Kotlin helpers: the POST is keyed by order-77 and sends exactly that (the core's rule, one for every
    language; requests refuses a value that starts with whitespace itself, so its value only ends with some)."""
    server.script.queue(("drop", None), status(201))
    value = "order-77 \t" if library == "requests" else "\t order-77 "
    response = send(library, server.url + "/orders", "POST", b"x", {"Idempotency-Key": value})
    assert response.status_code == 201
    assert [seen["headers"]["idempotency-key"] for seen in server.script.seen] == ["order-77"] * 2


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("value", ["order 77", "order\t77"], ids=["space", "tab"])
def test_a_bare_key_with_whitespace_inside_is_refused_before_anything_is_sent(
    server: Server, library: str, value: str
) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        send(library, server.url + "/orders", "POST", b"x", {"Idempotency-Key": value})
    assert raised.value.field == "Idempotency-Key"
    assert server.script.seen == []


# 7. a status that is no HTTP status


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_interim_103_before_the_answer_is_read_past_or_is_a_malformed_response(server: Server, library: str) -> None:
    """httpx reads past a 103 Early Hints to the answer. requests' http.client returns the 103 as the answer (plain
    requests too), leaving the answer unread: the core reads an interim status handed in as the answer as a malformed
    response, so the GET is retried and the ending says what came back, rather than a 103 returned as a success."""
    server.script.queue(*[("early_hints", 200)] * 4)
    if library != "requests":
        response = send(library, server.url + "/hints")
        assert (response.status_code, response.content) == (200, b"status 200")
        assert len(server.script.seen) == 1
        return
    with pytest.raises(retryplan.GaveUpError) as raised:
        send(library, server.url + "/hints")
    assert len(server.script.seen) == 4
    assert str(raised.value).endswith(
        "; the last response's status 103 is an interim answer (1xx), never the final one: read as a malformed "
        "response (the HTTP client returned it in place of the answer that follows it)"
    )
    server.script.queue(("early_hints", 200))
    assert requests.get(server.url + "/plain").status_code == 103  # what requests itself returns


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_ending_after_a_status_that_is_no_http_status_says_so(server: Server, library: str) -> None:
    """Each 999 is read as a malformed response (the server's fault, a lost connection: the response is closed); the
    GET is retried, and the ending says what came back, in the core's words (every language's)."""
    server.script.queue(*[status(999)] * 4)
    with pytest.raises(retryplan.GaveUpError) as raised:
        send(library, server.url + "/weird")
    assert len(server.script.seen) == 4
    assert str(raised.value) == (
        f"retryplan: GET {server.url}/weird: gave up after 4 attempts: attempts_exhausted; the last response's "
        "status 999 is no HTTP status (100..=599): read as a malformed response, the server's fault"
    )


# 4. the guidance headers of an httpx response, read once


def httpx_waits(*retry_after_lines: str) -> List[float]:
    """The waits a RetryTransport slept before retrying a 503 whose ``Retry-After`` came on these field lines."""
    answers = iter(
        [httpx.Response(503, headers=[("Retry-After", line) for line in retry_after_lines]), httpx.Response(200)]
    )
    slept: List[float] = []
    now = [0.0]  # a fake clock the sleep moves on

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    policy = Policy(backoff={"kind": "constant", "base_ms": 10, "cap_ms": 10}, jitter={"kind": "none"})
    mock = httpx.MockTransport(lambda request: next(answers))
    transport = RetryTransport(mock, policy=policy, sleep=sleep, clock=lambda: now[0])
    with httpx.Client(transport=transport) as c:
        assert c.get("http://retryplan.test/").status_code == 200
    return slept


def test_httpx_guidance_is_read_as_httpx_reads_a_header_several_lines_joined() -> None:
    assert httpx_waits("1") == [1.0]  # sent as Retry-After, read: the server's 1 s
    # Two lines are one value, "1, 2", as httpx's own get joins them: no delay-seconds, so no guidance (the backoff's
    # 10 ms), never one of the two.
    assert httpx_waits("1", "2") == [0.01]
