"""The configuration keywords are typed: ``Policy(**fields)`` and the controls'
constructors take the ``TypedDict``s that core/mirrors generates from the
schema (``_config_types.pyi``), so ``mypy --strict`` names a misspelled field
or a wrong value where it is written, before anything runs."""

import pathlib
import re
import subprocess
import sys
import tempfile
from typing import Dict, List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

GOOD = """\
from retryplan import CircuitBreaker, Dependency, Idempotency, Policy, RetryBudget

Policy(max_attempts=3, backoff={"base_ms": 50, "cap_ms": 400}, idempotency="keyed")
Policy(idempotency=Idempotency.SAFE, server_guidance={"mode": "floor", "retry_after_reading": "strict"})
Policy(retry_on={"http_statuses": (503,), "grpc_codes": ["unavailable"]}, jitter={"kind": "full"})
RetryBudget(kind="token_bucket", max_tokens=10, token_ratio=0.1)
CircuitBreaker(trip={"kind": "consecutive", "failures": 5}, open_ms=1000, half_open_probes=1)
Dependency(budget={"kind": "quota", "capacity": 500, "retry_cost": 5, "timeout_retry_cost": 10,
                   "success_increment": 1}, retry_slots=4)
"""

# Each line mypy must refuse, with the words its message must hold.
BAD = {
    "Policy(max_attempt=3)": '"max_attempt"',
    'Policy(max_attempts="3")': '"max_attempts"',
    'Policy(idempotency="idem")': '"idempotency"',
    'Policy(backoff={"base": 50})': '"base"',
    'Policy(server_guidance={"mode": "floored"})': '"mode"',
    "RetryBudget(max_token=10)": '"max_token"',
    "CircuitBreaker(open=1000)": '"open"',
    "Dependency(retry_slot=4)": '"retry_slot"',
}


# User code that must pass mypy --strict as written: the typed endings' fields.
GOOD_USE = """\
from typing import Any, Dict, Iterable, List, Literal, Optional

import retryplan
from retryplan.propagation import WsgiMiddleware


def gave_up(e: retryplan.GaveUpError) -> Optional[int]:
    reason: retryplan.GiveUpReason = e.reason
    assert isinstance(e.decision, retryplan.GaveUp) and reason is e.decision.reason
    return e.decision.refused_delay_ms


def restart(e: retryplan.RestartRequiredError) -> int:
    return e.decision.deadline_ms + e.deadline_ms


def reconcile(e: retryplan.ReconcileRequiredError) -> int:
    return e.decision.remaining_ms


def app(environ: Any, start_response: Any) -> List[bytes]:
    return []


def wsgi(environ: Dict[str, Any], statuses: List[str]) -> Iterable[bytes]:  # the README's WSGI example
    service = WsgiMiddleware(app, policy=retryplan.Policy())
    return service(environ, lambda status, headers, exc_info=None: statuses.append(status))


def outcomes() -> List[retryplan.Outcome]:  # the vocabularies' names, or their enums
    return [
        retryplan.Outcome.application("retryable"),
        retryplan.Outcome.application(retryplan.Verdict.CONFLICT),
        retryplan.Outcome.transport("connection_lost"),
        retryplan.Outcome.grpc_status("unavailable"),
        retryplan.Outcome.grpc_status(14),
        retryplan.Outcome.failure("dns_lookup_failed"),
        retryplan.Outcome.failure(retryplan.Failure.BODY_BROKEN),
    ]


def profiles() -> List[retryplan.Policy]:
    return [retryplan.Policy.from_profile("checkout")] + [retryplan.Policy.from_profile(n) for n in retryplan.PROFILE_NAMES]


def kind(d: retryplan.Decision) -> bool:
    return d.kind in ("gave_up", "reconcile", "restart")


def blames(e: retryplan.RetryplanError, ending: retryplan.GaveUpError) -> bool:  # a helper's ending: not misuse
    none: Literal[""] = ending.blame
    return e.blame in ("caller", "configuration", "server", "environment", none)


def deprecated_names() -> int:  # code written before the renames still runs (warning): it still type-checks
    slots: retryplan.RetrySlots = retryplan.ConcurrencyLimit(4)
    try:
        return slots.capacity + retryplan.remaining_budget_ms(reserve_ms=0, deadline_ms=9, now_ms=1)
    except retryplan.ReconcileRequired as e:
        return len(e.idempotency_key)
    except retryplan.RestartRequired as e:
        return e.decision.deadline_ms
    except retryplan.OperationFailed as e:
        return e.attempts
"""

# User code mypy must refuse (after `import retryplan.propagation`), with the words its message must hold.
BAD_USE = {
    "def a(e: retryplan.GaveUpError) -> int: return e.decision.deadline_ms": '"GaveUp" has no attribute',
    "def b(e: retryplan.GaveUpError) -> bytes: return e.reason": '"GiveUpReason"',
    'retryplan.Outcome.application("retry")': '"application" of "Outcome"',
    'retryplan.Outcome.transport("refused")': '"transport" of "Outcome"',
    'retryplan.Outcome.grpc_status("unavailble")': '"grpc_status" of "Outcome"',
    'retryplan.Outcome.failure("dns_failed")': '"failure" of "Outcome"',
    'retryplan.Policy.from_profile("chekout")': '"from_profile" of "Policy"',
    'def c(d: retryplan.Decision) -> bool: return d.kind == "gaveup"': "Non-overlapping equality check",
    'def e(e: retryplan.RetryplanError) -> bool: return e.blame == "config"': "Non-overlapping equality check",
    'retryplan.Policy(propagation={"retry_layer": "sometimes"})': '"retry_layer" has type',
    'retryplan.Policy(propagation={"read_headers": ["b3"]})': "expected \"Literal['grpc', 'envoy', 'retryplan']\"",
    'retryplan.Policy(retry_methods=["get"])': "expected \"Literal['GET', 'HEAD'",
    "retryplan.propagation.WsgiMiddleware(lambda e, s: [], policy=retryplan.Policy())({}, lambda status: None)": (
        '"__call__" of "WsgiMiddleware"'  # a start_response that takes no headers
    ),
    # A misspelt name of a module with a lazy __getattr__ (an `object`, and no error, when checkers saw it).
    "retryplan.retyr(retryplan.Policy())": 'Module has no attribute "retyr"',
    "from retryplan import GaveUpErorr": 'Module "retryplan" has no attribute "GaveUpErorr"',
    "from retryplan.compat import from_urlib3": 'Module "retryplan.compat" has no attribute "from_urlib3"',
}


def mypy(source: str) -> "subprocess.CompletedProcess[str]":
    with tempfile.TemporaryDirectory() as work:
        path = pathlib.Path(work) / "checked.py"
        path.write_text(source)
        command: List[str] = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                              "--cache-dir", str(ROOT / "target/python-mypy-cache-typing"), str(path)]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, cwd=work)


@pytest.fixture(scope="module", autouse=True)
def needs_mypy() -> None:
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is installed in the dev venv only, where this runs")


def test_well_typed_configurations_pass_mypy_strict() -> None:
    checked = mypy(GOOD)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_misspelled_field_or_a_wrong_value_fails_mypy_strict_on_its_line() -> None:
    refused_on_their_lines("from retryplan import CircuitBreaker, Dependency, Policy, RetryBudget", BAD)


def test_user_code_of_the_public_names_passes_mypy_strict() -> None:
    checked = mypy(GOOD_USE)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_user_code_misusing_the_public_names_fails_mypy_strict_on_its_line() -> None:
    refused_on_their_lines("import retryplan.propagation", BAD_USE)


def refused_on_their_lines(imports: str, bad: Dict[str, str]) -> None:
    """Each line of ``bad`` after the one line ``imports``: mypy --strict refuses it, with its words."""
    lines = [imports, *bad]
    checked = mypy("\n".join(lines) + "\n")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    errors: Dict[int, str] = {}
    for match in re.finditer(r"^checked\.py:(\d+): error: (.*)$", checked.stdout, re.M):
        errors[int(match.group(1))] = errors.get(int(match.group(1)), "") + match.group(2)
    for number, (line, words) in enumerate(bad.items(), start=2):
        assert number in errors, f"mypy accepted line {number}: {line}\n{checked.stdout}"
        assert words in errors[number], f"line {number} ({line}): {errors[number]}"
