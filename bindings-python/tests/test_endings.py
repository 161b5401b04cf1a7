"""The typed endings say what happened and what to do (issue 25 item 7): the core's words, the same in every
language (``Decision.ending_message``), naming the operation as its helper knows it and the key to reconcile by."""

import json
import pathlib
import pickle
import re
import traceback

import httpx
import pytest
import requests
from conftest import vector_dir
from server import FAST, Server

import retryplan
from retryplan import GaveUpError, Policy, ReconcileRequiredError, RestartRequiredError
from retryplan.httpx import RetryTransport
from retryplan.requests import RetryAdapter

ONE = {**FAST, "max_attempts": 1, "attempt_timeout": {"fixed_ms": 1000}}


def test_requests_reconcile_names_the_request_its_key_and_what_to_do(server: Server) -> None:
    server.script.queue(("drop", None))
    session = requests.Session()
    session.mount("http://", RetryAdapter(policy=Policy.from_dict(ONE)))
    url = server.url.replace("http://", "http://user:secret@") + "/orders?cart=41#top"
    with pytest.raises(ReconcileRequiredError) as raised:
        # No key of its own: a request carrying one is keyed by it, and retried (issue 25 item 3).
        session.post(url, data=b"{}")
    port, key = server.url.rsplit(":", 1)[1], raised.value.idempotency_key
    assert str(raised.value) == (
        f"retryplan: POST http://127.0.0.1:{port}/orders?cart=41: the write may have happened; "
        f'do not repeat it blindly: look it up (reconcile it) by its idempotency key "{key}"'
    )
    assert "secret" not in str(raised.value)
    shown = "".join(traceback.format_exception_only(type(raised.value), raised.value))
    assert shown.startswith("retryplan.ReconcileRequiredError: "), shown  # the public home, not retryplan._errors


def test_httpx_names_the_request_without_user_info_or_fragment_keeping_an_at_in_the_query(server: Server) -> None:
    server.script.queue(("drop", None))
    url = server.url.replace("http://", "http://user:secret@") + "/items?to=a@b#top"
    with (
        httpx.Client(transport=RetryTransport(policy=Policy.from_dict(ONE))) as client,
        pytest.raises(GaveUpError) as raised,
    ):
        client.get(url)
    port = server.url.rsplit(":", 1)[1]
    assert str(raised.value).startswith(f"retryplan: GET http://127.0.0.1:{port}/items?to=a@b: gave up"), raised.value
    assert "secret" not in str(raised.value)


def test_requests_names_a_presigned_url_with_its_sensitive_query_values_redacted(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    # The OpenTelemetry conventions' url.full list (the core's request_name): the value goes, the key stays.
    server.script.queue(("drop", None))
    session = requests.Session()
    session.mount("http://", RetryAdapter(policy=Policy.from_dict(ONE)))
    url = server.url.replace("http://", "http://user:pw@") + "/z?seq=200&X-Amz-Signature=SECRET&sig=qwz"
    with caplog.at_level("INFO", logger="retryplan"), pytest.raises(ReconcileRequiredError) as raised:
        session.post(url, data=b"{}")
    port = server.url.rsplit(":", 1)[1]
    named = f"POST http://127.0.0.1:{port}/z?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED"
    assert str(raised.value).startswith(f"retryplan: {named}: the write may have happened"), raised.value
    assert [record.getMessage() for record in caplog.records if named in record.getMessage()], caplog.text
    for secret in ("SECRET", "qwz", "pw"):  # no hex digit: the key (a UUID) holds none of them
        assert secret not in str(raised.value) and secret not in caplog.text, secret


def test_the_name_is_the_cores_request_name_of_the_url_as_the_client_gives_it() -> None:
    # One rule in every language (the core's): the text as given, minus user info (up to the authority's last "@")
    # and fragment; httpx's copy_with and requests' urlsplit/geturl each re-assembled the URL before.
    name = retryplan._native.request_name
    assert name("GET", "HTTP://u:p@API.Example:80/a@b?c=@#x") == "GET HTTP://API.Example:80/a@b?c=@"
    assert name("GET", "http://u@[::1]:8080/p?") == "GET http://[::1]:8080/p?"  # urlsplit's geturl dropped the "?"
    assert name("GET", "/orders#new") == "GET /orders"
    assert name("GET", "#") == "GET "
    assert name("GET", "http://h/?sig=a&SIG=b&Signature=c") == "GET http://h/?sig=REDACTED&SIG=b&Signature=REDACTED"


def test_httpx_gave_up_names_the_request_the_attempts_and_the_reason(server: Server) -> None:
    server.script.queue(("drop", None), ("drop", None))
    policy = Policy.from_dict({**ONE, "max_attempts": 2})
    with httpx.Client(transport=RetryTransport(policy=policy)) as client, pytest.raises(GaveUpError) as raised:
        client.get(server.url + "/items?page=2")
    port = server.url.rsplit(":", 1)[1]
    assert (
        str(raised.value)
        == f"retryplan: GET http://127.0.0.1:{port}/items?page=2: gave up after 2 attempts: attempts_exhausted"
    )


def test_retry_names_the_function_and_every_ending_is_the_cores() -> None:
    @retryplan.retry(Policy.from_dict(ONE), seed=7)
    def charge() -> None:
        raise ConnectionResetError("reset")

    with pytest.raises(GaveUpError) as raised:
        charge()
    assert str(raised.value).startswith("retryplan: ")
    assert "charge: gave up after 1 attempt: " in str(raised.value)
    decision = raised.value.decision
    assert str(raised.value) == decision.ending_message(charge.__qualname__, raised.value.idempotency_key)
    restart = retryplan.Decision.from_dict({"type": "restart", "attempts": 2, "deadline_ms": 9, "remaining_ms": 0})
    assert restart.ending_message("op", "k") == (
        "retryplan: op: a conflict: re-read the current state, recompute the change and restart the unit of work "
        "within its deadline"
    )
    succeeded = retryplan.Decision.from_dict({"type": "succeeded", "attempts": 1, "winner": 1})
    assert succeeded.ending_message("op", "k") is None
    assert RestartRequiredError.__module__ == GaveUpError.__module__ == "retryplan"
    assert raised.value.blame == ReconcileRequiredError.blame == RestartRequiredError.blame == ""  # not misuse
    assert pickle.loads(pickle.dumps(GaveUpError)) is GaveUpError


def test_no_helper_composes_an_endings_english_nor_decides_when_the_hint_is_added() -> None:
    """The core writes the typed ending's whole text (``Ending.message``), the hint after an unknown error included:
    no module of the package nor of its Rust glue holds a fixed part of the core's ending rules or appends the hint
    (as the JS and Kotlin bindings' source tests say of theirs)."""
    rules = json.loads((vector_dir().parent / "messages" / "rules.json").read_text())["rules"]
    endings = [rule for rule in rules if rule["id"].startswith("ending_")]
    assert [rule["id"] for rule in endings] == [
        "ending_gave_up",
        "ending_reconcile",
        "ending_reconcile_key_not_sent",
        "ending_restart",
        "ending_with_hint",
    ]
    parts = [p.strip() for rule in endings for p in re.split(r"\{\d+(?::q)?\}", rule["template"])]
    parts = [p for p in parts if len(p) > 3 and p != "retryplan:"]
    assert len(parts) == 4, parts
    here = pathlib.Path(__file__).resolve().parent.parent
    sources = sorted((here / "python" / "retryplan").glob("*.py")) + sorted((here / "src").glob("*.rs"))
    assert len(sources) > 20
    forbidden = [
        *parts,
        "gave up after",
        "reconcile it by",
        "restart the unit",
        "ending_with_hint",
        "ending_message_after",
    ]
    for source in sources:
        text = source.read_text()
        for part in forbidden:
            assert part not in text, f"{source.name} composes ending words of its own: {part!r}"
        # The hint is the core's constant, exported once (lib.rs) and re-exported (__init__.py); nothing appends it.
        hints = text.count("UNKNOWN_ERROR_HINT") + text.count("unknown_error_hint")
        allowed = {"lib.rs": 2, "__init__.py": 2}.get(source.name, 0)
        assert hints == allowed, f"{source.name} names the unknown-error hint {hints} times (allowed: {allowed})"
