"""The shared helper scenarios (``tests/helpers/``) through both httpx transports and the requests adapter.

One local server (``tests/helpers/server.py``, a subprocess) plays each
scenario; each transport is used as a user would (a client, the policy read
from the scenario's JSON). The sync transport and the requests adapter run
one attempt at a time, so ``expect_sequential`` replaces ``expect`` where a
scenario has one; every Python helper follows redirects hop by hop, so
``expect_hop_by_hop`` replaces both where a scenario has one; their caller cancels with a KeyboardInterrupt (SIGALRM),
the async one cancels the task. Failures name the scenario and the transport.
"""

import asyncio
import json
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, Iterator, Optional, Tuple

import httpx
import pytest
import requests

import retryplan
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

HELPERS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "helpers"
SCENARIOS = json.loads((HELPERS / "scenarios.json").read_text(encoding="utf-8"))["scenarios"]


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = subprocess.Popen(
        [sys.executable, str(HELPERS / "server.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdin is not None
    line = server.stdout.readline()  # "listening 127.0.0.1:PORT"
    assert line.startswith("listening 127.0.0.1:"), line
    yield int(line.rsplit(":", 1)[1])
    server.stdin.close()  # the server stops when its stdin closes...
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:  # ...but on Python 3.12+ it first waits for open connections (a hang: 60 s)
        server.terminate()
        server.wait(timeout=10)


def control(port: int, method: str, path: str) -> Any:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def url_of(scenario: Dict[str, Any], port: int) -> str:
    host = scenario["request"].get("host", "server")
    if host == "invalid_dns":
        return f"http://retryplan-test.invalid:{port}/s/{scenario['id']}"
    if host == "closed_port":
        return f"http://127.0.0.1:{closed_port()}/s/{scenario['id']}"
    assert host == "server", host
    return f"http://127.0.0.1:{port}/s/{scenario['id']}"


def run_sync(scenario: Dict[str, Any], url: str, library: str = "httpx") -> Tuple[str, Any, float]:
    """Sends the scenario's request through RetryTransport (or a requests session with RetryAdapter mounted):
    ("returns", response) or ("raises", error), and the seconds it took (the client is made first, untimed,
    unless making it is what fails)."""
    started = time.monotonic()
    try:
        policy = retryplan.Policy.from_dict(scenario["policy"])
        client: Any
        if library == "requests":
            client = requests.Session()
            client.mount("http://", RetryAdapter(policy=policy))
        else:
            client = httpx.Client(transport=RetryTransport(policy=policy), follow_redirects=True)
    except retryplan.RetryplanError as refused:  # a policy this transport cannot run
        return "raises", refused, time.monotonic() - started
    cancel_after = scenario.get("caller", {}).get("cancel_after_ms")
    previous = signal.signal(signal.SIGALRM, _interrupt)
    started = time.monotonic()
    try:
        if cancel_after is not None:
            signal.setitimer(signal.ITIMER_REAL, cancel_after / 1000)
        request = scenario["request"]
        body = body_of(request)
        # A body the caller reads (read_body) is streamed: the call returns at the head (as fetch does), and the
        # read is the caller's; else httpx and requests read it in the call, which a cut body ends with an error.
        streamed = bool(expect_of(scenario, sequential=True).get("read_body"))
        if library == "requests":
            response = client.request(
                request["method"], url, data=body, headers=request.get("headers"), stream=streamed
            )
        else:
            built = client.build_request(request["method"], url, content=body, headers=request.get("headers"))
            response = client.send(built, stream=streamed)
        if streamed:
            read_body(response)
        return "returns", response, time.monotonic() - started
    except BaseException as error:  # KeyboardInterrupt too: the sync caller's cancellation
        return "raises", error, time.monotonic() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        client.close()


def body_of(request: Dict[str, Any]) -> Optional[bytes]:
    """The request's body: its text, or ``body_bytes`` bytes of ``x`` (a body still being sent when the server acts)."""
    if "body_bytes" in request:
        return b"x" * request["body_bytes"]
    body = request.get("body")
    return None if body is None else str(body).encode()


def expect_of(scenario: Dict[str, Any], sequential: bool) -> Dict[str, Any]:
    """What the scenario expects of a helper that runs one attempt at a time (``sequential``) or not; every Python
    helper follows redirects hop by hop (``_redirects.py``), so ``expect_hop_by_hop`` comes first."""
    if "expect_hop_by_hop" in scenario:
        hop_by_hop: Dict[str, Any] = scenario["expect_hop_by_hop"]
        return hop_by_hop
    expect: Dict[str, Any] = scenario.get("expect_sequential", scenario["expect"]) if sequential else scenario["expect"]
    return expect


def read_body(response: Any) -> None:
    """Reads the returned response's whole body as a caller would; an error while reading ends the read (the helper
    cut it)."""
    try:
        if isinstance(response, requests.Response):
            _ = response.content  # reading the property reads the body
        else:
            response.read()
    except Exception:
        pass


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run_async(scenario: Dict[str, Any], url: str) -> Tuple[str, Any, float]:
    """Sends the scenario's request through AsyncRetryTransport: ("returns", response) or ("raises", error), and
    the seconds it took (the client is made first, untimed)."""

    async def main() -> Tuple[str, Any, float]:
        policy = retryplan.Policy.from_dict(scenario["policy"])
        async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=policy), follow_redirects=True) as client:
            request = scenario["request"]
            started = time.monotonic()
            streamed = bool(expect_of(scenario, sequential=False).get("read_body"))  # as run_sync says
            built = client.build_request(
                request["method"], url, content=body_of(request), headers=request.get("headers")
            )
            task = asyncio.ensure_future(client.send(built, stream=streamed))
            cancel_after = scenario.get("caller", {}).get("cancel_after_ms")
            if cancel_after is not None:
                asyncio.get_running_loop().call_later(cancel_after / 1000, task.cancel)
            try:
                response = await task
                if streamed:
                    try:
                        await response.aread()
                    except Exception:  # the helper cut it: the read ends
                        pass
                return "returns", response, time.monotonic() - started
            except BaseException as error:  # CancelledError too: the async caller's cancellation
                return "raises", error, time.monotonic() - started

    return asyncio.run(main())


def check_result(expected: Dict[str, Any], kind: str, value: Any, label: str) -> None:
    ((want_kind, want),) = expected.items()
    assert kind == want_kind, f"{label}: expected it {want_kind}, it {kind} {value!r}"
    if kind == "returns":
        decision = getattr(value, "retryplan_decision", None) or value.extensions.get("retryplan_decision")
        assert value.status_code == want["status"], f"{label}: status {value.status_code}"
        assert decision is not None and decision.kind == want["ending"], f"{label}: ending {decision!r}"
        if "reason" in want:
            assert decision.reason == want["reason"], f"{label}: reason {decision.reason}"
    elif want.get("cancelled"):
        assert isinstance(value, (KeyboardInterrupt, asyncio.CancelledError)), f"{label}: raised {value!r}"
    elif "error" in want:
        assert isinstance(value, retryplan.RetryplanError), f"{label}: raised {value!r}"
        assert value.code == want["error"] and getattr(value, "field", None) == want["field"], f"{label}: {value!r}"
    else:
        assert isinstance(value, retryplan.OperationFailedError), f"{label}: raised {value!r}"
        assert value.code == want["ending"], f"{label}: raised {value.code}"
        if "reason" in want:
            assert value.reason == want["reason"], f"{label}: reason {value.reason}"


@pytest.mark.parametrize("transport", ["sync", "async", "requests"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario(port: int, scenario: Dict[str, Any], transport: str) -> None:
    label = f"{scenario['id']} ({transport})"
    expect = expect_of(scenario, sequential=transport in ("sync", "requests"))
    control(port, "POST", "/__reset")
    url = url_of(scenario, port)
    kind, value, seconds = run_async(scenario, url) if transport == "async" else run_sync(scenario, url, transport)
    elapsed_ms = seconds * 1000
    seen = control(port, "GET", f"/__log/{scenario['id']}")

    check_result(expect["result"], kind, value, label)
    count = expect["requests"]
    low, high = (count, count) if isinstance(count, int) else (count["min"], count["max"])
    assert low <= len(seen) <= high, f"{label}: {len(seen)} requests, expected {count}: {seen}"
    if "methods" in expect:
        assert [request["method"] for request in seen] == expect["methods"], f"{label}: methods seen {seen}"
    ids = [request["request_id"] for request in seen]
    assert all(ids) and len(set(ids)) == len(ids), f"{label}: request ids {ids}"
    keys = [request["idempotency_key"] for request in seen]
    if expect.get("idempotency_key") == "absent":
        assert keys == [None] * len(seen), f"{label}: keys {keys}"
    elif expect.get("idempotency_key") == "same":
        assert keys and keys[0] and keys == [keys[0]] * len(seen), f"{label}: keys {keys}"
    elif isinstance(expect.get("idempotency_key"), dict):
        exactly = expect["idempotency_key"]["exactly"]
        assert keys and keys == [exactly] * len(seen), f"{label}: keys {keys}, expected {exactly!r} on each"
    if "body" in expect:
        assert value.text == expect["body"], f"{label}: body {value.text!r}"
    bounds = expect["elapsed_ms"]
    assert bounds["min"] <= elapsed_ms <= bounds["max"], f"{label}: took {elapsed_ms:.0f} ms, expected {bounds}"
