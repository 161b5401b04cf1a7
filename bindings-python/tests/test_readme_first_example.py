"""The README's first example as a new user gets it wrong (issue 25): a typo in the policy, and a call slower than
the deadline, each checked against what the README promises.

The first ```python block (the httpx checkout) is run as written but for one change per case, in a fresh
interpreter, its hosts served by tests/helpers/server.py (readme_route.py) from a copy of readme-hosts.json in
which ``shop.example/orders`` may hang. The sync section's ``@retryplan.retry`` example is tried with a function
slower than the deadline. What is checked is the outcome (the typed error, the ending, what the server saw),
never how long it took.
"""

import json
import pathlib
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, Iterator, List

import pytest
from test_readme import BLOCKS, HERE, ROOT, serve_hosts

import retryplan

FIRST = BLOCKS[0]
PROFILE = 'retryplan.Policy.from_profile("checkout")'


def served(tmp: pathlib.Path, orders: List[Dict[str, Any]]) -> Iterator[str]:
    hosts = json.loads((ROOT / "tests/helpers/readme-hosts.json").read_text(encoding="utf-8"))
    for scenario in hosts["scenarios"]:
        if scenario["id"] == "shop.example/orders":
            scenario["server"] = orders
    path = tmp / "hosts.json"
    path.write_text(json.dumps(hosts), encoding="utf-8")
    yield from serve_hosts(path)


@pytest.fixture
def hanging(tmp_path: pathlib.Path) -> Iterator[str]:
    """A server on which every order hangs: slower than the checkout's 800 ms deadline."""
    yield from served(tmp_path, [{"hang": True}])


@pytest.fixture
def answering(tmp_path: pathlib.Path) -> Iterator[str]:
    yield from served(
        tmp_path, [{"status": 201, "body": '{"order": 5001}', "headers": {"Content-Type": "application/json"}}]
    )


def run(tmp: pathlib.Path, port: str, code: str) -> "subprocess.CompletedProcess[str]":
    path = tmp / "first_example.py"
    path.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(HERE / "readme_route.py"), port, str(path)], capture_output=True, text=True, timeout=60
    )


def seen(port: str) -> List[Dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/__log/shop.example/orders", timeout=5) as response:
        log: List[Dict[str, Any]] = json.loads(response.read())
    return log


def test_the_first_example_is_the_httpx_checkout() -> None:
    assert PROFILE in FIRST.code and "client.post(" in FIRST.code, FIRST.code


def test_a_misspelt_profile_is_refused_before_anything_is_sent(tmp_path: pathlib.Path, answering: str) -> None:
    ran = run(tmp_path, answering, FIRST.code.replace(PROFILE, 'retryplan.Policy.from_profile("chekout")'))
    assert ran.returncode == 1
    # What the README's errors say of an unknown profile: UnknownProfileError, naming it, the closest known one and all.
    assert (
        "retryplan.UnknownProfileError: unknown profile `chekout` (did you mean `checkout`?) (known: read, checkout,"
        in ran.stderr
    ), ran.stderr
    assert seen(answering) == []


def test_a_misspelt_policy_field_is_refused_with_the_field_and_a_suggestion(
    tmp_path: pathlib.Path, answering: str
) -> None:
    policy = 'retryplan.Policy.from_dict({"max_attemps": 3, "total_timeout_ms": 800})'
    ran = run(tmp_path, answering, FIRST.code.replace(PROFILE, policy))
    assert ran.returncode == 1
    # The README's "What bad input gets": unknown field -> InvalidConfigError, invalid_config, field max_attemps.
    assert (
        "retryplan.InvalidConfigError: invalid policy configuration at `max_attemps`: unknown field `max_attemps` "
        "(did you mean `max_attempts`?)" in ran.stderr
    ), ran.stderr
    assert seen(answering) == []


def test_an_order_slower_than_the_deadline_gives_up_within_the_policys_attempts(
    tmp_path: pathlib.Path, hanging: str
) -> None:
    ran = run(tmp_path, hanging, FIRST.code)
    assert ran.returncode == 0, ran.stderr
    # The README: "800 ms for the whole checkout, 3 attempts of at most 200 ms, keyed writes"; the GaveUpError branch
    # prints the reason and the attempts ("e.g. deadline_insufficient").
    printed = ran.stdout.strip().splitlines()[-1].split()
    assert printed[:2] == ["gave", "up:"] and printed[3] == "after" and printed[5] == "attempts", ran.stdout
    assert printed[2] in {reason.value for reason in retryplan.GiveUpReason}, printed
    attempts = int(printed[4])
    orders = seen(hanging)
    assert 1 <= attempts <= 3 and len(orders) == attempts, (printed, orders)
    assert {order["idempotency_key"] for order in orders} == {"order-5001"}  # keyed: one key, every attempt
    assert len({order["request_id"] for order in orders}) == attempts


def test_a_decorated_call_slower_than_the_deadline_is_timed_out_and_gives_up() -> None:
    # The README's sync section: "They cannot interrupt a running call: one that returns after its abort time
    # counts as timed_out". A call that blocks past the whole deadline ends the operation.
    policy = retryplan.Policy.from_profile("checkout")
    calls: List[int] = []

    @retryplan.retry(policy)
    def charge(card: str) -> str:
        calls.append(1)
        time.sleep(1.0)  # the checkout's deadline is 800 ms
        return "charged " + card

    with pytest.raises(retryplan.GaveUpError) as raised:
        charge("tok_1")
    assert calls == [1] and raised.value.attempts == 1
    assert raised.value.last_value is None  # the late value is dropped, never returned
    assert str(raised.value).startswith("retryplan: ") and "charge: gave up after 1 attempt: " in str(raised.value)
