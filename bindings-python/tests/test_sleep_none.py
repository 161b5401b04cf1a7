"""``sleep=None`` is the helper's own sleep in every helper that takes one (``check_sleep`` accepts it so, and
``retry`` and ``AsyncRetryTransport`` always did): before, ``RetryTransport``, ``RetryAdapter``, ``attempts()`` and
``async_attempts()`` called None between attempts, a raw ``TypeError`` after the first request had gone out."""

import asyncio
import time
from typing import Any, Callable, List

import httpx
import pytest
import requests
from server import FAST, Server, status

import retryplan
from retryplan import Outcome, Policy
from retryplan._run import default_sleep
from retryplan.httpx import RetryTransport
from retryplan.requests import RetryAdapter


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> List[float]:
    """The waits of the helpers' default sleep (time.sleep, recorded, then slept: the policy's 20 ms)."""
    waits: List[float] = []
    real: Callable[[float], None] = time.sleep

    def recording(seconds: float) -> None:
        waits.append(seconds)
        real(seconds)

    monkeypatch.setattr(time, "sleep", recording)
    return waits


def test_retry_transport_with_sleep_none_sleeps_with_time_sleep(slept: List[float]) -> None:
    answers = iter([503, 200])
    mock = httpx.MockTransport(lambda request: httpx.Response(next(answers)))
    transport = RetryTransport(mock, policy=Policy.from_dict(FAST), sleep=None)
    with httpx.Client(transport=transport) as client:
        assert client.get("http://example.test/").status_code == 200
    assert slept and transport.sleep is default_sleep  # time.sleep, looked up when it sleeps


def test_retry_adapter_with_sleep_none_sleeps_with_time_sleep(server: Server, slept: List[float]) -> None:
    server.script.queue(status(503), status(200))
    adapter = RetryAdapter(policy=Policy.from_dict(FAST), sleep=None)
    with requests.Session() as session:
        session.mount("http://", adapter)
        assert session.get(server.url + "/x").status_code == 200
    assert len(server.script.seen) == 2 and slept


def test_attempts_with_sleep_none_sleeps_with_time_sleep(slept: List[float]) -> None:
    outcomes = iter([Outcome.http_status(503), Outcome.success()])
    for attempt in retryplan.attempts(Policy.from_dict(FAST), sleep=None):
        attempt.report(next(outcomes))
    assert slept


def test_async_attempts_with_sleep_none_sleeps_with_asyncio_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: List[float] = []
    real = asyncio.sleep

    async def recording(seconds: float, *args: Any) -> Any:
        waits.append(seconds)
        return await real(seconds, *args)

    monkeypatch.setattr(asyncio, "sleep", recording)

    async def loop() -> None:
        outcomes = iter([Outcome.http_status(503), Outcome.success()])
        async for attempt in retryplan.async_attempts(Policy.from_dict(FAST), sleep=None):
            attempt.report(next(outcomes))

    asyncio.run(loop())
    assert waits
