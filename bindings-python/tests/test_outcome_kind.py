"""``Outcome.kind`` is the kind's name in the JSON schema (``to_dict()["type"]``), for every kind."""

import pytest

from retryplan import Outcome, Pushback

OUTCOMES = [
    Outcome.success(),
    Outcome.http_status(503, retry_after_ms=20, error_code="SlowDown"),
    Outcome.grpc_status("unavailable", Pushback.do_not_retry()),
    Outcome.transport("timed_out", retry_after_ms=5),
    Outcome.failure("dns_lookup_failed"),
    Outcome.application("not_retryable"),
    Outcome.cancelled(),
]


@pytest.mark.parametrize("outcome", OUTCOMES, ids=repr)
def test_kind_is_the_json_type(outcome: Outcome) -> None:
    assert outcome.kind == outcome.to_dict()["type"]
    assert repr(outcome).startswith(f"Outcome.{outcome.kind}")


def test_every_kind_is_covered() -> None:
    kinds = {outcome.kind for outcome in OUTCOMES}
    assert kinds == {"success", "http_status", "grpc_status", "transport", "application", "cancelled"}
