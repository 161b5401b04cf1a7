"""The AWS standard-mode profiles side by side with botocore's own standard retry handler.

scripts/botocore_replay.py does the replay (its docstring says what it compares); here it runs a seeded,
bounded sample against the pinned botocore (requirements-test.txt), the 2026 vectors' classifications go
through botocore's own checkers, and two deliberately broken botocores show that the comparison fails.
"""

import importlib.util
import json
import pathlib
import sys

import pytest

botocore = pytest.importorskip("botocore")
from botocore.retries import standard  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "conformance"


def load_replay():
    spec = importlib.util.spec_from_file_location("botocore_replay", ROOT / "scripts" / "botocore_replay.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


replay = load_replay()


def test_a_seeded_sample_agrees_with_botocore():
    result = replay.run(cases=1000, seed=2026, revisions=replay.revisions_available())
    assert result.differences == []
    assert result.steps > 1000
    assert set(result.known) <= set(replay.KNOWN)
    # The sample reaches every ending botocore has, in every revision it replays.
    endings = {key.split(": ")[1] for key in result.endings}
    assert {"success", "not_retryable", "attempts_exhausted", "budget_exhausted"} <= endings


def test_a_429_is_throttling_in_the_installed_botocore():
    """The one rule that parts botocore 1.44 from 1.43: the profiles follow 1.44 (the pinned version)."""
    assert replay.has_throttling_status_checker()
    assert replay.revisions_available() == ["2026"]


@pytest.mark.parametrize(
    "break_botocore",
    [
        pytest.param(lambda mp: mp.setattr(standard.RetryQuotaChecker, "_THROTTLING_RETRY_COST", 6), id="cost"),
        pytest.param(
            lambda mp: mp.setitem(
                standard.ExponentialBackoff._DEFAULT_BACKOFF_CONFIG, "non_throttling_base_scale", 0.1
            ),
            id="base",
        ),
        pytest.param(
            lambda mp: mp.setattr(standard.ThrottlingStatusCodeChecker, "_THROTTLING_STATUS_CODES", []), id="429"
        ),
    ],
)
def test_the_replay_sees_a_changed_botocore(monkeypatch, break_botocore):
    break_botocore(monkeypatch)
    result = replay.run(cases=120, seed=2026, revisions=replay.revisions_available())
    assert result.differences, "the replay must fail when botocore decides differently"


def vector_cases(kind):
    cases = json.loads((VECTORS / "aws_standard_2026.json").read_text())["cases"]
    return [case for case in cases if case["kind"] == kind and case.get("profile", "").startswith("aws_standard_2026")]


def attempt_of(outcome):
    kind = outcome["type"]
    if kind == "http_status":
        return replay.Attempt(kind="http", status=outcome["status"], code=outcome.get("error_code"))
    if kind == "transport":
        return replay.Attempt(
            kind={
                "not_sent": "endpoint_connection",
                "connection_lost": "connection_closed",
                "timed_out": "read_timeout",
            }[outcome["failure"]]
        )
    return None


@pytest.mark.parametrize("case", vector_cases("classify"), ids=lambda case: case["id"])
def test_vector_classifications_are_botocores(case):
    attempt = attempt_of(case["outcome"])
    if attempt is None:
        pytest.skip("an outcome botocore has no counterpart for")
    service = "dynamodb" if case["profile"].endswith("dynamodb") else "s3"
    boto = replay.Botocore("2026", service)
    kwargs = boto.kwargs(attempt, 1, {"retries": {}})
    context = standard.RetryEventAdapter().create_retry_context(**kwargs)
    retryable = boto.conditions.is_retryable(context)
    throttling = standard.ThrottlingErrorDetector(standard.RetryEventAdapter()).is_throttling_error_from_context(
        context
    )
    expect = case["expect"]
    assert (expect["class"] == "retryable") == retryable
    if retryable:
        assert expect.get("throttling", False) == throttling


# Responses no service sends, where botocore's parsers read the first code member that is there, whatever it holds,
# and keep a body code's spaces: the engine reads them alike (each would be a retryable code if read leniently).
ODD_ERROR_RESPONSES = [
    ("rest-json", {"x-amzn-errortype": ""}, '{"code": "ThrottlingException"}'),
    ("rest-json", {}, '{"code": "", "Code": "ThrottlingException"}'),
    ("rest-json", {}, '{"code": 5, "Code": "ThrottlingException"}'),
    ("rest-json", {}, '{"code": " ThrottlingException"}'),
    ("query", {}, "<ErrorResponse><Error><Code> Throttling </Code></Error></ErrorResponse>"),
    ("rest-xml", {}, "<Error><Code>\n  SlowDown\n</Code></Error>"),
    ("ec2", {}, "<Response><Errors><Error><Code> RequestLimitExceeded</Code></Error></Errors></Response>"),
]


@pytest.mark.parametrize("protocol,headers,body", ODD_ERROR_RESPONSES)
def test_odd_error_codes_read_as_botocore_reads_them(protocol, headers, body):
    from botocore.parsers import create_parser

    import retryplan

    parsed = create_parser(protocol).parse({"status_code": 400, "headers": headers, "body": body.encode()}, None)
    theirs = parsed.get("Error", {}).get("Code")
    mine = retryplan.aws_error_code_from_response(headers.get("x-amzn-errortype"), body)
    assert mine is None
    # botocore finds a code that no table holds (padded, empty or not a string): the same decision as none.
    assert str(theirs) not in replay.THROTTLING_CODES + replay.TRANSIENT_CODES, theirs
