"""retryplan.compat.from_urllib3: a urllib3 Retry as a policy, or a typed refusal.

The expectations follow urllib3's own test suite (test/test_retry.py): the
counters (test_retry_both_specified, test_retry_read_zero, test_status_counter),
the backoff (test_backoff: 0, 0.4, 0.8, 1.6 s for factor 0.2), is_retry with
status_forcelist and allowed_methods, and Retry-After handling.
"""

import pytest

urllib3_retry = pytest.importorskip("urllib3.util.retry")
Retry = urllib3_retry.Retry

from retryplan import Operation, Outcome, Policy  # noqa: E402
from retryplan.compat import RetryNotMappable, from_urllib3  # noqa: E402


def decisions(policy: Policy, outcomes):
    """Runs `outcomes` through an operation (one per attempt) and lists the decisions' kinds and delays."""
    operation = Operation(policy, now_ms=0, seed=7)
    seen = []
    now = 0
    decision = operation.poll(now_ms=now)
    for outcome in outcomes:
        assert decision.to_dict()["type"] == "start_attempt", decision
        attempt = decision.to_dict()["attempt"]
        now += 10
        decision = operation.on_outcome(attempt=attempt, outcome=outcome, now_ms=now)
        d = decision.to_dict()
        if d["type"] == "wait":
            seen.append(("wait", d["delay_ms"]))
            now = d["until_ms"]
            decision = operation.poll(now_ms=now)
        elif d["type"] == "start_attempt":
            seen.append(("wait", 0))
        else:
            seen.append((d["type"], d.get("reason")))
            break
    return seen


def test_default_retry_maps_counts_and_methods():
    config = from_urllib3(Retry()).to_dict()
    assert config["max_attempts"] == 11  # total=10 retries
    assert config["retry_methods"] == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]
    assert config["retry_on"]["http_statuses"] == [413, 429, 503]
    rules = {rule["status"]: rule for rule in config["server_guidance"]["statuses"]}
    assert all(rules[status]["requires_guidance"] for status in (413, 429, 503))
    assert config["server_guidance"]["retry_after_reading"] == "lenient"
    assert config["server_guidance"]["cap_ms"] == 21_600_000
    assert "retry_limits" not in config


def test_backoff_shape_matches_test_backoff():
    policy = from_urllib3(Retry(total=50, backoff_factor=0.2, status_forcelist=[500]))
    seen = decisions(policy, [Outcome.http_status(500)] * 5)
    assert seen == [("wait", 0), ("wait", 400), ("wait", 800), ("wait", 1600), ("wait", 3200)]


def test_backoff_max_caps_even_below_the_factor():
    policy = from_urllib3(Retry(total=5, backoff_factor=2, backoff_max=1, status_forcelist=[500]))
    assert decisions(policy, [Outcome.http_status(500)] * 3) == [("wait", 0), ("wait", 1000), ("wait", 1000)]


def test_counters_both_specified():
    not_sent = Outcome.transport("not_sent")
    policy = from_urllib3(Retry(connect=3, total=2))
    assert decisions(policy, [not_sent] * 3)[-1] == ("gave_up", "attempts_exhausted")
    assert len(decisions(policy, [not_sent] * 3)) == 3
    policy = from_urllib3(Retry(connect=2, total=3))
    assert decisions(policy, [not_sent] * 3)[-1] == ("gave_up", "attempts_exhausted")


def test_read_zero_and_status_counter():
    lost = Outcome.transport("connection_lost")
    assert decisions(from_urllib3(Retry(read=0)), [lost]) == [("gave_up", "attempts_exhausted")]
    policy = from_urllib3(Retry(status=2, status_forcelist=[400]))
    assert decisions(policy, [Outcome.http_status(400)] * 3)[-1] == ("gave_up", "attempts_exhausted")


def test_retry_after_statuses_need_the_header():
    policy = from_urllib3(Retry(total=3))
    assert decisions(policy, [Outcome.http_status(503)]) == [("gave_up", "not_retryable")]
    assert decisions(policy, [Outcome.http_status(503, 3000), Outcome.success()])[0] == ("wait", 3000)


def test_respect_retry_after_header_false():
    config = from_urllib3(Retry(total=3, respect_retry_after_header=False, status_forcelist=[503])).to_dict()
    assert config["server_guidance"]["honor"] is False
    assert config["retry_on"]["http_statuses"] == [503]
    assert "statuses" not in config["server_guidance"]


def test_allowed_methods_none_is_every_method():
    config = from_urllib3(Retry(allowed_methods=None)).to_dict()
    assert "POST" in config["retry_methods"] and "PATCH" in config["retry_methods"]


def test_total_false_and_zero_make_one_attempt():
    assert from_urllib3(Retry(total=False)).to_dict()["max_attempts"] == 1
    assert from_urllib3(Retry(0)).to_dict()["max_attempts"] == 1
    assert from_urllib3(Retry(total=None, connect=2)).to_dict()["retry_limits"] == {"connect": 2}


@pytest.mark.parametrize(
    "retry, attribute",
    [
        (lambda: Retry(backoff_jitter=0.5), "backoff_jitter"),
        (lambda: Retry(allowed_methods=["GET", "PROPFIND"]), "allowed_methods"),
        (lambda: Retry(status_forcelist=[200]), "status_forcelist"),
        (lambda: Retry(total=500), "total"),
        (lambda: Retry(redirect=5), "redirect"),
        (lambda: Retry(backoff_factor=0.0001), "backoff_factor"),
    ],
)
def test_refusals_name_the_attribute(retry, attribute):
    with pytest.raises(RetryNotMappable) as caught:
        from_urllib3(retry())
    assert caught.value.attribute == attribute
    assert caught.value.code == "retry_not_mappable"
    assert f"Retry.{attribute}" in str(caught.value)


def test_subclass_overriding_decisions_is_refused():
    class Custom(Retry):
        def is_retry(self, method, status_code, has_retry_after=False):  # noqa: ARG002
            return True

    with pytest.raises(RetryNotMappable) as caught:
        from_urllib3(Custom())
    assert caught.value.attribute == "is_retry"
