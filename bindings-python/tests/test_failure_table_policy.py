"""A response an attempt's error carries (httpx's ``HTTPStatusError``, requests' ``HTTPError``,
``urllib.error.HTTPError``) is read as the operation's policy reads responses: its ``server_guidance``
(which headers, which reading of ``Retry-After``), as the HTTP helpers read theirs. Before, the failure
table read every guidance header whatever the policy said: ``@retry`` under ``from_urllib3``'s policy
(``Retry-After`` alone) waited out a ``retry-after-ms`` urllib3 never reads."""

import http.client
import urllib.error
from typing import Any, Dict, List

import httpx
import pytest
import requests
from fake_clock import FakeClock

import retryplan
from retryplan import Policy

# urllib3's reading (server_guidance.headers "retry_after", what from_urllib3 sets) and every header (the default).
RETRY_AFTER_ALONE = Policy(
    max_attempts=2, jitter={"kind": "none"}, backoff={"kind": "constant", "base_ms": 10, "cap_ms": 10},
    server_guidance={"headers": "retry_after"},
)  # fmt: skip
EVERY_HEADER = Policy(
    max_attempts=2, jitter={"kind": "none"}, backoff={"kind": "constant", "base_ms": 10, "cap_ms": 10}
)
# A 503 whose retry-after-ms (2.5 s) is more precise than its Retry-After (1 s): urllib3 reads the latter alone.
HEADERS = {"Retry-After": "1", "retry-after-ms": "2500"}


def _httpx_error() -> BaseException:
    request = httpx.Request("GET", "http://127.0.0.1/x")
    return httpx.HTTPStatusError("503", request=request, response=httpx.Response(503, headers=HEADERS, request=request))


def _requests_error() -> BaseException:
    response = requests.Response()
    response.status_code = 503
    response.headers.update(HEADERS)
    return requests.HTTPError("503", response=response)


def _urllib_error() -> BaseException:
    message = http.client.HTTPMessage()
    for name, value in HEADERS.items():
        message[name] = value
    return urllib.error.HTTPError("http://127.0.0.1/x", 503, "busy", message, None)


ERRORS = [_httpx_error, _requests_error, _urllib_error]


@pytest.mark.parametrize("make_error", ERRORS)
@pytest.mark.parametrize("policy, wait", [(RETRY_AFTER_ALONE, 1.0), (EVERY_HEADER, 2.5)])
def test_retry_waits_as_its_policy_reads_the_error_s_response(make_error: Any, policy: Policy, wait: float) -> None:
    clock = FakeClock()
    calls: List[int] = []

    @retryplan.retry(policy, clock=clock, sleep=clock.sleep)
    def fetch() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise make_error()
        return "ok"

    assert fetch() == "ok"
    assert clock.slept == [wait]


@pytest.mark.parametrize("make_error", ERRORS)
@pytest.mark.parametrize("policy, wait", [(RETRY_AFTER_ALONE, 1.0), (EVERY_HEADER, 2.5)])
def test_an_attempt_loop_reads_a_raised_response_as_its_policy_does(
    make_error: Any, policy: Policy, wait: float
) -> None:
    clock = FakeClock()
    for attempt in retryplan.attempts(policy, clock=clock, sleep=clock.sleep):
        with attempt:
            if attempt.attempt == 1:
                raise make_error()
    assert clock.slept == [wait]


@pytest.mark.parametrize("make_error", ERRORS)
def test_the_table_s_public_readers_take_the_policy(make_error: Any) -> None:
    def wait(outcome: retryplan.Outcome) -> Any:
        read: Dict[str, Any] = outcome.to_dict()
        return read.get("retry_after_ms")

    error = make_error()
    assert wait(retryplan.default_outcome_of_exception(error, policy=RETRY_AFTER_ALONE)) == 1000
    assert wait(retryplan.default_outcome_of_exception(error)) == 2500  # no policy: every header
    assert wait(retryplan.response_outcome(HEADERS, 503, policy=RETRY_AFTER_ALONE)) == 1000
    assert wait(retryplan.response_outcome(HEADERS, 503)) == 2500
