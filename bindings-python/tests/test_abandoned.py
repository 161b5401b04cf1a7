"""Abandoned attempts leave nothing behind (issue 29 item 3): no thread, no socket, no task.

A server sends the response head one byte every 100 ms, so every attempt is abandoned at its abort time
while its read is still under way (each byte arrives within every read timeout: only the helper can stop it).
After N operations, the helper's worker threads, the process's open file descriptors and the event loop's
tasks must return to what they were before, within a bounded wait (polled; no bound on how long it took).
"""

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any, Callable, Iterator, Tuple

import httpx
import pytest
import requests

import retryplan
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

HELPERS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "helpers"
OPERATIONS = 4
POLICY = {
    "max_attempts": 2,
    # Room for the second attempt on a loaded machine (a late first abort must not leave it too little):
    # each operation still ends after its two attempts' 250 ms, attempts_exhausted.
    "total_timeout_ms": 2000,
    "attempt_timeout": {"fixed_ms": 250},
    "response_reserve_ms": 0,
    "minimum_useful_attempt_ms": 50,
    "backoff": {"kind": "constant", "base_ms": 20, "multiplier": 1.0, "cap_ms": 20},
    "jitter": {"kind": "none"},
}
DRIP = {  # a head of ~200 bytes at 10 bytes/s: 20 s, longer than the test
    "id": "drip",
    "description": "the head one byte every 100 ms",
    "policy": POLICY,
    "request": {"method": "GET"},
    "server": [{"status": 200, "body": "late", "headers": {"X-Padding": "p" * 160}, "drip_head_ms": 100}],
    "expect": {},
}

POOLED = {  # one quick answer (its connection goes back to the pool), then the trickle on that connection
    **DRIP,
    "id": "pooled",
    "description": "one answer, then the head one byte every 100 ms",
    "server": [{"status": 200, "body": "ok"}, *DRIP["server"]],
}

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    scenarios = tmp_path_factory.mktemp("abandoned") / "scenarios.json"
    scenarios.write_text(json.dumps({"scenarios": [DRIP, POOLED]}), encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, str(HELPERS / "server.py"), str(scenarios)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    line = server.stdout.readline()
    assert line.startswith("listening 127.0.0.1:"), line
    yield f"http://127.0.0.1:{int(line.rsplit(':', 1)[1])}/s/drip"  # /s/pooled beside it
    server.stdin.close()
    server.terminate()
    server.wait(timeout=10)


def counts() -> Tuple[int, int]:
    """The helpers' worker threads alive, and the process's open file descriptors."""
    workers = sum(1 for thread in threading.enumerate() if thread.name == "retryplan-attempt")
    return workers, len(os.listdir("/proc/self/fd"))


def settled(baseline: Tuple[int, int], now: Callable[[], Tuple[int, int]] = counts) -> Tuple[int, int]:
    """The counts once they are back to ``baseline`` (or after 10 s of polling: then the test fails on them)."""
    give_up = time.monotonic() + 10.0
    seen = now()
    while (seen[0] > baseline[0] or seen[1] > baseline[1]) and time.monotonic() < give_up:
        time.sleep(0.05)
        seen = now()
    return seen


def each_gives_up(send: Callable[[], Any]) -> None:
    for _ in range(OPERATIONS):
        with pytest.raises(retryplan.GaveUpError) as raised:
            send()
        assert raised.value.attempts == 2  # both attempts were abandoned at their abort time


def test_requests_adapter_leaves_no_thread_or_socket(url: str) -> None:
    session = requests.Session()
    session.mount("http://", RetryAdapter(policy=retryplan.Policy.from_dict(POLICY)))
    baseline = counts()
    each_gives_up(lambda: session.get(url))
    session.close()
    left = settled(baseline)
    assert left[0] <= baseline[0] and left[1] <= baseline[1], f"threads, fds: {left} after, {baseline} before"


def test_sync_httpx_transport_leaves_no_thread_or_socket(url: str) -> None:
    client = httpx.Client(transport=RetryTransport(policy=retryplan.Policy.from_dict(POLICY)))
    baseline = counts()
    each_gives_up(lambda: client.get(url))
    client.close()
    left = settled(baseline)
    assert left[0] <= baseline[0] and left[1] <= baseline[1], f"threads, fds: {left} after, {baseline} before"


def test_async_httpx_transport_leaves_no_task_or_socket(url: str) -> None:
    async def main() -> None:
        client = httpx.AsyncClient(transport=AsyncRetryTransport(policy=retryplan.Policy.from_dict(POLICY)))
        me = asyncio.current_task()
        baseline = (len(asyncio.all_tasks() - {me}), counts()[1])
        for _ in range(OPERATIONS):
            with pytest.raises(retryplan.GaveUpError):
                await client.get(url)
        await client.aclose()
        give_up = time.monotonic() + 10.0
        seen = (len(asyncio.all_tasks() - {me}), counts()[1])
        while (seen[0] > baseline[0] or seen[1] > baseline[1]) and time.monotonic() < give_up:
            await asyncio.sleep(0.05)
            seen = (len(asyncio.all_tasks() - {me}), counts()[1])
        assert seen[0] <= baseline[0] and seen[1] <= baseline[1], f"tasks, fds: {seen} after, {baseline} before"

    asyncio.run(main())


@pytest.mark.parametrize("helper", ["requests", "sync httpx"])
def test_an_abandoned_attempt_on_a_reused_pooled_connection_leaves_nothing(url: str, helper: str) -> None:
    pooled = url.replace("/s/drip", "/s/pooled")
    urllib.request.urlopen(urllib.request.Request(url.replace("/s/drip", "/__reset"), method="POST"), timeout=5)
    policy = retryplan.Policy.from_dict(POLICY)
    client: Any
    if helper == "requests":
        client = requests.Session()
        client.mount("http://", RetryAdapter(policy=policy))
    else:
        client = httpx.Client(transport=RetryTransport(policy=policy))
    assert client.get(pooled).status_code == 200  # its connection is kept in the pool, and reused next
    baseline = counts()
    each_gives_up(lambda: client.get(pooled))
    left = settled(baseline)
    client.close()
    assert left[0] <= baseline[0] and left[1] <= baseline[1], f"threads, fds: {left} after, {baseline} before"


def test_async_httpx_an_abandoned_attempt_on_a_reused_pooled_connection_leaves_nothing(url: str) -> None:
    pooled = url.replace("/s/drip", "/s/pooled")
    urllib.request.urlopen(urllib.request.Request(url.replace("/s/drip", "/__reset"), method="POST"), timeout=5)

    async def main() -> None:
        client = httpx.AsyncClient(transport=AsyncRetryTransport(policy=retryplan.Policy.from_dict(POLICY)))
        assert (await client.get(pooled)).status_code == 200  # its connection is kept in the pool, and reused next
        me = asyncio.current_task()
        baseline = (len(asyncio.all_tasks() - {me}), counts()[1])
        for _ in range(OPERATIONS):
            with pytest.raises(retryplan.GaveUpError):
                await client.get(pooled)
        give_up = time.monotonic() + 10.0
        seen = (len(asyncio.all_tasks() - {me}), counts()[1])
        while (seen[0] > baseline[0] or seen[1] > baseline[1]) and time.monotonic() < give_up:
            await asyncio.sleep(0.05)
            seen = (len(asyncio.all_tasks() - {me}), counts()[1])
        await client.aclose()
        assert seen[0] <= baseline[0] and seen[1] <= baseline[1], f"tasks, fds: {seen} after, {baseline} before"

    asyncio.run(main())
