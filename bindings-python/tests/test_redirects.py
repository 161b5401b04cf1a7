"""Redirects inside the first request's budget (issue 29 item 7), for the requests adapter and both httpx transports.

The client still follows redirects itself (``allow_redirects``, ``follow_redirects``, ``max_redirects`` and
``response.history`` as its users know them); each hop after the first runs within the first request's deadline.
A fake clock, moved on by the client's response hook, stands for the time a slow hop takes: no wall-clock bound.
"""

import asyncio
import functools
from typing import Any, Dict, List

import httpx
import pytest
import requests
from fake_clock import FakeClock
from server import FAST, Server, status

from retryplan import GaveUpError, Policy
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

POLICY: Dict[str, Any] = {**FAST, "max_attempts": 3, "attempt_timeout": {"fixed_ms": 2000}}


def redirect(to: str) -> Any:
    return status(302, {"Location": to})


def session(clock: FakeClock, **hooks: Any) -> requests.Session:
    s = requests.Session()
    s.mount("http://", RetryAdapter(policy=Policy.from_dict(POLICY), clock=clock))
    s.hooks.update({name: [hook] for name, hook in hooks.items()})
    return s


# requests


def test_requests_a_hop_after_the_first_requests_deadline_gives_up(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), status(200))

    def slow(response: requests.Response, **kwargs: Any) -> None:
        clock.now += 5.0  # each hop "takes" 5 s: past the first request's 4 s total timeout

    with session(clock, response=slow) as s, pytest.raises(GaveUpError) as raised:
        s.get(server.url + "/a")
    assert [seen["path"] for seen in server.script.seen] == ["/a"]  # the second hop had no time left to start
    assert raised.value.attempts == 0


def test_requests_a_hop_is_known_under_a_wrapped_session_send(server: Server, monkeypatch: Any) -> None:
    """An instrumentation that wraps ``Session.send`` (as OpenTelemetry's does) leaves the hops known."""
    original = requests.Session.send

    @functools.wraps(original)
    def instrumented(self: requests.Session, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        return original(self, request, **kwargs)

    monkeypatch.setattr(requests.Session, "send", instrumented)
    test_requests_a_hop_after_the_first_requests_deadline_gives_up(server)


def test_requests_follows_within_the_budget_and_keeps_history_and_max_redirects(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), redirect("/c"), status(200))
    with session(clock) as s:
        response = s.get(server.url + "/a")
        assert response.status_code == 200 and [r.status_code for r in response.history] == [302, 302]
        assert [seen["path"] for seen in server.script.seen] == ["/a", "/b", "/c"]
        ids = [seen["headers"]["x-request-id"] for seen in server.script.seen]
        assert len(set(ids)) == 3
        s.max_redirects = 1
        server.script.queue(redirect("/b"), redirect("/c"), status(200))
        with pytest.raises(requests.TooManyRedirects):
            s.get(server.url + "/a")


def test_requests_a_redirect_not_followed_leaves_the_next_request_a_fresh_budget(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), status(200), redirect("/b"), status(200), redirect("/b"), status(200))
    with session(clock) as s:
        first = s.get(server.url + "/a", allow_redirects=False)
        assert first.status_code == 302 and first.is_redirect
        clock.now += 60.0  # long past the first request's deadline
        assert s.get(server.url + "/b").status_code == 200  # its own request: its own budget
        second = s.get(server.url + "/a", allow_redirects=False)
        clock.now += 60.0  # a redirect handed back and followed later, by hand, is a fresh operation (as in JS)
        assert s.send(second.next).status_code == 200  # type: ignore[arg-type]
        third = s.get(server.url + "/a", allow_redirects=False)
        clock.now += 60.0
        assert [r.status_code for r in s.resolve_redirects(third, third.request)] == [200]
    assert [seen["path"] for seen in server.script.seen] == ["/a", "/b", "/a", "/b", "/a", "/b"]


# httpx


def test_httpx_a_hop_after_the_first_requests_deadline_gives_up(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), status(200))

    def slow(response: httpx.Response) -> None:
        clock.now += 5.0

    transport = RetryTransport(policy=Policy.from_dict(POLICY), clock=clock)
    with httpx.Client(transport=transport, follow_redirects=True, event_hooks={"response": [slow]}) as c:
        with pytest.raises(GaveUpError):
            c.get(server.url + "/a")
    assert [seen["path"] for seen in server.script.seen] == ["/a"]


def test_httpx_async_a_hop_after_the_first_requests_deadline_gives_up(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), status(200))

    async def slow(response: httpx.Response) -> None:
        clock.now += 5.0

    async def main() -> None:
        transport = AsyncRetryTransport(policy=Policy.from_dict(POLICY), clock=clock)
        hooks = {"response": [slow]}
        async with httpx.AsyncClient(transport=transport, follow_redirects=True, event_hooks=hooks) as c:
            with pytest.raises(GaveUpError):
                await c.get(server.url + "/a")

    asyncio.run(main())
    assert [seen["path"] for seen in server.script.seen] == ["/a"]


def test_httpx_follows_within_the_budget_and_keeps_history(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), redirect("/c"), status(200))
    transport = RetryTransport(policy=Policy.from_dict(POLICY), clock=clock)
    with httpx.Client(transport=transport, follow_redirects=True, max_redirects=5) as c:
        response = c.get(server.url + "/a")
        assert response.status_code == 200 and [r.status_code for r in response.history] == [302, 302]
        paths: List[str] = [seen["path"] for seen in server.script.seen]
        assert paths == ["/a", "/b", "/c"]


def test_httpx_a_request_sent_again_or_a_redirect_followed_by_hand_is_a_fresh_operation(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), redirect("/b"), status(200))
    transport = RetryTransport(policy=Policy.from_dict(POLICY), clock=clock)
    with httpx.Client(transport=transport) as c:  # follow_redirects=False, httpx's default
        request = c.build_request("GET", server.url + "/a")
        first = c.send(request)
        assert first.status_code == 302 and first.next_request is not None
        clock.now += 60.0
        assert c.send(request).status_code == 302  # the same request again: a fresh total timeout, not a hop
        clock.now += 60.0  # a redirect handed back and followed later, by hand, is a fresh operation (as in JS)
        assert c.send(first.next_request).status_code == 200
    assert [seen["path"] for seen in server.script.seen] == ["/a", "/a", "/b"]


def test_httpx_async_a_redirect_followed_by_hand_is_a_fresh_operation(server: Server) -> None:
    clock = FakeClock()
    server.script.queue(redirect("/b"), status(200))

    async def main() -> None:
        transport = AsyncRetryTransport(policy=Policy.from_dict(POLICY), clock=clock)
        async with httpx.AsyncClient(transport=transport) as c:
            first = await c.get(server.url + "/a")
            assert first.status_code == 302 and first.next_request is not None
            clock.now += 60.0
            assert (await c.send(first.next_request)).status_code == 200

    asyncio.run(main())
    assert [seen["path"] for seen in server.script.seen] == ["/a", "/b"]


@pytest.mark.parametrize("library", ["requests", "httpx", "httpx_async"])
def test_a_keyed_write_redirected_307_keeps_its_key_on_the_next_hop(server: Server, library: str) -> None:
    server.script.queue(status(307, {"Location": "/b"}), status(201))
    policy = Policy.from_profile("checkout")  # keyed writes
    if library == "requests":
        with requests.Session() as s:
            s.mount("http://", RetryAdapter(policy=policy))
            assert s.post(server.url + "/a", data=b"x").status_code == 201
    elif library == "httpx":
        with httpx.Client(transport=RetryTransport(policy=policy), follow_redirects=True) as c:
            assert c.post(server.url + "/a", content=b"x").status_code == 201
    else:

        async def main() -> None:
            async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy), follow_redirects=True) as c:
                assert (await c.post(server.url + "/a", content=b"x")).status_code == 201

        asyncio.run(main())
    keys = [(seen["path"], seen["headers"].get("idempotency-key")) for seen in server.script.seen]
    assert [path for path, _ in keys] == ["/a", "/b"] and keys[0][1] and keys[0][1] == keys[1][1], keys


@pytest.mark.parametrize("library", ["requests", "httpx", "httpx_async"])
def test_a_hops_ending_names_the_request_the_caller_made(server: Server, library: str) -> None:
    """The next hop of a redirect runs as an operation of its own, named (in its ending and its log lines) by the
    request the caller made, as retryFetch and Kotlin's helpers name theirs (they follow redirects inside the
    attempt): the URL a user searches the logs for, the same words in every language."""
    server.script.queue(redirect("/b"), ("drop", None), ("drop", None), ("drop", None))  # /b: closed, unanswered
    policy = Policy.from_dict(POLICY)
    url = server.url + "/a"
    with pytest.raises(GaveUpError) as raised:
        if library == "requests":
            with requests.Session() as s:
                s.mount("http://", RetryAdapter(policy=policy))
                s.get(url)
        elif library == "httpx":
            with httpx.Client(transport=RetryTransport(policy=policy), follow_redirects=True) as c:
                c.get(url)
        else:

            async def main() -> None:
                async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy), follow_redirects=True) as c:
                    await c.get(url)

            asyncio.run(main())
    assert [seen["path"] for seen in server.script.seen] == ["/a", "/b", "/b", "/b"]
    assert str(raised.value) == f"retryplan: GET {url}: gave up after 3 attempts: attempts_exhausted"
