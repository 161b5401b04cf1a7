"""A plain dict of headers is read whatever the letter case of its keys (RFC 9110 §5.1: field names are
case-insensitive): ``dict(response.headers)`` and a hand-written ``{"Retry-After": "1"}`` are common inputs. Keys
that differ only in case are the field lines of one header, joined by ``", "`` as the core reads repeated lines."""

import time
from typing import Dict

import httpx
import pytest
import requests.structures

import retryplan
from retryplan import IncomingContext, Outcome, Policy

NOW_UNIX = 1_700_000_000.0


@pytest.mark.parametrize("name", ["Retry-After", "retry-after", "RETRY-AFTER", "rEtRy-AfTeR"])
def test_a_dict_is_read_whatever_the_case_of_its_keys(name: str) -> None:
    assert Outcome.from_http_response(503, {name: "1"}, now_unix=NOW_UNIX) == Outcome.http_status(503, 1000)
    assert retryplan.response_outcome({name: "1"}, 503) == Outcome.http_status(503, 1000)


def test_every_guidance_header_is_found_in_canonical_case() -> None:
    for name, value, ms in [
        ("Retry-After-Ms", "250", 250),
        ("X-Ms-Retry-After-Ms", "250", 250),
        ("X-Amz-Retry-After", "250", 250),
        ("Retry-After", "2", 2000),
    ]:
        assert Outcome.from_http_response(503, {name: value}, now_unix=NOW_UNIX) == Outcome.http_status(503, ms), name


def test_a_dict_holding_one_header_twice_in_two_cases_joins_them_as_repeated_lines() -> None:
    # "1, 2" is no Retry-After value (RFC 9110 allows one): the core reads the header as absent, as it does two
    # Retry-After lines that an HTTP library joined; it never picks one of the two.
    twice = {"Retry-After": "1", "retry-after": "2"}
    assert Outcome.from_http_response(503, twice, now_unix=NOW_UNIX) == Outcome.http_status(503)
    joined = httpx.Headers([("Retry-After", "1"), ("retry-after", "2")])
    assert Outcome.from_http_response(503, joined, now_unix=NOW_UNIX) == Outcome.http_status(503)
    # An incoming header the core reads as one value, sent twice, is refused as httpx's joined lines are.
    for request in (
        {"Retryplan-Timeout-Ms": "300", "retryplan-timeout-ms": "100"},
        httpx.Headers([("Retryplan-Timeout-Ms", "300"), ("retryplan-timeout-ms", "100")]),
    ):
        with pytest.raises(retryplan.InvalidRequestHeaderError, match='retryplan-timeout-ms.*got "300, 100"'):
            IncomingContext.read(Policy(), request, now_ms=0)


def test_the_case_insensitive_header_objects_still_answer_through_get() -> None:
    for headers in (
        httpx.Headers({"Retry-After": "1"}),
        requests.structures.CaseInsensitiveDict({"Retry-After": "1"}),
    ):
        assert Outcome.from_http_response(503, headers, now_unix=NOW_UNIX) == Outcome.http_status(503, 1000)


def test_a_dict_ignores_keys_that_are_not_headers_it_reads() -> None:
    headers: Dict[object, object] = {b"Retry-After": "1", 7: "x", "Content-Type": 3, "Retry-After": None}
    assert Outcome.from_http_response(503, headers, now_unix=NOW_UNIX) == Outcome.http_status(503)


def test_a_value_that_is_not_a_str_is_refused_whatever_the_case_of_its_key() -> None:
    with pytest.raises(retryplan.ArgumentTypeError, match="`headers`"):
        Outcome.from_http_response(503, {"Retry-After": 1}, now_unix=NOW_UNIX)


def test_the_driver_reads_a_canonical_retry_after_from_a_dict() -> None:
    policy = Policy.from_dict({"jitter": {"kind": "none"}, "total_timeout_ms": 120_000})
    driver = retryplan.Driver(policy, now_ms=0, seed=7)
    assert driver.poll_action(now_ms=0).kind == "start_attempt"
    driver.handle_response(attempt=1, status=429, headers={"Retry-After": "30"}, now_ms=10, now_unix=time.time())
    sleep = driver.poll_action(now_ms=10)
    assert isinstance(sleep, retryplan.Sleep)
    assert sleep.until_ms >= 10 + 30_000  # the server's 30 s, not the policy's backoff


def test_an_incoming_request_dict_in_canonical_case_gives_its_deadline_and_key() -> None:
    headers = {"Retryplan-Timeout-Ms": "100", "Idempotency-Key": "k1"}
    context = IncomingContext.read(Policy.from_profile("checkout"), headers, now_ms=0)
    assert context.caller_remaining_ns == 100_000_000
    assert context.idempotency_key == "k1"
