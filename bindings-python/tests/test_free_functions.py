"""The core's free functions as core/mirrors writes them (functions_generated.rs): each kind of
argument spelt one way for every function."""

import inspect

import pytest

import retryplan
from retryplan import InvalidArgumentError, InvalidHeaderError


def test_a_clock_reading_is_seconds_or_ms_and_what_follows_it_is_keyword_only() -> None:
    assert str(inspect.signature(retryplan.admit)) == (
        "(deadline=None, now=None, *, reserve_ms, minimum_useful_ms, deadline_ms=None, now_ms=None)"
    )
    assert str(inspect.signature(retryplan.parse_retry_after)) == (
        "(value, now_unix=None, *, now_unix_ms=None, reading=None)"
    )
    with pytest.raises(TypeError):
        retryplan.remaining_ms(0.8, 0.5, 50)  # type: ignore[call-overload]
    with pytest.raises(InvalidArgumentError, match="pass either now_unix .seconds. or now_unix_ms"):
        retryplan.parse_rate_limit_reset("5", 1.0, now_unix_ms=1000)  # type: ignore[call-overload]
    with pytest.raises(InvalidArgumentError, match="`deadline`: is required"):
        retryplan.remaining_ms(now_ms=1, reserve_ms=0)  # type: ignore[call-overload]


def test_a_time_in_ms_has_the_cores_one_range_and_nanoseconds_any_u64() -> None:
    with pytest.raises(InvalidArgumentError, match="`timeout_ms`: must be a whole number of milliseconds"):
        retryplan.encode_grpc_timeout(2**53)
    assert retryplan.encode_grpc_timeout(2**53 - 1) == "99999999H"
    assert retryplan.encode_grpc_timeout_ns(2**64 - 1) == "5124095H"


def test_the_reading_defaults_to_the_cores_and_a_bad_header_raises() -> None:
    lenient_only = "Sun, 6 Nov 1994 08:49:37 +0000"
    with pytest.raises(InvalidHeaderError):
        retryplan.parse_http_date(lenient_only, now_unix_ms=0)
    assert retryplan.parse_http_date(lenient_only, now_unix_ms=0, reading="lenient") == 784_111_777_000
    with pytest.raises(InvalidArgumentError):
        retryplan.parse_http_date(lenient_only, now_unix_ms=0, reading="loose")  # type: ignore[call-overload]
    assert retryplan.aws_error_code_from_response(body='{"__type": "a#Throttling"}') == "Throttling"


def test_request_name_is_public_as_in_js_and_kotlin() -> None:
    """How the HTTP helpers name a request (JS's and Kotlin's ``requestName``): it was only in ``_native``."""
    assert "request_name" in retryplan.__all__
    assert (
        retryplan.request_name("GET", "https://user:secret@shop.test/cart?id=7#top")
        == "GET https://shop.test/cart?id=7"
    )
