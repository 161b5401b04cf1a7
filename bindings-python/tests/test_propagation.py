"""Propagation across two local hops: a client calls hop 1 (an ASGI app served by uvicorn, or a WSGI app under
wsgiref, each behind retryplan.propagation's middleware) on 127.0.0.1, whose handler calls hop 2 (the scripted
server of tests/server.py) through the HTTP helpers (httpx async and sync, requests). Every propagated value is
the core's; these tests check that each travels: the caller's deadline bounds hop 1's attempts, the key and
"a layer above retries" go on to hop 2, the caller's retries make hop 1 try once, a malformed header is a 400,
and a give-up for overload answers "do not retry"."""

import asyncio
import json
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Tuple
from wsgiref.simple_server import WSGIRequestHandler, make_server

import httpx
import pytest
import requests
from server import Server, status

import retryplan
from retryplan import CallerError, GiveUpReason, IncomingContext, InvalidRequestHeaderError, Policy
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.propagation import AsgiMiddleware, WsgiMiddleware, current
from retryplan.requests import RetryAdapter

uvicorn = pytest.importorskip("uvicorn")

#: Hop 1's policy toward hop 2: three attempts, 5 s each, a 1 ms backoff (no wall-clock wait to speak of).
HOP1 = {
    "max_attempts": 3,
    "total_timeout_ms": 10000,
    "attempt_timeout": {"fixed_ms": 5000},
    "response_reserve_ms": 50,
    "minimum_useful_attempt_ms": 10,
    "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1},
    "jitter": {"kind": "none"},
}
#: What the middleware reads with: the default propagation section (20 ms reserved for the way back).
SERVER_POLICY = Policy.from_dict({})


def seen_by(hop2: Server) -> List[Dict[str, str]]:
    return [request["headers"] for request in hop2.script.seen]


# --- hop 1 as ASGI under uvicorn ---------------------------------------------------------------------------


def asgi_app(hop2: Server) -> Any:
    """A plain ASGI app: GET /call calls hop 2 through the async httpx transport and answers hop 2's status,
    with the ambient context it ran under as JSON."""
    policy = Policy.from_dict(HOP1)

    async def app(scope: Dict[str, Any], receive: Any, send: Any) -> None:
        served = current()
        assert served is not None
        async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as client:
            answer = await client.get(hop2.url + "/work")
        body = json.dumps(served.incoming.to_dict()).encode()
        await send(
            {
                "type": "http.response.start",
                "status": answer.status_code,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return AsgiMiddleware(app, policy=SERVER_POLICY)


class Uvicorn:
    """uvicorn serving ``app`` on an ephemeral 127.0.0.1 port, in a thread."""

    def __init__(self, app: Any) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:  # startup, not a timing under test
            assert self.thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.005)

    @property
    def url(self) -> str:
        host, port = self.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()


@pytest.fixture
def hop2() -> Iterator[Server]:
    server = Server()
    yield server
    server.close()


@pytest.fixture
def asgi_hop1(hop2: Server) -> Iterator[str]:
    served = Uvicorn(asgi_app(hop2))
    yield served.url
    served.close()


# --- hop 1 as WSGI under wsgiref -----------------------------------------------------------------------------


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


def wsgi_app(hop2: Server) -> Any:
    """A WSGI app: /requests calls hop 2 through the requests adapter, /httpx through the sync httpx transport."""
    policy = Policy.from_dict(HOP1)

    def app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        served = current()
        assert served is not None
        if environ["PATH_INFO"] == "/requests":
            with requests.Session() as session:
                session.mount("http://", RetryAdapter(policy=policy))
                code = session.get(hop2.url + "/work").status_code
        else:
            with httpx.Client(transport=RetryTransport(policy=policy)) as client:
                code = client.get(hop2.url + "/work").status_code
        start_response(f"{code} Answer", [("Content-Type", "application/json")])
        yield json.dumps(served.incoming.to_dict()).encode()  # a lazy body: it runs in the request's context too

    return WsgiMiddleware(app, policy=SERVER_POLICY)


@pytest.fixture
def wsgi_hop1(hop2: Server) -> Iterator[str]:
    httpd = make_server("127.0.0.1", 0, wsgi_app(hop2), handler_class=_Quiet)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


HOP1_PATHS = [("asgi", "/call"), ("wsgi", "/requests"), ("wsgi", "/httpx")]


@pytest.fixture(params=HOP1_PATHS, ids=["asgi-httpx-async", "wsgi-requests", "wsgi-httpx-sync"])
def hop1(request: Any, hop2: Server) -> Iterator[str]:
    kind, path = request.param
    fixture = "asgi_hop1" if kind == "asgi" else "wsgi_hop1"
    yield request.getfixturevalue(fixture) + path


# --- the tests -------------------------------------------------------------------------------------------------


def test_caller_context_travels_and_a_retrying_caller_gets_one_attempt(hop1: str, hop2: Server) -> None:
    """The caller retries (?1) and has 1000 ms: hop 1 tries hop 2 once (retry_layer outermost), its attempt's
    timeout is cut to at most 1000 - 20 (way back) - 50 (response reserve) = 930 ms instead of its policy's
    5000, and hop 2 sees the caller's key and "a layer above retries"."""
    hop2.script.queue(status(503), status(200))
    sent = {"retryplan-timeout-ms": "1000", "retryplan-caller-retries": "?1", "idempotency-key": "order-5001"}
    answer = httpx.get(hop1, headers=sent, timeout=10)
    assert answer.status_code == 503  # handed back for the caller to retry: hop 2 was asked once
    assert "retryplan-retryable" not in answer.headers  # one attempt, not an overload retried: no "do not retry"
    incoming = answer.json()
    assert (incoming["caller_remaining_ns"], incoming["deadline_header"]) == (1_000_000_000, "retryplan-timeout-ms")
    assert (incoming["idempotency_key"], incoming["caller_retries"]) == ("order-5001", True)
    (seen,) = seen_by(hop2)
    assert seen["idempotency-key"] == "order-5001"
    assert (seen["retryplan-attempt"], seen["retryplan-caller-retries"]) == ("1", "?1")
    assert 0 < int(seen["retryplan-timeout-ms"]) <= 930


def test_overload_retried_answers_do_not_retry_upward(hop1: str, hop2: Server) -> None:
    """A caller that does not retry leaves hop 1 its three attempts; three 429s end attempts_exhausted after
    retrying an overload, which the core answers "do not retry": hop 1's response carries
    retryplan-retryable ?0. Each attempt tells hop 2 its number and that a layer above (hop 1) retries."""
    hop2.script.queue(status(429), status(429), status(429))
    answer = httpx.get(hop1, timeout=10)
    assert answer.status_code == 429
    assert answer.headers["retryplan-retryable"] == "?0"
    seen = seen_by(hop2)
    assert [headers["retryplan-attempt"] for headers in seen] == ["1", "2", "3"]
    assert {headers["retryplan-caller-retries"] for headers in seen} == {"?1"}
    assert all(0 < int(headers["retryplan-timeout-ms"]) <= 5000 for headers in seen)


def test_next_hops_do_not_retry_is_read_and_passed_up(hop1: str, hop2: Server) -> None:
    """Hop 2 answers 503 with retryplan-retryable ?0: hop 1 does not retry it (server_declined_retry, read by
    the core from the response) and answers its own caller "do not retry" too."""
    hop2.script.queue(status(503, {"retryplan-retryable": "?0"}), status(200))
    answer = httpx.get(hop1, timeout=10)
    assert answer.status_code == 503
    assert len(hop2.script.seen) == 1
    assert answer.headers["retryplan-retryable"] == "?0"


def test_a_success_answers_nothing_extra(hop1: str, hop2: Server) -> None:
    hop2.script.queue(status(503), status(200))
    answer = httpx.get(hop1, headers={"grpc-timeout": "3S"}, timeout=10)
    assert answer.status_code == 200 and "retryplan-retryable" not in answer.headers
    assert answer.json()["deadline_header"] == "grpc-timeout"
    assert [headers["retryplan-attempt"] for headers in seen_by(hop2)] == ["1", "2"]
    assert all(int(headers["retryplan-timeout-ms"]) <= 3000 - 20 - 50 for headers in seen_by(hop2))


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("grpc-timeout", "1.5S"),
        ("retryplan-attempt", "0"),
        ("x-envoy-expected-rq-timeout-ms", "-1"),
        ("retryplan-caller-retries", "yes"),
    ],
)
def test_a_malformed_propagation_header_is_a_400_naming_it(hop1: str, hop2: Server, header: str, value: str) -> None:
    answer = httpx.get(hop1, headers={header: value}, timeout=10)
    assert answer.status_code == 400
    assert header in answer.text
    assert hop2.script.seen == []  # the app never ran


def test_a_malformed_idempotency_key_is_a_400(hop1: str, hop2: Server) -> None:
    answer = httpx.get(hop1, headers={"idempotency-key": ""}, timeout=10)
    assert answer.status_code == 400 and "Idempotency-Key" in answer.text
    assert hop2.script.seen == []


OUTER_KINDS = ["httpx-sync", "httpx-async", "requests"]


def outer_send(kind: str, policy: Policy, method: str, url: str) -> Tuple[Any, Any]:
    """One request through an outgoing helper called outside any served request: the response it returns, and
    the decision attached to it."""
    if kind == "httpx-sync":
        with httpx.Client(transport=RetryTransport(policy=policy)) as client:
            response = client.request(method, url)
        return response, response.extensions["retryplan_decision"]
    if kind == "httpx-async":

        async def send() -> httpx.Response:
            async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as client:
                return await client.request(method, url)

        response = asyncio.run(send())
        return response, response.extensions["retryplan_decision"]
    with requests.Session() as session:
        session.mount("http://", RetryAdapter(policy=policy))
        answer = session.request(method, url)
    return answer, answer.retryplan_decision  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", OUTER_KINDS)
def test_outside_a_served_request_helpers_send_the_cores_headers_on_every_attempt(hop2: Server, kind: str) -> None:
    """No ambient context: the driver starts without one, yet every attempt still tells the next hop its
    remaining time, its number and that this layer retries (the core's outgoing headers), so a next hop under
    ``retry_layer: outermost`` does not retry too. A safe read carries no key."""
    assert current() is None
    hop2.script.queue(status(503), status(200))
    response, decision = outer_send(kind, Policy.from_dict(HOP1), "GET", hop2.url + "/plain")
    assert response.status_code == 200 and isinstance(decision, retryplan.Succeeded)
    seen = seen_by(hop2)
    assert [headers["retryplan-attempt"] for headers in seen] == ["1", "2"]
    assert {headers["retryplan-caller-retries"] for headers in seen} == {"?1"}
    assert all(0 < int(headers["retryplan-timeout-ms"]) <= 5000 for headers in seen)
    assert all("idempotency-key" not in headers for headers in seen)
    assert current() is None  # the helper made no ambient context


@pytest.mark.parametrize("kind", OUTER_KINDS)
def test_outside_a_served_request_a_helper_that_cannot_retry_says_so(hop2: Server, kind: str) -> None:
    """One attempt allowed: the next hop is told nobody above retries (?0), so its own retries are the ones."""
    hop2.script.queue(status(200))
    response, _ = outer_send(kind, Policy.from_dict({**HOP1, "max_attempts": 1}), "GET", hop2.url + "/plain")
    assert response.status_code == 200
    (seen,) = seen_by(hop2)
    assert (seen["retryplan-attempt"], seen["retryplan-caller-retries"]) == ("1", "?0")


@pytest.mark.parametrize("kind", OUTER_KINDS)
def test_two_hops_the_outer_client_retries_and_the_last_hop_sees_its_attempts_not_their_product(
    hop1: str, hop2: Server, kind: str
) -> None:
    """The outer client (outside any served request, three attempts, keyed) posts to hop 1, whose handler
    calls hop 2 with a policy of three attempts too. Told "a layer above retries", hop 1 makes one attempt per
    request: hop 2 sees the outer policy's three attempts, not 3 x 3, each under the outer client's key."""
    assert current() is None
    hop2.script.queue(*[status(503)] * 9)  # enough for the product: a regression shows as 9 requests
    outer = Policy.from_dict({**HOP1, "idempotency": "keyed"})
    response, decision = outer_send(kind, outer, "POST", hop1)
    assert response.status_code == 503
    assert isinstance(decision, retryplan.GaveUp) and decision.reason is GiveUpReason.ATTEMPTS_EXHAUSTED
    assert decision.attempts == 3
    seen = seen_by(hop2)
    assert [headers["retryplan-attempt"] for headers in seen] == ["1", "1", "1"]  # one inner attempt each
    assert {headers["retryplan-caller-retries"] for headers in seen} == {"?1"}
    key = response.json()["idempotency_key"]  # what hop 1 read from the outer client's last attempt
    assert key and {headers["idempotency-key"] for headers in seen} == {key}
    assert all(0 < int(headers["retryplan-timeout-ms"]) <= 5000 - 20 - 50 for headers in seen)


def test_several_field_lines_arrive_joined_and_are_refused(hop2: Server) -> None:
    """ASGI hands each field line apart; the middleware joins them with ", " as the core expects, so two
    retryplan-timeout-ms lines are one malformed value (a 400), never the first or the last silently."""
    sent: List[Tuple[str, Any]] = []

    async def send(message: Dict[str, Any]) -> None:
        sent.append((message["type"], message.get("status", "")))

    async def app(scope: Any, receive: Any, send: Any) -> None:  # never reached
        raise AssertionError("the app ran")

    middleware = AsgiMiddleware(app, policy=SERVER_POLICY)
    scope = {"type": "http", "headers": [(b"retryplan-timeout-ms", b"100"), (b"retryplan-timeout-ms", b"200")]}
    asyncio.run(middleware(scope, None, send))
    assert sent[0] == ("http.response.start", 400)


def test_two_idempotency_key_lines_joined_by_a_wsgi_server_are_refused(wsgi_hop1: str, hop2: Server) -> None:
    """wsgiref (as gunicorn) joins a field's lines with a bare ",": two Idempotency-Key lines reach the
    middleware as ``order-5001,order-5002``, which names no one key: a 400, as ASGI and Node answer the same
    two lines, never a third key made of both sent on downstream."""
    port = int(wsgi_hop1.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(
            b"GET /httpx HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            b"Idempotency-Key: order-5001\r\nIdempotency-Key: order-5002\r\n\r\n"
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 400") or answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"Idempotency-Key" in answer
    assert seen_by(hop2) == []  # the app never ran


def test_incoming_context_is_opaque_to_the_host_and_read_by_the_core() -> None:
    """The typed API: a refused header raises InvalidRequestHeaderError naming it, a CallerError (the caller sent
    it, not a server: never a ServerDataError); a context starts a driver whose headers the core writes."""
    with pytest.raises(InvalidRequestHeaderError) as refused:
        IncomingContext.read(SERVER_POLICY, {"grpc-timeout": "12345678901S"}, now_ms=0)
    assert refused.value.header == "grpc-timeout"
    assert (refused.value.code, refused.value.blame, refused.value.kind) == (
        "invalid_request_header",
        "caller",
        "out_of_range",
    )
    assert isinstance(refused.value, CallerError) and not isinstance(refused.value, retryplan.ServerDataError)
    incoming = IncomingContext.read(
        SERVER_POLICY, {"retryplan-timeout-ms": "1000", "retryplan-attempt": "2"}, now_ms=500
    )
    assert (incoming.previous_attempts, incoming.caller_retries, incoming.deadline_ms(SERVER_POLICY)) == (1, True, 1480)
    driver = retryplan.Driver(Policy.from_dict(HOP1), now_ms=500, seed=7, incoming=incoming)
    plan = driver.poll_action(now_ms=500)
    assert isinstance(plan, retryplan.AttemptPlan) and plan.timeout_ms == 930
    assert driver.outgoing_headers(1, now_ms=500) == {
        "retryplan-timeout-ms": "930", "retryplan-attempt": "1", "retryplan-caller-retries": "?1",
    }  # fmt: skip
    with pytest.raises(retryplan.InvalidArgumentError):
        driver.outgoing_headers(1, now_ms=500, protocol="smtp")  # type: ignore[call-overload]


def test_under_starlette_async_and_threadpool_endpoints_share_the_request_context(hop2: Server) -> None:
    """Starlette's ``add_middleware``: an async endpoint (the httpx async transport) and a sync one, which
    Starlette runs in its threadpool with a copy of the request's context (the requests adapter), both see the
    caller's context; each gives up on an overload it retried, and the response says "do not retry"."""
    applications = pytest.importorskip("starlette.applications")
    responses = pytest.importorskip("starlette.responses")
    routing = pytest.importorskip("starlette.routing")
    policy = Policy.from_dict({**HOP1, "max_attempts": 2})

    async def with_httpx(request: Any) -> Any:
        async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy)) as client:
            answer = await client.get(hop2.url + "/work")
        served = current()
        assert served is not None
        return responses.JSONResponse(served.incoming.to_dict(), status_code=answer.status_code)

    def with_requests(request: Any) -> Any:
        served = current()
        assert served is not None
        with requests.Session() as session:
            session.mount("http://", RetryAdapter(policy=policy))
            code = session.get(hop2.url + "/work").status_code
        return responses.JSONResponse(served.incoming.to_dict(), status_code=code)

    app = applications.Starlette(
        routes=[routing.Route("/httpx", with_httpx), routing.Route("/requests", with_requests)]
    )
    app.add_middleware(AsgiMiddleware, policy=SERVER_POLICY)
    served = Uvicorn(app)
    try:
        for path in ("/httpx", "/requests"):
            hop2.script.seen.clear()
            hop2.script.queue(status(503), status(503))
            answer = httpx.get(served.url + path, headers={"idempotency-key": "order-7"}, timeout=10)
            assert answer.status_code == 503, path
            assert answer.headers["retryplan-retryable"] == "?0", path
            assert answer.json()["idempotency_key"] == "order-7", path
            seen = seen_by(hop2)
            assert [(h["retryplan-attempt"], h["idempotency-key"]) for h in seen] == [
                ("1", "order-7"),
                ("2", "order-7"),
            ], path
        answer = httpx.get(served.url + "/httpx", headers={"retryplan-timeout-ms": "soon"}, timeout=10)
        assert answer.status_code == 400 and "retryplan-timeout-ms" in answer.text
    finally:
        served.close()


def _ended(status: int, headers: Dict[str, str]) -> retryplan.Ending:
    """The ending of a one-attempt operation whose attempt was answered ``status`` with ``headers``."""
    driver = retryplan.Driver(Policy.from_dict({"jitter": {"kind": "none"}, "max_attempts": 1}), now_ms=0, seed=7)
    driver.poll_action(now_ms=0)
    driver.handle_response(attempt=1, status=status, headers=headers, now_ms=10, now_unix_ms=0)
    ending = driver.poll_action(now_ms=10)
    assert isinstance(ending, retryplan.Ending)
    return ending


def test_served_answer_is_the_cores_the_last_give_up_decides() -> None:
    """``Served`` hands each helper's ending to the core's ``propagation::Answer``: a give-up told "do not retry"
    sets it, a later success leaves it, a later give-up that says nothing replaces it."""
    served = retryplan.propagation.Served(IncomingContext.none(now_ms=0))
    assert served.answer == {}
    served.ended(_ended(503, {"retryplan-retryable": "?0"}))
    assert served.answer == {"retryplan-retryable": "?0"}
    served.ended(_ended(200, {}))
    assert served.answer == {"retryplan-retryable": "?0"}
    served.ended(_ended(500, {}))
    assert served.answer == {}
