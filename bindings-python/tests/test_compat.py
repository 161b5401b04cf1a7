"""retryplan.compat.from_urllib3: a urllib3 Retry as a policy, or a typed refusal.

The expectations follow urllib3's own test suite (test/test_retry.py): the
counters (test_retry_both_specified, test_retry_read_zero, test_status_counter),
the backoff (test_backoff: 0, 0.4, 0.8, 1.6 s for factor 0.2), is_retry with
status_forcelist and allowed_methods, and Retry-After handling. Below them, the
same cases run side by side with the installed urllib3 (SIDE_BY_SIDE), with the
documented deviations pinned one by one.
"""

import json
import pathlib
from unittest import mock

import pytest

urllib3_retry = pytest.importorskip("urllib3.util.retry")
Retry = urllib3_retry.Retry

from urllib3 import HTTPHeaderDict  # noqa: E402
from urllib3.exceptions import (  # noqa: E402
    ConnectTimeoutError,
    InvalidHeader,
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)
from urllib3.response import HTTPResponse  # noqa: E402

import retryplan  # noqa: E402
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
        (lambda: with_retry_after_statuses({502}), "RETRY_AFTER_STATUS_CODES"),
        (lambda: with_retry_after_statuses([413, 429, 502]), "RETRY_AFTER_STATUS_CODES"),
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


def test_an_instances_own_retry_after_codes_are_read_when_retry_new_carries_them():
    """The set matters as urllib3 reads it: the class's set written again on the instance (a list, as a set) changes
    nothing, and a subclass whose ``__init__`` sets it, which ``Retry.new()`` runs again, has it for every response."""
    same = Retry(3)
    same.RETRY_AFTER_STATUS_CODES = [503, 429, 413]
    assert from_urllib3(same).to_dict()["retry_on"]["http_statuses"] == [413, 429, 503]

    class SetsItItself(Retry):
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            self.RETRY_AFTER_STATUS_CODES = frozenset({429})

    assert from_urllib3(SetsItItself(3)).to_dict()["retry_on"]["http_statuses"] == [429]
    steps = [(429, "1"), (503, "1"), 200]
    assert policy_run(from_urllib3(SetsItItself(3)), GET, steps) == urllib3_run(SetsItItself(3), GET, steps)


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
        (lambda: from_urllib3("3"), "retry"),  # type: ignore[arg-type]
        (lambda: from_urllib3(2.5), "retry"),  # type: ignore[arg-type]
        (lambda: from_urllib3(object()), "retry"),  # type: ignore[arg-type]
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


# --- urllib3 itself, side by side -------------------------------------------------------------------------------
#
# Each case below is a case of urllib3's own test suite (the test function is named), run twice: once through urllib3's
# Retry as HTTPConnectionPool.urlopen drives it (is_retry, increment, sleep, with time.sleep and time.time mocked), once
# through the policy from_urllib3 makes, in a Driver given the same responses and the same exceptions (read by the
# helpers' failure table). Both must make the same attempts with the same waits.

#: 2019-06-03 11:00:00 UTC, the wall clock of urllib3's test_respect_retry_after_header_sleep.
NOW_UNIX_MS = 1_559_559_600_000

#: The exceptions urllib3's pool hands to Retry.increment, by a short name.
ERRORS = {
    "connect_timeout": lambda: ConnectTimeoutError("connect timed out"),
    "refused": lambda: NewConnectionError(None, "Failed to establish a new connection: [Errno 111] refused"),
    "dns": lambda: NameResolutionError("example.invalid", None, OSError("no such host")),
    "read_timeout": lambda: ReadTimeoutError(None, "/", "read timed out"),
    "protocol": lambda: ProtocolError("Connection aborted.", ConnectionResetError(104, "reset")),
    "ssl": lambda: SSLError("handshake failed"),
}


def _step(step):
    """A step as (status, headers) for a response, or (None, error name)."""
    if isinstance(step, int):
        return step, {}
    if isinstance(step, tuple):
        return step[0], step[1] if isinstance(step[1], dict) else {"Retry-After": step[1]}
    return None, step


class OnlyTooMany(Retry):
    """A Retry subclass that retries only a 429 for its Retry-After."""

    RETRY_AFTER_STATUS_CODES = frozenset({429})


def with_retry_after_statuses(statuses):
    """A Retry(3) whose own RETRY_AFTER_STATUS_CODES is ``statuses``: urllib3 reads it for the first response only
    (``Retry.new()`` makes the next Retry of the class), which no policy expresses."""
    retry = Retry(3)
    retry.RETRY_AFTER_STATUS_CODES = frozenset(statuses)
    return retry


def urllib3_run(retry, method, steps):
    """urllib3's loop (HTTPConnectionPool.urlopen) over `steps`, one per attempt: the waits in ms, then how many
    attempts it made (it stops when a response is not retried, the Retry is exhausted or an error is re-raised), or
    None when it would make one more."""
    waits = []
    with mock.patch("time.time", return_value=NOW_UNIX_MS / 1000), mock.patch("time.sleep") as sleep:
        for attempt, step in enumerate(steps, start=1):
            status, detail = _step(step)
            sleep.reset_mock()
            try:
                if status is None:
                    retry = retry.increment(method, "/", error=ERRORS[detail]())
                    retry.sleep()
                else:
                    response = HTTPResponse(status=status, headers=detail)
                    if not retry.is_retry(method, status, bool(response.headers.get("Retry-After"))):
                        return waits, attempt
                    retry = retry.increment(method, "/", response=response)
                    retry.sleep(response)
            except (MaxRetryError, InvalidHeader, ConnectTimeoutError, ReadTimeoutError, ProtocolError):
                return waits, attempt
            waits.append(round(sum(call.args[0] for call in sleep.call_args_list) * 1000))
    return waits, None  # another attempt


def policy_run(policy, method, steps, seed=7):
    """The policy's Driver over the same `steps`: the waits in ms, then how many attempts it made (or None)."""
    driver = retryplan.Driver(policy, now_ms=0, seed=seed, method=method, concurrency="sequential")
    now, waits = 0, []
    action = driver.poll_action(now_ms=now)
    for attempt, step in enumerate(steps, start=1):
        assert isinstance(action, retryplan.AttemptPlan) and action.attempt == attempt, action
        status, detail = _step(step)
        if status is None:
            outcome = retryplan.default_outcome_of_exception(ERRORS[detail]())
            driver.handle_result(now_ms=now, attempt=attempt, outcome=outcome)
        else:
            headers = HTTPHeaderDict(detail)  # what a urllib3 response carries: case-insensitive
            driver.handle_response(now_ms=now, attempt=attempt, status=status, headers=headers, now_unix_ms=NOW_UNIX_MS)
        action = driver.poll_action(now_ms=now)
        if isinstance(action, retryplan.Ending):
            return waits, attempt
        if isinstance(action, retryplan.Sleep):
            waits.append(action.until_ms - now)
            now = action.until_ms
            action = driver.poll_action(now_ms=now)
        else:
            waits.append(0)
    return waits, None  # another attempt


GET = "GET"
#: (urllib3's test function, the Retry, the method, one step per attempt: a status, (status, Retry-After),
#: (status, {header: value}) or an error).
SIDE_BY_SIDE = [
    ("test_retry.py::test_retry_both_specified", lambda: Retry(connect=3, total=2), GET, ["connect_timeout"] * 4),
    ("test_retry.py::test_retry_higher_total_loses", lambda: Retry(connect=2, total=3), GET, ["connect_timeout"] * 4),
    ("test_retry.py::test_retry_higher_total_loses_vs_read", lambda: Retry(read=2, total=3), GET, ["read_timeout"] * 4),
    ("test_retry.py::test_retry_total_none (connect)", lambda: Retry(connect=2, total=None), GET, ["refused"] * 4),
    (
        "test_retry.py::test_retry_total_none (read)",
        lambda: Retry(connect=2, total=None),
        GET,
        ["read_timeout"] * 3 + [200],
    ),
    ("test_retry.py::test_retry_default", lambda: Retry(connect=1), GET, ["connect_timeout"] * 3),
    ("test_retry.py::test_retry_default (not exhausted)", lambda: Retry(connect=1), GET, ["connect_timeout", 200]),
    ("test_retry.py::test_retry_read_zero", lambda: Retry(read=0), GET, ["read_timeout"] * 2),
    ("test_retry.py::test_status_counter", lambda: Retry(status=2, status_forcelist=[400]), GET, [400] * 4),
    (
        "test_retry.py::test_backoff",
        lambda: Retry(total=100, backoff_factor=0.2, status_forcelist=[500]),
        GET,
        [500] * 16,
    ),
    (
        "test_retry.py::test_configurable_backoff_max",
        lambda: Retry(total=100, backoff_factor=0.2, backoff_max=1, status_forcelist=[500]),
        GET,
        [500] * 7,
    ),
    ("test_retry.py::test_zero_backoff", lambda: Retry(status_forcelist=[500]), GET, [500] * 3 + [200]),
    (
        "test_retry.py::test_configurable_retry_after_max (6 h)",
        lambda: Retry(),
        GET,
        [(503, "21600"), (503, "21601"), 200],
    ),
    (
        "test_retry.py::test_configurable_retry_after_max (1 s)",
        lambda: with_retry_after_max(1),
        GET,
        [(503, "1"), (503, "2"), 200],
    ),
    (
        "test_retry.py::test_status_forcelist (range)",
        lambda: Retry(status_forcelist=range(500, 600)),
        GET,
        [500, 599, 400],
    ),
    ("test_retry.py::test_status_forcelist (200)", lambda: Retry(status_forcelist=range(500, 600)), GET, [200]),
    ("test_retry.py::test_status_forcelist (418)", lambda: Retry(total=1, status_forcelist=[418]), GET, [418, 400]),
    (
        "test_retry.py::test_allowed_methods_with_status_forcelist (None, GET)",
        lambda: Retry(status_forcelist=[500], allowed_methods=None),
        GET,
        [500, 200],
    ),
    (
        "test_retry.py::test_allowed_methods_with_status_forcelist (None, POST)",
        lambda: Retry(status_forcelist=[500], allowed_methods=None),
        "POST",
        [500, 200],
    ),
    (
        "test_retry.py::test_allowed_methods_with_status_forcelist (POST only, GET)",
        lambda: Retry(status_forcelist=[500], allowed_methods=["POST"]),
        GET,
        [500],
    ),
    (
        "test_retry.py::test_allowed_methods_with_status_forcelist (POST only, POST)",
        lambda: Retry(status_forcelist=[500], allowed_methods=["POST"]),
        "POST",
        [500, 200],
    ),
    ("test_retry.py::test_exhausted (Retry(0))", lambda: Retry(0), GET, ["connect_timeout"]),
    ("test_retry.py::test_disabled[-1]", lambda: Retry(-1), GET, [(503, "1")]),
    ("test_retry.py::test_disabled[0]", lambda: Retry(0, status_forcelist=[500]), GET, [500]),
    ("test_retry.py::test_retry_default (Retry(False))", lambda: Retry(False), GET, ["dns"]),
    (
        "test_retry.py::test_error_message (total 1)",
        lambda: Retry(total=1, status_forcelist=[500], allowed_methods=None),
        "POST",
        [500, 500],
    ),
    ("test_retry.py::test_retry_method_not_allowed", lambda: Retry(), "POST", ["read_timeout"]),
    ("test_retry.py::test_parse_retry_after[0]", lambda: Retry(), GET, [(503, "0"), 200]),
    ("test_retry.py::test_parse_retry_after[1000]", lambda: Retry(), GET, [(503, "1000"), 200]),
    ("test_retry.py::test_parse_retry_after[\\t42 ]", lambda: Retry(), GET, [(503, "\t42 "), 200]),
    ("test_retry.py::test_respect_retry_after_header_sleep[3600-True]", lambda: Retry(), GET, [(503, "3600"), 200]),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[3600-False]",
        lambda: Retry(respect_retry_after_header=False),
        GET,
        [(503, "3600")],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[12:00 UTC-True]",
        lambda: Retry(),
        GET,
        [(503, "Mon, 3 Jun 2019 12:00:00 UTC"), 200],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[12:00 UTC-False]",
        lambda: Retry(respect_retry_after_header=False),
        GET,
        [(503, "Mon, 3 Jun 2019 12:00:00 UTC")],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[11:00 UTC-True]",
        lambda: Retry(),
        GET,
        [(503, "Mon, 3 Jun 2019 11:00:00 UTC"), 200],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[IMF-fixdate]",
        lambda: Retry(),
        GET,
        [(503, "Mon, 03 Jun 2019 11:30:12 GMT"), 200],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[rfc850]",
        lambda: Retry(),
        GET,
        [(503, "Monday, 03-Jun-19 11:30:12 GMT"), 200],
    ),
    (
        "test_retry.py::test_respect_retry_after_header_sleep[asctime]",
        lambda: Retry(),
        GET,
        [(503, "Mon Jun  3 11:30:12 2019"), 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_connect_timeout",
        lambda: Retry(connect=0),
        GET,
        ["connect_timeout"],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_connection_error_retries",
        lambda: Retry(connect=3),
        GET,
        ["refused"] * 4,
    ),
    ("with_dummyserver/test_connectionpool.py::test_bad_connect", lambda: Retry.from_int(5), GET, ["refused"] * 6),
    ("with_dummyserver/test_connectionpool.py::test_dns_error", lambda: Retry.from_int(2), GET, ["dns"] * 3),
    (
        "with_dummyserver/test_connectionpool.py::test_read_retries",
        lambda: Retry(read=1, status_forcelist=[418]),
        GET,
        [418, 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_read_total_retries",
        lambda: Retry(total=1, status_forcelist=[418]),
        GET,
        [418, 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retries_wrong_forcelist",
        lambda: Retry(total=1, status_forcelist=[202]),
        GET,
        [418],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_default_method_forcelist_retried",
        lambda: Retry(total=1, status_forcelist=[418]),
        "OPTIONS",
        [418, 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retries_wrong_method_list",
        lambda: Retry(total=1, status_forcelist=[418], allowed_methods=["POST"]),
        GET,
        [418],
    ),
    ("with_dummyserver/test_connectionpool.py::test_read_retries_unsuccessful", lambda: Retry.from_int(1), GET, [418]),
    (
        "with_dummyserver/test_connectionpool.py::test_retry_return_in_response",
        lambda: Retry(total=2, status_forcelist=[418]),
        GET,
        [418, 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retry_after (429, retries=True)",
        lambda: Retry.from_int(True),
        GET,
        [(429, "1"), 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retry_after (503, retries=True)",
        lambda: Retry.from_int(True),
        GET,
        [(503, "1"), 200],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retry_after (429, retries=False)",
        lambda: Retry.from_int(False),
        GET,
        [(429, "1")],
    ),
    (
        "with_dummyserver/test_connectionpool.py::test_retry_after (418)",
        lambda: Retry.from_int(True),
        GET,
        [(418, "1")],
    ),
    (
        "with_dummyserver/test_poolmanager.py::test_raise_on_status",
        lambda: Retry(total=1, status_forcelist=range(500, 600)),
        GET,
        [500, 500],
    ),
    (
        "with_dummyserver/test_socketlevel.py::test_read_timeout_dont_retry_method_not_in_allowlist",
        lambda: Retry.from_int(True),
        "POST",
        ["read_timeout"],
    ),
    (
        "with_dummyserver/test_socketlevel.py::test_timeout_errors_cause_retries",
        lambda: Retry.from_int(1),
        GET,
        ["read_timeout", 200],
    ),
    (
        "with_dummyserver/test_socketlevel.py::test_retry_weird_http_version",
        lambda: Retry(read=1),
        GET,
        ["protocol", 200],
    ),
    (
        "with_dummyserver/test_socketlevel.py::test_pool_size_retry_drain_fail",
        lambda: Retry(total=1, raise_on_status=False, status_forcelist=[404]),
        GET,
        [404, 404],
    ),
    # Beyond urllib3's tests: is_exhausted reads every counter, so one below 0 ends the first retry of any kind.
    ("read=-1 ends a connect retry", lambda: Retry(total=3, read=-1), GET, ["connect_timeout", 200]),
    ("redirect=-1 ends a forced status retry", lambda: Retry(redirect=-1, status_forcelist=[500]), GET, [500, 200]),
    (
        "status=-1 beside total=None ends a connect retry",
        lambda: Retry(total=None, connect=3, status=-1),
        GET,
        ["refused"],
    ),
    # Beyond urllib3's tests: what an unreadable Retry-After does (urllib3 raises InvalidHeader, the policy gives up).
    ("test_retry.py::test_parse_retry_after_invalid[-1] on a 503", lambda: Retry(), GET, [(503, "-1")]),
    ("test_retry.py::test_parse_retry_after_invalid[1.0] on a 429", lambda: Retry(), GET, [(429, "1.0")]),
    # Beyond urllib3's tests: urllib3 reads Retry-After alone (is_retry, get_retry_after); the other guidance headers
    # the engine knows neither make a 413/429/503 retryable nor set the wait (server_guidance.headers: retry_after).
    (
        "X-RateLimit-Reset (a Unix time 3 s ahead) on a 429",
        lambda: Retry(3),
        GET,
        [(429, {"X-RateLimit-Reset": str(NOW_UNIX_MS // 1000 + 3)})],
    ),
    (
        "X-RateLimit-Remaining 0, X-RateLimit-Reset 2 on a 429",
        lambda: Retry(3),
        GET,
        [(429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2"})],
    ),
    ("retry-after-ms on a 503", lambda: Retry(3), GET, [(503, {"retry-after-ms": "2500"})]),
    (
        "x-ms-retry-after-ms and x-amz-retry-after on a 503",
        lambda: Retry(3),
        GET,
        [(503, {"x-ms-retry-after-ms": "2500", "x-amz-retry-after": "2500"})],
    ),
    ("RateLimit-Reset on a 429", lambda: Retry(3), GET, [(429, {"RateLimit-Reset": "2"})]),
    ("RateLimit r=0 on a 429", lambda: Retry(3), GET, [(429, {"RateLimit": '"default";r=0;t=2'})]),
    (
        "retry-after-ms on a forced 503 waits the backoff",
        lambda: Retry(total=3, status_forcelist=[503], backoff_factor=0.1),
        GET,
        [(503, {"retry-after-ms": "2500"}), (503, {"retry-after-ms": "2500"}), 200],
    ),
    (
        "Retry-After beside retry-after-ms is the wait",
        lambda: Retry(3),
        GET,
        [(503, {"Retry-After": "1", "retry-after-ms": "2500"}), 200],
    ),
    # is_retry reads self.RETRY_AFTER_STATUS_CODES: a subclass's set is the one retried, on every response (an
    # instance's own set, which Retry.new() does not carry to the next Retry, is refused: below).
    ("RETRY_AFTER_STATUS_CODES of a subclass: 503 not retried", lambda: OnlyTooMany(3), GET, [(503, "1"), 200]),
    ("RETRY_AFTER_STATUS_CODES of a subclass: 429 retried", lambda: OnlyTooMany(3), GET, [(429, "1"), 200]),
    ("RETRY_AFTER_STATUS_CODES of a subclass, twice", lambda: OnlyTooMany(3), GET, [(429, "1"), (429, "1"), 200]),
    ("RETRY_AFTER_STATUS_CODES of a subclass, then 503", lambda: OnlyTooMany(3), GET, [(429, "1"), (503, "1"), 200]),
]


@pytest.mark.parametrize(
    "retry, method, steps", [case[1:] for case in SIDE_BY_SIDE], ids=[case[0] for case in SIDE_BY_SIDE]
)
def test_the_policy_retries_as_urllib3_does(retry, method, steps):
    expected = urllib3_run(retry(), method, steps)
    assert policy_run(from_urllib3(retry()), method, steps) == expected


@pytest.mark.parametrize("seed", range(8))
def test_backoff_jitter_stays_in_urllib3s_ranges(seed):
    # test_retry.py::test_backoff_jitter: factor 0.2, backoff_max 1, jitter 0.4: 0, then 0.4-0.8, 0.8-1, 1, 1 s.
    retry = Retry(total=100, backoff_factor=0.2, backoff_max=1, backoff_jitter=0.4, status_forcelist=[500])
    waits, _ = policy_run(from_urllib3(retry), GET, [500] * 5, seed=seed)
    assert waits[0] == 0 and 400 <= waits[1] <= 800 and 800 <= waits[2] <= 1000 and waits[3:] == [1000, 1000], waits


def test_side_by_side_cases_can_fail():
    # The harness sees a difference: a policy with one retry fewer makes one attempt fewer.
    steps = ["connect_timeout"] * 4
    assert policy_run(from_urllib3(Retry(connect=1)), GET, steps) != urllib3_run(Retry(connect=2), GET, steps)


# The cases of urllib3's own tests are also vectors (tests/conformance/urllib3.json, `urllib3.suite.*`) that every
# runtime runs: `<test>.mapping`, the test's Retry as a policy, and `<test>.attempts`, a driver transcript with that
# policy. Here each transcript is replayed through urllib3's own Retry built from the paired mapping's attributes.

SUITE_VECTORS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "conformance" / "urllib3.json"

#: A vector's failure name (or an application verdict: urllib3's `other` counter) as the exception urllib3 is given.
SUITE_ERRORS = {
    "connect_timeout": "connect_timeout",
    "connection_refused": "refused",
    "dns_lookup_failed": "dns",
    "read_timeout": "read_timeout",
    "connection_lost": "protocol",
    "application": "ssl",  # neither a connection nor a read error: urllib3 counts it with `other`
}


def _suite_cases():
    cases = {case["id"]: case for case in json.loads(SUITE_VECTORS.read_text(encoding="utf-8"))["cases"]}
    attempts = [case for case in cases.values() if case["id"].startswith("urllib3.suite.") and case["kind"] == "driver"]
    return [(case, cases[case["id"].removesuffix(".attempts") + ".mapping"]) for case in attempts]


def _retry_of(attributes):
    """A Retry() with the vector's attributes set, as the conformance runner builds it (``RETRY_AFTER_STATUS_CODES`` on
    a subclass, where urllib3 reads it for every response)."""
    attributes = dict(attributes)
    if "RETRY_AFTER_STATUS_CODES" in attributes:
        codes = attributes.pop("RETRY_AFTER_STATUS_CODES")
        retry = type("Retry", (Retry,), {"RETRY_AFTER_STATUS_CODES": codes})()
    else:
        retry = Retry()
    for name, value in attributes.items():
        setattr(retry, name, value)
    return retry


def transcript_run(case):
    """A driver vector's steps for urllib3_run, and what the transcript says: the waits in ms, then how many attempts
    (None when it ends starting one more)."""
    steps, waits, attempts = [], [], None
    for index, step in enumerate(case["steps"]):
        if step["call"] == "result":
            if "response" in step:
                steps.append((step["response"]["status"], step["response"]["headers"]))
            else:
                steps.append(SUITE_ERRORS[step["failure"] if "failure" in step else step["outcome"]["type"]])
            after = case["steps"][index + 1]["expect"]
            if after["type"] == "finish":
                attempts = after["decision"]["attempts"]
            else:
                waits.append(after["until_ms"] - step["at_ms"] if after["type"] == "sleep" else 0)
    return steps, (waits, attempts)


@pytest.mark.parametrize("case, mapping", _suite_cases(), ids=lambda case: case["id"])
def test_urllib3_suite_vectors_are_what_urllib3_does(case, mapping):
    assert case["policy"] == mapping["expect"], "the transcript's policy is its .mapping case's"
    assert from_urllib3(_retry_of(mapping["retry"])).to_dict() == mapping["expect"]
    steps, (waits, attempts) = transcript_run(case)
    # urllib3 draws backoff_jitter from random.random(): its least and greatest waits bound the seeded ones.
    with mock.patch("random.random", return_value=0.0):
        least = urllib3_run(_retry_of(mapping["retry"]), case["method"], steps)
    with mock.patch("random.random", return_value=1.0):
        most = urllib3_run(_retry_of(mapping["retry"]), case["method"], steps)
    assert least[1] == most[1] == attempts, (least, most, attempts)
    bounds = zip(least[0], waits, most[0], strict=True)
    assert all(low <= wait <= high for low, wait, high in bounds), (least, waits, most)


def test_urllib3_suite_vectors_cover_each_named_test_and_can_fail():
    cases = _suite_cases()
    assert len(cases) >= 70
    case, mapping = next((c, m) for c, m in cases if c["id"] == "urllib3.suite.test_retry_both_specified.attempts")
    steps, expected = transcript_run(case)
    assert urllib3_run(_retry_of(mapping["retry"]), case["method"], steps) == expected
    assert urllib3_run(_retry_of({**mapping["retry"], "total": 3}), case["method"], steps) != expected


def test_tls_errors_count_as_connect_failures_not_other_a_documented_deviation():
    # urllib3 counts an SSLError with `other` (test_retry.py::test_retry_other); the engine counts a failed TLS
    # handshake as a request that never left, with `connect` (http_clients.md, "urllib3 Retry", Deviation).
    steps = ["ssl"] * 3
    assert urllib3_run(Retry(connect=1), GET, steps + [200]) == ([0, 0, 0], 4)
    assert policy_run(from_urllib3(Retry(connect=1)), GET, steps) == ([0], 2)
    assert urllib3_run(Retry(other=1), GET, steps) == ([0], 2)
    assert policy_run(from_urllib3(Retry(other=1)), GET, steps + [200]) == ([0, 0, 0], 4)


def test_retry_after_zero_retries_at_once_a_documented_deviation():
    # urllib3's sleep_for_retry reads 0 as no header and sleeps the backoff; the engine waits the 0 s the server asked.
    steps = [500, (500, "0"), 200]
    assert urllib3_run(Retry(backoff_factor=1, status_forcelist=[500]), GET, steps) == ([0, 2000], 3)
    assert policy_run(from_urllib3(Retry(backoff_factor=1, status_forcelist=[500])), GET, steps) == ([0, 0], 3)
    # An HTTP-date already passed is 0 s too (2019-06-03 10:00 against the 11:00 wall clock).
    passed = [500, (500, "Mon, 03 Jun 2019 10:00:00 GMT"), 200]
    assert urllib3_run(Retry(backoff_factor=1, status_forcelist=[500]), GET, passed) == ([0, 2000], 3)
    assert policy_run(from_urllib3(Retry(backoff_factor=1, status_forcelist=[500])), GET, passed) == ([0, 0], 3)


def test_an_unreadable_retry_after_is_passed_over_a_documented_deviation():
    # urllib3 counts the retry, then its sleep raises InvalidHeader: one attempt. The engine passes the value over: a 503
    # that needs Retry-After is not retried (one attempt too), a forced status is retried after the backoff.
    assert (
        urllib3_run(Retry(), GET, [(503, "soon")]) == policy_run(from_urllib3(Retry()), GET, [(503, "soon")]) == ([], 1)
    )
    forced = [(500, "soon"), 200]
    assert urllib3_run(Retry(status_forcelist=[500]), GET, forced) == ([], 1)
    assert policy_run(from_urllib3(Retry(status_forcelist=[500])), GET, forced) == ([0], 2)


def _retry_after_values():
    """Retry-After values: urllib3's test inputs, then a grid of the date forms' parts, spaced and ordered variously."""
    values = [
        "-1",
        "+1",
        "1.0",
        "\xb2",
        "0",
        "1000",
        "\t42 ",
        "42\n",
        "\n42\xa0",
        "\x1c42",
        "42\x1f",
        "4 2",
        "4_2",
        "1e3",
    ]
    values += ["", " ", "soon", "1, 2", "99999999999999999999999", "2019-06-03T11:30:12Z", "3 Jun 10000 11:30:12 GMT"]
    days, months, years = (
        ["Mon,", "Monday,", "mon", ""],
        ["3 Jun", "03 June", "Jun 3", "3 JUN"],
        ["2019", "19", "69", "0"],
    )
    times, zones = (
        ["11:30:12", "11:30", "11.30.12", "27:00:00"],
        ["GMT", "UTC", "-0000", "+0130", "EST", "", "XYZ", "Z"],
    )
    for day in days:
        for month in months:
            for year in years:
                for time_of_day in times:
                    for zone in zones:
                        values.append(" ".join(part for part in (day, month, year, time_of_day, zone) if part))
    values += ["Monday, 03-Jun-19 11:30:12 GMT", "Mon Jun  3 11:30:12 2019", "3 Jun 2019 11:30:12+0800"]
    return values


def test_retry_after_is_read_as_urllib3_parse_retry_after_reads_it():
    """Every value: the delay urllib3's Retry.parse_retry_after gives (to the ms), or both refuse it."""
    retry = Retry()
    retry.retry_after_max = float("inf")  # the value itself, unclamped (urllib3 before 2.6 has no cap)
    differences = []
    for value in _retry_after_values():
        with mock.patch("time.time", return_value=NOW_UNIX_MS / 1000):
            try:
                theirs = round(retry.parse_retry_after(value) * 1000)
            except (InvalidHeader, ValueError, OverflowError):
                theirs = None
        try:
            ours = retryplan.parse_retry_after(value, now_unix_ms=NOW_UNIX_MS, reading="lenient")
        except retryplan.RetryplanError:
            ours = None
        if ours != (None if theirs is None else min(theirs, 2**53 - 1)):
            differences.append((value, theirs, ours))
    assert differences == []


#: What urllib3 and requests take for their retries besides a Retry (PoolManager(retries=...),
#: urlopen(retries=...), HTTPAdapter(max_retries=...)): what Retry.from_int converts.
FROM_INT = [0, 1, 3, 5, None, True, False, -1]
#: Steps that tell the counts apart: errors of each kind and statuses, then a success.
FROM_INT_STEPS = [
    ["connect_timeout"] * 7,
    ["read_timeout"] * 7,
    [(503, "1"), "refused", (429, "2"), 500, 200],
    [(503, "1")] * 7,
]


@pytest.mark.parametrize("given", FROM_INT, ids=repr)
def test_what_retry_from_int_reads_is_read_as_from_int_reads_it(given):
    converted = Retry.from_int(given)  # urllib3's own: Retry(n, redirect=None); None is Retry.DEFAULT
    assert from_urllib3(given).to_dict() == from_urllib3(converted).to_dict()
    for steps in FROM_INT_STEPS:
        for method in (GET, "POST"):
            assert policy_run(from_urllib3(given), method, steps) == urllib3_run(Retry.from_int(given), method, steps)


#: from_int's `default` (what urlopen(retries=None) passes as the pool's own retries): ints, bools, a Retry, none.
FROM_INT_DEFAULTS = [0, 2, 5, True, False, -1, lambda: Retry(4, backoff_factor=0.5, status_forcelist=[500]), None]


@pytest.mark.parametrize("retry", [None, 3, lambda: Retry(1)], ids=["None", "3", "Retry(1)"])
@pytest.mark.parametrize("default", FROM_INT_DEFAULTS, ids=lambda d: "Retry(4)" if callable(d) else repr(d))
def test_from_int_default_is_read_as_from_int_reads_it(retry, default):
    retry = retry() if callable(retry) else retry
    default = default() if callable(default) else default
    converted = Retry.from_int(retry, default=default)  # urllib3's own: None takes the default, a Retry stays
    assert from_urllib3(retry, default=default).to_dict() == from_urllib3(converted).to_dict()
    for steps in FROM_INT_STEPS:
        for method in (GET, "POST"):
            mine = policy_run(from_urllib3(retry, default=default), method, steps)
            assert mine == urllib3_run(Retry.from_int(retry, default=default), method, steps)


def test_a_pools_own_retries_are_the_default_of_its_urlopen():
    from urllib3 import HTTPConnectionPool

    for retries in (5, 0, Retry(2, status_forcelist=[503])):
        pool = HTTPConnectionPool("localhost", retries=retries)
        # HTTPConnectionPool.urlopen(retries=None) converts with Retry.from_int(None, redirect=..., default=self.retries).
        theirs = Retry.from_int(None, redirect=True, default=pool.retries)
        assert from_urllib3(None, default=pool.retries).to_dict() == from_urllib3(theirs).to_dict()
        assert from_urllib3(None, default=pool.retries).to_dict() != from_urllib3(None).to_dict()


@pytest.mark.parametrize("given", FROM_INT, ids=repr)
def test_from_int_redirect_changes_no_policy(given):
    """PoolManager.urlopen and a redirect's urlopen pass `redirect`: it makes redirect=None or 0, and a policy does
    not follow redirects, so from_urllib3 does not take it; both conversions give one policy and one run."""
    followed, not_followed = Retry.from_int(given, redirect=True), Retry.from_int(given, redirect=False)
    if given is None:  # None is Retry.DEFAULT itself, whatever `redirect` says
        assert followed is not_followed is Retry.DEFAULT
    else:
        assert (followed.redirect, not_followed.redirect) == (0 if given is False else None, 0)
    assert from_urllib3(not_followed).to_dict() == from_urllib3(followed).to_dict() == from_urllib3(given).to_dict()
    for steps in FROM_INT_STEPS:
        assert urllib3_run(Retry.from_int(given, redirect=False), GET, steps) == urllib3_run(followed, GET, steps)


def test_a_default_of_a_wrong_type_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="default must be a urllib3.util.Retry"):
        from_urllib3(None, default="3")
    with pytest.raises(TypeError, match="default must be"):
        from_urllib3(Retry(2), default=1.5)  # checked even where urllib3 would not read it


def test_an_int_is_that_many_retries_and_none_is_urllib3s_default():
    assert from_urllib3(3).to_dict()["max_attempts"] == 4
    assert from_urllib3(None).to_dict()["max_attempts"] == Retry.DEFAULT.total + 1 == 4
    assert from_urllib3(False).to_dict()["max_attempts"] == from_urllib3(0).to_dict()["max_attempts"] == 1
    assert from_urllib3(True).to_dict()["max_attempts"] == 2  # urllib3 counts True down as 1 (True - 1 == 0)
    assert from_urllib3(3, total_timeout_ms=5_000).to_dict()["total_timeout_ms"] == 5_000


def test_none_follows_retry_default_as_from_int_does():
    with mock.patch.object(Retry, "DEFAULT", Retry(5, backoff_factor=0.5)):
        assert from_urllib3(None).to_dict() == from_urllib3(Retry(5, backoff_factor=0.5)).to_dict()


def test_requests_adapters_retries_map_as_requests_builds_them():
    adapters = pytest.importorskip("requests.adapters")
    for given in (3, 1, None):
        built = adapters.HTTPAdapter(max_retries=given).max_retries
        assert from_urllib3(given).to_dict() == from_urllib3(built).to_dict()
    # requests' own default (max_retries=0) is Retry(0, read=False), not Retry.from_int(0): pass that Retry.
    default = adapters.HTTPAdapter().max_retries
    assert (default.total, default.read) == (0, False)
    assert from_urllib3(Retry(0, read=False)).to_dict() == from_urllib3(default).to_dict()
    for steps in FROM_INT_STEPS:
        assert policy_run(from_urllib3(Retry(0, read=False)), GET, steps) == urllib3_run(default, GET, steps)
