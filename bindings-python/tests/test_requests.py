"""The requests adapter (``retryplan.requests.RetryAdapter``) against a real HTTP server on 127.0.0.1."""

import socket
from typing import Any

import pytest
import requests
from server import FAST, Server, retry_after, status, waits
from urllib3.util.retry import Retry

import retryplan
from retryplan import GaveUpError, GiveUpReason, Policy, ReconcileRequiredError, Stats, UnsupportedError
from retryplan.compat import from_urllib3
from retryplan.requests import RetryAdapter

# Mon, 03 Jun 2019 11:00:00 GMT: the wall clock of the tests that send HTTP-dates.
WALL = 1559559600.0


def session(policy: Policy, **kwargs: Any) -> requests.Session:
    s = requests.Session()
    adapter = RetryAdapter(policy=policy, **kwargs)
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    return s


def test_mounted_like_http_adapter_503_with_retry_after_then_success(server: Server) -> None:
    server.script.queue(retry_after("1"), status(200))
    with session(Policy.from_dict(FAST)) as s:
        response = s.get(server.url + "/item")
    assert response.status_code == 200 and response.text == "status 200"
    assert len(server.script.seen) == 2
    (wait,) = waits(server.script.seen)
    assert 0.95 <= wait < 3.0  # honoured the 1 s Retry-After
    decision = response.retryplan_decision  # type: ignore[attr-defined]
    assert isinstance(decision, retryplan.Succeeded) and (decision.attempts, decision.winner) == (2, 2)
    assert isinstance(s.get_adapter(server.url), requests.adapters.HTTPAdapter)


def test_fresh_request_ids_no_key_for_a_safe_read_and_the_engines_backoff(server: Server) -> None:
    server.script.queue(status(429), status(429), status(200))
    with session(Policy.from_dict(FAST)) as s:
        assert s.get(server.url + "/x").status_code == 200
    ids = [seen["headers"]["x-request-id"] for seen in server.script.seen]
    assert len(ids) == 3 and len(set(ids)) == 3 and all(len(i) == 16 for i in ids)
    assert all("idempotency-key" not in seen["headers"] for seen in server.script.seen)
    assert all(w >= 0.015 for w in waits(server.script.seen))


def test_retry_after_is_read_as_the_policy_says(server: Server) -> None:
    # One-digit day and "UTC": not an RFC 9110 HTTP-date, but what Python's email.utils reads (urllib3).
    date = "Mon, 3 Jun 2019 11:00:01 UTC"
    server.script.queue(retry_after(date), status(200))
    with session(Policy.from_dict(FAST), wall_clock=lambda: WALL) as s:
        assert s.get(server.url + "/strict").status_code == 200
    (strict,) = waits(server.script.seen)
    assert strict < 0.5  # unreadable under strict RFC 9110: the 20 ms backoff

    server.script.seen.clear()
    server.script.queue(retry_after(date), status(200))
    lenient = Policy.from_dict({**FAST, "server_guidance": {"retry_after_reading": "lenient"}})
    with session(lenient, wall_clock=lambda: WALL) as s:
        assert s.get(server.url + "/lenient").status_code == 200
    (wait,) = waits(server.script.seen)
    assert 0.95 <= wait < 3.0  # read leniently: one second from the wall clock


def test_ratelimit_reset_is_guidance(server: Server) -> None:
    server.script.queue(status(429, {"RateLimit-Reset": "1"}), status(200))
    with session(Policy.from_dict(FAST)) as s:
        assert s.get(server.url + "/limited").status_code == 200
    (wait,) = waits(server.script.seen)
    assert 0.95 <= wait < 3.0


def test_keyed_post_sends_one_stable_key_and_the_same_body(server: Server) -> None:
    server.script.queue(status(503), ("drop", None), status(201))
    with session(Policy.from_dict({**FAST, "idempotency": "keyed"})) as s:
        response = s.post(server.url + "/orders", data=b'{"sku": 1}', headers={"Idempotency-Key": "order-77"})
    assert response.status_code == 201
    seen = server.script.seen
    assert [x["headers"]["idempotency-key"] for x in seen] == ["order-77"] * 3
    assert len({x["headers"]["x-request-id"] for x in seen}) == 3
    assert all(x["body"] == b'{"sku": 1}' for x in seen)


def test_a_seekable_file_body_is_rewound_for_every_attempt(server: Server, tmp_path: Any) -> None:
    path = tmp_path / "body.json"
    path.write_bytes(b'{"sku": 2}')
    server.script.queue(status(503), status(201))
    with session(Policy.from_dict({**FAST, "idempotency": "keyed"})) as s, path.open("rb") as body:
        assert s.post(server.url + "/orders", data=body).status_code == 201
    assert [x["body"] for x in server.script.seen] == [b'{"sku": 2}'] * 2


def test_a_body_that_can_be_sent_once_is_sent_once_and_gives_up_body_not_replayable(server: Server) -> None:
    server.script.queue(status(503), status(200))
    with session(Policy.from_dict(FAST)) as s:
        response = s.put(server.url + "/stream", data=iter([b"a", b"b"]))  # a PUT's 503 would be retried
    assert response.status_code == 503  # the one response, returned as the core says
    decision = response.retryplan_decision  # type: ignore[attr-defined]
    assert isinstance(decision, retryplan.GaveUp) and decision.reason is GiveUpReason.BODY_NOT_REPLAYABLE
    assert [seen["body"] for seen in server.script.seen] == [b"ab"]  # one request, its body sent as it came


def test_dropped_connection_of_an_unsafe_write_reconciles(server: Server) -> None:
    server.script.queue(("drop", None), status(200))
    with (
        session(Policy.from_dict({**FAST, "idempotency": "unsafe"})) as s,
        pytest.raises(ReconcileRequiredError) as raised,
    ):
        s.post(server.url + "/orders", data=b"{}")
    assert len(server.script.seen) == 1
    assert raised.value.idempotency_key == server.script.seen[0]["headers"]["idempotency-key"]
    assert isinstance(raised.value.cause, requests.ConnectionError)


def test_a_post_is_repeated_only_when_the_policy_or_the_adapter_says_so(server: Server) -> None:
    server.script.queue(status(500), status(500), status(201), status(500), status(201))
    with session(Policy.from_dict(FAST)) as s, pytest.raises(ReconcileRequiredError):
        s.post(server.url + "/rfc", data=b"{}")  # RFC 9110 §9.2.2: POST is not idempotent
    assert len(server.script.seen) == 1
    listed = Policy.from_dict({**FAST, "retry_methods": ["GET", "POST"]})
    with session(listed) as s:
        assert s.post(server.url + "/listed", data=b"{}").status_code == 201  # urllib3's allowed_methods
    assert len(server.script.seen) == 3
    with session(Policy.from_dict(FAST), idempotent=True) as s:
        assert s.post(server.url + "/caller", data=b"{}").status_code == 201
    assert len(server.script.seen) == 5


def test_a_method_left_out_of_retry_methods_is_not_retried(server: Server) -> None:
    server.script.queue(status(503), status(200))
    policy = Policy.from_dict({**FAST, "retry_methods": ["GET"]})
    with session(policy) as s:
        response = s.put(server.url + "/unlisted", data=b"{}")
    assert response.status_code == 503 and response.retryplan_decision.reason == "not_retryable"  # type: ignore[attr-defined]
    assert len(server.script.seen) == 1


def test_a_urllib3_retry_mapped_by_from_urllib3(server: Server) -> None:
    server.script.queue(status(503), status(503), status(200))
    policy = from_urllib3(Retry(total=3, backoff_factor=0.01, status_forcelist=[503]))
    with session(policy) as s:
        assert s.get(server.url + "/mapped").status_code == 200
    assert len(server.script.seen) == 3
    first, second = waits(server.script.seen)
    assert first < 0.5 and 0.015 <= second < 1.0  # urllib3's backoff: 0, then 2 x factor


def test_stall_past_the_attempt_timeout_is_retried(server: Server) -> None:
    server.script.queue(("stall", 5.0), status(200))
    with session(Policy.from_dict({**FAST, "attempt_timeout": {"fixed_ms": 200}})) as s:
        assert s.get(server.url + "/slow", timeout=(5, 30)).status_code == 200  # cut to the attempt's window
    (wait,) = waits(server.script.seen)
    assert 0.18 <= wait < 2.0


def test_exhausted_attempts_return_the_last_response_with_its_body(server: Server) -> None:
    server.script.queue(*[status(503)] * 4)
    stats = Stats()
    with session(Policy.from_dict(FAST), stats=stats) as s:
        response = s.get(server.url + "/down")
    assert response.status_code == 503 and response.text == "status 503"
    assert response.retryplan_decision.reason == "attempts_exhausted"  # type: ignore[attr-defined]
    assert len(server.script.seen) == 4
    assert (stats.operations, stats.attempts, stats.retries) == (1, 4, 3)


def test_refused_connection_gives_up_with_the_cause() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with session(Policy.from_dict({**FAST, "max_attempts": 2})) as s, pytest.raises(GaveUpError) as raised:
        s.get(f"http://127.0.0.1:{port}/")
    assert raised.value.reason == GiveUpReason.ATTEMPTS_EXHAUSTED and raised.value.attempts == 2
    assert isinstance(raised.value.__cause__, requests.ConnectionError)
    assert raised.value.last_outcome is not None
    assert raised.value.last_outcome.to_dict() == {"type": "transport", "failure": "not_sent"}


def test_urllib3_retries_stay_off() -> None:
    adapter = RetryAdapter(policy=Policy.from_dict(FAST))
    assert adapter.max_retries.total == 0 and adapter.max_retries.read is False
    with pytest.raises(TypeError):
        RetryAdapter(policy=Policy.from_dict(FAST), max_retries=3)  # type: ignore[call-arg]


def test_a_hedging_policy_is_refused_unless_attempts_may_run_one_at_a_time() -> None:
    hedged = Policy.from_dict({**FAST, "hedging": {"delay_ms": 50, "max_hedged_attempts": 1}})
    with pytest.raises(UnsupportedError):
        RetryAdapter(policy=hedged)
    RetryAdapter(policy=hedged, sequential_attempts=True)
