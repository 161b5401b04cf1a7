"""An HTTP helper's ``outcome_of_error`` that calls a raised error a success: the helper has no response to return.

The core refuses it when the result is handed in (``invalid_argument`` naming ``outcome_of_error``, in every
language), the error as the refusal's cause. The helpers crashed instead (``AttributeError`` on ``None``).
A function helper's success after an error still returns no value.
"""

import asyncio
from typing import Any

import pytest

import retryplan
from retryplan import InvalidArgumentError, Outcome, Policy

httpx = pytest.importorskip("httpx")
requests = pytest.importorskip("requests")

POLICY = Policy(max_attempts=2, total_timeout_ms=1000)


def success(error: BaseException) -> Outcome:
    return Outcome.success()


class Weird(Exception):
    """What the attempt raises."""


def refused(raised: Any) -> None:
    assert isinstance(raised.value, InvalidArgumentError), raised.value
    assert raised.value.field == "outcome_of_error"
    assert "answered a success for a thrown error" in str(raised.value)
    assert isinstance(raised.value.__cause__, Weird)


def test_httpx_transports() -> None:
    from retryplan.httpx import AsyncRetryTransport, RetryTransport

    class Raises(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            raise Weird()

    class AsyncRaises(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            raise Weird()

    client = httpx.Client(transport=RetryTransport(Raises(), policy=POLICY, outcome_of_error=success))
    with pytest.raises(InvalidArgumentError) as raised:
        client.get("http://example.test/")
    refused(raised)

    async def fetch() -> None:
        transport = AsyncRetryTransport(AsyncRaises(), policy=POLICY, outcome_of_error=success)
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get("http://example.test/")

    with pytest.raises(InvalidArgumentError) as raised:
        asyncio.run(fetch())
    refused(raised)


def test_requests_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    from retryplan.requests import RetryAdapter

    def send(*args: Any, **kwargs: Any) -> Any:
        raise Weird()

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)  # each attempt's send raises
    session = requests.Session()
    session.mount("http://", RetryAdapter(policy=POLICY, outcome_of_error=success))
    with pytest.raises(InvalidArgumentError) as raised:
        session.get("http://example.test/")
    refused(raised)


def test_a_function_helpers_success_after_an_error_still_returns_no_value() -> None:
    @retryplan.retry(POLICY, outcome_of_error=success)
    def attempt() -> int:
        raise Weird()

    assert attempt() is None
