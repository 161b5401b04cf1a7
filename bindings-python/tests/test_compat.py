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
from retryplan.compat import DEFAULT_TOTAL_TIMEOUT_MS, RetryNotMappable, from_urllib3  # noqa: E402


def with_retry_after_max(seconds: float):
    """A Retry with `retry_after_max` (urllib3 2.6+; set on older ones, where from_urllib3 reads it the same way)."""
    retry = Retry()
    retry.retry_after_max = seconds
    return retry


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
        (lambda: Retry(backoff_jitter=0.0005), "backoff_jitter"),
        (lambda: Retry(allowed_methods=["GET", "PROPFIND"]), "allowed_methods"),
        (lambda: Retry(allowed_methods=["get"]), "allowed_methods"),
        (lambda: Retry(status_forcelist=[304]), "status_forcelist"),
        (lambda: Retry(status_forcelist=[503.5]), "status_forcelist"),
        (lambda: Retry(backoff_factor=float("nan")), "backoff_factor"),
        (lambda: Retry(backoff_factor=1e300, backoff_max=float("inf")), "backoff_factor"),
        (lambda: Retry(backoff_jitter=float("inf")), "backoff_jitter"),
        (lambda: with_retry_after_max(float("nan")), "retry_after_max"),
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


def test_defaults_are_stated_and_the_budget_is_the_callers():
    config = from_urllib3(Retry()).to_dict()
    assert config["total_timeout_ms"] == DEFAULT_TOTAL_TIMEOUT_MS == 86_400_000
    assert config["attempt_timeout"] == {"fraction_of_remaining": 1.0}
    assert config["response_reserve_ms"] == 0 and config["minimum_useful_attempt_ms"] == 0
    assert from_urllib3(Retry(), total_timeout_ms=5_000).to_dict()["total_timeout_ms"] == 5_000


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: from_urllib3(3), "retry"),  # type: ignore[arg-type]
        (lambda: from_urllib3(None), "retry"),  # type: ignore[arg-type]
        (lambda: from_urllib3(Retry(), total_timeout_ms="5s"), "total_timeout_ms"),  # type: ignore[arg-type]
        (lambda: from_urllib3(Retry(), total_timeout_ms=True), "total_timeout_ms"),
        (lambda: from_urllib3(Retry(total="3")), "Retry.total"),  # type: ignore[arg-type]
        (lambda: from_urllib3(Retry(backoff_factor="1")), "Retry.backoff_factor"),  # type: ignore[arg-type]
        (lambda: from_urllib3(Retry(status_forcelist=["503"])), "Retry.status_forcelist"),  # type: ignore[list-item]
        (lambda: from_urllib3(Retry(allowed_methods=[1])), "Retry.allowed_methods"),  # type: ignore[list-item]
    ],
)
def test_wrong_types_raise_type_error_naming_the_argument(call, name):
    with pytest.raises(TypeError) as caught:
        call()
    assert name in str(caught.value)


def test_allowed_methods_false_is_every_method_as_urllib3_reads_it():
    assert (
        from_urllib3(Retry(allowed_methods=False)).to_dict()["retry_methods"]
        == from_urllib3(Retry(allowed_methods=None)).to_dict()["retry_methods"]
    )


def test_integral_float_statuses_are_kept_and_2xx_is_polled():
    assert from_urllib3(Retry(total=3, status_forcelist=[503.0])).to_dict()["retry_on"]["http_statuses"] == [
        413,
        429,
        503,
    ]
    policy = from_urllib3(Retry(total=3, status_forcelist=[202]))
    assert decisions(policy, [Outcome.http_status(202), Outcome.http_status(202), Outcome.success()])[:2] == [
        ("wait", 0),
        ("wait", 0),
    ]


def test_negative_total_means_no_retry():
    assert from_urllib3(Retry(total=-1)).to_dict()["max_attempts"] == 1
    assert from_urllib3(Retry(total=None, connect=-1)).to_dict()["retry_limits"] == {"connect": 0}


def test_backoff_jitter_is_added_on_top_then_capped():
    config = from_urllib3(Retry(total=5, backoff_factor=0.2, backoff_jitter=0.5, status_forcelist=[500])).to_dict()
    assert config["jitter"] == {"kind": "additive", "max_ms": 500}
    policy = from_urllib3(Retry(total=5, backoff_factor=0.2, backoff_jitter=0.5, backoff_max=1, status_forcelist=[500]))
    seen = decisions(policy, [Outcome.http_status(500)] * 4)
    assert seen[0] == ("wait", 0), "urllib3 returns 0 before adding jitter on the first retry"
    assert 400 <= seen[1][1] <= 900 and 800 <= seen[2][1] <= 1000, seen


def test_huge_or_infinite_backoff_follows_urllib3s_min():
    # min(backoff_max, 1e300 * 2^k) is backoff_max: every wait after the first is the cap.
    policy = from_urllib3(Retry(total=3, backoff_factor=1e300, status_forcelist=[500]), total_timeout_ms=10**9)
    assert decisions(policy, [Outcome.http_status(500)] * 3) == [("wait", 0), ("wait", 120_000), ("wait", 120_000)]
    no_cap = from_urllib3(Retry(total=3, backoff_factor=0.5, backoff_max=float("inf"), status_forcelist=[500]))
    assert no_cap.to_dict()["backoff"]["cap_ms"] == 2**53 - 1
    assert from_urllib3(with_retry_after_max(float("inf"))).to_dict()["server_guidance"]["cap_ms"] == 2**53 - 1


def test_the_old_names_of_the_total_timeout_are_read_for_one_release():
    import retryplan.compat as compat

    with pytest.warns(DeprecationWarning, match="DEFAULT_TOTAL_BUDGET_MS is renamed DEFAULT_TOTAL_TIMEOUT_MS"):
        assert compat.DEFAULT_TOTAL_BUDGET_MS == DEFAULT_TOTAL_TIMEOUT_MS
    with pytest.warns(DeprecationWarning, match="total_budget_ms is renamed total_timeout_ms"):
        assert from_urllib3(Retry(), total_budget_ms=5000).total_timeout_ms == 5000
    with pytest.raises(TypeError, match="both total_timeout_ms and its old name total_budget_ms"):
        from_urllib3(Retry(), total_timeout_ms=5000, total_budget_ms=5000)
    assert from_urllib3(Retry()).total_timeout_ms == DEFAULT_TOTAL_TIMEOUT_MS


def test_a_refusal_chains_the_cores_error_with_every_violation():
    from retryplan import ConfigViolationsError

    with pytest.raises(RetryNotMappable) as caught:
        from_urllib3(Retry(total=500, status_forcelist=[304]))
    assert caught.value.attribute == "total"
    cause = caught.value.__cause__
    assert isinstance(cause, ConfigViolationsError) and cause.config == "urllib3_retry"
    assert cause.fields == ("total", "status_forcelist")
    assert "status_forcelist (304)" in caught.value.reason


def test_an_attribute_an_older_urllib3_lacks_has_its_default():
    retry = Retry()
    del retry.retry_after_max, retry.backoff_jitter  # urllib3 before 2.0 (backoff_jitter) and 2.6 (retry_after_max)
    config = from_urllib3(retry).to_dict()
    assert config["server_guidance"]["cap_ms"] == 21_600_000
    assert config["jitter"] == {"kind": "none"}
