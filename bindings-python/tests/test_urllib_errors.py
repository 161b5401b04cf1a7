"""``urllib.request``'s errors in the failure table: an ``HTTPError`` is the response it is (status ``code``,
``headers``), a ``URLError`` is the error it wraps (``reason``). Against the scripted server on 127.0.0.1 with a
fake clock (no real sleeping), and with the errors built by hand."""

import email.message
import email.utils
import http.client
import socket
import ssl
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional

import pytest
from fake_clock import FakeClock
from server import Server, retry_after, status

import retryplan
from retryplan import GaveUpError, Outcome, Policy

POLICY = Policy(max_attempts=4, jitter={"kind": "none"})
NOW_UNIX = 1559559600.0


def http_error(code: int, headers: Optional[Dict[str, str]] = None) -> urllib.error.HTTPError:
    """An HTTPError as urllib.request makes one: its headers an http.client.HTTPMessage (an email Message)."""
    message: Optional[email.message.Message] = None
    if headers is not None:
        message = http.client.HTTPMessage()
        for name, value in headers.items():
            message[name] = value
    return urllib.error.HTTPError("http://127.0.0.1/x", code, "reason", message, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "code, headers",
    [
        (503, {"Retry-After": "2"}),
        (503, {"retry-after": "2"}),  # header names in any letter case, as a response's
        (429, {"Retry-After": "7", "Content-Type": "text/plain"}),
        (503, {}),
        (404, {}),
        (500, None),  # an HTTPError made by hand without headers
    ],
)
def test_an_http_error_is_read_as_the_response_it_is(code: int, headers: Optional[Dict[str, str]]) -> None:
    read = retryplan.default_outcome_of_exception(http_error(code, headers))
    assert read == Outcome.from_http_response(code, headers or {}, now_unix=NOW_UNIX)
    assert read.kind == "http_status"  # not the unknown error it was read as


def test_an_http_error_s_date_is_read_against_the_wall_clock() -> None:
    import time

    date = email.utils.formatdate(time.time() + 30, usegmt=True)  # whole seconds: 29 to 30 s from now
    read = retryplan.default_outcome_of_exception(http_error(503, {"Retry-After": date})).to_dict()
    assert read["status"] == 503 and 28_000 <= read["retry_after_ms"] <= 30_000, read


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(
    "reason, failure",
    [
        (ConnectionRefusedError(111, "Connection refused"), "connection_refused"),
        (socket.gaierror(-2, "Name or service not known"), "dns_lookup_failed"),
        (TimeoutError("timed out"), "read_timeout"),
        (ConnectionResetError(104, "reset"), "connection_lost"),
        (ssl.SSLCertVerificationError(1, "certificate verify failed"), "tls_handshake_failed"),
    ],
)
def test_a_url_error_is_read_as_its_reason(reason: BaseException, failure: str) -> None:
    assert retryplan.default_outcome_of_exception(urllib.error.URLError(reason)) == Outcome.failure(failure)


def test_a_url_error_with_other_words_stays_unknown() -> None:
    # No failure the table can name: the core's verdict for an unknown error.
    assert retryplan.default_outcome_of_exception(urllib.error.URLError("ftp error: 421")) == Outcome.application(
        retryplan.UNKNOWN_ERROR_VERDICT
    )


@pytest.mark.parametrize("url", ["htp://127.0.0.1/x", "http://", "https:///orders"])
def test_a_url_urllib_cannot_send_is_an_invalid_request_raised_unchanged_at_once(url: str) -> None:
    """urlopen's own words for a URL it cannot send ("unknown url type: htp", "no host given"), raised before any
    connection: the caller's invalid request, as httpx's InvalidURL and requests' MissingSchema are. One attempt, the
    URLError raised unchanged, never retried, never a POST's reconcile."""
    clock = FakeClock()
    calls: List[str] = []

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def post() -> bytes:
        calls.append(url)
        with urllib.request.urlopen(urllib.request.Request(url, data=b"order", method="POST"), timeout=5) as response:
            body: bytes = response.read()
            return body

    with pytest.raises(urllib.error.URLError) as raised:
        post()
    assert isinstance(raised.value.reason, str) and calls == [url] and clock.slept == []
    assert retryplan.default_outcome_of_exception(raised.value) == Outcome.application("not_retryable")


def test_urlopen_refused_is_a_refused_connection() -> None:
    with pytest.raises(urllib.error.URLError) as raised:
        urllib.request.urlopen(f"http://127.0.0.1:{_closed_port()}/x", timeout=5)
    assert retryplan.default_outcome_of_exception(raised.value) == Outcome.failure("connection_refused")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        body: bytes = response.read()
        return body


def test_retry_around_urlopen_waits_the_retry_after_of_a_503(server: Server) -> None:
    server.script.queue(retry_after("2"), status(200))
    clock = FakeClock()

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def fetch() -> bytes:
        return _get(server.url + "/item")

    assert fetch() == b"status 200"
    assert len(server.script.seen) == 2
    assert clock.slept == [2.0]  # the server's Retry-After, not the policy's backoff


def test_attempts_around_urlopen_wait_the_retry_after_of_a_429(server: Server) -> None:
    server.script.queue(retry_after("3", status=429), status(200))
    clock = FakeClock()
    bodies: List[Any] = []
    for attempt in retryplan.attempts(POLICY, seed=1, clock=clock, sleep=clock.sleep):
        with attempt:
            bodies.append(_get(server.url + "/item"))
    assert bodies == [b"status 200"] and clock.slept == [3.0]


def test_retry_around_urlopen_does_not_repeat_a_404(server: Server) -> None:
    server.script.queue(status(404))
    clock = FakeClock()

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def fetch() -> bytes:
        return _get(server.url + "/missing")

    with pytest.raises(GaveUpError) as raised:
        fetch()
    assert len(server.script.seen) == 1 and clock.slept == []
    assert isinstance(raised.value.__cause__, urllib.error.HTTPError) and raised.value.__cause__.code == 404
    assert raised.value.last_outcome == Outcome.from_http_response(404, {}, now_unix=NOW_UNIX)


def test_a_retried_http_error_s_response_is_closed_and_the_ending_s_stays_readable(server: Server) -> None:
    """The run drops a retried ``HTTPError`` as soon as the driver releases it, which closes its response (its
    socket) then, without waiting for the garbage collector's cycle pass; the error the ending raises from is the
    caller's, its body still readable."""
    import gc
    import weakref

    server.script.queue(status(503), status(503), status(503), status(503))
    clock = FakeClock()
    responses: List[Any] = []

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def fetch() -> bytes:
        try:
            return _get(server.url + "/busy")
        except urllib.error.HTTPError as error:
            responses.append(weakref.ref(error.fp))
            raise

    gc.disable()  # what is closed here is closed by the run letting go, not by a collection
    try:
        with pytest.raises(GaveUpError) as raised:
            fetch()
        assert len(responses) == 4
        assert all(response() is None or response().closed for response in responses[:3])
    finally:
        gc.enable()
    ending_error = raised.value.__cause__
    assert isinstance(ending_error, urllib.error.HTTPError) and ending_error.read() == b"status 503"


def test_retry_around_urlopen_retries_a_refused_connection_by_its_reason() -> None:
    clock = FakeClock()
    url = f"http://127.0.0.1:{_closed_port()}/x"

    @retryplan.retry(POLICY, seed=1, clock=clock, sleep=clock.sleep)
    def fetch() -> bytes:
        return _get(url)

    with pytest.raises(GaveUpError) as raised:
        fetch()
    assert raised.value.last_outcome == Outcome.failure("connection_refused")
    assert raised.value.reason == "attempts_exhausted" and len(clock.slept) == 3
